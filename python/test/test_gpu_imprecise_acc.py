"""tl.dot(..., max_num_imprecise_acc=N) of fp8 operands on Hopper.

wgmma's fp8 products accumulate in fewer bits than f32; with N set, every
N products' worth of K is summed from zero and added to the f32
accumulator in f32 (Triton's partial accumulator).  As Triton's
test_dot_max_num_imprecise_acc: the kernel of its test, e4m3 and e5m2,
(M, N, K) = (128, 256, 256) with 128x256x128 and 64x64x64 tiles, N in
{0, 32, 64, 128}, the result against float64 and one f32 add per
accumulator element and partial sum in the PTX; and on a long K, the
partial sums are at least as close to float64 as the unbounded default.
"""

import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

FP8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}


@warpforge.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                  BLOCK_SIZE_K: tl.constexpr, low_precision_acc: tl.constexpr,
                  num_stages: tl.constexpr = 3):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    pid_m = pid % num_pid_m
    pid_n = pid // num_pid_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_SIZE_K), num_stages=num_stages):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        accumulator = tl.dot(a, b, acc=accumulator, max_num_imprecise_acc=low_precision_acc)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, accumulator, mask=c_mask)


def run(dtype, m, n, k, bm, bn, bk, low, gen):
    a = torch.randn((m, k), device="cuda", generator=gen).to(dtype)
    b = torch.randn((k, n), device="cuda", generator=gen).to(dtype)
    c = torch.full((m, n), float("nan"), device="cuda")
    grid = (warpforge.cdiv(m, bm) * warpforge.cdiv(n, bn),)
    h = matmul_kernel[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1), bm, bn, bk, low if low <= bk else None,
                            num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    ref = a.to(torch.float64) @ b.to(torch.float64)
    assert not c.isnan().any()
    return h, (c.to(torch.float64) - ref).abs().max().item() / ref.abs().max().item()


@pytest.mark.parametrize("low", [0, 32, 64, 128])
@pytest.mark.parametrize("tiles", [(128, 256, 128), (64, 64, 64)], ids=["128x256x128", "64x64x64"])
@pytest.mark.parametrize("name", list(FP8))
def test_partial_accumulation(name, tiles, low):
    bm, bn, bk = tiles
    h, err = run(FP8[name], 128, 256, 256, bm, bn, bk, low, torch.Generator("cuda").manual_seed(7))
    assert err <= 1e-3, f"relative error {err}"
    if 0 < low <= bk:
        # One f32 add per accumulator element of a thread and partial sum.
        assert h.asm["ptx"].count("add.f32") == bm * bn // (32 * 8) * (bk // low)
    else:
        assert "add.f32" not in h.asm["ptx"]


def test_partial_sums_are_no_less_precise():
    """K = 8192 of e4m3: partial sums of 32 against the unbounded default."""
    gen = torch.Generator("cuda")
    _, bounded = run(torch.float8_e4m3fn, 128, 128, 8192, 64, 64, 64, 32, gen.manual_seed(3))
    _, unbounded = run(torch.float8_e4m3fn, 128, 128, 8192, 64, 64, 64, 0, gen.manual_seed(3))
    # (ties: where the tensor cores' sum happens to be exact too)
    assert bounded <= unbounded * 1.05 + 1e-7, (bounded, unbounded)
    assert bounded <= 1e-4, bounded
