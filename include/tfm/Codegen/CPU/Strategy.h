//===- Strategy.h - The CPU's vector shapes ---------------------*- C++ -*-===//
//
// What `tfm-cpu-select-vector-strategy` chooses and `tfm-cpu-vectorize` needs
// again to mask tiles of dynamic shape.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_CPU_STRATEGY_H
#define TFM_CODEGEN_CPU_STRATEGY_H

#include "tfm/Dialect/Tfm/IR/TfmOps.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <optional>

namespace mlir {
namespace tfm {

/// The bytes of a cache line of the x86-64 CPUs tfm compiles for: what one
/// prefetch brings in, the unit of L1's sets.
constexpr int64_t kCacheLineBytes = 64;

/// Iterations below which an op runs on one thread: starting the threads
/// (a few microseconds for an OpenMP fork and join) would cost about what
/// they save. At 2^14, the [2, 10, 4, 8] x 32 head projections of
/// examples/decoder_block.mlir went parallel and the model got 12% slower.
/// `tfm-cpu-select-vector-strategy` applies it to static extents when it
/// chooses the parallel tiles, `tfm-cpu-serialize-small-loops` to dynamic
/// ones when the loop runs.
constexpr int64_t kMinParallelIterations = 1 << 15;

/// The vector shape of an op that is not a micro-kernel contraction: one
/// register's worth of `op`'s widest element type along the innermost loop
/// (fewer if the loop is shorter; all of it if it is a reduction of up to
/// four whole vectors), and as many along the loop that a
/// transpose reads one of its inputs innermost along (a square block),
/// one iteration of every other loop.
SmallVector<int64_t> getCpuVectorShape(linalg::LinalgOp op,
                                       CpuTargetAttr target);

/// The rows of the micro-kernel's register tile (Mr): as many as leave two
/// vector registers for a row of the right operand's panel, one for the
/// broadcast element of the left and one spare, two accumulators a row; at
/// most 12 (12 x 2 of AVX-512's 32 registers, 6 x 2 of AVX2's 16).
int64_t getRegisterTileRows(CpuTargetAttr target);

/// The m, n and k dimensions of `op` if it is a matmul, batched or not, whose
/// right operand is row-major ([..., k, n]), so that a row of it is
/// contiguous: the ops that get the micro-kernel. Several m dimensions are
/// allowed (a matmul on a [B, S, K] input whose leading dimensions were not
/// collapsed): all but the innermost are then iterated like batch
/// dimensions.
std::optional<linalg::ContractionDimensions>
getRowMajorMatmulDims(linalg::LinalgOp op);

/// Whether the micro-kernel's strategy cuts the reduction of `op` (a
/// matmul with `dims`) into cache blocks: a reduction longer than 1.5
/// blocks, or of dynamic length. A register tile's sums are then finished
/// only after the last block, so its epilogue cannot be applied in the tile.
bool hasCacheBlocks(linalg::LinalgOp op,
                    const linalg::ContractionDimensions &dims);

/// Whether `op` runs inside a loop whose iterations the threads share out
/// (an `scf.forall` or an `scf.parallel`: an attention's query tile, a
/// kernel): work in it runs on the thread of its iteration, and parallel
/// loops of its own would only nest OpenMP regions.
bool isInParallelLoop(Operation *op);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_CPU_STRATEGY_H
