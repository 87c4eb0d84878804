//===- VerifyUtils.cpp - Shape checks shared by tfm verifiers -------------===//

#include "VerifyUtils.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::tfm;

int64_t NamedValue::getDim(int64_t dim) const {
  return getShape()[dim < 0 ? getRank() + dim : dim];
}

bool tfm::areCompatibleDims(int64_t lhs, int64_t rhs) {
  return ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs) ||
         lhs == rhs;
}

int64_t tfm::mulDims(int64_t lhs, int64_t rhs) {
  if (ShapedType::isDynamic(lhs) || ShapedType::isDynamic(rhs))
    return ShapedType::kDynamic;
  return lhs * rhs;
}

/// Prints a size, `?` when dynamic.
static std::string dimToString(int64_t dim) {
  return ShapedType::isDynamic(dim) ? "?" : std::to_string(dim);
}

LogicalResult tfm::verifyRank(Operation *op, const NamedValue &v,
                              int64_t rank, StringRef layout) {
  if (v.getRank() == rank)
    return success();
  return op->emitOpError() << "expected " << v.name << " of rank " << rank
                           << " " << layout << ", found " << v.getType();
}

LogicalResult tfm::verifyMinRank(Operation *op, const NamedValue &v,
                                 int64_t rank, StringRef layout) {
  if (v.getRank() >= rank)
    return success();
  return op->emitOpError() << "expected " << v.name << " of rank at least "
                           << rank << " " << layout << ", found "
                           << v.getType();
}

LogicalResult tfm::verifyDim(Operation *op, const NamedValue &v, int64_t dim,
                             int64_t expected, const Twine &reason) {
  int64_t found = v.getDim(dim);
  if (areCompatibleDims(found, expected))
    return success();
  int64_t index = dim < 0 ? v.getRank() + dim : dim;
  return op->emitOpError() << "expected dimension " << index << " of "
                           << v.name << " to be " << dimToString(expected)
                           << " (" << reason << "), found " << v.getType();
}

LogicalResult tfm::verifyNonZeroDim(Operation *op, const NamedValue &v,
                                    int64_t dim, StringRef what) {
  if (v.getDim(dim) != 0)
    return success();
  int64_t index = dim < 0 ? v.getRank() + dim : dim;
  return op->emitOpError() << "expected " << what << " (dimension " << index
                           << " of " << v.name << ") to be at least 1, found "
                           << v.getType();
}

LogicalResult tfm::verifySameElementType(Operation *op, const NamedValue &ref,
                                         ArrayRef<NamedValue> others) {
  Type expected = ref.getType().getElementType();
  for (const NamedValue &v : others) {
    if (!v.value)
      continue;
    Type found = v.getType().getElementType();
    if (found != expected)
      return op->emitOpError()
             << "expected " << v.name << " to have element type " << expected
             << " like " << ref.name << ", found " << v.getType();
  }
  return success();
}

LogicalResult tfm::verifySameLeadingDims(Operation *op, const NamedValue &a,
                                         const NamedValue &b, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if (failed(verifyDim(op, b, i, a.getDim(i),
                         "batch dimension of " + a.name)))
      return failure();
  }
  return success();
}

LogicalResult tfm::verifyValidLens(Operation *op, const NamedValue &validLens,
                                   ArrayRef<int64_t> batchShape,
                                   int64_t queries) {
  int64_t batchRank = batchShape.size();
  if (validLens.getRank() != batchRank &&
      validLens.getRank() != batchRank + 1) {
    return op->emitOpError()
           << "expected " << validLens.name << " of rank " << batchRank
           << " (one length per batch) or " << batchRank + 1
           << " (one length per query), found " << validLens.getType();
  }
  for (int64_t i = 0; i < batchRank; ++i)
    if (failed(verifyDim(op, validLens, i, batchShape[i],
                         "batch dimension of the scores")))
      return failure();
  if (validLens.getRank() == batchRank + 1)
    return verifyDim(op, validLens, batchRank, queries, "number of queries");
  return success();
}

LogicalResult tfm::verifyMaskBroadcast(Operation *op, const NamedValue &mask,
                                       ArrayRef<int64_t> scoreShape) {
  int64_t rank = scoreShape.size();
  if (mask.getRank() > rank)
    return op->emitOpError() << "expected " << mask.name << " of rank at most "
                             << rank << " to broadcast to the scores, found "
                             << mask.getType();
  int64_t offset = rank - mask.getRank();
  for (int64_t i = 0, e = mask.getRank(); i < e; ++i) {
    int64_t found = mask.getShape()[i];
    int64_t expected = scoreShape[offset + i];
    if (found == 1 || areCompatibleDims(found, expected))
      continue;
    return op->emitOpError()
           << "expected dimension " << i << " of " << mask.name
           << " to be 1 or " << dimToString(expected)
           << " to broadcast to the scores, found " << mask.getType();
  }
  return success();
}

LogicalResult tfm::verifyDropoutRate(Operation *op, StringRef name,
                                     double rate) {
  if (rate >= 0.0 && rate < 1.0)
    return success();
  return op->emitOpError() << "expected " << name << " in [0, 1), found "
                           << rate;
}

LogicalResult tfm::inferTensor(SmallVectorImpl<Type> &types,
                               ArrayRef<int64_t> shape, Type elementType) {
  types.push_back(RankedTensorType::get(shape, elementType));
  return success();
}

RankedTensorType tfm::getRankedOrError(std::optional<Location> loc,
                                       StringRef opName, StringRef name,
                                       Value v, int64_t minRank) {
  auto type = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
  if (type && type.getRank() >= minRank)
    return type;
  (void)emitOptionalError(loc, "'", opName, "' op expected ", name,
                          " to be a ranked tensor of rank at least ", minRank);
  return nullptr;
}
