"""`tl.rand`, `tl.randn`, `tl.randint` and their building blocks: Triton's
counter-based generator, with the same streams for the same seed and offsets.

The generator is Philox-4x32 (Salmon et al., "Parallel random numbers: as
easy as 1, 2, 3") with 10 rounds by default (`N_ROUNDS_DEFAULT`). For one
element at offset `o` and a seed `s`:

- the 64-bit seed (an integer of any width, widened to uint64 as a cast
  widens it: a negative int32 seed sign-extends) gives the two key words,
  `k0` its low and `k1` its high 32 bits;
- the counter is `(low 32 bits of o, high 32 bits of o, 0, 0)`; the high
  word is an arithmetic shift of a signed 64-bit offset and 0 for offsets of
  32 bits or fewer;
- `randint4x` returns the four uint32 output words, `randint` the first;
- `uint_to_uniform_float` maps a word `x` (read as signed) to
  `(x < 0 ? -x - 1 : x)` converted to fp32 and multiplied by the fp32
  constant 4.6566127342e-10 (just under 2**-31), a value in [0, 1);
- `randn` is the first output of the Box-Muller transform of the uniforms of
  the first two words, computed in fp32.

Every function here runs when the kernel is traced (in the interpreter and
when compiling alike) and records ordinary ops through `semantic`, so the
rounds are unrolled into the kernel. `philox` with 64-bit counters runs the
Philox-4x64 variant (the seed is the low key word, the high one is 0).
"""

from __future__ import annotations

from . import core, semantic
from .core import constexpr
from .semantic import SemanticError

__all__ = ["N_ROUNDS_DEFAULT", "pair_uniform_to_normal", "philox", "philox_impl", "rand",
           "rand4x", "randint", "randint4x", "randn", "randn4x", "uint_to_uniform_float"]

N_ROUNDS_DEFAULT = constexpr(10)

# Per word size: the two key increments (the golden ratio and sqrt(3) - 1 in
# fixed point) and the two round multipliers.
_KEY_STEP = {32: (0x9E3779B9, 0xBB67AE85),
             64: (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B)}
_ROUND_MUL = {32: (0xD2511F53, 0xCD9E8D57),
              64: (0xD2E7470EE14C6C93, 0xCA5A826395121157)}

# The largest fp32 scale with (2**31 - 1) * scale < 1 after rounding, and its
# 64-bit counterpart.
_UNIFORM_SCALE = {32: 4.6566127342e-10, 64: 1.0842020432385337e-19}


def _n_rounds(n_rounds) -> int:
    n = semantic.unwrap(n_rounds)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise SemanticError(f"n_rounds must be a non-negative tl.constexpr integer, got {n!r}")
    return n


def philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """`n_rounds` rounds of Philox on the counter words `(c0, c1, c2, c3)`
    (all uint32 or all uint64) with the key `(k0, k1)`."""
    c0, c1, c2, c3, k0, k1 = (semantic.to_tensor(v) for v in (c0, c1, c2, c3, k0, k1))
    if c0.dtype not in (core.uint32, core.uint64):
        raise SemanticError(f"philox_impl needs uint32 or uint64 counters, got {c0.dtype}")
    bits = c0.dtype.primitive_bitwidth
    step0, step1 = _KEY_STEP[bits]
    mul_a, mul_b = _ROUND_MUL[bits]
    for _ in range(_n_rounds(n_rounds)):
        # Each round multiplies words 0 and 2, keeps the low halves of the
        # products and mixes the high halves into the other two words.
        hi_a, lo_a = semantic.mulhi(mul_a, c0), semantic.mul(mul_a, c0)
        hi_b, lo_b = semantic.mulhi(mul_b, c2), semantic.mul(mul_b, c2)
        c0, c1, c2, c3 = (semantic.xor_(semantic.xor_(hi_b, c1), k0), lo_b,
                          semantic.xor_(semantic.xor_(hi_a, c3), k1), lo_a)
        k0, k1 = semantic.add(k0, step0), semantic.add(k1, step1)
    return c0, c1, c2, c3


