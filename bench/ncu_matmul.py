"""Where a matmul's time goes, from Nsight Compute's counters (issue 16's
profile column): for each provider of one case, the tensor pipes'
utilization, the SM clock and the kernel's duration, as ncu measures them.

    python bench/ncu_matmul.py [--shape 4096x4096x4096] [--dtype fp16]
        [--variants tma-persistent-ws,tma-persistent-ws-pp] [--results-dir DIR]

runs itself under `ncu` (one child process per run, --clock-control none:
the clock the kernel actually ran at, as in the timed benchmark), with each
provider's kernel launched after a warmup: warpforge's tutorial 09 variants
at the benchmark's configs, Triton 3.6's (its warp-specialized persistent
kernel for the -ws variants), and torch.matmul (cuBLAS). It writes
ncu_matmul-DATE.json ("benchmark": "ncu_matmul"; per provider the kernel
name and the metrics) and a Markdown table to the results directory.

The figures are ncu's, one profiled launch per provider after
`--launch-skip` warm launches, so they say where the time goes, not how fast
a provider is: bench/matmul.py's interleaved timing is the speed.
"""

import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402
import matmul as mm  # noqa: E402

# Tensor pipe activity (the HMMA pipe runs wgmma's fp16/bf16 and fp8 work on
# Hopper), the SM clock, elapsed cycles and duration.
METRICS = {
    "tensor_pipe_pct": "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
    "sm_clock_hz": "sm__cycles_elapsed.avg.per_second",
    "sm_cycles": "sm__cycles_elapsed.max",
    "duration_ns": "gpu__time_duration.sum",
}
WARM_LAUNCHES = 3


def providers(variants: List[str]) -> List[str]:
    names = ["torch"]
    for variant in variants:
        names.append(f"warpforge:{variant}")
        triton = mm.TRITON_VARIANT.get(variant, variant)
        if f"triton:{triton}" not in names:
            names.append(f"triton:{triton}")
    return names


def launch_one(provider: str, shape, dtype: str) -> None:
    """The child: WARM_LAUNCHES + 1 launches of one provider's kernel."""
    import torch
    m, n, k = shape
    torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}[dtype]
    gen = torch.Generator(device="cuda").manual_seed(0)
    a = torch.randn((m, k), device="cuda", dtype=torch_dtype, generator=gen)
    b_t = torch.randn((n, k), device="cuda", dtype=torch_dtype, generator=gen)
    c = torch.empty((m, n), device="cuda", dtype=torch_dtype)
    if provider == "torch":
        run = lambda: torch.matmul(a, b_t.T, out=c)  # noqa: E731
    else:
        jit, variant = mm.split_provider(provider)
        module = common.load_kernels(mm.TMA_KERNEL_FILE, jit)
        num_sms = torch.cuda.get_device_properties(0).multi_processor_count
        config = mm.variant_config(argparse.Namespace(config=None), variant)
        run = common.launcher(mm.tma_call(module, variant, a, b_t, c, config, num_sms))
    for _ in range(WARM_LAUNCHES + 1):
        run()
    torch.cuda.synchronize()


def last_kernel(ncu_csv: str) -> Dict[str, Any]:
    """The last kernel's row of `ncu --csv --page raw` output (after ncu's own
    ==PROF== lines; the row of units is skipped): its name and METRICS."""
    start = ncu_csv.find('"ID"')
    if start < 0:
        raise RuntimeError(f"ncu printed no table:\n{ncu_csv[-2000:]}")
    number = lambda text: float(text.replace(",", ""))  # noqa: E731
    rows = []
    for row in csv.DictReader(io.StringIO(ncu_csv[start:])):
        try:
            values = {key: number(row[metric]) for key, metric in METRICS.items()}
        except (KeyError, ValueError, AttributeError):
            continue  # the units row, or a kernel ncu could not measure
        rows.append({"kernel": (row.get("Kernel Name") or "")[:120], **values})
    if not rows:
        raise RuntimeError(f"ncu reported no kernel:\n{ncu_csv[-2000:]}")
    return rows[-1]


