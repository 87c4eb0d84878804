//===- MapToGpu.cpp - Map a bufferized function onto the GPU --------------===//
//
// Implements `tfm-map-to-gpu`: the step of the GPU code generator that
// decides what runs where. Host code keeps allocation, views and index
// arithmetic; everything that touches memory moves into `gpu.launch`
// regions:
//
//   top-level scf.forall      one block per iteration; inside, parallel loops
//   (query tiles)             are spread over the threads between barriers
//                             and block-local buffers live in shared memory
//   (a contraction there      with tensor-cores, warps of mma.sync
//   that tensor cores fit)    (WarpMma.h), its staged operands copied
//                             by cp.async (AsyncCopy.h)
//   top-level scf.parallel    one thread per iteration (a row reduction:
//                             each row over a warp's lanes, RowReduction.h)
//   other memory writes       one thread
//
// The input's linalg ops are turned into loops first (parallel loops for
// their parallel dimensions), so that the rules above see only loops. Which
// operands a block stages in shared memory is tfm-gpu-promote-operands's
// choice, made before; which buffers the device gets copies of is
// tfm-gpu-place-buffers's, made after.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"

#include "AsyncCopy.h"
#include "RowReduction.h"
#include "SharedMemory.h"
#include "WarpMma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#include <utility>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMMAPTOGPU
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The pass's marks, between finding a loop whose warps keep a
/// tensor-core contraction's accumulators in registers and mapping it (the
/// tile's body is cloned into its launch in between): on the loop, on the
/// contraction, and on the elementwise ops in it that update the
/// accumulators.
constexpr llvm::StringLiteral kCarriedLoopAttrName = "tfm.carried_accumulators";
constexpr llvm::StringLiteral kCarriedContractionAttrName =
    "tfm.carried_contraction";
constexpr llvm::StringLiteral kAccumulatorUpdateAttrName =
    "tfm.accumulator_update";
/// The mark (a number, the same on both) of a tensor-core product (its
/// contraction, or the loop that carries its fragments) and of the
/// elementwise op after it that its warps apply to their fragments as they
/// store them; also, unnumbered, on the product's output buffer, which
/// nothing then touches (markFragmentEpilogues).
constexpr llvm::StringLiteral kFragmentEpilogueAttrName =
    "tfm.fragment_epilogue";

/// The op after `op` that may read or write memory, if any (allocations
/// are passed over).
Operation *getNextEffectfulOp(Operation *op) {
  Operation *next = op->getNextNode();
  while (next && (isMemoryEffectFree(next) ||
                  isa<memref::AllocOp, memref::AllocaOp>(next)))
    next = next->getNextNode();
  return next;
}

/// The epilogue that the tensor-core product `op` applies to its fragments
/// (markFragmentEpilogues: the op after it in its block with the same
/// mark), or null.
linalg::GenericOp getFragmentEpilogue(Operation *op) {
  Attribute mark = op->getAttr(kFragmentEpilogueAttrName);
  if (!mark)
    return {};
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (next->getAttr(kFragmentEpilogueAttrName) == mark)
      return dyn_cast<linalg::GenericOp>(next);
  return {};
}

