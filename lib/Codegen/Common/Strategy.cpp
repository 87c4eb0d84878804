//===- Strategy.cpp - Strategy choices every target shares ----------------===//

#include "tfm/Codegen/Common/Strategy.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

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
  // Level 0: one batch and `queryTile` queries per parallel tile; level 1:
  // blocks of `keyTile` keys.
  SmallVector<int64_t> parallel(batchRank, 1), reduction(batchRank, 0);
  parallel.append({clamp(queryTile, query[batchRank]), 0});
  reduction.append({0, clamp(keyTile, keyT.back())});
  MLIRContext *ctx = op.getContext();
  return LoweringConfigAttr::get(ctx,
                                 {DenseI64ArrayAttr::get(ctx, parallel),
                                  DenseI64ArrayAttr::get(ctx, reduction)},
                                 {}, /*prefetch_distance=*/0);
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
