//===- EmbeddingOps.cpp - Lowering the embedding family of tfm ops --------===//
//
// embedding is a gather (`tensor.extract` in a linalg.generic);
// positional_encoding computes d2l's sinusoid table from `linalg.index` and
// adds it; patch_embed is a reshape and transpose of the image into a matrix
// of flattened patches followed by a matmul with the flattened kernel;
// prepend_class_token broadcasts the token and inserts both parts into the
// result.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "tfm/Dialect/Tfm/IR/LocationText.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace {

//===----------------------------------------------------------------------===//
// Index arithmetic on sizes, folded when static
//===----------------------------------------------------------------------===//

Value toIndexValue(OpBuilder &b, Location loc, OpFoldResult size) {
  if (auto value = dyn_cast<Value>(size))
    return value;
  return arith::ConstantIndexOp::create(b, loc, *getConstantIntValue(size));
}

/// `size / divisor`, exact by the op's verifier when static.
OpFoldResult divSize(OpBuilder &b, Location loc, OpFoldResult size,
                     int64_t divisor) {
  if (std::optional<int64_t> value = getConstantIntValue(size))
    return b.getIndexAttr(*value / divisor);
  return arith::DivUIOp::create(b, loc, toIndexValue(b, loc, size),
                                arith::ConstantIndexOp::create(b, loc, divisor))
      .getResult();
}

OpFoldResult mulSizes(OpBuilder &b, Location loc, OpFoldResult lhs,
                      OpFoldResult rhs) {
  std::optional<int64_t> l = getConstantIntValue(lhs),
                         r = getConstantIntValue(rhs);
  if (l && r)
    return b.getIndexAttr(*l * *r);
  return arith::MulIOp::create(b, loc, toIndexValue(b, loc, lhs),
                               toIndexValue(b, loc, rhs))
      .getResult();
}

OpFoldResult addSize(OpBuilder &b, Location loc, OpFoldResult size,
                     int64_t addend) {
  if (std::optional<int64_t> value = getConstantIntValue(size))
    return b.getIndexAttr(*value + addend);
  return arith::AddIOp::create(b, loc, toIndexValue(b, loc, size),
                               arith::ConstantIndexOp::create(b, loc, addend))
      .getResult();
}

/// The static shape of `sizes` (dynamic where a size is a value).
SmallVector<int64_t> getStaticShape(ArrayRef<OpFoldResult> sizes) {
  return llvm::map_to_vector(sizes, [](OpFoldResult size) {
    return getConstantIntValue(size).value_or(ShapedType::kDynamic);
  });
}

/// Index `v` as an f32 scalar.
Value indexToF32(OpBuilder &b, Location loc, Value v) {
  Value integer = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), v);
  return arith::UIToFPOp::create(b, loc, b.getF32Type(), integer);
}

SmallVector<utils::IteratorType> parallelIterators(int64_t rank) {
  return SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel);
}

//===----------------------------------------------------------------------===//
// embedding
//===----------------------------------------------------------------------===//

/// Checks at run time that every id of `indices` is a row of `table`: one
/// reduction of "outside [0, V)" over the ids, and a cf.assert that names
/// the op. Reading a row past the table would give garbage (or a crash)
/// where PyTorch raises an IndexError.
void createIdRangeCheck(OpBuilder &b, Location loc, Value indices,
                        Value table) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(indices.getType());
  int64_t rank = type.getRank();
  Value rows = tensor::DimOp::create(b, loc, table, 0);
  Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{},
                                       b.getI1Type());
  Value none = linalg::FillOp::create(
                   b, loc,
                   ValueRange{arith::ConstantOp::create(b, loc,
                                                        b.getBoolAttr(false))},
                   ValueRange{init})
                   .getResult(0);
  auto any = linalg::GenericOp::create(
      b, loc, TypeRange{none.getType()}, ValueRange{indices}, ValueRange{none},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                          AffineMap::get(rank, 0, {}, ctx)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::reduction),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value id = arith::IndexCastOp::create(nb, l, nb.getIndexType(),
                                              args[0]);
        Value zero = arith::ConstantIndexOp::create(nb, l, 0);
        Value below =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, id, zero);
        Value past =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, id, rows);
        Value outside = arith::OrIOp::create(nb, l, below, past);
        linalg::YieldOp::create(
            nb, l, arith::OrIOp::create(nb, l, args[1], outside).getResult());
      });
  Value anyOutside =
      tensor::ExtractOp::create(b, loc, any.getResult(0), ValueRange{});
  Value ok = arith::XOrIOp::create(
      b, loc, anyOutside,
      arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  std::string rowsText =
      ShapedType::isDynamic(cast<RankedTensorType>(table.getType()).getDimSize(0))
          ? std::string("the table's rows")
          : std::to_string(
                cast<RankedTensorType>(table.getType()).getDimSize(0));
  cf::AssertOp::create(b, loc, ok,
                       describeLocation(loc) +
                           ": a token id is outside the embedding table: "
                           "ids must be at least 0 and less than " +
                           rowsText);
}

