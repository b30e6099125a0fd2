"""warpforge.profiler (Triton's proton API: what tutorial 09 uses), the
launch hooks it registers (runtime/hooks.py), its viewer, and
warpforge._libtriton (Triton's `triton._C.libtriton` cuBLAS binding, run on
torch's cuBLAS) with the alias that resolves it (scripts/triton_alias.py).

On the CPU the kernels run in the interpreter and scopes are timed on the
host clock; the test marked gpu runs CublasLt.matmul on an H100."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import warpforge as triton
import warpforge.language as tl
import warpforge.profiler as proton
import warpforge.profiler.viewer as proton_viewer
from warpforge.profiler import _core
from warpforge.runtime import hooks

REPO = Path(__file__).resolve().parents[2]

CALLS = []


def _add_metadata(grid, kernel, args):
    # As tutorial 09's _matmul_launch_metadata: the kernel's name and the
    # problem size in the scope's name, flops and bytes as metrics.
    CALLS.append(grid)
    n = args["n"]
    return {"name": f"{kernel.name} [n={n}]", "flops16": 2.0 * n,
            "bytes": 3 * n * args["x_ptr"].itemsize}


@triton.jit(launch_metadata=_add_metadata)
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
             mask=mask)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@pytest.fixture
def profiling(monkeypatch, tmp_path):
    """Interpreted kernels, files in tmp_path, and no session, hook or open
    scope left behind."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    monkeypatch.chdir(tmp_path)
    CALLS.clear()
    yield tmp_path
    proton.finalize()
    _core.stack().clear()
    hooks.LAUNCH_HOOKS.clear()


def _children(node):
    return {c["frame"]["name"]: c for c in node["children"]}


def _run_profile():
    x = np.arange(100, dtype=np.float16)
    out = np.empty_like(x)
    sid = proton.start("matmul", hook="triton")
    assert sid == 0 and hooks.LAUNCH_HOOKS  # the hook is on while the session is active
    add_kernel[(2,)](x, x, out, 100, BLOCK=64)
    assert (out == 2 * x).all()
    with proton.scope("user [n=100]", {"flops16": 1e6, "bytes": 10}):
        for _ in range(3):
            add_kernel[(2,)](x, x, out, 100, BLOCK=64)
        copy_kernel[(1,)](x, out, 100, BLOCK=128)
    proton.deactivate(sid)
    assert not hooks.LAUNCH_HOOKS  # deactivated: launches pay nothing
    add_kernel[(2,)](x, x, out, 100, BLOCK=64)  # not recorded
    with proton.scope("not recorded"):
        pass
    proton.activate(sid)
    add_kernel[(1,)](x, x, out, 50, BLOCK=64)
    proton.finalize()
    return json.loads(Path("matmul.hatchet").read_text())


def test_profile_tree(profiling):
    data = _run_profile()
    assert not hooks.LAUNCH_HOOKS  # finalized: no hook left
    # Hatchet's form as proton writes it: [root, device info].
    assert isinstance(data, list) and len(data) == 2 and data[1] == {}
    root = data[0]
    assert root["frame"] == {"name": "ROOT", "type": "function"}
    assert root["metrics"] == {"count": 0, "time (ns)": 0}
    top = _children(root)
    assert list(top) == ["add_kernel [n=100]", "user [n=100]", "add_kernel [n=50]"]
    # launch_metadata ran once per recorded launch, with the 3-tuple grid.
    assert CALLS == [(2, 1, 1)] * 4 + [(1, 1, 1)]

    first = top["add_kernel [n=100]"]["metrics"]
    assert first["count"] == 1 and first["flops16"] == 200.0 and first["bytes"] == 600
    assert first["device_type"] == "CPU" and first["device_id"] == "0"
    assert isinstance(first["time (ns)"], int) and first["time (ns)"] > 0
    assert top["add_kernel [n=50]"]["metrics"]["flops16"] == 100.0

    # Launches inside the user scope nest under it; repeated launches sum.
    user = top["user [n=100]"]
    inner = _children(user)
    assert list(inner) == ["add_kernel [n=100]", "copy_kernel"]
    assert inner["add_kernel [n=100]"]["metrics"]["count"] == 3
    assert inner["add_kernel [n=100]"]["metrics"]["flops16"] == 600.0
    assert inner["add_kernel [n=100]"]["metrics"]["bytes"] == 1800
    # Without launch_metadata: the kernel's name, no metrics of its own.
    copy = inner["copy_kernel"]["metrics"]
    assert copy["count"] == 1 and "flops16" not in copy and "bytes" not in copy
    assert user["metrics"]["count"] == 1
    assert user["metrics"]["flops16"] == 1e6 and user["metrics"]["bytes"] == 10
    # The scope's own time is its bracket less its children's (exclusive),
    # never negative.
    assert user["metrics"]["time (ns)"] >= 0
    for node in (inner["add_kernel [n=100]"], inner["copy_kernel"]):
        assert node["children"] == []


