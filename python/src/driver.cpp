//===- driver.cpp - warpforge._C's GPU runtime: kernels and launches ------===//
//
// `_C.Kernel` is one kernel loaded on one device; `launch` packs the Python
// arguments per the kernel's signature and calls cuLaunchKernel. Packing is
// the warm launch path, so it is written against the CPython API: no Python
// code runs per argument except a tensor's own data_ptr().
//
// Driver failures raise warpforge.errors.CudaError (or DriverUnavailable);
// kernels over a device limit raise warpforge.errors.OutOfResources.
//
// A `tensordesc<ELEM[b0, ..., bn-1]>` parameter (a host TensorDescriptor)
// expands to n + n + 1 kernel parameters: a CUtensorMap (128 bytes by
// value), the shape as n int32 and the strides (elements) as n int64, all
// outermost first. Its box and swizzle are the compiler's, from the one rule
// in warpforge/Dialect/TileGPU/IR/TMA.h. Encoded maps are cached per
// parameter, keyed by what they encode. The tensor maps the compiler made
// for pointers' block loads and left to the launcher (HostMap) follow the
// signature's parameters, encoded the same way from the base pointer and the
// integer arguments the kernel's `tilegpu.host-tensor-maps` names.
// A kernel that needs global scratch
// takes one more parameter, last: a pointer to its scratch times the number
// of CTAs launched, from the allocator of warpforge.set_allocator.
//
// A kernel compiled for thread-block clusters (num_ctas > 1) runs each
// program of the grid on a cluster of num_ctas CTAs along x: a grid of
// (gx, gy, gz) programs launches (gx * num_ctas, gy, gz) CTAs with
// cuLaunchKernelEx's cluster dimension (num_ctas, 1, 1). The compiler may
// then give each CTA a slice of a descriptor's block: `descriptor_blocks`
// names the block each tensor map is encoded for, while the signature's
// block stays what the host descriptor is checked against.
//
//===----------------------------------------------------------------------===//

#include "nvidia/runtime/CudaDriver.h"
#include "warpforge/Dialect/TileGPU/IR/TMA.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <structmember.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace warpforge::cuda;

// specialize.cpp
PyObject *specializeArguments(PyObject *args, const char *kinds,
                              Py_ssize_t count, PyObject *argSpec,
                              PyObject *constSpec, PyObject *dtypes,
                              unsigned long long *addresses,
                              unsigned char *known);
namespace tma = warpforge::tilegpu::tma;

namespace {

/// Sets a Python exception of `type` and unwinds to pybind11.
[[noreturn]] void raise(PyObject *type, const std::string &message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

//===----------------------------------------------------------------------===//
// Element types.
//===----------------------------------------------------------------------===//

/// The canonical name of a type name as the frontend spells it (without the
/// pointer star), or "" when warpforge has no such type.
std::string canonicalType(std::string name) {
  // clang-format off
  static const std::unordered_map<std::string, std::string> aliases = {
      {"int1", "i1"},         {"bool", "i1"},         {"i1", "i1"},
      {"int8", "i8"},         {"i8", "i8"},           {"int16", "i16"},
      {"i16", "i16"},         {"int32", "i32"},       {"i32", "i32"},
      {"int64", "i64"},       {"i64", "i64"},         {"uint8", "u8"},
      {"u8", "u8"},           {"uint16", "u16"},      {"u16", "u16"},
      {"uint32", "u32"},      {"u32", "u32"},         {"uint64", "u64"},
      {"u64", "u64"},         {"fp8e4nv", "fp8e4nv"}, {"float8e4nv", "fp8e4nv"},
      {"float8_e4m3fn", "fp8e4nv"},                   {"fp8e5", "fp8e5"},
      {"float8e5", "fp8e5"},  {"float8_e5m2", "fp8e5"}, {"fp16", "fp16"},
      {"float16", "fp16"},    {"half", "fp16"},       {"bf16", "bf16"},
      {"bfloat16", "bf16"},   {"fp32", "fp32"},       {"float32", "fp32"},
      {"float", "fp32"},      {"fp64", "fp64"},       {"float64", "fp64"},
      {"double", "fp64"}};
  // clang-format on
  size_t dot = name.rfind('.'); // "torch.float16"
  if (dot != std::string::npos)
    name = name.substr(dot + 1);
  auto it = aliases.find(name);
  return it == aliases.end() ? "" : it->second;
}

int bitsOf(const std::string &canonical) {
  if (canonical == "i1")
    return 8; // stored as bytes
  size_t digits = canonical.find_first_of("0123456789");
  if (canonical.rfind("fp8", 0) == 0)
    return 8;
  return std::stoi(canonical.substr(digits));
}

/// The element type of a __cuda_array_interface__ typestr ("<f4"), or "".
std::string typestrElement(const std::string &typestr) {
  if (typestr.size() < 3)
    return "";
  char kind = typestr[1];
  int bytes = std::atoi(typestr.c_str() + 2);
  if (kind == 'b' && bytes == 1)
    return "i1";
  if ((kind == 'i' || kind == 'u') &&
      (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8))
    return std::string(1, kind) + std::to_string(bytes * 8);
  if (kind == 'f' && (bytes == 2 || bytes == 4 || bytes == 8))
    return "fp" + std::to_string(bytes * 8);
  return "";
}

// DLPack's ABI (dlpack.h): the parts read here.
struct DLDevice {
  int32_t device_type, device_id;
};
struct DLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape, *strides;
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *);
};
enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13
};

std::string dlpackElement(DLDataType t) {
  if (t.lanes != 1)
    return "";
  switch (t.code) {
  case 0:
    return "i" + std::to_string(t.bits);
  case 1:
    return "u" + std::to_string(t.bits);
  case 2:
    return "fp" + std::to_string(t.bits);
  case 4:
    return t.bits == 16 ? "bf16" : "";
  case 6:
    return "i1";
  default:
    return ""; // fp8 and newer codes: checked by width only
  }
}

std::string dlpackDeviceName(int32_t type, int32_t id) {
  switch (type) {
  case kDLCPU:
    return "cpu";
  case kDLCUDA:
    return "cuda:" + std::to_string(id);
  case kDLCUDAHost:
    return "pinned host memory";
  case kDLCUDAManaged:
    return "CUDA managed memory";
  default:
    return "DLPack device type " + std::to_string(type);
  }
}

//===----------------------------------------------------------------------===//
// Scalar conversions.
//===----------------------------------------------------------------------===//

/// `value` rounded to nearest-even in a binary format with `exponentBits`
/// and `mantissaBits` (IEEE layout), as its bit pattern. Rounds once, from
/// the double: no double rounding through fp32.
uint16_t roundToHalfFormat(double value, int exponentBits, int mantissaBits) {
  uint64_t raw;
  std::memcpy(&raw, &value, sizeof raw);
  uint16_t sign =
      static_cast<uint16_t>((raw >> 63) << (exponentBits + mantissaBits));
  int bias = (1 << (exponentBits - 1)) - 1;
  uint16_t infinity =
      static_cast<uint16_t>(((1 << exponentBits) - 1) << mantissaBits);
  if (std::isnan(value))
    return sign | infinity | (1 << (mantissaBits - 1));
  double a = std::fabs(value);
  if (std::isinf(a))
    return sign | infinity;
  if (a == 0)
    return sign;
  // a = n * 2^(e - mantissaBits) with n an integer: n < 2^mantissaBits is a
  // subnormal, and the encoding ((e + bias) << m) + n - 2^m also carries a
  // rounded-up mantissa into the exponent.
  int e = std::max(std::ilogb(a), 1 - bias);
  double n = std::nearbyint(std::ldexp(a, mantissaBits - e));
  if (n < std::ldexp(1.0, mantissaBits))
    return sign | static_cast<uint16_t>(n);
  long long bits = (static_cast<long long>(e + bias) << mantissaBits) +
                   static_cast<long long>(n) - (1LL << mantissaBits);
  if (bits >= infinity)
    return sign | infinity;
  return sign | static_cast<uint16_t>(bits);
}

//===----------------------------------------------------------------------===//
// Kernel.
//===----------------------------------------------------------------------===//

enum class Kind : uint8_t {
  Pointer,
  Bool,
  Int,
  UInt,
  F16,
  BF16,
  F32,
  F64,
  TensorDesc
};

constexpr int kMaxTensorRank = 5;

/// What a tensor map encodes besides the parameter's fixed element type, box
/// and swizzle: the cache key.
struct TensorMapKey {
  CUdeviceptr address = 0;
  int rank = 0;
  bool nanPadding = false;
  int64_t shape[kMaxTensorRank] = {}, strides[kMaxTensorRank] = {};

  bool operator==(const TensorMapKey &o) const {
    if (address != o.address || rank != o.rank || nanPadding != o.nanPadding)
      return false;
    for (int d = 0; d < rank; ++d)
      if (shape[d] != o.shape[d] || strides[d] != o.strides[d])
        return false;
    return true;
  }
};

/// A `tensordesc<...>` parameter: what it was compiled for, and the maps
/// encoded for it lately.
struct DescriptorParam {
  std::vector<int64_t> blockShape; // outermost first
  int elementBytes = 0;
  int dataType = 0;           // TensorMapDataType
  bool floatingPoint = false; // may pad with NaN
  tma::Encoding encoding;
  py::object acceptedDtype; // the last `dtype` string accepted

  // A few recent maps (ping-pong buffers alternate), replaced round-robin.
  static constexpr int kCached = 4;
  struct Entry {
    CUtensorMap map;
    TensorMapKey key;
    bool valid = false;
  };
  std::array<Entry, kCached> cache;
  int next = 0;
  long long encodes = 0; // cuTensorMapEncodeTiled calls, for tests
};

struct Param {
  std::string name;    // "x_ptr"
  std::string type;    // as given: "*fp32", "i32"
  std::string element; // canonical: the pointee for pointers, else the type
  Kind kind;
  int bits;
  int index;                // in the arguments launch() is given
  py::object verifiedDtype; // the last torch dtype seen and accepted
  int slots = 1;            // the kernel parameters it becomes
  std::unique_ptr<DescriptorParam> desc; // for Kind::TensorDesc
};

/// A tensor map the compiler made for a pointer's block loads and the
/// launcher encodes (the module's `tilegpu.host-tensor-maps`): its base
/// is the pointer in slot `baseSlot`, each size and stride the integer in
/// the slot of `*Slots[d]` or, where that is -1, the constant.
struct HostMap {
  Param param; // describes it in messages; param.desc encodes it
  int baseSlot = 0;
  std::vector<int> shapeSlots, strideSlots;
  std::vector<int64_t> shape, strides;
};

const char *dataTypeName(int type) {
  static const char *names[] = {"UINT8",   "UINT16",  "UINT32",  "INT32",
                                "UINT64",  "INT64",   "FLOAT16", "FLOAT32",
                                "FLOAT64", "BFLOAT16"};
  return type >= 0 && type < 10 ? names[type] : "?";
}

/// The tensor map data type of a canonical element type, or -1.
int tensorMapDataType(const std::string &element) {
  if (element == "fp16")
    return TensorMapFloat16;
  if (element == "bf16")
    return TensorMapBFloat16;
  if (element == "fp32")
    return TensorMapFloat32;
  if (element == "fp64")
    return TensorMapFloat64;
  if (element == "i1" || element == "i8" || element == "u8" ||
      element.rfind("fp8", 0) == 0)
    return TensorMapUInt8;
  if (element == "i16" || element == "u16")
    return TensorMapUInt16;
  if (element == "i32")
    return TensorMapInt32;
  if (element == "u32")
    return TensorMapUInt32;
  if (element == "i64")
    return TensorMapInt64;
  if (element == "u64")
    return TensorMapUInt64;
  return -1;
}

template <typename T> std::string listText(const T *values, int n) {
  std::string text = "[";
  for (int i = 0; i < n; ++i)
    text += (i ? ", " : "") + std::to_string(values[i]);
  return text + "]";
}

/// Set while the pointer checks run on a descriptor's base, so that their
/// messages say so. Per thread: the checks may run Python code (data_ptr(),
/// __dlpack__), which lets other threads launch meanwhile.
thread_local bool describingBase = false;

std::string hexText(unsigned long long value) {
  std::ostringstream os;
  os << "0x" << std::hex << value;
  return os.str();
}

