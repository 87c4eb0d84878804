//===- AttentionOps.cpp - Lowering the attention family of tfm ops --------===//
//
// Lowers batch_matmul, masked_softmax, attention, additive_attention,
// kernel_pooling, split_heads and merge_heads to linalg on tensors.
//
// Conventions shared by the lowerings:
// - Products and reductions accumulate in f32 when the element type is f16
//   or bf16 (`getAccumulatorType`), and the result is truncated once at the
//   end. Softmax statistics (row max, row sum) and the masked scores stay in
//   the accumulator type; in masked_softmax and additive attention the
//   normalised weights are rounded to the element type before they multiply
//   the values, as a composition of the ops would.
// - tfm.attention is not lowered to its arithmetic here: it becomes
//   tfm.online_attention, whose decomposition holds that arithmetic for the
//   reference lowering and flash attention alike.
// - Leading batch dimensions are collapsed into one for `linalg.matmul` /
//   `linalg.batch_matmul` (rank 2 uses `linalg.matmul`, rank 3 and more
//   `linalg.batch_matmul`), unless more than one of them is dynamic (see
//   `canExpandAfterCollapse`), where a contraction `linalg.generic` runs on
//   the full rank instead. The elementwise and softmax `linalg.generic`s run
//   on the full rank, where masks and valid lengths index the batch
//   dimensions directly.
// - Transposed operands use the named ops' `indexing_maps`; no transpose is
//   materialised except by split_heads and merge_heads, whose result is the
//   transpose, and the keys of attention, transposed once.
//
// Why one file of over 700 lines: the family's ops share about fifteen
// builders (contractions, masked scores, softmax, reshapes); moving those
// into a header of their own would let the file split by op, and is the
// next step.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "tfm/Dialect/Tfm/IR/AttentionScores.h"
#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Returns the type in which reductions over `elementType` accumulate: f32
/// for the 16-bit float types, the type itself otherwise.
static Type getAccumulatorType(Type elementType) {
  if (elementType.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(elementType.getContext());
  return elementType;
}

static RankedTensorType getTensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

/// Returns the static shape of `sizes`, with kDynamic for the SSA values.
static SmallVector<int64_t> getStaticShape(ArrayRef<OpFoldResult> sizes) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return shape;
}

/// Returns the sizes of the first `count` dimensions of `v` (static sizes as
/// attributes, dynamic ones through tensor.dim).
static SmallVector<OpFoldResult> getLeadingDims(OpBuilder &b, Location loc,
                                                Value v, int64_t count) {
  SmallVector<OpFoldResult> dims;
  for (int64_t i = 0; i < count; ++i)
    dims.push_back(tensor::getMixedSize(b, loc, v, i));
  return dims;
}

/// Creates an arith constant of the float type `type`.
static Value createFloatConstant(OpBuilder &b, Location loc, Type type,
                                 double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

/// Returns `(d0, ..., d{numDims-1}) -> (d{dims[0]}, d{dims[1]}, ...)`.
static AffineMap getProjection(MLIRContext *ctx, int64_t numDims,
                               ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t d : dims)
    exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// Returns the map from `numDims` loops to the first `numResults` of them.
static AffineMap getLeadingProjection(MLIRContext *ctx, int64_t numDims,
                                      int64_t numResults) {
  return getProjection(ctx, numDims,
                       llvm::to_vector(llvm::seq<int64_t>(0, numResults)));
}

/// Returns `numLoops` iterators, all parallel but the last `numReductions`.
static SmallVector<utils::IteratorType> getIterators(int64_t numLoops,
                                                     int64_t numReductions) {
  SmallVector<utils::IteratorType> iterators(numLoops - numReductions,
                                             utils::IteratorType::parallel);
  iterators.append(numReductions, utils::IteratorType::reduction);
  return iterators;
}

/// Returns `[{0, ..., count-1}, {count}, {count+1}, ...]` for a tensor of
/// rank `rank`: the reassociation that merges the leading `count`
/// dimensions.
static SmallVector<ReassociationIndices> getLeadingGroup(int64_t count,
                                                         int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  groups.push_back(llvm::to_vector(llvm::seq<int64_t>(0, count)));
  for (int64_t i = count; i < rank; ++i)
    groups.push_back({i});
  return groups;
}

/// Expands `v` with the reassociation `groups` to a tensor of `sizes`.
static Value expandTo(OpBuilder &b, Location loc, Value v,
                      ArrayRef<ReassociationIndices> groups,
                      ArrayRef<OpFoldResult> sizes) {
  auto type = getTensorType(v).clone(getStaticShape(sizes));
  return tensor::ExpandShapeOp::create(b, loc, type, v, groups, sizes);
}

/// Collapses the leading `batchRank` (at least 1) dimensions of `v` into
/// one.
static Value collapseBatchDims(OpBuilder &b, Location loc, Value v,
                               int64_t batchRank) {
  if (batchRank == 1)
    return v;
  int64_t rank = getTensorType(v).getRank();
  return tensor::CollapseShapeOp::create(b, loc, v,
                                         getLeadingGroup(batchRank, rank));
}

/// Returns `size / divisor` for a size that `divisor` divides.
static OpFoldResult divideSize(OpBuilder &b, Location loc, OpFoldResult size,
                               int64_t divisor) {
  if (std::optional<int64_t> value = getConstantIntValue(size))
    return b.getIndexAttr(*value / divisor);
  Value d = arith::ConstantIndexOp::create(b, loc, divisor);
  return arith::DivUIOp::create(b, loc, cast<Value>(size), d).getResult();
}

/// Builds a `linalg.generic` with `maps` for `inputs` then `init`, whose
/// last `numReductions` loops are reductions and the others parallel, and
/// whose body yields `body(block arguments)`.
static Value
createGeneric(OpBuilder &b, Location loc, ValueRange inputs, Value init,
              ArrayRef<AffineMap> maps, int64_t numReductions,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t numLoops = maps.front().getNumDims();
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      getIterators(numLoops, numReductions),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return generic.getResult(0);
}

/// Converts the elements of the tensor `v` to the float type `elementType`
/// (`arith.extf`/`arith.truncf` in a `linalg.generic`); returns `v` when it
/// already has that element type.
static Value convertElements(OpBuilder &b, Location loc, Value v,
                             Type elementType) {
  auto type = getTensorType(v);
  if (type.getElementType() == elementType)
    return v;
  Value init = createEmptyLike(b, loc, type.clone(elementType), v);
  auto identity =
      AffineMap::getMultiDimIdentityMap(type.getRank(), b.getContext());
  return createGeneric(b, loc, v, init, {identity, identity}, 0,
                       [&](OpBuilder &nb, Location nloc, ValueRange args) {
                         return convertFloat(nb, nloc, args[0], elementType);
                       });
}

/// Returns true if dimensions of `sizes`, once collapsed into one, can be
/// expanded back with a `tensor.expand_shape`: at most one of them is
/// dynamic. LLVM 22's expand-strided-metadata crashes on a
/// `memref.expand_shape` with two dynamic sizes in one group
/// (llvm-project#186830, fixed in LLVM 23), so the lowerings contract over
/// such dimensions in a `linalg.generic` instead of collapsing them.
static bool canExpandAfterCollapse(ArrayRef<OpFoldResult> sizes) {
  return llvm::count_if(sizes, [](OpFoldResult size) {
           return !getConstantIntValue(size);
         }) <= 1;
}

/// Returns the contraction `init[out] += lhs[l] * rhs[r]` over the loops of
/// `maps` (`l`, `r`, `out`), whose last loop is the reduction, as a
/// `linalg.generic` accumulating in `init`'s element type.
static Value createContraction(OpBuilder &b, Location loc, Value lhs, Value rhs,
                               Value init, ArrayRef<AffineMap> maps) {
  Type accType = getTensorType(init).getElementType();
  return createGeneric(
      b, loc, ValueRange{lhs, rhs}, init, maps, 1,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value l = convertFloat(nb, nloc, args[0], accType);
        Value r = convertFloat(nb, nloc, args[1], accType);
        Value product = arith::MulFOp::create(nb, nloc, l, r);
        return arith::AddFOp::create(nb, nloc, args[2], product);
      });
}

