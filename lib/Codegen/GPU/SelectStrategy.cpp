//===- SelectStrategy.cpp - tfm-gpu-select-strategy ---------------------===//
//
// Implements `tfm-gpu-select-strategy`: the strategy NVIDIA GPUs code
// generation applies, chosen per op and recorded as its #tfm.lowering_config.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "tfm/Codegen/Common/Strategy.h"

#include "WarpMma.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUSELECTSTRATEGY
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

/// The multiprocessors of an H100: a strategy that has a choice gives each
/// a block.
static constexpr int64_t kMultiprocessors = 132;

/// The largest output tile, for products on tensor cores, and the
/// reduction steps staged at a time for it: three stages of a chunk of 32
/// of both float16 operands take about 60 KB of shared memory (of 64, 108
/// KB: one block a multiprocessor on an A100).
static constexpr int64_t kTensorCoreTile = 128, kTensorCoreChunk = 32;

/// The output tile's rows and columns where the strategy chooses them: with
/// tensor cores, 128 x 128 (four warps of 64 x 64, each A fragment serving
/// eight instructions and each B fragment four, as CUTLASS's default
/// Ampere and Hopper tiles do) where the product has at least as many such
/// tiles as an H100 has multiprocessors, so that none idles; else 64 x 64
/// (four warps of 32 x 32, whose fragments of A and B each serve two and
/// four instructions) on the same condition; else 32 x 32, which gives a
/// small product (a batch-1 layer of 197 or 384 rows) four times the
/// blocks. Without tensor cores a block's threads compute one element of
/// the tile at a time, and a larger tile only makes fewer blocks.
static int64_t chooseContractionTile(ArrayRef<int64_t> ranges,
                                     const linalg::ContractionDimensions &dims,
                                     bool tensorCores) {
  constexpr int64_t kLargeTile = 64, kSmallTile = 32;
  if (llvm::any_of(ranges, ShapedType::isDynamic))
    return kSmallTile;
  auto countBlocks = [&](int64_t tile) {
    int64_t blocks = 1;
    for (unsigned b : dims.batch)
      blocks *= ranges[b];
    for (unsigned dim : {dims.m.back(), dims.n.back()})
      blocks *= llvm::divideCeil(ranges[dim], tile);
    return blocks;
  };
  if (tensorCores && countBlocks(kTensorCoreTile) >= kMultiprocessors)
    return kTensorCoreTile;
  return countBlocks(kLargeTile) >= kMultiprocessors ? kLargeTile : kSmallTile;
}

/// Output tiles of `tile` x `tile` (0: chosen by chooseContractionTile) for
/// a contraction at the top level of a function, one batch element at a
/// time, one block each (the `parallel` level), then (a `reduction` level)
/// its reduction in chunks of `chunk` steps where it is longer, each chunk
/// of the operands staged in shared memory by tfm-map-to-gpu; null for a
/// contraction whose batch, row and column loops would need more than the
/// three dimensions of a grid. Rows and columns other than the innermost
/// stay whole in the tile.
static LoweringConfigAttr getContractionConfig(linalg::LinalgOp op,
                                               int64_t tile, int64_t chunk,
                                               bool tensorCores, bool tf32) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() ||
      dims->batch.size() + 2 > 3)
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (tile <= 0) {
    tile = chooseContractionTile(
        ranges, *dims, tensorCores && getMmaKind(op, tf32).has_value());
    if (tile == kTensorCoreTile && chunk > 0)
      chunk = std::min(chunk, kTensorCoreChunk);
  }
  auto clampTo = [&](unsigned dim) {
    return ShapedType::isDynamic(ranges[dim])
               ? tile
               : std::min(tile, std::max<int64_t>(ranges[dim], 1));
  };
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  for (unsigned b : dims->batch)
    sizes[b] = 1;
  sizes[dims->m.back()] = clampTo(dims->m.back());
  sizes[dims->n.back()] = clampTo(dims->n.back());
  SmallVector<TilingLevel> levels{TilingLevel::parallel};
  SmallVector<SmallVector<int64_t>> levelSizes{sizes};
  // A reduction staged whole would need a tile's rows of A and columns of
  // B in shared memory at once (32 x 3072 float16 of each for an FFN's
  // second product: more than a block has), or leave them in global
  // memory, read element by element.
  if (chunk > 0 && dims->k.size() == 1 &&
      !ShapedType::isDynamic(ranges[dims->k.front()]) &&
      ranges[dims->k.front()] > chunk) {
    SmallVector<int64_t> steps(op.getNumLoops(), 0);
    steps[dims->k.front()] = chunk;
    levels.push_back(TilingLevel::reduction);
    levelSizes.push_back(steps);
  }
  return LoweringConfigAttr::get(op.getContext(), levels, levelSizes);
}

