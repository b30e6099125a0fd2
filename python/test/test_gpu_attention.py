"""Attention on the GPU, against float64.

* bench/kernels/attention.py's forward (FlashAttention-2's algorithm, TMA
  loads, the softmax in the first product's registers, P fed to the second
  product from registers): head dims 64, 128 and 256, fp16 and bf16, causal
  and not, sequence lengths that are multiples of the block (1024) and odd
  ones (1000, 1531: a masked last K/V block, a partial last Q block stored
  through masked pointers). O is allocated inside a NaN buffer with NaN
  guards around it, so an unwritten output row, or a write past the
  sequence (into the next head's rows or past the tensor), shows; LSE is
  checked too.
* Triton 3.6's tutorial 06 (tutorial06_kernels.py), forward and backward,
  causal and not, D 64 and 128, as its own test_op runs them, but compared
  with float64 (its test compares with fp16 torch): O, dQ, dK and dV.

Inputs are random normals (std 0.5, as the tutorial's test), never zeros.
Tolerances: max |out - ref| / max |ref| under 1e-2 for O (fp16; 2e-2 for
bf16, whose P is rounded to 8 bits) and 2e-2 for the gradients (the
backward recomputes P in fp16 and accumulates dK and dV over the sequence).
"""

import math
import os
import sys
import warnings
import zlib

import pytest

import warpforge

torch = pytest.importorskip("torch")

pytestmark = [pytest.mark.gpu]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench"))


def _kernels():
    import common
    return common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"),
                               "warpforge")


def _generator(*key):
    return torch.Generator(device="cuda").manual_seed(zlib.crc32(repr(key).encode()))


def _inputs(Z, H, S, D, dtype, key):
    g = _generator(*key)
    return [(torch.randn((Z, H, S, D), generator=g, device="cuda") * 0.5).to(dtype)
            for _ in range(3)]


def _reference(q, k, v, causal, sm_scale):
    """O and the natural-log LSE in float64."""
    q64, k64, v64 = (t.double() for t in (q, k, v))
    s = torch.matmul(q64, k64.transpose(-1, -2)) * sm_scale
    if causal:
        S = q.shape[2]
        s = s.masked_fill(~torch.ones(S, S, dtype=torch.bool, device=q.device).tril(), -math.inf)
    lse = torch.logsumexp(s, dim=-1)
    return torch.matmul(torch.softmax(s, dim=-1), v64), lse


def _rel_max(out, ref):
    return ((out.double() - ref).abs().max() / ref.abs().max()).item()


def _configs():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "attention_configs", os.path.join(REPO, "bench", "kernels", "attention.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run_forward(D, S, causal, dtype, config=None, num_ctas=1, programs=None,
                 idle_programs=0, meta_extra=None):
    m = _kernels()
    dt = getattr(torch, dtype)
    Z, H = 2, 3
    q, k, v = _inputs(Z, H, S, D, dt, (D, S, causal, dtype))
    n = Z * H * S * D
    guard = 4096
    store = torch.full((n + 2 * guard,), float("nan"), dtype=dt, device="cuda")
    o = store[guard:guard + n].view(Z, H, S, D)
    lse_store = torch.full((Z * H * S + 2 * guard,), float("nan"), device="cuda")
    lse = lse_store[guard:guard + Z * H * S].view(Z, H, S)
    sm_scale = 1.0 / math.sqrt(D)
    if config is not None:
        config = m.AttnConfig(*config)
    kernel, grid, args, meta = m.attention_call(q, k, v, o, lse, causal, sm_scale, config,
                                                programs=programs)
    if num_ctas > 1:
        meta["num_ctas"] = num_ctas
    meta.update(meta_extra or {})
    if idle_programs:  # persistent: programs past the tiles run no tile
        grid = (grid[0] + idle_programs, *grid[1:])
    compiled = kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    if num_ctas > 1:
        assert compiled.metadata["num_ctas"] == num_ctas
    assert not torch.isnan(o).any(), "output rows left unwritten (NaN)"
    assert torch.isnan(store[:guard]).all() and torch.isnan(store[guard + n:]).all(), \
        "the kernel wrote outside O"
    assert torch.isnan(lse_store[:guard]).all() and \
        torch.isnan(lse_store[guard + Z * H * S:]).all(), "the kernel wrote outside LSE"
    ref, ref_lse = _reference(q, k, v, causal, sm_scale)
    tol = 1e-2 if dtype == "float16" else 2e-2
    assert _rel_max(o, ref) < tol
    # LSE is kept in base 2 (exp2 of log2-scaled scores).
    assert (lse.double() * math.log(2) - ref_lse).abs().max().item() < 1e-3 * ref_lse.abs().max().item() + 1e-3


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("S", [1024, 1000, 1531])
@pytest.mark.parametrize("D", [64, 128, 256])
def test_forward_against_float64(D, S, causal, dtype):
    """The autotuned kernel (every config that fits D is run and checked by
    the autotuner's timing, the best one by the test)."""
    _run_forward(D, S, causal, dtype)


