"""Triton code as written: bugs its tutorials and language tests found
(issue 19), each with its own test. CPU tests compile to cubins (no GPU
needed) or run in the interpreter; GPU tests are marked."""

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from warpforge.compiler.builder import float_literal

F32 = np.zeros(64, np.float32)


# ---------------------------------------------------------------------------
# Float literals in exponent form (other=-1e30, eps = 1e-5) were invalid IR
# ---------------------------------------------------------------------------


@triton.jit
def exponent_literals(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=-1e30)
    eps = 1e-5
    tl.store(out_ptr + offs, tl.maximum(x, -1e4) + eps + 2.5e-3, mask=offs < n)


@pytest.mark.parametrize("value,ir_type,text", [
    (1e-05, "f32", "1.0e-05"), (-1e30, "f32", "-1.0e+30"), (2.5, "f32", "2.5"),
    (1e300, "f64", "1.0e+300"), (1e300, "f32", "0x7F800000"), (-1e10, "f16", "0xFC00"),
    (65504.0, "f16", "65504.0"), (1e-300, "f64", "1.0e-300"),
])
def test_float_literal_text(value, ir_type, text):
    assert float_literal(value, ir_type) == text


def test_exponent_literals_compile_to_a_cubin():
    k = exponent_literals.warmup(F32, F32, 61, BLOCK=64, grid=(1,))
    assert "cubin" in k.asm
    assert "arith.constant -1.000000e+30 : f32" in k.asm["tile-frontend"]


def _exponent_reference(x, n):
    ref = np.full(64, np.nan, np.float32)
    ref[:n] = (np.maximum(x[:n], np.float32(-1e4)) + np.float32(1e-5)) + np.float32(2.5e-3)
    return ref


def test_exponent_literals_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    out = np.full(64, np.nan, np.float32)
    exponent_literals[(1,)](x, out, 61, BLOCK=64)
    np.testing.assert_allclose(out, _exponent_reference(x, 61), rtol=1e-6)


@pytest.mark.gpu
def test_exponent_literals_gpu():
    import torch
    x = torch.randn(64, device="cuda")
    out = torch.full((64,), float("nan"), device="cuda")
    exponent_literals[(1,)](x, out, 61, BLOCK=64)
    np.testing.assert_allclose(out.cpu().numpy(), _exponent_reference(x.cpu().numpy(), 61),
                               rtol=1e-6)


# ---------------------------------------------------------------------------
# A kernel without parameters
# ---------------------------------------------------------------------------


@triton.jit
def no_params():
    tl.static_assert(True)


def test_kernel_without_parameters_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    no_params[(2,)]()


def test_kernel_without_parameters_compiles():
    k = no_params.warmup(grid=(1,))
    assert k.signature == {} and "cubin" in k.asm


@pytest.mark.gpu
def test_kernel_without_parameters_gpu():
    import torch
    no_params[(3,)]()
    torch.cuda.synchronize()


# ---------------------------------------------------------------------------
# Scalar float atomic_max / atomic_min in the interpreter crashed
# ---------------------------------------------------------------------------


@triton.jit
def scalar_float_minmax(p, v):
    tl.atomic_max(p, v)
    tl.atomic_min(p + 1, v)
    old = tl.atomic_max(p + 2, -v)
    tl.store(p + 3 + tl.program_id(0), old)


def test_scalar_float_atomic_minmax_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    y = np.array([1.5, 5.0, -7.0, np.nan, np.nan], np.float32)
    scalar_float_minmax[(2,)](y, -3.25)
    # Programs run in order: the second sees the first's result.
    np.testing.assert_array_equal(y, np.array([1.5, -3.25, 3.25, -7.0, 3.25], np.float32))


@pytest.mark.gpu
def test_scalar_float_atomic_minmax_gpu():
    import torch
    y = torch.tensor([1.5, 5.0, -7.0, float("nan"), float("nan")], device="cuda")
    scalar_float_minmax[(2,)](y, -3.25)
    got = y.cpu().numpy()
    np.testing.assert_array_equal(got[:3], np.array([1.5, -3.25, 3.25], np.float32))
    # Which program came first is up to the GPU: one saw -7, the other 3.25.
    assert sorted(got[3:].tolist()) == [-7.0, 3.25]


# ---------------------------------------------------------------------------
# The interpreter blamed the wrong buffer for an access through a pointer
# loaded from memory (tutorial 08's grouped GEMM keeps its matrices' pointers
# in an array)
# ---------------------------------------------------------------------------


@triton.jit
def through_pointer_array(ptrs, out_ptr, BLOCK: tl.constexpr):
    g = tl.program_id(0)
    base = tl.load(ptrs + g).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + g * BLOCK + offs, tl.load(base + offs) * 2.0)


