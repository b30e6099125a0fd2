//===- errors.h - Raising IRError from the binding --------------*- C++ -*-===//

#ifndef WARPFORGE_PYTHON_ERRORS_H
#define WARPFORGE_PYTHON_ERRORS_H

#include "warpforge/API/API.h"

#include <string>
#include <vector>

namespace warpforge::python {

/// Raises warpforge.errors.IRError("<what> failed: ...") carrying
/// `diagnostics` (and, when given, the module attributes `result` holds, as
/// its `attributes`).  Call with the GIL held.
[[noreturn]] void
raiseIRError(const std::vector<warpforge::api::Diagnostic> &diagnostics,
             const std::string &what,
             const warpforge::api::Result *result = nullptr);

} // namespace warpforge::python

#endif // WARPFORGE_PYTHON_ERRORS_H
