//===- OnlineAttention.cpp - tfm.online_attention -------------------------===//
//
// The structured attention op of code generation: its verifier, its
// TilingInterface (iteration space batch... × queries × keys) and its
// decomposition into one key-block step of the online softmax. This is the
// only place where attention's arithmetic is written: the reference lowering
// decomposes the op untiled, flash attention tiles it first, on every target.
//
//===----------------------------------------------------------------------===//

#include "VerifyUtils.h"
#include "tfm/Dialect/Tfm/IR/AttentionScores.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// Verifier
//===----------------------------------------------------------------------===//

LogicalResult OnlineAttentionOp::verify() {
  NamedValue q{"query", getQuery()}, k{"key_t", getKeyT()},
      v{"value", getValue()}, acc{"acc", getAcc()}, max{"max", getMax()},
      sum{"sum", getSum()};
  if (failed(verifyMinRank(*this, q, 3, "[batch..., queries, head_dim]")))
    return failure();
  int64_t rank = q.getRank(), batchRank = rank - 2;
  if (failed(verifyRank(*this, k, rank, "(the rank of query)")) ||
      failed(verifyRank(*this, v, rank, "(the rank of query)")) ||
      failed(verifyRank(*this, acc, rank, "(the rank of query)")) ||
      failed(verifyRank(*this, max, rank - 1, "[batch..., queries]")) ||
      failed(verifyRank(*this, sum, rank - 1, "[batch..., queries]")))
    return failure();
  for (const NamedValue *other : {&k, &v, &acc, &max, &sum})
    if (failed(verifySameLeadingDims(*this, q, *other, batchRank)))
      return failure();
  if (failed(verifyDim(*this, k, -2, q.getDim(-1), "query's head dimension")) ||
      failed(verifyDim(*this, v, -2, k.getDim(-1), "key_t's key count")) ||
      failed(verifyDim(*this, acc, -2, q.getDim(-2), "query's query count")) ||
      failed(verifyDim(*this, acc, -1, v.getDim(-1), "value's dimension")) ||
      failed(verifyDim(*this, max, -1, q.getDim(-2), "query's query count")) ||
      failed(verifyDim(*this, sum, -1, q.getDim(-2), "query's query count")))
    return failure();
  ArrayRef<int64_t> batch = q.getShape().drop_back(2);
  if (Value lens = getValidLens())
    if (failed(
            verifyValidLens(*this, {"valid_lens", lens}, batch, q.getDim(-2))))
      return failure();
  if (Value maskValue = getMask()) {
    NamedValue mask{"mask", maskValue};
    if (failed(verifyRank(*this, mask, rank, "[batch..., queries, keys]")) ||
        failed(
            verifyDim(*this, mask, -2, q.getDim(-2), "query's query count")) ||
        failed(verifyDim(*this, mask, -1, k.getDim(-1), "key_t's key count")))
      return failure();
    for (int64_t i = 0; i < batchRank; ++i)
      if (mask.getDim(i) != 1 &&
          failed(verifyDim(*this, mask, i, batch[i], "1 or the batch size")))
        return failure();
  }
  if (getQueryGroup() < 1)
    return emitOpError() << "expected a positive query_group, found "
                         << getQueryGroup();
  if (static_cast<bool>(getQueryOffset()) != static_cast<bool>(getKeyOffset()))
    return emitOpError("expected both offsets or neither");
  if (FloatAttr scale = getScaleAttr();
      scale && !std::isfinite(scale.getValueAsDouble()))
    return emitOpError() << "expected a finite scale, found "
                         << scale.getValueAsDouble();
  return success();
}

//===----------------------------------------------------------------------===//
// TilingInterface
//===----------------------------------------------------------------------===//

SmallVector<utils::IteratorType> OnlineAttentionOp::getLoopIteratorTypes() {
  SmallVector<utils::IteratorType> iterators(getBatchRank() + 1,
                                             utils::IteratorType::parallel);
  iterators.push_back(utils::IteratorType::reduction);
  return iterators;
}

