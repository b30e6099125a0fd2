"""`tl.extra`: Triton's vendor libraries. `libdevice` (also reachable as
`warpforge.language.extra.cuda.libdevice`) holds the CUDA libdevice functions
warpforge lowers."""

from . import cuda, libdevice

__all__ = ["cuda", "libdevice"]