def test_viewer(profiling, capsys):
    _run_profile()
    tree, metrics = proton_viewer.parse(["tflop16/s", "time/ms"], "matmul.hatchet")
    assert metrics == ["tflop16/s", "time/ms"]
    data = json.loads(Path("matmul.hatchet").read_text())[0]
    user_json = _children(data)["user [n=100]"]
    user = next(n for n in tree.children if n.name == "user [n=100]")
    # Inclusive: the scope's own time plus its children's gives its bracket.
    total_ns = user_json["metrics"]["time (ns)"] + sum(
        c["metrics"]["time (ns)"] for c in user_json["children"])
    assert user.values["time/ms"] == pytest.approx(total_ns * 1e-6)
    # Flops summed over the subtree over the total time (proton's average).
    assert user.values["tflop16/s"] == pytest.approx((1e6 + 600.0) / (total_ns * 1e-9) / 1e12)
    assert tree.values["time/ms"] == pytest.approx(sum(n.values["time/ms"] for n in tree.children))

    proton_viewer.print_tree(tree, metrics)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].endswith(" ROOT")
    assert lines[1].startswith("├─ ") and lines[1].endswith(" add_kernel [n=100]")
    assert lines[2].startswith("├─ ") and lines[2].endswith(" user [n=100]")
    assert lines[3].startswith("│  ├─ ") and lines[3].endswith(" add_kernel [n=100]")
    assert lines[4].startswith("│  └─ ") and lines[4].endswith(" copy_kernel")
    assert lines[5].startswith("└─ ") and lines[5].endswith(" add_kernel [n=50]")
    assert len(lines) == 6
    # Two numbers then the name; copy_kernel has no flops: nan.
    values = lines[4].split("└─ ")[1].split()
    assert values[0] == "nan" and float(values[1]) > 0
    assert float(lines[0].split()[1]) == pytest.approx(tree.values["time/ms"], abs=1e-3)


def test_viewer_derived_values(tmp_path, capsys):
    """Exact values on a written profile: rates are a subtree's totals over
    its total time; avg_time divides by the node's own count."""
    path = tmp_path / "p.hatchet"
    node = lambda name, metrics, children=(): {  # noqa: E731
        "frame": {"name": name, "type": "function"}, "metrics": metrics,
        "children": list(children)}
    path.write_text(json.dumps([node("ROOT", {"count": 0, "time (ns)": 0}, [
        node("a", {"time (ns)": 2_000_000, "count": 4, "flops16": 4e12, "bytes": 1e9}),
        node("s", {"time (ns)": 1_000_000, "count": 1, "flops8": 1e12}, [
            node("k", {"time (ns)": 3_000_000, "count": 2, "flops8": 2e12})]),
    ]), {}]))
    names = ["time/ms", "time/us", "time/s", "tflop16/s", "gflop16/s", "tflop8/s",
             "avg_time/ms", "gbyte/s", "count"]
    tree, metrics = proton_viewer.parse(names, str(path))
    a, s = tree.children
    k = s.children[0]
    assert a.values["time/ms"] == pytest.approx(2.0)
    assert a.values["time/us"] == pytest.approx(2000.0)
    assert a.values["time/s"] == pytest.approx(2e-3)
    assert a.values["tflop16/s"] == pytest.approx(2000.0)
    assert a.values["gflop16/s"] == pytest.approx(2e6)
    assert a.values["avg_time/ms"] == pytest.approx(0.5)
    assert a.values["gbyte/s"] == pytest.approx(500.0)
    assert s.values["time/ms"] == pytest.approx(4.0)  # its own 1 ms + k's 3 ms
    assert s.values["tflop8/s"] == pytest.approx(3e12 / 4e-3 / 1e12)
    assert s.values["avg_time/ms"] == pytest.approx(4.0)  # one entry of 4 ms
    assert k.values["tflop8/s"] == pytest.approx(2e12 / 3e-3 / 1e12)
    assert tree.values["time/ms"] == pytest.approx(6.0)
    assert tree.values["tflop16/s"] == pytest.approx(4e12 / 6e-3 / 1e12)
    assert tree.values["count"] == 7
    assert tree.values["avg_time/ms"] == pytest.approx(6.0 / 7)  # ROOT: per count below
    import math
    assert math.isnan(s.values["tflop16/s"])  # no flops16 in its subtree
    proton_viewer.print_tree(tree, ["tflop16/s", "time/ms"], depth=1)
    out = capsys.readouterr().out.splitlines()
    assert out == ["666.667 6.000 ROOT", "├─ 2000.000 2.000 a", "└─ nan 4.000 s"]

    # include / exclude / threshold, as proton's viewer filters.
    tree, _ = proton_viewer.parse(["time/ms"], str(path), exclude="s")
    assert [n.name for n in tree.children] == ["a"] and tree.values["time/ms"] == 2.0
    tree, _ = proton_viewer.parse(["time/ms"], str(path), include="k")
    assert [n.name for n in tree.walk()] == ["ROOT", "s", "k"]
    tree, _ = proton_viewer.parse(["time/ms"], str(path), threshold=3.0)
    assert [n.name for n in tree.walk()] == ["ROOT", "s", "k"]