class Kernel {
public:
  Kernel(py::object image, std::string name, py::handle signature, int numWarps,
         int sharedBytes, int device,
         std::optional<std::vector<std::string>> params,
         int64_t globalScratchSize, int64_t globalScratchAlign,
         bool globalScratchImplicit, py::handle hostTensorMaps, bool launchPdl,
         bool launchCooperativeGrid, int numCtas, py::handle descriptorBlocks)
      : name(std::move(name)), numWarps(numWarps), sharedBytes(sharedBytes),
        device(device), globalScratchSize(globalScratchSize),
        globalScratchAlign(globalScratchAlign),
        globalScratchImplicit(globalScratchImplicit), launchPdl(launchPdl),
        launchCooperativeGrid(launchCooperativeGrid), numCtas(numCtas) {
    if (globalScratchSize < 0 || globalScratchAlign < 1)
      raise(PyExc_ValueError,
            "kernel '" + this->name + "': global scratch of " +
                std::to_string(globalScratchSize) + " bytes aligned to " +
                std::to_string(globalScratchAlign) +
                ": the size must be non-negative and the alignment positive");
    // Clusters of up to 8 CTAs are portable (every sm_90 device schedules
    // them); the compiler splits blocks in powers of 2.
    if (numCtas != 1 && numCtas != 2 && numCtas != 4 && numCtas != 8)
      raise(PyExc_ValueError,
            "kernel '" + this->name + "': num_ctas=" + std::to_string(numCtas) +
                ": a thread-block cluster has 1, 2, 4 or 8 CTAs");
    launchEx = launchPdl || launchCooperativeGrid || numCtas > 1;
    if (!descriptorBlocks.is_none())
      readDescriptorBlocks(descriptorBlocks);
    parseSignature(signature);
    // Every block named was used: a name the signature lacks (or gives
    // another type) is the compiler's and the launcher's disagreeing.
    for (const auto &[param, block] : encodedBlocks) {
      auto it = std::find_if(paramsInOrder.begin(), paramsInOrder.end(),
                             [&](const Param &p) { return p.name == param; });
      if (it == paramsInOrder.end() || it->kind != Kind::TensorDesc)
        raise(PyExc_ValueError,
              "kernel '" + this->name + "': descriptor_blocks names '" + param +
                  "', which is not a tensordesc parameter of the "
                  "signature" +
                  (it == paramsInOrder.end() ? std::string()
                                             : " (it is " + it->type + ")"));
    }
    if (params)
      bindParams(*params);
    if (!hostTensorMaps.is_none())
      bindHostMaps(hostTensorMaps);
    kernelParams += globalScratchSize > 0;
    std::string bytes = imageBytes(image);
    {
      // Loading may take a while (PTX compiles); the checks below raise
      // Python exceptions, so they need the GIL back.
      py::gil_scoped_release release;
      loaded = std::make_unique<LoadedKernel>(bytes, this->name, numWarps,
                                              sharedBytes, device);
      api = &driver();
      info = &deviceInfo(device);
    }
    if (launchPdl && !api->cuLaunchKernelEx)
      raise(PyExc_RuntimeError,
            "kernel '" + this->name +
                "': launch_pdl=True needs cuLaunchKernelEx, which this CUDA "
                "driver lacks (CUDA 11.8 or later has it)");
    if (launchCooperativeGrid && !api->cuLaunchKernelEx)
      raise(PyExc_RuntimeError,
            "kernel '" + this->name +
                "': launch_cooperative_grid=True needs cuLaunchKernelEx, "
                "which this CUDA driver lacks (CUDA 11.8 or later has it)");
    if (launchPdl && info->major < 9)
      raise(PyExc_RuntimeError,
            "kernel '" + this->name +
                "': launch_pdl=True (programmatic dependent launch) needs "
                "sm_90 or later; device " + std::to_string(device) +
                " is sm_" + std::to_string(info->major) +
                std::to_string(info->minor));
    if (numCtas > 1 && !api->cuLaunchKernelEx)
      raise(PyExc_RuntimeError,
            "kernel '" + this->name + "': num_ctas=" + std::to_string(numCtas) +
                " (thread-block clusters) needs cuLaunchKernelEx, which this "
                "CUDA driver lacks (CUDA 11.8 or later has it)");
    if (numCtas > 1 && info->major < 9)
      raise(PyExc_RuntimeError,
            "kernel '" + this->name + "': num_ctas=" + std::to_string(numCtas) +
                " (thread-block clusters) needs sm_90 or later; device " +
                std::to_string(device) + " is sm_" +
                std::to_string(info->major) + std::to_string(info->minor));
  }

  void launch(long long gx, long long gy, long long gz, py::handle stream,
              py::handle args) {
    launchWith(gx, gy, gz, stream, args, nullptr, nullptr);
  }
  /// launch(), with the data_ptr() of the arguments where `known[i]` (the
  /// warm path has read them while specializing, and its cache hit proved
  /// their dtypes are the signature's).
  void launchWith(long long gx, long long gy, long long gz, py::handle stream,
                  py::handle args, const unsigned long long *addresses,
                  const unsigned char *known);

  std::string repr() const {
    std::ostringstream os;
    os << "<warpforge._C.Kernel '" << name << "' on cuda:" << device << ": "
       << numWarps << " warps, " << loaded->numRegs << " registers, "
       << sharedBytes << " + " << loaded->staticSharedBytes
       << " bytes of shared memory>";
    return os.str();
  }

  py::list signature() const {
    py::list result;
    for (const Param &p : paramsInOrder)
      result.append(py::make_tuple(p.name, p.type));
    return result;
  }

  /// cuTensorMapEncodeTiled calls made for the parameter `name`.
  long long descriptorEncodes(const std::string &param) const {
    for (const Param &p : paramsInOrder)
      if (p.name == param && p.desc)
        return p.desc->encodes;
    raise(PyExc_KeyError, "kernel '" + name +
                              "' has no tensor descriptor parameter '" + param +
                              "'");
  }

  std::string name;
  int numWarps, sharedBytes, device;
  // int64_t, not the long long of launch's grid: a second user of pybind11's
  // long long caster stops GCC from inlining it into the launch wrapper.
  int64_t globalScratchSize, globalScratchAlign;
  // Only compiler-made tensor maps use the scratch: with no allocator set,
  // the runtime provides it (allocation.allocate_scratch).
  bool globalScratchImplicit = false;
  // Programmatic dependent launch: each launch may start before the kernel
  // before it on the stream has finished (cuLaunchKernelEx with
  // CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION).
  bool launchPdl = false;
  // A cooperative launch: every program of the grid is resident at once
  // (cuLaunchKernelEx's cooperative attribute), so that programs may wait
  // for each other (a grid-wide barrier built from atomics), as Triton's
  // launch_cooperative_grid.
  bool launchCooperativeGrid = false;
  // CTAs per thread-block cluster, along x: each program of the grid is a
  // cluster, so a launch runs num_ctas times the programs' CTAs.
  int numCtas = 1;
  // Any of the three: the launch goes through cuLaunchKernelEx.
  bool launchEx = false;
  size_t kernelParams = 0; // what the cubin's kernel takes
  size_t descriptorParams = 0;
  std::unique_ptr<LoadedKernel> loaded;

private:
  // Looked up once: the launch path takes no lock.
  const Api *api = nullptr;
  const DeviceInfo *info = nullptr;

  void readDescriptorBlocks(py::handle blocks);
  void parseSignature(py::handle signature);
  void bindParams(const std::vector<std::string> &params);
  void bindHostMaps(py::handle maps);
  int64_t slotInteger(const uint64_t *slots, int slot) const;
  void packHostMap(HostMap &h, const uint64_t *slots, CUtensorMap &map);
  static std::string imageBytes(py::handle image);

  [[noreturn]] void badArgumentCount(Py_ssize_t given) const;
  std::string describe(const Param &p) const;
  CUdeviceptr pointerOf(Param &p, PyObject *obj, CUstream stream);
  void checkDtype(Param &p, PyObject *obj);
  void checkElement(const Param &p, const std::string &element, int bits,
                    const std::string &what) const;
  void checkDevicePointer(const Param &p, PyObject *obj, CUdeviceptr ptr);
  uint64_t scalarOf(const Param &p, PyObject *obj) const;
  void parseDescriptorType(Param &p, const std::string &type,
                           bool fromSignature = true);
  void launchWithDescriptors(long long gx, long long gy, long long gz,
                             CUstream cuStream, PyObject **items, bool byIndex);
  void enqueue(long long gx, long long gy, long long gz, CUstream cuStream,
               uint64_t *slots, void **pointers, size_t slot);
  CUresult launchWithAttributes(long long gx, long long gy, long long gz,
                              CUstream cuStream, void **pointers);
  py::object allocateGlobalScratch(long long gx, long long gy, long long gz,
                                   CUstream cuStream, uint64_t &slot);
  void packDescriptor(Param &p, PyObject *obj, CUstream stream,
                      CUtensorMap &map, uint64_t *slots);
  void readDimensions(const Param &p, PyObject *obj, PyObject *attribute,
                      const char *what, int64_t *out) const;
  void encodeTensorMap(const Param &p, const TensorMapKey &key,
                       CUtensorMap &map) const;
  void findOrEncode(Param &p, const TensorMapKey &key, CUtensorMap &map);
  std::string describeParam(const Param &p) const;

  // Device allocations (of this kernel's device, or managed) that
  // checkDevicePointer has accepted lately, replaced round-robin.
  struct CheckedRange {
    CUdeviceptr start = 0;
    size_t size = 0;
  };
  static constexpr int kCheckedRanges = 8;
  std::array<CheckedRange, kCheckedRanges> checkedRanges{};
  int nextRange = 0;

  std::vector<Param> paramsInOrder;
  std::vector<HostMap> hostMaps; // after paramsInOrder's slots
  // Per kernel parameter slot: its integer width when it holds a signed
  // (+) or unsigned (-) integer, else 0.
  std::vector<int> slotIntegerBits;
  py::object allocateScratch; // warpforge.runtime.allocation's, when needed
  std::vector<std::string> allParams; // constexprs included, when bound
  // descriptor_blocks: per tensordesc parameter, the block its maps are
  // encoded for when that is not the signature's (a CTA's slice of it).
  std::vector<std::pair<std::string, std::vector<int64_t>>> encodedBlocks;
};

void Kernel::readDescriptorBlocks(py::handle blocks) {
  if (!py::isinstance<py::dict>(blocks))
    raise(PyExc_TypeError,
          "kernel '" + name +
              "': descriptor_blocks must be None or a dict of tensordesc "
              "parameter names to block shapes, not " +
              std::string(Py_TYPE(blocks.ptr())->tp_name));
  for (auto item : py::reinterpret_borrow<py::dict>(blocks)) {
    std::string param = py::str(item.first);
    std::vector<int64_t> block;
    bool ok = py::isinstance<py::sequence>(item.second) &&
              !py::isinstance<py::str>(item.second);
    if (ok) {
      for (auto v : py::reinterpret_borrow<py::sequence>(item.second)) {
        if (!PyLong_Check(v.ptr()) || PyBool_Check(v.ptr())) {
          ok = false;
          break;
        }
        int overflow = 0;
        long long value = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
        if (overflow) {
          ok = false;
          break;
        }
        block.push_back(value);
      }
    }
    if (!ok)
      raise(PyExc_ValueError, "kernel '" + name + "': descriptor_blocks['" +
                                  param + "'] must be a list of ints, got " +
                                  std::string(py::repr(item.second)));
    encodedBlocks.emplace_back(std::move(param), std::move(block));
  }
}

