"""`@warpforge.jit`: kernels and device functions.

A JITFunction compiles one kernel per specialization: the types of its
run-time arguments, which integers equal 1 (folded to constants) and which
integers and pointers are divisible by 16 (divisibility hints), the values of
its tl.constexpr parameters, and the launch options. Compiled kernels are
kept in an in-process dictionary keyed by that specialization.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import os
import textwrap
import types
from typing import Any, Callable, Dict, Optional, Tuple

from ..compiler.compiler import CompiledKernel, KernelOptions, compile_kernel
from ..compiler.errors import CompilationError
from ..language.core import constexpr
from . import cache as disk_cache

_OPTION_NAMES = ("num_warps", "num_stages", "num_consumer_groups", "num_buffers_warp_spec",
                 "maxnreg", "debug")

_NUMPY_KINDS = {"f2": "fp16", "f4": "fp32", "f8": "fp64", "i1": "int8", "i2": "int16",
                "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
                "u8": "uint64", "b1": "int1"}


def _is_constexpr_annotation(annotation) -> bool:
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


def pointer_type_name(value) -> Optional[str]:
    """"*fp16" for a torch tensor, NumPy array or array-interface object."""
    dtype = getattr(value, "dtype", None)
    if dtype is not None and hasattr(value, "data_ptr"):  # torch
        name = str(dtype).rsplit(".", 1)[-1]
        return "*" + {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32",
                      "float64": "fp64", "bool": "int1", "float8_e4m3fn": "fp8e4nv",
                      "float8_e5m2": "fp8e5"}.get(name, name)
    iface = getattr(value, "__cuda_array_interface__", None) or getattr(
        value, "__array_interface__", None)
    if iface is not None:
        typestr = iface["typestr"]
        kind = _NUMPY_KINDS.get(typestr[1:])
        if kind:
            return "*" + kind
    return None


def data_pointer(value) -> int:
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    iface = getattr(value, "__cuda_array_interface__", None) or getattr(
        value, "__array_interface__")
    return iface["data"][0]


class _Namespace:
    """The names a kernel body sees besides its locals: the variables it
    closes over, then its module's globals (read live, as Python does)."""

    def __init__(self, fn):
        self.fn = fn
        cells = fn.__closure__ or ()
        self.cells = dict(zip(fn.__code__.co_freevars, cells))

    def __contains__(self, name):
        if name in self.cells:
            try:
                self.cells[name].cell_contents
                return True
            except ValueError:  # not bound yet
                return False
        return name in self.fn.__globals__

    def __getitem__(self, name):
        if name in self.cells:
            return self.cells[name].cell_contents
        return self.fn.__globals__[name]


