"""Matrix multiplication on one GPU: warpforge, Triton and cuBLAS side by side.

The kernel (Triton's tutorial blocked matmul with grouped tile order) is
written once, in bench/kernels/matmul.py, and autotuned by Triton and by
warpforge over the same configs (keyed on M, N, K); cuBLAS is torch.matmul.
For each dtype (fp16, bf16: fp32 accumulation, output in the input type)
and shape, all three run in the same process on the same random inputs.
Each result is checked against a float64 torch.matmul of those inputs: the
output of the config the autotuner picked, launched alone on an output
poisoned with NaN and followed by a poisoned guard, must have
max |out - ref| / max |ref| and rms(out - ref) / rms(ref) under the dtype's
tolerance. Then the checked providers are timed together, in --rounds
rounds (default 3) of warpforge.testing.do_bench_interleaved: launch by
launch in turns, each after an L2 flush (and, since 2026-11-28, with the
GPU held while the host queues the launch, so that a time is the kernel's
and not the Python launch path's), so that all of them meet the card
in the same state (its clock drifts with temperature and power over
seconds, which moved separately timed ratios by 2%). A provider's time is
its median round (the median launch of each round, the rounds kept in the
JSON), reported in TFLOP/s (2 M N K / time); each ratio is also reported
per launch: the median and quartiles, over all rounds, of the ratio of the
two launches of one iteration.
With --config, both JITs skip autotuning and run that one config: a
comparison of the two compilers on the same kernel, free of the
autotuners' picks.

--variants picks the kernels: "blocked" (the default: the kernel above,
providers "triton" and "warpforge"), and tutorial 09's TMA kernels "tma"
(matmul_kernel_tma: host tensor descriptors, one program per tile) and
"tma-persistent" (matmul_kernel_tma_persistent: a persistent grid of
min(SMs, tiles) programs), and "tma-ws" / "tma-persistent-ws" (the same
kernels warp-specialized, WARP_SPECIALIZE=True: tl.range(...,
warp_specialize=True); num_warps are the consumer warps, a producer
warpgroup comes on top), and "pointer" / "pointer-ws" (Triton's tutorial 03
kernel, python/test/pointer_matmul_kernels.py: pointer loads with K masked,
seed 000's kernel with a program-id mapping valid on every shape; with
WARP_SPECIALIZE=True warpforge's producer copies with cp.async; same one
config), and "seed000-ws" (seed 000's kernel as written: warpforge with
seed 000's own config, two consumer groups, Triton with its best plain one;
square grids of tiles only), and "tma-persistent-ws-pp" (the persistent
kernel under warpforge with ping_pong=True: two consumer groups of 4 warps,
each computing whole 128x128x64 tiles, every other tile, taking turns at the
tensor cores, num_buffers_warp_spec=4; against Triton's
"triton:tma-persistent-ws" at its own config, since Triton has no ping-pong
knob), providers "triton:<variant>" and "warpforge:<variant>". The TMA
kernels' source is the tutorial's own
(python/test/tutorial09_kernels.py), loaded under each JIT as the blocked
kernel's file is; they take B K-major (an N x K copy of B, made once per
case, outside the timing), as the tutorial does, and run one config under
both JITs: --config, or by default the tutorial's fp16 TMA config
128x256x64 g8 w8 s3 (without epilogue subtiling), launched as the
tutorial's wrappers launch them (descriptors made with a [1, 1] block that
its pre_hook sets to the config's). cuBLAS ("torch") is timed once per case
with all of them; ratios are reported per variant.

    python bench/matmul.py [--quick] [--dtypes fp16,bf16] [--shapes 4096x4096x4096,...]
                           [--backends torch,triton,warpforge] [--rounds N] [--results-dir DIR]
                           [--config 128x256x64g8w8s3]
                           [--variants blocked,tma,tma-persistent,tma-ws,tma-persistent-ws,
                                       tma-persistent-ws-pp,pointer,pointer-ws,seed000-ws]
    python bench/matmul.py --dry-run    # no GPU: compile every config, interpret

The JSON report goes to bench/results/matmul-<date>.json and a Markdown
summary beside it (.md), rewritten after every case (a run cut short keeps
what it measured; "finished" says whether it ended); the table is printed
last. A backend that fails (compile error, every config out of resources,
wrong result) gets an error entry and the run goes on; the exit status is
then 1.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import math
import os
import re
import statistics
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import common

KERNEL_FILE = os.path.join(common.BENCH_DIR, "kernels", "matmul.py")
# Tutorial 09's TMA kernels, as the tutorial writes them (imports aside).
TMA_KERNEL_FILE = os.path.join(common.REPO_DIR, "python", "test", "tutorial09_kernels.py")
BACKENDS = ("torch", "triton", "warpforge")  # torch: torch.matmul, i.e. cuBLAS
JITS = ("triton", "warpforge")
# "blocked": bench/kernels/matmul.py; the others: the tutorial's kernel of
# each name.
VARIANTS = ("blocked", "tma", "tma-persistent", "tma-ws", "tma-persistent-ws",
            "tma-persistent-ws-pp", "tma-persistent-ws-c2", "pointer", "pointer-ws", "seed000-ws", "fp8-scaled",
            "fp8-block-scaled", "small-m")
# "small-m": the blocked kernel autotuned by both JITs over the kernel
# file's SMALL_M_CONFIGS (16 to 64 rows: mma.sync below 64, wgmma at 64),
# on SMALL_M_SHAPES unless --shapes is given: decoding's M = 1 to 64
# against N = K = 4096 and 8192.
SMALL_M_SHAPES: List[Tuple[int, int, int]] = [
    (m, nk, nk) for nk in (4096, 8192) for m in (1, 16, 32, 64)]
# The fp8 GEMMs of bench/kernels/fp8_matmul.py (A M x K and B K-major, fp8,
# bf16 output, persistent, TMA): "fp8-scaled" with per-tensor scales against
# torch._scaled_mm (cuBLASLt), "fp8-block-scaled" with DeepSeek-V3's 1x128
# (A) and 128x128 (B) scales against torch._scaled_mm's blockwise scaling
# where this torch has it. Each runs on the fp8 dtypes listed here, in
# cases of its own (its inputs, scales and reference are its own).
FP8_KERNEL_FILE = os.path.join(common.BENCH_DIR, "kernels", "fp8_matmul.py")
FP8_DTYPES = ("e4m3", "e5m2")
FP8_VARIANTS = {"fp8-scaled": ("e4m3", "e5m2"), "fp8-block-scaled": ("e4m3",)}
TMA_KERNELS = {"tma": "matmul_kernel_tma", "tma-persistent": "matmul_kernel_tma_persistent",
               "tma-ws": "matmul_kernel_tma",
               "tma-persistent-ws": "matmul_kernel_tma_persistent",
               "tma-persistent-ws-pp": "matmul_kernel_tma_persistent",
               "tma-persistent-ws-c2": "matmul_kernel_tma_persistent"}
# Triton's tutorial 03 kernel (pointer loads, masked K, the loop under
# tl.range(..., warp_specialize=WARP_SPECIALIZE)): seed 000's kernel with a
# program-id mapping valid on every shape; warp-specialized, warpforge's
# producer copies its operands with cp.async.
POINTER_KERNEL_FILE = os.path.join(common.REPO_DIR, "python", "test",
                                   "pointer_matmul_kernels.py")
POINTER_VARIANTS = {"pointer", "pointer-ws", "seed000-ws"}
# Seed 000's kernel as written, with its own config under warpforge
# (num_warps=4, num_consumer_groups=2, num_buffers_warp_spec=3, 128x256x64,
# num_stages=2); Triton 3.6 has no warp specialization for it (it ignores
# the knobs), so it runs its best plain config, 8 warps and 3 stages.
# Its program-id mapping is valid only on square grids of whole tiles
# (M / 128 == N / 256): other shapes fail their check, reported as such.
SEED000_CONFIG = (128, 256, 64)
# Variants whose loop is warp-specialized (tl.range(..., warp_specialize=True)).
WARP_SPECIALIZED = {"tma-ws", "tma-persistent-ws", "tma-persistent-ws-pp",
                    "tma-persistent-ws-c2", "pointer-ws"}
PERSISTENT = {"tma-persistent", "tma-persistent-ws", "tma-persistent-ws-pp",
              "tma-persistent-ws-c2"}
# Ping-pong (warpforge only): the persistent kernel with two consumer groups
# of 4 warps, each computing whole tiles (every other tile of the program)
# and taking turns at the tensor cores, one group's epilogue (TMA store)
# under the other's products. A group holds a whole 128 x 128 fp32
# accumulator on 4 warps (128 x 256 would need 256 registers a thread), so
# the config is its own: 128x128x64, GROUP_SIZE_M 8, 4 warps a group, 3
# stages, and 4 slots (4 x 32 KiB of ring and two 32 KiB epilogue buffers:
# 194 KiB of the H100's 227). --config does not apply to it.
PING_PONG = {"tma-persistent-ws-pp"}
PING_PONG_CONFIG = (128, 128, 64, 8, 4, 3)
PING_PONG_OPTIONS = {"num_consumer_groups": 2, "num_buffers_warp_spec": 4, "ping_pong": True}
# The variant whose Triton provider a variant is compared with: Triton 3.6
# knows neither ping_pong nor num_consumer_groups, so the ping-pong variant
# is measured against Triton's warp-specialized persistent kernel at its
# own config ("triton:tma-persistent-ws", one provider for both variants).
TRITON_VARIANT = {"tma-persistent-ws-pp": "tma-persistent-ws",
                  "tma-persistent-ws-c2": "tma-persistent-ws"}
# Clusters (warpforge only): the warp-specialized persistent kernel with
# num_ctas=2, 256 x 256 program tiles of which each CTA of the pair computes
# 128 rows (the tutorial's 128 x 256 tile per CTA, 8 consumer warps), half
# the SMs' count of programs (each is two CTAs). Compared with Triton's
# tma-persistent-ws at its own config, as the ping-pong variant.
CLUSTER = {"tma-persistent-ws-c2"}
CLUSTER_CONFIG = (256, 256, 64, 8, 8, 3)
CLUSTER_CTAS = 2
WARPFORGE_ONLY = PING_PONG | CLUSTER
# The TMA variants' config without --config: tutorial 09's fp16 config for
# its TMA kernels (BLOCK 128 x 256 x 64, GROUP_SIZE_M 8, 8 warps, 3 stages).
TMA_DEFAULT_CONFIG = (128, 256, 64, 8, 8, 3)
DTYPES = ("fp16", "bf16")
ALL_DTYPES = DTYPES + FP8_DTYPES
SHAPES: List[Tuple[int, int, int]] = [
    (4096, 4096, 4096), (8192, 8192, 8192), (8192, 8192, 1024), (1024, 16384, 8192),
    (4096, 4096, 512), (16384, 1024, 16384)]
QUICK_SHAPES: List[Tuple[int, int, int]] = [(2048, 2048, 2048)]
# (max |out - ref| / max |ref|, rms(out - ref) / rms(ref)). The output is
# rounded once from fp32 (rms ~2e-4 of it in fp16, ~2e-3 in bf16); cuBLAS may
# also reduce split-K partial sums in the input type. A missing K block of
# 64 in K = 16384 still shows as 6% rms.
# fp8: the reference is computed from the very fp8 inputs (dequantized, in
# float64), so only the accumulation and the bf16 output's rounding (2^-9)
# count. The per-tensor-scaled kernels sum every product in wgmma's fp8
# accumulator, which keeps fewer bits than fp32 (Triton's default,
# max_num_imprecise_acc unbounded; cuBLASLt promotes to fp32 unless asked
# for fast accumulation): at K = 16384 both JITs' largest error is 1.4% of
# max |ref| (their outputs agree bit for bit), the rms still 0.35%.
TOLERANCE = {"fp16": (1e-2, 2e-3), "bf16": (1e-2, 1e-2), "e4m3": (2e-2, 5e-3),
             "e5m2": (2e-2, 5e-3)}
TIMER = ("warpforge.testing.do_bench_interleaved: the providers launch by launch in turns, "
         "L2 flushed before each; median")
# The stand-in shapes of the dry run, interpreted on the CPU: a partial
# block in every dimension, one row, and 11 tile rows of 64 (two groups).
DRY_RUN_SHAPES: List[Tuple[int, int, int]] = [(150, 130, 100), (1, 15, 64), (700, 200, 96)]
# The TMA variants' (rows of A, B^T and C in 16-byte multiples, as the
# TMA's strides must be): partial blocks in every dimension, one row, and
# 6 tile rows of 128 on 3 persistent programs.
DRY_RUN_TMA_SHAPES: List[Tuple[int, int, int]] = [(150, 136, 104), (1, 16, 64), (700, 200, 96)]
# The fp8 variants' (K a multiple of 16 bytes, N of 8 fp16 elements):
# partial tiles in M and N, a partial last scale block of K (208 = 128 +
# 80), one row, and 6 x 2 tiles on 3 persistent programs.
DRY_RUN_FP8_SHAPES: List[Tuple[int, int, int]] = [(150, 136, 208), (1, 16, 128),
                                                  (700, 272, 384)]


@dataclass(frozen=True)
class Case:
    dtype: str  # "fp16" or "bf16"; "e4m3" or "e5m2" for the fp8 variants
    m: int
    n: int
    k: int

    @property
    def shape(self) -> str:
        return f"{self.m}x{self.n}x{self.k}"

    @property
    def label(self) -> str:
        return f"{self.dtype} {self.shape}"

    @property
    def flop(self) -> int:
        return 2 * self.m * self.n * self.k


def cases(dtypes: Sequence[str], shapes: Sequence[Tuple[int, int, int]]) -> List[Case]:
    return [Case(d, *s) for d in dtypes for s in shapes]


def tflops(flop: int, ms: Optional[float]) -> Optional[float]:
    if ms is None or ms <= 0:
        return None
    return flop / (ms * 1e-3) / 1e12


def parse_shape(text: str) -> Tuple[int, int, int]:
    """'8192x8192x1024' -> (8192, 8192, 1024): M, N, K, each positive."""
    parts = text.strip().lower().split("x")
    try:
        dims = tuple(int(p) for p in parts)
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"a shape is MxNxK with three positive integers, "
                                         f"e.g. 4096x4096x512; got {text.strip()!r}")
    return dims  # type: ignore[return-value]


def parse_shapes(text: str) -> List[Tuple[int, int, int]]:
    """'4096x4096x4096,8192x8192x1024' -> a list of (M, N, K), duplicates dropped."""
    items = [t for t in text.split(",") if t.strip()]
    if not items:
        raise argparse.ArgumentTypeError(f"expected a comma-separated list of MxNxK shapes; "
                                         f"got {text!r}")
    return list(dict.fromkeys(parse_shape(t) for t in items))


def parse_config(text: str) -> Tuple[int, int, int, int, int, int]:
    """'128x256x64g8w8s3' (or '128x256x64 g8 w8 s3', as the table writes it)
    -> (block_m, block_n, block_k, group_m, num_warps, num_stages)."""
    m = re.fullmatch(r"\s*(\d+)x(\d+)x(\d+)\s*g(\d+)\s*w(\d+)\s*s(\d+)\s*", text.lower())
    if not m or min(int(v) for v in m.groups()) < 1:
        raise argparse.ArgumentTypeError(
            f"a config is BMxBNxBK gG wW sS with positive integers, e.g. 128x256x64g8w8s3; "
            f"got {text.strip()!r}")
    return tuple(int(v) for v in m.groups())  # type: ignore[return-value]


# -- Inputs, reference, checks -------------------------------------------------------


def make_inputs(case: Case, arrays):
    """A (M x K) and B (K x N), random normal scaled by K^-1/4 each, so that
    the products are about unit normal at every K (no fp16 overflow)."""
    scale = case.k ** -0.25
    return (arrays.randn((case.m, case.k), case.dtype, scale=scale),
            arrays.randn((case.k, case.n), case.dtype, scale=scale))


def torch_reference(torch, a, b):
    """A @ B in float64 on the GPU from the very inputs, kept as float32."""
    return torch.matmul(a.to(torch.float64), b.to(torch.float64)).to(torch.float32)


def numpy_reference(a, b):
    import numpy as np
    return np.matmul(a.astype(np.float64), b.astype(np.float64))


def error_metrics(torch, out, ref) -> Dict[str, float]:
    """max |out - ref| / max |ref| and rms(out - ref) / rms(ref), on the
    device (NumPy when `torch` is None); NaN anywhere in `out` gives NaN."""
    if torch is None:
        import numpy as np
        diff = out.astype(np.float64) - ref
        nan = bool(np.isnan(out).any())
        max_diff, max_ref = float(np.abs(diff).max()), float(np.abs(ref).max())
        sq_diff, sq_ref = float((diff * diff).mean()), float((ref * ref).astype(np.float64).mean())
    else:
        diff = out.float() - ref
        nan = bool(torch.isnan(out).any().item())
        max_diff, max_ref = float(diff.abs().max().item()), float(ref.abs().max().item())
        sq_diff, sq_ref = float((diff * diff).mean().item()), float((ref * ref).mean().item())
    if nan:
        return {"max_rel_err": math.nan, "rms_rel_err": math.nan}
    return {"max_rel_err": max_diff / max_ref, "rms_rel_err": math.sqrt(sq_diff / sq_ref)}


def check_metrics(what: str, dtype: str, metrics: Dict[str, float], out=None) -> None:
    """Raises common.Mismatch unless both errors are under the dtype's tolerance."""
    max_tol, rms_tol = TOLERANCE[dtype]
    max_err, rms_err = metrics["max_rel_err"], metrics["rms_rel_err"]
    if math.isnan(max_err) or math.isnan(rms_err):
        count = ""
        if out is not None:
            count = f" ({int(_count_nan(out))} of {_numel(out)} elements)"
        raise common.Mismatch(f"{what}: the output holds NaN{count}: elements left unwritten "
                              "(the output was poisoned with NaN) or computed as NaN")
    if not (max_err <= max_tol and rms_err <= rms_tol):
        raise common.Mismatch(f"{what}: max |out - ref| / max |ref| = {max_err:.3g} "
                              f"(tolerance {max_tol:g}), rms(out - ref) / rms(ref) = "
                              f"{rms_err:.3g} (tolerance {rms_tol:g})")


