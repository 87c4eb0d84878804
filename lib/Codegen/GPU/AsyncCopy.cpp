//===- AsyncCopy.cpp - Staging a block's operands with cp.async ----------===//
//
// See AsyncCopy.h. cp.async moves 4, 8 or 16 bytes from global to shared
// memory, both addresses aligned to the size. The block buffer (the
// destination) is laid out densely from a 16-byte aligned offset, so a
// chunk is aligned there when the innermost extent is a multiple of it;
// the source's static strides must be multiples of it too, and its dynamic
// offset is checked when the block runs (a tile of a 7-column matrix is
// copied element by element). Device buffers are allocated by the driver,
// 256-byte aligned.
//
//===----------------------------------------------------------------------===//

#include "AsyncCopy.h"

#include "SharedMemory.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The indices of element `linear` of a dense buffer of `shape`, the last
/// dimension varying fastest.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                               ArrayRef<int64_t> shape) {
  SmallVector<Value> indices(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    Value extent = constantIndex(b, loc, shape[d]);
    indices[d] =
        d == 0 ? linear : arith::RemUIOp::create(b, loc, linear, extent);
    if (d > 0)
      linear = arith::DivUIOp::create(b, loc, linear, extent);
  }
  return indices;
}

/// A loop over `count` items shared out between the block's threads
/// (thread t takes t, t + blockSize, ...), with `body` given the item.
scf::ForOp forEachItemOfThread(
    OpBuilder &b, Location loc, Value thread, int64_t blockSize, int64_t count,
    function_ref<void(OpBuilder &, Location, Value)> body) {
  return scf::ForOp::create(
      b, loc, thread, constantIndex(b, loc, count),
      constantIndex(b, loc, blockSize), ValueRange{},
      [&](OpBuilder &nb, Location nloc, Value item, ValueRange) {
        body(nb, nloc, item);
        scf::YieldOp::create(nb, nloc);
      });
}

} // namespace

int64_t tfm::getAsyncCopyElements(linalg::CopyOp copy) {
  auto source = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  auto target = dyn_cast<MemRefType>(copy.getOutputs()[0].getType());
  if (!source || !target || !source.hasStaticShape() ||
      source.getShape() != target.getShape() || source.getRank() == 0 ||
      source.getElementType() != target.getElementType())
    return 0;
  int64_t bytes = getStagedElementBytes(source.getElementType());
  if (bytes == 0)
    return 0;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(source.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || llvm::any_of(strides, ShapedType::isDynamic))
    return 0;
  for (int64_t chunkBytes : {16, 8, 4}) {
    int64_t elements = chunkBytes / bytes;
    if (source.getShape().back() % elements == 0 &&
        llvm::all_of(strides, [&](int64_t stride) {
          return stride == 1 || stride % elements == 0;
        }))
      return elements;
  }
  return 0;
}

Operation *tfm::emitAsyncCopy(OpBuilder &b, linalg::CopyOp copy,
                              int64_t elements, Value thread, int64_t blockSize,
                              bool emulated, bool commit) {
  Location loc = copy.getLoc();
  Value source = copy.getInputs()[0], target = copy.getOutputs()[0];
  // cp.async writes shared memory: the buffer behind the generic view.
  // A view that does not address it with the same indices (a slice of a
  // block buffer) is copied element by element.
  Value shared = getSharedBuffer(target);
  ArrayRef<int64_t> shape = cast<MemRefType>(source.getType()).getShape();
  int64_t total = ShapedType::getNumElements(shape);
  auto copyElements = [&](OpBuilder &eb, Location eloc) {
    return forEachItemOfThread(
        eb, eloc, thread, blockSize, total,
        [&](OpBuilder &nb, Location nloc, Value element) {
          SmallVector<Value> indices = delinearize(nb, nloc, element, shape);
          Value value = memref::LoadOp::create(nb, nloc, source, indices);
          memref::StoreOp::create(nb, nloc, value, target, indices);
        });
  };
  if (!shared && !emulated)
    return copyElements(b, loc);

  // Whether the source's first element, hence every chunk, is aligned.
  auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, source);
  Value misalignment = arith::RemUIOp::create(b, loc, metadata.getOffset(),
                                              constantIndex(b, loc, elements));
  Value aligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                        misalignment, constantIndex(b, loc, 0));
  auto choice = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&choice.getThenRegion().front());
  forEachItemOfThread(
      b, loc, thread, blockSize, total / elements,
      [&](OpBuilder &nb, Location nloc, Value chunk) {
        Value first = arith::MulIOp::create(nb, nloc, chunk,
                                            constantIndex(nb, nloc, elements));
        SmallVector<Value> indices = delinearize(nb, nloc, first, shape);
        if (!emulated) {
          nvgpu::DeviceAsyncCopyOp::create(
              nb, nloc, nvgpu::DeviceAsyncTokenType::get(nb.getContext()),
              shared, indices, source, indices, nb.getIndexAttr(elements),
              /*srcElements=*/Value(), /*bypassL1=*/UnitAttr());
          return;
        }
        for (int64_t e = 0; e < elements; ++e) {
          SmallVector<Value> at(indices);
          at.back() = arith::AddIOp::create(nb, nloc, at.back(),
                                            constantIndex(nb, nloc, e));
          Value value = memref::LoadOp::create(nb, nloc, source, at);
          memref::StoreOp::create(nb, nloc, value, target, at);
        }
      });
  // Every copy of this thread in one group; the caller waits for it.
  if (!emulated && commit)
    emitAsyncCommit(b, loc);

  b.setInsertionPointToStart(&choice.getElseRegion().front());
  copyElements(b, loc);
  return choice;
}

Value tfm::emitAsyncCommit(OpBuilder &b, Location loc) {
  return nvgpu::DeviceAsyncCreateGroupOp::create(
      b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), ValueRange{});
}

void tfm::emitAsyncWait(OpBuilder &b, Location loc) {
  // cp.async.wait_group waits for the thread's groups, whichever token it
  // names: an empty group stands for them (a thread that copied element by
  // element has none to wait for).
  emitAsyncWaitAllBut(b, loc, emitAsyncCommit(b, loc), 0);
}

void tfm::emitAsyncWaitAllBut(OpBuilder &b, Location loc, Value group,
                              int32_t pending) {
  nvgpu::DeviceAsyncWaitOp::create(b, loc, group,
                                   b.getI32IntegerAttr(pending));
}
