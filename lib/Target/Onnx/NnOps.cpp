//===- NnOps.cpp - ONNX contractions and neural-network ops ---------------===//
//
// MatMul, Gemm, Einsum, LayerNormalization and Conv (as a ViT patch
// embedding). Products by a matrix become tfm.linear (the weight in
// nn.Linear's [N, K] layout), batched products tfm.batch_matmul, so that the
// graph optimizer sees the forms it fuses.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "tfm/Dialect/Tfm/IR/ConstantLayout.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstdio>
#include <map>
#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::onnx_import;

/// The transpose of the matrix `value` (a constant is transposed at import).
static Value transposeMatrix(Importer &importer, Value value,
                             DenseElementsAttr constant) {
  auto type = cast<RankedTensorType>(value.getType());
  if (constant)
    if (DenseElementsAttr transposed = transposeConstantMatrix(constant))
      return importer.constant(transposed);
  // A computed matrix may have dynamic sizes: its transpose's are its own,
  // swapped.
  SymbolicShape shape = importer.shapeOf(value);
  std::swap(shape[0], shape[1]);
  return importer.withShape(
      linalg::TransposeOp::create(
          importer.builder(), value,
          importer.empty(shape, type.getElementType()),
          ArrayRef<int64_t>{1, 0})
          ->getResult(0),
      shape);
}

static LogicalResult importMatMul(Importer &importer,
                                  const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> lhsType = getFloatType(importer, node, 0);
  FailureOr<RankedTensorType> rhsType = getFloatType(importer, node, 1);
  if (failed(lhsType) || failed(rhsType))
    return failure();
  if (lhsType->getRank() < 2 || rhsType->getRank() < 2)
    return importer.emitError()
           << "unsupported MatMul of a vector: " << *lhsType << " and "
           << *rhsType;
  if (lhsType->getElementType() != rhsType->getElementType())
    return importer.emitError()
           << "MatMul of " << *lhsType << " and " << *rhsType;
  int64_t k = lhsType->getShape().back(),
          rhsK = rhsType->getDimSize(rhsType->getRank() - 2);
  if (!ShapedType::isDynamic(k) && !ShapedType::isDynamic(rhsK) && rhsK != k)
    return importer.emitError() << "MatMul of " << *lhsType << " and "
                                << *rhsType << ": inner dimensions differ";
  FailureOr<Value> lhs = importer.getValue(node, 0);
  FailureOr<Value> rhs = importer.getValue(node, 1);
  if (failed(lhs) || failed(rhs))
    return failure();
  ImplicitLocOpBuilder &b = importer.builder();
  // Inner dimensions that are dynamic sizes of different names are checked
  // when the model runs.
  SymbolicSize lhsInner = importer.shapeOf(*lhs).back();
  SymbolicSize rhsInner =
      importer.shapeOf(*rhs)[rhsType->getRank() - 2];
  if (lhsInner != rhsInner)
    importer.assertEqual(lhsInner, rhsInner,
                         "the inner dimensions of the product differ: " +
                             importer.str(lhsInner) + " and " +
                             importer.str(rhsInner));

  // x · W for a matrix W: nn.Linear with the weight Wᵀ.
  if (rhsType->getRank() == 2) {
    Value weight =
        transposeMatrix(importer, *rhs, importer.getConstant(node, 1));
    SymbolicShape shape = importer.shapeOf(*lhs);
    shape.back() = rhsType->getDimSize(1);
    return importer.setValue(
        node, 0,
        importer.withShape(LinearOp::create(b, *lhs, weight, /*bias=*/Value()),
                           shape));
  }

  // Batched: broadcast the batch dimensions, then tfm.batch_matmul.
  SymbolicShape lhsShape = importer.shapeOf(*lhs),
                rhsShape = importer.shapeOf(*rhs);
  ArrayRef<SymbolicSize> lhsBatch = ArrayRef(lhsShape).drop_back(2),
                         rhsBatch = ArrayRef(rhsShape).drop_back(2);
  size_t rank = std::max(lhsBatch.size(), rhsBatch.size());
  SymbolicShape batch(rank, SymbolicSize(1));
  for (size_t i = 0; i < rank; ++i) {
    SymbolicSize x = i < rank - lhsBatch.size()
                         ? SymbolicSize(1)
                         : lhsBatch[i - (rank - lhsBatch.size())];
    SymbolicSize y = i < rank - rhsBatch.size()
                         ? SymbolicSize(1)
                         : rhsBatch[i - (rank - rhsBatch.size())];
    if (x != y && x != SymbolicSize(1) && y != SymbolicSize(1) &&
        !importer.unify(x, y,
                        "MatMul's batch sizes " + importer.str(x) + " and " +
                            importer.str(y) + " differ"))
      return importer.emitError()
             << "MatMul of " << importer.str(lhsShape) << " and "
             << importer.str(rhsShape) << ": batch dimensions do not broadcast";
    batch[i] = x == SymbolicSize(1) ? y : x;
  }
  auto withBatch = [&](Value value, ArrayRef<SymbolicSize> shape) {
    SymbolicShape full(batch);
    llvm::append_range(full, shape.take_back(2));
    return importer.broadcastTo(value, full);
  };
  SymbolicShape shape(batch);
  shape.push_back(lhsShape[lhsShape.size() - 2]);
  shape.push_back(rhsShape.back());
  return importer.setValue(
      node, 0,
      importer.withShape(BatchMatmulOp::create(b, withBatch(*lhs, lhsShape),
                                               withBatch(*rhs, rhsShape),
                                               UnitAttr()),
                         shape));
}

