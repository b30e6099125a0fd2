"""torch tensors as kernel arguments (skipped where torch is not installed)."""

import pytest

torch = pytest.importorskip("torch")

import warpforge  # noqa: E402
import zoo  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype,name", [(torch.float16, "*fp16"), (torch.bfloat16, "*bf16"),
                                        (torch.float32, "*fp32"), (torch.int32, "*int32"),
                                        (torch.float8_e4m3fn, "*fp8e4nv")])
def test_dtype_and_alignment_specialization(device, dtype, name):
    x = torch.ones(256, device=device).to(dtype)
    k = zoo.add_kernel.warmup(x, x, x, 200, BLOCK_SIZE=128)
    ir = {"*fp16": "f16", "*bf16": "bf16", "*fp32": "f32", "*int32": "i32",
          "*fp8e4nv": "f8E4M3FN"}[name]
    assert k.signature["x_ptr"] == name
    assert f"%arg0: !tile.ptr<{ir}> {{tile.divisibility = 16 : i32}}" in k.asm["tile"]
    misaligned = x[1:]
    k2 = zoo.add_kernel.warmup(misaligned, misaligned, misaligned, 200, BLOCK_SIZE=128)
    assert f"%arg0: !tile.ptr<{ir}>, " in k2.asm["tile"] and k2 is not k


def test_interpreter_on_cpu_tensors(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    g = torch.Generator().manual_seed(0)
    for dtype, tol in [(torch.float32, 0), (torch.float16, 1e-3)]:
        x = torch.rand(1000, generator=g).to(dtype)
        y = torch.rand(1000, generator=g).to(dtype)
        out = torch.full((1000,), float("nan"), dtype=dtype)
        zoo.add_kernel[(warpforge.cdiv(1000, 256),)](x, y, out, 1000, BLOCK_SIZE=256)
        torch.testing.assert_close(out, x + y, rtol=tol, atol=tol)


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_interpreter_refuses_cuda_tensors_clearly(monkeypatch):
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    x = torch.ones(16, device="cuda")
    with pytest.raises(TypeError):
        zoo.add_kernel[(1,)](x, x, x, 16, BLOCK_SIZE=16)
