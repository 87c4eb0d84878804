//===- ShapeOps.cpp - ONNX shape, slicing and constant ops ----------------===//
//
// Shape, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Split,
// Gather, Concat, Expand, Constant, ConstantOfShape, Range and Trilu. Each
// evaluates on literals (so that exported shape subgraphs fold to constants)
// and otherwise emits tensor and linalg ops with static shapes.
//
// Over 700 lines because each op has two halves (evaluation on literals and
// emission) that share its checks; splitting by op would put one small op
// in each file.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm::onnx_import;

/// The number of elements of `shape`.
static int64_t product(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

/// A literal of `shape` whose element at each output position is the
/// element of `source` at the flat index `sourceIndex(coordinates)`.
static Literal
remap(const Literal &source, ArrayRef<int64_t> shape,
      llvm::function_ref<int64_t(ArrayRef<int64_t>)> sourceIndex) {
  Literal result = Literal::empty(shape, source.elementType);
  SmallVector<int64_t> coordinates(shape.size(), 0);
  for (int64_t i = 0, n = product(shape); i < n; ++i) {
    int64_t rest = i;
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      coordinates[d] = rest % shape[d];
      rest /= shape[d];
    }
    result.push(source, sourceIndex(coordinates));
  }
  return result;
}

/// Defines output 0 as `value` reshaped to `shape`, or as the reshaped
/// literal when the input is one.
static LogicalResult defineReshaped(Importer &importer,
                                    const onnx::NodeProto &node,
                                    ArrayRef<int64_t> shape) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  if (product(shape) != type->getNumElements())
    return importer.emitError()
           << "cannot reshape " << *type << " to [" << shape << "]";
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    literal->shape.assign(shape.begin(), shape.end());
    return importer.setLiteral(node, 0, *literal);
  }
  if (type->getNumElements() == 0)
    return importer.emitError() << "empty tensors are not supported";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, importer.reshape(*value, shape));
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

static LogicalResult importConstant(Importer &importer,
                                    const onnx::NodeProto &node) {
  ImplicitLocOpBuilder &b = importer.builder();
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "value") {
      FailureOr<DenseElementsAttr> value = importer.convertTensor(attr.t());
      if (failed(value))
        return failure();
      return importer.setConstant(node, 0, *value);
    }
    // The scalar and list forms: an f32 or i64 tensor of rank 0 or 1.
    auto setValues = [&](auto values, Type elementType, bool scalar) {
      SmallVector<int64_t, 1> shape;
      if (!scalar)
        shape.push_back(static_cast<int64_t>(values.size()));
      return importer.setConstant(
          node, 0,
          DenseElementsAttr::get(RankedTensorType::get(shape, elementType),
                                 ArrayRef(values)));
    };
    if (attr.name() == "value_float")
      return setValues(SmallVector<float>{attr.f()}, b.getF32Type(), true);
    if (attr.name() == "value_int")
      return setValues(SmallVector<int64_t>{attr.i()}, b.getI64Type(), true);
    if (attr.name() == "value_floats")
      return setValues(SmallVector<float>(attr.floats().begin(),
                                          attr.floats().end()),
                       b.getF32Type(), false);
    if (attr.name() == "value_ints")
      return setValues(SmallVector<int64_t>(attr.ints().begin(),
                                            attr.ints().end()),
                       b.getI64Type(), false);
  }
  return importer.emitError()
         << "unsupported Constant: expected a value, value_float(s) or "
            "value_int(s) attribute";
}

static LogicalResult importConstantOfShape(Importer &importer,
                                           const onnx::NodeProto &node) {
  FailureOr<SmallVector<int64_t>> shape = importer.getInts(node, 0, "shape");
  if (failed(shape))
    return failure();
  for (int64_t dim : *shape)
    if (dim < 0 || dim > (int64_t(1) << 24))
      return importer.emitError()
             << "ConstantOfShape has an invalid shape [" << *shape << "]";
  if (product(*shape) > (int64_t(1) << 26))
    return importer.emitError()
           << "ConstantOfShape of [" << *shape << "] is too large";
  ImplicitLocOpBuilder &b = importer.builder();
  Attribute element = b.getF32FloatAttr(0);
  if (const onnx::AttributeProto *attr = getAttr(node, "value")) {
    FailureOr<DenseElementsAttr> value = importer.convertTensor(attr->t());
    if (failed(value))
      return failure();
    if (value->getNumElements() != 1)
      return importer.emitError()
             << "ConstantOfShape's value must have one element, found "
             << value->getType();
    element = value->getSplatValue<Attribute>();
  }
  auto type = RankedTensorType::get(*shape, cast<TypedAttr>(element).getType());
  return importer.setConstant(node, 0, DenseElementsAttr::get(type, element));
}

