"""Dot forms Triton code uses beyond plain 2-D products: batches of any
rank (tl.dot on N-D tensors, tl.trans swapping the last two dimensions),
float32 products from bfloat16 pieces (input_precision "bf16x3" and
"bf16x6"), and 16-bit accumulators on the CUDA cores. Each runs in the
interpreter here and compiled on the GPU (marked `gpu`), against float64."""
import numpy as np
import pytest

import warpforge
import warpforge.language as tl

torch = pytest.importorskip("torch")


@warpforge.jit
def batched_kernel(X, Y, Z, RANK: tl.constexpr, TRANS_A: tl.constexpr, TRANS_B: tl.constexpr):
    x = tl.load(X + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    y = tl.load(Y + tl.arange(0, 256 << RANK)).reshape([2] * (RANK - 2) + [32, 32])
    if TRANS_A:
        x = tl.trans(x)
    if TRANS_B:
        y = tl.trans(y)
    z = tl.dot(x, y)
    tl.store(Z + tl.arange(0, 256 << RANK), z.reshape([256 << RANK]))


@warpforge.jit
def precision_kernel(X, Y, Z, N: tl.constexpr, PRECISION: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(X + o[:, None] * N + o[None, :])
    y = tl.load(Y + o[:, None] * N + o[None, :])
    tl.store(Z + o[:, None] * N + o[None, :], tl.dot(x, y, input_precision=PRECISION))


@warpforge.jit
def f16_acc_kernel(X, Y, Z, B: tl.constexpr, M: tl.constexpr, K: tl.constexpr):
    ob, om, ok = tl.arange(0, B), tl.arange(0, M), tl.arange(0, K)
    x = tl.load(X + ob[:, None, None] * M * K + om[None, :, None] * K + ok[None, None, :])
    y = tl.load(Y + ob[:, None, None] * K * M + ok[None, :, None] * M + om[None, None, :])
    z = tl.dot(x, y, out_dtype=tl.float16)
    tl.store(Z + ob[:, None, None] * M * M + om[None, :, None] * M + om[None, None, :], z)


@pytest.fixture(params=["interpreter", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request, monkeypatch):
    if request.param == "interpreter":
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
        return "cpu"
    monkeypatch.delenv("WARPFORGE_INTERPRET", raising=False)
    return "cuda"


@pytest.mark.parametrize("rank", [2, 3, 5])
@pytest.mark.parametrize("trans_a,trans_b", [(False, False), (True, False), (False, True)])
def test_batched_dot_any_rank(rank, trans_a, trans_b, device):
    shape = (2,) * (rank - 2) + (32, 32)
    g = torch.Generator().manual_seed(rank)
    a = torch.randn(shape, generator=g).to(torch.float16)
    b = torch.randn(shape, generator=g).to(torch.float16)
    c = torch.full(shape, float("nan"))
    a, b, c = a.to(device), b.to(device), c.to(device)
    batched_kernel[(1,)](a, b, c, rank, trans_a, trans_b)
    a64, b64 = a.double(), b.double()
    ref = (a64.transpose(-1, -2) if trans_a else a64) @ (b64.transpose(-1, -2) if trans_b else b64)
    torch.testing.assert_close(c.double().cpu(), ref.cpu(), rtol=1e-3, atol=1e-3)


def test_trans_without_dims_swaps_last_two(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")

    @warpforge.jit
    def k(X, Z):
        o = tl.arange(0, 64)
        x = tl.load(X + o).reshape([2, 4, 8])
        tl.static_assert(tl.trans(x).shape == [2, 8, 4])
        tl.store(Z + o, tl.trans(x).reshape([64]))

    x = np.arange(64, dtype=np.float32)
    z = np.full(64, np.nan, dtype=np.float32)
    k[(1,)](x, z)
    np.testing.assert_array_equal(z, x.reshape(2, 4, 8).transpose(0, 2, 1).ravel())


@pytest.mark.parametrize("precision,bound", [("bf16x3", 1e-4), ("bf16x6", 1e-6)])
def test_bf16_split_precisions(precision, bound, device):
    """bf16x3 carries 16 bits of each float32 operand, bf16x6 24: their
    errors against float64 sit near 2^-16 and 2^-24 of the terms, where a
    single bfloat16 product is off by 2^-8."""
    n = 64
    g = torch.Generator().manual_seed(7)
    a, b = torch.randn(n, n, generator=g), torch.randn(n, n, generator=g)
    c = torch.full((n, n), float("nan"))
    a, b, c = a.to(device), b.to(device), c.to(device)
    precision_kernel[(1,)](a, b, c, n, precision)
    a64, b64 = a.double().cpu(), b.double().cpu()
    scale = (a64.abs() @ b64.abs()).max().item()
    err = (c.double().cpu() - a64 @ b64).abs().max().item() / scale
    assert err < bound, err
    single = (a.cpu().bfloat16().double() @ b.cpu().bfloat16().double() - a64 @ b64).abs().max() / scale
    assert err < single.item() / 50


def test_unknown_precision_is_an_error(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    a = torch.randn(16, 16)
    with pytest.raises(Exception, match=r"input_precision must be one of .*'bf16x3', 'bf16x6'\], got 'bf16x9'"):
        precision_kernel[(1,)](a, a, a.clone(), 16, "bf16x9")


def test_f16_accumulator_batched(device):
    """A batched (3-D) product with a float16 accumulator.  On the GPU it
    runs on mma.sync (one batch at a time), whose float16 accumulator is
    rounded after each 16-deep instruction, as Triton's is: 4 roundings
    over K = 64, each within half an ulp of a running sum bounded by
    |x| @ |y|.  The interpreter sums in float32 and rounds once."""
    B, M, K = 2, 32, 64
    g = torch.Generator().manual_seed(3)
    x = torch.randn(B, M, K, generator=g).to(torch.float16)
    y = torch.randn(B, K, M, generator=g).to(torch.float16)
    z = torch.full((B, M, M), float("nan"), dtype=torch.float16)
    x, y, z = x.to(device), y.to(device), z.to(device)
    f16_acc_kernel[(1,)](x, y, z, B, M, K)
    ref = x.double().cpu() @ y.double().cpu()
    bound = 4 * 2.0 ** -11 * (x.double().cpu().abs() @ y.double().cpu().abs()) + 1e-6
    err = (z.double().cpu() - ref).abs()
    assert not z.isnan().any()
    assert (err <= bound).all(), (err / bound).max().item()
