//===- AttentionOps.cpp - Attention family of tfm ops ---------------------===//
//
// Verifiers, type inference, folders and canonicalizations of the ops that
// score, normalise and pool: batch_matmul, masked_softmax, attention,
// additive_attention, kernel_pooling, split_heads, merge_heads and
// multi_head_attention.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// BatchMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult BatchMatmulOp::verify() {
  NamedValue lhs{"lhs", getLhs()}, rhs{"rhs", getRhs()};
  if (failed(verifyMinRank(*this, lhs, 3, "[batch..., M, K]")) ||
      failed(verifyRank(*this, rhs, lhs.getRank(),
                        "(the rank of lhs)")) ||
      failed(verifySameElementType(*this, lhs, {rhs})) ||
      failed(verifySameLeadingDims(*this, lhs, rhs, lhs.getRank() - 2)))
    return failure();
  int64_t contraction = getTransposeRhs() ? -1 : -2;
  return verifyDim(*this, rhs, contraction, lhs.getDim(-1),
                   "the contraction dimension, lhs's last");
}

LogicalResult BatchMatmulOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto lhs = getRankedOrError(loc, getOperationName(), "lhs",
                              adaptor.getLhs(), 2);
  auto rhs = getRankedOrError(loc, getOperationName(), "rhs",
                              adaptor.getRhs(), 2);
  if (!lhs || !rhs)
    return failure();
  SmallVector<int64_t> shape(lhs.getShape().drop_back());
  ArrayRef<int64_t> rhsShape = rhs.getShape();
  shape.push_back(adaptor.getTransposeRhs() ? rhsShape[rhsShape.size() - 2]
                                            : rhsShape.back());
  return inferTensor(types, shape, lhs.getElementType());
}

//===----------------------------------------------------------------------===//
// MaskedSoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult MaskedSoftmaxOp::verify() {
  NamedValue input{"input", getInput()};
  if (failed(verifyMinRank(*this, input, 1, "[..., keys]")))
    return failure();
  if (!getValidLens())
    return success();
  if (failed(verifyMinRank(*this, input, 2,
                           "[batch..., queries, keys] when valid_lens is "
                           "given")))
    return failure();
  return verifyValidLens(*this, {"valid_lens", getValidLens()},
                         input.getShape().drop_back(2), input.getDim(-2));
}

LogicalResult MaskedSoftmaxOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 1);
  if (!input)
    return failure();
  types.push_back(input);
  return success();
}

/// Returns true if `validLens` is a constant whose every length is at least
/// `keys`, so that it masks nothing.
static bool masksNothing(Value validLens, int64_t keys) {
  if (!validLens || ShapedType::isDynamic(keys))
    return false;
  DenseIntElementsAttr lens;
  if (!matchPattern(validLens, m_Constant(&lens)))
    return false;
  return llvm::all_of(lens.getValues<APInt>(), [&](const APInt &len) {
    return len.getSExtValue() >= keys;
  });
}

namespace {
/// Drops a constant `valid_lens` that masks no key.
struct DropNoOpValidLensInSoftmax : OpRewritePattern<MaskedSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaskedSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (!masksNothing(op.getValidLens(), type.getShape().back()))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getValidLensMutable().clear(); });
    return success();
  }
};

/// Drops a constant `valid_lens` that masks no key.
struct DropNoOpValidLensInAttention : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    auto type = cast<RankedTensorType>(op.getKey().getType());
    if (!masksNothing(op.getValidLens(), type.getShape().drop_back().back()))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getValidLensMutable().clear(); });
    return success();
  }
};
} // namespace

void MaskedSoftmaxOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<DropNoOpValidLensInSoftmax>(context);
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