/// Returns `lhs · rhs` over the last two dimensions, batched over the
/// leading ones (`[..., M, K] · [..., K, N]`, or `[..., N, K]` transposed
/// when `transposeRhs`), as a tensor of `accType` `[..., M, N]`: a
/// `linalg.matmul` for rank 2, else a `linalg.batch_matmul` over the
/// collapsed batch dimensions (a contraction `linalg.generic` when more than
/// one batch dimension is dynamic). The transpose is an indexing map.
static Value createBatchedMatmul(OpBuilder &b, Location loc, Value lhs,
                                 Value rhs, bool transposeRhs, Type accType) {
  // A transposed right operand is transposed once, so that the product reads
  // it by rows: the CPU code generator's register-blocked micro-kernel needs
  // a row-major right operand, and the transpose costs one pass over it.
  if (transposeRhs) {
    int64_t rhsRank = getTensorType(rhs).getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rhsRank));
    std::swap(perm[rhsRank - 1], perm[rhsRank - 2]);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, rhs);
    std::swap(sizes[rhsRank - 1], sizes[rhsRank - 2]);
    Value init = tensor::EmptyOp::create(b, loc, sizes,
                                         getTensorType(rhs).getElementType());
    rhs = linalg::TransposeOp::create(b, loc, rhs, init, perm)->getResult(0);
    transposeRhs = false;
  }
  MLIRContext *ctx = b.getContext();
  int64_t rank = getTensorType(lhs).getRank();
  int64_t batchRank = rank - 2;
  SmallVector<OpFoldResult> lhsDims = getLeadingDims(b, loc, lhs, rank - 1);
  OpFoldResult m = lhsDims[rank - 2];
  OpFoldResult n =
      tensor::getMixedSize(b, loc, rhs, transposeRhs ? rank - 2 : rank - 1);
  AffineExpr bd, md, nd, kd;
  if (rank == 2) {
    bindDims(ctx, md, nd, kd);
    Value init = createFilledTensor(b, loc, {m, n}, accType, 0.0);
    auto matmul =
        linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                 ValueRange{lhs, rhs}, ValueRange{init});
    if (transposeRhs)
      matmul.setIndexingMapsAttr(
          b.getAffineMapArrayAttr({AffineMap::get(3, 0, {md, kd}, ctx),
                                   AffineMap::get(3, 0, {nd, kd}, ctx),
                                   AffineMap::get(3, 0, {md, nd}, ctx)}));
    return matmul.getResult(0);
  }

  ArrayRef<OpFoldResult> batchDims = ArrayRef(lhsDims).take_front(batchRank);
  if (!canExpandAfterCollapse(batchDims)) {
    SmallVector<OpFoldResult> sizes(lhsDims);
    sizes.push_back(n);
    Value init = createFilledTensor(b, loc, sizes, accType, 0.0);
    int64_t numLoops = rank + 1;
    auto withBatch = [&](int64_t x, int64_t y) {
      SmallVector<int64_t> dims =
          llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
      dims.append({x, y});
      return getProjection(ctx, numLoops, dims);
    };
    int64_t mi = batchRank, ni = batchRank + 1, ki = batchRank + 2;
    return createContraction(
        b, loc, lhs, rhs, init,
        {withBatch(mi, ki),
         transposeRhs ? withBatch(ni, ki) : withBatch(ki, ni),
         withBatch(mi, ni)});
  }

  Value lhs3 = collapseBatchDims(b, loc, lhs, batchRank);
  Value rhs3 = collapseBatchDims(b, loc, rhs, batchRank);
  OpFoldResult batch = tensor::getMixedSize(b, loc, lhs3, 0);
  Value init = createFilledTensor(b, loc, {batch, m, n}, accType, 0.0);
  auto matmul =
      linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{lhs3, rhs3}, ValueRange{init});
  if (transposeRhs) {
    bindDims(ctx, bd, md, nd, kd);
    matmul.setIndexingMapsAttr(
        b.getAffineMapArrayAttr({AffineMap::get(4, 0, {bd, md, kd}, ctx),
                                 AffineMap::get(4, 0, {bd, nd, kd}, ctx),
                                 AffineMap::get(4, 0, {bd, md, nd}, ctx)}));
  }
  if (batchRank == 1)
    return matmul.getResult(0);
  SmallVector<OpFoldResult> sizes(batchDims);
  sizes.append({m, n});
  return expandTo(b, loc, matmul.getResult(0), getLeadingGroup(batchRank, rank),
                  sizes);
}

/// Returns `x · wᵀ` for `x` `[..., K]` and `w` `[N, K]` (`nn.Linear`
/// without bias) as a tensor of `accType` `[..., N]`: the leading
/// dimensions of `x` are collapsed into the rows of one `linalg.matmul`.
static Value createProjection(OpBuilder &b, Location loc, Value x, Value w,
                              Type accType) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = getTensorType(x).getRank();
  SmallVector<OpFoldResult> dims = getLeadingDims(b, loc, x, rank - 1);
  if (!canExpandAfterCollapse(dims)) {
    // out[..., n] = sum_k x[..., k] * w[n, k] over the loops (..., n, k).
    SmallVector<OpFoldResult> sizes(dims);
    sizes.push_back(tensor::getMixedSize(b, loc, w, 0));
    Value init = createFilledTensor(b, loc, sizes, accType, 0.0);
    int64_t numLoops = rank + 1, ni = rank - 1, ki = rank;
    SmallVector<int64_t> lead =
        llvm::to_vector(llvm::seq<int64_t>(0, rank - 1));
    SmallVector<int64_t> xDims(lead), outDims(lead);
    xDims.push_back(ki);
    outDims.push_back(ni);
    return createContraction(b, loc, x, w, init,
                             {getProjection(ctx, numLoops, xDims),
                              getProjection(ctx, numLoops, {ni, ki}),
                              getProjection(ctx, numLoops, outDims)});
  }
  Value rows = rank == 2 ? x
                         : tensor::CollapseShapeOp::create(
                               b, loc, x, getLeadingGroup(rank - 1, rank));
  Value product =
      createBatchedMatmul(b, loc, rows, w, /*transposeRhs=*/true, accType);
  if (rank == 2)
    return product;
  dims.push_back(tensor::getMixedSize(b, loc, w, 0));
  return expandTo(b, loc, product, getLeadingGroup(rank - 1, rank), dims);
}

/// Returns the row-wise reduction of `input` over its last dimension with
/// `combine(element, accumulator)`, starting from `initValue`, as a tensor
/// of `accType` without the last dimension. Elements are converted to
/// `accType` first.
static Value createRowReduction(
    OpBuilder &b, Location loc, Value input, Type accType, double initValue,
    function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  MLIRContext *ctx = b.getContext();
  int64_t rank = getTensorType(input).getRank();
  SmallVector<OpFoldResult> dims = getLeadingDims(b, loc, input, rank - 1);
  Value init = createFilledTensor(b, loc, dims, accType, initValue);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = getLeadingProjection(ctx, rank, rank - 1);
  return createGeneric(b, loc, input, init, {identity, row}, 1,
                       [&](OpBuilder &nb, Location nloc, ValueRange args) {
                         Value x = convertFloat(nb, nloc, args[0], accType);
                         return combine(nb, nloc, x, args[1]);
                       });
}

