"""Keeps torch.compile's dynamo out of warpforge's own Python code.

A launch inside a torch.compile'd function (`kernel[grid](x, y)`) is opaque
to dynamo, as a call into any other extension is: the graph breaks there,
the launch runs eagerly, and the graph resumes after it.  Without this,
dynamo traces the launch path itself (argument binding, the kernel caches,
`CompiledKernel.asm`) and guards on its state, which the next launch
changes: a guard that fails on the frame that made it, or that cannot even
be built (both seen on the H100 in test_call_inside_torch_compile).
Triton's kernels get a graph break of their own in dynamo; ours are not
known to it, so warpforge's package directory is added to dynamo's skipped
files (`torch._dynamo.trace_rules.add`), the hook dynamo keeps for
third-party libraries: it never traces a skipped file's functions, and
runs a call into them eagerly.

That must happen before dynamo traces anything, whichever of torch and
warpforge is imported first, and without importing torch (or torch's
dynamo, a second of start-up) for programs that never compile: so when
`torch._dynamo.trace_rules` is already loaded it is registered at once, and
otherwise at the moment it is imported, by a finder on `sys.meta_path` that
wraps that one module's loader and removes itself once used.
"""

import importlib.abc
import sys
import threading
import warnings

_TRACE_RULES = "torch._dynamo.trace_rules"
_PACKAGE = __name__.partition(".")[0]  # "warpforge"
_lock = threading.Lock()
_registered = False


def _register(trace_rules) -> bool:
    """Adds warpforge to dynamo's skipped files (once)."""
    global _registered
    with _lock:
        if _registered:
            return True
        add = getattr(trace_rules, "add", None)
        if add is None:  # a torch without the hook: launches are traced
            return False
        try:
            add(_PACKAGE)
        except Exception as e:  # never break torch's own import
            warnings.warn(f"warpforge: could not add warpforge to torch.compile's skipped "
                          f"files ({type(e).__name__}: {e}); a launch inside torch.compile "
                          "may be traced", RuntimeWarning, stacklevel=2)
            return False
        _registered = True
        return True


class _RegisteringLoader(importlib.abc.Loader):
    """The real loader of torch._dynamo.trace_rules, then _register."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _register(module)

    def __getattr__(self, name):
        # The rest of the real loader's interface (get_source for
        # linecache and inspect, get_filename, ...), as it is.
        return getattr(self._loader, name)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps the loader the other finders give
    torch._dynamo.trace_rules."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _TRACE_RULES:
            return None
        _uninstall(self)
        for finder in list(sys.meta_path):
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None:
            return spec
        spec.loader = _RegisteringLoader(spec.loader)
        return spec


def _uninstall(finder) -> None:
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


def install() -> None:
    """At `import warpforge`: register now if dynamo is loaded, else when
    it is."""
    module = sys.modules.get(_TRACE_RULES)
    if module is not None:
        _register(module)
    elif not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())


def registered() -> bool:
    """Whether dynamo skips warpforge's files (for tests)."""
    return _registered
