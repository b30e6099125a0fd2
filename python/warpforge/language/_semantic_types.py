"""The semantic layer's typing rules: `SemanticError`, the active builder,
Python scalars as kernel values (`literal_type`, `python_scalar_type`,
`to_tensor`), Triton's type promotion (`integer_promote`,
`computation_type`, the checks on scalar operands) and the helpers that
record an op. `warpforge.language.semantic` re-exports the public names.
"""

from __future__ import annotations

import builtins
from typing import Optional, Sequence

from ..errors import TritonError
from . import core
from .core import block_type, constexpr, dtype, tensor, tensor_descriptor_type


class SemanticError(TritonError, TypeError):
    """A kernel broke a typing or shape rule of the language."""


def _b():
    return core.current_builder()


# ---------------------------------------------------------------------------
# Conversions of Python values
# ---------------------------------------------------------------------------


def unwrap(v):
    return v.value if isinstance(v, constexpr) else v


def scalar_constant(value, ty: dtype) -> tensor:
    return tensor(_b().constant(value, ty.to_ir(), ty.to_ir()), ty)


def literal_type(v) -> dtype:
    """The type of a Python scalar on its own, as Triton types it: bool is
    int1; an int is int32, else uint32, int64, uint64 (the first that holds
    it); a float is fp32 unless it is a finite non-zero value outside fp32's
    normal range, which makes it fp64."""
    if isinstance(v, bool):
        return core.int1
    if isinstance(v, int):
        if -(1 << 31) <= v < (1 << 31):
            return core.int32
        if 0 <= v < (1 << 32):
            return core.uint32
        if -(1 << 63) <= v < (1 << 63):
            return core.int64
        if 0 <= v < (1 << 64):
            return core.uint64
        raise SemanticError(f"integer {v} does not fit in 64 bits")
    if isinstance(v, float):
        a = builtins.abs(v)
        if a == float("inf") or a == 0.0 or v != v or _FP32_MIN_NORMAL <= a <= _FP32_MAX:
            return core.float32
        return core.float64
    raise SemanticError(f"cannot use a value of Python type {type(v).__name__} "
                        "in a kernel expression")


_FP32_MIN_NORMAL = 2.0 ** -126
_FP32_MAX = (2 - 2.0 ** -23) * 2.0 ** 127


def int_range(ty: dtype):
    """The values an integer type holds (int1 as Triton's signed int1 would
    be misleading: a bool holds 0 and 1)."""
    bits = ty.primitive_bitwidth
    if ty.is_bool():
        return 0, 1
    if ty.is_int_signed():
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def python_scalar_type(v, like: Optional[dtype] = None) -> dtype:
    """The type of a Python scalar stored into, or compared against, an
    operand of type `like` (a load's `other`, a store's value, an atomic's
    operand): `like` itself when the value fits, else `literal_type(v)`.
    Binary operators do not use this: they follow `computation_type`."""
    if like is not None and not isinstance(v, bool):
        if isinstance(v, (int, float)) and like.is_floating():
            return like
        if isinstance(v, int) and like.is_int() and not like.is_bool():
            lo, hi = int_range(like)
            if lo <= v <= hi:
                return like
    return literal_type(v)


def to_tensor(v, like: Optional[dtype] = None) -> tensor:
    v = unwrap(v)
    if isinstance(v, tensor):
        return v
    if v is None:
        raise SemanticError("None cannot be used as a value here")
    return scalar_constant(v, python_scalar_type(v, like))


def _is_scalar_literal(v) -> bool:
    return not isinstance(unwrap(v), tensor)


# ---------------------------------------------------------------------------
# Type promotion
# ---------------------------------------------------------------------------


def _kind(ty: dtype) -> int:
    """bool < integer < floating, the order in which a Python scalar may
    leave promotion to the tensor it meets."""
    return 0 if ty.is_bool() else 1 if ty.is_int() else 2


def _signed(ty: dtype) -> bool:
    # Triton's int1 is a signed type; it matters for the mixed-signedness
    # rules below (bool with uint8 is uint8, bool // uint8 is an error).
    return ty.is_bool() or ty.is_int_signed()


def integer_promote(a: dtype, b: dtype) -> dtype:
    """C's usual arithmetic conversions (without the promotion to int): the
    wider type wins; at equal width the unsigned one; a narrower unsigned
    type converts to the wider signed one (int16 with uint8 is int16)."""
    if _signed(a) == _signed(b):
        return a if a.primitive_bitwidth > b.primitive_bitwidth else b
    unsigned, signed = (b, a) if _signed(a) else (a, b)
    return unsigned if unsigned.primitive_bitwidth >= signed.primitive_bitwidth else signed


