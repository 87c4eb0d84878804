//===- ApproximateMath.cpp - Polynomial approximations of math ops --------===//
//
// Implements `tfm-approximate-math` on top of upstream's polynomial
// approximations, so that exp, erf and tanh vectorize; erf of f32 is a
// rational function of its own, and exp of f32 on AVX-512 scales by 2^k
// with vscalefps.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
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

/// exp of float32 vectors of 16 lanes for AVX-512: exp(x) = 2^k exp(r),
/// k = roundeven(x log2(e)), r = x - k ln(2) (ln(2) in two parts, so that
/// the first product is exact), exp(r) = 1 + r P(r) with P of degree 5, and
/// 2^k applied by `vscalefps`, which gives infinity and zero where 2^k
/// exp(r) overflows and underflows: a clamp of x to [-104, 88.75] (exp is
/// 0 and infinity beyond it; NaN passes), a multiply, a rounding, 8 fused
/// multiply-adds and the scaling, about 13 instructions a vector where
/// upstream's approximation, which builds 2^k in the exponent's bits, takes
/// 24 (a clamp of k, conversions, shifts, register copies). Coefficients
/// from scripts/fit_exp.py: 8.7e-8 from exp at most, relative, on
/// [-87, 88]. Vectors of other widths, other targets and the GPU's kernels
/// keep upstream's.
struct ScaledExp : OpRewritePattern<math::ExpOp> {
  static constexpr int64_t kLanes = 16;
  static constexpr float kLow = -104.0f, kHigh = 88.75f;
  static constexpr float kLog2E = 1.44269502f;
  static constexpr float kLn2Hi = 0.693359375f, kLn2Lo = -2.12194442e-4f;
  static constexpr float kP[] = {1.0f,          0.49999994f,  0.166664317f,
                                 0.0416680016f, 0.00837412756f, 0.0013843542f};

  ScaledExp(MLIRContext *context) : OpRewritePattern(context, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ExpOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isF32() || type.isScalable() ||
        type.getShape().back() != kLanes)
      return rewriter.notifyMatchFailure(op, "not 16 lanes of f32");
    // The host's code, not a GPU module's kernels.
    if (!isa<ModuleOp>(op->getParentWithTrait<OpTrait::SymbolTable>()))
      return rewriter.notifyMatchFailure(op, "not in the host's module");
    Location loc = op.getLoc();
    auto constant = [&](float value) -> Value {
      return arith::ConstantOp::create(
          rewriter, loc,
          DenseElementsAttr::get(type, rewriter.getF32FloatAttr(value)));
    };
    Value x = arith::MaximumFOp::create(
        rewriter, loc,
        arith::MinimumFOp::create(rewriter, loc, op.getOperand(),
                                  constant(kHigh)),
        constant(kLow));
    Value k = math::RoundEvenOp::create(
        rewriter, loc, arith::MulFOp::create(rewriter, loc, x, constant(kLog2E)));
    Value r = math::FmaOp::create(rewriter, loc, k, constant(-kLn2Hi), x);
    r = math::FmaOp::create(rewriter, loc, k, constant(-kLn2Lo), r);
    Value q = constant(ArrayRef<float>(kP).back());
    for (float c : llvm::reverse(ArrayRef<float>(kP).drop_back()))
      q = math::FmaOp::create(rewriter, loc, q, r, constant(c));
    Value e = math::FmaOp::create(rewriter, loc, r, q, constant(1.0f));

    // e * 2^k, one 512-bit vector at a time.
    auto row = VectorType::get({kLanes}, type.getElementType());
    Value allLanes = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI16IntegerAttr(-1));
    Value currentRounding = arith::ConstantOp::create(
        rewriter, loc, rewriter.getI32IntegerAttr(4));
    auto scale = [&](Value value, Value exponent) -> Value {
      return LLVM::CallIntrinsicOp::create(
                 rewriter, loc, row,
                 rewriter.getStringAttr("llvm.x86.avx512.mask.scalef.ps.512"),
                 ValueRange{value, exponent, value, allLanes, currentRounding})
          .getResult(0);
    };
    if (type.getRank() == 1) {
      rewriter.replaceOp(op, scale(e, k));
      return success();
    }
    Value result = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getZeroAttr(type));
    ArrayRef<int64_t> outer = type.getShape().drop_back();
    SmallVector<int64_t> position(outer.size(), 0);
    for (int64_t i = 0, n = ShapedType::getNumElements(outer); i < n; ++i) {
      int64_t rest = i;
      for (int64_t d = outer.size() - 1; d >= 0; --d) {
        position[d] = rest % outer[d];
        rest /= outer[d];
      }
      Value scaled =
          scale(vector::ExtractOp::create(rewriter, loc, e, position),
                vector::ExtractOp::create(rewriter, loc, k, position));
      result = vector::InsertOp::create(rewriter, loc, scaled, result, position);
    }
    rewriter.replaceOp(op, result);
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
    // The CPU's code (not a GPU module's kernels) for an AVX-512 target.
    if (isa<ModuleOp>(getOperation()) &&
        tfm::CpuTargetAttr::lookup(getOperation()).getIsa() == "avx512")
      patterns.add<ScaledExp>(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
