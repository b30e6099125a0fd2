"""The GPU runtime on a real GPU: hand-written PTX, assembled by ptxas, loaded
with warpforge._C.Kernel and launched with torch tensors and other array
objects (needs an sm_90 GPU, torch and ptxas)."""

import struct

import numpy as np
import pytest

import handwritten_ptx as hp

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

import warpforge  # noqa: E402
import warpforge.language as tl  # noqa: E402
from warpforge import _C  # noqa: E402
from warpforge.compiler.compiler import CompiledKernel, KernelOptions  # noqa: E402
from warpforge.errors import CudaError, OutOfResources  # noqa: E402
from warpforge.runtime import driver  # noqa: E402

N = 100003  # odd: the last block is partial
BLOCK = 128


@pytest.fixture(scope="module")
def cubins():
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("the test kernels are sm_90a cubins (Hopper only)")
    if hp.find_ptxas() is None:
        pytest.skip("ptxas not found (set CUDA_HOME)")
    return {name: hp.assemble(getattr(hp, name.upper())) for name in
            ("add_f32", "empty", "smem_reverse", "scalars", "small_block")}


def load(cubins, name, num_warps=4, shared=0, device=None, params=None):
    device = torch.cuda.current_device() if device is None else device
    return _C.Kernel(cubins[name], name, hp.SIGNATURES[name], num_warps, shared, device, params)


