"""`@warpforge.jit`: kernels and device functions.

A JITFunction compiles one kernel per specialization: the types of its
run-time arguments, which integers equal 1 (folded to constants) and which
integers and pointers are divisible by 16 (divisibility hints), the values of
its tl.constexpr parameters, and the launch options. Compiled kernels are
kept in an in-process dictionary keyed by that specialization.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import keyword
import os
import textwrap
import types
import warnings
from typing import Any, Callable, Dict, Optional, Tuple

from ..compiler.codegen import KernelFunction
from ..compiler.compiler import CompiledKernel, compile_kernel
from ..compiler.errors import CompilationError
from ..compiler.options import OPTION_NAMES, KernelOptions, UnsupportedOptionWarning
from ..language.core import constexpr
from ..tools.tensor_descriptor import TensorDescriptor
from . import cache as disk_cache
# The launch hooks (a profiler): a list mutated in place, so that the launch
# path tests it with one global look-up (see hooks.py).
from .hooks import LAUNCH_HOOKS as _LAUNCH_HOOKS
from .hooks import launch_enter as _launch_enter
from .hooks import launch_exit as _launch_exit


_NUMPY_KINDS = {"f2": "fp16", "f4": "fp32", "f8": "fp64", "i1": "int8", "i2": "int16",
                "i4": "int32", "i8": "int64", "u1": "uint8", "u2": "uint16", "u4": "uint32",
                "u8": "uint64", "b1": "int1"}


def _is_constexpr_annotation(annotation) -> bool:
    if annotation is constexpr:
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "constexpr"


def pointer_type_name(value) -> Optional[str]:
    """"*fp16" for a torch tensor, NumPy array or array-interface object."""
    if isinstance(value, TensorWrapper):  # triton.reinterpret
        return "*" + value.dtype.name
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


# The element types a kernel's pointers can have.
_ELEMENT_TYPES = frozenset(_NUMPY_KINDS.values()) | {"bf16", "fp8e4nv", "fp8e5"}
_SUPPORTED = ("bool, int8 to int64, uint8 to uint64, float16, bfloat16, float32, float64, "
              "float8_e4m3fn and float8_e5m2")


def _unsupported_dtype(value) -> TypeError:
    iface = getattr(value, "__cuda_array_interface__", None) or getattr(
        value, "__array_interface__", None)
    dtype = getattr(value, "dtype", None)
    if dtype is None and iface is not None:
        dtype = iface.get("typestr")
    return TypeError(f"{type(value).__name__} of dtype {dtype} is not supported as a "
                     f"kernel argument (supported: {_SUPPORTED})")


def data_pointer(value) -> int:
    if hasattr(value, "data_ptr"):
        return value.data_ptr()
    iface = getattr(value, "__cuda_array_interface__", None) or getattr(
        value, "__array_interface__")
    return iface["data"][0]



def _wf_assigned(value):
    """An assigned value as the compiler binds it (see
    CodeGenerator._as_assigned)."""
    from ..compiler.codegen import CodeGenerator
    return CodeGenerator._as_assigned(value)


class _AssignedValues(ast.NodeTransformer):
    """`x = v` -> `x = _wf_assigned(v)` and `x: T = v` likewise unless T is
    tl.constexpr (the interpreter's share of Triton's assignment rule)."""

    @staticmethod
    def _wrap(value):
        return ast.Call(func=ast.Attribute(
            value=ast.Call(func=ast.Name(id="__import__", ctx=ast.Load()),
                           args=[ast.Constant("warpforge.runtime.jit")],
                           keywords=[ast.keyword(arg="fromlist", value=ast.List(
                               elts=[ast.Constant("_wf_assigned")], ctx=ast.Load()))]),
            attr="_wf_assigned", ctx=ast.Load()), args=[value], keywords=[])

    def visit_FunctionDef(self, node):
        # Nested functions keep Python's rules.
        if getattr(self, "_seen", False):
            return node
        self._seen = True
        self.generic_visit(node)
        return node

    def visit_Assign(self, node):
        node.value = ast.copy_location(self._wrap(node.value), node.value)
        return node

    def visit_AnnAssign(self, node):
        if node.value is not None and "constexpr" not in ast.unparse(node.annotation):
            node.value = ast.copy_location(self._wrap(node.value), node.value)
        return node


class IntegerArgumentOverflow(OverflowError, ValueError):
    """An integer argument no kernel parameter type holds (beyond 64 bits):
    an OverflowError as in Triton, and a ValueError as warpforge's other
    argument errors."""


def _int_type(value: int) -> str:
    if -(1 << 31) <= value < (1 << 31):
        return "i32"
    if -(1 << 63) <= value < (1 << 63):
        return "i64"
    if 0 <= value < (1 << 64):
        return "u64"
    raise IntegerArgumentOverflow(f"integer argument {value} does not fit in 64 bits")


_FP32 = ("a", "fp32", None)
_I1 = ("a", "i1", None)
_ONE = ("c", 1)
_TORCH_DTYPES: Dict[Any, str] = {}


def _hashable(value):
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def const_spec(value) -> Tuple:
    """("c", value); TypeError when the value cannot key a compiled kernel
    (unhashable: a NumPy array, a dict), so that the launchers, which key
    their caches with it, hand the call to `run`, which names the argument."""
    if isinstance(value, constexpr):
        value = value.value
    spec = ("c", _hashable(value))
    hash(spec)
    return spec


def arg_spec(value, specialize: bool = True) -> Tuple:
    """The specialization of one run-time argument: ("c", value) when it is
    folded into the kernel, else ("a", type, known divisor or None). On the
    launch path: the common types are tested first, by exact type."""
    t = type(value)
    if t is int:
        if specialize and value == 1:
            return _ONE
        return ("a", _int_type(value), 16 if specialize and value % 16 == 0 else None)
    if t is float:
        return _FP32
    if t is bool:
        return _I1
    if value is None or t is constexpr:
        return const_spec(value)
    if t is TensorDescriptor:
        # Its element type and block shape: what the kernel is compiled for
        # (the C++ launcher encodes the tensor map from the rest). No
        # divisibility: the TMA's own rules already hold.
        return ("a", value.signature_type(), None)
    data_ptr = getattr(value, "data_ptr", None)
    if data_ptr is not None:  # torch.Tensor
        dtype = value.dtype
        name = _TORCH_DTYPES.get(dtype)
        if name is None:
            name = pointer_type_name(value)
            if name[1:] not in _ELEMENT_TYPES:
                raise _unsupported_dtype(value)
            _TORCH_DTYPES[dtype] = name
        return ("a", name, 16 if specialize and data_ptr() % 16 == 0 else None)
    if isinstance(value, int):  # numpy and other int-likes
        return arg_spec(int(value), specialize)
    if isinstance(value, float):
        return _FP32
    if isinstance(value, TensorDescriptor):  # subclasses
        return ("a", value.signature_type(), None)
    if hasattr(value, "block_shape") and hasattr(value, "base") and \
            hasattr(value, "strides"):  # Triton's TensorDescriptor, duck-typed
        return ("a", _descriptor_type(value), None)
    ptr_type = pointer_type_name(value)
    if ptr_type is None:
        if hasattr(value, "__cuda_array_interface__") or hasattr(value, "__array_interface__"):
            raise _unsupported_dtype(value)
        raise TypeError(f"a value of type {type(value).__name__} is not a tensor, an array, "
                        "a Python scalar or a tl.constexpr")
    return ("a", ptr_type, 16 if specialize and data_pointer(value) % 16 == 0 else None)


# A parameter without a default, for _C.BoundLauncher.
_NO_DEFAULT = object()


def _driver_module():
    """warpforge.runtime.driver, whose `_device()` and `_stream(device)` (torch's
    current device and stream once torch is bound) warm_launch calls."""
    from . import driver
    return driver


def _native(name: str):
    """`_C.<name>` (python/src/driver.cpp's `warm_launch`, `BoundLauncher`),
    or None without the binding."""
    try:
        from .. import _C
    except ImportError:  # pragma: no cover - depends on the build
        return None
    return getattr(_C, name, None)


_BoundLauncher = _native("BoundLauncher")


def _descriptor_type(value) -> str:
    """`tensordesc<fp16[64, 64]>` for an object with a tensor `base` and a
    `block_shape` (a descriptor that is not warpforge's)."""
    name = pointer_type_name(value.base)
    if name is None:
        raise TypeError(f"the base of a {type(value).__name__} must be a tensor or an array, "
                        f"got {type(value.base).__name__}")
    block = ", ".join(str(int(b)) for b in value.block_shape)
    return f"tensordesc<{name[1:]}[{block}]>"


# os.environ.get encodes the key and decodes the value on every call (0.7 us,
# the largest part of a warm launch); its backing bytes mapping is the same
# live data, updated by os.environ[...] = ... and putenv-free tools alike.
_ENV_BYTES = getattr(os.environ, "_data", None)


def _interpret_env() -> bool:
    if isinstance(_ENV_BYTES, dict):
        value = _ENV_BYTES.get(b"WARPFORGE_INTERPRET")
        return value is not None and value not in (b"", b"0")
    return os.environ.get("WARPFORGE_INTERPRET", "0") not in ("", "0")


_GRIDS: Dict[Tuple, Tuple[int, int, int]] = {}


def normalize_grid(grid) -> Tuple[int, int, int]:
    """A 3-tuple of ints; tuple grids are memoized (the launch path)."""
    if type(grid) is tuple:
        cached = _GRIDS.get(grid)
        if cached is not None:
            return cached
        if len(_GRIDS) < 4096 and all(type(g) is int for g in grid):
            _GRIDS[grid] = _normalize_grid(grid)
            return _GRIDS[grid]
    return _normalize_grid(grid)


def _normalize_grid(grid) -> Tuple[int, int, int]:
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise ValueError(f"grid must be 1 to 3 non-negative integers, got {grid}")
    return grid + (1,) * (3 - len(grid))


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


def _replay_declines(kernel: CompiledKernel) -> None:
    """The compiler's declines recorded with a kernel loaded from the disk
    cache, raised again at their lines (as compiling it raised them)."""
    from ..compiler import options as _options
    for d in kernel.metadata.get("declines", ()) if isinstance(kernel.metadata, dict) else ():
        category = getattr(_options, str(d.get("category")), None)
        if not (isinstance(category, type) and issubclass(category, UnsupportedOptionWarning)):
            category = UnsupportedOptionWarning
        warnings.warn_explicit(str(d.get("message")), category, str(d.get("filename")),
                               int(d.get("lineno") or 0))


class JITFunction(KernelFunction):
    """A function compiled by warpforge; `kernel[grid](*args)` launches it."""

    def __init__(self, fn: Callable, do_not_specialize=(), debug=None, noinline=None,
                 interpret=None, version=None, repr=None, launch_metadata=None):
        self.fn = fn
        # Triton's metadata-only keywords, stored for code that reads them.
        # launch_metadata(grid, kernel, args) -> dict: what a profiler
        # records of each launch, called only while a launch hook is
        # registered (hooks.py; warpforge.profiler). repr(specialization)
        # -> str: the kernel's name in profiles (see `repr`). version:
        # free-form, unused.
        self.version = version
        self._repr = repr
        self.launch_metadata = launch_metadata
        # True: always run on the CPU interpreter; None: WARPFORGE_INTERPRET decides.
        self._interpret = interpret
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
        self._tree = None
        self.cache: Dict[Tuple, CompiledKernel] = {}
        self._source_error = None
        try:
            lines, first = inspect.getsourcelines(fn)
        except (OSError, TypeError):
            # The interpreter runs the Python function itself and needs no
            # source (Triton's tests exec rewritten kernels in interpreter
            # mode); compiling does, and raises this then.
            self._source_error = (
                f"@warpforge.jit cannot read the source of {fn.__qualname__}: kernels must be "
                "defined in a .py file (not typed at an interactive prompt, piped to python "
                "or made with exec) to be compiled; WARPFORGE_INTERPRET=1 runs them without")
            lines, first = [f"def {fn.__name__}():\n"], 0
        start = next(i for i, l in enumerate(lines) if l.lstrip().startswith(("def ", "async def")))
        self.first_line = first + start
        self.source_lines = lines[start:]
        self.indent = len(self.source_lines[0]) - len(self.source_lines[0].lstrip())
        self._src = textwrap.dedent("".join(self.source_lines))
        # The interpreter's rewrite reads the function's own source, which
        # _unsafe_update_src leaves alone.
        self._fn_src = self._src
        self.filename = inspect.getsourcefile(fn) or "<unknown>"

    @property
    def src(self) -> str:
        """The function's source, dedented (what the compiler parses)."""
        if self._source_error is not None:
            raise ValueError(self._source_error)
        return self._src

    def interpreted_fn(self):
        """The Python function the interpreter runs: this one with every
        plain assignment's value bound as the compiler binds it (Python
        numbers become 0-d tensors, as Triton's code generator and its
        interpreter's AST rewrite make them: `acc = 0; acc.to(tl.int64)`),
        compiled once from the source, at the kernel's own lines.  The
        function itself where its source cannot be read."""
        rewritten = getattr(self, "_interpreted", None)
        if rewritten is not None:
            return rewritten
        self._interpreted = self.fn
        try:  # without a source (its placeholder does not parse): as written
            tree = ast.parse(self._fn_src)
            func = tree.body[0]
            func.decorator_list = []
            _AssignedValues().visit(func)
            ast.fix_missing_locations(tree)
            ast.increment_lineno(tree, self.first_line - 1)
            code = compile(tree, self.filename, "exec")
            fn = self.fn
            namespace = fn.__globals__
            if fn.__code__.co_freevars:
                namespace = dict(fn.__globals__)
                for name, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
                    try:
                        namespace[name] = cell.cell_contents
                    except ValueError:  # a cell not yet filled
                        return self.fn
            local: Dict[str, Any] = {}
            exec(code, namespace, local)
            self._interpreted = local[func.name]
        except Exception:  # anything odd: run the function as written
            self._interpreted = self.fn
        return self._interpreted

    def _unsafe_update_src(self, new_src: str) -> None:
        """Replaces the source the compiler reads (Triton's hook for tests
        that patch kernel text); the Python function the interpreter runs is
        unchanged, as in Triton."""
        self._src = textwrap.dedent(new_src)
        self.source_lines = self._src.splitlines(keepends=True)
        self._source_error = None
        self._tree = None
        self.cache.clear()
        self._launcher = None

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
            # A device function called from an interpreted kernel runs as
            # Python, under the compiler's rules.
            from ..compiler.codegen import check_language_rules
            check_language_rules(self)
            return self.interpreted_fn()(*args, **kwargs)
        raise RuntimeError(f"{self.__name__} is a @warpforge.jit function: launch it as "
                           f"{self.__name__}[grid](...) or call it from another "
                           "@warpforge.jit function")

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __repr__(self):
        return f"JITFunction({self.__module__}:{self.__qualname__})"

    def repr(self, specialization=None) -> str:
        """The kernel's name for profilers, as Triton's JITFunction.repr: the
        function's name, or what the `repr=` given to @jit returns for
        `specialization`."""
        return self.__name__ if self._repr is None else self._repr(specialization)

    # -- Specialization ------------------------------------------------------

    def specialize(self, name: str, value) -> Tuple:
        """(kind, type, detail): kind 'c' for compile-time values, 'a' for
        run-time arguments with their type and known divisibility."""
        if name in self.constexpr_params:
            try:
                spec = const_spec(value)
            except TypeError:
                raise TypeError(f"{self.__name__}: tl.constexpr argument '{name}' must be "
                                f"hashable (an int, float, bool, str, dtype, None or a tuple "
                                f"of them), got {type(value).__name__}") from None
            return spec
        try:
            return arg_spec(value, name not in self.do_not_specialize)
        except (TypeError, ValueError) as e:
            raise type(e)(f"{self.__name__}: argument '{name}': {e}") from None

    def compile(self, specialization: Dict[str, Tuple], options: KernelOptions) -> CompiledKernel:
        """Loads the kernel from the disk cache, or compiles and stores it."""
        if disk_cache.always_compile():
            return self._compile(specialization, options)
        key = disk_cache.entry_key(self.source_key(), sorted(specialization.items()),
                                   options.cache_key())

        def cached():
            payload = disk_cache.load(key)
            kernel = CompiledKernel.from_payload(
                payload, lambda: disk_cache.load_stages(key)) if payload is not None else None
            # Only finished kernels count: an entry without a cubin (a
            # compile stopped early, as tests of the frontend do) would fail
            # at launch.
            return kernel if kernel is not None and "cubin" in kernel.asm else None

        kernel = cached()
        if kernel is None:
            # One process compiles a key; the others wait for its entry.
            with disk_cache.compile_lock(key):
                kernel = cached()
                if kernel is None:
                    kernel = self._compile(specialization, options)
                    if "cubin" in kernel.asm:
                        disk_cache.store(key, kernel.to_payload())
                    return self._named(kernel, specialization)
        _replay_declines(kernel)
        return self._named(kernel, specialization)

    def _named(self, kernel: CompiledKernel, specialization: Dict[str, Tuple]) -> CompiledKernel:
        """With @jit(repr=fn), the kernel's name (`kernel.name`, what
        profilers show) is fn(specialization) as in Triton: an object with
        `.signature` (parameter -> type, "constexpr" for folded values) and
        `.constants` (parameter -> folded value; an int argument equal to 1
        is one). The cubin's symbol (metadata["name"]) stays the function's."""
        if self._repr is None:
            return kernel
        signature, constants, _ = self._split_specialization(specialization)
        spec = types.SimpleNamespace(
            signature={**signature, **{k: "constexpr" for k in constants}},
            constants=dict(constants))
        kernel.name = str(self._repr(spec))
        return kernel

    def _check_like_the_compiler(self, arguments: Dict) -> None:
        """One semantic layer: a kernel the compiler's frontend rejects for
        these arguments (a loop-carried value changing type, branches
        binding a name differently or in one branch only, ...) is rejected
        by the interpreter with the same located CompilationError, not run.
        Checked once per specialization.  Kernels without source (made with
        exec, which only the interpreter runs) and arguments the compiler
        cannot specialize (the interpreter's own wrappers) skip it; a
        constexpr the compiler cannot key on (an unhashable value) is the
        compiler's TypeError here too."""
        for n in self.constexpr_params:
            if n in arguments:
                self.specialize(n, arguments[n])
        if self._source_error:
            return
        try:
            specs = tuple(self.specialize(n, v) for n, v in arguments.items())
        except (TypeError, ValueError):
            return
        checked = self.__dict__.setdefault("_interpreter_checked", {})
        if specs not in checked:
            from ..compiler.compiler import generate_tile_ir
            signature, constants, divisibility = self._split_specialization(
                dict(zip(arguments, specs)))
            try:
                generate_tile_ir(self, signature, constants, divisibility)
                checked[specs] = None
            except CompilationError as e:
                checked[specs] = e
        if checked[specs] is not None:
            raise checked[specs].with_traceback(None)

    def _split_specialization(self, specialization: Dict[str, Tuple]):
        signature, constants, divisibility = {}, {}, {}
        for name, spec in specialization.items():
            if spec[0] == "c":
                constants[name] = spec[1]
            else:
                signature[name] = spec[1]
                if spec[2]:
                    divisibility[name] = spec[2]
        return signature, constants, divisibility

    def _compile(self, specialization: Dict[str, Tuple], options: KernelOptions) -> CompiledKernel:
        signature, constants, divisibility = self._split_specialization(specialization)
        # What the compiler declined (an option it could not apply, at the
        # kernel's line) travels with the kernel: a disk-cache hit raises it
        # again (_replay_declines), so a second run of a script still says
        # that its warp-specialized loop fell back. Every warning is raised
        # here as the compiler raised it, a failed compile's too.
        caught = []
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                kernel = compile_kernel(self, signature, constants, divisibility, options)
        finally:
            for w in caught:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno,
                                       source=w.source)
        declines = [{"category": w.category.__name__, "message": str(w.message),
                     "filename": w.filename, "lineno": w.lineno}
                    for w in caught if issubclass(w.category, UnsupportedOptionWarning)]
        if declines and isinstance(kernel.metadata, dict):
            kernel.metadata["declines"] = declines
        return self._named(kernel, specialization)

    # -- Launch ----------------------------------------------------------------

    def _bind(self, args, kwargs):
        # An option that is also a parameter (the softmax tutorial's
        # num_stages) goes to both, as in Triton.
        raw = {k: (kwargs[k] if k in self.arg_names else kwargs.pop(k))
               for k in OPTION_NAMES if k in kwargs}
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.__name__}: {e}") from None
        bound.apply_defaults()
        for name in OPTION_NAMES:
            if name in self.arg_names:
                raw[name] = bound.arguments[name]
        return bound.arguments, raw

    @property
    def interpret(self):
        """`@jit(interpret=...)`: True or False overrides WARPFORGE_INTERPRET."""
        return self._interpret

    @interpret.setter
    def interpret(self, value):
        self._interpret = value
        self._launcher = self._bound_spec = None  # they hold the setting

    def interpreting(self) -> bool:
        if self.interpret is not None:
            return bool(self.interpret)
        return _interpret_env()

    def _meta(self, arguments: Dict, raw_options: Dict) -> Dict:
        meta = dict(arguments)
        meta.update(vars(KernelOptions(**raw_options)))
        return meta

    def run(self, *args, grid, warmup=False, stream=None, **kwargs):
        """Binds, specializes, compiles on a miss, and launches (the general
        path; `kernel[grid](...)` takes a generated fast path on hits)."""
        if "extern_libs" in kwargs:
            kwargs = dict(kwargs)
            _check_extern_libs(self.__name__, kwargs.pop("extern_libs"))
        arguments, raw = self._bind(args, kwargs)
        if self.interpreting() and not warmup:
            from .interpreter import interpret_grid
            self._check_like_the_compiler(arguments)
            grid = grid(self._meta(arguments, raw)) if callable(grid) else grid
            if _LAUNCH_HOOKS:
                entered = _launch_enter(self, None, grid, arguments)
                try:
                    return interpret_grid(self, tuple(grid), arguments, KernelOptions(**raw))
                finally:
                    _launch_exit(entered)
            return interpret_grid(self, tuple(grid), arguments, KernelOptions(**raw))
        specs = tuple(self.specialize(n, v) for n, v in arguments.items())
        key = (specs, tuple(sorted(raw.items())) if raw else ())
        kernel = self.cache.get(key)
        if kernel is None:
            options = KernelOptions(**raw)
            # At the launch's line (user -> launcher or warmup -> run).
            options.warn_unsupported(self.__name__, stacklevel=3)
            kernel = self.cache[key] = self.compile(dict(zip(arguments, specs)), options)
        if warmup:
            return kernel
        if callable(grid):
            grid = grid(self._meta(arguments, raw))
        # All parameters: the kernel picks out its run-time ones in C++.
        if _LAUNCH_HOOKS:
            grid = normalize_grid(grid)
            entered = _launch_enter(self, kernel, grid, arguments)
            try:
                kernel.launch(grid, tuple(arguments.values()), stream)
            finally:
                _launch_exit(entered)
            return kernel
        # As Triton's: the launch returns the CompiledKernel (its `asm`,
        # `metadata`, `n_regs`), on every path.
        kernel.launch(normalize_grid(grid), tuple(arguments.values()), stream)
        return kernel

    def __getitem__(self, grid):
        if _LAUNCH_HOOKS:
            # A launch hook is registered (a profiler): run() calls it; the
            # fast paths below launch in C++ without it.
            return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)
        launcher = self._launcher
        if launcher is None:
            launcher = self._launcher = self._make_launcher()
        spec = self._bound_spec
        if spec is not None:
            # Binds the arguments and launches a hit in C++; the rest goes
            # to `launcher`. Kept per tuple grid (launch loops reuse a few);
            # never per function grid, whose closure may hold tensors.
            if type(grid) is not tuple:
                return _BoundLauncher(grid, spec)
            try:
                bound = self._bound_by_grid.get(grid)
            except TypeError:  # a tuple of unhashable values
                return _BoundLauncher(grid, spec)
            if bound is None:
                if len(self._bound_by_grid) >= 256:
                    self._bound_by_grid.clear()
                bound = self._bound_by_grid[grid] = _BoundLauncher(grid, spec)
            return bound
        return functools.partial(launcher, grid=grid)

    _launcher = None
    _bound_spec = None
    _bound_by_grid: Dict[Any, Any] = {}

    def _make_launcher(self) -> Callable:
        """Generates `<kernel name>(<the kernel's parameters>, *, grid, stream,
        **options)`: it computes the specialization key inline and launches on
        a cache hit, so a warm launch costs one dictionary look-up on top of
        the argument checks. It hands all the parameters to the compiled
        kernel, whose C++ launcher packs the run-time ones (no Python loop).
        Misses and the interpreter go through `run`."""
        P = inspect.Parameter
        params = list(self.signature.parameters.values())
        # Parameters named like the launcher's own names would shadow them:
        # such a kernel launches through run() (correct, a little slower).
        own = ("grid", "stream", "options", "_arg_spec", "_const_spec", "_cache", "_self",
               "_normalize_grid", "_dtypes", "_warm", "_state", "_kinds")
        if any(p.kind not in (P.POSITIONAL_OR_KEYWORD, P.KEYWORD_ONLY) for p in params) or \
                any(p.name in own or p.name.startswith(("_wf_", "_default_")) for p in params):
            return lambda *a, grid, **kw: self.run(*a, grid=grid, **kw)
        env = {"_arg_spec": arg_spec, "_const_spec": const_spec, "_cache": self.cache,
               "_self": self, "_normalize_grid": normalize_grid,
               "_dtypes": _TORCH_DTYPES,
               # Builtins under names of their own: a parameter may be
               # called `type` or `len` (Triton's test_call has `type`).
               "_wf_type": type, "_wf_tuple": tuple, "_wf_len": len, "_wf_sorted": sorted,
               "_wf_callable": callable, "_wf_dict": dict, "_wf_zip": zip,
               "_wf_TypeError": TypeError, "_wf_ValueError": ValueError}
        arglist, specs, names = [], [], [p.name for p in params]
        kinds = bytearray()
        for p in params:
            if p.default is P.empty:
                arglist.append(p.name)
            else:
                env[f"_default_{p.name}"] = p.default
                arglist.append(f"{p.name}=_default_{p.name}")
            if p.name in self.constexpr_params:
                specs.append(f"_const_spec({p.name})")
                kinds.append(2)
            elif p.name in self.do_not_specialize:
                specs.append(f"_arg_spec({p.name}, False)")
                kinds.append(1)
            else:
                specs.append(f"_arg_spec({p.name})")
                kinds.append(0)
        env["_kinds"] = bytes(kinds)
        both = [n for n in OPTION_NAMES if n in names]
        # Named after the kernel: a wrong call reads "add_kernel() missing 1
        # required positional argument: 'n'".
        fname = self.__name__
        if not fname.isidentifier() or keyword.iskeyword(fname) or fname in env or \
                fname in names:
            fname = "launcher"
        warm = _native("warm_launch")
        src = [f"def {fname}({''.join(a + ', ' for a in arglist)}*, grid, stream=None, "
               "**options):"]
        src += [f"    options[{n!r}] = {n}" for n in both]
        src += [f"    _wf_args = {_tuple_src(names)}"]
        if warm is not None:
            # A hit with a plain grid launches in this one C++ call
            # (driver.cpp's warm_launch); it hands back the kernel when the
            # grid or stream needs Python, and False for run().
            env["_warm"] = warm
            env["_state"] = (env["_kinds"], arg_spec, const_spec, _TORCH_DTYPES, self.cache,
                             self.interpret if self.interpret is None else bool(self.interpret),
                             _driver_module(), None)
            src += [
                "    try:",
                "        _wf_kernel = _warm(_state, grid, _wf_args, options, stream)",
                "    except _wf_TypeError:",
                "        _wf_kernel = False  # an unhashable option: run() says which",
                "    if _wf_type(_wf_kernel) is _wf_tuple:",
                "        _wf_kernel = _wf_kernel[0]  # a hit that Python launches",
                "    elif _wf_kernel is False:",
                "        _wf_kernel = None",
                "    else:",
                "        return _wf_kernel  # launched",
            ]
        else:
            src += [
                "    if _self.interpreting():",
                "        _wf_kernel = None",
                "    else:",
                "        try:",
                f"            _wf_key = ({_tuple_src(specs)}, "
                "_wf_tuple(_wf_sorted(options.items())) if options else ())",
                "        except (_wf_TypeError, _wf_ValueError):",
                "            _wf_key = None  # run() names the argument in the error",
                "        _wf_kernel = _cache.get(_wf_key)",
            ]
        src += [
            "    if _wf_kernel is None:",
            f"        return _self.run(grid=grid, stream=stream, "
            f"{''.join(f'{n}={n}, ' for n in names)}"
            f"**{{k: v for k, v in options.items() if k not in {tuple(both)!r}}})",
            "    if _wf_callable(grid):",
            f"        grid = grid(_self._meta(_wf_dict(_wf_zip({tuple(names)!r}, _wf_args)), "
            "options))",
            "    if _wf_type(grid) is not _wf_tuple or _wf_len(grid) != 3:",
            "        grid = _normalize_grid(grid)",
            "    _wf_kernel.launch(grid, _wf_args, stream)",
            "    return _wf_kernel",
        ]
        code = compile("\n".join(src) + "\n", f"<launcher of {self.__qualname__}>", "exec")
        exec(code, env)
        launcher = env[fname]
        self._bound_spec = None
        self._bound_by_grid = {}
        if warm is not None and _BoundLauncher is not None:
            defaults = tuple(_NO_DEFAULT if p.default is P.empty else p.default for p in params)
            self._bound_spec = (tuple(names), defaults, _NO_DEFAULT, env["_state"], launcher)
        return launcher

    def warmup(self, *args, grid=(1,), **kwargs) -> CompiledKernel:
        """Compiles for these arguments without launching; `.asm` holds every
        stage."""
        return self.run(*args, grid=grid, warmup=True, **kwargs)


