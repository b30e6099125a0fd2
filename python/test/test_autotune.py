"""@warpforge.autotune, @warpforge.heuristics, warpforge.Config and
warpforge.testing.

On the CPU the kernels run on the interpreter (or, for the compile path,
against a stand-in for the GPU launch) and a fake do_bench returns a fixed
time per config: it runs the call once and prices the META dict that the
launch grid received, so a timing belongs to the config that really ran.
Inputs are random and non-zero, sizes odd, outputs poisoned before launch.
"""

import io
import json
import os
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge import testing
from warpforge.compiler.compiler import CompiledKernel
from warpforge.errors import AutotuneError, OutOfResources

jit_module = sys.modules["warpforge.runtime.jit"]

N = 1000
RNG = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch, tmp_path):
    """Interpreted kernels, a private disk cache, default printing."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("WARPFORGE_AUTOTUNE_QUIET", "WARPFORGE_CACHE_AUTOTUNING",
                 "WARPFORGE_ALWAYS_COMPILE"):
        monkeypatch.delenv(name, raising=False)


def rand(n, dtype=np.float32):
    v = RNG.uniform(0.5, 2.0, n).astype(dtype)
    return np.where(RNG.random(n) < 0.5, -v, v).astype(dtype)


def poisoned(n, dtype=np.float32):
    return np.full(n, np.nan, dtype)


@triton.jit
def add_tagged(x_ptr, y_ptr, out_ptr, n, TAG: tl.constexpr, BLOCK: tl.constexpr):
    """out = x + y + TAG: the output says which config ran."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + TAG, mask=mask)


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


@triton.jit
def add_small_blocks(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 1024, "BLOCK is too large for this kernel")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


class FakeBench:
    """do_bench stand-in: runs `fn` once and returns `cost(meta)` for the
    META that the launch grid saw."""

    def __init__(self, cost):
        self.cost = cost
        self.metas = []  # every META a grid received, benchmarks and launches
        self.calls = 0

    def grid(self, meta):
        self.metas.append(dict(meta))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    def __call__(self, fn):
        self.calls += 1
        seen = len(self.metas)
        fn()
        assert len(self.metas) == seen + 1, "the benchmarked call launched nothing"
        return self.cost(self.metas[-1])


def never_bench(fn):
    raise AssertionError("benchmarked although the result should have been reused")


TAG_CONFIGS = [triton.Config({"TAG": 1, "BLOCK": 128}),
               triton.Config({"TAG": 2, "BLOCK": 256}, num_warps=8),
               triton.Config({"TAG": 3, "BLOCK": 512}, num_stages=2)]
TAG_COST = {1: 3.0, 2: 0.5, 3: 1.25}


def tuned_add(bench, key=("n",), configs=TAG_CONFIGS, **kwargs):
    return triton.autotune(configs, key=list(key), do_bench=bench, **kwargs)(add_tagged)


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


def test_config_all_kwargs_leaves_out_unset_options():
    c = triton.Config({"BLOCK": 64}, num_warps=2, num_stages=5)
    assert c.all_kwargs() == {"BLOCK": 64, "num_warps": 2, "num_stages": 5, "num_ctas": 1,
                              "num_consumer_groups": 0, "num_buffers_warp_spec": 0}
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
    ({"maxnreg": 100}, "maxnreg must be a multiple of 8"),
    ({"num_consumer_groups": 2}, "needs num_buffers_warp_spec > 0"),
])
def test_bad_config_options_are_rejected_where_written(options, message):
    with pytest.raises(ValueError, match=r"Config\(BLOCK: 64, .*\): .*" + message):
        triton.Config({"BLOCK": 64}, **options)


# ---------------------------------------------------------------------------
# Tuning and the in-memory cache
# ---------------------------------------------------------------------------


def test_fastest_config_is_chosen_and_used():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench)
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert bench.calls == 3
    assert kernel.best_config is TAG_CONFIGS[1]
    np.testing.assert_array_equal(out, x + y + np.float32(2))
    assert kernel.configs_timings == {TAG_CONFIGS[0]: 3.0, TAG_CONFIGS[1]: 0.5,
                                      TAG_CONFIGS[2]: 1.25}
    assert kernel.bench_time is not None and kernel.bench_time >= 0