static LogicalResult importGemm(Importer &importer,
                                const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> aType = getFloatType(importer, node, 0);
  FailureOr<RankedTensorType> bType = getFloatType(importer, node, 1);
  if (failed(aType) || failed(bType))
    return failure();
  if (aType->getRank() != 2 || bType->getRank() != 2)
    return importer.emitError()
           << "Gemm needs matrices, found " << *aType << " and " << *bType;
  FailureOr<Value> a = importer.getValue(node, 0);
  FailureOr<Value> bValue = importer.getValue(node, 1);
  if (failed(a) || failed(bValue))
    return failure();
  ImplicitLocOpBuilder &b = importer.builder();
  float alpha = getFloatAttr(node, "alpha", 1.0f);
  float beta = getFloatAttr(node, "beta", 1.0f);
  Value input = *a;
  if (getIntAttr(node, "transA", 0)) {
    if (!aType->hasStaticShape())
      return importer.emitError()
             << "unsupported Gemm with transA of a matrix of dynamic shape";
    input = transposeMatrix(importer, input, importer.getConstant(node, 0));
  }
  // tfm.linear wants B in [N, K]: Gemm's transB = 1 is that layout.
  Value weight = *bValue;
  if (!getIntAttr(node, "transB", 0))
    weight = transposeMatrix(importer, weight, importer.getConstant(node, 1));
  auto inputType = cast<RankedTensorType>(input.getType());
  auto weightType = cast<RankedTensorType>(weight.getType());
  if (inputType.getDimSize(1) != weightType.getDimSize(1))
    return importer.emitError() << "Gemm of " << *aType << " and " << *bType
                                << ": inner dimensions differ";
  int64_t n = weightType.getDimSize(0);

  Value bias;
  bool biasInLinear = false;
  if (Importer::hasInput(node, 2)) {
    FailureOr<RankedTensorType> cType = getFloatType(importer, node, 2);
    FailureOr<Value> c = importer.getValue(node, 2);
    if (failed(cType) || failed(c))
      return failure();
    if (!cType->hasStaticShape() ||
        (cType->getRank() == 2 && cType->getDimSize(0) != 1 &&
         cType->getDimSize(0) != inputType.getDimSize(0)) ||
        !broadcastShapes(cType->getShape(), {1, n}))
      return importer.emitError()
             << "Gemm's C " << *cType << " does not broadcast to the result";
    bias = *c;
    biasInLinear = beta == 1.0f && alpha == 1.0f &&
                   cType->getShape() == ArrayRef<int64_t>{n};
  }
  SymbolicShape shape{importer.shapeOf(input)[0], n};
  Type elementType = inputType.getElementType();
  Value result = importer.withShape(
      LinearOp::create(b, input, weight, biasInLinear ? bias : Value()), shape);
  if (alpha != 1.0f)
    result = importer.withShape(
        arith::MulFOp::create(b, result,
                              importer.splat(shape, elementType, alpha)),
        shape);
  if (bias && !biasInLinear) {
    Value c = importer.broadcastTo(bias, shape);
    if (beta != 1.0f)
      c = importer.withShape(
          arith::MulFOp::create(b, c, importer.splat(shape, elementType, beta)),
          shape);
    result = importer.withShape(arith::AddFOp::create(b, result, c), shape);
  }
  return importer.setValue(node, 0, result);
}

