"""The rest of Triton's language surface (issue 19): tensor methods, `tl.math`,
`tl.extra.libdevice`, scalar `tl.full((), ...)`, shapes compared with lists,
constexpr parameters as plain values in the interpreter, `isinstance` in
kernels, argmax/argmin tie breaking, `tl.assume` and `tl.umulhi`, and the
errors for names that do not exist.

Each kernel runs in the interpreter against a NumPy reference (random
non-zero inputs, odd sizes), compiles to a cubin on the CPU, and runs on the
GPU in the tests marked `gpu` (same references)."""

import math

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from launch_helpers import launch
from warpforge.compiler.errors import CompilationError
from warpforge.language.extra import libdevice

N = 61
BLOCK = 64
RNG = np.random.default_rng(19)

BACKENDS = ["interp", pytest.param("gpu", marks=pytest.mark.gpu)]


@pytest.fixture(params=BACKENDS)
def backend(request, monkeypatch):
    if request.param == "interp":
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    return request.param


def nonzero(lo, hi, size, dtype=np.float32):
    x = RNG.uniform(lo, hi, size)
    x[np.abs(x) < 1e-3] = 0.5
    return x.astype(dtype)


@triton.jit
def _put(out_ptr, k, y, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + k * BLOCK + offs, y)


# ---------------------------------------------------------------------------
# Tensor methods (Triton's _tensor_member_fn list)
# ---------------------------------------------------------------------------


