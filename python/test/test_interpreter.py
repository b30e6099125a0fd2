"""The CPU interpreter (WARPFORGE_INTERPRET=1 or @jit(interpret=True)):
kernels run over their whole grid with NumPy, with the compiled semantics.

Every test draws non-zero random inputs from a fixed seed, uses odd sizes,
poisons its outputs before the launch and compares with a NumPy reference.

The interpreter's tests are in three files:
- test_interpreter.py: the zoo kernels, a kernel written as in Triton's
  tutorial, masks, broadcasting, scalars and control flow, errors (whose
  messages name lines of that file) and host objects (torch-like tensors,
  read-only arrays);
- test_interpreter_numerics.py: rounding of fp16, bf16 and fp8, float/int
  conversions, integer semantics, math functions;
- test_interpreter_ops.py: atomics, reductions and scans, dot, tensor
  descriptors, shape ops, booleans and pointers, printing and barriers.
Their shared helpers are in interp_helpers.py; the fixture `interpreted`
(conftest.py), which each of them applies to every one of its tests with
`pytestmark`, sets WARPFORGE_INTERPRET=1.
"""

import numpy as np
import pytest

import warpforge
import warpforge as triton
import warpforge.language as tl
from warpforge.compiler import CompilationError
from warpforge.runtime.interpreter import DeviceAssertionError, InterpreterError

import zoo
from interp_helpers import rand, rand_int, rel_err

pytestmark = pytest.mark.usefixtures("interpreted")

SIZES = [1, 15, 127, 129, 1000, 1823]


@pytest.fixture(params=["env", "flag"])
def launch(request, monkeypatch):
    """The kernel to launch: as is under WARPFORGE_INTERPRET=1, or a copy
    made with @warpforge.jit(interpret=True) while the variable says 0."""
    if request.param == "env":
        return lambda kernel: kernel
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    return lambda kernel: warpforge.jit(interpret=True)(kernel.fn)


def line_of(kernel, needle: str) -> int:
    return kernel.first_line + next(i for i, l in enumerate(kernel.source_lines) if needle in l)


# ---------------------------------------------------------------------------
# The zoo kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
def test_add_kernel(launch, n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n), rand(rng, n)
    pad = 9
    out = np.full(n + pad, np.nan, np.float32)
    block = 128
    launch(zoo.add_kernel)[(triton.cdiv(n, block),)](x, y, out, n, BLOCK_SIZE=block)
    np.testing.assert_array_equal(out[:n], x + y)
    assert rel_err(out[:n], x.astype(np.float64) + y) < 1e-6
    assert np.isnan(out[n:]).all()  # masked-off lanes write nothing


@pytest.mark.parametrize("n_rows,n_cols", [(1, 1), (7, 15), (33, 127), (10, 129), (5, 1000)])
def test_softmax_persistent(launch, n_rows, n_cols):
    rng = np.random.default_rng(n_rows * 1000 + n_cols)
    # Rows padded in memory: the row strides are not the row lengths.
    x_full = rand(rng, (n_rows, n_cols + 5), scale=3.0)
    x = x_full[:, :n_cols]
    out_full = np.full((n_rows, n_cols + 3), np.nan, np.float32)
    out = out_full[:, :n_cols]
    block = triton.next_power_of_2(n_cols)
    programs = min(n_rows, 4)  # fewer programs than rows: each loops over rows
    launch(zoo.softmax_kernel)[(programs,)](out, x, x.strides[0] // 4, out.strides[0] // 4,
                                            n_rows, n_cols, BLOCK_SIZE=block, num_stages=2)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    assert np.max(np.abs(out - ref) / ref) < 1e-5
    assert np.isnan(out_full[:, n_cols:]).all()


