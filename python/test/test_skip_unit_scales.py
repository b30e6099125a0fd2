"""tilegpu-skip-unit-scales: a loop's rescale of a tile by a row vector
runs only in the warps where some factor is not exactly 1 (lit
`skip-unit-scales.mlir`, `warp-all.mlir`).

* On the CPU: the loop's PTX votes (`vote.sync.all`) and branches around
  the multiplications; the epilogue's rescale, outside the loop, does not.
* On the GPU: the result has the same bits as multiplying every time, over
  iterations where all, none or some of each warp's rows have factor 1
  (rows in runs of 8, so the warps of a 64-row tile split differently
  from one iteration to the next), for 4 and 8 warps. The tile is a
  wgmma accumulator, as attention's O.
"""

import numpy as np
import pytest

import warpforge
import warpforge.language as tl


@warpforge.jit
def rescale_loop(a_ptr, b_ptr, s_ptr, o_ptr, n, M: tl.constexpr, N: tl.constexpr,
                 K: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    ks = tl.arange(0, K)
    a = tl.load(a_ptr + rows[:, None] * K + ks[None, :])
    b = tl.load(b_ptr + ks[:, None] * N + cols[None, :])
    # A wgmma accumulator, as attention's O: 16 rows a warp.
    acc = tl.dot(a, b)
    for i in range(n):
        s = tl.load(s_ptr + i * M + rows)
        acc = acc * s[:, None]
    # Outside the loop: left as it is.
    last = tl.load(s_ptr + rows)
    acc = acc * last[:, None]
    tl.store(o_ptr + rows[:, None] * N + cols[None, :], acc)


def _scales(iters, M, seed):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.5, 2.0, size=(iters, M)).astype(np.float32)
    for i in range(iters):
        kind = i % 4
        if kind == 0:
            s[i] = 1.0                      # every warp skips
        elif kind == 1:
            pass                            # none does
        else:                               # runs of 8 rows at 1
            runs = (np.arange(M) // 8 + i) % kind == 0
            s[i, runs] = 1.0
    return s


def _reference(x, s):
    acc = x.copy()
    for row_scales in s:
        acc = acc * row_scales[:, None]
    return acc * s[0][:, None]


def test_loop_votes_and_epilogue_does_not():
    M, N, K = 64, 128, 64
    a = np.ones((M, K), np.float16)
    b = np.ones((K, N), np.float16)
    s = np.ones((4, M), np.float32)
    o = np.ones((M, N), np.float32)
    k = rescale_loop.warmup(a, b, s, o, 4, M=M, N=N, K=K, num_warps=4, grid=(1,))
    ptx = k.asm["ptx"]
    assert ptx.count("vote.sync.all.pred") == 1, ptx
    assert "tilegpu.warp_all" in k.asm["tilegpu"]


@pytest.mark.gpu
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("iters", [1, 7, 16])
def test_same_bits_as_multiplying_every_time(iters, warps):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    M, N, K = 64, 128, 64
    rng = np.random.default_rng(iters * 10 + warps)
    # Small integers: the product is exact, so the reference has its bits.
    a = rng.integers(-2, 3, size=(M, K)).astype(np.float16)
    b = rng.integers(-2, 3, size=(K, N)).astype(np.float16)
    x = a.astype(np.float32) @ b.astype(np.float32)
    s = _scales(iters, M, iters + warps)
    ad, bd, sd = (torch.from_numpy(t).cuda() for t in (a, b, s))
    out = torch.full((M, N), float("nan"), device="cuda")
    rescale_loop[(1,)](ad, bd, sd, out, iters, M=M, N=N, K=K, num_warps=warps)
    torch.cuda.synchronize()
    got = out.cpu().numpy()
    np.testing.assert_array_equal(got.view(np.int32), _reference(x, s).view(np.int32))
