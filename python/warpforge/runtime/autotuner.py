"""`@warpforge.autotune` and `@warpforge.heuristics`, with Triton's API.

An Autotuner sits above a @jit function (or a Heuristics over one). On a
launch whose tuning key (the values of the `key` arguments and the dtypes of
the tensor arguments) it has not seen, it prunes the configs, compiles the
rest in parallel, benchmarks each, remembers the fastest for that key, and
launches with it; later launches with the same key go straight to the kernel.
"""

from __future__ import annotations

import concurrent.futures
import math
import os
import shutil
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from ..compiler.options import DEFAULTS, OPTION_NAMES, KernelOptions
from ..compiler.errors import CompilationError
from ..errors import AutotuneError, OutOfResources
from ..language.semantic import SemanticError
from . import cache as disk_cache
from .jit import JITFunction

# What makes a config unusable rather than the kernel wrong: a resource
# limit, or a compile-time failure for those meta-parameters (a failed
# tl.static_assert is a SemanticError under the interpreter).
CONFIG_ERRORS = (OutOfResources, CompilationError, SemanticError)

# The options a Config carries: every launch option but `debug`,
# `enable_fp_fusion` and `enable_reflect_ftz` (properties of the kernel's
# numerics, not points of the tuning space; Triton's Config has none) and
# `warp_specialize_loops` (what the compiler's fallback sets).
_OPTION_FIELDS = tuple(n for n in OPTION_NAMES
                       if n not in ("arch", "debug", "enable_fp_fusion", "enable_reflect_ftz",
                                     "warp_specialize_loops"))
_PRUNE_FIELDS = ("perf_model", "top_k", "early_config_prune")
# Launch arguments that are not kernel arguments.
_LAUNCH_ONLY = ("grid", "stream", "warmup")


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "0") not in ("", "0")


class Config:
    """One point of the tuning space: meta-parameters (`kwargs`, passed to the
    kernel as keyword arguments) and compilation options. `pre_hook(nargs)`
    runs before each launch with this config, with every argument by name."""

    def __init__(self, kwargs: Dict[str, Any], num_warps: Optional[int] = None,
                 num_stages: Optional[int] = None, num_ctas: Optional[int] = None,
                 maxnreg: Optional[int] = None, pre_hook: Optional[Callable] = None, *,
                 num_consumer_groups: Optional[int] = None,
                 num_buffers_warp_spec: Optional[int] = None,
                 ping_pong: Optional[bool] = None, launch_pdl: Optional[bool] = None,
                 launch_cooperative_grid: Optional[bool] = None):
        # Triton 3.6's positional order; an option left out (None) takes its
        # default from KernelOptions, the options' one home.
        if not isinstance(kwargs, dict):
            raise TypeError(f"Config: kwargs must be a dict of meta-parameters, got "
                            f"{type(kwargs).__name__}")
        self.kwargs = dict(kwargs)
        given = {"num_warps": num_warps, "num_stages": num_stages, "num_ctas": num_ctas,
                 "maxnreg": maxnreg, "num_consumer_groups": num_consumer_groups,
                 "num_buffers_warp_spec": num_buffers_warp_spec, "ping_pong": ping_pong,
                 "launch_pdl": launch_pdl, "launch_cooperative_grid": launch_cooperative_grid}
        for name in _OPTION_FIELDS:
            setattr(self, name, DEFAULTS[name] if given[name] is None else given[name])
        self.pre_hook = pre_hook
        # The same checks as a launch, here, where the config is written.
        try:
            KernelOptions(**self._options())
        except (TypeError, ValueError) as e:
            raise ValueError(f"Config({self}): {e}") from None

    def _options(self) -> Dict[str, Any]:
        return {k: getattr(self, k) for k in _OPTION_FIELDS if getattr(self, k) is not None}

    def all_kwargs(self) -> Dict[str, Any]:
        """The meta-parameters and the options that are set, as one dict of
        keyword arguments for a launch."""
        return {**self.kwargs, **self._options()}

    def __str__(self) -> str:
        parts = [f"{k}: {v}" for k, v in self.kwargs.items()]
        # num_warps and num_stages always; the other options when they
        # differ from their defaults, so that the line stays short.
        parts += [f"{name}: {getattr(self, name)}" for name in _OPTION_FIELDS
                  if name in ("num_warps", "num_stages") or getattr(self, name) != DEFAULTS[name]]
        return ", ".join(parts)

    def __repr__(self) -> str:
        return f"Config({self})"

    def identity(self) -> str:
        """Every field, unambiguously (the disk cache's name for the config)."""
        hook = self.pre_hook
        hook = None if hook is None else getattr(hook, "__qualname__", repr(hook))
        return repr((sorted((k, repr(v)) for k, v in self.kwargs.items()),
                     [(k, getattr(self, k)) for k in _OPTION_FIELDS], hook))

    def _eq_key(self):
        return (tuple((k, _hashable(v)) for k, v in self.all_kwargs().items()), self.pre_hook)

    def __hash__(self):
        return hash(self._eq_key())

    def __eq__(self, other):
        return isinstance(other, Config) and self._eq_key() == other._eq_key()


