"""The profiler's state: sessions, their scope trees, the clocks, the open
scopes, the pending measurements, and the hatchet writer. The public API is
in __init__.py, which documents what is measured."""
from __future__ import annotations

import collections
import json
import numbers
import os
import threading
import time
import warnings
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..runtime import hooks as _hooks

# -- Clocks ---------------------------------------------------------------------
#
# A clock's mark() is taken at a scope's start and end; elapsed_ns(start, end)
# turns two marks into nanoseconds once done(end) holds; release() hands the
# marks back for reuse.


class HostClock:
    """time.perf_counter_ns: without a GPU (the CPU tests, the interpreter)."""

    device_type = "CPU"

    def mark(self):
        return time.perf_counter_ns()

    def device(self) -> int:
        return 0

    def done(self, mark) -> bool:
        return True

    def elapsed_ns(self, start, end) -> int:
        return end - start

    def release(self, mark) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def device_info(self) -> Dict[str, Any]:
        return {}


class CudaClock:
    """CUDA events recorded on torch's current stream (the stream warpforge
    launches on when no stream is given): recording one costs no
    synchronization; the elapsed time is read once the end event is done."""

    device_type = "CUDA"

    def __init__(self, torch):
        self.torch = torch
        self.pool: List[Any] = []  # finished events, recorded again later
        self.devices_seen: set = set()

    def mark(self):
        event = self.pool.pop() if self.pool else self.torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def device(self) -> int:
        return self.torch.cuda.current_device()

    def done(self, mark) -> bool:
        return mark.query()

    def elapsed_ns(self, start, end) -> int:
        return int(round(start.elapsed_time(end) * 1e6))

    def release(self, mark) -> None:
        self.pool.append(mark)

    def synchronize(self) -> None:
        self.torch.cuda.synchronize()

    def device_info(self) -> Dict[str, Any]:
        # What Triton's proton writes after the tree (its viewer reads it for
        # the "util" metric): per device, the clocks, bus width, arch and SMs.
        out = {}
        try:
            from ..runtime import driver
            for device in sorted(self.devices_seen):
                p = driver.get_device_properties(device)
                out[str(device)] = {"clock_rate": p.get("sm_clock_rate", 0),
                                    "memory_clock_rate": p.get("mem_clock_rate", 0),
                                    "bus_width": p.get("mem_bus_width", 0),
                                    "arch": str(p.get("cc", "")),
                                    "num_sms": p.get("multiprocessor_count", 0)}
        except Exception:  # noqa: BLE001 - the device info is optional
            return {}
        return {"CUDA": out} if out else {}


def make_clock():
    """CUDA events where torch sees a GPU and kernels are not interpreted
    (WARPFORGE_INTERPRET runs them on the host: their time is host time),
    else the host clock."""
    if os.environ.get("WARPFORGE_INTERPRET", "0") not in ("", "0"):
        return HostClock()
    try:
        import torch
    except ImportError:
        return HostClock()
    try:
        if torch.cuda.is_available():
            return CudaClock(torch)
    except Exception:  # noqa: BLE001 - a broken CUDA set-up: time on the host
        pass
    return HostClock()


# -- Trees ----------------------------------------------------------------------


class Node:
    """A scope of a session's tree: its own measurements (`time_ns`, the sum
    of its brackets; `count`, how many; `metrics`, the user metrics summed)
    and its children by name, in first-seen order."""

    __slots__ = ("name", "children", "time_ns", "count", "metrics", "devices")

    def __init__(self, name: str):
        self.name = name
        self.children: Dict[str, "Node"] = {}
        self.time_ns = 0
        self.count = 0
        self.metrics: Dict[str, float] = {}
        self.devices: set = set()

    def descend(self, path: Iterable[str]) -> "Node":
        node = self
        for name in path:
            child = node.children.get(name)
            if child is None:
                child = node.children[name] = Node(name)
            node = child
        return node

    def inclusive_ns(self) -> int:
        """A timed node's own brackets (they enclose its children's); an
        untimed one's (ROOT, a scope entered while nothing recorded) the sum of
        its children's."""
        if self.count:
            return self.time_ns
        return sum(c.inclusive_ns() for c in self.children.values())


