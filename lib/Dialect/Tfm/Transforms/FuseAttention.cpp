//===- FuseAttention.cpp - Fuse unfused attention into tfm.attention ------===//
//
// Implements `tfm-fuse-attention`: `softmax(mask(Q Kᵀ · scale)) V` written op
// by op becomes one `tfm.attention`.
//
// The patterns are anchored on the product with V and match backwards:
//
//   product with V  <-  reshapes, dropout  <-  softmax  <-  masks, scales,
//   reshapes, dropout  <-  Q·Kᵀ  <-  scales of Q or K, a transpose of K
//
// The anchor is a candidate once a softmax is found behind its left operand
// and a product (Q·Kᵀ) behind the softmax. A candidate is then either fused,
// or rejected for a reason that is counted in one of the pass statistics
// and, with `remarks`, reported at the anchor. Anything else (a matmul that
// is not fed by a softmax, an op on the scores that is not recognised) is not
// a candidate and is left alone silently.
//
// The patterns run with the walk driver, so that every op is visited once
// and a rejected candidate is counted once; what a fusion leaves dead is
// erased afterwards.
//
// Why one file of over 700 lines: the backward match is one walk over one
// candidate, whose steps (softmax forms, masks, scales, reshapes) fill the
// same candidate state and report into the same statistics and remarks; the
// file reads top to bottom in the order of that walk.
//
//===----------------------------------------------------------------------===//

#include "FusionUtils.h"

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "tfm-fuse-attention"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEATTENTION
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

//===----------------------------------------------------------------------===//
// Rejections and their statistics
//===----------------------------------------------------------------------===//

/// Why a candidate is not fused. Every kind has its pass statistic.
enum class RejectKind { SoftmaxAxis, Scale, MultiUse, Shape, Mask };

/// The name of the statistic that counts `kind` (as in Passes.td).
StringRef getStatisticName(RejectKind kind) {
  switch (kind) {
  case RejectKind::SoftmaxAxis:
    return "rejected-softmax-axis";
  case RejectKind::Scale:
    return "rejected-scale";
  case RejectKind::MultiUse:
    return "rejected-multi-use";
  case RejectKind::Shape:
    return "rejected-shape";
  case RejectKind::Mask:
    return "rejected-mask";
  }
  llvm_unreachable("unknown rejection kind");
}

/// A rejection: its kind and a sentence saying why.
struct Rejection {
  RejectKind kind;
  std::string reason;
};

/// What the patterns share with the pass: the statistics, whether to emit
/// remarks, and the producers of fused anchors, which may be dead once the
/// walk is over.
struct FusionState {
  bool remarks = false;
  Pass::Statistic *fused = nullptr;
  Pass::Statistic *rejected[5] = {};
  llvm::SetVector<Operation *> maybeDead;

  void reportFused(Operation *anchor) {
    ++*fused;
    if (remarks)
      anchor->emitRemark("fused attention");
  }

  void reportRejected(Operation *anchor, const Rejection &rejection) {
    ++*rejected[static_cast<int>(rejection.kind)];
    if (remarks)
      anchor->emitRemark() << "attention not fused ("
                           << getStatisticName(rejection.kind)
                           << "): " << rejection.reason;
  }
};

/// Drops erased ops from the ops that may be dead after the walk.
struct ErasedOpsListener : RewriterBase::Listener {
  explicit ErasedOpsListener(llvm::SetVector<Operation *> &ops) : ops(ops) {}
  void notifyOperationErased(Operation *op) override { ops.remove(op); }
  llvm::SetVector<Operation *> &ops;
};

//===----------------------------------------------------------------------===//
// Small matchers
//===----------------------------------------------------------------------===//

using fusion::kLargeNegative;
using fusion::regroupLeading;

/// How far `reachesProduct` looks back.
constexpr unsigned kMaxSearchDepth = 12;

/// Returns the value of `v` if it is a constant scalar: a float constant, a
/// splat tensor constant of any rank (0 included), or a linalg.fill of one.
std::optional<double> getConstantScalar(Value v) {
  Attribute attr;
  if (matchPattern(v, m_Constant(&attr))) {
    if (auto scalar = dyn_cast<FloatAttr>(attr))
      return scalar.getValueAsDouble();
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr);
        dense && dense.isSplat())
      return dense.getSplatValue<APFloat>().convertToDouble();
    return std::nullopt;
  }
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return getConstantScalar(fill.getDpsInputOperand(0)->get());
  return std::nullopt;
}

/// Describes a value that `getConstantScalar` rejects, for the remarks.
StringRef describeNonScalar(Value v) {
  if (matchPattern(v, m_Constant()))
    return "a constant that is not a splat";
  return "a value that is not a constant";
}

/// True if `init` is a zero accumulator (or an undefined one, tensor.empty).
bool isZeroInit(Value init) {
  if (init.getDefiningOp<tensor::EmptyOp>())
    return true;
  std::optional<double> value = getConstantScalar(init);
  return value && *value == 0.0;
}

/// True if `permutation` swaps the last two dimensions and keeps the others.
bool swapsLastTwo(ArrayRef<int64_t> permutation) {
  int64_t rank = permutation.size();
  if (rank < 2)
    return false;
  for (int64_t i = 0; i < rank - 2; ++i)
    if (permutation[i] != i)
      return false;
  return permutation[rank - 2] == rank - 1 && permutation[rank - 1] == rank - 2;
}

/// The batch dimensions of a `[batch..., rows, columns]` value.
ArrayRef<int64_t> getBatchShape(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape().drop_back(2);
}

/// `lhs · rhs` computed by a matmul op: `lhs` is `[..., M, K]`, or
/// `[..., K, M]` when `lhsTransposed`; `rhs` is `[..., K, N]`, or
/// `[..., N, K]` when `rhsTransposed`.
struct Product {
  Value lhs, rhs;
  bool lhsTransposed = false;
  bool rhsTransposed = false;
  /// The accumulator is zero (always so for tfm.batch_matmul).
  bool zeroInit = true;
};

bool isProductOp(Operation *op) {
  return isa<BatchMatmulOp, linalg::BatchMatmulOp, linalg::MatmulOp>(op);
}

/// Reads the indexing maps of a linalg (batch) matmul with `numBatch` batch
/// loops into `product`: each operand may be plain or transposed, the
/// output must be plain. Fails for anything else (broadcasts).
LogicalResult readIndexingMaps(linalg::LinalgOp op, unsigned numBatch,
                               Product &product) {
  MLIRContext *ctx = op->getContext();
  unsigned numDims = numBatch + 3;
  SmallVector<AffineExpr> batch;
  for (unsigned i = 0; i < numBatch; ++i)
    batch.push_back(getAffineDimExpr(i, ctx));
  AffineExpr m = getAffineDimExpr(numBatch, ctx);
  AffineExpr n = getAffineDimExpr(numBatch + 1, ctx);
  AffineExpr k = getAffineDimExpr(numBatch + 2, ctx);
  auto map = [&](AffineExpr a, AffineExpr b) {
    SmallVector<AffineExpr> exprs(batch);
    exprs.push_back(a);
    exprs.push_back(b);
    return AffineMap::get(numDims, 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps.size() != 3 || maps[2] != map(m, n))
    return failure();
  if (maps[0] != map(m, k) && maps[0] != map(k, m))
    return failure();
  if (maps[1] != map(k, n) && maps[1] != map(n, k))
    return failure();
  product.lhsTransposed = maps[0] == map(k, m);
  product.rhsTransposed = maps[1] == map(n, k);
  return success();
}

/// Returns the product `op` computes, or failure for a linalg op whose
/// indexing maps are not those of a (transposed) matrix product.
FailureOr<Product> getProduct(Operation *op) {
  if (auto bmm = dyn_cast<BatchMatmulOp>(op))
    return Product{bmm.getLhs(), bmm.getRhs(), /*lhsTransposed=*/false,
                   bmm.getTransposeRhs(), /*zeroInit=*/true};
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !isa<linalg::BatchMatmulOp, linalg::MatmulOp>(op) ||
      !linalgOp.hasPureTensorSemantics())
    return failure();
  Product product;
  product.lhs = linalgOp.getDpsInputs()[0];
  product.rhs = linalgOp.getDpsInputs()[1];
  product.zeroInit = isZeroInit(linalgOp.getDpsInits()[0]);
  if (failed(readIndexingMaps(linalgOp, isa<linalg::BatchMatmulOp>(op) ? 1 : 0,
                              product)))
    return failure();
  return product;
}

