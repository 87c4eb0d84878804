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

/// The bytes of one element of `type` on the GPU (index is 64-bit there).
int64_t getElementBytes(MemRefType type);

/// Whether a block-local buffer of `type` can live in shared memory.
bool fitsSharedMemory(MemRefType type);

/// The buffers a tile loop allocates for the whole block (not inside a
/// parallel loop, where they would be per iteration).
SmallVector<Operation *> getBlockBuffers(scf::ForallOp forall);

/// The buffer `view` is a view of, following view-like ops.
Value getRootBuffer(Value view);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_SHAREDMEMORY_H
