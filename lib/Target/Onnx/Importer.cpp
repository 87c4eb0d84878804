//===- Importer.cpp - ONNX models to tfm graphs ---------------------------===//
//
// The model, the graph, tensors and literals; the ops are in
// ElementwiseOps.cpp, ShapeOps.cpp and NnOps.cpp.
//
// Over 700 lines because decoding tensors (every data type and storage form
// of TensorProto, external data refused) and literals is one job that every
// op importer relies on; the ops themselves are already in their own files.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "tfm/Dialect/Tfm/IR/TfmDialect.h"
#include "tfm/Target/Onnx/OnnxImport.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::onnx_import;

/// The largest tensor the importer accepts at all (2^31 elements).
static constexpr int64_t kMaxElements = int64_t(1) << 31;

//===----------------------------------------------------------------------===//
// Literals and shapes
//===----------------------------------------------------------------------===//

int64_t Literal::size() const {
  return isFloat() ? static_cast<int64_t>(floats.size())
                   : static_cast<int64_t>(ints.size());
}

Literal Literal::empty(ArrayRef<int64_t> shape, Type type) {
  Literal literal;
  literal.shape.assign(shape.begin(), shape.end());
  literal.elementType = type;
  return literal;
}

void Literal::push(const Literal &source, int64_t i) {
  if (isFloat())
    floats.push_back(source.getDouble(i));
  else
    ints.push_back(source.getInt(i));
}

void Literal::pushDouble(double value) {
  if (isFloat())
    floats.push_back(value);
  else if (elementType.isInteger(1))
    ints.push_back(value != 0);
  else
    ints.push_back(static_cast<int64_t>(value));
}

DenseElementsAttr Literal::toAttr() const {
  RankedTensorType type = getType();
  if (auto floatType = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    values.reserve(floats.size());
    for (double value : floats) {
      APFloat element(value);
      bool losesInfo;
      element.convert(floatType.getFloatSemantics(),
                      APFloat::rmNearestTiesToEven, &losesInfo);
      values.push_back(element);
    }
    return DenseElementsAttr::get(type, values);
  }
  unsigned width = elementType.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  values.reserve(ints.size());
  for (int64_t value : ints)
    values.push_back(width == 1 ? APInt(1, value != 0)
                                : APInt(width, value, /*isSigned=*/true,
                                        /*implicitTrunc=*/true));
  return DenseElementsAttr::get(type, values);
}

Literal Literal::fromAttr(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  Literal literal = empty(type.getShape(), type.getElementType());
  if (literal.isFloat()) {
    for (const APFloat &value : attr.getValues<APFloat>()) {
      APFloat wide = value;
      bool losesInfo;
      wide.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
      literal.floats.push_back(wide.convertToDouble());
    }
    return literal;
  }
  bool isBool = type.getElementType().isInteger(1);
  for (const APInt &value : attr.getValues<APInt>())
    literal.ints.push_back(isBool ? value.getZExtValue()
                                  : value.getSExtValue());
  return literal;
}

Literal SymbolicLiteral::toLiteral() const {
  Literal literal = Literal::empty(shape, elementType);
  for (const SymbolicSize &element : elements)
    literal.ints.push_back(*element.getConstant());
  return literal;
}

SymbolicLiteral SymbolicLiteral::fromLiteral(const Literal &literal) {
  SymbolicLiteral result{literal.shape, literal.elementType, {}};
  for (int64_t i = 0, e = literal.size(); i < e; ++i)
    result.elements.push_back(literal.getInt(i));
  return result;
}

SmallVector<int64_t> onnx_import::getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

std::optional<SmallVector<int64_t>>
onnx_import::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    result[i] = x == 1 ? y : x;
  }
  return result;
}

