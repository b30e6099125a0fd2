"""Running a kernel on NumPy arrays in the interpreter or on the GPU, for
test files whose kernels run on both (test_language_surface.py,
test_random.py)."""

import numpy as np


def launch(kernel, backend, *args, grid=(1,), **consts):
    """Runs `kernel` on NumPy arrays (copied to and from the GPU there)."""
    if backend == "gpu":
        import torch
        moved = [torch.from_numpy(a).cuda() if isinstance(a, np.ndarray) else a for a in args]
        kernel[grid](*moved, **consts)
        torch.cuda.synchronize()
        for a, m in zip(args, moved):
            if isinstance(a, np.ndarray):
                np.copyto(a, m.cpu().numpy())
    else:
        kernel[grid](*args, **consts)


def run_without_hang(script: str, timeout: float, what: str):
    """Runs `script` in a child Python in the test directory, which must
    print "no hang" within `timeout` seconds: a kernel that deadlocks fails
    the test instead of hanging the suite."""
    import os
    import subprocess
    import sys
    import pytest
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=timeout, cwd=here)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} hung ({timeout:.0f} s without finishing)")
    assert proc.returncode == 0 and "no hang" in proc.stdout, proc.stderr[-3000:]
