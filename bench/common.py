"""Shared pieces of the benchmarks in bench/: one kernel file loaded under
both JITs, timing (do_bench, the copy-bandwidth roofline, launch overhead,
cold compiles in a fresh process), compiling without a GPU, checks of
results against a reference, inputs and poisoned outputs, the table and the
JSON report. Importing this module needs neither torch nor a GPU.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(BENCH_DIR)
BACKENDS = ("warpforge", "triton")


def load_kernels(path: str, backend: str):
    """Executes the kernel file at `path` as a new module with BACKEND set to
    `backend`, so that it imports that JIT; the same file can be loaded once
    per backend. The module is registered in sys.modules (the JITs look up a
    kernel's module) under a name that says which backend it is for."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    stem = os.path.splitext(os.path.basename(path))[0]
    name = f"bench_kernels_{stem}_{backend}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise FileNotFoundError(f"cannot load kernels from {path}")
    module = importlib.util.module_from_spec(spec)
    module.BACKEND = backend
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def launch(call):
    """Launches a `(kernel, grid, args, meta)` call, as the kernel files give them."""
    kernel, grid, args, meta = call
    return kernel[grid](*args, **meta)


def launcher(call):
    """A zero-argument function that launches `call` (what do_bench times)."""
    kernel, grid, args, meta = call
    run = kernel[grid]
    return lambda: run(*args, **meta)


# -- Timing ----------------------------------------------------------------------


def bench_ms(fn, warmup: float, rep: float) -> float:
    """Median milliseconds of `fn` by warpforge.testing.do_bench (CUDA events,
    L2 flushed before every run): the timer of a provider timed alone."""
    from warpforge.testing import do_bench
    return float(do_bench(fn, warmup=warmup, rep=rep, return_mode="median"))


def bench_interleaved(fns, warmup: float, rep: float):
    """Milliseconds of each launch of each of `fns` (name -> function) by
    warpforge.testing.do_bench_interleaved: launch by launch in turns, L2
    flushed before each and the GPU held while the host queues the launch
    (so a short kernel's time is the GPU's, not the Python launch path's;
    since 2026-11-28); index j of any two lists is one turn. The timer of
    providers compared with each other."""
    from warpforge.testing import do_bench_interleaved
    return do_bench_interleaved(fns, warmup=warmup, rep=rep)


def gbps(nbytes: int, ms: Optional[float]) -> Optional[float]:
    """Bytes over milliseconds, in GB/s (1e9 bytes per second)."""
    if ms is None or ms <= 0:
        return None
    return nbytes / (ms * 1e-3) / 1e9


def copy_bandwidth(torch, nbytes: int, warmup: float, rep: float) -> Dict[str, Any]:
    """Device-to-device copy of an `nbytes` buffer by torch (copy_), counting
    the bytes read and written: the roofline of the memory-bound kernels."""
    src = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    ms = bench_ms(lambda: dst.copy_(src), warmup, rep)
    if not torch.equal(dst, src):
        raise RuntimeError("copy_ bandwidth: the copy differs from its source")
    return {"buffer_bytes": nbytes, "bytes_moved": 2 * nbytes, "ms": ms,
            "gbps": gbps(2 * nbytes, ms)}


# -- Launching --------------------------------------------------------------------


def launch_burst(fn, sync, launches: int):
    """(submit, total): microseconds per launch of `launches` back-to-back
    calls of `fn`, issuing them, and until the device is done."""
    sync()
    t0 = time.perf_counter()
    for _ in range(launches):
        fn()
    t1 = time.perf_counter()
    sync()
    t2 = time.perf_counter()
    return (t1 - t0) / launches * 1e6, (t2 - t0) / launches * 1e6


def launch_overhead(fn, sync, launches: int, repeats: int = 5) -> Dict[str, Any]:
    """Microseconds per launch of `launches` back-to-back calls of `fn`: issuing
    them (submit) and until the device is done (total); best of `repeats`."""
    fn()
    sync()
    bursts = [launch_burst(fn, sync, launches) for _ in range(repeats)]
    return {"launches": launches, "repeats": repeats, "cuda_graphs": False,
            "submit_us": min(s for s, _ in bursts), "total_us": min(t for _, t in bursts)}


def compile_only(backend: str, call):
    """Compiles a call without launching it, with no GPU needed: warpforge
    through its pipeline (warmup), Triton to a cubin for sm_90a."""
    kernel, grid, args, meta = call
    if backend == "warpforge":
        return kernel.warmup(*args, grid=grid, **meta)
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    values = dict(zip(kernel.arg_names, args))
    signature, attrs = {}, {}
    for i, name in enumerate(kernel.arg_names):
        value = values.get(name)
        if name in meta:
            signature[name] = "constexpr"
        elif isinstance(value, float):
            signature[name] = "fp32"
        elif isinstance(value, int):
            signature[name] = "i32"
        else:
            dtype = str(value.dtype).rsplit(".", 1)[-1]  # NumPy's or torch's name
            signature[name] = "*" + {"float32": "fp32", "float16": "fp16",
                                     "bfloat16": "bf16"}[dtype]
        # The hints Triton's JIT gives torch's (256-byte aligned) tensors and
        # integers divisible by 16.
        if signature[name].startswith("*") or (signature[name] == "i32" and value % 16 == 0):
            attrs[(i,)] = [["tt.divisibility", 16]]
    constants = {k: v for k, v in meta.items() if k in kernel.arg_names}
    options = {k: v for k, v in meta.items() if k not in kernel.arg_names}
    return triton.compile(ASTSource(kernel, signature, constants, attrs),
                          target=GPUTarget("cuda", 90, 32), options=options)


def run_with_fresh_caches(argv: Sequence[str], timeout: float = 600) -> Dict[str, Any]:
    """Runs a Python script (argv) in a new process whose kernel caches are
    new, empty directories and whose disk caches are bypassed (warpforge and
    Triton alike), and returns the JSON object on its last line of output."""
    with tempfile.TemporaryDirectory(prefix="warpforge-bench-cache-") as tmp:
        env = dict(os.environ, WARPFORGE_CACHE_DIR=os.path.join(tmp, "warpforge"),
                   WARPFORGE_ALWAYS_COMPILE="1", TRITON_CACHE_DIR=os.path.join(tmp, "triton"),
                   TRITON_ALWAYS_COMPILE="1")
        env.pop("WARPFORGE_INTERPRET", None)
        proc = subprocess.run([sys.executable, *argv], env=env, capture_output=True, text=True,
                              timeout=timeout)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: "
                           f"{proc.stderr.strip()[-1500:]}")
    return json.loads(lines[-1])