/// True if `v` is computed from a product (matmul) through ops that may lie
/// on the scores: reshapes, dropout and elementwise arithmetic.
bool reachesProduct(Value v, unsigned depth = 0) {
  Operation *op = v.getDefiningOp();
  if (!op || depth > kMaxSearchDepth)
    return false;
  if (isProductOp(op))
    return true;
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, DropoutOp>(op))
    return reachesProduct(op->getOperand(0), depth + 1);
  auto reaches = [&](Value operand) {
    return reachesProduct(operand, depth + 1);
  };
  if (isa<arith::MulFOp, arith::DivFOp, arith::AddFOp>(op))
    return llvm::any_of(op->getOperands(), reaches);
  if (auto select = dyn_cast<arith::SelectOp>(op))
    return reaches(select.getTrueValue()) || reaches(select.getFalseValue());
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return llvm::any_of(generic.getDpsInputs(), reaches);
  return false;
}

/// True if `generic` is elementwise: one result, all loops parallel and an
/// identity map on its output.
bool isElementwise(linalg::GenericOp generic) {
  if (generic->getNumResults() != 1 || generic.getNumDpsInits() != 1 ||
      !generic.hasPureTensorSemantics() ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  return generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
      .isIdentity();
}

/// True if `v`, inside the body of a linalg.generic, is computed from `arg`.
bool dependsOn(Value v, Value arg, Block *body) {
  if (v == arg)
    return true;
  Operation *op = v.getDefiningOp();
  if (!op || op->getBlock() != body)
    return false;
  return llvm::any_of(op->getOperands(), [&](Value operand) {
    return dependsOn(operand, arg, body);
  });
}

/// The constant scalar that `v`, an operand inside the body of `generic`,
/// stands for: a constant defined in or captured by the body, or the block
/// argument of an input that is a splat or rank-0 constant. Null if none;
/// `source` is set to the value to describe in that case.
std::optional<double> getBodyScalar(linalg::GenericOp generic, Value v,
                                    Value &source) {
  source = v;
  if (auto arg = dyn_cast<BlockArgument>(v);
      arg && arg.getOwner() == generic.getBody()) {
    if (arg.getArgNumber() >= generic.getNumDpsInputs())
      return std::nullopt;
    source = generic.getDpsInputs()[arg.getArgNumber()];
  }
  return getConstantScalar(source);
}

/// If `v` is `x · c` or `x / c` for a constant scalar `c` (arith on tensors
/// or an elementwise linalg.generic), returns `x` and the factor.
std::optional<std::pair<Value, double>> matchScalarScale(Value v) {
  Operation *op = v.getDefiningOp();
  if (!op)
    return std::nullopt;
  auto factor = [](double c, bool divide) -> std::optional<double> {
    double f = divide ? 1.0 / c : c;
    if (!std::isfinite(f))
      return std::nullopt;
    return f;
  };
  if (auto mul = dyn_cast<arith::MulFOp>(op)) {
    for (int i = 0; i < 2; ++i)
      if (std::optional<double> c = getConstantScalar(op->getOperand(1 - i)))
        if (std::optional<double> f = factor(*c, false))
          return std::make_pair(op->getOperand(i), *f);
    return std::nullopt;
  }
  if (auto div = dyn_cast<arith::DivFOp>(op)) {
    if (std::optional<double> c = getConstantScalar(div.getRhs()))
      if (std::optional<double> f = factor(*c, true))
        return std::make_pair(div.getLhs(), *f);
    return std::nullopt;
  }
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || !isElementwise(generic))
    return std::nullopt;
  Block *body = generic.getBody();
  Operation *bodyOp = body->getTerminator()->getOperand(0).getDefiningOp();
  if (!bodyOp || bodyOp->getBlock() != body ||
      !isa<arith::MulFOp, arith::DivFOp>(bodyOp))
    return std::nullopt;
  bool divide = isa<arith::DivFOp>(bodyOp);
  for (int i = 0; i < (divide ? 1 : 2); ++i) {
    auto data = dyn_cast<BlockArgument>(bodyOp->getOperand(i));
    if (!data || data.getOwner() != body ||
        data.getArgNumber() >= generic.getNumDpsInputs())
      continue;
    OpOperand *input = generic.getDpsInputOperand(data.getArgNumber());
    if (!generic.getMatchingIndexingMap(input).isIdentity())
      continue;
    Value source;
    std::optional<double> c =
        getBodyScalar(generic, bodyOp->getOperand(1 - i), source);
    if (!c)
      continue;
    if (std::optional<double> f = factor(*c, divide))
      return std::make_pair(input->get(), *f);
  }
  return std::nullopt;
}

/// For a reshape that may lie between the pieces of an attention, its
/// source and whether it keeps the last two dimensions (the only reshapes
/// the fusion goes through): the last dimension of the expanded shape is
/// alone in its group, and the group of the second to last only adds unit
/// dimensions to it.
struct ReshapeStep {
  Value source;
  bool keepsLastTwo;
};

std::optional<ReshapeStep> getReshapeStep(Operation *op) {
  SmallVector<ReassociationIndices> groups;
  ArrayRef<int64_t> expanded;
  Value source;
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    groups = expand.getReassociationIndices();
    expanded = expand.getResultType().getShape();
    source = expand.getSrc();
  } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    groups = collapse.getReassociationIndices();
    expanded = collapse.getSrcType().getShape();
    source = collapse.getSrc();
  } else {
    return std::nullopt;
  }
  int64_t rank = expanded.size();
  if (groups.size() < 2)
    return ReshapeStep{source, false};
  const ReassociationIndices &last = groups.back();
  const ReassociationIndices &prev = groups[groups.size() - 2];
  bool keeps = last.size() == 1 && last.front() == rank - 1 &&
               prev.back() == rank - 2 &&
               llvm::all_of(ArrayRef<int64_t>(prev).drop_back(),
                            [&](int64_t d) { return expanded[d] == 1; });
  return ReshapeStep{source, keeps};
}

/// Follows `v` through arith.index_cast to a linalg.index; returns its
/// dimension.
std::optional<int64_t> getIndexDim(Value v) {
  while (Operation *op = v.getDefiningOp()) {
    if (isa<arith::IndexCastOp, arith::IndexCastUIOp>(op)) {
      v = op->getOperand(0);
      continue;
    }
    if (auto index = dyn_cast<linalg::IndexOp>(op))
      return index.getDim();
    return std::nullopt;
  }
  return std::nullopt;
}

/// The predicate `p'` such that `a p b` is `b p' a`.
arith::CmpIPredicate swapOperands(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::slt:
    return P::sgt;
  case P::sgt:
    return P::slt;
  case P::sle:
    return P::sge;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ugt:
    return P::ult;
  case P::ule:
    return P::uge;
  case P::uge:
    return P::ule;
  default:
    return pred;
  }
}

//===----------------------------------------------------------------------===//
// Masks
//===----------------------------------------------------------------------===//

