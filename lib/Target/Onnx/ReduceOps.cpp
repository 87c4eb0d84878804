//===- ReduceOps.cpp - ONNX reductions along axes -------------------------===//
//
// ReduceMean, ReduceSum, ReduceMax, GlobalAveragePool, ArgMax, CumSum,
// Softmax, LogSoftmax, and the LayerNormalizations that tfm.layer_norm does
// not cover (over several axes, or with their Mean and InvStdDev outputs).
// A reduction is a linalg.reduce over its axes into
// a fill of its identity (kept dimensions restored by a reshape); ArgMax
// and CumSum, whose results depend on positions along the axis, are
// linalg.generic ops that read linalg.index.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfm::onnx_import;

namespace {
/// How a reduction combines two elements.
enum class Combiner { Add, Max };
} // namespace

/// The smallest value of `elementType`: minus infinity for floats.
static double getLowest(Type elementType) {
  if (isa<FloatType>(elementType))
    return -std::numeric_limits<double>::infinity();
  return -std::ldexp(1.0, elementType.getIntOrFloatBitWidth() - 1);
}

/// `value` reduced over the sorted `axes` by `combiner`, from its identity.
static Value reduce(Importer &importer, Value value, ArrayRef<int64_t> axes,
                    Combiner combiner) {
  SymbolicShape shape = importer.shapeOf(value), reducedShape;
  for (auto [i, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(axes, static_cast<int64_t>(i)))
      reducedShape.push_back(size);
  Type elementType = cast<RankedTensorType>(value.getType()).getElementType();
  bool isFloat = isa<FloatType>(elementType);
  double identity = combiner == Combiner::Add ? 0 : getLowest(elementType);
  Value init = importer.splat(reducedShape, elementType, identity);
  Value result =
      linalg::ReduceOp::create(
          importer.builder(), value, init, axes,
          [&](OpBuilder &b, Location loc, ValueRange args) {
            Value combined;
            if (combiner == Combiner::Add)
              combined = isFloat ? Value(arith::AddFOp::create(b, loc, args[0],
                                                               args[1]))
                                 : Value(arith::AddIOp::create(b, loc, args[0],
                                                               args[1]));
            else
              combined = isFloat ? Value(arith::MaximumFOp::create(
                                       b, loc, args[0], args[1]))
                                 : Value(arith::MaxSIOp::create(
                                       b, loc, args[0], args[1]));
            linalg::YieldOp::create(b, loc, combined);
          })
          ->getResult(0);
  return importer.withShape(result, reducedShape);
}

/// `reduced` (`shape` without `axes`) reshaped to `shape` with 1 at `axes`.
static Value keepDims(Importer &importer, Value reduced,
                      ArrayRef<SymbolicSize> shape, ArrayRef<int64_t> axes) {
  SymbolicShape kept(shape.begin(), shape.end());
  for (int64_t axis : axes)
    kept[axis] = SymbolicSize(1);
  return importer.reshape(reduced, kept);
}

/// The sorted, distinct axes that a Reduce* node reduces input 0 of `rank`
/// over: its `axes` attribute or, where `axesInput` (ReduceSum from opset
/// 13), its input 1 (which must be known at import); all of them when there
/// are none, or none with noop_with_empty_axes.
static FailureOr<SmallVector<int64_t>>
getReduceAxes(Importer &importer, const onnx::NodeProto &node, int64_t rank,
              bool axesInput) {
  SmallVector<int64_t> axes;
  if (axesInput) {
    FailureOr<std::optional<SmallVector<int64_t>>> given =
        importer.getIntsInputOrAttribute(node, 1, "axes", 13);
    if (failed(given))
      return failure();
    if (*given)
      axes = **given;
  } else {
    if (std::optional<SmallVector<int64_t>> attr = getIntsAttr(node, "axes"))
      axes = *attr;
  }
  if (axes.empty()) {
    if (axesInput && importer.getOpset() >= 13 &&
        getIntAttr(node, "noop_with_empty_axes", 0) != 0)
      return axes;
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  for (int64_t &axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(importer, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

//===----------------------------------------------------------------------===//
// ReduceMean, GlobalAveragePool, ReduceSum, ReduceMax
//===----------------------------------------------------------------------===//

/// The mean of input 0 (of `type`) over the sorted `axes`.
static LogicalResult importMean(Importer &importer,
                                const onnx::NodeProto &node,
                                RankedTensorType inputType,
                                ArrayRef<int64_t> axes, bool keepDimensions) {
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  SymbolicShape shape = importer.shapeOf(*value);
  SymbolicSize count(1);
  for (int64_t axis : axes)
    count = count * shape[axis];
  if (count == SymbolicSize(0))
    return importer.emitError() << "ReduceMean over an empty dimension";
  ImplicitLocOpBuilder &b = importer.builder();
  Type elementType = inputType.getElementType();
  Value sum = reduce(importer, *value, axes, Combiner::Add);
  SymbolicShape reducedShape = importer.shapeOf(sum);
  Value divisor;
  if (std::optional<int64_t> n = count.getConstant()) {
    divisor = importer.splat(reducedShape, elementType, static_cast<double>(*n));
  } else {
    // The mean over dimensions of dynamic size divides by their product.
    Value total = arith::SIToFPOp::create(
        b, elementType,
        arith::IndexCastOp::create(b, b.getI64Type(),
                                   importer.materialize(count)));
    divisor = importer.withShape(
        linalg::FillOp::create(b, total,
                               importer.empty(reducedShape, elementType))
            ->getResult(0),
        reducedShape);
  }
  Value mean =
      importer.withShape(arith::DivFOp::create(b, sum, divisor), reducedShape);
  if (keepDimensions)
    mean = keepDims(importer, mean, shape, axes);
  return importer.setValue(node, 0, mean);
}

static LogicalResult importReduceMean(Importer &importer,
                                      const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  FailureOr<SmallVector<int64_t>> axes =
      getReduceAxes(importer, node, type->getRank(), /*axesInput=*/false);
  if (failed(axes))
    return failure();
  return importMean(importer, node, *type, *axes,
                    getIntAttr(node, "keepdims", 1) != 0);
}

/// GlobalAveragePool: the mean over the spatial dimensions, kept as 1s.
static LogicalResult importGlobalAveragePool(Importer &importer,
                                             const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  if (type->getRank() < 3)
    return importer.emitError()
           << "GlobalAveragePool needs [N, C, spatial...], found " << *type;
  return importMean(importer, node, *type,
                    llvm::to_vector(llvm::seq<int64_t>(2, type->getRank())),
                    /*keepDimensions=*/true);
}

/// ReduceSum (its axes an input from opset 13) and ReduceMax (an attribute
/// up to opset 17), of floats or integers.
static LogicalResult importReduce(Importer &importer,
                                  const onnx::NodeProto &node,
                                  Combiner combiner, bool axesInput) {
  FailureOr<RankedTensorType> type = getNumericType(importer, node, 0);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(type) || failed(value))
    return failure();
  FailureOr<SmallVector<int64_t>> axes =
      getReduceAxes(importer, node, type->getRank(), axesInput);
  if (failed(axes))
    return failure();
  if (axes->empty())
    return importer.setValue(node, 0, *value);
  SymbolicShape shape = importer.shapeOf(*value);
  for (int64_t axis : *axes)
    if (combiner == Combiner::Max && shape[axis] == SymbolicSize(0))
      return importer.emitError()
             << node.op_type() << " over an empty dimension";
  Value result = reduce(importer, *value, *axes, combiner);
  if (getIntAttr(node, "keepdims", 1) != 0)
    result = keepDims(importer, result, shape, *axes);
  return importer.setValue(node, 0, result);
}

//===----------------------------------------------------------------------===//
// LayerNormalization, decomposed
//===----------------------------------------------------------------------===//

LogicalResult mlir::tfm::onnx_import::importDecomposedLayerNormalization(
    Importer &importer, const onnx::NodeProto &node, int64_t axis) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  FailureOr<Value> input = importer.getValue(node, 0);
  FailureOr<Value> scale = importer.getValue(node, 1);
  if (failed(type) || failed(input) || failed(scale))
    return failure();
  Value bias;
  if (Importer::hasInput(node, 2)) {
    FailureOr<Value> value = importer.getValue(node, 2);
    if (failed(value))
      return failure();
    bias = *value;
  }
  // The statistics in float32 (stash_type 1, the only one ONNX defines).
  if (getIntAttr(node, "stash_type", 1) != 1)
    return importer.emitError()
           << "unsupported LayerNormalization stash_type "
           << getIntAttr(node, "stash_type", 1);
  ImplicitLocOpBuilder &b = importer.builder();
  Type f32 = b.getF32Type();
  SymbolicShape shape = importer.shapeOf(*input);
  auto toF32 = [&](Value value) -> Value {
    auto valueType = cast<RankedTensorType>(value.getType());
    if (valueType.getElementType() == f32)
      return value;
    return importer.withShape(
        arith::ExtFOp::create(b, valueType.clone(f32), value),
        importer.shapeOf(value));
  };
  Value x = toF32(*input);
  SmallVector<int64_t> axes =
      llvm::to_vector(llvm::seq<int64_t>(axis, type->getRank()));
  SymbolicSize count(1);
  for (int64_t a : axes)
    count = count * shape[a];
  std::optional<int64_t> n = count.getConstant();
  if (!n || *n == 0)
    return importer.emitError()
           << "unsupported LayerNormalization over "
           << (n ? "no elements" : "dimensions of dynamic size");
  auto perRow = [&](Value reduced) {
    return importer.broadcastTo(keepDims(importer, reduced, shape, axes),
                                shape);
  };
  auto divideByCount = [&](Value sum) {
    SymbolicShape reducedShape = importer.shapeOf(sum);
    return importer.withShape(
        arith::DivFOp::create(
            b, sum, importer.splat(reducedShape, f32, static_cast<double>(*n))),
        reducedShape);
  };
  Value mean = divideByCount(reduce(importer, x, axes, Combiner::Add));
  Value centered =
      importer.withShape(arith::SubFOp::create(b, x, perRow(mean)), shape);
  Value squares = importer.withShape(
      arith::MulFOp::create(b, centered, centered), shape);
  Value variance = divideByCount(reduce(importer, squares, axes, Combiner::Add));
  SymbolicShape reducedShape = importer.shapeOf(variance);
  double epsilon = getFloatAttr(node, "epsilon", 1e-5f);
  Value invStdDev = importer.withShape(
      arith::DivFOp::create(
          b, importer.splat(reducedShape, f32, 1.0),
          math::SqrtOp::create(
              b, arith::AddFOp::create(
                     b, variance,
                     importer.splat(reducedShape, f32, epsilon)))),
      reducedShape);
  Value y = importer.withShape(
      arith::MulFOp::create(b, centered, perRow(invStdDev)), shape);
  y = importer.withShape(
      arith::MulFOp::create(b, y, importer.broadcastTo(toF32(*scale), shape)),
      shape);
  if (bias)
    y = importer.withShape(
        arith::AddFOp::create(b, y, importer.broadcastTo(toF32(bias), shape)),
        shape);
  if (type->getElementType() != f32)
    y = importer.withShape(
        arith::TruncFOp::create(b, type->clone(type->getElementType()), y),
        shape);
  if (failed(importer.setValue(node, 0, y)))
    return failure();
  if (node.output_size() > 1 && !node.output(1).empty() &&
      failed(importer.setValue(node, 1, keepDims(importer, mean, shape, axes))))
    return failure();
  if (node.output_size() > 2 && !node.output(2).empty() &&
      failed(importer.setValue(node, 2,
                               keepDims(importer, invStdDev, shape, axes))))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ArgMax
//===----------------------------------------------------------------------===//

/// ArgMax: the int64 position of the largest element along `axis`, the
/// first of equal ones (the last with select_last_index); a NaN counts as
/// larger than any number, as in NumPy.
static LogicalResult importArgMax(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getNumericType(importer, node, 0);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(type) || failed(value))
    return failure();
  Type elementType = type->getElementType();
  int64_t rank = type->getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(importer, getIntAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  bool selectLast = getIntAttr(node, "select_last_index", 0) != 0;
  SymbolicShape shape = importer.shapeOf(*value), reducedShape;
  for (int64_t i = 0; i < rank; ++i)
    if (i != *axis)
      reducedShape.push_back(shape[i]);
  if (shape[*axis] == SymbolicSize(0))
    return importer.emitError() << "ArgMax over an empty dimension";

  ImplicitLocOpBuilder &b = importer.builder();
  Type indexType = b.getI64Type();
  bool isFloat = isa<FloatType>(elementType);
  Value maxInit =
      importer.splat(reducedShape, elementType, getLowest(elementType));
  Value indexInit = importer.splat(reducedShape, indexType, 0);
  MLIRContext *ctx = importer.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap reduced = identity.dropResult(*axis);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[*axis] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, TypeRange{maxInit.getType(), indexInit.getType()}, ValueRange{*value},
      ValueRange{maxInit, indexInit},
      ArrayRef<AffineMap>{identity, reduced, reduced}, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value x = args[0], best = args[1], bestIndex = args[2];
        Value position = arith::IndexCastOp::create(
            nested, loc, indexType,
            linalg::IndexOp::create(nested, loc, *axis));
        Value better;
        if (isFloat) {
          better = arith::CmpFOp::create(nested, loc,
                                         selectLast ? arith::CmpFPredicate::OGE
                                                    : arith::CmpFPredicate::OGT,
                                         x, best);
          // A NaN replaces a number (and, with select_last_index, a NaN).
          Value xIsNaN = arith::CmpFOp::create(
              nested, loc, arith::CmpFPredicate::UNO, x, x);
          Value takesNaN = xIsNaN;
          if (!selectLast) {
            Value bestIsNumber = arith::CmpFOp::create(
                nested, loc, arith::CmpFPredicate::ORD, best, best);
            takesNaN = arith::AndIOp::create(nested, loc, xIsNaN, bestIsNumber);
          }
          better = arith::OrIOp::create(nested, loc, better, takesNaN);
        } else {
          better = arith::CmpIOp::create(nested, loc,
                                         selectLast ? arith::CmpIPredicate::sge
                                                    : arith::CmpIPredicate::sgt,
                                         x, best);
        }
        Value newBest = arith::SelectOp::create(nested, loc, better, x, best);
        Value newIndex =
            arith::SelectOp::create(nested, loc, better, position, bestIndex);
        linalg::YieldOp::create(nested, loc, ValueRange{newBest, newIndex});
      });
  Value result = importer.withShape(generic->getResult(1), reducedShape);
  if (getIntAttr(node, "keepdims", 1) != 0)
    result = keepDims(importer, result, shape, {*axis});
  return importer.setValue(node, 0, result);
}

//===----------------------------------------------------------------------===//
// CumSum
//===----------------------------------------------------------------------===//

/// CumSum along the axis of input 1 (known at import): element i of the
/// result sums the elements j <= i (j < i when `exclusive`; j >= i or
/// j > i when `reverse`), as a linalg.generic with a reduction loop over j
/// that adds each element in order of j, or 0 where j is not summed.
static LogicalResult importCumSum(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getNumericType(importer, node, 0);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(type) || failed(value))
    return failure();
  Type elementType = type->getElementType();
  FailureOr<SmallVector<int64_t>> axisInts = importer.getInts(node, 1, "axis");
  if (failed(axisInts))
    return failure();
  if (axisInts->size() != 1)
    return importer.emitError() << "CumSum's axis must be one integer, found "
                                << axisInts->size();
  int64_t rank = type->getRank();
  FailureOr<int64_t> axis = normalizeAxis(importer, axisInts->front(), rank);
  if (failed(axis))
    return failure();
  bool exclusive = getIntAttr(node, "exclusive", 0) != 0;
  bool reverse = getIntAttr(node, "reverse", 0) != 0;
  arith::CmpIPredicate summed =
      reverse ? (exclusive ? arith::CmpIPredicate::sgt
                           : arith::CmpIPredicate::sge)
              : (exclusive ? arith::CmpIPredicate::slt
                           : arith::CmpIPredicate::sle);

  ImplicitLocOpBuilder &b = importer.builder();
  MLIRContext *ctx = importer.getContext();
  SymbolicShape shape = importer.shapeOf(*value);
  Value init = importer.splat(shape, elementType, 0);
  // Loops: the result's, then j (loop `rank`) along the axis of the input.
  AffineMap output = AffineMap::getMultiDimIdentityMap(rank + 1, ctx)
                         .dropResult(rank);
  SmallVector<AffineExpr> inputExprs(output.getResults());
  inputExprs[*axis] = getAffineDimExpr(rank, ctx);
  AffineMap input = AffineMap::get(rank + 1, 0, inputExprs, ctx);
  SmallVector<utils::IteratorType> iterators(rank + 1,
                                             utils::IteratorType::parallel);
  iterators[rank] = utils::IteratorType::reduction;
  bool isFloat = isa<FloatType>(elementType);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{init.getType()}, ValueRange{*value}, ValueRange{init},
      ArrayRef<AffineMap>{input, output}, iterators,
      [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value i = linalg::IndexOp::create(nested, loc, *axis);
        Value j = linalg::IndexOp::create(nested, loc, rank);
        Value isSummed = arith::CmpIOp::create(nested, loc, summed, j, i);
        Value zero = arith::ConstantOp::create(
            nested, loc, elementType, nested.getZeroAttr(elementType));
        Value term =
            arith::SelectOp::create(nested, loc, isSummed, args[0], zero);
        Value sum = isFloat ? Value(arith::AddFOp::create(nested, loc, args[1],
                                                          term))
                            : Value(arith::AddIOp::create(nested, loc, args[1],
                                                          term));
        linalg::YieldOp::create(nested, loc, sum);
      });
  return importer.setValue(node, 0,
                           importer.withShape(generic->getResult(0), shape));
}

