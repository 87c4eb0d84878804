//===- AllocateFillInits.cpp - tfm-allocate-fill-inits --------------------===//
//
// Implements `tfm-allocate-fill-inits`: each linalg.fill of a tensor.empty
// (or of a static reshape of one) fills an allocation of its own, which CSE
// does not merge with another.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMALLOCATEFILLINITS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmAllocateFillInitsPass
    : tfm::impl::TfmAllocateFillInitsBase<TfmAllocateFillInitsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](linalg::FillOp fill) {
      if (!fill.hasPureTensorSemantics())
        return;
      OpOperand &init = fill.getDpsInitsMutable()[0];
      auto type = cast<RankedTensorType>(init.get().getType());
      // An empty, or a reshape of one when the shape is static (the
      // lowering's [S, 1, D] accumulators are expanded empties).
      Value root = init.get();
      while (isa_and_nonnull<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(
                 root.getDefiningOp()) &&
             type.hasStaticShape())
        root = root.getDefiningOp()->getOperand(0);
      auto empty = root.getDefiningOp<tensor::EmptyOp>();
      if (!empty)
        return;
      rewriter.setInsertionPoint(fill);
      ValueRange sizes = root == init.get() ? empty.getDynamicSizes()
                                            : ValueRange();
      auto alloc = bufferization::AllocTensorOp::create(
          rewriter, empty.getLoc(), type, sizes);
      Operation *reshape = init.get().getDefiningOp();
      rewriter.modifyOpInPlace(fill, [&] { init.set(alloc); });
      if (reshape != empty && reshape->use_empty())
        rewriter.eraseOp(reshape);
      if (empty->use_empty())
        rewriter.eraseOp(empty);
    });
  }
};
} // namespace
