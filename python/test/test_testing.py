"""warpforge.testing (summarize, do_bench and its variants), and the tests on
a GPU: an autotuned kernel and do_bench on the device. test_autotune.py says
where the autotuner's other tests are.
"""

import os
import subprocess
import sys
import time

import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge import testing

pytestmark = pytest.mark.usefixtures("autotune_isolated")


# ---------------------------------------------------------------------------
# warpforge.testing
# ---------------------------------------------------------------------------


def test_summarize_statistics():
    times = [4.0, 1.0, 3.0, 2.0]
    assert testing.summarize(times) == 2.0  # the lower middle value, as torch.median
    assert testing.summarize(times, return_mode="mean") == 2.5
    assert testing.summarize(times, return_mode="min") == 1.0
    assert testing.summarize(times, return_mode="max") == 4.0
    assert testing.summarize(times, return_mode="all") == times
    assert testing.summarize(times, quantiles=[0.5, 0.0, 1.0]) == [2.5, 1.0, 4.0]
    assert testing.summarize(times, quantiles=[0.25]) == pytest.approx(1.75)
    with pytest.raises(ValueError, match="return_mode must be one of"):
        testing.summarize(times, return_mode="average")
    with pytest.raises(ValueError, match=r"quantiles must lie in \[0, 1\]"):
        testing.summarize(times, quantiles=[50])


def test_do_bench_cpu_fills_the_repetition_budget():
    calls = []
    ms = testing.do_bench_cpu(lambda: calls.append(1), warmup=1, rep=2)
    assert ms >= 0 and len(calls) > 3
    low, mid, high = testing.do_bench_cpu(lambda: sum(range(1000)), warmup=0, rep=2,
                                          quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high


def test_do_bench_interleaved_takes_turns(monkeypatch):
    """Every iteration runs each function once, after a flush, in an order
    rotated by one; index j of the returned lists is one iteration."""
    sys.path.insert(0, os.path.dirname(__file__))
    import bench_fake_torch
    monkeypatch.setitem(sys.modules, "torch", bench_fake_torch)
    monkeypatch.setattr(testing, "L2_FLUSH_BYTES", 4096)  # NumPy would zero 256 MB
    calls = []

    def work(name, seconds):
        def fn():
            calls.append(name)
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                pass
        return fn

    bench_fake_torch.SLEEPS.clear()
    times = testing.do_bench_interleaved({"short": work("short", 1e-4),
                                          "long": work("long", 1e-3)}, warmup=2, rep=10)
    assert set(times) == {"short", "long"} and len(times["short"]) == len(times["long"]) > 3
    # The GPU is held before every timed launch (after one calibration),
    # for about twice the longest enqueue (1 ms here: about 2e6 fake cycles).
    # On a loaded machine both ways: the busy 1 ms can take several (9.4e6
    # in the GPU suite's 14 workers, 2026-11-28), and a calibration spin
    # preempted for a few ms makes a cycle look longer (4.6e5, the same
    # day), so the bounds are loose; what must hold is one hold throughout.
    calibration, *holds = bench_fake_torch.SLEEPS
    assert calibration == 1 << 20
    assert len(holds) == 2 * len(times["short"])
    assert len(set(holds)) == 1 and 1e5 < holds[0] < 5e7
    assert testing.summarize(times["long"]) > 5 * testing.summarize(times["short"])
    # One call each, then the turns: short-long, long-short, short-long, ...
    assert calls[:2] == ["short", "long"]
    turns = [tuple(calls[i:i + 2]) for i in range(2, len(calls), 2)]
    assert set(turns[0::2]) == {("short", "long")} and set(turns[1::2]) == {("long", "short")}
    with pytest.raises(ValueError, match="at least one function"):
        testing.do_bench_interleaved({})


def test_testing_imports_without_torch():
    code = "import sys, warpforge.testing; assert 'torch' not in sys.modules"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)), timeout=60)
    assert run.returncode == 0, run.stderr


def test_do_bench_without_cuda_says_why(monkeypatch):
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present")
    except ImportError:
        pass
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    with pytest.raises(RuntimeError, match=r"warpforge.testing.do_bench .*(PyTorch|CUDA)"):
        testing.do_bench(lambda: None)


def _no_cuda():
    try:
        import torch
        if torch.cuda.is_available():
            pytest.skip("a CUDA device is present")
    except ImportError:
        pass