def _check_extern_libs(kernel_name: str, libs) -> None:
    """Triton's `extern_libs={'libdevice': path}` launch keyword (tutorial
    07): warpforge always links the CUDA toolkit's libdevice, the library
    Triton bundles too, so the keyword is accepted and checked, and the path
    is not read (tutorial 07 names the copy in a Triton source tree, which
    need not exist); other libraries are not supported."""
    if libs is None:
        return
    if not isinstance(libs, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                             for k, v in libs.items()):
        raise TypeError(f"{kernel_name}: extern_libs must map library names to paths "
                        f"(str -> str), got {libs!r}")
    other = sorted(set(libs) - {"libdevice"})
    if other:
        raise ValueError(f"{kernel_name}: extern_libs: only 'libdevice' is supported (linked "
                         f"from the CUDA toolkit); got {', '.join(map(repr, other))}")


# Names of element types -> their signature spelling (Triton's
# `triton.runtime.jit.type_canonicalisation_dict`, for the types warpforge
# has; bools canonicalize to "u1" as in Triton). `tl.str_to_ty` reads the
# values back.
type_canonicalisation_dict = {
    "bool": "u1", "int1": "u1", "uint1": "u1", "i1": "u1",
    "float8e4nv": "fp8e4nv", "float8_e4m3fn": "fp8e4nv", "float8e5": "fp8e5",
    "float8_e5m2": "fp8e5", "half": "fp16", "float16": "fp16", "bfloat16": "bf16",
    "float": "fp32", "float32": "fp32", "double": "fp64", "float64": "fp64",
    "int8": "i8", "int16": "i16", "int": "i32", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
}
type_canonicalisation_dict.update({v: v for v in list(type_canonicalisation_dict.values())})


