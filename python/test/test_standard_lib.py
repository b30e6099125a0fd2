"""Triton's standard-library tensor functions (issue 19): tl.flip, tl.sort,
tl.topk, tl.bitonic_merge, tl.join, tl.split, tl.interleave, tl.cat,
tl.histogram and tl.gather, and their tensor-method forms.

Each kernel runs in the interpreter against a NumPy reference (random
non-zero inputs; ties and negatives for the sorts; fp32, fp16 and int32;
shapes with dimensions of 1 and unequal sizes), compiles to a cubin on the
CPU, and runs on the GPU in the tests marked `gpu` (same references)."""

import os

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge.compiler.errors import CompilationError
from test_language_surface import backend, launch  # noqa: F401 - a fixture

RNG = np.random.default_rng(1919)
DTYPES = [np.float32, np.float16, np.int32]


def values(shape, dtype, lo=-50, hi=50):
    """Random non-zero values in `dtype`: integers in [lo, hi), so that
    sorts meet ties and negatives; fractions added for floats."""
    v = RNG.integers(lo, hi, shape).astype(np.float64)
    v[v == 0] = hi - 1
    if np.issubdtype(dtype, np.floating):
        v = v + RNG.choice([0.0, 0.25, 0.5], shape)
    return v.astype(dtype)


@triton.jit
def _tile_ptrs(ptr, R: tl.constexpr, C: tl.constexpr):
    return ptr + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]


# ---------------------------------------------------------------------------
# flip
# ---------------------------------------------------------------------------


@triton.jit
def flip_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr):
    x = tl.load(_tile_ptrs(x_ptr, R, C))
    tl.store(_tile_ptrs(out_ptr, R, C), tl.flip(x, DIM))
    tl.store(_tile_ptrs(out_ptr + R * C, R, C), x.flip())
    offs = tl.arange(0, C)
    row = tl.load(x_ptr + offs)
    tl.store(out_ptr + 2 * R * C + offs, tl.flip(row))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((4, 16), 0), ((4, 16), 1), ((8, 2), -1), ((1, 32), 0),
                                       ((16, 1), 1), ((2, 64), -2)])
def test_flip(backend, dtype, shape, dim):
    R, C = shape
    x = values(shape, dtype)
    out = np.zeros(2 * R * C + C, dtype)
    launch(flip_kernel, backend, x, out, R=R, C=C, DIM=dim)
    np.testing.assert_array_equal(out[:R * C].reshape(R, C), np.flip(x, dim))
    np.testing.assert_array_equal(out[R * C:2 * R * C].reshape(R, C), np.flip(x, 1))
    np.testing.assert_array_equal(out[2 * R * C:], x[0, ::-1])


def test_flip_keeps_bits(backend):
    """-0.0, NaN payloads and infinities come back exactly."""
    x = np.array([[-0.0, np.nan, np.inf, -np.inf, 1.5, -2.0, 0.0, 3.0]], np.float32)
    out = np.zeros(2 * 8 + 8, np.float32)
    launch(flip_kernel, backend, x, out, R=1, C=8, DIM=1)
    np.testing.assert_array_equal(out[:8].view(np.int32), x[0, ::-1].view(np.int32))


# ---------------------------------------------------------------------------
# sort, topk, bitonic_merge
# ---------------------------------------------------------------------------


@triton.jit
def sort_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr,
                DESCENDING: tl.constexpr):
    x = tl.load(_tile_ptrs(x_ptr, R, C))
    tl.store(_tile_ptrs(out_ptr, R, C), tl.sort(x, dim=DIM, descending=DESCENDING))
    tl.store(_tile_ptrs(out_ptr + R * C, R, C), x.sort())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((4, 32), 1), ((2, 8), None), ((1, 64), -1),
                                       ((16, 1), 1), ((8, 4), 0)])
@pytest.mark.parametrize("descending", [False, True])
def test_sort(backend, dtype, shape, dim, descending):
    R, C = shape
    x = values(shape, dtype, -8, 8)  # many ties
    out = np.zeros(2 * R * C, dtype)
    launch(sort_kernel, backend, x, out, R=R, C=C, DIM=dim, DESCENDING=descending)
    axis = 1 if dim is None else dim
    ref = np.sort(x, axis)
    if descending:
        ref = np.flip(ref, axis)
    np.testing.assert_array_equal(out[:R * C].reshape(R, C), ref)
    np.testing.assert_array_equal(out[R * C:].reshape(R, C), np.sort(x, 1))