void Kernel::parseSignature(py::handle signature) {
  std::vector<std::pair<std::string, std::string>> entries;
  if (py::isinstance<py::dict>(signature)) {
    for (auto item : py::reinterpret_borrow<py::dict>(signature))
      entries.emplace_back(py::str(item.first), py::str(item.second));
  } else if (py::isinstance<py::sequence>(signature) &&
             !py::isinstance<py::str>(signature)) {
    int i = 0;
    for (auto item : py::reinterpret_borrow<py::sequence>(signature)) {
      if (py::isinstance<py::str>(item)) {
        entries.emplace_back("arg" + std::to_string(i), py::str(item));
      } else {
        auto pair = item.cast<std::pair<std::string, std::string>>();
        entries.push_back(pair);
      }
      ++i;
    }
  } else {
    raise(PyExc_TypeError, "kernel '" + name +
                               "': the signature must be a dict of parameter "
                               "names to types or a list of types");
  }
  for (auto &[paramName, type] : entries) {
    Param p;
    p.name = paramName;
    p.type = type;
    p.index = static_cast<int>(paramsInOrder.size());
    if (type.rfind("tensordesc<", 0) == 0) {
      parseDescriptorType(p, type);
      kernelParams += p.slots;
      ++descriptorParams;
      paramsInOrder.push_back(std::move(p));
      continue;
    }
    bool pointer = !type.empty() && type[0] == '*';
    p.element = canonicalType(pointer ? type.substr(1) : type);
    if (p.element.empty())
      raise(PyExc_ValueError, "kernel '" + name + "': parameter '" + paramName +
                                  "' has unknown type '" + type + "'");
    p.bits = bitsOf(p.element);
    if (pointer)
      p.kind = Kind::Pointer;
    else if (p.element == "i1")
      p.kind = Kind::Bool;
    else if (p.element[0] == 'i')
      p.kind = Kind::Int;
    else if (p.element[0] == 'u')
      p.kind = Kind::UInt;
    else if (p.element == "fp16")
      p.kind = Kind::F16;
    else if (p.element == "bf16")
      p.kind = Kind::BF16;
    else if (p.element == "fp32")
      p.kind = Kind::F32;
    else if (p.element == "fp64")
      p.kind = Kind::F64;
    else
      raise(PyExc_ValueError, "kernel '" + name + "': parameter '" + paramName +
                                  "': " + type +
                                  " scalars cannot be kernel arguments");
    kernelParams += p.slots;
    paramsInOrder.push_back(std::move(p));
  }
}

void Kernel::parseDescriptorType(Param &p, const std::string &type,
                                 bool fromSignature) {
  auto bad = [&](const std::string &why) {
    raise(PyExc_ValueError, "kernel '" + name + "': parameter '" + p.name +
                                "' has type '" + type + "': " + why);
  };
  // tensordesc<ELEM[b0, b1, ...]>
  size_t open = type.find('['), close = type.rfind(']');
  if (type.back() != '>' || open == std::string::npos ||
      close == std::string::npos || close < open ||
      type.find_first_not_of(' ', close + 1) != type.size() - 1)
    bad("expected tensordesc<ELEMENT[block shape]>, e.g. "
        "tensordesc<fp16[64, 64]>");
  std::string elementName = type.substr(11, open - 11);
  elementName.erase(0, elementName.find_first_not_of(' '));
  elementName.erase(elementName.find_last_not_of(' ') + 1);
  p.element = canonicalType(elementName);
  if (p.element.empty())
    bad("unknown element type '" + elementName + "'");
  p.kind = Kind::TensorDesc;
  p.bits = bitsOf(p.element);
  auto desc = std::make_unique<DescriptorParam>();
  std::string dims = type.substr(open + 1, close - open - 1);
  size_t at = 0;
  while (at <= dims.size()) {
    size_t comma = dims.find(',', at);
    std::string item = dims.substr(
        at, comma == std::string::npos ? std::string::npos : comma - at);
    size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception &) {
      used = 0;
    }
    if (!used || item.find_first_not_of(' ', used) != std::string::npos)
      bad("the block shape must be integers, got '" + item + "'");
    desc->blockShape.push_back(value);
    if (comma == std::string::npos)
      break;
    at = comma + 1;
  }
  int rank = static_cast<int>(desc->blockShape.size());
  if (rank > kMaxTensorRank)
    bad("the TMA takes 1 to 5 dimensions, got " + std::to_string(rank));
  desc->dataType = tensorMapDataType(p.element);
  if (desc->dataType < 0)
    bad("the TMA cannot move " + p.element + " elements");
  desc->elementBytes = p.bits / 8;
  desc->floatingPoint = desc->dataType == TensorMapFloat16 ||
                        desc->dataType == TensorMapBFloat16 ||
                        desc->dataType == TensorMapFloat32 ||
                        desc->dataType == TensorMapFloat64;
  // The block the maps are encoded for: the signature's, or the slice of it
  // each CTA of a cluster moves (descriptor_blocks). The host descriptor is
  // still checked against the signature's block (packDescriptor).
  const std::vector<int64_t> *encoded = &desc->blockShape;
  std::string encodedText;
  if (fromSignature) {
    auto it = std::find_if(encodedBlocks.begin(), encodedBlocks.end(),
                           [&](const auto &e) { return e.first == p.name; });
    if (it != encodedBlocks.end()) {
      const std::vector<int64_t> &block = it->second;
      std::string given = "descriptor_blocks['" + p.name +
                          "'] = " + listText(block.data(), int(block.size()));
      if (static_cast<int>(block.size()) != rank)
        bad(given + " has " + std::to_string(block.size()) + " dimension" +
            (block.size() == 1 ? "" : "s") + ", the block " +
            std::to_string(rank));
      for (int d = 0; d < rank; ++d)
        if (block[d] < 1 || desc->blockShape[d] % block[d])
          bad(given + " has dimension " + std::to_string(d) + " = " +
              std::to_string(block[d]) +
              ", which is not a positive divisor of the block's " +
              std::to_string(desc->blockShape[d]));
      encoded = &block;
      encodedText = " (encoded for " + given + ")";
    }
  }
  desc->encoding = tma::encodingFor(p.bits, *encoded);
  const std::vector<int64_t> &box = desc->encoding.box;
  for (int d = 0; d < rank; ++d)
    if (box[d] < 1 || box[d] > tma::kMaxBoxDim)
      bad("a box dimension of " + std::to_string(box[d]) +
          " is outside the TMA's [1, 256]" + encodedText);
  if (box.back() * desc->elementBytes % tma::kMinInnerBoxBytes)
    bad("the innermost box spans " +
        std::to_string(box.back() * desc->elementBytes) +
        " bytes; the TMA needs a multiple of 16" + encodedText);
  p.slots = 1 + 2 * rank;
  p.desc = std::move(desc);
}

void Kernel::bindParams(const std::vector<std::string> &params) {
  for (Param &p : paramsInOrder) {
    auto it = std::find(params.begin(), params.end(), p.name);
    if (it == params.end())
      raise(PyExc_ValueError, "kernel '" + name + "': parameter '" + p.name +
                                  "' of the signature is not in params");
    p.index = static_cast<int>(it - params.begin());
  }
  allParams = params;
}

void Kernel::bindHostMaps(py::handle maps) {
  for (const Param &p : paramsInOrder) {
    if (p.kind == Kind::TensorDesc) {
      int rank = static_cast<int>(p.desc->blockShape.size());
      slotIntegerBits.push_back(0);
      slotIntegerBits.insert(slotIntegerBits.end(), rank, 32);
      slotIntegerBits.insert(slotIntegerBits.end(), rank, 64);
    } else {
      slotIntegerBits.push_back(p.kind == Kind::Int    ? p.bits
                                : p.kind == Kind::UInt ? -p.bits
                                                       : 0);
    }
  }
  auto bad = [&](const std::string &why) {
    raise(PyExc_ValueError, "kernel '" + name + "': host_tensor_maps: " + why);
  };
  // The parameter each slot starts, or none.
  std::vector<const Param *> startedBy(slotIntegerBits.size(), nullptr);
  for (size_t at = 0, i = 0; i < paramsInOrder.size();
       at += paramsInOrder[i++].slots)
    startedBy[at] = &paramsInOrder[i];
  auto slotOf = [&](long long arg, bool pointer) {
    if (arg < 0 || arg >= static_cast<long long>(slotIntegerBits.size()))
      bad("argument " + std::to_string(arg) + " is not one of the " +
          std::to_string(slotIntegerBits.size()) + " kernel parameters");
    int bits = std::abs(slotIntegerBits[arg]);
    if (pointer ? !startedBy[arg] || startedBy[arg]->kind != Kind::Pointer
                : bits != 32 && bits != 64)
      bad("argument " + std::to_string(arg) + " is not " +
          (pointer ? "a pointer" : "a 32- or 64-bit integer"));
    return static_cast<int>(arg);
  };
  for (auto item : py::reinterpret_borrow<py::iterable>(maps)) {
    py::dict m = py::reinterpret_borrow<py::dict>(item);
    if (m["param"].cast<long long>() != static_cast<long long>(kernelParams))
      bad("map parameter " + std::to_string(m["param"].cast<long long>()) +
          " does not follow the " + std::to_string(kernelParams) +
          " parameters before it");
    HostMap h;
    h.baseSlot = slotOf(m["base"].cast<long long>(), /*pointer=*/true);
    const Param *base = startedBy[h.baseSlot];
    auto block = m["block"].cast<std::vector<long long>>();
    std::string type = "tensordesc<" + base->element + "[";
    for (size_t d = 0; d < block.size(); ++d)
      type += (d ? ", " : "") + std::to_string(block[d]);
    h.param.name = base->name;
    h.param.index = base->index;
    // Named after its base pointer: no descriptor_blocks entry is its.
    parseDescriptorType(h.param, type + "]>", /*fromSignature=*/false);
    h.param.type = base->type + ", the base of a tensor map the compiler "
                                "made for its block loads";
    h.shape = m["shape"].cast<std::vector<int64_t>>();
    h.strides = m["strides"].cast<std::vector<int64_t>>();
    auto shapeArgs = m["shape_args"].cast<std::vector<long long>>();
    auto strideArgs = m["stride_args"].cast<std::vector<long long>>();
    if (h.shape.size() != block.size() || h.strides.size() != block.size() ||
        shapeArgs.size() != block.size() || strideArgs.size() != block.size())
      bad("each map needs a size and a stride per block dimension");
    for (long long a : shapeArgs)
      h.shapeSlots.push_back(a < 0 ? -1 : slotOf(a, false));
    for (long long a : strideArgs)
      h.strideSlots.push_back(a < 0 ? -1 : slotOf(a, false));
    hostMaps.push_back(std::move(h));
    ++kernelParams;
    ++descriptorParams;
  }
}

int64_t Kernel::slotInteger(const uint64_t *slots, int slot) const {
  switch (slotIntegerBits[slot]) {
  case 32:
    return static_cast<int32_t>(slots[slot]);
  case -32:
    return static_cast<uint32_t>(slots[slot]);
  default:
    return static_cast<int64_t>(slots[slot]);
  }
}

void Kernel::packHostMap(HostMap &h, const uint64_t *slots, CUtensorMap &map) {
  TensorMapKey key;
  key.rank = static_cast<int>(h.shape.size());
  key.address = static_cast<CUdeviceptr>(slots[h.baseSlot]);
  if (!key.address)
    raise(PyExc_ValueError,
          describeParam(h.param) + ": a null pointer, but the kernel reads "
                                   "blocks of it");
  for (int d = 0; d < key.rank; ++d) {
    key.shape[d] =
        h.shapeSlots[d] < 0 ? h.shape[d] : slotInteger(slots, h.shapeSlots[d]);
    key.strides[d] = h.strideSlots[d] < 0
                         ? h.strides[d]
                         : slotInteger(slots, h.strideSlots[d]);
  }
  findOrEncode(h.param, key, map);
}

std::string Kernel::imageBytes(py::handle image) {
  if (PyBytes_Check(image.ptr()))
    return std::string(PyBytes_AS_STRING(image.ptr()),
                       PyBytes_GET_SIZE(image.ptr()));
  if (PyUnicode_Check(image.ptr())) // PTX text
    return image.cast<std::string>();
  if (PyObject_CheckBuffer(image.ptr())) {
    py::buffer_info buffer =
        py::reinterpret_borrow<py::buffer>(image).request();
    return std::string(static_cast<const char *>(buffer.ptr),
                       buffer.size * buffer.itemsize);
  }
  raise(PyExc_TypeError, "the kernel image must be bytes (a cubin) or str "
                         "(PTX), not " +
                             std::string(Py_TYPE(image.ptr())->tp_name));
}

std::string Kernel::describeParam(const Param &p) const {
  return "kernel '" + name + "': argument '" + p.name + "' (index " +
         std::to_string(p.index) + ", " + p.type + ")";
}