/// An additive mask as found on the scores: the tensor before any
/// broadcast, and for each of its dimensions the dimension of the scores it
/// runs along (strictly increasing).
struct MaskUse {
  Value source;
  SmallVector<int64_t> scoreDims;
  /// The scores the mask is added to.
  RankedTensorType scoresType;
  /// Instead of `source`, a constant that the matcher computed (two
  /// constant masks added together), created only if the attention fuses.
  DenseElementsAttr folded = {};

  int64_t getScoreRank() const { return scoresType.getRank(); }
  RankedTensorType getSourceType() const {
    return folded ? cast<RankedTensorType>(folded.getType())
                  : cast<RankedTensorType>(source.getType());
  }

  /// The rank of the mask as the attention's `mask` operand: its dimensions
  /// from the first score dimension it runs along to the last one.
  int64_t getOperandRank() const {
    return scoreDims.empty() ? 0 : getScoreRank() - scoreDims.front();
  }
};

/// Follows linalg.broadcast ops from the mask towards its source.
void lookThroughBroadcasts(MaskUse &mask) {
  while (auto broadcast = mask.source.getDefiningOp<linalg::BroadcastOp>()) {
    ArrayRef<int64_t> added = broadcast.getDimensions();
    SmallVector<int64_t> dims;
    for (auto [d, scoreDim] : llvm::enumerate(mask.scoreDims))
      if (!llvm::is_contained(added, static_cast<int64_t>(d)))
        dims.push_back(scoreDim);
    mask.scoreDims = std::move(dims);
    mask.source = broadcast.getInput();
  }
}

/// True if `v` is a tensor of zeros (`zero`) or of ones/`true`: a splat
/// constant, or a fill of a dynamic shape.
bool isSplatOf(Value v, bool zero) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    v = fill.getInputs().front();
  return zero ? matchPattern(v, m_Zero()) : matchPattern(v, m_One());
}

/// For an input of a linalg.generic read through `map`, the score dimension
/// each of its dimensions runs along, if `map` is a broadcast: a projection
/// keeping the order of the loops, or the identity with size-1 dimensions
/// read at index 0.
std::optional<SmallVector<int64_t>> getBroadcastDims(AffineMap map,
                                                     ArrayRef<int64_t> shape) {
  unsigned numDims = map.getNumDims();
  if (map.getNumResults() == numDims) {
    bool identity = true;
    for (auto [i, expr] : llvm::enumerate(map.getResults())) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if ((dim && dim.getPosition() == i) ||
          (constant && constant.getValue() == 0 && shape[i] == 1))
        continue;
      identity = false;
    }
    if (identity)
      return llvm::to_vector(llvm::seq<int64_t>(0, numDims));
  }
  SmallVector<int64_t> dims;
  for (AffineExpr expr : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || (!dims.empty() && dim.getPosition() <= dims.back()))
      return std::nullopt;
    dims.push_back(dim.getPosition());
  }
  return dims;
}

/// True if `generic` computes a causal mask from its indices: a select on a
/// comparison of the key index with the query index, giving 0 where the key
/// is at or before the query and a large negative value after it.
bool isCausalIndexMask(linalg::GenericOp generic, int64_t queryDim,
                       int64_t keyDim, double factor) {
  if (!isElementwise(generic))
    return false;
  Value yielded = generic.getBody()->getTerminator()->getOperand(0);
  auto select = yielded.getDefiningOp<arith::SelectOp>();
  if (!select)
    return false;
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return false;
  std::optional<int64_t> lhs = getIndexDim(cmp.getLhs());
  std::optional<int64_t> rhs = getIndexDim(cmp.getRhs());
  if (!lhs || !rhs)
    return false;
  // Normalise to `key pred query`.
  arith::CmpIPredicate pred = cmp.getPredicate();
  if (*lhs == queryDim && *rhs == keyDim)
    pred = swapOperands(pred);
  else if (*lhs != keyDim || *rhs != queryDim)
    return false;
  bool maskedWhenTrue;
  switch (pred) {
  case arith::CmpIPredicate::sgt:
  case arith::CmpIPredicate::ugt:
    maskedWhenTrue = true;
    break;
  case arith::CmpIPredicate::sle:
  case arith::CmpIPredicate::ule:
    maskedWhenTrue = false;
    break;
  default:
    return false;
  }
  std::optional<double> onTrue = getConstantScalar(select.getTrueValue());
  std::optional<double> onFalse = getConstantScalar(select.getFalseValue());
  if (!onTrue || !onFalse)
    return false;
  double masked = maskedWhenTrue ? *onTrue : *onFalse;
  double kept = maskedWhenTrue ? *onFalse : *onTrue;
  return kept == 0.0 && masked * factor <= kLargeNegative;
}

/// True if `values` (the elements of a constant of `shape`, in order) are
/// `masked(value)` exactly for the keys after the query, along `queryDim`
/// and `keyDim`.
template <typename Range, typename IsMasked>
bool isCausalTriangle(ArrayRef<int64_t> shape, int64_t queryDim,
                      int64_t keyDim, Range values, IsMasked masked) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  int64_t index = 0;
  for (const auto &value : values) {
    int64_t query = (index / strides[queryDim]) % shape[queryDim];
    int64_t key = (index / strides[keyDim]) % shape[keyDim];
    if (masked(value) != (key > query))
      return false;
    ++index;
  }
  return true;
}

/// True if `attr` is 0 on and below the diagonal (key <= query) and large
/// negative above it.
bool isCausalConstant(DenseFPElementsAttr attr, int64_t queryDim,
                      int64_t keyDim, double factor) {
  if (attr.getNumElements() > (int64_t{1} << 22))
    return false;
  bool additive = true;
  bool triangle = isCausalTriangle(
      attr.getType().getShape(), queryDim, keyDim, attr.getValues<APFloat>(),
      [&](const APFloat &value) {
        double x = value.convertToDouble();
        bool masked = x * factor <= kLargeNegative;
        additive &= masked || x == 0.0;
        return masked;
      });
  return triangle && additive;
}

/// The dimensions of `mask`'s source that run along the queries and the
/// keys of the scores, if it has both and is not broadcast along them.
std::optional<std::pair<int64_t, int64_t>>
getQueryKeyDims(const MaskUse &mask) {
  int64_t rank = mask.getScoreRank();
  const auto *query = llvm::find(mask.scoreDims, rank - 2);
  const auto *key = llvm::find(mask.scoreDims, rank - 1);
  if (query == mask.scoreDims.end() || key == mask.scoreDims.end())
    return std::nullopt;
  int64_t queryDim = query - mask.scoreDims.begin();
  int64_t keyDim = key - mask.scoreDims.begin();
  RankedTensorType type = mask.getSourceType();
  if (type.getDimSize(queryDim) != mask.scoresType.getDimSize(rank - 2) ||
      type.getDimSize(keyDim) != mask.scoresType.getDimSize(rank - 1))
    return std::nullopt;
  return std::make_pair(queryDim, keyDim);
}