@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("S", [1024, 1000])
def test_forward_on_clusters(S, causal, overlap):
    """num_ctas=2 with 256-row query blocks: each CTA of a program's pair
    takes 128 of its rows (softmax, both products, the stores), K and V
    the same in both; odd lengths mask the last rows."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.ClusterWarning)
        _run_forward(128, S, causal, "float16", (256, 64, 8, 2, overlap), num_ctas=2)


@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("config", list(dict.fromkeys(tuple(c)[:4] for c in _configs().CONFIGS)),
                         ids=lambda c: "{}x{}w{}s{}".format(*c))
def test_forward_each_config(config, causal, overlap):
    """Every config, with the products rotated (QK^T of block n, then PV of
    block n-1, the softmax overlapping PV) and in order."""
    for D in (64, 128, 256):
        if _configs().config_fits(_configs().AttnConfig(*config), D):
            _run_forward(D, 1531, causal, "float16", (*config, overlap))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("S", [1024, 1000, 1531])
@pytest.mark.parametrize("D", [64, 128])
def test_forward_warp_specialized(D, S, warps, overlap, causal):
    """warp_specialize=True on the loop over K/V blocks: a TMA producer
    warpgroup fills the K/V slots; consumer warpgroups (two of 64 rows each
    with 8 warps, taking turns at the products) hold Q, the softmax and O.
    The loops must be specialized (no warning): the causal kernel's two
    loops share one channel and producer."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, S, causal, "float16", (128, 64, warps, 2, overlap, True))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("S", [1000, 1531])
def test_forward_warp_specialized_128x128_blocks(S, overlap, causal):
    """128x128 K/V blocks at D128, warp-specialized: the K/V slots alone
    take 128 KB, so the consumers' epilogue (O's exchange and the masked
    last block) reuses the slots' bytes once the last loop is done with
    them. Odd lengths: the masked block and the partial Q block's stores
    run in the reused bytes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(128, S, causal, "float16", (128, 128, 8, 2, overlap, True))


@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("S", [1000, 1531])
def test_forward_warp_specialized_d256(S, causal, overlap):
    """D256, 64-column K/V blocks, warp-specialized, both orders: the masked
    last block's K and V buffers (without the mask) and the epilogue take
    the channel slots' bytes once the loop is done with them, which is what
    lets the kernel fit (199 KB)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(256, S, causal, "float16", (128, 64, 8, 2, overlap, True))


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("S", [1000, 1531])
@pytest.mark.parametrize("D", [64, 128])
def test_forward_warp_specialized_three_slots(D, S, causal):
    """128x128 K/V blocks in three channel slots, products rotated (the
    autotuned config that led at S 16384): the producer runs two blocks
    ahead, the epilogue reuses the slots' bytes."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, S, causal, "float16", (128, 128, 8, 3, True, True))


@pytest.mark.parametrize("programs", [None, 1, 5, 48, 200],
                         ids=lambda p: "sms" if p is None else f"{p}programs")
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("S", [1024, 384])
@pytest.mark.parametrize("D", [64, 128])
def test_forward_persistent_warp_specialized(D, S, dtype, causal, programs):
    """The persistent kernel, warp-specialized on its tile loop (128x128
    blocks, rotated): each program walks tiles of several heads (2x3 heads
    of S/128 query blocks: 48 tiles at S 1024, 18 at S 384), the producer's
    count and the warpgroups' turns going on from tile to tile. One program
    takes every tile; 5 an uneven share; 48 one tile each at S 1024; 200 is
    capped at the tiles (attention_call runs min(tiles, programs)). Causal:
    longest tiles first, the K/V blocks of a tile in one loop with the
    diagonal's mask chosen per block. Must be specialized (no warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, S, causal, dtype, (128, 128, 8, 2, True, True, True), programs=programs)


