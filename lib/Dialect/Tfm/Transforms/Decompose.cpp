//===- Decompose.cpp - Decompose composite tfm ops ------------------------===//
//
// Implements `tfm-decompose`: multi_head_attention, ffn and add_norm become
// the primitive tfm and upstream ops that d2l builds them from.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <array>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDECOMPOSE
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Repeats every per-batch entry of `validLens` (`[B]` or `[B, Sq]`)
/// `numHeads` times along the batch dimension, giving `[B * H]` or
/// `[B * H, Sq]`: d2l's `repeat_interleave(valid_lens, num_heads, dim=0)`.
Value broadcastHeads(PatternRewriter &rewriter, Location loc,
                     Value validLens, int64_t numHeads) {
  auto type = cast<RankedTensorType>(validLens.getType());
  ArrayRef<int64_t> shape = type.getShape();

  // Broadcast [B, ...] to [B, H, ...].
  SmallVector<int64_t> wideShape{shape.front(), numHeads};
  llvm::append_range(wideShape, shape.drop_front());
  SmallVector<Value> dynamicSizes;
  for (auto [i, size] : llvm::enumerate(shape))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, validLens, i));
  Value init = tensor::EmptyOp::create(rewriter, loc, wideShape,
                                       type.getElementType(), dynamicSizes);
  return linalg::BroadcastOp::create(rewriter, loc, validLens, init,
                                     /*dimensions=*/{1})
      ->getResult(0);
}

Value repeatInterleave(PatternRewriter &rewriter, Location loc,
                       Value validLens, int64_t numHeads) {
  Value wide = broadcastHeads(rewriter, loc, validLens, numHeads);
  // Collapse [B, H, ...] to [B * H, ...].
  int64_t rank = cast<RankedTensorType>(wide.getType()).getRank();
  SmallVector<ReassociationIndices> groups{{0, 1}};
  for (int64_t i = 2; i < rank; ++i)
    groups.push_back({i});
  return tensor::CollapseShapeOp::create(rewriter, loc, wide, groups);
}

/// Expands the leading `[B * H]` dimension of `v` into `[B, H]`, B being
/// `batch`.
Value expandHeads(PatternRewriter &rewriter, Location loc, Value v,
                  OpFoldResult batch, int64_t heads) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> sizes{batch, rewriter.getIndexAttr(heads)};
  SmallVector<ReassociationIndices> groups{{0, 1}};
  for (int64_t i = 1; i < type.getRank(); ++i) {
    sizes.push_back(tensor::getMixedSize(rewriter, loc, v, i));
    groups.push_back({i + 1});
  }
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return tensor::ExpandShapeOp::create(rewriter, loc, type.clone(shape), v,
                                       groups, sizes);
}

/// Concatenates `values` along dimension 0: at compile time when they are all
/// constants (weights, once bound), with tensor.concat otherwise.
Value concatRows(PatternRewriter &rewriter, Location loc, ValueRange values) {
  SmallVector<DenseElementsAttr> constants;
  for (Value v : values) {
    DenseElementsAttr attr;
    if (!matchPattern(v, m_Constant(&attr)) || attr.isSplat())
      break;
    constants.push_back(attr);
  }
  if (constants.size() != values.size())
    return tensor::ConcatOp::create(rewriter, loc, /*dim=*/0, values);
  auto type = cast<RankedTensorType>(values.front().getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] *= values.size();
  std::vector<char> data;
  for (DenseElementsAttr attr : constants)
    llvm::append_range(data, attr.getRawData());
  auto packedType = RankedTensorType::get(shape, type.getElementType());
  return arith::ConstantOp::create(
      rewriter, loc, DenseElementsAttr::getFromRawBuffer(packedType, data));
}

