#!/usr/bin/env python3
"""Fuzz smoke test: mutated test inputs must never crash or hang warpforge-opt.

Takes the suite's .mlir files, splits them at `// -----`, applies seeded
random mutations (deleting, duplicating, swapping and truncating lines,
replacing tokens with others from the corpus, changing numbers, dropping
characters, setting one tensor dimension to 0) and runs each mutant
through warpforge-opt, in turn: parsing and verifying; the canonicalizer
and tile-combine; tile-to-tilegpu; the JIT's whole pipeline
(tile-optimize, tile-to-tilegpu, tilegpu-optimize, tilegpu-to-llvm) to
LLVM IR; and tilegpu-to-llvm to PTX (for inputs that are tilegpu IR).
Every run must exit with 0 (valid) or 1 (diagnosed); a signal, any other
status or a timeout fails the test and the mutant is printed for
reproduction.

With --pass=ARG (repeatable), every mutant goes through those warpforge-opt
arguments instead (e.g. --pass=-test-print-axis-info).

With --zero-sweep, no random mutants: every tensor dimension of every input
is set to 0, one at a time, and each such mutant goes through every
pipeline; --count N then runs an evenly spread slice of N of those runs
(the lit test's), else all of them (by hand).

A run taking longer than --timeout seconds (10) is a hang; --slowest N
prints the N slowest runs (to check the timeout's margin).

Usage: mutate_and_run.py --opt PATH [--count N] [--seed S] [--pass=ARG]...
                         [--zero-sweep] [--timeout S] [--slowest N] INPUT...
"""

import argparse
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import time

DIMENSION = re.compile(r"(?<=tensor<)\d+|(?<=x)\d+(?=x)")
TOKEN = re.compile(r"%[\w.]+|@[\w.]+|![\w.<>, ]+?>|\b\d+\b|\b[a-z_]+(?:\.[a-z_]+)*\b|[(){}<>\[\],:=]")
PIPELINES = [[], ["-canonicalize", "-tile-combine", "-cse"], ["-tile-to-tilegpu"],
             ["--tile-optimize", "--tile-to-tilegpu", "--tilegpu-optimize",
              "--tilegpu-to-llvm", "--emit=llvm-ir"],
             ["--tilegpu-to-llvm", "--emit=ptx"]]


def chunks(paths):
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for chunk in f.read().split("// -----"):
                body = "\n".join(l for l in chunk.splitlines()
                                 if "RUN:" not in l and "expected-" not in l)
                if body.strip():
                    yield body


def mutate(text, rng, corpus):
    lines = text.splitlines() or [""]
    kind = rng.randrange(9)
    if kind == 8:
        # A zero-sized dimension in one tensor type (the sweep the
        # lowerings used to divide by).
        dims = list(DIMENSION.finditer(text))
        if dims:
            m = rng.choice(dims)
            return text[: m.start()] + "0" + text[m.end():]
        kind = 0
    i = rng.randrange(len(lines))
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[rng.randrange(len(lines))])
    elif kind == 2:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 3:
        lines = lines[: max(1, i)]
    elif kind in (4, 5):
        tokens = list(TOKEN.finditer(lines[i]))
        if tokens:
            t = rng.choice(tokens)
            new = rng.choice(corpus) if kind == 4 else str(rng.choice([0, 1, -1, 3, 7, 64, 255, 256, 1 << 31, 99999999999]))
            lines[i] = lines[i][: t.start()] + new + lines[i][t.end():]
    elif kind == 6:  # (8, a zero dimension, is handled above)
        s = lines[i]
        if s:
            a = rng.randrange(len(s))
            lines[i] = s[:a] + s[a + rng.randrange(1, 6):]
    else:
        s = lines[i]
        a = rng.randrange(len(s) + 1)
        lines[i] = s[:a] + rng.choice("(){}<>[],:=%@!\"x0") + s[a:]
    return "\n".join(lines) + "\n"


def zero_sized(seeds):
    """Every input with one tensor dimension set to 0, for each dimension
    in turn (those already 0 left out)."""
    for text in seeds:
        for m in DIMENSION.finditer(text):
            if m.group(0) != "0":
                yield text[: m.start()] + "0" + text[m.end():]


def run(opt, text, args, timeout):
    start = time.monotonic()
    try:
        proc = subprocess.run([opt, "-", *args], input=text, text=True,
                              capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", time.monotonic() - start
    return proc.returncode, proc.stderr[-2000:], time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--opt", required=True)
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--zero-sweep", action="store_true")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("--slowest", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pass", dest="passes", action="append")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()

    paths = []
    for p in args.inputs:
        if not os.path.exists(p):
            print(f"no such input: {p}", file=sys.stderr)
            return 2
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d != "Inputs")
                paths += [os.path.join(root, f) for f in sorted(files) if f.endswith(".mlir")]
        else:
            paths.append(p)
    seeds = list(chunks(paths))
    if not seeds:
        print("no inputs found", file=sys.stderr)
        return 2
    corpus = sorted({t.group(0) for s in seeds for t in TOKEN.finditer(s)})
    rng = random.Random(args.seed)
    pipelines = [args.passes] if args.passes else PIPELINES
    jobs = []
    if args.zero_sweep:
        mutants = list(zero_sized(seeds))
        runs = [(n, text, pipeline) for n, text in enumerate(mutants) for pipeline in pipelines]
        if args.count is not None and args.count < len(runs):
            runs = [runs[i * len(runs) // args.count] for i in range(args.count)]
        jobs = runs
    else:
        for n in range(400 if args.count is None else args.count):
            text = rng.choice(seeds)
            for _ in range(rng.randrange(1, 4)):
                text = mutate(text, rng, corpus)
            jobs.append((n, text, pipelines[n % len(pipelines)]))

    failures = 0
    statuses = {0: 0, 1: 0}
    times = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = pool.map(lambda job: (job, run(args.opt, job[1], job[2], args.timeout)), jobs)
        for (n, text, pipeline), (status, stderr, seconds) in results:
            times.append((seconds, n, pipeline))
            if status in (0, 1):
                statuses[status] += 1
                continue
            failures += 1
            if args.zero_sweep:
                print(f"=== zero-sized mutant {n} (args {pipeline}): status {status}")
            else:
                print(f"=== mutant {n} (seed {args.seed}, args {pipeline}): status {status}")
            print(text)
            print("--- stderr:")
            print(stderr)
    for seconds, n, pipeline in sorted(times, reverse=True)[: args.slowest]:
        print(f"slow: {seconds:.2f} s, mutant {n}, args {pipeline}", file=sys.stderr)
    if args.zero_sweep:
        print(f"zero-size sweep: {len(jobs)} runs of {len({j[0] for j in jobs})} mutants of "
              f"{len(seeds)} inputs: {statuses[0]} valid, {statuses[1]} diagnosed, "
              f"{failures} crashed or hung")
    else:
        print(f"{len(jobs)} mutants of {len(seeds)} inputs: {statuses[0]} valid, "
              f"{statuses[1]} diagnosed, {failures} crashed or hung")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
