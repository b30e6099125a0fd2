"""`tl.extra.cuda`: as Triton's. `libdevice` is
`warpforge.language.extra.libdevice`; `gdc_wait` and
`gdc_launch_dependents` are programmatic dependent launch's device side
(Triton's tutorial 11), for kernels launched with `launch_pdl=True`;
`smid` and `globaltimer` read PTX's special registers through
`tl.inline_asm_elementwise`."""

from .. import libdevice
from ... import core as _core
from ... import semantic


def gdc_wait():
    """Waits until the grids this one depends on (the kernel before it on the
    stream, when this one was launched with launch_pdl=True) have completed
    and their memory writes are visible. Code before it may run while they
    still run, so it must not read what they write. Without PDL, nothing to
    wait for. sm_90 and later (PTX griddepcontrol.wait)."""
    semantic.grid_dependency("wait")


def gdc_launch_dependents():
    """Lets the next kernel on the stream (launched with launch_pdl=True)
    start once every program of this one has called it or finished; that
    kernel still waits at its gdc_wait() for this one to complete. sm_90
    and later (PTX griddepcontrol.launch_dependents)."""
    semantic.grid_dependency("launch_dependents")


def smid():
    """The index of the SM the calling thread runs on (PTX `%smid`): an
    int32, as Triton's."""
    return semantic.inline_asm_elementwise("mov.u32 $0, %smid;", "=r", [],
                                           _core.int32, True, 1)


def globaltimer():
    """The GPU's global nanosecond timer (PTX `%globaltimer`): an int64,
    read where it stands (not moved or merged), as Triton's."""
    return semantic.inline_asm_elementwise("mov.u64 $0, %globaltimer;", "=l", [],
                                           _core.int64, False, 1)


def num_warps():
    """The kernel's `num_warps` launch option, a constexpr (with warp
    specialization, the warps of one consumer group, as the option says)."""
    options = getattr(_core.current_builder(), "options", None)
    return _core.constexpr(options.num_warps if options is not None else 4)


def num_threads():
    """32 * num_warps(), a constexpr: `tl.arange(0, tl.extra.cuda.num_threads())`."""
    return _core.constexpr(32 * _core.constexpr(num_warps()).value)


__all__ = ["libdevice", "gdc_wait", "gdc_launch_dependents", "smid", "globaltimer",
           "num_warps", "num_threads"]
