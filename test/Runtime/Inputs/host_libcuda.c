// A stand-in for libcuda.so.1 that keeps "device" memory on the host and
// runs no kernel, for testing what the GPU runtime does with memory on a
// machine without a GPU: allocations come from malloc, copies are memcpy,
// launches are counted and do nothing (the outputs mean nothing). At exit
// it prints one line to stderr:
//
//   host driver: A allocations, F frees, H bytes to the device, D bytes from the device, L launches
//
// where a copy goes to the device when its destination lies in an
// allocation of this driver and its source does not.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t CUdeviceptr;

static struct {
  uintptr_t start, end;
} blocks[4096];
static int blockCount;
static long allocations, frees, launches;
static unsigned long long toDevice, fromDevice;

static int onDevice(CUdeviceptr ptr) {
  for (int i = 0; i < blockCount; ++i)
    if (ptr >= blocks[i].start && ptr < blocks[i].end)
      return 1;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  fprintf(stderr,
          "host driver: %ld allocations, %ld frees, %llu bytes to the "
          "device, %llu bytes from the device, %ld launches\n",
          allocations, frees, toDevice, fromDevice, launches);
}

int cuInit(unsigned flags) { return 0; }
int cuGetErrorString(int error, const char **message) {
  *message = "host driver error";
  return 0;
}
int cuDeviceGetCount(int *count) {
  *count = 1;
  return 0;
}
int cuDeviceGet(int *device, int ordinal) {
  *device = 0;
  return 0;
}
int cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = (void *)1;
  return 0;
}
int cuCtxSetCurrent(void *context) { return 0; }
int cuModuleLoadData(void **module, const void *image) {
  *module = (void *)1;
  return 0;
}
int cuModuleUnload(void *module) { return 0; }
int cuModuleGetFunction(void **function, void *module, const char *name) {
  *function = (void *)1;
  return 0;
}
int cuFuncSetAttribute(void *function, int attribute, int value) { return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                   unsigned by, unsigned bz, unsigned shared, void *stream,
                   void **params, void **extra) {
  ++launches;
  return 0;
}
int cuStreamCreate(void **stream, unsigned flags) {
  *stream = (void *)1;
  return 0;
}
int cuStreamDestroy_v2(void *stream) { return 0; }
int cuStreamSynchronize(void *stream) { return 0; }
int cuStreamWaitEvent(void *stream, void *event, unsigned flags) { return 0; }
int cuEventCreate(void **event, unsigned flags) {
  *event = (void *)1;
  return 0;
}
int cuEventDestroy_v2(void *event) { return 0; }
int cuEventSynchronize(void *event) { return 0; }
int cuEventRecord(void *event, void *stream) { return 0; }
int cuEventElapsedTime(float *milliseconds, void *start, void *stop) {
  *milliseconds = 0;
  return 0;
}
int cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  void *block = calloc(1, bytes);
  if (!block || blockCount == 4096)
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  blocks[blockCount].start = (uintptr_t)block;
  blocks[blockCount].end = (uintptr_t)block + bytes;
  ++blockCount;
  ++allocations;
  *ptr = (CUdeviceptr)block;
  return 0;
}
int cuMemAllocManaged(CUdeviceptr *ptr, size_t bytes, unsigned flags) {
  return cuMemAlloc_v2(ptr, bytes);
}
int cuMemFree_v2(CUdeviceptr ptr) {
  for (int i = 0; i < blockCount; ++i)
    if (blocks[i].start == ptr) {
      blocks[i] = blocks[--blockCount];
      free((void *)ptr);
      ++frees;
      return 0;
    }
  return 1; // CUDA_ERROR_INVALID_VALUE
}
int cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                  void *stream) {
  int dstOnDevice = onDevice(dst), srcOnDevice = onDevice(src);
  if (dstOnDevice && !srcOnDevice)
    toDevice += bytes;
  if (srcOnDevice && !dstOnDevice)
    fromDevice += bytes;
  memmove((void *)dst, (const void *)src, bytes);
  return 0;
}
int cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t count,
                     void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((uint32_t *)dst)[i] = value;
  return 0;
}
int cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t count,
                     void *stream) {
  for (size_t i = 0; i < count; ++i)
    ((uint16_t *)dst)[i] = value;
  return 0;
}
