"""Triton's standard-library tensor functions, built from the core ops.

`tl.flip`, `tl.sort`, `tl.topk`, `tl.bitonic_merge`, `tl.join`, `tl.split`,
`tl.interleave`, `tl.cat`, `tl.histogram`, `tl.gather` and `tl.swizzle2d` with Triton's
signatures and results. warpforge has no dedicated IR op for any of them:
each is composed here from reshapes, permutes, expand_dims/broadcast,
`where`, comparisons, `arange` and reductions, so it runs unchanged in the
interpreter and compiles through the existing lowering.

Moving a value between positions without arithmetic uses one device: on an
axis of size 2, `v ^ xor_sum(v, axis, keep_dims=True)` is the *other*
element of the pair. Values are moved as their bits (floats bitcast to an
integer of their width, booleans widened to int8, pointers as int64), so
every value, -0.0 and NaN included, comes back exactly.

Costs that differ from Triton's dedicated ops:
- `join`/`split`/`cat`/`interleave`: a select and size-2 reductions where
  Triton moves registers; linear in the elements either way.
- `gather`: a one-hot comparison of every index against every position of
  the gathered axis, then a reduction: O(numel(index) * src.shape[axis])
  work and registers, where Triton's op is O(numel(index)).
- `histogram`: a one-hot comparison of every value against every bin, then
  a sum: O(numel * num_bins) where Triton's op is O(numel).
Keep those blocks modest.
"""

from __future__ import annotations

from . import core, semantic
from .core import tensor
from .semantic import SemanticError

_u = semantic.unwrap


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _log2(n: int) -> int:
    return int(n).bit_length() - 1


def _block(x, fn: str) -> tensor:
    x = semantic.to_tensor(x)
    if not x.type.is_block():
        raise SemanticError(f"tl.{fn} needs a block tensor, got a scalar of type {x.dtype}")
    return x


def _dim(dim, rank: int, fn: str) -> int:
    dim = _u(dim)
    if dim is None:
        return rank - 1
    dim = int(_u(dim))
    if not -rank <= dim < rank:
        raise SemanticError(f"tl.{fn}: dim {dim} is out of range for a rank-{rank} tensor")
    return dim % rank


_INT_OF_WIDTH = {8: core.int8, 16: core.int16, 32: core.int32, 64: core.int64}


def _to_bits(x: tensor) -> tensor:
    """`x` as an integer tensor holding the same bits (see `_from_bits`)."""
    ty = x.dtype
    if ty.is_ptr():
        return semantic.cast(x, core.int64)
    if ty.is_bool():
        return semantic.cast(x, core.int8)
    if ty.is_floating():
        return semantic.cast(x, _INT_OF_WIDTH[ty.primitive_bitwidth], bitcast=True)
    return x


def _from_bits(bits: tensor, ty) -> tensor:
    if ty.is_floating():
        return semantic.cast(bits, ty, bitcast=True)
    return semantic.cast(bits, ty)


def _side(rank: int, axis: int, value: int) -> tensor:
    """A boolean of shape [1, .., 2 (at `axis`), .., 1]: true at position
    `value` (0 or 1) of `axis`."""
    shape = [1] * rank
    shape[axis] = 2
    return semantic.reshape(semantic.equal(semantic.arange(0, 2), value), shape)


def _partner(bits: tensor, axis: int) -> tensor:
    """On an axis of size 2: each element's pair partner (the other one)."""
    return semantic.xor_(bits, semantic.reduce_builtin(bits, axis, "xor_sum", keep_dims=True))


# ---------------------------------------------------------------------------
# flip
# ---------------------------------------------------------------------------


def flip(x, dim=None):
    """`x` reversed along `dim` (default: the last dimension)."""
    x = _block(x, "flip")
    shape = list(x.shape)
    d = _dim(dim, len(shape), "flip")
    steps = _log2(shape[d])
    if steps == 0:
        return x
    # Reversing an index of `steps` bits flips every bit: view the dimension
    # as `steps` axes of size 2 and swap the pair on each.
    bits = semantic.reshape(_to_bits(x), shape[:d] + [2] * steps + shape[d + 1:])
    for i in range(steps):
        bits = _partner(bits, d + i)
    return _from_bits(semantic.reshape(bits, shape), x.dtype)


