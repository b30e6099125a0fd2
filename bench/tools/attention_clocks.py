"""Is the attention forward bound by the power limit? The benchmark kernel
and bench/tools/attention_ceiling.py's copies of it (parts of the softmax
taken out), each run back to back for a while, with the SM clock and the
board power sampled through NVML meanwhile (and cuDNN's SDPA as a
yardstick):

    python bench/tools/attention_clocks.py [--seqlen 4096]
        [--config 128x128w8s2wspersist] [--variants full,no exp2,products only]
        [--seconds 2]

If a copy that does less work per tile runs at a higher clock under the
same power, the kernel is bound by the power limit: then every
instruction (and byte) it saves buys clock, not only issue slots. Prints
and writes (--results-dir) per variant: TFLOP/s, mean SM clock (MHz),
mean power (W), the power limit, and the share of the fp16 tensor peak at
the clock it ran. NVML (nvidia-ml-py) or nvidia-smi samples.

On the H100 (2026-11-27, bench/results/attention-clocks-2026-11-27-212838.md,
D128 S4096, persistent 128x128) every variant ran at the 700 W cap (670 W
measured) and the lighter ones at lower clocks: the full kernel 585 TFLOP/s
at 1599 MHz (68% of the peak at that clock), without exp2 637 at 1493 MHz
(79%), products only 664 at 1544 MHz (79%), cuDNN 564 at 1546 MHz (67%).
So what the softmax costs is time per clock, not clock.
"""

import argparse
import datetime
import math
import os
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import attention  # noqa: E402
import attention_ceiling  # noqa: E402
import common  # noqa: E402


class Sampler:
    """SM clock (MHz) and power (W) of device `index`, every 10 ms, in a
    thread, between start() and stop(): through NVML (nvidia-ml-py), or
    `nvidia-smi` where that module is missing."""

    def __init__(self, index: int):
        self._index = index
        try:
            import pynvml
            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(index)
            self.limit_w = pynvml.nvmlDeviceGetEnforcedPowerLimit(self._handle) / 1000
        except ImportError:
            self._nvml = None
            self.limit_w = float(self._smi("power.limit")[0][0])

    def _smi(self, *fields, loop_ms=None):
        import subprocess
        cmd = ["nvidia-smi", f"--id={self._index}", f"--query-gpu={','.join(fields)}",
               "--format=csv,noheader,nounits"]
        if loop_ms is None:
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            return [line.split(", ") for line in out.strip().splitlines()]
        return subprocess.Popen(cmd + [f"-lms={loop_ms}"], stdout=subprocess.PIPE, text=True)

    def start(self):
        self._samples, self._running = [], True
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        if self._nvml is None:
            proc = self._smi("clocks.sm", "power.draw", loop_ms=10)
            for line in proc.stdout:
                clock, power = line.strip().split(", ")
                self._samples.append((float(clock), float(power)))
                if not self._running:
                    break
            proc.terminate()
            return
        nv, h = self._nvml, self._handle
        while self._running:
            self._samples.append((nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
                                  nv.nvmlDeviceGetPowerUsage(h) / 1000))
            time.sleep(0.01)

    def stop(self):
        self._running = False
        self._thread.join()
        # The first samples may still show the previous variant's state.
        kept = self._samples[len(self._samples) // 5:] or self._samples
        return (statistics.mean(c for c, _ in kept), statistics.mean(p for _, p in kept))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seqlen", type=int, default=4096)
    p.add_argument("--head-dim", type=int, default=128)
    p.add_argument("--config", default="128x128w8s2wspersist")
    p.add_argument("--variants", default="full,no exp2,products only",
                   type=lambda t: [x for x in t.split(",") if x])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--results-dir", default=os.path.join(common.BENCH_DIR, "results"))
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    sources = attention_ceiling.variant_sources()
    unknown = set(args.variants) - set(sources)
    if unknown:
        raise SystemExit(f"--variants: unknown {sorted(unknown)}; known: {list(sources)}")
    now = datetime.datetime.now()
    workdir = tempfile.mkdtemp(prefix="attention_clocks_")
    B, H, S, D = 4, 32, args.seqlen, args.head_dim
    g = torch.Generator(device="cuda").manual_seed(S)
    q, k, v = (torch.randn((B, H, S, D), generator=g, device="cuda", dtype=torch.float16)
               for _ in range(3))
    sm_scale = 1 / math.sqrt(D)
    fns = {}
    for i, name in enumerate(args.variants):
        path = os.path.join(workdir, f"attention_clocks_{i}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(sources[name][0])
        m = common.load_kernels(path, "warpforge")
        o = torch.empty_like(q)
        lse = torch.empty((B, H, S), device="cuda")
        kernel, grid, a, meta = m.attention_call(q, k, v, o, lse, False, sm_scale,
                                                 attention.config_of(m, args.config))
        fns[name] = (lambda kernel=kernel, grid=grid, a=a, meta=meta: kernel[grid](*a, **meta))

    def cudnn():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm_scale)
    fns["sdpa:cudnn"] = cudnn
    sampler = Sampler(torch.cuda.current_device())
    flop = 4 * B * H * S * S * D
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    rows, report = [], {"benchmark": "attention-clocks", "date": now.strftime("%Y-%m-%d"),
                        "environment": common.environment(torch), "args": vars(args).copy(),
                        "power_limit_w": sampler.limit_w, "variants": {}}
    report["args"].pop("results_dir", None)
    for name, fn in fns.items():
        fn()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        sampler.start()
        launches, t0 = 0, time.perf_counter()
        start.record()
        while time.perf_counter() - t0 < args.seconds:
            for _ in range(10):
                fn()
            launches += 10
            torch.cuda.synchronize()
        end.record()
        torch.cuda.synchronize()
        clock, power = sampler.stop()
        ms = start.elapsed_time(end) / launches
        # Hopper's dense fp16 wgmma rate: 4096 flop per clock per SM (989
        # TFLOP/s at 1830 MHz on 132 SMs), at the clock this variant ran.
        peak = 4096 * sms * clock * 1e6
        entry = {"ms": ms, "tflops": flop / ms / 1e9, "sm_clock_mhz": clock, "power_w": power,
                 "of_peak_at_clock": flop / (ms * 1e-3) / peak,
                 "leaves_out": sources[name][2] if name in sources else ""}
        report["variants"][name] = entry
        rows.append([name, common.fmt(entry["tflops"]), f"{clock:.0f}", f"{power:.0f}",
                     f"{100 * entry['of_peak_at_clock']:.1f}%", entry["leaves_out"]])
    headers = ["variant", "TFLOP/s", "SM MHz", "W", "of peak at clock", "leaves out"]
    path = common.write_json(report, args.results_dir, "attention-clocks", now)
    common.write_markdown(path, report, "Attention forward: speed, clock and power",
                          "bench/tools/attention_clocks.py",
                          f"B{B} H{H} S{S} D{D} fp16, {args.config}, each variant run back to "
                          f"back for {args.seconds} s; power limit {sampler.limit_w:.0f} W.",
                          headers, rows)
    print(f"power limit {sampler.limit_w:.0f} W")
    print(common.format_table(headers, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