/// The double with the fewest decimal digits that rounds to `value`: the
/// epsilon 1e-5 of a float attribute is 1e-5, not 9.99999974e-06.
static double shortestDouble(float value) {
  for (int digits = 1; digits < 9; ++digits) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.*g", digits, value);
    double candidate = std::strtod(text, nullptr);
    if (static_cast<float>(candidate) == value)
      return candidate;
  }
  return value;
}

static LogicalResult importLayerNormalization(Importer &importer,
                                              const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  FailureOr<RankedTensorType> scaleType = getFloatType(importer, node, 1);
  if (failed(type) || failed(scaleType))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(importer, getIntAttr(node, "axis", -1), type->getRank());
  if (failed(axis))
    return failure();
  int64_t d = type->getShape().back();
  bool extraOutputs = llvm::any_of(
      llvm::seq<int>(1, node.output_size()),
      [&](int i) { return !node.output(i).empty(); });
  if (*axis != type->getRank() - 1 || extraOutputs)
    return importDecomposedLayerNormalization(importer, node, *axis);
  if (ShapedType::isDynamic(d))
    return importer.emitError()
           << "unsupported LayerNormalization over a dimension of dynamic "
              "size";
  auto vectorType = RankedTensorType::get({d}, type->getElementType());
  if (scaleType->getNumElements() != d ||
      scaleType->getElementType() != type->getElementType())
    return importer.emitError() << "LayerNormalization's scale " << *scaleType
                                << " does not match " << *type;
  FailureOr<Value> input = importer.getValue(node, 0);
  FailureOr<Value> scale = importer.getValue(node, 1);
  if (failed(input) || failed(scale))
    return failure();
  Value gamma = importer.reshape(*scale, {d});
  Value beta;
  if (Importer::hasInput(node, 2)) {
    FailureOr<RankedTensorType> biasType = getFloatType(importer, node, 2);
    FailureOr<Value> bias = importer.getValue(node, 2);
    if (failed(biasType) || failed(bias))
      return failure();
    if (biasType->getNumElements() != d ||
        biasType->getElementType() != type->getElementType())
      return importer.emitError() << "LayerNormalization's bias " << *biasType
                                  << " does not match " << *type;
    beta = importer.reshape(*bias, {d});
  } else {
    beta = importer.splat(vectorType, 0);
  }
  double epsilon = shortestDouble(getFloatAttr(node, "epsilon", 1e-5f));
  return importer.setValue(
      node, 0,
      importer.withShape(
          LayerNormOp::create(importer.builder(), *input, gamma, beta,
                              importer.builder().getF64FloatAttr(epsilon)),
          importer.shapeOf(*input)));
}

