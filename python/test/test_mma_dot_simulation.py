"""tl.dot on mma.sync, run for every thread of a CTA on the CPU.

A dot wgmma cannot take (fewer than 4 warps, fewer than 64 rows per
warpgroup, a target below sm_90) but whose operands the warp-level tensor
cores multiply (f16, bf16, int8, float32 as tf32) becomes a tile.dot in
mma.sync layouts: tilegpu-accelerate-matmul picks the warps' split and
converts the operands to the accumulator's dot_op layouts, and the LLVM
lowering issues one mma.sync per warp, 16 rows, 8 columns and K step.
Each case here goes from the IR convert-tile-to-tilegpu makes through
those passes and is then simulated (`--test-simulate-cta`): the
simulator places each lane's registers in the instruction's fragments as
the PTX ISA states them, independently of the layouts, so a register the
layouts put in the wrong place gives a wrong product.  Inputs are small
integers: every sum is exact, except that f16 accumulators round after
each instruction, which the reference does too.
"""

import random
import subprocess

import numpy as np
import pytest

from test_layout_simulation import (OPT, Kernel, blocked, input_values, random_blocked,
                                    simulate, written)

INSTR_K = {"f16": 16, "bf16": 16, "i8": 32, "f32": 8}
PASSES = ("--tilegpu-accelerate-matmul", "--canonicalize", "--tilegpu-to-llvm")


def dot_op(op_idx, parent):
    return f"#tilegpu.dot_op<opIdx = {op_idx}, parent = {parent}, kWidth = 1>"


def dot_kernel(num_warps, m, n, k, acc, a_layout, b_layout, elem, acc_elem, chain=False):
    """C = A @ B + C0 (A m x k from arg 0, B k x n from arg 1, C0 and the
    result in arg 2); with `chain`, then D = cast(C) @ B2 + C0 again (B2,
    n x n, from arg 1 too): a product's accumulator as the next one's A."""
    kern = Kernel(num_warps, [elem, elem, acc_elem])
    a = kern.load(0, [m, k], a_layout)
    b = kern.load(1, [k, n], b_layout)
    c = kern.load(2, [m, n], acc)
    t = kern.ttype

    def dot(x, y, c0, mk, kn):
        xo = kern.emit(f"tilegpu.convert_layout {x} : {t(mk, elem, mk_layout[0])} -> "
                       f"{t(mk, elem, dot_op(0, acc))}")
        yo = kern.emit(f"tilegpu.convert_layout {y} : {t(kn, elem, mk_layout[1])} -> "
                       f"{t(kn, elem, dot_op(1, acc))}")
        prec = " inputPrecision = tf32" if elem == "f32" else ""
        return kern.emit(f"tile.dot {xo}, {yo}, {c0}{prec} : {t(mk, elem, dot_op(0, acc))} * "
                         f"{t(kn, elem, dot_op(1, acc))} -> {t([m, n], acc_elem, acc)}")

    mk_layout = (a_layout, b_layout)
    d = dot(a, b, c, [m, k], [k, n])
    if chain:
        cast = {"f32": "arith.truncf", "f16": None}[acc_elem]
        x = kern.emit(f"{cast} {d} : {t([m, n], acc_elem, acc)} to {t([m, n], elem, acc)}") \
            if cast else d
        b2 = kern.load(1, [n, n], b_layout)
        mk_layout = (acc, b_layout)
        d = dot(x, b2, c, [m, n], [n, n])
    kern.store(2, d, [m, n], acc)
    return kern.text()


def with_target(ir, target):
    return ir.replace('attributes {"tilegpu.num-warps"',
                      f'attributes {{tilegpu.target = "{target}", "tilegpu.num-warps"', 1)


