"""warpforge: an MLIR-based tile-language compiler for NVIDIA Hopper GPUs.

The compiler core is C++ (`warpforge._C`, over `libwarpforge.so`); Python
and C++ exchange IR as text.  `warpforge.ir` parses, verifies and transforms
IR; the `@warpforge.jit` frontend builds on it.
"""

__version__ = "0.1.0"

from . import errors, ir  # noqa: E402,F401
from .errors import (AutotuneError, CudaError, Diagnostic, DriverUnavailable,  # noqa: E402,F401
                     IRError, OutOfResources, TritonError)
from . import language  # noqa: E402,F401
from .compiler import CompilationError, KernelOptions  # noqa: E402,F401
from .compiler.options import (ClusterWarning, UnsupportedOptionWarning,  # noqa: E402,F401
                               WarpSpecializationWarning)
from .language.core import constexpr  # noqa: E402,F401
from .runtime.jit import JITFunction, jit, reinterpret  # noqa: E402,F401
from .runtime.allocation import set_allocator  # noqa: E402,F401
from .runtime.autotuner import Autotuner, Config, Heuristics, autotune, heuristics  # noqa: E402,F401
from . import testing  # noqa: E402,F401
from . import knobs  # noqa: E402,F401
from .runtime import dynamo as _dynamo  # noqa: E402

_dynamo.install()  # launches inside torch.compile: a graph break, not traced


def cdiv(x, y):
    """Ceiling division, for launch grids: `triton.cdiv(n, BLOCK)`."""
    return (x + y - 1) // y


def next_power_of_2(n: int) -> int:
    """The smallest power of 2 that is >= n (1 for n <= 1)."""
    n = int(n)
    return 1 << (n - 1).bit_length() if n > 1 else 1
