//===- ExpandShapeToReinterpretCast.cpp - Multi-dynamic expand_shape -----===//
//
// Implements `tfm-expand-shape-to-reinterpret-cast`: a memref.expand_shape
// with more than one dynamic size in a reassociation group, which MLIR 22's
// expand-strided-metadata cannot lower, becomes a memref.reinterpret_cast
// of the source's base buffer with the sizes of its output_shape.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMEXPANDSHAPETOREINTERPRETCAST
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether a reassociation group of `op` holds two or more dynamic sizes.
bool hasMultiDynamicGroup(memref::ExpandShapeOp op) {
  MemRefType type = op.getResultType();
  return llvm::any_of(op.getReassociationIndices(),
                      [&](const ReassociationIndices &group) {
                        return llvm::count_if(group, [&](int64_t dim) {
                                 return type.isDynamicDim(dim);
                               }) > 1;
                      });
}

struct ExpandShapeToReinterpretCast
    : OpRewritePattern<memref::ExpandShapeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::ExpandShapeOp op,
                                PatternRewriter &rewriter) const override {
    if (!hasMultiDynamicGroup(op))
      return rewriter.notifyMatchFailure(op, "at most one dynamic size per "
                                             "group: upstream lowers it");
    MemRefType type = op.getResultType();
    SmallVector<int64_t> staticStrides;
    int64_t staticOffset;
    if (failed(type.getStridesAndOffset(staticStrides, staticOffset)))
      return rewriter.notifyMatchFailure(op, "result is not strided");

    Location loc = op.getLoc();
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, op.getSrc());
    SmallVector<OpFoldResult> sourceStrides =
        metadata.getConstifiedMixedStrides();
    SmallVector<OpFoldResult> sizes = op.getMixedOutputShape();

    // Within a group, each dimension's stride is the source dimension's
    // stride times the sizes of the dimensions inside it.
    AffineExpr s0, s1;
    bindSymbols(rewriter.getContext(), s0, s1);
    SmallVector<OpFoldResult> strides(type.getRank());
    for (auto [sourceDim, group] :
         llvm::enumerate(op.getReassociationIndices())) {
      OpFoldResult stride = sourceStrides[sourceDim];
      for (int64_t dim : llvm::reverse(group)) {
        strides[dim] = ShapedType::isDynamic(staticStrides[dim])
                           ? stride
                           : rewriter.getIndexAttr(staticStrides[dim]);
        stride = affine::makeComposedFoldedAffineApply(
            rewriter, loc, s0 * s1, {stride, sizes[dim]});
      }
    }
    OpFoldResult offset = ShapedType::isDynamic(staticOffset)
                              ? metadata.getConstifiedMixedOffset()
                              : rewriter.getIndexAttr(staticOffset);
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, type, metadata.getBaseBuffer(), offset, sizes, strides);
    return success();
  }
};

struct TfmExpandShapeToReinterpretCastPass
    : tfm::impl::TfmExpandShapeToReinterpretCastBase<
          TfmExpandShapeToReinterpretCastPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ExpandShapeToReinterpretCast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
