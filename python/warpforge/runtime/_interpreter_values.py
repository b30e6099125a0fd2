"""The interpreter's value and memory model.

Element types (`_Elem`, parsed from IR type strings by `parse_type`), the
values the interpreter computes on (`TensorHandle`, tensor descriptors), the
floating-point formats NumPy lacks (bf16, fp8: rounding, raw bits), and the
memory of the kernel's array arguments (`Memory`), which loads and stores
read and write in place. See `warpforge.runtime.interpreter` for the
overview.
"""

from __future__ import annotations

import ctypes
import functools
import math
import re
from typing import List, Tuple

import numpy as np


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

    # `origin`: for pointers derived from one array argument, (its name, its
    # first byte, one past its last byte): accesses through them must stay
    # inside it, as on the GPU where a neighbouring allocation is not
    # guaranteed to be there.  None when unknown (made from an integer).
    __slots__ = ("data", "elem", "origin")

    def __init__(self, data, elem: _Elem, origin=None):
        self.origin = origin
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
                 block_shape: Tuple[int, ...], elem: _Elem, padding: str = "zero"):
        self.base, self.shape, self.strides = base, shape, strides
        self.block_shape, self.elem = block_shape, elem
        # What a load reads outside the tensor: zeros, or NaNs (host
        # descriptors made with padding="nan").
        self.padding = padding

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
    x = np.asarray(x, dtype=np.float32, order="C")
    u = x.view(np.uint32)
    with np.errstate(all="ignore"):
        r = (u + np.uint32(0xFFF) + ((u >> np.uint32(13)) & np.uint32(1))) & np.uint32(0xFFFFE000)
    r = np.where(np.isfinite(x), r, u)
    return r.astype(np.uint32).view(np.float32)


def _bf16_from_f32(x: np.ndarray, rtz: bool) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32, order="C")
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
    data = np.asarray(data, order="C")
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
    bits = np.asarray(bits, order="C")
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
        """`at element offset 1003 of a 1000-element buffer (argument 'x')`
        for an access just outside an argument's buffer; an address far from
        every buffer is said to be inside none (blaming the nearest buffer
        would mislead: such addresses usually come from pointers loaded from
        memory, into arrays the kernel was not given)."""
        if not self.buffers:
            return f"at address 0x{addr:x}: the kernel has no array arguments"

        def distance(b):
            return b.lo - addr if addr < b.lo else max(addr + size - b.hi, 0)
        buf = min(self.buffers, key=distance)
        if distance(buf) <= buf.nbytes:  # an overrun (or underrun) of this one
            delta = addr - buf.lo
            offset = delta // size if delta % size == 0 else delta / size
            return (f"at element offset {offset} of a {buf.nbytes // size}-element buffer "
                    f"(argument '{buf.name}', address 0x{addr:x})")
        names = ", ".join(f"'{b.name}'" for b in self.buffers)
        return (f"at address 0x{addr:x}, which is inside no array argument ({names}); a "
                "pointer loaded from memory (a pointer array, as in a grouped GEMM) can only "
                "reach arrays that are also passed to the kernel as arguments in the "
                "interpreter")


def decode(raw: np.ndarray, elem: _Elem) -> np.ndarray:
    """(n, nbytes) little-endian bytes -> n values in `elem`'s storage."""
    raw = np.asarray(raw, order="C")
    if elem.kind == "i" and elem.bits == 1:
        return raw[:, 0] != 0
    bits = raw.view({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[elem.nbytes]).reshape(-1)
    return from_bits(bits.astype(_UNSIGNED[elem.nbytes * 8]), elem)


def encode(values: np.ndarray, elem: _Elem) -> np.ndarray:
    values = np.asarray(values).reshape(-1)
    if elem.kind == "i" and elem.bits == 1:
        return values.astype(np.uint8).reshape(-1, 1)
    bits = to_bits(values, elem).astype({1: "<u1", 2: "<u2", 4: "<u4", 8: "<u8"}[elem.nbytes])
    return np.asarray(bits, order="C").view(np.uint8).reshape(-1, elem.nbytes)
