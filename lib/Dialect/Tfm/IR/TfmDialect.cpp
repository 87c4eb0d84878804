//===- TfmDialect.cpp - The tfm dialect -----------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm;

#include "tfm/Dialect/Tfm/IR/TfmOpsDialect.cpp.inc"

#include "tfm/Dialect/Tfm/IR/TfmEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tfm/Dialect/Tfm/IR/TfmAttrs.cpp.inc"

namespace {
/// Every tfm op is pure and region-free, so calls of functions that hold tfm
/// ops can always be inlined.
struct TfmInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TfmDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tfm/Dialect/Tfm/IR/TfmOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tfm/Dialect/Tfm/IR/TfmAttrs.cpp.inc"
      >();
  addInterfaces<TfmInlinerInterface>();
}
