//===- TileAttention.cpp - Flash attention on tensors ---------------------===//
//
// Implements `tfm-tile-attention`: tfm.attention becomes an scf.forall over
// (batch · heads, query tiles) whose body runs the online softmax over key
// blocks:
//
//   m = -inf, l = 0, acc = 0
//   for each key block j:
//     s    = (Q_tile · Kᵀ_j) · scale, masked
//     m'   = max(m, rowmax(s))
//     p    = exp(s - m')
//     l    = l · exp(m - m') + rowsum(p)
//     acc  = acc · exp(m - m') + p · V_j
//     m    = m'
//   out_tile = acc / l
//
// All the arithmetic is linalg on small tensors, so that the CPU vectorizer
// turns the two block products into register-blocked micro-kernels and the
// rest into vector code.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMTILEATTENTION
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// d2l's score for a key past the valid length.
constexpr double kMaskedScore = -1e6;

/// Everything the tile bodies need, in the collapsed [BH, S, D] form.
struct AttentionProblem {
  int64_t batch, queries, keys, headDim, valueDim;
  int64_t qTile, kvTile;
  double scale;
  bool causal;
  /// [BH, Sq, D], [BH, D, Sk] and [BH, Sk, Dv], all f32.
  Value q, kT, v;
  /// [BH] or [BH, Sq], index-castable integers; null if absent.
  Value validLens;
  bool perQueryLens = false;
  /// [Sq, Sk] f32, shared by every batch; null if absent.
  Value mask;
};

//===----------------------------------------------------------------------===//
// Small builders
//===----------------------------------------------------------------------===//

Value constantF32(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// A tensor of `shape` filled with `value`.
Value filled(OpBuilder &b, Location loc, ArrayRef<int64_t> shape, Type type,
             double value) {
  Value empty = tensor::EmptyOp::create(b, loc, shape, type);
  return linalg::FillOp::create(b, loc, constantF32(b, loc, value), empty)
      .getResult(0);
}

/// Converts a float tensor to f32 elementwise (or returns it).
Value toF32(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getElementType().isF32())
    return v;
  Type f32 = b.getF32Type();
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), f32);
  auto map = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{v},
             ValueRange{init}, ArrayRef<AffineMap>{map, map}, iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nloc,
                   ValueRange{arith::ExtFOp::create(nb, nloc, f32, args[0])});
             })
      .getResult(0);
}