/// Divides every row of `weights` (over the last dimension) by its sum,
/// accumulated in the element type of `weights`, and returns the result
/// converted to `resultType`.
static Value createRowNormalization(OpBuilder &b, Location loc, Value weights,
                                    Type resultType) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(weights);
  int64_t rank = type.getRank();
  Type accType = type.getElementType();
  Value sum = createRowReduction(
      b, loc, weights, accType, 0.0,
      [](OpBuilder &nb, Location nloc, Value x, Value acc) -> Value {
        return arith::AddFOp::create(nb, nloc, x, acc);
      });
  Value init = createEmptyLike(b, loc, type.clone(resultType), weights);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = getLeadingProjection(ctx, rank, rank - 1);
  return createGeneric(
      b, loc, ValueRange{weights, sum}, init, {identity, row, identity}, 0,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value w = arith::DivFOp::create(nb, nloc, args[0], args[1]);
        return convertFloat(nb, nloc, w, resultType);
      });
}

/// Returns the numerically stable softmax of `scores` over the last
/// dimension: `exp(x - max) / sum(exp(x - max))`, computed in the
/// accumulator type of `scores`' element type and converted to
/// `resultType`. Four `linalg.generic`s: max (reduction), exp (parallel),
/// sum (reduction), division (parallel).
static Value createSoftmax(OpBuilder &b, Location loc, Value scores,
                           Type resultType) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(scores);
  int64_t rank = type.getRank();
  Type accType = getAccumulatorType(type.getElementType());
  Value max = createRowReduction(
      b, loc, scores, accType, -std::numeric_limits<double>::infinity(),
      [](OpBuilder &nb, Location nloc, Value x, Value acc) -> Value {
        return buildSoftmaxMax(nb, nloc, x, acc);
      });
  Value init = createEmptyLike(b, loc, type.clone(accType), scores);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap row = getLeadingProjection(ctx, rank, rank - 1);
  Value exp = createGeneric(
      b, loc, ValueRange{scores, max}, init, {identity, row, identity}, 0,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value x = convertFloat(nb, nloc, args[0], accType);
        Value shifted = arith::SubFOp::create(nb, nloc, x, args[1]);
        return math::ExpOp::create(nb, nloc, shifted);
      });
  return createRowNormalization(b, loc, exp, resultType);
}

namespace {
/// The operands with which `createMaskedScores` masks a score tensor
/// `[..., Sq, Sk]` as tfm.attention defines it (buildMaskedScore).
struct MaskingOperands {
  /// A scalar of the accumulator type multiplying the scores, or null.
  Value scale;
  /// An additive float mask broadcastable to the scores, or null.
  Value mask;
  /// `[...]` or `[..., Sq]` integer lengths, or null: keys at or past the
  /// length get kMaskedScore (replacing the score, as d2l does).
  Value validLens;
  /// Whether key `j > i` gets -inf for query `i` (`j > i + queryOffset`
  /// when the offset is given).
  bool causal = false;
  Value queryOffset;
  /// The rows of one query position (ScoreMasking::queryGroup).
  int64_t queryGroup = 1;
};
} // namespace

/// Prepares the operand for reading the additive `mask` inside a
/// `linalg.generic` over the score space of rank `rank` with sizes
/// `scoreShape`, following numpy broadcasting aligned on the right.
///
/// When every size-1 dimension of the mask is static, the unit dimensions
/// are collapsed away and the rest is read through a projected permutation
/// map: returns the collapsed mask and sets `map`. A dynamic mask dimension
/// may be 1 at run time (broadcast) or the score size, which no indexing map
/// expresses; then `map` is left null and `readMask` is set to read the
/// mask with `tensor.extract` at `select(size == 1, 0, i)` in that
/// dimension.
static Value prepareMask(
    OpBuilder &b, Location loc, Value mask, ArrayRef<int64_t> scoreShape,
    AffineMap &map,
    std::function<Value(OpBuilder &, Location, ArrayRef<Value>)> &readMask) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(mask);
  int64_t rank = scoreShape.size();
  int64_t offset = rank - type.getRank();
  ArrayRef<int64_t> shape = type.getShape();

  // A dynamic mask dimension broadcast against a static score size of 1 is
  // 1 as well; elsewhere it is ambiguous.
  bool ambiguous =
      llvm::any_of(llvm::seq<int64_t>(0, type.getRank()), [&](int64_t i) {
        return ShapedType::isDynamic(shape[i]) && scoreShape[offset + i] != 1;
      });
  if (!ambiguous) {
    // Each kept dimension starts a group; unit dimensions join the group
    // before them, leading ones the first group.
    SmallVector<int64_t> kept;
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices leadingUnits;
    for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
      if (shape[i] != 1) {
        kept.push_back(offset + i);
        groups.push_back(leadingUnits);
        groups.back().push_back(i);
        leadingUnits.clear();
      } else if (groups.empty()) {
        leadingUnits.push_back(i);
      } else {
        groups.back().push_back(i);
      }
    }
    map = getProjection(ctx, rank, kept);
    if (static_cast<int64_t>(kept.size()) == type.getRank())
      return mask;
    return tensor::CollapseShapeOp::create(b, loc, mask, groups);
  }

  // Read through tensor.extract, selecting index 0 in the dimensions that
  // are 1 at run time.
  SmallVector<Value> isUnit;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    if (!ShapedType::isDynamic(shape[i])) {
      isUnit.push_back(nullptr);
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, mask, i);
    isUnit.push_back(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one));
  }
  readMask = [mask, offset, shape = SmallVector<int64_t>(shape),
              isUnit](OpBuilder &nb, Location nloc,
                      ArrayRef<Value> loopIndices) -> Value {
    Value zero = arith::ConstantIndexOp::create(nb, nloc, 0);
    SmallVector<Value> indices;
    for (auto [i, size] : llvm::enumerate(shape)) {
      Value index = loopIndices[offset + i];
      if (size == 1)
        index = zero;
      else if (isUnit[i])
        index = arith::SelectOp::create(nb, nloc, isUnit[i], zero, index);
      indices.push_back(index);
    }
    return tensor::ExtractOp::create(nb, nloc, mask, indices);
  };
  return nullptr;
}

/// Applies `masking` to `scores` (`[..., Sq, Sk]`) in one parallel
/// `linalg.generic` and returns the masked scores in the accumulator type.
static Value createMaskedScores(OpBuilder &b, Location loc, Value scores,
                                const MaskingOperands &masking) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(scores);
  int64_t rank = type.getRank();
  Type accType = getAccumulatorType(type.getElementType());
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);

  SmallVector<Value> inputs{scores};
  SmallVector<AffineMap> maps{identity};
  int64_t validLensArg = -1, maskArg = -1;
  if (masking.validLens) {
    validLensArg = inputs.size();
    inputs.push_back(masking.validLens);
    maps.push_back(getLeadingProjection(
        ctx, rank, getTensorType(masking.validLens).getRank()));
  }
  std::function<Value(OpBuilder &, Location, ArrayRef<Value>)> readMask;
  if (masking.mask) {
    AffineMap maskMap;
    Value mask =
        prepareMask(b, loc, masking.mask, type.getShape(), maskMap, readMask);
    if (mask) {
      maskArg = inputs.size();
      inputs.push_back(mask);
      maps.push_back(maskMap);
    }
  }
  maps.push_back(identity);
  Value init = createEmptyLike(b, loc, type.clone(accType), scores);

  return createGeneric(
      b, loc, inputs, init, maps, 0,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        SmallVector<Value> indices;
        if (masking.validLens || readMask || masking.causal)
          for (int64_t i = 0; i < rank; ++i)
            indices.push_back(linalg::IndexOp::create(nb, nloc, i));
        tfm::ScoreMasking score;
        score.scale = masking.scale;
        if (masking.mask) {
          Value m = maskArg >= 0 ? args[maskArg] : readMask(nb, nloc, indices);
          score.additive = convertFloat(nb, nloc, m, accType);
        }
        if (masking.validLens)
          score.validLen = args[validLensArg];
        score.causal = masking.causal;
        if (masking.validLens || masking.causal)
          score.key = indices[rank - 1];
        if (masking.causal) {
          score.query = indices[rank - 2];
          score.queryOffset = masking.queryOffset;
          score.queryGroup = masking.queryGroup;
        }
        return tfm::buildMaskedScore(
            nb, nloc, convertFloat(nb, nloc, args[0], accType), score);
      });
}

