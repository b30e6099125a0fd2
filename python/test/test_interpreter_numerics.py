"""The CPU interpreter (WARPFORGE_INTERPRET=1 or @jit(interpret=True)):
kernels run over their whole grid with NumPy, with the compiled semantics.

Every test draws non-zero random inputs from a fixed seed, uses odd sizes,
poisons its outputs before the launch and compares with a NumPy reference.

This file: rounding of fp16, bf16 and fp8, float/int conversions, integer
semantics and math functions. test_interpreter.py says where the other
interpreter tests are.
"""

import struct

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl

from interp_helpers import rand, rand_int

pytestmark = pytest.mark.usefixtures("interpreted")


# ---------------------------------------------------------------------------
# Rounding of fp16, bf16 and fp8
# ---------------------------------------------------------------------------


@triton.jit
def fp16_ops_kernel(x_ptr, y_ptr, sum_ptr, prod_ptr, quot_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    tl.store(sum_ptr + offs, x + y, mask=m)
    tl.store(prod_ptr + offs, x * y, mask=m)
    tl.store(quot_ptr + offs, x / y, mask=m)  # fp16 / fp16 computes in fp32


@pytest.mark.parametrize("n", [15, 1000])
def test_fp16_arithmetic_rounds_to_fp16(n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n, np.float16, 30.0), rand(rng, n, np.float16, 0.03)
    s, p, q = (np.full(n, np.nan, np.float16) for _ in range(3))
    fp16_ops_kernel[(triton.cdiv(n, 128),)](x, y, s, p, q, n, BLOCK=128)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    # The exact results rounded once to fp16 (to f32 for the division).
    np.testing.assert_array_equal(s, (x64 + y64).astype(np.float16))
    np.testing.assert_array_equal(p, (x64 * y64).astype(np.float16))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(q, (x64 / y64).astype(np.float32).astype(np.float16))


def bf16_rne(v):
    """Hand rounding of float64 values that are exact in f32 to bf16."""
    out = []
    for f in np.asarray(v, np.float32).ravel():
        bits = struct.unpack("<I", struct.pack("<f", f))[0]
        low, high = bits & 0xFFFF, bits >> 16
        if low > 0x8000 or (low == 0x8000 and high & 1):
            high += 1
        out.append(struct.unpack("<f", struct.pack("<I", (high << 16) & 0xFFFFFFFF))[0])
    return np.array(out, np.float32).reshape(np.shape(v))


def bf16_rtz(v):
    bits = np.asarray(v, np.float32).view(np.uint32) & np.uint32(0xFFFF0000)
    return bits.view(np.float32)


@triton.jit
def bf16_kernel(x_ptr, y_ptr, rne_ptr, rtz_ptr, sum_ptr, bits_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    xb = x.to(tl.bfloat16)
    tl.store(rne_ptr + offs, xb.to(tl.float32), mask=m)
    tl.store(rtz_ptr + offs, x.to(tl.bfloat16, fp_downcast_rounding="rtz").to(tl.float32), mask=m)
    s = xb + y.to(tl.bfloat16)  # bf16 + bf16 stays bf16
    tl.store(sum_ptr + offs, s.to(tl.float32), mask=m)
    tl.store(bits_ptr + offs, xb.to(tl.int16, bitcast=True), mask=m)


@pytest.mark.parametrize("n", [1, 127, 1000])
def test_bf16_rounding(n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n, scale=100.0), rand(rng, n, scale=1.0)
    x[0] = np.float32(1.0 + 2.0 ** -8)  # a tie: rounds to the even 1.0
    rne, rtz, s = (np.full(n, np.nan, np.float32) for _ in range(3))
    bits = np.full(n, 7, np.int16)
    bf16_kernel[(triton.cdiv(n, 128),)](x, y, rne, rtz, s, bits, n, BLOCK=128)
    np.testing.assert_array_equal(rne, bf16_rne(x))
    np.testing.assert_array_equal(rtz, bf16_rtz(x))
    np.testing.assert_array_equal(s, bf16_rne(bf16_rne(x).astype(np.float64) + bf16_rne(y)))
    np.testing.assert_array_equal(bits, (bf16_rne(x).view(np.uint32) >> 16).astype(np.uint16)
                                  .view(np.int16))
    assert rne[0] == 1.0


@triton.jit
def fp8_kernel(x_ptr, out_ptr, bits_ptr, n, FMT: tl.constexpr, ROUNDING: tl.constexpr,
               BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    q = x.to(FMT, fp_downcast_rounding=ROUNDING)
    tl.store(out_ptr + offs, q.to(tl.float32), mask=m)
    tl.store(bits_ptr + offs, q.to(tl.int8, bitcast=True), mask=m)


# Hand-computed conversions: (input, rtne, rtz).
E4M3_CASES = [
    (1.0, 1.0, 1.0),
    (1.0625, 1.0, 1.0),          # halfway between 1.0 and 1.125: to even
    (1.1875, 1.25, 1.125),       # halfway between 1.125 and 1.25: to even
    (3.3, 3.25, 3.25),
    (-3.4, -3.5, -3.25),
    (240.0, 240.0, 240.0),
    (500.0, 448.0, 448.0),       # saturates: e4m3fn has no infinity
    (-1.0e6, -448.0, -448.0),
    (0.003, 2.0 ** -8, 2.0 ** -9),  # subnormals: multiples of 2**-9
    (0.0009, 0.0, 0.0),
]
E5M2_CASES = [
    (1.0, 1.0, 1.0),
    (1.125, 1.0, 1.0),           # tie to even
    (1.375, 1.5, 1.25),          # tie to even
    (-2.7, -2.5, -2.5),          # spacing 0.5 in [2, 4)
    (-2.8, -3.0, -2.5),
    (57344.0, 57344.0, 57344.0),
    (60000.0, 57344.0, 57344.0),  # saturates like cvt.rn.satfinite
    (2.0 ** -15, 2.0 ** -15, 2.0 ** -15),
    (3 * 2.0 ** -17, 2.0 ** -15, 2.0 ** -16),  # 1.5 subnormal steps: a tie, to even
]


def _fp8_code(value, exp_bits, man_bits, bias):
    """The bits of an fp8 value (exactly representable), by hand."""
    sign = 0x80 if value < 0 or (value == 0 and np.signbit(value)) else 0
    v = abs(value)
    if v == 0:
        return sign
    e = int(np.floor(np.log2(v)))
    if e < 1 - bias:  # subnormal
        return sign | int(round(v / 2.0 ** (1 - bias - man_bits)))
    man = int(round((v / 2.0 ** e - 1) * 2 ** man_bits))
    return sign | ((e + bias) << man_bits) | man


@pytest.mark.parametrize("fmt,cases,layout", [
    ("float8e4nv", E4M3_CASES, (4, 3, 7)),
    ("float8e5", E5M2_CASES, (5, 2, 15)),
])
@pytest.mark.parametrize("rounding", ["rtne", "rtz"])
def test_fp8_casts(fmt, cases, layout, rounding):
    x = np.array([c[0] for c in cases], np.float32)
    want = np.array([c[1] if rounding == "rtne" else c[2] for c in cases], np.float32)
    n = len(cases)
    out = np.full(n, np.nan, np.float32)
    bits = np.full(n, 99, np.int8)
    fp8_kernel[(1,)](x, out, bits, n, FMT=getattr(tl, fmt), ROUNDING=rounding, BLOCK=16)
    np.testing.assert_array_equal(out, want)
    codes = np.array([_fp8_code(float(w), *layout) for w in want], np.uint8).view(np.int8)
    np.testing.assert_array_equal(bits, codes)


@triton.jit
def fp8_nan_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x.to(tl.float8e4nv).to(tl.float16))


def test_fp8_nan_and_widening():
    x = np.array([np.nan, -np.inf, 0.5, -0.3125], np.float32)
    out = np.full(4, 7, np.float16)
    fp8_nan_kernel[(1,)](x, out, BLOCK=4)
    assert np.isnan(out[0])
    np.testing.assert_array_equal(out[1:], np.array([-448, 0.5, -0.3125], np.float16))


@triton.jit
def float_int_kernel(x_ptr, i_ptr, u_ptr, f_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(i_ptr + offs, x.to(tl.int32), mask=m)   # truncates toward zero
    tl.store(u_ptr + offs, x.to(tl.uint8), mask=m)   # saturates to [0, 255]
    tl.store(f_ptr + offs, x.to(tl.int32).to(tl.float16), mask=m)


def test_float_int_conversions():
    x = np.array([2.7, -2.7, 1e10, -1e10, 300.5, -0.5, 65519.0, 0.75], np.float32)
    n = x.size
    i = np.full(n, 99, np.int32)
    u = np.full(n, 99, np.uint8)
    f = np.full(n, np.nan, np.float16)
    float_int_kernel[(1,)](x, i, u, f, n, BLOCK=8)
    np.testing.assert_array_equal(i, [2, -2, 2 ** 31 - 1, -2 ** 31, 300, 0, 65519, 0])
    np.testing.assert_array_equal(u, [2, 0, 255, 0, 255, 0, 255, 0])
    np.testing.assert_array_equal(f, np.array([2, -2, np.inf, -np.inf, 300, 0, 65504, 0],
                                              np.float16))


# ---------------------------------------------------------------------------
# Integers
# ---------------------------------------------------------------------------


@triton.jit
def int_ops_kernel(a_ptr, b_ptr, q_ptr, r_ptr, ushr_ptr, sshr_ptr, udiv_ptr, wrap_ptr, n,
                   BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(a_ptr + offs, mask=m, other=1)
    b = tl.load(b_ptr + offs, mask=m, other=1)
    tl.store(q_ptr + offs, a // b, mask=m)            # C division: toward zero
    tl.store(r_ptr + offs, a % b, mask=m)             # remainder has the dividend's sign
    au = a.to(tl.uint32)
    tl.store(ushr_ptr + offs, au >> 3, mask=m)        # logical shift
    tl.store(sshr_ptr + offs, a >> 3, mask=m)         # arithmetic shift
    tl.store(udiv_ptr + offs, au // 7, mask=m)        # unsigned division
    tl.store(wrap_ptr + offs, a * 65536 + 2147483647, mask=m)  # wraps around


@pytest.mark.parametrize("n", [15, 1000])
def test_integer_semantics(n):
    rng = np.random.default_rng(n)
    a = rand_int(rng, n, -2 ** 31, 2 ** 31 - 1)
    b = rand_int(rng, n, -1000, 1000)
    a[:4] = [-7, 7, -7, -2 ** 31]
    b[:4] = [2, -2, -2, -1]
    outs = [np.full(n, 12345, np.int32) for _ in range(3)] + \
        [np.full(n, 12345, np.uint32), np.full(n, 12345, np.int32), np.full(n, 12345, np.int32)]
    q, r, sshr, ushr, udiv, wrap = outs
    int_ops_kernel[(triton.cdiv(n, 256),)](a, b, q, r, ushr, sshr, udiv, wrap, n, BLOCK=256)
    pairs = [(int(x), int(y)) for x, y in zip(a, b)]
    exact_q = [abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1) for x, y in pairs]
    np.testing.assert_array_equal(r, [x - y * eq for (x, y), eq in zip(pairs, exact_q)])
    # INT_MIN / -1 wraps around to INT_MIN.
    np.testing.assert_array_equal(q, [(v + 2 ** 31) % 2 ** 32 - 2 ** 31 for v in exact_q])
    assert list(q[:3]) == [-3, -3, 3] and list(r[:3]) == [-1, 1, -1]
    au = a.view(np.uint32)
    np.testing.assert_array_equal(ushr, au >> 3)
    np.testing.assert_array_equal(sshr, a >> 3)
    np.testing.assert_array_equal(udiv, (au // 7).view(np.int32))
    want = [((int(x) * 65536 + 2147483647 + 2 ** 31) % 2 ** 32) - 2 ** 31 for x in a]
    np.testing.assert_array_equal(wrap, want)


@triton.jit
def small_int_kernel(x_ptr, out_ptr, neg_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)                      # int8
    tl.store(out_ptr + offs, x * 3 + 100)         # int8 arithmetic wraps
    tl.store(neg_ptr + offs, -x.to(tl.uint8).to(tl.int32))  # zero-extended, then negated


def test_int8_wraparound_and_extension():
    rng = np.random.default_rng(8)
    x = rand_int(rng, 64, -128, 128, np.int8)
    out = np.full(64, 1, np.int8)
    neg = np.full(64, 1, np.int32)
    small_int_kernel[(1,)](x, out, neg, BLOCK=64)
    np.testing.assert_array_equal(out, ((x.astype(np.int64) * 3 + 100 + 128) % 256 - 128))
    np.testing.assert_array_equal(neg, -x.view(np.uint8).astype(np.int32))


# ---------------------------------------------------------------------------
# Math functions, rounding toward zero
# ---------------------------------------------------------------------------


@triton.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    ax = tl.abs(x)
    results = (tl.exp(x), tl.exp2(x), tl.log(ax), tl.log2(ax), tl.sqrt(ax), tl.rsqrt(ax),
               tl.sin(x), tl.cos(x), tl.erf(x), tl.floor(x), tl.ceil(x), tl.fma(x, x, 0.5),
               tl.sigmoid(x), tl.maximum(x, 0.25), tl.minimum(x, -0.25), x % 0.75,
               tl.clamp(x, -1.0, 1.0), -x)
    for i in tl.static_range(len(results)):
        tl.store(out_ptr + i * n + offs, results[i], mask=m)


def test_math_functions():
    import math
    rng = np.random.default_rng(4)
    n = 127
    x = rand(rng, n, scale=2.0)
    out = np.full((18, n), np.nan, np.float32)
    math_kernel[(1,)](x, out, n, BLOCK=128)
    d = x.astype(np.float64)
    ad = np.abs(d)
    refs = [np.exp(d), np.exp2(d), np.log(ad), np.log2(ad), np.sqrt(ad), 1 / np.sqrt(ad),
            np.sin(d), np.cos(d), np.array([math.erf(v) for v in d]), np.floor(d), np.ceil(d),
            d * d + 0.5, 1 / (1 + np.exp(-d)), np.maximum(d, 0.25), np.minimum(d, -0.25),
            np.fmod(d, 0.75), np.clip(d, -1, 1), -d]
    for i, ref in enumerate(refs):
        assert np.all(np.abs(out[i] - ref) <= 4e-7 * np.abs(ref) + 1e-7), i


def f16_rtz(v):
    """Hand rounding toward zero to fp16: round to nearest, then step back
    toward zero when that moved away from it."""
    v = np.asarray(v, np.float64)
    with np.errstate(over="ignore"):
        r = v.astype(np.float16)
    away = np.abs(r.astype(np.float64)) > np.abs(v)
    r = np.where(away, np.nextafter(r, np.float16(0)), r).astype(np.float16)
    return r


@triton.jit
def downcast_kernel(x_ptr, d_ptr, h_rne_ptr, h_rtz_ptr, f_rtz_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(h_rne_ptr + offs, x.to(tl.float16), mask=m)
    tl.store(h_rtz_ptr + offs, x.to(tl.float16, fp_downcast_rounding="rtz"), mask=m)
    d = tl.load(d_ptr + offs, mask=m)
    tl.store(f_rtz_ptr + offs, d.to(tl.float32, fp_downcast_rounding="rtz"), mask=m)


def test_fp16_and_fp32_round_toward_zero():
    rng = np.random.default_rng(12)
    n = 1000
    x = rand(rng, n, scale=1000.0)
    x[:3] = [70000.0, -1e6, 3e-8]  # overflow: rtne gives inf, rtz the largest finite
    d = rand(rng, n, np.float64) * 1e3
    h_rne, h_rtz = np.full(n, np.nan, np.float16), np.full(n, np.nan, np.float16)
    f_rtz = np.full(n, np.nan, np.float32)
    downcast_kernel[(1,)](x, d, h_rne, h_rtz, f_rtz, n, BLOCK=1024)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(h_rne, x.astype(np.float16))
    np.testing.assert_array_equal(h_rtz, f16_rtz(x))
    assert h_rtz[0] == 65504 and h_rtz[1] == -65504 and np.isinf(h_rne[0])
    f32 = d.astype(np.float32)
    away = np.abs(f32.astype(np.float64)) > np.abs(d)
    np.testing.assert_array_equal(f_rtz, np.where(away, np.nextafter(f32, np.float32(0)), f32))
