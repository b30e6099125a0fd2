"""Reductions, scans, layout conversions and reshapes, lowered to LLVM and
run for every thread of a CTA on the CPU (`warpforge-opt
--test-simulate-cta`), against NumPy.

Each case is a kernel that loads a tensor in a given blocked layout (or a
slice of one) from argument 0, applies one op, and stores the result
(in its own layout) to argument 1 (and 2).  The simulator runs the real
lowered code: the element lists of the layouts, the shuffles, the scratch
shared-memory addressing.  Layouts are drawn at random (with a fixed seed)
over shapes, orders, warps and element counts that wrap around the CTA
tile, so every thread-to-element mapping the lowering handles is covered.
"""

import os
import random
import re
import subprocess

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("WARPFORGE_BUILD_DIR", os.path.join(REPO, "build")),
                   "bin", "warpforge-opt")
ELEMENTS = 32768


@pytest.fixture(scope="module", autouse=True)
def built():
    if not os.path.exists(OPT):
        pytest.fail(f"{OPT} is not built")


def input_values(arg: int, n: int) -> np.ndarray:
    """What the simulator fills argument `arg` with."""
    i = np.arange(n, dtype=np.int64)
    return ((i * 7919 + arg * 104729) % 201 - 100).astype(np.int64)


def simulate(ir: str, arg_types, passes=("--tilegpu-to-llvm",)):
    """Lowers `ir` with `passes` and simulates its CTA: {(arg, index): value}
    for every element stored."""
    proc = subprocess.run(
        [OPT, *passes,
         f"--test-simulate-cta=arg-types={','.join(arg_types)} elements={ELEMENTS}"],
        input=ir, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"warpforge-opt failed:\n{proc.stderr}\n--- IR ---\n{ir}")
    out = {}
    for line in proc.stdout.splitlines():
        m = re.match(r"arg(\d+)\[(\d+)\] = (\S+)", line)
        if m:
            out[(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
    return out


def written(out, arg, n):
    missing = [i for i in range(n) if (arg, i) not in out]
    assert not missing, f"elements {missing[:8]}... of arg{arg} were not written"
    extra = [i for (a, i) in out if a == arg and i >= n]
    assert not extra, f"elements {extra[:8]} of arg{arg} written out of range"
    return np.array([out[(arg, i)] for i in range(n)])


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------

def blocked(spt, tpw, wpc, order):
    j = lambda v: ", ".join(map(str, v))  # noqa: E731
    return (f"#tilegpu.blocked<sizePerThread = [{j(spt)}], threadsPerWarp = [{j(tpw)}], "
            f"warpsPerCTA = [{j(wpc)}], order = [{j(order)}]>")


def split_pow2(rng, total, rank):
    """`total` (a power of two) as a product of `rank` powers of two."""
    parts = [1] * rank
    for _ in range(int(np.log2(total))):
        parts[rng.randrange(rank)] *= 2
    return parts


def random_blocked(rng, rank, num_warps):
    spt = [rng.choice([1, 1, 2, 4]) for _ in range(rank)]
    tpw = split_pow2(rng, 32, rank)
    wpc = split_pow2(rng, num_warps, rank)
    order = list(range(rank))
    rng.shuffle(order)
    return blocked(spt, tpw, wpc, order)


def random_shape(rng, rank, max_elems=2048):
    while True:
        shape = [rng.choice([1, 2, 4, 8, 16, 32, 64]) for _ in range(rank)]
        if int(np.prod(shape)) <= max_elems:
            return shape


def random_layout(rng, rank, num_warps):
    """A blocked layout of `rank`, or a slice of a rank + 1 one, or a slice
    of a slice of a rank + 2 one."""
    r = rng.random()
    if r < 0.1:
        parent = random_blocked(rng, rank + 2, num_warps)
        inner = f"#tilegpu.slice<dim = {rng.randrange(rank + 2)}, parent = {parent}>"
        return f"#tilegpu.slice<dim = {rng.randrange(rank + 1)}, parent = {inner}>"
    if r < 0.35:
        parent = random_blocked(rng, rank + 1, num_warps)
        dim = rng.randrange(rank + 1)
        return f"#tilegpu.slice<dim = {dim}, parent = {parent}>"
    return random_blocked(rng, rank, num_warps)


def slice_of(layout, dim):
    return f"#tilegpu.slice<dim = {dim}, parent = {layout}>"


# ---------------------------------------------------------------------------
# IR building
# ---------------------------------------------------------------------------

class Kernel:
    def __init__(self, num_warps, args, arg_attrs=None):
        self.num_warps = num_warps
        self.args = args  # element types of the pointer arguments
        self.arg_attrs = arg_attrs or {}  # argument index -> attribute text
        self.lines = []
        self.n = 0

    def fresh(self):
        self.n += 1
        return f"%v{self.n}"

    def emit(self, text):
        name = self.fresh()
        self.lines.append(f"    {name} = {text}")
        return name

    @staticmethod
    def ttype(shape, elem, layout):
        return f"tensor<{'x'.join(map(str, shape))}x{elem}, {layout}>"

    def coord(self, d, shape, layout):
        """Coordinate `d` of a `shape` tensor in `layout`, broadcast."""
        rank = len(shape)
        if rank == 1:
            return self.emit(f"tile.make_range {{start = 0 : i32, end = {shape[0]} : i32}} : "
                             f"{self.ttype(shape, 'i32', layout)}")
        # Build it with size 1 at every other dim, then broadcast.
        ones = [s if i == d else 1 for i, s in enumerate(shape)]
        m = max(i for i in range(rank) if i != d)
        sub_shape = ones[:m] + ones[m + 1:]
        sub = self.coord(d if d < m else d - 1, sub_shape, slice_of(layout, m))
        sub_type = self.ttype(sub_shape, "i32", slice_of(layout, m))
        v = self.emit(f"tile.expand_dims {sub} {{axis = {m} : i32}} : {sub_type} -> "
                      f"{self.ttype(ones, 'i32', layout)}")
        if ones != list(shape):
            v = self.emit(f"tile.broadcast {v} : {self.ttype(ones, 'i32', layout)} -> "
                          f"{self.ttype(shape, 'i32', layout)}")
        return v

    def offsets(self, shape, layout, strides=None):
        if strides is None:
            strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
        it = self.ttype(shape, "i32", layout)
        total = None
        for d in range(len(shape)):
            c = self.coord(d, shape, layout)
            if strides[d] != 1:
                k = self.emit(f"arith.constant dense<{strides[d]}> : {it}")
                c = self.emit(f"arith.muli {c}, {k} : {it}")
            total = c if total is None else self.emit(f"arith.addi {total}, {c} : {it}")
        return total

    def pointers(self, arg, shape, layout, strides=None):
        elem = self.args[arg]
        pt = self.ttype(shape, f"!tile.ptr<{elem}>", layout)
        p = self.emit(f"tile.splat %arg{arg} : !tile.ptr<{elem}> -> {pt}")
        offs = self.offsets(shape, layout, strides)
        return self.emit(f"tile.addptr {p}, {offs} : {pt}, {self.ttype(shape, 'i32', layout)}"), pt

    def load(self, arg, shape, layout):
        ptrs, pt = self.pointers(arg, shape, layout)
        return self.emit(f"tile.load {ptrs} : {pt}")

    def store(self, arg, value, shape, layout):
        if not shape:  # a scalar
            self.lines.append(f"    tile.store %arg{arg}, {value} : !tile.ptr<{self.args[arg]}>")
            return
        ptrs, pt = self.pointers(arg, shape, layout)
        self.lines.append(f"    tile.store {ptrs}, {value} : {pt}")

    def text(self):
        params = ", ".join(f"%arg{i}: !tile.ptr<{t}>" +
                           (f" {{{self.arg_attrs[i]}}}" if i in self.arg_attrs else "")
                           for i, t in enumerate(self.args))
        body = "\n".join(self.lines)
        return (f'module attributes {{"tilegpu.num-warps" = {self.num_warps} : i32}} {{\n'
                f"  tile.func public @kernel({params}) {{\n{body}\n    tile.return\n  }}\n}}\n")


COMBINERS = {
    "sum": ("arith.addf", np.sum),
    "max": ("arith.maximumf", np.max),
    "isum": ("arith.addi", np.sum),
}


def reduce_region(kind, elem):
    op, _ = COMBINERS[kind]
    return (f"^bb0(%l: {elem}, %r: {elem}):\n      %c = {op} %l, %r : {elem}\n"
            f"      tile.reduce.return %c : {elem}")


ARG_COMBINE = """^bb0(%xa: f32, %ia: i32, %xb: f32, %ib: i32):
      %gt = arith.cmpf ogt, %xa, %xb : f32
      %eq = arith.cmpf oeq, %xa, %xb : f32
      %lt = arith.cmpi slt, %ia, %ib : i32
      %tie = arith.andi %eq, %lt : i1
      %pick = arith.ori %gt, %tie : i1
      %xv = arith.select %pick, %xa, %xb : f32
      %iv = arith.select %pick, %ia, %ib : i32
      tile.reduce.return %xv, %iv : f32, i32"""


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------

def reduce_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        rank = rng.choice([1, 2, 2, 3])
        shape = random_shape(rng, rank)
        layout = random_layout(rng, rank, num_warps)
        axis = rng.randrange(rank)
        kind = rng.choice(["sum", "max", "isum", "argmax"])
        cases.append((num_warps, shape, layout, axis, kind))
    return cases


def run_reduce(num_warps, shape, layout, axis, kind):
    elem = "i32" if kind == "isum" else "f32"
    out_shape = [s for i, s in enumerate(shape) if i != axis]
    out_layout = slice_of(layout, axis) if out_shape else None
    args = [elem, elem] if kind != "argmax" else ["f32", "i32", "f32"]
    k = Kernel(num_warps, args)
    x = k.load(0, shape, layout)
    in_type = k.ttype(shape, elem, layout)
    out_type = (lambda e: k.ttype(out_shape, e, out_layout)) if out_shape else (lambda e: e)
    if kind == "argmax":
        idx = k.coord(axis, shape, layout)
        r = k.fresh()
        k.lines.append(
            f"    {r}:2 = tile.reduce {x}, {idx} axis = {axis} : {in_type}, "
            f"{k.ttype(shape, 'i32', layout)} -> {out_type('f32')}, {out_type('i32')} {{\n"
            f"    {ARG_COMBINE}\n    }}")
        k.store(1, f"{r}#1", out_shape, out_layout)
        k.store(2, f"{r}#0", out_shape, out_layout)
    else:
        r = k.emit(f"tile.reduce {x} axis = {axis} : {in_type} -> {out_type(elem)} {{\n"
                   f"    {reduce_region(kind, elem)}\n    }}")
        k.store(1, r, out_shape, out_layout)
    out = simulate(k.text(), args)
    n = int(np.prod(shape))
    x_np = input_values(0, n).reshape(shape).astype(np.float64)
    n_out = int(np.prod(out_shape)) if out_shape else 1
    if kind == "argmax":
        np.testing.assert_array_equal(written(out, 1, n_out),
                                      np.argmax(x_np, axis=axis).reshape(-1))
        np.testing.assert_array_equal(written(out, 2, n_out),
                                      np.max(x_np, axis=axis).reshape(-1))
    else:
        ref = COMBINERS[kind][1](x_np, axis=axis).reshape(-1)
        np.testing.assert_array_equal(written(out, 1, n_out), ref)


@pytest.mark.parametrize("case", reduce_cases(60, seed=1), ids=str)
def test_reduce(case):
    run_reduce(*case)


@pytest.mark.parametrize("case", [
    # A warp along the axis, lanes of stride 8 (order [0, 1]).
    (1, [8, 32], blocked([1, 1], [4, 8], [1, 1], [0, 1]), 1, "sum"),
    # Warps along the axis: partials through shared memory.
    (4, [16, 64], blocked([1, 2], [4, 8], [1, 4], [1, 0]), 1, "sum"),
    # Tensor smaller than the CTA tile along the axis: copies must not count.
    (8, [4, 8], blocked([1, 1], [2, 16], [4, 2], [1, 0]), 1, "sum"),
    (8, [4, 8], blocked([1, 1], [2, 16], [4, 2], [1, 0]), 0, "sum"),
    (4, [2], blocked([4], [32], [4], [0]), 0, "sum"),
    (8, [128], blocked([1], [32], [8], [0]), 0, "argmax"),
    # Several repetitions of the CTA tile along the axis, with warps.
    (4, [256], blocked([2], [32], [4], [0]), 0, "isum"),
    # A slice of a 3-D layout.
    (4, [16, 8], slice_of(blocked([1, 2, 1], [4, 2, 4], [2, 1, 2], [2, 0, 1]), 1), 1, "max"),
], ids=str)
def test_reduce_chosen(case):
    run_reduce(*case)


def scan_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        rank = rng.choice([1, 2, 2, 3])
        shape = random_shape(rng, rank)
        layout = random_layout(rng, rank, num_warps)
        axis = rng.randrange(rank)
        cases.append((num_warps, shape, layout, axis, rng.random() < 0.4))
    return cases


def run_scan(num_warps, shape, layout, axis, reverse, elem="i32"):
    k = Kernel(num_warps, [elem, elem])
    x = k.load(0, shape, layout)
    t = k.ttype(shape, elem, layout)
    r = k.emit(f"tile.scan {x} axis = {axis}{' reverse' if reverse else ''} : {t} -> {t} {{\n"
               f"    ^bb0(%l: {elem}, %r: {elem}):\n      %c = arith.addi %l, %r : {elem}\n"
               f"      tile.scan.return %c : {elem}\n    }}")
    k.store(1, r, shape, layout)
    out = simulate(k.text(), [elem, elem])
    n = int(np.prod(shape))
    x_np = input_values(0, n).reshape(shape)
    if reverse:
        ref = np.flip(np.cumsum(np.flip(x_np, axis), axis=axis), axis)
    else:
        ref = np.cumsum(x_np, axis=axis)
    np.testing.assert_array_equal(written(out, 1, n), ref.reshape(-1))


@pytest.mark.parametrize("case", scan_cases(50, seed=2), ids=str)
def test_scan(case):
    run_scan(*case)


@pytest.mark.parametrize("case", [
    (4, [512], blocked([2], [32], [4], [0]), 0, False),
    (4, [512], blocked([2], [32], [4], [0]), 0, True),
    (8, [8, 16], blocked([1, 1], [4, 8], [2, 4], [0, 1]), 1, True),
    (4, [4], blocked([1], [32], [4], [0]), 0, False),
    (2, [64, 4], blocked([2, 1], [8, 4], [2, 1], [1, 0]), 0, True),
], ids=str)
def test_scan_chosen(case):
    run_scan(*case)


def test_scan_keeps_the_combiner_order():
    """A non-commutative associative combiner: (a, b) -> a * 3^len(b) + b
    kept modulo 2^32 through pairs (value, weight)."""
    shape, layout = [256], blocked([2], [32], [4], [0])
    k = Kernel(4, ["i32", "i32", "i32", "i32"])
    x = k.load(0, shape, layout)
    t = k.ttype(shape, "i32", layout)
    w = k.emit(f"arith.constant dense<3> : {t}")
    r = k.fresh()
    k.lines.append(
        f"    {r}:2 = tile.scan {x}, {w} axis = 0 : {t}, {t} -> {t}, {t} {{\n"
        "    ^bb0(%a: i32, %wa: i32, %b: i32, %wb: i32):\n"
        "      %m = arith.muli %a, %wb : i32\n      %s = arith.addi %m, %b : i32\n"
        "      %w = arith.muli %wa, %wb : i32\n"
        "      tile.scan.return %s, %w : i32, i32\n    }")
    k.store(1, f"{r}#0", shape, layout)
    out = simulate(k.text(), ["i32"] * 4)
    x_np = input_values(0, 256)
    ref, acc = [], 0
    for v in x_np:
        acc = (acc * 3 + int(v)) & 0xFFFFFFFF
        ref.append(acc - (1 << 32) if acc >= 1 << 31 else acc)
    np.testing.assert_array_equal(written(out, 1, 256), np.array(ref))


def convert_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        rank = rng.choice([1, 2, 2, 3])
        shape = random_shape(rng, rank)
        cases.append((num_warps, shape, random_layout(rng, rank, num_warps),
                      random_layout(rng, rank, num_warps)))
    return cases


def run_convert(num_warps, shape, src, dst, elem="f32"):
    k = Kernel(num_warps, [elem, elem])
    x = k.load(0, shape, src)
    y = k.emit(f"tilegpu.convert_layout {x} : {k.ttype(shape, elem, src)} -> "
               f"{k.ttype(shape, elem, dst)}")
    k.store(1, y, shape, dst)
    out = simulate(k.text(), [elem, elem])
    n = int(np.prod(shape))
    np.testing.assert_array_equal(written(out, 1, n), input_values(0, n))


@pytest.mark.parametrize("case", convert_cases(50, seed=3), ids=str)
def test_convert_layout(case):
    run_convert(*case)


@pytest.mark.parametrize("case", [
    # Transpose-like: rows of 64 words, padded.
    (4, [64, 64], blocked([1, 4], [4, 8], [4, 1], [1, 0]),
     blocked([4, 1], [8, 4], [1, 4], [0, 1])),
    # More than 64 KB: several rounds.
    (4, [128, 256], blocked([1, 4], [4, 8], [4, 1], [1, 0]),
     blocked([4, 1], [8, 4], [1, 4], [0, 1])),
    # Same placement, a dim of size 1 differs: registers only.
    (4, [1, 128], blocked([1, 1], [1, 32], [1, 4], [1, 0]),
     blocked([2, 1], [1, 32], [1, 4], [0, 1])),
], ids=str)
def test_convert_layout_chosen(case):
    run_convert(*case)


@pytest.mark.parametrize("elem", ["i8", "i16", "f16", "i64", "f64"])
def test_convert_layout_element_widths(elem):
    run_convert(4, [32, 32], blocked([1, 4], [4, 8], [4, 1], [1, 0]),
                blocked([1, 1], [32, 1], [1, 4], [0, 1]), elem=elem)


def reshape_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        rank = rng.choice([1, 2, 3])
        shape = random_shape(rng, rank)
        n = int(np.prod(shape))
        new_rank = rng.choice([1, 2, 3])
        new_shape = split_pow2(rng, n, new_rank)
        cases.append((num_warps, shape, random_layout(rng, rank, num_warps), new_shape,
                      random_blocked(rng, new_rank, num_warps), rng.random() < 0.3))
    return cases


def run_reshape(num_warps, shape, src, new_shape, dst, allow_reorder):
    k = Kernel(num_warps, ["f32", "f32"])
    x = k.load(0, shape, src)
    flag = " allow_reorder" if allow_reorder else ""
    y = k.emit(f"tile.reshape {x}{flag} : {k.ttype(shape, 'f32', src)} -> "
               f"{k.ttype(new_shape, 'f32', dst)}")
    k.store(1, y, new_shape, dst)
    out = simulate(k.text(), ["f32", "f32"])
    n = int(np.prod(shape))
    got = written(out, 1, n)
    if allow_reorder:
        np.testing.assert_array_equal(np.sort(got), np.sort(input_values(0, n)))
    else:
        np.testing.assert_array_equal(got, input_values(0, n))


@pytest.mark.parametrize("case", reshape_cases(40, seed=4), ids=str)
def test_reshape(case):
    run_reshape(*case)


# ---------------------------------------------------------------------------
# Shared-memory buffers
# ---------------------------------------------------------------------------

def memdesc(shape, elem, order, mutable=False, buffers=1):
    text = f"!tilegpu.memdesc<{'x'.join(map(str, shape))}x{elem}, #tilegpu.shared<order = [{', '.join(map(str, order))}]>"
    if mutable:
        text += ", mutable"
    if buffers > 1:
        text += f", buffers = {buffers}"
    return text + ">"


def shared_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        rank = rng.choice([1, 2, 3])
        shape = random_shape(rng, rank)
        order = list(range(rank))
        rng.shuffle(order)
        cases.append((num_warps, shape, random_layout(rng, rank, num_warps),
                      random_layout(rng, rank, num_warps), order))
    return cases


@pytest.mark.parametrize("case", shared_cases(30, seed=5), ids=str)
def test_local_alloc_and_load(case):
    num_warps, shape, src, dst, order = case
    k = Kernel(num_warps, ["f32", "f32"])
    x = k.load(0, shape, src)
    md = memdesc(shape, "f32", order)
    m = k.emit(f"tilegpu.local_alloc {x} : ({k.ttype(shape, 'f32', src)}) -> {md}")
    y = k.emit(f"tilegpu.local_load {m} : {md} -> {k.ttype(shape, 'f32', dst)}")
    k.store(1, y, shape, dst)
    out = simulate(k.text(), ["f32", "f32"])
    n = int(np.prod(shape))
    np.testing.assert_array_equal(written(out, 1, n), input_values(0, n))


@pytest.mark.parametrize("order", [[1, 0], [0, 1]])
def test_local_store_into_a_ring_and_load_a_sub_tile(order):
    src = blocked([1, 4], [4, 8], [4, 1], [1, 0])
    dst = blocked([2, 1], [16, 2], [1, 4], [0, 1])
    k = Kernel(4, ["f32", "f32"])
    x = k.load(0, [32, 64], src)
    ring = memdesc([32, 64], "f32", order, mutable=True, buffers=3)
    one = memdesc([32, 64], "f32", order, mutable=True)
    sub = memdesc([16, 32], "f32", order, mutable=True)
    m = k.emit(f"tilegpu.local_alloc : () -> {ring}")
    i = k.emit("arith.constant 2 : i32")
    b = k.emit(f"tilegpu.memdesc_index {m}[{i}] : {ring} -> {one}")
    k.lines.append(f"    tilegpu.local_store {x}, {b} : {k.ttype([32, 64], 'f32', src)} -> {one}")
    s = k.emit(f"tilegpu.memdesc_subslice {b} [16, 32] : {one} -> {sub}")
    y = k.emit(f"tilegpu.local_load {s} : {sub} -> {k.ttype([16, 32], 'f32', dst)}")
    k.store(1, y, [16, 32], dst)
    out = simulate(k.text(), ["f32", "f32"])
    ref = input_values(0, 32 * 64).reshape(32, 64)[16:32, 32:64]
    np.testing.assert_array_equal(written(out, 1, 16 * 32), ref.reshape(-1))


# ---------------------------------------------------------------------------
# Swizzled (nvmma_shared) buffers and cp.async
# ---------------------------------------------------------------------------

ELEM_BITS = {"i8": 8, "f16": 16, "bf16": 16, "f32": 32}


def nvmma(shape, elem, swizzle, transposed, mutable=False):
    text = (f"!tilegpu.memdesc<{'x'.join(map(str, shape))}x{elem}, "
            f"#tilegpu.nvmma_shared<swizzlingByteWidth = {swizzle}, "
            f"transposed = {'true' if transposed else 'false'}, "
            f"elementBitWidth = {ELEM_BITS[elem]}>")
    return text + (", mutable>" if mutable else ">")


def vector_blocked(rng, num_warps, contiguous_dim):
    """A 2-D blocked layout whose threads often hold runs along
    `contiguous_dim` (vector accesses), sometimes along the other dim."""
    spt = [rng.choice([1, 1, 2]) for _ in range(2)]
    fast = contiguous_dim if rng.random() < 0.7 else 1 - contiguous_dim
    spt[fast] = rng.choice([1, 2, 4, 8, 16])
    return blocked(spt, split_pow2(rng, 32, 2), split_pow2(rng, num_warps, 2),
                   [fast, 1 - fast])


def nvmma_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4, 8])
        elem = rng.choice(["i8", "f16", "f32"])
        swizzle = rng.choice([0, 32, 64, 128])
        transposed = rng.random() < 0.4
        contiguous = 0 if transposed else 1
        # The contiguous dim holds whole swizzle rows, one or more blocks.
        row = max(1, swizzle * 8 // ELEM_BITS[elem])
        shape = [0, 0]
        shape[contiguous] = row * rng.choice([1, 2]) if swizzle else rng.choice([8, 16, 64])
        shape[1 - contiguous] = rng.choice([8, 16, 32, 64])
        if shape[0] * shape[1] > 8192:
            shape[1 - contiguous] = 8
        src = vector_blocked(rng, num_warps, contiguous)
        dst = (vector_blocked(rng, num_warps, contiguous) if rng.random() < 0.7
               else random_layout(rng, 2, num_warps))
        cases.append((num_warps, elem, shape, swizzle, transposed, src, dst))
    return cases


@pytest.mark.parametrize("case", nvmma_cases(40, seed=6), ids=str)
def test_nvmma_alloc_and_load_round_trip(case):
    """Two swizzled buffers written (vector stores), read back in other
    layouts: the placement is a bijection onto each buffer's bytes (a
    collision or an address outside the buffer would clobber an element)
    and stores and loads agree on it."""
    num_warps, elem, shape, swizzle, transposed, src, dst = case
    k = Kernel(num_warps, [elem, elem, elem, elem])
    md = nvmma(shape, elem, swizzle, transposed)
    x = k.load(0, shape, src)
    y = k.load(1, shape, src)
    mx = k.emit(f"tilegpu.local_alloc {x} : ({k.ttype(shape, elem, src)}) -> {md}")
    my = k.emit(f"tilegpu.local_alloc {y} : ({k.ttype(shape, elem, src)}) -> {md}")
    for arg, m in ((2, mx), (3, my)):
        v = k.emit(f"tilegpu.local_load {m} : {md} -> {k.ttype(shape, elem, dst)}")
        k.store(arg, v, shape, dst)
    out = simulate(k.text(), [elem] * 4)
    n = int(np.prod(shape))
    np.testing.assert_array_equal(written(out, 2, n), input_values(0, n))
    np.testing.assert_array_equal(written(out, 3, n), input_values(1, n))


@pytest.mark.parametrize("case", nvmma_cases(15, seed=7), ids=str)
def test_nvmma_local_store_into_a_ring(case):
    num_warps, elem, shape, swizzle, transposed, src, dst = case
    k = Kernel(num_warps, [elem, elem])
    ring = nvmma(shape, elem, swizzle, transposed, mutable=True).replace(
        ", mutable>", ", mutable, buffers = 2>")
    one = nvmma(shape, elem, swizzle, transposed, mutable=True)
    x = k.load(0, shape, src)
    m = k.emit(f"tilegpu.local_alloc : () -> {ring}")
    i = k.emit("arith.constant 1 : i32")
    b = k.emit(f"tilegpu.memdesc_index {m}[{i}] : {ring} -> {one}")
    k.lines.append(f"    tilegpu.local_store {x}, {b} : {k.ttype(shape, elem, src)} -> {one}")
    y = k.emit(f"tilegpu.local_load {b} : {one} -> {k.ttype(shape, elem, dst)}")
    k.store(1, y, shape, dst)
    out = simulate(k.text(), [elem, elem])
    n = int(np.prod(shape))
    np.testing.assert_array_equal(written(out, 1, n), input_values(0, n))


def async_copy_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 4, 8])
        elem = rng.choice(["i8", "f16", "f32"])
        # Plain buffers (order [1, 0]) or swizzled ones, row-contiguous.
        swizzle = rng.choice([None, 0, 32, 64, 128])
        row = max(4, (swizzle or 32) * 8 // ELEM_BITS[elem])
        shape = [rng.choice([8, 16, 32]), row * rng.choice([1, 2])]
        spt = rng.choice([4, 8, 16]) * 8 // ELEM_BITS[elem]  # >= 4 bytes
        spt = min(spt, shape[1])
        tpw = split_pow2(rng, 32, 2)
        src = blocked([1, spt], tpw, split_pow2(rng, num_warps, 2), [1, 0])
        dst = random_layout(rng, 2, num_warps)
        masked_rows = rng.choice([None, shape[0] // 2 + 1])
        cases.append((num_warps, elem, shape, swizzle, src, dst, masked_rows))
    return cases


@pytest.mark.parametrize("case", async_copy_cases(30, seed=8), ids=str)
def test_async_copy_then_load(case):
    """cp.async from global (16-byte aligned, so vectors of up to 16 bytes)
    into a plain or swizzled buffer, masked rows zero-filled, read back in
    another layout."""
    num_warps, elem, shape, swizzle, src, dst, masked_rows = case
    k = Kernel(num_warps, [elem, elem], arg_attrs={0: "tile.divisibility = 16 : i32"})
    if swizzle is None:
        md = memdesc(shape, elem, [1, 0], mutable=True)
    else:
        md = nvmma(shape, elem, swizzle, False, mutable=True)
    ptrs, pt = k.pointers(0, shape, src)
    mask = ""
    if masked_rows is not None:
        rows = k.coord(0, shape, src)
        limit = k.emit(f"arith.constant dense<{masked_rows}> : {k.ttype(shape, 'i32', src)}")
        m = k.emit(f"arith.cmpi slt, {rows}, {limit} : {k.ttype(shape, 'i32', src)}")
        mask = f" mask {m} : {k.ttype(shape, 'i1', src)}"
    buf = k.emit(f"tilegpu.local_alloc : () -> {md}")
    t = k.emit(f"tilegpu.async_copy_global_to_local {ptrs}, {buf}{mask} : {pt} -> {md}")
    g = k.emit(f"tilegpu.async_commit_group tokens {t}")
    k.emit(f"tilegpu.async_wait tokens {g} {{num = 0 : i32}}")
    k.lines.append("    tile.barrier")
    y = k.emit(f"tilegpu.local_load {buf} : {md} -> {k.ttype(shape, elem, dst)}")
    k.store(1, y, shape, dst)
    ir = k.text()
    # As wide as the thread's run and the 16-byte alignment allow.
    spt = int(re.search(r"sizePerThread = \[1, (\d+)\]", src).group(1))
    width = min(16, spt * ELEM_BITS[elem] // 8)
    lowered = subprocess.run([OPT, "--tilegpu-to-llvm"], input=ir, capture_output=True,
                             text=True, timeout=300, check=True).stdout
    copies = re.findall(r"cp\.async\.(cg|ca)\.shared\.global \[ \$0 \+ 0 \], "
                        r"\[ \$1 \+ 0 \], (\d+)", lowered)
    assert copies and {int(b) for _, b in copies} == {width}, copies
    out = simulate(ir, [elem, elem])
    n = int(np.prod(shape))
    want = input_values(0, n).reshape(shape)
    if masked_rows is not None:
        want[masked_rows:, :] = 0
    np.testing.assert_array_equal(written(out, 1, n), want.reshape(-1))


def nvmma_byte_offset(o, c, lo, lc, eb, swizzle):
    """Where the nvmma_shared contract puts element (o, c) (o along the
    other dim, c along the contiguous one): a model independent of the
    lowering's emitNVMMAOffset."""
    if swizzle == 0:
        return (o * lc + c) * eb
    w = swizzle // eb
    u = (c // w) * lo * swizzle + o * swizzle + (c % w) * eb
    return u ^ (((u >> 7) & (swizzle // 16 - 1)) << 4)


NUMPY_TYPES = {"i8": np.int8, "f16": np.float16, "f32": np.float32}


@pytest.mark.parametrize("case", nvmma_cases(16, seed=9), ids=str)
def test_nvmma_placement_matches_the_swizzle_contract(case):
    """The bytes a swizzled local_alloc leaves in shared memory are the
    elements where the contract (which wgmma's descriptors rely on) puts
    them."""
    num_warps, elem, shape, swizzle, transposed, src, dst = case
    k = Kernel(num_warps, [elem, elem])
    md = nvmma(shape, elem, swizzle, transposed)
    x = k.load(0, shape, src)
    m = k.emit(f"tilegpu.local_alloc {x} : ({k.ttype(shape, elem, src)}) -> {md}")
    y = k.emit(f"tilegpu.local_load {m} : {md} -> {k.ttype(shape, elem, dst)}")
    k.store(1, y, shape, dst)
    eb = ELEM_BITS[elem] // 8
    n = int(np.prod(shape))
    proc = subprocess.run(
        [OPT, "--tilegpu-to-llvm",
         f"--test-simulate-cta=arg-types={elem},{elem} elements={ELEMENTS} "
         f"dump-shared-bytes={n * eb}"],
        input=k.text(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    smem = np.zeros(n * eb, dtype=np.uint8)
    for line in proc.stdout.splitlines():
        m = re.match(r"smem\[(\d+)\] = (\d+)", line)
        if m:
            smem[int(m.group(1))] = int(m.group(2))
    values = input_values(0, n).astype(NUMPY_TYPES[elem]).reshape(shape)
    want = np.zeros(n * eb, dtype=np.uint8)
    cdim = 0 if transposed else 1
    lc, lo = shape[cdim], shape[1 - cdim]
    for r in range(shape[0]):
        for c in range(shape[1]):
            o, cc = (c, r) if transposed else (r, c)
            at = nvmma_byte_offset(o, cc, lo, lc, eb, swizzle)
            want[at:at + eb] = np.frombuffer(values[r, c].tobytes(), dtype=np.uint8)
    np.testing.assert_array_equal(smem, want)


def wgmma_epilogue(warps, wpc, instr_n, shape, elem, body, per_thread=4):
    """A kernel that loads an f32 tensor into a wgmma layout, applies
    `body(k, x, f32_type, out_type)` (which returns a value of `elem` in
    that layout) and stores it back through a blocked layout (`per_thread`
    columns a thread): (kernel text, number of elements)."""
    wg = f"#tilegpu.wgmma<warpsPerCTA = [{wpc[0]}, {wpc[1]}], instrShape = [64, {instr_n}, 16]>"
    bl = blocked([1, per_thread], [4, 8], [warps, 1], [1, 0])
    k = Kernel(warps, ["f32", elem])
    f32, out = k.ttype(shape, "f32", wg), k.ttype(shape, elem, wg)
    x = k.load(0, shape, bl)
    xw = k.emit(f"tilegpu.convert_layout {x} : {k.ttype(shape, 'f32', bl)} -> {f32}")
    t = body(k, xw, f32, out)
    back = k.emit(f"tilegpu.convert_layout {t} : {out} -> {k.ttype(shape, elem, bl)}")
    k.store(1, back, shape, bl)
    return k.text(), int(np.prod(shape))


@pytest.mark.parametrize("warps, wpc, instr_n, shape", [
    (4, [4, 1], 64, [64, 64]), (4, [4, 1], 128, [128, 128]), (8, [8, 1], 64, [128, 64]),
    (8, [4, 2], 64, [64, 128])], ids=str)
def test_epilogue_arithmetic_in_the_wgmma_layout(warps, wpc, instr_n, shape):
    """What tilegpu-accelerate-matmul now sinks before the conversion out of
    a product's wgmma layout: a scale by a splat, a splat constant added, a
    cast; element by element in the accumulator's registers."""
    def body(k, xw, f32, f16):
        s = k.emit("arith.constant 3.0 : f32")
        sp = k.emit(f"tile.splat {s} : f32 -> {f32}")
        m = k.emit(f"arith.mulf {xw}, {sp} : {f32}")
        one = k.emit(f"arith.constant dense<1.0> : {f32}")
        a = k.emit(f"arith.addf {m}, {one} : {f32}")
        return k.emit(f"arith.truncf {a} : {f32} to {f16}")
    text, n = wgmma_epilogue(warps, wpc, instr_n, shape, "f16", body)
    out = simulate(text, ["f32", "f16"])
    np.testing.assert_array_equal(written(out, 1, n), input_values(0, n) * 3.0 + 1.0)


def round_to_bf16(x: np.ndarray) -> np.ndarray:
    """f32 -> bf16 -> f32, round to nearest even (finite values)."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return bits.astype(np.uint32).view(np.float32)


@pytest.mark.parametrize("elem", ["f16", "bf16"])
@pytest.mark.parametrize("warps, wpc, instr_n, shape", [
    (4, [4, 1], 64, [64, 64]), (8, [4, 2], 64, [64, 128]),
    (8, [8, 1], 176, [128, 176])], ids=str)
def test_paired_truncation_in_the_wgmma_layout(elem, warps, wpc, instr_n, shape):
    """f32 -> f16/bf16 truncation two elements per cvt (cvt.rn.f16x2.f32,
    cvt.rn.bf16x2.f32), on values that round (x / 7): each element lands in
    its own place and is rounded to nearest even."""
    def body(k, xw, f32, half):
        seven = k.emit(f"arith.constant dense<7.0> : {f32}")
        d = k.emit(f"arith.divf {xw}, {seven} : {f32}")
        return k.emit(f"arith.truncf {d} : {f32} to {half}")
    text, n = wgmma_epilogue(warps, wpc, instr_n, shape, elem, body,
                             per_thread=4 if shape[1] % 32 == 0 else 2)
    lowered = subprocess.run([OPT, "--tilegpu-to-llvm"], input=text, capture_output=True,
                             text=True, timeout=300).stdout
    assert f"cvt.rn.{elem}x2.f32" in lowered
    out = simulate(text, ["f32", elem])
    quotient = input_values(0, n).astype(np.float32) / np.float32(7)
    want = (quotient.astype(np.float16).astype(np.float64) if elem == "f16"
            else round_to_bf16(quotient).astype(np.float64))
    np.testing.assert_array_equal(written(out, 1, n), want)


@pytest.mark.parametrize("axis", [1, 0])
@pytest.mark.parametrize("warps, wpc, instr_n, shape", [
    (4, [4, 1], 64, [64, 64]), (8, [8, 1], 128, [128, 128]), (8, [8, 1], 64, [128, 64]),
    (8, [4, 2], 64, [64, 128]), (4, [4, 1], 32, [128, 64]),
    # Experimental (WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS): FlashAttention-3's
    # 176 columns, one m64n176 instruction a row of warps.
    (8, [8, 1], 176, [128, 176])], ids=str)
def test_softmax_steps_in_the_wgmma_layout(warps, wpc, instr_n, shape, axis):
    """An attention softmax's steps without leaving the accumulator's
    registers: a max along `axis` into a slice of the wgmma layout, a
    make_range in that slice, expand_dims and broadcast back, and the
    element-wise x - max + index; the result then leaves through a
    conversion (whose source, a slice, replicates elements over lanes)."""
    def body(k, xw, f32, _):
        red_shape = [s for i, s in enumerate(shape) if i != axis]
        sl = slice_of(wg, axis)
        red_t = k.ttype(red_shape, "f32", sl)
        r = k.emit(f"tile.reduce {xw} axis = {axis} : {f32} -> {red_t} {{\n"
                   f"    {reduce_region('max', 'f32')}\n    }}")
        idx = k.emit(f"tile.make_range {{start = 0 : i32, end = {red_shape[0]} : i32}} : "
                     f"{k.ttype(red_shape, 'i32', sl)}")
        idxf = k.emit(f"arith.sitofp {idx} : {k.ttype(red_shape, 'i32', sl)} to {red_t}")
        v = k.emit(f"arith.addf {r}, {idxf} : {red_t}")
        ones = [1 if i == axis else s for i, s in enumerate(shape)]
        e = k.emit(f"tile.expand_dims {v} {{axis = {axis} : i32}} : {red_t} -> "
                   f"{k.ttype(ones, 'f32', wg)}")
        b = k.emit(f"tile.broadcast {e} : {k.ttype(ones, 'f32', wg)} -> {f32}")
        return k.emit(f"arith.subf {xw}, {b} : {f32}")
    wg = f"#tilegpu.wgmma<warpsPerCTA = [{wpc[0]}, {wpc[1]}], instrShape = [64, {instr_n}, 16]>"
    # The blocked layout the values come and go through must tile the
    # shape: 176 columns are 11 tiles of 2 x 8.
    text, n = wgmma_epilogue(warps, wpc, instr_n, shape, "f32", body,
                             per_thread=4 if shape[1] % 32 == 0 else 2)
    out = simulate(text, ["f32", "f32"])
    x = input_values(0, n).reshape(shape).astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    idx = np.arange(shape[1 - axis]).reshape([-1, 1] if axis == 1 else [1, -1])
    np.testing.assert_array_equal(written(out, 1, n), (x - (m + idx)).reshape(-1))


@pytest.mark.parametrize("warps, wpc, instr_n, shape", [
    (8, [8, 1], 128, [128, 128]), (8, [4, 2], 64, [64, 128])], ids=str)
def test_wgmma_row_slice_to_and_from_blocked(warps, wpc, instr_n, shape):
    """A row vector (slice along dim 1 of the accumulator) converted to a
    1-D blocked layout and back, and to the slice of another wgmma layout
    with the same rows (in registers), then stored."""
    wg = f"#tilegpu.wgmma<warpsPerCTA = [{wpc[0]}, {wpc[1]}], instrShape = [64, {instr_n}, 16]>"
    wg2 = f"#tilegpu.wgmma<warpsPerCTA = [{wpc[0]}, {wpc[1]}], instrShape = [64, 32, 16]>"
    b1 = blocked([1], [32], [warps], [0])
    k = Kernel(warps, ["f32", "f32"])
    rows = [shape[0]]
    x = k.load(0, rows, b1)
    t = lambda lay: k.ttype(rows, "f32", lay)  # noqa: E731
    s = k.emit(f"tilegpu.convert_layout {x} : {t(b1)} -> {t(slice_of(wg, 1))}")
    s2 = k.emit(f"tilegpu.convert_layout {s} : {t(slice_of(wg, 1))} -> {t(slice_of(wg2, 1))}")
    back = k.emit(f"tilegpu.convert_layout {s2} : {t(slice_of(wg2, 1))} -> {t(b1)}")
    k.store(1, back, rows, b1)
    text = k.text()
    lowered = subprocess.run([OPT, "--tilegpu-to-llvm"], input=text, capture_output=True,
                             text=True, timeout=300)
    assert lowered.returncode == 0, lowered.stderr
    out = simulate(text, ["f32", "f32"])
    np.testing.assert_array_equal(written(out, 1, rows[0]), input_values(0, rows[0]))


@pytest.mark.parametrize("dim", [1, 0])
@pytest.mark.parametrize("warps, wpc, instr_n, shape", [
    (8, [8, 1], 128, [128, 128]), (8, [4, 2], 64, [64, 128])], ids=str)
def test_load_in_a_wgmma_slice(warps, wpc, instr_n, shape, dim):
    """A vector loaded directly in a slice of the accumulator layout (the
    scales of a block-scaled product: every lane of a row loads the row's
    element), masked, then stored through a blocked layout."""
    wg = f"#tilegpu.wgmma<warpsPerCTA = [{wpc[0]}, {wpc[1]}], instrShape = [64, {instr_n}, 16]>"
    sl = slice_of(wg, dim)
    b1 = blocked([1], [32], [warps], [0])
    n = shape[1 - dim]
    k = Kernel(warps, ["f32", "f32"])
    ptrs, pt = k.pointers(0, [n], sl)
    idx = k.emit(f"tile.make_range {{start = 0 : i32, end = {n} : i32}} : {k.ttype([n], 'i32', sl)}")
    lim = k.emit(f"arith.constant dense<{n - 3}> : {k.ttype([n], 'i32', sl)}")
    mask = k.emit(f"arith.cmpi slt, {idx}, {lim} : {k.ttype([n], 'i32', sl)}")
    other = k.emit(f"arith.constant dense<-1.0> : {k.ttype([n], 'f32', sl)}")
    x = k.emit(f"tile.load {ptrs}, {mask}, {other} : {pt}")
    back = k.emit(f"tilegpu.convert_layout {x} : {k.ttype([n], 'f32', sl)} -> {k.ttype([n], 'f32', b1)}")
    k.store(1, back, [n], b1)
    out = simulate(k.text(), ["f32", "f32"])
    want = input_values(0, n).astype(np.float64)
    want[n - 3:] = -1.0
    np.testing.assert_array_equal(written(out, 1, n), want)


# Twelve warps (three consumer warpgroups of 4): warps split 3 x 4, and
# dimensions that divide a CTA tile which is not a power of two's multiple
# of them (192 elements under 32 lanes x 12 warps, held twice; 64 columns
# under a 192-column tile, held three times). The lowering reduces such
# coordinates by remainder and finds a warp's place along an axis by
# division (ThreadUtility.cpp).
WGMMA12 = "#tilegpu.wgmma<warpsPerCTA = [12, 1], instrShape = [64, 128, 16]>"
TWELVE_WARP_LAYOUTS = [
    blocked([1, 4], [2, 16], [12, 1], [1, 0]),   # 192 rows in 8 tiles of 24
    blocked([1, 4], [2, 16], [4, 3], [1, 0]),    # columns held three times
    blocked([1, 1], [32, 1], [3, 4], [0, 1]),    # 3 warps along the rows
    WGMMA12,                                      # the accumulator of three warpgroups
]


@pytest.mark.parametrize("layout", TWELVE_WARP_LAYOUTS[:3], ids=str)
@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_twelve_warps(layout, axis):
    run_reduce(12, [192, 64], layout, axis, "sum")


@pytest.mark.parametrize("axis", [0, 1])
def test_reduce_three_warpgroups_accumulator(axis):
    """Row sums (softmax's) and column sums of a 192x128 accumulator of
    three warpgroups: loaded blocked, converted to the wgmma layout,
    reduced, stored through a 1-D blocked layout."""
    shape, src = [192, 128], TWELVE_WARP_LAYOUTS[0]
    k = Kernel(12, ["f32", "f32"])
    x = k.load(0, shape, src)
    acc = k.emit(f"tilegpu.convert_layout {x} : {k.ttype(shape, 'f32', src)} -> "
                 f"{k.ttype(shape, 'f32', WGMMA12)}")
    out_shape = [shape[1 - axis]]
    sl = slice_of(WGMMA12, axis)
    r = k.emit(f"tile.reduce {acc} axis = {axis} : {k.ttype(shape, 'f32', WGMMA12)} -> "
               f"{k.ttype(out_shape, 'f32', sl)} {{\n    {reduce_region('sum', 'f32')}\n    }}")
    b1 = blocked([1], [32], [12], [0])
    back = k.emit(f"tilegpu.convert_layout {r} : {k.ttype(out_shape, 'f32', sl)} -> "
                  f"{k.ttype(out_shape, 'f32', b1)}")
    k.store(1, back, out_shape, b1)
    out = simulate(k.text(), ["f32", "f32"])
    x_np = input_values(0, 192 * 128).reshape(shape).astype(np.float64)
    np.testing.assert_array_equal(written(out, 1, out_shape[0]), x_np.sum(axis=axis))


@pytest.mark.parametrize("case", [
    (12, [192], blocked([1], [32], [12], [0]), 0, "sum"),
    (12, [128], blocked([1], [32], [12], [0]), 0, "max"),
    (12, [192], slice_of(WGMMA12, 1), 0, "argmax"),
], ids=str)
def test_reduce_twelve_warps_1d(case):
    run_reduce(*case)


@pytest.mark.parametrize("src, dst", [
    (TWELVE_WARP_LAYOUTS[0], TWELVE_WARP_LAYOUTS[1]),
    (TWELVE_WARP_LAYOUTS[2], TWELVE_WARP_LAYOUTS[0]),
], ids=str)
def test_convert_layout_twelve_warps(src, dst):
    run_convert(12, [192, 64], src, dst)


def test_convert_through_three_warpgroups_accumulator():
    """blocked -> the 192x128 accumulator of three warpgroups -> another
    blocked layout: every element where it started."""
    shape, a, b = [192, 128], TWELVE_WARP_LAYOUTS[0], TWELVE_WARP_LAYOUTS[2]
    k = Kernel(12, ["f32", "f32"])
    x = k.load(0, shape, a)
    w = k.emit(f"tilegpu.convert_layout {x} : {k.ttype(shape, 'f32', a)} -> "
               f"{k.ttype(shape, 'f32', WGMMA12)}")
    y = k.emit(f"tilegpu.convert_layout {w} : {k.ttype(shape, 'f32', WGMMA12)} -> "
               f"{k.ttype(shape, 'f32', b)}")
    k.store(1, y, shape, b)
    out = simulate(k.text(), ["f32", "f32"])
    np.testing.assert_array_equal(written(out, 1, 192 * 128), input_values(0, 192 * 128))


@pytest.mark.parametrize("case", [
    (12, [192], blocked([1], [32], [12], [0]), 0, False),
    (12, [192, 64], TWELVE_WARP_LAYOUTS[2], 0, True),
], ids=str)
def test_scan_twelve_warps(case):
    run_scan(*case)


# ---------------------------------------------------------------------------
# Default layouts of 1-D lengths that are not powers of two (experimental)
# ---------------------------------------------------------------------------

def npot_vector_kernel(n: int, rows: int) -> str:
    """Tile IR without layouts (what the frontend hands convert-tile-to-
    tilegpu) over an `n`-element vector: x + arange stored, its sum and
    inclusive prefix sum, and the column sums of a (rows, n) tile built
    from it by expand_dims and broadcast (offs_n[None, :], as attention's
    K/V columns)."""
    v = f"tensor<{n}xi32>"
    pv = f"tensor<{n}x!tile.ptr<i32>>"
    t = f"tensor<{rows}x{n}xi32>"
    add = ("^bb0(%u: i32, %w: i32):\n      %c = arith.addi %u, %w : i32\n"
           "      tile.{}.return %c : i32")
    ptr = lambda arg: (f"    %p{arg} = tile.splat %arg{arg} : !tile.ptr<i32> -> {pv}\n"  # noqa
                       f"    %a{arg} = tile.addptr %p{arg}, %r : {pv}, {v}\n")
    return f'''module {{
  tile.func public @kernel(%arg0: !tile.ptr<i32>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<i32>, %arg3: !tile.ptr<i32>, %arg4: !tile.ptr<i32>) {{
    %r = tile.make_range {{start = 0 : i32, end = {n} : i32}} : {v}
{ptr(0)}    %x = tile.load %a0 : {pv}
    %y = arith.addi %x, %r : {v}
{ptr(1)}    tile.store %a1, %y : {pv}
    %s = tile.reduce %y axis = 0 : {v} -> i32 {{
    {add.format("reduce")}
    }}
    tile.store %arg2, %s : !tile.ptr<i32>
    %q = tile.scan %y axis = 0 : {v} -> {v} {{
    {add.format("scan")}
    }}
{ptr(3)}    tile.store %a3, %q : {pv}
    %e = tile.expand_dims %y {{axis = 0 : i32}} : {v} -> tensor<1x{n}xi32>
    %b = tile.broadcast %e : tensor<1x{n}xi32> -> {t}
    %k = tile.make_range {{start = 0 : i32, end = {rows} : i32}} : tensor<{rows}xi32>
    %ke = tile.expand_dims %k {{axis = 1 : i32}} : tensor<{rows}xi32> -> tensor<{rows}x1xi32>
    %kb = tile.broadcast %ke : tensor<{rows}x1xi32> -> {t}
    %m = arith.muli %b, %kb : {t}
    %c = tile.reduce %m axis = 0 : {t} -> {v} {{
    {add.format("reduce")}
    }}
{ptr(4)}    tile.store %a4, %c : {pv}
    tile.return
  }}
}}
'''


@pytest.mark.parametrize("num_warps", [1, 4, 8])
@pytest.mark.parametrize("n", [48, 80, 176, 1280])
def test_npot_vector_in_default_layouts(n, num_warps):
    """A 1-D tensor whose length is not a power of two (80 or 176 K/V
    columns, experimental) gets the slice of a 2-D default layout (a 1-D
    blocked one's CTA tile neither fills nor divides it): loads, stores,
    a sum, a prefix sum and column sums through expand_dims, with the
    layouts the JIT's pipelines give, right for every element (copies
    held by other threads are neither stored twice wrong nor summed)."""
    rows = 16
    out = simulate(npot_vector_kernel(n, rows), ["i32"] * 5,
                   passes=(f"--tile-to-tilegpu=num-warps={num_warps}", "--tilegpu-optimize",
                           "--tilegpu-to-llvm"))
    y = input_values(0, n) + np.arange(n)
    np.testing.assert_array_equal(written(out, 1, n), y)
    np.testing.assert_array_equal(written(out, 2, 1), [y.sum()])
    np.testing.assert_array_equal(written(out, 3, n), np.cumsum(y))
    np.testing.assert_array_equal(written(out, 4, n), y * np.arange(rows).sum())


def npot_tile_kernel(rows: int, cols: int) -> str:
    """Tile IR without layouts over a (rows, cols) tile read from argument
    0: stored back plus one, and its row and column sums."""
    t = f"tensor<{rows}x{cols}xi32>"
    pt = f"tensor<{rows}x{cols}x!tile.ptr<i32>>"
    add = ("^bb0(%u: i32, %w: i32):\n      %c = arith.addi %u, %w : i32\n"
           "      tile.reduce.return %c : i32")

    def vector(n, name):
        return (f"    %{name}r = tile.make_range {{start = 0 : i32, end = {n} : i32}} : "
                f"tensor<{n}xi32>\n")
    return f'''module {{
  tile.func public @kernel(%arg0: !tile.ptr<i32>, %arg1: !tile.ptr<i32>, %arg2: !tile.ptr<i32>, %arg3: !tile.ptr<i32>) {{
{vector(rows, "m")}{vector(cols, "n")}    %me = tile.expand_dims %mr {{axis = 1 : i32}} : tensor<{rows}xi32> -> tensor<{rows}x1xi32>
    %mb = tile.broadcast %me : tensor<{rows}x1xi32> -> {t}
    %ne = tile.expand_dims %nr {{axis = 0 : i32}} : tensor<{cols}xi32> -> tensor<1x{cols}xi32>
    %nb = tile.broadcast %ne : tensor<1x{cols}xi32> -> {t}
    %stride = arith.constant dense<{cols}> : {t}
    %rowoff = arith.muli %mb, %stride : {t}
    %off = arith.addi %rowoff, %nb : {t}
    %p0 = tile.splat %arg0 : !tile.ptr<i32> -> {pt}
    %a0 = tile.addptr %p0, %off : {pt}, {t}
    %x = tile.load %a0 : {pt}
    %one = arith.constant dense<1> : {t}
    %y = arith.addi %x, %one : {t}
    %p1 = tile.splat %arg1 : !tile.ptr<i32> -> {pt}
    %a1 = tile.addptr %p1, %off : {pt}, {t}
    tile.store %a1, %y : {pt}
    %rs = tile.reduce %y axis = 1 : {t} -> tensor<{rows}xi32> {{
    {add}
    }}
    %p2 = tile.splat %arg2 : !tile.ptr<i32> -> tensor<{rows}x!tile.ptr<i32>>
    %a2 = tile.addptr %p2, %mr : tensor<{rows}x!tile.ptr<i32>>, tensor<{rows}xi32>
    tile.store %a2, %rs : tensor<{rows}x!tile.ptr<i32>>
    %cs = tile.reduce %y axis = 0 : {t} -> tensor<{cols}xi32> {{
    {add}
    }}
    %p3 = tile.splat %arg3 : !tile.ptr<i32> -> tensor<{cols}x!tile.ptr<i32>>
    %a3 = tile.addptr %p3, %nr : tensor<{cols}x!tile.ptr<i32>>, tensor<{cols}xi32>
    tile.store %a3, %cs : tensor<{cols}x!tile.ptr<i32>>
    tile.return
  }}
}}
'''


@pytest.mark.parametrize("num_warps", [4, 8, 16])
@pytest.mark.parametrize("rows, cols", [(80, 80), (48, 48), (3, 128), (176, 16), (128, 80),
                                        (80, 64)])
def test_npot_tile_in_default_layouts(rows, cols, num_warps):
    """2-D tiles with dimensions that are not powers of two (experimental)
    in the default layouts (BlockedEncodingAttr::getDefault's repair moves
    the warps and lanes such a dimension cannot hold whole to the other;
    where no blocked layout holds the tile, 48x48 on 16 warps, a slice of a
    3-D one): a load, a store, row and column sums, right for every
    element."""
    out = simulate(npot_tile_kernel(rows, cols), ["i32"] * 4,
                   passes=(f"--tile-to-tilegpu=num-warps={num_warps}", "--tilegpu-optimize",
                           "--tilegpu-to-llvm"))
    y = input_values(0, rows * cols).reshape(rows, cols) + 1
    np.testing.assert_array_equal(written(out, 1, rows * cols), y.reshape(-1))
    np.testing.assert_array_equal(written(out, 2, rows), y.sum(1))
    np.testing.assert_array_equal(written(out, 3, cols), y.sum(0))


@pytest.mark.parametrize("case", [
    # 48-element rows, padded: the row of a slot is a division by 48.
    (4, [80, 48], blocked([1, 2], [4, 8], [4, 1], [1, 0]), blocked([2, 1], [8, 4], [1, 4], [0, 1])),
    # 88 KB of f32: two rounds of 11264 elements (a remainder, not a mask).
    (8, [176, 128], blocked([1, 4], [2, 16], [8, 1], [1, 0]), blocked([1, 1], [16, 2], [1, 8], [0, 1])),
    (4, [48, 176], blocked([1, 1], [2, 16], [4, 1], [1, 0]), blocked([1, 1], [16, 2], [1, 4], [0, 1])),
], ids=str)
def test_convert_layout_rows_not_powers_of_two(case):
    """Exchanges through shared memory whose rows or rounds are not powers
    of two (experimental block dimensions): before the lowering divided
    by them, the first case wrote past its scratch (the simulator bounds
    shared memory by what the kernel was given)."""
    run_convert(*case)


@pytest.mark.parametrize("case", [
    (4, [80, 48], blocked([1, 2], [4, 8], [4, 1], [1, 0]), 0, "sum"),
    (4, [80, 48], blocked([1, 2], [4, 8], [4, 1], [1, 0]), 1, "max"),
    (8, [176, 16], blocked([1, 1], [16, 2], [1, 8], [0, 1]), 0, "isum"),
    (2, [48], slice_of(blocked([1, 1], [16, 2], [1, 2], [0, 1]), 1), 0, "sum"),
], ids=str)
def test_reduce_lengths_not_powers_of_two(case):
    run_reduce(*case)
