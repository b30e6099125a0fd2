"""Memory-bound kernels on one GPU: warpforge, Triton and torch side by side.

The kernels (vector add, row softmax, layer norm forward) are written once,
in bench/kernels/memory_bound.py, and compiled by both Triton and warpforge.
Every warpforge and Triton result is checked against torch (random inputs,
outputs poisoned with NaN and followed by a poisoned guard) before it is
timed. Each provider is timed by warpforge.testing.do_bench (median, CUDA
events, L2 flushed), and reported in GB/s of the minimum bytes moved (inputs
read once, outputs written once), as a percentage of the device-to-device
copy bandwidth measured in the same run. Also: the cold compile time of the
softmax and layer-norm kernels (fresh caches, in a new process) and the warm
launch overhead.

    python bench/memory_bound.py [--quick] [--only softmax,layernorm] [--results-dir DIR]
    python bench/memory_bound.py --dry-run    # no GPU: compile, interpret, report
    python bench/memory_bound.py --plot DIR   # also: GB/s by size, as CSV and PNG

The JSON report goes to bench/results/memory_bound-<date>.json; the summary
table is printed last. `--plot DIR` draws the measured GB/s of each kernel and
dtype against its size, one line per provider, with warpforge.testing's
perf_report: memory_bound-<kernel>-<dtype>.csv and .png (with matplotlib)
and results.html in DIR. The exit status is 1 when any check or run failed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

import common

KERNEL_FILE = os.path.join(common.BENCH_DIR, "kernels", "memory_bound.py")
KERNELS = ("add", "softmax", "layernorm")
SECTIONS = KERNELS + ("compile", "launch")
PROVIDERS = ("warpforge", "triton", "torch")
EPS = 1e-5
COPY_BYTES = 1 << 30
LAUNCHES = 10_000


@dataclass(frozen=True)
class Case:
    kernel: str
    shape: Tuple[int, ...]
    dtype: str  # "fp32" or "fp16"

    @property
    def label(self) -> str:
        return f"{self.kernel} {self.dtype} {'x'.join(map(str, self.shape))}"

    @property
    def nbytes(self) -> int:
        """The minimum bytes moved: every input read once, every output written once."""
        elem = 4 if self.dtype == "fp32" else 2
        numel = math.prod(self.shape)
        if self.kernel == "add":
            return 3 * numel * elem
        if self.kernel == "softmax":
            return 2 * numel * elem
        rows, cols = self.shape  # x, y; weight, bias; fp32 mean and rstd
        return 2 * numel * elem + 2 * cols * elem + 2 * rows * 4


def cases(kernel: str, quick: bool) -> List[Case]:
    if kernel == "add":
        sizes = [1 << 24] if quick else [1 << 24, 1 << 26, 1 << 28]
        return [Case("add", (n,), "fp32") for n in sizes]
    if kernel == "softmax":
        shapes = [(4096, 1024), (4096, 1000)] if quick else \
            [(4096, 1024), (4096, 4096), (16384, 2048), (4096, 1000)]
        return [Case("softmax", s, d) for d in ("fp32", "fp16") for s in shapes]
    widths = [1024, 1000] if quick else [1024, 4096, 8192, 1000]
    return [Case("layernorm", (4096, n), "fp16") for n in widths]


# -- What each kernel reads, writes and should produce ------------------------------

OUTPUTS = {"add": ("out",), "softmax": ("out",), "layernorm": ("out", "mean", "rstd")}
# (rtol, atol) by kernel and output: fp32 addition is exact; fp16 outputs are
# rounded once from fp32, the statistics summed in another order.
TOLERANCE = {("add", "fp32"): (0.0, 0.0), ("softmax", "fp32"): (1e-5, 1e-6),
             ("softmax", "fp16"): (2e-3, 1e-5), ("layernorm", "fp16"): (1e-2, 1e-2),
             ("layernorm", "stats"): (1e-4, 1e-5)}


def make_inputs(case: Case, arrays) -> Dict[str, Any]:
    if case.kernel == "add" or case.kernel == "softmax":
        names = ("x", "y") if case.kernel == "add" else ("x",)
        return {n: arrays.randn(case.shape, case.dtype, scale=2.0) for n in names}
    cols = case.shape[1]
    return {"x": arrays.randn(case.shape, case.dtype, scale=1.5, shift=0.5),
            "w": arrays.randn((cols,), case.dtype, scale=0.5, shift=1.0),
            "b": arrays.randn((cols,), case.dtype, scale=0.5)}


def make_outputs(case: Case, arrays) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Outputs filled with NaN, and the NaN guards after each."""
    shapes = {"out": (case.shape, case.dtype), "mean": ((case.shape[0],), "fp32"),
              "rstd": ((case.shape[0],), "fp32")}
    made = {n: arrays.poisoned(*shapes[n]) for n in OUTPUTS[case.kernel]}
    return {n: v[0] for n, v in made.items()}, {n: v[1] for n, v in made.items()}


