"""The meaning of `tl.dot`, the reductions and scans (built-in and with a
combine function), and the hint and debugging operations (`multiple_of`,
`debug_barrier`, `device_assert`, `device_print`).
`warpforge.language.semantic` re-exports the public names.
"""

from __future__ import annotations

from . import core
from .core import block_type, dtype, tensor
from ._semantic_arith import (add, and_, arange, cast, equal, full, greater_than, less_than,
                              logical_and, logical_or, maximum, minimum, mul, sub, where,
                              xor_)
from ._semantic_shapes import broadcast_pair, broadcast_to, expand_dims, reshape
from ._semantic_types import SemanticError, _b, to_tensor, unwrap


# ---------------------------------------------------------------------------
# dot
# ---------------------------------------------------------------------------

_PRECISION = {"ieee": 0, "tf32": 1, "tf32x3": 2}
# float32 products from bfloat16 pieces, as Triton 3.6's input precisions:
# the pieces' products taken (x: a's piece, y: b's), smallest terms first so
# that they add up before the large one rounds them away.
_BF16_SPLITS = {"bf16x3": (2, ((1, 0), (0, 1), (0, 0))),
                "bf16x6": (3, ((2, 0), (1, 1), (0, 2), (1, 0), (0, 1), (0, 0)))}


def _bf16_pieces(x: tensor, count: int):
    """x (float32) as `count` bfloat16 values whose sum is x to 8 * count
    bits: each piece is what the ones before it left, rounded."""
    pieces = []
    rest = x
    for i in range(count):
        piece = cast(rest, core.bfloat16)
        pieces.append(piece)
        if i + 1 < count:
            rest = sub(rest, cast(piece, core.float32))
    return pieces


def _tf32_pieces(x: tensor):
    """x (float32) as big + small: big is x cut to tf32's 10 mantissa bits
    (exactly representable in tf32), small = x - big (exact in float32; the
    tensor cores read its own top 10 bits)."""
    bits = cast(x, core.int32, bitcast=True)
    big = cast(and_(bits, full(list(x.shape), -8192, core.int32)), core.float32, bitcast=True)
    return big, sub(x, big)


