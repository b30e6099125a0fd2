"""The options' one home (`warpforge.compiler.options.KernelOptions`) and
what derives from it: launch keywords, Config, cache keys, the C++
CompileOptions, the module attributes the stages stamp and read, and the
typed results compilation returns. Runs on the CPU (no GPU needed)."""

import dataclasses
import inspect
import warnings

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from warpforge import ir
from warpforge.compiler import compiler
from warpforge.compiler.options import (CORE_OPTION_NAMES, DEFAULTS, OPTION_NAMES, KernelOptions,
                                        UnsupportedOptionWarning, WarpSpecializationWarning)
from warpforge.errors import OutOfResources

import zoo

F16 = np.zeros(64, np.float16)
F32 = np.zeros(64, np.float32)


def test_one_list_of_names():
    assert OPTION_NAMES == ("num_warps", "num_stages", "num_ctas", "num_consumer_groups",
                            "num_buffers_warp_spec", "ping_pong", "launch_pdl",
                            "launch_cooperative_grid", "maxnreg",
                            "arch", "debug", "enable_fp_fusion", "enable_reflect_ftz",
                            "warp_specialize_loops")
    # The jit launcher and Config take exactly these (Config all but the
    # kernel's own arch, debug, the numerics options and
    # warp_specialize_loops, as Triton's).
    import importlib
    jit = importlib.import_module("warpforge.runtime.jit")
    autotuner = importlib.import_module("warpforge.runtime.autotuner")
    assert jit.OPTION_NAMES is OPTION_NAMES
    config_params = set(inspect.signature(triton.Config).parameters) - {"kwargs", "pre_hook"}
    numerics = {"arch", "debug", "enable_fp_fusion", "enable_reflect_ftz",
                "warp_specialize_loops"}
    assert config_params == set(OPTION_NAMES) - numerics
    assert autotuner._OPTION_FIELDS == tuple(n for n in OPTION_NAMES if n not in numerics)


def test_config_defaults_come_from_the_schema():
    c = triton.Config({"BLOCK": 32})
    for name in OPTION_NAMES:
        if name not in ("arch", "debug", "enable_fp_fusion", "enable_reflect_ftz",
                        "warp_specialize_loops"):
            assert getattr(c, name) == DEFAULTS[name]
    # Triton 3.6's positional order.
    c = triton.Config({}, 8, 4, 1, 128)
    assert (c.num_warps, c.num_stages, c.num_ctas, c.maxnreg) == (8, 4, 1, 128)


def test_core_options_defaults_match():
    """C++'s CompileOptions (the defaults warpforge-opt uses) agrees with
    KernelOptions."""
    core = ir._core().CompileOptions()
    for name in CORE_OPTION_NAMES:
        assert getattr(core, name) == DEFAULTS[name], name
    assert core.compute_capability == 90
    converted = KernelOptions(num_warps=8, num_stages=5).to_core(90)
    assert (converted.num_warps, converted.num_stages) == (8, 5)


@pytest.mark.parametrize("kwargs,match", [
    ({"num_warps": 3}, "num_warps must be a power of 2"),
    ({"num_warps": 4.0}, "num_warps must be an integer"),
    ({"num_stages": 0}, "num_stages must be at least 1"),
    ({"num_ctas": 3}, r"num_ctas must be 1, 2 or 4 \(CTAs of a thread-block cluster\), got 3"),
    ({"num_consumer_groups": 2}, "needs num_buffers_warp_spec > 0"),
    ({"num_warps": 16, "num_consumer_groups": 2, "num_buffers_warp_spec": 3},
     "num_warps=16 x num_consumer_groups=2 consumer warps and a producer warpgroup make 1152 "
     "threads, more than a CTA's 1024"),
    ({"maxnreg": 8}, "maxnreg must be an int from 16 to 255"),
    ({"debug": 1}, "debug must be True or False"),
    ({"ping_pong": True}, r"ping_pong=True runs two consumer groups that take turns: set "
                          r"num_consumer_groups=2 \(got 0\)"),
    ({"ping_pong": True, "num_consumer_groups": 1, "num_buffers_warp_spec": 3},
     r"ping_pong=True .*: set num_consumer_groups=2 \(got 1\)"),
    ({"ping_pong": 1, "num_consumer_groups": 2, "num_buffers_warp_spec": 3},
     "ping_pong must be True or False"),
])
def test_bad_options_name_the_option(kwargs, match):
    with pytest.raises(ValueError, match=match):
        KernelOptions(**kwargs)
    with pytest.raises(ValueError, match=match):
        triton.Config({}, **{k: v for k, v in kwargs.items() if k != "debug"}) \
            if "debug" not in kwargs else KernelOptions(**kwargs)