//===----------------------------------------------------------------------===//
// Softmax, LogSoftmax
//===----------------------------------------------------------------------===//

/// The axis that a Softmax or LogSoftmax normalizes input 0 (of `type`)
/// over. Before opset 13 both coerced their input to 2-D at `axis`
/// (default 1) and normalized each row: over one axis only where that is
/// the last, the one case imported there.
static FailureOr<int64_t> getSoftmaxAxis(Importer &importer,
                                         const onnx::NodeProto &node,
                                         RankedTensorType type) {
  bool coerced = importer.getOpset() < 13;
  FailureOr<int64_t> axis = normalizeAxis(
      importer, getIntAttr(node, "axis", coerced ? 1 : -1), type.getRank());
  if (succeeded(axis) && coerced && *axis != type.getRank() - 1)
    return importer.emitError()
           << "unsupported at opset " << importer.getOpset() << ": before "
           << "opset 13 " << node.op_type()
           << " normalizes over all the axes from 'axis' (" << *axis
           << ") on; tfm imports it there only over the last axis";
  return axis;
}

static LogicalResult importSoftmax(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  FailureOr<int64_t> axis = getSoftmaxAxis(importer, node, *type);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(axis) || failed(value))
    return failure();
  SymbolicShape shape = importer.shapeOf(*value);
  Value init = importer.empty(shape, type->getElementType());
  return importer.setValue(
      node, 0,
      importer.withShape(
          linalg::SoftmaxOp::create(importer.builder(), TypeRange{*type},
                                    *value, init, *axis)
              ->getResult(0),
          shape));
}