/// True if `mask`, added to the scores and then multiplied by `factor`, is a
/// causal mask (key j masked for query i exactly when j > i).
bool isCausal(const MaskUse &mask, double factor) {
  if (!(factor > 0.0))
    return false;
  std::optional<std::pair<int64_t, int64_t>> dims = getQueryKeyDims(mask);
  if (!dims)
    return false;
  auto [queryDim, keyDim] = *dims;
  // Unit dimensions added by an expand_shape (an ONNX Unsqueeze of a
  // triangle computed at run time) are not the mask's.
  Value source = mask.source;
  while (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>()) {
    auto type = cast<RankedTensorType>(source.getType());
    std::optional<int64_t> query, key;
    bool unitOthers = true;
    for (auto [group, dims] :
         llvm::enumerate(expand.getReassociationIndices())) {
      for (int64_t d : dims) {
        if (d == queryDim)
          query = group;
        else if (d == keyDim)
          key = group;
        else if (llvm::is_contained(dims, queryDim) ||
                 llvm::is_contained(dims, keyDim))
          unitOthers &= type.getDimSize(d) == 1;
      }
    }
    if (!query || !key || *query == *key || !unitOthers)
      break;
    queryDim = *query;
    keyDim = *key;
    source = expand.getSrc();
  }
  if (auto generic = source.getDefiningOp<linalg::GenericOp>())
    return isCausalIndexMask(generic, queryDim, keyDim, factor);
  DenseFPElementsAttr attr;
  if (matchPattern(mask.source, m_Constant(&attr)))
    return isCausalConstant(attr, queryDim, keyDim, factor);
  return false;
}

/// True if the boolean (or integer) constant `attr` behind `mask` selects
/// the masked value exactly for the keys after the query: nonzero there when
/// `maskedWhenNonzero`, zero there otherwise. PyTorch exports
/// `masked_fill(triu(ones, 1).bool(), -inf)` as such a constant.
bool isCausalBoolean(const MaskUse &mask, DenseIntElementsAttr attr,
                     bool maskedWhenNonzero) {
  std::optional<std::pair<int64_t, int64_t>> dims = getQueryKeyDims(mask);
  if (!dims || attr.getNumElements() > (int64_t{1} << 26) || attr.isSplat())
    return false;
  return isCausalTriangle(attr.getType().getShape(), dims->first,
                          dims->second, attr.getValues<APInt>(),
                          [&](const APInt &value) {
                            return value.isZero() != maskedWhenNonzero;
                          });
}


/// If `generic` computes a boolean causal condition from its indices,
/// comparing the key index `j` with the query index `i`, either directly or
/// as `j - i` against a value `X` from outside (PyTorch's
/// `tril(ones(S, past + S), past)` of a decoder with a key/value cache,
/// which ONNX's Trilu with a computed `k` imports as), returns the queries'
/// offset: `X`, or a null value for 0. The condition must be true exactly
/// for the masked keys (`j > i + X`) when `maskedWhenTrue`, and for the
/// visible ones otherwise.
std::optional<Value> matchCausalCondition(linalg::GenericOp generic,
                                          int64_t queryDim, int64_t keyDim,
                                          bool maskedWhenTrue) {
  if (!isElementwise(generic))
    return std::nullopt;
  Block *body = generic.getBody();
  auto cmp = body->getTerminator()->getOperand(0).getDefiningOp<arith::CmpIOp>();
  if (!cmp || cmp->getBlock() != body)
    return std::nullopt;
  arith::CmpIPredicate pred = cmp.getPredicate();
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  // `key - query pred X`, or `key pred query` with X = 0.
  Value offset;
  auto isKeyMinusQuery = [&](Value v) {
    auto sub = v.getDefiningOp<arith::SubIOp>();
    return sub && getIndexDim(sub.getLhs()) == keyDim &&
           getIndexDim(sub.getRhs()) == queryDim;
  };
  auto isOutside = [&](Value v) {
    return !body->getParentOp()->isAncestor(
        v.getParentRegion()->getParentOp());
  };
  if (isKeyMinusQuery(rhs) || getIndexDim(rhs) == keyDim) {
    std::swap(lhs, rhs);
    pred = swapOperands(pred);
  }
  if (isKeyMinusQuery(lhs) && isOutside(rhs) && rhs.getType().isIndex()) {
    if (!matchPattern(rhs, m_Zero()))
      offset = rhs;
  } else if (getIndexDim(lhs) != keyDim || getIndexDim(rhs) != queryDim) {
    return std::nullopt;
  }
  switch (pred) {
  case arith::CmpIPredicate::sgt:
    if (maskedWhenTrue)
      return offset;
    return std::nullopt;
  case arith::CmpIPredicate::sle:
    if (!maskedWhenTrue)
      return offset;
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

//===----------------------------------------------------------------------===//
// The matcher
//===----------------------------------------------------------------------===//

/// The operand of the attention that `v` holds with its last two dimensions
/// swapped when `swapped`: the input of a linalg.transpose that swaps them,
/// or `v` itself, with `needsTranspose` set.
Value getAttentionOperand(Value v, bool swapped, bool &needsTranspose) {
  needsTranspose = false;
  if (!swapped)
    return v;
  auto transpose = v.getDefiningOp<linalg::TransposeOp>();
  if (transpose && swapsLastTwo(transpose.getPermutation()))
    return transpose.getInput();
  needsTranspose = true;
  return v;
}

/// Everything the rewrite needs to know about a candidate.
struct AttentionMatch {
  /// Q `[..., Sq, D]`, K `[..., Sk, D]` and V `[..., Sk, Dv]`, each with
  /// its last two dimensions swapped when the flag says so.
  Value query, key, value;
  bool transposeQuery = false, transposeKey = false, transposeValue = false;
  /// The scores Q·Kᵀ, whose batch dimensions Q and K share.
  RankedTensorType scoresType;
  /// valid_lens of a tfm.masked_softmax, and that softmax's input type.
  Value validLens;
  RankedTensorType softmaxType;
  std::optional<MaskUse> mask;
  bool causal = false;
  /// With `causal`, the position of the first query among the keys (a
  /// cache's length), or null for 0.
  Value queryOffset;
  double scale = 1.0;
  double dropout = 0.0;
  /// A reshape lies between the pieces: Q, K, V, the masks and the result
  /// may have different batch dimensions.
  bool reshaped = false;
  /// The batch dimensions at which tfm.attention is built.
  SmallVector<int64_t> batch;
};

/// Walks back from a product with V, the anchor, and fills an
/// AttentionMatch, recording the first reason not to fuse.
class AttentionMatcher {
public:
  /// Fails when `anchor` (weights · values) is not a candidate: no softmax
  /// behind `weights`, or no product behind the softmax. Succeeds otherwise,
  /// with `rejection` set when the candidate must not be fused.
  LogicalResult match(Operation *anchor, Value weights, const Product &pv);

  AttentionMatch result;
  std::optional<Rejection> rejection;

private:
  void reject(RejectKind kind, const Twine &reason) {
    if (!rejection)
      rejection = Rejection{kind, reason.str()};
  }
  void requireOneUse(Value v, const Twine &what) {
    if (!v.hasOneUse())
      reject(RejectKind::MultiUse, "another op uses " + what);
  }

  Operation *findSoftmax(Value weights);
  Value matchSoftmax(Operation *softmax);
  Operation *walkScores(Value scores);
  Value stepBack(Operation *op);
  Value stepBackGeneric(linalg::GenericOp generic);
  void addScale(Value side, bool divide);
  void addMask(MaskUse mask);
  void addSelectMask(arith::SelectOp select, bool scoresOnTrue, Value masked);
  LogicalResult matchProduct(Operation *product);
  Value foldScale(Value operand);
  void checkTypes(Operation *anchor);
  void chooseBatch(Operation *anchor);
};

LogicalResult AttentionMatcher::match(Operation *anchor, Value weights,
                                      const Product &pv) {
  result.value =
      getAttentionOperand(pv.rhs, pv.rhsTransposed, result.transposeValue);
  Operation *softmax = findSoftmax(weights);
  if (!softmax)
    return failure();
  Value scores = matchSoftmax(softmax);
  Operation *product = walkScores(scores);
  if (!product) {
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] no Q·Kᵀ behind the softmax "
                            << *softmax << "\n");
    return failure();
  }
  if (result.validLens && (result.mask || result.causal))
    reject(RejectKind::Mask,
           "valid_lens of tfm.masked_softmax apply after the additive mask, "
           "and tfm.attention applies them before it");
  if (failed(matchProduct(product)))
    return success();
  checkTypes(anchor);
  chooseBatch(anchor);
  return success();
}

