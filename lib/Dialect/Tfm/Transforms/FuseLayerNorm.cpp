//===- FuseLayerNorm.cpp - Fuse normalizations into tfm ops ---------------===//
//
// Implements `tfm-fuse-layer-norm`: `(x - mean(x)) / sqrt(var(x) + eps)`
// over the last dimension, with the biased variance `mean((x - mean(x))²)`,
// optionally followed by `· γ + β`, written with upstream ops, becomes
// `tfm.layer_norm`; `x / sqrt(mean(x²) + eps)`, optionally followed by
// `· γ`, becomes `tfm.rms_norm`.
//
// The pattern is anchored at the normalization, `d / sqrt(v + eps)` or
// `d · rsqrt(v + eps)` with `d = x - mean(x)` (a layer norm) or `d = x` (an
// RMS norm, tried when the layer norm does not match), and then takes in
// the affine `· γ` and `+ β` (a layer norm's only) that follow it. Per-row statistics (`[..., ]` after the
// reduction of `[..., D]`) may be combined before or after their broadcast
// back to `[..., D]`, and may pass through reshapes that only add or remove
// unit dimensions (keep-dims forms).
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSELAYERNORM
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::fusion;

namespace {

/// Returns true if the expand or collapse `op` only inserts or removes
/// dimensions of static size 1: every group of its reassociation holds at
/// most one other dimension of the expanded type.
template <typename ReshapeOp>
bool isUnitDimReshape(ReshapeOp op, RankedTensorType expandedType) {
  for (const ReassociationIndices &group : op.getReassociationIndices())
    if (llvm::count_if(group, [&](int64_t i) {
          return expandedType.getDimSize(i) != 1;
        }) > 1)
      return false;
  return true;
}

/// Returns true if `op` is a `linalg.broadcast` that adds the last dimension
/// to a row statistic: `[...]` to `[..., D]`.
bool isRowBroadcast(linalg::BroadcastOp op) {
  auto initType = cast<ShapedType>(op.getInit().getType());
  int64_t rank = initType.getRank();
  return op.getDimensions().size() == 1 && op.getDimensions()[0] == rank - 1;
}

/// Matches the subgraph of a layer normalization (or, not `centered`, of
/// an RMS normalization), collecting its ops.
class LayerNormMatcher {
public:
  explicit LayerNormMatcher(bool centered) : centered(centered) {}

  /// Intermediate ops of the match: none may have a user outside it.
  SmallVector<Operation *> ops;
  /// The normalized input `x`, set by the first match of `x - mean(x)`
  /// (of `x` when not centered).
  Value input;
  double epsilon = 0.0;
  /// Whether `d = x - mean(x)` (a layer norm) rather than `d = x`.
  bool centered;

  /// Matches `d = x - mean(x)` (`d = x` when not centered), setting or
  /// checking `input`.
  bool matchCentered(Value d) {
    if (!centered) {
      if (input && d != input)
        return false;
      input = d;
      return true;
    }
    auto sub = d.getDefiningOp<arith::SubFOp>();
    if (!sub)
      return false;
    Value x = sub.getLhs();
    if ((input && x != input) || matchMean(sub.getRhs()) != x)
      return false;
    input = x;
    ops.push_back(sub);
    return true;
  }

