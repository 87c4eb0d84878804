//===- FoldReshapesIntoTransposes.cpp - tfm-fold-reshapes-into-transposes -===//
//
// Implements `tfm-fold-reshapes-into-transposes`: a transpose of a split
// into heads (expand_shape of a collapse_shape) transposes the refined
// shape instead, so that no collapse of a strided slice is left to copy;
// a transpose that moves only dimensions of size 1 becomes the reshape it
// is.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/Common/Transposes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFOLDRESHAPESINTOTRANSPOSES
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// A refined dimension's size: static, or that of a source dimension.
struct RefinedSize {
  int64_t value;
  bool isSourceDim;
};

/// One group of the collapse and the expansion, refined: the refined
/// dimensions' sizes and, for each source and each target dimension of
/// the group, its refined dimensions.
struct GroupRefinement {
  SmallVector<RefinedSize> sizes;
  SmallVector<SmallVector<int64_t>> sourceDims, targetDims;
};

/// Refines a collapse group of `source` dims (of `type`) into an expand
/// group of `target` dims (their static sizes), the first refined
/// dimension numbered `base`; nothing where it cannot. Creates no IR.
std::optional<GroupRefinement> refine(RankedTensorType type,
                                      ArrayRef<int64_t> sourceGroup,
                                      ArrayRef<int64_t> targetSizes,
                                      int64_t base) {
  GroupRefinement r;
  auto sourceSize = [&](int64_t d) -> RefinedSize {
    if (!type.isDynamicDim(d))
      return {type.getDimSize(d), false};
    return {d, true};
  };
  if (sourceGroup.size() == 1 && targetSizes.size() == 1) {
    r.sizes.push_back(sourceSize(sourceGroup[0]));
    r.sourceDims.push_back({base});
    r.targetDims.push_back({base});
    return r;
  }
  // [A, C] -> [B, D]: [A, C / D, D], with B = A * C / D.
  if (sourceGroup.size() != 2 || targetSizes.size() != 2)
    return std::nullopt;
  int64_t c = type.getDimSize(sourceGroup[1]), d = targetSizes[1];
  if (ShapedType::isDynamic(c) || ShapedType::isDynamic(d) || d <= 0 ||
      c % d != 0 || c == d)
    return std::nullopt;
  r.sizes = {sourceSize(sourceGroup[0]), {c / d, false}, {d, false}};
  r.sourceDims = {{base}, {base + 1, base + 2}};
  r.targetDims = {{base, base + 1}, {base + 2}};
  return r;
}

struct FoldIntoTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto expand = op.getInput().getDefiningOp<tensor::ExpandShapeOp>();
    auto collapse =
        expand ? expand.getSrc().getDefiningOp<tensor::CollapseShapeOp>()
               : tensor::CollapseShapeOp();
    if (!collapse)
      return rewriter.notifyMatchFailure(op, "not a transposed split");
    Value x = collapse.getSrc();
    SmallVector<ReassociationIndices> collapseGroups =
        collapse.getReassociationIndices();
    SmallVector<ReassociationIndices> expandGroups =
        expand.getReassociationIndices();
    if (collapseGroups.size() != expandGroups.size())
      return rewriter.notifyMatchFailure(op, "groups differ in number");
    ArrayRef<int64_t> targetShape = expand.getResultType().getShape();
    Location loc = op.getLoc();

    // The refinement, group by group.
    auto sourceType = cast<RankedTensorType>(x.getType());
    SmallVector<RefinedSize> plan;
    SmallVector<ReassociationIndices> sourceToRefined(
        cast<RankedTensorType>(x.getType()).getRank());
    SmallVector<ReassociationIndices> targetToRefined(targetShape.size());
    bool changes = false;
    for (auto [sourceGroup, targetGroup] :
         llvm::zip_equal(collapseGroups, expandGroups)) {
      SmallVector<int64_t> targetSizes = llvm::map_to_vector(
          targetGroup, [&](int64_t t) { return targetShape[t]; });
      std::optional<GroupRefinement> r =
          refine(sourceType, sourceGroup, targetSizes, plan.size());
      if (!r)
        return rewriter.notifyMatchFailure(op, "a group does not refine");
      changes |= r->sizes.size() > 1;
      llvm::append_range(plan, r->sizes);
      for (auto [s, dims] : llvm::zip_equal(sourceGroup, r->sourceDims))
        sourceToRefined[s].assign(dims.begin(), dims.end());
      for (auto [t, dims] : llvm::zip_equal(targetGroup, r->targetDims))
        targetToRefined[t].assign(dims.begin(), dims.end());
    }
    if (!changes)
      return rewriter.notifyMatchFailure(op, "nothing to refine");
    SmallVector<OpFoldResult> refinedSizes =
        llvm::map_to_vector(plan, [&](RefinedSize size) -> OpFoldResult {
          if (!size.isSourceDim)
            return rewriter.getIndexAttr(size.value);
          return tensor::DimOp::create(rewriter, loc, x, size.value)
              .getResult();
        });

    Type elementType = sourceType.getElementType();
    SmallVector<int64_t> staticRefined;
    SmallVector<Value> dynamicRefined;
    dispatchIndexOpFoldResults(refinedSizes, dynamicRefined, staticRefined);
    Value refined = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get(staticRefined, elementType), x,
        sourceToRefined, refinedSizes);
    // The transpose over the refined dimensions, and its result's groups.
    SmallVector<int64_t> permutation;
    SmallVector<OpFoldResult> outSizes;
    SmallVector<ReassociationIndices> outGroups;
    for (int64_t t : op.getPermutation()) {
      ReassociationIndices group;
      for (int64_t dim : targetToRefined[t]) {
        group.push_back(permutation.size());
        permutation.push_back(dim);
        outSizes.push_back(refinedSizes[dim]);
      }
      outGroups.push_back(group);
    }
    Value init = tensor::EmptyOp::create(rewriter, loc, outSizes, elementType);
    Value transposed =
        linalg::TransposeOp::create(rewriter, loc, refined, init, permutation)
            ->getResult(0);
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op->getResult(0).getType(), transposed, outGroups);
    return success();
  }
};

struct TfmFoldReshapesIntoTransposesPass
    : tfm::impl::TfmFoldReshapesIntoTransposesBase<
          TfmFoldReshapesIntoTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldIntoTranspose>(&getContext());
    populateUnitDimTransposeToReshapePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