/// Replaces `op` with softmax(`scores`) · `value`: the attention pooling
/// shared by dot-product and additive attention, accumulated in `accType`
/// and returned in `elementType` with the op's result type.
static void replaceWithPooledValues(PatternRewriter &rewriter, Operation *op,
                                    Value scores, Value value, Type elementType,
                                    Type accType) {
  Location loc = op->getLoc();
  Value weights = createSoftmax(rewriter, loc, scores, elementType);
  Value result = createBatchedMatmul(rewriter, loc, weights, value,
                                     /*transposeRhs=*/false, accType);
  result = convertElements(rewriter, loc, result, elementType);
  rewriter.replaceOp(
      op, castToTensorType(rewriter, loc, result, op->getResult(0).getType()));
}

/// Attention for one query position per batch (a decoding step against a
/// key/value cache): `query` is `[B..., 1, D]` (`[B..., g, D]` in a
/// grouped-query attention's rows), `key` `[B..., Sk, D]` and
/// `value` `[B..., Sk, Dv]`; `validLens` and `mask` as the flash path
/// normalises them (`[B...]` or `[B..., Sq]`, `[B'..., Sq, Sk]`). The scores of one row are few (Sk per batch),
/// so they are materialised: each is a dot product of the query with a key
/// row, read where it lies (no transposed copy of the keys, which a flash
/// attention's block products need and a decoding step would pay a whole
/// pass over the cache for), then the causal mask (of `masking`, which
/// also says the rows' query offset and group), the softmax and the
/// product with the values. Every key and value is read once.
static Value createDecodeAttention(OpBuilder &b, Location loc, Value query,
                                   Value key, Value value, Value validLens,
                                   Value mask, double scale,
                                   MaskingOperands masking) {
  MLIRContext *ctx = b.getContext();
  Type elementType = getTensorType(query).getElementType();
  Type accType = getAccumulatorType(elementType);
  int64_t rank = getTensorType(query).getRank();
  // Loops (b..., i, j, d): q[b..., i, d] · k[b..., j, d] -> s[b..., i, j].
  int64_t numLoops = rank + 1;
  SmallVector<AffineExpr> batch;
  for (int64_t i = 0; i < rank - 2; ++i)
    batch.push_back(getAffineDimExpr(i, ctx));
  auto map = [&](ArrayRef<int64_t> dims) {
    SmallVector<AffineExpr> exprs(batch);
    for (int64_t d : dims)
      exprs.push_back(getAffineDimExpr(d, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  int64_t i = rank - 2, j = rank - 1, d = rank;
  SmallVector<OpFoldResult> sizes = getLeadingDims(b, loc, query, rank - 1);
  sizes.push_back(tensor::getMixedSize(b, loc, key, rank - 2));
  Value init = createFilledTensor(b, loc, sizes, accType, 0.0);
  Value scores = createGeneric(
      b, loc, ValueRange{query, key}, init,
      {map({i, d}), map({j, d}), map({i, j})}, 1,
      [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
        Value q = convertFloat(nb, nloc, args[0], accType);
        Value k = convertFloat(nb, nloc, args[1], accType);
        Value product = arith::MulFOp::create(nb, nloc, q, k);
        return arith::AddFOp::create(nb, nloc, product, args[2]);
      });
  masking.scale = createFloatConstant(b, loc, accType, scale);
  masking.mask = mask;
  masking.validLens = validLens;
  scores = createMaskedScores(b, loc, scores, masking);
  Value weights = createSoftmax(b, loc, scores, elementType);
  Value result = createBatchedMatmul(b, loc, weights, value,
                                     /*transposeRhs=*/false, accType);
  return convertElements(b, loc, result, elementType);
}

/// createDecodeAttention over one batch dimension (`query` `[B, rows, D]`,
/// `key` `[B, Sk, D]`, `value` `[B, Sk, Dv]`) as an `scf.forall` over B,
/// each iteration the whole attention of one batch x head: its scores, its
/// softmax and its product with the values, one after the other on one
/// thread. The ops of a batch element then run as one parallel region, not
/// one each, and a thread reads a head's values right after its keys;
/// at a short cache (a decoding step at 128 positions: 33 KB of keys and of
/// values per head) the regions and their barriers were a third of the
/// attention. Without valid lengths or a mask (a generation step's causal
/// attention after its cache's positions); otherwise, or with more batch
/// dimensions, the ops are built over the whole batch.
static Value createDecodeAttentionPerBatch(OpBuilder &b, Location loc,
                                           Value query, Value key, Value value,
                                           Value validLens, Value mask,
                                           double scale,
                                           MaskingOperands masking) {
  auto queryType = getTensorType(query);
  if (validLens || mask || queryType.getRank() != 3)
    return createDecodeAttention(b, loc, query, key, value, validLens, mask,
                                 scale, masking);
  Type elementType = queryType.getElementType();
  OpFoldResult batch = tensor::getMixedSize(b, loc, query, 0);
  OpFoldResult rows = tensor::getMixedSize(b, loc, query, 1);
  OpFoldResult valueDim = tensor::getMixedSize(b, loc, value, 2);
  Value init = tensor::EmptyOp::create(b, loc, {batch, rows, valueDim},
                                       elementType);
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{batch},
                                      ValueRange{init}, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getTerminator());
  // Batch element `index` of each operand and of the result: [1, ..., ...].
  OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
  SmallVector<OpFoldResult> offsets{forall.getInductionVar(0), zero, zero};
  SmallVector<OpFoldResult> strides(3, one);
  auto slice = [&](Value source) -> Value {
    SmallVector<OpFoldResult> sizes = getDims(b, loc, source);
    sizes.front() = one;
    return tensor::ExtractSliceOp::create(b, loc, source, offsets, sizes,
                                          strides);
  };
  Value result = createDecodeAttention(b, loc, slice(query), slice(key),
                                       slice(value), Value(), Value(), scale,
                                       masking);
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(
      b, loc, result, forall.getRegionIterArgs()[0], offsets,
      ArrayRef<OpFoldResult>{one, rows, valueDim}, strides);
  return forall.getResult(0);
}

//===----------------------------------------------------------------------===//
// Grouped-query attention's layout
//===----------------------------------------------------------------------===//
//
// A grouped-query attention (`H_q = g · H_kv` query heads, `H_kv` key/value
// heads) is lowered as an attention over the key/value heads in which the g
// query heads of each group are interleaved as rows: `[B..., H_q, S, X]`
// becomes `[B..., H_kv, S · g, X]`, row `i · g + r` holding query head
// `h · g + r` at position `i`. Each block of keys and values is then read
// once for the g query heads that share it (a decoding step's g rows become
// one small matrix product against the cache), and the repeats that
// PyTorch's repeat_kv materialises never exist. The causal mask compares
// positions, `row / g` (ScoreMasking::queryGroup).

/// Returns `x`, `[B..., H, S, T...]` with the heads at `headDim` (H the query
/// heads, or 1 when shared by all) and the positions S after them, in
/// grouped rows: `[B..., H / g (or 1), S · g, T...]`. With `positions` set,
/// `x` has no position dimension (`[B..., H, T...]`, e.g. one valid length
/// per head) and each row of a head gets its value at every position.
static Value interleaveQueryGroups(OpBuilder &b, Location loc, Value x,
                                   int64_t headDim, int64_t group,
                                   OpFoldResult positions = {}) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(x);
  int64_t heads = type.getDimSize(headDim);
  bool hasPositions = !positions;
  if (hasPositions)
    positions = tensor::getMixedSize(b, loc, x, headDim + 1);
  int64_t trailing = type.getRank() - headDim - (hasPositions ? 2 : 1);
  SmallVector<OpFoldResult> dims = getDims(b, loc, x);
  SmallVector<OpFoldResult> lead(dims.begin(), dims.begin() + headDim);
  ArrayRef<OpFoldResult> tail = ArrayRef(dims).take_back(trailing);
  OpFoldResult groupSize = b.getIndexAttr(group);
  OpFoldResult outHeads = b.getIndexAttr(heads == 1 ? 1 : heads / group);

  // Query heads split into [H_kv, g].
  if (heads != 1) {
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < headDim; ++i)
      groups.push_back({i});
    groups.push_back({headDim, headDim + 1});
    for (int64_t i = headDim + 1; i < type.getRank(); ++i)
      groups.push_back({i + 1});
    SmallVector<OpFoldResult> sizes(lead);
    sizes.append({outHeads, groupSize});
    llvm::append_range(sizes, ArrayRef(dims).drop_front(headDim + 1));
    x = expandTo(b, loc, x, groups, sizes);
  }
  int64_t h = headDim, i = headDim + 1, r = headDim + 2;
  // [B..., H_kv, S, g, T...] -> [B..., H_kv, S · g, T...]
  auto mergeRows = [&](Value v) -> Value {
    SmallVector<ReassociationIndices> groups;
    for (int64_t d = 0; d <= h; ++d)
      groups.push_back({d});
    groups.push_back({i, r});
    for (int64_t t = 0; t < trailing; ++t)
      groups.push_back({r + 1 + t});
    return tensor::CollapseShapeOp::create(b, loc, v, groups);
  };

  // One position: [B..., H_kv, g, 1, T...] is already in rows.
  if (heads != 1 && hasPositions && isConstantIntValue(positions, 1))
    return mergeRows(x);

  // Loops (B..., h, i, r, T...) over [B..., H_kv, S, g, T...].
  int64_t numLoops = headDim + 3 + trailing;
  SmallVector<int64_t> inDims = llvm::to_vector(llvm::seq<int64_t>(0, h + 1));
  if (heads != 1)
    inDims.push_back(r);
  if (hasPositions)
    inDims.push_back(i);
  for (int64_t t = 0; t < trailing; ++t)
    inDims.push_back(r + 1 + t);
  SmallVector<OpFoldResult> outDims(lead);
  outDims.append({outHeads, positions, groupSize});
  llvm::append_range(outDims, tail);
  Value init = tensor::EmptyOp::create(b, loc, outDims, type.getElementType());
  Value out = createGeneric(
      b, loc, x, init,
      {getProjection(ctx, numLoops, inDims),
       AffineMap::getMultiDimIdentityMap(numLoops, ctx)},
      0, [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  return mergeRows(out);
}

/// The inverse of interleaveQueryGroups for an attention's result:
/// `[B..., H_kv, S · g, Dv]` back to `[B..., H_q, S, Dv]`.
static Value deinterleaveQueryGroups(OpBuilder &b, Location loc, Value x,
                                     int64_t group) {
  MLIRContext *ctx = b.getContext();
  auto type = getTensorType(x);
  int64_t rank = type.getRank(), h = rank - 3;
  SmallVector<OpFoldResult> dims = getDims(b, loc, x);
  OpFoldResult groupSize = b.getIndexAttr(group);
  OpFoldResult positions = divideSize(b, loc, dims[h + 1], group);

  // [B..., H_kv, S, g, Dv], or [B..., H_kv, g, 1, Dv] for one position,
  // where rows are already in that order.
  bool onePosition = isConstantIntValue(positions, 1);
  SmallVector<ReassociationIndices> split = getLeadingGroup(1, rank);
  split[h + 1] = {h + 1, h + 2};
  split[h + 2] = {h + 3};
  SmallVector<OpFoldResult> sizes(dims.begin(), dims.begin() + h + 1);
  if (onePosition)
    sizes.append({groupSize, positions, dims[h + 2]});
  else
    sizes.append({positions, groupSize, dims[h + 2]});
  Value out = expandTo(b, loc, x, split, sizes);

  // Loops (B..., h, r, i, d) over [B..., H_kv, g, S, Dv].
  if (!onePosition) {
    int64_t numLoops = rank + 1;
    SmallVector<int64_t> inDims =
        llvm::to_vector(llvm::seq<int64_t>(0, h + 1));
    inDims.append({h + 2, h + 1, h + 3});
    SmallVector<OpFoldResult> outDims(dims.begin(), dims.begin() + h + 1);
    outDims.append({groupSize, positions, dims[h + 2]});
    Value init =
        tensor::EmptyOp::create(b, loc, outDims, type.getElementType());
    out = createGeneric(
        b, loc, out, init,
        {getProjection(ctx, numLoops, inDims),
         AffineMap::getMultiDimIdentityMap(numLoops, ctx)},
        0, [](OpBuilder &, Location, ValueRange args) { return args[0]; });
  }

  // [B..., H_q, S, Dv]
  SmallVector<ReassociationIndices> merge;
  for (int64_t d = 0; d < h; ++d)
    merge.push_back({d});
  merge.push_back({h, h + 1});
  merge.push_back({h + 2});
  merge.push_back({h + 3});
  return tensor::CollapseShapeOp::create(b, loc, out, merge);
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {

/// batch_matmul -> linalg.batch_matmul (transposed rhs through its indexing
/// maps), with the batch dimensions collapsed into one beyond rank 3.
struct LowerBatchMatmul : OpRewritePattern<BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = getTensorType(op.getLhs()).getElementType();
    Value product = createBatchedMatmul(rewriter, loc, op.getLhs(), op.getRhs(),
                                        op.getTransposeRhs(),
                                        getAccumulatorType(elementType));
    product = convertElements(rewriter, loc, product, elementType);
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, product, op.getType()));
    return success();
  }
};

