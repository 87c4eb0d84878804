//===- SerializeSmallLoops.cpp - tfm-cpu-serialize-small-loops ------------===//
//
// Implements `tfm-cpu-serialize-small-loops`: an OpenMP parallel loop whose
// trip count is only known at run time starts its threads only when its
// work is worth it, and runs on the calling thread otherwise.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUSERIALIZESMALLLOOPS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The elements that `op` reads or writes, if it is a load or a store of
/// memory (a vector's elements, or one); 0 for any other op.
int64_t getAccessedElements(Operation *op) {
  if (isa<memref::LoadOp, memref::StoreOp>(op))
    return 1;
  Type vector;
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    vector = read.getVectorType();
  else if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    vector = write.getVectorType();
  else if (isa<vector::LoadOp, vector::MaskedLoadOp, vector::GatherOp,
               vector::ExpandLoadOp>(op))
    vector = op->getResult(0).getType();
  else if (auto store = dyn_cast<vector::StoreOp>(op))
    vector = store.getVectorType();
  else if (auto store = dyn_cast<vector::MaskedStoreOp>(op))
    vector = store.getVectorType();
  else if (auto scatter = dyn_cast<vector::ScatterOp>(op))
    vector = scatter.getVectorType();
  else if (auto compress = dyn_cast<vector::CompressStoreOp>(op))
    vector = compress.getVectorType();
  if (auto type = dyn_cast_or_null<VectorType>(vector))
    return type.getNumElements();
  return 0;
}

/// The work of one iteration of `nest`: the most elements that one of its
/// loads or stores accesses, times the trip counts of the loops around it
/// in the iteration - the elements of the iteration's part of the op's
/// iteration space, as tfm-cpu-select-vector-strategy counts them for
/// static extents. None if a loop in it has a trip count known only at run
/// time (an attention's positions, a product's rows), or a region that is
/// not a loop or a branch: work that may be large.
std::optional<int64_t> getWorkPerIteration(omp::LoopNestOp nest) {
  int64_t work = 0;
  bool known = true;
  nest.getRegion().walk([&](Operation *op) {
    int64_t elements = getAccessedElements(op);
    if (!elements)
      return;
    for (Operation *parent = op->getParentOp(); parent != nest;
         parent = parent->getParentOp()) {
      if (isa<scf::IfOp, memref::AllocaScopeOp>(parent))
        continue;
      auto loop = dyn_cast<scf::ForOp>(parent);
      std::optional<APInt> trips =
          loop ? loop.getStaticTripCount() : std::nullopt;
      if (!trips) {
        known = false;
        return;
      }
      elements *= trips->getSExtValue();
    }
    work = std::max(work, elements);
  });
  if (!known)
    return std::nullopt;
  return work;
}

struct TfmCpuSerializeSmallLoopsPass
    : tfm::impl::TfmCpuSerializeSmallLoopsBase<TfmCpuSerializeSmallLoopsPass> {
  void runOnOperation() override {
    getOperation()->walk([&](omp::ParallelOp parallel) {
      if (parallel.getIfExpr())
        return;
      SmallVector<omp::LoopNestOp> nests;
      parallel.getRegion().walk([&](omp::LoopNestOp nest) {
        nests.push_back(nest);
      });
      if (nests.size() != 1)
        return;
      omp::LoopNestOp nest = nests.front();
      // A trip count known at compile time was the strategy's to weigh.
      // The bounds must be values the parallel region takes from outside.
      bool dynamic = false;
      for (Value bound : nest->getOperands()) {
        if (parallel.getRegion().isAncestor(bound.getParentRegion()))
          return;
        dynamic |= !getConstantIntValue(bound).has_value();
      }
      if (!dynamic)
        return;
      std::optional<int64_t> work = getWorkPerIteration(nest);
      if (!work || *work <= 0 || *work >= kMinParallelIterations)
        return;
      // work x trips >= kMinParallelIterations, i.e.
      // trips >= ceil(kMinParallelIterations / work).
      Location loc = parallel.getLoc();
      OpBuilder b(parallel);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value trips;
      for (auto [lb, ub, step] :
           llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                     nest.getLoopSteps())) {
        Value count = b.createOrFold<arith::CeilDivSIOp>(
            loc, b.createOrFold<arith::SubIOp>(loc, ub, lb), step);
        count = b.createOrFold<arith::MaxSIOp>(loc, count, zero);
        trips = trips ? b.createOrFold<arith::MulIOp>(loc, trips, count)
                      : count;
      }
      Value needed = arith::ConstantIndexOp::create(
          b, loc, llvm::divideCeil(kMinParallelIterations, *work));
      Value worth = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge,
                                          trips, needed);
      parallel.getIfExprMutable().assign(worth);
    });
  }
};

} // namespace
