//===- FuseMultiHeadAttention.cpp - Fuse multi-head attention -------------===//
//
// Implements `tfm-fuse-multi-head-attention`: d2l's `MultiHeadAttention`
// written with primitive ops,
//
//   linear(q) → split_heads, linear(k) → split_heads, linear(v) → split_heads,
//   attention, merge_heads, linear(W_o)
//
// becomes one `tfm.multi_head_attention`. The pattern is anchored at the
// output projection. `valid_lens` repeated for every head (d2l's
// `repeat_interleave`, as `tfm-decompose` writes it: a `linalg.broadcast` of
// `[B, ...]` to `[B, H, ...]` and a `tensor.collapse_shape` of the first two
// dimensions) is recovered as the per-batch `valid_lens`. The three input
// projections may also be one projection on the packed `[W_q; W_k; W_v]`
// weight whose result is sliced in three, as `tfm-decompose` writes
// self-attention, so that decomposing and fusing again round-trips.
//
// Biases are all-or-none on `tfm.multi_head_attention`: when only some of
// the four projections have one, the others get a bias of zeros, which adds
// nothing, so that the fusion does not depend on how the model was written.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEMULTIHEADATTENTION
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::fusion;

namespace {

/// One input projection of the attention: `linear(input, weight, bias?)`.
struct Projection {
  Value input;
  Value weight;
  Value bias;
};

/// Returns the `tfm.linear` defining `value` if it has no activation.
LinearOp getProjection(Value value) {
  auto linear = value.getDefiningOp<LinearOp>();
  if (!linear || linear.getActivation() != Activation::none)
    return {};
  return linear;
}

/// Returns true if `slice` takes dimension `i` of its source whole: its size
/// is the static size of the source, or `tensor.dim` of the source.
bool isWholeDim(tensor::ExtractSliceOp slice, int64_t i) {
  OpFoldResult size = slice.getMixedSizes()[i];
  int64_t sourceSize = slice.getSourceType().getDimSize(i);
  if (!ShapedType::isDynamic(sourceSize))
    return isConstantIntValue(size, sourceSize);
  auto dim = dyn_cast_if_present<Value>(size);
  auto dimOp = dim ? dim.getDefiningOp<tensor::DimOp>() : tensor::DimOp();
  return dimOp && dimOp.getSource() == slice.getSource() &&
         isConstantIntValue(dimOp.getIndex(), i);
}

/// Matches the part `index` (0, 1 or 2 for Q, K, V) of a projection on the
/// packed weight: `tensor.extract_slice` of the last dimension of
/// `linear(x, concat(W_q, W_k, W_v), concat(b_q, b_k, b_v)?)`, at
/// `index · D` of size `D`.
std::optional<Projection>
matchPackedProjection(Value value, int index,
                      SmallVectorImpl<Operation *> &ops) {
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice)
    return std::nullopt;
  LinearOp linear = getProjection(slice.getSource());
  if (!linear)
    return std::nullopt;
  auto weights = linear.getWeight().getDefiningOp<tensor::ConcatOp>();
  if (!weights || weights.getDim() != 0 || weights.getInputs().size() != 3)
    return std::nullopt;
  Value weight = weights.getInputs()[index];
  int64_t size = cast<RankedTensorType>(weight.getType()).getDimSize(0);
  if (ShapedType::isDynamic(size) ||
      !llvm::all_equal(llvm::map_range(weights.getInputs(),
                                       [](Value w) { return w.getType(); })))
    return std::nullopt;

  // The slice keeps every leading dimension whole and takes [i·D, (i+1)·D)
  // of the last one, with unit strides.
  RankedTensorType sourceType = slice.getSourceType();
  int64_t rank = sourceType.getRank();
  if (slice.getResultType().getRank() != rank || !slice.hasUnitStride())
    return std::nullopt;
  for (int64_t i = 0; i + 1 < rank; ++i)
    if (!isConstantIntValue(slice.getMixedOffsets()[i], 0) ||
        !isWholeDim(slice, i))
      return std::nullopt;
  if (!isConstantIntValue(slice.getMixedOffsets().back(), index * size) ||
      !isConstantIntValue(slice.getMixedSizes().back(), size))
    return std::nullopt;

  Value bias;
  if (Value packedBias = linear.getBias()) {
    auto biases = packedBias.getDefiningOp<tensor::ConcatOp>();
    if (!biases || biases.getInputs().size() != 3)
      return std::nullopt;
    bias = biases.getInputs()[index];
  }
  ops.push_back(slice);
  ops.push_back(linear);
  // The slices' dynamic sizes are `tensor.dim`s of the packed projection.
  for (Operation *user : linear->getUsers())
    if (isa<tensor::DimOp>(user))
      ops.push_back(user);
  return Projection{linear.getInput(), weight, bias};
}

/// Matches `split_heads(linear(x, W, b?))` with `numHeads` heads, or its
/// packed form (`index` says which part), appending its ops to `ops`.
std::optional<Projection>
matchSplitProjection(Value value, int64_t numHeads, int index,
                     SmallVectorImpl<Operation *> &ops) {
  auto split = value.getDefiningOp<SplitHeadsOp>();
  if (!split || static_cast<int64_t>(split.getNumHeads()) != numHeads)
    return std::nullopt;
  ops.push_back(split);
  if (LinearOp linear = getProjection(split.getInput())) {
    ops.push_back(linear);
    return Projection{linear.getInput(), linear.getWeight(), linear.getBias()};
  }
  return matchPackedProjection(split.getInput(), index, ops);
}

