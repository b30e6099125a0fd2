"""Tensor descriptors in the frontend, without a GPU: host `TensorDescriptor`
parameters expanded into the launcher's arguments (the descriptor, its shape
as i32, its strides as i64), descriptors made on the device, and tutorial
09's TMA kernels (tutorial09_kernels.py) as tile IR and in the interpreter.

test_gpu_tma.py runs the same kernels on the GPU."""

import os
import re
import warnings

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge.compiler import CompilationError, compile_kernel, generate_tile_ir
from warpforge.compiler.options import UnsupportedOptionWarning
from warpforge.runtime.jit import arg_spec
from warpforge.tools.tensor_descriptor import TensorDescriptor

import tutorial09_kernels as tut
from filecheck import filecheck


def aligned(shape, dtype=np.float32, fill=0.0):
    """An array whose data starts on a 16-byte boundary (the TMA's rule;
    NumPy only promises the element size), filled with `fill`."""
    n = int(np.prod(shape))
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start:start + n * itemsize].view(dtype).reshape(shape)
    a[...] = fill
    return a


def desc(shape, block, dtype=np.float32):
    return TensorDescriptor.from_tensor(aligned(shape, dtype), block)


# ---------------------------------------------------------------------------
# Host descriptors: the expanded signature
# ---------------------------------------------------------------------------


@warpforge.jit
def desc_copy(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    dst.store([off_m, off_n], src.load([off_m, off_n]))


def test_host_descriptor_parameters_expand(tmp_path, frontend_only):
    k = desc_copy.warmup(desc((64, 64), [16, 32]), desc((64, 64), [16, 32]), BM=16, BN=32,
                         grid=(1,))
    assert k.signature == {"src": "tensordesc<fp32[16, 32]>",
                           "dst": "tensordesc<fp32[16, 32]>"}
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @desc_copy(%arg0: !tile.tensordesc<tensor<16x32xf32>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.tensordesc<tensor<16x32xf32>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64)
CHECK: %[[T:.*]] = tile.descriptor_load %arg0[%[[M:.*]], %[[N:.*]]] : !tile.tensordesc<tensor<16x32xf32>> -> tensor<16x32xf32>
CHECK: tile.descriptor_store %arg5[%[[M]], %[[N]]], %[[T]] : !tile.tensordesc<tensor<16x32xf32>>, tensor<16x32xf32>
CHECK-NEXT: tile.return
""", tmp_path)


@warpforge.jit
def desc_shape_strides(src, out_ptr, B: tl.constexpr):
    # Triton's surface: shape (i32) and strides (i64) are run-time values,
    # block_shape and dtype compile-time ones.
    tl.static_assert(src.block_shape[0] == B)
    tl.static_assert(src.dtype == tl.float16)
    tile = src.load([src.shape[0] - B, 0])
    r = tl.arange(0, B)
    tl.store(out_ptr + r[:, None] * B + r[None, :], tile)
    tl.store(out_ptr + B * B, src.shape[1].to(tl.float16))
    tl.store(out_ptr + B * B + 1, src.strides[0].to(tl.float16))


def test_shape_and_strides_are_the_i32_and_i64_arguments(tmp_path, frontend_only):
    x = aligned((40, 24), np.float16)
    d = TensorDescriptor(x, [40, 16], [24, 1], [16, 16])
    k = desc_shape_strides.warmup(d, aligned((16 * 16 + 2,), np.float16), B=16, grid=(1,))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @desc_shape_strides(%arg0: !tile.tensordesc<tensor<16x16xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.ptr<f16> {tile.divisibility = 16 : i32})
CHECK: %[[ROW:.*]] = arith.subi %arg1, %c16_i32 : i32
CHECK: tile.descriptor_load %arg0[%[[ROW]], %c0_i32] : !tile.tensordesc<tensor<16x16xf16>> -> tensor<16x16xf16>
CHECK: arith.sitofp %arg2 : i32 to f16
CHECK: arith.sitofp %arg3 : i64 to f16
""", tmp_path)


@warpforge.jit
def mixed_args(x_ptr, a_desc, n, b_desc, scale, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, x * scale, mask=offs < n)
    tile = a_desc.load([0])
    b_desc.store([0, 0, b_desc.shape[2] - BLOCK], tl.reshape(tile, (1, 1, BLOCK)))


def test_descriptors_pointers_and_scalars_mixed(tmp_path, frontend_only):
    """A 1-D and a 3-D descriptor between pointers and scalars: each
    descriptor takes 2 * rank + 1 arguments in place, the others keep their
    types and divisibility hints, shifted."""
    ptr = aligned((64,))
    k = mixed_args.warmup(ptr, desc((100,), [64]), 48, desc((3, 5, 80), [1, 1, 64]), 2.5,
                          ptr, BLOCK=64, grid=(1,))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @mixed_args(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.tensordesc<tensor<64xf32>>, %arg2: i32, %arg3: i64, %arg4: i32 {tile.divisibility = 16 : i32}, %arg5: !tile.tensordesc<tensor<1x1x64xf32>>, %arg6: i32, %arg7: i32, %arg8: i32, %arg9: i64, %arg10: i64, %arg11: i64, %arg12: f32, %arg13: !tile.ptr<f32> {tile.divisibility = 16 : i32})
CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<64xf32>
CHECK: tile.descriptor_load %arg1[%{{.*}}] : !tile.tensordesc<tensor<64xf32>> -> tensor<64xf32>
CHECK: %[[LAST:.*]] = arith.subi %arg8, %c64_i32 : i32
CHECK: tile.descriptor_store %arg5[%{{.*}}, %{{.*}}, %[[LAST]]], %{{.*}} : !tile.tensordesc<tensor<1x1x64xf32>>, tensor<1x1x64xf32>
""", tmp_path)


@warpforge.jit
def device_desc(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                    block_shape=[BM, BN])
    off = tl.program_id(0) * BM
    dst.store([off, 0], src.load([off, 0]) * 2.0)


def test_make_tensor_descriptor_on_the_device(tmp_path, frontend_only):
    x = aligned((64, 32))
    k = device_desc.warmup(x, x, 64, 32, BM=16, BN=32, grid=(1,))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @device_desc(%arg0: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg1: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %arg2: i32 {tile.divisibility = 16 : i32}, %arg3: i32 {tile.divisibility = 16 : i32})
CHECK: %[[S:.*]] = arith.extsi %arg3 : i32 to i64
CHECK: %[[SRC:.*]] = tile.make_tensor_descriptor %arg0, [%arg2, %arg3], [%[[S]], %{{.*}}] : !tile.ptr<f32>, !tile.tensordesc<tensor<16x32xf32>>
CHECK: %[[DST:.*]] = tile.make_tensor_descriptor %arg1, [%arg2, %arg3], [%[[S]], %{{.*}}] : !tile.ptr<f32>, !tile.tensordesc<tensor<16x32xf32>>
CHECK: %[[T:.*]] = tile.descriptor_load %[[SRC]]
CHECK: tile.descriptor_store %[[DST]]
""", tmp_path)


