"""What the softmax costs the attention forward: the benchmark kernel
(bench/kernels/attention.py) against copies of it with parts of the online
softmax taken out, side by side in one process (interleaved rounds, as
bench/attention.py), with SDPA's cuDNN backend as the yardstick:

    python bench/tools/attention_ceiling.py [--seqlens 4096,16384]
        [--configs 128x128w8s2wspersist,128x128w8s2ws] [--variants full,...] [--rounds 2]

The copies compute wrong outputs on purpose; only their time means
anything. `products only` keeps the loads, both products, the warpgroups'
turns and the P conversion, and drops the rest: it is the ceiling that
the kernel's structure leaves, whatever the softmax costs. `fa3 order`
is a correct variant: O rescaled between QK^T and PV (FlashAttention-3's
place for it) instead of after PV.

Each edit must match the kernel source exactly once (checked, also by
python/test/test_bench_attention.py, so that the tool fails loudly when
the kernel changes under it). `--files name=path,...` adds whole kernel
files as variants (another version of bench/kernels/attention.py: an A/B
of a change in one process), checked against float64 like the correct
variants; they run whatever `--variants` selects. `--causal` runs causal
attention (the variants' leaving-outs are for the non-causal loop; files
and `full` are what to compare there). Results: JSON and Markdown in
--results-dir ("benchmark": "attention-ceiling"). B4 H32 fp16, D
--head-dim.
"""

import argparse
import datetime
import math
import os
import statistics
import sys
import tempfile
from typing import Dict, List, Tuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import attention  # noqa: E402
import common  # noqa: E402

KERNEL = os.path.join(common.BENCH_DIR, "kernels", "attention.py")

_RESCALE = ("    l_i = l_i * alpha + tl.sum(p_ij, 1)\n"
            "    acc = acc * alpha[:, None]\n"
            "    return acc, l_i, m_ij, p_ij.to(v.dtype)")
_EXP = "    return tl.math.exp2(qk), m_ij, tl.math.exp2(m_i - m_ij)"
_MAX = ("        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)\n"
        "        m_ij = tl.where(m_ij > m_i + 8.0, m_ij, m_i)\n"
        "        qk = qk * qk_scale - m_ij[:, None]\n")
_NO_SUM_NO_RESCALE = "    return acc, l_i, m_ij, p_ij.to(v.dtype)"

# name -> (what it leaves out, [(old, new), ...]) applied in order.
VARIANTS: Dict[str, Tuple[str, List[Tuple[str, str]]]] = {
    "full": ("nothing: the benchmark kernel", []),
    "no rescale": ("O *= alpha (64 FMUL a thread per block)",
                   [(_RESCALE, "    l_i = l_i * alpha + tl.sum(p_ij, 1)\n"
                               + _NO_SUM_NO_RESCALE)]),
    "no row sum": ("l += rowsum(P) (64 FADD and the shuffles)",
                   [(_RESCALE, "    l_i = l_i * alpha\n    acc = acc * alpha[:, None]\n"
                               + _NO_SUM_NO_RESCALE)]),
    "no exp2": ("P = exp2(S - m) (64 MUFU.EX2)",
                [(_EXP, "    return qk, m_ij, tl.math.exp2(m_i - m_ij)")]),
    "max only": ("exp2, row sum and rescale: the row maximum and S - m are left",
                 [(_RESCALE, _NO_SUM_NO_RESCALE), (_EXP, "    return qk, m_i, m_i")]),
    "products only": ("the whole softmax: loads, products, turns and P's conversion are left",
                      [(_RESCALE, _NO_SUM_NO_RESCALE), (_EXP, "    return qk, m_i, m_i"),
                       (_MAX, "        m_ij = m_i\n")]),
    "one Q a head": ("Q's copy from memory: every tile of a head reads the head's first Q "
                     "block (in L2 after the first), so the copy of the next tile's Q, "
                     "issued once a tile's K/V loop is over, lands sooner",
                     [("    q = desc_q.load([q_row, 0])\n",
                       "    q = desc_q.load([off_hz * S, 0])\n")]),
    "no last PV": ("the tile's last PV and its V load, after the K/V loop: what the "
                   "consumers' own load of that V costs a tile",
                   [("        v = _load_kv(desc_v, kv_row, last, PER_HEAD)\n        acc = tl.dot(p, v, acc)\n",
                     "")]),
}


