"""Host overhead of a warm `kernel[grid](...)` launch, up to the driver call.

Until the GPU backend lands, CompiledKernel.launch is replaced by a no-op, so
this measures exactly the frontend's share: binding, specialization key,
cache look-up, grid and argument selection. Arguments are torch CUDA tensors
when torch and a GPU are available, else objects with the same interface
(`data_ptr()`, `dtype`).

Usage: python bench/launch_overhead.py
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "test"))

import zoo  # noqa: E402
from warpforge.compiler.compiler import CompiledKernel  # noqa: E402


class _Dtype:
    def __str__(self):
        return "torch.float32"


class TensorLike:
    dtype = _Dtype()

    def __init__(self, ptr):
        self.ptr = ptr

    def data_ptr(self):
        return self.ptr


def tensors():
    try:
        import torch
        if torch.cuda.is_available():
            return [torch.empty(4096, device="cuda") for _ in range(3)], "torch CUDA tensors"
    except ImportError:
        pass
    return [TensorLike(1 << 20) for _ in range(3)], "tensor-like objects"


def main():
    CompiledKernel.launch = lambda self, grid, args, stream=None: None
    (x, y, z), kind = tensors()
    k = zoo.add_kernel
    k[(4,)](x, y, z, 4000, BLOCK_SIZE=1024)
    n, best = 100000, float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            k[(4,)](x, y, z, 4000, BLOCK_SIZE=1024)
        best = min(best, (time.perf_counter() - t) / n)
    print(f"warm launch host overhead (no driver call), {kind}: {best * 1e6:.2f} us "
          f"(best of 5 x {n})")


if __name__ == "__main__":
    main()