/// masked_softmax -> the masked scores (a parallel linalg.generic with the
/// -1e6 select, when valid_lens is given) and a stable softmax.
struct LowerMaskedSoftmax : OpRewritePattern<MaskedSoftmaxOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MaskedSoftmaxOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = getTensorType(op.getInput()).getElementType();
    Value scores = op.getInput();
    if (op.getValidLens()) {
      MaskingOperands masking;
      masking.validLens = op.getValidLens();
      scores = createMaskedScores(rewriter, loc, scores, masking);
    }
    Value weights = createSoftmax(rewriter, loc, scores, elementType);
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, weights, op.getType()));
    return success();
  }
};

/// attention -> tfm.online_attention, which holds attention's arithmetic
/// and is tiled and decomposed by code generation, then `acc * (1 / sum)`:
///
/// - batch dimensions are collapsed into one where they can be expanded
///   back, and a rank-2 attention gets a unit batch;
/// - the keys are transposed once, so that both block products of the
///   online softmax read row-major operands;
/// - the mask becomes `[B'..., Sq, Sk]` f32, where each batch dimension is
///   kept at 1 if the mask is shared along it (materialised otherwise);
/// - the state starts at acc = 0, max = -inf, sum = 0.
struct LowerAttention : OpRewritePattern<AttentionOp> {
  LowerAttention(MLIRContext *context, bool decodePath)
      : OpRewritePattern(context), decodePath(decodePath) {}

  /// Whether one query row per batch gets createDecodeAttention.
  bool decodePath;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type elementType = getTensorType(op.getQuery()).getElementType();
    Type f32 = rewriter.getF32Type();
    int64_t rank = getTensorType(op.getQuery()).getRank();
    int64_t batchRank = rank - 2;

