"""tl.dot on the GPU (Hopper wgmma) against torch.

Three kernels: a plain matmul written here (2-D grid, masks on M, N and K,
an fp32 or fp16 accumulator), a single-tile D = A @ B + C (the Gluon wgmma
tutorial's small_mma), and the grouped, autotuned matmul that
bench/matmul.py times (bench/kernels/matmul.py). They run over:

* sizes 1, 15, 64, 127, 129, 255, 1000 and 4096 in each of M, N and K
  (rotated so that 4096 only meets small sizes), and the tutorial's shapes;
* fp16 with fp32 and fp16 accumulators, bf16, fp8 e4m3 and e5m2, fp32
  through tf32, int8 into int32 (exact); outputs in fp32 or the input's
  type;
* operands transposed through their strides (fp16, bf16); fp8 and tf32
  operands are given K-major (B as the transpose of an N x K tensor), the
  only order wgmma reads 8- and 32-bit types in; int8 B both ways (an
  N-major B is transposed on its way to shared memory);
* tiles of 64, 128 and 256 in M and N with 4 and 8 warps, 1 to 5 stages,
  BLOCK_K 32, 64 (and 128 for fp8); a config over the shared-memory limit
  (warpforge.OutOfResources) is skipped;
* and the SASS of the standard configs: HGMMA, QGMMA or IGMMA, no local
  memory.

Inputs are random normal, scaled by K^-1/4 so that outputs are about unit
normal (int8: uniform over -128..127); the reference is torch.matmul in
float64 of the very (quantized) inputs. Outputs are poisoned with NaN (int32:
with INT32_MIN, which no product reaches), inside a larger poisoned buffer
whose other elements must stay poisoned. The error is max |out - ref| /
max |ref|.
"""

import collections
import os
import sys
import zlib

import pytest

import warpforge
import warpforge.language as tl
from sass_helpers import check_sass, needs_disassembler
from warpforge import OutOfResources

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu


def _sm90_only() -> bool:
    """Whether the suite runs for a target below sm_89
    (WARPFORGE_OVERRIDE_ARCH=sm80/sm86)."""
    import os
    arch = os.environ.get("WARPFORGE_OVERRIDE_ARCH", "").lower().replace("_", "")
    return arch in ("sm80", "sm86", "80", "86")

BENCH_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "bench"))


@warpforge.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                  BLOCK_K: tl.constexpr, ACC_FP16: tl.constexpr, ACC_INT32: tl.constexpr,
                  PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N),
                   dtype=tl.float16 if ACC_FP16 else tl.int32 if ACC_INT32 else tl.float32)
    for k in range(0, K, BLOCK_K):
        # Rows, columns and K past the edges load zeros.
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


@warpforge.jit
def mma_acc_kernel(a_ptr, b_ptr, c_ptr, d_ptr, M: tl.constexpr, N: tl.constexpr,
                   K: tl.constexpr):
    # One tile, no loop: D = A @ B + C with C loaded into the accumulator.
    rm, rn, rk = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
    c = tl.load(c_ptr + rm[:, None] * N + rn[None, :])
    tl.store(d_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b, c))


# -- Types, inputs, outputs, checks ------------------------------------------------

Mode = collections.namedtuple("Mode", "name dtype out_dtype acc_fp16 k_major_b tol")

