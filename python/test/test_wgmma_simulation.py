"""tl.dot on wgmma, run for every thread of a CTA on the CPU.

Each case loads A and B from global memory, makes shared operands of them
(`tilegpu.local_alloc` into swizzled `nvmma_shared` buffers, K-major or
MN-major, 128-, 64- or 32-byte swizzles) or keeps A in registers (the RS form, A in the dot_op layout),
multiplies them with `tilegpu.warp_group_dot` and stores the accumulator.
The simulator (`--test-simulate-cta`) reads the shared operands through the
matrix descriptors the lowering built, decoding them as the PTX ISA defines
them, and places the accumulator and register-A fragments as the ISA does,
so a descriptor's start address, LBO or SBO, a K step's address, an N
repetition or a register in the wrong place gives a wrong product. Inputs
are small integers: every sum is exact.

The shapes include FlashAttention-3's 176-column blocks (QK^T with N 176,
PV with K 176 from registers), which the language takes only behind the
experimental switch (branch npot-blocks) but the IR takes as it is.
"""

import numpy as np
import pytest

from test_layout_simulation import Kernel, blocked, input_values, nvmma, simulate, written


def tiling(shape, warps):
    """A blocked layout whose CTA tile divides `shape` (rows along dim 0)."""
    cols = next(c for c in (8, 4, 2, 1) if shape[1] % (8 * c) == 0)
    rows_per_warp = 32 // 8
    wpc = [warps, 1]
    if shape[0] % (rows_per_warp * warps):
        wpc = [1, warps]
    return blocked([1, cols], [rows_per_warp, 8], wpc, [1, 0])


# (warps, M, N, K, A from registers, B's transposed flag: True = K-major B)
CASES = [
    (4, 64, 64, 64, False, True),
    (4, 64, 128, 64, False, False),
    (8, 128, 128, 64, False, True),
    (8, 128, 128, 128, True, False),
    (4, 64, 64, 64, True, True),
    # FlashAttention-3's D128 blocks: QK^T (N 176, K-major K^T) and PV (K
    # 176, P in registers, V MN-major).
    (8, 128, 176, 128, False, True),
    (8, 128, 128, 176, True, False),
    (4, 64, 192, 64, False, True),
]


# More forms, at 64 rows and 4 warps: bf16, A MN-major (transposed),
# 64- and 32-byte swizzles (K-major operands of K 32 and 16 elements a
# swizzle row; an MN-major A of 32 rows a row).
# (M, N, K, elem, A's form: "rs", "k" or "mn", B K-major, swizzle)
FORMS = [
    (64, 64, 64, "bf16", "k", True, 128),
    (64, 128, 64, "bf16", "rs", False, 128),
    (64, 64, 64, "f16", "mn", True, 128),
    (64, 64, 32, "f16", "k", True, 64),
    (64, 64, 16, "f16", "k", True, 32),
    (64, 64, 32, "f16", "mn", False, 64),
    # Lengths that are not powers of two (experimental) in 32-byte rows,
    # accelerate-matmul's choice for them: N-major B of 80, 48 and 176
    # columns, K-major operands of K 80.
    (64, 80, 64, "f16", "k", False, 32),
    (64, 48, 64, "f16", "k", False, 32),
    (64, 176, 64, "bf16", "k", False, 32),
    (64, 64, 80, "f16", "k", True, 32),
    (64, 80, 80, "f16", "rs", True, 32),
]


def _product_kernel(warps, M, N, K, elem, a_form, b_kmajor, swizzle):
    wg = (f"#tilegpu.wgmma<warpsPerCTA = [{warps}, 1], "
          f"instrShape = [64, {N}, 16]>")
    k = Kernel(warps, [elem, elem, "f32"])
    la, lb, lc = tiling([M, K], warps), tiling([K, N], warps), tiling([M, N], warps)
    a = k.load(0, [M, K], la)
    if a_form == "rs":
        op_a = f"#tilegpu.dot_op<opIdx = 0, parent = {wg}, kWidth = 2>"
        a_val = k.emit(f"tilegpu.convert_layout {a} : {k.ttype([M, K], elem, la)} -> "
                       f"{k.ttype([M, K], elem, op_a)}")
        a_type = k.ttype([M, K], elem, op_a)
    else:
        a_type = nvmma([M, K], elem, swizzle, a_form == "mn")
        a_val = k.emit(f"tilegpu.local_alloc {a} : ({k.ttype([M, K], elem, la)}) -> {a_type}")
    b = k.load(1, [K, N], lb)
    b_type = nvmma([K, N], elem, swizzle, b_kmajor)
    b_val = k.emit(f"tilegpu.local_alloc {b} : ({k.ttype([K, N], elem, lb)}) -> {b_type}")
    acc_t = k.ttype([M, N], "f32", wg)
    c = k.emit(f"arith.constant dense<0.0> : {acc_t}")
    d = k.emit(f"tilegpu.warp_group_dot {a_val}, {b_val}, {c} : {a_type} * {b_type} -> {acc_t}")
    r = k.emit(f"tilegpu.warp_group_dot_wait {d} {{pendings = 0 : i32}} : {acc_t}")
    out = k.emit(f"tilegpu.convert_layout {r} : {acc_t} -> {k.ttype([M, N], 'f32', lc)}")
    k.store(2, out, [M, N], lc)
    got = simulate(k.text(), [elem, elem, "f32"])
    av = input_values(0, M * K).reshape(M, K).astype(np.float64)
    bv = input_values(1, K * N).reshape(K, N).astype(np.float64)
    np.testing.assert_array_equal(written(got, 2, M * N), (av @ bv).reshape(-1))


@pytest.mark.parametrize("warps, M, N, K, rs, b_kmajor", CASES, ids=str)
def test_wgmma_product(warps, M, N, K, rs, b_kmajor):
    _product_kernel(warps, M, N, K, "f16", "rs" if rs else "k", b_kmajor, 128)


@pytest.mark.parametrize("M, N, K, elem, a_form, b_kmajor, swizzle", FORMS, ids=str)
def test_wgmma_product_forms(M, N, K, elem, a_form, b_kmajor, swizzle):
    """bf16 (the inputs' small integers are exact in it), A MN-major
    (wgmma's transpose-A immediate), and the 64- and 32-byte swizzles."""
    _product_kernel(4, M, N, K, elem, a_form, b_kmajor, swizzle)
