"""Host tensor descriptors (`warpforge.tools.tensor_descriptor`, Triton
3.6's `TensorDescriptor`): the TMA's rules checked where a descriptor is
made, kernels taking descriptors as arguments in the interpreter (odd
shapes, partial blocks, padding), and the TMA's limits on the block checked
when a kernel is compiled for it (test_tma_frontend.py has the tile IR)."""

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
from warpforge.compiler.errors import CompilationError
from warpforge.tools.tensor_descriptor import TensorDescriptor


def aligned(shape, dtype=np.float32, fill=None, rng=None):
    """An array whose data starts on a 16-byte boundary (NumPy only
    promises the element size): non-zero random values, or `fill`."""
    n = int(np.prod(shape))
    itemsize = np.dtype(dtype).itemsize
    raw = np.zeros(n * itemsize + 16, np.uint8)
    start = (-raw.ctypes.data) % 16
    a = raw[start:start + n * itemsize].view(dtype).reshape(shape)
    if fill is not None:
        a[...] = fill
    else:
        v = (rng or np.random.default_rng(0)).standard_normal(shape)
        a[...] = np.where(v == 0, 1.0, v)
    return a


@triton.jit
def desc_add_one(x_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    tile = x_desc.load([off_m, off_n])
    out_desc.store([off_m, off_n], tile + 1.0)


@pytest.fixture
def interpreted(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")


@pytest.mark.parametrize("M,N", [(1, 4), (37, 45), (77, 300), (64, 128)])
def test_descriptor_arguments_copy(M, N, interpreted):
    # Rows padded to 16 bytes (the TMA's stride rule); odd logical sizes.
    row = -(-N // 4) * 4
    x = aligned((M, row), rng=np.random.default_rng(M * N))[:, :N]
    out = aligned((M, row), fill=np.nan)[:, :N]
    BM, BN = 16, 32
    x_desc = TensorDescriptor.from_tensor(x, [BM, BN])
    out_desc = TensorDescriptor.from_tensor(out, [BM, BN])
    desc_add_one[(triton.cdiv(M, BM), triton.cdiv(N, BN))](x_desc, out_desc, BM=BM, BN=BN)
    np.testing.assert_array_equal(out, x + np.float32(1.0))


@triton.jit
def desc_shape_and_padding(x_desc, out_ptr, B: tl.constexpr):
    # Read a block that hangs over the tensor's end; also report what the
    # kernel sees of the descriptor.
    tile = x_desc.load([x_desc.shape[0] - 2, 0])
    r = tl.arange(0, B)
    tl.store(out_ptr + r[:, None] * B + r[None, :], tile)
    tl.store(out_ptr + B * B, x_desc.shape[1].to(tl.float32))
    tl.store(out_ptr + B * B + 1, x_desc.strides[0].to(tl.float32))


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_out_of_bounds_padding(padding, interpreted):
    M, N, B = 5, 12, 16
    x = aligned((M, 16))[:, :N]  # rows of 16, 12 in the tensor
    desc = TensorDescriptor(x, [M, N], [16, 1], [B, B], padding=padding)
    out = aligned((B * B + 2,), fill=-7.0)
    desc_shape_and_padding[(1,)](desc, out, B=B)
    tile = out[:B * B].reshape(B, B)
    np.testing.assert_array_equal(tile[:2, :N], x[M - 2:, :N])
    outside = np.ones((B, B), bool)
    outside[:2, :N] = False
    fill = tile[outside]
    assert (np.isnan(fill).all() if padding == "nan" else (fill == 0).all())
    assert out[B * B] == N and out[B * B + 1] == 16


@pytest.mark.parametrize("dtype", [np.float16, np.int8])
def test_narrow_types(dtype, interpreted):
    x = (np.arange(40 * 64) % 101 - 50).astype(dtype).reshape(40, 64)
    x = np.where(x == 0, np.asarray(3, dtype), x).astype(dtype)
    x16 = aligned(x.shape, dtype, fill=x)
    out = aligned(x.shape, dtype, fill=0)

    @triton.jit
    def copy(src, dst, BM: tl.constexpr, BN: tl.constexpr):
        off = tl.program_id(0) * BM
        dst.store([off, 0], src.load([off, 0]))

    copy[(3,)](TensorDescriptor.from_tensor(x16, [16, 64]),
               TensorDescriptor.from_tensor(out, [16, 64]), BM=16, BN=64)
    np.testing.assert_array_equal(out, x)


# ---------------------------------------------------------------------------
# The TMA's rules, where the descriptor is made
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("make,match", [
    (lambda a: TensorDescriptor(a, [8, 8], [8, 1], [8, 8, 8]), "one entry per dimension"),
    (lambda a: TensorDescriptor(a, [8, 8], [8, 2], [8, 8]), "innermost dimension must be "
                                                            "contiguous"),
    (lambda a: TensorDescriptor(a, [8, 6], [6, 1], [8, 8]), "stride 6 of dimension 0 is 24 "
                                                            "bytes"),
    (lambda a: TensorDescriptor(a, [8, 8], [8, 1], [8, 6]), "power of 2, got 6"),
    (lambda a: TensorDescriptor(a, [8, 0], [8, 1], [8, 8]), "must be positive"),
    (lambda a: TensorDescriptor(a, [8, 8], [8, 1], [8, 8], padding="inf"), "padding"),
    (lambda a: TensorDescriptor(a[:, 1:], [8, 7], [8, 1], [8, 8]), "16-byte aligned"),
    (lambda a: TensorDescriptor(a.reshape(-1), [1] * 6, [1] * 6, [1] * 6), "1 to 5 "
                                                                           "dimensions"),
])
def test_bad_descriptors_are_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make(aligned((8, 8)))


def test_nan_padding_needs_floats():
    with pytest.raises(ValueError, match="padding='nan' needs a floating-point tensor"):
        TensorDescriptor.from_tensor(aligned((8, 16), np.int32, fill=1), [8, 8], padding="nan")


def test_signature_type_is_tritons():
    d = TensorDescriptor.from_tensor(aligned((64, 64), np.float16, fill=1.0), [64, 32])
    assert d.signature_type() == "tensordesc<fp16[64, 32]>"
    assert d.strides == [64, 1] and d.shape == [64, 64]


def test_placeholder_block_is_accepted_where_made():
    """As in Triton, the block's size is not held against the TMA's limits
    where the descriptor is made: tutorial 09 makes its descriptors with a
    [1, 1] block that its autotuning hook replaces before the launch."""
    x = aligned((64, 64), np.float16, fill=1.0)
    d = TensorDescriptor.from_tensor(x, [1, 1])
    d.block_shape = [32, 64]
    assert d.signature_type() == "tensordesc<fp16[32, 64]>"
    assert TensorDescriptor.from_tensor(x, [512, 8]).block_shape == [512, 8]


@pytest.mark.parametrize("block,match", [
    ([16, 2], r"parameter 'x_desc' \(tensordesc<fp32\[16, 2\]>\): the innermost block "
              r"dimension spans 8 bytes"),
    ([1, 1], "spans 4 bytes"),
    ([4, 512, 16], "other than the outermost exceeds the TMA's box limit of 256"),
    ([4, 4, 512], "other than the outermost exceeds the TMA's box limit of 256"),
])
def test_block_against_the_tma_limits_when_compiled(block, match):
    """A block set after the descriptor was made is checked when the kernel
    is compiled for it, naming the parameter, at the kernel's definition."""
    x = aligned((32, 32))
    d = TensorDescriptor.from_tensor(x, [16, 16])
    d.block_shape = block
    with pytest.raises(CompilationError, match=match) as info:
        desc_add_one.warmup(d, TensorDescriptor.from_tensor(x, [16, 16]), BM=16, BN=16,
                            grid=(1,))
    assert info.value.filename == desc_add_one.filename
    assert info.value.lineno == desc_add_one.first_line


def test_long_outer_dimension_is_copied_in_pieces():
    """An outermost block dimension over 256 elements is copied in pieces
    of 256 (TileGPU/IR/TMA.h): dense 16-byte rows in 2 copies, 128-byte
    swizzled rows in 2 pieces of 2 column blocks each."""
    x = aligned((512, 64))
    for block, copies in (([512, 4], 2), ([512, 64], 4)):
        d = TensorDescriptor.from_tensor(x, block)
        k = desc_add_one.warmup(d, d, BM=block[0], BN=block[1], grid=(1,))
        ptx = k.asm["ptx"]
        assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == copies, block
        assert ptx.count("cp.async.bulk.tensor.2d.global.shared::cta") == copies, block


def test_wide_2d_rows_are_copied_in_column_blocks():
    """A 2-D block whose rows span 32 bytes or more is copied in column
    blocks of the swizzle's width (TileGPU/IR/TMA.h): only its rows count
    against the box limit."""
    from warpforge.compiler import generate_tile_ir
    ir, _ = generate_tile_ir(desc_add_one, {"x_desc": "tensordesc<fp8e4nv[64, 512]>",
                                            "out_desc": "tensordesc<fp8e4nv[64, 512]>"},
                             {"BM": 64, "BN": 512})
    assert "!tile.tensordesc<tensor<64x512xf8E4M3FN>>" in ir


# ---------------------------------------------------------------------------
# warpforge.set_allocator (Triton 3.6's triton.set_allocator)
# ---------------------------------------------------------------------------


def test_set_allocator_and_scratch():
    import contextvars

    import warpforge
    from warpforge.runtime import allocation

    def run():
        # Triton's tutorials (06, 09) call set_allocator in the test process's
        # own context, as written; start from none.
        allocation._allocator.set(allocation._no_allocator)
        with pytest.raises(allocation.NoAllocatorError, match="warpforge.set_allocator"):
            allocation.allocate_scratch(128, 128, None)
        calls = []

        def alloc(size, alignment, stream):
            calls.append((size, alignment, stream))
            return aligned((size,), np.int8, fill=0)  # 16-byte aligned only

        warpforge.set_allocator(alloc)
        address, buffer = allocation.allocate_scratch(256, 16, 7)
        assert calls == [(256, 16, 7)] and address == buffer.ctypes.data
        class Misaligned:
            def data_ptr(self):
                return 0x10010

        warpforge.set_allocator(lambda size, alignment, stream: Misaligned())
        with pytest.raises(ValueError, match="0x10010 not aligned to 1024 bytes"):
            allocation.allocate_scratch(64, 1024, None)
        warpforge.set_allocator(lambda size, alignment, stream: 3)
        with pytest.raises(TypeError, match="returned int, which has no data_ptr"):
            allocation.allocate_scratch(64, 16, None)
        with pytest.raises(TypeError, match="takes a function"):
            warpforge.set_allocator(42)

    # Per context, as in Triton: nothing leaks into the other tests.
    before = allocation._allocator.get()
    contextvars.copy_context().run(run)
    assert allocation._allocator.get() is before


def test_tutorial_09_device_descriptors_run_in_the_interpreter(monkeypatch):
    """Tutorial 09's device-descriptor kernels call set_allocator first."""
    import warpforge
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    warpforge.set_allocator(lambda size, alignment, stream: np.empty(size, np.int8))

    @triton.jit
    def dev_desc(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
        src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1],
                                        block_shape=[BM, BN])
        dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                        block_shape=[BM, BN])
        dst.store([tl.program_id(0) * BM, 0], src.load([tl.program_id(0) * BM, 0]) * 3.0)

    x = aligned((20, 32), rng=np.random.default_rng(5))
    out = aligned((20, 32), fill=np.nan)
    dev_desc[(3,)](x, out, 20, 32, BM=8, BN=32)
    np.testing.assert_array_equal(out, x * np.float32(3.0))


def test_implicit_scratch_uses_the_allocator_set_else_the_runtimes(monkeypatch):
    """Scratch for tensor maps only the compiler made (implicit=True): the
    user's allocator when one is set; with none, the runtime's own (torch on
    the launch's stream) instead of NoAllocatorError; scratch the source
    asked for still needs an allocator."""
    import contextvars

    import warpforge
    from warpforge.runtime import allocation

    def run():
        made = []

        def runtime_allocator(size, alignment, stream):
            made.append((size, alignment, stream))
            return aligned((size,), np.int8, fill=0)

        monkeypatch.setattr(allocation, "_implicit_allocator", runtime_allocator)
        # None set in this copy of the context, whatever earlier tests did.
        allocation._allocator.set(allocation._no_allocator)
        address, buffer = allocation.allocate_scratch(256, 16, 5, True)
        assert made == [(256, 16, 5)] and address == buffer.ctypes.data
        with pytest.raises(allocation.NoAllocatorError):
            allocation.allocate_scratch(256, 16, 5)
        calls = []
        warpforge.set_allocator(lambda size, alignment, stream:
                                calls.append(size) or aligned((size,), np.int8, fill=0))
        allocation.allocate_scratch(512, 16, 5, True)
        assert calls == [512] and len(made) == 1

    contextvars.copy_context().run(run)