# Tolerances on max |out - ref| / max |ref|: fp32 outputs of 16-bit inputs
# differ from the float64 reference only by fp32 sums; an fp16 or bf16
# output is rounded once (bf16: 2^-9 of an element); an fp16 accumulator
# rounds at every step of K; tf32 rounds the fp32 inputs to 10-bit mantissas.
MODES = {m.name: m for m in [
    Mode("fp16", torch.float16, torch.float32, False, False, 2e-3),
    Mode("fp16-out16", torch.float16, torch.float16, False, False, 1e-2),
    Mode("fp16-acc16", torch.float16, torch.float16, True, False, 2e-2),
    Mode("bf16", torch.bfloat16, torch.bfloat16, False, False, 1e-2),
    Mode("bf16-out32", torch.bfloat16, torch.float32, False, False, 2e-3),
    Mode("e4m3", torch.float8_e4m3fn, torch.float32, False, True, 2e-2),
    Mode("e5m2", torch.float8_e5m2, torch.float32, False, True, 2e-2),
    Mode("e4m3-out16", torch.float8_e4m3fn, torch.float16, False, True, 2e-2),
    Mode("e4m3-acc16", torch.float8_e4m3fn, torch.float16, True, True, 2e-2),
    Mode("tf32", torch.float32, torch.float32, False, True, 1e-2),
    Mode("int8", torch.int8, torch.int32, False, False, 0.0),
    Mode("int8-kmajor", torch.int8, torch.int32, False, True, 0.0),
]}

Config = collections.namedtuple("Config", "block_m block_n block_k num_warps num_stages")


def cfg_id(c: Config) -> str:
    return f"{c.block_m}x{c.block_n}x{c.block_k}-w{c.num_warps}-s{c.num_stages}"


def generator(*key):
    """A CUDA generator seeded from the test's parameters: every test draws
    its own reproducible inputs."""
    return torch.Generator(device="cuda").manual_seed(zlib.crc32(repr(key).encode()))


def operand(rows, cols, dtype, transposed, gen, scale):
    """A rows x cols random normal operand times `scale`, in `dtype`; when
    `transposed`, the .T view of a contiguous cols x rows tensor."""
    shape = (cols, rows) if transposed else (rows, cols)
    if dtype == torch.int8:
        x = torch.randint(-128, 128, shape, device="cuda", generator=gen, dtype=dtype)
    else:
        x = (torch.randn(shape, device="cuda", generator=gen) * scale).to(dtype)
    return x.T if transposed else x


def operands(mode: Mode, m, n, k, gen, a_t=False, b_t=False):
    scale = k ** -0.25
    a = operand(m, k, mode.dtype, a_t, gen, scale)
    b = operand(k, n, mode.dtype, b_t or mode.k_major_b, gen, scale)
    return a, b


def f64(x):
    # Through float32: every input type (fp8 included) converts to it.
    return x.to(torch.float32).to(torch.float64)


def reference(a, b):
    return torch.matmul(f64(a), f64(b))


class Output:
    """An M x N output poisoned with NaN inside a NaN buffer: contiguous and
    followed by a guard, or (padded) a strided window of a larger matrix,
    whose rows are then neither contiguous nor 16-byte aligned."""

    GUARD = 256

    def __init__(self, m, n, dtype, padded):
        nan = float("nan") if dtype.is_floating_point else torch.iinfo(dtype).min
        self.poison = nan
        if padded:
            self.buf = torch.full((m + 3, n + 5), nan, dtype=dtype, device="cuda")
            self.out = self.buf[1:m + 1, 2:n + 2]
            self.inside = torch.zeros(self.buf.shape, dtype=torch.bool, device="cuda")
            self.inside[1:m + 1, 2:n + 2] = True
        else:
            self.buf = torch.full((m * n + self.GUARD,), nan, dtype=dtype, device="cuda")
            self.out = self.buf[:m * n].view(m, n)
            self.inside = torch.zeros(self.buf.shape, dtype=torch.bool, device="cuda")
            self.inside[:m * n] = True

    def poisoned(self, x):
        return torch.isnan(x) if x.is_floating_point() else x == self.poison

    def check(self, ref, tol, what):
        out = self.out
        unwritten = int(self.poisoned(out).sum().item())
        assert unwritten == 0, f"{what}: {unwritten} of {out.numel()} outputs are NaN " \
                               "(unwritten, or computed as NaN)"
        err = rel_err(out, ref)
        assert err <= tol, f"{what}: max |out - ref| / max |ref| = {err:.3g} > {tol:g}"
        outside = self.buf[~self.inside]
        written = int((~self.poisoned(outside)).sum().item())
        assert written == 0, f"{what}: the kernel wrote {written} elements outside its output"