def kernel_call(kernels, case: Case, inp, out):
    """(kernel, grid, args, meta) of the kernel file's launcher for `case`."""
    if case.kernel == "add":
        return kernels.add_call(inp["x"], inp["y"], out["out"])
    if case.kernel == "softmax":
        return kernels.softmax_call(inp["x"], out["out"])
    return kernels.layer_norm_call(inp["x"], inp["w"], inp["b"], EPS, out["out"], out["mean"],
                                   out["rstd"])


def torch_fn(torch, case: Case, inp):
    """The torch provider: what a torch user writes."""
    x = inp["x"]
    if case.kernel == "add":
        y = inp["y"]
        return lambda: x + y
    if case.kernel == "softmax":
        return lambda: torch.softmax(x, dim=-1)
    w, b = inp["w"], inp["b"]
    return lambda: torch.nn.functional.layer_norm(x, (x.shape[1],), w, b, EPS)


def torch_reference(torch, case: Case, inp) -> Dict[str, Any]:
    ref = {"out": torch_fn(torch, case, inp)()}
    if case.kernel == "layernorm":
        xf = inp["x"].float()
        ref["mean"] = xf.mean(dim=1)
        ref["rstd"] = torch.rsqrt(xf.var(dim=1, correction=0) + EPS)
    return ref


def numpy_reference(case: Case, inp) -> Dict[str, Any]:
    """The reference of the CPU dry run, in float64."""
    import numpy as np
    x = inp["x"].astype(np.float64)
    if case.kernel == "add":
        return {"out": x + inp["y"].astype(np.float64)}
    if case.kernel == "softmax":
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return {"out": e / e.sum(axis=1, keepdims=True)}
    mean = x.mean(axis=1)
    rstd = 1.0 / np.sqrt(x.var(axis=1) + EPS)
    y = (x - mean[:, None]) * rstd[:, None] * inp["w"].astype(np.float64) + inp["b"]
    return {"out": y, "mean": mean, "rstd": rstd}


def check_outputs(who: str, case: Case, out, guards, ref) -> None:
    for name in OUTPUTS[case.kernel]:
        key = (case.kernel, "stats" if name in ("mean", "rstd") else case.dtype)
        rtol, atol = TOLERANCE[key]
        common.check_close(f"{who} {case.label} {name}", out[name], ref[name], rtol, atol)
        common.check_guard(f"{who} {case.label} {name}", guards[name])


# -- GPU run --------------------------------------------------------------------------


