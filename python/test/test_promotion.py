"""Integer promotion and the operator rules, as Triton 3.6 has them.

Every pair of the eight integer types goes through every arithmetic,
bitwise, shift and comparison operator, in the interpreter and (marked gpu)
compiled for the H100, against a reference written here from C's usual
arithmetic conversions. The reference works on Python integers: each
operand is converted to the promoted type (wrapping), and the result wraps
to it. Mixed-signedness `/`, `//` and `%` are rejected, as in Triton.
"""

import itertools

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from warpforge.compiler.errors import CompilationError
from warpforge.language import core, semantic

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
PAIRS = list(itertools.product(INTS, INTS))
N = 61  # an odd count: the block's tail is masked
BLOCK = 64

ARITH = ["+", "-", "*", "&", "|", "^", "<<", ">>"]
DIVS = ["//", "%"]
CMPS = ["<", "<=", ">", ">=", "==", "!="]


def bits(t: str) -> int:
    return int(t.lstrip("uint"))


def signed(t: str) -> bool:
    return not t.startswith("u")


def promote(a: str, b: str) -> str:
    """C11 6.3.1.8 for types of rank >= int's (no promotion to int): same
    signedness: the wider; else the unsigned one if at least as wide; else
    the signed one, which then holds every value of the unsigned one."""
    if signed(a) == signed(b):
        return a if bits(a) >= bits(b) else b
    u, s = (a, b) if not signed(a) else (b, a)
    return u if bits(u) >= bits(s) else s


def wrap(v: int, t: str) -> int:
    m = (1 << bits(t)) - 1
    v &= m
    if signed(t) and v >> (bits(t) - 1):
        v -= 1 << bits(t)
    return v


def c_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def reference(op: str, x: int, y: int, xt: str, yt: str):
    r = promote(xt, yt)
    a, b = wrap(x, r), wrap(y, r)
    if op in CMPS:
        return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b,
                "!=": a != b}[op]
    if op == "/":
        return np.float32(np.float32(a) / np.float32(b))
    if op == ">>":
        # Arithmetic when the left operand's own type is signed (Triton
        # decides before promotion): shift the signed reading of the bits.
        v = wrap(a, "int%d" % bits(r)) if signed(xt) else a % (1 << bits(r))
        return wrap(v >> b, r)
    ops = {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
           "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
           "<<": lambda: a << b, "//": lambda: c_div(a, b),
           "%": lambda: a - c_div(a, b) * b}
    return wrap(ops[op](), r)


def operands(xt: str, yt: str, seed: int):
    """x over its type's whole range, y over its own without 0 and without
    -1 (INT_MIN / -1 overflows), s from 0 to 7 (a shift count every width
    takes). Never all zeros."""
    rng = np.random.default_rng(seed)

    def draw(t, n):
        info = np.iinfo(t)
        v = rng.integers(int(info.min), int(info.max), n, dtype=np.int64 if signed(t)
                         else np.uint64, endpoint=True).astype(t)
        return np.where(v == 0, np.asarray(3, t), v).astype(t)

    x = draw(xt, N)
    y = draw(yt, N)
    if signed(yt):
        y = np.where(y == -1, np.asarray(5, yt), y).astype(yt)
    # Small values too, so that comparisons also see the common case.
    x[:8] = np.array([1, 2, 3, 4, 5, 6, 7, 8], xt)
    y[:8] = np.array([8, 7, 3, 4, 1, 6, 2, 9], yt)
    s = rng.integers(0, 8, N).astype(yt)
    return x, y, s


