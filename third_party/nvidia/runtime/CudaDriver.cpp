//===- CudaDriver.cpp - The CUDA driver API, opened at run time -----------===//

#include "nvidia/runtime/CudaDriver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <vector>

namespace warpforge::cuda {

ResourceError::ResourceError(std::string kernel, std::string resource,
                             long long required, long long limit,
                             std::string hint)
    : std::runtime_error("kernel '" + kernel + "' needs " +
                         std::to_string(required) + " " + resource +
                         ", but the limit is " + std::to_string(limit) +
                         (hint.empty() ? "" : "; " + hint)),
      kernel(std::move(kernel)), resource(std::move(resource)),
      required(required), limit(limit), hint(std::move(hint)) {}

//===----------------------------------------------------------------------===//
// Opening the library.
//===----------------------------------------------------------------------===//

namespace {
std::mutex loadMutex;
// Set once the library is open and every entry point resolved; never reset
// (the library stays open for the life of the process).
const Api *loadedApi = nullptr;

template <typename Fn>
void resolve(void *library, const char *symbol, Fn &fn, std::string &missing) {
  fn = reinterpret_cast<Fn>(dlsym(library, symbol));
  if (!fn)
    missing += std::string(missing.empty() ? "" : ", ") + symbol;
}

/// Opens the library and resolves every entry point. A failure is not
/// remembered: the next call tries again (WARPFORGE_LIBCUDA may have changed).
const Api &openLibrary() {
  std::lock_guard<std::mutex> lock(loadMutex);
  if (loadedApi)
    return *loadedApi;
  std::string path = libraryPath();
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char *why = dlerror();
    throw DriverUnavailable(
        "cannot open the CUDA driver library '" + path +
        "': " + (why ? why : "unknown error") +
        ". Launching kernels needs an NVIDIA GPU and its driver (set "
        "WARPFORGE_LIBCUDA to the library's path if it is elsewhere); "
        "compiling does not, and WARPFORGE_INTERPRET=1 runs kernels on the "
        "CPU");
  }
  static Api api;
  std::string missing;
  resolve(library, "cuInit", api.cuInit, missing);
  resolve(library, "cuDriverGetVersion", api.cuDriverGetVersion, missing);
  resolve(library, "cuDeviceGetCount", api.cuDeviceGetCount, missing);
  resolve(library, "cuDeviceGet", api.cuDeviceGet, missing);
  resolve(library, "cuDeviceGetName", api.cuDeviceGetName, missing);
  resolve(library, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, missing);
  resolve(library, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem, missing);
  resolve(library, "cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain,
          missing);
  resolve(library, "cuCtxGetCurrent", api.cuCtxGetCurrent, missing);
  resolve(library, "cuCtxSetCurrent", api.cuCtxSetCurrent, missing);
  resolve(library, "cuModuleLoadData", api.cuModuleLoadData, missing);
  resolve(library, "cuModuleUnload", api.cuModuleUnload, missing);
  resolve(library, "cuModuleGetFunction", api.cuModuleGetFunction, missing);
  resolve(library, "cuFuncGetAttribute", api.cuFuncGetAttribute, missing);
  resolve(library, "cuFuncSetAttribute", api.cuFuncSetAttribute, missing);
  // The legacy default stream for handle 0, as torch's default stream is.
  resolve(library, "cuLaunchKernel", api.cuLaunchKernel, missing);
  resolve(library, "cuPointerGetAttributes", api.cuPointerGetAttributes,
          missing);
  resolve(library, "cuGetErrorName", api.cuGetErrorName, missing);
  resolve(library, "cuGetErrorString", api.cuGetErrorString, missing);
  // Optional: a driver older than CUDA 11.8 still runs kernels launched
  // without attributes.
  api.cuLaunchKernelEx = reinterpret_cast<decltype(api.cuLaunchKernelEx)>(
      dlsym(library, "cuLaunchKernelEx"));
  // Optional: a driver older than CUDA 12.0 still runs kernels without
  // tensor descriptors.
  api.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(api.cuTensorMapEncodeTiled)>(
          dlsym(library, "cuTensorMapEncodeTiled"));
  if (!missing.empty()) {
    dlclose(library);
    throw DriverUnavailable("the CUDA driver library '" + path + "' lacks " +
                            missing +
                            ": it is not a CUDA driver, or one too old "
                            "for warpforge");
  }
  loadedApi = &api;
  return api;
}
} // namespace

