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
