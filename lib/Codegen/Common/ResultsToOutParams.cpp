//===- ResultsToOutParams.cpp - tfm-results-to-out-params -----------------===//
//
// Implements `tfm-results-to-out-params`: upstream's
// buffer-results-to-out-params (allocations hoisted to the callers, public
// functions included), except for the results of private functions whose
// sizes are dynamic, which only the callee knows: those stay results. A
// tensor-parallel model's entry calls its rank's function on inputs of any
// size (TensorParallel.cpp); the entry itself still writes its results into
// out-parameters, which its caller allocates from the sizes it passes.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMRESULTSTOOUTPARAMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {
struct TfmResultsToOutParamsPass
    : tfm::impl::TfmResultsToOutParamsBase<TfmResultsToOutParamsPass> {
  void runOnOperation() override {
    bufferization::BufferResultsToOutParamsOpts options;
    options.hoistStaticAllocs = true;
    options.hoistDynamicAllocs = true;
    options.modifyPublicFunctions = true;
    options.filterFn = [](func::FuncOp *func) {
      return func->isPublic() ||
             llvm::none_of(func->getResultTypes(), [](Type type) {
               auto memref = dyn_cast<MemRefType>(type);
               return memref && !memref.hasStaticShape();
             });
    };
    if (failed(bufferization::promoteBufferResultsToOutParams(getOperation(),
                                                              options)))
      signalPassFailure();
  }
};
} // namespace
