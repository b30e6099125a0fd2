"""tl.inline_asm_elementwise (Triton's) and the special registers read
through it (tl.extra.cuda.smid, globaltimer): compiled to PTX and a cubin
here; run against NumPy on the GPU (marked `gpu`)."""
import re

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.compiler import CompilationError


@warpforge.jit
def funnel_shift(X, Y, Z, n, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    s = tl.full([BLOCK], n, tl.int32)
    z = tl.inline_asm_elementwise("shf.l.wrap.b32 $0, $1, $2, $3;", "=r,r, r, r", [x, y, s],
                                  dtype=tl.int32, is_pure=True, pack=1)
    tl.store(Z + tl.arange(0, BLOCK), z)


@warpforge.jit
def packed_bytes(X, Y, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x],
                                  dtype=tl.int8, is_pure=True, pack=4)
    tl.store(Y + tl.arange(0, BLOCK), y)


@warpforge.jit
def through_pointers(X, Y, BLOCK: tl.constexpr):
    tl.inline_asm_elementwise(
        "ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; st.global.b8 [$2], $0;", "=r,l,l",
        [X + tl.arange(0, BLOCK), Y + tl.arange(0, BLOCK)], dtype=tl.int8, is_pure=False, pack=1)


@warpforge.jit
def two_results_packed(A, B, C, D, BLOCK: tl.constexpr):
    a = tl.load(A + tl.arange(0, BLOCK))
    b = tl.load(B + tl.arange(0, BLOCK))
    # Four bytes of `a` in $8; four floats of `b` in $9-$12; four int32
    # results in $0-$3, four float ones in $4-$7.
    c, d = tl.inline_asm_elementwise(
        """
        {
            .reg .b8 t<4>;
            mov.b32 {t0, t1, t2, t3}, $8;
            cvt.u32.u8 $0, t0;
            cvt.u32.u8 $1, t1;
            cvt.u32.u8 $2, t2;
            cvt.u32.u8 $3, t3;
        }
        cvt.rn.f32.s32 $4, $0;
        cvt.rn.f32.s32 $5, $1;
        cvt.rn.f32.s32 $6, $2;
        cvt.rn.f32.s32 $7, $3;
        max.f32 $4, $4, $9;
        max.f32 $5, $5, $10;
        max.f32 $6, $6, $11;
        max.f32 $7, $7, $12;
        """,
        "=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r", [a, b], dtype=(tl.int32, tl.float32),
        is_pure=True, pack=4)
    tl.store(C + tl.arange(0, BLOCK), c)
    tl.store(D + tl.arange(0, BLOCK), d)


@warpforge.jit
def dot_then_packed_asm(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(A + rm[:, None] * K + rk[None, :])
    b = tl.load(B + rk[:, None] * N + rn[None, :])
    acc = tl.dot(a, b)
    # Four elements an invocation, each doubled and offset: computed in
    # the wgmma accumulator's registers (no trip through shared memory).
    y = tl.inline_asm_elementwise(
        "fma.rn.f32 $0, $4, 0f40000000, 0f3F800000;\n"
        "fma.rn.f32 $1, $5, 0f40000000, 0f3F800000;\n"
        "fma.rn.f32 $2, $6, 0f40000000, 0f3F800000;\n"
        "fma.rn.f32 $3, $7, 0f40000000, 0f3F800000;",
        "=r,=r,=r,=r,r,r,r,r", [acc], dtype=tl.float32, is_pure=True, pack=4)
    tl.store(C + rm[:, None] * N + rn[None, :], y)


@warpforge.jit
def sm_and_clock(Out, T):
    tl.store(Out + tl.program_id(0), tl.extra.cuda.smid())
    start = tl.extra.cuda.globaltimer()
    tl.store(T + 2 * tl.program_id(0), start)
    tl.store(T + 2 * tl.program_id(0) + 1, tl.extra.cuda.globaltimer())


@warpforge.jit
def wrong_constraints(X, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x], dtype=tl.int32,
                                  is_pure=True, pack=1)
    tl.store(X + tl.arange(0, BLOCK), y)


