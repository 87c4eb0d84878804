//===- ElementwiseOps.cpp - ONNX elementwise ops --------------------------===//
//
// Arithmetic, comparisons, logic, math functions and casts, with numpy
// broadcasting made explicit: a splat constant operand becomes a splat of
// the result's shape (the form the fusion passes match), any other operand
// is broadcast with linalg.broadcast. Ops on literals are evaluated.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfm::onnx_import;

namespace {

/// An ONNX elementwise op: how to evaluate it on doubles, and how to emit it
/// for float and integer operands (either may be null: unsupported).
struct Elementwise {
  std::function<double(ArrayRef<double>)> evaluate;
  std::function<Value(ImplicitLocOpBuilder &, ValueRange)> emitFloat;
  std::function<Value(ImplicitLocOpBuilder &, ValueRange)> emitInt;
  /// Whether the result is i1 (comparisons).
  bool isPredicate = false;
  /// Whether the operands must have equal element types.
  bool sameTypes = true;
  /// The operand whose element type the result has (unless a predicate).
  int resultOperand = 0;
  /// The operand that must be bool, if any (Where's condition).
  int conditionOperand = -1;
  /// How to evaluate it on symbolic sizes, when it can be: nullopt where
  /// the result depends on the symbols' values.
  std::function<std::optional<SymbolicSize>(ArrayRef<SymbolicSize>)>
      evaluateSymbolic;
};

} // namespace

/// The shape `shapes` broadcast to, or failure with an error. A symbolic
/// size broadcasts with 1 and with itself only: two different dynamic sizes
/// are unified (Importer::unify), equal or the run ends.
static FailureOr<SymbolicShape>
broadcastAll(Importer &importer, ArrayRef<SymbolicShape> shapes) {
  size_t rank = 0;
  for (const SymbolicShape &shape : shapes)
    rank = std::max(rank, shape.size());
  SymbolicShape result(rank, SymbolicSize(1));
  for (const SymbolicShape &shape : shapes) {
    for (size_t k = 0; k < shape.size(); ++k) {
      SymbolicSize &joined = result[rank - shape.size() + k];
      const SymbolicSize &size = shape[k];
      if (size == SymbolicSize(1) || size == joined)
        continue;
      if (joined == SymbolicSize(1)) {
        joined = size;
        continue;
      }
      if (importer.unify(joined, size,
                         "operand sizes " + importer.str(joined) + " and " +
                             importer.str(size) +
                             " differ (tfm broadcasts a dynamic size with "
                             "itself only)")) {
        joined = importer.canonical(joined);
        continue;
      }
      InFlightDiagnostic diag = importer.emitError()
                                << "operand shapes do not broadcast: ";
      llvm::interleaveComma(shapes, diag, [&](const SymbolicShape &s) {
        diag << importer.str(s);
      });
      if (!joined.isConstant() || !size.isConstant())
        diag << " (tfm cannot tell that " << importer.str(joined) << " and "
             << importer.str(size) << " are equal)";
      return failure();
    }
  }
  return result;
}

/// Evaluates `op` on literal operands.
static Literal evaluate(const Elementwise &op, ArrayRef<Literal> operands,
                        ArrayRef<int64_t> shape, Type resultType) {
  Literal result = Literal::empty(shape, resultType);
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  SmallVector<double> args(operands.size());
  for (int64_t i = 0; i < n; ++i) {
    for (auto [k, operand] : llvm::enumerate(operands))
      args[k] = operand.getDouble(broadcastIndex(shape, i, operand.shape));
    double value = op.evaluate(args);
    if (!result.isFloat() && !resultType.isInteger(1))
      value = std::trunc(value);
    result.pushDouble(value);
  }
  return result;
}

