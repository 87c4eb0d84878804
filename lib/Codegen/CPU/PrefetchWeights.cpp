//===- PrefetchWeights.cpp - tfm-cpu-prefetch-weights ---------------------===//
//
// Implements `tfm-cpu-prefetch-weights`: the loops that tiling marked with a
// prefetch distance prefetch what they stream through of constants (packed
// weights) and of the function's arguments (key/value caches) that many
// iterations ahead.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUPREFETCHWEIGHTS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The static stride of `type`'s dimension `dim`, or nullopt.
std::optional<int64_t> getStaticStride(MemRefType type, unsigned dim) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides[dim]))
    return std::nullopt;
  return strides[dim];
}

/// What a read inside a marked loop streams through: the buffer it is a
/// view of (a constant, a `memref.get_global` of static shape, or an
/// argument of the function, of identity layout: a key/value cache), and
/// by how many of the buffer's elements the read moves each iteration.
/// `bound`, if set, is the view of an argument that a parallel loop's
/// iteration takes (one batch x head of a cache, a few of its positions):
/// the stream ends where it ends, for what lies after it is not read next
/// (a cache's room for later positions).
struct StreamedRead {
  Value buffer;
  int64_t step = 0;
  Value bound;
};

/// Whether `view` is a buffer that a marked loop's reads are prefetched
/// from: a constant of static shape, or a contiguous argument of the
/// function (the caller's memory; not an allocation of the function's own,
/// which its producer has just written).
bool isStreamedBuffer(Value view) {
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!type)
    return false;
  if (view.getDefiningOp<memref::GetGlobalOp>())
    return type.hasStaticShape();
  auto argument = dyn_cast<BlockArgument>(view);
  return argument && argument.getOwner()->isEntryBlock() &&
         isa<FunctionOpInterface>(argument.getOwner()->getParentOp()) &&
         type.getLayout().isIdentity();
}

/// Whether `value` is the same in every iteration of the loop whose body is
/// `body`: defined outside it, or a constant. (A value computed in the loop
/// may come from its induction variable.)
bool isInvariantIn(Value value, Block *body) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return value.getParentBlock() != body;
  return def->getBlock() != body || matchPattern(value, m_Constant());
}

/// Adds to `step` the stride by which `indices`, indices into a memref of
/// `type`, move with `iv`: each index that is `iv` itself counts its
/// dimension's stride. False where `iv` reaches an index any other way
/// (through arithmetic) or a stride it moves by is dynamic.
bool addIndexSteps(ArrayRef<OpFoldResult> indices, MemRefType type, Value iv,
                   int64_t &step) {
  for (auto [dim, mixed] : llvm::enumerate(indices)) {
    auto index = dyn_cast<Value>(mixed);
    if (!index)
      continue;
    if (index == iv) {
      std::optional<int64_t> stride = getStaticStride(type, dim);
      if (!stride)
        return false;
      step += *stride;
      continue;
    }
    if (!isInvariantIn(index, iv.getParentBlock()))
      return false;
  }
  return true;
}

/// The buffer that `read` streams through, the elements by which it moves
/// each iteration of the loop of `iv` and the view that bounds the stream,
/// if it reads a view of one (isStreamedBuffer; through subviews, reshapes
/// and casts) at a place that moves with `iv` by a static stride.
std::optional<StreamedRead> getStreamedRead(vector::TransferReadOp read,
                                            Value iv) {
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type)
    return std::nullopt;
  Operation *loop = iv.getParentBlock()->getParentOp();
  Operation *parallel = loop->getParentOfType<scf::ParallelOp>();
  StreamedRead result;
  if (!addIndexSteps(getAsOpFoldResult(read.getIndices()), type, iv,
                     result.step))
    return std::nullopt;
  Value view = read.getBase();
  while (true) {
    if (isStreamedBuffer(view)) {
      // An argument is streamed if the read moves by a line or more each
      // iteration; what moves by less (a column of a product's left operand,
      // a float a step) the hardware's prefetcher follows. (A constant's
      // reads in a marked loop are its packed panels'; they stream on into
      // the next panel.)
      int64_t elementBytes = llvm::divideCeil(
          cast<MemRefType>(view.getType()).getElementTypeBitWidth(), 8);
      if (result.step <= 0 || (isa<BlockArgument>(view) &&
                               result.step * elementBytes < kCacheLineBytes))
        return std::nullopt;
      result.buffer = view;
      if (!isa<BlockArgument>(view))
        result.bound = Value();
      return result;
    }
    Operation *def = view.getDefiningOp();
    Block *body = iv.getParentBlock();
    auto isInvariant = [&](Value v) { return isInvariantIn(v, body); };
    if (auto subview = dyn_cast_or_null<memref::SubViewOp>(def)) {
      if (!addIndexSteps(subview.getMixedOffsets(), subview.getSourceType(), iv,
                         result.step) ||
          !llvm::all_of(subview.getSizes(), isInvariant) ||
          !llvm::all_of(subview.getStrides(), isInvariant))
        return std::nullopt;
      // The outermost view inside the parallel loop around the marked one
      // (and outside the marked one).
      if (parallel && parallel->isProperAncestor(subview) &&
          !loop->isAncestor(subview))
        result.bound = subview.getResult();
      view = subview.getSource();
      continue;
    }
    // Views that do not move with the loop: reshapes and casts of the whole.
    if (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp,
                        memref::CastOp>(def) &&
        llvm::all_of(def->getOperands().drop_front(), isInvariant)) {
      view = def->getOperand(0);
      continue;
    }
    return std::nullopt;
  }
}

