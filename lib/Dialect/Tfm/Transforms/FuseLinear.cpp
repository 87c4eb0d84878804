//===- FuseLinear.cpp - Fuse bias additions and activations into linear ---===//
//
// Implements `tfm-fuse-linear`:
//
// - `tfm.linear` without bias (or a matmul with a transposed weight) followed
//   by the addition of a bias broadcast along the rows becomes `tfm.linear`
//   with the bias;
// - `tfm.linear` without activation followed by a ReLU (`arith.maximumf`
//   with zeros), `tfm.gelu` or a SiLU (`y · sigmoid(y)`, the sigmoid as
//   `1 / (1 + exp(-y))`, as the ONNX importer writes `Sigmoid`) becomes
//   `tfm.linear` with that activation.
//
// - three `tfm.linear`s of a GLU feed-forward, `down(act(gate(x)) * up(x))`
//   (Llama's SwiGLU), become the gated `tfm.ffn`, once the activation is in
//   the gate's linear.
//
// Only an intermediate without another user is fused.
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
#define GEN_PASS_DEF_TFMFUSELINEAR
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::fusion;

namespace {

/// The operands of a linear layer found in the graph: `input · weightᵀ`.
struct LinearOperands {
  Value input;
  Value weight;
};

/// Returns the `tfm.linear` defining `value` if it has neither bias nor
/// activation and `value` has no other user.
LinearOp getPlainLinear(Value value) {
  auto linear = value.getDefiningOp<LinearOp>();
  if (!linear || linear.getBias() ||
      linear.getActivation() != Activation::none || !value.hasOneUse())
    return {};
  return linear;
}

/// Matches `linalg.matmul` into zeros of `x` (`[M, K]`) and a weight `W`
/// (`[N, K]`) in `nn.Linear` layout: with the indexing map that transposes
/// its second operand, or on `linalg.transpose(W)`. `value` must have no
/// other user, nor the transpose.
std::optional<LinearOperands> matchTransposedMatmul(Value value) {
  auto matmul = value.getDefiningOp<linalg::MatmulOp>();
  if (!matmul || !value.hasOneUse() || !matmul.hasPureTensorSemantics() ||
      !isZeroInit(matmul.getDpsInits()[0]))
    return std::nullopt;
  Value x = matmul.getDpsInputs()[0], w = matmul.getDpsInputs()[1];
  Type elementType = getElementTypeOrSelf(value.getType());
  if (getElementTypeOrSelf(x.getType()) != elementType ||
      getElementTypeOrSelf(w.getType()) != elementType)
    return std::nullopt;
  if (isa<linalg::MatmulTransposeBOp>(matmul.getOperation()))
    return LinearOperands{x, w};
  if (!linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMaps()))
    return std::nullopt;
  auto transpose = w.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || !w.hasOneUse() ||
      !llvm::equal(transpose.getPermutation(), ArrayRef<int64_t>{1, 0}))
    return std::nullopt;
  return LinearOperands{x, transpose.getInput()};
}

/// Returns the `[N]` bias that `value` (of `type`, `[..., N]`) adds to every
/// row: the input of a `linalg.broadcast` that adds all dimensions but the
/// last, or `value` itself for a vector. A splat constant is returned as its
/// value in `splat`, to be rebuilt as `[N]`.
Value matchBias(Value value, RankedTensorType type,
                std::optional<double> &splat) {
  int64_t rank = type.getRank();
  auto biasType =
      RankedTensorType::get({type.getShape().back()}, type.getElementType());
  if (rank == 1 && value.getType() == biasType)
    return value;
  if (auto broadcast = value.getDefiningOp<linalg::BroadcastOp>()) {
    Value bias = broadcast.getInput();
    auto inputType = dyn_cast<RankedTensorType>(bias.getType());
    if (inputType && inputType.getRank() == 1 &&
        inputType.getElementType() == type.getElementType() &&
        llvm::equal(broadcast.getDimensions(), llvm::seq<int64_t>(0, rank - 1)))
      return bias;
    return {};
  }
  if (!ShapedType::isDynamic(type.getShape().back()))
    splat = getSplatFloat(value);
  return {};
}

