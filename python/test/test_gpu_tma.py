"""Tensor descriptors (TMA) on the GPU.

* Tutorial 09's three TMA matmuls (tutorial09_kernels.py: matmul_kernel_tma,
  matmul_kernel_tma_persistent, matmul_kernel_descriptor_persistent), each
  on (M, N, K) = (999, 517, 371), (77, 300, 136) and 1024^3 in fp16, bf16
  and fp8 e4m3 (B given as N x K, K-major, as the tutorial takes it for
  every dtype). They launch through the tutorial's autotuner restricted to
  one of its own configs, from descriptors made with the tutorial's [1, 1]
  placeholder block that its pre_hook replaces.
  Host descriptors sit on padded storage (rows a multiple of 16 bytes, the
  TMA's stride rule, and 16 bytes more) with NaN in the padding, so that a
  load past K that read memory instead of zeros shows; C is a window of a
  NaN buffer, so unwritten outputs and writes past M or N show.
  The device-descriptor kernel builds its descriptors with strides [K, 1]
  and [N, 1], i.e. from contiguous tensors, which the TMA accepts only when
  K and N rows are multiples of 16 bytes: it runs on (999, 528, 368) and
  (77, 304, 144) instead (still partial tiles in M, N and K).
  The result is compared with a float64 matmul of the same (quantized)
  inputs: max |out - ref| / max |ref| under the output type's tolerance.
  The tutorial's host wrappers (matmul_tma, ...) also run as they are, on
  1024^3 (they allocate C themselves, unpoisoned).
* Plain descriptor copies, load then store: 2-D (fp32, fp16, int8), 1-D and
  3-D blocks on odd shapes (out-of-bounds rows and columns zero on load and
  not written on store); padding="nan"; a kernel reading desc.shape and
  desc.strides; a descriptor made on the device.

* Errors: device descriptors without warpforge.set_allocator
  (NoAllocatorError naming it); host descriptors whose strides or base
  break the TMA's rules, where they are made (ValueError) and, when edited
  afterwards, at the launch (an error naming the argument); a block shape
  the TMA cannot move (CompilationError naming the parameter).

A TMA store writes whole 16-byte chunks of a row: past the innermost
extent it may write the rest of the row's last 16-byte chunk, never
further, and never rows or outer slices past the end (Triton 3.6 does so
on the H100). The checks of writes out of bounds leave that partial chunk
out.

The expectations were checked against Triton 3.6 on an H100 (2026-11-25):
this file with Triton's jit, TensorDescriptor and tutorial09_kernels.py
loaded with BACKEND = "triton" passes, all but the error tests, which are
warpforge's own.
"""

import contextvars
import zlib

import pytest

import warpforge
import warpforge.language as tl
from warpforge.compiler import CompilationError
from warpforge.runtime.allocation import NoAllocatorError
from warpforge.tools.tensor_descriptor import TensorDescriptor

from sass_helpers import check_sass, needs_disassembler

torch = pytest.importorskip("torch")
import tutorial09_kernels as tut  # noqa: E402  (needs torch for its wrappers)

pytestmark = [pytest.mark.gpu,
              # tl.range(flatten=..., warp_specialize=...) in the tutorial's
              # loops: hints warpforge does not use yet, and says so.
              pytest.mark.filterwarnings(
                  "ignore::warpforge.compiler.options.UnsupportedOptionWarning")]


# -- Helpers ---------------------------------------------------------------------------


def generator(*key):
    return torch.Generator(device="cuda").manual_seed(zlib.crc32(repr(key).encode()))