def _count_nan(out):
    isnan = getattr(out, "isnan", None)
    if callable(isnan):
        return isnan().sum().item()
    import numpy as np
    return np.isnan(out).sum()


def _numel(out) -> int:
    return math.prod(out.shape)


# -- Autotuner results ---------------------------------------------------------------


def config_entry(kernels, config) -> Dict[str, Any]:
    """A JIT's Config as JSON: the short name and every field."""
    return {"name": kernels.describe(config), "kwargs": dict(config.kwargs),
            "num_warps": config.num_warps, "num_stages": config.num_stages}


def tuning_entries(kernels, tuner) -> List[Dict[str, Any]]:
    """The autotuner's last timings (warpforge: ms; Triton: [median, p20,
    p80]), None for a skipped config, fastest first."""
    timings = getattr(tuner, "configs_timings", None) or {}
    rows = []
    for config, t in timings.items():
        if isinstance(t, (list, tuple)):
            t = t[0] if t else None
        ms = float(t) if t is not None and math.isfinite(float(t)) else None
        rows.append({"config": kernels.describe(config), "ms": ms})
    return sorted(rows, key=lambda r: (r["ms"] is None, r["ms"] or 0.0))


# -- GPU run --------------------------------------------------------------------------


def run_jit(entry: Dict[str, Any], torch, case: Case, kernels, a, b, ref, arrays,
            args, small_m: bool = False):
    """Autotunes a JIT's kernel on this case (with --config: takes that
    config) and checks the chosen config's output (poisoned first); returns
    that config's launch, to be timed.
    Fills `entry` as it goes, so that on an error it still says how far it
    got."""
    c, guard = arrays.poisoned((case.m, case.n), case.dtype)
    if args.config is not None:
        best = kernels.MatmulConfig(*args.config)
        entry["config"] = {"name": kernels.describe(best), "fixed": True}
        return check_and_time(entry, torch, case, kernels, best, a, b, c, guard, ref)
    tuned = kernels.matmul_call(a, b, c, small_m=small_m)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    common.launch(tuned)
    torch.cuda.synchronize()
    entry["autotune_s"] = round(time.perf_counter() - t0, 3)
    tuner = tuned[0]
    best = tuner.best_config
    entry["config"] = config_entry(kernels, best)
    entry["autotune"] = tuning_entries(kernels, tuner)
    return check_and_time(entry, torch, case, kernels, best, a, b, c, guard, ref)


