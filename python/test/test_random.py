"""tl.randint, tl.randint4x, tl.rand, tl.randn (and their 4x forms) and
the building blocks tl.philox, tl.philox_impl, tl.uint_to_uniform_float and
tl.pair_uniform_to_normal: Triton's Philox streams, bit for bit.

The reference here is Philox4x32 (and 4x64) written from the algorithm with
NumPy and Python integers, checked against Random123's known-answer vectors;
the kernels' streams are that generator keyed by the seed's two 32-bit
halves with the counter (offset low word, offset high word, 0, 0), as
Triton's random.py builds them. Kernels run in the interpreter against the
reference, compile to cubins on the CPU, and run on the GPU in the tests
marked `gpu` (equal to the interpreter bit for bit, randn within libdevice's
rounding of log, sqrt, sin and cos)."""

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from launch_helpers import launch

BLOCK = 256
M32 = 0xFFFFFFFF
M64 = (1 << 64) - 1

# ---------------------------------------------------------------------------
# The reference generator
# ---------------------------------------------------------------------------

# Multipliers and key increments (Weyl sequence) of Philox, per word size.
PHILOX_M = {32: (0xD2511F53, 0xCD9E8D57), 64: (0xD2E7470EE14C6C93, 0xCA5A826395121157)}
PHILOX_W = {32: (0x9E3779B9, 0xBB67AE85), 64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}


def philox4x32(ctr, key, rounds=10):
    """Philox4x32 on arrays: `ctr` four uint32 arrays, `key` two ints. The
    32x32-bit products are exact in uint64."""
    x = [np.asarray(c).astype(np.uint32).astype(np.uint64) for c in ctr]
    k = [np.uint64(v & M32) for v in key]
    m0, m1 = (np.uint64(m) for m in PHILOX_M[32])
    w = [np.uint64(v) for v in PHILOX_W[32]]
    mask, shift = np.uint64(M32), np.uint64(32)
    for r in range(rounds):
        if r:
            k = [(k[0] + w[0]) & mask, (k[1] + w[1]) & mask]
        p0, p1 = m0 * x[0], m1 * x[2]
        x = [(p1 >> shift) ^ x[1] ^ k[0], p1 & mask, (p0 >> shift) ^ x[3] ^ k[1], p0 & mask]
    return [v.astype(np.uint32) for v in x]


def philox4x64(ctr, key, rounds=10):
    """Philox4x64 on Python integers (one counter)."""
    x, k = list(ctr), list(key)
    m0, m1 = PHILOX_M[64]
    for r in range(rounds):
        if r:
            k = [(k[0] + PHILOX_W[64][0]) & M64, (k[1] + PHILOX_W[64][1]) & M64]
        p0, p1 = m0 * x[0], m1 * x[2]
        x = [(p1 >> 64) ^ x[1] ^ k[0], p1 & M64, (p0 >> 64) ^ x[3] ^ k[1], p0 & M64]
    return x


# Random123's tests/kat_vectors: (rounds, counter, key, output).
KAT_4X32 = [
    (10, [0] * 4, [0, 0], [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]),
    (10, [M32] * 4, [M32, M32], [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]),
    (10, [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0],
     [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]),
]
KAT_4X64 = [
    (10, [0] * 4, [0, 0],
     [0x16554d9eca36314c, 0xdb20fe9d672d0fdc, 0xd7e772cee186176b, 0x7e68b68aec7ba23b]),
    (10, [M64] * 4, [M64, M64],
     [0x87b092c3013fe90b, 0x438c3c67be8d0224, 0x9cc7d7c69cd777b6, 0xa09caebf594f0ba0]),
    (7, [0] * 4, [0, 0],
     [0x5dc8ee6268ec62cd, 0x139bc570b6c125a0, 0x84d6deb4fb65f49e, 0xaff7583376d378c2]),
]


def stream(seed, offsets, rounds=10):
    """Triton's four words for `seed` (a Python int, as a 64-bit value) at
    `offsets` (a NumPy integer array): key = the seed's low and high 32 bits,
    counter = (offset mod 2**32, offset >> 32 for 64-bit offsets else 0, 0, 0)."""
    s = seed & M64
    offsets = np.asarray(offsets)
    lo = offsets.astype(np.uint32)
    hi = (offsets >> 32).astype(np.uint32) if offsets.dtype.itemsize == 8 else lo * 0
    return philox4x32([lo, hi, lo * 0, lo * 0], [s & M32, s >> 32], rounds)