class TensorWrapper:
    """A tensor viewed as another element type (`triton.reinterpret`): the
    same memory, with `dtype` a `tl.dtype` of the same width, e.g. an int32
    tensor read as uint32 by the kernel. Wraps torch tensors and NumPy
    arrays."""

    def __init__(self, base, dtype):
        self.base = base
        self.dtype = dtype
        self.data = getattr(base, "data", None)
        self.device = getattr(base, "device", "cpu")
        self.shape = tuple(base.shape)

    def data_ptr(self) -> int:
        return data_pointer(self.base)

    def stride(self, *args):
        stride = getattr(self.base, "stride", None)
        if callable(stride):
            return stride(*args)
        strides = tuple(s // self.base.itemsize for s in self.base.strides)
        return strides[args[0]] if args else strides

    def element_size(self) -> int:
        size = getattr(self.base, "element_size", None)
        return size() if callable(size) else self.base.itemsize

    def __str__(self) -> str:
        return f"TensorWrapper[{self.dtype}]({self.base})"

    def cpu(self):
        return TensorWrapper(self.base.cpu(), self.dtype)

    def copy_(self, other):
        self.base.copy_(other.base)

    def clone(self):
        return TensorWrapper(self.base.clone(), self.dtype)

    def to(self, device):
        return TensorWrapper(self.base.to(device), self.dtype)

    def new_empty(self, sizes):
        return TensorWrapper(self.base.new_empty(sizes), self.dtype)


def reinterpret(tensor, dtype):
    """`tensor` seen by kernels as elements of `dtype` (Triton's
    `triton.reinterpret`): unwraps when `dtype` is the base's own."""
    if isinstance(tensor, TensorWrapper):
        if dtype == tensor.base.dtype:
            return tensor.base
        return TensorWrapper(tensor.base, dtype)
    if hasattr(tensor, "data_ptr") or hasattr(tensor, "__array_interface__"):
        return TensorWrapper(tensor, dtype)
    raise TypeError(f"cannot reinterpret a {type(tensor).__name__}")


def _tuple_src(items) -> str:
    """Python source of a tuple of these expressions: `()`, `(a,)`, `(a, b,)`."""
    return "(" + "".join(f"{i}, " for i in items).rstrip(" ") + ")"


# Triton's @jit keywords that warpforge does not implement, with why.
_UNSUPPORTED_JIT_KEYWORDS = {
    "do_not_specialize_on_alignment": "warpforge specializes on alignment and on the value "
                                      "1 together; use do_not_specialize to turn off both",
}


def jit(fn=None, *, do_not_specialize=(), debug=None, noinline=None, interpret=None,
        version=None, repr=None, launch_metadata=None, **unknown):
    """Decorator: `@jit` or `@jit(do_not_specialize=[...], interpret=True)`.

    Triton's metadata keywords are accepted and stored on the JITFunction,
    with no effect on compiling or launching: `launch_metadata`, a function
    `(grid, kernel, args) -> dict` for profilers (`.launch_metadata`, called
    at each launch while a launch hook is registered: runtime/hooks.py,
    `warpforge.profiler`), `repr`, a function of
    the specialization naming the kernel in profiles (`.repr(...)`), and
    `version` (`.version`). Any other keyword is a TypeError."""
    if unknown:
        notes = [f"{k} ({_UNSUPPORTED_JIT_KEYWORDS[k]})" if k in _UNSUPPORTED_JIT_KEYWORDS
                 else k for k in unknown]
        raise TypeError(f"jit() got unexpected keyword argument{'s' if len(notes) > 1 else ''}: "
                        f"{', '.join(notes)}")

    def decorator(f):
        return JITFunction(f, do_not_specialize=do_not_specialize, debug=debug,
                           noinline=noinline, interpret=interpret, version=version,
                           repr=repr, launch_metadata=launch_metadata)
    return decorator(fn) if fn is not None else decorator
