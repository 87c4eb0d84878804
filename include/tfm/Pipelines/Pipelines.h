//===- Pipelines.h - tfm's registered pass pipelines ------------*- C++ -*-===//
//
// The pipelines that tfm-compile runs, registered so that `tfm-opt
// --tfm-cpu-pipeline` reproduces exactly what the driver does.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_PIPELINES_PIPELINES_H
#define TFM_PIPELINES_PIPELINES_H

#include "tfm/Codegen/CPU/Pipeline.h"
#include "tfm/Codegen/GPU/Pipeline.h"

namespace mlir {
namespace tfm {

/// Registers `tfm-cpu-pipeline`, `tfm-gpu-pipeline` and
/// `tfm-graph-optimizer`.
void registerTfmPipelines();

} // namespace tfm
} // namespace mlir

#endif // TFM_PIPELINES_PIPELINES_H
