"""tl.dot on the CUDA cores (FMA) on the GPU, against float64.

The dots wgmma cannot take: float64, float32 at ieee precision, tiles
below its instructions (M under 64 rows per warpgroup, N or K under 16),
fewer than 4 warps, int8 and fp8 on small tiles, and batched (3-D) dots.
A matmul kernel with masks walks K in BLOCK_K steps over odd sizes (so the
tiles are partial in every dimension); outputs are NaN-poisoned (int32:
INT32_MIN) inside a larger poisoned buffer whose other elements must stay
poisoned; the reference is torch.matmul in float64 of the very inputs.
The same kernels are simulated thread by thread on the CPU in
test_fma_dot_simulation.py; this file checks them on the hardware.
"""

import pytest

import warpforge
import warpforge.language as tl

from dot_checks import check_product, make, poisoned_output
from fma_dot_kernels import CONFIGS, batched_dot_kernel, fma_matmul_kernel

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu


DTYPES = {"fp64": (torch.float64, tl.float64, torch.float64, 1e-12),
          "fp32": (torch.float32, tl.float32, torch.float32, 1e-5),
          "fp16": (torch.float16, tl.float32, torch.float32, 1e-3),
          "bf16": (torch.bfloat16, tl.float32, torch.float32, 1e-2),
          "e4m3": (torch.float8_e4m3fn, tl.float32, torch.float32, 1e-5),
          "int8": (torch.int8, tl.int32, torch.int32, 0)}

SHAPES = [(1, 1, 1), (37, 29, 41), (100, 3, 77), (5, 130, 19)]


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c)))
def test_fma_matmul(config, shape):
    name, bm, bn, bk, warps = config
    # (fp8 on sm80/sm86 targets is widened with integer operations.)
    dtype, acc, out_dtype, tol = DTYPES[name]
    m, n, k = shape
    gen = torch.Generator(device="cuda").manual_seed(m * 7919 + n * 31 + k)
    a, b = make((m, k), dtype, gen), make((k, n), dtype, gen)
    c, tail, poison = poisoned_output((m, n), out_dtype)
    precision = "ieee" if name in ("fp32", "fp64") else "tf32"
    fma_matmul_kernel[(warpforge.cdiv(m, bm), warpforge.cdiv(n, bn))](
        a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, PRECISION=precision, ACC=acc,
        num_warps=warps)
    torch.cuda.synchronize()
    check_product(a, b, c, tail, poison, tol, f"{config} {shape}")


@pytest.mark.parametrize("dtype_name", ["fp16", "fp32", "fp64"])
def test_batched_dot(dtype_name):
    # fp16 runs on mma.sync (test_gpu_mma_dot.py), fp32 as tf32 too, the
    # default precision: their tolerances are those of the tensor cores.
    dtype = DTYPES[dtype_name][0]
    gen = torch.Generator(device="cuda").manual_seed(5)
    a, b = make((2, 16, 32), dtype, gen), make((2, 32, 16), dtype, gen)
    out_dtype = torch.float64 if dtype == torch.float64 else torch.float32
    c = torch.full((2, 16, 16), float("nan"), device="cuda", dtype=out_dtype)
    batched_dot_kernel[(1,)](a, b, c, 2, 16, 16, 32)
    torch.cuda.synchronize()
    ref = a.to(torch.float64) @ b.to(torch.float64)
    err = (c.to(torch.float64) - ref).abs().max().item() / ref.abs().max().item()
    tol = {"fp16": 1e-3, "fp32": 1e-2}.get(dtype_name, DTYPES[dtype_name][3])
    assert err <= tol, err