def test_pointer_arrays_reach_arrays_passed_as_arguments(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    a = np.arange(1, 17, dtype=np.float32)
    b = np.arange(100, 116, dtype=np.float32)
    ptrs = np.array([a.ctypes.data, b.ctypes.data], np.int64)
    out = np.full(32, np.nan, np.float32)

    @triton.jit
    def with_arrays(ptrs, out_ptr, a_ptr, b_ptr, BLOCK: tl.constexpr):
        through_pointer_array(ptrs, out_ptr, BLOCK)

    with_arrays[(2,)](ptrs, out, a, b, BLOCK=16)
    np.testing.assert_array_equal(out, np.concatenate([a, b]) * 2)


def test_pointer_into_no_argument_is_not_blamed_on_one(monkeypatch):
    from warpforge.runtime.interpreter import InterpreterError
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    # Not an argument; large, so the allocator maps it apart from the small
    # argument arrays (an address right past an argument is an overrun).
    hidden = np.arange(1, 1 + (1 << 20), dtype=np.float32)
    ptrs = np.array([hidden.ctypes.data], np.int64)
    out = np.full(16, np.nan, np.float32)
    with pytest.raises(InterpreterError) as info:
        through_pointer_array[(1,)](ptrs, out, BLOCK=16)
    message = str(info.value)
    assert "inside no array argument ('ptrs', 'out_ptr')" in message
    assert "element offset" not in message


# ---------------------------------------------------------------------------
# Kernels made with exec (Triton's tests' patch_kernel) and _unsafe_update_src
# ---------------------------------------------------------------------------

_TEMPLATE = '''
@triton.jit
def patched(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, GENERATE_TEST_HERE)
'''


def _exec_kernel(expr):
    namespace = {}
    exec(_TEMPLATE.replace("GENERATE_TEST_HERE", expr), {"triton": triton, "tl": tl},
         namespace)
    return namespace["patched"]


def test_exec_made_kernel_runs_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    kernel = _exec_kernel("x * 2 + 1")
    x = np.arange(1, 17, dtype=np.float32)
    out = np.full(16, np.nan, np.float32)
    kernel[(1,)](x, out, BLOCK=16)
    np.testing.assert_array_equal(out, x * 2 + 1)


def test_exec_made_kernel_says_why_it_cannot_compile():
    kernel = _exec_kernel("x")
    with pytest.raises(ValueError, match="cannot read the source of patched.*exec.*"
                                         "WARPFORGE_INTERPRET=1"):
        kernel.warmup(F32, F32, BLOCK=16, grid=(1,))


@triton.jit
def update_me(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x + 1.0)


def test_unsafe_update_src_changes_what_compiles():
    kernel = triton.JITFunction(update_me.fn)
    before = kernel.warmup(F32, F32, BLOCK=16, grid=(1,)).asm["tile"]
    kernel._unsafe_update_src(kernel.src.replace("x + 1.0", "x * 3.0"))
    after = kernel.warmup(F32, F32, BLOCK=16, grid=(1,)).asm["tile"]
    assert "arith.addf" in before and "arith.mulf" in after and "arith.addf" not in after


# ---------------------------------------------------------------------------
# triton.reinterpret / TensorWrapper (Triton's tests make unsigned inputs so)
# ---------------------------------------------------------------------------


@triton.jit
def shift_right(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, x >> 28)


def test_reinterpret_as_unsigned_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = np.array([-1, -16, 5, 1 << 30] * 4, np.int32)
    out = np.zeros(16, np.int32)
    ux, uout = triton.reinterpret(x, tl.uint32), triton.reinterpret(out, tl.uint32)
    assert str(ux).startswith("TensorWrapper[")
    shift_right[(1,)](ux, uout, BLOCK=16)
    # Logical shifts: the kernel saw uint32.
    np.testing.assert_array_equal(out.view(np.uint32), x.view(np.uint32) >> 28)
    assert triton.reinterpret(ux, ux.dtype) is not x  # another wrapper of x
    assert warpforge.runtime.jit.reinterpret is triton.reinterpret


def test_reinterpret_signature():
    from warpforge.runtime.jit import arg_spec
    x = np.zeros(16, np.int32)
    assert arg_spec(triton.reinterpret(x, tl.uint32))[1] == "*uint32"
    k = shift_right.warmup(triton.reinterpret(x, tl.uint32), x, BLOCK=16, grid=(1,))
    assert "arith.shrui" in k.asm["tile"]


def test_triton_error_is_the_base_of_kernel_errors(frontend_only):
    from warpforge.language.semantic import SemanticError
    assert issubclass(SemanticError, triton.TritonError)
    assert issubclass(warpforge.CompilationError, triton.TritonError)

    @triton.jit
    def float_and(x_ptr):
        x = tl.load(x_ptr + tl.arange(0, 16))
        tl.store(x_ptr + tl.arange(0, 16), x & x)

    # Triton's test_bitwise_op expects exactly this.
    with pytest.raises(triton.TritonError, match="invalid operands of type"):
        float_and.warmup(F32, grid=(1,))


@pytest.mark.parametrize("name,expected", [
    ("fp16", "fp16"), ("i32", "int32"), ("u1", "int1"), ("u64", "uint64"), ("bf16", "bf16"),
    ("fp8e4nv", "fp8e4nv")])
def test_str_to_ty_and_canonical_names(name, expected):
    from warpforge.runtime.jit import type_canonicalisation_dict
    assert tl.str_to_ty(name, None).name == expected
    assert tl.str_to_ty(type_canonicalisation_dict[expected if expected != "int1" else "bool"],
                        None).name == expected
    assert tl.str_to_ty("*" + name, None).element_ty.name == expected
    assert tl.str_to_ty("*k" + name, None).element_ty.name == expected


def test_str_to_ty_descriptor():
    ty = tl.str_to_ty("tensordesc<fp16[64, 32]>", None)
    assert ty.block_type.shape == [64, 32] or list(ty.block_type.shape) == [64, 32]
    assert ty.block_type.element_ty.name == "fp16"


@triton.jit
def _swizzle2d_kernel(output, size_i, size_j, size_g):
    for i in tl.range(0, size_i, 1):
        for j in tl.range(0, size_j, 1):
            new_i, new_j = tl.swizzle2d(i, j, size_i, size_j, size_g)
            tl.store(output + new_i * size_j + new_j, i * size_j + j)


def _swizzle_reference(size_i, size_j, size_g):
    """Bands of size_g rows (the last shorter), each filled column by column."""
    out = np.zeros((size_i, size_j), np.int32)
    n = 0
    for band in range(0, size_i, size_g):
        rows = min(size_g, size_i - band)
        for j in range(size_j):
            for r in range(rows):
                out[band + r, j] = n
                n += 1
    return out


@pytest.mark.parametrize("size_i, size_j, size_g", [(5, 7, 3), (4, 4, 2), (6, 3, 4), (3, 5, 1)])
def test_swizzle2d_interpreter(monkeypatch, size_i, size_j, size_g):
    """tl.swizzle2d, as Triton's test_swizzle2d checks it (5x7 in bands of 3)."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    out = np.zeros((size_i, size_j), np.int32)
    _swizzle2d_kernel[(1,)](out, size_i, size_j, size_g)
    assert (out == _swizzle_reference(size_i, size_j, size_g)).all(), out


def test_swizzle2d_on_constants_and_compiled():
    assert [tuple(int(v) for v in tl.swizzle2d(i, j, 5, 7, 3)) for i, j in [(0, 1), (3, 0), (4, 6)]] \
        == [(1, 0), (3, 0), (4, 6)]
    k = _swizzle2d_kernel.warmup(np.zeros((5, 7), np.int32), 5, 7, 3, grid=(1,))
    assert "cubin" in k.asm


@pytest.mark.gpu
def test_swizzle2d_gpu():
    import torch
    out = torch.zeros((5, 7), device="cuda", dtype=torch.int32)
    _swizzle2d_kernel[(1,)](out, 5, 7, 3)
    assert (out.cpu().numpy() == _swizzle_reference(5, 7, 3)).all()


# -- extern_libs (tutorial 07) -------------------------------------------------------------------

from warpforge.language.extra import libdevice  # noqa: E402

@triton.jit
def asin_copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, libdevice.asin(tl.load(x_ptr + offsets, mask=mask)), mask=mask)


def test_extern_libs_libdevice_is_accepted(monkeypatch):
    """Tutorial 07 passes extern_libs={'libdevice': path} at the launch (a
    path into a Triton source tree, which need not exist); the kernel links
    the toolkit's libdevice either way and runs as written."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    lib = "/triton/third_party/nvidia/backend/lib/libdevice.10.bc"
    x = np.linspace(-1, 1, 100).astype(np.float32)
    y = np.full(128, np.nan, np.float32)
    asin_copy[(1,)](x, y, 100, BLOCK=128, extern_libs={"libdevice": lib})
    np.testing.assert_allclose(y[:100], np.arcsin(x), rtol=1e-6, atol=1e-6)
    monkeypatch.delenv("WARPFORGE_INTERPRET")
    k = asin_copy.warmup(x, y, 100, BLOCK=128, extern_libs={"libdevice": lib})
    assert "cubin" in k.asm  # linked with the toolkit's libdevice


@pytest.mark.parametrize("libs,error,match", [
    ({"libm": "/lib/libm.bc"}, ValueError, r"only 'libdevice' is supported .*'libm'"),
    (["libdevice"], TypeError, r"must map library names to paths"),
])
def test_extern_libs_errors_name_the_kernel(libs, error, match):
    """On the launch path too (the generated launcher hands an unhashable
    option to run(), which says what is wrong, not 'unhashable type')."""
    x, y = np.zeros(16, np.float32), np.zeros(16, np.float32)
    with pytest.raises(error, match=r"asin_copy: extern_libs.*" + match):
        asin_copy[(1,)](x, y, 16, BLOCK=16, extern_libs=libs)
    with pytest.raises(error, match=match):
        asin_copy.warmup(x, y, 16, BLOCK=16, extern_libs=libs)


# -- Programmatic dependent launch (tutorial 11) --------------------------------------------------

from warpforge.language.extra.cuda import gdc_launch_dependents, gdc_wait  # noqa: E402


@triton.jit
def pdl_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr, USE_GDC: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    if USE_GDC:
        gdc_wait()  # x may be the output of the kernel before this one
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    if USE_GDC:
        gdc_launch_dependents()
    tl.store(out_ptr + offsets, x + y, mask=mask)


@pytest.mark.sm90
def test_gdc_ops_compile_to_griddepcontrol():
    x = np.zeros(256, np.float32)
    k = pdl_add.warmup(x, x, x, 256, BLOCK=128, USE_GDC=True, launch_pdl=True, grid=(2,))
    ptx = k.asm["ptx"]
    assert ptx.index("griddepcontrol.wait") < ptx.index("ld.global")
    assert "griddepcontrol.launch_dependents" in ptx
    assert k.options.launch_pdl is True
    assert 'tile.grid_dependency "wait"' in k.asm["tile"]


def test_gdc_ops_run_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x, y = np.arange(300, dtype=np.float32), np.ones(300, np.float32)
    out = np.full(300, np.nan, np.float32)
    pdl_add[(3,)](x, y, out, 300, BLOCK=128, USE_GDC=True, launch_pdl=True)
    np.testing.assert_array_equal(out, x + 1)


def test_gdc_wait_before_sm90_is_an_error_at_its_line():
    from warpforge.compiler.compiler import compile_kernel
    with pytest.raises(warpforge.CompilationError,
                       match=r"needs sm_90 or later; the target is sm_80") as info:
        compile_kernel(pdl_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                    "n": "i32"}, {"BLOCK": 128, "USE_GDC": True},
                       capability=80)
    line = pdl_add.first_line + next(i for i, text in enumerate(pdl_add.source_lines)
                                     if "gdc_wait()" in text)
    assert info.value.filename == pdl_add.filename
    assert info.value.lineno == line


