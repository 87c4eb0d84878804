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

std::optional<GpuStage> parseGpuStage(llvm::StringRef name);

/// The shared memory one block may use on `chip` (sm_XX), in bytes: 227 KiB
/// on sm_90, 163 KiB on sm_80, 99 KiB on sm_86/sm_89, 64 KiB on sm_75;
/// 48 KiB, what every GPU allows without opting in, for other names.
int64_t getMaxSharedMemoryPerBlock(llvm::StringRef chip);
llvm::StringRef getGpuStageNames();

struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<std::string> stopAfter{
      *this, "stop-after",
      llvm::cl::desc("Stop after this stage: graph, linalg, bufferized, gpu, "
                     "nvvm or llvm"),
      llvm::cl::init("llvm")};
  PassOptions::Option<bool> fusion{
      *this, "fusion", llvm::cl::desc("Run the graph optimizer's fusions"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture, e.g. sm_90 or sm_90a"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX features, e.g. +ptx80"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel format: isa (PTX), bin (cubin, needs ptxas) or "
                     "fatbin"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size", llvm::cl::desc("Threads per block"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> attentionQTile{
      *this, "attention-q-tile",
      llvm::cl::desc("Query rows per flash-attention block (0: automatic)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> attentionKvTile{
      *this, "attention-kv-tile",
      llvm::cl::desc("Keys per flash-attention step (0: automatic)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Run the kernels as loops on the CPU, one thread per "
                     "block (for testing the mapping without a GPU)"),
      llvm::cl::init(false)};
};

/// What tfm-compile and `tfm-gpu-pipeline` let a user choose.
struct GpuPipelineConfig {
  GpuStage stopAfter = GpuStage::LLVM;
  bool fusion = true;
  std::string chip = "sm_90";
  std::string features = "+ptx80";
  /// "isa", "bin" or "fatbin", as gpu-module-to-binary's `format`.
  std::string format = "isa";
  /// The CUDA toolkit (for ptxas and libdevice); empty: MLIR's default.
  std::string toolkitPath;
  /// Whether CUDA's libdevice can be linked; without it, a kernel that
  /// needs one of its functions (sin, cos, pow, ...) is an error.
  bool libdevice = true;
  unsigned optLevel = 3;
  int64_t blockSize = 128;
  /// Shared memory a block may use; 0: the limit of `chip`.
  int64_t sharedMemoryBytes = 0;
  int64_t attentionQTile = 0;
  int64_t attentionKvTile = 0;
  /// Map to the GPU with one thread per block, then run the launches as
  /// loops on the CPU (tfm-emulate-gpu-on-cpu): the GPU mapping, tested
  /// without a GPU. The stages after `gpu` are the CPU's.
  bool emulate = false;
};

/// The whole GPU pipeline, from tfm to the LLVM dialect with the kernels
/// embedded, stopping after `config.stopAfter`.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineConfig &config);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_GPU_PIPELINE_H
