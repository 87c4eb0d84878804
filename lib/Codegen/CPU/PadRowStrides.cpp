//===- PadRowStrides.cpp - tfm-cpu-pad-row-strides ------------------------===//
//
// Implements `tfm-cpu-pad-row-strides`: an operand of a micro-kernel matmul
// whose row stride makes its rows alias in L1's sets gets rows one cache
// line longer (a padded constant, its producer writing into a padded
// buffer, or a copy into one).
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <cstring>

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCPUPADROWSTRIDES
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Rows whose stride is a multiple of this many cache lines share at most
/// 64 / 8 = 8 of L1's 64 sets.
constexpr int64_t kAliasingLines = 8;

/// The elements of padding that `type`'s rows need: one cache line if the
/// row stride is a multiple of kAliasingLines lines, else none.
int64_t getRowPadding(RankedTensorType type) {
  Type element = type.getElementType();
  // Only the rows' length matters; the other sizes may be dynamic.
  if (type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1) ||
      !element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return 0;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t rowBytes = type.getShape().back() * elementBytes;
  if (rowBytes % (kCacheLineBytes * kAliasingLines) != 0)
    return 0;
  return kCacheLineBytes / elementBytes;
}

/// `attr` with each row (its last dimension) followed by `padding` zeros.
DenseElementsAttr padRows(DenseElementsAttr attr, RankedTensorType padded) {
  int64_t elementBytes = attr.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t row = attr.getType().getShape().back() * elementBytes;
  int64_t paddedRow = padded.getShape().back() * elementBytes;
  int64_t rows = attr.getNumElements() / attr.getType().getShape().back();
  ArrayRef<char> data = attr.getRawData();
  std::vector<char> buffer(rows * paddedRow, 0);
  for (int64_t r = 0; r < rows; ++r)
    std::memcpy(buffer.data() + r * paddedRow, data.data() + r * row, row);
  return DenseElementsAttr::getFromRawBuffer(padded, buffer);
}

/// The operands of a product that may be padded.
enum class Operand { Lhs, Rhs };

