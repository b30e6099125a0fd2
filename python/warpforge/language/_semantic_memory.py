"""The meaning of the memory operations: loads and stores (cache and
eviction hints), atomics, and tensor descriptors (TMA block loads and
stores). `warpforge.language.semantic` re-exports the public names.
"""

from __future__ import annotations

from typing import List

from . import core
from .core import block_type, pointer_type, tensor, tensor_descriptor_type
from ._semantic_arith import cast, greater_equal, logical_and, logical_not, where
from ._semantic_shapes import (_lift_rank, broadcast_pair, broadcast_to, checked_block_type,
                              validate_block_shape)
from ._semantic_types import SemanticError, _b, _op, _result_type, to_tensor, unwrap


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------

_CACHE = {None: 1, "": 1, ".ca": 2, ".cg": 3, ".wb": 4, ".cs": 5, ".wt": 6, ".cv": 7}
_EVICT = {None: 1, "": 1, "evict_normal": 1, "evict_first": 2, "evict_last": 3}


def _cache(modifier, allowed) -> int:
    modifier = unwrap(modifier)
    if modifier not in allowed or modifier not in _CACHE:
        raise SemanticError(f"cache_modifier {modifier!r} is not one of "
                            f"{sorted(m for m in allowed if m)}")
    return _CACHE[modifier]


def _evict(policy) -> int:
    policy = unwrap(policy)
    if policy not in _EVICT:
        raise SemanticError(f"eviction_policy {policy!r} is not one of "
                            "'evict_normal', 'evict_first', 'evict_last'")
    return _EVICT[policy]


def _check_pointer(ptr, what: str) -> tensor:
    ptr = to_tensor(ptr)
    if not ptr.dtype.is_ptr():
        raise SemanticError(f"{what} needs a pointer or a tensor of pointers, got {ptr.dtype}")
    return ptr


def _bool_pointer_as_int8(ptr: tensor) -> tensor:
    # i1 is not addressable: booleans live in memory as bytes.
    ty = pointer_type(core.int8, ptr.dtype.address_space)
    return _op("tile.bitcast", [ptr], _result_type(ptr, ty))


def load(ptr, mask=None, other=None, cache_modifier="", eviction_policy="",
         volatile=False) -> tensor:
    ptr = _check_pointer(ptr, "tl.load")
    mask, other = unwrap(mask), unwrap(other)
    if mask is None and other is not None:
        raise SemanticError("tl.load: `other` needs a `mask` (it gives the value of "
                            "masked-off elements)")
    elem = ptr.dtype.element_ty
    is_bool = elem.is_bool()
    if is_bool:
        ptr, elem = _bool_pointer_as_int8(ptr), core.int8
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        ptr, mask = broadcast_pair(ptr, mask)
    if other is not None:
        other = cast(to_tensor(other, elem), elem)
        other = broadcast_to(other, ptr.shape) if ptr.shape else other
    rt = _result_type(ptr, elem)
    cache = _cache(cache_modifier, (None, "", ".ca", ".cg", ".cv"))
    handle = _b().load(ptr.handle, mask.handle if mask is not None else None,
                       other.handle if other is not None else None, cache,
                       _evict(eviction_policy), bool(unwrap(volatile)), rt.to_ir())
    out = tensor(handle, rt)
    return cast(out, core.int1) if is_bool else out


