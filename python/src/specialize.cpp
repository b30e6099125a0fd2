//===- specialize.cpp - The JIT's specialization key, per launch ----------===//
//
// `_C.specialize(args, kinds, arg_spec, const_spec, dtypes)` is the warm
// launch path's share of warpforge.runtime.jit: the tuple of each
// argument's specialization, equal to what `arg_spec` / `const_spec`
// return in Python (the kernel cache's keys are made by either), without a
// Python call per argument for the common types:
//
//   int          ("c", 1) for 1 when specialized, else ("a", "i32" | "i64" |
//                "u64", 16 or None: divisible by 16 when specialized)
//   float        ("a", "fp32", None)         bool  ("a", "i1", None)
//   None         ("c", None)
//   a tensor     ("a", "*fp16", 16 or None): an object with data_ptr()
//                whose dtype `dtypes` (jit._TORCH_DTYPES) already names
//   constexprs   ("c", value) for ints, floats, bools, strings and None
//
// Anything else goes to the Python functions given, which also raise the
// errors (a type no kernel takes, an int over 64 bits).  `kinds` has one
// byte per argument: 0 a specialized run-time argument, 1 one in
// do_not_specialize, 2 a constexpr.
//
//===----------------------------------------------------------------------===//

#include <pybind11/pybind11.h>

namespace py = pybind11;

namespace {

/// Strings and small tuples made once: the keys hold these objects.
struct Constants {
  PyObject *a, *c, *i32, *i64, *u64, *sixteen, *fp32Spec, *i1Spec, *oneSpec,
      *noneSpec, *dataPtr, *dtype;
  Constants() {
    a = PyUnicode_InternFromString("a");
    c = PyUnicode_InternFromString("c");
    i32 = PyUnicode_InternFromString("i32");
    i64 = PyUnicode_InternFromString("i64");
    u64 = PyUnicode_InternFromString("u64");
    sixteen = PyLong_FromLong(16);
    fp32Spec = Py_BuildValue("(OsO)", a, "fp32", Py_None);
    i1Spec = Py_BuildValue("(OsO)", a, "i1", Py_None);
    oneSpec = Py_BuildValue("(Oi)", c, 1);
    noneSpec = Py_BuildValue("(OO)", c, Py_None);
    dataPtr = PyUnicode_InternFromString("data_ptr");
    dtype = PyUnicode_InternFromString("dtype");
  }
};

const Constants &constants() {
  static const Constants *k = new Constants(); // never freed: lives with _C
  return *k;
}

PyObject *newRef(PyObject *o) {
  Py_INCREF(o);
  return o;
}

/// ("a", type, 16 or None)
PyObject *argSpec(PyObject *type, bool divisible) {
  const Constants &k = constants();
  return PyTuple_Pack(3, k.a, type, divisible ? k.sixteen : Py_None);
}

/// The spec of an exact int, or null with no error set when Python must
/// say why (over 64 bits).
PyObject *intSpec(PyObject *value, bool specialize) {
  const Constants &k = constants();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow != 0) {
    if (overflow < 0)
      return nullptr;
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      return nullptr;
    }
    return argSpec(k.u64, specialize && u % 16 == 0);
  }
  if (specialize && v == 1)
    return newRef(k.oneSpec);
  bool small = v >= INT32_MIN && v <= INT32_MAX;
  return argSpec(small ? k.i32 : k.i64, specialize && v % 16 == 0);
}

/// The spec of a tensor whose dtype `dtypes` names, or null with no error
/// set when it is not one.  `address`, when given, receives its data_ptr().
PyObject *tensorSpec(PyObject *value, bool specialize, PyObject *dtypes,
                     unsigned long long *address) {
  const Constants &k = constants();
  PyObject *method = PyObject_GetAttr(value, k.dataPtr);
  if (!method) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject *dtype = PyObject_GetAttr(value, k.dtype);
  if (!dtype) {
    PyErr_Clear();
    Py_DECREF(method);
    return nullptr;
  }
  PyObject *name = PyDict_GetItemWithError(dtypes, dtype); // borrowed
  Py_DECREF(dtype);
  if (!name) {
    PyErr_Clear();
    Py_DECREF(method);
    return nullptr;
  }
  bool divisible = false;
  if (specialize || address) {
    PyObject *ptr = PyObject_CallNoArgs(method);
    if (!ptr) {
      PyErr_Clear();
      Py_DECREF(method);
      return nullptr;
    }
    unsigned long long value = PyLong_AsUnsignedLongLong(ptr);
    Py_DECREF(ptr);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      Py_DECREF(method);
      return nullptr;
    }
    divisible = specialize && value % 16 == 0;
    if (address)
      *address = value;
  }
  Py_DECREF(method);
  return argSpec(name, divisible);
}

