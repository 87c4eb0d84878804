//===- Alloc.cpp - The allocation functions lowered code calls ------------===//
//
// The CPU pipeline lowers memref.alloc and memref.dealloc to calls to
// MLIR's generic allocation functions (finalize-memref-to-llvm's
// use-generic-functions) instead of malloc and free, so that a failed
// allocation is reported here rather than written through a null pointer.
// Compiled code has no way back from a failed allocation: the process ends
// with a message and exit code 1, as for other errors of the binaries.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>

[[noreturn]] static void outOfMemory(size_t bytes) {
  std::fprintf(stderr,
               "error: out of memory: the model cannot allocate a buffer of "
               "%zu bytes\n",
               bytes);
  // From any thread of a parallel loop, without running atexit handlers
  // that could wait for the other threads.
  std::_Exit(1);
}

extern "C" void *_mlir_memref_to_llvm_alloc(size_t size) {
  void *p = std::malloc(size);
  if (!p && size)
    outOfMemory(size);
  return p;
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment,
                                                    size_t size) {
  void *p = nullptr;
  if (alignment < sizeof(void *))
    alignment = sizeof(void *);
  if (posix_memalign(&p, alignment, size) != 0)
    outOfMemory(size);
  return p;
}

extern "C" void _mlir_memref_to_llvm_free(void *p) { std::free(p); }
