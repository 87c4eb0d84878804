//===- TileByConfig.cpp - Apply #tfm.lowering_config ----------------------===//
//
// Implements `tfm-tile-by-config`: every op with a `lowering_config` is tiled
// as the config says, through the op's TilingInterface and upstream's
// scf::tileUsingSCF. The pass chooses nothing: the targets' strategy
// selection passes (or a test, or a user) write the config.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/CSE.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMTILEBYCONFIG
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

static LogicalResult tileLevel(RewriterBase &rewriter, TilingInterface op,
                               LoweringConfigAttr config, unsigned level);

/// Whether the `level`th level of `config` is its parallel one.
static bool isParallelLevel(LoweringConfigAttr config, unsigned level) {
  return config.getLevels()[level] == TilingLevel::parallel;
}

/// The position of the first level of `config` after its parallel one: where
/// a tile that a parallel loop holds already goes on.
static unsigned getLevelAfterParallel(LoweringConfigAttr config) {
  std::optional<unsigned> parallel = config.findLevel(TilingLevel::parallel);
  return parallel ? *parallel + 1 : 0;
}

namespace {
/// The elementwise ops that a product's tiles take in, level by level: the
/// one that computes its accumulator (marked tfm.fuse_into_consumer) and
/// the one that reads its result (marked tfm.fuse_into_producer). Each is
/// the tile of the level before, or null once it could not be fused.
struct Epilogue {
  Operation *init = nullptr;
  Operation *consumer = nullptr;
  /// The levels at which they were last fused (-1: not yet).
  int initLevel = -1, consumerLevel = -1;
  /// The ops that fusion erased, which the pass must not visit.
  llvm::DenseSet<Operation *> *erased = nullptr;
};
} // namespace

/// Moves `def`, if it is in the block of `outer` after it, before `outer`,
/// with the ops there that it depends on (first): ops without regions
/// whose other operands are defined before `outer`. Returns false, moving
/// nothing, if one of them cannot move (it reads `outer`'s results).
static bool hoistBefore(RewriterBase &rewriter, Operation *def,
                        Operation *outer) {
  SetVector<Operation *> toMove;
  std::function<bool(Operation *)> collect = [&](Operation *op) {
    if (op->getBlock() != outer->getBlock() || op->isBeforeInBlock(outer) ||
        toMove.contains(op))
      return true;
    if (op == outer || op->getNumRegions() != 0)
      return false;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        if (!collect(producer))
          return false;
    toMove.insert(op);
    return true;
  };
  if (!collect(def))
    return false;
  // Producers were inserted before their users.
  for (Operation *op : toMove)
    rewriter.moveOpBefore(op, outer);
  return true;
}

/// Fuses `epilogue`'s ops into `loops`, the loops that tiled `product`:
/// the accumulator's op computes the slice the product's tile starts from,
/// the reader's op the slice it reads, inside the innermost loop.
static void fuseEpilogue(RewriterBase &rewriter, Epilogue &epilogue,
                         Operation *product,
                         MutableArrayRef<LoopLikeOpInterface> loops,
                         int level) {
  // A level whose tiles are the whole op makes no loops: the epilogue stays
  // where it is, next to the tile.
  if (loops.empty())
    return;
  if (epilogue.init) {
    Operation *original = epilogue.init;
    auto slice = cast<linalg::LinalgOp>(product)
                     .getDpsInits()[0]
                     .getDefiningOp<tensor::ExtractSliceOp>();
    if (slice) {
      std::optional<scf::SCFFuseProducerOfSliceResult> fused =
          scf::tileAndFuseProducerOfSlice(rewriter, slice, loops);
      if (fused && !fused->tiledOps.empty()) {
        epilogue.init = fused->tiledOps.front();
        epilogue.initLevel = level;
      }
    }
    if (original->use_empty()) {
      epilogue.erased->insert(original);
      rewriter.eraseOp(original);
    }
  }
  if (epilogue.consumer) {
    Operation *original = epilogue.consumer;
    // The reader's other operands (its destination, sliced out of the
    // enclosing loop's by the fusion a level up, with the sizes of a
    // dynamic one) must be defined before the loops it moves into.
    Operation *outer = loops.front();
    for (Value operand : original->getOperands())
      if (Operation *def = operand.getDefiningOp())
        (void)hoistBefore(rewriter, def, outer);
    FailureOr<scf::SCFFuseConsumerOfSliceResult> fused =
        scf::tileAndFuseConsumer(rewriter, original, loops);
    if (succeeded(fused) && !fused->tiledOps.empty()) {
      epilogue.consumer = fused->tiledOps.front();
      epilogue.consumerLevel = level;
    }
    if (original->use_empty()) {
      epilogue.erased->insert(original);
      rewriter.eraseOp(original);
    }
  }
}