@triton.jit
def sort_1d_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.sort(x, descending=True))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint32, np.int8, np.float16])
def test_sort_1d_dtypes(backend, dtype):
    N = 128
    lo = 0 if np.issubdtype(dtype, np.unsignedinteger) else -100
    x = values(N, dtype, lo, 100)
    if dtype == np.uint32:
        x[:4] = [0xFFFFFFFF, 0x80000000, 7, 7]  # above int32's range
    out = np.zeros(N, dtype)
    launch(sort_1d_kernel, backend, x, out, N=N)
    np.testing.assert_array_equal(out, np.sort(x)[::-1])


@triton.jit
def topk_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, K: tl.constexpr):
    x = tl.load(_tile_ptrs(x_ptr, R, C))
    tl.store(_tile_ptrs(out_ptr, R, K), tl.topk(x, K))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((4, 32), 4), ((2, 16), 1), ((8, 8), 8), ((1, 64), 16),
                                     ((4, 2), 1)])
def test_topk(backend, dtype, shape, k):
    R, C = shape
    x = values(shape, dtype, -20, 20)
    out = np.zeros(R * k, dtype)
    launch(topk_kernel, backend, x, out, R=R, C=C, K=k)
    np.testing.assert_array_equal(out.reshape(R, k), -np.sort(-x, 1)[:, :k])


@triton.jit
def bitonic_merge_kernel(x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr,
                         DESCENDING: tl.constexpr):
    x = tl.load(_tile_ptrs(x_ptr, R, C))
    tl.store(_tile_ptrs(out_ptr, R, C), tl.bitonic_merge(x, descending=DESCENDING))


@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_merge(backend, descending):
    R, C = 4, 16
    x = values((R, C), np.float32)
    # Each row: ascending then descending, with the peak placed at random.
    for i in range(R):
        s = np.sort(x[i])
        cut = RNG.integers(0, C + 1)
        x[i] = np.concatenate([s[:cut], s[cut:][::-1]]) if i % 2 else \
            np.concatenate([s[::-1][:cut], s[::-1][cut:][::-1]])
    out = np.zeros(R * C, np.float32)
    launch(bitonic_merge_kernel, backend, x, out, R=R, C=C, DESCENDING=descending)
    ref = np.sort(x, 1)
    np.testing.assert_array_equal(out.reshape(R, C), ref[:, ::-1] if descending else ref)


# ---------------------------------------------------------------------------
# join, split, interleave, cat
# ---------------------------------------------------------------------------


@triton.jit
def join_split_kernel(a_ptr, b_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr):
    a = tl.load(_tile_ptrs(a_ptr, R, C))
    b = tl.load(_tile_ptrs(b_ptr, R, C))
    j = tl.join(a, b)                                          # [R, C, 2]
    tl.store(_tile_ptrs(out_ptr, R, 2 * C), tl.reshape(j, R, 2 * C))
    lo, hi = j.split()
    tl.store(_tile_ptrs(out_ptr + 2 * R * C, R, C), hi)
    tl.store(_tile_ptrs(out_ptr + 3 * R * C, R, C), lo)
    tl.store(_tile_ptrs(out_ptr + 4 * R * C, R, 2 * C), tl.interleave(b, a))
    # Broadcast operands: a column against the tile.
    col = tl.load(a_ptr + tl.arange(0, R) * C)[:, None]
    first, _ = tl.split(tl.join(col, b))
    tl.store(_tile_ptrs(out_ptr + 6 * R * C, R, C), first)
    # Scalars: two give a [2] tensor, which splits into two scalars.
    s, t = tl.split(tl.join(tl.load(a_ptr), tl.load(b_ptr)))
    pair = tl.interleave(tl.load(b_ptr), tl.load(a_ptr))
    offs = tl.arange(0, 2)
    tl.store(out_ptr + 7 * R * C + offs, pair)
    tl.store(out_ptr + 7 * R * C + 2, t)
    tl.store(out_ptr + 7 * R * C + 3, s)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 8), (1, 16), (8, 1), (2, 32)])
