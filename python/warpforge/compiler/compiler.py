"""Compiles one specialization of a kernel: AST -> tile IR -> tile-optimize.

`generate_tile_ir` is the frontend; `compile_kernel` verifies its output
with the C++ core and runs the `tile-optimize` pipeline, keeping every stage
in `CompiledKernel.asm`. Diagnostics from C++ come back as CompilationError
at the kernel's Python line.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

from .. import ir
from .. import language as tl
from ..errors import IRError, OutOfResources
from ..language import core
from ..language.core import constexpr, tensor, use_builder
from . import attrs
from .builder import TextBuilder
from .codegen import check_language_rules, CodeGenerator, FunctionContext
from .errors import CompilationError
from .options import KernelOptions


class KernelMetadata(dict):
    """`CompiledKernel.metadata`: a dict whose keys also read as attributes,
    `k.metadata.shared` as in Triton (a missing key is an AttributeError).
    Still a plain dict to JSON and to code that indexes it."""

    __slots__ = ()

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"kernel metadata has no '{name}' (it has: "
                                 f"{', '.join(self) or 'nothing'})") from None

    def __dir__(self):
        return list(super().__dir__()) + [k for k in self if k.isidentifier()]


class _Stages(dict):
    """`CompiledKernel.asm` with stages made the first time any of them is
    looked at (a launch never reads them): the large stage texts of a kernel
    loaded from the disk cache (LLVM dialect, LLVM IR), which the cache
    keeps in a file of their own (if that file is gone, each such stage
    says so in its text), and the stages the JIT makes on demand
    (`_on_demand`, see _on_demand_stages)."""

    def __init__(self, loaded: Dict, order: List[str], deferred: List[str], load):
        super().__init__(loaded)
        self._order, self._deferred, self._load = order, list(deferred), load
        self._on_demand: List[str] = []

    def _fill(self) -> None:
        if not self._deferred:
            return
        names, self._deferred = self._deferred, []
        texts = self._load() or {}
        gone = ("(this stage's text was in the disk cache and is gone; compile again "
                "with WARPFORGE_ALWAYS_COMPILE=1 to see it)")
        merged = dict(self)
        for name in names:
            merged.setdefault(name, texts.get(name, gone))
        dict.clear(self)
        for name in self._order + [n for n in merged if n not in self._order]:
            if name in merged:
                dict.__setitem__(self, name, merged[name])

    def __missing__(self, key):
        if key in self._deferred:
            self._fill()
            return dict.__getitem__(self, key)
        raise KeyError(key)

    def __contains__(self, key):
        # The stages it holds first: a launch looks up "cubin", and reading
        # the deferred list there made torch.compile guard on its elements,
        # which a later fill empties (IndexError building the guard).
        return dict.__contains__(self, key) or key in self._deferred

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __setitem__(self, key, value):
        if key in self._deferred:
            self._deferred.remove(key)
        dict.__setitem__(self, key, value)

    def _filled(method):  # noqa: N805 - a decorator of the class body
        def wrapper(self, *args, **kwargs):
            self._fill()
            return method(self, *args, **kwargs)
        wrapper.__name__ = method.__name__
        return wrapper

    keys = _filled(dict.keys)
    values = _filled(dict.values)
    items = _filled(dict.items)
    __iter__ = _filled(dict.__iter__)
    __len__ = _filled(dict.__len__)
    def __eq__(self, other):
        self._fill()
        if isinstance(other, _Stages):
            other._fill()
        return dict.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __or__ = _filled(dict.__or__)
    __ror__ = _filled(dict.__ror__)
    __ior__ = _filled(dict.__ior__)
    __reversed__ = _filled(dict.__reversed__)
    __repr__ = _filled(dict.__repr__)
    copy = _filled(dict.copy)
    pop = _filled(dict.pop)
    popitem = _filled(dict.popitem)
    setdefault = _filled(dict.setdefault)
    update = _filled(dict.update)
    __delitem__ = _filled(dict.__delitem__)
    __hash__ = None
    del _filled

    def __reduce__(self):
        # Pickled and deep-copied as the plain dict it stands for.
        self._fill()
        return (dict, (dict(self.items()),))


def _on_demand_stages(kernel: "CompiledKernel", stages: List[str], capability: int,
                      source: Optional[str] = None) -> "_Stages":
    """`kernel.asm` with `stages` (the LLVM dialect and the LLVM IR: the
    JIT's largest texts, 1.3 and 1.2 MB for a 128x256 matmul, which
    launching never reads) made the first time one is looked at, as the
    compile made them: the LLVM dialect by running its pipeline again on the
    stage before it (`source`, else that stage's text), the LLVM IR by
    translating the LLVM dialect with the kernel's options. The stages
    `asm` already defers (a disk-cache hit's large texts) are read first.
    The JIT prints them eagerly only with WARPFORGE_DUMP_DIR."""
    names = [name for name, _, _ in ir.jit_stages()] + ["llir"]
    pipelines = {name: pipeline for name, pipeline, _ in ir.jit_stages()}
    old = kernel.asm
    asm = dict(dict.items(old))
    old_deferred = list(getattr(old, "_deferred", ()))
    old_load = getattr(old, "_load", lambda: None)
    order = list(getattr(old, "_order", ())) or list(asm)
    for stage in stages:
        if stage not in order:
            before = names[names.index(stage) - 1]
            order.insert(order.index(before) + 1 if before in order else len(order), stage)
    options = kernel.options.effective()
    core_options = options.to_core(capability)
    ir_name = f"<tile IR of {kernel.name}>"

    def load() -> Dict[str, str]:
        made = dict(old_load() or {}) if old_deferred else {}
        for stage in stages:
            before = names[names.index(stage) - 1]
            text = made.get(before, asm.get(before))
            if stage == "llvm-dialect" and source is not None:
                text = source
            if text is None:
                continue
            if stage == "llir":
                from . import target
                made[stage] = target.to_llvm_ir(text, ir_name, capability,
                                                fp_fusion=options.enable_fp_fusion,
                                                reflect_ftz=options.enable_reflect_ftz)
            else:
                made[stage], _ = ir.run_stage(text, pipelines[stage], core_options, ir_name,
                                              debug_info=True)
        return made

    made = _Stages(asm, order, old_deferred + [s for s in stages if s not in old_deferred],
                   load)
    made._on_demand = list(stages)
    return made


@dataclass
class CompiledKernel:
    """One specialization of a kernel, compiled: its IR at every stage in
    `asm`, and what launching needs.

    The GPU backend fills `asm["cubin"]` (bytes) and `metadata`, read from
    the module's attributes and ptxas's report: "name", the kernel's symbol
    in the cubin (default: `name`); "shared", the dynamic shared memory of
    each launch in bytes (default 0); "global_scratch_size" and
    "global_scratch_align", the global scratch each program needs (default
    0 and 1: none), which each launch allocates with the allocator of
    `warpforge.set_allocator`; "num_warps" and "num_threads" per
    block, "num_ctas" and "num_consumer_groups" as compiled (default:
    `options`); "capability"; ptxas's "registers", "spill_stores",
    "spill_loads", "static_shared", "stack_frame", "barriers" and its log.
    Without a cubin, `launch` reports that GPU code generation is not
    available. As in Triton, `metadata` keys read as attributes
    (`k.metadata.shared`) and `k[grid](*args, stream=None)` launches.
    """

    name: str
    signature: Dict[str, str]
    constants: Dict[str, Any]
    options: KernelOptions
    asm: Dict[str, Union[str, bytes]] = field(default_factory=dict)
    used_globals: Dict[str, Any] = field(default_factory=dict)
    metadata: Dict[str, Any] = field(default_factory=KernelMetadata)
    # Every parameter of the Python function in order, constexprs included:
    # launch() takes either these or only the run-time ones (the signature).
    params: List[str] = field(default_factory=list)
    # The loaded kernel of each device (warpforge._C.Kernel), made on the
    # first launch there.
    _kernels: Dict[int, Any] = field(default_factory=dict, init=False, repr=False,
                                     compare=False)

    def __setattr__(self, name, value):
        # metadata reads as attributes however it was set (the backend
        # assigns a plain dict).
        if name == "metadata" and type(value) is not KernelMetadata:
            value = KernelMetadata(value)
        object.__setattr__(self, name, value)

    def to_payload(self) -> Dict[str, Any]:
        """What the disk cache stores: JSON-serializable (binary stages in
        base64)."""
        # Stages made on demand and not looked at yet are not made for the
        # cache: the entry names them, and they are made again on demand.
        items = dict.items(self.asm)
        pending = [name for name in getattr(self.asm, "_on_demand", ())
                   if name in getattr(self.asm, "_deferred", ())]
        text = {k: v for k, v in items if isinstance(v, str)}
        binary = {k: base64.b64encode(v).decode("ascii") for k, v in items
                  if isinstance(v, (bytes, bytearray))}
        extra = {"asm_on_demand": pending} if pending else {}
        return {**extra, "name": self.name, "signature": self.signature,
                "constants": {k: _jsonable(v) for k, v in self.constants.items()},
                "options": vars(self.options), "asm": text, "asm_base64": binary,
                "metadata": dict(self.metadata), "params": list(self.params),
                "used_globals": {k: _jsonable(v) for k, v in self.used_globals.items()}}

    @classmethod
    def from_payload(cls, payload: Dict[str, Any],
                     load_stages=None) -> Optional["CompiledKernel"]:
        """The kernel a disk-cache payload describes; `load_stages()` gives
        the stage texts the payload's `asm_deferred` names, on first use."""
        try:
            asm: Dict[str, Union[str, bytes]] = dict(payload["asm"])
            for stage, encoded in payload["asm_base64"].items():
                asm[stage] = base64.b64decode(encoded, validate=True)
            deferred = list(payload.get("asm_deferred", ()))
            on_demand = list(payload.get("asm_on_demand", ()))
            if deferred:
                asm = _Stages(asm, list(payload.get("asm_order", ())), deferred,
                              load_stages or (lambda: None))
            kernel = cls(payload["name"], dict(payload["signature"]),
                         dict(payload["constants"]), KernelOptions(**payload["options"]), asm,
                         dict(payload["used_globals"]), dict(payload["metadata"]),
                         list(payload["params"]))
            if on_demand:
                kernel.asm = _on_demand_stages(
                    kernel, on_demand, int(kernel.metadata.get("capability", 90)))
            return kernel
        except (KeyError, TypeError, ValueError, AttributeError):
            return None

    # -- Launch ------------------------------------------------------------------

    def launch(self, grid, args, stream=None):
        """Launches on a `grid` of 1 to 3 ints, on torch's current device.

        `args` are the kernel's run-time arguments in order (those of
        `signature`), or all of the Python function's parameters (`params`,
        constexprs included: the JIT passes these). `stream`: torch's current
        stream when None, else a CUstream handle (int), a torch.cuda.Stream
        or an object with `__cuda_stream__`."""
        driver = _driver or _import_driver()
        device = driver._device()
        kernel = self._kernels.get(device)
        if kernel is None:
            kernel = self._load(device, args)
        if stream is None:
            stream = driver._stream(device)
        elif type(stream) is not int:
            stream = driver.stream_handle(stream)
        if type(grid) is not tuple or len(grid) != 3:
            grid = _grid3(grid)
        kernel.launch(grid[0], grid[1], grid[2], stream, args)

    def __getitem__(self, grid):
        """`k[grid](*args, stream=None)` launches as Triton's CompiledKernel
        does: `grid` 1 to 3 ints; `args` the run-time arguments or all the
        parameters, as `launch` takes them."""
        if callable(grid):
            raise TypeError(f"kernel {self.name}: a compiled kernel's grid is 1 to 3 ints, not "
                            "a function (its meta-parameters are fixed already)")
        grid = _grid3(grid)

        def launcher(*args, stream=None):
            if len(args) != len(self.signature) and \
                    not (self.params and len(args) == len(self.params)):
                raise self._argument_count_error(len(args))
            return self.launch(grid, args, stream)
        launcher.__name__ = launcher.__qualname__ = self.name
        return launcher

    def _init_handles(self) -> None:
        """Loads the kernel on the current device (Triton's name: its
        tutorials call it before reading `n_regs`)."""
        self._loaded()

    def _argument_count_error(self, count: int) -> TypeError:
        expected = ", ".join(f"{n}: {t}" for n, t in self.signature.items())
        message = f"kernel '{self.name}' takes {len(self.signature)} arguments ({expected})"
        if self.params and len(self.params) != len(self.signature):
            message += (f" or all {len(self.params)} of its parameters "
                        f"({', '.join(self.params)})")
        return TypeError(f"{message}, got {count}")

    def _load(self, device: int, args=None):
        """Loads the cubin on `device` (once); checks the argument count first,
        so that a wrong call fails the same with or without a GPU.

        The launcher gets what the compiler recorded: with metadata
        "num_ctas" > 1, each program runs on a thread-block cluster of that
        many CTAs; "descriptor_blocks" ({tensordesc parameter: block}) names
        the block each CTA's tensor maps are encoded for where the compiler
        split the signature's block among a cluster's CTAs."""
        cubin = self.asm.get("cubin")
        if cubin is None:
            raise RuntimeError(
                f"kernel {self.name}: GPU code generation is not available in this build "
                "yet; run it on the CPU with WARPFORGE_INTERPRET=1, or inspect its IR with "
                "kernel.warmup(...).asm")
        if args is not None and len(args) != len(self.signature) and \
                not (self.params and len(args) == len(self.params)):
            raise self._argument_count_error(len(args))
        image = cubin
        compiled_for = self.metadata.get("capability", 90)
        device_cc = _device_capability(device) if compiled_for != 90 else 90
        if device_cc and compiled_for // 10 != device_cc // 10:
            # A cubin runs on GPUs of its own generation only; another one
            # (sm80 code on an H100) loads the PTX, which the driver
            # compiles for itself.
            image = self.asm["ptx"]
        kernel = ir._core().Kernel(
            image, self.metadata.get("name", self.name), self.signature,
            self.metadata.get("num_warps", self.options.num_warps)
            + self.metadata.get("partition_warps", 0),
            self.metadata.get("shared", 0), device, self.params or None,
            self.metadata.get("global_scratch_size", 0),
            self.metadata.get("global_scratch_align", 1),
            self.metadata.get("global_scratch_implicit", False),
            self.metadata.get("host_tensor_maps") or None,
            bool(self.options.launch_pdl), bool(self.options.launch_cooperative_grid),
            num_ctas=self.metadata.get("num_ctas", 1),
            descriptor_blocks=self.metadata.get("descriptor_blocks") or None)
        self._kernels[device] = kernel
        return kernel

    def _loaded(self):
        driver = _driver or _import_driver()
        device = driver._device()
        return self._kernels.get(device) or self._load(device)

    @property
    def shared(self) -> int:
        """Dynamic shared memory per launch, in bytes."""
        return self.metadata.get("shared", 0)

    @property
    def n_regs(self) -> int:
        """Registers per thread (loads the kernel on the current device)."""
        return self._loaded().num_regs

    @property
    def n_spills(self) -> int:
        """Local memory per thread in bytes: register spills and stack."""
        return self._loaded().local_bytes

    @property
    def n_max_threads(self) -> int:
        """The most threads per block this kernel can launch with."""
        return self._loaded().max_threads


# The GPU runtime (warpforge.runtime.driver) registers itself here when it
# is imported (warpforge's __init__ imports it): the compiler does not import
# the runtime, which sits above it.
_driver = None


def set_driver(driver) -> None:
    global _driver
    _driver = driver


def _import_driver():
    raise RuntimeError("warpforge's GPU runtime is not loaded: import warpforge, not only "
                       "warpforge.compiler, to launch kernels")


def _grid3(grid) -> Tuple[int, int, int]:
    grid = tuple(int(g) for g in grid)
    if not 1 <= len(grid) <= 3 or any(g < 0 for g in grid):
        raise ValueError(f"grid must be 1 to 3 non-negative integers, got {grid}")
    return grid + (1,) * (3 - len(grid))


def _jsonable(value):
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


# The TMA's limits on a descriptor's block (TileGPU/IR/TMA.h holds the same
# rule for the compiler's passes and the launcher): rank, elements per box
# dimension, bytes of the innermost block dimension.
_TMA_MAX_RANK = 5
_TMA_MAX_BOX_DIM = 256
_TMA_MIN_INNER_BYTES = 16


def _host_descriptor_type(fn, name: str, spelling: str) -> "core.tensor_descriptor_type":
    """The type of a host TensorDescriptor parameter from its signature
    spelling, `tensordesc<fp16[64, 64]>`, with the TMA's rules on its block
    checked (TensorDescriptor checks its strides and alignment where it is
    made, but a block shape set afterwards, as tutorial 09's autotuning hook
    does, is first seen here)."""
    def fail(message):
        return CompilationError(f"{fn.__name__}: parameter '{name}' ({spelling}): {message}",
                                fn.filename, fn.first_line, 0,
                                fn.source_lines[0] if fn.source_lines else None)
    try:
        ty = tl.str_to_ty(spelling)
    except (ValueError, IndexError) as e:
        raise fail(f"not a descriptor type ({e})") from None
    if not isinstance(ty, core.tensor_descriptor_type):
        raise fail("not a descriptor type")
    block = list(ty.block_type.shape)
    elem = ty.block_type.element_ty
    if not 1 <= len(block) <= _TMA_MAX_RANK:
        raise fail(f"the TMA moves blocks of 1 to {_TMA_MAX_RANK} dimensions, got {len(block)}")
    if any(not core.is_block_dim(b) for b in block):
        raise fail(f"every block dimension must be {core.block_dim_rule()}, got {block}")
    inner_bytes = block[-1] * elem.primitive_bitwidth // 8
    if inner_bytes < _TMA_MIN_INNER_BYTES:
        raise fail(f"the innermost block dimension spans {inner_bytes} bytes; the TMA needs at "
                   f"least {_TMA_MIN_INNER_BYTES}")
    # The outermost dimension is copied in pieces of the box limit, and a
    # 2-D block whose rows span 32 bytes or more in column blocks of the
    # swizzle's width (tilegpu's TMA.h), so only the dimensions in between,
    # or the inner one of any other block, count against the limit.
    boxed = block[1:-1] if len(block) == 2 and inner_bytes >= 32 else block[1:]
    if any(b > _TMA_MAX_BOX_DIM for b in boxed):
        raise fail(f"a block dimension other than the outermost exceeds the TMA's box "
                   f"limit of {_TMA_MAX_BOX_DIM} elements ({block})")
    return ty


def _annotated_const(fn, name: str) -> bool:
    """Whether parameter `name` of `fn` is annotated `tl.const` (the class,
    or its name where annotations are strings)."""
    annotation = fn.signature.parameters[name].annotation
    if isinstance(annotation, str):
        return annotation.split(".")[-1] == "const"
    return annotation is core.const


def generate_tile_ir(fn, signature: Dict[str, str], constants: Dict[str, Any],
                     divisibility: Optional[Dict[str, int]] = None,
                     options: Optional[KernelOptions] = None) -> Tuple[str, Dict]:
    """The tile IR of `fn` (a JITFunction) for one specialization.

    `signature` maps each run-time parameter to its type ("*fp16", "i32",
    "fp32", "tensordesc<fp16[64, 64]>", ...); `constants` maps compile-time
    parameters to their values; `divisibility` gives known divisors of
    run-time integers and pointers. Returns the IR text and the constexpr
    globals the kernel read.

    A host descriptor parameter of rank n (`tensordesc<ELEM[b0, ..., bn-1]>`)
    becomes 2n + 1 arguments of the kernel, in the launcher's order: the
    descriptor (`!tile.tensordesc<tensor<b0x...xELEM>>`), then its shape as
    n i32 (outermost first), then its strides in elements as n i64. The
    kernel body sees a `tl.tensor_descriptor` over them."""
    divisibility = divisibility or {}
    builder = TextBuilder(fn.filename)
    # What the language reads of the options while the kernel is built
    # (tl.extra.cuda.num_warps(), num_threads()).
    builder.options = options if options is not None else KernelOptions()
    ctx = FunctionContext(builder, warp_specialized=bool(options and options.num_consumer_groups))
    params = list(fn.signature.parameters)
    for name in list(signature) + list(constants):
        if name not in params:
            raise CompilationError(f"{fn.__name__} has no parameter '{name}'")
    scope: Dict[str, Any] = {}
    # (name, type, rank): rank is None for a plain value, the block's rank
    # for a host descriptor (which takes 2 * rank + 1 arguments).
    run_time: List[Tuple[str, Any, Optional[int]]] = []
    arg_types, arg_attrs = [], []
    for name in params:
        if name in constants:
            scope[name] = constexpr(constants[name]) if not isinstance(
                constants[name], constexpr) else constants[name]
        elif name in signature:
            if signature[name].startswith("tensordesc<"):
                ty = _host_descriptor_type(fn, name, signature[name])
                rank = len(ty.block_type.shape)
                run_time.append((name, ty, rank))
                arg_types += [ty] + [core.int32] * rank + [core.int64] * rank
                arg_attrs += [""] * (2 * rank + 1)
                continue
            try:
                ty = core.dtype_from_name(signature[name])
            except ValueError as e:
                raise CompilationError(f"{fn.__name__}: parameter '{name}': {e}") from None
            if ty.is_ptr() and _annotated_const(fn, name):
                ty = core.pointer_type(ty.element_ty, ty.address_space, const=True)
            run_time.append((name, ty, None))
            arg_types.append(ty)
            div = divisibility.get(name)
            arg_attrs.append(f"{attrs.DIVISIBILITY} = {div} : i32" if div else "")
        else:
            raise CompilationError(f"{fn.__name__}: no type or value for parameter '{name}'")

    def body(values):
        values = iter(values)
        for name, ty, rank in run_time:
            if rank is None:
                scope[name] = tensor(next(values), ty)
                continue
            handle = tensor(next(values), ty)
            shape = [tensor(next(values), core.int32) for _ in range(rank)]
            strides = [tensor(next(values), core.int64) for _ in range(rank)]
            scope[name] = tl.tensor_descriptor(handle, shape, strides,
                                               list(ty.block_type.shape))
        check_language_rules(fn)
        gen = CodeGenerator(fn, ctx, scope)
        gen.visit(fn.parse())
        if gen.ret is not None:
            raise gen.error(gen.ret_node, f"kernel {fn.__name__} returns a value; kernels "
                                          "write their results through pointers")
        return []

    try:
        with use_builder(builder):
            builder.function(fn.__name__, True, [t.to_ir() for t in arg_types], arg_attrs,
                             body, (fn.filename, fn.first_line, fn.indent + 1))
    except CompilationError as e:
        # The message and the kernel line are the whole story: drop the
        # code generator's frames from the traceback.
        raise e.with_traceback(None) from e.__cause__
    return builder.module(), dict(ctx.used_globals)


def _describe_config(constants: Dict[str, Any], options: Optional["KernelOptions"]) -> str:
    """The config a specialization was compiled for, as the autotuner and
    the user name it: constexprs, then num_warps and num_stages."""
    parts = [f"{k}={v}" for k, v in constants.items() if isinstance(v, (int, bool, str))]
    if options is not None:
        parts += [f"num_warps={options.num_warps}", f"num_stages={options.num_stages}"]
    return ", ".join(parts)


def _from_ir_error(fn, e: IRError, ir_name: str, config: str = "") -> Exception:
    """The first error of the C++ core, at its Python line when it has one;
    OutOfResources when a hardware limit was exceeded."""
    errors = e.errors or e.diagnostics
    d = errors[0] if errors else None
    # tilegpu-allocate-shared-memory records what the kernel needs and the
    # limit on the module before it fails.
    needed = e.attributes.get(attrs.SHARED_BYTES)
    limit = e.attributes.get(attrs.SHARED_LIMIT)
    if isinstance(needed, int) and isinstance(limit, int) and needed > limit:
        where = f"the config {config} is too large: " if config else ""
        pipelined = e.attributes.get(attrs.SHARED_PIPELINED, 0)
        # Fewer stages only help when the software pipeline's buffers are
        # part of the total.
        hint = (f"use smaller blocks or fewer stages (the software pipeline's buffers take "
                f"{pipelined} bytes)" if pipelined else
                "use smaller blocks (no software pipeline is involved: fewer stages would "
                "not help)")
        return OutOfResources(fn.__name__, "bytes of shared memory", needed, limit,
                              where + hint)
    if d is None:
        return CompilationError(str(e))
    if d.file == ir_name:
        # An error in the text itself, not at a Python location: the
        # frontend wrote bad IR. That is our bug, not the kernel's.
        return CompilationError(
            f"internal compiler error: the frontend produced invalid IR for "
            f"{fn.__name__} ({ir_name}:{d.line}:{d.column}: {d.message}); set "
            "WARPFORGE_DUMP_DIR to keep it and please report it")
    source = None
    if d.file == fn.filename and fn.first_line <= d.line < fn.first_line + len(fn.source_lines):
        source = fn.source_lines[d.line - fn.first_line]
    return CompilationError(_PASS_PREFIX.sub("", d.message, count=1), d.file, d.line,
                            max(d.column - 1, 0), source)


# The pass that found an error names itself first ("tile-verify-kernels:
# ..."), which helps in warpforge-opt's output but means nothing to the
# kernel's author.
_PASS_PREFIX = re.compile(r"^(?:convert-)?tile(?:gpu)?(?:-[a-z0-9]+)+: ")


def compile_kernel(fn, signature: Dict[str, str], constants: Dict[str, Any],
                   divisibility: Optional[Dict[str, int]] = None,
                   options: Optional[KernelOptions] = None,
                   gpu: bool = True, capability: int = 90) -> CompiledKernel:
    """Compiles one specialization: tile IR, then (with `gpu`) tilegpu IR,
    the LLVM dialect, LLVM IR, PTX and a cubin for sm_{capability}a.

    Every stage is kept in `asm`; with WARPFORGE_DUMP_DIR set, each stage
    and the IR after every pass are written there too."""
    options = options or KernelOptions()
    if (why := options.unsplittable_consumer_groups()) is not None:
        from .options import WarpSpecializationWarning
        warnings.warn_explicit(
            f"{fn.__name__}: warp specialization declined: {why}; compiled without it, on "
            f"num_warps={options.num_warps} warps", WarpSpecializationWarning, fn.filename,
            fn.first_line)
        options = dataclasses.replace(options, num_consumer_groups=0, num_buffers_warp_spec=0,
                                  ping_pong=False)
    started = time.perf_counter()
    text, used_globals = generate_tile_ir(fn, signature, constants, divisibility, options)
    # Where the compile time goes, in milliseconds (metadata["compile_ms"]).
    times: Dict[str, float] = {"frontend": (time.perf_counter() - started) * 1e3}
    kernel = CompiledKernel(fn.__name__, dict(signature), dict(constants), options,
                            used_globals=used_globals,
                            params=list(fn.signature.parameters))
    dump_dir = os.environ.get("WARPFORGE_DUMP_DIR")
    ir_name = f"<tile IR of {fn.__name__}>"
    capability = options.capability(capability)
    core_options = options.effective().to_core(capability)
    attributes: Dict[str, Any] = {}
    stage_warnings: List[tuple] = []
    try:
        kernel.asm["tile-frontend"] = ir.parse(text, ir_name)
        located = text
        # The JIT's stages, in order, each one named pipeline that
        # `warpforge-opt --<pipeline>` reproduces; without `gpu`, only the
        # first (tile IR).
        stages = ir.jit_stages()[:None if gpu else 1]
        warps = options.num_warps * options.num_consumer_groups
        for stage, pipeline, _ in stages:
            if (gpu and stage == stages[-1][0] and warps & (warps - 1)
                    and not attributes.get(attrs.WARP_SPECIALIZED)):
                # Three consumer groups declined by the tilegpu stages:
                # recompiled below without them, so the LLVM stage and
                # ptxas are not run for a kernel that is thrown away.
                break
            prefix = os.path.join(dump_dir, f"{fn.__name__}.{stage}") if dump_dir else ""
            if dump_dir:
                os.makedirs(dump_dir, exist_ok=True)
            # Locations travel with the IR so that errors in later stages
            # still point at the kernel's Python lines.
            if gpu and stage == stages[-1][0]:
                # The last stage (the LLVM dialect, the largest module) goes
                # on to LLVM IR and PTX in memory instead of being parsed
                # again.
                # The target's one home is the module's tilegpu.target,
                # which convert-tile-to-tilegpu stamped from the options.
                steps: Dict[str, float] = {}
                source = located
                located, attributes, llvm_ir, ptx = ir.run_stage_to_ptx(
                    located, pipeline, core_options, ir_name, debug_info=True,
                    dump_prefix=prefix, warnings=stage_warnings,
                    cc=_capability_of(attributes), times=steps,
                    fp_fusion=options.effective().enable_fp_fusion,
                    reflect_ftz=options.effective().enable_reflect_ftz,
                    print_ir=bool(dump_dir), print_llvm_ir=bool(dump_dir))
                times.update({f"{stage}:{step}": ms for step, ms in steps.items()})
                if dump_dir:
                    kernel.asm[stage] = located
                    kernel.asm["llir"] = llvm_ir
                else:
                    # Printed when first looked at (a launch never does).
                    kernel.asm = _on_demand_stages(kernel, [stage, "llir"],
                                                   _capability_of(attributes), source)
                kernel.asm["ptx"] = ptx
                continue
            started = time.perf_counter()
            located, attributes = ir.run_stage(located, pipeline, core_options, ir_name,
                                               debug_info=True, dump_prefix=prefix,
                                               warnings=stage_warnings)
            # tile IR is kept without locations (it is what users read).
            kernel.asm[stage] = ir.parse(located, ir_name) if stage == "tile" else located
            times[stage] = (time.perf_counter() - started) * 1e3
    except IRError as e:
        if dump_dir:
            _dump(dump_dir, fn.__name__, "failed.mlir", text)
        error = _from_ir_error(fn, e, ir_name, _describe_config(constants, options))
        if isinstance(error, OutOfResources) and (
                options.num_consumer_groups or attributes.get(attrs.WARP_SPECIALIZED)):
            # The producer's slots do not fit beside the rest: the kernel
            # runs unspecialized (its num_warps warps, num_stages ring),
            # which a warning at the kernel says, rather than failing.
            return _compile_unspecialized(fn, signature, constants, divisibility, options,
                                          gpu, capability, error)
        raise error from None
    if gpu and warps & (warps - 1) and not attributes.get(attrs.WARP_SPECIALIZED):
        # Three consumer groups (experimental) that the compiler declined
        # (no product of 192-row multiples to split): the module's 12 warps
        # would run it unspecialized, its products on the FMA pipes. It is
        # compiled as without the groups instead, on num_warps warps, and
        # the warning gives the stages' reasons without their own
        # "declined ... compiled without it" frame.
        reasons = (re.sub(r"^warp specialization declined: |; compiled without it$", "", d[4])
                   for d in stage_warnings)
        why = "; ".join(dict.fromkeys(reasons)) or "declined"
        return _compile_without_groups(
            fn, signature, constants, divisibility, options, gpu, capability,
            f"({warps} consumer warps): {why}")
    _warn_at_kernel_lines(fn, stage_warnings, ir_name)
    if gpu:
        started = time.perf_counter()
        _compile_to_binary(fn, kernel, _capability_of(attributes), attributes)
        times["ptxas"] = (time.perf_counter() - started) * 1e3
    kernel.metadata["compile_ms"] = times
    if dump_dir:
        for stage, body in kernel.asm.items():
            _dump(dump_dir, fn.__name__, _STAGE_FILES.get(stage, f"{stage}.mlir"), body)
    return kernel


_STAGE_FILES = {"llir": "ll", "ptx": "ptx", "cubin": "cubin"}


def _compile_unspecialized(fn, signature, constants, divisibility, options, gpu, capability,
                           error: Exception) -> CompiledKernel:
    from .options import WarpSpecializationWarning
    if options.ping_pong:
        # Each ping-pong group keeps its own epilogue buffers and scratch;
        # the cooperative groups share one set, so try them first.
        warnings.warn_explicit(
            f"{fn.__name__}: ping-pong declined: two groups' epilogues with "
            f"num_buffers_warp_spec={options.num_buffers_warp_spec} need more shared memory "
            f"than the GPU has ({error}); the two consumer groups split each tile instead",
            WarpSpecializationWarning, fn.filename, fn.first_line)
        cooperative = dataclasses.replace(options, ping_pong=False)
        return compile_kernel(fn, signature, constants, divisibility, cooperative, gpu,
                              capability)
    if not options.num_consumer_groups:
        # tl.range(..., warp_specialize=True) on the kernel's loops.
        warnings.warn_explicit(
            f"{fn.__name__}: tl.range(warp_specialize=True) declined: the specialized "
            f"kernel needs more than the GPU has ({error}); compiled without warp "
            f"specialization", WarpSpecializationWarning, fn.filename, fn.first_line)
        plain = dataclasses.replace(options, warp_specialize_loops=False)
        return compile_kernel(fn, signature, constants, divisibility, plain, gpu, capability)
    return _compile_without_groups(
        fn, signature, constants, divisibility, options, gpu, capability,
        f"with num_buffers_warp_spec={options.num_buffers_warp_spec} needs more shared "
        f"memory than the GPU has ({error})")


def _compile_without_groups(fn, signature, constants, divisibility, options, gpu, capability,
                            why: str) -> CompiledKernel:
    """The kernel compiled as without its consumer groups, on num_warps
    warps, after a warning at the kernel: "num_consumer_groups=G `why`"."""
    from .options import WarpSpecializationWarning
    warnings.warn_explicit(
        f"{fn.__name__}: warp specialization declined: num_consumer_groups="
        f"{options.num_consumer_groups} {why}; compiled without it, on "
        f"num_warps={options.num_warps} warps",
        WarpSpecializationWarning, fn.filename, fn.first_line)
    plain = dataclasses.replace(options, num_consumer_groups=0, num_buffers_warp_spec=0,
                                ping_pong=False)
    return compile_kernel(fn, signature, constants, divisibility, plain, gpu, capability)


def _warn_at_kernel_lines(fn, diagnostics: List[tuple], ir_name: str) -> None:
    """The stages' warnings (what they declined to do, and why), each at the
    kernel's Python line it names."""
    from .options import ClusterWarning, WarpSpecializationWarning
    # A fact stays on the module through the later stages: once each.
    seen = set()
    for _severity, file, line, _column, message, _formatted in diagnostics:
        if (file, line, message) in seen:
            continue
        seen.add((file, line, message))
        # tile-cluster-split's (num_ctas) or the warp specialization's.
        category = ClusterWarning if message.startswith("num_ctas=") \
            else WarpSpecializationWarning
        if file and file != ir_name and line:
            warnings.warn_explicit(f"{fn.__name__}: {message}", category, file, line)
        else:
            warnings.warn(f"{fn.__name__}: {message}", category, stacklevel=4)



_DEVICE_CC: Dict[int, int] = {}


def _device_capability(device: int) -> int:
    """90 for an H100 (the driver's properties, asked once per device)."""
    cc = _DEVICE_CC.get(device)
    if cc is None:
        try:
            cc = int(ir._core().cuda_device_properties(device)["cc"])
        except Exception:
            # No driver or no such device: the loader reports it, in its
            # words, when it tries the cubin.
            return 0
        _DEVICE_CC[device] = cc
    return cc


def _capability_of(attributes: Dict[str, Any]) -> int:
    """90 for a module whose tilegpu.target is "cuda:90"."""
    target = attributes[attrs.TARGET]
    if not (isinstance(target, str) and target.startswith("cuda:") and target[5:].isdigit()):
        raise CompilationError(f"internal compiler error: module target {target!r}")
    return int(target[5:])


def _compile_to_binary(fn, kernel: CompiledKernel, capability: int,
                       attributes: Dict[str, Any]):
    """PTX (which the last stage made, with the LLVM IR) -> cubin, and the
    kernel's metadata: the module's attributes (what the stages recorded)
    and ptxas's report."""
    from . import target
    min_ctas_per_sm = 0
    try:
        # maxnreg is in the PTX (.maxnreg on the kernel), not a ptxas flag.
        cubin, log = target.to_cubin(kernel.asm["ptx"], capability)
        info = target.parse_ptxas_log(log).get(fn.__name__, {})
        # ptxas spilled to keep registers for several CTAs per SM (its
        # budget under .reqntid): assembled again with one CTA per SM
        # allowed (target.with_min_ctas_per_sm), kept if it spills less.
        # A kernel with maxnreg keeps the cap its author chose.
        relaxed = (target.with_min_ctas_per_sm(kernel.asm["ptx"], fn.__name__)
                   if info.get("spill_stores") and not kernel.options.maxnreg else None)
        if relaxed is not None:
            cubin2, log2 = target.to_cubin(relaxed, capability, 0)
            info2 = target.parse_ptxas_log(log2).get(fn.__name__, {})
            if info2.get("spill_stores", 0) < info["spill_stores"]:
                kernel.asm["ptx"], cubin, log, info = relaxed, cubin2, log2, info2
                min_ctas_per_sm = 1
    except IRError as e:
        raise _from_ir_error(fn, e, f"<PTX of {fn.__name__}>") from None
    kernel.asm["cubin"] = cubin
    # ptxas's figures first: its "shared" is static shared memory, which
    # the kernel's dynamic shared memory must not be confused with.
    ptxas = {("static_shared" if k == "shared" else k): v for k, v in info.items()
             if isinstance(v, (int, float, str))}
    kernel.metadata = {
        **ptxas,
        "name": fn.__name__,
        # What the stages recorded on the module: the CTA shape, clusters
        # and consumer groups actually compiled, dynamic shared memory.
        # num_warps: the kernel's own warps (with warp specialization, all
        # the consumer groups'); the launch adds its partitions' warps.
        "num_warps": attributes[attrs.NUM_WARPS],
        "partition_warps": attributes.get(attrs.PARTITION_WARPS, 0),
        "num_threads": (attributes[attrs.NUM_WARPS] + attributes.get(attrs.PARTITION_WARPS, 0))
        * attributes[attrs.THREADS_PER_WARP],
        "num_ctas": attributes[attrs.NUM_CTAS],
        "num_consumer_groups": attributes[attrs.NUM_CONSUMER_GROUPS],
        "shared": attributes.get(attrs.SHARED_BYTES, 0),
        # Per program, for the tensor maps of descriptors made on the
        # device: the launcher allocates it with warpforge.set_allocator's
        # allocator and passes it last.
        "global_scratch_size": attributes.get(attrs.GLOBAL_SCRATCH_BYTES, 0),
        "global_scratch_align": attributes.get(attrs.GLOBAL_SCRATCH_ALIGN, 1),
        # Only maps the compiler made (the source made no descriptor): with
        # no allocator set, the runtime allocates the scratch itself.
        "global_scratch_implicit": bool(attributes.get(attrs.GLOBAL_SCRATCH_IMPLICIT, 0)),
        # The compiler's tensor maps that are alike in every program: the
        # launcher encodes them from the arguments and passes them after
        # the signature's parameters (tilegpu-host-tensor-maps).
        "host_tensor_maps": attributes.get(attrs.HOST_TENSOR_MAPS, []),
        # num_ctas: the host descriptors whose tensor maps hold one CTA's
        # slice of the block (tile-cluster-split), by parameter name.
        "descriptor_blocks": _descriptor_blocks(kernel.signature,
                                                attributes.get(attrs.DESCRIPTOR_BLOCKS, [])),
        "capability": capability,
        # 1 where the PTX says .minnctapersm 1 (ptxas spilled without it).
        "min_ctas_per_sm": min_ctas_per_sm,
        "ptxas_log": log,
    }


def _descriptor_blocks(signature: Dict[str, str], recorded) -> Dict[str, List[int]]:
    """{parameter name: block} from the module's [{arg, block}], where arg
    counts kernel parameters: a tensordesc of rank n is 1 + 2n of them (the
    map, its shape and its strides)."""
    starts, at = {}, 0
    for name, ty in signature.items():
        starts[at] = name
        rank = ty.count(",") + 1
        at += 1 + 2 * rank if ty.startswith("tensordesc<") else 1
    return {starts[int(r["arg"])]: [int(x) for x in r["block"]] for r in recorded}


def _dump(directory: str, name: str, suffix: str, body: Union[str, bytes]):
    os.makedirs(directory, exist_ok=True)
    mode = "w" if isinstance(body, str) else "wb"
    with open(os.path.join(directory, f"{name}.{suffix}"), mode) as f:
        f.write(body)