def test_numpy_integers_are_accepted():
    o = KernelOptions(num_warps=np.int64(8), num_stages=np.int32(2))
    assert (o.num_warps, o.num_stages) == (8, 2) and type(o.num_warps) is int


def test_bad_launch_option_is_an_error_at_the_launch():
    with pytest.raises(ValueError, match="num_ctas must be 1, 2 or 4"):
        zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, num_ctas=8, grid=(1,))


def test_ping_pong_without_two_groups_is_an_error_at_the_launch():
    """ping_pong=True at a launch without num_consumer_groups=2: a
    ValueError naming the option, before anything compiles."""
    with pytest.raises(ValueError, match=r"ping_pong=True .*num_consumer_groups=2 \(got 0\)"):
        zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, ping_pong=True, grid=(1,))


def test_ping_pong_is_in_the_cache_key():
    cooperative = KernelOptions(num_consumer_groups=2, num_buffers_warp_spec=3)
    ping_pong = KernelOptions(num_consumer_groups=2, num_buffers_warp_spec=3, ping_pong=True)
    assert ("ping_pong", True) in ping_pong.cache_key()
    assert cooperative.cache_key() != ping_pong.cache_key()
    assert ping_pong.to_core(90).ping_pong is True and cooperative.to_core(90).ping_pong is False


def test_num_ctas_1_is_accepted():
    """Every launch of Triton's test_core passes num_ctas=1."""
    k = zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, num_ctas=1, grid=(1,))
    assert k.options.num_ctas == 1


