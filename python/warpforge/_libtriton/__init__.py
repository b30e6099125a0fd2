"""Triton's C++ binding ``triton._C.libtriton``, the part Triton's tutorials
use: ``nvidia.cublas.CublasLt``, the cuBLAS baseline of tutorial 09
(persistent matmul).

This is torch's cuBLAS calls under Triton's binding name, for code written
against Triton's binding (``from triton._C.libtriton import nvidia``, which
scripts/triton_alias.py resolves here): ``CublasLt(workspace).matmul(a, b,
c)`` computes ``c = a @ b.T`` with ``torch.matmul(a, b.T, out=c)`` for fp16
and bf16, and with ``torch._scaled_mm`` (cuBLASLt, unit scales, fast
accumulation as Triton's binding sets for fp8) for float8_e4m3fn. Triton's
binding calls cuBLASLt itself, with the workspace it is given, on the
default stream; here torch's cuBLAS handle and workspace do the work on
torch's current stream, and the workspace given is checked and kept only.
The operands are checked as Triton's binding expects them (row-major,
contiguous, one CUDA device); a mismatch is a TypeError or ValueError that
says which. Nothing else of libtriton is here.
"""
from __future__ import annotations

import types

__all__ = ["nvidia"]


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - torch is optional for warpforge
        raise ImportError("nvidia.cublas.CublasLt needs torch (it runs torch's cuBLAS)") from e
    return torch


def _supported(torch):
    dtypes = [torch.float16, torch.bfloat16]
    if hasattr(torch, "float8_e4m3fn"):
        dtypes.append(torch.float8_e4m3fn)
    return dtypes


class CublasLt:
    """``CublasLt(workspace)``: `workspace` a CUDA uint8 tensor (Triton's
    binding hands it to cuBLASLt; torch's cuBLAS keeps its own, so it is only
    checked and kept). ``matmul(a, b, c)``: ``c = a @ b.T``."""

    def __init__(self, workspace):
        torch = _torch()
        if not isinstance(workspace, torch.Tensor):
            raise TypeError(f"CublasLt: the workspace must be a torch tensor, got "
                            f"{type(workspace).__name__}")
        if workspace.dtype != torch.uint8:
            raise TypeError(f"CublasLt: the workspace must be a uint8 tensor, got "
                            f"{workspace.dtype}")
        if workspace.device.type != "cuda":
            raise ValueError(f"CublasLt: the workspace must be a CUDA tensor, got one on "
                             f"{workspace.device}")
        self.workspace = workspace
        # One fp32 scale of 1 per device for _scaled_mm.
        self._ones = {}
        # Whether _scaled_mm writes fp8 into `c` directly (torch builds
        # differ); None until the first fp8 matmul tries.
        self._fp8_direct = None

    def __repr__(self):
        return f"CublasLt(workspace={self.workspace.numel()} bytes on {self.workspace.device})"

    def matmul(self, a, b, c) -> None:
        """c = a @ b.T: `a` M x K, `b` N x K, `c` M x N, all of a's dtype
        (float16, bfloat16 or float8_e4m3fn), contiguous, on one CUDA
        device."""
        torch = _torch()
        for label, t in (("a", a), ("b", b), ("c", c)):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"CublasLt.matmul: {label} must be a torch tensor, got "
                                f"{type(t).__name__}")
            if t.dim() != 2:
                raise ValueError(f"CublasLt.matmul: {label} must be 2-D, got shape "
                                 f"{tuple(t.shape)}")
        dtypes = _supported(torch)
        if a.dtype not in dtypes:
            raise TypeError(f"CublasLt.matmul: a's dtype {a.dtype} is not supported (one of "
                            f"{', '.join(str(d) for d in dtypes)})")
        if b.dtype != a.dtype or c.dtype != a.dtype:
            raise TypeError(f"CublasLt.matmul: a, b and c must have one dtype, got "
                            f"{a.dtype}, {b.dtype}, {c.dtype}")
        (m, k), (n, kb) = a.shape, b.shape
        if kb != k:
            raise ValueError(f"CublasLt.matmul: b must be N x K with a's K={k} (c = a @ b.T), "
                             f"got a {tuple(a.shape)} and b {tuple(b.shape)}")
        if tuple(c.shape) != (m, n):
            raise ValueError(f"CublasLt.matmul: c must be M x N = {(m, n)}, got "
                             f"{tuple(c.shape)}")
        if a.device.type != "cuda" or b.device != a.device or c.device != a.device:
            raise ValueError(f"CublasLt.matmul: a, b and c must be on one CUDA device, got "
                             f"{a.device}, {b.device}, {c.device}")
        for label, t in (("a", a), ("b", b), ("c", c)):
            if not t.is_contiguous():
                raise ValueError(f"CublasLt.matmul: {label} must be contiguous (row-major), "
                                 f"got strides {t.stride()}")
        if a.dtype in (torch.float16, torch.bfloat16):
            torch.matmul(a, b.T, out=c)
            return
        self._fp8(torch, a, b, c)

    def _fp8(self, torch, a, b, c) -> None:
        one = self._ones.get(a.device)
        if one is None:
            one = self._ones[a.device] = torch.ones((), device=a.device, dtype=torch.float32)
        # b.T of a contiguous N x K tensor is the column-major K x N operand
        # _scaled_mm (cuBLASLt) wants.
        kwargs = dict(scale_a=one, scale_b=one, use_fast_accum=True)
        if self._fp8_direct is not False:
            try:
                torch._scaled_mm(a, b.T, out_dtype=c.dtype, out=c, **kwargs)
                self._fp8_direct = True
                return
            except (RuntimeError, TypeError, NotImplementedError):
                if self._fp8_direct:  # it worked before: a real error
                    raise
                self._fp8_direct = False
        out = torch._scaled_mm(a, b.T, out_dtype=torch.bfloat16, **kwargs)
        out = out[0] if isinstance(out, tuple) else out  # torch < 2.5: (out, amax)
        c.copy_(out.to(c.dtype))


cublas = types.ModuleType("warpforge._libtriton.nvidia.cublas",
                          "cuBLAS (torch's) under Triton's binding name: CublasLt.")
cublas.CublasLt = CublasLt
nvidia = types.ModuleType("warpforge._libtriton.nvidia",
                          "Triton's libtriton.nvidia: only its cublas namespace.")
nvidia.cublas = cublas
