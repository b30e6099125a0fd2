//===- target.h - The GPU backend in warpforge._C ---------------*- C++ -*-===//

#ifndef WARPFORGE_PYTHON_TARGET_H
#define WARPFORGE_PYTHON_TARGET_H

#include <pybind11/pybind11.h>

namespace warpforge::python {

/// Adds translate_to_llvm_ir, compile_to_ptx and assemble_ptx to `m`.
void registerTarget(pybind11::module_ &m);

} // namespace warpforge::python

#endif // WARPFORGE_PYTHON_TARGET_H
