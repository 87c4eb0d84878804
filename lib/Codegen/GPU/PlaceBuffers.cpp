//===- PlaceBuffers.cpp - Put a mapped function's buffers on the device ---===//
//
// Implements `tfm-gpu-place-buffers`: after `tfm-map-to-gpu` every access to
// memory is inside a `gpu.launch`, and this pass gives each buffer those
// launches use a device copy. Upstream has the launches' host side
// (gpu.alloc, gpu.memcpy, gpu-async-region) but no pass that decides which
// buffers need copies in which direction; this is it.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUPLACEBUFFERS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

/// Whether anything accesses `buffer`, or a view of it, with `Effect` (a
/// read or a write). After the loop lowering, accesses are loads and
/// stores, inside launches.
template <typename Effect> static bool isAccessed(Value buffer) {
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    if (auto view = dyn_cast<ViewLikeOpInterface>(user))
      if (view.getViewSource() == buffer &&
          llvm::any_of(user->getResults(), isAccessed<Effect>))
        return true;
    if (mightHaveEffect<Effect>(user, buffer))
      return true;
  }
  return false;
}

/// Gives every buffer the device uses a device copy: arguments and
/// constants are copied in on entry, results copied back before returning,
/// and host allocations become device allocations freed on return.
static LogicalResult placeBuffers(func::FuncOp func) {
  Block &entry = func.getBody().front();
  auto returnOp = cast<func::ReturnOp>(entry.getTerminator());
  Location loc = func.getLoc();
  OpBuilder b(func.getContext());
  b.setInsertionPointToStart(&entry);
  SmallVector<Value> toFree;

  // A device buffer shaped like `host`, filled from it unless `copyIn` is
  // false. The ops that read `host` to make it are recorded in `staging`.
  SmallPtrSet<Operation *, 8> staging;
  auto makeDeviceCopy = [&](Value host, bool copyIn = true) -> Value {
    auto type = cast<MemRefType>(host.getType());
    SmallVector<Value> sizes;
    for (auto [i, size] : llvm::enumerate(type.getShape()))
      if (ShapedType::isDynamic(size))
        sizes.push_back(memref::DimOp::create(b, loc, host, i));
    for (Value size : sizes)
      staging.insert(size.getDefiningOp());
    Value device = gpu::AllocOp::create(b, loc, type, Type(), ValueRange{},
                                        sizes, ValueRange{})
                       .getMemref();
    if (copyIn)
      staging.insert(
          gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, device, host));
    toFree.push_back(device);
    return device;
  };

  // Arguments: a device copy each, copied in unless only written (the
  // results), copied back when written.
  SmallVector<std::pair<Value, Value>> copyBack;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type)
      continue;
    if (!type.getLayout().isIdentity())
      return func.emitOpError("argument #")
             << arg.getArgNumber()
             << " has a non-identity layout, which the GPU mapping cannot "
                "copy to the device";
    bool written = isAccessed<MemoryEffects::Write>(arg);
    bool read = isAccessed<MemoryEffects::Read>(arg);
    Value device = makeDeviceCopy(arg, /*copyIn=*/read || !written);
    arg.replaceUsesWithIf(device, [&](OpOperand &use) {
      return !staging.contains(use.getOwner());
    });
    if (written)
      copyBack.emplace_back(arg, device);
  }

  // Constants: one device copy per global.
  llvm::MapVector<StringAttr, Value> globals;
  SmallVector<memref::GetGlobalOp> getGlobals;
  func.walk([&](memref::GetGlobalOp op) { getGlobals.push_back(op); });
  for (memref::GetGlobalOp op : getGlobals) {
    StringAttr name = op.getNameAttr().getAttr();
    auto [it, inserted] = globals.try_emplace(name, Value());
    if (inserted) {
      Value host =
          memref::GetGlobalOp::create(b, loc, op.getType(), op.getNameAttr());
      it->second = makeDeviceCopy(host);
    }
    op.replaceAllUsesWith(it->second);
    op.erase();
  }

  // Allocations: on the device, freed on return.
  SmallVector<Operation *> allocs;
  for (Operation &op : entry)
    if (isa<memref::AllocOp, memref::AllocaOp>(op))
      allocs.push_back(&op);
  for (Operation *op : allocs) {
    b.setInsertionPoint(op);
    auto type = cast<MemRefType>(op->getResult(0).getType());
    Value device =
        gpu::AllocOp::create(b, op->getLoc(), type, Type(), ValueRange{},
                             op->getOperands(), ValueRange{})
            .getMemref();
    op->getResult(0).replaceAllUsesWith(device);
    op->erase();
    toFree.push_back(device);
  }
  // Device buffers are freed on return, shared memory with its block.
  func.walk([](memref::DeallocOp op) { op->erase(); });
  WalkResult nestedAlloc = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    // Buffers inside a launch are its threads' own.
    if (isa<gpu::LaunchOp>(op))
      return WalkResult::skip();
    if (isa<memref::AllocOp, memref::AllocaOp>(op)) {
      op->emitOpError("allocates a buffer inside control flow on the host, "
                      "which the GPU mapping does not support");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nestedAlloc.wasInterrupted())
    return failure();

  // The host's own reads (tfm-map-to-gpu leaves only 0-d ones, a run-time
  // check's flag) read a host copy of the device buffer.
  SmallVector<memref::LoadOp> hostLoads;
  for (Operation &op : entry)
    if (auto load = dyn_cast<memref::LoadOp>(op))
      hostLoads.push_back(load);
  for (memref::LoadOp load : hostLoads) {
    b.setInsertionPoint(load);
    Location at = load.getLoc();
    Value host = memref::AllocaOp::create(b, at, load.getMemRefType());
    gpu::MemcpyOp::create(b, at, Type(), ValueRange{}, host, load.getMemRef());
    load->setOperand(0, host);
  }

  b.setInsertionPoint(returnOp);
  for (auto [host, device] : copyBack)
    gpu::MemcpyOp::create(b, loc, Type(), ValueRange{}, host, device);
  for (Value device : toFree)
    gpu::DeallocOp::create(b, loc, Type(), ValueRange{}, device);
  return success();
}

namespace {
struct TfmGpuPlaceBuffersPass
    : tfm::impl::TfmGpuPlaceBuffersBase<TfmGpuPlaceBuffersPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (!func.getBody().hasOneBlock()) {
      func.emitOpError("cannot place buffers on the GPU: its body has more "
                       "than one block");
      return signalPassFailure();
    }
    if (failed(placeBuffers(func)))
      signalPassFailure();
  }
};
} // namespace
