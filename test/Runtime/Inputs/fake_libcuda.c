// A stand-in for libcuda.so.1 that fails the way machines without a usable
// GPU do, for testing the GPU runtime's error paths:
//   -DINIT_RESULT=100   cuInit says CUDA_ERROR_NO_DEVICE
//   -DDEVICE_COUNT=0    cuInit succeeds and there are no devices
//   -DINIT_RESULT=999   cuInit fails with another error
//   -DOMIT_LAUNCH       the library lacks cuLaunchKernel
#ifndef INIT_RESULT
#define INIT_RESULT 0
#endif
#ifndef DEVICE_COUNT
#define DEVICE_COUNT 1
#endif

int cuInit(unsigned flags) { return INIT_RESULT; }
int cuGetErrorString(int error, const char **message) {
  *message = "fake driver error";
  return 0;
}
int cuDeviceGetCount(int *count) {
  *count = DEVICE_COUNT;
  return 0;
}

// Everything else fails: the tests never get that far.
#define FAIL(name) int name(void) { return 999; }
FAIL(cuDeviceGet)
FAIL(cuDevicePrimaryCtxRetain)
FAIL(cuCtxSetCurrent)
FAIL(cuModuleLoadData)
FAIL(cuModuleUnload)
FAIL(cuModuleGetFunction)
FAIL(cuFuncSetAttribute)
#ifndef OMIT_LAUNCH
FAIL(cuLaunchKernel)
#endif
FAIL(cuStreamCreate)
FAIL(cuStreamDestroy_v2)
FAIL(cuStreamSynchronize)
FAIL(cuStreamWaitEvent)
FAIL(cuEventCreate)
FAIL(cuEventDestroy_v2)
FAIL(cuEventSynchronize)
FAIL(cuEventRecord)
FAIL(cuEventElapsedTime)
FAIL(cuMemAlloc_v2)
FAIL(cuMemAllocManaged)
FAIL(cuMemFree_v2)
FAIL(cuMemcpyAsync)
FAIL(cuMemsetD32Async)
FAIL(cuMemsetD16Async)