  /// Matches `d / sqrt(v + eps)` (`reciprocal` false, `stddev` is the
  /// divisor) or `d · rsqrt(v + eps)` (`reciprocal` true, `stddev` is the
  /// other factor), where `v` is the biased variance of `x`.
  bool matchStddev(Value stddev, bool reciprocal) {
    stddev = skipRowReshapes(stddev);
    Operation *op = stddev.getDefiningOp();
    Value radicand;
    if (reciprocal && isa_and_nonnull<math::RsqrtOp>(op)) {
      radicand = op->getOperand(0);
    } else if (!reciprocal && isa_and_nonnull<math::SqrtOp>(op)) {
      radicand = op->getOperand(0);
    } else if (auto pow = dyn_cast_or_null<math::PowFOp>(op)) {
      if (!isSplat(pow.getRhs(), reciprocal ? -0.5 : 0.5))
        return false;
      radicand = pow.getLhs();
    } else if (auto div = dyn_cast_or_null<arith::DivFOp>(op);
               div && reciprocal && isSplat(div.getLhs(), 1.0)) {
      // 1 / sqrt(v + eps).
      ops.push_back(div);
      return matchStddev(div.getRhs(), /*reciprocal=*/false);
    } else {
      return false;
    }
    ops.push_back(op);
    return matchVariancePlusEpsilon(radicand);
  }

private:
  /// Looks through the broadcasts of a row statistic to `[..., D]` and the
  /// reshapes that only add or remove unit dimensions.
  Value skipRowReshapes(Value value) {
    while (Operation *op = value.getDefiningOp()) {
      if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op);
          broadcast && isRowBroadcast(broadcast)) {
        value = broadcast.getInput();
      } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op);
                 expand && isUnitDimReshape(expand, expand.getResultType())) {
        value = expand.getSrc();
      } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
                 collapse &&
                 isUnitDimReshape(collapse, collapse.getSrcType())) {
        value = collapse.getSrc();
      } else {
        break;
      }
      ops.push_back(op);
    }
    return value;
  }

  /// Matches `linalg.reduce` with an `arith.addf` body over the last
  /// dimension of its input, into zeros; returns the input.
  Value matchRowSum(Value value) {
    auto reduce = skipRowReshapes(value).getDefiningOp<linalg::ReduceOp>();
    if (!reduce || reduce.getInputs().size() != 1 ||
        !reduce->getResult(0).hasOneUse() || !isZeroInit(reduce.getInits()[0]))
      return {};
    Value in = reduce.getInputs()[0];
    auto inType = dyn_cast<RankedTensorType>(in.getType());
    if (!inType || reduce.getDimensions().size() != 1 ||
        reduce.getDimensions()[0] != inType.getRank() - 1)
      return {};
    Block &body = reduce.getCombiner().front();
    if (body.getOperations().size() != 2)
      return {};
    auto add = dyn_cast<arith::AddFOp>(body.front());
    if (!add || add.getLhs() == add.getRhs() ||
        body.getTerminator()->getNumOperands() != 1 ||
        body.getTerminator()->getOperand(0) != add.getResult() ||
        !llvm::all_of(add->getOperands(), [&](Value v) {
          auto arg = dyn_cast<BlockArgument>(v);
          return arg && arg.getOwner() == &body;
        }))
      return {};
    ops.push_back(reduce);
    return in;
  }

  /// Matches the mean over the last dimension of a `[..., D]` tensor: its sum
  /// divided by D or multiplied by 1/D, before or after the broadcast back to
  /// `[..., D]`. Returns the tensor.
  Value matchMean(Value value) {
    value = skipRowReshapes(value);
    Operation *op = value.getDefiningOp();
    double factor;
    Value sum;
    if (auto div = dyn_cast_or_null<arith::DivFOp>(op)) {
      std::optional<double> d = getSplatFloat(div.getRhs());
      if (!d || *d == 0.0)
        return {};
      factor = 1.0 / *d;
      sum = div.getLhs();
    } else if (auto mul = dyn_cast_or_null<arith::MulFOp>(op)) {
      std::optional<double> c = getSplatFloat(mul.getRhs());
      sum = mul.getLhs();
      if (!c) {
        c = getSplatFloat(mul.getLhs());
        sum = mul.getRhs();
      }
      if (!c)
        return {};
      factor = *c;
    } else {
      return {};
    }
    Value in = matchRowSum(sum);
    if (!in)
      return {};
    int64_t size = cast<RankedTensorType>(in.getType()).getShape().back();
    if (ShapedType::isDynamic(size) ||
        !isClose(factor, 1.0 / double(size), in.getType()))
      return {};
    ops.push_back(op);
    return in;
  }

  /// Matches `mean(d · d)` or `mean(powf(d, 2))` for `d = x - mean(x)` (or
  /// `d = x`).
  bool matchVariance(Value value) {
    Value squared = matchMean(value);
    if (!squared)
      return false;
    Operation *op = squared.getDefiningOp();
    Value centered;
    if (auto mul = dyn_cast_or_null<arith::MulFOp>(op);
        mul && mul.getLhs() == mul.getRhs()) {
      centered = mul.getLhs();
    } else if (auto pow = dyn_cast_or_null<math::PowFOp>(op);
               pow && isSplat(pow.getRhs(), 2.0)) {
      centered = pow.getLhs();
    } else {
      return false;
    }
    ops.push_back(op);
    return matchCentered(centered);
  }

  /// Matches `v + eps` for a constant `eps`, either order.
  bool matchVariancePlusEpsilon(Value value) {
    auto add = skipRowReshapes(value).getDefiningOp<arith::AddFOp>();
    if (!add)
      return false;
    for (auto [variance, eps] : {std::pair(add.getLhs(), add.getRhs()),
                                 std::pair(add.getRhs(), add.getLhs())}) {
      std::optional<double> value = getSplatFloat(eps);
      if (!value || *value < 0.0)
        continue;
      size_t numOps = ops.size();
      if (matchVariance(variance)) {
        epsilon = *value;
        ops.push_back(add);
        return true;
      }
      ops.resize(numOps);
    }
    return false;
  }
};

/// The `γ` or `β` of the affine part: a `[D]` vector, or a constant.
struct RowParameter {
  /// The `[D]` vector, or null for a constant.
  Value vector;
  /// The constant, when `isSplatOnly`.
  double splat = 0.0;
  bool isSplatOnly = false;

  explicit operator bool() const { return vector || isSplatOnly; }
};

