"""The NVIDIA backend: MLIR in the LLVM and NVVM dialects -> LLVM IR -> PTX -> cubin.

Thin wrappers over the C++ core (third_party/nvidia); every failure raises
`warpforge.errors.IRError` with the diagnostics: at the MLIR op a translation
failed on, or ptxas's own message when it rejects the PTX.  The same stages
run from the command line: `warpforge-opt --emit=llvm-ir|ptx`.
"""

import re
from typing import Dict, Optional, Tuple

from .. import ir


def to_llvm_ir(mlir_text: str, name: str, cc: int = 90, *, fp_fusion: bool = False,
               reflect_ftz: bool = False) -> str:
    """Optimized LLVM IR for `mlir_text`, a module whose kernels are
    `llvm.func`s marked `nvvm.kernel`, for compute capability `cc`.

    CUDA's libdevice is linked when the module calls `__nv_*` functions;
    `name` names the buffer in diagnostics. `fp_fusion` and `reflect_ftz`
    are the kernel options' enable_fp_fusion and enable_reflect_ftz.
    """
    return ir._core().translate_to_llvm_ir(mlir_text, name, cc, 3, fp_fusion, reflect_ftz)


def to_ptx(llvm_ir: str, cc: int = 90) -> str:
    """PTX for `llvm_ir` (as `to_llvm_ir` returns it): `.target sm_90a` for 90."""
    return ir._core().compile_to_ptx(llvm_ir, cc)


def to_llvm_ir_and_ptx(mlir_text: str, name: str, cc: int = 90) -> Tuple[str, str]:
    """`to_llvm_ir` then `to_ptx`, the LLVM module kept in memory between
    them (the JIT's way: no second parse of the LLVM IR): (LLVM IR, PTX)."""
    llir, ptx = ir._core().compile_to_llvm_ir_and_ptx(mlir_text, name, cc)
    return llir, ptx


def to_cubin(ptx: str, cc: int = 90, max_registers: int = 0, *,
             ptxas_path: str = "") -> Tuple[bytes, str]:
    """Assemble `ptx` with CUDA's ptxas: (the cubin, ptxas's `-v` log).

    `max_registers` caps the registers per thread (0: no cap).  ptxas is
    `ptxas_path`, or the first found in $CUDA_HOME/bin, $CUDA_PATH/bin, PATH
    and /usr/local/cuda/bin.  Read the log with `parse_ptxas_log`.
    """
    from .._process import process_tag
    _remove_stale_temporaries()
    # Named by this process, so that a later sweep removes the files of a
    # run that was killed as soon as the process is gone.
    return ir._core().assemble_ptx(ptx, cc, max_registers, ptxas_path,
                                   f"warpforge-{process_tag()}")


def with_min_ctas_per_sm(ptx: str, name: str, count: int = 1) -> Optional[str]:
    """`ptx` with `.minnctapersm count` on kernel `name` (None when it has
    no such kernel or already says).

    Given `.reqntid`, ptxas budgets registers for several CTAs per SM and
    spills to stay within that budget (256 threads: 128 registers, so that
    two fit).  `.minnctapersm 1` says one CTA per SM is enough, as CUTLASS's
    kernels say with `__launch_bounds__(threads, 1)`: the registers the code
    needs, up to 255, without spills.  The compiler asks for it only for a
    kernel that spilled without it (compiler._compile_to_binary)."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\(", ptx)
    if m is None:
        return None
    body = ptx.find("\n{", m.end())
    if body < 0 or ".minnctapersm" in ptx[m.end():body]:
        return None
    return ptx[:body] + f"\n.minnctapersm {count}" + ptx[body:]


_STALE_AFTER_SECONDS = 3600
_swept = False


def _remove_stale_temporaries() -> None:
    """Once per process: the PTX, cubin and log files of ptxas runs whose
    process was killed (the backend removes its own when it finishes) go:
    at once when their name carries the process's tag
    (`warpforge-<_process.process_tag()>-*`) and that process is gone,
    else when they are more than an hour old."""
    global _swept
    if _swept:
        return
    _swept = True
    import glob
    import os
    import tempfile
    import time
    from .._process import owner_is_gone
    now = time.time()
    for suffix in ("ptx", "cubin", "log"):
        for path in glob.glob(os.path.join(tempfile.gettempdir(), f"warpforge-*.{suffix}")):
            try:
                if now - os.stat(path).st_mtime > _STALE_AFTER_SECONDS or \
                        owner_is_gone(os.path.basename(path)):
                    os.unlink(path)
            except OSError:
                pass


_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                    r"(\d+) bytes spill loads")
_REGISTERS = re.compile(r"Used (\d+) registers")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SHARED = re.compile(r"(\d+) bytes smem")
# ptxas gave up pipelining the kernel's wgmma (C7508 to C7520: each names a
# reason; the kernel still computes the right result, more slowly).
_SERIALIZED = re.compile(r"\((C75\d\d)\) Potential Performance Loss: wgmma\.mma_async "
                         r"instructions are serialized.*function '([^']+)'")
_FIELDS = ("registers", "spill_stores", "spill_loads", "shared", "stack_frame",
           "barriers", "wgmma_serialized")


def parse_ptxas_log(log: str) -> Dict[str, Dict[str, int]]:
    """Per kernel, what `ptxas -v` reported about it.

    Returns {kernel name: {"registers", "spill_stores", "spill_loads",
    "shared", "stack_frame", "barriers", "wgmma_serialized"}}: registers per
    thread; bytes of spill stores, spill loads, static shared memory and
    stack frame; named barriers used; 1 where ptxas serialized the kernel's
    wgmma instructions (its C75xx performance warning).  Device functions
    ptxas compiled separately are left out.
    """
    kernels: Dict[str, Dict[str, int]] = {}
    name = None  # the kernel the lines being read describe
    for line in log.splitlines():
        if m := _SERIALIZED.search(line):
            kernels.setdefault(m.group(2), dict.fromkeys(_FIELDS, 0))["wgmma_serialized"] = 1
        elif m := _ENTRY.search(line):
            name = m.group(1)
            kernels.setdefault(name, dict.fromkeys(_FIELDS, 0))
        elif m := _PROPERTIES.search(line):
            if m.group(1) != name:  # a device function's properties
                name = None
        elif name is not None:
            info = kernels[name]
            if m := _FRAME.search(line):
                info["stack_frame"], info["spill_stores"], info["spill_loads"] = (
                    int(g) for g in m.groups())
            elif m := _REGISTERS.search(line):
                info["registers"] = int(m.group(1))
                if b := _BARRIERS.search(line):
                    info["barriers"] = int(b.group(1))
                if s := _SHARED.search(line):
                    info["shared"] = int(s.group(1))
    return kernels