/// Follows the weights back through reshapes and dropout to a softmax.
Operation *AttentionMatcher::findSoftmax(Value weights) {
  Value current = weights;
  while (Operation *op = current.getDefiningOp()) {
    if (isa<MaskedSoftmaxOp, linalg::SoftmaxOp>(op))
      return op;
    if (auto dropout = dyn_cast<DropoutOp>(op)) {
      double rate = dropout.getRate().convertToDouble();
      // Dropouts in a row keep a weight with the product of their keep
      // probabilities.
      result.dropout = result.dropout == 0.0
                           ? rate
                           : 1.0 - (1.0 - result.dropout) * (1.0 - rate);
      requireOneUse(current, "the dropout of the attention weights");
      current = dropout.getInput();
      continue;
    }
    std::optional<ReshapeStep> reshape = getReshapeStep(op);
    if (!reshape)
      return nullptr;
    requireOneUse(current, "the reshape of the attention weights");
    if (!reshape->keepsLastTwo)
      reject(RejectKind::Shape, "a reshape of the attention weights changes "
                                "their last two dimensions");
    result.reshaped = true;
    current = reshape->source;
  }
  return nullptr;
}

/// Checks the softmax and returns its input, the masked scores.
Value AttentionMatcher::matchSoftmax(Operation *softmax) {
  requireOneUse(softmax->getResult(0), "the attention weights (the softmax)");
  if (auto masked = dyn_cast<MaskedSoftmaxOp>(softmax)) {
    result.validLens = masked.getValidLens();
    result.softmaxType = cast<RankedTensorType>(masked.getInput().getType());
    return masked.getInput();
  }
  auto linalgSoftmax = cast<linalg::SoftmaxOp>(softmax);
  auto type = cast<RankedTensorType>(linalgSoftmax.getInput().getType());
  result.softmaxType = type;
  int64_t last = type.getRank() - 1;
  if (static_cast<int64_t>(linalgSoftmax.getDimension()) != last)
    reject(RejectKind::SoftmaxAxis, Twine("the softmax is over dimension ") +
                                        Twine(linalgSoftmax.getDimension()) +
                                        ", not over the keys (dimension " +
                                        Twine(last) + ")");
  return linalgSoftmax.getInput();
}

/// Follows the scores back to the product Q·Kᵀ, collecting scales and masks.
/// Returns null if there is none.
Operation *AttentionMatcher::walkScores(Value scores) {
  Value current = scores;
  while (Operation *op = current.getDefiningOp()) {
    if (isProductOp(op)) {
      requireOneUse(current, "the scores (Q·Kᵀ)");
      return op;
    }
    requireOneUse(current, Twine("the result of '") +
                               op->getName().getStringRef() +
                               "' on the scores");
    current = stepBack(op);
    if (!current)
      return nullptr;
  }
  return nullptr;
}

/// Steps back over one op on the scores; returns the scores it was applied
/// to, or null if `op` is not recognised.
Value AttentionMatcher::stepBack(Operation *op) {
  if (std::optional<ReshapeStep> reshape = getReshapeStep(op)) {
    if (!reshape->keepsLastTwo)
      reject(RejectKind::Shape,
             "a reshape of the scores changes their last two dimensions");
    result.reshaped = true;
    return reshape->source;
  }
  if (auto dropout = dyn_cast<DropoutOp>(op))
    return dropout.getInput();
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return stepBackGeneric(generic);
  if (!isa<arith::MulFOp, arith::DivFOp, arith::AddFOp, arith::SelectOp>(op))
    return {};

  // Binary arith: one operand carries the scores, the other scales or masks.
  ValueRange operands = isa<arith::SelectOp>(op)
                            ? op->getOperands().drop_front()
                            : op->getOperands();
  auto scoresIt = llvm::find_if(
      operands, [](Value operand) { return reachesProduct(operand); });
  if (scoresIt == operands.end())
    return {};
  Value scoresOperand = *scoresIt;
  Value side = operands[scoresIt == operands.begin() ? 1 : 0];
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    addSelectMask(select, scoresIt == operands.begin(), side);
  } else if (isa<arith::MulFOp>(op)) {
    addScale(side, /*divide=*/false);
  } else if (isa<arith::DivFOp>(op)) {
    if (scoresIt != operands.begin())
      reject(RejectKind::Scale, "the scores are the divisor of 'arith.divf'");
    else
      addScale(side, /*divide=*/true);
  } else {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    addMask(
        {side, llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())), type});
  }
  return scoresOperand;
}

/// Steps back over an elementwise linalg.generic on the scores, whose body
/// multiplies, divides, adds a mask or selects.
Value AttentionMatcher::stepBackGeneric(linalg::GenericOp generic) {
  if (!isElementwise(generic))
    return {};
  OpOperand *scoresInput = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (generic.getMatchingIndexingMap(input).isIdentity() &&
        reachesProduct(input->get())) {
      scoresInput = input;
      break;
    }
  if (!scoresInput)
    return {};
  Block *body = generic.getBody();
  Value arg = body->getArgument(scoresInput->getOperandNumber());
  Value current = body->getTerminator()->getOperand(0);
  auto type = cast<RankedTensorType>(generic->getResult(0).getType());
  while (current != arg) {
    Operation *op = current.getDefiningOp();
    if (!op || op->getBlock() != body ||
        !isa<arith::MulFOp, arith::DivFOp, arith::AddFOp, arith::SelectOp>(op))
      return {};
    ValueRange operands = isa<arith::SelectOp>(op)
                              ? op->getOperands().drop_front()
                              : op->getOperands();
    auto chainIt = llvm::find_if(
        operands, [&](Value operand) { return dependsOn(operand, arg, body); });
    if (chainIt == operands.end())
      return {};
    Value side = operands[chainIt == operands.begin() ? 1 : 0];
    current = *chainIt;
    if (isa<arith::SelectOp>(op)) {
      reject(RejectKind::Mask, "a select in 'linalg.generic' replaces masked "
                               "scores instead of adding a mask to them");
      continue;
    }
    if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      bool divide = isa<arith::DivFOp>(op);
      if (divide && chainIt != operands.begin()) {
        reject(RejectKind::Scale, "the scores are the divisor of a division "
                                  "in 'linalg.generic'");
        continue;
      }
      Value source;
      std::optional<double> c = getBodyScalar(generic, side, source);
      if (!c) {
        reject(RejectKind::Scale, Twine("the scores are ") +
                                      (divide ? "divided" : "multiplied") +
                                      " by " + describeNonScalar(source));
        continue;
      }
      double factor = divide ? 1.0 / *c : *c;
      if (!std::isfinite(factor)) {
        reject(RejectKind::Scale, "the scale is not finite");
        continue;
      }
      result.scale *= factor;
      continue;
    }
    // An addition: the mask must be another input, read as a broadcast.
    auto maskArg = dyn_cast<BlockArgument>(side);
    if (!maskArg || maskArg == arg || maskArg.getOwner() != body ||
        maskArg.getArgNumber() >= generic.getNumDpsInputs()) {
      reject(RejectKind::Mask,
             "'linalg.generic' adds a value to the scores that is not a "
             "tensor input");
      continue;
    }
    OpOperand *maskInput = generic.getDpsInputOperand(maskArg.getArgNumber());
    auto maskType = cast<RankedTensorType>(maskInput->get().getType());
    std::optional<SmallVector<int64_t>> dims = getBroadcastDims(
        generic.getMatchingIndexingMap(maskInput), maskType.getShape());
    if (!dims) {
      reject(RejectKind::Mask, "'linalg.generic' reads the mask through an "
                               "indexing map that is not a broadcast");
      continue;
    }
    addMask({maskInput->get(), std::move(*dims), type});
  }
  return scoresInput->get();
}