# -- Checks ----------------------------------------------------------------------

GUARD = 256  # poisoned elements after each output, to catch writes past its end


class Mismatch(AssertionError):
    pass


def as_numpy(x):
    """A float32 NumPy copy of a torch tensor (any device) or NumPy array."""
    import numpy as np
    if hasattr(x, "detach"):
        x = x.detach().float().cpu().numpy()
    return np.asarray(x, dtype=np.float32)


def check_close(what: str, actual, expected, rtol: float, atol: float) -> None:
    """Raises Mismatch naming `what`, the worst element and the count of bad
    ones unless |actual - expected| <= atol + rtol * |expected| everywhere
    (NaN, e.g. a poisoned element never written, always fails)."""
    import numpy as np
    a, e = as_numpy(actual), as_numpy(expected)
    if a.shape != e.shape:
        raise Mismatch(f"{what}: shape {a.shape}, expected {e.shape}")
    with np.errstate(invalid="ignore"):
        err = np.abs(a.astype(np.float64) - e)
        bad = ~(err <= atol + rtol * np.abs(e))
    if bad.any():
        worst = np.unravel_index(np.argmax(np.where(np.isnan(err), np.inf, err)), a.shape)
        raise Mismatch(f"{what}: {int(bad.sum())} of {a.size} elements differ (rtol {rtol}, "
                       f"atol {atol}); worst at {tuple(int(i) for i in worst)}: got "
                       f"{a[worst]!r}, expected {e[worst]!r}")


def check_guard(what: str, guard) -> None:
    """The elements after an output must still be the poison (NaN)."""
    import numpy as np
    g = as_numpy(guard)
    if not np.isnan(g).all():
        raise Mismatch(f"{what}: the kernel wrote {int((~np.isnan(g)).sum())} elements past "
                       "the end of its output")


# -- Inputs and outputs -----------------------------------------------------------


