//===- FoldTransposesIntoProducts.cpp - tfm-fold-transposes-into-products -===//
//
// Implements `tfm-fold-transposes-into-products`: a product (linalg.matmul,
// linalg.batch_matmul or a contraction linalg.generic) that reads the
// result of a linalg.transpose reads the transpose's input instead, the
// permutation moved into the operand's indexing map. The lowering to
// linalg transposes a transposed right operand once (`x · wᵀ` of every
// linear layer), which the CPU's micro-kernel wants; a target whose
// product reads either layout (the GPU's tensor cores: ldmatrix loads B by
// rows of n or of k) saves the transpose's pass over the operand, at every
// call for a weight. Inside tile loops, a slice of a transposed operand
// becomes the transpose of a slice (only toward products), so that the
// transpose reaches the tiled product and folds there too.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/Common/Transposes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace tfm {
#define GEN_PASS_DEF_TFMFOLDTRANSPOSESINTOPRODUCTS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace tfm
} // namespace mlir

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The map that reads `transpose`'s input where `map` read its result:
/// result dimension d of the transpose is input dimension perm[d].
AffineMap readThroughTranspose(AffineMap map, ArrayRef<int64_t> perm) {
  SmallVector<AffineExpr> results(perm.size());
  for (auto [d, source] : llvm::enumerate(perm))
    results[source] = map.getResult(d);
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// Whether the named product `op` keeps its meaning with an operand map
/// permuted by `perm`: its verifier accepts a transposed operand (the last
/// two dimensions swapped), not a batch dimension moved.
bool isNamedProductTranspose(linalg::LinalgOp op, ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  if (rank < 2)
    return false;
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return false;
  return perm[rank - 2] == rank - 1 && perm[rank - 1] == rank - 2 &&
         (isa<linalg::MatmulOp>(op) ? rank == 2
                                    : isa<linalg::BatchMatmulOp>(op) &&
                                          rank == 3);
}

/// The product (a contraction) that `use` is an input of, if any.
linalg::LinalgOp getProductReading(OpOperand &use) {
  auto product = dyn_cast<linalg::LinalgOp>(use.getOwner());
  if (!product || !product.isDpsInput(&use) ||
      !linalg::isaContractionOpInterface(product))
    return {};
  return product;
}

struct FoldTransposeIntoProduct : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    if (!transpose.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(transpose, "not on tensors");
    ArrayRef<int64_t> perm = transpose.getPermutation();
    bool folded = false;
    for (OpOperand &use :
         llvm::make_early_inc_range(transpose->getResult(0).getUses())) {
      linalg::LinalgOp product = getProductReading(use);
      if (!product)
        continue;
      bool generic = isa<linalg::GenericOp>(product);
      if (!generic && !isNamedProductTranspose(product, perm))
        continue;
      SmallVector<AffineMap> maps = product.getIndexingMapsArray();
      unsigned index = use.getOperandNumber();
      maps[index] = readThroughTranspose(maps[index], perm);
      ArrayAttr mapsAttr = rewriter.getAffineMapArrayAttr(maps);
      rewriter.modifyOpInPlace(product, [&] {
        use.set(transpose.getInput());
        if (auto matmul = dyn_cast<linalg::MatmulOp>(*product))
          matmul.setIndexingMapsAttr(mapsAttr);
        else if (auto batch = dyn_cast<linalg::BatchMatmulOp>(*product))
          batch.setIndexingMapsAttr(mapsAttr);
        else
          cast<linalg::GenericOp>(*product).setIndexingMapsAttr(mapsAttr);
      });
      folded = true;
    }
    if (!folded)
      return rewriter.notifyMatchFailure(transpose, "no product reads it");
    if (transpose->use_empty())
      rewriter.eraseOp(transpose);
    return success();
  }
};

/// Whether every user of `slice` is a slice again or a product that reads
/// it: a transpose moved below it then ends in a product's indexing map.
bool leadsToProducts(tensor::ExtractSliceOp slice) {
  return llvm::all_of(slice->getUses(), [](OpOperand &use) {
    if (auto next = dyn_cast<tensor::ExtractSliceOp>(use.getOwner()))
      return leadsToProducts(next);
    return static_cast<bool>(getProductReading(use));
  });
}

/// A slice of a transpose is the transpose of a slice of its input: the
/// tile loops of a product (flash attention's keys, transposed once for
/// the whole tensor and sliced per block) then read the input's block and
/// transpose only that, which FoldTransposeIntoProduct moves into the
/// product. A rank-reducing slice drops the same unit dimensions of the
/// input.
struct SliceBeforeTranspose : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto transpose = slice.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !transpose.hasPureTensorSemantics() ||
        !leadsToProducts(slice))
      return rewriter.notifyMatchFailure(slice, "no transpose to a product");
    TransposedSlice transposed = getTransposedSlice(slice, transpose);
    rewriter.replaceOp(
        slice, createTransposedSlice(rewriter, slice, transpose, transposed)
                   ->getResult(0));
    return success();
  }
};

struct TfmFoldTransposesIntoProductsPass
    : tfm::impl::TfmFoldTransposesIntoProductsBase<
          TfmFoldTransposesIntoProductsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldTransposeIntoProduct, SliceBeforeTranspose>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