@triton.jit
def int_ops(x_ptr, y_ptr, s_ptr, out_ptr, quot_ptr, cmp_ptr, n, DIV: tl.constexpr,
            BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1)
    y = tl.load(y_ptr + offs, mask=m, other=1)
    s = tl.load(s_ptr + offs, mask=m, other=0)
    tl.store(out_ptr + 0 * BLOCK + offs, x + y, mask=m)
    tl.store(out_ptr + 1 * BLOCK + offs, x - y, mask=m)
    tl.store(out_ptr + 2 * BLOCK + offs, x * y, mask=m)
    tl.store(out_ptr + 3 * BLOCK + offs, x & y, mask=m)
    tl.store(out_ptr + 4 * BLOCK + offs, x | y, mask=m)
    tl.store(out_ptr + 5 * BLOCK + offs, x ^ y, mask=m)
    tl.store(out_ptr + 6 * BLOCK + offs, x << s, mask=m)
    tl.store(out_ptr + 7 * BLOCK + offs, x >> s, mask=m)
    if DIV:
        tl.store(out_ptr + 8 * BLOCK + offs, x // y, mask=m)
        tl.store(out_ptr + 9 * BLOCK + offs, x % y, mask=m)
        tl.store(quot_ptr + offs, x / y, mask=m)
    tl.store(cmp_ptr + 0 * BLOCK + offs, (x < y).to(tl.int8), mask=m)
    tl.store(cmp_ptr + 1 * BLOCK + offs, (x <= y).to(tl.int8), mask=m)
    tl.store(cmp_ptr + 2 * BLOCK + offs, (x > y).to(tl.int8), mask=m)
    tl.store(cmp_ptr + 3 * BLOCK + offs, (x >= y).to(tl.int8), mask=m)
    tl.store(cmp_ptr + 4 * BLOCK + offs, (x == y).to(tl.int8), mask=m)
    tl.store(cmp_ptr + 5 * BLOCK + offs, (x != y).to(tl.int8), mask=m)


def check_pair(xt, yt, to_device, from_device):
    seed = INTS.index(xt) * 8 + INTS.index(yt)
    x, y, s = operands(xt, yt, seed)
    r = promote(xt, yt)
    div = signed(xt) == signed(yt)
    # Poisoned outputs: every element the kernel must write starts wrong.
    out = np.full((10, BLOCK), 0x5A, r)
    quot = np.full(BLOCK, np.nan, np.float32)
    cmp = np.full((6, BLOCK), 7, np.int8)
    bufs = [to_device(a) for a in (x, y, s, out, quot, cmp)]
    int_ops[(1,)](*bufs, N, DIV=div, BLOCK=BLOCK)
    out, quot, cmp = (from_device(b) for b in bufs[3:])
    ops = ARITH + (DIVS if div else [])
    for i, op in enumerate(ops):
        rhs = s if op in ("<<", ">>") else y
        want = [reference(op, int(a), int(b), xt, yt) for a, b in zip(x, rhs)]
        got = [int(v) for v in out[i, :N]]
        bad = [j for j in range(N) if got[j] != want[j]]
        assert not bad, (f"{xt} {op} {yt} (in {r}): element {bad[0]}: "
                         f"{x[bad[0]]} {op} {rhs[bad[0]]} gave {got[bad[0]]}, "
                         f"want {want[bad[0]]}")
    if div:
        want = np.array([reference("/", int(a), int(b), xt, yt) for a, b in zip(x, y)])
        np.testing.assert_allclose(quot[:N], want, rtol=1e-6, err_msg=f"{xt} / {yt}")
    for i, op in enumerate(CMPS):
        want = [int(reference(op, int(a), int(b), xt, yt)) for a, b in zip(x, y)]
        got = [int(v) for v in cmp[i, :N]]
        bad = [j for j in range(N) if got[j] != want[j]]
        assert not bad, (f"{xt} {op} {yt} (in {r}): element {bad[0]}: "
                         f"{x[bad[0]]} {op} {y[bad[0]]} gave {got[bad[0]]}")


# ---------------------------------------------------------------------------
# The typing rules themselves
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("xt,yt", PAIRS)
def test_integer_promotion_is_c(xt, yt):
    a, b = core.dtype(xt), core.dtype(yt)
    assert semantic.computation_type(a, b, False).name == promote(xt, yt)
    if signed(xt) == signed(yt):
        assert semantic.computation_type(a, b, True).name == promote(xt, yt)
    else:
        with pytest.raises(semantic.SemanticError, match="signedness"):
            semantic.computation_type(a, b, True)


@pytest.mark.parametrize("a,b,a_lit,b_lit,div,want", [
    # A Python scalar of a kind no higher than the tensor's takes its type.
    ("uint8", "int32", False, True, False, "uint8"),
    ("int8", "int32", False, True, False, "int8"),
    ("fp16", "fp32", False, True, False, "fp16"),
    ("fp16", "fp32", False, True, True, "fp32"),
    ("bf16", "int32", False, True, False, "bf16"),
    ("int1", "int32", False, True, False, "int32"),
    ("int32", "fp32", False, True, False, "fp32"),
    ("int32", "uint32", True, False, False, "uint32"),
    # Floats: fp16 wins over bf16, bf16 with fp8 is fp32, / of halves fp32.
    ("fp16", "bf16", False, False, False, "fp16"),
    ("bf16", "bf16", False, False, False, "bf16"),
    ("bf16", "bf16", False, False, True, "fp32"),
    ("bf16", "fp8e4nv", False, False, False, "fp32"),
    ("fp16", "fp8e5", False, False, False, "fp16"),
    ("fp8e4nv", "fp8e4nv", False, False, False, "fp16"),
    ("fp64", "fp32", False, False, False, "fp64"),
    ("int64", "fp16", False, False, False, "fp16"),
    # bool is Triton's signed int1.
    ("int1", "uint8", False, False, False, "uint8"),
    ("int1", "int8", False, False, False, "int8"),
])
def test_computation_type(a, b, a_lit, b_lit, div, want):
    got = semantic.computation_type(core.dtype(a), core.dtype(b), div, a_lit, b_lit)
    assert got.name == want


@pytest.mark.parametrize("value,want", [
    (True, "int1"), (7, "int32"), (-(1 << 31), "int32"), (1 << 31, "uint32"),
    (1 << 32, "int64"), (-(1 << 40), "int64"), (1 << 63, "uint64"), (1.5, "fp32"),
    (1e-300, "fp64"), (1e300, "fp64"), (0.0, "fp32"), (float("inf"), "fp32"),
])
def test_literal_types(value, want):
    assert semantic.literal_type(value).name == want


# ---------------------------------------------------------------------------
# Rejections, at the kernel's line
# ---------------------------------------------------------------------------


@triton.jit
def mixed_div(x_ptr, y_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    y = tl.load(y_ptr + offs)
    if OP == "/":
        tl.store(out_ptr + offs, x / y)
    elif OP == "//":
        tl.store(out_ptr + offs, x // y)
    else:
        tl.store(out_ptr + offs, x % y)


@pytest.mark.parametrize("op", ["/", "//", "%"])
@pytest.mark.parametrize("xt,yt", [("int8", "uint8"), ("uint32", "int64"),
                                   ("int64", "uint16")])
def test_mixed_signedness_division_is_rejected(xt, yt, op, frontend_only):
    with pytest.raises(CompilationError,
                       match="Cannot use .* because they have different signedness") as e:
        mixed_div.warmup(*[np.zeros(16, t) for t in (xt, yt)], np.zeros(16, np.float32),
                         OP=op, grid=(1,))
    assert e.value.lineno == mixed_div.first_line + \
        next(i for i, l in enumerate(mixed_div.source_lines) if f"x {op} y" in l)


@triton.jit
def scalar_ops(x_ptr, out_ptr, OP: tl.constexpr):
    offs = tl.arange(0, 16)
    x = tl.load(x_ptr + offs)
    if OP == "neg":
        tl.store(out_ptr + offs, x + -1)
    else:
        tl.store(out_ptr + offs, x + 300)


@pytest.mark.parametrize("op,match", [("neg", "negative scalar -1"),
                                      ("range", "300 is out of range for type tl.uint8")])
def test_scalars_that_do_not_fit_are_rejected(op, match, frontend_only):
    with pytest.raises(CompilationError, match=match):
        scalar_ops.warmup(np.zeros(16, np.uint8), np.zeros(16, np.uint8), OP=op, grid=(1,))


# ---------------------------------------------------------------------------
# Values: the interpreter
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("xt,yt", PAIRS)
def test_integer_operators_interpreter(xt, yt, monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    check_pair(xt, yt, lambda a: a, lambda a: a)


def test_int16_greater_than_uint8_is_signed(monkeypatch):
    """The reported bug: int16 > uint8 computed unsigned, all True."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")

    @warpforge.jit
    def gt(x_ptr, y_ptr, out_ptr):
        offs = tl.arange(0, 4)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) > tl.load(y_ptr + offs))

    x = np.array([-5, -1, 3, 200], np.int16)
    y = np.array([1, 2, 2, 100], np.uint8)
    out = np.ones(4, np.bool_)
    gt[(1,)](x, y, out)
    assert out.tolist() == [False, False, True, True]


# ---------------------------------------------------------------------------
# Values: compiled for the GPU
# ---------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("xt,yt", PAIRS)
def test_integer_operators_gpu(xt, yt):
    import torch

    def to_device(a):
        # torch's uint16/32/64 tensors hold data but lack most kernels: move
        # the bytes and view them.
        t = torch.from_numpy(a.view(f"int{a.itemsize * 8}" if a.dtype.kind == "u"
                                    else a.dtype)).cuda()
        return t.view(getattr(torch, a.dtype.name)) if a.dtype.kind == "u" else t

    def from_device(t):
        dt = str(t.dtype).rsplit(".", 1)[-1]
        if dt.startswith("uint") and dt != "uint8":
            return t.view(getattr(torch, dt[1:])).cpu().numpy().view(dt)
        return t.cpu().numpy()

    check_pair(xt, yt, to_device, from_device)
