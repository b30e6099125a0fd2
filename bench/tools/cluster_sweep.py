"""Where a cluster kernel's time goes: tutorial 09's persistent matmul at
8192^3 fp16 under warpforge, 1 or 2 CTAs per program, over program counts
and warp-specialization spellings, timed in turns in one process.

    python bench/tools/cluster_sweep.py [--shape 8192x8192x8192]

Prints TFLOP/s per (variant, programs); a drop past some program count
shows the clusters that fit at once (a second wave), a flat deficit the
kernel itself.
"""

import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python", "test"))

import tutorial09_kernels as tut  # noqa: E402
from warpforge.testing import do_bench_interleaved  # noqa: E402


def launch(a, b, c, bm, bn, warps, ctas, programs, stages=3, **options):
    m, k = a.shape
    n = b.shape[0]
    descs = [tut.TensorDescriptor.from_tensor(x, [1, 1]) for x in (a, b, c)]
    meta = {"BLOCK_SIZE_M": bm, "BLOCK_SIZE_N": bn, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
            "FP8_OUTPUT": False, "EPILOGUE_SUBTILE": False, "NUM_SMS": programs,
            "WARP_SPECIALIZE": options.pop("warp_specialize", True)}
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    kernel = tut.matmul_kernel_tma_persistent.fn
    args = (*descs, m, n, k)

    def run():
        kernel[(programs,)](*args, num_warps=warps, num_stages=stages, num_ctas=ctas, **meta,
                            **options)
    return run


def launch_device_desc(a, b, c, bm, bn, warps, ctas, programs):
    """The tutorial's descriptor-persistent kernel: descriptors made on the
    device, which warp specialization loads without multicast."""
    m, k = a.shape
    n = b.shape[0]
    kernel = tut.matmul_kernel_descriptor_persistent.fn
    tut.triton.set_allocator(
        lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))

    def run():
        kernel[(programs,)](a, b, c, m, n, k, BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=64,
                            GROUP_SIZE_M=8, EPILOGUE_SUBTILE=False, NUM_SMS=programs,
                            WARP_SPECIALIZE=True, FLATTEN=True, num_warps=warps,
                            num_stages=3, num_ctas=ctas)
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", default="8192x8192x8192")
    args = parser.parse_args()
    m, n, k = map(int, args.shape.split("x"))
    a = torch.randn((m, k), device="cuda", dtype=torch.float16)
    b = torch.randn((n, k), device="cuda", dtype=torch.float16)
    c = torch.empty((m, n), device="cuda", dtype=torch.float16)
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    fns = {f"c1 ws p{sms}": launch(a, b, c, 128, 256, 8, 1, sms)}
    for programs in (32, 48, 56, 60, 62, 64, 66):
        fns[f"c2 ws p{programs}"] = launch(a, b, c, 256, 256, 8, 2, programs)
    fns["c2 groups p60"] = launch(a, b, c, 256, 256, 4, 2, 60, warp_specialize=False,
                                  num_consumer_groups=2, num_buffers_warp_spec=3)
    fns["c2 plain p60"] = launch(a, b, c, 256, 256, 8, 2, 60, warp_specialize=False)
    for stages in (3, 4, 5):
        fns[f"c1 128x128 s{stages}"] = launch(a, b, c, 128, 128, 8, 1, sms, stages)
        fns[f"c2 256x128 s{stages}"] = launch(a, b, c, 256, 128, 8, 2, 64, stages)
    fns[f"c1 devdesc p{sms}"] = launch_device_desc(a, b, c, 128, 256, 8, 1, sms)
    fns["c2 devdesc p64"] = launch_device_desc(a, b, c, 256, 256, 8, 2, 64)
    for fn in fns.values():
        fn()
    torch.cuda.synchronize()
    ref = a[:256].float() @ b.float().T[:, :256]
    for name, fn in fns.items():
        c.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        err = (c[:256, :256].float() - ref).abs().max().item() / ref.abs().max().item()
        assert err < 1e-2, f"{name}: error {err}"
    times = do_bench_interleaved(fns, warmup=25, rep=100)
    for name, ms in times.items():
        ms = ms if isinstance(ms, float) else sorted(ms)[len(ms) // 2]
        print(f"{name:16s} {2 * m * n * k / ms / 1e9:7.0f} TFLOP/s")


if __name__ == "__main__":
    main()