@pytest.mark.parametrize("programs", [None, 1, 5], ids=lambda p: "sms" if p is None else f"{p}programs")
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("S", [1024, 512])
@pytest.mark.parametrize("D", [64, 128])
def test_forward_persistent_on_clusters(D, S, dtype, causal, programs):
    """The persistent warp-specialized kernel on clusters of two: 256-row
    program tiles, each CTA 128 rows (the persistent 128x128 kernel's), K
    multicast by the TMA into both CTAs' slots, a program (cluster)
    per two SMs walking tiles of several heads; 1 and 5 programs: each
    cluster walks many tiles, the multicast ring going on from tile to
    tile. Must be specialized and clustered (no warning)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        warnings.simplefilter("error", warpforge.ClusterWarning)
        _run_forward(D, S, causal, dtype, (256, 128, 8, 2, True, True, True, 2), num_ctas=2,
                     programs=programs)


@pytest.mark.parametrize("overlap", [True, False], ids=["overlapped", "in_order"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("S", [1024, 1000])
def test_forward_four_consumer_warpgroups(S, causal, overlap):
    """256x64 blocks at D 64 with 16 warps: four consumer warpgroups taking
    turns and the producer, 640 threads. They start with 96 registers each
    (61440 in all, not the SM's 65536), so the consumers get 112 and the
    producer 32. The 64K split (120 and 32) left setmaxnreg.inc waiting
    forever: every launch of this config hung on the H100 (2026-11-27)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(64, S, causal, "float16", (256, 64, 16, 2, overlap, True))


@pytest.mark.parametrize("programs", [None, 1, 5], ids=lambda p: "sms" if p is None else f"{p}programs")
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("S", [1024, 512])
def test_forward_persistent_four_consumer_warpgroups(S, dtype, causal, programs):
    """The four-warpgroup kernel (256x64 blocks at D 64, three slots)
    persistent: each program walks 256-row tiles of several heads, its Q
    block prefetched by the tile before and its last V issued before the
    K/V loop (tilegpu-issue-tma-loads-early). Must be specialized."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(64, S, causal, dtype, (256, 64, 16, 3, True, True, True), programs=programs)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("D, block_n, S", [(256, 80, 1040), (256, 80, 1000), (256, 80, 1531),
                                           (128, 176, 1056), (128, 176, 1000)],
                         ids=lambda v: str(v))
def test_forward_npot_kv_columns(monkeypatch, D, block_n, S, dtype):
    """K/V blocks of FlashAttention-3's 80 (D 256) and 176 (D 128) columns,
    experimental (WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1): warp-specialized
    and rotated, S a multiple of the block (1040 = 13 x 80, 1056 = 6 x 176)
    or not (the last block crosses S and is masked, its columns through an
    arange of 80 or 176). Must be specialized."""
    from warpforge.language import core
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, S, False, dtype, (128, block_n, 8, 2, True, True))


THREE_GROUPS = {"num_consumer_groups": 3, "num_buffers_warp_spec": 2}


@pytest.mark.parametrize("persistent", [False, True], ids=["tiles", "persistent"])
@pytest.mark.parametrize("D, block_n", [(64, 128), (128, 64)], ids=["d64_192x128", "d128_192x64"])
@pytest.mark.parametrize("S", [1152, 1000])
def test_forward_three_consumer_warpgroups(monkeypatch, D, block_n, S, persistent):
    """Three consumer warpgroups of 4 warps (num_consumer_groups=3, 12
    warps) on 192-row tiles, FlashAttention-3's shape at D 64: experimental
    (WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1, 192 is no power of 2). Rotated
    products, 160 registers a consumer thread; S 1000 crosses both the
    last Q tile (masked store) and the last K/V block; persistent tiles
    need S a multiple of 192 (1152 = 6 x 192)."""
    if persistent and S % 192:
        pytest.skip("the persistent kernel takes whole 192-row tiles only")
    from warpforge.language import core
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, S, False, "float16", (192, block_n, 4, 2, True, True, persistent),
                     meta_extra=THREE_GROUPS)


def test_forward_autotuned_with_three_groups(monkeypatch):
    """The autotuned forward at D 64 under the experimental switch: its set
    then holds the three-group configs (persistent too at S 4608 = 24 x
    192), and whichever wins is right against float64."""
    from warpforge.language import core
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    m = _kernels()
    assert any(c.num_consumer_groups == 3 for c in m.attn_fwd_autotuned.configs)
    _run_forward(64, 4608, False, "float16")


def test_three_consumer_warpgroups_need_the_experimental_switch(monkeypatch):
    """Without the switch a 192-row block is an error naming the rule
    (the blocks must be powers of 2), before any kernel is compiled."""
    from warpforge.language import core
    monkeypatch.delenv(core.NPOT_BLOCKS_ENV, raising=False)
    with pytest.raises(Exception, match="power of 2"):
        _run_forward(64, 1152, False, "float16", (192, 128, 4, 2, True, True),
                     meta_extra=THREE_GROUPS)


def _poisoned_heads(S, D, causal, poison, rows, key):
    """Three heads (Z 1) whose head 1 has `poison` (inf or nan) in its first
    and last `rows` rows of V, O and LSE NaN-filled, the scale."""
    q, k, v = _inputs(1, 3, S, D, torch.float16, key)
    v[0, 1, :rows, :] = float(poison)
    v[0, 1, -rows:, :] = float(poison)
    o = torch.full_like(q, float("nan"))
    lse = torch.full((1, 3, S), float("nan"), device="cuda")
    return q, k, v, o, lse, 1.0 / math.sqrt(D)


def _check_heads_apart(q, k, v, o, causal, sm_scale, poison):
    """Heads 0 and 2 finite and against float64: head 1's poison stayed in
    head 1."""
    for h in (0, 2):
        ref, _ = _reference(q[:, h:h + 1], k[:, h:h + 1], v[:, h:h + 1], causal, sm_scale)
        assert torch.isfinite(o[:, h]).all(), f"head {h}'s output took head 1's {poison}"
        assert _rel_max(o[:, h:h + 1], ref) < 1e-2, f"head {h}"


@pytest.mark.parametrize("poison", ["inf", "nan"])
@pytest.mark.parametrize("S", [1024, 1000])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("config", [(128, 128, 8, 2, True, True, True), (128, 128, 8, 2, True, True),
                                    (128, 128, 8, 2, False, True), (128, 64, 8, 2, True),
                                    (64, 64, 4, 3, False), (256, 64, 16, 2, True, True)],
                         ids=["persistent", "ws", "ws_in_order", "128x64", "64x64_in_order",
                              "256x64w16"])
def test_forward_heads_stay_apart(config, causal, S, poison):
    """A non-finite value in one head's V reaches no other head's output.
    The kernels read V through a descriptor over all heads' rows and
    multiply rows that P's zeros cancel: the rotated loop's "block -1"
    (below the head: the previous head's last rows) and, at an odd length,
    the last block's rows past S (the next head's first rows); 0 * inf is
    NaN, and it made whole neighbouring heads NaN. Head 1's first and last
    64 rows of V are poisoned here; heads 0 and 2 must match float64."""
    m = _kernels()
    if len(config) > 6 and S % config[0]:
        pytest.skip("the persistent kernel takes S a multiple of its rows")
    D = 64 if config[0] == 256 else 128  # 16 warps: D 64 only
    q, k, v, o, lse, sm_scale = _poisoned_heads(S, D, causal, poison, 64,
                                                ("apart", S, D, causal))
    kernel, grid, args, meta = m.attention_call(q, k, v, o, lse, causal, sm_scale,
                                                m.AttnConfig(*config))
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    _check_heads_apart(q, k, v, o, causal, sm_scale, poison)


@pytest.mark.parametrize("poison", ["inf", "nan"])
@pytest.mark.parametrize("S", [100, 40])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("D, config", [(128, None), (128, (128, 64, 8, 2, True)),
                                       (128, (64, 64, 4, 3, False)), (128, (64, 32, 4, 3, True)),
                                       (64, (128, 128, 8, 3, False))],
                         ids=["autotuned", "128x64", "64x64_in_order", "64x32", "128x128_d64"])
def test_forward_short_heads_stay_apart(D, config, causal, S, poison):
    """Heads shorter than a K/V block (S below 128): a block read through a
    descriptor over all heads' rows took the next head's first rows, where
    P is zero but 0 * inf is NaN. attention_call reads K and V per head then
    ((Z*H, S, D) descriptors, rows past S zero) and the autotuner leaves the
    warp-specialized configs out (they take 2-D blocks). Head 1's V is
    poisoned; heads 0 and 2 must match float64, every config and the
    autotuned kernel."""
    m = _kernels()
    q, k, v, o, lse, sm_scale = _poisoned_heads(S, D, causal, poison, 32,
                                                ("short", S, D, causal))
    kernel, grid, args, meta = m.attention_call(
        q, k, v, o, lse, causal, sm_scale, m.AttnConfig(*config) if config else None)
    assert meta["PER_HEAD"] and len(args[1].shape) == 3
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    if config is None:
        assert not kernel.best_config.kwargs["WS"]
    _check_heads_apart(q, k, v, o, causal, sm_scale, poison)


@pytest.mark.parametrize("S", [100, 40])
def test_short_heads_with_a_warp_specialized_config_fall_back(S):
    """A warp-specialized config named for heads shorter than 128 rows: K
    and V are read per head, which the specialized loop does not take, so
    the kernel is compiled unspecialized, with a WarpSpecializationWarning
    at the loop's line, and stays right (head 1's V poisoned). S 100 and
    40 are one specialization: the kernel comes from this process's memory
    (cleared here) or from the disk cache, which says it again."""
    m = _kernels()
    m.attn_fwd_kernel.cache.clear()
    q, k, v, o, lse, sm_scale = _poisoned_heads(S, 128, False, "inf", S, ("short-ws", S))
    kernel, grid, args, meta = m.attention_call(q, k, v, o, lse, False, sm_scale,
                                                m.AttnConfig(128, 128, 8, 2, True, True))
    assert meta["PER_HEAD"]
    with pytest.warns(warpforge.WarpSpecializationWarning) as record:
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    assert any("attention.py" in r.filename for r in record), [r.filename for r in record]
    _check_heads_apart(q, k, v, o, False, sm_scale, "inf")


@pytest.mark.parametrize("D, config", [(128, (128, 128, 8, 2, True, True, True)),
                                       (64, (256, 64, 16, 3, True, True, True))],
                         ids=["128x128", "256x64w16"])
def test_persistent_programs_without_tiles(D, config):
    """More programs than tiles (12 and 6 tiles here, 7 more programs): a
    program whose tile loop runs no iteration must neither copy the Q block
    it would have prefetched for its first tile (the copy is predicated
    off) nor wait for it, and still invalidate its barrier; the others
    compute right (tilegpu-issue-tma-loads-early)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        _run_forward(D, 256, False, "float16", config, idle_programs=7)


