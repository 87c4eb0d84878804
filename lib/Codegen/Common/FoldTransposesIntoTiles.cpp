//===- FoldTransposesIntoTiles.cpp - tfm-fold-transposes-into-tiles -------===//
//
// Implements `tfm-fold-transposes-into-tiles`: tile loops that read or
// write a transposed tensor one tile at a time, where a tile's transpose
// moves only its dimensions of size 1, read or write the untransposed
// tensor's tile in place. Multi-head attention splits [S, H, D] into heads
// as [H, S, D] for the attention and merges them back after it: its query
// tiles are one head's [1, Sq, D] rows, which are [Sq, 1, D] rows of the
// untransposed tensor, read at a stride of H x D instead of through a
// transpose over the whole tensor; its output is written likewise (by its
// tiles, or by the elementwise op that normalizes it after loops split
// by a remainder). A head's keys and values, which each of its query tiles
// reads again, keep their compact transposed copy.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/Common/Transposes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFOLDTRANSPOSESINTOTILES
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether a tile of `sizes` of a tensor transposed by `perm` is, in the
/// untransposed tensor, a tile whose transpose moves only unit dimensions.
bool isTileInPlace(ArrayRef<OpFoldResult> sizes, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape(perm.size());
  for (auto [d, source] : llvm::enumerate(perm)) {
    std::optional<int64_t> size = getConstantIntValue(sizes[d]);
    shape[source] = size ? *size : ShapedType::kDynamic;
  }
  return movesOnlyUnitDims(shape, perm);
}

/// Whether `value` is computed from `iv` (within `depth` ops).
bool dependsOn(Value value, Value iv, int depth = 4) {
  if (value == iv)
    return true;
  Operation *op = value.getDefiningOp();
  if (!op || depth == 0)
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return dependsOn(operand, iv, depth - 1);
  });
}

/// Whether `tile` (through the slices it is a slice of) is a different
/// tile in each iteration of the scf.forall around it: a tile that several
/// iterations read (a head's keys or values, which each of its query tiles
/// reads again) is read faster from the transpose's compact copy than at
/// the untransposed tensor's stride, where its rows fall into a few cache
/// sets (ViT-B/16's values: rows of 256 bytes 9 KiB apart).
bool isReadOncePerIteration(tensor::ExtractSliceOp tile) {
  auto forall = tile->getParentOfType<scf::ForallOp>();
  if (!forall)
    return true;
  SmallVector<OpFoldResult> lbs = forall.getMixedLowerBound();
  SmallVector<OpFoldResult> ubs = forall.getMixedUpperBound();
  SmallVector<OpFoldResult> steps = forall.getMixedStep();
  for (auto [d, iv] : llvm::enumerate(forall.getInductionVars())) {
    std::optional<int64_t> lb = getConstantIntValue(lbs[d]);
    std::optional<int64_t> ub = getConstantIntValue(ubs[d]);
    std::optional<int64_t> step = getConstantIntValue(steps[d]);
    if (lb && ub && step && *ub - *lb <= *step)
      continue;
    bool varies = false;
    for (auto slice = tile; slice && !varies;
         slice = slice.getSource().getDefiningOp<tensor::ExtractSliceOp>())
      varies = llvm::any_of(slice.getOffsets(), [&, iv = iv](Value offset) {
        return dependsOn(offset, iv);
      });
    if (!varies)
      return false;
  }
  return true;
}

/// A tile read of a transpose (a tensor.extract_slice of its result) whose
/// own transpose moves only unit dimensions reads the input's tile: the
/// transpose of the tile becomes a reshape. A slice that only such tiles
/// read (the part of the rows that a loop of whole tiles covers, the rest
/// split off) takes the transpose below it, to those tiles. Only tiles that
/// one iteration of their loop reads (isReadOncePerIteration).
struct ReadTileThroughTranspose : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto transpose = slice.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(slice, "not a slice of a transpose");
    TransposedSlice transposed = getTransposedSlice(slice, transpose);
    ArrayRef<int64_t> perm = transpose.getPermutation();
    bool inPlace = movesOnlyUnitDims(transposed.shape, transposed.perm) &&
                   isReadOncePerIteration(slice);
    bool readByTiles = slice.getDroppedDims().none() && !slice->use_empty() &&
                       llvm::all_of(slice->getUsers(), [&](Operation *user) {
                         auto tile = dyn_cast<tensor::ExtractSliceOp>(user);
                         return tile &&
                                isTileInPlace(tile.getMixedSizes(), perm) &&
                                isReadOncePerIteration(tile);
                       });
    if (!inPlace && !readByTiles)
      return rewriter.notifyMatchFailure(
          slice, "the tile's transpose moves a dimension of size > 1, or "
                 "several iterations read the tile");
    rewriter.replaceOp(
        slice, createTransposedSlice(rewriter, slice, transpose, transposed)
                   ->getResult(0));
    return success();
  }
};

