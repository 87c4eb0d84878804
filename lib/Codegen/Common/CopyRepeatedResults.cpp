//===- CopyRepeatedResults.cpp - tfm-copy-repeated-results ----------------===//
//
// Implements `tfm-copy-repeated-results`: a value returned more than once is
// copied for each of its later places, so that every result bufferizes to an
// allocation of its own, and so to an out-parameter of its own.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCOPYREPEATEDRESULTS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmCopyRepeatedResultsPass
    : tfm::impl::TfmCopyRepeatedResultsBase<TfmCopyRepeatedResultsPass> {
  void runOnOperation() override {
    getOperation().walk([](func::ReturnOp ret) {
      OpBuilder b(ret);
      llvm::SmallDenseSet<Value> seen;
      for (OpOperand &operand : ret->getOpOperands()) {
        Value value = operand.get();
        auto type = dyn_cast<RankedTensorType>(value.getType());
        if (!type || seen.insert(value).second)
          continue;
        operand.set(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), type, /*dynamicSizes=*/ValueRange(), value));
      }
    });
  }
};
} // namespace