def test_launch_pdl_must_be_a_bool():
    x = np.zeros(16, np.float32)
    with pytest.raises(ValueError, match="launch_pdl must be True or False"):
        pdl_add.warmup(x, x, x, 16, BLOCK=16, USE_GDC=False, launch_pdl=1)


@pytest.mark.sm90
@pytest.mark.gpu
def test_pdl_chain_on_the_gpu():
    """Tutorial 11's pattern: kernels launched with launch_pdl=True, each
    reading the previous one's output after gdc_wait(), on one stream; the
    chain's result is exact."""
    import torch
    n = 1 << 20
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    a = torch.full((n,), float("nan"), device="cuda")
    b = torch.full((n,), float("nan"), device="cuda")
    grid = (triton.cdiv(n, 1024),)
    for _ in range(20):
        pdl_add[grid](x, y, a, n, BLOCK=1024, USE_GDC=True, launch_pdl=True)
        pdl_add[grid](a, y, b, n, BLOCK=1024, USE_GDC=True, launch_pdl=True)
        pdl_add[grid](b, y, a, n, BLOCK=1024, USE_GDC=True, launch_pdl=True)
    torch.cuda.synchronize()
    # The same fp32 additions, in the same order.
    torch.testing.assert_close(a, ((x + y) + y) + y, rtol=0, atol=0)
    torch.testing.assert_close(b, (x + y) + y, rtol=0, atol=0)


