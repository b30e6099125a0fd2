"""scripts/triton_conformance.py on a tiny fake "Triton test file": the
triton -> warpforge aliasing, the device fixture and the JSON counts.
Needs neither torch nor the network (the fake file uses NumPy arrays)."""
import json
import subprocess
import sys
import textwrap

import pytest
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "triton_conformance.py"

FAKE = textwrap.dedent('''
    import numpy as np
    import pytest
    import triton
    import triton.language as tl
    from triton.runtime.errors import InterpreterError   # absent in warpforge: stubbed
    import warpforge


    @triton.jit
    def add_one(X, Y, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Y + offs, tl.load(X + offs) + 1)


    @pytest.mark.interpreter
    def test_alias(device):
        assert device == "cpu"
        assert triton is warpforge
        assert tl is warpforge.language

    @pytest.mark.interpreter
    @pytest.mark.parametrize("n", [8, 16])
    def test_kernel(n, device):
        x = np.arange(n, dtype=np.float32)
        y = np.zeros_like(x)
        add_one[(1,)](x, y, N=n)
        np.testing.assert_allclose(y, x + 1)

    @pytest.mark.interpreter
    def test_fails(device):
        assert False, "expected failure"

    @pytest.mark.interpreter
    def test_uses_missing(device):
        raise InterpreterError("x")

    @pytest.mark.interpreter
    def test_skipped(device):
        pytest.skip("not here")

    @pytest.mark.interpreter
    @pytest.mark.parametrize("dt", [tl.no_such_dtype_in_warpforge])
    def test_missing_dtype(dt, device):
        dt.primitive_bitwidth

    def test_not_interpreter():
        pass
''')


def test_conformance_script_counts(tmp_path):
    tests = tmp_path / "triton_tests"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    out = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tests", str(tests), "--json", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "| test_fake.py | 8 | 7 | 3 | 3 | 1 | 0 |" in proc.stdout, proc.stdout
    data = json.loads(out.read_text())
    row = data["files"]["test_fake.py"]
    assert (row["collected"], row["selected"], row["passed"], row["failed"],
            row["skipped"], row["errors"]) == (8, 7, 3, 3, 1, 0)
    assert row["pass_rate"] == 0.5
    assert "triton.runtime.errors (module)" in row["stubbed"]
    assert "triton.language.no_such_dtype_in_warpforge" in row["stubbed"]
    messages = dict(map(tuple, row["top_failures"]))
    assert any("WarpforgeMissing: triton.runtime.errors.InterpreterError" in m for m in messages)
    assert any("expected failure" in m for m in messages)
    assert data["total"]["passed"] == 3


def test_conformance_script_k_passthrough(tmp_path):
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    out = tmp_path / "r.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tests", str(tests), "--json", str(out),
                           "-k", "test_kernel or test_alias"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    row = json.loads(out.read_text())["files"]["test_fake.py"]
    assert (row["selected"], row["passed"], row["failed"]) == (3, 3, 0)


def _load_script():
    import importlib.util
    spec = importlib.util.spec_from_file_location("triton_conformance", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gpu_mode_command(tmp_path, monkeypatch):
    """--mode gpu: the tests get device "cuda", no interpreter variables,
    every test (no marker) unless -m says otherwise."""
    script = _load_script()
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    _, args = script.parse_args(["--tests", str(tmp_path), "--mode", "gpu"])
    assert args.marker == ""
    cmd, env = script.child_command(tmp_path / "test_x.py", args, tmp_path, tmp_path / "r.json")
    assert cmd[cmd.index("--device") + 1] == "cuda"
    assert "-m" not in cmd[3:]  # "python -m pytest" aside
    assert "WARPFORGE_INTERPRET" not in env and "TRITON_INTERPRET" not in env
    _, args = script.parse_args(["--tests", str(tmp_path)])
    assert args.marker == "interpreter"
    cmd, env = script.child_command(tmp_path / "test_x.py", args, tmp_path, tmp_path / "r.json")
    assert cmd[cmd.index("--device") + 1] == "cpu" and env["WARPFORGE_INTERPRET"] == "1"
    assert cmd[cmd.index("-m", 3) + 1] == "interpreter"


def _run(tests, out, *extra):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tests", str(tests), "--json", str(out),
                           *extra], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(out.read_text())


def test_conformance_shards_add_up(tmp_path):
    """--shard I/N: disjoint parts whose counts add up to the whole run's,
    each failing test named in "failures"."""
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    whole = _run(tests, tmp_path / "all.json")["files"]["test_fake.py"]
    parts = [_run(tests, tmp_path / f"{i}.json", "--shard", f"{i}/3")["files"]["test_fake.py"]
             for i in (1, 2, 3)]
    for key in ("selected", "passed", "failed", "skipped"):
        assert sum(p[key] for p in parts) == whole[key], key
    failures = {}
    for p in parts:
        assert not failures.keys() & p["failures"].keys()
        failures.update(p["failures"])
    assert failures == whole["failures"] and len(failures) == 3
    assert any("expected failure" in m for m in failures.values())
    assert not whole["partial"]