/// Matches `value`, a `[..., D]` operand of the affine part, as a `[D]`
/// vector broadcast along the leading dimensions: the input of a
/// `linalg.broadcast` that adds every dimension but the last, `value` itself
/// when it is `[D]`, or a splat constant.
RowParameter matchRowParameter(Value value, RankedTensorType type) {
  int64_t rank = type.getRank();
  auto vectorType =
      RankedTensorType::get({type.getShape().back()}, type.getElementType());
  if (rank == 1 && value.getType() == vectorType)
    return {value};
  if (auto broadcast = value.getDefiningOp<linalg::BroadcastOp>()) {
    if (broadcast.getInput().getType() == vectorType &&
        llvm::equal(broadcast.getDimensions(), llvm::seq<int64_t>(0, rank - 1)))
      return {broadcast.getInput()};
    return {};
  }
  if (std::optional<double> c = getSplatFloat(value))
    return {Value(), *c, /*isSplatOnly=*/true};
  return {};
}

/// Returns `parameter` as a `[D]` vector, creating the splat constant `[D]`
/// of `type`'s element type.
Value materialize(PatternRewriter &rewriter, Location loc,
                  RankedTensorType type, RowParameter parameter) {
  if (parameter.vector)
    return parameter.vector;
  auto vectorType =
      RankedTensorType::get({type.getShape().back()}, type.getElementType());
  return arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(
          vectorType,
          rewriter.getFloatAttr(type.getElementType(), parameter.splat)));
}

/// Returns the operand of the binary `op` other than `value`, if `op` is an
/// `OpTy` that does not take `value` twice.
template <typename OpTy> Value getOtherOperand(Operation *op, Value value) {
  if (!isa_and_nonnull<OpTy>(op))
    return {};
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (lhs == rhs)
    return {};
  return lhs == value ? rhs : lhs;
}

/// Returns true if `value` is the result of one of `ops`: an operand of the
/// affine part that is the normalization itself is no γ or β.
bool isComputedBy(Value value, ArrayRef<Operation *> ops) {
  return llvm::is_contained(ops, value.getDefiningOp());
}

/// Fuses a layer normalization, or else an RMS normalization, anchored at
/// its `d / stddev` (`arith.divf`) or `d · rstd` (`arith.mulf`).
template <typename OpTy> struct FuseLayerNormPattern : OpRewritePattern<OpTy> {
  FuseLayerNormPattern(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern<OpTy>(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.getRank() == 0 ||
        ShapedType::isDynamic(type.getShape().back()))
      return rewriter.notifyMatchFailure(op, "not a tensor of static [..., D]");

    constexpr bool reciprocal = std::is_same_v<OpTy, arith::MulFOp>;
    std::optional<LayerNormMatcher> match;
    for (bool centered : {true, false})
      for (int i = 0; i < (reciprocal ? 2 : 1) && !match; ++i) {
        LayerNormMatcher matcher(centered);
        if (matcher.matchCentered(op->getOperand(i)) &&
            matcher.matchStddev(op->getOperand(1 - i), reciprocal) &&
            matcher.input.getType() == type)
          match = std::move(matcher);
      }
    if (!match)
      return rewriter.notifyMatchFailure(op, "not a normalization");
    match->ops.push_back(op);

    // The affine part: `· γ`, then (a layer norm's) `+ β`, each optional.
    Operation *root = op;
    RowParameter gamma{Value(), 1.0, /*isSplatOnly=*/true};
    RowParameter beta{Value(), 0.0, /*isSplatOnly=*/true};
    if (root->hasOneUse()) {
      Operation *user = *root->getUsers().begin();
      if (Value g = getOtherOperand<arith::MulFOp>(user, root->getResult(0));
          g && !isComputedBy(g, match->ops))
        if (RowParameter p = matchRowParameter(g, type)) {
          gamma = p;
          root = user;
        }
    }
    if (match->centered && root->hasOneUse()) {
      Operation *user = *root->getUsers().begin();
      if (Value b = getOtherOperand<arith::AddFOp>(user, root->getResult(0));
          b && !isComputedBy(b, match->ops))
        if (RowParameter p = matchRowParameter(b, type)) {
          beta = p;
          root = user;
        }
    }
    if (!hasNoOutsideUsers(match->ops, op))
      return rewriter.notifyMatchFailure(op,
                                         "an intermediate has another user");

    rewriter.setInsertionPoint(root);
    Location loc = root->getLoc();
    if (!match->centered) {
      rewriter.replaceOpWithNewOp<RmsNormOp>(
          root, type, match->input, materialize(rewriter, loc, type, gamma),
          rewriter.getF64FloatAttr(match->epsilon));
      ++numFused;
      return success();
    }
    rewriter.replaceOpWithNewOp<LayerNormOp>(
        root, type, match->input, materialize(rewriter, loc, type, gamma),
        materialize(rewriter, loc, type, beta),
        rewriter.getF64FloatAttr(match->epsilon));
    ++numFused;
    return success();
  }

private:
  llvm::Statistic &numFused;
};

struct TfmFuseLayerNormPass
    : tfm::impl::TfmFuseLayerNormBase<TfmFuseLayerNormPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseLayerNormPattern<arith::DivFOp>,
                 FuseLayerNormPattern<arith::MulFOp>>(context, numFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
