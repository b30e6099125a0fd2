"""Launch hooks: code told of every kernel launch (a profiler).

``LAUNCH_HOOKS`` holds objects with ``enter(name, grid, metadata)`` and
``exit(name)``. While it is non-empty, every launch of a ``@jit`` function,
compiled or interpreted, goes through ``JITFunction.run``, which calls
``launch_enter`` just before the launch and ``launch_exit`` just after it
(also when the launch raises): ``name`` is the kernel's name, ``grid`` the
launch's 3-tuple, ``metadata`` what the function's ``launch_metadata``
(``@jit(launch_metadata=f)``, Triton's keyword) returns for this launch, or
None without one. ``f(grid, kernel, args)`` gets the grid, the kernel (the
``CompiledKernel``, or for an interpreted launch an object with ``name``
and an empty ``metadata``: Triton passes its compiled kernel's metadata,
whose ``.name`` is the one field Triton's tutorials read) and every
argument by name, constexprs and defaults included; it is called once per
launch whatever the number of hooks.

While the list is empty, a launch pays one truthiness test of it and takes
its usual path (the C++ fast path for a warm launch); a hook therefore costs
only while it is registered, and the launches it sees go through the
general (Python) path. Launches that bypass ``JITFunction`` (a
``CompiledKernel``'s own ``k[grid](...)``, a launcher taken with
``kernel[grid]`` before the hook was added and kept) are not seen.

Add and remove hooks with ``add``/``remove`` (the list is mutated in place:
the JIT holds it by reference).
"""
from __future__ import annotations

import types
from typing import Any, Dict, List, Optional, Tuple

LAUNCH_HOOKS: List[Any] = []


def add(hook) -> None:
    """Registers `hook` (once; adding it again does nothing)."""
    if not any(h is hook for h in LAUNCH_HOOKS):
        LAUNCH_HOOKS.append(hook)


def remove(hook) -> None:
    """Unregisters `hook` if it is registered."""
    LAUNCH_HOOKS[:] = [h for h in LAUNCH_HOOKS if h is not hook]


def _grid3(grid) -> Tuple:
    """The grid as a 3-tuple of ints where it is one; as given otherwise (the
    launch itself then reports the bad grid, as it does without hooks)."""
    try:
        grid = tuple(int(g) for g in grid)
    except (TypeError, ValueError):
        return grid
    return grid + (1,) * (3 - len(grid)) if len(grid) < 3 else grid


def launch_enter(fn, kernel, grid, arguments: Dict[str, Any]) -> Optional[Tuple]:
    """Tells the registered hooks that `fn` launches `kernel` (None:
    interpreted) on `grid` with `arguments`; returns what `launch_exit`
    takes. The hooks called are those registered now: one removed during
    the launch is still told that it ended."""
    hooks = tuple(LAUNCH_HOOKS)
    if not hooks:
        return None
    if kernel is None:
        kernel = types.SimpleNamespace(name=fn.__name__, metadata={})
    grid = _grid3(grid)
    metadata = None
    if getattr(fn, "launch_metadata", None) is not None:
        metadata = fn.launch_metadata(grid, kernel, dict(arguments))
    name = kernel.name
    entered = []
    try:
        for hook in hooks:
            hook.enter(name, grid, metadata)
            entered.append(hook)
    except BaseException:
        # A hook failed: close the ones already entered, so that none keeps
        # an open scope for a launch that will not happen.
        launch_exit((name, entered))
        raise
    return name, entered


def launch_exit(token: Optional[Tuple]) -> None:
    """Tells the hooks that `launch_enter` entered that the launch ended, in
    the reverse order."""
    if token is None:
        return
    name, entered = token
    for hook in reversed(entered):
        hook.exit(name)