class Session:
    def __init__(self, sid: int, name: str, hook: Optional[str]):
        self.id = sid
        self.name = name
        self.hook = hook
        self.active = True
        self.finalized = False
        self.root = Node("ROOT")

    @property
    def path(self) -> str:
        return self.name if self.name.endswith(".hatchet") else self.name + ".hatchet"


class Frame:
    """An open scope: its path, the sessions it records into (those active
    when it was entered), its start mark and its metrics."""

    __slots__ = ("name", "path", "sessions", "start", "metrics", "device")

    def __init__(self, name, path, sessions, start, metrics, device):
        self.name, self.path, self.sessions = name, path, sessions
        self.start, self.metrics, self.device = start, metrics, device


SESSIONS: Dict[int, Session] = {}
CLOCK = None
_local = threading.local()
_lock = threading.Lock()
# Closed scopes whose time is not read yet: (sessions, path, start, end,
# metrics, device). Resolved at finalize after one synchronize; those
# already done are resolved earlier without waiting (see _push), so that a
# long run (tutorial 09: 10000 launches per kernel) keeps a bounded number
# of events alive.
PENDING: "collections.deque" = collections.deque()
_DRAIN_EVERY = 4096
_next_drain = _DRAIN_EVERY
_failed = 0


def stack() -> List[Frame]:
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