def test_join_split_interleave(backend, dtype, shape):
    R, C = shape
    a, b = values(shape, dtype), values(shape, dtype)
    out = np.zeros(7 * R * C + 4, dtype)
    launch(join_split_kernel, backend, a, b, out, R=R, C=C)
    joined = np.stack([a, b], -1)
    np.testing.assert_array_equal(out[:2 * R * C].reshape(R, C, 2), joined)
    np.testing.assert_array_equal(out[2 * R * C:3 * R * C].reshape(R, C), b)
    np.testing.assert_array_equal(out[3 * R * C:4 * R * C].reshape(R, C), a)
    np.testing.assert_array_equal(out[4 * R * C:6 * R * C].reshape(R, 2 * C),
                                  np.stack([b, a], -1).reshape(R, 2 * C))
    np.testing.assert_array_equal(out[6 * R * C:7 * R * C].reshape(R, C),
                                  np.broadcast_to(a[:, :1], (R, C)))
    np.testing.assert_array_equal(out[7 * R * C:], [b[0, 0], a[0, 0], b[0, 0], a[0, 0]])


@triton.jit
def split_mixed_kernel(x_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    flags = tl.join(x > 0, x < -1)                      # booleans
    neg, one = tl.split(tl.join(-x, 1.0))               # a Python float adapts
    f0, f1 = flags.split()
    tl.store(out_ptr + offs, neg + x + one)
    tl.store(out_ptr + N + offs, f0.to(tl.float32) + 2 * f1.to(tl.float32))
    ptrs = tl.join(x_ptr + offs, x_ptr + N - 1 - offs)  # pointers
    p0, p1 = tl.split(ptrs)
    tl.store(out_ptr + 2 * N + offs, tl.load(p1) - tl.load(p0))


def test_split_bool_pointer_and_literal(backend):
    N = 32
    x = values(N, np.float32)
    out = np.zeros(3 * N, np.float32)
    launch(split_mixed_kernel, backend, x, out, N=N)
    np.testing.assert_array_equal(out[:N], np.ones(N, np.float32))
    np.testing.assert_array_equal(out[N:2 * N], (x > 0) + 2.0 * (x < -1))
    np.testing.assert_array_equal(out[2 * N:], x[::-1] - x)


@triton.jit
def cat_kernel(a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    c = tl.cat(tl.load(a_ptr + offs), tl.load(b_ptr + offs), can_reorder=True)
    tl.store(out_ptr + tl.arange(0, 2 * N), c)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [1, 8, 64])
def test_cat(backend, dtype, n):
    a, b = values(n, dtype), values(n, dtype)
    out = np.zeros(2 * n, dtype)
    launch(cat_kernel, backend, a, b, out, N=n)
    # warpforge's order (Triton only promises some order): a, then b.
    np.testing.assert_array_equal(out, np.concatenate([a, b]))


# ---------------------------------------------------------------------------
# histogram, gather
# ---------------------------------------------------------------------------


@triton.jit
def histogram_kernel(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    bins = tl.arange(0, BINS)
    tl.store(out_ptr + bins, tl.histogram(x, BINS, mask=offs < n))
    tl.store(out_ptr + BINS + bins, x.histogram(BINS))


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.int16])
@pytest.mark.parametrize("n,N,bins", [(61, 64, 16), (100, 128, 8), (1, 16, 32), (16, 16, 1)])
def test_histogram(backend, dtype, n, N, bins):
    lo = 0 if dtype == np.uint8 else -3
    x = RNG.integers(lo, bins + 3, n).astype(dtype)  # some outside [0, bins)
    out = np.full(2 * bins, -1, np.int32)
    launch(histogram_kernel, backend, x, out, n, N=N, BINS=bins)
    ref = np.bincount(x[(x >= 0) & (x < bins)].astype(np.int64), minlength=bins)
    np.testing.assert_array_equal(out[:bins], ref)
    padded = np.concatenate([x, np.zeros(N - n, dtype)])
    ref_all = np.bincount(padded[(padded >= 0) & (padded < bins)].astype(np.int64),
                          minlength=bins)
    np.testing.assert_array_equal(out[bins:], ref_all)


