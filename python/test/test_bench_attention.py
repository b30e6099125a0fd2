"""bench/attention.py on the CPU: its options, FLOP count and table (the
GPU run itself is bench work, measured on the device)."""

import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench"))

import attention  # noqa: E402


def test_defaults_and_quick():
    args = attention.parse_args([])
    assert args.heads == [128, 64, 256] and args.seqlens[0] == 1024 and args.seqlens[-1] == 16384
    quick = attention.parse_args(["--quick"])
    assert quick.heads == [128] and quick.seqlens == [1024, 4096] and quick.rounds == 1


def test_configs_are_checked():
    assert attention.parse_args(["--configs", "128x64w8s2,64x64w4s3seq"]).configs == \
        ["128x64w8s2", "64x64w4s3seq"]
    with pytest.raises(SystemExit):
        attention.parse_args(["--configs", "128x64"])


def test_config_text_names_order_and_warp_specialization():
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    assert attention.parse_args(["--configs", "128x64w8s2seqws,128x64w8s2ws"]).configs == \
        ["128x64w8s2seqws", "128x64w8s2ws"]
    assert attention.config_of(m, "128x64w8s2seqws") == m.AttnConfig(128, 64, 8, 2, False, True)
    assert attention.config_of(m, "64x64w4s3") == m.AttnConfig(64, 64, 4, 3, True, False)
    assert m.describe(m.AttnConfig(128, 64, 8, 2, False, True)) == "128x64 w8 s2 in order ws"
    assert all(c.ws for c in m.WS_CONFIGS)
    assert {c.overlap for c in m.WS_CONFIGS} == {False, True}
    assert set(m.WS_CONFIGS) <= set(m.CONFIGS)


def test_three_group_configs_only_under_the_switch(monkeypatch):
    """THREE_GROUP_CONFIGS (experimental: 192-row tiles on three consumer
    warpgroups) are in the autotuned set, with num_consumer_groups=3 and
    their stages as slots, and fit only under
    WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1, at D 64, not causal, and
    persistent only where S is a multiple of 192."""
    import common
    from warpforge.language import core
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    tiles, persistent = m.THREE_GROUP_CONFIGS
    assert attention.config_of(m, "192x128w4s2wsg3") == tiles
    assert attention.config_of(m, "192x128w4s2wspersistg3") == persistent
    assert m.describe(persistent) == "192x128 w4 s2 ws persistent g3"
    assert set(m.THREE_GROUP_CONFIGS) <= set(m.CONFIGS)
    tuned = [c for c in m.attn_fwd_autotuned.configs if c.kwargs["BLOCK_M"] == 192]
    assert [(c.num_consumer_groups, c.num_buffers_warp_spec, c.num_warps) for c in tuned] == \
        [(3, 2, 4)] * 2
    assert m.describe(tuned[1]) == "192x128 w4 s2 ws persistent g3"
    monkeypatch.delenv(core.NPOT_BLOCKS_ENV, raising=False)
    assert not m.config_fits(tiles, 64, False, 4096)
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    assert m.config_fits(tiles, 64, False, 4096) and m.config_fits(tiles, 64, False, 1000)
    assert not m.config_fits(tiles, 64, True, 4096) and not m.config_fits(tiles, 128, False, 4096)
    assert m.config_fits(persistent, 64, False, 4608)
    assert not m.config_fits(persistent, 64, False, 4096)


def test_npot_column_configs_only_under_the_switch(monkeypatch):
    """NPOT_COLUMN_CONFIGS (experimental: FlashAttention-3's 80 K/V columns
    at D 256) are in the autotuned set and fit only under
    WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1, at D 256 and not causal; a
    176-column config named on the command line is not autotuned and does
    not fit the set's rule either."""
    import common
    from warpforge.language import core
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    (cols80,) = m.NPOT_COLUMN_CONFIGS
    assert attention.config_of(m, "128x80w8s2ws") == cols80
    assert set(m.NPOT_COLUMN_CONFIGS) <= set(m.CONFIGS)
    assert [c.kwargs["BLOCK_N"] for c in m.attn_fwd_autotuned.configs].count(80) == 1
    monkeypatch.delenv(core.NPOT_BLOCKS_ENV, raising=False)
    assert not m.config_fits(cols80, 256, False, 4096)
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    assert m.config_fits(cols80, 256, False, 4096) and m.config_fits(cols80, 256, False, 1000)
    assert not m.config_fits(cols80, 256, True, 4096)
    assert not m.config_fits(cols80, 128, False, 4096)
    assert not m.config_fits(attention.config_of(m, "128x176w8s2ws"), 128, False, 4224)