/// The three input projections of a self-attention computed with one GEMM:
/// `linear(x, concat(W_q, W_k, W_v), concat(b_q, b_k, b_v)?)`, whose
/// `[..., 3·D]` result is sliced into the `[..., D]` projections. Returns
/// std::nullopt (creating nothing) unless the three weights, and the three
/// biases, have one type with a static model dimension D.
std::optional<std::array<Value, 3>> projectPacked(PatternRewriter &rewriter,
                                                  MultiHeadAttentionOp op) {
  Location loc = op.getLoc();
  Type weightType = op.getWQ().getType();
  int64_t modelDim = cast<RankedTensorType>(weightType).getDimSize(0);
  if (ShapedType::isDynamic(modelDim) || op.getWK().getType() != weightType ||
      op.getWV().getType() != weightType)
    return std::nullopt;
  Value bq = op.getBQ();
  if (bq && (op.getBK().getType() != bq.getType() ||
             op.getBV().getType() != bq.getType()))
    return std::nullopt;

  Value weight =
      concatRows(rewriter, loc, ValueRange{op.getWQ(), op.getWK(), op.getWV()});
  Value bias;
  if (bq)
    bias = concatRows(rewriter, loc, ValueRange{bq, op.getBK(), op.getBV()});
  Value packed = LinearOp::create(rewriter, loc, op.getQuery(), weight, bias);

  // [B, S, 3·D] -> three [B, S, D] at offsets 0, D and 2·D of the last
  // dimension.
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(rewriter, loc, packed);
  sizes.back() = rewriter.getIndexAttr(modelDim);
  SmallVector<OpFoldResult> offsets(sizes.size(), rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
  std::array<Value, 3> projections;
  for (int64_t i = 0; i < 3; ++i) {
    offsets.back() = rewriter.getIndexAttr(i * modelDim);
    projections[i] = tensor::ExtractSliceOp::create(rewriter, loc, packed,
                                                    offsets, sizes, strides);
  }
  return projections;
}

/// multi_head_attention -> linear ×3, split_heads ×3, attention,
/// merge_heads, linear. The three projections of a self-attention (query,
/// key and value are one value) are one linear on the packed weight. A
/// grouped-query one attends over `[B, H, S, D]` queries and `[B, H_kv, S,
/// D]` keys and values, whose heads are the last batch dimension that
/// tfm.attention groups.
struct DecomposeMultiHeadAttention
    : OpRewritePattern<MultiHeadAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MultiHeadAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t heads = op.getNumHeads(), kvHeads = op.getKeyValueHeads();
    auto project = [&](Value x, Value w, Value b, int64_t count) -> Value {
      Value y = LinearOp::create(rewriter, loc, x, w, b);
      return SplitHeadsOp::create(rewriter, loc, y, count);
    };
    bool isSelfAttention =
        op.getQuery() == op.getKey() && op.getKey() == op.getValue();
    std::optional<std::array<Value, 3>> packed;
    if (isSelfAttention)
      packed = projectPacked(rewriter, op);
    Value q, k, v;
    if (packed) {
      q = SplitHeadsOp::create(rewriter, loc, (*packed)[0], heads);
      k = SplitHeadsOp::create(rewriter, loc, (*packed)[1], heads);
      v = SplitHeadsOp::create(rewriter, loc, (*packed)[2], heads);
    } else {
      q = project(op.getQuery(), op.getWQ(), op.getBQ(), heads);
      k = project(op.getKey(), op.getWK(), op.getBK(), kvHeads);
      v = project(op.getValue(), op.getWV(), op.getBV(), kvHeads);
    }

    Value validLens = op.getValidLens(), mask = op.getMask();
    Value attention;
    if (kvHeads == heads) {
      if (validLens)
        validLens = repeatInterleave(rewriter, loc, validLens, heads);
      attention = AttentionOp::create(rewriter, loc, q, k, v, validLens, mask,
                                      /*query_offset=*/Value(),
                                      op.getScaleAttr(), op.getCausalAttr(),
                                      rewriter.getF64FloatAttr(0.0));
    } else {
      OpFoldResult batch =
          tensor::getMixedSize(rewriter, loc, op.getQuery(), 0);
      q = expandHeads(rewriter, loc, q, batch, heads);
      k = expandHeads(rewriter, loc, k, batch, kvHeads);
      v = expandHeads(rewriter, loc, v, batch, kvHeads);
      if (validLens)
        validLens = broadcastHeads(rewriter, loc, validLens, heads);
      // A mask of the per-head scores [B * H, Sq, Sk] splits its batch; one
      // that broadcasts over it (rank 2 or less, or a leading 1) broadcasts
      // over [B, H] alike.
      auto maskType =
          mask ? cast<RankedTensorType>(mask.getType()) : RankedTensorType();
      if (mask && maskType.getRank() == 3 && maskType.getDimSize(0) != 1)
        mask = expandHeads(rewriter, loc, mask, batch, heads);
      Value grouped = AttentionOp::create(
          rewriter, loc, q, k, v, validLens, mask, /*query_offset=*/Value(),
          op.getScaleAttr(), op.getCausalAttr(),
          rewriter.getF64FloatAttr(0.0));
      attention = tensor::CollapseShapeOp::create(
          rewriter, loc, grouped,
          SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    }
    Value merged = MergeHeadsOp::create(rewriter, loc, attention, heads);
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), merged,
                                          op.getWO(), op.getBO());
    return success();
  }
};