/// The elementwise op that reads `product`'s result, if it is the only
/// reader and computes one element of its own result from each of the
/// product's (a bias and activation, a cast): an op of parallel loops, one
/// per dimension of the product's result, that reads it and writes its
/// result through identity maps.
static linalg::GenericOp getElementwiseReader(linalg::LinalgOp product) {
  if (product->getNumResults() != 1 || !product->getResult(0).hasOneUse())
    return {};
  auto reader =
      dyn_cast<linalg::GenericOp>(*product->getResult(0).getUsers().begin());
  if (!reader || reader->getBlock() != product->getBlock() ||
      reader.getNumDpsInits() != 1 ||
      reader.getNumParallelLoops() != reader.getNumLoops())
    return {};
  auto resultType = cast<ShapedType>(product->getResult(0).getType());
  if (reader.getNumLoops() != resultType.getRank())
    return {};
  OpOperand *input = nullptr;
  for (OpOperand *operand : reader.getDpsInputOperands())
    if (operand->get() == product->getResult(0))
      input = operand;
  if (!input || !reader.getMatchingIndexingMap(input).isIdentity() ||
      !reader.getMatchingIndexingMap(reader.getDpsInitOperand(0))
           .isIdentity())
    return {};
  return reader;
}

/// Moves `product`'s block tiles onto its elementwise reader (its
/// epilogue, getElementwiseReader): the reader is tiled in blocks of the
/// same output tiles, and the product and the op computing its accumulator
/// (the fill of zeros, or a bias) are marked tfm.fuse_into_consumer, so
/// that each block computes its tile's accumulator, product and epilogue,
/// one kernel where there were three, and the float32 accumulator never
/// crosses global memory as a whole. Where the tiles do not divide the
/// product's extents (ViT's 197 tokens), tfm-tile-by-config splits the
/// three ops into the rows and columns whole tiles cover and the rest, each
/// part fused (two kernels). Nothing changes where there is no such reader,
/// and where an extent is dynamic.
static void fuseEpilogue(linalg::LinalgOp product, LoweringConfigAttr config) {
  linalg::GenericOp reader = getElementwiseReader(product);
  // A reader with a strategy of its own (set by hand) keeps it.
  if (!reader || getLoweringConfig(reader))
    return;
  for (auto [size, extent] :
       llvm::zip_equal(config.getTileSizes(TilingLevel::parallel),
                       product.getStaticLoopRanges()))
    if (size != 0 && ShapedType::isDynamic(extent))
      return;
  // The reader's loops are the product's result dimensions.
  AffineMap result = product.getIndexingMapMatchingResult(
      cast<OpResult>(product->getResult(0)));
  ArrayRef<int64_t> sizes = config.getTileSizes(TilingLevel::parallel);
  SmallVector<int64_t> readerSizes;
  for (AffineExpr expr : result.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim)
      return;
    readerSizes.push_back(sizes[dim.getPosition()]);
  }
  MLIRContext *ctx = product.getContext();
  setLoweringConfig(reader, LoweringConfigAttr::get(
                                ctx, {TilingLevel::parallel}, {readerSizes}));
  UnitAttr unit = UnitAttr::get(ctx);
  product->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
  Operation *init = product.getDpsInits()[0].getDefiningOp();
  if (isa_and_nonnull<linalg::LinalgOp>(init) && init->hasOneUse() &&
      init->getBlock() == product->getBlock())
    init->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
}

/// The rows of a row-wise group (fuseRowwiseGroup) a block computes: 4
/// (one a warp of a block of 128 threads, as tfm-map-to-gpu splits each row
/// of a reduction over a warp's lanes), else 2, where that divides the
/// innermost row loop (`inner` rows) and still gives each multiprocessor a
/// block (`total` rows in all); else 1. Dividing, the group stays one
/// kernel (split, it would be two); and a batch-1 ViT-B's 197 rows make
/// 197 blocks rather than 50.
static int64_t chooseRowsPerBlock(int64_t inner, int64_t total) {
  for (int64_t rows : {4, 2})
    if (inner % rows == 0 && total / rows >= kMultiprocessors)
      return rows;
  return 1;
}

/// The shared memory a row-wise group's block may take for the results of
/// its members (they become block buffers): within the 48 KiB every
/// architecture gives a block without opting in, leaving room for the rest.
static constexpr int64_t kRowwiseSharedBytes = 32 * 1024;