    // Over no keys at all, each query's weighted sum is empty: zeros, as in
    // PyTorch and NumPy (the online softmax would divide 0 by a sum of 0).
    if (getTensorType(op.getKey()).getDimSize(rank - 2) == 0) {
      SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, op.getQuery());
      sizes.back() = getDims(rewriter, loc, op.getValue()).back();
      Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, elementType);
      Value zero = arith::ConstantOp::create(
          rewriter, loc, rewriter.getZeroAttr(elementType));
      rewriter.replaceOp(
          op, linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0));
      return success();
    }

    // A grouped-query attention runs on the key/value heads with the query
    // heads of each group as rows (interleaveQueryGroups): the query, the
    // mask and the valid lengths in that layout, the query offset in rows.
    Value query = op.getQuery(), lens = op.getValidLens();
    Value mask = op.getMask(), queryOffset = op.getQueryOffset();
    int64_t group = op.getQueryGroup();
    if (group != 1) {
      int64_t heads = batchRank - 1;
      OpFoldResult positions =
          tensor::getMixedSize(rewriter, loc, query, rank - 2);
      if (mask)
        mask = interleaveQueryGroups(
            rewriter, loc,
            prepareSharedMask(rewriter, loc, mask, query, op.getKey(),
                              /*allOrNone=*/false),
            heads, group);
      if (lens) {
        // The heads statically the query's, as interleaving needs them.
        auto lensType = getTensorType(lens);
        SmallVector<int64_t> lensShape(lensType.getShape());
        lensShape[heads] = getTensorType(query).getDimSize(heads);
        lens = castToTensorType(rewriter, loc, lens, lensType.clone(lensShape));
        // One length per head: the same at every position.
        lens = lensType.getRank() == batchRank
                   ? interleaveQueryGroups(rewriter, loc, lens, heads, group,
                                           positions)
                   : interleaveQueryGroups(rewriter, loc, lens, heads, group);
      }
      query = interleaveQueryGroups(rewriter, loc, query, heads, group);
      if (queryOffset)
        queryOffset = arith::MulIOp::create(
            rewriter, loc, queryOffset,
            arith::ConstantIndexOp::create(rewriter, loc, group));
    }

    // One batch dimension, or several when collapsing them would need an
    // expand_shape with two dynamic sizes in one group (see
    // canExpandAfterCollapse).
    SmallVector<OpFoldResult> batchSizes =
        getLeadingDims(rewriter, loc, query, batchRank);
    bool collapse = batchRank != 1 && canExpandAfterCollapse(batchSizes);
    auto normalize = [&](Value v, int64_t lead) -> Value {
      if (!v || !collapse)
        return v;
      if (lead == 0) {
        // Add a unit batch dimension.
        auto type = getTensorType(v);
        SmallVector<int64_t> shape{1};
        llvm::append_range(shape, type.getShape());
        SmallVector<ReassociationIndices> groups;
        if (type.getRank() > 0) {
          groups.push_back({0, 1});
          for (int64_t i = 2; i <= type.getRank(); ++i)
            groups.push_back({i});
        }
        SmallVector<OpFoldResult> sizes{rewriter.getIndexAttr(1)};
        llvm::append_range(sizes, getDims(rewriter, loc, v));
        return expandTo(rewriter, loc, v, groups, sizes);
      }
      return collapseBatchDims(rewriter, loc, v, lead);
    };
    Value groupedQuery = query;
    query = normalize(query, batchRank);
    Value key = normalize(op.getKey(), batchRank);
    Value value = normalize(op.getValue(), batchRank);
    lens = normalize(lens, batchRank);
    // The mask as `[B'..., Sq, Sk]` f32, each batch dimension 1 where the
    // mask is shared along it.
    if (mask)
      mask = normalize(prepareSharedMask(rewriter, loc, mask, groupedQuery,
                                         op.getKey(), /*allOrNone=*/collapse),
                       batchRank);
    int64_t newRank = getTensorType(query).getRank();

    // The flash attention: the online softmax over blocks of keys.
    auto flash = [&]() -> Value {
      // Kᵀ
      SmallVector<OpFoldResult> keyDims = getDims(rewriter, loc, key);
      std::swap(keyDims[newRank - 2], keyDims[newRank - 1]);
      SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, newRank));
      std::swap(perm[newRank - 2], perm[newRank - 1]);
      Value keyT =
          linalg::TransposeOp::create(
              rewriter, loc, key,
              tensor::EmptyOp::create(rewriter, loc, keyDims,
                                      getTensorType(key).getElementType()),
              perm)
              ->getResult(0);


      // The state: acc [B..., Sq, Dv], max and sum [B..., Sq].
      SmallVector<OpFoldResult> rows =
          getLeadingDims(rewriter, loc, query, newRank - 1);
      SmallVector<OpFoldResult> accDims(rows);
      accDims.push_back(tensor::getMixedSize(rewriter, loc, value, newRank - 1));
      Value acc = createFilledTensor(rewriter, loc, accDims, f32, 0.0);
      Value max = createFilledTensor(rewriter, loc, rows, f32,
                                     -std::numeric_limits<double>::infinity());
      Value sum = createFilledTensor(rewriter, loc, rows, f32, 0.0);
      // A causal mask shifted by query_offset: the queries start there among
      // the keys, and the keys at 0.
      Value keyOffset;
      if (queryOffset)
        keyOffset = arith::ConstantIndexOp::create(rewriter, loc, 0);
      auto online = OnlineAttentionOp::create(
          rewriter, loc, acc.getType(), max.getType(), sum.getType(), query, keyT,
          value, lens, mask, queryOffset, keyOffset, acc, max, sum,
          op.getScaleAttr(), op.getCausalAttr(),
          rewriter.getI64IntegerAttr(group));

      // out = acc * (1 / sum), in the element type: a row's reciprocal,
      // the same for all its elements, is computed once where they are
      // computed together (a GPU lane's fragments hold two rows; LLVM
      // shares the division), as FlashAttention does: one rounding more
      // than a division each.
      MLIRContext *ctx = rewriter.getContext();
      AffineMap identity = AffineMap::getMultiDimIdentityMap(newRank, ctx);
      Value out = createGeneric(
          rewriter, loc,
          ValueRange{online.getAccResult(), online.getSumResult()},
          tensor::EmptyOp::create(rewriter, loc, accDims, elementType),
          {identity, getLeadingProjection(ctx, newRank, newRank - 1), identity},
          0, [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
            Value reciprocal = arith::DivFOp::create(
                nb, nloc, createFloatConstant(nb, nloc, args[1].getType(), 1.0),
                args[1]);
            Value x = arith::MulFOp::create(nb, nloc, args[0], reciprocal);
            return convertFloat(nb, nloc, x, elementType);
          });
      return out;
    };

    // One query position per batch (a decoding step) reads the keys as they
    // lie: at run time when the number of queries is dynamic. Its rows are
    // the group's query heads in a grouped-query attention.
    int64_t rowCount = getTensorType(query).getDimSize(newRank - 2);
    std::optional<double> scale = op.getEffectiveScale();
    bool decodable = decodePath && scale &&
                     (rowCount == group || ShapedType::isDynamic(rowCount));
    MaskingOperands masking;
    masking.causal = op.getCausal();
    masking.queryOffset = queryOffset;
    masking.queryGroup = group;
    Value out;
    if (!decodable) {
      out = flash();
    } else if (rowCount == group) {
      out = createDecodeAttentionPerBatch(rewriter, loc, query, key, value,
                                          lens, mask, *scale, masking);
    } else {
      auto queryType = getTensorType(query);
      SmallVector<int64_t> oneRow(queryType.getShape());
      oneRow[newRank - 2] = group;
      Value isOne = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq,
          tensor::DimOp::create(rewriter, loc, query, newRank - 2),
          arith::ConstantIndexOp::create(rewriter, loc, group));
      SmallVector<int64_t> outShape(queryType.getShape());
      outShape.back() = getTensorType(value).getShape().back();
      auto outType = RankedTensorType::get(outShape, elementType);
      auto branch = scf::IfOp::create(rewriter, loc, TypeRange{outType}, isOne,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(branch.thenBlock());
      Value row = tensor::CastOp::create(
          rewriter, loc, queryType.clone(oneRow), query);
      Value decoded = createDecodeAttentionPerBatch(
          rewriter, loc, row, key, value, lens, mask, *scale, masking);
      scf::YieldOp::create(
          rewriter, loc,
          castToTensorType(rewriter, loc, decoded, outType));
      rewriter.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(rewriter, loc,
                           castToTensorType(rewriter, loc, flash(), outType));
      out = branch.getResult(0);
    }
    if (collapse) {
      SmallVector<OpFoldResult> outSizes(batchSizes);
      outSizes.push_back(
          tensor::getMixedSize(rewriter, loc, groupedQuery, rank - 2));
      outSizes.push_back(
          tensor::getMixedSize(rewriter, loc, op.getValue(), rank - 1));
      if (batchRank == 0)
        out = tensor::CollapseShapeOp::create(
            rewriter, loc, out, SmallVector<ReassociationIndices>{{0, 1}, {2}});
      else
        out = expandTo(rewriter, loc, out, getLeadingGroup(batchRank, rank),
                       outSizes);
    }
    if (group != 1)
      out = deinterleaveQueryGroups(rewriter, loc, out, group);
    rewriter.replaceOp(op, castToTensorType(rewriter, loc, out, op.getType()));
    return success();
  }

  /// Returns `mask`, broadcastable to the scores of `query` and `key`, as an
  /// f32 tensor `[B'..., Sq, Sk]` of the query's rank, where B' is 1
  /// wherever the mask is statically shared along that batch dimension and
  /// the batch size elsewhere. Unit query or key dimensions, and dynamic
  /// ones that may be 1, are broadcast into a new tensor. With `allOrNone`,
  /// the batch dimensions are either all shared or none is, so that they
  /// can be collapsed into one.
  static Value prepareSharedMask(PatternRewriter &rewriter, Location loc,
                                 Value mask, Value query, Value key,
                                 bool allOrNone) {
    auto maskType = getTensorType(mask);
    int64_t rank = getTensorType(query).getRank();
    int64_t offset = rank - maskType.getRank();
    SmallVector<OpFoldResult> scoreDims =
        getLeadingDims(rewriter, loc, query, rank - 1);
    scoreDims.push_back(tensor::getMixedSize(rewriter, loc, key, rank - 2));
    SmallVector<int64_t> scoreShape = getStaticShape(scoreDims);

    // The shape of the prepared mask, and whether the mask has it already
    // (up to leading unit dimensions).
    auto sizeAt = [&](int64_t i) {
      return i < offset ? 1 : maskType.getDimSize(i - offset);
    };
    bool sharedByAll = llvm::all_of(llvm::seq<int64_t>(0, rank - 2),
                                    [&](int64_t i) { return sizeAt(i) == 1; });
    SmallVector<OpFoldResult> targetDims;
    bool asIs = maskType.getElementType().isF32() && maskType.getRank() > 0;
    for (int64_t i = 0; i < rank; ++i) {
      int64_t size = sizeAt(i);
      bool isBatch = i < rank - 2;
      if (isBatch && size == 1 && (sharedByAll || !allOrNone)) {
        targetDims.push_back(rewriter.getIndexAttr(1));
        continue;
      }
      targetDims.push_back(scoreDims[i]);
      asIs &= !ShapedType::isDynamic(size) && size == scoreShape[i];
    }
    if (asIs) {
      if (offset == 0)
        return mask;
      return expandTo(rewriter, loc, mask, getLeadingGroup(offset + 1, rank),
                      targetDims);
    }
    Value zeros = createFilledTensor(rewriter, loc, targetDims,
                                     rewriter.getF32Type(), 0.0);
    MaskingOperands masking;
    masking.mask = mask;
    return createMaskedScores(rewriter, loc, zeros, masking);
  }
};