/// Records a multiplication of the scores by `side` (or a division).
void AttentionMatcher::addScale(Value side, bool divide) {
  std::optional<double> c = getConstantScalar(side);
  if (!c) {
    reject(RejectKind::Scale, Twine("the scores are ") +
                                  (divide ? "divided" : "multiplied") + " by " +
                                  describeNonScalar(side));
    return;
  }
  double factor = divide ? 1.0 / *c : *c;
  if (!std::isfinite(factor)) {
    reject(RejectKind::Scale, "the scale is not finite");
    return;
  }
  result.scale *= factor;
}

/// Records an additive mask: causal, or the attention's `mask` operand. The
/// scale factors found so far (walking backwards) apply after the mask.
/// The elements of the constant `mask` broadcast to the scores it is added
/// to, in their row-major order, or nothing if it is not a constant of
/// static shape (or is too large to expand).
std::optional<std::vector<double>> expandConstantMask(const MaskUse &mask) {
  auto attr = dyn_cast_if_present<DenseFPElementsAttr>(mask.folded);
  if ((!attr && !matchPattern(mask.source, m_Constant(&attr))) ||
      !mask.scoresType.hasStaticShape() ||
      mask.scoresType.getNumElements() > (int64_t{1} << 24))
    return std::nullopt;
  ArrayRef<int64_t> scores = mask.scoresType.getShape();
  ArrayRef<int64_t> source = attr.getType().getShape();
  SmallVector<int64_t> sourceStrides(source.size(), 1);
  for (int64_t i = static_cast<int64_t>(source.size()) - 2; i >= 0; --i)
    sourceStrides[i] = sourceStrides[i + 1] * source[i + 1];
  std::vector<double> values;
  for (const APFloat &value : attr.getValues<APFloat>())
    values.push_back(value.convertToDouble());
  std::vector<double> expanded(mask.scoresType.getNumElements());
  SmallVector<int64_t> coordinates(scores.size());
  for (int64_t flat = 0, e = expanded.size(); flat < e; ++flat) {
    int64_t rest = flat;
    for (int64_t d = static_cast<int64_t>(scores.size()) - 1; d >= 0; --d) {
      coordinates[d] = rest % scores[d];
      rest /= scores[d];
    }
    int64_t index = 0;
    for (auto [j, scoreDim] : llvm::enumerate(mask.scoreDims))
      if (source[j] != 1)
        index += coordinates[scoreDim] * sourceStrides[j];
    expanded[flat] = values[index];
  }
  return expanded;
}

/// Two constant masks added to the scores (Swin's relative position bias
/// and its shifted windows' mask, each on its own view of the scores) as
/// one constant over the scores of whichever of them `scoresType` has. The
/// scores' views between them are reshapes that keep their order, so the
/// masks add element by element. Nothing if either is not a constant.
std::optional<MaskUse> combineConstantMasks(const MaskUse &a, const MaskUse &b,
                                            RankedTensorType scoresType) {
  if (a.scoresType.getNumElements() != b.scoresType.getNumElements())
    return std::nullopt;
  std::optional<std::vector<double>> x = expandConstantMask(a);
  std::optional<std::vector<double>> y = expandConstantMask(b);
  if (!x || !y)
    return std::nullopt;
  const MaskUse &layout = b.scoresType == scoresType ? b : a;
  auto elementType = cast<FloatType>(layout.scoresType.getElementType());
  SmallVector<APFloat> sum;
  for (auto [u, v] : llvm::zip_equal(*x, *y)) {
    APFloat element(u + v);
    bool losesInfo;
    element.convert(elementType.getFloatSemantics(),
                    APFloat::rmNearestTiesToEven, &losesInfo);
    sum.push_back(element);
  }
  return MaskUse{Value(),
                 llvm::to_vector(llvm::seq<int64_t>(
                     0, layout.scoresType.getRank())),
                 layout.scoresType,
                 DenseElementsAttr::get(layout.scoresType, sum)};
}

void AttentionMatcher::addMask(MaskUse mask) {
  lookThroughBroadcasts(mask);
  double factorAfter = result.scale;
  if (isCausal(mask, factorAfter)) {
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] causal mask " << mask.source << "\n");
    result.causal = true;
    return;
  }
  if (factorAfter != 1.0) {
    reject(RejectKind::Mask, "the mask is added before the scale, and "
                             "tfm.attention scales first");
    return;
  }
  if (result.mask) {
    std::optional<MaskUse> combined =
        combineConstantMasks(*result.mask, mask, result.scoresType);
    if (!combined) {
      reject(RejectKind::Mask,
             "more than one additive mask, not all of them constants");
      return;
    }
    result.mask = std::move(*combined);
    return;
  }
  result.mask = std::move(mask);
}

/// Records `select(cond, masked, scores)` (or with the scores on true, as
/// `masked_fill(~tril, -inf)` exports): fused when the condition is a
/// constant causal triangle (through comparisons with zero, extensions and
/// broadcasts, as ONNX's bool tensors import) and `masked` a large negative
/// constant. Any other boolean mask is rejected: it would have to become an
/// additive mask the size of the scores.
void AttentionMatcher::addSelectMask(arith::SelectOp select,
                                     bool scoresOnTrue, Value masked) {
  std::optional<double> fill = getConstantScalar(masked);
  if (!fill || !(result.scale > 0.0) ||
      !(*fill * result.scale <= kLargeNegative)) {
    reject(RejectKind::Mask, "'arith.select' replaces masked scores by a "
                             "value that is not a large negative constant");
    return;
  }
  auto type = cast<RankedTensorType>(select.getType());
  MaskUse cond{select.getCondition(),
               llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())), type};
  bool maskedWhenNonzero = !scoresOnTrue;
  while (true) {
    lookThroughBroadcasts(cond);
    Operation *def = cond.source.getDefiningOp();
    if (auto cmp = dyn_cast_or_null<arith::CmpIOp>(def)) {
      arith::CmpIPredicate pred = cmp.getPredicate();
      if (!isSplatOf(cmp.getRhs(), /*zero=*/true) ||
          (pred != arith::CmpIPredicate::ne &&
           pred != arith::CmpIPredicate::eq))
        break;
      if (pred == arith::CmpIPredicate::eq)
        maskedWhenNonzero = !maskedWhenNonzero;
      cond.source = cmp.getLhs();
      continue;
    }
    if (isa_and_nonnull<arith::ExtUIOp, arith::ExtSIOp>(def)) {
      cond.source = def->getOperand(0);
      continue;
    }
    // `~mask` of a boolean mask.
    if (auto xorOp = dyn_cast_or_null<arith::XOrIOp>(def)) {
      Value other;
      if (isSplatOf(xorOp.getRhs(), /*zero=*/false))
        other = xorOp.getLhs();
      else if (isSplatOf(xorOp.getLhs(), /*zero=*/false))
        other = xorOp.getRhs();
      if (!other || !getElementTypeOrSelf(other.getType()).isInteger(1))
        break;
      maskedWhenNonzero = !maskedWhenNonzero;
      cond.source = other;
      continue;
    }
    break;
  }
  if (auto generic = cond.source.getDefiningOp<linalg::GenericOp>()) {
    if (std::optional<std::pair<int64_t, int64_t>> dims =
            getQueryKeyDims(cond)) {
      if (std::optional<Value> offset = matchCausalCondition(
              generic, dims->first, dims->second, maskedWhenNonzero)) {
        LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] causal condition "
                                << cond.source << "\n");
        result.causal = true;
        result.queryOffset = *offset;
        return;
      }
    }
  }
  DenseIntElementsAttr attr;
  if (!matchPattern(cond.source, m_Constant(&attr)) ||
      !isCausalBoolean(cond, attr, maskedWhenNonzero)) {
    reject(RejectKind::Mask, "'arith.select' masks the scores with a boolean "
                             "mask that is not a constant causal triangle");
    return;
  }
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] causal boolean mask "
                          << cond.source << "\n");
  result.causal = true;
}