def test_specialization_passes_descriptor_types_through(frontend_only):
    """The JIT keys its kernels on the descriptor's type: element type and
    block shape (not the tensor's shape or address)."""
    d1 = desc((64, 64), [16, 32])
    assert arg_spec(d1) == ("a", "tensordesc<fp32[16, 32]>", None)
    desc_copy.cache.clear()
    k1 = desc_copy.warmup(d1, d1, BM=16, BN=32, grid=(1,))
    k2 = desc_copy.warmup(desc((128, 32), [16, 32]), d1, BM=16, BN=32, grid=(1,))
    assert k1 is k2
    d1.block_shape = [32, 32]  # as an autotuning hook does
    k3 = desc_copy.warmup(d1, d1, BM=16, BN=32, grid=(1,))
    assert k3 is not k1 and k3.signature["src"] == "tensordesc<fp32[32, 32]>"
    assert "tensor<32x32xf32>" in k3.asm["tile"]
    f16 = desc_copy.warmup(desc((64, 64), [16, 32], np.float16),
                           desc((64, 64), [16, 32], np.float16), BM=16, BN=32, grid=(1,))
    assert f16.signature["src"] == "tensordesc<fp16[16, 32]>"
    assert len(desc_copy.cache) == 3


def test_compile_kernel_takes_descriptor_signatures():
    k = compile_kernel(desc_copy, {"src": "tensordesc<bf16[64, 64]>",
                                   "dst": "tensordesc<bf16[64, 64]>"},
                       {"BM": 64, "BN": 64}, gpu=False)
    assert k.signature["dst"] == "tensordesc<bf16[64, 64]>"
    assert "!tile.tensordesc<tensor<64x64xbf16>>" in k.asm["tile"]


@pytest.mark.parametrize("spelling,match", [
    ("tensordesc<fp17[64, 64]>", "unknown dtype 'fp17'"),
    ("tensordesc<fp16>", "not a descriptor type"),
    ("tensordesc<fp16[3, 64]>", r"power of 2, got \[3, 64\]"),
    ("tensordesc<fp16[1, 1, 1, 1, 1, 8]>", "1 to 5 dimensions, got 6"),
])
def test_bad_descriptor_types_name_the_parameter(spelling, match):
    with pytest.raises(CompilationError, match=match) as info:
        generate_tile_ir(desc_copy, {"src": spelling, "dst": "tensordesc<fp16[64, 64]>"},
                         {"BM": 64, "BN": 64})
    assert "parameter 'src'" in str(info.value)


# ---------------------------------------------------------------------------
# Tutorial 09's TMA kernels (tutorial09_kernels.py, the tutorial's source)
# ---------------------------------------------------------------------------

# One of the tutorial's own configs each (its lists), so that the tests
# compile one kernel, not the tutorial's 24 or 48.
TMA_CONFIG = tut.matmul_get_configs(pre_hook=tut.matmul_tma_set_block_size_hook)[0]
PERSISTENT_CONFIGS = tut.matmul_tma_persistent_get_configs(
    pre_hook=tut.matmul_tma_set_block_size_hook)


# matmul_kernel_descriptor_persistent's: the same, without the hook (it has
# no descriptor arguments).
DEVICE_DESC_CONFIGS = tut.matmul_tma_persistent_get_configs()


def persistent_config(subtile, configs=PERSISTENT_CONFIGS):
    return next(c for c in configs if c.kwargs["EPILOGUE_SUBTILE"] == subtile)


def meta(config, **extra):
    return {**config.all_kwargs(), **extra}


@pytest.fixture
def quiet_loop_options():
    # The tutorial's tl.range(..., flatten=True, warp_specialize=...) warns
    # that those hints do nothing yet.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsupportedOptionWarning)
        yield


@warpforge.jit
def cast_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs).to(out_ptr.dtype.element_ty))


@pytest.mark.parametrize("src,dst", [(np.float16, "bf16"), ("bf16", np.float16)],
                         ids=["fp16-bf16", "bf16-fp16"])
def test_fp16_bf16_casts_go_through_fp32(tmp_path, src, dst):
    """fp16 and bf16 have the same width and neither holds the other: a cast
    between them is an extension to fp32 and a truncation, as in Triton
    (tutorial 09 stores fp16 results through bf16 descriptors). Compiled to
    the end: the backend takes it."""
    spec = {"x_ptr": "*fp16" if src is np.float16 else "*bf16",
            "out_ptr": "*fp16" if dst is np.float16 else "*bf16"}
    k = compile_kernel(cast_kernel, spec, {"BLOCK": 128})
    a, b = ("f16", "bf16") if src is np.float16 else ("bf16", "f16")
    filecheck(k.asm["tile"], f"""
CHECK: %[[X:.*]] = tile.load
CHECK: %[[W:.*]] = arith.extf %[[X]] : tensor<128x{a}> to tensor<128xf32>
CHECK: %[[N:.*]] = arith.truncf %[[W]] : tensor<128xf32> to tensor<128x{b}>
CHECK: tile.store %{{{{.*}}}}, %[[N]]
""", tmp_path)
    assert k.asm.get("cubin")


