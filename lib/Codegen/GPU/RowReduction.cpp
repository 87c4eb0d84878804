//===- RowReduction.cpp - Row reductions over a warp's lanes --------------===//
//
// See RowReduction.h.
//
//===----------------------------------------------------------------------===//

#include "RowReduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::tfm;

/// A warp's lanes: the most a row is split over.
static constexpr int64_t kWarpLanes = 32;

bool mlir::tfm::isRowReduction(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 1 || op.getNumParallelLoops() == 0)
    return false;
  SmallVector<unsigned> parallel, reduction;
  op.getParallelDims(parallel);
  op.getReductionDims(reduction);
  AffineExpr reduced = getAffineDimExpr(reduction.front(), op.getContext());
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *input) {
    AffineMap map = op.getMatchingIndexingMap(input);
    // A row runs along the input's last dimension (its elements
    // contiguous, a warp's lanes reading neighbours); a reduction along
    // another (a mean over a sequence's tokens, each a row of channels
    // apart) is left a thread per output, neighbouring threads reading
    // neighbouring elements.
    if (map.isFunctionOfDim(reduction.front()) &&
        (map.getNumResults() == 0 || map.getResults().back() != reduced))
      return false;
    return llvm::all_of(parallel,
                        [&](unsigned d) { return map.isFunctionOfDim(d); });
  });
}

std::optional<RowReductionLoop>
mlir::tfm::matchRowReductionLoop(scf::ParallelOp loop) {
  if (loop.getNumReductions() != 0)
    return std::nullopt;
  RowReductionLoop match;
  match.loop = loop;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (auto reduction = dyn_cast<scf::ForOp>(op)) {
      if (match.reduction)
        return std::nullopt;
      match.reduction = reduction;
      continue;
    }
    // What comes before the reduction runs on every lane of the row.
    if (op.getNumRegions() != 0 ||
        (!match.reduction && !isMemoryEffectFree(&op) &&
         !isa<memref::LoadOp>(op)))
      return std::nullopt;
  }
  scf::ForOp reduction = match.reduction;
  if (!reduction || reduction.getNumRegionIterArgs() == 0)
    return std::nullopt;
  auto yield = cast<scf::YieldOp>(reduction.getBody()->getTerminator());
  for (auto [accumulator, yielded] :
       llvm::zip(reduction.getRegionIterArgs(), yield.getOperands())) {
    // What nvvm.shfl.sync moves: 32-bit values.
    Type type = accumulator.getType();
    if (!type.isF32() && !type.isInteger(32))
      return std::nullopt;
    Operation *combiner = yielded.getDefiningOp();
    if (!combiner || combiner->getBlock() != reduction.getBody() ||
        combiner->getNumOperands() != 2 || combiner->getNumResults() != 1 ||
        !accumulator.hasOneUse() ||
        accumulator.use_begin()->getOwner() != combiner ||
        !arith::getNeutralElement(combiner))
      return std::nullopt;
    match.combiners.push_back(combiner);
    match.accumulatorOperands.push_back(
        accumulator.use_begin()->getOperandNumber());
  }
  // Up to a warp's lanes, each with at least one element.
  match.lanes = kWarpLanes;
  std::optional<int64_t> lb = getConstantIntValue(reduction.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(reduction.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(reduction.getStep());
  if (lb && ub && step && *step > 0) {
    int64_t steps = llvm::divideCeil(std::max<int64_t>(*ub - *lb, 0), *step);
    match.lanes = std::min<int64_t>(
        kWarpLanes,
        steps > 0 ? llvm::bit_floor(static_cast<uint64_t>(steps)) : 1);
  }
  if (match.lanes < 2)
    return std::nullopt;
  return match;
}

/// The butterfly's steps: lane l combines with lane l xor o at each offset
/// o, halving from lanes / 2 to 1. After the step of offset o, every lane
/// holds the combination of its aligned group of 2o lanes; after the last,
/// of all. Both forms (shuffles, and the emulation) take their steps here.
static SmallVector<int64_t> getButterflyOffsets(int64_t lanes) {
  SmallVector<int64_t> offsets;
  for (int64_t offset = lanes / 2; offset >= 1; offset /= 2)
    offsets.push_back(offset);
  return offsets;
}

/// `combiner` applied to `accumulator` (in its accumulator's operand) and
/// `value` (in the other).
static Value combine(OpBuilder &b, const RowReductionLoop &reduction,
                     unsigned index, Value accumulator, Value value) {
  Operation *combiner = reduction.combiners[index];
  unsigned accumulatorOperand = reduction.accumulatorOperands[index];
  IRMapping mapping;
  mapping.map(combiner->getOperand(accumulatorOperand), accumulator);
  mapping.map(combiner->getOperand(1 - accumulatorOperand), value);
  return b.clone(*combiner, mapping)->getResult(0);
}

/// Clones the ops of the row's body before the reduction loop.
static void cloneBeforeReduction(OpBuilder &b,
                                 const RowReductionLoop &reduction,
                                 IRMapping &mapping) {
  scf::ParallelOp loop = reduction.loop;
  Operation *reductionLoop = reduction.reduction;
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (&op == reductionLoop)
      return;
    b.clone(op, mapping);
  }
}