# ---------------------------------------------------------------------------
# A return in a nested if dropped the code after the outer if (wrong result)
# ---------------------------------------------------------------------------


@triton.jit
def nested_if_return(c1, c2, c3, v, out):
    val = 0
    if tl.load(c1):
        if tl.load(c2):
            val = tl.load(v)
        else:
            return
    else:
        if tl.load(c3):
            val = tl.load(v + 1)
        else:
            val = tl.load(v + 2)
    tl.store(out, val)


@pytest.mark.parametrize("gpu", [False, pytest.param(True, marks=pytest.mark.gpu)])
@pytest.mark.parametrize("c1,c2,c3", [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)])
def test_nested_if_return(c1, c2, c3, gpu, monkeypatch):
    torch = pytest.importorskip("torch")
    if not gpu:
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    dev = "cuda" if gpu else "cpu"
    conds = [torch.tensor([c], dtype=torch.int32, device=dev) for c in (c1, c2, c3)]
    v = torch.tensor([11, 22, 33], dtype=torch.int32, device=dev)
    out = torch.full((1,), -1, dtype=torch.int32, device=dev)
    nested_if_return[(1,)](*conds, v, out)
    expected = (11 if c2 else -1) if c1 else (22 if c3 else 33)
    assert out.item() == expected


# ---------------------------------------------------------------------------
# Atomics in Triton's PTX spelling; an unused relaxed exchange assembles
# ---------------------------------------------------------------------------