/// An elementwise or reducing linalg.generic over `iterators` whose inputs
/// and init use `maps`.
Value generic(OpBuilder &b, Location loc, ValueRange inputs, Value init,
              ArrayRef<AffineMap> maps,
              ArrayRef<utils::IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
             iterators,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               linalg::YieldOp::create(nb, nloc,
                                       ValueRange{body(nb, nloc, args)});
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// The tile bodies
//===----------------------------------------------------------------------===//

/// The running state of the online softmax of one query tile.
struct SoftmaxState {
  Value max;   // [Tq]
  Value sum;   // [Tq]
  Value acc;   // [Tq, Dv]
};

/// Folds the key block [k0, k0 + blockKeys) into `state` for the query tile
/// [q0, q0 + rows) of batch `bh`.
SoftmaxState addKeyBlock(OpBuilder &b, Location loc,
                         const AttentionProblem &p, Value bh, Value q0,
                         Value qTile, Value rowLens, int64_t rows, Value k0,
                         int64_t blockKeys, SoftmaxState state) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  auto one = b.getIndexAttr(1);
  OpFoldResult zeroAttr = b.getIndexAttr(0);

  // s = Q_tile [rows, D] · Kᵀ_block [D, blockKeys]
  auto kBlockType = RankedTensorType::get({p.headDim, blockKeys}, f32);
  Value kBlock = tensor::ExtractSliceOp::create(
      b, loc, kBlockType, p.kT, ArrayRef<OpFoldResult>{bh, zeroAttr, k0},
      ArrayRef<OpFoldResult>{one, b.getIndexAttr(p.headDim),
                             b.getIndexAttr(blockKeys)},
      ArrayRef<OpFoldResult>{one, one, one});
  Value scores0 = filled(b, loc, {rows, blockKeys}, f32, 0.0);
  Value scores = linalg::MatmulOp::create(b, loc, TypeRange{scores0.getType()},
                                          ValueRange{qTile, kBlock},
                                          ValueRange{scores0})
                     .getResult(0);

  // Scale and mask, in the order of tfm.attention's definition.
  auto id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  auto rowMap = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
  SmallVector<Value> inputs{scores};
  SmallVector<AffineMap> maps{id2};
  if (rowLens) {
    inputs.push_back(rowLens);
    maps.push_back(rowMap);
  }
  Value maskTile;
  if (p.mask) {
    auto maskType = RankedTensorType::get({rows, blockKeys}, f32);
    maskTile = tensor::ExtractSliceOp::create(
        b, loc, maskType, p.mask, ArrayRef<OpFoldResult>{q0, k0},
        ArrayRef<OpFoldResult>{b.getIndexAttr(rows),
                               b.getIndexAttr(blockKeys)},
        ArrayRef<OpFoldResult>{one, one});
    inputs.push_back(maskTile);
    maps.push_back(id2);
  }
  maps.push_back(id2);
  SmallVector<utils::IteratorType> parallel2(2, utils::IteratorType::parallel);
  Value masked = generic(
      b, loc, inputs, tensor::EmptyOp::create(b, loc, {rows, blockKeys}, f32),
      maps, parallel2, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value x = arith::MulFOp::create(nb, nloc, args[0],
                                        constantF32(nb, nloc, p.scale));
        Value row = arith::AddIOp::create(
            nb, nloc, linalg::IndexOp::create(nb, nloc, 0), q0);
        Value col = arith::AddIOp::create(
            nb, nloc, linalg::IndexOp::create(nb, nloc, 1), k0);
        unsigned next = 1;
        Value len = rowLens ? args[next++] : Value();
        Value maskValue = maskTile ? args[next++] : Value();
        if (maskValue)
          x = arith::AddFOp::create(nb, nloc, x, maskValue);
        if (len) {
          Value past = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::sge,
                                             col, len);
          x = arith::SelectOp::create(nb, nloc, past,
                                      constantF32(nb, nloc, kMaskedScore), x);
        }
        if (p.causal) {
          Value above = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::ugt, col, row);
          x = arith::SelectOp::create(
              nb, nloc, above,
              constantF32(nb, nloc, -std::numeric_limits<double>::infinity()),
              x);
        }
        return x;
      });

  // Every update below writes into the loop-carried state in place, so that
  // bufferization keeps one buffer per state across the key loop.
  //
  // rowmax(s), then m' = max(m, rowmax(s)) written over m, and
  // correction = exp(m - m').
  SmallVector<utils::IteratorType> rowReduce{utils::IteratorType::parallel,
                                             utils::IteratorType::reduction};
  Value rowMax = generic(
      b, loc, ValueRange{masked},
      filled(b, loc, {rows}, f32, -std::numeric_limits<double>::infinity()),
      {id2, rowMap}, rowReduce,
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::MaximumFOp::create(nb, nloc, args[0], args[1]);
      });
  auto id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<utils::IteratorType> parallel1(1, utils::IteratorType::parallel);
  Value correctionInit = tensor::EmptyOp::create(b, loc, {rows}, f32);
  auto update = linalg::GenericOp::create(
      b, loc, TypeRange{correctionInit.getType(), state.max.getType()},
      ValueRange{rowMax}, ValueRange{correctionInit, state.max},
      ArrayRef<AffineMap>{id1, id1, id1}, parallel1,
      [](OpBuilder &nb, Location nloc, ValueRange args) {
        Value newMax = arith::MaximumFOp::create(nb, nloc, args[2], args[0]);
        Value d = arith::SubFOp::create(nb, nloc, args[2], newMax);
        Value correction = math::ExpOp::create(nb, nloc, d);
        linalg::YieldOp::create(nb, nloc, ValueRange{correction, newMax});
      });
  Value correction = update.getResult(0);
  Value blockMax = update.getResult(1);
  // p = exp(s - m')
  Value probs = generic(
      b, loc, ValueRange{masked, blockMax},
      tensor::EmptyOp::create(b, loc, {rows, blockKeys}, f32),
      {id2, rowMap, id2}, parallel2,
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value d = arith::SubFOp::create(nb, nloc, args[0], args[1]);
        return math::ExpOp::create(nb, nloc, d);
      });
  // l' = l · correction + rowsum(p)
  Value scaledSum = generic(
      b, loc, ValueRange{correction}, state.sum, {id1, id1}, parallel1,
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::MulFOp::create(nb, nloc, args[1], args[0]);
      });
  Value sum = generic(
      b, loc, ValueRange{probs}, scaledSum, {id2, rowMap}, rowReduce,
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::AddFOp::create(nb, nloc, args[0], args[1]);
      });
  // acc' = acc · correction + p · V_block
  Value scaledAcc = generic(
      b, loc, ValueRange{correction}, state.acc, {rowMap, id2}, parallel2,
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::MulFOp::create(nb, nloc, args[1], args[0]);
      });
  auto vBlockType = RankedTensorType::get({blockKeys, p.valueDim}, f32);
  Value vBlock = tensor::ExtractSliceOp::create(
      b, loc, vBlockType, p.v, ArrayRef<OpFoldResult>{bh, k0, zeroAttr},
      ArrayRef<OpFoldResult>{one, b.getIndexAttr(blockKeys),
                             b.getIndexAttr(p.valueDim)},
      ArrayRef<OpFoldResult>{one, one, one});
  Value acc = linalg::MatmulOp::create(b, loc, TypeRange{scaledAcc.getType()},
                                       ValueRange{probs, vBlock},
                                       ValueRange{scaledAcc})
                  .getResult(0);
  return {blockMax, sum, acc};
}