def check_and_time(entry: Dict[str, Any], torch, case: Case, kernels, best, a, b, c,
                   guard, ref):
    """Launches config `best` alone, as the JIT launches it, on the
    poisoned output `c`: checks it and returns the launch, to be timed."""
    c.fill_(float("nan"))
    call = kernels.matmul_call(a, b, c, best)
    return checked_launcher(entry, torch, case, call,
                            f"{kernels.BACKEND} {case.label} ({kernels.describe(best)})",
                            c, guard, ref)


def checked_launcher(entry: Dict[str, Any], torch, case: Case, call, what: str, c, guard,
                     ref):
    """Launches `call` once on the poisoned output `c`, records its errors
    against `ref` in `entry`, checks them and the guard, and returns the
    launch, to be timed."""
    common.launch(call)
    torch.cuda.synchronize()
    entry.update(error_metrics(torch, c, ref))
    check_metrics(what, case.dtype, entry, c)
    common.check_guard(what, guard)
    return common.launcher(call)


# -- Tutorial 09's TMA kernels ---------------------------------------------------------


def tma_config(args) -> Tuple[int, int, int, int, int, int]:
    """The one config of the TMA variants: --config, else the tutorial's."""
    return tuple(args.config) if args.config is not None else TMA_DEFAULT_CONFIG


def describe_config(config: Sequence[int]) -> str:
    """(128, 256, 64, 8, 8, 3) -> '128x256x64 g8 w8 s3', as the table writes configs."""
    return "x".join(map(str, config[:3])) + " g{} w{} s{}".format(*config[3:])


def variant_config(args, variant: str) -> Tuple[int, int, int, int, int, int]:
    """The one config a TMA or pointer variant runs under warpforge: the
    ping-pong variant's own (PING_PONG_CONFIG), else tma_config(args)."""
    if variant in CLUSTER:
        return CLUSTER_CONFIG
    return PING_PONG_CONFIG if variant in PING_PONG else tma_config(args)


def variant_config_name(variant: str, config: Sequence[int]) -> str:
    """The config's name in the report: the ping-pong variant's says so
    ('128x128x64 g8 w4 s3 pp b4': 4 warps a group, two groups, 4 slots)."""
    name = describe_config(config)
    if variant in PING_PONG:
        name += f" pp b{PING_PONG_OPTIONS['num_buffers_warp_spec']}"
    if variant in CLUSTER:
        name += f" c{CLUSTER_CTAS}"
    return name


def tma_call(module, variant: str, a, b_t, c, config, num_sms: int):
    """(kernel, grid, args, meta) for one launch of the tutorial's kernel
    `variant` under the JIT `module` was loaded for, as the tutorial's
    wrappers (matmul_tma, matmul_tma_persistent) launch it, with `config`
    (block_m, block_n, block_k, group_m, num_warps, num_stages) instead of
    its autotuner: descriptors made with a [1, 1] block, which its pre_hook
    sets to the config's blocks; warp specialization in the -ws variants
    (WARP_SPECIALIZE=True), ping-pong consumer groups in the -pp one
    (PING_PONG_OPTIONS, warpforge only), no epilogue subtiling. A is M x K,
    B K-major (N x K), C M x N."""
    block_m, block_n, block_k, group_m, num_warps, num_stages = config
    if variant in WARPFORGE_ONLY and module.BACKEND != "warpforge":
        raise ValueError(f"{variant} runs under warpforge only; Triton's "
                         f"provider is {TRITON_VARIANT[variant]}'s")
    M, K = a.shape
    N = b_t.shape[0]
    if b_t.shape[1] != K or tuple(c.shape) != (M, N):
        raise ValueError(f"TMA matmul shapes do not match: A {tuple(a.shape)}, B^T "
                         f"{tuple(b_t.shape)}, C {tuple(c.shape)}")
    dummy_block = [1, 1]
    a_desc, b_desc, c_desc = (module.TensorDescriptor.from_tensor(x, dummy_block)
                              for x in (a, b_t, c))
    meta = {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": block_n, "BLOCK_SIZE_K": block_k,
            "GROUP_SIZE_M": group_m, "FP8_OUTPUT": False,
            "WARP_SPECIALIZE": variant in WARP_SPECIALIZED}
    tiles = _cdiv(M, block_m) * _cdiv(N, block_n)
    if variant in PERSISTENT:
        # A program of the cluster variant is a pair of CTAs.
        programs = num_sms // CLUSTER_CTAS if variant in CLUSTER else num_sms
        meta.update(EPILOGUE_SUBTILE=False, NUM_SMS=programs)
        grid: Tuple[int, ...] = (min(programs, tiles),)
    else:
        grid = (tiles,)
    module.matmul_tma_set_block_size_hook({"a_desc": a_desc, "b_desc": b_desc,
                                           "c_desc": c_desc, **meta})
    kernel = getattr(module, TMA_KERNELS[variant]).fn  # the @jit beneath the autotuner
    meta.update(num_warps=num_warps, num_stages=num_stages)
    if variant in PING_PONG:
        meta.update(PING_PONG_OPTIONS)
    if variant in CLUSTER:
        meta.update(num_ctas=CLUSTER_CTAS)
    return kernel, grid, (a_desc, b_desc, c_desc, M, N, K), meta


def _cdiv(x: int, y: int) -> int:
    return (x + y - 1) // y


def run_tma(entry: Dict[str, Any], torch, case: Case, module, variant: str, a, b_t, ref,
            arrays, args):
    """Launches the TMA variant once on a poisoned output, checks it, and
    returns the launch, to be timed."""
    c, guard = arrays.poisoned((case.m, case.n), case.dtype)
    config = variant_config(args, variant)
    name = variant_config_name(variant, config)
    entry["config"] = {"name": name, "fixed": True}
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    call = tma_call(module, variant, a, b_t, c, config, num_sms)
    entry["grid"] = list(call[1])
    what = f"{provider_name(module.BACKEND, variant)} {case.label} ({name})"
    return checked_launcher(entry, torch, case, call, what, c, guard, ref)


def pointer_call(module, variant: str, a, b, c, config):
    """(kernel, grid, args, meta) of the pointer kernel on A (M x K), B
    (K x N), C (M x N) with `config`, one program per tile."""
    block_m, block_n, block_k, group_m, num_warps, num_stages = config
    M, K = a.shape
    N = b.shape[1]
    tiles = _cdiv(M, block_m) * _cdiv(N, block_n)
    meta = {"BLOCK_SIZE_M": block_m, "BLOCK_SIZE_N": block_n, "BLOCK_SIZE_K": block_k,
            "GROUP_SIZE_M": group_m, "WARP_SPECIALIZE": variant in WARP_SPECIALIZED,
            "num_warps": num_warps, "num_stages": num_stages}
    return (module.masked_matmul, (tiles,),
            (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
             c.stride(0), c.stride(1)), meta)


def seed000_call(module, jit: str, a, b, c):
    """(kernel, grid, args, meta) of seed 000's kernel; see SEED000_CONFIG."""
    block_m, block_n, block_k = SEED000_CONFIG
    M, K = a.shape
    N = b.shape[1]
    if _cdiv(M, block_m) != _cdiv(N, block_n) or M % block_m or N % block_n or K % block_k:
        raise ValueError(f"seed 000's kernel needs a square grid of whole tiles "
                         f"(M / {block_m} == N / {block_n}, K a multiple of {block_k}); "
                         f"{M}x{N}x{K} is not one")
    meta: Dict[str, Any] = {"BLOCK_M": block_m, "BLOCK_N": block_n, "BLOCK_K": block_k}
    if jit == "warpforge":
        meta.update(num_warps=4, num_stages=2, num_consumer_groups=2, num_buffers_warp_spec=3)
    else:
        meta.update(num_warps=8, num_stages=3)
    tiles = _cdiv(M, block_m) * _cdiv(N, block_n)
    return (module.seed000_matmul, (tiles,),
            (a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
             c.stride(0), c.stride(1)), meta)


def run_pointer(entry: Dict[str, Any], torch, case: Case, module, variant: str, a, b, ref,
                arrays, args):
    """The pointer kernel (A M x K, B K x N, both row-major) with the TMA
    variants' one config, one program per tile; checked, then timed."""
    c, guard = arrays.poisoned((case.m, case.n), case.dtype)
    config = tma_config(args)
    entry["config"] = {"name": describe_config(config), "fixed": True}
    call = pointer_call(module, variant, a, b, c, config)
    entry["grid"] = list(call[1])
    what = f"{provider_name(module.BACKEND, variant)} {case.label} ({describe_config(config)})"
    return checked_launcher(entry, torch, case, call, what, c, guard, ref)


