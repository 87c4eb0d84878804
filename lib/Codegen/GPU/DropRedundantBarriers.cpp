//===- DropRedundantBarriers.cpp - Barriers that order nothing ------------===//
//
// Implements `tfm-gpu-drop-redundant-barriers`: see its description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUDROPREDUNDANTBARRIERS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// Whether `op`, or an op in its regions, may touch memory as the threads
/// of a block see it: anything not free of memory effects, every nvgpu op
/// (a wait completes asynchronous copies; warp-level ops are counted too,
/// to be safe) and a barrier nested in a region, which the search does not
/// enter.
bool mayTouchMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (isa<gpu::BarrierOp>(nested) ||
        isa_and_nonnull<nvgpu::NVGPUDialect>(nested->getDialect()) ||
        !isMemoryEffectFree(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `block` is a kernel's body: its end is the kernel's end.
bool isKernelBody(Block *block) {
  return isa<gpu::LaunchOp, gpu::GPUFuncOp>(block->getParentOp());
}

/// Whether every path from `from` (included) onwards in its block, and on
/// past the block's end, meets a barrier or the kernel's end before an op
/// that may touch memory.
bool meetsBarrierAfter(Block::iterator from, Block *block) {
  for (Operation &op : llvm::make_range(from, block->end())) {
    if (isa<gpu::BarrierOp>(op))
      return true;
    if (op.hasTrait<OpTrait::IsTerminator>())
      break;
    if (mayTouchMemory(&op))
      return false;
  }
  if (isKernelBody(block))
    return true;
  Operation *parent = block->getParentOp();
  auto after = [](Operation *op) {
    return meetsBarrierAfter(std::next(op->getIterator()), op->getBlock());
  };
  if (isa<scf::IfOp>(parent))
    return after(parent);
  // Out of the loop, and around to the body's start. The search that goes
  // around ends at the latest at the barrier it started from, which lies
  // in this body (a region holding one ends it too).
  if (isa<scf::ForOp>(parent))
    return after(parent) && meetsBarrierAfter(block->begin(), block);
  return false;
}

/// Whether every path to the op before `to` (excluded), back from it in its
/// block and on past the block's start, comes from a barrier or the
/// kernel's start with no op between that may touch memory.
bool meetsBarrierBefore(Block::iterator to, Block *block) {
  for (Operation &op : llvm::reverse(llvm::make_range(block->begin(), to))) {
    if (isa<gpu::BarrierOp>(op))
      return true;
    if (!op.hasTrait<OpTrait::IsTerminator>() && mayTouchMemory(&op))
      return false;
  }
  if (isKernelBody(block))
    return true;
  Operation *parent = block->getParentOp();
  auto before = [](Operation *op) {
    return meetsBarrierBefore(op->getIterator(), op->getBlock());
  };
  if (isa<scf::IfOp>(parent))
    return before(parent);
  // From before the loop, and from the previous iteration's end.
  if (isa<scf::ForOp>(parent))
    return before(parent) && meetsBarrierBefore(block->end(), block);
  return false;
}

struct TfmGpuDropRedundantBarriersPass
    : tfm::impl::TfmGpuDropRedundantBarriersBase<
          TfmGpuDropRedundantBarriersPass> {
  void runOnOperation() override {
    SmallVector<gpu::BarrierOp> barriers;
    getOperation()->walk([&](gpu::BarrierOp barrier) {
      if (barrier->getParentOfType<gpu::LaunchOp>())
        barriers.push_back(barrier);
    });
    // One at a time, each against the kernel as the erasures before it
    // left it.
    for (gpu::BarrierOp barrier : barriers) {
      Block *block = barrier->getBlock();
      auto at = barrier->getIterator();
      if (meetsBarrierAfter(std::next(at), block) ||
          meetsBarrierBefore(at, block))
        barrier->erase();
    }
  }
};

} // namespace
