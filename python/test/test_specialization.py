"""Specialization and the in-process cache."""

import numpy as np

import warpforge
import warpforge.language as tl


@warpforge.jit
def scale(x_ptr, n, stride, factor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs * stride, mask=offs < n)
    tl.store(x_ptr + offs * stride, x * factor, mask=offs < n)


@warpforge.jit(do_not_specialize=["n"])
def scale_nospec(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


X = np.zeros(64, np.float32)


def test_divisibility_and_equal_to_one():
    k = scale.warmup(X, 32, 1, 2.0, BLOCK=64)
    assert k.signature == {"x_ptr": "*fp32", "n": "i32", "factor": "fp32"}
    assert k.constants == {"stride": 1, "BLOCK": 64}
    assert "%arg1: i32 {tile.divisibility = 16 : i32}" in k.asm["tile"]
    # stride == 1 was folded: no multiplication by it is left.
    assert "arith.muli" not in k.asm["tile"]


def test_misaligned_pointer_gets_no_hint():
    misaligned = np.zeros(65, np.float32)[1:]
    k = scale.warmup(misaligned, 33, 2, 2.0, BLOCK=64)
    assert "%arg0: !tile.ptr<f32>," in k.asm["tile"]
    assert "%arg1: i32," in k.asm["tile"] or "%arg1: i32)" in k.asm["tile"]


def test_do_not_specialize():
    k = scale_nospec.warmup(X, 32, BLOCK=64)
    assert "tile.divisibility = 16 : i32}, %arg1: i32)" in k.asm["tile"]
    k1 = scale_nospec.warmup(X, 1, BLOCK=64)
    assert k1 is k  # n == 1 is not special either


def test_cache_hits_and_misses():
    scale.cache.clear()
    a = scale.warmup(X, 32, 3, 2.0, BLOCK=64)
    b = scale.warmup(X, 48, 5, 3.0, BLOCK=64)  # same types and divisibility
    assert a is b
    c = scale.warmup(X, 33, 3, 2.0, BLOCK=64)  # 33 is not divisible by 16
    d = scale.warmup(X, 32, 3, 2.0, BLOCK=128)  # another constexpr
    e = scale.warmup(X, 32, 3, 2.0, BLOCK=64, num_warps=8)  # another option
    f = scale.warmup(X.astype(np.float16), 32, 3, 2.0, BLOCK=64)  # another dtype
    assert len({id(k) for k in (a, c, d, e, f)}) == 5
    assert len(scale.cache) == 5
    assert f.signature["x_ptr"] == "*fp16"


def test_int_ranges():
    k = scale.warmup(X, 1 << 40, 3, 2.0, BLOCK=64)
    assert k.signature["n"] == "i64"


def test_dump_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("WARPFORGE_DUMP_DIR", str(tmp_path))
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    scale.cache.clear()
    scale.warmup(X, 32, 3, 2.0, BLOCK=64)
    names = sorted(p.name for p in tmp_path.iterdir())
    # Every stage...
    for stage in ["tile-frontend.mlir", "tile.mlir", "tilegpu-converted.mlir", "tilegpu.mlir",
                  "llvm-dialect.mlir", "ll", "ptx", "cubin"]:
        assert f"scale.{stage}" in names
    # ...and the IR after every pass of each pipeline, numbered in order.
    assert "scale.tile.01.tile-verify-kernels.mlir" in names
    assert "scale.tilegpu-converted.01.tile-cluster-split.mlir" in names
    assert "scale.tilegpu-converted.02.convert-tile-to-tilegpu.mlir" in names
    assert "scale.tilegpu.01.tilegpu-coalesce.mlir" in names
    assert any(n.startswith("scale.llvm-dialect.") and
               n.endswith(".convert-tilegpu-to-llvm.mlir") for n in names)
    assert (tmp_path / "scale.cubin").read_bytes()[:4] == b"\x7fELF"
