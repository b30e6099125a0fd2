"""The GPU runtime against a stand-in CUDA driver (mock_libcuda.c, built here
with the C compiler): device properties, module loading and its limits,
argument packing bit for bit, pointer checks, contexts, streams and the
JIT's launch path, all without a GPU. Each test runs in a fresh interpreter
with WARPFORGE_LIBCUDA pointing at the mock."""

import os
import shutil
import subprocess
import textwrap

import pytest

from test_driver import HERE, run_python

PRELUDE = """
import ctypes, os, struct
import numpy as np
from warpforge import _C
from warpforge.errors import CudaError, OutOfResources
from warpforge.runtime import driver
mock = ctypes.CDLL(os.environ["WARPFORGE_LIBCUDA"])
mock.mock_current.restype = ctypes.c_void_p
mock.mock_context_of.restype = ctypes.c_void_p

def launches():
    return ctypes.c_int.in_dll(mock, "mock_launches").value

def params(n):
    return list((ctypes.c_ulonglong * 64).in_dll(mock, "mock_params")[:n])

def launch_config():
    grid = list((ctypes.c_uint * 3).in_dll(mock, "mock_grid"))
    block = list((ctypes.c_uint * 3).in_dll(mock, "mock_block"))
    shared = ctypes.c_uint.in_dll(mock, "mock_shared").value
    stream = ctypes.c_void_p.in_dll(mock, "mock_stream").value or 0
    return grid, block, shared, stream

class Dtype:
    def __init__(self, name):
        self.name = name
    def __str__(self):
        return self.name

class Tensor:
    \"\"\"What the runtime reads of a torch tensor.\"\"\"
    def __init__(self, ptr, dtype="torch.float32", device="cuda:0"):
        self.ptr, self.dtype, self.device = ptr, Dtype(dtype), device
    def data_ptr(self):
        return self.ptr

def error(action):
    try:
        action()
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    raise AssertionError("no error")

DEV0, DEV1, PINNED, MANAGED = 0x10000000, 0x20000000, 0x30000000, 0x40000000
"""


@pytest.fixture(scope="module")
def mock_libcuda(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("needs a C compiler to build the mock driver")
    library = str(tmp_path_factory.mktemp("mock") / "libcuda_mock.so")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", library,
                    os.path.join(HERE, "mock_libcuda.c")], check=True)
    return library


@pytest.fixture
def mocked(mock_libcuda):
    def run(code: str, **env) -> str:
        result = run_python(PRELUDE + textwrap.dedent(code), WARPFORGE_LIBCUDA=mock_libcuda,
                            **env)
        assert result.returncode == 0, result.stderr
        return result.stdout
    return run


def test_devices_and_properties(mocked):
    mocked("""
        assert driver.device_count() == 2 and driver.driver_version() == 13000
        p = driver.get_device_properties(1)
        assert p["name"] == "Mock GPU 1" and p["cc"] == 90 and p["capability"] == (9, 0)
        assert p["max_shared_mem"] == 232448 and p["max_shared_mem_default"] == 49152
        assert p["max_num_regs"] == 65536 and p["multiprocessor_count"] == 132
        assert p["warpSize"] == 32 and p["l2_cache_size"] == 50 << 20
        assert p["max_grid"] == (2**31 - 1, 65535, 65535) and p["total_memory"] == 80 << 30
        assert p["sm_clock_rate"] == 1980000 and p["mem_bus_width"] == 5120
        assert driver.get_device_properties() == driver.get_device_properties(0)
        assert "does not exist: there are 2 devices" in error(
            lambda: driver.get_device_properties(2))
    """)


def test_kernel_attributes(mocked):
    mocked("""
        k = _C.Kernel(b"MOCK name=k regs=40 local=16 shared=1024 maxthreads=768", "k",
                      {"x": "*fp32"}, 4, 512, 1)
        assert (k.num_regs, k.local_bytes, k.static_shared_bytes, k.max_threads) == \\
            (40, 16, 1024, 768)
        assert (k.name, k.device, k.num_warps, k.shared_bytes) == ("k", 1, 4, 512)
        assert k.signature == [("x", "*fp32")]
        assert repr(k) == ("<warpforge._C.Kernel 'k' on cuda:1: 4 warps, 40 registers, "
                           "512 + 1024 bytes of shared memory>")
        # The module was loaded in device 1's primary context, which was made
        # current (there was none) and stays so.
        assert mock.mock_current() == mock.mock_context_of(1)
        unloads = ctypes.c_int.in_dll(mock, "mock_unloads").value
        del k
        assert ctypes.c_int.in_dll(mock, "mock_unloads").value == unloads + 1
    """)


def test_scalar_packing_is_bit_exact(mocked):
    mocked("""
        sig = {"n": "i32", "f": "fp32", "h": "fp16", "b": "bf16", "d": "fp64", "u": "u64",
               "flag": "i1", "c": "i8", "s": "int16", "w": "uint32", "l": "i64"}
        k = _C.Kernel(b"MOCK name=k nparams=11", "k", sig, 4)
        k.launch(1, 1, 1, 0, (-5, 1.5, 65504.0, 1.0 + 2**-8 + 2**-20, 2.5, 2**64 - 1, True,
                              -128, np.int16(-2), 4000000000, -2**63))
        got = params(11)
        assert got[0] == 2**64 - 5                       # sign-extended in its slot
        assert got[1] == struct.unpack("<I", struct.pack("<f", 1.5))[0]
        assert got[2] == 0x7BFF and got[3] == 0x3F81
        assert got[4] == struct.unpack("<Q", struct.pack("<d", 2.5))[0]
        assert got[5] == 2**64 - 1 and got[6] == 1 and got[7] & 0xFF == 0x80
        assert got[8] & 0xFFFF == 0xFFFE and got[9] == 4000000000 and got[10] == 2**63
    """)


