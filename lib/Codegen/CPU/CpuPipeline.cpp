//===- CpuPipeline.cpp - From tfm to the LLVM dialect for CPUs ------------===//

#include "tfm/Codegen/CPU/Pipeline.h"

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ShardToMPI/ShardToMPI.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::tfm;

/// Tiles and vectorizes for the module's `tfm.target`, which every strategy
/// pass reads.
static void buildVectorStage(OpPassManager &pm) {
  // Aggregate ops such as linalg.softmax become the linalg ops they are
  // made of, which are tiled like any other.
  pm.addPass(createTfmDecomposeAggregates());
  // Unit dimensions (the [S, 1, D] activations of an exported
  // nn.MultiheadAttention, whose reshapes fusion folds into the products)
  // would hide a matmul's rows or columns from the micro-kernel.
  pm.addPass(createTfmDropUnitDims());
  // Projections into heads ([K] x [K, H, Dh]) have two column dimensions.
  pm.addPass(createTfmCollapseContractionDims());
  // The extents of dynamic results, read off the ops' operands: a
  // product's result that only a reshape's extents still read (the rows of
  // an exported graph's [batch, seq, D]) is then its epilogue's alone.
  pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
  // Right operands of matmuls become panels of the micro-kernel's columns.
  pm.addPass(createTfmCpuPackPanels());
  pm.addPass(createCanonicalizerPass());
  // Rows of right operands that would alias in L1's sets get longer.
  pm.addPass(createTfmCpuPadRowStrides());
  pm.addPass(createTfmCpuSelectVectorStrategy());
  pm.addPass(createTfmTileByConfig());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createTfmCpuVectorize());
  // Upstream lowers the masked lanes of a maximumf reduction to -1.4e-45,
  // not -inf: a row of dynamic length whose every element is below it
  // (a fully masked softmax row) would get a wrong maximum.
  pm.addNestedPass<func::FuncOp>(createTfmCpuUnmaskReductions());
  pm.addPass(createCanonicalizerPass());
  // Accumulator tiles become loop-carried vectors, i.e. registers.
  pm.addPass(createTfmCpuHoistInvariantSubsets());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // The masked transfers of dynamic tiles become transfers with a mask
  // operand: bufferization's deallocation cannot insert its ownership
  // flags inside a vector.mask region, which must hold a single op.
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
}

/// One-shot bufferization across function boundaries with identity layouts,
/// results turned into caller-allocated out-parameters, and deallocation.
static void buildBufferizationStage(OpPassManager &pm,
                                    int64_t tensorParallel) {
  if (tensorParallel > 1) {
    // The all-reduces of a tensor-parallel model become MPI calls on
    // buffers of their own, which bufferization then takes as they are.
    pm.addPass(createTfmLowerDynamicAllReduces());
    pm.addPass(createConvertShardToMPIPass());
    TfmSimplifyMpiCommsOptions comms;
    comms.ranks = tensorParallel;
    pm.addPass(createTfmSimplifyMpiComms(comms));
  }
  buildOneShotBufferization(pm);
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // Parallel tiles (attention's query tiles, matmul panels) become
  // scf.parallel loops, which the LLVM stage hands to OpenMP.
  pm.addPass(createForallToParallelLoopPass());
  // A fused activation's product leaves a buffer of its sums that nothing
  // reads.
  pm.addNestedPass<func::FuncOp>(createTfmDropWriteOnlyBuffers());
  // Copies between strided buffers (concatenations, slices) as loops of
  // contiguous runs, large ones parallel: kernels like the others.
  pm.addNestedPass<func::FuncOp>(createTfmCpuLowerCopies());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Deallocation frees at the end of the block: every intermediate would
  // live until the entry returns.
  pm.addNestedPass<func::FuncOp>(createTfmFreeBuffersEarly());
  // A flash attention's per-block buffers, allocated once per query tile.
  pm.addNestedPass<func::FuncOp>(createTfmHoistLoopBuffers());
  // A decoding step's products read their packed weights ahead.
  pm.addNestedPass<func::FuncOp>(createTfmCpuPrefetchWeights());
}

