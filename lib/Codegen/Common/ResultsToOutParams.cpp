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
// Where the entry only copies such a result into its own out-parameter
// (through the scf.index_switch that picks the rank's function), the
// callee writes it there instead: it takes the out-parameter as an
// argument in place of the buffer it allocated, and the copy and the
// second buffer of the result go.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMRESULTSTOOUTPARAMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// The call yielded at `result` of each region of `dispatch`, if each is a
/// func.call of a private function used once, which returns there (once) a
/// buffer it allocates itself, of the result's type.
static std::optional<SmallVector<std::pair<func::CallOp, func::FuncOp>>>
getForwardableCalls(scf::IndexSwitchOp dispatch, unsigned result,
                    SymbolTableCollection &symbols, ModuleOp module) {
  SmallVector<std::pair<func::CallOp, func::FuncOp>> calls;
  for (Region &region : dispatch->getRegions()) {
    Value yielded = region.front().getTerminator()->getOperand(result);
    auto call = yielded.getDefiningOp<func::CallOp>();
    if (!call || !yielded.hasOneUse())
      return std::nullopt;
    auto callee = symbols.lookupNearestSymbolFrom<func::FuncOp>(
        call, call.getCalleeAttr());
    if (!callee || !callee.isPrivate() || callee.isExternal() ||
        !callee.getBody().hasOneBlock())
      return std::nullopt;
    std::optional<SymbolTable::UseRange> uses = callee.getSymbolUses(module);
    if (!uses || !llvm::hasSingleElement(*uses))
      return std::nullopt;
    unsigned index = cast<OpResult>(yielded).getResultNumber();
    auto ret = cast<func::ReturnOp>(callee.getBody().front().getTerminator());
    auto alloc = ret.getOperand(index).getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc.getType() != callee.getResultTypes()[index] ||
        llvm::count(ret.getOperands(), alloc.getResult()) != 1)
      return std::nullopt;
    calls.push_back({call, callee});
  }
  return calls;
}

/// Makes the callees of `dispatch` (scf.index_switch) write result `result`
/// into `target`, the caller's out-parameter, which `copy` fills now.
static void
forwardIntoOutParam(memref::CopyOp copy, scf::IndexSwitchOp dispatch,
                    unsigned result,
                    ArrayRef<std::pair<func::CallOp, func::FuncOp>> calls) {
  Value target = copy.getTarget();
  for (auto [call, callee] : calls) {
    unsigned index = 0;
    for (Region &region : dispatch->getRegions())
      if (region.isAncestor(call->getParentRegion()))
        index =
            cast<OpResult>(region.front().getTerminator()->getOperand(result))
                .getResultNumber();
    // The callee: the out-parameter replaces its allocation and result.
    Block &body = callee.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    auto alloc = ret.getOperand(index).getDefiningOp<memref::AllocOp>();
    unsigned argIndex = callee.getNumArguments();
    (void)callee.insertArgument(argIndex, target.getType(), DictionaryAttr(),
                                alloc.getLoc());
    Value outParam = body.getArgument(argIndex);
    ret->eraseOperand(index);
    alloc.getResult().replaceAllUsesWith(outParam);
    alloc.erase();
    (void)callee.eraseResult(index);
    // The call passes the caller's out-parameter.
    OpBuilder b(call);
    SmallVector<Value> operands(call.getOperands());
    operands.push_back(target);
    SmallVector<Type> types(call.getResultTypes());
    types.erase(types.begin() + index);
    auto forwarded = func::CallOp::create(b, call.getLoc(), callee.getSymName(),
                                          types, operands);
    Operation *yield = call->getParentRegion()->front().getTerminator();
    yield->setOperand(result, target);
    for (unsigned i = 0, e = call.getNumResults(), next = 0; i < e; ++i)
      if (i != index)
        call.getResult(i).replaceAllUsesWith(forwarded.getResult(next++));
    call.erase();
  }
  copy.erase();
}

/// Forwards every out-parameter of a public function that it fills by
/// copying a dispatched call's result.
static void forwardDispatchedResults(ModuleOp module) {
  SymbolTableCollection symbols;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    SmallVector<memref::CopyOp> copies;
    func.walk([&](memref::CopyOp copy) {
      auto target = dyn_cast<BlockArgument>(copy.getTarget());
      auto dispatch = copy.getSource().getDefiningOp<scf::IndexSwitchOp>();
      if (target && target.getOwner()->getParentOp() == func && dispatch &&
          dispatch->getBlock() == copy->getBlock() &&
          copy.getSource().hasOneUse() &&
          copy.getSource().getType() == target.getType())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      auto dispatch = copy.getSource().getDefiningOp<scf::IndexSwitchOp>();
      unsigned result = cast<OpResult>(copy.getSource()).getResultNumber();
      if (auto calls = getForwardableCalls(dispatch, result, symbols, module))
        forwardIntoOutParam(copy, dispatch, result, *calls);
    }
  }
}

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
      return signalPassFailure();
    forwardDispatchedResults(getOperation());
  }
};
} // namespace
