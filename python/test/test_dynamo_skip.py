"""warpforge.runtime.dynamo: warpforge's files are added to dynamo's skipped
files (torch._dynamo.trace_rules.add) whichever of torch and warpforge is
imported first, without importing torch. Run in child processes against a
stand-in torch package (the CPU machines have no torch); the GPU suite's
test_call_inside_torch_compile runs the real thing."""

import os
import subprocess
import sys
import textwrap

import pytest

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fake_torch(tmp_path):
    """A `torch` package whose `_dynamo.trace_rules.add` records its calls."""
    dynamo = tmp_path / "torch" / "_dynamo"
    dynamo.mkdir(parents=True)
    (tmp_path / "torch" / "__init__.py").write_text("")
    (dynamo / "__init__.py").write_text("")
    (dynamo / "trace_rules.py").write_text("ADDED = []\n\ndef add(name):\n    ADDED.append(name)\n")
    return tmp_path


def _run(fake_torch, body):
    code = "import sys\nsys.path[:0] = [%r, %r]\n" % (str(fake_torch), PYTHON_DIR) + \
        textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_registered_when_dynamo_is_imported_after_warpforge(fake_torch):
    out = _run(fake_torch, """
        import warpforge
        from warpforge.runtime import dynamo
        assert "torch" not in sys.modules and not dynamo.registered()
        import torch._dynamo.trace_rules as rules
        print(rules.ADDED, dynamo.registered(),
              any(isinstance(f, dynamo._Finder) for f in sys.meta_path),
              "def add" in rules.__loader__.get_source(rules.__name__))
    """)
    assert out == "['warpforge'] True False True"


def test_registered_at_once_when_dynamo_is_already_loaded(fake_torch):
    out = _run(fake_torch, """
        import torch._dynamo.trace_rules as rules
        import warpforge
        from warpforge.runtime import dynamo
        print(rules.ADDED, dynamo.registered(),
              any(isinstance(f, dynamo._Finder) for f in sys.meta_path))
    """)
    assert out == "['warpforge'] True False"


def test_other_imports_pass_through_and_registration_is_once(fake_torch):
    out = _run(fake_torch, """
        import warpforge, json, torch, torch._dynamo
        from warpforge.runtime import dynamo
        assert not dynamo.registered()
        import torch._dynamo.trace_rules as rules
        dynamo.install()
        print(rules.ADDED)
    """)
    assert out == "['warpforge']"


def test_a_torch_without_the_hook_is_left_alone(fake_torch):
    (fake_torch / "torch" / "_dynamo" / "trace_rules.py").write_text("X = 1\n")
    out = _run(fake_torch, """
        import warpforge
        from warpforge.runtime import dynamo
        import torch._dynamo.trace_rules as rules
        print(rules.X, dynamo.registered())
    """)
    assert out == "1 False"


def test_a_failing_hook_warns_and_torch_still_imports(fake_torch):
    (fake_torch / "torch" / "_dynamo" / "trace_rules.py").write_text(
        "X = 2\n\ndef add(name):\n    raise AssertionError('no spec')\n")
    out = _run(fake_torch, """
        import warnings
        warnings.simplefilter("always")
        import warpforge
        from warpforge.runtime import dynamo
        with warnings.catch_warnings(record=True) as caught:
            import torch._dynamo.trace_rules as rules
        print(rules.X, dynamo.registered(),
              [str(w.message).split(";")[0] for w in caught])
    """)
    assert out == ("2 False [\"warpforge: could not add warpforge to torch.compile's skipped "
                   "files (AssertionError: no spec)\"]")