/// Conv as a ViT patch embedding: kernel == stride, no padding.
static LogicalResult importConv(Importer &importer,
                                const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  FailureOr<RankedTensorType> weightType = getFloatType(importer, node, 1);
  if (failed(type) || failed(weightType))
    return failure();
  if (type->getRank() != 4 || weightType->getRank() != 4)
    return importer.emitError()
           << "unsupported Conv: tfm imports 2-D convolutions only, found "
           << *type;
  SmallVector<int64_t> kernel(weightType->getShape().drop_front(2));
  if (llvm::any_of(kernel, [](int64_t k) { return k == 0; }))
    return importer.emitError()
           << "Conv's kernel is empty: its weight is " << *weightType;
  auto attrOr = [&](StringRef name, SmallVector<int64_t> defaultValue) {
    return getIntsAttr(node, name).value_or(defaultValue);
  };
  bool isPatchEmbed =
      kernel[0] > 0 && kernel[1] > 0 &&
      attrOr("kernel_shape", kernel) == kernel &&
      attrOr("strides", {1, 1}) == kernel &&
      attrOr("dilations", {1, 1}) == SmallVector<int64_t>{1, 1} &&
      llvm::all_of(attrOr("pads", {0, 0, 0, 0}),
                   [](int64_t p) { return p == 0; }) &&
      getIntAttr(node, "group", 1) == 1 &&
      llvm::none_of(type->getShape().drop_front(), ShapedType::isDynamic) &&
      type->getDimSize(1) == weightType->getDimSize(1) &&
      type->getDimSize(2) % kernel[0] == 0 &&
      type->getDimSize(3) % kernel[1] == 0;
  if (!isPatchEmbed)
    return importer.emitError()
           << "unsupported Conv: tfm imports convolutions whose stride "
              "equals the kernel, without padding, dilation or groups "
              "(patch embeddings)";
  FailureOr<Value> image = importer.getValue(node, 0);
  FailureOr<Value> weight = importer.getValue(node, 1);
  if (failed(image) || failed(weight))
    return failure();
  int64_t d = weightType->getDimSize(0);
  Value bias;
  if (Importer::hasInput(node, 2)) {
    FailureOr<RankedTensorType> biasType = getFloatType(importer, node, 2);
    FailureOr<Value> value = importer.getValue(node, 2);
    if (failed(biasType) || failed(value))
      return failure();
    if (biasType->getShape() != ArrayRef<int64_t>{d})
      return importer.emitError() << "Conv's bias " << *biasType
                                  << " does not match " << *weightType;
    bias = *value;
  }
  ImplicitLocOpBuilder &b = importer.builder();
  // [B, N, D] -> Conv's [B, D, H/ph, W/pw].
  Value patches = PatchEmbedOp::create(b, *image, *weight, bias);
  auto patchesType = cast<RankedTensorType>(patches.getType());
  SymbolicSize batch = importer.shapeOf(*image)[0];
  int64_t n = patchesType.getDimSize(1);
  importer.withShape(patches, {batch, n, d});
  SymbolicShape transposedShape{batch, d, n};
  Value transposed = importer.withShape(
      linalg::TransposeOp::create(
          b, patches, importer.empty(transposedShape, type->getElementType()),
          ArrayRef<int64_t>{0, 2, 1})
          ->getResult(0),
      transposedShape);
  return importer.setValue(
      node, 0,
      importer.reshape(transposed,
                       {batch, d, type->getDimSize(2) / kernel[0],
                        type->getDimSize(3) / kernel[1]}));
}

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

namespace {
/// The subscripts of an Einsum's operands and result, each a list of
/// labels: a letter's code, or kEllipsis + k for the k-th dimension of the
/// broadcast dimensions that `...` stands for (numbered from the left of
/// the widest `...`).
struct EinsumSubscripts {
  static constexpr int kEllipsis = 1 << 10;
  SmallVector<SmallVector<int>> inputs;
  SmallVector<int> output;
};
} // namespace