def test_persistent_config_rejects_ragged_lengths():
    m = _kernels()
    config = m.AttnConfig(128, 128, 8, 2, True, True, True)
    for causal in (False, True):
        q = torch.empty((1, 1, 1000, 128), device="cuda", dtype=torch.float16)
        with pytest.raises(ValueError, match="persistent kernel needs S a multiple of its 128 "
                                             r"rows \(S 1000\)"):
            m.attention_call(q, q, q, torch.empty_like(q), torch.empty(1, 1, 1000, device="cuda"),
                             causal, 1.0, config)
    assert m.config_fits(config, 128, causal=True, seqlen=1024)
    assert not m.config_fits(config, 128, seqlen=1000)
    assert m.config_fits(config, 128, seqlen=1024) and m.config_fits(config, 64, seqlen=4096)
    assert not m.config_fits(config, 256, seqlen=1024)


HANG_SCRIPT = """
import math, sys, torch
sys.path.insert(0, {test_dir!r})
import test_gpu_attention as t
m = t._kernels()
for D, S, warps, overlap, causal, bn, persistent, programs, *ctas in (
        (128, 4096, 8, False, False, 64, False, None), (128, 1531, 8, True, False, 64, False, None),
        (64, 1000, 4, False, False, 64, False, None), (128, 1000, 8, False, True, 64, False, None),
        (64, 1024, 8, True, True, 64, False, None), (128, 4096, 8, True, False, 128, True, None),
        (64, 1024, 8, True, False, 128, True, 7), (128, 256, 8, True, False, 128, True, 1),
        (128, 2048, 8, True, True, 128, True, None), (64, 1024, 8, True, True, 128, True, 5),
        (128, 4096, 8, True, False, 128, True, None, 2), (128, 1024, 8, True, True, 128, True, 3, 2)):
    q, k, v = t._inputs(2, 16, S, D, torch.float16, ("hang", D, S))
    o = torch.empty_like(q)
    lse = torch.empty((2, 16, S), device="cuda")
    kernel, grid, args, meta = m.attention_call(
        q, k, v, o, lse, causal, 1 / math.sqrt(D),
        m.AttnConfig(128 * (ctas or [1])[0], bn, warps, 2, overlap, True, persistent,
                     (ctas or [1])[0]), programs=programs)
    for _ in range({repeats}):
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
print("no hang")
"""


