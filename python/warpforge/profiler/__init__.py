"""A small profiler with the API of Triton's proton (``triton.profiler``): what
Triton's tutorials use of it, so that they run as written with ``triton``
aliased to warpforge.

    import warpforge.profiler as proton
    sid = proton.start("matmul", hook="triton")   # writes matmul.hatchet
    with proton.scope("cublas", {"flops16": 2. * M * N * K}):
        ...                                       # user code, timed
    kernel[grid](...)                             # a scope of its own
    proton.deactivate(sid)                        # nothing recorded
    proton.activate(sid)
    proton.finalize()

    import warpforge.profiler.viewer as proton_viewer
    tree, metrics = proton_viewer.parse(["tflop16/s", "time/ms"], "matmul.hatchet")
    proton_viewer.print_tree(tree, metrics)

What it measures: each scope -- a ``scope``/``enter_scope`` of the user, and
with ``hook="triton"`` each launch of a ``@jit`` kernel -- is bracketed by
two CUDA events (``torch.cuda.Event(enable_timing=True)``) recorded on
torch's current stream when it opens and when it closes. Recording an
event does not synchronize; the elapsed times are read at ``finalize``,
after one ``torch.cuda.synchronize()`` (events already done are read
earlier, without waiting, to bound how many stay alive over a long run).
So a scope's time is the GPU time between its two events: the work queued
on that stream inside the scope *and the gaps between it* (a scope around
two launches includes the idle time between them if the host was slower
than the GPU). This is an event-bracketed host scope, not the CUPTI kernel
activity Triton's proton measures (which counts kernel execution only, and
attributes each kernel run by a library, cuBLAS's included, as a node of
its own): a kernel launched with an explicit ``stream=`` other than the
current one is not bracketed by its events, and work on other streams is
not seen. For a scope around one launch on a busy stream the two agree
closely.

Without a GPU (``torch.cuda.is_available()`` false, or no torch), and with
WARPFORGE_INTERPRET set (kernels then run on the host), ``start`` still
works and scopes are timed on the host with ``time.perf_counter_ns()``:
wall time of the host code in the scope (the CPU tests use this). The clock
is chosen by ``start`` when no session is running.

Sessions: ``start(name, hook=None)`` returns a session id, the smallest not
in use (0 for the first, as Triton's tutorials assume), and the session is
active. ``activate(session=None)`` / ``deactivate(session=None)`` switch one
session or, with None, all; a deactivated session records nothing.
``finalize(session=None)`` reads the pending times and writes each
session's ``<name>.hatchet`` (``name`` as given if it ends in .hatchet),
then ends it. Scopes record into the sessions active when they open.

With ``hook="triton"``, every launch of a warpforge ``@jit`` function
(compiled or interpreted) while the session is active is a scope: named by
the "name" of what the function's ``launch_metadata`` returns
(``@jit(launch_metadata=f)``, ``f(grid, kernel, args) -> dict``) when it has
one, else by the kernel's name, with the other numeric values it returns
("flops16", "flops8", "bytes", ...) as the scope's metrics. Launches nest
under the user scopes open around them. The hook is registered in
``warpforge.runtime.hooks`` only while such a session is active: otherwise
launches pay nothing (one test of an empty list) and take their fast path;
while it is, each launch goes through the JIT's general Python path.

The file: JSON in the hatchet form Triton's proton writes, ``[root,
device_info]``: ``root`` is ``{"frame": {"name": "ROOT", "type":
"function"}, "metrics": {...}, "children": [...]}``, every node of the same
form. A node's metrics are its own (exclusive), summed over each time it was
recorded: "time (ns)" (its brackets less its children's: a reader summing
the subtree, as hatchet does, gets the brackets back), "count", "device_id"
and "device_type" when it was timed, and the user metrics (summed over
entries). The root's time and count are 0, as in proton. ``device_info``
is ``{"CUDA": {"0": {"clock_rate", "memory_clock_rate", "bus_width", "arch",
"num_sms"}}}`` on a GPU, ``{}`` on the host clock.

Not implemented: proton's other contexts ("python" call paths), data
formats, backends (CUPTI, instrumentation), ``proton.profile`` and the
``proton`` command. Scope stacks are per thread.
"""
from __future__ import annotations

import functools
from typing import Dict, Optional

from . import _core