def run_case(torch, case: Case, kernels: Dict[str, Any], args, copy_gbps: float,
             failures: List[str]) -> Dict[str, Any]:
    arrays = common.TorchArrays(torch, seed=zlib.crc32(case.label.encode()))
    inp = make_inputs(case, arrays)
    ref = torch_reference(torch, case, inp)
    torch.cuda.synchronize()
    result: Dict[str, Any] = {"kernel": case.kernel, "shape": list(case.shape),
                              "dtype": case.dtype, "bytes": case.nbytes, "providers": {}}
    for provider in args.providers:
        try:
            if provider == "torch":
                fn = torch_fn(torch, case, inp)
            else:
                if isinstance(kernels[provider], Exception):
                    raise kernels[provider]
                out, guards = make_outputs(case, arrays)
                call = kernel_call(kernels[provider], case, inp, out)
                common.launch(call)
                torch.cuda.synchronize()
                check_outputs(provider, case, out, guards, ref)
                fn = common.launcher(call)
            ms = common.bench_ms(fn, args.warmup, args.rep)
            rate = common.gbps(case.nbytes, ms)
            result["providers"][provider] = {"ms": ms, "gbps": rate,
                                             "pct_of_copy": 100 * rate / copy_gbps}
        except Exception as e:
            result["providers"][provider] = common.record_failure(
                failures, f"{provider} {case.label}", e)
    p = result["providers"]
    if p.get("warpforge", {}).get("ms") and p.get("triton", {}).get("ms"):
        result["warpforge_over_triton"] = p["triton"]["ms"] / p["warpforge"]["ms"]
    del inp, ref
    torch.cuda.empty_cache()
    return result


def tiny_add_fn(kernels, arrays):
    """A warm launch of the vector add on one element: a near-empty kernel."""
    case = Case("add", (1,), "fp32")
    out, _ = make_outputs(case, arrays)
    kernel, grid, args, meta = kernel_call(kernels, case, make_inputs(case, arrays), out)
    return lambda: kernel[grid](*args, **meta)


def gpu_run(args, failures: List[str]) -> Dict[str, Any]:
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("memory_bound.py: torch sees no CUDA GPU; on a machine without one, "
                         "run with --dry-run")
    kernels: Dict[str, Any] = {}
    for backend in [p for p in args.providers if p != "torch"]:
        try:
            kernels[backend] = common.load_kernels(KERNEL_FILE, backend)
        except Exception as e:  # each case reports it
            kernels[backend] = e
    triton = sys.modules.get("triton")
    report: Dict[str, Any] = {"environment": common.environment(torch, triton)}
    copy = common.copy_bandwidth(torch, COPY_BYTES, args.warmup, args.rep)
    report["copy_bandwidth"] = copy
    print(f"copy_ bandwidth: {copy['gbps']:.0f} GB/s", flush=True)
    results = []
    for kernel in [k for k in KERNELS if k in args.only]:
        for case in cases(kernel, args.quick):
            results.append(run_case(torch, case, kernels, args, copy["gbps"], failures))
            print(f"{case.label}: " + ", ".join(
                f"{p} {common.fmt(v.get('gbps'))} GB/s" if "error" not in v else f"{p} FAILED"
                for p, v in results[-1]["providers"].items()), flush=True)
    report["results"] = results
    if "compile" in args.only:
        report["cold_compile"] = cold_compile_all(args, failures, dry_run=False)
    if "launch" in args.only:
        arrays, overhead = common.TorchArrays(torch), {}
        fns = {"torch": _torch_tiny_add(torch, arrays)}
        fns.update({b: tiny_add_fn(k, arrays) for b, k in kernels.items()
                    if not isinstance(k, Exception)})
        for name in [p for p in args.providers if p in fns]:
            try:
                overhead[name] = common.launch_overhead(fns[name], torch.cuda.synchronize, LAUNCHES)
            except Exception as e:
                overhead[name] = common.record_failure(failures, f"launch overhead {name}", e)
        report["launch_overhead"] = overhead
    return report


def _torch_tiny_add(torch, arrays):
    x, y = arrays.randn((1,), "fp32"), arrays.randn((1,), "fp32")
    out = torch.empty_like(x)
    return lambda: torch.add(x, y, out=out)


# -- Cold compile -------------------------------------------------------------------


def cold_compile(backend: str, dry_run: bool) -> Dict[str, Any]:
    """cold_compile_child's timings, from a new process with empty kernel caches."""
    argv = [os.path.abspath(__file__), "--cold-compile-child", backend]
    return common.run_with_fresh_caches(argv + (["--dry-run"] if dry_run else []))