/// Whether `expr`, a result of a map applied to `operands`, is at least
/// `ub - iv`, `iv` and `ub` the induction variable and upper bound of a
/// loop: equal to it, or more by a constant, once the affine.apply ops
/// that define them are composed in.
static bool isAtLeastRemainingTrip(AffineExpr expr, AffineMap map,
                                   ValueRange operands, Value iv, Value ub) {
  MLIRContext *ctx = map.getContext();
  unsigned dims = map.getNumDims(), symbols = map.getNumSymbols();
  // Operands: the map's dims, then iv; its symbols, then ub.
  SmallVector<Value> all(operands.take_front(dims));
  all.push_back(iv);
  llvm::append_range(all, operands.drop_front(dims));
  all.push_back(ub);
  AffineExpr difference = expr - (getAffineSymbolExpr(symbols, ctx) -
                                   getAffineDimExpr(dims, ctx));
  AffineMap diff = AffineMap::get(dims + 1, symbols + 1, difference);
  affine::fullyComposeAffineMapAndOperands(&diff, &all);
  auto constant = dyn_cast<AffineConstantExpr>(
      simplifyAffineExpr(diff.getResult(0), diff.getNumDims(),
                         diff.getNumSymbols()));
  return constant && constant.getValue() >= 0;
}

/// In `forOp`, a loop whose step divides its trip count (a split product's
/// part of rows, which its register tiles cover exactly) and that peeling
/// therefore left alone, replaces the extents of its tiles, min(step, ub -
/// iv), by the step: the tiles are static without a remainder loop.
static void foldWholeTileExtents(RewriterBase &rewriter, scf::ForOp forOp) {
  std::optional<int64_t> step = getConstantIntValue(forOp.getStep());
  if (!step)
    return;
  MLIRContext *ctx = forOp.getContext();
  AffineExpr lb, ub, stepExpr;
  bindSymbols(ctx, lb, ub, stepExpr);
  SmallVector<Value> bounds{forOp.getLowerBound(), forOp.getUpperBound(),
                            forOp.getStep()};
  AffineMap tripRemainder = AffineMap::get(0, 3, (ub - lb) % stepExpr);
  affine::fullyComposeAffineMapAndOperands(&tripRemainder, &bounds);
  auto remainder = dyn_cast<AffineConstantExpr>(tripRemainder.getResult(0));
  if (!remainder || remainder.getValue() != 0)
    return;
  SmallVector<affine::AffineMinOp> extents;
  forOp.getBody()->walk([&](affine::AffineMinOp minOp) {
    AffineMap map = minOp.getAffineMap();
    bool hasStep = false;
    for (AffineExpr result : map.getResults()) {
      auto constant = dyn_cast<AffineConstantExpr>(result);
      if (constant && constant.getValue() >= *step) {
        hasStep |= constant.getValue() == *step;
        continue;
      }
      if (!isAtLeastRemainingTrip(result, map, minOp.getOperands(),
                                  forOp.getInductionVar(),
                                  forOp.getUpperBound()))
        return;
    }
    if (hasStep)
      extents.push_back(minOp);
  });
  for (affine::AffineMinOp minOp : extents) {
    rewriter.setInsertionPoint(minOp);
    rewriter.replaceOpWithNewOp<arith::ConstantIndexOp>(minOp, *step);
  }
}