def test_autotuned_configs_fit_each_head_dim():
    """128-column K/V blocks: D 64 always, D 128 only warp-specialized (the
    epilogue reuses the K/V slots), never D 256."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    ws128 = m.AttnConfig(128, 128, 8, 2, False, True)
    assert ws128 in m.CONFIGS
    assert [m.config_fits(ws128, d) for d in (64, 128, 256)] == [True, True, False]
    assert [m.config_fits(m.AttnConfig(128, 128, 8, 2, False), d) for d in (64, 128)] == \
        [True, False]
    four = m.AttnConfig(256, 64, 16, 2, True, True)
    assert four in m.CONFIGS
    assert [m.config_fits(four, d) for d in (64, 128, 256)] == [True, False, False]


def test_persistent_configs():
    """'persist' in a config's text; the persistent config is in the
    autotuned set for D 64 and 128, causal or not, at lengths of whole
    128-row tiles only."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    assert attention.parse_args(["--configs", "128x128w8s2wspersist"]).configs == \
        ["128x128w8s2wspersist"]
    config = attention.config_of(m, "128x128w8s2wspersist")
    assert config == m.AttnConfig(128, 128, 8, 2, True, True, True)
    assert m.describe(config) == "128x128 w8 s2 ws persistent"
    assert config in m.CONFIGS
    assert [m.config_fits(config, d, False, 4096) for d in (64, 128, 256)] == [True, True, False]
    assert m.config_fits(config, 128, True, 4096) and not m.config_fits(config, 128, False, 1000)
    assert not m.config_fits(m.AttnConfig(128, 128, 8, 2, True, False, True), 128, False, 4096)


def test_autotuner_tries_the_persistent_kernel_at_whole_tile_lengths():
    """The persistent kernels are in the autotuner's set for whole-tile
    lengths at D 64 and 128, causal or not (the causal one is faster at
    S 1024 only: the autotuner decides), and its timing runs longer than
    the default."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    configs = m.attn_fwd_autotuned.configs

    def persistent(**kw):
        return [c for c in m._prune(configs, {"S": kw.pop("S")}, **kw)
                if c.kwargs["PERSISTENT"]]
    assert len(persistent(S=4096, HEAD_DIM=128, CAUSAL=False)) == 1
    assert [(c.kwargs["BLOCK_M"], c.num_warps)
            for c in persistent(S=4096, HEAD_DIM=64, CAUSAL=False)] == [(128, 8), (256, 16)]
    assert len(persistent(S=3968, HEAD_DIM=64, CAUSAL=False)) == 1  # 31 tiles of 128 rows
    assert len(persistent(S=4096, HEAD_DIM=128, CAUSAL=True)) == 1
    assert persistent(S=1000, HEAD_DIM=128, CAUSAL=False) == []
    assert persistent(S=4096, HEAD_DIM=256, CAUSAL=False) == []
    assert m.attn_fwd_autotuned.do_bench is m._do_bench


def test_autotuner_leaves_warp_specialized_configs_out_for_per_head_blocks_only():
    """K and V read per head (PER_HEAD, attention_call's default below 128
    rows) leave the warp-specialized configs out (they take 2-D blocks);
    a short head read through 2-D blocks (per_head=False: one head, nothing
    past it) keeps them, and the autotuner keys on PER_HEAD."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    configs = m.attn_fwd_autotuned.configs

    def ws(S, **kw):
        return [c for c in m._prune(configs, {"S": S}, HEAD_DIM=128, CAUSAL=False, **kw)
                if c.kwargs["WS"]]
    assert ws(100) == [] and ws(100, PER_HEAD=True) == []
    assert ws(100, PER_HEAD=False) and ws(100, PER_HEAD=False) == ws(1000, PER_HEAD=False)
    assert "PER_HEAD" in m.attn_fwd_autotuned.keys


def _compile_ws(m, head_dim, block_m=128, block_n=128, num_warps=8, persistent=True,
                num_ctas=1):
    """A warp-specialized rotated kernel of module `m` (a loaded copy of
    bench/kernels/attention.py; by default the persistent 128x128 one),
    compiled on the CPU; a WarpSpecializationWarning (the fallback) fails
    the test."""
    import warnings

    import numpy as np
    import warpforge
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    S, rows = 1024, 2 * 1024
    x = np.ones((rows, head_dim), np.float16)
    lse = np.ones(rows, np.float32)
    qo = TensorDescriptor.from_tensor(x, [block_m, head_dim])
    kv = TensorDescriptor.from_tensor(x, [block_n, head_dim])
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        warnings.simplefilter("error", warpforge.ClusterWarning)
        return m.attn_fwd_kernel.warmup(qo, kv, kv, qo, x, lse, 0.1, 1, 2, S,
                                        HEAD_DIM=head_dim, BLOCK_M=block_m, BLOCK_N=block_n,
                                        CAUSAL=False, OVERLAP=True, WS=True,
                                        PERSISTENT=persistent, PEEL=num_ctas == 1,
                                        num_warps=num_warps, num_stages=2,
                                        num_ctas=num_ctas, grid=(1,))


