"""Warm launch overhead on a GPU: `kernel[grid](...)` under warpforge and
Triton 3.6 (the same kernel source, bench/kernels/launch.py), and torch's
own op where one does the same work, one process, interleaved.

Each case is launched LAUNCHES times back to back per measurement (200: a
burst that does not fill the driver's launch queue, past which the host
waits for the GPU and the figure is the GPU's, not the launch path's);
"submit" is the host time of issuing them (time.perf_counter, the figure
users feel), "total" adds draining the GPU. Providers take turns, ROUNDS
rounds, so clock and load drift hits all of them alike; the table gives
each provider's best round and the ratios of the best rounds. The layers
of warpforge's path are also timed alone: `_C.Kernel.launch` with the
arguments the JIT passes, and `CompiledKernel.launch`; and the floor, the
driver's own cuLaunchKernel of the empty kernel from a C++ loop
(bench/tools/raw_launch.cpp, built with g++ when there is one).

JSON and Markdown go to bench/results/launch_overhead-<date>.{json,md}
(`"benchmark": "launch_overhead"`; each case's providers `warpforge`,
`triton`, `torch` with `us` per launch). Needs torch and a GPU.

Usage: python bench/launch_overhead_gpu.py [--launches N] [--rounds R]
       [--results-dir DIR]
"""

import argparse
import datetime
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import common  # noqa: E402


def driver_floor(cubin: bytes, name: str, params: int, launches: int, rounds: int):
    """cuLaunchKernel's microseconds per launch from C++, or None without g++."""
    import re
    import shutil
    import subprocess
    import tempfile
    gxx = shutil.which("g++")
    if gxx is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe, image = os.path.join(tmp, "raw_launch"), os.path.join(tmp, "kernel.cubin")
        source = os.path.join(common.BENCH_DIR, "tools", "raw_launch.cpp")
        if subprocess.run([gxx, "-O2", "-o", exe, source, "-ldl"]).returncode != 0:
            return None
        with open(image, "wb") as f:
            f.write(cubin)
        out = subprocess.run([exe, image, name, str(params), str(launches), str(rounds)],
                             capture_output=True, text=True)
    found = re.search(r"([0-9.]+) us per launch", out.stdout)
    return float(found.group(1)) if found else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--launches", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--results-dir", default=os.path.join(common.BENCH_DIR, "results"))
    args = parser.parse_args(argv)
    import torch
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    try:
        import triton
    except ImportError:
        triton = None
    path = os.path.join(common.BENCH_DIR, "kernels", "launch.py")
    modules = {"warpforge": common.load_kernels(path, "warpforge")}
    if triton is not None:
        modules["triton"] = common.load_kernels(path, "triton")
    started = time.time()
    report = {"benchmark": "launch_overhead", "mode": "full",
              "date": datetime.date.today().isoformat(),
              "environment": common.environment(torch, triton),
              "settings": {"launches": args.launches, "rounds": args.rounds,
                           "timer": "time.perf_counter around LAUNCHES back-to-back launches "
                                    "(submit), then synchronize (total); providers in turns, "
                                    "best round"},
              "results": [], "failures": []}
    sync = torch.cuda.synchronize
    rows = []
    for case, (name, grid, call_args, meta, torch_fn) in \
            modules["warpforge"].cases(torch).items():
        fns = {}
        for backend, module in modules.items():
            kernel = getattr(module, name)
            fns[backend] = (lambda k=kernel: k[grid](*call_args, **meta))
        if torch_fn is not None:
            fns["torch"] = torch_fn
        # warpforge's layers, with the JIT's own arguments.
        wf = getattr(modules["warpforge"], name)
        compiled = wf.warmup(*call_args, grid=grid, **meta)
        everything = tuple(call_args) + tuple(meta.values())
        raw = compiled._loaded()
        stream = torch.cuda.current_stream().cuda_stream
        grid3 = tuple(grid) + (1,) * (3 - len(grid))
        fns["warpforge: CompiledKernel.launch"] = lambda: compiled.launch(grid3, everything)
        fns["warpforge: _C.Kernel.launch"] = \
            lambda: raw.launch(grid3[0], grid3[1], grid3[2], stream, everything)
        floor = None
        if name == "empty":
            floor = driver_floor(compiled.asm["cubin"], compiled.metadata["name"],
                                 raw.num_kernel_params, args.launches, args.rounds)
        for fn in fns.values():  # compile, load, warm
            fn()
        sync()
        samples = {p: [] for p in fns}
        for _ in range(args.rounds):
            for provider, fn in fns.items():
                samples[provider].append(common.launch_burst(fn, sync, args.launches))
        entry = {"case": case, "kernel": name, "providers": {}}
        if floor is not None:
            entry["cuLaunchKernel_from_cpp_us"] = floor
        for provider, runs in samples.items():
            submits = sorted(s for s, _ in runs)
            entry["providers"][provider] = {
                "us": submits[0], "median_us": submits[len(submits) // 2],
                "total_us": min(t for _, t in runs),
                "us_rounds": [round(s, 3) for s, _ in runs]}
        us = {p: v["us"] for p, v in entry["providers"].items()}
        entry["ratios"] = {f"{a}/{b}": us[b] / us[a] for a, b in
                           [("warpforge", "triton"), ("warpforge", "torch")]
                           if a in us and b in us}
        report["results"].append(entry)
        medians = {p: v["median_us"] for p, v in entry["providers"].items()}
        rows.append([case] + [common.fmt(us.get(p), ".2f") for p in
                              ("warpforge", "triton", "torch", "warpforge: CompiledKernel.launch",
                               "warpforge: _C.Kernel.launch")]
                    + [common.fmt(medians.get(p), ".2f") for p in
                       ("warpforge", "warpforge: CompiledKernel.launch",
                        "warpforge: _C.Kernel.launch", "torch")]
                    + [common.fmt(floor, ".2f")]
                    + [common.fmt(entry["ratios"].get(r), ".2f")
                       for r in ("warpforge/triton", "warpforge/torch")])
    report["seconds"] = round(time.time() - started, 1)
    headers = ["case (us per launch, submit)", "warpforge", "triton", "torch",
               "CompiledKernel.launch", "_C.Kernel.launch", "warpforge median",
               "CompiledKernel median", "_C median", "torch median", "cuLaunchKernel (C++)", "tr/wf",
               "torch/wf"]
    table = common.format_table(headers, rows)
    print(table)
    json_path = common.write_json(report, args.results_dir, "launch_overhead")
    md_path = common.write_markdown(
        json_path, report, "Warm launch overhead", "bench/launch_overhead_gpu.py",
        f"{args.launches} back-to-back launches per measurement, providers in turns, best of "
        f"{args.rounds} rounds (and the median round); microseconds per launch of issuing them "
        "(submit); tr/wf > 1: "
        "warpforge faster. The _C and CompiledKernel columns time warpforge's lower layers "
        "alone.", headers, rows)
    print(f"JSON: {json_path}\nMarkdown: {md_path}")


if __name__ == "__main__":
    main()