def profile(provider: str, shape, dtype: str, ncu: str) -> Dict[str, Any]:
    """ncu over the child; the last kernel it profiled is the provider's
    (torch.randn's kernels come first)."""
    cmd = [ncu, "--clock-control", "none", "--csv", "--page", "raw", "--print-units", "base",
           "--metrics", ",".join(METRICS.values()),
           sys.executable, os.path.abspath(__file__), "--child", provider,
           "--shape", "x".join(map(str, shape)), "--dtype", dtype]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"ncu failed ({proc.returncode}):\n{proc.stdout[-2000:]}"
                           f"\n{proc.stderr[-2000:]}")
    entry = last_kernel(proc.stdout)
    flop = 2 * shape[0] * shape[1] * shape[2]
    entry["tflops_profiled"] = flop / entry["duration_ns"] / 1e3
    return entry


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", default="4096x4096x4096")
    parser.add_argument("--dtype", default="fp16", choices=["fp16", "bf16"])
    parser.add_argument("--variants", default="tma-persistent-ws,tma-persistent-ws-pp")
    parser.add_argument("--results-dir", default=os.path.join(common.REPO_DIR, "bench",
                                                              "results"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    shape = mm.parse_shape(args.shape)
    if args.child:
        launch_one(args.child, shape, args.dtype)
        return 0
    ncu = shutil.which("ncu")
    if ncu is None:
        print("ncu is not on the PATH", file=sys.stderr)
        return 2
    variants = common.parse_list(args.variants, [v for v in mm.TMA_KERNELS])
    import datetime
    try:
        import torch
        import triton
    except ImportError:
        torch = triton = None
    report: Dict[str, Any] = {
        "benchmark": "ncu_matmul",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S%z"),
        "environment": common.environment(torch, triton),
        "settings": {"metrics": METRICS, "clock_control": "none",
                     "warm_launches": WARM_LAUNCHES},
        "results": [], "failures": []}
    case: Dict[str, Any] = {"dtype": args.dtype, "M": shape[0], "N": shape[1], "K": shape[2],
                            "providers": {}}
    for provider in providers(variants):
        try:
            case["providers"][provider] = profile(provider, shape, args.dtype, ncu)
            p = case["providers"][provider]
            print(f"{provider}: tensor pipe {p['tensor_pipe_pct']:.1f}%, SM clock "
                  f"{p['sm_clock_hz'] / 1e6:.0f} MHz, {p['duration_ns'] / 1e3:.1f} us "
                  f"({p['tflops_profiled']:.0f} TFLOP/s profiled), {p['kernel']}", flush=True)
        except Exception as e:  # one provider's failure leaves the others' rows
            case["providers"][provider] = common.record_failure(report["failures"],
                                                                f"ncu {provider}", e)
            print(f"{provider}: FAILED {common.error_text(e)[:400]}", flush=True)
    report["results"].append(case)
    path = common.write_json(report, args.results_dir, "ncu_matmul")
    headers = ["provider", "tensor pipe %", "SM MHz", "us", "TFLOP/s (profiled)", "kernel"]
    rows = [[name, common.fmt(p.get("tensor_pipe_pct"), ".1f"),
             common.fmt(p.get("sm_clock_hz", 0) / 1e6 if "sm_clock_hz" in p else None),
             common.fmt(p.get("duration_ns", 0) / 1e3 if "duration_ns" in p else None, ".1f"),
             common.fmt(p.get("tflops_profiled")), p.get("kernel", p.get("error", ""))[:60]]
            for name, p in case["providers"].items()]
    common.write_markdown(path, report, f"Matmul under Nsight Compute, {args.dtype} "
                          f"{args.shape}", "bench/ncu_matmul.py",
                          "ncu --clock-control none, one launch per provider after "
                          f"{WARM_LAUNCHES} warm ones; tensor pipe: sm__pipe_tensor_op_hmma_"
                          "cycles_active as % of peak sustained; SM clock: "
                          "sm__cycles_elapsed.avg.per_second.", headers, rows)
    print(common.format_table(headers, rows))
    print(f"JSON: {path}")
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