def lowered(ir):
    proc = subprocess.run([OPT, *PASSES], input=ir, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def reference(x, y, c0, acc_elem, k_step):
    if acc_elem != "f16":
        return x @ y + c0
    # f16 accumulators round after every instruction (k_step deep).
    acc = c0.astype(np.float16)
    for s in range(0, x.shape[1], k_step):
        acc = (acc.astype(np.float64) + x[:, s:s + k_step] @ y[s:s + k_step]).astype(np.float16)
    return acc.astype(np.float64)


def run_dot(num_warps, m, n, k, acc, a_layout, b_layout, elem, acc_elem,
            target="cuda:90", chain=False):
    ir = with_target(dot_kernel(num_warps, m, n, k, acc, a_layout, b_layout, elem, acc_elem,
                                chain), target)
    llvm = lowered(ir)
    suffix = {"f16": "f16.f16", "bf16": "bf16.bf16", "i8": "s8.s8", "f32": "tf32.tf32"}[elem]
    assert f"mma.sync.aligned.m16n8k{INSTR_K[elem]}" in llvm and suffix in llvm, \
        "the dot did not go to mma.sync"
    assert "wgmma" not in llvm
    out = simulate(ir, [elem, elem, acc_elem], passes=PASSES)
    x = input_values(0, m * k).reshape(m, k).astype(np.float64)
    y = input_values(1, k * n).reshape(k, n).astype(np.float64)
    c0 = input_values(2, m * n).reshape(m, n).astype(np.float64)
    want = reference(x, y, c0, acc_elem, INSTR_K[elem])
    if chain:
        if acc_elem == "f32" and elem != "f32":
            # The cast of the first product to the operand type.
            np_elem = {"f16": np.float16, "bf16": None}[elem]
            want = want.astype(np_elem).astype(np.float64) if np_elem else want
        y2 = input_values(1, n * n).reshape(n, n).astype(np.float64)
        want = reference(want, y2, c0, acc_elem, INSTR_K[elem])
    got = written(out, 2, m * n).reshape(m, n)
    np.testing.assert_array_equal(got, want)


TYPES = [("f16", "f32"), ("f16", "f16"), ("bf16", "f32"), ("i8", "i32"), ("f32", "f32")]


def mma_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        elem, acc_elem = rng.choice(TYPES)
        num_warps = rng.choice([1, 2, 4, 8])
        m, n = rng.choice([16, 32, 64]), rng.choice([8, 16, 32, 64])
        k = INSTR_K[elem] * rng.choice([1, 2, 4])
        target = rng.choice(["cuda:80", "cuda:90"])
        # wgmma takes 4+ warps and 64 rows on sm_90.
        if target == "cuda:90" and num_warps >= 4 and m >= 64 or m * n * k > 64 * 64 * 64:
            continue
        cases.append((num_warps, m, n, k, random_blocked(rng, 2, num_warps),
                      random_blocked(rng, 2, num_warps), random_blocked(rng, 2, num_warps),
                      elem, acc_elem, target))
    return cases


@pytest.mark.parametrize("case", mma_cases(40, seed=21), ids=str)
def test_mma_dot(case):
    run_dot(*case)


ROW = blocked([1, 4], [4, 8], [1, 1], [1, 0])


@pytest.mark.parametrize("case", [
    # One warp, the smallest instruction.
    (1, 16, 8, 16, ROW, ROW, ROW, "f16", "f32"),
    # 4 warps over a 16x8 tile: three of them repeat the first.
    (4, 16, 8, 16, blocked([1, 1], [4, 8], [4, 1], [1, 0]),
     blocked([1, 1], [4, 8], [4, 1], [1, 0]), blocked([1, 1], [4, 8], [1, 4], [1, 0]),
     "f16", "f32"),
    # 2 warps along N, int8 (k32), column-major operands.
    (2, 16, 64, 64, blocked([2, 1], [16, 2], [1, 2], [0, 1]),
     blocked([4, 1], [8, 4], [2, 1], [0, 1]), blocked([1, 2], [8, 4], [1, 2], [1, 0]),
     "i8", "i32"),
    # 8 warps, 32 rows: warps split M then N; tf32.
    (8, 32, 64, 16, blocked([1, 2], [4, 8], [8, 1], [1, 0]),
     blocked([1, 2], [4, 8], [8, 1], [1, 0]), blocked([1, 2], [4, 8], [8, 1], [1, 0]),
     "f32", "f32"),
], ids=str)
def test_mma_dot_chosen(case):
    run_dot(*case)


@pytest.mark.parametrize("m,n,num_warps", [(1, 8, 1), (2, 4, 1), (8, 1, 2), (4, 16, 4),
                                           (1, 1, 1), (16, 2, 2)])
@pytest.mark.parametrize("elem,acc_elem", [("f16", "f32"), ("i8", "i32")])
def test_mma_dot_below_one_instruction(m, n, num_warps, elem, acc_elem):
    """M below 16 and N below 8: the instruction's rows and columns beyond
    the tile repeat it (coordinates wrap modulo the shape), as Triton's
    mma v2 does; K still holds whole instructions."""
    layout = blocked([1, 1], [1, 32], [num_warps, 1], [1, 0])
    run_dot(num_warps, m, n, INSTR_K[elem], layout, layout, layout, elem, acc_elem)


@pytest.mark.parametrize("elem,acc_elem", [("f16", "f32"), ("f16", "f16")])
@pytest.mark.parametrize("num_warps", [1, 4])
def test_mma_dot_chain(elem, acc_elem, num_warps):
    """A product's accumulator, cast, as the next one's A (attention's P V):
    the accumulator's registers are the A operand's where one warp holds
    whole rows."""
    layout = blocked([1, 2], [4, 8], [num_warps, 1], [1, 0])
    run_dot(num_warps, 16 * num_warps, 32, 16, layout, layout, layout, elem, acc_elem,
            target="cuda:80", chain=True)


def test_mma_dot_on_sm80_wgmma_shape():
    """sm_80 has no wgmma: a tile wgmma would take on sm_90 runs on
    mma.sync."""
    layout = blocked([1, 4], [4, 8], [4, 1], [1, 0])
    run_dot(4, 64, 64, 16, layout, layout, layout, "f16", "f32", target="cuda:80")


@pytest.mark.parametrize("target", ["cuda:75", "cuda:70"])
def test_below_sm80_runs_on_fma(target):
    """Below sm_80 (no m16n8k16 for every type) the dot runs on FMA."""
    layout = blocked([1, 4], [4, 8], [1, 1], [1, 0])
    ir = with_target(dot_kernel(1, 16, 16, 16, layout, layout, layout, "f16", "f32"), target)
    text = lowered(ir)
    assert "mma.sync" not in text and "llvm.intr.fma" in text


def batched_dot_kernel(num_warps, bsz, m, n, k, acc, a_layout, b_layout, elem, acc_elem,
                       zero_acc):
    """C = A @ B + C0 per batch (A bsz x m x k from arg 0, B bsz x k x n
    from arg 1, C0 and the result bsz x m x n in arg 2; with `zero_acc`
    C0 is a splat 0 and arg 2 only takes the result)."""
    kern = Kernel(num_warps, [elem, elem, acc_elem])
    a = kern.load(0, [bsz, m, k], a_layout)
    b = kern.load(1, [bsz, k, n], b_layout)
    t = kern.ttype
    if zero_acc:
        zero = "0" if acc_elem == "i32" else "0.0"
        c = kern.emit(f"arith.constant dense<{zero}> : {t([bsz, m, n], acc_elem, acc)}")
    else:
        c = kern.load(2, [bsz, m, n], acc)
    xo = kern.emit(f"tilegpu.convert_layout {a} : {t([bsz, m, k], elem, a_layout)} -> "
                   f"{t([bsz, m, k], elem, dot_op(0, acc))}")
    yo = kern.emit(f"tilegpu.convert_layout {b} : {t([bsz, k, n], elem, b_layout)} -> "
                   f"{t([bsz, k, n], elem, dot_op(1, acc))}")
    prec = " inputPrecision = tf32" if elem == "f32" else ""
    d = kern.emit(f"tile.dot {xo}, {yo}, {c}{prec} : {t([bsz, m, k], elem, dot_op(0, acc))} * "
                  f"{t([bsz, k, n], elem, dot_op(1, acc))} -> {t([bsz, m, n], acc_elem, acc)}")
    kern.store(2, d, [bsz, m, n], acc)
    return kern.text()


def run_batched_dot(num_warps, bsz, m, n, k, acc, a_layout, b_layout, elem, acc_elem,
                    target="cuda:90", zero_acc=False):
    ir = with_target(batched_dot_kernel(num_warps, bsz, m, n, k, acc, a_layout, b_layout,
                                        elem, acc_elem, zero_acc), target)
    llvm = lowered(ir)
    assert f"mma.sync.aligned.m16n8k{INSTR_K[elem]}" in llvm, "the dot did not go to mma.sync"
    assert "llvm.intr.fma" not in llvm and "wgmma" not in llvm
    out = simulate(ir, [elem, elem, acc_elem], passes=PASSES)
    x = input_values(0, bsz * m * k).reshape(bsz, m, k).astype(np.float64)
    y = input_values(1, bsz * k * n).reshape(bsz, k, n).astype(np.float64)
    c0 = input_values(2, bsz * m * n).reshape(bsz, m, n).astype(np.float64)
    if zero_acc:
        c0 = np.zeros_like(c0)
    want = np.stack([reference(x[i], y[i], c0[i], acc_elem, INSTR_K[elem])
                     for i in range(bsz)])
    got = written(out, 2, bsz * m * n).reshape(bsz, m, n)
    np.testing.assert_array_equal(got, want)


def batched_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        elem, acc_elem = rng.choice(TYPES)
        num_warps = rng.choice([1, 2, 4, 8])
        bsz = rng.choice([1, 2, 4])
        m, n = rng.choice([16, 32]), rng.choice([8, 16, 32])
        k = INSTR_K[elem] * rng.choice([1, 2])
        if bsz * m * n * k > 2 * 32 * 32 * 32:
            continue
        cases.append((num_warps, bsz, m, n, k, random_blocked(rng, 3, num_warps),
                      random_blocked(rng, 3, num_warps), random_blocked(rng, 3, num_warps),
                      elem, acc_elem, rng.choice(["cuda:80", "cuda:90"]),
                      rng.choice([False, True])))
    return cases


@pytest.mark.parametrize("case", batched_cases(16, seed=5), ids=str)
def test_batched_mma_dot(case):
    """Batched (3-D) products on mma.sync: each operand goes to shared
    memory whole, one buffer per batch, each batch's product reads its
    buffers with ldmatrix on all the warps and writes its batch of the
    result, read back whole; random 3-D layouts of operands and result."""
    run_batched_dot(*case)
