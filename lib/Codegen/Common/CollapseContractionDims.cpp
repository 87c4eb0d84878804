//===- CollapseContractionDims.cpp - One column dimension per product -----===//
//
// Implements `tfm-collapse-contraction-dims`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMCOLLAPSECONTRACTIONDIMS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

/// The column dimensions of `op` as one group to collapse, if there are
/// several, consecutive, and contiguous in every operand.
std::optional<ReassociationIndices> getColumnGroup(linalg::GenericOp op) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.size() < 2)
    return std::nullopt;
  ReassociationIndices group(dims->n.begin(), dims->n.end());
  llvm::sort(group);
  for (auto [i, dim] : llvm::enumerate(group))
    if (dim != group.front() + static_cast<int64_t>(i))
      return std::nullopt;
  if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(), {group}))
    return std::nullopt;
  return group;
}

struct TfmCollapseContractionDimsPass
    : tfm::impl::TfmCollapseContractionDimsBase<
          TfmCollapseContractionDimsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, ReassociationIndices>> ops;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (!isa<func::FuncOp>(op->getParentOp()) ||
          !op.hasPureTensorSemantics() ||
          !linalg::isaContractionOpInterface(op))
        return;
      if (std::optional<ReassociationIndices> group = getColumnGroup(op))
        ops.push_back({op, *group});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, group] : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> result =
          linalg::collapseOpIterationDims(op, {group}, rewriter);
      if (succeeded(result))
        rewriter.replaceOp(op, result->results);
    }
  }
};

} // namespace
