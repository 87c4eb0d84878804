//===- DropKvCacheResults.cpp - tfm-drop-kv-cache-results -----------------===//
//
// Implements `tfm-drop-kv-cache-results`: the updated key/value caches that
// a bufferized function returns are its arguments' buffers, written in
// place; they stop being results.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/BitVector.h"

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

static LogicalResult dropCacheResults(func::FuncOp func) {
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
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (unsigned i : drop.set_bits()) {
    auto attr = func.getResultAttrOfType<IntegerAttr>(i, kKvCacheAttr);
    Value value = ret.getOperand(i);
    while (auto cast = value.getDefiningOp<memref::CastOp>())
      value = cast.getSource();
    auto arg = dyn_cast<BlockArgument>(value);
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
  }
  ret->eraseOperands(drop);
  if (failed(func.eraseResults(drop)))
    return func.emitError("cannot drop the key/value cache results");
  return success();
}

namespace {
struct TfmDropKvCacheResultsPass
    : tfm::impl::TfmDropKvCacheResultsBase<TfmDropKvCacheResultsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // Callers would have to drop the results too: only entries (which
      // have none) hold caches.
      if (!SymbolTable::symbolKnownUseEmpty(func, getOperation()) &&
          llvm::any_of(llvm::seq(func.getNumResults()), [&](unsigned i) {
            return func.getResultAttr(i, kKvCacheAttr) != nullptr;
          })) {
        func.emitError("a function that returns key/value caches is called; "
                       "only the entry may hold them");
        return signalPassFailure();
      }
      if (failed(dropCacheResults(func)))
        return signalPassFailure();
    }
  }
};
} // namespace