std::string libraryPath() {
  const char *path = std::getenv("WARPFORGE_LIBCUDA");
  return path && *path ? path : "libcuda.so.1";
}

const Api &driver() {
  // The warm path: one atomic load once the driver is up.
  static std::atomic<const Api *> ready{nullptr};
  if (const Api *api = ready.load(std::memory_order_acquire))
    return *api;
  const Api &api = openLibrary();
  // A failure of cuInit (no device, the toolkit's stub library) is reported
  // to every caller; the driver remembers it anyway.
  static std::once_flag initialized;
  static CUresult initResult = CUDA_SUCCESS;
  std::call_once(initialized, [&] { initResult = api.cuInit(0); });
  check(initResult, "cuInit");
  ready.store(&api, std::memory_order_release);
  return api;
}

std::string describe(CUresult code) {
  const char *name = nullptr, *text = nullptr;
  if (loadedApi) {
    if (loadedApi->cuGetErrorName(code, &name) != CUDA_SUCCESS)
      name = nullptr;
    if (loadedApi->cuGetErrorString(code, &text) != CUDA_SUCCESS)
      text = nullptr;
  }
  std::string result = name ? name : "CUDA error " + std::to_string(code);
  if (text)
    result += std::string(" (") + text + ")";
  return result;
}

void fail(const char *call, CUresult code, const std::string &kernel,
          const std::string &where) {
  const char *name = nullptr, *text = nullptr;
  if (loadedApi) {
    loadedApi->cuGetErrorName(code, &name);
    loadedApi->cuGetErrorString(code, &text);
  }
  std::string message = std::string(call) + " failed";
  if (!kernel.empty())
    message += " for kernel '" + kernel + "'";
  if (!where.empty())
    message += " " + where;
  message += ": " + describe(code);
  throw DriverError(call, code, name ? name : "", text ? text : "", kernel,
                    message);
}

//===----------------------------------------------------------------------===//
// Devices and contexts.
//===----------------------------------------------------------------------===//

int deviceCount() {
  try {
    int count = 0;
    if (driver().cuDeviceGetCount(&count) != CUDA_SUCCESS)
      return 0;
    return count;
  } catch (const std::exception &) {
    return 0;
  }
}

