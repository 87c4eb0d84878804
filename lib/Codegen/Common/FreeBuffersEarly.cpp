//===- FreeBuffersEarly.cpp - where buffers live --------------------------===//
//
// Implements `tfm-free-buffers-early`: each `memref.dealloc` moves up to
// just after the last use of its buffer and of the buffer's views; and
// `tfm-hoist-loop-buffers`: a buffer that a sequential loop allocates and
// frees in each iteration is allocated once, around the loop.
//
// Bufferization's ownership-based deallocation frees a buffer at the end of
// the block that allocates it: every intermediate of a model's entry
// function lives until the function returns. A call then holds all of them
// at once (GPT-2-small's 128-token prefill, 116 MB), and a process's first
// call touches that many fresh pages. Freed after its last use, a buffer's
// memory serves the next allocations of the call.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFREEBUFFERSEARLY
#define GEN_PASS_DEF_TFMHOISTLOOPBUFFERS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// The last op of `block` that uses `buffer` or a view of it, through ops
/// nested in the block's ops, other than `dealloc`; null when no op uses
/// it. Fails when the buffer may outlive its uses in a way this does not
/// follow: a use outside `block`, or an op other than a view that returns a
/// memref from it (an `scf.if` yielding it, a call returning it), or a
/// terminator that passes it on.
FailureOr<Operation *> findLastUse(Value buffer, Block *block,
                                   Operation *dealloc) {
  Operation *last = nullptr;
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return failure();
      if (user->hasTrait<OpTrait::IsTerminator>())
        return failure();
      bool isView = isa<ViewLikeOpInterface, memref::CastOp,
                        memref::ExtractStridedMetadataOp>(user);
      for (Value result : user->getResults()) {
        if (!isa<BaseMemRefType>(result.getType()))
          continue;
        if (!isView)
          return failure();
        worklist.push_back(result);
      }
      if (!last || last->isBeforeInBlock(inBlock))
        last = inBlock;
    }
  }
  return last;
}

struct TfmFreeBuffersEarlyPass
    : tfm::impl::TfmFreeBuffersEarlyBase<TfmFreeBuffersEarlyPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation().walk(
        [&](memref::DeallocOp op) { deallocs.push_back(op); });
    for (memref::DeallocOp dealloc : deallocs) {
      Value buffer = dealloc.getMemref();
      auto alloc = buffer.getDefiningOp<memref::AllocOp>();
      Block *block = dealloc->getBlock();
      if (!alloc || alloc->getBlock() != block)
        continue;
      FailureOr<Operation *> last = findLastUse(buffer, block, dealloc);
      if (failed(last))
        continue;
      Operation *after = *last ? *last : alloc.getOperation();
      if (after->isBeforeInBlock(dealloc))
        dealloc->moveAfter(after);
    }
  }
};

/// The dealloc of `alloc` in its block, if the block frees it once.
memref::DeallocOp getDeallocInBlock(memref::AllocOp alloc) {
  memref::DeallocOp found;
  for (Operation *user : alloc->getUsers()) {
    auto dealloc = dyn_cast<memref::DeallocOp>(user);
    if (!dealloc)
      continue;
    if (found || dealloc->getBlock() != alloc->getBlock())
      return {};
    found = dealloc;
  }
  return found;
}

struct TfmHoistLoopBuffersPass
    : tfm::impl::TfmHoistLoopBuffersBase<TfmHoistLoopBuffersPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk([&](memref::AllocOp op) { allocs.push_back(op); });
    for (memref::AllocOp alloc : allocs) {
      // Out of each enclosing sequential loop, as long as the buffer's size
      // and alignment do not depend on the iteration and its uses stay in
      // the iteration that allocates it. A parallel loop keeps its
      // iterations' buffers: they run at the same time.
      while (auto loop = dyn_cast<scf::ForOp>(alloc->getParentOp())) {
        memref::DeallocOp dealloc = getDeallocInBlock(alloc);
        if (!dealloc || !alloc->getOperands().empty() ||
            failed(findLastUse(alloc.getResult(), alloc->getBlock(), dealloc)))
          break;
        alloc->moveBefore(loop);
        dealloc->moveAfter(loop);
      }
    }
  }
};

} // namespace