def cold_compile_child(backend: str, dry_run: bool) -> None:
    """Times the first call of the vector add (one-time set-up of the JIT and
    driver included), then the first and second call of the softmax kernel,
    each until the device is done; prints them as JSON on the last line. In a
    dry run, 'call' is compiling (warmup; Triton: to sm_90a without a GPU)."""
    if dry_run:
        arrays, sync = common.NumpyArrays(), (lambda: None)
    else:
        import torch
        arrays, sync = common.TorchArrays(torch), torch.cuda.synchronize
        torch.cuda.synchronize()
    kernels = common.load_kernels(KERNEL_FILE, backend)

    def first_call(case: Case) -> float:
        out, _ = make_outputs(case, arrays)
        call = kernel_call(kernels, case, make_inputs(case, arrays), out)
        sync()
        t0 = time.perf_counter()
        if dry_run:
            common.compile_only(backend, call)
        else:
            common.launch(call)
        sync()
        return (time.perf_counter() - t0) * 1e3

    softmax = Case("softmax", (4096 if not dry_run else 4, 1024), "fp32")
    layernorm = Case("layernorm", (4096 if not dry_run else 2, 1024), "fp16")
    first = first_call(Case("add", (1 << 20,), "fp32"))
    cold = first_call(softmax)
    warm = first_call(softmax)
    layernorm_cold = first_call(layernorm)
    print(json.dumps({"kernel": "softmax", "case": softmax.label, "first_kernel_ms": first,
                      "cold_ms": cold, "warm_ms": warm, "layernorm_case": layernorm.label,
                      "layernorm_cold_ms": layernorm_cold}))


def cold_compile_all(args, failures: List[str], dry_run: bool) -> Dict[str, Any]:
    report = {}
    for backend in [p for p in args.providers if p != "torch"]:
        if dry_run and backend == "triton" and not _importable("triton"):
            report[backend] = {"skipped": "triton is not installed"}
            continue
        try:
            report[backend] = cold_compile(backend, dry_run)
        except Exception as e:
            report[backend] = common.record_failure(failures, f"cold compile {backend}", e)
    return report


def _importable(name: str) -> bool:
    import importlib.util
    return importlib.util.find_spec(name) is not None


# -- Dry run: no GPU ----------------------------------------------------------------


def dry_run(args, failures: List[str]) -> Dict[str, Any]:
    """Every case the GPU run launches is compiled (warpforge through its
    pipeline; Triton, when installed, to a cubin for sm_90a) on a stand-in
    with the same specialization (2 rows, or 4096 elements), then run by
    warpforge's interpreter on poisoned outputs and checked against NumPy."""
    kernels: Dict[str, Any] = {"warpforge": common.load_kernels(KERNEL_FILE, "warpforge")}
    if "triton" in args.providers:
        try:
            kernels["triton"] = common.load_kernels(KERNEL_FILE, "triton")
        except ImportError as e:
            print(f"dry run: triton is not installed here ({e}); compiling with warpforge only",
                  file=sys.stderr)
    arrays = common.NumpyArrays()
    results = []
    stand_ins = [Case(c.kernel, (4096,) if c.kernel == "add" else (2, c.shape[1]), c.dtype)
                 for k in KERNELS if k in args.only for c in cases(k, args.quick)]
    if "add" in args.only:
        stand_ins.append(Case("add", (5001,), "fp32"))  # a partial last block
    for case in dict.fromkeys(stand_ins):
        inp = make_inputs(case, arrays)
        row: Dict[str, Any] = {"kernel": case.kernel, "shape": list(case.shape),
                               "dtype": case.dtype, "compile_ms": {}}
        for backend, module in kernels.items():
            out, _ = make_outputs(case, arrays)
            try:
                t0 = time.perf_counter()
                common.compile_only(backend, kernel_call(module, case, inp, out))
                row["compile_ms"][backend] = (time.perf_counter() - t0) * 1e3
            except Exception as e:
                row["compile_ms"][backend] = common.record_failure(
                    failures, f"compile {backend} {case.label}", e)
        out, guards = make_outputs(case, arrays)
        os.environ["WARPFORGE_INTERPRET"] = "1"
        try:
            common.launch(kernel_call(kernels["warpforge"], case, inp, out))
            check_outputs("warpforge interpreter", case, out, guards, numpy_reference(case, inp))
            row["interpreter_check"] = "ok"
        except Exception as e:
            row["interpreter_check"] = common.record_failure(
                failures, f"interpreter {case.label}", e)
        finally:
            del os.environ["WARPFORGE_INTERPRET"]
        results.append(row)
    report: Dict[str, Any] = {"results": results}
    if "compile" in args.only:
        report["cold_compile"] = cold_compile_all(args, failures, dry_run=True)
    if "launch" in args.only:
        os.environ["WARPFORGE_INTERPRET"] = "1"
        try:
            report["launch_overhead"] = {"warpforge (interpreter)": common.launch_overhead(
                tiny_add_fn(kernels["warpforge"], arrays), lambda: None, launches=200, repeats=2)}
        finally:
            del os.environ["WARPFORGE_INTERPRET"]
    return report


