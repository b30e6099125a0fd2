"""Attention forward on one GPU: warpforge, Triton's tutorial and torch SDPA side by side.

Providers, for O = softmax(Q K^T / sqrt(D)) V with Q, K, V of (B, H, S, D):
  * "warpforge": bench/kernels/attention.py under warpforge (FlashAttention-2's
    algorithm: TMA loads, the softmax in the first product's registers, P
    read by the second product from registers);
  * "warpforge:tutorial": Triton 3.6's tutorial 06 forward
    (python/test/tutorial06_kernels.py) under warpforge, autotuned over the
    tutorial's configs, warp_specialize=False, and "warpforge:tutorial-ws"
    the same with warp_specialize=True (a TMA producer warpgroup, consumer
    warpgroups, registers moved by setmaxnreg);
  * "triton" and "triton:ws": the same tutorial under Triton 3.6, with
    warp_specialize False and True (the tutorial's Hopper benchmark turns it
    on for the non-causal forward);
  * "sdpa": torch.nn.functional.scaled_dot_product_attention as torch
    dispatches it (the case records the backend it chose, from
    torch._fused_sdp_choice), and "sdpa:flash" and "sdpa:cudnn": the same
    restricted to its FlashAttention-2 and cuDNN backends.
The tutorial's kernel needs S to be a multiple of its 128-row block: its
providers skip other lengths. Its autotuner keeps its 128-row configs only
under both JITs (Triton compiles the 36 one by one, for every length).

Every provider's output is checked first, against float64 on two heads of
the first batch: max |out - ref| / max |ref| under 1e-2 (fp16) or 2e-2
(bf16); warpforge's output is allocated NaN-poisoned. Then the checked
providers are timed together, launch by launch in turns with an L2 flush
before each and the GPU held by a spin while the host queues the launch, so
that a time is the kernel's and not the Python launch path's
(warpforge.testing.do_bench_interleaved), in --rounds rounds; a
provider's time is its median round, reported in TFLOP/s (4 B H S^2 D, half
of it when causal), with each ratio also given per launch (median and
quartiles of the ratios of the two launches of one turn).

    python bench/attention.py [--quick] [--dtypes fp16,bf16] [--heads 64,128,256]
                              [--seqlens 1024,2048,...] [--causal both|yes|no]
                              [--batch 4] [--nheads 32] [--providers ...]
                              [--rounds N] [--results-dir DIR]

The JSON report (bench/results/attention-<date>.json, "benchmark":
"attention", each case naming dtype, B, H, S, D and causal, each provider
with "tflops") and its Markdown table are rewritten after every case.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import re
import statistics
import sys
import traceback
from typing import Any, Dict, List

import common

PROVIDERS = ("warpforge", "warpforge:tutorial", "warpforge:tutorial-ws", "triton", "triton:ws",
             "sdpa", "sdpa:flash", "sdpa:cudnn")
DTYPES = {"fp16": "float16", "bf16": "bfloat16"}
TOLERANCE = {"fp16": 1e-2, "bf16": 2e-2}
# (faster-is-above-1, other): the ratios reported.
RATIO_PAIRS = (("warpforge", "sdpa"), ("warpforge", "sdpa:flash"), ("warpforge", "sdpa:cudnn"), ("warpforge", "triton"),
               ("warpforge", "triton:ws"), ("warpforge:tutorial", "triton"),
               ("warpforge:tutorial-ws", "triton:ws"))
TUTORIAL = os.path.join(common.REPO_DIR, "python", "test", "tutorial06_kernels.py")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dtypes", type=lambda t: common.parse_list(t, list(DTYPES)), default=["fp16"])
    p.add_argument("--heads", default="128,64,256", help="head dims D")
    p.add_argument("--seqlens", default="1024,2048,4096,8192,16384")
    p.add_argument("--causal", choices=["both", "yes", "no"], default="both")
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--nheads", type=int, default=32)
    p.add_argument("--providers", type=lambda t: common.parse_list(t, PROVIDERS),
                   default=list(PROVIDERS))
    p.add_argument("--configs", default="",
                   help="also time warpforge's kernel with these configs, each a provider "
                        "'warpforge:<config>' (BMxBN w<warps> s<stages>, e.g. 128x64w8s2; "
                        "'seq' after it: products in order, not overlapped; 'ws': warp-specialized; "
                        "'persist': persistent, S a multiple of BM only; 'c2': clusters of two "
                        "CTAs, each BM/2 rows, K multicast)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warmup", type=float, default=25)
    p.add_argument("--rep", type=float, default=100)
    p.add_argument("--quick", action="store_true",
                   help="D128 only, S 1024 and 4096, one round")
    p.add_argument("--results-dir", default=os.path.join(common.BENCH_DIR, "results"))
    args = p.parse_args(argv)
    if args.quick:
        args.heads, args.seqlens, args.rounds = "128", "1024,4096", 1
    args.configs = [c for c in args.configs.split(",") if c]
    for c in args.configs:
        if not re.fullmatch(r"\d+x\d+w\d+s\d+(seq)?(ws)?(persist)?(c[24])?", c):
            p.error(f"--configs: {c!r} is not BMxBNw<warps>s<stages>[seq][ws][persist][c2|c4]")
    args.heads = [int(x) for x in args.heads.split(",")]
    args.seqlens = [int(x) for x in args.seqlens.split(",")]
    return args


def flop(B, H, S, D, causal) -> float:
    return 4.0 * B * H * S * S * D * (0.5 if causal else 1.0)


def config_of(kernels, text: str):
    """The AttnConfig of bench/kernels/attention.py (`kernels`) that a
    --configs entry names: BMxBNw<warps>s<stages>, 'seq' for the products in
    order, 'ws' for warp specialization, 'persist' persistent, 'c2' (or
    'c4') clusters of that many CTAs, 'g3' three consumer groups of <warps>
    warps (experimental: 192x128w4s2wsg3 under
    WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1)."""
    shape = re.match(r"(\d+)x(\d+)w(\d+)s(\d+)", text)
    ctas = re.search(r"c(\d+)(?:g\d+)?$", text)
    groups = re.search(r"g(\d+)$", text)
    return kernels.AttnConfig(*map(int, shape.groups()), overlap="seq" not in text,
                              ws="ws" in text, persistent="persist" in text,
                              ctas=int(ctas.group(1)) if ctas else 1,
                              groups=int(groups.group(1)) if groups else 0)


def make_providers(torch, names, q, k, v, causal, sm_scale, kernels, failures, case_name):
    """name -> zero-argument function returning the output, for those that apply."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    import torch.nn.functional as F
    B, H, S, D = q.shape
    fns: Dict[str, Any] = {}
    for name in names:
        if name == "sdpa":
            def run():
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale)
            fns[name] = run
            fns[name].backend = sdpa_choice(torch, q, k, v, causal, sm_scale)
        elif name.startswith("sdpa:"):
            backend = {"sdpa:flash": SDPBackend.FLASH_ATTENTION,
                       "sdpa:cudnn": SDPBackend.CUDNN_ATTENTION}[name]

            def run(backend=backend):
                with sdpa_kernel(backend):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                          scale=sm_scale)
            fns[name] = run
        elif name == "warpforge" or (name.startswith("warpforge:")
                                     and not name.startswith("warpforge:tutorial")):
            m = kernels["warpforge"]
            o = torch.full_like(q, float("nan"))
            lse = torch.empty((B, H, S), device="cuda")
            config = None
            if name != "warpforge":
                config = config_of(m, name.partition(":")[2])
                if config.persistent and S % config.block_m:
                    continue  # the persistent kernel takes whole tiles only
            kernel, grid, a, meta = m.attention_call(q, k, v, o, lse, causal, sm_scale, config)
            launch = kernel[grid]
            fns[name] = lambda launch=launch, a=a, meta=meta, o=o: (launch(*a, **meta), o)[1]
            if config is None:  # the autotuner: the case records the config it picked
                fns[name].autotuner = kernel
        else:
            if S % 128 or q.dtype != torch.float16 or D > 128:
                continue  # the tutorial's kernel: 128-row blocks, fp16 output, D <= 128
            tut = kernels["tutorial-triton" if name.startswith("triton") else "tutorial-warpforge"]
            ws = name in ("triton:ws", "warpforge:tutorial-ws")
            fns[name] = lambda tut=tut, ws=ws: tut.attention(q, k, v, causal, sm_scale, ws)
    return fns


