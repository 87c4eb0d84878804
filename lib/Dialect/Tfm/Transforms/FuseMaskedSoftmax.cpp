//===- FuseMaskedSoftmax.cpp - Fuse sequence masks into masked_softmax ----===//
//
// Implements `tfm-fuse-masked-softmax`: d2l's `masked_softmax` as PyTorch
// exports it,
//
//   mask   = arange(K)[None, :] < valid_lens[:, None]
//   scores = Where(~mask, -1e6, X)         (X[~mask] = -1e6)
//   result = Softmax(reshape(scores), axis=-1)
//
// becomes `tfm.masked_softmax %X valid_lens(%lens)`, which has exactly these
// semantics, so that attention fusion then sees valid lengths instead of a
// select it cannot fuse.
//
// The pattern is anchored on the softmax and walks back through reshapes
// that keep the last (key) dimension to the select. The condition is a
// comparison of the key index (a constant `0, 1, ..., K-1` along the last
// dimension, through broadcasts) with a tensor broadcast along the keys,
// the row lengths; a negation (`xori` with true) and either operand order
// are accepted. Lengths compared as floats must come from integers
// (`arith.sitofp`, as `torch.arange(..., dtype=float32) < valid_lens`
// exports), and those integers become `valid_lens`.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEMASKEDSOFTMAX
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::fusion;

namespace {

/// How many reshapes may lie between the select and the softmax.
constexpr int kMaxReshapes = 4;

/// The source of `op` if it is a static expand or collapse of leading
/// dimensions that leaves the last dimension alone in its group.
Value getKeyPreservingReshapeSource(Operation *op) {
  SmallVector<ReassociationIndices> groups;
  Value source;
  RankedTensorType expanded;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    groups = expand.getReassociationIndices();
    source = expand.getSrc();
    expanded = expand.getResultType();
  } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    groups = collapse.getReassociationIndices();
    source = collapse.getSrc();
    expanded = collapse.getSrcType();
  } else {
    return {};
  }
  if (!expanded.hasStaticShape() || groups.size() < 2 ||
      groups.back().size() != 1)
    return {};
  return source;
}

/// Follows `v` back through linalg.broadcast ops that keep its last
/// dimension (a broadcast keeps the order of the dimensions it does not
/// add, so the last one stays last).
Value lookThroughKeyBroadcasts(Value v) {
  while (auto broadcast = v.getDefiningOp<linalg::BroadcastOp>()) {
    int64_t last = broadcast.getInit().getType().getRank() - 1;
    if (llvm::is_contained(broadcast.getDimensions(), last))
      break;
    v = broadcast.getInput();
  }
  return v;
}

/// True if `v` holds the key index `j` at every position `[..., j]`, and its
/// last dimension has `numKeys` elements.
bool isKeyIndex(Value v, int64_t numKeys) {
  v = lookThroughKeyBroadcasts(v);
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr)))
    return false;
  auto dense = dyn_cast<DenseElementsAttr>(attr);
  if (!dense || dense.getType().getRank() == 0 ||
      dense.getType().getShape().back() != numKeys ||
      dense.getNumElements() > (int64_t{1} << 24))
    return false;
  int64_t index = 0;
  if (auto floats = dyn_cast<DenseFPElementsAttr>(dense)) {
    for (const APFloat &value : floats.getValues<APFloat>())
      if (value.convertToDouble() != static_cast<double>(index++ % numKeys))
        return false;
    return true;
  }
  for (const APInt &value : cast<DenseIntElementsAttr>(dense).getValues<APInt>())
    if (value.getSExtValue() != index++ % numKeys)
      return false;
  return true;
}

/// The row lengths behind a `[rows..., K]` operand of the comparison: a
/// linalg.broadcast along the keys, whose input holds one length per row, or
/// per some of the rows (one per batch, say), and is also broadcast over the
/// others.
struct RowLengths {
  Value lengths;
  /// The dimensions of `[rows...]` that `lengths` is broadcast over.
  SmallVector<int64_t> broadcastRows;
};

std::optional<RowLengths> getRowLengths(Value v) {
  auto broadcast = v.getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast)
    return std::nullopt;
  auto type = cast<RankedTensorType>(v.getType());
  int64_t last = type.getRank() - 1;
  ArrayRef<int64_t> added = broadcast.getDimensions();
  if (!llvm::is_contained(added, last) || !type.hasStaticShape() ||
      broadcast.getInput().getType().getRank() == 0)
    return std::nullopt;
  RowLengths result{broadcast.getInput(), {}};
  for (int64_t d : added)
    if (d != last)
      result.broadcastRows.push_back(d);
  return result;
}