void tfm::buildCpuLLVMStage(OpPassManager &pm, bool vectorized,
                            bool dedupKernels, bool collectives) {
  TfmCpuOutlineKernelsOptions outline;
  outline.dedup = dedupKernels;
  pm.addPass(createTfmCpuOutlineKernels(outline));
  pm.addPass(createConvertLinalgToLoopsPass());
  if (vectorized)
    pm.addPass(createTfmCpuLowerTransposes());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  // A block of rows (flash attention's row maxima and sums) reduces along
  // its rows together, by halves; single rows as upstream lowers them.
  pm.addNestedPass<func::FuncOp>(createTfmCpuReduceRowBlocks());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass(
      vector::VectorMultiReductionLowering::InnerReduction));
  // A row's sum reduces each vector as a tree, not lane after lane.
  pm.addNestedPass<func::FuncOp>(createTfmCpuReassociateReductions());
  // Transfers of n-D vectors are unrolled into 1-D ones, without the
  // temporary buffers and loops of the default lowering.
  // From here on, the conversions that look at one function at a time run
  // nested on the functions, which MLIR spreads over the cores; those that
  // add declarations to the module (libm's functions, malloc, abort) or
  // change function signatures run on the module.
  OpPassManager &loops = pm.nest<func::FuncOp>();
  loops.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  loops.addPass(createLowerAffinePass());
  // Each scf.parallel becomes an OpenMP parallel loop; the thread count is
  // libomp's (OMP_NUM_THREADS, which the executables' --threads sets).
  // Those of a run-time trip count start their threads only when the work
  // is worth it. The canonicalizer then inlines the allocation scopes that
  // hold no alloca.
  pm.addPass(createConvertSCFToOpenMPPass());
  OpPassManager &openMp = pm.nest<func::FuncOp>();
  openMp.addPass(createTfmCpuSerializeSmallLoops());
  openMp.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createSCFToControlFlowPass());
  // The model's own checks (the ONNX importer's bounds of symbolic sizes)
  // print their message.
  pm.addPass(createTfmLowerAsserts());
  pm.addPass(createTfmApproximateMath());
  pm.addPass(createTfmExpandShapeToReinterpretCast());
  OpPassManager &vectors = pm.nest<func::FuncOp>();
  // bfloat16 widens and narrows as integer operations on its bits, so that
  // LLVM's x86 back end sees no vector operations on `bfloat`, whose type
  // legalization aborts on some of them (a shuffle of <9 x bfloat>).
  vectors.addPass(createTfmBf16AsBits());
  vectors.addPass(memref::createExpandStridedMetadataPass());
  vectors.addPass(createLowerAffinePass());
  // Register-tile contractions become one broadcast FMA per row and
  // register.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectors.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  vectors.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  // Allocations call the runtime's checked allocation functions
  // (runtime/Alloc.cpp), which report a failure instead of returning null.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  if (collectives) {
    // The MPI dialect's calls (Open MPI's ABI, from the module's dlti.map).
    ConvertToLLVMPassOptions mpiToLLVM;
    mpiToLLVM.filterDialects = {"mpi"};
    pm.addPass(createConvertToLLVMPass(mpiToLLVM));
    pm.addPass(createTfmFixOpenMpiOpSymbols());
  }
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  OpPassManager &scalars = pm.nest<func::FuncOp>();
  scalars.addPass(createArithToLLVMConversionPass());
  scalars.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addNestedPass<LLVM::LLVMFuncOp>(createCanonicalizerPass());
}

void tfm::buildCpuPipeline(OpPassManager &pm,
                           const CpuPipelineOptions &config) {
  buildGraphOptimizerPipeline(pm, config.fusion);
  if (config.tensorParallel > 1) {
    TfmTensorParallelOptions split;
    split.ranks = config.tensorParallel;
    pm.addPass(createTfmTensorParallel(split));
  }
  if (config.stopAfter == CpuStage::Graph)
    return;
  // Tile sizes of 0 leave the strategy's defaults.
  TfmCpuSelectStrategyOptions strategy;
  if (config.attentionQTile > 0)
    strategy.qTileSize = config.attentionQTile;
  if (config.attentionKvTile > 0)
    strategy.kvTileSize = config.attentionKvTile;
  // A decoding step's attention (one query against a key/value cache)
  // reads the cache where it lies.
  buildTfmToLinalgStage(pm, createTfmCpuSelectStrategy(strategy),
                        /*mapTileLoops=*/false, /*decodePath=*/true);
  // Bias and residual start the accumulator (the vector stage's tiles
  // then store finished outputs); GELU stays a pass of its own.
  pm.addPass(createTfmFoldEpilogueIntoAccumulator());
  pm.addPass(createCanonicalizerPass());
  if (config.stopAfter == CpuStage::Linalg)
    return;
  buildVectorStage(pm);
  if (config.stopAfter == CpuStage::Vector)
    return;
  buildBufferizationStage(pm, config.tensorParallel);
  if (config.profile)
    pm.addPass(createTfmProfileKernels());
  if (config.stopAfter == CpuStage::Bufferized)
    return;
  buildCpuLLVMStage(pm, /*vectorized=*/true, config.dedupKernels,
                    /*collectives=*/config.tensorParallel > 1);
}