def test_grid_receives_the_configs_meta_parameters_and_options():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench)
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    benched = bench.metas[:3]
    assert [(m["TAG"], m["BLOCK"], m["num_warps"], m["num_stages"]) for m in benched] == [
        (1, 128, 4, 3), (2, 256, 8, 3), (3, 512, 4, 2)]
    launch = bench.metas[3]
    assert (launch["TAG"], launch["BLOCK"], launch["num_warps"], launch["n"]) == (2, 256, 8, N)


def test_same_key_reuses_the_choice_and_a_new_key_retunes():
    # Which config wins depends on n: the retune must really happen.
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]] if meta["n"] == N
                      else {1: 0.1, 2: 0.9, 3: 0.5}[meta["TAG"]])
    kernel = tuned_add(bench)
    x, y = rand(N + 2), rand(N + 2)
    kernel[bench.grid](x, y, poisoned(N + 2), N)
    kernel[bench.grid](x, y, poisoned(N + 2), N)
    assert bench.calls == 3 and len(kernel.cache) == 1
    out = poisoned(N + 2)
    kernel[bench.grid](x, y, out, N + 1)
    assert bench.calls == 6 and kernel.best_config is TAG_CONFIGS[0]
    np.testing.assert_array_equal(out[:N + 1], (x + y + np.float32(1))[:N + 1])
    assert np.isnan(out[N + 1])
    kernel[bench.grid](x, y, poisoned(N + 2), N)  # back to the first key: remembered
    assert bench.calls == 6 and kernel.best_config is TAG_CONFIGS[1]


def test_tensor_dtypes_are_part_of_the_key():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench)
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    x16, y16, out16 = rand(N, np.float16), rand(N, np.float16), poisoned(N, np.float16)
    kernel[bench.grid](x16, y16, out16, N)
    assert bench.calls == 6
    assert sorted(kernel.cache) == [(N, "float16", "float16", "float16"),
                                    (N, "float32", "float32", "float32")]
    np.testing.assert_array_equal(out16, x16 + y16 + np.float16(2))


def test_key_arguments_passed_by_keyword_or_default():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench)
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x_ptr=x, y_ptr=y, out_ptr=out, n=N)
    kernel[bench.grid](x, y, out, n=N)
    assert bench.calls == 3 and list(kernel.cache) == [(N, "float32", "float32", "float32")]
    np.testing.assert_array_equal(out, x + y + np.float32(2))


def test_ties_go_to_the_first_config():
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench)
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    assert kernel.best_config is TAG_CONFIGS[0]


def test_a_single_config_is_not_benchmarked():
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench, configs=[TAG_CONFIGS[2]])
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert bench.calls == 0 and kernel.best_config is TAG_CONFIGS[2]
    np.testing.assert_array_equal(out, x + y + np.float32(3))


def test_passing_a_tuned_parameter_at_launch_is_an_error():
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench)
    with pytest.raises(ValueError, match="TAG is set by the autotuner's configs"):
        kernel[bench.grid](rand(N), rand(N), poisoned(N), N, TAG=5)
    with pytest.raises(ValueError, match="num_warps is set by the autotuner's configs"):
        kernel[bench.grid](rand(N), rand(N), poisoned(N), N, num_warps=2)


def test_default_benchmark_times_interpreted_kernels_on_the_host_clock():
    kernel = triton.autotune([triton.Config({"TAG": 1, "BLOCK": 256}),
                              triton.Config({"TAG": 1, "BLOCK": 1024})],
                             key=["n"], warmup=0, rep=1)(add_tagged)
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, out, N)
    np.testing.assert_array_equal(out, x + y + np.float32(1))
    timings = list(kernel.configs_timings.values())
    assert len(timings) == 2 and all(0 < t < float("inf") for t in timings)


# ---------------------------------------------------------------------------
# Pruning
# ---------------------------------------------------------------------------


def test_early_config_prune_sees_the_arguments_and_limits_the_benchmark():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    seen = {}

    def prune(configs, named_args, **kwargs):
        seen.update(named_args=dict(named_args), kwargs=kwargs)
        return [c for c in configs if c.kwargs["BLOCK"] < named_args["n"] // 3]

    kernel = tuned_add(bench, prune_configs_by={"early_config_prune": prune})
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, n=N)
    assert seen["named_args"]["n"] == N and seen["named_args"]["x_ptr"] is x
    assert seen["kwargs"] == {"n": N}
    assert [m["TAG"] for m in bench.metas[:-1]] == [1, 2]  # BLOCK 512 >= 333: pruned
    assert kernel.best_config is TAG_CONFIGS[1]