/// Checks Q·Kᵀ and finds Q and K behind it. Fails (with a rejection) if
/// they cannot be found.
LogicalResult AttentionMatcher::matchProduct(Operation *product) {
  result.scoresType = cast<RankedTensorType>(product->getResult(0).getType());
  FailureOr<Product> qk = getProduct(product);
  if (failed(qk)) {
    reject(RejectKind::Shape, "Q·Kᵀ reads its operands through indexing "
                              "maps that are not those of a matrix product");
    return failure();
  }
  if (!qk->zeroInit)
    reject(RejectKind::Mask, "Q·Kᵀ accumulates into a tensor that is not zero");
  Value query =
      getAttentionOperand(qk->lhs, qk->lhsTransposed, result.transposeQuery);
  Value key =
      getAttentionOperand(qk->rhs, !qk->rhsTransposed, result.transposeKey);
  result.query = foldScale(query);
  result.key = foldScale(key);
  return success();
}

/// Folds constant scales applied to Q (or K) alone into the scale. A scaled
/// operand with another user is kept as the operand instead: the attention
/// is the same, and nothing is computed twice.
Value AttentionMatcher::foldScale(Value operand) {
  while (operand.hasOneUse()) {
    std::optional<std::pair<Value, double>> scaled = matchScalarScale(operand);
    if (!scaled)
      break;
    result.scale *= scaled->second;
    operand = scaled->first;
  }
  return operand;
}

/// Checks element types and the sizes Q, K and V share.
void AttentionMatcher::checkTypes(Operation *anchor) {
  Type elementType = getElementTypeOrSelf(result.query.getType());
  SmallVector<Value> others{result.key, result.value, anchor->getResult(0)};
  if (result.mask && result.mask->source)
    others.push_back(result.mask->source);
  if (getElementTypeOrSelf(result.scoresType) != elementType ||
      (result.mask &&
       result.mask->getSourceType().getElementType() != elementType) ||
      llvm::any_of(others, [&](Value v) {
        return getElementTypeOrSelf(v.getType()) != elementType;
      })) {
    reject(RejectKind::Shape, "the element types of Q, K, V, the scores and "
                              "the result differ");
    return;
  }
  if (!isa<Float32Type, Float16Type, BFloat16Type>(elementType)) {
    std::string type;
    llvm::raw_string_ostream os(type);
    os << elementType;
    reject(RejectKind::Shape,
           "tfm.attention does not take " + type + " elements");
    return;
  }
  auto q = cast<RankedTensorType>(result.query.getType());
  auto k = cast<RankedTensorType>(result.key.getType());
  auto v = cast<RankedTensorType>(result.value.getType());
  // Dimension -1 or -2 of `type`, counted as if untransposed.
  auto dim = [](RankedTensorType type, int64_t fromEnd, bool swapped) {
    if (swapped)
      fromEnd = fromEnd == 1 ? 2 : 1;
    return type.getShape()[type.getRank() - fromEnd];
  };
  int64_t qHead = dim(q, 1, result.transposeQuery);
  int64_t kHead = dim(k, 1, result.transposeKey);
  int64_t kSeq = dim(k, 2, result.transposeKey);
  int64_t vSeq = dim(v, 2, result.transposeValue);
  auto differ = [](int64_t a, int64_t b) {
    return ShapedType::isStatic(a) && ShapedType::isStatic(b) && a != b;
  };
  if (differ(qHead, kHead))
    reject(RejectKind::Shape, Twine("the head dimension of K (") +
                                  Twine(kHead) + ") differs from Q's (" +
                                  Twine(qHead) + ")");
  else if (differ(kSeq, vSeq))
    reject(RejectKind::Shape, Twine("the sequence length of V (") +
                                  Twine(vSeq) + ") differs from K's (" +
                                  Twine(kSeq) + ")");
}

/// True if a reshape can regroup the batch dimensions `from` into `to`.
bool canRegroup(ArrayRef<int64_t> from, ArrayRef<int64_t> to) {
  if (from == to && llvm::count(from, ShapedType::kDynamic) <= 1)
    return true;
  if (ShapedType::isDynamicShape(from) || ShapedType::isDynamicShape(to))
    return false;
  return ShapedType::getNumElements(from) == ShapedType::getNumElements(to);
}

std::string formatShape(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(shape, os, [&](int64_t d) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
  });
  os << "]";
  return s;
}

/// Chooses the batch dimensions of the fused op: those of Q·Kᵀ, or those of
/// the scores the mask is added to when the mask has batch dimensions of
/// its own. Checks that everything can be regrouped into them.
void AttentionMatcher::chooseBatch(Operation *anchor) {
  if (rejection)
    return;
  ArrayRef<int64_t> batch = result.scoresType.getShape().drop_back(2);
  if (result.mask && result.mask->getOperandRank() > 2)
    batch = result.mask->scoresType.getShape().drop_back(2);
  result.batch.assign(batch.begin(), batch.end());
  if (!result.reshaped)
    return;
  auto check = [&](ArrayRef<int64_t> from, ArrayRef<int64_t> to,
                   StringRef what) {
    if (!rejection && !canRegroup(from, to))
      reject(RejectKind::Shape, Twine("cannot regroup the batch dimensions ") +
                                    formatShape(from) + " of " + what +
                                    " into " + formatShape(to));
  };
  check(getBatchShape(result.query), batch, "Q");
  check(getBatchShape(result.key), batch, "K");
  check(getBatchShape(result.value), batch, "V");
  if (result.validLens) {
    auto lens = cast<RankedTensorType>(result.validLens.getType());
    check(lens.getShape().take_front(result.softmaxType.getRank() - 2), batch,
          "valid_lens");
  }
  check(batch, getBatchShape(anchor->getResult(0)), "the result");
}

//===----------------------------------------------------------------------===//
// Building the fused op
//===----------------------------------------------------------------------===//

/// Swaps the last two dimensions of `v`.
Value transposeLastTwo(OpBuilder &b, Location loc, Value v) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  auto permutation = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(permutation[rank - 1], permutation[rank - 2]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  std::swap(sizes[rank - 1], sizes[rank - 2]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  return linalg::TransposeOp::create(b, loc, v, init, permutation)
      ->getResult(0);
}

/// The `mask` operand: the mask's source, with unit dimensions inserted
/// where it is broadcast between the score dimensions it runs along, so
/// that it broadcasts to the scores by NumPy's rules.
Value buildMaskOperand(OpBuilder &b, Location loc, const MaskUse &mask) {
  RankedTensorType type = mask.getSourceType();
  Value source = mask.folded ? arith::ConstantOp::create(b, loc, mask.folded)
                             : mask.source;
  int64_t rank = mask.getOperandRank();
  int64_t numSource = type.getRank();
  if (rank == numSource)
    return source;
  int64_t offset = mask.getScoreRank() - rank;
  SmallVector<int64_t> shape(rank, 1);
  SmallVector<ReassociationIndices> groups;
  for (int64_t j = 0; j < numSource; ++j) {
    int64_t start = mask.scoreDims[j] - offset;
    int64_t end = j + 1 < numSource ? mask.scoreDims[j + 1] - offset : rank;
    shape[start] = type.getDimSize(j);
    groups.push_back(llvm::to_vector(llvm::seq<int64_t>(start, end)));
  }
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), source,
                                       groups);
}

