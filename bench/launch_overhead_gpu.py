"""Warm launch overhead on a GPU, host side: an empty kernel with three
pointer arguments and an i32, launched 10,000 times per measurement through

  * warpforge._C.Kernel.launch, with raw addresses and with torch tensors;
  * CompiledKernel.launch (current device and stream, then the C++ packer);
  * kernel[grid](...), the JIT's warm path (the hand-written cubin stands in
    for the compiler's until the compiler makes one);
  * Triton's kernel[grid](...), when Triton is installed, for comparison.

Host time is time.perf_counter around the launches, before synchronizing;
"with sync" adds the wait for the GPU to drain them. No CUDA events.

Needs a GPU, torch and ptxas (CUDA_HOME, PATH or /usr/local/cuda/bin); $LAUNCHES
changes the 10,000. Usage:
    PYTHONPATH=python python bench/launch_overhead_gpu.py
"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python", "test"))

import torch  # noqa: E402

import handwritten_ptx as hp  # noqa: E402
import warpforge  # noqa: E402
import warpforge.language as tl  # noqa: E402
from warpforge import _C  # noqa: E402
from warpforge.compiler.compiler import CompiledKernel, KernelOptions  # noqa: E402

LAUNCHES = int(os.environ.get("LAUNCHES", 10_000))
REPEATS = 5
N = 4000


@warpforge.jit
def empty_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
    pass


def measure(label, run):
    """`run(count)` launches `count` times; prints the best of REPEATS."""
    run(100)
    torch.cuda.synchronize()
    host = total = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        run(LAUNCHES)
        launched = time.perf_counter()
        torch.cuda.synchronize()
        done = time.perf_counter()
        host = min(host, (launched - start) / LAUNCHES)
        total = min(total, (done - start) / LAUNCHES)
    print(f"{label:52s} {host * 1e6:6.2f} us/launch   (with sync {total * 1e6:6.2f} us)")


def main():
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    device = torch.cuda.current_device()
    x, y, out = (torch.empty(N, device="cuda") for _ in range(3))
    cubin = hp.assemble(hp.EMPTY)
    print(f"{torch.cuda.get_device_name(device)}, driver {_C.cuda_driver_version()}, "
          f"torch {torch.__version__}, best of {REPEATS} x {LAUNCHES} launches")

    kernel = _C.Kernel(cubin, "empty", hp.SIGNATURES["empty"], 4, 0, device)
    raw = (x.data_ptr(), y.data_ptr(), out.data_ptr(), N)
    tensors = (x, y, out, N)

    def c_raw(count):
        launch = kernel.launch
        for _ in range(count):
            launch(4, 1, 1, 0, raw)

    def c_tensors(count):
        launch = kernel.launch
        for _ in range(count):
            launch(4, 1, 1, 0, tensors)

    measure("_C.Kernel.launch, int addresses", c_raw)
    measure("_C.Kernel.launch, torch tensors", c_tensors)

    compiled = CompiledKernel("empty", dict(hp.SIGNATURES["empty"]), {}, KernelOptions(),
                              asm={"cubin": cubin}, metadata={"name": "empty"},
                              params=list(hp.SIGNATURES["empty"]))

    def compiled_launch(count):
        launch, grid = compiled.launch, (4, 1, 1)
        for _ in range(count):
            launch(grid, tensors)

    measure("CompiledKernel.launch, torch tensors", compiled_launch)

    jitted = empty_kernel.warmup(x, y, out, N, BLOCK_SIZE=1024)
    source = "the compiler's cubin"
    if "cubin" not in jitted.asm:
        jitted.asm["cubin"] = cubin
        jitted.metadata.update(name="empty", shared=0, num_warps=4)
        source = "hand-written cubin"

    def jit_launch(count):
        for _ in range(count):
            empty_kernel[(4,)](x, y, out, N, BLOCK_SIZE=1024)

    measure(f"warpforge kernel[grid](...) ({source})", jit_launch)

    try:
        import triton
        import triton.language as ttl
    except ImportError:
        print("triton: not installed")
        return

    @triton.jit
    def triton_empty(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: ttl.constexpr):
        pass

    def triton_launch(count):
        for _ in range(count):
            triton_empty[(4,)](x, y, out, N, BLOCK_SIZE=1024)

    measure(f"triton {triton.__version__} kernel[grid](...)", triton_launch)


if __name__ == "__main__":
    main()