def test_warp_specialized_forward_does_not_hang():
    """Repeated launches of the warp-specialized forward (the producer's
    slots, the warpgroups' turns; causal: two loops in a row sharing the
    channel and handing the turn on; persistent: the turns and the count
    going on from tile to tile, on every SM, 7 and 1 programs, causal on
    every SM and on 5; on clusters of two, K and V multicast), in a child
    process under a timeout:
    a deadlock fails the test instead of hanging the suite."""
    from launch_helpers import run_without_hang
    run_without_hang(HANG_SCRIPT.format(test_dir=os.path.dirname(__file__), repeats=50), 240,
                     "the warp-specialized attention forward")


HANG_SCRIPT_FOUR_GROUPS = """
import math, sys, torch
sys.path.insert(0, {test_dir!r})
import test_gpu_attention as t
m = t._kernels()
for S, overlap, causal, stages, persistent, programs in (
        (4096, True, False, 2, False, None), (1000, False, False, 2, False, None),
        (2048, True, True, 2, False, None), (4096, True, False, 3, True, None),
        (1024, True, False, 3, True, 3), (2048, True, True, 3, True, 5)):
    q, k, v = t._inputs(2, 16, S, 64, torch.float16, ("hang4", S))
    o = torch.empty_like(q)
    lse = torch.empty((2, 16, S), device="cuda")
    kernel, grid, args, meta = m.attention_call(
        q, k, v, o, lse, causal, 0.125,
        m.AttnConfig(256, 64, 16, stages, overlap, True, persistent), programs=programs)
    for _ in range({repeats}):
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
print("no hang")
"""


