//===- GpuPipeline.cpp - tfm to NVVM kernels and a host that runs them -===//
//
// The stages after the shared graph optimizer and linalg lowering:
//
//   bufferized   one-shot bufferization; results become out-parameters
//   gpu          tfm-gpu-promote-operands (shared-memory staging),
//                tfm-map-to-gpu (tiles to blocks, loops to threads),
//                tfm-gpu-place-buffers (device buffers), kernels outlined,
//                host calls made asynchronous
//   nvvm         kernels lowered to the NVVM dialect with their target
//   llvm         kernels compiled by LLVM's NVPTX backend (and ptxas for
//                cubin), embedded; the host lowered to the LLVM dialect
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Pipeline.h"

#include "tfm/Codegen/CPU/Pipeline.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::tfm;

unsigned tfm::getComputeCapability(StringRef chip) {
  StringRef digits = chip;
  unsigned version = 0;
  if (!digits.consume_front("sm_") ||
      digits.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

int64_t tfm::getMaxSharedMemoryPerBlock(StringRef chip) {
  unsigned version = getComputeCapability(chip);
  if (version == 0)
    return 48 * 1024;
  if (version >= 120) // Consumer Blackwell.
    return 99 * 1024;
  if (version >= 90)
    return 227 * 1024;
  if (version == 80 || version == 87)
    return 163 * 1024;
  if (version >= 86)
    return 99 * 1024;
  if (version >= 75)
    return 64 * 1024;
  return 48 * 1024;
}


/// One-shot bufferization with identity layouts at the function boundary
/// and results as caller-allocated out-parameters. Nothing is deallocated
/// here: tfm-map-to-gpu frees the device buffers it allocates.
static void buildBufferizationStage(OpPassManager &pm) {
  buildOneShotBufferization(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// Operands staged in shared memory, loops mapped to blocks and threads,
/// buffers placed on the device, with `blockSize` threads per block.
static void buildMappingPasses(OpPassManager &pm,
                               const GpuPipelineOptions &config,
                               int64_t blockSize) {
  int64_t sharedMemoryBytes =
      config.sharedMemoryBytes
          ? config.sharedMemoryBytes
          : getMaxSharedMemoryPerBlock(config.chip.getValue());
  TfmGpuPromoteOperandsOptions promotion;
  promotion.sharedMemoryBytes = sharedMemoryBytes;
  // Three stages for the tensor cores' asynchronous copies: two steps'
  // operands in flight while a step computes.
  promotion.stages = config.tensorCores ? 3 : 1;
  pm.addNestedPass<func::FuncOp>(createTfmGpuPromoteOperands(promotion));
  TfmMapToGpuOptions mapping;
  mapping.blockSize = blockSize;
  mapping.tensorCores = config.tensorCores;
  mapping.tf32 = config.tf32;
  mapping.emulateWarps = config.emulate;
  mapping.sharedMemoryBytes = sharedMemoryBytes;
  // A chunk or key block of 64 is four float16 steps: unrolled, as CUTLASS
  // unrolls the steps of a stage.
  mapping.unrollSteps = 4;
  pm.addNestedPass<func::FuncOp>(createTfmMapToGpu(mapping));
  pm.addPass(createTfmGpuPlaceBuffers());
}

static void buildMappingStage(OpPassManager &pm,
                              const GpuPipelineOptions &config) {
  buildMappingPasses(pm, config, config.blockSize);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createTfmGpuDropRedundantBarriers());
  // The constants (and dims, views) a launch body reads become the
  // kernel's own rather than its parameters, so that its loop bounds and
  // strides are known where it is compiled.
  pm.addNestedPass<func::FuncOp>(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createTfmMergeGpuModules());
  // Host-side gpu ops become asynchronous on one stream per call, which
  // gpu-to-llvm requires; the call waits for the stream before returning.
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());
  pm.addPass(createCanonicalizerPass());
}

static void buildNvvmStage(OpPassManager &pm, const GpuPipelineOptions &config) {
  // exp, erf and tanh as polynomials, sqrt, fma and floor as PTX
  // instructions: CUDA's libdevice is needed only for the likes of sin, cos
  // and pow (the positional encoding).
  pm.addNestedPass<gpu::GPUModuleOp>(createTfmApproximateMath());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // The model's own checks (the ONNX importer's bounds of symbolic sizes)
  // print their message.
  pm.addPass(createTfmLowerAsserts());
  pm.addPass(createTfmExpandShapeToReinterpretCast());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());

  GpuNVVMAttachTargetOptions target;
  target.chip = config.chip.getValue();
  target.features = config.features.getValue();
  target.optLevel = config.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));

  // The tensor cores' instructions (nvgpu.mma.sync) to NVVM intrinsics.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions toNvvm;
  toNvvm.indexBitwidth = 64;
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps(toNvvm));
  TfmGpuNativeMathOptions nativeMath;
  nativeMath.libdevice = config.libdevice;
  pm.addNestedPass<gpu::GPUModuleOp>(createTfmGpuNativeMath(nativeMath));
  pm.addNestedPass<gpu::GPUModuleOp>(createTfmGpuRegisterBudget());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
}

static void buildLLVMStage(OpPassManager &pm, const GpuPipelineOptions &config) {
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  GpuModuleToBinaryPassOptions binary;
  switch (config.format) {
  case GpuFormat::Isa:
    binary.compilationTarget = "isa";
    break;
  case GpuFormat::Bin:
    binary.compilationTarget = "bin";
    break;
  case GpuFormat::Fatbin:
    binary.compilationTarget = "fatbin";
    break;
  }
  binary.toolkitPath = config.toolkit.getValue();
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tfm::buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &config) {
  buildGraphOptimizerPipeline(pm, config.fusion);
  if (config.stopAfter == GpuStage::Graph)
    return;
  // Tile sizes of 0 leave the strategy's defaults.
  TfmGpuSelectStrategyOptions strategy;
  if (config.attentionQTile > 0)
    strategy.qTileSize = config.attentionQTile;
  if (config.attentionKvTile > 0)
    strategy.kvTileSize = config.attentionKvTile;
  strategy.tensorCores = config.tensorCores;
  strategy.tf32 = config.tf32;
  // On tensor cores ldmatrix loads a product's right operand by rows of
  // either dimension: the weights of x · wᵀ are read as they are, not
  // transposed by a kernel at every call.
  buildTfmToLinalgStage(pm, createTfmGpuSelectStrategy(strategy),
                        /*mapTileLoops=*/true, /*decodePath=*/false,
                        /*foldTransposes=*/config.tensorCores);
  if (config.stopAfter == GpuStage::Linalg)
    return;
  buildBufferizationStage(pm);
  if (config.stopAfter == GpuStage::Bufferized)
    return;
  if (config.emulate) {
    buildMappingPasses(pm, config, /*blockSize=*/1);
    pm.addNestedPass<func::FuncOp>(createTfmEmulateGpuOnCpu());
    // The runtime's functions it no longer calls (device constants).
    pm.addPass(createSymbolDCEPass());
    pm.addPass(createCanonicalizerPass());
    if (config.stopAfter >= GpuStage::Nvvm)
      buildCpuLLVMStage(pm);
    return;
  }
  buildMappingStage(pm, config);
  if (config.stopAfter == GpuStage::Gpu)
    return;
  buildNvvmStage(pm, config);
  if (config.stopAfter == GpuStage::Nvvm)
    return;
  buildLLVMStage(pm, config);
}