/// Clones the ops of the row's body after the reduction loop, with its
/// results mapped to `results`.
static void cloneAfterReduction(OpBuilder &b, const RowReductionLoop &reduction,
                                IRMapping &mapping, ValueRange results) {
  scf::ForOp loop = reduction.reduction;
  mapping.map(loop.getResults(), results);
  for (Operation *op = loop->getNextNode();
       op && !op->hasTrait<OpTrait::IsTerminator>(); op = op->getNextNode())
    b.clone(*op, mapping);
}

/// Lane `lane`'s share of the reduction: its elements `lane`, `lane` +
/// lanes, ..., combined from the neutral element.
static SmallVector<Value> emitLanePartial(OpBuilder &b,
                                          const RowReductionLoop &reduction,
                                          IRMapping &mapping, Value lane) {
  scf::ForOp loop = reduction.reduction;
  Location loc = loop.getLoc();
  Value lb = mapping.lookupOrDefault(loop.getLowerBound());
  Value ub = mapping.lookupOrDefault(loop.getUpperBound());
  Value step = mapping.lookupOrDefault(loop.getStep());
  Value first = arith::AddIOp::create(
      b, loc, lb, arith::MulIOp::create(b, loc, lane, step));
  Value stride = arith::MulIOp::create(
      b, loc, step, arith::ConstantIndexOp::create(b, loc, reduction.lanes));
  SmallVector<Value> neutral;
  for (Operation *combiner : reduction.combiners)
    neutral.push_back(
        arith::ConstantOp::create(b, loc, *arith::getNeutralElement(combiner)));
  auto partial = scf::ForOp::create(
      b, loc, first, ub, stride, neutral,
      [&](OpBuilder &nested, Location, Value iv, ValueRange accumulators) {
        IRMapping inner = mapping;
        inner.map(loop.getInductionVar(), iv);
        inner.map(loop.getRegionIterArgs(), accumulators);
        for (Operation &op : loop.getBody()->without_terminator())
          nested.clone(op, inner);
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        SmallVector<Value> yielded =
            llvm::map_to_vector(yield.getOperands(), [&](Value value) {
              return inner.lookupOrDefault(value);
            });
        scf::YieldOp::create(nested, loc, yielded);
      });
  return SmallVector<Value>(partial.getResults());
}

/// The row's results: the lanes' combination `combined` combined with the
/// reduction's initial values (the output's elements as loaded).
static SmallVector<Value> withInitialValues(OpBuilder &b,
                                            const RowReductionLoop &reduction,
                                            IRMapping &mapping,
                                            ArrayRef<Value> combined) {
  scf::ForOp loop = reduction.reduction;
  SmallVector<Value> results;
  for (auto [index, init] : llvm::enumerate(loop.getInitArgs()))
    results.push_back(combine(b, reduction, index,
                              mapping.lookupOrDefault(init), combined[index]));
  return results;
}

