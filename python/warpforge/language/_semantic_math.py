"""The meaning of the element-wise math functions (`tl.exp`, `tl.math.*`,
`tl.extra.libdevice.*`): `math` dialect ops on fp32/fp64 values, which the
GPU backend lowers through libdevice, and functions built from `arith` ops
(`umulhi`, `isnan`, bit reinterpretation). `warpforge.language.semantic`
re-exports the public names.
"""

from __future__ import annotations

from . import core
from .core import tensor
from ._semantic_arith import (_arith_operands, abs, add, and_, cast, equal, full_range_div_props,
                              less_than, mul, not_equal, shr, sub, where)
from ._semantic_shapes import broadcast_to
from ._semantic_types import SemanticError, _op, to_tensor


def _check_float(ty, what: str) -> None:
    if ty.name not in ("fp32", "fp64"):
        raise SemanticError(f"{what} expects fp32 or fp64, got {ty}; convert with "
                            ".to(tl.float32)")


def unary_math(name: str, x, what: str = "") -> tensor:
    """`math.<name>` of an fp32 or fp64 value; `what` names the function in
    errors (default `tl.<name>`)."""
    x = to_tensor(x)
    _check_float(x.dtype, what or f"tl.{name}")
    # tl.sqrt is Triton's approximate square root (libdevice's sqrtf):
    # `afn` says approximation is allowed; math.sqrt without it is the
    # correctly rounded one (tl.math.sqrt_rn).
    props = "fastmath = #arith.fastmath<afn>" if name == "sqrt" else ""
    return _op(f"math.{name}", [x], x.type, props)


def sqrt_rn(x, what: str = "tl.math.sqrt_rn") -> tensor:
    """The correctly rounded (IEEE) square root: `math.sqrt` without fast-math
    flags, `sqrt.rn` in PTX."""
    x = to_tensor(x)
    _check_float(x.dtype, what)
    return _op("math.sqrt", [x], x.type)


def binary_math(name: str, a, b, what: str = "", full_range_div: bool = False) -> tensor:
    """`<name>` (a `math` or `arith` op) of two fp32 or fp64 values, promoted
    and broadcast as for arithmetic; `full_range_div`: an fp32 division is
    Triton's `div.full.f32` (the `/` operator's), not IEEE's."""
    a, b, ty = _arith_operands(a, b)
    _check_float(ty, what or f"tl.{name}")
    props = full_range_div_props(a.dtype) if full_range_div else ""
    return _op(name if "." in name else f"math.{name}", [a, b], a.type, props)


def fma(a, b, c) -> tensor:
    a, b, ty = _arith_operands(a, b)
    a, c, ty2 = _arith_operands(a, c)
    b = broadcast_to(cast(b, ty2), a.shape) if a.shape else cast(b, ty2)
    if not ty2.is_floating():
        raise SemanticError(f"fma needs float operands, got {ty2}")
    return _op("math.fma", [a, b, c], a.type)


def mulhi(a, b, signed: bool = False) -> tensor:
    """The high half of the 2N-bit product of two N-bit integers (32 or 64),
    in the operands' common type: read as unsigned (`tl.umulhi`), or with
    `signed` as that type's signedness (libdevice's `mulhi`). 32 bits widen to
    a 64-bit product; 64 bits combine the four 32-bit partial products, and
    a signed product subtracts the other operand for each negative one."""
    a, b, ty = _arith_operands(a, b)
    if ty.name not in ("int32", "int64", "uint32", "uint64"):
        raise SemanticError(f"umulhi expects int32, int64, uint32 or uint64, got {ty}")
    signed = signed and ty.is_int_signed()
    if ty.primitive_bitwidth == 32:
        narrow, wide = (core.int32, core.int64) if signed else (core.uint32, core.uint64)
        product = mul(cast(cast(a, narrow), wide), cast(cast(b, narrow), wide))
        return cast(shr(product, 32), ty)
    au, bu = cast(a, core.uint64), cast(b, core.uint64)
    low = 0xFFFFFFFF
    a0, a1, b0, b1 = and_(au, low), shr(au, 32), and_(bu, low), shr(bu, 32)
    p00, p01, p10, p11 = mul(a0, b0), mul(a0, b1), mul(a1, b0), mul(a1, b1)
    middle = add(add(shr(p00, 32), and_(p01, low)), and_(p10, low))
    high = add(add(add(p11, shr(p01, 32)), shr(p10, 32)), shr(middle, 32))
    if signed:
        high = sub(sub(high, where(less_than(a, 0), bu, 0)), where(less_than(b, 0), au, 0))
    return cast(high, ty)


def bit_count(name: str, x, what: str) -> tensor:
    """`math.ctlz` or `math.ctpop` of an int32 or int64 value, as int32."""
    x = to_tensor(x)
    if x.dtype.name not in ("int32", "int64", "uint32", "uint64"):
        raise SemanticError(f"{what} expects a 32- or 64-bit integer, got {x.dtype}")
    return cast(_op(f"math.{name}", [x], x.type), core.int32)


def isnan(x, what: str = "isnan") -> tensor:
    x = to_tensor(x)
    _check_float(x.dtype, what)
    return not_equal(x, x)


def isinf(x, what: str = "isinf") -> tensor:
    x = to_tensor(x)
    _check_float(x.dtype, what)
    return equal(abs(x), float("inf"))


def signbit(x, what: str = "signbit") -> tensor:
    """Whether the sign bit is set (true for -0.0 and negative NaNs)."""
    x = to_tensor(x)
    _check_float(x.dtype, what)
    signed = core.int32 if x.dtype.name == "fp32" else core.int64
    return less_than(cast(x, signed, bitcast=True), 0)


def reinterpret(x, src: str, dst, what: str) -> tensor:
    """The bits of a `src` value read as `dst` (libdevice's float_as_int...)."""
    x = to_tensor(x)
    if x.dtype.name != src:
        raise SemanticError(f"{what} expects {src}, got {x.dtype}")
    return cast(x, dst, bitcast=True)