SmallVector<Range> OnlineAttentionOp::getIterationDomain(OpBuilder &b) {
  Location loc = getLoc();
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  int64_t rank = getQuery().getType().getRank();
  SmallVector<Range> domain;
  for (int64_t i = 0; i < rank - 1; ++i)
    domain.push_back({zero, tensor::getMixedSize(b, loc, getQuery(), i), one});
  domain.push_back(
      {zero, tensor::getMixedSize(b, loc, getKeyT(), rank - 1), one});
  return domain;
}

namespace {
/// A tile of the iteration space, split into its batch, query and key parts.
struct AttentionTile {
  ArrayRef<OpFoldResult> batchOffsets, batchSizes;
  OpFoldResult queryOffset, querySize, keyOffset, keySize;

  AttentionTile(ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                int64_t batchRank)
      : batchOffsets(offsets.take_front(batchRank)),
        batchSizes(sizes.take_front(batchRank)),
        queryOffset(offsets[batchRank]), querySize(sizes[batchRank]),
        keyOffset(offsets[batchRank + 1]), keySize(sizes[batchRank + 1]) {}

  /// The batch offsets and sizes followed by `offsets` and `sizes`.
  std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
  withBatch(ArrayRef<OpFoldResult> offsets,
            ArrayRef<OpFoldResult> sizes) const {
    SmallVector<OpFoldResult> allOffsets(batchOffsets), allSizes(batchSizes);
    llvm::append_range(allOffsets, offsets);
    llvm::append_range(allSizes, sizes);
    return {allOffsets, allSizes};
  }
};
} // namespace

