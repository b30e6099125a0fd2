"""Parse, verify and transform IR text with the C++ core.

Every function takes and returns MLIR text; on failure it raises
`warpforge.errors.IRError` carrying the diagnostics.  The same pipelines run
from the command line: `warpforge-opt --pass-pipeline='builtin.module(NAME)'`.
"""

from typing import Any, Dict, List, Optional, Tuple


def _core():
    try:
        from . import _C
    except ImportError as e:  # pragma: no cover - depends on the build
        raise ImportError(
            "warpforge's compiler core (warpforge._C) is not built: run "
            "`pip install -e .` in the repository (see README.md)") from e
    return _C


def parse(text: str, filename: str = "<string>", debug_info: bool = False) -> str:
    """Parse and verify `text`; return it printed in canonical form.

    `filename` names the buffer in diagnostics about the text itself; ops
    that carry their own `loc(...)` are reported there.  With `debug_info`,
    the printed IR keeps its locations.
    """
    return _core().parse(text, filename, debug_info)


def run_pipeline(text: str, pipeline: str, filename: str = "<string>",
                 debug_info: bool = False, dump_prefix: str = "") -> str:
    """Run `pipeline` on `text` and return the result.

    `pipeline` is a registered pipeline name (see `pipelines()`), or a pass
    pipeline string such as `"canonicalize,cse"` or
    `"builtin.module(tile-optimize)"`.  With `dump_prefix` (e.g.
    `"dumps/add.tile"`), the IR after every pass is written to
    `<dump_prefix>.<NN>.<pass>.mlir`.
    """
    return _core().run_pipeline(text, pipeline, filename, debug_info, dump_prefix)


def run_stage(text: str, pipeline: str, options, filename: str = "<string>",
              debug_info: bool = False, dump_prefix: str = "",
              warnings: Optional[list] = None) -> Tuple[str, Dict[str, Any]]:
    """Run the named `pipeline`, built from `options` (a
    `warpforge._C.CompileOptions`, see `KernelOptions.to_core`), on `text`.

    Returns the IR and the module's integer and string attributes (the facts
    the stages recorded: `tilegpu.num-warps`, `tilegpu.shared`, ...). On
    failure the IRError's `attributes` hold them as far as the stages got.
    The stages' warnings (e.g. a loop warp specialization declined, with its
    place and reason) are appended to `warnings` as Diagnostic tuples
    (severity, file, line, column, message, formatted).
    """
    text, attributes, found = _core().run_stage(text, pipeline, options, filename,
                                                debug_info, dump_prefix)
    if warnings is not None:
        warnings.extend(found)
    return text, attributes


def run_stage_to_ptx(text: str, pipeline: str, options, filename: str = "<string>",
                     debug_info: bool = False, dump_prefix: str = "",
                     warnings: Optional[list] = None,
                     cc: int = 90,
                     times: Optional[Dict[str, float]] = None,
                     fp_fusion: bool = False,
                     reflect_ftz: bool = False,
                     print_ir: bool = True,
                     print_llvm_ir: bool = True
                     ) -> Tuple[str, Dict[str, Any], str, str]:
    """`run_stage`, then the LLVM IR and PTX of its output for sm_{cc}, the
    module kept in memory (the JIT's last stage): (IR, attributes, LLVM IR,
    PTX); `fp_fusion` lets LLVM fuse multiplies and adds into fma;
    `reflect_ftz` has libdevice flush denormals to zero; without
    `print_ir` (`print_llvm_ir`), the IR (the LLVM IR) is not printed ("" instead). The
    milliseconds of each step (parse, passes, print, translate,
    link-libdevice, optimize, print-llvm-ir, emit-ptx) are added to
    `times`."""
    text, attributes, found, llvm_ir, ptx, steps = _core().run_stage_to_ptx(
        text, pipeline, options, filename, debug_info, dump_prefix, cc, fp_fusion,
        reflect_ftz, print_ir, print_llvm_ir)
    if warnings is not None:
        warnings.extend(found)
    if times is not None:
        times.update(steps)
    return text, attributes, llvm_ir, ptx


def jit_stages() -> List[Tuple[str, str, str]]:
    """The JIT's stages in order: (key in `CompiledKernel.asm`, named
    pipeline, description)."""
    return [tuple(s) for s in _core().jit_stages()]


def pipelines() -> Dict[str, str]:
    """The registered named pipelines, name to description."""
    return dict(_core().pipelines())


def core_version() -> str:
    """The C++ core's version and the LLVM it was built with."""
    return _core().version()
