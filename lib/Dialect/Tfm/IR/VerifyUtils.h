//===- VerifyUtils.h - Shape checks shared by tfm verifiers -----*- C++ -*-===//
//
// Every tfm verifier reports what it expected and what it found, naming the
// operand. These helpers keep the wording of those diagnostics uniform.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_DIALECT_TFM_IR_VERIFYUTILS_H
#define TFM_LIB_DIALECT_TFM_IR_VERIFYUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"

namespace mlir {
namespace tfm {

/// A named operand of the op being verified, e.g. {"weight", %w}.
struct NamedValue {
  StringRef name;
  Value value;

  RankedTensorType getType() const {
    return cast<RankedTensorType>(value.getType());
  }
  ArrayRef<int64_t> getShape() const { return getType().getShape(); }
  int64_t getRank() const { return getType().getRank(); }
  /// Size of dimension `dim`; negative indices count from the end.
  int64_t getDim(int64_t dim) const;
};

/// True if two sizes can be equal: equal, or either dynamic.
bool areCompatibleDims(int64_t lhs, int64_t rhs);

/// Product of two sizes, dynamic if either is.
int64_t mulDims(int64_t lhs, int64_t rhs);

/// Checks that `v` has rank `rank`; `layout` describes the dimensions in the
/// diagnostic, e.g. "[out_features, in_features]".
LogicalResult verifyRank(Operation *op, const NamedValue &v, int64_t rank,
                         StringRef layout);

/// Checks that `v` has rank at least `rank`.
LogicalResult verifyMinRank(Operation *op, const NamedValue &v, int64_t rank,
                            StringRef layout);

/// Checks that dimension `dim` of `v` (negative counts from the end) can be
/// `expected`; `reason` says where `expected` comes from.
LogicalResult verifyDim(Operation *op, const NamedValue &v, int64_t dim,
                        int64_t expected, const Twine &reason);

/// Checks that dimension `dim` of `v` (negative counts from the end) is not
/// 0, for ops whose lowering needs at least one element along it; `what`
/// names the dimension in the diagnostic ("the head dimension").
LogicalResult verifyNonZeroDim(Operation *op, const NamedValue &v, int64_t dim,
                               StringRef what);

/// Checks that every value in `others` has the element type of `ref`.
LogicalResult verifySameElementType(Operation *op, const NamedValue &ref,
                                    ArrayRef<NamedValue> others);

/// Checks that `a` and `b` have the same leading `count` dimensions.
LogicalResult verifySameLeadingDims(Operation *op, const NamedValue &a,
                                    const NamedValue &b, int64_t count);

/// Checks d2l's `valid_lens` convention against scores of shape
/// `[batch..., queries, keys]`: `valid_lens` is `[batch...]` or
/// `[batch..., queries]`.
LogicalResult verifyValidLens(Operation *op, const NamedValue &validLens,
                              ArrayRef<int64_t> batchShape, int64_t queries);

/// Checks that an additive `mask` broadcasts to `scoreShape` (numpy rules).
LogicalResult verifyMaskBroadcast(Operation *op, const NamedValue &mask,
                                  ArrayRef<int64_t> scoreShape);

/// Checks that a dropout rate lies in [0, 1).
LogicalResult verifyDropoutRate(Operation *op, StringRef name, double rate);

/// Appends the ranked tensor type `shape` x `elementType` to `types`.
LogicalResult inferTensor(SmallVectorImpl<Type> &types,
                          ArrayRef<int64_t> shape, Type elementType);

/// Returns the ranked tensor type of `v`, or emits an error at `loc` (if
/// any) naming `opName` and `name` and returns null.
RankedTensorType getRankedOrError(std::optional<Location> loc,
                                  StringRef opName, StringRef name, Value v,
                                  int64_t minRank);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_DIALECT_TFM_IR_VERIFYUTILS_H