def sdpa_choice(torch, q, k, v, causal, sm_scale) -> str:
    """The backend torch's dispatcher picks for these inputs ("flash",
    "cudnn", ...), or "unknown" where torch does not say."""
    from torch.nn.attention import SDPBackend
    try:
        index = torch._fused_sdp_choice(q, k, v, is_causal=causal, scale=sm_scale)
        return SDPBackend(index).name.lower().replace("_attention", "")
    except Exception:  # a private API: its absence must not stop the benchmark
        return "unknown"


def check(torch, name, out, ref, dtype) -> Dict[str, float]:
    got = out[0, :ref.shape[1]].double()
    err = ((got - ref).abs().max() / ref.abs().max()).item()
    if not math.isfinite(err) or err > TOLERANCE[dtype]:
        raise common.Mismatch(f"{name}: max |out - ref| / max |ref| = {err:.3g} "
                              f"(tolerance {TOLERANCE[dtype]})")
    return {"max_rel_err": err}


def run_case(torch, args, kernels, dtype, D, S, causal, failures) -> Dict[str, Any]:
    B, H = args.batch, args.nheads
    case = {"dtype": dtype, "B": B, "H": H, "S": S, "D": D, "causal": causal,
            "flop": flop(B, H, S, D, causal), "providers": {}}
    name = f"{dtype} B{B} H{H} S{S} D{D}{' causal' if causal else ''}"
    g = torch.Generator(device="cuda").manual_seed(S * 1000 + D + causal)
    dt = getattr(torch, DTYPES[dtype])
    q, k, v = [(torch.randn((B, H, S, D), generator=g, device="cuda") * 0.5).to(dt)
               for _ in range(3)]
    sm_scale = 1.0 / math.sqrt(D)
    # float64 reference on two heads of the first batch.
    q64, k64, v64 = (t[0, :2].double() for t in (q, k, v))
    s = torch.matmul(q64, k64.transpose(-1, -2)) * sm_scale
    if causal:
        s = s.masked_fill(~torch.ones(S, S, dtype=torch.bool, device="cuda").tril(), -math.inf)
    ref = torch.matmul(torch.softmax(s, dim=-1), v64).unsqueeze(0)
    del s, q64, k64, v64
    fns = make_providers(torch, [*args.providers, *(f"warpforge:{c}" for c in args.configs)],
                         q, k, v, causal, sm_scale, kernels, failures, name)
    timers = {}
    for pname, fn in fns.items():
        entry = case["providers"].setdefault(pname, {})
        try:
            out = fn()
            torch.cuda.synchronize()
            entry.update(check(torch, pname, out, ref, dtype))
            timers[pname] = fn
        except Exception as e:  # a provider that fails is reported; the run goes on
            entry.update(common.record_failure(failures, f"{name} {pname}", e))
    rounds: Dict[str, List[float]] = {n: [] for n in timers}
    paired: Dict[str, List[float]] = {}
    for _ in range(args.rounds if timers else 0):
        times = common.bench_interleaved(timers, args.warmup, args.rep)
        for pname, ms in times.items():
            rounds[pname].append(float(statistics.median(ms)))
        for x, y in RATIO_PAIRS:
            if x in times and y in times:
                paired.setdefault(f"{x}/{y}", []).extend(
                    ty / tx for tx, ty in zip(times[x], times[y]))
    for pname in timers:
        entry = case["providers"][pname]
        tuner = getattr(timers[pname], "autotuner", None)
        if getattr(tuner, "best_config", None) is not None:  # this case's: its last launch
            entry["config"] = kernels["warpforge"].describe(tuner.best_config)
        if getattr(timers[pname], "backend", None):
            entry["backend"] = timers[pname].backend
        entry["ms_rounds"] = rounds[pname]
        entry["ms"] = float(statistics.median(rounds[pname]))
        entry["tflops"] = case["flop"] / (entry["ms"] * 1e-3) / 1e12
    from warpforge.testing import quantile
    case["ratios"] = {}
    for x, y in RATIO_PAIRS:
        px, py = case["providers"].get(x, {}), case["providers"].get(y, {})
        if "ms" in px and "ms" in py:
            samples = sorted(paired.get(f"{x}/{y}", []))
            case["ratios"][f"{x}/{y}"] = {
                "ratio": py["ms"] / px["ms"],
                "per_launch": {"median": quantile(samples, 0.5), "q25": quantile(samples, 0.25),
                               "q75": quantile(samples, 0.75), "samples": len(samples)}
                if samples else None}
    summary = "  ".join(f"{p} {e['tflops']:.0f}" for p, e in case["providers"].items()
                        if "tflops" in e)
    print(f"{name}: {summary}", flush=True)
    return case


