//===- Importer.h - State of one ONNX import --------------------*- C++ -*-===//
//
// Internal to the ONNX importer. An `Importer` walks the graph's nodes in
// order; each ONNX op has a handler (one file per op family) that reads its
// inputs, either as SSA values or, when they are known at import time, as
// `Literal`s, and defines its outputs. Handlers fold ops whose inputs are
// all literals, so that the shape subgraphs of exported models become
// constants; with dynamic axes those subgraphs compute on the symbolic
// sizes of SymbolicSize.h instead (`SymbolicLiteral`s), and every value of
// dynamic shape has its shape as symbolic sizes (`shapeOf`).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_TARGET_ONNX_IMPORTER_H
#define TFM_LIB_TARGET_ONNX_IMPORTER_H

#include "SymbolicSize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <functional>
#include <optional>
#include <vector>

namespace mlir::tfm::onnx_import {

/// The largest tensor the importer evaluates at import time: shapes,
/// indices and masks are far smaller, weights are never evaluated.
constexpr int64_t kMaxLiteralElements = 1 << 16;

/// A tensor known at import time, held as int64 or double values whatever
/// its element type. Only small tensors (shapes, indices, scalars, masks)
/// are evaluated this way; weights stay DenseElementsAttrs.
struct Literal {
  SmallVector<int64_t> shape;
  Type elementType;
  std::vector<int64_t> ints;  // integer and i1 elements
  std::vector<double> floats; // float elements

  bool isFloat() const { return isa<FloatType>(elementType); }
  int64_t size() const;
  double getDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
  int64_t getInt(int64_t i) const {
    return isFloat() ? static_cast<int64_t>(floats[i]) : ints[i];
  }
  /// A literal of `shape` and `type` with no elements yet.
  static Literal empty(ArrayRef<int64_t> shape, Type type);
  /// Appends element `i` of `source` (of the same element type).
  void push(const Literal &source, int64_t i);
  void pushDouble(double value);

  RankedTensorType getType() const {
    return RankedTensorType::get(shape, elementType);
  }
  DenseElementsAttr toAttr() const;
  static Literal fromAttr(DenseElementsAttr attr);
};

/// A rank-0 or rank-1 integer tensor known at import time up to the graph's
/// symbolic dimensions: what Shape gives for a tensor of dynamic shape, and
/// the arithmetic, gathers and concatenations of exported shape subgraphs
/// on it.
struct SymbolicLiteral {
  SmallVector<int64_t> shape;
  Type elementType;
  SymbolicShape elements;

  bool isConstant() const {
    return llvm::all_of(elements,
                        [](const SymbolicSize &e) { return e.isConstant(); });
  }
  Literal toLiteral() const;
  static SymbolicLiteral fromLiteral(const Literal &literal);
};

/// Strides of a row-major `shape`.
SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape);
/// The numpy broadcast of two shapes, or nullopt when they do not broadcast.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b);
/// The flat index into `shape` (right-aligned, broadcast) of the element at
/// flat index `index` of `outShape`.
int64_t broadcastIndex(ArrayRef<int64_t> outShape, int64_t index,
                       ArrayRef<int64_t> shape);

class Importer;
using NodeHandler =
    std::function<LogicalResult(Importer &, const onnx::NodeProto &)>;
using HandlerTable = llvm::StringMap<NodeHandler>;

/// The newest version of the default ONNX opset whose ops tfm's opset table
/// (Opsets.cpp) was checked against; models of newer opsets are refused.
constexpr int64_t kNewestOpset = 21;

/// Why an `opType` node of a model of `opset` is not imported (what the op
/// is at that opset, and the opsets tfm imports it for), or nullopt when
/// the op has there the semantics its handler implements.
std::optional<std::string> checkOpset(StringRef opType, int64_t opset);

