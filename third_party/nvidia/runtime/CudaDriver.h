//===- CudaDriver.h - The CUDA driver API, opened at run time ---*- C++ -*-===//
//
// warpforge talks to the GPU through the CUDA driver API, which it opens with
// dlopen on first use: importing warpforge and compiling kernels must work on
// machines with no GPU and no driver. The few driver types, enumerators and
// entry points used are declared here, so that no CUDA header is needed to
// build. Nothing here knows about Python.
//
// Every failure throws one of the exceptions below; their messages name the
// driver call, the CUDA error (name and description) and the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef WARPFORGE_NVIDIA_RUNTIME_CUDADRIVER_H
#define WARPFORGE_NVIDIA_RUNTIME_CUDADRIVER_H

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace warpforge::cuda {

//===----------------------------------------------------------------------===//
// The driver API's types and the enumerator values used (from cuda.h's ABI).
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;

constexpr CUresult CUDA_SUCCESS = 0;

enum DeviceAttribute : int {
  MaxThreadsPerBlock = 1,
  MaxGridDimX = 5,
  MaxGridDimY = 6,
  MaxGridDimZ = 7,
  MaxSharedMemoryPerBlock = 8,
  WarpSize = 10,
  MaxRegistersPerBlock = 12,
  ClockRate = 13, // kHz
  MultiprocessorCount = 16,
  MemoryClockRate = 36, // kHz
  GlobalMemoryBusWidth = 37,
  L2CacheSize = 38,
  MaxThreadsPerMultiprocessor = 39,
  ComputeCapabilityMajor = 75,
  ComputeCapabilityMinor = 76,
  MaxSharedMemoryPerMultiprocessor = 81,
  MaxRegistersPerMultiprocessor = 82,
  MaxSharedMemoryPerBlockOptin = 97,
};

enum FunctionAttribute : int {
  FuncMaxThreadsPerBlock = 0,
  FuncSharedSizeBytes = 1, // static shared memory
  FuncLocalSizeBytes = 3,  // local memory per thread: spills and stack
  FuncNumRegs = 4,
  FuncMaxDynamicSharedSizeBytes = 8,
};

enum PointerAttribute : int {
  PointerMemoryType = 2,
  PointerIsManaged = 8,
  PointerDeviceOrdinal = 9,
  PointerRangeStartAddr = 11, // the allocation holding the address
  PointerRangeSize = 12,
};

enum MemoryType : unsigned {
  MemoryUnknown = 0, // not memory the driver knows: pageable host memory
  MemoryHost = 1,    // page-locked host memory
  MemoryDevice = 2,
  MemoryArray = 3,
  MemoryUnified = 4,
};

/// A TMA tensor map (cuda.h's CUtensorMap): 128 opaque bytes, 64-byte
/// aligned, made on the host by cuTensorMapEncodeTiled and passed to a kernel
/// by value.
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

enum TensorMapDataType : int {
  TensorMapUInt8 = 0,
  TensorMapUInt16 = 1,
  TensorMapUInt32 = 2,
  TensorMapInt32 = 3,
  TensorMapUInt64 = 4,
  TensorMapInt64 = 5,
  TensorMapFloat16 = 6,
  TensorMapFloat32 = 7,
  TensorMapFloat64 = 8,
  TensorMapBFloat16 = 9,
};

enum TensorMapInterleave : int { TensorMapInterleaveNone = 0 };

enum TensorMapSwizzle : int {
  TensorMapSwizzleNone = 0,
  TensorMapSwizzle32B = 1,
  TensorMapSwizzle64B = 2,
  TensorMapSwizzle128B = 3,
};

enum TensorMapL2Promotion : int {
  TensorMapL2PromotionNone = 0,
  TensorMapL2Promotion64B = 1,
  TensorMapL2Promotion128B = 2,
  TensorMapL2Promotion256B = 3,
};

enum TensorMapFloatOOBFill : int {
  TensorMapOOBFillNone = 0,              // out-of-bounds elements read as zero
  TensorMapOOBFillNanRequestZeroFma = 1, // ... as NaN
};

/// cuLaunchKernelEx's launch attributes (cuda.h's CUlaunchAttribute: an id,
/// padding to 8 bytes, a 64-byte union of values) and configuration.
enum LaunchAttributeId : int {
  LaunchAttributeCooperative = 2,
  LaunchAttributeClusterDimension = 4,
  LaunchAttributeProgrammaticStreamSerialization = 6,
};

struct CUlaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int programmaticStreamSerializationAllowed;
    int cooperative;
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
static_assert(sizeof(CUlaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");

struct CUlaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream hStream;
  CUlaunchAttribute *attrs;
  unsigned numAttrs;
};

/// The dynamic shared memory a kernel may use without opting in.
constexpr int kDefaultSharedLimit = 48 * 1024;

//===----------------------------------------------------------------------===//
// Errors.
//===----------------------------------------------------------------------===//

/// The driver library could not be opened, or lacks an entry point.
class DriverUnavailable : public std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A driver call failed.
class DriverError : public std::runtime_error {
public:
  DriverError(std::string call, CUresult code, std::string errorName,
              std::string errorString, std::string kernel,
              const std::string &message)
      : std::runtime_error(message), call(std::move(call)), code(code),
        errorName(std::move(errorName)), errorString(std::move(errorString)),
        kernel(std::move(kernel)) {}

  std::string call;
  CUresult code;
  std::string errorName;   // "CUDA_ERROR_INVALID_IMAGE"
  std::string errorString; // "device kernel image is invalid"
  std::string kernel;      // empty when the call concerns no kernel
};

/// A kernel needs more of a resource than the device has.
class ResourceError : public std::runtime_error {
public:
  ResourceError(std::string kernel, std::string resource, long long required,
                long long limit, std::string hint);

  std::string kernel, resource;
  long long required, limit;
  std::string hint;
};

//===----------------------------------------------------------------------===//
// The driver.
//===----------------------------------------------------------------------===//

/// The driver's entry points, resolved from the library.
struct Api {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuPointerGetAttributes)(unsigned, int *, void **, CUdeviceptr);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Optional (CUDA 11.8 and later): null when the driver lacks it; only
  // launches with attributes (programmatic dependent launch) need it.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig *, CUfunction, void **,
                               void **);
  // Optional (CUDA 12.0 and later): null when the driver lacks it, and only
  // kernels taking tensor descriptors need it.
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);
};