std::string Kernel::describe(const Param &p) const {
  // The pointer checks, run on a descriptor's base, say so.
  return describingBase ? describeParam(p) + ": its base" : describeParam(p);
}

void Kernel::badArgumentCount(Py_ssize_t given) const {
  std::string expected;
  for (const Param &p : paramsInOrder)
    expected += (expected.empty() ? "" : ", ") + p.name + ": " + p.type;
  std::string message = "kernel '" + name + "' takes " +
                        std::to_string(paramsInOrder.size()) + " arguments (" +
                        expected + ")";
  if (!allParams.empty() && allParams.size() != paramsInOrder.size()) {
    std::string all;
    for (const std::string &p : allParams)
      all += (all.empty() ? "" : ", ") + p;
    message += " or all " + std::to_string(allParams.size()) +
               " of its parameters (" + all + ")";
  }
  raise(PyExc_TypeError, message + ", got " + std::to_string(given));
}

void Kernel::checkElement(const Param &p, const std::string &element, int bits,
                          const std::string &what) const {
  bool ok = element.empty() ? bits == p.bits : element == p.element;
  if (ok)
    return;
  if (p.kind == Kind::TensorDesc)
    raise(PyExc_TypeError, describeParam(p) + ": the kernel was compiled for " +
                               p.element + " elements, but the base is " +
                               what);
  raise(PyExc_TypeError,
        describe(p) + ": expected a pointer to " + p.element + ", got " + what);
}

void Kernel::checkDtype(Param &p, PyObject *obj) {
  // A torch dtype is one object per type: once accepted, the identity test
  // is all a warm launch pays.
  static PyObject *dtypeName = PyUnicode_InternFromString("dtype");
  PyObject *dtype = PyObject_GetAttr(obj, dtypeName);
  if (!dtype) {
    PyErr_Clear();
    return;
  }
  py::object owned = py::reinterpret_steal<py::object>(dtype);
  if (dtype == p.verifiedDtype.ptr())
    return;
  std::string text = py::str(owned);
  std::string element = canonicalType(text);
  if (element.empty())
    raise(PyExc_TypeError,
          describe(p) + ": tensors of dtype " + text + " are not supported");
  checkElement(p, element, bitsOf(element), "a " + text + " tensor");
  p.verifiedDtype = owned;
}

void Kernel::checkDevicePointer(const Param &p, PyObject *obj,
                                CUdeviceptr ptr) {
  // An address in an allocation already found good needs no driver call:
  // torch's caching allocator carves tensors out of a few large segments,
  // so a warm launch's pointers almost always hit.  (Pageable host memory
  // never lies in the range of a device allocation, freed or not: the
  // driver reserves those addresses.)
  for (const CheckedRange &range : checkedRanges)
    if (ptr - range.start < range.size)
      return;
  unsigned memoryType = MemoryUnknown;
  int ordinal = -1;
  unsigned long long managed = 0; // the driver writes a bool
  CUdeviceptr start = 0;
  size_t size = 0;
  int attributes[] = {PointerMemoryType, PointerDeviceOrdinal,
                      PointerIsManaged, PointerRangeStartAddr,
                      PointerRangeSize};
  void *values[] = {&memoryType, &ordinal, &managed, &start, &size};
  CUresult result = api->cuPointerGetAttributes(5, attributes, values, ptr);
  if (result != CUDA_SUCCESS)
    memoryType = MemoryUnknown; // reported below, with the driver's error
  if (memoryType == MemoryDevice || memoryType == MemoryUnified) {
    if (managed || ordinal == device) {
      if (size > 0 && ptr - start < size) {
        checkedRanges[nextRange] = {start, size};
        nextRange = (nextRange + 1) % kCheckedRanges;
      }
      return;
    }
    raise(PyExc_ValueError,
          describe(p) + " is memory on cuda:" + std::to_string(ordinal) +
              ", but the kernel runs on cuda:" + std::to_string(device) +
              " (the current device): move it, or launch with cuda:" +
              std::to_string(ordinal) + " current (torch.cuda.device(" +
              std::to_string(ordinal) + "))");
  }
  std::ostringstream address;
  address << "0x" << std::hex << ptr;
  std::string where =
      memoryType == MemoryHost ? "host memory (page-locked)" : "host memory";
  // For a tensor, say where it is in its own words ("cpu").
  std::string tensorDevice;
  if (PyObject *d = PyObject_GetAttrString(obj, "device")) {
    tensorDevice = py::str(py::reinterpret_steal<py::object>(d));
  } else {
    PyErr_Clear();
  }
  if (result != CUDA_SUCCESS)
    address << ", cuPointerGetAttributes: "
            << warpforge::cuda::describe(result);
  raise(
      PyExc_ValueError,
      describe(p) + " points to " + where + " (" + address.str() + ")" +
          (tensorDevice.empty() ? "" : ": it is a tensor on " + tensorDevice) +
          "; kernels take GPU memory (a CPU tensor? move it to cuda:" +
          std::to_string(device) + ")");
}

CUdeviceptr Kernel::pointerOf(Param &p, PyObject *obj, CUstream stream) {
  if (obj == Py_None)
    return 0;
  if (PyLong_CheckExact(obj)) { // a raw address
    CUdeviceptr ptr = PyLong_AsUnsignedLongLong(obj);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_OverflowError,
            describe(p) + ": an address must be an integer in [0, 2**64)");
    }
    if (ptr)
      checkDevicePointer(p, obj, ptr);
    return ptr;
  }
  static PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  if (PyObject *value = PyObject_CallMethodNoArgs(obj, dataPtr)) { // torch
    CUdeviceptr ptr = PyLong_AsUnsignedLongLong(value);
    Py_DECREF(value);
    if (PyErr_Occurred())
      throw py::error_already_set();
    checkDtype(p, obj);
    if (ptr)
      checkDevicePointer(p, obj, ptr);
    return ptr;
  }
  if (!PyErr_ExceptionMatches(PyExc_AttributeError))
    throw py::error_already_set();
  PyErr_Clear();
  py::handle handle(obj);
  if (py::hasattr(handle, "__cuda_array_interface__")) {
    py::object iface = handle.attr("__cuda_array_interface__");
    CUdeviceptr ptr;
    std::string typestr;
    try {
      ptr = iface["data"].cast<py::tuple>()[0].cast<CUdeviceptr>();
      typestr = iface["typestr"].cast<std::string>();
    } catch (const py::error_already_set &) {
      raise(PyExc_TypeError, describe(p) +
                                 ": __cuda_array_interface__ lacks 'data' "
                                 "(address, read-only) or 'typestr'");
    } catch (const py::cast_error &) {
      raise(PyExc_TypeError, describe(p) +
                                 ": __cuda_array_interface__ lacks 'data' "
                                 "(address, read-only) or 'typestr'");
    }
    checkElement(p, typestrElement(typestr),
                 typestr.size() > 2 ? 8 * std::atoi(typestr.c_str() + 2) : 0,
                 "an array of typestr '" + typestr + "'");
    if (ptr)
      checkDevicePointer(p, obj, ptr);
    return ptr;
  }
  if (py::hasattr(handle, "__dlpack__") &&
      py::hasattr(handle, "__dlpack_device__")) {
    auto where = handle.attr("__dlpack_device__")().cast<py::tuple>();
    int32_t type = where[0].cast<int32_t>(), id = where[1].cast<int32_t>();
    if (type != kDLCUDA && type != kDLCUDAManaged)
      raise(PyExc_ValueError,
            describe(p) + " is on " + dlpackDeviceName(type, id) +
                "; kernels take GPU memory (move it to cuda:" +
                std::to_string(device) + ")");
    if (type == kDLCUDA && id != device)
      raise(PyExc_ValueError,
            describe(p) + " is memory on cuda:" + std::to_string(id) +
                ", but the kernel runs on cuda:" + std::to_string(device) +
                " (the current device)");
    // The producer makes `stream` wait for the tensor's pending work. In
    // DLPack, 1 is the legacy default stream (our handle 0).
    uintptr_t handleValue = reinterpret_cast<uintptr_t>(stream);
    py::object capsule = handle.attr("__dlpack__")(
        py::arg("stream") = handleValue ? handleValue : 1);
    auto *managedTensor = static_cast<DLManagedTensor *>(
        PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
    if (!managedTensor)
      throw py::error_already_set();
    // The capsule keeps its name, so its destructor returns the tensor to
    // its producer; `obj` keeps the memory alive.
    const DLTensor &t = managedTensor->dl_tensor;
    checkElement(p, dlpackElement(t.dtype), t.dtype.bits,
                 "a DLPack tensor of type code " +
                     std::to_string(t.dtype.code) + " with " +
                     std::to_string(t.dtype.bits) + " bits");
    CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(t.data) + t.byte_offset;
    if (ptr)
      checkDevicePointer(p, obj, ptr);
    return ptr;
  }
  raise(PyExc_TypeError,
        describe(p) +
            " must be a tensor (with data_ptr()), an object with "
            "__cuda_array_interface__ or __dlpack__, an int "
            "address or None, not " +
            std::string(Py_TYPE(obj)->tp_name));
}

// Inlined into both launch loops: the warm path of scalar arguments.
__attribute__((always_inline)) inline uint64_t
Kernel::scalarOf(const Param &p, PyObject *obj) const {
  uint64_t slot = 0;
  switch (p.kind) {
  case Kind::Bool:
  case Kind::Int:
  case Kind::UInt: {
    py::object owned;
    if (!PyLong_Check(obj)) {
      PyObject *index = PyNumber_Index(obj); // numpy integers
      if (!index) {
        PyErr_Clear();
        raise(PyExc_TypeError, describe(p) + " must be an int, not " +
                                   std::string(Py_TYPE(obj)->tp_name));
      }
      owned = py::reinterpret_steal<py::object>(index);
      obj = index;
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
    if (p.kind == Kind::UInt && overflow > 0) {
      unsigned long long u = PyLong_AsUnsignedLongLong(obj);
      if (!PyErr_Occurred() && p.bits == 64)
        return u;
      PyErr_Clear();
    } else if (!overflow && value == -1 && PyErr_Occurred()) {
      throw py::error_already_set();
    }
    long long lo, hi;
    unsigned long long uhi = 0;
    if (p.kind == Kind::Bool) {
      lo = 0, hi = 1;
    } else if (p.kind == Kind::Int) {
      hi = p.bits == 64 ? std::numeric_limits<long long>::max()
                        : (1LL << (p.bits - 1)) - 1;
      lo = -hi - 1;
    } else {
      lo = 0;
      hi = p.bits == 64 ? std::numeric_limits<long long>::max()
                        : (1LL << p.bits) - 1;
      uhi = p.bits == 64 ? std::numeric_limits<unsigned long long>::max()
                         : static_cast<unsigned long long>(hi);
    }
    if (overflow || value < lo || value > hi) {
      std::string range =
          "[" + std::to_string(lo) + ", " +
          (p.kind == Kind::UInt ? std::to_string(uhi) : std::to_string(hi)) +
          "]";
      raise(PyExc_OverflowError, describe(p) + ": " +
                                     std::string(py::str(obj)) +
                                     " is out of range " + range);
    }
    std::memcpy(&slot, &value, sizeof value); // little-endian: low bytes
    return slot;
  }
  default:
    break;
  }
  double value;
  if (PyFloat_CheckExact(obj)) {
    value = PyFloat_AS_DOUBLE(obj);
  } else {
    value = PyFloat_AsDouble(obj); // ints, numpy floats
    if (value == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_TypeError, describe(p) + " must be a float, not " +
                                 std::string(Py_TYPE(obj)->tp_name));
    }
  }
  switch (p.kind) {
  case Kind::F16:
    slot = roundToHalfFormat(value, 5, 10);
    break;
  case Kind::BF16:
    slot = roundToHalfFormat(value, 8, 7);
    break;
  case Kind::F32: {
    float f = static_cast<float>(value);
    std::memcpy(&slot, &f, sizeof f);
    break;
  }
  default:
    std::memcpy(&slot, &value, sizeof value);
    break;
  }
  return slot;
}

//===----------------------------------------------------------------------===//
// Tensor descriptors.
//===----------------------------------------------------------------------===//

