#!/usr/bin/env python3
"""Writes the PTX of the benchmark kernels to a directory, to check that a
refactoring leaves code generation alone:

    python3 scripts/ptx_snapshot.py /tmp/before   # on the old commit
    python3 scripts/ptx_snapshot.py /tmp/after    # on the new one
    diff -r /tmp/before /tmp/after

Kernels: the matmul of bench/kernels/matmul.py (fp16 and bf16 at
128x256x64, group 8, 8 warps, 3 stages), and
softmax and layer norm of bench/kernels/memory_bound.py (fp16 and fp32 rows
of 4096), specialized as the benchmarks launch them (16-byte aligned
pointers, sizes divisible by 16); the attention forward of
bench/kernels/attention.py (D128, 128x64 blocks: plain with 4 warps,
warp-specialized with 8 in order and rotated, causal); and a kernel of
libdevice math in a loop (erf, pow, exp, sqrt, rsqrt, log, sin, cos, tanh,
integer division). Needs no GPU.
"""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench import common  # noqa: E402
from bench.kernels import matmul, memory_bound  # noqa: E402

import warpforge  # noqa: E402
import warpforge.language as tl  # noqa: E402
from warpforge.tools.tensor_descriptor import TensorDescriptor  # noqa: E402


@warpforge.jit
def libdevice_math(x_ptr, y_ptr, z_ptr, n, p, BLOCK: tl.constexpr, MODE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=2.0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, p):
        if MODE == 0:
            acc += (tl.math.erf(x) * tl.extra.cuda.libdevice.pow(y, 2.5)
                    + tl.exp(x - i) / (y + i))
        elif MODE == 1:
            acc += (tl.sqrt(tl.abs(x)) + tl.math.rsqrt(y + 1.0) + tl.log(y + i)
                    + tl.sin(x) * tl.cos(y))
        else:
            q = (offs + i) // 7 + (offs % 5) * i
            acc += q.to(tl.float32) + tl.extra.cuda.libdevice.tanh(x) + tl.where(x > y, x, y)
    s = tl.sum(acc, axis=0)
    tl.store(z_ptr + offs, acc / s, mask=m)
    tl.atomic_add(z_ptr, s)


def aligned(shape, dtype):
    """A zeroed array whose data starts on a 16-byte boundary (the TMA's)."""
    n = int(np.prod(shape)) * np.dtype(dtype).itemsize
    raw = np.zeros(n + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    return raw[start:start + n].view(dtype).reshape(shape)


class Buffer:
    """A stand-in for a GPU tensor: an address and a dtype, no memory."""

    def __init__(self, kind: str, address: int = 1 << 20):
        self.kind = kind
        self.address = address

    @property
    def __cuda_array_interface__(self):
        return {"shape": (1,), "typestr": self.kind, "data": (self.address, False),
                "version": 3}


class BF16Tensor:
    """NumPy has no bfloat16: a torch-like tensor of one."""
    dtype = "torch.bfloat16"

    def data_ptr(self):
        return 1 << 20


def main(out_dir: str) -> None:
    os.makedirs(out_dir, exist_ok=True)
    written = []
    M = N = K = 4096
    for label, make in [("fp16", lambda: Buffer("<f2")), ("bf16", BF16Tensor)]:
        a = make()
        k = matmul.matmul_kernel.warmup(a, a, a, M, N, K, K, 1, N, 1, N, 1, grid=(1,),
                                        **matmul.launch_options(matmul.CONFIGS[0]))
        written.append((f"matmul-{label}", k))
    for dtype, kind in [("fp16", "<f2"), ("fp32", "<f4")]:
        x = Buffer(kind)
        k = memory_bound.softmax_kernel.warmup(x, x, 4096, 4096, 4096, BLOCK_SIZE=4096,
                                               num_warps=16, grid=(1,))
        written.append((f"softmax-{dtype}", k))
        w = Buffer(kind)
        stats = Buffer("<f4")
        k = memory_bound.layer_norm_kernel.warmup(x, x, w, w, stats, stats, 4096, 4096, 1e-5,
                                                  BLOCK_SIZE=4096, num_warps=8, grid=(1,))
        written.append((f"layer_norm-{dtype}", k))
    attention = common.load_kernels(os.path.join(ROOT, "bench", "kernels", "attention.py"),
                                    "warpforge")
    S, D = 1531, 128
    t = aligned((2 * S, D), np.float16)
    lse = aligned((2 * S,), np.float32)
    for label, warps, block_m, overlap, ws, causal in [
            ("plain-rotated", 4, 64, True, False, False),
            ("ws-in-order", 8, 128, False, True, False),
            ("ws-rotated", 8, 128, True, True, False),
            ("ws-in-order-causal", 8, 128, False, True, True)]:
        dq = TensorDescriptor.from_tensor(t, [block_m, D])
        dk = TensorDescriptor.from_tensor(t, [64, D])
        k = attention.attn_fwd_kernel.warmup(
            dq, dk, dk, dq, t, lse, 0.5, 1, 2, S, HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=64,
            CAUSAL=causal, OVERLAP=overlap, WS=ws, grid=(1,), num_warps=warps, num_stages=2)
        written.append((f"attention-{label}", k))
    f = Buffer("<f4")
    for mode in range(3):
        k = libdevice_math.warmup(f, f, f, 1000, 7, BLOCK=1024, MODE=mode, grid=(1,))
        written.append((f"libdevice-math-{mode}", k))
    for label, k in written:
        with open(os.path.join(out_dir, f"{label}.ptx"), "w") as f:
            f.write(k.asm["ptx"])
        print(f"{out_dir}/{label}.ptx: {len(k.asm['ptx'])} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    main(sys.argv[1])