@triton.jit
def gather_kernel(src_ptr, idx_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr,
                  IR: tl.constexpr, IC: tl.constexpr, AXIS: tl.constexpr, WRAP: tl.constexpr):
    src = tl.load(_tile_ptrs(src_ptr, R, C))
    idx = tl.load(_tile_ptrs(idx_ptr, IR, IC)) & WRAP  # indices in range
    tl.store(_tile_ptrs(out_ptr, IR, IC), tl.gather(src, idx, AXIS))
    tl.store(_tile_ptrs(out_ptr + IR * IC, IR, IC), src.gather(idx, AXIS))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,ishape,axis", [((8, 4), (16, 4), 0), ((4, 16), (4, 2), 1),
                                               ((1, 8), (1, 8), -1), ((16, 2), (1, 2), 0),
                                               ((4, 8), (4, 8), 1)])
def test_gather(backend, dtype, shape, ishape, axis):
    src = values(shape, dtype)
    index = RNG.integers(0, shape[axis], ishape).astype(np.int32)
    out = np.zeros(2 * index.size, dtype)
    launch(gather_kernel, backend, src, index, out, R=shape[0], C=shape[1], IR=ishape[0],
           IC=ishape[1], AXIS=axis, WRAP=shape[axis] - 1)
    ref = np.take_along_axis(src, index, axis)
    np.testing.assert_array_equal(out[:index.size].reshape(ishape), ref)
    np.testing.assert_array_equal(out[index.size:].reshape(ishape), ref)


@triton.jit
def gather_1d_kernel(src_ptr, idx_ptr, out_ptr, N: tl.constexpr, M: tl.constexpr):
    src = tl.load(src_ptr + tl.arange(0, N))
    idx = tl.load(idx_ptr + tl.arange(0, M))
    tl.store(out_ptr + tl.arange(0, M), tl.gather(src, idx, 0))


@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64, np.uint8])
def test_gather_1d_index_dtypes(backend, idx_dtype):
    N, M = 32, 64
    src = values(N, np.float16)
    index = RNG.integers(0, N, M).astype(idx_dtype)
    out = np.zeros(M, np.float16)
    launch(gather_1d_kernel, backend, src, index, out, N=N, M=M)
    np.testing.assert_array_equal(out, src[index])


# ---------------------------------------------------------------------------
# Every function compiles to a cubin
# ---------------------------------------------------------------------------


def _f32(*shape):
    return np.ones(shape, np.float32)


@pytest.mark.parametrize("kernel,args,consts", [
    (flip_kernel, lambda: (_f32(4, 16), _f32(144)), dict(R=4, C=16, DIM=0)),
    (sort_kernel, lambda: (_f32(4, 32), _f32(256)), dict(R=4, C=32, DIM=1, DESCENDING=True)),
    (sort_kernel, lambda: (_f32(8, 4), _f32(64)), dict(R=8, C=4, DIM=0, DESCENDING=False)),
    (sort_1d_kernel, lambda: (np.ones(128, np.int32), np.ones(128, np.int32)), dict(N=128)),
    (topk_kernel, lambda: (np.ones((4, 32), np.float16), np.ones(16, np.float16)),
     dict(R=4, C=32, K=4)),
    (bitonic_merge_kernel, lambda: (_f32(4, 16), _f32(64)), dict(R=4, C=16, DESCENDING=True)),
    (join_split_kernel, lambda: (_f32(4, 8), _f32(4, 8), _f32(228)), dict(R=4, C=8)),
    (split_mixed_kernel, lambda: (_f32(32), _f32(96)), dict(N=32)),
    (cat_kernel, lambda: (np.ones(64, np.int32),) * 2 + (np.ones(128, np.int32),), dict(N=64)),
    (histogram_kernel, lambda: (np.ones(64, np.int32), np.ones(32, np.int32), 61),
     dict(N=64, BINS=16)),
    (gather_kernel, lambda: (_f32(8, 4), np.ones((16, 4), np.int32), _f32(128)),
     dict(R=8, C=4, IR=16, IC=4, AXIS=0, WRAP=7)),
    (gather_1d_kernel, lambda: (np.ones(32, np.float16), np.ones(64, np.int64),
                                np.ones(64, np.float16)), dict(N=32, M=64)),
], ids=lambda v: getattr(getattr(v, "fn", None), "__name__", None))
def test_compiles_to_a_cubin(kernel, args, consts):
    assert kernel.warmup(*args(), grid=(1,), **consts).asm["cubin"]