def rel_err(out, ref) -> float:
    scale = ref.abs().max().item()
    assert scale > 0, "the reference is all zeros: the test's inputs are degenerate"
    return (out.to(torch.float64) - ref).abs().max().item() / scale


def cdiv(a, b):
    return (a + b - 1) // b


def run_matmul(mode: Mode, a, b, out, config: Config):
    """Launches matmul_kernel; a config over a hardware limit skips the test."""
    (m, k), n = a.shape, b.shape[1]
    grid = (cdiv(m, config.block_m), cdiv(n, config.block_n))
    try:
        matmul_kernel[grid](a, b, out, m, n, k, a.stride(0), a.stride(1), b.stride(0),
                            b.stride(1), out.stride(0), out.stride(1),
                            BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                            BLOCK_K=config.block_k, ACC_FP16=mode.acc_fp16,
                            ACC_INT32=mode.dtype == torch.int8, PRECISION="tf32",
                            num_warps=config.num_warps, num_stages=config.num_stages)
    except OutOfResources as e:
        pytest.skip(f"{cfg_id(config)}: {e}")
    torch.cuda.synchronize()


def check_matmul(mode: Mode, m, n, k, config: Config, a_t=False, b_t=False, padded=False,
                 gen_key=()):
    gen = generator(mode.name, m, n, k, config, a_t, b_t, padded, *gen_key)
    a, b = operands(mode, m, n, k, gen, a_t, b_t)
    out = Output(m, n, mode.out_dtype, padded)
    run_matmul(mode, a, b, out.out, config)
    what = (f"{mode.name} {m}x{n}x{k} {cfg_id(config)} A{'^T' if a_t else ''} "
            f"B{'^T' if b_t or mode.k_major_b else ''}{' padded C' if padded else ''}")
    out.check(reference(a, b), mode.tol, what)


# -- Sizes ------------------------------------------------------------------------------

SIZES = [1, 15, 64, 127, 129, 255, 1000, 4096]


def rotations(offsets):
    """(M, N, K) = (SIZES[i], SIZES[i + dn], SIZES[i + dk]) for every i: each
    size once in each position; 4096 sits beside sizes far from it."""
    count = len(SIZES)
    return [(SIZES[i], SIZES[(i + offsets[0]) % count], SIZES[(i + offsets[1]) % count])
            for i in range(count)]


SHAPES = rotations((1, 2)) + rotations((3, 6)) + [(512, 512, 512), (1024, 1024, 1024)]
SHAPE_CONFIGS = [Config(128, 128, 64, 4, 3), Config(64, 128, 32, 4, 4),
                 Config(128, 256, 64, 8, 3)]


@pytest.mark.parametrize("mode", ["fp16", "bf16"])
@pytest.mark.parametrize("index", range(len(SHAPES)),
                         ids=["x".join(map(str, s)) for s in SHAPES])
def test_shapes(mode, index):
    m, n, k = SHAPES[index]
    config = SHAPE_CONFIGS[index % len(SHAPE_CONFIGS)]
    check_matmul(MODES[mode], m, n, k, config, padded=index % 2 == 1)