def _fa3_order(src: str) -> str:
    """O rescaled between QK^T of block n and PV of block n-1; alpha carried."""
    edits = [
        ("def _attn_step(acc, l_i, m_i, p, q,", "def _attn_step(acc, l_i, m_i, p, alpha, q,", 1),
        ("    v = _load_kv(desc_v, kv_row, tl.maximum(start_n - BLOCK_N, 0), PER_HEAD)\n    acc = tl.dot(p, v, acc)",
         "    acc = acc * alpha[:, None]\n"
         "    v = _load_kv(desc_v, kv_row, tl.maximum(start_n - BLOCK_N, 0), PER_HEAD)\n    acc = tl.dot(p, v, acc)", 1),
        (_RESCALE, "    l_i = l_i * alpha + tl.sum(p_ij, 1)\n"
                   "    return acc, l_i, m_ij, p_ij.to(v.dtype), alpha", 1),
        ("acc, l_i, m_i, p = _attn_step(acc, l_i, m_i, p, q,",
         "acc, l_i, m_i, p, alpha = _attn_step(acc, l_i, m_i, p, alpha, q,", 5),
        ("        p = tl.zeros([BLOCK_M, BLOCK_N], dtype=desc_q.dtype)\n",
         "        p = tl.zeros([BLOCK_M, BLOCK_N], dtype=desc_q.dtype)\n"
         "        alpha = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0\n", 1),
        ("        v = _load_kv(desc_v, kv_row, last, PER_HEAD)\n        acc = tl.dot(p, v, acc)",
         "        acc = acc * alpha[:, None]\n"
         "        v = _load_kv(desc_v, kv_row, last, PER_HEAD)\n        acc = tl.dot(p, v, acc)", 1),
    ]
    for old, new, count in edits:
        src = _replace(src, old, new, count)
    return src


# 2^x on the FMA pipes (FlashAttention-4's trick for the exponential unit's
# throughput): x = n + f with n = round(x) (1.5 * 2^23 added and taken
# away) and f in [-1/2, 1/2], 2^f by a cubic (relative error 7.5e-5, a
# sixth of an fp16 ulp; coefficients fitted to 2^f on [-1/2, 1/2] for
# relative error), and 2^n added to the exponent bits: 8 instructions on
# the FMA and integer pipes. x is clamped at -126 (-inf, a masked score,
# gives 2^-126, which the fp16 P and the ftz sums take as 0).
_POLY_EXP2 = """{{
.reg .f32 x, t, j, f, p;
.reg .b32 tb, pb;
max.ftz.f32 x, ${i}, 0fC2FC0000;
add.rn.ftz.f32 t, x, 0f4B400000;
sub.rn.ftz.f32 j, t, 0f4B400000;
sub.rn.ftz.f32 f, x, j;
fma.rn.ftz.f32 p, f, 0f3D61FBA2, 0f3E786F10;
fma.rn.ftz.f32 p, p, f, 0f3F31798E;
fma.rn.ftz.f32 p, p, f, 0f3F7FFB49;
mov.b32 tb, t;
mov.b32 pb, p;
shl.b32 tb, tb, 23;
add.s32 ${o}, pb, tb;
}}"""


def _mixed_exp2(pack: int) -> str:
    """A jit function: exp2 of `pack` elements at a time, the first on the
    FMA pipes, the others ex2.approx.ftz (1/pack of them emulated)."""
    lines = [_POLY_EXP2.format(i=pack, o=0)]
    lines += [f"ex2.approx.ftz.f32 ${k}, ${pack + k};" for k in range(1, pack)]
    asm = "\n".join(lines).replace("\n", "\\n")
    constraints = ",".join(["=r"] * pack + ["r"] * pack)
    return ("@jit_backend.jit\n"
            "def _exp2_mixed(x):\n"
            f"    return tl.inline_asm_elementwise(\"{asm}\", \"{constraints}\", [x],\n"
            f"                                     dtype=tl.float32, is_pure=True, pack={pack})\n"
            "\n\n")


def _exp2_on_fma(src: str, pack: int) -> str:
    src = _replace(src, "@jit_backend.jit\ndef _softmax_block(",
                   _mixed_exp2(pack) + "@jit_backend.jit\ndef _softmax_block(")
    return _replace(src, _EXP, "    return _exp2_mixed(qk), m_ij, tl.math.exp2(m_i - m_ij)")


