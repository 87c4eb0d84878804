//===- FuseLinear.cpp ----------------------------------------------------===//
//
// Implements `tfm-fuse-linear`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSELINEAR
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmFuseLinearPass : tfm::impl::TfmFuseLinearBase<TfmFuseLinearPass> {
  using Base::Base;

  void runOnOperation() override {}
};
} // namespace