/// The handlers of each op family, added to `table`.
void addElementwiseHandlers(HandlerTable &table);
void addShapeHandlers(HandlerTable &table);
void addNnHandlers(HandlerTable &table);
void addReduceHandlers(HandlerTable &table);

/// LayerNormalization over the axes from `axis` on, with its optional Mean
/// and InvStdDev outputs, as reductions and elementwise ops (ReduceOps.cpp):
/// the cases tfm.layer_norm (the last axis, one output) does not cover.
LogicalResult importDecomposedLayerNormalization(Importer &importer,
                                                 const onnx::NodeProto &node,
                                                 int64_t axis);

class Importer {
public:
  Importer(MLIRContext *context, StringRef filename);

  /// Imports `model` into a new module.
  OwningOpRef<ModuleOp> importModel(const onnx::ModelProto &model,
                                    bool &unsupported);

  //===--------------------------------------------------------------------===//
  // For the handlers
  //===--------------------------------------------------------------------===//

  ImplicitLocOpBuilder &builder() { return b; }
  MLIRContext *getContext() { return b.getContext(); }
  Location getLoc() { return b.getLoc(); }

  /// An error at the current node, whose message starts by naming it.
  InFlightDiagnostic emitError();

  /// The version of the default ONNX opset that the model imports.
  int64_t getOpset() const { return opset; }

  /// The number of inputs of `node`, not counting trailing empty names.
  static int numInputs(const onnx::NodeProto &node);
  /// Whether input `i` of `node` is present (not absent or empty).
  static bool hasInput(const onnx::NodeProto &node, int i) {
    return i < node.input_size() && !node.input(i).empty();
  }

  /// The type of input `i` of the current node.
  FailureOr<RankedTensorType> getType(const onnx::NodeProto &node, int i);
  /// Input `i` as an SSA value (materializing constants).
  FailureOr<Value> getValue(const onnx::NodeProto &node, int i);
  /// Input `i` as a literal, or nullopt when it is not known at import time
  /// (or is too large to evaluate).
  std::optional<Literal> getLiteral(const onnx::NodeProto &node, int i);
  /// Input `i` as a constant attribute, or null when it is not a constant.
  DenseElementsAttr getConstant(const onnx::NodeProto &node, int i);
  /// Input `i` as a literal of integers that must be known (a shape, axes):
  /// emits an error naming `what` otherwise.
  FailureOr<SmallVector<int64_t>> getInts(const onnx::NodeProto &node, int i,
                                          StringRef what);
  /// Ints that an op takes as input `i` from opset `since` on and as its
  /// attribute `what` before (Squeeze's and Unsqueeze's axes, Split's
  /// split, ReduceSum's axes): getInts of the input, or the attribute;
  /// nullopt when the node has neither.
  FailureOr<std::optional<SmallVector<int64_t>>>
  getIntsInputOrAttribute(const onnx::NodeProto &node, int i, StringRef what,
                          int64_t since);
  /// Whether every present input of `node` is known at import time.
  bool allLiterals(const onnx::NodeProto &node);

  /// The shape of input `i`, its dynamic dimensions as symbolic sizes.
  FailureOr<SymbolicShape> getShape(const onnx::NodeProto &node, int i);
  /// Input `i` as an integer tensor of rank 0 or 1 known up to symbolic
  /// sizes (an integer literal included), or nullopt.
  std::optional<SymbolicLiteral> getSymbolic(const onnx::NodeProto &node,
                                             int i);
  /// Whether input `i` holds symbolic sizes (not just a literal).
  bool isSymbolic(const onnx::NodeProto &node, int i) {
    return hasInput(node, i) && symbolics.count(node.input(i));
  }
  /// Like getInts, for inputs that may hold symbolic sizes (a shape
  /// computed from a dynamic tensor's Shape).
  FailureOr<SymbolicShape> getSizes(const onnx::NodeProto &node, int i,
                                    StringRef what);
  /// Defines output `i` as `literal`, a plain literal when every element is
  /// a constant.
  LogicalResult setSymbolic(const onnx::NodeProto &node, int i,
                            const SymbolicLiteral &literal);