def test_four_consumer_warpgroups_do_not_hang():
    """Four consumer warpgroups (16 warps) and the producer, launched
    repeatedly in a child process under a timeout: their register requests
    must fit what 640 threads start with (see
    test_forward_four_consumer_warpgroups), and their turns go round four
    named barriers; persistent too (the Q block prefetched from tile to
    tile, on every SM, 3 and 5 programs, causal on 5)."""
    from launch_helpers import run_without_hang
    run_without_hang(HANG_SCRIPT_FOUR_GROUPS.format(test_dir=os.path.dirname(__file__),
                                                    repeats=20), 180,
                     "the attention forward with four consumer warpgroups")


HANG_SCRIPT_THREE_GROUPS = """
import math, os, sys, torch
os.environ["WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS"] = "1"
sys.path.insert(0, {test_dir!r})
import test_gpu_attention as t
m = t._kernels()
for S, D, block_n, persistent, programs in (
        (4608, 64, 128, False, None), (1000, 64, 128, False, None),
        (4608, 64, 128, True, None), (1152, 64, 128, True, 5), (4608, 128, 64, True, None)):
    q, k, v = t._inputs(2, 16, S, D, torch.float16, ("hang3", S))
    o = torch.empty_like(q)
    lse = torch.empty((2, 16, S), device="cuda")
    kernel, grid, args, meta = m.attention_call(
        q, k, v, o, lse, False, 0.125,
        m.AttnConfig(192, block_n, 4, 2, True, True, persistent), programs=programs)
    meta.update(t.THREE_GROUPS)
    for _ in range({repeats}):
        kernel[grid](*args, **meta)
    torch.cuda.synchronize()
print("no hang")
"""


