//===- AsyncCopy.h - Staging a block's operands with cp.async ---*- C++ -*-===//
//
// What `tfm-map-to-gpu{tensor-cores}` emits for a copy into a block buffer
// (an operand that tfm-gpu-promote-operands staged in shared memory): the
// block's threads issue `nvgpu.device_async_copy` (cp.async, sm_80 and up)
// of 4 to 16 bytes each, commit them as a group and wait for it, instead of
// loading and storing element by element. In the CPU emulation the same
// chunks are copied element by element.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_ASYNCCOPY_H
#define TFM_LIB_CODEGEN_GPU_ASYNCCOPY_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir {
namespace tfm {

/// The elements each cp.async of `copy` moves (16, 8 or 4 bytes' worth,
/// the most that the shapes and the source's strides allow), or 0 if
/// `copy` cannot be staged asynchronously: static shapes, a source whose
/// innermost dimension is contiguous, a 16- or 32-bit element type.
int64_t getAsyncCopyElements(linalg::CopyOp copy);

/// Emits, at `b`'s insertion point inside a block of `blockSize` threads
/// whose id is `thread`, the staging of `copy` (whose target is a view of
/// shared memory, cast to the generic address space): each thread's
/// cp.async of `elements` elements, committed as a group, when the
/// source's offset is aligned to `elements`; the element-wise copy
/// otherwise. The caller waits for the groups (emitAsyncWait) once the
/// block's copies are all issued. Without `commit`, the cp.async are left
/// for the caller to commit (emitAsyncCommit: one group for several
/// copies, whichever way each went). With `emulated`, plain loads and
/// stores in place of cp.async (for the CPU emulation). Returns the
/// emitted op; `copy` is left for the caller to erase.
Operation *emitAsyncCopy(OpBuilder &b, linalg::CopyOp copy, int64_t elements,
                         Value thread, int64_t blockSize, bool emulated,
                         bool commit = true);

/// Emits at `b`'s insertion point the commit of each thread's cp.async
/// issued since its last commit as one group (`cp.async.commit_group`; an
/// empty group where it issued none); returns its token.
Value emitAsyncCommit(OpBuilder &b, Location loc);

/// Emits at `b`'s insertion point the wait of each thread for every
/// cp.async group it committed (`cp.async.wait_group 0`); the barrier after
/// it makes the copies visible to the whole block.
void emitAsyncWait(OpBuilder &b, Location loc);

/// Emits at `b`'s insertion point the wait of each thread for all but its
/// `pending` most recent cp.async groups (`cp.async.wait_group pending`),
/// `group` being the token of the last one.
void emitAsyncWaitAllBut(OpBuilder &b, Location loc, Value group,
                         int32_t pending);

} // namespace tfm
} // namespace mlir

#endif // TFM_LIB_CODEGEN_GPU_ASYNCCOPY_H
