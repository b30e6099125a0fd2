"""The GPU runtime without a GPU: importing and compiling need no driver, a
launch without one is a clear error, and arguments are checked before any
driver call. Tests that must not see a driver run in a fresh interpreter,
since the driver, once opened, stays open."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import warpforge
from warpforge import _C
from warpforge.compiler.compiler import CompiledKernel, KernelOptions
from warpforge.runtime import cache as disk_cache
from warpforge.runtime import driver

import zoo

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(warpforge.__file__)))
MISSING_LIBCUDA = "/nonexistent/libcuda.so.1"


def run_python(code: str, **env) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter that imports warpforge and zoo."""
    environ = dict(os.environ, PYTHONPATH=os.pathsep.join([PACKAGE_ROOT, HERE]), **env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=environ,
                          capture_output=True, text=True, timeout=300)


def test_import_and_compile_open_no_driver():
    result = run_python("""
        import numpy as np
        import warpforge, zoo
        x = np.zeros(1024, np.float32)
        k = zoo.add_kernel.warmup(x, x, x, 1000, BLOCK_SIZE=256)
        assert "tile.store" in k.asm["tile"]
        with open("/proc/self/maps") as f:
            assert "libcuda" not in f.read(), "the CUDA driver was opened"
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_launch_without_a_driver_is_a_clear_error():
    result = run_python("""
        import numpy as np
        import zoo
        from warpforge.errors import DriverUnavailable
        from warpforge.runtime import driver
        assert driver.device_count() == 0
        x = np.zeros(1024, np.float32)
        k = zoo.add_kernel.warmup(x, x, x, 1000, BLOCK_SIZE=256)
        k.asm["cubin"] = b"a cubin"
        try:
            zoo.add_kernel[(4,)](x, x, x, 1000, BLOCK_SIZE=256)
        except DriverUnavailable as e:
            print(e)
    """, WARPFORGE_LIBCUDA=MISSING_LIBCUDA)
    assert result.returncode == 0, result.stderr
    message = result.stdout.strip()
    assert message.startswith(f"cannot launch kernel 'add_kernel': cannot open the CUDA driver "
                              f"library '{MISSING_LIBCUDA}': ")
    assert "needs an NVIDIA GPU and its driver (set WARPFORGE_LIBCUDA" in message
    assert "WARPFORGE_INTERPRET=1 runs kernels on the CPU" in message


def test_driver_active_answers_for_the_interpreter_without_a_gpu():
    pytest.importorskip("torch")  # get_active_torch_device() returns a torch device
    # Triton's tutorials start with driver.active.get_active_torch_device()
    # and read the target and the device's properties: in the interpreter
    # without a GPU those are the CPU and a nominal H100 (sm_90).
    result = run_python("""
        import json
        import torch
        from warpforge.errors import DriverUnavailable
        from warpforge.runtime import driver
        a = driver.active
        props = a.utils.get_device_properties(None)
        print(json.dumps([str(a.get_active_torch_device()), list(a.get_current_target()),
                          a.get_current_device(), a.get_current_stream(),
                          props["multiprocessor_count"], props["max_shared_mem"],
                          props["max_num_regs"], props["warpSize"], a.get_device_capability()]))
    """, WARPFORGE_LIBCUDA=MISSING_LIBCUDA, WARPFORGE_INTERPRET="1")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["cpu", ["cuda", 90, 32], 0, 0, 132, 232448, 65536, 32,
                                         [9, 0]]
    # Without the interpreter the same calls need the driver, as before.
    result = run_python("""
        from warpforge.errors import DriverUnavailable
        from warpforge.runtime import driver
        for call in (driver.active.get_active_torch_device, driver.active.get_current_target):
            try:
                call()
            except DriverUnavailable:
                print("unavailable")
    """, WARPFORGE_LIBCUDA=MISSING_LIBCUDA, WARPFORGE_INTERPRET="0")
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["unavailable", "unavailable"]


def test_a_library_that_is_not_the_driver_is_a_clear_error():
    result = run_python("""
        from warpforge import _C
        try:
            _C.Kernel(b"a cubin", "k", ["*fp32"], 4)
        except Exception as e:
            print(type(e).__name__, e)
    """, WARPFORGE_LIBCUDA="libm.so.6")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("DriverUnavailable cannot launch kernel 'k': the CUDA driver "
                                    "library 'libm.so.6' lacks cuInit, cuDriverGetVersion, ")


def test_current_device_and_stream_without_torch():
    result = run_python("""
        import sys
        from warpforge.runtime import driver
        print(driver.current_device(), driver.current_stream(), "torch" in sys.modules)
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "0", "False"]


