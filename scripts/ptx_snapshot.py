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
pointers, sizes divisible by 16). Needs no GPU.
"""

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from bench.kernels import matmul, memory_bound  # noqa: E402


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
    for label, k in written:
        with open(os.path.join(out_dir, f"{label}.ptx"), "w") as f:
            f.write(k.asm["ptx"])
        print(f"{out_dir}/{label}.ptx: {len(k.asm['ptx'])} bytes")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    main(sys.argv[1])
