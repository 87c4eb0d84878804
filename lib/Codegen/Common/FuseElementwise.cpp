//===- FuseElementwise.cpp - Elementwise fusion that spares matmuls -------===//
//
// Implements `tfm-fuse-elementwise`: upstream's elementwise fusion and
// reshape propagation, except that nothing is fused into a contraction or
// into an op that reads it broadcast.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEELEMENTWISE
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// True if `operand` belongs to a contraction, which would recompute a fused
/// producer once per output column.
bool isContractionOperand(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  return consumer && linalg::isaContractionOpInterface(consumer);
}

/// True if `operand`'s consumer reads it broadcast (its indexing map is not
/// a permutation: a row's statistic read by each element of the row), which
/// would recompute a fused producer once per element it is broadcast to
/// (a LayerNorm's `1 / sqrt(var + eps)`, a square root and a division for
/// each element instead of each row).
bool isBroadcastOperand(OpOperand *operand) {
  auto consumer = dyn_cast<linalg::LinalgOp>(operand->getOwner());
  return consumer && !consumer.getMatchingIndexingMap(operand).isPermutation();
}

struct TfmFuseElementwisePass
    : tfm::impl::TfmFuseElementwiseBase<TfmFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !isContractionOperand(fused) && !isBroadcastOperand(fused);
    };
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
