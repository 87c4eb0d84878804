//===- TensorParallel.cpp - tfm-tensor-parallel ----------------------------===//
//
// Implements `tfm-tensor-parallel`: Megatron-LM's split of a Transformer over
// the N ranks of a 1-D `shard.grid`. Each attention block's query, key and
// value projections and each feed-forward's first product are split by
// output features (whole heads, whole hidden units per rank), the work
// between them stays on each rank's slice, and the products on the way out
// are split by input features, giving partial sums that one
// `shard.all_reduce` per block adds up. Everything else (embeddings, norms,
// residuals, the classifier) is computed whole on every rank.
//
// The per-rank program is specialised per rank: the entry's body is cloned
// into one private function per rank whose weights are constants of that
// rank's slice, and the entry calls the clone of its rank
// (`shard.process_linear_index`). Constants stay constants, so the CPU
// pipeline packs each rank's panels at compile time as it does for one
// process, and a rank's process only ever touches the pages of its own
// slices. Since each rank's function is its own, ranks may hold different
// numbers of heads (3 heads over 2 ranks: 2 and 1); a key/value cache stays
// the entry's whole argument, of which each rank appends to and reads its
// heads' part.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/ConstantLayout.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"

#include <map>
#include <numeric>
#include <set>
#include <tuple>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMTENSORPARALLEL
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The grid's symbol.
constexpr StringLiteral kGridName = "tfm_tp";

/// The result attribute of a key/value cache updated in place (tfm-kv-cache:
/// kKvCacheAttr in EntryPoint.h).
constexpr StringLiteral kKvCacheResultAttr = "tfm.kv_cache";

/// The constant `value` is, or null.
DenseElementsAttr getConstant(Value value) {
  DenseElementsAttr attr;
  if (value && matchPattern(value, m_Constant(&attr)))
    return attr;
  return {};
}

bool isConstantOrNull(Value value) { return !value || getConstant(value); }

/// A rank's part of a split: of `units` equal units (heads, hidden units)
/// dealt out over the ranks in contiguous blocks as evenly as they go (the
/// first `units % ranks` ranks hold one more), units `begin` to `begin +
/// count`.
struct Share {
  Share(int64_t units, int64_t ranks, int64_t rank) : units(units) {
    int64_t base = units / ranks, extra = units % ranks;
    count = base + (rank < extra ? 1 : 0);
    begin = rank * base + std::min(rank, extra);
  }
  /// The rank's part of `size` elements that hold the units in order, each
  /// a whole number of them (or of every run of them, see Split).
  int64_t of(int64_t size) const { return size / units * count; }

  int64_t units, begin, count;
};

/// `type` with dimension `dim` cut to the rank's `share`.
RankedTensorType splitType(Type type, int64_t dim, const Share &share) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[dim] = share.of(shape[dim]);
  return tensor.clone(shape);
}

//===----------------------------------------------------------------------===//
// The plan: which ops each rank computes a slice of
//===----------------------------------------------------------------------===//

/// How a value is divided over the ranks: dimension `dim`, of size M, read
/// as `outer` x Q (row-major), where each rank holds a contiguous block of
/// its share of the units of every one of the `outer` runs. A product's
/// output features are one run (outer = 1); once reshapes merge them with
/// the batch (as `[B, H, ...]` flattened to `[B * H, ...]`), the heads of a
/// rank recur once per batch (outer = B). Each rank's local size along
/// `dim` is its share of M either way; `outer` is what the rules compare.
struct Split {
  int64_t dim;
  int64_t outer = 1;
  bool operator==(const Split &other) const {
    return dim == other.dim && outer == other.outer;
  }
  bool operator!=(const Split &other) const { return !(*this == other); }
};

/// How one op of the graph changes in a rank's program. Ops are named by
/// their position in a pre-order walk of the entry, the same in each clone.
enum class Role {
  /// tfm.multi_head_attention or tfm.ffn split whole: sliced weights, a
  /// partial result, an all-reduce.
  Block,
  /// A tfm.linear split by output features: its weight's rows (per segment
  /// of a fused projection, `segments`), its bias.
  Column,
  /// A tfm.linear split by input features: its weight's columns, its bias on
  /// rank 0 only, then the all-reduce.
  Row,
  /// An op between them, computing on slices: its results divided as
  /// `splits` says.
  Local,
  /// A tfm.kv_cache_append of a rank's heads (`splits`, the keys' and the
  /// prefix's division) to a whole cache: the rank appends to its heads'
  /// part of the cache and writes that part back into the whole, which the
  /// entry returns in place.
  Cache,
};

struct Step {
  Role role;
  /// The units the ranks share: the heads (key/value heads, whose query
  /// heads go with them) or hidden units of a block; for a chain, the
  /// largest number that every divided size of the chain is a whole number
  /// of per run (its heads where it has any).
  int64_t units = 0;
  /// Local: how each result is divided.
  SmallVector<Split, 1> splits;
  /// Column: the sizes of the output segments of a fused projection whose
  /// result is cut by tensor.extract_slice (one segment otherwise).
  SmallVector<int64_t> segments;
};

