//===- DecomposeAggregates.cpp - Decompose aggregated ops -----------------===//
//
// Implements `tfm-decompose-aggregates`: every op that implements linalg's
// AggregatedOpInterface (tfm.online_attention, linalg.softmax) is replaced by
// the simpler ops its decomposition builds. Run after tiling, this turns
// each tile of attention into one key-block step of the online softmax.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDECOMPOSEAGGREGATES
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

LogicalResult tfm::decomposeAggregates(Operation *root) {
  SmallVector<linalg::AggregatedOpInterface> ops;
  root->walk([&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
  IRRewriter rewriter(root->getContext());
  for (linalg::AggregatedOpInterface op : ops) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> parts = op.decomposeOperation(rewriter);
    if (failed(parts))
      return op->emitOpError("could not be decomposed");
    rewriter.replaceOp(op, *parts);
  }
  return success();
}

namespace {
struct TfmDecomposeAggregatesPass
    : tfm::impl::TfmDecomposeAggregatesBase<TfmDecomposeAggregatesPass> {
  void runOnOperation() override {
    if (failed(decomposeAggregates(getOperation())))
      signalPassFailure();
  }
};
} // namespace
