"""The interpreter's element-wise ops: the table `_OPS` from an IR op name
(`arith.addi`, `math.exp`, `arith.fptosi`, ...) to its NumPy implementation,
the comparison predicates of `arith.cmpf`/`arith.cmpi`, the names of the
atomic read-modify-write kinds and the ranks that order atomics on repeated
addresses. Integers are signless as in the IR (see
`warpforge.runtime.interpreter`).
"""

from __future__ import annotations

import math
import re

import numpy as np

from ._interpreter_values import _Elem, from_bits, round_to, to_bits


# ---------------------------------------------------------------------------
# Element-wise ops
# ---------------------------------------------------------------------------


def _u(x: np.ndarray, elem: _Elem) -> np.ndarray:
    """Integers reinterpreted as unsigned."""
    x = np.asarray(x)
    if elem.bits == 1:
        return x.astype(np.uint8)
    return x.view(elem.unsigned_dtype)


def _from_u(x: np.ndarray, elem: _Elem) -> np.ndarray:
    x = np.asarray(x)
    if elem.bits == 1:
        return (x & 1).astype(np.bool_)
    return x.astype(elem.unsigned_dtype).view(elem.np_dtype)


def _int_binary(fn, unsigned=False):
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        if relem.bits == 1 or unsigned:
            return _from_u(fn(_u(a, relem), _u(b, relem)), relem)
        return fn(a, b)
    return impl


def _float_binary(fn):
    def impl(ops, relem, props):
        return round_to(fn(ops[0].data, ops[1].data), relem)
    return impl


def _float_unary(fn):
    def impl(ops, relem, props):
        return round_to(fn(ops[0].data), relem)
    return impl


def _shift(kind):
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        width = relem.bits
        bu = _u(b, relem).astype(np.uint64)
        big = bu >= np.uint64(width)
        amount = np.where(big, 0, bu).astype(np.uint64)
        if kind == "shli":
            r = _u(a, relem).astype(np.uint64) << amount
            return np.where(big, 0, _from_u(r, relem))
        if kind == "shrui":
            r = _u(a, relem).astype(np.uint64) >> amount
            return np.where(big, 0, _from_u(r, relem))
        # Arithmetic shift: the sign fills; past the width only the sign is left.
        a64 = a.astype(np.int64)
        r = a64 >> np.minimum(amount, np.uint64(63)).astype(np.int64)
        r = np.where(big, np.where(a64 < 0, -1, 0), r)
        return r.astype(relem.np_dtype) if relem.bits > 1 else (r & 1).astype(np.bool_)
    return impl