/// Parses `equation` for operands of `ranks`; emits an error on a malformed
/// one.
static FailureOr<EinsumSubscripts>
parseEinsum(Importer &importer, StringRef equation, ArrayRef<int64_t> ranks) {
  std::string compact;
  for (char c : equation)
    if (c != ' ')
      compact.push_back(c);
  StringRef text(compact);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return importer.emitError()
           << "Einsum's equation '" << equation << "' has " << terms.size()
           << " operands, the node " << ranks.size();
  // The labels of one term for an operand of `rank` dimensions (the
  // result's rank is that of the broadcast dimensions plus its letters).
  int64_t ellipsisRank = 0;
  auto parseTerm = [&](StringRef term, int64_t rank,
                       SmallVector<int> &labels) -> LogicalResult {
    size_t dots = term.find("...");
    int64_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    for (char c : term)
      if (c != '.' && !llvm::isAlpha(c))
        return importer.emitError()
               << "Einsum's equation '" << equation << "' has '" << c
               << "', which is no subscript";
    if (dots != StringRef::npos && term.find("...", dots + 1) != StringRef::npos)
      return importer.emitError() << "Einsum's equation '" << equation
                                  << "' has two ellipses in one term";
    int64_t broadcast = rank < 0 ? ellipsisRank : rank - letters;
    if (broadcast < 0 || (dots == StringRef::npos && broadcast != 0))
      return importer.emitError()
             << "Einsum's term '" << term << "' does not match its operand "
             << "of rank " << rank;
    for (size_t i = 0; i < term.size(); ++i) {
      if (i == dots) {
        for (int64_t k = 0; k < broadcast; ++k)
          labels.push_back(EinsumSubscripts::kEllipsis + ellipsisRank -
                           broadcast + k);
        i += 2;
        continue;
      }
      labels.push_back(term[i]);
    }
    return success();
  };
  EinsumSubscripts result;
  for (auto [term, rank] : llvm::zip_equal(terms, ranks)) {
    size_t dots = term.find("...");
    if (dots != StringRef::npos)
      ellipsisRank = std::max<int64_t>(
          ellipsisRank, rank - static_cast<int64_t>(term.size() - 3));
  }
  for (auto [term, rank] : llvm::zip_equal(terms, ranks))
    if (failed(parseTerm(term, rank, result.inputs.emplace_back())))
      return failure();
  if (explicitOutput) {
    if (failed(parseTerm(rhs, -1, result.output)))
      return failure();
    ArrayRef<int> output(result.output);
    for (size_t i = 0; i < output.size(); ++i) {
      int label = output[i];
      if (llvm::is_contained(output.drop_front(i + 1), label))
        return importer.emitError() << "Einsum's result '" << rhs
                                    << "' repeats a subscript";
      if (llvm::none_of(result.inputs, [&](ArrayRef<int> labels) {
            return llvm::is_contained(labels, label);
          }))
        return importer.emitError()
               << "Einsum's result '" << rhs
               << "' has a subscript that no operand has";
    }
    return result;
  }
  // Implicit output: the broadcast dimensions, then the letters that occur
  // once, in alphabetical order.
  for (int64_t k = 0; k < ellipsisRank; ++k)
    result.output.push_back(EinsumSubscripts::kEllipsis + k);
  std::map<int, int> counts;
  for (ArrayRef<int> labels : result.inputs)
    for (int label : labels)
      if (label < EinsumSubscripts::kEllipsis)
        ++counts[label];
  for (auto [label, count] : counts)
    if (count == 1)
      result.output.push_back(label);
  return result;
}

