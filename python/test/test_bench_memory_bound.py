"""bench/memory_bound.py and bench/common.py: the parts that run without a GPU
(argument parsing, checks, table, JSON, loading one kernel file under two
JITs, the dry run end to end), and a short GPU run."""

import argparse
import datetime
import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")
sys.path.insert(0, os.path.abspath(BENCH))

import common  # noqa: E402
import memory_bound as mb  # noqa: E402


def test_parse_args_defaults_and_quick():
    args = mb.parse_args([])
    assert args.only == list(mb.SECTIONS) and args.providers == list(mb.PROVIDERS)
    assert (args.warmup, args.rep) == (25.0, 100.0)
    assert args.results_dir == os.path.join(common.BENCH_DIR, "results")
    quick = mb.parse_args(["--quick", "--only", "softmax,launch", "--rep", "7"])
    assert quick.only == ["softmax", "launch"] and (quick.warmup, quick.rep) == (10.0, 7.0)


@pytest.mark.parametrize("argv", [["--only", "sofmax"], ["--only", ""], ["--providers", "cuda"],
                                  ["--rep", "0"]])
def test_parse_args_rejects(argv, capsys):
    with pytest.raises(SystemExit):
        mb.parse_args(argv)
    err = capsys.readouterr().err
    assert f"argument {argv[0]}: expected a comma-separated list" in err \
        or "--rep must be positive" in err


def test_parse_list():
    assert common.parse_list(" add, softmax ", ("add", "softmax")) == ["add", "softmax"]
    with pytest.raises(argparse.ArgumentTypeError, match="list of add, softmax; got 'add,mm'"):
        common.parse_list("add,mm", ("add", "softmax"))


def test_cases_and_bytes():
    full = {k: mb.cases(k, quick=False) for k in mb.KERNELS}
    assert [c.shape for c in full["add"]] == [(1 << 24,), (1 << 26,), (1 << 28,)]
    assert len(full["softmax"]) == 8 and {c.dtype for c in full["softmax"]} == {"fp32", "fp16"}
    assert (4096, 1000) in {c.shape for c in full["layernorm"]}
    assert all(len(mb.cases(k, quick=True)) < len(full[k]) for k in mb.KERNELS)
    assert mb.Case("add", (1 << 24,), "fp32").nbytes == 3 * 4 << 24
    assert mb.Case("softmax", (4096, 1000), "fp16").nbytes == 2 * 2 * 4096 * 1000
    assert mb.Case("layernorm", (8, 100), "fp16").nbytes == 2 * 2 * 800 + 2 * 2 * 100 + 2 * 4 * 8
    assert mb.Case("softmax", (16384, 2048), "fp16").label == "softmax fp16 16384x2048"


def test_check_close():
    common.check_close("same", np.array([1.0, 2.0], np.float16), np.array([1.0, 2.0]), 0, 0)
    with pytest.raises(common.Mismatch, match=r"x: 1 of 3 elements differ .*worst at \(1,\)"):
        common.check_close("x", np.array([1.0, 2.5, 3.0]), np.array([1.0, 2.0, 3.0]), 1e-3, 0)
    with pytest.raises(common.Mismatch, match="1 of 2 elements"):  # a poisoned, unwritten one
        common.check_close("nan", np.array([np.nan, 1.0]), np.array([0.5, 1.0]), 1e-2, 1e-2)
    with pytest.raises(common.Mismatch, match="shape"):
        common.check_close("shape", np.zeros(3), np.zeros(4), 0, 0)


def test_check_guard():
    arrays = common.NumpyArrays()
    out, guard = arrays.poisoned((3, 5), "fp16")
    assert out.shape == (3, 5) and np.isnan(out).all() and len(guard) == common.GUARD
    common.check_guard("ok", guard)
    out.base[15] = 1.0  # one element past the end of the output
    with pytest.raises(common.Mismatch, match="wrote 1 elements past the end"):
        common.check_guard("out", guard)