/// Computes the output tile [rows, Dv] of the query rows [q0, q0 + rows) of
/// batch `bh`.
Value computeQueryTile(OpBuilder &b, Location loc, const AttentionProblem &p,
                       Value bh, Value q0, int64_t rows) {
  Type f32 = b.getF32Type();
  Type indexType = b.getIndexType();
  auto one = b.getIndexAttr(1);
  OpFoldResult zeroAttr = b.getIndexAttr(0);

  auto qTileType = RankedTensorType::get({rows, p.headDim}, f32);
  Value qTile = tensor::ExtractSliceOp::create(
      b, loc, qTileType, p.q, ArrayRef<OpFoldResult>{bh, q0, zeroAttr},
      ArrayRef<OpFoldResult>{one, b.getIndexAttr(rows),
                             b.getIndexAttr(p.headDim)},
      ArrayRef<OpFoldResult>{one, one, one});

  // The keys this tile can see: [0, end).
  Value keys = constantIndex(b, loc, p.keys);
  Value end = keys;
  if (p.causal) {
    Value last = arith::AddIOp::create(b, loc, q0, constantIndex(b, loc, rows));
    end = arith::MinUIOp::create(b, loc, end, last);
  }

  // Per-row lengths as an index tensor [rows], broadcast from a per-batch
  // length or sliced from per-query lengths.
  Value rowLens;
  if (p.validLens) {
    auto lensType = cast<RankedTensorType>(p.validLens.getType());
    Type intType = lensType.getElementType();
    MLIRContext *ctx = b.getContext();
    auto id1 = AffineMap::getMultiDimIdentityMap(1, ctx);
    if (p.perQueryLens) {
      Value slice = tensor::ExtractSliceOp::create(
          b, loc, RankedTensorType::get({rows}, intType), p.validLens,
          ArrayRef<OpFoldResult>{bh, q0},
          ArrayRef<OpFoldResult>{one, b.getIndexAttr(rows)},
          ArrayRef<OpFoldResult>{one, one});
      rowLens = generic(
          b, loc, ValueRange{slice}, tensor::EmptyOp::create(b, loc, {rows},
                                                             indexType),
          {id1, id1}, {utils::IteratorType::parallel},
          [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
            return arith::IndexCastOp::create(nb, nloc, nb.getIndexType(),
                                              args[0]);
          });
    } else {
      Value len = tensor::ExtractOp::create(b, loc, p.validLens, bh);
      len = arith::IndexCastOp::create(b, loc, indexType, len);
      rowLens = linalg::FillOp::create(
                    b, loc, ValueRange{len},
                    ValueRange{tensor::EmptyOp::create(b, loc, {rows},
                                                       indexType)})
                    .getResult(0);
      // Skip the blocks past the length; a length of 0 or less masks every
      // key, which d2l turns into uniform weights over all of them.
      Value zero = constantIndex(b, loc, 0);
      Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle,
                                          len, zero);
      Value lenEnd = arith::SelectOp::create(
          b, loc, empty, keys, arith::MinSIOp::create(b, loc, len, keys));
      end = arith::MinUIOp::create(b, loc, end, lenEnd);
    }
  }

  SoftmaxState state{
      filled(b, loc, {rows}, f32, -std::numeric_limits<double>::infinity()),
      filled(b, loc, {rows}, f32, 0.0),
      filled(b, loc, {rows, p.valueDim}, f32, 0.0)};

  // Full blocks, then the static remainder block if the tile reaches it.
  int64_t fullBlocks = p.keys / p.kvTile;
  int64_t remainder = p.keys % p.kvTile;
  Value tile = constantIndex(b, loc, p.kvTile);
  Value blocks = arith::CeilDivUIOp::create(b, loc, end, tile);
  Value loopBlocks =
      arith::MinUIOp::create(b, loc, blocks, constantIndex(b, loc, fullBlocks));
  auto loop = scf::ForOp::create(
      b, loc, constantIndex(b, loc, 0), loopBlocks, constantIndex(b, loc, 1),
      ValueRange{state.max, state.sum, state.acc},
      [&](OpBuilder &nb, Location nloc, Value j, ValueRange iterArgs) {
        Value k0 = arith::MulIOp::create(nb, nloc, j, tile);
        SoftmaxState next = addKeyBlock(
            nb, nloc, p, bh, q0, qTile, rowLens, rows, k0, p.kvTile,
            {iterArgs[0], iterArgs[1], iterArgs[2]});
        scf::YieldOp::create(nb, nloc,
                             ValueRange{next.max, next.sum, next.acc});
      });
  state = {loop.getResult(0), loop.getResult(1), loop.getResult(2)};
  if (remainder > 0) {
    Value reaches = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ugt, blocks,
        constantIndex(b, loc, fullBlocks));
    auto ifOp = scf::IfOp::create(
        b, loc, reaches,
        [&](OpBuilder &nb, Location nloc) {
          SoftmaxState next = addKeyBlock(
              nb, nloc, p, bh, q0, qTile, rowLens, rows,
              constantIndex(nb, nloc, fullBlocks * p.kvTile), remainder, state);
          scf::YieldOp::create(nb, nloc,
                               ValueRange{next.max, next.sum, next.acc});
        },
        [&](OpBuilder &nb, Location nloc) {
          scf::YieldOp::create(nb, nloc,
                               ValueRange{state.max, state.sum, state.acc});
        });
    state = {ifOp.getResult(0), ifOp.getResult(1), ifOp.getResult(2)};
  }

  // out = acc / l
  MLIRContext *ctx = b.getContext();
  auto id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  auto rowMap = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
  return generic(
      b, loc, ValueRange{state.acc, state.sum},
      tensor::EmptyOp::create(b, loc, {rows, p.valueDim}, f32),
      {id2, rowMap, id2},
      {utils::IteratorType::parallel, utils::IteratorType::parallel},
      [](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        return arith::DivFOp::create(nb, nloc, args[0], args[1]);
      });
}

