//===- SplatConstantsToFill.cpp - tfm-splat-constants-to-fill -------------===//
//
// Implements `tfm-splat-constants-to-fill`: a splat tensor constant larger
// than a few kilobytes becomes a linalg.fill of a tensor.empty, written where
// it is used instead of stored, element by element, in the binary.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMSPLATCONSTANTSTOFILL
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmSplatConstantsToFillPass
    : tfm::impl::TfmSplatConstantsToFillBase<TfmSplatConstantsToFillPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation()->walk([&](arith::ConstantOp constant) {
      auto splat = dyn_cast<SplatElementsAttr>(constant.getValue());
      auto type = dyn_cast<RankedTensorType>(constant.getType());
      if (!splat || !type || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        return;
      // Sizes are checked to fit in 64 bits before the pipeline
      // (tfm-prepare-entry); compare in elements all the same, so that
      // the test cannot overflow.
      int64_t elementBytes =
          std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
      if (type.getNumElements() <= maxBytes / elementBytes)
        return;
      rewriter.setInsertionPoint(constant);
      Location loc = constant.getLoc();
      Value scalar = arith::ConstantOp::create(
          rewriter, loc, splat.getSplatValue<TypedAttr>());
      Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                            type.getElementType());
      rewriter.replaceOpWithNewOp<linalg::FillOp>(constant, scalar, empty);
    });
  }
};
} // namespace