/// Whether `op` or anything nested in it may write memory.
bool writesMemory(Operation *op) {
  WalkResult result = op->walk([](Operation *nested) {
    if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    if (mightHaveEffect<MemoryEffects::Write, MemoryEffects::Free>(nested))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` may read or write memory.
bool touchesMemory(Operation *op) { return !isMemoryEffectFree(op); }

Value constantIndex(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

/// The number of iterations of each dimension of `loop`, and their product.
struct IterationSpace {
  SmallVector<Value> lowerBounds, steps, counts;
  Value total;
};

IterationSpace getIterationSpace(OpBuilder &b, Location loc,
                                 ValueRange lowerBounds, ValueRange upperBounds,
                                 ValueRange steps) {
  IterationSpace space;
  space.lowerBounds.assign(lowerBounds.begin(), lowerBounds.end());
  space.steps.assign(steps.begin(), steps.end());
  space.total = constantIndex(b, loc, 1);
  for (auto [lb, ub, step] : llvm::zip(lowerBounds, upperBounds, steps)) {
    Value extent = arith::SubIOp::create(b, loc, ub, lb);
    Value count = arith::CeilDivUIOp::create(b, loc, extent, step);
    space.counts.push_back(count);
    space.total = arith::MulIOp::create(b, loc, space.total, count);
  }
  return space;
}

/// The induction variables of iteration `linear` of `space`, the last
/// dimension varying fastest (so that neighbouring threads touch
/// neighbouring elements).
SmallVector<Value> delinearize(OpBuilder &b, Location loc,
                               const IterationSpace &space, Value linear) {
  SmallVector<Value> ivs(space.counts.size());
  for (int64_t d = space.counts.size() - 1; d >= 0; --d) {
    Value index = linear;
    if (d > 0) {
      index = arith::RemUIOp::create(b, loc, linear, space.counts[d]);
      linear = arith::DivUIOp::create(b, loc, linear, space.counts[d]);
    }
    Value offset = arith::MulIOp::create(b, loc, index, space.steps[d]);
    ivs[d] = arith::AddIOp::create(b, loc, space.lowerBounds[d], offset);
  }
  return ivs;
}

/// Clones the body of `loop` (without its terminator) at `b`'s insertion
/// point with its induction variables mapped to `ivs`.
void cloneLoopBody(OpBuilder &b, scf::ParallelOp loop, ValueRange ivs) {
  IRMapping mapping;
  mapping.map(loop.getInductionVars(), ivs);
  for (Operation &op : loop.getBody()->without_terminator())
    b.clone(op, mapping);
}

/// Emits `gpu.launch` with a 1-D block of `blockSize` threads over `grid`
/// and returns it, with the insertion point inside, before the terminator.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, ArrayRef<Value> grid,
                           Value blockSize, Value sharedMemoryBytes = nullptr) {
  Value one = constantIndex(b, loc, 1);
  SmallVector<Value, 3> dims(grid);
  dims.resize(3, one);
  auto launch = gpu::LaunchOp::create(b, loc, dims[0], dims[1], dims[2],
                                      blockSize, one, one, sharedMemoryBytes);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&launch.getBody().front());
  return launch;
}

/// A barrier before `op`, unless one already separates it from the last op
/// that touches memory (only index arithmetic and views lie between).
void insertBarrierBefore(OpBuilder &b, Operation *op) {
  Operation *previous = op->getPrevNode();
  while (previous && !isa<gpu::BarrierOp>(previous) &&
         isMemoryEffectFree(previous))
    previous = previous->getPrevNode();
  if (!previous || !isa<gpu::BarrierOp>(previous)) {
    b.setInsertionPoint(op);
    gpu::BarrierOp::create(b, op->getLoc());
  }
}

/// The buffer `view` is a view of: its root, except that a block's
/// buffers, all views of the one dynamic shared memory, are told apart by
/// their views of it.
Value getBufferOf(Value view) {
  while (auto viewLike = view.getDefiningOp<ViewLikeOpInterface>()) {
    if (isa<memref::ViewOp>(viewLike.getOperation()) &&
        viewLike.getViewSource().getDefiningOp<gpu::DynamicSharedMemoryOp>())
      return view;
    view = viewLike.getViewSource();
  }
  return view;
}

/// The buffer of which `view` shows every element: through subviews that
/// take all of their source (zero offsets, unit strides, as many elements:
/// at most unit dimensions dropped), else `view` itself.
Value getWholeBuffer(Value view) {
  while (auto subview = view.getDefiningOp<memref::SubViewOp>()) {
    MemRefType source = subview.getSourceType(), result = subview.getType();
    if (!source.hasStaticShape() || !result.hasStaticShape() ||
        source.getNumElements() != result.getNumElements() ||
        !llvm::all_of(subview.getMixedOffsets(), isZeroInteger) ||
        !llvm::all_of(subview.getMixedStrides(), isOneInteger))
      break;
    view = subview.getSource();
  }
  return view;
}

/// Rebuilds `epilogue`, an elementwise op that reads the whole buffer of
/// which a product's `output` is a view without its unit dimensions
/// (flash attention's normalisation by the row sums reads its 1 x rows x
/// columns accumulator; the product writes a rows x columns view of it),
/// over `output`'s dimensions: the unit loops dropped, the buffer read
/// through `output` itself and every other operand through a view without
/// those dimensions. Returns the new op (the old one erased), or null where
/// this does not apply (then nothing changed).
linalg::GenericOp dropEpilogueUnitLoops(linalg::GenericOp epilogue,
                                        Value output,
                                        DominanceInfo &dominance) {
  auto view = output.getDefiningOp<memref::SubViewOp>();
  if (!view || getWholeBuffer(output) != view.getSource() ||
      !epilogue.hasPureBufferSemantics() ||
      !dominance.properlyDominates(output, epilogue) ||
      !epilogue.getRegion().front().getOps<linalg::IndexOp>().empty())
    return {};
  OpOperand *buffer = nullptr;
  for (OpOperand *input : epilogue.getDpsInputOperands())
    if (input->get() == view.getSource() &&
        epilogue.getMatchingIndexingMap(input).isIdentity())
      buffer = input;
  SmallVector<int64_t> ranges = epilogue.getStaticLoopRanges();
  llvm::SmallBitVector dropped = view.getDroppedDims();
  if (!buffer || dropped.none() ||
      epilogue.getNumParallelLoops() != epilogue.getNumLoops())
    return {};
  // The loops kept, renumbered.
  MLIRContext *ctx = epilogue.getContext();
  SmallVector<AffineExpr> loopExprs;
  unsigned kept = 0;
  for (unsigned dim = 0; dim < ranges.size(); ++dim) {
    if (dropped.test(dim) && ranges[dim] != 1)
      return {};
    loopExprs.push_back(dropped.test(dim) ? getAffineConstantExpr(0, ctx)
                                          : getAffineDimExpr(kept++, ctx));
  }
  // Each operand's map over the loops kept and its shape without the
  // dimensions they drop; every operand is checked before anything is
  // built.
  SmallVector<AffineMap> maps;
  SmallVector<SmallVector<int64_t>> shapes;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    AffineMap map = epilogue.getMatchingIndexingMap(&operand);
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || !type.hasStaticShape())
      return {};
    SmallVector<AffineExpr> results;
    SmallVector<int64_t> &shape = shapes.emplace_back();
    for (auto [position, result] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(result);
      if (!dim)
        return {};
      if (dropped.test(dim.getPosition()))
        continue;
      results.push_back(loopExprs[dim.getPosition()]);
      shape.push_back(type.getDimSize(position));
    }
    maps.push_back(AffineMap::get(kept, 0, results, ctx));
  }
  OpBuilder b(epilogue);
  Location loc = epilogue.getLoc();
  SmallVector<Value> operands;
  for (auto [operand, shape] :
       llvm::zip_equal(epilogue->getOpOperands(), shapes)) {
    if (&operand == buffer)
      operands.push_back(output);
    else if (static_cast<int64_t>(shape.size()) ==
             cast<MemRefType>(operand.get().getType()).getRank())
      operands.push_back(operand.get());
    else
      operands.push_back(memref::createCanonicalRankReducingSubViewOp(
          b, loc, operand.get(), shape));
  }
  int64_t numInputs = epilogue.getNumDpsInputs();
  auto rebuilt = linalg::GenericOp::create(
      b, loc, TypeRange{}, ArrayRef(operands).take_front(numInputs),
      ArrayRef(operands).drop_front(numInputs), maps,
      SmallVector<utils::IteratorType>(kept, utils::IteratorType::parallel));
  b.cloneRegionBefore(epilogue.getRegion(), rebuilt.getRegion(),
                      rebuilt.getRegion().end());
  epilogue->erase();
  return rebuilt;
}

/// Whether `op` or anything nested in it may read or write `buffer`: has a
/// view of it as an operand, or touches memory without naming any.
bool mayTouchBuffer(Operation *op, Value buffer) {
  WalkResult result = op->walk([&](Operation *nested) {
    bool namesMemRef = false;
    for (Value operand : nested->getOperands()) {
      if (!isa<BaseMemRefType>(operand.getType()))
        continue;
      namesMemRef = true;
      if (getBufferOf(operand) == buffer)
        return WalkResult::interrupt();
    }
    // An allocation makes a buffer; it touches none that exists.
    if (!namesMemRef && touchesMemory(nested) &&
        !isa<memref::AllocOp, memref::AllocaOp>(nested) &&
        !nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Whether `op` reads a pipelined operand: a shared-memory buffer chosen
/// per step among several (tfm-gpu-promote-operands).
bool readsPrefetchedBuffer(linalg::LinalgOp op) {
  return llvm::any_of(op.getDpsInputs(), [](Value input) {
    Value shared = getSharedBuffer(input);
    return shared && shared.getDefiningOp<arith::SelectOp>();
  });
}

/// Whether `loop` issues prefetches (copies marked kPrefetchAttrName).
bool prefetches(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](linalg::CopyOp copy) {
        return copy->hasAttr(kPrefetchAttrName) ? WalkResult::interrupt()
                                                : WalkResult::advance();
      })
      .wasInterrupted();
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct TfmMapToGpuPass : tfm::impl::TfmMapToGpuBase<TfmMapToGpuPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  LogicalResult lowerLinalgToLoops(func::FuncOp func);
  bool runsOnTensorCores(linalg::LinalgOp op) const;
  int64_t getAsyncStaging(linalg::CopyOp copy) const;
  LogicalResult mapTopLevelOp(Operation *op);
  void mapParallelLoop(scf::ParallelOp loop);
  std::optional<RowReductionLoop> getLaneSplit(scf::ParallelOp loop) const;
  void emitLaneIteration(OpBuilder &b, const RowReductionLoop &reduction,
                         const IterationSpace &space, Value linear) const;
  Value getIterations(OpBuilder &b, Location loc, const IterationSpace &space,
                      const std::optional<RowReductionLoop> &split) const;
  void emitIteration(OpBuilder &b, scf::ParallelOp loop,
                     const std::optional<RowReductionLoop> &split,
                     const IterationSpace &space, Value linear) const;
  void mapSequentialOp(Operation *op);
  LogicalResult mapBlockLoop(scf::ForallOp forall);
  LogicalResult distributeOverThreads(Block &block, gpu::LaunchOp launch);
  void foldAccumulatorFills(func::FuncOp func);
  void markFragmentEpilogues(func::FuncOp func);
  void findCarriedLoops(func::FuncOp func);
  LogicalResult mapCarriedLoop(scf::ForOp loop, gpu::LaunchOp launch);
  LogicalResult distributeCarryingFragments(scf::IfOp ifOp,
                                            gpu::LaunchOp launch);

  /// The epilogues that products applied to their fragments, until the
  /// distribution reaches them (markFragmentEpilogues).
  DenseSet<Operation *> appliedEpilogues;

  /// While a carried loop's body is distributed: its accumulators, their
  /// fragments as the body has made them so far, and the ops that update
  /// them (the contraction among them).
  struct KeptState {
    const WarpAccumulators *accumulators;
    SmallVector<Value> fragments;
    llvm::SmallPtrSet<Operation *, 4> ops;
  };
  KeptState *kept = nullptr;
  /// The group of the last run of prefetches, for the wait of the product
  /// that reads them.
  Value prefetchGroup;
  /// How many steps ahead that run fetches: the groups committed after the
  /// one the product reads.
  int64_t prefetchAhead = 0;
};

void TfmMapToGpuPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  if (!func.getBody().hasOneBlock()) {
    func.emitOpError("cannot be mapped to the GPU: its body has more than "
                     "one block");
    return signalPassFailure();
  }
  // Buffers are the host's business (tfm-gpu-place-buffers), except those a
  // tile loop allocates, which become the block's shared memory.
  WalkResult nestedAlloc = func.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::AllocaOp>(op) &&
        !isa<func::FuncOp>(op->getParentOp()) &&
        !op->getParentOfType<scf::ForallOp>()) {
      op->emitOpError("allocates a buffer inside control flow outside a "
                      "tile loop, which the GPU mapping does not support");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nestedAlloc.wasInterrupted() || failed(lowerLinalgToLoops(func)))
    return signalPassFailure();

  SmallVector<Operation *> topLevel;
  for (Operation &op : func.getBody().front())
    topLevel.push_back(&op);
  for (Operation *op : topLevel)
    if (failed(mapTopLevelOp(op)))
      return signalPassFailure();
}

/// Keeps the output elements that a reduction loop `loop` (as linalg
/// lowers one: a load of each output element at every step, the combined
/// value stored back) accumulates in registers: each element of `outputs`
/// that the loop's body loads once and stores once, at the same indices,
/// all defined outside the loop, and touches nowhere else, is loaded before
/// the loop, carried as an iteration argument, and stored after it.
/// Returns the loop that replaces `loop` (`loop` itself if nothing is
/// carried). Linalg's semantics make this exact: an output is combined
/// with what its inputs read, which do not alias it. LLVM cannot know that
/// of buffers in global memory, and kept a store to it at every step of
/// every such loop (a LayerNorm's sums, a matmul's `k` loop off the tensor
/// cores).
static scf::ForOp carryOutputsInRegisters(RewriterBase &rewriter,
                                          scf::ForOp loop, ValueRange outputs) {
  // Linalg computes the load's and the store's indices each in the body,
  // from the parallel loops' induction variables: hoisted, they are
  // computed once, and the same computations compare equal.
  moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
  auto sameIndex = [](Value a, Value b) {
    if (a == b)
      return true;
    Operation *defA = a.getDefiningOp(), *defB = b.getDefiningOp();
    return defA && defB && isPure(defA) &&
           OperationEquivalence::isEquivalentTo(
               defA, defB, OperationEquivalence::exactValueMatch,
               /*markEquivalent=*/nullptr,
               OperationEquivalence::IgnoreLocations);
  };
  SmallVector<memref::LoadOp> loads;
  SmallVector<memref::StoreOp> stores;
  Block *body = loop.getBody();
  for (Value output : llvm::SetVector<Value>(llvm::from_range, outputs)) {
    memref::LoadOp load;
    memref::StoreOp store;
    bool carried = true;
    for (Operation *user : output.getUsers()) {
      if (!loop->isProperAncestor(user))
        continue;
      auto userLoad = dyn_cast<memref::LoadOp>(user);
      auto userStore = dyn_cast<memref::StoreOp>(user);
      if (userLoad && !load && userLoad->getBlock() == body &&
          userLoad.getMemRef() == output)
        load = userLoad;
      else if (userStore && !store && userStore->getBlock() == body &&
               userStore.getMemRef() == output)
        store = userStore;
      else
        carried = false;
    }
    if (!carried || !load || !store || !load->isBeforeInBlock(store) ||
        !llvm::equal(load.getIndices(), store.getIndices(), sameIndex) ||
        !llvm::all_of(load.getIndices(), [&](Value index) {
          return loop.isDefinedOutsideOfLoop(index);
        }))
      continue;
    loads.push_back(load);
    stores.push_back(store);
  }
  if (loads.empty())
    return loop;

  rewriter.setInsertionPoint(loop);
  SmallVector<Value> inits;
  for (memref::LoadOp load : loads)
    inits.push_back(rewriter.clone(*load)->getResult(0));
  FailureOr<LoopLikeOpInterface> replaced = loop.replaceWithAdditionalYields(
      rewriter, inits, /*replaceInitOperandUsesInLoop=*/false,
      [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
        return llvm::map_to_vector(
            stores, [](memref::StoreOp store) { return store.getValue(); });
      });
  if (failed(replaced))
    return loop;
  auto carrying = cast<scf::ForOp>(replaced->getOperation());
  unsigned first = carrying.getNumRegionIterArgs() - loads.size();
  rewriter.setInsertionPointAfter(carrying);
  for (auto [i, load, store] : llvm::enumerate(loads, stores)) {
    rewriter.replaceOp(load, carrying.getRegionIterArgs()[first + i]);
    memref::StoreOp::create(rewriter, store.getLoc(),
                            carrying.getResult(first + i), store.getMemRef(),
                            store.getIndices());
    rewriter.eraseOp(store);
  }
  return carrying;
}

/// Copies become linalg.copy, and every linalg op becomes loops: parallel
/// loops over its parallel dimensions around sequential ones over its
/// reductions. A copy of a buffer onto itself (bufferization leaves one
/// where a loop's state is updated in place: flash attention's accumulator,
/// maxima and sums at every key block) is dropped: it would cost a pass of
/// the block's threads over the buffer and a barrier.
LogicalResult TfmMapToGpuPass::lowerLinalgToLoops(func::FuncOp func) {
  IRRewriter rewriter(func.getContext());
  SmallVector<memref::CopyOp> copies;
  func.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    if (copy.getSource() == copy.getTarget()) {
      rewriter.eraseOp(copy);
      continue;
    }
    rewriter.setInsertionPoint(copy);
    linalg::CopyOp::create(rewriter, copy.getLoc(),
                           ValueRange{copy.getSource()},
                           ValueRange{copy.getTarget()});
    rewriter.eraseOp(copy);
  }

  findCarriedLoops(func);
  foldAccumulatorFills(func);
  markFragmentEpilogues(func);

  SmallVector<linalg::LinalgOp> linalgOps;
  func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
  for (linalg::LinalgOp op : linalgOps) {
    if (!op.hasPureBufferSemantics())
      return op.emitOpError("cannot be mapped to the GPU before "
                            "bufferization");
    // Left whole for distributeOverThreads, which emits the warps' code
    // (and applies updates of accumulators kept in registers to their
    // fragments) and the asynchronous copies.
    if (runsOnTensorCores(op) || op->hasAttr(kAccumulatorUpdateAttrName) ||
        op->hasAttr(kFragmentEpilogueAttrName))
      continue;
    if (auto copy = dyn_cast<linalg::CopyOp>(op.getOperation());
        copy && getAsyncStaging(copy))
      continue;
    // An op without parallel dimensions (a full reduction, a 0-d fill)
    // lowers to sequential loads and stores: one thread runs them.
    if (op.getNumParallelLoops() == 0 && isa<func::FuncOp>(op->getParentOp())) {
      OpBuilder b(op);
      Value one = constantIndex(b, op.getLoc(), 1);
      gpu::LaunchOp launch = createLaunch(b, op.getLoc(), {one}, one);
      op->moveBefore(launch.getBody().front().getTerminator());
    }
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::LinalgLoops> loops =
        linalg::linalgOpToParallelLoops(rewriter, op);
    if (failed(loops))
      return op.emitOpError("cannot be lowered to loops for the GPU");
    // A row reduction's rows are split over lanes where it is mapped
    // (RowReduction.h); the mark survives the cloning of a tile's body.
    if (isRowReduction(op) && !loops->empty() &&
        isa<scf::ParallelOp>(loops->front()))
      loops->front()->setAttr(kRowReductionAttrName, rewriter.getUnitAttr());
    // The reduction loops, innermost first: what one carries, its parent's
    // body loads before it and stores after it.
    SmallVector<Value> outputs = op.getDpsInits();
    for (Operation *loop : llvm::reverse(*loops))
      if (auto reduction = dyn_cast<scf::ForOp>(loop))
        carryOutputsInRegisters(rewriter, reduction, outputs);
    rewriter.eraseOp(op);
  }
  // The loops load every operand, the outputs of elementwise ops included;
  // dropping the unused loads shows which buffers are only written.
  func.walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  });
  return success();
}

/// Whether `op`, a contraction of a block tile, is computed by warps of
/// tensor-core instructions.
bool TfmMapToGpuPass::runsOnTensorCores(linalg::LinalgOp op) const {
  if (!tensorCores || !op->getParentOfType<scf::ForallOp>())
    return false;
  if (emulateWarps ? blockSize != 1 : blockSize % 32 != 0)
    return false;
  return matchMmaContraction(op, tf32).has_value();
}

/// The elements each cp.async of `copy` moves if it stages an operand in
/// a block buffer (shared memory) asynchronously, else 0. Asynchronous
/// copies come with the tensor cores (both sm_80 and up).
int64_t TfmMapToGpuPass::getAsyncStaging(linalg::CopyOp copy) const {
  if (!tensorCores || (emulateWarps && blockSize != 1))
    return 0;
  auto forall = copy->getParentOfType<scf::ForallOp>();
  if (!forall)
    return 0;
  // A block buffer, or any of a pipelined operand's (chosen by a chain of
  // selects).
  SmallVector<Operation *> buffers = getBlockBuffers(forall);
  SmallVector<Value> targets{getRootBuffer(copy.getOutputs()[0])};
  while (!targets.empty()) {
    Value target = targets.pop_back_val();
    if (auto select = target.getDefiningOp<arith::SelectOp>()) {
      targets.push_back(getRootBuffer(select.getTrueValue()));
      targets.push_back(getRootBuffer(select.getFalseValue()));
      continue;
    }
    if (!target.getDefiningOp() ||
        !llvm::is_contained(buffers, target.getDefiningOp()))
      return 0;
  }
  return getAsyncCopyElements(copy);
}

LogicalResult TfmMapToGpuPass::mapTopLevelOp(Operation *op) {
  if (auto forall = dyn_cast<scf::ForallOp>(op))
    return mapBlockLoop(forall);
  if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
    if (loop.getNumReductions() != 0)
      return loop.emitOpError("with reductions cannot be mapped to the GPU");
    mapParallelLoop(loop);
    return success();
  }
  // Buffers, constants and their lifetimes stay on the host, for
  // tfm-gpu-place-buffers.
  if (isa<gpu::GPUDialect>(op->getDialect()) ||
      isa<func::ReturnOp, memref::GetGlobalOp, memref::AllocOp,
          memref::AllocaOp, memref::DeallocOp>(op) ||
      !touchesMemory(op))
    return success();
  // A 0-d load whose value the host needs (a run-time check's flag) stays
  // on the host; tfm-gpu-place-buffers copies its buffer back first.
  if (auto load = dyn_cast<memref::LoadOp>(op);
      load && load.getMemRefType().getRank() == 0)
    return success();
  if (!writesMemory(op) || op->getNumResults() != 0) {
    // A read of device memory whose value the host needs.
    return op->emitOpError(
        "reads device memory on the host, which the GPU mapping does not "
        "support");
  }
  mapSequentialOp(op);
  return success();
}

/// The row reduction `loop` is, split over lanes, if it is one and the
/// block's threads come in whole warps (or there is one thread, which runs
/// the lanes one after another: the CPU emulation).
std::optional<RowReductionLoop>
TfmMapToGpuPass::getLaneSplit(scf::ParallelOp loop) const {
  if (!loop->hasAttr(kRowReductionAttrName) ||
      (blockSize != 1 && blockSize % 32 != 0))
    return std::nullopt;
  return matchRowReductionLoop(loop);
}

/// Iteration `linear` of the lanes of `reduction`'s rows (`rows` of them,
/// `space`): lane `linear` mod lanes of row `linear` / lanes, where a lane
/// past the last row works on the last (every lane of a warp takes part in
/// the shuffles) and stores nothing.
void TfmMapToGpuPass::emitLaneIteration(OpBuilder &b,
                                        const RowReductionLoop &reduction,
                                        const IterationSpace &space,
                                        Value linear) const {
  Location loc = linear.getLoc();
  Value lanes = constantIndex(b, loc, reduction.lanes);
  Value row = arith::DivUIOp::create(b, loc, linear, lanes);
  Value lane = arith::RemUIOp::create(b, loc, linear, lanes);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row,
                                         space.total);
  Value last =
      arith::SubIOp::create(b, loc, space.total, constantIndex(b, loc, 1));
  Value clamped = arith::SelectOp::create(b, loc, inBounds, row, last);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                                      constantIndex(b, loc, 0));
  Value store = arith::AndIOp::create(b, loc, inBounds, first);
  emitRowReductionLane(b, reduction, delinearize(b, loc, space, clamped), lane,
                       store);
}

/// The iterations that run `space`: one a point, or, for a row reduction
/// split over lanes on the GPU, one a lane, rounded up to whole warps.
Value TfmMapToGpuPass::getIterations(
    OpBuilder &b, Location loc, const IterationSpace &space,
    const std::optional<RowReductionLoop> &split) const {
  if (!split || blockSize == 1)
    return space.total;
  Value lanes = arith::MulIOp::create(b, loc, space.total,
                                      constantIndex(b, loc, split->lanes));
  Value warp = constantIndex(b, loc, 32);
  return arith::MulIOp::create(
      b, loc, arith::CeilDivUIOp::create(b, loc, lanes, warp), warp);
}

/// Iteration `linear` (of getIterations) of `loop`, whose points are
/// `space`: the body at its point; for a row reduction split over lanes,
/// the lane's iteration (emitLaneIteration), or, in the emulation, all
/// lanes of the row one after another.
void TfmMapToGpuPass::emitIteration(
    OpBuilder &b, scf::ParallelOp loop,
    const std::optional<RowReductionLoop> &split, const IterationSpace &space,
    Value linear) const {
  if (split && blockSize != 1)
    return emitLaneIteration(b, *split, space, linear);
  SmallVector<Value> ivs = delinearize(b, linear.getLoc(), space, linear);
  if (split)
    emitEmulatedRowReduction(b, *split, ivs);
  else
    cloneLoopBody(b, loop, ivs);
}

/// One thread per iteration, `blockSize` threads per block; a row
/// reduction's rows split over lanes (RowReduction.h).
void TfmMapToGpuPass::mapParallelLoop(scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  IterationSpace space = getIterationSpace(
      b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
  std::optional<RowReductionLoop> split = getLaneSplit(loop);
  Value threads = constantIndex(b, loc, blockSize);
  Value iterations = getIterations(b, loc, space, split);
  Value blocks = arith::CeilDivUIOp::create(b, loc, iterations, threads);
  gpu::LaunchOp launch = createLaunch(b, loc, {blocks}, threads);

  Value block = launch.getBlockIds().x, thread = launch.getThreadIds().x;
  Value linear = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, block, threads), thread);
  // Lanes of split rows: every thread of the blocks (whole warps), past the
  // last row too (emitLaneIteration); other iterations: those in bounds.
  if (!split || blockSize == 1) {
    Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           linear, space.total);
    auto guard = scf::IfOp::create(b, loc, inBounds, /*withElse=*/false);
    b.setInsertionPointToStart(&guard.getThenRegion().front());
  }
  emitIteration(b, loop, split, space, linear);
  loop.erase();
}

/// Sequential code that writes device memory: one thread.
void TfmMapToGpuPass::mapSequentialOp(Operation *op) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  gpu::LaunchOp launch = createLaunch(b, loc, {constantIndex(b, loc, 1)},
                                      constantIndex(b, loc, 1));
  op->moveBefore(launch.getBody().front().getTerminator());
}

/// One block per iteration of `forall`; its body distributed over the
/// block's threads, its buffers carved out of the block's dynamic shared
/// memory.
LogicalResult TfmMapToGpuPass::mapBlockLoop(scf::ForallOp forall) {
  if (forall.getRank() > 3)
    return forall.emitOpError("has ")
           << forall.getRank() << " dimensions; a GPU grid has at most 3";
  if (!forall.getOutputs().empty())
    return forall.emitOpError("cannot be mapped to the GPU before "
                              "bufferization");
  // A grid's y and z dimensions hold at most 65535 blocks.
  for (int64_t d = 1, e = forall.getRank(); d < e; ++d) {
    std::optional<int64_t> lb =
        getConstantIntValue(forall.getMixedLowerBound()[d]);
    std::optional<int64_t> ub =
        getConstantIntValue(forall.getMixedUpperBound()[d]);
    std::optional<int64_t> step = getConstantIntValue(forall.getMixedStep()[d]);
    if (!lb || !ub || !step || *step <= 0)
      continue;
    int64_t count = llvm::divideCeil(*ub - *lb, *step);
    if (count > 65535)
      return forall.emitOpError("has ")
             << count << " iterations in dimension " << d
             << ", more than the 65535 blocks a GPU grid has there";
  }

  // Lay the block's buffers out in shared memory, 16-byte aligned (not the
  // output of a contraction that stores through its epilogue: nothing
  // touches it).
  SmallVector<Operation *> buffers = getBlockBuffers(forall);
  llvm::erase_if(buffers, [](Operation *buffer) {
    return buffer->hasAttr(kFragmentEpilogueAttrName);
  });
  SmallVector<int64_t> offsets;
  int64_t sharedBytes = 0;
  for (Operation *buffer : buffers) {
    auto type = cast<MemRefType>(buffer->getResult(0).getType());
    if (!fitsSharedMemory(type))
      return buffer->emitOpError(
          "allocates a buffer of dynamic shape inside a GPU block; only "
          "static tiles can live in shared memory");
    offsets.push_back(sharedBytes);
    sharedBytes +=
        llvm::alignTo(type.getNumElements() * getElementBytes(type), 16);
    if (sharedBytes > sharedMemoryBytes)
      return buffer->emitOpError("needs ")
             << sharedBytes << " bytes of shared memory per block, more "
             << "than the " << static_cast<int64_t>(sharedMemoryBytes)
             << " available; use smaller tiles";
  }

  Location loc = forall.getLoc();
  OpBuilder b(forall);
  SmallVector<Value> lbs =
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedLowerBound());
  SmallVector<Value> ubs =
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedUpperBound());
  SmallVector<Value> steps =
      getValueOrCreateConstantIndexOp(b, loc, forall.getMixedStep());
  IterationSpace space = getIterationSpace(b, loc, lbs, ubs, steps);
  Value dynamicShared = nullptr;
  if (sharedBytes > 0)
    dynamicShared =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), sharedBytes);
  gpu::LaunchOp launch = createLaunch(
      b, loc, space.counts, constantIndex(b, loc, blockSize), dynamicShared);

  // The forall's induction variables are the block ids.
  gpu::KernelDim3 ids = launch.getBlockIds();
  Value blockIds[3] = {ids.x, ids.y, ids.z};
  IRMapping mapping;
  for (int64_t d = 0, e = forall.getRank(); d < e; ++d) {
    Value offset = arith::MulIOp::create(b, loc, blockIds[d], steps[d]);
    mapping.map(forall.getInductionVar(d),
                arith::AddIOp::create(b, loc, lbs[d], offset));
  }
  Block *body = b.getInsertionBlock();
  for (Operation &op : forall.getBody()->without_terminator())
    b.clone(op, mapping);
  forall.erase();

  // Each buffer is a view of the shared memory at its offset, cast to the
  // generic address space so that its users keep their types (generic
  // loads reach shared memory; LLVM's address-space inference turns them
  // into ld.shared where it can).
  if (!buffers.empty()) {
    b.setInsertionPointToStart(body);
    auto workgroup = gpu::AddressSpaceAttr::get(
        b.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
    Value shared = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(), workgroup));
    for (auto [buffer, offset] : llvm::zip(buffers, offsets)) {
      Operation *clone = mapping.lookup(buffer->getResult(0)).getDefiningOp();
      auto type = cast<MemRefType>(clone->getResult(0).getType());
      auto sharedType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
      Value view = memref::ViewOp::create(
          b, clone->getLoc(), sharedType, shared,
          constantIndex(b, clone->getLoc(), offset), ValueRange{});
      Value generic =
          memref::MemorySpaceCastOp::create(b, clone->getLoc(), type, view);
      clone->getResult(0).replaceAllUsesWith(generic);
      clone->erase();
    }
    // A pipelined operand's buffer for the step is chosen among the
    // shared-memory views (a chain of selects, innermost first), so that
    // cp.async and ldmatrix still find shared memory behind it
    // (getSharedBuffer).
    SmallVector<arith::SelectOp> selects;
    body->walk([&](arith::SelectOp select) { selects.push_back(select); });
    for (arith::SelectOp select : selects) {
      auto onTrue =
          select.getTrueValue().getDefiningOp<memref::MemorySpaceCastOp>();
      auto onFalse =
          select.getFalseValue().getDefiningOp<memref::MemorySpaceCastOp>();
      if (!onTrue || !onFalse ||
          onTrue.getSource().getType() != onFalse.getSource().getType())
        continue;
      b.setInsertionPoint(select);
      Value shared =
          arith::SelectOp::create(b, select.getLoc(), select.getCondition(),
                                  onTrue.getSource(), onFalse.getSource());
      Value generic = memref::MemorySpaceCastOp::create(
          b, select.getLoc(), select.getType(), shared);
      select.getResult().replaceAllUsesWith(generic);
      select.erase();
    }
  }
  return distributeOverThreads(*body, launch);
}

/// Rewrites the block-level code in `block` (executed by every thread of
/// the block, with uniform control flow) so that each parallel loop is
/// spread over the threads, each other write happens once, and shared
/// buffers live in shared memory. A barrier separates every distributed
/// piece from what comes before and after it.
LogicalResult TfmMapToGpuPass::distributeOverThreads(Block &block,
                                                     gpu::LaunchOp launch) {
  Value thread = launch.getThreadIds().x;
  auto barrierAround = [&](OpBuilder &b, Operation *op, Location loc) {
    insertBarrierBefore(b, op);
    b.setInsertionPointAfter(op);
    gpu::BarrierOp::create(b, loc);
  };
  // Whether the last op mapped was a staging whose copies are not waited
  // for yet: the next copy joins them (only index arithmetic and views lie
  // between); and whether all the run's copies are prefetches.
  bool stagingRun = false, prefetchRun = false;

  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  for (Operation *op : ops) {
    Location loc = op->getLoc();
    OpBuilder b(op);

    if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
      if (loop.getNumReductions() != 0)
        return loop.emitOpError("with reductions cannot be mapped to GPU "
                                "threads");
      // for (i = thread; i < total; i += blockSize) body(delinearize(i)),
      // a row reduction's rows split over lanes: i over the rows' lanes,
      // rounded up to whole warps.
      IterationSpace space = getIterationSpace(
          b, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep());
      std::optional<RowReductionLoop> split = getLaneSplit(loop);
      Value iterations = getIterations(b, loc, space, split);
      auto strided = scf::ForOp::create(b, loc, thread, iterations,
                                        constantIndex(b, loc, blockSize));
      b.setInsertionPointToStart(strided.getBody());
      emitIteration(b, loop, split, space, strided.getInductionVar());
      loop.erase();
      barrierAround(b, strided, loc);
      continue;
    }
    if (auto copy = dyn_cast<linalg::CopyOp>(op)) {
      // Only the copies staged asynchronously are still linalg ops. Copies
      // that follow one another (a chunk's A and B) are issued together:
      // one barrier before the first, one wait and one barrier after the
      // last, so that their loads are in flight at the same time.
      // A run of prefetches (copies for a later step, tfm.prefetch = the
      // steps ahead) is committed as one group and not waited for: the
      // product that reads their buffers waits (below). Before a pipelined
      // loop, each step's copies are a group of their own.
      auto ahead = copy->getAttrOfType<IntegerAttr>(kPrefetchAttrName);
      bool prefetch = static_cast<bool>(ahead);
      Operation *staging =
          emitAsyncCopy(b, copy, getAsyncCopyElements(copy), thread, blockSize,
                        /*emulated=*/emulateWarps, /*commit=*/!prefetch);
      Operation *next = op->getNextNode();
      while (next && isMemoryEffectFree(next))
        next = next->getNextNode();
      op->erase();
      if (!stagingRun) {
        insertBarrierBefore(b, staging);
        prefetchRun = true;
      }
      prefetchRun = prefetchRun && prefetch;
      auto nextCopy = dyn_cast_or_null<linalg::CopyOp>(next);
      auto nextAhead =
          nextCopy ? nextCopy->getAttrOfType<IntegerAttr>(kPrefetchAttrName)
                   : IntegerAttr();
      stagingRun = nextCopy && !(ahead && nextAhead && ahead != nextAhead);
      if (stagingRun)
        continue;
      b.setInsertionPointAfter(staging);
      if (prefetchRun) {
        if (!emulateWarps) {
          prefetchGroup = emitAsyncCommit(b, loc);
          prefetchAhead = ahead.getInt();
        }
        continue;
      }
      // The last of the run: each thread waits for its copies, then the
      // barrier makes them visible to the block.
      if (!emulateWarps)
        emitAsyncWait(b, loc);
      gpu::BarrierOp::create(b, loc);
      continue;
    }
    if (kept && kept->ops.contains(op) && isa<linalg::GenericOp>(op)) {
      // An update of the accumulators kept in registers (a flash
      // attention's rescale): each lane applies it to its fragments,
      // reading its inputs once what wrote them is done.
      insertBarrierBefore(b, op);
      b.setInsertionPoint(op);
      kept->fragments = kept->accumulators->update(
          b, cast<linalg::GenericOp>(op), kept->fragments);
      kept->ops.erase(op);
      op->erase();
      continue;
    }
    if (op->hasAttr(kFragmentEpilogueAttrName) && !getFragmentEpilogue(op)) {
      // An epilogue, which the product before it applied as its warps
      // stored their fragments, and the product's output, which nothing
      // touches: it goes with its epilogue.
      if (isa<memref::AllocaOp>(op))
        continue;
      if (!appliedEpilogues.erase(op))
        return op->emitOpError("was to be applied to a tensor-core product's "
                               "fragments, but the product did not apply it");
      SmallVector<Operation *> unused;
      for (Value input : cast<linalg::GenericOp>(op).getDpsInputs())
        if (auto alloca = input.getDefiningOp<memref::AllocaOp>();
            alloca && alloca->hasAttr(kFragmentEpilogueAttrName))
          unused.push_back(alloca);
      op->erase();
      for (Operation *alloca : unused)
        if (alloca->use_empty())
          alloca->erase();
      continue;
    }
    if (auto contraction = dyn_cast<linalg::LinalgOp>(op)) {
      // Only the tensor cores' contractions (and the updates above) are
      // still linalg ops: every
      // thread runs the code, each warp its own instruction tiles.
      std::optional<MmaContraction> match =
          matchMmaContraction(contraction, tf32);
      assert(match && "a contraction left for the tensor cores");
      // A pipelined operand's copies were prefetched steps earlier (or
      // before the loop): each thread waits for all its groups but the
      // newest `prefetchAhead` (the next steps'), then the barrier.
      // (Waiting for all, where the prefetches were not issued in this
      // block, is slower but as correct.)
      if (readsPrefetchedBuffer(contraction)) {
        if (!emulateWarps) {
          if (prefetchGroup && prefetchGroup.getParentBlock() == &block)
            emitAsyncWaitAllBut(b, loc, prefetchGroup, prefetchAhead);
          else
            emitAsyncWait(b, loc);
        }
        gpu::BarrierOp::create(b, loc);
      }
      if (kept && kept->ops.erase(op)) {
        // A step of a loop that carries the accumulators: the product
        // only, into the fragments. No barrier after: what next writes
        // shared memory (the next step's staging) starts with one.
        kept->fragments = kept->accumulators->accumulate(b, contraction, *match,
                                                         kept->fragments);
        op->erase();
        continue;
      }
      linalg::GenericOp epilogue = getFragmentEpilogue(op);
      if (epilogue)
        appliedEpilogues.insert(epilogue);
      Operation *warps =
          emulateWarps ? emitEmulatedWarpMma(b, contraction, *match, epilogue)
                       : emitWarpMma(b, contraction, *match, thread, blockSize,
                                     unrollSteps, epilogue);
      op->erase();
      barrierAround(b, warps, loc);
      continue;
    }
    // A loop that prefetches issues, at its last step, copies that no
    // step reads: they are waited for after it.
    if (auto loop = dyn_cast<scf::ForOp>(op);
        loop && !emulateWarps && prefetches(loop)) {
      b.setInsertionPointAfter(loop);
      emitAsyncWait(b, loc);
    }
    if (auto loop = dyn_cast<scf::ForOp>(op);
        loop && loop->hasAttr(kCarriedLoopAttrName)) {
      if (failed(mapCarriedLoop(loop, launch)))
        return failure();
      continue;
    }
    bool holdsParallelWork = false;
    op->walk([&](Operation *nested) {
      if (nested != op && isa<scf::ParallelOp, linalg::LinalgOp>(nested))
        holdsParallelWork = true;
    });
    if (holdsParallelWork) {
      // Uniform control flow (the key-tile loop, the causal skip): the
      // threads run it together and share the work inside.
      if (!isa<scf::ForOp, scf::IfOp>(op))
        return op->emitOpError("holds parallel loops but cannot be mapped "
                               "to GPU threads");
      auto ifOp = dyn_cast<scf::IfOp>(op);
      if (kept && ifOp && !kept->fragments.empty()) {
        if (failed(distributeCarryingFragments(ifOp, launch)))
          return failure();
        continue;
      }
      for (Region &region : op->getRegions())
        for (Block &nested : region)
          if (failed(distributeOverThreads(nested, launch)))
            return failure();
      continue;
    }
    if (!writesMemory(op))
      continue;
    if (op->getNumResults() != 0)
      return op->emitOpError("writes memory and returns a value inside a GPU "
                             "block, which the GPU mapping cannot "
                             "distribute");
    // Any other write: once, by thread 0.
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          thread, constantIndex(b, loc, 0));
    auto guard = scf::IfOp::create(b, loc, isFirst, /*withElse=*/false);
    op->moveBefore(guard.getThenRegion().front().getTerminator());
    barrierAround(b, guard, loc);
  }
  return success();
}

/// The views `value` is made by in `loop`, outermost first, if each can
/// be made before it (its other operands defined outside it); else none.
static std::optional<SmallVector<Operation *>>
getInvariantViews(Value value, scf::ForOp loop) {
  SmallVector<Operation *> views;
  while (!loop.isDefinedOutsideOfLoop(value)) {
    Operation *def = value.getDefiningOp();
    auto view = dyn_cast_or_null<ViewLikeOpInterface>(def);
    if (!view || !isMemoryEffectFree(def) || def->getBlock() != loop.getBody())
      return std::nullopt;
    for (Value operand : def->getOperands())
      if (operand != view.getViewSource() &&
          !loop.isDefinedOutsideOfLoop(operand))
        return std::nullopt;
    views.push_back(def);
    value = view.getViewSource();
  }
  return SmallVector<Operation *>(llvm::reverse(views));
}

/// The contraction of a loop that findCarriedLoops marked.
static linalg::LinalgOp getCarriedContraction(scf::ForOp loop) {
  linalg::LinalgOp contraction;
  loop.getBody()->walk([&](linalg::LinalgOp op) {
    if (op->hasAttr(kCarriedContractionAttrName))
      contraction = op;
  });
  return contraction;
}

/// Finds the loops whose warps can keep a tensor-core contraction's
/// accumulators in registers from step to step: a loop in
/// a tile with one such contraction in its body, into a buffer of the
/// tile (a view of it the loop can make before it starts), which nothing
/// else in the loop touches except ops that update it element by element
/// (WarpAccumulators::canUpdate: a flash attention's rescale by each row's
/// correction at every key block), and each warp owning the same number
/// of its warp tiles. The contraction and its updates may be in a branch
/// directly in the loop (the skip of a key block). A reduction's chunks
/// (the staging and the product) and flash attention's key blocks are
/// such loops. Moves the accumulator's view before each loop found, and
/// marks the loop (kCarriedLoopAttrName), its contraction
/// (kCarriedContractionAttrName) and its updates
/// (kAccumulatorUpdateAttrName): the marks survive the cloning of the
/// tile's body into its launch.
void TfmMapToGpuPass::findCarriedLoops(func::FuncOp func) {
  if (!tensorCores)
    return;
  auto mark = [&](scf::ForOp loop) {
    if (loop.getNumRegionIterArgs() != 0 ||
        !loop->getParentOfType<scf::ForallOp>())
      return;
    // The one contraction accumulating across steps (a flash attention's
    // P V; its Q K^T starts afresh in a buffer of the step), in the loop's
    // body or in a branch directly in it (the skip of a key block past the
    // valid length, or above the causal diagonal).
    SmallVector<Block *> blocks{loop.getBody()};
    for (auto ifOp : loop.getBody()->getOps<scf::IfOp>())
      if (ifOp.getNumResults() == 0)
        for (Region &region : ifOp->getRegions())
          if (!region.empty())
            blocks.push_back(&region.front());
    linalg::LinalgOp contraction;
    std::optional<SmallVector<Operation *>> views;
    for (Block *block : blocks)
      for (Operation &op : block->without_terminator()) {
        auto linalgOp = dyn_cast<linalg::LinalgOp>(&op);
        if (!linalgOp || !runsOnTensorCores(linalgOp))
          continue;
        std::optional<SmallVector<Operation *>> outputViews =
            getInvariantViews(linalgOp.getDpsInitOperand(0)->get(), loop);
        if (!outputViews)
          continue;
        if (contraction)
          return;
        contraction = linalgOp;
        views = std::move(outputViews);
      }
    if (!contraction)
      return;
    std::optional<MmaContraction> match =
        matchMmaContraction(contraction, tf32);
    Value output = contraction.getDpsInitOperand(0)->get();
    if (!match || !WarpAccumulators::canKeep(*match, blockSize))
      return;
    // Nothing else touches the accumulators but updates beside the
    // contraction, in its block.
    Value buffer = getBufferOf(output);
    Block *block = contraction->getBlock();
    Operation *branch =
        block == loop.getBody() ? nullptr : block->getParentOp();
    SmallVector<Operation *> updates;
    auto leavesAlone = [&](Block &ops, bool mayUpdate) {
      for (Operation &op : ops.without_terminator()) {
        if (&op == branch || &op == contraction.getOperation() ||
            llvm::is_contained(*views, &op) || !mayTouchBuffer(&op, buffer))
          continue;
        auto update = dyn_cast<linalg::GenericOp>(&op);
        if (!mayUpdate || !update ||
            !WarpAccumulators::canUpdate(update, output, *match) ||
            llvm::any_of(update.getDpsInputs(), [&](Value input) {
              return isa<MemRefType>(input.getType()) &&
                     getBufferOf(input) == buffer;
            }))
          return false;
        updates.push_back(update);
      }
      return true;
    };
    if (!leavesAlone(*loop.getBody(), /*mayUpdate=*/!branch))
      return;
    if (branch)
      for (Region &region : branch->getRegions())
        for (Block &other : region)
          if (!leavesAlone(other, /*mayUpdate=*/&other == block))
            return;
    for (Operation *view : *views)
      view->moveBefore(loop);
    UnitAttr unit = UnitAttr::get(loop.getContext());
    loop->setAttr(kCarriedLoopAttrName, unit);
    contraction->setAttr(kCarriedContractionAttrName, unit);
    for (Operation *update : updates)
      update->setAttr(kAccumulatorUpdateAttrName, unit);
  };
  // Collected first: marking moves views out of the loops.
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    mark(loop);
}

/// Drops each fill of a tile's buffer whose next access is a tensor-core
/// contraction accumulating into that buffer (the same view), directly or
/// as the contraction of a carried loop (findCarriedLoops): the
/// contraction's warps start their fragments from the fill's value
/// (kAccumulatorInitAttrName) instead of loading what the fill stored, and
/// the block no longer passes over the buffer to fill it. Flash
/// attention's score tile at every key block, its output's accumulator
/// (a view of all of the filled buffer, without its unit dimension) and a
/// product tile's accumulator are such fills. Only ops that neither read
/// nor write the buffer (the step's staging, the fills of flash attention's
/// row maxima and sums) may lie between.
void TfmMapToGpuPass::foldAccumulatorFills(func::FuncOp func) {
  if (!tensorCores)
    return;
  SmallVector<linalg::FillOp> fills;
  func.walk([&](linalg::FillOp fill) {
    if (fill->getParentOfType<scf::ForallOp>() && fill.hasPureBufferSemantics())
      fills.push_back(fill);
  });
  for (linalg::FillOp fill : fills) {
    Value output = fill.getDpsInitOperand(0)->get();
    FloatAttr value;
    if (!matchPattern(fill.value(), m_Constant(&value)) ||
        !value.getType().isF32())
      continue;
    Value buffer = getBufferOf(output);
    Operation *next = getNextEffectfulOp(fill);
    while (next && !mayTouchBuffer(next, buffer))
      next = getNextEffectfulOp(next);
    linalg::LinalgOp contraction;
    if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(next);
        linalgOp && runsOnTensorCores(linalgOp))
      contraction = linalgOp;
    if (auto loop = dyn_cast_or_null<scf::ForOp>(next);
        loop && loop->hasAttr(kCarriedLoopAttrName))
      contraction = getCarriedContraction(loop);
    // The same elements: flash attention fills its 1 x rows x columns
    // accumulator, and its product accumulates into a rows x columns view.
    if (!contraction ||
        getWholeBuffer(contraction.getDpsInitOperand(0)->get()) !=
            getWholeBuffer(output) ||
        contraction->hasAttr(kAccumulatorInitAttrName))
      continue;
    contraction->setAttr(kAccumulatorInitAttrName, value);
    fill->erase();
  }
}

/// Marks the elementwise op that directly follows a tensor-core
/// contraction (not one a loop carries) and is the only reader of its
/// output, where the warps can apply it to their fragments as they store
/// them (canFuseEpilogue): flash attention's scaling of the scores at every
/// key block, a bias, an activation or a cast of a product whose reduction
/// is one chunk. The block then neither stores the product into its tile
/// (a shared-memory buffer) nor passes over the tile again behind a
/// barrier. Nothing touches the product's output any more: it becomes a
/// thread-local buffer that takes no shared memory and that LLVM drops.
/// The ops between the two (which touch no memory: index arithmetic, a
/// constant the epilogue reads, the allocation of its output) move before
/// the contraction, where the epilogue is applied.
void TfmMapToGpuPass::markFragmentEpilogues(func::FuncOp func) {
  if (!tensorCores)
    return;
  // Each product, or the loop that carries its fragments (whose fragments
  // are stored after it), with that contraction.
  SmallVector<std::pair<Operation *, linalg::LinalgOp>> products;
  func.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op);
        loop && loop->hasAttr(kCarriedLoopAttrName))
      products.push_back({loop, getCarriedContraction(loop)});
    else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
             linalgOp && runsOnTensorCores(linalgOp) &&
             !linalgOp->hasAttr(kCarriedContractionAttrName))
      products.push_back({op, linalgOp});
  });
  UnitAttr unit = UnitAttr::get(func.getContext());
  DominanceInfo dominance(func);
  unsigned marks = 0;
  for (auto [product, contraction] : products) {
    Value output = contraction.getDpsInitOperand(0)->get();
    // The output is an allocation, or a view of all of one (whose only
    // user the view is).
    Value buffer = getWholeBuffer(output);
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    auto epilogue =
        dyn_cast_or_null<linalg::GenericOp>(getNextEffectfulOp(product));
    if (!alloc || !epilogue)
      continue;
    if (buffer != output) {
      if (!llvm::all_of(alloc->getUsers(), [&](Operation *user) {
            return user == output.getDefiningOp() || user == epilogue ||
                   isa<memref::DeallocOp>(user);
          }))
        continue;
      epilogue = dropEpilogueUnitLoops(epilogue, output, dominance);
      if (!epilogue)
        continue;
    }
    // Nothing else may touch the output: in a carried loop, the contraction
    // and the updates work on the fragments, never on the buffer.
    if (!canFuseEpilogue(epilogue, output) ||
        !llvm::all_of(output.getUsers(),
                      [&, product = product](Operation *user) {
                        return user == product || user == epilogue ||
                               product->isProperAncestor(user) ||
                               isa<memref::DeallocOp>(user);
                      }))
      continue;
    // The warps store the epilogue's output while others still read the
    // product's operands and the epilogue's inputs: none may be a view of
    // it.
    Value written = getRootBuffer(epilogue.getDpsInitOperand(0)->get());
    if (llvm::any_of(
            contraction.getDpsInputs(),
            [&](Value input) { return getRootBuffer(input) == written; }) ||
        llvm::any_of(epilogue.getDpsInputs(), [&](Value input) {
          return getRootBuffer(input) == written;
        }))
      continue;
    for (Operation *between = product->getNextNode(); between != epilogue;
         between = product->getNextNode())
      between->moveBefore(product);
    auto mark = IntegerAttr::get(IntegerType::get(func.getContext(), 64),
                                 static_cast<int64_t>(marks++));
    product->setAttr(kFragmentEpilogueAttrName, mark);
    epilogue->setAttr(kFragmentEpilogueAttrName, mark);
    OpBuilder b(alloc);
    auto unused = memref::AllocaOp::create(b, alloc.getLoc(), alloc.getType());
    unused->setAttr(kFragmentEpilogueAttrName, unit);
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.replaceAllUsesWith(unused.getResult());
    alloc.erase();
  }
}

/// Distributes the branches of `ifOp`, in the body of a loop that carries
/// accumulator fragments, as any block code; where a branch updates the
/// fragments (the contraction's step, under the skip of a key block), the
/// branch is rebuilt to yield them: the other branch yields them as they
/// came.
LogicalResult
TfmMapToGpuPass::distributeCarryingFragments(scf::IfOp ifOp,
                                             gpu::LaunchOp launch) {
  SmallVector<Value> before = kept->fragments;
  SmallVector<SmallVector<Value>> after;
  for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
    kept->fragments = before;
    if (!region->empty() &&
        failed(distributeOverThreads(region->front(), launch)))
      return failure();
    after.push_back(kept->fragments);
  }
  kept->fragments = before;
  if (after[0] == before && after[1] == before)
    return success();
  OpBuilder b(ifOp);
  auto carrying =
      scf::IfOp::create(b, ifOp.getLoc(), TypeRange(ValueRange(before)),
                        ifOp.getCondition(), /*withElseRegion=*/true);
  for (auto [from, to, yielded] :
       {std::tuple(&ifOp.getThenRegion(), &carrying.getThenRegion(), after[0]),
        std::tuple(&ifOp.getElseRegion(), &carrying.getElseRegion(),
                   after[1])}) {
    // The new branches are blocks without a terminator yet.
    if (to->empty())
      to->emplaceBlock();
    Block &body = to->front();
    if (!from->empty())
      body.getOperations().splice(body.end(), from->front().getOperations(),
                                  from->front().begin(),
                                  std::prev(from->front().end()));
    b.setInsertionPointToEnd(&body);
    scf::YieldOp::create(b, ifOp.getLoc(), yielded);
  }
  kept->fragments = SmallVector<Value>(carrying.getResults());
  ifOp.erase();
  return success();
}

/// `loop` (marked by findCarriedLoops) rebuilt to carry its contraction's
/// accumulator fragments from step to step: loaded before it, updated and
/// accumulated into by the body, stored after it; the rest of the body
/// distributed as any other block code.
LogicalResult TfmMapToGpuPass::mapCarriedLoop(scf::ForOp loop,
                                              gpu::LaunchOp launch) {
  // The contraction into the accumulators and their updates, as
  // findCarriedLoops marked them.
  linalg::LinalgOp contraction = getCarriedContraction(loop);
  assert(contraction && "a loop marked by findCarriedLoops");
  contraction->removeAttr(kCarriedContractionAttrName);
  SmallVector<Operation *> updates;
  loop.getBody()->walk([&](Operation *op) {
    if (op->hasAttr(kAccumulatorUpdateAttrName))
      updates.push_back(op);
  });
  Location loc = loop.getLoc();
  OpBuilder b(loop);
  // What wrote the accumulators (their fill) is done before they are read.
  insertBarrierBefore(b, loop);
  b.setInsertionPoint(loop);
  std::optional<MmaContraction> match = matchMmaContraction(contraction, tf32);
  WarpAccumulators accumulators(b, contraction, *match, launch.getThreadIds().x,
                                blockSize, emulateWarps, unrollSteps);
  auto carried =
      scf::ForOp::create(b, loc, loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep(), accumulators.getFragments());
  Block *body = carried.getBody();
  if (!body->empty())
    body->back().erase();
  body->getOperations().splice(body->end(), loop.getBody()->getOperations(),
                               loop.getBody()->begin(),
                               std::prev(loop.getBody()->end()));
  loop.getInductionVar().replaceAllUsesWith(carried.getInductionVar());
  b.setInsertionPointToEnd(body);
  auto yield = scf::YieldOp::create(b, loc, carried.getRegionIterArgs());
  b.setInsertionPointAfter(carried);
  linalg::GenericOp epilogue = getFragmentEpilogue(loop);
  if (epilogue) {
    appliedEpilogues.insert(epilogue);
    // The lanes read the epilogue's inputs at their elements' rows and
    // columns: what the block's threads wrote of them in the loop (flash
    // attention's row sums) must be done.
    if (llvm::any_of(epilogue.getDpsInputs(), [&](Value input) {
          Operation *root = getRootBuffer(input).getDefiningOp();
          return root && launch->isAncestor(root) &&
                 !root->hasAttr(kFragmentEpilogueAttrName);
        }))
      gpu::BarrierOp::create(b, loc);
  }
  accumulators.store(b, loc, carried.getResults(), epilogue);
  gpu::BarrierOp::create(b, loc);
  loop.erase();

  KeptState state{
      &accumulators, SmallVector<Value>(carried.getRegionIterArgs()), {}};
  state.ops.insert(contraction);
  state.ops.insert(updates.begin(), updates.end());
  KeptState *outer = std::exchange(kept, &state);
  LogicalResult distributed = distributeOverThreads(*body, launch);
  kept = outer;
  if (failed(distributed))
    return failure();
  assert(state.ops.empty() && "the loop's contraction and updates mapped");
  yield->setOperands(state.fragments);
  return success();
}

} // namespace