@pytest.mark.parametrize("head_dim", [64, 128])
def test_persistent_kernel_is_warp_specialized(head_dim):
    """The persistent kernel compiles warp-specialized on its tile loop (no
    WarpSpecializationWarning): the producer feeds the K/V loop, not the
    tile loop's own last P V, and at D 128 the 128x128 blocks fit (the last
    V is not pipelined across tiles)."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    k = _compile_ws(m, head_dim)
    ir = k.asm["tilegpu"]
    assert "tilegpu.warp_specialize" in ir and '"consumer-tiles"' in ir
    assert ir.count("tilegpu.warp_group_turn_pass") >= 2 and k.asm["cubin"]


@pytest.mark.parametrize("head_dim", [64, 128])
def test_persistent_kernel_on_clusters_multicasts_k_and_v(head_dim):
    """'c2' in a config's text: clusters of two CTAs, each 128 of the
    program's 256 rows. K's blocks are the same in both CTAs, so the
    producers multicast them: each copies half of a block into both CTAs'
    slots, and the launcher encodes K's tensor map for 64-row halves."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    config = attention.config_of(m, "256x128w8s2wspersistc2")
    assert config == m.AttnConfig(256, 128, 8, 2, True, True, True, 2)
    assert m.describe(config) == "256x128 w8 s2 ws persistent c2"
    assert attention.parse_args(["--configs", "256x128w8s2wspersistc2"]).configs == \
        ["256x128w8s2wspersistc2"]
    k = _compile_ws(m, head_dim, block_m=256, num_ctas=2)
    assert k.metadata["num_ctas"] == 2
    ptx = k.asm["ptx"]
    assert ".reqnctapercluster 2, 1, 1" in ptx
    assert "setmaxnreg" in ptx
    # The producer's K copies (two 64-column boxes at D 128).
    copies = [line for line in ptx.splitlines() if "cp.async.bulk.tensor" in line]
    assert sum("multicast::cluster" in line for line in copies) >= 2
    # The launcher's tensor maps: a CTA's 128 rows of Q and O, and K's
    # 64-row halves. V is not multicast yet: the tile's last V (after the
    # K/V loop) is the consumers' own load of the whole block, which a
    # tensor map for halves could not serve.
    assert k.metadata["descriptor_blocks"] == {"desc_q": [128, head_dim],
                                               "desc_o": [128, head_dim],
                                               "desc_k": [64, head_dim]}


@pytest.mark.parametrize("head_dim", [64, 128])
def test_persistent_kernels_are_warp_specialized_causal_too(head_dim):
    """The causal tile's K/V blocks run in one loop in the persistent kernel
    (the diagonal's mask chosen per block), so its tile loop is specialized
    like the non-causal one: no WarpSpecializationWarning. At D128 its first
    block runs before the loop (PEEL), its K through the last V's slot."""
    import warnings

    import numpy as np
    import common
    import warpforge
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    S, rows = 1024, 2 * 1024
    x = np.ones((rows, head_dim), np.float16)
    lse = np.ones(rows, np.float32)
    qo = TensorDescriptor.from_tensor(x, [128, head_dim])
    kv = TensorDescriptor.from_tensor(x, [128, head_dim])
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        k = m.attn_fwd_kernel.warmup(qo, kv, kv, qo, x, lse, 0.1, 1, 2, S, HEAD_DIM=head_dim,
                                     BLOCK_M=128, BLOCK_N=128, CAUSAL=True, OVERLAP=True,
                                     WS=True, PERSISTENT=True, num_warps=8, num_stages=2,
                                     grid=(1,))
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"] and k.asm["cubin"]


def test_flop_halves_for_causal():
    assert attention.flop(4, 32, 4096, 128, False) == 4 * 4 * 32 * 4096 ** 2 * 128
    assert attention.flop(4, 32, 4096, 128, True) == 2 * 4 * 32 * 4096 ** 2 * 128


def test_table_reports_tflops_errors_and_ratios():
    report = {"cases": [{
        "dtype": "fp16", "D": 128, "S": 4096, "causal": False,
        "providers": {"warpforge": {"tflops": 500.0, "ms": 1.0, "config": "128x128 w8 s2 ws"},
                      "sdpa:cudnn": {"tflops": 600.0},
                      "triton": {"error": "Mismatch"}},
        "ratios": {"warpforge/sdpa:cudnn": {"ratio": 0.8333, "per_launch": None}}}]}
    headers, rows = attention.table(report)
    assert headers[:4] == ["case", "warpforge", "sdpa:cudnn", "triton"]
    assert headers[-2:] == ["warpforge's config", "sdpa's backend"]
    assert rows == [["fp16 D128 S4096", "500", "600", "err", "-", "-", "0.83", "-",
                     "128x128 w8 s2 ws", "-"]]