@pytest.mark.parametrize("dtype", [np.float16, "bf16"], ids=["fp16", "bf16"])
def test_tutorial_tma_kernel_ir(tmp_path, frontend_only, quiet_loop_options, dtype):
    if dtype == "bf16":
        # NumPy has no bf16: the signature the JIT would give bf16 tensors.
        k = compile_kernel(tut.matmul_kernel_tma.fn, {
            "a_desc": "tensordesc<bf16[128, 64]>", "b_desc": "tensordesc<bf16[128, 64]>",
            "c_desc": "tensordesc<bf16[128, 128]>", "M": "i32", "N": "i32", "K": "i32"},
            {**TMA_CONFIG.kwargs, "FP8_OUTPUT": False, "WARP_SPECIALIZE": False},
            {"M": 16, "N": 16, "K": 16}, gpu=False)
        # The tutorial converts to fp16 and stores through the bf16
        # descriptor: through fp32.
        filecheck(k.asm["tile"], """
CHECK: arith.truncf %{{.*}} : tensor<128x128xf32> to tensor<128x128xf16>
CHECK: arith.extf %{{.*}} : tensor<128x128xf16> to tensor<128x128xf32>
CHECK: arith.truncf %{{.*}} : tensor<128x128xf32> to tensor<128x128xbf16>
CHECK: tile.descriptor_store %arg10[{{.*}}], %{{.*}} : !tile.tensordesc<tensor<128x128xbf16>>
""", tmp_path)
        return
    a, b, c = (desc((256, 128), [128, 64], np.float16), desc((256, 128), [128, 64], np.float16),
               desc((256, 256), [128, 128], np.float16))
    k = tut.matmul_kernel_tma.fn.warmup(a, b, c, 256, 256, 128, FP8_OUTPUT=False,
                                        WARP_SPECIALIZE=False, grid=(1,), **meta(TMA_CONFIG))
    filecheck(k.asm["tile"], """
CHECK-LABEL: tile.func public @matmul_kernel_tma(%arg0: !tile.tensordesc<tensor<128x64xf16>>, %arg1: i32, %arg2: i32, %arg3: i64, %arg4: i64, %arg5: !tile.tensordesc<tensor<128x64xf16>>, %arg6: i32, %arg7: i32, %arg8: i64, %arg9: i64, %arg10: !tile.tensordesc<tensor<128x128xf16>>, %arg11: i32, %arg12: i32, %arg13: i64, %arg14: i64, %arg15: i32 {tile.divisibility = 16 : i32}, %arg16: i32 {tile.divisibility = 16 : i32}, %arg17: i32 {tile.divisibility = 16 : i32})
CHECK: scf.for
CHECK: %[[A:.*]] = tile.descriptor_load %arg0[{{.*}}] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
CHECK: %[[B:.*]] = tile.descriptor_load %arg5[{{.*}}] : !tile.tensordesc<tensor<128x64xf16>> -> tensor<128x64xf16>
CHECK: %[[BT:.*]] = tile.trans %[[B]] {order = array<i32: 1, 0>}
CHECK: tile.dot %[[A]], %[[BT]]
CHECK: arith.truncf %{{.*}} : tensor<128x128xf32> to tensor<128x128xf16>
CHECK: tile.descriptor_store %arg10
""", tmp_path)


@pytest.mark.parametrize("subtile", [True, False], ids=["subtile", "whole"])
def test_tutorial_tma_persistent_kernel_ir(subtile, frontend_only, quiet_loop_options):
    config = persistent_config(subtile)
    bn = config.kwargs["BLOCK_SIZE_N"] // (2 if subtile else 1)
    a, b = desc((256, 128), [128, 64], np.float16), desc((256, 128), [128, 64], np.float16)
    c = desc((256, 256), [128, bn], np.float16)
    k = tut.matmul_kernel_tma_persistent.fn.warmup(
        a, b, c, 256, 256, 128, FP8_OUTPUT=False, NUM_SMS=132, WARP_SPECIALIZE=False,
        grid=(1,), **meta(config))
    tile = k.asm["tile"]
    assert tile.count("tile.descriptor_store") == (2 if subtile else 1)
    assert f"!tile.tensordesc<tensor<128x{bn}xf16>>, tensor<128x{bn}xf16>" in tile


def test_tutorial_descriptor_persistent_kernel_ir(frontend_only, quiet_loop_options):
    x = aligned((256, 128), np.float16)
    c = aligned((256, 256), np.float16)
    k = tut.matmul_kernel_descriptor_persistent.fn.warmup(
        x, x, c, 256, 256, 128, NUM_SMS=132, WARP_SPECIALIZE=False, FLATTEN=True, grid=(1,),
        **meta(persistent_config(True, DEVICE_DESC_CONFIGS)))
    tile = k.asm["tile"]
    assert tile.count("tile.make_tensor_descriptor") == 3
    assert tile.count("tile.descriptor_store") == 2


# In the interpreter, on odd sizes: rows padded to 16 bytes (the TMA's
# stride rule) with NaN in the padding, so a load past K that read memory
# instead of zeros shows; outputs poisoned with NaN inside a larger NaN
# buffer, so unwritten elements and writes out of bounds show.
ODD = [(77, 300, 136), (150, 40, 72)]