/// The results of `op` that `step` divides, each with its division.
static SmallVector<std::pair<Value, Split>> getDividedResults(Operation *op,
                                                              const Step &step) {
  if (step.role == Role::Cache)
    return {{op->getResult(1), step.splits.front()}};
  SmallVector<std::pair<Value, Split>> divided;
  for (auto [result, split] : llvm::zip(op->getResults(), step.splits))
    divided.push_back({result, split});
  return divided;
}

class Planner {
public:
  Planner(func::FuncOp func, int64_t ranks) : func(func), ranks(ranks) {
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      index[op] = order.size();
      order.push_back(op);
    });
  }

  /// Plans the split, or fails with a diagnostic.
  LogicalResult plan();

  /// The steps by op position.
  llvm::MapVector<unsigned, Step> steps;

private:
  LogicalResult planBlocks();
  LogicalResult planChains();
  /// Propagates divided values from `starts` (column linears) in program
  /// order. Returns the first op with no rule for its divided operands, or
  /// null; `inBlock` says whether values computed from that op's would reach
  /// the input of a product (the block's way out), so that the op sits
  /// inside an attention or feed-forward block rather than after one.
  Operation *propagate(ArrayRef<LinearOp> starts, DenseMap<Value, Split> &split,
                       llvm::MapVector<Operation *, Step> &found,
                       bool &inBlock);
  /// The rule for `op`, whose operands in `split` are divided: how its
  /// results are divided, Row for a linear that ends the chain, or failure.
  FailureOr<Step> getRule(Operation *op, const DenseMap<Value, Split> &split);
  /// Fails unless each rank holds at least one of `units`; warns when
  /// they split unevenly (once per number and kind: a model's layers are
  /// alike).
  LogicalResult checkUnits(Operation *op, int64_t units, StringRef what);

  func::FuncOp func;
  int64_t ranks;
  SmallVector<Operation *> order;
  DenseMap<Operation *, unsigned> index;
  std::set<std::pair<int64_t, std::string>> warned;
};

LogicalResult Planner::checkUnits(Operation *op, int64_t units,
                                  StringRef what) {
  if (units < ranks)
    return op->emitError() << "cannot split " << units << " " << what
                           << " over " << ranks << " ranks: a rank would hold "
                           << "none";
  if (units % ranks != 0 && warned.insert({units, what.str()}).second)
    op->emitWarning() << "splitting " << units << " " << what
                      << " unevenly over " << ranks << " ranks: they hold "
                      << units / ranks + 1 << " or " << units / ranks
                      << " each, and the busiest sets the pace";
  return success();
}

LogicalResult Planner::planBlocks() {
  for (Operation *op : order) {
    if (auto mha = dyn_cast<MultiHeadAttentionOp>(op)) {
      if (!llvm::all_of(ValueRange{mha.getWQ(), mha.getWK(), mha.getWV(),
                                   mha.getWO(), mha.getBQ(), mha.getBK(),
                                   mha.getBV(), mha.getBO()},
                        isConstantOrNull))
        continue;
      // A rank holds whole groups of query heads that share a key/value
      // head.
      int64_t heads = mha.getNumHeads(), kvHeads = mha.getKeyValueHeads();
      int64_t units = std::gcd(heads, kvHeads);
      if (failed(checkUnits(mha, units,
                            units == heads ? "heads" : "key/value heads")))
        return failure();
      if (Value mask = mha.getMask()) {
        auto type = cast<RankedTensorType>(mask.getType());
        if (type.getRank() == 3 && type.getDimSize(0) != 1)
          return mha.emitError()
                 << "cannot split a multi-head attention whose mask has a "
                    "leading dimension of "
                 << type.getDimSize(0)
                 << " (per batch and head): no rule splits it by heads";
      }
      steps[index[op]] = Step{Role::Block, units, {}, {}};
    } else if (auto ffn = dyn_cast<FfnOp>(op)) {
      if (!llvm::all_of(ValueRange{ffn.getWGate(), ffn.getBGate(), ffn.getW1(),
                                   ffn.getB1(), ffn.getW2(), ffn.getB2()},
                        isConstantOrNull))
        continue;
      int64_t hidden = ffn.getW1().getType().getDimSize(0);
      if (ShapedType::isDynamic(hidden))
        return ffn.emitError() << "cannot split a feed-forward with a "
                                  "dynamic number of hidden units";
      if (failed(checkUnits(ffn, hidden, "hidden units")))
        return failure();
      steps[index[op]] = Step{Role::Block, hidden, {}, {}};
    }
  }
  return success();
}

/// The static offset and size of `slice` along `dim`, with unit strides
/// and no rank change. (What it takes of the other dimensions, which no
/// rank divides, stays as it is.)
static std::optional<std::pair<int64_t, int64_t>>
getSliceAlong(tensor::ExtractSliceOp slice, int64_t dim) {
  if (!slice.hasUnitStride() ||
      slice.getSourceType().getRank() != slice.getResultType().getRank())
    return std::nullopt;
  std::optional<int64_t> offset =
      getConstantIntValue(slice.getMixedOffsets()[dim]);
  std::optional<int64_t> size = getConstantIntValue(slice.getMixedSizes()[dim]);
  if (!offset || !size)
    return std::nullopt;
  return std::make_pair(*offset, *size);
}