def test_format_table_and_fmt():
    table = common.format_table(["case", "GB/s"], [["add", "3000"], ["softmax fp16", "-"]])
    lines = table.splitlines()
    assert lines[0] == "case          GB/s" and lines[1] == "------------  ----"
    assert lines[3] == "softmax fp16     -"
    assert common.fmt(None) == "-" and common.fmt(2.345, ".2f") == "2.35"
    assert common.gbps(3_000_000, 1.0) == pytest.approx(3.0) and common.gbps(1, None) is None


def test_write_json(tmp_path):
    when = datetime.datetime(2026, 3, 4, 5, 6, 7)
    path = common.write_json({"a": [1, 2.5]}, str(tmp_path / "r"), "memory_bound", when)
    assert os.path.basename(path) == "memory_bound-2026-03-04-050607.json"
    assert json.load(open(path)) == {"a": [1, 2.5]}
    assert os.listdir(tmp_path / "r") == [os.path.basename(path)]


def test_load_kernels_twice_and_bad_backend():
    a = common.load_kernels(mb.KERNEL_FILE, "warpforge")
    b = common.load_kernels(mb.KERNEL_FILE, "warpforge")
    assert a is not b and a.softmax_kernel is not b.softmax_kernel
    assert a.jit_backend.__name__ == "warpforge" and a.BACKEND == "warpforge"
    assert "def softmax_kernel" in a.softmax_kernel.src
    with pytest.raises(ValueError, match="backend must be one of"):
        common.load_kernels(mb.KERNEL_FILE, "cuda")


def test_same_file_under_triton_compiles_for_sm90():
    """Where Triton is installed: the kernel file loads under it next to
    warpforge, and its layer norm compiles to a cubin without a GPU."""
    triton = pytest.importorskip("triton")
    kt = common.load_kernels(mb.KERNEL_FILE, "triton")
    kw = common.load_kernels(mb.KERNEL_FILE, "warpforge")
    assert kt.jit_backend is triton and kw.jit_backend.__name__ == "warpforge"
    assert "def layer_norm_kernel" in kt.layer_norm_kernel.src
    case = mb.Case("layernorm", (2, 1000), "fp16")
    arrays = common.NumpyArrays()
    out, _ = mb.make_outputs(case, arrays)
    compiled = common.compile_only("triton", mb.kernel_call(kt, case, mb.make_inputs(case, arrays),
                                                            out))
    assert compiled.metadata.num_warps == 4 and compiled.asm["cubin"]


def test_launch_configs_follow_the_tutorial_heuristics():
    k = common.load_kernels(mb.KERNEL_FILE, "warpforge")
    arrays = common.NumpyArrays()
    for cols, block, warps in [(1000, 1024, 4), (2048, 2048, 8), (4096, 4096, 16)]:
        x, (out, _) = arrays.randn((2, cols), "fp32"), arrays.poisoned((2, cols), "fp32")
        _, grid, args, meta = k.softmax_call(x, out)
        assert grid == (2,) and meta == {"BLOCK_SIZE": block, "num_warps": warps}
        assert args[2:] == (cols, cols, cols)
    case = mb.Case("layernorm", (3, 8192), "fp16")
    out, _ = mb.make_outputs(case, arrays)
    _, grid, _, meta = mb.kernel_call(k, case, mb.make_inputs(case, arrays), out)
    assert grid == (3,) and meta == {"BLOCK_SIZE": 8192, "num_warps": 8}
    wide = mb.Case("layernorm", (1, 40000), "fp16")
    out, _ = mb.make_outputs(wide, arrays)
    with pytest.raises(ValueError, match="do not fit one block"):
        mb.kernel_call(k, wide, mb.make_inputs(wide, arrays), out)