def run_seed000(entry: Dict[str, Any], torch, case: Case, module, a, b, ref, arrays):
    """Seed 000's kernel with each JIT's config (SEED000_CONFIG); checked,
    then timed."""
    c, guard = arrays.poisoned((case.m, case.n), case.dtype)
    call = seed000_call(module, module.BACKEND, a, b, c)
    meta = call[3]
    name = describe_config(SEED000_CONFIG + (0, meta["num_warps"], meta["num_stages"]))
    if "num_consumer_groups" in meta:
        name += " g2ws b3"
    entry["config"] = {"name": name, "fixed": True}
    entry["grid"] = list(call[1])
    what = f"{provider_name(module.BACKEND, 'seed000-ws')} {case.label} ({name})"
    return checked_launcher(entry, torch, case, call, what, c, guard, ref)


def run_torch(entry: Dict[str, Any], torch, case: Case, a, b, ref, args):
    """torch.matmul (cuBLAS): checked; returns the call to time."""
    out = torch.matmul(a, b)
    torch.cuda.synchronize()
    entry.update(error_metrics(torch, out, ref))
    check_metrics(f"torch.matmul {case.label}", case.dtype, entry, out)
    del out
    return lambda: torch.matmul(a, b)


class _TimingFailure(Exception):
    """A provider's launch raised while the providers were timed together."""

    def __init__(self, name: str, error: Exception):
        super().__init__(f"{name}: {error}")
        self.name, self.error = name, error


def _guarded(name: str, fn):
    def run():
        try:
            return fn()
        except Exception as e:
            raise _TimingFailure(name, e) from e
    return run


def time_rounds(timers: Dict[str, Any], entries: Dict[str, Dict[str, Any]], args,
                failures: List[str]) -> Dict[str, List[float]]:
    """Times every checked provider in `args.rounds` rounds. Each round is
    one warpforge.testing.do_bench_interleaved over all of them: launch by
    launch in turns, each after an L2 flush, so that they meet the card in
    the same state. A provider's time is its median round (the median of
    its launches in each round, kept to show the spread). Returns, for each
    pair that ran (as in `ratios`), the ratio of the two launches of every
    iteration: paired samples of the throughput ratio."""
    rounds: Dict[str, List[float]] = {n: [] for n in timers}
    paired: Dict[str, List[float]] = {}
    r = 0
    while r < args.rounds and timers:
        try:
            times = common.bench_interleaved(
                {n: _guarded(n, fn) for n, fn in timers.items()}, args.warmup, args.rep)
        except _TimingFailure as e:
            entries[e.name].update(common.record_failure(failures, f"{e.name} timing",
                                                         e.error))
            del timers[e.name]
            continue  # the round again, without it
        for name, ms in times.items():
            rounds[name].append(float(statistics.median(ms)))
        for x, y, pair in RATIO_PAIRS:
            if x in times and y in times:
                paired.setdefault(pair, []).extend(ty / tx for tx, ty in zip(times[x], times[y]))
        r += 1
    for name in timers:
        entries[name]["ms_rounds"] = list(rounds[name])
        entries[name]["ms"] = float(statistics.median(rounds[name]))
    return {pair: v for pair, v in paired.items()
            if all(n in timers for n in pair_providers(pair))}



def time_and_summarize(result, timers, args, failures, case):
    """Times the case's providers in turns (time_rounds) and records their
    TFLOP/s, the ratios of their medians and the per-launch ratios."""
    paired = time_rounds(timers, result["providers"], args, failures)
    for entry in result["providers"].values():
        if "ms" in entry:
            entry["tflops"] = tflops(case.flop, entry["ms"])
    result["ratios"] = ratios(result["providers"])
    result["paired_ratios"] = {pair: paired_summary(v) for pair, v in paired.items() if v}

def provider_name(jit: str, variant: str) -> str:
    """"warpforge" for the blocked kernel, "warpforge:tma" for a TMA variant;
    Triton's provider of the ping-pong variant is its tma-persistent-ws
    ("triton:tma-persistent-ws", TRITON_VARIANT)."""
    if jit == "triton":
        variant = TRITON_VARIANT.get(variant, variant)
    return jit if variant == "blocked" else f"{jit}:{variant}"


def split_provider(name: str) -> Tuple[str, str]:
    """"warpforge:tma" -> ("warpforge", "tma"); "triton" -> ("triton", "blocked")."""
    jit, _, variant = name.partition(":")
    return jit, variant or "blocked"


def variant_applies(variant: str, dtype: str) -> bool:
    """Whether `variant` runs on `dtype`: the fp8 variants on their fp8
    dtypes, the others on fp16 and bf16."""
    if variant in FP8_VARIANTS:
        return dtype in FP8_VARIANTS[variant]
    return dtype in DTYPES


def default_dtypes(variants: Sequence[str]) -> List[str]:
    """fp16 and bf16 for the 16-bit variants, and each fp8 variant's dtypes."""
    return [d for d in ALL_DTYPES if any(variant_applies(v, d) for v in variants)]


def provider_names(args, dtype: Optional[str] = None,
                   variants: Optional[Sequence[str]] = None) -> List[str]:
    """The providers of a run, in order: torch, then each variant's JITs;
    with `dtype`, of the variants that run on it; with `variants`, of those."""
    names = ["torch"] if "torch" in args.backends else []
    for variant in (args.variants if variants is None else variants):
        if dtype is None or variant_applies(variant, dtype):
            names += [provider_name(j, variant) for j in JITS if j in args.backends]
    return list(dict.fromkeys(names))  # one Triton provider for -ws and -ws-pp


# (faster-is-above-1 provider, other provider, name) of each reported ratio:
# per variant, warpforge against Triton and each against cuBLAS (a Triton
# provider two variants share once).
RATIO_PAIRS = tuple(dict.fromkeys(
    pair for v in VARIANTS for pair in (
        (provider_name("warpforge", v), provider_name("triton", v),
         f"{provider_name('warpforge', v)}/{provider_name('triton', v)}"),
        (provider_name("warpforge", v), "torch", f"{provider_name('warpforge', v)}/cublas"),
        (provider_name("triton", v), "torch", f"{provider_name('triton', v)}/cublas"))))


def pair_providers(pair: str) -> Tuple[str, str]:
    """The two providers of a ratio's name."""
    return next((x, y) for x, y, name in RATIO_PAIRS if name == pair)


def ratios(providers: Dict[str, Dict[str, Any]]) -> Dict[str, float]:
    """Throughput ratios of each pair that ran: > 1 means the first is faster."""
    out = {}
    for x, y, name in RATIO_PAIRS:
        mx, my = providers.get(x, {}).get("ms"), providers.get(y, {}).get("ms")
        if mx and my and "error" not in providers[x] and "error" not in providers[y]:
            out[name] = my / mx
    return out


def paired_summary(samples: Sequence[float]) -> Dict[str, Any]:
    """Median and quartiles of a ratio's paired samples."""
    from warpforge.testing import quantile
    ordered = sorted(samples)
    return {"median": quantile(ordered, 0.5), "q25": quantile(ordered, 0.25),
            "q75": quantile(ordered, 0.75), "samples": len(ordered)}


def tutorial_module_key(jit: str) -> str:
    """Where gpu_run keeps tutorial09_kernels.py as loaded under `jit`."""
    return f"{jit}:tutorial09"


def run_case(torch, case: Case, kernels: Dict[str, Any], args,
             failures: List[str]) -> Dict[str, Any]:
    arrays = common.TorchArrays(torch, seed=zlib.crc32(case.label.encode()))
    a, b = make_inputs(case, arrays)
    ref = torch_reference(torch, a, b)
    b_t = None  # B K-major (N x K), for the TMA variants
    torch.cuda.synchronize()
    result: Dict[str, Any] = {"dtype": case.dtype, "M": case.m, "N": case.n, "K": case.k,
                              "flop": case.flop, "providers": {}}
    timers: Dict[str, Any] = {}
    for name in provider_names(args, case.dtype,
                               [v for v in args.variants if v not in FP8_VARIANTS]):
        entry: Dict[str, Any] = {}
        try:
            jit, variant = split_provider(name)
            if name == "torch":
                timers[name] = run_torch(entry, torch, case, a, b, ref, args)
            elif variant in POINTER_VARIANTS:
                module = kernels[f"{jit}:pointer"]
                if isinstance(module, Exception):
                    raise module
                timers[name] = (run_seed000(entry, torch, case, module, a, b, ref, arrays)
                                if variant == "seed000-ws" else
                                run_pointer(entry, torch, case, module, variant, a, b, ref,
                                            arrays, args))
            elif variant in ("blocked", "small-m"):
                if isinstance(kernels[jit], Exception):
                    raise kernels[jit]
                timers[name] = run_jit(entry, torch, case, kernels[jit], a, b, ref,
                                       arrays, args, small_m=variant == "small-m")
            else:
                module = kernels[tutorial_module_key(jit)]
                if isinstance(module, Exception):
                    raise module
                if b_t is None:
                    b_t = b.T.contiguous()
                    torch.cuda.synchronize()
                timers[name] = run_tma(entry, torch, case, module, variant, a, b_t, ref,
                                       arrays, args)
        except Exception as e:
            entry.update(common.record_failure(failures, f"{name} {case.label}", e))
        result["providers"][name] = entry
    time_and_summarize(result, timers, args, failures, case)
    del a, b, b_t, ref
    torch.cuda.empty_cache()
    return result


# -- The fp8 variants (bench/kernels/fp8_matmul.py) ------------------------------------


# (block_m, block_n, block_k, group_m, num_warps, num_stages) of each fp8
# variant: the kernel file's SCALED_CONFIG and BLOCK_SCALED_CONFIG (checked
# equal by the tests), so that the report can name them without loading it.
FP8_CONFIGS = {"fp8-scaled": (128, 256, 128, 8, 8, 3),
               "fp8-block-scaled": (128, 128, 128, 8, 8, 3)}