/// The elements that `read` reads from memory: its vector's, less the
/// dimensions it broadcasts.
int64_t getReadElements(vector::TransferReadOp read) {
  int64_t elements = 1;
  for (auto [expr, size] : llvm::zip(read.getPermutationMap().getResults(),
                                     read.getVectorType().getShape()))
    if (isa<AffineDimExpr>(expr))
      elements *= size;
  return elements;
}

/// The offset of `read`'s first element in its buffer, computed at the
/// builder's insertion point: its view's offset and its indices along the
/// view's strides. Outside the loop (`ivValue` given), the loop's ops that
/// compute the view are cloned there with `ivValue` for the induction
/// variable.
Value getReadOffset(OpBuilder &b, vector::TransferReadOp read,
                    std::optional<Value> ivValue = std::nullopt) {
  Location loc = read.getLoc();
  Value view = read.getBase();
  IRMapping mapping;
  if (ivValue) {
    Block *body = read->getBlock();
    mapping.map(body->getArgument(0), *ivValue);
    // The view ops inside the loop, innermost first (getStreamedRead
    // checked that each takes its view as operand 0, and nothing else from
    // the loop but constants and, as offsets, the induction variable).
    SmallVector<Operation *> chain;
    for (Operation *def = view.getDefiningOp(); def && def->getBlock() == body;
         def = def->getOperand(0).getDefiningOp())
      chain.push_back(def);
    for (Operation *op : llvm::reverse(chain)) {
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == body && !llvm::is_contained(chain, def))
          b.clone(*def, mapping);
      b.clone(*op, mapping);
    }
    for (Value index : read.getIndices())
      if (Operation *def = index.getDefiningOp();
          def && def->getBlock() == body)
        b.clone(*def, mapping);
  }
  auto metadata = memref::ExtractStridedMetadataOp::create(
      b, loc, mapping.lookupOrDefault(view));
  Value offset = metadata.getOffset();
  for (auto [index, stride] :
       llvm::zip(read.getIndices(), metadata.getStrides()))
    if (!isZeroInteger(index))
      offset = b.createOrFold<arith::AddIOp>(
          loc, offset,
          b.createOrFold<arith::MulIOp>(loc, mapping.lookupOrDefault(index),
                                        stride));
  return offset;
}

/// A read of a streamed buffer in a marked loop, with what its prefetches
/// need.
struct PrefetchedRead {
  vector::TransferReadOp read;
  StreamedRead stream;
  /// The offsets, in elements, of the lines that one read reads.
  SmallVector<int64_t> lines;
};

