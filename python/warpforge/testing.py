"""Benchmarking helpers, as in `triton.testing`.

`do_bench` times a function on the GPU with CUDA events (through PyTorch),
flushing the L2 cache before every run; `do_bench_interleaved` times several
functions against each other, launch by launch; `do_bench_cudagraph` replays
a function from a CUDA graph; `do_bench_cpu` times it on the host clock (for
the interpreter). Importing this module needs neither PyTorch nor a GPU: torch
is imported when a GPU benchmark runs.
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Union

RETURN_MODES = ("min", "max", "mean", "median", "all")
L2_FLUSH_BYTES = 256 * 1024 * 1024  # more than any GPU's L2 cache

Result = Union[float, List[float]]


def _check(quantiles, return_mode: str):
    if return_mode not in RETURN_MODES:
        raise ValueError(f"return_mode must be one of {', '.join(RETURN_MODES)}, got "
                         f"{return_mode!r}")
    if quantiles is not None:
        for q in quantiles:
            if not 0.0 <= q <= 1.0:
                raise ValueError(f"quantiles must lie in [0, 1], got {q!r}")


def quantile(sorted_times: Sequence[float], q: float) -> float:
    """The q-quantile with linear interpolation between the closest ranks
    (torch.quantile's default)."""
    position = q * (len(sorted_times) - 1)
    lo = math.floor(position)
    hi = min(lo + 1, len(sorted_times) - 1)
    return sorted_times[lo] + (sorted_times[hi] - sorted_times[lo]) * (position - lo)


def summarize(times: Sequence[float], quantiles: Optional[Sequence[float]] = None,
              return_mode: str = "median") -> Result:
    """`quantiles` of `times` when given (one float for one quantile), else
    their min, max, mean, median (the lower middle value for an even count,
    as torch.median) or all of them."""
    _check(quantiles, return_mode)
    times = [float(t) for t in times]
    if not times:
        raise ValueError("no timings to summarize")
    if quantiles is not None:
        ordered = sorted(times)
        result = [quantile(ordered, q) for q in quantiles]
        return result[0] if len(result) == 1 else result
    if return_mode == "all":
        return times
    return {"min": min, "max": max, "mean": statistics.fmean,
            "median": statistics.median_low}[return_mode](times)


def _cuda_torch(what: str):
    """torch, when it can run on a CUDA device; a clear error otherwise."""
    try:
        import torch
    except ImportError:
        raise RuntimeError(f"warpforge.testing.{what} times kernels with CUDA events through "
                           "PyTorch, which is not installed; use do_bench_cpu to time on the "
                           "host clock") from None
    if not torch.cuda.is_available():
        raise RuntimeError(f"warpforge.testing.{what} needs a CUDA device, and PyTorch sees "
                           "none; use do_bench_cpu to time on the host clock")
    return torch


def _runs(budget_ms: float, estimate_ms: float) -> int:
    return max(1, int(budget_ms / max(estimate_ms, 1e-6)))


def _clear_grads(grad_to_none):
    if grad_to_none is not None:
        for x in grad_to_none:
            x.grad = None


def do_bench(fn: Callable[[], object], warmup: float = 25, rep: float = 100,
             grad_to_none=None, quantiles: Optional[Sequence[float]] = None,
             return_mode: str = "median") -> Result:
    """The time of one call of `fn` in milliseconds, measured on the GPU.

    `fn` runs once, then 5 times (each after an L2 flush) to estimate its
    cost; then enough times to fill `warmup` ms, then enough to fill `rep`
    ms, each of those timed by a pair of CUDA events around `fn` alone, after
    zeroing a 256 MB buffer so that every run starts with a cold L2. The
    estimate counts the flush, so the measurement takes about `rep` ms.
    `grad_to_none` tensors have `.grad` cleared before each run. Returns the
    `quantiles` of the runs when given, else the `return_mode` statistic."""
    _check(quantiles, return_mode)
    torch = _cuda_torch("do_bench")
    fn()
    torch.cuda.synchronize()
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(5):
        flush.zero_()
        fn()
    end.record()
    torch.cuda.synchronize()
    estimate_ms = start.elapsed_time(end) / 5

    for _ in range(_runs(warmup, estimate_ms)):
        fn()
    n_repeat = _runs(rep, estimate_ms)
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(n_repeat)]
    for i in range(n_repeat):
        _clear_grads(grad_to_none)
        flush.zero_()
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    return summarize([s.elapsed_time(e) for s, e in zip(starts, ends)], quantiles, return_mode)


