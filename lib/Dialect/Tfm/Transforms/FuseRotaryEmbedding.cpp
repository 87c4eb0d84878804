//===- FuseRotaryEmbedding.cpp - Fuse rotate-half RoPE --------------------===//
//
// Implements `tfm-fuse-rotary-embedding`: Llama's / GPT-NeoX's
//
//   x · cos + rotate_half(x) · sin,  rotate_half(x) = concat(-x2, x1)
//
// with x1 and x2 the halves of x's last dimension and cos, sin the cosines
// and sines of a table of angles that repeats its half, `cat(freqs, freqs)`,
// becomes `tfm.rotary_embedding x, cos(freqs), sin(freqs)`. As importers
// bring it, the tables are `[S, D]` (one row per position of x) broadcast
// along x's leading dimensions.
//
//===----------------------------------------------------------------------===//

#include "tfm/Dialect/Tfm/IR/TfmOps.h"
#include "tfm/Dialect/Tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFUSEROTARYEMBEDDING
#include "tfm/Dialect/Tfm/Transforms/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The table behind `value`: `value` itself when it is `[S, D]` for x's
/// `[..., S, D]`, or the input of a linalg.broadcast that adds x's leading
/// dimensions to such a table. Null otherwise.
Value getTable(Value value, RankedTensorType xType) {
  if (auto broadcast = value.getDefiningOp<linalg::BroadcastOp>()) {
    int64_t added = xType.getRank() - 2;
    if (broadcast.getDimensions() !=
        ArrayRef(llvm::to_vector(llvm::seq<int64_t>(0, added))))
      return nullptr;
    value = broadcast.getInput();
  }
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 2 ||
      type.getElementType() != xType.getElementType())
    return nullptr;
  return value;
}

/// `freqs` when `table` is `Op(concat(freqs, freqs))` along the last
/// dimension (Op math.cos or math.sin); null otherwise.
template <typename Op> Value getRepeatedAngles(Value table) {
  auto op = table.getDefiningOp<Op>();
  if (!op)
    return nullptr;
  auto concat = op.getOperand().template getDefiningOp<tensor::ConcatOp>();
  if (!concat || concat.getDim() != 1 || concat.getInputs().size() != 2 ||
      concat.getInputs()[0] != concat.getInputs()[1])
    return nullptr;
  return concat.getInputs()[0];
}

/// Whether `slice` is the half of `x` along its last dimension that starts
/// at `offset`, with unit strides and everything of the other dimensions.
bool isHalf(Value slice, Value x, int64_t offset, int64_t half) {
  auto op = slice.getDefiningOp<tensor::ExtractSliceOp>();
  if (!op || op.getSource() != x || !op.hasUnitStride() ||
      op.getSourceType().getRank() != op.getResultType().getRank())
    return false;
  int64_t last = op.getSourceType().getRank() - 1;
  SmallVector<OpFoldResult> offsets = op.getMixedOffsets();
  for (int64_t i = 0; i < last; ++i)
    if (!isConstantIntValue(offsets[i], 0) ||
        op.getResultType().getDimSize(i) != op.getSourceType().getDimSize(i))
      return false;
  return isConstantIntValue(offsets[last], offset) &&
         op.getResultType().getDimSize(last) == half;
}

/// Whether `value` is rotate_half(x): concat(-x[..., D/2:], x[..., :D/2])
/// along the last dimension.
bool isRotatedHalf(Value value, Value x, int64_t dim) {
  auto concat = value.getDefiningOp<tensor::ConcatOp>();
  int64_t last = cast<RankedTensorType>(x.getType()).getRank() - 1;
  if (!concat || static_cast<int64_t>(concat.getDim()) != last ||
      concat.getInputs().size() != 2)
    return false;
  auto neg = concat.getInputs()[0].getDefiningOp<arith::NegFOp>();
  return neg && isHalf(neg.getOperand(), x, dim / 2, dim / 2) &&
         isHalf(concat.getInputs()[1], x, 0, dim / 2);
}

/// The factors of `product` (an arith.mulf) with `table` the one whose
/// table is `Op(concat(freqs, freqs))`: returns the other factor and sets
/// `freqs`; null when neither is.
template <typename Op>
Value splitProduct(Value product, RankedTensorType xType, Value &freqs) {
  auto mul = product.getDefiningOp<arith::MulFOp>();
  if (!mul)
    return nullptr;
  for (auto [other, factor] : {std::pair(mul.getLhs(), mul.getRhs()),
                               std::pair(mul.getRhs(), mul.getLhs())}) {
    Value table = getTable(factor, xType);
    if (!table)
      continue;
    if (Value angles = getRepeatedAngles<Op>(table)) {
      freqs = angles;
      return other;
    }
  }
  return nullptr;
}

/// `x · cos + rotate_half(x) · sin` (either order of the sum and of each
/// product) -> tfm.rotary_embedding.
struct FuseRotateHalf : OpRewritePattern<arith::AddFOp> {
  FuseRotateHalf(MLIRContext *context, llvm::Statistic &numFused)
      : OpRewritePattern(context), numFused(numFused) {}

  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || type.getRank() < 2)
      return rewriter.notifyMatchFailure(op, "not a tensor of rank 2 or more");
    int64_t dim = type.getShape().back();
    if (ShapedType::isDynamic(dim) || dim % 2 != 0)
      return rewriter.notifyMatchFailure(op, "not a static even last dim");
    for (auto [first, second] : {std::pair(op.getLhs(), op.getRhs()),
                                 std::pair(op.getRhs(), op.getLhs())}) {
      Value cosAngles, sinAngles;
      Value x = splitProduct<math::CosOp>(first, type, cosAngles);
      Value rotated = splitProduct<math::SinOp>(second, type, sinAngles);
      if (!x || !rotated || cosAngles != sinAngles ||
          x.getType() != op.getType() || !isRotatedHalf(rotated, x, dim))
        continue;
      // The tables' rows are x's positions: [S, D/2].
      auto anglesType = cast<RankedTensorType>(cosAngles.getType());
      if (anglesType.getDimSize(1) != dim / 2)
        continue;
      Location loc = op.getLoc();
      Value cos = math::CosOp::create(rewriter, loc, cosAngles);
      Value sin = math::SinOp::create(rewriter, loc, cosAngles);
      rewriter.replaceOpWithNewOp<RotaryEmbeddingOp>(op, op.getType(), x, cos,
                                                     sin, /*offset=*/Value(),
                                                     /*interleaved=*/false);
      ++numFused;
      return success();
    }
    return rewriter.notifyMatchFailure(op, "not a rotate-half RoPE");
  }

private:
  llvm::Statistic &numFused;
};

struct TfmFuseRotaryEmbeddingPass
    : tfm::impl::TfmFuseRotaryEmbeddingBase<TfmFuseRotaryEmbeddingPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<FuseRotateHalf>(context, numFused);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