def test_warp_specialization_without_a_dot_loop_warns_at_the_kernel(monkeypatch):
    """num_consumer_groups on a kernel with no loop of products: one
    WarpSpecializationWarning at the kernel's line saying why, and a kernel
    compiled (correctly) without it; the options are what was asked."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    zoo.add_kernel.cache.clear()
    with pytest.warns(WarpSpecializationWarning,
                      match="add_kernel: warp specialization declined: the kernel has no "
                            "loop of tl.dot products to specialize; compiled without it") \
            as record:
        k = zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, num_warps=4,
                                  num_consumer_groups=2, num_buffers_warp_spec=3, grid=(1,))
    assert len(record) == 1
    assert (record[0].filename, record[0].lineno) == (zoo.add_kernel.filename,
                                                      zoo.add_kernel.first_line)
    assert "tilegpu.warp_specialize" not in k.asm["tilegpu"]
    # num_warps is one consumer group's: the kernel's own warps are both
    # groups', and no partition is added.
    assert k.metadata["num_warps"] == 8 and k.metadata["partition_warps"] == 0
    assert k.options.num_consumer_groups == 2  # what was asked, for the cache key
    assert "cubin" in k.asm


@triton.jit
def ws_loop(x_ptr, n, BLOCK: tl.constexpr, WS: tl.constexpr, FLATTEN: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.range(0, n, warp_specialize=WS, flatten=FLATTEN):
        acc += tl.load(x_ptr + i * BLOCK + tl.arange(0, BLOCK))
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)


@pytest.mark.parametrize("ws,flatten,category,match", [
    (True, False, WarpSpecializationWarning,
     "warp specialization declined: the loop has no tl.dot on wgmma"),
    (False, True, UnsupportedOptionWarning,
     "flatten=True: flattening persistent tile loops without warp_specialize=True is not "
     "supported yet"),
])
def test_range_warp_specialize_warns_at_the_loop(ws, flatten, category, match):
    """tl.range(warp_specialize=True) on a loop without products: declined at
    the loop's line (the compiler's reason); flatten: not supported yet."""
    with pytest.warns(category, match=match) as record:
        ws_loop.warmup(F32, 4, BLOCK=64, WS=ws, FLATTEN=flatten, grid=(1,))
    line = ws_loop.first_line + next(i for i, l in enumerate(ws_loop.source_lines)
                                     if "tl.range" in l)
    assert (record[0].filename, record[0].lineno) == (ws_loop.filename, line)


def test_range_without_warp_specialization_is_quiet(frontend_only):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ws_loop.warmup(F32, 4, BLOCK=64, WS=False, FLATTEN=False, grid=(1,))


def test_cache_key_is_every_option():
    a, b = KernelOptions(), KernelOptions(num_consumer_groups=1, num_buffers_warp_spec=2)
    assert [n for n, _ in a.cache_key()] == list(OPTION_NAMES)
    assert a.cache_key() != b.cache_key()


# ---------------------------------------------------------------------------
# Stages and structured results
# ---------------------------------------------------------------------------


def test_jit_stages_are_named_pipelines():
    stages = ir.jit_stages()
    assert [(s, p) for s, p, _ in stages] == [
        ("tile", "tile-optimize"), ("tilegpu-converted", "tile-to-tilegpu"),
        ("tilegpu", "tilegpu-optimize"), ("llvm-dialect", "tilegpu-to-llvm")]
    assert {p for _, p, _ in stages} <= set(ir.pipelines())


def test_each_stage_reproduces_with_warpforge_opt_pipeline():
    """What the JIT runs, run_pipeline (warpforge-opt's pipeline text)
    reproduces stage by stage."""
    k = zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, num_warps=2, grid=(1,))
    text = ir.run_pipeline(k.asm["tile"], "tile-to-tilegpu{num-warps=2}")
    assert text == ir.parse(k.asm["tilegpu-converted"])
    assert ir.run_pipeline(text, "tilegpu-optimize") == ir.parse(k.asm["tilegpu"])


def test_metadata_comes_from_module_attributes():
    k = zoo.softmax_kernel.warmup(F32, F32, 64, 64, 4, 64, BLOCK_SIZE=64, num_stages=2,
                                  num_warps=2, grid=(1,))
    _, attributes = ir.run_stage(k.asm["tilegpu"], "tilegpu-to-llvm",
                                 k.options.to_core())
    assert attributes["tilegpu.num-warps"] == 2
    assert k.metadata["num_warps"] == 2
    assert k.metadata["num_threads"] == 64
    assert (k.metadata["num_ctas"], k.metadata["num_consumer_groups"]) == (1, 0)
    assert k.metadata["shared"] == attributes["tilegpu.shared"] > 0


def test_shared_memory_overflow_is_out_of_resources():
    with pytest.raises(OutOfResources) as info:
        zoo.matmul_kernel.warmup(F16, F16, F16, 512, 512, 512, 512, 1, 512, 1, 512, 1,
                                 BLOCK_SIZE_M=256, BLOCK_SIZE_N=256, BLOCK_SIZE_K=128,
                                 GROUP_SIZE_M=8, ACTIVATION="", num_warps=8, num_stages=4,
                                 grid=(1,))
    e = info.value
    assert (e.kernel, e.resource) == ("matmul_kernel", "bytes of shared memory")
    assert e.limit == 232448 and e.required > e.limit
    assert "num_stages=4" in str(e)
    assert "fewer stages (the software pipeline's buffers take" in str(e)


@triton.jit
def one_big_dot(a_ptr, b_ptr, c_ptr, B: tl.constexpr):
    # No loop, so no software pipeline: the operands alone overflow.
    r = tl.arange(0, B)
    a = tl.load(a_ptr + r[:, None] * B + r[None, :])
    b = tl.load(b_ptr + r[:, None] * B + r[None, :])
    tl.store(c_ptr + r[:, None] * B + r[None, :], tl.dot(a, b))


def test_overflow_without_a_pipeline_does_not_suggest_fewer_stages():
    """Issue 19: tutorial 06's backward needs 245 KB at one stage; the hint
    must not send the user to num_stages."""
    with pytest.raises(OutOfResources) as info:
        one_big_dot.warmup(F16, F16, F32, B=256, num_warps=8, grid=(1,))
    assert "fewer stages would not help" in str(info.value)


def test_stage_failure_carries_module_attributes():
    k = zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, grid=(1,))
    options = KernelOptions().to_core()
    options.num_ctas = 3
    with pytest.raises(warpforge.IRError, match="num-ctas must be 1, 2 or 4, got 3"):
        ir.run_stage(k.asm["tile"], "tile-to-tilegpu", options)


def test_compiler_does_not_import_the_runtime():
    import ast
    import pathlib
    root = pathlib.Path(compiler.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and \
                    node.module.split(".")[0] == "runtime" and node.level == 2:
                pytest.fail(f"{path.name} imports warpforge.runtime")


def test_options_documented():
    text = KernelOptions.describe()
    for f in dataclasses.fields(KernelOptions):
        assert f.name in text


# ---------------------------------------------------------------------------
# tl.range(loop_unroll_factor=) takes effect
# ---------------------------------------------------------------------------


@triton.jit
def unrolled_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr, UNROLL: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for i in tl.range(0, n, loop_unroll_factor=UNROLL):
        acc += tl.load(x_ptr + i * BLOCK + offs) * (i + 1)
    tl.store(out_ptr + offs, acc)


def test_loop_unroll_factor_unrolls(frontend_only):
    k = unrolled_sum.warmup(F32, F32, 7, BLOCK=16, UNROLL=3, grid=(1,))
    # A main loop with the body three times, and an epilogue loop.
    assert k.asm["tile"].count("scf.for") == 2
    assert k.asm["tile"].count("tile.load") == 4
    assert "loop_unroll_factor" not in k.asm["tile"]


def _unrolled_reference(x, n, block):
    rows = x.reshape(-1, block)[:n].astype(np.float64)
    return (rows * np.arange(1, n + 1)[:, None]).sum(0)


@pytest.mark.parametrize("n", [1, 7, 8, 9])
def test_loop_unroll_factor_interpreter(n, monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = np.random.default_rng(n).standard_normal(16 * 9).astype(np.float32)
    out = np.full(16, np.nan, np.float32)
    unrolled_sum[(1,)](x, out, n, BLOCK=16, UNROLL=4)
    ref = _unrolled_reference(x, n, 16)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.abs(ref).max())


@pytest.mark.gpu
@pytest.mark.parametrize("n,unroll", [(1, 4), (7, 4), (8, 4), (9, 2), (9, 3)])
def test_loop_unroll_factor_gpu(n, unroll):
    import torch
    x = torch.randn(16 * 9, device="cuda")
    out = torch.full((16,), float("nan"), device="cuda")
    unrolled_sum[(1,)](x, out, n, BLOCK=16, UNROLL=unroll)
    ref = _unrolled_reference(x.cpu().numpy(), n, 16)
    # fp32 sums of up to 9 terms against float64: relative to the largest.
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-5,
                               atol=1e-5 * np.abs(ref).max())


def test_python_attribute_names_match_the_stages():
    from warpforge.compiler import attrs
    k = zoo.add_kernel.warmup(F32, F32, F32, 64, BLOCK_SIZE=64, grid=(1,))
    _, stamped = ir.run_stage(k.asm["tile"], "tile-to-tilegpu", KernelOptions().to_core())
    assert set(attrs.MODULE_OPTIONS) == {n for n in stamped if n.startswith("tilegpu.")}
    _, lowered = ir.run_stage(k.asm["tilegpu"], "tilegpu-to-llvm", KernelOptions().to_core())
    assert attrs.SHARED_BYTES in lowered


# Seed 000's kernel as written: pointer loads feeding tl.dot.
from pointer_matmul_kernels import seed000_matmul  # noqa: E402


def test_warp_specialization_of_pointer_blocks_copies_with_the_tma(monkeypatch):
    """Seed 000's kernel with its own config (num_warps=4, two consumer
    groups, 3 buffers): its operands are unmasked pointer loads that read
    2-D blocks of row-major matrices with 16-byte aligned rows, so the
    producer copies them with the TMA through tensor maps of the kernel's
    arguments, which the launcher encodes (tilegpu-host-tensor-maps: two
    more kernel parameters, no global scratch); 384 threads, registers
    moved, no warning."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = seed000_matmul.warmup(F16, F16, F16, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1,
                                  BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4,
                                  num_stages=2, num_consumer_groups=2, num_buffers_warp_spec=3,
                                  grid=(1,))
    producer = k.asm["tilegpu"].split("partition0(")[1]
    assert producer.count("tilegpu.channel_tma_load") == 2
    assert "make_tensor_descriptor" not in producer
    assert "channel_async_copy" not in producer
    ptx = k.asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx and "cp.async.cg" not in ptx
    assert "setmaxnreg" in ptx and "tensormap" not in ptx
    assert k.metadata["global_scratch_size"] == 0
    # a_ptr (0) with row stride stride_am (6); b_ptr (1) with stride_bk (7):
    # kernel parameters 9 and 10, after the signature's 9 (the unit strides
    # are specialized away).
    big = [2**31 - 1, 2**31 - 1]
    assert k.metadata["host_tensor_maps"] == [
        dict(param=9, base=0, block=[128, 64], shape=big, shape_args=[-1, -1],
             strides=[0, 1], stride_args=[6, -1]),
        dict(param=10, base=1, block=[64, 256], shape=big, shape_args=[-1, -1],
             strides=[0, 1], stride_args=[7, -1])]
    assert k.metadata["num_threads"] == 384 and k.metadata["spill_stores"] == 0


