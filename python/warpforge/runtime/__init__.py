"""Kernel objects, specialization and launch."""

from .jit import JITFunction, jit

__all__ = ["JITFunction", "jit"]
