//===- SharedMemory.cpp - Buffers a GPU block keeps in shared memory ------===//

#include "SharedMemory.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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

int64_t tfm::getStagedElementBytes(Type element) {
  if (!element.isIntOrFloat() || (element.getIntOrFloatBitWidth() != 16 &&
                                  element.getIntOrFloatBitWidth() != 32))
    return 0;
  return element.getIntOrFloatBitWidth() / 8;
}

int64_t tfm::getRowPadding(MemRefType type) {
  int64_t bytes = getStagedElementBytes(type.getElementType());
  if (type.getRank() < 2 || !type.hasStaticShape() || bytes == 0)
    return 0;
  return type.getShape().back() * bytes % 64 == 0 ? 16 / bytes : 0;
}

Value tfm::getSharedBuffer(Value view) {
  if (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    if (subview.getSourceType().getRank() != subview.getType().getRank() ||
        !llvm::all_of(subview.getMixedOffsets(), isZeroInteger) ||
        !llvm::all_of(subview.getMixedStrides(), isOneInteger))
      return {};
    view = subview.getSource();
  }
  auto cast = view.getDefiningOp<memref::MemorySpaceCastOp>();
  if (!cast)
    return {};
  auto type = dyn_cast<MemRefType>(cast.getSource().getType());
  auto space =
      type ? dyn_cast_or_null<gpu::AddressSpaceAttr>(type.getMemorySpace())
           : nullptr;
  if (!space || space.getValue() != gpu::AddressSpace::Workgroup)
    return {};
  return cast.getSource();
}
