"""The compile and launch options of a kernel: their one home.

`KernelOptions` declares every option a launch, `warmup`, a
`warpforge.Config` and the autotuner accept: its name, default, meaning and
checks. Everything else derives from it: the JIT's launch keywords
(`OPTION_NAMES`), `Config`'s fields, the caches' keys (`cache_key`), and the
structure the C++ stages take (`to_core`, `warpforge._C.CompileOptions`,
whose defaults a test checks against these).

Every option takes effect, or says why not: a bad value is a ValueError
naming the option; an option the backend does not implement yet is either
an error or, where Triton's autotune configs set it and the
kernel is still right without it, a warning at the launch and a kernel
compiled without it (`effective()`; none today). Warp specialization
(`num_consumer_groups`) that a kernel's loop cannot take is a
`WarpSpecializationWarning` at the loop's line, from the compiler.
"""

from __future__ import annotations

import dataclasses
import numbers
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple


def _option(default, doc: str):
    return field(default=default, metadata={"doc": doc})


class UnsupportedOptionWarning(UserWarning):
    """An option the backend does not implement yet was set; the kernel is
    compiled without it."""


class ClusterWarning(UnsupportedOptionWarning):
    """num_ctas > 1 was asked for but the kernel's tiles cannot be divided
    among the CTAs of a cluster; the warning is at the op that prevents it,
    and each program runs on one CTA (the same result)."""


class WarpSpecializationWarning(UnsupportedOptionWarning):
    """Warp specialization was asked for (num_consumer_groups, or
    tl.range(..., warp_specialize=True)) but the compiler could not apply it
    to a loop; the warning is at the loop's line and says why, and the
    kernel is compiled without it (still correct)."""