U32, I32, U8, F32 = (np.zeros(n, t) for n, t in ((128, np.uint32), (128, np.int32),
                                                  (512, np.uint8), (512, np.float32)))


def test_one_asm_per_element_in_ptx():
    k = funnel_shift.warmup(U32, U32, U32, 17, BLOCK=128, grid=(1,))
    assert re.search(r"shf\.l\.wrap\.b32 %r\d+, %r\d+, %r\d+, %r\d+;", k.asm["ptx"])
    assert "cubin" in k.asm


def test_packed_and_several_results_assemble():
    """Four bytes share a register; 8 outputs and 5 inputs per invocation:
    ptxas takes the kernels."""
    k = packed_bytes.warmup(U8, U8, BLOCK=512, grid=(1,))
    assert "and.b32" in k.asm["ptx"] and "cubin" in k.asm
    k = two_results_packed.warmup(U8, F32, np.zeros(512, np.int32), F32, BLOCK=512, grid=(1,))
    assert "cvt.u32.u8" in k.asm["ptx"] and "cubin" in k.asm


def test_packed_asm_on_a_product_stays_in_its_registers():
    """Pure inline PTX on a wgmma accumulator (sm_90) computes in the
    accumulator's layout, as the arithmetic around it does: no conversion
    through shared memory before it (a thread's 32 elements of the 64x64
    product, 4 per invocation)."""
    h = np.zeros(64 * 64, np.float16)
    k = dot_then_packed_asm.warmup(h, h, np.zeros(64 * 64, np.float32), M=64, N=64, K=64,
                                   grid=(1,))
    ir = k.asm["tilegpu"]
    asm = [line for line in ir.splitlines() if "tile.elementwise_inline_asm" in line]
    assert len(asm) == 1 and "tensor<64x64xf32, #wgmma> -> tensor<64x64xf32, #wgmma>" in asm[0]
    assert k.asm["ptx"].count("fma.rn.f32") >= 32


def test_impure_asm_is_kept():
    """Its result unused, an impure asm (memory through pointers) stays."""
    k = through_pointers.warmup(U8, U8, BLOCK=512, grid=(1,))
    assert k.asm["ptx"].count("st.global.b8") >= 1


def test_special_registers():
    k = sm_and_clock.warmup(I32, np.zeros(2, np.int64), grid=(1,))
    assert k.asm["ptx"].count("%smid") == 1
    assert k.asm["ptx"].count("%globaltimer") == 2  # impure: not merged


def test_wrong_constraints_at_the_python_line():
    with pytest.raises(CompilationError, match=r'inline asm constraints "=r,r,r" name 1 output '
                                               r"and 2 input registers; with 1 element\(s\) per "
                                               r"invocation it takes 1 and 1") as info:
        wrong_constraints.warmup(I32, BLOCK=128, grid=(1,))
    assert "inline_asm_elementwise" in str(info.value)


@pytest.mark.parametrize("bad,match", [
    (dict(pack=0), "pack must be a positive integer, got 0"),
    (dict(dtype=()), "dtype must be a type or a non-empty tuple of types"),
])
def test_bad_arguments(bad, match):
    args = dict(asm="mov.b32 $0, $1;", constraints="=r,r", dtype=tl.int32, is_pure=True, pack=1)
    args.update(bad)

    @warpforge.jit
    def k(X, ASM: tl.constexpr, CONS: tl.constexpr, DT: tl.constexpr, PURE: tl.constexpr,
          PACK: tl.constexpr):
        x = tl.load(X + tl.arange(0, 128))
        tl.store(X + tl.arange(0, 128), tl.inline_asm_elementwise(ASM, CONS, [x], DT, PURE, PACK))

    with pytest.raises(CompilationError, match=match):
        k.warmup(I32, args["asm"], args["constraints"], args["dtype"], args["is_pure"],
                 args["pack"], grid=(1,))