/// The segments of a fused projection's `result` ([..., F]): the sizes of
/// the runs that tensor.extract_slice users cut along F, in order, if they
/// tile F exactly; {F} when the result is used whole.
static std::optional<SmallVector<int64_t>> getSegments(Value result) {
  auto type = cast<RankedTensorType>(result.getType());
  int64_t last = type.getRank() - 1, features = type.getDimSize(last);
  std::map<int64_t, int64_t> runs;
  bool whole = false;
  for (Operation *user : result.getUsers()) {
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice) {
      whole = true;
      continue;
    }
    auto run = getSliceAlong(slice, last);
    if (!run)
      return std::nullopt;
    auto [it, inserted] = runs.insert(*run);
    if (!inserted && it->second != run->second)
      return std::nullopt;
  }
  if (whole || runs.empty())
    return runs.empty() ? std::optional(SmallVector<int64_t>{features})
                        : std::nullopt;
  SmallVector<int64_t> segments;
  int64_t next = 0;
  for (auto [offset, size] : runs) {
    if (offset != next)
      return std::nullopt;
    segments.push_back(size);
    next += size;
  }
  if (next != features)
    return std::nullopt;
  return segments;
}

/// Whether the linalg op `op` is elementwise with its result indexed by the
/// loops in order, each operand in `split` read at loop `loop` along its
/// divided dimension (divided as `want`), and the others not reading loop
/// `loop` at all.
static bool isElementwiseOn(linalg::LinalgOp op, int64_t loop, Split want,
                            const DenseMap<Value, Split> &split) {
  if (op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !op.getDpsInits()[0].getDefiningOp<tensor::EmptyOp>())
    return false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    auto it = split.find(input->get());
    if (it != split.end()) {
      if (!map.isProjectedPermutation() ||
          it->second.dim >= map.getNumResults() ||
          map.getDimPosition(it->second.dim) != loop ||
          it->second.outer != want.outer)
        return false;
      continue;
    }
    if (map.isFunctionOfDim(loop))
      return false;
  }
  return true;
}

/// `divided` through tensor.expand_shape of group `dims` (the result
/// dimensions it becomes): the result dimension where the divided factor Q
/// lands whole. None when the sizes are dynamic or cut through Q.
static std::optional<Split> expandSplit(Split divided, int64_t size,
                                        ArrayRef<int64_t> dims,
                                        ArrayRef<int64_t> shape) {
  if (ShapedType::isDynamic(size) || size % divided.outer != 0)
    return std::nullopt;
  int64_t q = size / divided.outer;
  int64_t inner = 1;
  for (int64_t d : llvm::reverse(dims)) {
    if (ShapedType::isDynamic(shape[d]))
      return std::nullopt;
    int64_t span = inner * shape[d];
    if (span % q == 0) {
      // Q lies in dimension `d` and the ones inside it (a whole number of
      // them: `q % span == 0` held on the way).
      int64_t factor = q / inner;
      return Split{d, shape[d] / factor};
    }
    if (q % span != 0)
      return std::nullopt;
    inner = span;
  }
  return std::nullopt;
}