/// Verifies the operands shared by the dot-product attention ops: query,
/// key and value of equal rank and batch dimensions (but for key/value
/// heads that divide the query's), matching head sizes, and the optional
/// valid_lens and mask against the score shape.
static LogicalResult verifyDotProductOperands(Operation *op,
                                              const NamedValue &q,
                                              const NamedValue &k,
                                              const NamedValue &v,
                                              Value validLens, Value mask) {
  if (failed(verifyMinRank(op, q, 2, "[batch..., queries, head_dim]")) ||
      failed(verifyRank(op, k, q.getRank(), "(the rank of query)")) ||
      failed(verifyRank(op, v, q.getRank(), "(the rank of query)")) ||
      failed(verifySameElementType(op, q, {k, v, {"mask", mask}})) ||
      failed(verifySameLeadingDims(op, q, k, q.getRank() - 3)))
    return failure();
  // The heads (the last batch dimension): query's, or for a grouped-query
  // attention a static divisor of query's, each key/value head shared by
  // that many query heads.
  if (q.getRank() >= 3) {
    int64_t queryHeads = q.getDim(-3), keyHeads = k.getDim(-3);
    bool grouped = !ShapedType::isDynamic(queryHeads) &&
                   !ShapedType::isDynamic(keyHeads) && keyHeads > 0 &&
                   queryHeads % keyHeads == 0;
    if (!grouped && !areCompatibleDims(queryHeads, keyHeads))
      return op->emitOpError()
             << "expected dimension " << q.getRank() - 3
             << " of key (its heads) to be " << queryHeads
             << " (query's) or a divisor of it (grouped-query attention), "
                "found "
             << k.getType();
  }
  if (failed(verifySameLeadingDims(op, k, v, q.getRank() - 2)) ||
      failed(verifyDim(op, k, -1, q.getDim(-1), "query's head dimension")) ||
      failed(verifyDim(op, v, -2, k.getDim(-2), "key's sequence length")))
    return failure();
  ArrayRef<int64_t> batch = q.getShape().drop_back(2);
  if (validLens && failed(verifyValidLens(op, {"valid_lens", validLens},
                                          batch, q.getDim(-2))))
    return failure();
  if (mask) {
    SmallVector<int64_t> scores(batch);
    scores.push_back(q.getDim(-2));
    scores.push_back(k.getDim(-2));
    if (failed(verifyMaskBroadcast(op, {"mask", mask}, scores)))
      return failure();
  }
  return success();
}

/// Checks an optional scale attribute: finite.
static LogicalResult verifyScale(Operation *op, FloatAttr scale) {
  if (!scale || std::isfinite(scale.getValueAsDouble()))
    return success();
  return op->emitOpError() << "expected a finite scale, found "
                           << scale.getValueAsDouble();
}

LogicalResult AttentionOp::verify() {
  if (failed(verifyDotProductOperands(*this, {"query", getQuery()},
                                      {"key", getKey()}, {"value", getValue()},
                                      getValidLens(), getMask())) ||
      failed(verifyScale(*this, getScaleAttr())))
    return failure();
  // Scores of zero-sized vectors: the tiled lowering has no vector to read.
  if (failed(verifyNonZeroDim(*this, {"query", getQuery()}, -1,
                              "the head dimension")))
    return failure();
  if (getQueryOffset() && !getCausal())
    return emitOpError("query_offset is the queries' position for the causal "
                       "mask: it needs 'causal'");
  return verifyDropoutRate(*this, "dropout", getDropout().convertToDouble());
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto q = getRankedOrError(loc, getOperationName(), "query",
                            adaptor.getQuery(), 2);
  auto v = getRankedOrError(loc, getOperationName(), "value",
                            adaptor.getValue(), 1);
  if (!q || !v)
    return failure();
  SmallVector<int64_t> shape(q.getShape().drop_back());
  shape.push_back(v.getShape().back());
  return inferTensor(types, shape, q.getElementType());
}

int64_t AttentionOp::getQueryGroup() {
  int64_t rank = getQuery().getType().getRank();
  if (rank < 3)
    return 1;
  int64_t queryHeads = getQuery().getType().getDimSize(rank - 3);
  int64_t keyHeads = getKey().getType().getDimSize(rank - 3);
  if (ShapedType::isDynamic(queryHeads) || ShapedType::isDynamic(keyHeads) ||
      keyHeads == 0)
    return 1;
  return queryHeads / keyHeads;
}