def test_table_names_the_backend_sdpa_chose():
    report = {"cases": [{
        "dtype": "fp16", "D": 128, "S": 4096, "causal": False,
        "providers": {"warpforge": {"tflops": 660.0, "ms": 1.0},
                      "sdpa": {"tflops": 600.0, "ms": 1.1, "backend": "cudnn"}},
        "ratios": {"warpforge/sdpa": {"ratio": 1.1, "per_launch": None}}}]}
    headers, rows = attention.table(report)
    assert headers.index("wf/sdpa") < headers.index("wf/sdpa:flash")
    assert rows[0][headers.index("wf/sdpa")] == "1.10"
    assert rows[0][-1] == "cudnn"
    assert "sdpa" in attention.PROVIDERS and ("warpforge", "sdpa") in attention.RATIO_PAIRS


def test_sdpa_choice_names_the_backend_or_says_unknown():
    """The dispatcher's choice comes from a private torch API: its index is
    named through SDPBackend, and its absence gives "unknown"."""
    import enum
    import types

    class SDPBackend(enum.IntEnum):
        FLASH_ATTENTION = 1
        CUDNN_ATTENTION = 3

    attn = types.ModuleType("torch.nn.attention")
    attn.SDPBackend = SDPBackend
    saved = {m: sys.modules.get(m) for m in ("torch", "torch.nn", "torch.nn.attention")}
    torch = types.ModuleType("torch")
    torch.nn = types.ModuleType("torch.nn")
    torch.nn.attention = attn
    sys.modules.update({"torch": torch, "torch.nn": torch.nn, "torch.nn.attention": attn})
    try:
        torch._fused_sdp_choice = lambda *a, **k: 3
        assert attention.sdpa_choice(torch, None, None, None, False, 1.0) == "cudnn"
        torch._fused_sdp_choice = lambda *a, **k: 1
        assert attention.sdpa_choice(torch, None, None, None, False, 1.0) == "flash"
        del torch._fused_sdp_choice
        assert attention.sdpa_choice(torch, None, None, None, False, 1.0) == "unknown"
    finally:
        for m, mod in saved.items():
            if mod is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = mod


def test_ceiling_tool_variants_apply_to_the_kernel():
    """bench/tools/attention_ceiling.py edits copies of the benchmark kernel;
    each edit must still match it, or the tool would time the wrong thing.
    The correct variant (FlashAttention-3's order) compiles warp-specialized
    and persistent, and ptxas injects no wait ahead of its PV."""
    sys.path.insert(0, os.path.join(REPO, "bench", "tools"))
    import attention_ceiling
    import common
    sources = attention_ceiling.variant_sources()
    assert list(sources) == ["full", "no rescale", "no row sum", "no exp2", "max only",
                             "products only", "one Q a head", "no last PV", "fa3 order",
                             "first block peeled",
                             "exp2 1/8 on FMA", "exp2 1/4 on FMA"]
    assert [name for name, (_, correct, _) in sources.items() if correct] == \
        ["full", "fa3 order", "first block peeled", "exp2 1/8 on FMA", "exp2 1/4 on FMA"]
    assert len({text for text, _, _ in sources.values()}) == len(sources)
    kernel = open(attention_ceiling.KERNEL).read()
    assert sources["full"][0] == kernel
    assert "tl.math.exp2(qk)" not in sources["products only"][0]
    with pytest.raises(ValueError, match="has changed"):
        attention_ceiling._replace(kernel, "no such line", "")
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attention_ceiling_fa3.py")
        with open(path, "w") as f:
            f.write(sources["fa3 order"][0])
        m = common.load_kernels(path, "warpforge")
    k = _compile_ws(m, 128)
    assert "C7517" not in k.metadata.get("ptxas_log", "") and k.asm["cubin"]
    # "one Q a head" keeps Q the producer's copy (its block a function of
    # the head alone), specialized and persistent like the kernel.
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attention_ceiling_one_q.py")
        with open(path, "w") as f:
            f.write(sources["one Q a head"][0])
        m = common.load_kernels(path, "warpforge")
    assert "tilegpu.warp_specialize" in _compile_ws(m, 128).asm["tilegpu"]