/// LogSoftmax: (x - max) - log(sum(exp(x - max))) along the axis, which
/// stays finite where softmax itself underflows to 0.
static LogicalResult importLogSoftmax(Importer &importer,
                                      const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  FailureOr<int64_t> axis = getSoftmaxAxis(importer, node, *type);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(axis) || failed(value))
    return failure();
  ImplicitLocOpBuilder &b = importer.builder();
  SymbolicShape shape = importer.shapeOf(*value);
  auto broadcast = [&](Value reduced) {
    return importer.broadcastTo(keepDims(importer, reduced, shape, {*axis}),
                                shape);
  };
  Value max = reduce(importer, *value, {*axis}, Combiner::Max);
  Value shifted = importer.withShape(
      arith::SubFOp::create(b, *value, broadcast(max)), shape);
  Value exp = importer.withShape(math::ExpOp::create(b, shifted), shape);
  Value sum = reduce(importer, exp, {*axis}, Combiner::Add);
  Value log =
      importer.withShape(math::LogOp::create(b, sum), importer.shapeOf(sum));
  return importer.setValue(
      node, 0,
      importer.withShape(arith::SubFOp::create(b, shifted, broadcast(log)),
                         shape));
}

void mlir::tfm::onnx_import::addReduceHandlers(HandlerTable &table) {
  table["ReduceMean"] = importReduceMean;
  table["GlobalAveragePool"] = importGlobalAveragePool;
  table["ReduceSum"] = [](Importer &importer, const onnx::NodeProto &node) {
    return importReduce(importer, node, Combiner::Add, /*axesInput=*/true);
  };
  table["ReduceMax"] = [](Importer &importer, const onnx::NodeProto &node) {
    return importReduce(importer, node, Combiner::Max, /*axesInput=*/false);
  };
  table["ArgMax"] = importArgMax;
  table["CumSum"] = importCumSum;
  table["Softmax"] = importSoftmax;
  table["LogSoftmax"] = importLogSoftmax;
}
