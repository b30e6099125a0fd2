"""The semantic layer's shape rules: block shapes, splat, broadcasting,
expand_dims, reshape, permute and subscripts. `warpforge.language.semantic`
re-exports the public names.
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from . import core
from .core import block_type, tensor
from ._semantic_types import SemanticError, _b, to_tensor, unwrap

MAX_TENSOR_NUMEL = 1 << 20  # the compiler's kMaxTensorElements (Tile.h)


def checked_block_type(elem, shape) -> block_type:
    """The type of a tensor an op makes: the compiler's rule that a tensor
    in a kernel holds at most MAX_TENSOR_NUMEL elements (tile-verify-kernels
    would reject the op), enforced here, before the builder allocates
    anything, so that compiling and interpreting reject the same kernels
    with the same message at the same line."""
    bt = block_type(elem, shape)
    if bt.numel > MAX_TENSOR_NUMEL:
        raise SemanticError(f"'{bt.to_ir()}' has {bt.numel} elements; a tensor in a kernel "
                            f"holds at most {MAX_TENSOR_NUMEL}")
    return bt


# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------


def validate_block_shape(shape) -> List[int]:
    for s in shape:
        if isinstance(unwrap(s), tensor):
            # The interpreter knows the value; the compiler does not: one
            # rule for both.
            raise SemanticError(f"shape {list(shape)}: every dimension must be a "
                                "tl.constexpr integer, not a value computed when the kernel "
                                "runs")
    shape = [int(unwrap(s)) for s in shape]
    numel = 1
    for s in shape:
        if not core.is_block_dim(s):
            raise SemanticError(f"shape {shape}: every dimension must be "
                                f"{core.block_dim_rule()}, got {s}")
        numel *= s
    if numel > MAX_TENSOR_NUMEL:
        raise SemanticError(f"shape {shape} has {numel} elements; a tensor holds at most "
                            f"{MAX_TENSOR_NUMEL}")
    return shape


def splat(x: tensor, shape: Sequence[int]) -> tensor:
    if x.type.is_block():
        raise SemanticError("cannot splat a block tensor")
    if not shape:
        return x
    bt = checked_block_type(x.dtype, shape)
    return tensor(_b().splat(x.handle, bt.to_ir()), bt)


def broadcast_to(x: tensor, shape: Sequence[int]) -> tensor:
    x = to_tensor(x)
    shape = tuple(shape)
    if not x.type.is_block():
        return splat(x, shape)
    if x.shape == shape:
        return x
    if len(x.shape) != len(shape):
        raise SemanticError(f"cannot broadcast a tensor of shape {list(x.shape)} to "
                            f"{list(shape)}: ranks differ")
    for have, want in zip(x.shape, shape):
        if have != want and have != 1:
            raise SemanticError(f"cannot broadcast shape {list(x.shape)} to {list(shape)}")
    bt = checked_block_type(x.dtype, shape)
    return tensor(_b().broadcast(x.handle, bt.to_ir()), bt)


def broadcast_shapes(a: Sequence[int], b: Sequence[int]) -> List[int]:
    if not a:
        return list(b)
    if not b:
        return list(a)
    a, b = list(a), list(b)
    if len(a) < len(b):
        a = [1] * (len(b) - len(a)) + a
    if len(b) < len(a):
        b = [1] * (len(a) - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            raise SemanticError(f"shapes {a} and {b} cannot be broadcast together: "
                                f"dimension sizes {x} and {y} differ and neither is 1")
        out.append(max(x, y))
    return out


def _lift_rank(x: tensor, rank: int) -> tensor:
    while x.type.is_block() and len(x.shape) < rank:
        x = expand_dims(x, 0)
    return x


def broadcast_pair(a: tensor, b: tensor):
    if not a.type.is_block() and not b.type.is_block():
        return a, b
    shape = broadcast_shapes(a.shape, b.shape)
    a = broadcast_to(_lift_rank(a, len(shape)), shape)
    b = broadcast_to(_lift_rank(b, len(shape)), shape)
    return a, b


def expand_dims(x: tensor, axis) -> tensor:
    x = to_tensor(x)
    axes = unwrap(axis)
    axes = list(axes) if isinstance(axes, (list, tuple)) else [axes]
    # As Triton: each axis is a position in the result, whose rank counts
    # every new dimension (expand_dims(x, (0, -1)) of [N] is [1, N, 1]);
    # negative ones count from its end.
    new_rank = len(x.shape) + len(axes)
    normalized = []
    for a in axes:
        a = int(unwrap(a))
        if not -new_rank <= a < new_rank:
            raise SemanticError(f"expand_dims: invalid axis {a}: the result has {new_rank} "
                                f"dimension(s), so axes run from {-new_rank} to {new_rank - 1}")
        normalized.append(a % new_rank)
    if len(set(normalized)) != len(normalized):
        raise SemanticError(f"expand_dims received duplicate axes, normalized axes = "
                            f"{normalized}")
    for ax in sorted(normalized):
        if not x.type.is_block():
            x = splat(x, [1])
            continue
        shape = list(x.shape)
        shape.insert(ax, 1)
        bt = checked_block_type(x.dtype, shape)
        x = tensor(_b().expand_dims(x.handle, ax, bt.to_ir()), bt)
    return x


def reshape(x: tensor, shape: Sequence[int], can_reorder: bool = False) -> tensor:
    shape = validate_block_shape(shape)
    x = to_tensor(x)
    if not x.type.is_block():
        return splat(x, shape) if all(s == 1 for s in shape) else _shape_error(x, shape)
    bt = checked_block_type(x.dtype, shape)
    if bt.numel != x.numel:
        raise SemanticError(f"cannot reshape a tensor of {x.numel} elements "
                            f"{list(x.shape)} to {shape} ({bt.numel} elements)")
    return tensor(_b().reshape(x.handle, bt.to_ir(), bool(can_reorder)), bt)


def _shape_error(x, shape):
    raise SemanticError(f"cannot reshape a scalar to {list(shape)}")


def permute(x: tensor, order: Optional[Sequence[int]]) -> tensor:
    x = to_tensor(x)
    if not x.type.is_block():
        raise SemanticError("trans/permute needs a tensor")
    rank = len(x.shape)
    if order is None:
        # As Triton: the last two dimensions swap (a batch of matrices
        # transposed), the leading ones stay.
        if rank < 2:
            raise SemanticError(f"trans without dims needs a tensor of 2 or more "
                                f"dimensions, got {rank}-D")
        order = list(range(rank - 2)) + [rank - 1, rank - 2]
    order = [int(unwrap(o)) for o in order]
    if sorted(order) != list(range(rank)):
        raise SemanticError(f"permutation {order} is not a permutation of 0..{rank - 1}")
    bt = checked_block_type(x.dtype, [x.shape[o] for o in order])
    return tensor(_b().trans(x.handle, order, bt.to_ir()), bt)


def subscript(x: tensor, slices) -> tensor:
    if not isinstance(slices, tuple):
        slices = (slices,)
    out = x
    dim = 0
    for s in slices:
        s = unwrap(s)
        if s is None:
            out = expand_dims(out, dim)
            dim += 1
        elif isinstance(s, slice) and s.start is None and s.stop is None and s.step is None:
            dim += 1
        else:
            raise SemanticError(f"unsupported tensor index {s!r}: only `None` and `:` "
                                "are allowed (e.g. x[:, None])")
    return out
