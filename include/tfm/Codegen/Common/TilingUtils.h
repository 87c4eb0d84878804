//===- TilingUtils.h - Tiling ops in place ----------------------*- C++ -*-===//
//
// The tiling steps the CPU and GPU code generators share.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_TILINGUTILS_H
#define TFM_CODEGEN_COMMON_TILINGUTILS_H

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Interfaces/TilingInterface.h"

namespace mlir {
namespace tfm {

/// Tiles `op` by `sizes` (0: that loop is not tiled) with loops of
/// `loopType`, in the order `interchange` when it is given, and replaces
/// `op` by the tiled loops. On failure `op` is left as it was.
FailureOr<scf::SCFTilingResult>
tileInPlace(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
            scf::SCFTilingOptions::LoopType loopType =
                scf::SCFTilingOptions::LoopType::ForOp,
            ArrayRef<int64_t> interchange = {});

/// The same for a linalg op.
FailureOr<scf::SCFTilingResult>
tileInPlace(RewriterBase &rewriter, linalg::LinalgOp op,
            ArrayRef<int64_t> sizes,
            scf::SCFTilingOptions::LoopType loopType =
                scf::SCFTilingOptions::LoopType::ForOp,
            ArrayRef<int64_t> interchange = {});

/// Tiles `op` as `config` says, level by level (level 0 with an
/// scf.forall, the others with scf.for), splitting off or peeling the
/// remainder of every loop that a tile size does not divide so that all
/// tiles have static shapes (see tfm-tile-by-config), and replaces `op` by
/// the loops.
LogicalResult tileByConfig(RewriterBase &rewriter, TilingInterface op,
                           LoweringConfigAttr config);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_TILINGUTILS_H
