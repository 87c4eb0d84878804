//===- LayerOps.cpp - Lowering the layer family of tfm ops ----------------===//
//
// linear becomes a linalg.matmul against the transposed weight followed by
// one elementwise linalg.generic for the bias and the activation;
// layer_norm becomes two reductions (mean, then biased variance) and one
// elementwise normalization; gelu is elementwise; dropout is the identity.
// Statistics and matmuls accumulate in f32 whatever the element type.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace {

//===----------------------------------------------------------------------===//
// Scalar bodies
//===----------------------------------------------------------------------===//

Value createF32Constant(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

/// `0.5 x (1 + erf(x / sqrt(2)))` on the f32 scalar `x`.
Value createGeluErf(OpBuilder &b, Location loc, Value x) {
  Value scaled =
      arith::MulFOp::create(b, loc, x, createF32Constant(b, loc, M_SQRT1_2));
  Value erf = math::ErfOp::create(b, loc, scaled);
  Value onePlus =
      arith::AddFOp::create(b, loc, createF32Constant(b, loc, 1.0), erf);
  Value half = arith::MulFOp::create(b, loc, x, createF32Constant(b, loc, 0.5));
  return arith::MulFOp::create(b, loc, half, onePlus);
}

/// `0.5 x (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))` on the f32 scalar `x`.
Value createGeluTanh(OpBuilder &b, Location loc, Value x) {
  Value cube =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
  Value inner = arith::AddFOp::create(
      b, loc, x,
      arith::MulFOp::create(b, loc, cube, createF32Constant(b, loc, 0.044715)));
  Value arg = arith::MulFOp::create(
      b, loc, inner, createF32Constant(b, loc, std::sqrt(2.0 / M_PI)));
  Value tanh = math::TanhOp::create(b, loc, arg);
  Value onePlus =
      arith::AddFOp::create(b, loc, createF32Constant(b, loc, 1.0), tanh);
  Value half = arith::MulFOp::create(b, loc, x, createF32Constant(b, loc, 0.5));
  return arith::MulFOp::create(b, loc, half, onePlus);
}

/// `x / (1 + exp(-x))`, SiLU, on the f32 scalar `x` (0 where exp(-x)
/// overflows, for x below -88).
Value createSilu(OpBuilder &b, Location loc, Value x) {
  Value exp = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  Value onePlus =
      arith::AddFOp::create(b, loc, createF32Constant(b, loc, 1.0), exp);
  return arith::DivFOp::create(b, loc, x, onePlus);
}

/// `max(x, 0)` on the f32 scalar `x`.
Value createRelu(OpBuilder &b, Location loc, Value x) {
  return arith::MaximumFOp::create(b, loc, x, createF32Constant(b, loc, 0.0));
}

using ScalarFn = Value (*)(OpBuilder &, Location, Value);

/// The f32 body of `activation`, or null for `none`.
ScalarFn getActivationFn(Activation activation) {
  switch (activation) {
  case Activation::none:
    return nullptr;
  case Activation::relu:
    return createRelu;
  case Activation::gelu:
    return createGeluErf;
  case Activation::gelu_tanh:
    return createGeluTanh;
  case Activation::silu:
    return createSilu;
  }
  llvm_unreachable("unknown activation");
}

/// Parallel iterators for a `linalg.generic` with `rank` loops.
SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

//===----------------------------------------------------------------------===//
// linear
//===----------------------------------------------------------------------===//

/// `[..., K]` -> collapse to `[M, K]`, `linalg.matmul` with the weight
/// `[N, K]` transposed into an f32 `[M, N]`, one `linalg.generic` adding the
/// bias and applying the activation, expand back to `[..., N]`.
///
/// When two or more leading dimensions are dynamic, the expansion back would
/// put several dynamic sizes in one reassociation group, which LLVM 22's
/// `expand-strided-metadata` cannot lower once bufferized (it crashes,
/// llvm-project#186830). Such inputs skip the reshapes: the product is a
/// `linalg.generic` contraction over the leading dimensions, N and K.
struct LowerLinear : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), weight = adaptor.getWeight();
    auto inType = cast<RankedTensorType>(input.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    Type elementType = inType.getElementType();
    int64_t rank = inType.getRank();
    bool collapse = rank > 2 && llvm::count_if(inType.getShape().drop_back(),
                                               ShapedType::isDynamic) <= 1;
    ReassociationIndices leading =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));

    // Bring the input to [M, K] (or leave it [..., K]).
    Value lhs = input;
    if (rank == 1) {
      auto type = RankedTensorType::get({1, inType.getDimSize(0)}, elementType);
      lhs = tensor::ExpandShapeOp::create(
          rewriter, loc, type, input, ArrayRef<ReassociationIndices>{{0, 1}},
          {rewriter.getIndexAttr(1),
           tensor::getMixedSize(rewriter, loc, input, 0)});
    } else if (collapse) {
      lhs = tensor::CollapseShapeOp::create(
          rewriter, loc, input,
          ArrayRef<ReassociationIndices>{leading, {rank - 1}});
    }

    Value acc = createMatmulTransposeB(rewriter, loc, lhs, weight);
    Value bias = adaptor.getBias();
    ScalarFn activation = getActivationFn(op.getActivation());
    Value result =
        activation ? createBiasEpilogue(rewriter, loc, acc, bias, elementType,
                                        activation)
                   : createBiasEpilogue(rewriter, loc, acc, bias, elementType);

    // Bring [M, N] back to [..., N].
    SmallVector<int64_t> shape(inType.getShape().drop_back());
    shape.push_back(weightType.getDimSize(0));
    auto resultType = RankedTensorType::get(shape, elementType);
    if (rank == 1) {
      result = tensor::CollapseShapeOp::create(
          rewriter, loc, resultType, result,
          ArrayRef<ReassociationIndices>{{0, 1}});
    } else if (collapse) {
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      sizes.back() = tensor::getMixedSize(rewriter, loc, weight, 0);
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, result,
          ArrayRef<ReassociationIndices>{leading, {rank - 1}}, sizes);
    }
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