/// Imports `op` applied to the node's inputs `inputs` (their indices: all
/// of them but the optional ones left out).
static LogicalResult importElementwise(Importer &importer,
                                       const onnx::NodeProto &node,
                                       const Elementwise &op,
                                       ArrayRef<int> inputs) {
  int arity = inputs.size();
  SmallVector<RankedTensorType> types;
  SmallVector<SymbolicShape> shapes;
  for (int input : inputs) {
    FailureOr<RankedTensorType> type = importer.getType(node, input);
    FailureOr<SymbolicShape> shape = importer.getShape(node, input);
    if (failed(type) || failed(shape))
      return failure();
    types.push_back(*type);
    shapes.push_back(*shape);
  }
  FailureOr<SymbolicShape> shape = broadcastAll(importer, shapes);
  if (failed(shape))
    return failure();
  SmallVector<int64_t> staticShape = getStaticShape(*shape);
  Type elementType = types[op.resultOperand].getElementType();
  if (op.sameTypes)
    for (RankedTensorType type : types)
      if (type.getElementType() != elementType)
        return importer.emitError()
               << node.op_type()
               << " operands have different element types: " << types.front()
               << " and " << type;
  Type resultType =
      op.isPredicate ? importer.builder().getI1Type() : elementType;
  if (op.conditionOperand >= 0 &&
      !types[op.conditionOperand].getElementType().isInteger(1))
    return importer.emitError()
           << node.op_type() << "'s condition must be bool, found "
           << types[op.conditionOperand];
  if (llvm::is_contained(*shape, SymbolicSize(0)) &&
      !importer.allLiterals(node))
    return importer.emitError()
           << "unsupported computed tensor with a size of 0";

  // The element count only where every size is known (a dynamic size is
  // ShapedType::kDynamic, INT64_MIN), saturated rather than overflowed.
  bool isStatic = llvm::none_of(staticShape, ShapedType::isDynamic);
  int64_t count = 0;
  if (isStatic) {
    count = 1;
    for (int64_t dim : staticShape)
      if (llvm::MulOverflow(count, dim, count)) {
        count = std::numeric_limits<int64_t>::max();
        break;
      }
  }
  if (importer.allLiterals(node) && isStatic && count <= kMaxLiteralElements) {
    SmallVector<Literal> literals;
    for (int input : inputs)
      literals.push_back(*importer.getLiteral(node, input));
    return importer.setLiteral(node, 0,
                               evaluate(op, literals, staticShape, resultType));
  }

  // Arithmetic on computed shapes: each element a symbolic size.
  bool anySymbolic = false;
  for (int input : inputs)
    anySymbolic |= importer.isSymbolic(node, input);
  if (anySymbolic && isStatic && staticShape.size() <= 1 &&
      !isa<FloatType>(resultType)) {
    SmallVector<SymbolicLiteral> operands;
    for (int input : inputs) {
      std::optional<SymbolicLiteral> operand =
          importer.getSymbolic(node, input);
      if (!operand)
        break;
      operands.push_back(*operand);
    }
    if (op.evaluateSymbolic && static_cast<int>(operands.size()) == arity) {
      SymbolicLiteral result{staticShape, resultType, {}};
      SmallVector<SymbolicSize> args(arity);
      for (int64_t k = 0; k < count; ++k) {
        for (auto [a, operand] : llvm::enumerate(operands))
          args[a] = operand.elements[broadcastIndex(staticShape, k,
                                                    operand.shape)];
        std::optional<SymbolicSize> value = op.evaluateSymbolic(args);
        if (!value)
          return importer.emitError()
                 << node.op_type() << " of sizes depends on the values of "
                 << "dynamic dimensions ("
                 << importer.str(ArrayRef<SymbolicSize>(args)) << ")";
        result.elements.push_back(*value);
      }
      return importer.setSymbolic(node, 0, result);
    }
  }

  // x * 1 and x / 1 are x, bit for bit: exporters write them (baddbmm's
  // beta of a mask), and left in they hide the value from the fusion
  // passes when it is computed at run time.
  if ((node.op_type() == "Mul" || node.op_type() == "Div") &&
      isa<FloatType>(elementType)) {
    for (int one = node.op_type() == "Mul" ? 0 : 1; one < 2; ++one) {
      DenseElementsAttr attr = importer.getConstant(node, inputs[one]);
      int other = 1 - one;
      if (!attr || !attr.isSplat() ||
          attr.getSplatValue<APFloat>().convertToDouble() != 1.0 ||
          ArrayRef<SymbolicSize>(shapes[other]) != ArrayRef(*shape))
        continue;
      FailureOr<Value> value = importer.getValue(node, inputs[other]);
      if (failed(value))
        return failure();
      return importer.setValue(node, 0, *value);
    }
  }

  bool isFloat = isa<FloatType>(elementType);
  const auto &emit = isFloat ? op.emitFloat : op.emitInt;
  if (!emit)
    return importer.emitError() << "unsupported element type " << elementType
                                << " for " << node.op_type();
  SmallVector<Value> operands;
  for (auto [i, input] : llvm::enumerate(inputs)) {
    DenseElementsAttr attr = importer.getConstant(node, input);
    if (attr && attr.isSplat()) {
      Type operandElement = types[i].getElementType();
      if (isStatic)
        operands.push_back(importer.constant(attr.resizeSplat(
            RankedTensorType::get(staticShape, operandElement))));
      else
        operands.push_back(importer.splat(
            *shape, operandElement,
            isa<FloatType>(operandElement)
                ? attr.getSplatValue<APFloat>().convertToDouble()
                : operandElement.isInteger(1)
                      ? static_cast<double>(
                            attr.getSplatValue<APInt>().getZExtValue())
                      : static_cast<double>(
                            attr.getSplatValue<APInt>().getSExtValue())));
      continue;
    }
    FailureOr<Value> value = importer.getValue(node, input);
    if (failed(value))
      return failure();
    operands.push_back(importer.broadcastTo(*value, *shape));
  }
  return importer.setValue(
      node, 0,
      importer.withShape(emit(importer.builder(), operands), *shape));
}

