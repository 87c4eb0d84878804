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
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

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
};

} // namespace

/// The shape all `types` broadcast to, or failure with an error.
static FailureOr<SmallVector<int64_t>>
broadcastAll(Importer &importer, ArrayRef<RankedTensorType> types) {
  SmallVector<int64_t> shape(types.front().getShape());
  for (RankedTensorType type : types.drop_front()) {
    std::optional<SmallVector<int64_t>> joined =
        broadcastShapes(shape, type.getShape());
    if (!joined) {
      InFlightDiagnostic diag = importer.emitError()
                                << "operand shapes do not broadcast: ";
      llvm::interleaveComma(types, diag);
      return failure();
    }
    shape = *joined;
  }
  return shape;
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

static LogicalResult importElementwise(Importer &importer,
                                       const onnx::NodeProto &node,
                                       const Elementwise &op, int arity) {
  if (Importer::numInputs(node) != arity)
    return importer.emitError()
           << node.op_type() << " expects " << arity << " inputs, found "
           << Importer::numInputs(node);
  SmallVector<RankedTensorType> types;
  for (int i = 0; i < arity; ++i) {
    FailureOr<RankedTensorType> type = importer.getType(node, i);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  FailureOr<SmallVector<int64_t>> shape = broadcastAll(importer, types);
  if (failed(shape))
    return failure();
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
  if (llvm::any_of(*shape, [](int64_t d) { return d == 0; }) &&
      !importer.allLiterals(node))
    return importer.emitError() << "empty tensors are not supported";

  int64_t count = 1;
  for (int64_t dim : *shape)
    count *= dim;
  if (importer.allLiterals(node) && count <= kMaxLiteralElements) {
    SmallVector<Literal> literals;
    for (int i = 0; i < arity; ++i)
      literals.push_back(*importer.getLiteral(node, i));
    return importer.setLiteral(node, 0,
                               evaluate(op, literals, *shape, resultType));
  }

  bool isFloat = isa<FloatType>(elementType);
  const auto &emit = isFloat ? op.emitFloat : op.emitInt;
  if (!emit)
    return importer.emitError() << "unsupported element type " << elementType
                                << " for " << node.op_type();
  SmallVector<Value> operands;
  for (int i = 0; i < arity; ++i) {
    auto fullType = RankedTensorType::get(*shape, types[i].getElementType());
    DenseElementsAttr attr = importer.getConstant(node, i);
    if (attr && attr.isSplat()) {
      operands.push_back(importer.constant(attr.resizeSplat(fullType)));
      continue;
    }
    FailureOr<Value> value = importer.getValue(node, i);
    if (failed(value))
      return failure();
    operands.push_back(importer.broadcastTo(*value, *shape));
  }
  return importer.setValue(node, 0, emit(importer.builder(), operands));
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

/// A splat of `like`'s type holding `value`.
static Value splatLike(ImplicitLocOpBuilder &b, Value like, double value) {
  auto type = cast<RankedTensorType>(like.getType());
  Type elementType = type.getElementType();
  Attribute element =
      isa<FloatType>(elementType)
          ? Attribute(b.getFloatAttr(elementType, value))
          : Attribute(b.getIntegerAttr(elementType, int64_t(value)));
  return arith::ConstantOp::create(b, DenseElementsAttr::get(type, element));
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

static LogicalResult importCast(Importer &importer,
                                const onnx::NodeProto &node) {
  Type to = importer.convertDataType(getIntAttr(node, "to", 0));
  if (!to)
    return importer.emitError() << "unsupported data type "
                                << getIntAttr(node, "to", 0) << " for Cast";
  if (std::optional<Literal> literal = importer.getLiteral(node, 0)) {
    Literal result = Literal::empty(literal->shape, to);
    for (int64_t i = 0, e = literal->size(); i < e; ++i) {
      double value = literal->getDouble(i);
      result.pushDouble(isa<FloatType>(to) ? value : std::trunc(value));
    }
    return importer.setLiteral(node, 0, result);
  }
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, emitCast(importer.builder(), *value, to));
}

//===----------------------------------------------------------------------===//
// Pass-through ops
//===----------------------------------------------------------------------===//

/// Identity, and Dropout at inference (its mask output is not supported).
static LogicalResult importIdentity(Importer &importer,
                                    const onnx::NodeProto &node) {
  if (DenseElementsAttr attr = importer.getConstant(node, 0))
    return importer.setConstant(node, 0, attr);
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  return importer.setValue(node, 0, *value);
}

void mlir::tfm::onnx_import::addElementwiseHandlers(HandlerTable &table) {
  auto add = [&](StringRef name, Elementwise op, int arity) {
    table[name] = [op, arity](Importer &importer, const onnx::NodeProto &node) {
      return importElementwise(importer, node, op, arity);
    };
  };
  add("Add", binary<arith::AddFOp, arith::AddIOp>([](double a, double b) {
        return a + b;
      }),
      2);
  add("Sub", binary<arith::SubFOp, arith::SubIOp>([](double a, double b) {
        return a - b;
      }),
      2);
  add("Mul", binary<arith::MulFOp, arith::MulIOp>([](double a, double b) {
        return a * b;
      }),
      2);
  add("Div", binary<arith::DivFOp, arith::DivSIOp>([](double a, double b) {
        return b == 0 ? 0.0 : a / b;
      }),
      2);
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
  add("Equal",
      compare(arith::CmpFPredicate::OEQ, arith::CmpIPredicate::eq,
              [](double a, double b) { return a == b; }),
      2);
  add("Less",
      compare(arith::CmpFPredicate::OLT, arith::CmpIPredicate::slt,
              [](double a, double b) { return a < b; }),
      2);
  add("Greater",
      compare(arith::CmpFPredicate::OGT, arith::CmpIPredicate::sgt,
              [](double a, double b) { return a > b; }),
      2);
  Elementwise logicalAnd;
  logicalAnd.evaluate = [](ArrayRef<double> x) {
    return x[0] != 0 && x[1] != 0 ? 1.0 : 0.0;
  };
  logicalAnd.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::AndIOp::create(b, x[0], x[1]);
  };
  add("And", logicalAnd, 2);

  Elementwise where;
  where.sameTypes = false;
  where.resultOperand = 1;
  where.conditionOperand = 0;
  where.evaluate = [](ArrayRef<double> x) { return x[0] != 0 ? x[1] : x[2]; };
  where.emitFloat =
      where.emitInt = [](ImplicitLocOpBuilder &b, ValueRange x) -> Value {
    return arith::SelectOp::create(b, x[0], x[1], x[2]);
  };
  add("Where", where, 3);

  add("Sqrt", unary<math::SqrtOp>([](double x) { return std::sqrt(x); }), 1);
  add("Erf", unary<math::ErfOp>([](double x) { return std::erf(x); }), 1);
  add("Tanh", unary<math::TanhOp>([](double x) { return std::tanh(x); }), 1);
  add("Exp", unary<math::ExpOp>([](double x) { return std::exp(x); }), 1);
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

  table["Cast"] = importCast;
  table["Identity"] = importIdentity;
  table["Dropout"] = importIdentity;
}
