//===- GpuRuntime.cpp - The GPU runtime of tfm's NVPTX binaries ----------===//
//
// Implements the functions that MLIR's gpu-to-llvm lowering calls (module
// load, kernel launch, streams, events, allocation, copies) on the CUDA
// driver API, which it loads at run time with dlopen. Binaries therefore
// link and start on machines without CUDA; there, the executable's main()
// asks tfmGpuUnavailable() and reports "no CUDA driver" or "no CUDA device"
// before running anything.
//
// Kernel modules are loaded by global constructors, before main(). A failure
// there is recorded rather than reported, so that main() can say what is
// missing; any later CUDA failure is fatal, with the call and CUDA's message.
//
// Device memory outlives the calls that use it: a model's constants (its
// weights) are copied to the device by the first call that reads them and
// kept (tfmGpuConstant_*, which tfm-gpu-place-buffers calls), and the
// buffers a call frees are kept for the next call's allocations of the
// same sizes (DevicePool). Both last as long as the process.
//
// TFM_LIBCUDA names the driver library to load instead of libcuda.so.1 (the
// tests point it at a stub to exercise the error paths). With
// TFM_GPU_PROFILE=1, every kernel launch is timed with CUDA events and the
// process prints the launches' count and total time when it exits (what
// bench/gpu/run.py reads to separate kernel time from copies).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {

// The few CUDA driver types and constants used here, declared so that the
// runtime builds without CUDA's headers.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = std::uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;
constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr unsigned kMemAttachGlobal = 1;
constexpr unsigned kStreamNonBlocking = 1;
constexpr unsigned kEventDisableTiming = 2;
constexpr int kFuncAttributeMaxDynamicSharedSizeBytes = 8;
constexpr int kDefaultMaxDynamicSharedBytes = 48 * 1024;

template <typename F> using FunctionPtr = F *;

/// The driver entry points, resolved from the library.
struct Driver {
#define TFM_CUDA_FUNCTIONS(X)                                                  \
  X(cuInit, CUresult(unsigned))                                            \
  X(cuGetErrorString, CUresult(CUresult, const char **))                   \
  X(cuDeviceGetCount, CUresult(int *))                                     \
  X(cuDeviceGet, CUresult(CUdevice *, int))                                \
  X(cuDevicePrimaryCtxRetain, CUresult(CUcontext *, CUdevice))            \
  X(cuCtxSetCurrent, CUresult(CUcontext))                                  \
  X(cuModuleLoadData, CUresult(CUmodule *, const void *))                  \
  X(cuModuleUnload, CUresult(CUmodule))                                    \
  X(cuModuleGetFunction, CUresult(CUfunction *, CUmodule, const char *))     \
  X(cuFuncSetAttribute, CUresult(CUfunction, int, int))   \
  X(cuLaunchKernel,                                                            \
    CUresult(CUfunction, unsigned, unsigned, unsigned, unsigned,           \
                 unsigned, unsigned, unsigned, CUstream, void **, void **))    \
  X(cuStreamCreate, CUresult(CUstream *, unsigned))                        \
  X(cuStreamDestroy_v2, CUresult(CUstream))                                \
  X(cuStreamSynchronize, CUresult(CUstream))                               \
  X(cuStreamWaitEvent, CUresult(CUstream, CUevent, unsigned))              \
  X(cuEventCreate, CUresult(CUevent *, unsigned))                          \
  X(cuEventDestroy_v2, CUresult(CUevent))                                  \
  X(cuEventSynchronize, CUresult(CUevent))                                 \
  X(cuEventRecord, CUresult(CUevent, CUstream))                            \
  X(cuEventElapsedTime, CUresult(float *, CUevent, CUevent))               \
  X(cuMemAlloc_v2, CUresult(CUdeviceptr *, std::size_t))                   \
  X(cuMemAllocManaged, CUresult(CUdeviceptr *, std::size_t, unsigned))     \
  X(cuMemFree_v2, CUresult(CUdeviceptr))                                   \
  X(cuMemcpyAsync,                                                             \
    CUresult(CUdeviceptr, CUdeviceptr, std::size_t, CUstream))             \
  X(cuMemsetD32Async,                                                          \
    CUresult(CUdeviceptr, unsigned, std::size_t, CUstream))                \
  X(cuMemsetD16Async,                                                          \
    CUresult(CUdeviceptr, unsigned short, std::size_t, CUstream))
#define TFM_DECLARE(name, ...) FunctionPtr<__VA_ARGS__> name = nullptr;
  TFM_CUDA_FUNCTIONS(TFM_DECLARE)
#undef TFM_DECLARE

  CUcontext context = nullptr;
  /// Why the GPU cannot be used; empty when it can.
  std::string unavailable;
};