/// Imports `op` applied to the node's `arity` inputs.
static LogicalResult importElementwise(Importer &importer,
                                       const onnx::NodeProto &node,
                                       const Elementwise &op, int arity) {
  if (Importer::numInputs(node) != arity)
    return importer.emitError()
           << node.op_type() << " expects " << arity << " inputs, found "
           << Importer::numInputs(node);
  return importElementwise(importer, node, op,
                           llvm::to_vector(llvm::seq<int>(0, arity)));
}

template <typename FloatOp, typename IntOp>
static Elementwise binary(std::function<double(double, double)> evaluate) {
  Elementwise op;
  op.evaluate = [=](ArrayRef<double> x) { return evaluate(x[0], x[1]); };
  op.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return FloatOp::create(b, x[0], x[1]);
  };
  if constexpr (!std::is_same_v<IntOp, void>)
    op.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
      return IntOp::create(b, x[0], x[1]);
    };
  return op;
}

static Elementwise compare(arith::CmpFPredicate floatPredicate,
                           arith::CmpIPredicate intPredicate,
                           std::function<bool(double, double)> evaluate) {
  Elementwise op;
  op.evaluate = [=](ArrayRef<double> x) {
    return evaluate(x[0], x[1]) ? 1.0 : 0.0;
  };
  op.emitFloat = [=](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::CmpFOp::create(b, floatPredicate, x[0], x[1]);
  };
  op.emitInt = [=](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::CmpIOp::create(b, intPredicate, x[0], x[1]);
  };
  op.isPredicate = true;
  return op;
}

template <typename MathOp>
static Elementwise unary(std::function<double(double)> evaluate) {
  Elementwise op;
  op.evaluate = [=](ArrayRef<double> x) { return evaluate(x[0]); };
  op.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return MathOp::create(b, x[0]);
  };
  return op;
}

/// A tensor of `like`'s type holding `value` everywhere: a splat constant,
/// or a linalg.fill of `like`'s sizes when they are dynamic.
static Value splatLike(ImplicitLocOpBuilder &b, Value like, double value) {
  auto type = cast<RankedTensorType>(like.getType());
  Type elementType = type.getElementType();
  TypedAttr element =
      isa<FloatType>(elementType)
          ? TypedAttr(b.getFloatAttr(elementType, value))
          : TypedAttr(b.getIntegerAttr(elementType, int64_t(value)));
  if (type.hasStaticShape())
    return arith::ConstantOp::create(b, DenseElementsAttr::get(type, element));
  SmallVector<Value> sizes;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (type.isDynamicDim(i))
      sizes.push_back(tensor::DimOp::create(b, like, i));
  Value init = tensor::EmptyOp::create(b, type.getShape(), elementType, sizes);
  Value scalar = arith::ConstantOp::create(b, element);
  return linalg::FillOp::create(b, scalar, init)->getResult(0);
}

