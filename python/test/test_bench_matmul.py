"""bench/matmul.py and bench/kernels/matmul.py: the parts that run without a
GPU (arguments, shapes, error metrics and checks, autotuner results, the
table, JSON and Markdown; the kernel file under both JITs with one config
list; every config interpreted against NumPy; the GPU path end to end on
bench_fake_torch with warpforge interpreted; the dry run), and short GPU
runs."""

import json
import math
import os
import subprocess
import sys
import types

import numpy as np
import pytest

BENCH = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
sys.path.insert(0, BENCH)

import common  # noqa: E402
import matmul as mm  # noqa: E402


@pytest.fixture(scope="module")
def kernels():
    return common.load_kernels(mm.KERNEL_FILE, "warpforge")


# -- Arguments --------------------------------------------------------------------------


def test_parse_args_defaults_quick_and_subsets():
    args = mm.parse_args([])
    assert args.dtypes == ["fp16", "bf16"] and args.backends == ["torch", "triton", "warpforge"]
    assert args.shapes == mm.SHAPES and len(args.shapes) == 6
    assert (4096, 4096, 4096) in args.shapes and (16384, 1024, 16384) in args.shapes
    assert (args.warmup, args.rep, args.rounds) == (25.0, 100.0, 3)
    assert args.results_dir == os.path.join(common.BENCH_DIR, "results")
    quick = mm.parse_args(["--quick", "--dtypes", "bf16", "--backends", "torch,warpforge"])
    assert quick.shapes == mm.QUICK_SHAPES and len(quick.shapes) == 1
    assert quick.dtypes == ["bf16"] and quick.backends == ["torch", "warpforge"]
    assert (quick.warmup, quick.rep, quick.rounds) == (10.0, 25.0, 1)
    some = mm.parse_args(["--shapes", "8192x8192x1024, 1x15X64,8192x8192x1024"])
    assert some.shapes == [(8192, 8192, 1024), (1, 15, 64)]


@pytest.mark.parametrize("argv, message", [
    (["--shapes", "4096x4096"], "a shape is MxNxK"),
    (["--shapes", "4096x0x4096"], "a shape is MxNxK"),
    (["--shapes", "axbxc"], "got 'axbxc'"),
    (["--shapes", ","], "expected a comma-separated list of MxNxK"),
    (["--dtypes", "fp32"], "argument --dtypes: expected a comma-separated list of fp16, bf16"),
    (["--backends", "cublas"], "argument --backends: expected a comma-separated list"),
    (["--quick", "--shapes", "64x64x64"], "give --quick or --shapes, not both"),
    (["--rep", "0"], "--rep must be positive"),
    (["--rounds", "0"], "--rounds must be at least 1"),
    (["--config", "128x256x64"], "a config is BMxBNxBK gG wW sS"),
    (["--config", "128x256x64g8w0s3"], "got '128x256x64g8w0s3'")])
def test_parse_args_rejects(argv, message, capsys):
    with pytest.raises(SystemExit):
        mm.parse_args(argv)
    assert message in capsys.readouterr().err


def test_parse_config_in_both_spellings():
    assert mm.parse_args([]).config is None
    assert mm.parse_args(["--config", "128x256x64g8w8s3"]).config == (128, 256, 64, 8, 8, 3)
    assert mm.parse_args(["--config", "64x128x32 G8 w4 s4"]).config == (64, 128, 32, 8, 4, 4)


def test_cases_flop_and_tflops():
    cs = mm.cases(["fp16", "bf16"], [(4096, 4096, 512), (1, 2, 3)])
    assert [c.label for c in cs] == ["fp16 4096x4096x512", "fp16 1x2x3", "bf16 4096x4096x512",
                                     "bf16 1x2x3"]
    assert cs[0].flop == 2 * 4096 * 4096 * 512
    assert mm.tflops(2 * 10 ** 12, 1000.0) == pytest.approx(2.0)
    assert mm.tflops(10, None) is None and mm.tflops(10, 0.0) is None


# -- Checks ----------------------------------------------------------------------------------


def test_error_metrics_and_check():
    rng = np.random.default_rng(3)
    ref = rng.standard_normal((40, 30))
    out = ref.astype(np.float16)
    metrics = mm.error_metrics(None, out, ref)
    assert 0 < metrics["max_rel_err"] < 2 ** -11 and 0 < metrics["rms_rel_err"] < 2 ** -11
    mm.check_metrics("ok", "fp16", metrics)
    # One K block of 64 out of 1024 missing: caught by the rms error.
    partial = ref * math.sqrt(1 - 64 / 1024)
    bad = mm.error_metrics(None, partial.astype(np.float16), ref)
    with pytest.raises(common.Mismatch, match=r"warpforge x: max \|out - ref\| / max \|ref\| = "
                                              r"[0-9.e-]+ \(tolerance 0.01\), rms"):
        mm.check_metrics("warpforge x", "fp16", bad)
    # bf16 allows its rounding but not that.
    with pytest.raises(common.Mismatch, match="tolerance 0.01"):
        mm.check_metrics("bf16", "bf16", {"max_rel_err": 2e-3, "rms_rel_err": 0.04})
    mm.check_metrics("bf16", "bf16", {"max_rel_err": 8e-3, "rms_rel_err": 5e-3})


def test_unwritten_output_is_a_clear_failure():
    ref = np.ones((4, 5))
    out = np.ones((4, 5), np.float16)
    out[1, 2] = out[3, 4] = np.nan
    metrics = mm.error_metrics(None, out, ref)
    assert math.isnan(metrics["max_rel_err"]) and math.isnan(metrics["rms_rel_err"])
    with pytest.raises(common.Mismatch, match=r"the output holds NaN \(2 of 20 elements\)"):
        mm.check_metrics("triton fp16 4x5x9", "fp16", metrics, out)


# -- The kernel file ----------------------------------------------------------------------


def test_configs_are_hopper_tiles_shared_by_both_jits(kernels):
    assert len(kernels.CONFIGS) == 9 and len(set(kernels.CONFIGS)) == 9
    assert kernels.MatmulConfig(128, 256, 64, 8, 8, 3) in kernels.CONFIGS
    assert all(c.group_m == 8 and c.num_warps in (4, 8) for c in kernels.CONFIGS)
    tuner = kernels.matmul_autotuned
    assert tuner.keys == ["M", "N", "K"] and tuner.fn is kernels.matmul_kernel
    assert [kernels.describe(c) for c in tuner.configs] == \
        [kernels.describe(c) for c in kernels.CONFIGS]
    assert kernels.describe(kernels.CONFIGS[0]) == "128x256x64 g8 w8 s3"
    config = kernels.backend_config(kernels.CONFIGS[3])
    assert config.kwargs == {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                             "GROUP_SIZE_M": 8}
    assert (config.num_warps, config.num_stages) == (4, 4)


def test_kernel_file_under_triton():
    """Where Triton is installed: the same file, the same configs, key and
    kernel source under Triton's autotuner."""
    triton = pytest.importorskip("triton")
    kt = common.load_kernels(mm.KERNEL_FILE, "triton")
    assert kt.jit_backend is triton and isinstance(kt.matmul_autotuned.configs[0], triton.Config)
    assert [kt.describe(c) for c in kt.matmul_autotuned.configs] == \
        [kt.describe(c) for c in kt.CONFIGS]
    assert "accumulator = tl.dot(a, b, accumulator)" in kt.matmul_kernel.src