def test_viewer_unknown_metric(profiling):
    _run_profile()
    with pytest.raises(ValueError, match=r"unknown metric 'tflops/s': known metrics") as e:
        proton_viewer.parse(["tflops/s"], "matmul.hatchet")
    for known in ("time/ms", "time/us", "avg_time/ms", "tflop16/s", "gflop8/s", "tbyte/s",
                  "flops16"):
        assert known in str(e.value)
    # Known, but the file has no flops8 (an fp16 run asked for fp8's rate).
    with pytest.raises(ValueError, match=r"'tflop8/s' needs 'flops8'"):
        proton_viewer.parse(["tflop8/s"], "matmul.hatchet")
    # A metric of the file by name, with or without its unit.
    tree, metrics = proton_viewer.parse(["bytes", "time"], "matmul.hatchet")
    assert tree.values["bytes"] == 600 + 10 + 1800 + 300


def test_sessions_and_errors(profiling):
    with pytest.raises(ValueError, match="hook"):
        proton.start("x", hook="cupti")
    with pytest.raises(ValueError, match="context"):
        proton.start("x", context="python")
    with pytest.raises(TypeError, match="must be an int or a float"):
        proton.scope("s", {"flops": "many"})
    a = proton.start("a")  # no hook: launches are not recorded
    assert a == 0 and not hooks.LAUNCH_HOOKS
    b = proton.start("b.hatchet", hook="triton")
    assert b == 1 and hooks.LAUNCH_HOOKS
    with pytest.raises(ValueError, match="no session 7"):
        proton.activate(7)
    x = np.ones(8, dtype=np.float32)
    with proton.scope("outer"):
        proton.enter_scope("inner", metrics={"bytes": 4})
        copy_kernel[(1,)](x, x, 8, BLOCK=8)
        proton.exit_scope("inner", metrics={"bytes": 1})
    proton.finalize(a)
    assert b in _core.SESSIONS and hooks.LAUNCH_HOOKS
    proton.finalize()
    assert not _core.SESSIONS and not hooks.LAUNCH_HOOKS
    a_root = json.loads(Path("a.hatchet").read_text())[0]
    b_root = json.loads(Path("b.hatchet").read_text())[0]
    # Both sessions saw the scopes; only b (hook="triton") the launch.
    for root in (a_root, b_root):
        inner = _children(_children(root)["outer"])["inner"]
        assert inner["metrics"]["bytes"] == 5 and inner["metrics"]["count"] == 1
    assert _children(_children(_children(b_root)["outer"])["inner"]).keys() == {"copy_kernel"}
    assert _children(_children(_children(a_root)["outer"])["inner"]) == {}
    # Ids are reused once free: a script's proton.activate(0) finds its session.
    assert proton.start("c") == 0


def test_launch_hooks(monkeypatch):
    """The hook interface: enter(name, grid, metadata) and exit(name) around
    each launch, exit also when the launch raises; nothing without hooks."""
    monkeypatch.setenv("WARPFORGE_INTERPRET", "1")
    seen = []

    class Hook:
        def enter(self, name, grid, metadata):
            seen.append(("enter", name, grid, metadata))

        def exit(self, name):
            seen.append(("exit", name))

    hook = Hook()
    x = np.arange(10, dtype=np.float16)
    hooks.add(hook)
    hooks.add(hook)  # once
    try:
        add_kernel[(1,)](x, x, x, 10, BLOCK=16)
        copy_kernel[lambda meta: (1,)](x, x, 10, BLOCK=16)
        with pytest.raises(Exception):
            copy_kernel[(1,)](x, x, 10, BLOCK=5)  # not a power of two
    finally:
        hooks.remove(hook)
    assert not hooks.LAUNCH_HOOKS
    assert seen[0][:3] == ("enter", "add_kernel", (1, 1, 1))
    assert seen[0][3]["name"] == "add_kernel [n=10]"
    assert seen[1] == ("exit", "add_kernel")
    assert seen[2] == ("enter", "copy_kernel", (1, 1, 1), None)
    assert seen[3] == ("exit", "copy_kernel")
    assert seen[-1] == ("exit", "copy_kernel") and seen[-2][0] == "enter"
    count = len(seen)
    add_kernel[(1,)](x, x, x, 10, BLOCK=16)
    assert len(seen) == count


