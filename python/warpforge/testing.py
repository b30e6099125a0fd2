"""Benchmarking helpers, as in `triton.testing`.

`do_bench` times a function on the GPU with CUDA events (through PyTorch),
flushing the L2 cache before every run; `do_bench_interleaved` times several
functions against each other, launch by launch; `do_bench_cudagraph` replays
a function from a CUDA graph; `do_bench_cpu` times it on the host clock (for
the interpreter). `Benchmark` and `perf_report` sweep a benchmark function
over a grid of arguments and report the results as a table, a CSV file and a
line plot. Importing this module needs neither PyTorch nor a GPU: torch is
imported when a GPU benchmark runs; pandas (for the tables) and matplotlib
(for the plots) are optional and imported when a report is made.

In the interpreter (WARPFORGE_INTERPRET=1) on a machine without a CUDA
device, `do_bench` and `do_bench_cudagraph` time on the host clock, as
`do_bench_cpu`, so that programs written for the GPU run unchanged.

Quick mode, `WARPFORGE_BENCHMARK_QUICK=1` (read at each call), is for
checking that benchmarks run at all (Triton's tutorials in the interpreter,
where a full sweep takes hours): `perf_report` runs only the first x value
of each Benchmark, and every `do_bench*` calls the function once untimed
and times one more call (one iteration for `do_bench_interleaved`), with no
warm-up, L2 flush or repetition budget. The numbers are then not
measurements.
"""

from __future__ import annotations

import csv
import itertools
import math
import numbers
import os
import statistics
import time
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

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


def quick_mode() -> bool:
    """Whether WARPFORGE_BENCHMARK_QUICK is set (and not "" or "0")."""
    return os.environ.get("WARPFORGE_BENCHMARK_QUICK", "0") not in ("", "0")


def _host_timed_in_interpreter() -> bool:
    """The interpreter is on and torch sees no CUDA device (or there is no
    torch): GPU timers fall back to the host clock."""
    if os.environ.get("WARPFORGE_INTERPRET", "0") in ("", "0"):
        return False
    try:
        import torch
    except ImportError:
        return True
    return not torch.cuda.is_available()


def _quick_cpu(fn, quantiles, return_mode: str) -> Result:
    """Quick mode on the host clock: one untimed call, one timed."""
    fn()
    t0 = time.perf_counter()
    fn()
    return summarize([(time.perf_counter() - t0) * 1e3], quantiles, return_mode)


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
    `quantiles` of the runs when given, else the `return_mode` statistic.
    In the interpreter without a CUDA device it times on the host clock
    (`do_bench_cpu`); in quick mode (WARPFORGE_BENCHMARK_QUICK=1) it times
    one call after one untimed call."""
    _check(quantiles, return_mode)
    if _host_timed_in_interpreter():
        return do_bench_cpu(fn, warmup, rep, quantiles, return_mode)
    torch = _cuda_torch("do_bench")
    fn()
    torch.cuda.synchronize()
    if quick_mode():
        _clear_grads(grad_to_none)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        return summarize([start.elapsed_time(end)], quantiles, return_mode)
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
    function's launches fill about `rep` ms.

    A launch's time is the GPU's, not the host's: before each timed launch
    a spin kernel (torch.cuda._sleep) holds the GPU for twice the longest
    time the host took to enqueue one function (measured in the first
    untimed iterations), so that the launch is queued before its start
    event is reached. Without it a Python launch path slower than the
    flush put its host time into short kernels' times: on the H100
    (2026-11-28) Triton's tutorial 06 at D128 S 1024 causal measured 0.31 ms
    a launch, and 0.12 ms with the GPU held. Returns, for each name, the
    milliseconds of its timed launches in iteration order: index j of any
    two lists comes from the same iteration. In quick mode
    (WARPFORGE_BENCHMARK_QUICK=1), one timed iteration after the first."""
    if not fns:
        raise ValueError("do_bench_interleaved needs at least one function")
    torch = _cuda_torch("do_bench_interleaved")
    names = list(fns)
    for name in names:
        fns[name]()
    torch.cuda.synchronize()
    if quick_mode():
        out = {}
        for name in names:
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            fns[name]()
            end.record()
            torch.cuda.synchronize()
            out[name] = [start.elapsed_time(end)]
        return out
    flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")

    turns = itertools.count()  # one rotation across estimate, warm-up and timing
    host_ms = [0.0]  # the longest host time of one function's enqueue
    hold = [0]  # the spin kernel's cycles before each timed launch

    def iteration(events=None):
        shift = next(turns) % len(names)
        for name in names[shift:] + names[:shift]:
            flush.zero_()
            if events is None:
                t0 = time.perf_counter()
                fns[name]()
                host_ms[0] = max(host_ms[0], (time.perf_counter() - t0) * 1e3)
                continue
            if hold[0]:
                torch.cuda._sleep(hold[0])
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
    # The spins are in neither the estimate nor `rep`: the launches fill rep.
    hold[0] = _spin_cycles(torch, 2 * host_ms[0])
    for _ in range(_runs(warmup, estimate_ms * len(names))):
        iteration()
    events: Dict[str, list] = {name: [] for name in names}
    for _ in range(_runs(rep, estimate_ms)):
        iteration(events)
    torch.cuda.synchronize()
    return {name: [s.elapsed_time(e) for s, e in pairs] for name, pairs in events.items()}