def test_early_config_prune_to_one_config_skips_the_benchmark():
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench, prune_configs_by={
        "early_config_prune": lambda configs, nargs, **kw: configs[2:]})
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert bench.calls == 0 and kernel.best_config is TAG_CONFIGS[2]
    np.testing.assert_array_equal(out, x + y + np.float32(3))


def test_early_config_prune_to_nothing_is_an_error():
    kernel = tuned_add(FakeBench(lambda meta: 1.0), prune_configs_by={
        "early_config_prune": lambda configs, nargs, **kw: []})
    with pytest.raises(AutotuneError, match="early_config_prune left no config"):
        kernel[lambda meta: (1,)](rand(N), rand(N), poisoned(N), N)


@pytest.mark.parametrize("top_k", [2, 0.67])
def test_perf_model_keeps_the_top_k_estimates(top_k):
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    estimates = []

    def perf_model(**meta):
        estimates.append(meta)
        return {1: 5.0, 2: 9.0, 3: 1.0}[meta["TAG"]]  # a model that misjudges TAG 2

    kernel = tuned_add(bench, prune_configs_by={"perf_model": perf_model, "top_k": top_k})
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert len(estimates) == 3 and estimates[0]["n"] == N and estimates[1]["num_warps"] == 8
    assert [m["TAG"] for m in bench.metas[:-1]] == [3, 1]  # lowest estimate first
    assert kernel.best_config is TAG_CONFIGS[2]
    np.testing.assert_array_equal(out, x + y + np.float32(3))


def test_perf_model_without_top_k_keeps_every_config():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench, prune_configs_by={"perf_model": lambda **meta: meta["TAG"]})
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    assert bench.calls == 3 and kernel.best_config is TAG_CONFIGS[1]


# ---------------------------------------------------------------------------
# reset_to_zero, restore_value and hooks
# ---------------------------------------------------------------------------


BLOCK_CONFIGS = [triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256}),
                 triton.Config({"BLOCK": 512})]
BLOCK_COST = {128: 2.0, 256: 1.0, 512: 3.0}


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
# Configs that fail
# ---------------------------------------------------------------------------


def test_config_out_of_resources_at_launch_is_skipped_with_a_note(capsys):
    def over_limit(nargs):
        raise OutOfResources("add_tagged", "bytes of shared memory", 262144, 232448,
                             "use a smaller BLOCK")

    configs = [TAG_CONFIGS[0], triton.Config({"TAG": 2, "BLOCK": 256}, pre_hook=over_limit),
               TAG_CONFIGS[2]]
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench, configs=configs)
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert kernel.best_config is TAG_CONFIGS[2]
    np.testing.assert_array_equal(out, x + y + np.float32(3))
    assert kernel.configs_timings[configs[1]] == float("inf")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == (
        "autotune add_tagged [n=1000]: skipped config (TAG: 2, BLOCK: 256, num_warps: 4, "
        "num_stages: 3): OutOfResources: kernel 'add_tagged' needs 262144 bytes of shared "
        "memory, but the limit is 232448; use a smaller BLOCK")
    assert lines[1].startswith("autotune add_tagged [n=1000]: 3/3 configs, best 1.25 ms "
                               "(TAG: 3, BLOCK: 512, num_warps: 4, num_stages: 2), 1 skipped, ")
    assert len(lines) == 2


def test_static_assert_failure_skips_the_config_under_the_interpreter(capsys):
    configs = [triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 2048})]
    bench = FakeBench(lambda meta: {256: 2.0, 2048: 1.0}[meta["BLOCK"]])
    kernel = triton.autotune(configs, key=["n"], do_bench=bench)(add_small_blocks)
    x, out = rand(N), poisoned(N)
    kernel[bench.grid](x, out, N)
    assert kernel.best_config is configs[0]
    np.testing.assert_array_equal(out, x + 1)
    note = capsys.readouterr().err.splitlines()[0]
    assert note == ("autotune add_small_blocks [n=1000]: skipped config (BLOCK: 2048, "
                    "num_warps: 4, num_stages: 3): SemanticError: static_assert failed: "
                    "BLOCK is too large for this kernel")