/// Tiles linalg op `op` at the `level`th level (not its parallel one) of
/// `config` with scf.for loops, its tiles at the levels after it, and then
/// peels each loop of this level whose step does not divide its trip count:
/// the main loop and a last partial iteration, in one loop nest, whose
/// tiles the canonicalizer makes static.
static LogicalResult tileAndPeel(RewriterBase &rewriter, TilingInterface op,
                                 LoweringConfigAttr config, unsigned level,
                                 Epilogue *epilogue = nullptr) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  SmallVector<int64_t> sizes(config.getTileSizes(level));
  for (auto [dim, range] : llvm::enumerate(domain))
    if (std::optional<int64_t> size = getConstantIntValue(range.size))
      sizes[dim] = std::min(sizes[dim], std::max<int64_t>(*size, 1));
  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return tileLevel(rewriter, op, config, level + 1);
  FailureOr<scf::SCFTilingResult> tiled =
      tileInPlace(rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp,
                  config.getInterchange(level));
  if (failed(tiled))
    return op->emitOpError()
           << "could not be tiled at its "
           << stringifyTilingLevel(config.getLevels()[level]) << " level";
  if (epilogue && tiled->tiledOps.size() == 1)
    fuseEpilogue(rewriter, *epilogue, tiled->tiledOps.front(), tiled->loops,
                 level);
  // The innermost level's loops carry the prefetch distance to
  // tfm-cpu-prefetch-weights, which runs once the constants are buffers.
  if (config.getPrefetchDistance() > 0 && level + 1 == config.getNumLevels())
    for (LoopLikeOpInterface loop : tiled->loops)
      loop->setAttr(LoweringConfigAttr::getPrefetchDistanceAttrName(),
                    rewriter.getI64IntegerAttr(config.getPrefetchDistance()));
  for (Operation *tile : tiled->tiledOps)
    if (auto tileOp = dyn_cast<TilingInterface>(tile))
      if (failed(tileLevel(rewriter, tileOp, config, level + 1)))
        return failure();
  // Innermost first, so that each peeled remainder holds the peeled inner
  // loops too.
  for (LoopLikeOpInterface loop : llvm::reverse(tiled->loops)) {
    auto forOp = dyn_cast<scf::ForOp>(*loop);
    std::optional<int64_t> step =
        forOp ? getConstantIntValue(forOp.getStep()) : std::nullopt;
    if (!step || *step <= 1)
      continue;
    scf::ForOp remainder;
    if (succeeded(
            scf::peelForLoopAndSimplifyBounds(rewriter, forOp, remainder)))
      continue;
    foldWholeTileExtents(rewriter, forOp);
  }
  return success();
}

/// Tiles `op` at the `level`th level of `config` and the tiles it makes at
/// the levels after it. At the parallel level (an scf.forall), and for ops
/// that are not linalg ops at any level, a loop of static size that its
/// tile size does not divide is split first: the part that the tiles cover
/// exactly, and the remainder, tiled by its own size, so that an aggregate
/// op decomposed next has static tiles. The other levels of linalg ops are
/// peeled instead (tileAndPeel), which keeps one loop nest that
/// bufferization can update in place.
static LogicalResult tileLevel(RewriterBase &rewriter, TilingInterface op,
                               LoweringConfigAttr config, unsigned level) {
  if (level == config.getNumLevels())
    return success();
  ArrayRef<int64_t> requested = config.getTileSizes(level);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  if (requested.size() != domain.size())
    return op->emitOpError()
           << "has " << domain.size()
           << " loops, but its lowering_config tiles " << requested.size();
  if (!isParallelLevel(config, level) &&
      isa<linalg::LinalgOp>(op.getOperation()))
    return tileAndPeel(rewriter, op, config, level);

  SmallVector<int64_t> sizes(requested);
  for (auto [dim, range] : llvm::enumerate(domain)) {
    std::optional<int64_t> size = getConstantIntValue(range.size);
    if (sizes[dim] == 0 || !size)
      continue;
    if (*size > sizes[dim] && *size % sizes[dim] != 0) {
      int64_t covered = *size - *size % sizes[dim];
      auto [main, rest] =
          linalg::splitOp(rewriter, op, dim, rewriter.getIndexAttr(covered));
      if (!main || !rest)
        return op->emitOpError("could not be split for tiling");
      if (failed(tileLevel(rewriter, main, config, level)))
        return failure();
      return tileLevel(rewriter, rest, config, level);
    }
    sizes[dim] = std::min(sizes[dim], std::max<int64_t>(*size, 1));
  }

  if (llvm::all_of(sizes, [](int64_t s) { return s == 0; }))
    return tileLevel(rewriter, op, config, level + 1);
  auto loopType = isParallelLevel(config, level)
                      ? scf::SCFTilingOptions::LoopType::ForallOp
                      : scf::SCFTilingOptions::LoopType::ForOp;
  FailureOr<scf::SCFTilingResult> tiled =
      tileInPlace(rewriter, op, sizes, loopType, config.getInterchange(level));
  if (failed(tiled))
    return op->emitOpError()
           << "could not be tiled at its "
           << stringifyTilingLevel(config.getLevels()[level]) << " level";
  for (Operation *tile : tiled->tiledOps)
    if (auto tileOp = dyn_cast<TilingInterface>(tile))
      if (failed(tileLevel(rewriter, tileOp, config, level + 1)))
        return failure();
  return success();
}