/// Builds the tfm.attention for `match`, reshaped to the anchor's type.
Value buildAttention(PatternRewriter &rewriter, Operation *anchor,
                     const AttentionMatch &match) {
  Location loc = anchor->getLoc();
  ArrayRef<int64_t> batch = match.batch;
  auto regroup = [&](Value v, int64_t numLeading) {
    if (!v || !match.reshaped)
      return v;
    return regroupLeading(rewriter, loc, v, numLeading, batch);
  };
  auto rankOf = [](Value v) {
    return cast<RankedTensorType>(v.getType()).getRank();
  };
  auto operand = [&](Value v, bool swapped) {
    if (swapped)
      v = transposeLastTwo(rewriter, loc, v);
    return regroup(v, rankOf(v) - 2);
  };
  Value q = operand(match.query, match.transposeQuery);
  Value k = operand(match.key, match.transposeKey);
  Value v = operand(match.value, match.transposeValue);
  Value validLens = regroup(match.validLens, match.softmaxType.getRank() - 2);
  Value mask =
      match.mask ? buildMaskOperand(rewriter, loc, *match.mask) : Value();
  Value attention =
      AttentionOp::create(rewriter, loc, q, k, v, validLens, mask,
                          match.queryOffset,
                          rewriter.getF64FloatAttr(match.scale),
                          match.causal ? rewriter.getUnitAttr() : UnitAttr(),
                          rewriter.getF64FloatAttr(match.dropout));
  Value result = attention;
  auto resultType = cast<RankedTensorType>(anchor->getResult(0).getType());
  if (match.reshaped)
    result = regroupLeading(rewriter, loc, result, batch.size(),
                            resultType.getShape().drop_back(2));
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, loc, resultType, result);
  return result;
}

//===----------------------------------------------------------------------===//
// The pattern
//===----------------------------------------------------------------------===//

/// Fuses the attention whose product with V is `OpTy` (tfm.batch_matmul,
/// linalg.batch_matmul or linalg.matmul) into tfm.attention.
template <typename OpTy> struct FuseAttention : OpRewritePattern<OpTy> {
  FuseAttention(MLIRContext *context, FusionState &state)
      : OpRewritePattern<OpTy>(context), state(state) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    FailureOr<Product> pv = getProduct(op);
    if (failed(pv) || pv->lhsTransposed || !pv->zeroInit)
      return rewriter.notifyMatchFailure(op, "not a product with V");
    AttentionMatcher matcher;
    if (failed(matcher.match(op, pv->lhs, *pv)))
      return rewriter.notifyMatchFailure(op, "not fed by an attention");
    if (matcher.rejection) {
      LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] rejected "
                              << getStatisticName(matcher.rejection->kind)
                              << ": " << matcher.rejection->reason << "\n");
      state.reportRejected(op, *matcher.rejection);
      return rewriter.notifyMatchFailure(op, matcher.rejection->reason);
    }

    const AttentionMatch &match = matcher.result;
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] fusing at " << op->getLoc() << ": scale "
               << match.scale << ", causal " << match.causal << ", mask "
               << static_cast<bool>(match.mask) << ", valid_lens "
               << static_cast<bool>(match.validLens) << "\n");
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        state.maybeDead.insert(producer);
    state.reportFused(op);
    rewriter.replaceOp(op, buildAttention(rewriter, op, match));
    return success();
  }

  FusionState &state;
};

/// Erases what fused attentions left dead: the ops in `worklist` once they
/// have no user, then their producers in turn.
void eraseDeadProducers(llvm::SetVector<Operation *> &worklist) {
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!isOpTriviallyDead(op))
      continue;
    SetVector<Value> used(op->getOperands().begin(), op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value v : used)
      if (Operation *producer = v.getDefiningOp())
        worklist.insert(producer);
    LLVM_DEBUG(llvm::dbgs()
               << "[" DEBUG_TYPE "] erasing dead " << op->getName() << "\n");
    op->erase();
  }
}

/// Returns `x` if `repeated` is `x` (`[..., H_kv, S, D]`) with each head
/// repeated `group` times in a row, as Hugging Face's repeat_kv writes it
/// and importers bring it: `collapse_shape(broadcast(x))` with the new
/// dimension of size `group` after the heads, merged into them. Sets
/// `group`; null otherwise.
static Value getRepeatedHeads(Value repeated, int64_t &group) {
  auto collapse = repeated.getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse)
    return nullptr;
  int64_t rank = collapse.getResultType().getRank();
  if (rank < 3)
    return nullptr;
  int64_t heads = rank - 3;
  for (auto [i, indices] : llvm::enumerate(collapse.getReassociationIndices())) {
    int64_t first = static_cast<int64_t>(i) <= heads ? i : i + 1;
    SmallVector<int64_t> expected{first};
    if (static_cast<int64_t>(i) == heads)
      expected.push_back(first + 1);
    if (ArrayRef<int64_t>(indices) != ArrayRef<int64_t>(expected))
      return nullptr;
  }
  auto broadcast = collapse.getSrc().getDefiningOp<linalg::BroadcastOp>();
  if (!broadcast || broadcast.getDimensions() != ArrayRef<int64_t>{heads + 1})
    return nullptr;
  group = collapse.getSrcType().getDimSize(heads + 1);
  if (ShapedType::isDynamic(group) || ShapedType::isDynamic(
          collapse.getSrcType().getDimSize(heads)))
    return nullptr;
  return broadcast.getInput();
}

/// Folds repeated key/value heads in front of `op` (getRepeatedHeads, the
/// same repeat for both) into a grouped-query attention that reads the
/// heads once. Returns whether it did; the repeats are added to `maybeDead`.
static bool foldRepeatedKeyValueHeads(RewriterBase &rewriter, AttentionOp op,
                                      llvm::SetVector<Operation *> &maybeDead) {
  int64_t keyGroup = 0, valueGroup = 0;
  Value key = getRepeatedHeads(op.getKey(), keyGroup);
  Value value = getRepeatedHeads(op.getValue(), valueGroup);
  if (!key || !value || keyGroup != valueGroup || keyGroup < 2)
    return false;
  maybeDead.insert(op.getKey().getDefiningOp());
  maybeDead.insert(op.getValue().getDefiningOp());
  rewriter.modifyOpInPlace(op, [&] {
    op.getKeyMutable().assign(key);
    op.getValueMutable().assign(value);
  });
  return true;
}

struct TfmFuseAttentionPass
    : tfm::impl::TfmFuseAttentionBase<TfmFuseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    FusionState state;
    state.remarks = remarks;
    state.fused = &numFused;
    state.rejected[static_cast<int>(RejectKind::SoftmaxAxis)] =
        &numRejectedSoftmaxAxis;
    state.rejected[static_cast<int>(RejectKind::Scale)] = &numRejectedScale;
    state.rejected[static_cast<int>(RejectKind::MultiUse)] =
        &numRejectedMultiUse;
    state.rejected[static_cast<int>(RejectKind::Shape)] = &numRejectedShape;
    state.rejected[static_cast<int>(RejectKind::Mask)] = &numRejectedMask;

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns
        .add<FuseAttention<BatchMatmulOp>, FuseAttention<linalg::BatchMatmulOp>,
             FuseAttention<linalg::MatmulOp>>(context, state);
    ErasedOpsListener listener(state.maybeDead);
    walkAndApplyPatterns(getOperation(), std::move(patterns), &listener);

    // Grouped-query attention: key/value heads repeated for their groups of
    // query heads are read as they are.
    IRRewriter rewriter(context);
    getOperation()->walk([&](AttentionOp op) {
      if (foldRepeatedKeyValueHeads(rewriter, op, state.maybeDead))
        ++numGroupedQuery;
    });
    eraseDeadProducers(state.maybeDead);
  }
};

} // namespace
