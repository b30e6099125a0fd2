"""The types and values of warpforge's kernel language (Triton's `tl`).

A kernel manipulates `tensor`s: a handle from the active builder (an SSA
value when compiling, a NumPy array when interpreting) plus its type. All
typing rules live in `semantic`; this module holds the types, `constexpr`,
and the operator overloads that forward to `semantic`.
"""

from __future__ import annotations

import difflib
import threading
from typing import Any, List, Optional, Sequence

# ---------------------------------------------------------------------------
# The active builder
# ---------------------------------------------------------------------------

_state = threading.local()


def current_builder():
    builder = getattr(_state, "builder", None)
    if builder is None:
        raise RuntimeError(
            "warpforge.language functions can only be called inside a "
            "@warpforge.jit function")
    return builder


class use_builder:
    """Context manager making `builder` the active one on this thread."""

    def __init__(self, builder):
        self.builder = builder

    def __enter__(self):
        self.saved = getattr(_state, "builder", None)
        _state.builder = self.builder
        return self.builder

    def __exit__(self, *exc):
        _state.builder = self.saved
        return False


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


class dtype:
    """A scalar element type: `tl.float16`, `tl.int32`, ..."""

    SINT = ("int8", "int16", "int32", "int64")
    UINT = ("uint8", "uint16", "uint32", "uint64")
    FP8 = ("fp8e4nv", "fp8e5")
    FP = FP8 + ("fp16", "bf16", "fp32", "fp64")
    KINDS = ("int1",) + SINT + UINT + FP
    # Triton's names for the same lists (its tests parametrize over them).
    SINT_TYPES = list(SINT)
    UINT_TYPES = ["int1"] + list(UINT)
    FP_TYPES = list(FP)
    STANDARD_FP_TYPES = ["fp16", "bf16", "fp32", "fp64"]
    OTHER_TYPES = ["void"]

    _IR = {"int1": "i1", "fp8e4nv": "f8E4M3FN", "fp8e5": "f8E5M2", "fp16": "f16",
           "bf16": "bf16", "fp32": "f32", "fp64": "f64"}
    _MANTISSA = {"fp8e4nv": 3, "fp8e5": 2, "fp16": 10, "bf16": 7, "fp32": 23, "fp64": 52}

    def __init__(self, name: str):
        if name not in self.KINDS:
            raise ValueError(f"unknown dtype {name!r}")
        self.name = name

    # Kinds
    def is_floating(self) -> bool:
        return self.name in self.FP

    def is_fp8(self) -> bool:
        return self.name in self.FP8

    def is_int(self) -> bool:
        return self.name in ("int1",) + self.SINT + self.UINT

    def is_int_signed(self) -> bool:
        return self.name in self.SINT

    def is_int_unsigned(self) -> bool:
        return self.name in self.UINT

    def is_bool(self) -> bool:
        return self.name == "int1"

    def is_ptr(self) -> bool:
        return False

    def is_block(self) -> bool:
        return False

    @property
    def primitive_bitwidth(self) -> int:
        return _BITWIDTH[self.name]

    @property
    def fp_mantissa_width(self) -> int:
        return self._MANTISSA[self.name]

    # Triton's exponent biases (fp8e4nv's is 7, e4m3's; fp8e5's 15).
    _EXPONENT_BIAS = {"fp8e4nv": 7, "fp8e5": 15, "fp16": 15, "bf16": 127, "fp32": 127,
                      "fp64": 1023}

    @property
    def exponent_bias(self) -> int:
        if self.name not in self._EXPONENT_BIAS:
            raise AttributeError(f"{self} is not a floating-point type: it has no exponent bias")
        return self._EXPONENT_BIAS[self.name]

    @property
    def int_bitwidth(self) -> int:
        return self.primitive_bitwidth

    @property
    def scalar(self) -> "dtype":
        return self

    def to_ir(self) -> str:
        if self.name in self._IR:
            return self._IR[self.name]
        return "i" + str(self.primitive_bitwidth)

    def __eq__(self, other):
        # A type wrapped as a constexpr (`tl.constexpr(tl.int32)`) is that
        # type, as in Triton.
        if type(other).__name__ == "constexpr":
            other = other.value
        return type(other) is type(self) and other.name == self.name

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash((type(self).__name__, self.name))

    def __repr__(self):
        return f"tl.{_PUBLIC_NAME.get(self.name, self.name)}"

    __str__ = __repr__