int64_t onnx_import::broadcastIndex(ArrayRef<int64_t> outShape, int64_t index,
                                    ArrayRef<int64_t> shape) {
  int64_t result = 0, stride = 1;
  for (int64_t i = static_cast<int64_t>(outShape.size()) - 1,
               j = static_cast<int64_t>(shape.size()) - 1;
       j >= 0; --i, --j) {
    int64_t coordinate = index % outShape[i];
    index /= outShape[i];
    if (shape[j] != 1)
      result += coordinate * stride;
    stride *= shape[j];
  }
  return result;
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

const onnx::AttributeProto *onnx_import::getAttr(const onnx::NodeProto &node,
                                                 StringRef name) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t onnx_import::getIntAttr(const onnx::NodeProto &node, StringRef name,
                                int64_t defaultValue) {
  const onnx::AttributeProto *attr = getAttr(node, name);
  return attr && attr->has_i() ? attr->i() : defaultValue;
}

float onnx_import::getFloatAttr(const onnx::NodeProto &node, StringRef name,
                                float defaultValue) {
  const onnx::AttributeProto *attr = getAttr(node, name);
  return attr && attr->has_f() ? attr->f() : defaultValue;
}

std::optional<SmallVector<int64_t>>
onnx_import::getIntsAttr(const onnx::NodeProto &node, StringRef name) {
  const onnx::AttributeProto *attr = getAttr(node, name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

FailureOr<RankedTensorType>
onnx_import::getFloatType(Importer &importer, const onnx::NodeProto &node,
                          int i) {
  FailureOr<RankedTensorType> type = importer.getType(node, i);
  if (failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return importer.emitError()
           << "unsupported element type " << type->getElementType() << " for "
           << node.op_type();
  return type;
}

FailureOr<RankedTensorType>
onnx_import::getNumericType(Importer &importer, const onnx::NodeProto &node,
                            int i) {
  FailureOr<RankedTensorType> type = importer.getType(node, i);
  if (failed(type))
    return failure();
  if (type->getElementType().isInteger(1))
    return importer.emitError()
           << "unsupported element type " << type->getElementType() << " for "
           << node.op_type();
  return type;
}

FailureOr<int64_t> onnx_import::normalizeAxis(Importer &importer, int64_t axis,
                                              int64_t rank) {
  if (axis < -rank || axis >= rank) {
    importer.emitError() << "axis " << axis << " is out of range for rank "
                         << rank;
    return failure();
  }
  return axis < 0 ? axis + rank : axis;
}

//===----------------------------------------------------------------------===//
// Importer: inputs and outputs of nodes
//===----------------------------------------------------------------------===//

Importer::Importer(MLIRContext *context, StringRef filename)
    : b(FileLineColLoc::get(context, filename, 0, 0), context),
      filename(StringAttr::get(context, filename)) {
  addElementwiseHandlers(handlers);
  addShapeHandlers(handlers);
  addNnHandlers(handlers);
  addReduceHandlers(handlers);
}

/// `node 'name' (Op)`, or for a node without a name (as ONNX allows)
/// `node #index (Op, output 'y')`, by its place in the graph and its first
/// output.
static std::string describeNode(const onnx::NodeProto &node, int index) {
  if (!node.name().empty())
    return "node '" + node.name() + "' (" + node.op_type() + ")";
  std::string text = "node #" + std::to_string(index) + " (" + node.op_type();
  if (node.output_size() > 0)
    text += ", output '" + node.output(0) + "'";
  return text + ")";
}

InFlightDiagnostic Importer::emitError() {
  InFlightDiagnostic diag = mlir::emitError(b.getLoc());
  if (currentNode)
    diag << describeNode(*currentNode, currentIndex) << ": ";
  return diag;
}

int Importer::numInputs(const onnx::NodeProto &node) {
  int n = node.input_size();
  while (n > 0 && node.input(n - 1).empty())
    --n;
  return n;
}

static LogicalResult missingInput(Importer &importer,
                                  const onnx::NodeProto &node, int i) {
  if (i >= node.input_size() || node.input(i).empty())
    return importer.emitError() << node.op_type() << " needs input " << i;
  return importer.emitError()
         << "input '" << node.input(i)
         << "' is not defined by an earlier node, a graph input or an "
            "initializer";
}

FailureOr<RankedTensorType> Importer::getType(const onnx::NodeProto &node,
                                              int i) {
  if (hasInput(node, i)) {
    if (DenseElementsAttr attr = constants.lookup(node.input(i)))
      return cast<RankedTensorType>(attr.getType());
    auto symbolic = symbolics.find(node.input(i));
    if (symbolic != symbolics.end())
      return RankedTensorType::get(symbolic->second.shape,
                                   symbolic->second.elementType);
    if (Value value = values.lookup(node.input(i)))
      return cast<RankedTensorType>(value.getType());
  }
  return missingInput(*this, node, i);
}

FailureOr<SymbolicShape> Importer::getShape(const onnx::NodeProto &node,
                                            int i) {
  if (hasInput(node, i) && !symbolics.count(node.input(i)))
    if (Value value = values.lookup(node.input(i)))
      return shapeOf(value);
  FailureOr<RankedTensorType> type = getType(node, i);
  if (failed(type))
    return failure();
  return getSymbolicShape(type->getShape());
}

std::optional<SymbolicLiteral>
Importer::getSymbolic(const onnx::NodeProto &node, int i) {
  if (!hasInput(node, i))
    return std::nullopt;
  auto symbolic = symbolics.find(node.input(i));
  if (symbolic != symbolics.end())
    return symbolic->second;
  std::optional<Literal> literal = getLiteral(node, i);
  if (!literal || literal->isFloat() || literal->shape.size() > 1)
    return std::nullopt;
  return SymbolicLiteral::fromLiteral(*literal);
}

FailureOr<SymbolicShape> Importer::getSizes(const onnx::NodeProto &node,
                                            int i, StringRef what) {
  if (!isSymbolic(node, i)) {
    FailureOr<SmallVector<int64_t>> ints = getInts(node, i, what);
    if (failed(ints))
      return failure();
    return getSymbolicShape(*ints);
  }
  return symbolics.find(node.input(i))->second.elements;
}

LogicalResult Importer::setSymbolic(const onnx::NodeProto &node, int i,
                                    const SymbolicLiteral &literal) {
  if (literal.isConstant())
    return setLiteral(node, i, literal.toLiteral());
  if (i >= node.output_size())
    return emitError() << node.op_type() << " has no output " << i;
  if (node.output(i).empty())
    return success();
  if (values.count(node.output(i)) || constants.count(node.output(i)) ||
      symbolics.count(node.output(i)))
    return emitError() << "'" << node.output(i) << "' is defined twice";
  symbolics[node.output(i)] = literal;
  return success();
}

SymbolicShape Importer::shapeOf(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto it = shapes.find(value);
  if (it != shapes.end()) {
    if (unifiedSymbols.empty())
      return it->second;
    SymbolicShape shape = it->second;
    for (SymbolicSize &size : shape)
      size = canonical(size);
    return shape;
  }
  // A dynamic dimension that nobody recorded is a size of its own, equal to
  // no other, read from the value itself where it is needed.
  SymbolicShape shape = getSymbolicShape(type.getShape());
  for (auto [i, dim] : llvm::enumerate(type.getShape())) {
    if (!ShapedType::isDynamic(dim))
      continue;
    shape[i] = SymbolicSize::symbol(symbolNames.size());
    symbolNames.push_back("?");
    symbolSources.push_back({value, static_cast<int64_t>(i)});
  }
  if (!type.hasStaticShape())
    shapes[value] = shape;
  return shape;
}

Value Importer::withShape(Value value, ArrayRef<SymbolicSize> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.hasStaticShape())
    shapes[value] = SymbolicShape(shape);
  return value;
}

std::string Importer::str(ArrayRef<SymbolicSize> shape) {
  std::string text = "[";
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? ", " : "") + str(size);
  return text + "]";
}

FailureOr<Value> Importer::getValue(const onnx::NodeProto &node, int i) {
  if (hasInput(node, i)) {
    if (Value value = values.lookup(node.input(i)))
      return value;
    auto symbolic = symbolics.find(node.input(i));
    if (symbolic != symbolics.end()) {
      // A computed shape used as data: its elements as a tensor.
      const SymbolicLiteral &literal = symbolic->second;
      SmallVector<Value> elements;
      for (const SymbolicSize &size : literal.elements)
        elements.push_back(arith::IndexCastOp::create(
            b, literal.elementType, materialize(size)));
      return Value(tensor::FromElementsOp::create(
          b, RankedTensorType::get(literal.shape, literal.elementType),
          elements));
    }
    if (DenseElementsAttr attr = constants.lookup(node.input(i))) {
      // Materialize once, at the top of the function, so that every later
      // use is dominated.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(b.getInsertionBlock());
      Value value = constant(attr);
      values[node.input(i)] = value;
      return value;
    }
  }
  return missingInput(*this, node, i);
}

DenseElementsAttr Importer::getConstant(const onnx::NodeProto &node, int i) {
  return hasInput(node, i) ? constants.lookup(node.input(i))
                           : DenseElementsAttr();
}

std::optional<Literal> Importer::getLiteral(const onnx::NodeProto &node,
                                            int i) {
  DenseElementsAttr attr = getConstant(node, i);
  if (!attr || attr.getNumElements() > kMaxLiteralElements)
    return std::nullopt;
  return Literal::fromAttr(attr);
}

FailureOr<SmallVector<int64_t>> Importer::getInts(const onnx::NodeProto &node,
                                                  int i, StringRef what) {
  DenseElementsAttr attr = getConstant(node, i);
  if (!attr) {
    if (failed(getType(node, i)))
      return failure();
    return emitError() << "unsupported " << what << " (input " << i << ", '"
                       << node.input(i)
                       << "') computed at run time: tfm imports static "
                          "shapes only, the "
                       << what << " of " << node.op_type()
                       << " known at import time";
  }
  if (!attr.getElementType().isInteger() ||
      cast<RankedTensorType>(attr.getType()).getRank() > 1 ||
      attr.getNumElements() > kMaxLiteralElements)
    return emitError() << "expected the " << what
                       << " to be a scalar or a vector of integers, found "
                       << attr.getType();
  Literal literal = Literal::fromAttr(attr);
  return SmallVector<int64_t>(literal.ints.begin(), literal.ints.end());
}

FailureOr<std::optional<SmallVector<int64_t>>>
Importer::getIntsInputOrAttribute(const onnx::NodeProto &node, int i,
                                  StringRef what, int64_t since) {
  if (opset < since)
    return getIntsAttr(node, what);
  if (!hasInput(node, i))
    return std::optional<SmallVector<int64_t>>();
  FailureOr<SmallVector<int64_t>> ints = getInts(node, i, what);
  if (failed(ints))
    return failure();
  return std::optional<SmallVector<int64_t>>(*ints);
}

bool Importer::allLiterals(const onnx::NodeProto &node) {
  for (int i = 0, e = node.input_size(); i < e; ++i) {
    if (node.input(i).empty())
      continue;
    DenseElementsAttr attr = constants.lookup(node.input(i));
    if (!attr || attr.getNumElements() > kMaxLiteralElements)
      return false;
  }
  return true;
}

LogicalResult Importer::setValue(const onnx::NodeProto &node, int i,
                                 Value value) {
  if (i >= node.output_size())
    return emitError() << node.op_type() << " has no output " << i;
  if (node.output(i).empty())
    return success();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || (!type.hasStaticShape() && !shapes.count(value)))
    return emitError() << "internal error: output '" << node.output(i)
                       << "' has type " << value.getType()
                       << " and no recorded shape";
  if (values.count(node.output(i)) || constants.count(node.output(i)) ||
      symbolics.count(node.output(i)))
    return emitError() << "'" << node.output(i) << "' is defined twice";
  values[node.output(i)] = value;
  return success();
}

LogicalResult Importer::setConstant(const onnx::NodeProto &node, int i,
                                    DenseElementsAttr attr) {
  if (i >= node.output_size())
    return emitError() << node.op_type() << " has no output " << i;
  if (node.output(i).empty())
    return success();
  if (values.count(node.output(i)) || constants.count(node.output(i)))
    return emitError() << "'" << node.output(i) << "' is defined twice";
  constants[node.output(i)] = attr;
  return success();
}

LogicalResult Importer::setLiteral(const onnx::NodeProto &node, int i,
                                   const Literal &literal) {
  return setConstant(node, i, literal.toAttr());
}

//===----------------------------------------------------------------------===//
// Importer: tensors
//===----------------------------------------------------------------------===//

Type Importer::convertDataType(int32_t dataType) {
  MLIRContext *context = getContext();
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return Float32Type::get(context);
  case onnx::TensorProto::FLOAT16:
    return Float16Type::get(context);
  case onnx::TensorProto::BFLOAT16:
    return BFloat16Type::get(context);
  case onnx::TensorProto::DOUBLE:
    return Float64Type::get(context);
  case onnx::TensorProto::INT64:
    return IntegerType::get(context, 64);
  case onnx::TensorProto::INT32:
    return IntegerType::get(context, 32);
  case onnx::TensorProto::BOOL:
    return IntegerType::get(context, 1);
  default:
    return nullptr;
  }
}