def test_matmul_call_arguments_and_grid(kernels):
    a = np.ones((300, 70), np.float16)
    b = np.ones((70, 1000), np.float16)[:, ::2]  # a strided view: 70 x 500
    c = np.ones((300, 500), np.float16)
    kernel, grid, args, meta = kernels.matmul_call(a, b, c)
    assert kernel is kernels.matmul_autotuned and meta == {}
    assert args[3:] == (300, 500, 70, 70, 1, 1000, 2, 500, 1)
    assert grid({"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256}) == (3 * 2,)
    kernel, grid, args, meta = kernels.matmul_call(a, b, c, kernels.CONFIGS[5])
    assert kernel is kernels.matmul_kernel and meta == {
        "BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 32, "GROUP_SIZE_M": 8,
        "num_warps": 4, "num_stages": 4}
    with pytest.raises(ValueError, match=r"A \(300, 70\) @ B \(70, 500\) -> C \(300, 70\)"):
        kernels.matmul_call(a, b, a)


@pytest.mark.parametrize("index", range(9))
def test_each_config_interpreted(kernels, index, monkeypatch):
    """Every config on 11 tile rows of 64 (two groups, the second short),
    partial tiles in N, a partial last step of K; poisoned output."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    config = kernels.CONFIGS[index]
    arrays = common.NumpyArrays(seed=index)
    case = mm.Case("fp16", 700, 200, 96)
    a, b = mm.make_inputs(case, arrays)
    c, guard = arrays.poisoned((700, 200), "fp16")
    common.launch(kernels.matmul_call(a, b, c, config))
    mm.check_metrics(kernels.describe(config), "fp16",
                     mm.error_metrics(None, c, mm.numpy_reference(a, b)), c)
    common.check_guard(kernels.describe(config), guard)


# -- Autotuner results, ratios and tables -------------------------------------------------


def test_tuning_entries_of_either_autotuner(kernels):
    c0, c1, c2 = [kernels.backend_config(c) for c in kernels.CONFIGS[:3]]
    warpforge_like = types.SimpleNamespace(configs_timings={c0: 2.0, c1: math.inf, c2: 1.5})
    assert mm.tuning_entries(kernels, warpforge_like) == [
        {"config": "128x256x64 g8 w8 s4", "ms": 1.5}, {"config": "128x256x64 g8 w8 s3",
                                                       "ms": 2.0},
        {"config": "256x128x64 g8 w8 s3", "ms": None}]
    triton_like = types.SimpleNamespace(configs_timings={c0: [3.0, 2.9, 3.1],
                                                         c1: [math.inf] * 3})
    assert [r["ms"] for r in mm.tuning_entries(kernels, triton_like)] == [3.0, None]
    assert mm.tuning_entries(kernels, types.SimpleNamespace()) == []


def test_ratios_only_between_providers_that_ran():
    p = {"torch": {"ms": 2.0}, "triton": {"ms": 4.0}, "warpforge": {"ms": 5.0}}
    assert mm.ratios(p) == {"warpforge/triton": 0.8, "warpforge/cublas": 0.4,
                            "triton/cublas": 0.5}
    p["triton"] = {"error": "CompilationError: x"}
    assert mm.ratios(p) == {"warpforge/cublas": 0.4}


def _report():
    providers = {"torch": {"ms": 1.0, "tflops": 700.0},
                 "triton": {"ms": 1.25, "tflops": 560.0, "config": {"name": "128x256x64 g8 w8 s3"}},
                 "warpforge": {"error": "AutotuneError: every config failed",
                               "autotune_s": 1.0}}
    return {"mode": "full", "date": "2026-11-22T10:00:00+0000",
            "environment": {"device": "NVIDIA H100 80GB HBM3", "torch": "2.11", "triton": "3.6",
                            "warpforge": "0.1.0", "git_commit": "0123456789abcdef"},
            "settings": {"timer": "do_bench"},
            "results": [{"dtype": "fp16", "M": 4096, "N": 4096, "K": 4096, "providers": providers,
                         "ratios": mm.ratios(providers)}],
            "failures": ["warpforge fp16 4096x4096x4096: AutotuneError: every config failed"]}


def test_table_and_markdown():
    report = _report()
    headers, rows = mm.gpu_rows(report)
    assert rows == [["fp16 4096x4096x4096", "700", "560", "FAIL", "-", "", "-", "0.80",
                     "128x256x64 g8 w8 s3", ""]]
    table = common.format_table(headers, rows).splitlines()
    assert table[0].startswith("case (TFLOP/s)") and table[2].startswith("fp16 4096x4096x4096")
    text = mm.markdown(report, headers, rows)
    assert text.startswith("# Matrix multiplication, full run (2026-11-22)")
    assert "NVIDIA H100 80GB HBM3" in text and "commit 0123456789ab" in text
    assert "| fp16 4096x4096x4096 | 700 | 560 | FAIL | - |  | - | 0.80 | 128x256x64 g8 w8 s3 |  |" \
        in text
    assert "* warpforge fp16 4096x4096x4096: AutotuneError: every config failed" in text


def test_paired_ratio_summary_and_cell():
    """wf/tr per launch: median (quartiles) of the per-turn ratios."""
    summary = mm.paired_summary([1.02, 0.98, 1.0, 1.01, 0.99])
    assert summary == {"median": 1.0, "q25": 0.99, "q75": 1.01, "samples": 5}
    assert mm.paired_cell({"paired_ratios": {"warpforge/triton": summary}}) == \
        "1.000 (0.990-1.010)"
    assert mm.paired_cell({"paired_ratios": {}}) == "" and mm.paired_cell({}) == ""


def _fake_interleaved(monkeypatch, times, calls):
    """common.bench_interleaved returning `times` (name -> ms per turn),
    after launching each function once (recorded in `calls`)."""
    def fake(fns, warmup, rep):
        for fn in fns.values():
            fn()
        calls.append(sorted(fns))
        return {n: list(times[n]) for n in fns}
    monkeypatch.setattr(mm.common, "bench_interleaved", fake)


def test_time_rounds_medians_and_paired_ratios(monkeypatch):
    calls = []
    _fake_interleaved(monkeypatch, {"torch": [1.0, 1.0, 1.0], "triton": [2.0, 2.2, 2.0],
                                    "warpforge": [2.0, 2.0, 2.2]}, calls)
    entries = {n: {} for n in ("torch", "triton", "warpforge")}
    timers = {n: (lambda: None) for n in entries}
    args = mm.parse_args(["--rounds", "2"])
    paired = mm.time_rounds(timers, entries, args, failures=[])
    assert len(calls) == 2 and entries["warpforge"] == {"ms_rounds": [2.0, 2.0], "ms": 2.0}
    assert paired["warpforge/triton"] == pytest.approx([1.0, 1.1, 1.0 / 1.1] * 2)
    assert paired["warpforge/cublas"] == [0.5, 0.5, 1 / 2.2] * 2
    assert set(paired) == {"warpforge/triton", "warpforge/cublas", "triton/cublas"}


def test_time_rounds_drops_a_provider_that_fails(monkeypatch):
    """A launch that raises while timed: the provider gets an error entry and
    the round runs again without it."""
    calls = []
    _fake_interleaved(monkeypatch, {"torch": [1.0], "warpforge": [2.0]}, calls)
    entries = {"torch": {}, "warpforge": {}}
    failures = []

    def broken():
        raise RuntimeError("launch failed")
    timers = {"torch": lambda: None, "warpforge": broken}
    paired = mm.time_rounds(timers, entries, mm.parse_args(["--rounds", "1"]), failures)
    assert "RuntimeError: launch failed" in entries["warpforge"]["error"]
    assert failures and failures[0].startswith("warpforge timing")
    assert entries["torch"]["ms"] == 1.0 and "ms" not in entries["warpforge"]
    assert calls == [["torch"]] and paired == {}


def test_report_is_rewritten_in_place(tmp_path):
    """After each case and at the end, at one path: a run cut short leaves
    the cases it finished, marked unfinished."""
    args = mm.parse_args(["--results-dir", str(tmp_path)])
    out = mm.Report(args, failures=[])
    body = _report()
    del body["failures"]
    out.write({"environment": body["environment"], "results": body["results"]})
    first = out.path
    report, md = _only_report(tmp_path)
    assert report["finished"] is False and "**Unfinished**" in md
    assert report["results"][0]["providers"]["triton"]["tflops"] == 560.0
    out.write({"environment": body["environment"], "results": body["results"] * 2},
              finished=True)
    report, md = _only_report(tmp_path)
    assert out.path == first and report["finished"] is True and "Unfinished" not in md
    assert len(report["results"]) == 2 and report["settings"]["shapes"][0] == "4096x4096x4096"


# -- The GPU path on a fake torch, the dry run ------------------------------------------------


def _fake_gpu(monkeypatch, shapes):
    """bench/matmul.py's GPU path on bench_fake_torch (NumPy), warpforge's
    kernel interpreted, fp16 only (NumPy has no bf16)."""
    import bench_fake_torch
    monkeypatch.setitem(sys.modules, "torch", bench_fake_torch)
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")
    return ["--dtypes", "fp16", "--shapes", shapes, "--warmup", "1", "--rep", "1"]


def _only_report(tmp_path):
    names = sorted(os.listdir(tmp_path))
    assert [os.path.splitext(n)[1] for n in names] == [".json", ".md"], names
    assert os.path.splitext(names[0])[0] == os.path.splitext(names[1])[0]
    return json.load(open(tmp_path / names[0])), (tmp_path / names[1]).read_text()


def test_gpu_path_on_fake_torch(kernels, tmp_path, monkeypatch, capsys):
    argv = _fake_gpu(monkeypatch, "150x130x100,1x15x64") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path)]
    assert mm.main(argv) == 0
    report, md = _only_report(tmp_path)
    assert report["benchmark"] == "matmul" and report["failures"] == [] and report["finished"]
    assert report["environment"]["device"] == "fake GPU"
    assert report["settings"]["shapes"] == ["150x130x100", "1x15x64"]
    assert [(r["M"], r["N"], r["K"]) for r in report["results"]] == [(150, 130, 100), (1, 15, 64)]
    for r in report["results"]:
        assert set(r["providers"]) == {"torch", "warpforge"}
        wf = r["providers"]["warpforge"]
        assert wf["tflops"] > 0 and wf["ms"] > 0 and wf["max_rel_err"] < 1e-3
        assert len(wf["ms_rounds"]) == 3 and wf["ms"] == sorted(wf["ms_rounds"])[1]
        assert wf["config"]["name"] in {kernels.describe(c) for c in kernels.CONFIGS}
        assert len(wf["autotune"]) == 9 and all(e["ms"] > 0 for e in wf["autotune"])
        assert wf["autotune_s"] > 0
        assert r["providers"]["torch"]["tflops"] > 0 and set(r["ratios"]) == {"warpforge/cublas"}
        assert r["paired_ratios"]["warpforge/cublas"]["samples"] >= 3
    out = capsys.readouterr().out.splitlines()
    assert out[-2].startswith("JSON: ") and out[-1].startswith("Markdown: ")
    assert any(line.startswith("fp16 150x130x100: torch ") for line in out)
    assert "| fp16 1x15x64 |" in md


def test_gpu_path_with_one_config(kernels, tmp_path, monkeypatch):
    argv = _fake_gpu(monkeypatch, "150x130x100") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path),
        "--config", "64x128x32g8w4s4", "--rounds", "2"]
    assert mm.main(argv) == 0
    report, md = _only_report(tmp_path)
    assert report["settings"]["config"] == "64x128x32 g8 w4 s4" and report["failures"] == []
    wf = report["results"][0]["providers"]["warpforge"]
    assert wf["config"] == {"name": "64x128x32 g8 w4 s4", "fixed": True}
    assert "autotune" not in wf and "autotune_s" not in wf
    assert wf["max_rel_err"] < 1e-3 and len(wf["ms_rounds"]) == 2
    assert "one config for both JITs, no autotuning (64x128x32 g8 w4 s4)" in md


def test_gpu_path_reports_a_wrong_result_and_goes_on(tmp_path, monkeypatch, capsys):
    argv = _fake_gpu(monkeypatch, "150x130x100") + [
        "--backends", "torch,triton,warpforge", "--results-dir", str(tmp_path)]
    real = mm.torch_reference
    monkeypatch.setattr(mm, "torch_reference", lambda torch, a, b: real(torch, a, b) * 1.05)
    # Triton does not load here (no triton, or no GPU for it): an error entry too.
    monkeypatch.setitem(sys.modules, "triton", None)
    assert mm.main(argv) == 1
    err = capsys.readouterr().err
    assert "FAILED warpforge fp16 150x130x100: Mismatch: warpforge fp16 150x130x100 (" in err
    assert "FAILED triton fp16 150x130x100: ModuleNotFoundError" in err
    report, md = _only_report(tmp_path)
    p = report["results"][0]["providers"]
    assert "Mismatch" in p["torch"]["error"] and "max_rel_err" in p["torch"]
    wf = p["warpforge"]
    assert "Mismatch" in wf["error"] and "config" in wf and wf["max_rel_err"] > 0.04
    assert "ms" not in wf and len(report["failures"]) == 3
    assert "| fp16 150x130x100 | FAIL | FAIL | FAIL |" in md


def test_dry_run_compiles_every_config_and_interprets(tmp_path, monkeypatch, frontend_only):
    """The dry run with the GPU backend stopped at tile IR (dot has no GPU
    lowering in this build yet): every config of both dtypes, and the
    interpreter on the small shapes."""
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")
    monkeypatch.setattr(mm, "DRY_RUN_SHAPES", [(150, 130, 100), (1, 15, 64)])
    assert mm.main(["--dry-run", "--backends", "warpforge", "--results-dir", str(tmp_path)]) == 0
    report, md = _only_report(tmp_path)
    assert report["mode"] == "dry-run" and report["failures"] == []
    assert report["compile"]["shape"] == "4096x4096x4096"
    rows = report["compile"]["results"]
    assert len(rows) == 18 and {r["dtype"] for r in rows} == {"fp16", "bf16"}
    assert all(r["compile_ms"]["warpforge"] > 0 for r in rows)
    assert [r["case"] for r in report["interpreter"]] == ["fp16 150x130x100", "fp16 1x15x64"]
    for r in report["interpreter"]:
        assert len(r["configs"]) == 10 and set(r["configs"].values()) == {"ok"}
    assert "| bf16 64x128x32 g8 w4 s4 |" in md and "WARPFORGE_INTERPRET" not in os.environ


def test_dry_run_with_one_config_compiles_it_alone(tmp_path, monkeypatch, frontend_only):
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")
    monkeypatch.setattr(mm, "DRY_RUN_SHAPES", [(1, 15, 64)])
    assert mm.main(["--dry-run", "--backends", "warpforge", "--results-dir", str(tmp_path),
                    "--config", "128x128x32g8w4s4"]) == 0
    report, _ = _only_report(tmp_path)
    rows = report["compile"]["results"]
    assert [(r["dtype"], r["config"]) for r in rows] == [
        ("fp16", "128x128x32 g8 w4 s4"), ("bf16", "128x128x32 g8 w4 s4")]
    assert all(r["compile_ms"]["warpforge"] > 0 for r in rows)


def test_stand_in_specializes_like_a_torch_tensor(kernels, frontend_only):
    a, b, c = (mm.StandIn("bf16", s) for s in [(256, 64), (64, 128), (256, 128)])
    k = common.compile_only("warpforge", kernels.matmul_call(a, b, c, kernels.CONFIGS[0]))
    assert k.signature["a_ptr"] == "*bf16" and "tile.dot" in k.asm["tile"]
    assert k.constants["stride_ak"] == 1 and k.constants["BLOCK_SIZE_N"] == 256


# -- On the GPU ------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("dtypes, backends", [("fp16", "torch,triton"),
                                              ("bf16", "torch,warpforge")])
def test_gpu_quick_run(tmp_path, dtypes, backends):
    """bench/matmul.py --quick on the GPU: Triton and cuBLAS (the harness
    itself), then warpforge."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "matmul.py"), "--quick",
                           "--dtypes", dtypes, "--backends", backends, "--warmup", "2",
                           "--rep", "5", "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report, _ = _only_report(tmp_path)
    (result,) = report["results"]
    assert report["environment"]["device"] and result["dtype"] == dtypes
    for backend in backends.split(","):
        entry = result["providers"][backend]
        assert entry["tflops"] > 1 and entry["max_rel_err"] < 1e-2, (backend, entry)


# -- The TMA variants (tutorial 09's kernels) -----------------------------------------------


def test_variants_option_and_provider_names():
    assert mm.parse_args([]).variants == ["blocked"]
    args = mm.parse_args(["--variants", "tma, blocked,tma-persistent", "--backends",
                          "torch,warpforge"])
    assert args.variants == ["tma", "blocked", "tma-persistent"]
    assert mm.provider_names(args) == ["torch", "warpforge:tma", "warpforge",
                                       "warpforge:tma-persistent"]
    assert mm.provider_names(mm.parse_args(["--variants", "tma"])) == [
        "torch", "triton:tma", "warpforge:tma"]
    assert mm.split_provider("triton:tma-persistent") == ("triton", "tma-persistent")
    assert mm.split_provider("warpforge") == ("warpforge", "blocked")
    assert mm.pair_providers("warpforge:tma/triton:tma") == ("warpforge:tma", "triton:tma")
    assert mm.pair_providers("triton:tma-persistent/cublas") == ("triton:tma-persistent",
                                                                 "torch")


def test_variants_option_rejects_unknown(capsys):
    with pytest.raises(SystemExit):
        mm.parse_args(["--variants", "tma,ws"])
    assert "argument --variants: expected a comma-separated list of blocked, tma, " \
           "tma-persistent" in capsys.readouterr().err


def test_ratios_per_variant():
    p = {"torch": {"ms": 2.0}, "triton": {"ms": 4.0}, "warpforge": {"ms": 5.0},
         "triton:tma": {"ms": 2.5}, "warpforge:tma": {"ms": 2.0},
         "warpforge:tma-persistent": {"error": "CompilationError: x"}}
    assert mm.ratios(p) == {"warpforge/triton": 0.8, "warpforge/cublas": 0.4,
                            "triton/cublas": 0.5, "warpforge:tma/triton:tma": 1.25,
                            "warpforge:tma/cublas": 1.0, "triton:tma/cublas": 0.8}


@pytest.fixture(scope="module")
def tutorial():
    return common.load_kernels(mm.TMA_KERNEL_FILE, "warpforge")


def _aligned_like(x):
    raw = np.empty(x.nbytes + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


@pytest.mark.parametrize("variant", ["tma", "tma-persistent"])
def test_tma_call_launches_as_the_tutorial(tutorial, variant):
    """The tutorial's kernel beneath its autotuner, descriptors made with
    the [1, 1] placeholder and given the config's blocks by its pre_hook;
    the persistent grid is min(SMs, tiles)."""
    a = _aligned_like(np.ones((300, 72), np.float16))
    b_t = _aligned_like(np.ones((1000, 72), np.float16))
    c = _aligned_like(np.ones((300, 1000), np.float16))
    kernel, grid, args, meta = mm.tma_call(tutorial, variant, a, b_t, c, (128, 256, 64, 8, 8, 3),
                                           num_sms=5)
    name = mm.TMA_KERNELS[variant]
    assert kernel is getattr(tutorial, name).fn and kernel.__name__ == name
    assert args[3:] == (300, 1000, 72)
    assert [d.block_shape for d in args[:3]] == [[128, 64], [256, 64], [128, 256]]
    assert all(isinstance(d, tutorial.TensorDescriptor) for d in args[:3])
    common_meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 64,
                   "GROUP_SIZE_M": 8, "FP8_OUTPUT": False, "WARP_SPECIALIZE": False,
                   "num_warps": 8, "num_stages": 3}
    if variant == "tma":
        assert grid == (3 * 4,) and meta == common_meta
    else:
        assert grid == (5,) and meta == {**common_meta, "EPILOGUE_SUBTILE": False,
                                         "NUM_SMS": 5}
    with pytest.raises(ValueError, match=r"TMA matmul shapes do not match"):
        mm.tma_call(tutorial, variant, a, b_t, b_t, (128, 256, 64, 8, 8, 3), num_sms=5)


def test_tutorial_file_under_triton():
    """Where Triton is installed: the tutorial's kernels load under it from
    the very same file."""
    triton = pytest.importorskip("triton")
    kt = common.load_kernels(mm.TMA_KERNEL_FILE, "triton")
    assert kt.triton is triton and kt.TensorDescriptor.__module__.startswith("triton.")
    assert isinstance(kt.matmul_kernel_tma.configs[0], triton.Config)


def test_gpu_path_on_fake_torch_with_tma_variants(tmp_path, monkeypatch):
    """All three variants of warpforge (interpreted) beside cuBLAS: one row
    per variant, providers and ratios named by variant, one config for the
    TMA kernels, the blocked kernel autotuned as before."""
    argv = _fake_gpu(monkeypatch, "150x136x104") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path),
        "--variants", "blocked,tma,tma-persistent", "--rounds", "1"]
    assert mm.main(argv) == 0
    report, md = _only_report(tmp_path)
    assert report["failures"] == []
    assert report["settings"]["variants"] == ["blocked", "tma", "tma-persistent"]
    assert report["settings"]["providers"] == ["torch", "warpforge", "warpforge:tma",
                                               "warpforge:tma-persistent"]
    assert report["settings"]["tma_config"] == "128x256x64 g8 w8 s3"
    (r,) = report["results"]
    assert list(r["providers"]) == report["settings"]["providers"]
    for name in ("warpforge:tma", "warpforge:tma-persistent"):
        entry = r["providers"][name]
        assert entry["config"] == {"name": "128x256x64 g8 w8 s3", "fixed": True}
        assert entry["tflops"] > 0 and entry["max_rel_err"] < 1e-3
        assert "autotune" not in entry
    assert r["providers"]["warpforge:tma"]["grid"] == [2]  # 2 x 1 tiles
    assert r["providers"]["warpforge:tma-persistent"]["grid"] == [2]  # min(132, tiles)
    assert len(r["providers"]["warpforge"]["autotune"]) == 9
    assert set(r["ratios"]) == {"warpforge/cublas", "warpforge:tma/cublas",
                                "warpforge:tma-persistent/cublas"}
    assert set(r["paired_ratios"]) == set(r["ratios"])
    headers, rows = mm.gpu_rows(report)
    assert [row[0] for row in rows] == ["fp16 150x136x104", "fp16 150x136x104 tma",
                                        "fp16 150x136x104 tma-persistent"]
    assert rows[1][9] == "128x256x64 g8 w8 s3" and rows[1][1] == rows[0][1]
    assert "| fp16 150x136x104 tma-persistent |" in md
    assert "tutorial 09's TMA kernels (matmul_kernel_tma, matmul_kernel_tma_persistent" in md


