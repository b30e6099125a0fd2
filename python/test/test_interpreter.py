"""The CPU interpreter (WARPFORGE_INTERPRET=1 or @jit(interpret=True)):
kernels run over their whole grid with NumPy, with the compiled semantics.

Every test draws non-zero random inputs from a fixed seed, uses odd sizes,
poisons its outputs before the launch and compares with a NumPy reference.
"""

import struct

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from warpforge.runtime.interpreter import DeviceAssertionError, InterpreterError

import zoo

SIZES = [1, 15, 127, 129, 1000, 1823]


@pytest.fixture(autouse=True)
def _interpret(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")


@pytest.fixture(params=["env", "flag"])
def launch(request, monkeypatch):
    """The kernel to launch: as is under WARPFORGE_INTERPRET=1, or a copy
    made with @warpforge.jit(interpret=True) while the variable says 0."""
    if request.param == "env":
        return lambda kernel: kernel
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    return lambda kernel: warpforge.jit(interpret=True)(kernel.fn)


def rand(rng, shape, dtype=np.float32, scale=1.0):
    """Normal values, never zero, in `dtype`."""
    v = (rng.standard_normal(shape) * scale).astype(dtype)
    return np.where(v == 0, np.asarray(1, dtype), v).astype(dtype)


def rand_int(rng, shape, lo, hi, dtype=np.int32):
    """Integers in [lo, hi) without 0."""
    v = rng.integers(lo, hi, shape).astype(dtype)
    return np.where(v == 0, np.asarray(hi - 1 if hi - 1 != 0 else lo, dtype), v).astype(dtype)


def rel_err(got, ref):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    return np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30)


def line_of(kernel, needle: str) -> int:
    return kernel.first_line + next(i for i, l in enumerate(kernel.source_lines) if needle in l)


# ---------------------------------------------------------------------------
# The zoo kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_add_kernel(launch, n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n), rand(rng, n)
    pad = 9
    out = np.full(n + pad, np.nan, np.float32)
    block = 128
    launch(zoo.add_kernel)[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    np.testing.assert_array_equal(out[:n], x + y)
    assert rel_err(out[:n], x.astype(np.float64) + y) < 1e-6
    assert np.isnan(out[n:]).all()  # masked-off lanes write nothing


@pytest.mark.parametrize("n_rows,n_cols", [(1, 1), (7, 15), (33, 127), (10, 129), (5, 1000)])
def test_softmax_persistent(launch, n_rows, n_cols):
    rng = np.random.default_rng(n_rows * 1000 + n_cols)
    # Rows padded in memory: the row strides are not the row lengths.
    x_full = rand(rng, (n_rows, n_cols + 5), scale=3.0)
    x = x_full[:, :n_cols]
    out_full = np.full((n_rows, n_cols + 3), np.nan, np.float32)
    out = out_full[:, :n_cols]
    block = triton.next_power_of_2(n_cols)
    programs = min(n_rows, 4)  # fewer programs than rows: each loops over rows
    launch(zoo.softmax_kernel)[(programs,)](out, x, x.strides[0] // 4, out.strides[0] // 4,
                                            n_rows, n_cols, BLOCK_SIZE=block, num_stages=2)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert np.max(np.abs(out - ref) / ref) < 1e-5
    assert np.isnan(out_full[:, n_cols:]).all()


@pytest.mark.parametrize("M,N,block", [(1, 15, 16), (7, 129, 64), (19, 1000, 256), (3, 1823, 512)])
def test_layer_norm_fp16(launch, M, N, block):
    rng = np.random.default_rng(N)
    x = (rand(rng, (M, N), scale=2.0) + 0.5).astype(np.float16)
    w = rand(rng, N, np.float16)
    b = rand(rng, N, np.float16)
    y = np.full((M, N), np.nan, np.float16)
    mean = np.full(M, np.nan, np.float32)
    rstd = np.full(M, np.nan, np.float32)
    eps = 1e-5
    launch(zoo.layer_norm_fwd)[(M,)](x, y, w, b, mean, rstd, x.strides[0] // 2, N, eps,
                                     BLOCK_SIZE=block)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    var = ((x64 - mu[:, None]) ** 2).mean(axis=1)
    rs = 1 / np.sqrt(var + eps)
    ref = (x64 - mu[:, None]) * rs[:, None] * w.astype(np.float64) + b.astype(np.float64)
    assert y.dtype == np.float16 and not np.isnan(y).any()
    assert rel_err(mean, mu) < 1e-5
    assert rel_err(rstd, rs) < 1e-5
    # fp16 output: within an fp16 rounding (plus f32 noise) of each value.
    assert np.all(np.abs(y - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-3)


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (15, 17, 13), (67, 45, 73), (129, 127, 33),
                                   (33, 65, 129)])
