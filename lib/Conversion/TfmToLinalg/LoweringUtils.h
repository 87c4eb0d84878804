//===- LoweringUtils.h - Helpers shared by the tfm lowerings ----*- C++ -*-===//

#ifndef TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H
#define TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"

namespace mlir {
namespace tfm {

/// Creates a `tensor.empty` of `type`, taking each dynamic size from the
/// same dimension of `like` (which must have the same rank as `type`), or
/// from `dynamicSizes` when given.
Value createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                      Value like);

/// Returns the sizes of every dimension of `v` as OpFoldResults (static
/// sizes as attributes, dynamic ones through tensor.dim).
SmallVector<OpFoldResult> getDims(OpBuilder &b, Location loc, Value v);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H