LogicalResult tfm::tileByConfig(RewriterBase &rewriter, TilingInterface op,
                                LoweringConfigAttr config) {
  op->removeAttr(LoweringConfigAttr::getAttrName());
  return tileLevel(rewriter, op, config, 0);
}

namespace {
/// A loop of static extent that a parallel tile size does not divide, and
/// the part of it that whole tiles cover.
struct UndividedLoop {
  unsigned dim;
  int64_t extent;
  int64_t covered;
};
} // namespace

/// The first loop of static extent of `op` that the parallel tile size of
/// `config` does not divide, if any.
static std::optional<UndividedLoop>
getUndividedLoop(RewriterBase &rewriter, TilingInterface op,
                 LoweringConfigAttr config) {
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  ArrayRef<int64_t> sizes = config.getTileSizes(TilingLevel::parallel);
  if (sizes.empty())
    return std::nullopt;
  for (auto [dim, size, range] : llvm::enumerate(sizes, domain)) {
    std::optional<int64_t> extent = getConstantIntValue(range.size);
    if (size != 0 && extent && *extent % size != 0)
      return UndividedLoop{static_cast<unsigned>(dim), *extent,
                           *extent - *extent % size};
  }
  return std::nullopt;
}

/// Whether the parallel tile sizes of `config` divide every loop of static
/// size of `op`: a level that needs no split, whose one forall can take in
/// other ops.
static bool dividesParallelLevel(RewriterBase &rewriter, TilingInterface op,
                             LoweringConfigAttr config) {
  return !getUndividedLoop(rewriter, op, config);
}

/// Whether `op` is a product whose register tiles take in the elementwise
/// ops of its epilogue: the op computing its accumulator, the op reading its
/// result, or both.
static Epilogue getEpilogue(Operation *op) {
  Epilogue epilogue;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || op->getNumResults() != 1)
    return epilogue;
  if (Operation *init = linalgOp.getDpsInits()[0].getDefiningOp())
    if (init->hasAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName()))
      epilogue.init = init;
  if (op->getResult(0).hasOneUse()) {
    Operation *reader = *op->getResult(0).getUsers().begin();
    if (reader->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName()))
      epilogue.consumer = reader;
  }
  return epilogue;
}