@dataclass(frozen=True)
class KernelOptions:
    """Launch and compilation options, as Triton's Config carries them."""

    num_warps: int = _option(
        4, "Warps per CTA, a power of 2 from 1 to 32. With warp specialization "
           "(num_consumer_groups > 0), the warps of one consumer group, as in "
           "Triton: the kernel runs num_warps * num_consumer_groups consumer "
           "warps plus one producer warpgroup (4 warps).")
    num_stages: int = _option(
        3, "Buffers of the software pipeline of loops feeding tl.dot (1: none); "
           "tl.range(..., num_stages=) overrides it per loop.")
    num_ctas: int = _option(
        1, "CTAs each program runs on (1, 2 or 4; sm_90), as a thread-block "
           "cluster along x: the rows of the program's tl.dot products are "
           "divided among them and the other operand, the same in every CTA, "
           "is multicast by the TMA where warp specialization loads it. A "
           "kernel whose tiles cannot be divided gets a ClusterWarning at the "
           "op that prevents it and runs one CTA per program.")
    num_consumer_groups: int = _option(
        0, "Consumer groups of a warp-specialized kernel (0: none): the loop "
           "of tl.dot products is split into a producer warpgroup issuing the "
           "TMA loads and these groups of num_warps warps computing; a loop "
           "that cannot be split gets a WarpSpecializationWarning at its line "
           "and runs unspecialized.")
    num_buffers_warp_spec: int = _option(
        0, "Shared-memory buffers (channel slots) between the producer and the "
           "consumers of a warp-specialized kernel; 0 with "
           "tl.range(warp_specialize=True): num_stages.")
    ping_pong: bool = _option(
        False, "With num_consumer_groups=2: each consumer group of num_warps warps "
               "computes whole tiles of a persistent tile loop (every other tile) and "
               "the two take turns at the tensor cores, one's epilogue under the "
               "other's products (CUTLASS's ping-pong schedule); False: the groups "
               "split every tile (cooperative). A kernel that cannot take turns gets a "
               "WarpSpecializationWarning and runs one cooperative group.")
    launch_pdl: bool = _option(
        False, "Launch with programmatic dependent launch (PDL, sm_90 and later): "
               "the kernel may start while the kernel before it on the stream still "
               "runs, up to its tl.extra.cuda.gdc_wait(), which waits for that "
               "kernel's results; that kernel's gdc_launch_dependents() lets this one "
               "start early. Without gdc_wait a PDL kernel must not read what the "
               "kernel before it writes.")
    launch_cooperative_grid: bool = _option(
        False, "A cooperative launch: every program of the grid is resident on the GPU "
               "at once, so that programs may wait for each other (a grid-wide barrier "
               "built from atomics). A grid larger than the GPU holds at once fails to "
               "launch with a CudaError saying so.")
    maxnreg: Optional[int] = _option(
        None, "Registers per thread the kernel may use (PTX .maxnreg on the kernel, "
              "as Triton's), 16 to 255; None: no cap.")
    arch: Optional[str] = _option(
        None, "The target: sm80, sm86 or sm89 (mma.sync and cp.async; no wgmma, "
              "TMA or warp specialization) or sm90 (sm_90a, the default; also "
              "spelled sm_90a, 90, cuda:90). A GPU of another generation runs it "
              "through the driver's PTX compiler (an H100 runs sm80 code). None: "
              "knobs.runtime.override_arch, else sm90.")
    debug: bool = _option(False, "Compile device_assert checks in.")
    enable_fp_fusion: Optional[bool] = _option(
        None, "Let a floating-point multiply and an add fuse into one fma (one "
              "rounding instead of two). None: knobs.language.default_fp_fusion "
              "($WARPFORGE_DEFAULT_FP_FUSION), read when the options are made, else "
              "True, Triton's default (the GPU suite passes with it; an attention "
              "softmax's x * scale - max is one fma). False keeps mul.rn/add.rn.")
    enable_reflect_ftz: bool = _option(
        True, "libdevice's functions (tl.exp2, tl.exp, ...) flush denormal inputs "
              "and results to zero (ex2.approx.ftz.f32), Triton's default: one "
              "instruction per exp2 instead of four (a third of an attention "
              "softmax's instructions). False keeps denormals, as CUDA does.")
    warp_specialize_loops: bool = _option(
        True, "Whether tl.range(..., warp_specialize=True) specializes its loop. "
              "The compiler sets it to False, with a WarpSpecializationWarning, "
              "when the specialized kernel needs more shared memory or registers "
              "than the GPU has: the kernel is then compiled without warp "
              "specialization, as it would be without the hint.")

    def __post_init__(self):
        if self.enable_fp_fusion is None:
            object.__setattr__(self, "enable_fp_fusion", default_fp_fusion())
        if self.arch is None:
            # Read when the options are made, so that the cache key has it.
            from .. import knobs
            if knobs.runtime.override_arch:
                object.__setattr__(self, "arch", knobs.runtime.override_arch)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name == "arch":
                if value is not None:
                    object.__setattr__(self, "arch", f"sm{parse_arch(value)}")
                continue
            if f.name in ("debug", "ping_pong", "launch_pdl", "launch_cooperative_grid",
                          "enable_fp_fusion", "enable_reflect_ftz", "warp_specialize_loops"):
                if not isinstance(value, bool):
                    self._fail(f"{f.name} must be True or False, got {value!r}")
            elif not (value is None and f.name == "maxnreg"):
                if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                    self._fail(f"{f.name} must be an integer, got {value!r}")
                # NumPy integers and the like become plain ints (cache keys,
                # the C++ structure).
                object.__setattr__(self, f.name, int(value))
        if not _is_power_of_2(self.num_warps) or self.num_warps > 32:
            self._fail(f"num_warps must be a power of 2 from 1 to 32, got {self.num_warps}")
        if self.num_stages < 1:
            self._fail(f"num_stages must be at least 1, got {self.num_stages}")
        if self.num_ctas > 1 and self.arch is not None and parse_arch(self.arch) < 90:
            # Triton's words: clusters are sm_90's.
            self._fail(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper): thread-block "
                       f"clusters do not exist on {self.arch} (num_ctas={self.num_ctas})")
        if self.num_ctas not in (1, 2, 4):
            self._fail(f"num_ctas must be 1, 2 or 4 (CTAs of a thread-block cluster), "
                       f"got {self.num_ctas}")
        if self.num_consumer_groups < 0 or self.num_buffers_warp_spec < 0:
            self._fail("num_consumer_groups and num_buffers_warp_spec must be non-negative")
        if self.num_consumer_groups and not self.num_buffers_warp_spec:
            self._fail("warp specialization (num_consumer_groups > 0) needs "
                       "num_buffers_warp_spec > 0")
        if self.ping_pong and self.num_consumer_groups != 2:
            self._fail(f"ping_pong=True runs two consumer groups that take turns: set "
                       f"num_consumer_groups=2 (got {self.num_consumer_groups})")
        # Consumer warps that are not a power of 2 (three groups of 4):
        # accepted, and compile_kernel falls back with a warning
        # (unsplittable_consumer_groups).
        if self.num_consumer_groups and not self.unsplittable_consumer_groups():
            threads = (self.num_warps * self.num_consumer_groups + 4) * 32
            if threads > 1024:
                self._fail(f"num_warps={self.num_warps} x num_consumer_groups="
                           f"{self.num_consumer_groups} consumer warps and a producer "
                           f"warpgroup make {threads} threads, more than a CTA's 1024")
        if self.maxnreg is not None and not (isinstance(self.maxnreg, int)
                                             and 16 <= self.maxnreg <= 255):
            self._fail(f"maxnreg must be an int from 16 to 255 (registers per thread), "
                       f"got {self.maxnreg!r}")

    def unsplittable_consumer_groups(self) -> Optional[str]:
        """Why the consumer groups cannot share a tile, when they cannot:
        the tile's power-of-2 rows (or columns) split among a power of 2 of
        consumer warps only, so three groups have no data partition (but
        under WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1, with 192-row tiles)."""
        warps = self.num_warps * self.num_consumer_groups
        if not self.num_consumer_groups or _is_power_of_2(warps):
            return None
        # Experimental: twelve warps, wgmma stacking three warpgroups along
        # M of a tile whose rows are a multiple of 192 (FlashAttention-3's
        # 192x128 at D 64); a kernel without such a product still falls
        # back, from the compiler, with a warning.
        from ..language.core import npot_blocks_enabled
        if npot_blocks_enabled():
            return None
        return (f"num_consumer_groups={self.num_consumer_groups} with num_warps="
                f"{self.num_warps} makes {warps} consumer warps, and a tile (powers of 2 "
                f"in every dimension) splits among a power of 2 of them only")

    @staticmethod
    def _fail(message: str):
        raise InvalidOption(message)

    # -- What crosses into the compiler ----------------------------------------

    def unsupported(self) -> Tuple[str, ...]:
        """Why options set here will not take effect yet, one line each."""
        return ()

    def effective(self) -> "KernelOptions":
        """The options the compiler applies: those `unsupported` names reset
        to what the kernel is compiled with instead."""
        return self

    def warn_unsupported(self, where: str, stacklevel: int = 2) -> None:
        for note in self.unsupported():
            warnings.warn(f"{where}: {note}", UnsupportedOptionWarning, stacklevel=stacklevel + 1)

    def capability(self, default: int = 90) -> int:
        """The compute capability to compile for: `arch` (which took
        knobs.runtime.override_arch when not given), else `default`."""
        return parse_arch(self.arch) if self.arch is not None else default

    def to_core(self, capability: int = 90):
        """The C++ stages' `CompileOptions` for these options (effective
        ones: call `effective()` first)."""
        from .. import ir
        core = ir._core().CompileOptions()
        for name in CORE_OPTION_NAMES:
            setattr(core, name, getattr(self, name))
        core.maxnreg = self.maxnreg or 0
        core.compute_capability = capability
        return core

    def cache_key(self) -> Tuple[Tuple[str, Any], ...]:
        """Every option, by name: for the in-memory and disk caches."""
        return tuple((name, getattr(self, name)) for name in OPTION_NAMES)

    @classmethod
    def describe(cls) -> str:
        """One line per option: name, default, meaning (for docs and errors)."""
        return "\n".join(f"{f.name} (default {f.default!r}): {f.metadata['doc']}"
                         for f in dataclasses.fields(cls))


