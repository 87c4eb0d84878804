//===- TilingUtils.h - Tiling linalg ops in place ---------------*- C++ -*-===//
//
// The tiling step the CPU and GPU code generators share.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_TRANSFORMS_TILINGUTILS_H
#define TFM_LIB_TRANSFORMS_TILINGUTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

namespace mlir {
namespace tfm {

/// Tiles `op` by `sizes` (0: that loop is not tiled) with loops of
/// `loopType`, in the order `interchange` when it is given, and replaces
/// `op` by the tiled loops. On failure `op` is left as it was.
FailureOr<scf::SCFTilingResult>
tileInPlace(RewriterBase &rewriter, linalg::LinalgOp op,
            ArrayRef<int64_t> sizes,
            scf::SCFTilingOptions::LoopType loopType =
                scf::SCFTilingOptions::LoopType::ForOp,
            ArrayRef<int64_t> interchange = {});

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_TRANSFORMS_TILINGUTILS_H
