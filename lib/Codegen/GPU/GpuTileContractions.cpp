//===- GpuTileContractions.cpp - Output tiles of contractions for GPUs ----===//
//
// Implements `tfm-gpu-tile-contractions`.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/TilingUtils.h"
#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMGPUTILECONTRACTIONS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;

namespace {

struct TfmGpuTileContractionsPass
    : tfm::impl::TfmGpuTileContractionsBase<TfmGpuTileContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    for (Operation &op : getOperation().getBody().getOps())
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        if (linalgOp.hasPureTensorSemantics() &&
            linalg::isaContractionOpInterface(linalgOp))
          contractions.push_back(linalgOp);

    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : contractions) {
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(op);
      if (failed(dims) || dims->m.empty() || dims->n.empty())
        continue;
      // One loop per batch dimension, one for the rows, one for the
      // columns: a grid has three dimensions.
      if (dims->batch.size() + 2 > 3)
        continue;
      SmallVector<int64_t> sizes(op.getNumLoops(), 0);
      for (unsigned b : dims->batch)
        sizes[b] = 1;
      sizes[dims->m.back()] = tileSize;
      sizes[dims->n.back()] = tileSize;
      // The other m and n dimensions (if any) stay whole in the tile.

      (void)tfm::tileInPlace(rewriter, op, sizes,
                             scf::SCFTilingOptions::LoopType::ForallOp);
    }
  }
};

} // namespace
