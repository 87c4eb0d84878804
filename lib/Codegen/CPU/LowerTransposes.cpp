//===- LowerTransposes.cpp - tfm-cpu-lower-transposes ---------------------===//
//
// Implements `tfm-cpu-lower-transposes`: the transposed transfers of a
// vectorized transpose become row transfers and in-register transposes of
// 8x8 blocks, made of two-vector shuffles.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Utils/VectorUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPULOWERTRANSPOSES
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr int64_t kBlock = 8;

/// Transposes the 8x8 block whose rows are `rows`, in place. Element j of
/// row i is written (i, j) below; a "half" is four elements.
///
///   1. Pairs of rows interleave their elements, half by half:
///      (0,0) (1,0) (0,1) (1,1) | (0,4) (1,4) (0,5) (1,5) and the same with
///      elements 2, 3, 6, 7.
///   2. Pairs of those interleave their element pairs: (0,0) (1,0) (2,0)
///      (3,0) | (0,4) (1,4) (2,4) (3,4), a column's first half in each half.
///   3. The halves of rows i and i + 4 of step 2 join: (0..7, 0) is the
///      first half of one and the first half of the other.
void transposeBlock(OpBuilder &b, Location loc, MutableArrayRef<Value> rows) {
  auto shuffle = [&](Value x, Value y, ArrayRef<int64_t> mask) -> Value {
    return vector::ShuffleOp::create(b, loc, x, y, mask);
  };
  // Step 1: rows 2k and 2k+1.
  SmallVector<Value> pairs(kBlock);
  for (int64_t k = 0; k < kBlock / 2; ++k) {
    pairs[2 * k] = shuffle(rows[2 * k], rows[2 * k + 1],
                           {0, 8, 1, 9, 4, 12, 5, 13});
    pairs[2 * k + 1] = shuffle(rows[2 * k], rows[2 * k + 1],
                               {2, 10, 3, 11, 6, 14, 7, 15});
  }
  // Step 2: pairs 4g + {0, 2} and 4g + {1, 3}, each giving two columns'
  // halves of rows 4g..4g+3.
  SmallVector<Value> quads(kBlock);
  for (int64_t g = 0; g < 2; ++g)
    for (int64_t h = 0; h < 2; ++h) {
      Value lo = pairs[4 * g + h], hi = pairs[4 * g + h + 2];
      quads[4 * g + 2 * h] = shuffle(lo, hi, {0, 1, 8, 9, 4, 5, 12, 13});
      quads[4 * g + 2 * h + 1] = shuffle(lo, hi, {2, 3, 10, 11, 6, 7, 14, 15});
    }
  // Step 3: column c (0..3) has its rows 0..3 in quads[c] and rows 4..7 in
  // quads[c + 4]; the first halves make column c, the second column c + 4.
  for (int64_t c = 0; c < kBlock / 2; ++c) {
    rows[c] = shuffle(quads[c], quads[c + 4], {0, 1, 2, 3, 8, 9, 10, 11});
    rows[c + 4] =
        shuffle(quads[c], quads[c + 4], {4, 5, 6, 7, 12, 13, 14, 15});
  }
}

/// vector.transpose of an 8x8 block of 32-bit elements, with any number of
/// unit dimensions around it, as shuffles of its rows.
struct TransposeBlockLowering : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType source = op.getSourceVectorType();
    Type element = source.getElementType();
    if (source.isScalable() || !element.isIntOrFloat() ||
        element.getIntOrFloatBitWidth() != 32)
      return rewriter.notifyMatchFailure(op, "not 32-bit elements");
    FailureOr<std::pair<int, int>> dims = vector::isTranspose2DSlice(op);
    if (failed(dims) || source.getDimSize(dims->first) != kBlock ||
        source.getDimSize(dims->second) != kBlock)
      return rewriter.notifyMatchFailure(op, "not an 8x8 block");
    Location loc = op.getLoc();
    auto block = VectorType::get({kBlock, kBlock}, element);
    Value input =
        vector::ShapeCastOp::create(rewriter, loc, block, op.getVector());
    SmallVector<Value> rows;
    for (int64_t i = 0; i < kBlock; ++i)
      rows.push_back(vector::ExtractOp::create(rewriter, loc, input, i));
    transposeBlock(rewriter, loc, rows);
    Value result = arith::ConstantOp::create(rewriter, loc, block,
                                             rewriter.getZeroAttr(block));
    for (int64_t i = 0; i < kBlock; ++i)
      result = vector::InsertOp::create(rewriter, loc, rows[i], result, i);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(
        op, op.getResultVectorType(), result);
    return success();
  }
};

/// vector.transpose of a vector.broadcast that keeps the order of the
/// broadcast's source dimensions (the <8x8x1> operand of a register tile,
/// one element of a column per row, that the lowering of a transposing
/// transfer_read writes as broadcast and transpose) is one broadcast of the
/// source with its dimensions in place: no shuffles. (Lowered as an 8x8
/// block instead, every row of the tile came out equal on AVX-512, where
/// register tiles have 8 rows.)
struct TransposeOfBroadcast : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto broadcast = op.getVector().getDefiningOp<vector::BroadcastOp>();
    if (!broadcast)
      return rewriter.notifyMatchFailure(op, "not a transposed broadcast");
    auto sourceType = dyn_cast<VectorType>(broadcast.getSourceType());
    VectorType wide = broadcast.getResultVectorType();
    if (!sourceType || sourceType.isScalable() || wide.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed vector broadcast");
    int64_t added = wide.getRank() - sourceType.getRank();
    ArrayRef<int64_t> perm = op.getPermutation();
    // The source, reshaped to the result's rank: 1 where the result
    // broadcasts, the source's size where it keeps a dimension.
    SmallVector<int64_t> shape;
    int64_t lastKept = -1;
    for (int64_t dim : perm) {
      bool kept = dim >= added &&
                  sourceType.getDimSize(dim - added) == wide.getDimSize(dim);
      if (!kept || wide.getDimSize(dim) == 1) {
        shape.push_back(1);
        continue;
      }
      if (dim < lastKept)
        return rewriter.notifyMatchFailure(op, "reorders source dimensions");
      lastKept = dim;
      shape.push_back(wide.getDimSize(dim));
    }
    Location loc = op.getLoc();
    Value source = vector::ShapeCastOp::create(
        rewriter, loc, VectorType::get(shape, sourceType.getElementType()),
        broadcast.getSource());
    rewriter.replaceOpWithNewOp<vector::BroadcastOp>(
        op, op.getResultVectorType(), source);
    return success();
  }
};

struct TfmCpuLowerTransposesPass
    : tfm::impl::TfmCpuLowerTransposesBase<TfmCpuLowerTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    // First the transfers' permutations become transposes and broadcasts,
    // and transposes of broadcasts fold; only the transposes left are
    // blocks of data to shuffle.
    RewritePatternSet permutations(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(permutations);
    permutations.add<TransposeOfBroadcast>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(permutations))))
      return signalPassFailure();
    RewritePatternSet blocks(&getContext());
    blocks.add<TransposeBlockLowering>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(blocks))))
      signalPassFailure();
  }
};

} // namespace