class JITFunction:
    """A function compiled by warpforge; `kernel[grid](*args)` launches it."""

    def __init__(self, fn: Callable, do_not_specialize=(), debug=None, noinline=None,
                 interpret=None):
        self.fn = fn
        # True: always run on the CPU interpreter; None: WARPFORGE_INTERPRET decides.
        self.interpret = interpret
        self.__name__ = fn.__name__
        self.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self.signature = inspect.signature(fn)
        self.arg_names = list(self.signature.parameters)
        self.constexpr_params = {n for n, p in self.signature.parameters.items()
                                 if _is_constexpr_annotation(p.annotation)}
        self.do_not_specialize = {self.arg_names[d] if isinstance(d, int) else d
                                  for d in do_not_specialize}
        self.debug = debug
        self.globals = _Namespace(fn)
        lines, first = inspect.getsourcelines(fn)
        start = next(i for i, l in enumerate(lines) if l.lstrip().startswith(("def ", "async def")))
        self.first_line = first + start
        self.source_lines = lines[start:]
        self.indent = len(self.source_lines[0]) - len(self.source_lines[0].lstrip())
        self.src = textwrap.dedent("".join(self.source_lines))
        self.filename = inspect.getsourcefile(fn) or "<unknown>"
        self._tree = None
        self.cache: Dict[Tuple, CompiledKernel] = {}

    def source_key(self, _visiting=None) -> str:
        """A hash of this function's source, the @jit functions it calls
        (recursively) and the constexpr globals it reads: what the disk cache
        must see change."""
        visiting = _visiting if _visiting is not None else set()
        if id(self) in visiting:
            return "recursive:" + self.__qualname__
        visiting.add(id(self))
        h = hashlib.sha256(self.src.encode())
        for name in sorted(self._referenced_names()):
            if name not in self.globals:
                continue
            value = self.globals[name]
            if isinstance(value, JITFunction):
                h.update(f"{name}=jit:{value.source_key(visiting)}".encode())
            elif isinstance(value, constexpr):
                h.update(f"{name}=constexpr:{value.value!r}".encode())
            elif isinstance(value, types.ModuleType):
                for attr in self._attributes_of(name):
                    member = getattr(value, attr, None)
                    if isinstance(member, JITFunction):
                        h.update(f"{name}.{attr}=jit:{member.source_key(visiting)}".encode())
                    elif isinstance(member, constexpr):
                        h.update(f"{name}.{attr}=constexpr:{member.value!r}".encode())
        visiting.discard(id(self))
        return h.hexdigest()

    def _referenced_names(self):
        return {n.id for n in ast.walk(self.parse()) if isinstance(n, ast.Name)}

    def _attributes_of(self, module_name: str):
        return {n.attr for n in ast.walk(self.parse()) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == module_name}

    def parse(self) -> ast.FunctionDef:
        if self._tree is None:
            self._tree = ast.parse(self.src).body[0]
        return self._tree

    def __call__(self, *args, **kwargs):
        from ..language import core
        builder = getattr(core._state, "builder", None)
        if getattr(builder, "interpreting", False):
            # A device function called from an interpreted kernel runs as Python.
            return self.fn(*args, **kwargs)
        raise RuntimeError(f"{self.__name__} is a @warpforge.jit function: launch it as "
                           f"{self.__name__}[grid](...) or call it from another "
                           "@warpforge.jit function")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    # -- Specialization ------------------------------------------------------

    def specialize(self, name: str, value) -> Tuple:
        """(kind, type, detail): kind 'c' for compile-time values, 'a' for
        run-time arguments with their type and known divisibility."""
        if name in self.constexpr_params or isinstance(value, constexpr) or value is None:
            v = value.value if isinstance(value, constexpr) else value
            return ("c", v)
        if isinstance(value, bool):
            return ("a", "i1", None)
        if isinstance(value, int):
            if -(1 << 31) <= value < (1 << 31):
                ty = "i32"
            elif -(1 << 63) <= value < (1 << 63):
                ty = "i64"
            elif 0 <= value < (1 << 64):
                ty = "u64"
            else:
                raise ValueError(f"{self.__name__}: argument '{name}' = {value} does not "
                                 "fit in 64 bits")
            if name in self.do_not_specialize:
                return ("a", ty, None)
            if value == 1:
                return ("c", 1)
            return ("a", ty, 16 if value % 16 == 0 else None)
        if isinstance(value, float):
            return ("a", "fp32", None)
        ptr_type = pointer_type_name(value)
        if ptr_type is None:
            raise TypeError(f"{self.__name__}: argument '{name}' of type "
                            f"{type(value).__name__} is not a tensor, an array, a Python "
                            "scalar or a tl.constexpr")
        aligned = name not in self.do_not_specialize and data_pointer(value) % 16 == 0
        return ("a", ptr_type, 16 if aligned else None)

    def compile(self, specialization: Dict[str, Tuple], options: KernelOptions) -> CompiledKernel:
        """Loads the kernel from the disk cache, or compiles and stores it."""
        key = None
        if not disk_cache.always_compile():
            key = disk_cache.entry_key(self.source_key(), sorted(specialization.items()),
                                       options)
            payload = disk_cache.load(key)
            if payload is not None:
                kernel = CompiledKernel.from_payload(payload)
                if kernel is not None:
                    return kernel
        kernel = self._compile(specialization, options)
        if key is not None:
            disk_cache.store(key, kernel.to_payload())
        return kernel

    def _compile(self, specialization: Dict[str, Tuple], options: KernelOptions) -> CompiledKernel:
        signature, constants, divisibility = {}, {}, {}
        for name, spec in specialization.items():
            if spec[0] == "c":
                constants[name] = spec[1]
            else:
                signature[name] = spec[1]
                if spec[2]:
                    divisibility[name] = spec[2]
        return compile_kernel(self, signature, constants, divisibility, options)

    # -- Launch ----------------------------------------------------------------

    def _bind(self, args, kwargs):
        # An option that is also a parameter (the softmax tutorial's
        # num_stages) goes to both, as in Triton.
        options = {k: (kwargs[k] if k in self.arg_names else kwargs.pop(k))
                   for k in _OPTION_NAMES if k in kwargs}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        return bound.arguments, KernelOptions(**options)

    def interpreting(self) -> bool:
        if self.interpret is not None:
            return bool(self.interpret)
        return os.environ.get("WARPFORGE_INTERPRET", "0") not in ("", "0")

    def run(self, *args, grid, warmup=False, stream=None, **kwargs):
        if self.interpreting() and not warmup:
            from .interpreter import interpret_grid
            arguments, options = self._bind(args, kwargs)
            meta = dict(arguments)
            meta.update(vars(options))
            grid = grid(meta) if callable(grid) else grid
            return interpret_grid(self, tuple(grid), arguments, options)
        arguments, options = self._bind(args, kwargs)
        specialization = {n: self.specialize(n, v) for n, v in arguments.items()}
        key = (tuple(specialization.values()), options)
        kernel = self.cache.get(key)
        if kernel is None:
            kernel = self.compile(specialization, options)
            self.cache[key] = kernel
        if warmup:
            return kernel
        meta = dict(arguments)
        meta.update(vars(options))
        grid = grid(meta) if callable(grid) else grid
        grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))
        runtime_args = [v for n, v in arguments.items() if specialization[n][0] == "a"]
        return kernel.launch(grid, runtime_args, stream)

    def warmup(self, *args, grid=(1,), **kwargs) -> CompiledKernel:
        """Compiles for these arguments without launching; `.asm` holds every
        stage."""
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def jit(fn=None, *, do_not_specialize=(), debug=None, noinline=None, interpret=None):
    """Decorator: `@jit` or `@jit(do_not_specialize=[...], interpret=True)`."""
    def decorator(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret)
    return decorator(fn) if fn is not None else decorator