def test_half_precision_rounding(mocked):
    mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=2", "k", {"h": "fp16", "b": "bf16"}, 1)
        def bits(value):
            k.launch(1, 1, 1, 0, (value, value))
            return params(2)
        def bf16(value):  # round to nearest even from fp32 (exact for these values)
            raw = struct.unpack("<I", struct.pack("<f", value))[0]
            return (raw + 0x7FFF + ((raw >> 16) & 1)) >> 16
        for value in [0.0, -0.0, 1.0, -2.5, 1 / 3, 0.1, 65504.0, 65519.0, 65520.0, 1e-5,
                      6e-8, 2**-25, 3 * 2**-26, 1e5, -1e-30, 3e38, float("inf")]:
            h, b = bits(value)
            expected = np.array(value, dtype=np.float16).view(np.uint16)
            assert h == expected, (value, hex(h), hex(expected))
            if abs(value) < 3.3e38 and float(np.float32(value)) == value:
                assert b == bf16(value), (value, hex(b))
        h, b = bits(float("nan"))
        assert h & 0x7C00 == 0x7C00 and h & 0x3FF and b & 0x7F80 == 0x7F80 and b & 0x7F
        assert bits(1e39)[1] == 0x7F80 and bits(-1e39)[1] == 0xFF80  # beyond bf16: infinity
    """)


def test_integer_range_and_type_errors(mocked):
    out = mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=4", "k",
                      {"n": "i32", "u": "u8", "flag": "i1", "w": "u64"}, 4)
        for args in [(2**31, 0, 0, 0), (-2**31 - 1, 0, 0, 0), (0, 256, 0, 0), (0, -1, 0, 0),
                     (0, 0, 2, 0), (0, 0, 0, 2**64), (0, 0, 0, -1), (1.0, 0, 0, 0),
                     (0, "1", 0, 0)]:
            print(error(lambda: k.launch(1, 1, 1, 0, args)))
        assert launches() == 0
    """)
    assert out.splitlines() == [
        "OverflowError: kernel 'k': argument 'n' (index 0, i32): 2147483648 is out of range "
        "[-2147483648, 2147483647]",
        "OverflowError: kernel 'k': argument 'n' (index 0, i32): -2147483649 is out of range "
        "[-2147483648, 2147483647]",
        "OverflowError: kernel 'k': argument 'u' (index 1, u8): 256 is out of range [0, 255]",
        "OverflowError: kernel 'k': argument 'u' (index 1, u8): -1 is out of range [0, 255]",
        "OverflowError: kernel 'k': argument 'flag' (index 2, i1): 2 is out of range [0, 1]",
        "OverflowError: kernel 'k': argument 'w' (index 3, u64): 18446744073709551616 is out of "
        "range [0, 18446744073709551615]",
        "OverflowError: kernel 'k': argument 'w' (index 3, u64): -1 is out of range "
        "[0, 18446744073709551615]",
        "TypeError: kernel 'k': argument 'n' (index 0, i32) must be an int, not float",
        "TypeError: kernel 'k': argument 'u' (index 1, u8) must be an int, not str",
    ]