def test_every_config_failing_raises_with_each_reason():
    def over(nargs):
        raise OutOfResources("add_tagged", "registers", 300, 255)

    configs = [triton.Config({"TAG": 1, "BLOCK": 128}, pre_hook=over),
               triton.Config({"TAG": 2, "BLOCK": 256}, num_warps=8, pre_hook=over)]
    kernel = tuned_add(FakeBench(lambda meta: 1.0), configs=configs)
    with pytest.raises(AutotuneError) as info:
        kernel[lambda meta: (1,)](rand(N), rand(N), poisoned(N), N)
    message = str(info.value)
    assert "add_tagged (" in message and "[n=1000]: every config failed:" in message
    assert ("  TAG: 1, BLOCK: 128, num_warps: 4, num_stages: 3: OutOfResources: kernel "
            "'add_tagged' needs 300 registers, but the limit is 255") in message
    assert "  TAG: 2, BLOCK: 256, num_warps: 8, num_stages: 3: OutOfResources" in message
    assert [c for c, _ in info.value.failures] == configs
    assert not kernel.cache


def test_other_kernel_errors_are_not_swallowed():
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench)
    with pytest.raises(TypeError, match="not a tensor, an array"):
        kernel[bench.grid](rand(N), rand(N), "not an array", N)


# ---------------------------------------------------------------------------
# The compile path (no interpreter; a stand-in for the GPU launch)
# ---------------------------------------------------------------------------