@pytest.mark.parametrize("M,N,block", [(1, 15, 16), (7, 129, 64), (19, 1000, 256), (3, 1823, 512)])
def test_layer_norm_fp16(launch, M, N, block):
    rng = np.random.default_rng(N)
    x = (rand(rng, (M, N), scale=2.0) + 0.5).astype(np.float16)
    w = rand(rng, N, np.float16)
    b = rand(rng, N, np.float16)
    y = np.full((M, N), np.nan, np.float16)
    mean = np.full(M, np.nan, np.float32)
    rstd = np.full(M, np.nan, np.float32)
    eps = 1e-5
    launch(zoo.layer_norm_fwd)[(M,)](x, y, w, b, mean, rstd, x.strides[0] // 2, N, eps,
                                     BLOCK_SIZE=block)
    x64 = x.astype(np.float64)
    mu = x64.mean(axis=1)
    var = ((x64 - mu[:, None]) ** 2).mean(axis=1)
    rs = 1 / np.sqrt(var + eps)
    ref = (x64 - mu[:, None]) * rs[:, None] * w.astype(np.float64) + b.astype(np.float64)
    assert y.dtype == np.float16 and not np.isnan(y).any()
    assert rel_err(mean, mu) < 1e-5
    assert rel_err(rstd, rs) < 1e-5
    # fp16 output: within an fp16 rounding (plus f32 noise) of each value.
    assert np.all(np.abs(y - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-3)


@pytest.mark.parametrize("M,N,K", [(1, 1, 1), (15, 17, 13), (67, 45, 73), (129, 127, 33),
                                   (33, 65, 129)])
@pytest.mark.parametrize("activation", ["", "leaky_relu"])
def test_matmul_fp16(launch, M, N, K, activation):
    rng = np.random.default_rng(M * N * K)
    a = rand(rng, (M, K), np.float16)
    b_full = rand(rng, (N, K), np.float16)
    b = b_full.T  # column-major B: strides are not (N, 1)
    c = np.full((M, N), np.nan, np.float16)
    BM, BN, BK = 32, 16, 16
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_SIZE_M"])  # noqa: E731
                         * triton.cdiv(N, meta["BLOCK_SIZE_N"]),)
    launch(zoo.matmul_kernel)[grid](
        a, b, c, M, N, K, a.strides[0] // 2, a.strides[1] // 2, b.strides[0] // 2,
        b.strides[1] // 2, c.strides[0] // 2, c.strides[1] // 2,
        BLOCK_SIZE_M=BM, BLOCK_SIZE_N=BN, BLOCK_SIZE_K=BK, GROUP_SIZE_M=4,
        ACTIVATION=activation)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if activation == "leaky_relu":
        ref = np.where(ref >= 0, ref, 0.01 * ref)
    assert not np.isnan(c).any()
    assert np.all(np.abs(c - ref) <= 2.0 ** -10 * np.abs(ref) + 1e-4)


@pytest.mark.parametrize("n_cols", [1, 15, 129, 1000])
def test_argmax_rows_with_ties(launch, n_cols):
    rng = np.random.default_rng(n_cols)
    rows = 13
    x = rand_int(rng, (rows, n_cols), -3, 4).astype(np.float32)  # many equal maxima
    x[0, :] = 2.0  # a row of one value: the first index wins
    mx = np.full(rows, np.nan, np.float32)
    idx = np.full(rows, -99, np.int32)
    block = triton.next_power_of_2(n_cols)
    launch(zoo.argmax_rows_kernel)[(rows,)](x, mx, idx, n_cols, x.strides[0] // 4, BLOCK=block)
    np.testing.assert_array_equal(mx, x.max(axis=1))
    np.testing.assert_array_equal(idx, np.argmax(x, axis=1))
    assert idx[0] == 0


@pytest.mark.parametrize("n", [1, 129, 1823])
def test_helper_call_kernel(launch, n):
    rng = np.random.default_rng(n)
    x = rand(rng, n)
    out = np.full(n, np.nan, np.float32)
    launch(zoo.helper_call_kernel)[(triton.cdiv(n, 64),)](x, out, n, BLOCK=64)
    np.testing.assert_array_equal(out, x * np.float32(2.0) + np.float32(1.0))


# ---------------------------------------------------------------------------
# A kernel written as in Triton's tutorial
# ---------------------------------------------------------------------------


@triton.jit
def tutorial_add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def tutorial_add(x, y):
    output = np.full_like(x, np.nan)
    n_elements = output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )  # noqa: E731
    tutorial_add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


@pytest.mark.parametrize("n", [1, 1823, 98432 + 7])
def test_tutorial_vector_add(n):
    rng = np.random.default_rng(n)
    x, y = rand(rng, n), rand(rng, n)
    np.testing.assert_array_equal(tutorial_add(x, y), x + y)


def test_tutorial_vector_add_on_array_interface_objects():
    class Buffer:  # not a NumPy array: only the array interface
        def __init__(self, arr):
            self.arr = arr
            self.__array_interface__ = arr.__array_interface__

    rng = np.random.default_rng(3)
    x, y = rand(rng, 333), rand(rng, 333)
    out = np.full_like(x, np.nan)
    tutorial_add_kernel[(1,)](Buffer(x), Buffer(y), Buffer(out), 333, BLOCK_SIZE=512)
    np.testing.assert_array_equal(out, x + y)


