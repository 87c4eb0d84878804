//===- CpuTarget.cpp - #tfm.cpu -------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tfm;

CpuTargetAttr CpuTargetAttr::lookup(Operation *op) {
  for (Operation *scope = op; scope; scope = scope->getParentOp())
    if (auto target = scope->getAttrOfType<CpuTargetAttr>(getAttrName()))
      return target;
  // x86-64-v4's registers, with a server core's caches.
  Builder b(op->getContext());
  return CpuTargetAttr::get(
      op->getContext(), "x86-64-v4", "avx512", 512, 32,
      b.getStrArrayAttr({"fma", "avx2", "avx512f"}), 48 * 1024,
      2 * 1024 * 1024, 32 * 1024 * 1024);
}

bool CpuTargetAttr::hasFeature(StringRef feature) const {
  return llvm::any_of(getFeatures(), [&](Attribute a) {
    auto name = dyn_cast<StringAttr>(a);
    return name && name.getValue() == feature;
  });
}