std::string Importer::dataTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType) &&
      dataType != onnx::TensorProto::UNDEFINED)
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dataType));
  return "data type " + std::to_string(dataType);
}

/// The number of elements of `dims`, or failure when a dimension is
/// negative or the product is too large.
static FailureOr<int64_t> countElements(ArrayRef<int64_t> dims) {
  int64_t count = 1;
  for (int64_t dim : dims) {
    if (dim < 0)
      return failure();
    if (dim != 0 && count > kMaxElements / dim)
      return failure();
    count *= dim;
  }
  return count;
}

FailureOr<DenseElementsAttr>
Importer::convertTensor(const onnx::TensorProto &tensor) {
  SmallVector<int64_t> dims(tensor.dims().begin(), tensor.dims().end());
  FailureOr<int64_t> count = countElements(dims);
  if (failed(count))
    return emitError() << "tensor '" << tensor.name()
                       << "' has a negative or too large shape";
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return emitError() << "tensor '" << tensor.name()
                       << "' has external data, which tfm does not import "
                          "(export the model as one file)";
  Type elementType = convertDataType(tensor.data_type());
  if (!elementType)
    return emitError() << "tensor '" << tensor.name()
                       << "' has unsupported data type "
                       << dataTypeName(tensor.data_type());
  auto type = RankedTensorType::get(dims, elementType);
  int64_t n = *count;
  auto mismatch = [&](int64_t found) {
    return emitError() << "tensor '" << tensor.name() << "' of type " << type
                       << " holds " << found << " values, expected " << n;
  };

  if (tensor.has_raw_data()) {
    const std::string &raw = tensor.raw_data();
    int64_t bytes =
        elementType.isInteger(1) ? 1 : elementType.getIntOrFloatBitWidth() / 8;
    if (static_cast<int64_t>(raw.size()) != n * bytes)
      return emitError() << "tensor '" << tensor.name() << "' of type " << type
                         << " has " << raw.size() << " bytes of data, expected "
                         << n * bytes;
    if (elementType.isInteger(1)) {
      SmallVector<bool> values;
      for (char c : raw)
        values.push_back(c != 0);
      return DenseElementsAttr::get(type, ArrayRef<bool>(values));
    }
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw.data(), raw.size()));
  }

  switch (tensor.data_type()) {
  case onnx::TensorProto::FLOAT: {
    if (tensor.float_data_size() != n)
      return mismatch(tensor.float_data_size());
    SmallVector<float> values(tensor.float_data().begin(),
                              tensor.float_data().end());
    return DenseElementsAttr::get(type, ArrayRef<float>(values));
  }
  case onnx::TensorProto::DOUBLE: {
    if (tensor.double_data_size() != n)
      return mismatch(tensor.double_data_size());
    SmallVector<double> values(tensor.double_data().begin(),
                               tensor.double_data().end());
    return DenseElementsAttr::get(type, ArrayRef<double>(values));
  }
  case onnx::TensorProto::INT64: {
    if (tensor.int64_data_size() != n)
      return mismatch(tensor.int64_data_size());
    SmallVector<int64_t> values(tensor.int64_data().begin(),
                                tensor.int64_data().end());
    return DenseElementsAttr::get(type, ArrayRef<int64_t>(values));
  }
  case onnx::TensorProto::INT32: {
    if (tensor.int32_data_size() != n)
      return mismatch(tensor.int32_data_size());
    SmallVector<int32_t> values(tensor.int32_data().begin(),
                                tensor.int32_data().end());
    return DenseElementsAttr::get(type, ArrayRef<int32_t>(values));
  }
  case onnx::TensorProto::BOOL: {
    if (tensor.int32_data_size() != n)
      return mismatch(tensor.int32_data_size());
    SmallVector<bool> values;
    for (int32_t value : tensor.int32_data())
      values.push_back(value != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16: {
    if (tensor.int32_data_size() != n)
      return mismatch(tensor.int32_data_size());
    SmallVector<APFloat> values;
    const llvm::fltSemantics &semantics =
        cast<FloatType>(elementType).getFloatSemantics();
    for (int32_t bits : tensor.int32_data())
      values.push_back(APFloat(semantics, APInt(16, bits & 0xffff)));
    return DenseElementsAttr::get(type, values);
  }
  default:
    return emitError() << "tensor '" << tensor.name()
                       << "' has unsupported data type "
                       << dataTypeName(tensor.data_type());
  }
}

//===----------------------------------------------------------------------===//
// Importer: IR helpers
//===----------------------------------------------------------------------===//

Value Importer::constant(DenseElementsAttr attr) {
  return arith::ConstantOp::create(b, attr);
}

Value Importer::splat(RankedTensorType type, double value) {
  Type elementType = type.getElementType();
  if (isa<FloatType>(elementType))
    return constant(
        DenseElementsAttr::get(type, b.getFloatAttr(elementType, value)));
  return constant(DenseElementsAttr::get(
      type, b.getIntegerAttr(elementType, static_cast<int64_t>(value))));
}

Value Importer::empty(RankedTensorType type) {
  return tensor::EmptyOp::create(b, type.getShape(), type.getElementType());
}

Value Importer::materialize(const SymbolicSize &size) {
  if (std::optional<int64_t> constant = size.getConstant())
    return arith::ConstantIndexOp::create(b, *constant);
  Value sum;
  size.forEachTerm([&](int64_t coefficient, ArrayRef<unsigned> symbols) {
    Value term;
    for (unsigned id : symbols) {
      auto [source, dim] = symbolSources[id];
      Value factor = tensor::DimOp::create(b, source, dim);
      term = term ? arith::MulIOp::create(b, term, factor) : factor;
    }
    if (!term)
      term = arith::ConstantIndexOp::create(b, coefficient);
    else if (coefficient != 1)
      term = arith::MulIOp::create(
          b, term, arith::ConstantIndexOp::create(b, coefficient));
    sum = sum ? arith::AddIOp::create(b, sum, term) : term;
  });
  return sum;
}

void Importer::assertAtMost(const SymbolicSize &size,
                            const SymbolicSize &bound, const Twine &message) {
  if (std::optional<int64_t> difference = (bound - size).getConstant();
      difference && *difference >= 0)
    return;
  assertSizes(arith::CmpIPredicate::sle, size, bound, message);
}

void Importer::assertSizes(arith::CmpIPredicate predicate,
                           const SymbolicSize &lhs, const SymbolicSize &rhs,
                           const Twine &message) {
  std::string text;
  if (currentNode)
    text += describeNode(*currentNode, currentIndex) + ": ";
  text += message.str();
  Value holds = arith::CmpIOp::create(b, predicate, materialize(lhs),
                                      materialize(rhs));
  cf::AssertOp::create(b, holds, text);
}

SymbolicSize Importer::canonical(const SymbolicSize &size) {
  if (unifiedSymbols.empty())
    return size;
  auto find = [&](unsigned id) {
    for (auto it = unifiedSymbols.find(id); it != unifiedSymbols.end();
         it = unifiedSymbols.find(id))
      id = it->second;
    return id;
  };
  SymbolicSize result;
  size.forEachTerm([&](int64_t coefficient, ArrayRef<unsigned> symbols) {
    SymbolicSize term(coefficient);
    for (unsigned id : symbols)
      term = term * SymbolicSize::symbol(find(id));
    result = result + term;
  });
  return result;
}

bool Importer::unify(const SymbolicSize &a, const SymbolicSize &b,
                     const Twine &message) {
  SymbolicSize x = canonical(a), y = canonical(b);
  if (x == y)
    return true;
  auto getSymbol = [](const SymbolicSize &size) -> std::optional<unsigned> {
    std::optional<std::vector<unsigned>> monomial = size.getMonomial();
    if (!monomial || monomial->size() != 1)
      return std::nullopt;
    return monomial->front();
  };
  std::optional<unsigned> xs = getSymbol(x), ys = getSymbol(y);
  if (!xs || !ys)
    return false;
  assertEqual(x, y, message);
  // The later symbol becomes the earlier: an entry's input keeps its name.
  unifiedSymbols[std::max(*xs, *ys)] = std::min(*xs, *ys);
  return true;
}

void Importer::assertEqual(const SymbolicSize &lhs, const SymbolicSize &rhs,
                           const Twine &message) {
  if (std::optional<int64_t> difference = (lhs - rhs).getConstant();
      difference && *difference == 0)
    return;
  assertSizes(arith::CmpIPredicate::eq, lhs, rhs, message);
}

SmallVector<OpFoldResult>
Importer::getMixedSizes(ArrayRef<SymbolicSize> sizes) {
  return llvm::map_to_vector(sizes, [&](const SymbolicSize &size) {
    if (std::optional<int64_t> constant = size.getConstant())
      return OpFoldResult(b.getIndexAttr(*constant));
    return OpFoldResult(materialize(size));
  });
}

Value Importer::empty(ArrayRef<SymbolicSize> shape, Type elementType) {
  return withShape(
      tensor::EmptyOp::create(b, getMixedSizes(shape), elementType), shape);
}

Value Importer::splat(ArrayRef<SymbolicSize> shape, Type elementType,
                      double value) {
  SmallVector<int64_t> staticShape = getStaticShape(shape);
  auto type = RankedTensorType::get(staticShape, elementType);
  if (type.hasStaticShape())
    return splat(type, value);
  TypedAttr scalar =
      isa<FloatType>(elementType)
          ? TypedAttr(b.getFloatAttr(elementType, value))
          : TypedAttr(b.getIntegerAttr(elementType, static_cast<int64_t>(value)));
  Value element = arith::ConstantOp::create(b, scalar);
  return withShape(
      linalg::FillOp::create(b, element, empty(shape, elementType))
          ->getResult(0),
      shape);
}

Value Importer::broadcastTo(Value value, ArrayRef<SymbolicSize> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  SymbolicShape from = shapeOf(value);
  if (ArrayRef<SymbolicSize>(from) == shape)
    return value;
  if (type.getElementType().isInteger(1)) {
    // The CPU pipeline miscompiles linalg.broadcast of i1 tensors: broadcast
    // bytes and compare them with 0 instead.
    Value bytes = withShape(
        arith::ExtUIOp::create(b, type.clone(b.getI8Type()), value), from);
    Value wide = broadcastTo(bytes, shape);
    return withShape(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, wide,
                                           splat(shape, b.getI8Type(), 0)),
                     shape);
  }
  // Keep the dimensions of `value` that are not broadcast; the others are
  // collapsed away and then added back by linalg.broadcast.
  int64_t offset = static_cast<int64_t>(shape.size()) - type.getRank();
  SymbolicShape kept;
  SmallVector<int64_t> added;
  for (int64_t i = 0, e = shape.size(); i < e; ++i) {
    int64_t j = i - offset;
    if (j >= 0 && from[j] == shape[i])
      kept.push_back(shape[i]);
    else
      added.push_back(i);
  }
  Value source = value;
  if (static_cast<int64_t>(kept.size()) != type.getRank())
    source = reshape(value, kept);
  if (added.empty())
    return source;
  return withShape(linalg::BroadcastOp::create(
                       b, source, empty(shape, type.getElementType()), added)
                       ->getResult(0),
                   shape);
}

