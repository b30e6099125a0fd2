"""Typing rules and the meaning of every language operation.

Each function takes and returns `tensor`s and records operations through the
active builder (`core.current_builder()`): MLIR text when compiling, NumPy
when interpreting. Rules follow Triton's: integer/float promotion, Python
scalars adapting to the tensor they meet, NumPy-style broadcasting, and
C-style integer `//` and `%`. A broken rule raises `SemanticError`, which the
code generator reports at the kernel's source line.
"""

from __future__ import annotations

import builtins
from typing import List, Optional, Sequence

from . import core
from .core import (block_type, constexpr, dtype, pointer_type, tensor,
                   tensor_descriptor_type)

MAX_TENSOR_NUMEL = 1 << 20


class SemanticError(TypeError):
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


def full(shape: Sequence[int], value, ty: dtype) -> tensor:
    shape = validate_block_shape(shape)
    value = unwrap(value)
    if isinstance(value, tensor):
        return splat(cast(value, ty), shape)
    bt = block_type(ty, shape)
    return tensor(_b().constant(value, bt.to_ir(), ty.to_ir()), bt)


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
# Shapes
# ---------------------------------------------------------------------------


def validate_block_shape(shape) -> List[int]:
    shape = [int(unwrap(s)) for s in shape]
    numel = 1
    for s in shape:
        if not core.is_power_of_2(s):
            raise SemanticError(f"shape {shape}: every dimension must be a power of 2, "
                                f"got {s}")
        numel *= s
    if numel > MAX_TENSOR_NUMEL:
        raise SemanticError(f"shape {shape} has {numel} elements; a tensor holds at most "
                            f"{MAX_TENSOR_NUMEL}")
    return shape


def splat(x: tensor, shape: Sequence[int]) -> tensor:
    if x.type.is_block():
        raise SemanticError("cannot splat a block tensor")
    if not shape:
        return x
    bt = block_type(x.dtype, shape)
    return tensor(_b().splat(x.handle, bt.to_ir()), bt)


