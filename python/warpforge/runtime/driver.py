"""The GPU runtime from Python: devices, streams and their properties.

The CUDA driver is opened (dlopen) the first time something needs it, so
importing warpforge and compiling kernels work without a GPU. Set
`WARPFORGE_LIBCUDA` to the driver library's path when it is not found as
libcuda.so.1; without one, launching raises `warpforge.errors.DriverUnavailable`.

When torch is imported and has initialized CUDA, the current device and
stream are torch's; otherwise they are device 0 and the default stream (0).
Kernels themselves are loaded and launched by `warpforge._C.Kernel`, which
`CompiledKernel.launch` creates per device.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Dict, Optional


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


# Compiled kernels launch through this module; the compiler, which sits
# below the runtime and does not import it, is told where it is.
def _register_with_compiler():
    from ..compiler import compiler
    compiler.set_driver(sys.modules[__name__])


_register_with_compiler()