std::optional<double> AttentionOp::getEffectiveScale() {
  if (FloatAttr scale = getScaleAttr())
    return scale.getValueAsDouble();
  int64_t d = getQuery().getType().getShape().back();
  if (ShapedType::isDynamic(d))
    return std::nullopt;
  return 1.0 / std::sqrt(static_cast<double>(d));
}

namespace {
/// query_offset(0) is the default, top-left aligned causal mask.
struct DropZeroQueryOffset : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getQueryOffset() || !matchPattern(op.getQueryOffset(), m_Zero()))
      return failure();
    rewriter.modifyOpInPlace(op, [&] { op.getQueryOffsetMutable().clear(); });
    return success();
  }
};
} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<DropNoOpValidLensInAttention, DropZeroQueryOffset>(context);
}

//===----------------------------------------------------------------------===//
// KvCacheAppendOp
//===----------------------------------------------------------------------===//

LogicalResult KvCacheAppendOp::verify() {
  NamedValue cache{"cache", getCache()}, update{"update", getUpdate()};
  NamedValue updated{"updated", getUpdated()}, prefix{"prefix", getPrefix()};
  if (failed(verifyMinRank(*this, cache, 2, "[..., max_len, D]")) ||
      failed(verifyRank(*this, update, cache.getRank(), "(the cache's rank)")) ||
      failed(verifySameElementType(*this, cache, {update, updated, prefix})) ||
      failed(verifySameLeadingDims(*this, cache, update, cache.getRank() - 2)) ||
      failed(verifyDim(*this, update, -1, cache.getDim(-1),
                       "the cache's last dimension")))
    return failure();
  if (updated.getType() != cache.getType())
    return emitOpError() << "updated has type " << updated.getType()
                         << "; expected the cache's, " << cache.getType();
  if (failed(verifyRank(*this, prefix, cache.getRank(), "(the cache's rank)")) ||
      failed(verifySameLeadingDims(*this, cache, prefix, cache.getRank() - 2)) ||
      failed(verifyDim(*this, prefix, -1, cache.getDim(-1),
                       "the cache's last dimension")))
    return failure();
  int64_t maxLen = cache.getDim(-2), steps = update.getDim(-2);
  if (!ShapedType::isDynamic(maxLen) && !ShapedType::isDynamic(steps) &&
      steps > maxLen)
    return emitOpError() << "writes " << steps << " positions into a cache of "
                         << maxLen;
  int64_t length = prefix.getDim(-2);
  if (!ShapedType::isDynamic(length) && !ShapedType::isDynamic(maxLen) &&
      length > maxLen)
    return emitOpError() << "prefix has " << length
                         << " positions, more than the cache's " << maxLen;
  return success();
}

//===----------------------------------------------------------------------===//
// AdditiveAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AdditiveAttentionOp::verify() {
  NamedValue q{"query", getQuery()}, k{"key", getKey()}, v{"value", getValue()};
  NamedValue wq{"w_q", getWQ()}, wk{"w_k", getWK()}, wv{"w_v", getWV()};
  if (failed(verifyMinRank(*this, q, 2, "[batch..., queries, query_dim]")) ||
      failed(verifyRank(*this, k, q.getRank(), "(the rank of query)")) ||
      failed(verifyRank(*this, v, q.getRank(), "(the rank of query)")) ||
      failed(verifySameElementType(*this, q, {k, v, wq, wk, wv})) ||
      failed(verifySameLeadingDims(*this, q, k, q.getRank() - 2)) ||
      failed(verifySameLeadingDims(*this, q, v, q.getRank() - 2)) ||
      failed(verifyDim(*this, v, -2, k.getDim(-2), "key's sequence length")))
    return failure();
  if (failed(verifyRank(*this, wq, 2, "[hidden, query_dim]")) ||
      failed(verifyRank(*this, wk, 2, "[hidden, key_dim]")) ||
      failed(verifyRank(*this, wv, 2, "[1, hidden]")) ||
      failed(verifyDim(*this, wq, 1, q.getDim(-1), "query's feature size")) ||
      failed(verifyDim(*this, wk, 1, k.getDim(-1), "key's feature size")) ||
      failed(verifyDim(*this, wk, 0, wq.getDim(0), "w_q's hidden size")) ||
      failed(verifyDim(*this, wv, 0, 1, "one score per key")) ||
      failed(verifyDim(*this, wv, 1, wq.getDim(0), "w_q's hidden size")))
    return failure();
  if (getValidLens() &&
      failed(verifyValidLens(*this, {"valid_lens", getValidLens()},
                             q.getShape().drop_back(2), q.getDim(-2))))
    return failure();
  return verifyDropoutRate(*this, "dropout", getDropout().convertToDouble());
}

