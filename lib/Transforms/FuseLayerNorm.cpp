//===- FuseLayerNorm.cpp -------------------------------------------------===//
//
// Implements `tfm-fuse-layer-norm`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSELAYERNORM
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmFuseLayerNormPass : tfm::impl::TfmFuseLayerNormBase<TfmFuseLayerNormPass> {
  using Base::Base;

  void runOnOperation() override {}
};
} // namespace