def test_ceiling_tool_exp2_on_fma_computes_in_accumulator_registers():
    """The 'exp2 1/8 on FMA' variant's inline PTX (8 elements an invocation,
    the first by a cubic) computes in the wgmma accumulator's registers:
    before tilegpu-remove-layout-conversions took pure inline asm there,
    its scores went through shared memory to a blocked layout and back, and
    the persistent 128x128 kernel needed 297968 bytes of shared memory."""
    sys.path.insert(0, os.path.join(REPO, "bench", "tools"))
    import tempfile

    import attention_ceiling
    import common
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "attention_ceiling_exp2.py")
        with open(path, "w") as f:
            f.write(attention_ceiling.variant_sources()["exp2 1/8 on FMA"][0])
        m = common.load_kernels(path, "warpforge")
    k = _compile_ws(m, 128)
    ir = k.asm["tilegpu"]
    asm = [line for line in ir.splitlines() if "tile.elementwise_inline_asm" in line]
    assert asm and all("#wgmma> -> tensor<128x128xf32, #wgmma>" in line for line in asm)
    ptx = k.asm["ptx"]
    # 7 of each 8 of the 64x128 scores a warpgroup thread holds by MUFU,
    # 1 by the cubic (its leading coefficient), in the loop's block and in
    # the first block (peeled off the loop), plus the loop's two alphas.
    assert ptx.count("ex2.approx.ftz.f32") == 2 * 56 + 2
    assert ptx.count("0f3D61FBA2") == 2 * 8
    assert k.metadata["spill_stores"] == 0


def test_four_consumer_warpgroups_fit_the_registers_they_start_with():
    """16 warps (four consumer warpgroups) and the producer warpgroup: 640
    threads start with 96 registers each, 61440 in all. setmaxnreg may only
    hand those round (consumers 112, producer 32); the SM's 64K split (120
    and 32) hung on the H100. The verifier rejects a split beyond the pool
    (lit warp-specialize-invalid.mlir)."""
    import common
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    k = _compile_ws(m, 64, block_m=256, block_n=64, num_warps=16, persistent=False)
    ir = k.asm["tilegpu"]
    assert "defaultRegisters = 112 : i32, requestedRegisters = array<i32: 32>" in ir
    ptx = k.asm["ptx"]
    assert "setmaxnreg.inc.sync.aligned.u32 \t112" in ptx and ".maxnreg 96" in ptx
    assert k.metadata["spill_stores"] == 0


def test_clocks_tool_arguments_name_ceiling_variants():
    """bench/tools/attention_clocks.py times attention_ceiling's variants
    (it needs torch and a GPU to run); its defaults name variants the
    ceiling tool has."""
    sys.path.insert(0, os.path.join(REPO, "bench", "tools"))
    import attention_ceiling
    import attention_clocks
    args = attention_clocks.parse_args([])
    assert args.variants == ["full", "no exp2", "products only"]
    assert set(args.variants) <= set(attention_ceiling.variant_sources())
    assert attention_clocks.parse_args(["--variants", "full,exp2 1/8 on FMA"]).variants == \
        ["full", "exp2 1/8 on FMA"]


def test_ceiling_tool_takes_kernel_files_as_variants(tmp_path):
    """attention_ceiling --files name=path,...: whole kernel files as
    correct variants beside the edited ones (an A/B of a kernel change in
    one process), --causal; a malformed item, or a name that a variant
    has, is an error naming it."""
    import argparse
    sys.path.insert(0, os.path.join(REPO, "bench", "tools"))
    import attention_ceiling
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("# kernel A\n")
    b.write_text("# kernel B\n")
    args = attention_ceiling.parse_args(["--files", f"peeled={a},base={b}", "--causal",
                                         "--variants", "full,peeled,base"])
    assert args.files == {"peeled": str(a), "base": str(b)} and args.causal
    sources = attention_ceiling.variant_sources(args.files)
    assert sources["peeled"] == ("# kernel A\n", True, "nothing: the kernel of a.py")
    assert sources["base"][0] == "# kernel B\n" and "full" in sources
    assert not attention_ceiling.parse_args([]).causal
    with pytest.raises(argparse.ArgumentTypeError, match="expected name=path, got 'oops'"):
        attention_ceiling._files("oops")
    with pytest.raises(ValueError, match="'full' is a variant's name already"):
        attention_ceiling.variant_sources({"full": str(a)})
    # The files run whatever --variants selects (--variants full once left
    # the file out, silently).
    assert list(attention_ceiling.selected_sources(["full"], args.files)) == \
        ["full", "peeled", "base"]
    with pytest.raises(SystemExit, match="unknown \\['nope'\\]"):
        attention_ceiling.selected_sources(["nope"], {})


