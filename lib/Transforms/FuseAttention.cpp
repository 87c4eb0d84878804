//===- FuseAttention.cpp -------------------------------------------------===//
//
// Implements `tfm-fuse-attention`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEATTENTION
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmFuseAttentionPass : tfm::impl::TfmFuseAttentionBase<TfmFuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {}
};
} // namespace
