"""warpforge.knobs: Triton's `triton.knobs` as views of warpforge's
environment variables."""
import os
import shutil

import pytest

import warpforge
from warpforge import knobs


def test_knob_is_the_environment_variable(monkeypatch):
    monkeypatch.delenv("WARPFORGE_CACHE_DIR", raising=False)
    assert knobs.cache.dir is None
    knobs.cache.dir = "/tmp/wf-knob-test"
    assert os.environ["WARPFORGE_CACHE_DIR"] == "/tmp/wf-knob-test"
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", "/tmp/other")
    assert knobs.cache.dir == "/tmp/other"
    knobs.cache.dir = None
    assert "WARPFORGE_CACHE_DIR" not in os.environ


def test_flag_knobs(monkeypatch):
    monkeypatch.delenv("WARPFORGE_ALWAYS_COMPILE", raising=False)
    assert knobs.compilation.always_compile is False
    knobs.compilation.always_compile = True
    assert os.environ["WARPFORGE_ALWAYS_COMPILE"] == "1"
    # warpforge's own reader sees it
    from warpforge.runtime import cache
    assert cache.always_compile()
    del knobs.compilation.always_compile
    assert "WARPFORGE_ALWAYS_COMPILE" not in os.environ
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    assert knobs.runtime.interpret is False
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    assert knobs.runtime.interpret is True


def test_unknown_knob_is_an_error():
    with pytest.raises(AttributeError, match="no knob set amd"):
        knobs.amd  # noqa: B018  (no such knob set at all)
    with pytest.raises(AttributeError, match=r"no knob cache\.home; the knobs of cache are: dir"):
        knobs.cache.home = "/x"
    with pytest.raises(AttributeError, match="no knob runtime.jit_cache_hook"):
        knobs.runtime.jit_cache_hook  # noqa: B018


def test_triton_fixture_protocol(monkeypatch):
    """What Triton's fresh_knobs fixture relies on: knob sets found by
    isinstance, copy().reset(), and each descriptor's `key`."""
    sets = {n: k for n, k in vars(knobs).items() if isinstance(k, knobs.base_knobs)}
    assert set(sets) == {"cache", "compilation", "runtime", "language", "autotuning", "nvidia"}
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", "/tmp/kept")
    fresh = knobs.cache.copy().reset()
    assert isinstance(fresh, type(knobs.cache))
    assert os.environ["WARPFORGE_CACHE_DIR"] == "/tmp/kept"  # reset leaves the environment alone
    assert {d.key for d in knobs.cache.knob_descriptors.values()} == {"WARPFORGE_CACHE_DIR"}
    assert knobs.propagate_env is True
    assert warpforge.knobs is knobs


def test_ptxas_knob():
    ptxas = knobs.nvidia.ptxas
    found = shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas")
    if not found and ptxas.path is None:
        pytest.skip("no ptxas on this machine")
    assert os.path.exists(ptxas.path)
    major, minor = (int(x) for x in ptxas.version.split("."))
    assert major >= 12
