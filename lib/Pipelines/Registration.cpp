//===- Registration.cpp - tfm's registered pass pipelines -----------------===//

#include "tfm/Pipelines/Pipelines.h"

#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::tfm;

void tfm::registerTfmPipelines() {
  PassPipelineRegistration<>(
      "tfm-graph-optimizer",
      "tfm's target-independent graph optimizer (what tfm-compile runs "
      "before lowering)",
      [](OpPassManager &pm) { buildGraphOptimizerPipeline(pm); });
  PassPipelineRegistration<CpuPipelineOptions>(
      "tfm-cpu-pipeline",
      "The CPU pipeline of tfm-compile: graph optimizer, tfm to linalg, "
      "tiling and vectorization, bufferization, and lowering to LLVM",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        CpuPipelineConfig config;
        // An unknown stage name runs the whole pipeline; tfm-compile rejects
        // it with a diagnostic before getting here.
        config.stopAfter =
            parseCpuStage(options.stopAfter).value_or(CpuStage::LLVM);
        config.fusion = options.fusion;
        config.vectorWidthBits = options.vectorWidthBits;
        config.attentionQTile = options.attentionQTile;
        config.attentionKvTile = options.attentionKvTile;
        buildCpuPipeline(pm, config);
      });
  PassPipelineRegistration<GpuPipelineOptions>(
      "tfm-gpu-pipeline",
      "The GPU pipeline of tfm-compile --target=nvptx: graph optimizer, tfm "
      "to linalg, bufferization, mapping to blocks and threads, NVVM, and "
      "embedded kernels",
      [](OpPassManager &pm, const GpuPipelineOptions &options) {
        GpuPipelineConfig config;
        config.stopAfter =
            parseGpuStage(options.stopAfter).value_or(GpuStage::LLVM);
        config.fusion = options.fusion;
        config.chip = options.chip;
        config.features = options.features;
        config.format = options.format;
        config.blockSize = options.blockSize;
        config.attentionQTile = options.attentionQTile;
        config.attentionKvTile = options.attentionKvTile;
        config.emulate = options.emulate;
        buildGpuPipeline(pm, config);
      });
}