# ---------------------------------------------------------------------------
# Bitonic sorting network (sort, topk, bitonic_merge)
# ---------------------------------------------------------------------------
#
# The tensor is viewed as a hypercube [2] * log2(numel); the sorted
# dimension is the innermost log2(n) axes, and "innermost axis j" is bit j of
# an element's index along it. A compare-and-swap on axis j pairs elements
# whose indices differ in bit j.

_ALTERNATE = "alternate"


def _compare_and_swap(h: tensor, rank: int, inner: int, descending) -> tensor:
    """One network layer on innermost axis `inner`: each pair is ordered
    ascending, or descending where `descending` (a boolean tensor
    broadcasting to `h`) is true."""
    axis = rank - 1 - inner
    y = _from_bits(_partner(_to_bits(h), axis), h.dtype)
    # An element must end up the larger of its pair when it is on the right
    # of an ascending pair or the left of a descending one; it takes its
    # partner's value when that is not already so (on a tie both are equal).
    want_larger = semantic.not_equal(_side(rank, axis, 1), descending)
    take = semantic.not_equal(semantic.greater_than(h, y), want_larger)
    return semantic.where(take, y, h)


def _merge(h: tensor, rank: int, stage: int, order) -> tensor:
    """Merges the bitonic runs of 2**stage elements: all ascending
    (order False), all descending (True), or alternating with bit `stage` of
    the index (`_ALTERNATE`), which builds the next stage's bitonic runs."""
    if order == _ALTERNATE:
        descending = _side(rank, rank - 1 - stage, 1)
    else:
        descending = semantic.to_tensor(bool(order))
    for i in range(stage):
        h = _compare_and_swap(h, rank, stage - 1 - i, descending)
    return h


def _along_last(x: tensor, dim: int, fn):
    """Applies `fn` (which works on the last dimension) along `dim`."""
    rank = len(x.shape)
    if dim == rank - 1:
        return fn(x)
    order = [d for d in range(rank) if d != dim] + [dim]
    back = sorted(range(rank), key=lambda d: order[d])
    return semantic.permute(fn(semantic.permute(x, order)), back)


def _sort_last(x: tensor, k, descending: bool) -> tensor:
    """The first `k` (all when None) of the last dimension after sorting."""
    if x.dtype.is_bool():
        return semantic.cast(_sort_last(semantic.cast(x, core.int8), k, descending), core.int1)
    n = x.shape[-1]
    log_n = _log2(n)
    log_k = log_n if k is None else _log2(k)
    rank = _log2(x.numel)
    if rank == 0:
        return x
    h = semantic.reshape(x, [2] * rank)
    for stage in range(1, log_k + 1):
        h = _merge(h, rank, stage, _ALTERNATE if stage < log_n else descending)
    # Bitonic top-k: of two neighbouring sorted runs of k (one ascending, one
    # descending) the element-wise max (min) holds their k largest (smallest)
    # as a bitonic run, which one merge sorts.
    for stage in range(log_k + 1, log_n + 1):
        h = semantic.reduce_builtin(h, rank - 1 - log_k, "max" if descending else "min")
        rank -= 1
        h = _merge(h, rank, log_k, _ALTERNATE if stage < log_n else descending)
    return semantic.reshape(h, list(x.shape[:-1]) + [1 << log_k])


def sort(x, dim=None, descending=False):
    """`x` sorted along `dim` (default: the last dimension), ascending or
    descending, with Triton's bitonic network. Triton sorts only along the
    last dimension; another `dim` is sorted here through a permute."""
    x = _block(x, "sort")
    d = _dim(dim, len(x.shape), "sort")
    desc = bool(_u(descending))
    return _along_last(x, d, lambda t: _sort_last(t, None, desc))


def topk(x, k, dim=None):
    """The `k` largest elements of `x` along `dim` (the last one), in
    descending order; `k` is a power of 2 at most the dimension's size."""
    x = _block(x, "topk")
    d = _dim(dim, len(x.shape), "topk")
    if d != len(x.shape) - 1:
        raise SemanticError("tl.topk works along the last dimension only (as Triton's)")
    k = int(_u(k))
    if not core.is_power_of_2(k) or k > x.shape[-1]:
        raise SemanticError(f"tl.topk: k must be a power of 2 at most {x.shape[-1]}, got {k}")
    return _sort_last(x, k, True)