@triton.jit
def exchange_unused(z, x, SEM: tl.constexpr):
    offs = tl.arange(0, 64)
    tl.atomic_xchg(z + offs, tl.load(x + offs), sem=SEM)
    tl.atomic_add(z + 64 + offs, 1, sem=SEM)
    tl.atomic_cas(z + 128, 0, 1, sem=SEM)


@pytest.mark.parametrize("sem", ["relaxed", "acquire", "release", "acq_rel"])
def test_atomics_in_triton_spelling(sem):
    """Every atomic is an `atom` spelled as Triton spells it (its tests look
    for `atom.global.gpu.<sem>` and `atom.global.<sem>`); an exchange whose
    result is unused once became a `red`, which has no `exch`, and ptxas
    rejected the kernel."""
    z = np.zeros(256, np.int32)
    k = exchange_unused.warmup(z, z, SEM=sem)
    ptx = k.asm["ptx"]
    assert f"atom.global.gpu.{sem}.exch.b32" in ptx
    assert f"atom.global.gpu.{sem}.add.u32" in ptx
    assert f"atom.global.{sem}.gpu.cas.b32" in ptx
    assert "red." not in ptx and "cubin" in k.asm


@pytest.mark.gpu
@pytest.mark.parametrize("sem", ["relaxed", "release"])
def test_atomics_unused_results_gpu(sem):
    import torch
    z = torch.full((256,), -5, dtype=torch.int32, device="cuda")
    x = torch.arange(64, dtype=torch.int32, device="cuda") * 7 + 3
    exchange_unused[(1,)](z, x, SEM=sem)
    assert torch.equal(z[:64], x)
    assert torch.equal(z[64:128], torch.full((64,), -4, dtype=torch.int32, device="cuda"))
    assert z[128].item() == -5  # the compare failed: unchanged


# ---------------------------------------------------------------------------
# enable_fp_fusion (Triton's launch option) and knobs.language.default_fp_fusion
# ---------------------------------------------------------------------------


@triton.jit
def mul_add(data):
    ptrs = data + tl.arange(0, 128)
    tl.store(ptrs, tl.load(ptrs) * 1.5 + 1.0)


def _has_fma(kernel) -> bool:
    import re
    return re.search(r"(mad|fma)\.r[nzmp]\.(ftz\.)?f32", kernel.asm["ptx"]) is not None


@pytest.mark.parametrize("fusion", [False, True])
def test_enable_fp_fusion_option(fusion, monkeypatch):
    monkeypatch.delenv("WARPFORGE_DEFAULT_FP_FUSION", raising=False)
    k = mul_add.warmup(np.zeros(128, np.float32), grid=(1,), enable_fp_fusion=fusion)
    assert _has_fma(k) == fusion
    assert k.options.enable_fp_fusion is fusion
    if not fusion:
        assert "mul.rn.f32" in k.asm["ptx"] and "add.rn.f32" in k.asm["ptx"]


@pytest.mark.parametrize("fusion", [False, True])
def test_default_fp_fusion_knob(fusion, monkeypatch):
    """The knob (its variable) decides for launches that do not say, when a
    kernel is first compiled for their arguments (as in Triton, a kernel
    already compiled keeps its setting: a new JIT function here)."""
    monkeypatch.delenv("WARPFORGE_DEFAULT_FP_FUSION", raising=False)
    triton.knobs.language.default_fp_fusion = fusion

    @triton.jit
    def fresh_mul_add(data):
        ptrs = data + tl.arange(0, 128)
        tl.store(ptrs, tl.load(ptrs) * 1.5 + 1.0)

    k = fresh_mul_add.warmup(np.zeros(128, np.float32), grid=(1,))
    assert _has_fma(k) == fusion and k.options.enable_fp_fusion is fusion


def test_enable_fp_fusion_must_be_a_bool():
    with pytest.raises(ValueError, match="enable_fp_fusion must be True or False, got 1"):
        warpforge.KernelOptions(enable_fp_fusion=1)


# ---------------------------------------------------------------------------
# @jit(repr=) names the compiled kernel; integers beyond 64 bits overflow
# ---------------------------------------------------------------------------


def _name_of(specialization):
    ty = specialization.signature["value1"]
    ones = "_".join(k for k, v in specialization.constants.items() if v == 1)
    return f"kernel_{ty}_{ones}"


@triton.jit(repr=_name_of)
def named_by_repr(value1, is_one, X):
    tl.store(X, value1.to(tl.float32) + is_one)


@pytest.mark.parametrize("value,ty", [(-1, "i32"), (2**31, "i64"), (2**63, "u64")])
def test_repr_names_the_kernel(value, ty):
    """Triton's test_value_specialization: the name is repr(specialization),
    whose signature types the argument and whose constants hold the 1 it
    folded; the cubin's symbol stays the function's."""
    k = named_by_repr.warmup(value, 1, np.zeros(1, np.float32), grid=(1,))
    assert k.name == f"kernel_{ty}_is_one"
    assert k.metadata["name"] == "named_by_repr"


@triton.jit
def takes_an_int(VALUE, X):
    pass