def is_number(value) -> bool:
    """An int or float (NumPy's too), not a bool."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_metrics(metrics, where: str) -> Dict[str, float]:
    if metrics is None:
        return {}
    if not isinstance(metrics, dict):
        raise TypeError(f"{where}: metrics must be a dict of name -> number, "
                        f"got {type(metrics).__name__}")
    for key, value in metrics.items():
        if not isinstance(key, str):
            raise TypeError(f"{where}: metric names must be str, got {key!r}")
        if not is_number(value):
            raise TypeError(f"{where}: metric {key!r} must be an int or a float, "
                            f"got {type(value).__name__}")
    return dict(metrics)


def recording_sessions(launch: bool) -> Tuple[Session, ...]:
    """The sessions a scope entered now records into: the active ones; for a
    kernel launch, the active ones started with hook="triton"."""
    return tuple(s for s in SESSIONS.values()
                 if s.active and (not launch or s.hook == "triton"))


def enter(name: str, metrics: Dict[str, float], launch: bool = False) -> Frame:
    frames = stack()
    path = (frames[-1].path if frames else ()) + (name,)
    sessions = recording_sessions(launch)
    start = device = None
    if sessions:
        device = CLOCK.device()
        start = CLOCK.mark()
    frame = Frame(name, path, sessions, start, metrics, device)
    frames.append(frame)
    return frame


def exit(name: Optional[str], metrics: Optional[Dict[str, float]] = None) -> None:
    frames = stack()
    if not frames:
        raise RuntimeError(f"proton: exit_scope({name!r}) without an open scope")
    # The innermost open scope of that name (scopes closed out of order close
    # the ones opened inside them too, unrecorded).
    index = len(frames) - 1
    if name is not None:
        while index >= 0 and frames[index].name != name:
            index -= 1
        if index < 0:
            raise RuntimeError(f"proton: exit_scope({name!r}): no open scope has that name "
                               f"(open: {[f.name for f in frames]})")
    frame = frames[index]
    del frames[index:]
    if frame.start is None or all(s.finalized for s in frame.sessions):
        # Nothing records it (its sessions ended while it was open; a later
        # start may have chosen another clock, whose marks its start is not).
        return
    if metrics:
        frame.metrics = {**frame.metrics}
        for k, v in metrics.items():
            frame.metrics[k] = frame.metrics.get(k, 0) + v
    _push((frame.sessions, frame.path, frame.start, CLOCK.mark(), frame.metrics,
           frame.device))


def _push(record) -> None:
    global _next_drain
    with _lock:
        PENDING.append(record)
        if len(PENDING) >= _next_drain:
            _drain(wait=False)
            _next_drain = len(PENDING) + _DRAIN_EVERY


def _drain(wait: bool) -> None:
    """Adds the pending measurements to their sessions' trees: all of them
    after one synchronize (`wait`), else those already done, oldest first."""
    global _failed
    if wait and PENDING:
        CLOCK.synchronize()
    while PENDING:
        sessions, path, start, end, metrics, device = PENDING[0]
        if not wait and not (CLOCK.done(end) and CLOCK.done(start)):
            break
        PENDING.popleft()
        try:
            ns = CLOCK.elapsed_ns(start, end)
        except RuntimeError:
            # Events of two devices (the current device changed inside the
            # scope): counted, not timed.
            ns = 0
            _failed += 1
        CLOCK.release(start)
        CLOCK.release(end)
        if isinstance(CLOCK, CudaClock):
            CLOCK.devices_seen.add(device)
        for session in sessions:
            if session.finalized:
                continue
            node = session.root.descend(path)
            node.time_ns += ns
            node.count += 1
            node.devices.add(device)
            for k, v in metrics.items():
                node.metrics[k] = node.metrics.get(k, 0) + v


def resolve_all() -> None:
    global _failed
    with _lock:
        _drain(wait=True)
        if _failed:
            warnings.warn(f"proton: {_failed} scope(s) began and ended on different CUDA "
                          "devices: counted with no time", RuntimeWarning, stacklevel=3)
            _failed = 0


# -- The launch hook --------------------------------------------------------------


class LaunchHook:
    """Registered in runtime/hooks.py while a session started with
    hook="triton" is active: each launch is a scope named by its
    launch_metadata's "name" (else the kernel's), with launch_metadata's
    numeric values as its metrics."""

    def enter(self, name, grid, metadata) -> None:
        metrics = {}
        if metadata:
            name = str(metadata.get("name", name))
            metrics = {k: v for k, v in metadata.items()
                       if k != "name" and isinstance(k, str) and is_number(v)}
        enter(name, metrics, launch=True)

    def exit(self, name) -> None:
        frames = stack()
        # The launch's own frame is the innermost one (hooks.py exits right
        # after the launch).
        if frames:
            exit(frames[-1].name)


LAUNCH_HOOK = LaunchHook()


def sync_hook() -> None:
    """The launch hook is registered exactly while some active session wants
    it: deactivated or finished profiling costs launches nothing."""
    if any(s.active and s.hook == "triton" for s in SESSIONS.values()):
        _hooks.add(LAUNCH_HOOK)
    else:
        _hooks.remove(LAUNCH_HOOK)


# -- Output -----------------------------------------------------------------------


def node_json(node: Node, device_type: str, is_root: bool = False) -> Dict[str, Any]:
    children = [node_json(c, device_type) for c in node.children.values()]
    metrics: Dict[str, Any] = {}
    if is_root:
        # As Triton's proton: the root's own time and count are 0.
        metrics.update({"count": 0, "time (ns)": 0})
    else:
        # The file holds each node's own (exclusive) values, as hatchet's
        # literal format and proton's files do; a reader sums a subtree. A
        # timed node's own time is its brackets less its children's, so that
        # the sum gives its brackets back.
        inner = sum(c.inclusive_ns() for c in node.children.values())
        metrics["time (ns)"] = max(0, node.time_ns - inner) if node.count else 0
        metrics["count"] = node.count
        if node.count:
            # Proton's kernel nodes name their device (a string, as proton
            # writes it); a scope spanning several names the first.
            devices = sorted(d for d in node.devices if d is not None)
            metrics["device_id"] = str(devices[0] if devices else 0)
            metrics["device_type"] = device_type
    metrics.update(node.metrics)
    return {"frame": {"name": node.name, "type": "function"}, "metrics": metrics,
            "children": children}


def write(session: Session) -> str:
    device_type = CLOCK.device_type if CLOCK is not None else "CPU"
    data = [node_json(session.root, device_type, is_root=True),
            CLOCK.device_info() if CLOCK is not None else {}]
    with open(session.path, "w") as f:
        json.dump(data, f, indent=1, default=_json_default)
        f.write("\n")
    return session.path


def _json_default(value):
    # numpy scalars and the like in metrics
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)
