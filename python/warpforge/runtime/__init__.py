"""Kernel objects, specialization and launch."""

from . import driver  # noqa: F401 - registers the GPU runtime with the compiler

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .jit import JITFunction, TensorWrapper, reinterpret

# As in Triton, `warpforge.runtime.jit` is the module (tests reach
# `triton.runtime.jit.reinterpret`); the decorator is `warpforge.jit`.
__all__ = ["Autotuner", "Config", "Heuristics", "JITFunction", "TensorWrapper", "autotune",
           "heuristics", "reinterpret"]