/// Tiles `op`, a product of three levels (parallel tiles, vector tiles,
/// reduction steps), with the ops of `epilogue` fused into the loops of the
/// first two: they become one register tile's worth of elementwise code
/// before and after the reduction loop. Returns false, leaving everything
/// as it was, for a config of other levels, or if a parallel size does not
/// divide its loop.
static FailureOr<bool> tileWithEpilogue(RewriterBase &rewriter,
                                        TilingInterface op,
                                        LoweringConfigAttr config,
                                        Epilogue epilogue) {
  if (!config.hasLevels(
          {TilingLevel::parallel, TilingLevel::vector, TilingLevel::reduction}))
    return false;
  if (!dividesParallelLevel(rewriter, op, config))
    return false;
  ArrayRef<int64_t> sizes = config.getTileSizes(0);
  op->removeAttr(LoweringConfigAttr::getAttrName());
  FailureOr<scf::SCFTilingResult> tiled =
      tileInPlace(rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForallOp,
                  config.getInterchange(0));
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return op->emitOpError("could not be tiled at its parallel level");
  Operation *tile = tiled->tiledOps.front();
  fuseEpilogue(rewriter, epilogue, tile, tiled->loops, /*level=*/0);
  if (failed(tileAndPeel(rewriter, cast<TilingInterface>(tile), config, 1,
                         &epilogue)))
    return failure();
  // An epilogue op fused down to the register tiles is vectorized as it
  // is; one fused into the parallel tiles only is tiled there by the rest
  // of its own config; one never fused is tiled by the pass as any other.
  for (auto [rest, level] : {std::pair(epilogue.init, epilogue.initLevel),
                             std::pair(epilogue.consumer,
                                       epilogue.consumerLevel)}) {
    if (!rest)
      continue;
    rest->removeAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
    rest->removeAttr(LoweringConfigAttr::getFuseIntoProducerAttrName());
    LoweringConfigAttr restConfig = getLoweringConfig(rest);
    if (level < 0 || !restConfig)
      continue;
    rest->removeAttr(LoweringConfigAttr::getAttrName());
    if (level == 0 &&
        failed(tileLevel(rewriter, cast<TilingInterface>(rest), restConfig,
                         getLevelAfterParallel(restConfig))))
      return failure();
  }
  return true;
}

/// Whether `op` is to be fused into the parallel tiles of its reader.
static bool isFusedIntoConsumer(Operation *op) {
  return op->hasAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
}

/// Whether one of `op`'s operands comes from an op to be fused into it.
static bool hasFusedProducers(Operation *op) {
  return llvm::any_of(op->getOperands(), [](Value operand) {
    Operation *producer = operand.getDefiningOp();
    return producer && isFusedIntoConsumer(producer);
  });
}

/// Whether every use of `value` is the destination of an op that overwrites
/// it without reading it (a fill).
static bool isOnlyOverwritten(Value value) {
  return llvm::all_of(value.getUses(), [](OpOperand &use) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(use.getOwner());
    return linalgOp && linalgOp.isDpsInit(&use) &&
           !linalgOp.payloadUsesValueFromOperand(&use);
  });
}

/// In `forall`, gives each tile of a shared output whose result nobody
/// reads (the state of a flash attention, once its normalization is fused
/// in) a tensor of its own instead of a slice of the whole: where the tile
/// only overwrites its slice, the slice becomes a tensor.empty and its
/// insertion goes, so that the whole never exists.
static void privatizeUnreadOutputs(RewriterBase &rewriter,
                                   scf::ForallOp forall) {
  for (auto [result, arg] :
       llvm::zip_equal(forall.getResults(), forall.getRegionIterArgs())) {
    if (!result.use_empty())
      continue;
    Value output = arg;
    SmallVector<tensor::ExtractSliceOp> slices;
    SmallVector<Operation *> insertions;
    bool privatizable = llvm::all_of(output.getUsers(), [&](Operation *user) {
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
        slices.push_back(slice);
        return isOnlyOverwritten(slice.getResult());
      }
      if (auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(user)) {
        insertions.push_back(insert);
        return insert.getDest() == output;
      }
      return false;
    });
    if (!privatizable)
      continue;
    for (Operation *insert : insertions)
      rewriter.eraseOp(insert);
    for (tensor::ExtractSliceOp slice : slices) {
      rewriter.setInsertionPoint(slice);
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
          slice, slice.getType().getShape(), slice.getType().getElementType(),
          slice.getDynamicSizes());
    }
  }
}