def store(ptr, value, mask=None, cache_modifier="", eviction_policy="") -> None:
    ptr = _check_pointer(ptr, "tl.store")
    if getattr(ptr.dtype, "const", False):
        raise SemanticError("Cannot store to a constant pointer (a tl.const parameter, "
                            "or one derived from it)")
    elem = ptr.dtype.element_ty
    if elem.is_bool():
        ptr, elem = _bool_pointer_as_int8(ptr), core.int8
    value = to_tensor(value, elem)
    if value.type.is_block() and not ptr.type.is_block():
        ptr = broadcast_to(ptr, value.shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        ptr, mask = broadcast_pair(ptr, mask)
    value = cast(value, elem)
    if ptr.shape:
        value = broadcast_to(_lift_rank(value, len(ptr.shape)), ptr.shape)
    elif value.shape:
        raise SemanticError("tl.store: a block of values needs a block of pointers")
    cache = _cache(cache_modifier, (None, "", ".wb", ".cg", ".cs", ".wt"))
    _b().store(ptr.handle, value.handle, mask.handle if mask is not None else None,
               cache, _evict(eviction_policy))


_RMW = {"add": 1, "fadd": 2, "and": 3, "or": 4, "xor": 5, "xchg": 6, "max": 7, "min": 8,
        "umax": 9, "umin": 10}
_SEM = {"relaxed": 1, "acquire": 2, "release": 3, "acq_rel": 4}
_SCOPE = {"gpu": 1, "cta": 2, "sys": 3}


def _atomic_args(ptr, val, mask, sem, scope):
    ptr = _check_pointer(ptr, "atomic operations")
    elem = ptr.dtype.element_ty
    val = cast(to_tensor(val, elem), elem)
    if val.shape and not ptr.shape:
        ptr = broadcast_to(ptr, val.shape)
    if ptr.shape:
        val = broadcast_to(_lift_rank(val, len(ptr.shape)), ptr.shape)
    mask = unwrap(mask)
    if mask is not None:
        mask = cast(to_tensor(mask), core.int1)
        mask = broadcast_to(_lift_rank(mask, len(ptr.shape)), ptr.shape) if ptr.shape else mask
    sem, scope = unwrap(sem) or "acq_rel", unwrap(scope) or "gpu"
    if sem not in _SEM:
        raise SemanticError(f"sem must be one of {list(_SEM)}, got {sem!r}")
    if scope not in _SCOPE:
        raise SemanticError(f"scope must be one of {list(_SCOPE)}, got {scope!r}")
    return ptr, val, mask, _SEM[sem], _SCOPE[scope]


def _check_atomic_type(kind: str, elem) -> None:
    """The element types tile.atomic_rmw takes (its verifier's rules, here
    so that the interpreter rejects what the compiler does), in Triton's
    words: integer atomics on 32 and 64 bits, float add on fp16, bf16, fp32
    and fp64, exchange of 32- and 64-bit values, float max and min on fp32
    and fp64 (built from integer atomics)."""
    bits = elem.primitive_bitwidth
    if elem.is_floating():
        ok = {"add": bits in (16, 32, 64) and not elem.is_fp8(),
              "xchg": bits in (32, 64), "max": bits in (32, 64), "min": bits in (32, 64)}
        if ok.get(kind, False):
            return
        need = {"add": "fp16, bf16, fp32 or fp64", "xchg": "32- or 64-bit values",
                "max": "fp32 or fp64", "min": "fp32 or fp64"}.get(kind, "integers")
    else:
        if bits in (32, 64):
            return
        need = "32- or 64-bit integers" if kind != "xchg" else "32- or 64-bit values"
    raise SemanticError(f"atomic_{kind} does not support {elem}: it needs {need}")


def atomic_rmw(kind: str, ptr, val, mask=None, sem=None, scope=None) -> tensor:
    ptr, val, mask, sem, scope = _atomic_args(ptr, val, mask, sem, scope)
    elem = val.dtype
    _check_atomic_type(kind, elem)
    if kind == "add" and elem.is_floating():
        kind = "fadd"
    elif kind in ("max", "min") and elem.is_int_unsigned():
        kind = "u" + kind
    elif kind in ("max", "min") and elem.is_floating():
        return _float_atomic_minmax(kind, ptr, val, mask, sem, scope)
    handle = _b().atomic_rmw(_RMW[kind], sem, scope, ptr.handle, val.handle,
                             mask.handle if mask is not None else None)
    return tensor(handle, val.type)


def _float_atomic_minmax(kind, ptr, val, mask, sem, scope) -> tensor:
    """Float max/min from integer atomics (as Triton does): for values >= 0
    the float order is the signed-integer order of their bits; for negative
    values it is the reverse unsigned order."""
    elem = val.dtype
    if elem.primitive_bitwidth not in (32, 64):
        raise SemanticError(f"atomic_{kind} on floats needs fp32 or fp64, got {elem}")
    ity = core.dtype(f"int{elem.primitive_bitwidth}")
    uty = core.dtype(f"uint{elem.primitive_bitwidth}")
    iptr = cast(ptr, pointer_type(ity), bitcast=True)
    ival = cast(val, ity, bitcast=True)
    # The sign bit decides (val >= 0.0 would send -0.0 down the wrong path).
    nonneg = greater_equal(ival, 0)
    neg = logical_not(nonneg)
    m_pos = nonneg if mask is None else logical_and(mask, nonneg)
    m_neg = neg if mask is None else logical_and(mask, neg)
    first, second = ("max", "umin") if kind == "max" else ("min", "umax")
    pos = tensor(_b().atomic_rmw(_RMW[first], sem, scope, iptr.handle, ival.handle,
                                 m_pos.handle), ival.type)
    negr = tensor(_b().atomic_rmw(_RMW[second], sem, scope, iptr.handle,
                                  ival.handle, m_neg.handle), ival.type)
    old = where(nonneg, pos, negr)
    del uty
    return cast(old, elem, bitcast=True)


def atomic_cas(ptr, cmp, val, sem=None, scope=None) -> tensor:
    ptr, val, _, sem, scope = _atomic_args(ptr, val, None, sem, scope)
    cmp = cast(to_tensor(cmp, val.dtype), val.dtype)
    if ptr.shape:
        cmp = broadcast_to(_lift_rank(cmp, len(ptr.shape)), ptr.shape)
    return tensor(_b().atomic_cas(sem, scope, ptr.handle, cmp.handle, val.handle), val.type)


# ---------------------------------------------------------------------------
# Tensor descriptors
# ---------------------------------------------------------------------------


def make_tensor_descriptor(base, shape, strides, block_shape) -> tensor:
    base = _check_pointer(base, "make_tensor_descriptor")
    if base.type.is_block():
        raise SemanticError("make_tensor_descriptor needs a scalar base pointer")
    shape, strides, block_shape = list(shape), list(strides), [int(unwrap(s)) for s in block_shape]
    if not (len(shape) == len(strides) == len(block_shape)):
        raise SemanticError(f"make_tensor_descriptor: shape ({len(shape)}), strides "
                            f"({len(strides)}) and block_shape ({len(block_shape)}) "
                            "need one entry per dimension")
    validate_block_shape(block_shape)
    elem = base.dtype.element_ty
    last = unwrap(strides[-1])
    if isinstance(last, int) and last != 1:
        raise SemanticError(f"the last stride of a tensor descriptor must be 1, got {last}")
    inner_bytes = block_shape[-1] * elem.primitive_bitwidth // 8
    if inner_bytes % 16:
        # Triton's words first (its tests match them), then the TMA's rule.
        raise SemanticError(f"Descriptor block shape must have at least 16 bytes in the last "
                            f"dimension: the innermost block dimension spans {inner_bytes} "
                            "bytes; TMA needs a multiple of 16 bytes")
    elem_bytes = max(elem.primitive_bitwidth // 8, 1)
    for d, s in enumerate(strides[:-1]):
        s = unwrap(s)
        if isinstance(s, int) and (s <= 0 or (s * elem_bytes) % 16):
            raise SemanticError(f"make_tensor_descriptor: stride {s} of dimension {d} is "
                                f"{s * elem_bytes} bytes; the TMA needs a positive multiple of 16")
    shape = [cast(to_tensor(s), core.int32) for s in shape]
    strides = [cast(to_tensor(s), core.int64) for s in strides]
    dty = tensor_descriptor_type(block_type(elem, block_shape))
    handle = _b().make_tensor_descriptor(base.handle, [s.handle for s in shape],
                                         [s.handle for s in strides], dty.to_ir())
    return tensor(handle, dty)


def _desc_offsets(desc: tensor, offsets) -> List:
    rank = len(desc.type.block_type.shape)
    offsets = list(offsets)
    if len(offsets) != rank:
        raise SemanticError(f"a rank-{rank} descriptor needs {rank} offsets, got {len(offsets)}")
    return [cast(to_tensor(o), core.int32).handle for o in offsets]


def descriptor_load(desc: tensor, offsets) -> tensor:
    # A host descriptor's block shape was not checked in the kernel.
    bt = checked_block_type(desc.type.block_type.element_ty, desc.type.block_type.shape)
    return tensor(_b().descriptor_load(desc.handle, _desc_offsets(desc, offsets), bt.to_ir()), bt)


def descriptor_store(desc: tensor, value, offsets) -> None:
    bt = desc.type.block_type
    value = broadcast_to(cast(to_tensor(value, bt.element_ty), bt.element_ty), bt.shape)
    _b().descriptor_store(desc.handle, _desc_offsets(desc, offsets), value.handle)


# Reductions through a descriptor: Tile_DescriptorReduceKind's numbering, and
# the element types cp.reduce.async.bulk.tensor takes for each (as Triton
# 3.6 allows them; unsigned min and max are not supported: a tensor map
# made on the device holds integers as signed).
DESCRIPTOR_REDUCE_KINDS = {"add": 0, "min": 1, "max": 2, "and": 3, "or": 4, "xor": 5}
_DESCRIPTOR_REDUCE_TYPES = {
    "add": ("fp32", "fp16", "bf16", "int32", "uint32", "int64", "uint64"),
    "min": ("fp16", "bf16", "int32", "int64"),
    "max": ("fp16", "bf16", "int32", "int64"),
    "and": ("int32", "uint32", "int64", "uint64"),
    "or": ("int32", "uint32", "int64", "uint64"),
    "xor": ("int32", "uint32", "int64", "uint64"),
}


def descriptor_reduce(kind: str, desc: tensor, value, offsets) -> None:
    bt = desc.type.block_type
    allowed = _DESCRIPTOR_REDUCE_TYPES[kind]
    if bt.element_ty.name not in allowed:
        raise SemanticError(f"desc.atomic_{kind}: the TMA reduces {', '.join(allowed)} with "
                            f"{kind}, not {bt.element_ty.name}")
    value = broadcast_to(cast(to_tensor(value, bt.element_ty), bt.element_ty), bt.shape)
    _b().descriptor_reduce(DESCRIPTOR_REDUCE_KINDS[kind], desc.handle,
                           _desc_offsets(desc, offsets), value.handle)