def dot(a, b, acc=None, input_precision=None, allow_tf32=None,
        max_num_imprecise_acc=None, out_dtype=core.float32) -> tensor:
    a, b = to_tensor(a), to_tensor(b)
    if len(a.shape) < 2 or len(b.shape) != len(a.shape):
        raise SemanticError(f"tl.dot needs two tensors of the same rank, 2-D or batched "
                            f"(3-D and up), got shapes {list(a.shape)} and {list(b.shape)}")
    if len(a.shape) > 3:
        # Leading dimensions are batches: one 3-D batched product over their
        # product, shaped back (row-major, so no element moves).
        if list(a.shape[:-2]) != list(b.shape[:-2]):
            raise SemanticError(f"tl.dot: the batch dimensions differ: {list(a.shape[:-2])} "
                                f"and {list(b.shape[:-2])}")
        batch = list(a.shape[:-2])
        size = 1
        for d in batch:
            size *= d
        acc3 = None
        if unwrap(acc) is not None:
            acc = to_tensor(unwrap(acc))
            acc3 = reshape(acc, [size] + list(acc.shape[-2:]))
        out = dot(reshape(a, [size] + list(a.shape[-2:])), reshape(b, [size] + list(b.shape[-2:])),
                  acc3, input_precision, allow_tf32, max_num_imprecise_acc, out_dtype)
        return reshape(out, batch + list(out.shape[-2:]))
    split = _BF16_SPLITS.get(unwrap(input_precision))
    if split is not None and to_tensor(a).dtype.name == "fp32":
        count, terms = split
        xs, ys = _bf16_pieces(a, count), _bf16_pieces(b, count)
        for i, j in terms:
            acc = dot(xs[i], ys[j], acc, "ieee", None, None, core.float32)
        return acc
    if unwrap(input_precision) == "tf32x3" and to_tensor(a).dtype.name == "fp32" and \
            to_tensor(b).dtype.name == "fp32" and a.shape[-1] == b.shape[-2]:
        # Triton's 3xTF32: three tf32 products of the pieces, the small
        # terms first, so that the tensor cores take them (wgmma or
        # mma.sync) at about float32's accuracy.
        (xb, xs), (yb, ys) = _tf32_pieces(a), _tf32_pieces(b)
        for x, y in ((xb, ys), (xs, yb), (xb, yb)):
            acc = dot(x, y, acc, "tf32", None, None, core.float32)
        return acc
    m, k = a.shape[-2:]
    kb, n = b.shape[-2:]
    if k != kb:
        raise SemanticError(f"tl.dot: the inner dimensions differ: a is {m}x{k}, b is {kb}x{n}")
    # Any size: what wgmma cannot take (tiles below its instructions, fewer
    # than 4 warps, fp64, float32 with ieee precision) runs on the CUDA
    # cores (FMA), as Triton's interpreter and its FMA path allow.
    ea, eb = a.dtype, b.dtype
    if ea != eb and not (ea.is_fp8() and eb.is_fp8()):
        raise SemanticError(f"tl.dot: operand types differ ({ea} and {eb}); only fp8 "
                            "kinds may be mixed")
    if ea.name not in ("fp16", "bf16", "fp32", "fp64", "fp8e4nv", "fp8e5", "int8"):
        raise SemanticError(f"tl.dot does not support {ea} operands; use float16, "
                            "bfloat16, float8e4nv, float8e5, float32, float64 or int8")
    out_dtype = unwrap(out_dtype)
    if ea.is_int():
        out_dtype = core.int32
    elif ea.name == "fp64":
        # As in Triton: float64 products accumulate in float64.
        out_dtype = core.float64
    precision = unwrap(input_precision)
    if precision is None:
        precision = "ieee" if unwrap(allow_tf32) is False else "tf32"
    if precision not in _PRECISION and precision not in _BF16_SPLITS:
        raise SemanticError(f"input_precision must be one of "
                            f"{list(_PRECISION) + list(_BF16_SPLITS)}, got {precision!r}")
    if not ea.is_floating() or ea.name != "fp32":
        precision = "ieee"
    shape = list(a.shape[:-1]) + [n]
    acc = unwrap(acc)
    if acc is None:
        allowed = {"fp16": ("fp32", "fp16"), "fp8e4nv": ("fp32", "fp16"), "fp8e5": ("fp32", "fp16"),
                   "bf16": ("fp32",), "fp32": ("fp32",), "fp64": ("fp64",),
                   "int8": ("int32",)}[ea.name]
        if out_dtype.name not in allowed:
            raise SemanticError(f"tl.dot of {ea} operands accumulates in "
                                f"{' or '.join(allowed)}, not {out_dtype}")
        acc = full(shape, 0, out_dtype)
    else:
        acc = to_tensor(acc)
        if list(acc.shape) != shape:
            raise SemanticError(f"tl.dot: acc has shape {list(acc.shape)}, expected {shape}")
    imprecise = unwrap(max_num_imprecise_acc)
    if imprecise is None:
        imprecise = 0
    handle = _b().dot(a.handle, b.handle, acc.handle, _PRECISION[precision], int(imprecise))
    return tensor(handle, acc.type)


# ---------------------------------------------------------------------------
# Reductions and scans
# ---------------------------------------------------------------------------


def _normalize_axis(axis, rank: int) -> int:
    axis = int(unwrap(axis))
    if axis < -rank or axis >= rank:
        raise SemanticError(f"axis {axis} is out of range for a rank-{rank} tensor")
    return axis % rank


def reduce(inputs, axis, combine, keep_dims=False) -> tuple:
    """`combine` maps 2N scalar tensors (lefts then rights) to N tensors."""
    inputs = [to_tensor(x) for x in inputs]
    if axis is None or unwrap(axis) is None:
        inputs = [reshape(x, [x.numel], can_reorder=True) for x in inputs]
        axis = 0
    shape = inputs[0].shape
    if not shape:
        raise SemanticError("reductions need a block tensor")
    for x in inputs[1:]:
        if x.shape != shape:
            raise SemanticError(f"reduce operands have shapes {list(shape)} and {list(x.shape)}")
    axis = _normalize_axis(axis, len(shape))
    out_shape = [s for i, s in enumerate(shape) if i != axis]
    elems = [x.dtype for x in inputs]
    rtypes = [block_type(e, out_shape) if out_shape else e for e in elems]

    def region(args):
        lhs = [tensor(h, e) for h, e in zip(args, elems * 2)]
        results = combine(lhs)
        results = results if isinstance(results, (list, tuple)) else [results]
        if len(results) != len(elems):
            raise SemanticError(f"the combine function returned {len(results)} values, "
                                f"expected {len(elems)}")
        return [cast(to_tensor(r, e), e).handle for r, e in zip(results, elems)]

    handles = _b().reduce([x.handle for x in inputs], axis, [e.to_ir() for e in elems],
                          [t.to_ir() for t in rtypes], region)
    outs = [tensor(h, t) for h, t in zip(handles, rtypes)]
    if unwrap(keep_dims):
        outs = [expand_dims(o, axis) for o in outs]
    return tuple(outs)