@pytest.mark.parametrize("overlap", [True, False], ids=["rotated", "in_order"])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("S", [200, 256, 20])
def test_kernel_keeps_heads_apart_in_the_interpreter(interpreted, S, causal, overlap):
    """The benchmark kernel on the interpreter, with head 1's first and
    last 32 rows of V infinite: heads 0 and 2 must match float64. K and V
    are read through descriptors over all heads' rows, and rows that P's
    zeros cancel still meet the product (0 * inf is NaN). Before
    2026-11-28 the rotated loop's "block -1" read head 1's last rows into
    head 2, and at S 200 (not a multiple of the 32-row blocks) the block
    crossing S read the next head's first rows (head 1's into head 0):
    every case but the in-order ones at S 256 failed. At S 20 every block
    is longer than a head, so K and V are read per head (PER_HEAD: (H, S, D)
    descriptors whose rows past S are zeros); through descriptors over all
    heads' rows all four S 20 cases fail. (The GPU test is
    test_gpu_attention.py's test_forward_heads_stay_apart.)"""
    import math

    import numpy as np

    import common
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    H, D, BM, BN = 3, 64, 64, 32
    rng = np.random.default_rng(S)
    q, k, v = [(rng.standard_normal((H, S, D)) * 0.5).astype(np.float16) for _ in range(3)]
    v[1, :32] = np.inf
    v[1, -32:] = np.inf
    per_head = S < BN
    o = np.full((H * S, D), np.nan, np.float16)
    lse = np.full(H * S, np.nan, np.float32)
    dq, do = (TensorDescriptor.from_tensor(t, [BM, D]) for t in (q.reshape(H * S, D), o))
    dk, dv = (TensorDescriptor.from_tensor(t, [1, BN, D]) if per_head else
              TensorDescriptor.from_tensor(t.reshape(H * S, D), [BN, D]) for t in (k, v))
    m.attn_fwd_kernel[(math.ceil(S / BM), H)](
        dq, dk, dv, do, o, lse, 1 / math.sqrt(D), 1, H, S, HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN,
        CAUSAL=causal, OVERLAP=overlap, RAGGED=S % 128 != 0, PER_HEAD=per_head)
    _check_heads(q, k, v, o.reshape(H, S, D), (0, 2), causal, "took head 1's infinity")


def _check_heads(q, k, v, o, heads, causal, why):
    """O of `heads` (each (S, D)) finite and within 1% of float64's."""
    import math

    import numpy as np
    S, D = o.shape[1:]
    for h in heads:
        s = q[h].astype(np.float64) @ k[h].astype(np.float64).T / math.sqrt(D)
        if causal:
            s[np.triu(np.ones((S, S), bool), 1)] = -np.inf
        p = np.exp(s - s.max(1, keepdims=True))
        ref = (p / p.sum(1, keepdims=True)) @ v[h].astype(np.float64)
        assert np.isfinite(o[h]).all(), f"head {h} {why}"
        assert np.abs(o[h] - ref).max() / np.abs(ref).max() < 1e-2, f"head {h}"


@pytest.mark.parametrize("programs", [1, 3, 5, 12])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("S, BN", [(256, 32), (64, 64)], ids=["8blocks", "1block"])
@pytest.mark.parametrize("D", [64, 128], ids=["d64", "d128"])
def test_persistent_kernel_runs_every_tile_once_in_the_interpreter(interpreted, causal, programs,
                                                                   S, BN, D):
    """The persistent kernel on the interpreter: 3 heads of S / 64 query
    blocks (12 tiles at S 256, 3 at S 64) walked by 1, 3, 5 or 12 programs
    (at most one a tile). Causal, every other wave
    of tiles is reversed (the last, partial wave within itself: 5 programs
    end on a wave of 2): a tile skipped leaves O's NaNs, and every head
    must match float64. The first K/V block runs before the loop (PEEL:
    not causal, and causal at D128, masked in a head's first tile only);
    with one block a head (S 64, 64-row blocks) the loop runs no iteration
    and the last PV is that block's."""
    import math

    import numpy as np

    import common
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    H, BM = 3, 64
    rng = np.random.default_rng(programs + 10 * causal + S + D)
    q, k, v = [(rng.standard_normal((H * S, D)) * 0.5).astype(np.float16) for _ in range(3)]
    o = np.full((H * S, D), np.nan, np.float16)
    lse = np.full(H * S, np.nan, np.float32)
    dq, do = (TensorDescriptor.from_tensor(t, [BM, D]) for t in (q, o))
    dk, dv = (TensorDescriptor.from_tensor(t, [BN, D]) for t in (k, v))
    m.attn_fwd_kernel[(programs,)](
        dq, dk, dv, do, o, lse, 1 / math.sqrt(D), 1, H, S, HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN,
        CAUSAL=causal, OVERLAP=True, RAGGED=False, PERSISTENT=True)
    q, k, v, o = (t.reshape(H, S, D) for t in (q, k, v, o))
    _check_heads(q, k, v, o, range(H), causal, "has a tile that was not run")


