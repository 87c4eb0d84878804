//===- HoistInvariantSubsets.cpp - tfm-cpu-hoist-invariant-subsets --------===//
//
// Implements `tfm-cpu-hoist-invariant-subsets`: upstream's hoisting of
// loop-invariant subsets, asked only of the loops that have one.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUHOISTINVARIANTSUBSETS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether `loop` reads a subset of one of its iter_args at the same place
/// in every iteration: an extraction (a `vector.transfer_read`, a
/// `tensor.extract_slice`) of the iter_arg itself whose other operands are
/// defined outside the loop. Only such a subset can leave the loop
/// (upstream's hoistLoopInvariantSubsets hoists pairs of an extraction and
/// an insertion of the same subset, both on the iter_arg, the extraction
/// moved before the loop).
bool readsInvariantSubset(LoopLikeOpInterface loop) {
  for (BlockArgument iterArg : loop.getRegionIterArgs())
    for (OpOperand &use : iterArg.getUses()) {
      auto extraction = dyn_cast<SubsetExtractionOpInterface>(use.getOwner());
      if (!extraction || &extraction.getSourceOperand() != &use)
        continue;
      if (llvm::all_of(use.getOwner()->getOperands(), [&](Value operand) {
            return operand == iterArg ||
                   loop.isDefinedOutsideOfLoop(operand) ||
                   matchPattern(operand, m_Constant());
          }))
        return true;
    }
  return false;
}

struct TfmCpuHoistInvariantSubsetsPass
    : tfm::impl::TfmCpuHoistInvariantSubsetsBase<
          TfmCpuHoistInvariantSubsetsPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // Inner loops first, as upstream's pass: a subset hoisted out of an
    // inner loop may then leave the one around it.
    getOperation()->walk([&](LoopLikeOpInterface loop) {
      if (readsInvariantSubset(loop))
        (void)hoistLoopInvariantSubsets(rewriter, loop);
    });
  }
};

} // namespace