/// Emits an scf.forall over (BH, tiles) computing query tiles of `rows`
/// rows starting at row `firstRow`, inserted into `out` [BH, Sq, Dv].
Value emitTileLoop(OpBuilder &b, Location loc, const AttentionProblem &p,
                   Value out, int64_t firstRow, int64_t tiles, int64_t rows) {
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(p.batch),
                                     b.getIndexAttr(tiles)},
      ValueRange{out}, std::nullopt);
  Block *body = forall.getBody();
  Value bh = body->getArgument(0), t = body->getArgument(1);
  Value shared = body->getArgument(2);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  Value q0 = arith::AddIOp::create(
      b, loc, constantIndex(b, loc, firstRow),
      arith::MulIOp::create(b, loc, t, constantIndex(b, loc, rows)));
  Value tile = computeQueryTile(b, loc, p, bh, q0, rows);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  auto one = b.getIndexAttr(1);
  tensor::ParallelInsertSliceOp::create(
      b, loc, tile, shared,
      ArrayRef<OpFoldResult>{bh, q0, b.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{one, b.getIndexAttr(rows),
                             b.getIndexAttr(p.valueDim)},
      ArrayRef<OpFoldResult>{one, one, one});
  return forall.getResult(0);
}

/// Default tile sizes: query tiles of 32 rows (four register tiles) and key
/// blocks of 64, so that a Q tile, a K and a V block and the score block of
/// a 64-wide head stay within L1 and L2.
int64_t chooseTile(int64_t requested, int64_t preferred, int64_t size) {
  int64_t tile = requested > 0 ? requested : preferred;
  return std::max<int64_t>(1, std::min(tile, size));
}