/// The slice of `v` at `offsets` and `sizes` with unit strides.
static Value createSlice(OpBuilder &b, Location loc, Value v,
                         ArrayRef<OpFoldResult> offsets,
                         ArrayRef<OpFoldResult> sizes) {
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

/// `base + delta` as an index value; `base` may be null (0).
static Value addOffset(OpBuilder &b, Location loc, Value base,
                       OpFoldResult delta) {
  AffineExpr d0, d1;
  bindDims(b.getContext(), d0, d1);
  OpFoldResult sum = affine::makeComposedFoldedAffineApply(
      b, loc, d0 + d1, {base ? OpFoldResult(base) : b.getIndexAttr(0), delta});
  return getValueOrCreateConstantIndexOp(b, loc, sum);
}

FailureOr<TilingResult>
OnlineAttentionOp::getTiledImplementation(OpBuilder &b,
                                          ArrayRef<OpFoldResult> offsets,
                                          ArrayRef<OpFoldResult> sizes) {
  Location loc = getLoc();
  int64_t batchRank = getBatchRank(), rank = batchRank + 2;
  AttentionTile tile(offsets, sizes, batchRank);
  OpFoldResult zero = b.getIndexAttr(0);
  OpFoldResult headDim = tensor::getMixedSize(b, loc, getQuery(), rank - 1);
  OpFoldResult valueDim = tensor::getMixedSize(b, loc, getValue(), rank - 1);

  auto sliceWithBatch = [&](Value v, ArrayRef<OpFoldResult> offs,
                            ArrayRef<OpFoldResult> szs) {
    auto [allOffsets, allSizes] = tile.withBatch(offs, szs);
    return createSlice(b, loc, v, allOffsets, allSizes);
  };
  Value query = sliceWithBatch(getQuery(), {tile.queryOffset, zero},
                               {tile.querySize, headDim});
  Value keyT = sliceWithBatch(getKeyT(), {zero, tile.keyOffset},
                              {headDim, tile.keySize});
  Value value = sliceWithBatch(getValue(), {tile.keyOffset, zero},
                               {tile.keySize, valueDim});
  Value acc = sliceWithBatch(getAcc(), {tile.queryOffset, zero},
                             {tile.querySize, valueDim});
  Value max = sliceWithBatch(getMax(), {tile.queryOffset}, {tile.querySize});
  Value sum = sliceWithBatch(getSum(), {tile.queryOffset}, {tile.querySize});

  Value validLens;
  if (Value lens = getValidLens()) {
    bool perQuery =
        cast<RankedTensorType>(lens.getType()).getRank() == rank - 1;
    validLens = perQuery
                    ? sliceWithBatch(lens, {tile.queryOffset}, {tile.querySize})
                    : sliceWithBatch(lens, {}, {});
  }
  Value mask;
  if (Value fullMask = getMask()) {
    // Batch dimensions of size 1 are shared by every batch of the tile.
    ArrayRef<int64_t> shape = getMask().getType().getShape();
    SmallVector<OpFoldResult> maskOffsets, maskSizes;
    for (int64_t i = 0; i < batchRank; ++i) {
      bool shared = shape[i] == 1;
      maskOffsets.push_back(shared ? zero : tile.batchOffsets[i]);
      maskSizes.push_back(shared ? b.getIndexAttr(1) : tile.batchSizes[i]);
    }
    maskOffsets.append({tile.queryOffset, tile.keyOffset});
    maskSizes.append({tile.querySize, tile.keySize});
    mask = createSlice(b, loc, fullMask, maskOffsets, maskSizes);
  }

  Value queryOffset, keyOffset;
  bool atOrigin =
      isZeroInteger(tile.queryOffset) && isZeroInteger(tile.keyOffset);
  if (getQueryOffset() || !atOrigin) {
    queryOffset = addOffset(b, loc, getQueryOffset(), tile.queryOffset);
    keyOffset = addOffset(b, loc, getKeyOffset(), tile.keyOffset);
  }

  auto tiled = OnlineAttentionOp::create(
      b, loc, acc.getType(), max.getType(), sum.getType(), query, keyT, value,
      validLens, mask, queryOffset, keyOffset, acc, max, sum, getScaleAttr(),
      getCausalAttr(), getQueryGroupAttr());
  SmallVector<Operation *> slices;
  for (Value v : {query, keyT, value, validLens, mask, acc, max, sum})
    if (v)
      slices.push_back(v.getDefiningOp());
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult OnlineAttentionOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  int64_t batchRank = getBatchRank();
  AttentionTile tile(offsets, sizes, batchRank);
  std::tie(resultOffsets, resultSizes) =
      tile.withBatch({tile.queryOffset}, {tile.querySize});
  if (resultNumber == 0) {
    resultOffsets.push_back(b.getIndexAttr(0));
    resultSizes.push_back(
        tensor::getMixedSize(b, getLoc(), getValue(), batchRank + 1));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Decomposition: one key-block step of the online softmax
//===----------------------------------------------------------------------===//

namespace {
/// Builds the linalg ops of one step on tensors with `batchRank` leading
/// batch dimensions (0 once unit batches are dropped), of sizes `batch`.
class StepBuilder {
public:
  StepBuilder(OpBuilder &b, Location loc, int64_t batchRank)
      : b(b), loc(loc), ctx(b.getContext()), batchRank(batchRank),
        f32(b.getF32Type()) {}

  /// The map from `batchRank + extra` loops to the batch loops followed by
  /// the loops `dims` (numbered from 0 after the batch loops).
  AffineMap map(int64_t extra, ArrayRef<int64_t> dims) const {
    SmallVector<AffineExpr> exprs;
    for (int64_t i = 0; i < batchRank; ++i)
      exprs.push_back(getAffineDimExpr(i, ctx));
    for (int64_t d : dims)
      exprs.push_back(getAffineDimExpr(batchRank + d, ctx));
    return AffineMap::get(batchRank + extra, 0, exprs, ctx);
  }

  /// Parallel iterators for `batchRank + extra` loops, the last one a
  /// reduction if `reduceLast`.
  SmallVector<utils::IteratorType> iterators(int64_t extra,
                                             bool reduceLast) const {
    SmallVector<utils::IteratorType> its(batchRank + extra,
                                         utils::IteratorType::parallel);
    if (reduceLast)
      its.back() = utils::IteratorType::reduction;
    return its;
  }

  Value constant(double value) const {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }

  /// An f32 tensor of the batch sizes followed by `trailing`.
  Value empty(ArrayRef<OpFoldResult> trailing) const {
    SmallVector<OpFoldResult> sizes(batch);
    llvm::append_range(sizes, trailing);
    return tensor::EmptyOp::create(b, loc, sizes, f32);
  }

  /// The same, filled with `value`.
  Value filled(ArrayRef<OpFoldResult> trailing, double value) const {
    return linalg::FillOp::create(b, loc, constant(value), empty(trailing))
        .getResult(0);
  }

  Value generic(ValueRange inputs, Value init, ArrayRef<AffineMap> maps,
                ArrayRef<utils::IteratorType> its,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, inputs, ValueRange{init},
               maps, its,
               [&](OpBuilder &nb, Location nloc, ValueRange args) {
                 linalg::YieldOp::create(nb, nloc,
                                         ValueRange{body(nb, nloc, args)});
               })
        .getResult(0);
  }

  /// `init + lhs · rhs` over the last two dimensions: linalg.matmul without
  /// batch dimensions, linalg.batch_matmul with one, a contraction
  /// linalg.generic with more. Operands are extended to f32.
  Value contract(Value lhs, Value rhs, Value init) {
    if (batchRank == 0)
      return linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                      ValueRange{lhs, rhs}, ValueRange{init})
          .getResult(0);
    if (batchRank == 1)
      return linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                           ValueRange{lhs, rhs},
                                           ValueRange{init})
          .getResult(0);
    // Loops (batch..., i, j, r).
    return generic(ValueRange{lhs, rhs}, init,
                   {map(3, {0, 2}), map(3, {2, 1}), map(3, {0, 1})},
                   iterators(3, /*reduceLast=*/true),
                   [&](OpBuilder &nb, Location nloc, ValueRange args) {
                     Value p = arith::MulFOp::create(nb, nloc,
                                                     toF32(nb, nloc, args[0]),
                                                     toF32(nb, nloc, args[1]));
                     return arith::AddFOp::create(nb, nloc, p, args[2]);
                   });
  }

  Value toF32(OpBuilder &nb, Location nloc, Value v) const {
    if (v.getType() == f32)
      return v;
    return arith::ExtFOp::create(nb, nloc, f32, v);
  }

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx;
  int64_t batchRank;
  Type f32;
  SmallVector<OpFoldResult> batch;
};
} // namespace