def test_conformance_bad_shard(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tests", str(tmp_path), "--shard", "4/3"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--shard '4/3'" in proc.stderr


def test_conformance_workers_count_like_one_process(tmp_path):
    """--workers 2 (pytest-xdist): the controller's counts are the same as
    a run in one process."""
    pytest.importorskip("xdist")
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    row = _run(tests, tmp_path / "r.json", "--workers", "2")["files"]["test_fake.py"]
    assert (row["collected"], row["selected"], row["passed"], row["failed"],
            row["skipped"], row["errors"]) == (8, 7, 3, 3, 1, 0)


@pytest.mark.parametrize("workers", [1, 2])
def test_conformance_budget_keeps_finished_tests(tmp_path, workers):
    """--budget stops a file's pytest and keeps the results written so far,
    marked partial; under pytest-xdist the controller's (a worker's own
    partial results once overwrote them)."""
    if workers > 1:
        pytest.importorskip("xdist")
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_slow.py").write_text(textwrap.dedent('''
        import time
        import pytest

        @pytest.mark.interpreter
        @pytest.mark.parametrize("i", range(3))
        def test_quick(i):
            pass

        @pytest.mark.interpreter
        def test_wait():
            time.sleep(7)  # past the plugin's 5 s between partial writes

        @pytest.mark.interpreter
        def test_hang():
            time.sleep(600)
    '''))
    data = _run(tests, tmp_path / "r.json", "--budget", "20", "--workers", str(workers))
    row = data["files"]["test_slow.py"]
    assert row["partial"] and data["total"]["partial"]
    assert row["passed"] == 4 and row["failed"] == 0


def test_conformance_excluded_and_only(tmp_path, monkeypatch):
    """EXCLUDED test functions leave the selection (unless --no-exclude);
    --only runs the listed ids alone."""
    script = _load_script()
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    monkeypatch.setattr(script, "EXCLUDED", {"test_fails": "not Hopper's"})
    out = tmp_path / "r.json"
    assert script.main(["--tests", str(tests), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    row = data["files"]["test_fake.py"]
    assert (row["selected"], row["failed"]) == (6, 2) and data["excluded"] == {"test_fails": "not Hopper's"}
    assert script.main(["--tests", str(tests), "--json", str(out), "--no-exclude"]) == 0
    assert json.loads(out.read_text())["files"]["test_fake.py"]["selected"] == 7
    ids = tmp_path / "ids.txt"
    ids.write_text("test_fake.py::test_kernel[16]\ntest_fake.py::test_fails\n")
    assert script.main(["--tests", str(tests), "--json", str(out), "--only", str(ids),
                        "--no-exclude"]) == 0
    row = json.loads(out.read_text())["files"]["test_fake.py"]
    assert (row["selected"], row["passed"], row["failed"]) == (2, 1, 1)


def test_conformance_merge_shards_and_a_rerun(tmp_path):
    """`merge`: two shards add up to the whole run; a rerun (--only) of the
    failures replaces their outcomes (here they fail again: same counts)."""
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_fake.py").write_text(FAKE)
    whole = _run(tests, tmp_path / "all.json")["files"]["test_fake.py"]
    parts = [tmp_path / f"{i}.json" for i in (1, 2)]
    for i, part in enumerate(parts, 1):
        _run(tests, part, "--shard", f"{i}/2")
    failures = set(whole["failures"])
    ids = tmp_path / "ids.txt"
    ids.write_text("\n".join(sorted(failures)) + "\n")
    rerun = tmp_path / "rerun.json"
    _run(tests, rerun, "--only", str(ids))
    out = tmp_path / "merged.json"
    proc = subprocess.run([sys.executable, str(SCRIPT), "merge", *map(str, parts), str(rerun),
                           "--json", str(out)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    merged = json.loads(out.read_text())["files"]["test_fake.py"]
    for key in ("selected", "passed", "failed", "skipped"):
        assert merged[key] == whole[key], key
    assert set(merged["failures"]) == failures and merged["runs"] == 3
    assert "| test_fake.py |" in proc.stdout


def test_merge_rerun_that_passes(tmp_path):
    script = _load_script()
    first = {"files": {"t.py": {"collected": 9, "selected": 8, "passed": 5, "failed": 2,
                                "skipped": 0, "errors": 1, "failures": {"a": "x", "b": "y", "c": "z"},
                                "error_ids": ["c"]}}}
    rerun = {"only_ids": ["a", "b", "c"],
             "files": {"t.py": {"collected": 9, "selected": 3, "passed": 2, "failed": 1,
                                "skipped": 0, "errors": 0, "failures": {"b": "y2"}}}}
    paths = []
    for i, d in enumerate((first, rerun)):
        paths.append(tmp_path / f"{i}.json")
        paths[-1].write_text(json.dumps(d))
    row = script.merge(paths)["t.py"]
    assert (row["collected"], row["selected"], row["passed"], row["failed"], row["errors"]) == \
        (9, 8, 7, 1, 0)
    assert row["failures"] == {"b": "y2"} and row["pass_rate"] == 0.875


KNOBS = '''
import os
import pytest


@pytest.mark.interpreter
def test_a_sets_a_knob(fresh_knobs):
    fresh_knobs.runtime.override_arch = "sm70"
    assert os.environ["WARPFORGE_OVERRIDE_ARCH"] == "sm70"


@pytest.mark.interpreter
def test_b_sees_it_undone():
    assert "WARPFORGE_OVERRIDE_ARCH" not in os.environ
'''


def test_fresh_knobs_undoes_what_a_test_sets(tmp_path, monkeypatch):
    """Triton's fresh_knobs fixture restores the knobs after the test: a
    test setting runtime.override_arch must not retarget the next ones (it
    did, in one GPU run, for 23 tests of the same worker)."""
    monkeypatch.delenv("WARPFORGE_OVERRIDE_ARCH", raising=False)
    tests = tmp_path / "t"
    tests.mkdir()
    (tests / "test_knobs_fake.py").write_text(KNOBS)
    result = _run(tests, tmp_path / "out.json")["files"]["test_knobs_fake.py"]
    assert result["passed"] == 2 and result["failed"] == 0, result