FailureOr<Step> Planner::getRule(Operation *op,
                                 const DenseMap<Value, Split> &split) {
  auto splitOf = [&](Value value) -> std::optional<Split> {
    auto it = split.find(value);
    if (it == split.end())
      return std::nullopt;
    return it->second;
  };
  auto dimOf = [&](Value value) -> std::optional<int64_t> {
    if (auto divided = splitOf(value))
      return divided->dim;
    return std::nullopt;
  };
  auto local = [](Split divided) {
    return Step{Role::Local, 0, {divided}, {}};
  };

  if (auto linear = dyn_cast<LinearOp>(op)) {
    // Input features in one contiguous block per rank: the columns of the
    // weight that the rank keeps.
    auto divided = splitOf(linear.getInput());
    if (!divided ||
        *divided != Split{linear.getInput().getType().getRank() - 1, 1} ||
        splitOf(linear.getWeight()) || !getConstant(linear.getWeight()) ||
        !isConstantOrNull(linear.getBias()) ||
        linear.getActivation() != Activation::none)
      return failure();
    return Step{Role::Row, 0, {}, {}};
  }
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // A cut of a fused projection's result: the column linear's segments
    // keep it whole (getSegments).
    auto divided = splitOf(slice.getSource());
    if (!divided || divided->outer != 1 ||
        !slice.getSource().getDefiningOp<LinearOp>() ||
        !getSliceAlong(slice, divided->dim))
      return failure();
    return local(*divided);
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    Split divided = *splitOf(expand.getSrc());
    auto result =
        expandSplit(divided, expand.getSrcType().getDimSize(divided.dim),
                    expand.getReassociationIndices()[divided.dim],
                    expand.getResultType().getShape());
    if (!result)
      return failure();
    return local(*result);
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    // The dimensions merged outside the divided one multiply `outer`.
    Split divided = *splitOf(collapse.getSrc());
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    for (auto [group, dims] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      if (!llvm::is_contained(dims, divided.dim))
        continue;
      int64_t outer = divided.outer;
      for (int64_t d : dims) {
        if (d == divided.dim)
          break;
        if (ShapedType::isDynamic(shape[d]))
          return failure();
        outer *= shape[d];
      }
      return local(Split{static_cast<int64_t>(group), outer});
    }
    return failure();
  }
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    if (!transpose.getInit().getDefiningOp<tensor::EmptyOp>())
      return failure();
    Split divided = *splitOf(transpose.getInput());
    ArrayRef<int64_t> perm = transpose.getPermutation();
    divided.dim = llvm::find(perm, divided.dim) - perm.begin();
    return local(divided);
  }
  if (auto splitHeads = dyn_cast<SplitHeadsOp>(op)) {
    // [B, S, H * Dh] -> [B * H, S, Dh]: each rank's heads, once per batch.
    auto type = splitHeads.getInput().getType();
    if (*splitOf(splitHeads.getInput()) != Split{type.getRank() - 1, 1} ||
        type.isDynamicDim(0))
      return failure();
    return local(Split{0, type.getDimSize(0)});
  }
  if (auto mergeHeads = dyn_cast<MergeHeadsOp>(op)) {
    auto type = mergeHeads.getResult().getType();
    if (type.isDynamicDim(0) ||
        *splitOf(mergeHeads.getInput()) != Split{0, type.getDimSize(0)})
      return failure();
    return local(Split{type.getRank() - 1, 1});
  }
  if (auto attention = dyn_cast<AttentionOp>(op)) {
    auto divided = splitOf(attention.getQuery());
    int64_t rank = attention.getQuery().getType().getRank();
    if (!divided || divided->dim >= rank - 2 ||
        dimOf(attention.getKey()) != divided->dim ||
        dimOf(attention.getValue()) != divided->dim ||
        splitOf(attention.getKey())->outer != divided->outer ||
        splitOf(attention.getValue())->outer != divided->outer)
      return failure();
    // Lengths and masks apply to the query's heads: one for every head, or
    // divided like them.
    if (Value lens = attention.getValidLens())
      if (splitOf(lens) != divided)
        return failure();
    if (Value mask = attention.getMask()) {
      auto maskType = cast<RankedTensorType>(mask.getType());
      int64_t aligned = divided->dim - (rank - maskType.getRank());
      if (auto maskSplit = splitOf(mask)) {
        if (*maskSplit != Split{aligned, divided->outer})
          return failure();
      } else if (aligned >= 0 && maskType.getDimSize(aligned) != 1) {
        return failure();
      }
    }
    return local(*divided);
  }
  if (auto rotary = dyn_cast<RotaryEmbeddingOp>(op)) {
    auto divided = splitOf(rotary.getInput());
    if (!divided || divided->dim >= rotary.getInput().getType().getRank() - 2 ||
        splitOf(rotary.getCos()) || splitOf(rotary.getSin()))
      return failure();
    return local(*divided);
  }
  if (auto dim = dyn_cast<tensor::DimOp>(op)) {
    // The size of a dimension the ranks do not divide: the same on every
    // rank (dynamic shapes ask it of the heads' reshapes' inputs).
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index || *index == dimOf(dim.getSource()))
      return failure();
    return Step{Role::Local, 0, {}, {}};
  }
  if (auto append = dyn_cast<KvCacheAppendOp>(op)) {
    // A rank's heads' keys or values into a whole cache (an argument of
    // the entry, of every head): the rank's heads are a contiguous part of
    // it, on a dimension of its own.
    auto divided = splitOf(append.getUpdate());
    if (!divided || divided->outer != 1 || splitOf(append.getCache()) ||
        divided->dim >= append.getUpdate().getType().getRank() - 2 ||
        append.getCache().getType().isDynamicDim(divided->dim))
      return failure();
    return Step{Role::Cache, 0, {*divided}, {}};
  }
  if (auto gelu = dyn_cast<GeluOp>(op))
    return local(*splitOf(gelu.getInput()));
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
    // Elementwise: the divided loop is the one every divided operand reads
    // along its divided dimension; the result is divided there.
    for (OpOperand *input : linalgOp.getDpsInputOperands()) {
      auto divided = splitOf(input->get());
      if (!divided)
        continue;
      AffineMap map = linalgOp.getMatchingIndexingMap(input);
      if (!map.isProjectedPermutation() || divided->dim >= map.getNumResults())
        return failure();
      Split result{map.getDimPosition(divided->dim), divided->outer};
      if (!isElementwiseOn(linalgOp, result.dim, result, split))
        return failure();
      return local(result);
    }
    return failure();
  }
  if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
      isa<RankedTensorType>(op->getResult(0).getType())) {
    // arith on tensors: every operand divided alike.
    std::optional<Split> divided = splitOf(op->getOperand(0));
    if (!divided || llvm::any_of(op->getOperands(), [&](Value v) {
          return splitOf(v) != divided;
        }))
      return failure();
    return local(*divided);
  }
  return failure();
}