void Kernel::readDimensions(const Param &p, PyObject *obj, PyObject *attribute,
                            const char *what, int64_t *out) const {
  const int rank = static_cast<int>(p.desc->blockShape.size());
  PyObject *value = PyObject_GetAttr(obj, attribute);
  if (!value)
    throw py::error_already_set(); // checked present by the caller
  py::object owned = py::reinterpret_steal<py::object>(value);
  PyObject *fast = PySequence_Fast(value, "");
  if (!fast) {
    PyErr_Clear();
    raise(PyExc_TypeError, describeParam(p) + ": its " + what +
                               " must be a sequence of ints, not " +
                               std::string(Py_TYPE(value)->tp_name));
  }
  py::object ownedFast = py::reinterpret_steal<py::object>(fast);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  if (n != rank)
    raise(PyExc_TypeError, describeParam(p) + ": its " + what + " has " +
                               std::to_string(n) + " dimension" +
                               (n == 1 ? "" : "s") +
                               ", but the kernel was compiled for a rank-" +
                               std::to_string(rank) + " descriptor");
  PyObject **items = PySequence_Fast_ITEMS(fast);
  for (int d = 0; d < rank; ++d) {
    PyObject *item = items[d];
    py::object index;
    if (!PyLong_Check(item)) {
      PyObject *converted = PyNumber_Index(item); // numpy ints, torch sizes
      if (!converted) {
        PyErr_Clear();
        raise(PyExc_TypeError, describeParam(p) + ": its " + what +
                                   " must be a sequence of ints, got " +
                                   std::string(Py_TYPE(item)->tp_name) +
                                   " at dimension " + std::to_string(d));
      }
      index = py::reinterpret_steal<py::object>(converted);
      item = converted;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow)
      raise(PyExc_ValueError,
            describeParam(p) + ": its " + what + " " +
                std::string(py::str(owned)) + " has dimension " +
                std::to_string(d) + " = " + std::string(py::str(item)) +
                ", which does not fit in 64 bits" +
                (std::string(what) == "strides"
                     ? std::string(" (the kernel's int64 stride parameter)")
                     : std::string()));
    if (v == -1 && PyErr_Occurred())
      throw py::error_already_set();
    out[d] = v;
  }
}

void Kernel::encodeTensorMap(const Param &p, const TensorMapKey &key,
                             CUtensorMap &map) const {
  const DescriptorParam &desc = *p.desc;
  const int rank = key.rank;
  // The driver's order is innermost first.
  uint64_t dims[kMaxTensorRank], strides[kMaxTensorRank];
  uint32_t box[kMaxTensorRank], elementStrides[kMaxTensorRank];
  for (int i = 0; i < rank; ++i) {
    dims[i] = static_cast<uint64_t>(key.shape[rank - 1 - i]);
    box[i] = static_cast<uint32_t>(desc.encoding.box[rank - 1 - i]);
    elementStrides[i] = 1;
  }
  for (int i = 0; i + 1 < rank; ++i)
    strides[i] =
        static_cast<uint64_t>(key.strides[rank - 2 - i]) * desc.elementBytes;
  int swizzle = TensorMapSwizzleNone;
  switch (desc.encoding.swizzleBytes) {
  case 32:
    swizzle = TensorMapSwizzle32B;
    break;
  case 64:
    swizzle = TensorMapSwizzle64B;
    break;
  case 128:
    swizzle = TensorMapSwizzle128B;
    break;
  default:
    break;
  }
  int fill =
      key.nanPadding ? TensorMapOOBFillNanRequestZeroFma : TensorMapOOBFillNone;
  if (!api->cuTensorMapEncodeTiled)
    throw DriverUnavailable(
        "kernel '" + name + "' takes tensor descriptors (argument '" + p.name +
        "'), but the CUDA driver library '" + libraryPath() +
        "' lacks cuTensorMapEncodeTiled: it needs a CUDA 12.0 driver or newer");
  CUresult result = api->cuTensorMapEncodeTiled(
      &map, desc.dataType, static_cast<uint32_t>(rank),
      reinterpret_cast<void *>(key.address), dims, strides, box, elementStrides,
      TensorMapInterleaveNone, swizzle, TensorMapL2Promotion128B, fill);
  if (result != CUDA_SUCCESS)
    raise(PyExc_ValueError,
          describeParam(p) + ": cuTensorMapEncodeTiled failed: " +
              warpforge::cuda::describe(result) +
              "; it was given (innermost "
              "dimension first) data type " +
              dataTypeName(desc.dataType) + ", rank " + std::to_string(rank) +
              ", address " + hexText(key.address) + ", dims " +
              listText(dims, rank) + ", strides " +
              listText(strides, rank - 1) + " bytes, box " +
              listText(box, rank) + ", swizzle " +
              (desc.encoding.swizzleBytes
                   ? std::to_string(desc.encoding.swizzleBytes) + "B"
                   : std::string("none")) +
              ", padding " + (key.nanPadding ? "nan" : "zero"));
}

void Kernel::packDescriptor(Param &p, PyObject *obj, CUstream stream,
                            CUtensorMap &map, uint64_t *slots) {
  DescriptorParam &desc = *p.desc;
  const int rank = static_cast<int>(desc.blockShape.size());
  static PyObject *baseName = PyUnicode_InternFromString("base");
  static PyObject *shapeName = PyUnicode_InternFromString("shape");
  static PyObject *stridesName = PyUnicode_InternFromString("strides");
  static PyObject *blockName = PyUnicode_InternFromString("block_shape");
  static PyObject *paddingName = PyUnicode_InternFromString("padding");
  static PyObject *dtypeName = PyUnicode_InternFromString("dtype");
  static PyObject *nanText = PyUnicode_InternFromString("nan");
  static PyObject *zeroText = PyUnicode_InternFromString("zero");

  PyObject *base = PyObject_GetAttr(obj, baseName);
  if (!base || !PyObject_HasAttr(obj, shapeName) ||
      !PyObject_HasAttr(obj, stridesName) ||
      !PyObject_HasAttr(obj, blockName)) {
    Py_XDECREF(base);
    PyErr_Clear();
    raise(PyExc_TypeError,
          describeParam(p) +
              " must be a TensorDescriptor "
              "(warpforge.tools.tensor_descriptor.TensorDescriptor."
              "from_tensor(tensor, block_shape)) or an object with base, "
              "shape, strides and block_shape, not " +
              std::string(Py_TYPE(obj)->tp_name));
  }
  py::object ownedBase = py::reinterpret_steal<py::object>(base);

  // What the kernel was compiled for: the block shape and the element type.
  int64_t block[kMaxTensorRank];
  readDimensions(p, obj, blockName, "block_shape", block);
  if (!std::equal(block, block + rank, desc.blockShape.begin()))
    raise(PyExc_TypeError, describeParam(p) + ": its block shape " +
                               listText(block, rank) + " differs from " +
                               listText(desc.blockShape.data(), rank) +
                               ", the one the kernel was compiled for");
  if (PyObject *dtype = PyObject_GetAttr(obj, dtypeName)) {
    py::object owned = py::reinterpret_steal<py::object>(dtype);
    if (dtype != desc.acceptedDtype.ptr() && PyUnicode_Check(dtype)) {
      std::string text = py::str(owned);
      if (canonicalType(text) != p.element)
        raise(PyExc_TypeError,
              describeParam(p) + ": the kernel was compiled for " + p.element +
                  " elements, but the descriptor's dtype is " + text);
      desc.acceptedDtype = owned;
    }
  } else {
    PyErr_Clear(); // Triton's descriptors have none: the base tells
  }

  TensorMapKey key;
  key.rank = rank;
  readDimensions(p, obj, shapeName, "shape", key.shape);
  readDimensions(p, obj, stridesName, "strides", key.strides);
  if (PyObject *padding = PyObject_GetAttr(obj, paddingName)) {
    py::object owned = py::reinterpret_steal<py::object>(padding);
    auto is = [&](PyObject *interned, const char *text) {
      return padding == interned ||
             (PyUnicode_Check(padding) &&
              PyUnicode_CompareWithASCIIString(padding, text) == 0);
    };
    if (is(nanText, "nan"))
      key.nanPadding = true;
    else if (padding != Py_None && !is(zeroText, "zero"))
      raise(PyExc_ValueError, describeParam(p) +
                                  ": its padding must be 'zero' or 'nan', "
                                  "got " +
                                  std::string(py::repr(owned)));
  } else {
    PyErr_Clear(); // none: zeros, as Triton's default
  }

  describingBase = true;
  CUdeviceptr address;
  try {
    address = pointerOf(p, base, stream);
  } catch (...) {
    describingBase = false;
    throw;
  }
  describingBase = false;
  if (!address)
    raise(PyExc_ValueError, describeParam(p) + ": its base is a null pointer");
  key.address = address;

  // The expanded scalars: shape as int32, strides as int64.
  for (int d = 0; d < rank; ++d) {
    uint32_t dim = static_cast<uint32_t>(key.shape[d]);
    slots[d] = dim;
    slots[rank + d] = static_cast<uint64_t>(key.strides[d]);
  }

  findOrEncode(p, key, map);
}

/// The cached map of `key` for `p`, or a new one, after the TMA's rules.
void Kernel::findOrEncode(Param &p, const TensorMapKey &key,
                          CUtensorMap &map) {
  DescriptorParam &desc = *p.desc;
  const int rank = key.rank;
  const CUdeviceptr address = key.address;
  for (const DescriptorParam::Entry &entry : desc.cache)
    if (entry.valid && entry.key == key) {
      map = entry.map;
      return;
    }

  // A new map: the TMA's rules first, each with its own message.
  auto bad = [&](const std::string &why) {
    raise(PyExc_ValueError, describeParam(p) + ": " + why);
  };
  if (address % tma::kGlobalAlign)
    bad("its base address " + hexText(address) +
        " is not 16-byte aligned (the TMA needs 16)");
  std::string shapeText = listText(key.shape, rank);
  std::string stridesText = listText(key.strides, rank);
  for (int d = 0; d < rank; ++d) {
    int64_t dim = key.shape[d];
    if (dim < 1)
      bad("its shape " + shapeText + " has dimension " + std::to_string(d) +
          " = " + std::to_string(dim) + "; every dimension must be positive");
    if (dim > (int64_t(1) << 32))
      bad("its shape " + shapeText + " has dimension " + std::to_string(d) +
          " = " + std::to_string(dim) + ", over the TMA's limit of 2**32");
    if (dim > std::numeric_limits<int32_t>::max())
      bad("its shape " + shapeText + " has dimension " + std::to_string(d) +
          " = " + std::to_string(dim) +
          ", which does not fit the kernel's int32 shape parameter");
  }
  if (key.strides[rank - 1] != 1)
    bad("its strides " + stridesText +
        " do not end in 1: the TMA needs the innermost dimension contiguous");
  for (int d = 0; d + 1 < rank; ++d) {
    int64_t stride = key.strides[d];
    if (stride < 0)
      bad("its strides " + stridesText + " have dimension " +
          std::to_string(d) + " = " + std::to_string(stride) +
          "; the TMA takes no negative strides");
    if (stride >= (int64_t(1) << 40) / desc.elementBytes)
      bad("its strides " + stridesText + " have dimension " +
          std::to_string(d) + " = " + std::to_string(stride) +
          " elements, 2**40 bytes or more: over the TMA's limit");
    int64_t bytes = stride * desc.elementBytes;
    if (bytes % tma::kGlobalAlign)
      bad("its strides " + stridesText + " have dimension " +
          std::to_string(d) + " = " + std::to_string(stride) + " elements, " +
          std::to_string(bytes) +
          " bytes; the TMA needs a multiple of 16 bytes");
  }
  if (key.nanPadding && !desc.floatingPoint)
    bad("padding='nan' needs 16-, 32- or 64-bit floats, but the TMA moves " +
        p.element + " elements as " + dataTypeName(desc.dataType));

  DescriptorParam::Entry &entry = desc.cache[desc.next];
  entry.valid = false;
  encodeTensorMap(p, key, entry.map);
  ++desc.encodes;
  entry.key = key;
  entry.valid = true;
  desc.next = (desc.next + 1) % DescriptorParam::kCached;
  map = entry.map;
}

