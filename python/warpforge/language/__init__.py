"""warpforge.language: Triton's `tl` surface.

`import warpforge.language as tl` gives kernels the same names as
`import triton.language as tl`. Each function forwards to `semantic`, which
records operations through the active builder.
"""

import enum as _enum

from . import core, extra, math, random, semantic, standard
from .core import (bfloat16, block_type, const, constexpr, dtype, float8e4nv, float8e5, float16,
                   float32, float64, int1, int8, int16, int32, int64, pi32_t, pointer_type, tensor,
                   tensor_descriptor_type, uint8, uint16, uint32, uint64)
from .math import (abs, ceil, cos, div_rn, erf, exp, exp2, fdiv, floor, fma, log, log2, rsqrt,
                   sin, sqrt, umulhi)
from .random import (pair_uniform_to_normal, philox, philox_impl, rand, rand4x, randint,
                     randint4x, randn, randn4x, uint_to_uniform_float)
from .semantic import SemanticError
from .standard import (bitonic_merge, cat, flip, gather, histogram, interleave, join, sort, split,
                       swizzle2d, topk)

_u = semantic.unwrap

# ---------------------------------------------------------------------------
# Compile-time helpers
# ---------------------------------------------------------------------------


class static_range:
    """`for i in tl.static_range(...)`: unrolled at compile time, at most
    `MAX_ITERATIONS` times (a longer loop would take minutes to unroll:
    use `tl.range`)."""

    MAX_ITERATIONS = 4096

    def __init__(self, arg1, arg2=None, step=None):
        if arg2 is None:
            self.start, self.end = 0, int(_u(arg1))
        else:
            self.start, self.end = int(_u(arg1)), int(_u(arg2))
        self.step = 1 if step is None else int(_u(step))
        if self.step == 0:
            raise ValueError("static_range step must not be zero")
        import builtins
        count = len(builtins.range(self.start, self.end, self.step))
        if count > self.MAX_ITERATIONS:
            raise ValueError(f"static_range({self.start}, {self.end}, {self.step}) unrolls "
                             f"{count} iterations; at most {self.MAX_ITERATIONS} are unrolled "
                             "(use tl.range for a loop that runs on the GPU)")

    def __iter__(self):
        import builtins
        return iter(builtins.range(self.start, self.end, self.step))


def str_to_ty(name, c=None):
    """A type from its signature spelling, as Triton's `tl.str_to_ty`:
    `"fp16"`, `"i32"`, `"u1"`, `"*fp32"` (pointer; Triton's `"*k..."` const
    pointers are plain pointers here), `"tensordesc<fp16[64, 64]>"`."""
    name = str(_u(name))
    if name.startswith("*"):
        inner = name[1:]
        return core.pointer_type(str_to_ty(inner[1:] if inner.startswith("k") else inner, c))
    if name.startswith("tensordesc<") and name.endswith(">"):
        elem, rest = name[len("tensordesc<"):-1].split("[", 1)
        block = [int(b) for b in rest.split("]", 1)[0].split(",")]
        return core.tensor_descriptor_type(core.block_type(str_to_ty(elem.strip(), c), block))
    if name == "u1":
        return core.int1
    if name.startswith("constexpr"):
        raise ValueError("str_to_ty: constexpr types have no warpforge type object")
    return core.dtype_from_name(name)


class range:  # noqa: A001 - the language's name
    """`for i in tl.range(...)`: a loop the compiler may software-pipeline
    (`num_stages`), warp-specialize (`warp_specialize`) or unroll
    (`loop_unroll_factor`). In the interpreter it is Python's range."""

    def __init__(self, arg1, arg2=None, step=None, num_stages=None, loop_unroll_factor=None,
                 warp_specialize=False, disallow_acc_multi_buffer=False, flatten=False,
                 disable_licm=False):
        if arg2 is None:
            self.start, self.end = 0, arg1
        else:
            self.start, self.end = arg1, arg2
        self.step = 1 if step is None else step
        self.num_stages = _u(num_stages)
        self.loop_unroll_factor = _u(loop_unroll_factor)
        self.warp_specialize = bool(_u(warp_specialize))
        # Hints for warp specialization: flatten warns until it exists;
        # never multi-buffering the accumulator is what happens anyway.
        self.flatten = bool(_u(flatten))
        self.disallow_acc_multi_buffer = bool(_u(disallow_acc_multi_buffer))
        # LLVM keeps loop-invariant code in the loop (shorter live ranges).
        self.disable_licm = bool(_u(disable_licm))

    def __iter__(self):  # interpreter only
        import builtins
        return iter(builtins.range(int(self.start), int(self.end), int(self.step)))


