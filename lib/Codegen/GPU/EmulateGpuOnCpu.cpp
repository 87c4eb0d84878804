//===- EmulateGpuOnCpu.cpp - GPU launches as CPU loops, for testing -------===//
//
// Implements `tfm-emulate-gpu-on-cpu`. With one thread per block, the code
// `tfm-map-to-gpu` puts in a launch is sequential code parameterized by the
// block id: it can run as the body of a loop over the grid. This is what
// lets the GPU mapping be tested for numbers on machines without a GPU.
//
//===----------------------------------------------------------------------===//

#include "DeviceConstants.h"

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMEMULATEGPUONCPU
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// Replaces `launch` by a loop nest over its grid running its body with
/// thread id 0.
LogicalResult emulateLaunch(IRRewriter &rewriter, gpu::LaunchOp launch) {
  Location loc = launch.getLoc();
  gpu::KernelDim3 blockSize = launch.getBlockSizeOperandValues();
  for (Value size : {blockSize.x, blockSize.y, blockSize.z})
    if (getConstantIntValue(size) != 1)
      return launch.emitOpError("has blocks of more than one thread, which "
                                "the CPU emulation cannot run (map with "
                                "block-size=1)");
  if (!launch.getBody().hasOneBlock() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("cannot be emulated on the CPU");

  bool usesDynamicShared =
      launch.getBody()
          .walk([](gpu::DynamicSharedMemoryOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (usesDynamicShared && !launch.getDynamicSharedMemorySize())
    return launch.emitOpError("uses dynamic shared memory but gives no "
                              "size for it; it cannot be emulated");

  // The thread's own buffers of static shape (the emulated warp's fragment
  // buffers) are allocated once, before the loops over the grid: the
  // blocks run one after another, and a buffer allocated inside the loops
  // would take stack at every iteration.
  Block &body = launch.getBody().front();
  SmallVector<memref::AllocaOp> threadBuffers;
  body.walk([&](memref::AllocaOp alloca) {
    if (alloca.getType().hasStaticShape() && alloca->getNumOperands() == 0)
      threadBuffers.push_back(alloca);
  });
  for (memref::AllocaOp alloca : threadBuffers)
    alloca->moveBefore(&body.front());

  rewriter.setInsertionPoint(launch);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  IRMapping mapping;
  for (memref::AllocaOp alloca : threadBuffers)
    rewriter.clone(*alloca, mapping);
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  gpu::KernelDim3 gridDims = launch.getGridSize();
  gpu::KernelDim3 blockDims = launch.getBlockSize();
  auto mapDim3 = [&](gpu::KernelDim3 from, gpu::KernelDim3 to) {
    mapping.map(from.x, to.x);
    mapping.map(from.y, to.y);
    mapping.map(from.z, to.z);
  };
  mapDim3(threadIds, {zero, zero, zero});
  mapDim3(gridDims, grid);
  mapDim3(blockDims, {one, one, one});

  // Shared memory: a buffer in the default memory space, allocated before
  // the loops over the grid too and reused by each block in turn (on the
  // stack inside the loops, a grid of blocks with tens of kilobytes each
  // would overflow it).
  auto withoutMemorySpace = [](Type type) {
    auto memref = cast<MemRefType>(type);
    return MemRefType::get(memref.getShape(), memref.getElementType(),
                           memref.getLayout());
  };
  for (BlockArgument shared : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(shared.getType());
    auto hostType = MemRefType::get(type.getShape(), type.getElementType());
    mapping.map(shared,
                memref::AllocaOp::create(rewriter, loc, hostType).getResult());
  }
  Value dynamicShared;
  if (Value size = launch.getDynamicSharedMemorySize();
      size && usesDynamicShared) {
    Value bytes = arith::IndexCastOp::create(rewriter, loc,
                                             rewriter.getIndexType(), size);
    dynamicShared =
        memref::AllocaOp::create(
            rewriter, loc,
            MemRefType::get({ShapedType::kDynamic}, rewriter.getI8Type()),
            ValueRange{bytes}, ValueRange{}, IntegerAttr())
            .getResult();
  }

  SmallVector<Value, 3> ivs;
  for (Value extent : {grid.x, grid.y, grid.z}) {
    auto loop = scf::ForOp::create(rewriter, loc, zero, extent, one);
    ivs.push_back(loop.getInductionVar());
    rewriter.setInsertionPointToStart(loop.getBody());
  }
  mapDim3(blockIds, {ivs[0], ivs[1], ivs[2]});
  for (Operation &op : body.without_terminator()) {
    if (auto alloca = dyn_cast<memref::AllocaOp>(op);
        alloca && mapping.contains(alloca.getResult()))
      continue;
    if (auto cast = dyn_cast<memref::MemorySpaceCastOp>(op)) {
      // Casts out of shared memory: the buffer is already a host one.
      mapping.map(cast.getResult(), mapping.lookup(cast.getSource()));
      continue;
    }
    if (auto shared = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
      mapping.map(shared.getResult(), dynamicShared);
      continue;
    }
    if (auto view = dyn_cast<memref::ViewOp>(op);
        view && view.getType().getMemorySpace()) {
      mapping.map(
          view.getResult(),
          memref::ViewOp::create(
              rewriter, view.getLoc(), withoutMemorySpace(view.getType()),
              mapping.lookup(view.getSource()),
              mapping.lookupOrDefault(view.getByteShift()),
              llvm::map_to_vector(
                  view.getSizes(),
                  [&](Value size) { return mapping.lookupOrDefault(size); }))
              .getResult());
      continue;
    }
    // One thread: nothing to wait for. (A barrier of the body itself is not
    // cloned: erased by the walk below, the clone would be read after it.)
    if (isa<gpu::BarrierOp>(op))
      continue;
    Operation *clone = rewriter.clone(op, mapping);
    clone->walk([&](gpu::BarrierOp barrier) { rewriter.eraseOp(barrier); });
    // A choice between shared-memory buffers (a pipelined operand's, per
    // step) now chooses between their host buffers.
    clone->walk([&](arith::SelectOp select) {
      if (isa<MemRefType>(select.getType()))
        select.getResult().setType(select.getTrueValue().getType());
    });
  }
  rewriter.eraseOp(launch);
  return success();
}

struct TfmEmulateGpuOnCpuPass
    : tfm::impl::TfmEmulateGpuOnCpuBase<TfmEmulateGpuOnCpuPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp op) { launches.push_back(op); });
    for (gpu::LaunchOp launch : launches)
      if (failed(emulateLaunch(rewriter, launch)))
        return signalPassFailure();

    // Device memory is host memory: a constant's device copy is the
    // constant.
    SmallVector<func::CallOp> constants;
    getOperation().walk([&](func::CallOp call) {
      if (tfm::isDeviceConstantCall(call))
        constants.push_back(call);
    });
    for (func::CallOp call : constants)
      rewriter.replaceOp(call, call.getOperands());
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::MemcpyOp, gpu::DeallocOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        rewriter.replaceOpWithNewOp<memref::AllocOp>(
            op, alloc.getMemref().getType(), alloc.getDynamicSizes());
      } else if (auto copy = dyn_cast<gpu::MemcpyOp>(op)) {
        rewriter.replaceOpWithNewOp<memref::CopyOp>(op, copy.getSrc(),
                                                    copy.getDst());
      } else {
        rewriter.replaceOpWithNewOp<memref::DeallocOp>(
            op, cast<gpu::DeallocOp>(op).getMemref());
      }
    }
  }
};

} // namespace