_BITWIDTH = {"int1": 1, "int8": 8, "int16": 16, "int32": 32, "int64": 64, "uint8": 8,
             "uint16": 16, "uint32": 32, "uint64": 64, "fp8e4nv": 8, "fp8e5": 8,
             "fp16": 16, "bf16": 16, "fp32": 32, "fp64": 64}
_PUBLIC_NAME = {"fp8e4nv": "float8e4nv", "fp8e5": "float8e5", "fp16": "float16",
                "bf16": "bfloat16", "fp32": "float32", "fp64": "float64"}


class pointer_type(dtype):
    """A pointer to `element_ty` in `address_space` (1: global memory)."""

    def __init__(self, element_ty: dtype, address_space: int = 1, const: bool = False):
        # In a kernel, tl.pointer_type(tl.float32) receives its arguments
        # as constexprs: the type is what they hold.
        element_ty, address_space = _unwrap(element_ty), _unwrap(address_space)
        self.element_ty = element_ty
        self.address_space = address_space
        # A `tl.const` parameter: nothing may be stored through it (the
        # frontend's rule; the IR type is the same).
        self.const = bool(_unwrap(const))
        self.name = f"{'const_' if self.const else ''}pointer<{element_ty.name}>"

    # The other kind predicates are inherited: they test the name against the
    # scalar kinds, which "pointer<...>" never is.
    def is_ptr(self) -> bool:
        return True

    @property
    def primitive_bitwidth(self) -> int:
        return 64

    def to_ir(self) -> str:
        space = "" if self.address_space == 1 else f", {self.address_space}"
        return f"!tile.ptr<{self.element_ty.to_ir()}{space}>"

    def __eq__(self, other):
        return (isinstance(other, pointer_type) and other.element_ty == self.element_ty
                and other.address_space == self.address_space and other.const == self.const)

    def __hash__(self):
        return hash(("ptr", self.element_ty, self.address_space, self.const))

    def __repr__(self):
        return f"pointer_type({self.element_ty!r})"