def test_library_path_follows_the_environment(monkeypatch):
    monkeypatch.setenv("WARPFORGE_LIBCUDA", "/opt/driver/libcuda.so.1")
    assert _C.cuda_library_path() == "/opt/driver/libcuda.so.1"
    monkeypatch.delenv("WARPFORGE_LIBCUDA")
    assert _C.cuda_library_path() == "libcuda.so.1"


class Stream:
    def __init__(self, handle):
        self.cuda_stream = handle


class ProtocolStream:
    def __cuda_stream__(self):
        return (0, 0xABC)


def test_stream_handles():
    assert driver.stream_handle(0) == 0 and driver.stream_handle(0x1234) == 0x1234
    assert driver.stream_handle(Stream(0x5678)) == 0x5678
    assert driver.stream_handle(ProtocolStream()) == 0xABC
    with pytest.raises(TypeError, match="stream must be a CUstream handle .* not str"):
        driver.stream_handle("default")
    with pytest.raises(ValueError, match="non-negative"):
        driver.stream_handle(-1)


# -- CompiledKernel ----------------------------------------------------------------

def fake_kernel(**changes) -> CompiledKernel:
    fields = dict(name="add_kernel",
                  signature={"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                             "n_elements": "i32"},
                  constants={"BLOCK_SIZE": 256}, options=KernelOptions(num_warps=8),
                  asm={"tile": "module {}", "cubin": bytes(range(256)) * 3},
                  metadata={"name": "add_kernel_0d1d2d3", "shared": 1024, "num_warps": 8},
                  params=["x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE"])
    fields.update(changes)
    return CompiledKernel(**fields)


def test_payload_round_trip_keeps_binary_stages():
    kernel = fake_kernel()
    payload = json.loads(json.dumps(kernel.to_payload()))
    assert payload["asm"] == {"tile": "module {}"}  # text stays readable
    back = CompiledKernel.from_payload(payload)
    assert back == kernel
    assert type(back.asm["cubin"]) is bytes and back.asm["cubin"] == bytes(range(256)) * 3
    assert back.metadata == kernel.metadata and back.params == kernel.params
    assert back.shared == 1024


def test_payload_with_bad_base64_is_a_cache_miss():
    payload = json.loads(json.dumps(fake_kernel().to_payload()))
    payload["asm_base64"]["cubin"] = "not base64!"
    assert CompiledKernel.from_payload(payload) is None
    del payload["asm_base64"]
    assert CompiledKernel.from_payload(payload) is None


def test_disk_cache_round_trip_with_a_cubin():
    kernel = fake_kernel()
    key = disk_cache.entry_key("source", [("x", ("a", "*fp32", 16))], kernel.options)
    disk_cache.store(key, kernel.to_payload())
    assert CompiledKernel.from_payload(disk_cache.load(key)) == kernel


def test_without_a_cubin_launch_reports_missing_codegen():
    kernel = fake_kernel(asm={"tile": "module {}"})
    for action in (lambda: kernel.launch((1,), (1, 2, 3, 4)), lambda: kernel.n_regs):
        with pytest.raises(RuntimeError, match="GPU code generation is not available"):
            action()
    assert kernel.shared == 1024  # metadata needs no GPU


def test_wrong_argument_count_is_checked_before_the_driver(monkeypatch):
    # A driver, if opened, would fail: the count is checked first.
    monkeypatch.setenv("WARPFORGE_LIBCUDA", MISSING_LIBCUDA)
    kernel = fake_kernel()
    with pytest.raises(TypeError, match=r"^kernel 'add_kernel' takes 4 arguments \(x_ptr: \*fp32, "
                                        r"y_ptr: \*fp32, out_ptr: \*fp32, n_elements: i32\) or "
                                        r"all 5 of its parameters \(x_ptr, y_ptr, out_ptr, "
                                        r"n_elements, BLOCK_SIZE\), got 3$"):
        kernel.launch((1,), (1, 2, 3))


def test_launcher_is_named_after_the_kernel():
    x = np.zeros(16, np.float32)
    with pytest.raises(TypeError, match=r"^add_kernel\(\) missing 1 required positional "
                                        r"argument: 'n_elements'$"):
        zoo.add_kernel[(1,)](x, x, x, BLOCK_SIZE=16)


@pytest.mark.parametrize("dtype", [np.complex64, np.float128 if hasattr(np, "float128")
                                   else np.complex128])
def test_unsupported_array_dtype_is_a_clear_error(dtype):
    x, bad = np.zeros(16, np.float32), np.zeros(16, dtype)
    with pytest.raises(TypeError, match=rf"^add_kernel: argument 'y_ptr': ndarray of dtype "
                                        rf"{np.dtype(dtype).name} is not supported as a kernel "
                                        r"argument \(supported: bool, int8"):
        zoo.add_kernel[(1,)](x, bad, x, 16, BLOCK_SIZE=16)


def test_unsupported_torch_dtype_is_a_clear_error():
    torch = pytest.importorskip("torch")
    x, bad = torch.zeros(16), torch.zeros(16, dtype=torch.complex64)
    with pytest.raises(TypeError, match=r"^add_kernel: argument 'x_ptr': Tensor of dtype "
                                        r"torch.complex64 is not supported"):
        zoo.add_kernel[(1,)](bad, x, x, 16, BLOCK_SIZE=16)


def test_stream_reaches_the_compiled_kernel(monkeypatch):
    calls = []
    monkeypatch.setattr(CompiledKernel, "launch",
                        lambda self, grid, args, stream=None: calls.append(stream))
    x = np.zeros(64, np.float32)
    s = Stream(0x77)
    zoo.add_kernel[(1,)](x, x, x, 64, BLOCK_SIZE=64, stream=s)  # compiles: the general path
    zoo.add_kernel[(1,)](x, x, x, 64, BLOCK_SIZE=64, stream=s)  # the generated launcher
    zoo.add_kernel[(1,)](x, x, x, 64, BLOCK_SIZE=64)
    assert calls == [s, s, None]


# -- _C.Kernel's checks that precede the driver ----------------------------------

@pytest.mark.parametrize("signature,message", [
    ({"x": "*fp99"}, "kernel 'k': parameter 'x' has unknown type '\\*fp99'"),
    ({"x": "fp8e4nv"}, "kernel 'k': parameter 'x': fp8e4nv scalars cannot be kernel arguments"),
    ("i32", "kernel 'k': the signature must be a dict of parameter names to types"),
])
def test_kernel_rejects_bad_signatures(signature, message):
    with pytest.raises((ValueError, TypeError), match=message):
        _C.Kernel(b"cubin", "k", signature, 4)


def test_kernel_rejects_bad_params_and_launch_shapes():
    with pytest.raises(ValueError, match="parameter 'n' of the signature is not in params"):
        _C.Kernel(b"cubin", "k", {"x": "*fp32", "n": "i32"}, 4, params=["x", "BLOCK"])
    with pytest.raises(ValueError, match="num_warps must be at least 1, got 0"):
        _C.Kernel(b"cubin", "k", ["*fp32"], 0)
    with pytest.raises(ValueError, match="shared memory bytes must be non-negative, got -1"):
        _C.Kernel(b"cubin", "k", ["*fp32"], 4, -1)
    with pytest.raises(ValueError, match="kernel 'k': the cubin is empty"):
        _C.Kernel(b"", "k", ["*fp32"], 4)
    with pytest.raises(TypeError, match="the kernel image must be bytes .* not int"):
        _C.Kernel(7, "k", ["*fp32"], 4)