def padded(rows, cols, rng, fill=None):
    width = -(-cols // 8) * 8
    buf = aligned((rows + 3, width), np.float16, fill=np.nan)
    view = buf[:rows, :cols]
    if fill is None:
        view[...] = rng.standard_normal((rows, cols)) * cols ** -0.25
    return buf, view


def check_output(buf, c, ref):
    assert not np.isnan(c).any(), "unwritten outputs"
    err = np.abs(c.astype(np.float64) - ref).max() / np.abs(ref).max()
    assert err < 1e-2, err
    outside = np.ones(buf.shape, bool)
    outside[:c.shape[0], :c.shape[1]] = False
    assert np.isnan(buf[outside]).all(), "written out of bounds"


@pytest.fixture
def interpreted_tutorial(monkeypatch, quiet_loop_options):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    for name in ("matmul_kernel_tma", "matmul_kernel_tma_persistent",
                 "matmul_kernel_descriptor_persistent"):
        monkeypatch.setattr(getattr(tut, name), "configs", getattr(tut, name).configs)
    yield


@pytest.mark.parametrize("kernel", ["tma", "tma_persistent"])
@pytest.mark.parametrize("shape", ODD, ids=lambda s: "x".join(map(str, s)))
def test_tutorial_host_descriptor_kernels_interpreted(kernel, shape, interpreted_tutorial):
    """As the tutorial's wrappers launch them: descriptors made with the
    placeholder [1, 1] block, which the tutorial's pre_hook sets to the
    config's blocks; a persistent grid of 3 programs, several tiles each."""
    M, N, K = shape
    rng = np.random.default_rng(M * N * K)
    _, a = padded(M, K, rng)
    _, b = padded(N, K, rng)
    c_buf, c = padded(M, N, rng, fill=np.nan)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    dummy_block = [1, 1]
    a_desc, b_desc, c_desc = (TensorDescriptor.from_tensor(x, dummy_block) for x in (a, b, c))
    if kernel == "tma":
        tuner, extra, programs = tut.matmul_kernel_tma, {}, None
        tuner.configs = [TMA_CONFIG]
    else:
        tuner, extra, programs = tut.matmul_kernel_tma_persistent, {"NUM_SMS": 3}, 3
        tuner.configs = [persistent_config(M % 2 == 1)]

    def grid(META):
        tiles = warpforge.cdiv(M, META["BLOCK_SIZE_M"]) * warpforge.cdiv(N, META["BLOCK_SIZE_N"])
        return (min(programs or tiles, tiles),)

    tuner[grid](a_desc, b_desc, c_desc, M, N, K, FP8_OUTPUT=False, WARP_SPECIALIZE=False,
                **extra)
    bn = tuner.configs[0].kwargs["BLOCK_SIZE_N"]
    assert a_desc.block_shape == [128, tuner.configs[0].kwargs["BLOCK_SIZE_K"]]
    assert c_desc.block_shape[1] in (bn, bn // 2)
    check_output(c_buf, c, ref)


@pytest.mark.parametrize("subtile", [True, False], ids=["subtile", "whole"])
def test_tutorial_device_descriptor_kernel_interpreted(subtile, interpreted_tutorial):
    """Contiguous operands (the kernel's strides are [K, 1] and [N, 1]) with
    K and N whose rows are 16-byte multiples, M odd: partial tiles in every
    dimension."""
    M, N, K = 150, 136, 72
    rng = np.random.default_rng(7)
    a = aligned((M, K), np.float16)
    a[...] = rng.standard_normal((M, K)) * K ** -0.25
    b = aligned((N, K), np.float16)
    b[...] = rng.standard_normal((N, K)) * K ** -0.25
    c_buf = aligned((M * N + 64,), np.float16, fill=np.nan)
    c = c_buf[:M * N].reshape(M, N)
    tut.matmul_kernel_descriptor_persistent.configs = [
        persistent_config(subtile, DEVICE_DESC_CONFIGS)]
    tut.matmul_kernel_descriptor_persistent[(3,)](a, b, c, M, N, K, NUM_SMS=3,
                                                 WARP_SPECIALIZE=False, FLATTEN=True)
    assert not np.isnan(c).any() and np.isnan(c_buf[M * N:]).all()
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    assert np.abs(c - ref).max() / np.abs(ref).max() < 1e-2


def test_tutorial_source_is_shared_with_triton():
    """The file imports Triton's modules instead when executed with BACKEND
    = "triton" (bench/matmul.py's TMA variants): nothing else differs."""
    path = os.path.join(os.path.dirname(__file__), "tutorial09_kernels.py")
    source = open(path).read()
    assert 'globals().get("BACKEND", "warpforge") == "triton"' in source
    assert "import warpforge as triton" in source


# ---------------------------------------------------------------------------
# Warp specialization of the tutorial's kernels (compiled on the CPU)
# ---------------------------------------------------------------------------


def ws_warmup(kernel, n_buffers, groups=2, block_n=256, warp_specialize=False,
              base=lambda: aligned((1024, 1024), np.float16), fp8=False, **options):
    """`kernel` (tutorial 09's) compiled for 1024^3 with num_warps=4 and
    seed 000's knobs; `options`: more launch options (ping_pong), and
    subtile=True for the persistent kernel's EPILOGUE_SUBTILE."""
    descs = [TensorDescriptor.from_tensor(base(), [1, 1]) for _ in range(3)]
    meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": block_n, "BLOCK_SIZE_K": 128 if fp8 else 64,
            "GROUP_SIZE_M": 8, "FP8_OUTPUT": fp8, "WARP_SPECIALIZE": warp_specialize}
    if kernel is tut.matmul_kernel_tma_persistent:
        meta.update(EPILOGUE_SUBTILE=options.pop("subtile", False), NUM_SMS=132)
    tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                        "c_desc": descs[2], **meta})
    return kernel.fn.warmup(*descs, 1024, 1024, 1024, grid=(1,), num_warps=4, num_stages=3,
                            num_consumer_groups=groups, num_buffers_warp_spec=n_buffers,
                            **meta, **options)


def test_warp_specialized_tutorial_kernel_compiles_with_its_partitions(monkeypatch):
    """Two consumer groups of 4 warps and a producer warpgroup: 384 threads,
    the producer's TMA copies and the register moves in the PTX."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        k = ws_warmup(tut.matmul_kernel_tma, 3)
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]
    assert k.metadata["num_warps"] == 8 and k.metadata["partition_warps"] == 4
    assert k.metadata["num_threads"] == 384
    ptx = " ".join(k.asm["ptx"].split())
    assert "setmaxnreg.inc.sync.aligned.u32 232" in ptx
    assert "setmaxnreg.dec.sync.aligned.u32 40" in ptx
    assert "cp.async.bulk.tensor" in ptx and "mbarrier.try_wait.parity" in ptx


def test_warp_specialization_without_room_for_its_buffers_falls_back(monkeypatch):
    """Five 48 KiB slots (the epilogue buffer may reuse them) do not fit in the
    H100's 227 KiB: the kernel compiles unspecialized (one warning at the
    kernel naming the knobs and the shared memory) instead of failing."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with pytest.warns(warpforge.WarpSpecializationWarning,
                      match=r"matmul_kernel_tma: warp specialization declined: "
                            r"num_consumer_groups=2 with num_buffers_warp_spec=5 needs more "
                            r"shared memory than the GPU has .*; compiled without it") as rec:
        k = ws_warmup(tut.matmul_kernel_tma, 5)
    assert (rec[0].filename, rec[0].lineno) == (tut.matmul_kernel_tma.fn.filename,
                                                tut.matmul_kernel_tma.fn.first_line)
    assert "tilegpu.warp_specialize" not in k.asm["tilegpu"]
    assert k.metadata["num_threads"] == 128


