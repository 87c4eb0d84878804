//===- CpuVectorize.cpp - Tile and vectorize linalg ops for the CPU -------===//
//
// Implements `tfm-cpu-vectorize`. Each linalg op on tensors is tiled so that
// one tile covers a vector's worth of its innermost loop and one iteration of
// every other loop. The innermost tile loop is peeled when its step does not
// divide the trip count, so that both the main tiles and the remainder tile
// have static shapes and vectorize without masks. Tiles of dynamic shape are
// vectorized with masks.
//
//===----------------------------------------------------------------------===//

#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUVECTORIZE
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Returns the widest element type, in bits, among the operands of `op`.
unsigned getWidestElementBits(linalg::LinalgOp op) {
  unsigned bits = 8;
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = getElementTypeOrSelf(operand.get().getType());
    if (type.isIntOrFloat())
      bits = std::max(bits, type.getIntOrFloatBitWidth());
  }
  return bits;
}

/// The tile, and vector, shape of `op`: one vector register's worth of
/// elements along the innermost loop, one iteration of every other loop.
SmallVector<int64_t> getVectorShape(linalg::LinalgOp op,
                                    unsigned vectorWidthBits) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> shape(numLoops, 1);
  if (numLoops == 0)
    return shape;
  int64_t lanes =
      std::max<int64_t>(1, vectorWidthBits / getWidestElementBits(op));
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t innermost = ranges.back();
  if (!ShapedType::isDynamic(innermost))
    lanes = std::min(lanes, std::max<int64_t>(innermost, 1));
  shape.back() = lanes;
  return shape;
}

/// Adds the canonicalization patterns of every loaded dialect and registered
/// op, which fold the bounds of peeled tiles into constants.
void populateCanonicalizationPatterns(MLIRContext *context,
                                      RewritePatternSet &patterns) {
  for (Dialect *dialect : context->getLoadedDialects())
    dialect->getCanonicalizationPatterns(patterns);
  for (RegisteredOperationName op : context->getRegisteredOperations())
    op.getCanonicalizationPatterns(patterns, context);
}

struct TfmCpuVectorizePass
    : tfm::impl::TfmCpuVectorizeBase<TfmCpuVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    IRRewriter rewriter(context);

    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op.getNumLoops() > 0)
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      tileAndPeel(rewriter, op);

    RewritePatternSet patterns(context);
    populateCanonicalizationPatterns(context, patterns);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));

    ops.clear();
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      vectorize(rewriter, op);
  }

  /// Tiles `op` to its vector shape and peels the innermost tile loop.
  void tileAndPeel(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> vectorShape = getVectorShape(op, vectorWidthBits);
    scf::SCFTilingOptions options;
    options.setTileSizes(getAsIndexOpFoldResult(&getContext(), vectorShape));
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
        rewriter, cast<TilingInterface>(op.getOperation()), options);
    if (failed(tiled)) {
      op.emitRemark("not tiled for vectorization; lowered to loops");
      return;
    }
    rewriter.replaceOp(op, tiled->replacements);
    if (tiled->loops.empty())
      return;
    if (auto innermost = dyn_cast<scf::ForOp>(*tiled->loops.back())) {
      scf::ForOp remainder;
      (void)scf::peelForLoopAndSimplifyBounds(rewriter, innermost, remainder);
    }
  }

  /// Vectorizes a tile: without masks when its shape is static, with masks
  /// to its vector shape otherwise.
  void vectorize(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> maskShape;
    if (op.hasDynamicShape())
      maskShape = getVectorShape(op, vectorWidthBits);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
        rewriter, op, maskShape, /*inputScalableVecDims=*/{},
        /*vectorizeNDExtract=*/true);
    if (failed(vectorized)) {
      op.emitRemark("not vectorized; lowered to loops");
      return;
    }
    rewriter.replaceOp(op, vectorized->replacements);
  }
};

} // namespace