def test_gpu_path_tma_with_config_and_a_shape_the_tma_cannot_take(tmp_path, monkeypatch):
    """--config applies to the TMA variants too; a shape whose rows are not
    16-byte multiples fails for them alone (TensorDescriptor's check), and
    the run goes on."""
    argv = _fake_gpu(monkeypatch, "150x130x100") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path),
        "--variants", "blocked,tma", "--config", "64x128x32g8w4s4", "--rounds", "1"]
    assert mm.main(argv) == 1
    report, _ = _only_report(tmp_path)
    p = report["results"][0]["providers"]
    assert "error" not in p["warpforge"] and p["warpforge"]["config"]["fixed"]
    assert "ValueError" in p["warpforge:tma"]["error"]
    assert "the TMA needs a multiple of 16" in p["warpforge:tma"]["error"]
    assert report["failures"] == [f"warpforge:tma fp16 150x130x100: {p['warpforge:tma']['error']}"]


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
def test_dry_run_with_tma_variants(tmp_path, monkeypatch, frontend_only):
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")
    monkeypatch.setattr(mm, "DRY_RUN_TMA_SHAPES", [(150, 136, 104), (1, 16, 64)])
    assert mm.main(["--dry-run", "--backends", "warpforge", "--results-dir", str(tmp_path),
                    "--variants", "tma,tma-persistent"]) == 0
    report, md = _only_report(tmp_path)
    assert report["failures"] == []
    assert [(r["dtype"], r["config"]) for r in report["compile"]["results"]] == [
        ("fp16", "tma 128x256x64 g8 w8 s3"), ("fp16", "tma-persistent 128x256x64 g8 w8 s3"),
        ("bf16", "tma 128x256x64 g8 w8 s3"), ("bf16", "tma-persistent 128x256x64 g8 w8 s3")]
    assert all(r["compile_ms"]["warpforge"] > 0 for r in report["compile"]["results"])
    assert [r["case"] for r in report["interpreter"]] == [
        "fp16 150x136x104 tma", "fp16 150x136x104 tma-persistent", "fp16 1x16x64 tma",
        "fp16 1x16x64 tma-persistent"]
    assert all(r["configs"] == {"128x256x64 g8 w8 s3": "ok"} for r in report["interpreter"])
    assert "| interpreter fp16 1x16x64 tma-persistent | ok |" in md