def test_fallback_warning_comes_again_from_the_disk_cache(monkeypatch, tmp_path):
    """A kernel whose warp specialization was declined, loaded from the disk
    cache (a second run of the script, another process of a test run), says
    so again at the same line: the decline is stored with the kernel.
    Before 2026-11-28 only the run that compiled it warned."""
    import warpforge.runtime.jit as jit_module
    monkeypatch.setenv("WARPFORGE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("WARPFORGE_ALWAYS_COMPILE", raising=False)
    kernel = tut.matmul_kernel_tma.fn
    kernel.cache.clear()
    with pytest.warns(warpforge.WarpSpecializationWarning) as compiled:
        first = ws_warmup(tut.matmul_kernel_tma, 5)
    assert first.metadata["declines"][0]["category"] == "WarpSpecializationWarning"
    kernel.cache.clear()

    def no_compile(*args, **kwargs):
        raise AssertionError("compiled again instead of loading the disk cache")
    monkeypatch.setattr(jit_module, "compile_kernel", no_compile)
    with pytest.warns(warpforge.WarpSpecializationWarning) as loaded:
        second = ws_warmup(tut.matmul_kernel_tma, 5)
    assert "tilegpu.warp_specialize" not in second.asm["tilegpu"]
    assert [(str(w.message), w.filename, w.lineno) for w in loaded] == \
        [(str(w.message), w.filename, w.lineno) for w in compiled
         if issubclass(w.category, warpforge.WarpSpecializationWarning)]
    kernel.cache.clear()


def test_persistent_kernel_with_consumer_groups_is_specialized_quietly(monkeypatch):
    """The persistent kernel's tile loop (flatten=True) under
    num_consumer_groups: specialized, the producer walking the tiles, and no
    warning that flattening is unsupported (warp specialization does it)."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnsupportedOptionWarning)
        k = ws_warmup(tut.matmul_kernel_tma_persistent, 3)
    assert 'tilegpu.partition = "producer-tiles"' in k.asm["tilegpu"]


# Ping-pong (ping_pong=True): two consumer groups of num_warps=4 warps, each
# computing whole 128x128 tiles of the persistent tile loop (every other
# tile) and taking turns at the tensor cores on named barriers.


@pytest.mark.parametrize("warp_specialize", [False, True], ids=["knobs", "range"])
@pytest.mark.parametrize("n_buffers", [2, 3, 4])
def test_persistent_kernel_ping_pong_compiles_two_groups(n_buffers, warp_specialize,
                                                         monkeypatch):
    """The persistent kernel with ping_pong (seed 000's knobs, or with them
    tutorial 09's WARP_SPECIALIZE=True): a producer warpgroup and two
    groups of 4 warps (384 threads), each group a loop over its tiles
    marked with its number, turns taken on named barriers (bar.sync /
    bar.arrive), both groups raising their registers to 232 and the
    producer lowering its own to 40; no warning, no spills; 2 to 4 slots of
    32 KiB and two 32 KiB epilogue buffers fit."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        warnings.simplefilter("error", UnsupportedOptionWarning)
        k = ws_warmup(tut.matmul_kernel_tma_persistent, n_buffers, block_n=128,
                      warp_specialize=warp_specialize, ping_pong=True)
    assert (k.metadata["num_warps"], k.metadata["partition_warps"],
            k.metadata["num_threads"]) == (4, 8, 384)
    assert k.options.ping_pong and k.options.num_consumer_groups == 2
    tilegpu = k.asm["tilegpu"]
    assert "tilegpu.warp_specialize" in tilegpu
    assert "tilegpu.named_barrier_wait" in tilegpu and "tilegpu.named_barrier_arrive" in tilegpu
    groups = re.findall(r'"tilegpu.consumer-group" = (\d+) : i32, '
                        r'tilegpu.partition = "consumer-tiles"', tilegpu)
    assert sorted(groups) == ["0", "1"], groups
    ptx = " ".join(k.asm["ptx"].split())
    assert "bar.arrive" in ptx and re.search(r"bar\.sync \d+, 256;", ptx)
    assert ptx.count("setmaxnreg.inc.sync.aligned.u32 232") == 2
    assert ptx.count("setmaxnreg.dec.sync.aligned.u32 40") == 1
    assert "cp.async.bulk.tensor" in ptx and "mbarrier.try_wait.parity" in ptx
    assert k.metadata["shared"] >= (n_buffers + 2) * 32 * 1024
    assert (k.metadata["spill_stores"], k.metadata["spill_loads"]) == (0, 0), \
        k.metadata["ptxas_log"]


def test_ping_pong_named_barriers_alternate(monkeypatch):
    """The turns: group 1 hands the tensor cores to group 0 once before its
    loop; then each group waits for its turn before its products and hands
    over after them, on two barriers of both groups' 256 threads."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    k = ws_warmup(tut.matmul_kernel_tma_persistent, 3, block_n=128, ping_pong=True)
    ops = re.findall(r"tilegpu\.named_barrier_(wait|arrive) (\d+), (\d+)", k.asm["tilegpu"])
    assert {threads for _, _, threads in ops} == {"256"}
    first, second = ops[0][1], ops[1][1]
    # group 0: wait(first) ... arrive(second); group 1: arrive(first) before
    # its loop, then wait(second) ... arrive(first).
    assert [(op, i) for op, i, _ in ops] == [("wait", first), ("arrive", second),
                                            ("arrive", first), ("wait", second),
                                            ("arrive", first)]
    assert first != second


@pytest.mark.xfail(strict=True, reason="fp8 ping-pong spills 40 bytes (16-byte stack "
                   "frame) where fp16, bf16 and fp8 with cooperative groups do not: "
                   "reported; drop this mark when it is fixed")
def test_persistent_kernel_ping_pong_fp8_without_spills(monkeypatch):
    """fp8 (BLOCK_K 128, fp8 output): the same two groups, and no spills."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    k = ws_warmup(tut.matmul_kernel_tma_persistent, 3, block_n=128, fp8=True,
                  base=lambda: Float8((1024, 1024)), ping_pong=True)
    assert k.metadata["num_threads"] == 384
    assert (k.metadata["spill_stores"], k.metadata["spill_loads"]) == (0, 0), \
        k.metadata["ptxas_log"]


class Float8:
    """What a descriptor reads of a torch float8_e4m3fn tensor (NumPy has no
    fp8): dtype, shape, strides, a 16-byte aligned address."""

    dtype = "torch.float8_e4m3fn"

    def __init__(self, shape):
        self.shape = tuple(shape)

    def stride(self, dim=None):
        strides = (self.shape[1], 1)
        return strides if dim is None else strides[dim]

    def data_ptr(self):
        return 1 << 20


class BFloat16(Float8):
    """What a descriptor reads of a torch bfloat16 tensor (NumPy has no
    bf16)."""
    dtype = "torch.bfloat16"


PIPELINE_CASES = [(kernel, dtype, mode) for kernel in ("tma", "tma_persistent")
                  for dtype in ("fp16", "bf16", "fp8") for mode in ("plain", "ws", "ping-pong")
                  if not (mode == "ping-pong" and (kernel == "tma" or dtype == "fp8"))]


@pytest.mark.parametrize("kernel,dtype,mode", PIPELINE_CASES,
                         ids=["-".join(c) for c in PIPELINE_CASES])
def test_tutorial_kernels_keep_the_wgmma_pipeline(monkeypatch, kernel, dtype, mode):
    """ptxas pipelines every wgmma of tutorial 09's kernels (no C75xx
    'wgmma.mma_async instructions are serialized' warning): unspecialized
    (8 warps), with two consumer groups, and ping-pong; fp16, bf16 (whose
    epilogue rounds to fp16 and widens again before the bf16 store: scalar
    conversions there made ptxas serialize the bf16 kernel, a fifth slower
    on the H100) and fp8."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    fn = {"tma": tut.matmul_kernel_tma, "tma_persistent": tut.matmul_kernel_tma_persistent}[kernel]
    fp8 = dtype == "fp8"
    base = {"fp16": lambda: aligned((1024, 1024), np.float16),
            "bf16": lambda: BFloat16((1024, 1024)), "fp8": lambda: Float8((1024, 1024))}[dtype]
    if mode == "plain":
        descs = [TensorDescriptor.from_tensor(base(), [1, 1]) for _ in range(3)]
        meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": 128 if fp8 else 64,
                "GROUP_SIZE_M": 8, "FP8_OUTPUT": fp8, "WARP_SPECIALIZE": False}
        if kernel == "tma_persistent":
            meta.update(EPILOGUE_SUBTILE=False, NUM_SMS=132)
        tut.matmul_tma_set_block_size_hook({"a_desc": descs[0], "b_desc": descs[1],
                                            "c_desc": descs[2], **meta})
        with warnings.catch_warnings():  # the unflattened persistent loop
            warnings.simplefilter("ignore", UnsupportedOptionWarning)
            k = fn.fn.warmup(*descs, 1024, 1024, 1024, grid=(1,), num_warps=8, num_stages=3,
                             **meta)
    else:
        extra = {"ping_pong": True, "block_n": 128} if mode == "ping-pong" else {}
        k = ws_warmup(fn, 3, fp8=fp8, base=base, **extra)
        assert k.metadata["partition_warps"] == (8 if mode == "ping-pong" else 4)
    assert k.metadata["wgmma_serialized"] == 0, k.metadata["ptxas_log"]


def test_ping_pong_without_a_persistent_loop_runs_one_group(monkeypatch):
    """tutorial 09's non-persistent kernel has no tile loop to share out:
    ping-pong declines at the kernel's loop with a warning saying why, and
    the kernel is warp-specialized with one cooperative group of num_warps
    warps and the producer (256 threads)."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with pytest.warns(warpforge.WarpSpecializationWarning,
                      match=r"matmul_kernel_tma: ping-pong declined: the kernel has no persistent "
                            r"tile loop .*; one consumer group of num_warps warps instead$") \
            as record:
        k = ws_warmup(tut.matmul_kernel_tma, 3, block_n=128, ping_pong=True)
    assert len(record) == 1
    fn = tut.matmul_kernel_tma.fn
    loop_line = fn.first_line + next(i for i, line in enumerate(fn.source_lines)
                                     if "tl.range(k_tiles" in line)
    assert (record[0].filename, record[0].lineno) == (fn.filename, loop_line)
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]
    assert "named_barrier" not in k.asm["tilegpu"]
    assert (k.metadata["num_warps"], k.metadata["partition_warps"],
            k.metadata["num_threads"]) == (4, 4, 256)