FP8_SCALE_BLOCK = 128


def fp8_config_name(variant: str) -> str:
    return describe_config(FP8_CONFIGS[variant])


def fp8_call(module, variant: str, a, b_t, c, a_scale, b_scale, num_sms: int):
    """(kernel, grid, args, meta) of the fp8 variant's kernel under the JIT
    `module` was loaded for, with the variant's config."""
    config = module.Fp8Config(*FP8_CONFIGS[variant])
    make = module.scaled_call if variant == "fp8-scaled" else module.block_scaled_call
    return make(a, b_t, c, a_scale, b_scale, config, num_sms=num_sms)


def fp8_torch_dtype(torch, dtype: str):
    return {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}[dtype]


def make_fp8_inputs(torch, case: Case, variant: str, generator):
    """A (M x K) and B^T (N x K): unit normals rounded to the fp8 type; the
    scales: per-tensor (1-element fp32 tensors) of about K^-1/4 each, or
    A's 1 x 128 (M x cdiv(K, 128)) and B's 128 x 128 (cdiv(N, 128) x
    cdiv(K, 128)) blocks' uniform in [0.5, 1.5) K^-1/4, so that the
    products are about unit normal."""
    fp8 = fp8_torch_dtype(torch, case.dtype)
    a = torch.randn((case.m, case.k), generator=generator, device="cuda").to(fp8)
    b_t = torch.randn((case.n, case.k), generator=generator, device="cuda").to(fp8)
    unit = case.k ** -0.25
    if variant == "fp8-scaled":
        a_scale = torch.full((1,), 0.75 * unit, dtype=torch.float32, device="cuda")
        b_scale = torch.full((1,), 1.25 * unit, dtype=torch.float32, device="cuda")
    else:
        kb = _cdiv(case.k, FP8_SCALE_BLOCK)
        a_scale = (torch.rand((case.m, kb), generator=generator, device="cuda") + 0.5) * unit
        b_scale = (torch.rand((_cdiv(case.n, FP8_SCALE_BLOCK), kb), generator=generator,
                              device="cuda") + 0.5) * unit
    return a, b_t, a_scale, b_scale


def fp8_reference(xp, variant: str, a, b_t, a_scale, b_scale, k: int):
    """The product from the dequantized inputs in float64 (`xp`: torch, with
    float64 tensors, or NumPy with float64 arrays): A and B^T times their
    scales (per tensor, or repeated over their blocks), then A @ B."""
    if variant == "fp8-scaled":
        return (a @ b_t.T) * (a_scale[0] * b_scale[0])
    n = b_t.shape[0]
    if xp.__name__ == "numpy":
        rep = lambda x, r, axis: xp.repeat(x, r, axis=axis)  # noqa: E731
    else:
        rep = lambda x, r, axis: x.repeat_interleave(r, dim=axis)  # noqa: E731
    a_full = rep(a_scale, FP8_SCALE_BLOCK, 1)[:, :k]
    b_full = rep(rep(b_scale, FP8_SCALE_BLOCK, 0), FP8_SCALE_BLOCK, 1)[:n, :k]
    return (a * a_full) @ (b_t * b_full).T


def torch_scaled_mm(torch, variant: str, a, b_t, a_scale, b_scale):
    """torch._scaled_mm (cuBLASLt) on the fp8 variant's inputs, bf16 out; B
    goes in as the transpose of the N x K tensor (column-major, as cuBLASLt
    wants it). Per-tensor: the 1-element fp32 scales. Blockwise (torch with
    cuBLAS 12.9 or later): A's scales outer-dim-major (M x K/128, stride
    (1, M)), B's as their transpose (K/128 x N/128). Raises if this torch
    cannot."""
    if variant == "fp8-scaled":
        scale_a, scale_b = a_scale.reshape(()), b_scale.reshape(())
    else:
        scale_a, scale_b = a_scale.t().contiguous().t(), b_scale.t()
    out = torch._scaled_mm(a, b_t.t(), scale_a=scale_a, scale_b=scale_b,
                           out_dtype=torch.bfloat16)
    return out[0] if isinstance(out, tuple) else out  # torch < 2.5: (out, amax)


def run_fp8_case(torch, case: Case, variant: str, kernels: Dict[str, Any], args,
                 failures: List[str]) -> Dict[str, Any]:
    """One fp8 case of one variant: torch._scaled_mm, then each JIT's kernel
    on a poisoned bf16 output, each checked against the float64 reference;
    then timed together. torch without the call (e.g. no blockwise scaling,
    or two e5m2 operands) is 'unsupported', not a failure."""
    generator = torch.Generator(device="cuda").manual_seed(
        zlib.crc32(f"{case.label} {variant}".encode()))
    a, b_t, a_scale, b_scale = make_fp8_inputs(torch, case, variant, generator)
    ref = fp8_reference(torch, variant, a.to(torch.float64), b_t.to(torch.float64),
                        a_scale.to(torch.float64), b_scale.to(torch.float64),
                        case.k).to(torch.float32)
    torch.cuda.synchronize()
    arrays = common.TorchArrays(torch)
    num_sms = torch.cuda.get_device_properties(0).multi_processor_count
    result: Dict[str, Any] = {"dtype": case.dtype, "M": case.m, "N": case.n, "K": case.k,
                              "variant": variant, "flop": case.flop, "providers": {}}
    timers: Dict[str, Any] = {}
    for name in provider_names(args, case.dtype, [variant]):
        entry: Dict[str, Any] = {}
        what = f"{name} {case.label} {variant}"
        try:
            if name == "torch":
                try:
                    out = torch_scaled_mm(torch, variant, a, b_t, a_scale, b_scale)
                    torch.cuda.synchronize()
                except (RuntimeError, NotImplementedError, TypeError, AttributeError,
                        ValueError) as e:  # torch 2.11: two e5m2 operands are a ValueError
                    entry["unsupported"] = common.error_text(e)
                    print(f"{what}: torch._scaled_mm cannot: {entry['unsupported'][:200]}",
                          flush=True)
                    result["providers"][name] = entry
                    continue
                entry["call"] = "torch._scaled_mm"
                entry.update(error_metrics(torch, out, ref))
                check_metrics(what, case.dtype, entry, out)
                del out
                timers[name] = (lambda: torch_scaled_mm(torch, variant, a, b_t, a_scale,
                                                        b_scale))
            else:
                module = kernels[f"{split_provider(name)[0]}:fp8"]
                if isinstance(module, Exception):
                    raise module
                c, guard = arrays.poisoned((case.m, case.n), "bf16")
                call = fp8_call(module, variant, a, b_t, c, a_scale, b_scale, num_sms)
                entry["config"] = {"name": fp8_config_name(variant), "fixed": True}
                entry["grid"] = list(call[1])
                timers[name] = checked_launcher(entry, torch, case, call, what, c, guard, ref)
        except Exception as e:
            entry.update(common.record_failure(failures, what, e))
        result["providers"][name] = entry
    time_and_summarize(result, timers, args, failures, case)
    del a, b_t, a_scale, b_scale, ref
    torch.cuda.empty_cache()
    return result


def gpu_run(args, failures: List[str], checkpoint=None) -> Dict[str, Any]:
    """Every case on the GPU; `checkpoint(report)` after each."""
    import torch
    if not torch.cuda.is_available():
        raise SystemExit("matmul.py: torch sees no CUDA GPU; on a machine without one, run "
                         "with --dry-run")
    kernels: Dict[str, Any] = {}
    for jit in [b for b in args.backends if b in JITS]:
        for key, path, wanted in [
                (jit, KERNEL_FILE, "blocked" in args.variants or "small-m" in args.variants),
                (tutorial_module_key(jit), TMA_KERNEL_FILE,
                 any(v in TMA_KERNELS for v in args.variants)),
                (f"{jit}:pointer", POINTER_KERNEL_FILE,
                 any(v in POINTER_VARIANTS for v in args.variants)),
                (f"{jit}:fp8", FP8_KERNEL_FILE,
                 any(v in FP8_VARIANTS for v in args.variants))]:
            if not wanted:
                continue
            try:
                kernels[key] = common.load_kernels(path, jit)
            except Exception as e:  # each case reports it
                kernels[key] = e
    report: Dict[str, Any] = {"environment": common.environment(torch, sys.modules.get("triton"))}
    results = []
    for case in cases(args.dtypes, args.shapes):
        if case.dtype in FP8_DTYPES:
            runs = [(v, lambda v=v: run_fp8_case(torch, case, v, kernels, args, failures))
                    for v in args.variants if variant_applies(v, case.dtype)]
        elif any(variant_applies(v, case.dtype) for v in args.variants):
            runs = [("", lambda: run_case(torch, case, kernels, args, failures))]
        else:
            runs = []
        for variant, run in runs:
            results.append(run())
            print(f"{case.label}{' ' + variant if variant else ''}: "
                  + ", ".join(_progress_text(p, v) for p, v in
                              results[-1]["providers"].items()), flush=True)
            report["results"] = results
            if checkpoint is not None:
                checkpoint(report)
    report["results"] = results
    return report


def _progress_text(provider: str, v: Dict[str, Any]) -> str:
    if "error" in v:
        return f"{provider} FAILED"
    config = f" ({v['config']['name']})" if "config" in v else ""
    return f"{provider} {common.fmt(v.get('tflops'), '.0f')} TFLOP/s{config}"


# -- Dry run: no GPU ----------------------------------------------------------------


class StandIn:
    """What the JITs read of a torch tensor to specialize a kernel, without
    memory: dtype, shape, strides and a 16-byte aligned address."""

    def __init__(self, dtype: str, shape: Tuple[int, int]):
        self.dtype = "torch." + {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32",
                                 "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2"}[dtype]
        self.shape = tuple(shape)
        self._strides = (shape[1], 1)

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]

    def data_ptr(self) -> int:
        return 1 << 20