@pytest.mark.gpu
@pytest.mark.parametrize("dtypes, backends", [("fp16", "torch,triton"),
                                              ("bf16", "torch,warpforge")])
def test_gpu_quick_run_tma_variants(tmp_path, dtypes, backends):
    """bench/matmul.py --quick --variants tma,tma-persistent on the GPU:
    Triton and cuBLAS (the harness), then warpforge."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "matmul.py"), "--quick",
                           "--dtypes", dtypes, "--backends", backends, "--variants",
                           "tma,tma-persistent", "--warmup", "2", "--rep", "5",
                           "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report, _ = _only_report(tmp_path)
    (result,) = report["results"]
    jit = backends.split(",")[1]
    for name in ("torch", f"{jit}:tma", f"{jit}:tma-persistent"):
        entry = result["providers"][name]
        assert entry["tflops"] > 1 and entry["max_rel_err"] < 1e-2, (name, entry)
    assert set(result["paired_ratios"]) == {f"{jit}:tma/cublas", f"{jit}:tma-persistent/cublas"}


# -- Ping-pong (tma-persistent-ws-pp): warpforge alone, against Triton's ws kernel ----------


def test_ping_pong_variant_names_triton_ws_as_its_rival():
    """Triton has no ping_pong: the -pp row's Triton provider is the
    warp-specialized persistent kernel's ("triton:tma-persistent-ws"), one
    provider (and one set of its ratios) when both variants run."""
    args = mm.parse_args(["--variants", "tma-persistent-ws-pp"])
    assert mm.provider_names(args) == ["torch", "triton:tma-persistent-ws",
                                       "warpforge:tma-persistent-ws-pp"]
    both = mm.parse_args(["--variants", "tma-persistent-ws,tma-persistent-ws-pp"])
    assert mm.provider_names(both) == ["torch", "triton:tma-persistent-ws",
                                       "warpforge:tma-persistent-ws",
                                       "warpforge:tma-persistent-ws-pp"]
    assert mm.provider_name("triton", "tma-persistent-ws-pp") == "triton:tma-persistent-ws"
    assert mm.provider_name("warpforge", "tma-persistent-ws-pp") == \
        "warpforge:tma-persistent-ws-pp"
    assert mm.pair_providers("warpforge:tma-persistent-ws-pp/triton:tma-persistent-ws") == \
        ("warpforge:tma-persistent-ws-pp", "triton:tma-persistent-ws")
    names = [name for _, _, name in mm.RATIO_PAIRS]
    assert len(names) == len(set(names))
    p = {"torch": {"ms": 1.0}, "triton:tma-persistent-ws": {"ms": 1.1},
         "warpforge:tma-persistent-ws-pp": {"ms": 1.0}}
    assert mm.ratios(p) == {
        "warpforge:tma-persistent-ws-pp/triton:tma-persistent-ws": pytest.approx(1.1),
        "warpforge:tma-persistent-ws-pp/cublas": 1.0,
        "triton:tma-persistent-ws/cublas": pytest.approx(1 / 1.1)}
    report = {"settings": {"variants": ["tma-persistent-ws-pp"]},
              "results": [{"dtype": "fp16", "M": 4096, "N": 4096, "K": 4096, "ratios":
                           mm.ratios(p), "providers": {
                               "torch": {"tflops": 700.0},
                               "triton:tma-persistent-ws": {
                                   "tflops": 640.0, "config": {"name": "128x256x64 g8 w8 s3"}},
                               "warpforge:tma-persistent-ws-pp": {
                                   "tflops": 700.0,
                                   "config": {"name": "128x128x64 g8 w4 s3 pp b4"}}}}]}
    _, rows = mm.gpu_rows(report)
    assert rows == [["fp16 4096x4096x4096 tma-persistent-ws-pp", "700", "640", "700", "1.10",
                     "", "1.00", "0.91", "128x256x64 g8 w8 s3", "128x128x64 g8 w4 s3 pp b4"]]


def test_ping_pong_call_takes_its_own_config(tutorial):
    """128x128x64 tiles, 4 warps a group, two groups taking turns, 4 slots,
    WARP_SPECIALIZE=True; --config does not apply; Triton cannot run it."""
    args = mm.parse_args(["--variants", "tma-persistent-ws-pp", "--config", "64x128x32g8w4s4"])
    assert mm.variant_config(args, "tma-persistent-ws-pp") == mm.PING_PONG_CONFIG == \
        (128, 128, 64, 8, 4, 3)
    assert mm.variant_config(args, "tma-persistent-ws") == (64, 128, 32, 8, 4, 4)
    a = _aligned_like(np.ones((300, 72), np.float16))
    b_t = _aligned_like(np.ones((1000, 72), np.float16))
    c = _aligned_like(np.ones((300, 1000), np.float16))
    kernel, grid, args, meta = mm.tma_call(tutorial, "tma-persistent-ws-pp", a, b_t, c,
                                           mm.PING_PONG_CONFIG, num_sms=5)
    assert kernel is tutorial.matmul_kernel_tma_persistent.fn and grid == (5,)
    assert [d.block_shape for d in args[:3]] == [[128, 64], [128, 64], [128, 128]]
    assert meta == {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64,
                    "GROUP_SIZE_M": 8, "FP8_OUTPUT": False, "WARP_SPECIALIZE": True,
                    "EPILOGUE_SUBTILE": False, "NUM_SMS": 5, "num_warps": 4, "num_stages": 3,
                    "num_consumer_groups": 2, "num_buffers_warp_spec": 4, "ping_pong": True}
    assert mm.variant_config_name("tma-persistent-ws-pp", mm.PING_PONG_CONFIG) == \
        "128x128x64 g8 w4 s3 pp b4"
    with pytest.raises(ValueError, match="runs under warpforge only"):
        mm.tma_call(types.SimpleNamespace(BACKEND="triton"), "tma-persistent-ws-pp", a, b_t,
                    c, mm.PING_PONG_CONFIG, num_sms=5)


def test_dry_run_compiles_the_ping_pong_variant(tmp_path, monkeypatch):
    """The whole pipeline to a cubin (ptxas), a declined ping-pong being a
    failure, then the interpreter on a persistent grid of 3 programs."""
    monkeypatch.setenv("WARPFORGE_AUTOTUNE_QUIET", "1")
    monkeypatch.setattr(mm, "DRY_RUN_TMA_SHAPES", [(700, 200, 96)])
    assert mm.main(["--dry-run", "--backends", "warpforge", "--results-dir", str(tmp_path),
                    "--variants", "tma-persistent-ws-pp", "--shapes", "4096x4096x4096"]) == 0
    report, md = _only_report(tmp_path)
    assert report["failures"] == []
    assert report["settings"]["ping_pong_config"] == {
        "name": "128x128x64 g8 w4 s3 pp b4", "num_consumer_groups": 2,
        "num_buffers_warp_spec": 4, "ping_pong": True}
    assert [(r["dtype"], r["config"]) for r in report["compile"]["results"]] == [
        ("fp16", "tma-persistent-ws-pp 128x128x64 g8 w4 s3 pp b4"),
        ("bf16", "tma-persistent-ws-pp 128x128x64 g8 w4 s3 pp b4")]
    assert all(r["compile_ms"]["warpforge"] > 0 for r in report["compile"]["results"])
    assert report["interpreter"] == [{"case": "fp16 700x200x96 tma-persistent-ws-pp",
                                      "configs": {"128x128x64 g8 w4 s3 pp b4": "ok"}}]
    assert "tma-persistent-ws-pp: warpforge alone with ping_pong=True" in md


def test_gpu_path_on_fake_torch_with_ping_pong(tmp_path, monkeypatch):
    argv = _fake_gpu(monkeypatch, "150x136x104") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path),
        "--variants", "tma-persistent-ws-pp", "--rounds", "1"]
    assert mm.main(argv) == 0
    report, md = _only_report(tmp_path)
    assert report["failures"] == []
    assert report["settings"]["providers"] == ["torch", "warpforge:tma-persistent-ws-pp"]
    (r,) = report["results"]
    entry = r["providers"]["warpforge:tma-persistent-ws-pp"]
    assert entry["config"] == {"name": "128x128x64 g8 w4 s3 pp b4", "fixed": True}
    assert entry["grid"] == [4] and entry["max_rel_err"] < 1e-3  # 2 x 2 tiles, 132 "SMs"
    assert set(r["ratios"]) == {"warpforge:tma-persistent-ws-pp/cublas"}
    assert "| fp16 150x136x104 tma-persistent-ws-pp |" in md


@pytest.mark.gpu
def test_gpu_quick_run_ping_pong():
    """bench/matmul.py --quick --variants tma-persistent-ws-pp on the GPU:
    warpforge's ping-pong kernel, Triton's warp-specialized persistent
    kernel and cuBLAS, checked, timed, and the ratio between the first two."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run([sys.executable, os.path.join(BENCH, "matmul.py"), "--quick",
                               "--dtypes", "fp16", "--variants", "tma-persistent-ws-pp",
                               "--warmup", "2", "--rep", "5", "--results-dir", tmp],
                              capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        from pathlib import Path
        report, _ = _only_report(Path(tmp))
    (result,) = report["results"]
    for name in ("torch", "triton:tma-persistent-ws", "warpforge:tma-persistent-ws-pp"):
        entry = result["providers"][name]
        assert entry["tflops"] > 1 and entry["max_rel_err"] < 1e-2, (name, entry)
    assert "warpforge:tma-persistent-ws-pp/triton:tma-persistent-ws" in result["paired_ratios"]


