//===- TilingUtils.cpp - Tiling ops in place ------------------------------===//

#include "tfm/Codegen/Common/TilingUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

FailureOr<scf::SCFTilingResult> tfm::tileInPlace(
    RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
    scf::SCFTilingOptions::LoopType loopType, ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(loopType);
  if (!interchange.empty())
    options.setInterchange(interchange);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, op, options);
  if (succeeded(tiled))
    rewriter.replaceOp(op, tiled->replacements);
  return tiled;
}

FailureOr<scf::SCFTilingResult> tfm::tileInPlace(
    RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes,
    scf::SCFTilingOptions::LoopType loopType, ArrayRef<int64_t> interchange) {
  return tileInPlace(rewriter, cast<TilingInterface>(op.getOperation()), sizes,
                     loopType, interchange);
}
