"""The CPU interpreter: runs a kernel over its whole grid with NumPy.

`WARPFORGE_INTERPRET=1` (or `@warpforge.jit(interpret=True)`) makes
`kernel[grid](...)` call `interpret_grid` instead of compiling. The kernel's
Python runs directly, once per program id, with `InterpreterBuilder` as the
active builder: the semantic layer (`warpforge.language.semantic`) decides
every type exactly as when compiling, and this builder computes the values.

Values (handles) are `TensorHandle`s: a NumPy array (0-d for scalars) plus
the IR element type. Integers are signless as in the IR: an `iN` is stored as
NumPy's signed intN and reinterpreted as unsigned by the ops that say so
(`arith.divui`, `arith.shrui`, unsigned `cmpi` predicates, ...); arithmetic
wraps around like the GPU's. `f16` is `np.float16`; `bf16`, `f8E4M3FN` and
`f8E5M2` have no NumPy type and are stored as `float32` values rounded to
the format after every op that produces them.

Pointers are `uint64` addresses into the memory of the kernel's array
arguments (NumPy arrays, CPU torch tensors, anything with
`__array_interface__`): loads and stores read and write that memory in
place. An access outside every argument raises `InterpreterError` naming
the kernel's line.

Known differences from the GPU: programs run one after another (x fastest),
so programs that wait on each other (spin locks) never finish; `math.fma`
and f32 `dot` are computed in float64 and rounded once; fp8 conversions
saturate like PTX's `cvt...satfinite` (overflow and infinities become the
largest finite value, NaN stays NaN). Constexpr parameters are plain Python
values, as in Triton's interpreter (`AXIS is not None`, `getattr(tl, NAME)`
work), so `isinstance(BLOCK, tl.constexpr)` is False here and True compiled.

The interpreter's modules: `_interpreter_values` (element types, values,
float formats and raw bits, the arguments' memory), `_interpreter_ops` (the
element-wise ops table), `_interpreter_builder` (`InterpreterBuilder` and the
errors) and this one (launching a grid: arguments, memory, program ids).
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, Optional, Tuple

import numpy as np

from .. import language as tl
from ..language import core
from ..tools.tensor_descriptor import TensorDescriptor
from ..language.core import constexpr, tensor
from ._interpreter_builder import (DeviceAssertionError, InterpreterBuilder, InterpreterError,
                                   _is_library_file)
from ._interpreter_values import _SCALARS, Memory, TensorHandle, _Descriptor, _elem, parse_type

__all__ = ["InterpreterError", "DeviceAssertionError", "InterpreterBuilder",
           "TensorHandle", "interpret_grid"]


# ---------------------------------------------------------------------------
# Launch
# ---------------------------------------------------------------------------

_EXTRA_NUMPY_DTYPES = {"bfloat16": "bf16", "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5"}


def _validate_grid(jit_fn, grid) -> Tuple[int, int, int]:
    name = getattr(jit_fn, "__name__", "kernel")
    if isinstance(grid, (int, np.integer, constexpr)):
        grid = (grid,)
    grid = tuple(grid)
    if not 1 <= len(grid) <= 3:
        raise ValueError(f"{name}: the grid must have 1 to 3 dimensions, got {grid!r}")
    out = []
    for g in grid:
        g = g.value if isinstance(g, constexpr) else g
        if isinstance(g, bool) or not isinstance(g, (int, np.integer)):
            raise TypeError(f"{name}: grid dimensions must be integers, got {grid!r}")
        if g < 0:
            raise ValueError(f"{name}: grid dimensions must not be negative, got {grid!r}")
        out.append(int(g))
    return tuple(out) + (1,) * (3 - len(out))


def _array_span(value) -> Tuple[int, int, int, int, bool]:
    """(address, lowest byte address, byte count, itemsize, read-only) of an
    array argument: the bytes its elements span."""
    if hasattr(value, "data_ptr") and hasattr(value, "element_size"):  # torch
        device = getattr(value, "device", None)
        if device is not None and getattr(device, "type", "cpu") != "cpu":
            raise TypeError(f"the interpreter runs on the CPU: got a tensor on {device}; "
                            "pass a CPU tensor (tensor.cpu())")
        addr, itemsize = value.data_ptr(), value.element_size()
        shape, strides = tuple(value.shape), tuple(s * itemsize for s in value.stride())
        readonly = False
    else:
        iface = value.__array_interface__
        addr, readonly = iface["data"]
        shape = tuple(iface["shape"])
        itemsize = np.dtype(iface["typestr"]).itemsize
        strides = iface.get("strides")
        if strides is None:
            strides, step = [], itemsize
            for s in reversed(shape):
                strides.insert(0, step)
                step *= s
        strides = tuple(strides)
    if any(s == 0 for s in shape):
        return addr, addr, 0, itemsize, readonly
    lo = hi = 0
    for s, st in zip(shape, strides):
        if st >= 0:
            hi += (s - 1) * st
        else:
            lo += (s - 1) * st
    return addr, addr + lo, hi - lo + itemsize, itemsize, bool(readonly)


def _pointer_dtype_name(value) -> Optional[str]:
    from .jit import pointer_type_name
    name = pointer_type_name(value)
    if name is None:
        np_dtype = getattr(value, "dtype", None)
        extra = _EXTRA_NUMPY_DTYPES.get(getattr(np_dtype, "name", ""))
        if extra and hasattr(value, "__array_interface__"):
            name = "*" + extra
    return name


def _wrap_argument(jit_fn, name: str, value, memory: Memory):
    """A launch argument as the kernel sees it."""
    if name in jit_fn.constexpr_params or isinstance(value, constexpr):
        # Plain Python values, as Triton's interpreter passes them, so that
        # `AXIS is not None` and `getattr(tl, NAME)` behave as when compiled.
        return value.value if isinstance(value, constexpr) else value
    if value is None:
        return None
    if isinstance(value, (np.bool_, np.integer, np.floating)):
        value = value.item()
    if isinstance(value, bool):
        return tensor(TensorHandle(np.bool_(value), _SCALARS["i1"]), core.int1)
    if isinstance(value, int):
        if -(1 << 31) <= value < (1 << 31):
            return tensor(TensorHandle(np.int32(value), _SCALARS["i32"]), core.int32)
        if -(1 << 63) <= value < (1 << 63):
            return tensor(TensorHandle(np.int64(value), _SCALARS["i64"]), core.int64)
        if 0 <= value < (1 << 64):
            return tensor(TensorHandle(np.uint64(value).view(np.int64), _SCALARS["i64"]),
                          core.uint64)
        raise ValueError(f"{jit_fn.__name__}: argument '{name}' = {value} does not fit "
                         "in 64 bits")
    if isinstance(value, float):
        return tensor(TensorHandle(np.float32(value), _SCALARS["f32"]), core.float32)
    if isinstance(value, TensorDescriptor):
        return _wrap_descriptor(name, value, memory)
    type_name = _pointer_dtype_name(value)
    if type_name is None:
        raise TypeError(f"{jit_fn.__name__}: argument '{name}' of type "
                        f"{type(value).__name__} is not a tensor, an array, a Python "
                        "scalar or a tl.constexpr")
    addr, lo, nbytes, itemsize, readonly = _array_span(value)
    memory.add(name, lo, nbytes, itemsize, readonly)
    ptype = core.dtype_from_name(type_name)
    elem = _elem(ptype.to_ir())
    return tensor(TensorHandle(np.uint64(addr), elem, origin=(name, lo, lo + nbytes)), ptype)


def _wrap_descriptor(name: str, desc: TensorDescriptor, memory: Memory):
    """A host TensorDescriptor as the kernel sees it: a tl.tensor_descriptor
    over its base array's memory, with its shape and strides as int32 and
    int64 scalars (as Triton passes them)."""
    addr, lo, nbytes, itemsize, readonly = _array_span(desc.base)
    memory.add(name, lo, nbytes, itemsize, readonly)
    dtype = core.dtype_from_name(desc.dtype)
    dty = core.tensor_descriptor_type(core.block_type(dtype, list(desc.block_shape)))
    _, delem = parse_type(dty.to_ir())
    block_shape, elem = delem.block
    handle = TensorHandle(_Descriptor(addr, list(desc.shape), list(desc.strides), block_shape,
                                      elem, desc.padding), delem)
    shape = [tensor(TensorHandle(np.int32(s), _SCALARS["i32"]), core.int32) for s in desc.shape]
    strides = [tensor(TensorHandle(np.int64(s), _SCALARS["i64"]), core.int64)
               for s in desc.strides]
    return tl.tensor_descriptor(tensor(handle, dty), shape, strides, list(desc.block_shape))


def _call_arguments(jit_fn, wrapped: Dict[str, Any]):
    args, kwargs = [], {}
    for pname, param in jit_fn.signature.parameters.items():
        if pname not in wrapped:
            continue
        v = wrapped[pname]
        if param.kind == inspect.Parameter.VAR_POSITIONAL:
            args.extend(v.value if isinstance(v, constexpr) else v)
        elif param.kind == inspect.Parameter.VAR_KEYWORD:
            kwargs.update(v.value if isinstance(v, constexpr) else v)
        elif param.kind == inspect.Parameter.KEYWORD_ONLY:
            kwargs[pname] = v
        else:
            args.append(v)
    return args, kwargs


def _kernel_location(tb) -> Optional[Tuple[str, int]]:
    """The innermost kernel-code line of a traceback."""
    found = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if not _is_library_file(code.co_filename):
            found = (code.co_filename, tb.tb_lineno)
        tb = tb.tb_next
    return found


def interpret_grid(jit_fn, grid: tuple, arguments: Dict[str, Any], options=None):
    """Runs `jit_fn` for every program id of `grid` on the CPU."""
    grid = _validate_grid(jit_fn, grid)
    from ..compiler.codegen import check_language_rules
    check_language_rules(jit_fn)
    memory = Memory()
    wrapped = {name: _wrap_argument(jit_fn, name, value, memory)
               for name, value in arguments.items()}
    memory.finalize()
    args, kwargs = _call_arguments(jit_fn, wrapped)
    builder = InterpreterBuilder(jit_fn, grid, memory, options)
    with core.use_builder(builder), np.errstate(all="ignore"):
        for z in range(grid[2]):
            for y in range(grid[1]):
                for x in range(grid[0]):
                    builder.pid = (x, y, z)
                    try:
                        returned = jit_fn.interpreted_fn()(*args, **kwargs)
                    except InterpreterError:
                        raise
                    except Exception as e:
                        where = _kernel_location(e.__traceback__.tb_next)
                        note = f"while interpreting {jit_fn.__name__}, program id {(x, y, z)}"
                        if where:
                            note = f"{where[0]}:{where[1]}: " + note
                        if hasattr(e, "add_note"):
                            e.add_note(note)
                        raise
                    if returned is not None:
                        # As when compiling: results go through pointers.
                        from ..compiler.errors import CompilationError
                        raise CompilationError(
                            f"kernel {jit_fn.__name__} returns a value; kernels write "
                            "their results through pointers", jit_fn.filename,
                            jit_fn.first_line, 0,
                            jit_fn.source_lines[0] if jit_fn.source_lines else None)
    return None
