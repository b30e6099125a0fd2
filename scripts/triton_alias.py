"""Make ``import triton`` run warpforge: the shim shared by the scripts that run
Triton's own files against warpforge (triton_conformance.py, triton_tutorials.py).

``install()`` puts a ``sys.meta_path`` finder first, so that ``triton`` and
every ``triton.X`` resolve to ``warpforge`` and ``warpforge.X`` (the same
module objects). With stubs on (the default), a ``triton.X`` submodule that
warpforge lacks becomes a stub module, and ``stub_names_used_by(path)``
replaces the names that a file imports from ``triton.X`` or reads from it at
module level (``from triton.runtime.jit import TensorWrapper``,
``tl.float8e4b15`` in a parametrize list) by stubs that raise
``WarpforgeMissing: triton.X`` when used, so that only the code that really
uses them fails. Every stub made is recorded in ``STUBBED``.

``triton._internal_testing`` is warpforge's if it has one, else the
``_internal_testing.py`` in ``internal_testing_dir`` (aliased the same way).

``triton._C.libtriton``, Triton's C++ binding, is ``warpforge._libtriton``
(torch's cuBLAS under the binding's name: ``nvidia.cublas.CublasLt``, which
tutorial 09 imports); ``triton._C`` stays ``warpforge._C`` (see
``_C_PARENT``).
"""
from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.util
import sys
import types
from pathlib import Path
from typing import Iterable, Optional

SRC = "triton"
DST = "warpforge"
USE_STUBS = True
INTERNAL_TESTING_DIR: Optional[Path] = None
STUBBED = []          # "triton.X.name" or "triton.X (module)"
ALIASED = set()       # triton names that resolved to a real warpforge module


class WarpforgeMissing(Exception):
    """Raised when Triton code uses a name that warpforge does not have."""