def test_three_consumer_warpgroups_do_not_hang():
    """Three consumer warpgroups and the producer (512 threads, registers
    160 and 32), launched repeatedly in a child process under a timeout:
    their turns go round three named barriers, unpersisted and persistent
    (every SM, and 5 programs walking the tiles)."""
    from launch_helpers import run_without_hang
    run_without_hang(HANG_SCRIPT_THREE_GROUPS.format(test_dir=os.path.dirname(__file__),
                                                     repeats=20), 180,
                     "the attention forward with three consumer warpgroups")


def test_forward_rejects_a_causal_split_the_blocks_cannot_take():
    m = _kernels()
    q = torch.randn((1, 1, 256, 64), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="multiple of BLOCK_N"):
        m.attention_call(q, q, q, torch.empty_like(q), torch.empty(1, 1, 256, device="cuda"),
                         True, 1.0, m.AttnConfig(64, 128, 4, 2))


def test_forward_rejects_unsupported_head_dim():
    m = _kernels()
    q = torch.randn((1, 1, 128, 96), device="cuda", dtype=torch.float16)
    with pytest.raises(ValueError, match="head dimension 96"):
        m.attention_call(q, q, q, torch.empty_like(q), torch.empty(1, 1, 128, device="cuda"),
                         False, 1.0)


# -- Triton's tutorial 06, forward and backward ------------------------------------


@pytest.fixture(scope="module")
def tutorial():
    import tutorial06_kernels
    return tutorial06_kernels


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("N_CTX", [128, 1024])
def test_tutorial06_forward_and_backward_against_float64(tutorial, N_CTX, D, causal,
                                                         warp_specialize):
    Z, H = 1, 2
    q, k, v = (t.requires_grad_() for t in _inputs(Z, H, N_CTX, D, torch.float16,
                                                  ("tutorial", N_CTX, D, causal)))
    sm_scale = 0.5
    dout = torch.randn((Z, H, N_CTX, D), generator=_generator("dout", N_CTX, D, causal),
                       device="cuda").to(torch.float16)
    out = tutorial.attention(q, k, v, causal, sm_scale, warp_specialize)
    out.backward(dout)
    grads = [t.grad.clone() for t in (q, k, v)]

    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    ref, _ = _reference(q64, k64, v64, causal, sm_scale)
    ref.backward(dout.double())
    assert not torch.isnan(out).any()
    assert _rel_max(out.detach(), ref.detach()) < 1e-2
    for name, got, want in zip(("dq", "dk", "dv"), grads, (q64.grad, k64.grad, v64.grad)):
        assert not torch.isnan(got).any(), name
        assert _rel_max(got, want) < 2e-2, name


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
@pytest.mark.parametrize("warp_specialize", [False, True])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("N_CTX", [128, 1024])
def test_tutorial06_forward_d256_against_float64(tutorial, N_CTX, causal, warp_specialize):
    """The tutorial's forward at D256 (its backward stops at 128). With
    warp_specialize the loop must be specialized: the channel slots are
    reused by the epilogue, so the 64-row blocks fit."""
    q, k, v = _inputs(1, 2, N_CTX, 256, torch.float16, ("tutorial256", N_CTX, causal))
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        out = tutorial.attention(q, k, v, causal, 0.5, warp_specialize)
    assert not torch.isnan(out).any()
    ref, _ = _reference(q, k, v, causal, 0.5)
    assert _rel_max(out, ref) < 1e-2
