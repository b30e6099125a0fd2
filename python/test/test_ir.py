"""The binding: IR text in, IR text out, diagnostics in exceptions."""

import os
import subprocess
import sys
import threading

import pytest

import warpforge
from warpforge import ir
from warpforge.errors import Diagnostic, IRError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLE = os.path.join(REPO, "examples", "vector_add.mlir")

KERNEL = """
tile.func public @k(%p: !tile.ptr<f32>, %n: i32) {
  %r = tile.make_range {start = 0 : i32, end = 128 : i32} : tensor<128xi32> loc("kern.py":5:8)
  %c = arith.constant dense<0> : tensor<128xi32>
  %s = arith.addi %r, %c : tensor<128xi32>
  %ps = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %ps, %s : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %x = tile.load %a : tensor<128x!tile.ptr<f32>>
  tile.store %a, %x : tensor<128x!tile.ptr<f32>>
  tile.return
}
"""


def test_versions_agree():
    assert ir.core_version().startswith(f"warpforge {warpforge.__version__} (LLVM 22.")


def test_parse_prints_canonical_form():
    out = ir.parse(KERNEL)
    assert "tile.func public @k(%arg0: !tile.ptr<f32>, %arg1: i32)" in out
    assert "tile.make_range {end = 128 : i32, start = 0 : i32}" in out
    assert "loc(" not in out
    # The printed form parses back to itself.
    assert ir.parse(out) == out


def test_parse_keeps_locations_with_debug_info():
    out = ir.parse(KERNEL, debug_info=True)
    assert 'loc("kern.py":5:8)' in out


def test_verifier_error_points_at_the_python_line():
    bad = KERNEL.replace("end = 128 : i32} : tensor<128xi32>", "end = 64 : i32} : tensor<128xi32>")
    with pytest.raises(IRError) as info:
        ir.parse(bad)
    err = info.value
    assert err.errors == [Diagnostic(
        "error", "kern.py", 5, 8,
        "'tile.make_range' op result has 128 elements but the range [0, 64) has 64",
        "kern.py:5:8: error: 'tile.make_range' op result has 128 elements "
        "but the range [0, 64) has 64")]
    assert "kern.py:5:8: error:" in str(err)
    assert isinstance(err, RuntimeError)


def test_syntax_error_points_into_the_buffer():
    with pytest.raises(IRError) as info:
        ir.parse("tile.func public @k() {\n  %x = tile.bogus\n}\n", filename="gen.mlir")
    (d,) = info.value.errors
    assert (d.file, d.line) == ("gen.mlir", 2)
    assert "tile.bogus" in d.message


def test_named_pipeline_inlines_and_simplifies():
    with open(EXAMPLE) as f:
        out = ir.run_pipeline(f.read(), "tile-optimize", filename=EXAMPLE)
    assert "tile.call" not in out
    assert "@add(" not in out  # the inlined helper is gone
    assert out.count("tile.load") == 2
    assert "arith.addf" in out


def test_pass_pipeline_strings_anchored_or_not():
    a = ir.run_pipeline(KERNEL, "canonicalize,cse")
    b = ir.run_pipeline(KERNEL, "builtin.module(canonicalize,cse)")
    assert a == b
    assert "arith.addi" not in a  # x + 0 folded


def test_pipeline_failure_carries_diagnostics():
    private_only = KERNEL.replace("tile.func public", "tile.func private")
    with pytest.raises(IRError) as info:
        ir.run_pipeline(private_only, "tile-optimize")
    assert any("module has no kernel" in d.message for d in info.value.errors)


def test_unknown_pipeline_is_an_error_not_a_crash():
    with pytest.raises(IRError) as info:
        ir.run_pipeline(KERNEL, "no-such-pass")
    assert "no-such-pass" in str(info.value)


def test_pipelines_are_listed():
    assert "tile-optimize" in ir.pipelines()


def test_calls_release_the_gil_and_are_thread_safe():
    results, errors = [], []

    def work():
        try:
            results.append(ir.run_pipeline(KERNEL, "canonicalize"))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(set(results)) == 1


def test_core_exports_only_its_api():
    lib = os.path.join(os.path.dirname(warpforge.__file__), "libwarpforge.so")
    out = subprocess.run(["nm", "-D", "--defined-only", "-C", lib],
                         capture_output=True, text=True, check=True).stdout
    symbols = [l.split(" ", 2)[2] for l in out.splitlines() if " T " in l]
    assert symbols and all(s.startswith("warpforge::api::") for s in symbols), symbols


def test_import_needs_no_gpu_or_llvm():
    lib = os.path.join(os.path.dirname(warpforge.__file__), "libwarpforge.so")
    out = subprocess.run(["ldd", lib], capture_output=True, text=True, check=True).stdout
    assert "LLVM" not in out and "MLIR" not in out and "cuda" not in out.lower()
    subprocess.run([sys.executable, "-c", "import warpforge.ir as i; i.pipelines()"],
                   check=True, env={**os.environ, "CUDA_VISIBLE_DEVICES": ""})


def test_parser_crash_inputs_are_errors():
    """MLIR 22.1.8's parser segfaults on a dense array of index elements:
    warpforge.ir reports it at its place instead of killing the process."""
    with pytest.raises(IRError, match=r"x.mlir:1:24: error: dense arrays of 'index'"):
        ir.parse("module attributes {x = array<index: 1>} {}", "x.mlir")
