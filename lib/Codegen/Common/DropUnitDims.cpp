//===- DropUnitDims.cpp - Contractions without their unit dimensions ------===//
//
// Implements `tfm-drop-unit-dims`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "llvm/ADT/DenseSet.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMDROPUNITDIMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {
/// Whether `op` is a contraction on tensors.
bool isContraction(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.hasPureTensorSemantics() &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// Whether `op`, an elementwise op, is a product's epilogue: the only
/// reader of the product's result, or what computes its accumulator for it
/// alone, through reshapes only. Its unit dimensions go too, so that it
/// meets the product in one shape (see tfm-cpu-pack-panels, which then
/// moves it into the panels' shape).
bool isEpilogue(linalg::GenericOp op) {
  if (op.getNumLoops() != op.getNumParallelLoops() || op->getNumResults() != 1)
    return false;
  for (Value input : op.getDpsInputs()) {
    while (input.hasOneUse() &&
           isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
               input.getDefiningOp()))
      input = input.getDefiningOp()->getOperand(0);
    if (input.hasOneUse() && isContraction(input.getDefiningOp()))
      return true;
  }
  Value result = op->getResult(0);
  while (result.hasOneUse() &&
         isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
             *result.getUsers().begin()))
    result = result.getUsers().begin()->getResult(0);
  if (!result.hasOneUse())
    return false;
  OpOperand &use = *result.getUses().begin();
  return isContraction(use.getOwner()) &&
         cast<linalg::LinalgOp>(use.getOwner()).isDpsInit(&use);
}

struct TfmDropUnitDimsPass
    : tfm::impl::TfmDropUnitDimsBase<TfmDropUnitDimsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation()->walk([&](linalg::LinalgOp op) {
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (isa<func::FuncOp>(op->getParentOp()) && op.hasPureTensorSemantics() &&
          (linalg::isaContractionOpInterface(op) ||
           (generic && isEpilogue(generic))) &&
          llvm::is_contained(op.getStaticLoopRanges(), 1))
        contractions.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    // A named contraction (a batch_matmul of one batch) as the generic op
    // it stands for, whose unit loops can go.
    SmallVector<linalg::GenericOp> generics;
    for (linalg::LinalgOp op : contractions) {
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation())) {
        generics.push_back(generic);
        continue;
      }
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (succeeded(generic))
        generics.push_back(*generic);
    }
    linalg::ControlDropUnitDims options;
    // Every unit loop but the last row (and the last column) of a
    // contraction whose rows (columns) are all unit: a [1, 1, K] x [K, N]
    // projection of one token stays a matmul of one row, which the
    // micro-kernel takes, rather than a vector-matrix product, which reads
    // the weights a column at a time.
    options.controlFn = [](Operation *op) {
      auto generic = cast<linalg::GenericOp>(op);
      SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(generic);
      llvm::SmallDenseSet<unsigned> keep;
      auto keepOne = [&](ArrayRef<unsigned> loops) {
        if (!loops.empty() &&
            llvm::all_of(loops, [&](unsigned d) { return ranges[d] == 1; }))
          keep.insert(loops.back());
      };
      if (succeeded(dims)) {
        keepOne(dims->m);
        keepOne(dims->n);
      }
      SmallVector<unsigned> drop;
      for (unsigned d = 0, e = generic.getNumLoops(); d < e; ++d)
        if (!keep.contains(d))
          drop.push_back(d);
      return drop;
    };
    for (linalg::GenericOp op : generics) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::DropUnitDimsResult> result =
          linalg::dropUnitDims(rewriter, op, options);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    }
  }
};
} // namespace