  /// The symbolic shape of `value`, created by the importer: from its type
  /// when static, else as recorded with `withShape`.
  SymbolicShape shapeOf(Value value);
  /// Records `shape` as the shape of `value` (whose type has the static
  /// sizes of `shape`) and returns `value`.
  Value withShape(Value value, ArrayRef<SymbolicSize> shape);
  /// `size` printed with the graph's dimension names.
  std::string str(const SymbolicSize &size) { return size.str(symbolNames); }
  std::string str(ArrayRef<SymbolicSize> shape);

  /// Defines output `i` of the current node.
  LogicalResult setValue(const onnx::NodeProto &node, int i, Value value);
  LogicalResult setLiteral(const onnx::NodeProto &node, int i,
                           const Literal &literal);
  LogicalResult setConstant(const onnx::NodeProto &node, int i,
                            DenseElementsAttr attr);

  /// Converts an ONNX TensorProto into an attribute, checking its data
  /// against its shape.
  FailureOr<DenseElementsAttr> convertTensor(const onnx::TensorProto &tensor);
  /// The MLIR element type of an ONNX data type, or null.
  Type convertDataType(int32_t dataType);
  /// The name of an ONNX data type as the standard spells it (`UINT8`), or
  /// `data type <n>` for a number the standard does not define.
  static std::string dataTypeName(int32_t dataType);

  //===--------------------------------------------------------------------===//
  // IR helpers
  //===--------------------------------------------------------------------===//

  Value constant(DenseElementsAttr attr);
  /// The value of `size` as an index (tensor.dim of the graph input that
  /// first has each symbol, and arithmetic on them).
  Value materialize(const SymbolicSize &size);
  /// Each of `sizes` as an attribute when constant, else materialized.
  SmallVector<OpFoldResult> getMixedSizes(ArrayRef<SymbolicSize> sizes);
  /// tensor.empty of `shape`.
  Value empty(ArrayRef<SymbolicSize> shape, Type elementType);
  /// Checks at run time that `size` is at most `bound`, stopping the program
  /// with `message` (which the node's name starts) otherwise: the bounds
  /// that symbolic sizes must respect and that ONNX would clamp (a Slice of
  /// the first `seq` rows of a table of 512).
  void assertAtMost(const SymbolicSize &size, const SymbolicSize &bound,
                    const Twine &message);
  /// Makes `a` and `b` one size where an op requires them equal and only
  /// the run can tell: two different dynamic sizes (torch names each
  /// input's axes on its own, `input_ids_dynamic_axes_1` and
  /// `past_key_0_dynamic_axes_1` for one batch) become one, checked equal
  /// when the model runs, with `message`. False, doing nothing, where they
  /// cannot be: different constants, or sizes that are not both a single
  /// dynamic size.
  bool unify(const SymbolicSize &a, const SymbolicSize &b,
             const Twine &message);
  /// Names the dynamic sizes of the entry's argument `arg` (`tfm.dims`) by
  /// the dim_params of `shape`, unified sizes by the one they became.
  void setDimNames(func::FuncOp func, unsigned arg,
                   ArrayRef<SymbolicSize> shape);
  /// `size` with each unified dynamic size replaced by the one it became.
  SymbolicSize canonical(const SymbolicSize &size);
  /// Like assertAtMost, for `lhs == rhs` (nothing when they are equal
  /// constants).
  void assertEqual(const SymbolicSize &lhs, const SymbolicSize &rhs,
                   const Twine &message);
  /// A tensor of `shape` filled with `value` (a splat constant when the
  /// shape is static, else linalg.fill).
  Value splat(ArrayRef<SymbolicSize> shape, Type elementType, double value);
  /// A splat constant of `type`.
  Value splat(RankedTensorType type, double value);
  /// `value` broadcast (numpy rules) to `shape`.
  Value broadcastTo(Value value, ArrayRef<SymbolicSize> shape);
  /// `value` reshaped to `shape` (same number of elements), as collapses and
  /// expansions of groups of dimensions.
  Value reshape(Value value, ArrayRef<SymbolicSize> shape);
  /// tensor.empty of `type`.
  Value empty(RankedTensorType type);

private:
  LogicalResult importGraph(const onnx::GraphProto &graph, ModuleOp module);
  LogicalResult importNode(const onnx::NodeProto &node, int index);
  /// Fails, naming the attribute, if one that the handlers read has another
  /// type than ONNX gives it (a float `axis`); the readers would otherwise
  /// take the default.
  LogicalResult checkAttributeTypes(const onnx::NodeProto &node);
  LogicalResult checkSupported(const onnx::GraphProto &graph);
  LogicalResult define(const onnx::NodeProto &node, int i);
  /// The type of graph input `info` of `graph`, its dimensions in `shape`.
  FailureOr<RankedTensorType> convertValueInfo(const onnx::ValueInfoProto &info,
                                               const onnx::GraphProto &graph,
                                               SymbolicShape &shape);

