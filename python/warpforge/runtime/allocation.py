"""`warpforge.set_allocator(fn)`: global scratch for kernels that need it,
with Triton 3.6's semantics (`triton.set_allocator`).

`fn(size, alignment, stream)` returns an object with `data_ptr()` (a torch
tensor of `size` bytes, say) that the launch uses for its scratch. The
allocator is per context (a `ContextVar`, as in Triton), so threads and
asyncio tasks may set their own.

Which kernels need scratch: those that make tensor descriptors on the
device (`tl.make_tensor_descriptor`), whose tensor maps the kernel writes to
global memory. The compiler records the bytes each program needs and their
alignment on the module (`tilegpu.global-scratch-bytes` / `-align`,
`CompiledKernel.metadata["global_scratch_size"]` / `["global_scratch_align"]`).
On each launch of such a kernel, the C++ launcher (`_C.Kernel.launch`) calls
`allocate_scratch(size * programs, alignment, stream)` below, with the
grid's number of programs and the launch's CUstream handle, passes the
address as the kernel's last parameter and keeps the buffer alive until the
launch is enqueued; as in Triton, reuse of the memory afterwards is ordered
by the allocator's stream (torch's caching allocator does this). Kernels
that need no scratch never call the allocator. With no allocator set, the
launch raises `NoAllocatorError` telling the user to call
`warpforge.set_allocator`, unless the kernel's source made no descriptor
and the scratch holds only tensor maps the compiler made (a warp-specialized
producer copying pointer loads with the TMA): then, with no allocator set,
the runtime allocates it with torch on the launch's stream. The
interpreter needs no scratch.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any, Callable, Optional


class NoAllocatorError(RuntimeError):
    """A kernel needs global scratch and no allocator was set."""


def _no_allocator(size: int, alignment: int, stream: Optional[int]) -> Any:
    raise NoAllocatorError(
        f"this kernel needs {size} bytes of global scratch (aligned to {alignment}) for the "
        "tensor descriptors it makes on the device, but no allocator was set: call "
        "warpforge.set_allocator(lambda size, alignment, stream: "
        "torch.empty(size, dtype=torch.int8, device='cuda')) first")


_allocator: ContextVar[Callable] = ContextVar("warpforge_allocator", default=_no_allocator)


def set_allocator(allocator: Callable[[int, int, Optional[int]], Any]) -> None:
    """Sets the allocator for kernels that need global scratch:
    `allocator(size, alignment, stream)` returns a buffer with `data_ptr()`."""
    if not callable(allocator):
        raise TypeError(f"set_allocator takes a function (size, alignment, stream) -> buffer, "
                        f"got {allocator!r}")
    _allocator.set(allocator)


def get_allocator() -> Callable[[int, int, Optional[int]], Any]:
    """The allocator set in this context (one that raises NoAllocatorError
    when none was)."""
    return _allocator.get()


def _implicit_allocator(size: int, alignment: int, stream: Optional[int]) -> Any:
    """Scratch for tensor maps the compiler made, when no allocator was set:
    torch's caching allocator on the launch's stream, which orders its reuse
    after the launch."""
    try:
        import torch
    except ImportError:
        return _no_allocator(size, alignment, stream)
    with torch.cuda.stream(torch.cuda.ExternalStream(stream or 0)):
        return torch.empty(size, dtype=torch.int8, device="cuda")


def allocate_scratch(size: int, alignment: int, stream: Optional[int], implicit: bool = False):
    """Calls the allocator (for `implicit` scratch with none set, the
    runtime's own); returns (the buffer's address, checked for alignment,
    and the buffer, which the caller keeps alive for the launch)."""
    allocator = get_allocator()
    if implicit and allocator is _no_allocator:
        allocator = _implicit_allocator
    buffer = allocator(size, alignment, stream)
    from .jit import data_pointer
    try:
        address = int(data_pointer(buffer))  # torch tensors, arrays, data_ptr()
    except (TypeError, ValueError, AttributeError):
        raise TypeError(f"the allocator set with warpforge.set_allocator returned "
                        f"{type(buffer).__name__}, which has no data_ptr()") from None
    if address % alignment:
        raise ValueError(f"the allocator returned an address 0x{address:x} not aligned to "
                         f"{alignment} bytes")
    return address, buffer
