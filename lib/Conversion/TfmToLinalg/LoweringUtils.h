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

//===----------------------------------------------------------------------===//
// Helpers of the layer and embedding lowerings
//===----------------------------------------------------------------------===//

/// Returns `v` with the tensor type `type`, through a `tensor.cast` when the
/// two types differ only in which sizes are static.
Value castToTensorType(OpBuilder &b, Location loc, Value v, Type type);

/// Creates a tensor of `sizes` x `elementType` filled with `value`: a
/// `tensor.empty` and a `linalg.fill`.
Value createFilledTensor(OpBuilder &b, Location loc,
                         ArrayRef<OpFoldResult> sizes, Type elementType,
                         double value);

/// Converts the float scalar `v` to the float type `to` with `arith.extf` or
/// `arith.truncf`; returns `v` when it already has that type.
Value convertFloat(OpBuilder &b, Location loc, Value v, Type to);

/// Returns dimension `dim` of the tensor `v` as a scalar of the float type
/// `type`: a constant when the size is static, else from `tensor.dim`.
Value createDimAsFloat(OpBuilder &b, Location loc, Value v, int64_t dim,
                       Type type);

/// Returns `lhs` [..., K] times the transpose of `rhs` [N, K] as an f32
/// tensor [..., N] (`nn.Linear`'s `x·Wᵀ`), with an f32 accumulator whatever
/// the operands' element type. `rhs` is transposed to [K, N] first, at
/// compile time when it is a constant, so that the matmul reads it by rows.
/// A rank-2 `lhs` gives a `linalg.matmul`; a higher rank a `linalg.generic`
/// contraction over the leading dimensions, N and K.
Value createMatmulTransposeB(OpBuilder &b, Location loc, Value lhs, Value rhs);

/// Builds the elementwise epilogue of a matmul: over the f32 tensor `acc`
/// [..., N], adds the optional `bias` [N], applies `activation` (in f32; may
/// be null) and converts to `elementType`, as one `linalg.generic`. Returns
/// `acc` when there is nothing to do.
Value createBiasEpilogue(
    OpBuilder &b, Location loc, Value acc, Value bias, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> activation = nullptr);

/// Returns `(d0, ..., d{numDims-1}) -> (d0, ..., d{count-1})`, the map that
/// reads a tensor of the leading `count` loops; unlike
/// `AffineMap::getMajorSubMap`, `count` may be 0 (a rank-0 operand).
AffineMap getLeadingDimsMap(unsigned numDims, unsigned count, MLIRContext *ctx);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H