//===----------------------------------------------------------------------===//
// Mod
//===----------------------------------------------------------------------===//

/// Mod: with fmod = 0 (integers only) the remainder has the divisor's sign,
/// as Python's %; with fmod = 1 the dividend's, as C's fmod. Swin
/// Transformers compute their window padding with it.
static LogicalResult importMod(Importer &importer,
                               const onnx::NodeProto &node) {
  bool fmod = getIntAttr(node, "fmod", 0) != 0;
  FailureOr<RankedTensorType> type = importer.getType(node, 0);
  if (failed(type))
    return failure();
  if (!fmod && isa<FloatType>(type->getElementType()))
    return importer.emitError()
           << "Mod of floats needs fmod = 1 (ONNX defines no other)";
  Elementwise op;
  op.evaluate = [fmod](ArrayRef<double> x) {
    if (x[1] == 0)
      return 0.0;
    if (fmod)
      return std::fmod(x[0], x[1]);
    return x[0] - std::floor(x[0] / x[1]) * x[1];
  };
  op.evaluateSymbolic = [fmod](ArrayRef<SymbolicSize> x)
      -> std::optional<SymbolicSize> {
    std::optional<int64_t> a = x[0].getConstant(), b = x[1].getConstant();
    if (!a || !b || *b == 0)
      return std::nullopt;
    int64_t r = *a % *b;
    if (!fmod && r != 0 && (r < 0) != (*b < 0))
      r += *b;
    return SymbolicSize(r);
  };
  op.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::RemFOp::create(b, x[0], x[1]);
  };
  op.emitInt = [fmod](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    Value r = arith::RemSIOp::create(b, x[0], x[1]);
    if (fmod)
      return r;
    // A nonzero remainder whose sign differs from the divisor's moves by
    // one divisor.
    Value zero = splatLike(b, r, 0);
    Value nonzero = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, r, zero);
    Value negative =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, r, zero);
    Value divisorNegative =
        arith::CmpIOp::create(b, arith::CmpIPredicate::slt, x[1], zero);
    Value differ = arith::XOrIOp::create(b, negative, divisorNegative);
    Value adjust = arith::AndIOp::create(b, nonzero, differ);
    return arith::SelectOp::create(b, adjust,
                                   arith::AddIOp::create(b, r, x[1]), r);
  };
  return importElementwise(importer, node, op, 2);
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

static Value emitCast(ImplicitLocOpBuilder &b, Value value, Type to) {
  auto type = cast<RankedTensorType>(value.getType());
  Type from = type.getElementType();
  auto resultType = type.clone(to);
  if (from == to)
    return value;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(b, resultType, value))
               : Value(arith::TruncFOp::create(b, resultType, value));
  if (!fromFloat && toFloat)
    return from.isInteger(1)
               ? Value(arith::UIToFPOp::create(b, resultType, value))
               : Value(arith::SIToFPOp::create(b, resultType, value));
  if (to.isInteger(1))
    return fromFloat
               ? Value(arith::CmpFOp::create(b, arith::CmpFPredicate::UNE,
                                             value, splatLike(b, value, 0)))
               : Value(arith::CmpIOp::create(b, arith::CmpIPredicate::ne, value,
                                             splatLike(b, value, 0)));
  if (fromFloat)
    return arith::FPToSIOp::create(b, resultType, value);
  if (from.isInteger(1))
    return arith::ExtUIOp::create(b, resultType, value);
  return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
             ? Value(arith::ExtSIOp::create(b, resultType, value))
             : Value(arith::TruncIOp::create(b, resultType, value));
}

