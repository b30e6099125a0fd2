"""The CPU interpreter (WARPFORGE_INTERPRET=1 or @jit(interpret=True)):
kernels run over their whole grid with NumPy, with the compiled semantics.

Every test draws non-zero random inputs from a fixed seed, uses odd sizes,
poisons its outputs before the launch and compares with a NumPy reference.

This file: atomics, reductions and scans, dot, tensor descriptors, shape
ops, booleans and pointers, printing and barriers. test_interpreter.py says
where the other interpreter tests are.
"""

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl

from interp_helpers import rand, rand_int, rel_err

pytestmark = pytest.mark.usefixtures("interpreted")


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
    # Rows padded to 16 bytes, as the TMA needs (the kernel asserts it).
    x = rand(rng, (M, -(-N // 4) * 4))[:, :N]
    out_full = np.full((M + 3, -(-(N + 5) // 4) * 4), np.nan, np.float32)  # rows longer than N
    BM, BN = 16, 32
    desc_copy_kernel[(triton.cdiv(M, BM), triton.cdiv(N, BN))](
        x, out_full, M, N, x.strides[0] // 4, out_full.strides[0] // 4, BM=BM, BN=BN)
    np.testing.assert_array_equal(out_full[:M, :N], x + 1)
    assert np.isnan(out_full[M:, :]).all() and np.isnan(out_full[:, N:]).all()


@triton.jit
def desc_oob_load_kernel(x_ptr, out_ptr, M, N, stride, off_m, off_n, B: tl.constexpr):
    d = tl.make_tensor_descriptor(x_ptr, [M, N], [stride, 1], [B, B])
    block = d.load([off_m, off_n])
    r = tl.arange(0, B)
    tl.store(out_ptr + r[:, None] * B + r[None, :], block)


@pytest.mark.parametrize("off", [(-3, -5), (5, 9), (40, 0)])
def test_descriptor_out_of_bounds_reads_zero(off):
    rng = np.random.default_rng(9)
    M, N, B = 13, 17, 16
    x = rand(rng, (M, 24), np.float16)[:, :N]  # 48-byte rows
    out = np.full((B, B), np.nan, np.float16)
    desc_oob_load_kernel[(1,)](x, out, M, N, x.strides[0] // 2, off[0], off[1], B=B)
    want = np.zeros((B, B), np.float16)
    for i in range(B):
        for j in range(B):
            r, c = off[0] + i, off[1] + j
            if 0 <= r < M and 0 <= c < N:
                want[i, j] = x[r, c]
    np.testing.assert_array_equal(out, want)


@triton.jit
def desc_reduce_kernel(x_ptr, out_ptr, M, N, stride, KIND: tl.constexpr, B: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [M, N], [stride, 1], [B, B])
    dst = tl.make_tensor_descriptor(out_ptr, [M, N], [stride, 1], [B, B])
    off_m = tl.program_id(0) * B
    off_n = tl.program_id(1) * B
    v = src.load([off_m, off_n])
    if KIND == "add":
        dst.atomic_add([off_m, off_n], v)
    elif KIND == "max":
        dst.atomic_max([off_m, off_n], v)
    else:
        dst.atomic_or([off_m, off_n], v)


@pytest.mark.parametrize("kind,dtype", [("add", np.float32), ("max", np.int32),
                                        ("or", np.int32)])
def test_descriptor_reductions(kind, dtype):
    rng = np.random.default_rng(3)
    M, N, B = 13, 20, 16
    x = (rng.integers(-50, 50, (M, 24)) if dtype == np.int32 else rng.standard_normal((M, 24)))
    x = x.astype(dtype)[:, :N]
    full = (rng.integers(-50, 50, (M, 24)) if dtype == np.int32 else
            rng.standard_normal((M, 24))).astype(dtype)
    want = full.copy()
    op = {"add": np.add, "max": np.maximum, "or": np.bitwise_or}[kind]
    want[:, :N] = op(want[:, :N], x)
    desc_reduce_kernel[(1, 2)](x, full[:, :N], M, N, 24, KIND=kind, B=B)
    np.testing.assert_array_equal(full, want)


def test_descriptor_reduction_types():
    """The TMA reduces only some element types with each operation."""
    x = np.zeros((16, 16), np.float32)
    with pytest.raises(Exception, match="the TMA reduces .* with or, not fp32"):
        desc_reduce_kernel[(1, 1)](x, x, 16, 16, 16, KIND="or", B=16)


def test_descriptor_misaligned_stride_asserts():
    """A stride the TMA cannot take stops the kernel with the rule, in the
    interpreter as on the GPU (a device-side assert), never a wrong read."""
    x = np.zeros((13, 17), np.float16)  # 34-byte rows
    out = np.zeros((16, 16), np.float16)
    with pytest.raises(Exception, match="multiples of 16 bytes"):
        desc_oob_load_kernel[(1,)](x, out, 13, 17, 17, 0, 0, B=16)


# ---------------------------------------------------------------------------
# Shapes, booleans and pointers, printing, barriers
# ---------------------------------------------------------------------------


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


def test_assert_statement_on_a_tensor_checks_every_element():
    """`assert mask` on a tensor is a device assert when compiled (every
    element must hold); the interpreter does the same instead of asking the
    tensor for a single truth value. (The kernel lives in interp_helpers.py:
    pytest rewrites the asserts of test files.)"""
    from interp_helpers import assert_on_tensor_kernel
    x = np.arange(16, dtype=np.float32)
    assert_on_tensor_kernel[(1,)](x, LIMIT=100)
    np.testing.assert_array_equal(x, np.arange(1, 17, dtype=np.float32))
    with pytest.raises(AssertionError, match="an element reached the limit"):
        assert_on_tensor_kernel[(1,)](x, LIMIT=5)


@triton.jit
def read_past_end_kernel(x_ptr, y_ptr, out_ptr, N, EXTRA: tl.constexpr):
    offs = tl.arange(0, 16)
    v = tl.load(x_ptr + offs + EXTRA, mask=offs < N)
    tl.store(out_ptr + offs, v, mask=offs < N)


def test_access_past_an_argument_into_another_is_an_error():
    """A read past the end of one array argument that lands in another
    one's memory (valid host memory here, not on the GPU) is an error that
    names both, not a silent read of the neighbour."""
    buf = np.arange(64, dtype=np.float32)
    x, y = buf[:16], buf[32:48]  # separate arguments, 64 bytes apart
    out = np.zeros(16, np.float32)
    read_past_end_kernel[(1,)](x, y, out, 16, EXTRA=0)
    np.testing.assert_array_equal(out, x)
    with pytest.raises(Exception, match=r"through a pointer into argument 'x_ptr'.*"
                                        r"lands in argument 'y_ptr'"):
        read_past_end_kernel[(1,)](x, y, out, 16, EXTRA=32)
    # Overlapping views of one array are one allocation: reading across is fine.
    read_past_end_kernel[(1,)](buf[:16], buf[8:24], out, 16, EXTRA=8)
    np.testing.assert_array_equal(out, buf[8:24])


def test_failed_assert_statement_says_what_the_compiled_kernel_says():
    """`assert x < 5` without a message: the compiled kernel's device assert
    says "assertion `x < 5` failed"; the interpreter says the same at the
    assert's line (not an empty AssertionError), on a block and on a scalar."""
    from interp_helpers import assert_on_a_scalar_kernel, assert_without_message_kernel
    from warpforge.runtime.interpreter import DeviceAssertionError
    x = np.arange(16, dtype=np.float32)
    with pytest.raises(DeviceAssertionError) as info:
        assert_without_message_kernel[(1,)](x, BLOCK=16)
    assert isinstance(info.value, AssertionError)  # still what `assert` raises
    assert "assertion `x < 5` failed (first failing element at index [5])" in str(info.value)
    k = assert_without_message_kernel
    assert info.value.lineno == k.first_line + next(
        i for i, l in enumerate(k.source_lines) if "assert x < 5" in l)
    np.testing.assert_array_equal(x, np.arange(16, dtype=np.float32))  # stopped there
    y = np.array([7.0], np.float32)
    with pytest.raises(DeviceAssertionError, match=r"device assertion failed: "
                                                   r"assertion `x < 5` failed"):
        assert_on_a_scalar_kernel[(1,)](y)
    y[0] = 1.0
    assert_on_a_scalar_kernel[(1,)](y)
    assert y[0] == 2.0