def test_dry_run_end_to_end(tmp_path):
    """Compiles every quick case, interprets it against NumPy, runs the cold
    compile in a child process and writes the JSON."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "memory_bound.py"), "--dry-run",
                           "--quick", "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (name,) = os.listdir(tmp_path)
    report = json.load(open(tmp_path / name))
    assert report["mode"] == "dry-run" and report["failures"] == []
    assert report["environment"]["warpforge_core"]
    labels = {mb.Case(r["kernel"], tuple(r["shape"]), r["dtype"]).label for r in report["results"]}
    assert {"add fp32 4096", "add fp32 5001", "softmax fp16 2x1000",
            "layernorm fp16 2x1024"} <= labels
    assert all(r["interpreter_check"] == "ok" for r in report["results"])
    assert report["cold_compile"]["warpforge"]["cold_ms"] > 0
    assert report["cold_compile"]["warpforge"]["layernorm_cold_ms"] > 0
    assert proc.stdout.rstrip().splitlines()[-1] == f"JSON: {tmp_path / name}"


def _fake_gpu(monkeypatch):
    """bench/memory_bound.py's GPU path on bench_fake_torch (NumPy), with
    warpforge's kernels interpreted, on small cases."""
    import bench_fake_torch
    monkeypatch.setitem(sys.modules, "torch", bench_fake_torch)
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.setattr(mb, "COPY_BYTES", 1 << 20)
    monkeypatch.setattr(mb, "LAUNCHES", 20)
    small = {"add": [mb.Case("add", (5001,), "fp32")],
             "softmax": [mb.Case("softmax", (3, 1000), "fp16"),
                         mb.Case("softmax", (2, 1024), "fp32")],
             "layernorm": [mb.Case("layernorm", (3, 1000), "fp16")]}
    monkeypatch.setattr(mb, "cases", lambda kernel, quick: small[kernel])
    return ["--providers", "warpforge,torch", "--warmup", "1", "--rep", "1"]


def test_gpu_path_on_fake_torch(tmp_path, monkeypatch, capsys):
    argv = _fake_gpu(monkeypatch) + ["--only", "add,softmax,layernorm,launch",
                                     "--results-dir", str(tmp_path)]
    assert mb.main(argv) == 0
    (name,) = os.listdir(tmp_path)
    report = json.load(open(tmp_path / name))
    assert report["environment"]["device"] == "fake GPU" and report["failures"] == []
    assert report["copy_bandwidth"]["bytes_moved"] == 2 << 20
    assert [r["shape"] for r in report["results"]] == [[5001], [3, 1000], [2, 1024], [3, 1000]]
    for r in report["results"]:
        assert set(r["providers"]) == {"warpforge", "torch"}
        for v in r["providers"].values():
            assert v["gbps"] > 0 and v["pct_of_copy"] > 0
    assert set(report["launch_overhead"]) == {"warpforge", "torch"}
    assert report["launch_overhead"]["warpforge"]["launches"] == 20
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("JSON: ")
    assert any(line.startswith("softmax fp16 3x1000") for line in lines)
    assert any(line.startswith("warm launch, 1-element add") for line in lines)


