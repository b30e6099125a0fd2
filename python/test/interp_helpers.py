"""Helpers shared by the interpreter's test files (test_interpreter*.py)."""

import numpy as np

import warpforge
import warpforge.language as tl


def rand(rng, shape, dtype=np.float32, scale=1.0):
    """Normal values, never zero, in `dtype`."""
    v = (rng.standard_normal(shape) * scale).astype(dtype)
    return np.where(v == 0, np.asarray(1, dtype), v).astype(dtype)


def rand_int(rng, shape, lo, hi, dtype=np.int32):
    """Integers in [lo, hi) without 0."""
    v = rng.integers(lo, hi, shape).astype(dtype)
    return np.where(v == 0, np.asarray(hi - 1 if hi - 1 != 0 else lo, dtype), v).astype(dtype)


def rel_err(got, ref):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    return np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1e-30)


@warpforge.jit
def assert_on_tensor_kernel(x_ptr, LIMIT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    assert x < LIMIT, "an element reached the limit"
    tl.store(x_ptr + tl.arange(0, 16), x + 1)


@warpforge.jit
def assert_without_message_kernel(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    assert x < 5
    tl.store(x_ptr + tl.arange(0, BLOCK), x + 1)


@warpforge.jit
def assert_on_a_scalar_kernel(x_ptr):
    x = tl.load(x_ptr)
    assert x < 5
    tl.store(x_ptr, x + 1)
