"""Launches warpforge's attention forward (bench/kernels/attention.py) with
one config a few times, for Nsight Compute to profile the last launch:

    ncu --launch-skip 3 --launch-count 1 --section WarpStateStats \\
        python bench/tools/ncu_attention.py --config 128x64w8s2ws [--seqlen 4096] [--head-dim 128]

`--variant "products only"` profiles one of attention_ceiling.py's
variants (wrong results on purpose) instead. `--sdpa cudnn` (or flash) launches torch's scaled_dot_product_attention on
that backend instead (its kernel then is the one profiled; --config is not
needed), to read the same counters off the kernel warpforge is compared
with. bench/tools/ncu_stalls.py sums a source page's warp-state samples.

Config text as bench/attention.py's --configs (BMxBNw<warps>s<stages>,
'seq': products in order, 'ws': warp-specialized). B4 H32 fp16, not causal
unless --causal.
"""

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import attention  # noqa: E402
import common  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--config")
    p.add_argument("--sdpa", choices=["cudnn", "flash"],
                   help="profile torch's SDPA on this backend instead")
    p.add_argument("--seqlen", type=int, default=4096)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--causal", action="store_true")
    p.add_argument("--launches", type=int, default=4)
    p.add_argument("--variant",
                   help="one of attention_ceiling.py's variants instead of the benchmark "
                        "kernel (its counters against the full kernel's)")
    args = p.parse_args()
    if not args.config and not args.sdpa:
        p.error("--config or --sdpa is needed")
    import torch
    if args.sdpa:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        import torch.nn.functional as F
        B, H, S, D = 4, 32, args.seqlen, args.head_dim
        q, k, v = (torch.randn((B, H, S, D), device="cuda", dtype=torch.float16)
                   for _ in range(3))
        backend = {"cudnn": SDPBackend.CUDNN_ATTENTION,
                   "flash": SDPBackend.FLASH_ATTENTION}[args.sdpa]
        with sdpa_kernel(backend):
            for _ in range(args.launches):
                F.scaled_dot_product_attention(q, k, v, is_causal=args.causal)
        torch.cuda.synchronize()
        return
    path = os.path.join(common.REPO_DIR, "bench", "kernels", "attention.py")
    if args.variant:
        import tempfile
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import attention_ceiling
        sources = attention_ceiling.variant_sources()
        if args.variant not in sources:
            p.error(f"--variant: unknown {args.variant!r}; known: {list(sources)}")
        path = os.path.join(tempfile.mkdtemp(prefix="ncu_attention_"), "attention_variant.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sources[args.variant][0])
    m = common.load_kernels(path, "warpforge")
    config = attention.config_of(m, args.config)
    B, H, S, D = 4, 32, args.seqlen, args.head_dim
    q, k, v = (torch.randn((B, H, S, D), device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    lse = torch.empty((B, H, S), device="cuda")
    kernel, grid, a, meta = m.attention_call(q, k, v, o, lse, args.causal, 1 / math.sqrt(D),
                                             config)
    for _ in range(args.launches):
        kernel[grid](*a, **meta)
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