void Kernel::launchWith(long long gx, long long gy, long long gz,
                        py::handle stream, py::handle args,
                        const unsigned long long *addresses,
                        const unsigned char *known) {
  PyObject *seq = args.ptr();
  PyObject **items;
  Py_ssize_t count;
  if (PyTuple_Check(seq)) {
    items = &PyTuple_GET_ITEM(seq, 0);
    count = PyTuple_GET_SIZE(seq);
  } else if (PyList_Check(seq)) {
    items = &PyList_GET_ITEM(seq, 0);
    count = PyList_GET_SIZE(seq);
  } else {
    raise(PyExc_TypeError, "kernel '" + name +
                               "': the arguments must be a tuple or a list, "
                               "not " +
                               std::string(Py_TYPE(seq)->tp_name));
  }
  const size_t n = paramsInOrder.size();
  // All of the Python function's parameters (the JIT's call), or only the
  // kernel's: both are exact, and agree when every parameter is run-time.
  bool byIndex;
  if (!allParams.empty() && static_cast<size_t>(count) == allParams.size())
    byIndex = true;
  else if (static_cast<size_t>(count) == n)
    byIndex = false;
  else
    badArgumentCount(count);

  long long grid[3] = {gx, gy, gz};
  for (int axis = 0; axis < 3; ++axis)
    if (grid[axis] < 0 || grid[axis] > info->maxGridDim[axis])
      raise(PyExc_ValueError, "kernel '" + name + "': grid " + "xyz"[axis] +
                                  " = " + std::to_string(grid[axis]) +
                                  " is outside [0, " +
                                  std::to_string(info->maxGridDim[axis]) + "]");
  // The grid counts programs; each is num_ctas CTAs along x, and the
  // driver's x limit counts CTAs.
  if (numCtas > 1 && gx * numCtas > info->maxGridDim[0])
    raise(PyExc_ValueError,
          "kernel '" + name + "': grid x = " + std::to_string(gx) +
              " programs of num_ctas=" + std::to_string(numCtas) +
              " CTAs each is " + std::to_string(gx * numCtas) +
              " CTAs along x, over the device's limit of " +
              std::to_string(info->maxGridDim[0]) + "; use at most " +
              std::to_string(info->maxGridDim[0] / numCtas) +
              " programs along x");

  CUstream cuStream = nullptr;
  if (!stream.is_none()) {
    unsigned long long handle = PyLong_AsUnsignedLongLong(stream.ptr());
    if (PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_TypeError, "kernel '" + name +
                                 "': the stream must be a CUstream handle "
                                 "(a non-negative int) or None");
    }
    cuStream = reinterpret_cast<CUstream>(handle);
  }

  if (descriptorParams) {
    launchWithDescriptors(gx, gy, gz, cuStream, items, byIndex);
    return;
  }
  // One 8-byte slot per kernel parameter (and the scratch pointer's).
  constexpr size_t kInline = 32;
  uint64_t inlineSlots[kInline];
  void *inlinePointers[kInline];
  std::vector<uint64_t> heapSlots;
  std::vector<void *> heapPointers;
  uint64_t *slots = inlineSlots;
  void **pointers = inlinePointers;
  if (kernelParams > kInline) {
    heapSlots.resize(kernelParams);
    heapPointers.resize(kernelParams);
    slots = heapSlots.data();
    pointers = heapPointers.data();
  }
  for (size_t i = 0; i < n; ++i) {
    Param &p = paramsInOrder[i];
    size_t at = byIndex ? p.index : i;
    PyObject *obj = items[at];
    if (p.kind == Kind::Pointer && known && known[at]) {
      CUdeviceptr ptr = addresses[at];
      if (ptr)
        checkDevicePointer(p, obj, ptr);
      slots[i] = ptr;
    } else {
      slots[i] = p.kind == Kind::Pointer ? pointerOf(p, obj, cuStream)
                                         : scalarOf(p, obj);
    }
    pointers[i] = &slots[i];
  }
  enqueue(gx, gy, gz, cuStream, slots, pointers, n);
}

// Not inlined into launch(): its 64-byte aligned maps would realign and grow
// the stack frame of every launch.
__attribute__((noinline)) void
Kernel::launchWithDescriptors(long long gx, long long gy, long long gz,
                              CUstream cuStream, PyObject **items,
                              bool byIndex) {
  // Tensor maps live in `maps`, copied from the cache: another thread may
  // re-encode the cached one while this launch is being enqueued. Their
  // shape and stride parameters use the slots after the map's (4-byte ones
  // the low half of theirs).
  constexpr size_t kInline = 64, kInlineMaps = 4;
  uint64_t inlineSlots[kInline];
  void *inlinePointers[kInline];
  CUtensorMap inlineMaps[kInlineMaps];
  std::vector<uint64_t> heapSlots;
  std::vector<void *> heapPointers;
  std::vector<CUtensorMap> heapMaps;
  uint64_t *slots = inlineSlots;
  void **pointers = inlinePointers;
  CUtensorMap *maps = inlineMaps;
  if (kernelParams > kInline) {
    heapSlots.resize(kernelParams);
    heapPointers.resize(kernelParams);
    slots = heapSlots.data();
    pointers = heapPointers.data();
  }
  if (descriptorParams > kInlineMaps) {
    heapMaps.resize(descriptorParams);
    maps = heapMaps.data();
  }
  size_t slot = 0, mapCount = 0;
  for (Param &p : paramsInOrder) {
    PyObject *obj = items[byIndex ? p.index : &p - paramsInOrder.data()];
    if (p.kind == Kind::TensorDesc) {
      CUtensorMap &map = maps[mapCount++];
      packDescriptor(p, obj, cuStream, map, slots + slot + 1);
      pointers[slot] = &map;
      for (int s = 1; s < p.slots; ++s)
        pointers[slot + s] = &slots[slot + s];
      slot += p.slots;
      continue;
    }
    slots[slot] = p.kind == Kind::Pointer ? pointerOf(p, obj, cuStream)
                                          : scalarOf(p, obj);
    pointers[slot] = &slots[slot];
    ++slot;
  }
  // The compiler's maps, from the arguments just packed.
  for (HostMap &h : hostMaps) {
    CUtensorMap &map = maps[mapCount++];
    packHostMap(h, slots, map);
    pointers[slot++] = &map;
  }
  enqueue(gx, gy, gz, cuStream, slots, pointers, slot);
}

py::object Kernel::allocateGlobalScratch(long long gx, long long gy,
                                         long long gz, CUstream cuStream,
                                         uint64_t &slot) {
  // The kernel finds its slice from its CTA's linear id, %ctaid.x +
  // %nctaid.x * (%ctaid.y + %nctaid.y * %ctaid.z) (TMAOpToLLVM.cpp): with
  // clusters, every CTA of a program has its own, so there are gx * num_ctas
  // * gy * gz slices (at most 2**31 * 2**32: no overflow).
  unsigned long long ctas = static_cast<unsigned long long>(gx) * numCtas *
                            static_cast<unsigned long long>(gy) *
                            static_cast<unsigned long long>(gz);
  unsigned long long bytes;
  if (__builtin_mul_overflow(
          ctas, static_cast<unsigned long long>(globalScratchSize), &bytes) ||
      bytes > static_cast<unsigned long long>(
                  std::numeric_limits<long long>::max()))
    raise(PyExc_ValueError,
          "kernel '" + name + "': " + std::to_string(ctas) +
              (numCtas > 1 ? " CTAs (clusters of num_ctas=" +
                                 std::to_string(numCtas) + ")"
                           : std::string(" programs")) +
              " of " + std::to_string(globalScratchSize) +
              " bytes of global scratch each overflow 64 bits");
  if (!allocateScratch)
    allocateScratch = py::module_::import("warpforge.runtime.allocation")
                          .attr("allocate_scratch");
  py::object result = allocateScratch(
      static_cast<long long>(bytes), globalScratchAlign,
      static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(cuStream)),
      globalScratchImplicit);
  auto pair = result.cast<py::tuple>();
  slot = pair[0].cast<unsigned long long>();
  return pair[1];
}

