"""Reads a hatchet profile (what ``warpforge.profiler.finalize`` writes, or
Triton's proton) and prints its tree with derived metrics: the part of
Triton's ``triton.profiler.viewer`` its tutorials use, without hatchet or
pandas.

    tree, metrics = parse(["tflop16/s", "time/ms"], "matmul.hatchet")
    print_tree(tree, metrics)

prints, for each node, the metrics then the name::

    12.345 0.456 ROOT
    ├─ 10.111 0.222 cublas [M=8192, N=8192, K=512]
    └─ 14.321 0.234 matmul_kernel [M=8192, N=8192, K=512]

Metrics, as proton's viewer derives them, from each node's inclusive values
(its own plus its subtree's, as hatchet sums them):

* ``time/s``, ``time/ms``, ``time/us``, ``time/ns``: "time (ns)";
* ``avg_time/s`` (``/ms``, ``/us``, ``/ns``): the time over the node's own
  count (over its subtree's for a node not timed itself, such as ROOT);
* ``flop/s``, ``gflop/s``, ``tflop/s``: "flops" over the time; with a width,
  ``flop8/s``, ``gflop16/s``, ``tflop16/s``, ... (8, 16, 32, 64): "flops8",
  "flops16", ... over the time. Averaged as proton does: a node's total flops
  over its total time, not a mean of per-launch rates;
* ``byte/s``, ``gbyte/s``, ``tbyte/s``: "bytes" over the time;
* a metric of the file by name, case-insensitive, with or without its unit
  (``count``, ``bytes``, ``time``): its inclusive value.

An unknown name is a ValueError that lists the known ones; a derived metric
whose source the file lacks (``tflop8/s`` of an fp16 run) is a ValueError
too. A node whose subtree lacks the source shows nan.

``python -m warpforge.profiler.viewer -m tflop16/s,time/ms FILE`` prints the
same from the command line (``-l`` lists the file's metrics).
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from typing import Any, Dict, List, Optional, Tuple

FLOP_WIDTHS = (8, 16, 32, 64)
TIME_FACTORS = {"time/s": 1.0, "time/ms": 1e-3, "time/us": 1e-6, "time/ns": 1e-9}
AVG_TIME_FACTORS = {f"avg_{k}": v for k, v in TIME_FACTORS.items()}
BYTE_FACTORS = {"byte/s": 1.0, "gbyte/s": 1e9, "tbyte/s": 1e12}
# derived name -> (source metric, factor)
RATES: Dict[str, Tuple[str, float]] = {k: ("bytes", v) for k, v in BYTE_FACTORS.items()}
for _width in ("",) + tuple(str(w) for w in FLOP_WIDTHS):
    for _prefix, _factor in (("", 1.0), ("g", 1e9), ("t", 1e12)):
        RATES[f"{_prefix}flop{_width}/s"] = (f"flops{_width}", _factor)
DERIVED = list(TIME_FACTORS) + list(AVG_TIME_FACTORS) + list(RATES)
TIME = "time (ns)"
# Metrics that are labels, not quantities: never summed or shown.
_LABELS = {"device_id", "device_type"}


class Node:
    """A node of a parsed profile: `name`, `metrics` (its own, as in the
    file), `inclusive` (summed over its subtree), `values` (the requested
    metrics, by name) and `children`."""

    __slots__ = ("name", "metrics", "inclusive", "values", "children")

    def __init__(self, name: str, metrics: Dict[str, Any], children: List["Node"]):
        self.name = name
        self.metrics = metrics
        self.children = children
        self.inclusive: Dict[str, float] = {}
        self.values: Dict[str, float] = {}

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()

    def __repr__(self):
        return f"Node({self.name!r}, {len(self.children)} children)"


def _node(data: Dict[str, Any]) -> Node:
    frame = data.get("frame", {})
    return Node(str(frame.get("name", "")), dict(data.get("metrics", {})),
                [_node(c) for c in data.get("children", ())])


def read(file_name: str) -> Tuple[Node, Dict[str, Any]]:
    """The profile's tree and its device information (proton's second list
    entry; {} when absent)."""
    with open(file_name) as f:
        data = json.load(f)
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data or not isinstance(data[0], dict) \
            or "frame" not in data[0]:
        raise ValueError(f"{file_name}: not a hatchet profile (a list whose first entry is "
                         "the root node {'frame': ..., 'metrics': ..., 'children': ...})")
    device_info = data[1] if len(data) > 1 and isinstance(data[1], dict) \
        and "frame" not in data[1] else {}
    return _node(data[0]), device_info


def raw_metrics(root: Node) -> List[str]:
    """The metric names of the file, first seen first."""
    names: Dict[str, None] = {}
    for node in root.walk():
        for key, value in node.metrics.items():
            if key not in _LABELS and _is_number(value):
                names.setdefault(key)
    return list(names)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _sum_inclusive(node: Node, names: List[str]) -> None:
    """inclusive[m]: the node's own value plus its children's inclusive ones,
    for each metric some node of the subtree has (hatchet's inclusive)."""
    for child in node.children:
        _sum_inclusive(child, names)
    node.inclusive = {}
    for m in names:
        parts = [node.metrics[m]] if _is_number(node.metrics.get(m)) else []
        parts += [c.inclusive[m] for c in node.children if m in c.inclusive]
        if parts:
            node.inclusive[m] = sum(parts)


def _match_raw(metric: str, names: List[str]) -> Optional[str]:
    metric = metric.lower()
    for name in names:
        if metric in (name.lower(), name.split("(")[0].strip().lower()):
            return name
    return None


def _check(metrics: List[str], names: List[str], file_name: str) -> List[str]:
    """The metric names, checked against the known ones and the file's."""
    out = []
    for metric in metrics:
        key = metric.lower() if isinstance(metric, str) else metric
        if key in TIME_FACTORS or key in AVG_TIME_FACTORS:
            source = TIME
        elif key in RATES:
            source = RATES[key][0]
        elif isinstance(key, str) and _match_raw(key, names) is not None:
            out.append(key)
            continue
        else:
            raise ValueError(
                f"unknown metric {metric!r}: known metrics are {', '.join(DERIVED)}, and the "
                f"metrics of {file_name} by name ({', '.join(names) or 'none'})")
        needed = [source] if key not in RATES else [source, TIME]
        for n in needed:
            if n not in names:
                raise ValueError(f"metric {metric!r} needs {n!r}, which {file_name} does not "
                                 f"have (its metrics: {', '.join(names) or 'none'})")
        out.append(key)
    return out


def _derive(node: Node, metrics: List[str], names: List[str]) -> None:
    inc = node.inclusive
    seconds = inc[TIME] * 1e-9 if TIME in inc else math.nan
    count = node.metrics.get("count")
    if not _is_number(count) or count <= 0:
        count = inc.get("count", 0)
    for metric in metrics:
        if metric in TIME_FACTORS:
            value = seconds / TIME_FACTORS[metric]
        elif metric in AVG_TIME_FACTORS:
            value = seconds / count / AVG_TIME_FACTORS[metric] if count else math.nan
        elif metric in RATES:
            source, factor = RATES[metric]
            value = inc[source] / seconds / factor if source in inc and seconds > 0 \
                else math.nan
        else:
            value = inc.get(_match_raw(metric, names), math.nan)
        node.values[metric] = value
    for child in node.children:
        _derive(child, metrics, names)


def _compute(root: Node, metrics: List[str]) -> None:
    names = raw_metrics(root)
    _sum_inclusive(root, names)
    _derive(root, metrics, names)


def _keep(node: Node, pred) -> Optional[Node]:
    """The subtree without the nodes `pred` rejects (and their subtrees)."""
    if not pred(node):
        return None
    node.children = [c for c in (_keep(c, pred) for c in node.children) if c is not None]
    return node


def _include(node: Node, pattern) -> Optional[Node]:
    """The paths through a node whose name matches: its ancestors, it and its
    whole subtree (proton's --include)."""
    if pattern.fullmatch(node.name):
        return node
    node.children = [c for c in (_include(c, pattern) for c in node.children)
                     if c is not None]
    return node if node.children else None


def parse(metrics, file_name: str, include: Optional[str] = None,
          exclude: Optional[str] = None, threshold: Optional[float] = None
          ) -> Tuple[Node, List[str]]:
    """Reads `file_name` and derives `metrics` (names as the module docstring
    lists) on every node; returns ``(tree, metrics)`` for print_tree.
    `include`/`exclude`: regular expressions on frame names (keep the paths
    through matching frames / drop matching frames and their subtrees);
    `threshold`: drop nodes whose first metric is below it. The sums are
    taken again after filtering, as proton's viewer does."""
    if isinstance(metrics, str):
        metrics = [metrics]
    root, _ = read(file_name)
    metrics = _check(list(metrics) or [TIME], raw_metrics(root), file_name)
    if include:
        root = _include(root, re.compile(include)) or Node(root.name, root.metrics, [])
    if exclude:
        pattern = re.compile(exclude)
        root = _keep(root, lambda n: n is root or not pattern.fullmatch(n.name)) or root
    _compute(root, metrics)
    if threshold is not None:
        first = metrics[0]
        root = _keep(root, lambda n: n is root or n.values[first] >= threshold)
        _compute(root, metrics)
    return root, metrics


def _format_name(name: str, format: Optional[str]) -> str:
    # proton's frame formats (its "python" context names frames
    # path/file.py:function@line); warpforge's names pass through.
    if format == "file_function_line":
        return name.split("/")[-1]
    if format == "function_line":
        return name.split(":")[-1]
    if format == "file_function":
        return name.split("/")[-1].split("@")[0]
    return name


def _fmt(value) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else f"{value:.3f}"


def format_tree(tree: Node, metrics: List[str], depth: int = 100,
                format: Optional[str] = None) -> str:
    lines = []

    def visit(node: Node, prefix: str, branch: str, level: int):
        values = " ".join(_fmt(node.values.get(m)) for m in metrics)
        lines.append(f"{prefix}{branch}{values} {_format_name(node.name, format)}")
        if level >= depth:
            return
        child_prefix = prefix + ("" if not branch else ("│  " if branch == "├─ " else "   "))
        for i, child in enumerate(node.children):
            last = i == len(node.children) - 1
            visit(child, child_prefix, "└─ " if last else "├─ ", level + 1)

    visit(tree, "", "", 0)
    return "\n".join(lines)


def print_tree(tree: Node, metrics: List[str], depth: int = 100, format: Optional[str] = None,
               print_sorted: bool = False) -> None:
    """Prints the tree of `parse`, each node's metric values then its name;
    `depth` levels below the root; `print_sorted` adds the nodes sorted by
    the first metric."""
    print(format_tree(tree, metrics, depth, format))
    if print_sorted:
        first = metrics[0]
        print(f"Sorted by {first}:")
        nodes = [n for n in tree.walk() if n is not tree]
        nodes.sort(key=lambda n: (-n.values[first] if not math.isnan(n.values[first])
                                  else math.inf))
        for n in nodes:
            name = n.name if len(n.name) <= 100 else n.name[:100] + "..."
            print(f"{name:105} {_fmt(n.values[first])}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description="Prints a hatchet profile's tree (proton-viewer).")
    p.add_argument("file")
    p.add_argument("-m", "--metrics", default=None,
                   help="comma-separated: " + ", ".join(DERIVED) + ", or a metric of the file")
    p.add_argument("-l", "--list", action="store_true", help="list the file's metrics")
    p.add_argument("-i", "--include", default=None)
    p.add_argument("-e", "--exclude", default=None)
    p.add_argument("-t", "--threshold", type=float, default=None)
    p.add_argument("-d", "--depth", type=int, default=100)
    p.add_argument("-f", "--format", default="full",
                   choices=["full", "file_function_line", "function_line", "file_function"])
    p.add_argument("--print_sorted", action="store_true")
    args = p.parse_args(argv)
    if args.list:
        root, _ = read(args.file)
        print("Available metrics:")
        for name in raw_metrics(root):
            print(f"- {name.split('(')[0].strip().lower()}")
        return 0
    metrics = args.metrics.split(",") if args.metrics else ["time/ms"]
    tree, metrics = parse(metrics, args.file, args.include, args.exclude, args.threshold)
    print_tree(tree, metrics, args.depth, args.format, args.print_sorted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
