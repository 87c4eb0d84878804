//===- RowReduction.h - Row reductions over a warp's lanes ------*- C++ -*-===//
//
// A row reduction (a row's maximum or sum: flash attention's running
// maxima and sums at every key block, a LayerNorm's moments, a softmax's)
// lowers to a parallel loop over the rows around a sequential loop over
// the row's elements. One GPU thread per row reads a row sequentially:
// few threads work (a 64-row tile in a block of 128), and the threads of a
// warp read 32 rows at once, in global memory 32 transactions, in shared
// memory 32 accesses to one bank when rows are a multiple of 128 bytes.
// Here the elements of a row are split over up to 32 lanes of a warp
// instead, lane l taking elements l, l + L, l + 2L, ..., and the lanes'
// partial results are combined by a butterfly of `gpu.shuffle xor`
// (log2 L steps), as CUB's and FlashAttention's warp reductions do. The
// CPU emulation of the GPU mapping runs the same lanes' loops one after
// another and combines their partials by the butterfly's definition.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_ROWREDUCTION_H
#define TFM_LIB_CODEGEN_GPU_ROWREDUCTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace mlir {
namespace tfm {

/// The mark tfm-map-to-gpu puts on the parallel loop a row reduction
/// lowers to, for the mapping of loops to threads.
inline constexpr llvm::StringLiteral kRowReductionAttrName =
    "tfm.row_reduction";

/// Whether `op` reduces rows: one reduction dimension and parallel ones,
/// every input reading every parallel dimension (so no operand is shared
/// between rows, as a contraction's are: a matmul is left to one thread
/// per output element, which reads a shared operand's row once per warp),
/// and the reduction dimension, where an input reads it, that input's last
/// (so that a row's elements are contiguous).
bool isRowReduction(linalg::LinalgOp op);

/// A parallel loop (over rows) whose body reduces its row in one
/// sequential loop that carries each result in an iteration argument,
/// combined by an associative and commutative op with a neutral element
/// (arith's add, mul, max or min) with the element of the step.
struct RowReductionLoop {
  scf::ParallelOp loop;
  /// The loop over the row's elements.
  scf::ForOp reduction;
  /// For each of its iteration arguments, the op that combines it with the
  /// step's value, and which of the op's operands the argument is.
  SmallVector<Operation *> combiners;
  SmallVector<unsigned> accumulatorOperands;
  /// The lanes a row is split over: a power of two from 2 to 32.
  int64_t lanes = 1;
};

/// `loop` as a row reduction to split over lanes, or nullopt (nothing to
/// split: the body does more than one reduction, writes memory before it,
/// or combines in a way the butterfly cannot, or the row is too short).
std::optional<RowReductionLoop> matchRowReductionLoop(scf::ParallelOp loop);

/// Emits at `b` lane `lane` of the row at induction variables `ivs`: the
/// body before the reduction, the lane's share of the reduction, the
/// butterfly of shuffles (every lane of each group of `lanes` must run
/// it), then the body after the reduction (its stores) where `store`.
void emitRowReductionLane(OpBuilder &b, const RowReductionLoop &reduction,
                          ValueRange ivs, Value lane, Value store);

/// The same for the CPU emulation (one thread): all lanes of the row at
/// `ivs` one after another, each partial kept in a buffer, the butterfly
/// computed on the buffer from its definition (after the step of offset
/// o, lanes l and l xor o hold the combination of what both held).
void emitEmulatedRowReduction(OpBuilder &b, const RowReductionLoop &reduction,
                              ValueRange ivs);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_ROWREDUCTION_H
