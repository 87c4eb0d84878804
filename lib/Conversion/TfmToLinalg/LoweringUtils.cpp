//===- LoweringUtils.cpp - Helpers shared by the tfm lowerings ------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::tfm;

Value tfm::createEmptyLike(OpBuilder &b, Location loc, RankedTensorType type,
                           Value like) {
  SmallVector<Value> dynamicSizes;
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(tensor::DimOp::create(b, loc, like, i));
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType(), dynamicSizes);
}

SmallVector<OpFoldResult> tfm::getDims(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}