@triton.jit
def unary_methods(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    _put(out_ptr, 0, x.exp(), BLOCK)
    _put(out_ptr, 1, x.log(), BLOCK)
    _put(out_ptr, 2, x.sqrt(), BLOCK)
    _put(out_ptr, 3, (-x).abs(), BLOCK)
    _put(out_ptr, 4, x.exp2() + x.log2(), BLOCK)
    _put(out_ptr, 5, x.sin() * x.cos(), BLOCK)
    _put(out_ptr, 6, x.rsqrt() + x.erf(), BLOCK)
    _put(out_ptr, 7, (x * 3.0).floor() + (x * 3.0).ceil(), BLOCK)
    _put(out_ptr, 8, x.sigmoid(), BLOCK)
    _put(out_ptr, 9, x.cast(tl.float16).cast(tl.float32), BLOCK)
    _put(out_ptr, 10, (x * 7.0).to(tl.int32).cdiv(3).to(tl.float32), BLOCK)
    (out_ptr + 11 * BLOCK + offs).store(x * 2.0)


def _unary_methods_reference(x):
    x = x.astype(np.float64)
    erf = np.vectorize(math.erf)
    rows = [np.exp(x), np.log(x), np.sqrt(x), np.abs(x), np.exp2(x) + np.log2(x),
            np.sin(x) * np.cos(x), 1 / np.sqrt(x) + erf(x),
            np.floor(3 * x) + np.ceil(3 * x), 1 / (1 + np.exp(-x)),
            x.astype(np.float16).astype(np.float64),
            ((np.trunc(7 * x.astype(np.float32)).astype(np.int64) + 2) // 3), 2 * x]
    return np.stack(rows).astype(np.float32)


def test_unary_methods(backend):
    x = np.ones(BLOCK, np.float32)
    x[:N] = nonzero(0.2, 2.0, N)
    out = np.zeros((12, BLOCK), np.float32)
    launch(unary_methods, backend, x, out, N, BLOCK=BLOCK)
    np.testing.assert_allclose(out, _unary_methods_reference(x), rtol=2e-6 if backend ==
                               "interp" else 1e-5, atol=1e-6)


@triton.jit
def _add_combine(a, b):
    return a + b


@triton.jit
def reduce_methods(x_ptr, out_ptr, rows, cols, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    mask = (r < rows) & (c < cols)
    ptrs = x_ptr + r * cols + c
    x = tl.load(ptrs, mask=mask, other=0.0)
    lo = tl.load(ptrs, mask=mask, other=float("inf"))
    hi = tl.load(ptrs, mask=mask, other=-float("inf"))
    tl.static_assert(x.shape == [R, C])
    tl.static_assert(x.shape == (R, C))
    tl.static_assert(x.shape != [C, R])
    offs = tl.arange(0, R)
    tl.store(out_ptr + 0 * R + offs, x.sum(1))
    tl.store(out_ptr + 1 * R + offs, hi.max(1))
    tl.store(out_ptr + 2 * R + offs, lo.min(axis=1))
    tl.store(out_ptr + 3 * R + offs, hi.argmax(1).to(tl.float32))
    tl.store(out_ptr + 4 * R + offs, lo.argmin(1).to(tl.float32))
    tl.store(out_ptr + 5 * R + offs, x.reduce(1, _add_combine))
    tl.store(out_ptr + 6 * R + offs, x.cumsum(1).max(1))
    tl.store(out_ptr + 7 * R + offs, (x + 1.0).cumprod(1).max(1))
    tl.store(out_ptr + 8 * R + offs, x.associative_scan(1, _add_combine).min(1))
    sm = hi.softmax(1, keep_dims=True)
    tl.store(out_ptr + 9 * R + offs, sm.max(1))
    tl.store(out_ptr + 10 * R + offs, x.to(tl.int32).xor_sum(1).to(tl.float32))


def _reduce_methods_reference(x):
    """Per real row (the padding has zeros, so scans and sums keep their values)."""
    xx = x.astype(np.float64)
    e = np.exp(xx - xx.max(1, keepdims=True))
    return np.stack([xx.sum(1), xx.max(1), xx.min(1), xx.argmax(1), xx.argmin(1), xx.sum(1),
                     np.cumsum(xx, 1).max(1), np.cumprod(xx + 1, 1).max(1),
                     np.cumsum(xx, 1).min(1), (e / e.sum(1, keepdims=True)).max(1),
                     np.bitwise_xor.reduce(np.trunc(x).astype(np.int32), axis=1)])


def test_reduce_methods(backend):
    x = nonzero(-3.0, 3.0, (5, 13))
    out = np.zeros((11, 8), np.float32)
    launch(reduce_methods, backend, x, out, 5, 13, R=8, C=16)
    np.testing.assert_allclose(out[:, :5], _reduce_methods_reference(x), rtol=1e-5,
                               atol=1e-5)


@triton.jit
def shape_methods(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    n: tl.constexpr = R * C
    flat = tl.arange(0, n)
    tl.store(out_ptr + 0 * n + flat, x.reshape(n))
    tl.store(out_ptr + 1 * n + flat, x.ravel())
    t = x.trans()
    tl.store(out_ptr + 2 * n + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :], t)
    p = x.permute(1, 0)
    tl.store(out_ptr + 3 * n + tl.arange(0, C)[:, None] * R + tl.arange(0, R)[None, :], p)
    row = tl.load(x_ptr + tl.arange(0, C))
    b = row.expand_dims(0).broadcast_to(R, C)
    tl.store(out_ptr + 4 * n + r * C + c, b)
    tl.store(out_ptr + 5 * n + flat, x.view(n).sum(0) + tl.zeros([n], tl.float32))


def test_shape_methods(backend):
    R, C = 4, 8
    x = nonzero(-2.0, 2.0, (R, C))
    out = np.zeros((6, R * C), np.float32)
    launch(shape_methods, backend, x, out, R=R, C=C)
    ref = np.stack([x.ravel(), x.ravel(), x.T.ravel(), x.T.ravel(),
                    np.broadcast_to(x[0], (R, C)).ravel(),
                    np.full(R * C, x.astype(np.float64).sum())])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


@triton.jit
def atomic_methods(counter_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    (counter_ptr + 0).atomic_add(tl.sum(x, 0))
    (counter_ptr + 1).atomic_max(tl.max(x, 0))
    (counter_ptr + 2).atomic_min(tl.min(x, 0))
    (counter_ptr + 3).atomic_xor(7)
    (counter_ptr + 4).atomic_cas(0, 11)


def test_atomic_methods(backend):
    x = RNG.integers(-50, 50, BLOCK).astype(np.int32)
    counter = np.array([1, -1000, 1000, 0, 0], np.int32)
    launch(atomic_methods, backend, counter, x, N, BLOCK=BLOCK, grid=(3,))
    np.testing.assert_array_equal(counter, [1 + 3 * int(x[:N].sum()), max(-1000, x[:N].max()),
                                            min(1000, x[:N].min()), 7, 11])


@pytest.mark.parametrize("kernel,args,consts", [
    ("unary_methods", lambda: (np.ones(BLOCK, np.float32), np.zeros(12 * BLOCK, np.float32), N),
     dict(BLOCK=BLOCK)),
    ("reduce_methods", lambda: (np.ones(65, np.float32), np.zeros(88, np.float32), 5, 13),
     dict(R=8, C=16)),
    ("shape_methods", lambda: (np.ones(32, np.float32), np.zeros(192, np.float32)),
     dict(R=4, C=8)),
    ("atomic_methods", lambda: (np.zeros(5, np.int32), np.zeros(BLOCK, np.int32), N),
     dict(BLOCK=BLOCK)),
])
def test_methods_compile_to_a_cubin(kernel, args, consts):
    compiled = globals()[kernel].warmup(*args(), grid=(1,), **consts)
    assert compiled.asm["cubin"]


# ---------------------------------------------------------------------------
# tl.math and tl.extra.libdevice
# ---------------------------------------------------------------------------

_erf = np.vectorize(math.erf)
_erfc = np.vectorize(math.erfc)
_HALVES = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])


def _round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


# name: (reference, low, high)
UNARY = {
    "exp": (np.exp, -2, 2), "exp2": (np.exp2, -2, 2), "log": (np.log, 0.1, 4),
    "log2": (np.log2, 0.1, 4), "sqrt": (np.sqrt, 0.1, 4), "rsqrt": (lambda x: 1 / np.sqrt(x),
                                                                    0.1, 4),
    "sin": (np.sin, -3, 3), "cos": (np.cos, -3, 3), "erf": (_erf, -2, 2),
    "floor": (np.floor, -4, 4), "ceil": (np.ceil, -4, 4), "abs": (np.abs, -4, 4),
    "tan": (np.tan, -1.2, 1.2), "asin": (np.arcsin, -0.95, 0.95),
    "acos": (np.arccos, -0.95, 0.95), "atan": (np.arctan, -4, 4), "sinh": (np.sinh, -3, 3),
    "cosh": (np.cosh, -3, 3), "tanh": (np.tanh, -3, 3), "asinh": (np.arcsinh, -4, 4),
    "acosh": (np.arccosh, 1.1, 4), "atanh": (np.arctanh, -0.9, 0.9),
    "log10": (np.log10, 0.1, 4), "log1p": (np.log1p, -0.5, 3), "expm1": (np.expm1, -1, 1),
    "cbrt": (np.cbrt, -8, 8), "erfc": (_erfc, -2, 2), "trunc": (np.trunc, -4, 4),
    "round": (_round_half_away, -4, 4), "rint": (np.rint, -4, 4),
    "nearbyint": (np.rint, -4, 4),
}
BINARY = {
    "atan2": (np.arctan2, -3, 3), "pow": (np.power, 0.1, 2.5), "copysign": (np.copysign, -3, 3),
    "fmod": (np.fmod, -5, 5), "div_rn": (np.divide, -3, 3),
}


def _unary_inputs(names, dtype=np.float32):
    x = np.ones((len(names), BLOCK), dtype)
    for k, name in enumerate(names):
        _, lo, hi = UNARY[name]
        x[k, :N] = nonzero(lo, hi, N, dtype)
        if lo <= -3:  # halves, where the rounding functions differ
            x[k, :len(_HALVES)] = _HALVES
    return x


@triton.jit
def libdevice_unary(x_ptr, out_ptr, n, NAMES: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in tl.static_range(len(NAMES)):
        x = tl.load(x_ptr + k * BLOCK + offs, mask=offs < n, other=1.0)
        tl.store(out_ptr + k * BLOCK + offs, getattr(libdevice, NAMES[k])(x), mask=offs < n)


@triton.jit
def libdevice_binary(x_ptr, y_ptr, out_ptr, n, NAMES: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for k in tl.static_range(len(NAMES)):
        x = tl.load(x_ptr + k * BLOCK + offs, mask=offs < n, other=1.0)
        y = tl.load(y_ptr + k * BLOCK + offs, mask=offs < n, other=1.0)
        tl.store(out_ptr + k * BLOCK + offs, getattr(libdevice, NAMES[k])(x, y), mask=offs < n)


def _check_unary(names, x, out, rtol):
    for k, name in enumerate(names):
        ref = UNARY[name][0](x[k, :N].astype(np.float64))
        np.testing.assert_allclose(out[k, :N], ref, rtol=rtol, atol=rtol, err_msg=name)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_libdevice_unary(backend, dtype):
    names = tuple(UNARY)
    x = _unary_inputs(names, dtype)
    out = np.zeros_like(x)
    launch(libdevice_unary, backend, x, out, N, NAMES=names, BLOCK=BLOCK)
    _check_unary(names, x, out, 2e-6 if dtype == np.float32 else 1e-12)


def test_libdevice_binary(backend):
    names = tuple(BINARY)
    x = np.ones((len(names), BLOCK), np.float32)
    y = np.ones_like(x)
    for k, name in enumerate(names):
        _, lo, hi = BINARY[name]
        x[k, :N] = nonzero(lo, hi, N)
        y[k, :N] = nonzero(lo, hi, N) if name != "pow" else nonzero(-2, 2, N)
    out = np.zeros_like(x)
    launch(libdevice_binary, backend, x, y, out, N, NAMES=names, BLOCK=BLOCK)
    for k, name in enumerate(names):
        ref = BINARY[name][0](x[k, :N].astype(np.float64), y[k, :N].astype(np.float64))
        np.testing.assert_allclose(out[k, :N], ref, rtol=2e-6, atol=2e-6, err_msg=name)


def test_libdevice_compiles_to_a_cubin():
    names = tuple(UNARY)
    x = np.ones((len(names), BLOCK), np.float32)
    compiled = libdevice_unary.warmup(x, x, N, NAMES=names, BLOCK=BLOCK, grid=(1,))
    assert "__nv_asinf" in compiled.asm["llir"] or "asin" in compiled.asm["tile"]
    assert compiled.asm["cubin"]
    x64 = np.ones((2, BLOCK), np.float64)
    assert libdevice_unary.warmup(x64, x64, N, NAMES=("asin", "tanh"), BLOCK=BLOCK,
                                  grid=(1,)).asm["cubin"]
    names = tuple(BINARY)
    x = np.ones((len(names), BLOCK), np.float32)
    assert libdevice_binary.warmup(x, x, x, N, NAMES=names, BLOCK=BLOCK, grid=(1,)).asm["cubin"]


@triton.jit
def math_module(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    y = tl.load(y_ptr + offs, mask=offs < n, other=1.0)
    _put(out_ptr, 0, tl.math.exp(x) + tl.math.log(y), BLOCK)
    _put(out_ptr, 1, tl.math.fma(x, y, 0.5), BLOCK)
    _put(out_ptr, 2, tl.math.fdiv(x, y), BLOCK)
    _put(out_ptr, 3, tl.math.div_rn(x, y), BLOCK)
    _put(out_ptr, 4, tl.math.abs(tl.math.sin(x)) + tl.math.erf(x), BLOCK)
    _put(out_ptr, 5, tl.math.sqrt(y) * tl.math.rsqrt(y), BLOCK)
    _put(out_ptr, 6, tl.math.floor(x * 2.0) - tl.math.ceil(x * 2.0), BLOCK)
    _put(out_ptr, 7, tl.math.exp2(x) + tl.math.log2(y) + tl.math.cos(x), BLOCK)


def test_math_module(backend):
    x = nonzero(-2.0, 2.0, BLOCK)
    y = nonzero(0.2, 3.0, BLOCK)
    out = np.zeros((8, BLOCK), np.float32)
    launch(math_module, backend, x, y, out, N, BLOCK=BLOCK)
    xm, ym = np.where(np.arange(BLOCK) < N, x, 1.0).astype(np.float64), \
        np.where(np.arange(BLOCK) < N, y, 1.0).astype(np.float64)
    ref = [np.exp(xm) + np.log(ym), xm * ym + 0.5, xm / ym, xm / ym,
           np.abs(np.sin(xm)) + _erf(xm), np.ones(BLOCK), np.floor(2 * xm) - np.ceil(2 * xm),
           np.exp2(xm) + np.log2(ym) + np.cos(xm)]
    np.testing.assert_allclose(out, np.stack(ref), rtol=1e-5, atol=1e-5)


def test_math_module_compiles_to_a_cubin():
    x = np.ones(BLOCK, np.float32)
    assert math_module.warmup(x, x, np.zeros(8 * BLOCK, np.float32), N, BLOCK=BLOCK,
                              grid=(1,)).asm["cubin"]


@triton.jit
def divisions(x_ptr, y_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    _put(out_ptr, 0, x / y, BLOCK)
    _put(out_ptr, 1, tl.math.fdiv(x, y), BLOCK)
    _put(out_ptr, 2, tl.math.div_rn(x, y), BLOCK)
    _put(out_ptr, 3, tl.math.fdiv(x, y, ieee_rounding=True), BLOCK)


def _division_operands():
    """Quotients over the whole normal range: denominators from 1e-30 to
    3e38 (past 2^126, where div.approx.f32 gives 0)."""
    x = nonzero(-1000.0, 1000.0, BLOCK)
    y = nonzero(0.5, 2.0, BLOCK) * np.float32(10.0) ** RNG.integers(-30, 36, BLOCK)
    y[:4] = [3e38, -2.5e38, 1e-30, 7.0]
    return x, y.astype(np.float32)


def test_division_is_tritons():
    """fp32 `/` and `fdiv` are Triton's div.full.f32 (`afn` on arith.divf),
    div_rn and `fdiv(ieee_rounding=True)` IEEE's div.rn.f32; fp64 divides as
    IEEE either way."""
    x = np.ones(BLOCK, np.float32)
    k = divisions.warmup(x, x, np.zeros(4 * BLOCK, np.float32), BLOCK=BLOCK, grid=(1,))
    divs = [line for line in k.asm["tile"].splitlines() if "arith.divf" in line]
    assert len(divs) == 2 and sum("fastmath<afn>" in d for d in divs) == 1, divs
    assert "div.full.f32" in k.asm["ptx"] and "div.rn.f32" in k.asm["ptx"]
    x64 = np.ones(BLOCK, np.float64)
    k64 = divisions.warmup(x64, x64, np.zeros(4 * BLOCK, np.float64), BLOCK=BLOCK, grid=(1,))
    assert "div.full" not in k64.asm["ptx"] and "div.rn.f64" in k64.asm["ptx"]


def test_division_accuracy(backend):
    """`/` within 2 ulp of the quotient over the whole range (Triton's
    bound for div.full.f32); div_rn the IEEE-rounded quotient exactly."""
    x, y = _division_operands()
    out = np.full((4, BLOCK), np.nan, np.float32)
    launch(divisions, backend, x, y, out, BLOCK=BLOCK)
    exact = (x.astype(np.float64) / y.astype(np.float64))
    rounded = (x / y).astype(np.float32)  # numpy's fp32 division: IEEE
    ulp = np.spacing(np.abs(rounded)).astype(np.float64)
    for row in (0, 1):
        err = np.abs(out[row].astype(np.float64) - exact) / ulp
        assert err.max() <= 2.0, (row, err.max(), x[err.argmax()], y[err.argmax()])
    np.testing.assert_array_equal(out[2], rounded)
    np.testing.assert_array_equal(out[3], rounded)


@triton.jit
def float_tests(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    _put(out_ptr, 0, libdevice.isnan(x).to(tl.int32), BLOCK)
    _put(out_ptr, 1, libdevice.isinf(x).to(tl.int32), BLOCK)
    _put(out_ptr, 2, libdevice.signbit(x).to(tl.int32), BLOCK)
    _put(out_ptr, 3, libdevice.float_as_int(x), BLOCK)
    bits = libdevice.float_as_uint(x)
    _put(out_ptr, 4, libdevice.uint_as_float(bits ^ 0x80000000).to(tl.int32, bitcast=True), BLOCK)
    _put(out_ptr, 5, libdevice.float_as_int(libdevice.int_as_float(offs)), BLOCK)


def test_float_tests_and_bits(backend):
    x = nonzero(-3.0, 3.0, 16)
    x[:6] = [np.nan, np.inf, -np.inf, -0.0, 0.0, -np.nan]
    out = np.zeros((6, 16), np.int32)
    launch(float_tests, backend, x, out, BLOCK=16)
    bits = x.view(np.int32)
    np.testing.assert_array_equal(out[0], np.isnan(x))
    np.testing.assert_array_equal(out[1], np.isinf(x))
    np.testing.assert_array_equal(out[2], np.signbit(x))
    np.testing.assert_array_equal(out[3], bits)
    np.testing.assert_array_equal(out[4], bits ^ np.int32(-2 ** 31))
    np.testing.assert_array_equal(out[5], np.arange(16))


def test_float_tests_compile_to_a_cubin():
    assert float_tests.warmup(np.ones(16, np.float32), np.zeros(96, np.int32), BLOCK=16,
                              grid=(1,)).asm["cubin"]


# ---------------------------------------------------------------------------
# umulhi, mulhi, clz, popc
# ---------------------------------------------------------------------------


@triton.jit
def int_suite(a_ptr, b_ptr, out_ptr, n, NAMES: tl.constexpr, AS: tl.constexpr,
              BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n, other=1)
    b = tl.load(b_ptr + offs, mask=offs < n, other=1)
    if AS is not None:
        a, b = a.to(AS), b.to(AS)
    for k in tl.static_range(len(NAMES)):
        fn = getattr(tl, NAMES[k]) if hasattr(tl, NAMES[k]) else getattr(libdevice, NAMES[k])
        if NAMES[k] in ("clz", "popc"):
            y = fn(a)
        else:
            y = fn(a, b)
        tl.store(out_ptr + k * BLOCK + offs, y.to(out_ptr.dtype.element_ty), mask=offs < n)


def _int_reference(name, a, b, bits, signed):
    mask = (1 << bits) - 1

    def value(v):
        v = int(v) & mask
        return v - (1 << bits) if signed and v >> (bits - 1) else v
    out = []
    for x, y in zip(a, b):
        if name == "umulhi":
            r = ((int(x) & mask) * (int(y) & mask)) >> bits
        elif name == "mulhi":
            r = (value(x) * value(y)) >> bits
        elif name == "clz":
            r = bits - (int(x) & mask).bit_length()
        else:
            r = bin(int(x) & mask).count("1")
        out.append(r & mask)
    return np.array(out, np.uint64).astype({32: np.uint32, 64: np.uint64}[bits]).view(
        {32: np.int32, 64: np.int64}[bits])


@pytest.mark.parametrize("dtype,as_", [(np.int32, None), (np.int64, None),
                                       (np.int32, "uint32"), (np.int64, "uint64")])
def test_int_suite(backend, dtype, as_):
    bits = np.dtype(dtype).itemsize * 8
    info = np.iinfo(dtype)
    a = RNG.integers(info.min, info.max, BLOCK, dtype=dtype, endpoint=True)
    b = RNG.integers(info.min, info.max, BLOCK, dtype=dtype, endpoint=True)
    a[:4] = [-1, 1, info.max, info.min]
    b[:4] = [-1, -1, info.max, info.min]
    a[a == 0] = 3
    b[b == 0] = 5
    names = ("umulhi", "mulhi", "clz", "popc")
    out = np.zeros((len(names), BLOCK), dtype)
    launch(int_suite, backend, a, b, out, N, NAMES=names,
           AS=None if as_ is None else getattr(tl, as_), BLOCK=BLOCK)
    for k, name in enumerate(names):
        ref = _int_reference(name, a[:N], b[:N], bits, as_ is None)
        np.testing.assert_array_equal(out[k, :N], ref, err_msg=name)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_int_suite_compiles_to_a_cubin(dtype):
    a = np.ones(BLOCK, dtype)
    compiled = int_suite.warmup(a, a, np.zeros(4 * BLOCK, dtype), N,
                                NAMES=("umulhi", "mulhi", "clz", "popc"), AS=None,
                                BLOCK=BLOCK, grid=(1,))
    assert compiled.asm["cubin"]


# ---------------------------------------------------------------------------
# Scalars from tl.full((), ...), constexpr parameters, isinstance, assume
# ---------------------------------------------------------------------------


@triton.jit
def scalar_full(out_ptr, n, value):
    s = tl.full((), 2.5, tl.float32)
    z = tl.zeros((), tl.int32)
    v = tl.full([], value, tl.int64)
    tl.static_assert(s.shape == ())
    tl.static_assert(z.shape == [])
    for i in range(n):
        z += i
    tl.store(out_ptr, s + z.to(tl.float32) + v.to(tl.float32))


def test_scalar_full(backend):
    out = np.zeros(1, np.float32)
    launch(scalar_full, backend, out, 7, 11)
    assert out[0] == 2.5 + 21 + 11
    assert scalar_full.warmup(out, 7, 11, grid=(1,)).asm["cubin"]


@triton.jit
def constexpr_params(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, AXIS: tl.constexpr,
                     FLAG: tl.constexpr, NAME: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    if FLAG:
        x = -x
    if AXIS is not None:
        y = getattr(tl, NAME)(x, AXIS)
        tl.store(out_ptr + tl.arange(0, R if AXIS == 1 else C), y)
    else:
        tl.store(out_ptr, getattr(tl, NAME)(x))


@pytest.mark.parametrize("axis,flag,name", [(None, False, "sum"), (1, True, "max"),
                                            (0, False, "min"), (None, True, "max")])
def test_constexpr_params(backend, axis, flag, name):
    x = nonzero(-3.0, 3.0, (4, 8))
    out = np.zeros(8, np.float32)
    launch(constexpr_params, backend, x, out, R=4, C=8, AXIS=axis, FLAG=flag, NAME=name)
    xs = -x if flag else x
    ref = getattr(np, name)(xs.astype(np.float64), axis=axis)
    got = out[0] if axis is None else out[:ref.size]
    # A sum may cancel to near zero: its float32 error is relative to the
    # magnitudes summed, not to the result.
    scale = np.abs(xs).astype(np.float64).sum(axis=axis)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=0 if name != "sum" else 1e-6 * scale.max())
    if backend == "interp":
        assert constexpr_params.warmup(x, out, R=4, C=8, AXIS=axis, FLAG=flag, NAME=name,
                                       grid=(1,)).asm["cubin"]


@triton.jit
def _scaled(v, s):
    if isinstance(s, tl.tensor):
        return v * s
    elif isinstance(s, (float, int)):
        return v + s
    return v


@triton.jit
def isinstance_kernel(x_ptr, out_ptr, k, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, _scaled(x, k))
    tl.store(out_ptr + BLOCK + offs, _scaled(x, 3.0))
    tl.static_assert(isinstance(x, tl.tensor))
    tl.static_assert(not isinstance(x_ptr, tl.tensor_descriptor))


def test_isinstance(backend):
    x = nonzero(-2.0, 2.0, 16)
    out = np.zeros(32, np.float32)
    launch(isinstance_kernel, backend, x, out, 5, BLOCK=16)
    np.testing.assert_allclose(out, np.concatenate([x * 5, x + 3]), rtol=1e-6)
    if backend == "interp":
        assert isinstance_kernel.warmup(x, out, 5, BLOCK=16, grid=(1,)).asm["cubin"]


@triton.jit
def identity_and_introspection_kernel(x_ptr, out_ptr, maybe):
    # `is` / `is not` are identity, decided at compile time even for
    # tensors (Triton's test_short_circuiting); hasattr, getattr, type and
    # callable introspect the compile-time objects.
    if (x_ptr is not None) and hasattr(x_ptr, "dtype") and \
            (getattr(x_ptr, "dtype").element_ty == tl.float32):
        tl.store(out_ptr, tl.load(x_ptr) + 1.0)
    if maybe is None:
        tl.store(out_ptr + 1, 7.0)
    if maybe is not None:
        tl.store(out_ptr + 2, 9.0)


@pytest.mark.parametrize("maybe", [None, 3], ids=["None", "int"])
def test_identity_and_introspection_in_kernels(backend, maybe):
    x = np.array([2.5], np.float32)
    out = np.zeros(3, np.float32)
    launch(identity_and_introspection_kernel, backend, x, out, maybe)
    expected = [3.5, 7.0, 0.0] if maybe is None else [3.5, 0.0, 9.0]
    np.testing.assert_array_equal(out, expected)
    if backend == "interp":
        assert identity_and_introspection_kernel.warmup(x, out, maybe,
                                                        grid=(1,)).asm["cubin"]


@triton.jit
def one_element_condition_kernel(x_ptr):
    condition = tl.load(x_ptr + tl.arange(0, 1)) > 42
    if condition:
        tl.store(x_ptr, 42)


def test_if_on_a_one_element_tensor(backend):
    """A one-element tensor as an `if` condition is its element, with
    Triton's warning at its line (test_unsplat); larger ones stay an
    error."""
    below, above = np.array([41], np.int32), np.array([43], np.int32)
    with pytest.warns(UserWarning, match="If conditional called with multidimensional "
                                         "Tensor of shape \\[1\\]"):
        launch(one_element_condition_kernel, backend, below)
    launch(one_element_condition_kernel, backend, above)
    assert (below[0], above[0]) == (41, 42)


@triton.jit
def isinstance_constexpr(out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(isinstance(BLOCK, tl.constexpr))
    tl.static_assert(isinstance(BLOCK, int))
    tl.static_assert(not isinstance(n, tl.constexpr))
    tl.store(out_ptr, n)


def test_isinstance_constexpr_compiled():
    """Compiled, a compile-time value is a tl.constexpr (in the interpreter a
    constexpr parameter is the plain value, as in Triton's interpreter)."""
    assert isinstance_constexpr.warmup(np.zeros(1, np.int32), 3, BLOCK=16,
                                       grid=(1,)).asm["cubin"]


@triton.jit
def _maybe_make_tensor_desc(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)


@triton.jit
def descriptor_or_pointer(x_ptr, out_ptr, B: tl.constexpr):
    desc = _maybe_make_tensor_desc(x_ptr, [B, B], [B, 1], [B, B])
    same = _maybe_make_tensor_desc(desc, [B, B], [B, 1], [B, B])
    tile = same.load([0, 0])
    r = tl.arange(0, B)[:, None]
    c = tl.arange(0, B)[None, :]
    tl.store(out_ptr + r * B + c, tile * 2.0)


@pytest.mark.sm90  # TMA descriptors: sm_90a
def test_descriptors_through_device_functions_compile(monkeypatch):
    """A @jit function that takes or returns a tensor descriptor: it travels
    as its parts (the map, its shape, its strides) and is rebuilt on the
    other side, so the kernel compiles (to a cubin) as it interprets."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    x = np.zeros((16, 16), np.float32)
    k = descriptor_or_pointer.warmup(x, np.zeros_like(x), B=16, grid=(1,))
    text = k.asm["tile-frontend"]
    assert "-> (!tile.tensordesc<tensor<16x16xf32>>, i32, i32, i32, i32)" in text
    assert "(%arg0: !tile.tensordesc<tensor<16x16xf32>>, %arg1: i32" in text
    assert "cubin" in k.asm


def test_isinstance_tensor_descriptor_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = nonzero(-2.0, 2.0, (16, 16))
    out = np.zeros_like(x)
    descriptor_or_pointer[(1,)](x, out, B=16)
    np.testing.assert_allclose(out, 2 * x)


@triton.jit
def descriptor_or_pointer_inline(x_ptr, out_ptr, B: tl.constexpr):
    if isinstance(x_ptr, tl.tensor_descriptor):
        desc = x_ptr
    else:
        desc = tl.make_tensor_descriptor(x_ptr, [B, B], [B, 1], [B, B])
    tile = desc.load([0, 0])
    r = tl.arange(0, B)[:, None]
    c = tl.arange(0, B)[None, :]
    tl.store(out_ptr + r * B + c, tile * 2.0)


def test_isinstance_tensor_descriptor_compiles(frontend_only):
    """Compiled in the kernel body (descriptors do not cross device-function
    boundaries yet)."""
    x = np.zeros((16, 16), np.float32)
    compiled = descriptor_or_pointer_inline.warmup(x, x, B=16, grid=(1,))
    assert compiled.asm["tile"].count("tile.make_tensor_descriptor") == 1


@triton.jit
def assume_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    tl.assume(pid >= 0)
    tl.assume(n > 0)
    tl.assume(True)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


def test_assume(backend):
    x = nonzero(-2.0, 2.0, 2 * BLOCK)
    out = np.zeros_like(x)
    launch(assume_kernel, backend, x, out, N + BLOCK, BLOCK=BLOCK, grid=(2,))
    ref = np.where(np.arange(2 * BLOCK) < N + BLOCK, x + 1, 0)
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    if backend == "interp":
        compiled = assume_kernel.warmup(x, out, N, BLOCK=BLOCK, grid=(1,))
        assert compiled.asm["cubin"]
        assert "assume" not in compiled.asm["tile"].replace("@assume_kernel", "")


@triton.jit
def assume_not_bool(n):
    tl.assume(n)


def test_assume_needs_a_boolean():
    with pytest.raises(CompilationError, match="tl.assume expects a boolean condition, got tl.int32"):
        assume_not_bool.warmup(3, grid=(1,))


# ---------------------------------------------------------------------------
# argmax / argmin tie breaking
# ---------------------------------------------------------------------------


@triton.jit
def arg_ties(x_ptr, out_ptr, rows, cols, R: tl.constexpr, C: tl.constexpr):
    r = tl.arange(0, R)[:, None]
    c = tl.arange(0, C)[None, :]
    mask = (r < rows) & (c < cols)
    lo = tl.load(x_ptr + r * cols + c, mask=mask, other=100)
    hi = tl.load(x_ptr + r * cols + c, mask=mask, other=-100)
    offs = tl.arange(0, R)
    tl.store(out_ptr + 0 * R + offs, tl.argmax(hi, 1, tie_break_left=True))
    tl.store(out_ptr + 1 * R + offs, tl.argmax(hi, 1, tie_break_left=False))
    tl.store(out_ptr + 2 * R + offs, lo.argmin(1, tie_break_left=True))
    tl.store(out_ptr + 3 * R + offs, lo.argmin(1, tie_break_left=False))
    _, last = tl.max(hi, 1, return_indices=True, return_indices_tie_break_left=False)
    tl.store(out_ptr + 4 * R + offs, last)
    _, first = tl.min(lo, 1, return_indices=True)
    tl.store(out_ptr + 5 * R + offs, first)


def test_argmax_argmin_tie_break(backend):
    rows, cols, R, C = 7, 29, 8, 32
    x = RNG.integers(1, 4, (rows, cols)).astype(np.int32)
    out = np.full((6, R), -7, np.int32)
    launch(arg_ties, backend, x, out, rows, cols, R=R, C=C)

    def last(a, fn):
        return a.shape[1] - 1 - fn(a[:, ::-1], axis=1)
    ref = [np.argmax(x, 1), last(x, np.argmax), np.argmin(x, 1), last(x, np.argmin),
           last(x, np.argmax), np.argmin(x, 1)]
    np.testing.assert_array_equal(out[:, :rows], np.stack(ref))
    if backend == "interp":
        assert arg_ties.warmup(x, out, rows, cols, R=R, C=C, grid=(1,)).asm["cubin"]


# ---------------------------------------------------------------------------
# Names that do not exist
# ---------------------------------------------------------------------------


@triton.jit
def misspelled(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.maximun(tl.load(x_ptr + offs), 0.0))


@triton.jit
def libdevice_missing(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, libdevice.hypot(tl.load(x_ptr + offs), 1.0))


@triton.jit
def math_at_top_level(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.asin(tl.load(x_ptr + offs)))


def test_unknown_tl_name_compiled():
    with pytest.raises(CompilationError) as e:
        misspelled.warmup(np.zeros(16, np.float32), BLOCK=16, grid=(1,))
    assert "tl.maximun does not exist; did you mean tl.maximum" in str(e.value)
    assert e.value.lineno == misspelled.first_line + 2
    with pytest.raises(CompilationError, match=r"tl.asin does not exist.*"
                                               r"it is tl.extra.libdevice.asin"):
        math_at_top_level.warmup(np.zeros(16, np.float32), BLOCK=16, grid=(1,))


def test_unknown_library_name_compiled():
    with pytest.raises(CompilationError) as e:
        libdevice_missing.warmup(np.zeros(16, np.float32), BLOCK=16, grid=(1,))
    assert "tl.extra.libdevice.hypot does not exist" in str(e.value)
    assert "libdevice has: abs, acos, acosh, asin" in str(e.value)


def test_unknown_names_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    # The compiler's error, which the interpreter gives before running.
    with pytest.raises((AttributeError, CompilationError),
                       match="tl.maximun does not exist; did you mean tl.maximum"):
        misspelled[(1,)](np.zeros(16, np.float32), BLOCK=16)
    with pytest.raises((AttributeError, CompilationError),
                       match="tl.extra.libdevice.hypot does not exist"):
        libdevice_missing[(1,)](np.zeros(16, np.float32), BLOCK=16)


def test_module_attribute_errors():
    with pytest.raises(AttributeError, match=r"tl.math.sqrt_nr does not exist.*"
                                             r"tl.math has: abs, ceil, cos"):
        tl.math.sqrt_nr
    assert not hasattr(tl, "no_such_function")
    assert hasattr(tl, "math") and tl.math.exp is tl.exp
    from warpforge.language.extra.cuda import libdevice as cuda_libdevice
    assert cuda_libdevice is libdevice
    assert warpforge.language.extra.libdevice.asin is libdevice.asin


def test_tensor_members_are_the_free_functions():
    for name in ("broadcast_to", "trans", "permute", "view", "reshape", "expand_dims", "cast",
                 "store", "atomic_add", "atomic_cas", "reduce", "associative_scan", "cdiv",
                 "sigmoid", "softmax", "ravel", "max", "argmax", "min", "argmin", "sum",
                 "xor_sum", "cumsum", "cumprod", "exp", "log", "sqrt", "abs", "erf", "floor",
                 "ceil"):
        assert getattr(tl.tensor, name) is getattr(tl, name), name


def test_float_dtype_fields():
    """What Triton's tests read off a float dtype to decode its bits:
    widths and the exponent bias (fp8e4nv is e4m3, bias 7)."""
    import warpforge.language as tl
    fields = {t: (t.primitive_bitwidth, t.fp_mantissa_width, t.exponent_bias)
              for t in (tl.float8e4nv, tl.float8e5, tl.float16, tl.bfloat16, tl.float32,
                        tl.float64)}
    assert fields == {tl.float8e4nv: (8, 3, 7), tl.float8e5: (8, 2, 15),
                      tl.float16: (16, 10, 15), tl.bfloat16: (16, 7, 127),
                      tl.float32: (32, 23, 127), tl.float64: (64, 52, 1023)}
    with pytest.raises(AttributeError, match="not a floating-point type"):
        tl.int32.exponent_bias