/// Fuses into `loops`, the parallel tiles of a group, the op marked
/// tfm.fuse_into_producer that reads their results (the normalization of a
/// flash attention's state), then privatizes what only it read. Unmarks it
/// either way.
static void fuseMarkedReader(RewriterBase &rewriter,
                             MutableArrayRef<LoopLikeOpInterface> loops,
                             llvm::DenseSet<Operation *> &erased) {
  Operation *reader = nullptr;
  for (Operation *user : loops.front()->getUsers())
    if (user->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName()))
      reader = user;
  if (!reader)
    return;
  reader->removeAttr(LoweringConfigAttr::getFuseIntoProducerAttrName());
  FailureOr<scf::SCFFuseConsumerOfSliceResult> fused =
      scf::tileAndFuseConsumer(rewriter, reader, loops);
  if (failed(fused))
    return;
  if (reader->use_empty()) {
    erased.insert(reader);
    rewriter.eraseOp(reader);
  }
  if (auto forall = dyn_cast<scf::ForallOp>(*loops.front()))
    privatizeUnreadOutputs(rewriter, forall);
}

static FailureOr<bool>
tileAndFuseProducers(RewriterBase &rewriter, TilingInterface op,
                     LoweringConfigAttr config,
                     llvm::DenseSet<Operation *> &erased);

/// Erases `op` and then, transitively, the ops it read that nothing else
/// reads any more, recording each in `erased`.
static void eraseWithDeadProducers(RewriterBase &rewriter, Operation *op,
                                   llvm::DenseSet<Operation *> &erased) {
  SmallVector<Operation *> worklist{op};
  while (!worklist.empty()) {
    Operation *dead = worklist.pop_back_val();
    if (!dead->use_empty() || !isMemoryEffectFree(dead))
      continue;
    for (Value operand : dead->getOperands())
      if (Operation *def = operand.getDefiningOp())
        worklist.push_back(def);
    erased.insert(dead);
    rewriter.eraseOp(dead);
    // A def reached twice is visited again only through the worklist's
    // copy, which the erased set guards.
    llvm::erase_if(worklist,
                   [&](Operation *op) { return erased.contains(op); });
  }
}

/// Replaces each slice that `part` reads of an op marked
/// tfm.fuse_into_consumer with that op computed on the slice alone (its
/// TilingInterface's result tile), and so on for the slices those read: the
/// part of a split op gets the part of its producers that it reads.
/// Returns the ops it made.
static SmallVector<Operation *>
computeMarkedProducersOnSlices(RewriterBase &rewriter, Operation *part) {
  SmallVector<Operation *> made;
  SmallVector<Operation *> worklist{part};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      auto slice = operand.getDefiningOp<tensor::ExtractSliceOp>();
      auto producer =
          slice ? dyn_cast<OpResult>(slice.getSource()) : OpResult();
      if (!producer || !isFusedIntoConsumer(producer.getOwner()))
        continue;
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(slice);
      FailureOr<TilingResult> tiled =
          tensor::replaceExtractSliceWithTiledProducer(rewriter, slice,
                                                       producer);
      if (failed(tiled) || tiled->tiledValues.size() != 1)
        continue;
      Value value = tiled->tiledValues.front();
      if (value.getType() != slice.getType())
        value = tensor::CastOp::create(rewriter, slice.getLoc(),
                                       slice.getType(), value);
      rewriter.replaceOp(slice, value);
      worklist.append(tiled->tiledOps.begin(), tiled->tiledOps.end());
      made.append(tiled->tiledOps.begin(), tiled->tiledOps.end());
    }
  }
  return made;
}

