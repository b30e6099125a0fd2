"""Host tensor descriptors: `TensorDescriptor.from_tensor(t, block_shape)`
passed to a kernel as an argument, as in Triton 3.6
(`triton.tools.tensor_descriptor`). In the kernel the argument is a
`tl.tensor_descriptor`: `desc.load([i, j])`, `desc.store([i, j], tile)`,
`desc.shape`, `desc.strides`, `desc.block_shape`.

Where it is made, a descriptor is checked as Triton 3.6 checks it: a
16-byte aligned base, strides other than the innermost a multiple of 16
bytes, the innermost dimension contiguous, rank 1 to 5, block dimensions
powers of 2, padding 'zero' or 'nan' (a ValueError naming the rule; Triton
asserts). The TMA's limits on the block's size (at least 16 bytes in the
innermost dimension, at most 256 elements per box dimension) are checked
when a kernel is compiled for it, with an error naming the parameter: as in
Triton, a descriptor may be made with a placeholder block (tutorial 09 uses
[1, 1]) that an autotuning hook replaces with the config's block before the
launch.

In the interpreter (`WARPFORGE_INTERPRET=1`) the kernel reads the base
tensor directly. On the GPU the JIT compiles the kernel for the
descriptor's element type and block shape (its signature type,
`tensordesc<fp16[64, 64]>`), and the C++ launcher (`_C.Kernel.launch`)
turns the argument into the kernel's 2n + 1 parameters: a TMA tensor map encoded
with `cuTensorMapEncodeTiled` (the box and swizzle the compiler chose, by
the one rule of `warpforge/Dialect/TileGPU/IR/TMA.h`), then the shape (n
int32) and the strides in elements (n int64). Encoded maps are cached per
kernel parameter, keyed by base address, shape, strides and padding, so a
warm launch over the same tensor does not encode again, whichever
descriptor object describes it. The launcher checks the TMA's rules again
(errors name the argument): descriptors are plain dataclasses that may be
edited after they are made, and Triton's own descriptors (any object with
`base`, `shape`, `strides`, `block_shape` and optionally `padding`) are
accepted too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Tuple


def _is_block_dim(b: int) -> bool:
    # The language's rule (powers of 2; multiples of 16 with the
    # experimental WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1).
    from ..language.core import is_block_dim
    return is_block_dim(b)

# What one TMA box may span per dimension.
MAX_BOX_DIM = 256


def _element_info(base) -> Tuple[str, int, int, bool]:
    """(warpforge element type name, bytes per element, address, is float)
    of a torch tensor or an array-interface object."""
    from ..runtime.jit import data_pointer, pointer_type_name
    name = pointer_type_name(base)
    if name is None:
        raise TypeError(f"TensorDescriptor: base must be a tensor or an array, got "
                        f"{type(base).__name__}")
    elem = name[1:]
    from ..language import core
    dtype = core.dtype_from_name(elem)
    return elem, max(dtype.primitive_bitwidth // 8, 1), data_pointer(base), dtype.is_floating()


def _sequence(value, what: str) -> List[int]:
    try:
        return [int(v) for v in value]
    except TypeError:
        raise TypeError(f"TensorDescriptor: {what} must be a sequence of ints, got "
                        f"{value!r}") from None


@dataclass
class TensorDescriptor:
    base: Any
    shape: List[int]
    strides: List[int]
    block_shape: List[int]
    padding: str = "zero"

    def __post_init__(self):
        self.shape = _sequence(self.shape, "shape")
        self.strides = _sequence(self.strides, "strides")
        self.block_shape = _sequence(self.block_shape, "block_shape")
        rank = len(self.shape)

        def fail(message):
            raise ValueError(f"TensorDescriptor(shape={self.shape}, strides={self.strides}, "
                             f"block_shape={self.block_shape}): {message}")

        if not 1 <= rank <= 5:
            fail(f"the TMA takes 1 to 5 dimensions, got {rank}")
        if len(self.strides) != rank or len(self.block_shape) != rank:
            fail("shape, strides and block_shape must have one entry per dimension")
        elem, elem_bytes, address, is_float = _element_info(self.base)
        self.dtype = elem
        if address % 16:
            fail(f"the base address must be 16-byte aligned, got 0x{address:x}")
        if any(s <= 0 for s in self.shape):
            fail("every dimension of shape must be positive")
        if self.strides[-1] != 1:
            fail(f"the innermost dimension must be contiguous (stride 1), got stride "
                 f"{self.strides[-1]}")
        for d, stride in enumerate(self.strides[:-1]):
            if (stride * elem_bytes) % 16:
                fail(f"stride {stride} of dimension {d} is {stride * elem_bytes} bytes; the "
                     "TMA needs a multiple of 16")
        for b in self.block_shape:
            if not _is_block_dim(b):
                from ..language.core import block_dim_rule
                fail(f"every block dimension must be {block_dim_rule()}, got {b}")
        # The block's size against the TMA's limits (MAX_BOX_DIM, 16 bytes
        # innermost) is checked when a kernel is compiled for it: the block
        # may still change before the launch (an autotuning pre_hook).
        if self.padding not in ("zero", "nan"):
            fail(f"padding must be 'zero' or 'nan', got {self.padding!r}")
        if self.padding == "nan" and not is_float:
            fail(f"padding='nan' needs a floating-point tensor, got {elem}")
        self.address = address
        self.elem_bytes = elem_bytes

    @staticmethod
    def from_tensor(tensor: Any, block_shape: List[int], padding: str = "zero"):
        """A descriptor over all of `tensor` (torch tensor or NumPy array),
        moving `block_shape` blocks."""
        shape = list(tensor.shape)
        stride = getattr(tensor, "stride", None)
        if callable(stride):
            strides = list(stride())
        else:  # NumPy: strides in bytes
            itemsize = tensor.itemsize
            strides = [s // itemsize for s in tensor.strides]
        return TensorDescriptor(tensor, shape, strides, block_shape, padding)

    def signature_type(self) -> str:
        """Its type in a kernel's signature, as Triton spells it:
        `tensordesc<fp16[64, 64]>`."""
        return f"tensordesc<{self.dtype}[{', '.join(str(b) for b in self.block_shape)}]>"