/// The bytes that one row of `root`'s `rows` row loops takes in the
/// results of `members` (a row-wise group's ops other than its root, whose
/// results a block keeps in shared memory), or nullopt where a result's
/// size is not known.
static std::optional<int64_t> getBytesPerRow(ArrayRef<Operation *> members,
                                             unsigned rows) {
  int64_t bytes = 0;
  for (Operation *member : members) {
    auto type = cast<ShapedType>(member->getResult(0).getType());
    if (!type.getElementType().isIntOrFloat() || !type.hasStaticShape())
      return std::nullopt;
    int64_t elements = 1;
    for (int64_t extent : type.getShape().drop_front(rows))
      elements *= extent;
    bytes += elements *
             llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  }
  return bytes;
}

/// Tiles `root`, an op of parallel loops at the top level whose row-wise
/// producers include a reduction (a LayerNorm's normalization, which reads
/// the mean and the variance; a softmax's division by the sums), in blocks
/// of chooseRowsPerBlock rows of its innermost row loop (and one of each
/// outer one), and marks those producers (markRowwiseProducers) to be computed
/// in its blocks: one kernel where a LayerNorm had five (two fills, two
/// reductions and the normalization), each block's means and variances in
/// shared memory. Fewer rows (one) a block where those rows of the group's
/// results would take more than kRowwiseSharedBytes; nothing changes where
/// one would, where the group has no reduction, an extent is dynamic, or
/// the rows need more than a grid's three dimensions.
static void fuseRowwiseGroup(linalg::LinalgOp root) {
  unsigned rows = root.getNumLoops() - 1;
  if (root.getNumLoops() < 2 || rows > 3 ||
      root.getNumParallelLoops() != root.getNumLoops() ||
      llvm::any_of(root.getStaticLoopRanges(), ShapedType::isDynamic))
    return;
  MLIRContext *ctx = root.getContext();
  auto setRowsPerBlock = [&](int64_t rowsPerBlock) {
    SmallVector<int64_t> sizes(rows, 1);
    sizes.back() = std::min(rowsPerBlock, root.getStaticLoopRanges()[rows - 1]);
    sizes.push_back(0);
    setLoweringConfig(
        root, LoweringConfigAttr::get(ctx, {TilingLevel::parallel}, {sizes}));
  };
  SmallVector<int64_t> ranges = root.getStaticLoopRanges();
  int64_t totalRows = 1;
  for (int64_t extent : ArrayRef<int64_t>(ranges).drop_back())
    totalRows *= extent;
  int64_t rowsPerBlock = chooseRowsPerBlock(ranges[rows - 1], totalRows);
  setRowsPerBlock(rowsPerBlock);
  // Products are tiled as blocks of rows and columns of their own.
  SmallVector<Operation *> group =
      markRowwiseProducers(root, [](linalg::LinalgOp producer) {
        return !getLoweringConfig(producer) &&
               !linalg::isaContractionOpInterface(producer);
      });
  ArrayRef<Operation *> members = ArrayRef(group).drop_front();
  bool reduces = llvm::any_of(members, [](Operation *member) {
    return cast<linalg::LinalgOp>(member).getNumReductionLoops() > 0;
  });
  // A block keeps its rows of the members' results in shared memory: a
  // softmax's exponentials of 4 rows of 4096 keys would take 64 KiB. Fewer
  // rows a block where they would not fit; none where one would not.
  std::optional<int64_t> bytesPerRow = getBytesPerRow(members, rows);
  if (reduces && bytesPerRow) {
    if (rowsPerBlock * *bytesPerRow <= kRowwiseSharedBytes)
      return;
    if (*bytesPerRow <= kRowwiseSharedBytes) {
      setRowsPerBlock(1);
      return;
    }
  }
  for (Operation *member : group) {
    member->removeAttr(LoweringConfigAttr::getAttrName());
    member->removeAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
  }
}

namespace {
struct TfmGpuSelectStrategyPass
    : tfm::impl::TfmGpuSelectStrategyBase<TfmGpuSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    setDefaultAttentionConfigs(getOperation(), qTileSize, kvTileSize,
                               /*dynamicTiles=*/false);
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!isa<func::FuncOp>(op->getParentOp()) ||
          !op.hasPureTensorSemantics() ||
          !linalg::isaContractionOpInterface(op) || getLoweringConfig(op))
        return;
      if (LoweringConfigAttr config = getContractionConfig(
              op, contractionTileSize, reductionTileSize, tensorCores, tf32)) {
        setLoweringConfig(op, config);
        fuseEpilogue(op, config);
      }
    });
    // The last reader of a row-wise group is its root.
    SmallVector<linalg::LinalgOp> readers;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa<func::FuncOp>(op->getParentOp()) && op.hasPureTensorSemantics() &&
          !getLoweringConfig(op))
        readers.push_back(op);
    });
    for (linalg::LinalgOp op : llvm::reverse(readers))
      if (!op->hasAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName()) &&
          !getLoweringConfig(op))
        fuseRowwiseGroup(op);
  }
};
} // namespace