# -- The fp8 variants (bench/kernels/fp8_matmul.py) --------------------------------------


@pytest.fixture(scope="module")
def fp8_kernels():
    return common.load_kernels(mm.FP8_KERNEL_FILE, "warpforge")


def test_fp8_variants_dtypes_and_providers():
    """The fp8 variants run on their fp8 dtypes (by default e4m3 and e5m2
    for fp8-scaled, e4m3 for the block-scaled), in cases of their own."""
    args = mm.parse_args(["--variants", "fp8-scaled,fp8-block-scaled"])
    assert args.dtypes == ["e4m3", "e5m2"]
    assert mm.parse_args(["--variants", "fp8-block-scaled"]).dtypes == ["e4m3"]
    assert mm.parse_args(["--variants", "blocked,fp8-scaled"]).dtypes == \
        ["fp16", "bf16", "e4m3", "e5m2"]
    assert mm.provider_names(args) == ["torch", "triton:fp8-scaled", "warpforge:fp8-scaled",
                                       "triton:fp8-block-scaled", "warpforge:fp8-block-scaled"]
    assert mm.provider_names(args, "e5m2") == ["torch", "triton:fp8-scaled",
                                               "warpforge:fp8-scaled"]
    assert mm.provider_names(args, "fp16") == ["torch"]
    assert not mm.variant_applies("fp8-scaled", "fp16") and \
        not mm.variant_applies("blocked", "e4m3")
    assert mm.pair_providers("warpforge:fp8-scaled/cublas") == ("warpforge:fp8-scaled", "torch")
    assert mm.TOLERANCE["e4m3"] == mm.TOLERANCE["e5m2"] == (2e-2, 5e-3)