/// Recovers the per-batch `valid_lens` (`[B]` or `[B, Sq]`) from their
/// repetition for every one of `numHeads` heads: `collapse_shape [[0, 1],
/// ...]` of `linalg.broadcast` to `[B, H, ...]` with `dimensions = [1]`.
Value matchRepeatedValidLens(Value value, int64_t numHeads) {
  auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return {};
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  if (groups.front() != ReassociationIndices{0, 1} ||
      !llvm::all_of(
          llvm::drop_begin(groups),
          [](const ReassociationIndices &g) { return g.size() == 1; }))
    return {};
  auto broadcast = collapse.getSrc().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast ||
      !llvm::equal(broadcast.getDimensions(), ArrayRef<int64_t>{1}) ||
      cast<ShapedType>(broadcast.getInit().getType()).getDimSize(1) != numHeads)
    return {};
  return broadcast.getInput();
}

/// Returns a constant `[size]` of zeros of `elementType`.
Value createZeros(PatternRewriter &rewriter, Location loc, int64_t size,
                  Type elementType) {
  auto type = RankedTensorType::get({size}, elementType);
  return arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(type, rewriter.getFloatAttr(elementType, 0.0)));
}

/// Fuses the multi-head attention whose output projection is `op`.
struct FuseMultiHeadAttentionPattern : OpRewritePattern<LinearOp> {
  FuseMultiHeadAttentionPattern(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getActivation() != Activation::none)
      return rewriter.notifyMatchFailure(op, "output has an activation");
    auto merge = op.getInput().getDefiningOp<MergeHeadsOp>();
    if (!merge)
      return rewriter.notifyMatchFailure(op, "input is not merge_heads");
    auto attention = merge.getInput().getDefiningOp<AttentionOp>();
    if (!attention)
      return rewriter.notifyMatchFailure(op, "heads are not an attention");
    // multi_head_attention's causal mask is aligned at the top left.
    if (attention.getQueryOffset())
      return rewriter.notifyMatchFailure(op, "the causal mask is shifted");
    int64_t numHeads = merge.getNumHeads();

    SmallVector<Operation *> ops{merge, attention};
    std::optional<Projection> q =
        matchSplitProjection(attention.getQuery(), numHeads, 0, ops);
    std::optional<Projection> k =
        matchSplitProjection(attention.getKey(), numHeads, 1, ops);
    std::optional<Projection> v =
        matchSplitProjection(attention.getValue(), numHeads, 2, ops);
    if (!q || !k || !v)
      return rewriter.notifyMatchFailure(op, "not projections split in heads");

    // tfm.multi_head_attention has one model dimension D for the three
    // projections.
    auto wqType = cast<RankedTensorType>(q->weight.getType());
    int64_t modelDim = wqType.getDimSize(0);
    for (const Projection &p : {*k, *v})
      if (ShapedType::isDynamic(modelDim) ||
          cast<RankedTensorType>(p.weight.getType()).getDimSize(0) != modelDim)
        return rewriter.notifyMatchFailure(op, "projections of other sizes");

    Value validLens = attention.getValidLens();
    if (validLens && !(validLens = matchRepeatedValidLens(validLens, numHeads)))
      return rewriter.notifyMatchFailure(
          op, "valid_lens are not repeated for every head");

    if (!hasNoOutsideUsers(ops, op))
      return rewriter.notifyMatchFailure(op,
                                         "an intermediate has another user");

    // With some biases present, the others are zeros.
    auto woType = cast<RankedTensorType>(op.getWeight().getType());
    Type elementType = woType.getElementType();
    Value bq = q->bias, bk = k->bias, bv = v->bias, bo = op.getBias();
    bool anyBias = bq || bk || bv || bo;
    bool allBiases = bq && bk && bv && bo;
    if (anyBias && !allBiases && ShapedType::isDynamic(woType.getDimSize(0)))
      return rewriter.notifyMatchFailure(op, "cannot build a missing bias");

    // The default scale of both ops is 1/sqrt(head_dim); keep any other.
    FloatAttr scale = attention.getScaleAttr();
    int64_t headDim = modelDim / numHeads;
    if (scale &&
        isClose(scale.getValueAsDouble(), 1.0 / std::sqrt(double(headDim)),
                rewriter.getF64Type()))
      scale = nullptr;

    Location loc = op.getLoc();
    if (anyBias && !allBiases) {
      auto zeros = [&](Value &bias, int64_t size) {
        if (!bias)
          bias = createZeros(rewriter, loc, size, elementType);
      };
      zeros(bq, modelDim);
      zeros(bk, modelDim);
      zeros(bv, modelDim);
      zeros(bo, woType.getDimSize(0));
    }
    rewriter.replaceOpWithNewOp<MultiHeadAttentionOp>(
        op, op.getType(), q->input, k->input, v->input, q->weight, k->weight,
        v->weight, op.getWeight(), bq, bk, bv, bo, validLens,
        attention.getMask(), rewriter.getI64IntegerAttr(numHeads),
        /*num_kv_heads=*/IntegerAttr(), scale, attention.getCausalAttr(),
        attention.getDropoutAttr());
    ++numFused;
    return success();
  }

private:
  llvm::Statistic &numFused;
};

struct TfmFuseMultiHeadAttentionPass
    : tfm::impl::TfmFuseMultiHeadAttentionBase<TfmFuseMultiHeadAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseMultiHeadAttentionPattern>(context, numFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
