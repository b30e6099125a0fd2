"""Tile IR of real kernels -> tilegpu IR through the `tile-to-tilegpu`
pipeline: every kernel converts and verifies, tensors get the layouts the
lowering expects, and the conversions that are not needed are gone."""

import numpy as np
import pytest

import warpforge
import warpforge.language as tl
from warpforge import IRError, ir

import zoo
from filecheck import filecheck

F32 = np.zeros(64, np.float32)
F16 = np.zeros(64, np.float16)
I32 = np.zeros(64, np.int32)
I64 = np.zeros(64, np.int64)

BLOCKED_1D_4 = ("#tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], "
                "warpsPerCTA = [4], order = [0]>")
BLOCKED_64x64 = ("#tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], "
                 "warpsPerCTA = [4, 1], order = [1, 0]>")
# With 16-bit memory accesses a thread takes 8 elements: one 16-byte access.
BLOCKED_64x64_16BIT = ("#tilegpu.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
                       "warpsPerCTA = [4, 1], order = [1, 0]>")


@warpforge.jit
def transpose_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr,
                     BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride_xm + rn[None, :], mask=mask)
    mask_t = (rn[:, None] < N) & (rm[None, :] < M)
    tl.store(y_ptr + rn[:, None] * stride_ym + rm[None, :], tl.trans(x), mask=mask_t)


