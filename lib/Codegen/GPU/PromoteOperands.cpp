//===- PromoteOperands.cpp - Stage a block's operands in shared memory ----===//
//
// Implements `tfm-gpu-promote-operands`: the global-memory operands of the
// contractions in a tile loop are copied into block-local buffers, which
// `tfm-map-to-gpu` then places in shared memory.
//
// Upstream's linalg::promoteSubViews copies an operand in right before the
// op that uses it. This pass also hoists the copy out of the loops inside
// the tile that do not change the operand (flash attention's query tile is
// copied once per block, not once per key block), which is why it is not
// built on it.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "SharedMemory.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUPROMOTEOPERANDS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

/// Where to stage `operand` of `op` in shared memory: before the outermost
/// loop inside `forall` that neither defines it nor writes the buffer it
/// views, so that an operand that does not change from step to step (flash
/// attention's query tile) is copied once rather than at every step.
static Operation *getStagingPoint(Operation *op, Value operand,
                                  scf::ForallOp forall) {
  Value root = getRootBuffer(operand);
  auto writesRoot = [&](scf::ForOp loop) {
    WalkResult result = loop.getBody()->walk([&](Operation *nested) {
      auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
      if (!effects)
        return WalkResult::advance();
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffects<MemoryEffects::Write>(instances);
      for (const MemoryEffects::EffectInstance &effect : instances)
        if (!effect.getValue() || getRootBuffer(effect.getValue()) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    return result.wasInterrupted();
  };
  Operation *point = op;
  for (auto loop = op->getParentOfType<scf::ForOp>();
       loop && forall->isProperAncestor(loop);
       loop = loop->getParentOfType<scf::ForOp>()) {
    if (loop->isAncestor(operand.getParentBlock()->getParentOp()) ||
        writesRoot(loop))
      break;
    point = loop;
  }
  return point;
}

/// Stages the operands of the contractions in `forall` while the block's
/// buffers fit in `sharedMemoryBytes`, in program order.
static void promoteOperands(scf::ForallOp forall, int64_t sharedMemoryBytes) {
  int64_t used = 0;
  for (Operation *buffer : getBlockBuffers(forall)) {
    auto type = cast<MemRefType>(buffer->getResult(0).getType());
    if (!fitsSharedMemory(type))
      return; // tfm-map-to-gpu reports it.
    used += type.getNumElements() * getElementBytes(type);
  }
  SmallVector<linalg::LinalgOp> contractions;
  forall.getBody()->walk([&](linalg::LinalgOp op) {
    if (op.getNumReductionLoops() > 0 && op.hasPureBufferSemantics())
      contractions.push_back(op);
  });
  for (linalg::LinalgOp op : contractions) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(input->get().getType());
      if (!type || !type.hasStaticShape() ||
          !type.getElementType().isIntOrIndexOrFloat() || type.getRank() == 0)
        continue;
      // Already block-local (a tile buffer), or defined inside the tile.
      Operation *root = getRootBuffer(input->get()).getDefiningOp();
      if (root && forall->isProperAncestor(root) &&
          isa<memref::AllocOp, memref::AllocaOp>(root))
        continue;
      // Rows padded against shared memory's bank conflicts
      // (getRowPadding); the operand is the buffer's leading part.
      SmallVector<int64_t> shape(type.getShape());
      shape.back() += getRowPadding(type);
      auto bufferType = MemRefType::get(shape, type.getElementType());
      int64_t bytes = bufferType.getNumElements() * getElementBytes(type);
      if (used + bytes > sharedMemoryBytes)
        continue;
      used += bytes;
      OpBuilder b(getStagingPoint(op, input->get(), forall));
      Location loc = op.getLoc();
      Value staged = memref::AllocOp::create(b, loc, bufferType);
      if (bufferType != MemRefType::get(type.getShape(), type.getElementType()))
        staged = memref::SubViewOp::create(
            b, loc, staged, SmallVector<OpFoldResult>(shape.size(), b.getIndexAttr(0)),
            getAsIndexOpFoldResult(b.getContext(), type.getShape()),
            SmallVector<OpFoldResult>(shape.size(), b.getIndexAttr(1)));
      linalg::CopyOp::create(b, loc, ValueRange{input->get()},
                             ValueRange{staged});
      input->set(staged);
    }
  }
}

namespace {
struct TfmGpuPromoteOperandsPass
    : tfm::impl::TfmGpuPromoteOperandsBase<TfmGpuPromoteOperandsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](scf::ForallOp forall) {
      promoteOperands(forall, sharedMemoryBytes);
    });
  }
};
} // namespace