# -- Report -------------------------------------------------------------------------------


def dry_table(report) -> str:
    rows = []
    for r in report["results"]:
        c = Case(r["kernel"], tuple(r["shape"]), r["dtype"])
        compiled = [_ms_or_fail(r["compile_ms"].get(b)) for b in common.BACKENDS]
        rows.append([c.label, *compiled, "ok" if r["interpreter_check"] == "ok" else "FAIL"])
    return common.format_table(["stand-in case", "warpforge ms", "triton ms", "interpreter"], rows)


def _ms_or_fail(value) -> str:
    if isinstance(value, dict):
        return "FAIL"
    return common.fmt(value, ".0f")


def gpu_table(report) -> str:
    rows = []
    for r in report["results"]:
        p = r["providers"]
        label = Case(r["kernel"], tuple(r["shape"]), r["dtype"]).label

        def cell(provider, key, spec=".0f"):
            v = p.get(provider)
            return "" if v is None else "FAIL" if "error" in v else common.fmt(v.get(key), spec)
        rows.append([label] + [cell(x, "gbps") for x in PROVIDERS]
                    + [cell(x, "pct_of_copy") for x in PROVIDERS]
                    + [common.fmt(r.get("warpforge_over_triton"), ".2f")])
    headers = ["case (GB/s, % of copy_)", "warpforge", "triton", "torch", "wf %", "tr %",
               "torch %", "wf/tr"]
    return common.format_table(headers, rows)


def plot_results(report, plot_dir: str) -> List[str]:
    """Draws the measured GB/s with perf_report: for each kernel and dtype,
    the size (elements) on the x axis and one line per provider; a failed
    measurement is a gap. Returns the plot names."""
    from warpforge.testing import Benchmark, perf_report
    groups: Dict[Tuple[str, str], Dict[Tuple[int, str], Dict[str, Any]]] = {}
    for r in report["results"]:
        shape = "x".join(map(str, r["shape"]))
        groups.setdefault((r["kernel"], r["dtype"]), {})[(math.prod(r["shape"]), shape)] = \
            r["providers"]
    benchmarks = []
    for (kernel, dtype), by_size in groups.items():
        providers = [p for p in PROVIDERS if any(p in v for v in by_size.values())]
        benchmarks.append(Benchmark(
            x_names=["elements", "shape"], x_vals=sorted(by_size), line_arg="provider",
            line_vals=providers, line_names=providers, plot_name=f"memory_bound-{kernel}-{dtype}",
            args={"measured": by_size}, xlabel=f"{kernel} {dtype}: elements", ylabel="GB/s",
            x_log=True))

    @perf_report(benchmarks)
    def gbps(elements, shape, provider, measured):
        return measured[(elements, shape)].get(provider, {}).get("gbps")

    gbps.run(save_path=plot_dir)
    return [b.plot_name for b in benchmarks]


def summary_lines(report) -> List[str]:
    lines = []
    copy = report.get("copy_bandwidth")
    if copy:
        lines.append(f"copy_ roofline: {copy['gbps']:.0f} GB/s ({copy['buffer_bytes'] / 2**30:g} "
                     "GiB buffer, read + write); wf/tr > 1: warpforge faster")
    cold = report.get("cold_compile")
    if cold:
        what = "compile only" if report.get("mode") == "dry-run" else "first call + sync"
        lines.append(f"cold compile, softmax and layer norm ({what}): " + ", ".join(
            f"{b} {_cold_text(v)}" for b, v in cold.items()))
    launch = report.get("launch_overhead")
    if launch:
        lines.append("warm launch, 1-element add, no CUDA graphs (us/launch, submit / total): "
                     + ", ".join(f"{n} " + ("FAIL" if "error" in v else
                                            f"{v['submit_us']:.1f} / {v['total_us']:.1f}")
                                 for n, v in launch.items()))
    return lines