/// Reshapes `v`, whose leading `lead` dimensions are batch dimensions, so
/// that they become exactly one (a unit one if there are none).
Value toSingleBatchDim(OpBuilder &b, Location loc, Value v, int64_t lead) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  if (lead == 1)
    return v;
  if (lead == 0) {
    SmallVector<int64_t> shape{1};
    llvm::append_range(shape, type.getShape());
    SmallVector<ReassociationIndices> groups;
    if (rank > 0) {
      groups.push_back({0, 1});
      for (int64_t i = 2; i <= rank; ++i)
        groups.push_back({i});
    }
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()), v,
        groups);
  }
  SmallVector<ReassociationIndices> groups{
      llvm::to_vector(llvm::seq<int64_t>(0, lead))};
  for (int64_t i = lead; i < rank; ++i)
    groups.push_back({i});
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// Returns the mask as [Sq, Sk], broadcasting unit dimensions once. Its
/// batch dimensions, if any, are all 1.
Value broadcastMask(OpBuilder &b, Location loc, Value mask, int64_t queries,
                    int64_t keys);

/// Rewrites `op` into the tiled loop nest, or fails without touching the IR.
LogicalResult tileAttention(RewriterBase &rewriter, AttentionOp op,
                            int64_t qTile, int64_t kvTile) {
  {
    auto qType = cast<RankedTensorType>(op.getQuery().getType());
    auto kType = cast<RankedTensorType>(op.getKey().getType());
    auto vType = cast<RankedTensorType>(op.getValue().getType());
    auto resultType = cast<RankedTensorType>(op.getType());
    if (!qType.hasStaticShape() || !kType.hasStaticShape() ||
        !vType.hasStaticShape() || !resultType.hasStaticShape())
      return failure();
    int64_t rank = qType.getRank();
    ArrayRef<int64_t> batchShape = qType.getShape().drop_back(2);

    // The mask must be shared by every batch: all its batch dims are 1.
    Value mask = op.getMask();
    if (mask) {
      auto maskType = cast<RankedTensorType>(mask.getType());
      int64_t maskRank = maskType.getRank();
      for (int64_t i = 0; i < maskRank - 2; ++i)
        if (maskType.getDimSize(i) != 1)
          return failure();
    }
    std::optional<double> scale = op.getEffectiveScale();
    if (!scale)
      return failure();

    Location loc = op.getLoc();
    AttentionProblem p;
    p.batch = 1;
    for (int64_t d : batchShape)
      p.batch *= d;
    p.queries = qType.getDimSize(rank - 2);
    p.keys = kType.getDimSize(rank - 2);
    p.headDim = qType.getDimSize(rank - 1);
    p.valueDim = vType.getDimSize(rank - 1);
    p.qTile = chooseTile(qTile, 32, p.queries);
    p.kvTile = chooseTile(kvTile, 64, p.keys);
    p.scale = *scale;
    p.causal = op.getCausal();

    Type f32 = rewriter.getF32Type();
    p.q = toSingleBatchDim(rewriter, loc, toF32(rewriter, loc, op.getQuery()),
                           rank - 2);
    p.v = toSingleBatchDim(rewriter, loc, toF32(rewriter, loc, op.getValue()),
                           rank - 2);
    Value k = toSingleBatchDim(rewriter, loc,
                               toF32(rewriter, loc, op.getKey()), rank - 2);
    Value kTInit = tensor::EmptyOp::create(
        rewriter, loc, {p.batch, p.headDim, p.keys}, f32);
    p.kT = linalg::TransposeOp::create(rewriter, loc, k, kTInit,
                                       ArrayRef<int64_t>{0, 2, 1})
               ->getResult(0);

    if (Value lens = op.getValidLens()) {
      p.perQueryLens =
          cast<RankedTensorType>(lens.getType()).getRank() == rank - 1;
      p.validLens = toSingleBatchDim(rewriter, loc, lens, rank - 2);
    }
    if (mask)
      p.mask = broadcastMask(rewriter, loc, toF32(rewriter, loc, mask),
                             p.queries, p.keys);

    Value out = tensor::EmptyOp::create(
        rewriter, loc, {p.batch, p.queries, p.valueDim}, f32);
    int64_t fullTiles = p.queries / p.qTile;
    int64_t remainder = p.queries % p.qTile;
    if (fullTiles > 0)
      out = emitTileLoop(rewriter, loc, p, out, 0, fullTiles, p.qTile);
    if (remainder > 0)
      out = emitTileLoop(rewriter, loc, p, out, fullTiles * p.qTile, 1,
                         remainder);

    // Back to the op's element type and shape.
    if (!resultType.getElementType().isF32()) {
      Type elementType = resultType.getElementType();
      auto type = cast<RankedTensorType>(out.getType());
      Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                           elementType);
      auto map = rewriter.getMultiDimIdentityMap(3);
      out = generic(rewriter, loc, ValueRange{out}, init, {map, map},
                    SmallVector<utils::IteratorType>(
                        3, utils::IteratorType::parallel),
                    [&](OpBuilder &nb, Location nloc, ValueRange args) {
                      return arith::TruncFOp::create(nb, nloc, elementType,
                                                     args[0])
                          .getResult();
                    });
    }
    if (rank != 3) {
      if (rank == 2) {
        out = tensor::CollapseShapeOp::create(
            rewriter, loc, out, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
      } else {
        ReassociationIndices lead;
        for (int64_t i = 0; i <= rank - 3; ++i)
          lead.push_back(i);
        out = tensor::ExpandShapeOp::create(
            rewriter, loc, resultType, out,
            ArrayRef<ReassociationIndices>{lead, {rank - 2}, {rank - 1}});
      }
    }
    rewriter.replaceOp(op, out);
    return success();
  }
}