/// cuLaunchKernelEx with the launch's attributes: programmatic dependent
/// launch, a cooperative grid, clusters, or any of them together. `gx`
/// counts programs: the launch runs num_ctas CTAs for each.
CUresult Kernel::launchWithAttributes(long long gx, long long gy, long long gz,
                                      CUstream cuStream, void **pointers) {
  CUlaunchAttribute attributes[3]{};
  unsigned count = 0;
  if (launchPdl) {
    attributes[count].id = LaunchAttributeProgrammaticStreamSerialization;
    attributes[count++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (launchCooperativeGrid) {
    attributes[count].id = LaunchAttributeCooperative;
    attributes[count++].value.cooperative = 1;
  }
  if (numCtas > 1) {
    attributes[count].id = LaunchAttributeClusterDimension;
    attributes[count].value.clusterDim.x = static_cast<unsigned>(numCtas);
    attributes[count].value.clusterDim.y = 1;
    attributes[count++].value.clusterDim.z = 1;
  }
  CUlaunchConfig config{};
  config.gridDimX = static_cast<unsigned>(gx * numCtas);
  config.gridDimY = static_cast<unsigned>(gy);
  config.gridDimZ = static_cast<unsigned>(gz);
  config.blockDimX = loaded->threads();
  config.blockDimY = config.blockDimZ = 1;
  config.sharedMemBytes = loaded->dynamicShared();
  config.hStream = cuStream;
  config.attrs = attributes;
  config.numAttrs = count;
  return api->cuLaunchKernelEx(&config, loaded->function(), pointers, nullptr);
}

__attribute__((always_inline)) inline void
Kernel::enqueue(long long gx, long long gy, long long gz, CUstream cuStream,
                uint64_t *slots, void **pointers, size_t slot) {
  if (gx == 0 || gy == 0 || gz == 0)
    return;
  // Global scratch, last: the allocator's buffer stays alive (`scratch`)
  // until the launch is enqueued; its caching allocator orders reuse on the
  // stream, as in Triton.
  py::object scratch;
  if (globalScratchSize > 0) {
    scratch = allocateGlobalScratch(gx, gy, gz, cuStream, slots[slot]);
    pointers[slot] = &slots[slot];
  }

  CUcontext current = nullptr;
  check(api->cuCtxGetCurrent(&current), "cuCtxGetCurrent", name);
  CUcontext context = loaded->context();
  if (current != context)
    check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent", name);
  CUresult result;
  {
    py::gil_scoped_release release;
    if (launchEx) {
      result = launchWithAttributes(gx, gy, gz, cuStream, pointers);
    } else {
      result = api->cuLaunchKernel(
          loaded->function(), static_cast<unsigned>(gx),
          static_cast<unsigned>(gy), static_cast<unsigned>(gz),
          loaded->threads(), 1, 1, loaded->dynamicShared(), cuStream, pointers,
          nullptr);
    }
  }
  // Another device's context stays the thread's current one.
  if (current && current != context)
    api->cuCtxSetCurrent(current);
  // CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE
  if (result == 720)
    fail("cuLaunchKernelEx", result, name,
         "(launch_cooperative_grid=True: the " + std::to_string(gx * gy * gz) +
             " programs of the grid" +
             (numCtas > 1
                  ? " (" + std::to_string(gx * numCtas * gy * gz) +
                        " CTAs in clusters of " + std::to_string(numCtas) + ")"
                  : std::string()) +
             " cannot all be resident on the device at once; use a grid of "
             "at most the SM count times the programs per SM the kernel's "
             "registers and shared memory allow)");
  // CUDA_ERROR_INVALID_CLUSTER_SIZE: the driver found no way to place a
  // cluster's CTAs together (on the SMs of one GPC), each with this
  // kernel's shared memory and threads.
  if (result == 912 && numCtas > 1)
    fail("cuLaunchKernelEx", result, name,
         "(num_ctas=" + std::to_string(numCtas) + ": a cluster of " +
             std::to_string(numCtas) + " CTAs, each with " +
             std::to_string(loaded->dynamicShared() +
                            loaded->staticSharedBytes) +
             " bytes of shared memory and " +
             std::to_string(loaded->threads()) +
             " threads, cannot be scheduled on this device; compile with "
             "fewer CTAs per cluster (num_ctas) or less shared memory)");
  if (result != CUDA_SUCCESS)
    fail(launchEx ? "cuLaunchKernelEx" : "cuLaunchKernel", result, name);
}

//===----------------------------------------------------------------------===//
// Exceptions.
//===----------------------------------------------------------------------===//

void translateExceptions(std::exception_ptr error) {
  try {
    if (error)
      std::rethrow_exception(error);
  } catch (const ResourceError &e) {
    py::object cls =
        py::module_::import("warpforge.errors").attr("OutOfResources");
    py::object value = cls(e.kernel, e.resource, e.required, e.limit, e.hint);
    PyErr_SetObject(cls.ptr(), value.ptr());
  } catch (const DriverError &e) {
    py::object cls = py::module_::import("warpforge.errors").attr("CudaError");
    py::object value =
        cls(e.what(), e.call, e.errorName, e.errorString, e.kernel, e.code);
    PyErr_SetObject(cls.ptr(), value.ptr());
  } catch (const DriverUnavailable &e) {
    py::object cls =
        py::module_::import("warpforge.errors").attr("DriverUnavailable");
    py::object value = cls(e.what());
    PyErr_SetObject(cls.ptr(), value.ptr());
  }
}

//===----------------------------------------------------------------------===//
// The JIT's warm launch.
//===----------------------------------------------------------------------===//

/// Sets the Python error of the exception being handled (translated as the
/// pybind11 functions' are).
void setPythonError() {
  try {
    throw;
  } catch (py::error_already_set &e) {
    e.restore();
  } catch (const std::exception &e) {
    try {
      translateExceptions(std::current_exception());
    } catch (...) {
    }
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

/// `_C.warm_launch(state, grid, args, options, stream)`: a JITFunction's
/// `kernel[grid](...)` on a cache hit, in one call (METH_FASTCALL, no
/// pybind11 dispatch): the specialization key (specializeArguments), the
/// look-up in the JIT's cache, torch's current device and stream, and the
/// launch.  `state` is (kinds, arg_spec, const_spec, dtypes, cache,
/// interpret, the warpforge.runtime.driver module, None), made once per
/// JITFunction; the module's `_device()` and `_stream(device)` are looked
/// up at each launch (they are rebound once torch is imported).  Returns
/// the CompiledKernel when it launched it (what `kernel[grid](...)`
/// returns, as in Triton); False for the general path (a miss, the
/// interpreter, an argument the key rules reject, whose error the general
/// path raises); the CompiledKernel in a 1-tuple when it hit but the rest
/// is Python's (a grid that is a function, a stream object, a kernel not
/// yet loaded on the device).
PyObject *warmLaunch(PyObject *, PyObject *const *argv, Py_ssize_t nargs) {
  if (nargs != 5 || !PyTuple_CheckExact(argv[0]) ||
      PyTuple_GET_SIZE(argv[0]) != 8 || !PyTuple_CheckExact(argv[2])) {
    PyErr_SetString(PyExc_TypeError,
                    "warm_launch(state, grid, args: tuple, options, stream)");
    return nullptr;
  }
  PyObject *state = argv[0], *grid = argv[1], *args = argv[2],
           *options = argv[3], *stream = argv[4];
  auto item = [&](int i) { return PyTuple_GET_ITEM(state, i); };
  PyObject *interpret = item(5);
  if (interpret == Py_True)
    Py_RETURN_FALSE;
  if (interpret == Py_None) {
    const char *env = std::getenv("WARPFORGE_INTERPRET");
    if (env && *env && std::strcmp(env, "0") != 0)
      Py_RETURN_FALSE;
  }
  char *kinds;
  Py_ssize_t count;
  if (PyBytes_AsStringAndSize(item(0), &kinds, &count) != 0)
    return nullptr;
  // What specializing reads of each tensor (its address), for the launch.
  constexpr Py_ssize_t kInline = 32;
  unsigned long long inlineAddresses[kInline];
  unsigned char inlineKnown[kInline];
  std::vector<unsigned long long> heapAddresses;
  std::vector<unsigned char> heapKnown;
  unsigned long long *addresses = inlineAddresses;
  unsigned char *known = inlineKnown;
  if (count > kInline) {
    heapAddresses.resize(count);
    heapKnown.resize(count);
    addresses = heapAddresses.data();
    known = heapKnown.data();
  }
  PyObject *specs = specializeArguments(args, kinds, count, item(1), item(2),
                                        item(3), addresses, known);
  if (!specs) {
    if (PyErr_ExceptionMatches(PyExc_TypeError) ||
        PyErr_ExceptionMatches(PyExc_ValueError)) {
      PyErr_Clear(); // the general path names the argument
      Py_RETURN_FALSE;
    }
    return nullptr;
  }
  PyObject *optionKey;
  if (options == Py_None || (PyDict_Check(options) && PyDict_GET_SIZE(options) == 0)) {
    optionKey = PyTuple_New(0);
  } else {
    PyObject *items = PyDict_Check(options) ? PyDict_Items(options) : nullptr;
    if (!items || PyList_Sort(items) != 0) {
      Py_XDECREF(items);
      Py_DECREF(specs);
      PyErr_Clear();
      Py_RETURN_FALSE;
    }
    optionKey = PyList_AsTuple(items);
    Py_DECREF(items);
  }
  if (!optionKey) {
    Py_DECREF(specs);
    return nullptr;
  }
  PyObject *key = PyTuple_Pack(2, specs, optionKey);
  Py_DECREF(specs);
  Py_DECREF(optionKey);
  if (!key)
    return nullptr;
  PyObject *compiled = PyDict_GetItemWithError(item(4), key); // borrowed
  Py_DECREF(key);
  if (!compiled) {
    if (PyErr_Occurred())
      return nullptr;
    Py_RETURN_FALSE;
  }
  // A grid of 1 to 3 ints, a CUstream handle or torch's current stream.
  long long g[3] = {1, 1, 1};
  bool simple = PyTuple_CheckExact(grid) && PyTuple_GET_SIZE(grid) >= 1 &&
                PyTuple_GET_SIZE(grid) <= 3 &&
                (stream == Py_None || PyLong_CheckExact(stream));
  for (Py_ssize_t i = 0; simple && i < PyTuple_GET_SIZE(grid); ++i) {
    PyObject *v = PyTuple_GET_ITEM(grid, i);
    simple = PyLong_CheckExact(v);
    if (simple) {
      g[i] = PyLong_AsLongLong(v);
      if (g[i] == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        simple = false;
      }
    }
  }
  if (!simple)
    return PyTuple_Pack(1, compiled);
  static PyObject *kernelsName = PyUnicode_InternFromString("_kernels");
  static PyObject *deviceName = PyUnicode_InternFromString("_device");
  static PyObject *streamName = PyUnicode_InternFromString("_stream");
  PyObject *device = PyObject_CallMethodNoArgs(item(6), deviceName);
  if (!device)
    return nullptr;
  PyObject *kernels = PyObject_GetAttr(compiled, kernelsName);
  PyObject *loaded =
      kernels && PyDict_Check(kernels) ? PyDict_GetItem(kernels, device) : nullptr;
  Py_XDECREF(kernels);
  PyErr_Clear();
  if (!loaded) {
    Py_DECREF(device);
    return PyTuple_Pack(1, compiled);
  }
  PyObject *handle = stream;
  if (stream == Py_None) {
    handle = PyObject_CallMethodOneArg(item(6), streamName, device);
    if (!handle) {
      Py_DECREF(device);
      return nullptr;
    }
  } else {
    Py_INCREF(handle);
  }
  Py_DECREF(device);
  py::object ownedHandle = py::reinterpret_steal<py::object>(handle);
  try {
    Kernel &kernel = py::handle(loaded).cast<Kernel &>();
    kernel.launchWith(g[0], g[1], g[2], handle, args, addresses, known);
  } catch (...) {
    setPythonError();
    return nullptr;
  }
  return Py_NewRef(compiled);
}

/// `kernel[grid]` of a JITFunction: `_C.BoundLauncher(grid, spec)`, called
/// with the kernel's arguments.  It binds them to the parameters itself
/// (positional, then keywords that name parameters, then defaults) and
/// launches through warmLaunch with no Python frame in between; anything
/// else (options or `stream` keywords, a missing or repeated argument, a
/// miss, a grid that is a function) goes to the JIT's Python launcher
/// `launcher(*args, **kwargs, grid=grid)`, which does it all and raises the
/// errors.  `spec` is (names, defaults, no_default, state, launcher), made
/// once per JITFunction: `defaults[i]` is `no_default` for a parameter
/// without one.
struct BoundLauncher {
  PyObject_HEAD
  PyObject *grid;
  PyObject *spec;
  vectorcallfunc vectorcall;
};

/// launcher(*args, **kwargs, grid=grid): the Python launcher, which binds
/// and checks as Python does (its errors count the arguments given).
PyObject *boundFallback(BoundLauncher *self, PyObject *const *args,
                        size_t nargsf, PyObject *kwnames) {
  static PyObject *gridName = PyUnicode_InternFromString("grid");
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  std::vector<PyObject *> all(args, args + nargs + nkw);
  all.push_back(self->grid);
  PyObject *names = PyTuple_New(nkw + 1);
  if (!names)
    return nullptr;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    PyTuple_SET_ITEM(names, k, Py_NewRef(PyTuple_GET_ITEM(kwnames, k)));
  PyTuple_SET_ITEM(names, nkw, Py_NewRef(gridName));
  PyObject *result = PyObject_Vectorcall(PyTuple_GET_ITEM(self->spec, 4),
                                         all.data(), nargs, names);
  Py_DECREF(names);
  return result;
}

PyObject *boundCall(PyObject *callable, PyObject *const *args, size_t nargsf,
                    PyObject *kwnames) {
  auto *self = reinterpret_cast<BoundLauncher *>(callable);
  PyObject *names = PyTuple_GET_ITEM(self->spec, 0);
  PyObject *defaults = PyTuple_GET_ITEM(self->spec, 1);
  PyObject *noDefault = PyTuple_GET_ITEM(self->spec, 2);
  Py_ssize_t n = PyTuple_GET_SIZE(names);
  Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
  // A grid that is a function needs the Python launcher (it calls it with
  // the meta-parameters): going there directly keys the cache once.
  if (nargs > n || !PyTuple_CheckExact(self->grid))
    return boundFallback(self, args, nargsf, kwnames);
  constexpr Py_ssize_t kInline = 32;
  PyObject *inlineBound[kInline];
  std::vector<PyObject *> heapBound;
  PyObject **bound = inlineBound;
  if (n > kInline) {
    heapBound.resize(n);
    bound = heapBound.data();
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    bound[i] = i < nargs ? args[i] : nullptr;
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject *key = PyTuple_GET_ITEM(kwnames, k);
    Py_ssize_t at = -1;
    for (Py_ssize_t i = 0; i < n && at < 0; ++i)
      if (PyTuple_GET_ITEM(names, i) == key)
        at = i;
    for (Py_ssize_t i = 0; i < n && at < 0; ++i)
      if (PyUnicode_Compare(PyTuple_GET_ITEM(names, i), key) == 0)
        at = i;
    if (at < 0 || bound[at])
      return boundFallback(self, args, nargsf, kwnames);
    bound[at] = args[nargs + k];
  }
  PyObject *tuple = PyTuple_New(n);
  if (!tuple)
    return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *value = bound[i] ? bound[i] : PyTuple_GET_ITEM(defaults, i);
    if (value == noDefault) {
      Py_DECREF(tuple);
      return boundFallback(self, args, nargsf, kwnames);
    }
    PyTuple_SET_ITEM(tuple, i, Py_NewRef(value));
  }
  PyObject *warmArgs[5] = {PyTuple_GET_ITEM(self->spec, 3), self->grid, tuple,
                           Py_None, Py_None};
  PyObject *result = warmLaunch(nullptr, warmArgs, 5);
  Py_DECREF(tuple);
  if (!result)
    return nullptr;
  if (result == Py_False || PyTuple_Check(result)) {
    Py_DECREF(result); // not launched: the Python launcher redoes it
    return boundFallback(self, args, nargsf, kwnames);
  }
  return result; // the CompiledKernel it launched
}

PyObject *boundNew(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
  PyObject *grid, *spec;
  if (kwargs && PyDict_GET_SIZE(kwargs)) {
    PyErr_SetString(PyExc_TypeError, "BoundLauncher(grid, spec)");
    return nullptr;
  }
  if (!PyArg_ParseTuple(args, "OO!:BoundLauncher", &grid, &PyTuple_Type, &spec))
    return nullptr;
  if (PyTuple_GET_SIZE(spec) != 5 || !PyTuple_Check(PyTuple_GET_ITEM(spec, 0)) ||
      !PyTuple_Check(PyTuple_GET_ITEM(spec, 1)) ||
      PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 0)) !=
          PyTuple_GET_SIZE(PyTuple_GET_ITEM(spec, 1))) {
    PyErr_SetString(PyExc_TypeError,
                    "BoundLauncher: spec is (names, defaults, no_default, "
                    "state, launcher)");
    return nullptr;
  }
  auto *self = reinterpret_cast<BoundLauncher *>(type->tp_alloc(type, 0));
  if (!self)
    return nullptr;
  self->grid = Py_NewRef(grid);
  self->spec = Py_NewRef(spec);
  self->vectorcall = boundCall;
  return reinterpret_cast<PyObject *>(self);
}

void boundDealloc(PyObject *object) {
  auto *self = reinterpret_cast<BoundLauncher *>(object);
  PyObject_GC_UnTrack(object);
  Py_CLEAR(self->grid);
  Py_CLEAR(self->spec);
  Py_TYPE(object)->tp_free(object);
}

int boundTraverse(PyObject *object, visitproc visit, void *arg) {
  auto *self = reinterpret_cast<BoundLauncher *>(object);
  Py_VISIT(self->grid);
  Py_VISIT(self->spec);
  return 0;
}

int boundClear(PyObject *object) {
  auto *self = reinterpret_cast<BoundLauncher *>(object);
  Py_CLEAR(self->grid);
  Py_CLEAR(self->spec);
  return 0;
}

PyObject *boundGetGrid(PyObject *object, void *) {
  return Py_NewRef(reinterpret_cast<BoundLauncher *>(object)->grid);
}

PyObject *boundGetLauncher(PyObject *object, void *) {
  return Py_NewRef(
      PyTuple_GET_ITEM(reinterpret_cast<BoundLauncher *>(object)->spec, 4));
}

PyGetSetDef boundGetSet[] = {
    {"grid", boundGetGrid, nullptr, "The launch grid (ints or a function).",
     nullptr},
    {"func", boundGetLauncher, nullptr,
     "The JIT's Python launcher, launcher(*args, grid=..., **kwargs).",
     nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyTypeObject *boundLauncherType() {
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void *>(boundNew)},
      {Py_tp_dealloc, reinterpret_cast<void *>(boundDealloc)},
      {Py_tp_traverse, reinterpret_cast<void *>(boundTraverse)},
      {Py_tp_clear, reinterpret_cast<void *>(boundClear)},
      {Py_tp_call, reinterpret_cast<void *>(PyVectorcall_Call)},
      {Py_tp_getset, boundGetSet},
      {Py_tp_doc, const_cast<char *>(
                      "kernel[grid] of a JITFunction: binds the arguments and "
                      "launches a cache hit in C++ (see driver.cpp).")},
      {0, nullptr}};
  static PyMemberDef members[] = {
      {"__vectorcalloffset__", T_PYSSIZET,
       static_cast<Py_ssize_t>(offsetof(BoundLauncher, vectorcall)), READONLY,
       nullptr},
      {nullptr, 0, 0, 0, nullptr}};
  static PyType_Slot withMembers[sizeof(slots) / sizeof(slots[0]) + 1];
  static PyType_Spec spec;
  static PyTypeObject *type = nullptr;
  if (type)
    return type;
  size_t i = 0;
  for (; slots[i].slot; ++i)
    withMembers[i] = slots[i];
  withMembers[i++] = PyType_Slot{Py_tp_members, members};
  withMembers[i] = PyType_Slot{0, nullptr};
  spec = {"warpforge._C.BoundLauncher", sizeof(BoundLauncher), 0,
          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
          withMembers};
  type = reinterpret_cast<PyTypeObject *>(PyType_FromSpec(&spec));
  return type;
}

PyMethodDef warmLaunchMethod[] = {
    {"warm_launch", reinterpret_cast<PyCFunction>(warmLaunch), METH_FASTCALL,
     "A JITFunction's launch on a cache hit, in one call (see driver.cpp)."},
    {nullptr, nullptr, 0, nullptr}};

py::dict deviceProperties(int ordinal) {
  const DeviceInfo &info = deviceInfo(ordinal);
  py::dict d;
  d["name"] = info.name;
  d["cc"] = info.major * 10 + info.minor;
  d["capability"] = py::make_tuple(info.major, info.minor);
  d["multiprocessor_count"] = info.multiprocessorCount;
  d["max_shared_mem"] = info.maxSharedPerBlockOptin; // opt-in, per block
  d["max_shared_mem_default"] = info.maxSharedPerBlock;
  d["max_shared_mem_per_multiprocessor"] = info.maxSharedPerMultiprocessor;
  d["max_num_regs"] = info.maxRegistersPerBlock;
  d["max_regs_per_multiprocessor"] = info.maxRegistersPerMultiprocessor;
  d["max_threads_per_block"] = info.maxThreadsPerBlock;
  d["max_threads_per_multiprocessor"] = info.maxThreadsPerMultiprocessor;
  d["max_grid"] = py::make_tuple(info.maxGridDim[0], info.maxGridDim[1],
                                 info.maxGridDim[2]);
  d["warpSize"] = info.warpSize;
  d["l2_cache_size"] = info.l2CacheSize;
  d["sm_clock_rate"] = info.clockRateKHz;
  d["mem_clock_rate"] = info.memoryClockRateKHz;
  d["mem_bus_width"] = info.memoryBusWidth;
  d["total_memory"] = info.totalMemory;
  return d;
}

} // namespace