def uniform(words):
    """Triton's uint_to_uniform_float of uint32 words: read as int32, fold the
    negatives onto [0, 2**31) with -x - 1, convert to fp32 and scale in fp32."""
    x = words.view(np.int32).astype(np.int64)
    x = np.where(x < 0, -x - 1, x)
    return x.astype(np.float32) * np.float32(4.6566127342e-10)


def normal_pair(u1, u2):
    """Triton's Box-Muller transform, in fp32."""
    u1 = np.maximum(np.float32(1e-7), u1)
    th = np.float32(6.283185307179586) * u2
    r = np.sqrt(np.float32(-2.0) * np.log(u1))
    return r * np.cos(th), r * np.sin(th)


@pytest.mark.parametrize("rounds, ctr, key, expected", KAT_4X32)
def test_reference_philox4x32_known_answers(rounds, ctr, key, expected):
    out = philox4x32([np.array([c], np.uint32) for c in ctr], key, rounds)
    assert [int(v[0]) for v in out] == expected


@pytest.mark.parametrize("rounds, ctr, key, expected", KAT_4X64)
def test_reference_philox4x64_known_answers(rounds, ctr, key, expected):
    assert philox4x64(ctr, key, rounds) == expected


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

@triton.jit
def ints_kernel(off_ptr, seed, out_ptr, n, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    """Row 0: randint; rows 1-4: randint4x (offsets loaded, of their type)."""
    i = tl.arange(0, BLOCK)
    mask = i < n
    off = tl.load(off_ptr + i, mask=mask, other=0)
    tl.store(out_ptr + i, tl.randint(seed, off, ROUNDS), mask=mask)
    r0, r1, r2, r3 = tl.randint4x(seed, off, ROUNDS)
    tl.store(out_ptr + 1 * n + i, r0, mask=mask)
    tl.store(out_ptr + 2 * n + i, r1, mask=mask)
    tl.store(out_ptr + 3 * n + i, r2, mask=mask)
    tl.store(out_ptr + 4 * n + i, r3, mask=mask)


@triton.jit
def floats_kernel(off_ptr, seed, out_ptr, n, BLOCK: tl.constexpr):
    """Row 0: rand; 1: randn; 2-5: rand4x; 6-9: randn4x."""
    i = tl.arange(0, BLOCK)
    mask = i < n
    off = tl.load(off_ptr + i, mask=mask, other=0)
    tl.store(out_ptr + i, tl.rand(seed, off), mask=mask)
    tl.store(out_ptr + n + i, tl.randn(seed, off), mask=mask)
    u0, u1, u2, u3 = tl.rand4x(seed, off)
    n0, n1, n2, n3 = tl.randn4x(seed, off)
    tl.store(out_ptr + 2 * n + i, u0, mask=mask)
    tl.store(out_ptr + 3 * n + i, u1, mask=mask)
    tl.store(out_ptr + 4 * n + i, u2, mask=mask)
    tl.store(out_ptr + 5 * n + i, u3, mask=mask)
    tl.store(out_ptr + 6 * n + i, n0, mask=mask)
    tl.store(out_ptr + 7 * n + i, n1, mask=mask)
    tl.store(out_ptr + 8 * n + i, n2, mask=mask)
    tl.store(out_ptr + 9 * n + i, n3, mask=mask)


@triton.jit
def scalar_offset_kernel(seed, offset, out_ptr):
    """A scalar offset: the four words, then rand's and randn's bits."""
    r0, r1, r2, r3 = tl.randint4x(seed, offset)
    tl.store(out_ptr, r0)
    tl.store(out_ptr + 1, r1)
    tl.store(out_ptr + 2, r2)
    tl.store(out_ptr + 3, r3)
    tl.store(out_ptr + 4, tl.rand(seed, offset).to(tl.uint32, bitcast=True))
    tl.store(out_ptr + 5, tl.randn(seed, offset).to(tl.uint32, bitcast=True))


@triton.jit
def philox_kernel(c_ptr, k_ptr, seed, out_ptr, ROUNDS: tl.constexpr, BLOCK: tl.constexpr):
    """Rows 0-3: philox_impl of the counters c[0..3] with key (k[0], k[1]);
    rows 4-7: philox(seed, c[0..3]) (64-bit counters when c is 64-bit)."""
    i = tl.arange(0, BLOCK)
    c0 = tl.load(c_ptr + i)
    c1 = tl.load(c_ptr + BLOCK + i)
    c2 = tl.load(c_ptr + 2 * BLOCK + i)
    c3 = tl.load(c_ptr + 3 * BLOCK + i)
    k0 = tl.load(k_ptr)
    k1 = tl.load(k_ptr + 1)
    a0, a1, a2, a3 = tl.philox_impl(c0, c1, c2, c3, k0, k1, ROUNDS)
    b0, b1, b2, b3 = tl.philox(seed, c0, c1, c2, c3, ROUNDS)
    tl.store(out_ptr + i, a0)
    tl.store(out_ptr + BLOCK + i, a1)
    tl.store(out_ptr + 2 * BLOCK + i, a2)
    tl.store(out_ptr + 3 * BLOCK + i, a3)
    tl.store(out_ptr + 4 * BLOCK + i, b0)
    tl.store(out_ptr + 5 * BLOCK + i, b1)
    tl.store(out_ptr + 6 * BLOCK + i, b2)
    tl.store(out_ptr + 7 * BLOCK + i, b3)


# Seeds of each argument type: i32 (and the constexpr 1), i64 and u64.
SEEDS = [0, 1, 12345, -7, 2**31 - 1, 2**40 + 3, -(2**35) - 1, 2**64 - 5]


def offsets_of(dtype, n=BLOCK - 3, seed=0):
    """Offsets of `dtype`: a run from 0, then random values over the type's
    range, with its extremes."""
    info = np.iinfo(dtype)
    rng = np.random.default_rng(seed)
    o = np.arange(n).astype(dtype)
    o[n // 2:] = rng.integers(info.min, info.max, n - n // 2, dtype=dtype, endpoint=True)
    o[-2:] = [info.min, info.max]
    return o


def run_ints(backend, seed, offsets, rounds=10):
    n = len(offsets)
    out = np.zeros((5, n), np.uint32)
    launch(ints_kernel, backend, offsets, seed, out, n, ROUNDS=rounds, BLOCK=BLOCK)
    return out


def run_floats(backend, seed, offsets):
    n = len(offsets)
    out = np.zeros((10, n), np.float32)
    launch(floats_kernel, backend, offsets, seed, out, n, BLOCK=BLOCK)
    return out


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.uint64])
def test_randint_streams(seed, dtype, interpreted):
    offsets = offsets_of(dtype, seed=seed & 0xFFFF)
    out = run_ints("interp", seed, offsets)
    words = stream(seed, offsets)
    np.testing.assert_array_equal(out[0], words[0])
    np.testing.assert_array_equal(out[1:], np.stack(words))