def _hashable(value):
    if isinstance(value, (list, tuple)):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    return value


def _base_jit(fn) -> JITFunction:
    while not isinstance(fn, JITFunction):
        fn = fn.fn
    return fn


def _where(base: JITFunction) -> str:
    return f"{base.__name__} ({base.filename}:{base.first_line})"


def _check_names(base: JITFunction, what: str, names: Iterable[str]) -> List[str]:
    if isinstance(names, str):
        names = [names]
    names = list(names)
    for name in names:
        if name not in base.arg_names:
            raise ValueError(f"{what}: '{name}' is not a parameter of {_where(base)}; its "
                             f"parameters are {', '.join(base.arg_names)}")
    return names


def _known_keys(base: JITFunction, key) -> List[str]:
    """autotune(key=...): the names that are parameters. A name that is not
    is dropped with a warning at the kernel, as Triton drops it silently
    (tutorial 08's key has a misspelt 'gropup_c_ptrs'): tuning keys on the
    rest."""
    import warnings
    names = [key] if isinstance(key, str) else list(key)
    unknown = [n for n in names if n not in base.arg_names]
    if unknown:
        warnings.warn_explicit(
            f"autotune(key=...): {', '.join(map(repr, unknown))} "
            f"{'is not a parameter' if len(unknown) == 1 else 'are not parameters'} of "
            f"{_where(base)} and will not key the tuning (Triton ignores "
            f"{'it' if len(unknown) == 1 else 'them'} too); its parameters are "
            f"{', '.join(base.arg_names)}",
            UserWarning, base.filename, base.first_line)
    return [n for n in names if n in base.arg_names]


_TENSOR_TYPES: Dict[type, bool] = {}
_DTYPE_NAMES: Dict[Any, str] = {}


def _is_tensor(value) -> bool:
    """A torch tensor or an array (not a NumPy scalar); memoized by type for
    the launch path."""
    t = type(value)
    known = _TENSOR_TYPES.get(t)
    if known is None:
        numpy = sys.modules.get("numpy")
        known = hasattr(value, "dtype") and not (
            numpy is not None and isinstance(value, numpy.generic)) and (
            hasattr(value, "data_ptr") or hasattr(value, "__array_interface__")
            or hasattr(value, "__cuda_array_interface__"))
        _TENSOR_TYPES[t] = known
    return known


def _dtype_name(value) -> str:
    # str() of a NumPy dtype costs microseconds: once per dtype.
    dtype = value.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:
        name = _DTYPE_NAMES[dtype] = str(dtype)
    return name


def _key_value(value):
    if _is_tensor(value):
        return _dtype_name(value)
    return _hashable(value)


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}".rstrip(": ")


def _launch(fn, grid, args, kwargs):
    if isinstance(fn, JITFunction):
        return fn[grid](*args, **kwargs)  # the generated fast path
    return fn.run(*args, grid=grid, **kwargs)


class KernelInterface:
    """`kernel[grid](*args, **kwargs)` is `kernel.run(*args, grid=grid, ...)`."""

    fn: Any

    def __getitem__(self, grid):
        return lambda *args, **kwargs: self.run(*args, grid=grid, **kwargs)

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self.__name__} is an autotuned or heuristic kernel: launch it "
                           f"as {self.__name__}[grid](...)")

    def __repr__(self):
        return f"{type(self).__name__}({self.fn!r})"

    def _wrap(self, fn, decorator: str, above: str):
        """Takes `fn` (a @jit function, or another autotune/heuristics layer)
        and the names of the kernel beneath it."""
        if not hasattr(fn, "arg_names") or not hasattr(fn, "run"):
            raise TypeError(f"@warpforge.{decorator} decorates a @warpforge.jit function (or "
                            f"{above}): put it above @jit; got {fn!r}")
        self.fn = fn
        self.base_fn = base = _base_jit(fn)
        self.arg_names = base.arg_names
        self.__name__ = base.__name__
        self.__qualname__ = base.__qualname__
        self.__doc__ = base.__doc__
        self.__module__ = base.__module__
        return base


