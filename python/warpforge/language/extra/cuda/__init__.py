"""`tl.extra.cuda`: as Triton's, `from warpforge.language.extra.cuda import
libdevice` gives `warpforge.language.extra.libdevice`."""

from .. import libdevice

__all__ = ["libdevice"]