/// Drops the leading `count` dimensions of `v`, all of size 1, with a
/// rank-reducing slice; null stays null.
static Value dropUnitBatch(OpBuilder &b, Location loc, Value v, int64_t count) {
  if (!v || count == 0)
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(count, b.getIndexAttr(1));
  for (int64_t i = count; i < type.getRank(); ++i)
    sizes.push_back(tensor::getMixedSize(b, loc, v, i));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  auto reduced = RankedTensorType::get(type.getShape().drop_front(count),
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, reduced, v, offsets, sizes,
                                        strides);
}

/// Writes `v`, the state `dest` without its `count` leading unit
/// dimensions, back into `dest`.
static Value restoreUnitBatch(OpBuilder &b, Location loc, Value v, Value dest,
                              int64_t count) {
  if (count == 0)
    return v;
  auto type = cast<RankedTensorType>(dest.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(count, b.getIndexAttr(1));
  for (int64_t i = count; i < type.getRank(); ++i)
    sizes.push_back(tensor::getMixedSize(b, loc, dest, i));
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, v, dest, offsets, sizes,
                                       strides);
}

FailureOr<SmallVector<Value>>
OnlineAttentionOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  int64_t fullBatchRank = getBatchRank(), rank = fullBatchRank + 2;
  ArrayRef<int64_t> batchShape = getQuery().getType().getShape().drop_back(2);
  // With every batch size 1 (a tile), the step works on matrices: its
  // products become linalg.matmul, which the CPU micro-kernel handles.
  bool unitBatch = llvm::all_of(batchShape, [](int64_t d) { return d == 1; });
  int64_t drop = unitBatch ? fullBatchRank : 0;
  StepBuilder sb(b, loc, fullBatchRank - drop);
  Value query = dropUnitBatch(b, loc, getQuery(), drop);
  Value keyT = dropUnitBatch(b, loc, getKeyT(), drop);
  Value value = dropUnitBatch(b, loc, getValue(), drop);
  Value lens = dropUnitBatch(b, loc, getValidLens(), drop);
  Value mask = dropUnitBatch(b, loc, getMask(), drop);
  Value acc = dropUnitBatch(b, loc, getAcc(), drop);
  Value max = dropUnitBatch(b, loc, getMax(), drop);
  Value sum = dropUnitBatch(b, loc, getSum(), drop);
  int64_t batchRank = sb.batchRank;
  for (int64_t i = 0; i < batchRank; ++i)
    sb.batch.push_back(tensor::getMixedSize(b, loc, query, i));
  OpFoldResult rows = tensor::getMixedSize(b, loc, query, batchRank);
  OpFoldResult keys = tensor::getMixedSize(b, loc, keyT, batchRank + 1);
  OpFoldResult valueDim = tensor::getMixedSize(b, loc, value, batchRank + 1);

  // The scale: given, or 1/sqrt(D).
  Value scale;
  if (FloatAttr attr = getScaleAttr()) {
    scale = sb.constant(attr.getValueAsDouble());
  } else if (int64_t d = getQuery().getType().getShape().back();
             !ShapedType::isDynamic(d)) {
    scale = sb.constant(1.0 / std::sqrt(static_cast<double>(d)));
  } else {
    Value dim = tensor::DimOp::create(b, loc, getQuery(), rank - 1);
    Value asInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
    Value asFloat = arith::SIToFPOp::create(b, loc, sb.f32, asInt);
    scale = arith::DivFOp::create(b, loc, sb.constant(1.0),
                                  math::SqrtOp::create(b, loc, asFloat));
  }
  Value queryOffset = getQueryOffset(), keyOffset = getKeyOffset();
  bool causal = getCausal();

  // Whether any query of this step can see any of its keys; a step that
  // none can see is skipped. Only tiles of keys after the first (whose key
  // offset is not 0) are skipped: the first keys are every query's to see,
  // and an untiled op (an attention after a cache's positions, which has a
  // query offset) stays one step with no control flow around it.
  Value visible;
  if (queryOffset && !isConstantIntValue(keyOffset, 0)) {
    if (causal) {
      // The position after the last row's.
      Value end = arith::AddIOp::create(
          b, loc, queryOffset, getValueOrCreateConstantIndexOp(b, loc, rows));
      if (int64_t group = getQueryGroup(); group != 1) {
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        end = arith::SubIOp::create(b, loc, end, one);
        end = arith::DivUIOp::create(
            b, loc, end, arith::ConstantIndexOp::create(b, loc, group));
        end = arith::AddIOp::create(b, loc, end, one);
      }
      visible = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                      keyOffset, end);
    }
    if (lens && cast<RankedTensorType>(lens.getType()).getRank() == 0) {
      // A per-batch length of 0 or less masks every key, which d2l turns
      // into uniform weights over all of them: nothing is skipped then.
      Value len = tensor::ExtractOp::create(b, loc, lens, ValueRange{});
      len = arith::IndexCastOp::create(b, loc, b.getIndexType(), len);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value none =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, len, zero);
      Value before = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                           keyOffset, len);
      Value seen = arith::OrIOp::create(b, loc, none, before);
      visible = visible
                    ? arith::AndIOp::create(b, loc, visible, seen).getResult()
                    : seen;
    }
  }

  auto buildStep = [&]() -> SmallVector<Value> {
    // s = Q · Kᵀ
    Value scores = sb.contract(query, keyT, sb.filled({rows, keys}, 0.0));

    // Scale and mask, in the order of tfm.attention's definition.
    AffineMap scoreMap = sb.map(2, {0, 1}), rowMap = sb.map(2, {0});
    SmallVector<Value> inputs{scores};
    SmallVector<AffineMap> maps{scoreMap};
    int64_t lensArg = -1, maskArg = -1;
    if (lens) {
      bool perQuery =
          cast<RankedTensorType>(lens.getType()).getRank() == batchRank + 1;
      lensArg = inputs.size();
      inputs.push_back(lens);
      maps.push_back(perQuery ? rowMap : sb.map(2, {}));
    }
    if (mask) {
      // Batch dimensions of size 1 are shared: read at index 0.
      ArrayRef<int64_t> shape =
          cast<RankedTensorType>(mask.getType()).getShape();
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < batchRank; ++i)
        exprs.push_back(shape[i] == 1 ? getAffineConstantExpr(0, sb.ctx)
                                      : getAffineDimExpr(i, sb.ctx));
      exprs.push_back(getAffineDimExpr(batchRank, sb.ctx));
      exprs.push_back(getAffineDimExpr(batchRank + 1, sb.ctx));
      maskArg = inputs.size();
      inputs.push_back(mask);
      maps.push_back(AffineMap::get(batchRank + 2, 0, exprs, sb.ctx));
    }
    maps.push_back(scoreMap);
    Value masked = sb.generic(
        inputs, sb.empty({rows, keys}), maps, sb.iterators(2, false),
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          ScoreMasking masking;
          masking.scale = scale;
          if (maskArg >= 0)
            masking.additive = args[maskArg];
          if (lensArg >= 0)
            masking.validLen = args[lensArg];
          masking.causal = causal;
          if (lensArg >= 0 || causal) {
            masking.key = linalg::IndexOp::create(nb, nloc, batchRank + 1);
            if (keyOffset)
              masking.key =
                  arith::AddIOp::create(nb, nloc, masking.key, keyOffset);
          }
          if (causal) {
            masking.query = linalg::IndexOp::create(nb, nloc, batchRank);
            masking.queryOffset = queryOffset;
            masking.queryGroup = getQueryGroup();
          }
          return buildMaskedScore(nb, nloc, args[0], masking);
        });

    // Every update writes into the state it replaces, so that bufferization
    // keeps one buffer per state across a loop over key blocks.
    //
    // m' = max(m, rowmax(s)) written over m, and correction = exp(m - m').
    Value rowMax = sb.generic(
        ValueRange{masked},
        sb.filled({rows}, -std::numeric_limits<double>::infinity()),
        {scoreMap, rowMap}, sb.iterators(2, true),
        [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return buildSoftmaxMax(nb, nloc, args[0], args[1]);
        });
    AffineMap rows1 = sb.map(1, {0});
    auto update = linalg::GenericOp::create(
        b, loc, TypeRange{sb.empty({rows}).getType(), max.getType()},
        ValueRange{rowMax}, ValueRange{sb.empty({rows}), max},
        ArrayRef<AffineMap>{rows1, rows1, rows1}, sb.iterators(1, false),
        [](OpBuilder &nb, Location nloc, ValueRange args) {
          Value newMax = buildSoftmaxMax(nb, nloc, args[2], args[0]);
          Value d = arith::SubFOp::create(nb, nloc, args[2], newMax);
          Value correction = math::ExpOp::create(nb, nloc, d);
          linalg::YieldOp::create(nb, nloc, ValueRange{correction, newMax});
        });
    Value correction = update.getResult(0), newMax = update.getResult(1);

    // p = exp(s - m')
    Value probs =
        sb.generic(ValueRange{masked, newMax}, sb.empty({rows, keys}),
                   {scoreMap, rowMap, scoreMap}, sb.iterators(2, false),
                   [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
                     Value d =
                         arith::SubFOp::create(nb, nloc, args[0], args[1]);
                     return math::ExpOp::create(nb, nloc, d);
                   });
    // l' = l · correction + rowsum(p)
    Value scaledSum = sb.generic(
        ValueRange{correction}, sum, {rows1, rows1}, sb.iterators(1, false),
        [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return arith::MulFOp::create(nb, nloc, args[1], args[0]);
        });
    Value newSum = sb.generic(
        ValueRange{probs}, scaledSum, {scoreMap, rowMap}, sb.iterators(2, true),
        [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return arith::AddFOp::create(nb, nloc, args[0], args[1]);
        });
    // acc' = acc · correction + p · V
    Value scaledAcc = sb.generic(
        ValueRange{correction}, acc, {rowMap, scoreMap}, sb.iterators(2, false),
        [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          return arith::MulFOp::create(nb, nloc, args[1], args[0]);
        });
    (void)valueDim;
    Value newAcc = sb.contract(probs, value, scaledAcc);
    return {newAcc, newMax, newSum};
  };

  SmallVector<Value> state;
  if (visible) {
    auto ifOp = scf::IfOp::create(
        b, loc, visible,
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, buildStep());
        },
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc, ValueRange{acc, max, sum});
        });
    state = SmallVector<Value>(ifOp.getResults());
  } else {
    state = buildStep();
  }
  return SmallVector<Value>{restoreUnitBatch(b, loc, state[0], getAcc(), drop),
                            restoreUnitBatch(b, loc, state[1], getMax(), drop),
                            restoreUnitBatch(b, loc, state[2], getSum(), drop)};
}
