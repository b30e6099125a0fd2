"""bench/kernels/fp8_matmul.py on the GPU: the per-tensor scaled and the
block-scaled (1x128 A, 128x128 B) fp8 GEMMs under warpforge, e4m3 and e5m2,
on shapes with partial tiles in M, N and K (K and N multiples of 16, the
TMA's 16-byte row rule for fp8 A and B and the bf16/fp16 output), a
persistent grid smaller than the tiles, outputs poisoned with NaN and
followed by a poisoned guard, checked against float64 of the dequantized
inputs; and torch._scaled_mm, the benchmark's cuBLAS provider, on the same
inputs where torch has the call. Not run yet: written without a GPU."""

import os
import sys
import zlib

import pytest

torch = pytest.importorskip("torch")

BENCH = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
sys.path.insert(0, BENCH)

import common  # noqa: E402
import matmul as mm  # noqa: E402

pytestmark = [pytest.mark.gpu,
              pytest.mark.filterwarnings(
                  "ignore::warpforge.compiler.options.UnsupportedOptionWarning")]

SHAPES = [(1000, 528, 368), (80, 304, 144), (1024, 1024, 1024), (1, 16, 128)]
CASES = [(v, d) for v in ("fp8-scaled", "fp8-block-scaled") for d in ("e4m3", "e5m2")]


@pytest.fixture(scope="module")
def fp8_kernels():
    return common.load_kernels(mm.FP8_KERNEL_FILE, "warpforge")


def run(fp8_kernels, variant, dtype, shape, out_dtype="bf16", programs=None, **call_kw):
    case = mm.Case(dtype, *shape)
    gen = torch.Generator(device="cuda").manual_seed(
        zlib.crc32(f"{variant} {dtype} {shape}".encode()))
    a, b_t, a_scale, b_scale = mm.make_fp8_inputs(torch, case, variant, gen)
    ref = mm.fp8_reference(torch, variant, a.double(), b_t.double(), a_scale.double(),
                           b_scale.double(), case.k).float()
    c, guard = common.TorchArrays(torch).poisoned((case.m, case.n), out_dtype)
    config = fp8_kernels.Fp8Config(*mm.FP8_CONFIGS[variant])
    sms = programs or torch.cuda.get_device_properties(0).multi_processor_count
    make = fp8_kernels.scaled_call if variant == "fp8-scaled" else \
        fp8_kernels.block_scaled_call
    common.launch(make(a, b_t, c, a_scale, b_scale, config, num_sms=sms, **call_kw))
    torch.cuda.synchronize()
    what = f"{variant} {case.label}"
    mm.check_metrics(what, dtype, mm.error_metrics(torch, c, ref), c)
    common.check_guard(what, guard)
    return a, b_t, a_scale, b_scale, ref


@pytest.mark.parametrize("shape", SHAPES, ids=["x".join(map(str, s)) for s in SHAPES])
@pytest.mark.parametrize("variant, dtype", CASES, ids=[f"{v}-{d}" for v, d in CASES])
def test_fp8_kernel_against_float64(fp8_kernels, variant, dtype, shape):
    run(fp8_kernels, variant, dtype, shape)


@pytest.mark.parametrize("variant", ["fp8-scaled", "fp8-block-scaled"])
def test_fp8_kernel_few_programs_fp16_out(fp8_kernels, variant):
    """5 persistent programs walking 8 x 3 tiles each; an fp16 output."""
    run(fp8_kernels, variant, "e4m3", (1000, 528, 368), out_dtype="fp16", programs=5)


@pytest.mark.parametrize("variant", ["fp8-scaled", "fp8-block-scaled"])
def test_fp8_kernel_warp_specialized(fp8_kernels, variant):
    """WARP_SPECIALIZE=True: the same results (warpforge may decline with a
    warning, which this test does not forbid)."""
    run(fp8_kernels, variant, "e4m3", (1000, 528, 368), warp_specialize=True)


@pytest.mark.parametrize("variant", ["fp8-scaled", "fp8-block-scaled"])
def test_torch_scaled_mm_provider(fp8_kernels, variant):
    """The benchmark's cuBLAS provider on the same inputs: right, or (the
    blockwise call in a torch without it) a clear error."""
    a, b_t, a_scale, b_scale, ref = run(fp8_kernels, variant, "e4m3", (1024, 1024, 1024))
    try:
        out = mm.torch_scaled_mm(torch, variant, a, b_t, a_scale, b_scale)
    except (RuntimeError, NotImplementedError) as e:
        if variant == "fp8-scaled":
            raise
        pytest.skip(f"torch {torch.__version__} has no blockwise _scaled_mm here: {e}")
    assert out.dtype == torch.bfloat16 and tuple(out.shape) == (1024, 1024)
    mm.check_metrics(f"torch._scaled_mm {variant}", "e4m3", mm.error_metrics(torch, out, ref),
                     out)