/// Whether `a` divides `b` with a quotient other than 1.
static bool dividesProperly(const SymbolicSize &a, const SymbolicSize &b) {
  std::optional<SymbolicSize> quotient = b.divideExactly(a);
  return quotient && *quotient != SymbolicSize(1);
}

Value Importer::reshape(Value value, ArrayRef<SymbolicSize> shape) {
  auto type = cast<RankedTensorType>(value.getType());
  SymbolicShape from = shapeOf(value);
  if (ArrayRef<SymbolicSize>(from) == shape)
    return value;
  auto resultType =
      RankedTensorType::get(getStaticShape(shape), type.getElementType());
  auto isOne = [](const SymbolicSize &size) { return size == SymbolicSize(1); };
  // To and from rank 0: every dimension of the other side is 1.
  if (shape.empty() && llvm::all_of(from, isOne))
    return tensor::CollapseShapeOp::create(b, resultType, value,
                                           ArrayRef<ReassociationIndices>{});
  if (from.empty() && llvm::all_of(shape, isOne))
    return tensor::ExpandShapeOp::create(b, resultType, value,
                                         ArrayRef<ReassociationIndices>{});
  // Split both shapes into groups of equal products: collapse each source
  // group to one dimension, then expand it to its target group. Unit
  // dimensions join the group before them (or the first group). Products
  // grow on the side that the other divides; constants compare by value.
  SymbolicShape middle;
  SmallVector<ReassociationIndices> collapse, expand;
  size_t i = 0, j = 0;
  bool grouped = true;
  while (i < from.size() && j < shape.size()) {
    ReassociationIndices sourceGroup{static_cast<int64_t>(i)},
        targetGroup{static_cast<int64_t>(j)};
    SymbolicSize sourceProduct = from[i++], targetProduct = shape[j++];
    while (sourceProduct != targetProduct) {
      std::optional<int64_t> x = sourceProduct.getConstant(),
                             y = targetProduct.getConstant();
      bool growSource = x && y ? *x < *y
                               : dividesProperly(sourceProduct, targetProduct);
      bool growTarget = x && y ? *y < *x
                               : dividesProperly(targetProduct, sourceProduct);
      if (growSource && i < from.size()) {
        sourceProduct = sourceProduct * from[i];
        sourceGroup.push_back(i++);
      } else if (growTarget && j < shape.size()) {
        targetProduct = targetProduct * shape[j];
        targetGroup.push_back(j++);
      } else {
        break;
      }
    }
    if (sourceProduct != targetProduct)
      grouped = false;
    // Trailing unit dimensions stay in this group.
    while (i < from.size() && isOne(from[i]) &&
           !(j < shape.size() && isOne(shape[j])))
      sourceGroup.push_back(i++);
    while (j < shape.size() && isOne(shape[j]) &&
           !(i < from.size() && isOne(from[i])))
      targetGroup.push_back(j++);
    middle.push_back(sourceProduct);
    collapse.push_back(sourceGroup);
    expand.push_back(targetGroup);
  }
  for (; i < from.size(); ++i) {
    grouped &= isOne(from[i]);
    if (!collapse.empty())
      collapse.back().push_back(i);
  }
  for (; j < shape.size(); ++j) {
    grouped &= isOne(shape[j]);
    if (!expand.empty())
      expand.back().push_back(j);
  }
  if (collapse.empty() || !grouped) {
    // Shapes without matching groups (or a rank-0 side): a generic reshape
    // by a shape tensor.
    SmallVector<Value> dims;
    for (const SymbolicSize &size : shape)
      dims.push_back(arith::IndexCastOp::create(b, b.getI64Type(),
                                                materialize(size)));
    Value shapeTensor = tensor::FromElementsOp::create(
        b, RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                 b.getI64Type()),
        dims);
    if (resultType.hasStaticShape())
      shapeTensor = constant(DenseElementsAttr::get(
          RankedTensorType::get({static_cast<int64_t>(shape.size())},
                                b.getI64Type()),
          ArrayRef<int64_t>(getStaticShape(shape))));
    return withShape(
        tensor::ReshapeOp::create(b, resultType, value, shapeTensor), shape);
  }
  Value collapsed = value;
  if (middle.size() != from.size())
    collapsed = withShape(
        tensor::CollapseShapeOp::create(
            b,
            RankedTensorType::get(getStaticShape(middle),
                                  type.getElementType()),
            value, collapse),
        middle);
  if (middle.size() == shape.size())
    return withShape(collapsed, shape);
  return withShape(tensor::ExpandShapeOp::create(b, resultType, collapsed,
                                                 expand, getMixedSizes(shape)),
                   shape);
}

