#!/usr/bin/env python3
"""Run Triton's tutorials against warpforge, each as a script, and tabulate
which run.

Triton's tutorials are not part of this repository: fetch them (the files of
python/tutorials/ in triton-lang/triton) into a directory and point
--tutorials at it. Each tutorial runs as written, as ``__main__``, in its own
child process (``--timeout`` seconds each), with ``import triton`` and every
``triton.X`` resolved to ``warpforge``/``warpforge.X`` by the shim shared
with triton_conformance.py (scripts/triton_alias.py). Names that a tutorial
uses from ``triton.X`` but warpforge lacks become stubs that raise
``WarpforgeMissing: triton.X`` when used (``--no-stubs`` turns this off);
they are listed per tutorial.

``--interpret`` (the default where no CUDA device is visible to torch) sets
WARPFORGE_INTERPRET=1 and TRITON_INTERPRET=1: kernels run in the CPU
interpreter on CPU tensors. ``--quick`` (the default with --interpret) sets
WARPFORGE_BENCHMARK_QUICK=1, so that the tutorials' ``perf_report``
benchmarks run only the first x value of each sweep and ``do_bench`` times a
single call (a full sweep in the interpreter takes hours); the correctness
checks run as written. MPLBACKEND=Agg keeps ``show_plots=True`` headless
(without matplotlib, perf_report warns once and still prints its tables).
Each child runs in its own scratch directory, where the tutorials' CSV and
PNG files land.

Tutorials that cannot run anywhere but on a given GPU are skipped with the
reason (10-block-scaled-matmul: Blackwell only). In the interpreter, a
tutorial that stops because it calls CUDA torch itself
(``torch.cuda.get_device_capability()``, ``assert x.is_cuda``) is reported
as "needs GPU", not as a warpforge failure. The report, a Markdown table on
stdout and, with --json PATH, JSON, gives per tutorial: status (ran, failed,
needs GPU, timeout, skipped), the reason or the first line of the error with
the tutorial's line where it stopped, the seconds taken and the stubs
used. ``--logs DIR`` keeps each child's output.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPTS = REPO / "scripts"

# Tutorials skipped outright, with why.
SKIP = {
    "10-block-scaled-matmul.py": "Blackwell-only (tl.dot_scaled on sm_100 block-scaled MMA)",
}


def _child(tutorial: Path, result: Path, use_stubs: bool) -> int:
    """Runs in the child process: alias triton, run the tutorial as __main__."""
    import ast
    import runpy
    import traceback

    sys.path.insert(0, str(SCRIPTS))
    import triton_alias
    triton_alias.install("triton", "warpforge", use_stubs=use_stubs)
    # A script runs all of itself: stub the missing names its whole body uses.
    triton_alias.stub_names_used_by([tutorial], nodes=ast.walk)
    out = {"stubbed": [], "error": None, "traceback": None}
    sys.argv = [str(tutorial)]
    sys.path.insert(0, str(tutorial.parent))
    code = 0
    try:
        runpy.run_path(str(tutorial), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if code:
            out["error"] = f"SystemExit: {e.code}"
    except BaseException as e:  # noqa: BLE001 - report whatever stopped it
        text = str(e).strip()
        first = text.splitlines()[0] if text else ""
        out["error"] = f"{type(e).__module__}.{type(e).__qualname__}: {first}".removeprefix("builtins.")
        out["traceback"] = traceback.format_exc()[-4000:]
        # Where in the tutorial it stopped: the innermost frame in its file.
        frames = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == str(tutorial)]
        if frames:
            out["line"] = f"{tutorial.name}:{frames[-1].lineno}: {(frames[-1].line or '').strip()}"
        code = 1
    out["stubbed"] = sorted(set(triton_alias.STUBBED))
    result.write_text(json.dumps(out))
    return code


def _cuda_visible() -> bool:
    try:
        import torch
        return bool(torch.cuda.is_available())
    except Exception:  # noqa: BLE001
        return False


def run_tutorial(path: Path, args, workdir: Path) -> dict:
    if path.name in SKIP and not args.no_skip:
        return {"status": "skipped", "reason": SKIP[path.name], "error": None, "seconds": 0.0,
                "stubbed": []}
    scratch = workdir / path.stem
    scratch.mkdir(parents=True, exist_ok=True)
    result = scratch / "_result.json"
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    env["WARPFORGE_CACHE_DIR"] = str(workdir / "cache")
    if args.interpret:
        env.update({"WARPFORGE_INTERPRET": "1", "TRITON_INTERPRET": "1"})
    if args.quick:
        env["WARPFORGE_BENCHMARK_QUICK"] = "1"
    paths = [str(SCRIPTS), str(REPO / "python")]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--_child", str(path), str(result)]
    if args.no_stubs:
        cmd.append("--no-stubs")
    log = (args.logs or scratch) / f"{path.stem}.log"
    t0 = time.monotonic()
    timed_out = False
    with open(log, "w") as fh:
        try:
            proc = subprocess.run(cmd, cwd=scratch, env=env, stdout=fh, stderr=subprocess.STDOUT,
                                  timeout=args.timeout)
            rc = proc.returncode
        except subprocess.TimeoutExpired:
            timed_out, rc = True, None
    seconds = round(time.monotonic() - t0, 1)
    data = json.loads(result.read_text()) if result.exists() else {}
    row = {"seconds": seconds, "stubbed": data.get("stubbed", []), "reason": None,
           "error": data.get("error"), "returncode": rc}
    if timed_out:
        row.update(status="timeout", error=f"timed out after {args.timeout:g} s")
    elif rc == 0 and not row["error"]:
        row["status"] = "ran"
    else:
        row["status"] = "failed"
        if not row["error"]:  # died without a Python exception (a signal, a crash)
            tail = [ln for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
            row["error"] = f"exit status {rc}" + (f": {tail[-1][:200]}" if tail else "")
    if data.get("line"):
        row["line"] = data["line"]
    if data.get("traceback"):
        row["traceback"] = data["traceback"]
    if row["status"] == "failed" and args.interpret:
        reason = _needs_gpu(row)
        if reason:
            row.update(status="needs GPU", reason=reason)
    return row


def _needs_gpu(row) -> str:
    """Why a failed run needs a GPU whatever warpforge does, or "": the
    tutorial itself calls CUDA torch (torch.cuda.*, which raises without a
    driver) or asserts that its tensors are CUDA tensors."""
    text = (row.get("traceback") or "") + (row.get("error") or "")
    line = row.get("line") or ""
    if "Found no NVIDIA driver" in text or "Torch not compiled with CUDA" in text:
        return f"the tutorial calls CUDA torch itself ({line})"
    if ".is_cuda" in line:
        return f"the tutorial asserts CUDA tensors ({line})"
    return ""


def markdown(rows: dict) -> str:
    out = ["| tutorial | status | seconds | first error line / reason |",
           "| --- | --- | ---: | --- |"]
    for name, r in rows.items():
        note = r.get("reason") or ""
        if not note and r.get("error"):
            note = r["error"] + (f" ({r['line']})" if r.get("line") else "")
        note = note.replace("|", "\\|").replace("\n", " ")
        if len(note) > 160:
            note = note[:157] + "..."
        out.append(f"| {name} | {r['status']} | {r['seconds']:.1f} | {note} |")
    return "\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--_child"]:
        return _child(Path(argv[1]).resolve(), Path(argv[2]), "--no-stubs" not in argv)
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tutorials", required=True, type=Path,
                   help="directory holding Triton's python/tutorials/*.py")
    p.add_argument("--only", nargs="*", default=None,
                   help="tutorial files (or their number prefixes, e.g. 01 03) to run")
    p.add_argument("--json", type=Path, help="write the results as JSON here")
    p.add_argument("--timeout", type=float, default=600, help="seconds per tutorial (600)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--interpret", dest="interpret", action="store_true", default=None,
                      help="run kernels in the CPU interpreter (default without a CUDA device)")
    mode.add_argument("--compile", dest="interpret", action="store_false",
                      help="compile and launch on the GPU (default with a CUDA device)")
    p.add_argument("--quick", dest="quick", action="store_true", default=None,
                   help="WARPFORGE_BENCHMARK_QUICK=1: one x value per benchmark, one timed "
                        "call per do_bench (default with --interpret)")
    p.add_argument("--full", dest="quick", action="store_false",
                   help="run the benchmarks' full sweeps")
    p.add_argument("--no-stubs", action="store_true",
                   help="do not stub triton names that warpforge lacks")
    p.add_argument("--no-skip", action="store_true",
                   help="run the tutorials that are skipped by default too")
    p.add_argument("--logs", type=Path, default=None,
                   help="keep each tutorial's output in this directory")
    args = p.parse_args(argv)
    if args.interpret is None:
        args.interpret = not _cuda_visible()
    if args.quick is None:
        args.quick = args.interpret

    tutorials = args.tutorials.resolve()
    files = sorted(f for f in tutorials.glob("*.py") if f.name[:2].isdigit())
    if args.only:
        files = [f for f in files if f.name in args.only or f.stem in args.only
                 or f.name.split("-", 1)[0] in args.only]
    if not files:
        p.error(f"no tutorials in {tutorials}")
    if args.logs:
        args.logs.mkdir(parents=True, exist_ok=True)

    rows = {}
    with tempfile.TemporaryDirectory(prefix="wf_tutorials_") as tmp:
        for f in files:
            rows[f.name] = row = run_tutorial(f, args, Path(tmp))
            print(f"{f.name}: {row['status']} ({row['seconds']:.1f} s)"
                  + (f": {row['error']}" if row.get("error") else ""), file=sys.stderr, flush=True)
    print(markdown(rows))
    stubbed = sorted({s for r in rows.values() for s in r["stubbed"]})
    if stubbed:
        print("\nstubbed (missing in warpforge): " + ", ".join(stubbed))
    if args.json:
        args.json.write_text(json.dumps({
            "tutorials_dir": str(tutorials),
            "mode": "interpret" if args.interpret else "compile", "quick": args.quick,
            "timeout": args.timeout, "date": time.strftime("%Y-%m-%d"),
            "counts": {s: sum(r["status"] == s for r in rows.values())
                       for s in ("ran", "failed", "needs GPU", "timeout", "skipped")},
            "tutorials": rows,
        }, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