_PEEL_IF_EVEN = """            if EVEN and PEEL:
                # The persistent kernel's first block before the loop
"""


def _first_block_peeled(src: str) -> str:
    """Not causal: the first K/V block's QK^T and softmax before the
    rotated loop (FlashAttention-3's prologue), so that no PV multiplies
    the zero P of "block -1", in the unpersisted kernels too (the
    benchmark kernel peels it in the persistent one, where the producer
    copies that K block through the last V's slot; unpersisted, it is the
    consumers' own load). Right for S >= BLOCK_N (the lengths the tool
    times)."""
    return _replace(src, _PEEL_IF_EVEN, """            if True:
                # The persistent kernel's first block before the loop
""")


def _replace(src: str, old: str, new: str, count: int = 1) -> str:
    found = src.count(old)
    if found != count:
        raise ValueError(f"{os.path.relpath(KERNEL, common.REPO_DIR)} has changed: expected "
                         f"{count} of {old.splitlines()[0].strip()!r}, found {found}")
    return src.replace(old, new)


def variant_sources(files: Dict[str, str] = None) -> Dict[str, Tuple[str, bool, str]]:
    """name -> (kernel source, computes right results, what it leaves out);
    `files` (name -> path) adds kernel files as correct variants."""
    src = open(KERNEL, encoding="utf-8").read()
    out = {}
    for name, (what, edits) in VARIANTS.items():
        text = src
        for old, new in edits:
            text = _replace(text, old, new)
        out[name] = (text, not edits, what)
    out["fa3 order"] = (_fa3_order(src), True, "nothing: O rescaled between QK^T and PV")
    out["first block peeled"] = (_first_block_peeled(src), True,
                                 "the PV of block -1 (zero P) unpersisted too: block 0's "
                                 "QK^T and softmax before the loop")
    for pack in (8, 4):
        out[f"exp2 1/{pack} on FMA"] = (_exp2_on_fma(src, pack), True,
                                         f"nothing: 1 in {pack} of P's exp2 by a cubic on the "
                                         "FMA pipes")
    for name, path in (files or {}).items():
        if name in out:
            raise ValueError(f"--files: {name!r} is a variant's name already")
        with open(path, encoding="utf-8") as f:
            out[name] = (f.read(), True, f"nothing: the kernel of {os.path.basename(path)}")
    return out


def selected_sources(variants: List[str], files: Dict[str, str]
                     ) -> Dict[str, Tuple[str, bool, str]]:
    """The variants to run: those named in `variants` (all when empty),
    and the `files` always (naming one is why it was given)."""
    sources = variant_sources(files)
    unknown = set(variants) - set(sources)
    if unknown:
        raise SystemExit(f"--variants: unknown {sorted(unknown)}; known: {list(sources)}")
    if not variants:
        return sources
    return {name: sources[name] for name in sources if name in variants or name in files}