class block_type:
    """The type of a tensor value: an element type and a shape."""

    def __init__(self, element_ty: dtype, shape: Sequence[int]):
        self.element_ty = element_ty
        self.shape = tuple(int(s) for s in shape)
        if not self.shape:
            raise ValueError("a block_type needs at least one dimension")

    @property
    def scalar(self) -> dtype:
        return self.element_ty

    def is_block(self) -> bool:
        return True

    @property
    def numel(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    def to_ir(self) -> str:
        return "tensor<" + "x".join(map(str, self.shape)) + "x" + self.element_ty.to_ir() + ">"

    def __eq__(self, other):
        return (isinstance(other, block_type) and other.shape == self.shape
                and other.element_ty == self.element_ty)

    def __hash__(self):
        return hash((self.element_ty, self.shape))

    def __repr__(self):
        return f"<{list(self.shape)}, {self.element_ty!r}>"


class tensor_descriptor_type:
    """A TMA tensor descriptor moving blocks of `block_type`."""

    def __init__(self, block_ty: block_type):
        self.block_type = block_ty

    @property
    def scalar(self):
        return self

    def is_block(self) -> bool:
        return False

    def to_ir(self) -> str:
        return f"!tile.tensordesc<{self.block_type.to_ir()}>"

    def __eq__(self, other):
        return isinstance(other, tensor_descriptor_type) and other.block_type == self.block_type

    def __hash__(self):
        return hash(("desc", self.block_type))

    def __repr__(self):
        return f"tensor_descriptor<{self.block_type!r}>"


int1 = dtype("int1")
int8, int16, int32, int64 = (dtype(n) for n in dtype.SINT)
uint8, uint16, uint32, uint64 = (dtype(n) for n in dtype.UINT)
float8e4nv = dtype("fp8e4nv")
float8e5 = dtype("fp8e5")
float16 = dtype("fp16")
bfloat16 = dtype("bf16")
float32 = dtype("fp32")
float64 = dtype("fp64")
_DTYPE_BY_NAME = {
    "int1": int1, "bool": int1, "i1": int1, "int8": int8, "i8": int8, "int16": int16,
    "i16": int16, "int32": int32, "i32": int32, "int64": int64, "i64": int64,
    "uint8": uint8, "u8": uint8, "uint16": uint16, "u16": uint16, "uint32": uint32,
    "u32": uint32, "uint64": uint64, "u64": uint64, "float8e4nv": float8e4nv,
    "fp8e4nv": float8e4nv, "float8_e4m3fn": float8e4nv, "float8e5": float8e5,
    "fp8e5": float8e5, "float8_e5m2": float8e5, "float16": float16, "fp16": float16,
    "half": float16, "bfloat16": bfloat16, "bf16": bfloat16, "float32": float32,
    "fp32": float32, "float": float32, "float64": float64, "fp64": float64,
    "double": float64,
}


def dtype_from_name(name: str) -> dtype:
    """`"fp16"`, `"float16"`, `"torch.float16"`, `"*fp16"` (pointer) ..."""
    name = str(name)
    if name.startswith("*"):
        return pointer_type(dtype_from_name(name[1:]))
    name = name.rsplit(".", 1)[-1]
    if name not in _DTYPE_BY_NAME:
        raise ValueError(f"unknown dtype {name!r}")
    return _DTYPE_BY_NAME[name]


# ---------------------------------------------------------------------------
# constexpr
# ---------------------------------------------------------------------------


class const:
    """A parameter annotation, as Triton's: `in_ptr: tl.const` makes the
    pointer read-only; storing through it, or mixing it with a plain
    pointer where one type is needed (branches, returns), is an error at
    the Python line."""


class constexpr_type:
    """The type of a compile-time value: the value itself (Triton's
    `constexpr_type`), so two are equal exactly when their values are."""

    def __init__(self, value: Any):
        self.value = value

    def __eq__(self, other):
        return isinstance(other, constexpr_type) and self.value == other.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"constexpr_type[{self.value}]"

    def mangle(self) -> str:
        return repr(self)


class constexpr:
    """A value known at compile time. As an annotation (`BLOCK: tl.constexpr`)
    it marks a kernel parameter whose value is folded into the kernel."""

    def __init__(self, value: Any):
        self.value = value.value if isinstance(value, constexpr) else value

    @property
    def type(self) -> constexpr_type:
        return constexpr_type(self.value)

    def __repr__(self):
        return f"constexpr[{self.value!r}]"

    def __index__(self):
        return int(self.value)

    def __bool__(self):
        return bool(self.value)

    def __int__(self):
        return int(self.value)

    def __float__(self):
        return float(self.value)

    def __hash__(self):
        return hash(self.value)

    def __call__(self, *args, **kwargs):
        return self.value(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.value, name)


def _unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def _constexpr_binop(op):
    def forward(self, other):
        if isinstance(other, tensor):
            return NotImplemented
        return constexpr(op(self.value, _unwrap(other)))

    def reverse(self, other):
        if isinstance(other, tensor):
            return NotImplemented
        return constexpr(op(_unwrap(other), self.value))

    return forward, reverse


import operator as _op  # noqa: E402

for _name, _fn in [("add", _op.add), ("sub", _op.sub), ("mul", _op.mul),
                   ("truediv", _op.truediv), ("floordiv", _op.floordiv),
                   ("mod", _op.mod), ("pow", _op.pow), ("and", _op.and_),
                   ("or", _op.or_), ("xor", _op.xor), ("lshift", _op.lshift),
                   ("rshift", _op.rshift)]:
    _f, _r = _constexpr_binop(_fn)
    setattr(constexpr, f"__{_name}__", _f)
    setattr(constexpr, f"__r{_name}__", _r)
for _name, _fn in [("eq", _op.eq), ("ne", _op.ne), ("lt", _op.lt), ("le", _op.le),
                   ("gt", _op.gt), ("ge", _op.ge)]:
    setattr(constexpr, f"__{_name}__", _constexpr_binop(_fn)[0])
constexpr.__neg__ = lambda self: constexpr(-self.value)
constexpr.__pos__ = lambda self: constexpr(+self.value)
constexpr.__invert__ = lambda self: constexpr(~self.value)
constexpr.__abs__ = lambda self: constexpr(abs(self.value))


# ---------------------------------------------------------------------------
# tensor
# ---------------------------------------------------------------------------


class tensor:
    """A value of a kernel: a scalar or a block, with its type."""

    def __init__(self, handle, type):
        self.handle = handle
        self.type = type
        self.dtype = type.scalar
        self.shape = _shape(type.shape if type.is_block() else ())

    def __repr__(self):
        return f"tensor({self.handle!r}, {self.type!r})"

    @property
    def numel(self) -> int:
        return self.type.numel if self.type.is_block() else 1

    # Arithmetic forwards to the semantic layer, which raises on bad types.
    def _binary(self, other, fn, reverse=False):
        from . import semantic
        a, b = (other, self) if reverse else (self, other)
        return getattr(semantic, fn)(a, b)

    def __add__(self, o): return self._binary(o, "add")
    def __radd__(self, o): return self._binary(o, "add", True)
    def __sub__(self, o): return self._binary(o, "sub")
    def __rsub__(self, o): return self._binary(o, "sub", True)
    def __mul__(self, o): return self._binary(o, "mul")
    def __rmul__(self, o): return self._binary(o, "mul", True)
    def __truediv__(self, o): return self._binary(o, "truediv")
    def __rtruediv__(self, o): return self._binary(o, "truediv", True)
    def __floordiv__(self, o): return self._binary(o, "floordiv")
    def __rfloordiv__(self, o): return self._binary(o, "floordiv", True)
    def __mod__(self, o): return self._binary(o, "mod")
    def __rmod__(self, o): return self._binary(o, "mod", True)
    def __and__(self, o): return self._binary(o, "and_")
    def __rand__(self, o): return self._binary(o, "and_", True)
    def __or__(self, o): return self._binary(o, "or_")
    def __ror__(self, o): return self._binary(o, "or_", True)
    def __xor__(self, o): return self._binary(o, "xor_")
    def __rxor__(self, o): return self._binary(o, "xor_", True)
    def __lshift__(self, o): return self._binary(o, "shl")
    def __rlshift__(self, o): return self._binary(o, "shl", True)
    def __rshift__(self, o): return self._binary(o, "shr")
    def __rrshift__(self, o): return self._binary(o, "shr", True)
    def __lt__(self, o): return self._binary(o, "less_than")
    def __le__(self, o): return self._binary(o, "less_equal")
    def __gt__(self, o): return self._binary(o, "greater_than")
    def __ge__(self, o): return self._binary(o, "greater_equal")
    def __eq__(self, o): return self._binary(o, "equal")
    def __ne__(self, o): return self._binary(o, "not_equal")

    def __neg__(self):
        from . import semantic
        return semantic.minus(self)

    def __pos__(self):
        return self

    def __invert__(self):
        from . import semantic
        return semantic.invert(self)

    def __abs__(self):
        from . import semantic
        return semantic.abs(self)

    def logical_and(self, other):
        from . import semantic
        return semantic.logical_and(self, other)

    def logical_or(self, other):
        from . import semantic
        return semantic.logical_or(self, other)

    def logical_not(self):
        from . import semantic
        return semantic.logical_not(self)

    __hash__ = object.__hash__

    def __bool__(self):
        return current_builder().to_bool(self)

    def __index__(self):
        return current_builder().to_int(self)

    def __getitem__(self, slices):
        from . import semantic
        return semantic.subscript(self, slices)

    def to(self, dtype, fp_downcast_rounding=None, bitcast=False):
        from . import semantic
        return semantic.cast(self, dtype, fp_downcast_rounding, bitcast)

    # The methods that mirror free functions (x.sum(), x.exp(), x.reshape(),
    # ...) are the language's functions, attached by `warpforge.language` as
    # Triton's `_tensor_member_fn` does.

    @property
    def T(self):
        from . import semantic
        return semantic.permute(self, None)

    def __getattr__(self, name):
        # Unknown attributes give a kernel author a plain message.
        raise AttributeError(f"'tensor' has no attribute '{name}'")


class _shape(tuple):
    """A tensor's shape: a tuple that also compares equal to a list of the
    same sizes (`x.shape == [16, 16]`), as in Triton."""

    def __eq__(self, other):
        if isinstance(other, (tuple, list)):
            return tuple(map(_unwrap, self)) == tuple(map(_unwrap, other))
        return NotImplemented

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = tuple.__hash__


def missing_attribute(label: str, name: str, names, note: str = "",
                      list_names: bool = False) -> AttributeError:
    """The error for `label.name` that does not exist: the closest names
    (difflib), then `note`, then with `list_names` every name there is."""
    if name.startswith("__"):
        return AttributeError(name)
    names = sorted(n for n in names if not n.startswith("_"))
    message = f"{label}.{name} does not exist"
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
    if close:
        message += "; did you mean " + " or ".join(f"{label}.{c}" for c in close) + "?"
    if note:
        message += " " + note
    if list_names:
        message += f" ({label} has: {', '.join(names)})"
    return AttributeError(message)


def _shape_args(shape) -> List[int]:
    if len(shape) == 1 and isinstance(_unwrap(shape[0]), (tuple, list)):
        shape = _unwrap(shape[0])
    return [int(_unwrap(s)) for s in shape]


def is_power_of_2(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


NPOT_BLOCKS_ENV = "WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS"


def npot_blocks_enabled() -> bool:
    """Whether WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1 is set (experimental):
    block dimensions that are multiples of 16 (is_block_dim) and three
    consumer warpgroups (KernelOptions.unsplittable_consumer_groups). Part
    of the disk cache's key; a process that changes it must clear its
    kernels' in-memory caches (`kernel.cache.clear()`)."""
    import os
    return os.environ.get(NPOT_BLOCKS_ENV) == "1"


def is_block_dim(n: int) -> bool:
    """Whether `n` may be a tensor dimension or an arange's length: a power
    of 2, or, with WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1 (experimental;
    on the GPU: 176-column K/V blocks and 192-row tiles of the attention
    benchmark's kernel), a multiple of 16 (FlashAttention-3's 176-column
    K/V blocks: wgmma's N and K take any multiple of 8 and 16)."""
    if is_power_of_2(n):
        return True
    return npot_blocks_enabled() and n > 0 and n % 16 == 0


def block_dim_rule() -> str:
    """What is_block_dim takes, for error messages: "a power of 2", and
    under the experimental switch the multiples of 16 too (so that an
    error under it does not name a rule the switch has widened)."""
    if npot_blocks_enabled():
        return f"a power of 2 or a multiple of 16 ({NPOT_BLOCKS_ENV}=1)"
    return "a power of 2"


# Triton's name for a pointer to int32 (its tests cast int64 addresses to it).
pi32_t = pointer_type(int32)
