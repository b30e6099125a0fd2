"""tl.dot on the CUDA cores (FMA), run for every thread of a CTA on the CPU.

A dot wgmma cannot take (float64, float32 with ieee precision, tiles below
its instructions, fewer than 4 warps) stays a tile.dot whose operands
tilegpu-accelerate-matmul converts to the FMA layouts of its accumulator
(each thread holds the rows of A and columns of B its elements need) and
which the LLVM lowering multiplies element by element.  Here each case is
the IR convert-tile-to-tilegpu makes (operands in dot_op layouts of a
blocked accumulator), run through tilegpu-accelerate-matmul and the whole
LLVM lowering and then simulated (`--test-simulate-cta`, see
test_layout_simulation.py): random accumulator layouts, operand layouts
and shapes down to 1 along M and N, against NumPy.  The simulator's inputs
are small integers, so every sum is exact in any order.
"""

import random

import numpy as np
import pytest

import warpforge.language as tl
from fma_dot_kernels import CONFIGS, fma_matmul_kernel
from test_layout_simulation import (Kernel, blocked, input_values, random_blocked, simulate,
                                    written)


def dot_op(op_idx, parent):
    return f"#tilegpu.dot_op<opIdx = {op_idx}, parent = {parent}, kWidth = 1>"


def simulate_fma(ir: str, arg_types, target="cuda:90"):
    """The dot through tilegpu-accelerate-matmul, then simulate()."""
    ir = ir.replace('attributes {"tilegpu.num-warps"',
                    f'attributes {{tilegpu.target = "{target}", "tilegpu.num-warps"', 1)
    return simulate(ir, arg_types, passes=("--tilegpu-accelerate-matmul", "--canonicalize",
                                           "--tilegpu-to-llvm"))


def run_dot(num_warps, m, n, k, acc, a_layout, b_layout, elem, acc_elem,
            target="cuda:90"):
    """C = A @ B + C0 with A (m x k) from arg 0, B (k x n) from arg 1, C0
    and the result in arg 2."""
    kern = Kernel(num_warps, [elem, elem, acc_elem])
    a = kern.load(0, [m, k], a_layout)
    b = kern.load(1, [k, n], b_layout)
    c = kern.load(2, [m, n], acc)
    a_op = kern.emit(f"tilegpu.convert_layout {a} : {kern.ttype([m, k], elem, a_layout)} -> "
                     f"{kern.ttype([m, k], elem, dot_op(0, acc))}")
    b_op = kern.emit(f"tilegpu.convert_layout {b} : {kern.ttype([k, n], elem, b_layout)} -> "
                     f"{kern.ttype([k, n], elem, dot_op(1, acc))}")
    d = kern.emit(f"tile.dot {a_op}, {b_op}, {c} : {kern.ttype([m, k], elem, dot_op(0, acc))} * "
                  f"{kern.ttype([k, n], elem, dot_op(1, acc))} -> "
                  f"{kern.ttype([m, n], acc_elem, acc)}")
    kern.store(2, d, [m, n], acc)
    out = simulate_fma(kern.text(), [elem, elem, acc_elem], target)
    x = input_values(0, m * k).reshape(m, k).astype(np.float64)
    y = input_values(1, k * n).reshape(k, n).astype(np.float64)
    c0 = input_values(2, m * n).reshape(m, n).astype(np.float64)
    np.testing.assert_array_equal(written(out, 2, m * n).reshape(m, n), x @ y + c0)


def dot_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        num_warps = rng.choice([1, 2, 4])
        m, n = rng.choice([1, 2, 4, 8, 16, 32]), rng.choice([1, 2, 4, 8, 16, 32])
        k = rng.choice([1, 2, 4, 8, 16])
        elem, acc_elem = rng.choice([("f32", "f32"), ("f64", "f64"), ("i8", "i32"),
                                     ("f16", "f32")])
        cases.append((num_warps, m, n, k, random_blocked(rng, 2, num_warps),
                      random_blocked(rng, 2, num_warps), random_blocked(rng, 2, num_warps),
                      elem, acc_elem))
    return cases


@pytest.mark.parametrize("case", dot_cases(40, seed=5), ids=str)
def test_fma_dot(case):
    run_dot(*case)


@pytest.mark.parametrize("case", [
    # float32 at ieee precision on a tile wgmma could take: FMA.
    (4, 64, 32, 16, blocked([1, 4], [4, 8], [4, 1], [1, 0]),
     blocked([1, 4], [4, 8], [4, 1], [1, 0]), blocked([4, 1], [8, 4], [1, 4], [0, 1]),
     "f32", "f32"),
    # float64, an accumulator layout wider than the tile (replicated).
    (4, 8, 8, 8, blocked([1, 1], [2, 16], [2, 2], [1, 0]),
     blocked([1, 1], [1, 32], [4, 1], [1, 0]), blocked([2, 1], [16, 2], [1, 4], [0, 1]),
     "f64", "f64"),
    # One warp, a column-major accumulator.
    (1, 16, 16, 16, blocked([2, 1], [8, 4], [1, 1], [0, 1]),
     blocked([1, 2], [4, 8], [1, 1], [1, 0]), blocked([1, 1], [16, 2], [1, 1], [0, 1]),
     "i8", "i32"),
], ids=str)
def test_fma_dot_chosen(case):
    run_dot(*case)


def test_fma_dot_on_a_target_without_wgmma():
    """sm_80 has no wgmma: even a tile wgmma would take runs on FMA."""
    run_dot(4, 64, 64, 16, blocked([1, 4], [4, 8], [4, 1], [1, 0]),
            blocked([1, 4], [4, 8], [4, 1], [1, 0]), blocked([4, 1], [8, 4], [1, 4], [0, 1]),
            "f16", "f32", target="cuda:80")