def element_size(dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


def nans(shape, dtype):
    """A tensor of NaN (float8_e4m3fn: its NaN byte, 0x7F)."""
    if dtype == torch.float8_e4m3fn:
        return torch.full(shape, 0x7F, dtype=torch.uint8, device="cuda").view(dtype)
    return torch.full(shape, float("nan"), dtype=dtype, device="cuda")


def poison_of(dtype):
    return None if dtype.is_floating_point else torch.iinfo(dtype).min


def poisoned_mask(x):
    """Where `x` still holds the poison: NaN for floats (fp8 through fp32),
    the type's minimum for integers."""
    if x.dtype.is_floating_point:
        return torch.isnan(x.to(torch.float32))
    return x == torch.iinfo(x.dtype).min


def cdiv(a, b):
    return (a + b - 1) // b


def chunk_end(cols, dtype) -> int:
    """Where the 16-byte chunk holding a row's last element ends (elements)."""
    size = element_size(dtype)
    return cdiv(cols * size, 16) * 16 // size


class Padded:
    """A rows x cols window of a poisoned buffer whose rows reach 16 bytes
    past the end of the window's last 16-byte chunk (a multiple of 16 bytes,
    as the TMA's strides must be) and which has `extra_rows` more rows: a
    tensor the TMA can describe, with poison around it on every side but
    the first."""

    def __init__(self, rows, cols, dtype, extra_rows=3):
        self.dtype = dtype
        end = chunk_end(cols, dtype)
        width = end + 16 // element_size(dtype)
        if dtype.is_floating_point:
            self.buf = nans((rows + extra_rows, width), dtype)
        else:
            self.buf = torch.full((rows + extra_rows, width), poison_of(dtype), dtype=dtype,
                                  device="cuda")
        self.view = self.buf[:rows, :cols]
        self.inside = torch.zeros(self.buf.shape, dtype=torch.bool, device="cuda")
        self.inside[:rows, :cols] = True
        # The rest of each row's last 16-byte chunk, which a TMA store may
        # write (see the module's docstring).
        self.inside[:rows, cols:end] = True

    def fill_random(self, gen, scale):
        self.view.copy_((torch.randn(self.view.shape, device="cuda", generator=gen)
                         * scale).to(self.dtype))
        return self.view

    def untouched_outside(self) -> int:
        """Elements outside the window (and the rest of its rows' last
        16-byte chunks) that are no longer the poison."""
        return int((~poisoned_mask(self.buf[~self.inside])).sum().item())


def f64(x):
    return x.to(torch.float32).to(torch.float64)


def rel_err(out, ref) -> float:
    scale = ref.abs().max().item()
    assert scale > 0, "the reference is all zeros: degenerate inputs"
    return (f64(out) - ref).abs().max().item() / scale


def check_output(out, ref, tol, what, outside_written=0):
    unwritten = int(poisoned_mask(out).sum().item())
    assert unwritten == 0, f"{what}: {unwritten} of {out.numel()} outputs unwritten (or NaN)"
    err = rel_err(out, ref)
    assert err <= tol, f"{what}: max |out - ref| / max |ref| = {err:.3g} > {tol:g}"
    assert outside_written == 0, f"{what}: {outside_written} elements written out of bounds"


# -- Tutorial 09's TMA matmuls ----------------------------------------------------------

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp8": torch.float8_e4m3fn}
# max |out - ref| / max |ref| for an output rounded once to the type (the
# accumulation is fp32): fp16 2^-11 of an element, bf16 2^-9 (the host
# descriptor kernels round to fp16 first, then store to bf16), e4m3 2^-4.
TOLERANCE = {"fp16": 1e-2, "bf16": 1e-2, "fp8": 7.5e-2}
SHAPES = [(999, 517, 371), (77, 300, 136), (1024, 1024, 1024)]
# The device-descriptor kernel's strides are [K, 1] and [N, 1] (contiguous
# tensors): K and N whose rows are multiples of 16 bytes in every dtype,
# near the shapes above, with partial tiles left in N and K.
DEVICE_DESC_SHAPES = {(999, 517, 371): (999, 528, 368), (77, 300, 136): (77, 304, 144),
                      (1024, 1024, 1024): (1024, 1024, 1024)}
KERNELS = ["tma", "tma_persistent", "descriptor_persistent"]
# Programs of the persistent kernels on the odd shapes: few, so that each
# walks several tiles (the last round partial); on 1024^3 the SM count, as
# the tutorial's wrappers launch them.
FEW_PROGRAMS = 5


def tutorial_config(kernel, dtype_name, shape):
    """One of the tutorial's own configs for this case: 128 x 128 tiles, K
    steps of 64 (128 for fp8), 3 stages, 4 warps; the persistent kernels
    with EPILOGUE_SUBTILE on two of the shapes."""
    block_k = 128 if dtype_name == "fp8" else 64
    subtile = shape[0] % 2 == 1
    if kernel == "tma":
        configs = tut.matmul_get_configs(pre_hook=tut.matmul_tma_set_block_size_hook)
    elif kernel == "tma_persistent":
        configs = tut.matmul_tma_persistent_get_configs(
            pre_hook=tut.matmul_tma_set_block_size_hook)
    else:
        configs = tut.matmul_tma_persistent_get_configs()
    for c in configs:
        kw = c.kwargs
        if (kw["BLOCK_SIZE_N"], kw["BLOCK_SIZE_K"], c.num_stages, c.num_warps) == \
                (128, block_k, 3, 4) and kw.get("EPILOGUE_SUBTILE", subtile) == subtile:
            return c
    raise AssertionError("the tutorial's configs changed")


@pytest.fixture
def one_config(monkeypatch):
    """Restricts a tutorial autotuner to one config for the test (its own
    list comes back afterwards): one compile, not 24 or 48, and no tuning."""
    def restrict(tuner, config):
        monkeypatch.setattr(tuner, "configs", [config])
        return tuner
    return restrict


def allocate_scratch(size: int, alignment: int, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def with_allocator(fn, *args, **kwargs):
    """Runs fn in a copy of the current context with an allocator set, so
    that no allocator leaks into other tests (the allocator is per context,
    as in Triton)."""
    def run():
        tut.triton.set_allocator(allocate_scratch)
        return fn(*args, **kwargs)
    return contextvars.copy_context().run(run)


def sm_count():
    return torch.cuda.get_device_properties("cuda").multi_processor_count


def operands(dtype, m, n, k, gen, padded):
    """A (M x K) and B (N x K, K-major), random normal scaled by K^-1/4
    each; padded: windows of NaN buffers with rows of 16-byte multiples."""
    scale = k ** -0.25
    if padded:
        a, b = Padded(m, k, dtype), Padded(n, k, dtype)
        return a.fill_random(gen, scale), b.fill_random(gen, scale)
    a = (torch.randn((m, k), device="cuda", generator=gen) * scale).to(dtype)
    b = (torch.randn((n, k), device="cuda", generator=gen) * scale).to(dtype)
    return a, b


def run_host_descriptor_kernel(kernel, config, a, b, c, fp8, programs, one_config,
                               warp_specialize=False):
    """As the tutorial's matmul_tma / matmul_tma_persistent launch it, with
    our output and program count (and its WARP_SPECIALIZE)."""
    M, K = a.shape
    N = b.shape[0]
    dummy_block = [1, 1]
    a_desc = tut.TensorDescriptor.from_tensor(a, dummy_block)
    b_desc = tut.TensorDescriptor.from_tensor(b, dummy_block)
    c_desc = tut.TensorDescriptor.from_tensor(c, dummy_block)
    extra = {}
    if kernel == "tma":
        tuner = one_config(tut.matmul_kernel_tma, config)
    else:
        tuner = one_config(tut.matmul_kernel_tma_persistent, config)
        extra["NUM_SMS"] = programs

    def grid(META):
        tiles = cdiv(M, META["BLOCK_SIZE_M"]) * cdiv(N, META["BLOCK_SIZE_N"])
        return (min(programs, tiles) if programs else tiles,)

    tuner[grid](a_desc, b_desc, c_desc, M, N, K, FP8_OUTPUT=fp8,
                WARP_SPECIALIZE=warp_specialize, **extra)
    # The tutorial's pre_hook gave the descriptors the config's blocks.
    bm, bn, bk = (config.kwargs[k] for k in ("BLOCK_SIZE_M", "BLOCK_SIZE_N", "BLOCK_SIZE_K"))
    assert list(a_desc.block_shape) == [bm, bk] and list(b_desc.block_shape) == [bn, bk]


def run_device_descriptor_kernel(config, a, b, c, programs, one_config):
    """As the tutorial's matmul_descriptor_persistent launches it."""
    M, K = a.shape
    N = b.shape[0]
    tuner = one_config(tut.matmul_kernel_descriptor_persistent, config)
    grid = lambda META: (min(programs, cdiv(M, META["BLOCK_SIZE_M"])  # noqa: E731
                             * cdiv(N, META["BLOCK_SIZE_N"])),)
    with_allocator(lambda: tuner[grid](a, b, c, M, N, K, NUM_SMS=programs,
                                       WARP_SPECIALIZE=False, FLATTEN=True))


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_tutorial_matmul(kernel, dtype_name, shape, one_config):
    dtype = DTYPES[dtype_name]
    config = tutorial_config(kernel, dtype_name, shape)
    square = shape[0] == shape[1] == shape[2]
    programs = sm_count() if square else FEW_PROGRAMS
    what = f"{kernel} {dtype_name} {'x'.join(map(str, shape))} ({config})"
    device_shape = DEVICE_DESC_SHAPES[shape] if kernel == "descriptor_persistent" else shape
    check_tutorial(kernel, dtype_name, device_shape, config, programs, one_config,
                   generator(kernel, dtype_name, shape), what)


def check_tutorial(kernel, dtype_name, shape, config, programs, one_config, gen, what,
                   warp_specialize=False):
    """One launch of tutorial 09's `kernel` on random operands of `shape`
    (host descriptors on NaN-padded storage, or contiguous tensors for the
    device-descriptor kernel) into a poisoned output, checked against
    float64: every element written, nothing out of bounds."""
    dtype = DTYPES[dtype_name]
    m, n, k = shape
    if kernel == "descriptor_persistent":
        a, b = operands(dtype, m, n, k, gen, padded=False)
        c_buf = nans((m * n + 256,), dtype)
        c = c_buf[:m * n].view(m, n)
        run_device_descriptor_kernel(config, a, b, c, programs, one_config)
        torch.cuda.synchronize()
        guard = int((~poisoned_mask(c_buf[m * n:])).sum().item())
        check_output(c, f64(a) @ f64(b).T, TOLERANCE[dtype_name], what, guard)
    else:
        a, b = operands(dtype, m, n, k, gen, padded=True)
        c = Padded(m, n, dtype)
        run_host_descriptor_kernel(kernel, config, a, b, c.view,
                                   dtype == torch.float8_e4m3fn,
                                   None if kernel == "tma" else programs, one_config,
                                   warp_specialize)
        torch.cuda.synchronize()
        check_output(c.view, f64(a) @ f64(b).T, TOLERANCE[dtype_name], what,
                     c.untouched_outside())


@pytest.mark.parametrize("dtype_name", list(DTYPES))
@pytest.mark.parametrize("kernel", KERNELS)
def test_tutorial_wrappers(kernel, dtype_name, one_config):
    """The tutorial's host functions as they are (each makes its output and
    descriptors; matmul_descriptor_persistent sets the allocator itself),
    on 1024^3 with one of the tutorial's configs."""
    dtype = DTYPES[dtype_name]
    shape = (1024, 1024, 1024)
    config = tutorial_config(kernel, dtype_name, shape)
    tuner = {"tma": tut.matmul_kernel_tma, "tma_persistent": tut.matmul_kernel_tma_persistent,
             "descriptor_persistent": tut.matmul_kernel_descriptor_persistent}[kernel]
    one_config(tuner, config)
    wrapper = {"tma": tut.matmul_tma, "tma_persistent": tut.matmul_tma_persistent,
               "descriptor_persistent": tut.matmul_descriptor_persistent}[kernel]
    a, b = operands(dtype, *shape, generator("wrapper", kernel, dtype_name), padded=False)
    c = contextvars.copy_context().run(wrapper, a, b, False)
    torch.cuda.synchronize()
    assert c.dtype == dtype and tuple(c.shape) == shape[:2]
    check_output(c, f64(a) @ f64(b).T, TOLERANCE[dtype_name],
                 f"{wrapper.__name__} {dtype_name} ({config})")


# -- Descriptor copies ------------------------------------------------------------------


@warpforge.jit
def copy_2d(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    dst.store([off_m, off_n], src.load([off_m, off_n]))


@warpforge.jit
def copy_1d(src, dst, B: tl.constexpr):
    off = tl.program_id(0) * B
    dst.store([off], src.load([off]))


@warpforge.jit
def copy_3d(src, dst, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    o0 = tl.program_id(0) * B0
    o1 = tl.program_id(1) * B1
    o2 = tl.program_id(2) * B2
    dst.store([o0, o1, o2], src.load([o0, o1, o2]))


def desc(t, block, padding="zero"):
    return TensorDescriptor.from_tensor(t, block, padding)


def random_like_window(p: Padded, gen):
    if p.dtype.is_floating_point:
        return p.fill_random(gen, 1.0)
    p.view.copy_(torch.randint(-127, 128, p.view.shape, device="cuda", generator=gen,
                               dtype=p.dtype))
    return p.view


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int8],
                         ids=["fp32", "fp16", "int8"])
@pytest.mark.parametrize("shape,block", [((77, 45), (16, 32)), ((5, 300), (8, 64)),
                                         ((130, 33), (64, 64))],
                         ids=["77x45", "5x300", "130x33"])
def test_copy_2d(shape, block, dtype):
    """Every block but the first hangs over an edge: out-of-bounds elements
    load as zero and are not stored (the poison around the window stays)."""
    src = Padded(*shape, dtype)
    dst = Padded(*shape, dtype)
    x = random_like_window(src, generator("copy2d", shape, block, dtype))
    assert src.view.stride(0) * element_size(dtype) % 16 == 0
    grid = (cdiv(shape[0], block[0]), cdiv(shape[1], block[1]))
    copy_2d[grid](desc(src.view, list(block)), desc(dst.view, list(block)),
                  BM=block[0], BN=block[1])
    torch.cuda.synchronize()
    assert torch.equal(dst.view, x)
    assert dst.untouched_outside() == 0


def test_copy_1d():
    n, block = 1000, 128
    buf = nans((n + 256,), torch.float16)
    src = torch.randn(n, device="cuda", generator=generator("copy1d")).to(torch.float16)
    copy_1d[(cdiv(n, block),)](desc(src, [block]), desc(buf[:n], [block]), B=block)
    torch.cuda.synchronize()
    assert torch.equal(buf[:n], src)
    assert torch.isnan(buf[n:]).all(), "stored past the end of the 1-D tensor"


def test_copy_3d():
    """A (3, 5, 37) window of (3 + 1, 5, 44) storage: strides (220, 44, 1),
    blocks (2, 4, 32) partial in every dimension."""
    storage = nans((4, 5, 44), torch.float32)
    src_storage = nans((4, 5, 44), torch.float32)
    shape, block = (3, 5, 37), (2, 4, 32)
    src = src_storage[:3, :, :37]
    src.copy_(torch.randn(shape, device="cuda", generator=generator("copy3d")))
    dst = storage[:3, :, :37]
    grid = tuple(cdiv(s, b) for s, b in zip(shape, block))
    copy_3d[grid](desc(src, list(block)), desc(dst, list(block)), B0=2, B1=4, B2=32)
    torch.cuda.synchronize()
    assert torch.equal(dst, src)
    inside = torch.zeros(storage.shape, dtype=torch.bool, device="cuda")
    inside[:3, :, :40] = True  # the window and the rest of its rows' last 16-byte chunks
    assert torch.isnan(storage[~inside]).all(), "stored outside the 3-D window"


@warpforge.jit
def last_block_and_shape(src, out_ptr, info_ptr, B: tl.constexpr):
    # The block at rows shape[0] - 2 hangs B - 2 rows past the end; the
    # kernel also reports the descriptor's shape and strides as it sees them.
    tile = src.load([src.shape[0] - 2, 0])
    r = tl.arange(0, B)
    tl.store(out_ptr + r[:, None] * B + r[None, :], tile)
    tl.store(info_ptr + 0, src.shape[0].to(tl.int64))
    tl.store(info_ptr + 1, src.shape[1].to(tl.int64))
    tl.store(info_ptr + 2, src.strides[0])
    tl.store(info_ptr + 3, src.strides[1])


@pytest.mark.parametrize("padding", ["zero", "nan"])
def test_out_of_bounds_padding_and_shape(padding):
    M, N, B = 5, 12, 16
    src = Padded(M, N, torch.float32)  # rows of 12 in storage rows of 16 (64 bytes)
    x = src.fill_random(generator("padding", padding), 1.0)
    out = torch.full((B, B), -7.0, device="cuda")
    info = torch.zeros(4, dtype=torch.int64, device="cuda")
    last_block_and_shape[(1,)](desc(x, [B, B], padding), out, info, B=B)
    torch.cuda.synchronize()
    assert info.tolist() == [M, N, x.stride(0), 1]
    assert torch.equal(out[:2, :N], x[M - 2:])
    outside = torch.ones((B, B), dtype=torch.bool, device="cuda")
    outside[:2, :N] = False
    fill = out[outside]
    if padding == "nan":
        assert torch.isnan(fill).all()
    else:
        assert (fill == 0).all()


@warpforge.jit
def device_copy(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    dst = tl.make_tensor_descriptor(out_ptr, shape=[M, N], strides=[N, 1],
                                    block_shape=[BM, BN])
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    dst.store([off_m, off_n], src.load([off_m, off_n]) * 2.0)


def test_device_descriptor_copy():
    M, N, BM, BN = 77, 48, 32, 32  # rows of 192 bytes; partial blocks in M and N
    x = torch.randn((M, N), device="cuda", generator=generator("device copy"))
    buf = nans((M * N + 256,), torch.float32)
    out = buf[:M * N].view(M, N)
    with_allocator(lambda: device_copy[(cdiv(M, BM), cdiv(N, BN))](x, out, M, N, BM=BM, BN=BN))
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2)
    assert torch.isnan(buf[M * N:]).all()


@warpforge.jit
def desc_reduce(x_desc, out_desc, KIND: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    v = x_desc.load([off_m, off_n])
    if KIND == "add":
        out_desc.atomic_add([off_m, off_n], v)
    elif KIND == "max":
        out_desc.atomic_max([off_m, off_n], v)
    elif KIND == "min":
        out_desc.atomic_min([off_m, off_n], v)
    else:
        out_desc.atomic_xor([off_m, off_n], v)


@pytest.mark.parametrize("kind,dtype", [("add", torch.float32), ("add", torch.float16),
                                        ("max", torch.int32), ("min", torch.bfloat16),
                                        ("xor", torch.int32)])
def test_descriptor_reductions(kind, dtype):
    """desc.atomic_*: cp.reduce.async.bulk.tensor combines each block into
    global memory; every block is reduced by 3 programs (grid z), so the
    result is the reduction of the output with x three times; out-of-bounds
    elements (partial blocks in M and N) are untouched."""
    M, N, BM, BN = 77, 72, 32, 32
    gen = generator("reduce", kind, str(dtype))
    if dtype.is_floating_point:
        x = torch.randn((M, N), device="cuda", generator=gen).to(dtype)
        base = torch.randn((M, N + 8), device="cuda", generator=gen).to(dtype)
    else:
        x = torch.randint(-1000, 1000, (M, N), device="cuda", generator=gen, dtype=dtype)
        base = torch.randint(-1000, 1000, (M, N + 8), device="cuda", generator=gen, dtype=dtype)
    out = base[:, :N]  # rows of N + 8 elements: the tail must stay as it was
    want = base.clone()
    for _ in range(3):
        w = want[:, :N]
        if kind == "add":
            want[:, :N] = (w.double() + x.double()).to(dtype) if dtype == torch.float32 else w + x
        elif kind == "max":
            want[:, :N] = torch.maximum(w, x)
        elif kind == "min":
            want[:, :N] = torch.minimum(w, x)
        else:
            want[:, :N] = w ^ x
    x_desc = TensorDescriptor.from_tensor(x, [BM, BN])
    out_desc = TensorDescriptor.from_tensor(out, [BM, BN])
    desc_reduce[(cdiv(M, BM), cdiv(N, BN), 3)](x_desc, out_desc, KIND=kind, BM=BM, BN=BN)
    torch.cuda.synchronize()
    if kind == "add" and dtype.is_floating_point:
        tol = 1e-5 if dtype == torch.float32 else 2e-2
        torch.testing.assert_close(base[:, :N].float(), want[:, :N].float(), rtol=tol, atol=tol)
    else:
        assert torch.equal(base[:, :N], want[:, :N])
    assert torch.equal(base[:, N:], want[:, N:])


# -- Errors --------------------------------------------------------------------------------


def test_device_descriptors_need_an_allocator():
    """Without warpforge.set_allocator the launch says to call it (in a new,
    empty context: whatever other tests set stays out)."""
    x = torch.zeros((64, 64), device="cuda")

    def launch():
        device_copy[(2, 2)](x, x, 64, 64, BM=32, BN=32)

    with pytest.raises(NoAllocatorError, match=r"warpforge\.set_allocator"):
        contextvars.Context().run(launch)


def test_tutorial_descriptor_kernel_needs_an_allocator(one_config):
    a = torch.zeros((256, 128), device="cuda", dtype=torch.float16)
    c = torch.zeros((256, 256), device="cuda", dtype=torch.float16)
    tuner = one_config(tut.matmul_kernel_descriptor_persistent,
                       tutorial_config("descriptor_persistent", "fp16", (256, 256, 128)))

    def launch():
        tuner[(4,)](a, a, c, 256, 256, 128, NUM_SMS=4, WARP_SPECIALIZE=False, FLATTEN=True)

    with pytest.raises(NoAllocatorError, match=r"warpforge\.set_allocator"):
        contextvars.Context().run(launch)


@pytest.mark.parametrize("make,match", [
    # 6 floats a row: 24 bytes, not a multiple of 16.
    (lambda: desc(torch.zeros((8, 6), device="cuda"), [8, 8]), "stride 6 of dimension 0"),
    # The window starts 4 bytes into the buffer.
    (lambda: desc(torch.zeros((8, 9), device="cuda")[:, 1:], [8, 8]), "16-byte aligned"),
    (lambda: desc(torch.zeros((8, 8), device="cuda").T, [8, 8]), "contiguous"),
])
def test_bad_descriptors_where_made(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_strides_edited_after_making_fail_at_launch():
    """A descriptor is a plain dataclass: strides edited after it was made
    are checked when it is launched, naming the argument."""
    x = torch.zeros((64, 64), device="cuda", dtype=torch.float16)
    src, dst = desc(x, [16, 32]), desc(torch.zeros_like(x), [16, 32])
    src.strides = [36, 1]  # 72 bytes
    with pytest.raises((ValueError, TypeError), match=r"(?s)'src'.*stride"):
        copy_2d[(4, 2)](src, dst, BM=16, BN=32)
    torch.cuda.synchronize()


def test_base_edited_after_making_fails_at_launch():
    x = torch.zeros((64, 72), device="cuda", dtype=torch.float16)
    src, dst = desc(x[:, :64], [16, 32]), desc(torch.zeros((64, 64), device="cuda",
                                                           dtype=torch.float16), [16, 32])
    src.base = x[:, 1:65]  # 2 bytes past a 16-byte boundary
    with pytest.raises((ValueError, TypeError), match=r"(?s)'src'.*(align|16)"):
        copy_2d[(4, 2)](src, dst, BM=16, BN=32)
    torch.cuda.synchronize()


def test_block_the_tma_cannot_move_fails_at_compile():
    x = torch.zeros((64, 64), device="cuda")
    src, dst = desc(x, [16, 16]), desc(torch.zeros_like(x), [16, 16])
    src.block_shape = [16, 2]  # 8 bytes a row
    with pytest.raises(CompilationError, match=r"parameter 'src'.*spans 8 bytes"):
        copy_2d[(4, 4)](src, dst, BM=16, BN=16)


# -- SASS ---------------------------------------------------------------------------------

SASS_TMA_CASES = [("tma", "fp16"), ("tma_persistent", "fp16"), ("tma_persistent", "fp8")]


@needs_disassembler
@pytest.mark.parametrize("kernel,dtype_name", SASS_TMA_CASES,
                         ids=[f"{k}-{d}" for k, d in SASS_TMA_CASES])
def test_sass_tma_matmul(kernel, dtype_name, tmp_path):
    """Tutorial 09's TMA kernels at the benchmark's config (128x256x64, 128
    for fp8; 8 warps, 3 stages), compiled as the benchmark launches them:
    bulk tensor copies in (UTMALDG) and out (UTMASTG) in the SASS, HGMMA or
    QGMMA reading the TMA's buffers, no local memory, no serialized wgmma
    pipeline; the 16-bit accumulators reach the store buffer through
    stmatrix (STSM), fp8's (converted to fp8 elements) through plain
    shared stores."""
    dtype = DTYPES[dtype_name]
    block_k = 128 if dtype_name == "fp8" else 64
    a = torch.empty((4096, 4096), device="cuda", dtype=dtype)
    dummy = [1, 1]
    a_desc, b_desc, c_desc = (TensorDescriptor.from_tensor(a, dummy) for _ in range(3))
    meta = {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 256, "BLOCK_SIZE_K": block_k,
            "GROUP_SIZE_M": 8, "FP8_OUTPUT": dtype_name == "fp8", "WARP_SPECIALIZE": False}
    if kernel == "tma_persistent":
        meta.update(EPILOGUE_SUBTILE=False, NUM_SMS=sm_count())
    tut.matmul_tma_set_block_size_hook({"a_desc": a_desc, "b_desc": b_desc,
                                        "c_desc": c_desc, **meta})
    jit_fn = {"tma": tut.matmul_kernel_tma,
              "tma_persistent": tut.matmul_kernel_tma_persistent}[kernel].fn
    k = jit_fn.warmup(a_desc, b_desc, c_desc, 4096, 4096, 4096, grid=(1,), num_warps=8,
                      num_stages=3, **meta)
    what = f"{kernel} {dtype_name}"
    sass = check_sass(k, what, "QGMMA" if dtype_name == "fp8" else "HGMMA", tmp_path)
    for opcode in ("UTMALDG", "UTMASTG"):
        assert opcode in sass, f"{what}: no {opcode} in the SASS"
    if dtype_name == "fp16":
        assert "STSM" in sass, f"{what}: the epilogue does not use stmatrix (no STSM)"


# -- Outermost dimensions over 256 elements: copied in pieces of 256 -------------------


@warpforge.jit
def long_1d_copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    src = tl.make_tensor_descriptor(x_ptr, [n], [1], [BLOCK])
    dst = tl.make_tensor_descriptor(out_ptr, [n], [1], [BLOCK])
    start = tl.program_id(0) * BLOCK
    dst.store([start], src.load([start]) * 3 + 1)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float16])
def test_long_1d_block_in_pieces(dtype):
    """A 1-D device descriptor of 2048 elements: 8 TMA boxes per load and
    per store; the last block runs past n (zero fill, clipped store)."""
    n, BLOCK = 5000, 2048
    # |x * 3 + 1| stays below 2048: exact in fp16 whether or not the multiply
    # and the add fuse.
    x = torch.randint(-300, 300, (n,), device="cuda", generator=generator(n)).to(dtype)
    out = torch.full((n + 64,), -7, dtype=dtype, device="cuda")
    with_allocator(long_1d_copy_kernel[(cdiv(n, BLOCK),)], x, out, n, BLOCK=BLOCK)
    torch.testing.assert_close(out[:n], x * 3 + 1, rtol=0, atol=0)
    assert (out[n:] == -7).all()


@warpforge.jit
def long_rows_copy_kernel(x_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    off_m = tl.program_id(0) * BM
    off_n = tl.program_id(1) * BN
    out_desc.store([off_m, off_n], x_desc.load([off_m, off_n]) * 2.0)


@pytest.mark.parametrize("BM,BN", [(512, 8), (512, 64), (1024, 64)])
def test_long_row_dimension_in_pieces(BM, BN):
    """Host descriptors with 512 or 1024 rows: dense 16-byte rows, and
    128-byte swizzled rows in column blocks, each moved in pieces of 256
    rows; odd sizes, poisoned output."""
    M, N = 1531, 200
    x = torch.randn(M, N, device="cuda", generator=generator(BM, BN)).to(torch.float16)
    out = torch.full((M, N), float("nan"), dtype=torch.float16, device="cuda")
    long_rows_copy_kernel[(cdiv(M, BM), cdiv(N, BN))](
        TensorDescriptor.from_tensor(x, [BM, BN]), TensorDescriptor.from_tensor(out, [BM, BN]),
        BM=BM, BN=BN)
    torch.testing.assert_close(out, x * 2, rtol=0, atol=0)


def test_persistent_loop_with_a_product_after_its_k_loop():
    """test_tma_frontend.tiles_product_after: the software pipeliner
    rotates the K loop into the persistent tile loop (its rings live across
    tiles) while the tile loop loads, itself, the operands of a product
    after that loop, as the rotated attention's last PV (the pipeliner
    crashed on it until 2026-11-27). 7 tiles on 2 programs; float64
    reference, NaN-poisoned output."""
    from test_tma_frontend import tiles_product_after
    K, BM, BN, BK, tiles = 256, 128, 128, 64, 7
    g = generator("tiles-product-after")
    a = torch.randn((tiles * BM, K + BK), device="cuda", generator=g).to(torch.float16)
    b = torch.randn((2 * BN, K + BK), device="cuda", generator=g).to(torch.float16)
    out = nans((tiles * BM, BN), torch.float32)
    tiles_product_after[(2,)](desc(a, [BM, BK]), desc(b, [BN, BK]), out, K, tiles, BM=BM,
                              BN=BN, BK=BK, num_warps=8, num_stages=3)
    torch.cuda.synchronize()
    a64, b64 = a.double(), b.double()
    ref = a64[:, :K] @ b64[:BN, :K].T + a64[:, K:] @ b64[BN:, K:].T
    err = ((out.double() - ref).abs().max() / ref.abs().max()).item()
    assert err < 1e-3, err


# -- Blocks that are not powers of 2 (experimental) ----------------------------------------

@warpforge.jit
def npot_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                BK: tl.constexpr):
    pm = tl.program_id(0) * BM
    pn = tl.program_id(1) * BN
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        acc = tl.dot(a_desc.load([pm, k]), b_desc.load([k, pn]), acc)
    c_desc.store([pm, pn], acc.to(c_desc.dtype))


@pytest.mark.parametrize("dtype_name", ["fp16", "bf16"])
@pytest.mark.parametrize("block", [(64, 80, 64, 4), (128, 80, 80, 8), (64, 176, 64, 4),
                                   (128, 48, 32, 4), (64, 64, 80, 4)],
                         ids=lambda b: "{}x{}x{}-w{}".format(*b))
def test_npot_blocks(monkeypatch, block, dtype_name):
    """Descriptor blocks of 80, 48 and 176 columns and K 80
    (WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1): TMA copies into wgmma's
    32-byte swizzled rows through a pipelined K loop, every block but the
    first hanging over an edge (M 296, N 264, K 520), the output through a
    descriptor store; a copy of 80-column blocks on its own."""
    from warpforge.language import core
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    npot_matmul.cache.clear()  # the switch is not part of the in-memory key
    copy_2d.cache.clear()
    try:
        bm, bn, bk, warps = block
        dtype = DTYPES[dtype_name]
        M, N, K = 296, 264, 520
        gen = generator("npot", block, dtype_name)
        a = Padded(M, K, dtype)
        b = Padded(K, N, dtype)
        c = Padded(M, N, dtype)
        a.fill_random(gen, K ** -0.25)
        b.fill_random(gen, K ** -0.25)
        grid = (cdiv(M, bm), cdiv(N, bn))
        npot_matmul[grid](desc(a.view, [bm, bk]), desc(b.view, [bk, bn]), desc(c.view, [bm, bn]),
                          K, BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=3)
        torch.cuda.synchronize()
        check_output(c.view, f64(a.view) @ f64(b.view), TOLERANCE[dtype_name],
                     f"npot {block} {dtype_name}", c.untouched_outside())
        dst = Padded(M, N, dtype)
        copy_2d[(cdiv(M, bm), cdiv(N, bn))](desc(c.view, [bm, bn]), desc(dst.view, [bm, bn]),
                                            BM=bm, BN=bn)
        torch.cuda.synchronize()
        assert torch.equal(dst.view, c.view) and dst.untouched_outside() == 0
    finally:
        npot_matmul.cache.clear()
        copy_2d.cache.clear()