//===----------------------------------------------------------------------===//
// Importer: the model
//===----------------------------------------------------------------------===//

/// `; node ... (Op) reads it` for the first node of `graph` that reads
/// `name`, or nothing: what a refused graph input is for.
static std::string describeFirstReader(const onnx::GraphProto &graph,
                                       StringRef name) {
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (llvm::is_contained(node.input(), name))
      return "; " + describeNode(node, static_cast<int>(index)) +
             " reads it";
  return "";
}

/// What kind of value an ONNX type that is not a tensor holds.
static StringRef describeNonTensorType(const onnx::TypeProto &type) {
  if (type.has_sequence_type())
    return "a sequence";
  if (type.has_optional_type())
    return "an optional";
  if (type.has_map_type())
    return "a map";
  if (type.has_sparse_tensor_type())
    return "a sparse tensor";
  return "no tensor type";
}

/// Whether a compiled model's entry takes and returns tensors of `type`'s
/// elements (tfm-prepare-entry's rule: f32, f16, f64, i32, i64 and bool);
/// bf16 tensors are imported, but only inside the graph.
static bool isExchangedType(Type type) {
  return type.isF32() || type.isF16() || type.isF64() || type.isInteger(32) ||
         type.isInteger(64) || type.isInteger(1);
}

static constexpr const char *kExchangedTypes =
    "a compiled model's inputs and outputs are FLOAT, FLOAT16, DOUBLE, "
    "INT32, INT64 or BOOL";

