"""tl.dot on mma.sync on the GPU, against float64.

The dots wgmma cannot take but the warp-level tensor cores can: fewer than
4 warps, fewer than 64 rows per warpgroup, narrow N; f16 (f32 and f16
accumulators), bf16, int8 and float32 as tf32.  The masked matmul kernel
of test_gpu_fma_dot.py walks K over odd sizes, so every tile is partial;
outputs are poisoned (NaN, INT32_MIN) inside a larger poisoned buffer whose
tail must stay poisoned.  Each configuration is first checked to compile
to mma.sync (not wgmma, not FMA).  The same lowering is simulated thread by
thread against the PTX ISA's fragment layouts in
test_mma_dot_simulation.py.
"""

import pytest

import warpforge
import warpforge.language as tl

from dot_checks import check_product, make, poisoned_output
from fma_dot_kernels import batched_matmul_kernel, fma_matmul_kernel

torch = pytest.importorskip("torch")

# name: (torch dtype, accumulator, output dtype, relative tolerance, ptx type suffix)
DTYPES = {"fp16": (torch.float16, tl.float32, torch.float32, 1e-3, "f32.f16.f16.f32"),
          "fp16acc16": (torch.float16, tl.float16, torch.float16, 1e-2, "f16.f16.f16.f16"),
          "bf16": (torch.bfloat16, tl.float32, torch.float32, 1e-2, "f32.bf16.bf16.f32"),
          "int8": (torch.int8, tl.int32, torch.int32, 0, "satfinite.s32.s8.s8.s32"),
          "tf32": (torch.float32, tl.float32, torch.float32, 1e-2, "f32.tf32.tf32.f32")}

# (dtype, BLOCK_M, BLOCK_N, BLOCK_K, num_warps)
CONFIGS = [("fp16", 16, 16, 16, 1), ("fp16", 16, 64, 32, 2), ("fp16", 32, 32, 32, 4),
           ("fp16", 64, 64, 32, 2), ("fp16", 16, 256, 64, 8), ("fp16", 16, 8, 16, 4),
           ("fp16acc16", 32, 32, 32, 2), ("bf16", 16, 32, 16, 1), ("bf16", 32, 64, 32, 4),
           ("int8", 32, 32, 32, 1), ("int8", 16, 64, 64, 4), ("tf32", 16, 32, 8, 1),
           ("tf32", 32, 32, 16, 4)]

# Odd sizes, and K a multiple of 16 (then the operand loads qualify for
# cp.async rings: the pipelined mainloop).
SHAPES = [(1, 1, 1), (37, 29, 41), (100, 3, 77), (5, 130, 19), (257, 263, 300),
          (37, 200, 512), (64, 256, 1024)]

ids = lambda c: "-".join(map(str, c))  # noqa: E731


def _args(name, bm, bn, bk):
    dtype, acc, out, _, _ = DTYPES[name]
    return dict(BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                PRECISION="tf32" if name == "tf32" else "ieee", ACC=acc)


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_compiles_to_mma_sync(config, monkeypatch):
    """No GPU needed: the PTX has Triton's mma.sync spelling, no wgmma and
    no FMA product, and ptxas spills nothing."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    name, bm, bn, bk, warps = config
    dtype, _, out, _, suffix = DTYPES[name]
    k = fma_matmul_kernel.warmup(
        torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=out),
        37, 29, 41, **_args(name, bm, bn, bk), num_warps=warps, grid=(1,))
    ptx = k.asm["ptx"]
    kstep = {"int8": 32, "tf32": 8}.get(name, 16)
    assert f"mma.sync.aligned.m16n8k{kstep}.row.col.{suffix}" in ptx
    assert "wgmma" not in ptx
    assert k.metadata["spill_stores"] == 0


@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_mma_sync_mainloop_is_pipelined(config, monkeypatch):
    """With K a multiple of 16 the operand loads go to shared memory by
    cp.async, num_stages deep, and the products read them from there."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    name, bm, bn, bk, warps = config
    dtype, _, out, _, _ = DTYPES[name]
    k = fma_matmul_kernel.warmup(
        torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=out),
        37, 4096, 4096, **_args(name, bm, bn, bk), num_warps=warps, num_stages=3, grid=(1,))
    ir = k.asm["tilegpu"]
    assert "tilegpu.async_copy_global_to_local" in ir and "tilegpu.async_wait" in ir
    assert "cp.async" in k.asm["ptx"] and "mma.sync" in k.asm["ptx"]
    assert k.metadata["spill_stores"] == 0