@pytest.mark.parametrize("value", [2**64, -2**63 - 1])
def test_integer_beyond_64_bits_overflows(value):
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        takes_an_int.warmup(value, np.zeros(1, np.float32), grid=(1,))
    with pytest.raises(ValueError):  # still a ValueError, as warpforge's others
        takes_an_int.warmup(value, np.zeros(1, np.float32), grid=(1,))


# ---------------------------------------------------------------------------
# tl.PropagateNan for maximum, minimum and clamp
# ---------------------------------------------------------------------------


@triton.jit
def nan_minmax(A, B, C, propagate_nan: tl.constexpr, func: tl.constexpr):
    if func == "clamp":
        tl.store(C, getattr(tl, func)(tl.load(A), -tl.load(B), tl.load(B),
                                      propagate_nan=getattr(tl.PropagateNan, propagate_nan)))
    else:
        tl.store(C, getattr(tl, func)(tl.load(A), tl.load(B),
                                      propagate_nan=getattr(tl.PropagateNan, propagate_nan)))


@pytest.mark.parametrize("gpu", [False, pytest.param(True, marks=pytest.mark.gpu)])
@pytest.mark.parametrize("func", ["minimum", "maximum", "clamp"])
@pytest.mark.parametrize("propagate", ["NONE", "ALL"])
def test_propagate_nan(propagate, func, gpu, monkeypatch):
    torch = pytest.importorskip("torch")
    if not gpu:
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    dev = "cuda" if gpu else "cpu"
    a = torch.tensor([float("nan")], device=dev)
    b = torch.tensor([0.75], device=dev)
    c = torch.zeros(1, device=dev)
    nan_minmax[(1,)](a, b, c, propagate, func)
    assert torch.isnan(c[0]).item() == (propagate == "ALL")
    assert tl.PropagateNan.ALL.value == 0xFFFF and tl.PropagateNan.NONE.value == 0


# ---------------------------------------------------------------------------
# expand_dims axes count in the result; a constexpr-wrapped type is the type;
# a rule's own exception is the CompilationError's cause
# ---------------------------------------------------------------------------


