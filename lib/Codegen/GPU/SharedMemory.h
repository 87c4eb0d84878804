//===- SharedMemory.h - What a GPU block keeps in shared memory -*- C++ -*-===//
//
// What `tfm-gpu-promote-operands` (which adds block buffers) and
// `tfm-map-to-gpu` (which lays them out in shared memory) agree on: which
// buffers of a tile loop belong to the block, and what they cost.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_SHAREDMEMORY_H
#define TFM_LIB_CODEGEN_GPU_SHAREDMEMORY_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir {
namespace tfm {

/// The attribute on a copy that tfm-gpu-promote-operands issues for a later
/// step of a loop (a pipelined operand's chunk some steps ahead, or one of
/// the first chunks, before the loop), an integer: the steps ahead of the
/// loop's current (or first) step. tfm-map-to-gpu does not wait for it
/// where it is issued; the product that reads the buffer waits for all but
/// that many newer groups.
constexpr llvm::StringLiteral kPrefetchAttrName = "tfm.prefetch";

/// The bytes of one element of `type` on the GPU (index is 64-bit there).
int64_t getElementBytes(MemRefType type);

/// Whether a block-local buffer of `type` can live in shared memory.
bool fitsSharedMemory(MemRefType type);

/// The buffers a tile loop allocates for the whole block (not inside a
/// parallel loop, where they would be per iteration).
SmallVector<Operation *> getBlockBuffers(scf::ForallOp forall);

/// The buffer `view` is a view of, following view-like ops.
Value getRootBuffer(Value view);

/// The bytes of an element that staging moves with cp.async and pads rows
/// for: 2 or 4 (16- and 32-bit integers and floats); 0 for any other type.
int64_t getStagedElementBytes(Type element);

/// The elements by which tfm-gpu-promote-operands pads each row of a
/// staging buffer of `type` (16 bytes), or 0. Rows whose bytes 64 divides
/// all start in the same bank or two of shared memory's 32 four-byte
/// banks, so the eight rows an `ldmatrix` matrix reads (or a fragment's
/// eight rows of TF32 elements) would conflict; 16 bytes more a row put
/// them in eight different groups of four banks.
int64_t getRowPadding(MemRefType type);

/// The shared-memory buffer (in the workgroup address space, as
/// `ldmatrix` and `cp.async` need it) that `view`, a block buffer as its
/// users see it after tfm-map-to-gpu's layout, addresses with the same
/// indices: the buffer behind its cast to the generic address space, or
/// behind a view of the leading part of a padded one; null for anything
/// else.
Value getSharedBuffer(Value view);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_SHAREDMEMORY_H
