"""Kernels on the GPU against torch: vector add, element-wise math, an
atomic histogram, launch on a side stream and kernel attributes.  Random
inputs at odd sizes, poisoned outputs (the reductions, softmax, layer norm
and transposes are in test_gpu_reductions.py)."""

import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu


@warpforge.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.int32])
@pytest.mark.parametrize("n", [1, 97, 1000, 98_433, 1 << 20])
@pytest.mark.parametrize("block,num_warps", [(128, 1), (1024, 4), (4096, 8)])
def test_vector_add(dtype, n, block, num_warps):
    if dtype.is_floating_point:
        x = torch.randn(n, device="cuda").to(dtype)
        y = torch.randn(n, device="cuda").to(dtype)
    else:
        x = torch.randint(-1000, 1000, (n,), device="cuda", dtype=dtype)
        y = torch.randint(-1000, 1000, (n,), device="cuda", dtype=dtype)
    out = torch.full((n + 64,), 7, device="cuda", dtype=dtype)
    add_kernel[(triton_cdiv(n, block),)](x, y, out, n, BLOCK=block, num_warps=num_warps)
    torch.testing.assert_close(out[:n], x + y, rtol=0, atol=0)
    assert (out[n:] == 7).all(), "wrote past the end"


def triton_cdiv(a, b):
    return (a + b - 1) // b


@warpforge.jit
def math_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=1.0)
    a = tl.exp(x) * 0.25 + tl.log(tl.abs(x) + 1.0) - tl.sqrt(tl.abs(x))
    b = tl.sin(x) * tl.cos(x) + tl.erf(x) + tl.sigmoid(x)
    c = tl.where(x > 0.5, a, b)
    d = tl.maximum(c, -2.0) + tl.minimum(x, 1.0) + tl.rsqrt(tl.abs(x) + 1.0)
    h = d.to(tl.float64).to(tl.float32)
    tl.store(out_ptr + offs, h + tl.exp2(x * 0.5) - tl.floor(x) + (x * 3).to(tl.int32), mask=mask)


def test_elementwise_math():
    n = 12_345
    x = torch.randn(n, device="cuda") * 2
    out = torch.full((n,), float("nan"), device="cuda")
    math_kernel[(triton_cdiv(n, 512),)](x, out, n, BLOCK=512)
    xd = x.double()
    a = torch.exp(xd) * 0.25 + torch.log(xd.abs() + 1) - xd.abs().sqrt()
    b = torch.sin(xd) * torch.cos(xd) + torch.erf(xd) + torch.sigmoid(xd)
    c = torch.where(xd > 0.5, a, b)
    d = torch.clamp(c, min=-2.0) + torch.clamp(xd, max=1.0) + torch.rsqrt(xd.abs() + 1)
    h = d
    ref = h + torch.exp2(xd * 0.5) - torch.floor(xd) + (x * 3).to(torch.int32).double()
    # float32 arithmetic and libdevice against float64.
    torch.testing.assert_close(out.double(), ref, rtol=1e-5, atol=1e-5)


