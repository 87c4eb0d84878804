//===- CpuVectorize.cpp - Vectorize the CPU's tiles -----------------------===//
//
// Implements `tfm-cpu-vectorize`: every linalg op on tensors, by now a tile
// that `tfm-tile-by-config` cut as `tfm-cpu-select-vector-strategy` chose,
// becomes vector code. Tiles of static shape are vectorized whole, without
// masks. A tile of dynamic shape (a remainder of a register tile, a partial
// vector) is first tiled by 1 along each dynamic loop that no vector runs
// along; what stays dynamic is vectorized with masks to its largest shape,
// which the tiling bounds.
// The pass chooses no sizes of its own.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/Common/TilingUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUVECTORIZE
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether `value` is a tensor of i1. Vectors of i1 are bit-packed in memory
/// while scalar i1 loads and stores use a byte each, so a vectorized op that
/// reads or writes an i1 tensor would disagree with the loops around it
/// about the buffer's layout. Such ops (boolean masks) stay scalar.
bool isI1Tensor(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  return type && type.getElementType().isInteger(1);
}

/// The shape of the masked vectors that cover every tile `op` can be: each
/// loop's static extent, or the constant upper bound of a dynamic one (a
/// peeled remainder of a loop of step 6 has at most 5 iterations). None if
/// a dynamic loop has no constant bound.
std::optional<SmallVector<int64_t>> getMaskShape(linalg::LinalgOp op) {
  SmallVector<int64_t> shape;
  for (auto [dim, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    if (!ShapedType::isDynamic(range)) {
      shape.push_back(range);
      continue;
    }
    Value operand;
    unsigned operandDim;
    if (failed(op.mapIterationSpaceDimToOperandDim(dim, operand, operandDim)))
      return std::nullopt;
    FailureOr<int64_t> upper = ValueBoundsConstraintSet::computeConstantBound(
        presburger::BoundType::UB, {operand, operandDim},
        /*stopCondition=*/nullptr, /*closedUB=*/true);
    if (failed(upper))
      return std::nullopt;
    shape.push_back(std::max<int64_t>(*upper, 1));
  }
  return shape;
}

/// For a product's register tile of static shape whose columns are more
/// than a vector but not whole vectors (the last 17 columns of 49, peeled
/// off 32-column tiles), the shape of masked vectors that round the columns
/// up to whole vectors: a row of 17 is then two registers, the second
/// masked, where LLVM would split a 17-element vector into a 16-element one
/// and 1 and build that from scalars. Empty (vectorize at the tile's shape)
/// otherwise.
SmallVector<int64_t> getWholeVectorShape(linalg::LinalgOp op) {
  if (!linalg::isaContractionOpInterface(op) || op.getNumDpsInits() != 1)
    return {};
  AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (result.getNumResults() == 0)
    return {};
  auto column = dyn_cast<AffineDimExpr>(result.getResults().back());
  if (!column)
    return {};
  SmallVector<int64_t> shape = op.getStaticLoopRanges();
  unsigned bits = getElementTypeOrSelf(op.getDpsInits()[0].getType())
                      .getIntOrFloatBitWidth();
  int64_t lanes = CpuTargetAttr::lookup(op).getLanes(bits);
  int64_t &columns = shape[column.getPosition()];
  if (columns <= lanes || columns % lanes == 0)
    return {};
  columns = llvm::alignTo(columns, lanes);
  return shape;
}

/// Vector elements above which a tile of dynamic shape stays loops: the
/// tiles the strategy cuts are a register tile or a few vectors, and an
/// op whose bound is far larger was not tiled for vectors.
constexpr int64_t kMaxMaskedElements = 1024;

struct TfmCpuVectorizePass
    : tfm::impl::TfmCpuVectorizeBase<TfmCpuVectorizePass> {
  using Base::Base;

  /// Tiles every dynamic loop of `op` but the ones vectors run along by 1
  /// and vectorizes the tiles, whose shape is then static but for those. A
  /// register tile's remainder of up to 5 rows becomes a loop over rows of
  /// one vector each, instead of a 5-row masked tile whose masks, selects
  /// and spills cost as much as the rows of every full tile. Fails, leaving
  /// `op` as it was, if no such loop is dynamic.
  LogicalResult tileDynamicRows(IRRewriter &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    SmallVector<int64_t> sizes(ranges.size(), 0);
    // The loops along which vectors run stay whole: the innermost, and
    // the one along the result's rows (a product's columns).
    llvm::SmallBitVector vectorLoops(ranges.size());
    vectorLoops.set(ranges.size() - 1);
    AffineMap result = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
    if (result.getNumResults() > 0)
      if (auto dim = dyn_cast<AffineDimExpr>(result.getResults().back()))
        vectorLoops.set(dim.getPosition());
    for (size_t d = 0; d < ranges.size(); ++d)
      if (ShapedType::isDynamic(ranges[d]) && !vectorLoops.test(d))
        sizes[d] = 1;
    if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
      return failure();
    rewriter.setInsertionPoint(op);
    FailureOr<scf::SCFTilingResult> tiled = tileInPlace(rewriter, op, sizes);
    if (failed(tiled))
      return failure();
    for (Operation *tile : tiled->tiledOps)
      if (auto tileOp = dyn_cast<linalg::LinalgOp>(tile))
        vectorize(rewriter, tileOp);
    return success();
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics())
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops)
      vectorize(rewriter, op);
  }

  void vectorize(IRRewriter &rewriter, linalg::LinalgOp op) {
    if (llvm::any_of(op->getOperands(), isI1Tensor) ||
        llvm::any_of(op->getResults(), isI1Tensor))
      return;
    if (op.hasDynamicShape() && succeeded(tileDynamicRows(rewriter, op)))
      return;
    SmallVector<int64_t> maskShape;
    if (!op.hasDynamicShape())
      maskShape = getWholeVectorShape(op);
    if (op.hasDynamicShape()) {
      std::optional<SmallVector<int64_t>> shape = getMaskShape(op);
      if (!shape || ShapedType::getNumElements(*shape) > kMaxMaskedElements) {
        op.emitRemark("not vectorized: its tile of dynamic shape has no "
                      "small constant bound; lowered to loops");
        return;
      }
      maskShape = std::move(*shape);
    }
    rewriter.setInsertionPoint(op);
    // One flag per vector dimension (none scalable): with fewer, the
    // vectorizer builds mask types that differ from the ones it verifies.
    SmallVector<bool> scalable(maskShape.size(), false);
    FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
        rewriter, op, maskShape, scalable, /*vectorizeNDExtract=*/true);
    if (failed(vectorized)) {
      op.emitRemark("not vectorized; lowered to loops");
      return;
    }
    rewriter.replaceOp(op, vectorized->replacements);
  }
};

} // namespace