class _StubMeta(type):
    def __getattr__(cls, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        raise WarpforgeMissing(f"{cls._wf_name} (.{attr})")

    def __call__(cls, *a, **k):
        raise WarpforgeMissing(cls._wf_name)

    def __getitem__(cls, key):
        raise WarpforgeMissing(f"{cls._wf_name}[{key!r}]")

    def __iter__(cls):
        raise WarpforgeMissing(cls._wf_name)

    def __contains__(cls, key):
        raise WarpforgeMissing(cls._wf_name)


def stub(qualname):
    """A stand-in for the missing name `qualname`. An Exception subclass, so
    `except X` / pytest.raises(X) still parse, isinstance(obj, X) is False,
    and any other use raises WarpforgeMissing."""
    return _StubMeta(qualname.rsplit(".", 1)[-1], (Exception,), {"_wf_name": qualname})


def _stub_module(fullname):
    mod = types.ModuleType(fullname)
    mod.__path__ = []

    def __getattr__(attr, _n=fullname):
        if attr.startswith("__"):
            raise AttributeError(attr)
        return stub(f"{_n}.{attr}")
    mod.__getattr__ = __getattr__
    return mod


class _Existing(importlib.abc.Loader):
    def __init__(self, module):
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        # importlib overwrote __spec__ (and maybe __loader__): give warpforge's back.
        module.__spec__ = self.spec
        if self.spec is not None:
            module.__loader__ = self.spec.loader


class _StubLoader(importlib.abc.Loader):
    def create_module(self, spec):
        STUBBED.append(f"{spec.name} (module)")
        return _stub_module(spec.name)

    def exec_module(self, module):
        pass


# Triton names whose warpforge counterpart has another name: `triton._C.libtriton`
# (Triton's C++ binding) is warpforge._libtriton.
RENAMED = {"._C.libtriton": "._libtriton"}
# `triton._C` is warpforge._C, warpforge's own binding, by the general rule:
# the very module object, because importing `triton._C` sets the attribute
# `_C` of `triton` -- the warpforge package itself -- to what it resolves
# to, and warpforge reads its binding through that attribute (`from .. import
# _C`); a stand-in module there would hide the binding. warpforge._C is an
# extension module, not a package, and Python imports `triton._C.libtriton`
# only under a parent with `__path__`: the alias gives it an empty one (no
# file is found under it; RENAMED names its one child).
_C_PARENT = "._C"


class TritonAlias(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname != SRC and not fullname.startswith(SRC + "."):
            return None
        tail = fullname[len(SRC):]
        if tail in RENAMED:
            try:
                module = importlib.import_module(DST + RENAMED[tail])
            except ImportError:
                pass  # then as any other name (a stub with stubs on)
            else:
                ALIASED.add(fullname)
                return importlib.util.spec_from_loader(fullname, _Existing(module))
        if tail == "._internal_testing" and INTERNAL_TESTING_DIR is not None:
            try:
                importlib.import_module(DST + tail)
            except ImportError:
                local = Path(INTERNAL_TESTING_DIR) / "_internal_testing.py"
                if local.exists():
                    add_import_stubs(local)
                    return importlib.util.spec_from_file_location(fullname, local)
        try:
            module = importlib.import_module(DST + tail)
        except ImportError:
            if not USE_STUBS:
                return None
            return importlib.util.spec_from_loader(fullname, _StubLoader(), is_package=True)
        if tail == _C_PARENT and not hasattr(module, "__path__"):
            module.__path__ = []
        ALIASED.add(fullname)
        return importlib.util.spec_from_loader(fullname, _Existing(module))


def install(src: str = "triton", dst: str = "warpforge", use_stubs: bool = True,
            internal_testing_dir=None) -> None:
    """Alias `src` (and its submodules) to `dst`; idempotent."""
    global SRC, DST, USE_STUBS, INTERNAL_TESTING_DIR
    SRC, DST, USE_STUBS = src, dst, use_stubs
    INTERNAL_TESTING_DIR = internal_testing_dir
    if not any(isinstance(f, TritonAlias) for f in sys.meta_path):
        sys.meta_path.insert(0, TritonAlias())


def _wf_has_submodule(name):
    """Whether triton module `name` has a real warpforge counterpart."""
    try:
        importlib.import_module(DST + name[len(SRC):])
        return True
    except ImportError:
        return False


def _stub_tree(path):
    """The AST of `path` when stubs are on and it parses, else None."""
    if not USE_STUBS:
        return None
    try:
        return ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return None


def add_import_stubs(path):
    """Stub the names that `path` imports at module level from triton.X but
    warpforge.X lacks, so that the file can be imported at all."""
    tree = _stub_tree(path)
    if tree is None:
        return
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
            continue
        if node.module != SRC and not node.module.startswith(SRC + "."):
            continue
        try:
            module = importlib.import_module(node.module)
        except ImportError:
            continue
        for alias in node.names:
            if alias.name == "*" or hasattr(module, alias.name):
                continue
            if _wf_has_submodule(f"{node.module}.{alias.name}"):
                continue
            setattr(module, alias.name, stub(f"{node.module}.{alias.name}"))
            STUBBED.append(f"{node.module}.{alias.name}")


def module_level_nodes(tree):
    """The nodes evaluated when a module is imported: module-level statements,
    plus decorators, defaults and base classes of its functions and classes."""
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            parts = list(stmt.decorator_list)
            if isinstance(stmt, ast.ClassDef):
                parts += stmt.bases
            else:
                parts += stmt.args.defaults + [d for d in stmt.args.kw_defaults if d]
            for part in parts:
                yield from ast.walk(part)
        else:
            yield from ast.walk(stmt)


def add_attribute_stubs(path, nodes=module_level_nodes):
    """Stub missing attributes of triton modules (tl.float8e4b15 in a
    parametrize list) that `path` reads; `nodes(tree)` picks which parts of
    the file count (default: those evaluated when it is imported)."""
    tree = _stub_tree(path)
    if tree is None:
        return
    names = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == SRC or a.name.startswith(SRC + "."):
                    names[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    for node in nodes(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, cur = [node.attr], node.value
        while isinstance(cur, ast.Attribute):
            chain.insert(0, cur.attr)
            cur = cur.value
        if not isinstance(cur, ast.Name) or cur.id not in names:
            continue
        modname = names[cur.id]
        for attr in chain:
            try:
                module = importlib.import_module(modname)
            except ImportError:
                break
            if hasattr(module, attr):
                modname = f"{modname}.{attr}"
                if not isinstance(getattr(module, attr), types.ModuleType):
                    break
                continue
            if _wf_has_submodule(f"{modname}.{attr}"):
                modname = f"{modname}.{attr}"
                continue
            setattr(module, attr, stub(f"{modname}.{attr}"))
            STUBBED.append(f"{modname}.{attr}")
            break


def stub_names_used_by(paths: Iterable, nodes=module_level_nodes) -> None:
    """add_import_stubs and add_attribute_stubs for every file of `paths`."""
    for path in paths:
        add_import_stubs(path)
        add_attribute_stubs(path, nodes)
