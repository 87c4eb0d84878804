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
  return getTypical(op->getContext(), "x86-64-v4", "avx512",
                    {"fma", "avx2", "avx512f"});
}

CpuTargetAttr CpuTargetAttr::getTypical(MLIRContext *context, StringRef name,
                                        StringRef isa,
                                        ArrayRef<StringRef> features) {
  bool avx512 = isa == "avx512";
  unsigned bits = avx512 ? 512 : isa == "sse" ? 128 : 256;
  unsigned registers = avx512 ? 32 : 16;
  int64_t l1 = avx512 ? 48 << 10 : 32 << 10;
  int64_t l2 = avx512 ? 2 << 20 : 256 << 10;
  int64_t l3 = avx512 ? 32 << 20 : 8 << 20;
  return get(context, name, isa, bits, registers,
             Builder(context).getStrArrayAttr(features), l1, l2, l3);
}

bool CpuTargetAttr::hasFeature(StringRef feature) const {
  return llvm::any_of(getFeatures(), [&](Attribute a) {
    auto name = dyn_cast<StringAttr>(a);
    return name && name.getValue() == feature;
  });
}