def test_warp_specialization_of_pointer_blocks_of_computed_bases(monkeypatch):
    """Seed 000's kernel over a batch, its bases offset by the batch's
    program id: each program's maps differ, so the producer makes them
    (marked as the compiler's) in global scratch that the runtime provides
    (the source made no descriptor)."""
    from pointer_matmul_kernels import batched_seed000_matmul
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = batched_seed000_matmul.warmup(
            F16, F16, F16, 4096, 4096, 4096, 2**24, 4096, 1, 2**24, 4096, 1, 2**24, 4096, 1,
            BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4, num_stages=2,
            num_consumer_groups=2, num_buffers_warp_spec=3, grid=(1,))
    producer = k.asm["tilegpu"].split("partition0(")[1]
    assert producer.count("tilegpu.channel_tma_load") == 2
    assert producer.count('{"tilegpu.synthesized-map"}') == 2
    assert "fence.proxy.tensormap" in k.asm["ptx"]
    assert k.metadata["host_tensor_maps"] == []
    assert k.metadata["global_scratch_implicit"] and k.metadata["global_scratch_size"] == 256


def test_warp_specialization_of_masked_pointer_loads_copies_with_cp_async(monkeypatch):
    """Triton's tutorial 03 kernel (rows wrapped with % M, K masked): not a
    block the TMA can take, so the producer copies with cp.async, each
    thread arriving on the slot's full barrier when its copies land; no
    register moves (the producer holds its addresses), no warning."""
    from pointer_matmul_kernels import masked_matmul
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = masked_matmul.warmup(F16, F16, F16, 999, 528, 400, 400, 1, 528, 1, 528, 1,
                                 BLOCK_SIZE_M=128, BLOCK_SIZE_N=256, BLOCK_SIZE_K=64,
                                 GROUP_SIZE_M=8, WARP_SPECIALIZE=False, num_warps=4,
                                 num_stages=2, num_consumer_groups=2, num_buffers_warp_spec=3,
                                 grid=(1,))
    assert "tilegpu.channel_async_copy" in k.asm["tilegpu"]
    ptx = k.asm["ptx"]
    assert ptx.count("cp.async.mbarrier.arrive.noinc.shared") == 1
    assert "cp.async.cg.shared.global" in ptx and "setmaxnreg" not in ptx
    assert k.metadata["num_threads"] == 384 and k.metadata["spill_stores"] == 0
    assert k.metadata["global_scratch_size"] == 0