def test_pointer_arguments(mocked):
    out = mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=3", "k",
                      {"x": "*fp32", "y": "*fp16", "z": "*int32"}, 4)
        class ArrayInterface:
            def __init__(self, ptr, typestr):
                self.__cuda_array_interface__ = {"data": (ptr, False), "typestr": typestr,
                                                 "shape": (4,), "version": 3}
        k.launch(1, 1, 1, 0, (Tensor(DEV0 + 64), ArrayInterface(DEV0 + 128, "<f2"), None))
        assert params(3) == [DEV0 + 64, DEV0 + 128, 0]
        k.launch(1, 1, 1, 0, (DEV0 + 8, Tensor(MANAGED, "torch.float16"),  # managed: any device
                              Tensor(DEV0, "torch.int32")))
        assert params(3) == [DEV0 + 8, MANAGED, DEV0]
        for args in [(Tensor(0x1234, device="cpu"), None, None),
                     (None, Tensor(PINNED, "torch.float16", "cpu"), None),
                     (np.zeros(4, np.float32), None, None),
                     (None, None, DEV1 + 16),
                     (Tensor(DEV0, "torch.float16"), None, None),
                     (Tensor(DEV0, "torch.complex64"), None, None),
                     (None, ArrayInterface(DEV0, "<f4"), None),
                     (None, None, "DEV0"),
                     (0x50000000, None, None),
                     (-1, None, None)]:
            print(error(lambda: k.launch(1, 1, 1, 0, args)))
    """)
    assert out.splitlines() == [
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) points to host memory (0x1234): "
        "it is a tensor on cpu; kernels take GPU memory (a CPU tensor? move it to cuda:0)",
        "ValueError: kernel 'k': argument 'y' (index 1, *fp16) points to host memory "
        "(page-locked) (0x30000000): it is a tensor on cpu; kernels take GPU memory (a CPU "
        "tensor? move it to cuda:0)",
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is on cpu; kernels take GPU "
        "memory (move it to cuda:0)",
        "ValueError: kernel 'k': argument 'z' (index 2, *int32) is memory on cuda:1, but the "
        "kernel runs on cuda:0 (the current device): move it, or launch with cuda:1 current "
        "(torch.cuda.device(1))",
        "TypeError: kernel 'k': argument 'x' (index 0, *fp32): expected a pointer to fp32, got a "
        "torch.float16 tensor",
        "TypeError: kernel 'k': argument 'x' (index 0, *fp32): tensors of dtype torch.complex64 "
        "are not supported",
        "TypeError: kernel 'k': argument 'y' (index 1, *fp16): expected a pointer to fp16, got an "
        "array of typestr '<f4'",
        "TypeError: kernel 'k': argument 'z' (index 2, *int32) must be a tensor (with data_ptr()), "
        "an object with __cuda_array_interface__ or __dlpack__, an int address or None, not str",
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) points to host memory "
        "(0x50000000, cuPointerGetAttributes: CUDA_ERROR_INVALID_CONTEXT (invalid device "
        "context)); kernels take GPU memory (a CPU tensor? move it to cuda:0)",
        "OverflowError: kernel 'k': argument 'x' (index 0, *fp32): an address must be an integer "
        "in [0, 2**64)",
    ]


def test_pointer_checks_are_cached_per_allocation(mocked):
    """A pointer in an allocation already checked (the driver's range, 1 MiB
    in the mock) costs no cuPointerGetAttributes call: a warm launch's
    tensors come from a few segments of torch's caching allocator.  Memory
    that fails the check is asked about every time, and the cache holds 8
    allocations."""
    mocked("""
        queries = lambda: ctypes.c_int.in_dll(mock, "mock_pointer_queries").value
        k = _C.Kernel(b"MOCK name=k nparams=2", "k", {"x": "*fp32", "y": "*fp32"}, 4)
        k.launch(1, 1, 1, 0, (Tensor(DEV0 + 64), Tensor(DEV0 + 0x200000)))
        assert queries() == 2
        for _ in range(3):
            k.launch(1, 1, 1, 0, (Tensor(DEV0 + 64), Tensor(DEV0 + 0x200000)))
        k.launch(1, 1, 1, 0, (Tensor(DEV0 + 0xFFF00), DEV0 + 0x2FFFFC))  # same allocations
        assert queries() == 2
        k.launch(1, 1, 1, 0, (Tensor(DEV0 + 0x100000), None))  # the next one
        assert queries() == 3
        for _ in range(2):  # never cached: the error each time
            error(lambda: k.launch(1, 1, 1, 0, (Tensor(DEV1), None)))
            error(lambda: k.launch(1, 1, 1, 0, (0x1234, None)))
        assert queries() == 7
        # Eight allocations kept, round robin: the first ones go.
        for i in range(8):
            k.launch(1, 1, 1, 0, (Tensor(DEV0 + (16 + i) * 0x100000), None))
        assert queries() == 15
        k.launch(1, 1, 1, 0, (Tensor(DEV0 + 64), None))
        assert queries() == 16
        # Kernels keep their own.
        k2 = _C.Kernel(b"MOCK name=k nparams=2", "k", {"x": "*fp32", "y": "*fp32"}, 4)
        k2.launch(1, 1, 1, 0, (Tensor(DEV0 + 64), None))
        assert queries() == 17
    """)


def test_dlpack_arguments(mocked):
    out = mocked("""
        class DLTensor(ctypes.Structure):
            _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32),
                        ("device_id", ctypes.c_int32), ("ndim", ctypes.c_int32),
                        ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                        ("lanes", ctypes.c_uint16), ("shape", ctypes.c_void_p),
                        ("strides", ctypes.c_void_p), ("byte_offset", ctypes.c_uint64)]
        class DLManagedTensor(ctypes.Structure):
            _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                        ("deleter", ctypes.c_void_p)]
        new_capsule = ctypes.pythonapi.PyCapsule_New
        new_capsule.restype = ctypes.py_object
        new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        class DLPack:
            def __init__(self, ptr, offset=0, device=(2, 0), code=2, bits=32):
                self.managed = DLManagedTensor()
                t = self.managed.dl_tensor
                t.data, t.byte_offset, t.code, t.bits, t.lanes = ptr, offset, code, bits, 1
                t.device_type, t.device_id = device
                self.device, self.streams = device, []
            def __dlpack__(self, stream=None):
                self.streams.append(stream)
                return new_capsule(ctypes.addressof(self.managed), b"dltensor", None)
            def __dlpack_device__(self):
                return self.device
        k = _C.Kernel(b"MOCK name=k nparams=2", "k", {"x": "*fp32", "y": "*bf16"}, 4)
        x, y = DLPack(DEV0, offset=256), DLPack(DEV0 + 4096, code=4, bits=16)
        k.launch(1, 1, 1, 0, (x, y))
        k.launch(1, 1, 1, 0x5000, (x, y))
        assert params(2) == [DEV0 + 256, DEV0 + 4096]
        assert x.streams == [1, 0x5000]  # DLPack's 1 is the legacy default stream
        for args in [(DLPack(DEV0, device=(1, 0)), y), (DLPack(DEV1, device=(2, 1)), y),
                     (x, DLPack(DEV0, code=2, bits=16)), (np.zeros(4, np.float32), y)]:
            print(error(lambda: k.launch(1, 1, 1, 0, args)))
    """)
    assert out.splitlines() == [
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is on cpu; kernels take GPU "
        "memory (move it to cuda:0)",
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is memory on cuda:1, but the "
        "kernel runs on cuda:0 (the current device)",
        "TypeError: kernel 'k': argument 'y' (index 1, *bf16): expected a pointer to bf16, got a "
        "DLPack tensor of type code 2 with 16 bits",
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is on cpu; kernels take GPU "
        "memory (move it to cuda:0)",
    ]


def test_launch_configuration_and_grid(mocked):
    out = mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 8, 1000, 0)
        k.launch(7, 3, 2, 0xBEEF, (None,))
        assert launch_config() == ([7, 3, 2], [256, 1, 1], 1000, 0xBEEF)
        assert launches() == 1
        k.launch(0, 5, 5, 0, (None,))
        k.launch(5, 0, 5, 0, (None,))
        assert launches() == 1  # an empty grid launches nothing...
        print(error(lambda: k.launch(0, 1, 1, 0, (DEV1,))))  # ...but checks its arguments
        for grid in [(-1, 1, 1), (1, 65536, 1), (1, 1, 2**16), (2**31, 1, 1)]:
            print(error(lambda: k.launch(*grid, 0, (None,))))
        print(error(lambda: k.launch(1, 1, 1, -3, (None,))))
        print(error(lambda: k.launch(1, 1, 1, 0, {"x": None})))
    """)
    assert out.splitlines() == [
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is memory on cuda:1, but the "
        "kernel runs on cuda:0 (the current device): move it, or launch with cuda:1 current "
        "(torch.cuda.device(1))",
        "ValueError: kernel 'k': grid x = -1 is outside [0, 2147483647]",
        "ValueError: kernel 'k': grid y = 65536 is outside [0, 65535]",
        "ValueError: kernel 'k': grid z = 65536 is outside [0, 65535]",
        "ValueError: kernel 'k': grid x = 2147483648 is outside [0, 2147483647]",
        "TypeError: kernel 'k': the stream must be a CUstream handle (a non-negative int) or None",
        "TypeError: kernel 'k': the arguments must be a tuple or a list, not dict",
    ]