FailureOr<RankedTensorType>
Importer::convertValueInfo(const onnx::ValueInfoProto &info,
                           const onnx::GraphProto &graph,
                           SymbolicShape &shape) {
  if (!info.type().has_tensor_type())
    return emitError() << "'" << info.name() << "' has an unsupported type ("
                       << describeNonTensorType(info.type())
                       << "): tfm imports tensors only"
                       << describeFirstReader(graph, info.name());
  const onnx::TypeProto::Tensor &tensorType = info.type().tensor_type();
  Type elementType = convertDataType(tensorType.elem_type());
  if (!elementType)
    return emitError() << "'" << info.name()
                       << "' has unsupported element type "
                       << dataTypeName(tensorType.elem_type())
                       << describeFirstReader(graph, info.name());
  if (!isExchangedType(elementType))
    return emitError() << "graph input '" << info.name()
                       << "' has unsupported element type "
                       << dataTypeName(tensorType.elem_type()) << ": "
                       << kExchangedTypes
                       << describeFirstReader(graph, info.name());
  if (!tensorType.has_shape())
    return emitError() << "'" << info.name() << "' has no shape";
  SmallVector<int64_t> staticShape;
  for (const onnx::TensorShapeProto::Dimension &dim :
       tensorType.shape().dim()) {
    if (dim.has_dim_value()) {
      shape.push_back(dim.dim_value());
      staticShape.push_back(dim.dim_value());
      continue;
    }
    // A symbolic dimension: the same dim_param in two inputs is the same
    // size; one without a name is its own.
    std::string name = dim.dim_param();
    if (name.empty())
      name = info.name() + "_dim" + std::to_string(shape.size());
    auto *known = llvm::find(symbolNames, name);
    unsigned id = known - symbolNames.begin();
    if (known == symbolNames.end()) {
      symbolNames.push_back(name);
      symbolSources.push_back({Value(), static_cast<int64_t>(shape.size())});
    }
    shape.push_back(SymbolicSize::symbol(id));
    staticShape.push_back(ShapedType::kDynamic);
  }
  SmallVector<int64_t> known(llvm::make_filter_range(
      staticShape, [](int64_t d) { return !ShapedType::isDynamic(d); }));
  if (failed(countElements(known)))
    return emitError() << "'" << info.name()
                       << "' has a negative or too large shape";
  return RankedTensorType::get(staticShape, elementType);
}