def _spin_cycles(torch, ms: float) -> int:
    """Cycles of torch.cuda._sleep that hold the GPU about `ms` (calibrated
    here: the spin counts SM clock cycles, and the clock moves); 0 where
    torch has no _sleep."""
    sleep = getattr(torch.cuda, "_sleep", None)
    if sleep is None or ms <= 0:
        return 0
    cycles = 1 << 20
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    sleep(cycles)
    end.record()
    torch.cuda.synchronize()
    per_ms = cycles / max(start.elapsed_time(end), 1e-3)
    return max(1, int(per_ms * ms))


def do_bench_cudagraph(fn: Callable[[], object], rep: float = 20, grad_to_none=None,
                       quantiles: Optional[Sequence[float]] = None,
                       return_mode: str = "mean") -> Result:
    """Like do_bench, but replays `fn` from a CUDA graph, which removes the
    host's launch cost from the measurement (no L2 flush). `fn` must launch
    its work on PyTorch's current stream, which is being captured. In the
    interpreter without a CUDA device it times on the host clock; quick mode
    times one replay of a one-call graph."""
    _check(quantiles, return_mode)
    if _host_timed_in_interpreter():
        _clear_grads(grad_to_none)
        return do_bench_cpu(fn, rep=rep, quantiles=quantiles, return_mode=return_mode)
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
        n_repeat = 1 if quick_mode() else _runs(rep, start.elapsed_time(end))

        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(n_repeat):
                _clear_grads(grad_to_none)
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(1 if quick_mode() else 10):
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
    cost; then enough calls to fill `warmup` ms, then `rep` ms, each timed.
    Quick mode (WARPFORGE_BENCHMARK_QUICK=1): one untimed call, one timed."""
    _check(quantiles, return_mode)
    if quick_mode():
        return _quick_cpu(fn, quantiles, return_mode)
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


# -- perf_report: a benchmark function swept over a grid ----------------------------


class Benchmark:
    """One report of `perf_report`: which arguments to sweep, and how to plot.

    The benchmark function is called once for every value of `x_vals` (the x
    axis) and every value of `line_vals` (one line each, named by
    `line_names`), with keyword arguments: the `x_names` set from the x value,
    `line_arg` set to the line value, and `args`, which stay fixed. An x value
    is either one value, given to every name of `x_names`, or a tuple or list
    with one value per name. The plot draws the first of `x_names` on the x
    axis; `styles`, when given, is one (color, linestyle) pair per line, as
    matplotlib takes them. `plot_name` names the table, its CSV file
    (`<plot_name>.csv`) and its plot (`<plot_name>.png`)."""

    def __init__(self, x_names: List[str], x_vals: List[Any], line_arg: str,
                 line_vals: List[Any], line_names: List[str], plot_name: str,
                 args: Dict[str, Any], xlabel: str = "", ylabel: str = "",
                 x_log: bool = False, y_log: bool = False, styles=None):
        if len(line_names) != len(line_vals):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_vals)} line_vals but "
                             f"{len(line_names)} line_names")
        if styles is not None and len(styles) < len(line_vals):
            raise ValueError(f"Benchmark {plot_name!r}: {len(line_vals)} lines but "
                             f"{len(styles)} styles")
        self.x_names = x_names
        self.x_vals = x_vals
        self.line_arg = line_arg
        self.line_vals = line_vals
        self.line_names = line_names
        self.plot_name = plot_name
        self.args = args
        self.xlabel = xlabel
        self.ylabel = ylabel
        self.x_log = x_log
        self.y_log = y_log
        self.styles = styles


class Table:
    """The results of one Benchmark when pandas is not installed: named
    columns of equal length, with the few DataFrame methods that a report
    uses (`columns`, `df[column]`, `len`, `shape`, `to_string`, `to_csv`)."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]]):
        self.columns = list(columns)
        self.rows = [list(row) for row in rows]
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"a row of {len(row)} values for {len(self.columns)} columns")

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def shape(self):
        return (len(self.rows), len(self.columns))

    def __getitem__(self, column: str) -> List[Any]:
        i = self.columns.index(column)
        return [row[i] for row in self.rows]

    def __setitem__(self, column: str, values: Sequence[Any]) -> None:
        values = list(values)
        if len(values) != len(self.rows):
            raise ValueError(f"{len(values)} values for a table of {len(self.rows)} rows")
        if column in self.columns:
            i = self.columns.index(column)
            for row, v in zip(self.rows, values):
                row[i] = v
        else:
            self.columns.append(column)
            for row, v in zip(self.rows, values):
                row.append(v)

    def to_string(self) -> str:
        """The table as text, the row number first, every column aligned right."""
        cells = [[""] + self.columns]
        cells += [[str(i)] + [_cell_text(v) for v in row] for i, row in enumerate(self.rows)]
        widths = [max(len(r[j]) for r in cells) for j in range(len(cells[0]))]
        return "\n".join("  ".join(c.rjust(w) for c, w in zip(r, widths)).rstrip()
                         for r in cells)

    __str__ = to_string

    def __repr__(self) -> str:
        return self.to_string()

    def to_csv(self, path: str, float_format: Optional[str] = None, index: bool = False) -> None:
        """Writes the table as pandas does: a header line, floats in
        `float_format` (e.g. "%.6f"), a missing value as an empty field,
        fields quoted only where needed; `index` puts the row numbers first."""
        # As pandas types a column: numbers with a float or a missing value among them are floats.
        as_float = [_float_column(self[c]) for c in self.columns]
        with open(path, "w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(([""] if index else []) + self.columns)
            for i, row in enumerate(self.rows):
                writer.writerow(([i] if index else [])
                                + [_csv_field(v, float_format, f) for v, f in zip(row, as_float)])


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _is_float(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (numbers.Integral, bool))


def _cell_text(v) -> str:
    if _missing(v):
        return "NaN"
    return f"{float(v):.6g}" if _is_float(v) else str(v)


def _float_column(values) -> bool:
    present = [v for v in values if not _missing(v)]
    return (all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in present)
            and (len(present) < len(values) or any(_is_float(v) for v in present)))


