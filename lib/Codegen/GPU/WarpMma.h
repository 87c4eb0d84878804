//===- WarpMma.h - A block tile's product on tensor cores -------*- C++ -*-===//
//
// What `tfm-map-to-gpu` emits for a contraction of a block tile that the
// tensor cores can compute: warps step through the tile's warp tiles (up to
// 4 x 8 instruction tiles of 16 x 8), each instruction tile an accumulator
// fragment in registers updated by `nvgpu.mma.sync` (m16n8k16 with float16
// or bfloat16 operands, m16n8k8 with TF32; float32 accumulators) at every
// step of the reduction, the step's A fragment of a row of instruction
// tiles and B fragment of a column shared by the warp tile, operands'
// fragments loaded by `nvgpu.ldmatrix` where they are in shared memory
// (WarpAccumulators: kept across a reduction's chunks); and the same code run
// on the CPU, with the 32 lanes of the one emulated warp looped over and
// the warp's instructions replaced by an independent reading of the PTX
// ISA's fragment layouts (tfm-map-to-gpu{emulate-warps}).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_WARPMMA_H
#define TFM_LIB_CODEGEN_GPU_WARPMMA_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <memory>
#include <optional>

namespace mlir {
namespace tfm {

/// The tensor-core instruction a contraction runs on.
enum class MmaKind {
  /// mma.sync.m16n8k16 with float16 operands.
  F16,
  /// mma.sync.m16n8k16 with bfloat16 operands.
  BF16,
  /// mma.sync.m16n8k8 with TF32 operands: float32 rounded to 10 bits of
  /// mantissa (to nearest, ties away from zero) as they are loaded.
  TF32,
};

/// The instruction's output tile, 16 x 8, and its reduction steps: 16
/// (float16) or 8 (TF32).
constexpr int64_t kMmaRows = 16, kMmaColumns = 8;

/// The attribute (a float) on a tensor-core contraction whose accumulator
/// a fill has just set to that value (tfm-map-to-gpu drops the fill): the
/// warps start their accumulator fragments from it instead of loading them.
constexpr llvm::StringLiteral kAccumulatorInitAttrName = "tfm.accumulator_init";
int64_t getMmaSteps(MmaKind kind);

/// A contraction C[m, n] += A[m, k] * B[k, n] (any batch dimensions of
/// extent 1, operands indexed in any order) that warps of tensor-core
/// instructions compute: float16 (F16) or bfloat16 (BF16) operands, or,
/// when asked for, float32 ones (TF32), a float32 accumulator, static
/// extents (instruction tiles past an extent read zeros and store nothing
/// there). A may be float32 when B is float16 or bfloat16: in tfm's graphs
/// that is flash attention's P · V in such a model, whose probabilities P
/// are rounded to B's type for the second product, as FlashAttention-2
/// does.
struct MmaContraction {
  MmaKind kind;
  unsigned m, n, k;
  int64_t rows, columns, steps;
};

/// The instruction `op`'s operand and accumulator types call for (on
/// tensors or buffers), if any: float16 or bfloat16 operands (a float32 left
/// one too, rounded) into a float32 accumulator; float32 ones only with
/// `tf32`.
std::optional<MmaKind> getMmaKind(linalg::LinalgOp op, bool tf32);

/// `op` as an MmaContraction, if it is one; a float32 product only with
/// `tf32`.
std::optional<MmaContraction> matchMmaContraction(linalg::LinalgOp op,
                                                  bool tf32);

/// Whether `epilogue` can be applied to a tensor-core contraction's
/// accumulator fragments as they are stored, in place of storing them into
/// the contraction's `output`: an op of parallel loops that reads `output`
/// once, through the identity map, writes one other buffer through the
/// identity map (without reading what it writes), reads its other inputs
/// through projected permutations, and whose body is pure arithmetic, its
/// loops' indices included (flash attention's scaling of the scores and
/// its causal mask; a bias, an activation, a cast).
bool canFuseEpilogue(linalg::GenericOp epilogue, Value output);

/// Emits, at `b`'s insertion point inside a block of `blockSize` threads
/// (a multiple of 32) whose id is `thread`, the code with which the
/// block's warps compute `op` on tensor cores; returns its outermost op.
/// `op` is left for the caller to erase. A reduction of at most
/// `unrollSteps` instruction steps is unrolled. With an `epilogue`
/// (canFuseEpilogue), each element of the result is stored through it:
/// the epilogue's value at the element's position of its output, and
/// nothing into `op`'s; the epilogue too is left for the caller to erase.
Operation *emitWarpMma(OpBuilder &b, linalg::LinalgOp op,
                       const MmaContraction &contraction, Value thread,
                       int64_t blockSize, int64_t unrollSteps,
                       linalg::GenericOp epilogue = {});

/// The same computation for a block of one thread on the CPU: one warp,
/// its lanes' fragments held in buffers, each tensor-core instruction
/// emulated from the PTX ISA's description of which lane holds which
/// element. Returns its outermost op.
Operation *emitEmulatedWarpMma(OpBuilder &b, linalg::LinalgOp op,
                               const MmaContraction &contraction,
                               linalg::GenericOp epilogue = {});

/// The accumulator fragments of a block tile's product that the block's
/// warps keep across the contractions that update the same output tile one
/// after the other, instead of loading and storing them around each: a
/// reduction staged in chunks, whose loop carries them (registers on the
/// GPU; the emulated warp's buffers on the CPU). Loaded where they are
/// made, updated by `accumulate`, stored by `store`. Warp w owns warp tiles
/// w, w + warps, ... of every contraction, so each must have as many.
class WarpAccumulators {
public:
  /// Whether a block of `blockSize` threads (1: the emulation's) can keep
  /// `contraction`'s accumulators: every warp owns as many warp tiles.
  static bool canKeep(const MmaContraction &contraction, int64_t blockSize);