def dry_run(args, failures: List[str]) -> Dict[str, Any]:
    """Compiles every config for each dtype (warpforge through its pipeline;
    Triton, when installed, to a cubin for sm_90a) on stand-ins of the
    first shape's specialization; a config over the shared-memory limit is
    reported as skipped, as the autotuner would skip it. Then the autotuned
    kernel and each config run in warpforge's interpreter on small fp16
    shapes (NumPy has no bf16), checked against NumPy in float64.
    The TMA variants: their one config compiled by warpforge (Triton's
    compile here takes pointer arguments only), then interpreted on
    DRY_RUN_TMA_SHAPES. The fp8 variants: compiled by warpforge to a cubin
    for each of their fp8 dtypes (wgmma on those operands in the PTX, no
    spills), then interpreted on DRY_RUN_FP8_SHAPES with small integers
    (exact in e4m3 and e5m2) rounded to fp8 by warpforge's own conversion
    (NumPy has no fp8) and an fp16 output."""
    tma_variants = [v for v in args.variants if v in TMA_KERNELS]
    compiled: List[Dict[str, Any]] = []
    interpreted: List[Dict[str, Any]] = []
    if "blocked" in args.variants:
        _dry_run_blocked(args, failures, compiled, interpreted)
    if tma_variants:
        _dry_run_tma(args, tma_variants, failures, compiled, interpreted)
    pointer_variants = [v for v in args.variants if v in POINTER_VARIANTS
                        and v != "seed000-ws"]
    if pointer_variants:
        _dry_run_pointer(args, pointer_variants, failures, compiled)
    fp8_variants = [v for v in args.variants if v in FP8_VARIANTS]
    if fp8_variants:
        _dry_run_fp8(args, fp8_variants, failures, compiled, interpreted)
    m, n, k = args.shapes[0]
    return {"compile": {"shape": f"{m}x{n}x{k}", "results": compiled},
            "interpreter": interpreted}


class _Interpreting:
    """WARPFORGE_INTERPRET=1 inside, as it was after."""

    def __enter__(self):
        self.saved = os.environ.get("WARPFORGE_INTERPRET")
        os.environ["WARPFORGE_INTERPRET"] = "1"

    def __exit__(self, *exc):
        if self.saved is None:
            del os.environ["WARPFORGE_INTERPRET"]
        else:
            os.environ["WARPFORGE_INTERPRET"] = self.saved
        return False


def _compile_rows(args, variants: List[str], failures: List[str], compiled, shapes, call,
                  refuse_declines: bool = False):
    """Compiles each variant's one config for each dtype with warpforge, on
    stand-ins of `shapes(m, n, k)` (A, B, C) for the first shape, as rows of
    the dry run's table; `call(variant, a, b, c, config)` gives the launch.
    With `refuse_declines`, and always for the ping-pong variant, a declined
    warp specialization is a failure."""
    import warnings
    from warpforge import ClusterWarning, OutOfResources, WarpSpecializationWarning
    m, n, k = args.shapes[0]
    for dtype in [d for d in args.dtypes if d in DTYPES]:
        a, b, c = (StandIn(dtype, shape) for shape in shapes(m, n, k))
        for variant in variants:
            config = variant_config(args, variant)
            row: Dict[str, Any] = {"dtype": dtype,
                                   "config": f"{variant} {variant_config_name(variant, config)}",
                                   "compile_ms": {}}
            try:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    if refuse_declines or variant in WARPFORGE_ONLY:
                        warnings.simplefilter("error", WarpSpecializationWarning)
                        warnings.simplefilter("error", ClusterWarning)
                    common.compile_only("warpforge", call(variant, a, b, c, config))
                row["compile_ms"]["warpforge"] = (time.perf_counter() - t0) * 1e3
            except OutOfResources as e:
                row["compile_ms"]["warpforge"] = {"skipped": common.error_text(e)}
            except Exception as e:
                row["compile_ms"]["warpforge"] = common.record_failure(
                    failures, f"compile warpforge {dtype} {row['config']}", e)
            compiled.append(row)


def _dry_run_pointer(args, variants: List[str], failures: List[str], compiled):
    """The pointer variants: their one config compiled by warpforge (the
    warp-specialized one must not decline)."""
    module = common.load_kernels(POINTER_KERNEL_FILE, "warpforge")
    _compile_rows(args, variants, failures, compiled,
                  lambda m, n, k: ((m, k), (k, n), (m, n)),
                  lambda variant, a, b, c, config: pointer_call(module, variant, a, b, c,
                                                                config),
                  refuse_declines=True)


def _dry_run_tma(args, variants: List[str], failures: List[str], compiled, interpreted):
    module = common.load_kernels(TMA_KERNEL_FILE, "warpforge")
    _compile_rows(args, variants, failures, compiled,
                  lambda m, n, k: ((m, k), (n, k), (m, n)),
                  lambda variant, a, b_t, c, config: tma_call(module, variant, a, b_t, c,
                                                              config, DRY_RUN_SMS))
    with _Interpreting():
        arrays = common.NumpyArrays(seed=2)
        for shape in DRY_RUN_TMA_SHAPES:
            case = Case("fp16", *shape)
            for variant in variants:
                interpreted.append(interpret_tma_case(case, module, variant,
                                                      variant_config(args, variant), arrays,
                                                      failures))


# The persistent kernel's programs in the dry run: few, so that each walks
# several tiles.
DRY_RUN_SMS = 3

# What the fp8 dtypes are called in the PTX's wgmma and in tl.
FP8_PTX = {"e4m3": ".e4m3", "e5m2": ".e5m2"}
FP8_TL = {"e4m3": "float8e4nv", "e5m2": "float8e5"}


def check_fp8_cubin(what: str, dtype: str, kernel) -> str:
    """The compiled kernel multiplies with wgmma on `dtype` operands (both)
    and ptxas spilled nothing; returns the first wgmma's name."""
    ptx = kernel.asm.get("ptx", "")
    names = sorted({line.split()[0] for line in ptx.splitlines()
                    if line.strip().startswith("wgmma.mma_async")})
    want = FP8_PTX[dtype] * 2
    if not any(n.endswith(f".f32{want}") for n in names):
        raise common.Mismatch(f"{what}: no wgmma.mma_async on {dtype} operands in the PTX "
                              f"(found {names or 'no wgmma'})")
    spills = (kernel.metadata.get("spill_stores"), kernel.metadata.get("spill_loads"))
    if spills != (0, 0):
        raise common.Mismatch(f"{what}: ptxas spills (stores, loads) = {spills}:\n"
                              f"{kernel.metadata.get('ptxas_log', '')}")
    return names[0]


def _dry_run_fp8(args, variants: List[str], failures: List[str], compiled, interpreted):
    """Each fp8 variant's config compiled by warpforge to a cubin for each
    of its fp8 dtypes on stand-ins of the first shape (bf16 output), then
    interpreted on DRY_RUN_FP8_SHAPES."""
    module = common.load_kernels(FP8_KERNEL_FILE, "warpforge")
    from warpforge import OutOfResources
    m, n, k = args.shapes[0]
    kb = _cdiv(k, FP8_SCALE_BLOCK)
    for dtype in [d for d in args.dtypes if d in FP8_DTYPES]:
        for variant in [v for v in variants if variant_applies(v, dtype)]:
            a, b_t, c = StandIn(dtype, (m, k)), StandIn(dtype, (n, k)), StandIn("bf16", (m, n))
            scales = ((StandIn("fp32", (1, 1)), StandIn("fp32", (1, 1)))
                      if variant == "fp8-scaled" else
                      (StandIn("fp32", (m, kb)), StandIn("fp32", (_cdiv(n, FP8_SCALE_BLOCK), kb))))
            row: Dict[str, Any] = {"dtype": dtype,
                                   "config": f"{variant} {fp8_config_name(variant)}",
                                   "compile_ms": {}}
            what = f"compile warpforge {dtype} {row['config']}"
            try:
                t0 = time.perf_counter()
                kernel = common.compile_only("warpforge", fp8_call(
                    module, variant, a, b_t, c, *scales, DRY_RUN_SMS))
                row["compile_ms"]["warpforge"] = (time.perf_counter() - t0) * 1e3
                row["wgmma"] = check_fp8_cubin(what, dtype, kernel)
                row["shared_bytes"] = kernel.metadata.get("shared")
            except OutOfResources as e:
                row["compile_ms"]["warpforge"] = common.record_failure(failures, what, e)
            except Exception as e:
                row["compile_ms"]["warpforge"] = common.record_failure(failures, what, e)
            compiled.append(row)
    with _Interpreting():
        for shape in DRY_RUN_FP8_SHAPES:
            for dtype in [d for d in args.dtypes if d in FP8_DTYPES]:
                for variant in [v for v in variants if variant_applies(v, dtype)]:
                    case = Case(dtype, *shape)
                    interpreted.append(interpret_fp8_case(case, module, variant, failures))


def _fp8_array(module, values, dtype: str):
    """`values` (small integers, exact in fp8) as an fp8 array for the
    interpreter: a uint8 array, 16-byte aligned, seen by kernels as
    tl.<fp8 type> (warpforge.reinterpret), filled by a kernel that converts
    float32 to that type (warpforge's own rounding)."""
    import numpy as np
    import warpforge
    import warpforge.language as tl
    raw = _aligned(np.zeros(values.shape, np.uint8))
    out = warpforge.reinterpret(raw, getattr(tl, FP8_TL[dtype]))
    x = np.ascontiguousarray(values, np.float32)
    _quantize[(_cdiv(x.size, 1024),)](x, out, x.size, BLOCK=1024)
    return out


