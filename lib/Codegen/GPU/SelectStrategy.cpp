//===- SelectStrategy.cpp - tfm-gpu-select-strategy ---------------------===//
//
// Implements `tfm-gpu-select-strategy`: the strategy NVIDIA GPUs code
// generation applies, chosen per op and recorded as its #tfm.lowering_config.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "tfm/Codegen/Common/Strategy.h"

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

/// Output tiles of `tile` x `tile` for a contraction at the top level of a
/// function, one batch element at a time, one block each; null for a
/// contraction whose batch, row and column loops would need more than the
/// three dimensions of a grid. Rows and columns other than the innermost
/// stay whole in the tile.
static LoweringConfigAttr getContractionConfig(linalg::LinalgOp op,
                                               int64_t tile) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() || dims->n.empty() ||
      dims->batch.size() + 2 > 3)
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
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
  MLIRContext *ctx = op.getContext();
  return LoweringConfigAttr::get(ctx, {DenseI64ArrayAttr::get(ctx, sizes)},
                                 {}, /*prefetch_distance=*/0);
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
      if (LoweringConfigAttr config =
              getContractionConfig(op, contractionTileSize))
        setLoweringConfig(op, config);
    });
  }
};
} // namespace
