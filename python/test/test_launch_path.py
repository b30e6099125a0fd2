"""kernel[grid](...): the generated launcher and the general path agree."""

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.compiler.compiler import CompiledKernel

import zoo


@pytest.fixture
def launches(monkeypatch):
    calls = []
    monkeypatch.setattr(CompiledKernel, "launch",
                        lambda self, grid, args, stream=None: calls.append((self, grid, args)))
    return calls


X = np.zeros(1024, np.float32)


def runtime_args(kernel, args):
    """What the C++ launcher packs from the parameters the JIT passes."""
    return [args[kernel.params.index(name)] for name in kernel.signature]


def test_warm_launch_hits_and_passes_all_parameters(launches):
    zoo.add_kernel.cache.clear()
    zoo.add_kernel[(4,)](X, X, X, 1000, BLOCK_SIZE=256)
    zoo.add_kernel[(4,)](X, X, X, 1000, BLOCK_SIZE=256)
    assert len(zoo.add_kernel.cache) == 1
    (k1, grid1, args1), (k2, grid2, args2) = launches
    assert k1 is k2 and grid1 == grid2 == (4, 1, 1)
    assert args1 == args2 and type(args1) is tuple and len(args1) == 5
    assert k1.params == ["x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"]
    run = runtime_args(k1, args1)
    assert len(run) == 4 and run[3] == 1000  # BLOCK_SIZE is baked in


def test_general_path_passes_the_same_parameters(launches):
    zoo.add_kernel.cache.clear()
    zoo.add_kernel.run(X, X, X, 1000, BLOCK_SIZE=256, grid=(4,))
    zoo.add_kernel[(4,)](X, X, X, 1000, BLOCK_SIZE=256)
    (k1, _, args1), (k2, _, args2) = launches
    assert k1 is k2 and args1 == args2 and len(args1) == 5


def test_integer_one_is_folded_out_of_the_arguments(launches):
    zoo.add_kernel[(1,)](X, X, X, 1, BLOCK_SIZE=256)
    kernel, _, args = launches[-1]
    assert len(runtime_args(kernel, args)) == 3 and kernel.constants["n_elements"] == 1


def test_callable_grid_sees_arguments_and_options(launches):
    seen = {}

    def grid(meta):
        seen.update(meta)
        return (triton_cdiv(meta["n_elements"], meta["BLOCK_SIZE"]),)

    zoo.add_kernel[grid](X, X, X, 1000, BLOCK_SIZE=256, num_warps=8)
    zoo.add_kernel[grid](X, X, X, 1000, BLOCK_SIZE=256, num_warps=8)
    assert [g for _, g, _ in launches] == [(4, 1, 1), (4, 1, 1)]
    assert seen["num_warps"] == 8 and seen["BLOCK_SIZE"] == 256
    assert launches[0][0].options.num_warps == 8


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_option_that_is_also_a_parameter(launches):
    zoo.softmax_kernel[(2,)](X, X, 781, 781, 17, 781, BLOCK_SIZE=1024, num_stages=2)
    zoo.softmax_kernel[(2,)](X, X, 781, 781, 17, 781, BLOCK_SIZE=1024, num_stages=2)
    k1, k2 = launches[0][0], launches[1][0]
    assert k1 is k2 and k1.options.num_stages == 2 and k1.constants["num_stages"] == 2


def test_keyword_arguments_and_defaults(launches):
    @warpforge.jit
    def with_default(x_ptr, n, BLOCK: tl.constexpr = 128):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 1.0, mask=offs < n)

    with_default[(1,)](x_ptr=X, n=100)
    with_default[(1,)](X, 100)
    assert launches[0][0] is launches[1][0]
    assert launches[0][0].constants["BLOCK"] == 128


@pytest.mark.parametrize("grid", [(), (1, 2, 3, 4), (-1,)])
def test_bad_grids(launches, grid):
    with pytest.raises(ValueError, match="grid must be 1 to 3 non-negative integers"):
        zoo.add_kernel[grid](X, X, X, 1000, BLOCK_SIZE=256)


def test_wrong_argument_count(launches):
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        zoo.add_kernel[(1,)](X, X, X, BLOCK_SIZE=256)


def test_launch_without_a_driver_is_a_clear_error(tmp_path):
    # In a fresh interpreter: once a process has opened the driver (on a GPU
    # machine, earlier tests did) it keeps it.
    import os
    import subprocess
    import sys
    script = (
        "import sys, numpy as np\n"
        f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
        "import zoo\n"
        "x = np.ones(1000, np.float32)\n"
        "try:\n"
        "    zoo.add_kernel[(1,)](x, x, x, 1000, BLOCK_SIZE=256)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n")
    env = dict(os.environ, WARPFORGE_LIBCUDA="/nonexistent/libcuda.so.1",
               WARPFORGE_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                         text=True, timeout=120).stdout
    assert "cannot launch kernel 'add_kernel'" in out
    assert "cannot open the CUDA driver library" in out