struct TfmCpuPrefetchWeightsPass
    : tfm::impl::TfmCpuPrefetchWeightsBase<TfmCpuPrefetchWeightsPass> {
  void runOnOperation() override {
    StringRef marker = LoweringConfigAttr::getPrefetchDistanceAttrName();
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(marker))
        loops.push_back(loop);
    });
    // Each buffer's one-dimensional view, made once, where the buffer is
    // defined.
    DenseMap<Value, Value> flatViews;
    for (scf::ForOp loop : loops) {
      int64_t distance = loop->getAttrOfType<IntegerAttr>(marker).getInt();
      loop->removeAttr(marker);
      std::optional<int64_t> loopStep = getConstantIntValue(loop.getStep());
      if (distance <= 0 || !loopStep || *loopStep != 1)
        continue;
      SmallVector<PrefetchedRead> reads;
      for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
        std::optional<StreamedRead> stream =
            getStreamedRead(read, loop.getInductionVar());
        if (!stream)
          continue;
        auto type = cast<MemRefType>(stream->buffer.getType());
        int64_t elementBytes =
            llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        int64_t lineElements =
            std::max<int64_t>(kCacheLineBytes / elementBytes, 1);
        PrefetchedRead &prefetched = reads.emplace_back();
        prefetched.read = read;
        prefetched.stream = *stream;
        for (int64_t line = 0; line < getReadElements(read);
             line += lineElements)
          prefetched.lines.push_back(line);
      }
      if (reads.empty())
        continue;
      prefetchAhead(loop, distance, reads, flatViews);
    }
  }

  /// The one-dimensional view of `buffer`, made once, where it is defined
  /// (after its get_global, or at the start of the function).
  Value getFlatView(Value buffer, DenseMap<Value, Value> &flatViews) {
    Value &flat = flatViews[buffer];
    if (flat)
      return flat;
    OpBuilder b(buffer.getContext());
    if (Operation *def = buffer.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(buffer).getOwner());
    auto type = cast<MemRefType>(buffer.getType());
    ReassociationIndices all =
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
    flat = memref::CollapseShapeOp::create(
        b, buffer.getLoc(), buffer, ArrayRef<ReassociationIndices>{all});
    return flat;
  }

  /// The offset just past the last element of `view` in its buffer:
  /// offset + sum((size - 1) * stride) + 1.
  Value getViewEnd(OpBuilder &b, Location loc, Value view) {
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, view);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value end = b.createOrFold<arith::AddIOp>(loc, metadata.getOffset(), one);
    for (auto [size, stride] :
         llvm::zip(metadata.getSizes(), metadata.getStrides()))
      end = b.createOrFold<arith::AddIOp>(
          loc, end,
          b.createOrFold<arith::MulIOp>(
              loc, b.createOrFold<arith::SubIOp>(loc, size, one), stride));
    return end;
  }

  /// Splits `loop` where the first of `reads`' prefetches would point past
  /// the end of its stream, and prefetches `distance` iterations ahead in
  /// the first part: every iteration but those of the stream's last few
  /// steps (the last panel's end; a batch x head's last keys).
  void prefetchAhead(scf::ForOp loop, int64_t distance,
                     MutableArrayRef<PrefetchedRead> reads,
                     DenseMap<Value, Value> &flatViews) {
    Location loc = loop.getLoc();
    OpBuilder b(loop);
    // The iterations that prefetch: those before
    //   lb + (end - 1 - lastLine - distance * step - offset(lb)) / step + 1
    // for every read, within [lb, ub], where `end` is the end of the
    // stream's bounding view, or else of its buffer.
    Value lb = loop.getLowerBound(), ub = loop.getUpperBound();
    Value split = ub;
    for (PrefetchedRead &prefetched : reads) {
      Value flat = getFlatView(prefetched.stream.buffer, flatViews);
      Value first = getReadOffset(b, prefetched.read, lb);
      int64_t step = prefetched.stream.step;
      Value elements = prefetched.stream.bound
                           ? getViewEnd(b, loc, prefetched.stream.bound)
                           : b.createOrFold<memref::DimOp>(loc, flat, 0);
      Value room = b.createOrFold<arith::SubIOp>(
          loc, elements,
          arith::ConstantIndexOp::create(
              b, loc, 1 + prefetched.lines.back() + distance * step));
      Value iterations = b.createOrFold<arith::FloorDivSIOp>(
          loc, b.createOrFold<arith::SubIOp>(loc, room, first),
          arith::ConstantIndexOp::create(b, loc, step));
      Value end = b.createOrFold<arith::AddIOp>(
          loc, lb,
          b.createOrFold<arith::AddIOp>(
              loc, iterations, arith::ConstantIndexOp::create(b, loc, 1)));
      end = b.createOrFold<arith::MaxSIOp>(loc, end, lb);
      split = b.createOrFold<arith::MinSIOp>(loc, split, end);
    }
    // The rest of the iterations, without prefetches, after the loop.
    b.setInsertionPointAfter(loop);
    auto rest = cast<scf::ForOp>(b.clone(*loop));
    loop->replaceAllUsesWith(rest.getResults());
    rest.getInitArgsMutable().assign(loop.getResults());
    rest.getLowerBoundMutable().assign(split);
    loop.getUpperBoundMutable().assign(split);

    for (PrefetchedRead &prefetched : reads) {
      Value flat = getFlatView(prefetched.stream.buffer, flatViews);
      b.setInsertionPoint(prefetched.read);
      Value offset = getReadOffset(b, prefetched.read);
      for (int64_t line : prefetched.lines) {
        Value at = b.createOrFold<arith::AddIOp>(
            loc, offset,
            arith::ConstantIndexOp::create(
                b, loc, distance * prefetched.stream.step + line));
        memref::PrefetchOp::create(b, loc, flat, at, /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
      }
    }
  }
};

} // namespace