Operation *Planner::propagate(ArrayRef<LinearOp> starts,
                              DenseMap<Value, Split> &split,
                              llvm::MapVector<Operation *, Step> &found,
                              bool &inBlock) {
  DenseSet<Operation *> startSet;
  for (LinearOp linear : starts) {
    startSet.insert(linear);
    split[linear.getResult()] =
        Split{linear.getResult().getType().getRank() - 1, 1};
  }
  Operation *stuck = nullptr;
  // Past `stuck`, the values that depend on its results, as long as they
  // stay what a block computes between its products: not joined with the
  // whole stream (a residual) and not normalized.
  DenseSet<Value> tainted;
  auto isBoundary = [&](Operation *op) {
    if (isa<LayerNormOp, RmsNormOp, AddNormOp>(op))
      return true;
    return llvm::any_of(op->getOperands(), [&](Value v) {
      return isa<RankedTensorType>(v.getType()) && !tainted.contains(v) &&
             !split.contains(v) && !getConstant(v) &&
             !v.getDefiningOp<tensor::EmptyOp>();
    });
  };
  inBlock = false;
  for (Operation *op : order) {
    if (op == func)
      continue;
    if (stuck) {
      if (llvm::none_of(op->getOperands(),
                        [&](Value v) { return tainted.contains(v); }))
        continue;
      if (auto linear = dyn_cast<LinearOp>(op);
          linear && tainted.contains(linear.getInput())) {
        inBlock = true;
        break;
      }
      if (!isBoundary(op))
        for (Value result : op->getResults())
          tainted.insert(result);
      continue;
    }
    if (startSet.contains(op) || llvm::none_of(op->getOperands(), [&](Value v) {
          return split.contains(v);
        }))
      continue;
    FailureOr<Step> step = getRule(op, split);
    if (failed(step)) {
      stuck = op;
      if (!isBoundary(op))
        for (Value result : op->getResults())
          tainted.insert(result);
      continue;
    }
    for (auto [result, divided] : getDividedResults(op, *step))
      split[result] = divided;
    found.insert({op, *step});
  }
  return stuck;
}

LogicalResult Planner::planChains() {
  // Candidates: the linears whose weights are constants, not taken by a
  // block, with an output that no other use than slices of a fused
  // projection reads in pieces.
  SmallVector<LinearOp> candidates;
  for (Operation *op : order)
    if (auto linear = dyn_cast<LinearOp>(op))
      if (getConstant(linear.getWeight()) &&
          isConstantOrNull(linear.getBias()) && getSegments(linear.getResult()))
        candidates.push_back(linear);

  // Start from every candidate; drop those whose slices reach an op with no
  // rule (the classifier's output returned, a residual add of a slice and a
  // whole value) or that end another's chain, until the rest propagate.
  DenseMap<Value, Split> split;
  llvm::MapVector<Operation *, Step> found;
  while (!candidates.empty()) {
    split.clear();
    found.clear();
    bool inBlock = false;
    Operation *stuck = propagate(candidates, split, found, inBlock);

    // A candidate that another chain's slices reach is that chain's Row.
    auto isReached = [&](LinearOp linear) {
      return split.contains(linear.getInput());
    };
    if (llvm::any_of(candidates, isReached)) {
      llvm::erase_if(candidates, isReached);
      continue;
    }
    // The column linears that the divided operands of `op` come from.
    auto originsOf = [&](Operation *op) {
      DenseSet<Operation *> origins;
      SmallVector<Value> work;
      for (Value operand : op->getOperands())
        if (split.contains(operand))
          work.push_back(operand);
      DenseSet<Value> seen;
      while (!work.empty()) {
        Value value = work.pop_back_val();
        if (!seen.insert(value).second)
          continue;
        Operation *def = value.getDefiningOp();
        if (!def)
          continue;
        if (llvm::is_contained(candidates, dyn_cast<LinearOp>(def))) {
          origins.insert(def);
          continue;
        }
        for (Value operand : def->getOperands())
          if (split.contains(operand))
            work.push_back(operand);
      }
      return origins;
    };
    DenseSet<Operation *> dropped;
    if (stuck) {
      // Those whose slices reach an op with no rule: fine where they never
      // reach a product on the way out (a classifier's output returned),
      // an error inside an attention or feed-forward block.
      dropped = originsOf(stuck);
      if (inBlock)
        return stuck->emitError()
               << "cannot split this op over " << ranks
               << " ranks: no tensor-parallel rule takes its operands divided "
                  "as they are, between the products of an attention or "
                  "feed-forward block";
      if (dropped.empty())
        return stuck->emitError("tensor parallelism: no rule for this op");
    } else {
      // Those whose slices reach no product on the way out: nothing would
      // add their partial results up.
      DenseSet<Operation *> ended;
      for (auto &[op, step] : found)
        if (step.role == Role::Row)
          for (Operation *origin : originsOf(op))
            ended.insert(origin);
      for (LinearOp linear : candidates)
        if (!ended.contains(linear))
          dropped.insert(linear);
      if (dropped.empty())
        break;
    }
    llvm::erase_if(candidates,
                   [&](LinearOp linear) { return dropped.contains(linear); });
  }

  // The ops that pass divided values to each other form one chain, whose
  // ranks share one set of units: the largest number that every divided
  // size is a whole number of per run (a fused projection's segments, the
  // heads once reshaped into heads), so that each rank's block is whole
  // heads in every shape the chain takes.
  llvm::EquivalenceClasses<Operation *> chains;
  DenseMap<Operation *, int64_t> unitsOf;
  for (LinearOp linear : candidates) {
    chains.insert(linear);
    int64_t &units = unitsOf[linear];
    SmallVector<int64_t> segments = *getSegments(linear.getResult());
    for (int64_t segment : segments)
      units = std::gcd(units, segment);
  }
  SmallVector<Operation *> headOps;
  for (auto &[op, step] : found) {
    chains.insert(op);
    for (Value operand : op->getOperands())
      if (split.contains(operand))
        chains.unionSets(op, operand.getDefiningOp());
    int64_t &units = unitsOf[op];
    for (auto [result, divided] : getDividedResults(op, step)) {
      int64_t size = cast<ShapedType>(result.getType()).getDimSize(divided.dim);
      if (ShapedType::isDynamic(size))
        return op->emitError() << "cannot split this op's result over " << ranks
                               << " ranks: its size is dynamic";
      units = std::gcd(units, size / divided.outer);
    }
    if (isa<AttentionOp, SplitHeadsOp>(op))
      headOps.push_back(op);
  }
  DenseSet<Operation *> withHeads;
  for (Operation *op : headOps)
    withHeads.insert(chains.getLeaderValue(op));
  DenseMap<Operation *, int64_t> chainUnits;
  for (auto &[op, units] : unitsOf) {
    int64_t &chain = chainUnits[chains.getLeaderValue(op)];
    chain = std::gcd(chain, units);
  }
  // Checked once per chain, at its first product.
  DenseSet<Operation *> checked;
  for (LinearOp linear : candidates) {
    Operation *chain = chains.getLeaderValue(linear);
    int64_t units = chainUnits[chain];
    if (checked.insert(chain).second &&
        failed(checkUnits(linear, units,
                          withHeads.contains(chain) ? "heads"
                                                    : "output features")))
      return failure();
    steps[index[linear]] =
        Step{Role::Column, units, {}, *getSegments(linear.getResult())};
  }
  for (auto &[op, step] : found) {
    step.units = chainUnits[chains.getLeaderValue(op)];
    steps[index[op]] = step;
  }
  return success();
}

