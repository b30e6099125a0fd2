"""The launch path's specialization key in C++ (_C.specialize,
python/src/specialize.cpp) equals the Python rules (jit.arg_spec and
jit.const_spec) on every kind of value, raises their errors, and the
generated launcher finds the kernels run() compiled."""

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge import _C
from warpforge.language.core import constexpr
from warpforge.runtime import jit
from warpforge.tools.tensor_descriptor import TensorDescriptor


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


F16, F32, C64 = Dtype("torch.float16"), Dtype("torch.float32"), Dtype("torch.complex64")


class Tensor:
    def __init__(self, ptr, dtype=F32):
        self.ptr, self.dtype, self.calls = ptr, dtype, 0

    def data_ptr(self):
        self.calls += 1
        return self.ptr


VALUES = [0, 1, 2, 16, -16, -8, 7, 2**31 - 16, 2**31, -2**31, -2**31 - 1, 2**63 - 1,
          2**63, 2**64 - 16, 0.5, -0.0, True, False, None, Tensor(4096), Tensor(4100),
          Tensor(0, F16), np.int64(32), np.int32(1), np.float32(2.0), constexpr(4),
          TensorDescriptor(Tensor(4096, F16), [64, 64], [64, 1], [16, 16])]
CONSTANTS = [0, 1, 64, 2.5, True, None, "relu", [1, 2], (3, 4), constexpr(8), constexpr([5])]


def python_specs(values, kinds):
    rule = {0: lambda v: jit.arg_spec(v), 1: lambda v: jit.arg_spec(v, False),
            2: jit.const_spec}
    return tuple(rule[k](v) for v, k in zip(values, kinds))


def native(values, kinds):
    return _C.specialize(tuple(values), bytes(kinds), jit.arg_spec, jit.const_spec,
                         jit._TORCH_DTYPES)


@pytest.mark.parametrize("kind", [0, 1])
def test_arguments_specialize_as_in_python(kind):
    jit.arg_spec(Tensor(0))  # the dtype's name, as a first launch records it
    jit.arg_spec(Tensor(0, F16))
    ours = native(VALUES, [kind] * len(VALUES))
    assert ours == python_specs(VALUES, [kind] * len(VALUES))
    assert hash(ours) == hash(python_specs(VALUES, [kind] * len(VALUES)))


def test_constexprs_specialize_as_in_python():
    assert native(CONSTANTS, [2] * len(CONSTANTS)) == python_specs(CONSTANTS,
                                                                   [2] * len(CONSTANTS))


def test_data_ptr_only_when_alignment_matters():
    t = Tensor(4096)
    native([t], [0])
    native([t], [1])
    assert t.calls == 1


def test_errors_are_the_python_rules():
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        native([2**64], [0])
    with pytest.raises(ValueError, match="does not fit in 64 bits"):
        native([-2**63 - 1], [0])
    with pytest.raises(TypeError, match="is not supported as a kernel argument"):
        native([Tensor(0, C64)], [0])
    with pytest.raises(TypeError, match="is not a tensor, an array"):
        native([object()], [0])
    with pytest.raises(ValueError, match="2 arguments for 1 kinds"):
        native([1, 2], [0])


@warpforge.jit
def add(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * alpha, mask=offs < n)


def test_the_launcher_finds_what_run_compiled(monkeypatch):
    """run() keys the cache with the Python rules; the generated launcher's
    C++ key must find the same entry (a miss would compile again)."""
    from warpforge.compiler.compiler import CompiledKernel
    launched = []
    monkeypatch.setattr(CompiledKernel, "launch",
                        lambda self, grid, args, stream=None: launched.append(self))
    x, y = Tensor(1 << 20), Tensor(1 << 21)
    add.cache.clear()
    add.run(x, y, 4001, 0.5, grid=(4,), BLOCK=1024)
    assert len(add.cache) == 1
    add[(4,)](x, y, 4001, 0.25, BLOCK=1024)
    add[lambda meta: (4,)](x, y, 4096, 2.0, BLOCK=1024)  # n % 16 == 0: another kernel
    assert len(add.cache) == 2 and launched[0] is launched[1] is not launched[2]