/// Input 0 converted to element type `to` (Cast, CastLike).
static LogicalResult importCastTo(Importer &importer,
                                  const onnx::NodeProto &node, Type to) {
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    Literal result = Literal::empty(literal->shape, to);
    for (int64_t i = 0, e = literal->size(); i < e; ++i) {
      double value = literal->getDouble(i);
      result.pushDouble(isa<FloatType>(to) ? value : std::trunc(value));
    }
    return importer.setLiteral(node, 0, result);
  }
  if (std::optional<SymbolicLiteral> symbolic = importer.getSymbolic(node, 0);
      symbolic && isa<IntegerType>(to) && !to.isInteger(1)) {
    symbolic->elementType = to;
    return importer.setSymbolic(node, 0, *symbolic);
  }
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(
      node, 0,
      importer.withShape(emitCast(importer.builder(), *value, to),
                         importer.shapeOf(*value)));
}

static LogicalResult importCast(Importer &importer,
                                const onnx::NodeProto &node) {
  int64_t toCode = getIntAttr(node, "to", 0);
  if (toCode < 0 || toCode > std::numeric_limits<int32_t>::max())
    return importer.emitError() << "Cast to " << toCode
                                << ", which is no ONNX data type";
  Type to = importer.convertDataType(toCode);
  if (!to)
    return importer.emitError() << "unsupported data type "
                                << Importer::dataTypeName(toCode)
                                << " for Cast";
  return importCastTo(importer, node, to);
}

/// CastLike: Cast to the element type of input 1 (which is not read).
static LogicalResult importCastLike(Importer &importer,
                                    const onnx::NodeProto &node) {
  if (Importer::numInputs(node) != 2)
    return importer.emitError() << "CastLike expects 2 inputs, found "
                                << Importer::numInputs(node);
  FailureOr<RankedTensorType> like = importer.getType(node, 1);
  if (failed(like))
    return failure();
  return importCastTo(importer, node, like->getElementType());
}

//===----------------------------------------------------------------------===//
// Clip
//===----------------------------------------------------------------------===//

/// Clip: min(max(x, lo), hi), each bound an optional input (opset 11 on),
/// broadcast like any other operand. A NaN stays NaN.
static LogicalResult importClip(Importer &importer,
                                const onnx::NodeProto &node) {
  bool hasMin = Importer::hasInput(node, 1);
  bool hasMax = Importer::hasInput(node, 2);
  if (Importer::numInputs(node) < 1 || Importer::numInputs(node) > 3)
    return importer.emitError() << "Clip expects 1 to 3 inputs, found "
                                << Importer::numInputs(node);
  SmallVector<int> inputs = {0};
  if (hasMin)
    inputs.push_back(1);
  if (hasMax)
    inputs.push_back(2);
  Elementwise op;
  op.evaluate = [=](ArrayRef<double> x) {
    double r = x[0];
    size_t i = 1;
    if (hasMin)
      r = std::isnan(r) ? r : std::max(r, x[i++]);
    if (hasMax)
      r = std::isnan(r) ? r : std::min(r, x[i]);
    return r;
  };
  op.emitFloat = [=](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    Value r = x[0];
    size_t i = 1;
    if (hasMin)
      r = arith::MaximumFOp::create(b, r, x[i++]);
    if (hasMax)
      r = arith::MinimumFOp::create(b, r, x[i]);
    return r;
  };
  op.emitInt = [=](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    Value r = x[0];
    size_t i = 1;
    if (hasMin)
      r = arith::MaxSIOp::create(b, r, x[i++]);
    if (hasMax)
      r = arith::MinSIOp::create(b, r, x[i]);
    return r;
  };
  return importElementwise(importer, node, op, inputs);
}

//===----------------------------------------------------------------------===//
// Pass-through ops
//===----------------------------------------------------------------------===//

/// Identity, and Dropout at inference (its mask output is not supported).
static LogicalResult importIdentity(Importer &importer,
                                    const onnx::NodeProto &node) {
  if (DenseElementsAttr attr = importer.getConstant(node, 0))
    return importer.setConstant(node, 0, attr);
  if (importer.isSymbolic(node, 0))
    return importer.setSymbolic(node, 0, *importer.getSymbolic(node, 0));
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, *value);
}