/// `linear(x, W) + broadcast(b)` (either order) -> `linear(x, W, b)`, where
/// the linear may also be a matmul with a transposed weight.
struct FuseBias : OpRewritePattern<arith::AddFOp> {
  FuseBias(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type)
      return rewriter.notifyMatchFailure(op, "not a tensor");
    for (auto [product, addend] : {std::pair(op.getLhs(), op.getRhs()),
                                   std::pair(op.getRhs(), op.getLhs())}) {
      std::optional<LinearOperands> linear;
      if (LinearOp linearOp = getPlainLinear(product))
        linear = LinearOperands{linearOp.getInput(), linearOp.getWeight()};
      else
        linear = matchTransposedMatmul(product);
      if (!linear)
        continue;
      std::optional<double> splat;
      Value bias = matchBias(addend, type, splat);
      if (!bias && !splat)
        continue;
      if (!bias) {
        auto biasType = RankedTensorType::get({type.getShape().back()},
                                              type.getElementType());
        bias = arith::ConstantOp::create(
            rewriter, op.getLoc(),
            DenseElementsAttr::get(
                biasType,
                rewriter.getFloatAttr(type.getElementType(), *splat)));
      }
      rewriter.replaceOpWithNewOp<LinearOp>(op, type, linear->input,
                                            linear->weight, bias);
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a linear plus a bias");
  }

private:
  llvm::Statistic &numFused;
};

/// Replaces `op`, which applies `activation` to `linear`, by the linear with
/// the activation.
void fuseActivation(PatternRewriter &rewriter, Operation *op, LinearOp linear,
                    Activation activation) {
  // Where the product was: what else asks it is its sizes
  // (isActivationInput), now the fused product's.
  rewriter.setInsertionPoint(linear);
  auto fused = LinearOp::create(rewriter, linear.getLoc(),
                                op->getResult(0).getType(), linear.getInput(),
                                linear.getWeight(), linear.getBias(),
                                activation);
  rewriter.replaceOp(op, fused.getResult());
  rewriter.replaceAllUsesWith(linear.getResult(), fused.getResult());
}

/// Whether `op` is the one user of `value` that reads its elements: the
/// others, if any, ask its sizes (`tensor.dim`, as dynamic shapes do).
bool isActivationInput(Value value, Operation *op) {
  return llvm::all_of(value.getUsers(), [&](Operation *user) {
    return user == op || isa<tensor::DimOp>(user);
  });
}