@triton.jit
def expand_axes(dummy, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.static_assert(tl.expand_dims(offs, (0, -1)).shape == [1, N, 1])
    tl.static_assert(tl.expand_dims(offs, (-4, 2, -1)).shape == [1, N, 1, 1])
    tl.static_assert(tl.expand_dims(offs, (3, 1, 2)).shape == [N, 1, 1, 1])
    dtype_x: tl.constexpr = dummy.dtype.element_ty
    tl.static_assert(dtype_x == tl.constexpr(tl.float32))
    tl.static_assert(dtype_x != tl.constexpr(tl.int32))


@triton.jit
def expand_bad(dummy, N: tl.constexpr, AXES: tl.constexpr):
    tl.expand_dims(tl.arange(0, N), AXES)


@pytest.mark.parametrize("interpret", [False, True])
def test_expand_dims_axes(interpret, monkeypatch):
    if interpret:
        monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
        expand_axes[(1,)](np.zeros(1, np.float32), 32)
    else:
        expand_axes.warmup(np.zeros(1, np.float32), 32, grid=(1,))


@pytest.mark.parametrize("axes,match", [
    (-3, "invalid axis -3"), (2, "invalid axis 2"),
    ((0, 0), r"duplicate axes, normalized axes = \[0, 0\]"),
    ((0, -3), r"duplicate axes, normalized axes = \[0, 0\]"),
])
def test_expand_dims_bad_axes_keep_their_cause(axes, match):
    with pytest.raises(warpforge.TritonError, match=match) as info:
        expand_bad.warmup(np.zeros(1, np.float32), 32, axes, grid=(1,))
    assert info.value.lineno is not None
    assert type(info.value.__cause__).__name__ == "SemanticError"
    import re
    assert re.search(match, str(info.value.__cause__))


@triton.jit
def narrow_descriptor(ptr, BLOCK_0: tl.constexpr, BLOCK_1: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [128, 128], [128, 1], [BLOCK_0, BLOCK_1])
    desc.load([0, 0])


@pytest.mark.parametrize("block", [(1, 2), (8, 2)])
def test_narrow_descriptor_block_in_triton_words(block):
    """Triton's test_tma_*_block_shape_err match its wording in the cause."""
    with pytest.raises(warpforge.CompilationError) as info:
        narrow_descriptor.warmup(np.zeros((128, 128), np.int32), *block, grid=(1,))
    assert "Descriptor block shape must have at least 16 bytes" in str(info.value.__cause__)
    assert f"spans {block[1] * 4} bytes" in str(info.value)


# ---------------------------------------------------------------------------
# Parameters named like Python builtins or the launcher's own names
# ---------------------------------------------------------------------------


@triton.jit
def builtin_names(ptr, type, len, kernel, args, key, _self, n: tl.constexpr):
    offs = tl.arange(0, n)
    tl.store(ptr + offs, tl.load(ptr + offs) * type + len + kernel + args + key + _self)


def test_parameters_named_like_builtins(monkeypatch):
    """The generated launcher keeps its own names out of the parameters' way
    (Triton's test_call names one `type`): every value arrives."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = np.arange(16, dtype=np.float32)
    for _ in range(2):  # the first launch and a warm one
        y = x.copy()
        builtin_names[(1,)](y, 3, 100, 1000, 10000, 100000, 1000000, 16)
        np.testing.assert_array_equal(y, x * 3 + 1111100)
    k = builtin_names.warmup(x, 3, 100, 1000, 10000, 100000, 1000000, 16, grid=(1,))
    assert "cubin" in k.asm


# -- Assignment binds Python numbers as tensors, as Triton's code generator --


@warpforge.jit
def _assigned_scalars(Out, lo, hi, STEP: tl.constexpr):
    acc = 0
    acc = acc.to(tl.int64)          # a tensor: Triton's `acc = 0; acc.to(...)`
    for i in range(lo, hi, STEP):
        acc += i
    value = 1
    tl.store(Out, acc + tl.full([], value, dtype=value.dtype).to(tl.int64))
    n: tl.constexpr = 4             # annotated: stays a constant
    tl.static_assert(n == 4)
    tl.store(Out + 1 + tl.arange(0, n), tl.arange(0, n).to(tl.int64))


def test_assigned_numbers_are_tensors_and_annotated_ones_constants(frontend_only):
    k = _assigned_scalars.warmup(np.zeros(8, np.int64), 2**35, 2**35 + 20, 3, grid=(1,))
    ir = str(k.asm["tile"])
    assert "i64" in ir and "tile.store" in ir


def test_assigned_numbers_in_the_interpreter(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    out = np.zeros(8, np.int64)
    _assigned_scalars[(1,)](out, 2**35, 2**35 + 20, 3)
    assert out[0] == sum(range(2**35, 2**35 + 20, 3)) + 1
    assert list(out[1:5]) == [0, 1, 2, 3]


def test_an_assigned_constant_is_no_longer_constexpr(frontend_only):
    """Triton's rule: `B = BLOCK` binds a tensor, which tl.arange rejects;
    `B: tl.constexpr = BLOCK` keeps the constant."""
    @warpforge.jit
    def kernel(Out, BLOCK: tl.constexpr):
        B = BLOCK
        tl.store(Out + tl.arange(0, B), 1)

    with pytest.raises(warpforge.CompilationError, match="arange"):
        kernel.warmup(np.zeros(16, np.int32), BLOCK=16, grid=(1,))


# -- tl.const parameters ----------------------------------------------------------


@warpforge.jit
def _const_copy(src: tl.const, dst, WHICH: tl.constexpr):
    offs = tl.arange(0, 16)
    out = src if WHICH == "src" else dst   # decided at compile time: one type
    tl.store(out + offs, tl.load(src + offs))


@warpforge.jit
def _const_ternary(src: tl.const, dst, flag):
    out = src if flag else dst
    tl.store(dst, tl.load(out))


@warpforge.jit
def _const_if(src: tl.const, dst, flag):
    if flag:
        out = src
    else:
        out = dst
    tl.store(dst, tl.load(out))


def test_const_pointer_reads_and_is_never_stored_through(frontend_only):
    x = np.zeros(16, np.float32)
    _const_copy.warmup(x, x, WHICH="dst", grid=(1,))
    with pytest.raises(warpforge.CompilationError, match="Cannot store to a constant pointer") \
            as info:
        _const_copy.warmup(x, x, WHICH="src", grid=(1,))
    assert "Cannot store to a constant pointer" in info.value.error_message


@pytest.mark.parametrize("kernel,words", [
    (_const_ternary, "Ternary expression with dynamic condition has inconsistent type"),
    (_const_if, "Mismatched type for out"),
])
def test_const_and_plain_pointers_do_not_mix_at_run_time(kernel, words, frontend_only):
    x = np.zeros(16, np.float32)
    with pytest.raises(warpforge.CompilationError, match=words):
        kernel.warmup(x, x, 5, grid=(1,))  # 1 would be specialized: a static branch


# -- range with a negative step ---------------------------------------------------


@warpforge.jit
def _range_sum(Out, lo, hi, STEP: tl.constexpr):
    acc = 0
    acc = acc.to(tl.int64)
    for i in range(lo, hi, STEP):
        acc += i
    tl.store(Out, acc)


RANGES = [(2**35, 2**35 + 20, 3), (15, -16, -1), (15, -16, -3), (-18, -22, -1), (22, 18, -1),
          (3, 10, -1)]


@pytest.mark.parametrize("lo,hi,step", RANGES)
def test_range_with_a_negative_step_compiles_and_interprets(lo, hi, step, monkeypatch):
    """Triton's `range(hi, lo, -k)`: the loop counts up to ceil((lo - hi) / k)
    and binds lo - i * k; none when lo <= hi."""
    k = _range_sum.warmup(np.zeros(1, np.int64), lo, hi, step, grid=(1,))
    assert "scf.for" in str(k.asm["tile"])
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    out = np.zeros(1, np.int64)
    _range_sum[(1,)](out, lo, hi, step)
    assert out[0] == sum(range(lo, hi, step))


@pytest.mark.gpu
@pytest.mark.parametrize("lo,hi,step", RANGES)
def test_range_with_a_negative_step_on_the_gpu(lo, hi, step):
    torch = pytest.importorskip("torch")
    out = torch.full((1,), -7, dtype=torch.int64, device="cuda")
    _range_sum[(1,)](out, lo, hi, step)
    assert out.item() == sum(range(lo, hi, step))


def test_range_step_zero_is_an_error(frontend_only):
    with pytest.raises(warpforge.CompilationError, match="range step must not be zero"):
        _range_sum.warmup(np.zeros(1, np.int64), 0, 4, 0, grid=(1,))


@warpforge.jit
def _constexpr_types(x_ptr, LIT: tl.constexpr, TUP: tl.constexpr):
    from_source: tl.constexpr = 10
    tl.static_assert(from_source.type == tl.core.constexpr_type(10))
    tl.static_assert(LIT.type == from_source.type)
    tl.static_assert(LIT.type != tl.core.constexpr_type(11))
    pair: tl.constexpr = (5, 6)
    tl.static_assert(pair.type == tl.core.constexpr_type((5, 6)))
    tl.static_assert(TUP.type == pair.type)
    tl.static_assert(pair[1] == 6)
    tl.static_assert(len(pair) == 2)
    run_time = LIT  # a plain assignment binds a 0-d tensor, as in Triton
    tl.static_assert(run_time.type == tl.int32)
    tl.store(x_ptr, run_time + pair[0])


def test_constexpr_type():
    """A compile-time value's `.type` is Triton's constexpr_type: equal when
    the values are (Triton's test_constexpr_assignment), tuples included."""
    from warpforge.language.core import constexpr_type
    assert tl.constexpr(3).type == constexpr_type(3) != constexpr_type(4)
    assert repr(constexpr_type(3)) == "constexpr_type[3]"
    k = _constexpr_types.warmup(np.zeros(1, np.int32), 10, (5, 6), grid=(1,))
    assert "tile.store" in k.asm["tile"]


@warpforge.jit
def _select_addresses(cond_ptr, a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs, mask=mask).to(tl.pi32_t)
    b = tl.load(b_ptr + offs, mask=mask).to(tl.pi32_t)
    tl.store(out_ptr + offs, tl.where(tl.load(cond_ptr + offs, mask=mask), a, b), mask=mask)


def test_pi32_t_addresses_selected_and_stored(monkeypatch):
    """tl.pi32_t (Triton's pointer-to-int32): int64 addresses cast to
    pointers, selected by tl.where and stored back as int64 (Triton's
    test_where with *int32), compiled and interpreted."""
    assert tl.pi32_t == tl.pointer_type(tl.int32)
    n = 100
    rng = np.random.default_rng(3)
    cond = rng.random(n) > 0.5
    x = rng.integers(0, 1 << 40, n, dtype=np.int64)
    y = rng.integers(0, 1 << 40, n, dtype=np.int64)
    k = _select_addresses.warmup(cond, x, y, np.empty(n, np.int64), n, BLOCK=128, grid=(1,))
    assert "tile.int_to_ptr" in k.asm["tile"] and "tile.ptr_to_int" in k.asm["tile"]
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    z = np.zeros(n, np.int64)
    _select_addresses[(1,)](cond, x, y, z, n, BLOCK=128)
    assert (z == np.where(cond, x, y)).all()


@warpforge.jit
def _licm_loops(x_ptr, n, WHILE: tl.constexpr, DISABLE: tl.constexpr):
    if WHILE:
        i = 0
        while tl.condition(i < n, disable_licm=DISABLE):
            tl.store(x_ptr + i, i)
            i = i + 1
    else:
        for i in tl.range(0, n, disable_licm=DISABLE):
            tl.store(x_ptr + i, i)


@pytest.mark.parametrize("while_loop", [True, False])
@pytest.mark.parametrize("disable", [True, False])
def test_disable_licm(while_loop, disable, monkeypatch):
    """tl.condition(c, disable_licm=True) on a while loop and
    tl.range(..., disable_licm=True): LLVM's llvm.licm.disable on the loop
    (Triton's test_disable_licm), from a loop_annotation on the scf loop;
    in the interpreter the loops just run."""
    x = np.zeros(8, np.int32)
    k = _licm_loops.warmup(x, 8, WHILE=while_loop, DISABLE=disable, grid=(1,))
    assert ("llvm.licm.disable" in k.asm["llir"]) == disable
    assert ("#llvm.loop_licm<disable = true>" in k.asm["tile"]) == disable
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    _licm_loops[(1,)](x, 8, WHILE=while_loop, DISABLE=disable)
    assert (x == np.arange(8)).all()