def test_fp8_configs_are_the_kernel_files(fp8_kernels):
    assert mm.FP8_CONFIGS["fp8-scaled"] == tuple(fp8_kernels.SCALED_CONFIG)
    assert mm.FP8_CONFIGS["fp8-block-scaled"] == tuple(fp8_kernels.BLOCK_SCALED_CONFIG)
    assert mm.FP8_SCALE_BLOCK == fp8_kernels.SCALE_BLOCK == 128
    assert fp8_kernels.BLOCK_SCALED_CONFIG.block_k == 128


def test_fp8_calls_check_shapes(fp8_kernels):
    a = _aligned_like(np.zeros((300, 256), np.uint8))
    b_t = _aligned_like(np.zeros((200, 256), np.uint8))
    c = _aligned_like(np.zeros((300, 200), np.float16))
    one = np.ones(1, np.float32)
    kernel, grid, args, meta = fp8_kernels.scaled_call(a, b_t, c, one, one, num_sms=4)
    assert kernel is fp8_kernels.fp8_scaled_matmul_kernel and grid == (min(4, 3 * 1),)
    assert args[5:] == (300, 200, 256) and meta["WARP_SPECIALIZE"] is False
    assert [d.block_shape for d in args[:3]] == [[128, 128], [256, 128], [128, 256]]
    a_scale, b_scale = np.ones((300, 2), np.float32), np.ones((2, 2), np.float32)
    kernel, grid, args, meta = fp8_kernels.block_scaled_call(a, b_t, c, a_scale, b_scale)
    assert args[-4:] == (2, 1, 2, 1) and meta["SCALE_BLOCK_N"] == 128 and grid == (6,)
    with pytest.raises(ValueError, match="block scales"):
        fp8_kernels.block_scaled_call(a, b_t, c, a_scale, np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="K step is its scale block"):
        fp8_kernels.block_scaled_call(a, b_t, c, a_scale, b_scale,
                                      fp8_kernels.Fp8Config(128, 128, 64, 8, 8, 3))
    with pytest.raises(ValueError, match="shapes do not match"):
        fp8_kernels.scaled_call(a, a, c, one, one)