def test_warp_specialization_of_unaligned_pointer_loads_falls_back_at_the_loop(monkeypatch):
    """The same kernel on rows whose stride is not known to be a multiple
    of 16 bytes: cp.async cannot copy them in 4-byte pieces, so the loop
    compiles unspecialized (on the 8 warps the two groups asked for) with
    one WarpSpecializationWarning at the loop's line giving the reason."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with pytest.warns(WarpSpecializationWarning,
                      match="seed000_matmul: warp specialization declined: a product's "
                            "operand is not a load .* the producer can copy") as record:
        k = seed000_matmul.warmup(F16, F16, F16, 4095, 4095, 4095, 4095, 1, 4095, 1, 4095, 1,
                                  BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4,
                                  num_stages=2, num_consumer_groups=2, num_buffers_warp_spec=3,
                                  grid=(1,))
    ws = [r for r in record if issubclass(r.category, WarpSpecializationWarning)]
    assert len(ws) == 1
    line = seed000_matmul.first_line + next(
        i for i, l in enumerate(seed000_matmul.source_lines) if "for k in range" in l)
    assert (ws[0].filename, ws[0].lineno) == (seed000_matmul.filename, line)
    assert "tilegpu.warp_specialize" not in k.asm["tilegpu"]
    assert k.metadata["num_threads"] == 256


@pytest.mark.parametrize("groups", [2, None], ids=["g2", "range"])
def test_warp_specialization_of_device_descriptors(groups, monkeypatch):
    """Tutorial 09's descriptor-persistent kernel (tl.make_tensor_descriptor
    before the tile loop): the producer makes the operands' tensor maps
    itself and copies with the TMA; the consumers make only the output's;
    no warning."""
    import tutorial09_kernels as tut
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    extra = ({"num_consumer_groups": 2, "num_buffers_warp_spec": 3, "num_warps": 4}
             if groups else {"num_warps": 8})
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = tut.matmul_kernel_descriptor_persistent.fn.warmup(
            F16, F16, F16, 999, 528, 384, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
            BLOCK_SIZE_K=64, GROUP_SIZE_M=8, EPILOGUE_SUBTILE=False, NUM_SMS=3,
            WARP_SPECIALIZE=groups is None, FLATTEN=True, num_stages=3, grid=(3,), **extra)
    ir_text = k.asm["tilegpu"]
    default, producer = ir_text.split("partition0(")
    assert default.count("tile.make_tensor_descriptor") == 1
    assert producer.count("tile.make_tensor_descriptor") == 2
    assert "tilegpu.channel_tma_load" in producer
    assert k.metadata["global_scratch_size"] == 3 * 128


def test_three_consumer_groups_fall_back_with_a_warning(monkeypatch):
    """num_consumer_groups=3 (seed 000's 32/160 register split names it):
    twelve consumer warps, and a tile, a power of 2 in every dimension,
    splits among a power of 2 of them only, so the kernel compiles
    unspecialized on its num_warps warps, with one warning at the kernel
    saying why, rather than failing the config."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    assert triton.Config({}, num_warps=4, num_consumer_groups=3,
                         num_buffers_warp_spec=3).num_consumer_groups == 3
    k = _seed000_three_groups_warning("num_consumer_groups=3 with num_warps=4 makes 12 "
                                      "consumer warps, and a tile .* splits among a power "
                                      "of 2 of them only")
    assert k.metadata["num_threads"] == 128