def bitonic_merge(x, dim=None, descending=False):
    """Sorts the last dimension of `x`, which must hold bitonic sequences
    (ascending then descending, or the reverse), with one merge."""
    x = _block(x, "bitonic_merge")
    if _dim(dim, len(x.shape), "bitonic_merge") != len(x.shape) - 1:
        raise SemanticError("tl.bitonic_merge works along the last dimension only "
                            "(as Triton's)")
    rank = _log2(x.numel)
    if rank == 0:
        return x
    h = _merge(semantic.reshape(x, [2] * rank), rank, _log2(x.shape[-1]),
               bool(_u(descending)))
    return semantic.reshape(h, list(x.shape))


# ---------------------------------------------------------------------------
# join, split, interleave, cat
# ---------------------------------------------------------------------------


def _same_dtype(a, b, fn: str):
    a_lit = not isinstance(a, tensor)
    b_lit = not isinstance(b, tensor)
    if a_lit and not b_lit:
        b = semantic.to_tensor(b)
        a = semantic.to_tensor(a, b.dtype)
    elif b_lit and not a_lit:
        a = semantic.to_tensor(a)
        b = semantic.to_tensor(b, a.dtype)
    else:
        a, b = semantic.to_tensor(a), semantic.to_tensor(b)
    if a.dtype != b.dtype:
        raise SemanticError(f"tl.{fn} needs two tensors of one dtype, got {a.dtype} and "
                            f"{b.dtype}")
    return a, b


def join(a, b):
    """`a` and `b` (broadcast to one shape) side by side in a new last
    dimension of size 2: [..] and [..] give [.., 2]; two scalars give [2]."""
    a, b = _same_dtype(a, b, "join")
    a, b = semantic.broadcast_pair(a, b)
    if not a.type.is_block():
        a, b = semantic.splat(a, [1]), semantic.splat(b, [1])
        return semantic.reshape(join(a, b), [2])
    shape = list(a.shape) + [2]
    a = semantic.broadcast_to(semantic.expand_dims(a, len(shape) - 1), shape)
    b = semantic.broadcast_to(semantic.expand_dims(b, len(shape) - 1), shape)
    return semantic.where(_side(len(shape), len(shape) - 1, 0), a, b)


def split(a):
    """The two halves of `a`'s last dimension, which must have size 2:
    [.., 2] gives two [..] tensors; [2] gives two scalars. Inverse of join."""
    a = _block(a, "split")
    if a.shape[-1] != 2:
        raise SemanticError(f"tl.split needs a last dimension of size 2, got shape "
                            f"{list(a.shape)}")
    rank = len(a.shape)
    bits = _to_bits(a)
    first = semantic.reduce_builtin(semantic.where(_side(rank, rank - 1, 0), bits, 0),
                                    rank - 1, "xor_sum")
    second = semantic.xor_(semantic.reduce_builtin(bits, rank - 1, "xor_sum"), first)
    return _from_bits(first, a.dtype), _from_bits(second, a.dtype)


def interleave(a, b):
    """The elements of `a` and `b` alternating along the last dimension:
    join(a, b) with its last two dimensions merged."""
    c = join(a, b)
    if len(c.shape) == 1:
        return c
    return semantic.reshape(c, list(c.shape[:-2]) + [2 * c.shape[-2]])


def cat(input, other, can_reorder=False):
    """The 1-D tensors `input` and `other` (one shape and dtype) concatenated.
    As in Triton, `can_reorder=True` is required: it lets the compiler put
    the elements in any order. warpforge always gives the plain order, all of
    `input` then all of `other`."""
    if not _u(can_reorder):
        raise SemanticError("tl.cat always may reorder elements: pass can_reorder=True "
                            "(as Triton requires)")
    a, b = _same_dtype(input, other, "cat")
    if len(a.shape) != 1 or a.shape != b.shape:
        raise SemanticError(f"tl.cat needs two 1-D tensors of one shape, got "
                            f"{list(a.shape)} and {list(b.shape)}")
    joined = semantic.permute(join(a, b), [1, 0])
    return semantic.reshape(joined, [2 * a.shape[0]])