def _files(text: str) -> Dict[str, str]:
    """--files: 'name=path,name=path' -> {name: path}."""
    out = {}
    for item in (x for x in text.split(",") if x):
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise argparse.ArgumentTypeError(f"expected name=path, got {item!r}")
        out[name] = path
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seqlens", default="4096", type=lambda t: [int(x) for x in t.split(",")])
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--configs", default="128x128w8s2wspersist,128x128w8s2ws",
                   type=lambda t: [x for x in t.split(",") if x])
    p.add_argument("--variants", default="", type=lambda t: [x for x in t.split(",") if x],
                   help="only these variants (names as in the table; default all)")
    p.add_argument("--files", default={}, type=_files,
                   help="kernel files as variants, name=path,... (correct: checked)")
    p.add_argument("--causal", action="store_true")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--results-dir", default=os.path.join(common.BENCH_DIR, "results"))
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    now = datetime.datetime.now()
    sources = selected_sources(args.variants, args.files)
    workdir = tempfile.mkdtemp(prefix="attention_ceiling_")
    modules = {}
    for i, (name, (text, _, _)) in enumerate(sources.items()):
        path = os.path.join(workdir, f"attention_ceiling_{i}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        modules[name] = common.load_kernels(path, "warpforge")
    report = {"benchmark": "attention-ceiling", "date": now.strftime("%Y-%m-%d"),
              "environment": common.environment(torch), "args": vars(args).copy(), "cases": []}
    report["args"].pop("results_dir", None)
    causal = args.causal
    B, H, D = 4, 32, args.head_dim
    for S in args.seqlens:
        g = torch.Generator(device="cuda").manual_seed(S)
        q, k, v = (torch.randn((B, H, S, D), generator=g, device="cuda",
                               dtype=torch.float16) for _ in range(3))
        sm_scale = 1 / math.sqrt(D)
        ref = torch.nn.functional.scaled_dot_product_attention(
            q[:1, :2].double(), k[:1, :2].double(), v[:1, :2].double(), scale=sm_scale,
            is_causal=causal)
        fns, errs = {}, {}
        for name, m in modules.items():
            for text in args.configs:
                config = attention.config_of(m, text)
                if config.persistent and S % config.block_m:
                    continue
                o = torch.full_like(q, float("nan"))
                lse = torch.empty((B, H, S), device="cuda")
                kernel, grid, a, meta = m.attention_call(q, k, v, o, lse, causal, sm_scale,
                                                         config)
                fns[f"{name}:{text}"] = (lambda kernel=kernel, grid=grid, a=a, meta=meta:
                                         kernel[grid](*a, **meta))
                fns[f"{name}:{text}"]()
                torch.cuda.synchronize()
                if sources[name][1]:
                    errs[f"{name}:{text}"] = attention.check(torch, name, o[:1, :2], ref,
                                                            "fp16")["max_rel_err"]

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm_scale,
                                                                        is_causal=causal)
        fns["sdpa:cudnn"] = cudnn
        rounds: Dict[str, List[float]] = {}
        for _ in range(args.rounds):
            for key, ts in common.bench_interleaved(fns, 100, 300).items():
                rounds.setdefault(key, []).append(statistics.median(ts))
        flop = 4 * B * H * S * S * D / (2 if causal else 1)
        case = {"dtype": "float16", "B": B, "H": H, "S": S, "D": D, "causal": causal,
                "providers": {}}
        for key, ms in rounds.items():
            name = key.partition(":")[0]
            entry = {"ms": statistics.median(ms), "rounds_ms": ms,
                     "tflops": flop / statistics.median(ms) / 1e9}
            if key in errs:
                entry["max_rel_err"] = errs[key]
            if name in sources:
                entry["leaves_out"] = sources[name][2]
                entry["correct"] = sources[name][1]
            case["providers"][key] = entry
        report["cases"].append(case)
    path = common.write_json(report, args.results_dir, "attention-ceiling", now)
    headers, rows = table(report)
    common.write_markdown(path, report, "Attention forward without parts of its softmax",
                          "bench/tools/attention_ceiling.py",
                          f"B{B} H{H} D{D} fp16, {'causal' if causal else 'not causal'}, TFLOP/s "
                          f"(4 B H S^2 D{' / 2' if causal else ''}), median of {args.rounds} "
                          "interleaved rounds; the variants that leave something out compute "
                          "wrong results on purpose.", headers, rows)
    print(common.format_table(headers, rows))
    return 0


def table(report):
    headers = ["S", "variant", "leaves out"]
    configs = report["args"]["configs"]
    headers += [f"{c} TFLOP/s" for c in configs] + [f"{c} / cuDNN" for c in configs]
    rows = []
    for case in report["cases"]:
        prov = case["providers"]
        cudnn = prov.get("sdpa:cudnn", {}).get("tflops")
        names = dict.fromkeys(k.partition(":")[0] for k in prov if not k.startswith("sdpa"))
        for name in names:
            tf = [prov.get(f"{name}:{c}", {}).get("tflops") for c in configs]
            what = next((p["leaves_out"] for k, p in prov.items()
                         if k.startswith(name + ":")), "")
            rows.append([str(case["S"]), name, what] + [common.fmt(t) for t in tf]
                        + [common.fmt(t / cudnn if t and cudnn else None, ".2f") for t in tf])
        rows.append([str(case["S"]), "SDPA cuDNN", "", common.fmt(cudnn)] +
                    [""] * (2 * len(configs) - 1))
    return headers, rows


if __name__ == "__main__":
    sys.exit(main())