void Importer::setDimNames(func::FuncOp func, unsigned arg,
                           ArrayRef<SymbolicSize> shape) {
  if (cast<RankedTensorType>(func.getArgumentTypes()[arg]).hasStaticShape())
    return;
  SmallVector<StringRef> dims;
  for (const SymbolicSize &size : shape) {
    std::optional<std::vector<unsigned>> symbols =
        canonical(size).getMonomial();
    dims.push_back(symbols && symbols->size() == 1
                       ? StringRef(symbolNames[symbols->front()])
                       : StringRef());
  }
  func.setArgAttr(arg, "tfm.dims", b.getStrArrayAttr(dims));
}

/// A name usable in the executable's messages and C header.
static std::string sanitizeName(StringRef name) {
  std::string result;
  for (char c : name)
    result += llvm::isAlnum(c) ? c : '_';
  if (result.empty() || llvm::isDigit(result[0]))
    result = "x" + result;
  return result;
}

LogicalResult Importer::checkSupported(const onnx::GraphProto &graph) {
  // Unknown ops, each type once with its first node.
  SmallVector<std::pair<std::string, std::string>> unsupported;
  // Known ops whose semantics at the model's opset are not those tfm
  // implements, each type once with its first node and the reason.
  SmallVector<std::pair<std::string, std::string>> wrongVersion;
  llvm::StringSet<> seen;
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    bool known = defaultDomain && handlers.count(node.op_type());
    std::string opType =
        defaultDomain ? node.op_type() : node.domain() + "." + node.op_type();
    if (!seen.insert(opType).second)
      continue;
    std::string name = node.name().empty()
                           ? "#" + std::to_string(index) + ", output '" +
                                 (node.output_size() ? node.output(0) : "") +
                                 "'"
                           : "'" + node.name() + "'";
    if (!known) {
      unsupported.push_back({opType, name});
      continue;
    }
    if (std::optional<std::string> reason = checkOpset(opType, opset))
      wrongVersion.push_back(
          {describeNode(node, static_cast<int>(index)), *reason});
  }
  if (!unsupported.empty()) {
    InFlightDiagnostic diag = mlir::emitError(b.getLoc())
                              << "unsupported ONNX op"
                              << (unsupported.size() > 1 ? "s" : "") << ": ";
    llvm::interleaveComma(unsupported, diag, [&](const auto &entry) {
      diag << entry.first << " (node " << entry.second << ")";
    });
  }
  for (const auto &[node, reason] : wrongVersion)
    mlir::emitError(b.getLoc())
        << node << ": unsupported at opset " << opset << ": " << reason;
  return failure(!unsupported.empty() || !wrongVersion.empty());
}

/// The type ONNX gives the attributes the handlers read, the same in every
/// op that has them; None for the others.
static std::optional<onnx::AttributeProto::AttributeType>
getAttributeType(StringRef name) {
  using A = onnx::AttributeProto;
  return llvm::StringSwitch<std::optional<A::AttributeType>>(name)
      .Case("alpha", A::FLOAT)
      .Case("beta", A::FLOAT)
      .Case("epsilon", A::FLOAT)
      .Case("equation", A::STRING)
      .Case("exclusive", A::INT)
      .Case("noop_with_empty_axes", A::INT)
      .Case("reverse", A::INT)
      .Case("select_last_index", A::INT)
      .Case("stash_type", A::INT)
      .Case("allowzero", A::INT)
      .Case("axis", A::INT)
      .Case("end", A::INT)
      .Case("fmod", A::INT)
      .Case("group", A::INT)
      .Case("keepdims", A::INT)
      .Case("start", A::INT)
      .Case("to", A::INT)
      .Case("transA", A::INT)
      .Case("transB", A::INT)
      .Case("upper", A::INT)
      .Case("axes", A::INTS)
      .Case("split", A::INTS)
      .Case("perm", A::INTS)
      .Case("dilations", A::INTS)
      .Case("kernel_shape", A::INTS)
      .Case("pads", A::INTS)
      .Case("strides", A::INTS)
      .Default(std::nullopt);
}

static StringRef describeAttributeType(onnx::AttributeProto::AttributeType type) {
  using A = onnx::AttributeProto;
  switch (type) {
  case A::FLOAT:
    return "a float";
  case A::INT:
    return "an int";
  case A::STRING:
    return "a string";
  case A::TENSOR:
    return "a tensor";
  case A::FLOATS:
    return "a list of floats";
  case A::INTS:
    return "a list of ints";
  case A::STRINGS:
    return "a list of strings";
  default:
    return "of another kind";
  }
}

LogicalResult Importer::checkAttributeTypes(const onnx::NodeProto &node) {
  for (const onnx::AttributeProto &attr : node.attribute()) {
    std::optional<onnx::AttributeProto::AttributeType> expected =
        getAttributeType(attr.name());
    if (expected && attr.type() != *expected)
      return emitError() << "attribute '" << attr.name() << "' is "
                         << describeAttributeType(attr.type())
                         << "; ONNX defines it as "
                         << describeAttributeType(*expected);
  }
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node, int index) {
  std::string name = node.name().empty() ? node.op_type() : node.name();
  b.setLoc(NameLoc::get(StringAttr::get(getContext(), name),
                        FileLineColLoc::get(filename, 0, 0)));
  const NodeHandler &handler = handlers.find(node.op_type())->second;
  currentNode = &node;
  currentIndex = index;
  llvm::scope_exit clear([&] { currentNode = nullptr; });
  if (failed(checkAttributeTypes(node)) || failed(handler(*this, node)))
    return failure();
  for (int i = 0, e = node.output_size(); i < e; ++i) {
    const std::string &output = node.output(i);
    if (!output.empty() && !values.count(output) && !constants.count(output) &&
        !symbolics.count(output))
      return emitError() << "unsupported output " << i << " ('" << output
                         << "')";
  }
  return success();
}

