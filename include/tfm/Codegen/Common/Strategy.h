//===- Strategy.h - Strategy choices every target shares --------*- C++ -*-===//
//
// The defaults from which the targets' strategy selection passes
// (tfm-cpu-select-strategy, tfm-gpu-select-strategy) start. They only choose:
// the choice is written on the op as a #tfm.lowering_config and applied by
// tfm-tile-by-config.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_STRATEGY_H
#define TFM_CODEGEN_COMMON_STRATEGY_H

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

namespace mlir {
namespace tfm {

/// The default strategy for tfm.online_attention `op`: (1, ...,
/// `queryTile`) tiles in parallel, then blocks of `keyTile` keys, each
/// clamped to a static size it tiles. A dynamic number of queries or keys
/// gets the same tiles, the last partial, where the target handles tiles of
/// dynamic shape (`dynamicTiles`, the CPU's masked vectors); else null.
LoweringConfigAttr getAttentionConfig(OnlineAttentionOp op, int64_t queryTile,
                                      int64_t keyTile, bool dynamicTiles);

/// Writes getAttentionConfig(op, queryTile, keyTile, dynamicTiles) on every
/// tfm.online_attention under `root` that has no config yet, and marks the
/// state of every one that has a config for fusion into its query tiles
/// (markAttentionStateForFusion).
void setDefaultAttentionConfigs(Operation *root, int64_t queryTile,
                                int64_t keyTile, bool dynamicTiles);

/// Marks what surrounds tfm.online_attention `op` for fusion into its query
/// tiles: the fills that start its state (tfm.fuse_into_consumer), and the
/// elementwise op that reads its accumulator and sums, the normalization
/// (tfm.fuse_into_producer). Each query tile then starts its state and
/// finishes its rows while they are in L1, and the state never exists at
/// full size. tfm-tile-by-config removes the marks where the query tiles
/// need a split (a query count that the tile does not divide).
void markAttentionStateForFusion(OnlineAttentionOp op);

/// Marks the ops that `root`'s parallel tiles compute row by row for it
/// with tfm.fuse_into_consumer: the producers, transitively, that it and
/// they read row by row (indexed by the leading loops that `root`'s config
/// tiles at its parallel level, and nothing else) and that no op outside the
/// group reads, among those `isRowwiseProducer` accepts (the target's: the ops
/// whose tiles are rows). A LayerNorm's mean and variance (and the fills of
/// their accumulators) then run in the parallel tiles of its normalization,
/// a tile of rows at a time, instead of as passes each over the whole
/// input. Returns the group, `root` first (only `root` where nothing
/// joins it).
SmallVector<Operation *> markRowwiseProducers(
    linalg::LinalgOp root,
    llvm::function_ref<bool(linalg::LinalgOp)> isRowwiseProducer);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_STRATEGY_H