PyObject *constSpec(PyObject *value) {
  const Constants &k = constants();
  if (value == Py_None)
    return newRef(k.noneSpec);
  if (PyLong_CheckExact(value) || PyFloat_CheckExact(value) ||
      PyBool_Check(value) || PyUnicode_CheckExact(value))
    return PyTuple_Pack(2, k.c, value);
  return nullptr;
}

PyObject *specOf(PyObject *value, char kind, PyObject *dtypes,
                 unsigned long long *address) {
  const Constants &k = constants();
  if (kind == 2)
    return constSpec(value);
  bool specialize = kind == 0;
  if (PyLong_CheckExact(value))
    return intSpec(value, specialize);
  if (PyFloat_CheckExact(value))
    return newRef(k.fp32Spec);
  if (PyBool_Check(value))
    return newRef(k.i1Spec);
  if (value == Py_None)
    return newRef(k.noneSpec);
  return tensorSpec(value, specialize, dtypes, address);
}

} // namespace

/// The specialization tuple of `args` (a tuple) by `kinds` (one byte per
/// argument); a new reference, or null with the Python error set.  With
/// `addresses` and `known` (one entry per argument), each tensor the fast
/// rules took also leaves its data_ptr() there, for the launch to reuse.
PyObject *specializeArguments(PyObject *args, const char *kinds,
                              Py_ssize_t count, PyObject *argSpec,
                              PyObject *constSpec, PyObject *dtypes,
                              unsigned long long *addresses,
                              unsigned char *known) {
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  if (n != count) {
    PyErr_Format(PyExc_ValueError, "specialize: %zd arguments for %zd kinds",
                 n, count);
    return nullptr;
  }
  PyObject *result = PyTuple_New(n);
  if (!result)
    return nullptr;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *value = PyTuple_GET_ITEM(args, i);
    char kind = kinds[i];
    unsigned long long address = 0;
    bool tensor = addresses && kind != 2 && !PyLong_CheckExact(value) &&
                  !PyFloat_CheckExact(value) && !PyBool_Check(value) &&
                  value != Py_None;
    PyObject *spec = specOf(value, kind, dtypes, tensor ? &address : nullptr);
    if (known)
      known[i] = spec && tensor;
    if (addresses)
      addresses[i] = address;
    if (!spec) {
      // The Python rule, which knows the rest and raises its errors.
      spec = kind == 2 ? PyObject_CallOneArg(constSpec, value)
                       : PyObject_CallFunctionObjArgs(
                             argSpec, value, kind == 0 ? Py_True : Py_False,
                             nullptr);
      if (!spec) {
        Py_DECREF(result);
        return nullptr;
      }
    }
    PyTuple_SET_ITEM(result, i, spec);
  }
  return result;
}

namespace {

py::tuple specialize(py::tuple args, py::bytes kinds, py::object argSpec,
                     py::object constSpec, py::dict dtypes) {
  char *kindBytes;
  Py_ssize_t count;
  if (PyBytes_AsStringAndSize(kinds.ptr(), &kindBytes, &count) != 0)
    throw py::error_already_set();
  PyObject *result =
      specializeArguments(args.ptr(), kindBytes, count, argSpec.ptr(),
                          constSpec.ptr(), dtypes.ptr(), nullptr, nullptr);
  if (!result)
    throw py::error_already_set();
  return py::reinterpret_steal<py::tuple>(result);
}

} // namespace

void registerSpecialize(py::module_ &m) {
  m.def("specialize", &specialize, py::arg("args"), py::arg("kinds"),
        py::arg("arg_spec"), py::arg("const_spec"), py::arg("dtypes"),
        "The specialization of each argument, as warpforge.runtime.jit's "
        "arg_spec (kinds[i] 0: specialized, 1: do_not_specialize) or "
        "const_spec (kinds[i] 2) makes it; the common types without a "
        "Python call.");
}