@pytest.mark.parametrize("programs", [132, 114, 100])
@pytest.mark.parametrize("S", [1024, 4096, 16384])
def test_persistent_causal_schedule_balances_the_programs(interpreted, S, programs):
    """The causal persistent kernel's tile order (_tile_coords, run on the
    interpreter): every (head, query block) once, and the busiest program's
    work (its tiles' K/V blocks) at most 3.5% over the mean plus one longest
    tile (the granularity of whole tiles), for 128 heads of S / 128 query
    blocks. Handed out in order (a head's longest first, no wave reversed),
    five of the nine cases fail: program p ran rows p % 8 and p % 8 + 4 of
    every 8 at S 1024 on 132 programs, and the busiest had 1.34x the mean."""
    import numpy as np

    import common
    import warpforge
    import warpforge.language as tl
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")

    @warpforge.jit
    def coords(hz_ptr, m_ptr, programs, tiles, tiles_m, BLOCK: tl.constexpr):
        tile = tl.arange(0, BLOCK)
        hz, start_m = m._tile_coords(tile, programs, tiles, tiles_m, True)
        tl.store(hz_ptr + tile, hz, mask=tile < tiles)
        tl.store(m_ptr + tile, start_m, mask=tile < tiles)

    tiles_m = S // 128
    tiles = 128 * tiles_m
    hz, start_m = np.full(tiles, -1, np.int32), np.full(tiles, -1, np.int32)
    coords[(1,)](hz, start_m, programs, tiles, tiles_m, BLOCK=tiles)
    assert len(set(zip(hz.tolist(), start_m.tolist()))) == tiles
    assert hz.min() == 0 and hz.max() == 127 and start_m.min() == 0 and start_m.max() == tiles_m - 1
    work = np.zeros(programs)
    np.add.at(work, np.arange(tiles) % programs, start_m + 1)
    mean = work.sum() / programs
    assert work.max() <= 1.035 * mean + tiles_m, (work.max() / mean)


# Experimental: K/V blocks that are not a power of 2 (FlashAttention-3's
# 128x176 at D128), behind WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1.
# `WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1 python3
# bench/tools/attention_ceiling.py --variants full --configs
# 128x128w8s2wspersist,128x128w8s2ws,128x176w8s2ws,128x192w8s2ws --seqlens
# 4224,8448` checks them against float64 and times them (4224 = 33 x 128 =
# 24 x 176 = 22 x 192): right on the H200, 2026-11-28 13:34 UTC, 128x176
# 1-2.5% above 128x128 unpersisted (attention-ceiling-2026-11-28-133427.md).
# The 192-row tiles of three consumer warpgroups are tested on the GPU in
# test_gpu_attention.py.

def test_npot_blocks_need_the_experimental_switch(monkeypatch):
    """A 176-element range or block is an error naming the rule without
    the switch; with it, multiples of 16 pass and other lengths still
    fail."""
    import numpy as np
    import warpforge
    import warpforge.language as tl
    from warpforge.language import core
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    monkeypatch.delenv(core.NPOT_BLOCKS_ENV, raising=False)
    assert not core.is_block_dim(176) and core.is_block_dim(128)
    with pytest.raises(ValueError, match="power of 2, got 176"):
        TensorDescriptor.from_tensor(np.ones((352, 64), np.float16), [176, 64])

    @warpforge.jit
    def fill(out, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(out + offs, offs)

    with pytest.raises(Exception, match="power-of-2 length, got 176"):
        fill.warmup(np.zeros(176, np.int32), N=176, grid=(1,))
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    assert core.is_block_dim(176) and core.is_block_dim(192) and not core.is_block_dim(100)
    assert TensorDescriptor.from_tensor(np.ones((352, 64), np.float16),
                                        [176, 64]).block_shape == [176, 64]
    # An arange of such a length compiles (its default layout is the slice
    # of a 2-D one: no 1-D tile holds 176 or 80 whole); test_layout_simulation
    # runs the lowered code.
    for n in (176, 80):
        assert fill.warmup(np.zeros(n, np.int32), N=n, grid=(1,), num_warps=8).asm["cubin"]
    # Under the switch the errors name the widened rule.
    rule = r"a power of 2 or a multiple of 16 \(WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1\)"
    with pytest.raises(Exception, match=rf"length must be {rule}, got 100"):
        fill.warmup(np.zeros(100, np.int32), N=100, grid=(1,))
    with pytest.raises(ValueError, match=rf"must be {rule}, got 40"):
        TensorDescriptor.from_tensor(np.ones((80, 64), np.float16), [40, 64])

    @warpforge.jit
    def full(out, N: tl.constexpr):
        tl.store(out + tl.arange(0, 16)[:, None] * N + tl.arange(0, 16)[None, :],
                 tl.sum(tl.full([16, 16, N], 1, tl.int32), 2))

    with pytest.raises(Exception, match=rf"every dimension must be {rule}, got 24"):
        full.warmup(np.zeros(256, np.int32), N=24, grid=(1,))


def _compile_npot(monkeypatch, S, D, block_m, block_n, **meta):
    """The benchmark kernel compiled (not run) under the experimental
    switch, warp-specialized or failing: its CompiledKernel."""
    import warnings

    import numpy as np
    import common
    import warpforge
    from warpforge.language import core
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    x = np.ones((2 * S, D), np.float16)
    lse = np.ones(2 * S, np.float32)
    qo = TensorDescriptor.from_tensor(x, [block_m, D])
    kv = TensorDescriptor.from_tensor(x, [block_n, D])
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        return m.attn_fwd_kernel.warmup(qo, kv, kv, qo, x, lse, 0.1, 1, 2, S, HEAD_DIM=D,
                                        BLOCK_M=block_m, BLOCK_N=block_n, CAUSAL=False,
                                        OVERLAP=True, WS=True, RAGGED=False, grid=(1,), **meta)


def _spills(k):
    return [int(x) for x in re.findall(r"(\d+) bytes spill stores",
                                       k.metadata.get("ptxas_log", ""))]


def test_npot_block_compiles_warp_specialized(monkeypatch):
    """128x176 at D128, unpersisted, warp-specialized: QK^T is one
    m64n176k16 wgmma a K step, PV eleven m64n128k16 (K 176), and the slots
    fit (4 x 44 KB and Q: 214016 bytes). It compiles under the CTA-tile
    verifier since the default layouts hold 176 in whole tiles and the
    kernel makes no 176-element range without masks; ptxas then spills 4
    bytes (none before those two changes, when the kernel still carried the
    never-taken masked tail block), which is what this allows."""
    k = _compile_npot(monkeypatch, 4224, 128, 128, 176, num_warps=8, num_stages=2)
    ptx = k.asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n176k16.f32.f16.f16" in ptx
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]
    assert k.metadata["shared"] == 214016
    assert _spills(k) and max(_spills(k)) <= 4, k.metadata.get("ptxas_log", "")


