"""The GPU runtime from Python: devices, streams and their properties.

The CUDA driver is opened (dlopen) the first time something needs it, so
importing warpforge and compiling kernels work without a GPU. Set
`WARPFORGE_LIBCUDA` to the driver library's path when it is not found as
libcuda.so.1; without one, launching raises `warpforge.errors.DriverUnavailable`.

When torch is imported and has initialized CUDA, the current device and
stream are torch's; otherwise they are device 0 and the default stream (0).
Kernels themselves are loaded and launched by `warpforge._C.Kernel`, which
`CompiledKernel.launch` creates per device.

`active` answers Triton's `triton.runtime.driver.active` calls
(`get_current_device()`, `get_current_stream()`, `get_active_torch_device()`,
`utils.get_device_properties(device)`, ...).
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, NamedTuple, Optional, Tuple


def _core():
    from ..ir import _core as core
    return core()


def device_count() -> int:
    """The number of CUDA devices: 0 without a driver or a GPU."""
    return _core().cuda_device_count()


def driver_version() -> int:
    """The CUDA driver's version, e.g. 13000 for 13.0 (needs the driver)."""
    return _core().cuda_driver_version()


# -- Current device and stream ------------------------------------------------
#
# The launch path calls `_device()` and `_stream(device)`. Until torch has
# initialized CUDA they look for it (one dictionary look-up when torch is not
# imported); then they are rebound to torch's own C functions.


_MODULES = sys.modules


def _torch_with_cuda():
    torch = _MODULES.get("torch")
    cuda = getattr(torch, "cuda", None)
    if cuda is None or not cuda.is_initialized():
        return None
    return torch


def _device_before_torch() -> int:
    if "torch" not in _MODULES:
        return 0
    torch = _torch_with_cuda()
    if torch is None:
        return 0
    _bind_torch(torch)
    return _device()


def _stream_before_torch(device: int) -> int:
    if "torch" not in _MODULES:
        return 0
    torch = _torch_with_cuda()
    if torch is None:
        return 0
    _bind_torch(torch)
    return _stream(device)


_device: Callable[[], int] = _device_before_torch
_stream: Callable[[int], int] = _stream_before_torch


def _bind_torch(torch) -> None:
    global _device, _stream
    # torch.cuda.current_device() and current_stream(d).cuda_stream, without
    # their Python wrappers (CUDA is initialized already).
    _device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    _stream = raw_stream or (lambda device: torch.cuda.current_stream(device).cuda_stream)


def current_device() -> int:
    """torch's current device when torch is imported and has initialized
    CUDA, else 0."""
    return _device()


def current_stream(device: Optional[int] = None) -> int:
    """The CUstream handle of torch's current stream on `device` (default:
    the current device) when torch has initialized CUDA, else 0 (the legacy
    default stream)."""
    return _stream(_device() if device is None else device)


def stream_handle(stream: Any) -> int:
    """The CUstream handle of `stream`: an int handle, a torch.cuda.Stream
    (`.cuda_stream`) or an object with the `__cuda_stream__` protocol."""
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream < 0:
            raise ValueError(f"a CUstream handle is non-negative, got {stream}")
        return stream
    handle = getattr(stream, "cuda_stream", None)
    if isinstance(handle, int):
        return handle
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        _, handle = protocol() if callable(protocol) else protocol
        return int(handle)
    raise TypeError(f"stream must be a CUstream handle (int), a torch.cuda.Stream or an "
                    f"object with __cuda_stream__, not {type(stream).__name__}")


# -- Device properties ----------------------------------------------------------

_PROPERTIES: Dict[int, Dict[str, Any]] = {}


def get_device_properties(device: Optional[int] = None) -> Dict[str, Any]:
    """The properties of a CUDA device (default: the current one).

    Keys: name, cc (90 for sm_90), capability ((9, 0)), multiprocessor_count,
    max_shared_mem (opt-in shared memory per block, bytes),
    max_shared_mem_default (without opt-in), max_shared_mem_per_multiprocessor,
    max_num_regs (32-bit registers per block), max_regs_per_multiprocessor,
    max_threads_per_block, max_threads_per_multiprocessor, max_grid (x, y, z),
    warpSize, l2_cache_size (bytes), sm_clock_rate and mem_clock_rate (kHz),
    mem_bus_width (bits), total_memory (bytes). Triton's names where Triton
    has the property."""
    device = _device() if device is None else int(device)
    properties = _PROPERTIES.get(device)
    if properties is None:
        properties = _PROPERTIES[device] = _core().cuda_device_properties(device)
    return dict(properties)


# -- driver.active: Triton's host API ----------------------------------------------
#
# Triton programs reach the GPU through `triton.runtime.driver.active`; the
# same calls work on `warpforge.runtime.driver.active`, answered by the
# functions above. Each checks first that the CUDA driver opens and has a
# device: without one it raises DriverUnavailable (no driver library) or
# CudaError (a driver but no GPU), as launching does.


_driver_checked = False


def _require_driver() -> None:
    global _driver_checked
    if not _driver_checked:
        driver_version()  # opens the driver and initializes it: raises without one
        _driver_checked = True