def _make_quantize():
    import warpforge
    import warpforge.language as tl

    @warpforge.jit
    def quantize(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs, mask=offs < n)
        tl.store(out_ptr + offs, x.to(out_ptr.dtype.element_ty), mask=offs < n)
    return quantize


class _LazyKernel:
    def __init__(self, make):
        self.make, self.kernel = make, None

    def __getitem__(self, grid):
        if self.kernel is None:
            self.kernel = self.make()
        return self.kernel[grid]


_quantize = _LazyKernel(_make_quantize)


def interpret_fp8_case(case: Case, module, variant: str, failures: List[str]) -> Dict[str, Any]:
    """The fp8 variant in the interpreter: integers in [-4, 4] as fp8 (exact
    in both types), scales of a few bits, fp16 output poisoned with NaN,
    checked against the float64 product of the same values."""
    import numpy as np
    rng = np.random.default_rng(zlib.crc32(f"{case.label} {variant}".encode()))
    a = rng.integers(-4, 5, (case.m, case.k)).astype(np.float64)
    b_t = rng.integers(-4, 5, (case.n, case.k)).astype(np.float64)
    kb = _cdiv(case.k, FP8_SCALE_BLOCK)
    if variant == "fp8-scaled":
        a_scale, b_scale = np.array([0.375], np.float32), np.array([1.25], np.float32)
    else:
        a_scale = rng.uniform(0.5, 2.0, (case.m, kb)).astype(np.float32)
        b_scale = rng.uniform(0.5, 2.0, (_cdiv(case.n, FP8_SCALE_BLOCK), kb)).astype(np.float32)
    ref = fp8_reference(np, variant, a, b_t, a_scale.astype(np.float64),
                        b_scale.astype(np.float64), case.k)
    name = fp8_config_name(variant)
    row: Dict[str, Any] = {"case": f"{case.label} {variant}", "configs": {}}
    what = f"interpreter {case.label} {variant} {name}"
    arrays = common.NumpyArrays()
    c, guard = arrays.poisoned((case.m, case.n), "fp16")
    c = _aligned(c)
    row["configs"][name] = _interpret_checked(
        what, case.dtype, c, ref, guard, failures,
        lambda: fp8_call(module, variant, _fp8_array(module, a, case.dtype),
                         _fp8_array(module, b_t, case.dtype), c, a_scale, b_scale,
                         DRY_RUN_SMS))
    return row


def _interpret_checked(what: str, dtype: str, c, ref, guard, failures: List[str], call):
    """Launches `call()`'s kernel in the interpreter and checks `c` against
    `ref` and the guard after it: "ok", or the recorded failure."""
    try:
        common.launch(call())
        check_metrics(what, dtype, error_metrics(None, c, ref), c)
        common.check_guard(what, guard)
        return "ok"
    except Exception as e:
        return common.record_failure(failures, what, e)


def _aligned(x):
    """`x` (a NumPy array) at a 16-byte aligned address, copied if need be:
    the TMA's rule for a descriptor's base."""
    import numpy as np
    if x.ctypes.data % 16 == 0:
        return x
    raw = np.empty(x.nbytes + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    out = raw[start:start + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


def interpret_tma_case(case: Case, module, variant: str, config, arrays,
                       failures: List[str]) -> Dict[str, Any]:
    import numpy as np
    a, b = make_inputs(case, arrays)
    a, b_t = _aligned(a), _aligned(np.ascontiguousarray(b.T))
    ref = numpy_reference(a, b)
    name = variant_config_name(variant, config)
    row: Dict[str, Any] = {"case": f"{case.label} {variant}", "configs": {}}
    c, guard = arrays.poisoned((case.m, case.n), case.dtype)
    what = f"interpreter {case.label} {variant} {name}"
    row["configs"][name] = _interpret_checked(
        what, case.dtype, c, ref, guard, failures,
        lambda: tma_call(module, variant, a, b_t, c, config, DRY_RUN_SMS))
    return row


def _dry_run_blocked(args, failures: List[str], compiled, interpreted):
    modules: Dict[str, Any] = {"warpforge": common.load_kernels(KERNEL_FILE, "warpforge")}
    if "triton" in args.backends:
        if importlib.util.find_spec("triton") is None:
            print("dry run: triton is not installed here; compiling with warpforge only",
                  file=sys.stderr)
        else:
            modules["triton"] = common.load_kernels(KERNEL_FILE, "triton")
    from warpforge import OutOfResources
    kw = modules["warpforge"]
    m, n, k = args.shapes[0]
    for dtype in [d for d in args.dtypes if d in DTYPES]:
        a, b, c = StandIn(dtype, (m, k)), StandIn(dtype, (k, n)), StandIn(dtype, (m, n))
        configs = [kw.MatmulConfig(*args.config)] if args.config else kw.CONFIGS
        for config in configs:
            row: Dict[str, Any] = {"dtype": dtype, "config": kw.describe(config),
                                   "compile_ms": {}}
            for backend, module in [(x, modules[x]) for x in ("warpforge", "triton")
                                    if x in modules]:
                try:
                    t0 = time.perf_counter()
                    common.compile_only(backend, module.matmul_call(a, b, c, config))
                    row["compile_ms"][backend] = (time.perf_counter() - t0) * 1e3
                except OutOfResources as e:
                    row["compile_ms"][backend] = {"skipped": common.error_text(e)}
                except Exception as e:
                    row["compile_ms"][backend] = common.record_failure(
                        failures, f"compile {backend} {dtype} {kw.describe(config)}", e)
            compiled.append(row)
    with _Interpreting():
        arrays = common.NumpyArrays(seed=1)
        for shape in DRY_RUN_SHAPES:
            case = Case("fp16", *shape)
            interpreted.append(interpret_case(case, kw, arrays, failures))


def interpret_case(case: Case, kernels, arrays, failures: List[str]) -> Dict[str, Any]:
    a, b = make_inputs(case, arrays)
    ref = numpy_reference(a, b)
    row: Dict[str, Any] = {"case": case.label, "configs": {}}
    runs = [("autotuned", None)] + [(kernels.describe(c), c) for c in kernels.CONFIGS]
    for name, config in runs:
        c, guard = arrays.poisoned((case.m, case.n), case.dtype)
        what = f"interpreter {case.label} {name}"
        try:
            call = kernels.matmul_call(a, b, c, config)
            common.launch(call)
            if config is None:
                row["autotuned_config"] = kernels.describe(call[0].best_config)
            metrics = error_metrics(None, c, ref)
            check_metrics(what, case.dtype, metrics, c)
            common.check_guard(what, guard)
            row["configs"][name] = "ok"
        except Exception as e:
            row["configs"][name] = common.record_failure(failures, what, e)
    return row


# -- Report -------------------------------------------------------------------------------


def _cell(providers, name: str, key: str, spec: str) -> str:
    v = providers.get(name)
    if v is None:
        return ""
    if "error" in v:
        return "FAIL"
    return common.fmt(v.get(key), spec)


def paired_cell(result, pair: str = "warpforge/triton") -> str:
    """'median (q25-q75)' of a ratio's paired samples, to three places."""
    v = result.get("paired_ratios", {}).get(pair)
    if not v:
        return ""
    return f"{v['median']:.3f} ({v['q25']:.3f}-{v['q75']:.3f})"


def gpu_rows(report) -> Tuple[List[str], List[List[str]]]:
    headers = ["case (TFLOP/s)", "cuBLAS", "triton", "warpforge", "wf/tr",
               "wf/tr per launch",
               "wf/cuBLAS", "tr/cuBLAS", "triton config", "warpforge config"]
    rows = []
    # One row per case and variant; a TMA variant's label says which
    # ("fp16 4096x4096x4096 tma"), cuBLAS is repeated on each.
    variants = [v for v in report["settings"].get("variants", ["blocked"])
                if v not in FP8_VARIANTS]
    for r in report["results"]:
        p, q = r["providers"], r["ratios"]
        label = Case(r["dtype"], r["M"], r["N"], r["K"]).label
        # An fp8 case is one variant's: its row alone.
        for variant in [r["variant"]] if "variant" in r else variants:
            tr, wf = provider_name("triton", variant), provider_name("warpforge", variant)
            configs = [p.get(x, {}).get("config", {}).get("name", "") for x in (tr, wf)]
            rows.append([label if variant == "blocked" else f"{label} {variant}"]
                        + [_cell(p, x, "tflops", ".0f") if "unsupported" not in p.get(x, {})
                           else "n/a" for x in ("torch", tr, wf)]
                        + [common.fmt(q.get(f"{wf}/{tr}"), ".2f"), paired_cell(r, f"{wf}/{tr}")]
                        + [common.fmt(q.get(x), ".2f") for x in (f"{wf}/cublas", f"{tr}/cublas")]
                        + configs)
    return headers, rows


def dry_rows(report) -> Tuple[List[str], List[List[str]]]:
    headers = ["dtype config", "warpforge ms", "triton ms"]
    rows = []
    for r in report["compile"]["results"]:
        rows.append([f"{r['dtype']} {r['config']}"]
                    + [_compile_cell(r["compile_ms"].get(x)) for x in ("warpforge", "triton")])
    for r in report["interpreter"]:
        bad = [n for n, v in r["configs"].items() if v != "ok"]
        rows.append([f"interpreter {r['case']}", "ok" if not bad else f"FAIL ({len(bad)})", ""])
    return headers, rows


def _compile_cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, dict):
        return "skipped" if "skipped" in value else "FAIL"
    return common.fmt(value, ".0f")


def markdown(report, headers, rows) -> str:
    """The Markdown summary written beside the JSON."""
    env = report["environment"]
    lines = [f"# Matrix multiplication, {report['mode']} run ({report['date'][:10]})", "",
             f"`python bench/matmul.py` on {env.get('device') or 'no GPU'} (torch "
             f"{env.get('torch')}, Triton {env.get('triton')}, warpforge {env.get('warpforge')}"
             f", commit {str(env.get('git_commit'))[:12]}); {report['settings']['timer']}; "
             "TFLOP/s = 2 M N K / median time; wf/tr > 1: warpforge faster; wf/tr per launch: "
             "median (quartiles) of the ratio of the two launches of each turn. Configs: "
             "BLOCK_MxBLOCK_NxBLOCK_K, group, warps, stages"
             + (f"; one config for both JITs, no autotuning ({report['settings']['config']})."
                if report["settings"].get("config", "autotuned") != "autotuned"
                else ", each JIT's autotuned pick.")
             + _variants_note(report["settings"]), "",
             *([] if report.get("finished", True) else
               ["**Unfinished**: written after the last case that completed.", ""]),
             "| " + " | ".join(headers) + " |",
             "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    if report["failures"]:
        lines += ["", f"{len(report['failures'])} failed:", ""]
        lines += [f"* {f}" for f in report["failures"]]
    return "\n".join(lines) + "\n"


def _variants_note(settings) -> str:
    return _tma_note(settings) + _fp8_note(settings)


def _fp8_note(settings) -> str:
    fp8 = [v for v in settings.get("variants", ["blocked"]) if v in FP8_VARIANTS]
    if not fp8:
        return ""
    return (" Rows " + ", ".join(fp8) + ": bench/kernels/fp8_matmul.py under both JITs "
            "(persistent, TMA, B K-major, fp32 accumulation, bf16 output, one config: "
            + ", ".join(f"{v} {fp8_config_name(v)}" for v in fp8) + "); its cuBLAS column is "
            "torch._scaled_mm (cuBLASLt): per-tensor scales for fp8-scaled, blockwise "
            "1x128 (A) and 128x128 (B) scales for fp8-block-scaled where this torch has "
            "them; n/a: torch has no such call here (the reason is in the JSON; cuBLASLt "
            "multiplies no two e5m2 matrices). Checked against float64 of the dequantized "
            "fp8 inputs.")


def _tma_note(settings) -> str:
    tma = [v for v in settings.get("variants", ["blocked"]) if v in TMA_KERNELS]
    if not tma:
        return ""
    return (f" Rows {', '.join(tma)}: tutorial 09's TMA kernels "
            f"({', '.join(dict.fromkeys(TMA_KERNELS[v] for v in tma))}, "
            "python/test/tutorial09_kernels.py) "
            "under both JITs, B K-major, one config for both ("
            f"{settings.get('tma_config', describe_config(TMA_DEFAULT_CONFIG))}), "
            "no epilogue subtiling; warp specialization only in tma-ws "
            "(WARP_SPECIALIZE=True); tma-persistent runs min(SMs, tiles) programs."
            + (f" tma-persistent-ws-pp: warpforge alone with ping_pong=True (two consumer "
               f"groups of 4 warps taking turns, whole tiles each, "
               f"{variant_config_name('tma-persistent-ws-pp', PING_PONG_CONFIG)}) "
               "against Triton's tma-persistent-ws at its config."
               if any(v in PING_PONG for v in tma) else "")
            + (f" tma-persistent-ws-c2: warpforge alone with num_ctas={CLUSTER_CTAS} "
               f"({variant_config_name('tma-persistent-ws-c2', CLUSTER_CONFIG)}: each CTA of "
               "a pair computes half the rows of a program's tile, SMs / 2 programs) against "
               "Triton's tma-persistent-ws at its config."
               if any(v in CLUSTER for v in tma) else ""))


# -- Command line -------------------------------------------------------------------------


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help=f"one small shape ({'x'.join(map(str, QUICK_SHAPES[0]))}), "
                        "shorter timing")
    p.add_argument("--dtypes", type=lambda s: common.parse_list(s, ALL_DTYPES),
                   help=f"comma-separated subset of {','.join(ALL_DTYPES)} (default: "
                        f"{','.join(DTYPES)} for the 16-bit variants, each fp8 variant's "
                        "fp8 dtypes: fp8-scaled e4m3,e5m2, fp8-block-scaled e4m3)")
    p.add_argument("--shapes", type=parse_shapes,
                   help="comma-separated MxNxK shapes (default: "
                        f"{','.join('x'.join(map(str, s)) for s in SHAPES)})")
    p.add_argument("--backends", type=lambda s: common.parse_list(s, BACKENDS),
                   default=list(BACKENDS), help="comma-separated subset of "
                   f"{','.join(BACKENDS)} (torch: torch.matmul, cuBLAS)")
    p.add_argument("--warmup", type=float, help="do_bench warmup in ms (default 25, quick 10)")
    p.add_argument("--rep", type=float, help="do_bench repetition time in ms "
                   "(default 100, quick 25)")
    p.add_argument("--rounds", type=int, help="timing rounds per case, each in another "
                   "provider order; the median round counts (default 3, quick 1)")
    p.add_argument("--config", type=parse_config,
                   help="run only this config under both JITs, no autotuning, e.g. "
                        "128x256x64g8w8s3 (BMxBNxBK, group, warps, stages); the TMA "
                        "variants' config (default: tutorial 09's, "
                        f"{describe_config(TMA_DEFAULT_CONFIG).replace(' ', '')})")
    p.add_argument("--variants", type=lambda s: common.parse_list(s, VARIANTS),
                   default=["blocked"], help="comma-separated subset of "
                   f"{','.join(VARIANTS)} (default blocked): the blocked kernel of "
                   "bench/kernels/matmul.py, tutorial 09's matmul_kernel_tma, "
                   "matmul_kernel_tma_persistent, ...; small-m: the blocked kernel over "
                   "small-M configs and shapes")
    p.add_argument("--results-dir", help="where the JSON and Markdown go (default "
                   "bench/results; dry run: a temporary directory)")
    p.add_argument("--dry-run", action="store_true",
                   help="no GPU: compile every config, interpret small shapes")
    args = p.parse_args(argv)
    if args.dtypes is None:
        args.dtypes = default_dtypes(args.variants)
    if args.shapes is None:
        args.shapes = list(QUICK_SHAPES if args.quick else
                           SMALL_M_SHAPES if args.variants == ["small-m"] else SHAPES)
    elif args.quick:
        p.error("--quick picks the shapes: give --quick or --shapes, not both")
    for name, full, quick in (("warmup", 25.0, 10.0), ("rep", 100.0, 25.0)):
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)
        elif getattr(args, name) <= 0:
            p.error(f"--{name} must be positive")
    if args.rounds is None:
        args.rounds = 1 if args.quick else 3
    elif args.rounds < 1:
        p.error("--rounds must be at least 1")
    if args.results_dir is None:
        args.results_dir = os.path.join(tempfile.gettempdir(), "warpforge-bench") \
            if args.dry_run else os.path.join(common.BENCH_DIR, "results")
    return args


