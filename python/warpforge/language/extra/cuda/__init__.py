"""`tl.extra.cuda`: as Triton's. `libdevice` is
`warpforge.language.extra.libdevice`; `gdc_wait` and
`gdc_launch_dependents` are programmatic dependent launch's device side
(Triton's tutorial 11), for kernels launched with `launch_pdl=True`."""

from .. import libdevice
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


__all__ = ["libdevice", "gdc_wait", "gdc_launch_dependents"]
