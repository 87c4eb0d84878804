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
/// tfm.online_attention under `root` that has no config yet.
void setDefaultAttentionConfigs(Operation *root, int64_t queryTile,
                                int64_t keyTile, bool dynamicTiles);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_STRATEGY_H
