//===- LoweringUtils.cpp - Helpers shared by the tfm lowerings ------------===//

#include "LoweringUtils.h"
#include "tfm/Dialect/Tfm/IR/ConstantLayout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

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

//===----------------------------------------------------------------------===//
// Helpers of the layer and embedding lowerings
//===----------------------------------------------------------------------===//

Value tfm::castToTensorType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

Value tfm::createFilledTensor(OpBuilder &b, Location loc,
                              ArrayRef<OpFoldResult> sizes, Type elementType,
                              double value) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value fill =
      arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, value));
  return linalg::FillOp::create(b, loc, ValueRange{fill}, ValueRange{empty})
      .getResult(0);
}

Value tfm::convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  unsigned from = v.getType().getIntOrFloatBitWidth();
  unsigned width = to.getIntOrFloatBitWidth();
  if (v.getType() == to)
    return v;
  if (from < width)
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

Value tfm::createDimAsFloat(OpBuilder &b, Location loc, Value v, int64_t dim,
                            Type type) {
  int64_t size = cast<RankedTensorType>(v.getType()).getDimSize(dim);
  if (!ShapedType::isDynamic(size))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type, static_cast<double>(size)));
  Value index = tensor::DimOp::create(b, loc, v, dim);
  Value integer = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), index);
  return arith::UIToFPOp::create(b, loc, type, integer);
}

/// Returns `weight` [N, K] as [K, N], so that the matmul reads rows of it:
/// folded at compile time when the weight is a constant (the usual case,
/// once weights are bound), a linalg.transpose otherwise.
static Value transposeWeight(OpBuilder &b, Location loc, Value weight) {
  auto type = cast<RankedTensorType>(weight.getType());
  DenseElementsAttr value;
  if (type.hasStaticShape() && type.getElementTypeBitWidth() % 8 == 0 &&
      matchPattern(weight, m_Constant(&value)))
    return arith::ConstantOp::create(b, loc, transposeConstantMatrix(value));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, weight);
  std::swap(sizes[0], sizes[1]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, weight, init,
                                     ArrayRef<int64_t>{1, 0})
      ->getResult(0);
}

Value tfm::createMatmulTransposeB(OpBuilder &b, Location loc, Value lhs,
                                  Value rhs) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(lhs.getType()).getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, lhs);
  sizes.back() = tensor::getMixedSize(b, loc, rhs, 0);
  Value acc = createFilledTensor(b, loc, sizes, b.getF32Type(), 0.0);
  Value rhsT = transposeWeight(b, loc, rhs);

  if (rank == 2)
    return linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                    ValueRange{lhs, rhsT}, ValueRange{acc})
        .getResult(0);

  // Loops: the leading dimensions of lhs, then N, then K.
  SmallVector<AffineExpr> lead;
  for (int64_t i = 0; i < rank - 1; ++i)
    lead.push_back(getAffineDimExpr(i, ctx));
  AffineExpr n = getAffineDimExpr(rank - 1, ctx),
             k = getAffineDimExpr(rank, ctx);
  auto map = [&](ArrayRef<AffineExpr> tail) {
    SmallVector<AffineExpr> exprs(lead);
    llvm::append_range(exprs, tail);
    return AffineMap::get(rank + 1, 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps{map(k), AffineMap::get(rank + 1, 0, {k, n}, ctx),
                              map(n)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhsT}, ValueRange{acc},
      maps, iterators, [](OpBuilder &nb, Location nloc, ValueRange args) {
        Type f32 = nb.getF32Type();
        Value product = arith::MulFOp::create(
            nb, nloc, convertFloat(nb, nloc, args[0], f32),
            convertFloat(nb, nloc, args[1], f32));
        linalg::YieldOp::create(
            nb, nloc,
            arith::AddFOp::create(nb, nloc, args[2], product).getResult());
      });
  return generic.getResult(0);
}

Value tfm::createBiasEpilogue(
    OpBuilder &b, Location loc, Value acc, Value bias, Type elementType,
    function_ref<Value(OpBuilder &, Location, Value)> activation) {
  auto accType = cast<RankedTensorType>(acc.getType());
  if (!bias && !activation && accType.getElementType() == elementType)
    return acc;

  MLIRContext *ctx = b.getContext();
  int64_t rank = accType.getRank();
  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<Value> inputs{acc};
  SmallVector<AffineMap> maps{identity};
  if (bias) {
    inputs.push_back(bias);
    maps.push_back(identity.getMinorSubMap(1));
  }
  maps.push_back(identity);
  Value init = createEmptyLike(b, loc, accType.clone(elementType), acc);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = args[0];
        if (bias)
          v = arith::AddFOp::create(
              nb, nloc, v, convertFloat(nb, nloc, args[1], v.getType()));
        if (activation)
          v = activation(nb, nloc, v);
        linalg::YieldOp::create(nb, nloc,
                                convertFloat(nb, nloc, v, elementType));
      });
  return generic.getResult(0);
}

AffineMap tfm::getLeadingDimsMap(unsigned numDims, unsigned count,
                                 MLIRContext *ctx) {
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < count; ++i)
    exprs.push_back(getAffineDimExpr(i, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}