/// A `linalg.generic` over `[..., D]` reading the id at `[...]` and
/// extracting `table[id, d]`, times `sqrt(D)` in f32 with
/// `scale_by_sqrt_dim`, after checking the ids (createIdRangeCheck).
struct LowerEmbedding : OpConversionPattern<EmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value indices = adaptor.getIndices(), table = adaptor.getTable();
    auto tableType = cast<RankedTensorType>(table.getType());
    Type elementType = tableType.getElementType();
    int64_t rank = cast<RankedTensorType>(indices.getType()).getRank();
    createIdRangeCheck(rewriter, loc, indices, table);

    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, indices);
    sizes.push_back(tensor::getMixedSize(rewriter, loc, table, 1));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elementType);

    Value scale;
    if (op.getScaleBySqrtDim()) {
      Type f32 = rewriter.getF32Type();
      int64_t dim = tableType.getDimSize(1);
      scale = ShapedType::isDynamic(dim)
                  ? math::SqrtOp::create(
                        rewriter, loc,
                        createDimAsFloat(rewriter, loc, table, 1, f32))
                        .getResult()
                  : arith::ConstantOp::create(
                        rewriter, loc,
                        rewriter.getF32FloatAttr(std::sqrt(double(dim))))
                        .getResult();
    }

    auto identity = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{init.getType()}, ValueRange{indices},
        ValueRange{init},
        ArrayRef<AffineMap>{getLeadingDimsMap(rank + 1, rank, ctx), identity},
        parallelIterators(rank + 1),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value row =
              arith::IndexCastOp::create(b, l, b.getIndexType(), args[0]);
          Value col = linalg::IndexOp::create(b, l, rank);
          Value v =
              tensor::ExtractOp::create(b, l, table, ValueRange{row, col});
          if (scale) {
            Value wide = convertFloat(b, l, v, b.getF32Type());
            v = convertFloat(b, l, arith::MulFOp::create(b, l, wide, scale),
                             elementType);
          }
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, castToTensorType(rewriter, loc, generic.getResult(0),
                                            op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// positional_encoding
//===----------------------------------------------------------------------===//

/// d2l's table `P` (`[S, D]`, f32) from `linalg.index`:
/// `P[i, d] = sin(i / 10000^(2j/D))` for `d = 2j` and `cos(...)` for
/// `d = 2j + 1`, with the angle computed in f32 as d2l does.
Value createSinusoidTable(OpBuilder &b, Location loc, Value input) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  Type f32 = b.getF32Type();
  SmallVector<OpFoldResult> sizes{
      tensor::getMixedSize(b, loc, input, rank - 2),
      tensor::getMixedSize(b, loc, input, rank - 1)};
  Value init = tensor::EmptyOp::create(b, loc, sizes, f32);
  Value features = createDimAsFloat(b, loc, input, rank - 1, f32);
  Value base = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(10000.0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx)},
      parallelIterators(2), [&](OpBuilder &nb, Location l, ValueRange) {
        Value pos = linalg::IndexOp::create(nb, l, 0);
        Value feature = linalg::IndexOp::create(nb, l, 1);
        Value one = arith::ConstantIndexOp::create(nb, l, 1);
        Value parity = arith::AndIOp::create(nb, l, feature, one);
        Value even = arith::SubIOp::create(nb, l, feature, parity);
        Value exponent =
            arith::DivFOp::create(nb, l, indexToF32(nb, l, even), features);
        Value denom = math::PowFOp::create(nb, l, base, exponent);
        Value angle =
            arith::DivFOp::create(nb, l, indexToF32(nb, l, pos), denom);
        Value isOdd =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, parity,
                                  arith::ConstantIndexOp::create(nb, l, 0));
        Value sin = math::SinOp::create(nb, l, angle);
        Value cos = math::CosOp::create(nb, l, angle);
        linalg::YieldOp::create(
            nb, l, arith::SelectOp::create(nb, l, isOdd, cos, sin).getResult());
      });
  return generic.getResult(0);
}

