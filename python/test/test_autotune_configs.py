"""warpforge.Config, and what the autotuner does around each config:
reset_to_zero, restore_value and hooks, and compiling the configs (in
parallel, once each) before benchmarking them. test_autotune.py says how
these tests run and where the autotuner's other tests are.
"""

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge.compiler.compiler import CompiledKernel
from warpforge.errors import OutOfResources

from autotune_helpers import BLOCK_CONFIGS, BLOCK_COST, N, FakeBench, poisoned, rand

pytestmark = pytest.mark.usefixtures("autotune_isolated")


@triton.jit
def accumulate(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    """out += x with atomics: every run adds to what the last one left."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.atomic_add(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def double_in_place(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2, mask=mask)


# ---------------------------------------------------------------------------
# Config
# ---------------------------------------------------------------------------


def test_config_str_lists_meta_parameters_then_options():
    c = triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8)
    assert str(c) == "BLOCK_M: 128, BLOCK_N: 64, num_warps: 8, num_stages: 3"
    assert repr(c) == f"Config({c})"
    ws = triton.Config({"BLOCK_M": 128}, num_warps=4, num_stages=4, num_consumer_groups=2,
                       num_buffers_warp_spec=3, maxnreg=128)
    assert str(ws) == ("BLOCK_M: 128, num_warps: 4, num_stages: 4, num_consumer_groups: 2, "
                       "num_buffers_warp_spec: 3, maxnreg: 128")


def test_ping_pong_config_round_trips():
    """ping_pong beside the other warp-specialization knobs: shown by
    str/repr when set, in the identity (the disk cache's name) and the
    launch keywords, and a config of its own (not equal to the cooperative
    one)."""
    kwargs = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128}
    pp = triton.Config(kwargs, num_warps=4, num_stages=3, ping_pong=True, num_consumer_groups=2,
                       num_buffers_warp_spec=3)
    assert str(pp) == ("BLOCK_SIZE_M: 128, BLOCK_SIZE_N: 128, num_warps: 4, num_stages: 3, "
                       "num_consumer_groups: 2, num_buffers_warp_spec: 3, ping_pong: True")
    assert repr(pp) == f"Config({pp})"
    assert pp.ping_pong is True
    assert pp.all_kwargs() == {**kwargs, "num_warps": 4, "num_stages": 3, "num_ctas": 1,
                               "num_consumer_groups": 2, "num_buffers_warp_spec": 3,
                               "ping_pong": True, "launch_pdl": False,
                               "launch_cooperative_grid": False}
    assert ("ping_pong", True) in eval(pp.identity())[1]
    again = triton.Config(dict(kwargs), num_warps=4, num_stages=3, num_consumer_groups=2,
                          num_buffers_warp_spec=3, ping_pong=True)
    assert again == pp and hash(again) == hash(pp) and again.identity() == pp.identity()
    cooperative = triton.Config(kwargs, num_warps=4, num_stages=3, num_consumer_groups=2,
                                num_buffers_warp_spec=3)
    assert "ping_pong" not in str(cooperative) and cooperative.ping_pong is False
    assert cooperative != pp and cooperative.identity() != pp.identity()
    # A Config made from another's fields (as tests and benchmarks copy one).
    copy = triton.Config(dict(pp.kwargs), **{k: v for k, v in pp.all_kwargs().items()
                                             if k not in pp.kwargs})
    assert copy == pp and str(copy) == str(pp)


def test_config_all_kwargs_leaves_out_unset_options():
    c = triton.Config({"BLOCK": 64}, num_warps=2, num_stages=5)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 2, "num_stages": 5, "num_ctas": 1,
                              "num_consumer_groups": 0, "num_buffers_warp_spec": 0,
                              "ping_pong": False, "launch_pdl": False,
                              "launch_cooperative_grid": False}
    assert triton.Config({}, maxnreg=96).all_kwargs()["maxnreg"] == 96


def test_configs_compare_by_value():
    a = triton.Config({"BLOCK": 64}, num_warps=2)
    assert a == triton.Config({"BLOCK": 64}, num_warps=2) and hash(a) == hash(
        triton.Config({"BLOCK": 64}, num_warps=2))
    assert a != triton.Config({"BLOCK": 64}, num_warps=4)
    assert a != triton.Config({"BLOCK": 128}, num_warps=2)


@pytest.mark.parametrize("options,message", [
    ({"num_warps": 3}, "num_warps must be a power of 2"),
    ({"num_stages": 0}, "num_stages must be at least 1"),
    ({"maxnreg": 300}, "maxnreg must be an int from 16 to 255"),
    ({"num_consumer_groups": 2}, "needs num_buffers_warp_spec > 0"),
    ({"ping_pong": True}, "ping_pong=True runs two consumer groups that take turns: set "
                          "num_consumer_groups=2"),
])
def test_bad_config_options_are_rejected_where_written(options, message):
    with pytest.raises(ValueError, match=r"Config\(BLOCK: 64, .*\): .*" + message):
        triton.Config({"BLOCK": 64}, **options)


# ---------------------------------------------------------------------------
# reset_to_zero, restore_value and hooks
# ---------------------------------------------------------------------------


def test_without_reset_every_benchmark_run_accumulates():
    bench = FakeBench(lambda meta: BLOCK_COST[meta["BLOCK"]])
    kernel = triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench)(accumulate)
    x, out = rand(N), rand(N)
    start = out.copy()
    kernel[bench.grid](x, out, N)
    np.testing.assert_allclose(out, start + 4 * x, rtol=1e-6)  # 3 benchmarks + the launch


def test_reset_to_zero_zeroes_before_each_benchmark_and_the_launch():
    zero_at_start = []

    def bench(fn):
        fn()
        zero_at_start.append(bool(np.all(out == x)))  # one run on a zeroed output
        return BLOCK_COST[sizes.pop(0)]

    sizes = [128, 256, 512]
    kernel = triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench,
                             reset_to_zero=["out_ptr"])(accumulate)
    x, out = rand(N), rand(N)
    kernel[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, out, N)
    assert zero_at_start == [True, True, True]
    np.testing.assert_array_equal(out, x)
    assert kernel.best_config is BLOCK_CONFIGS[1]
    kernel[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, out, N)  # tuned: no reset
    np.testing.assert_array_equal(out, 2 * x)


def test_restore_value_restores_after_each_benchmark():
    bench = FakeBench(lambda meta: BLOCK_COST[meta["BLOCK"]])
    kernel = triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench,
                             restore_value=["x_ptr"])(double_in_place)
    x = rand(N)
    start = x.copy()
    kernel[bench.grid](x, N)
    np.testing.assert_array_equal(x, 2 * start)  # only the real launch doubled it
    assert kernel.restore_copies == {}


def test_restore_value_restores_when_the_launch_fails(compiled, monkeypatch):
    def launch(kernel, grid, args, stream=None):
        x = args[0]
        if kernel.constants["BLOCK"] == 512:
            x[:] = -7.0  # wrote, then the launch failed
            raise OutOfResources(kernel.name, "registers per thread", 300, 255)
        x *= 2  # what the kernel does

    monkeypatch.setattr(CompiledKernel, "launch", launch)
    bench = FakeBench(lambda meta: BLOCK_COST[meta["BLOCK"]])
    kernel = triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench,
                             restore_value=["x_ptr"])(triton.jit(double_in_place.fn))
    x = rand(N)
    start = x.copy()
    kernel[bench.grid](x, N)
    assert kernel.best_config is BLOCK_CONFIGS[1]
    np.testing.assert_array_equal(x, 2 * start)


def test_user_hooks_replace_the_reset_and_see_every_argument():
    events = []

    def pre_hook(nargs, reset_only=False):
        events.append(("pre", nargs["BLOCK"], nargs["n"], reset_only))

    def post_hook(nargs, exception):
        events.append(("post", nargs["BLOCK"], exception))

    bench = FakeBench(lambda meta: BLOCK_COST[meta["BLOCK"]])
    kernel = triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench, reset_to_zero=["out_ptr"],
                             pre_hook=pre_hook, post_hook=post_hook)(accumulate)
    x, out = rand(N), rand(N)
    start = out.copy()
    kernel[bench.grid](x, out, N)
    assert events == [("pre", 128, N, False), ("post", 128, None),
                      ("pre", 256, N, False), ("post", 256, None),
                      ("pre", 512, N, False), ("post", 512, None),
                      ("pre", 256, N, True)]
    np.testing.assert_allclose(out, start + 4 * x, rtol=1e-6)  # the user hook did not reset


def test_config_pre_hook_runs_before_benchmarks_and_the_launch():
    seen = []
    configs = [triton.Config({"BLOCK": 128}, pre_hook=lambda nargs: seen.append(
        (nargs["BLOCK"], nargs["num_warps"]))), triton.Config({"BLOCK": 256})]
    bench = FakeBench(lambda meta: {128: 1.0, 256: 2.0}[meta["BLOCK"]])
    kernel = triton.autotune(configs, key=["n"], do_bench=bench)(accumulate)
    kernel[bench.grid](rand(N), rand(N), N)
    assert seen == [(128, 4), (128, 4)]


# ---------------------------------------------------------------------------
# Compiling the configs (no interpreter; a stand-in for the GPU launch)
# ---------------------------------------------------------------------------


def test_configs_compile_in_parallel_once_then_benchmark(compiled, capsys):
    configs = [triton.Config({"BLOCK": b}, num_warps=w)
               for b, w in [(256, 4), (1024, 4), (1024, 8), (4096, 8), (8192, 8)]]
    cost = {(256, 4): 3.0, (1024, 4): 1.5, (1024, 8): 2.0, (4096, 8): 0.5, (8192, 8): 0.25}
    bench = FakeBench(lambda meta: cost[meta["BLOCK"], meta["num_warps"]])
    kernel = triton.autotune(configs, key=["n"], do_bench=bench)(
        triton.jit(accumulate.fn))  # a fresh in-process cache
    kernel[bench.grid](rand(N), rand(N), N)
    # Each config compiled once, on the pool; the benchmarks and the launch
    # hit the JIT's cache.
    assert sorted(b for b, _ in compiled["compiles"]) == [256, 1024, 1024, 4096, 8192]
    assert all(name.startswith("warpforge-autotune") for _, name in compiled["compiles"])
    # 8192 failed to compile and was not benchmarked; 4096 compiled but
    # failed to launch; 1024 with 4 warps is the fastest of the rest.
    assert kernel.best_config is configs[1]
    assert compiled["launches"] == [(256, 4, (4, 1, 1)), (1024, 4, (1, 1, 1)),
                                    (1024, 8, (1, 1, 1)), (1024, 4, (1, 1, 1))]
    assert kernel.configs_timings == {configs[0]: 3.0, configs[1]: 1.5, configs[2]: 2.0,
                                      configs[3]: float("inf"), configs[4]: float("inf")}
    err = capsys.readouterr().err.splitlines()
    assert err[0] == ("autotune accumulate [n=1000]: skipped config (BLOCK: 8192, "
                      "num_warps: 8, num_stages: 3): OutOfResources: kernel "
                      "'accumulate' needs 327680 bytes of shared memory, but the limit "
                      "is 232448")
    assert err[1] == ("autotune accumulate [n=1000]: skipped config (BLOCK: 4096, "
                      "num_warps: 8, num_stages: 3): OutOfResources: kernel "
                      "'accumulate' needs 300 registers per thread, but the limit is 255")
    assert err[2].startswith("autotune accumulate [n=1000]: 5/5 configs, best 1.5 ms (BLOCK: "
                             "1024, num_warps: 4, num_stages: 3), 2 skipped, ")
    assert len(err) == 3


def test_parallel_compilation_matches_serial_compilation(compiled, monkeypatch):
    import zoo
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    configs = [triton.Config({"BLOCK_SIZE": b}, num_warps=w, num_stages=s)
               for b in (32, 64, 128, 256, 512, 1024) for w, s in ((4, 3), (8, 2))]
    tuned = triton.jit(zoo.layer_norm_fwd.fn)
    kernel = triton.autotune(configs, key=["N"], do_bench=lambda fn: (fn(), 1.0)[1])(tuned)
    rows, cols = 3, 77
    x, y = rand(rows * cols), poisoned(rows * cols)
    w, b, mean, rstd = rand(cols), rand(cols), poisoned(rows), poisoned(rows)
    kernel[(rows,)](x, y, w, b, mean, rstd, cols, cols, 1e-5)
    assert len(compiled["compiles"]) == len(configs) and len(tuned.cache) == len(configs)
    serial = triton.jit(zoo.layer_norm_fwd.fn)
    for config in configs:
        expected = serial.warmup(x, y, w, b, mean, rstd, cols, cols, 1e-5, **config.all_kwargs())
        (got,) = [k for k in tuned.cache.values()
                  if k.constants["BLOCK_SIZE"] == config.kwargs["BLOCK_SIZE"]
                  and k.options.num_warps == config.num_warps]
        assert got.asm["tile"] == expected.asm["tile"]


@triton.jit
def desc_copy(src, dst, n, BLOCK: tl.constexpr):
    x = src.load([0, 0])
    dst.store([0, 0], x)


def test_pre_hook_block_shapes_reach_each_configs_compile(compiled):
    """Tutorials 06 and 09: descriptors made with a dummy [1, 1] block whose
    config's pre_hook sets the block shape. Each config compiles (on the
    pool, in parallel) for the block shape its own hook sets, on copies of
    the descriptors, so no config sees another's and none compiles for the
    dummy block (which the TMA refuses); the benchmarks and the launch run
    the hook on the real descriptors."""
    from warpforge.tools.tensor_descriptor import TensorDescriptor

    def aligned():
        raw = np.zeros(64 * 64 * 4 + 16, np.uint8)
        start = (-raw.ctypes.data) % 16
        return raw[start:start + 64 * 64 * 4].view(np.float32).reshape(64, 64)

    def set_blocks(nargs):
        for name in ("src", "dst"):
            nargs[name].block_shape = [nargs["BLOCK"], nargs["BLOCK"]]

    configs = [triton.Config({"BLOCK": b}, pre_hook=set_blocks) for b in (8, 16, 32)]
    bench = FakeBench(lambda meta: {8: 3.0, 16: 1.0, 32: 2.0}[meta["BLOCK"]])
    kernel = triton.autotune(configs, key=["n"], do_bench=bench)(triton.jit(desc_copy.fn))
    src, dst = (TensorDescriptor.from_tensor(aligned(), [1, 1]) for _ in range(2))
    kernel[bench.grid](src, dst, 64)
    assert sorted(b for b, _ in compiled["compiles"]) == [8, 16, 32]
    assert kernel.configs_timings == {configs[0]: 3.0, configs[1]: 1.0, configs[2]: 2.0}
    assert kernel.best_config is configs[1]
    compiled_blocks = sorted(k.signature["src"] for k in kernel.fn.cache.values())
    assert compiled_blocks == ["tensordesc<fp32[16, 16]>", "tensordesc<fp32[32, 32]>",
                               "tensordesc<fp32[8, 8]>"]
    assert src.block_shape == dst.block_shape == [16, 16]  # the launch's hook ran last