/// A transpose of an scf.forall's result that the forall builds from an
/// empty tensor, tile by tile, where each tile's transpose moves only unit
/// dimensions: the forall builds the transposed tensor instead, each tile
/// inserted at its transposed place.
struct WriteTilesThroughTranspose : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    if (!transpose.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(transpose, "not on tensors");
    auto result = dyn_cast<OpResult>(transpose.getInput());
    auto forall =
        result ? dyn_cast<scf::ForallOp>(result.getOwner()) : scf::ForallOp();
    if (!forall || !result.hasOneUse())
      return rewriter.notifyMatchFailure(transpose,
                                         "not the one reader of a forall");
    OpOperand &initOperand =
        forall.getOutputsMutable()[result.getResultNumber()];
    auto empty = initOperand.get().getDefiningOp<tensor::EmptyOp>();
    if (!empty)
      return rewriter.notifyMatchFailure(transpose, "built on a tensor read");
    ArrayRef<int64_t> perm = transpose.getPermutation();
    BlockArgument built = forall.getTiedBlockArgument(&initOperand);
    SmallVector<tensor::ParallelInsertSliceOp> inserts;
    for (OpOperand &use : built.getUses()) {
      auto insert = dyn_cast<tensor::ParallelInsertSliceOp>(use.getOwner());
      if (!insert || use.get() != insert.getDest() ||
          insert.getSourceType().getRank() != insert.getDestType().getRank() ||
          !movesOnlyUnitDims(insert.getSourceType().getShape(), perm))
        return rewriter.notifyMatchFailure(
            transpose, "a tile read, or one whose transpose moves elements");
      inserts.push_back(insert);
    }

    auto type = cast<RankedTensorType>(transpose->getResult(0).getType());
    Location loc = transpose.getLoc();
    rewriter.setInsertionPoint(forall);
    SmallVector<OpFoldResult> emptySizes = empty.getMixedSizes();
    Value init = tensor::EmptyOp::create(rewriter, loc,
                                         applyPermutation(emptySizes, perm),
                                         type.getElementType());
    rewriter.modifyOpInPlace(forall, [&] {
      initOperand.set(init);
      result.setType(type);
      built.setType(type);
    });
    auto permute = [&](SmallVector<OpFoldResult> values) {
      return applyPermutation(values, perm);
    };
    for (tensor::ParallelInsertSliceOp insert : inserts) {
      rewriter.setInsertionPoint(forall.getTerminator());
      Value tile = insert.getSource();
      SmallVector<OpFoldResult> tileSizes =
          tensor::getMixedSizes(rewriter, insert.getLoc(), tile);
      Value tileInit =
          tensor::EmptyOp::create(rewriter, insert.getLoc(), permute(tileSizes),
                                  insert.getSourceType().getElementType());
      Value transposedTile =
          linalg::TransposeOp::create(rewriter, insert.getLoc(), tile, tileInit,
                                      perm)
              ->getResult(0);
      rewriter.setInsertionPoint(insert);
      rewriter.replaceOpWithNewOp<tensor::ParallelInsertSliceOp>(
          insert, transposedTile, built, permute(insert.getMixedOffsets()),
          permute(insert.getMixedSizes()), permute(insert.getMixedStrides()));
    }
    rewriter.replaceOp(transpose, result);
    return success();
  }
};

/// A transpose of the result of an elementwise linalg.generic (all loops
/// parallel, one result, read by the transpose alone, its initial value
/// unread) is that generic writing the transpose's init through a permuted
/// map: one pass over the tensor instead of two, where the permutation
/// keeps the innermost dimension. (Attention whose rows a
/// query tile does not divide is normalized after its loops, by such an
/// op, before the heads are merged.)
struct WriteElementwiseThroughTranspose
    : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    if (!transpose.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(transpose, "not on tensors");
    auto generic = transpose.getInput().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic->getNumResults() != 1 ||
        !generic->getResult(0).hasOneUse() ||
        !generic.hasPureTensorSemantics() ||
        generic.getNumReductionLoops() != 0)
      return rewriter.notifyMatchFailure(transpose, "not the one reader of an "
                                                    "elementwise generic");
    OpOperand *init = generic.getDpsInitOperand(0);
    if (generic.payloadUsesValueFromOperand(init))
      return rewriter.notifyMatchFailure(transpose, "the init is read");
    // The innermost dimension stays: the generic still writes whole rows,
    // where a transpose of it is the transpose pass's business (blocks of
    // vectors shuffled in registers).
    ArrayRef<int64_t> perm = transpose.getPermutation();
    if (perm.empty() || perm.back() != static_cast<int64_t>(perm.size()) - 1)
      return rewriter.notifyMatchFailure(transpose,
                                         "moves the innermost dimension");
    AffineMap map = generic.getMatchingIndexingMap(init);
    SmallVector<AffineExpr> results =
        llvm::map_to_vector(perm, [&](int64_t d) { return map.getResult(d); });
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    maps.back() = AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                                 map.getContext());
    rewriter.setInsertionPoint(generic);
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, generic.getLoc(), init->get());
    Value newInit = tensor::EmptyOp::create(
        rewriter, generic.getLoc(), applyPermutation(sizes, perm),
        getElementTypeOrSelf(init->get().getType()));
    rewriter.modifyOpInPlace(generic, [&] {
      init->set(newInit);
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
      generic->getResult(0).setType(newInit.getType());
    });
    rewriter.replaceOp(transpose, generic->getResult(0));
    return success();
  }
};

struct TfmFoldTransposesIntoTilesPass
    : tfm::impl::TfmFoldTransposesIntoTilesBase<
          TfmFoldTransposesIntoTilesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ReadTileThroughTranspose, WriteTilesThroughTranspose,
                 WriteElementwiseThroughTranspose>(&getContext());
    populateUnitDimTransposeToReshapePatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