@pytest.mark.parametrize("persistent", [False, True], ids=["tiles", "persistent"])
def test_three_consumer_warpgroups_compile(monkeypatch, persistent):
    """FlashAttention-3's D64 shape: 192-row tiles on three consumer
    warpgroups (num_consumer_groups=3, num_warps=4), experimental. The
    products are wgmma on all three warpgroups (m64n128k16, warps [12, 1]),
    the kernel specialized with registers 160 for the consumers and 32 for
    the producer (512 threads start with 128); ptxas spills at most a few
    bytes (4 unpersisted, 12 persistent on 2026-11-28)."""
    k = _compile_npot(monkeypatch, 4608, 64, 192, 128, PERSISTENT=persistent, num_warps=4,
                      num_consumer_groups=3, num_buffers_warp_spec=2)
    ptx = k.asm["ptx"]
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx
    assert "#tilegpu.wgmma<warpsPerCTA = [12, 1]" in k.asm["tilegpu"]
    assert re.findall(r"setmaxnreg\.(inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx) == \
        [("inc", "160"), ("dec", "32")]
    assert k.metadata["num_threads"] == 512
    assert _spills(k) and max(_spills(k)) <= 16, k.metadata.get("ptxas_log", "")


@pytest.mark.parametrize("S", [352, 400], ids=["whole", "ragged"])
@pytest.mark.parametrize("overlap", [True, False], ids=["rotated", "in_order"])
def test_npot_block_in_the_interpreter(interpreted, monkeypatch, S, overlap):
    """The kernel with 176-row K/V blocks on the interpreter, against
    float64: at S 352 two whole blocks; at S 400 the block crossing S is
    moved back to end at S, its first columns masked (RAGGED)."""
    import math

    import numpy as np
    import common
    from warpforge.language import core
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    m = common.load_kernels(os.path.join(REPO, "bench", "kernels", "attention.py"), "warpforge")
    H, D, BM, BN = 2, 64, 64, 176
    rng = np.random.default_rng(S + overlap)
    q, k, v = [(rng.standard_normal((H, S, D)) * 0.5).astype(np.float16) for _ in range(3)]
    o = np.full((H * S, D), np.nan, np.float16)
    lse = np.full(H * S, np.nan, np.float32)
    dq, do = (TensorDescriptor.from_tensor(t, [BM, D]) for t in (q.reshape(H * S, D), o))
    dk, dv = (TensorDescriptor.from_tensor(t.reshape(H * S, D), [BN, D]) for t in (k, v))
    m.attn_fwd_kernel[(math.ceil(S / BM), H)](
        dq, dk, dv, do, o, lse, 1 / math.sqrt(D), 1, H, S, HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN,
        CAUSAL=False, OVERLAP=overlap, RAGGED=S % BN != 0)
    _check_heads(q, k, v, o.reshape(H, S, D), range(H), False, "is wrong")
