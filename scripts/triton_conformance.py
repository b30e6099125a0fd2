#!/usr/bin/env python3
"""Run Triton's own language tests against warpforge and count the results.

Triton's test files are not part of this repository: fetch them (e.g.
python/test/unit/language/test_core.py, test_standard.py, test_random.py and,
for the helpers those import, python/triton/_internal_testing.py) from
triton-lang/triton into a directory and point --tests at it.

The tests run under pytest in a child process, in the CPU interpreter
(WARPFORGE_INTERPRET=1, and TRITON_INTERPRET=1 for Triton's own helpers), with
``device`` set to "cpu" the way Triton's interpreter CI does
(``pytest -m interpreter ... --device=cpu``). ``import triton`` and every
``triton.X`` submodule resolve to ``warpforge`` and ``warpforge.X`` through a
sys.meta_path shim (scripts/triton_alias.py, shared with triton_tutorials.py)
installed by a small pytest plugin that this script writes into a temporary
directory (never into the project's tests).

Names that the test files import at module level but warpforge lacks
(``from triton.runtime.jit import TensorWrapper``, a missing submodule such as
``triton.runtime.errors``) would stop a whole file from being collected. By
default the shim replaces each with a stub that raises
``WarpforgeMissing: triton.X`` when used, so that only the tests that really
use it fail; the stubs are listed in the report. ``--no-stubs`` turns this off.
``triton._internal_testing`` is warpforge's if it has one, else the
``_internal_testing.py`` found in --tests (aliased the same way).

Per file it reports collected, selected (after -m/-k), passed, failed,
skipped, errors (setup/teardown/collection) and the pass rate of the cases
that ran (passed / (passed + failed + errors)), as a Markdown table on stdout
and, with --json PATH, as JSON together with the most common failure messages.

``--mode interpret`` (the default) runs them in the CPU interpreter;
``--mode gpu`` compiles and launches every kernel on the GPU, as Triton's own
CI does: ``device`` is "cuda", WARPFORGE_INTERPRET and TRITON_INTERPRET are
unset, the marker defaults to '' (every test; Triton marks only the tests
its interpreter supports), and the allocator fixture allocates on the GPU.
``--workers N`` spreads a file's tests over N processes (pytest-xdist),
which the compiles of a GPU run need.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_FILES = ("test_core.py", "test_standard.py", "test_random.py")

# The pytest plugin loaded (with -p) into the child pytest before any test
# module is imported.
PLUGIN = r'''
import collections
import importlib
import json
import os
import time
from pathlib import Path

import pytest

import triton_alias  # scripts/triton_alias.py: the shared aliasing shim and stubs
from triton_alias import WarpforgeMissing  # noqa: F401  (the tests' error type)

SRC, DST = "triton", os.environ.get("WF_CONFORMANCE_TARGET", "warpforge")
TESTS_DIR = Path(os.environ["WF_CONFORMANCE_TESTS"])
RESULT = os.environ["WF_CONFORMANCE_RESULT"]
USE_STUBS = os.environ.get("WF_CONFORMANCE_STUBS", "1") == "1"
triton_alias.install(SRC, DST, use_stubs=USE_STUBS, internal_testing_dir=TESTS_DIR)
STUBBED, ALIASED = triton_alias.STUBBED, triton_alias.ALIASED


def pytest_addoption(parser):
    parser.addoption("--device", action="store", default="cpu")


_WORKER = False


def pytest_configure(config):
    global _WORKER
    _WORKER = _is_worker(config)
    config.addinivalue_line("markers", "interpreter: indicate whether interpreter supports the test")


@pytest.fixture
def device(request):
    return request.config.getoption("--device")


@pytest.fixture
def fresh_triton_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path))
    yield str(tmp_path)


@pytest.fixture
def with_allocator(request):
    wf = importlib.import_module(DST)
    if not hasattr(wf, "set_allocator"):
        yield  # the interpreter needs no device allocator
        return
    device = request.config.getoption("--device")

    def alloc(size, align, stream):
        import torch
        return torch.empty(size, dtype=torch.int8, device=device)
    wf.set_allocator(alloc)
    yield


@pytest.fixture
def fresh_knobs():
    # As Triton's: the knobs start from their defaults, and whatever the
    # test sets is undone after it.  warpforge's knobs are environment
    # variables, so the environment is what is cleared and restored (a
    # test setting runtime.override_arch must not retarget the tests its
    # worker runs next).
    if not hasattr(importlib.import_module(DST), "knobs"):
        raise WarpforgeMissing(f"{SRC}.knobs (fixture fresh_knobs)")
    knobs = importlib.import_module(DST).knobs
    saved = dict(os.environ)
    for knobset in vars(knobs).values():
        if isinstance(knobset, knobs.base_knobs):
            for knob in knobset.knob_descriptors.values():
                if knob.key != "WARPFORGE_CACHE_DIR":
                    os.environ.pop(knob.key, None)
    try:
        yield knobs
    finally:
        os.environ.clear()
        os.environ.update(saved)


fresh_knobs_except_libraries = fresh_knobs


def _configure_stubs():
    # Test files import each other (test_standard imports test_core): stub for all.
    triton_alias.stub_names_used_by(
        path for path in sorted(TESTS_DIR.glob("*.py")) if path.name != "_internal_testing.py")


_configure_stubs()


_files = collections.defaultdict(lambda: collections.Counter())
_messages = collections.defaultdict(collections.Counter)
_outcome = {}


def _file(nodeid):
    return nodeid.split("::", 1)[0].rsplit("/", 1)[-1]


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        text = crash.message
    else:
        text = str(report.longrepr)
    line = text.strip().splitlines()[0] if text.strip() else "?"
    return line[:300]


def pytest_collectreport(report):
    if report.failed:
        f = _file(report.nodeid) or "?"
        _files[f]["collection_errors"] += 1
        _messages[f]["collection error: " + _message(report)] += 1


def pytest_itemcollected(item):
    _files[_file(item.nodeid)]["collected"] += 1


SHARD = os.environ.get("WF_CONFORMANCE_SHARD")  # "i/n": every n-th test, from the i-th
# Test functions left out (not Hopper's: see EXCLUDED in the script).
EXCLUDE = set(filter(None, os.environ.get("WF_CONFORMANCE_EXCLUDE", "").split(",")))
# A file of test ids ("test_core.py::test_x[...]"), one per line: only those.
ONLY = os.environ.get("WF_CONFORMANCE_ONLY")


def _is_worker(config):
    return hasattr(config, "workerinput")  # a pytest-xdist worker process


def _short_id(nodeid):
    return nodeid.rsplit("/", 1)[-1]


def pytest_collection_modifyitems(config, items):
    import zlib
    only = set(Path(ONLY).read_text().split()) if ONLY else None
    i, n = (int(x) for x in SHARD.split("/")) if SHARD else (1, 1)
    keep, drop = [], []
    for item in items:
        name = getattr(item, "originalname", None) or item.name.split("[")[0]
        kept = (name not in EXCLUDE
                # a hash of the node id: the same split in every process
                and zlib.crc32(item.nodeid.encode()) % n == i - 1
                and (only is None or _short_id(item.nodeid) in only))
        (keep if kept else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep


def pytest_collection_finish(session):
    for item in session.items:
        _files[_file(item.nodeid)]["selected"] += 1
    if _is_worker(session.config) and session.config.workerinput.get("workerid") == "gw0":
        # Under pytest-xdist the controller collects nothing: one worker
        # reports the counts beside the result.
        Path(RESULT + ".collected").write_text(json.dumps({f: dict(c) for f, c in _files.items()}))


def pytest_runtest_logreport(report):
    f = _file(report.nodeid)
    key = report.nodeid
    if report.when == "setup":
        if report.failed:
            _outcome[key] = ("errors", _message(report))
        elif report.skipped:
            _outcome[key] = ("skipped", None)
    elif report.when == "call":
        if hasattr(report, "wasxfail"):
            _outcome[key] = ("xfailed" if report.skipped else "xpassed", None)
        elif report.passed:
            _outcome[key] = ("passed", None)
        elif report.failed:
            _outcome[key] = ("failed", _message(report))
        else:
            _outcome[key] = ("skipped", None)
    elif report.when == "teardown" and report.failed and key in _outcome:
        if _outcome[key][0] == "passed":
            _outcome[key] = ("errors", _message(report))
    global _last_write
    # Only the controller writes: pytest-xdist's workers see the reports of
    # their own tests alone.
    if report.when == "teardown" and not _WORKER and time.monotonic() - _last_write > 5:
        _write(partial=True)  # a run stopped by --budget keeps what it got
        _last_write = time.monotonic()


_last_write = time.monotonic()


def _write(partial=False, exitstatus=None):
    files = collections.defaultdict(collections.Counter)
    collected = Path(RESULT + ".collected")
    if collected.exists():
        for f, c in json.loads(collected.read_text()).items():
            files[f].update(c)
    else:
        for f, c in _files.items():
            files[f].update(c)
    messages = collections.defaultdict(collections.Counter)
    failures, error_ids = {}, []
    for nodeid, (kind, msg) in list(_outcome.items()):
        f = _file(nodeid)
        files[f][kind] += 1
        if msg is not None:
            messages[f][msg] += 1
            failures[nodeid] = msg
        if kind == "errors":
            error_ids.append(nodeid)
    out = {"files": {f: dict(c) for f, c in files.items()},
           "messages": {f: c.most_common() for f, c in messages.items()},
           "failures": failures, "error_ids": error_ids,
           "stubbed": sorted(set(STUBBED)), "aliased": sorted(ALIASED),
           "exitstatus": exitstatus, "partial": partial}
    tmp = Path(RESULT + ".tmp")
    tmp.write_text(json.dumps(out))
    tmp.replace(RESULT)


def pytest_sessionfinish(session, exitstatus):
    if not _is_worker(session.config):
        _write(exitstatus=int(exitstatus))
'''

def guard_decorators(source: str, filename: str) -> str:
    """Wrap each decorated module-level function so that an exception raised
    while its decorators are evaluated (a parametrize list naming a dtype that
    warpforge lacks) fails that test alone instead of the whole file's
    collection."""
    import ast
    tree = ast.parse(source, filename)
    body = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.decorator_list and stmt.name.startswith("test"):
            fallback = ast.parse(
                f"def {stmt.name}():\n"
                f"    raise RuntimeError('collection failed: ' + {stmt.name!r} + ': ' + _wf_err)\n").body[0]
            handler = ast.parse(
                "try:\n    pass\nexcept Exception as _wf_e:\n"
                "    _wf_err = type(_wf_e).__name__ + ': ' + str(_wf_e)\n").body[0]
            handler.body = [stmt]
            handler.handlers[0].body.append(fallback)
            body.append(handler)
        else:
            body.append(stmt)
    tree.body = body
    return ast.unparse(ast.fix_missing_locations(tree))


FIELDS = ("collected", "selected", "passed", "failed", "skipped", "errors")

# Triton tests that do not apply to Hopper for warpforge, left out of the
# selection (and so of the pass rate) unless --no-exclude: test name ->
# why. The list is the README's.
EXCLUDED = {
    "test_scaled_dot": "tl.dot_scaled: microscaled (mx) fp4/fp6/fp8 products, which the "
                       "issue counts among Blackwell's features (tcgen05's block scaling). "
                       "Triton emulates them on Hopper by upcasting to bf16; warpforge has "
                       "no tl.dot_scaled",
}


def _have(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


def child_command(test_file: Path, args, workdir: Path, result: Path):
    """(argv, environment) of the child pytest that runs `test_file`."""
    env = dict(os.environ)
    env.update({
        "WF_CONFORMANCE_TESTS": str(test_file.parent),
        "WF_CONFORMANCE_RESULT": str(result),
        "WF_CONFORMANCE_STUBS": "0" if args.no_stubs else "1",
        "WARPFORGE_CACHE_DIR": str(workdir / "cache"),
    })
    if args.shard:
        env["WF_CONFORMANCE_SHARD"] = args.shard
    env["WF_CONFORMANCE_EXCLUDE"] = ",".join(sorted(EXCLUDED)) if args.exclude else ""
    if args.only:
        env["WF_CONFORMANCE_ONLY"] = str(Path(args.only).resolve())
    if args.mode == "interpret":
        env.update({"WARPFORGE_INTERPRET": "1", "TRITON_INTERPRET": "1"})
    else:
        env.pop("WARPFORGE_INTERPRET", None)
        env.pop("TRITON_INTERPRET", None)
    paths = [str(workdir), str(REPO / "scripts"), str(REPO / "python")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    device = "cpu" if args.mode == "interpret" else "cuda"
    cmd = [sys.executable, "-m", "pytest", str(test_file), "-p", "wf_triton_alias",
           "-p", "no:cacheprovider", "--rootdir", str(test_file.parent),
           "-q", "--tb=line", "-o", "addopts=", "--device", device,
           "-W", "ignore::DeprecationWarning"]
    if args.workers > 1:
        if _have("xdist"):
            cmd += ["-n", str(args.workers)]
        else:
            print("warning: pytest-xdist is not installed; --workers ignored", file=sys.stderr)
    if args.marker:
        cmd += ["-m", args.marker]
    if args.k:
        cmd += ["-k", args.k]
    for d in args.deselect or ():
        cmd += ["--deselect", d]
    if args.timeout:
        if _have("pytest_timeout"):
            cmd += ["--timeout", str(args.timeout)]
        else:
            print("warning: pytest-timeout is not installed; --timeout ignored", file=sys.stderr)
    cmd += args.pytest_args
    return cmd, env


def run_file(test_file: Path, args, workdir: Path) -> dict:
    if args.guard:
        staged = workdir / "tests"
        staged.mkdir(exist_ok=True)
        for src in test_file.parent.glob("*.py"):
            text = src.read_text()
            if src.name.startswith("test_"):
                text = guard_decorators(text, str(src))
            (staged / src.name).write_text(text)
        test_file = staged / test_file.name
    result = workdir / f"{test_file.stem}.json"
    cmd, env = child_command(test_file, args, workdir, result)
    log = (args.logs or workdir) / f"{test_file.stem}.log"
    stopped = False
    with open(log, "w") as fh:
        # Its own session: --budget stops pytest and its xdist workers together.
        proc = subprocess.Popen(cmd, cwd=test_file.parent, env=env, stdout=fh,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            proc.wait(timeout=args.budget)
        except subprocess.TimeoutExpired:
            stopped = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if result.exists():
        data = json.loads(result.read_text())
    else:  # pytest died before sessionfinish (crash, usage error)
        tail = log.read_text()[-2000:]
        data = {"files": {}, "messages": {}, "stubbed": [], "aliased": [],
                "exitstatus": proc.returncode, "crash": tail}
    counts = data["files"].get(test_file.name, {})
    row = {f: int(counts.get(f, 0)) for f in FIELDS}
    row["errors"] += int(counts.get("collection_errors", 0))
    row["xfailed"] = int(counts.get("xfailed", 0))
    row["xpassed"] = int(counts.get("xpassed", 0))
    ran = row["passed"] + row["failed"] + row["errors"] + row["xpassed"]
    row["pass_rate"] = round((row["passed"] + row["xpassed"]) / ran, 4) if ran else None
    row["exitstatus"] = proc.returncode
    # Stopped by --budget: the counts are those of the tests that finished.
    row["partial"] = stopped or bool(data.get("partial"))
    row["failures"] = data.get("failures", {})
    row["error_ids"] = data.get("error_ids", [])
    row["stubbed"] = data.get("stubbed", [])
    row["top_failures"] = data.get("messages", {}).get(test_file.name, [])[:args.top]
    if "crash" in data:
        row["crash"] = data["crash"]
    return row


def markdown(rows: dict) -> str:
    out = ["| file | collected | selected | passed | failed | skipped | errors | pass rate |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, r in rows.items():
        rate = "-" if r["pass_rate"] is None else f"{100 * r['pass_rate']:.1f}%"
        if r.get("partial"):
            rate += " (partial)"
        out.append(f"| {name} | {r['collected']} | {r['selected']} | {r['passed']} | "
                   f"{r['failed']} | {r['skipped']} | {r['errors']} | {rate} |")
    return "\n".join(out)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tests", required=True, type=Path,
                   help="directory holding Triton's test files")
    p.add_argument("--files", nargs="*", default=None,
                   help=f"test files in --tests to run (default: those of {', '.join(DEFAULT_FILES)} "
                        "that exist, else every test_*.py)")
    p.add_argument("--json", type=Path, help="write the results as JSON here")
    p.add_argument("-k", default=None, help="passed to pytest -k")
    p.add_argument("--deselect", action="append", help="passed to pytest --deselect (repeatable)")
    p.add_argument("-m", dest="marker", default=None,
                   help="pytest -m marker expression (default: 'interpreter' with --mode "
                        "interpret, as Triton's interpreter CI; '' with --mode gpu: all tests)")
    p.add_argument("--timeout", type=float, default=None,
                   help="per-test timeout in seconds (needs pytest-timeout)")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="run the I-th of N disjoint parts of each file (by a hash of the test id), "
                        "to spread a GPU run over several calls; the parts' JSON add up")
    p.add_argument("--no-exclude", dest="exclude", action="store_false",
                   help="also run the tests EXCLUDED lists (not Hopper's)")
    p.add_argument("--only", default=None, metavar="FILE",
                   help="run only the test ids listed in FILE (one per line, "
                        "'test_core.py::test_x[...]'), e.g. an earlier run's failures")
    p.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                   help="stop each file's pytest after this long and report the tests that "
                        "finished (marked partial)")
    p.add_argument("--mode", choices=["interpret", "gpu"], default="interpret",
                   help="the CPU interpreter, or compiled and launched on the GPU")
    p.add_argument("--workers", type=int, default=1,
                   help="processes per file (pytest-xdist -n), for the compiles of a GPU run")
    p.add_argument("--no-stubs", action="store_true",
                   help="do not stub triton names that warpforge lacks")
    p.add_argument("--no-guard", dest="guard", action="store_false",
                   help="run the test files as they are, without guarding each test's "
                        "decorators (one failing parametrize list then stops the whole file)")
    p.add_argument("--logs", type=Path, default=None,
                   help="keep each file's pytest log in this directory")
    p.add_argument("--top", type=int, default=25, help="failure messages kept per file")
    p.add_argument("pytest_args", nargs="*", help="extra pytest arguments (after --)")
    args = p.parse_args(argv)
    if args.shard:
        try:
            i, n = (int(x) for x in args.shard.split("/"))
            assert 1 <= i <= n
        except (ValueError, AssertionError):
            p.error(f"--shard {args.shard!r}: expected I/N with 1 <= I <= N")
    if args.marker is None:
        args.marker = "interpreter" if args.mode == "interpret" else ""
    return p, args


def merge(paths) -> dict:
    """The rows of several runs' JSON as one run: shards add up; a run made
    with --only (a rerun of listed ids) replaces those ids' earlier
    outcomes: each listed id that had failed leaves the failures, then the
    rerun's counts are added. Partial runs keep their mark."""
    rows = {}
    for path in paths:
        data = json.loads(Path(path).read_text())
        rerun = set(data.get("only_ids") or ())
        for name, r in data["files"].items():
            row = rows.setdefault(name, {**{f: 0 for f in FIELDS + ("xfailed", "xpassed")},
                                         "failures": {}, "error_ids": [], "partial": False,
                                         "runs": 0})
            for test_id in rerun & row["failures"].keys():
                del row["failures"][test_id]
                if test_id in row["error_ids"]:
                    row["error_ids"].remove(test_id)
                    row["errors"] -= 1
                else:
                    row["failed"] -= 1
            for f in FIELDS + ("xfailed", "xpassed"):
                if f in ("collected", "selected") and rerun:
                    continue  # the rerun's tests were counted already
                row[f] += r.get(f, 0)
            row["failures"].update(r.get("failures", {}))
            row["error_ids"] += list(r.get("error_ids", ()))
            row["partial"] = row["partial"] or bool(r.get("partial"))
            row["runs"] += 1
    for row in rows.values():
        ran = row["passed"] + row["failed"] + row["errors"] + row["xpassed"]
        row["pass_rate"] = round((row["passed"] + row["xpassed"]) / ran, 4) if ran else None
    return rows


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "merge":
        # triton_conformance.py merge RUN.json... [--json OUT]
        mp = argparse.ArgumentParser(prog="triton_conformance.py merge",
                                     description=merge.__doc__.split("\n")[0])
        mp.add_argument("runs", nargs="+", type=Path)
        mp.add_argument("--json", type=Path)
        margs = mp.parse_args(argv[1:])
        rows = merge(margs.runs)
        total = {k: sum(r[k] for r in rows.values()) for k in FIELDS + ("xfailed", "xpassed")}
        ran = total["passed"] + total["failed"] + total["errors"] + total["xpassed"]
        total["pass_rate"] = round((total["passed"] + total["xpassed"]) / ran, 4) if ran else None
        total["partial"] = any(r["partial"] for r in rows.values())
        print(markdown({**rows, "total": total}))
        if margs.json:
            margs.json.write_text(json.dumps({"merged": [str(r) for r in margs.runs],
                                              "files": rows, "total": total}, indent=2))
        return 0
    p, args = parse_args(argv)
    tests = args.tests.resolve()
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)
    if args.files:
        files = [tests / f for f in args.files]
    else:
        files = [tests / f for f in DEFAULT_FILES if (tests / f).exists()]
        files = files or sorted(tests.glob("test_*.py"))
    if not files:
        p.error(f"no test files in {tests}")

    rows = {}
    with tempfile.TemporaryDirectory(prefix="wf_conformance_") as tmp:
        workdir = Path(tmp)
        (workdir / "wf_triton_alias.py").write_text(PLUGIN)
        for f in files:
            rows[f.name] = run_file(f, args, workdir)

    total = {k: sum(r[k] for r in rows.values()) for k in FIELDS + ("xfailed", "xpassed")}
    ran = total["passed"] + total["failed"] + total["errors"] + total["xpassed"]
    total["pass_rate"] = round((total["passed"] + total["xpassed"]) / ran, 4) if ran else None
    total["partial"] = any(r["partial"] for r in rows.values())
    print(markdown({**rows, "total": total}))
    stubbed = sorted({s for r in rows.values() for s in r["stubbed"]})
    if stubbed:
        print("\nstubbed (missing in warpforge): " + ", ".join(stubbed))
    if args.json:
        args.json.write_text(json.dumps({
            "tests_dir": str(tests), "mode": args.mode, "marker": args.marker,
            "k": args.k, "deselect": args.deselect, "shard": args.shard,
            "excluded": EXCLUDED if args.exclude else {}, "only": args.only,
            "only_ids": Path(args.only).read_text().split() if args.only else None,
            "files": rows, "total": total,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
