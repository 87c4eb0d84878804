//===- TfmOps.cpp - tfm operation definitions -----------------------------===//
//
// Holds the ODS-generated definitions. The verifiers, type inference, folders
// and canonicalizations are written by op family in AttentionOps.cpp,
// LayerOps.cpp and EmbeddingOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::tfm;

bool tfm::areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs, rhs)) {
    auto lt = dyn_cast<RankedTensorType>(l);
    auto rt = dyn_cast<RankedTensorType>(r);
    if (!lt || !rt || lt.getElementType() != rt.getElementType() ||
        failed(verifyCompatibleShape(lt.getShape(), rt.getShape())))
      return false;
  }
  return true;
}

#define GET_OP_CLASSES
#include "tfm/Dialect/Tfm/IR/TfmOps.cpp.inc"
