#!/usr/bin/env python3
"""Lint FileCheck directives in lit tests.

FileCheck silently ignores a directive it does not recognise, so a typo turns
a check into a comment and the test passes while checking nothing.  This lint
fails on:
  * a directive without its colon (`// CHECK-NEXT %0 = ...`, `// CHECK :`);
  * an unknown suffix on a used prefix (`// CHECK-LABLE: ...`);
  * a prefix declared on a RUN line but never used in the file;
  * CHECK directives in a file whose RUN lines never call FileCheck.

Usage: check_filecheck.py PATH...   (files or directories; `Inputs` folders,
which hold deliberately bad files, are skipped when walking directories)
"""

import os
import re
import sys

SUFFIXES = {"NEXT", "SAME", "NOT", "DAG", "LABEL", "EMPTY"}
TEST_SUFFIXES = (".mlir", ".test", ".ll")
COMMENT = re.compile(r"^\s*(?://|#|;)+\s?(.*)$")
PREFIX_OPT = re.compile(r"--?check-prefix(?:es)?(?:=|\s+)([A-Za-z0-9_,-]+)")


def run_lines(lines):
    """The RUN commands, with `\\` continuations joined."""
    runs, current = [], None
    for line in lines:
        m = re.search(r"\bRUN:(.*)$", line)
        if not m:
            continue
        text = m.group(1).rstrip()
        current = (current or "") + " " + text.rstrip("\\")
        if not text.endswith("\\"):
            runs.append(current)
            current = None
    if current:
        runs.append(current)
    return runs


def declared_prefixes(runs):
    """Prefixes that FileCheck invocations on the RUN lines check for."""
    prefixes, uses_filecheck = set(), False
    for run in runs:
        for invocation in re.split(r"\|", run):
            if not re.search(r"\bFileCheck\b", invocation):
                continue
            uses_filecheck = True
            opts = PREFIX_OPT.findall(invocation)
            if opts:
                for opt in opts:
                    prefixes.update(p for p in opt.split(",") if p)
            else:
                prefixes.add("CHECK")
    return prefixes, uses_filecheck


def lint_file(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    runs = run_lines(lines)
    prefixes, uses_filecheck = declared_prefixes(runs)
    known = prefixes or {"CHECK"}
    problems, used = [], set()
    for number, line in enumerate(lines, 1):
        m = COMMENT.match(line)
        if not m:
            continue
        text = m.group(1)
        for prefix in sorted(known, key=len, reverse=True):
            d = re.match(re.escape(prefix) + r"(-[A-Z0-9-]+)?(\s*)(:?)", text)
            if not d or (text[d.end(1) if d.group(1) else len(prefix):][:1].isalnum()):
                continue
            suffix, space, colon = d.group(1), d.group(2), d.group(3)
            where = f"{path}:{number}"
            if suffix:
                name = suffix[1:]
                if name not in SUFFIXES and not re.fullmatch(r"COUNT-\d+", name):
                    problems.append(f"{where}: unknown directive '{prefix}{suffix}'")
                    break
            if not colon:
                problems.append(f"{where}: directive '{prefix}{suffix or ''}' lacks its colon")
            elif space:
                problems.append(f"{where}: space before the colon of '{prefix}{suffix or ''}'")
            else:
                used.add(prefix)
            break
    if used and not uses_filecheck:
        problems.append(f"{path}: has {', '.join(sorted(used))} directives but no RUN line calls FileCheck")
    for prefix in sorted(prefixes - used):
        problems.append(f"{path}: prefix '{prefix}' is declared on a RUN line but never used")
    return problems


def test_files(paths):
    for path in paths:
        if os.path.isfile(path):
            yield path
            continue
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if d != "Inputs")
            for name in sorted(files):
                if name.endswith(TEST_SUFFIXES):
                    yield os.path.join(root, name)


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    problems, count = [], 0
    for path in test_files(argv):
        count += 1
        problems += lint_file(path)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} FileCheck directive problem(s) in {count} files")
        return 1
    print(f"FileCheck directives OK in {count} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