LogicalResult Planner::plan() {
  if (failed(planBlocks()) || failed(planChains()))
    return failure();
  if (!llvm::any_of(steps, [](auto &entry) {
        return entry.second.role == Role::Block ||
               entry.second.role == Role::Row;
      }))
    return func.emitError()
           << "found no attention or feed-forward block to split over " << ranks
           << " ranks (tensor parallelism splits "
           << "tfm.multi_head_attention, tfm.ffn, and chains of tfm.linear "
              "products through attention or an activation into another)";
  return success();
}

//===----------------------------------------------------------------------===//
// A rank's program
//===----------------------------------------------------------------------===//

class RankRewriter {
public:
  RankRewriter(func::FuncOp func, int64_t ranks, int64_t rank)
      : constants(OpBuilder::atBlockBegin(&func.getBody().front())),
        ranks(ranks), rank(rank) {}

  void apply(Operation *op, const Step &step);

private:
  /// `value`, a constant, sliced to this rank's `share` along `dim` (of
  /// each of `segments`, see sliceConstant).
  Value slice(Value value, int64_t dim, const Share &share,
              ArrayRef<int64_t> segments = {});
  /// `bias` on rank 0, zeros on the others: summed over the ranks, the bias
  /// of a product split by input features counts once.
  Value biasOnFirstRank(Value bias);
  /// Replaces the uses of `partial` by its sum over the ranks.
  void allReduce(Value partial);
  void divideResults(Operation *op, ArrayRef<Split> splits, const Share &share);

  /// Where the slices go: the top of the function, each made once (per
  /// dimension, units and segments: one weight may serve several chains).
  OpBuilder constants;
  std::map<std::tuple<void *, int64_t, int64_t, SmallVector<int64_t>>, Value>
      slices;
  Value zeroBias;
  DenseMap<Value, Value> zeros;
  int64_t ranks, rank;
};

Value RankRewriter::slice(Value value, int64_t dim, const Share &share,
                          ArrayRef<int64_t> segments) {
  if (!value)
    return value;
  Value &memo = slices[{value.getAsOpaquePointer(), dim, share.units,
                        SmallVector<int64_t>(segments)}];
  if (!memo)
    memo = arith::ConstantOp::create(constants, value.getLoc(),
                                     sliceConstant(getConstant(value), dim,
                                                   share.begin, share.count,
                                                   share.units, segments));
  return memo;
}

Value RankRewriter::biasOnFirstRank(Value bias) {
  if (!bias || rank == 0)
    return bias;
  auto type = cast<RankedTensorType>(bias.getType());
  Value &zero = zeros[bias];
  if (zero)
    return zero;
  return zero = arith::ConstantOp::create(
             constants, bias.getLoc(),
             DenseElementsAttr::get(
                 type, constants.getZeroAttr(type.getElementType())));
}

void RankRewriter::allReduce(Value partial) {
  OpBuilder b(partial.getContext());
  b.setInsertionPointAfterValue(partial);
  auto sum = shard::AllReduceOp::create(b, partial.getLoc(), partial, kGridName,
                                        ArrayRef<shard::GridAxis>{0},
                                        shard::ReductionKind::Sum);
  partial.replaceAllUsesExcept(sum.getResult(), sum);
}