/// The row at induction variables `ivs`: its body's ops before the
/// reduction loop, cloned; returns the mapping of the loop's body to them.
static IRMapping startRow(OpBuilder &b, const RowReductionLoop &reduction,
                          ValueRange ivs) {
  scf::ParallelOp loop = reduction.loop;
  IRMapping mapping;
  mapping.map(loop.getInductionVars(), ivs);
  cloneBeforeReduction(b, reduction, mapping);
  return mapping;
}

void mlir::tfm::emitRowReductionLane(OpBuilder &b,
                                     const RowReductionLoop &reduction,
                                     ValueRange ivs, Value lane, Value store) {
  Location loc = reduction.reduction->getLoc();
  IRMapping mapping = startRow(b, reduction, ivs);
  SmallVector<Value> values = emitLanePartial(b, reduction, mapping, lane);
  // The butterfly: after the step of offset o, each lane holds the
  // combination of its group of 2o lanes; after the last, of all `lanes`.
  Value width =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWarpLanes);
  for (int64_t offset : getButterflyOffsets(reduction.lanes)) {
    Value offsetValue =
        arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset);
    for (size_t index = 0; index < values.size(); ++index) {
      auto shuffle = gpu::ShuffleOp::create(b, loc, values[index], offsetValue,
                                            width, gpu::ShuffleMode::XOR);
      values[index] = combine(b, reduction, index, values[index],
                              shuffle.getShuffleResult());
    }
  }
  SmallVector<Value> results = withInitialValues(b, reduction, mapping, values);
  auto guard = scf::IfOp::create(b, loc, store, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  cloneAfterReduction(b, reduction, mapping, results);
  b.setInsertionPointAfter(guard);
}

void mlir::tfm::emitEmulatedRowReduction(OpBuilder &b,
                                         const RowReductionLoop &reduction,
                                         ValueRange ivs) {
  scf::ForOp loop = reduction.reduction;
  Location loc = loop.getLoc();
  IRMapping mapping = startRow(b, reduction, ivs);
  // Each lane's partial in a buffer of the lanes.
  SmallVector<Value> partials;
  for (Value result : loop.getResults())
    partials.push_back(memref::AllocaOp::create(
        b, loc, MemRefType::get({reduction.lanes}, result.getType())));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lanes = arith::ConstantIndexOp::create(b, loc, reduction.lanes);
  auto laneLoop = scf::ForOp::create(b, loc, zero, lanes, one);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(laneLoop.getBody()->getTerminator());
    Value lane = laneLoop.getInductionVar();
    for (auto [value, buffer] :
         llvm::zip(emitLanePartial(b, reduction, mapping, lane), partials))
      memref::StoreOp::create(b, loc, value, buffer, lane);
  }
  // The butterfly by its definition: at offset o, lanes l and l xor o
  // (l below its partner) both get the combination of the two.
  for (int64_t offset : getButterflyOffsets(reduction.lanes)) {
    auto pairLoop = scf::ForOp::create(b, loc, zero, lanes, one);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(pairLoop.getBody()->getTerminator());
    Value lane = pairLoop.getInductionVar();
    Value offsetValue = arith::ConstantIndexOp::create(b, loc, offset);
    Value partner = arith::XOrIOp::create(b, loc, lane, offsetValue);
    Value isLow =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, lane, partner);
    auto low = scf::IfOp::create(b, loc, isLow, /*withElseRegion=*/false);
    b.setInsertionPoint(low.thenBlock()->getTerminator());
    for (auto [index, buffer] : llvm::enumerate(partials)) {
      Value mine = memref::LoadOp::create(b, loc, buffer, lane);
      Value theirs = memref::LoadOp::create(b, loc, buffer, partner);
      Value both = combine(b, reduction, index, mine, theirs);
      memref::StoreOp::create(b, loc, both, buffer, lane);
      memref::StoreOp::create(b, loc, both, buffer, partner);
    }
  }
  SmallVector<Value> combined;
  for (Value buffer : partials)
    combined.push_back(memref::LoadOp::create(b, loc, buffer, zero));
  SmallVector<Value> results =
      withInitialValues(b, reduction, mapping, combined);
  cloneAfterReduction(b, reduction, mapping, results);
}