def _cold_text(v) -> str:
    if "error" in v:
        return "FAIL"
    if "skipped" in v:
        return "skipped"
    return (f"{v['cold_ms']:.0f} ms (warm {v['warm_ms']:.1f} ms, first kernel "
            f"{v['first_kernel_ms']:.0f} ms; layer norm cold {v['layernorm_cold_ms']:.0f} ms)")


# -- Command line -------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer sizes, shorter timing")
    p.add_argument("--only", type=lambda s: common.parse_list(s, SECTIONS),
                   default=list(SECTIONS), help=f"comma-separated subset of {','.join(SECTIONS)}")
    p.add_argument("--providers", type=lambda s: common.parse_list(s, PROVIDERS),
                   default=list(PROVIDERS), help="comma-separated subset of "
                   f"{','.join(PROVIDERS)}")
    p.add_argument("--warmup", type=float, help="do_bench warmup in ms (default 25, quick 10)")
    p.add_argument("--rep", type=float, help="do_bench repetition time in ms "
                   "(default 100, quick 25)")
    p.add_argument("--results-dir", help="where the JSON goes (default bench/results; "
                   "dry run: a temporary directory)")
    p.add_argument("--dry-run", action="store_true",
                   help="no GPU: compile every case, run small ones in the interpreter")
    p.add_argument("--plot", metavar="DIR", help="also write each kernel's GB/s by size, one "
                   "line per provider, to DIR with warpforge.testing.perf_report: a CSV file, "
                   "a PNG (when matplotlib is installed) and results.html")
    p.add_argument("--cold-compile-child", choices=("warpforge", "triton"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    for name, full, quick in (("warmup", 25.0, 10.0), ("rep", 100.0, 25.0)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
        elif getattr(args, name) <= 0:
            p.error(f"--{name} must be positive")
    if args.plot is not None and args.dry_run:
        p.error("--plot draws the GPU run's bandwidth, which a dry run does not measure")
    if args.results_dir is None:
        args.results_dir = os.path.join(tempfile.gettempdir(), "warpforge-bench") \
            if args.dry_run else os.path.join(common.BENCH_DIR, "results")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.cold_compile_child:
        cold_compile_child(args.cold_compile_child, args.dry_run)
        return 0
    failures: List[str] = []
    started = time.time()
    mode = "dry-run" if args.dry_run else "quick" if args.quick else "full"
    report = dry_run(args, failures) if args.dry_run else gpu_run(args, failures)
    environment = report.pop("environment", None) or common.environment(
        None, sys.modules.get("triton"))
    report = {"benchmark": "memory_bound", "mode": mode,
              "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
              "environment": environment,
              "settings": {"timer": "warpforge.testing.do_bench, median, L2 flushed",
                           "warmup_ms": args.warmup, "rep_ms": args.rep, "only": args.only,
                           "providers": args.providers},
              **report, "failures": failures, "seconds": round(time.time() - started, 1)}
    path = common.write_json(report, args.results_dir,
                             "memory_bound-dry-run" if args.dry_run else "memory_bound")
    print()
    print(dry_table(report) if args.dry_run else gpu_table(report))
    for line in summary_lines(report):
        print(line)
    if args.plot is not None and report["results"]:
        try:
            names = plot_results(report, args.plot)
            print(f"plots: {', '.join(names)} in {args.plot}")
        except Exception as e:  # the measurements are in the JSON already
            common.record_failure(failures, "--plot", e)
    print(f"JSON: {path}")
    if failures:
        print(f"{len(failures)} FAILED (details above and in the JSON): "
              + "; ".join(f[:120] for f in failures[:5]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
