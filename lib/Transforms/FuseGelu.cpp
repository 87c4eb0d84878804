//===- FuseGelu.cpp ------------------------------------------------------===//
//
// Implements `tfm-fuse-gelu`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEGELU
#include "tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {
struct TfmFuseGeluPass : tfm::impl::TfmFuseGeluBase<TfmFuseGeluPass> {
  using Base::Base;

  void runOnOperation() override {}
};
} // namespace
