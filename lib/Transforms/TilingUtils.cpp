//===- TilingUtils.cpp - Tiling linalg ops in place -----------------------===//

#include "TilingUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/TilingInterface.h"

using namespace mlir;

FailureOr<scf::SCFTilingResult>
tfm::tileInPlace(RewriterBase &rewriter, linalg::LinalgOp op,
                 ArrayRef<int64_t> sizes,
                 scf::SCFTilingOptions::LoopType loopType,
                 ArrayRef<int64_t> interchange) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(loopType);
  if (!interchange.empty())
    options.setInterchange(interchange);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (succeeded(tiled))
    rewriter.replaceOp(op, tiled->replacements);
  return tiled;
}