def table(report):
    providers = list(dict.fromkeys(p for c in report["cases"] for p in c["providers"]))
    headers = ["case", *providers, "wf/sdpa", "wf/sdpa:flash", "wf/sdpa:cudnn", "wf/triton",
               "warpforge's config", "sdpa's backend"]
    rows = []
    for c in report["cases"]:
        label = f"{c['dtype']} D{c['D']} S{c['S']}{' causal' if c['causal'] else ''}"
        cells = [label]
        for p in providers:
            e = c["providers"].get(p)
            cells.append("err" if e and "error" in e else common.fmt(e.get("tflops") if e else None))
        for pair in ("warpforge/sdpa", "warpforge/sdpa:flash", "warpforge/sdpa:cudnn",
                     "warpforge/triton"):
            r = c.get("ratios", {}).get(pair)
            cells.append(common.fmt(r["ratio"] if r else None, ".2f"))
        cells.append(c["providers"].get("warpforge", {}).get("config", "-"))
        cells.append(c["providers"].get("sdpa", {}).get("backend", "-"))
        rows.append(cells)
    return headers, rows


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    import warpforge
    kernels = {"warpforge": common.load_kernels(
        os.path.join(common.BENCH_DIR, "kernels", "attention.py"), "warpforge")}
    triton = None
    wants_tutorial = any(p.startswith("triton") or p.startswith("warpforge:tutorial")
                         for p in args.providers)
    if wants_tutorial:
        sys.path.insert(0, os.path.dirname(TUTORIAL))
        kernels["tutorial-warpforge"] = common.load_kernels(TUTORIAL, "warpforge")
        if any(p.startswith("triton") for p in args.providers):
            import triton
            kernels["tutorial-triton"] = common.load_kernels(TUTORIAL, "triton")
    # The tutorial autotunes over 36 configs (fewer after its own pruning)
    # for every length and head dimension; Triton compiles them one by one.
    # Both JITs get the 128-row ones only (what the tutorial's Hopper
    # benchmark settles on), so that a run takes minutes, not an hour.
    for key in ("tutorial-triton", "tutorial-warpforge"):
        if key in kernels:
            tuner = kernels[key]._attn_fwd
            tuner.configs = [c for c in tuner.configs if c.kwargs.get("BLOCK_M") == 128]
    failures: List[str] = []
    now = datetime.datetime.now()
    report = {"benchmark": "attention", "date": now.strftime("%Y-%m-%d"),
              "environment": common.environment(torch, triton), "args": vars(args).copy(),
              "cases": [], "finished": False}
    report["args"].pop("results_dir", None)
    path = None
    for dtype in args.dtypes:
        for D in args.heads:
            for causal in {"both": (False, True), "yes": (True,), "no": (False,)}[args.causal]:
                for S in args.seqlens:
                    try:
                        report["cases"].append(run_case(torch, args, kernels, dtype, D, S,
                                                        causal, failures))
                    except Exception as e:
                        traceback.print_exc()
                        common.record_failure(failures, f"{dtype} D{D} S{S} causal={causal}", e)
                    torch.cuda.empty_cache()
                    report["failures"] = failures
                    path = common.write_json(report, args.results_dir, "attention", now)
                    headers, rows = table(report)
                    common.write_markdown(
                        path, report, "Attention forward", "bench/attention.py",
                        f"B{args.batch} H{args.nheads}, TFLOP/s (4 B H S^2 D, halved when "
                        f"causal), median of {args.rounds} interleaved rounds; ratios > 1: "
                        "warpforge faster.", headers, rows)
    report["finished"] = True
    path = common.write_json(report, args.results_dir, "attention", now)
    headers, rows = table(report)
    common.write_markdown(path, report, "Attention forward", "bench/attention.py",
                          f"B{args.batch} H{args.nheads}, TFLOP/s, median of {args.rounds} "
                          "interleaved rounds; ratios > 1: warpforge faster.", headers, rows)
    print(common.format_table(headers, rows))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