def do_bench_interleaved(fns: Mapping[str, Callable[[], object]], warmup: float = 25,
                         rep: float = 100) -> Dict[str, List[float]]:
    """Times the functions in `fns` against each other, launch by launch.

    Iteration i runs every function once, each after an L2 flush and timed
    by its own pair of CUDA events, in the order of `fns` rotated by i. So
    all of them meet the card in the same state (clock, temperature, power
    draw) within a few milliseconds of one another, where separate do_bench
    calls, a second apart, can meet different clock states: the ratio of
    two kernels' times is then far steadier, and the ratio of the two times
    of one iteration is a paired sample of it. Each function runs once
    first; untimed iterations fill `warmup` ms, then timed ones until each
    function's launches fill about `rep` ms. Returns, for each name, the
    milliseconds of its timed launches in iteration order: index j of any
    two lists comes from the same iteration."""
    if not fns:
        raise ValueError("do_bench_interleaved needs at least one function")
    torch = _cuda_torch("do_bench_interleaved")
    names = list(fns)
    for name in names:
        fns[name]()
    torch.cuda.synchronize()
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    turns = itertools.count()  # one rotation across estimate, warm-up and timing

    def iteration(events=None):
        shift = next(turns) % len(names)
        for name in names[shift:] + names[:shift]:
            flush.zero_()
            if events is None:
                fns[name]()
                continue
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            fns[name]()
            end.record()
            events[name].append((start, end))

    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(3):
        iteration()
    end.record()
    torch.cuda.synchronize()
    # One function's launch with its flush; an iteration costs len(names) of them.
    estimate_ms = start.elapsed_time(end) / 3 / len(names)
    for _ in range(_runs(warmup, estimate_ms * len(names))):
        iteration()
    events: Dict[str, list] = {name: [] for name in names}
    for _ in range(_runs(rep, estimate_ms)):
        iteration(events)
    torch.cuda.synchronize()
    return {name: [s.elapsed_time(e) for s, e in pairs] for name, pairs in events.items()}


def do_bench_cudagraph(fn: Callable[[], object], rep: float = 20, grad_to_none=None,
                       quantiles: Optional[Sequence[float]] = None,
                       return_mode: str = "mean") -> Result:
    """Like do_bench, but replays `fn` from a CUDA graph, which removes the
    host's launch cost from the measurement (no L2 flush). `fn` must launch
    its work on PyTorch's current stream, which is being captured."""
    _check(quantiles, return_mode)
    torch = _cuda_torch("do_bench_cudagraph")
    with torch.cuda.stream(torch.cuda.Stream()):
        fn()  # outside the capture: compiles, allocates
        _clear_grads(grad_to_none)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            fn()
        torch.cuda.synchronize()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        torch.cuda.synchronize()
        n_repeat = _runs(rep, start.elapsed_time(end))

        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                _clear_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            graph.replay()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) / n_repeat)
    return summarize(times, quantiles, return_mode)


def do_bench_cpu(fn: Callable[[], object], warmup: float = 25, rep: float = 100,
                 quantiles: Optional[Sequence[float]] = None,
                 return_mode: str = "median") -> Result:
    """The time of one call of `fn` in milliseconds on the host clock: the
    autotuner's benchmark for interpreted kernels. One call estimates the
    cost; then enough calls to fill `warmup` ms, then `rep` ms, each timed."""
    _check(quantiles, return_mode)
    t0 = time.perf_counter()
    fn()
    estimate_ms = (time.perf_counter() - t0) * 1e3
    for _ in range(_runs(warmup, estimate_ms) if estimate_ms < warmup else 0):
        fn()
    times = []
    for _ in range(_runs(rep, estimate_ms)):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return summarize(times, quantiles, return_mode)