LogicalResult AdditiveAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto q = getRankedOrError(loc, getOperationName(), "query",
                            adaptor.getQuery(), 2);
  auto v = getRankedOrError(loc, getOperationName(), "value",
                            adaptor.getValue(), 1);
  if (!q || !v)
    return failure();
  SmallVector<int64_t> shape(q.getShape().drop_back());
  shape.push_back(v.getShape().back());
  return inferTensor(types, shape, q.getElementType());
}

//===----------------------------------------------------------------------===//
// KernelPoolingOp
//===----------------------------------------------------------------------===//

LogicalResult KernelPoolingOp::verify() {
  NamedValue q{"queries", getQueries()}, k{"keys", getKeys()},
      v{"values", getValues()};
  if (failed(verifyMinRank(*this, q, 1, "[batch..., queries]")) ||
      failed(verifyRank(*this, k, q.getRank(), "(the rank of queries)")) ||
      failed(verifySameElementType(*this, q, {k, v})) ||
      failed(verifySameLeadingDims(*this, q, k, q.getRank() - 1)))
    return failure();
  if (v.getRank() != q.getRank() && v.getRank() != q.getRank() + 1)
    return emitOpError() << "expected values of rank " << q.getRank()
                         << " (scalar values) or " << q.getRank() + 1
                         << " (vector values), found " << v.getType();
  if (failed(verifySameLeadingDims(*this, q, v, q.getRank() - 1)) ||
      failed(verifyDim(*this, v, q.getRank() - 1, k.getDim(-1),
                       "number of keys")))
    return failure();
  double bandwidth = getBandwidth().convertToDouble();
  if (!(bandwidth > 0.0) || !std::isfinite(bandwidth))
    return emitOpError() << "expected a positive finite bandwidth, found "
                         << bandwidth;
  return success();
}

LogicalResult KernelPoolingOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto q = getRankedOrError(loc, getOperationName(), "queries",
                            adaptor.getQueries(), 1);
  auto v = getRankedOrError(loc, getOperationName(), "values",
                            adaptor.getValues(), 1);
  if (!q || !v)
    return failure();
  SmallVector<int64_t> shape(q.getShape());
  if (v.getRank() > q.getRank())
    shape.push_back(v.getShape().back());
  return inferTensor(types, shape, q.getElementType());
}

//===----------------------------------------------------------------------===//
// SplitHeadsOp and MergeHeadsOp
//===----------------------------------------------------------------------===//

/// Checks that `numHeads` divides dimension `dim` of `v` where static.
static LogicalResult verifyDivisible(Operation *op, const NamedValue &v,
                                     int64_t dim, int64_t numHeads,
                                     StringRef what) {
  int64_t size = v.getDim(dim);
  if (ShapedType::isDynamic(size) || size % numHeads == 0)
    return success();
  return op->emitOpError() << "expected num_heads (" << numHeads
                           << ") to divide the " << what << " (" << size
                           << ") of " << v.name << ", found "
                           << v.getType();
}

/// Divides a size by the number of heads, keeping it dynamic if it is.
static int64_t divDim(int64_t size, int64_t numHeads) {
  return ShapedType::isDynamic(size) ? size : size / numHeads;
}

LogicalResult SplitHeadsOp::verify() {
  NamedValue input{"input", getInput()};
  if (failed(verifyRank(*this, input, 3, "[batch, seq, model_dim]")))
    return failure();
  return verifyDivisible(*this, input, 2, getNumHeads(), "model dimension");
}

