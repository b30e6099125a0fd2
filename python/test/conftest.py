import shutil
import subprocess

import pytest


def _has_gpu() -> bool:
    if shutil.which("nvidia-smi") is None:
        return False
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                              timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.fixture(autouse=True)
def private_kernel_cache(tmp_path_factory, monkeypatch):
    """Tests never read or write the user's ~/.cache/warpforge."""
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "cache"))


def _override_arch():
    import os
    return os.environ.get("WARPFORGE_OVERRIDE_ARCH")


def pytest_collection_modifyitems(config, items):
    # The GPU suite for another target (WARPFORGE_OVERRIDE_ARCH=sm80): the
    # tests of sm_90a's own features do not apply.
    arch = _override_arch()
    if arch and arch.lower().replace("_", "").rstrip("a") not in ("sm90", "90", "cuda:90"):
        skip_sm90 = pytest.mark.skip(reason=f"sm_90a features; the target is {arch}")
        for item in items:
            if "sm90" in item.keywords:
                item.add_marker(skip_sm90)
    if _has_gpu():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def frontend_only(monkeypatch):
    """Compile to tile IR only: for tests of the frontend whose kernels use
    what the GPU backend does not lower yet (dot, TMA descriptors, prints)."""
    import functools
    import importlib

    from warpforge.compiler import compiler
    jit = importlib.import_module("warpforge.runtime.jit")
    monkeypatch.setattr(jit, "compile_kernel",
                        functools.partial(compiler.compile_kernel, gpu=False))
    yield
    # The kernels compiled here have no cubin: a later test that launches
    # the same kernel with the same key on a GPU must compile it anew, not
    # find this one in the JIT's in-memory cache.
    import gc
    import weakref
    for obj in gc.get_objects():
        # A weak proxy whose object is gone raises on isinstance (torch's
        # objects leave some): its type says what it is without a lookup.
        if type(obj) in weakref.ProxyTypes:
            continue
        if isinstance(obj, jit.JITFunction):
            stale = [key for key, kernel in obj.cache.items() if "cubin" not in kernel.asm]
            for key in stale:
                del obj.cache[key]
            if stale:
                obj._launcher = obj._bound_spec = None


@pytest.fixture
def interpreted(monkeypatch):
    """Kernels run on the CPU interpreter. Not autouse: the interpreter's test
    files (test_interpreter*.py) apply it to all their tests with
    pytestmark = pytest.mark.usefixtures("interpreted")."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")


@pytest.fixture
def autotune_isolated(monkeypatch, tmp_path):
    """Interpreted kernels, a private disk cache, default printing. Not
    autouse: the autotuner's test files (test_autotune*.py, test_testing.py)
    apply it to all their tests with pytestmark."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    for name in ("WARPFORGE_AUTOTUNE_QUIET", "WARPFORGE_CACHE_AUTOTUNING",
                 "WARPFORGE_ALWAYS_COMPILE"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def compiled(monkeypatch):
    """For the autotuner's tests: compiles for real (counting, by thread),
    launches through a stand-in that refuses kernels whose BLOCK the 'GPU'
    cannot load."""
    import importlib
    import threading

    from warpforge.compiler.compiler import CompiledKernel
    from warpforge.errors import OutOfResources
    jit_module = importlib.import_module("warpforge.runtime.jit")

    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    record = {"compiles": [], "launches": []}
    real = jit_module.compile_kernel

    def compile_kernel(fn, signature, constants, divisibility=None, options=None):
        record["compiles"].append((constants.get("BLOCK"), threading.current_thread().name))
        if constants.get("BLOCK") == 8192:
            raise OutOfResources(fn.__name__, "bytes of shared memory", 8192 * 40, 232448)
        return real(fn, signature, constants, divisibility, options)

    def launch(kernel, grid, args, stream=None):
        block = kernel.constants.get("BLOCK", 0)
        if block >= 4096:
            raise OutOfResources(kernel.name, "registers per thread", 300, 255)
        record["launches"].append((block, kernel.options.num_warps, grid))

    monkeypatch.setattr(jit_module, "compile_kernel", compile_kernel)
    monkeypatch.setattr(CompiledKernel, "launch", launch)
    return record