class Report:
    """The run's report: written (JSON and Markdown, at one path stem) after
    every GPU case, so that a run cut short still leaves what it measured,
    and at the end."""

    def __init__(self, args, failures: List[str]):
        self.args, self.failures = args, failures
        self.started = time.time()
        self.now = datetime.datetime.now()
        self.mode = "dry-run" if args.dry_run else "quick" if args.quick else "full"
        self.name = "matmul-dry-run" if args.dry_run else "matmul"
        self.path = self.md_path = ""

    def build(self, body: Dict[str, Any], finished: bool) -> Dict[str, Any]:
        args = self.args
        body = dict(body)
        environment = body.pop("environment", None) or common.environment(
            None, sys.modules.get("triton"))
        return {"benchmark": "matmul", "mode": self.mode,
                "date": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started)),
                "finished": finished, "environment": environment,
                "settings": {"timer": TIMER,
                             "warmup_ms": args.warmup, "rep_ms": args.rep,
                             "dtypes": args.dtypes,
                             "shapes": ["x".join(map(str, s)) for s in args.shapes],
                             "backends": args.backends,
                             "variants": args.variants,
                             "providers": provider_names(args),
                             **({"tma_config": describe_config(tma_config(args))}
                                if any(v in TMA_KERNELS for v in args.variants) else {}),
                             **({"ping_pong_config": {
                                 "name": variant_config_name(v, PING_PONG_CONFIG),
                                 **PING_PONG_OPTIONS}
                                 for v in args.variants if v in PING_PONG}),
                             "config": ("x".join(map(str, args.config[:3])) +
                                        " g{} w{} s{}".format(*args.config[3:])
                                        if args.config else "autotuned"),
                             "tolerance": {d: {"max_rel_err": t[0], "rms_rel_err": t[1]}
                                           for d, t in TOLERANCE.items()}},
                **body, "failures": list(self.failures),
                "seconds": round(time.time() - self.started, 1)}

    def write(self, body: Dict[str, Any], finished: bool = False):
        """Writes the report; returns it with the table's headers and rows."""
        report = self.build(body, finished)
        self.path = common.write_json(report, self.args.results_dir, self.name, self.now)
        headers, rows = dry_rows(report) if self.args.dry_run else gpu_rows(report)
        self.md_path = os.path.splitext(self.path)[0] + ".md"
        with open(self.md_path, "w", encoding="utf-8") as f:
            f.write(markdown(report, headers, rows))
        return report, headers, rows


def main(argv=None) -> int:
    args = parse_args(argv)
    failures: List[str] = []
    out = Report(args, failures)
    body = dry_run(args, failures) if args.dry_run else gpu_run(args, failures, out.write)
    _, headers, rows = out.write(body, finished=True)
    print()
    print(common.format_table(headers, rows))
    print(f"JSON: {out.path}")
    print(f"Markdown: {out.md_path}")
    if failures:
        print(f"{len(failures)} FAILED (details above and in the JSON): "
              + "; ".join(f[:160] for f in failures[:5]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
