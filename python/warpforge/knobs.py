"""Triton's `triton.knobs` for code written against it: the settings warpforge
reads from its environment, as attributes.

Each knob is a view of one environment variable, which stays the settings'
one home: reading a knob reads the variable, setting it sets the variable
(`None` or `del` removes it), so a knob set in Python and a variable set in
the shell are the same thing, and both reach the compile cache's key and the
worker processes the autotuner starts.  This is why `propagate_env` is always
True here.  Only knobs that warpforge honours exist; a name Triton has and
warpforge does not raises AttributeError naming the knobs there are,
instead of being accepted and ignored.

    import warpforge as triton
    triton.knobs.cache.dir = "/tmp/wf-cache"      # WARPFORGE_CACHE_DIR
    triton.knobs.nvidia.ptxas.version             # "13.0"
"""
from __future__ import annotations

import functools
import os
import re
import subprocess
from typing import Dict, Optional

__all__ = ["base_knobs", "env_knob", "cache", "compilation", "runtime", "language",
           "autotuning", "nvidia", "propagate_env"]

# Knobs are always the environment (see the module's docstring).
propagate_env = True


class env_knob:
    """A knob that is the environment variable `key`: a string, or with
    `kind=bool` a flag ("1" set, "0"/"" or absent unset) as warpforge reads
    its flags."""

    def __init__(self, key: str, default=None, kind=str, doc: str = ""):
        self.key, self.default, self.kind, self.__doc__ = key, default, kind, doc

    def __set_name__(self, owner, name):
        self.name = name

    def get(self):
        raw = os.environ.get(self.key)
        if self.kind is bool:
            return self.default if raw is None else raw not in ("", "0")
        if raw is None:
            return self.default
        return self.kind(raw)

    def set(self, value) -> None:
        if value is None:
            os.environ.pop(self.key, None)
        elif self.kind is bool:
            os.environ[self.key] = "1" if value else "0"
        else:
            os.environ[self.key] = str(value)

    def __get__(self, obj, owner=None):
        return self if obj is None else self.get()

    def __set__(self, obj, value):
        self.set(value)

    def __delete__(self, obj):
        self.set(None)


class base_knobs:
    """A set of knobs (`knobs.cache`, `knobs.runtime`, ...)."""

    @property
    def knob_descriptors(self) -> Dict[str, env_knob]:
        found = {}
        for cls in reversed(type(self).__mro__):
            found.update({k: v for k, v in vars(cls).items() if isinstance(v, env_knob)})
        return found

    def copy(self):
        # The values live in the environment: a copy is another view of it.
        return type(self)()

    def reset(self):
        """As Triton's: forget the values set on this object, so that the
        environment decides.  Here the values set are the environment, so
        nothing is left to forget (Triton's test fixtures clear the variables
        themselves, through the descriptors' `key`)."""
        return self

    def __setattr__(self, name, value):
        if name not in self.knob_descriptors:
            raise AttributeError(self._unknown(name))
        super().__setattr__(name, value)

    def __getattr__(self, name):  # only for names that are not knobs
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(self._unknown(name))

    def _unknown(self, name):
        have = ", ".join(sorted(self.knob_descriptors)) or "none"
        return (f"warpforge has no knob {type(self)._set_name}.{name}; the knobs of "
                f"{type(self)._set_name} are: {have}")

    def __repr__(self):
        values = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.knob_descriptors)
        return f"{type(self)._set_name}({values})"


class cache_knobs(base_knobs):
    _set_name = "cache"
    dir = env_knob("WARPFORGE_CACHE_DIR", None, str,
                   "The kernel cache's directory (default ~/.cache/warpforge).")


class compilation_knobs(base_knobs):
    _set_name = "compilation"
    always_compile = env_knob("WARPFORGE_ALWAYS_COMPILE", False, bool,
                              "Compile every kernel anew, never from the cache.")
    dump_dir = env_knob("WARPFORGE_DUMP_DIR", None, str,
                        "Write each kernel's IR after every pass into this directory.")


class runtime_knobs(base_knobs):
    _set_name = "runtime"
    interpret = env_knob("WARPFORGE_INTERPRET", False, bool,
                         "Run kernels in the CPU interpreter.")
    override_arch = env_knob("WARPFORGE_OVERRIDE_ARCH", None, str,
                             "Compile for this target (sm80, sm86, sm89, sm90) "
                             "instead of sm_90a, where a launch sets no arch=.")


class autotuning_knobs(base_knobs):
    _set_name = "autotuning"
    cache = env_knob("WARPFORGE_CACHE_AUTOTUNING", False, bool,
                     "Keep each autotuner's choice in the disk cache.")
    quiet = env_knob("WARPFORGE_AUTOTUNE_QUIET", False, bool,
                     "Do not print the autotuner's choices.")


class language_knobs(base_knobs):
    _set_name = "language"
    default_fp_fusion = env_knob("WARPFORGE_DEFAULT_FP_FUSION", True, bool,
                                 "enable_fp_fusion of launches that do not set it.")


class ptxas_tool:
    """The ptxas warpforge assembles with (read-only): `path`, `version`
    ("13.0", from `ptxas --version`); None for both when none is found."""

    @property
    def path(self) -> Optional[str]:
        return _toolchain()[0]

    @property
    def version(self) -> Optional[str]:
        return _ptxas_version(self.path)

    def __repr__(self):
        return f"ptxas(path={self.path!r}, version={self.version!r})"


class nvidia_knobs(base_knobs):
    _set_name = "nvidia"

    @property
    def ptxas(self) -> ptxas_tool:
        return ptxas_tool()


def _toolchain():
    from . import ir
    try:
        ptxas, libdevice = ir._core().find_toolchain()
    except Exception:  # no core library
        return None, None
    return ptxas or None, libdevice or None


@functools.lru_cache(maxsize=4)
def _ptxas_version(path: Optional[str]) -> Optional[str]:
    if not path:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else None


cache = cache_knobs()
compilation = compilation_knobs()
runtime = runtime_knobs()
language = language_knobs()
autotuning = autotuning_knobs()
nvidia = nvidia_knobs()

_SETS = ("cache", "compilation", "runtime", "language", "autotuning", "nvidia")


def __getattr__(name):
    # Triton's other knob sets (language, amd, proton, ...): nothing here
    # honours them, so asking for one is an error, not a silent default.
    raise AttributeError(f"warpforge has no knob set {name}; its knob sets are: "
                         f"{', '.join(_SETS)} (module warpforge.knobs)")
