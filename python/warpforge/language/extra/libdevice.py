"""`tl.extra.libdevice`: the CUDA libdevice functions of Triton's
`triton.language.extra.libdevice` that warpforge lowers with the ops it
has. Float functions are `math` dialect ops, which the GPU backend lowers
to libdevice's `__nv_*` functions (fp32 and fp64, as Triton's); the rest are
built from `arith` ops. A name Triton has and warpforge lacks raises an
AttributeError listing the names here.

Semantics as Triton's: `round` rounds halves away from zero, `rint` and
`nearbyint` to even; `isnan`, `isinf` and `signbit` give booleans (int1);
`clz` and `popc` of int32 or int64 give int32; `mulhi` gives the high half
of the product (signed for signed types); `float_as_int` and friends reinterpret bits.
"""

from __future__ import annotations

from .. import core, math, semantic


def _name(fn, name: str, doc: str):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _unary(name: str, op: str = ""):
    def fn(arg0):
        return semantic.unary_math(op or name, arg0, f"libdevice.{name}")
    return _name(fn, name, f"libdevice's {name} of an fp32 or fp64 tensor, element-wise.")


def _binary(name: str, op: str):
    def fn(arg0, arg1):
        return semantic.binary_math(op, arg0, arg1, f"libdevice.{name}")
    return _name(fn, name, f"libdevice's {name} of fp32 or fp64 tensors, element-wise.")


def _float_test(name: str):
    def fn(arg0):
        return getattr(semantic, name)(arg0, f"libdevice.{name}")
    return _name(fn, name, f"libdevice's {name}, as a boolean tensor.")


def _bit_count(name: str, op: str):
    def fn(arg0):
        return semantic.bit_count(op, arg0, f"libdevice.{name}")
    return _name(fn, name, f"libdevice's {name} of int32 or int64, as int32.")


def _reinterpret(name: str, src: str, dst):
    def fn(arg0):
        return semantic.reinterpret(arg0, src, dst, f"libdevice.{name}")
    return _name(fn, name, f"The bits of a {src} tensor as {dst.name}.")


# Functions tl.math has under the same name.
abs = math.abs  # noqa: A001
exp, exp2, log, log2 = math.exp, math.exp2, math.log, math.log2
sin, cos, sqrt, rsqrt, erf = math.sin, math.cos, math.sqrt, math.rsqrt, math.erf
floor, ceil, fma, div_rn = math.floor, math.ceil, math.fma, math.div_rn
sqrt_rn = math.sqrt_rn

tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
asinh = _unary("asinh")
acosh = _unary("acosh")
atanh = _unary("atanh")
log10 = _unary("log10")
log1p = _unary("log1p")
expm1 = _unary("expm1")
cbrt = _unary("cbrt")
erfc = _unary("erfc")
trunc = _unary("trunc")
round = _unary("round")  # noqa: A001
rint = _unary("rint", "roundeven")
nearbyint = _unary("nearbyint", "roundeven")

atan2 = _binary("atan2", "atan2")
pow = _binary("pow", "powf")  # noqa: A001
copysign = _binary("copysign", "copysign")
fmod = _binary("fmod", "arith.remf")

isnan = _float_test("isnan")
isinf = _float_test("isinf")
signbit = _float_test("signbit")

clz = _bit_count("clz", "ctlz")
popc = _bit_count("popc", "ctpop")


def mulhi(arg0, arg1):
    """The high half of the product of two 32- or 64-bit integers, signed or
    unsigned as their type is."""
    return semantic.mulhi(arg0, arg1, signed=True)


float_as_int = _reinterpret("float_as_int", "fp32", core.int32)
int_as_float = _reinterpret("int_as_float", "int32", core.float32)
float_as_uint = _reinterpret("float_as_uint", "fp32", core.uint32)
uint_as_float = _reinterpret("uint_as_float", "uint32", core.float32)
double_as_longlong = _reinterpret("double_as_longlong", "fp64", core.int64)
longlong_as_double = _reinterpret("longlong_as_double", "int64", core.float64)

__all__ = sorted(n for n, v in globals().items()
                 if not n.startswith("_") and callable(v) and n not in ("annotations",))


def __getattr__(name):
    raise core.missing_attribute("tl.extra.libdevice", name, __all__, list_names=True)