def philox(seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox of the counter `(c0, c1, c2, c3)` keyed by the integer `seed`:
    32-bit counters (of any 32-bit type, reinterpreted as uint32) give four
    uint32 words, 64-bit ones four uint64 words."""
    seed = semantic.to_tensor(seed)
    if not seed.dtype.is_int():
        raise SemanticError(f"the seed of philox must be an integer, got {seed.dtype}")
    seed = semantic.cast(seed, core.uint64)
    counters = [semantic.to_tensor(c) for c in (c0, c1, c2, c3)]
    bits = counters[0].dtype.primitive_bitwidth
    if bits == 32:
        word = core.uint32
        key_lo = semantic.cast(semantic.and_(seed, 0xFFFFFFFF), word)
        key_hi = semantic.cast(semantic.and_(semantic.shr(seed, 32), 0xFFFFFFFF), word)
    elif bits == 64:
        # As Triton: a one-element block, so scalar counters give blocks.
        word = core.uint64
        key_lo, key_hi = seed, semantic.full([1], 0, word)
    else:
        raise SemanticError(f"philox needs 32- or 64-bit counters, got {counters[0].dtype}")
    counters = [semantic.cast(c, word, bitcast=True) for c in counters]
    return philox_impl(*counters, key_lo, key_hi, n_rounds)


def randint4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 words for the scalar `seed` and the
    offsets `offset` (a scalar or a block of integers)."""
    offset = semantic.to_tensor(offset)
    low = semantic.cast(offset, core.uint32)
    zero = semantic.mul(low, 0)
    if offset.dtype.primitive_bitwidth > 32:
        high = semantic.cast(semantic.shr(offset, 32), core.uint32)
    else:
        high = zero
    return philox(seed, low, high, zero, zero, n_rounds)


def randint(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of random uint32 words: the first of `randint4x`'s four."""
    return randint4x(seed, offset, n_rounds)[0]


def uint_to_uniform_float(x):
    """Random 32- or 64-bit integers (signed or not) to fp32 in [0, 1)."""
    x = semantic.to_tensor(x)
    if x.dtype in (core.uint32, core.int32):
        signed, scale = core.int32, _UNIFORM_SCALE[32]
    elif x.dtype in (core.uint64, core.int64):
        signed, scale = core.int64, _UNIFORM_SCALE[64]
    else:
        raise SemanticError(f"uint_to_uniform_float needs a 32- or 64-bit integer, got {x.dtype}")
    x = semantic.cast(x, signed, bitcast=True)
    x = semantic.where(semantic.less_than(x, 0), semantic.sub(semantic.minus(x), 1), x)
    return semantic.mul(x, scale)


def rand(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of random fp32 in [0, 1) for the scalar `seed` and `offset`."""
    return uint_to_uniform_float(randint(seed, offset, n_rounds))


def rand4x(seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random fp32 in [0, 1), one per word of `randint4x`."""
    return tuple(uint_to_uniform_float(i) for i in randint4x(seed, offsets, n_rounds))


def pair_uniform_to_normal(u1, u2):
    """Two standard normal values from two uniform ones (Box-Muller, fp32):
    `sqrt(-2 log(max(u1, 1e-7)))` times the cosine and the sine of `2 pi u2`."""
    u1 = semantic.maximum(1.0e-7, u1)
    angle = semantic.mul(6.283185307179586, u2)
    radius = semantic.unary_math("sqrt", semantic.mul(-2.0, semantic.unary_math("log", u1)))
    return (semantic.mul(radius, semantic.unary_math("cos", angle)),
            semantic.mul(radius, semantic.unary_math("sin", angle)))


def randn(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of random fp32 from N(0, 1) for the scalar `seed` and `offset`."""
    i1, i2, _, _ = randint4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(uint_to_uniform_float(i1), uint_to_uniform_float(i2))[0]


def randn4x(seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random fp32 from N(0, 1): the Box-Muller pairs of the
    uniforms of words 1 and 2, and of words 3 and 4."""
    u1, u2, u3, u4 = rand4x(seed, offset, n_rounds)
    return pair_uniform_to_normal(u1, u2) + pair_uniform_to_normal(u3, u4)
