"""warpforge-opt as a command: diagnostics at file:line:col, status 1 on bad
input, the JIT's pipelines reproducible by name."""

import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPT = os.path.join(os.environ.get("WARPFORGE_BUILD_DIR", os.path.join(REPO, "build")),
                   "bin", "warpforge-opt")


def opt(*args, stdin=None):
    return subprocess.run([OPT, *args], input=stdin, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module", autouse=True)
def built():
    if not os.path.exists(OPT):
        pytest.fail(f"{OPT} is not built: run scripts/build.sh")


@pytest.mark.parametrize("text,where,message", [
    ("tile.func public @k() {\n  %r = tile.make_range {start = 0 : i32, end = 8 : i32} : tensor<4xi32>\n  tile.return\n}\n",
     "bad.mlir:2:8", "result has 4 elements but the range [0, 8) has 8"),
    ("tile.func public @k() {\n  %r = tile.no_such_op\n}\n",
     "bad.mlir:2:8", "tile.no_such_op"),
    ("tile.func public @k(%p: !tile.ptr<f32>) {\n  %x = tile.load %p : !tile.ptr<f32>\n  %y = tile.splat %x : f32 -> tensor<8xf16>\n  tile.return\n}\n",
     "bad.mlir:3:8", "result element type 'f16' differs from the operand type 'f32'"),
    ("tile.func public @k() {\n  tile.return\n", "bad.mlir:2:14", "expected operation name in quotes"),
])
def test_bad_input_exits_1_with_a_located_diagnostic(tmp_path, text, where, message):
    path = tmp_path / "bad.mlir"
    path.write_text(text)
    proc = opt(str(path))
    assert proc.returncode == 1
    assert f"{where}: error:" in proc.stderr.replace(str(tmp_path) + "/", "")
    assert message in proc.stderr


def test_python_locations_are_reported(tmp_path):
    path = tmp_path / "k.mlir"
    path.write_text('tile.func public @k() {\n'
                    '  %r = tile.make_range {start = 4 : i32, end = 4 : i32} : tensor<1xi32> loc("kernel.py":12:9)\n'
                    '  tile.return\n}\n')
    proc = opt(str(path))
    assert proc.returncode == 1
    assert "kernel.py:12:9: error: 'tile.make_range' op start (4) must be less than end (4)" in proc.stderr


def test_pipeline_by_name_and_by_pass_pipeline_agree():
    example = os.path.join(REPO, "examples", "vector_add.mlir")
    a = opt("--tile-optimize", example)
    b = opt("--pass-pipeline=builtin.module(tile-optimize)", example)
    assert a.returncode == 0 and b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout and "tile.call" not in a.stdout


def test_pipeline_matches_the_binding():
    from warpforge import ir
    example = os.path.join(REPO, "examples", "vector_add.mlir")
    with open(example) as f:
        text = f.read()
    assert opt("--tile-optimize", example).stdout == ir.run_pipeline(text, "tile-optimize")
