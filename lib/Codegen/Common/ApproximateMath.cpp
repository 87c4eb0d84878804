//===- ApproximateMath.cpp - Polynomial approximations of math ops --------===//
//
// Implements `tfm-approximate-math` on top of upstream's polynomial
// approximations, so that exp, erf and tanh vectorize; erf of f32 is a
// rational function of its own.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMAPPROXIMATEMATH
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// erf(x) = x * P(x^2) / Q(x^2), x clamped to [-3.9375, 3.9375] (beyond it
/// erf(x) rounds to +-1 in f32), P and Q of degree 5 in x^2: a clamp, 11
/// fused multiply-adds and a division, with no selects. Upstream's
/// approximation picks each lane's coefficients from three intervals
/// (about 60 instructions a 16-lane vector, 16 of them blends), which made
/// a GELU epilogue 6% of its product's time. Coefficients from
/// scripts/fit_erf.py: at most 3.5e-7 from erf in f32 on [-10, 10].
struct RationalErf : OpRewritePattern<math::ErfOp> {
  static constexpr float kClamp = 3.9375f;
  static constexpr float kP[] = {1.12837899f,    0.193479687f, 0.0531422943f,
                                 0.00389573793f, 0.0002875145f, 2.0213804e-06f};
  static constexpr float kQ[] = {1.0f,           0.504798472f, 0.115368843f,
                                 0.0152273504f,  0.00119369954f,
                                 3.79347221e-05f};

  RationalErf(MLIRContext *context)
      : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ErfOp op,
                                PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    auto constant = [&](float value) -> Value {
      TypedAttr scalar = rewriter.getF32FloatAttr(value);
      if (auto vector = dyn_cast<VectorType>(type))
        return arith::ConstantOp::create(
            rewriter, loc, DenseElementsAttr::get(vector, scalar));
      return arith::ConstantOp::create(rewriter, loc, scalar);
    };
    Value x = arith::MaximumFOp::create(
        rewriter, loc,
        arith::MinimumFOp::create(rewriter, loc, op.getOperand(),
                                  constant(kClamp)),
        constant(-kClamp));
    Value t = arith::MulFOp::create(rewriter, loc, x, x);
    auto horner = [&](ArrayRef<float> coefficients) {
      Value result = constant(coefficients.back());
      for (float c : llvm::reverse(coefficients.drop_back()))
        result = math::FmaOp::create(rewriter, loc, result, t, constant(c));
      return result;
    };
    Value p = horner(kP), q = horner(kQ);
    rewriter.replaceOpWithNewOp<arith::DivFOp>(
        op, arith::MulFOp::create(rewriter, loc, x, p), q);
    return success();
  }
};

struct TfmApproximateMathPass
    : tfm::impl::TfmApproximateMathBase<TfmApproximateMathPass> {
  void runOnOperation() override {
    // sin and cos stay precise: the positional encoding evaluates them at
    // angles up to the sequence length, beyond the approximations' range.
    auto isApproximated = [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.erf", "math.tanh"}, name);
    };
    RewritePatternSet patterns(&getContext());
    patterns.add<RationalErf>(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