def _sum_dtype(ty: dtype, dtype_arg) -> dtype:
    dtype_arg = unwrap(dtype_arg)
    if dtype_arg is not None:
        return dtype_arg
    if ty.is_int() and ty.primitive_bitwidth < 32:
        return core.uint32 if ty.is_int_unsigned() else core.int32
    return ty


def reduce_builtin(x, axis, kind: str, keep_dims=False, dtype_arg=None) -> tensor:
    x = to_tensor(x)
    if kind == "sum":
        x = cast(x, _sum_dtype(x.dtype, dtype_arg))
        fn = lambda a: [add(a[0], a[1])]  # noqa: E731
    elif kind == "max":
        fn = lambda a: [maximum(a[0], a[1])]  # noqa: E731
    elif kind == "min":
        fn = lambda a: [minimum(a[0], a[1])]  # noqa: E731
    elif kind == "xor_sum":
        fn = lambda a: [xor_(a[0], a[1])]  # noqa: E731
    else:
        raise SemanticError(f"unknown reduction {kind}")
    return reduce([x], axis, fn, keep_dims)[0]


def arg_reduce(x, axis, kind: str, keep_dims=False, tie_break_left=True) -> tensor:
    """argmax/argmin: reduce (value, index) pairs; ties take the lowest index,
    or with `tie_break_left=False` the highest (Triton leaves that one
    unspecified; the highest is deterministic)."""
    first = bool(unwrap(tie_break_left))
    x = to_tensor(x)
    if axis is None or unwrap(axis) is None:
        x = reshape(x, [x.numel], can_reorder=False)
        axis = 0
    axis = _normalize_axis(axis, len(x.shape))
    idx = arange(0, x.shape[axis])
    for _ in range(axis):
        idx = expand_dims(idx, 0)
    while len(idx.shape) < len(x.shape):
        idx = expand_dims(idx, len(idx.shape))
    idx = broadcast_to(idx, x.shape)

    def combine(a):
        v1, i1, v2, i2 = a
        better = greater_than(v1, v2) if kind == "max" else less_than(v1, v2)
        tie = logical_and(equal(v1, v2), less_than(i1, i2) if first else greater_than(i1, i2))
        pick = logical_or(better, tie)
        return [where(pick, v1, v2), where(pick, i1, i2)]

    return reduce([x, idx], axis, combine, keep_dims)[1]


def scan(inputs, axis, combine, reverse=False) -> tuple:
    inputs = [to_tensor(x) for x in inputs]
    shape = inputs[0].shape
    if not shape:
        raise SemanticError("scans need a block tensor")
    axis = _normalize_axis(axis, len(shape))
    elems = [x.dtype for x in inputs]

    def region(args):
        results = combine([tensor(h, e) for h, e in zip(args, elems * 2)])
        results = results if isinstance(results, (list, tuple)) else [results]
        return [cast(to_tensor(r, e), e).handle for r, e in zip(results, elems)]

    handles = _b().scan([x.handle for x in inputs], axis, bool(unwrap(reverse)),
                        [e.to_ir() for e in elems], region)
    return tuple(tensor(h, x.type) for h, x in zip(handles, inputs))


def cumulative(x, axis, kind: str, reverse=False, dtype_arg=None) -> tensor:
    x = to_tensor(x)
    if x.dtype == core.bfloat16:
        # As Triton: a running sum or product of bf16 (8 bits of mantissa)
        # loses most of them within a few dozen steps, so it runs in fp32
        # and returns fp32.
        x = cast(x, core.float32)
    if kind == "sum":
        x = cast(x, _sum_dtype(x.dtype, dtype_arg))
        fn = lambda a: [add(a[0], a[1])]  # noqa: E731
    else:
        fn = lambda a: [mul(a[0], a[1])]  # noqa: E731
    return scan([x], axis, fn, reverse)[0]


# ---------------------------------------------------------------------------
# Debugging
# ---------------------------------------------------------------------------


_HINTS = {"multiple_of": "tile.divisibility", "max_contiguous": "tile.contiguity",
          "max_constancy": "tile.constancy"}