  ImplicitLocOpBuilder b;
  StringAttr filename;
  /// The node being imported, if any, and its index in the graph.
  const onnx::NodeProto *currentNode = nullptr;
  int currentIndex = 0;
  /// The version of the default opset the model imports.
  int64_t opset = 0;
  HandlerTable handlers;
  /// SSA values by ONNX name.
  llvm::StringMap<Value> values;
  /// Values known at import time, by ONNX name.
  llvm::StringMap<DenseElementsAttr> constants;
  /// Integer vectors known up to symbolic sizes, by ONNX name.
  llvm::StringMap<SymbolicLiteral> symbolics;
  /// The shapes of the values of dynamic shape.
  DenseMap<Value, SymbolicShape> shapes;
  /// The graph's symbolic dimensions (dim_param names) and, for each, the
  /// graph input and dimension that first has it.
  SmallVector<std::string> symbolNames;
  SmallVector<std::pair<Value, int64_t>> symbolSources;
  /// The run-time check `lhs predicate rhs`, its message located at the
  /// node being imported (assertAtMost, assertEqual).
  void assertSizes(arith::CmpIPredicate predicate, const SymbolicSize &lhs,
                   const SymbolicSize &rhs, const Twine &message);
  /// Unified dynamic sizes: each symbol to the one it became (unify).
  DenseMap<unsigned, unsigned> unifiedSymbols;
  /// The graph input (argument number) that introduces each symbol.
  SmallVector<unsigned> symbolArgs;
};

/// Attribute access with defaults.
int64_t getIntAttr(const onnx::NodeProto &node, StringRef name,
                   int64_t defaultValue);
float getFloatAttr(const onnx::NodeProto &node, StringRef name,
                   float defaultValue);
std::optional<SmallVector<int64_t>> getIntsAttr(const onnx::NodeProto &node,
                                                StringRef name);
const onnx::AttributeProto *getAttr(const onnx::NodeProto &node,
                                    StringRef name);

/// The type of input `i` of `node`, which must have float elements: emits
/// an error naming the op otherwise.
FailureOr<RankedTensorType> getFloatType(Importer &importer,
                                         const onnx::NodeProto &node, int i);

/// The type of input `i` of `node`, which must have float or integer
/// elements, not bool: emits an error naming the op otherwise.
FailureOr<RankedTensorType> getNumericType(Importer &importer,
                                           const onnx::NodeProto &node, int i);

/// Normalizes `axis` in [-rank, rank) to [0, rank); emits an error and
/// fails when it is out of range.
FailureOr<int64_t> normalizeAxis(Importer &importer, int64_t axis,
                                 int64_t rank);

} // namespace mlir::tfm::onnx_import

#endif // TFM_LIB_TARGET_ONNX_IMPORTER_H