void RankRewriter::divideResults(Operation *op, ArrayRef<Split> splits,
                                 const Share &share) {
  OpBuilder b(op);
  for (auto [result, divided] : llvm::zip(op->getResults(), splits))
    result.setType(splitType(result.getType(), divided.dim, share));
  // Destinations are tensor.empty of the result's type (Planner's rules).
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    for (OpOperand &init : dps.getDpsInitsMutable()) {
      auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
      auto type = cast<RankedTensorType>(
          op->getResult(init.getOperandNumber() - dps.getNumDpsInputs())
              .getType());
      SmallVector<OpFoldResult> sizes = empty.getMixedSizes();
      for (int64_t d = 0, e = type.getRank(); d < e; ++d)
        if (!type.isDynamicDim(d))
          sizes[d] = b.getIndexAttr(type.getDimSize(d));
      init.set(tensor::EmptyOp::create(b, empty.getLoc(), sizes,
                                       type.getElementType()));
    }
}

void RankRewriter::apply(Operation *op, const Step &step) {
  Share share(step.units, ranks, rank);
  auto sliced = [&](Value value, int64_t dim) {
    return slice(value, dim, share);
  };
  switch (step.role) {
  case Role::Block:
    if (auto mha = dyn_cast<MultiHeadAttentionOp>(op)) {
      // Each rank's heads: rows of the projections in, columns of W_o out.
      mha.getWQMutable().assign(sliced(mha.getWQ(), 0));
      mha.getWKMutable().assign(sliced(mha.getWK(), 0));
      mha.getWVMutable().assign(sliced(mha.getWV(), 0));
      mha.getWOMutable().assign(sliced(mha.getWO(), 1));
      if (mha.getBQ()) {
        mha.getBQMutable().assign(sliced(mha.getBQ(), 0));
        mha.getBKMutable().assign(sliced(mha.getBK(), 0));
        mha.getBVMutable().assign(sliced(mha.getBV(), 0));
        mha.getBOMutable().assign(biasOnFirstRank(mha.getBO()));
      }
      // The head dimension, and with it the default scale, stays.
      mha.setNumHeads(share.of(mha.getNumHeads()));
      if (auto kv = mha.getNumKvHeads())
        mha.setNumKvHeads(share.of(*kv));
      allReduce(mha.getResult());
      return;
    }
    if (auto ffn = dyn_cast<FfnOp>(op)) {
      if (ffn.getWGate())
        ffn.getWGateMutable().assign(sliced(ffn.getWGate(), 0));
      if (ffn.getBGate())
        ffn.getBGateMutable().assign(sliced(ffn.getBGate(), 0));
      ffn.getW1Mutable().assign(sliced(ffn.getW1(), 0));
      if (ffn.getB1())
        ffn.getB1Mutable().assign(sliced(ffn.getB1(), 0));
      ffn.getW2Mutable().assign(sliced(ffn.getW2(), 1));
      if (ffn.getB2())
        ffn.getB2Mutable().assign(biasOnFirstRank(ffn.getB2()));
      allReduce(ffn.getResult());
      return;
    }
    llvm_unreachable("a block is a multi-head attention or a feed-forward");
  case Role::Column: {
    auto linear = cast<LinearOp>(op);
    linear.getWeightMutable().assign(
        slice(linear.getWeight(), 0, share, step.segments));
    if (linear.getBias())
      linear.getBiasMutable().assign(
          slice(linear.getBias(), 0, share, step.segments));
    divideResults(op, Split{linear.getResult().getType().getRank() - 1, 1},
                  share);
    return;
  }
  case Role::Row: {
    auto linear = cast<LinearOp>(op);
    linear.getWeightMutable().assign(sliced(linear.getWeight(), 1));
    if (linear.getBias())
      linear.getBiasMutable().assign(biasOnFirstRank(linear.getBias()));
    allReduce(linear.getResult());
    return;
  }
  case Role::Cache: {
    // This rank's heads of the cache, appended to, written back.
    auto append = cast<KvCacheAppendOp>(op);
    Value cache = append.getCache();
    auto cacheType = cast<RankedTensorType>(cache.getType());
    int64_t dim = step.splits.front().dim, heads = cacheType.getDimSize(dim);
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<OpFoldResult> offsets(cacheType.getRank(), b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(cacheType.getRank(), b.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, cache);
    offsets[dim] = b.getIndexAttr(heads / share.units * share.begin);
    sizes[dim] = b.getIndexAttr(share.of(heads));
    Value mine =
        tensor::ExtractSliceOp::create(b, loc, cache, offsets, sizes, strides);
    append.getCacheMutable().assign(mine);
    append.getUpdated().setType(cast<RankedTensorType>(mine.getType()));
    append.getPrefix().setType(
        splitType(append.getPrefix().getType(), dim, share));
    // Written back after the block's last read of it (the attention's of
    // the prefix), so that bufferization writes the slice in place.
    b.setInsertionPoint(append->getBlock()->getTerminator());
    auto whole = tensor::InsertSliceOp::create(b, loc, append.getUpdated(),
                                               cache, offsets, sizes, strides);
    append.getUpdated().replaceAllUsesExcept(whole, whole);
    return;
  }
  case Role::Local:
    break;
  }

  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    // This rank's part of each segment of the fused projection.
    int64_t dim = step.splits.front().dim;
    SmallVector<int64_t> offsets(slice.getStaticOffsets());
    SmallVector<int64_t> sizes(slice.getStaticSizes());
    offsets[dim] = share.of(offsets[dim]);
    sizes[dim] = share.of(sizes[dim]);
    slice.setStaticOffsets(offsets);
    slice.setStaticSizes(sizes);
  } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    SmallVector<int64_t> shape(expand.getStaticOutputShape());
    shape[step.splits.front().dim] = share.of(shape[step.splits.front().dim]);
    expand.setStaticOutputShape(shape);
  } else if (auto heads = dyn_cast<SplitHeadsOp>(op)) {
    heads.setNumHeads(share.of(heads.getNumHeads()));
  } else if (auto heads = dyn_cast<MergeHeadsOp>(op)) {
    heads.setNumHeads(share.of(heads.getNumHeads()));
  }
  divideResults(op, step.splits, share);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct TfmTensorParallel
    : public tfm::impl::TfmTensorParallelBase<TfmTensorParallel> {
  using Base::Base;

  void runOnOperation() override {
    if (ranks < 1) {
      getOperation().emitError() << "tfm-tensor-parallel: ranks must be at "
                                    "least 1, found "
                                 << static_cast<int64_t>(ranks);
      return signalPassFailure();
    }
    if (ranks == 1)
      return;
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
    if (entries.empty())
      return;

    OpBuilder b(module.getBodyRegion());
    b.setInsertionPointToStart(module.getBody());
    shard::GridOp::create(b, module.getLoc(), kGridName,
                          ArrayRef<int64_t>{ranks});
    MLIRContext *ctx = &getContext();
    module->setAttr(kTensorParallelAttr, b.getI64IntegerAttr(ranks));
    // convert-shard-to-mpi's MPI calls follow Open MPI's ABI.
    DataLayoutEntryInterface mpi =
        DataLayoutEntryAttr::get(StringAttr::get(ctx, "MPI:Implementation"),
                                 StringAttr::get(ctx, "OpenMPI"));
    module->setAttr("dlti.map", MapAttr::get(ctx, {mpi}));

    for (func::FuncOp entry : entries)
      if (failed(splitEntry(entry)))
        return signalPassFailure();
  }

  LogicalResult splitEntry(func::FuncOp entry) {
    Planner planner(entry, ranks);
    if (failed(planner.plan()))
      return failure();

    // One clone per rank, its weights that rank's slices.
    SmallVector<func::FuncOp> clones;
    OpBuilder b(entry);
    b.setInsertionPointAfter(entry);
    for (int64_t rank = 0; rank < ranks; ++rank) {
      auto clone = cast<func::FuncOp>(b.clone(*entry));
      clone.setSymName((entry.getSymName() + "_rank" + Twine(rank)).str());
      clone.setPrivate();
      // Which rank's weights it reads: the binary groups them by rank
      // (WeightsObject.cpp), so that a rank's process moves only its own.
      clone->setAttr(kRankAttr, b.getI64IntegerAttr(rank));
      // The entry's argument and result attributes describe the interface;
      // the clones' are the entry's calls'.
      clone.removeArgAttrsAttr();
      clone.removeResAttrsAttr();
      // Except which results are caches updated in place: the clone's
      // call updates the entry's (tfm-drop-kv-cache-results).
      for (unsigned i = 0, e = entry.getNumResults(); i < e; ++i)
        if (Attribute cache = entry.getResultAttr(i, kKvCacheResultAttr))
          clone.setResultAttr(i, kKvCacheResultAttr, cache);
      SmallVector<Operation *> order;
      clone.walk<WalkOrder::PreOrder>(
          [&](Operation *op) { order.push_back(op); });
      RankRewriter rewriter(clone, ranks, rank);
      for (auto &[position, step] : planner.steps)
        rewriter.apply(order[position], step);
      // The whole weights that the slices replaced, the destinations that
      // divided ones replaced.
      clone.walk<WalkOrder::PostOrder, ReverseIterator>([](Operation *op) {
        if (isOpTriviallyDead(op))
          op->erase();
      });
      clones.push_back(clone);
    }

    // The entry calls its rank's clone.
    Block &body = entry.getBody().front();
    Location loc = entry.getLoc();
    Operation *terminator = body.getTerminator();
    SmallVector<Operation *> old;
    for (Operation &op : body.without_terminator())
      old.push_back(&op);
    b.setInsertionPoint(terminator);
    Value rankIndex = shard::ProcessLinearIndexOp::create(
        b, loc, b.getIndexType(), kGridName);
    SmallVector<int64_t> cases;
    for (int64_t rank = 1; rank < ranks; ++rank)
      cases.push_back(rank);
    TypeRange resultTypes = entry.getFunctionType().getResults();
    auto dispatch = scf::IndexSwitchOp::create(b, loc, resultTypes, rankIndex,
                                               cases, cases.size());
    auto callIn = [&](Region &region, func::FuncOp clone) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&region.emplaceBlock());
      auto call = func::CallOp::create(b, loc, clone, body.getArguments());
      scf::YieldOp::create(b, loc, call.getResults());
    };
    // Rank 0 is the default: the runtime checks that there are `ranks`.
    callIn(dispatch.getDefaultRegion(), clones[0]);
    for (int64_t rank = 1; rank < ranks; ++rank)
      callIn(dispatch.getCaseRegions()[rank - 1], clones[rank]);
    terminator->setOperands(dispatch.getResults());
    for (Operation *op : llvm::reverse(old))
      op->erase();
    return success();
  }
};

} // namespace
