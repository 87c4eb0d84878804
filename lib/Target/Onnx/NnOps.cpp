//===- NnOps.cpp - ONNX contractions and neural-network ops ---------------===//
//
// MatMul, Gemm, Softmax, ReduceMean, LayerNormalization and Conv (as a ViT
// patch embedding). Products by a matrix become tfm.linear (the weight in
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

static FailureOr<RankedTensorType>
getFloatType(Importer &importer, const onnx::NodeProto &node, int i) {
  FailureOr<RankedTensorType> type = importer.getType(node, i);
  if (failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return importer.emitError()
           << "unsupported element type " << type->getElementType() << " for "
           << node.op_type();
  return type;
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

static LogicalResult importSoftmax(Importer &importer,
                                   const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  // Before opset 13 Softmax coerced its input to 2-D at `axis` (default
  // 1) and normalized each row: over one axis only where that is the last.
  bool coerced = importer.getOpset() < 13;
  FailureOr<int64_t> axis = normalizeAxis(
      importer, getIntAttr(node, "axis", coerced ? 1 : -1), type->getRank());
  if (succeeded(axis) && coerced && *axis != type->getRank() - 1)
    return importer.emitError()
           << "unsupported at opset " << importer.getOpset()
           << ": before opset 13 Softmax normalizes over all the axes from "
              "'axis' ("
           << *axis << ") on; tfm imports it there only over the last axis";
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

static LogicalResult importMean(Importer &importer,
                                const onnx::NodeProto &node,
                                RankedTensorType inputType,
                                ArrayRef<int64_t> axes, bool keepDims);

static LogicalResult importReduceMean(Importer &importer,
                                      const onnx::NodeProto &node) {
  FailureOr<RankedTensorType> type = getFloatType(importer, node, 0);
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<int64_t> axes;
  if (std::optional<SmallVector<int64_t>> attr = getIntsAttr(node, "axes"))
    axes = *attr;
  else
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &axis : axes) {
    FailureOr<int64_t> normalized = normalizeAxis(importer, axis, rank);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  }
  llvm::sort(axes);
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return importMean(importer, node, *type, axes,
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
                    /*keepDims=*/true);
}

/// The mean of input 0 (of `type`) over the sorted `axes`.
static LogicalResult importMean(Importer &importer,
                                const onnx::NodeProto &node,
                                RankedTensorType inputType,
                                ArrayRef<int64_t> axes, bool keepDims) {
  int64_t rank = inputType.getRank();
  FailureOr<Value> value = importer.getValue(node, 0);
  if (failed(value))
    return failure();
  SymbolicShape shape = importer.shapeOf(*value);
  SymbolicShape reducedShape, keptShape;
  SymbolicSize count(1);
  for (int64_t i = 0; i < rank; ++i) {
    if (llvm::is_contained(axes, i)) {
      count = count * shape[i];
      keptShape.push_back(1);
    } else {
      reducedShape.push_back(shape[i]);
      keptShape.push_back(shape[i]);
    }
  }
  if (count == SymbolicSize(0))
    return importer.emitError() << "ReduceMean over an empty dimension";
  ImplicitLocOpBuilder &b = importer.builder();
  Type elementType = inputType.getElementType();
  Value sum = linalg::ReduceOp::create(
                  b, *value, importer.splat(reducedShape, elementType, 0), axes,
                  [](OpBuilder &nested, Location loc, ValueRange args) {
                    Value add =
                        arith::AddFOp::create(nested, loc, args[0], args[1]);
                    linalg::YieldOp::create(nested, loc, add);
                  })
                  ->getResult(0);
  importer.withShape(sum, reducedShape);
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
  if (keepDims)
    mean = importer.reshape(mean, keptShape);
  return importer.setValue(node, 0, mean);
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
  if (ShapedType::isDynamic(d))
    return importer.emitError()
           << "unsupported LayerNormalization over a dimension of dynamic "
              "size";
  auto vectorType = RankedTensorType::get({d}, type->getElementType());
  if (*axis != type->getRank() - 1)
    return importer.emitError()
           << "unsupported LayerNormalization over more than the last "
              "dimension (axis "
           << *axis << " of " << *type << ")";
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

void mlir::tfm::onnx_import::addNnHandlers(HandlerTable &table) {
  table["MatMul"] = importMatMul;
  table["Gemm"] = importGemm;
  table["Softmax"] = importSoftmax;
  table["ReduceMean"] = importReduceMean;
  table["GlobalAveragePool"] = importGlobalAveragePool;
  table["LayerNormalization"] = importLayerNormalization;
  table["Conv"] = importConv;
}
