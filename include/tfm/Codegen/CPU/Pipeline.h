//===- Pipeline.h - the CPU pipeline ----------------------------*- C++ -*-===//
//
// The pipeline that `tfm-compile` runs for CPUs and `tfm-opt
// --tfm-cpu-pipeline` reproduces: its stages, options and builder.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_CPU_PIPELINE_H
#define TFM_CODEGEN_CPU_PIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;

namespace tfm {

/// The points at which the CPU pipeline can stop, in order. Each names the
/// form of the IR after it.
enum class CpuStage {
  /// The graph optimizer ran: inlined, canonicalized; tfm ops remain.
  Graph,
  /// tfm is lowered to linalg, tensor, arith and math on tensors.
  Linalg,
  /// linalg ops are tiled and vectorized, still on tensors.
  Vector,
  /// Tensors became buffers; results are out-parameters.
  Bufferized,
  /// Everything is in the LLVM dialect.
  LLVM,
};

/// Every choice of the CPU pipeline, declared once: `tfm-opt
/// --tfm-cpu-pipeline="..."` parses them, and tfm-compile sets them from its
/// flags.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<CpuStage> stopAfter{
      *this, "stop-after", llvm::cl::desc("Stop after this stage"),
      llvm::cl::init(CpuStage::LLVM),
      llvm::cl::values(
          clEnumValN(CpuStage::Graph, "graph", "the graph optimizer"),
          clEnumValN(CpuStage::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(CpuStage::Vector, "vector", "tiled and vectorized"),
          clEnumValN(CpuStage::Bufferized, "bufferized", "on buffers"),
          clEnumValN(CpuStage::LLVM, "llvm", "the LLVM dialect"))};
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Run the graph optimizer's fusions (attention, "
                     "multi-head attention, LayerNorm, GELU, linear)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("Query rows per flash-attention tile (0: the "
                     "strategy's choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("Keys per flash-attention block (0: the strategy's "
                     "choice)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Time every kernel (tfm-profile-kernels), for the "
                     "executables' --profile"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> dedupKernels{
      *this, "dedup-kernels",
      llvm::cl::desc("Share one function among kernels that are the same "
                     "code on other buffers and weights "
                     "(tfm-cpu-outline-kernels' dedup)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> tensorParallel{
      *this, "tensor-parallel",
      llvm::cl::desc("Split the model over this many MPI ranks "
                     "(tfm-tensor-parallel; 1: one process)"),
      llvm::cl::init(1)};
};

/// The CPU pipeline's last stage: loops, vectors and OpenMP to the LLVM
/// dialect. `vectorized` is false for code that the CPU's vector stage did
/// not make (the GPU emulation's host code). With `dedupKernels`, kernels
/// that are the same code on other buffers share one function. With
/// `collectives`, the MPI calls of a tensor-parallel model are lowered too.
void buildCpuLLVMStage(OpPassManager &pm, bool vectorized = false,
                       bool dedupKernels = true, bool collectives = false);

/// The whole CPU pipeline, from tfm to the LLVM dialect, stopping after
/// `options.stopAfter`.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineOptions &options);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_CPU_PIPELINE_H