LogicalResult Importer::importGraph(const onnx::GraphProto &graph,
                                    ModuleOp module) {
  for (const onnx::TensorProto &initializer : graph.initializer()) {
    if (constants.count(initializer.name()))
      return emitError() << "initializer '" << initializer.name()
                         << "' is listed twice";
    FailureOr<DenseElementsAttr> attr = convertTensor(initializer);
    if (failed(attr))
      return failure();
    constants[initializer.name()] = *attr;
  }

  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<SymbolicShape> argShapes;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (constants.count(input.name()))
      continue; // an initializer listed as an input (old exporters)
    unsigned firstNewSymbol = symbolNames.size();
    SymbolicShape shape;
    FailureOr<RankedTensorType> type = convertValueInfo(input, graph, shape);
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
    argNames.push_back(input.name());
    argShapes.push_back(shape);
    // The symbols this input introduces are read from it.
    for (unsigned id = firstNewSymbol; id < symbolNames.size(); ++id)
      symbolArgs.push_back(argTypes.size() - 1);
  }

  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, "main", b.getFunctionType(argTypes, {}));
  Block *body = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    if (values.count(name))
      return emitError() << "graph input '" << name << "' is listed twice";
    Value argument = body->getArgument(i);
    values[name] = argument;
    withShape(argument, argShapes[i]);
    func.setArgAttr(i, "tfm.name", b.getStringAttr(sanitizeName(name)));
    // Dynamic dimensions keep their dim_param names in the entry's
    // signature and messages.
    setDimNames(func, i, argShapes[i]);
  }
  for (auto [id, arg] : llvm::enumerate(symbolArgs))
    symbolSources[id].first = body->getArgument(arg);
  b.setInsertionPointToEnd(body);

  if (failed(checkSupported(graph)))
    return failure();
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, static_cast<int>(index))))
      return failure();
  // Sizes the graph made one (unify) have one name in the signature, which
  // the executables and the library then check equal on entry.
  if (!unifiedSymbols.empty())
    for (auto [i, shape] : llvm::enumerate(argShapes))
      setDimNames(func, i, shape);

  b.setLoc(FileLineColLoc::get(filename, 0, 0));
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value value = values.lookup(output.name());
    if (!value) {
      DenseElementsAttr attr = constants.lookup(output.name());
      if (!attr)
        return emitError() << "graph output '" << output.name()
                           << "' is not defined by any node";
      value = constant(attr);
    }
    Type elementType = cast<ShapedType>(value.getType()).getElementType();
    if (!isExchangedType(elementType)) {
      InFlightDiagnostic diag = emitError()
                                << "graph output '" << output.name()
                                << "' has unsupported element type "
                                << elementType << ": " << kExchangedTypes;
      for (auto [index, node] : llvm::enumerate(graph.node()))
        if (llvm::is_contained(node.output(), output.name()))
          diag << "; " << describeNode(node, static_cast<int>(index))
               << " defines it";
      return diag;
    }
    results.push_back(value);
  }
  if (results.empty())
    return emitError() << "the graph has no outputs";
  func::ReturnOp::create(b, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, output] : llvm::enumerate(graph.output()))
    func.setResultAttr(i, "tfm.name",
                       b.getStringAttr(sanitizeName(output.name())));
  return success();
}

OwningOpRef<ModuleOp> Importer::importModel(const onnx::ModelProto &model,
                                            bool &unsupported) {
  unsupported = false;
  // ir_version is the one field every ModelProto has: without it the bytes
  // were empty or another protobuf message that happened to parse.
  if (!model.has_ir_version()) {
    emitError() << "the file is not an ONNX model: it has no ir_version "
                   "(an empty file, or another protobuf message)";
    return nullptr;
  }
  if (!model.has_graph()) {
    emitError() << "the file is not an ONNX model: it has no graph";
    return nullptr;
  }
  // Each op is checked against this version (checkSupported): most ops
  // mean the same over many opsets.
  opset = -1;
  for (const onnx::OperatorSetIdProto &entry : model.opset_import())
    if (entry.domain().empty() || entry.domain() == "ai.onnx")
      opset = entry.version();
  if (opset < 1 || opset > kNewestOpset) {
    unsupported = true;
    if (opset < 0)
      emitError() << "the model imports no version of the default ONNX "
                     "opset";
    else
      emitError() << "the model uses opset " << opset
                  << "; tfm knows the ONNX ops of opsets 1 to "
                  << kNewestOpset;
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = ModuleOp::create(b.getLoc());
  // An unsupported op or type is reported as such; anything else is an
  // invalid model.
  ScopedDiagnosticHandler watch(getContext(), [&](Diagnostic &diag) {
    std::string message = diag.str();
    if (StringRef(message).contains("unsupported"))
      unsupported = true;
    return failure(); // let the next handler print it
  });
  if (failed(importGraph(model.graph(), *module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

OwningOpRef<ModuleOp> mlir::tfm::importOnnx(StringRef bytes,
                                            MLIRContext *context,
                                            StringRef filename,
                                            OnnxImportError *error) {
  context->loadDialect<arith::ArithDialect, cf::ControlFlowDialect,
                       func::FuncDialect,
                       linalg::LinalgDialect, math::MathDialect,
                       tensor::TensorDialect, TfmDialect>();
  auto fail = [&](OnnxImportError kind) {
    if (error)
      *error = kind;
    return OwningOpRef<ModuleOp>();
  };
  Location fileLoc = FileLineColLoc::get(context, filename, 0, 0);
  onnx::ModelProto model;
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    mlir::emitError(fileLoc)
        << "cannot parse the ONNX model: the file is truncated or is not an "
           "ONNX protobuf";
    return fail(OnnxImportError::Invalid);
  }
  Importer importer(context, filename);
  bool unsupported = false;
  OwningOpRef<ModuleOp> module = importer.importModel(model, unsupported);
  if (!module)
    return fail(unsupported ? OnnxImportError::Unsupported
                            : OnnxImportError::Invalid);
  if (failed(verify(*module))) {
    mlir::emitError(fileLoc) << "internal error: the imported graph does "
                                "not verify";
    return fail(OnnxImportError::Invalid);
  }
  return module;
}

bool mlir::tfm::looksLikeOnnx(StringRef bytes) {
  // ModelProto's field 1 is ir_version, a varint: tag byte 0x08. MLIR text
  // never starts with a backspace.
  return !bytes.empty() && bytes[0] == 0x08;
}

void mlir::tfm::registerOnnxImportDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, cf::ControlFlowDialect,
                  func::FuncDialect, linalg::LinalgDialect,
                  math::MathDialect, tensor::TensorDialect, TfmDialect>();
}