class TorchArrays:
    """Seeded random inputs and poisoned outputs (NaN, then GUARD more NaN
    after the end) as torch tensors on the GPU; dtypes by name ('fp16')."""

    def __init__(self, torch, seed: int = 0):
        self.torch = torch
        self.generator = torch.Generator(device="cuda").manual_seed(seed)

    def _dtype(self, name):
        return getattr(self.torch, {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16"}[name])

    def randn(self, shape, dtype, scale=1.0, shift=0.0):
        t = self.torch.randn(shape, generator=self.generator, device="cuda")
        return (t * scale + shift).to(self._dtype(dtype))

    def poisoned(self, shape, dtype):
        numel = math.prod(shape)
        buf = self.torch.full((numel + GUARD,), float("nan"), dtype=self._dtype(dtype),
                              device="cuda")
        return buf[:numel].view(shape), buf[numel:]


class NumpyArrays(TorchArrays):
    """The same as NumPy arrays, for the interpreter."""

    def __init__(self, seed: int = 0):
        import numpy as np
        self.np = np
        self.rng = np.random.default_rng(seed)

    def _dtype(self, name):
        return {"fp32": self.np.float32, "fp16": self.np.float16}[name]

    def randn(self, shape, dtype, scale=1.0, shift=0.0):
        return (self.rng.standard_normal(shape) * scale + shift).astype(self._dtype(dtype))

    def poisoned(self, shape, dtype):
        numel = math.prod(shape)
        buf = self.np.full(numel + GUARD, self.np.nan, dtype=self._dtype(dtype))
        return buf[:numel].reshape(shape), buf[numel:]


# -- Report --------------------------------------------------------------------------


def fmt(value, spec: str = ".0f", missing: str = "-") -> str:
    return missing if value is None else format(value, spec)


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the first column left-aligned, the rest right."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]

    def line(cells):
        return "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()
    return "\n".join([line(headers), line(["-" * w for w in widths])] + [line(r) for r in rows])


def record_failure(failures: List[str], what: str, e: BaseException) -> Dict[str, str]:
    """Notes a failure (printed now, listed at the end, in the JSON) and returns
    the JSON entry for it; the other runs go on."""
    failures.append(f"{what}: {error_text(e)}")
    print(f"FAILED {failures[-1]}", file=sys.stderr, flush=True)
    return {"error": error_text(e)}


def error_text(e: BaseException) -> str:
    """One exception as text for the report, cut at 2000 characters."""
    text = f"{type(e).__name__}: {e}".strip()
    return text if len(text) < 2000 else text[:2000] + " ..."


def _git_commit() -> Optional[str]:
    # On the device, scripts/device_env.sh says which commit was packed.
    if os.environ.get("WARPFORGE_GIT_COMMIT"):
        return os.environ["WARPFORGE_GIT_COMMIT"]
    try:
        out = subprocess.run(["git", "-C", REPO_DIR, "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (out.stdout.strip() or None) if out.returncode == 0 else None


def environment(torch=None, triton=None) -> Dict[str, Any]:
    """Device and versions for the report; torch and triton when loaded."""
    import warpforge
    env: Dict[str, Any] = {
        "python": platform.python_version(),
        "warpforge": warpforge.__version__,
        "warpforge_core": warpforge.ir.core_version(),
        "git_commit": _git_commit(),
        "torch": getattr(torch, "__version__", None),
        "triton": getattr(triton, "__version__", None),
        "device": None,
    }
    if torch is not None and torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        env["device"] = props.name
        env["compute_capability"] = f"{props.major}.{props.minor}"
        env["multiprocessors"] = props.multi_processor_count
        env["memory_gib"] = round(props.total_memory / 2**30, 1)
        env["cuda"] = torch.version.cuda
    return env


def write_json(report: Dict[str, Any], results_dir: str, name: str,
               now: Optional[datetime.datetime] = None) -> str:
    """Writes `report` to RESULTS_DIR/NAME-<date and time>.json; returns the path."""
    now = now or datetime.datetime.now()
    os.makedirs(results_dir, exist_ok=True)
    path = os.path.join(results_dir, f"{name}-{now.strftime('%Y-%m-%d-%H%M%S')}.json")
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)
    return path


def write_markdown(json_path: str, report: Dict[str, Any], title: str, script: str,
                   how: str, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Writes the Markdown twin of `json_path` (same name, .md): a title with
    the report's date, the command, device, versions and commit, `how` the
    run measured, and the table (the first column left-aligned). Returns
    its path."""
    env = report["environment"]
    md = [f"# {title} ({report['date']})", "",
          f"`python {script}` on {env.get('device')} (torch {env.get('torch')}, Triton "
          f"{env.get('triton')}, warpforge {env.get('warpforge')}, commit "
          f"{(env.get('git_commit') or '?')[:12]}): {how}", "",
          "| " + " | ".join(headers) + " |", "|---|" + "---:|" * (len(headers) - 1)]
    md += ["| " + " | ".join(r) + " |" for r in rows]
    path = json_path[:-len(".json")] + ".md"
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    return path


def parse_list(text: str, allowed: Sequence[str]) -> List[str]:
    """'a,b' -> ['a', 'b'], each one of `allowed` (an argparse `type`, whose
    error argparse prefixes with the option's name)."""
    items = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in items if t not in allowed]
    if unknown or not items:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of "
                                         f"{', '.join(allowed)}; got {text!r}")
    return items