LogicalResult SplitHeadsOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 3);
  if (!input)
    return failure();
  int64_t heads = adaptor.getNumHeads();
  if (heads <= 0)
    return emitOptionalError(loc, "'", getOperationName(),
                             "' op expected a positive num_heads");
  ArrayRef<int64_t> shape = input.getShape();
  return inferTensor(types,
                     {mulDims(shape[0], heads), shape[1],
                      divDim(shape[2], heads)},
                     input.getElementType());
}

OpFoldResult SplitHeadsOp::fold(FoldAdaptor) {
  // split_heads(merge_heads(x)) is x when both use the same head count.
  auto merge = getInput().getDefiningOp<MergeHeadsOp>();
  if (merge && merge.getNumHeads() == getNumHeads() &&
      merge.getInput().getType() == getType())
    return merge.getInput();
  return {};
}

LogicalResult MergeHeadsOp::verify() {
  NamedValue input{"input", getInput()};
  if (failed(verifyRank(*this, input, 3,
                        "[batch * num_heads, seq, head_dim]")))
    return failure();
  return verifyDivisible(*this, input, 0, getNumHeads(), "leading dimension");
}

LogicalResult MergeHeadsOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto input = getRankedOrError(loc, getOperationName(), "input",
                                adaptor.getInput(), 3);
  if (!input)
    return failure();
  int64_t heads = adaptor.getNumHeads();
  if (heads <= 0)
    return emitOptionalError(loc, "'", getOperationName(),
                             "' op expected a positive num_heads");
  ArrayRef<int64_t> shape = input.getShape();
  return inferTensor(types,
                     {divDim(shape[0], heads), shape[1],
                      mulDims(shape[2], heads)},
                     input.getElementType());
}