DTYPE_SHAPES = [(129, 255, 1000), (1000, 64, 127), (64, 129, 4096)]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("shape", DTYPE_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_dtypes(mode, shape):
    if MODES[mode].name.startswith("e") and _sm90_only():
        pytest.skip("fp8 conversions need sm_89; the target is older")
    check_matmul(MODES[mode], *shape, Config(128, 128, 64, 4, 3), padded=shape[0] == 1000)


@pytest.mark.parametrize("mode", ["fp16", "bf16"])
@pytest.mark.parametrize("a_t,b_t", [(True, False), (False, True), (True, True)],
                         ids=["At", "Bt", "AtBt"])
@pytest.mark.parametrize("shape,config", [
    ((129, 255, 1000), Config(128, 128, 64, 4, 3)),
    ((1000, 127, 64), Config(64, 256, 32, 4, 4))], ids=["129x255x1000", "1000x127x64"])
def test_transposed_operands(mode, a_t, b_t, shape, config):
    check_matmul(MODES[mode], *shape, config, a_t=a_t, b_t=b_t)


def block_configs():
    """Tiles 64/128/256 x 64/128/256 with 4 and 8 warps whose fp32
    accumulator fits in 128 registers a thread, each with BLOCK_K 32 and 64;
    the stages cycle through 1..5 (all five with each BLOCK_K)."""
    configs = []
    for block_k in (32, 64):
        for bm in (64, 128, 256):
            for bn in (64, 128, 256):
                for warps in (4, 8):
                    if bm * bn // (32 * warps) <= 128:
                        configs.append(Config(bm, bn, block_k, warps, 1 + len(configs) % 5))
    return configs


BLOCK_CONFIGS = block_configs()


# Block dimensions that are multiples of 16 but not powers of 2
# (experimental, WARPFORGE_EXPERIMENTAL_NPOT_BLOCKS=1): 80, 48 and 176
# columns and K 80 on wgmma (their operands in 32-byte swizzled rows), and
# 80 columns split by two warpgroups (40 an instruction: no swizzled row
# divides 80 bytes, so the FMA form).
NPOT_CONFIGS = [Config(64, 80, 32, 4, 3), Config(128, 48, 64, 4, 3), Config(64, 176, 32, 4, 2),
                Config(128, 80, 80, 8, 3), Config(64, 80, 32, 8, 2)]


@pytest.mark.parametrize("b_t", [False, True], ids=["B", "Bt"])
@pytest.mark.parametrize("mode", ["fp16", "bf16"])
@pytest.mark.parametrize("config", NPOT_CONFIGS, ids=cfg_id)
def test_npot_block_configs(monkeypatch, config, mode, b_t):
    from warpforge.language import core
    monkeypatch.setenv(core.NPOT_BLOCKS_ENV, "1")
    matmul_kernel.cache.clear()  # the switch is not part of the in-memory key
    try:
        check_matmul(MODES[mode], 300, 260, 520, config, b_t=b_t)
    finally:
        matmul_kernel.cache.clear()


@pytest.mark.parametrize("config", BLOCK_CONFIGS, ids=cfg_id)
def test_block_configs(config):
    # Several tiles in M and N, partial last tiles, 9 to 17 steps of K
    # (more than any stage count), the last partial.
    check_matmul(MODES["fp16"], 300, 260, 520, config)


@pytest.mark.parametrize("k", [1, 15, 64, 100])
@pytest.mark.parametrize("config", [Config(128, 128, 32, 4, 5), Config(128, 128, 64, 8, 4)],
                         ids=cfg_id)
def test_fewer_k_steps_than_stages(k, config):
    check_matmul(MODES["bf16-out32"], 129, 129, k, config)


FP8_CONFIGS = [Config(128, 128, 64, 4, 3), Config(128, 256, 128, 8, 3),
               Config(64, 128, 128, 4, 4), Config(128, 128, 128, 4, 5),
               Config(64, 64, 32, 4, 2)]


@pytest.mark.sm90
@pytest.mark.parametrize("mode", ["e4m3", "e5m2"])
@pytest.mark.parametrize("config", FP8_CONFIGS, ids=cfg_id)
def test_fp8_configs(mode, config):
    check_matmul(MODES[mode], 257, 384, 1000, config)


@pytest.mark.parametrize("mode", ["int8", "int8-kmajor"])
@pytest.mark.parametrize("config", FP8_CONFIGS, ids=cfg_id)
def test_int8_configs(mode, config):
    # Exact: |C| <= 1000 * 128 * 128 fits int32 many times over.
    check_matmul(MODES[mode], 257, 384, 1000, config, padded=True)


# -- The Gluon wgmma tutorial's shapes (seed 001) ----------------------------------------


@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("m,n,k", [(64, 32, 32), (64, 256, 128)])
def test_tutorial_small_mma_with_accumulator(m, n, k, num_warps):
    """One tile, D = A @ B + C: fp16 operands, fp32 C loaded as the
    accumulator (the tutorial's small_mma)."""
    gen = generator("small_mma", m, n, k, num_warps)
    a = torch.randn((m, k), device="cuda", generator=gen).to(torch.float16)
    b = torch.randn((k, n), device="cuda", generator=gen).to(torch.float16)
    c = torch.randn((m, n), device="cuda", generator=gen)
    d = Output(m, n, torch.float32, padded=False)
    mma_acc_kernel[(1,)](a, b, c, d.out, M=m, N=n, K=k, num_warps=num_warps)
    torch.cuda.synchronize()
    d.check(reference(a, b) + c.to(torch.float64), 2e-3,
            f"small_mma {m}x{n}x{k} w{num_warps}")


@pytest.mark.parametrize("num_warps", [4, 8])
@pytest.mark.parametrize("transpose_b", [False, True], ids=["B", "Bt"])
@pytest.mark.parametrize("block", [(64, 64, 64), (128, 128, 128)], ids=lambda b: "x".join(
    map(str, b)))
@pytest.mark.parametrize("m,n,k", [(208, 416, 304), (2000, 1000, 2000)])
def test_tutorial_blocked_matmul(m, n, k, block, transpose_b, num_warps):
    """The tutorial's blocked matmul: fp16 in and out, B as K x N or as the
    transpose of N x K; one stage with 4 warps, two (its pipelined kernel)
    with 8."""
    config = Config(*block, num_warps, 1 if num_warps == 4 else 2)
    check_matmul(MODES["fp16-out16"], m, n, k, config, b_t=transpose_b)


def test_tutorial_benchmark_config():
    """The tutorial's extra benchmark config: 64x256x128, 4 warps, two buffers."""
    check_matmul(MODES["fp16-out16"], 2000, 1000, 2000, Config(64, 256, 128, 4, 2))


# -- The benchmark's kernel ----------------------------------------------------------------


def load_bench_kernels():
    """bench/kernels/matmul.py under warpforge, as bench/matmul.py loads it."""
    sys.path.insert(0, BENCH_DIR)
    try:
        import common
        return common.load_kernels(os.path.join(BENCH_DIR, "kernels", "matmul.py"), "warpforge")
    finally:
        sys.path.remove(BENCH_DIR)


BENCH = load_bench_kernels()


def bench_launch(a, b, out, config=None):
    kernel, grid, args, meta = BENCH.matmul_call(a, b, out, config)
    try:
        kernel[grid](*args, **meta)
    except OutOfResources as e:
        pytest.skip(str(e))
    torch.cuda.synchronize()


@pytest.mark.parametrize("config", BENCH.CONFIGS, ids=BENCH.describe)
def test_bench_kernel_configs(config):
    """Each config of bench/matmul.py on 18 tile rows of 64 (three groups of
    8, the last short), partial tiles in N and a partial last step of K."""
    mode = MODES["fp16-out16"]
    m, n, k = 1100, 700, 520
    a, b = operands(mode, m, n, k, generator("bench", config))
    out = Output(m, n, mode.out_dtype, padded=False)
    bench_launch(a, b, out.out, config)
    out.check(reference(a, b), mode.tol, f"bench kernel {BENCH.describe(config)}")


@pytest.mark.parametrize("mode,shape", [("bf16", (777, 1500, 600)), ("fp16-out16",
                                                                     (4096, 4096, 512))])
def test_bench_kernel_autotuned(mode, shape):
    """The autotuned kernel that bench/matmul.py launches: it picks one of
    the configs, and its next launch (that config alone) is right."""
    mode = MODES[mode]
    a, b = operands(mode, *shape, generator("autotuned", shape))
    out = Output(shape[0], shape[1], mode.out_dtype, padded=False)
    bench_launch(a, b, out.out)  # tunes: every config writes the output
    best = BENCH.matmul_autotuned.best_config
    assert BENCH.describe(best) in {BENCH.describe(c) for c in BENCH.CONFIGS}
    out.out.fill_(float("nan"))
    bench_launch(a, b, out.out)  # the chosen config alone
    out.check(reference(a, b), mode.tol, f"autotuned ({BENCH.describe(best)})")


# -- SASS --------------------------------------------------------------------------------


SASS_CASES = [("fp16", Config(128, 256, 64, 8, 3)), ("fp16", Config(128, 128, 64, 4, 4)),
              ("bf16", Config(128, 256, 64, 8, 3)), ("bf16", Config(128, 128, 64, 4, 4)),
              ("e4m3", Config(128, 256, 128, 8, 3))]


@needs_disassembler
@pytest.mark.parametrize("dtype,config", SASS_CASES,
                         ids=[f"{d}-{cfg_id(c)}" for d, c in SASS_CASES])
@pytest.mark.sm90
def test_sass_uses_wgmma_without_spills(dtype, config, tmp_path):
    """The benchmark's kernel at the standard configs, specialized as for
    4096^3 (aligned, fp8 B K-major): wgmma in the PTX, HGMMA (QGMMA for
    fp8) in the SASS, no local memory (ptxas reports no spills, the driver
    no local bytes, and the SASS has no STL/LDL), and no serialized wgmma
    pipeline in ptxas's report."""
    torch_dtype = {"fp16": torch.float16, "bf16": torch.bfloat16,
                   "e4m3": torch.float8_e4m3fn}[dtype]
    size = 4096
    a = torch.empty((16, 16), dtype=torch_dtype, device="cuda")
    b = torch.empty((16, 16), dtype=torch_dtype, device="cuda")
    c = torch.empty((16, 16), dtype=torch.float16 if dtype == "e4m3" else torch_dtype,
                    device="cuda")
    b_strides = (1, size) if dtype == "e4m3" else (size, 1)
    meta = BENCH.launch_options(BENCH.MatmulConfig(
        config.block_m, config.block_n, config.block_k, BENCH.GROUP_SIZE_M, config.num_warps,
        config.num_stages))
    # Compiles only: the sizes are those of the 4096^3 benchmark case.
    k = BENCH.matmul_kernel.warmup(a, b, c, size, size, size, size, 1, *b_strides, size, 1,
                                   grid=(1,), **meta)
    check_sass(k, f"{dtype} {cfg_id(config)}", "QGMMA" if dtype == "e4m3" else "HGMMA",
               tmp_path)


@pytest.mark.sm90
@needs_disassembler
def test_sass_int8_uses_igmma(tmp_path):
    """int8 at 128x256x128 with 8 warps and 3 stages, B N-major, as for
    4096^3: IGMMA in the SASS, no local memory, no serialized pipeline."""
    size = 4096
    a = torch.empty((16, 16), dtype=torch.int8, device="cuda")
    c = torch.empty((16, 16), dtype=torch.int32, device="cuda")
    k = matmul_kernel.warmup(a, a, c, size, size, size, size, 1, size, 1, size, 1, grid=(1,),
                             BLOCK_M=128, BLOCK_N=256, BLOCK_K=128, ACC_FP16=False,
                             ACC_INT32=True, PRECISION="tf32", num_warps=8, num_stages=3)
    check_sass(k, "int8 128x256x128-w8-s3", "IGMMA", tmp_path)


