"""`tl.math`: Triton's math functions that warpforge lowers.

`tl.exp(x)` and `tl.math.exp(x)` are the same function. Transcendental
functions take fp32 or fp64 (convert fp16 with `.to(tl.float32)`); on the GPU
they call CUDA's libdevice. Division is Triton's: fp32 `/` and `fdiv` are
`div.full.f32` (at most 2 ulp), `div_rn` and `fdiv(..., ieee_rounding=True)`
round as IEEE. `sqrt` is
libdevice's `sqrtf` (approximate for fp32, as Triton's); `sqrt_rn` is the
correctly rounded one (`sqrt.rn`).
"""

from __future__ import annotations

from . import core, semantic

_NOT_LOWERED: dict = {}


def _unary(name: str, doc: str):
    def fn(x):
        return semantic.unary_math(name, x)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Element-wise {doc} of an fp32 or fp64 tensor."
    return fn


exp = _unary("exp", "exponential")
exp2 = _unary("exp2", "exponential (base 2)")
log = _unary("log", "natural logarithm")
log2 = _unary("log2", "logarithm (base 2)")
cos = _unary("cos", "cosine")
sin = _unary("sin", "sine")
sqrt = _unary("sqrt", "square root (approximate for fp32, as Triton's)")
rsqrt = _unary("rsqrt", "inverse square root")
erf = _unary("erf", "error function")
floor = _unary("floor", "floor")
ceil = _unary("ceil", "ceiling")


def abs(x):  # noqa: A001 - the language's name
    """Element-wise absolute value (integers and floats; unsigned unchanged)."""
    return semantic.abs(x)


def fma(x, y, z):
    """Element-wise fused multiply-add `x * y + z`, rounded once."""
    return semantic.fma(x, y, z)


def fdiv(x, y, ieee_rounding=False):
    """Element-wise float division: as `/` (fp32: `div.full.f32`, at most 2
    ulp), or IEEE-rounded with `ieee_rounding=True` (as `div_rn`)."""
    return semantic.binary_math("arith.divf", x, y, "tl.math.fdiv",
                                full_range_div=not core._unwrap(ieee_rounding))


def div_rn(x, y):
    """Element-wise float division rounded to nearest (IEEE)."""
    return semantic.binary_math("arith.divf", x, y, "tl.math.div_rn")


def sqrt_rn(x):
    """Element-wise square root rounded to nearest (IEEE), fp32 or fp64."""
    return semantic.sqrt_rn(x)


def umulhi(x, y):
    """The most significant N bits of the 2N-bit product of two N-bit
    integers (int32, int64, uint32, uint64), read as unsigned."""
    return semantic.mulhi(x, y)


__all__ = ["abs", "ceil", "cos", "div_rn", "erf", "exp", "exp2", "fdiv", "floor", "fma",
           "log", "log2", "rsqrt", "sin", "sqrt", "sqrt_rn", "umulhi"]


def __getattr__(name):
    raise core.missing_attribute("tl.math", name, __all__, _NOT_LOWERED.get(name, ""),
                                 list_names=True)