@pytest.fixture
def compiled(monkeypatch):
    """Compiles for real (counting, by thread), launches through a stand-in
    that refuses kernels whose BLOCK the 'GPU' cannot load."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    record = {"compiles": [], "launches": []}
    real = jit_module.compile_kernel

    def compile_kernel(fn, signature, constants, divisibility=None, options=None):
        record["compiles"].append((constants.get("BLOCK"), threading.current_thread().name))
        if constants.get("BLOCK") == 8192:
            raise OutOfResources(fn.__name__, "bytes of shared memory", 8192 * 40, 232448)
        return real(fn, signature, constants, divisibility, options)

    def launch(kernel, grid, args, stream=None):
        block = kernel.constants.get("BLOCK", 0)
        if block >= 4096:
            raise OutOfResources(kernel.name, "registers per thread", 300, 255)
        record["launches"].append((block, kernel.options.num_warps, grid))

    monkeypatch.setattr(jit_module, "compile_kernel", compile_kernel)
    monkeypatch.setattr(CompiledKernel, "launch", launch)
    return record


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


def test_compilation_errors_skip_the_config(compiled, capsys):
    # Under the compiler the failed static_assert is a CompilationError.
    bench = FakeBench(lambda meta: 1.0)
    kernel = triton.autotune([triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 2048})],
                             key=["n"], do_bench=bench)(triton.jit(add_small_blocks.fn))
    kernel[bench.grid](rand(N), poisoned(N), N)
    assert bench.calls == 1  # the config that did not compile is not benchmarked
    assert kernel.best_config.kwargs == {"BLOCK": 256}
    note = capsys.readouterr().err.splitlines()[0]
    assert note.startswith("autotune add_small_blocks [n=1000]: skipped config (BLOCK: 2048, "
                           "num_warps: 4, num_stages: 3): CompilationError: ")
    assert note.endswith("test_autotune.py:{}:{}: static_assert failed: BLOCK is too large "
                         "for this kernel".format(*static_assert_position()))


def static_assert_position():
    fn = add_small_blocks
    index = next(i for i, l in enumerate(fn.source_lines) if "static_assert" in l)
    line = fn.source_lines[index]
    return fn.first_line + index, len(line) - len(line.lstrip()) + 1


def test_autotuner_warmup_compiles_each_config(compiled):
    kernel = triton.autotune([triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})],
                             key=["n"])(triton.jit(add_small_blocks.fn))
    kernels = kernel.warmup(rand(N), poisoned(N), N)
    assert [k.constants["BLOCK"] for k in kernels] == [128, 256]
    assert all("@add_small_blocks" in k.asm["tile"] for k in kernels)
    assert compiled["launches"] == []


# ---------------------------------------------------------------------------
# Progress lines
# ---------------------------------------------------------------------------


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_is_one_final_line_when_stderr_is_not_a_terminal(capsys):
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench)
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\r" not in err
    assert err.startswith("autotune add_tagged [n=1000]: 3/3 configs, best 0.5 ms "
                          "(TAG: 2, BLOCK: 256, num_warps: 8, num_stages: 3), ")
    assert err.endswith(" s\n")
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)  # tuned: silent
    assert capsys.readouterr().err == ""


def test_progress_line_is_rewritten_in_place_on_a_terminal(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "200")
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(bench, key=("n", "x_ptr"))
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    text = terminal.getvalue()
    frames = text.split("\r\x1b[K")
    prefix = "autotune add_tagged [n=1000, x_ptr=float32]: "
    assert frames[0] == ""
    assert frames[1:5] == [
        prefix + "0/3 configs",
        prefix + "1/3 configs, best 3 ms (TAG: 1, BLOCK: 128, num_warps: 4, num_stages: 3)",
        prefix + "2/3 configs, best 0.5 ms (TAG: 2, BLOCK: 256, num_warps: 8, num_stages: 3)",
        prefix + "3/3 configs, best 0.5 ms (TAG: 2, BLOCK: 256, num_warps: 8, num_stages: 3)"]
    assert frames[5].startswith(prefix + "3/3 configs, best 0.5 ms") and frames[5].endswith("\n")
    assert len(frames) == 6


def test_progress_line_fits_the_terminal(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "60")
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    tuned_add(bench)[bench.grid](rand(N), rand(N), poisoned(N), N)
    *statuses, final = terminal.getvalue().split("\r\x1b[K")[1:]
    assert statuses[1] == "autotune add_tagged [n=1000]: 1/3 configs, best 3 ms (TAG: "
    assert all(len(line) <= 59 for line in statuses)
    assert final.startswith("autotune add_tagged [n=1000]: 3/3 configs, best 0.5 ms (TAG: 2, "
                            "BLOCK: 256, num_warps: 8, num_stages: 3), ")  # whole
    assert final.endswith(" s\n")


def test_quiet_silences_progress_and_notes(monkeypatch, capsys):
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")

    def over(nargs):
        raise OutOfResources("add_tagged", "registers", 300, 255)

    configs = [TAG_CONFIGS[0], triton.Config({"TAG": 2, "BLOCK": 256}, pre_hook=over)]
    bench = FakeBench(lambda meta: 1.0)
    kernel = tuned_add(bench, configs=configs)
    kernel[bench.grid](rand(N), rand(N), poisoned(N), N)
    assert capsys.readouterr().err == ""


# ---------------------------------------------------------------------------
# cache_results: timings on disk
# ---------------------------------------------------------------------------


def timing_entries(tmp_path):
    found = []
    for path in (tmp_path / "cache").rglob("*.json"):
        payload = json.loads(path.read_text())["payload"]
        if "timings" in payload:
            found.append(payload)
    return found


def test_cached_timings_are_reused_by_a_new_autotuner(tmp_path, capsys):
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    first = tuned_add(bench, cache_results=True)
    first[bench.grid](rand(N), rand(N), poisoned(N), N)
    assert bench.calls == 3
    (entry,) = timing_entries(tmp_path)
    assert entry["kernel"] == "add_tagged" and entry["device"] == "interpreter"
    assert [t["ms"] for t in entry["timings"]] == [3.0, 0.5, 1.25]
    capsys.readouterr()

    second = tuned_add(never_bench, cache_results=True)  # another process would do this
    x, y, out = rand(N), rand(N), poisoned(N)
    second[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](x, y, out, N)
    assert second.best_config is TAG_CONFIGS[1]
    assert second.configs_timings == first.configs_timings
    np.testing.assert_array_equal(out, x + y + np.float32(2))
    assert capsys.readouterr().err == (
        "autotune add_tagged [n=1000]: best 0.5 ms (TAG: 2, BLOCK: 256, num_warps: 8, "
        "num_stages: 3) of 3 configs, from the disk cache\n")


def test_env_variable_turns_on_cache_results(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPFORGE_CACHE_AUTOTUNING", "1")
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    tuned_add(bench)[bench.grid](rand(N), rand(N), poisoned(N), N)
    second = tuned_add(never_bench)
    second[lambda meta: (triton.cdiv(N, meta["BLOCK"]),)](rand(N), rand(N), poisoned(N), N)
    assert second.best_config is TAG_CONFIGS[1]


def test_without_cache_results_nothing_is_stored(tmp_path):
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    tuned_add(bench)[bench.grid](rand(N), rand(N), poisoned(N), N)
    assert timing_entries(tmp_path) == []


@pytest.mark.parametrize("change", ["key", "configs", "dtype"])
def test_cached_timings_are_not_reused_for_another_key_or_config_set(change):
    cost = {**TAG_COST, 4: 9.0}
    bench = FakeBench(lambda meta: cost[meta["TAG"]])
    x, y = rand(N + 2), rand(N + 2)
    tuned_add(bench, cache_results=True)[bench.grid](x, y, poisoned(N + 2), N)
    configs = TAG_CONFIGS + [triton.Config({"TAG": 4, "BLOCK": 64})] if change == "configs" \
        else TAG_CONFIGS
    if change == "dtype":
        x, y = x.astype(np.float16), y.astype(np.float16)
    again = FakeBench(lambda meta: cost[meta["TAG"]])
    kernel = tuned_add(again, configs=configs, cache_results=True)
    kernel[again.grid](x, y, poisoned(N + 2, x.dtype), N + 1 if change == "key" else N)
    assert again.calls == len(configs)


def test_corrupt_cached_timings_are_measured_again(tmp_path):
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    tuned_add(bench, cache_results=True)[bench.grid](rand(N), rand(N), poisoned(N), N)
    (path,) = [p for p in (tmp_path / "cache").rglob("*.json")
               if "timings" in json.loads(p.read_text())["payload"]]
    entry = json.loads(path.read_text())
    entry["payload"]["timings"][1]["ms"] = 99.0  # no longer matches its checksum
    path.write_text(json.dumps(entry))
    again = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = tuned_add(again, cache_results=True)
    kernel[again.grid](rand(N), rand(N), poisoned(N), N)
    assert again.calls == 3 and kernel.best_config is TAG_CONFIGS[1]


TUNED_MODULE = textwrap.dedent("""
    import sys
    import numpy as np
    import warpforge as triton
    import warpforge.language as tl

    calls = []

    def bench(fn):
        calls.append(1)
        fn()
        return {128: 2.0, 512: 0.25, 1024: 1.0}[blocks.pop(0)]

    blocks = [128, 512, 1024]

    @triton.autotune([triton.Config({"BLOCK": b}) for b in (128, 512, 1024)], key=["n"],
                     do_bench=bench, cache_results=True)
    @triton.jit
    def scale(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 3, mask=mask)

    x = np.arange(1, 1001, dtype=np.float32)
    out = np.full(1000, np.nan, np.float32)
    scale[lambda meta: (triton.cdiv(1000, meta["BLOCK"]),)](x, out, 1000)
    assert np.array_equal(out, x * 3)
    print(len(calls), scale.best_config.kwargs["BLOCK"])