/// Reduces the last dimension of `input` into an f32 tensor of the leading
/// dimensions: `acc += body(x, stats...)` where `x` is the input element
/// extended to f32 and `stats` are f32 tensors of the leading dimensions.
Value createRowReduction(
    OpBuilder &b, Location loc, Value input, ValueRange stats,
    function_ref<Value(OpBuilder &, Location, Value, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, input);
  sizes.pop_back();
  Value init = createFilledTensor(b, loc, sizes, b.getF32Type(), 0.0);

  auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  auto rowMap = getLeadingDimsMap(rank, rank - 1, ctx);
  SmallVector<AffineMap> maps{identity};
  SmallVector<Value> inputs{input};
  for (Value stat : stats) {
    maps.push_back(rowMap);
    inputs.push_back(stat);
  }
  maps.push_back(rowMap);
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.back() = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = convertFloat(nb, nloc, args.front(), nb.getF32Type());
        Value term = body(nb, nloc, x, args.slice(1, stats.size()));
        linalg::YieldOp::create(
            nb, nloc,
            arith::AddFOp::create(nb, nloc, args.back(), term).getResult());
      });
  return generic.getResult(0);
}

/// A per-row statistic from others (f32 tensors of the same leading
/// dimensions): `body(stats...)` for each row. The statistics are computed
/// once a row, not once an element of it: the normalization that reads
/// them then multiplies by a row's reciprocal where it would divide.
Value createRowStatistic(
    OpBuilder &b, Location loc, ValueRange stats,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  auto type = cast<RankedTensorType>(stats.front().getType());
  auto identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  SmallVector<AffineMap> maps(stats.size() + 1, identity);
  Value init = createEmptyLike(b, loc, type, stats.front());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, stats, ValueRange{init}, maps,
      parallelIterators(type.getRank()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args.drop_back()));
      });
  return generic.getResult(0);
}

/// `1 / sqrt(sumOfSquares / count + epsilon)` for each row.
Value createReciprocalRoot(OpBuilder &b, Location loc, Value sumOfSquares,
                           Value count, Value epsilon) {
  return createRowStatistic(
      b, loc, sumOfSquares, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value mean = arith::DivFOp::create(nb, l, args[0], count);
        Value root = math::SqrtOp::create(
            nb, l, arith::AddFOp::create(nb, l, mean, epsilon));
        Value one = createF32Constant(nb, l, 1.0);
        return arith::DivFOp::create(nb, l, one, root).getResult();
      });
}