/// `X + P`, with `P` from `createSinusoidTable` broadcast over the leading
/// dimensions of `X` (`[..., S, D]`); the sum is taken in f32.
struct LowerPositionalEncoding : OpConversionPattern<PositionalEncodingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PositionalEncodingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    Value table = createSinusoidTable(rewriter, loc, input);

    auto identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
    Value init = createEmptyLike(rewriter, loc, type, input);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type}, ValueRange{input, table},
        ValueRange{init},
        ArrayRef<AffineMap>{identity, identity.getMinorSubMap(2), identity},
        parallelIterators(rank),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value x = convertFloat(b, l, args[0], b.getF32Type());
          Value sum = arith::AddFOp::create(b, l, x, args[1]);
          linalg::YieldOp::create(
              b, l, convertFloat(b, l, sum, type.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// rotary_embedding
//===----------------------------------------------------------------------===//

/// The input `[..., S, D]` viewed as `[..., S, 2, D/2]` (rotate-half) or
/// `[..., S, D/2, 2]` (interleaved); the pairs' first and second elements
/// are slices of it, `[..., S, D/2]` each (strided when interleaved). One
/// elementwise generic over the view computes `a cos - b sin` where the
/// pair index is 0 and `b cos + a sin` where it is 1, from the tables'
/// rows `offset .. offset + S`; a collapse gives `[..., S, D]` back. A
/// cf.assert checks first that `offset + S` is at most the tables' rows.
struct LowerRotaryEmbedding : OpConversionPattern<RotaryEmbeddingOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(RotaryEmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput();
    auto type = cast<RankedTensorType>(input.getType());
    int64_t rank = type.getRank();
    int64_t half = type.getShape().back() / 2;
    bool interleaved = op.getInterleaved();
    Type f32 = rewriter.getF32Type();

    // The tables' rows of this call's positions.
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, input);
    Value offset = adaptor.getOffset()
                       ? adaptor.getOffset()
                       : arith::ConstantIndexOp::create(rewriter, loc, 0)
                             .getResult();
    Value positions =
        getValueOrCreateConstantIndexOp(rewriter, loc, dims[rank - 2]);
    Value end = arith::AddIOp::create(rewriter, loc, offset, positions);
    Value rows = tensor::DimOp::create(rewriter, loc, adaptor.getCos(), 0);
    Value fits = arith::CmpIOp::create(rewriter, loc,
                                       arith::CmpIPredicate::ule, end, rows);
    cf::AssertOp::create(rewriter, loc, fits,
                         describeLocation(loc) +
                             ": the positions of a rotary embedding (offset "
                             "+ S) run past the rows of its cos and sin "
                             "tables");
    auto tableRows = [&](Value table) -> Value {
      auto tableType = cast<RankedTensorType>(table.getType());
      auto sliceType = RankedTensorType::get(
          {type.getDimSize(rank - 2), half}, tableType.getElementType());
      return tensor::ExtractSliceOp::create(
          rewriter, loc, sliceType, table,
          ArrayRef<OpFoldResult>{offset, rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{dims[rank - 2], rewriter.getIndexAttr(half)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    };
    Value cos = tableRows(adaptor.getCos()), sin = tableRows(adaptor.getSin());

    // The view with the pairs as a dimension of 2, `pair` its index.
    SmallVector<int64_t> viewShape(type.getShape().drop_back());
    int64_t pair = interleaved ? rank : rank - 1;
    if (interleaved)
      viewShape.append({half, 2});
    else
      viewShape.append({2, half});
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < rank - 1; ++i)
      groups.push_back({i});
    groups.push_back({rank - 1, rank});
    SmallVector<OpFoldResult> viewSizes(dims.begin(), dims.end() - 1);
    viewSizes.append({rewriter.getIndexAttr(viewShape[rank - 1]),
                      rewriter.getIndexAttr(viewShape[rank])});
    auto viewType = RankedTensorType::get(viewShape, type.getElementType());
    Value view = tensor::ExpandShapeOp::create(rewriter, loc, viewType, input,
                                               groups, viewSizes);
    // The pairs' first and second elements, `[..., S, D/2]`.
    SmallVector<int64_t> halfShape(type.getShape().drop_back());
    halfShape.push_back(half);
    auto halfType = RankedTensorType::get(halfShape, type.getElementType());
    auto element = [&](int64_t which) -> Value {
      SmallVector<OpFoldResult> offsets(rank + 1, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes(viewSizes);
      SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
      offsets[pair] = rewriter.getIndexAttr(which);
      sizes[pair] = rewriter.getIndexAttr(1);
      return tensor::ExtractSliceOp::create(rewriter, loc, halfType, view,
                                            offsets, sizes, strides);
    };
    Value first = element(0), second = element(1);

    // Loops over the view: the leading dimensions and S, then the pair and
    // the frequency in the view's order.
    int64_t frequency = interleaved ? rank - 1 : rank;
    SmallVector<AffineExpr> halfExprs, tableExprs;
    for (int64_t i = 0; i < rank - 1; ++i)
      halfExprs.push_back(getAffineDimExpr(i, ctx));
    halfExprs.push_back(getAffineDimExpr(frequency, ctx));
    tableExprs = {getAffineDimExpr(rank - 2, ctx),
                  getAffineDimExpr(frequency, ctx)};
    AffineMap halfMap = AffineMap::get(rank + 1, 0, halfExprs, ctx);
    AffineMap tableMap = AffineMap::get(rank + 1, 0, tableExprs, ctx);
    AffineMap identity = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
    Value init = tensor::EmptyOp::create(rewriter, loc, viewSizes,
                                         type.getElementType());
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{viewType},
        ValueRange{first, second, cos, sin}, ValueRange{init},
        ArrayRef<AffineMap>{halfMap, halfMap, tableMap, tableMap, identity},
        parallelIterators(rank + 1),
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value a = convertFloat(b, l, args[0], f32);
          Value c = convertFloat(b, l, args[2], f32);
          Value s = convertFloat(b, l, args[3], f32);
          Value bv = convertFloat(b, l, args[1], f32);
          Value rotatedFirst =
              arith::SubFOp::create(b, l, arith::MulFOp::create(b, l, a, c),
                                    arith::MulFOp::create(b, l, bv, s));
          Value rotatedSecond =
              arith::AddFOp::create(b, l, arith::MulFOp::create(b, l, bv, c),
                                    arith::MulFOp::create(b, l, a, s));
          Value isFirst = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::eq, linalg::IndexOp::create(b, l, pair),
              arith::ConstantIndexOp::create(b, l, 0));
          Value rotated = arith::SelectOp::create(b, l, isFirst, rotatedFirst,
                                                  rotatedSecond);
          linalg::YieldOp::create(
              b, l, convertFloat(b, l, rotated, type.getElementType()));
        });
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, type, generic.getResult(0), groups);
    rewriter.replaceOp(op, castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// patch_embed
//===----------------------------------------------------------------------===//

/// `[B, C, H, W]` -> expand `[B, C, H/ph, ph, W/pw, pw]` -> transpose
/// `[B, H/ph, W/pw, C, ph, pw]` -> collapse `[B·N, C·ph·pw]` -> matmul with
/// the weight collapsed to `[D, C·ph·pw]` and transposed -> bias ->
/// expand `[B, N, D]`. Patches are numbered row-major over (H/ph, W/pw),
/// as torchvision's `conv_proj` followed by `flatten(2).transpose(1, 2)`.
struct LowerPatchEmbed : OpConversionPattern<PatchEmbedOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PatchEmbedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value image = adaptor.getImage(), weight = adaptor.getWeight();
    auto imageType = cast<RankedTensorType>(image.getType());
    auto weightType = cast<RankedTensorType>(weight.getType());
    Type elementType = imageType.getElementType();
    int64_t ph = weightType.getDimSize(2), pw = weightType.getDimSize(3);

    // [B, C, H, W] -> [B, C, H/ph, ph, W/pw, pw].
    SmallVector<OpFoldResult> dims =
        tensor::getMixedSizes(rewriter, loc, image);
    OpFoldResult rows = divSize(rewriter, loc, dims[2], ph);
    OpFoldResult cols = divSize(rewriter, loc, dims[3], pw);
    SmallVector<OpFoldResult> split{dims[0], dims[1],
                                    rows,    rewriter.getIndexAttr(ph),
                                    cols,    rewriter.getIndexAttr(pw)};
    Value patches = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get(getStaticShape(split), elementType), image,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}}, split);

    // -> [B, H/ph, W/pw, C, ph, pw].
    SmallVector<int64_t> perm{0, 2, 4, 1, 3, 5};
    SmallVector<OpFoldResult> permuted =
        llvm::map_to_vector(perm, [&](int64_t i) { return split[i]; });
    Value init = tensor::EmptyOp::create(rewriter, loc, permuted, elementType);
    patches = linalg::TransposeOp::create(rewriter, loc, patches, init, perm)
                  ->getResult(0);

    // -> [B·N, C·ph·pw] times [D, C·ph·pw]ᵀ. When both B and N are dynamic,
    // expanding [B·N, D] back would put two dynamic sizes in one group, which
    // LLVM 22's expand-strided-metadata cannot lower (llvm-project#186830):
    // then the product is a contraction of [B, N, C·ph·pw] instead.
    OpFoldResult numPatches = mulSizes(rewriter, loc, rows, cols);
    bool flatten =
        getConstantIntValue(dims[0]) || getConstantIntValue(numPatches);
    SmallVector<ReassociationIndices> groups{{0, 1, 2}, {3, 4, 5}};
    if (!flatten)
      groups = {{0}, {1, 2}, {3, 4, 5}};
    Value lhs = tensor::CollapseShapeOp::create(rewriter, loc, patches, groups);
    Value rhs = tensor::CollapseShapeOp::create(
        rewriter, loc, weight, ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    Value acc = createMatmulTransposeB(rewriter, loc, lhs, rhs);
    Value result =
        createBiasEpilogue(rewriter, loc, acc, adaptor.getBias(), elementType);

    // -> [B, N, D].
    if (flatten) {
      SmallVector<OpFoldResult> outSizes{
          dims[0], numPatches, tensor::getMixedSize(rewriter, loc, weight, 0)};
      result = tensor::ExpandShapeOp::create(
          rewriter, loc,
          RankedTensorType::get(getStaticShape(outSizes), elementType), result,
          ArrayRef<ReassociationIndices>{{0, 1}, {2}}, outSizes);
    }
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// prepend_class_token
//===----------------------------------------------------------------------===//

/// The token `[1, 1, D]` is broadcast to `[B, 1, D]`; it and the input
/// `[B, N, D]` are inserted into a `[B, N + 1, D]` tensor at sequence
/// offsets 0 and 1.
struct LowerPrependClassToken : OpConversionPattern<PrependClassTokenOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(PrependClassTokenOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value input = adaptor.getInput(), token = adaptor.getClassToken();
    auto inputType = cast<RankedTensorType>(input.getType());
    Type elementType = inputType.getElementType();
    SmallVector<OpFoldResult> dims =
        tensor::getMixedSizes(rewriter, loc, input);

    // [1, 1, D] -> [D], with the input's (possibly dynamic) D, -> [B, 1, D].
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, token, ArrayRef<ReassociationIndices>{{0, 1, 2}});
    flat = castToTensorType(
        rewriter, loc, flat,
        RankedTensorType::get({inputType.getDimSize(2)}, elementType));
    SmallVector<OpFoldResult> tokenSizes{dims[0], rewriter.getIndexAttr(1),
                                         dims[2]};
    Value tokenInit =
        tensor::EmptyOp::create(rewriter, loc, tokenSizes, elementType);
    Value tokens = linalg::BroadcastOp::create(rewriter, loc, flat, tokenInit,
                                               ArrayRef<int64_t>{0, 1})
                       ->getResult(0);

    SmallVector<OpFoldResult> sizes{dims[0], addSize(rewriter, loc, dims[1], 1),
                                    dims[2]};
    Value result = tensor::EmptyOp::create(rewriter, loc, sizes, elementType);
    OpFoldResult zero = rewriter.getIndexAttr(0),
                 one = rewriter.getIndexAttr(1);
    SmallVector<OpFoldResult> strides(3, one);
    result = tensor::InsertSliceOp::create(
        rewriter, loc, tokens, result, {zero, zero, zero}, tokenSizes, strides);
    result = tensor::InsertSliceOp::create(rewriter, loc, input, result,
                                           {zero, one, zero}, dims, strides);
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

} // namespace

void tfm::populateEmbeddingToLinalgPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerEmbedding, LowerPositionalEncoding, LowerRotaryEmbedding,
               LowerPatchEmbed, LowerPrependClassToken>(patterns.getContext());
}
