"""The meaning of the arithmetic, bitwise and comparison operations,
`where`, casts, program ids and the construction ops (`arange`, `full`,
pointer offsets). Math functions are in `_semantic_math`.
`warpforge.language.semantic` re-exports the public names.
"""

from __future__ import annotations

from typing import Sequence

from . import core
from .core import block_type, dtype, tensor
from ._semantic_shapes import (_lift_rank, broadcast_pair, broadcast_shapes, broadcast_to,
                               splat, validate_block_shape)
from ._semantic_types import (SemanticError, _b, _binary_types, _float_or_int, _op,
                              _result_type, scalar_constant, to_tensor, unwrap)


def _arith_operands(a, b, div_or_mod=False, allow_ptr=False):
    a, b, ty = _binary_types(a, b, div_or_mod)
    if ty is None:
        if not allow_ptr:
            raise SemanticError(f"unsupported operand types for this operation: "
                                f"{a.dtype} and {b.dtype}")
        return (*broadcast_pair(a, b), None)
    a, b = broadcast_pair(cast(a, ty), cast(b, ty))
    return a, b, ty


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
    return _op("arith.divf", [a, b], a.type, full_range_div_props(a.dtype))


def full_range_div_props(dtype) -> str:
    """fp32 `/` is Triton's: `div.full.f32` (at most 2 ulp, no slow path),
    said by the `afn` flag; other types and `tl.math.div_rn` divide with IEEE
    rounding."""
    return "fastmath = #arith.fastmath<afn>" if dtype.name == "fp32" else ""


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
        raise SemanticError(f"invalid operands of type {a.dtype} and {b.dtype}: bitwise "
                            "operations need integer operands")
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
    if x.dtype.is_fp8():
        # LLVM's fabs takes no fp8 type (fp8 values live as i8): clear the
        # sign bit, as Triton does. NaN stays NaN: only the sign changes.
        bits = cast(x, core.int8, bitcast=True)
        return cast(and_(bits, 0x7F), x.dtype, bitcast=True)
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
    if src.is_floating() and dst.is_floating() and not src.is_fp8() and \
            src.primitive_bitwidth == dst.primitive_bitwidth:
        # fp16 <-> bf16: neither holds the other, so through fp32, as Triton
        # casts them (tutorial 09 stores fp16 results through bf16
        # descriptors).
        return cast(cast(x, core.float32), dst)
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
        raise SemanticError(f"program_id axis must be 0, 1, or 2 but got {axis}")
    return tensor(_b().program_id(axis), core.int32)


def num_programs(axis) -> tensor:
    axis = int(unwrap(axis))
    if axis not in (0, 1, 2):
        raise SemanticError(f"num_programs axis must be 0, 1, or 2 but got {axis}")
    return tensor(_b().num_programs(axis), core.int32)


def arange(start, end) -> tensor:
    start, end = unwrap(start), unwrap(end)
    if not isinstance(start, int) or not isinstance(end, int):
        raise SemanticError("arange's start and end must be tl.constexpr integers")
    if end <= start:
        raise SemanticError(f"arange({start}, {end}): end must be greater than start")
    if not core.is_block_dim(end - start):
        if core.npot_blocks_enabled():
            raise SemanticError(f"arange({start}, {end}): the range's length must be "
                                f"{core.block_dim_rule()}, got {end - start}")
        raise SemanticError(f"arange({start}, {end}): the range must have a power-of-2 "
                            f"length, got {end - start}")
    if start < -(1 << 31) or end > (1 << 31):
        raise SemanticError(f"arange({start}, {end}) must fit in int32")
    from ._semantic_shapes import MAX_TENSOR_NUMEL
    if end - start > MAX_TENSOR_NUMEL:
        raise SemanticError(f"arange({start}, {end}) has {end - start} elements; a tensor "
                            f"holds at most {MAX_TENSOR_NUMEL}")
    bt = block_type(core.int32, [end - start])
    return tensor(_b().make_range(start, end, bt.to_ir()), bt)


def full(shape: Sequence[int], value, ty: dtype) -> tensor:
    """A block of `value`; an empty shape gives a scalar (Triton's 0-d block)."""
    ty = unwrap(ty)
    if not isinstance(ty, dtype):
        name = getattr(ty, "__name__", None) or repr(ty)
        raise SemanticError(f"dtype must be a tl.dtype such as tl.float32, got {name}")
    shape = validate_block_shape(shape)
    value = unwrap(value)
    if isinstance(value, tensor):
        return splat(cast(value, ty), shape)
    if not shape:
        return scalar_constant(value, ty)
    bt = block_type(ty, shape)
    return tensor(_b().constant(value, bt.to_ir(), ty.to_ir()), bt)


def addptr(ptr: tensor, offset: tensor) -> tensor:
    ptr, offset = broadcast_pair(ptr, offset)
    return tensor(_b().addptr(ptr.handle, offset.handle), ptr.type)