@warpforge.jit
def histogram_kernel(x_ptr, bins_ptr, n, NUM_BINS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    tl.atomic_add(bins_ptr + (x % NUM_BINS), 1, mask=mask)


@pytest.mark.parametrize("num_bins", [7, 64, 1024])
def test_atomic_histogram(num_bins):
    n = 100_003
    x = torch.randint(0, 1 << 20, (n,), device="cuda", dtype=torch.int32)
    bins = torch.zeros(num_bins, device="cuda", dtype=torch.int32)
    histogram_kernel[(triton_cdiv(n, 1024),)](x, bins, n, NUM_BINS=num_bins, BLOCK=1024)
    ref = torch.bincount((x % num_bins).long(), minlength=num_bins).to(torch.int32)
    torch.testing.assert_close(bins, ref, rtol=0, atol=0)


def test_launch_on_a_side_stream_and_explicit_stream():
    n = 1 << 16
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out1, out2 = torch.empty_like(x), torch.empty_like(x)
    side = torch.cuda.Stream()
    torch.cuda.synchronize()
    with torch.cuda.stream(side):
        add_kernel[(n // 1024,)](x, y, out1, n, BLOCK=1024)
    add_kernel[(n // 1024,)](x, y, out2, n, BLOCK=1024, stream=side.cuda_stream)
    side.synchronize()
    torch.testing.assert_close(out1, x + y)
    torch.testing.assert_close(out2, x + y)


def test_kernel_attributes_and_vector_accesses():
    x = torch.randn(4096, device="cuda")
    k = add_kernel.warmup(x, x, x, 4096, BLOCK=1024, grid=(4,))
    assert "ld.global.v4.b32" in k.asm["ptx"] and "st.global.v4.b32" in k.asm["ptx"]
    assert 0 < k.n_regs <= 64 and k.n_spills == 0
    assert k.asm["cubin"][:4] == b"\x7fELF"


def test_cpu_tensor_is_a_clear_error():
    x = torch.randn(100)
    with pytest.raises(ValueError, match="host memory"):
        add_kernel[(1,)](x, x, x, 100, BLOCK=128)


@warpforge.jit
def abs_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.abs(tl.load(x_ptr + offs, mask=mask)), mask=mask)


@pytest.mark.parametrize("dtype", [torch.float8_e4m3fn, torch.float8_e5m2, torch.float16,
                                   torch.float32])
def test_abs_every_float_type(dtype):
    n = 1531
    x = (torch.randn(n, device="cuda") * 50).to(dtype)
    x[::97] = float("nan")  # NaN stays NaN (e4m3fn's only NaNs are 0x7f/0xff)
    out = torch.full((n + 64,), 3.0, device="cuda").to(dtype)
    abs_kernel[(triton_cdiv(n, 256),)](x, out, n, BLOCK=256)
    ref = x.float().abs()
    torch.testing.assert_close(out[:n].float(), ref, rtol=0, atol=0, equal_nan=True)
    assert (out[n:].float() == 3.0).all(), "wrote past the end"


@warpforge.jit
def sqrt_kernel(x_ptr, a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(a_ptr + offs, tl.sqrt(x), mask=mask)
    tl.store(b_ptr + offs, tl.math.sqrt_rn(x), mask=mask)


def test_sqrt_rn_is_correctly_rounded():
    """sqrt_rn equals the float64 root rounded to float32 exactly; tl.sqrt
    (approximate) within a couple of ulps."""
    n = 100_003
    x = torch.rand(n, device="cuda") * 1e4
    a = torch.full((n,), float("nan"), device="cuda")
    b = torch.full((n,), float("nan"), device="cuda")
    sqrt_kernel[(triton_cdiv(n, 1024),)](x, a, b, n, BLOCK=1024)
    exact = x.double().sqrt().float()
    assert torch.equal(b, exact)
    torch.testing.assert_close(a, exact, rtol=3e-7, atol=0)


@warpforge.jit
def grid_barrier_kernel(counter_ptr, out_ptr, MAX_SPIN: tl.constexpr):
    # Every program arrives, then waits (at most MAX_SPIN polls, so that a
    # grid that is not resident at once cannot hang) until all have.
    n = tl.num_programs(0)
    tl.atomic_add(counter_ptr, 1, sem="release", scope="gpu")
    seen = tl.atomic_add(counter_ptr, 0, sem="acquire", scope="gpu")
    polls = 0
    while (seen < n) & (polls < MAX_SPIN):
        seen = tl.atomic_add(counter_ptr, 0, sem="acquire", scope="gpu")
        polls += 1
    tl.store(out_ptr + tl.program_id(0), seen)


def test_cooperative_grid_barrier():
    """launch_cooperative_grid=True: every program of a grid of one per SM
    is resident at once, so a barrier built from atomics completes (each
    program sees all arrivals); a grid larger than the GPU holds is a
    CudaError naming the option."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    counter = torch.zeros(1, device="cuda", dtype=torch.int32)
    out = torch.full((sms,), -1, device="cuda", dtype=torch.int32)
    grid_barrier_kernel[(sms,)](counter, out, MAX_SPIN=1 << 22, launch_cooperative_grid=True)
    torch.cuda.synchronize()
    assert (out == sms).all(), out
    with pytest.raises(warpforge.CudaError, match="launch_cooperative_grid=True"):
        grid_barrier_kernel[(sms * 64,)](counter, out, MAX_SPIN=1,
                                         launch_cooperative_grid=True)