def test_contexts(mocked):
    mocked("""
        import threading
        k0 = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, 0, 0)
        k1 = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, 0, 1)
        ctx0, ctx1 = mock.mock_context_of(0), mock.mock_context_of(1)
        # Loading on device 1 left device 0's context current.
        assert mock.mock_current() == ctx0
        k1.launch(1, 1, 1, 0, (DEV1,))
        assert ctypes.c_void_p.in_dll(mock, "mock_context").value == ctx1
        assert mock.mock_current() == ctx0  # restored
        # A thread with no current context launches in the kernel's.
        seen = []
        def worker():
            k0.launch(1, 1, 1, 0, (DEV0,))
            seen.append((ctypes.c_void_p.in_dll(mock, "mock_context").value,
                         mock.mock_current()))
        t = threading.Thread(target=worker)
        t.start(); t.join()
        assert seen == [(ctx0, ctx0)]
    """)


def test_shared_memory_and_resource_limits(mocked):
    out = mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, 100 * 1024)
        assert mock.mock_max_dynamic() == 100 * 1024  # opted in beyond 48 KB
        k.launch(1, 1, 1, 0, (None,))
        assert launch_config()[2] == 100 * 1024
        k = _C.Kernel(b"MOCK name=k shared=40000", "k", {"x": "*fp32"}, 4, 10000)
        assert mock.mock_max_dynamic() == 10000  # 50000 in all: over 48 KB
        k = _C.Kernel(b"MOCK name=k", "k", {"x": "*fp32"}, 4, 40000)
        assert mock.mock_max_dynamic() == 0  # within the default
        for image, warps, shared in [(b"MOCK name=k", 4, 240 * 1024),
                                     (b"MOCK name=k shared=200000", 4, 40000),
                                     (b"MOCK name=k regs=255", 16, 0),
                                     (b"MOCK name=k maxthreads=128", 8, 0)]:
            try:
                _C.Kernel(image, "k", {"x": "*fp32"}, warps, shared)
            except OutOfResources as e:
                print(e.kernel, e.resource, e.required, e.limit, "|", e)
    """)
    assert out.splitlines() == [
        "k bytes of shared memory 245760 232448 | kernel 'k' needs 245760 bytes of shared "
        "memory, but the limit is 232448; 0 static + 245760 dynamic bytes on Mock GPU 0",
        "k bytes of shared memory 240000 232448 | kernel 'k' needs 240000 bytes of shared "
        "memory, but the limit is 232448; 200000 static + 40000 dynamic bytes on Mock GPU 0",
        "k registers 130560 65536 | kernel 'k' needs 130560 registers, but the limit is 65536; "
        "255 registers per thread x 512 threads (num_warps=16); use fewer warps or a lower "
        "maxnreg",
        "k threads 256 128 | kernel 'k' needs 256 threads, but the limit is 128; num_warps=8; "
        "the kernel launches with at most 128 threads per block (it uses 32 registers per "
        "thread)",
    ]


def test_driver_errors(mocked):
    out = mocked("""
        for image, name in [(b"BAD image", "k"), (b"MOCK name=other", "k")]:
            try:
                _C.Kernel(image, name, {"x": "*fp32"}, 4)
            except CudaError as e:
                print(e.call, e.error_name, e.error_string, e.kernel, e.code, "|", e)
        print(error(lambda: _C.Kernel(b"MOCK name=k", "k", {"x": "*fp32"}, 4, 0, 5)))
    """)
    assert out.splitlines() == [
        "cuModuleLoadData CUDA_ERROR_INVALID_IMAGE device kernel image is invalid k 200 | "
        "cuModuleLoadData failed for kernel 'k' on device 0 (Mock GPU 0, sm_90): "
        "CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)",
        "cuModuleGetFunction CUDA_ERROR_NOT_FOUND named symbol not found k 500 | "
        "cuModuleGetFunction failed for kernel 'k': CUDA_ERROR_NOT_FOUND (named symbol not found)",
        "ValueError: CUDA device 5 does not exist: there are 2 devices",
    ]


def test_driver_without_a_device(mocked):
    out = mocked("""
        assert driver.device_count() == 0
        print(error(lambda: _C.Kernel(b"MOCK name=k", "k", {"x": "*fp32"}, 4)))
        print(error(driver.get_device_properties))
    """, MOCK_NO_DEVICE="1")
    assert out.splitlines() == [
        "CudaError: cuInit failed for kernel 'k': CUDA_ERROR_NO_DEVICE (no CUDA-capable device "
        "is detected)",
        "CudaError: cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)"]


def test_argument_selection_from_all_parameters(mocked):
    out = mocked("""
        k = _C.Kernel(b"MOCK name=k nparams=2", "k", {"x": "*fp32", "n": "i32"}, 4,
                      params=["x", "BLOCK", "n"])
        k.launch(1, 1, 1, 0, (DEV0, 128, 7))  # all parameters
        assert params(2) == [DEV0, 7]
        k.launch(1, 1, 1, 0, (DEV0 + 4, 9))  # the run-time ones
        assert params(2) == [DEV0 + 4, 9]
        print(error(lambda: k.launch(1, 1, 1, 0, (DEV0,))))
    """)
    assert out.splitlines() == [
        "TypeError: kernel 'k' takes 2 arguments (x: *fp32, n: i32) or all 3 of its parameters "
        "(x, BLOCK, n), got 1"]


def test_jit_launch_path(mocked):
    """kernel[grid](...) end to end, with a stand-in cubin in the compiled
    kernel: what the compiler will fill in."""
    mocked("""
        import warpforge, zoo
        x, y, z = Tensor(DEV0), Tensor(DEV0 + 4096), Tensor(DEV0 + 8192)
        compiled = zoo.add_kernel.warmup(x, y, z, 4000, BLOCK_SIZE=1024)
        compiled.asm["cubin"] = b"MOCK name=add_kernel regs=24 local=8 nparams=4"
        compiled.metadata.update(shared=2048, num_warps=8)
        zoo.add_kernel[(4,)](x, y, z, 4000, BLOCK_SIZE=1024)
        assert params(4) == [DEV0, DEV0 + 4096, DEV0 + 8192, 4000]
        assert launch_config() == ([4, 1, 1], [256, 1, 1], 2048, 0)
        zoo.add_kernel[lambda meta: (meta["n_elements"] // meta["BLOCK_SIZE"], 2)](
            x, y, z, 4000, BLOCK_SIZE=1024, stream=0x99)
        assert launch_config() == ([3, 2, 1], [256, 1, 1], 2048, 0x99)
        class TorchStream:
            cuda_stream = 0x77
        zoo.add_kernel.run(x, y, z, 4000, BLOCK_SIZE=1024, grid=(5,), stream=TorchStream())
        assert launch_config() == ([5, 1, 1], [256, 1, 1], 2048, 0x77)
        assert launches() == 3
        assert (compiled.n_regs, compiled.n_spills, compiled.shared) == (24, 8, 2048)
        assert compiled.n_max_threads == 1024
        # Arguments that do not fit the cubin's kernel, through the JIT.
        msg = error(lambda: zoo.add_kernel[(4,)](x, y, Tensor(DEV1), 4000, BLOCK_SIZE=1024))
        assert msg.startswith("ValueError: kernel 'add_kernel': argument 'out_ptr' (index 2, "
                              "*fp32) is memory on cuda:1"), msg
        msg = error(lambda: zoo.add_kernel[(4,)](x, y, Tensor(0x100, device="cpu"), 4000,
                                                 BLOCK_SIZE=1024))
        assert "points to host memory (0x100): it is a tensor on cpu" in msg, msg
        assert launches() == 3
        # A warm launch with a plain grid is one C++ call (_C.warm_launch):
        # no Python CompiledKernel.launch; a stream handle too.
        from warpforge.compiler.compiler import CompiledKernel
        def no_python_launch(*a, **k):
            raise AssertionError("CompiledKernel.launch ran")
        saved, CompiledKernel.launch = CompiledKernel.launch, no_python_launch
        zoo.add_kernel[(6, 2)](x, y, z, 4000, BLOCK_SIZE=1024)
        assert launch_config() == ([6, 2, 1], [256, 1, 1], 2048, 0)
        zoo.add_kernel[(7,)](x, y, z, 4000, BLOCK_SIZE=1024, stream=0x55)
        assert launch_config() == ([7, 1, 1], [256, 1, 1], 2048, 0x55)
        # Each tensor's data_ptr() is read once per launch: specializing
        # reads it, and the launch packs what it read.
        class Counted(Tensor):
            calls = 0
            def data_ptr(self):
                Counted.calls += 1
                return self.ptr
        cx, cy, cz = Counted(DEV0), Counted(DEV0 + 4096), Counted(DEV0 + 8192)
        for c in (cx, cy, cz):
            c.dtype = x.dtype  # one object per dtype, as torch's
        zoo.add_kernel[(2,)](cx, cy, cz, 4000, BLOCK_SIZE=1024)
        assert Counted.calls == 3 and params(4) == [DEV0, DEV0 + 4096, DEV0 + 8192, 4000]
        msg = error(lambda: zoo.add_kernel[(-1,)](x, y, z, 4000, BLOCK_SIZE=1024))
        assert msg == "ValueError: kernel 'add_kernel': grid x = -1 is outside [0, 2147483647]", msg
        CompiledKernel.launch = saved
        assert launches() == 6
    """)


FAKE_TORCH = """
import sys, types
from warpforge.compiler.compiler import CompiledKernel, KernelOptions
torch = types.ModuleType("torch")
torch.cuda = types.SimpleNamespace(is_initialized=lambda: initialized)
initialized = False
sys.modules["torch"] = torch
"""


def test_torch_current_device_and_stream(mocked):
    """With torch's CUDA initialized, launches go to its current device and
    stream (its raw C getters, or its public API where those are missing)."""
    out = mocked(FAKE_TORCH + textwrap.dedent("""
        assert driver.current_device() == 0 and driver.current_stream() == 0
        initialized = True
        torch._C = types.SimpleNamespace(_cuda_getDevice=lambda: 1,
                                         _cuda_getCurrentRawStream=lambda d: 0x1000 + d)
        assert driver.current_device() == 1 and driver.current_stream() == 0x1001
        assert driver.current_stream(0) == 0x1000
        assert driver._device is torch._C._cuda_getDevice  # bound once initialized
        k = CompiledKernel("k", {"x": "*fp32"}, {}, KernelOptions(num_warps=2),
                           asm={"cubin": b"MOCK name=k nparams=1"})
        k.launch((2,), (Tensor(DEV1, device="cuda:1"),))
        assert launch_config() == ([2, 1, 1], [64, 1, 1], 0, 0x1001)
        assert params(1) == [DEV1] and list(k._kernels) == [1]
        k.launch((1,), (DEV1,), stream=5)
        assert launch_config()[3] == 5
        print(error(lambda: k.launch((1,), (Tensor(DEV0),))))
    """))
    assert out.splitlines() == [
        "ValueError: kernel 'k': argument 'x' (index 0, *fp32) is memory on cuda:0, but the "
        "kernel runs on cuda:1 (the current device): move it, or launch with cuda:0 current "
        "(torch.cuda.device(0))"]


def test_torch_public_api_fallback(mocked):
    mocked(FAKE_TORCH + textwrap.dedent("""
        initialized = True
        torch._C = types.SimpleNamespace()
        torch.cuda.current_device = lambda: 1
        torch.cuda.current_stream = lambda d: types.SimpleNamespace(cuda_stream=0x2000 + d)
        assert driver.current_device() == 1 and driver.current_stream() == 0x2001
    """))


def test_cooperative_grid_launch(mocked):
    """launch_cooperative_grid=True launches through cuLaunchKernelEx with
    the cooperative attribute (with PDL's too when both are asked for); a
    grid the device cannot hold at once fails with a CudaError naming the
    option (the mock holds 264 programs)."""
    out = mocked("""
        attr_count = lambda: ctypes.c_int.in_dll(mock, "mock_attr_count").value
        attrs = lambda: list(zip((ctypes.c_int * 8).in_dll(mock, "mock_attr_ids")[:attr_count()],
                                 (ctypes.c_int * 8).in_dll(mock, "mock_attr_values")[:attr_count()]))
        k = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4,
                      launch_cooperative_grid=True)
        k.launch(132, 2, 1, 0, (DEV0,))
        assert launches() == 1 and attrs() == [(2, 1)]  # CU_LAUNCH_ATTRIBUTE_COOPERATIVE
        assert launch_config()[0] == [132, 2, 1] and params(1) == [DEV0]
        print(error(lambda: k.launch(265, 1, 1, 0, (DEV0,))))
        assert launches() == 1
        both = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, launch_pdl=True,
                         launch_cooperative_grid=True)
        both.launch(1, 1, 1, 0, (DEV0,))
        assert attrs() == [(6, 1), (2, 1)] and launches() == 2
        plain = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4)
        mock.mock_attr_count  # cuLaunchKernel: no attributes recorded
        before = attr_count()
        plain.launch(300, 1, 1, 0, (DEV0,))
        assert launches() == 3 and attr_count() == before
    """)
    assert out.splitlines() == [
        "CudaError: cuLaunchKernelEx failed for kernel 'k' (launch_cooperative_grid=True: "
        "the 265 programs of the grid cannot all be resident on the device at once; use a "
        "grid of at most the SM count times the programs per SM the kernel's registers and "
        "shared memory allow): CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (too many blocks in "
        "cooperative launch)",
    ]


CLUSTERS = """
import warpforge
from warpforge.tools.tensor_descriptor import TensorDescriptor
attr_count = lambda: ctypes.c_int.in_dll(mock, "mock_attr_count").value
def attrs():
    \"\"\"cuLaunchKernelEx's last attributes: (id, first three words).\"\"\"
    ids = (ctypes.c_int * 8).in_dll(mock, "mock_attr_ids")
    words = ((ctypes.c_uint * 3) * 8).in_dll(mock, "mock_attr_words")
    return [(ids[i], list(words[i])) for i in range(attr_count())]
