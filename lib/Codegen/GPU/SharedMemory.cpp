//===- SharedMemory.cpp - Buffers a GPU block keeps in shared memory ------===//

#include "SharedMemory.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

int64_t tfm::getElementBytes(MemRefType type) {
  Type element = type.getElementType();
  return element.isIndex()
             ? 8
             : llvm::divideCeil(element.getIntOrFloatBitWidth(), 8);
}

bool tfm::fitsSharedMemory(MemRefType type) {
  return type.hasStaticShape() && type.getLayout().isIdentity() &&
         type.getElementType().isIntOrIndexOrFloat();
}

SmallVector<Operation *> tfm::getBlockBuffers(scf::ForallOp forall) {
  SmallVector<Operation *> buffers;
  forall.getBody()->walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
        !op->getParentOfType<scf::ParallelOp>())
      buffers.push_back(op);
  });
  return buffers;
}

Value tfm::getRootBuffer(Value view) {
  while (auto op = view.getDefiningOp<ViewLikeOpInterface>())
    view = op.getViewSource();
  return view;
}