def _divsi(ops, relem, props):
    a, b = ops[0].data, ops[1].data
    if relem.bits == 1:
        return _divui(ops, relem, props)
    zero = b == 0
    bs = np.where(zero, 1, b).astype(relem.np_dtype)
    r = np.fmod(a, bs)
    q = ((a - r) // bs).astype(relem.np_dtype)
    return np.where(zero, -1, q)


def _remsi(ops, relem, props):
    a, b = ops[0].data, ops[1].data
    if relem.bits == 1:
        return _remui(ops, relem, props)
    zero = b == 0
    return np.where(zero, a, np.fmod(a, np.where(zero, 1, b).astype(relem.np_dtype)))


def _divui(ops, relem, props):
    a, b = _u(ops[0].data, relem), _u(ops[1].data, relem)
    zero = b == 0
    q = a // np.where(zero, 1, b).astype(a.dtype)
    allones = np.array(-1).astype(np.int64).view(np.uint64).astype(a.dtype) if relem.bits > 1 \
        else np.uint8(1)
    return _from_u(np.where(zero, allones, q), relem)


def _remui(ops, relem, props):
    a, b = _u(ops[0].data, relem), _u(ops[1].data, relem)
    zero = b == 0
    return _from_u(np.where(zero, a, a % np.where(zero, 1, b).astype(a.dtype)), relem)


def _int_arith(fn):
    """add/sub/mul: wrap around; i1 arithmetic is modulo 2."""
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        if relem.bits == 1:
            return (fn(a.astype(np.uint8), b.astype(np.uint8)) & 1).astype(np.bool_)
        return fn(a, b)
    return impl


def _fptoi(unsigned: bool):
    def impl(ops, relem, props):
        # Saturating, NaN -> 0: what the GPU's cvt.rzi does.
        t = np.trunc(ops[0].data.astype(np.float64))
        bits = relem.bits
        nan = np.isnan(t)
        if unsigned:
            lo, hi = 0, (1 << bits) - 1
        else:
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if bits > 1 else (-1, 0)
        over = t >= float(hi) + 1.0
        under = t < float(lo)
        t = np.where(nan | over | under, 0.0, t)
        if unsigned:
            r = t.astype(np.uint64)
            r = np.where(over, np.uint64(hi), r).astype(np.uint64)
            return _from_u(r, relem)
        r = t.astype(np.int64)
        r = np.where(over, hi, np.where(under, lo, r)).astype(np.int64)
        if bits == 1:
            return (r & 1).astype(np.bool_)
        return r.astype(relem.np_dtype)
    return impl


def _itofp(unsigned: bool):
    def impl(ops, relem, props):
        x, src = ops[0].data, ops[0].elem
        if src.bits == 1:
            x = x.astype(np.int64) * (1 if unsigned else -1)
        elif unsigned:
            x = _u(x, src)
        return round_to(x, relem)
    return impl


def _extsi(ops, relem, props):
    x, src = ops[0].data, ops[0].elem
    if src.bits == 1:
        return np.where(x, -1, 0).astype(relem.np_dtype)
    return x.astype(relem.np_dtype)


def _extui(ops, relem, props):
    x, src = ops[0].data, ops[0].elem
    return _from_u(_u(x, src).astype(relem.unsigned_dtype), relem)


def _trunci(ops, relem, props):
    x = ops[0].data
    if relem.bits == 1:
        return (x & 1).astype(np.bool_)
    return x.astype(relem.np_dtype)


def _truncf(ops, relem, props):
    return round_to(ops[0].data, relem, rtz="toward_zero" in props)


def _fp_to_fp(ops, relem, props):
    m = re.search(r"rounding\s*=\s*(\d+)", props or "")
    return round_to(ops[0].data, relem, rtz=bool(m and int(m.group(1)) == 1))


def _bitcast(ops, relem, props):
    return from_bits(to_bits(ops[0].data, ops[0].elem), relem)


def _fma(ops, relem, props):
    a, b, c = (o.data.astype(np.float64) for o in ops)
    return round_to(a * b + c, relem)


def _per_element(fn):
    """A Python float function (math.erf) applied element-wise in float64."""
    def impl(x):
        x = np.asarray(x)
        return np.vectorize(fn, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype) \
            if x.size else x
    return impl


_erf = _per_element(math.erf)
_erfc = _per_element(math.erfc)


def _rsqrt(x):
    return np.asarray(1, dtype=x.dtype) / np.sqrt(x)


def _round_half_away(x):
    """C's round(): halves away from zero (np.round rounds them to even)."""
    t = np.trunc(x)
    return np.where(np.abs(x - t) >= 0.5, t + np.copysign(np.ones_like(x), x), t)


def _bit_count(leading: bool):
    """math.ctlz (leading zeros) and math.ctpop (set bits) of iN values."""
    def impl(ops, relem, props):
        v = _u(ops[0].data, relem).astype(np.uint64)
        count = np.zeros(v.shape, np.int64)
        for i in range(relem.bits):
            bit = (v >> np.uint64(i)) & np.uint64(1)
            count = np.where(bit != 0, i + 1, count) if leading else count + bit.astype(np.int64)
        return (relem.bits - count if leading else count).astype(relem.np_dtype)
    return impl


_OPS = {
    "arith.addf": _float_binary(np.add),
    "arith.subf": _float_binary(np.subtract),
    "arith.mulf": _float_binary(np.multiply),
    "arith.divf": _float_binary(np.divide),
    "arith.remf": _float_binary(np.fmod),
    "arith.negf": _float_unary(np.negative),
    "arith.maxnumf": _float_binary(np.fmax),
    "arith.minnumf": _float_binary(np.fmin),
    "arith.maximumf": _float_binary(np.maximum),
    "arith.minimumf": _float_binary(np.minimum),
    "math.absf": _float_unary(np.abs),
    "math.fma": _fma,
    "math.exp": _float_unary(np.exp),
    "math.exp2": _float_unary(np.exp2),
    "math.log": _float_unary(np.log),
    "math.log2": _float_unary(np.log2),
    "math.sqrt": _float_unary(np.sqrt),
    "math.rsqrt": _float_unary(_rsqrt),
    "math.sin": _float_unary(np.sin),
    "math.cos": _float_unary(np.cos),
    "math.erf": _float_unary(_erf),
    "math.floor": _float_unary(np.floor),
    "math.ceil": _float_unary(np.ceil),
    "math.tan": _float_unary(np.tan),
    "math.asin": _float_unary(np.arcsin),
    "math.acos": _float_unary(np.arccos),
    "math.atan": _float_unary(np.arctan),
    "math.sinh": _float_unary(np.sinh),
    "math.cosh": _float_unary(np.cosh),
    "math.tanh": _float_unary(np.tanh),
    "math.asinh": _float_unary(np.arcsinh),
    "math.acosh": _float_unary(np.arccosh),
    "math.atanh": _float_unary(np.arctanh),
    "math.log10": _float_unary(np.log10),
    "math.log1p": _float_unary(np.log1p),
    "math.expm1": _float_unary(np.expm1),
    "math.cbrt": _float_unary(np.cbrt),
    "math.erfc": _float_unary(_erfc),
    "math.trunc": _float_unary(np.trunc),
    "math.round": _float_unary(_round_half_away),
    "math.roundeven": _float_unary(np.rint),
    "math.atan2": _float_binary(np.arctan2),
    "math.powf": _float_binary(np.power),
    "math.copysign": _float_binary(np.copysign),
    "math.ctlz": _bit_count(True),
    "math.ctpop": _bit_count(False),
    "arith.addi": _int_arith(np.add),
    "arith.subi": _int_arith(np.subtract),
    "arith.muli": _int_arith(np.multiply),
    "arith.andi": _int_binary(np.bitwise_and),
    "arith.ori": _int_binary(np.bitwise_or),
    "arith.xori": _int_binary(np.bitwise_xor),
    "arith.shli": _shift("shli"),
    "arith.shrsi": _shift("shrsi"),
    "arith.shrui": _shift("shrui"),
    "arith.divsi": _divsi,
    "arith.remsi": _remsi,
    "arith.divui": _divui,
    "arith.remui": _remui,
    "arith.maxsi": _int_binary(np.maximum),
    "arith.minsi": _int_binary(np.minimum),
    "arith.maxui": _int_binary(np.maximum, unsigned=True),
    "arith.minui": _int_binary(np.minimum, unsigned=True),
    "math.absi": lambda ops, relem, props: np.abs(ops[0].data),
    "arith.extf": lambda ops, relem, props: round_to(ops[0].data, relem),
    "arith.truncf": _truncf,
    "tile.fp_to_fp": _fp_to_fp,
    "arith.sitofp": _itofp(False),
    "arith.uitofp": _itofp(True),
    "arith.fptosi": _fptoi(False),
    "arith.fptoui": _fptoi(True),
    "arith.extsi": _extsi,
    "arith.extui": _extui,
    "arith.trunci": _trunci,
    "arith.bitcast": _bitcast,
    "tile.bitcast": _bitcast,
    "tile.int_to_ptr": lambda ops, relem, props: np.asarray(ops[0].data).view(np.uint64),
    "tile.ptr_to_int": lambda ops, relem, props: np.asarray(ops[0].data).view(np.int64),
}

_FCMP = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
    6: lambda a, b: (a < b) | (a > b),
    7: lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    8: lambda a, b: ~((a < b) | (a > b)),
    9: lambda a, b: ~(a <= b), 10: lambda a, b: ~(a < b),
    11: lambda a, b: ~(a >= b), 12: lambda a, b: ~(a > b),
    13: np.not_equal,
    14: lambda a, b: np.isnan(a) | np.isnan(b),
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}
_ICMP = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
         5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}

_RMW_NAMES = {1: "add", 2: "fadd", 3: "and", 4: "or", 5: "xor", 6: "xchg", 7: "max",
              8: "min", 9: "umax", 10: "umin"}


def _occurrence_rank(addrs: np.ndarray) -> np.ndarray:
    """For each lane, how many earlier lanes use the same address."""
    order = np.argsort(addrs, kind="stable")
    sorted_addrs = addrs[order]
    starts = np.ones(addrs.size, np.bool_)
    starts[1:] = sorted_addrs[1:] != sorted_addrs[:-1]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(addrs.size), 0))
    ranks = np.empty(addrs.size, np.int64)
    ranks[order] = np.arange(addrs.size) - group_start
    return ranks