def box():
    rank = ctypes.c_uint.in_dll(mock, "mock_tma_rank").value
    return list((ctypes.c_uint * 5).in_dll(mock, "mock_tma_box")[:rank])
def swizzle():
    return ctypes.c_int.in_dll(mock, "mock_tma_swizzle").value
def fp16(ptr):
    return Tensor(ptr, "torch.float16")
def desc_image(rank, extra=()):
    sizes = [128] + [4] * rank + [8] * rank + list(extra)
    return ("MOCK name=k nparams=%d psizes=%s" % (len(sizes), ",".join(map(str, sizes)))).encode()
CLUSTER_DIMENSION = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
"""


def test_cluster_launch(mocked):
    """num_ctas=2: each program of the grid is a cluster of 2 CTAs along x,
    so a grid of (5, 3, 1) programs launches (10, 3, 1) CTAs through
    cuLaunchKernelEx with the cluster dimension (2, 1, 1), after PDL's and
    the cooperative attribute when those are asked for too; global scratch
    is per CTA; a cluster the device cannot place is a CudaError saying
    so."""
    out = mocked(CLUSTERS + textwrap.dedent("""
        k = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, num_ctas=2)
        assert k.num_ctas == 2
        k.launch(5, 3, 1, 0x42, (DEV0,))
        assert launches() == 1 and params(1) == [DEV0]
        assert launch_config() == ([10, 3, 1], [128, 1, 1], 0, 0x42)
        assert attrs() == [(CLUSTER_DIMENSION, [2, 1, 1])]
        k8 = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, num_ctas=8)
        k8.launch(3, 1, 2, 0, (DEV0,))
        assert launch_config()[0] == [24, 1, 2] and attrs() == [(CLUSTER_DIMENSION, [8, 1, 1])]
        k.launch(0, 3, 1, 0, (DEV0,))  # an empty grid still launches nothing
        assert launches() == 2
        # With PDL and a cooperative grid: all three attributes. The
        # cooperative limit (264 CTAs in the mock) counts CTAs.
        both = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, launch_pdl=True,
                         launch_cooperative_grid=True, num_ctas=2)
        both.launch(132, 1, 1, 0, (DEV0,))
        assert launch_config()[0] == [264, 1, 1]
        assert attrs() == [(6, [1, 0, 0]), (2, [1, 0, 0]), (CLUSTER_DIMENSION, [2, 1, 1])]
        print(error(lambda: both.launch(133, 1, 1, 0, (DEV0,))))
        assert launches() == 3
        # num_ctas=1 (the default) is a plain cuLaunchKernel: no attributes.
        before = attr_count()
        plain = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4)
        assert plain.num_ctas == 1
        plain.launch(5, 1, 1, 0, (DEV0,))
        assert launch_config()[0] == [5, 1, 1] and attr_count() == before

        # Global scratch: the kernel indexes it by its CTA's linear id, so
        # every CTA of a cluster has its own slice.
        calls = []
        class Buffer:
            def data_ptr(self):
                return DEV0 + 0x100000
        def alloc(size, alignment, stream):
            calls.append((size, alignment, stream))
            return Buffer()
        warpforge.set_allocator(alloc)
        s = _C.Kernel(b"MOCK name=k nparams=2", "k", {"x": "*fp32"}, 4,
                      global_scratch_size=128, global_scratch_align=64, num_ctas=4)
        s.launch(3, 2, 5, 0, (DEV0,))
        assert calls == [(128 * 3 * 4 * 2 * 5, 64, 0)]
        assert params(2) == [DEV0, DEV0 + 0x100000] and launch_config()[0] == [12, 2, 5]

        # A cluster the device cannot place fails the launch, saying why.
        ctypes.c_int.in_dll(mock, "mock_cluster_result").value = 912
        big = _C.Kernel(b"MOCK name=big shared=1024 nparams=1", "big", {"x": "*fp32"}, 8,
                        200000, num_ctas=8)
        launched = launches()
        try:
            big.launch(4, 1, 1, 0, (DEV0,))
        except CudaError as e:
            print(e.call, e.error_name, e.kernel, e.code, "|", e)
        assert launches() == launched
    """))
    assert out.splitlines() == [
        "CudaError: cuLaunchKernelEx failed for kernel 'k' (launch_cooperative_grid=True: "
        "the 133 programs of the grid (266 CTAs in clusters of 2) cannot all be resident on "
        "the device at once; use a grid of at most the SM count times the programs per SM "
        "the kernel's registers and shared memory allow): "
        "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE (too many blocks in cooperative launch)",
        "cuLaunchKernelEx CUDA_ERROR_INVALID_CLUSTER_SIZE big 912 | cuLaunchKernelEx failed "
        "for kernel 'big' (num_ctas=8: a cluster of 8 CTAs, each with 201024 bytes of shared "
        "memory and 256 threads, cannot be scheduled on this device; compile with fewer CTAs "
        "per cluster (num_ctas) or less shared memory): CUDA_ERROR_INVALID_CLUSTER_SIZE "
        "(invalid cluster size)",
    ]


def test_num_ctas_must_be_a_cluster_size(mocked):
    out = mocked("""
        for n in (3, 0, -2, 16):
            print(error(lambda: _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4,
                                          num_ctas=n)))
        assert launches() == 0
    """)
    assert out.splitlines() == [
        f"ValueError: kernel 'k': num_ctas={n}: a thread-block cluster has 1, 2, 4 or 8 CTAs"
        for n in (3, 0, -2, 16)]


def test_clusters_need_sm90(mocked):
    out = mocked("""
        _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, num_ctas=1).launch(
            1, 1, 1, 0, (DEV0,))
        assert launches() == 1
        print(error(lambda: _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4,
                                      num_ctas=2)))
    """, MOCK_SM80="1")
    assert out.splitlines() == [
        "RuntimeError: kernel 'k': num_ctas=2 (thread-block clusters) needs sm_90 or later; "
        "device 0 is sm_80"]


def test_cluster_grid_x_counts_ctas(mocked):
    """The grid counts programs; the driver's x limit (2**31 - 1) counts
    CTAs, num_ctas per program."""
    out = mocked(CLUSTERS + textwrap.dedent("""
        k = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, num_ctas=2)
        k.launch(2**30 - 1, 1, 1, 0, (DEV0,))
        assert launch_config()[0] == [2**31 - 2, 1, 1] and launches() == 1
        print(error(lambda: k.launch(2**30, 1, 1, 0, (DEV0,))))
        k8 = _C.Kernel(b"MOCK name=k nparams=1", "k", {"x": "*fp32"}, 4, num_ctas=8)
        print(error(lambda: k8.launch(2**28, 2, 1, 0, (DEV0,))))
        print(error(lambda: k8.launch(2**31, 1, 1, 0, (DEV0,))))  # over before num_ctas
        assert launches() == 1
    """))
    assert out.splitlines() == [
        "ValueError: kernel 'k': grid x = 1073741824 programs of num_ctas=2 CTAs each is "
        "2147483648 CTAs along x, over the device's limit of 2147483647; use at most "
        "1073741823 programs along x",
        "ValueError: kernel 'k': grid x = 268435456 programs of num_ctas=8 CTAs each is "
        "2147483648 CTAs along x, over the device's limit of 2147483647; use at most "
        "268435455 programs along x",
        "ValueError: kernel 'k': grid x = 2147483648 is outside [0, 2147483647]",
    ]


def test_descriptor_blocks_set_the_encoded_box(mocked):
    """descriptor_blocks encodes a tensordesc parameter's maps (box and
    swizzle) for the block given, a slice of the signature's (each CTA of a
    cluster loads its part); the host descriptor is still checked against
    the signature's block, and the shape and strides go as before."""
    mocked(CLUSTERS + textwrap.dedent("""
        sig = {"a": "tensordesc<fp16[256, 64]>", "b": "tensordesc<fp16[256, 64]>", "n": "i32"}
        a = TensorDescriptor(fp16(DEV0), [1000, 512], [512, 1], [256, 64])
        b = TensorDescriptor(fp16(DEV0 + 0x80000), [1000, 512], [512, 1], [256, 64])
        # Without descriptor_blocks: the signature's block, innermost first.
        k = _C.Kernel(desc_image(2, [128] + [4] * 2 + [8] * 2 + [8]), "k", sig, 4)
        k.launch(1, 1, 1, 0, (a, b, 7))
        assert box() == [64, 256] and swizzle() == 3
        # [128, 64] for `a` only: its map's box halves; `b`'s stays.
        k = _C.Kernel(desc_image(2, [128] + [4] * 2 + [8] * 2 + [8]), "k", sig, 4,
                      num_ctas=2, descriptor_blocks={"a": [128, 64]})
        k.launch(3, 1, 1, 0, (a, b, 7))
        assert box() == [64, 256]  # b's, encoded last
        assert k.descriptor_encodes("a") == 1
        raw = bytes((ctypes.c_ubyte * 128).from_buffer(
            (ctypes.c_ubyte * (64 * 128)).in_dll(mock, "mock_param_bytes"), 0))
        assert raw[:4] == b"TMAP" and list(struct.unpack_from("<2I", raw, 88)) == [64, 128]
        assert raw[110] == 3  # swizzle 128B
        p = params(11)
        assert [p[1] & 0xFFFFFFFF, p[2] & 0xFFFFFFFF, p[3], p[4]] == [1000, 512, 512, 1]
        assert p[10] & 0xFFFFFFFF == 7 and launch_config()[0] == [6, 1, 1]
        # The swizzle follows the encoded block: 32 fp16 are 64-byte rows.
        k = _C.Kernel(desc_image(2, [4]), "k", {"a": "tensordesc<fp16[256, 64]>", "n": "i32"},
                      4, descriptor_blocks={"a": [256, 32]})
        k.launch(1, 1, 1, 0, (a, 7))
        assert box() == [32, 256] and swizzle() == 2
        # The descriptor's block is the signature's, not the encoded one.
        half = TensorDescriptor(fp16(DEV0), [1000, 512], [512, 1], [128, 64])
        msg = error(lambda: k.launch(1, 1, 1, 0, (half, 7)))
        assert msg == ("TypeError: kernel 'k': argument 'a' (index 0, tensordesc<fp16[256, "
                       "64]>): its block shape [128, 64] differs from [256, 64], the one the "
                       "kernel was compiled for"), msg
        # An entry equal to the signature's block changes nothing.
        k = _C.Kernel(desc_image(2, [4]), "k", {"a": "tensordesc<fp16[256, 64]>", "n": "i32"},
                      4, descriptor_blocks={"a": (256, 64)})
        k.launch(1, 1, 1, 0, (a, 7))
        assert box() == [64, 256] and swizzle() == 3
    """))