def test_interpreter_says_it_cannot_run_ptx(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    with pytest.raises(Exception, match="runs PTX, which the interpreter cannot run"):
        funnel_shift[(1,)](U32.copy(), U32.copy(), U32.copy(), 17, BLOCK=128)


# -- On the GPU -------------------------------------------------------------------------


@pytest.mark.gpu
def test_inline_asm_gpu():
    import torch
    rs = np.random.RandomState(17)
    x = rs.randint(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    y = rs.randint(0, 2**32, 128, dtype=np.uint64).astype(np.uint32)
    tx, ty = (torch.from_numpy(v.view(np.int32)).cuda() for v in (x, y))
    tz = torch.full((128,), -1, dtype=torch.int32, device="cuda")
    funnel_shift[(1,)](tx, ty, tz, 17, BLOCK=128)
    ref = ((y.astype(np.uint64) << 17) | (x.astype(np.uint64) >> 15)).astype(np.uint32)
    np.testing.assert_array_equal(tz.cpu().numpy().view(np.uint32), ref)

    a = rs.randint(0, 256, 512).astype(np.uint8)
    ta = torch.from_numpy(a).cuda()
    tb = torch.full((512,), 7, dtype=torch.uint8, device="cuda")
    packed_bytes[(1,)](ta, tb, BLOCK=512)
    np.testing.assert_array_equal(tb.cpu().numpy(), ((a & 0x1F) << 3).astype(np.uint8))

    tb.fill_(7)
    through_pointers[(1,)](ta, tb, BLOCK=512)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(tb.cpu().numpy(), (a << 3).astype(np.uint8))

    f = rs.standard_normal(512).astype(np.float32) * 300
    tf = torch.from_numpy(f).cuda()
    tc = torch.full((512,), -1, dtype=torch.int32, device="cuda")
    td = torch.full((512,), float("nan"), device="cuda")
    two_results_packed[(1,)](ta, tf, tc, td, BLOCK=512)
    np.testing.assert_array_equal(tc.cpu().numpy(), a.astype(np.int32))
    np.testing.assert_array_equal(td.cpu().numpy(), np.maximum(a.astype(np.float32), f))

    # In a wgmma accumulator's registers: 2 * (A @ B) + 1, every element.
    ah = rs.standard_normal((64, 64)).astype(np.float16)
    bh = rs.standard_normal((64, 64)).astype(np.float16)
    out = torch.full((64, 64), float("nan"), device="cuda")
    dot_then_packed_asm[(1,)](torch.from_numpy(ah).cuda(), torch.from_numpy(bh).cuda(), out,
                              M=64, N=64, K=64)
    ref = 2 * (ah.astype(np.float64) @ bh.astype(np.float64)) + 1
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-3, atol=1e-2)


@pytest.mark.gpu
def test_special_registers_gpu():
    import torch
    n = 1024
    sms = torch.full((n,), -1, dtype=torch.int32, device="cuda")
    times = torch.zeros(2 * n, dtype=torch.int64, device="cuda")
    sm_and_clock[(n,)](sms, times)
    count = torch.cuda.get_device_properties(0).multi_processor_count
    assert 0 <= sms.min().item() and sms.max().item() < count
    assert (times[1::2] >= times[0::2]).all() and (times > 0).all()


@warpforge.jit
def every_thread_once(Out):
    n: tl.constexpr = tl.extra.cuda.num_threads()
    tl.static_assert(n == 32 * tl.extra.cuda.num_warps())
    tl.store(Out + tl.arange(0, n), 1)


@pytest.mark.parametrize("num_warps", [1, 4, 8])
def test_num_threads_and_num_warps(num_warps, monkeypatch):
    """Triton's tl.extra.cuda.num_threads()/num_warps(): constexprs from the
    launch's num_warps, in the compiler and the interpreter alike."""
    k = every_thread_once.warmup(np.zeros(256, np.int32), num_warps=num_warps, grid=(1,))
    assert f"tensor<{32 * num_warps}x" in k.asm["tile"]
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    out = np.zeros(256, np.int32)
    every_thread_once[(1,)](out, num_warps=num_warps)
    assert out.sum() == 32 * num_warps
