//===- CpuVectorize.cpp - Tile and vectorize linalg ops for the CPU -------===//
//
// Implements `tfm-cpu-vectorize`, with two strategies:
//
// - Contractions (matmuls, batched or not, with a row-major right operand)
//   get a register-blocked micro-kernel: tiles of Mr rows × Nr columns (Nr
//   two vector registers wide) with the panel loop outermost and an
//   innermost reduction loop of step 1. The pipeline then hoists the
//   accumulator tile out of that loop (loop-invariant-subset-hoisting), so
//   that it stays in vector registers: one broadcast FMA per row and
//   register and step.
// - Every other linalg op is tiled so that a tile covers one vector along
//   its innermost loop and one iteration of every other loop.
//
// Tile loops whose step does not divide the trip count are peeled, so that
// the main tiles and the remainder tile both have static shapes and
// vectorize without masks. Tiles of dynamic shape are vectorized with masks.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/TilingUtils.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/Common/Passes.h"

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
#include "tfm/Codegen/CPU/Passes.h.inc"
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

/// The register tile of a contraction: the sizes of its m and n dimensions.
struct RegisterTile {
  int64_t rows;
  int64_t cols;
};

/// Rows and columns of the accumulator tile kept in registers: two vector
/// registers wide, and as many rows as leave room for the operands (16
/// accumulators of the 32 AVX-512 registers, 12 of the 16 AVX2 ones).
RegisterTile getRegisterTile(int64_t lanes, unsigned vectorWidthBits) {
  return {vectorWidthBits >= 512 ? 8 : 6, 2 * lanes};
}

