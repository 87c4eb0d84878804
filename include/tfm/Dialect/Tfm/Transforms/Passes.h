//===- Passes.h - graph rewrites on tfm -------------------------*- C++ -*-===//

#ifndef TFM_DIALECT_TFM_TRANSFORMS_PASSES_H
#define TFM_DIALECT_TFM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
class OpPassManager;
class RewritePatternSet;
namespace tfm {

/// The module attribute with which tfm-tensor-parallel records the number
/// of ranks it split the model over; the executable checks it against
/// mpirun's.
constexpr const char *kTensorParallelAttr = "tfm.tensor_parallel";
/// The function attribute that marks the clone of one rank (its number).
constexpr const char *kRankAttr = "tfm.rank";

#define GEN_PASS_DECL
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"

/// Adds the patterns of `tfm-decompose` to `patterns`.
void populateDecomposePatterns(RewritePatternSet &patterns);

/// The graph optimizer: inlining, canonicalization, CSE, the fusions (unless
/// `fusion` is false) and dead symbol removal. Target-independent; the first
/// stage of every pipeline.
void buildGraphOptimizerPipeline(OpPassManager &pm, bool fusion = true);

#define GEN_PASS_REGISTRATION
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"

} // namespace tfm
} // namespace mlir

#endif // TFM_DIALECT_TFM_TRANSFORMS_PASSES_H