namespace {
std::mutex deviceMutex;
std::vector<std::unique_ptr<DeviceInfo>> devices;
std::vector<CUcontext> contexts;

void checkOrdinal(int ordinal, int count) {
  if (ordinal < 0 || ordinal >= count)
    throw std::invalid_argument(
        "CUDA device " + std::to_string(ordinal) + " does not exist: there " +
        (count == 1 ? "is 1 device"
                    : "are " + std::to_string(count) + " devices"));
}

DeviceInfo readDeviceInfo(const Api &api, int ordinal) {
  DeviceInfo info;
  info.ordinal = ordinal;
  check(api.cuDeviceGet(&info.handle, ordinal), "cuDeviceGet");
  char name[256] = {0};
  check(api.cuDeviceGetName(name, sizeof(name) - 1, info.handle),
        "cuDeviceGetName");
  info.name = name;
  auto attribute = [&](DeviceAttribute attr, int &value) {
    check(api.cuDeviceGetAttribute(&value, attr, info.handle),
          "cuDeviceGetAttribute");
  };
  attribute(ComputeCapabilityMajor, info.major);
  attribute(ComputeCapabilityMinor, info.minor);
  attribute(MultiprocessorCount, info.multiprocessorCount);
  attribute(MaxThreadsPerBlock, info.maxThreadsPerBlock);
  attribute(MaxThreadsPerMultiprocessor, info.maxThreadsPerMultiprocessor);
  attribute(MaxGridDimX, info.maxGridDim[0]);
  attribute(MaxGridDimY, info.maxGridDim[1]);
  attribute(MaxGridDimZ, info.maxGridDim[2]);
  attribute(MaxSharedMemoryPerBlock, info.maxSharedPerBlock);
  attribute(MaxSharedMemoryPerBlockOptin, info.maxSharedPerBlockOptin);
  attribute(MaxSharedMemoryPerMultiprocessor, info.maxSharedPerMultiprocessor);
  attribute(MaxRegistersPerBlock, info.maxRegistersPerBlock);
  attribute(MaxRegistersPerMultiprocessor, info.maxRegistersPerMultiprocessor);
  attribute(WarpSize, info.warpSize);
  attribute(L2CacheSize, info.l2CacheSize);
  attribute(ClockRate, info.clockRateKHz);
  attribute(MemoryClockRate, info.memoryClockRateKHz);
  attribute(GlobalMemoryBusWidth, info.memoryBusWidth);
  check(api.cuDeviceTotalMem(&info.totalMemory, info.handle),
        "cuDeviceTotalMem");
  return info;
}
} // namespace

const DeviceInfo &deviceInfo(int ordinal) {
  const Api &api = driver();
  std::lock_guard<std::mutex> lock(deviceMutex);
  if (devices.empty()) {
    int count = 0;
    check(api.cuDeviceGetCount(&count), "cuDeviceGetCount");
    devices.resize(count);
    contexts.resize(count, nullptr);
  }
  checkOrdinal(ordinal, static_cast<int>(devices.size()));
  if (!devices[ordinal])
    devices[ordinal] =
        std::make_unique<DeviceInfo>(readDeviceInfo(api, ordinal));
  return *devices[ordinal];
}

CUcontext primaryContext(int ordinal) {
  const DeviceInfo &info = deviceInfo(ordinal);
  std::lock_guard<std::mutex> lock(deviceMutex);
  if (!contexts[ordinal]) {
    // The context torch and the CUDA runtime use; retained for the life of
    // the process, so modules loaded in it stay valid.
    check(driver().cuDevicePrimaryCtxRetain(&contexts[ordinal], info.handle),
          "cuDevicePrimaryCtxRetain");
  }
  return contexts[ordinal];
}

ScopedContext::ScopedContext(CUcontext context) {
  const Api &api = driver();
  check(api.cuCtxGetCurrent(&previous), "cuCtxGetCurrent");
  if (previous == context)
    return;
  check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
  restore = previous != nullptr;
}

ScopedContext::~ScopedContext() {
  if (restore)
    loadedApi->cuCtxSetCurrent(previous);
}

//===----------------------------------------------------------------------===//
// Kernels.
//===----------------------------------------------------------------------===//