@warpforge.jit
def reduce_kernel(x_ptr, sum_ptr, max_ptr, idx_ptr, M, N, stride, AXIS: tl.constexpr,
                  BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    x = tl.load(x_ptr + rm[:, None] * stride + rn[None, :], mask=mask, other=0.0)
    if AXIS == 0:
        out = rn
        out_mask = rn < N
    else:
        out = rm
        out_mask = rm < M
    tl.store(sum_ptr + out, tl.sum(x, axis=AXIS), mask=out_mask)
    tl.store(max_ptr + out, tl.max(x, axis=AXIS), mask=out_mask)
    tl.store(idx_ptr + out, tl.argmax(x, axis=AXIS), mask=out_mask)


@warpforge.jit
def histogram_kernel(x_ptr, hist_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(hist_ptr + x % NUM_BINS, 1, mask=mask)


def to_tilegpu(kernel) -> str:
    """The kernel's optimized tile IR through the JIT's tilegpu stages
    (tile-to-tilegpu with its num_warps, then tilegpu-optimize); the result
    parses and verifies again."""
    pipeline = f"tile-to-tilegpu{{num-warps={kernel.options.num_warps}}},tilegpu-optimize"
    text = ir.run_pipeline(kernel.asm["tile"], pipeline)
    assert ir.parse(text) == text
    return text


def test_vector_add(tmp_path):
    k = zoo.add_kernel.warmup(F32, F32, F32, 1000, BLOCK_SIZE=1024, grid=(1,))
    filecheck(to_tilegpu(k), f"""
CHECK: #[[B:blocked[0-9]*]] = {BLOCKED_1D_4}
CHECK: module attributes {{"tilegpu.num-buffers-warp-spec" = 0 : i32, "tilegpu.num-consumer-groups" = 0 : i32, "tilegpu.num-ctas" = 1 : i32, "tilegpu.num-stages" = 3 : i32, "tilegpu.num-warps" = 4 : i32, tilegpu.target = "cuda:90", "tilegpu.threads-per-warp" = 32 : i32}}
CHECK-LABEL: tile.func public @add_kernel
CHECK-NOT: tilegpu.convert_layout
CHECK: tile.make_range {{{{.*}}}} : tensor<1024xi32, #[[B]]>
CHECK: tile.load %{{{{.*}}}}, %{{{{.*}}}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
CHECK: arith.addf %{{{{.*}}}}, %{{{{.*}}}} : tensor<1024xf32, #[[B]]>
CHECK: tile.store %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


def test_vector_add_with_8_warps(tmp_path):
    k = zoo.add_kernel.warmup(F32, F32, F32, 1000, BLOCK_SIZE=1024, num_warps=8, grid=(1,))
    assert k.options.num_warps == 8
    filecheck(to_tilegpu(k), """
CHECK: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
CHECK: module attributes {{{.*}}"tilegpu.num-warps" = 8 : i32
CHECK: tile.store %{{.*}}, %{{.*}}, %{{.*}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
""", tmp_path)


def test_fused_softmax(tmp_path):
    k = zoo.softmax_kernel.warmup(F32, F32, 781, 781, 1823, 781, BLOCK_SIZE=1024,
                                  num_stages=4, grid=(1,))
    filecheck(to_tilegpu(k), f"""
CHECK: #[[B:blocked[0-9]*]] = {BLOCKED_1D_4}
CHECK-LABEL: tile.func public @softmax_kernel
CHECK-NOT: tilegpu.convert_layout
CHECK: scf.for
CHECK: %[[ROW:.*]] = tile.load %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
CHECK: tile.reduce %[[ROW]] axis = 0 : tensor<1024xf32, #[[B]]> -> f32
CHECK: math.exp %{{{{.*}}}} : tensor<1024xf32, #[[B]]>
CHECK: tile.store %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<1024x!tile.ptr<f32>, #[[B]]>
CHECK: }} {{tile.num_stages = 4 : i32}}
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


def test_layer_norm(tmp_path):
    k = zoo.layer_norm_fwd.warmup(F16, F16, F16, F16, F32, F32, 1151, 1151, 1e-5,
                                  BLOCK_SIZE=512, grid=(1,))
    filecheck(to_tilegpu(k), f"""
CHECK: #[[B:blocked[0-9]*]] = {BLOCKED_1D_4}
CHECK-LABEL: tile.func public @layer_norm_fwd
CHECK-NOT: tilegpu.convert_layout
CHECK: scf.for {{{{.*}}}} iter_args(%{{{{.*}}}} = %{{{{.*}}}}) -> (tensor<512xf32, #[[B]]>)
CHECK: tile.reduce %{{{{.*}}}} axis = 0 : tensor<512xf32, #[[B]]> -> f32
CHECK: scf.for {{{{.*}}}} iter_args(%{{{{.*}}}} = %{{{{.*}}}}) -> (tensor<512xf32, #[[B]]>)
CHECK: tile.store %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<512x!tile.ptr<f16>, #[[B]]>
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


def test_transpose(tmp_path):
    k = transpose_kernel.warmup(F32, F32, 100, 120, 120, 100, BM=64, BN=32, grid=(1,))
    # Load and store each run along their own contiguous dimension (both
    # anchored by tilegpu-coalesce; 16-byte accesses where the masks allow,
    # as in test_permute's unmasked copy); the transposition keeps
    # each element in its thread, and one exchange takes it to the store's
    # layout, as in Triton (test_permute wants st.global.v4 on both sides).
    filecheck(to_tilegpu(k), """
CHECK-DAG: #[[T:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [4, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]>
CHECK-DAG: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
CHECK-DAG: #[[S:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]>
CHECK-LABEL: tile.func public @transpose_kernel
CHECK-NOT: tilegpu.convert_layout
CHECK: %[[X:.*]] = tile.load %{{.*}}, %{{.*}} {tilegpu.coalesced} : tensor<64x32x!tile.ptr<f32>, #[[B]]>
CHECK: %[[XT:.*]] = tile.trans %[[X]] {order = array<i32: 1, 0>} : tensor<64x32xf32, #[[B]]> -> tensor<32x64xf32, #[[T]]>
CHECK-NEXT: %[[Y:.*]] = tilegpu.convert_layout %[[XT]] : tensor<32x64xf32, #[[T]]> -> tensor<32x64xf32, #[[S]]>
CHECK-NEXT: tile.store %{{.*}}, %[[Y]], %{{.*}} {tilegpu.coalesced} : tensor<32x64x!tile.ptr<f32>, #[[S]]>
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


@pytest.mark.parametrize("axis", [0, 1])
def test_sum_max_argmax(tmp_path, axis):
    k = reduce_kernel.warmup(F32, F32, F32, I64, 50, 60, 64, AXIS=axis, BM=64, BN=64,
                             grid=(1,))
    # The reductions' results and the stores of them stay in the slice of the
    # tile's layout; argmax reduces the values and their indices together.
    text = to_tilegpu(k)
    assert "tilegpu.convert_layout" not in text
    filecheck(text, f"""
CHECK-DAG: #[[B:blocked[0-9]*]] = {BLOCKED_64x64}
CHECK-DAG: #[[S:slice[0-9]*]] = #tilegpu.slice<dim = {axis}, parent = #[[B]]>
CHECK-LABEL: tile.func public @reduce_kernel
CHECK: %[[X:.*]] = tile.load %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<64x64x!tile.ptr<f32>, #[[B]]>
CHECK-DAG: tile.reduce %[[X]] axis = {axis} : tensor<64x64xf32, #[[B]]> -> tensor<64xf32, #[[S]]> {{
CHECK-DAG: arith.addf %{{{{.*}}}}, %{{{{.*}}}} : f32
CHECK-DAG: arith.maxnumf %{{{{.*}}}}, %{{{{.*}}}} : f32
CHECK-DAG: tile.reduce %[[X]], %{{{{.*}}}} axis = {axis} : tensor<64x64xf32, #[[B]]>, tensor<64x64xi32, #[[B]]> -> tensor<64xf32, #[[S]]>, tensor<64xi32, #[[S]]>
CHECK-DAG: tile.store %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<64x!tile.ptr<f32>, #[[S]]>
CHECK-DAG: tile.store %{{{{.*}}}}, %{{{{.*}}}}, %{{{{.*}}}} : tensor<64x!tile.ptr<i64>, #[[S]]>
""", tmp_path)
    assert text.count("tile.reduce ") == 3
    assert text.count("-> tensor<64xf32, #slice") == 3


def test_argmax_rows(tmp_path):
    k = zoo.argmax_rows_kernel.warmup(F32, F32, I64, 1000, 1000, BLOCK=1024, grid=(1,))
    filecheck(to_tilegpu(k), f"""
CHECK: #[[B:blocked[0-9]*]] = {BLOCKED_1D_4}
CHECK-NOT: tilegpu.convert_layout
CHECK: tile.reduce %{{{{.*}}}}, %{{{{.*}}}} axis = 0 : tensor<1024xf32, #[[B]]>, tensor<1024xi32, #[[B]]> -> f32, i32
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


def test_histogram_with_atomics(tmp_path):
    k = histogram_kernel.warmup(I32, I32, 1000, NUM_BINS=16, BLOCK=256, grid=(1,))
    filecheck(to_tilegpu(k), """
CHECK: #[[B:blocked[0-9]*]] = #tilegpu.blocked<sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]>
CHECK-NOT: tilegpu.convert_layout
CHECK: %[[X:.*]] = tile.load %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x!tile.ptr<i32>, #[[B]]>
CHECK: arith.remsi %[[X]], %{{.*}} : tensor<256xi32, #[[B]]>
CHECK: tile.atomic_rmw add, acq_rel, gpu, %{{.*}}, %{{.*}}, %{{.*}} : tensor<256x!tile.ptr<i32>, #[[B]]>
CHECK-NOT: tilegpu.convert_layout
""", tmp_path)


def test_matmul_runs_on_wgmma(tmp_path, frontend_only):
    k = zoo.matmul_kernel.warmup(F16, F16, F16, 512, 512, 512, 512, 1, 512, 1, 512, 1,
                                 BLOCK_SIZE_M=64, BLOCK_SIZE_N=64, BLOCK_SIZE_K=32,
                                 GROUP_SIZE_M=8, ACTIVATION="leaky_relu", grid=(1,))
    # On Hopper the operands go to swizzled shared memory (A K-major, B
    # MN-major: both have their last dimension contiguous) through cp.async
    # into 3-buffer rings, the loop carries the accumulator in the wgmma
    # layout with one product in flight, and the only conversion left is
    # the result's, once, after the loop and after the epilogue (the
    # activation and the cast to f16, computed in the accumulator's
    # registers: the exchange moves f16).
    text = to_tilegpu(k)
    assert text.count("tilegpu.convert_layout") == 1
    filecheck(text, """
CHECK-DAG: #[[WG:wgmma[0-9]*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 64, 16]>
CHECK-DAG: #[[NVA:nvmma[0-9]*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 16>
CHECK-DAG: #[[NVB:nvmma[0-9]*]] = #tilegpu.nvmma_shared<swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16>
CHECK: %[[RA:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<64x32xf16, #[[NVA]], mutable, buffers = 3>
CHECK: %[[RB:.*]] = tilegpu.local_alloc : () -> !tilegpu.memdesc<32x64xf16, #[[NVB]], mutable, buffers = 3>
CHECK-COUNT-2: tilegpu.async_commit_group
CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #[[WG]]>,
CHECK: %[[A:.*]] = tilegpu.memdesc_index %[[RA]]
CHECK: %[[B:.*]] = tilegpu.memdesc_index %[[RB]]
CHECK: %[[D:.*]] = tilegpu.warp_group_dot %[[A]], %[[B]], %{{.*}} -> tensor<64x64xf32, #[[WG]]>
CHECK: tilegpu.warp_group_dot_wait %[[D]] {pendings = 1 : i32}
CHECK: tilegpu.async_copy_global_to_local
CHECK: scf.yield
CHECK: tilegpu.warp_group_dot_wait %{{.*}} {pendings = 0 : i32}
CHECK: arith.truncf %{{.*}} : tensor<64x64xf32, #[[WG]]> to tensor<64x64xf16, #[[WG]]>
CHECK: tilegpu.convert_layout %{{.*}} : tensor<64x64xf16, #[[WG]]>
CHECK: tile.store
""", tmp_path)


@warpforge.jit
def int8_matmul_kernel(a_ptr, b_ptr, c_ptr, K, stride_am, stride_bk, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr, ACC_INT32: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.int32 if ACC_INT32 else tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :])
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


def test_int8_matmul_runs_on_wgmma(tmp_path, frontend_only):
    i8 = np.zeros(64, np.int8)
    k = int8_matmul_kernel.warmup(i8, i8, I32, 512, 512, 512, BM=128, BN=128, BK=64,
                                  ACC_INT32=True, grid=(1,))
    # k32 instructions into an i32 accumulator; both operands K-major in
    # shared memory (B, N-major in global memory, through registers).
    filecheck(to_tilegpu(k), """
CHECK-DAG: #[[WG:wgmma[0-9]*]] = #tilegpu.wgmma<warpsPerCTA = [4, 1], instrShape = [64, 128, 32]>
CHECK-DAG: #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = false, elementBitWidth = 8>
CHECK-DAG: #tilegpu.nvmma_shared<swizzlingByteWidth = 64, transposed = true, elementBitWidth = 8>
CHECK: scf.for {{.*}} -> (tensor<128x128xi32, #[[WG]]>
CHECK: tilegpu.warp_group_dot {{.*}} -> tensor<128x128xi32, #[[WG]]>
""", tmp_path)


def test_int8_dot_into_float_is_an_error_at_the_dot():
    from warpforge.compiler.errors import CompilationError
    i8 = np.zeros(64, np.int8)
    with pytest.raises(CompilationError) as info:
        int8_matmul_kernel.warmup(i8, i8, F32, 512, 512, 512, BM=128, BN=128, BK=64,
                                  ACC_INT32=False, grid=(1,))
    err = info.value
    assert "accumulator element type 'f32' is not allowed for 'i8' operands; use i32" \
        in err.message
    assert "tl.dot(" in err.source_line


@pytest.mark.parametrize("blocks, num_warps", [((32, 64, 32), 4), ((16, 64, 32), 8),
                                               ((64, 64, 32), 2)])
def test_dot_shapes_wgmma_cannot_take_run_on_mma_sync(blocks, num_warps):
    """M below a warpgroup's 64 rows per warpgroup, or fewer than 4 warps:
    the dot runs on the warp-level tensor cores (mma.sync) instead of being
    an error."""
    bm, bn, bk = blocks
    k = zoo.matmul_kernel.warmup(F16, F16, F16, 512, 512, 512, 512, 1, 512, 1, 512, 1,
                                 BLOCK_SIZE_M=bm, BLOCK_SIZE_N=bn, BLOCK_SIZE_K=bk,
                                 GROUP_SIZE_M=8, ACTIVATION="", num_warps=num_warps,
                                 grid=(1,))
    assert "tilegpu.warp_group_dot" not in k.asm["tilegpu"]
    assert "tile.dot" in k.asm["tilegpu"]
    assert "wgmma" not in k.asm["ptx"]
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in k.asm["ptx"]


def test_pipelines_are_listed():
    assert {"tile-to-tilegpu", "tilegpu-optimize"} <= set(ir.pipelines())


def test_bad_num_warps_is_an_error():
    k = zoo.add_kernel.warmup(F32, F32, F32, 1000, BLOCK_SIZE=1024, grid=(1,))
    with pytest.raises(IRError) as info:
        ir.run_pipeline(k.asm["tile"], "tile-to-tilegpu{num-warps=3}")
    assert any("num-warps must be a power of two from 1 to 32, got 3" in d.message
               for d in info.value.diagnostics)