/// Dropout at inference: its input, and a mask of ones if asked for. In
/// training mode it would drop a random part of its input: refused, unless
/// its ratio is 0 (nothing to drop).
static LogicalResult importDropout(Importer &importer,
                                   const onnx::NodeProto &node) {
  if (Importer::hasInput(node, 2)) {
    DenseElementsAttr training = importer.getConstant(node, 2);
    if (!training || !training.isSplat())
      return importer.emitError()
             << "unsupported Dropout whose training_mode is computed: tfm "
                "compiles for inference (export the model in eval mode)";
    if (training.getSplatValue<APInt>().getBoolValue()) {
      DenseElementsAttr ratio = Importer::hasInput(node, 1)
                                    ? importer.getConstant(node, 1)
                                    : DenseElementsAttr();
      bool dropsNothing = ratio && ratio.isSplat() &&
                          isa<FloatType>(ratio.getElementType()) &&
                          ratio.getSplatValue<APFloat>().isZero();
      if (!dropsNothing)
        return importer.emitError()
               << "unsupported Dropout in training mode (training_mode is "
                  "true): tfm compiles for inference (export the model in "
                  "eval mode)";
    }
  }
  if (failed(importIdentity(importer, node)))
    return failure();
  if (node.output_size() < 2 || node.output(1).empty())
    return success();
  FailureOr<SymbolicShape> shape = importer.getShape(node, 0);
  if (failed(shape))
    return failure();
  ImplicitLocOpBuilder &b = importer.builder();
  return importer.setValue(node, 1,
                           importer.splat(*shape, b.getI1Type(), 1.0));
}

