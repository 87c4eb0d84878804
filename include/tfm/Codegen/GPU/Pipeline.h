//===- Pipeline.h - the GPU pipeline ----------------------------*- C++ -*-===//
//
// The pipeline that `tfm-compile --target=nvptx` runs and `tfm-opt
// --tfm-gpu-pipeline` reproduces: its stages, options and builder.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_GPU_PIPELINE_H
#define TFM_CODEGEN_GPU_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;

namespace tfm {

/// The points at which the GPU pipeline can stop, in order.
enum class GpuStage {
  /// The graph optimizer ran; tfm ops remain.
  Graph,
  /// tfm is lowered to linalg on tensors; attention is tiled.
  Linalg,
  /// Tensors became buffers; results are out-parameters.
  Bufferized,
  /// Kernels are outlined into gpu.module; the host allocates, copies and
  /// launches.
  Gpu,
  /// Kernels are in the NVVM and LLVM dialects, with their target attached.
  Nvvm,
  /// Kernels are compiled and embedded; the host is in the LLVM dialect.
  LLVM,
};

/// How kernels are embedded, as gpu-module-to-binary's `format`.
enum class GpuFormat { Isa, Bin, Fatbin };

/// The compute capability of `chip` as a number (sm_90a: 90), or 0 for a
/// name that is not sm_XX.
unsigned getComputeCapability(llvm::StringRef chip);

/// The shared memory one block may use on `chip` (sm_XX), in bytes: 227 KiB
/// on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89, 64 KiB on sm_75;
/// 48 KiB, what every GPU allows without opting in, for other names.
int64_t getMaxSharedMemoryPerBlock(llvm::StringRef chip);

/// Every choice of the GPU pipeline, declared once: `tfm-opt
/// --tfm-gpu-pipeline="..."` parses them, and tfm-compile --target=nvptx
/// sets them from its flags and from the CUDA toolkit it finds.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<GpuStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("Stop after this stage"),
      llvm::cl::init(GpuStage::LLVM),
      llvm::cl::values(
          clEnumValN(GpuStage::Graph, "graph", "the graph optimizer"),
          clEnumValN(GpuStage::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(GpuStage::Bufferized, "bufferized", "on buffers"),
          clEnumValN(GpuStage::Gpu, "gpu", "kernels outlined"),
          clEnumValN(GpuStage::Nvvm, "nvvm", "kernels in NVVM"),
          clEnumValN(GpuStage::LLVM, "llvm", "kernels embedded"))};
  PassOptions::Option<bool> fusion{
      *this, "fusion", llvm::cl::desc("Run the graph optimizer's fusions"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture, e.g. sm_90 or sm_90a"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features, e.g. +ptx80"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<GpuFormat> format{
      *this, "format", llvm::cl::desc("How kernels are embedded"),
      llvm::cl::init(GpuFormat::Isa),
      llvm::cl::values(
          clEnumValN(GpuFormat::Isa, "isa", "PTX"),
          clEnumValN(GpuFormat::Bin, "bin", "cubin (needs ptxas)"),
          clEnumValN(GpuFormat::Fatbin, "fatbin", "a fat binary"))};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("The CUDA toolkit, for ptxas and libdevice (empty: "
                     "MLIR's default)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> libdevice{
      *this, "libdevice",
      llvm::cl::desc("Whether CUDA's libdevice can be linked; without it, a "
                     "kernel that needs one of its functions is an error"),
      llvm::cl::init(true)};
  PassOptions::Option<unsigned> optLevel{
      *this, "opt-level", llvm::cl::desc("Optimization level of the kernels"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("Threads per block"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> sharedMemoryBytes{
      *this, "shared-memory-bytes",
      llvm::cl::desc("Shared memory a block may use (0: the chip's limit)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("Query rows per flash-attention block (0: the "
                     "strategy's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("Keys per flash-attention step (0: the strategy's "
                     "choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> tensorCores{
      *this, "tensor-cores",
      llvm::cl::desc("Float16 contractions of block tiles on tensor cores "
                     "(nvgpu.mma.sync, sm_80 and up; not yet run on a GPU)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> tf32{
      *this, "tf32",
      llvm::cl::desc("With tensor-cores, float32 contractions too, as TF32 "
                     "(10 bits of mantissa)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Map with one thread per block, then run the launches "
                     "as loops on the CPU (the GPU mapping, tested without a "
                     "GPU); the stages after gpu are the CPU's"),
      llvm::cl::init(false)};
};

/// The whole GPU pipeline, from tfm to the LLVM dialect with the kernels
/// embedded, stopping after `options.stopAfter`.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_GPU_PIPELINE_H
