"""scripts/triton_tutorials.py on stand-in tutorials (Triton's own are not in
this repository): one that runs a kernel and a quick perf_report, one that
fails, one that uses a name warpforge lacks, one that calls CUDA torch
itself, and the skipped Blackwell one."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "triton_tutorials.py"

RUNS = textwrap.dedent('''
    import os
    import numpy as np
    import triton
    import triton.language as tl
    assert os.environ["WARPFORGE_BENCHMARK_QUICK"] == "1" and os.environ["TRITON_INTERPRET"] == "1"
    DEVICE = triton.runtime.driver.active.get_active_torch_device()

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)

    x = np.arange(100, dtype=np.float32)
    out = np.empty_like(x)
    add_kernel[(2,)](x, x, out, 100, BLOCK=64)
    assert (out == 2 * x).all()
    sizes = []

    @triton.testing.perf_report(triton.testing.Benchmark(
        x_names=["n"], x_vals=[64, 128, 256], line_arg="p", line_vals=["a"], line_names=["a"],
        plot_name="add", args={}, ylabel="ms"))
    def bench(n, p):
        sizes.append(n)
        return triton.testing.do_bench(lambda: add_kernel[(1,)](x, x, out, 64, BLOCK=64))

    bench.run(print_data=True, show_plots=True)
    assert sizes == [64], sizes
    print("ran to the end", DEVICE)
''')


@pytest.mark.filterwarnings("ignore")
def test_tutorials_script_statuses(tmp_path):
    pytest.importorskip("torch")  # the tutorials' driver.active needs torch
    tut = tmp_path / "tutorials"
    tut.mkdir()
    (tut / "01-runs.py").write_text(RUNS)
    (tut / "02-fails.py").write_text("import triton\nraise ValueError('broken\\nsecond line')\n")
    (tut / "03-missing.py").write_text("import triton.language as tl\ntl.no_such_op_in_warpforge()\n")
    (tut / "04-cuda.py").write_text("import torch\nx = torch.zeros(1)\nassert x.is_cuda\n")
    (tut / "10-block-scaled-matmul.py").write_text("raise SystemExit(3)\n")
    (tut / "README.rst").write_text("not a tutorial\n")
    out = tmp_path / "result.json"
    logs = tmp_path / "logs"
    proc = subprocess.run([sys.executable, str(SCRIPT), "--tutorials", str(tut), "--interpret",
                           "--json", str(out), "--logs", str(logs), "--timeout", "240"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(out.read_text())
    rows = data["tutorials"]
    assert list(rows) == ["01-runs.py", "02-fails.py", "03-missing.py", "04-cuda.py",
                          "10-block-scaled-matmul.py"]
    assert rows["01-runs.py"]["status"] == "ran", rows["01-runs.py"]
    # The active device: the CPU here, cuda:0 on a machine with a GPU.
    assert "ran to the end" in (logs / "01-runs.log").read_text()
    assert rows["02-fails.py"]["status"] == "failed"
    assert rows["02-fails.py"]["error"] == "ValueError: broken"
    assert rows["02-fails.py"]["line"].startswith("02-fails.py:2: raise ValueError")
    assert rows["03-missing.py"]["status"] == "failed"
    assert "WarpforgeMissing: triton.language.no_such_op_in_warpforge" in rows["03-missing.py"]["error"]
    assert "triton.language.no_such_op_in_warpforge" in rows["03-missing.py"]["stubbed"]
    assert rows["04-cuda.py"]["status"] == "needs GPU"
    assert rows["10-block-scaled-matmul.py"]["status"] == "skipped"
    assert "Blackwell" in rows["10-block-scaled-matmul.py"]["reason"]
    assert data["counts"] == {"ran": 1, "failed": 2, "needs GPU": 1, "timeout": 0, "skipped": 1}
    assert "| 02-fails.py | failed |" in proc.stdout
    assert data["mode"] == "interpret" and data["quick"] is True
