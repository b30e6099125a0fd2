"""warpforge.testing.perf_report and Benchmark, on the CPU: the sweep, the
tables, the CSV files, the plots (where matplotlib is installed) and the
path without matplotlib. pandas and matplotlib are optional: every test but
the plot checks runs without them."""

import os
import sys
import warnings

import numpy as np
import pytest

from warpforge.testing import Benchmark, MatplotlibMissing, Table, perf_report

try:
    import pandas
except ImportError:
    pandas = None

# Where matplotlib is missing, runs with a save_path warn; the tests of that path check it.
pytestmark = pytest.mark.filterwarnings("ignore::warpforge.testing.MatplotlibMissing")


def _bench(**overrides):
    kw = dict(x_names=["N"], x_vals=[128, 256], line_arg="provider", line_vals=["wf", "torch"],
              line_names=["warpforge", "torch"], plot_name="add", args={}, ylabel="GB/s")
    kw.update(overrides)
    return Benchmark(**kw)


def _no_matplotlib(monkeypatch):
    """Makes `import matplotlib` (and its pyplot) fail as if not installed."""
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)


def _pyplot(monkeypatch):
    """matplotlib.pyplot on the Agg backend (skips without matplotlib), with
    plt.show recording its calls instead of opening a window."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = []
    monkeypatch.setattr(plt, "show", lambda *a, **k: shown.append(len(plt.get_fignums())))
    return plt, shown


def _column(table, name):
    return list(table[name])


def test_grid_swept_in_order_with_the_right_kwargs():
    calls = []
    bench = _bench(x_names=["M", "N"], x_vals=[8, (16, 32), [64, 128]], line_vals=["a", "b"],
                   line_names=["A", "B"], args={"dtype": "fp16", "scale": 2})

    @perf_report(bench)
    def fn(**kwargs):
        calls.append(kwargs)
        return 1.0

    assert fn.fn is not None and fn.benchmarks is bench
    fn.run(extra=7)  # run's other keyword arguments go to the function
    fixed = {"dtype": "fp16", "scale": 2, "extra": 7}
    assert calls == [
        {"M": 8, "N": 8, "provider": "a", **fixed}, {"M": 8, "N": 8, "provider": "b", **fixed},
        {"M": 16, "N": 32, "provider": "a", **fixed}, {"M": 16, "N": 32, "provider": "b", **fixed},
        {"M": 64, "N": 128, "provider": "a", **fixed},
        {"M": 64, "N": 128, "provider": "b", **fixed}]


def test_quick_mode_runs_the_first_x_value_only(monkeypatch):
    # WARPFORGE_BENCHMARK_QUICK=1: each Benchmark's first x value, every line.
    calls = []

    @perf_report([_bench(x_vals=[128, 256, 512]), _bench(x_vals=[(1, 2), (3, 4)],
                                                         x_names=["M", "N"], plot_name="mn")])
    def bench(provider, **xs):
        calls.append((tuple(sorted(xs.items())), provider))
        return 1.0

    monkeypatch.setenv("WARPFORGE_BENCHMARK_QUICK", "1")
    first, second = bench.run(return_df=True)
    assert calls == [((("N", 128),), "wf"), ((("N", 128),), "torch"),
                     ((("M", 1), ("N", 2)), "wf"), ((("M", 1), ("N", 2)), "torch")]
    assert len(first) == 1 and len(second) == 1
    monkeypatch.setenv("WARPFORGE_BENCHMARK_QUICK", "0")
    calls.clear()
    bench.run()
    assert len(calls) == 10


def test_line_arg_values_reach_the_function_and_name_the_columns():
    @perf_report(_bench(line_vals=[1, 2, 3], line_names=["one", "two", "three"],
                        line_arg="stages"))
    def fn(N, stages):
        return N * stages

    table = fn.run(return_df=True)
    assert list(table.columns) == ["N", "one (GB/s)", "two (GB/s)", "three (GB/s)"]
    assert _column(table, "N") == [128, 256]
    assert _column(table, "two (GB/s)") == [256, 512]
    assert _column(table, "three (GB/s)") == [384, 768]
    assert isinstance(table, pandas.DataFrame if pandas else Table)


def test_single_number_and_triple_returns(tmp_path):
    """The mid of (mid, min, max) goes into the table; a number is its own
    mid; None (a failed measurement) is a missing value."""
    @perf_report(_bench(x_vals=[1, 2, 4], line_vals=["single", "triple", "numpy"],
                        line_names=["s", "t", "np"], plot_name="returns"))
    def fn(N, provider):
        if provider == "single":
            return None if N == 2 else N / 3
        if provider == "triple":
            return (N + 0.5, N, N + 1.0)
        return np.float32(N * 0.25), np.float32(0), np.float32(N)

    table = fn.run(save_path=str(tmp_path), return_df=True)
    assert _column(table, "t (GB/s)") == [1.5, 2.5, 4.5]
    assert [float(v) for v in _column(table, "np (GB/s)")] == [0.25, 0.5, 1.0]
    single = _column(table, "s (GB/s)")
    assert single[0] == pytest.approx(1 / 3) and single[2] == pytest.approx(4 / 3)
    assert single[1] is None or np.isnan(single[1])
    assert (tmp_path / "returns.csv").read_text() == (
        "N,s (GB/s),t (GB/s),np (GB/s)\n"
        "1,0.333333,1.500000,0.250000\n"
        "2,,2.500000,0.500000\n"
        "4,1.333333,4.500000,1.000000\n")


def test_a_result_of_two_values_is_an_error():
    @perf_report(_bench())
    def fn(N, provider):
        return (1.0, 2.0)

    with pytest.raises(ValueError, match=r"returned 2 values for \{'N': 128\}, provider='wf'; "
                                         r"expected one number or a \(mid, min, max\) triple"):
        fn.run()


def test_csv_content_exactly(tmp_path):
    """x values of two names (one value for both, or a tuple), strings with a
    comma quoted, `save_precision` decimals."""
    @perf_report(_bench(x_names=["size", "label"], x_vals=[(1024, "1k"), (4096, "4k, wide")],
                        plot_name="exact"))
    def fn(size, label, provider):
        return size / 1000 if provider == "wf" else 2.0

    fn.run(save_path=str(tmp_path / "out"))
    assert (tmp_path / "out" / "exact.csv").read_text() == (
        "size,label,warpforge (GB/s),torch (GB/s)\n"
        "1024,1k,1.024000,2.000000\n"
        '4096,"4k, wide",4.096000,2.000000\n')
    fn.run(save_path=str(tmp_path / "p2"), save_precision=2)
    assert (tmp_path / "p2" / "exact.csv").read_text().splitlines()[1] == "1024,1k,1.02,2.00"


def test_table_printed(capsys):
    @perf_report(_bench(plot_name="printed"))
    def fn(N, provider):
        return N * 2.5 if provider == "wf" else 7.0

    assert fn.run(print_data=True) is None
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "printed:" and len(lines) == 4
    assert lines[1].split() == ["N", "warpforge", "(GB/s)", "torch", "(GB/s)"]
    assert lines[2].split() == ["0", "128", "320.0" if pandas else "320", "7.0" if pandas else "7"]
    assert lines[3].split()[:3] == ["1", "256", "640.0" if pandas else "640"]
    fn.run()
    assert capsys.readouterr().out == ""  # nothing without print_data


def test_table_without_pandas():
    t = Table(["N", "GB/s"], [[1, 0.5], [2, None]])
    assert len(t) == 2 and t.shape == (2, 2) and t["GB/s"] == [0.5, None]
    assert t.to_string().splitlines() == ["   N  GB/s", "0  1   0.5", "1  2   NaN"]
    t["Diff"] = [1, 2]
    assert t.columns == ["N", "GB/s", "Diff"] and t.rows[1] == [2, None, 2]
    with pytest.raises(ValueError, match="3 values for a table of 2 rows"):
        t["x"] = [1, 2, 3]


def test_multiple_benchmarks(tmp_path, capsys):
    seen = []
    first = _bench(x_vals=[1, 2], plot_name="first")
    second = _bench(x_names=["K"], x_vals=[10], line_vals=["only"], line_names=["only"],
                    plot_name="second", args={"scale": 3})

    @perf_report([first, second])
    def fn(provider, N=None, K=None, scale=1):
        seen.append((N, K, provider))
        return float((N or K) * scale)

    tables = fn.run(print_data=True, save_path=str(tmp_path), return_df=True)
    assert seen == [(1, None, "wf"), (1, None, "torch"), (2, None, "wf"), (2, None, "torch"),
                    (None, 10, "only")]
    assert isinstance(tables, list) and len(tables) == 2
    assert list(tables[0].columns) == ["N", "warpforge (GB/s)", "torch (GB/s)"]
    assert list(tables[1].columns) == ["K", "only (GB/s)"]
    assert _column(tables[1], "only (GB/s)") == [30.0]
    out = capsys.readouterr().out
    assert out.index("first:") < out.index("second:")
    assert (tmp_path / "first.csv").exists() and (tmp_path / "second.csv").read_text() == \
        "K,only (GB/s)\n10,30.000000\n"


def test_diff_col():
    @perf_report(_bench(line_vals=["wf"], line_names=["warpforge"]))
    def fn(N, provider):
        return N + 0.5

    table = fn.run(return_df=True, diff_col=True)
    assert list(table.columns) == ["N", "warpforge (GB/s)", "Diff"]
    assert _column(table, "Diff") == [0.5, 0.5]


def test_bad_benchmarks():
    with pytest.raises(ValueError, match="2 line_vals but 1 line_names"):
        _bench(line_names=["warpforge"])
    with pytest.raises(ValueError, match="2 lines but 1 styles"):
        _bench(styles=[("red", "-")])

    @perf_report(_bench(x_names=["M", "N"], x_vals=[(1, 2, 3)]))
    def fn(M, N, provider):
        return 1.0

    with pytest.raises(ValueError, match=r"the x value \[1, 2, 3\] has 3 values for the 2 "
                                         r"x_names \['M', 'N'\]"):
        fn.run()


def test_save_path_files(tmp_path):
    """save_path is created; every benchmark writes its CSV (and its PNG with
    matplotlib); results.html lists the plots, or the CSV files without."""
    target = tmp_path / "a" / "b"

    @perf_report([_bench(plot_name="one"), _bench(plot_name="two")])
    def fn(N, provider):
        return 1.0

    fn.run(save_path=str(target))
    try:
        import matplotlib  # noqa: F401
        plots = True
    except ImportError:
        plots = False
    files = {"one.csv", "two.csv", "results.html"} | ({"one.png", "two.png"} if plots else set())
    assert set(os.listdir(target)) == files
    html = (target / "results.html").read_text()
    if plots:
        assert html == '<html><body>\n<image src="one.png"/>\n<image src="two.png"/>\n' \
                       '</body></html>\n'
    else:
        assert '<a href="one.csv">one.csv</a>' in html and '<a href="two.csv">' in html


def test_index_written_when_a_benchmark_fails(tmp_path, monkeypatch):
    """As Triton: results.html still lists the benchmarks that finished."""
    _no_matplotlib(monkeypatch)

    @perf_report([_bench(plot_name="ok"), _bench(plot_name="broken", args={"fail": True})])
    def fn(N, provider, fail=False):
        if fail and N == 256:
            raise RuntimeError("kernel failed")
        return 1.0

    with pytest.warns(MatplotlibMissing), pytest.raises(RuntimeError, match="kernel failed"):
        fn.run(save_path=str(tmp_path))
    assert (tmp_path / "ok.csv").exists() and not (tmp_path / "broken.csv").exists()
    html = (tmp_path / "results.html").read_text()
    assert "ok.csv" in html and "broken" not in html


def test_without_matplotlib(tmp_path, monkeypatch, capsys):
    """One warning naming matplotlib per run; the tables and CSV files as usual."""
    _no_matplotlib(monkeypatch)

    @perf_report([_bench(plot_name="one"), _bench(plot_name="two")])
    def fn(N, provider):
        return (2.0, 1.0, 3.0)

    with pytest.warns(MatplotlibMissing) as record:
        tables = fn.run(save_path=str(tmp_path), print_data=True, return_df=True)
    assert len(record) == 1
    assert str(record[0].message) == (
        "perf_report: matplotlib is not installed, so no plot is saved (pip install "
        "matplotlib); the tables and CSV files are made as usual")
    assert record[0].filename == __file__  # points at the caller's run()
    assert set(os.listdir(tmp_path)) == {"one.csv", "two.csv", "results.html"}
    assert (tmp_path / "one.csv").read_text() == \
        "N,warpforge (GB/s),torch (GB/s)\n128,2.000000,2.000000\n256,2.000000,2.000000\n"
    assert len(tables) == 2 and "one:" in capsys.readouterr().out

    with pytest.warns(MatplotlibMissing, match="no plot is shown \\(pip install matplotlib\\); "
                                               "the tables are made as usual"):
        fn.run(show_plots=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fn.run(print_data=True)  # no plot asked for: no warning
        perf_report(_bench(plot_name=""))(lambda N, provider: 1.0).run(show_plots=True)


def test_plots_saved(tmp_path, monkeypatch):
    plt, shown = _pyplot(monkeypatch)

    @perf_report([_bench(plot_name="lines", x_log=True, y_log=True,
                         styles=[("red", "-"), ("blue", "--")]),
                  _bench(plot_name="bands", xlabel="size")])
    def fn(N, provider):
        return (N / 2, N / 4, N) if provider == "wf" else float(N)

    fn.run(save_path=str(tmp_path))
    for name in ("lines", "bands"):
        data = (tmp_path / f"{name}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000
        image = plt.imread(str(tmp_path / f"{name}.png"))
        assert image.ndim == 3 and image.shape[0] > 100
    assert shown == [] and plt.get_fignums() == []  # figures closed, nothing shown


def test_plot_contents(monkeypatch):
    """What is drawn: one line per provider on the first x name, a band from
    min to max where the function gives them, the labels and scales."""
    plt, _ = _pyplot(monkeypatch)
    drawn, close = [], plt.close
    monkeypatch.setattr(plt, "close", lambda fig: drawn.append(fig))

    @perf_report(_bench(x_names=["N", "tag"], x_vals=[(1, "a"), (4, "b")], x_log=True,
                        styles=[("red", "-"), ("blue", "--")]))
    def fn(N, tag, provider):
        return (N / 2, N / 4, N) if provider == "wf" else float(N)

    fn.run(show_plots=True)
    (fig,) = drawn
    ax = fig.axes[0]
    lines = ax.get_lines()
    assert [line.get_label() for line in lines] == ["warpforge (GB/s)", "torch (GB/s)"]
    assert list(lines[0].get_xdata()) == [1, 4] and list(lines[0].get_ydata()) == [0.5, 2.0]
    assert lines[1].get_linestyle() == "--" and lines[1].get_color() == "blue"
    assert len(ax.collections) == 1  # one band: only warpforge gave min and max
    assert ax.get_xscale() == "log" and ax.get_yscale() == "linear"
    assert ax.get_xlabel() == "N" and ax.get_ylabel() == "GB/s"
    close(fig)


def test_show_plots(monkeypatch):
    plt, shown = _pyplot(monkeypatch)

    @perf_report([_bench(plot_name="one"), _bench(plot_name="two")])
    def fn(N, provider):
        return 1.0

    fn.run(show_plots=True)
    assert shown == [1, 1] and plt.get_fignums() == []  # one figure each, then closed
