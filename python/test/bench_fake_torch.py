"""A stand-in for the few torch calls of the GPU paths of bench/memory_bound.py
and bench/matmul.py, over NumPy on the CPU, so that those paths run here:
tensors are NumPy arrays with torch's method names (warpforge's interpreter
launches on them), events read the host clock. It models nothing but those
calls' results."""

import time
import types

import numpy as np

__version__ = "fake"
float64, float32, float16, uint8, int32 = np.float64, np.float32, np.float16, np.uint8, np.int32
version = types.SimpleNamespace(cuda="fake")


class Tensor(np.ndarray):
    device = types.SimpleNamespace(type="cpu")

    def stride(self, dim=None):
        strides = tuple(s // self.itemsize for s in self.strides)
        return strides if dim is None else strides[dim]

    def data_ptr(self):
        return self.ctypes.data

    def element_size(self):
        return self.itemsize

    def view(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], tuple):
            out = self.reshape(shape[0])
            assert np.shares_memory(out, self), "view of a non-contiguous tensor"
            return out
        return super().view(*shape)

    def to(self, dtype):
        return self.astype(dtype)

    def float(self):
        return self.astype(np.float32)

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return np.asarray(self)

    def mean(self, dim=None):
        return np.asarray(self).mean(axis=dim).view(Tensor)

    def var(self, dim=None, correction=1):
        return np.asarray(self).var(axis=dim, ddof=correction).view(Tensor)

    def contiguous(self):
        return _tensor(self)

    def copy_(self, src):
        self[...] = src
        return self

    def zero_(self):
        self[...] = 0
        return self

    def fill_(self, value):
        self[...] = value
        return self

    def abs(self):
        return np.abs(self)


def _tensor(a):
    return np.ascontiguousarray(a).view(Tensor)


class Generator:
    def __init__(self, device=None):
        self.rng = np.random.default_rng(0)

    def manual_seed(self, seed):
        self.rng = np.random.default_rng(seed)
        return self


def randn(shape, generator, device=None):
    return _tensor(generator.rng.standard_normal(shape).astype(np.float32))


def randint(low, high, shape, dtype, device=None):
    return _tensor(np.random.default_rng(1).integers(low, high, shape).astype(dtype))


def full(shape, value, dtype, device=None):
    return _tensor(np.full(shape, value, dtype=dtype))


def empty(n, dtype, device=None):
    return _tensor(np.empty(n, dtype=dtype))


def empty_like(x):
    return _tensor(np.empty_like(x))


def equal(a, b):
    return bool(np.array_equal(a, b))


def add(x, y, out):
    np.add(x, y, out=out)
    return out


def matmul(a, b):
    return _tensor(np.matmul(a, b))


def isnan(x):
    return _tensor(np.isnan(x))


def rsqrt(x):
    return _tensor(1 / np.sqrt(x))


def softmax(x, dim):
    e = np.exp(x.astype(np.float32) - x.astype(np.float32).max(axis=dim, keepdims=True))
    return _tensor((e / e.sum(axis=dim, keepdims=True)).astype(x.dtype))


def _layer_norm(x, shape, weight, bias, eps):
    xf = np.asarray(x, np.float32)
    y = (xf - xf.mean(-1, keepdims=True)) / np.sqrt(xf.var(-1, keepdims=True) + eps)
    return _tensor((y * weight + bias).astype(x.dtype))


nn = types.SimpleNamespace(functional=types.SimpleNamespace(layer_norm=_layer_norm))


class _Event:
    def __init__(self, enable_timing=False):
        self.t = None

    def record(self):
        self.t = time.perf_counter()

    def elapsed_time(self, end):
        return (end.t - self.t) * 1e3


SLEEPS = []  # the cycles of each cuda._sleep


def _sleep(cycles):
    """The GPU's spin, on the host: a nanosecond a cycle."""
    SLEEPS.append(cycles)
    deadline = time.perf_counter() + cycles * 1e-9
    while time.perf_counter() < deadline:
        pass


cuda = types.SimpleNamespace(
    is_available=lambda: True, synchronize=lambda: None, empty_cache=lambda: None,
    _sleep=_sleep,
    Event=_Event, get_device_properties=lambda i: types.SimpleNamespace(
        name="fake GPU", major=9, minor=0, multi_processor_count=132,
        total_memory=80 * 2**30))