def test_a_kernel_spilling_for_occupancy_gets_one_cta_per_sm(monkeypatch):
    """Under .reqntid 256, sm_80's ptxas budgets 128 registers (two CTAs
    per SM) for this 16x256x64 tile on 8 warps and spilled 72 bytes; the
    compiler assembles it again with `.minnctapersm 1` and keeps that (no
    spills).  With maxnreg the author's cap stays."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    args = (torch.zeros(4, dtype=torch.float16), torch.zeros(4, dtype=torch.float16),
            torch.zeros(4, dtype=torch.float32), 37, 29, 41)
    k = fma_matmul_kernel.warmup(*args, **_args("fp16", 16, 256, 64), num_warps=8,
                                 arch="sm80", grid=(1,))
    assert k.metadata["spill_stores"] == 0 and k.metadata["min_ctas_per_sm"] == 1
    assert ".minnctapersm 1" in k.asm["ptx"] and k.metadata["registers"] > 128
    capped = fma_matmul_kernel.warmup(*args, **_args("fp16", 16, 256, 64), num_warps=8,
                                      arch="sm80", maxnreg=128, grid=(1,))
    assert capped.metadata["min_ctas_per_sm"] == 0 and ".minnctapersm" not in capped.asm["ptx"]
    assert capped.metadata["spill_stores"] > 0


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_mma_matmul(config, shape):
    name, bm, bn, bk, warps = config
    dtype, _, out_dtype, tol, _ = DTYPES[name]
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k)
    a, b = make((m, k), dtype, gen), make((k, n), dtype, gen)
    c, tail, poison = poisoned_output((m, n), out_dtype)
    fma_matmul_kernel[(warpforge.cdiv(m, bm), warpforge.cdiv(n, bn))](
        a, b, c, m, n, k, **_args(name, bm, bn, bk), num_warps=warps)
    torch.cuda.synchronize()
    check_product(a, b, c, tail, poison, tol, f"{config} {shape}")


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(37, 200, 512), (257, 263, 300)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", [("fp16", 64, 64, 32, 4), ("bf16", 32, 64, 32, 4),
                                    ("int8", 32, 32, 32, 1), ("tf32", 32, 32, 16, 4),
                                    ("fp16", 128, 128, 32, 8)], ids=ids)
@pytest.mark.parametrize("arch", ["sm80", "sm89"])
def test_mma_matmul_for_another_target(arch, config, shape):
    """arch=sm80 / sm89 code (mma.sync, cp.async, no wgmma) on the H100: the
    driver compiles its PTX; the results are those of the sm_90a kernels.
    64 and 128 rows on 4 and 8 warps, which wgmma would take on sm_90a."""
    name, bm, bn, bk, warps = config
    dtype, _, out_dtype, tol, _ = DTYPES[name]
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m + n + k)
    a, b = make((m, k), dtype, gen), make((k, n), dtype, gen)
    poison = torch.iinfo(torch.int32).min if out_dtype == torch.int32 else float("nan")
    c = torch.full((m, n), poison, device="cuda", dtype=out_dtype)
    compiled = fma_matmul_kernel[(warpforge.cdiv(m, bm), warpforge.cdiv(n, bn))](
        a, b, c, m, n, k, **_args(name, bm, bn, bk), num_warps=warps, num_stages=3, arch=arch)
    torch.cuda.synchronize()
    assert compiled.metadata["capability"] == int(arch[2:])
    assert "mma.sync" in compiled.asm["ptx"] and "wgmma" not in compiled.asm["ptx"]
    ref = a.to(torch.float64) @ b.to(torch.float64)
    out = c.to(torch.float64)
    assert not out.isnan().any()
    err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
    assert err <= tol, f"{arch} {config} {shape}: relative error {err}"


# Batched (3-D) products: (dtype, BLOCK_B, BLOCK_M, BLOCK_N, BLOCK_K, num_warps).
BATCHED_CONFIGS = [("fp16", 2, 32, 32, 32, 4), ("fp16", 8, 32, 32, 64, 8),
                   ("fp16acc16", 4, 16, 16, 16, 1), ("bf16", 2, 16, 64, 32, 2),
                   ("int8", 2, 32, 32, 32, 4), ("tf32", 2, 16, 32, 16, 1),
                   ("fp16", 1, 64, 64, 32, 4)]
BATCHED_SHAPES = [(1, 1, 1, 1), (3, 37, 29, 41), (5, 100, 3, 77), (2, 64, 64, 256)]


def _batched_args(name, bb, bm, bn, bk):
    return dict(BLOCK_B=bb, **_args(name, bm, bn, bk))


@pytest.mark.parametrize("arch", ["sm80", "sm90"])
@pytest.mark.parametrize("config", BATCHED_CONFIGS, ids=ids)
def test_batched_dot_compiles_to_mma_sync(config, arch, monkeypatch):
    """No GPU needed: a 3-D tl.dot runs on mma.sync (it ran on FMA), one
    batch at a time on all the warps, with no spills; on sm80 without
    sm_90's stmatrix."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    name, bb, bm, bn, bk, warps = config
    dtype, _, out, _, suffix = DTYPES[name]
    k = batched_matmul_kernel.warmup(
        torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=dtype), torch.zeros(4, dtype=out),
        3, 37, 29, 41, **_batched_args(name, bb, bm, bn, bk), num_warps=warps, arch=arch,
        grid=(1,))
    if arch == "sm80":
        assert "stmatrix" not in k.asm["ptx"] and "fence.proxy" not in k.asm["ptx"]
    ptx = k.asm["ptx"]
    kstep = {"int8": 32, "tf32": 8}.get(name, 16)
    assert f"mma.sync.aligned.m16n8k{kstep}.row.col.{suffix}" in ptx
    assert "wgmma" not in ptx and "fma.rn" not in ptx
    assert k.metadata["spill_stores"] == 0