# ---------------------------------------------------------------------------
# The GPU test's kernels (test_gpu_fma_dot.py), compiled and interpreted
# ---------------------------------------------------------------------------

NUMPY = {"fp64": (np.float64, np.float64), "fp32": (np.float32, np.float32),
         "fp16": (np.float16, np.float32), "int8": (np.int8, np.int32)}


@pytest.mark.parametrize("config", [c for c in CONFIGS if c[0] in NUMPY],
                         ids=lambda c: "-".join(map(str, c)))
def test_fma_kernels_compile_to_cubins(config, monkeypatch):
    """Each configuration of the GPU test assembles (ptxas) with FMA
    instructions, or mma.sync where that takes the dot (16-bit operands in
    tiles of at least 16 x 8 x 16), and no wgmma, and spills nothing at
    these tile sizes."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    name, bm, bn, bk, warps = config
    elem, out = NUMPY[name]
    acc = {np.float64: tl.float64, np.float32: tl.float32, np.int32: tl.int32}[out]
    k = fma_matmul_kernel.warmup(np.zeros(4, elem), np.zeros(4, elem), np.zeros(4, out),
                                 37, 29, 41, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                 PRECISION="ieee" if name in ("fp32", "fp64") else "tf32",
                                 ACC=acc, num_warps=warps, grid=(1,))
    ptx = k.asm["ptx"]
    assert "wgmma" not in ptx
    # M below 16 and N below 8 wrap on mma.sync; K must hold whole steps.
    mma = name == "fp16" and bk % 16 == 0
    expected = ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" if mma else
                {"fp64": "fma.rn.f64", "fp32": "fma.rn.f32", "fp16": "fma.rn.f32",
                 "int8": "mad.lo.s32"}[name])
    assert expected in ptx
    assert k.metadata["spill_stores"] == 0


@pytest.mark.parametrize("name", list(NUMPY))
def test_fma_kernel_in_the_interpreter(name, monkeypatch):
    """The interpreter runs the dots the compiler now takes (it applies the
    compiler's rules), with float64, int8 and small tiles, on odd sizes."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    elem, out = NUMPY[name]
    acc = {np.float64: tl.float64, np.float32: tl.float32, np.int32: tl.int32}[out]
    rng = np.random.default_rng(7)
    m, n, k = 13, 7, 21
    if elem == np.int8:
        a = rng.integers(-128, 128, (m, k)).astype(np.int8)
        b = rng.integers(-128, 128, (k, n)).astype(np.int8)
    else:
        a = rng.standard_normal((m, k)).astype(elem)
        b = rng.standard_normal((k, n)).astype(elem)
    c = np.full((m, n), -1, out) if out == np.int32 else np.full((m, n), np.nan, out)
    fma_matmul_kernel[(2, 1)](a, b, c, m, n, k, BLOCK_M=8, BLOCK_N=8, BLOCK_K=8,
                              PRECISION="ieee" if name in ("fp32", "fp64") else "tf32",
                              ACC=acc)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    tol = {"fp64": 1e-12, "fp32": 1e-5, "fp16": 1e-3, "int8": 0}[name]
    assert np.abs(c - ref).max() <= tol * np.abs(ref).max()


def run_batched_dot(num_warps, bt, m, n, k, acc, a_layout, b_layout):
    """C[b] = A[b] @ B[b] + C0[b], f32, batch dimension first."""
    kern = Kernel(num_warps, ["f32", "f32", "f32"])
    sa, sb, sc = [bt, m, k], [bt, k, n], [bt, m, n]
    a = kern.load(0, sa, a_layout)
    b = kern.load(1, sb, b_layout)
    c = kern.load(2, sc, acc)
    a_op = kern.emit(f"tilegpu.convert_layout {a} : {kern.ttype(sa, 'f32', a_layout)} -> "
                     f"{kern.ttype(sa, 'f32', acc)}")
    b_op = kern.emit(f"tilegpu.convert_layout {b} : {kern.ttype(sb, 'f32', b_layout)} -> "
                     f"{kern.ttype(sb, 'f32', acc)}")
    d = kern.emit(f"tile.dot {a_op}, {b_op}, {c} : {kern.ttype(sa, 'f32', acc)} * "
                  f"{kern.ttype(sb, 'f32', acc)} -> {kern.ttype(sc, 'f32', acc)}")
    kern.store(2, d, sc, acc)
    out = simulate_fma(kern.text(), ["f32"] * 3)
    x = input_values(0, bt * m * k).reshape(sa).astype(np.float64)
    y = input_values(1, bt * k * n).reshape(sb).astype(np.float64)
    c0 = input_values(2, bt * m * n).reshape(sc).astype(np.float64)
    np.testing.assert_array_equal(written(out, 2, bt * m * n).reshape(sc), x @ y + c0)


def batched_cases(count, seed):
    rng = random.Random(seed)
    return [(w, rng.choice([1, 2, 4]), rng.choice([1, 4, 16]), rng.choice([1, 4, 16]),
             rng.choice([1, 4, 8]), random_blocked(rng, 3, w), random_blocked(rng, 3, w),
             random_blocked(rng, 3, w))
            for w in [rng.choice([1, 2, 4]) for _ in range(count)]]


@pytest.mark.parametrize("case", batched_cases(8, seed=9), ids=str)
def test_batched_fma_dot(case):
    """Batched (3-D) dots, which wgmma does not take, whatever layout the
    operands arrive in (here: blocked ones, not dot_op)."""
    run_batched_dot(*case)
