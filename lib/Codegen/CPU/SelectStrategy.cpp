//===- SelectStrategy.cpp - tfm-cpu-select-strategy ---------------------===//
//
// Implements `tfm-cpu-select-strategy`: the strategy the CPU code generation
// applies, chosen per op and recorded as its #tfm.lowering_config.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "tfm/Codegen/Common/Strategy.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUSELECTSTRATEGY
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmCpuSelectStrategyPass
    : tfm::impl::TfmCpuSelectStrategyBase<TfmCpuSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    setDefaultAttentionConfigs(getOperation(), qTileSize, kvTileSize,
                               /*dynamicTiles=*/true);
  }
};
} // namespace