# ---------------------------------------------------------------------------
# Masks, other, broadcasting, scalars, control flow
# ---------------------------------------------------------------------------


@triton.jit
def masked_2d_kernel(x_ptr, out_ptr, M, N, stride, BM: tl.constexpr, BN: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    cols = tl.program_id(1) * BN + tl.arange(0, BN)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=inside, other=-7.5)
    # A row vector plus a column vector broadcasts to the block.
    y = x * 2 + rows[:, None].to(tl.float32) - cols[None, :]
    out_rows = tl.program_id(0) * BM + tl.arange(0, BM)
    tl.store(out_ptr + out_rows[:, None] * (tl.num_programs(1) * BN) + cols[None, :], y)


@pytest.mark.parametrize("M,N", [(1, 1), (15, 17), (37, 129)])
def test_masks_other_and_broadcasting(M, N):
    rng = np.random.default_rng(M + N)
    x = rand(rng, (M, N))
    BM, BN = 8, 16
    gm, gn = triton.cdiv(M, BM), triton.cdiv(N, BN)
    out = np.full((gm * BM, gn * BN), np.nan, np.float32)
    masked_2d_kernel[(gm, gn)](x, out, M, N, x.strides[0] // 4, BM=BM, BN=BN)
    full = np.full(out.shape, -7.5, np.float32)  # `other` where the mask is off
    full[:M, :N] = x
    r = np.arange(out.shape[0], dtype=np.float32)[:, None]
    c = np.arange(out.shape[1], dtype=np.float32)[None, :]
    np.testing.assert_array_equal(out, full * 2 + r - c)


@triton.jit
def scalars_kernel(out_ptr, flag, big, scale, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.int64)
    i = 0
    while i < n:  # a loop on a run-time value
        acc += big
        i += 1
    if flag:
        acc = acc + 1
    else:
        acc = acc - 1
    tl.store(out_ptr + offs, acc.to(tl.float64) * scale, mask=offs < n)
    tl.store(out_ptr + n, tl.program_id(0) + 10 * tl.program_id(1) + 100 * tl.program_id(2)
             + 1000 * tl.num_programs(2))


def test_scalar_arguments_and_control_flow():
    out = np.full(8, np.nan, np.float64)
    big = 3 * 2 ** 33  # an i64 argument
    scalars_kernel[(1,)](out, True, big, 0.5, 5, BLOCK=8)
    np.testing.assert_array_equal(out[:5], (5 * big + 1) * 0.5)
    assert out[5] == 1000
    scalars_kernel[(1,)](out, False, big, 0.5, 5, BLOCK=8)
    np.testing.assert_array_equal(out[:5], (5 * big - 1) * 0.5)


@triton.jit
def grid_kernel(out_ptr):
    x, y, z = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    nx, ny = tl.num_programs(0), tl.num_programs(1)
    tl.store(out_ptr + (z * ny + y) * nx + x, x + 10 * y + 100 * z)


def test_3d_grid_and_validation():
    out = np.full(3 * 2 * 5, -1, np.int32)
    grid_kernel[(3, 2, 5)](out)
    z, y, x = np.meshgrid(np.arange(5), np.arange(2), np.arange(3), indexing="ij")
    np.testing.assert_array_equal(out, (x + 10 * y + 100 * z).reshape(-1))
    with pytest.raises(ValueError, match="1 to 3 dimensions"):
        grid_kernel[(1, 1, 1, 1)](out)
    with pytest.raises(ValueError, match="negative"):
        grid_kernel[(-1,)](out)
    with pytest.raises(TypeError, match="integers"):
        grid_kernel[(1.5,)](out)
    with pytest.raises(TypeError, match="not a tensor, an array"):
        grid_kernel[(1,)]("a string")


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@triton.jit
def assert_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=1.0)
    tl.device_assert(x > 0, "x must be positive")


def test_device_assert_names_the_line():
    x = np.abs(rand(np.random.default_rng(1), 100)) + 1
    assert_kernel[(2,)](x, 100, BLOCK=128)  # passes
    x[37] = -2.0
    with pytest.raises(DeviceAssertionError) as info:
        assert_kernel[(2,)](x, 100, BLOCK=128)
    err = info.value
    assert err.lineno == line_of(assert_kernel, "tl.device_assert")
    assert err.filename == __file__
    assert "x must be positive" in str(err) and "[37]" in str(err)
    assert f"test_interpreter.py:{err.lineno}:" in str(err)
    assert err.program_id == (0, 0, 0)