void registerDriver(py::module_ &m) {
  py::register_local_exception_translator(translateExceptions);
  if (PyModule_AddFunctions(m.ptr(), warmLaunchMethod) != 0)
    throw py::error_already_set();
  PyTypeObject *bound = boundLauncherType();
  if (!bound || PyModule_AddObjectRef(m.ptr(), "BoundLauncher",
                                      reinterpret_cast<PyObject *>(bound)) != 0)
    throw py::error_already_set();

  py::class_<Kernel>(m, "Kernel", R"doc(
A kernel loaded on one device, ready to launch.

Kernel(image, name, signature, num_warps, shared_bytes=0, device=0,
       params=None, global_scratch_size=0, global_scratch_align=1,
       global_scratch_implicit=False, host_tensor_maps=None, launch_pdl=False,
       launch_cooperative_grid=False, num_ctas=1, descriptor_blocks=None)

image: the cubin (bytes) or PTX text (str). name: the kernel's symbol.
signature: {parameter name: type} for the kernel's run-time parameters in
order ("*fp32", "i32", "fp16", "tensordesc<fp16[64, 64]>", ...), or a list
of types. shared_bytes: the dynamic shared memory of each launch. params:
every parameter name of the Python function, constexprs included; launch()
then also accepts all of them and picks out the run-time ones.

A tensordesc<ELEM[b0, ..., bn-1]> parameter takes a host TensorDescriptor
and becomes the kernel parameters (CUtensorMap, n x int32 shape, n x int64
strides). global_scratch_size: bytes of global scratch per CTA (per
program without clusters); when positive, each launch allocates that times
the number of CTAs launched (aligned to global_scratch_align) with
warpforge.set_allocator's allocator and passes it as the kernel's last
parameter. global_scratch_implicit: only
tensor maps the compiler made use it, so with no allocator set the runtime
provides it. host_tensor_maps: the tensor maps the compiler made that each
launch encodes from the arguments (the module's tilegpu.host-tensor-maps,
the kernel parameters after the signature's): dicts of param, base, block,
shape, shape_args, strides and stride_args. launch_pdl: launch with
programmatic dependent launch (cuLaunchKernelEx, sm_90 and later): the
kernel may start before the one before it on the stream has finished.
launch_cooperative_grid: a cooperative launch (cuLaunchKernelEx): all the
grid's programs are resident at once, or the launch fails with a
CudaError saying so.
num_ctas: 1, 2, 4 or 8 CTAs per thread-block cluster (sm_90 and later), as
Triton's: each program of the grid runs on a cluster of num_ctas CTAs along
x, so a grid of (gx, gy, gz) programs launches (gx * num_ctas, gy, gz)
CTAs through cuLaunchKernelEx with the cluster dimension (num_ctas, 1, 1).
gx * num_ctas must fit the device's grid x limit; a cluster the device
cannot schedule (too much shared memory or too many threads per CTA)
fails the launch with a CudaError saying so.
descriptor_blocks: None or {tensordesc parameter name: block shape}: the
block that parameter's tensor maps are encoded for (box and swizzle), when
the compiler gives each CTA a slice of the signature's block (e.g. [128, 64]
of a tensordesc<fp16[256, 64]> in clusters of 2). Each entry has the
block's rank and divides it dimension by dimension; the host descriptor's
block_shape is still checked against the signature's block.

Raises OutOfResources when the kernel needs more shared memory, registers or
threads than the device has, CudaError when a driver call fails, and
DriverUnavailable without a CUDA driver.)doc")
      .def(py::init<py::object, std::string, py::handle, int, int, int,
                    std::optional<std::vector<std::string>>, int64_t, int64_t,
                    bool, py::handle, bool, bool, int, py::handle>(),
           py::arg("image"), py::arg("name"), py::arg("signature"),
           py::arg("num_warps"), py::arg("shared_bytes") = 0,
           py::arg("device") = 0, py::arg("params") = py::none(),
           py::arg("global_scratch_size") = 0,
           py::arg("global_scratch_align") = 1,
           py::arg("global_scratch_implicit") = false,
           py::arg("host_tensor_maps") = py::none(),
           py::arg("launch_pdl") = false,
           py::arg("launch_cooperative_grid") = false, py::arg("num_ctas") = 1,
           py::arg("descriptor_blocks") = py::none())
      .def("launch", &Kernel::launch, py::arg("grid_x"), py::arg("grid_y"),
           py::arg("grid_z"), py::arg("stream"), py::arg("args"),
           "Launches on a CUstream handle (0: the legacy default stream); "
           "a grid of zero along an axis launches nothing.")
      .def_readonly("name", &Kernel::name)
      .def_readonly("device", &Kernel::device)
      .def_readonly("num_warps", &Kernel::numWarps)
      .def_readonly("shared_bytes", &Kernel::sharedBytes,
                    "Dynamic shared memory per launch, in bytes.")
      .def_readonly("global_scratch_size", &Kernel::globalScratchSize,
                    "Global scratch per CTA, in bytes (0: none).")
      .def_readonly("global_scratch_align", &Kernel::globalScratchAlign)
      .def_readonly("num_ctas", &Kernel::numCtas,
                    "CTAs per thread-block cluster: each program's.")
      .def_readonly("num_kernel_params", &Kernel::kernelParams,
                    "The parameters of the cubin's kernel: descriptors "
                    "expanded, scratch included.")
      .def("descriptor_encodes", &Kernel::descriptorEncodes, py::arg("param"),
           "How many tensor maps were encoded for a tensordesc parameter "
           "(the others were cached).")
      .def_property_readonly("num_regs",
                             [](const Kernel &k) { return k.loaded->numRegs; })
      .def_property_readonly(
          "local_bytes", [](const Kernel &k) { return k.loaded->localBytes; },
          "Local memory per thread (register spills, stack), in bytes.")
      .def_property_readonly(
          "static_shared_bytes",
          [](const Kernel &k) { return k.loaded->staticSharedBytes; })
      .def_property_readonly(
          "max_threads", [](const Kernel &k) { return k.loaded->maxThreads; })
      .def_property_readonly("signature", &Kernel::signature)
      .def("__repr__", &Kernel::repr);

  m.def("cuda_device_count", &deviceCount,
        "The number of CUDA devices; 0 without a driver or a device.");
  m.def("cuda_device_properties", &deviceProperties, py::arg("device"),
        "The properties of a CUDA device, as a dict.");
  m.def(
      "cuda_driver_version",
      [] {
        int version = 0;
        check(driver().cuDriverGetVersion(&version), "cuDriverGetVersion");
        return version;
      },
      "The CUDA driver's version (12080 for 12.8).");
  m.def("cuda_library_path", &libraryPath,
        "The driver library warpforge opens ($WARPFORGE_LIBCUDA or "
        "libcuda.so.1).");
}