def test_gpu_path_plot_on_fake_torch(tmp_path, monkeypatch, capsys):
    """--plot draws the GB/s already measured with perf_report: one CSV (and,
    with matplotlib, one PNG) per kernel and dtype; the JSON is as without it."""
    argv = _fake_gpu(monkeypatch) + ["--only", "add,softmax", "--results-dir",
                                     str(tmp_path / "json")]
    plots = tmp_path / "plots"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # where matplotlib is missing: no PNG, one warning
        assert mb.main(argv + ["--plot", str(plots)]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = ["memory_bound-add-fp32", "memory_bound-softmax-fp16", "memory_bound-softmax-fp32"]
    assert lines[-2] == f"plots: {', '.join(names)} in {plots}" and lines[-1].startswith("JSON: ")
    (name,) = os.listdir(tmp_path / "json")
    report = json.load(open(tmp_path / "json" / name))
    assert not any("plot" in key for key in report) and "plot" not in report["settings"]
    gbps = {(r["kernel"], r["dtype"], "x".join(map(str, r["shape"]))):
            {p: v["gbps"] for p, v in r["providers"].items()} for r in report["results"]}
    try:
        import matplotlib  # noqa: F401
        pngs = {n + ".png" for n in names}
    except ImportError:
        pngs = set()
    assert set(os.listdir(plots)) == {n + ".csv" for n in names} | pngs | {"results.html"}
    softmax = (plots / "memory_bound-softmax-fp16.csv").read_text().splitlines()
    assert softmax[0] == "elements,shape,warpforge (GB/s),torch (GB/s)"
    measured = gbps[("softmax", "fp16", "3x1000")]
    assert softmax[1:] == [f"3000,3x1000,{measured['warpforge']:.6f},{measured['torch']:.6f}"]
    add = (plots / "memory_bound-add-fp32.csv").read_text().splitlines()
    assert add[1].startswith("5001,5001,") and len(add) == 2


def test_plot_rejected_in_a_dry_run(capsys):
    with pytest.raises(SystemExit):
        mb.parse_args(["--dry-run", "--plot", "x"])
    assert "--plot draws the GPU run's bandwidth, which a dry run does not measure" \
        in capsys.readouterr().err
    assert mb.parse_args([]).plot is None


def test_plot_results_with_a_failed_provider(tmp_path):
    """A failed measurement is an empty cell (a gap in the plot); the sizes
    are sorted, and a provider absent from a kernel has no column."""
    report = {"results": [
        {"kernel": "softmax", "shape": [8, 4], "dtype": "fp32",
         "providers": {"warpforge": {"error": "Mismatch"}, "torch": {"gbps": 2.5}}},
        {"kernel": "softmax", "shape": [2, 4], "dtype": "fp32",
         "providers": {"warpforge": {"gbps": 1.25}, "torch": {"gbps": 3.0}}},
        {"kernel": "add", "shape": [10], "dtype": "fp32", "providers": {"torch": {"gbps": 1.0}}}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mb.plot_results(report, str(tmp_path)) == ["memory_bound-softmax-fp32",
                                                          "memory_bound-add-fp32"]
    assert (tmp_path / "memory_bound-softmax-fp32.csv").read_text() == (
        "elements,shape,warpforge (GB/s),torch (GB/s)\n"
        "8,2x4,1.250000,3.000000\n"
        "32,8x4,,2.500000\n")
    assert (tmp_path / "memory_bound-add-fp32.csv").read_text() == \
        "elements,shape,torch (GB/s)\n10,10,1.000000\n"


def test_gpu_path_fails_loudly_on_a_wrong_result(tmp_path, monkeypatch, capsys):
    argv = _fake_gpu(monkeypatch) + ["--only", "add", "--results-dir", str(tmp_path)]
    reference = mb.torch_reference

    def off_by_one(torch, case, inp):
        return {k: v + 1 for k, v in reference(torch, case, inp).items()}
    monkeypatch.setattr(mb, "torch_reference", off_by_one)
    assert mb.main(argv) == 1
    out, err = capsys.readouterr()
    assert "FAILED warpforge add fp32 5001: Mismatch: warpforge add fp32 5001 out: 5001 of 5001" \
        in err
    assert "1 FAILED" in out.splitlines()[-1]
    (name,) = os.listdir(tmp_path)
    providers = json.load(open(tmp_path / name))["results"][0]["providers"]
    assert "Mismatch" in providers["warpforge"]["error"] and providers["torch"]["gbps"] > 0


@pytest.mark.gpu
@pytest.mark.parametrize("only, providers", [("add,softmax,layernorm", "triton,torch"),
                                             ("add", "warpforge,torch")])
def test_gpu_quick_run(tmp_path, only, providers):
    """The benchmark's GPU path with Triton on every kernel, and with warpforge
    on the vector add (its own kernels are tested elsewhere)."""
    proc = subprocess.run([sys.executable, os.path.join(BENCH, "memory_bound.py"), "--quick",
                           "--only", only, "--providers", providers, "--warmup", "2", "--rep",
                           "5", "--results-dir", str(tmp_path)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (name,) = os.listdir(tmp_path)
    report = json.load(open(tmp_path / name))
    assert report["copy_bandwidth"]["gbps"] > 100 and report["environment"]["device"]
    assert {r["kernel"] for r in report["results"]} == set(only.split(","))
    for r in report["results"]:
        for provider in providers.split(","):
            assert r["providers"][provider]["gbps"] > 0, (r, provider)