def test_ping_pong_without_room_for_two_epilogues_runs_cooperative(monkeypatch):
    """The subtiled epilogue's buffers and exchanges, once per ping-pong
    group, do not fit beside the ring (268 KB): ping-pong declines with a
    warning at the kernel and the two groups split each tile instead
    (cooperative: 8 consumer warps), rather than dropping warp
    specialization."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    with pytest.warns(warpforge.WarpSpecializationWarning,
                      match=r"matmul_kernel_tma_persistent: ping-pong declined: two groups' "
                            r"epilogues .* need more shared memory than the GPU has .*; the two "
                            r"consumer groups split each tile instead") as record:
        k = ws_warmup(tut.matmul_kernel_tma_persistent, 2, block_n=128, ping_pong=True,
                      subtile=True)
    assert len(record) == 1
    assert (k.metadata["num_warps"], k.metadata["partition_warps"]) == (8, 4)
    assert "named_barrier" not in k.asm["tilegpu"]
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]


@warpforge.jit
def _attend_blocks(acc, l_i, m_i, q, k_desc, v_desc, lo, hi, BN: tl.constexpr):
    for start in tl.range(lo, hi, BN, warp_specialize=True):
        qk = tl.dot(q, k_desc.load([start, 0]).T)
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = tl.dot(p.to(tl.float16), v_desc.load([start, 0]), acc * alpha[:, None])
        m_i = m_ij
    return acc, l_i, m_i


@warpforge.jit
def attention_ws(q_desc, k_desc, v_desc, o_ptr, S, BM: tl.constexpr, BN: tl.constexpr,
                 D: tl.constexpr):
    q = q_desc.load([0, 0])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_desc, v_desc, 0, S, BN)
    r = tl.arange(0, BM)
    tl.store(o_ptr + r[:, None] * D + tl.arange(0, D)[None, :], acc / l_i[:, None])


@warpforge.jit
def attention_two_loops_ws(q_desc, k_desc, v_desc, o_ptr, S, BM: tl.constexpr,
                           BN: tl.constexpr, D: tl.constexpr):
    q = q_desc.load([0, 0])
    m_i = tl.zeros([BM], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BM], dtype=tl.float32)
    acc = tl.zeros([BM, D], dtype=tl.float32)
    half = (S // 2) // BN * BN
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_desc, v_desc, 0, half, BN)
    acc, l_i, m_i = _attend_blocks(acc, l_i, m_i, q, k_desc, v_desc, half, S, BN)
    r = tl.arange(0, BM)
    tl.store(o_ptr + r[:, None] * D + tl.arange(0, D)[None, :], acc / l_i[:, None])


@warpforge.jit
def tiles_product_after(a_desc, b_desc, o_ptr, K, TILES, BM: tl.constexpr, BN: tl.constexpr,
                        BK: tl.constexpr):
    # Persistent: each tile's K loop (software-pipelined, rotated into the
    # tile loop), then a product of the tile loop's own, whose operands it
    # loads itself (as the rotated attention's last PV after its loop).
    for tile in tl.range(tl.program_id(0), TILES, tl.num_programs(0)):
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k in tl.range(0, K, BK):
            acc = tl.dot(a_desc.load([tile * BM, k]), b_desc.load([0, k]).T, acc)
        acc = tl.dot(a_desc.load([tile * BM, K]), b_desc.load([BN, K]).T, acc)
        r = tile * BM + tl.arange(0, BM)
        tl.store(o_ptr + r[:, None] * BN + tl.arange(0, BN)[None, :], acc)


def test_tile_loop_with_its_own_product_after_a_pipelined_loop(monkeypatch):
    """A tile loop whose K loop the software pipeliner rotates into it, and
    which loads for a product of its own after that loop: the K loop's
    rings live across tiles (allocated once, before the tile loop), the
    tile loop's own loads stay descriptor loads. The pipeliner crashed here
    (2026-11-27: rotating the K loop replaced the tile loop under the tile
    loop's own plan)."""
    import re
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    a = desc((1024, 320), [128, 64], np.float16)
    b = desc((256, 320), [128, 64], np.float16)
    k = tiles_product_after.warmup(a, b, aligned((1024 * 128,), np.float32), 256, 7, BM=128,
                                   BN=128, BK=64, num_warps=8, num_stages=3, grid=(2,))
    tilegpu = k.asm["tilegpu"]
    func = tilegpu[tilegpu.index("tile.func public @tiles_product_after"):]
    tile_loop = func.index("scf.for")
    rings = re.findall(r"tilegpu.local_alloc : \(\) -> !tilegpu.memdesc<\w+, [^>]*>?[^\n]*buffers = 3",
                       func)
    assert len(rings) == 3  # A, B and the barriers, once
    assert all(func.index(r) < tile_loop for r in rings)
    assert "cubin" in k.asm


def test_attention_loops_in_a_row_share_one_producer(monkeypatch):
    """Two warp-specialized loops in a row over the same K and V blocks (the
    causal attention's blocks left of the diagonal, then the diagonal's):
    one channel and one producer partition for both, each side's second
    loop counting on from where its first stopped; no warning. Q, read by
    both loops, is the producer's too: a one-slot channel of its own, copied
    once before the first loop's blocks."""
    import re
    import warnings
    from warpforge.compiler.options import WarpSpecializationWarning
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    q = desc((128, 64), [128, 64], np.float16)
    kv = desc((1024, 64), [64, 64], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        k = attention_two_loops_ws.warmup(q, kv, kv, aligned((128 * 64,)), 1024, BM=128,
                                          BN=64, D=64, num_warps=8, grid=(1,))
    tilegpu = k.asm["tilegpu"]
    channels = re.findall(r"tilegpu.create_channel [^\n]*-> !tilegpu.channel<(\d+)>", tilegpu)
    assert len(channels) == 2 and channels.count("1") == 1, channels
    assert tilegpu.count('{tilegpu.partition = "producer"}') == 2
    assert tilegpu.count('{tilegpu.partition = "consumer"}') == 2
    # K and V in each loop, Q once.
    assert len(re.findall(r"tilegpu.channel_tma_load", tilegpu)) == 5
    assert "tile.descriptor_load" not in tilegpu[tilegpu.index("tilegpu.warp_specialize"):]
    assert "cubin" in k.asm


def _attention_ws_without_warning(monkeypatch, D, BN, **options):
    """attention_ws compiled at head dimension D with BN-row K/V blocks
    (a 128-row Q block, 8 warps); a WarpSpecializationWarning fails."""
    import warnings
    from warpforge.compiler.options import WarpSpecializationWarning
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    q = desc((128, D), [128, D], np.float16)
    kv = desc((1024, D), [BN, D], np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WarpSpecializationWarning)
        return attention_ws.warmup(q, kv, kv, aligned((128 * D,)), 1024, BM=128, BN=BN, D=D,
                                   num_warps=8, grid=(1,), **options)


def test_attention_loop_is_warp_specialized(monkeypatch):
    """An attention loop under warp_specialize=True: the producer copies K
    and V, and Q (loaded before the loop) through a one-slot channel of its
    own; P (the softmax, in registers: the second product's A operand)
    stays with the consumers. Two consumer warpgroups take turns issuing
    each product; no warning."""
    import re
    k = _attention_ws_without_warning(monkeypatch, 64, 64)
    tilegpu = k.asm["tilegpu"]
    assert "tilegpu.warp_specialize" in tilegpu
    assert k.metadata["partition_warps"] == 4 and k.metadata["num_threads"] == 384
    # K and V through the channel, Q through its own, all in the producer.
    assert len(re.findall(r"tilegpu.channel_tma_load", tilegpu)) == 3
    assert re.search(r"tilegpu.channel_tma_load %\w+\[%\w+\] %\w+\[[^]]*\] -> 0 : !tilegpu.channel<1>",
                     tilegpu)
    assert "tile.descriptor_load" not in tilegpu[tilegpu.index("tilegpu.warp_specialize"):]
    assert tilegpu.count("tilegpu.warp_group_turn_wait 3, 2 loc") == 2
    assert tilegpu.count("tilegpu.warp_group_turn_pass 3, 2 loc") == 2
    assert "tilegpu.warp_group_turn_pass 3, 2 only 1" in tilegpu
    assert "tilegpu.warp_group_turn_wait 3, 2 only 0" in tilegpu
    ptx = k.asm["ptx"]
    assert re.search(r"bar\.sync %r\d+, 256", ptx) and re.search(r"bar\.arrive %r\d+, 256", ptx)
    assert "setmaxnreg.inc" in ptx and "cubin" in k.asm


def test_attention_channel_slots_are_reused_after_the_loop(monkeypatch):
    """128x128 K/V blocks at D128 under warp_specialize=True: the consumers'
    epilogue takes the channel slots' bytes once their last loop is done
    with them, so the specialized kernel fits (it needed 266 KB before)."""
    k = _attention_ws_without_warning(monkeypatch, 128, 128, num_stages=2)
    assert "tilegpu.warp_specialize" in k.asm["tilegpu"]
    assert k.metadata["partition_warps"] == 4 and k.metadata["shared"] <= 170 * 1024


def test_attention_loop_too_large_either_way_is_out_of_resources(monkeypatch):
    """When the kernel does not fit without warp specialization either, the
    unspecialized kernel's OutOfResources error is raised (after the
    warning that specialization was declined)."""
    from warpforge.compiler.options import WarpSpecializationWarning
    from warpforge.errors import OutOfResources
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    q = desc((128, 256), [128, 256], np.float16)
    kv = desc((1024, 256), [64, 256], np.float16)
    with pytest.warns(WarpSpecializationWarning, match="declined"), \
            pytest.raises(OutOfResources, match="num_stages=3 is too large"):
        attention_ws.warmup(q, kv, kv, aligned((128 * 256,)), 1024, BM=128, BN=64, D=256,
                            num_warps=8, num_stages=3, grid=(1,))


@warpforge.jit
def _two_product_loops_per_tile(a_desc, b_desc, c_ptr, K, num_tiles):
    for tile in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), warp_specialize=True):
        acc = tl.zeros([128, 128], dtype=tl.float32)
        for k in tl.range(0, K, 64):
            acc = tl.dot(a_desc.load([tile * 128, k]), b_desc.load([0, k]).T, acc)
        for k in tl.range(0, K, 64):
            acc = tl.dot(a_desc.load([tile * 128, k]), b_desc.load([0, k]).T, acc)
        offs = tl.arange(0, 128)
        tl.store(c_ptr + (tile * 128 + offs)[:, None] * 128 + offs[None, :], acc)


