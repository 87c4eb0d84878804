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

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <functional>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUPROMOTEOPERANDS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

/// Moves the ops without memory effects that compute `value` in `loop`'s
/// body from values defined outside it (bufferization views flash
/// attention's query tile anew in every key block) before `loop`; returns
/// whether `value` is then defined outside `loop`.
static bool hoistOutOf(scf::ForOp loop, Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return !loop->isAncestor(value.getParentBlock()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  if (def->getBlock() != loop.getBody() || def->getNumRegions() != 0 ||
      !isMemoryEffectFree(def))
    return false;
  for (Value input : def->getOperands())
    if (!hoistOutOf(loop, input))
      return false;
  def->moveBefore(loop);
  return true;
}

/// Where to stage `operand` of `op` in shared memory: before the outermost
/// loop inside `forall` that does not write the buffer it views and out of
/// which what computes it can be hoisted, so that an operand that does not
/// change from step to step (flash attention's query tile) is copied once
/// rather than at every step.
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
    if (writesRoot(loop) || !hoistOutOf(loop, operand))
      break;
    point = loop;
  }
  return point;
}

/// Stages the operands of the contractions in `forall` that their steps
/// read more than once an element, while the block's buffers fit in
/// `sharedMemoryBytes`, in program order; returns the bytes its buffers
/// take.
static int64_t promoteOperands(scf::ForallOp forall,
                               int64_t sharedMemoryBytes) {
  int64_t used = 0;
  for (Operation *buffer : getBlockBuffers(forall)) {
    auto type = cast<MemRefType>(buffer->getResult(0).getType());
    if (!fitsSharedMemory(type))
      return sharedMemoryBytes; // tfm-map-to-gpu reports it.
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
      // Read once an element (a row reduction's input, each of whose
      // elements one step of one row reads): staging it would only add a
      // copy.
      if (op.getMatchingIndexingMap(input).isPermutation())
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
  return used;
}

/// `value`, computed inside `loop` from its induction variable by ops
/// without memory effects, recomputed at `b`'s insertion point with the
/// induction variable at `at`; null if it takes anything else.
static Value recomputeAt(OpBuilder &b, scf::ForOp loop, Value value, Value at) {
  SetVector<Operation *> slice;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.filter = [&](Operation *op) {
    return op->getBlock() == loop.getBody();
  };
  if (failed(getBackwardSlice(value, &slice, options)) ||
      !llvm::all_of(slice, isMemoryEffectFree))
    return {};
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), at);
  for (Operation *op : slice)
    b.clone(*op, mapping);
  return mapping.lookupOrDefault(value);
}

/// Whether the copies that a loop's body stages (`copies`, in order) are
/// one run: no other linalg op between the first and the last (a
/// reduction's chunk of A and B), so that each step commits them as one
/// group of asynchronous copies.
static bool isOneRun(ArrayRef<linalg::CopyOp> copies) {
  for (Operation *op = copies.front(); op != copies.back();
       op = op->getNextNode())
    if (isa<linalg::LinalgOp>(op) && !isa<linalg::CopyOp>(op))
      return false;
  return true;
}