@pytest.mark.parametrize("rounds", [0, 1, 7, 12])
def test_randint_rounds(rounds, interpreted):
    offsets = offsets_of(np.int64, seed=rounds)
    out = run_ints("interp", 2**33 + 77, offsets, rounds)
    np.testing.assert_array_equal(out[1:], np.stack(stream(2**33 + 77, offsets, rounds)))
    assert tl.random.N_ROUNDS_DEFAULT == 10


@pytest.mark.parametrize("seed", [3, -7, 2**40 + 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_rand_and_randn_streams(seed, dtype, interpreted):
    offsets = offsets_of(dtype, seed=5)
    out = run_floats("interp", seed, offsets)
    words = stream(seed, offsets)
    u = [uniform(w) for w in words]
    np.testing.assert_array_equal(out[0], u[0])
    np.testing.assert_array_equal(out[2:6], np.stack(u))
    n0, n1 = normal_pair(u[0], u[1])
    n2, n3 = normal_pair(u[2], u[3])
    np.testing.assert_array_equal(out[1], n0)
    np.testing.assert_array_equal(out[6:], np.stack([n0, n1, n2, n3]))


@pytest.mark.parametrize("seed, offset", [(0, 0), (1, 1), (42, -3), (-1, 2**31 - 1),
                                          (2**40 + 3, 2**40 + 5), (9, -(2**45))])
def test_scalar_offsets(seed, offset, interpreted):
    out = np.zeros(6, np.uint32)
    scalar_offset_kernel[(1,)](seed, offset, out)
    dtype = np.int32 if -(2**31) <= offset < 2**31 else np.int64
    words = stream(seed, np.array([offset], dtype))
    np.testing.assert_array_equal(out[:4], np.concatenate(words))
    u0, u1 = uniform(words[0]), uniform(words[1])
    np.testing.assert_array_equal(out[4:5].view(np.float32), u0)
    np.testing.assert_array_equal(out[5:6].view(np.float32), normal_pair(u0, u1)[0])


def test_philox_building_blocks(interpreted):
    rng = np.random.default_rng(1)
    # 32-bit counters: the known answers in the first lanes, random after.
    c = rng.integers(0, 2**32, (4, BLOCK), dtype=np.uint32)
    c[:, 0], c[:, 1] = 0, M32
    for key in ([0, 0], [M32, M32]):
        out = np.zeros((8, BLOCK), np.uint32)
        seed = key[0] | (key[1] << 32)
        philox_kernel[(1,)](c, np.array(key, np.uint32), seed, out, ROUNDS=10, BLOCK=BLOCK)
        expected = np.stack(philox4x32(list(c), key))
        np.testing.assert_array_equal(out[:4], expected)
        np.testing.assert_array_equal(out[4:], expected)
        lane = 0 if key[0] == 0 else 1
        assert list(out[:4, lane]) == KAT_4X32[lane][3]
    # 64-bit counters: Philox4x64, keyed (seed, 0) by philox.
    c64 = rng.integers(0, 2**64, (4, 8), dtype=np.uint64, endpoint=False)
    c64[:, 0], c64[:, 1] = 0, M64
    for rounds, key in ((10, [0, 0]), (10, [M64, M64]), (7, [0, 0])):
        out = np.zeros((8, 8), np.uint64)
        philox_kernel[(1,)](c64, np.array(key, np.uint64), 12345, out, ROUNDS=rounds, BLOCK=8)
        for j in range(8):
            ctr = [int(v) for v in c64[:, j]]
            assert [int(v) for v in out[:4, j]] == philox4x64(ctr, key, rounds)
            assert [int(v) for v in out[4:, j]] == philox4x64(ctr, [12345, 0], rounds)
    kat = {(r, k[0]): e for r, _, k, e in KAT_4X64}
    assert [int(v) for v in out[:4, 0]] == kat[(7, 0)]


@triton.jit
def uniform_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + i, tl.uint_to_uniform_float(x))


def test_uint_to_uniform_float_edges(interpreted):
    x = np.array([0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**31 + 5, 12345, 2**30], np.uint32)
    out = np.zeros(8, np.float32)
    uniform_kernel[(1,)](x, out, BLOCK=8)
    np.testing.assert_array_equal(out, uniform(x))
    assert out.max() < 1.0 and out.min() == 0.0
    out_i = np.zeros(8, np.float32)
    uniform_kernel[(1,)](x.view(np.int32), out_i, BLOCK=8)
    np.testing.assert_array_equal(out_i, out)
    x64 = np.array([0, 1, 2**63 - 1, 2**63, 2**64 - 1, 3, 2**40, 7 << 60], np.uint64)
    uniform_kernel[(1,)](x64, out, BLOCK=8)
    s = x64.view(np.int64)
    expected = np.where(s < 0, -(s + 1), s).astype(np.float32) * np.float32(
        1.0842020432385337e-19)
    np.testing.assert_array_equal(out, expected)
    assert out.max() < 1.0


@triton.jit
def sample_kernel(seed, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.rand(seed, offs))
    tl.store(out_ptr + 16 * BLOCK + offs, tl.randn(seed, offs))


def test_statistics(interpreted):
    out = np.zeros((2, 16 * BLOCK), np.float32)
    sample_kernel[(16,)](2024, out, BLOCK=BLOCK)
    u, z = out
    assert u.min() >= 0.0 and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 0.02 and abs(u.var() - 1 / 12) < 0.01
    assert abs(z.mean()) < 0.05 and abs(z.var() - 1.0) < 0.08
    assert abs((z < 0).mean() - 0.5) < 0.03
    # Different seeds and offsets give different streams.
    other = np.zeros_like(out)
    sample_kernel[(16,)](2025, other, BLOCK=BLOCK)
    assert (other[0] != u).mean() > 0.99
    assert len(np.unique(u)) > 0.99 * u.size


# ---------------------------------------------------------------------------
# To cubins, and on the GPU
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [5, 2**40 + 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_compiles_to_a_cubin(seed, dtype):
    offsets = offsets_of(dtype)
    n = len(offsets)
    assert ints_kernel.warmup(offsets, seed, np.zeros((5, n), np.uint32), n, ROUNDS=10,
                              BLOCK=BLOCK, grid=(1,)).asm["cubin"]
    assert floats_kernel.warmup(offsets, seed, np.zeros((10, n), np.float32), n, BLOCK=BLOCK,
                                grid=(1,)).asm["cubin"]
    assert scalar_offset_kernel.warmup(seed, int(offsets[-1]), np.zeros(6, np.uint32),
                                       grid=(1,)).asm["cubin"]
    assert sample_kernel.warmup(seed, np.zeros(32 * BLOCK, np.float32), BLOCK=BLOCK,
                                grid=(1,)).asm["cubin"]


def test_philox_compiles_to_a_cubin():
    c = np.zeros((4, 64), np.uint32)
    assert philox_kernel.warmup(c, np.zeros(2, np.uint32), 7, np.zeros((8, 64), np.uint32),
                                ROUNDS=10, BLOCK=64, grid=(1,)).asm["cubin"]
    c64 = np.zeros((4, 64), np.uint64)
    assert philox_kernel.warmup(c64, np.zeros(2, np.uint64), 7, np.zeros((8, 64), np.uint64),
                                ROUNDS=10, BLOCK=64, grid=(1,)).asm["cubin"]
    x = np.zeros(64, np.uint32)
    assert uniform_kernel.warmup(x, np.zeros(64, np.float32), BLOCK=64,
                                 grid=(1,)).asm["cubin"]


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [0, 1, -7, 2**40 + 3, 2**64 - 5])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
def test_gpu_ints_equal_the_interpreter(seed, dtype, monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    offsets = offsets_of(dtype, seed=11)
    gpu = run_ints("gpu", seed, offsets)
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    np.testing.assert_array_equal(gpu, run_ints("interp", seed, offsets))
    np.testing.assert_array_equal(gpu[1:], np.stack(stream(seed, offsets)))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", [3, -7, 2**40 + 3])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_gpu_floats_equal_the_interpreter(seed, dtype, monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    offsets = offsets_of(dtype, seed=5)
    gpu = run_floats("gpu", seed, offsets)
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    interp = run_floats("interp", seed, offsets)
    uniforms = [0, 2, 3, 4, 5]
    np.testing.assert_array_equal(gpu[uniforms], interp[uniforms])
    # Box-Muller goes through libdevice's logf, sqrtf, sinf and cosf there.
    normals = [1, 6, 7, 8, 9]
    np.testing.assert_allclose(gpu[normals], interp[normals], rtol=1e-5, atol=1e-5)


@pytest.mark.gpu
def test_gpu_scalar_offsets_and_philox(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    out = np.zeros(6, np.uint32)
    launch(scalar_offset_kernel, "gpu", 2**40 + 3, 2**40 + 5, out)
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    ref = np.zeros(6, np.uint32)
    scalar_offset_kernel[(1,)](2**40 + 3, 2**40 + 5, ref)
    np.testing.assert_array_equal(out[:5], ref[:5])
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    rng = np.random.default_rng(3)
    for c, key in ((rng.integers(0, 2**32, (4, 64), dtype=np.uint32), [M32, 5]),
                   (rng.integers(0, 2**64, (4, 64), dtype=np.uint64), [M64, 5])):
        key = np.array(key, c.dtype)
        gpu = np.zeros((8, 64), c.dtype)
        launch(philox_kernel, "gpu", c, key, 99, gpu, ROUNDS=10, BLOCK=64)
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
        interp = np.zeros_like(gpu)
        philox_kernel[(1,)](c, key, 99, interp, ROUNDS=10, BLOCK=64)
        monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
        np.testing.assert_array_equal(gpu, interp)
