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
largest finite value, NaN stays NaN).
"""

from __future__ import annotations

import ctypes
import functools
import inspect
import math
import os
import re
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..language import core
from ..language.core import constexpr, tensor
from ..language.semantic import SemanticError

__all__ = ["InterpreterError", "DeviceAssertionError", "InterpreterBuilder",
           "TensorHandle", "interpret_grid"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))


class InterpreterError(RuntimeError):
    """A kernel did something invalid while interpreted (an out-of-bounds
    access, a failed device assertion). `filename` and `lineno` point at the
    kernel source; `program_id` is the (x, y, z) program that failed."""

    def __init__(self, message: str, filename: str = "", lineno: int = 0,
                 program_id: Optional[Tuple[int, int, int]] = None):
        self.message = message
        self.filename = filename
        self.lineno = lineno
        self.program_id = program_id
        text = f"{filename}:{lineno}: {message}" if lineno else message
        if program_id is not None:
            text += f" (program id {tuple(program_id)})"
        super().__init__(text)


class DeviceAssertionError(InterpreterError):
    """A `tl.device_assert` (or `assert` on a tensor) failed."""


# ---------------------------------------------------------------------------
# Element types
# ---------------------------------------------------------------------------


class _Elem:
    """An IR element type: its storage in NumPy and its size in memory."""

    __slots__ = ("name", "kind", "bits", "np_dtype", "nbytes", "pointee", "block")

    def __init__(self, name, kind, bits, np_dtype, nbytes, pointee=None, block=None):
        self.name = name          # the IR spelling: "f16", "i32", "!tile.ptr<f32>"
        self.kind = kind          # 'i' integer, 'f' float, 'p' pointer, 'd' descriptor
        self.bits = bits
        self.np_dtype = np.dtype(np_dtype) if np_dtype is not None else None
        self.nbytes = nbytes      # bytes in memory
        self.pointee = pointee    # _Elem a pointer points to
        self.block = block        # (shape, _Elem) of a tensor descriptor

    @property
    def signed_dtype(self):
        return self.np_dtype

    @property
    def unsigned_dtype(self):
        return _UNSIGNED[self.bits]

    def __repr__(self):
        return self.name


_UNSIGNED = {1: np.dtype(np.bool_), 8: np.dtype(np.uint8), 16: np.dtype(np.uint16),
             32: np.dtype(np.uint32), 64: np.dtype(np.uint64)}
_SIGNED = {8: np.dtype(np.int8), 16: np.dtype(np.int16), 32: np.dtype(np.int32),
           64: np.dtype(np.int64)}

_SCALARS = {
    "i1": _Elem("i1", "i", 1, np.bool_, 1),
    "i8": _Elem("i8", "i", 8, np.int8, 1),
    "i16": _Elem("i16", "i", 16, np.int16, 2),
    "i32": _Elem("i32", "i", 32, np.int32, 4),
    "i64": _Elem("i64", "i", 64, np.int64, 8),
    "f8E4M3FN": _Elem("f8E4M3FN", "f", 8, np.float32, 1),
    "f8E5M2": _Elem("f8E5M2", "f", 8, np.float32, 1),
    "f16": _Elem("f16", "f", 16, np.float16, 2),
    "bf16": _Elem("bf16", "f", 16, np.float32, 2),
    "f32": _Elem("f32", "f", 32, np.float32, 4),
    "f64": _Elem("f64", "f", 64, np.float64, 8),
}


def _top_level_split(s: str, sep: str = ",") -> List[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(s):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(s[start:i].strip())
            start = i + 1
    parts.append(s[start:].strip())
    return parts


@functools.lru_cache(maxsize=None)
def parse_type(ir_type: str) -> Tuple[Tuple[int, ...], _Elem]:
    """("tensor<16x32xf16>") -> ((16, 32), f16); scalars have shape ()."""
    s = ir_type.strip()
    if s.startswith("tensor<") and s.endswith(">"):
        inner = s[len("tensor<"):-1]
        dims = []
        while True:
            m = re.match(r"(\d+)x", inner)
            if not m:
                break
            dims.append(int(m.group(1)))
            inner = inner[m.end():]
        shape, elem = parse_type(inner)
        if shape:
            raise ValueError(f"nested tensor type {ir_type!r}")
        return tuple(dims), elem
    if s in _SCALARS:
        return (), _SCALARS[s]
    if s.startswith("!tile.ptr<") and s.endswith(">"):
        parts = _top_level_split(s[len("!tile.ptr<"):-1])
        _, pointee = parse_type(parts[0])
        return (), _Elem(s, "p", 64, np.uint64, 8, pointee=pointee)
    if s.startswith("!tile.tensordesc<") and s.endswith(">"):
        block = parse_type(s[len("!tile.tensordesc<"):-1])
        return (), _Elem(s, "d", 0, None, 0, block=block)
    raise ValueError(f"the interpreter does not know the type {ir_type!r}")


def _elem(ir_type: str) -> _Elem:
    return parse_type(ir_type)[1]


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


class TensorHandle:
    """An interpreted value: `data` (a NumPy array, 0-d for a scalar) and its
    IR element type `elem`."""

    __slots__ = ("data", "elem")

    def __init__(self, data, elem: _Elem):
        if elem.kind != "d":
            data = np.asarray(data)
            if data.dtype != elem.np_dtype:
                data = data.astype(elem.np_dtype)
        self.data = data
        self.elem = elem

    def __repr__(self):
        return f"TensorHandle({self.elem.name}, {self.data!r})"


class _Descriptor:
    """A tensor descriptor: a base address, the global shape and strides (in
    elements) and the block it moves."""

    def __init__(self, base: int, shape: List[int], strides: List[int],
                 block_shape: Tuple[int, ...], elem: _Elem):
        self.base, self.shape, self.strides = base, shape, strides
        self.block_shape, self.elem = block_shape, elem

    def __repr__(self):
        return (f"TensorDescriptor(base=0x{self.base:x}, shape={self.shape}, "
                f"strides={self.strides}, block={list(self.block_shape)}x{self.elem.name})")


# ---------------------------------------------------------------------------
# Floating-point formats and rounding
# ---------------------------------------------------------------------------

# name: (mantissa bits, minimum normal exponent, largest finite value,
#        has infinities, saturating conversions)
_FORMATS = {
    "f16": (10, -14, 65504.0, True, False),
    "bf16": (7, -126, float.fromhex("0x1.fep127"), True, False),
    "f32": (23, -126, float.fromhex("0x1.fffffep127"), True, False),
    "f8E4M3FN": (3, -6, 448.0, False, True),
    "f8E5M2": (2, -14, 57344.0, True, True),
}


def _round_generic(x, fmt: str, rtz: bool) -> np.ndarray:
    """Rounds float64 values to the format `fmt` (to nearest even, or toward
    zero), returning them as float64."""
    man, emin, max_finite, has_inf, saturate = _FORMATS[fmt]
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        finite = np.isfinite(ax)
        safe = np.where(finite, ax, 0.0)
        _, e = np.frexp(safe)
        e = np.maximum(e.astype(np.int64) - 1, emin)
        quantum = np.ldexp(1.0, (e - man).astype(np.int32))
        scaled = safe / quantum
        r = (np.trunc(scaled) if rtz else np.rint(scaled)) * quantum
        if rtz or saturate:
            r = np.minimum(r, max_finite)
        else:
            r = np.where(r > max_finite, np.inf, r)
        # Infinities: saturating conversions clamp them; others keep them.
        r = np.where(np.isinf(ax), max_finite if (saturate or not has_inf) else np.inf, r)
        r = np.where(np.isnan(ax), np.nan, r)
        return np.copysign(r, x)


def _tf32(x: np.ndarray) -> np.ndarray:
    """f32 values rounded to tf32 (10 mantissa bits, to nearest even)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32)
    with np.errstate(all="ignore"):
        r = (u + np.uint32(0xFFF) + ((u >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    r = np.where(np.isfinite(x), r, u)
    return r.astype(np.uint32).view(np.float32)


def _bf16_from_f32(x: np.ndarray, rtz: bool) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    u = x.view(np.uint32)
    with np.errstate(all="ignore"):
        if rtz:
            r = u & np.uint32(0xFFFF0000)
        else:
            r = (u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) \
                & np.uint32(0xFFFF0000)
    r = np.where(np.isnan(x), (u & np.uint32(0x80000000)) | np.uint32(0x7FC00000), r)
    return r.astype(np.uint32).view(np.float32)


def round_to(x, elem: _Elem, rtz: bool = False) -> np.ndarray:
    """Numbers (any NumPy numeric array) converted to the float type `elem`,
    in its storage dtype, rounded to nearest even or toward zero."""
    x = np.asarray(x)
    name = elem.name
    with np.errstate(all="ignore"):
        if name == "f64":
            return x.astype(np.float64)
        if x.dtype == np.bool_:
            x = x.astype(np.float32)
        if not rtz and name in ("f32", "f16"):
            # NumPy's conversions round to nearest even (from any type).
            return x if x.dtype == elem.np_dtype else x.astype(elem.np_dtype)
        if name == "bf16" and x.dtype in (np.float32, np.float16):
            return _bf16_from_f32(x.astype(np.float32), rtz)
        out = _round_generic(x.astype(np.float64), name, rtz)
        return out.astype(elem.np_dtype)


def _fp8_decode_table(exp_bits: int, man_bits: int, bias: int, e4m3fn: bool) -> np.ndarray:
    table = np.zeros(256, np.float32)
    for code in range(256):
        sign = -1.0 if code & 0x80 else 1.0
        exp = (code >> man_bits) & ((1 << exp_bits) - 1)
        man = code & ((1 << man_bits) - 1)
        top = (1 << exp_bits) - 1
        if e4m3fn and exp == top and man == (1 << man_bits) - 1:
            value = math.nan
        elif not e4m3fn and exp == top:
            value = math.inf if man == 0 else math.nan
        elif exp == 0:
            value = math.ldexp(man, 1 - bias - man_bits)
        else:
            value = math.ldexp((1 << man_bits) + man, exp - bias - man_bits)
        table[code] = sign * value if not math.isnan(value) else math.nan
    return table


_FP8_TABLES = {"f8E4M3FN": _fp8_decode_table(4, 3, 7, True),
               "f8E5M2": _fp8_decode_table(5, 2, 15, False)}
# Codes 0..n-1 of non-negative values, increasing.
_FP8_MAGNITUDES = {"f8E4M3FN": _FP8_TABLES["f8E4M3FN"][:0x7F],
                   "f8E5M2": _FP8_TABLES["f8E5M2"][:0x7D]}


def _fp8_encode(x: np.ndarray, name: str) -> np.ndarray:
    """Codes of values already representable in the fp8 format `name`."""
    x = np.asarray(x, dtype=np.float32)
    mags = _FP8_MAGNITUDES[name]
    ax = np.abs(x)
    code = np.searchsorted(mags, np.where(np.isnan(ax), 0, ax)).astype(np.int64)
    code = np.minimum(code, len(mags) - 1)
    code = np.where(np.isnan(ax), 0x7F, code)
    sign = np.signbit(x).astype(np.int64) << 7
    return (code | sign).astype(np.uint8)


def to_bits(data: np.ndarray, elem: _Elem) -> np.ndarray:
    """The raw bits of values of type `elem`, as unsigned integers of its
    width (uint8 for i1 and fp8)."""
    data = np.ascontiguousarray(data)
    name = elem.name
    if elem.kind == "p":
        return data.astype(np.uint64)
    if elem.kind == "i":
        if elem.bits == 1:
            return data.astype(np.uint8)
        return data.view(elem.unsigned_dtype)
    if name == "bf16":
        return (data.astype(np.float32).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    if name in _FP8_TABLES:
        return _fp8_encode(data, name)
    return data.view(_UNSIGNED[elem.bits])


def from_bits(bits: np.ndarray, elem: _Elem) -> np.ndarray:
    bits = np.ascontiguousarray(bits)
    name = elem.name
    if elem.kind == "p":
        return bits.astype(np.uint64)
    if elem.kind == "i":
        if elem.bits == 1:
            return (bits & 1).astype(np.bool_)
        return bits.astype(elem.unsigned_dtype).view(elem.np_dtype)
    if name == "bf16":
        return (bits.astype(np.uint32) << np.uint32(16)).view(np.float32)
    if name in _FP8_TABLES:
        return _FP8_TABLES[name][bits.astype(np.uint8)]
    return bits.astype(_UNSIGNED[elem.bits]).view(elem.np_dtype)


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------


class _Buffer:
    def __init__(self, name: str, lo: int, nbytes: int, itemsize: int, readonly: bool):
        self.name, self.lo, self.nbytes = name, lo, nbytes
        self.hi = lo + nbytes
        self.itemsize, self.readonly = itemsize, readonly


class _Region:
    """A contiguous range of host memory covering one or more arguments."""

    def __init__(self, lo: int, hi: int, readonly: bool):
        self.lo, self.hi, self.readonly = lo, hi, readonly
        raw = (ctypes.c_uint8 * (hi - lo)).from_address(lo)
        self.bytes = np.ctypeslib.as_array(raw)


class _OutOfBounds(Exception):
    def __init__(self, addr: int, lane: int):
        self.addr, self.lane = addr, lane


class _ReadOnly(Exception):
    def __init__(self, addr: int):
        self.addr = addr


class Memory:
    """The memory a kernel can reach: its array arguments."""

    def __init__(self):
        self.buffers: List[_Buffer] = []
        self.regions: List[_Region] = []

    def add(self, name: str, lo: int, nbytes: int, itemsize: int, readonly: bool):
        self.buffers.append(_Buffer(name, lo, nbytes, itemsize, readonly))

    def finalize(self):
        spans = sorted((b.lo, b.hi, b.readonly) for b in self.buffers if b.nbytes > 0)
        merged: List[List] = []
        for lo, hi, ro in spans:
            if merged and lo < merged[-1][1]:  # overlapping arguments alias
                merged[-1][1] = max(merged[-1][1], hi)
                merged[-1][2] = merged[-1][2] and ro
            else:
                merged.append([lo, hi, ro])
        self.regions = [_Region(lo, hi, ro) for lo, hi, ro in merged]
        self._los = np.array([r.lo for r in self.regions], dtype=np.uint64)
        self._his = np.array([r.hi for r in self.regions], dtype=np.uint64)

    def _locate(self, addrs: np.ndarray, size: int) -> np.ndarray:
        """The region of each address, or raise _OutOfBounds for the first
        access that is not entirely inside one."""
        if not self.regions:
            if addrs.size:
                raise _OutOfBounds(int(addrs[0]), 0)
            return np.zeros(0, np.int64)
        idx = np.searchsorted(self._los, addrs, side="right").astype(np.int64) - 1
        safe = np.maximum(idx, 0)
        with np.errstate(all="ignore"):
            end = addrs + np.uint64(size)
        ok = (idx >= 0) & (end <= self._his[safe]) & (end >= addrs)
        if not ok.all():
            lane = int(np.argmin(ok))
            raise _OutOfBounds(int(addrs[lane]), lane)
        return safe

    def _gather_index(self, region: _Region, addrs: np.ndarray, size: int) -> np.ndarray:
        offsets = (addrs - np.uint64(region.lo)).astype(np.int64)
        return offsets[:, None] + np.arange(size, dtype=np.int64)

    def read(self, addrs: np.ndarray, elem: _Elem) -> np.ndarray:
        """Values of type `elem` at each address (1-D uint64)."""
        size = elem.nbytes
        which = self._locate(addrs, size)
        if which.size and (which == which[0]).all():  # the common case: one argument
            region = self.regions[int(which[0])]
            return decode(region.bytes[self._gather_index(region, addrs, size)], elem)
        raw = np.empty((addrs.size, size), np.uint8)
        for r in np.unique(which):
            sel = which == r
            region = self.regions[int(r)]
            raw[sel] = region.bytes[self._gather_index(region, addrs[sel], size)]
        return decode(raw, elem)

    def write(self, addrs: np.ndarray, values: np.ndarray, elem: _Elem):
        """Stores values (in `elem`'s storage) at each address; later lanes
        win where addresses repeat."""
        size = elem.nbytes
        which = self._locate(addrs, size)
        raw = encode(values, elem)
        if which.size and (which == which[0]).all():
            region = self.regions[int(which[0])]
            if region.readonly:
                raise _ReadOnly(int(addrs[0]))
            region.bytes[self._gather_index(region, addrs, size)] = raw
            return
        for r in np.unique(which):
            sel = which == r
            region = self.regions[int(r)]
            if region.readonly:
                raise _ReadOnly(int(addrs[sel][0]))
            region.bytes[self._gather_index(region, addrs[sel], size)] = raw[sel]

    def describe(self, addr: int, size: int) -> str:
        """`at element offset 1003 of a 1000-element buffer (argument 'x')`."""
        if not self.buffers:
            return f"at address 0x{addr:x}: the kernel has no array arguments"
        below = [b for b in self.buffers if b.lo <= addr]
        buf = max(below, key=lambda b: b.lo) if below else min(self.buffers, key=lambda b: b.lo)
        delta = addr - buf.lo
        offset = delta // size if delta % size == 0 else delta / size
        return (f"at element offset {offset} of a {buf.nbytes // size}-element buffer "
                f"(argument '{buf.name}', address 0x{addr:x})")


def decode(raw: np.ndarray, elem: _Elem) -> np.ndarray:
    """(n, nbytes) little-endian bytes -> n values in `elem`'s storage."""
    raw = np.ascontiguousarray(raw)
    if elem.kind == "i" and elem.bits == 1:
        return raw[:, 0] != 0
    bits = raw.view({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[elem.nbytes]).reshape(-1)
    return from_bits(bits.astype(_UNSIGNED[elem.nbytes * 8]), elem)


def encode(values: np.ndarray, elem: _Elem) -> np.ndarray:
    values = np.asarray(values).reshape(-1)
    if elem.kind == "i" and elem.bits == 1:
        return values.astype(np.uint8).reshape(-1, 1)
    bits = to_bits(values, elem).astype({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[elem.nbytes])
    return np.ascontiguousarray(bits).view(np.uint8).reshape(-1, elem.nbytes)


# ---------------------------------------------------------------------------
# Element-wise ops
# ---------------------------------------------------------------------------


def _u(x: np.ndarray, elem: _Elem) -> np.ndarray:
    """Integers reinterpreted as unsigned."""
    x = np.asarray(x)
    if elem.bits == 1:
        return x.astype(np.uint8)
    return x.view(elem.unsigned_dtype)


def _from_u(x: np.ndarray, elem: _Elem) -> np.ndarray:
    x = np.asarray(x)
    if elem.bits == 1:
        return (x & 1).astype(np.bool_)
    return x.astype(elem.unsigned_dtype).view(elem.np_dtype)


def _int_binary(fn, unsigned=False):
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        if relem.bits == 1 or unsigned:
            return _from_u(fn(_u(a, relem), _u(b, relem)), relem)
        return fn(a, b)
    return impl


def _float_binary(fn):
    def impl(ops, relem, props):
        return round_to(fn(ops[0].data, ops[1].data), relem)
    return impl


def _float_unary(fn):
    def impl(ops, relem, props):
        return round_to(fn(ops[0].data), relem)
    return impl


def _shift(kind):
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        width = relem.bits
        bu = _u(b, relem).astype(np.uint64)
        big = bu >= np.uint64(width)
        amount = np.where(big, 0, bu).astype(np.uint64)
        if kind == "shli":
            r = _u(a, relem).astype(np.uint64) << amount
            return np.where(big, 0, _from_u(r, relem))
        if kind == "shrui":
            r = _u(a, relem).astype(np.uint64) >> amount
            return np.where(big, 0, _from_u(r, relem))
        # Arithmetic shift: the sign fills; past the width only the sign is left.
        a64 = a.astype(np.int64)
        r = a64 >> np.minimum(amount, np.uint64(63)).astype(np.int64)
        r = np.where(big, np.where(a64 < 0, -1, 0), r)
        return r.astype(relem.np_dtype) if relem.bits > 1 else (r & 1).astype(np.bool_)
    return impl


def _divsi(ops, relem, props):
    a, b = ops[0].data, ops[1].data
    if relem.bits == 1:
        return _divui(ops, relem, props)
    zero = b == 0
    bs = np.where(zero, 1, b).astype(relem.np_dtype)
    r = np.fmod(a, bs)
    q = ((a - r) // bs).astype(relem.np_dtype)
    return np.where(zero, -1, q)


def _remsi(ops, relem, props):
    a, b = ops[0].data, ops[1].data
    if relem.bits == 1:
        return _remui(ops, relem, props)
    zero = b == 0
    return np.where(zero, a, np.fmod(a, np.where(zero, 1, b).astype(relem.np_dtype)))


def _divui(ops, relem, props):
    a, b = _u(ops[0].data, relem), _u(ops[1].data, relem)
    zero = b == 0
    q = a // np.where(zero, 1, b).astype(a.dtype)
    allones = np.array(-1).astype(np.int64).view(np.uint64).astype(a.dtype) if relem.bits > 1 \
        else np.uint8(1)
    return _from_u(np.where(zero, allones, q), relem)


def _remui(ops, relem, props):
    a, b = _u(ops[0].data, relem), _u(ops[1].data, relem)
    zero = b == 0
    return _from_u(np.where(zero, a, a % np.where(zero, 1, b).astype(a.dtype)), relem)


def _int_arith(fn):
    """add/sub/mul: wrap around; i1 arithmetic is modulo 2."""
    def impl(ops, relem, props):
        a, b = ops[0].data, ops[1].data
        if relem.bits == 1:
            return (fn(a.astype(np.uint8), b.astype(np.uint8)) & 1).astype(np.bool_)
        return fn(a, b)
    return impl


def _fptoi(unsigned: bool):
    def impl(ops, relem, props):
        # Saturating, NaN -> 0: what the GPU's cvt.rzi does.
        t = np.trunc(ops[0].data.astype(np.float64))
        bits = relem.bits
        nan = np.isnan(t)
        if unsigned:
            lo, hi = 0, (1 << bits) - 1
        else:
            lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if bits > 1 else (-1, 0)
        over = t >= float(hi) + 1.0
        under = t < float(lo)
        t = np.where(nan | over | under, 0.0, t)
        if unsigned:
            r = t.astype(np.uint64)
            r = np.where(over, np.uint64(hi), r).astype(np.uint64)
            return _from_u(r, relem)
        r = t.astype(np.int64)
        r = np.where(over, hi, np.where(under, lo, r)).astype(np.int64)
        if bits == 1:
            return (r & 1).astype(np.bool_)
        return r.astype(relem.np_dtype)
    return impl


def _itofp(unsigned: bool):
    def impl(ops, relem, props):
        x, src = ops[0].data, ops[0].elem
        if src.bits == 1:
            x = x.astype(np.int64) * (1 if unsigned else -1)
        elif unsigned:
            x = _u(x, src)
        return round_to(x, relem)
    return impl


def _extsi(ops, relem, props):
    x, src = ops[0].data, ops[0].elem
    if src.bits == 1:
        return np.where(x, -1, 0).astype(relem.np_dtype)
    return x.astype(relem.np_dtype)


def _extui(ops, relem, props):
    x, src = ops[0].data, ops[0].elem
    return _from_u(_u(x, src).astype(relem.unsigned_dtype), relem)


def _trunci(ops, relem, props):
    x = ops[0].data
    if relem.bits == 1:
        return (x & 1).astype(np.bool_)
    return x.astype(relem.np_dtype)


def _truncf(ops, relem, props):
    return round_to(ops[0].data, relem, rtz="toward_zero" in props)


def _fp_to_fp(ops, relem, props):
    m = re.search(r"rounding\s*=\s*(\d+)", props or "")
    return round_to(ops[0].data, relem, rtz=bool(m and int(m.group(1)) == 1))


def _bitcast(ops, relem, props):
    return from_bits(to_bits(ops[0].data, ops[0].elem), relem)


def _fma(ops, relem, props):
    a, b, c = (o.data.astype(np.float64) for o in ops)
    return round_to(a * b + c, relem)


def _erf(x):
    x = np.asarray(x)
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype) \
        if x.size else x


def _rsqrt(x):
    return np.asarray(1, dtype=x.dtype) / np.sqrt(x)


_OPS = {
    "arith.addf": _float_binary(np.add),
    "arith.subf": _float_binary(np.subtract),
    "arith.mulf": _float_binary(np.multiply),
    "arith.divf": _float_binary(np.divide),
    "arith.remf": _float_binary(np.fmod),
    "arith.negf": _float_unary(np.negative),
    "arith.maxnumf": _float_binary(np.fmax),
    "arith.minnumf": _float_binary(np.fmin),
    "arith.maximumf": _float_binary(np.maximum),
    "arith.minimumf": _float_binary(np.minimum),
    "math.absf": _float_unary(np.abs),
    "math.fma": _fma,
    "math.exp": _float_unary(np.exp),
    "math.exp2": _float_unary(np.exp2),
    "math.log": _float_unary(np.log),
    "math.log2": _float_unary(np.log2),
    "math.sqrt": _float_unary(np.sqrt),
    "math.rsqrt": _float_unary(_rsqrt),
    "math.sin": _float_unary(np.sin),
    "math.cos": _float_unary(np.cos),
    "math.erf": _float_unary(_erf),
    "math.floor": _float_unary(np.floor),
    "math.ceil": _float_unary(np.ceil),
    "arith.addi": _int_arith(np.add),
    "arith.subi": _int_arith(np.subtract),
    "arith.muli": _int_arith(np.multiply),
    "arith.andi": _int_binary(np.bitwise_and),
    "arith.ori": _int_binary(np.bitwise_or),
    "arith.xori": _int_binary(np.bitwise_xor),
    "arith.shli": _shift("shli"),
    "arith.shrsi": _shift("shrsi"),
    "arith.shrui": _shift("shrui"),
    "arith.divsi": _divsi,
    "arith.remsi": _remsi,
    "arith.divui": _divui,
    "arith.remui": _remui,
    "arith.maxsi": _int_binary(np.maximum),
    "arith.minsi": _int_binary(np.minimum),
    "arith.maxui": _int_binary(np.maximum, unsigned=True),
    "arith.minui": _int_binary(np.minimum, unsigned=True),
    "math.absi": lambda ops, relem, props: np.abs(ops[0].data),
    "arith.extf": lambda ops, relem, props: round_to(ops[0].data, relem),
    "arith.truncf": _truncf,
    "tile.fp_to_fp": _fp_to_fp,
    "arith.sitofp": _itofp(False),
    "arith.uitofp": _itofp(True),
    "arith.fptosi": _fptoi(False),
    "arith.fptoui": _fptoi(True),
    "arith.extsi": _extsi,
    "arith.extui": _extui,
    "arith.trunci": _trunci,
    "arith.bitcast": _bitcast,
    "tile.bitcast": _bitcast,
    "tile.int_to_ptr": lambda ops, relem, props: np.asarray(ops[0].data).view(np.uint64),
    "tile.ptr_to_int": lambda ops, relem, props: np.asarray(ops[0].data).view(np.int64),
}

_FCMP = {
    0: lambda a, b: np.zeros(np.broadcast(a, b).shape, np.bool_),
    1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less, 5: np.less_equal,
    6: lambda a, b: (a < b) | (a > b),
    7: lambda a, b: ~(np.isnan(a) | np.isnan(b)),
    8: lambda a, b: ~((a < b) | (a > b)),
    9: lambda a, b: ~(a <= b), 10: lambda a, b: ~(a < b),
    11: lambda a, b: ~(a >= b), 12: lambda a, b: ~(a > b),
    13: np.not_equal,
    14: lambda a, b: np.isnan(a) | np.isnan(b),
    15: lambda a, b: np.ones(np.broadcast(a, b).shape, np.bool_),
}
_ICMP = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
         5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater, 9: np.greater_equal}

_RMW_NAMES = {1: "add", 2: "fadd", 3: "and", 4: "or", 5: "xor", 6: "xchg", 7: "max",
              8: "min", 9: "umax", 10: "umin"}


def _occurrence_rank(addrs: np.ndarray) -> np.ndarray:
    """For each lane, how many earlier lanes use the same address."""
    order = np.argsort(addrs, kind="stable")
    sorted_addrs = addrs[order]
    starts = np.ones(addrs.size, np.bool_)
    starts[1:] = sorted_addrs[1:] != sorted_addrs[:-1]
    group_start = np.maximum.accumulate(np.where(starts, np.arange(addrs.size), 0))
    ranks = np.empty(addrs.size, np.int64)
    ranks[order] = np.arange(addrs.size) - group_start
    return ranks


# ---------------------------------------------------------------------------
# The builder
# ---------------------------------------------------------------------------


class InterpreterBuilder:
    """The builder interface of `TextBuilder`, computing on NumPy arrays."""

    interpreting = True

    def __init__(self, jit_fn=None, grid=(1, 1, 1), memory: Optional[Memory] = None,
                 options=None):
        self.jit_fn = jit_fn
        self.grid = tuple(grid) + (1,) * (3 - len(tuple(grid)))
        self.memory = memory if memory is not None else Memory()
        if memory is None:
            self.memory.finalize()
        self.options = options
        self.pid = (0, 0, 0)
        self.loc = ("<unknown>", 0, 0)

    # -- Locations and errors -------------------------------------------

    def set_loc(self, line: int, col: int, filename: Optional[str] = None):
        self.loc = (filename or self.loc[0], line, col)

    def _kernel_frame(self):
        """The innermost frame of kernel code (the kernel or a helper it
        called), skipping warpforge and NumPy."""
        kernel_code = getattr(getattr(self.jit_fn, "fn", None), "__code__", None)
        frame = sys._getframe(1)
        while frame is not None:
            code = frame.f_code
            if code is kernel_code or not _is_library_file(code.co_filename):
                return frame
            frame = frame.f_back
        return None

    def error(self, message: str, cls=InterpreterError) -> InterpreterError:
        frame = self._kernel_frame()
        if frame is None:
            return cls(message, program_id=self.pid)
        return cls(message, frame.f_code.co_filename, frame.f_lineno, self.pid)

    def _memory_error(self, e, what: str, elem: _Elem) -> InterpreterError:
        if isinstance(e, _ReadOnly):
            return self.error(f"{what} into a read-only array "
                              f"{self.memory.describe(e.addr, elem.nbytes)}")
        return self.error(f"out-of-bounds {what} "
                          f"{self.memory.describe(e.addr, elem.nbytes)}")

    def _read(self, addrs, elem, what="load"):
        try:
            return self.memory.read(addrs, elem)
        except _OutOfBounds as e:
            raise self._memory_error(e, what, elem) from None

    def _write(self, addrs, values, elem, what="store"):
        try:
            self.memory.write(addrs, values, elem)
        except (_OutOfBounds, _ReadOnly) as e:
            raise self._memory_error(e, what, elem) from None

    # -- Scalars and constants ------------------------------------------

    def constant(self, value, ir_type: str, elem_type: str) -> TensorHandle:
        shape, elem = parse_type(ir_type)
        if elem.kind == "i":
            if elem.bits == 1:
                data = np.full(shape, bool(value), np.bool_)
            else:
                v = int(value) & ((1 << elem.bits) - 1)
                if v >= 1 << (elem.bits - 1):
                    v -= 1 << elem.bits
                data = np.full(shape, v, elem.np_dtype)
        elif elem.kind == "f":
            data = np.full(shape, round_to(np.float64(float(value)), elem), elem.np_dtype)
        else:
            data = np.full(shape, int(value), np.uint64)
        return TensorHandle(data, elem)

    def op(self, name: str, operands: Sequence[TensorHandle], result_type: str,
           props: str = "") -> TensorHandle:
        impl = _OPS.get(name)
        if impl is None:
            raise NotImplementedError(f"the interpreter does not implement {name}")
        relem = _elem(result_type)
        with np.errstate(all="ignore"):
            data = impl(list(operands), relem, props or "")
        return TensorHandle(data, relem)

    def cmp(self, kind: str, predicate: int, a: TensorHandle, b: TensorHandle,
            result_type: str) -> TensorHandle:
        x, y = a.data, b.data
        with np.errstate(all="ignore"):
            if kind == "f":
                r = _FCMP[predicate](x, y)
            else:
                if predicate >= 6:
                    x, y = _u(x, a.elem), _u(y, b.elem)
                elif a.elem.bits == 1:  # signed i1: true is -1
                    x, y = -x.astype(np.int8), -y.astype(np.int8)
                r = _ICMP[predicate](x, y)
        return TensorHandle(r, _SCALARS["i1"])

    def select(self, c: TensorHandle, a: TensorHandle, b: TensorHandle) -> TensorHandle:
        return TensorHandle(np.where(c.data, a.data, b.data), a.elem)

    # -- tile ops ---------------------------------------------------------

    def program_id(self, axis: int) -> TensorHandle:
        return TensorHandle(np.int32(self.pid[axis]), _SCALARS["i32"])

    def num_programs(self, axis: int) -> TensorHandle:
        return TensorHandle(np.int32(self.grid[axis]), _SCALARS["i32"])

    def make_range(self, start: int, end: int, ir_type: str) -> TensorHandle:
        return TensorHandle(np.arange(start, end, dtype=np.int32), _SCALARS["i32"])

    def splat(self, x: TensorHandle, ir_type: str) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.broadcast_to(x.data, shape), x.elem)

    def broadcast(self, x: TensorHandle, ir_type: str) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.broadcast_to(x.data, shape), x.elem)

    def expand_dims(self, x: TensorHandle, axis: int, ir_type: str) -> TensorHandle:
        return TensorHandle(np.expand_dims(x.data, axis), x.elem)

    def reshape(self, x: TensorHandle, ir_type: str, allow_reorder: bool) -> TensorHandle:
        shape, _ = parse_type(ir_type)
        return TensorHandle(np.reshape(x.data, shape), x.elem)

    def trans(self, x: TensorHandle, order: Sequence[int], ir_type: str) -> TensorHandle:
        return TensorHandle(np.transpose(x.data, list(order)), x.elem)

    def addptr(self, ptr: TensorHandle, offset: TensorHandle) -> TensorHandle:
        size = ptr.elem.pointee.nbytes
        off = np.asarray(offset.data).astype(np.int64) * np.int64(size)
        with np.errstate(all="ignore"):
            data = np.asarray(ptr.data, np.uint64) + np.asarray(off).view(np.uint64)
        return TensorHandle(data, ptr.elem)

    def load(self, ptr: TensorHandle, mask: Optional[TensorHandle],
             other: Optional[TensorHandle], cache: int, evict: int, volatile: bool,
             ir_type: str) -> TensorHandle:
        shape, elem = parse_type(ir_type)
        addrs = np.asarray(ptr.data, np.uint64)
        flat = addrs.reshape(-1)
        if other is not None:
            out = np.array(np.broadcast_to(other.data, addrs.shape), dtype=elem.np_dtype)
            out = out.reshape(-1)
        else:
            out = np.zeros(flat.size, elem.np_dtype)
        if mask is None:
            active = None
        else:
            m = np.broadcast_to(mask.data, addrs.shape).reshape(-1)
            active = np.nonzero(m)[0]
        if active is None:
            out = self._read(flat, elem)
        elif active.size:
            out[active] = self._read(flat[active], elem)
        return TensorHandle(out.reshape(addrs.shape), elem)

    def store(self, ptr: TensorHandle, value: TensorHandle, mask: Optional[TensorHandle],
              cache: int, evict: int):
        addrs = np.asarray(ptr.data, np.uint64)
        flat = addrs.reshape(-1)
        elem = ptr.elem.pointee
        values = np.broadcast_to(value.data, addrs.shape).reshape(-1)
        if mask is not None:
            active = np.nonzero(np.broadcast_to(mask.data, addrs.shape).reshape(-1))[0]
            flat, values = flat[active], values[active]
        if flat.size:
            self._write(flat, values, elem)

    def dot(self, a: TensorHandle, b: TensorHandle, c: TensorHandle, input_precision: int,
            max_imprecise: int) -> TensorHandle:
        celem = c.elem
        with np.errstate(all="ignore"):
            if a.elem.kind == "i":
                r = np.matmul(a.data.astype(np.int64), b.data.astype(np.int64))
                r = (r + c.data.astype(np.int64)).astype(celem.np_dtype)
                return TensorHandle(r, celem)
            x = a.data.astype(np.float32)
            y = b.data.astype(np.float32)
            if input_precision == 1:  # tf32
                prod = np.matmul(_tf32(x).astype(np.float64), _tf32(y).astype(np.float64))
            elif input_precision == 2:  # tf32x3: big*big + big*small + small*big
                xb, yb = _tf32(x), _tf32(y)
                xs, ys = _tf32(x - xb), _tf32(y - yb)
                xb, yb, xs, ys = (v.astype(np.float64) for v in (xb, yb, xs, ys))
                prod = np.matmul(xb, yb) + np.matmul(xb, ys) + np.matmul(xs, yb)
            else:
                prod = np.matmul(x.astype(np.float64), y.astype(np.float64))
            r = prod + c.data.astype(np.float64)
            return TensorHandle(round_to(r, celem), celem)

    # -- Reductions and scans -------------------------------------------

    def _combine(self, combine, elems, lefts, rights):
        args = [TensorHandle(x, e) for x, e in zip(lefts, elems)] + \
               [TensorHandle(x, e) for x, e in zip(rights, elems)]
        outs = combine(args)
        shape = np.broadcast_shapes(*[x.shape for x in lefts])
        return [np.broadcast_to(np.asarray(o.data).astype(e.np_dtype, copy=False), shape)
                for o, e in zip(outs, elems)]

    def reduce(self, srcs: Sequence[TensorHandle], axis: int, elem_types: Sequence[str],
               result_types: Sequence[str], combine) -> List[TensorHandle]:
        elems = [_elem(t) for t in elem_types]
        arrays = [np.moveaxis(np.asarray(s.data), axis, -1) for s in srcs]
        with np.errstate(all="ignore"):
            # A tree of adjacent pairs: keeps the order of the operands.
            while arrays[0].shape[-1] > 1:
                n = arrays[0].shape[-1]
                even = n - n % 2
                outs = self._combine(combine, elems, [a[..., 0:even:2] for a in arrays],
                                     [a[..., 1:even:2] for a in arrays])
                if n % 2:
                    outs = [np.concatenate([o, a[..., n - 1:]], axis=-1)
                            for o, a in zip(outs, arrays)]
                arrays = outs
        return [TensorHandle(np.array(a[..., 0]), e) for a, e in zip(arrays, elems)]

    def scan(self, srcs: Sequence[TensorHandle], axis: int, reverse: bool,
             elem_types: Sequence[str], combine) -> List[TensorHandle]:
        elems = [_elem(t) for t in elem_types]
        arrays = [np.moveaxis(np.asarray(s.data), axis, -1) for s in srcs]
        if reverse:
            arrays = [np.flip(a, -1) for a in arrays]
        n = arrays[0].shape[-1]
        d = 1
        with np.errstate(all="ignore"):
            # Hillis-Steele: after the step of distance d, element i holds the
            # combination of the (up to) 2d elements ending at i, in order.
            while d < n:
                outs = self._combine(combine, elems, [a[..., :n - d] for a in arrays],
                                     [a[..., d:] for a in arrays])
                arrays = [np.concatenate([a[..., :d], o], axis=-1)
                          for a, o in zip(arrays, outs)]
                d *= 2
        if reverse:
            arrays = [np.flip(a, -1) for a in arrays]
        return [TensorHandle(np.ascontiguousarray(np.moveaxis(a, -1, axis)), e)
                for a, e in zip(arrays, elems)]

    # -- Atomics ----------------------------------------------------------

    def _rmw_apply(self, kind: str, elem: _Elem, cur: np.ndarray, val: np.ndarray):
        ops = [TensorHandle(cur, elem), TensorHandle(val, elem)]
        with np.errstate(all="ignore"):
            if kind == "fadd":
                return _OPS["arith.addf"](ops, elem, "")
            if kind == "xchg":
                return val
            name = {"add": "arith.addi", "and": "arith.andi", "or": "arith.ori",
                    "xor": "arith.xori", "max": "arith.maxsi", "min": "arith.minsi",
                    "umax": "arith.maxui", "umin": "arith.minui"}[kind]
            return _OPS[name](ops, elem, "")

    def _atomic(self, ptr: TensorHandle, mask, values, update, elem: _Elem, what: str):
        """Applies `update(current, lane values...) -> new` lane by lane in
        order (lanes on distinct addresses at once); returns the old values."""
        addrs = np.asarray(ptr.data, np.uint64)
        shape = addrs.shape
        flat = addrs.reshape(-1)
        vals = [np.broadcast_to(v, shape).reshape(-1) for v in values]
        old = np.zeros(flat.size, elem.np_dtype)
        if mask is None:
            active = np.arange(flat.size)
        else:
            active = np.nonzero(np.broadcast_to(mask.data, shape).reshape(-1))[0]
        if active.size:
            a_addr = flat[active]
            ranks = _occurrence_rank(a_addr)
            for r in range(int(ranks.max()) + 1):
                sel = np.nonzero(ranks == r)[0]
                lanes = active[sel]
                cur = self._read(a_addr[sel], elem, what)
                new = update(cur, *[v[lanes] for v in vals])
                self._write(a_addr[sel], np.asarray(new, elem.np_dtype), elem, what)
                old[lanes] = cur
        return TensorHandle(old.reshape(shape), elem)

    def atomic_rmw(self, rmw: int, sem: int, scope: int, ptr: TensorHandle,
                   val: TensorHandle, mask: Optional[TensorHandle]) -> TensorHandle:
        kind = _RMW_NAMES[rmw]
        elem = ptr.elem.pointee
        return self._atomic(ptr, mask, [val.data],
                            lambda cur, v: self._rmw_apply(kind, elem, cur, v), elem,
                            f"atomic_{kind}")

    def atomic_cas(self, sem: int, scope: int, ptr: TensorHandle, cmp: TensorHandle,
                   val: TensorHandle) -> TensorHandle:
        elem = ptr.elem.pointee

        def update(cur, c, v):
            equal = to_bits(cur, elem) == to_bits(c, elem)
            return np.where(equal, v, cur)
        return self._atomic(ptr, None, [cmp.data, val.data], update, elem, "atomic_cas")

    # -- Tensor descriptors ------------------------------------------------

    def make_tensor_descriptor(self, base: TensorHandle, shape: Sequence[TensorHandle],
                               strides: Sequence[TensorHandle], ir_type: str) -> TensorHandle:
        _, delem = parse_type(ir_type)
        block_shape, elem = delem.block
        desc = _Descriptor(int(base.data), [int(s.data) for s in shape],
                           [int(s.data) for s in strides], block_shape, elem)
        return TensorHandle(desc, delem)

    def _desc_lanes(self, desc: _Descriptor, offsets: Sequence[TensorHandle]):
        """Addresses of a block's elements and which are inside the tensor."""
        rank = len(desc.block_shape)
        inside = np.ones(desc.block_shape, np.bool_)
        index = np.zeros(desc.block_shape, np.int64)
        for d, (off, size) in enumerate(zip(offsets, desc.block_shape)):
            coord = int(off.data) + np.arange(size, dtype=np.int64)
            view = [1] * rank
            view[d] = size
            coord = coord.reshape(view)
            inside = inside & (coord >= 0) & (coord < desc.shape[d])
            index = index + coord * desc.strides[d]
        with np.errstate(all="ignore"):
            addrs = np.uint64(desc.base) + (index * desc.elem.nbytes).view(np.uint64)
        return addrs, inside

    def descriptor_load(self, desc: TensorHandle, offsets: Sequence[TensorHandle],
                        ir_type: str) -> TensorHandle:
        d = desc.data
        addrs, inside = self._desc_lanes(d, offsets)
        out = np.zeros(addrs.size, d.elem.np_dtype)
        active = np.nonzero(inside.reshape(-1))[0]
        if active.size:
            out[active] = self._read(addrs.reshape(-1)[active], d.elem, "descriptor load")
        return TensorHandle(out.reshape(d.block_shape), d.elem)

    def descriptor_store(self, desc: TensorHandle, offsets: Sequence[TensorHandle],
                         value: TensorHandle):
        d = desc.data
        addrs, inside = self._desc_lanes(d, offsets)
        active = np.nonzero(inside.reshape(-1))[0]
        if active.size:
            values = np.broadcast_to(value.data, d.block_shape).reshape(-1)
            self._write(addrs.reshape(-1)[active], values[active], d.elem, "descriptor store")

    # -- Debugging ----------------------------------------------------------

    def hint(self, value, attr, values) -> bool:
        # A promise for the compiler's analysis; it does not change values.
        return True

    def debug_barrier(self):
        # Each op runs for the whole program at once here, so every thread's
        # earlier accesses are already done: the barrier has nothing to wait for.
        return None

    def device_assert(self, cond: TensorHandle, message: str):
        data = np.asarray(cond.data)
        if data.all():
            return
        text = "device assertion failed"
        if message:
            text += f": {message}"
        if data.ndim:
            bad = tuple(int(i) for i in np.argwhere(~data.astype(np.bool_))[0])
            text += f" (first failing element at index {list(bad)})"
        raise self.error(text, DeviceAssertionError)

    def device_print(self, prefix: str, args: Sequence[TensorHandle], hex: bool,
                     signed: Sequence[int]):
        parts = []
        for h, s in zip(args, signed):
            data = np.asarray(h.data)
            if h.elem.kind == "i" and not s:
                data = _u(data, h.elem)
            if hex:
                bits = to_bits(data, h.elem) if h.elem.kind != "i" else _u(data, h.elem)
                text = np.array2string(np.asarray(bits),
                                       formatter={"int": lambda v: "0x%x" % v}) \
                    if bits.ndim else "0x%x" % int(bits)
            else:
                text = np.array2string(data) if data.ndim else str(data[()])
            parts.append(text)
        print(f"pid ({self.pid[0]}, {self.pid[1]}, {self.pid[2]}) {prefix}" + " ".join(parts))

    # -- Calls and Python control flow --------------------------------------

    def call_function(self, fn, args, kwargs=None):
        from .jit import JITFunction
        fn = fn.value if isinstance(fn, constexpr) else fn
        kwargs = kwargs or {}
        if isinstance(fn, JITFunction):
            return fn.fn(*args, **kwargs)
        return fn(*args, **kwargs)

    def to_bool(self, t) -> bool:
        data = np.asarray(t.handle.data)
        if t.type.is_block() or data.size != 1:
            raise SemanticError(f"a tensor of shape {list(t.shape)} has no single truth "
                                "value; reduce it (tl.max, tl.sum, ...) or use tl.where")
        return bool(data.reshape(()))

    def to_int(self, t) -> int:
        data = np.asarray(t.handle.data)
        if t.type.is_block() or data.size != 1:
            raise SemanticError(f"a tensor of shape {list(t.shape)} cannot be used as "
                                "an integer")
        if not t.dtype.is_int():
            raise TypeError(f"a {t.dtype} value cannot be used as an integer")
        data = data.reshape(())
        if t.dtype.is_int_unsigned():
            data = _u(data, t.handle.elem)
        return int(data)


def _is_library_file(filename: str) -> bool:
    path = os.path.abspath(filename)
    return (path.startswith(_PACKAGE_DIR + os.sep) or path.startswith(_NUMPY_DIR + os.sep)
            or filename.startswith(("<frozen", "<launcher of")))


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
        return constexpr(value)
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
    type_name = _pointer_dtype_name(value)
    if type_name is None:
        raise TypeError(f"{jit_fn.__name__}: argument '{name}' of type "
                        f"{type(value).__name__} is not a tensor, an array, a Python "
                        "scalar or a tl.constexpr")
    addr, lo, nbytes, itemsize, readonly = _array_span(value)
    memory.add(name, lo, nbytes, itemsize, readonly)
    ptype = core.dtype_from_name(type_name)
    elem = _elem(ptype.to_ir())
    return tensor(TensorHandle(np.uint64(addr), elem), ptype)


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
                        jit_fn.fn(*args, **kwargs)
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
    return None