/// Einsum: one linalg.generic over the result's subscripts and then the
/// summed ones, whose body multiplies its operands' elements and adds the
/// product to the result's (a diagonal reads a dimension twice; a
/// broadcast dimension of size 1 reads index 0). A product of two operands
/// is a contraction that the CPU pipeline's matmul strategies recognise.
static LogicalResult importEinsum(Importer &importer,
                                  const onnx::NodeProto &node) {
  const onnx::AttributeProto *attr = getAttr(node, "equation");
  if (!attr)
    return importer.emitError() << "Einsum needs an 'equation' attribute";
  int numInputs = Importer::numInputs(node);
  if (numInputs < 1)
    return importer.emitError() << "Einsum expects one input or more";
  SmallVector<Value> operands;
  SmallVector<SymbolicShape> shapes;
  SmallVector<int64_t> ranks;
  Type elementType;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<RankedTensorType> type = importer.getType(node, i);
    FailureOr<Value> value = importer.getValue(node, i);
    if (failed(type) || failed(value))
      return failure();
    if (i == 0)
      elementType = type->getElementType();
    if (type->getElementType() != elementType)
      return importer.emitError()
             << "Einsum's operands have different element types: "
             << elementType << " and " << type->getElementType();
    if (elementType.isInteger(1))
      return importer.emitError()
             << "unsupported element type " << elementType << " for Einsum";
    operands.push_back(*value);
    shapes.push_back(importer.shapeOf(*value));
    ranks.push_back(type->getRank());
  }
  FailureOr<EinsumSubscripts> subscripts =
      parseEinsum(importer, attr->s(), ranks);
  if (failed(subscripts))
    return failure();

  // The loops: the result's subscripts, then the summed ones in order of
  // appearance; each loop's size is the first one other than 1 that an
  // operand gives it.
  SmallVector<int> loops(subscripts->output);
  for (ArrayRef<int> labels : subscripts->inputs)
    for (int label : labels)
      if (!llvm::is_contained(loops, label))
        loops.push_back(label);
  SmallVector<SymbolicSize> sizes(loops.size(), SymbolicSize(1));
  SmallVector<bool> sized(loops.size(), false);
  for (auto [labels, shape] : llvm::zip_equal(subscripts->inputs, shapes)) {
    for (auto [label, size] : llvm::zip_equal(labels, shape)) {
      size_t loop = llvm::find(loops, label) - loops.begin();
      if (size == SymbolicSize(1) || size == sizes[loop])
        continue;
      if (!sized[loop] || sizes[loop] == SymbolicSize(1)) {
        sizes[loop] = size;
        sized[loop] = true;
        continue;
      }
      if (!importer.unify(sizes[loop], size,
                          "Einsum's operands differ in the size of a "
                          "subscript"))
        return importer.emitError()
               << "Einsum's operands give one subscript the sizes "
               << importer.str(sizes[loop]) << " and " << importer.str(size);
    }
  }
  MLIRContext *ctx = importer.getContext();
  SmallVector<AffineMap> maps;
  for (auto [labels, shape] : llvm::zip_equal(subscripts->inputs, shapes)) {
    SmallVector<AffineExpr> exprs;
    for (auto [label, size] : llvm::zip_equal(labels, shape)) {
      size_t loop = llvm::find(loops, label) - loops.begin();
      exprs.push_back(size == SymbolicSize(1) && sizes[loop] != SymbolicSize(1)
                          ? getAffineConstantExpr(0, ctx)
                          : getAffineDimExpr(loop, ctx));
    }
    maps.push_back(AffineMap::get(loops.size(), 0, exprs, ctx));
  }
  SymbolicShape resultShape;
  SmallVector<AffineExpr> resultExprs;
  for (size_t i = 0; i < subscripts->output.size(); ++i) {
    resultShape.push_back(sizes[i]);
    resultExprs.push_back(getAffineDimExpr(i, ctx));
  }
  maps.push_back(AffineMap::get(loops.size(), 0, resultExprs, ctx));
  SmallVector<utils::IteratorType> iterators(loops.size(),
                                             utils::IteratorType::reduction);
  for (size_t i = 0; i < subscripts->output.size(); ++i)
    iterators[i] = utils::IteratorType::parallel;
  for (size_t loop = 0; loop < loops.size(); ++loop)
    if (!sized[loop] && sizes[loop] != SymbolicSize(1))
      return importer.emitError() << "Einsum: a subscript has no size";

  ImplicitLocOpBuilder &b = importer.builder();
  bool isFloat = isa<FloatType>(elementType);
  Value init = importer.splat(resultShape, elementType, 0);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{init.getType()}, operands, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nested, Location loc, ValueRange args) {
        Value product = args[0];
        for (Value x : args.drop_front().drop_back())
          product = isFloat ? Value(arith::MulFOp::create(nested, loc,
                                                          product, x))
                            : Value(arith::MulIOp::create(nested, loc,
                                                          product, x));
        Value sum = isFloat ? Value(arith::AddFOp::create(nested, loc,
                                                          args.back(),
                                                          product))
                            : Value(arith::AddIOp::create(nested, loc,
                                                          args.back(),
                                                          product));
        linalg::YieldOp::create(nested, loc, sum);
      });
  return importer.setValue(
      node, 0, importer.withShape(generic->getResult(0), resultShape));
}

void mlir::tfm::onnx_import::addNnHandlers(HandlerTable &table) {
  table["Einsum"] = importEinsum;
  table["MatMul"] = importMatMul;
  table["Gemm"] = importGemm;
  table["LayerNormalization"] = importLayerNormalization;
  table["Conv"] = importConv;
}