/// Splits `op`, whose parallel tiles do not divide `loop`, into the part
/// that whole tiles cover and the remainder (upstream's linalg::splitOp),
/// gives each part the part of its marked producers that it reads, and
/// tiles and fuses each as tileAndFuseProducers does: the remainder's tile
/// is its whole extent along `loop`. A product whose 197 rows a block tile
/// of 32 does not divide thus keeps its epilogue in its tiles (two
/// launches, one for 192 rows and one for 5) instead of running its
/// accumulator's fill, the product and the epilogue as three.
static FailureOr<bool>
splitAndFuseProducers(RewriterBase &rewriter, TilingInterface op,
                      LoweringConfigAttr config, UndividedLoop loop,
                      llvm::DenseSet<Operation *> &erased) {
  // A reader to be fused into the tiles (a flash attention's
  // normalization) reads the whole result, which a split would cut off.
  if (!isa<linalg::LinalgOp>(op.getOperation()) ||
      llvm::any_of(op->getUsers(), [](Operation *user) {
        return user->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName());
      }))
    return false;
  // The producers the parts no longer read: erased once both parts have
  // their own.
  SmallVector<Operation *> producers;
  for (Value operand : op->getOperands())
    if (Operation *def = operand.getDefiningOp();
        def && isFusedIntoConsumer(def))
      producers.push_back(def);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  auto [main, rest] = linalg::splitOp(rewriter, op, loop.dim,
                                      rewriter.getIndexAttr(loop.covered));
  if (!main || !rest)
    return op->emitOpError("could not be split for tiling");
  SmallVector<Operation *> sliced;
  for (Operation *part : {main.getOperation(), rest.getOperation()})
    llvm::append_range(sliced, computeMarkedProducersOnSlices(rewriter, part));
  for (Operation *producer : producers)
    eraseWithDeadProducers(rewriter, producer, erased);
  SmallVector<int64_t> restSizes(config.getTileSizes(TilingLevel::parallel));
  restSizes[loop.dim] = loop.extent - loop.covered;
  LoweringConfigAttr restConfig = config.withParallelSizes(restSizes);
  for (auto [part, partConfig] :
       {std::pair(main, config), std::pair(rest, restConfig)}) {
    part->removeAttr(LoweringConfigAttr::getAttrName());
    FailureOr<bool> fused =
        tileAndFuseProducers(rewriter, part, partConfig, erased);
    if (failed(fused))
      return failure();
    if (!*fused && failed(tileByConfig(rewriter, part, partConfig)))
      return failure();
  }
  // The sliced producers that the parts' tiles took in are dead (the
  // others are read by what tiled them).
  for (Operation *op : llvm::reverse(sliced))
    if (!erased.contains(op))
      eraseWithDeadProducers(rewriter, op, erased);
  return true;
}

/// Tiles `op` at the parallel level of `config` with an scf.forall into
/// which every producer marked tfm.fuse_into_consumer (and, through their
/// slices, theirs) is fused, then tiles each op in the forall by the later
/// levels of its own config. Adds the fused producers, erased, to `erased`.
/// Where a parallel size does not divide its loop, splits it first
/// (splitAndFuseProducers). Returns false, leaving `op` as it was, for a
/// config without a parallel level (the caller then tiles it alone).
static FailureOr<bool>
tileAndFuseProducers(RewriterBase &rewriter, TilingInterface op,
                     LoweringConfigAttr config,
                     llvm::DenseSet<Operation *> &erased) {
  std::optional<unsigned> parallel = config.findLevel(TilingLevel::parallel);
  if (!parallel)
    return false;
  if (std::optional<UndividedLoop> loop =
          getUndividedLoop(rewriter, op, config))
    return splitAndFuseProducers(rewriter, op, config, *loop, erased);
  ArrayRef<int64_t> sizes = config.getTileSizes(*parallel);
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  if (!config.getInterchange(*parallel).empty())
    tiling.setInterchange(config.getInterchange(*parallel));
  scf::SCFTileAndFuseOptions options;
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!isFusedIntoConsumer(producer.getOwner()))
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> fused =
      scf::tileConsumerAndFuseProducersUsingSCF(rewriter, op, options);
  if (failed(fused))
    return op->emitOpError(
        "could not be tiled and fused at its parallel level");
  for (OpResult result : op->getResults())
    rewriter.replaceAllUsesWith(result, fused->replacements.lookup(result));
  rewriter.eraseOp(op);
  // The fused producers are read by the group only, now inside the loop.
  SmallVector<Operation *> dead(fused->fusedProducers.begin(),
                                fused->fusedProducers.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *&producer : dead) {
      if (!producer || !producer->use_empty())
        continue;
      erased.insert(producer);
      rewriter.eraseOp(producer);
      producer = nullptr;
      changed = true;
    }
  }
  fuseMarkedReader(rewriter, fused->loops, erased);
  // A producer read by two ops of the group was fused once for each: the
  // copies compute the same slice.
  Operation *loop = fused->loops.front();
  DominanceInfo dominance;
  eliminateCommonSubExpressions(rewriter, dominance, loop);
  Operation *rootTile = fused->tiledAndFusedOps.front();
  if (!getLoweringConfig(rootTile))
    setLoweringConfig(rootTile, config);
  SmallVector<std::pair<TilingInterface, LoweringConfigAttr>> tiles;
  loop->walk([&](TilingInterface tile) {
    tile->removeAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
    if (LoweringConfigAttr tileConfig = getLoweringConfig(tile)) {
      tile->removeAttr(LoweringConfigAttr::getAttrName());
      tiles.push_back({tile, tileConfig});
    }
  });
  for (auto [tile, tileConfig] : tiles)
    if (failed(tileLevel(rewriter, tile, tileConfig,
                         getLevelAfterParallel(tileConfig))))
      return failure();
  return true;
}

