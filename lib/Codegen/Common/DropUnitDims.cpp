//===- DropUnitDims.cpp - Contractions without their unit dimensions ------===//
//
// Implements `tfm-drop-unit-dims`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDROPUNITDIMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {
struct TfmDropUnitDimsPass
    : tfm::impl::TfmDropUnitDimsBase<TfmDropUnitDimsPass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> contractions;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (isa<func::FuncOp>(op->getParentOp()) &&
          op.hasPureTensorSemantics() &&
          linalg::isaContractionOpInterface(op) &&
          llvm::is_contained(op.getStaticLoopRanges(), 1))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    linalg::ControlDropUnitDims options;
    for (linalg::GenericOp op : contractions) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::DropUnitDimsResult> result =
          linalg::dropUnitDims(rewriter, op, options);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    }
  }
};
} // namespace
