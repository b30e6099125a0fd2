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


def pytest_collection_modifyitems(config, items):
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