/// `max(linear(x, W, b?), 0)` (either order) -> `linear` with ReLU.
template <typename MaxOp> struct FuseRelu : OpRewritePattern<MaxOp> {
  FuseRelu(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern<MaxOp>(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(MaxOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [value, zero] : {std::pair(op.getLhs(), op.getRhs()),
                               std::pair(op.getRhs(), op.getLhs())}) {
      auto linear = value.template getDefiningOp<LinearOp>();
      if (!linear || linear.getActivation() != Activation::none ||
          !isActivationInput(value, op) || !isZeroInit(zero))
        continue;
      fuseActivation(rewriter, op, linear, Activation::relu);
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a ReLU of a linear");
  }

private:
  llvm::Statistic &numFused;
};

/// `gelu(linear(x, W, b?))` -> `linear` with GELU.
struct FuseGeluActivation : OpRewritePattern<GeluOp> {
  FuseGeluActivation(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(GeluOp op,
                                PatternRewriter &rewriter) const override {
    auto linear = op.getInput().getDefiningOp<LinearOp>();
    if (!linear || linear.getActivation() != Activation::none ||
        !isActivationInput(op.getInput(), op) ||
        op.getType() != linear.getType())
      return rewriter.notifyMatchFailure(op, "not a GELU of a linear");
    fuseActivation(rewriter, op, linear,
                   op.getApproximate() == GeluApproximation::tanh
                       ? Activation::gelu_tanh
                       : Activation::gelu);
    ++numFused;
    return success();
  }

private:
  llvm::Statistic &numFused;
};

/// Whether `value` is `1 / (1 + exp(-y))`, each piece used once.
bool isSigmoidOf(Value value, Value y) {
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div || !value.hasOneUse() || !isSplat(div.getLhs(), 1.0))
    return false;
  auto add = div.getRhs().getDefiningOp<arith::AddFOp>();
  if (!add || !add->hasOneUse())
    return false;
  for (auto [one, e] : {std::pair(add.getLhs(), add.getRhs()),
                        std::pair(add.getRhs(), add.getLhs())}) {
    auto exp = e.getDefiningOp<math::ExpOp>();
    if (!isSplat(one, 1.0) || !exp || !exp->hasOneUse())
      continue;
    auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>();
    if (neg && neg->hasOneUse() && neg.getOperand() == y)
      return true;
  }
  return false;
}

/// The users of `value` that read its elements: all but the tensor.dim
/// ops that read its sizes (a dynamic shape's fill of ones for the sigmoid
/// has them; they die with what they size).
static int64_t countElementUses(Value value) {
  return llvm::count_if(value.getUsers(), [](Operation *user) {
    return !isa<tensor::DimOp>(user);
  });
}

/// `y · sigmoid(y)` (either order) for `y = linear(x, W, b?)` -> `linear`
/// with SiLU. `y` has no user but the product and the sigmoid (and the
/// sizes of the sigmoid's ones).
struct FuseSilu : OpRewritePattern<arith::MulFOp> {
  FuseSilu(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(arith::MulFOp op,
                                PatternRewriter &rewriter) const override {
    for (auto [y, sigmoid] : {std::pair(op.getLhs(), op.getRhs()),
                              std::pair(op.getRhs(), op.getLhs())}) {
      auto linear = y.getDefiningOp<LinearOp>();
      if (!linear || linear.getActivation() != Activation::none ||
          op.getType() != linear.getType() || !isSigmoidOf(sigmoid, y) ||
          countElementUses(y) != 2)
        continue;
      // The sigmoid's pieces, used by the product only, die with it.
      fuseActivation(rewriter, op, linear, Activation::silu);
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a SiLU of a linear");
  }

private:
  llvm::Statistic &numFused;
};

/// A GLU feed-forward, `down(act(gate(x)) * up(x))` (either order of the
/// product) of three `tfm.linear`s -> the gated `tfm.ffn`: Llama's SwiGLU
/// once its SiLU is in the gate's linear. `gate` has the activation, `up`
/// and `down` none, and the gate, the up projection and their product have
/// no other user.
struct FuseGatedFfn : OpRewritePattern<LinearOp> {
  FuseGatedFfn(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context, /*benefit=*/0), numFused(numFused) {}

  LogicalResult matchAndRewrite(LinearOp op,
                                PatternRewriter &rewriter) const override {
    auto product = op.getInput().getDefiningOp<arith::MulFOp>();
    if (op.getActivation() != Activation::none || !product ||
        !product->hasOneUse())
      return rewriter.notifyMatchFailure(op, "not a linear of a product");
    for (auto [lhs, rhs] : {std::pair(product.getLhs(), product.getRhs()),
                            std::pair(product.getRhs(), product.getLhs())}) {
      auto gate = lhs.getDefiningOp<LinearOp>();
      auto up = rhs.getDefiningOp<LinearOp>();
      if (!gate || !up || gate == up ||
          gate.getActivation() == Activation::none ||
          up.getActivation() != Activation::none ||
          gate.getInput() != up.getInput() || !lhs.hasOneUse() ||
          !rhs.hasOneUse() || gate.getType() != up.getType() ||
          gate.getWeight().getType() != up.getWeight().getType())
        continue;
      rewriter.replaceOpWithNewOp<FfnOp>(
          op, op.getType(), gate.getInput(), gate.getWeight(), gate.getBias(),
          up.getWeight(), up.getBias(), op.getWeight(), op.getBias(),
          gate.getActivationAttr(), rewriter.getF64FloatAttr(0.0));
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a gated feed-forward");
  }

private:
  llvm::Statistic &numFused;
};

struct TfmFuseLinearPass : tfm::impl::TfmFuseLinearBase<TfmFuseLinearPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseBias, FuseRelu<arith::MaximumFOp>,
                 FuseRelu<arith::MaxNumFOp>, FuseGeluActivation, FuseSilu>(
        context, numFused);
    patterns.add<FuseGatedFfn>(context, numGatedFfn);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