FP8_COMPILE_CASES = [("fp8-scaled", "e4m3"), ("fp8-scaled", "e5m2"),
                     ("fp8-block-scaled", "e4m3"), ("fp8-block-scaled", "e5m2")]


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
@pytest.mark.parametrize("variant, dtype", FP8_COMPILE_CASES,
                         ids=[f"{v}-{d}" for v, d in FP8_COMPILE_CASES])
def test_fp8_kernel_compiles_to_a_cubin_with_fp8_wgmma(fp8_kernels, variant, dtype):
    """At the benchmark's config, to a cubin (ptxas, no GPU): wgmma on fp8
    operands of the dtype (QGMMA-class) in the PTX, no spills, within the
    H100's shared memory."""
    m, n, k = 4096, 4096, 4096
    a, b_t, c = mm.StandIn(dtype, (m, k)), mm.StandIn(dtype, (n, k)), mm.StandIn("bf16", (m, n))
    scales = ((mm.StandIn("fp32", (1, 1)),) * 2 if variant == "fp8-scaled" else
              (mm.StandIn("fp32", (m, k // 128)), mm.StandIn("fp32", (n // 128, k // 128))))
    kernel = common.compile_only("warpforge", mm.fp8_call(fp8_kernels, variant, a, b_t, c,
                                                           *scales, 132))
    name = mm.check_fp8_cubin(f"{variant} {dtype}", dtype, kernel)
    assert name.startswith("wgmma.mma_async.sync.aligned.m64n")
    assert f".f32.{dtype}.{dtype}" in name and f".{dtype}" in kernel.asm["ptx"]
    assert kernel.asm["cubin"] and kernel.metadata["spill_stores"] == 0
    assert kernel.metadata["shared"] <= 232448


def test_check_fp8_cubin_rejects_other_products_and_spills():
    k = types.SimpleNamespace(asm={"ptx": "  wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
                                          "{...};"}, metadata={"spill_stores": 0,
                                                               "spill_loads": 0})
    with pytest.raises(common.Mismatch, match="no wgmma.mma_async on e4m3 operands"):
        mm.check_fp8_cubin("x", "e4m3", k)
    k.asm["ptx"] = "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {...};"
    assert mm.check_fp8_cubin("x", "e4m3", k).endswith(".e4m3.e4m3")
    k.metadata["spill_stores"] = 8
    with pytest.raises(common.Mismatch, match="ptxas spills"):
        mm.check_fp8_cubin("x", "e4m3", k)


def test_fp8_reference_numpy_dequantizes_by_blocks():
    rng = np.random.default_rng(0)
    a, b_t = rng.integers(-4, 5, (3, 200)).astype(float), rng.integers(-4, 5, (130, 200)) * 1.0
    a_s, b_s = rng.uniform(0.5, 2, (3, 2)), rng.uniform(0.5, 2, (2, 2))
    ref = mm.fp8_reference(np, "fp8-block-scaled", a, b_t, a_s, b_s, 200)
    i, j = 2, 129
    want = sum(a[i, k] * a_s[i, k // 128] * b_t[j, k] * b_s[j // 128, k // 128]
               for k in range(200))
    assert ref[i, j] == pytest.approx(want)
    scaled = mm.fp8_reference(np, "fp8-scaled", a, b_t, np.array([0.5]), np.array([3.0]), 200)
    assert np.allclose(scaled, a @ b_t.T * 1.5)


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
def test_dry_run_fp8_variants(tmp_path, monkeypatch):
    """Both fp8 kernels compiled to cubins (e4m3 and e5m2 for the
    per-tensor one), then interpreted on small integers made fp8 by
    warpforge's own conversion: partial tiles, a partial scale block of K,
    several tiles per persistent program."""
    monkeypatch.setattr(mm, "DRY_RUN_FP8_SHAPES", [(150, 136, 208), (300, 272, 128)])
    assert mm.main(["--dry-run", "--backends", "warpforge", "--results-dir", str(tmp_path),
                    "--variants", "fp8-scaled,fp8-block-scaled"]) == 0
    report, md = _only_report(tmp_path)
    assert report["failures"] == [] and report["settings"]["dtypes"] == ["e4m3", "e5m2"]
    rows = report["compile"]["results"]
    assert [(r["dtype"], r["config"]) for r in rows] == [
        ("e4m3", "fp8-scaled 128x256x128 g8 w8 s3"),
        ("e4m3", "fp8-block-scaled 128x128x128 g8 w8 s3"),
        ("e5m2", "fp8-scaled 128x256x128 g8 w8 s3")]
    assert all(r["compile_ms"]["warpforge"] > 0 for r in rows)
    assert [r["wgmma"].rsplit(".", 2)[1:] for r in rows] == [["e4m3", "e4m3"]] * 2 + \
        [["e5m2", "e5m2"]]
    assert [r["case"] for r in report["interpreter"]] == [
        "e4m3 150x136x208 fp8-scaled", "e4m3 150x136x208 fp8-block-scaled",
        "e5m2 150x136x208 fp8-scaled", "e4m3 300x272x128 fp8-scaled",
        "e4m3 300x272x128 fp8-block-scaled", "e5m2 300x272x128 fp8-scaled"]
    assert all(set(r["configs"].values()) == {"ok"} for r in report["interpreter"])
    assert "| interpreter e5m2 300x272x128 fp8-scaled | ok |" in md


@pytest.mark.filterwarnings("ignore::warpforge.compiler.options.UnsupportedOptionWarning")
def test_dry_run_fp8_interpreter_catches_a_wrong_scale(monkeypatch):
    """The interpreted check is not vacuous: a kernel given twice A's
    scale fails it."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    module = common.load_kernels(mm.FP8_KERNEL_FILE, "warpforge")
    real = mm.fp8_call
    monkeypatch.setattr(mm, "fp8_call", lambda module, variant, a, b_t, c, a_s, b_s, sms:
                        real(module, variant, a, b_t, c, a_s * 2, b_s, sms))
    failures = []
    row = mm.interpret_fp8_case(mm.Case("e4m3", 64, 32, 128), module, "fp8-block-scaled",
                                failures)
    assert "error" in row["configs"]["128x128x128 g8 w8 s3"] and "Mismatch" in failures[0]


def test_fp8_rows_and_note():
    """An fp8 case is one row of its variant; torch without the call is n/a."""
    providers = {"torch": {"unsupported": "RuntimeError: no blockwise scaling"},
                 "warpforge:fp8-block-scaled": {"ms": 1.0, "tflops": 500.0,
                                                "config": {"name": "128x128x128 g8 w8 s3"}}}
    report = {"settings": {"variants": ["blocked", "fp8-block-scaled"]},
              "results": [{"dtype": "e4m3", "M": 4096, "N": 4096, "K": 4096,
                           "variant": "fp8-block-scaled", "providers": providers,
                           "ratios": mm.ratios(providers)}]}
    _, rows = mm.gpu_rows(report)
    assert rows == [["e4m3 4096x4096x4096 fp8-block-scaled", "n/a", "", "500", "-", "", "-",
                     "-", "", "128x128x128 g8 w8 s3"]]
    note = mm._variants_note(report["settings"])
    assert "torch._scaled_mm" in note and "fp8-block-scaled 128x128x128 g8 w8 s3" in note


@pytest.mark.gpu
@pytest.mark.parametrize("backends", ["torch,triton", "torch,warpforge"])
def test_gpu_quick_run_fp8_variants(tmp_path, backends):
    """bench/matmul.py --quick --variants fp8-scaled,fp8-block-scaled on the
    GPU: each JIT's kernels checked and timed; torch._scaled_mm checked
    where torch has the call (n/a otherwise, not a failure)."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "matmul.py"), "--quick",
                           "--backends", backends, "--variants",
                           "fp8-scaled,fp8-block-scaled", "--warmup", "2", "--rep", "5",
                           "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report, _ = _only_report(tmp_path)
    assert [(r["dtype"], r["variant"]) for r in report["results"]] == [
        ("e4m3", "fp8-scaled"), ("e4m3", "fp8-block-scaled"), ("e5m2", "fp8-scaled")]
    jit = backends.split(",")[1]
    for r in report["results"]:
        entry = r["providers"][f"{jit}:{r['variant']}"]
        assert entry["tflops"] > 1 and entry["max_rel_err"] < 1e-2, (r["variant"], entry)
        torch_entry = r["providers"]["torch"]
        assert "unsupported" in torch_entry or torch_entry["max_rel_err"] < 1e-2
    assert "torch" in report["results"][0]["providers"] and \
        "ms" in report["results"][0]["providers"]["torch"]  # per-tensor e4m3: cuBLASLt has it


# -- bench/ncu_matmul.py ------------------------------------------------------------------------

NCU_CSV = '''==PROF== Connected to process 12 (/usr/bin/python3)
==PROF== Profiling "distribution_normal_kernel" - 0: 0%....50%....100% - 1 pass
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","gpu__time_duration.sum","sm__cycles_elapsed.avg.per_second","sm__cycles_elapsed.max","sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active"
"","","","","","","","ns","Hz","cycle","%"
"0","12","python3","h","distribution_normal_kernel","1","7","5,120","1,755,000,000","9,000","0"
"1","12","python3","h","matmul_kernel_tma_persistent","1","7","201,344","1,620,000,000","326,000","93.5"
'''


def test_ncu_matmul_reads_the_last_kernel_of_ncus_table():
    import ncu_matmul
    row = ncu_matmul.last_kernel(NCU_CSV)
    assert row == {"kernel": "matmul_kernel_tma_persistent", "tensor_pipe_pct": 93.5,
                   "sm_clock_hz": 1.62e9, "sm_cycles": 326000.0, "duration_ns": 201344.0}
    with pytest.raises(RuntimeError, match="no table"):
        ncu_matmul.last_kernel("==PROF== nothing profiled")


def test_ncu_matmul_providers_pair_each_variant_with_its_triton_kernel():
    import ncu_matmul
    assert ncu_matmul.providers(["tma-persistent-ws", "tma-persistent-ws-pp"]) == [
        "torch", "warpforge:tma-persistent-ws", "triton:tma-persistent-ws",
        "warpforge:tma-persistent-ws-pp"]


def test_gpu_path_on_fake_torch_with_small_m(kernels, tmp_path, monkeypatch):
    """The small-M variant: the blocked kernel autotuned over the small-M
    configs, provider warpforge:small-m, ratio against cuBLAS."""
    argv = _fake_gpu(monkeypatch, "1x64x256,37x130x256") + [
        "--backends", "torch,warpforge", "--results-dir", str(tmp_path),
        "--variants", "small-m", "--rounds", "1"]
    assert mm.main(argv) == 0
    report, _ = _only_report(tmp_path)
    assert report["failures"] == []
    assert report["settings"]["providers"] == ["torch", "warpforge:small-m"]
    for r in report["results"]:
        wf = r["providers"]["warpforge:small-m"]
        assert wf["max_rel_err"] < 1e-3 and wf["tflops"] > 0
        assert wf["config"]["name"] in {kernels.describe(c) for c in kernels.SMALL_M_CONFIGS}
        assert len(wf["autotune"]) == len(kernels.SMALL_M_CONFIGS)
        assert set(r["ratios"]) == {"warpforge:small-m/cublas"}


def test_small_m_defaults():
    """--variants small-m alone runs decoding's shapes: M = 1 to 64 against
    N = K = 4096 and 8192."""
    assert mm.SMALL_M_SHAPES == [(m, nk, nk) for nk in (4096, 8192) for m in (1, 16, 32, 64)]


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_small_m_configs_compile_to_mma_sync(kernels, dtype, monkeypatch):
    """Every small-M config compiles (cubin, no spills): 16 and 32 rows on
    mma.sync with cp.async rings, 64 on wgmma."""
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    t = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    a, b, c = torch.zeros(16, 4096, dtype=t), torch.zeros(4096, 4096, dtype=t), \
        torch.zeros(16, 4096, dtype=t)
    for config in kernels.SMALL_M_CONFIGS:
        kernel, grid, args, meta = kernels.matmul_call(a, b, c, config)
        k = kernel.warmup(*args, grid=(1,), **meta)
        ptx = k.asm["ptx"]
        assert ("mma.sync" if config.block_m < 64 else "wgmma") in ptx, config
        assert "cp.async" in ptx, config
        assert k.metadata["spill_stores"] == 0, config