@pytest.mark.gpu
@pytest.mark.parametrize("shape", BATCHED_SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", BATCHED_CONFIGS, ids=ids)
def test_batched_mma_matmul(config, shape):
    """Batched products at odd sizes (partial tiles along the batch, M, N
    and K), poisoned outputs, against float64."""
    name, bb, bm, bn, bk, warps = config
    dtype, _, out_dtype, tol, _ = DTYPES[name]
    nb, m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(nb * 104729 + m * 7919 + n * 31 + k)
    a, b = make((nb, m, k), dtype, gen), make((nb, k, n), dtype, gen)
    c, tail, poison = poisoned_output((nb, m, n), out_dtype)
    batched_matmul_kernel[(warpforge.cdiv(nb, bb), warpforge.cdiv(m, bm), warpforge.cdiv(n, bn))](
        a, b, c, nb, m, n, k, **_batched_args(name, bb, bm, bn, bk), num_warps=warps)
    torch.cuda.synchronize()
    check_product(a, b, c, tail, poison, tol, f"{config} {shape}")


@warpforge.jit
def fp8_to_f32_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask).to(tl.float32), mask=mask)


@pytest.mark.gpu
@pytest.mark.parametrize("fp8", [torch.float8_e4m3fn, torch.float8_e5m2], ids=str)
@pytest.mark.parametrize("arch", ["sm80", "sm89"])
def test_every_fp8_value_converts(arch, fp8):
    """All 256 fp8 codes to float32: emulated on sm80 (no cvt from fp8
    before sm_89), the instruction on sm89; both as torch converts them."""
    x = torch.arange(256, device="cuda", dtype=torch.int32).to(torch.uint8).view(fp8)
    y = torch.full((256 + 64,), 7.0, device="cuda")
    compiled = fp8_to_f32_kernel[(2,)](x, y, 256, BLOCK=128, arch=arch)
    torch.cuda.synchronize()
    assert ("cvt.rn.f16x2" in compiled.asm["ptx"]) == (arch == "sm89")
    torch.testing.assert_close(y[:256], x.float(), rtol=0, atol=0, equal_nan=True)
    assert (y[256:] == 7.0).all()


@pytest.mark.gpu
@pytest.mark.parametrize("fp8", [torch.float8_e4m3fn, torch.float8_e5m2], ids=str)
def test_fp8_matmul_on_sm80(fp8):
    """fp8 operands on an sm80 target: widened to f16 (emulated) for
    mma.sync; f16 holds every fp8 value, so the f32 sums are exact
    products' sums."""
    m, n, k = 100, 77, 96
    gen = torch.Generator(device="cuda").manual_seed(11)
    a = torch.randn((m, k), device="cuda", generator=gen).to(fp8)
    b = torch.randn((k, n), device="cuda", generator=gen).to(fp8)
    c = torch.full((m, n), float("nan"), device="cuda")
    compiled = fma_matmul_kernel[(warpforge.cdiv(m, 32), warpforge.cdiv(n, 32))](
        a, b, c, m, n, k, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, PRECISION="ieee",
        ACC=tl.float32, num_warps=4, arch="sm80")
    torch.cuda.synchronize()
    assert "mma.sync" in compiled.asm["ptx"] and "cvt.rn.f16x2" not in compiled.asm["ptx"]
    ref = a.to(torch.float64) @ b.to(torch.float64)
    out = c.to(torch.float64)
    assert not out.isnan().any()
    err = (out - ref).abs().max().item() / ref.abs().max().item()
    assert err <= 1e-5, err
