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
//===----------------------------------------------------------------------===//

#include "nvidia/runtime/CudaDriver.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <vector>

namespace py = pybind11;
using namespace warpforge::cuda;

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

enum class Kind : uint8_t { Pointer, Bool, Int, UInt, F16, BF16, F32, F64 };

struct Param {
  std::string name;    // "x_ptr"
  std::string type;    // as given: "*fp32", "i32"
  std::string element; // canonical: the pointee for pointers, else the type
  Kind kind;
  int bits;
  int index;                // in the arguments launch() is given
  py::object verifiedDtype; // the last torch dtype seen and accepted
};

class Kernel {
public:
  Kernel(py::object image, std::string name, py::handle signature, int numWarps,
         int sharedBytes, int device,
         std::optional<std::vector<std::string>> params)
      : name(std::move(name)), numWarps(numWarps), sharedBytes(sharedBytes),
        device(device) {
    parseSignature(signature);
    if (params)
      bindParams(*params);
    std::string bytes = imageBytes(image);
    py::gil_scoped_release release;
    loaded = std::make_unique<LoadedKernel>(bytes, this->name, numWarps,
                                            sharedBytes, device);
    api = &driver();
    info = &deviceInfo(device);
  }

  void launch(long long gx, long long gy, long long gz, py::handle stream,
              py::handle args);

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

  std::string name;
  int numWarps, sharedBytes, device;
  std::unique_ptr<LoadedKernel> loaded;

private:
  // Looked up once: the launch path takes no lock.
  const Api *api = nullptr;
  const DeviceInfo *info = nullptr;

  void parseSignature(py::handle signature);
  void bindParams(const std::vector<std::string> &params);
  static std::string imageBytes(py::handle image);

  [[noreturn]] void badArgumentCount(Py_ssize_t given) const;
  std::string describe(const Param &p) const;
  CUdeviceptr pointerOf(Param &p, PyObject *obj, CUstream stream);
  void checkDtype(Param &p, PyObject *obj);
  void checkElement(const Param &p, const std::string &element, int bits,
                    const std::string &what) const;
  void checkDevicePointer(const Param &p, PyObject *obj, CUdeviceptr ptr);
  uint64_t scalarOf(const Param &p, PyObject *obj) const;

  std::vector<Param> paramsInOrder;
  std::vector<std::string> allParams; // constexprs included, when bound
};

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
    paramsInOrder.push_back(std::move(p));
  }
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

std::string Kernel::describe(const Param &p) const {
  return "kernel '" + name + "': argument '" + p.name + "' (index " +
         std::to_string(p.index) + ", " + p.type + ")";
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
  if (!ok)
    raise(PyExc_TypeError, describe(p) + ": expected a pointer to " +
                               p.element + ", got " + what);
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
  unsigned memoryType = MemoryUnknown;
  int ordinal = -1;
  unsigned long long managed = 0; // the driver writes a bool
  int attributes[] = {PointerMemoryType, PointerDeviceOrdinal,
                      PointerIsManaged};
  void *values[] = {&memoryType, &ordinal, &managed};
  CUresult result = api->cuPointerGetAttributes(3, attributes, values, ptr);
  if (result != CUDA_SUCCESS)
    memoryType = MemoryUnknown; // reported below, with the driver's error
  if (memoryType == MemoryDevice || memoryType == MemoryUnified) {
    if (managed || ordinal == device)
      return;
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

uint64_t Kernel::scalarOf(const Param &p, PyObject *obj) const {
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

void Kernel::launch(long long gx, long long gy, long long gz, py::handle stream,
                    py::handle args) {
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

  constexpr size_t kInline = 32;
  uint64_t inlineSlots[kInline];
  void *inlinePointers[kInline];
  std::vector<uint64_t> heapSlots;
  std::vector<void *> heapPointers;
  uint64_t *slots = inlineSlots;
  void **pointers = inlinePointers;
  if (n > kInline) {
    heapSlots.resize(n);
    heapPointers.resize(n);
    slots = heapSlots.data();
    pointers = heapPointers.data();
  }
  for (size_t i = 0; i < n; ++i) {
    Param &p = paramsInOrder[i];
    PyObject *obj = items[byIndex ? p.index : i];
    slots[i] = p.kind == Kind::Pointer ? pointerOf(p, obj, cuStream)
                                       : scalarOf(p, obj);
    pointers[i] = &slots[i];
  }
  if (gx == 0 || gy == 0 || gz == 0)
    return;

  CUcontext current = nullptr;
  check(api->cuCtxGetCurrent(&current), "cuCtxGetCurrent", name);
  CUcontext context = loaded->context();
  if (current != context)
    check(api->cuCtxSetCurrent(context), "cuCtxSetCurrent", name);
  CUresult result;
  {
    py::gil_scoped_release release;
    result = api->cuLaunchKernel(
        loaded->function(), static_cast<unsigned>(gx),
        static_cast<unsigned>(gy), static_cast<unsigned>(gz), loaded->threads(),
        1, 1, loaded->dynamicShared(), cuStream, pointers, nullptr);
  }
  // Another device's context stays the thread's current one.
  if (current && current != context)
    api->cuCtxSetCurrent(current);
  if (result != CUDA_SUCCESS)
    fail("cuLaunchKernel", result, name);
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

  py::class_<Kernel>(m, "Kernel", R"doc(
A kernel loaded on one device, ready to launch.

Kernel(image, name, signature, num_warps, shared_bytes=0, device=0,
       params=None)

image: the cubin (bytes) or PTX text (str). name: the kernel's symbol.
signature: {parameter name: type} for the kernel's run-time parameters in
order ("*fp32", "i32", "fp16", ...), or a list of types. shared_bytes: the
dynamic shared memory of each launch. params: every parameter name of the
Python function, constexprs included; launch() then also accepts all of them
and picks out the run-time ones.

Raises OutOfResources when the kernel needs more shared memory, registers or
threads than the device has, CudaError when a driver call fails, and
DriverUnavailable without a CUDA driver.)doc")
      .def(py::init<py::object, std::string, py::handle, int, int, int,
                    std::optional<std::vector<std::string>>>(),
           py::arg("image"), py::arg("name"), py::arg("signature"),
           py::arg("num_warps"), py::arg("shared_bytes") = 0,
           py::arg("device") = 0, py::arg("params") = py::none())
      .def("launch", &Kernel::launch, py::arg("grid_x"), py::arg("grid_y"),
           py::arg("grid_z"), py::arg("stream"), py::arg("args"),
           "Launches on a CUstream handle (0: the legacy default stream); "
           "a grid of zero along an axis launches nothing.")
      .def_readonly("name", &Kernel::name)
      .def_readonly("device", &Kernel::device)
      .def_readonly("num_warps", &Kernel::numWarps)
      .def_readonly("shared_bytes", &Kernel::sharedBytes,
                    "Dynamic shared memory per launch, in bytes.")
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
