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
      buildCpuPipeline);
  PassPipelineRegistration<GpuPipelineOptions>(
      "tfm-gpu-pipeline",
      "The GPU pipeline of tfm-compile --target=nvptx: graph optimizer, tfm "
      "to linalg, bufferization, mapping to blocks and threads, NVVM, and "
      "embedded kernels",
      buildGpuPipeline);
}