def hint(x, kind: str, values) -> tensor:
    """A promise about `x`'s values for the compiler's axis analysis: every
    element is a multiple of values[d] (multiple_of), or runs of values[d]
    consecutive elements along dimension d are consecutive integers
    (max_contiguous) or equal (max_constancy)."""
    x = to_tensor(x)
    values = unwrap(values)
    values = [int(unwrap(v)) for v in (values if isinstance(values, (list, tuple)) else [values])]
    rank = max(len(x.shape), 1)
    if len(values) == 1 and rank > 1 and kind == "multiple_of":
        values = values * rank
    if len(values) != rank:
        raise SemanticError(f"tl.{kind} needs {rank} value(s), one per dimension, got "
                            f"{len(values)}")
    if any(v <= 0 for v in values):
        raise SemanticError(f"tl.{kind} values must be positive, got {values}")
    if not (x.dtype.is_int() or x.dtype.is_ptr()):
        raise SemanticError(f"tl.{kind} applies to integers and pointers, got {x.dtype}")
    if kind != "multiple_of" and not x.type.is_block():
        raise SemanticError(f"tl.{kind} applies to tensors, not scalars")
    if not _b().hint(x.handle, _HINTS[kind], values):
        # A loop-carried value has no op to hold the promise (tutorial 08
        # hints its advancing pointers so): the hint goes unused, said at
        # its line; a hint never changes what the kernel computes.
        import warnings
        filename, line, _ = _b().loc
        warnings.warn_explicit(f"tl.{kind} of a loop-carried value is not used (the hint "
                               "applies to values computed by an operation and to kernel "
                               "arguments); the kernel compiles without it", UserWarning,
                               filename, line)
    return x


def debug_barrier() -> None:
    _b().debug_barrier()


def inline_asm_elementwise(asm, constraints, args, dtype_arg, is_pure, pack):
    """Triton's tl.inline_asm_elementwise: the PTX `asm` over the elements
    of `args` (broadcast to one shape), `pack` at a time, giving a tensor of
    `dtype_arg` (or a tuple of them, a tuple of tensors)."""
    asm, constraints = unwrap(asm), unwrap(constraints)
    is_pure, pack = unwrap(is_pure), unwrap(pack)
    if not isinstance(asm, str) or not isinstance(constraints, str):
        raise SemanticError("inline_asm_elementwise: asm and constraints must be strings")
    if not isinstance(pack, int) or isinstance(pack, bool) or pack < 1:
        raise SemanticError(f"inline_asm_elementwise: pack must be a positive integer, "
                            f"got {pack!r}")
    dtype_arg = unwrap(dtype_arg)
    several = isinstance(dtype_arg, (tuple, list))
    dtypes = [unwrap(d) for d in (dtype_arg if several else [dtype_arg])]
    if not dtypes or not all(isinstance(d, dtype) for d in dtypes):
        raise SemanticError("inline_asm_elementwise: dtype must be a type or a non-empty "
                            f"tuple of types, got {dtype_arg!r}")
    tensors = [to_tensor(a) for a in (unwrap(args) or [])]
    if tensors:  # one shape for all: the broadcast of every operand's
        ref = tensors[0]
        for t in tensors[1:]:
            _, ref = broadcast_pair(t, ref)
        tensors = [broadcast_pair(t, ref)[0] for t in tensors]
    shape = list(tensors[0].shape) if tensors and tensors[0].type.is_block() else []
    types = [block_type(d, shape) if shape else d for d in dtypes]
    handles = _b().elementwise_inline_asm(asm, constraints, [t.handle for t in tensors],
                                          [t.to_ir() for t in types], bool(is_pure), pack)
    outs = [tensor(h, t) for h, t in zip(handles, types)]
    return tuple(outs) if several else outs[0]


def grid_dependency(action: str) -> None:
    """griddepcontrol (programmatic dependent launch): "wait" or
    "launch_dependents"."""
    _b().grid_dependency(action)


def device_assert(cond, msg: str = "") -> None:
    cond = cast(to_tensor(cond), core.int1)
    _b().device_assert(cond.handle, str(unwrap(msg)))


def device_print(prefix: str, args, hex=False) -> None:
    args = [to_tensor(a) for a in args]
    signed = [1 if a.dtype.is_int_signed() else 0 for a in args]
    _b().device_print(str(unwrap(prefix)), [a.handle for a in args], bool(unwrap(hex)), signed)