/// ffn -> linear with the activation, then linear; the gated form ->
/// the gate's linear with the activation times dense1's linear, then
/// linear.
struct DecomposeFfn : OpRewritePattern<FfnOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FfnOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value hidden;
    if (op.getWGate()) {
      Value gate = LinearOp::create(rewriter, loc, op.getInput(),
                                    op.getWGate(), op.getBGate(),
                                    op.getActivation());
      Value up = LinearOp::create(rewriter, loc, op.getInput(), op.getW1(),
                                  op.getB1(), Activation::none);
      hidden = arith::MulFOp::create(rewriter, loc, gate, up);
    } else {
      hidden = LinearOp::create(rewriter, loc, op.getInput(), op.getW1(),
                                op.getB1(), op.getActivation());
    }
    rewriter.replaceOpWithNewOp<LinearOp>(op, op.getType(), hidden, op.getW2(),
                                          op.getB2());
    return success();
  }
};

/// Returns the most static type compatible with both `lhs` and `rhs`, two
/// tensor types of the same rank and element type whose shapes are
/// compatible: each dimension is static if either one knows it.
RankedTensorType joinTypes(RankedTensorType lhs, RankedTensorType rhs) {
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip_equal(lhs.getShape(), rhs.getShape()))
    shape.push_back(ShapedType::isDynamic(l) ? r : l);
  return lhs.clone(shape);
}

/// Casts `value` to `type` with a tensor.cast unless it already has it.
Value castTo(PatternRewriter &rewriter, Location loc, Value value,
             RankedTensorType type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(rewriter, loc, type, value);
}

/// add_norm -> arith.addf, layer_norm.
///
/// add_norm accepts a residual and a sub-layer whose shapes are merely
/// compatible (`tensor<?x4xf32>` and `tensor<2x4xf32>`), but arith.addf's
/// custom form has a single type for both operands, so that such an addf
/// prints as IR that does not parse. Both operands are cast to the join of
/// their types first.
struct DecomposeAddNorm : OpRewritePattern<AddNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AddNormOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = joinTypes(cast<RankedTensorType>(op.getResidual().getType()),
                          cast<RankedTensorType>(op.getSublayer().getType()));
    Value sum = arith::AddFOp::create(
        rewriter, loc, castTo(rewriter, loc, op.getResidual(), type),
        castTo(rewriter, loc, op.getSublayer(), type));
    rewriter.replaceOpWithNewOp<LayerNormOp>(op, op.getType(), sum,
                                             op.getGamma(), op.getBeta(),
                                             op.getEpsilonAttr());
    return success();
  }
};

struct TfmDecomposePass
    : tfm::impl::TfmDecomposeBase<TfmDecomposePass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateDecomposePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void tfm::populateDecomposePatterns(RewritePatternSet &patterns) {
  patterns.add<DecomposeMultiHeadAttention, DecomposeFfn, DecomposeAddNorm>(
      patterns.getContext());
  // Dropout is the identity at inference.
  DropoutOp::getCanonicalizationPatterns(patterns, patterns.getContext());
}