/// Pipelines what `loop` (two steps or more, static bounds) stages at every
/// step through `stages` buffers each: the buffer it allocates for a copy
/// gets `stages - 1` twins, all allocated before the loop; the copies of
/// the first `stages - 1` steps are issued before the loop, stage by stage,
/// and each step copies the operand of the step `stages - 1` ahead (the
/// last steps their last step's again, so that every step issues the same
/// copies) into the buffer that the step before it read (the step's index
/// modulo `stages` picks the buffers, arith.select). The copies carry
/// kPrefetchAttrName, the number of steps ahead of the loop's current (or
/// first) step that they fetch: tfm-map-to-gpu lets them fly while the step
/// computes and waits for all but that many groups before the step's
/// product. A loop that stages in several runs (flash attention's keys,
/// then after the scores its values: a group each per step) is
/// double-buffered at most; so is one where the buffers do not fit.
static void pipelineStaging(scf::ForOp loop, int64_t stages, int64_t &used,
                            int64_t sharedMemoryBytes) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return;
  int64_t trips = llvm::divideCeil(*ub - *lb, *step);
  if (trips < 2 || stages < 2)
    return;
  int64_t lastStart = *lb + (trips - 1) * *step;
  SmallVector<linalg::CopyOp> copies;
  int64_t bytes = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<linalg::CopyOp>(&op);
    if (!copy)
      continue;
    auto alloc = getRootBuffer(copy.getOutputs()[0])
                     .getDefiningOp<memref::AllocOp>();
    if (!alloc || alloc->getBlock() != loop.getBody() ||
        alloc->getNumOperands() != 0)
      continue;
    copies.push_back(copy);
    bytes += alloc.getType().getNumElements() * getElementBytes(alloc.getType());
  }
  if (copies.empty())
    return;
  stages = std::min(stages, trips);
  if (!isOneRun(copies))
    stages = std::min<int64_t>(stages, 2);
  while (stages > 2 && used + (stages - 1) * bytes > sharedMemoryBytes)
    --stages;
  if (used + (stages - 1) * bytes > sharedMemoryBytes)
    return;
  int64_t ahead = stages - 1;

  Location loc = loop.getLoc();
  OpBuilder b(loop);
  // The step's slot among the buffers, and the start of the step `ahead`
  // steps on (clamped to the last).
  b.setInsertionPointToStart(loop.getBody());
  Value iv = loop.getInductionVar();
  Value next = arith::MinSIOp::create(
      b, loc,
      arith::AddIOp::create(
          b, loc, iv, arith::ConstantIndexOp::create(b, loc, ahead * *step)),
      arith::ConstantIndexOp::create(b, loc, lastStart));
  Value index = arith::DivSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  Value slot = arith::RemSIOp::create(
      b, loc, index, arith::ConstantIndexOp::create(b, loc, stages));
  // slot == k, for k < stages - 1 (the last slot is what is left).
  SmallVector<Value> isSlot;
  for (int64_t k = 0; k + 1 < stages; ++k)
    isSlot.push_back(arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::eq, slot,
        arith::ConstantIndexOp::create(b, loc, k)));
  Operation *lastIndexOp = isSlot.back().getDefiningOp();

  struct Staged {
    linalg::CopyOp copy;
    SmallVector<Value> firstSources;
    Value nextSource;
    SmallVector<Value> buffers;
    std::function<Value(OpBuilder &, Value)> viewOf;
  };
  SmallVector<Staged> staged;
  OpBuilder before(loop);
  for (linalg::CopyOp copy : copies) {
    Value source = copy.getInputs()[0], target = copy.getOutputs()[0];
    auto alloc = getRootBuffer(target).getDefiningOp<memref::AllocOp>();
    // The operand's sources for the first steps and for the step ahead: a
    // source that takes more than view arithmetic leaves the copy as it is
    // (recomputed views left behind are dead, and canonicalized).
    SmallVector<Value> firstSources;
    for (int64_t j = 0; j < ahead; ++j) {
      Value at = arith::ConstantIndexOp::create(before, loc, *lb + j * *step);
      firstSources.push_back(recomputeAt(before, loop, source, at));
    }
    OpBuilder inside(copy);
    Value nextSource = llvm::all_of(firstSources,
                                   [](Value v) { return bool(v); })
                           ? recomputeAt(inside, loop, source, next)
                           : Value();
    if (!nextSource)
      continue;
    alloc->moveBefore(loop);
    SmallVector<Value> buffers{alloc.getResult()};
    for (int64_t j = 1; j < stages; ++j)
      buffers.push_back(before.clone(*alloc)->getResult(0));
    // The views of the buffer that the copy writes (its padded leading
    // part), rebuilt on another buffer.
    SmallVector<Operation *> chain;
    for (Value v = target; v != alloc.getResult();
         v = cast<ViewLikeOpInterface>(v.getDefiningOp()).getViewSource())
      chain.push_back(v.getDefiningOp());
    auto viewOf = [chain, target](OpBuilder &vb, Value buffer) {
      IRMapping mapping;
      mapping.map(chain.empty() ? target : chain.back()->getOperand(0),
                  buffer);
      for (Operation *op : llvm::reverse(chain))
        vb.clone(*op, mapping);
      return mapping.lookupOrDefault(target);
    };
    staged.push_back({copy, firstSources, nextSource, buffers, viewOf});
    used += (stages - 1) * alloc.getType().getNumElements() *
            getElementBytes(alloc.getType());
  }

  // The first steps' copies, a step's together (one group each).
  for (int64_t j = 0; j < ahead; ++j)
    for (Staged &operand : staged) {
      auto first = linalg::CopyOp::create(
          before, loc, ValueRange{operand.firstSources[j]},
          ValueRange{operand.viewOf(before, operand.buffers[j])});
      first->setAttr(kPrefetchAttrName, before.getI64IntegerAttr(j));
    }
  // In each step: the buffer the step reads (slot k: buffers[k]) and the
  // one it fills for the step `ahead` on (buffers[(k + ahead) % stages]).
  b.setInsertionPointAfter(lastIndexOp);
  auto choose = [&](ArrayRef<Value> buffers, int64_t shift,
                    SmallPtrSetImpl<Operation *> &selects) {
    Value chosen = buffers[(stages - 1 + shift) % stages];
    for (int64_t k = stages - 2; k >= 0; --k) {
      chosen = arith::SelectOp::create(b, loc, isSlot[k],
                                       buffers[(k + shift) % stages], chosen);
      selects.insert(chosen.getDefiningOp());
    }
    return chosen;
  };
  for (Staged &operand : staged) {
    SmallPtrSet<Operation *, 4> selects;
    Value current = choose(operand.buffers, 0, selects);
    Value fill = choose(operand.buffers, ahead, selects);
    operand.buffers.front().replaceUsesWithIf(current, [&](OpOperand &use) {
      return loop->isProperAncestor(use.getOwner()) &&
             !selects.contains(use.getOwner());
    });
    OpBuilder inside(operand.copy);
    auto nextCopy = linalg::CopyOp::create(
        inside, loc, ValueRange{operand.nextSource},
        ValueRange{operand.viewOf(inside, fill)});
    nextCopy->setAttr(kPrefetchAttrName, inside.getI64IntegerAttr(ahead));
    operand.copy->erase();
  }
}

namespace {
struct TfmGpuPromoteOperandsPass
    : tfm::impl::TfmGpuPromoteOperandsBase<TfmGpuPromoteOperandsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](scf::ForallOp forall) {
      int64_t used = promoteOperands(forall, sharedMemoryBytes);
      if (stages < 2)
        return;
      SmallVector<scf::ForOp> loops;
      forall.getBody()->walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops)
        pipelineStaging(loop, stages, used, sharedMemoryBytes);
    });
  }
};
} // namespace
