//===- FoldEmptyLoops.cpp - tfm-fold-empty-loops --------------------------===//
//
// Implements `tfm-fold-empty-loops`: a linalg op on tensors with a loop of
// static extent 0 runs its body no time at all, so each of its results is
// its init. A product with a reduction of length 0 (a `[2, 0]` input, an FFN
// with no hidden units) is its accumulator, zeros or a bias; an op over an
// empty tensor is its empty init.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFOLDEMPTYLOOPS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct FoldEmptyLoops : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op->getNumResults() == 0 ||
        !llvm::is_contained(op.getStaticLoopRanges(), 0))
      return rewriter.notifyMatchFailure(op, "no loop of extent 0");
    SmallVector<Value> inits;
    for (OpOperand &init : op.getDpsInitsMutable())
      inits.push_back(init.get());
    rewriter.replaceOp(op, inits);
    return success();
  }
};

struct TfmFoldEmptyLoopsPass
    : tfm::impl::TfmFoldEmptyLoopsBase<TfmFoldEmptyLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldEmptyLoops>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