Value broadcastMask(OpBuilder &b, Location loc, Value mask, int64_t queries,
                    int64_t keys) {
  {
    auto type = cast<RankedTensorType>(mask.getType());
    // Drop the (unit) batch dimensions.
    int64_t rank = type.getRank();
    SmallVector<int64_t> trailing(type.getShape().take_back(
        std::min<int64_t>(rank, 2)));
    Value m = mask;
    if (rank > 2) {
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices first;
      for (int64_t i = 0; i <= rank - 2; ++i)
        first.push_back(i);
      groups.push_back(first);
      groups.push_back({rank - 1});
      m = tensor::CollapseShapeOp::create(b, loc, m, groups);
    }
    while (trailing.size() < 2)
      trailing.insert(trailing.begin(), 1);
    if (trailing[0] == queries && trailing[1] == keys &&
        cast<RankedTensorType>(m.getType()).getRank() == 2)
      return m;
    // Broadcast through a generic reading index 0 of unit dimensions.
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineExpr> exprs;
    int64_t mRank = cast<RankedTensorType>(m.getType()).getRank();
    ArrayRef<int64_t> mShape = cast<RankedTensorType>(m.getType()).getShape();
    for (int64_t i = 0; i < mRank; ++i) {
      int64_t dim = 2 - mRank + i;
      exprs.push_back(mShape[i] == 1 ? getAffineConstantExpr(0, ctx)
                                     : getAffineDimExpr(dim, ctx));
    }
    auto inMap = AffineMap::get(2, 0, exprs, ctx);
    auto outMap = AffineMap::getMultiDimIdentityMap(2, ctx);
    Value init =
        tensor::EmptyOp::create(b, loc, {queries, keys}, b.getF32Type());
    return generic(b, loc, ValueRange{m}, init, {inMap, outMap},
                   {utils::IteratorType::parallel,
                    utils::IteratorType::parallel},
                   [](OpBuilder &, Location, ValueRange args) {
                     return args[0];
                   });
  }
}

struct TfmTileAttentionPass
    : tfm::impl::TfmTileAttentionBase<TfmTileAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (AttentionOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(tileAttention(rewriter, op, qTileSize, kvTileSize)))
        op.emitRemark("attention keeps its reference lowering: dynamic "
                      "shapes or a mask that varies over batches");
    }
  }
};

} // namespace