def _csv_field(v, float_format: Optional[str], as_float: bool) -> str:
    if _missing(v):
        return ""
    if as_float or _is_float(v):
        return float_format % float(v) if float_format else repr(float(v))
    return str(v)


def _triple(ret, where: str):
    """(mid, min, max) of a benchmark function's result: one number, or three."""
    if isinstance(ret, (numbers.Number, str, bytes)) or getattr(ret, "ndim", None) == 0:
        return ret, None, None
    try:
        values = list(ret)
    except TypeError:
        return ret, None, None
    if len(values) != 3:
        raise ValueError(f"perf_report: the benchmark function returned {len(values)} values "
                         f"for {where}; expected one number or a (mid, min, max) triple")
    return tuple(values)


def _make_table(columns: List[str], rows: List[List[Any]]):
    """A pandas DataFrame when pandas is installed, else a Table."""
    try:
        import pandas as pd
    except ImportError:
        return Table(columns, rows)
    return pd.DataFrame(rows, columns=columns)


class MatplotlibMissing(UserWarning):
    """perf_report was asked for a plot, and matplotlib is not installed."""


def _pyplot():
    """matplotlib.pyplot, or None when matplotlib is not installed."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


class Mark:
    """A benchmark function with its Benchmarks, made by `perf_report`;
    `run` sweeps it and reports."""

    def __init__(self, fn: Callable[..., Any], benchmarks):
        self.fn = fn
        self.benchmarks = benchmarks

    def _sweep(self, bench: Benchmark, kwargs):
        """The x values of every row, and every line's (mid, min, max) per row."""
        x_names = list(bench.x_names)
        xs, values = [], []
        for x in bench.x_vals[:1] if quick_mode() else bench.x_vals:
            x = list(x) if isinstance(x, (list, tuple)) else [x] * len(x_names)
            if len(x) != len(x_names):
                raise ValueError(f"Benchmark {bench.plot_name!r}: the x value {x!r} has "
                                 f"{len(x)} values for the {len(x_names)} x_names {x_names}")
            x_args = dict(zip(x_names, x))
            row = []
            for y in bench.line_vals:
                ret = self.fn(**x_args, **{bench.line_arg: y}, **bench.args, **kwargs)
                row.append(_triple(ret, f"{x_args}, {bench.line_arg}={y!r}"))
            xs.append(x)
            values.append(row)
        return xs, values

    def _plot(self, plt, bench: Benchmark, xs, values, save_path: str, show_plots: bool):
        """Draws the lines (with a band from min to max where given); saves
        `<plot_name>.png` into save_path. Returns whether it saved one."""
        fig, ax = plt.subplots()
        first = [x[0] for x in xs]
        for i, name in enumerate(bench.line_names):
            label = f"{name} ({bench.ylabel})"
            color, style = bench.styles[i][:2] if bench.styles else (None, None)
            mids = [float("nan") if _missing(v[i][0]) else float(v[i][0]) for v in values]
            ax.plot(first, mids, label=label, color=color, ls=style)
            lo, hi = [v[i][1] for v in values], [v[i][2] for v in values]
            if not all(_missing(v) for v in lo) and not all(_missing(v) for v in hi):
                ax.fill_between(first, [float("nan") if _missing(v) else float(v) for v in lo],
                                [float("nan") if _missing(v) else float(v) for v in hi],
                                alpha=0.15, color=color)
        ax.legend()
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        saved = False
        if save_path:
            fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
            saved = True
        if show_plots:
            plt.show()
        plt.close(fig)
        return saved

    def _run(self, bench: Benchmark, save_path: str, show_plots: bool, print_data: bool,
             diff_col: bool = False, save_precision: int = 6, *, _plt=None, **kwargs):
        xs, values = self._sweep(bench, kwargs)
        saved_png = False
        if bench.plot_name and _plt is not None:
            saved_png = self._plot(_plt, bench, xs, values, save_path, show_plots)
        columns = list(bench.x_names) + [f"{n} ({bench.ylabel})" for n in bench.line_names]
        table = _make_table(columns, [x + [v[0] for v in row] for x, row in zip(xs, values)])
        if diff_col and len(columns) == 2:
            table["Diff"] = [b - a for a, b in zip(table[columns[0]], table[columns[1]])]
        if print_data:
            print(bench.plot_name + ":")
            print(table.to_string())
        if save_path:
            table.to_csv(os.path.join(save_path, f"{bench.plot_name}.csv"),
                         float_format=f"%.{save_precision}f", index=False)
        return table, saved_png

    def run(self, show_plots: bool = False, print_data: bool = False, save_path: str = "",
            return_df: bool = False, **kwargs):
        """Calls the function over every Benchmark's grid, in order: for each
        x value, every line value. Each Benchmark makes a table (a pandas
        DataFrame, or a `Table` without pandas): the x_names, then one column
        per line, "<line name> (<ylabel>)", holding the function's number (or
        the mid of its (mid, min, max)). `print_data` prints it under
        "<plot_name>:"; `save_path` (created if needed) gets
        `<plot_name>.csv` (`save_precision` decimals, default 6),
        `<plot_name>.png` and `results.html`, which shows the plots;
        `show_plots` shows them. The plots need matplotlib: without it, one
        MatplotlibMissing warning, and the tables and CSV files as usual.
        `diff_col=True` adds a "Diff" column to a table of two columns. Other
        keyword arguments go to the function. In quick mode
        (WARPFORGE_BENCHMARK_QUICK=1) each Benchmark runs its first x value
        only. Returns the table (a list of
        them for a list of Benchmarks) when `return_df`, else None."""
        single = isinstance(self.benchmarks, Benchmark)
        benchmarks = [self.benchmarks] if single else list(self.benchmarks)
        plt = None
        if (show_plots or save_path) and any(b.plot_name for b in benchmarks):
            plt = _pyplot()
            if plt is None:
                warnings.warn("perf_report: matplotlib is not installed, so no plot is "
                              + ("shown or saved" if show_plots and save_path else
                                 "shown" if show_plots else "saved")
                              + " (pip install matplotlib); the tables"
                              + (" and CSV files" if save_path else "") + " are made as usual",
                              MatplotlibMissing, stacklevel=2)
        if save_path:
            os.makedirs(save_path, exist_ok=True)
        tables, pngs = [], []
        try:
            for bench in benchmarks:
                table, saved_png = self._run(bench, save_path, show_plots, print_data,
                                             _plt=plt, **kwargs)
                tables.append(table)
                pngs.append(saved_png)
        finally:
            if save_path:
                _write_index(save_path, benchmarks[:len(tables)], pngs)
        if return_df:
            return tables[0] if single else tables
        return None


def _write_index(save_path: str, benchmarks: Sequence[Benchmark], pngs: Sequence[bool]):
    """results.html: every saved plot, or where there is none, a link to the CSV."""
    from html import escape
    with open(os.path.join(save_path, "results.html"), "w") as f:
        f.write("<html><body>\n")
        for bench, png in zip(benchmarks, pngs):
            if png:
                f.write(f'<image src="{escape(bench.plot_name)}.png"/>\n')
            else:
                f.write(f'<p><a href="{escape(bench.plot_name)}.csv">'
                        f'{escape(bench.plot_name)}.csv</a></p>\n')
        f.write("</body></html>\n")


def perf_report(benchmarks):
    """A decorator that marks a benchmark function with a Benchmark, or a list
    of them; the `Mark` it returns sweeps the function with `.run(...)`:

        @perf_report(Benchmark(x_names=["N"], x_vals=[1024, 4096],
                               line_arg="provider", line_vals=["warpforge", "torch"],
                               line_names=["warpforge", "torch"], plot_name="add",
                               args={}, ylabel="GB/s"))
        def bench(N, provider):
            ...  # the number to plot, or (mid, min, max)

        bench.run(print_data=True, save_path="plots")
    """
    return lambda fn: Mark(fn, benchmarks)
