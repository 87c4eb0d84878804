//===- CpuVectorize.cpp - Vectorize the CPU's tiles -----------------------===//
//
// Implements `tfm-cpu-vectorize`: every linalg op on tensors, by now a tile
// that `tfm-tile-by-config` cut as `tfm-cpu-select-vector-strategy` chose,
// becomes vector code. Tiles of static shape are vectorized whole, without
// masks; tiles of dynamic shape with masks to the strategy's vector shape.
// The pass chooses no sizes of its own.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/CPU/Strategy.h"

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

/// Whether every loop of `op` provably has at most `shape`'s iterations,
/// so that masked vectors of `shape` cover it.
bool fitsVectorShape(linalg::LinalgOp op, ArrayRef<int64_t> shape) {
  for (auto [dim, range] : llvm::enumerate(op.getStaticLoopRanges())) {
    int64_t bound = range;
    if (ShapedType::isDynamic(range)) {
      Value operand;
      unsigned operandDim;
      if (failed(op.mapIterationSpaceDimToOperandDim(dim, operand,
                                                      operandDim)))
        return false;
      FailureOr<int64_t> upper = ValueBoundsConstraintSet::computeConstantBound(
          presburger::BoundType::UB, {operand, operandDim},
          /*stopCondition=*/nullptr, /*closedUB=*/true);
      if (failed(upper))
        return false;
      bound = *upper;
    }
    if (bound > shape[dim])
      return false;
  }
  return true;
}

struct TfmCpuVectorizePass
    : tfm::impl::TfmCpuVectorizeBase<TfmCpuVectorizePass> {
  using Base::Base;

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
    SmallVector<int64_t> maskShape;
    if (op.hasDynamicShape()) {
      maskShape = getCpuVectorShape(op, vectorWidthBits);
      if (!fitsVectorShape(op, maskShape)) {
        op.emitRemark("not vectorized: its tile of dynamic shape may exceed "
                      "the vector shape; lowered to loops");
        return;
      }
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
