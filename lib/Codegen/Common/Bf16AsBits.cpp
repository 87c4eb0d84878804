//===- Bf16AsBits.cpp - bfloat16 conversions as integer operations --------===//
//
// Implements `tfm-bf16-as-bits` (see Passes.td): upstream's bf16 patterns of
// arith-expand, alone.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMBF16ASBITS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

struct TfmBf16AsBitsPass : tfm::impl::TfmBf16AsBitsBase<TfmBf16AsBitsPass> {
  void runOnOperation() override {
    // Only the bfloat16 conversions are rewritten: the rest of the code (a
    // float32 model has none) is left as it is, unfolded.
    SmallVector<Operation *> conversions;
    getOperation()->walk([&](Operation *op) {
      if ((isa<arith::ExtFOp>(op) &&
           getElementTypeOrSelf(op->getOperand(0)).isBF16()) ||
          (isa<arith::TruncFOp>(op) &&
           getElementTypeOrSelf(op->getResult(0)).isBF16()))
        conversions.push_back(op);
    });
    if (conversions.empty())
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(
            applyOpPatternsGreedily(conversions, std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
