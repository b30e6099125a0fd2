"""Cold autotuning: the first call of the autotuned matmul (bench/kernels/
matmul.py, its 9 configs, keyed on M, N, K; then, in another fresh process,
16: those and 7 of its small-M configs) in a fresh process with empty
kernel caches, under warpforge and Triton 3.6: compiling every config (in
parallel on the machine's cores), benchmarking each, launching the best,
until synchronized. Also the cold compile of one config alone.

JSON and Markdown go to bench/results/autotune_cold-<date>.{json,md}.
Needs torch and a GPU.

Usage: python bench/autotune_cold.py [--size 4096] [--results-dir DIR]
"""

import argparse
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402


def child16(backend: str, size: int) -> None:
    """The issue's 16 configs: the matmul autotuned over its 9 CONFIGS and 7
    of SMALL_M_CONFIGS (valid at any M), cold, until synchronized; JSON as
    the last line."""
    import torch
    module = common.load_kernels(os.path.join(common.BENCH_DIR, "kernels", "matmul.py"),
                                 backend)
    configs = module.CONFIGS + module.SMALL_M_CONFIGS[:7]
    tuner = module.jit_backend.autotune(configs=[module.backend_config(c) for c in configs],
                                        key=["M", "N", "K"])(module.matmul_kernel)
    a = torch.randn((size, size), device="cuda", dtype=torch.float16)
    b = torch.randn((size, size), device="cuda", dtype=torch.float16)
    c = torch.empty((size, size), device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    _, grid, args, meta = module.matmul_call(a, b, c)
    start = time.perf_counter()
    tuner[grid](*args, **meta)
    torch.cuda.synchronize()
    tuned = time.perf_counter() - start
    print(json.dumps({"backend": backend, "configs": len(configs), "autotune_s": tuned,
                      "best": str(getattr(tuner, "best_config", None)),
                      "cpus": os.cpu_count()}))


def child(backend: str, size: int) -> None:
    """One cold measurement; its JSON is the last line of output."""
    import torch
    module = common.load_kernels(os.path.join(common.BENCH_DIR, "kernels", "matmul.py"),
                                 backend)
    a = torch.randn((size, size), device="cuda", dtype=torch.float16)
    b = torch.randn((size, size), device="cuda", dtype=torch.float16)
    c = torch.empty((size, size), device="cuda", dtype=torch.float16)
    torch.cuda.synchronize()
    kernel, grid, args, meta = module.matmul_call(a, b, c, module.CONFIGS[0])
    start = time.perf_counter()
    kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    one = time.perf_counter() - start
    kernel, grid, args, meta = module.matmul_call(a, b, c)
    start = time.perf_counter()
    kernel[grid](*args, **meta)
    torch.cuda.synchronize()
    tuned = time.perf_counter() - start
    best = getattr(kernel, "best_config", None)
    print(json.dumps({"backend": backend, "configs": len(module.CONFIGS),
                      "one_config_s": one, "autotune_s": tuned, "best": str(best),
                      "cpus": os.cpu_count()}))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=4096)
    parser.add_argument("--results-dir", default=os.path.join(common.BENCH_DIR, "results"))
    parser.add_argument("--child", choices=common.BACKENDS, help=argparse.SUPPRESS)
    parser.add_argument("--child16", choices=common.BACKENDS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.size)
    if args.child16:
        return child16(args.child16, args.size)
    import torch
    try:
        import triton
    except ImportError:
        triton = None
    backends = ["warpforge"] + (["triton"] if triton is not None else [])
    report = {"benchmark": "autotune_cold", "mode": "full",
              "date": datetime.date.today().isoformat(),
              "environment": common.environment(torch, triton),
              "settings": {"size": args.size, "kernel": "bench/kernels/matmul.py matmul_autotuned",
                           "timer": "time.perf_counter around the first call, until "
                                    "synchronized, in a new process with empty caches"},
              "results": [], "failures": []}
    rows = []
    for backend in backends:
        try:
            result = common.run_with_fresh_caches(
                [os.path.abspath(__file__), "--child", backend, "--size", str(args.size)])
        except Exception as e:  # noqa: BLE001 - reported, the other backend still runs
            report["failures"].append(common.record_failure([], backend, e))
            continue
        report["results"].append(result)
        rows.append([backend, str(result["configs"]), f"{result['one_config_s']:.2f}",
                     f"{result['autotune_s']:.2f}", result["best"]])
        try:
            result16 = common.run_with_fresh_caches(
                [os.path.abspath(__file__), "--child16", backend, "--size", str(args.size)])
        except Exception as e:  # noqa: BLE001 - reported, the rest still runs
            report["failures"].append(common.record_failure([], f"{backend} 16 configs", e))
            continue
        report["results"].append(result16)
        rows.append([backend, str(result16["configs"]), "-", f"{result16['autotune_s']:.2f}",
                     result16["best"]])
    headers = ["backend", "configs", "one config cold (s)", "autotune cold (s)", "best"]
    print(common.format_table(headers, rows))
    path = common.write_json(report, args.results_dir, "autotune_cold")
    common.write_markdown(
        path, report, "Cold autotuning", "bench/autotune_cold.py",
        f"{os.cpu_count()} CPUs; the autotuned fp16 matmul at {args.size}^3, first call in a "
        "new process with empty caches, until synchronized.", headers, rows)
    print(f"JSON: {path}")


if __name__ == "__main__":
    main()
