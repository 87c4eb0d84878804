//===- FuseGelu.cpp - Fuse GELU formulas into tfm.gelu --------------------===//
//
// Implements `tfm-fuse-gelu`: the erf form `0.5 · x · (1 + erf(x / √2))` and
// the tanh form `0.5 · x · (1 + tanh(√(2/π) · (x + 0.044715 · x³)))`, written
// with elementwise `arith` and `math` ops on tensors, become `tfm.gelu`.
//
// The outer product is matched as a whole, whatever its bracketing and the
// order of its factors: the tree of `arith.mulf` (and of `arith.divf` by a
// constant) is flattened into a constant and the other factors, which must be
// exactly `x` and `1 + erf(...)` (or `1 + tanh(...)`), with the constants
// multiplying to 0.5. The arguments of erf and tanh are matched the same way.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEGELU
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::fusion;

namespace {

/// 1/√2, the factor of x in erf's argument.
constexpr double kInvSqrt2 = 0.70710678118654752440;
/// √(2/π), the factor of the cubic in tanh's argument.
constexpr double kSqrt2OverPi = 0.79788456080286535588;
/// The coefficient of x³ in the tanh approximation.
constexpr double kCubicCoefficient = 0.044715;

/// Matches `value` as a monomial `k · xⁿ` (a product of constants, `x` and
/// `math.powf(x, c)` with a constant integral `c`), returning `k` and `n`.
bool matchMonomial(Value value, Value x, double &k, int64_t &n,
                   SmallVectorImpl<Operation *> &ops) {
  Product product;
  flattenProduct(value, product, ops, /*isRoot=*/value.hasOneUse());
  k = product.constant;
  n = 0;
  for (Value factor : product.factors) {
    if (factor == x) {
      ++n;
      continue;
    }
    auto pow = factor.getDefiningOp<math::PowFOp>();
    if (!pow || pow.getLhs() != x || !factor.hasOneUse())
      return false;
    std::optional<double> exponent = getSplatFloat(pow.getRhs());
    if (!exponent || *exponent != std::round(*exponent) || *exponent < 1)
      return false;
    n += static_cast<int64_t>(*exponent);
    ops.push_back(pow);
  }
  return true;
}

/// Matches erf's argument: `x · c` or `x / c'` with `c = 1/√2`.
bool matchErfArgument(Value arg, Value x, SmallVectorImpl<Operation *> &ops) {
  if (!arg.hasOneUse())
    return false;
  Product product;
  flattenProduct(arg, product, ops);
  return product.factors.size() == 1 && product.factors.front() == x &&
         isClose(product.constant, kInvSqrt2, x.getType());
}

/// Matches tanh's argument: `a · x + b · x³` with `a = √(2/π)` and
/// `b = √(2/π) · 0.044715`, either factored as `c · (x + c' · x³)` or
/// distributed, with x³ as `x · x · x`, `x · x²` or `math.powf(x, 3)`.
bool matchTanhArgument(Value arg, Value x, SmallVectorImpl<Operation *> &ops) {
  if (!arg.hasOneUse())
    return false;
  Product outer;
  flattenProduct(arg, outer, ops);
  if (outer.factors.size() != 1)
    return false;
  Value sum = outer.factors.front();
  auto add = sum.getDefiningOp<arith::AddFOp>();
  if (!add || (sum != arg && !sum.hasOneUse()))
    return false;
  ops.push_back(add);

  double linear = 0.0, cubic = 0.0;
  for (Value term : {add.getLhs(), add.getRhs()}) {
    double k;
    int64_t n;
    if (!matchMonomial(term, x, k, n, ops))
      return false;
    if (n == 1 && linear == 0.0)
      linear = outer.constant * k;
    else if (n == 3 && cubic == 0.0)
      cubic = outer.constant * k;
    else
      return false;
  }
  Type type = x.getType();
  return isClose(linear, kSqrt2OverPi, type) &&
         isClose(cubic, kSqrt2OverPi * kCubicCoefficient, type);
}

/// Matches `1 + erf(arg)` or `1 + tanh(arg)` in either order, returning the
/// erf or tanh op.
Operation *matchOnePlus(Value value, SmallVectorImpl<Operation *> &ops) {
  auto add = value.getDefiningOp<arith::AddFOp>();
  if (!add || !value.hasOneUse())
    return nullptr;
  for (auto [one, other] : {std::pair(add.getLhs(), add.getRhs()),
                            std::pair(add.getRhs(), add.getLhs())}) {
    if (!isSplat(one, 1.0) || !other.hasOneUse())
      continue;
    Operation *fn = other.getDefiningOp();
    if (!isa_and_nonnull<math::ErfOp, math::TanhOp>(fn))
      continue;
    ops.push_back(add);
    ops.push_back(fn);
    return fn;
  }
  return nullptr;
}

/// Replaces the product `0.5 · x · (1 + erf(x / √2))`, or its tanh form,
/// rooted at `root` (an `arith.mulf` or `arith.divf`) by `tfm.gelu`.
struct FuseGeluPattern : RewritePattern {
  FuseGeluPattern(MLIRContext *context, StringRef rootName,
                  llvm::Statistic &numFused)
      : RewritePattern(rootName, /*benefit=*/1, context), numFused(numFused) {}

  LogicalResult matchAndRewrite(Operation *root,
                                PatternRewriter &rewriter) const override {
    Value result = root->getResult(0);
    if (!isa<RankedTensorType>(result.getType()))
      return rewriter.notifyMatchFailure(root, "not a tensor");
    SmallVector<Operation *> productOps;
    Product product;
    flattenProduct(result, product, productOps);
    if (product.factors.size() != 2 ||
        !isClose(product.constant, 0.5, result.getType()))
      return rewriter.notifyMatchFailure(root, "not 0.5 · x · (1 + f(...))");

    for (int i = 0; i < 2; ++i) {
      Value x = product.factors[i];
      SmallVector<Operation *> ops(productOps);
      Operation *fn = matchOnePlus(product.factors[1 - i], ops);
      if (!fn || x.getType() != result.getType())
        continue;
      bool isTanh = isa<math::TanhOp>(fn);
      Value arg = fn->getOperand(0);
      if (isTanh ? !matchTanhArgument(arg, x, ops)
                 : !matchErfArgument(arg, x, ops))
        continue;
      if (!hasNoOutsideUsers(ops, root))
        return rewriter.notifyMatchFailure(root,
                                           "an intermediate has another user");
      rewriter.replaceOpWithNewOp<GeluOp>(
          root, x, isTanh ? GeluApproximation::tanh : GeluApproximation::none);
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(root, "no GELU formula");
  }

private:
  llvm::Statistic &numFused;
};

struct TfmFuseGeluPass : tfm::impl::TfmFuseGeluBase<TfmFuseGeluPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseGeluPattern>(context, arith::MulFOp::getOperationName(),
                                  numFused);
    patterns.add<FuseGeluPattern>(context, arith::DivFOp::getOperationName(),
                                  numFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