static LogicalResult importRange(Importer &importer,
                                 const onnx::NodeProto &node) {
  std::optional<Literal> start = importer.getLiteral(node, 0);
  std::optional<Literal> limit = importer.getLiteral(node, 1);
  std::optional<Literal> delta = importer.getLiteral(node, 2);
  if (!start || !limit || !delta)
    return importer.emitError() << "Range needs constant start, limit and "
                                   "delta; tfm imports static shapes only";
  if (start->size() != 1 || limit->size() != 1 || delta->size() != 1)
    return importer.emitError() << "Range's inputs must be scalars";
  double first = start->getDouble(0), step = delta->getDouble(0);
  if (step == 0)
    return importer.emitError() << "Range's delta is 0";
  double count = std::ceil((limit->getDouble(0) - first) / step);
  if (!(count <= (1 << 24)))
    return importer.emitError() << "Range is too long";
  int64_t n = std::max<int64_t>(0, static_cast<int64_t>(count));
  Literal result = Literal::empty({n}, start->elementType);
  for (int64_t i = 0; i < n; ++i)
    result.pushDouble(first + i * step);
  return importer.setLiteral(node, 0, result);
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

static LogicalResult importShape(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  auto clamp = [&](int64_t axis) {
    if (axis < 0)
      axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  int64_t start = clamp(getIntAttr(node, "start", 0));
  int64_t end = clamp(getIntAttr(node, "end", rank));
  Literal result = Literal::empty({std::max<int64_t>(end - start, 0)},
                                  importer.builder().getI64Type());
  for (int64_t i = start; i < end; ++i)
    result.ints.push_back(type->getDimSize(i));
  return importer.setLiteral(node, 0, result);
}

static LogicalResult importReshape(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> shape = importer.getInts(node, 1, "shape");
  if (failed(type) || failed(shape))
    return failure();
  bool allowZero = getIntAttr(node, "allowzero", 0) != 0;
  int64_t inferred = -1, known = 1;
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    if (dim == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= type->getRank())
        return importer.emitError()
               << "Reshape copies dimension " << i << " of " << *type;
      dim = type->getDimSize(i);
    }
    if (dim == -1) {
      if (inferred >= 0)
        return importer.emitError() << "Reshape infers two dimensions";
      inferred = i;
      continue;
    }
    if (dim < 0)
      return importer.emitError() << "Reshape to a negative dimension";
    known *= dim;
    if (known > type->getNumElements() && type->getNumElements() > 0)
      break;
  }
  if (inferred >= 0) {
    if (known == 0 || type->getNumElements() % known != 0)
      return importer.emitError()
             << "cannot reshape " << *type << " to [" << *shape << "]";
    (*shape)[inferred] = type->getNumElements() / known;
  }
  return defineReshaped(importer, node, *shape);
}

static LogicalResult importFlatten(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  int64_t axis = getIntAttr(node, "axis", 1);
  if (axis < -rank || axis > rank)
    return importer.emitError()
           << "axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;
  int64_t outer = product(type->getShape().take_front(axis));
  return defineReshaped(
      importer, node,
      {outer, type->getNumElements() / std::max<int64_t>(outer, 1)});
}