/// The library opened: $WARPFORGE_LIBCUDA when set, else "libcuda.so.1".
std::string libraryPath();

/// The driver, opened and initialized (cuInit) on the first call. Throws
/// DriverUnavailable or DriverError; later calls throw the same again.
const Api &driver();

/// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
std::string describe(CUresult code);

/// Throws DriverError for `call` failing with `code`: "cuX failed for kernel
/// 'k' <where>: CUDA_ERROR_Y (description)" (kernel and where optional).
[[noreturn]] void fail(const char *call, CUresult code,
                       const std::string &kernel = {},
                       const std::string &where = {});

inline void check(CUresult code, const char *call,
                  const std::string &kernel = {}) {
  if (code != CUDA_SUCCESS)
    fail(call, code, kernel);
}

/// The number of devices; 0 when the driver cannot be opened or initialized
/// or there is no device.
int deviceCount();

/// What a device is and offers, read once per device.
struct DeviceInfo {
  int ordinal = 0;
  CUdevice handle = 0;
  std::string name;
  int major = 0, minor = 0;
  int multiprocessorCount = 0;
  int maxThreadsPerBlock = 0, maxThreadsPerMultiprocessor = 0;
  int maxGridDim[3] = {0, 0, 0};
  int maxSharedPerBlock = 0, maxSharedPerBlockOptin = 0;
  int maxSharedPerMultiprocessor = 0;
  int maxRegistersPerBlock = 0, maxRegistersPerMultiprocessor = 0;
  int warpSize = 0;
  int l2CacheSize = 0;
  int clockRateKHz = 0, memoryClockRateKHz = 0, memoryBusWidth = 0;
  size_t totalMemory = 0;
};

/// The device `ordinal`'s properties (cached). Throws std::out_of_range for
/// an ordinal that is not a device.
const DeviceInfo &deviceInfo(int ordinal);

/// The primary context of device `ordinal`, retained once for the process.
CUcontext primaryContext(int ordinal);

/// Makes `context` current for this scope, then restores the previous one
/// (unless there was none: a thread that had no context keeps this one).
class ScopedContext {
public:
  explicit ScopedContext(CUcontext context);
  ~ScopedContext();
  ScopedContext(const ScopedContext &) = delete;
  ScopedContext &operator=(const ScopedContext &) = delete;

private:
  CUcontext previous = nullptr;
  bool restore = false;
};

/// A kernel loaded from a cubin into a device's primary context, checked
/// against the device's limits for a launch of `numWarps` warps with
/// `dynamicShared` bytes of dynamic shared memory.
class LoadedKernel {
public:
  /// Loads `image` (a cubin, or PTX text for the driver to compile) and finds
  /// the kernel `name` in it. Throws DriverUnavailable, DriverError or
  /// ResourceError.
  LoadedKernel(const std::string &image, const std::string &name, int numWarps,
               int dynamicShared, int ordinal);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel &) = delete;
  LoadedKernel &operator=(const LoadedKernel &) = delete;

  const std::string &name() const { return name_; }
  int device() const { return device_; }
  CUcontext context() const { return context_; }
  CUfunction function() const { return function_; }
  unsigned threads() const { return threads_; }
  unsigned dynamicShared() const { return dynamicShared_; }

  int numRegs = 0;           // registers per thread
  int localBytes = 0;        // local memory per thread (spills, stack)
  int staticSharedBytes = 0; // shared memory declared in the kernel
  int maxThreads = 0;        // threads per block this kernel can launch with

private:
  void checkLimits(const DeviceInfo &info) const;

  std::string name_;
  int device_;
  unsigned threads_, dynamicShared_;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
};

} // namespace warpforge::cuda

#endif // WARPFORGE_NVIDIA_RUNTIME_CUDADRIVER_H