@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul_fp16(launch, M, N, K, activation):
    rng = np.random.default_rng(M * N * K)
    a = rand(rng, (M, K), np.float16)
    b_full = rand(rng, (N, K), np.float16)
    b = b_full.T  # column-major B: strides are not (N, 1)
    c = np.full((M, N), np.nan, np.float16)
    BM, BN, BK = 32, 16, 16
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"])  # noqa: E731
                         * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)
    launch(zoo.matmul_kernel)[grid](
        a, b, c, M, N, K, a.strides[0] // 2, a.strides[1] // 2, b.strides[0] // 2,
        b.strides[1] // 2, c.strides[0] // 2, c.strides[1] // 2,
        BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=4,
        ACTIVATION=activation)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if activation == "leaky_relu":
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    assert not np.isnan(c).any()
    assert np.all(np.abs(c - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-4)


@pytest.mark.parametrize("n_cols", [1, 15, 129, 1000])
def test_argmax_rows_with_ties(launch, n_cols):
    rng = np.random.default_rng(n_cols)
    rows = 13
    x = rand_int(rng, (rows, n_cols), -3, 4).astype(np.float32)  # many equal maxima
    x[0, :] = 2.0  # a row of one value: the first index wins
    mx = np.full(rows, np.nan, np.float32)
    idx = np.full(rows, -99, np.int32)
    block = triton.next_power_of_2(n_cols)
    launch(zoo.argmax_rows_kernel)[(rows,)](x, mx, idx, n_cols, x.strides[0] // 4, BLOCK=block)
    np.testing.assert_array_equal(mx, x.max(axis=1))
    np.testing.assert_array_equal(idx, np.argmax(x, axis=1))
    assert idx[0] == 0


@pytest.mark.parametrize("n", [1, 129, 1823])
def test_helper_call_kernel(launch, n):
    rng = np.random.default_rng(n)
    x = rand(rng, n)
    out = np.full(n, np.nan, np.float32)
    launch(zoo.helper_call_kernel)[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, x * np.float32(2.0) + np.float32(1.0))


# ---------------------------------------------------------------------------
# A kernel written as in Triton's tutorial
# ---------------------------------------------------------------------------


@triton.jit
def tutorial_add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def tutorial_add(x, y):
    output = np.full_like(x, np.nan)
    n_elements = output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
    tutorial_add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


@pytest.mark.parametrize("n", [1, 1823, 98432 + 7])
def test_tutorial_vector_add(n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n), rand(rng, n)
    np.testing.assert_array_equal(tutorial_add(x, y), x + y)


def test_tutorial_vector_add_on_array_interface_objects():
    class Buffer:  # not a NumPy array: only the array interface
        def __init__(self, arr):
            self.arr = arr
            self.__array_interface__ = arr.__array_interface__

    rng = np.random.default_rng(3)
    x, y = rand(rng, 333), rand(rng, 333)
    out = np.full_like(x, np.nan)
    tutorial_add_kernel[(1,)](Buffer(x), Buffer(y), Buffer(out), 333, BLOCK_SIZE=512)
    np.testing.assert_array_equal(out, x + y)


# ---------------------------------------------------------------------------
# Masks, other, broadcasting, scalars, control flow
# ---------------------------------------------------------------------------


@triton.jit
def masked_2d_kernel(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=inside, other=-7.5)
    # A row vector plus a column vector broadcasts to the block.
    y = x * 2 + rows[:, None].to(tl.float32) - cols[None, :]
    out_rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + out_rows[:, None] * (tl.num_programs(1) * BN) + cols[None, :], y)


@pytest.mark.parametrize("M,N", [(1, 1), (15, 17), (37, 129)])
def test_masks_other_and_broadcasting(M, N):
    rng = np.random.default_rng(M + N)
    x = rand(rng, (M, N))
    BM, BN = 8, 16
    gm, gn = triton.cdiv(M, BM), triton.cdiv(N, BN)
    out = np.full((gm * BM, gn * BN), np.nan, np.float32)
    masked_2d_kernel[(gm, gn)](x, out, M, N, x.strides[0] // 4, BM=BM, BN=BN)
    full = np.full(out.shape, -7.5, np.float32)  # `other` where the mask is off
    full[:M, :N] = x
    r = np.arange(out.shape[0], dtype=np.float32)[:, None]
    c = np.arange(out.shape[1], dtype=np.float32)[None, :]
    np.testing.assert_array_equal(out, full * 2 + r - c)


@triton.jit
def scalars_kernel(out_ptr, flag, big, scale, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int64)
    i = 0
    while i < n:  # a loop on a run-time value
        acc += big
        i += 1
    if flag:
        acc = acc + 1
    else:
        acc = acc - 1
    tl.store(out_ptr + offs, acc.to(tl.float64) * scale, mask=offs < n)
    tl.store(out_ptr + n, tl.program_id(0) + 10 * tl.program_id(1) + 100 * tl.program_id(2)
             + 1000 * tl.num_programs(2))


def test_scalar_arguments_and_control_flow():
    out = np.full(8, np.nan, np.float64)
    big = 3 * 2 ** 33  # an i64 argument
    scalars_kernel[(1,)](out, True, big, 0.5, 5, BLOCK=8)
    np.testing.assert_array_equal(out[:5], (5 * big + 1) * 0.5)
    assert out[5] == 1000
    scalars_kernel[(1,)](out, False, big, 0.5, 5, BLOCK=8)
    np.testing.assert_array_equal(out[:5], (5 * big - 1) * 0.5)


@triton.jit
def grid_kernel(out_ptr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    tl.store(out_ptr + (z * ny + y) * nx + x, x + 10 * y + 100 * z)


def test_3d_grid_and_validation():
    out = np.full(3 * 2 * 5, -1, np.int32)
    grid_kernel[(3, 2, 5)](out)
    z, y, x = np.meshgrid(np.arange(5), np.arange(2), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out, (x + 10 * y + 100 * z).reshape(-1))
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        grid_kernel[(1, 1, 1, 1)](out)
    with pytest.raises(ValueError, match="negative"):
        grid_kernel[(-1,)](out)
    with pytest.raises(TypeError, match="integers"):
        grid_kernel[(1.5,)](out)
    with pytest.raises(TypeError, match="not a tensor, an array"):
        grid_kernel[(1,)]("a string")


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
# Atomics
# ---------------------------------------------------------------------------


@triton.jit
def histogram_kernel(data_ptr, hist_ptr, old_ptr, n, NBINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    bins = tl.load(data_ptr + offs, mask=m) % NBINS
    old = tl.atomic_add(hist_ptr + bins, 1, mask=m)
    tl.store(old_ptr + offs, old, mask=m)


@pytest.mark.parametrize("n", [1, 129, 1823])
def test_histogram_with_duplicates(n):
    rng = np.random.default_rng(n)
    data = rand_int(rng, n, 1, 1000)
    nbins = 7
    hist = np.zeros(nbins, np.int32)
    old = np.full(n, -1, np.int32)
    histogram_kernel[(triton.cdiv(n, 128),)](data, hist, old, n, NBINS=nbins, BLOCK=128)
    bins = data % nbins
    counts = np.bincount(bins, minlength=nbins)
    np.testing.assert_array_equal(hist, counts)
    # Each lane saw a distinct earlier count of its bin.
    for k in range(nbins):
        np.testing.assert_array_equal(np.sort(old[bins == k]), np.arange(counts[k]))


@triton.jit
def float_minmax_kernel(x_ptr, slot_ptr, max_ptr, min_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    slot = tl.load(slot_ptr + offs, mask=m)
    tl.atomic_max(max_ptr + slot, x, mask=m)
    tl.atomic_min(min_ptr + slot, x, mask=m)


@pytest.mark.parametrize("n", [15, 1000])
def test_atomic_max_min_on_floats(n):
    rng = np.random.default_rng(n)
    x = rand(rng, n, scale=10.0)
    nslots = 5
    slot = rng.integers(0, nslots, n).astype(np.int32)
    x[slot == 0] = -np.abs(x[slot == 0])  # slot 0: only negative values
    x[slot == 1] = np.abs(x[slot == 1])   # slot 1: only positive values
    init_max = np.array([-50.0, 0.5, -0.25, 3.0, -1e-3], np.float32)
    init_min = np.array([50.0, 0.5, 0.25, -3.0, 1e-3], np.float32)
    mx, mn = init_max.copy(), init_min.copy()
    float_minmax_kernel[(triton.cdiv(n, 64),)](x, slot, mx, mn, n, BLOCK=64)
    for s in range(nslots):
        vals = x[slot == s]
        assert mx[s] == max([init_max[s], *vals])
        assert mn[s] == min([init_min[s], *vals])


@triton.jit
def atomic_max_neg_zero_kernel(p_ptr, v_ptr):
    tl.atomic_max(p_ptr + tl.arange(0, 4), tl.load(v_ptr + tl.arange(0, 4)))


def test_atomic_max_negative_zero():
    # -0.0 is greater than any negative value.
    p = np.array([-1.0, -2.5, 1.0, -0.0], np.float32)
    v = np.array([-0.0, -0.0, -0.0, -3.0], np.float32)
    atomic_max_neg_zero_kernel[(1,)](p, v)
    np.testing.assert_array_equal(p, [0.0, 0.0, 1.0, 0.0])
    assert np.signbit(p[0]) and np.signbit(p[3])


@triton.jit
def cas_kernel(slot_ptr, table_ptr, old_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    slot = tl.load(slot_ptr + offs, mask=m, other=0)
    # Masked lanes aim at a dummy entry at the end of the table.
    slot = tl.where(m, slot, 16)
    old = tl.atomic_cas(table_ptr + slot, -1, offs)
    tl.store(old_ptr + offs, old, mask=m)


@pytest.mark.parametrize("n", [7, 1000])
def test_atomic_cas_first_writer_wins(n):
    rng = np.random.default_rng(n)
    slot = rng.integers(0, 16, n).astype(np.int32)
    table = np.full(17, -1, np.int32)
    old = np.full(n, -99, np.int32)
    cas_kernel[(triton.cdiv(n, 64),)](slot, table, old, n, BLOCK=64)
    for s in range(16):
        lanes = np.nonzero(slot == s)[0]
        if lanes.size == 0:
            assert table[s] == -1
            continue
        winners = lanes[old[lanes] == -1]
        assert winners.size == 1 and table[s] == winners[0]
        assert (old[lanes][old[lanes] != -1] == winners[0]).all()


@triton.jit
def atomic_misc_kernel(f_ptr, i_ptr, xchg_old_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(f_ptr, tl.full([BLOCK], 0.5, tl.float32), mask=offs % 2 == 0)
    tl.atomic_or(i_ptr, 1 << (offs % 8))
    tl.atomic_and(i_ptr + 1, ~(1 << (offs % 8)))
    tl.atomic_xor(i_ptr + 2, offs)
    old = tl.atomic_xchg(i_ptr + 3 + offs % 2, offs)
    tl.store(xchg_old_ptr + offs, old)


def test_atomic_add_or_and_xor_xchg_on_scalars():
    f = np.array([1.25], np.float32)
    i = np.array([0, -1, 5, -7, -9], np.int32)
    xchg_old = np.full(16, 42, np.int32)
    atomic_misc_kernel[(1,)](f, i, xchg_old, BLOCK=16)
    assert f[0] == 1.25 + 8 * 0.5
    assert i[0] == 0xFF and i[1] == ~0xFF and i[2] == 5 ^ np.bitwise_xor.reduce(np.arange(16))
    # Each slot ends with one of its lanes; each lane saw the value before it.
    evens, odds = np.arange(0, 16, 2), np.arange(1, 16, 2)
    assert i[3] in evens and i[4] in odds
    assert sorted(xchg_old[evens].tolist()) == sorted([-7] + [v for v in evens if v != i[3]])
    assert sorted(xchg_old[odds].tolist()) == sorted([-9] + [v for v in odds if v != i[4]])


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


@triton.jit
def max_abs_combine(a, b):
    return tl.maximum(tl.abs(a), tl.abs(b))


@triton.jit
def argmin_combine(v1, i1, v2, i2):
    take_first = (v1 < v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take_first, v1, v2), tl.where(take_first, i1, i2)


@triton.jit
def user_reduce_kernel(x_ptr, maxabs_ptr, min_ptr, argmin_ptr, col_ptr, total_ptr, M, N,
                       BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=m, other=0.0)
    tl.store(maxabs_ptr + rows, tl.reduce(x, 1, max_abs_combine), mask=rows < M)
    big = tl.where(m, x, float("inf"))
    idx = tl.broadcast_to(cols[None, :], [BM, BN])
    vmin, imin = tl.reduce((big, idx), 1, argmin_combine)
    tl.store(min_ptr + rows, vmin, mask=rows < M)
    tl.store(argmin_ptr + rows, imin, mask=rows < M)
    tl.store(col_ptr + cols, tl.sum(x, axis=0), mask=cols < N)
    tl.store(total_ptr, tl.reduce(x, None, max_abs_combine))


@pytest.mark.parametrize("M,N", [(1, 1), (15, 17), (37, 129)])
def test_reduce_with_user_combine(M, N):
    rng = np.random.default_rng(M * N)
    x = rand_int(rng, (M, N), -50, 50).astype(np.float32)  # ties for argmin
    BM, BN = triton.next_power_of_2(M), triton.next_power_of_2(N)
    maxabs, mn = np.full(M, np.nan, np.float32), np.full(M, np.nan, np.float32)
    argmin = np.full(M, -1, np.int32)
    col = np.full(N, np.nan, np.float32)
    total = np.full(1, np.nan, np.float32)
    user_reduce_kernel[(1,)](x, maxabs, mn, argmin, col, total, M, N, BM=BM, BN=BN)
    # A single element is the reduction: the combiner never runs.
    np.testing.assert_array_equal(maxabs, np.abs(x).max(axis=1) if N > 1 else x[:, 0])
    np.testing.assert_array_equal(mn, x.min(axis=1))
    np.testing.assert_array_equal(argmin, np.argmin(x, axis=1))
    np.testing.assert_array_equal(col, x.sum(axis=0))  # small integers: exact
    assert total[0] == (np.abs(x).max() if x.size > 1 else x[0, 0])


@triton.jit
def linear_recurrence(a1, b1, a2, b2):
    # (a1, b1) then (a2, b2): x -> a2 * (a1 * x + b1) + b2. Associative, not commutative.
    return a1 * a2, b1 * a2 + b2


@triton.jit
def scan_kernel(x_ptr, a_ptr, fwd_ptr, rev_ptr, col_ptr, rec_ptr, M, N,
                BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.arange(0, BM)
    cols = tl.arange(0, BN)
    m = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=m, other=0)
    tl.store(fwd_ptr + offs, tl.cumsum(x, axis=1), mask=m)
    tl.store(rev_ptr + offs, tl.cumsum(x, axis=1, reverse=True), mask=m)
    tl.store(col_ptr + offs, tl.cumsum(x, axis=0), mask=m)
    a = tl.load(a_ptr + offs, mask=m, other=1)
    _, rec = tl.associative_scan((a, x), 1, linear_recurrence)
    tl.store(rec_ptr + offs, rec, mask=m)


@pytest.mark.parametrize("M,N", [(1, 1), (3, 15), (17, 129)])
def test_scans(M, N):
    rng = np.random.default_rng(M + 7 * N)
    x = rand_int(rng, (M, N), -100, 100)
    a = rand_int(rng, (M, N), -2, 3)
    outs = [np.full((M, N), -12345, np.int32) for _ in range(4)]
    fwd, rev, col, rec = outs
    scan_kernel[(1,)](x, a, fwd, rev, col, rec, M, N, BM=triton.next_power_of_2(M),
                      BN=triton.next_power_of_2(N))
    np.testing.assert_array_equal(fwd, np.cumsum(x, axis=1))
    np.testing.assert_array_equal(rev, np.flip(np.cumsum(np.flip(x, 1), axis=1), 1))
    np.testing.assert_array_equal(col, np.cumsum(x, axis=0))
    want = np.zeros((M, N), np.int64)
    for i in range(M):
        acc = 0
        for j in range(N):
            acc = (int(a[i, j]) * acc + int(x[i, j]) + 2 ** 31) % 2 ** 32 - 2 ** 31
            want[i, j] = acc
    np.testing.assert_array_equal(rec, want)


@triton.jit
def float_cumsum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, 0, reverse=True), mask=offs < n)


def test_float_reverse_cumsum():
    rng = np.random.default_rng(11)
    n = 1000
    x = rand(rng, n)
    out = np.full(n, np.nan, np.float32)
    float_cumsum_kernel[(1,)](x, out, n, BLOCK=1024)
    ref = np.flip(np.cumsum(np.flip(x.astype(np.float64))))
    assert np.max(np.abs(out - ref)) < 1e-4 * np.abs(x).sum()


# ---------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------


def tf32_round(v):
    u = np.asarray(v, np.float32).view(np.uint32).astype(np.uint64)
    r = (u + 0xFFF + ((u >> 13) & 1)) & 0xFFFFE000
    return r.astype(np.uint32).view(np.float32)


@triton.jit
def dot_kernel(a_ptr, b_ptr, c_ptr, PREC: tl.constexpr, M: tl.constexpr, N: tl.constexpr,
               K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, input_precision=PREC))


@pytest.mark.parametrize("prec", ["ieee", "tf32", "tf32x3"])
def test_dot_f32_precisions(prec):
    rng = np.random.default_rng(5)
    a, b = rand(rng, (16, 32)), rand(rng, (32, 64))
    c = np.full((16, 64), np.nan, np.float32)
    dot_kernel[(1,)](a, b, c, PREC=prec, M=16, N=64, K=32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    if prec == "tf32":
        want = (tf32_round(a).astype(np.float64) @ tf32_round(b).astype(np.float64))
        np.testing.assert_array_equal(c, want.astype(np.float32))
        assert rel_err(c, exact) > 1e-6  # visibly less precise than f32
    else:
        assert rel_err(c, exact) < 1e-6


def test_dot_int8_exact():
    rng = np.random.default_rng(6)
    a = rand_int(rng, (16, 16), -128, 128, np.int8)
    b = rand_int(rng, (16, 32), -128, 128, np.int8)
    c = np.full((16, 32), 7, np.int32)
    dot_kernel[(1,)](a, b, c, PREC="ieee", M=16, N=32, K=16)
    np.testing.assert_array_equal(c, a.astype(np.int32) @ b.astype(np.int32))


# ---------------------------------------------------------------------------
# Tensor descriptors
# ---------------------------------------------------------------------------


@triton.jit
def desc_copy_kernel(x_ptr, out_ptr, M, N, stride_x, stride_out, BM: tl.constexpr,
                     BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[stride_x, 1],
                                    block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[stride_out, 1],
                                    block_shape=[BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    block = src.load([off_m, off_n])
    dst.store([off_m, off_n], block + 1.0)


@pytest.mark.parametrize("M,N", [(1, 4), (37, 45), (64, 129)])
def test_descriptor_copy_with_partial_blocks(M, N):
    rng = np.random.default_rng(M * N)
    x = rand(rng, (M, N))
    out_full = np.full((M + 3, N + 5), np.nan, np.float32)  # rows longer than N
    BM, BN = 16, 32
    desc_copy_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        x, out_full, M, N, x.strides[0] // 4, out_full.strides[0] // 4, BM=BM, BN=BN)
    np.testing.assert_array_equal(out_full[:M, :N], x + 1)
    assert np.isnan(out_full[M:, :]).all() and np.isnan(out_full[:, N:]).all()


@triton.jit
def desc_oob_load_kernel(x_ptr, out_ptr, M, N, off_m, off_n, B: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [B, B])
    block = d.load([off_m, off_n])
    r = tl.arange(0, B)
    tl.store(out_ptr + r[:, None] * B + r[None, :], block)


@pytest.mark.parametrize("off", [(-3, -5), (5, 9), (40, 0)])
def test_descriptor_out_of_bounds_reads_zero(off):
    rng = np.random.default_rng(9)
    M, N, B = 13, 17, 16
    x = rand(rng, (M, N), np.float16)
    out = np.full((B, B), np.nan, np.float16)
    desc_oob_load_kernel[(1,)](x, out, M, N, off[0], off[1], B=B)
    want = np.zeros((B, B), np.float16)
    for i in range(B):
        for j in range(B):
            r, c = off[0] + i, off[1] + j
            if 0 <= r < M and 0 <= c < N:
                want[i, j] = x[r, c]
    np.testing.assert_array_equal(out, want)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@triton.jit
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    tl.device_assert(x > 0, "x must be positive")


def test_device_assert_names_the_line():
    x = np.abs(rand(np.random.default_rng(1), 100)) + 1
    assert_kernel[(2,)](x, 100, BLOCK=128)  # passes
    x[37] = -2.0
    with pytest.raises(DeviceAssertionError) as info:
        assert_kernel[(2,)](x, 100, BLOCK=128)
    err = info.value
    assert err.lineno == line_of(assert_kernel, "tl.device_assert")
    assert err.filename == __file__
    assert "x must be positive" in str(err) and "[37]" in str(err)
    assert f"test_interpreter.py:{err.lineno}:" in str(err)
    assert err.program_id == (0, 0, 0)


@triton.jit
def oob_kernel(x_ptr, n, start, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    if MASKED:
        x = tl.load(x_ptr + offs, mask=offs < n)
    else:
        x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x * 2, mask=offs < n)


def test_out_of_bounds_load_names_the_line():
    rng = np.random.default_rng(2)
    x = rand(rng, 1000)
    line = line_of(oob_kernel, "x = tl.load(x_ptr + offs)\n")
    with pytest.raises(InterpreterError) as info:
        oob_kernel[(1,)](x, 1000, 1003, BLOCK=16, MASKED=False)
    err = info.value
    assert err.lineno == line and err.filename == __file__
    assert f"test_interpreter.py:{line}: out-of-bounds load at element offset 1003 of a " \
           "1000-element buffer (argument 'x_ptr'" in str(err)
    with pytest.raises(InterpreterError, match="element offset 1000 of a 1000-element"):
        oob_kernel[(1,)](x, 1000, 3, BLOCK=1024, MASKED=False)
    # Masked off, the same accesses are fine.
    x0 = x.copy()
    oob_kernel[(1,)](x, 1000, 3, BLOCK=1024, MASKED=True)
    np.testing.assert_array_equal(x[3:], x0[3:] * 2)
    np.testing.assert_array_equal(x[:3], x0[:3])


@triton.jit
def oob_store_kernel(x_ptr, off):
    tl.store(x_ptr + off, 1.0)


def test_out_of_bounds_store_and_negative_offset():
    x = np.full(15, np.nan, np.float32)
    with pytest.raises(InterpreterError, match="out-of-bounds store at element offset -1 of "
                                               "a 15-element buffer"):
        oob_store_kernel[(1,)](x, -1)
    assert np.isnan(x).all()


@triton.jit
def bad_shapes_kernel(x_ptr, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, 2 * BLOCK)
    tl.store(x_ptr + a, a + b)


def test_semantic_errors_carry_the_line():
    x = np.zeros(64, np.float32)
    with pytest.raises(tl.SemanticError) as info:
        bad_shapes_kernel[(1,)](x, BLOCK=16)
    note = "\n".join(getattr(info.value, "__notes__", []))
    assert f"test_interpreter.py:{line_of(bad_shapes_kernel, 'a + b')}:" in note
    assert "program id (0, 0, 0)" in note


def test_without_interpret_the_gpu_path_is_taken(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    # Compiled for the GPU: without a driver it cannot launch; with one, the
    # NumPy arrays (DLPack on the CPU) are refused as host memory.
    with pytest.raises((RuntimeError, ValueError),
                       match="cannot launch kernel 'add_kernel'|kernels take GPU memory"):
        zoo.add_kernel[(1,)](np.ones(4, np.float32), np.ones(4, np.float32),
                             np.ones(4, np.float32), 4, BLOCK_SIZE=16)


# ---------------------------------------------------------------------------
# More of the language
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


@triton.jit
def shapes_kernel(x_ptr, t_ptr, r_ptr, p_ptr, e_ptr, M: tl.constexpr, N: tl.constexpr):
    rm, rn = tl.arange(0, M), tl.arange(0, N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :])
    t = tl.trans(x)
    tl.store(t_ptr + rn[:, None] * M + rm[None, :], t)
    r = tl.reshape(x, [N, M])
    tl.store(r_ptr + rn[:, None] * M + rm[None, :], r)
    x3 = tl.reshape(x, [2, M // 2, N])
    p = tl.permute(x3, (2, 0, 1))  # [N, 2, M // 2]
    flat = tl.reshape(p, [M * N])
    tl.store(p_ptr + tl.arange(0, M * N), flat)
    e = tl.expand_dims(tl.sum(x, axis=1), 1) + tl.zeros([M, N], tl.float32)
    tl.store(e_ptr + rm[:, None] * N + rn[None, :], e)


def test_shape_ops():
    rng = np.random.default_rng(13)
    M, N = 8, 16
    x = rand_int(rng, (M, N), -20, 20).astype(np.float32)
    t, r = np.full((N, M), np.nan, np.float32), np.full((N, M), np.nan, np.float32)
    p, e = np.full(M * N, np.nan, np.float32), np.full((M, N), np.nan, np.float32)
    shapes_kernel[(1,)](x, t, r, p, e, M=M, N=N)
    np.testing.assert_array_equal(t, x.T)
    np.testing.assert_array_equal(r, x.reshape(N, M))
    np.testing.assert_array_equal(p, x.reshape(2, M // 2, N).transpose(2, 0, 1).reshape(-1))
    np.testing.assert_array_equal(e, np.broadcast_to(x.sum(axis=1, keepdims=True), (M, N)))


@triton.jit
def bool_and_pointer_kernel(flags_ptr, out_flags_ptr, a_ptr, b_ptr, out_ptr, n,
                            BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    f = tl.load(flags_ptr + offs, mask=m, other=False)
    tl.store(out_flags_ptr + offs, ~f, mask=m)
    # Pick the source per lane with a select of pointers.
    src = tl.where(f, a_ptr + offs, b_ptr + offs)
    # Pointers round-trip through int64.
    addr = src.to(tl.int64)
    back = addr.to(tl.pointer_type(tl.float32))
    v = tl.load(back, mask=m)
    before = (a_ptr + 1) > a_ptr
    tl.store(out_ptr + offs, tl.where(before, v, -1.0), mask=m)


def test_bool_arrays_and_pointer_values():
    rng = np.random.default_rng(14)
    n = 100
    flags = rng.integers(0, 2, n).astype(bool)
    out_flags = np.zeros(n, bool)
    a, b = rand(rng, n), rand(rng, n)
    out = np.full(n, np.nan, np.float32)
    bool_and_pointer_kernel[(1,)](flags, out_flags, a, b, out, n, BLOCK=128)
    np.testing.assert_array_equal(out_flags, ~flags)
    np.testing.assert_array_equal(out, np.where(flags, a, b))


@triton.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr,
                       N: tl.constexpr, K: tl.constexpr):
    rb, rm = tl.arange(0, B), tl.arange(0, M)
    rn, rk = tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rb[:, None, None] * M * K + rm[None, :, None] * K + rk[None, None, :])
    b = tl.load(b_ptr + rb[:, None, None] * K * N + rk[None, :, None] * N + rn[None, None, :])
    c = tl.dot(a, b, out_dtype=tl.float16)
    tl.store(c_ptr + rb[:, None, None] * M * N + rm[None, :, None] * N + rn[None, None, :], c)


def test_batched_dot_with_fp16_accumulator():
    rng = np.random.default_rng(15)
    a, b = rand(rng, (2, 16, 32), np.float16), rand(rng, (2, 32, 16), np.float16)
    c = np.full((2, 16, 16), np.nan, np.float16)
    batched_dot_kernel[(1,)](a, b, c, B=2, M=16, N=16, K=32)
    ref = np.matmul(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_array_equal(c, ref.astype(np.float16))


@triton.jit
def print_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x=", x)
    tl.device_print("hex ", x.to(tl.uint8), hex=True)
    print("pid", tl.program_id(0))  # Python's print runs too


def test_device_print(capsys):
    x = np.array([-1, 2, 3, 4], np.int32)
    print_kernel[(2,)](x, BLOCK=4)
    lines = capsys.readouterr().out.splitlines()
    assert "pid (0, 0, 0) x=[-1  2  3  4]" in lines
    assert "pid (1, 0, 0) hex [0xff 0x2 0x3 0x4]" in lines


@triton.jit
def scalar_atomic_kernel(p_ptr, old_ptr):
    old = tl.atomic_add(p_ptr, 3)
    tl.store(old_ptr + tl.program_id(0), old)


def test_scalar_atomics_over_programs_and_empty_grid():
    p = np.array([5], np.int64)
    old = np.full(4, -1, np.int64)
    scalar_atomic_kernel[(4,)](p, old)
    assert p[0] == 17
    assert sorted(old.tolist()) == [5, 8, 11, 14]
    scalar_atomic_kernel[(0,)](p, old)  # no programs: nothing runs
    assert p[0] == 17


class FakeTorchTensor:
    """The parts of a torch tensor the interpreter uses, over a NumPy array."""

    class _Device:
        def __init__(self, kind):
            self.type = kind

        def __str__(self):
            return self.type

    class _Dtype:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return f"torch.{self.name}"

    def __init__(self, arr, device="cpu"):
        self.arr = arr
        self.dtype = self._Dtype(arr.dtype.name)
        self.device = self._Device(device)
        self.shape = arr.shape

    def data_ptr(self):
        return self.arr.__array_interface__["data"][0]

    def element_size(self):
        return self.arr.itemsize

    def stride(self):
        return tuple(s // self.arr.itemsize for s in self.arr.strides)


def test_torch_like_tensors():
    rng = np.random.default_rng(16)
    x, y = rand(rng, 129), rand(rng, 129)
    out = np.full(129, np.nan, np.float32)
    tutorial_add_kernel[(3,)](FakeTorchTensor(x), FakeTorchTensor(y), FakeTorchTensor(out),
                              129, BLOCK_SIZE=64)
    np.testing.assert_array_equal(out, x + y)
    with pytest.raises(TypeError, match="runs on the CPU"):
        tutorial_add_kernel[(3,)](FakeTorchTensor(x, "cuda"), FakeTorchTensor(y),
                                  FakeTorchTensor(out), 129, BLOCK_SIZE=64)


def test_stores_into_read_only_arrays_fail():
    x = np.full(15, np.nan, np.float32)
    x.flags.writeable = False
    with pytest.raises(InterpreterError, match="store into a read-only array"):
        oob_store_kernel[(1,)](x, 3)
    assert np.isnan(x).all()


def test_debug_barrier_orders_a_block_exchange(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")

    @warpforge.jit
    def exchange(x_ptr):
        offs = tl.arange(0, 64)
        tl.store(x_ptr + offs, offs.to(tl.float32))
        tl.debug_barrier()
        tl.store(x_ptr + 64 + offs, tl.load(x_ptr + 63 - offs))

    x = np.full(128, np.nan, np.float32)
    exchange[(1,)](x)
    np.testing.assert_array_equal(x[64:], np.arange(63, -1, -1, dtype=np.float32))