/// The axes of Squeeze and Unsqueeze: input 1 (opset 13).
static FailureOr<SmallVector<int64_t>>
getAxes(Importer &importer, const onnx::NodeProto &node, int64_t rank) {
  FailureOr<SmallVector<int64_t>> axes = importer.getInts(node, 1, "axes");
  if (failed(axes))
    return failure();
  for (int64_t &axis : *axes) {
    FailureOr<int64_t> normalized = normalizeAxis(importer, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(*axes);
  if (std::adjacent_find(axes->begin(), axes->end()) != axes->end())
    return importer.emitError() << "repeated axis";
  return axes;
}

static LogicalResult importSqueeze(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  SmallVector<int64_t> shape;
  if (!Importer::hasInput(node, 1)) {
    for (int64_t dim : type->getShape())
      if (dim != 1)
        shape.push_back(dim);
    return defineReshaped(importer, node, shape);
  }
  FailureOr<SmallVector<int64_t>> axes =
      getAxes(importer, node, type->getRank());
  if (failed(axes))
    return failure();
  for (int64_t i = 0, e = type->getRank(); i < e; ++i) {
    if (!llvm::is_contained(*axes, i)) {
      shape.push_back(type->getDimSize(i));
      continue;
    }
    if (type->getDimSize(i) != 1)
      return importer.emitError() << "Squeeze of dimension " << i << " of "
                                  << *type << ", which is not 1";
  }
  return defineReshaped(importer, node, shape);
}

static LogicalResult importUnsqueeze(Importer &importer,
                                     const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> axesInput = importer.getInts(node, 1, "axes");
  if (failed(type) || failed(axesInput))
    return failure();
  int64_t rank = type->getRank() + axesInput->size();
  FailureOr<SmallVector<int64_t>> axes = getAxes(importer, node, rank);
  if (failed(axes))
    return failure();
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> rest = type->getShape();
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(*axes, i)) {
      shape.push_back(1);
    } else {
      shape.push_back(rest.front());
      rest = rest.drop_front();
    }
  }
  return defineReshaped(importer, node, shape);
}

static LogicalResult importTranspose(Importer &importer,
                                     const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> perm;
  if (std::optional<SmallVector<int64_t>> attr = getIntsAttr(node, "perm"))
    perm = *attr;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  SmallVector<int64_t> sorted(perm);
  llvm::sort(sorted);
  if (static_cast<int64_t>(perm.size()) != rank ||
      sorted != llvm::to_vector(llvm::seq<int64_t>(0, rank)))
    return importer.emitError()
           << "Transpose's perm [" << perm << "] is not a permutation of the "
           << rank << " dimensions of " << *type;
  SmallVector<int64_t> shape;
  for (int64_t axis : perm)
    shape.push_back(type->getDimSize(axis));
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    SmallVector<int64_t> strides = getStrides(literal->shape);
    return importer.setLiteral(
        node, 0, remap(*literal, shape, [&](ArrayRef<int64_t> coords) {
          int64_t index = 0;
          for (auto [d, axis] : llvm::enumerate(perm))
            index += coords[d] * strides[axis];
          return index;
        }));
  }
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  auto resultType = type->clone(shape);
  return importer.setValue(
      node, 0,
      linalg::TransposeOp::create(importer.builder(), *value,
                                  importer.empty(resultType), perm)
          ->getResult(0));
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