/// Two reductions over the last dimension, `sum(x)` and
/// `sum((x - mean)²)`, the row's mean and `rstd = 1 / sqrt(var + eps)`,
/// then one elementwise `(x - mean) * rstd * gamma + beta`, all in f32.
struct LowerLayerNorm : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Type f32 = rewriter.getF32Type();
    Value count = createDimAsFloat(rewriter, loc, input, rank - 1, f32);

    Value sum = createRowReduction(
        rewriter, loc, input, {},
        [](OpBuilder &, Location, Value x, ValueRange) { return x; });
    Value mean = createRowStatistic(
        rewriter, loc, sum, [&](OpBuilder &b, Location l, ValueRange args) {
          return arith::DivFOp::create(b, l, args[0], count).getResult();
        });
    Value sqSum = createRowReduction(
        rewriter, loc, input, {mean},
        [&](OpBuilder &b, Location l, Value x, ValueRange stats) {
          Value centered = arith::SubFOp::create(b, l, x, stats[0]);
          return arith::MulFOp::create(b, l, centered, centered).getResult();
        });
    Value epsilon =
        createF32Constant(rewriter, loc, op.getEpsilon().convertToDouble());
    Value rstd = createReciprocalRoot(rewriter, loc, sqSum, count, epsilon);

    auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto rowMap = getLeadingDimsMap(rank, rank - 1, ctx);
    auto featureMap = identity.getMinorSubMap(1);
    Value init = createEmptyLike(rewriter, loc, type, input);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{input, mean, rstd, adaptor.getGamma(), adaptor.getBeta()},
        ValueRange{init},
        ArrayRef<AffineMap>{identity, rowMap, rowMap, featureMap, featureMap,
                            identity},
        parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertFloat(b, l, args[0], f32);
          Value normed = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, x, args[1]), args[2]);
          Value scaled = arith::MulFOp::create(
              b, l, normed, convertFloat(b, l, args[3], f32));
          Value shifted = arith::AddFOp::create(
              b, l, scaled, convertFloat(b, l, args[4], f32));
          linalg::YieldOp::create(
              b, l, convertFloat(b, l, shifted, type.getElementType()));
        });
    rewriter.replaceOp(op, castToTensorType(rewriter, loc, generic.getResult(0),
                                            op.getType()));
    return success();
  }
};

/// One reduction over the last dimension, `sum(x²)`, the row's
/// `1 / sqrt(sum / D + eps)`, then one elementwise `x * that * gamma`, in
/// f32.
struct LowerRmsNorm : OpConversionPattern<RmsNormOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RmsNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Type f32 = rewriter.getF32Type();
    Value count = createDimAsFloat(rewriter, loc, input, rank - 1, f32);
    Value sqSum = createRowReduction(
        rewriter, loc, input, {},
        [](OpBuilder &b, Location l, Value x, ValueRange) {
          return arith::MulFOp::create(b, l, x, x).getResult();
        });

    Value epsilon =
        createF32Constant(rewriter, loc, op.getEpsilon().convertToDouble());
    Value rinv = createReciprocalRoot(rewriter, loc, sqSum, count, epsilon);

    auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    auto rowMap = getLeadingDimsMap(rank, rank - 1, ctx);
    auto featureMap = identity.getMinorSubMap(1);
    Value init = createEmptyLike(rewriter, loc, type, input);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type},
        ValueRange{input, rinv, adaptor.getGamma()}, ValueRange{init},
        ArrayRef<AffineMap>{identity, rowMap, featureMap, identity},
        parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertFloat(b, l, args[0], f32);
          Value scaled = arith::MulFOp::create(
              b, l, arith::MulFOp::create(b, l, x, args[1]),
              convertFloat(b, l, args[2], f32));
          linalg::YieldOp::create(
              b, l, convertFloat(b, l, scaled, type.getElementType()));
        });
    rewriter.replaceOp(op, castToTensorType(rewriter, loc, generic.getResult(0),
                                            op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// gelu and dropout
//===----------------------------------------------------------------------===//

/// One elementwise `linalg.generic` computing GELU in f32.
struct LowerGelu : OpConversionPattern<GeluOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GeluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    ScalarFn gelu = op.getApproximate() == GeluApproximation::tanh
                        ? createGeluTanh
                        : createGeluErf;
    auto identity = AffineMap::getMultiDimIdentityMap(type.getRank(),
                                                      rewriter.getContext());
    Value init = createEmptyLike(rewriter, loc, type, input);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{input}, ValueRange{init},
        ArrayRef<AffineMap>{identity, identity},
        parallelIterators(type.getRank()),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertFloat(b, l, args[0], b.getF32Type());
          linalg::YieldOp::create(
              b, l, convertFloat(b, l, gelu(b, l, x), type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

/// Dropout is the identity at inference.
struct LowerDropout : OpConversionPattern<DropoutOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void tfm::populateLayerToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerLinear, LowerLayerNorm, LowerRmsNorm, LowerGelu,
               LowerDropout>(
      patterns.getContext());
}