OpFoldResult MergeHeadsOp::fold(FoldAdaptor) {
  // merge_heads(split_heads(x)) is x when both use the same head count.
  auto split = getInput().getDefiningOp<SplitHeadsOp>();
  if (split && split.getNumHeads() == getNumHeads() &&
      split.getInput().getType() == getType())
    return split.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// MultiHeadAttentionOp
//===----------------------------------------------------------------------===//

LogicalResult MultiHeadAttentionOp::verify() {
  NamedValue q{"query", getQuery()}, k{"key", getKey()}, v{"value", getValue()};
  NamedValue wq{"w_q", getWQ()}, wk{"w_k", getWK()}, wv{"w_v", getWV()},
      wo{"w_o", getWO()};
  if (failed(verifyRank(*this, q, 3, "[batch, queries, query_dim]")) ||
      failed(verifyRank(*this, k, 3, "[batch, keys, key_dim]")) ||
      failed(verifyRank(*this, v, 3, "[batch, keys, value_dim]")) ||
      failed(verifySameLeadingDims(*this, q, k, 1)) ||
      failed(verifySameLeadingDims(*this, q, v, 1)) ||
      failed(verifyDim(*this, v, 1, k.getDim(1), "key's sequence length")))
    return failure();
  if (failed(verifyRank(*this, wq, 2, "[model_dim, query_dim]")) ||
      failed(verifyRank(*this, wk, 2, "[model_dim, key_dim]")) ||
      failed(verifyRank(*this, wv, 2, "[model_dim, value_dim]")) ||
      failed(verifyRank(*this, wo, 2, "[out_dim, model_dim]")) ||
      failed(verifyDim(*this, wq, 1, q.getDim(2), "query's feature size")) ||
      failed(verifyDim(*this, wk, 1, k.getDim(2), "key's feature size")) ||
      failed(verifyDim(*this, wv, 1, v.getDim(2), "value's feature size")) ||
      failed(verifyDim(*this, wo, 1, wq.getDim(0), "w_q's model dimension")))
    return failure();
  if (failed(verifyDivisible(*this, wq, 0, getNumHeads(), "model dimension")))
    return failure();
  // The keys' and values' model dimension: w_q's, or for a grouped-query
  // attention num_kv_heads heads of w_q's head size.
  int64_t heads = getNumHeads(), kvHeads = getKeyValueHeads();
  if (heads % kvHeads != 0)
    return emitOpError() << "expected num_kv_heads to divide num_heads ("
                         << heads << "), found " << kvHeads;
  int64_t kvDim = ShapedType::isDynamic(wq.getDim(0))
                      ? ShapedType::kDynamic
                      : wq.getDim(0) / heads * kvHeads;
  StringRef kvReason = kvHeads == heads
                           ? "w_q's model dimension"
                           : "num_kv_heads times w_q's head size";
  if (failed(verifyDim(*this, wk, 0, kvDim, kvReason)) ||
      failed(verifyDim(*this, wv, 0, kvDim, kvReason)))
    return failure();
  // The split into heads and the projections tile every dimension.
  static constexpr StringLiteral kDims[] = {"the batch", "the sequence length",
                                            "the feature size"};
  for (const NamedValue &operand : {q, k, v})
    for (int64_t d = 0; d < 3; ++d)
      if (failed(verifyNonZeroDim(*this, operand, d, kDims[d])))
        return failure();
  if (failed(verifyNonZeroDim(*this, wq, 0, "the model dimension")) ||
      failed(verifyNonZeroDim(*this, wo, 0, "the output dimension")))
    return failure();

  NamedValue bq{"b_q", getBQ()}, bk{"b_k", getBK()}, bv{"b_v", getBV()},
      bo{"b_o", getBO()};
  if (failed(verifySameElementType(
          *this, q, {k, v, wq, wk, wv, wo, bq, bk, bv, bo,
                     {"mask", getMask()}})))
    return failure();
  int numBiases = !!bq.value + !!bk.value + !!bv.value + !!bo.value;
  if (numBiases != 0 && numBiases != 4)
    return emitOpError() << "expected biases for all four projections or "
                            "none, found "
                         << numBiases;
  if (numBiases == 4 &&
      (failed(verifyRank(*this, bq, 1, "[model_dim]")) ||
       failed(verifyRank(*this, bk, 1, "[model_dim]")) ||
       failed(verifyRank(*this, bv, 1, "[model_dim]")) ||
       failed(verifyRank(*this, bo, 1, "[out_dim]")) ||
       failed(verifyDim(*this, bq, 0, wq.getDim(0), "w_q's model dimension")) ||
       failed(verifyDim(*this, bk, 0, kvDim, kvReason)) ||
       failed(verifyDim(*this, bv, 0, kvDim, kvReason)) ||
       failed(verifyDim(*this, bo, 0, wo.getDim(0), "w_o's output size"))))
    return failure();

  int64_t batch = q.getDim(0);
  if (getValidLens() &&
      failed(verifyValidLens(*this, {"valid_lens", getValidLens()}, {batch},
                             q.getDim(1))))
    return failure();
  if (getMask() &&
      failed(verifyMaskBroadcast(
          *this, {"mask", getMask()},
          {mulDims(batch, getNumHeads()), q.getDim(1), k.getDim(1)})))
    return failure();
  // A grouped-query attention splits a mask's [B * H] into [B, H]: it must
  // know whether that dimension is 1 (broadcast) or not.
  if (auto maskType = dyn_cast_if_present<RankedTensorType>(
          getMask() ? getMask().getType() : Type());
      maskType && kvHeads != heads && maskType.getRank() == 3 &&
      maskType.isDynamicDim(0))
    return emitOpError() << "expected a static first dimension of the mask "
                            "(1, or batch times num_heads) with num_kv_heads, "
                            "found "
                         << maskType;
  if (failed(verifyScale(*this, getScaleAttr())))
    return failure();
  return verifyDropoutRate(*this, "dropout", getDropout().convertToDouble());
}

LogicalResult MultiHeadAttentionOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto q = getRankedOrError(loc, getOperationName(), "query",
                            adaptor.getQuery(), 1);
  auto wo = getRankedOrError(loc, getOperationName(), "w_o", adaptor.getWO(),
                             1);
  if (!q || !wo)
    return failure();
  SmallVector<int64_t> shape(q.getShape().drop_back());
  shape.push_back(wo.getShape().front());
  return inferTensor(types, shape, q.getElementType());
}