""")


def test_cached_timings_are_reused_by_a_new_process(tmp_path):
    script = tmp_path / "tuned.py"
    script.write_text(TUNED_MODULE)
    env = dict(os.environ, WARPFORGE_INTERPRET="1", WARPFORGE_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join(sys.path))
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                           text=True, timeout=120) for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert runs[0].stdout.split() == ["3", "512"]
    assert runs[1].stdout.split() == ["0", "512"]
    assert "from the disk cache" in runs[1].stderr


# ---------------------------------------------------------------------------
# heuristics
# ---------------------------------------------------------------------------


def test_heuristics_compute_meta_parameters_from_the_arguments():
    seen = []

    @triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"]) // 4,
                        "TAG": lambda args: 5 if args["BLOCK"] >= 256 else 6})
    @triton.jit
    def kernel(x_ptr, y_ptr, out_ptr, n, TAG: tl.constexpr, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask)
                 + tl.load(y_ptr + offs, mask=mask) + TAG, mask=mask)

    def grid(meta):
        seen.append((meta["BLOCK"], meta["TAG"]))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[grid](x, y, out, N)
    assert seen == [(256, 5)]
    np.testing.assert_array_equal(out, x + y + np.float32(5))
    out = poisoned(N)
    kernel[grid](x, y, out, 300)
    assert seen[-1] == (128, 6)
    np.testing.assert_array_equal(out[:300], (x + y + np.float32(6))[:300])
    assert np.isnan(out[300:]).all()


def test_autotune_over_heuristics():
    bench = FakeBench(lambda meta: {1: 2.0, 2: 1.0}[meta["TAG"]])
    kernel = triton.autotune([triton.Config({"TAG": 1}), triton.Config({"TAG": 2})], key=["n"],
                             do_bench=bench)(triton.heuristics(
                                 {"BLOCK": lambda args: 128 * args["TAG"]})(add_tagged))
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert [(m["TAG"], m["BLOCK"]) for m in bench.metas] == [(1, 128), (2, 256), (2, 256)]
    np.testing.assert_array_equal(out, x + y + np.float32(2))


def test_heuristics_over_autotune():
    bench = FakeBench(lambda meta: BLOCK_COST[meta["BLOCK"]])
    kernel = triton.heuristics({"TAG": lambda args: args["n"] % 7})(
        triton.autotune(BLOCK_CONFIGS, key=["n"], do_bench=bench)(add_tagged))
    x, y, out = rand(N), rand(N), poisoned(N)
    kernel[bench.grid](x, y, out, N)
    assert kernel.fn.best_config is BLOCK_CONFIGS[1]
    np.testing.assert_array_equal(out, x + y + np.float32(N % 7))


# ---------------------------------------------------------------------------
# Errors at decoration
# ---------------------------------------------------------------------------


def test_key_must_name_parameters():
    with pytest.raises(ValueError, match=r"autotune\(key=...\): 'm' is not a parameter of "
                       r"add_tagged \(.*test_autotune.py:\d+\); its parameters are x_ptr, "
                       "y_ptr, out_ptr, n, TAG, BLOCK"):
        triton.autotune(TAG_CONFIGS, key=["m"])(add_tagged)


def test_a_key_given_as_a_string_is_one_name():
    bench = FakeBench(lambda meta: TAG_COST[meta["TAG"]])
    kernel = triton.autotune(TAG_CONFIGS, key="n", do_bench=bench)(add_tagged)
    assert kernel.keys == ["n"]


def test_config_meta_parameters_must_be_parameters():
    with pytest.raises(ValueError, match=r"Config\(BLOCK_SIZE: 64, num_warps: 4, num_stages: "
                       r"3\): 'BLOCK_SIZE' is not a parameter of add_tagged"):
        triton.autotune([triton.Config({"BLOCK_SIZE": 64})], key=["n"])(add_tagged)


@pytest.mark.parametrize("argument,value,error,message", [
    ("reset_to_zero", ["out"], ValueError, r"reset_to_zero=...\): 'out' is not a parameter"),
    ("restore_value", ["x"], ValueError, r"restore_value=...\): 'x' is not a parameter"),
    ("prune_configs_by", {"topk": 2}, ValueError, "unknown field.* topk; the fields are"),
    ("prune_configs_by", {"top_k": 0}, TypeError, "top_k must be a fraction"),
    ("prune_configs_by", {"top_k": "2"}, TypeError, "top_k must be a fraction"),
])
def test_bad_autotune_arguments(argument, value, error, message):
    with pytest.raises(error, match=message):
        triton.autotune(TAG_CONFIGS, key=["n"], **{argument: value})(add_tagged)


def test_autotune_needs_a_jit_function():
    with pytest.raises(TypeError, match="decorates a @warpforge.jit function"):
        triton.autotune(TAG_CONFIGS, key=["n"])(lambda x: x)
    with pytest.raises(TypeError, match="must be warpforge.Config objects"):
        triton.autotune([{"BLOCK": 64}], key=["n"])(add_tagged)


def test_heuristics_must_name_parameters():
    with pytest.raises(ValueError, match=r"heuristics\(values\): 'BLOCK_SIZE' is not a "
                       "parameter of add_tagged"):
        triton.heuristics({"BLOCK_SIZE": lambda args: 64})(add_tagged)


def test_autotuned_kernels_are_not_called_directly():
    kernel = tuned_add(FakeBench(lambda meta: 1.0))
    with pytest.raises(RuntimeError, match=r"launch it as add_tagged\[grid\]"):
        kernel(1, 2)


def test_do_bench_must_return_milliseconds():
    kernel = tuned_add(lambda fn: "fast")
    with pytest.raises(TypeError, match="do_bench returned 'fast'"):
        kernel[lambda meta: (1,)](rand(N), rand(N), poisoned(N), N)


# ---------------------------------------------------------------------------
# warpforge.testing
# ---------------------------------------------------------------------------


def test_summarize_statistics():
    times = [4.0, 1.0, 3.0, 2.0]
    assert testing.summarize(times) == 2.0  # the lower middle value, as torch.median
    assert testing.summarize(times, return_mode="mean") == 2.5
    assert testing.summarize(times, return_mode="min") == 1.0
    assert testing.summarize(times, return_mode="max") == 4.0
    assert testing.summarize(times, return_mode="all") == times
    assert testing.summarize(times, quantiles=[0.5, 0.0, 1.0]) == [2.5, 1.0, 4.0]
    assert testing.summarize(times, quantiles=[0.25]) == pytest.approx(1.75)
    with pytest.raises(ValueError, match="return_mode must be one of"):
        testing.summarize(times, return_mode="average")
    with pytest.raises(ValueError, match=r"quantiles must lie in \[0, 1\]"):
        testing.summarize(times, quantiles=[50])


def test_do_bench_cpu_fills_the_repetition_budget():
    calls = []
    ms = testing.do_bench_cpu(lambda: calls.append(1), warmup=1, rep=2)
    assert ms >= 0 and len(calls) > 3
    low, mid, high = testing.do_bench_cpu(lambda: sum(range(1000)), warmup=0, rep=2,
                                          quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high


def test_do_bench_interleaved_takes_turns(monkeypatch):
    """Every iteration runs each function once, after a flush, in an order
    rotated by one; index j of the returned lists is one iteration."""
    sys.path.insert(0, os.path.dirname(__file__))
    import bench_fake_torch
    monkeypatch.setitem(sys.modules, "torch", bench_fake_torch)
    monkeypatch.setattr(testing, "L2_FLUSH_BYTES", 4096)  # NumPy would zero 256 MB
    calls = []

    def work(name, seconds):
        def fn():
            calls.append(name)
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                pass
        return fn

    times = testing.do_bench_interleaved({"short": work("short", 1e-4),
                                          "long": work("long", 1e-3)}, warmup=2, rep=10)
    assert set(times) == {"short", "long"} and len(times["short"]) == len(times["long"]) > 3
    assert testing.summarize(times["long"]) > 5 * testing.summarize(times["short"])
    # One call each, then the turns: short-long, long-short, short-long, ...
    assert calls[:2] == ["short", "long"]
    turns = [tuple(calls[i:i + 2]) for i in range(2, len(calls), 2)]
    assert set(turns[0::2]) == {("short", "long")} and set(turns[1::2]) == {("long", "short")}
    with pytest.raises(ValueError, match="at least one function"):
        testing.do_bench_interleaved({})


def test_testing_imports_without_torch():
    code = "import sys, warpforge.testing; assert 'torch' not in sys.modules"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)), timeout=60)
    assert run.returncode == 0, run.stderr


def test_do_bench_without_cuda_says_why():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match=r"warpforge.testing.do_bench .*(PyTorch|CUDA)"):
        testing.do_bench(lambda: None)


# ---------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------


@triton.jit
def gpu_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


GPU_CONFIGS = [triton.Config({"BLOCK_SIZE": 256}, num_warps=4),
               triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
               triton.Config({"BLOCK_SIZE": 4096}, num_warps=8)]


@pytest.mark.gpu
def test_gpu_autotuned_vector_add(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    kernel = triton.autotune(GPU_CONFIGS, key=["n_elements"], warmup=5, rep=20,
                             cache_results=True)(gpu_add_kernel)
    g = torch.Generator(device="cuda").manual_seed(0)
    for n in (98431, 1_000_003):
        x = torch.rand(n, device="cuda", generator=g) + 0.5
        y = torch.rand(n, device="cuda", generator=g) - 1.5
        out = torch.full((n,), float("nan"), device="cuda")
        kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n)
        torch.cuda.synchronize()
        assert kernel.best_config in GPU_CONFIGS
        timings = kernel.configs_timings
        assert len(timings) == 3 and all(0 < t < 1000 for t in timings.values())
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert len(kernel.cache) == 2

    # Another autotuner (as in a new process) reads the timings from disk.
    def never(fn):
        raise AssertionError("benchmarked again")
    again = triton.autotune(GPU_CONFIGS, key=["n_elements"], do_bench=never,
                            cache_results=True)(gpu_add_kernel)
    out = torch.full((n,), float("nan"), device="cuda")
    again[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n)
    torch.cuda.synchronize()
    assert again.best_config == kernel.best_config
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.gpu
def test_gpu_do_bench_times_a_real_function():
    torch = pytest.importorskip("torch")
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    small = testing.do_bench(lambda: a[:256, :256] @ b[:256, :256], warmup=5, rep=20)
    large = testing.do_bench(lambda: a @ b, warmup=5, rep=20)
    assert 0 < small < large < 100
    low, mid, high = testing.do_bench(lambda: a @ b, warmup=5, rep=20,
                                      quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high
    paired = testing.do_bench_interleaved({"small": lambda: a[:256, :256] @ b[:256, :256],
                                           "large": lambda: a @ b}, warmup=5, rep=20)
    assert len(paired["small"]) == len(paired["large"]) > 1
    assert 0 < testing.summarize(paired["small"]) < testing.summarize(paired["large"]) < 100
    graph_ms = testing.do_bench_cudagraph(lambda: a.add_(1.0), rep=10)
    assert 0 < graph_ms < 10