# ---------------------------------------------------------------------------
# histogram, gather (one-hot: see the module's docstring for their cost)
# ---------------------------------------------------------------------------


def histogram(input, num_bins, mask=None):
    """int32 counts of the values of the 1-D integer tensor `input` equal to
    0, 1, .., num_bins - 1 (bins of width 1 from 0); values outside that
    range, and those where `mask` is false, are not counted. Built as a
    one-hot comparison and a sum: O(numel * num_bins)."""
    x = _block(input, "histogram")
    if len(x.shape) != 1:
        raise SemanticError(f"tl.histogram needs a 1-D tensor, got shape {list(x.shape)}")
    if not x.dtype.is_int() or x.dtype.is_bool():
        raise SemanticError(f"tl.histogram needs integer values, got {x.dtype}")
    bins = semantic.arange(0, int(_u(num_bins)))
    hit = semantic.equal(semantic.expand_dims(x, 1), semantic.expand_dims(bins, 0))
    mask = _u(mask)
    if mask is not None:
        mask = semantic.to_tensor(mask)
        if not mask.dtype.is_bool():
            raise SemanticError(f"tl.histogram: the mask must be boolean, got {mask.dtype}")
        mask = semantic.broadcast_to(mask, x.shape)
        hit = semantic.logical_and(hit, semantic.expand_dims(mask, 1))
    return semantic.reduce_builtin(semantic.cast(hit, core.int32), 0, "sum")


def gather(src, index, axis):
    """Values of `src` picked along `axis` by the integer tensor `index`
    (same rank; the other dimensions equal): the result has index's shape and
    out[.., i, ..] = src[.., index[.., i, ..], ..] at `axis`. An index outside
    the axis gives 0 (Triton leaves it undefined). Built as a one-hot
    comparison and a reduction: O(numel(index) * src.shape[axis])."""
    src = _block(src, "gather")
    index = _block(index, "gather")
    if not index.dtype.is_int() or index.dtype.is_bool():
        raise SemanticError(f"tl.gather needs an integer index, got {index.dtype}")
    rank = len(src.shape)
    if len(index.shape) != rank:
        raise SemanticError(f"tl.gather: src and index must have one rank, got shapes "
                            f"{list(src.shape)} and {list(index.shape)}")
    ax = _dim(axis, rank, "gather")
    for d in range(rank):
        if d != ax and index.shape[d] != src.shape[d]:
            raise SemanticError(f"tl.gather: dimension {d} of index ({index.shape[d]}) must "
                                f"equal src's ({src.shape[d]}); only axis {ax} may differ")
    # Axis `ax` runs over the index's positions, axis `ax + 1` over src's.
    n = src.shape[ax]
    positions = semantic.reshape(semantic.arange(0, n), [1] * (ax + 1) + [n] + [1] * (rank - ax - 1))
    hit = semantic.equal(semantic.expand_dims(index, ax + 1), positions)
    values = semantic.expand_dims(_to_bits(src), ax)
    picked = semantic.where(hit, values, 0)
    return _from_bits(semantic.reduce_builtin(picked, ax + 1, "xor_sum"), src.dtype)


# ---------------------------------------------------------------------------
# Program ids
# ---------------------------------------------------------------------------


def swizzle2d(i, j, size_i, size_j, size_g):
    """Triton's `tl.swizzle2d`: renumbers cell (i, j) of a size_i x size_j grid
    so that consecutive row-major ids walk down columns of bands of size_g
    rows (the last band may be shorter), the grouped order matmuls use for
    L2 reuse. Takes and returns scalars or tensors of ints."""
    i, j, size_i, size_j, size_g = (_u(v) for v in (i, j, size_i, size_j, size_g))
    linear = i * size_j + j
    per_band = size_g * size_j
    first_row = linear // per_band * size_g
    spare = size_i - first_row
    rows = min(spare, size_g) if isinstance(spare, int) and isinstance(size_g, int) \
        else semantic.minimum(semantic.to_tensor(spare), semantic.to_tensor(size_g), False)
    within = linear % per_band
    return first_row + within % rows, within // rows