def computation_type(a: dtype, b: dtype, div_or_mod: bool, a_is_literal: bool = False,
                     b_is_literal: bool = False) -> dtype:
    """The type a binary operator computes in, by Triton's rules:

    0. A Python scalar of a kind no higher than the tensor's (bool < int <
       float) takes the tensor's type (`x_fp16 * 2.0` is fp16, `x_uint8 + 1`
       is uint8);
    1. fp64, then fp32, wins; fp16 wins over bf16 and fp8; bf16 with bf16
       stays bf16, bf16 with fp8 is fp32; `/` and `%` of halves run in fp32;
    2. integers follow `integer_promote` (C), and `/`, `//` and `%` of
       integers of different signedness are an error, as in Triton.

    fp8 has no arithmetic: where the rules give an fp8 type the operation
    runs in fp16 (Triton would emit fp8 arithmetic that does not lower)."""
    return _fp8_computes_in_fp16(_computation_type(a, b, div_or_mod, a_is_literal,
                                                   b_is_literal))


def _fp8_computes_in_fp16(ty: dtype) -> dtype:
    return core.float16 if ty.is_fp8() else ty


def _computation_type(a, b, div_or_mod, a_is_literal, b_is_literal) -> dtype:
    if a_is_literal != b_is_literal:
        lit, ten = (a, b) if a_is_literal else (b, a)
        if _kind(lit) <= _kind(ten):
            if div_or_mod and ten.name in ("fp16", "bf16"):
                return core.float32
            return ten
    names = {a.name, b.name}
    if "fp64" in names:
        return core.float64
    if "fp32" in names:
        return core.float32
    if "fp16" in names:
        return core.float32 if div_or_mod else core.float16
    if names == {"bf16"}:
        return core.float32 if div_or_mod else core.bfloat16
    if "bf16" in names:
        return core.float32
    if a.is_fp8() and b.is_fp8():
        return a if a == b else core.float16
    if not a.is_int() or not b.is_int():
        raise SemanticError(f"invalid operands of types {a} and {b}")
    if div_or_mod and _signed(a) != _signed(b):
        # Triton's wording, which code written for Triton matches on.
        raise SemanticError(f"Cannot use /, //, or % with {a} and {b} because they have "
                            "different signedness; this is unlikely to result in a useful "
                            "answer. Cast them to the same signedness.")
    return integer_promote(a, b)


def _check_literal(v, ty: dtype) -> None:
    """A Python scalar converted to an operator's integer type must keep its
    value (Triton checks this on the left operand only; we check both)."""
    if not ty.is_int() or not isinstance(v, (int, float)) or isinstance(v, bool):
        return
    if v < 0 and ty.is_int_unsigned():
        raise SemanticError(f"cannot combine an unsigned {ty} operand with the negative "
                            f"scalar {v}; cast one of them explicitly")
    lo, hi = int_range(ty)
    if isinstance(v, int) and not lo <= v <= hi:
        raise SemanticError(f"scalar {v} is out of range for type {ty}")


def _binary_types(a, b, div_or_mod=False):
    """Triton's binary_op_type_checking: both sides as tensors and the
    computation type (None when a pointer is involved). A Python scalar is
    materialized once, directly in the type it computes in."""
    a, b = unwrap(a), unwrap(b)
    if a is None or b is None:
        raise SemanticError("None cannot be used as a value here")
    for t in (a, b):
        if isinstance(t, tensor) and isinstance(t.type, tensor_descriptor_type):
            raise SemanticError("tensor descriptors cannot be used in arithmetic")
    a_lit, b_lit = not isinstance(a, tensor), not isinstance(b, tensor)
    a_ty = literal_type(a) if a_lit else a.dtype
    b_ty = literal_type(b) if b_lit else b.dtype
    if a_ty.is_ptr() or b_ty.is_ptr():
        return to_tensor(a), to_tensor(b), None
    ty = computation_type(a_ty, b_ty, div_or_mod, a_lit, b_lit)
    if a_lit:
        _check_literal(a, ty)
        a = scalar_constant(a, ty)
    if b_lit:
        _check_literal(b, ty)
        b = scalar_constant(b, ty)
    return a, b, ty


def _result_type(shape_of: tensor, elem: dtype):
    return block_type(elem, shape_of.shape) if shape_of.type.is_block() else elem


def _op(name: str, operands: Sequence[tensor], ty, props: str = "") -> tensor:
    return tensor(_b().op(name, [o.handle for o in operands], ty.to_ir(), props), ty)


def _float_or_int(ty: dtype, fop: str, sop: str, uop: Optional[str] = None) -> str:
    if ty.is_floating():
        return fop
    return (uop or sop) if ty.is_int_unsigned() or ty.is_bool() else sop