def broadcast_to(x: tensor, shape: Sequence[int]) -> tensor:
    x = to_tensor(x)
    shape = tuple(shape)
    if not x.type.is_block():
        return splat(x, shape)
    if x.shape == shape:
        return x
    if len(x.shape) != len(shape):
        raise SemanticError(f"cannot broadcast a tensor of shape {list(x.shape)} to "
                            f"{list(shape)}: ranks differ")
    for have, want in zip(x.shape, shape):
        if have != want and have != 1:
            raise SemanticError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
    bt = block_type(x.dtype, shape)
    return tensor(_b().broadcast(x.handle, bt.to_ir()), bt)


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> List[int]:
    if not a:
        return list(b)
    if not b:
        return list(a)
    a, b = list(a), list(b)
    if len(a) < len(b):
        a = [1] * (len(b) - len(a)) + a
    if len(b) < len(a):
        b = [1] * (len(a) - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise SemanticError(f"shapes {a} and {b} cannot be broadcast together: "
                                f"dimension sizes {x} and {y} differ and neither is 1")
        out.append(max(x, y))
    return out


def _lift_rank(x: tensor, rank: int) -> tensor:
    while x.type.is_block() and len(x.shape) < rank:
        x = expand_dims(x, 0)
    return x


def broadcast_pair(a: tensor, b: tensor):
    if not a.type.is_block() and not b.type.is_block():
        return a, b
    shape = broadcast_shapes(a.shape, b.shape)
    a = broadcast_to(_lift_rank(a, len(shape)), shape)
    b = broadcast_to(_lift_rank(b, len(shape)), shape)
    return a, b


def expand_dims(x: tensor, axis) -> tensor:
    x = to_tensor(x)
    axes = unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    for ax in sorted(int(unwrap(a)) % (len(x.shape) + 1) if int(unwrap(a)) < 0 else int(unwrap(a))
                     for a in axes):
        rank = len(x.shape)
        if ax < 0 or ax > rank:
            raise SemanticError(f"expand_dims axis {ax} is out of range for a rank-{rank} tensor")
        if not x.type.is_block():
            x = splat(x, [1])
            continue
        shape = list(x.shape)
        shape.insert(ax, 1)
        bt = block_type(x.dtype, shape)
        x = tensor(_b().expand_dims(x.handle, ax, bt.to_ir()), bt)
    return x


def reshape(x: tensor, shape: Sequence[int], can_reorder: bool = False) -> tensor:
    shape = validate_block_shape(shape)
    x = to_tensor(x)
    if not x.type.is_block():
        return splat(x, shape) if all(s == 1 for s in shape) else _shape_error(x, shape)
    bt = block_type(x.dtype, shape)
    if bt.numel != x.numel:
        raise SemanticError(f"cannot reshape a tensor of {x.numel} elements "
                            f"{list(x.shape)} to {shape} ({bt.numel} elements)")
    return tensor(_b().reshape(x.handle, bt.to_ir(), bool(can_reorder)), bt)


def _shape_error(x, shape):
    raise SemanticError(f"cannot reshape a scalar to {list(shape)}")


def permute(x: tensor, order: Optional[Sequence[int]]) -> tensor:
    x = to_tensor(x)
    if not x.type.is_block():
        raise SemanticError("trans/permute needs a tensor")
    rank = len(x.shape)
    if order is None:
        if rank != 2:
            raise SemanticError(f"trans without dims needs a 2-D tensor, got {rank}-D")
        order = [1, 0]
    order = [int(unwrap(o)) for o in order]
    if sorted(order) != list(range(rank)):
        raise SemanticError(f"permutation {order} is not a permutation of 0..{rank - 1}")
    bt = block_type(x.dtype, [x.shape[o] for o in order])
    return tensor(_b().trans(x.handle, order, bt.to_ir()), bt)


def subscript(x: tensor, slices) -> tensor:
    if not isinstance(slices, tuple):
        slices = (slices,)
    out = x
    dim = 0
    for s in slices:
        s = unwrap(s)
        if s is None:
            out = expand_dims(out, dim)
            dim += 1
        elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
            dim += 1
        else:
            raise SemanticError(f"unsupported tensor index {s!r}: only `None` and `:` "
                                "are allowed (e.g. x[:, None])")
    return out


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
        raise SemanticError(f"cannot use /, // or % with {a} and {b}: their signedness "
                            "differs, which is unlikely to give a useful answer; cast them "
                            "to the same signedness")
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


def _arith_operands(a, b, div_or_mod=False, allow_ptr=False):
    a, b, ty = _binary_types(a, b, div_or_mod)
    if ty is None:
        if not allow_ptr:
            raise SemanticError(f"unsupported operand types for this operation: "
                                f"{a.dtype} and {b.dtype}")
        return (*broadcast_pair(a, b), None)
    a, b = broadcast_pair(cast(a, ty), cast(b, ty))
    return a, b, ty


def _result_type(shape_of: tensor, elem: dtype):
    return block_type(elem, shape_of.shape) if shape_of.type.is_block() else elem


def _op(name: str, operands: Sequence[tensor], ty, props: str = "") -> tensor:
    return tensor(_b().op(name, [o.handle for o in operands], ty.to_ir(), props), ty)


def _float_or_int(ty: dtype, fop: str, sop: str, uop: Optional[str] = None) -> str:
    if ty.is_floating():
        return fop
    return (uop or sop) if ty.is_int_unsigned() or ty.is_bool() else sop


# ---------------------------------------------------------------------------
# Arithmetic
# ---------------------------------------------------------------------------


def add(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b, allow_ptr=True)
    if ty is None:
        if b.dtype.is_ptr():
            a, b = b, a
        if b.dtype.is_ptr():
            raise SemanticError("cannot add two pointers")
        if not b.dtype.is_int():
            raise SemanticError(f"pointer offsets must be integers, got {b.dtype}")
        return addptr(a, b)
    return _op(_float_or_int(ty, "arith.addf", "arith.addi"), [a, b], a.type)


def sub(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b, allow_ptr=True)
    if ty is None:
        if b.dtype.is_ptr() or not a.dtype.is_ptr():
            raise SemanticError("only an integer can be subtracted from a pointer")
        return addptr(a, minus(b))
    return _op(_float_or_int(ty, "arith.subf", "arith.subi"), [a, b], a.type)


def mul(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b)
    return _op(_float_or_int(ty, "arith.mulf", "arith.muli"), [a, b], a.type)


def truediv(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b, div_or_mod=True)
    if ty.is_int():
        a, b = cast(a, core.float32), cast(b, core.float32)
    elif not ty.is_floating():
        raise SemanticError(f"unexpected types for /: {ty}")
    return _op("arith.divf", [a, b], a.type)


def floordiv(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b, div_or_mod=True)
    if ty.is_floating():
        raise SemanticError("// is for integers (it truncates toward zero, as in C); "
                            "use tl.floor(a / b) for floats")
    return _op(_float_or_int(ty, "", "arith.divsi", "arith.divui"), [a, b], a.type)


def mod(a, b) -> tensor:
    a, b, ty = _arith_operands(a, b, div_or_mod=True)
    return _op(_float_or_int(ty, "arith.remf", "arith.remsi", "arith.remui"), [a, b], a.type)


def _bitwise(a, b, name):
    a, b, ty = _arith_operands(a, b)
    if not ty.is_int():
        raise SemanticError(f"bitwise operations need integer operands, got {ty}")
    return _op(name, [a, b], a.type)


def and_(a, b) -> tensor:
    return _bitwise(a, b, "arith.andi")


def or_(a, b) -> tensor:
    return _bitwise(a, b, "arith.ori")


def xor_(a, b) -> tensor:
    return _bitwise(a, b, "arith.xori")


def shl(a, b) -> tensor:
    return _bitwise(a, b, "arith.shli")


def shr(a, b) -> tensor:
    """`>>` is arithmetic when the left operand is a signed integer and
    logical otherwise, judged before promotion as Triton does: `int8 >>
    uint32` computes in uint32 with an arithmetic shift of the sign-extended
    value. A Python scalar on the left takes the right operand's type."""
    left = unwrap(a)
    a, b, ty = _arith_operands(a, b)
    if not ty.is_int():
        raise SemanticError(f"shifts need integer operands, got {ty}")
    left_ty = left.dtype if isinstance(left, tensor) else ty
    return _op("arith.shrsi" if left_ty.is_int_signed() else "arith.shrui", [a, b], a.type)


def logical_and(a, b) -> tensor:
    return and_(cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1))


