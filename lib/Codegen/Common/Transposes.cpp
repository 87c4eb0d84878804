//===- Transposes.cpp - Moving transposes past slices and reshapes --------===//

#include "tfm/Codegen/Common/Transposes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tfm;

/// The reassociation that groups each dimension of a size other than 1
/// (`isUnit` false) with the unit ones before it (and the last with the
/// trailing ones), taking the dimensions in `order`; none where those
/// dimensions are not in increasing order, or where every one is a unit.
static std::optional<SmallVector<ReassociationIndices>>
getKeptDimGroups(ArrayRef<int64_t> order,
                 llvm::function_ref<bool(int64_t)> isUnit) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices group;
  int64_t previous = -1;
  for (auto [position, d] : llvm::enumerate(order)) {
    group.push_back(position);
    if (isUnit(d))
      continue;
    if (d < previous)
      return std::nullopt;
    previous = d;
    groups.push_back(std::move(group));
    group.clear();
  }
  if (groups.empty())
    return std::nullopt;
  llvm::append_range(groups.back(), group);
  return groups;
}

bool tfm::movesOnlyUnitDims(ArrayRef<int64_t> shape, ArrayRef<int64_t> perm) {
  return getKeptDimGroups(perm, [&](int64_t d) { return shape[d] == 1; })
      .has_value();
}

TransposedSlice tfm::getTransposedSlice(tensor::ExtractSliceOp slice,
                                        linalg::TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  TransposedSlice result;
  result.offsets.resize(rank);
  result.sizes.resize(rank);
  result.strides.resize(rank);
  SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
  SmallVector<OpFoldResult> sizes = slice.getMixedSizes();
  SmallVector<OpFoldResult> strides = slice.getMixedStrides();
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  llvm::SmallBitVector droppedInput(rank);
  for (auto [d, source] : llvm::enumerate(perm)) {
    result.offsets[source] = offsets[d];
    result.sizes[source] = sizes[d];
    result.strides[source] = strides[d];
    if (dropped.test(d))
      droppedInput.set(source);
  }
  // The input's slice, its kept dimensions renumbered.
  SmallVector<int64_t> position(rank, -1);
  for (int64_t j = 0; j < rank; ++j) {
    if (droppedInput.test(j))
      continue;
    position[j] = result.shape.size();
    std::optional<int64_t> size = getConstantIntValue(result.sizes[j]);
    result.shape.push_back(size ? *size : ShapedType::kDynamic);
  }
  for (int64_t d = 0; d < rank; ++d)
    if (!dropped.test(d))
      result.perm.push_back(position[perm[d]]);
  return result;
}

linalg::TransposeOp
tfm::createTransposedSlice(RewriterBase &rewriter, tensor::ExtractSliceOp slice,
                           linalg::TransposeOp transpose,
                           const TransposedSlice &transposed) {
  Type element = slice.getType().getElementType();
  Location loc = slice.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(slice);
  Value inputSlice = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get(transposed.shape, element),
      transpose.getInput(), transposed.offsets, transposed.sizes,
      transposed.strides);
  llvm::SmallBitVector dropped = slice.getDroppedDims();
  SmallVector<OpFoldResult> initSizes;
  for (auto [d, size] : llvm::enumerate(slice.getMixedSizes()))
    if (!dropped.test(d))
      initSizes.push_back(size);
  Value init = tensor::EmptyOp::create(rewriter, loc, initSizes, element);
  return linalg::TransposeOp::create(rewriter, loc, inputSlice, init,
                                     transposed.perm);
}

namespace {

/// A transpose that moves only dimensions of size 1 (PyTorch's [S, 1, D]
/// <-> [1, S, D] around nn.MultiheadAttention, a head's tile of [S, H, D]
/// read as [1, S, D]) moves no element: a collapse_shape dropping the unit
/// dimensions and an expand_shape to the result, both free, instead of a
/// copy that keeps the ops on either side apart.
struct UnitDimTransposeToReshape : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors");
    Value input = op.getInput();
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType = cast<RankedTensorType>(op->getResult(0).getType());
    auto isUnit = [&](int64_t d) { return inType.getDimSize(d) == 1; };
    std::optional<SmallVector<ReassociationIndices>> inGroups =
        getKeptDimGroups(
            llvm::to_vector(llvm::seq<int64_t>(0, inType.getRank())), isUnit);
    std::optional<SmallVector<ReassociationIndices>> outGroups =
        getKeptDimGroups(op.getPermutation(), isUnit);
    if (!inGroups || !outGroups)
      return rewriter.notifyMatchFailure(op, "moves a dimension of size > 1");
    Location loc = op.getLoc();
    Value kept =
        tensor::CollapseShapeOp::create(rewriter, loc, input, *inGroups);
    SmallVector<OpFoldResult> outSizes =
        llvm::map_to_vector(op.getPermutation(), [&](int64_t d) {
          return tensor::getMixedSize(rewriter, loc, input, d);
        });
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(op, outType, kept,
                                                       *outGroups, outSizes);
    return success();
  }
};

} // namespace

void tfm::populateUnitDimTransposeToReshapePatterns(
    RewritePatternSet &patterns) {
  patterns.add<UnitDimTransposeToReshape>(patterns.getContext());
}