namespace {
struct TfmTileByConfigPass
    : tfm::impl::TfmTileByConfigBase<TfmTileByConfigPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<TilingInterface, LoweringConfigAttr>> ops;
    WalkResult walk = getOperation()->walk([&](Operation *op) {
      LoweringConfigAttr config = getLoweringConfig(op);
      if (!config)
        return WalkResult::advance();
      auto tileable = dyn_cast<TilingInterface>(op);
      if (!tileable) {
        op->emitOpError("has a lowering_config but cannot be tiled");
        return WalkResult::interrupt();
      }
      ops.push_back({tileable, config});
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    // Readers before the ops they read, so that an op fuses its marked
    // producers before they could be tiled alone; a marked producer that
    // its reader could not take is tiled alone afterwards.
    llvm::DenseSet<Operation *> erased;
    SmallVector<std::pair<TilingInterface, LoweringConfigAttr>> unfused;
    for (auto [op, config] : llvm::reverse(ops)) {
      if (erased.contains(op))
        continue;
      if (isFusedIntoConsumer(op) ||
          op->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName())) {
        unfused.push_back({op, config});
        continue;
      }
      Epilogue epilogue = getEpilogue(op);
      if (epilogue.init || epilogue.consumer) {
        epilogue.erased = &erased;
        FailureOr<bool> fused =
            tileWithEpilogue(rewriter, op, config, epilogue);
        if (failed(fused))
          return signalPassFailure();
        if (*fused)
          continue;
      }
      if (hasFusedProducers(op)) {
        FailureOr<bool> fused =
            tileAndFuseProducers(rewriter, op, config, erased);
        if (failed(fused))
          return signalPassFailure();
        if (*fused)
          continue;
      }
      if (failed(tileByConfig(rewriter, op, config)))
        return signalPassFailure();
    }
    for (auto [op, config] : llvm::reverse(unfused)) {
      if (erased.contains(op))
        continue;
      // A marked op whose readers took it in (a product fused into its
      // epilogue's tiles, read by nothing else) is dead.
      if (op->use_empty() && isMemoryEffectFree(op)) {
        rewriter.eraseOp(op);
        continue;
      }
      op->removeAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
      op->removeAttr(LoweringConfigAttr::getFuseIntoProducerAttrName());
      if (failed(tileByConfig(rewriter, op, config)))
        return signalPassFailure();
    }
    // The marks of ops that no tile took in (producers of an op that had to
    // be split) say nothing once the pass is done.
    getOperation()->walk([](Operation *op) {
      op->removeAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName());
      op->removeAttr(LoweringConfigAttr::getFuseIntoProducerAttrName());
    });
    if (mapTileLoops)
      markTileLoopsMapped();
  }

private:
  /// Gives every outermost scf.forall without a mapping one GPU block
  /// dimension per loop (linear dimensions: MapToGpu linearizes the grid).
  void markTileLoopsMapped() {
    MLIRContext *ctx = &getContext();
    getOperation()->walk([&](scf::ForallOp forall) {
      if (forall.getMapping() || forall->getParentOfType<scf::ForallOp>())
        return;
      SmallVector<Attribute> dims;
      for (unsigned i = 0, e = forall.getRank(); i < e; ++i)
        dims.push_back(gpu::GPUBlockMappingAttr::get(
            ctx, static_cast<gpu::MappingId>(
                     static_cast<unsigned>(gpu::MappingId::LinearDim0) + i)));
      forall.setMappingAttr(ArrayAttr::get(ctx, dims));
    });
  }
};
} // namespace