def test_warm_launch_falls_back_without_launching(monkeypatch):
    """_C.warm_launch hands back False (the general path: a miss, an
    argument the key rules reject, the interpreter) or the compiled kernel
    in a 1-tuple (a hit whose grid is a function or whose kernel is not
    loaded on the device) without launching; the launcher then takes the
    Python path, and returns the kernel as Triton's launches do."""
    from warpforge.compiler.compiler import CompiledKernel
    launched = []
    monkeypatch.setattr(CompiledKernel, "launch",
                        lambda self, grid, args, stream=None: launched.append(grid))
    x, y = Tensor(1 << 20), Tensor(1 << 21)
    add.cache.clear()
    add.warmup(x, y, 4001, 0.5, BLOCK=1024)
    launcher = add[(1,)].func
    state = launcher.__globals__["_state"]
    args = (x, y, 4001, 0.5, 1024)
    (hit,) = _C.warm_launch(state, (4,), args, {}, None)
    assert isinstance(hit, CompiledKernel)  # not loaded on a device: Python's
    assert _C.warm_launch(state, lambda m: (4,), args, {}, None) == (hit,)
    assert _C.warm_launch(state, (4,), args, {"num_warps": 8}, None) is False  # a miss
    assert _C.warm_launch(state, (4,), (x, y, 4001, object(), 1024), {}, None) is False
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    assert _C.warm_launch(state, (4,), args, {}, None) is False
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    assert _C.warm_launch(state, (4,), args, {}, None) == (hit,)
    assert add[(4,)](x, y, 4001, 0.5, BLOCK=1024) is hit  # launched by Python
    assert add.run(x, y, 4001, 0.5, BLOCK=1024, grid=(4,)) is hit
    with pytest.raises(TypeError, match="warm_launch"):
        _C.warm_launch(state, (4,), list(args), {}, None)
    # Through the launcher: the Python path launches what warm_launch found.
    add[(3,)](x, y, 4001, 0.5, BLOCK=1024)
    add[lambda meta: (meta["BLOCK"] // 512,)](x, y, 4001, 0.5, BLOCK=1024)
    assert launched == [(4, 1, 1), (4, 1, 1), (3, 1, 1), (2, 1, 1)] and len(add.cache) == 1


def test_setting_interpret_rebuilds_the_launcher():
    add[(1,)]
    assert add._launcher is not None
    add.interpret = False
    assert add._launcher is None and add.interpret is False
    add.interpret = None


@warpforge.jit
def scaled(x_ptr, y_ptr, n, alpha=2.0, BLOCK: tl.constexpr = 64):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * alpha, mask=offs < n)


def test_kernel_grid_binds_arguments_like_python(monkeypatch):
    """kernel[grid] is a _C.BoundLauncher: positional arguments, keywords
    naming parameters and defaults bind as Python binds them; option and
    stream keywords, missing or repeated arguments go to the Python launcher,
    which launches or raises with the kernel's name."""
    from warpforge.compiler.compiler import CompiledKernel
    launched = []
    monkeypatch.setattr(CompiledKernel, "launch",
                        lambda self, grid, args, stream=None: launched.append((grid, args)))
    x, y = Tensor(1 << 20), Tensor(1 << 21)
    bound = scaled[(2,)]
    assert isinstance(bound, _C.BoundLauncher) and bound.grid == (2,)
    assert scaled[(2,)] is bound  # kept per tuple grid
    assert callable(bound.func) and bound.func.__name__ == "scaled"
    bound(x, y, 100)
    bound(x, y_ptr=y, n=100, alpha=3.0)
    scaled[(2,)](n=100, y_ptr=y, x_ptr=x, BLOCK=32)
    scaled[(2,)](x, y, 100, num_warps=2)  # an option: the Python launcher
    scaled[(2,)](x, y, 100, stream=7)
    assert [args[2:] for _, args in launched] == [
        (100, 2.0, 64), (100, 3.0, 64), (100, 2.0, 32), (100, 2.0, 64), (100, 2.0, 64)]
    assert all(args[:2] == (x, y) for _, args in launched)
    with pytest.raises(TypeError, match=r"scaled\(\) missing 1 required positional argument: 'n'"):
        scaled[(2,)](x, y)
    with pytest.raises(TypeError, match="multiple values for argument 'x_ptr'"):
        scaled[(2,)](x, y, 100, x_ptr=x)
    with pytest.raises(TypeError, match="takes from 3 to 5 positional arguments but 6"):
        scaled[(2,)](x, y, 100, 1.0, 64, 7)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        scaled[(2,)](x, y, 100, bogus=1)
    # Function grids are not kept (their closures may hold tensors).
    assert scaled[lambda m: (1,)] is not scaled[lambda m: (1,)]
    with pytest.raises(TypeError, match=r"BoundLauncher\(grid, spec\)"):
        _C.BoundLauncher((1,), (), x=1)
    with pytest.raises(TypeError, match="spec is"):
        _C.BoundLauncher((1,), (1, 2))