__all__ = ["start", "activate", "deactivate", "finalize", "scope", "enter_scope",
           "exit_scope"]

_HOOKS = (None, "triton")


def start(name: Optional[str] = None, *, context: str = "shadow", data: str = "tree",
          backend: Optional[str] = None, mode: Optional[str] = None,
          hook: Optional[str] = None) -> int:
    """Starts an active session that writes ``<name>.hatchet`` at finalize
    (``name`` default "proton"); returns its id. ``hook="triton"`` records
    each kernel launch as a scope. ``context``, ``data``, ``backend`` and
    ``mode`` are Triton's; only their defaults (the scope tree, timed as the
    module docstring says) are supported."""
    if hook not in _HOOKS:
        raise ValueError(f"proton.start: hook must be None or 'triton', got {hook!r}")
    for key, value, allowed in (("context", context, "shadow"), ("data", data, "tree")):
        if value != allowed:
            raise ValueError(f"proton.start: {key}={value!r} is not supported (warpforge's "
                             f"profiler records the scope tree: {key}={allowed!r})")
    if backend is not None or mode is not None:
        raise ValueError("proton.start: backend and mode are not supported (warpforge's "
                         "profiler times scopes with CUDA events, or the host clock "
                         "without a GPU)")
    name = "proton" if name is None else str(name)
    if not _core.SESSIONS and not _core.PENDING:
        # Chosen when nothing is recorded: the marks of one clock are never
        # read by another.
        _core.CLOCK = _core.make_clock()
    sid = 0
    while sid in _core.SESSIONS:
        sid += 1
    _core.SESSIONS[sid] = _core.Session(sid, name, hook)
    _core.sync_hook()
    return sid


def _sessions(session, what):
    if session is None:
        return list(_core.SESSIONS.values())
    found = _core.SESSIONS.get(session)
    if found is None:
        raise ValueError(f"proton.{what}: no session {session!r} "
                         f"(sessions: {sorted(_core.SESSIONS)})")
    return [found]


def activate(session: Optional[int] = None) -> None:
    """Records into `session` (None: every session) again."""
    for s in _sessions(session, "activate"):
        s.active = True
    _core.sync_hook()


def deactivate(session: Optional[int] = None) -> None:
    """Stops recording into `session` (None: every session) until activate."""
    for s in _sessions(session, "deactivate"):
        s.active = False
    _core.sync_hook()


def finalize(session: Optional[int] = None, output_format: str = "hatchet") -> None:
    """Reads the pending times (one synchronize), writes each session's
    hatchet file and ends the session (None: every session). Finalizing
    with no session is a no-op, as in Triton."""
    if output_format != "hatchet":
        raise ValueError(f"proton.finalize: output_format {output_format!r} is not "
                         "supported (only 'hatchet')")
    if session is None:
        sessions = list(_core.SESSIONS.values())
    else:
        sessions = _sessions(session, "finalize")
    if not sessions:
        return
    _core.resolve_all()
    for s in sessions:
        _core.write(s)
        s.finalized = True
        s.active = False
        del _core.SESSIONS[s.id]
    _core.sync_hook()


def enter_scope(name: str, *, metrics: Optional[Dict[str, float]] = None) -> None:
    """Opens a scope named `name` (closed by exit_scope)."""
    _core.enter(str(name), _core.check_metrics(metrics, f"proton scope {name!r}"))


def exit_scope(name: Optional[str] = None, *,
               metrics: Optional[Dict[str, float]] = None) -> None:
    """Closes the innermost open scope (the innermost one named `name` when
    given); `metrics` are added to it."""
    _core.exit(name, _core.check_metrics(metrics, f"proton scope {name!r}"))


class scope:
    """``with proton.scope(name, metrics):`` or ``@proton.scope(name)``: a
    timed scope; `metrics` (name -> number, e.g. {"flops16": ..., "bytes":
    ...}) are added to it each time it is entered."""

    def __init__(self, name: str, metrics: Optional[Dict[str, float]] = None):
        self.name = str(name)
        self.metrics = _core.check_metrics(metrics, f"proton.scope({self.name!r})")

    def __enter__(self):
        _core.enter(self.name, self.metrics)
        return self

    def __exit__(self, *exc):
        _core.exit(self.name)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with scope(self.name, self.metrics):
                return fn(*args, **kwargs)
        return wrapper
