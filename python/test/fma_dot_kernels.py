"""Kernels whose tl.dot runs on the CUDA cores (FMA): test_gpu_fma_dot.py
runs them on the GPU, test_fma_dot_simulation.py compiles them to cubins
and interprets them on the CPU."""

import warpforge
import warpforge.language as tl


@warpforge.jit
def fma_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr,
                      BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, PRECISION: tl.constexpr,
                      ACC: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        kk = k * BLOCK_K + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :],
                    mask=(rm[:, None] < M) & (kk[None, :] < K), other=0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :],
                    mask=(kk[:, None] < K) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(c_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


@warpforge.jit
def batched_dot_kernel(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr,
                       N: tl.constexpr, K: tl.constexpr):
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rn = tl.arange(0, N)[None, None, :]
    rka = tl.arange(0, K)[None, None, :]
    rkb = tl.arange(0, K)[None, :, None]
    a = tl.load(a_ptr + rb * M * K + rm * K + rka)
    b = tl.load(b_ptr + rb * K * N + rkb * N + rn)
    tl.store(c_ptr + rb * M * N + rm * N + rn, tl.dot(a, b))


@warpforge.jit
def batched_matmul_kernel(a_ptr, b_ptr, c_ptr, BATCH, M, N, K, BLOCK_B: tl.constexpr,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, PRECISION: tl.constexpr, ACC: tl.constexpr):
    """C[b] = A[b] @ B[b] for BATCH contiguous matrices, BLOCK_B of them per
    program, with masks on every dimension (odd sizes)."""
    rb = tl.program_id(0) * BLOCK_B + tl.arange(0, BLOCK_B)
    rm = tl.program_id(1) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(2) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    b3, m3, n3 = rb[:, None, None], rm[None, :, None], rn[None, None, :]
    acc = tl.zeros((BLOCK_B, BLOCK_M, BLOCK_N), dtype=ACC)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        ka = (k * BLOCK_K + rk)[None, None, :]
        kb = (k * BLOCK_K + rk)[None, :, None]
        a = tl.load(a_ptr + b3 * M * K + m3 * K + ka,
                    mask=(b3 < BATCH) & (m3 < M) & (ka < K), other=0)
        b = tl.load(b_ptr + b3 * K * N + kb * N + n3,
                    mask=(b3 < BATCH) & (kb < K) & (n3 < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    tl.store(c_ptr + b3 * M * N + m3 * N + n3, acc.to(c_ptr.dtype.element_ty),
             mask=(b3 < BATCH) & (m3 < M) & (n3 < N))


# (dtype, BLOCK_M, BLOCK_N, BLOCK_K, num_warps): each below what wgmma takes.
CONFIGS = [("fp64", 32, 32, 16, 4), ("fp64", 64, 64, 8, 4), ("fp32", 64, 64, 16, 4),
           ("fp16", 16, 16, 16, 4), ("fp16", 32, 16, 8, 1), ("fp16", 64, 64, 16, 2),
           ("bf16", 16, 32, 16, 1), ("e4m3", 16, 16, 16, 4), ("int8", 16, 16, 16, 4),
           ("fp16", 1, 16, 16, 1), ("fp32", 16, 1, 16, 1)]