class condition:
    """`while tl.condition(c, disable_licm=True):` a while loop's condition
    with a hint: LLVM keeps loop-invariant code inside the loop (shorter
    live ranges), as Triton's. In the interpreter it is the condition."""

    def __init__(self, arg1, disable_licm=False):
        self.condition = arg1
        self.disable_licm = bool(_u(disable_licm))

    def __bool__(self):  # interpreter only
        return bool(self.condition)


def static_assert(cond, msg=""):
    if not _u(cond):
        raise SemanticError(f"static_assert failed: {_u(msg)}" if _u(msg) else "static_assert failed")


def static_print(*values, sep=" ", end="\n"):
    print(*[_u(v) for v in values], sep=sep, end=end)


def cdiv(x, div):
    x, div = _u(x), _u(div)
    if isinstance(x, int) and isinstance(div, int):
        return constexpr((x + div - 1) // div)
    return (x + div - 1) // div


def next_power_of_2(n):
    n = int(_u(n))
    return constexpr(1 << (n - 1).bit_length() if n > 0 else 1)


# ---------------------------------------------------------------------------
# Program and tensor creation
# ---------------------------------------------------------------------------


def program_id(axis=0):
    return semantic.program_id(axis)


def num_programs(axis=0):
    return semantic.num_programs(axis)


def arange(start, end):
    return semantic.arange(start, end)


def full(shape, value, dtype):
    return semantic.full([_u(s) for s in _u(shape)], value, _u(dtype))


def zeros(shape, dtype):
    return full(shape, 0, dtype)


def zeros_like(x):
    return full(x.shape, 0, x.dtype)


def full_like(x, value):
    return full(x.shape, value, x.dtype)


def cast(x, dtype, fp_downcast_rounding=None, bitcast=False):
    return semantic.cast(x, dtype, fp_downcast_rounding, bitcast)


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def reshape(x, *shape, can_reorder=False):
    return semantic.reshape(x, core._shape_args(shape), _u(can_reorder))


def view(x, *shape):
    return semantic.reshape(x, core._shape_args(shape), True)


def expand_dims(x, axis):
    return semantic.expand_dims(x, axis)


def broadcast_to(x, *shape):
    return semantic.broadcast_to(semantic.to_tensor(x), core._shape_args(shape))


def broadcast(a, b):
    return semantic.broadcast_pair(semantic.to_tensor(a), semantic.to_tensor(b))


def trans(x, *dims):
    return semantic.permute(x, core._shape_args(dims) if dims else None)


def permute(x, *dims):
    return semantic.permute(x, core._shape_args(dims))


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------


def load(pointer, mask=None, other=None, boundary_check=(), padding_option="",
         cache_modifier="", eviction_policy="", volatile=False):
    if _u(boundary_check) or _u(padding_option):
        raise SemanticError("boundary_check and padding_option are for block pointers, "
                            "which warpforge does not support: use a mask or a tensor "
                            "descriptor")
    return semantic.load(pointer, mask, other, cache_modifier, eviction_policy, volatile)


def store(pointer, value, mask=None, boundary_check=(), cache_modifier="",
          eviction_policy=""):
    if _u(boundary_check):
        raise SemanticError("boundary_check is for block pointers, which warpforge does not "
                            "support: use a mask or a tensor descriptor")
    semantic.store(pointer, value, mask, cache_modifier, eviction_policy)


class tensor_descriptor:
    """A TMA tensor descriptor: `desc.load([i, j])`, `desc.store([i, j], v)`."""

    def __init__(self, handle: tensor, shape, strides, block_shape):
        self.handle = handle
        self.shape = shape
        self.strides = strides
        self.block_shape = block_shape
        self.dtype = handle.type.block_type.element_ty
        self.block_type = handle.type.block_type

    def load(self, offsets):
        return semantic.descriptor_load(self.handle, offsets)

    def store(self, offsets, value):
        semantic.descriptor_store(self.handle, value, offsets)

    # Reductions into global memory through the TMA (cp.reduce.async.bulk
    # .tensor): each element atomically, out-of-bounds ones untouched.
    def atomic_add(self, offsets, value):
        semantic.descriptor_reduce("add", self.handle, value, offsets)

    def atomic_min(self, offsets, value):
        semantic.descriptor_reduce("min", self.handle, value, offsets)

    def atomic_max(self, offsets, value):
        semantic.descriptor_reduce("max", self.handle, value, offsets)

    def atomic_and(self, offsets, value):
        semantic.descriptor_reduce("and", self.handle, value, offsets)

    def atomic_or(self, offsets, value):
        semantic.descriptor_reduce("or", self.handle, value, offsets)

    def atomic_xor(self, offsets, value):
        semantic.descriptor_reduce("xor", self.handle, value, offsets)


def make_tensor_descriptor(base, shape, strides, block_shape):
    shape, strides, block_shape = list(_u(shape)), list(_u(strides)), list(_u(block_shape))
    handle = semantic.make_tensor_descriptor(base, shape, strides, block_shape)
    return tensor_descriptor(handle, shape, strides, [int(_u(b)) for b in block_shape])


def _atomic(kind):
    def fn(pointer, val, mask=None, sem=None, scope=None):
        return semantic.atomic_rmw(kind, pointer, val, mask, sem, scope)
    fn.__name__ = f"atomic_{kind}"
    fn.__doc__ = f"Atomic {kind}; returns the old values."
    return fn


atomic_add = _atomic("add")
atomic_max = _atomic("max")
atomic_min = _atomic("min")
atomic_and = _atomic("and")
atomic_or = _atomic("or")
atomic_xor = _atomic("xor")
atomic_xchg = _atomic("xchg")


def atomic_cas(pointer, cmp, val, sem=None, scope=None):
    return semantic.atomic_cas(pointer, cmp, val, sem, scope)


# ---------------------------------------------------------------------------
# Computation
# ---------------------------------------------------------------------------


def dot(input, other, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=float32):
    return semantic.dot(input, other, acc, input_precision, allow_tf32,
                        max_num_imprecise_acc, out_dtype)


def where(condition, x, y):
    return semantic.where(condition, x, y)


class PropagateNan(_enum.Enum):
    """Triton's `propagate_nan` values for maximum, minimum and clamp: ALL
    makes a NaN operand give NaN; NONE (as False) returns the other
    operand."""
    NONE = 0x0000
    ALL = 0xFFFF


def _propagates_nan(value) -> bool:
    value = _u(value)
    if isinstance(value, PropagateNan):
        return value is PropagateNan.ALL
    return bool(value)


def maximum(x, y, propagate_nan=False):
    return semantic.maximum(x, y, _propagates_nan(propagate_nan))


def minimum(x, y, propagate_nan=False):
    return semantic.minimum(x, y, _propagates_nan(propagate_nan))


def clamp(x, min, max, propagate_nan=False):
    return semantic.clamp(x, min, max, _propagates_nan(propagate_nan))


def sigmoid(x):
    return 1.0 / (1.0 + exp(-semantic.to_tensor(x)))


def softmax(x, dim=None, keep_dims=False, ieee_rounding=False):
    """exp(x - max) / sum along `dim` (default 0), as Triton's."""
    dim = 0 if _u(dim) is None else _u(dim)
    z = x - max(x, dim, keep_dims=keep_dims)
    num = exp(z)
    return num / sum(num, dim, keep_dims=keep_dims)


def assume(cond):
    """A promise that `cond` holds (Triton passes it to LLVM as an assumption).
    warpforge checks that it is a boolean and compiles it to nothing: the
    condition's ops are dead and removed."""
    cond = semantic.to_tensor(cond)
    if not cond.dtype.is_bool():
        raise SemanticError(f"tl.assume expects a boolean condition, got {cond.dtype}")


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


def _combine_fn(combine_fn):
    """A combine function as a callable on lists of tensors: @jit functions
    are called through the builder (a device call when compiling)."""
    def call(args):
        return core.current_builder().call_function(combine_fn, args)
    return call


def reduce(input, axis, combine_fn, keep_dims=False):
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    out = semantic.reduce(inputs, _u(axis), _combine_fn(combine_fn), keep_dims)
    return out if isinstance(input, (tuple, list)) else out[0]


def sum(input, axis=None, keep_dims=False, dtype=None):  # noqa: A001
    return semantic.reduce_builtin(input, _u(axis), "sum", keep_dims, dtype)


def _extremum(kind, input, axis, return_indices, tie_break_left, keep_dims):
    value = semantic.reduce_builtin(input, _u(axis), kind, keep_dims)
    if not _u(return_indices):
        return value
    return value, semantic.arg_reduce(input, _u(axis), kind, keep_dims, tie_break_left)


def max(input, axis=None, return_indices=False, return_indices_tie_break_left=True,  # noqa: A001
        keep_dims=False):
    return _extremum("max", input, axis, return_indices, return_indices_tie_break_left,
                     keep_dims)


def min(input, axis=None, return_indices=False, return_indices_tie_break_left=True,  # noqa: A001
        keep_dims=False):
    return _extremum("min", input, axis, return_indices, return_indices_tie_break_left,
                     keep_dims)


def argmax(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the maximum along `axis`: among equal maxima the first
    (`tie_break_left=True`) or the last."""
    return semantic.arg_reduce(input, _u(axis), "max", keep_dims, tie_break_left)


def argmin(input, axis, tie_break_left=True, keep_dims=False):
    """The index of the minimum along `axis`: among equal minima the first
    (`tie_break_left=True`) or the last."""
    return semantic.arg_reduce(input, _u(axis), "min", keep_dims, tie_break_left)


def item(input):
    """The one element of a one-element tensor, as a scalar (Triton's
    `x.item()`, e.g. `tl.full((1,), 0, dtype).item()`)."""
    if not isinstance(input, tensor):
        return input
    if not input.type.is_block():
        return input
    if input.numel != 1:
        raise semantic.SemanticError(f"item() takes a tensor of one element, got shape "
                                     f"{list(input.type.shape)}")
    value = semantic.reduce_builtin(input, None, "max", False)
    return value if value.dtype == input.dtype else value.to(input.dtype)


def xor_sum(input, axis=None, keep_dims=False):
    return semantic.reduce_builtin(input, _u(axis), "xor_sum", keep_dims)


def associative_scan(input, axis, combine_fn, reverse=False):
    inputs = list(input) if isinstance(input, (tuple, list)) else [input]
    out = semantic.scan(inputs, _u(axis), _combine_fn(combine_fn), reverse)
    return out if isinstance(input, (tuple, list)) else out[0]


def cumsum(input, axis=0, reverse=False, dtype=None):
    """The running sum along `axis`, in `dtype` if given; integers narrower
    than 32 bits sum in (u)int32 and bfloat16 in float32, as in Triton."""
    return semantic.cumulative(input, _u(axis), "sum", _u(reverse), _u(dtype))


def cumprod(input, axis=0, reverse=False):
    """The running product along `axis` (bfloat16 in float32, as in Triton)."""
    return semantic.cumulative(input, _u(axis), "prod", _u(reverse))


def ravel(x, can_reorder=False):
    """`x` flattened to one dimension."""
    return semantic.reshape(x, [semantic.to_tensor(x).numel], _u(can_reorder))


# ---------------------------------------------------------------------------
# Debugging
# ---------------------------------------------------------------------------


def multiple_of(input, values):
    """Promises that every element of `input` is a multiple of `values`."""
    return semantic.hint(input, "multiple_of", values)


def max_contiguous(input, values):
    """Promises runs of `values` consecutive integers along each dimension."""
    return semantic.hint(input, "max_contiguous", values)


def max_constancy(input, values):
    """Promises runs of `values` equal elements along each dimension."""
    return semantic.hint(input, "max_constancy", values)


def inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
    """Runs the PTX `asm` over the elements of `args` (broadcast to one
    shape), `pack` elements per invocation, as Triton's: `$0`... name the
    results' registers, then the arguments', in `constraints`' order
    (`"=r,r,r"`); elements of 32 bits or more take a register each, narrower
    ones are packed 32 bits to a register. `dtype` is the result's type, or a
    tuple of types for a tuple of results. `is_pure=False` keeps it where it
    is (it may touch memory). The interpreter cannot run PTX."""
    return semantic.inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack)


def debug_barrier():
    """Synchronizes the threads of the program (a CTA-wide barrier)."""
    semantic.debug_barrier()


def device_assert(cond, msg=""):
    semantic.device_assert(cond, msg)


def device_print(prefix, *args, hex=False):
    semantic.device_print(prefix, args, hex)


# ---------------------------------------------------------------------------
# Tensor methods and unknown names
# ---------------------------------------------------------------------------

# The functions Triton also defines as tensor methods (its `_tensor_member_fn`):
# `x.sum(1)` is `tl.sum(x, 1)`.
for _fn in (broadcast_to, trans, permute, view, reshape, expand_dims, cast, store, atomic_cas,
            atomic_xchg, atomic_add, atomic_max, atomic_min, atomic_and, atomic_or, atomic_xor,
            reduce, associative_scan, cdiv, sigmoid, softmax, ravel, max, argmax, min, argmin,
            sum, xor_sum, cumsum, cumprod, exp, exp2, log, log2, cos, sin, sqrt, rsqrt, abs, erf,
            floor, ceil, split, gather, histogram, sort, flip, item):
    setattr(tensor, _fn.__name__, _fn)
del _fn

__all__ = [n for n in dir() if not n.startswith("_")]


def __getattr__(name):
    note = f"(it is tl.extra.libdevice.{name})" if name in extra.libdevice.__all__ else ""
    raise core.missing_attribute("tl", name, __all__, note)
