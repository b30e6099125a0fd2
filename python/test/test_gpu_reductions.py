"""Reductions, scans, transposes and the row kernels built on them (softmax,
layer norm), compiled for the GPU and checked against torch.

Every kernel is written as a Triton user would; inputs are random, sizes
odd where the kernel masks, outputs poisoned before the launch, and each
runs with 1, 4 and 8 warps (which moves the reduced axis across lanes,
warps and repetitions of the layout).
"""

import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.gpu

WARPS = [1, 4, 8]
POISON = float("nan")


def randn(*shape, dtype=torch.float32):
    g = torch.Generator(device="cpu").manual_seed(hash(shape) % (2**31))
    return torch.randn(*shape, generator=g, dtype=torch.float32).to(dtype).cuda()


def poisoned(*shape, dtype=torch.float32):
    if dtype.is_floating_point:
        return torch.full(shape, POISON, dtype=dtype, device="cuda")
    return torch.full(shape, -12345, dtype=dtype, device="cuda")


# ---------------------------------------------------------------------------
# 2-D reductions along either axis
# ---------------------------------------------------------------------------

@warpforge.jit
def reduce_2d_kernel(x_ptr, out_ptr, M, N, stride_m,
                     AXIS: tl.constexpr, OP: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    ptrs = x_ptr + rm[:, None] * stride_m + rn[None, :]
    if OP == "sum":
        x = tl.load(ptrs, mask=mask, other=0.0)
        r = tl.sum(x, axis=AXIS)
    elif OP == "max":
        x = tl.load(ptrs, mask=mask, other=-float("inf"))
        r = tl.max(x, axis=AXIS)
    elif OP == "min":
        x = tl.load(ptrs, mask=mask, other=float("inf"))
        r = tl.min(x, axis=AXIS)
    elif OP == "argmax":
        x = tl.load(ptrs, mask=mask, other=-float("inf"))
        r = tl.argmax(x, axis=AXIS)
    else:
        x = tl.load(ptrs, mask=mask, other=float("inf"))
        r = tl.argmin(x, axis=AXIS)
    if AXIS == 0:
        tl.store(out_ptr + rn, r, mask=rn < N)
    else:
        tl.store(out_ptr + rm, r, mask=rm < M)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("op", ["sum", "max", "min", "argmax", "argmin"])
@pytest.mark.parametrize("M,N,BLOCK_M,BLOCK_N", [(37, 50, 64, 64), (8, 1000, 8, 1024),
                                                 (128, 16, 128, 16)])
def test_reduce_2d(op, axis, num_warps, M, N, BLOCK_M, BLOCK_N):
    x = randn(M, N)
    length = N if axis == 0 else M
    is_arg = op.startswith("arg")
    out = poisoned(length, dtype=torch.int32 if is_arg else torch.float32)
    reduce_2d_kernel[(1,)](x, out, M, N, x.stride(0), AXIS=axis, OP=op,
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    if op == "sum":
        torch.testing.assert_close(out, x.sum(dim=axis), rtol=1e-5, atol=1e-4)
    elif op == "max":
        torch.testing.assert_close(out, x.amax(dim=axis), rtol=0, atol=0)
    elif op == "min":
        torch.testing.assert_close(out, x.amin(dim=axis), rtol=0, atol=0)
    elif op == "argmax":
        torch.testing.assert_close(out.long(), x.argmax(dim=axis), rtol=0, atol=0)
    else:
        torch.testing.assert_close(out.long(), x.argmin(dim=axis), rtol=0, atol=0)


@warpforge.jit
def argmax_ties_kernel(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < N, other=-1)
    tl.store(out_ptr, tl.argmax(x, axis=0))


@pytest.mark.parametrize("num_warps", WARPS)
def test_argmax_picks_the_first_of_equal_values(num_warps):
    x = torch.randint(0, 7, (1000,), dtype=torch.int32, device="cuda")
    out = poisoned(1, dtype=torch.int32)
    argmax_ties_kernel[(1,)](x, out, 1000, BLOCK=1024, num_warps=num_warps)
    first = int((x == x.max()).nonzero()[0])
    assert int(out[0]) == first


# ---------------------------------------------------------------------------
# 1-D sums, one block per program
# ---------------------------------------------------------------------------

@warpforge.jit
def block_sum_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.store(out_ptr + pid, tl.sum(x, axis=0))


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("BLOCK", [32, 256, 2048])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_block_sum(dtype, BLOCK, num_warps):
    n = 5 * BLOCK - 3
    if dtype.is_floating_point:
        x = randn(n)
    else:
        x = torch.randint(-1000, 1000, (n,), dtype=dtype, device="cuda")
    blocks = (n + BLOCK - 1) // BLOCK
    out = poisoned(blocks, dtype=dtype)
    block_sum_kernel[(blocks,)](x, out, n, BLOCK=BLOCK, num_warps=num_warps)
    padded = torch.zeros(blocks * BLOCK, dtype=dtype, device="cuda")
    padded[:n] = x
    ref = padded.view(blocks, BLOCK).sum(dim=1).to(dtype)
    if dtype.is_floating_point:
        torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-4)
    else:
        torch.testing.assert_close(out, ref, rtol=0, atol=0)


# ---------------------------------------------------------------------------
# Scans
# ---------------------------------------------------------------------------

@warpforge.jit
def cumsum_2d_kernel(x_ptr, out_ptr, M, N, AXIS: tl.constexpr, REVERSE: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    offs = rm[:, None] * N + rn[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0)
    y = tl.cumsum(x, axis=AXIS, reverse=REVERSE)
    tl.store(out_ptr + offs, y, mask=mask)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("M,N,BLOCK_M,BLOCK_N", [(37, 50, 64, 64), (4, 1000, 4, 1024),
                                                 (256, 8, 256, 8)])
def test_cumsum_2d(axis, reverse, num_warps, M, N, BLOCK_M, BLOCK_N):
    # Integers: the sum is exact in any order.
    x = torch.randint(-100, 100, (M, N), dtype=torch.int32, device="cuda")
    out = poisoned(M, N, dtype=torch.int32)
    cumsum_2d_kernel[(1,)](x, out, M, N, AXIS=axis, REVERSE=reverse,
                           BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    src = x.flip(axis) if reverse else x
    ref = src.cumsum(dim=axis)
    ref = ref.flip(axis) if reverse else ref
    torch.testing.assert_close(out, ref.to(torch.int32), rtol=0, atol=0)


@warpforge.jit
def cumsum_1d_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr + offs, tl.cumsum(x, axis=0), mask=offs < n)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("n,BLOCK", [(1, 16), (1000, 1024), (3000, 4096)])
def test_cumsum_1d(n, BLOCK, num_warps):
    x = randn(n)
    out = poisoned(n)
    cumsum_1d_kernel[(1,)](x, out, n, BLOCK=BLOCK, num_warps=num_warps)
    torch.testing.assert_close(out, x.cumsum(0), rtol=1e-4, atol=1e-3)


@warpforge.jit
def scan_bf16_kernel(x_ptr, out_ptr, n, PROD: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0 if PROD else 0.0)
    y = tl.cumprod(x, axis=0) if PROD else tl.cumsum(x, axis=0)
    tl.static_assert(y.dtype == tl.float32)  # as in Triton: bf16 runs in fp32
    tl.store(out_ptr + offs, y, mask=offs < n)


@pytest.mark.parametrize("prod", [False, True])
def test_scan_bf16_in_fp32(prod):
    """A running sum of 1000 bf16 values kept in bf16 would be off by
    several percent; in fp32 it is within fp32 rounding of float64."""
    n = 1000
    x = randn(n, dtype=torch.bfloat16)
    if prod:  # values near 1 keep the product finite
        x = (1 + x.float() / 64).to(torch.bfloat16)
    out = poisoned(n)
    scan_bf16_kernel[(1,)](x, out, n, PROD=prod, BLOCK=1024)
    ref = x.double().cumprod(0) if prod else x.double().cumsum(0)
    torch.testing.assert_close(out.double(), ref, rtol=1e-4, atol=1e-3)


# ---------------------------------------------------------------------------
# Transposes (layout conversions through shared memory)
# ---------------------------------------------------------------------------

@warpforge.jit
def trans_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :],
                mask=(rm[:, None] < M) & (rn[None, :] < N))
    # out is N x M: write it row by row of out.
    tl.store(out_ptr + rn[:, None] * M + rm[None, :], tl.trans(x),
             mask=(rn[:, None] < N) & (rm[None, :] < M))


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("M,N,BLOCK_M,BLOCK_N", [(100, 70, 32, 64), (257, 129, 64, 64)])
def test_trans(M, N, BLOCK_M, BLOCK_N, num_warps):
    x = randn(M, N)
    out = poisoned(N, M)
    grid = ((M + BLOCK_M - 1) // BLOCK_M, (N + BLOCK_N - 1) // BLOCK_N)
    trans_kernel[grid](x, out, M, N, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=num_warps)
    torch.testing.assert_close(out, x.t().contiguous(), rtol=0, atol=0)


@warpforge.jit
def strided_copy_kernel(x_ptr, out_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # Reads x column-major (a strided load), writes out row-major.
    rm = tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    mask = (rm[:, None] < N) & (rn[None, :] < M)
    x = tl.load(x_ptr + rn[None, :] * N + rm[:, None], mask=mask)
    tl.store(out_ptr + rm[:, None] * M + rn[None, :], x, mask=mask)


@pytest.mark.parametrize("num_warps", WARPS)
def test_strided_transpose(num_warps):
    M, N = 45, 60
    x = randn(M, N)
    out = poisoned(N, M)
    strided_copy_kernel[(1,)](x, out, M, N, BLOCK_M=64, BLOCK_N=64, num_warps=num_warps)
    torch.testing.assert_close(out, x.t().contiguous(), rtol=0, atol=0)


@warpforge.jit
def reshape_sum_kernel(x_ptr, out_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs = tl.arange(0, BLOCK_M * BLOCK_N)
    x = tl.load(x_ptr + offs)
    x2 = tl.reshape(x, (BLOCK_M, BLOCK_N))
    tl.store(out_ptr + tl.arange(0, BLOCK_M), tl.sum(x2, axis=1))


@pytest.mark.parametrize("num_warps", WARPS)
def test_reshape_then_reduce(num_warps):
    x = randn(32 * 64)
    out = poisoned(32)
    reshape_sum_kernel[(1,)](x, out, BLOCK_M=32, BLOCK_N=64, num_warps=num_warps)
    torch.testing.assert_close(out, x.view(32, 64).sum(dim=1), rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------------------
# Softmax and layer norm, one row per program
# ---------------------------------------------------------------------------

@warpforge.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=cols < n_cols,
                other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=cols < n_cols)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("rows,cols,BLOCK", [(37, 1000, 1024), (5, 97, 128), (3, 4000, 4096)])
def test_softmax(rows, cols, BLOCK, num_warps):
    x = randn(rows, cols) * 3
    out = poisoned(rows, cols)
    softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols,
                            BLOCK_SIZE=BLOCK, num_warps=num_warps)
    torch.testing.assert_close(out, torch.softmax(x, dim=1), rtol=1e-4, atol=1e-6)


@warpforge.jit
def layer_norm_fwd_kernel(X, Y, W, B, Mean, Rstd, stride, N, eps,
                          BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    y = xc * rstd * w + b
    tl.store(Y + row * stride + cols, y, mask=mask)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)


@pytest.mark.parametrize("num_warps", WARPS)
@pytest.mark.parametrize("rows,cols,BLOCK", [(37, 1000, 1024), (8, 333, 512)])
def test_layer_norm_forward(rows, cols, BLOCK, num_warps):
    x = randn(rows, cols) * 2 + 0.5
    w = randn(cols + 1)[:cols].contiguous()
    b = randn(cols + 2)[:cols].contiguous()
    y = poisoned(rows, cols)
    mean = poisoned(rows)
    rstd = poisoned(rows)
    eps = 1e-5
    layer_norm_fwd_kernel[(rows,)](x, y, w, b, mean, rstd, x.stride(0), cols, eps,
                                   BLOCK_SIZE=BLOCK, num_warps=num_warps)
    ref = torch.nn.functional.layer_norm(x, (cols,), w, b, eps)
    torch.testing.assert_close(y, ref, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(mean, x.mean(dim=1), rtol=1e-5, atol=1e-5)
    var = x.var(dim=1, correction=0)
    torch.testing.assert_close(rstd, 1 / torch.sqrt(var + eps), rtol=1e-4, atol=1e-4)