class InvalidOption(ValueError, AssertionError):
    """A launch or compile option out of its range.  A ValueError; also an
    AssertionError, which is what Triton raises for the same checks (its
    tests expect `pytest.raises(AssertionError, match="must be a power of
    2")`)."""


SUPPORTED_ARCHS = (80, 86, 89, 90)


def parse_arch(value) -> int:
    """The compute capability an `arch` names: "sm80", "sm_80", "sm90a",
    "cuda:90", 80 or "80"; ValueError naming the supported ones otherwise."""
    text = str(value).strip().lower()
    for prefix in ("cuda:", "sm_", "sm"):
        if text.startswith(prefix):
            text = text[len(prefix):]
            break
    if text.endswith("a"):
        text = text[:-1]
    if isinstance(value, bool) or not text.isdigit() or int(text) not in SUPPORTED_ARCHS:
        raise ValueError(f"arch={value!r}: warpforge compiles for "
                         f"{', '.join(f'sm{c}' for c in SUPPORTED_ARCHS)} (sm90 is sm_90a)")
    return int(text)


def default_fp_fusion() -> bool:
    """`enable_fp_fusion` when a launch does not say: knobs.language.
    default_fp_fusion, the variable's one reader ($WARPFORGE_DEFAULT_FP_FUSION,
    False when unset)."""
    from .. import knobs
    return knobs.language.default_fp_fusion


def _is_power_of_2(n) -> bool:
    return isinstance(n, int) and n > 0 and n & (n - 1) == 0


# Every option's name, in declaration order: the launch keywords.
OPTION_NAMES: Tuple[str, ...] = tuple(f.name for f in dataclasses.fields(KernelOptions))
# Those the C++ stages take as they are (warpforge._C.CompileOptions has
# each; maxnreg too, None as 0); the rest (debug for the frontend, the
# launch's options) are applied in Python.
CORE_OPTION_NAMES: Tuple[str, ...] = ("num_warps", "num_stages", "num_ctas",
                                      "num_consumer_groups", "num_buffers_warp_spec",
                                      "ping_pong")
DEFAULTS: Dict[str, Any] = {f.name: f.default for f in dataclasses.fields(KernelOptions)}