/// Extracts `[offset, offset + size)` with `stride` along each dimension.
static Value extractSlice(Importer &importer, Value value,
                          ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
                          ArrayRef<int64_t> strides) {
  ImplicitLocOpBuilder &b = importer.builder();
  auto toFold = [&](ArrayRef<int64_t> values) {
    return llvm::map_to_vector(
        values, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
  };
  auto type = cast<RankedTensorType>(value.getType());
  return tensor::ExtractSliceOp::create(b, type.clone(sizes), value,
                                        toFold(offsets), toFold(sizes),
                                        toFold(strides));
}

/// Slices `literal` with per-dimension offsets, sizes and (possibly
/// negative) steps.
static Literal sliceLiteral(const Literal &literal, ArrayRef<int64_t> offsets,
                            ArrayRef<int64_t> sizes, ArrayRef<int64_t> steps) {
  SmallVector<int64_t> strides = getStrides(literal.shape);
  return remap(literal, sizes, [&](ArrayRef<int64_t> coords) {
    int64_t index = 0;
    for (size_t d = 0; d < coords.size(); ++d)
      index += (offsets[d] + coords[d] * steps[d]) * strides[d];
    return index;
  });
}

static LogicalResult importSlice(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> starts = importer.getInts(node, 1, "starts");
  FailureOr<SmallVector<int64_t>> ends = importer.getInts(node, 2, "ends");
  if (failed(type) || failed(starts) || failed(ends))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> axes, steps;
  if (Importer::hasInput(node, 3)) {
    FailureOr<SmallVector<int64_t>> values = importer.getInts(node, 3, "axes");
    if (failed(values))
      return failure();
    axes = *values;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  }
  if (Importer::hasInput(node, 4)) {
    FailureOr<SmallVector<int64_t>> values = importer.getInts(node, 4, "steps");
    if (failed(values))
      return failure();
    steps = *values;
  } else {
    steps.assign(starts->size(), 1);
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return importer.emitError()
           << "Slice's starts, ends, axes and steps differ in length";

  SmallVector<int64_t> offsets(rank, 0), sizes(type->getShape()),
      strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    FailureOr<int64_t> axis = normalizeAxis(importer, axes[k], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return importer.emitError() << "Slice repeats axis " << *axis;
    seen[*axis] = true;
    int64_t dim = type->getDimSize(*axis), step = steps[k];
    if (step == 0)
      return importer.emitError() << "Slice has a step of 0";
    auto clampIndex = [&](int64_t index, int64_t low, int64_t high) {
      if (index < 0)
        index = index < -dim ? low : index + dim;
      return std::clamp(index, low, high);
    };
    int64_t start, end, size;
    if (step > 0) {
      start = clampIndex((*starts)[k], 0, dim);
      end = clampIndex((*ends)[k], 0, dim);
      size = end > start ? (end - start + step - 1) / step : 0;
    } else {
      start = clampIndex((*starts)[k], 0, dim - 1);
      end = (*ends)[k] < -dim ? -1 : clampIndex((*ends)[k], -1, dim - 1);
      size = start > end ? (start - end - step - 1) / -step : 0;
    }
    offsets[*axis] = start;
    sizes[*axis] = size;
    strides[*axis] = step;
  }
  if (std::optional<Literal> literal = importer.getLiteral(node, 0))
    return importer.setLiteral(node, 0,
                               sliceLiteral(*literal, offsets, sizes, strides));
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return importer.emitError()
           << "unsupported Slice with a negative step on a computed tensor";
  if (product(sizes) == 0)
    return importer.emitError() << "empty tensors are not supported";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(
      node, 0, extractSlice(importer, *value, offsets, sizes, strides));
}

static LogicalResult importSplit(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(importer, getIntAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  int64_t dim = type->getDimSize(*axis);
  int64_t outputs = node.output_size();
  SmallVector<int64_t> splits;
  if (Importer::hasInput(node, 1)) {
    FailureOr<SmallVector<int64_t>> values = importer.getInts(node, 1, "split");
    if (failed(values))
      return failure();
    splits = *values;
  } else {
    if (outputs == 0)
      return importer.emitError() << "Split has no outputs";
    int64_t chunk = (dim + outputs - 1) / outputs;
    for (int64_t i = 0, left = dim; i < outputs; ++i, left -= chunk)
      splits.push_back(std::clamp<int64_t>(left, 0, chunk));
  }
  if (static_cast<int64_t>(splits.size()) != outputs ||
      llvm::any_of(splits, [](int64_t s) { return s < 0; }) ||
      std::accumulate(splits.begin(), splits.end(), int64_t(0)) != dim)
    return importer.emitError()
           << "Split sizes [" << splits << "] do not split dimension " << *axis
           << " of " << *type << " into " << outputs << " outputs";
  std::optional<Literal> literal = importer.getLiteral(node, 0);
  FailureOr<Value> value = failure();
  if (!literal) {
    value = importer.getValue(node, 0);
    if (failed(value))
      return failure();
  }
  SmallVector<int64_t> offsets(rank, 0), sizes(type->getShape()),
      strides(rank, 1);
  for (int64_t i = 0; i < outputs; ++i) {
    sizes[*axis] = splits[i];
    if (literal) {
      if (failed(importer.setLiteral(
              node, i, sliceLiteral(*literal, offsets, sizes, strides))))
        return failure();
    } else {
      if (splits[i] == 0)
        return importer.emitError() << "empty tensors are not supported";
      if (failed(importer.setValue(
              node, i,
              extractSlice(importer, *value, offsets, sizes, strides))))
        return failure();
    }
    offsets[*axis] += splits[i];
  }
  return success();
}

static LogicalResult importConcat(Importer &importer,
                                  const onnx::NodeProto &node) {
  int n = Importer::numInputs(node);
  if (n == 0)
    return importer.emitError() << "Concat has no inputs";
  FailureOr<RankedTensorType> first = importer.getType(node, 0);
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(importer, getIntAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  shape[*axis] = 0;
  for (int i = 0; i < n; ++i) {
    FailureOr<RankedTensorType> type = importer.getType(node, i);
    if (failed(type))
      return failure();
    bool compatible = type->getRank() == rank &&
                      type->getElementType() == first->getElementType();
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible = d == *axis || type->getDimSize(d) == shape[d];
    if (!compatible)
      return importer.emitError() << "Concat of " << *first << " and " << *type
                                  << " along axis " << *axis;
    shape[*axis] += type->getDimSize(*axis);
  }
  if (importer.allLiterals(node)) {
    SmallVector<Literal> literals;
    for (int i = 0; i < n; ++i)
      literals.push_back(*importer.getLiteral(node, i));
    // Which input, and which index in it, each output position comes from.
    int64_t outer = product(ArrayRef<int64_t>(shape).take_front(*axis));
    int64_t inner = product(ArrayRef<int64_t>(shape).drop_front(*axis + 1));
    Literal result = Literal::empty(shape, first->getElementType());
    for (int64_t o = 0; o < outer; ++o)
      for (const Literal &literal : literals)
        for (int64_t k = 0, e = literal.shape[*axis] * inner; k < e; ++k)
          result.push(literal, o * e + k);
    return importer.setLiteral(node, 0, result);
  }
  SmallVector<Value> operands;
  for (int i = 0; i < n; ++i) {
    FailureOr<RankedTensorType> type = importer.getType(node, i);
    if (type->getDimSize(*axis) == 0)
      continue;
    FailureOr<Value> value = importer.getValue(node, i);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  if (operands.empty())
    return importer.emitError() << "empty tensors are not supported";
  if (operands.size() == 1)
    return importer.setValue(node, 0, operands.front());
  return importer.setValue(
      node, 0, tensor::ConcatOp::create(importer.builder(), *axis, operands));
}

static LogicalResult importGather(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<RankedTensorType> indicesType = importer.getType(node, 1);
  if (failed(type) || failed(indicesType))
    return failure();
  int64_t rank = type->getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(importer, getIntAttr(node, "axis", 0), rank);
  if (failed(axis))
    return failure();
  if (!isa<IntegerType>(indicesType->getElementType()))
    return importer.emitError()
           << "Gather's indices must be integers, found " << *indicesType;
  std::optional<Literal> indices = importer.getLiteral(node, 1);
  if (!indices) {
    // Token ids into an embedding table: nn.Embedding.
    if (*axis != 0 || rank != 2 || !isa<FloatType>(type->getElementType()) ||
        !isa<IntegerType>(indicesType->getElementType()) ||
        indicesType->getElementType().isInteger(1))
      return importer.emitError()
             << "unsupported Gather with computed indices other than rows "
                "of a float matrix (an embedding)";
    FailureOr<Value> table = importer.getValue(node, 0);
    FailureOr<Value> ids = importer.getValue(node, 1);
    if (failed(table) || failed(ids))
      return failure();
    return importer.setValue(
        node, 0,
        tfm::EmbeddingOp::create(importer.builder(), *ids, *table, UnitAttr()));
  }
  int64_t dim = type->getDimSize(*axis);
  for (int64_t &index : indices->ints) {
    if (index < -dim || index >= dim)
      return importer.emitError()
             << "Gather index " << index << " is out of range for dimension "
             << *axis << " of " << *type;
    if (index < 0)
      index += dim;
  }
  // data[:axis] + indices + data[axis+1:]
  SmallVector<int64_t> shape(type->getShape().take_front(*axis));
  llvm::append_range(shape, indices->shape);
  llvm::append_range(shape, type->getShape().drop_front(*axis + 1));
  int64_t inner = product(type->getShape().drop_front(*axis + 1));
  int64_t count = indices->size();

  std::optional<Literal> literal = importer.getLiteral(node, 0);
  if (literal && product(shape) <= kMaxLiteralElements) {
    return importer.setLiteral(
        node, 0, remap(*literal, shape, [&](ArrayRef<int64_t> coords) {
          int64_t outerIndex = 0, k = 0, innerIndex = 0;
          for (int64_t d = 0; d < *axis; ++d)
            outerIndex = outerIndex * type->getDimSize(d) + coords[d];
          for (int64_t d = 0, e = indices->shape.size(); d < e; ++d)
            k = k * indices->shape[d] + coords[*axis + d];
          for (int64_t d = *axis + indices->shape.size(), e = coords.size();
               d < e; ++d)
            innerIndex = innerIndex * shape[d] + coords[d];
          return (outerIndex * dim + indices->ints[k]) * inner + innerIndex;
        }));
  }
  if (count == 0 || product(shape) == 0)
    return importer.emitError() << "empty tensors are not supported";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  SmallVector<int64_t> offsets(rank, 0), sizes(type->getShape()),
      strides(rank, 1);
  sizes[*axis] = 1;
  SmallVector<Value> slices;
  for (int64_t index : indices->ints) {
    offsets[*axis] = index;
    slices.push_back(extractSlice(importer, *value, offsets, sizes, strides));
  }
  Value gathered =
      slices.size() == 1
          ? slices.front()
          : tensor::ConcatOp::create(importer.builder(), *axis, slices);
  return importer.setValue(node, 0, importer.reshape(gathered, shape));
}

static LogicalResult importExpand(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> target = importer.getInts(node, 1, "shape");
  if (failed(type) || failed(target))
    return failure();
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(type->getShape(), *target);
  if (!shape || llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
    return importer.emitError()
           << "cannot expand " << *type << " to [" << *target << "]";
  if (product(*shape) > (int64_t(1) << 28))
    return importer.emitError() << "Expand to [" << *shape << "] is too large";
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    if (product(*shape) <= kMaxLiteralElements) {
      SmallVector<int64_t> strides = getStrides(*shape);
      return importer.setLiteral(
          node, 0, remap(*literal, *shape, [&](ArrayRef<int64_t> coords) {
            int64_t index = 0;
            for (size_t d = 0; d < coords.size(); ++d)
              index += coords[d] * strides[d];
            return broadcastIndex(*shape, index, literal->shape);
          }));
    }
  }
  if (product(*shape) == 0)
    return importer.emitError() << "empty tensors are not supported";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, importer.broadcastTo(*value, *shape));
}

static LogicalResult importTrilu(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  if (type->getRank() < 2)
    return importer.emitError() << "Trilu needs a matrix, found " << *type;
  int64_t k = 0;
  if (Importer::hasInput(node, 1)) {
    FailureOr<SmallVector<int64_t>> values = importer.getInts(node, 1, "k");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return importer.emitError() << "Trilu's k must be a scalar";
    k = values->front();
  }
  bool upper = getIntAttr(node, "upper", 1) != 0;
  int64_t rows = type->getDimSize(type->getRank() - 2);
  int64_t cols = type->getDimSize(type->getRank() - 1);
  // Whether element (i, j) is kept.
  auto keep = [&](int64_t flat) {
    int64_t j = flat % cols, i = (flat / cols) % rows;
    return upper ? j - i >= k : j - i <= k;
  };
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    Literal result = Literal::empty(literal->shape, literal->elementType);
    for (int64_t i = 0, e = literal->size(); i < e; ++i) {
      if (keep(i))
        result.push(*literal, i);
      else
        result.pushDouble(0);
    }
    return importer.setLiteral(node, 0, result);
  }
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  ImplicitLocOpBuilder &b = importer.builder();
  SmallVector<bool> mask;
  for (int64_t i = 0, e = rows * cols; i < e; ++i)
    mask.push_back(keep(i));
  Value maskValue = importer.broadcastTo(
      importer.constant(DenseElementsAttr::get(
          RankedTensorType::get({rows, cols}, b.getI1Type()),
          ArrayRef<bool>(mask))),
      type->getShape());
  return importer.setValue(
      node, 0,
      arith::SelectOp::create(b, maskValue, *value, importer.splat(*type, 0)));
}

void mlir::tfm::onnx_import::addShapeHandlers(HandlerTable &table) {
  table["Constant"] = importConstant;
  table["ConstantOfShape"] = importConstantOfShape;
  table["Range"] = importRange;
  table["Shape"] = importShape;
  table["Reshape"] = importReshape;
  table["Flatten"] = importFlatten;
  table["Squeeze"] = importSqueeze;
  table["Unsqueeze"] = importUnsqueeze;
  table["Transpose"] = importTranspose;
  table["Slice"] = importSlice;
  table["Split"] = importSplit;
  table["Concat"] = importConcat;
  table["Gather"] = importGather;
  table["Expand"] = importExpand;
  table["Trilu"] = importTrilu;
}
