//===- SelectStrategy.cpp - tfm-gpu-select-strategy ---------------------===//
//
// Implements `tfm-gpu-select-strategy`: the strategy NVIDIA GPUs code
// generation applies, chosen per op and recorded as its #tfm.lowering_config.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "tfm/Codegen/Common/Strategy.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUSELECTSTRATEGY
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmGpuSelectStrategyPass
    : tfm::impl::TfmGpuSelectStrategyBase<TfmGpuSelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    setDefaultAttentionConfigs(getOperation(), qTileSize, kvTileSize);
  }
};
} // namespace
