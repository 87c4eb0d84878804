//===- DropWriteOnlyBuffers.cpp - tfm-drop-write-only-buffers -------------===//
//
// Implements `tfm-drop-write-only-buffers`: an allocation that is written
// but never read is erased with its writes.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDROPWRITEONLYBUFFERS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// Collects into `uses` the ops that use `buffer` (and the views of it,
/// which come before the ops that use them); false if one of them may read
/// it or let it escape.
bool collectWriteOnlyUses(Value buffer, SmallVectorImpl<Operation *> &uses) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
            memref::CastOp>(user)) {
      uses.push_back(user);
      if (!collectWriteOnlyUses(user->getResult(0), uses))
        return false;
      continue;
    }
    bool writes =
        isa<memref::DeallocOp>(user) ||
        (isa<vector::TransferWriteOp>(user) &&
         cast<vector::TransferWriteOp>(user).getBase() == buffer) ||
        (isa<memref::StoreOp>(user) &&
         cast<memref::StoreOp>(user).getMemRef() == buffer) ||
        (isa<memref::CopyOp>(user) &&
         cast<memref::CopyOp>(user).getTarget() == buffer &&
         cast<memref::CopyOp>(user).getSource() != buffer);
    if (!writes)
      return false;
    uses.push_back(user);
  }
  return true;
}

struct TfmDropWriteOnlyBuffersPass
    : tfm::impl::TfmDropWriteOnlyBuffersBase<TfmDropWriteOnlyBuffersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> allocations;
    getOperation().walk([&](Operation *op) {
      if (isa<memref::AllocOp, memref::AllocaOp>(op))
        allocations.push_back(op);
    });
    for (Operation *allocation : allocations) {
      SmallVector<Operation *> uses;
      if (!collectWriteOnlyUses(allocation->getResult(0), uses))
        continue;
      // Views come before their users in `uses`: erase in reverse.
      for (Operation *use : llvm::reverse(uses))
        use->erase();
      allocation->erase();
    }
  }
};

} // namespace