Driver &driver() {
  static Driver instance;
  static std::once_flag once;
  std::call_once(once, [] {
    Driver &d = instance;
    const char *library = std::getenv("TFM_LIBCUDA");
    if (!library || !*library)
      library = "libcuda.so.1";
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      d.unavailable = std::string("no CUDA driver: cannot load ") + library +
                      " (" + dlerror() + ")";
      return;
    }
#define TFM_RESOLVE(name, ...)                                                 \
  d.name = reinterpret_cast<FunctionPtr<__VA_ARGS__>>(dlsym(handle, #name));             \
  if (!d.name) {                                                               \
    d.unavailable = std::string("no CUDA driver: ") + library +                \
                    " has no " #name;                                          \
    return;                                                                    \
  }
    TFM_CUDA_FUNCTIONS(TFM_RESOLVE)
#undef TFM_RESOLVE

    CUresult status = d.cuInit(0);
    int count = 0;
    if (status == kCudaSuccess)
      status = d.cuDeviceGetCount(&count);
    if (status == kCudaErrorNoDevice || (status == kCudaSuccess && !count)) {
      d.unavailable = "no CUDA device: the CUDA driver found no GPU";
      return;
    }
    CUdevice device = 0;
    if (status == kCudaSuccess)
      status = d.cuDeviceGet(&device, 0);
    if (status == kCudaSuccess)
      status = d.cuDevicePrimaryCtxRetain(&d.context, device);
    if (status != kCudaSuccess) {
      const char *message = nullptr;
      d.cuGetErrorString(status, &message);
      d.unavailable = std::string("cannot initialize CUDA: ") +
                      (message ? message : "unknown error");
    }
  });
  return instance;
}

[[noreturn]] void fatal(const std::string &message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::exit(1);
}

/// The driver, with the context current on this thread; fatal if the GPU
/// cannot be used.
Driver &ready() {
  Driver &d = driver();
  if (!d.unavailable.empty())
    fatal(d.unavailable);
  d.cuCtxSetCurrent(d.context);
  return d;
}

void check(CUresult status, const char *call) {
  if (status == kCudaSuccess)
    return;
  const char *message = nullptr;
  driver().cuGetErrorString(status, &message);
  fatal(std::string(call) + " failed: " + (message ? message : "unknown"));
}

CUdeviceptr devicePtr(void *ptr) { return reinterpret_cast<CUdeviceptr>(ptr); }

/// Kernel times under TFM_GPU_PROFILE.
struct Profile {
  bool enabled = false;
  long launches = 0;
  double milliseconds = 0;
  CUevent start = nullptr, stop = nullptr;
};

Profile &profile() {
  static Profile instance = [] {
    Profile p;
    const char *value = std::getenv("TFM_GPU_PROFILE");
    p.enabled = value && *value && std::string(value) != "0";
    if (p.enabled)
      std::atexit([] {
        std::fprintf(stderr, "gpu kernels: %ld launches, %.4f ms\n",
                     profile().launches, profile().milliseconds);
      });
    return p;
  }();
  return instance;
}

//===----------------------------------------------------------------------===//
// Device memory kept across calls
//===----------------------------------------------------------------------===//

constexpr CUresult kCudaErrorOutOfMemory = 2;

/// The device buffers that calls free, kept for the next calls: a model's
/// call allocates the same sizes every time, and cuMemAlloc/cuMemFree cost
/// more than some of its kernels (cuMemFree waits for the device). A
/// buffer freed by one call is reused by a later allocation of the same
/// size; when the device runs out of memory, the kept buffers are given
/// back and the allocation tried again.
class DevicePool {
public:
  CUdeviceptr allocate(Driver &d, std::uint64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    auto kept = free.find(bytes);
    if (kept != free.end()) {
      CUdeviceptr ptr = kept->second;
      free.erase(kept);
      return ptr;
    }
    CUdeviceptr ptr = 0;
    CUresult status = d.cuMemAlloc_v2(&ptr, bytes);
    if (status == kCudaErrorOutOfMemory && !free.empty()) {
      releaseKept(d);
      status = d.cuMemAlloc_v2(&ptr, bytes);
    }
    check(status, "cuMemAlloc");
    sizes[ptr] = bytes;
    return ptr;
  }

  /// Keeps `ptr` for a later allocation once `stream`'s work on it is
  /// done; false if this pool did not allocate it.
  bool release(Driver &d, CUdeviceptr ptr, CUstream stream) {
    // The next user may run on another stream (another thread's call);
    // cuMemFree would wait for the device too.
    if (stream)
      check(d.cuStreamSynchronize(stream), "cuStreamSynchronize");
    std::lock_guard<std::mutex> lock(mutex);
    auto size = sizes.find(ptr);
    if (size == sizes.end())
      return false;
    free.emplace(size->second, ptr);
    return true;
  }

private:
  void releaseKept(Driver &d) {
    for (auto [bytes, ptr] : free) {
      check(d.cuMemFree_v2(ptr), "cuMemFree");
      sizes.erase(ptr);
    }
    free.clear();
  }

  std::mutex mutex;
  /// The size of every buffer allocated here and not given back.
  std::unordered_map<CUdeviceptr, std::uint64_t> sizes;
  /// The buffers freed by calls, by size.
  std::unordered_multimap<std::uint64_t, CUdeviceptr> free;
};

DevicePool &pool() {
  // Never destroyed: at exit the driver may be gone before static
  // destructors run, and the process's device memory goes with it.
  static DevicePool *instance = new DevicePool;
  return *instance;
}

/// A one-dimensional memref's descriptor, as MLIR's C interface passes it.
struct Buffer1D {
  void *allocated;
  void *aligned;
  std::int64_t offset;
  std::int64_t size;
  std::int64_t stride;
};

/// Sets `device` to the device copy of the constant `host` (contiguous
/// elements of `elementBytes` bytes), copying it the first time.
void deviceConstant(Buffer1D *device, const Buffer1D *host,
                    std::size_t elementBytes) {
  static std::mutex mutex;
  // Never destroyed, as the pool.
  static auto *copies =
      new std::map<std::pair<const char *, std::size_t>, CUdeviceptr>;
  const char *data =
      static_cast<const char *>(host->aligned) + host->offset * elementBytes;
  std::size_t bytes = std::size_t(host->size) * elementBytes;
  CUdeviceptr copy = 0;
  if (bytes) {
    std::lock_guard<std::mutex> lock(mutex);
    CUdeviceptr &known = (*copies)[{data, bytes}];
    if (!known) {
      Driver &d = ready();
      check(d.cuMemAlloc_v2(&known, bytes), "cuMemAlloc");
      // On the legacy stream, waited for: the calls' streams do not
      // synchronize with it.
      check(d.cuMemcpyAsync(known, devicePtr(const_cast<char *>(data)), bytes,
                            nullptr),
            "cuMemcpyAsync");
      check(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
    }
    copy = known;
  }
  *device = {reinterpret_cast<void *>(copy), reinterpret_cast<void *>(copy), 0,
             host->size, 1};
}

} // namespace

extern "C" {

/// Why this process cannot run GPU code, or null when it can.
const char *tfmGpuUnavailable() {
  const std::string &why = driver().unavailable;
  return why.empty() ? nullptr : why.c_str();
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

void *mgpuModuleLoad(void *data, std::int64_t /*size*/) {
  // Called from global constructors: a missing driver or device is left for
  // main() to report.
  Driver &d = driver();
  if (!d.unavailable.empty())
    return nullptr;
  d.cuCtxSetCurrent(d.context);
  CUmodule module = nullptr;
  check(d.cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  // PTX, null-terminated: the driver compiles it for the device.
  return mgpuModuleLoad(data, 0);
}

void mgpuModuleUnload(void *module) {
  Driver &d = driver();
  if (module && d.unavailable.empty())
    d.cuModuleUnload(static_cast<CUmodule>(module));
}

void *mgpuModuleGetFunction(void *module, const char *name) {
  Driver &d = ready();
  CUfunction function = nullptr;
  check(d.cuModuleGetFunction(&function, static_cast<CUmodule>(module), name),
        "cuModuleGetFunction");
  return function;
}

void mgpuLaunchKernel(void *function, std::intptr_t gridX, std::intptr_t gridY,
                      std::intptr_t gridZ, std::intptr_t blockX,
                      std::intptr_t blockY, std::intptr_t blockZ,
                      std::int32_t sharedMemoryBytes, void *stream,
                      void **params, void **extra, std::size_t /*count*/) {
  Driver &d = ready();
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0)
    return; // An empty grid: nothing to compute.
  // Kernels that use more than the default 48 KiB of dynamic shared memory
  // must opt in (up to 227 KiB on Hopper).
  if (sharedMemoryBytes > kDefaultMaxDynamicSharedBytes)
    check(d.cuFuncSetAttribute(static_cast<CUfunction>(function),
                               kFuncAttributeMaxDynamicSharedSizeBytes,
                               sharedMemoryBytes),
          "cuFuncSetAttribute");
  Profile &p = profile();
  if (p.enabled) {
    if (!p.start) {
      check(d.cuEventCreate(&p.start, 0), "cuEventCreate");
      check(d.cuEventCreate(&p.stop, 0), "cuEventCreate");
    }
    check(d.cuEventRecord(p.start, static_cast<CUstream>(stream)),
          "cuEventRecord");
  }
  check(d.cuLaunchKernel(static_cast<CUfunction>(function), gridX, gridY,
                         gridZ, blockX, blockY, blockZ, sharedMemoryBytes,
                         static_cast<CUstream>(stream), params, extra),
        "cuLaunchKernel");
  if (p.enabled) {
    check(d.cuEventRecord(p.stop, static_cast<CUstream>(stream)),
          "cuEventRecord");
    check(d.cuEventSynchronize(p.stop), "cuEventSynchronize");
    float milliseconds = 0;
    check(d.cuEventElapsedTime(&milliseconds, p.start, p.stop),
          "cuEventElapsedTime");
    p.launches += 1;
    p.milliseconds += milliseconds;
  }
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

void *mgpuStreamCreate() {
  Driver &d = ready();
  CUstream stream = nullptr;
  check(d.cuStreamCreate(&stream, kStreamNonBlocking), "cuStreamCreate");
  return stream;
}

void mgpuStreamDestroy(void *stream) {
  check(ready().cuStreamDestroy_v2(static_cast<CUstream>(stream)),
        "cuStreamDestroy");
}

void mgpuStreamSynchronize(void *stream) {
  check(ready().cuStreamSynchronize(static_cast<CUstream>(stream)),
        "cuStreamSynchronize");
}

void mgpuStreamWaitEvent(void *stream, void *event) {
  check(ready().cuStreamWaitEvent(static_cast<CUstream>(stream),
                                  static_cast<CUevent>(event), 0),
        "cuStreamWaitEvent");
}

void *mgpuEventCreate() {
  Driver &d = ready();
  CUevent event = nullptr;
  check(d.cuEventCreate(&event, kEventDisableTiming), "cuEventCreate");
  return event;
}

void mgpuEventDestroy(void *event) {
  check(ready().cuEventDestroy_v2(static_cast<CUevent>(event)),
        "cuEventDestroy");
}

void mgpuEventSynchronize(void *event) {
  check(ready().cuEventSynchronize(static_cast<CUevent>(event)),
        "cuEventSynchronize");
}

void mgpuEventRecord(void *event, void *stream) {
  check(ready().cuEventRecord(static_cast<CUevent>(event),
                              static_cast<CUstream>(stream)),
        "cuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

void *mgpuMemAlloc(std::uint64_t bytes, void * /*stream*/, bool hostShared) {
  Driver &d = ready();
  CUdeviceptr ptr = 0;
  if (bytes == 0)
    return nullptr;
  if (hostShared) {
    check(d.cuMemAllocManaged(&ptr, bytes, kMemAttachGlobal),
          "cuMemAllocManaged");
    return reinterpret_cast<void *>(ptr);
  }
  return reinterpret_cast<void *>(pool().allocate(d, bytes));
}

void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  Driver &d = ready();
  if (!pool().release(d, devicePtr(ptr), static_cast<CUstream>(stream)))
    check(d.cuMemFree_v2(devicePtr(ptr)), "cuMemFree");
}

void mgpuMemcpy(void *dst, void *src, std::size_t bytes, void *stream) {
  if (bytes == 0)
    return;
  check(ready().cuMemcpyAsync(devicePtr(dst), devicePtr(src), bytes,
                              static_cast<CUstream>(stream)),
        "cuMemcpyAsync");
}

void mgpuMemset32(void *dst, unsigned value, std::size_t count,
                  void *stream) {
  check(ready().cuMemsetD32Async(devicePtr(dst), value, count,
                                 static_cast<CUstream>(stream)),
        "cuMemsetD32Async");
}

void mgpuMemset16(void *dst, unsigned short value, std::size_t count,
                  void *stream) {
  check(ready().cuMemsetD16Async(devicePtr(dst), value, count,
                                 static_cast<CUstream>(stream)),
        "cuMemsetD16Async");
}

void mgpuSetDefaultDevice(std::int32_t /*device*/) {}

//===----------------------------------------------------------------------===//
// Constants kept on the device
//===----------------------------------------------------------------------===//

// tfm-gpu-place-buffers reads each constant of a model through one of
// these (lib/Codegen/GPU/DeviceConstants.h): the host copy in, the device
// copy out, made by the first call that asks for it.
#define TFM_DEVICE_CONSTANT(suffix, bytes)                                     \
  void _mlir_ciface_tfmGpuConstant_##suffix(Buffer1D *device,                  \
                                            const Buffer1D *host) {            \
    deviceConstant(device, host, bytes);                                       \
  }
TFM_DEVICE_CONSTANT(f16, 2)
TFM_DEVICE_CONSTANT(bf16, 2)
TFM_DEVICE_CONSTANT(f32, 4)
TFM_DEVICE_CONSTANT(f64, 8)
TFM_DEVICE_CONSTANT(i1, 1)
TFM_DEVICE_CONSTANT(i8, 1)
TFM_DEVICE_CONSTANT(i16, 2)
TFM_DEVICE_CONSTANT(i32, 4)
TFM_DEVICE_CONSTANT(i64, 8)
#undef TFM_DEVICE_CONSTANT

} // extern "C"
