"""Where a kernel's warps spend their time, from Nsight Compute's warp-state
samples per SASS instruction (its source page):

    ncu --launch-skip 3 --launch-count 1 --section SourceCounters \\
        --section WarpStateStats -o rep \\
        python bench/tools/ncu_attention.py --config 128x128w8s2wspersist
    ncu -i rep.ncu-rep --page source --csv --print-source sass > src.csv
    python bench/tools/ncu_stalls.py src.csv [--top 25] [--json out.json]

prints the share of all samples by kind of instruction (wgmma issue, the
waits for wgmma results, mbarrier waits, named barriers, the special-function
unit, FP32 arithmetic, shuffles, ...) with each kind's main stall reasons,
then the instructions with the most samples, at their offsets in the
kernel. A warp is sampled where it stands, so a kind's share is the time
warps spend there: in a warp-specialized kernel the producer's mbarrier
waits are its idle time, the consumers' are their starvation.

What it showed for the persistent 128x128 attention kernel (D128 S4096,
H100, 2026-11-28) is in bench/results/attention-profile-2026-11-28.md.
"""

import argparse
import csv
import json
import sys
from collections import defaultdict
from typing import Dict, List, Tuple

SAMPLES = "Warp Stall Sampling (All Samples)"


def kind_of(opcode: str, previous: str) -> str:
    """The kind of a SASS instruction (its opcode without the predicate),
    given the opcode before it (a branch after an mbarrier try-wait is the
    wait's retry loop)."""
    op = opcode.split(".")[0]
    if op == "HGMMA" or opcode.startswith("WARPGROUP.ARRIVE"):
        return "wgmma issue"
    if opcode.startswith("WARPGROUP.DEPBAR"):
        return "wgmma wait"
    if opcode.startswith("SYNCS.PHASECHK") or op == "NANOSLEEP" or (
            op == "BRA" and previous.startswith("SYNCS.PHASECHK")):
        return "mbarrier wait"
    if opcode.startswith("SYNCS.ARRIVE"):
        return "mbarrier arrive"
    if op in ("BAR", "BSYNC", "WARPSYNC"):
        return "named barrier / reconvergence"
    if op == "MUFU":
        return "special-function unit"
    if op in ("FFMA", "FADD", "FMUL", "FMNMX", "FSETP", "FSEL", "F2FP", "HADD2", "HFMA2",
              "HMUL2", "FCHK", "FRND", "F2F", "I2FP", "F2I"):
        return "floating point"
    if op == "SHFL":
        return "shuffle"
    if op == "VOTE":
        return "vote"
    if op in ("LDS", "STS", "LDSM", "STSM", "ATOMS"):
        return "shared memory"
    if op in ("LDG", "STG", "LD", "ST", "RED", "ATOMG", "LDC", "ULDC"):
        return "global / constant memory"
    if op.startswith("UTMA") or op.startswith("UBLKCP"):
        return "TMA issue"
    if op.startswith("U") or op in ("S2UR", "R2UR"):
        return "uniform datapath"
    return "integer / control"


def _opcode(source: str) -> str:
    """The opcode of one line of SASS, without its predicate."""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].rstrip(";") if words else ""


def read(path: str) -> Tuple[List[str], List[Dict[str, str]]]:
    """The source page's rows (one per SASS instruction) and its stall
    columns. The file starts with a "Kernel Name" line, then the header."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    start = next((i for i, r in enumerate(rows) if r and r[0] == "Address"), None)
    if start is None or SAMPLES not in rows[start]:
        raise ValueError(f"{path}: no source page with '{SAMPLES}' (export it with "
                         "`ncu -i REPORT --page source --csv --print-source sass`)")
    header = rows[start]
    stalls = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]
    data = [dict(zip(header, r)) for r in rows[start + 1:] if len(r) >= len(header) - 1 and r[0]]
    return stalls, data


def _num(text: str) -> float:
    try:
        return float((text or "0").replace(",", ""))
    except ValueError:
        return 0.0


def summarize(stalls: List[str], data: List[Dict[str, str]]) -> Dict:
    """{"total": samples, "kinds": [{"kind", "share", "stalls": {reason: share of
    the kind}}], "instructions": [{"offset", "sass", "share", "stalls"}]}, by
    samples, largest first."""
    total = sum(_num(r[SAMPLES]) for r in data)
    if not total:
        raise ValueError("no warp-state samples in the source page (profile with "
                         "--section SourceCounters)")
    base = int(data[0]["Address"], 16)
    kinds: Dict[str, float] = defaultdict(float)
    reasons: Dict[str, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
    instructions = []
    previous = ""
    for r in data:
        opcode = _opcode(r["Source"])
        kind = kind_of(opcode, previous)
        previous = opcode
        samples = _num(r[SAMPLES])
        kinds[kind] += samples
        mine = {}
        for s in stalls:
            v = _num(r.get(s))
            reasons[kind][s[len("stall_"):]] += v
            if v:
                mine[s[len("stall_"):]] = v / total
        instructions.append({"offset": int(r["Address"], 16) - base, "sass": r["Source"].strip(),
                             "kind": kind, "share": samples / total, "stalls": mine})

    def top(d, n, scale):
        return {k: v / scale for k, v in sorted(d.items(), key=lambda kv: -kv[1])[:n] if v}

    return {
        "total": total,
        "kinds": [{"kind": k, "share": v / total, "stalls": top(reasons[k], 3, v or 1)}
                  for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])],
        "instructions": sorted(instructions, key=lambda i: -i["share"]),
    }


def report(summary: Dict, top: int) -> str:
    lines = [f"{int(summary['total'])} samples", "",
             "| kind | share | main stalls (share of the kind) |", "|---|---:|---|"]
    for k in summary["kinds"]:
        stalls = ", ".join(f"{s} {v:.0%}" for s, v in k["stalls"].items())
        lines.append(f"| {k['kind']} | {k['share']:.1%} | {stalls} |")
    lines += ["", "| offset | instruction | share | main stalls |", "|---:|---|---:|---|"]
    for i in summary["instructions"][:top]:
        stalls = ", ".join(f"{s} {v:.1%}" for s, v in
                           sorted(i["stalls"].items(), key=lambda kv: -kv[1])[:2])
        lines.append(f"| {i['offset']:#06x} | `{i['sass'][:60]}` | {i['share']:.1%} | {stalls} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("csv", help="ncu's source page (--page source --csv --print-source sass)")
    p.add_argument("--top", type=int, default=25, help="instructions listed")
    p.add_argument("--json", help="also write the summary here")
    args = p.parse_args(argv)
    try:
        summary = summarize(*read(args.csv))
    except (OSError, ValueError) as e:
        print(f"ncu_stalls: {e}", file=sys.stderr)
        return 2
    print(report(summary, args.top))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