class _Progress:
    """The autotuner's lines on stderr. On a terminal one status line is
    rewritten in place; elsewhere (logs, CI) only notes and the result are
    written, one line each. WARPFORGE_AUTOTUNE_QUIET=1 silences it all."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.quiet = _env_flag("WARPFORGE_AUTOTUNE_QUIET")
        self.stream = sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.tty = bool(isatty and isatty())
        self.status_line = ""

    def _write(self, text: str):
        self.stream.write(text)
        self.stream.flush()

    def status(self, text: str):
        if self.quiet or not self.tty:
            return
        # A line longer than the terminal wraps, and "\r" would then rewrite
        # only its last row.
        width = shutil.get_terminal_size((120, 24)).columns - 1
        self.status_line = f"{self.prefix}: {text}"[:max(width, 20)]
        self._write("\r\x1b[K" + self.status_line)

    def note(self, text: str):
        if self.quiet:
            return
        line = f"{self.prefix}: {text}\n"
        if self.tty and self.status_line:
            self._write("\r\x1b[K" + line + self.status_line)
        else:
            self._write(line)

    def finish(self, text: str):
        if self.quiet:
            return
        self._write(("\r\x1b[K" if self.tty and self.status_line else "")
                    + f"{self.prefix}: {text}\n")
        self.status_line = ""


def format_ms(ms: float) -> str:
    return f"{ms:.4g} ms" if ms < 1000 else f"{ms:.0f} ms"


class Autotuner(KernelInterface):
    """The object `@warpforge.autotune(...)` makes of a kernel.

    `best_config` is the config of the last launch; `cache` maps each tuning
    key to its best config; `configs_timings` holds the timings (ms, inf for
    skipped configs) of the last tuning, `bench_time` its duration (s)."""

    def __init__(self, fn, configs: Sequence[Config], key, prune_configs_by=None,
                 reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
                 warmup=None, rep=None, cache_results=False, do_bench=None):
        base = self._wrap(fn, "autotune", "a @warpforge.heuristics one")

        configs = list(configs) if configs else [Config({})]
        for config in configs:
            if not isinstance(config, Config):
                raise TypeError(f"autotune of {_where(base)}: configs must be "
                                f"warpforge.Config objects, got {config!r}")
            _check_names(base, f"autotune of {base.__name__}: Config({config})", config.kwargs)
        self.configs = configs
        self._tuned_names = frozenset(n for c in configs for n in c.all_kwargs())
        self.keys = _known_keys(base, key)
        self.reset_to_zero = _check_names(base, "autotune(reset_to_zero=...)",
                                          reset_to_zero or [])
        self.restore_value = _check_names(base, "autotune(restore_value=...)",
                                          restore_value or [])

        prune = dict(prune_configs_by or {})
        unknown = set(prune) - set(_PRUNE_FIELDS)
        if unknown:
            raise ValueError(f"autotune(prune_configs_by=...): unknown field(s) "
                             f"{', '.join(sorted(unknown))}; the fields are "
                             f"{', '.join(_PRUNE_FIELDS)}")
        self.perf_model = prune.get("perf_model")
        self.configs_top_k = prune.get("top_k", 1.0)
        self.early_config_prune = prune.get("early_config_prune")
        top_k = self.configs_top_k
        if isinstance(top_k, bool) or not (
                (isinstance(top_k, float) and 0 < top_k <= 1.0)
                or (isinstance(top_k, int) and top_k >= 1)):
            raise TypeError("autotune(prune_configs_by=...): top_k must be a fraction in (0, 1] "
                            f"or a count >= 1, got {top_k!r}")

        # A user's hook replaces the one for reset_to_zero/restore_value, as
        # in Triton.
        self.user_defined_pre_hook = pre_hook is not None
        self.user_defined_post_hook = post_hook is not None
        self.pre_hook = pre_hook or self._default_pre_hook
        self.post_hook = post_hook or self._default_post_hook
        self.restore_copies: Dict[str, Any] = {}

        self.num_warmups, self.num_reps = warmup, rep
        self._do_bench = do_bench
        self.cache_results = bool(cache_results) or _env_flag("WARPFORGE_CACHE_AUTOTUNING")
        self.cache: Dict[Tuple, Config] = {}
        self.configs_timings: Dict[Config, float] = {}
        self.bench_time: Optional[float] = None
        self.best_config: Optional[Config] = None

    # -- Hooks -------------------------------------------------------------------

    def _default_pre_hook(self, nargs: Dict[str, Any], reset_only: bool = False):
        for name in self.reset_to_zero:
            if nargs.get(name) is not None:
                _zero(nargs[name], name)
        if not reset_only:
            self.restore_copies = {name: _clone(nargs[name], name)
                                   for name in self.restore_value if nargs.get(name) is not None}

    def _default_post_hook(self, nargs: Dict[str, Any], exception=None):
        for name, saved in self.restore_copies.items():
            _copy_into(nargs[name], saved)
        self.restore_copies = {}

    # -- Benchmarking ------------------------------------------------------------

    @property
    def do_bench(self) -> Callable[[Callable[[], Any]], Any]:
        """The benchmark: the `do_bench` argument, else warpforge.testing's
        (CUDA events), or the host clock when the kernel is interpreted."""
        if self._do_bench is not None:
            return self._do_bench
        from .. import testing
        bench = testing.do_bench_cpu if self.base_fn.interpreting() else testing.do_bench
        warmup = 25 if self.num_warmups is None else self.num_warmups
        rep = 100 if self.num_reps is None else self.num_reps
        return lambda fn: bench(fn, warmup=warmup, rep=rep)

    def _measure(self, kernel_call) -> float:
        result = self.do_bench(kernel_call)
        if isinstance(result, (list, tuple)) and result:
            result = result[0]  # Triton-style (median, low, high) quantiles
        try:
            ms = float(result)
        except (TypeError, ValueError):
            raise TypeError(f"autotune of {self.__name__}: do_bench returned {result!r}; it "
                            "must return the time of one call in milliseconds") from None
        if math.isnan(ms) or ms < 0:
            raise ValueError(f"autotune of {self.__name__}: do_bench returned {ms}; it must "
                             "return the time of one call in milliseconds")
        return ms

    # -- Launch ------------------------------------------------------------------

    def _arguments(self, args, kwargs) -> Dict[str, Any]:
        """Every kernel argument by name, defaults included, as given to this
        launch (the tuned meta-parameters are added per config)."""
        params = self.base_fn.signature.parameters
        if len(args) > len(params):
            raise TypeError(f"{self.__name__}: takes {len(params)} arguments but "
                            f"{len(args)} were given")
        arguments = dict(zip(self.arg_names, args))
        for name, value in kwargs.items():
            if name in params:
                if name in arguments:
                    raise TypeError(f"{self.__name__}: got multiple values for argument "
                                    f"'{name}'")
                arguments[name] = value
        for name, p in params.items():
            if name not in arguments and p.default is not p.empty:
                arguments[name] = p.default
        return arguments

    def _check_conflicts(self, kwargs):
        conflicts = sorted(self._tuned_names.intersection(kwargs))
        if conflicts:
            raise ValueError(f"{self.__name__}: {', '.join(conflicts)} "
                             f"{'is' if len(conflicts) == 1 else 'are'} set by the autotuner's "
                             "configs: do not pass {} to the launch as well".format(
                                 "it" if len(conflicts) == 1 else "them"))

    def tuning_key(self, arguments: Dict[str, Any]) -> Tuple:
        """The values of the `key` arguments (dtypes for tensors), then the
        dtype of every tensor argument (as Triton does)."""
        key = [_key_value(arguments.get(name)) for name in self.keys]
        key += [_dtype_name(v) for v in arguments.values() if _is_tensor(v)]
        return tuple(key)

    def _describe_key(self, arguments: Dict[str, Any]) -> str:
        if not self.keys:
            return ""
        return " [" + ", ".join(f"{n}={_key_value(arguments.get(n))}" for n in self.keys) + "]"

    def run(self, *args, grid, **kwargs):
        kernel_kwargs = {k: v for k, v in kwargs.items() if k not in _LAUNCH_ONLY}
        self._check_conflicts(kernel_kwargs)
        arguments = self._arguments(args, kwargs)
        if len(self.configs) > 1:
            key = self.tuning_key(arguments)
            config = self.cache.get(key)
            if config is None:
                config = self._tune(key, grid, args, kwargs, arguments)
        else:
            config = self.configs[0]
        self.best_config = config
        if config.pre_hook is not None:
            config.pre_hook({**arguments, **kernel_kwargs, **config.all_kwargs()})
        return _launch(self.fn, grid, args, {**kwargs, **config.all_kwargs()})

    def prune_configs(self, kwargs: Dict[str, Any], nargs: Optional[Dict[str, Any]] = None
                      ) -> List[Config]:
        """The configs left by early_config_prune, then the top_k of
        perf_model's estimates (lowest first)."""
        if nargs is None:
            nargs = {}
        pruned = self.configs
        # Triton passes the positional arguments as `named_args` and the
        # keyword ones as **kwargs; named_args holds every argument here, so
        # functions written either way find what they read.
        kernel_kwargs = {k: v for k, v in kwargs.items() if k not in _LAUNCH_ONLY}
        if self.early_config_prune is not None:
            pruned = list(self.early_config_prune(self.configs, nargs, **kernel_kwargs))
            if not pruned:
                raise AutotuneError(f"autotune of {_where(self.base_fn)}: early_config_prune "
                                    "left no config; it must return at least one")
        if self.perf_model is not None:
            top_k = self.configs_top_k
            if isinstance(top_k, float):
                top_k = max(1, int(len(pruned) * top_k))
            if len(pruned) > top_k:
                estimates = [self.perf_model(**{**nargs, **kernel_kwargs, **c.all_kwargs()})
                             for c in pruned]
                order = sorted(range(len(pruned)), key=lambda i: estimates[i])
                pruned = [pruned[i] for i in order[:top_k]]
        return pruned

    def warmup(self, *args, **kwargs) -> list:
        """Compiles every (pruned) config for these arguments without
        launching; returns the compiled kernels."""
        arguments = self._arguments(args, kwargs)
        configs = self.prune_configs(kwargs, arguments)
        kwargs = {k: v for k, v in kwargs.items() if k != "grid"}
        return [self.fn.warmup(*args, **kwargs, **c.all_kwargs()) for c in configs]

    # -- Tuning ------------------------------------------------------------------

    def _tune(self, key: Tuple, grid, args, kwargs, arguments) -> Config:
        configs = self.prune_configs(kwargs, arguments)
        kernel_kwargs = {k: v for k, v in kwargs.items() if k not in _LAUNCH_ONLY}
        if len(configs) == 1:  # nothing to compare
            self.cache[key] = configs[0]
            return configs[0]
        progress = _Progress(f"autotune {self.__name__}{self._describe_key(arguments)}")
        disk_key = self._disk_key(key, configs) if self.cache_results else None
        if disk_key is not None:
            timings = self._load_timings(disk_key, configs)
            if timings is not None:
                best = self._choose(key, configs, timings, arguments, kernel_kwargs)
                progress.finish(f"best {format_ms(timings[configs.index(best)])} ({best}) "
                                f"of {len(configs)} configs, from the disk cache")
                return best

        start = time.perf_counter()
        failures: Dict[int, BaseException] = {}
        if not self.base_fn.interpreting():  # the interpreter runs no compiled code
            progress.status(f"compiling {len(configs)} configs")
            failures.update(self._compile_all(configs, args, kwargs, progress))
        timings: List[Optional[float]] = [None] * len(configs)
        best_ms, best = math.inf, None
        progress.status(f"0/{len(configs)} configs")
        for i, config in enumerate(configs):
            if i not in failures:
                try:
                    timings[i] = self._bench(config, grid, args, kwargs, arguments)
                except CONFIG_ERRORS as e:
                    failures[i] = e
                    progress.note(f"skipped config ({config}): {_one_line(e)}")
            if timings[i] is not None and timings[i] < best_ms:
                best_ms, best = timings[i], config
            progress.status(f"{i + 1}/{len(configs)} configs"
                            + (f", best {format_ms(best_ms)} ({best})" if best else ""))
        self.bench_time = time.perf_counter() - start

        if best is None:
            reasons = "\n".join(f"  {configs[i]}: {_one_line(e)}" for i, e in failures.items())
            progress.finish(f"all {len(configs)} configs failed")
            raise AutotuneError(f"autotune of {_where(self.base_fn)}"
                                f"{self._describe_key(arguments)}: every config failed:\n"
                                f"{reasons}", failures=[(configs[i], e)
                                                        for i, e in failures.items()])
        if disk_key is not None:
            self._store_timings(disk_key, key, configs, timings, failures)
        self._choose(key, configs, timings, arguments, kernel_kwargs)
        skipped = f", {len(failures)} skipped" if failures else ""
        progress.finish(f"{len(configs)}/{len(configs)} configs, best {format_ms(best_ms)} "
                        f"({best}){skipped}, {self.bench_time:.2f} s")
        return best

    def _choose(self, key, configs, timings, arguments, kernel_kwargs) -> Config:
        """Records the fastest config (the first of equals) for `key`, and
        resets the reset_to_zero arguments for the real launch."""
        ms = [math.inf if t is None else t for t in timings]
        best = configs[min(range(len(configs)), key=lambda i: ms[i])]
        self.cache[key] = best
        self.configs_timings = {c: t for c, t in zip(configs, ms)}
        self.pre_hook({**arguments, **kernel_kwargs, **best.all_kwargs()}, reset_only=True)
        return best

    def _compile_all(self, configs, args, kwargs, progress) -> Dict[int, BaseException]:
        """Compiles every config through the JIT (into its in-process and disk
        caches) on a thread pool: the C++ pipeline runs without the GIL."""
        kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}

        def compile_one(config):
            try:
                hooked_args, hooked_kwargs = self._hooked(config, args, kwargs)
                self.fn.warmup(*hooked_args, **hooked_kwargs, **config.all_kwargs())
            except CONFIG_ERRORS as e:
                return e
            return None

        workers = max(1, min(len(configs), os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(workers, "warpforge-autotune") as pool:
            results = list(pool.map(compile_one, configs))
        failures = {}
        for i, error in enumerate(results):
            if error is not None:
                failures[i] = error
                progress.note(f"skipped config ({configs[i]}): {_one_line(error)}")
        return failures

    def _hooked(self, config: Config, args, kwargs):
        """The arguments `config` compiles with: as given, or where the config
        has a pre_hook, after it ran on copies of the tensor descriptors
        (tutorials 06 and 09 set each descriptor's block shape there, which
        the compiled kernel depends on). Copies, because the configs compile
        at once on threads, each with its own block shapes; the benchmark
        and the final launch run the hook on the real descriptors."""
        if config.pre_hook is None:
            return args, kwargs
        from ..tools.tensor_descriptor import TensorDescriptor
        import copy

        def own(value):
            if not isinstance(value, TensorDescriptor):
                return value
            mine = copy.copy(value)
            mine.block_shape = list(value.block_shape)  # a hook may set it in place
            return mine
        args = tuple(own(v) for v in args)
        kwargs = {k: own(v) for k, v in kwargs.items()}
        nargs = {**self._arguments(args, kwargs),
                 **{k: v for k, v in kwargs.items() if k not in _LAUNCH_ONLY},
                 **config.all_kwargs()}
        config.pre_hook(nargs)
        return args, kwargs

    def _bench(self, config: Config, grid, args, kwargs, arguments) -> float:
        launch_kwargs = {**kwargs, **config.all_kwargs()}
        nargs = {**arguments, **{k: v for k, v in launch_kwargs.items()
                                 if k not in _LAUNCH_ONLY}}

        def kernel_call():
            if config.pre_hook is not None:
                config.pre_hook(nargs)
            self.pre_hook(nargs)
            try:
                _launch(self.fn, grid, args, launch_kwargs)
            except Exception as e:
                try:
                    self.post_hook(nargs, exception=e)
                finally:
                    raise
            self.post_hook(nargs, exception=None)

        return self._measure(kernel_call)

    # -- Disk cache of timings ---------------------------------------------------

    def _device_name(self) -> str:
        if self.base_fn.interpreting():
            return "interpreter"
        torch = sys.modules.get("torch")
        if torch is not None:
            try:
                if torch.cuda.is_available():
                    index = torch.cuda.current_device()
                    major, minor = torch.cuda.get_device_capability(index)
                    return f"{torch.cuda.get_device_name(index)} (sm_{major}{minor})"
            except Exception:  # a broken CUDA set-up: still a usable name
                pass
        return "cuda"

    def _disk_key(self, key: Tuple, configs: List[Config]) -> str:
        what = ("autotune", repr(key), [c.identity() for c in configs], self._device_name())
        return disk_cache.entry_key(self.base_fn.source_key(), what, None)

    def _load_timings(self, disk_key: str, configs: List[Config]) -> Optional[List[float]]:
        payload = disk_cache.load(disk_key)
        if payload is None:
            return None
        try:
            stored = {entry["config"]: entry["ms"] for entry in payload["timings"]}
            timings = [stored[c.identity()] for c in configs]
        except (KeyError, TypeError):
            return None
        if not all(t is None or isinstance(t, (int, float)) for t in timings) or \
                all(t is None for t in timings):
            return None
        return timings

    def _store_timings(self, disk_key, key, configs, timings, failures):
        payload = {"kernel": self.__qualname__, "key": [repr(k) for k in key],
                   "device": self._device_name(),
                   "timings": [{"config": c.identity(), "ms": timings[i],
                                "error": _one_line(failures[i]) if i in failures else None}
                               for i, c in enumerate(configs)]}
        disk_cache.store(disk_key, payload)


def _zero(value, name: str):
    if hasattr(value, "zero_"):
        value.zero_()
    elif hasattr(value, "fill") and hasattr(value, "__array_interface__"):
        value.fill(0)
    else:
        raise TypeError(f"reset_to_zero: argument '{name}' is a {type(value).__name__}, not "
                        "a tensor or an array")


def _clone(value, name: str):
    if hasattr(value, "clone"):
        return value.clone()
    if hasattr(value, "copy") and hasattr(value, "__array_interface__"):
        return value.copy()
    raise TypeError(f"restore_value: argument '{name}' is a {type(value).__name__}, not a "
                    "tensor or an array")


def _copy_into(dst, src):
    if hasattr(dst, "copy_"):
        dst.copy_(src)
    else:
        dst[...] = src


class Heuristics(KernelInterface):
    """The object `@warpforge.heuristics(values)` makes of a kernel: each
    launch sets the meta-parameters in `values` to `values[name](args)`, where
    `args` holds every argument by name (and the values set before it)."""

    def __init__(self, fn, values: Dict[str, Callable[[Dict[str, Any]], Any]]):
        base = self._wrap(fn, "heuristics", "an autotuned one")
        if not isinstance(values, dict):
            raise TypeError("heuristics(values): values must be a dict of parameter name -> "
                            "function of the arguments")
        _check_names(base, "heuristics(values)", values)
        for name, heuristic in values.items():
            if not callable(heuristic):
                raise TypeError(f"heuristics(values): the value for '{name}' must be a "
                                "function of the arguments dict")
        self.values = dict(values)

    def _apply(self, args, kwargs) -> Dict[str, Any]:
        kwargs = dict(kwargs)
        for name, heuristic in self.values.items():
            nargs = {**dict(zip(self.arg_names, args)),
                     **{k: v for k, v in kwargs.items() if k not in _LAUNCH_ONLY}}
            kwargs[name] = heuristic(nargs)
        return kwargs

    def run(self, *args, grid, **kwargs):
        return _launch(self.fn, grid, args, self._apply(args, kwargs))

    def warmup(self, *args, **kwargs):
        return self.fn.warmup(*args, **self._apply(args, kwargs))


def autotune(configs: Sequence[Config], key: Sequence[str], prune_configs_by=None,
             reset_to_zero=None, restore_value=None, pre_hook=None, post_hook=None,
             warmup=None, rep=None, cache_results=False, do_bench=None):
    """Decorator: tunes a @warpforge.jit kernel over `configs`.

    The configs are benchmarked again whenever the values of the arguments
    named in `key` (or the dtypes of the tensor arguments) change; the best
    is remembered per key. See the README for every argument."""
    def decorator(fn):
        return Autotuner(fn, configs, key, prune_configs_by=prune_configs_by,
                         reset_to_zero=reset_to_zero, restore_value=restore_value,
                         pre_hook=pre_hook, post_hook=post_hook, warmup=warmup, rep=rep,
                         cache_results=cache_results, do_bench=do_bench)
    return decorator


def heuristics(values: Dict[str, Callable[[Dict[str, Any]], Any]]):
    """Decorator: computes meta-parameters from the arguments at each launch,
    e.g. `{'BLOCK': lambda args: warpforge.next_power_of_2(args['n'])}`."""
    def decorator(fn):
        return Heuristics(fn, values)
    return decorator