def _seed000_three_groups_warning(match: str):
    """Seed 000's 128x256 matmul with num_consumer_groups=3: compiled
    unspecialized, with one WarpSpecializationWarning matching `match` at
    the kernel's first line."""
    with pytest.warns(WarpSpecializationWarning, match=match) as record:
        k = seed000_matmul.warmup(F16, F16, F16, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1,
                                  BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4,
                                  num_stages=3, num_consumer_groups=3, num_buffers_warp_spec=3,
                                  grid=(1,))
    ws = [r for r in record if issubclass(r.category, WarpSpecializationWarning)]
    assert len(ws) == 1 and (ws[0].filename, ws[0].lineno) == (seed000_matmul.filename,
                                                              seed000_matmul.first_line)
    assert "tilegpu.warp_specialize" not in k.asm["tilegpu"]
    return k


def test_three_consumer_groups_under_the_experimental_switch_fall_back_on_128_rows(monkeypatch):
    """With WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1 twelve consumer warps are
    tried (three warpgroups stack along M, so a product needs a multiple of
    192 rows); a 128-row tile has none, and the kernel is compiled as
    without the groups, on its num_warps warps (wgmma, not the FMA form
    twelve warps would leave), with one warning at the kernel saying why."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    monkeypatch.setenv("WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS", "1")
    seed000_matmul.cache.clear()  # the switch is not part of the in-memory key
    # The declined 12-warp module stops before the LLVM stage and ptxas:
    # they run once, for the kernel kept.
    from warpforge import ir
    to_ptx, calls = ir.run_stage_to_ptx, []
    monkeypatch.setattr(ir, "run_stage_to_ptx", lambda *a, **kw: calls.append(1) or to_ptx(*a, **kw))
    k = _seed000_three_groups_warning(r"num_consumer_groups=3 \(12 consumer warps\): the "
                                      r"kernel's tl.dot runs on the FMA pipes, not wgmma "
                                      r"\(tl.dot with M = 128: .* M must be a multiple of 192 "
                                      r".*\), so no loop of products can be specialized; "
                                      r"compiled without it, on num_warps=4 warps")
    assert "wgmma.mma_async" in k.asm["ptx"] and k.metadata["num_threads"] == 128
    assert len(calls) == 1
    seed000_matmul.cache.clear()


def test_one_channel_takes_a_tma_block_and_a_cp_async_operand(monkeypatch):
    """Seed 000's kernel with B masked: A stays a TMA block, B becomes a
    cp.async copy, both into one channel whose full barriers count the
    TMA's arrival and every producer thread's (1 + 128)."""
    import re
    from pointer_matmul_kernels import seed000_masked_b
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = seed000_masked_b.warmup(F16, F16, F16, 384, 768, 192, 192, 1, 768, 1, 768, 1,
                                    BLOCK_M=128, BLOCK_N=256, BLOCK_K=64, num_warps=4,
                                    num_stages=2, num_consumer_groups=2,
                                    num_buffers_warp_spec=3, grid=(1,))
    producer = k.asm["tilegpu"].split("partition0(")[1]
    assert producer.count("tilegpu.channel_tma_load") == 1
    assert producer.count("tilegpu.channel_async_copy") == 1
    counts = set(re.findall(r"mbarrier.init.shared.b64 \[%r\d+\], (\d+)", k.asm["ptx"]))
    assert counts == {"129", "256"}


def test_ping_pong_groups_make_their_own_output_maps(monkeypatch):
    """Tutorial 09's descriptor-persistent kernel makes C's tensor map on
    the device before its tile loop, in the consumers' code: with
    ping-pong each group makes its own, in a global-scratch slot of its
    own (4 x 128 bytes per program: A and B for the producer, C for each
    group), so the two never write one map; no warning."""
    import tutorial09_kernels as tut
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = tut.matmul_kernel_descriptor_persistent.fn.warmup(
            F16, F16, F16, 999, 528, 384, BLOCK_SIZE_M=128, BLOCK_SIZE_N=128,
            BLOCK_SIZE_K=64, GROUP_SIZE_M=8, EPILOGUE_SUBTILE=False, NUM_SMS=3,
            WARP_SPECIALIZE=False, FLATTEN=True, num_stages=3, grid=(3,), num_warps=4,
            num_consumer_groups=2, num_buffers_warp_spec=3, ping_pong=True)
    assert (k.metadata["num_warps"], k.metadata["partition_warps"]) == (4, 8)
    text = k.asm["tilegpu"]
    default, rest = text.split("partition0(")
    producer, second = rest.split("partition1(")
    assert [part.count("tile.make_tensor_descriptor") for part in (default, producer, second)] \
        == [1, 2, 1]
    assert k.metadata["global_scratch_size"] == 4 * 128


# -- arch: the target per compile -------------------------------------------------


@pytest.mark.parametrize("spelling,want", [("sm80", "sm80"), ("sm_86", "sm86"), ("sm90a", "sm90"),
                                           (89, "sm89"), ("cuda:90", "sm90")])
def test_arch_spellings(spelling, want):
    from warpforge.compiler.options import KernelOptions
    assert KernelOptions(arch=spelling).arch == want


@pytest.mark.parametrize("bad", ["sm70", "sm100", "gfx942", True, "sm_8x"])
def test_arch_unsupported_is_an_error_naming_the_targets(bad):
    from warpforge.compiler.options import KernelOptions
    with pytest.raises(ValueError, match="warpforge compiles for sm80, sm86, sm89, sm90"):
        KernelOptions(arch=bad)


def test_override_arch_knob_reaches_the_cache_key(monkeypatch):
    from warpforge import knobs
    from warpforge.compiler.options import KernelOptions
    monkeypatch.setattr(knobs.runtime, "override_arch", "sm80")
    options = KernelOptions()
    assert options.arch == "sm80" and options.capability() == 80
    assert ("arch", "sm80") in options.cache_key()
    assert KernelOptions(arch="sm90").capability() == 90


@pytest.mark.parametrize("arch,target", [("sm80", "sm_80"), ("sm89", "sm_89"), ("sm90", "sm_90a")])
def test_arch_compiles_for_that_target(arch, target, monkeypatch):
    """A launch's arch= picks the PTX target and the dot's instructions:
    mma.sync and cp.async below sm_90, wgmma on sm_90a."""
    import re
    import sys
    import os
    sys.path.insert(0, os.path.dirname(__file__))
    torch = pytest.importorskip("torch")
    import warpforge.language as tl
    from fma_dot_kernels import fma_matmul_kernel
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    k = fma_matmul_kernel.warmup(torch.zeros(4, dtype=torch.float16),
                                 torch.zeros(4, dtype=torch.float16), torch.zeros(4), 37, 4096,
                                 4096, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, PRECISION="ieee",
                                 ACC=tl.float32, num_warps=4, num_stages=3, grid=(1,), arch=arch)
    ptx = k.asm["ptx"]
    assert re.search(r"\.target (\S+)", ptx).group(1) == target
    assert k.metadata["capability"] == int(arch[2:])
    assert ("wgmma" in ptx) == (arch == "sm90") and ("mma.sync" in ptx) == (arch != "sm90")
    assert "cp.async" in ptx and k.metadata["spill_stores"] == 0
    assert f'tilegpu.target = "cuda:{arch[2:]}"' in k.asm["tilegpu"]


def test_option_errors_are_also_assertion_errors_as_in_triton():
    """Triton raises AssertionError for the same checks; a ValueError too."""
    from warpforge.compiler.options import InvalidOption
    with pytest.raises(AssertionError, match="must be a power of 2"):
        KernelOptions(num_warps=3)
    with pytest.raises(ValueError, match="must be a power of 2"):
        KernelOptions(num_warps=3)
    assert issubclass(InvalidOption, ValueError) and issubclass(InvalidOption, AssertionError)


def test_maxnreg_is_the_kernels_maxnreg_directive(monkeypatch):
    """maxnreg= (any count, as Triton's) is `.maxnreg` on the kernel's entry
    in the PTX, not on device functions it calls (Triton's test_maxnreg), and
    not a ptxas flag; a module attribute carries it to the lowering."""
    import re
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")

    @warpforge.jit(noinline=True)
    def helper(x_ptr):
        tl.store(x_ptr, 1)

    @warpforge.jit
    def kernel(x_ptr):
        helper(x_ptr)
        tl.store(x_ptr, 0)

    x = np.zeros(1, np.int32)
    k = kernel.warmup(x, maxnreg=42, grid=(1,))
    assert re.search(r"\.visible \.entry [^{;]*\.maxnreg 42", k.asm["ptx"])
    assert not re.search(r"\.func [^{;]*\.maxnreg", k.asm["ptx"])
    assert "tilegpu.maxnreg = 42" in k.asm["tilegpu"]
    assert k.metadata["registers"] <= 42
    assert ".maxnreg" not in kernel.warmup(x, grid=(1,)).asm["ptx"]



@pytest.mark.parametrize("ftz", [True, False])
def test_enable_reflect_ftz(ftz, monkeypatch):
    """enable_reflect_ftz (Triton's option; its test_enable_reflect_ftz):
    libdevice flushes denormals, and tl.math.exp2 is ex2.approx.ftz.f32;
    on by default, as in Triton."""
    import re
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")

    @warpforge.jit
    def exp2(data):
        ptrs = data + tl.arange(0, 128)
        tl.store(ptrs, tl.math.exp2(tl.load(ptrs)))

    k = exp2.warmup(F32.repeat(2), grid=(1,), enable_reflect_ftz=ftz)
    assert (re.search(r"ex2\.approx\.ftz\.f32", k.asm["ptx"]) is not None) == ftz
    assert f'!"nvvm-reflect-ftz", i32 {int(ftz)}' in k.asm["llir"]
    assert ("enable_reflect_ftz", ftz) in k.options.cache_key()
    assert DEFAULTS["enable_reflect_ftz"] is True
    with pytest.raises(ValueError, match="enable_reflect_ftz must be True or False"):
        KernelOptions(enable_reflect_ftz=1)


def test_clusters_before_sm90_are_an_error_in_tritons_words():
    with pytest.raises(ValueError, match=r"num_ctas > 1 requires NVIDIA SM90\+ \(Hopper\)"):
        KernelOptions(num_ctas=2, arch="sm80")
    assert KernelOptions(num_ctas=2, arch="sm90").num_ctas == 2
