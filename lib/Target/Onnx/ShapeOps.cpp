//===- ShapeOps.cpp - ONNX shape, slicing and constant ops ----------------===//
//
// Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Slice, Split,
// Gather, Concat, Expand, Tile, Constant, ConstantOfShape, Range and Trilu.
// Each evaluates on literals (so that exported shape subgraphs fold to
// constants) and on symbolic sizes (the shapes of tensors with dynamic
// axes), and otherwise emits tensor and linalg ops, their dynamic sizes
// materialized from the symbolic ones.
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
                                    ArrayRef<SymbolicSize> shape) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  if (failed(from))
    return failure();
  if (productOf(*from) != productOf(shape))
    return importer.emitError() << "cannot reshape " << importer.str(*from)
                                << " to " << importer.str(shape);
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  bool isStatic = llvm::none_of(staticShape, ShapedType::isDynamic);
  if (std::optional<Literal> literal = importer.getLiteral(node, 0);
      literal && isStatic) {
    literal->shape.assign(staticShape.begin(), staticShape.end());
    return importer.setLiteral(node, 0, *literal);
  }
  if (importer.isSymbolic(node, 0) && isStatic && staticShape.size() <= 1) {
    SymbolicLiteral literal = *importer.getSymbolic(node, 0);
    literal.shape.assign(staticShape.begin(), staticShape.end());
    return importer.setSymbolic(node, 0, literal);
  }
  if (llvm::is_contained(shape, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
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

/// The element of ConstantOfShape: its `value` attribute, or 0.f.
static FailureOr<Attribute> getFillValue(Importer &importer,
                                         const onnx::NodeProto &node) {
  Attribute element = importer.builder().getF32FloatAttr(0);
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
  return element;
}

static LogicalResult importConstantOfShape(Importer &importer,
                                           const onnx::NodeProto &node) {
  if (importer.isSymbolic(node, 0)) {
    // A tensor of dynamic shape: filled at run time.
    FailureOr<SymbolicShape> shape = importer.getSizes(node, 0, "shape");
    FailureOr<Attribute> element = getFillValue(importer, node);
    if (failed(shape) || failed(element))
      return failure();
    Value scalar = arith::ConstantOp::create(importer.builder(),
                                             cast<TypedAttr>(*element));
    Value filled =
        linalg::FillOp::create(importer.builder(), scalar,
                               importer.empty(*shape, scalar.getType()))
            ->getResult(0);
    return importer.setValue(node, 0, importer.withShape(filled, *shape));
  }
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
  FailureOr<Attribute> element = getFillValue(importer, node);
  if (failed(element))
    return failure();
  auto type =
      RankedTensorType::get(*shape, cast<TypedAttr>(*element).getType());
  return importer.setConstant(node, 0, DenseElementsAttr::get(type, *element));
}

/// Range(0, n, 1) for a symbolic n: a linalg.generic writing its index.
static LogicalResult importSymbolicRange(Importer &importer,
                                         const onnx::NodeProto &node) {
  std::optional<SymbolicLiteral> start = importer.getSymbolic(node, 0);
  std::optional<SymbolicLiteral> limit = importer.getSymbolic(node, 1);
  std::optional<SymbolicLiteral> delta = importer.getSymbolic(node, 2);
  if (!start || !limit || !delta || start->elements.size() != 1 ||
      limit->elements.size() != 1 || delta->elements.size() != 1)
    return importer.emitError() << "Range needs scalar start, limit and "
                                   "delta known at import time";
  std::optional<int64_t> step = delta->elements[0].getConstant();
  if (!step || *step != 1)
    return importer.emitError()
           << "unsupported Range of dynamic length with a step other than 1";
  SymbolicSize first = start->elements[0];
  SymbolicShape shape{limit->elements[0] - first};
  ImplicitLocOpBuilder &b = importer.builder();
  Type elementType = start->elementType;
  Value init = importer.empty(shape, elementType);
  Value offset = importer.materialize(first);
  auto map = b.getMultiDimIdentityMap(1);
  Value range =
      linalg::GenericOp::create(
          b, init.getType(), ValueRange{}, ValueRange{init},
          ArrayRef<AffineMap>{map},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
          [&](OpBuilder &nested, Location loc, ValueRange) {
            Value index = linalg::IndexOp::create(nested, loc, 0);
            Value value = arith::AddIOp::create(nested, loc, index, offset);
            bool isFloat = isa<FloatType>(elementType);
            value = arith::IndexCastOp::create(
                nested, loc,
                isFloat ? nested.getI64Type() : elementType, value);
            if (isFloat)
              value = arith::SIToFPOp::create(nested, loc, elementType, value);
            linalg::YieldOp::create(nested, loc, value);
          })
          ->getResult(0);
  return importer.setValue(node, 0, importer.withShape(range, shape));
}

static LogicalResult importRange(Importer &importer,
                                 const onnx::NodeProto &node) {
  if (importer.isSymbolic(node, 0) || importer.isSymbolic(node, 1))
    return importSymbolicRange(importer, node);
  std::optional<Literal> start = importer.getLiteral(node, 0);
  std::optional<Literal> limit = importer.getLiteral(node, 1);
  std::optional<Literal> delta = importer.getLiteral(node, 2);
  if (!start || !limit || !delta)
    return importer.emitError()
           << "unsupported start, limit or delta computed at run time: tfm "
              "imports static shapes only, the bounds of Range known at "
              "import time";
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
  FailureOr<SymbolicShape> shape = importer.getShape(node, 0);
  if (failed(type) || failed(shape))
    return failure();
  int64_t rank = type->getRank();
  auto clamp = [&](int64_t axis) {
    if (axis < 0)
      axis += rank;
    return std::clamp<int64_t>(axis, 0, rank);
  };
  int64_t start = clamp(getIntAttr(node, "start", 0));
  int64_t end = clamp(getIntAttr(node, "end", rank));
  SymbolicLiteral result{{std::max<int64_t>(end - start, 0)},
                         importer.builder().getI64Type(),
                         {}};
  for (int64_t i = start; i < end; ++i)
    result.elements.push_back((*shape)[i]);
  return importer.setSymbolic(node, 0, result);
}

/// Size: the number of elements, an int64 scalar (a product of symbolic
/// sizes where the shape is dynamic).
static LogicalResult importSize(Importer &importer,
                                const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> shape = importer.getShape(node, 0);
  if (failed(shape))
    return failure();
  SymbolicSize count(1);
  for (const SymbolicSize &size : *shape)
    count = count * size;
  SymbolicLiteral result{{}, importer.builder().getI64Type(), {count}};
  return importer.setSymbolic(node, 0, result);
}

static LogicalResult importReshape(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  FailureOr<SymbolicShape> shape = importer.getSizes(node, 1, "shape");
  if (failed(from) || failed(shape))
    return failure();
  bool allowZero = getIntAttr(node, "allowzero", 0) != 0;
  int64_t inferred = -1;
  SymbolicSize known(1);
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    if (dim == SymbolicSize(0) && !allowZero) {
      if (i >= from->size())
        return importer.emitError() << "Reshape copies dimension " << i
                                    << " of " << importer.str(*from);
      dim = (*from)[i];
    }
    if (dim == SymbolicSize(-1)) {
      if (inferred >= 0)
        return importer.emitError() << "Reshape infers two dimensions";
      inferred = i;
      continue;
    }
    std::optional<int64_t> constant = dim.getConstant();
    if (constant && *constant < 0)
      return importer.emitError() << "Reshape to a negative dimension";
    known = known * dim;
  }
  if (inferred >= 0) {
    SymbolicSize total = productOf(*from);
    std::optional<SymbolicSize> rest =
        known == SymbolicSize(0) ? std::nullopt : total.divideExactly(known);
    if (!rest)
      return importer.emitError()
             << "cannot reshape " << importer.str(*from) << " to "
             << importer.str(*shape)
             << (total.isConstant() ? "" : ": the inferred dimension is not "
                                           "a whole multiple of the others");
    (*shape)[inferred] = *rest;
  }
  return defineReshaped(importer, node, *shape);
}

static LogicalResult importFlatten(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> shape = importer.getShape(node, 0);
  if (failed(shape))
    return failure();
  int64_t rank = shape->size();
  int64_t axis = getIntAttr(node, "axis", 1);
  if (axis < -rank || axis > rank)
    return importer.emitError()
           << "axis " << axis << " is out of range for rank " << rank;
  if (axis < 0)
    axis += rank;
  ArrayRef<SymbolicSize> dims(*shape);
  return defineReshaped(importer, node,
                        {productOf(dims.take_front(axis)),
                         productOf(dims.drop_front(axis))});
}

/// The axes of Squeeze and Unsqueeze: input 1 (an attribute before opset
/// 13); nullopt when there are none.
static FailureOr<std::optional<SmallVector<int64_t>>>
getRawAxes(Importer &importer, const onnx::NodeProto &node) {
  return importer.getIntsInputOrAttribute(node, 1, "axes", 13);
}

/// The axes of Squeeze and Unsqueeze, normalized for `rank` and sorted.
static FailureOr<SmallVector<int64_t>>
getAxes(Importer &importer, const onnx::NodeProto &node, int64_t rank) {
  FailureOr<std::optional<SmallVector<int64_t>>> raw =
      getRawAxes(importer, node);
  if (failed(raw))
    return failure();
  if (!*raw)
    return importer.emitError() << node.op_type() << " needs axes";
  SmallVector<int64_t> *axes = &**raw;
  for (int64_t &axis : *axes) {
    FailureOr<int64_t> normalized = normalizeAxis(importer, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(*axes);
  if (std::adjacent_find(axes->begin(), axes->end()) != axes->end())
    return importer.emitError() << "repeated axis";
  return *axes;
}

static LogicalResult importSqueeze(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  if (failed(from))
    return failure();
  SymbolicShape shape;
  FailureOr<std::optional<SmallVector<int64_t>>> raw =
      getRawAxes(importer, node);
  if (failed(raw))
    return failure();
  if (!*raw) {
    for (const SymbolicSize &dim : *from) {
      if (!dim.isConstant())
        return importer.emitError()
               << "Squeeze without axes of " << importer.str(*from)
               << ", whose dynamic dimensions may or may not be 1";
      if (dim != SymbolicSize(1))
        shape.push_back(dim);
    }
    return defineReshaped(importer, node, shape);
  }
  FailureOr<SmallVector<int64_t>> axes = getAxes(importer, node, from->size());
  if (failed(axes))
    return failure();
  for (int64_t i = 0, e = from->size(); i < e; ++i) {
    if (!llvm::is_contained(*axes, i)) {
      shape.push_back((*from)[i]);
      continue;
    }
    if ((*from)[i] != SymbolicSize(1))
      return importer.emitError() << "Squeeze of dimension " << i << " of "
                                  << importer.str(*from) << ", which is not 1";
  }
  return defineReshaped(importer, node, shape);
}

static LogicalResult importUnsqueeze(Importer &importer,
                                     const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  FailureOr<std::optional<SmallVector<int64_t>>> raw =
      getRawAxes(importer, node);
  if (failed(from) || failed(raw))
    return failure();
  if (!*raw)
    return importer.emitError() << "Unsqueeze needs axes";
  int64_t rank = from->size() + (*raw)->size();
  FailureOr<SmallVector<int64_t>> axes = getAxes(importer, node, rank);
  if (failed(axes))
    return failure();
  SymbolicShape shape;
  ArrayRef<SymbolicSize> rest(*from);
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
  SymbolicShape from = *importer.getShape(node, 0);
  SymbolicShape symbolicShape;
  for (int64_t axis : perm)
    symbolicShape.push_back(from[axis]);
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
  Value init = importer.empty(symbolicShape, type->getElementType());
  return importer.setValue(
      node, 0,
      importer.withShape(
          linalg::TransposeOp::create(importer.builder(), *value, init, perm)
              ->getResult(0),
          symbolicShape));
}

//===----------------------------------------------------------------------===//
// Slicing and joining
//===----------------------------------------------------------------------===//

/// Extracts `[offset, offset + size)` with `stride` along each dimension.
static Value extractSlice(Importer &importer, Value value,
                          ArrayRef<SymbolicSize> offsets,
                          ArrayRef<SymbolicSize> sizes,
                          ArrayRef<int64_t> strides) {
  ImplicitLocOpBuilder &b = importer.builder();
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> strideAttrs = llvm::map_to_vector(
      strides, [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); });
  return importer.withShape(
      tensor::ExtractSliceOp::create(
          b, type.clone(getStaticShape(sizes)), value,
          importer.getMixedSizes(offsets), importer.getMixedSizes(sizes),
          strideAttrs),
      sizes);
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

/// The start, size and step of one axis of a Slice, the bounds clamped as
/// ONNX clamps them. Where a bound or the dimension is symbolic, the slice
/// keeps the size `end - start` that exporters mean (`x[:, :seq]`) and the
/// program checks at run time that no clamping was needed, `0 <= start <=
/// end <= dim`: a clamped size would be a new size the rest of the graph
/// knows nothing of, and reading past the dimension is never right. Only
/// unit steps are supported there.
static LogicalResult sliceAxis(Importer &importer, const SymbolicSize &dim,
                               SymbolicSize start, SymbolicSize end,
                               int64_t step, SymbolicSize &offset,
                               SymbolicSize &size) {
  std::optional<int64_t> d = dim.getConstant(), first = start.getConstant(),
                         last = end.getConstant();
  if (d && first && last) {
    auto clampIndex = [&](int64_t index, int64_t low, int64_t high) {
      if (index < 0)
        index = index < -*d ? low : index + *d;
      return std::clamp(index, low, high);
    };
    int64_t from, to, count;
    if (step > 0) {
      from = clampIndex(*first, 0, *d);
      to = clampIndex(*last, 0, *d);
      count = to > from ? (to - from + step - 1) / step : 0;
    } else {
      from = clampIndex(*first, 0, *d - 1);
      to = *last < -*d ? -1 : clampIndex(*last, -1, *d - 1);
      count = from > to ? (from - to - step - 1) / -step : 0;
    }
    offset = from;
    size = count;
    return success();
  }
  if (step != 1)
    return importer.emitError()
           << "unsupported Slice with a step of " << step
           << " along a dimension of dynamic size or bounds ("
           << importer.str(dim) << ")";
  // INT64_MAX and friends: to the end.
  constexpr int64_t kToEnd = int64_t(1) << 40;
  if (first && *first < 0)
    start = *first < -kToEnd ? SymbolicSize(0) : dim + start;
  if (last && *last >= kToEnd)
    end = dim;
  else if (last && *last < 0)
    end = dim + end;
  std::string dimText = importer.str(dim);
  importer.assertAtMost(0, start,
                        "start " + importer.str(start) +
                            " must be at least 0 (it would be clamped)");
  // A product of sizes (each at least 1) is past a start of 0.
  if (!(start == SymbolicSize(0) && end.getMonomial()))
    importer.assertAtMost(start, end,
                          "start " + importer.str(start) +
                              " must be at most its end " +
                              importer.str(end));
  importer.assertAtMost(end, dim,
                        "end " + importer.str(end) + " must be at most " +
                            dimText + ", the size of the dimension it slices");
  offset = start;
  size = end - start;
  return success();
}

/// The slice of `value` whose element i along each dimension d is element
/// offsets[d] + strides[d] * i, a stride negative or not: a linalg.generic
/// over the slice that reads each element with tensor.extract. (A
/// tensor.extract_slice has positive strides only, and tiling takes an
/// operand's indexing map to grow with the loops, which offset - i does
/// not.)
static Value gatherSlice(Importer &importer, Value value,
                         ArrayRef<SymbolicSize> offsets,
                         ArrayRef<SymbolicSize> sizes,
                         ArrayRef<int64_t> strides) {
  auto type = cast<RankedTensorType>(value.getType());
  MLIRContext *ctx = importer.getContext();
  int64_t rank = type.getRank();
  SmallVector<Value> starts;
  for (const SymbolicSize &offset : offsets)
    starts.push_back(importer.materialize(offset));
  Value init = importer.empty(sizes, type.getElementType());
  auto generic = linalg::GenericOp::create(
      importer.builder(), TypeRange{init.getType()}, ValueRange{},
      ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value index = linalg::IndexOp::create(b, loc, d);
          if (strides[d] != 1)
            index = arith::MulIOp::create(
                b, loc, index,
                arith::ConstantIndexOp::create(b, loc, strides[d]));
          indices.push_back(arith::AddIOp::create(b, loc, starts[d], index));
        }
        linalg::YieldOp::create(
            b, loc, tensor::ExtractOp::create(b, loc, value, indices)
                        .getResult());
      });
  return importer.withShape(generic->getResult(0), sizes);
}

static LogicalResult importSlice(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SymbolicShape> shape = importer.getShape(node, 0);
  FailureOr<SymbolicShape> starts = importer.getSizes(node, 1, "starts");
  FailureOr<SymbolicShape> ends = importer.getSizes(node, 2, "ends");
  if (failed(type) || failed(shape) || failed(starts) || failed(ends))
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

  SymbolicShape offsets(rank, SymbolicSize(0)), sizes(*shape);
  SmallVector<int64_t> strides(rank, 1);
  SmallVector<bool> seen(rank, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    FailureOr<int64_t> axis = normalizeAxis(importer, axes[k], rank);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return importer.emitError() << "Slice repeats axis " << *axis;
    seen[*axis] = true;
    if (steps[k] == 0)
      return importer.emitError() << "Slice has a step of 0";
    if (failed(sliceAxis(importer, (*shape)[*axis], (*starts)[k], (*ends)[k],
                         steps[k], offsets[*axis], sizes[*axis])))
      return failure();
    strides[*axis] = steps[k];
  }
  SmallVector<int64_t> staticOffsets = getStaticShape(offsets),
                       staticSizes = getStaticShape(sizes);
  bool isStatic = llvm::none_of(staticOffsets, ShapedType::isDynamic) &&
                  llvm::none_of(staticSizes, ShapedType::isDynamic);
  if (std::optional<Literal> literal = importer.getLiteral(node, 0);
      literal && isStatic)
    return importer.setLiteral(
        node, 0, sliceLiteral(*literal, staticOffsets, staticSizes, strides));
  if (importer.isSymbolic(node, 0) && isStatic && rank == 1) {
    SymbolicLiteral literal = *importer.getSymbolic(node, 0);
    SymbolicLiteral result{staticSizes, literal.elementType, {}};
    for (int64_t i = 0; i < staticSizes[0]; ++i)
      result.elements.push_back(
          literal.elements[staticOffsets[0] + i * strides[0]]);
    return importer.setSymbolic(node, 0, result);
  }
  if (llvm::is_contained(sizes, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  // A negative step (torch.flip, x[::-1]) reads the elements one by one.
  if (llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return importer.setValue(
        node, 0, gatherSlice(importer, *value, offsets, sizes, strides));
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
  if (ShapedType::isDynamic(dim))
    return importer.emitError() << "unsupported Split along dimension "
                                << *axis << ", whose size is dynamic";
  SymbolicShape shape = *importer.getShape(node, 0);
  int64_t outputs = node.output_size();
  SmallVector<int64_t> splits;
  FailureOr<std::optional<SmallVector<int64_t>>> given =
      importer.getIntsInputOrAttribute(node, 1, "split", 13);
  if (failed(given))
    return failure();
  if (*given) {
    splits = **given;
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
  SymbolicShape symbolicOffsets(rank, SymbolicSize(0)), symbolicSizes(shape);
  for (int64_t i = 0; i < outputs; ++i) {
    sizes[*axis] = splits[i];
    symbolicSizes[*axis] = splits[i];
    symbolicOffsets[*axis] = offsets[*axis];
    if (literal) {
      if (failed(importer.setLiteral(
              node, i, sliceLiteral(*literal, offsets, sizes, strides))))
        return failure();
    } else {
      if (splits[i] == 0)
        return importer.emitError()
               << "unsupported computed tensor with a size of 0";
      if (failed(importer.setValue(
              node, i,
              extractSlice(importer, *value, symbolicOffsets, symbolicSizes,
                           strides))))
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
  SymbolicShape shape = *importer.getShape(node, 0);
  shape[*axis] = 0;
  bool anySymbolic = false;
  for (int i = 0; i < n; ++i) {
    FailureOr<RankedTensorType> type = importer.getType(node, i);
    FailureOr<SymbolicShape> operandShape = importer.getShape(node, i);
    if (failed(type) || failed(operandShape))
      return failure();
    bool compatible = type->getRank() == rank &&
                      type->getElementType() == first->getElementType();
    for (int64_t d = 0; compatible && d < rank; ++d)
      compatible =
          d == *axis || importer.unify((*operandShape)[d], shape[d],
                                       "Concat of operands whose sizes " +
                                           importer.str((*operandShape)[d]) +
                                           " and " + importer.str(shape[d]) +
                                           " differ along axis " +
                                           std::to_string(d));
    shape = SymbolicShape(llvm::map_range(
        shape, [&](const SymbolicSize &size) { return importer.canonical(size); }));
    if (!compatible)
      return importer.emitError()
             << "Concat of " << importer.str(*importer.getShape(node, 0))
             << " and " << importer.str(*operandShape) << " along axis "
             << *axis;
    shape[*axis] = shape[*axis] + (*operandShape)[*axis];
    anySymbolic |= importer.isSymbolic(node, i);
  }
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  if (importer.allLiterals(node)) {
    SmallVector<Literal> literals;
    for (int i = 0; i < n; ++i)
      literals.push_back(*importer.getLiteral(node, i));
    // Which input, and which index in it, each output position comes from.
    int64_t outer = product(ArrayRef<int64_t>(staticShape).take_front(*axis));
    int64_t inner =
        product(ArrayRef<int64_t>(staticShape).drop_front(*axis + 1));
    Literal result = Literal::empty(staticShape, first->getElementType());
    for (int64_t o = 0; o < outer; ++o)
      for (const Literal &literal : literals)
        for (int64_t k = 0, e = literal.shape[*axis] * inner; k < e; ++k)
          result.push(literal, o * e + k);
    return importer.setLiteral(node, 0, result);
  }
  // Shapes computed from dynamic sizes: [batch] ++ [4*seq] ++ [8].
  if (anySymbolic && rank == 1) {
    SymbolicLiteral result{staticShape, first->getElementType(), {}};
    bool known = true;
    for (int i = 0; i < n && known; ++i) {
      std::optional<SymbolicLiteral> operand = importer.getSymbolic(node, i);
      known = operand.has_value();
      if (known)
        llvm::append_range(result.elements, operand->elements);
    }
    if (known)
      return importer.setSymbolic(node, 0, result);
  }
  SmallVector<Value> operands;
  for (int i = 0; i < n; ++i) {
    if ((*importer.getShape(node, i))[*axis] == SymbolicSize(0))
      continue;
    FailureOr<Value> value = importer.getValue(node, i);
    if (failed(value))
      return failure();
    operands.push_back(*value);
  }
  if (operands.empty())
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  if (operands.size() == 1)
    return importer.setValue(node, 0, operands.front());
  return importer.setValue(
      node, 0,
      importer.withShape(
          tensor::ConcatOp::create(importer.builder(), *axis, operands),
          shape));
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
  SymbolicShape dataShape = *importer.getShape(node, 0);
  std::optional<Literal> indices = importer.getLiteral(node, 1);
  if (!indices) {
    // Token ids into an embedding table: nn.Embedding.
    if (*axis != 0 || rank != 2 || !isa<FloatType>(type->getElementType()) ||
        !isa<IntegerType>(indicesType->getElementType()) ||
        indicesType->getElementType().isInteger(1) ||
        !type->hasStaticShape())
      return importer.emitError()
             << "unsupported Gather with computed indices other than rows "
                "of a float matrix (an embedding)";
    FailureOr<Value> table = importer.getValue(node, 0);
    FailureOr<Value> ids = importer.getValue(node, 1);
    if (failed(table) || failed(ids))
      return failure();
    SymbolicShape shape = importer.shapeOf(*ids);
    shape.push_back(type->getDimSize(1));
    return importer.setValue(
        node, 0,
        importer.withShape(tfm::EmbeddingOp::create(importer.builder(), *ids,
                                                    *table, UnitAttr()),
                           shape));
  }
  int64_t dim = type->getDimSize(*axis);
  if (ShapedType::isDynamic(dim)) {
    // Constant indices into a dimension of dynamic size: only the first
    // elements can be told in range (x[:, 0]).
    for (int64_t index : indices->ints)
      if (index < 0)
        return importer.emitError()
               << "unsupported Gather of index " << index
               << " from the end of dimension " << *axis << " of size "
               << importer.str(dataShape[*axis]);
    for (int64_t index : indices->ints)
      importer.assertAtMost(index + 1, dataShape[*axis],
                            "index " + std::to_string(index) +
                                " is out of range for dimension " +
                                std::to_string(*axis) + " of size " +
                                importer.str(dataShape[*axis]));
    dim = std::numeric_limits<int64_t>::max();
  }
  for (int64_t &index : indices->ints) {
    if (index < -dim || index >= dim)
      return importer.emitError()
             << "Gather index " << index << " is out of range for dimension "
             << *axis << " of " << *type;
    if (index < 0)
      index += dim;
  }
  // data[:axis] + indices + data[axis+1:]
  SymbolicShape shape(ArrayRef<SymbolicSize>(dataShape).take_front(*axis));
  llvm::append_range(shape, getSymbolicShape(indices->shape));
  llvm::append_range(shape,
                     ArrayRef<SymbolicSize>(dataShape).drop_front(*axis + 1));
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  bool isStatic = llvm::none_of(staticShape, ShapedType::isDynamic);
  int64_t count = indices->size();

  // Sizes picked out of a computed shape: Shape(x)[0].
  if (importer.isSymbolic(node, 0)) {
    SymbolicLiteral data = *importer.getSymbolic(node, 0);
    SymbolicLiteral result{staticShape, data.elementType, {}};
    for (int64_t index : indices->ints)
      result.elements.push_back(data.elements[index]);
    return importer.setSymbolic(node, 0, result);
  }

  std::optional<Literal> literal = importer.getLiteral(node, 0);
  if (literal && isStatic && product(staticShape) <= kMaxLiteralElements) {
    int64_t inner = product(type->getShape().drop_front(*axis + 1));
    return importer.setLiteral(
        node, 0, remap(*literal, staticShape, [&](ArrayRef<int64_t> coords) {
          int64_t outerIndex = 0, k = 0, innerIndex = 0;
          for (int64_t d = 0; d < *axis; ++d)
            outerIndex = outerIndex * type->getDimSize(d) + coords[d];
          for (int64_t d = 0, e = indices->shape.size(); d < e; ++d)
            k = k * indices->shape[d] + coords[*axis + d];
          for (int64_t d = *axis + indices->shape.size(), e = coords.size();
               d < e; ++d)
            innerIndex = innerIndex * staticShape[d] + coords[d];
          return (outerIndex * dim + indices->ints[k]) * inner + innerIndex;
        }));
  }
  if (count == 0 || llvm::is_contained(shape, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  SymbolicShape offsets(rank, SymbolicSize(0)), sizes(dataShape);
  SmallVector<int64_t> strides(rank, 1);
  sizes[*axis] = 1;
  SmallVector<Value> slices;
  for (int64_t index : indices->ints) {
    offsets[*axis] = index;
    slices.push_back(extractSlice(importer, *value, offsets, sizes, strides));
  }
  Value gathered = slices.front();
  if (slices.size() > 1) {
    SymbolicShape joined(sizes);
    joined[*axis] = static_cast<int64_t>(slices.size());
    gathered = importer.withShape(
        tensor::ConcatOp::create(importer.builder(), *axis, slices), joined);
  }
  return importer.setValue(node, 0, importer.reshape(gathered, shape));
}

static LogicalResult importExpand(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  FailureOr<SymbolicShape> target = importer.getSizes(node, 1, "shape");
  if (failed(from) || failed(target))
    return failure();
  // The numpy broadcast of the input's shape and the target.
  size_t rank = std::max(from->size(), target->size());
  SymbolicShape shape(rank, SymbolicSize(1));
  for (size_t i = 0; i < rank; ++i) {
    SymbolicSize x = i < rank - from->size() ? SymbolicSize(1)
                                              : (*from)[i - (rank - from->size())];
    SymbolicSize y = i < rank - target->size()
                         ? SymbolicSize(1)
                         : (*target)[i - (rank - target->size())];
    std::optional<int64_t> c = y.getConstant();
    if (c && *c < 0)
      return importer.emitError() << "cannot expand " << importer.str(*from)
                                  << " to " << importer.str(*target);
    if (x != y && x != SymbolicSize(1) && y != SymbolicSize(1))
      return importer.emitError() << "cannot expand " << importer.str(*from)
                                  << " to " << importer.str(*target);
    shape[i] = x == SymbolicSize(1) ? y : x;
  }
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  bool isStatic = llvm::none_of(staticShape, ShapedType::isDynamic);
  if (isStatic && product(staticShape) > (int64_t(1) << 28))
    return importer.emitError() << "Expand to [" << staticShape
                                << "] is too large";
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    if (isStatic && product(staticShape) <= kMaxLiteralElements) {
      SmallVector<int64_t> strides = getStrides(staticShape);
      return importer.setLiteral(
          node, 0, remap(*literal, staticShape, [&](ArrayRef<int64_t> coords) {
            int64_t index = 0;
            for (size_t d = 0; d < coords.size(); ++d)
              index += coords[d] * strides[d];
            return broadcastIndex(staticShape, index, literal->shape);
          }));
    }
  }
  if (llvm::is_contained(shape, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, importer.broadcastTo(*value, shape));
}

/// Tile: input 0 repeated `repeats` (input 1, known at import) times along
/// each axis. Emitted as a broadcast to [r0, d0, r1, d1, ...] collapsed to
/// [r0 * d0, r1 * d1, ...].
static LogicalResult importTile(Importer &importer,
                                const onnx::NodeProto &node) {
  FailureOr<SymbolicShape> from = importer.getShape(node, 0);
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> repeats =
      importer.getInts(node, 1, "repeats");
  if (failed(from) || failed(type) || failed(repeats))
    return failure();
  if (repeats->size() != from->size())
    return importer.emitError()
           << "Tile's repeats have " << repeats->size()
           << " elements for an input of rank " << from->size();
  SymbolicShape shape, broadcastShape;
  SmallVector<int64_t> repeatedDims;
  for (auto [size, repeat] : llvm::zip_equal(*from, *repeats)) {
    if (repeat < 0)
      return importer.emitError() << "Tile by a negative repeat, " << repeat;
    shape.push_back(size * SymbolicSize(repeat));
    repeatedDims.push_back(broadcastShape.size());
    broadcastShape.push_back(SymbolicSize(repeat));
    broadcastShape.push_back(size);
  }
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  bool isStatic = llvm::none_of(staticShape, ShapedType::isDynamic);
  if (isStatic && product(staticShape) > (int64_t(1) << 28))
    return importer.emitError() << "Tile to [" << staticShape
                                << "] is too large";
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    if (isStatic && product(staticShape) <= kMaxLiteralElements) {
      SmallVector<int64_t> strides = getStrides(literal->shape);
      return importer.setLiteral(
          node, 0, remap(*literal, staticShape, [&](ArrayRef<int64_t> coords) {
            int64_t index = 0;
            for (size_t d = 0; d < coords.size(); ++d)
              index += coords[d] % literal->shape[d] * strides[d];
            return index;
          }));
    }
  }
  if (llvm::is_contained(shape, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  Value broadcast = importer.withShape(
      linalg::BroadcastOp::create(
          importer.builder(), *value,
          importer.empty(broadcastShape, type->getElementType()),
          repeatedDims)
          ->getResult(0),
      broadcastShape);
  return importer.setValue(node, 0, importer.reshape(broadcast, shape));
}

static LogicalResult importTrilu(Importer &importer,
                                 const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  if (type->getRank() < 2)
    return importer.emitError() << "Trilu needs a matrix, found " << *type;
  // k is a constant, or a size the graph computes from its dynamic shapes
  // (`tril(past)` of a decoder with a key/value cache: query i is position
  // past + i).
  SymbolicSize symbolicK = 0;
  if (Importer::hasInput(node, 1)) {
    FailureOr<SymbolicShape> values = importer.getSizes(node, 1, "k");
    if (failed(values))
      return failure();
    if (values->size() != 1)
      return importer.emitError() << "Trilu's k must be a scalar";
    symbolicK = values->front();
  }
  std::optional<int64_t> constantK = symbolicK.getConstant();
  int64_t k = constantK.value_or(0);
  bool upper = getIntAttr(node, "upper", 1) != 0;
  int64_t rows = type->getDimSize(type->getRank() - 2);
  int64_t cols = type->getDimSize(type->getRank() - 1);
  if (ShapedType::isDynamic(rows) || ShapedType::isDynamic(cols) ||
      !constantK) {
    // A triangle of dynamic size: element (i, j) kept where j - i >= k
    // (upper) or <= k, computed from the indices.
    FailureOr<Value> value = importer.getValue(node, 0);
    if (failed(value))
      return failure();
    SymbolicShape shape = importer.shapeOf(*value);
    ImplicitLocOpBuilder &b = importer.builder();
    int64_t rank = type->getRank();
    Value init = importer.empty(shape, type->getElementType());
    Value dynamicK = constantK ? Value() : importer.materialize(symbolicK);
    auto map = b.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    // A triangle of a splat (ConstantOfShape) selects between constants,
    // and k of 0 or 1 compares the indices directly: the form in which the
    // attention fusion sees a causal mask.
    std::optional<Attribute> splatValue;
    if (auto fill = value->getDefiningOp<linalg::FillOp>())
      if (auto constant =
              fill.getInputs().front().getDefiningOp<arith::ConstantOp>())
        splatValue = constant.getValue();
    Value result =
        linalg::GenericOp::create(
            b, init.getType(), ValueRange{*value}, ValueRange{init},
            ArrayRef<AffineMap>{map, map}, iterators,
            [&](OpBuilder &nested, Location loc, ValueRange args) {
              Value i = linalg::IndexOp::create(nested, loc, rank - 2);
              Value j = linalg::IndexOp::create(nested, loc, rank - 1);
              Value keep;
              if (dynamicK)
                keep = arith::CmpIOp::create(
                    nested, loc,
                    upper ? arith::CmpIPredicate::sge
                          : arith::CmpIPredicate::sle,
                    arith::SubIOp::create(nested, loc, j, i), dynamicK);
              else if (upper && (k == 0 || k == 1))
                keep = arith::CmpIOp::create(
                    nested, loc,
                    k ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge,
                    j, i);
              else if (!upper && (k == 0 || k == -1))
                keep = arith::CmpIOp::create(
                    nested, loc,
                    k ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle,
                    j, i);
              else
                keep = arith::CmpIOp::create(
                    nested, loc,
                    upper ? arith::CmpIPredicate::sge
                          : arith::CmpIPredicate::sle,
                    arith::SubIOp::create(nested, loc, j, i),
                    arith::ConstantIndexOp::create(nested, loc, k));
              Type elementType = args[0].getType();
              Value kept = args[0];
              if (splatValue)
                kept = arith::ConstantOp::create(nested, loc,
                                                 cast<TypedAttr>(*splatValue));
              Value zero = arith::ConstantOp::create(
                  nested, loc, nested.getZeroAttr(elementType));
              linalg::YieldOp::create(
                  nested, loc,
                  arith::SelectOp::create(nested, loc, keep, kept, zero)
                      .getResult());
            })
            ->getResult(0);
    return importer.setValue(node, 0, importer.withShape(result, shape));
  }
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
      importer.shapeOf(*value));
  SymbolicShape shape = importer.shapeOf(*value);
  return importer.setValue(
      node, 0,
      importer.withShape(
          arith::SelectOp::create(
              b, maskValue, *value,
              importer.splat(shape, type->getElementType(), 0)),
          shape));
}

//===----------------------------------------------------------------------===//
// Pad and ScatterND
//===----------------------------------------------------------------------===//

/// Pad in "constant" mode: a fill of the padded shape with the input
/// inserted at the low pads (Swin Transformers pad feature maps to whole
/// windows).
static LogicalResult importPad(Importer &importer,
                               const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  FailureOr<SmallVector<int64_t>> pads = importer.getInts(node, 1, "pads");
  if (failed(type) || failed(pads))
    return failure();
  if (const onnx::AttributeProto *mode = getAttr(node, "mode");
      mode && mode->s() != "constant")
    return importer.emitError() << "unsupported Pad mode '" << mode->s()
                                << "' (tfm imports mode \"constant\")";
  if (Importer::hasInput(node, 3))
    return importer.emitError() << "unsupported Pad with axes";
  int64_t rank = type->getRank();
  if (static_cast<int64_t>(pads->size()) != 2 * rank ||
      llvm::any_of(*pads, [](int64_t p) { return p < 0 || p > (1 << 24); }))
    return importer.emitError() << "Pad's pads [" << *pads
                                << "] are not 2 x " << rank
                                << " sizes of at least 0";
  double fill = 0;
  if (Importer::hasInput(node, 2)) {
    std::optional<Literal> value = importer.getLiteral(node, 2);
    if (!value || value->size() != 1)
      return importer.emitError() << "Pad needs a constant scalar value";
    fill = value->getDouble(0);
  }
  SymbolicShape shape = *importer.getShape(node, 0);
  SymbolicShape offsets, padded;
  for (int64_t d = 0; d < rank; ++d) {
    offsets.push_back((*pads)[d]);
    padded.push_back(shape[d] + (*pads)[d] + (*pads)[rank + d]);
  }
  if (llvm::is_contained(shape, SymbolicSize(0)))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  if (ArrayRef<SymbolicSize>(padded) == ArrayRef<SymbolicSize>(shape))
    return importer.setValue(node, 0, *value);
  ImplicitLocOpBuilder &b = importer.builder();
  Value init = importer.splat(padded, type->getElementType(), fill);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value result = tensor::InsertSliceOp::create(
      b, *value, init, importer.getMixedSizes(offsets),
      importer.getMixedSizes(shape), strides);
  return importer.setValue(node, 0, importer.withShape(result, padded));
}

/// ScatterND on tensors known at import time (Swin's shifted-window mask
/// is built so): a copy of the data with the slices at `indices` replaced
/// by `updates`.
static LogicalResult importScatterND(Importer &importer,
                                     const onnx::NodeProto &node) {
  std::optional<Literal> data = importer.getLiteral(node, 0);
  std::optional<Literal> indices = importer.getLiteral(node, 1);
  std::optional<Literal> updates = importer.getLiteral(node, 2);
  if (!data || !indices || !updates)
    return importer.emitError()
           << "unsupported ScatterND of a tensor computed at run time (tfm "
              "evaluates ScatterND on constants)";
  if (const onnx::AttributeProto *reduction = getAttr(node, "reduction");
      reduction && reduction->s() != "none")
    return importer.emitError() << "unsupported ScatterND reduction '"
                                << reduction->s() << "'";
  if (indices->shape.empty() || indices->isFloat())
    return importer.emitError() << "ScatterND's indices must be integers "
                                   "of rank 1 or more";
  int64_t k = indices->shape.back();
  int64_t rank = data->shape.size();
  if (k > rank)
    return importer.emitError() << "ScatterND's indices address " << k
                                << " dimensions of a tensor of rank " << rank;
  // updates: indices.shape[:-1] + data.shape[k:].
  SmallVector<int64_t> expected(ArrayRef(indices->shape).drop_back());
  llvm::append_range(expected, ArrayRef(data->shape).drop_front(k));
  if (updates->shape != expected ||
      updates->elementType != data->elementType)
    return importer.emitError()
           << "ScatterND's updates have shape [" << updates->shape
           << "], expected [" << expected << "]";
  SmallVector<int64_t> strides = getStrides(data->shape);
  int64_t slice = product(ArrayRef(data->shape).drop_front(k));
  Literal result = *data;
  for (int64_t i = 0, n = product(ArrayRef(indices->shape).drop_back()); i < n;
       ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < k; ++d) {
      int64_t index = indices->ints[i * k + d];
      int64_t dim = data->shape[d];
      if (index < -dim || index >= dim)
        return importer.emitError()
               << "ScatterND index " << index
               << " is out of range for dimension " << d << " of size " << dim;
      offset += (index < 0 ? index + dim : index) * strides[d];
    }
    for (int64_t j = 0; j < slice; ++j) {
      if (result.isFloat())
        result.floats[offset + j] = updates->floats[i * slice + j];
      else
        result.ints[offset + j] = updates->ints[i * slice + j];
    }
  }
  return importer.setLiteral(node, 0, result);
}

void mlir::tfm::onnx_import::addShapeHandlers(HandlerTable &table) {
  table["Constant"] = importConstant;
  table["ConstantOfShape"] = importConstantOfShape;
  table["Range"] = importRange;
  table["Shape"] = importShape;
  table["Size"] = importSize;
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
  table["Tile"] = importTile;
  table["Trilu"] = importTrilu;
  table["Pad"] = importPad;
  table["ScatterND"] = importScatterND;
}