def test_do_bench_in_the_interpreter_without_cuda_times_on_the_host(monkeypatch):
    # Programs written for the GPU (Triton's tutorials) call do_bench and
    # do_bench_cudagraph; in the interpreter without a GPU those time on the host.
    _no_cuda()
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.delenv("WARPFORGE_BENCHMARK_QUICK", raising=False)
    calls = []
    # 40 ms of repetitions: on a loaded 2-core machine a 2 ms sleep can take
    # 5, and 10 ms then timed only two calls.
    ms = testing.do_bench(lambda: (calls.append(1), time.sleep(0.002)), warmup=1, rep=40,
                          quantiles=[0.5, 0.2, 0.8])
    assert len(ms) == 3 and all(1.5 < m < 50 for m in ms)
    assert len(calls) >= 3
    assert 1.5 < testing.do_bench_cudagraph(lambda: time.sleep(0.002), rep=5) < 50


def test_quick_mode_times_one_call(monkeypatch):
    _no_cuda()
    monkeypatch.setenv("WARPFORGE_BENCHMARK_QUICK", "1")
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    assert testing.quick_mode()
    for bench in (testing.do_bench_cpu, testing.do_bench):
        calls = []
        ms = bench(lambda: (calls.append(1), time.sleep(0.001)), warmup=1000, rep=1000,
                   quantiles=[0.5, 0.2, 0.8])
        assert len(calls) == 2  # one untimed, one timed: not a second of repetitions
        assert len(ms) == 3 and ms[0] == ms[1] == ms[2] > 0.5
    assert testing.do_bench_cpu(lambda: None, return_mode="all") != []
    assert len(testing.do_bench_cpu(lambda: None, return_mode="all")) == 1
    monkeypatch.setenv("WARPFORGE_BENCHMARK_QUICK", "0")
    assert not testing.quick_mode()


# ---------------------------------------------------------------------------
# GPU
# ---------------------------------------------------------------------------


@triton.jit
def gpu_add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


GPU_CONFIGS = [triton.Config({"BLOCK_SIZE": 256}, num_warps=4),
               triton.Config({"BLOCK_SIZE": 1024}, num_warps=4),
               triton.Config({"BLOCK_SIZE": 4096}, num_warps=8)]


@pytest.mark.gpu
def test_gpu_autotuned_vector_add(monkeypatch):
    torch = pytest.importorskip("torch")
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    kernel = triton.autotune(GPU_CONFIGS, key=["n_elements"], warmup=5, rep=20,
                             cache_results=True)(gpu_add_kernel)
    g = torch.Generator(device="cuda").manual_seed(0)
    for n in (98431, 1_000_003):
        x = torch.rand(n, device="cuda", generator=g) + 0.5
        y = torch.rand(n, device="cuda", generator=g) - 1.5
        out = torch.full((n,), float("nan"), device="cuda")
        kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n)
        torch.cuda.synchronize()
        assert kernel.best_config in GPU_CONFIGS
        timings = kernel.configs_timings
        assert len(timings) == 3 and all(0 < t < 1000 for t in timings.values())
        torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert len(kernel.cache) == 2

    # Another autotuner (as in a new process) reads the timings from disk.
    def never(fn):
        raise AssertionError("benchmarked again")
    again = triton.autotune(GPU_CONFIGS, key=["n_elements"], do_bench=never,
                            cache_results=True)(gpu_add_kernel)
    out = torch.full((n,), float("nan"), device="cuda")
    again[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, out, n)
    torch.cuda.synchronize()
    assert again.best_config == kernel.best_config
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


@pytest.mark.gpu
def test_gpu_do_bench_times_a_real_function():
    torch = pytest.importorskip("torch")
    a = torch.randn(2048, 2048, device="cuda")
    b = torch.randn(2048, 2048, device="cuda")
    small = testing.do_bench(lambda: a[:256, :256] @ b[:256, :256], warmup=5, rep=20)
    large = testing.do_bench(lambda: a @ b, warmup=5, rep=20)
    assert 0 < small < large < 100
    low, mid, high = testing.do_bench(lambda: a @ b, warmup=5, rep=20,
                                      quantiles=[0.2, 0.5, 0.8])
    assert 0 < low <= mid <= high
    paired = testing.do_bench_interleaved({"small": lambda: a[:256, :256] @ b[:256, :256],
                                           "large": lambda: a @ b}, warmup=5, rep=20)
    assert len(paired["small"]) == len(paired["large"]) > 1
    assert 0 < testing.summarize(paired["small"]) < testing.summarize(paired["large"]) < 100
    graph_ms = testing.do_bench_cudagraph(lambda: a.add_(1.0), rep=10)
    assert 0 < graph_ms < 10