/// The m, n and k dimensions of `op` if it is a matmul, batched or not, whose
/// right operand is row-major ([k, n]), so that a row of it is contiguous.
/// Several m dimensions are allowed (a matmul on a [B, S, K] input whose
/// leading dimensions were not collapsed): all but the innermost are then
/// iterated like batch dimensions.
std::optional<linalg::ContractionDimensions>
getRowMajorMatmulDims(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2)
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.size() != 1 ||
      dims->k.size() != 1)
    return std::nullopt;
  // The innermost result of the right operand's map must be n.
  AffineMap rhs = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  auto last = dyn_cast<AffineDimExpr>(rhs.getResults().back());
  if (!last || last.getPosition() != dims->n.front())
    return std::nullopt;
  // Outer m dimensions become batch dimensions: the innermost m is the one
  // register tiles span.
  while (dims->m.size() > 1) {
    dims->batch.push_back(dims->m.front());
    dims->m.erase(dims->m.begin());
  }
  return *dims;
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

    // Aggregate ops such as linalg.softmax become the linalg ops they are
    // made of, which are tiled like any other.
    if (failed(decomposeAggregates(getOperation())))
      return signalPassFailure();

    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && op.getNumLoops() > 0)
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      if (std::optional<linalg::ContractionDimensions> dims =
              getRowMajorMatmulDims(op))
        tileContraction(rewriter, op, *dims);
      else
        tileAndPeel(rewriter, op);
    }

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

  /// Splits the columns of a matmul into panels computed in parallel (an
  /// scf.forall, run by OpenMP threads), when they divide evenly into a few
  /// register tiles each, then tiles each panel into register tiles.
  void tileContraction(IRRewriter &rewriter, linalg::LinalgOp op,
                       const linalg::ContractionDimensions &dims) {
    // Batched matmuls run their batches in parallel.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t batches = 1;
    for (unsigned b : dims.batch)
      batches = ShapedType::isDynamic(ranges[b]) || batches < 0
                    ? -1
                    : batches * ranges[b];
    if (batches >= 2) {
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      for (unsigned b : dims.batch)
        sizes[b] = 1;
      FailureOr<scf::SCFTilingResult> tiled = tileInPlace(
          rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
      if (succeeded(tiled))
        return tileIntoRegisters(
            rewriter, cast<linalg::LinalgOp>(tiled->tiledOps.back()), dims);
    }
    int64_t lanes =
        std::max<int64_t>(1, vectorWidthBits / getWidestElementBits(op));
    int64_t cols = getRegisterTile(lanes, vectorWidthBits).cols;
    unsigned n = dims.n.front();
    int64_t size = ranges[n];
    int64_t panel = 0;
    for (int64_t candidate : {4 * cols, 2 * cols, cols})
      if (!ShapedType::isDynamic(size) && size % candidate == 0 &&
          size / candidate >= 2) {
        panel = candidate;
        break;
      }
    if (panel == 0)
      return tileIntoRegisters(rewriter, op, dims);

    SmallVector<int64_t> sizes(op.getNumLoops(), 0);
    sizes[n] = panel;
    FailureOr<scf::SCFTilingResult> tiled = tileInPlace(
        rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(tiled))
      return tileIntoRegisters(rewriter, op, dims);
    tileIntoRegisters(rewriter, cast<linalg::LinalgOp>(tiled->tiledOps.back()),
                      dims);
  }

  /// Tiles a matmul into register tiles: n panels outermost (a panel of the
  /// right operand stays in cache while every row block uses it), then row
  /// blocks, then the reduction, one step at a time.
  void tileIntoRegisters(IRRewriter &rewriter, linalg::LinalgOp op,
                         const linalg::ContractionDimensions &dims) {
    int64_t lanes =
        std::max<int64_t>(1, vectorWidthBits / getWidestElementBits(op));
    RegisterTile tile = getRegisterTile(lanes, vectorWidthBits);
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    unsigned numLoops = op.getNumLoops();
    unsigned m = dims.m.front(), n = dims.n.front(), k = dims.k.front();

    // Register tiles over batch, m and n; the panel loop over n first.
    SmallVector<int64_t> sizes(numLoops, 0);
    for (unsigned b : dims.batch)
      sizes[b] = 1;
    auto clampTo = [&](unsigned dim, int64_t size) {
      return ShapedType::isDynamic(ranges[dim])
                 ? size
                 : std::min(size, std::max<int64_t>(ranges[dim], 1));
    };
    sizes[m] = clampTo(m, tile.rows);
    sizes[n] = clampTo(n, tile.cols);
    SmallVector<int64_t> interchange(dims.batch.begin(), dims.batch.end());
    interchange.append({n, m, k});

    FailureOr<scf::SCFTilingResult> tiled =
        tileInPlace(rewriter, op, sizes,
                    scf::SCFTilingOptions::LoopType::ForOp, interchange);
    if (failed(tiled)) {
      op.emitRemark("matmul not tiled into register tiles; lowered to loops");
      return;
    }

    // The reduction, one step at a time, inside each register tile.
    auto tileOp = cast<linalg::LinalgOp>(tiled->tiledOps.back());
    SmallVector<int64_t> kSizes(numLoops, 0);
    kSizes[k] = 1;
    (void)tileInPlace(rewriter, tileOp, kSizes);

    // Peel the n and m loops, outermost first, so that every register tile
    // has a static shape.
    for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
      if (auto forOp = dyn_cast<scf::ForOp>(*loop)) {
        scf::ForOp remainder;
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, remainder);
      }
    }
  }

  /// Tiles `op` to its vector shape and peels the innermost tile loop.
  void tileAndPeel(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> vectorShape = getVectorShape(op, vectorWidthBits);
    FailureOr<scf::SCFTilingResult> tiled =
        tileInPlace(rewriter, op, vectorShape);
    if (failed(tiled)) {
      op.emitRemark("not tiled for vectorization; lowered to loops");
      return;
    }
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
    // Vectors of i1 are bit-packed in memory while scalar i1 loads and
    // stores use a byte each, so a vectorized op that reads or writes an i1
    // tensor would disagree with the loops around it about the buffer's
    // layout. Such ops (boolean masks) stay scalar.
    auto isI1 = [](Value value) {
      auto type = dyn_cast<ShapedType>(value.getType());
      return type && type.getElementType().isInteger(1);
    };
    if (llvm::any_of(op->getOperands(), isI1) ||
        llvm::any_of(op->getResults(), isI1))
      return;
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