@triton.jit
def oob_kernel(x_ptr, n, start, BLOCK: tl.constexpr, MASKED: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    if MASKED:
        x = tl.load(x_ptr + offs, mask=offs < n)
    else:
        x = tl.load(x_ptr + offs)
    tl.store(x_ptr + offs, x * 2, mask=offs < n)


def test_out_of_bounds_load_names_the_line():
    rng = np.random.default_rng(2)
    x = rand(rng, 1000)
    line = line_of(oob_kernel, "x = tl.load(x_ptr + offs)\n")
    with pytest.raises(InterpreterError) as info:
        oob_kernel[(1,)](x, 1000, 1003, BLOCK=16, MASKED=False)
    err = info.value
    assert err.lineno == line and err.filename == __file__
    assert f"test_interpreter.py:{line}: out-of-bounds load at element offset 1003 of a " \
           "1000-element buffer (argument 'x_ptr'" in str(err)
    with pytest.raises(InterpreterError, match="element offset 1000 of a 1000-element"):
        oob_kernel[(1,)](x, 1000, 3, BLOCK=1024, MASKED=False)
    # Masked off, the same accesses are fine.
    x0 = x.copy()
    oob_kernel[(1,)](x, 1000, 3, BLOCK=1024, MASKED=True)
    np.testing.assert_array_equal(x[3:], x0[3:] * 2)
    np.testing.assert_array_equal(x[:3], x0[:3])


@triton.jit
def oob_store_kernel(x_ptr, off):
    tl.store(x_ptr + off, 1.0)


def test_out_of_bounds_store_and_negative_offset():
    x = np.full(15, np.nan, np.float32)
    with pytest.raises(InterpreterError, match="out-of-bounds store at element offset -1 of "
                                               "a 15-element buffer"):
        oob_store_kernel[(1,)](x, -1)
    assert np.isnan(x).all()


@triton.jit
def bad_shapes_kernel(x_ptr, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, 2 * BLOCK)
    tl.store(x_ptr + a, a + b)


def test_semantic_errors_carry_the_line():
    """A kernel the compiler rejects is rejected by the interpreter with the
    compiler's error, at the same line (one semantic layer), before it runs."""
    x = np.zeros(64, np.float32)
    with pytest.raises(CompilationError) as info:
        bad_shapes_kernel[(1,)](x, BLOCK=16)
    assert f"test_interpreter.py:{line_of(bad_shapes_kernel, 'a + b')}:" in str(info.value)
    assert "cannot be broadcast together" in str(info.value)


def test_without_interpret_the_gpu_path_is_taken(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "0")
    # Compiled for the GPU: without a driver it cannot launch; with one, the
    # NumPy arrays (DLPack on the CPU) are refused as host memory.
    with pytest.raises((RuntimeError, ValueError),
                       match="cannot launch kernel 'add_kernel'|kernels take GPU memory"):
        zoo.add_kernel[(1,)](np.ones(4, np.float32), np.ones(4, np.float32),
                             np.ones(4, np.float32), 4, BLOCK_SIZE=16)


# ---------------------------------------------------------------------------
# Host objects: torch-like tensors, read-only arrays
# ---------------------------------------------------------------------------


class FakeTorchTensor:
    """The parts of a torch tensor the interpreter uses, over a NumPy array."""

    class _Device:
        def __init__(self, kind):
            self.type = kind

        def __str__(self):
            return self.type

    class _Dtype:
        def __init__(self, name):
            self.name = name

        def __str__(self):
            return f"torch.{self.name}"

    def __init__(self, arr, device="cpu"):
        self.arr = arr
        self.dtype = self._Dtype(arr.dtype.name)
        self.device = self._Device(device)
        self.shape = arr.shape

    def data_ptr(self):
        return self.arr.__array_interface__["data"][0]

    def element_size(self):
        return self.arr.itemsize

    def stride(self):
        return tuple(s // self.arr.itemsize for s in self.arr.strides)


def test_torch_like_tensors():
    rng = np.random.default_rng(16)
    x, y = rand(rng, 129), rand(rng, 129)
    out = np.full(129, np.nan, np.float32)
    tutorial_add_kernel[(3,)](FakeTorchTensor(x), FakeTorchTensor(y), FakeTorchTensor(out),
                              129, BLOCK_SIZE=64)
    np.testing.assert_array_equal(out, x + y)
    with pytest.raises(TypeError, match="runs on the CPU"):
        tutorial_add_kernel[(3,)](FakeTorchTensor(x, "cuda"), FakeTorchTensor(y),
                                  FakeTorchTensor(out), 129, BLOCK_SIZE=64)


def test_stores_into_read_only_arrays_fail():
    x = np.full(15, np.nan, np.float32)
    x.flags.writeable = False
    with pytest.raises(InterpreterError, match="store into a read-only array"):
        oob_store_kernel[(1,)](x, 3)
    assert np.isnan(x).all()


# ---------------------------------------------------------------------------
# One semantic layer: what the compiler rejects, the interpreter rejects
# ---------------------------------------------------------------------------


@triton.jit
def loop_changes_type(x_ptr, n):
    acc = 0
    for i in range(n):
        acc = acc + 1.5
    tl.store(x_ptr, acc)


@triton.jit
def branches_disagree(x_ptr, n):
    if n > 2:
        v = 1
    else:
        v = 2.5
    tl.store(x_ptr, v)


@triton.jit
def bound_in_one_branch(x_ptr, n):
    if n > 2:
        v = 1.0
    tl.store(x_ptr, v)


@pytest.mark.parametrize("kernel,match", [
    (loop_changes_type, "loop-carried variable 'acc' has type tl.int32 before the loop but "
                        "tl.float32 after an iteration"),
    (branches_disagree, "Mismatched type for v: 'v' has type tl.int32 after the if branch but tl.float32 after the "
                        "else branch"),
    (bound_in_one_branch, "name 'v' is not defined"),
], ids=["loop-carried-type", "if-else-types", "one-branch-name"])
def test_interpreter_rejects_what_the_compiler_rejects(kernel, match):
    """Issue 20's reproducers: the interpreter ran these kernels, which the
    compiler rejects; now both give the same error at the same line."""
    x = np.zeros(4, np.float32)
    with pytest.raises(CompilationError, match=match) as interpreted:
        kernel[(1,)](x, 4)
    with pytest.raises(CompilationError, match=match) as compiled:
        warpforge.compiler.generate_tile_ir(kernel, {"x_ptr": "*fp32", "n": "i32"}, {})
    assert str(interpreted.value).split(": ")[0] == str(compiled.value).split(": ")[0]
    assert np.all(x == 0)


@triton.jit
def _copy8(x, y, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(y + o, tl.load(x + o))


def test_strided_views_are_memory_at_their_address():
    """A pointer argument is the address of the array's first element, as
    on the GPU (data_ptr): a strided or transposed NumPy view is not read or
    written as if it were contiguous, and not gathered into a copy; the
    kernel's own offsets walk the memory beneath it."""
    a = np.arange(16, dtype=np.float32)
    out = np.zeros(8, np.float32)
    _copy8[(1,)](a[1::2], out, N=8)
    np.testing.assert_array_equal(out, a[1:9])
    b = np.zeros(16, np.float32)
    _copy8[(1,)](np.arange(8, dtype=np.float32) + 1, b[::2], N=8)
    np.testing.assert_array_equal(b, np.r_[np.arange(8) + 1, np.zeros(8)])
    c = np.zeros((4, 4), np.float32)
    _copy8[(1,)](np.arange(8, dtype=np.float32) + 1, c.T, N=8)
    np.testing.assert_array_equal(c.ravel(), np.r_[np.arange(8) + 1, np.zeros(8)])


@triton.jit
def _atomic_add_kernel(I, O):
    tl.atomic_add(O, tl.load(I))


@pytest.mark.parametrize("dt", [np.int8, np.uint16, np.int16])
def test_atomics_the_compiler_rejects_are_rejected(dt):
    """Integer atomics need 32 or 64 bits on the GPU (tile.atomic_rmw's
    verifier); the interpreter says so at the same line, in Triton's words,
    instead of running them."""
    with pytest.raises(CompilationError, match=r"atomic_add does not support tl\.u?int(8|16)"):
        _atomic_add_kernel[(1,)](np.zeros(1, dt), np.zeros(1, dt))


@triton.jit
def _item_kernel(X, Z):
    one = tl.full((1,), 7, dtype=tl.int16).item()
    tl.store(Z, one + tl.load(X))


def test_item_of_a_one_element_tensor():
    """`x.item()` (Triton's test_atomic_cas spells its constants so): the
    one element as a scalar of the tensor's type."""
    z = np.zeros(1, np.int16)
    _item_kernel[(1,)](np.ones(1, np.int16), z)
    assert z[0] == 8
