"""warpforge's exceptions: compiler diagnostics, hardware limits and CUDA
driver failures."""

from typing import Dict, List, NamedTuple, Sequence


class TritonError(Exception):
    """The base of the errors a kernel's source causes (Triton's
    `triton.TritonError`): compilation errors and the language's typing
    errors, so that `except warpforge.TritonError` catches both."""


class Diagnostic(NamedTuple):
    """One diagnostic from the compiler core, at its first file location."""

    severity: str  # "error", "warning", "note" or "remark"
    file: str  # empty when the diagnostic has no file location
    line: int
    column: int
    message: str
    formatted: str  # "file:line:col: severity: message"

    def __str__(self) -> str:
        return self.formatted


class IRError(RuntimeError):
    """IR failed to parse, verify or transform.

    `diagnostics` lists every diagnostic the core emitted, errors and their
    notes, each with the file, line and column it points at (for IR from the
    frontend, the Python source line). `attributes`: the module's integer
    and string attributes when the failing stage got that far (the facts
    stages record, e.g. `tilegpu.shared` and `tilegpu.shared-limit`).
    """

    def __init__(self, message: str, diagnostics: Sequence = (), attributes=None):
        super().__init__(message)
        self.attributes: Dict[str, object] = dict(attributes or {})
        self.diagnostics: List[Diagnostic] = [
            d if isinstance(d, Diagnostic) else Diagnostic(*d) for d in diagnostics
        ]

    @property
    def errors(self) -> List[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]


class OutOfResources(RuntimeError):
    """A kernel needs more of a hardware resource than the GPU has.

    Raised when compiling or loading a kernel whose shared memory, registers
    or threads exceed the device's limit; the autotuner skips such configs.
    """

    def __init__(self, kernel: str, resource: str, required: int, limit: int,
                 hint: str = ""):
        self.kernel, self.resource = kernel, resource
        self.required, self.limit = required, limit
        message = (f"kernel '{kernel}' needs {required} {resource}, "
                   f"but the limit is {limit}")
        if hint:
            message += f"; {hint}"
        super().__init__(message)


class AutotuneError(RuntimeError):
    """Autotuning found no usable config: every config failed to compile or
    ran out of resources (`failures` lists each config with its exception),
    or early_config_prune returned none."""

    def __init__(self, message: str, failures=()):
        super().__init__(message)
        self.failures = list(failures)

class CudaError(RuntimeError):
    """A CUDA driver call failed.

    `call` is the driver function ("cuModuleLoadData"), `error_name` and
    `error_string` the driver's name and description of the error
    ("CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"), `kernel`
    the kernel concerned ("" for none) and `code` the CUresult.
    """

    def __init__(self, message: str, call: str = "", error_name: str = "",
                 error_string: str = "", kernel: str = "", code: int = 0):
        super().__init__(message)
        self.call, self.error_name, self.error_string = call, error_name, error_string
        self.kernel, self.code = kernel, code


class DriverUnavailable(CudaError):
    """The CUDA driver library cannot be opened (no GPU or no driver here).

    Compiling needs no driver; launching does. `WARPFORGE_LIBCUDA` names the
    library to open instead of libcuda.so.1."""