def _import_torch(what: str):
    try:
        import torch
    except ImportError:
        raise ModuleNotFoundError(f"driver.active.{what}() returns a torch object and needs "
                                  "torch, which is not installed") from None
    return torch


class GPUTarget(NamedTuple):
    """What `driver.active.get_current_target()` returns, as in Triton:
    backend "cuda", arch 90 for sm_90, warp_size 32."""

    backend: str
    arch: int
    warp_size: int


class _Utils:
    """`driver.active.utils`."""

    @staticmethod
    def get_device_properties(device: Optional[int] = None) -> Dict[str, Any]:
        """The properties of `device` (default: the current one) with
        Triton's keys: max_shared_mem (opt-in, bytes), max_num_regs (per
        block), multiprocessor_count, warpSize, sm_clock_rate and
        mem_clock_rate (kHz), mem_bus_width (bits); plus warpforge's others
        (see `get_device_properties`)."""
        if _interpreter_only():
            return dict(INTERPRETER_PROPERTIES)
        _require_driver()
        return get_device_properties(device)


# -- The interpreter without a GPU -----------------------------------------------
#
# With WARPFORGE_INTERPRET=1 on a machine without a CUDA device, kernels run
# on the CPU on CPU tensors, and `driver.active` answers for the device that
# the interpreter stands in for, so that Triton programs (the tutorials) run
# unchanged: the torch device is "cpu", the device 0, the stream 0, the target
# ("cuda", 90, 32), and the properties a nominal H100 SXM's (132 SMs, 227 KiB
# of opt-in shared memory, 64K registers). With a GPU, the GPU answers, as
# without the interpreter.

INTERPRETER_PROPERTIES: Dict[str, Any] = {
    "name": "warpforge interpreter (nominal H100 SXM)", "cc": 90, "capability": (9, 0),
    "multiprocessor_count": 132, "max_shared_mem": 232448, "max_shared_mem_default": 49152,
    "max_shared_mem_per_multiprocessor": 233472, "max_num_regs": 65536,
    "max_regs_per_multiprocessor": 65536, "max_threads_per_block": 1024,
    "max_threads_per_multiprocessor": 2048, "max_grid": (2147483647, 65535, 65535),
    "warpSize": 32, "l2_cache_size": 52428800, "sm_clock_rate": 1980000,
    "mem_clock_rate": 2619000, "mem_bus_width": 5120, "total_memory": 85520809984,
}


def _interpreter_only() -> bool:
    """WARPFORGE_INTERPRET is on and there is no CUDA device to answer."""
    from .jit import _interpret_env
    if not _interpret_env():
        return False
    try:
        return device_count() == 0
    except Exception:  # noqa: BLE001 - no driver library: no device either
        return True


class ActiveDriver:
    """`warpforge.runtime.driver.active`: the CUDA driver as Triton's
    `triton.runtime.driver.active` presents it, for programs written
    against Triton's host API (its tutorials among them).

    The current device and stream are those kernels launch on: torch's once
    torch has initialized CUDA, else device 0 and the default stream (0).
    With WARPFORGE_INTERPRET=1 and no CUDA device, it answers for the
    interpreter: see INTERPRETER_PROPERTIES."""

    backend = "cuda"
    utils = _Utils()

    def get_current_device(self) -> int:
        """The index of the current CUDA device (0 in the interpreter
        without a GPU)."""
        if _interpreter_only():
            return 0
        _require_driver()
        return _device()

    def get_current_stream(self, device: Optional[int] = None) -> int:
        """The CUstream handle (int) of the current stream on `device`
        (default: the current device): torch's current stream (0 in the
        interpreter without a GPU)."""
        if _interpreter_only():
            return 0
        _require_driver()
        return _stream(_device() if device is None else int(device))

    def get_device_capability(self, device: Optional[int] = None) -> Tuple[int, int]:
        """(major, minor), (9, 0) for an H100."""
        return tuple(self.utils.get_device_properties(device)["capability"])

    def get_current_target(self) -> GPUTarget:
        """The current device's target: `.backend` "cuda", `.arch` (90 for
        sm_90) and `.warp_size`; ("cuda", 90, 32) in the interpreter
        without a GPU."""
        properties = self.utils.get_device_properties(None)
        return GPUTarget("cuda", properties["cc"], properties["warpSize"])

    def get_active_torch_device(self):
        """`torch.device("cuda", current device)` (needs torch); in the
        interpreter without a GPU, `torch.device("cpu")`, where its tensors live."""
        if _interpreter_only():
            return _import_torch("get_active_torch_device").device("cpu")
        _require_driver()
        return _import_torch("get_active_torch_device").device("cuda", _device())

    def get_device_interface(self):
        """`torch.cuda`, as in Triton (needs torch)."""
        _require_driver()
        return _import_torch("get_device_interface").cuda

    def __repr__(self):
        return "<warpforge.runtime.driver.active: CUDA>"


active = ActiveDriver()
default = active  # Triton's driver.default: the one driver there is


# Compiled kernels launch through this module; the compiler, which sits
# below the runtime and does not import it, is told where it is.
def _register_with_compiler():
    from ..compiler import compiler
    compiler.set_driver(sys.modules[__name__])


_register_with_compiler()