@pytest.mark.parametrize("kernel,sizes,consts", [
    (flip_kernel, (64, 144), dict(R=4, C=16, DIM=0)),
    (flip_kernel, (16, 48), dict(R=1, C=16, DIM=1)),
    (sort_kernel, (128, 256), dict(R=4, C=32, DIM=1, DESCENDING=True)),
    (sort_kernel, (32, 64), dict(R=8, C=4, DIM=0, DESCENDING=False)),
    (topk_kernel, (128, 16), dict(R=4, C=32, K=4)),
    (topk_kernel, (64, 8), dict(R=8, C=8, K=1)),
    (join_split_kernel, (32, 32, 228), dict(R=4, C=8)),
    (cat_kernel, (64, 64, 128), dict(N=64)),
    (gather_kernel, (32, 64, 128), dict(R=8, C=4, IR=16, IC=4, AXIS=0, WRAP=7)),
    (gather_kernel, (64, 8, 16), dict(R=4, C=16, IR=4, IC=2, AXIS=1, WRAP=15)),
], ids=lambda v: getattr(getattr(v, "fn", None), "__name__", None))
def test_compiled_code_simulated(kernel, sizes, consts, monkeypatch):
    """The compiled kernel's lowered code, run for every thread of the CTA on
    the CPU (warpforge-opt --test-simulate-cta, int32 data only), writes what
    the interpreter writes from the same inputs."""
    from test_layout_simulation import OPT, input_values, simulate
    if not os.path.exists(OPT):
        pytest.skip(f"{OPT} is not built")
    # Arguments 4 bytes off a 16-byte boundary: scalar accesses, since the
    # simulator has no vector loads or stores.
    misaligned = [np.zeros(n + 1, np.int32)[1:] for n in sizes]
    assert all(a.ctypes.data % 16 for a in misaligned)
    compiled = kernel.warmup(*misaligned, grid=(1,), **consts)
    written = simulate(compiled.asm["tilegpu"], ["i32"] * len(sizes))
    assert written
    arrays = [input_values(a, n).astype(np.int32) for a, n in enumerate(sizes)]
    simulated = [a.copy() for a in arrays]
    for (arg, i), v in written.items():
        simulated[arg][i] = v
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    kernel[(1,)](*arrays, **consts)
    for arg, (sim, ref) in enumerate(zip(simulated, arrays)):
        np.testing.assert_array_equal(sim, ref, err_msg=f"argument {arg}")


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@triton.jit
def misuse_kernel(x_ptr, WHICH: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if WHICH == "cat":
        y = tl.cat(x, x)
    elif WHICH == "cat2d":
        y = tl.cat(x[:, None], x[:, None], can_reorder=True)
    elif WHICH == "split":
        y, _ = tl.split(x)
    elif WHICH == "join":
        y = tl.join(x, x.to(tl.int32))
    elif WHICH == "histogram":
        y = tl.histogram(x, 8)
    elif WHICH == "gather":
        y = tl.gather(x[:, None] + tl.zeros((16, 2), tl.float32), offs[:, None], 0)
    elif WHICH == "gather_float":
        y = tl.gather(x, x, 0)
    elif WHICH == "topk":
        y = tl.topk(x, 3)
    elif WHICH == "sort_scalar":
        y = tl.sort(tl.sum(x))
    else:
        y = tl.flip(x, 1)
    tl.store(x_ptr + offs, y)


@pytest.mark.parametrize("which,message", [
    ("cat", "pass can_reorder=True"),
    ("cat2d", "two 1-D tensors"),
    ("split", "last dimension of size 2"),
    ("join", "one dtype"),
    ("histogram", "needs integer values"),
    ("gather", "dimension 1 of index"),
    ("gather_float", "integer index"),
    ("topk", "power of 2"),
    ("sort_scalar", "needs a block tensor"),
    ("flip", "dim 1 is out of range"),
])
def test_errors(which, message):
    with pytest.raises(CompilationError, match=message):
        misuse_kernel.warmup(np.zeros(16, np.float32), WHICH=which, grid=(1,))