/// additive_attention -> the two projections (linalg.matmul), the scores
/// `w_v · tanh(q + k)` as one linalg.generic reducing over the hidden size,
/// masked softmax and batch_matmul(·, V).
struct LowerAdditiveAttention : OpRewritePattern<AdditiveAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AdditiveAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type elementType = getTensorType(op.getQuery()).getElementType();
    Type accType = getAccumulatorType(elementType);
    int64_t rank = getTensorType(op.getQuery()).getRank();
    int64_t batchRank = rank - 2;

    // [..., Sq, H] and [..., Sk, H].
    Value queries =
        createProjection(rewriter, loc, op.getQuery(), op.getWQ(), accType);
    Value keys =
        createProjection(rewriter, loc, op.getKey(), op.getWK(), accType);
    // w_v [1, H] -> [H].
    Value wv = tensor::CollapseShapeOp::create(
        rewriter, loc, op.getWV(), SmallVector<ReassociationIndices>{{0, 1}});

    // scores[..., i, j] = sum_h w_v[h] * tanh(q[..., i, h] + k[..., j, h]),
    // over the loops (batch..., i, j, h).
    SmallVector<OpFoldResult> sizes = getLeadingDims(rewriter, loc, queries,
                                                     rank - 1); // [..., Sq]
    sizes.push_back(tensor::getMixedSize(rewriter, loc, keys, rank - 2));
    Value init = createFilledTensor(rewriter, loc, sizes, accType, 0.0);
    int64_t numLoops = rank + 1;
    SmallVector<int64_t> batch =
        llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
    auto withBatch = [&](ArrayRef<int64_t> dims) {
      SmallVector<int64_t> all(batch);
      llvm::append_range(all, dims);
      return getProjection(ctx, numLoops, all);
    };
    int64_t i = batchRank, j = batchRank + 1, h = batchRank + 2;
    Value scores = createGeneric(
        rewriter, loc, ValueRange{queries, keys, wv}, init,
        {withBatch({i, h}), withBatch({j, h}),
         getProjection(ctx, numLoops, {h}), withBatch({i, j})},
        1, [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          Value sum = arith::AddFOp::create(nb, nloc, args[0], args[1]);
          Value feature = math::TanhOp::create(nb, nloc, sum);
          Value w = convertFloat(nb, nloc, args[2], accType);
          Value term = arith::MulFOp::create(nb, nloc, w, feature);
          return arith::AddFOp::create(nb, nloc, term, args[3]);
        });

    if (op.getValidLens()) {
      MaskingOperands masking;
      masking.validLens = op.getValidLens();
      scores = createMaskedScores(rewriter, loc, scores, masking);
    }
    replaceWithPooledValues(rewriter, op, scores, op.getValue(), elementType,
                            accType);
    return success();
  }
};