def test_cublas_checks_without_gpu():
    torch = pytest.importorskip("torch")
    from warpforge._libtriton import CublasLt, nvidia
    assert nvidia.cublas.CublasLt is CublasLt
    with pytest.raises(TypeError, match="uint8"):
        CublasLt(torch.empty(16, dtype=torch.float32))
    with pytest.raises(ValueError, match="CUDA tensor"):
        CublasLt(torch.empty(16, dtype=torch.uint8))
    with pytest.raises(TypeError, match="torch tensor"):
        CublasLt(np.zeros(16, dtype=np.uint8))
    # The operand checks come before any CUDA call: test them on an object
    # made without the constructor's device check.
    lt = CublasLt.__new__(CublasLt)
    lt.workspace, lt._ones, lt._fp8_direct = None, {}, None
    a = torch.zeros(4, 8, dtype=torch.float16)
    b = torch.zeros(6, 8, dtype=torch.float16)
    with pytest.raises(ValueError, match="b must be N x K"):
        lt.matmul(a, torch.zeros(6, 4, dtype=torch.float16), torch.zeros(4, 6, dtype=torch.float16))
    with pytest.raises(ValueError, match=r"c must be M x N = \(4, 6\)"):
        lt.matmul(a, b, torch.zeros(6, 4, dtype=torch.float16))
    with pytest.raises(TypeError, match="one dtype"):
        lt.matmul(a, b, torch.zeros(4, 6, dtype=torch.float32))
    with pytest.raises(TypeError, match="not supported"):
        lt.matmul(a.float(), b.float(), torch.zeros(4, 6))
    with pytest.raises(ValueError, match="one CUDA device"):
        lt.matmul(a, b, torch.zeros(4, 6, dtype=torch.float16))


ALIAS = textwrap.dedent('''
    import sys
    sys.path.insert(0, {scripts!r})
    import triton_alias
    triton_alias.install("triton", "warpforge")
    from triton._C.libtriton import nvidia
    import triton._C
    import triton.profiler as proton
    import triton.profiler.viewer as proton_viewer
    import warpforge
    import warpforge._libtriton
    assert nvidia.cublas.CublasLt is warpforge._libtriton.CublasLt
    assert triton._C.libtriton is warpforge._libtriton
    # triton._C is warpforge's own binding, still warpforge._C.
    assert triton._C is sys.modules["warpforge._C"] and warpforge._C is triton._C
    assert proton.start is warpforge.profiler.start
    assert proton_viewer.parse is warpforge.profiler.viewer.parse
    assert "triton._C.libtriton" in triton_alias.ALIASED
    assert not [s for s in triton_alias.STUBBED if "_C" in s or "profiler" in s], \\
        triton_alias.STUBBED
    print("alias ok")
''')


def test_alias_resolves_libtriton_and_profiler(tmp_path):
    pytest.importorskip("warpforge._C")
    script = tmp_path / "alias.py"
    script.write_text(ALIAS.format(scripts=str(REPO / "scripts")))
    env = dict(os.environ, WARPFORGE_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO / "python"),
                                                    env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "alias ok" in proc.stdout


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", ["float16", "float8_e4m3fn"])
def test_gpu_cublas_matmul(dtype):
    """c = a @ b.T through CublasLt against float64 of the same inputs: fp16
    within fp16 rounding of the result, fp8 within e4m3's (3 mantissa bits:
    half a step is 1/16 of the value)."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    from warpforge._libtriton import nvidia
    lt = nvidia.cublas.CublasLt(torch.empty(32 * 1024 * 1024, device="cuda", dtype=torch.uint8))
    dt = getattr(torch, dtype)
    gen = torch.Generator(device="cuda").manual_seed(0)
    M, N, K = 384, 256, 512
    a = torch.randn((M, K), device="cuda", generator=gen, dtype=torch.float16).to(dt)
    b = torch.randn((N, K), device="cuda", generator=gen, dtype=torch.float16).to(dt)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16).to(dt)
    lt.matmul(a, b, c)
    torch.cuda.synchronize()
    ref = a.double() @ b.double().T
    got = c.double()
    assert torch.isfinite(got).all()
    if dt == torch.float16:
        torch.testing.assert_close(got, ref, rtol=2e-3, atol=2e-2)
        # The same as torch's own cuBLAS call.
        assert torch.equal(c, torch.matmul(a, b.T))
    else:
        # fp8 out: the result rounded to e4m3 (fast accumulation adds little).
        torch.testing.assert_close(got, ref, rtol=0.07, atol=0.05)
    with pytest.raises(ValueError, match="contiguous"):
        lt.matmul(a, b.T.contiguous().T, c)