struct TfmCpuPadRowStridesPass
    : tfm::impl::TfmCpuPadRowStridesBase<TfmCpuPadRowStridesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> products;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op.hasPureTensorSemantics() && getRowMajorMatmulDims(op) &&
          !op->getParentOfType<scf::ForallOp>())
        products.push_back(op);
    });
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk([&](linalg::TransposeOp op) {
      if (op.hasPureTensorSemantics() &&
          !op->getParentOfType<scf::ForallOp>())
        transposes.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : products) {
      pad(rewriter, op, Operand::Rhs);
      pad(rewriter, op, Operand::Lhs);
    }
    for (linalg::TransposeOp op : transposes)
      padResult(rewriter, op);
  }

  /// A transpose writes its result into the first columns of a padded
  /// buffer: attention's Kᵀ, whose rows flash attention's tiles read down
  /// a block of keys.
  void padResult(IRRewriter &rewriter, linalg::TransposeOp op) {
    OpOperand &init = op.getDpsInitsMutable()[0];
    auto type = cast<RankedTensorType>(init.get().getType());
    int64_t padding = getRowPadding(type);
    if (padding == 0 || !init.get().getDefiningOp<tensor::EmptyOp>())
      return;
    rewriter.setInsertionPoint(op);
    Value padded =
        getPaddedSlice(rewriter, op.getLoc(), init.get(), padding);
    rewriter.modifyOpInPlace(op, [&] { init.set(padded); });
  }

  /// The first columns, of `like`'s shape, of an allocation of `like`'s
  /// outer dimensions whose rows are `padding` elements longer, a row being
  /// `like`'s last `rowDims` dimensions (all static): the slice of padded
  /// rows, expanded back into those dimensions if there are several.
  Value getPaddedSlice(IRRewriter &rewriter, Location loc, Value like,
                       int64_t padding, unsigned rowDims = 1) {
    auto type = cast<RankedTensorType>(like.getType());
    unsigned outer = type.getRank() - rowDims;
    int64_t row = ShapedType::getNumElements(type.getShape().drop_front(outer));
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, like);
    SmallVector<OpFoldResult> rows(ArrayRef(sizes).take_front(outer));
    rows.push_back(rewriter.getIndexAttr(row));
    SmallVector<int64_t> paddedShape(type.getShape().take_front(outer));
    paddedShape.push_back(row + padding);
    SmallVector<Value> dynamicSizes;
    for (unsigned d = 0; d < outer; ++d)
      if (type.isDynamicDim(d))
        dynamicSizes.push_back(cast<Value>(sizes[d]));
    Value buffer = bufferization::AllocTensorOp::create(
        rewriter, loc,
        RankedTensorType::get(paddedShape, type.getElementType()),
        dynamicSizes);
    SmallVector<OpFoldResult> zeros(outer + 1, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(outer + 1, rewriter.getIndexAttr(1));
    Value padded = tensor::ExtractSliceOp::create(rewriter, loc, buffer, zeros,
                                                  rows, ones);
    if (rowDims == 1)
      return padded;
    SmallVector<ReassociationIndices> groups;
    for (unsigned d = 0; d < outer; ++d)
      groups.push_back({d});
    groups.push_back(
        llvm::to_vector(llvm::seq<int64_t>(outer, type.getRank())));
    return tensor::ExpandShapeOp::create(rewriter, loc, type, padded, groups,
                                         sizes);
  }

  /// The sizes of `value`'s dynamic dimensions.
  static SmallVector<Value> getDynamicSizes(IRRewriter &rewriter, Location loc,
                                            Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<Value> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (type.isDynamicDim(d))
        sizes.push_back(tensor::DimOp::create(rewriter, loc, value, d));
    return sizes;
  }

  /// The part of `buffer` (padded rows) of `like`'s shape.
  static Value slice(IRRewriter &rewriter, Location loc, Value like,
                     Value buffer) {
    auto type = cast<RankedTensorType>(like.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(),
                                      rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, like);
    return tensor::ExtractSliceOp::create(rewriter, loc, type, buffer, offsets,
                                          sizes, strides);
  }

  /// Gives the `which` operand of `op` padded rows, when they alias.
  void pad(IRRewriter &rewriter, linalg::LinalgOp op, Operand which) {
    linalg::ContractionDimensions dims = *getRowMajorMatmulDims(op);
    OpOperand *operand = op.getDpsInputOperand(which == Operand::Lhs ? 0 : 1);
    // The left operand's rows alias only when it is row-major, [..., M, K]:
    // the micro-kernel reads one element of each of its Mr rows per step.
    if (which == Operand::Lhs) {
      AffineMap map = op.getMatchingIndexingMap(operand);
      auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
      if (!last || last.getPosition() != dims.k.front())
        return;
    }
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    int64_t padding = type ? getRowPadding(type) : 0;
    if (padding == 0)
      return;
    SmallVector<int64_t> paddedShape(type.getShape());
    paddedShape.back() += padding;
    auto paddedType = RankedTensorType::get(paddedShape, type.getElementType());
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);

    DenseElementsAttr constant;
    if (matchPattern(operand->get(), m_Constant(&constant)) &&
        !constant.isSplat()) {
      Value buffer = arith::ConstantOp::create(rewriter, loc,
                                               padRows(constant, paddedType));
      Value padded = slice(rewriter, loc, operand->get(), buffer);
      rewriter.modifyOpInPlace(op, [&] { operand->set(padded); });
      return;
    }
    // Anything else costs a buffer, and a copy unless its producer can
    // write into it: it pays when enough rows of the product (for the right
    // operand) or columns (for the left) read the padded rows.
    int64_t reuse = 1;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    for (unsigned d : which == Operand::Lhs ? dims.n : dims.m)
      reuse = ShapedType::isDynamic(ranges[d]) || reuse < 0
                  ? -1
                  : reuse * ranges[d];
    if (reuse < (which == Operand::Lhs ? minColumns : minRows))
      return;
    if (writeIntoPadded(rewriter, operand->get(), padding))
      return;
    Value buffer = bufferization::AllocTensorOp::create(
        rewriter, loc, paddedType,
        getDynamicSizes(rewriter, loc, operand->get()));
    Value padded =
        linalg::CopyOp::create(rewriter, loc, operand->get(),
                               slice(rewriter, loc, operand->get(), buffer))
            .getResult(0);
    rewriter.modifyOpInPlace(op, [&] { operand->set(padded); });
  }

  /// The number of trailing dimensions of `type`, all static, that hold
  /// exactly `row` elements, or 0 if none do. Every reshape keeps the
  /// elements' row-major order, so between two types that both have such
  /// dimensions, a reshape keeps each row of `row` elements whole, and a view
  /// of rows padded at their end needs no copy.
  static unsigned getRowDims(RankedTensorType type, int64_t row) {
    int64_t elements = 1;
    for (int64_t d = type.getRank() - 1; d >= 0 && elements < row; --d) {
      if (type.isDynamicDim(d))
        return 0;
      elements *= type.getDimSize(d);
      if (elements == row)
        return type.getRank() - d;
    }
    return 0;
  }

  /// The reshapes (collapse or expand) that define `value` one from another,
  /// outermost first, down to the value they start from, which `value` is
  /// set to; failure if a reshape's source does not keep rows of `row`
  /// elements whole (getRowDims) or, with `singleUse`, if a reshape's
  /// result has another user.
  static FailureOr<SmallVector<Operation *>>
  getRowReshapes(Value &value, int64_t row, bool singleUse) {
    SmallVector<Operation *> reshapes;
    while (Operation *reshape = value.getDefiningOp()) {
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(reshape))
        break;
      Value source = reshape->getOperand(0);
      if ((singleUse && !value.hasOneUse()) ||
          !getRowDims(cast<RankedTensorType>(source.getType()), row))
        return failure();
      reshapes.push_back(reshape);
      value = source;
    }
    return reshapes;
  }

  /// Makes the producer of `value`, its only user being the product, write
  /// into the first columns of a padded buffer: a linalg op (or the fill of
  /// its accumulator) whose destination is a tensor.empty or alloc_tensor.
  /// Reshapes may stand between the producer and the product (a LayerNorm's
  /// [1, S, D] read as [S, D]; a product's result in panels, [S, N / Nr, Nr],
  /// read as [S, N]) and between the empty and the producer, as long as
  /// each keeps the product's rows whole. False if `value` has no such
  /// producer.
  bool writeIntoPadded(IRRewriter &rewriter, Value value, int64_t padding) {
    int64_t row = cast<RankedTensorType>(value.getType()).getShape().back();
    if (failed(getRowReshapes(value, row, /*singleUse=*/true)))
      return false;
    auto result = dyn_cast<OpResult>(value);
    if (!result || !value.hasOneUse())
      return false;
    auto producer = dyn_cast<linalg::LinalgOp>(result.getOwner());
    if (!producer || !producer.hasPureTensorSemantics() ||
        producer->getParentOfType<scf::ForallOp>() ||
        !getRowDims(cast<RankedTensorType>(value.getType()), row))
      return false;
    OpOperand *init = producer.getDpsInitOperand(result.getResultNumber());
    if (auto fill = init->get().getDefiningOp<linalg::FillOp>();
        fill && fill->hasOneUse())
      init = fill.getDpsInitOperand(0);
    // The destination's own reshapes, which other ops may share: they are
    // cloned onto the padded buffer.
    Value empty = init->get();
    FailureOr<SmallVector<Operation *>> destinationReshapes =
        getRowReshapes(empty, row, /*singleUse=*/false);
    if (failed(destinationReshapes) ||
        (!empty.getDefiningOp<tensor::EmptyOp>() &&
         !empty.getDefiningOp<bufferization::AllocTensorOp>()))
      return false;
    auto emptyType = cast<RankedTensorType>(empty.getType());
    unsigned rowDims = getRowDims(emptyType, row);
    if (!rowDims)
      return false;

    // The padded buffer in the empty's shape; the empty's reshapes on it.
    rewriter.setInsertionPoint(init->getOwner());
    Value padded = getPaddedSlice(rewriter, init->getOwner()->getLoc(), empty,
                                  padding, rowDims);
    IRMapping mapping;
    mapping.map(empty, padded);
    for (Operation *reshape : llvm::reverse(*destinationReshapes))
      padded = rewriter.clone(*reshape, mapping)->getResult(0);
    rewriter.modifyOpInPlace(init->getOwner(), [&] { init->set(padded); });
    return true;
  }
};

} // namespace
