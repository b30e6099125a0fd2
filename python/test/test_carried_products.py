"""A loop that uses a product of the previous iteration after issuing this
iteration's products: FlashAttention-3's order, where O is rescaled between
QK^T of block n and PV of block n-1 (tilegpu-overlap-products gives the
rescale a wait of its own, lit `overlap-products.mlir`).

* On the CPU: the compiled kernel's ptxas log has no C7517 ("warpgroup.wait
  is injected ... to allow use of registers defined by GMMA"): ptxas found
  O retired and did not put a full wait ahead of PV, which would issue PV
  only after QK^T is done.
* On the GPU: the kernel, warp-specialized and not, against float64, with
  random inputs, sequence lengths that are and are not multiples of the
  block, and a NaN-filled output.
"""

import math
import zlib

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.tools.tensor_descriptor import TensorDescriptor


@warpforge.jit
def fa3_order_fwd(desc_q, desc_k, desc_v, o_ptr, qk_scale, S,
                  D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  WS: tl.constexpr):
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * S
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    q = desc_q.load([row0 + start_m * BLOCK_M, 0])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    alpha = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, D], dtype=tl.float32)
    p = tl.zeros([BLOCK_M, BLOCK_N], dtype=desc_q.dtype)
    for start_n in tl.range(0, S, BLOCK_N, warp_specialize=WS):
        k = desc_k.load([row0 + start_n, 0]).T
        qk = tl.dot(q, k)
        # O rescaled for the previous block's maximum while QK^T runs.
        acc = acc * alpha[:, None]
        # The previous block's V (before the first block p is zero).
        v = desc_v.load([row0 + start_n - BLOCK_N, 0])
        acc = tl.dot(p, v, acc)
        keep = (start_n + offs_n)[None, :] < S
        qk = tl.where(keep, qk * qk_scale, float("-inf"))
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        e = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(e, 1)
        m_i = m_ij
        p = e.to(desc_q.dtype)
    acc = acc * alpha[:, None]
    v = desc_v.load([row0 + ((S - 1) // BLOCK_N) * BLOCK_N, 0])
    acc = tl.dot(p, v, acc)
    acc = acc / l_i[:, None]
    rows = row0 + offs_m
    cols = tl.arange(0, D)
    tl.store(o_ptr + rows[:, None] * D + cols[None, :], acc.to(desc_q.dtype),
             mask=(offs_m < S)[:, None])


def _descriptors(q, k, v, D, BLOCK_M, BLOCK_N):
    rows = math.prod(q.shape[:-1])
    return (TensorDescriptor.from_tensor(q.reshape(rows, D), [BLOCK_M, D]),
            TensorDescriptor.from_tensor(k.reshape(rows, D), [BLOCK_N, D]),
            TensorDescriptor.from_tensor(v.reshape(rows, D), [BLOCK_N, D]))


@pytest.mark.parametrize("ws", [False, True], ids=["plain", "warp_specialized"])
def test_no_injected_wait_before_pv(ws):
    D, S, BLOCK_M, BLOCK_N = 64, 1024, 128, 64
    x = np.zeros((2, S, D), np.float16)
    dq, dk, dv = _descriptors(x, x, x, D, BLOCK_M, BLOCK_N)
    k = fa3_order_fwd.warmup(dq, dk, dv, x, 0.1, S, D=D, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             WS=ws, num_warps=8, grid=(1,))
    log = k.metadata.get("ptxas_log", "")
    assert "spill_stores" in k.metadata, f"no ptxas figures for the kernel:\n{log}"
    assert "C7517" not in log and "injected" not in log, log
    # The rescale's wait leaves QK^T in flight.
    assert "wgmma.wait_group.sync.aligned 1;" in k.asm["ptx"]


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("S", [1024, 1000])
@pytest.mark.parametrize("D", [64, 128])
@pytest.mark.parametrize("ws", [False, True], ids=["plain", "warp_specialized"])
def test_against_float64(ws, D, S, dtype):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs a GPU")
    Z, H, BLOCK_M, BLOCK_N = 1, 3, 128, 64
    dt = getattr(torch, dtype)
    g = torch.Generator(device="cuda").manual_seed(zlib.crc32(repr((ws, D, S, dtype)).encode()))
    q, k, v = ((torch.randn((Z, H, S, D), generator=g, device="cuda") * 0.5).to(dt)
               for _ in range(3))
    o = torch.full_like(q, float("nan"))
    sm_scale = 1.0 / math.sqrt(D)
    dq, dk, dv = _descriptors(q, k, v, D, BLOCK_M, BLOCK_N)
    fa3_order_fwd[(warpforge.cdiv(S, BLOCK_M), Z * H)](
        dq, dk, dv, o, sm_scale * 1.4426950408889634, S, D=D, BLOCK_M=BLOCK_M,
        BLOCK_N=BLOCK_N, WS=ws, num_warps=8)
    torch.cuda.synchronize()
    assert not torch.isnan(o).any(), "output rows left unwritten (NaN)"
    q64, k64, v64 = (t.double() for t in (q, k, v))
    ref = torch.softmax(q64 @ k64.transpose(-1, -2) * sm_scale, dim=-1) @ v64
    err = ((o.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < (1e-2 if dtype == "float16" else 2e-2), err
