"""Kernel objects, specialization and launch."""

from . import driver  # noqa: F401 - registers the GPU runtime with the compiler

from .autotuner import Autotuner, Config, Heuristics, autotune, heuristics
from .jit import JITFunction, jit

__all__ = ["Autotuner", "Config", "Heuristics", "JITFunction", "autotune", "heuristics", "jit"]