def test_tile_loop_with_two_product_loops_falls_back_with_a_warning(monkeypatch):
    """A persistent tile loop holding two loops of products is not
    specialized: it compiles without warp specialization, with a
    WarpSpecializationWarning at the kernel saying why."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    from warpforge.tools.tensor_descriptor import TensorDescriptor
    x = np.ones((512, 256), np.float16)
    desc = TensorDescriptor.from_tensor(x, [128, 64])
    c = np.zeros((512, 128), np.float32)
    with pytest.warns(warpforge.WarpSpecializationWarning,
                      match="the tile loop has more than one loop of tl.dot products"):
        k = _two_product_loops_per_tile.warmup(desc, desc, c, 256, 4, num_warps=4,
                                               num_stages=2, grid=(1,))
    assert "tilegpu.warp_specialize" not in k.asm["tilegpu"] and k.asm["cubin"]


@warpforge.jit
def _block_once_a_tile(a_desc, w_desc, o_desc, K, num_tiles, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr):
    # Persistent: each tile reads one BN x BK block of W (transposed, the
    # products' right operand) in every step of its K loop.
    for tile in tl.range(tl.program_id(0), num_tiles, tl.num_programs(0), warp_specialize=True):
        w = w_desc.load([tile * BN, 0]).T
        acc = tl.zeros([BM, BN], dtype=tl.float32)
        for k in tl.range(0, K, BK):
            acc = tl.dot(a_desc.load([tile * BM, k]), w, acc)
        o_desc.store([tile * BM, 0], acc.to(tl.float16))


def _compile_block_once_a_tile(monkeypatch, **options):
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")
    a = desc((512, 256), [128, 64], np.float16)
    w = desc((512, 64), [128, 64], np.float16)
    o = desc((512, 128), [128, 128], np.float16)
    return _block_once_a_tile.warmup(a, w, o, 256, 4, BM=128, BN=128, BK=64, grid=(1,),
                                     num_stages=2, **options)


def test_block_read_once_a_tile_is_the_producers(monkeypatch):
    """A block loaded once per tile and read by every product of the tile's
    K loop (a transposed right operand) is copied by the producer, once a
    tile, through a one-slot channel of its own; the consumers read it
    through memdesc_trans. No warning."""
    import re
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", warpforge.WarpSpecializationWarning)
        k = _compile_block_once_a_tile(monkeypatch, num_warps=4)
    tilegpu = k.asm["tilegpu"]
    channels = re.findall(r"tilegpu.create_channel [^\n]*-> !tilegpu.channel<(\d+)>", tilegpu)
    assert sorted(channels) == ["1", "2"], channels
    specialized = tilegpu[tilegpu.index("tilegpu.warp_specialize"):]
    producer = specialized[specialized.index("partition0("):]
    # The consumers copy nothing themselves (their own loads would be TMA
    # copies of their own by this stage).
    assert "async_tma_copy_global_to_local" not in specialized[:specialized.index("partition0(")]
    # One copy of W a tile, before the tile's K loop.
    tile_loop = producer[producer.index("scf.for"):]
    once = tile_loop.index(": !tilegpu.channel<1>, !tile.tensordesc")
    assert once < tile_loop.index('{tilegpu.partition = "producer"}')
    assert re.search(r"tilegpu.channel_wait %\w+, %\w+ : !tilegpu.channel<1> -> [^\n]*\n"
                     r"[^\n]*tilegpu.memdesc_trans", specialized)
    assert k.asm["cubin"]


def test_block_read_once_a_tile_stays_the_consumers_in_ping_pong(monkeypatch):
    """With ping-pong, each group's tile would wait for the other group's
    release of a one-slot channel: the block stays each group's own TMA
    load. The K loop's run-time trip count ((K + 63) / 64, each group
    skipping the other's tiles) is plain arithmetic: arith.ceildivsi has
    no lowering to LLVM, and this kernel failed to compile with it."""
    import re
    k = _compile_block_once_a_tile(monkeypatch, num_warps=4, num_consumer_groups=2,
                                   num_buffers_warp_spec=2, ping_pong=True)
    tilegpu = k.asm["tilegpu"]
    assert not re.search(r"-> !tilegpu.channel<1>", tilegpu)
    specialized = tilegpu[tilegpu.index("tilegpu.warp_specialize"):]
    groups = [specialized[:specialized.index("partition0(")],
              specialized[specialized.index("partition1("):]]
    assert all(g.count("async_tma_copy_global_to_local") == 1 for g in groups)
    assert "arith.ceildivsi" not in tilegpu
    assert k.asm["cubin"]