void mlir::tfm::onnx_import::addElementwiseHandlers(HandlerTable &table) {
  auto add = [&](StringRef name, Elementwise op, int arity) {
    table[name] = [op, arity](Importer &importer, const onnx::NodeProto &node) {
      return importElementwise(importer, node, op, arity);
    };
  };
  using Sizes = ArrayRef<SymbolicSize>;
  Elementwise addOp = binary<arith::AddFOp, arith::AddIOp>(
      [](double a, double b) { return a + b; });
  addOp.evaluateSymbolic = [](Sizes x) { return x[0] + x[1]; };
  add("Add", addOp, 2);
  Elementwise subOp = binary<arith::SubFOp, arith::SubIOp>(
      [](double a, double b) { return a - b; });
  subOp.evaluateSymbolic = [](Sizes x) { return x[0] - x[1]; };
  add("Sub", subOp, 2);
  Elementwise mulOp = binary<arith::MulFOp, arith::MulIOp>(
      [](double a, double b) { return a * b; });
  mulOp.evaluateSymbolic = [](Sizes x) { return x[0] * x[1]; };
  add("Mul", mulOp, 2);
  Elementwise divOp = binary<arith::DivFOp, arith::DivSIOp>(
      [](double a, double b) { return b == 0 ? 0.0 : a / b; });
  // Integer division of sizes: exact, or of constants.
  divOp.evaluateSymbolic = [](Sizes x) -> std::optional<SymbolicSize> {
    std::optional<int64_t> a = x[0].getConstant(), b = x[1].getConstant();
    if (a && b)
      return *b == 0 ? SymbolicSize(0) : SymbolicSize(*a / *b);
    if (b && *b == 0)
      return std::nullopt;
    return x[0].divideExactly(x[1]);
  };
  add("Div", divOp, 2);
  Elementwise pow = binary<math::PowFOp, void>(
      [](double a, double b) { return std::pow(a, b); });
  pow.sameTypes = false;
  pow.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    Value exponent = x[1];
    if (exponent.getType() != x[0].getType())
      exponent = emitCast(
          b, exponent, cast<RankedTensorType>(x[0].getType()).getElementType());
    return math::PowFOp::create(b, x[0], exponent);
  };
  add("Pow", pow, 2);
  // Sizes are never negative: a size equals a negative constant (Reshape's
  // -1 in exported `Where(Equal(shape, -1), ...)`) for no value of the
  // symbols.
  auto knownSign = [](const SymbolicSize &d) -> std::optional<int> {
    if (std::optional<int64_t> c = d.getConstant())
      return *c < 0 ? -1 : *c > 0 ? 1 : 0;
    return std::nullopt;
  };
  auto compareSizes = [knownSign](const SymbolicSize &a,
                                  const SymbolicSize &b) -> std::optional<int> {
    if (std::optional<int> sign = knownSign(a - b))
      return sign;
    std::optional<int64_t> x = a.getConstant(), y = b.getConstant();
    if (y && *y < 0)
      return 1;
    if (x && *x < 0)
      return -1;
    return std::nullopt;
  };
  Elementwise equalOp =
      compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
              [](double a, double b) { return a == b; });
  equalOp.evaluateSymbolic =
      [compareSizes](Sizes x) -> std::optional<SymbolicSize> {
    std::optional<int> order = compareSizes(x[0], x[1]);
    if (!order)
      return std::nullopt;
    return SymbolicSize(*order == 0 ? 1 : 0);
  };
  add("Equal", equalOp, 2);
  Elementwise lessOp =
      compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
              [](double a, double b) { return a < b; });
  lessOp.evaluateSymbolic =
      [compareSizes](Sizes x) -> std::optional<SymbolicSize> {
    std::optional<int> order = compareSizes(x[0], x[1]);
    if (!order)
      return std::nullopt;
    return SymbolicSize(*order < 0 ? 1 : 0);
  };
  add("Less", lessOp, 2);
  add("Greater",
      compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
              [](double a, double b) { return a > b; }),
      2);
  add("LessOrEqual",
      compare(arith::CmpFPredicate::OLE, arith::CmpIPredicate::sle,
              [](double a, double b) { return a <= b; }),
      2);
  add("GreaterOrEqual",
      compare(arith::CmpFPredicate::OGE, arith::CmpIPredicate::sge,
              [](double a, double b) { return a >= b; }),
      2);
  Elementwise logicalAnd;
  logicalAnd.evaluate = [](ArrayRef<double> x) {
    return x[0] != 0 && x[1] != 0 ? 1.0 : 0.0;
  };
  logicalAnd.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::AndIOp::create(b, x[0], x[1]);
  };
  add("And", logicalAnd, 2);
  Elementwise logicalOr;
  logicalOr.evaluate = [](ArrayRef<double> x) {
    return x[0] != 0 || x[1] != 0 ? 1.0 : 0.0;
  };
  logicalOr.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::OrIOp::create(b, x[0], x[1]);
  };
  add("Or", logicalOr, 2);

  // Max and Min of one or more inputs, a NaN among them the result.
  auto variadic = [&](StringRef name, Elementwise op) {
    table[name] = [op](Importer &importer,
                      const onnx::NodeProto &node) -> LogicalResult {
      int n = Importer::numInputs(node);
      if (n < 1)
        return importer.emitError() << node.op_type()
                                    << " expects one input or more";
      return importElementwise(importer, node, op,
                               llvm::to_vector(llvm::seq<int>(0, n)));
    };
  };
  auto extremum = [](bool isMax, auto emitFloatPair, auto emitIntPair) {
    Elementwise op;
    op.evaluate = [isMax](ArrayRef<double> x) {
      double r = x[0];
      for (double v : x.drop_front())
        r = std::isnan(r) || std::isnan(v) ? std::nan("")
            : isMax                        ? std::max(r, v)
                                           : std::min(r, v);
      return r;
    };
    op.emitFloat = [emitFloatPair](ImplicitLocOpBuilder &b,
                                   ValueRange x) -> Value {
      Value r = x[0];
      for (Value v : x.drop_front())
        r = emitFloatPair(b, r, v);
      return r;
    };
    op.emitInt = [emitIntPair](ImplicitLocOpBuilder &b,
                               ValueRange x) -> Value {
      Value r = x[0];
      for (Value v : x.drop_front())
        r = emitIntPair(b, r, v);
      return r;
    };
    return op;
  };
  variadic("Max",
           extremum(
               true,
               [](ImplicitLocOpBuilder &b, Value x, Value y) -> Value {
                 return arith::MaximumFOp::create(b, x, y);
               },
               [](ImplicitLocOpBuilder &b, Value x, Value y) -> Value {
                 return arith::MaxSIOp::create(b, x, y);
               }));
  variadic("Min",
           extremum(
               false,
               [](ImplicitLocOpBuilder &b, Value x, Value y) -> Value {
                 return arith::MinimumFOp::create(b, x, y);
               },
               [](ImplicitLocOpBuilder &b, Value x, Value y) -> Value {
                 return arith::MinSIOp::create(b, x, y);
               }));

  Elementwise where;
  where.sameTypes = false;
  where.resultOperand = 1;
  where.conditionOperand = 0;
  where.evaluate = [](ArrayRef<double> x) { return x[0] != 0 ? x[1] : x[2]; };
  where.evaluateSymbolic = [](Sizes x) -> std::optional<SymbolicSize> {
    std::optional<int64_t> condition = x[0].getConstant();
    if (!condition)
      return std::nullopt;
    return *condition ? x[1] : x[2];
  };
  where.emitFloat =
      where.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::SelectOp::create(b, x[0], x[1], x[2]);
  };
  add("Where", where, 3);

  add("Sqrt", unary<math::SqrtOp>([](double x) { return std::sqrt(x); }), 1);
  add("Erf", unary<math::ErfOp>([](double x) { return std::erf(x); }), 1);
  add("Tanh", unary<math::TanhOp>([](double x) { return std::tanh(x); }), 1);
  add("Exp", unary<math::ExpOp>([](double x) { return std::exp(x); }), 1);
  add("Log", unary<math::LogOp>([](double x) { return std::log(x); }), 1);
  add("Sin", unary<math::SinOp>([](double x) { return std::sin(x); }), 1);
  add("Cos", unary<math::CosOp>([](double x) { return std::cos(x); }), 1);
  add("Floor", unary<math::FloorOp>([](double x) { return std::floor(x); }),
      1);
  Elementwise abs = unary<math::AbsFOp>([](double x) { return std::abs(x); });
  abs.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return math::AbsIOp::create(b, x[0]);
  };
  add("Abs", abs, 1);
  Elementwise reciprocal;
  reciprocal.evaluate = [](ArrayRef<double> x) { return 1 / x[0]; };
  reciprocal.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::DivFOp::create(b, splatLike(b, x[0], 1), x[0]);
  };
  add("Reciprocal", reciprocal, 1);
  // Sigmoid as 1 / (1 + exp(-x)): exp(-x) overflows to infinity for
  // x < -88 and the quotient is then 0, as it should be.
  Elementwise sigmoid;
  sigmoid.evaluate = [](ArrayRef<double> x) {
    return 1 / (1 + std::exp(-x[0]));
  };
  sigmoid.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    Value one = splatLike(b, x[0], 1);
    Value e = math::ExpOp::create(b, arith::NegFOp::create(b, x[0]));
    return arith::DivFOp::create(b, one, arith::AddFOp::create(b, one, e));
  };
  add("Sigmoid", sigmoid, 1);
  Elementwise neg = unary<arith::NegFOp>([](double x) { return -x; });
  add("Neg", neg, 1);
  Elementwise relu;
  relu.evaluate = [](ArrayRef<double> x) { return std::max(x[0], 0.0); };
  relu.emitFloat = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::MaximumFOp::create(b, x[0], splatLike(b, x[0], 0));
  };
  add("Relu", relu, 1);
  Elementwise logicalNot;
  logicalNot.evaluate = [](ArrayRef<double> x) { return x[0] == 0 ? 1 : 0; };
  logicalNot.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::XOrIOp::create(b, x[0], splatLike(b, x[0], 1));
  };
  add("Not", logicalNot, 1);

  table["Mod"] = importMod;
  table["Cast"] = importCast;
  table["CastLike"] = importCastLike;
  table["Clip"] = importClip;
  table["Identity"] = importIdentity;
  table["Dropout"] = importDropout;
}
