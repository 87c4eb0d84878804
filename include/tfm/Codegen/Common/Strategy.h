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

/// The default strategy for tfm.online_attention `op` of static shape:
/// (1, ..., `queryTile`) tiles in parallel, then blocks of `keyTile` keys,
/// each clamped to the size it tiles; null if `op`'s shape is dynamic.
LoweringConfigAttr getAttentionConfig(OnlineAttentionOp op, int64_t queryTile,
                                      int64_t keyTile);

/// Writes getAttentionConfig(op, queryTile, keyTile) on every
/// tfm.online_attention under `root` that has no config yet.
void setDefaultAttentionConfigs(Operation *root, int64_t queryTile,
                                int64_t keyTile);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_STRATEGY_H
