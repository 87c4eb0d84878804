//===- ReduceRowBlocks.cpp - tfm-cpu-reduce-row-blocks ---------------------===//
//
// Implements `tfm-cpu-reduce-row-blocks`: the reduction along the rows of a
// block of R rows (`vector.multi_reduction` of a vector<R x C> over its
// inner dimension, R a power of two, C a multiple of R) combines the rows'
// lanes by halves, two rows at a time, so that the R results come out in
// one vector of R lanes after R - 1 combining ops and 2(R - 1) shuffles,
// with no dependence between the rows; upstream's lowering reduces each row
// across its lanes on its own (log2 R dependent steps a row, then an
// insertion of each scalar into the result).
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUREDUCEROWBLOCKS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The shuffle masks that combine two vectors of R lanes holding R / block
/// rows of `block` partial results each into one vector of R lanes holding
/// twice the rows with half the partials: the low halves of each row's
/// partials (first operand's rows, then the second's) and the high halves.
std::pair<SmallVector<int64_t>, SmallVector<int64_t>>
getHalvingMasks(int64_t lanes, int64_t block) {
  SmallVector<int64_t> low, high;
  int64_t half = block / 2;
  for (int64_t operand : {int64_t(0), lanes})
    for (int64_t row = 0; row < lanes; row += block)
      for (int64_t i = 0; i < half; ++i) {
        low.push_back(operand + row + i);
        high.push_back(operand + row + half + i);
      }
  return {low, high};
}

struct ReduceRowBlock : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    int64_t rank = type.getRank();
    if (rank < 2 || type.isScalable() || op.isReducedDim(rank - 2) ||
        !op.isReducedDim(rank - 1))
      return rewriter.notifyMatchFailure(op, "not a reduction along rows");
    // Leading unit dimensions (a batch of one) are dropped.
    if (llvm::any_of(type.getShape().drop_back(2),
                     [](int64_t size) { return size != 1; }))
      return rewriter.notifyMatchFailure(op, "more than one block of rows");
    int64_t rows = type.getDimSize(rank - 2),
            columns = type.getDimSize(rank - 1);
    if (rows < 2 || !llvm::isPowerOf2_64(rows) || columns % rows != 0)
      return rewriter.notifyMatchFailure(op, "rows not a power of two "
                                             "dividing the columns");
    if (isa<vector::MaskOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "masked");

    Location loc = op.getLoc();
    vector::CombiningKind kind = op.getKind();
    Value block = op.getSource();
    if (rank > 2)
      block = vector::ShapeCastOp::create(
          rewriter, loc,
          VectorType::get({rows, columns}, type.getElementType()), block);
    // Each row's columns, R lanes at a time, combined elementwise.
    SmallVector<Value> parts;
    for (int64_t row = 0; row < rows; ++row) {
      Value lanes = vector::ExtractOp::create(rewriter, loc, block,
                                              ArrayRef<int64_t>{row});
      Value part;
      for (int64_t column = 0; column < columns; column += rows) {
        Value slice = vector::ExtractStridedSliceOp::create(
            rewriter, loc, lanes, {column}, {rows}, {1});
        part = part ? vector::makeArithReduction(rewriter, loc, kind, part,
                                                 slice)
                    : slice;
      }
      parts.push_back(part);
    }
    // Pairs of vectors combined by halves until one holds every row's
    // result, in row order.
    for (int64_t block = rows; block > 1; block /= 2) {
      auto [low, high] = getHalvingMasks(rows, block);
      SmallVector<Value> combined;
      for (size_t i = 0; i < parts.size(); i += 2) {
        Value lows = vector::ShuffleOp::create(rewriter, loc, parts[i],
                                               parts[i + 1], low);
        Value highs = vector::ShuffleOp::create(rewriter, loc, parts[i],
                                                parts[i + 1], high);
        combined.push_back(
            vector::makeArithReduction(rewriter, loc, kind, lows, highs));
      }
      parts = std::move(combined);
    }
    Value result = parts.front();
    if (rank > 2)
      result = vector::ShapeCastOp::create(rewriter, loc, op.getDestType(),
                                           result);
    if (Value acc = op.getAcc())
      result = vector::makeArithReduction(rewriter, loc, kind, result, acc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TfmCpuReduceRowBlocksPass
    : tfm::impl::TfmCpuReduceRowBlocksBase<TfmCpuReduceRowBlocksPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReduceRowBlock>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
