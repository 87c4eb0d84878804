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

/// Parses a stage name ("graph", "linalg", "vector", "bufferized", "llvm").
std::optional<CpuStage> parseCpuStage(llvm::StringRef name);

/// Returns the names of all stages, in order, separated by `|`.
llvm::StringRef getCpuStageNames();

struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Stop after this stage: graph, linalg, vector, "
                     "bufferized or llvm"),
      llvm::cl::init("llvm")};
  PassOptions::Option<bool> fusion{
      *this, "fusion",
      llvm::cl::desc("Run the graph optimizer's fusions (attention, "
                     "multi-head attention, LayerNorm, GELU, linear)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("Query rows per flash-attention tile (0: automatic)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("Keys per flash-attention block (0: automatic)"),
      llvm::cl::init(0)};
  PassOptions::Option<unsigned> vectorWidthBits{
      *this, "vector-width-bits",
      llvm::cl::desc("Width of the target's vector registers in bits"),
      llvm::cl::init(512)};
};

/// The CPU pipeline's last stage: loops, vectors and OpenMP to the LLVM
/// dialect.
void buildCpuLLVMStage(OpPassManager &pm);

/// What tfm-compile and `tfm-cpu-pipeline` let a user choose.
struct CpuPipelineConfig {
  CpuStage stopAfter = CpuStage::LLVM;
  bool fusion = true;
  unsigned vectorWidthBits = 512;
  int64_t attentionQTile = 0;
  int64_t attentionKvTile = 0;
};

/// The whole CPU pipeline, from tfm to the LLVM dialect, stopping after
/// `config.stopAfter`.
void buildCpuPipeline(OpPassManager &pm, const CpuPipelineConfig &config);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_CPU_PIPELINE_H