def inputs(seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.rand(N, device="cuda", generator=g) * 10 - 5
    y = torch.rand(N, device="cuda", generator=g) * 10 - 5
    out = torch.full((N,), float("nan"), device="cuda")
    return x, y, out


GRID = ((N + BLOCK - 1) // BLOCK, 1, 1)


def test_vector_add_with_torch_tensors(cubins):
    k = load(cubins, "add_f32")
    assert k.num_regs > 0 and k.local_bytes == 0 and k.static_shared_bytes == 0
    assert k.max_threads >= 128 and k.shared_bytes == 0 and k.name == "add_f32"
    x, y, out = inputs()
    k.launch(*GRID, 0, (x, y, out, N))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)


def test_partial_grid_leaves_the_rest_untouched(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(1)
    k.launch(3, 1, 1, 0, [x, y, out, N])  # a list works too
    torch.cuda.synchronize()
    torch.testing.assert_close(out[:3 * BLOCK], (x + y)[:3 * BLOCK], rtol=0, atol=0)
    assert out[3 * BLOCK:].isnan().all()


def test_zero_grid_launches_nothing(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(2)
    for grid in [(0, 1, 1), (4, 0, 1), (4, 1, 0)]:
        k.launch(*grid, 0, (x, y, out, N))
    torch.cuda.synchronize()
    assert out.isnan().all()


class ArrayInterfaceOnly:
    """Exposes a CUDA tensor through __cuda_array_interface__ alone."""

    def __init__(self, t):
        self.__cuda_array_interface__ = t.__cuda_array_interface__


class DLPackOnly:
    """Exposes a CUDA tensor through DLPack alone; records the streams."""

    def __init__(self, t):
        self.t, self.streams = t, []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


def test_cuda_array_interface_and_dlpack_arguments(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(3)
    k.launch(*GRID, 0, (ArrayInterfaceOnly(x), DLPackOnly(y), ArrayInterfaceOnly(out), N))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    # Raw addresses and a DLPack output.
    out.fill_(float("nan"))
    d = DLPackOnly(out)
    k.launch(*GRID, 0, (x.data_ptr(), y.data_ptr(), d, N))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    assert d.streams == [1]  # DLPack's name for the legacy default stream


def test_cpu_tensor_argument_is_a_clear_error(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(4)
    with pytest.raises(ValueError, match=r"kernel 'add_f32': argument 'y_ptr' \(index 1, "
                                         r"\*fp32\) points to host memory .*tensor on cpu"):
        k.launch(*GRID, 0, (x, y.cpu(), out, N))
    with pytest.raises(ValueError, match=r"argument 'x_ptr' \(index 0, \*fp32\) is on cpu"):
        k.launch(*GRID, 0, (DLPackOnly(x.cpu()), y, out, N))
    with pytest.raises(ValueError, match=r"'out_ptr' \(index 2, \*fp32\) points to host memory "
                                         r"\(page-locked\)"):
        k.launch(*GRID, 0, (x, y, out.cpu().pin_memory(), N))


def test_wrong_dtype_and_argument_count(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(5)
    with pytest.raises(TypeError, match=r"'x_ptr' \(index 0, \*fp32\): expected a pointer to "
                                        r"fp32, got a torch.float16 tensor"):
        k.launch(*GRID, 0, (x.half(), y, out, N))
    with pytest.raises(TypeError, match=r"kernel 'add_f32' takes 4 arguments \(x_ptr: \*fp32, "
                                        r"y_ptr: \*fp32, out_ptr: \*fp32, n: i32\), got 3"):
        k.launch(*GRID, 0, (x, y, out))


def test_integer_range_errors(cubins):
    k = load(cubins, "add_f32")
    x, y, out = inputs(6)
    with pytest.raises(OverflowError, match=r"argument 'n' \(index 3, i32\): 2147483648 is out "
                                            r"of range \[-2147483648, 2147483647\]"):
        k.launch(*GRID, 0, (x, y, out, 2**31))
    with pytest.raises(TypeError, match=r"argument 'n' \(index 3, i32\) must be an int"):
        k.launch(*GRID, 0, (x, y, out, 1.5))
    torch.cuda.synchronize()
    assert out.isnan().all()


def test_scalar_arguments_reach_the_kernel_bit_exactly(cubins):
    k = load(cubins, "scalars", num_warps=1)
    out = torch.full((6,), -1, dtype=torch.int64, device="cuda")
    h, b, d, c, u = 0.1, 1.0 + 2**-8 + 2**-20, -2.0 / 3.0, -7, 2**64 - 3
    k.launch(1, 1, 1, 0, (out, h, b, d, True, c, u))
    torch.cuda.synchronize()
    slots = out.cpu().numpy().view(np.uint8).reshape(6, 8)
    assert slots[0, :2].tobytes() == np.float16(h).tobytes()
    bf16 = torch.tensor(b, dtype=torch.float32).to(torch.bfloat16).view(torch.int16).item()
    assert slots[1, :2].tobytes() == struct.pack("<h", bf16)
    assert slots[2].tobytes() == struct.pack("<d", d)
    assert slots[3, 0] == 1 and slots[4, 0] == 0xF9
    assert slots[5].tobytes() == struct.pack("<Q", u)


def test_dynamic_shared_memory_over_48_kb(cubins):
    props = driver.get_device_properties()
    for nbytes in (100 * 1024, props["max_shared_mem"]):
        n_words = nbytes // 4
        k = load(cubins, "smem_reverse", num_warps=8, shared=nbytes)
        assert k.shared_bytes == nbytes
        out = torch.full((n_words,), -1, dtype=torch.int32, device="cuda")
        k.launch(1, 1, 1, 0, (out, n_words))
        torch.cuda.synchronize()
        expected = 3 * torch.arange(n_words - 1, -1, -1, device="cuda", dtype=torch.int32) + 1
        assert torch.equal(out, expected)


def test_too_much_shared_memory_is_out_of_resources(cubins):
    limit = driver.get_device_properties()["max_shared_mem"]
    with pytest.raises(OutOfResources, match="kernel 'smem_reverse' needs 245760 bytes of "
                                             f"shared memory, but the limit is {limit}") as e:
        load(cubins, "smem_reverse", num_warps=8, shared=240 * 1024)
    assert (e.value.kernel, e.value.resource, e.value.required, e.value.limit) == \
        ("smem_reverse", "bytes of shared memory", 240 * 1024, limit)


def test_too_many_threads_or_registers_is_out_of_resources(cubins):
    with pytest.raises(OutOfResources, match="kernel 'small_block' needs 256 threads, but the "
                                             "limit is 128") as e:
        load(cubins, "small_block", num_warps=8)
    assert e.value.resource == "threads"
    hungry = hp.assemble(hp.register_hungry())
    k = _C.Kernel(hungry, "register_hungry", hp.SIGNATURES["register_hungry"], 1, 0,
                  torch.cuda.current_device())
    assert k.num_regs > 128, "ptxas kept fewer values live than the test needs"
    with pytest.raises(OutOfResources, match="kernel 'register_hungry' needs .* registers") as e:
        _C.Kernel(hungry, "register_hungry", hp.SIGNATURES["register_hungry"], 16, 0,
                  torch.cuda.current_device())
    assert e.value.required == k.num_regs * 512 and e.value.limit == 65536


def test_driver_errors_name_the_call_and_the_kernel(cubins):
    with pytest.raises(CudaError, match=r"cuModuleLoadData failed for kernel 'add_f32' on "
                                        r"device \d+ .*: CUDA_ERROR_\w+ \(") as e:
        # Not ELF, so the driver takes it for PTX text, and rejects it.
        _C.Kernel(b"this is not PTX", "add_f32", hp.SIGNATURES["add_f32"], 4, 0, 0)
    assert e.value.call == "cuModuleLoadData" and e.value.error_name.startswith("CUDA_ERROR_")
    with pytest.raises(CudaError, match="cuModuleGetFunction failed for kernel 'nope': "
                                        "CUDA_ERROR_NOT_FOUND"):
        _C.Kernel(cubins["add_f32"], "nope", hp.SIGNATURES["add_f32"], 4, 0, 0)


def test_other_device_pointer_is_a_clear_error(cubins):
    if torch.cuda.device_count() < 2:
        pytest.skip("needs 2 GPUs")
    k = load(cubins, "add_f32", device=0)
    x, y, out = inputs(7)
    with pytest.raises(ValueError, match=r"'x_ptr' \(index 0, \*fp32\) is memory on cuda:1, "
                                         "but the kernel runs on cuda:0"):
        k.launch(*GRID, 0, (x.to("cuda:1"), y, out, N))


def compiled_add(cubins) -> CompiledKernel:
    """What the compiler will produce: a CompiledKernel with a cubin."""
    return CompiledKernel("add_f32", dict(hp.SIGNATURES["add_f32"]), {"BLOCK": BLOCK},
                          KernelOptions(num_warps=4), asm={"cubin": cubins["add_f32"]},
                          metadata={"name": "add_f32", "shared": 0, "num_warps": 4},
                          params=["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"])


def test_compiled_kernel_launch_and_attributes(cubins):
    k = compiled_add(cubins)
    assert k.n_regs > 0 and k.n_spills == 0 and k.shared == 0 and k.n_max_threads >= 128
    x, y, out = inputs(8)
    k.launch((GRID[0],), (x, y, out, N))  # the run-time arguments
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    out.fill_(float("nan"))
    k.launch(GRID, (x, y, out, N, BLOCK))  # all parameters, as the JIT passes them
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)
    with pytest.raises(TypeError, match=r"takes 4 arguments .* or all 5 of its parameters "
                                        r"\(x_ptr, y_ptr, out_ptr, n, BLOCK\), got 2"):
        k.launch(GRID, (x, y))


def slow_stream_inputs(stream, seed):
    """x is written on `stream` after a sleep: a kernel that is not ordered
    after it on `stream` reads NaNs."""
    x_ready, y, out = inputs(seed)
    x = torch.full_like(x_ready, float("nan"))
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        torch.cuda._sleep(50_000_000)
        x.copy_(x_ready)
    return x, x_ready, y, out


def test_launch_on_torch_current_stream(cubins):
    k = compiled_add(cubins)
    s = torch.cuda.Stream()
    x, x_ready, y, out = slow_stream_inputs(s, 9)
    with torch.cuda.stream(s):
        assert driver.current_stream() == s.cuda_stream != 0
        k.launch(GRID, (x, y, out, N))
    s.synchronize()
    torch.testing.assert_close(out, x_ready + y, rtol=0, atol=0)


@pytest.mark.parametrize("as_handle", [False, True])
def test_launch_with_explicit_stream(cubins, as_handle):
    k = compiled_add(cubins)
    s = torch.cuda.Stream()
    x, x_ready, y, out = slow_stream_inputs(s, 10)
    k.launch(GRID, (x, y, out, N), stream=s.cuda_stream if as_handle else s)
    s.synchronize()
    torch.testing.assert_close(out, x_ready + y, rtol=0, atol=0)


@warpforge.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) +
             tl.load(y_ptr + offsets, mask=mask), mask=mask)


def test_jit_launch_path(cubins):
    """kernel[grid](...) with the hand-written cubin standing in for the
    compiler's: the JIT's launcher, the disk-cache-free warm path and
    stream= all reach the driver."""
    x, y, out = inputs(11)
    compiled = add_kernel.warmup(x, y, out, N, BLOCK=BLOCK)
    compiled.asm["cubin"] = cubins["add_f32"]
    compiled.metadata.update(name="add_f32", shared=0, num_warps=BLOCK // 32)
    add_kernel[(GRID[0],)](x, y, out, N, BLOCK=BLOCK)
    torch.cuda.synchronize()
    torch.testing.assert_close(out, x + y, rtol=0, atol=0)

    s = torch.cuda.Stream()
    x2, x_ready, y2, out2 = slow_stream_inputs(s, 12)
    add_kernel[lambda meta: (warpforge.cdiv(meta["n"], meta["BLOCK"]),)](
        x2, y2, out2, N, BLOCK=BLOCK, stream=s)
    s.synchronize()
    torch.testing.assert_close(out2, x_ready + y2, rtol=0, atol=0)

    with pytest.raises(ValueError, match=r"kernel 'add_f32': argument 'x_ptr' \(index 0, "
                                         r"\*fp32\) points to host memory"):
        add_kernel[(GRID[0],)](x.cpu(), y, out, N, BLOCK=BLOCK)


def test_device_properties_agree_with_torch(cubins):
    props = driver.get_device_properties(0)
    t = torch.cuda.get_device_properties(0)
    assert props["name"] == t.name
    assert props["capability"] == (t.major, t.minor) and props["cc"] == t.major * 10 + t.minor
    assert props["multiprocessor_count"] == t.multi_processor_count
    assert props["max_shared_mem"] >= 227 * 1024 and props["max_num_regs"] == 65536
    assert props["warpSize"] == 32 and props["l2_cache_size"] > 0 and props["sm_clock_rate"] > 0
    assert driver.device_count() == torch.cuda.device_count()
    assert driver.current_device() == torch.cuda.current_device()
    assert driver.current_stream() == torch.cuda.current_stream().cuda_stream
    assert driver.driver_version() >= 12000