def test_bad_descriptor_blocks_name_the_parameter(mocked):
    out = mocked(CLUSTERS + textwrap.dedent("""
        sig = {"a": "tensordesc<fp16[256, 64]>", "n": "i32"}
        for blocks in [{"a": [128]}, {"a": [96, 64]}, {"a": [0, 64]}, {"a": [-128, 64]},
                       {"a": [256, 4]}, {"a": [128, 64.0]}, {"a": "128"}, {"n": [1]},
                       {"zz": [128, 64]}, [("a", [128, 64])]]:
            print(error(lambda: _C.Kernel(desc_image(2, [4]), "k", sig, 4, num_ctas=2,
                                          descriptor_blocks=blocks)))
        assert launches() == 0
    """))
    head = "ValueError: kernel 'k': parameter 'a' has type 'tensordesc<fp16[256, 64]>': "
    assert out.splitlines() == [
        head + "descriptor_blocks['a'] = [128] has 1 dimension, the block 2",
        head + "descriptor_blocks['a'] = [96, 64] has dimension 0 = 96, which is not a "
        "positive divisor of the block's 256",
        head + "descriptor_blocks['a'] = [0, 64] has dimension 0 = 0, which is not a positive "
        "divisor of the block's 256",
        head + "descriptor_blocks['a'] = [-128, 64] has dimension 0 = -128, which is not a "
        "positive divisor of the block's 256",
        head + "the innermost box spans 8 bytes; the TMA needs a multiple of 16 (encoded for "
        "descriptor_blocks['a'] = [256, 4])",
        "ValueError: kernel 'k': descriptor_blocks['a'] must be a list of ints, got [128, 64.0]",
        "ValueError: kernel 'k': descriptor_blocks['a'] must be a list of ints, got '128'",
        "ValueError: kernel 'k': descriptor_blocks names 'n', which is not a tensordesc "
        "parameter of the signature (it is i32)",
        "ValueError: kernel 'k': descriptor_blocks names 'zz', which is not a tensordesc "
        "parameter of the signature",
        "TypeError: kernel 'k': descriptor_blocks must be None or a dict of tensordesc "
        "parameter names to block shapes, not list",
    ]


def test_compiled_kernel_passes_clusters_and_descriptor_blocks(mocked):
    """CompiledKernel._load gives the launcher the metadata's num_ctas and
    descriptor_blocks."""
    mocked(FAKE_TORCH + CLUSTERS + textwrap.dedent("""
        sig = {"a": "tensordesc<fp16[256, 64]>", "n": "i32"}
        k = CompiledKernel("k", sig, {}, KernelOptions(num_warps=4),
                           asm={"cubin": desc_image(2, [4])})
        k.metadata.update(num_ctas=2, descriptor_blocks={"a": [128, 64]})
        a = TensorDescriptor(fp16(DEV0), [1000, 512], [512, 1], [256, 64])
        k.launch((3,), (a, 7))
        assert launch_config()[0] == [6, 1, 1] and attrs() == [(CLUSTER_DIMENSION, [2, 1, 1])]
        assert box() == [64, 128] and k._kernels[0].num_ctas == 2
        # Without them: one CTA per program, the signature's block.
        k = CompiledKernel("k", sig, {}, KernelOptions(num_warps=4),
                           asm={"cubin": desc_image(2, [4])})
        k.launch((3,), (a, 7))
        assert launch_config()[0] == [3, 1, 1] and box() == [64, 256]
    """))