LoadedKernel::LoadedKernel(const std::string &image, const std::string &name,
                           int numWarps, int dynamicShared, int ordinal)
    : name_(name), device_(ordinal) {
  if (numWarps < 1)
    throw std::invalid_argument("kernel '" + name +
                                "': num_warps must be at least 1, got " +
                                std::to_string(numWarps));
  if (dynamicShared < 0)
    throw std::invalid_argument(
        "kernel '" + name +
        "': shared memory bytes must be non-negative, got " +
        std::to_string(dynamicShared));
  if (image.empty())
    throw std::invalid_argument("kernel '" + name + "': the cubin is empty");
  threads_ = static_cast<unsigned>(numWarps) * 32;
  dynamicShared_ = static_cast<unsigned>(dynamicShared);
  // The first kernel opens the driver: its failures name the kernel too.
  const DeviceInfo *found = nullptr;
  try {
    found = &deviceInfo(ordinal);
    context_ = primaryContext(ordinal);
  } catch (const DriverUnavailable &e) {
    throw DriverUnavailable("cannot launch kernel '" + name + "': " + e.what());
  } catch (const DriverError &e) {
    if (!e.kernel.empty())
      throw;
    fail(e.call.c_str(), e.code, name);
  }
  const Api &api = driver();
  const DeviceInfo &info = *found;
  ScopedContext scope(context_);
  // PTX text must end in NUL, which c_str() guarantees; a cubin is ELF.
  CUresult loaded = api.cuModuleLoadData(&module_, image.c_str());
  if (loaded != CUDA_SUCCESS) {
    module_ = nullptr;
    fail("cuModuleLoadData", loaded, name,
         "on device " + std::to_string(ordinal) + " (" + info.name + ", sm_" +
             std::to_string(info.major * 10 + info.minor) + ")");
  }
  try {
    check(api.cuModuleGetFunction(&function_, module_, name.c_str()),
          "cuModuleGetFunction", name);
    auto attribute = [&](FunctionAttribute attr, int &value) {
      check(api.cuFuncGetAttribute(&value, attr, function_),
            "cuFuncGetAttribute", name);
    };
    attribute(FuncNumRegs, numRegs);
    attribute(FuncLocalSizeBytes, localBytes);
    attribute(FuncSharedSizeBytes, staticSharedBytes);
    attribute(FuncMaxThreadsPerBlock, maxThreads);
    checkLimits(info);
    // Beyond 48 KB in all, shared memory is opt-in, and only dynamic.
    if (staticSharedBytes + dynamicShared > kDefaultSharedLimit)
      check(api.cuFuncSetAttribute(function_, FuncMaxDynamicSharedSizeBytes,
                                   dynamicShared),
            "cuFuncSetAttribute", name);
  } catch (...) {
    api.cuModuleUnload(module_);
    module_ = nullptr;
    throw;
  }
}

void LoadedKernel::checkLimits(const DeviceInfo &info) const {
  long long shared = static_cast<long long>(staticSharedBytes) + dynamicShared_;
  if (shared > info.maxSharedPerBlockOptin)
    throw ResourceError(
        name_, "bytes of shared memory", shared, info.maxSharedPerBlockOptin,
        std::to_string(staticSharedBytes) + " static + " +
            std::to_string(dynamicShared_) + " dynamic bytes on " + info.name);
  long long registers = static_cast<long long>(numRegs) * threads_;
  if (registers > info.maxRegistersPerBlock)
    throw ResourceError(
        name_, "registers", registers, info.maxRegistersPerBlock,
        std::to_string(numRegs) + " registers per thread x " +
            std::to_string(threads_) +
            " threads (num_warps=" + std::to_string(threads_ / 32) +
            "); use fewer warps or a lower maxnreg");
  if (static_cast<int>(threads_) > maxThreads)
    throw ResourceError(name_, "threads", threads_, maxThreads,
                        "num_warps=" + std::to_string(threads_ / 32) +
                            "; the kernel launches with at most " +
                            std::to_string(maxThreads) +
                            " threads per block (it uses " +
                            std::to_string(numRegs) + " registers per thread)");
}

LoadedKernel::~LoadedKernel() {
  if (!module_ || !loadedApi)
    return;
  // Errors are ignored: at exit the driver may already be shut down.
  CUcontext previous = nullptr;
  if (loadedApi->cuCtxGetCurrent(&previous) != CUDA_SUCCESS)
    return;
  if (previous != context_ &&
      loadedApi->cuCtxSetCurrent(context_) != CUDA_SUCCESS)
    return;
  loadedApi->cuModuleUnload(module_);
  if (previous && previous != context_)
    loadedApi->cuCtxSetCurrent(previous);
}

} // namespace warpforge::cuda