/// kernel_pooling -> the kernel weights over (batch..., query, key) (a
/// softmax of -x²/2 for the gaussian kernel, which is its normalisation
/// without underflow), their normalisation, and the pooling of the values:
/// a reduction linalg.generic for scalar values, batch_matmul for vectors.
struct LowerKernelPooling : OpRewritePattern<KernelPoolingOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KernelPoolingOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Type elementType = getTensorType(op.getQueries()).getElementType();
    Type accType = getAccumulatorType(elementType);
    int64_t queryRank = getTensorType(op.getQueries()).getRank();
    int64_t batchRank = queryRank - 1;
    int64_t numLoops = queryRank + 1; // batch..., query, key
    PoolingKernel kernel = op.getKernel();
    double bandwidth = op.getBandwidth().convertToDouble();

    SmallVector<int64_t> batch =
        llvm::to_vector(llvm::seq<int64_t>(0, batchRank));
    auto withBatch = [&](ArrayRef<int64_t> dims) {
      SmallVector<int64_t> all(batch);
      llvm::append_range(all, dims);
      return getProjection(ctx, numLoops, all);
    };
    int64_t qd = batchRank, kd = batchRank + 1;

    // weights[..., i, j] = K((q[..., i] - k[..., j]) / bandwidth), or the
    // logits -x²/2 for the gaussian kernel.
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, op.getQueries());
    sizes.push_back(
        tensor::getMixedSize(rewriter, loc, op.getKeys(), queryRank - 1));
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, accType);
    Value weights = createGeneric(
        rewriter, loc, ValueRange{op.getQueries(), op.getKeys()}, init,
        {withBatch({qd}), withBatch({kd}), withBatch({qd, kd})}, 0,
        [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
          Value q = convertFloat(nb, nloc, args[0], accType);
          Value k = convertFloat(nb, nloc, args[1], accType);
          Value x = arith::SubFOp::create(nb, nloc, q, k);
          if (bandwidth != 1.0)
            x = arith::DivFOp::create(
                nb, nloc, x, createFloatConstant(nb, nloc, accType, bandwidth));
          auto constant = [&](double value) {
            return createFloatConstant(nb, nloc, accType, value);
          };
          switch (kernel) {
          case PoolingKernel::gaussian: {
            Value square = arith::MulFOp::create(nb, nloc, x, x);
            return arith::MulFOp::create(nb, nloc, square, constant(-0.5));
          }
          case PoolingKernel::boxcar: {
            Value one = constant(1.0);
            Value inside =
                arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OLT,
                                      math::AbsFOp::create(nb, nloc, x), one);
            return arith::SelectOp::create(nb, nloc, inside, one,
                                           constant(0.0));
          }
          case PoolingKernel::constant:
            return constant(1.0);
          case PoolingKernel::epanechikov: {
            Value rest = arith::SubFOp::create(
                nb, nloc, constant(1.0), math::AbsFOp::create(nb, nloc, x));
            return arith::MaximumFOp::create(nb, nloc, rest, constant(0.0));
          }
          }
          llvm_unreachable("unknown pooling kernel");
        });
    Value alpha =
        kernel == PoolingKernel::gaussian
            ? createSoftmax(rewriter, loc, weights, elementType)
            : createRowNormalization(rewriter, loc, weights, elementType);

    Value values = op.getValues();
    Value result;
    if (getTensorType(values).getRank() == queryRank + 1) {
      result = createBatchedMatmul(rewriter, loc, alpha, values,
                                   /*transposeRhs=*/false, accType);
    } else {
      // out[..., i] = sum_j alpha[..., i, j] * v[..., j].
      SmallVector<OpFoldResult> outSizes =
          getDims(rewriter, loc, op.getQueries());
      Value outInit = createFilledTensor(rewriter, loc, outSizes, accType, 0.0);
      result = createGeneric(
          rewriter, loc, ValueRange{alpha, values}, outInit,
          {withBatch({qd, kd}), withBatch({kd}), withBatch({qd})}, 1,
          [&](OpBuilder &nb, Location nloc, ValueRange args) -> Value {
            Value a = convertFloat(nb, nloc, args[0], accType);
            Value v = convertFloat(nb, nloc, args[1], accType);
            Value term = arith::MulFOp::create(nb, nloc, a, v);
            return arith::AddFOp::create(nb, nloc, term, args[2]);
          });
    }
    result = convertElements(rewriter, loc, result, elementType);
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// Transposes dimensions 1 and 2 of the rank-4 tensor `v` with a
/// linalg.transpose.
static Value transposeMiddle(OpBuilder &b, Location loc, Value v) {
  SmallVector<OpFoldResult> dims = getDims(b, loc, v);
  std::swap(dims[1], dims[2]);
  Value init =
      tensor::EmptyOp::create(b, loc, dims, getTensorType(v).getElementType());
  return linalg::TransposeOp::create(b, loc, v, init,
                                     ArrayRef<int64_t>{0, 2, 1, 3})
      ->getResult(0);
}

/// split_heads -> expand_shape [B, S, H, Dh], linalg.transpose
/// [B, H, S, Dh], collapse_shape [B * H, S, Dh].
struct LowerSplitHeads : OpRewritePattern<SplitHeadsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(SplitHeadsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t heads = op.getNumHeads();
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, op.getInput());
    SmallVector<OpFoldResult> sizes{dims[0], dims[1],
                                    rewriter.getIndexAttr(heads),
                                    divideSize(rewriter, loc, dims[2], heads)};
    Value split =
        expandTo(rewriter, loc, op.getInput(),
                 SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}, sizes);
    Value transposed = transposeMiddle(rewriter, loc, split);
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, transposed,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// merge_heads -> expand_shape [B, H, S, Dh], linalg.transpose
/// [B, S, H, Dh], collapse_shape [B, S, H * Dh].
struct LowerMergeHeads : OpRewritePattern<MergeHeadsOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MergeHeadsOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t heads = op.getNumHeads();
    SmallVector<OpFoldResult> dims = getDims(rewriter, loc, op.getInput());
    SmallVector<OpFoldResult> sizes{divideSize(rewriter, loc, dims[0], heads),
                                    rewriter.getIndexAttr(heads), dims[1],
                                    dims[2]};
    Value split =
        expandTo(rewriter, loc, op.getInput(),
                 SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}}, sizes);
    Value transposed = transposeMiddle(rewriter, loc, split);
    Value result = tensor::CollapseShapeOp::create(
        rewriter, loc, transposed,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
    rewriter.replaceOp(op,
                       castToTensorType(rewriter, loc, result, op.getType()));
    return success();
  }
};

/// kv_cache_append -> a check that the cache holds position + S rows, the
/// update inserted at row `position`, and the first position + S rows.
struct LowerKvCacheAppend : OpRewritePattern<KvCacheAppendOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(KvCacheAppendOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    int64_t rank = getTensorType(op.getCache()).getRank();
    int64_t seqDim = rank - 2;
    SmallVector<OpFoldResult> sizes = getDims(rewriter, loc, op.getUpdate());
    Value steps = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[seqDim]);
    Value end = arith::AddIOp::create(rewriter, loc, op.getPosition(), steps);
    Value maxLen = getValueOrCreateConstantIndexOp(
        rewriter, loc, getDims(rewriter, loc, op.getCache())[seqDim]);
    Value fits = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule,
                                       end, maxLen);
    cf::AssertOp::create(rewriter, loc, fits,
                         "the key/value cache is full: the positions so far "
                         "and this call's are more than it holds (the "
                         "model's --kv-cache=N)");

    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    offsets[seqDim] = op.getPosition();
    Value updated = tensor::InsertSliceOp::create(
        rewriter, loc, op.getUpdate(), op.getCache(), offsets, sizes, strides);
    offsets[seqDim] = rewriter.getIndexAttr(0);
    sizes[seqDim] = end;
    Value prefix = tensor::ExtractSliceOp::create(
        rewriter, loc, updated, offsets, sizes, strides);
    rewriter.replaceOp(op, {updated, castToTensorType(rewriter, loc, prefix,
                                                      op.getPrefix().getType())});
    return success();
  }
};

} // namespace

void tfm::populateAttentionToLinalgPatterns(RewritePatternSet &patterns,
                                            bool decodePath) {
  patterns.add<LowerAttention>(patterns.getContext(), decodePath);
  patterns.add<LowerKvCacheAppend>(patterns.getContext());
  patterns.add<LowerBatchMatmul, LowerMaskedSoftmax,
               LowerAdditiveAttention, LowerKernelPooling, LowerSplitHeads,
               LowerMergeHeads>(patterns.getContext());
}
