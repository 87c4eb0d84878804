//===- ApproximateMath.cpp - Polynomial approximations of math ops --------===//
//
// Implements `tfm-approximate-math` on top of upstream's polynomial
// approximations, so that exp, erf and tanh vectorize.
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
struct TfmApproximateMathPass
    : tfm::impl::TfmApproximateMathBase<TfmApproximateMathPass> {
  void runOnOperation() override {
    // sin and cos stay precise: the positional encoding evaluates them at
    // angles up to the sequence length, beyond the approximations' range.
    auto isApproximated = [](StringRef name) {
      return llvm::is_contained({"math.exp", "math.erf", "math.tanh"}, name);
    };
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isApproximated);
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