/// The integers whose float conversion is `lengths`: through reshapes to
/// an arith.sitofp, or `lengths` itself if it holds integers. They have the
/// same number of elements as `lengths`, in the same order, not necessarily
/// its shape. Null if there are no such integers of 32 or 64 bits.
Value getIntegerLengths(Value lengths) {
  Value current = lengths;
  while (!isa<IntegerType>(getElementTypeOrSelf(current.getType()))) {
    Operation *op = current.getDefiningOp();
    if (auto cast = dyn_cast_or_null<arith::SIToFPOp>(op)) {
      current = cast.getIn();
      break;
    }
    if (!isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      return {};
    current = op->getOperand(0);
  }
  auto type = dyn_cast<RankedTensorType>(current.getType());
  auto lengthsType = cast<RankedTensorType>(lengths.getType());
  if (!type || !type.hasStaticShape() || type.getRank() == 0 ||
      type.getNumElements() != lengthsType.getNumElements())
    return {};
  unsigned width = type.getElementTypeBitWidth();
  if (width != 32 && width != 64)
    return {};
  return current;
}

/// A comparison as `lhs < rhs` (`lessThan`) or `lhs >= rhs` (not).
struct Ordering {
  Value lhs, rhs;
  bool lessThan;
};

/// `cond` as an Ordering, if it is a signed integer or a float comparison
/// of order (`<`, `>`, `<=`, `>=`; ordered or not: the key index is never
/// NaN).
std::optional<Ordering> getOrdering(Value cond) {
  using P = arith::CmpIPredicate;
  std::optional<P> pred;
  Operation *cmp = cond.getDefiningOp();
  if (auto cmpi = dyn_cast_or_null<arith::CmpIOp>(cmp)) {
    pred = cmpi.getPredicate();
  } else if (auto cmpf = dyn_cast_or_null<arith::CmpFOp>(cmp)) {
    using F = arith::CmpFPredicate;
    switch (cmpf.getPredicate()) {
    case F::OLT:
    case F::ULT:
      pred = P::slt;
      break;
    case F::OGT:
    case F::UGT:
      pred = P::sgt;
      break;
    case F::OLE:
    case F::ULE:
      pred = P::sle;
      break;
    case F::OGE:
    case F::UGE:
      pred = P::sge;
      break;
    default:
      break;
    }
  }
  if (!pred)
    return std::nullopt;
  Value lhs = cmp->getOperand(0), rhs = cmp->getOperand(1);
  switch (*pred) {
  case P::slt:
    return Ordering{lhs, rhs, true};
  case P::sgt:
    return Ordering{rhs, lhs, true};
  case P::sge:
    return Ordering{lhs, rhs, false};
  case P::sle:
    return Ordering{rhs, lhs, false};
  default:
    return std::nullopt;
  }
}

/// `select(cond, X, fill)` or `select(cond, fill, X)` before a softmax over
/// the last dimension, with `cond` a sequence mask, becomes masked_softmax.
struct FuseSequenceMask : OpRewritePattern<linalg::SoftmaxOp> {
  FuseSequenceMask(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(linalg::SoftmaxOp softmax,
                                PatternRewriter &rewriter) const override {
    auto inputType = cast<RankedTensorType>(softmax.getInput().getType());
    int64_t rank = inputType.getRank();
    if (rank < 2 || static_cast<int64_t>(softmax.getDimension()) != rank - 1 ||
        !inputType.hasStaticShape() ||
        softmax.getResult().size() != 1)
      return rewriter.notifyMatchFailure(softmax, "not a static softmax over "
                                                  "the last dimension");

    // The select, through reshapes of the rows.
    Value current = softmax.getInput();
    arith::SelectOp select;
    for (int i = 0; i <= kMaxReshapes && !select; ++i) {
      if (!current.hasOneUse())
        return rewriter.notifyMatchFailure(softmax, "the scores have another "
                                                    "user");
      Operation *op = current.getDefiningOp();
      select = dyn_cast_or_null<arith::SelectOp>(op);
      if (!select && !(op && (current = getKeyPreservingReshapeSource(op))))
        return rewriter.notifyMatchFailure(softmax, "no select behind it");
    }
    if (!select)
      return rewriter.notifyMatchFailure(softmax, "no select behind it");
    auto selectType = dyn_cast<RankedTensorType>(select.getType());
    if (!selectType || selectType.getRank() < 2)
      return rewriter.notifyMatchFailure(softmax, "not a select of tensors");
    int64_t numKeys = selectType.getShape().back();

    // Which side keeps the scores: the other is the fill.
    bool keptOnTrue;
    Value scores;
    std::optional<double> fill;
    if ((fill = getSplatFloat(select.getFalseValue()))) {
      keptOnTrue = true;
      scores = select.getTrueValue();
    } else if ((fill = getSplatFloat(select.getTrueValue()))) {
      keptOnTrue = false;
      scores = select.getFalseValue();
    } else {
      return rewriter.notifyMatchFailure(softmax, "no constant fill");
    }
    if (!std::isfinite(*fill) || *fill > kLargeNegative)
      return rewriter.notifyMatchFailure(
          softmax, "the fill is not a finite large negative value (a row "
                   "whose keys are all masked would differ)");

    // The condition: negations, then `key < length` in some form.
    Value cond = select.getCondition();
    while (auto xori = cond.getDefiningOp<arith::XOrIOp>()) {
      Value other;
      if (matchPattern(xori.getRhs(), m_One()))
        other = xori.getLhs();
      else if (matchPattern(xori.getLhs(), m_One()))
        other = xori.getRhs();
      else
        break;
      keptOnTrue = !keptOnTrue;
      cond = other;
    }
    std::optional<Ordering> ordering = getOrdering(cond);
    if (!ordering)
      return rewriter.notifyMatchFailure(softmax, "the condition is not a "
                                                  "`<`, `>`, `<=` or `>=`");
    auto [lhs, rhs, lessThan] = *ordering;
    // `key < length` keeps the key; `key >= length` masks it.
    if (!lessThan)
      keptOnTrue = !keptOnTrue;
    if (!keptOnTrue)
      return rewriter.notifyMatchFailure(
          softmax, "the select keeps the keys past the length");
    if (!isKeyIndex(lhs, numKeys))
      return rewriter.notifyMatchFailure(softmax, "the comparison is not of "
                                                  "the key index");

    std::optional<RowLengths> lengths = getRowLengths(rhs);
    if (!lengths)
      return rewriter.notifyMatchFailure(softmax, "the lengths are not "
                                                  "broadcast along the keys");
    Value integers = getIntegerLengths(lengths->lengths);
    if (!integers)
      return rewriter.notifyMatchFailure(softmax, "the lengths are not "
                                                  "integers");

    // valid_lens: the integers at the lengths' shape, broadcast over the
    // rows they were broadcast over, at the softmax's rows.
    Location loc = softmax.getLoc();
    auto lengthsType = cast<RankedTensorType>(lengths->lengths.getType());
    Value lens =
        regroupLeading(rewriter, loc, integers,
                       cast<RankedTensorType>(integers.getType()).getRank(),
                       lengthsType.getShape());
    if (!lengths->broadcastRows.empty()) {
      Value init = tensor::EmptyOp::create(
          rewriter, loc, selectType.getShape().drop_back(),
          getElementTypeOrSelf(lens.getType()));
      lens = linalg::BroadcastOp::create(rewriter, loc, lens, init,
                                         lengths->broadcastRows)
                 ->getResult(0);
    }
    ArrayRef<int64_t> rows = inputType.getShape().drop_back();
    Value input = regroupLeading(rewriter, loc, scores,
                                 selectType.getRank() - 1, rows);
    lens = regroupLeading(rewriter, loc, lens,
                          cast<RankedTensorType>(lens.getType()).getRank(),
                          rows);
    rewriter.replaceOpWithNewOp<MaskedSoftmaxOp>(softmax, inputType, input,
                                                 lens);
    ++numFused;
    return success();
  }

  llvm::Statistic &numFused;
};

struct TfmFuseMaskedSoftmaxPass
    : tfm::impl::TfmFuseMaskedSoftmaxBase<TfmFuseMaskedSoftmaxPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseSequenceMask>(context, numFused);
    // Fold the reshapes of the scores back and forth, so that attention
    // fusion sees the scores at their own shape.
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
