//===- CollapseContractionDims.cpp - One column dimension per product -----===//
//
// Implements `tfm-collapse-contraction-dims`: a top-level contraction's
// row dimensions, and its column dimensions, each become one dimension
// where they are contiguous in every operand.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCOLLAPSECONTRACTIONDIMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// `dims` as one group to collapse, if there are several, consecutive, and
/// contiguous in every operand of `op`.
std::optional<ReassociationIndices> getGroup(linalg::GenericOp op,
                                             ArrayRef<unsigned> dims) {
  if (dims.size() < 2)
    return std::nullopt;
  ReassociationIndices group(dims.begin(), dims.end());
  llvm::sort(group);
  for (auto [i, dim] : llvm::enumerate(group))
    if (dim != group.front() + static_cast<int64_t>(i))
      return std::nullopt;
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return std::nullopt;
  return group;
}

/// The row dimensions and the column dimensions of `op`, each as one group
/// to collapse where they can be.
SmallVector<ReassociationIndices> getGroups(linalg::GenericOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return {};
  SmallVector<ReassociationIndices> groups;
  for (ArrayRef<unsigned> kind : {ArrayRef<unsigned>(dims->m),
                                  ArrayRef<unsigned>(dims->n)})
    if (std::optional<ReassociationIndices> group = getGroup(op, kind))
      groups.push_back(std::move(*group));
  llvm::sort(groups, [](const ReassociationIndices &a,
                        const ReassociationIndices &b) {
    return a.front() < b.front();
  });
  return groups;
}

struct TfmCollapseContractionDimsPass
    : tfm::impl::TfmCollapseContractionDimsBase<
          TfmCollapseContractionDimsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, SmallVector<ReassociationIndices>>>
        ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!isa<func::FuncOp>(op->getParentOp()) ||
          !op.hasPureTensorSemantics() ||
          !linalg::isaContractionOpInterface(op))
        return;
      SmallVector<ReassociationIndices> groups = getGroups(op);
      if (!groups.empty())
        ops.push_back({op, std::move(groups)});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, groups] : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> result =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (succeeded(result))
        rewriter.replaceOp(op, result->results);
    }
    if (ops.empty())
      return;
    // The elementwise ops that read a collapsed contraction's result (its
    // activation, a residual add) or compute its accumulator (a broadcast
    // bias) are collapsed the same way, so that the product's register
    // tiles can take them in; with them go the reshapes of their operands.
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *fused) {
          auto isElementwise = [](Operation *op) {
            auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
            return generic && isa<func::FuncOp>(generic->getParentOp()) &&
                   generic.getNumLoops() == generic.getNumParallelLoops();
          };
          auto isContraction = [](Operation *op) {
            auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
            return linalgOp && linalg::isaContractionOpInterface(linalgOp);
          };
          // A reader of the product's expanded result.
          if (auto expand = fused->get().getDefiningOp<tensor::ExpandShapeOp>())
            return isElementwise(fused->getOwner()) &&
                   isContraction(expand.getSrc().getDefiningOp());
          // The producer of the product's collapsed accumulator.
          if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(
                  fused->getOwner()))
            return isElementwise(fused->get().getDefiningOp()) &&
                   llvm::all_of(collapse->getUses(), [&](OpOperand &use) {
                     auto product = dyn_cast<linalg::LinalgOp>(use.getOwner());
                     return isContraction(product) &&
                            product.isDpsInit(&use);
                   });
          return false;
        });
    tensor::populateFoldTensorEmptyPatterns(patterns);
    linalg::FillOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