def logical_or(a, b) -> tensor:
    return or_(cast(to_tensor(a), core.int1), cast(to_tensor(b), core.int1))


def logical_not(a) -> tensor:
    return xor_(cast(to_tensor(a), core.int1), True)


def minus(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_ptr():
        raise SemanticError("cannot negate a pointer")
    if x.dtype.is_floating():
        return _op("arith.negf", [x], x.type)
    return sub(0, x)


def invert(x) -> tensor:
    x = to_tensor(x)
    if not x.dtype.is_int():
        raise SemanticError(f"~ needs an integer operand, got {x.dtype}")
    return xor_(x, True if x.dtype.is_bool() else -1 if x.dtype.is_int_signed()
                else (1 << x.dtype.primitive_bitwidth) - 1)


def abs(x) -> tensor:
    x = to_tensor(x)
    if x.dtype.is_floating():
        return _op("math.absf", [x], x.type)
    if x.dtype.is_int_signed():
        return _op("math.absi", [x], x.type)
    if x.dtype.is_int():
        return x
    raise SemanticError(f"abs of {x.dtype}")


# Comparison predicates of arith.cmpf / arith.cmpi.
_FPRED = {"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}
_IPRED_S = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}
_IPRED_U = {"eq": 0, "ne": 1, "lt": 6, "le": 7, "gt": 8, "ge": 9}


def _compare(a, b, rel: str) -> tensor:
    a, b, ty = _arith_operands(a, b, allow_ptr=True)
    if ty is None:
        if not (a.dtype.is_ptr() and b.dtype.is_ptr()):
            raise SemanticError(f"cannot compare {a.dtype} with {b.dtype}")
        a, b = ptr_to_int(a), ptr_to_int(b)
        ty = core.uint64
    rt = _result_type(a, core.int1)
    if ty.is_floating():
        return tensor(_b().cmp("f", _FPRED[rel], a.handle, b.handle, rt.to_ir()), rt)
    preds = _IPRED_U if (ty.is_int_unsigned() or ty.is_bool()) else _IPRED_S
    return tensor(_b().cmp("i", preds[rel], a.handle, b.handle, rt.to_ir()), rt)


def less_than(a, b): return _compare(a, b, "lt")
def less_equal(a, b): return _compare(a, b, "le")
def greater_than(a, b): return _compare(a, b, "gt")
def greater_equal(a, b): return _compare(a, b, "ge")
def equal(a, b): return _compare(a, b, "eq")
def not_equal(a, b): return _compare(a, b, "ne")


def where(cond, x, y) -> tensor:
    cond = cast(to_tensor(cond), core.int1)
    x, y, ty = _arith_operands(x, y, allow_ptr=True)
    shape = broadcast_shapes(broadcast_shapes(cond.shape, x.shape), y.shape)
    if shape:
        cond = broadcast_to(_lift_rank(cond, len(shape)), shape)
        x = broadcast_to(_lift_rank(x, len(shape)), shape)
        y = broadcast_to(_lift_rank(y, len(shape)), shape)
    if x.type != y.type:
        raise SemanticError(f"where: operands have types {x.dtype} and {y.dtype}")
    return tensor(_b().select(cond.handle, x.handle, y.handle), x.type)


def _minmax(a, b, is_max: bool, propagate_nan: bool = False) -> tensor:
    a, b, ty = _arith_operands(a, b)
    if ty.is_floating():
        name = ("arith.maximumf" if is_max else "arith.minimumf") if propagate_nan else \
            ("arith.maxnumf" if is_max else "arith.minnumf")
    elif ty.is_int_unsigned() or ty.is_bool():
        name = "arith.maxui" if is_max else "arith.minui"
    else:
        name = "arith.maxsi" if is_max else "arith.minsi"
    return _op(name, [a, b], a.type)


def maximum(a, b, propagate_nan=False) -> tensor:
    return _minmax(a, b, True, bool(unwrap(propagate_nan)))


def minimum(a, b, propagate_nan=False) -> tensor:
    return _minmax(a, b, False, bool(unwrap(propagate_nan)))


def clamp(x, lo, hi, propagate_nan=False) -> tensor:
    return minimum(maximum(x, lo, propagate_nan), hi, propagate_nan)


def fma(a, b, c) -> tensor:
    a, b, ty = _arith_operands(a, b)
    a, c, ty2 = _arith_operands(a, c)
    b = broadcast_to(cast(b, ty2), a.shape) if a.shape else cast(b, ty2)
    if not ty2.is_floating():
        raise SemanticError(f"fma needs float operands, got {ty2}")
    return _op("math.fma", [a, b, c], a.type)


_MATH_FP32_64 = {"exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "erf",
                 "floor", "ceil"}


def unary_math(name: str, x) -> tensor:
    x = to_tensor(x)
    if name in _MATH_FP32_64 and x.dtype.name not in ("fp32", "fp64"):
        raise SemanticError(f"tl.{name} expects fp32 or fp64, got {x.dtype}; "
                            f"convert with .to(tl.float32)")
    return _op(f"math.{name}", [x], x.type)


# ---------------------------------------------------------------------------
# Casts
# ---------------------------------------------------------------------------

_ROUNDING = {"rtne": 0, "rtz": 1}


def cast(x, dst, fp_downcast_rounding=None, bitcast=False) -> tensor:
    x = to_tensor(x)
    dst = unwrap(dst)
    if isinstance(dst, str):
        dst = core.dtype_from_name(dst)
    if not isinstance(dst, dtype):
        raise SemanticError(f"cannot cast to {dst!r}: not a dtype")
    src = x.dtype
    if src == dst:
        return x
    rt = _result_type(x, dst)
    rounding = unwrap(fp_downcast_rounding)
    if rounding is not None and rounding not in _ROUNDING:
        raise SemanticError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {rounding!r}")
    if unwrap(bitcast):
        if src.primitive_bitwidth != dst.primitive_bitwidth:
            raise SemanticError(f"cannot bitcast {src} ({src.primitive_bitwidth} bits) to "
                                f"{dst} ({dst.primitive_bitwidth} bits)")
        return _op("tile.bitcast" if src.is_ptr() or dst.is_ptr() else "arith.bitcast", [x], rt)
    if src.is_ptr() or dst.is_ptr():
        if src.is_ptr() and dst.is_ptr():
            return _op("tile.bitcast", [x], rt)
        if src.is_ptr() and dst == core.int64:
            return _op("tile.ptr_to_int", [x], rt)
        if dst.is_ptr() and src == core.int64:
            return _op("tile.int_to_ptr", [x], rt)
        if src.is_ptr() and dst.is_bool():
            return not_equal(ptr_to_int(x), 0)
        raise SemanticError(f"cannot cast {src} to {dst}; pointers convert to and from int64")
    narrowing = (src.is_floating() and dst.is_floating()
                 and src.primitive_bitwidth > dst.primitive_bitwidth)
    if rounding is not None and not narrowing and not dst.is_fp8():
        raise SemanticError("fp_downcast_rounding applies only to narrowing float casts")
    if src.is_fp8() or dst.is_fp8():
        if src.is_floating() and dst.is_floating():
            props = f"rounding = {_ROUNDING[rounding or 'rtne']} : i32" if dst.is_fp8() else ""
            return _op("tile.fp_to_fp", [x], rt, props)
        # Integers go through fp32.
        return cast(cast(x, core.float32), dst, rounding)
    if src.is_floating() and dst.is_floating():
        if narrowing:
            props = "roundingmode = #arith.roundingmode<toward_zero>" if rounding == "rtz" else ""
            return _op("arith.truncf", [x], rt, props)
        return _op("arith.extf", [x], rt)
    if src.is_int() and dst.is_floating():
        return _op("arith.uitofp" if src.is_int_unsigned() or src.is_bool() else "arith.sitofp",
                   [x], rt)
    if src.is_floating() and dst.is_int():
        if dst.is_bool():
            return not_equal(x, 0.0)
        return _op("arith.fptoui" if dst.is_int_unsigned() else "arith.fptosi", [x], rt)
    # int -> int
    if dst.is_bool():
        return not_equal(x, 0)
    if src.primitive_bitwidth == dst.primitive_bitwidth:
        return tensor(x.handle, rt)  # same bits, other signedness
    if src.primitive_bitwidth > dst.primitive_bitwidth:
        return _op("arith.trunci", [x], rt)
    return _op("arith.extui" if src.is_int_unsigned() or src.is_bool() else "arith.extsi",
               [x], rt)


def ptr_to_int(x: tensor) -> tensor:
    return cast(x, core.int64)


# ---------------------------------------------------------------------------
# Program identity and construction
# ---------------------------------------------------------------------------


def program_id(axis) -> tensor:
    axis = int(unwrap(axis))
    if axis not in (0, 1, 2):
        raise SemanticError(f"program_id axis must be 0, 1 or 2, got {axis}")
    return tensor(_b().program_id(axis), core.int32)


def num_programs(axis) -> tensor:
    axis = int(unwrap(axis))
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1 or 2, got {axis}")
    return tensor(_b().num_programs(axis), core.int32)


def arange(start, end) -> tensor:
    start, end = unwrap(start), unwrap(end)
    if not isinstance(start, int) or not isinstance(end, int):
        raise SemanticError("arange's start and end must be tl.constexpr integers")
    if end <= start:
        raise SemanticError(f"arange({start}, {end}): end must be greater than start")
    if not core.is_power_of_2(end - start):
        raise SemanticError(f"arange({start}, {end}): the range must have a power-of-2 "
                            f"length, got {end - start}")
    if start < -(1 << 31) or end > (1 << 31):
        raise SemanticError(f"arange({start}, {end}) must fit in int32")
    bt = block_type(core.int32, [end - start])
    return tensor(_b().make_range(start, end, bt.to_ir()), bt)


def addptr(ptr: tensor, offset: tensor) -> tensor:
    ptr, offset = broadcast_pair(ptr, offset)
    return tensor(_b().addptr(ptr.handle, offset.handle), ptr.type)


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

_CACHE = {None: 1, "": 1, ".ca": 2, ".cg": 3, ".wb": 4, ".cs": 5, ".wt": 6, ".cv": 7}
_EVICT = {None: 1, "": 1, "evict_normal": 1, "evict_first": 2, "evict_last": 3}


def _cache(modifier, allowed) -> int:
    modifier = unwrap(modifier)
    if modifier not in allowed or modifier not in _CACHE:
        raise SemanticError(f"cache_modifier {modifier!r} is not one of "
                            f"{sorted(m for m in allowed if m)}")
    return _CACHE[modifier]


def _evict(policy) -> int:
    policy = unwrap(policy)
    if policy not in _EVICT:
        raise SemanticError(f"eviction_policy {policy!r} is not one of "
                            "'evict_normal', 'evict_first', 'evict_last'")
    return _EVICT[policy]


def _check_pointer(ptr, what: str) -> tensor:
    ptr = to_tensor(ptr)
    if not ptr.dtype.is_ptr():
        raise SemanticError(f"{what} needs a pointer or a tensor of pointers, got {ptr.dtype}")
    return ptr


def _bool_pointer_as_int8(ptr: tensor) -> tensor:
    # i1 is not addressable: booleans live in memory as bytes.
    ty = pointer_type(core.int8, ptr.dtype.address_space)
    return _op("tile.bitcast", [ptr], _result_type(ptr, ty))


def load(ptr, mask=None, other=None, cache_modifier="", eviction_policy="",
         volatile=False) -> tensor:
    ptr = _check_pointer(ptr, "tl.load")
    mask, other = unwrap(mask), unwrap(other)
    if mask is None and other is not None:
        raise SemanticError("tl.load: `other` needs a `mask` (it gives the value of "
                            "masked-off elements)")
    elem = ptr.dtype.element_ty
    is_bool = elem.is_bool()
    if is_bool:
        ptr, elem = _bool_pointer_as_int8(ptr), core.int8
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        ptr, mask = broadcast_pair(ptr, mask)
    if other is not None:
        other = cast(to_tensor(other, elem), elem)
        other = broadcast_to(other, ptr.shape) if ptr.shape else other
    rt = _result_type(ptr, elem)
    cache = _cache(cache_modifier, (None, "", ".ca", ".cg", ".cv"))
    handle = _b().load(ptr.handle, mask.handle if mask is not None else None,
                       other.handle if other is not None else None, cache,
                       _evict(eviction_policy), bool(unwrap(volatile)), rt.to_ir())
    out = tensor(handle, rt)
    return cast(out, core.int1) if is_bool else out


def store(ptr, value, mask=None, cache_modifier="", eviction_policy="") -> None:
    ptr = _check_pointer(ptr, "tl.store")
    elem = ptr.dtype.element_ty
    if elem.is_bool():
        ptr, elem = _bool_pointer_as_int8(ptr), core.int8
    value = to_tensor(value, elem)
    if value.type.is_block() and not ptr.type.is_block():
        ptr = broadcast_to(ptr, value.shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        ptr, mask = broadcast_pair(ptr, mask)
    value = cast(value, elem)
    if ptr.shape:
        value = broadcast_to(_lift_rank(value, len(ptr.shape)), ptr.shape)
    elif value.shape:
        raise SemanticError("tl.store: a block of values needs a block of pointers")
    cache = _cache(cache_modifier, (None, "", ".wb", ".cg", ".cs", ".wt"))
    _b().store(ptr.handle, value.handle, mask.handle if mask is not None else None,
               cache, _evict(eviction_policy))


_RMW = {"add": 1, "fadd": 2, "and": 3, "or": 4, "xor": 5, "xchg": 6, "max": 7, "min": 8,
        "umax": 9, "umin": 10}
_SEM = {"relaxed": 1, "acquire": 2, "release": 3, "acq_rel": 4}
_SCOPE = {"gpu": 1, "cta": 2, "sys": 3}


def _atomic_args(ptr, val, mask, sem, scope):
    ptr = _check_pointer(ptr, "atomic operations")
    elem = ptr.dtype.element_ty
    val = cast(to_tensor(val, elem), elem)
    if val.shape and not ptr.shape:
        ptr = broadcast_to(ptr, val.shape)
    if ptr.shape:
        val = broadcast_to(_lift_rank(val, len(ptr.shape)), ptr.shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        mask = broadcast_to(_lift_rank(mask, len(ptr.shape)), ptr.shape) if ptr.shape else mask
    sem, scope = unwrap(sem) or "acq_rel", unwrap(scope) or "gpu"
    if sem not in _SEM:
        raise SemanticError(f"sem must be one of {list(_SEM)}, got {sem!r}")
    if scope not in _SCOPE:
        raise SemanticError(f"scope must be one of {list(_SCOPE)}, got {scope!r}")
    return ptr, val, mask, _SEM[sem], _SCOPE[scope]


def atomic_rmw(kind: str, ptr, val, mask=None, sem=None, scope=None) -> tensor:
    ptr, val, mask, sem, scope = _atomic_args(ptr, val, mask, sem, scope)
    elem = val.dtype
    if kind == "add" and elem.is_floating():
        kind = "fadd"
    elif kind in ("max", "min") and elem.is_int_unsigned():
        kind = "u" + kind
    elif kind in ("max", "min") and elem.is_floating():
        return _float_atomic_minmax(kind, ptr, val, mask, sem, scope)
    handle = _b().atomic_rmw(_RMW[kind], sem, scope, ptr.handle, val.handle,
                             mask.handle if mask is not None else None)
    return tensor(handle, val.type)


def _float_atomic_minmax(kind, ptr, val, mask, sem, scope) -> tensor:
    """Float max/min from integer atomics (as Triton does): for values >= 0
    the float order is the signed-integer order of their bits; for negative
    values it is the reverse unsigned order."""
    elem = val.dtype
    if elem.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"atomic_{kind} on floats needs fp32 or fp64, got {elem}")
    ity = core.dtype(f"int{elem.primitive_bitwidth}")
    uty = core.dtype(f"uint{elem.primitive_bitwidth}")
    iptr = cast(ptr, pointer_type(ity), bitcast=True)
    ival = cast(val, ity, bitcast=True)
    # The sign bit decides (val >= 0.0 would send -0.0 down the wrong path).
    nonneg = greater_equal(ival, 0)
    neg = logical_not(nonneg)
    m_pos = nonneg if mask is None else logical_and(mask, nonneg)
    m_neg = neg if mask is None else logical_and(mask, neg)
    first, second = ("max", "umin") if kind == "max" else ("min", "umax")
    pos = tensor(_b().atomic_rmw(_RMW[first], sem, scope, iptr.handle, ival.handle,
                                 m_pos.handle), ival.type)
    negr = tensor(_b().atomic_rmw(_RMW[second], sem, scope, iptr.handle,
                                  ival.handle, m_neg.handle), ival.type)
    old = where(nonneg, pos, negr)
    del uty
    return cast(old, elem, bitcast=True)


def atomic_cas(ptr, cmp, val, sem=None, scope=None) -> tensor:
    ptr, val, _, sem, scope = _atomic_args(ptr, val, None, sem, scope)
    cmp = cast(to_tensor(cmp, val.dtype), val.dtype)
    if ptr.shape:
        cmp = broadcast_to(_lift_rank(cmp, len(ptr.shape)), ptr.shape)
    return tensor(_b().atomic_cas(sem, scope, ptr.handle, cmp.handle, val.handle), val.type)


# ---------------------------------------------------------------------------
# Tensor descriptors
# ---------------------------------------------------------------------------


def make_tensor_descriptor(base, shape, strides, block_shape) -> tensor:
    base = _check_pointer(base, "make_tensor_descriptor")
    if base.type.is_block():
        raise SemanticError("make_tensor_descriptor needs a scalar base pointer")
    shape, strides, block_shape = list(shape), list(strides), [int(unwrap(s)) for s in block_shape]
    if not (len(shape) == len(strides) == len(block_shape)):
        raise SemanticError(f"make_tensor_descriptor: shape ({len(shape)}), strides "
                            f"({len(strides)}) and block_shape ({len(block_shape)}) "
                            "need one entry per dimension")
    validate_block_shape(block_shape)
    elem = base.dtype.element_ty
    last = unwrap(strides[-1])
    if isinstance(last, int) and last != 1:
        raise SemanticError(f"the last stride of a tensor descriptor must be 1, got {last}")
    inner_bytes = block_shape[-1] * elem.primitive_bitwidth // 8
    if inner_bytes % 16:
        raise SemanticError(f"the innermost block dimension spans {inner_bytes} bytes; "
                            "TMA needs a multiple of 16 bytes")
    shape = [cast(to_tensor(s), core.int32) for s in shape]
    strides = [cast(to_tensor(s), core.int64) for s in strides]
    dty = tensor_descriptor_type(block_type(elem, block_shape))
    handle = _b().make_tensor_descriptor(base.handle, [s.handle for s in shape],
                                         [s.handle for s in strides], dty.to_ir())
    return tensor(handle, dty)


def _desc_offsets(desc: tensor, offsets) -> List:
    rank = len(desc.type.block_type.shape)
    offsets = list(offsets)
    if len(offsets) != rank:
        raise SemanticError(f"a rank-{rank} descriptor needs {rank} offsets, got {len(offsets)}")
    return [cast(to_tensor(o), core.int32).handle for o in offsets]


def descriptor_load(desc: tensor, offsets) -> tensor:
    bt = desc.type.block_type
    return tensor(_b().descriptor_load(desc.handle, _desc_offsets(desc, offsets), bt.to_ir()), bt)


def descriptor_store(desc: tensor, value, offsets) -> None:
    bt = desc.type.block_type
    value = broadcast_to(cast(to_tensor(value, bt.element_ty), bt.element_ty), bt.shape)
    _b().descriptor_store(desc.handle, _desc_offsets(desc, offsets), value.handle)


# ---------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------

_PRECISION = {"ieee": 0, "tf32": 1, "tf32x3": 2}


def dot(a, b, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=core.float32) -> tensor:
    a, b = to_tensor(a), to_tensor(b)
    if len(a.shape) not in (2, 3) or len(b.shape) != len(a.shape):
        raise SemanticError(f"tl.dot needs two 2-D (or 3-D batched) tensors, got shapes "
                            f"{list(a.shape)} and {list(b.shape)}")
    m, k = a.shape[-2:]
    kb, n = b.shape[-2:]
    if k != kb:
        raise SemanticError(f"tl.dot: the inner dimensions differ: a is {m}x{k}, b is {kb}x{n}")
    if m < 16 or n < 16 or k < 16:
        raise SemanticError(f"tl.dot needs every dimension to be at least 16, got "
                            f"M={m}, N={n}, K={k}")
    ea, eb = a.dtype, b.dtype
    if ea != eb and not (ea.is_fp8() and eb.is_fp8()):
        raise SemanticError(f"tl.dot: operand types differ ({ea} and {eb}); only fp8 "
                            "kinds may be mixed")
    if ea.name not in ("fp16", "bf16", "fp32", "fp8e4nv", "fp8e5", "int8"):
        raise SemanticError(f"tl.dot does not support {ea} operands; use float16, "
                            "bfloat16, float8e4nv, float8e5, float32 or int8")
    out_dtype = unwrap(out_dtype)
    if ea.is_int():
        out_dtype = core.int32
    precision = unwrap(input_precision)
    if precision is None:
        precision = "ieee" if unwrap(allow_tf32) is False else "tf32"
    if precision not in _PRECISION:
        raise SemanticError(f"input_precision must be one of {list(_PRECISION)}, "
                            f"got {precision!r}")
    if not ea.is_floating() or ea.name != "fp32":
        precision = "ieee"
    shape = list(a.shape[:-1]) + [n]
    acc = unwrap(acc)
    if acc is None:
        allowed = {"fp16": ("fp32", "fp16"), "fp8e4nv": ("fp32", "fp16"), "fp8e5": ("fp32", "fp16"),
                   "bf16": ("fp32",), "fp32": ("fp32",), "int8": ("int32",)}[ea.name]
        if out_dtype.name not in allowed:
            raise SemanticError(f"tl.dot of {ea} operands accumulates in "
                                f"{' or '.join(allowed)}, not {out_dtype}")
        acc = full(shape, 0, out_dtype)
    else:
        acc = to_tensor(acc)
        if list(acc.shape) != shape:
            raise SemanticError(f"tl.dot: acc has shape {list(acc.shape)}, expected {shape}")
    imprecise = unwrap(max_num_imprecise_acc)
    if imprecise is None:
        imprecise = 0
    handle = _b().dot(a.handle, b.handle, acc.handle, _PRECISION[precision], int(imprecise))
    return tensor(handle, acc.type)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


def _normalize_axis(axis, rank: int) -> int:
    axis = int(unwrap(axis))
    if axis < -rank or axis >= rank:
        raise SemanticError(f"axis {axis} is out of range for a rank-{rank} tensor")
    return axis % rank


def reduce(inputs, axis, combine, keep_dims=False) -> tuple:
    """`combine` maps 2N scalar tensors (lefts then rights) to N tensors."""
    inputs = [to_tensor(x) for x in inputs]
    if axis is None or unwrap(axis) is None:
        inputs = [reshape(x, [x.numel], can_reorder=True) for x in inputs]
        axis = 0
    shape = inputs[0].shape
    if not shape:
        raise SemanticError("reductions need a block tensor")
    for x in inputs[1:]:
        if x.shape != shape:
            raise SemanticError(f"reduce operands have shapes {list(shape)} and {list(x.shape)}")
    axis = _normalize_axis(axis, len(shape))
    out_shape = [s for i, s in enumerate(shape) if i != axis]
    elems = [x.dtype for x in inputs]
    rtypes = [block_type(e, out_shape) if out_shape else e for e in elems]

    def region(args):
        lhs = [tensor(h, e) for h, e in zip(args, elems * 2)]
        results = combine(lhs)
        results = results if isinstance(results, (list, tuple)) else [results]
        if len(results) != len(elems):
            raise SemanticError(f"the combine function returned {len(results)} values, "
                                f"expected {len(elems)}")
        return [cast(to_tensor(r, e), e).handle for r, e in zip(results, elems)]

    handles = _b().reduce([x.handle for x in inputs], axis, [e.to_ir() for e in elems],
                          [t.to_ir() for t in rtypes], region)
    outs = [tensor(h, t) for h, t in zip(handles, rtypes)]
    if unwrap(keep_dims):
        outs = [expand_dims(o, axis) for o in outs]
    return tuple(outs)


def _sum_dtype(ty: dtype, dtype_arg) -> dtype:
    dtype_arg = unwrap(dtype_arg)
    if dtype_arg is not None:
        return dtype_arg
    if ty.is_int() and ty.primitive_bitwidth < 32:
        return core.uint32 if ty.is_int_unsigned() else core.int32
    return ty


def reduce_builtin(x, axis, kind: str, keep_dims=False, dtype_arg=None) -> tensor:
    x = to_tensor(x)
    if kind == "sum":
        x = cast(x, _sum_dtype(x.dtype, dtype_arg))
        fn = lambda a: [add(a[0], a[1])]  # noqa: E731
    elif kind == "max":
        fn = lambda a: [maximum(a[0], a[1])]  # noqa: E731
    elif kind == "min":
        fn = lambda a: [minimum(a[0], a[1])]  # noqa: E731
    elif kind == "xor_sum":
        fn = lambda a: [xor_(a[0], a[1])]  # noqa: E731
    else:
        raise SemanticError(f"unknown reduction {kind}")
    return reduce([x], axis, fn, keep_dims)[0]


def arg_reduce(x, axis, kind: str, keep_dims=False) -> tensor:
    """argmax/argmin: reduce (value, index) pairs; ties take the lower index."""
    x = to_tensor(x)
    if axis is None or unwrap(axis) is None:
        x = reshape(x, [x.numel], can_reorder=False)
        axis = 0
    axis = _normalize_axis(axis, len(x.shape))
    idx = arange(0, x.shape[axis])
    for _ in range(axis):
        idx = expand_dims(idx, 0)
    while len(idx.shape) < len(x.shape):
        idx = expand_dims(idx, len(idx.shape))
    idx = broadcast_to(idx, x.shape)

    def combine(a):
        v1, i1, v2, i2 = a
        better = greater_than(v1, v2) if kind == "max" else less_than(v1, v2)
        tie = logical_and(equal(v1, v2), less_than(i1, i2))
        pick = logical_or(better, tie)
        return [where(pick, v1, v2), where(pick, i1, i2)]

    return reduce([x, idx], axis, combine, keep_dims)[1]


def scan(inputs, axis, combine, reverse=False) -> tuple:
    inputs = [to_tensor(x) for x in inputs]
    shape = inputs[0].shape
    if not shape:
        raise SemanticError("scans need a block tensor")
    axis = _normalize_axis(axis, len(shape))
    elems = [x.dtype for x in inputs]

    def region(args):
        results = combine([tensor(h, e) for h, e in zip(args, elems * 2)])
        results = results if isinstance(results, (list, tuple)) else [results]
        return [cast(to_tensor(r, e), e).handle for r, e in zip(results, elems)]

    handles = _b().scan([x.handle for x in inputs], axis, bool(unwrap(reverse)),
                        [e.to_ir() for e in elems], region)
    return tuple(tensor(h, x.type) for h, x in zip(handles, inputs))


def cumulative(x, axis, kind: str, reverse=False) -> tensor:
    x = to_tensor(x)
    if kind == "sum":
        x = cast(x, _sum_dtype(x.dtype, None))
        fn = lambda a: [add(a[0], a[1])]  # noqa: E731
    else:
        fn = lambda a: [mul(a[0], a[1])]  # noqa: E731
    return scan([x], axis, fn, reverse)[0]


# ---------------------------------------------------------------------------
# Debugging
# ---------------------------------------------------------------------------


_HINTS = {"multiple_of": "tile.divisibility", "max_contiguous": "tile.contiguity",
          "max_constancy": "tile.constancy"}


def hint(x, kind: str, values) -> tensor:
    """A promise about `x`'s values for the compiler's axis analysis: every
    element is a multiple of values[d] (multiple_of), or runs of values[d]
    consecutive elements along dimension d are consecutive integers
    (max_contiguous) or equal (max_constancy)."""
    x = to_tensor(x)
    values = unwrap(values)
    values = [int(unwrap(v)) for v in (values if isinstance(values, (list, tuple)) else [values])]
    rank = max(len(x.shape), 1)
    if len(values) == 1 and rank > 1 and kind == "multiple_of":
        values = values * rank
    if len(values) != rank:
        raise SemanticError(f"tl.{kind} needs {rank} value(s), one per dimension, got "
                            f"{len(values)}")
    if any(v <= 0 for v in values):
        raise SemanticError(f"tl.{kind} values must be positive, got {values}")
    if not (x.dtype.is_int() or x.dtype.is_ptr()):
        raise SemanticError(f"tl.{kind} applies to integers and pointers, got {x.dtype}")
    if kind != "multiple_of" and not x.type.is_block():
        raise SemanticError(f"tl.{kind} applies to tensors, not scalars")
    if not _b().hint(x.handle, _HINTS[kind], values):
        raise SemanticError(f"tl.{kind} applies to values computed by an operation or to "
                            "kernel arguments, not to loop-carried values")
    return x


def debug_barrier() -> None:
    _b().debug_barrier()


def device_assert(cond, msg: str = "") -> None:
    cond = cast(to_tensor(cond), core.int1)
    _b().device_assert(cond.handle, str(unwrap(msg)))


def device_print(prefix: str, args, hex=False) -> None:
    args = [to_tensor(a) for a in args]
    signed = [1 if a.dtype.is_int_signed() else 0 for a in args]
    _b().device_print(str(unwrap(prefix)), [a.handle for a in args], bool(unwrap(hex)), signed)
