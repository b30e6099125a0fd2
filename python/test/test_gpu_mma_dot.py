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

from fma_dot_kernels import fma_matmul_kernel

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


def make(shape, dtype, gen):
    if dtype == torch.int8:
        return torch.randint(-128, 128, shape, device="cuda", dtype=torch.int8, generator=gen)
    return torch.randn(shape, device="cuda", dtype=torch.float64, generator=gen).to(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", CONFIGS, ids=ids)
def test_mma_matmul(config, shape):
    name, bm, bn, bk, warps = config
    dtype, _, out_dtype, tol, _ = DTYPES[name]
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k)
    a, b = make((m, k), dtype, gen), make((k, n), dtype, gen)
    poison = torch.iinfo(torch.int32).min if out_dtype == torch.int32 else float("nan")
    buf = torch.full((m * n + 64,), poison, device="cuda", dtype=out_dtype)
    c = buf[:m * n].view(m, n)
    fma_matmul_kernel[(warpforge.cdiv(m, bm), warpforge.cdiv(n, bn))](
        a, b, c, m, n, k, **_args(name, bm, bn, bk), num_warps=warps)
    torch.cuda.synchronize()
    ref = a.to(torch.float64) @ b.to(torch.float64)
    tail = buf[m * n:]
    assert (tail.isnan().all() if out_dtype != torch.int32 else (tail == poison).all())
    out = c.to(torch.float64)
    assert not out.isnan().any(), "elements left unwritten"
    if out_dtype == torch.int32:
        assert (out != poison).all()
    err = (out - ref).abs().max().item() / max(ref.abs().max().item(), 1e-30)
    assert err <= tol, f"{config} {shape}: relative error {err}"


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
