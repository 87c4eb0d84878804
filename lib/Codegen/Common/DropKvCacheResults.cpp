//===- DropKvCacheResults.cpp - tfm-drop-kv-cache-results -----------------===//
//
// Implements `tfm-drop-kv-cache-results`: the updated key/value caches that
// a bufferized function returns are its arguments' buffers, written in
// place; they stop being results, of the function and of its calls (a
// tensor-parallel entry calls its rank's function, which updates the
// entry's caches).
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/BitVector.h"

#include <algorithm>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDROPKVCACHERESULTS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

/// The result attribute of tfm-kv-cache (kKvCacheAttr in EntryPoint.h).
static constexpr const char *kKvCacheAttr = "tfm.kv_cache";

/// `value` seen through casts, and through the results of scf.if and
/// scf.index_switch ops all of whose regions yield one value there (a
/// tensor-parallel entry's dispatch to its rank's function).
static Value getUnderlying(Value value) {
  while (true) {
    if (auto cast = value.getDefiningOp<memref::CastOp>()) {
      value = cast.getSource();
      continue;
    }
    auto result = dyn_cast<OpResult>(value);
    if (!result || !isa<scf::IfOp, scf::IndexSwitchOp>(result.getOwner()))
      return value;
    Value yielded;
    for (Region &region : result.getOwner()->getRegions()) {
      if (region.empty())
        return value;
      Value next = getUnderlying(
          region.front().getTerminator()->getOperand(result.getResultNumber()));
      if (yielded && next != yielded)
        return value;
      yielded = next;
    }
    if (!yielded)
      return value;
    value = yielded;
  }
}

static LogicalResult dropCacheResults(func::FuncOp func, ModuleOp module) {
  if (func.isExternal())
    return success();
  llvm::BitVector drop(func.getNumResults());
  for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
    if (func.getResultAttr(i, kKvCacheAttr))
      drop.set(i);
  if (drop.none())
    return success();
  if (!func.getBody().hasOneBlock())
    return func.emitError("a function with key/value caches has one block");
  // Its callers drop the results too: each is the argument the call
  // passed, updated.
  SmallVector<func::CallOp> calls;
  if (std::optional<SymbolTable::UseRange> uses = func.getSymbolUses(module))
    for (const SymbolTable::SymbolUse &use : *uses) {
      auto call = dyn_cast<func::CallOp>(use.getUser());
      if (!call)
        return func.emitError("a function that returns key/value caches is "
                              "used other than by calls");
      calls.push_back(call);
    }
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  SmallVector<unsigned> argOf(func.getNumResults());
  for (unsigned i : drop.set_bits()) {
    auto attr = func.getResultAttrOfType<IntegerAttr>(i, kKvCacheAttr);
    auto arg = dyn_cast<BlockArgument>(getUnderlying(ret.getOperand(i)));
    if (!attr || !arg || arg.getOwner()->getParentOp() != func ||
        arg.getArgNumber() != attr.getInt()) {
      InFlightDiagnostic diag = func.emitError()
                                << "result " << i
                                << " is a key/value cache that bufferization "
                                   "could not update in place";
      if (auto name = func.getResultAttrOfType<StringAttr>(i, "tfm.name"))
        diag << " ('" << name.getValue() << "')";
      return diag;
    }
    argOf[i] = arg.getArgNumber();
  }
  ret->eraseOperands(drop);
  if (failed(func.eraseResults(drop)))
    return func.emitError("cannot drop the key/value cache results");
  for (func::CallOp call : calls) {
    OpBuilder b(call);
    SmallVector<Type> types;
    for (unsigned i = 0, e = call.getNumResults(); i < e; ++i)
      if (!drop.test(i))
        types.push_back(call.getResult(i).getType());
    auto kept = func::CallOp::create(b, call.getLoc(), func.getSymName(),
                                     types, call.getOperands());
    kept->setDiscardableAttrs(call->getDiscardableAttrDictionary());
    unsigned next = 0;
    for (unsigned i = 0, e = call.getNumResults(); i < e; ++i)
      call.getResult(i).replaceAllUsesWith(
          drop.test(i) ? call.getOperand(argOf[i]) : kept.getResult(next++));
    call.erase();
  }
  return success();
}

namespace {
struct TfmDropKvCacheResultsPass
    : tfm::impl::TfmDropKvCacheResultsBase<TfmDropKvCacheResultsPass> {
  void runOnOperation() override {
    // Callees first (a tensor-parallel entry's rank functions): their
    // callers then return the arguments they passed.
    SmallVector<func::FuncOp> funcs(getOperation().getOps<func::FuncOp>());
    std::stable_partition(funcs.begin(), funcs.end(),
                          [](func::FuncOp func) { return func.isPrivate(); });
    for (func::FuncOp func : funcs)
      if (failed(dropCacheResults(func, getOperation())))
        return signalPassFailure();
  }
};
} // namespace
