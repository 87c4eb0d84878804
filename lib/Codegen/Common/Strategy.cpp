//===- Strategy.cpp - Strategy choices every target shares ----------------===//

#include "tfm/Codegen/Common/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::tfm;

LoweringConfigAttr tfm::getAttentionConfig(OnlineAttentionOp op,
                                           int64_t queryTile, int64_t keyTile,
                                           bool dynamicTiles) {
  ArrayRef<int64_t> query = op.getQuery().getType().getShape();
  ArrayRef<int64_t> keyT = op.getKeyT().getType().getShape();
  if (!dynamicTiles &&
      (ShapedType::isDynamicShape(query) || ShapedType::isDynamicShape(keyT)))
    return {};
  auto clamp = [](int64_t tile, int64_t size) {
    return ShapedType::isDynamic(size)
               ? tile
               : std::max<int64_t>(1, std::min(tile, size));
  };
  int64_t batchRank = op.getBatchRank();
  // One batch and `queryTile` queries per parallel tile, then blocks of
  // `keyTile` keys.
  SmallVector<int64_t> parallel(batchRank, 1), reduction(batchRank, 0);
  parallel.append({clamp(queryTile, query[batchRank]), 0});
  reduction.append({0, clamp(keyTile, keyT.back())});
  return LoweringConfigAttr::get(
      op.getContext(), {TilingLevel::parallel, TilingLevel::reduction},
      {parallel, reduction});
}

void tfm::setDefaultAttentionConfigs(Operation *root, int64_t queryTile,
                                     int64_t keyTile, bool dynamicTiles) {
  root->walk([&](OnlineAttentionOp op) {
    if (!getLoweringConfig(op))
      if (LoweringConfigAttr config =
              getAttentionConfig(op, queryTile, keyTile, dynamicTiles))
        setLoweringConfig(op, config);
    if (getLoweringConfig(op))
      markAttentionStateForFusion(op);
  });
}

void tfm::markAttentionStateForFusion(OnlineAttentionOp op) {
  UnitAttr unit = UnitAttr::get(op.getContext());
  for (Value init : op.getDpsInits())
    if (auto fill = init.getDefiningOp<linalg::FillOp>())
      if (fill->hasOneUse())
        fill->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
  // The normalization: one elementwise op, the only reader of the results
  // that are read (the maxima are not).
  Operation *reader = nullptr;
  for (OpResult result : op->getResults())
    for (Operation *user : result.getUsers()) {
      if (reader && user != reader)
        return;
      reader = user;
    }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(reader);
  if (generic && generic.getNumDpsInits() == 1 &&
      generic.getNumParallelLoops() == generic.getNumLoops())
    generic->setAttr(LoweringConfigAttr::getFuseIntoProducerAttrName(), unit);
}

/// The number of loops that `config` tiles at its parallel level if they
/// are the leading ones (an op's rows), else 0.
static unsigned getParallelRowLoops(LoweringConfigAttr config) {
  ArrayRef<int64_t> sizes = config.getTileSizes(TilingLevel::parallel);
  unsigned rows = 0;
  while (rows < sizes.size() && sizes[rows] != 0)
    ++rows;
  if (llvm::any_of(sizes.drop_front(rows), [](int64_t s) { return s != 0; }))
    return 0;
  return rows;
}

/// Whether the first `rows` results of `map` are its first `rows` loops.
static bool startsWithRows(AffineMap map, unsigned rows) {
  if (map.getNumResults() < rows)
    return false;
  for (unsigned i = 0; i < rows; ++i)
    if (map.getResult(i) != getAffineDimExpr(i, map.getContext()))
      return false;
  return true;
}

/// Whether `reader`, tiled in parallel along its first `rows` loops, can
/// compute the slice of `producer` that `operand` reads inside each of its
/// tiles without computing any of it twice: `operand` and `producer`'s
/// result are indexed by those rows first, and the target takes `producer`
/// (`isRowwiseProducer`).
static bool
isRowwiseOperand(linalg::LinalgOp reader, OpOperand &operand, unsigned rows,
                 llvm::function_ref<bool(linalg::LinalgOp)> isRowwiseProducer) {
  auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
  if (!producer || producer->getBlock() != reader->getBlock() ||
      producer->getNumResults() != 1 || !producer.hasPureTensorSemantics() ||
      producer.getNumLoops() < rows ||
      producer->hasAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName()) ||
      producer->hasAttr(LoweringConfigAttr::getFuseIntoProducerAttrName()) ||
      !isRowwiseProducer(producer))
    return false;
  SmallVector<utils::IteratorType> iterators = producer.getIteratorTypesArray();
  for (unsigned i = 0; i < rows; ++i)
    if (iterators[i] != utils::IteratorType::parallel)
      return false;
  AffineMap result =
      producer.getIndexingMapMatchingResult(cast<OpResult>(operand.get()));
  return result.isProjectedPermutation() && startsWithRows(result, rows) &&
         startsWithRows(reader.getMatchingIndexingMap(&operand), rows);
}

SmallVector<Operation *> tfm::markRowwiseProducers(
    linalg::LinalgOp root,
    llvm::function_ref<bool(linalg::LinalgOp)> isRowwiseProducer) {
  LoweringConfigAttr config = getLoweringConfig(root);
  unsigned rows = config ? getParallelRowLoops(config) : 0;
  if (rows == 0)
    return {root};
  llvm::SetVector<Operation *> group;
  group.insert(root);
  for (size_t i = 0; i < group.size(); ++i) {
    auto reader = cast<linalg::LinalgOp>(group[i]);
    for (OpOperand &operand : reader->getOpOperands())
      if (isRowwiseOperand(reader, operand, rows, isRowwiseProducer))
        group.insert(operand.get().getDefiningOp());
  }
  // A producer that an op outside the group reads stays whole, and so do
  // the producers it reads.
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation *member : group.getArrayRef().drop_front()) {
      if (llvm::all_of(member->getUsers(),
                       [&](Operation *user) { return group.contains(user); }))
        continue;
      group.remove(member);
      changed = true;
      break;
    }
  }
  UnitAttr unit = UnitAttr::get(root.getContext());
  for (Operation *member : group.getArrayRef().drop_front())
    member->setAttr(LoweringConfigAttr::getFuseIntoConsumerAttrName(), unit);
  return group.takeVector();
}
