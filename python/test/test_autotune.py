"""@warpforge.autotune and @warpforge.heuristics: the choice of a config and
its in-memory cache, pruning, configs that fail, compilation errors and
warmup on the compile path, progress lines, timings cached on disk,
heuristics, and errors at decoration.

On the CPU the kernels run on the interpreter (or, for the compile path,
against a stand-in for the GPU launch) and a fake do_bench returns a fixed
time per config: it runs the call once and prices the META dict that the
launch grid received, so a timing belongs to the config that really ran.
Inputs are random and non-zero, sizes odd, outputs poisoned before launch.

The other tests of the autotuner: test_autotune_configs.py (warpforge.Config,
reset_to_zero, restore_value and hooks, compiling the configs in parallel)
and test_testing.py (warpforge.testing, and the tests on a GPU). Their shared
helpers are in autotune_helpers.py; the fixtures `autotune_isolated` (which
each of these files applies to all its tests with `pytestmark`) and
`compiled` are in conftest.py. Kernels whose source lines the messages name
(add_tagged, add_small_blocks) are defined here.
"""

import io
import json
import os
import subprocess
import sys
import textwrap

import re

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge.errors import AutotuneError, OutOfResources

from autotune_helpers import BLOCK_CONFIGS, BLOCK_COST, N, FakeBench, poisoned, rand

pytestmark = pytest.mark.usefixtures("autotune_isolated")


@triton.jit
def add_tagged(x_ptr, y_ptr, out_ptr, n, TAG: tl.constexpr, BLOCK: tl.constexpr):
    """out = x + y + TAG: the output says which config ran."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y + TAG, mask=mask)


@triton.jit
def add_small_blocks(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= 1024, "BLOCK is too large for this kernel")
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + 1, mask=mask)


def never_bench(fn):
    raise AssertionError("benchmarked although the result should have been reused")


TAG_CONFIGS = [triton.Config({"TAG": 1, "BLOCK": 128}),
               triton.Config({"TAG": 2, "BLOCK": 256}, num_warps=8),
               triton.Config({"TAG": 3, "BLOCK": 512}, num_stages=2)]
TAG_COST = {1: 3.0, 2: 0.5, 3: 1.25}


def tuned_add(bench, key=("n",), configs=TAG_CONFIGS, **kwargs):
    return triton.autotune(configs, key=list(key), do_bench=bench, **kwargs)(add_tagged)


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
    # The interpreter rejects the config as the compiler does: at the line.
    assert re.fullmatch(r"autotune add_small_blocks \[n=1000\]: skipped config \(BLOCK: 2048, "
                        r"num_warps: 4, num_stages: 3\): CompilationError: .*test_autotune.py:"
                        r"\d+:\d+: static_assert failed: BLOCK is too large for this kernel",
                        note), note


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


def test_a_key_that_is_not_a_parameter_is_dropped_with_a_warning():
    """Triton ignores key names that are not parameters (tutorial 08 misspells
    one); warpforge drops them too, with a warning at the kernel."""
    with pytest.warns(UserWarning, match=r"autotune\(key=...\): 'm' is not a parameter of "
                      r"add_tagged \(.*test_autotune.py:\d+\) and will not key the tuning "
                      r"\(Triton ignores it too\); its parameters are x_ptr, y_ptr, out_ptr, "
                      r"n, TAG, BLOCK") as record:
        kernel = triton.autotune(TAG_CONFIGS, key=["n", "m"])(add_tagged)
    assert record[0].filename == add_tagged.filename
    assert record[0].lineno == add_tagged.first_line
    assert kernel.keys == ["n"]


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