  /// Loads, at `b`'s insertion point, the fragments of the output of `op`
  /// (whose output buffer must be defined there) that the warp of `thread`
  /// owns.
  WarpAccumulators(OpBuilder &b, linalg::LinalgOp op,
                   const MmaContraction &contraction, Value thread,
                   int64_t blockSize, bool emulated, int64_t unrollSteps);
  ~WarpAccumulators();

  /// The buffer they accumulate in.
  Value getOutput() const;

  /// The fragments as loaded, for a loop to carry: on the GPU, one value
  /// per instruction tile the warp owns; none in the emulation.
  ArrayRef<Value> getFragments() const { return fragments; }

  /// Emits `op`'s product (a contraction into getOutput() with the same
  /// instruction and output extents) into the fragments `current`; returns
  /// the updated ones (none in the emulation).
  SmallVector<Value> accumulate(OpBuilder &b, linalg::LinalgOp op,
                                const MmaContraction &contraction,
                                ValueRange current) const;

  /// Whether `op` updates the accumulators of `contraction` in `output`
  /// element by element, so that update() can apply it to their fragments:
  /// an op of parallel loops whose one output is `output` (through the
  /// identity map, a float32 accumulator), whose inputs are read through
  /// projected permutations (a flash attention's rescale by each row's
  /// correction), and whose body is pure arithmetic; the contraction's
  /// extents whole instruction tiles.
  static bool canUpdate(linalg::GenericOp op, Value output,
                        const MmaContraction &contraction);

  /// Applies `op` (canUpdate) to the fragments `current`: each lane
  /// computes the op's body on each of its elements, reading the inputs at
  /// the element's position. Returns the updated fragments (none in the
  /// emulation, whose buffers it updates).
  SmallVector<Value> update(OpBuilder &b, linalg::GenericOp op,
                            ValueRange current) const;

  /// Stores `final` (as accumulate returns them) into getOutput(), or,
  /// with an `epilogue` (canFuseEpilogue), through it into its output.
  void store(OpBuilder &b, Location loc, ValueRange final,
             linalg::GenericOp epilogue = {}) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
  SmallVector<Value> fragments;
};

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_WARPMMA_H
