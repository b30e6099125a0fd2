"""The NVPTX backend from Python: LLVM/NVVM-dialect MLIR -> LLVM IR -> PTX ->
cubin (with CUDA's ptxas, which this machine has; no GPU needed)."""

import os
import shutil
import struct
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from warpforge.compiler import target
from warpforge.errors import IRError

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KERNELS = """\
llvm.func @twice(%x: f32) -> f32 {
  %y = llvm.fadd %x, %x : f32
  llvm.return %y : f32
}
llvm.func @scale(%p: !llvm.ptr<1>) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
  %tid = nvvm.read.ptx.sreg.tid.x : i32
  %i = llvm.zext %tid : i32 to i64
  %a = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32
  %x = llvm.load %a : !llvm.ptr<1> -> f32
  %y = llvm.call @twice(%x) : (f32) -> f32
  %mask = llvm.mlir.constant(-1 : i32) : i32
  %offset = llvm.mlir.constant(1 : i32) : i32
  %clamp = llvm.mlir.constant(31 : i32) : i32
  %z = nvvm.shfl.sync bfly %mask, %y, %offset, %clamp : f32 -> f32
  nvvm.barrier0
  llvm.store %z, %a : f32, !llvm.ptr<1>
  llvm.return
}
"""

HOPPER = """\
llvm.mlir.global internal @barrier() {addr_space = 3 : i32, alignment = 8 : i64} : i64
llvm.func @hopper() attributes {nvvm.kernel, nvvm.reqntid = array<i32: 128, 1, 1>} {
  %bar = llvm.mlir.addressof @barrier : !llvm.ptr<3>
  %count = llvm.mlir.constant(128 : i32) : i32
  nvvm.mbarrier.init %bar, %count : !llvm.ptr<3>, i32
  nvvm.fence.mbarrier.init
  nvvm.wgmma.fence.aligned
  nvvm.wgmma.commit.group.sync.aligned
  nvvm.wgmma.wait.group.sync.aligned 0
  llvm.return
}
"""

# A device function the optimizer must keep out of line: ptxas reports its
# properties after the kernel's.
NOINLINE = """\
llvm.func @square(%x: f32) -> f32 attributes {no_inline} {
  %y = llvm.fmul %x, %x : f32
  llvm.return %y : f32
}
llvm.func @calls_square(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
  %x = llvm.load %p : !llvm.ptr<1> -> f32
  %y = llvm.call @square(%x) : (f32) -> f32
  llvm.store %y, %p : f32, !llvm.ptr<1>
  llvm.return
}
"""

EM_CUDA = 190  # ELF e_machine of a cubin


def spilling_kernel(values: int) -> str:
    """A kernel holding `values` floats live at once: every load comes before
    the first store, which may alias it."""
    lines = ["llvm.func @spills(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {"]
    for i in range(values):
        lines += [f"  %c{i} = llvm.mlir.constant({i} : i64) : i64",
                  f"  %a{i} = llvm.getelementptr %p[%c{i}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f32",
                  f"  %x{i} = llvm.load volatile %a{i} : !llvm.ptr<1> -> f32"]
    for i in range(values):
        lines += [f"  %y{i} = llvm.fmul %x{i}, %x{values - 1 - i} : f32",
                  f"  llvm.store volatile %y{i}, %a{i} : f32, !llvm.ptr<1>"]
    lines += ["  llvm.return", "}"]
    return "\n".join(lines) + "\n"


def compile_to_ptx(mlir: str, name: str = "kernel.mlir", cc: int = 90) -> str:
    return target.to_ptx(target.to_llvm_ir(mlir, name, cc), cc)


@pytest.fixture(scope="module")
def ptxas():
    """Skip where no CUDA toolkit is found (the search is the product's)."""
    try:
        target.to_cubin(compile_to_ptx(KERNELS))
    except IRError as e:
        if "not found" in str(e):
            pytest.skip(f"no ptxas: {e}")
        raise


def elf_machine(binary: bytes) -> int:
    assert binary[:4] == b"\x7fELF", binary[:16]
    return struct.unpack_from("<H", binary, 18)[0]


def test_llvm_ir_targets_nvptx_and_inlines_device_functions():
    llvm_ir = target.to_llvm_ir(KERNELS, "kernel.mlir")
    assert 'target triple = "nvptx64-nvidia-cuda"' in llvm_ir
    assert "define ptx_kernel void @scale(" in llvm_ir
    assert "@twice" not in llvm_ir
    assert '!"nvvm-reflect-ftz", i32 0}' in llvm_ir


def test_ptx_for_sm90a():
    ptx = compile_to_ptx(KERNELS)
    assert ".version 9.0\n.target sm_90a\n.address_size 64" in ptx
    assert ".visible .entry scale(" in ptx
    for instruction in ("ld.global", "shfl.sync.bfly.b32", "bar.sync", "st.global"):
        assert instruction in ptx, instruction


def test_ptx_for_another_architecture():
    ptx = compile_to_ptx(KERNELS, cc=80)
    assert ".target sm_80\n" in ptx


def test_cubin_is_a_cuda_elf(ptxas):
    cubin, log = target.to_cubin(compile_to_ptx(KERNELS))
    assert isinstance(cubin, bytes) and elf_machine(cubin) == EM_CUDA
    assert "Compiling entry function 'scale' for 'sm_90a'" in log


def test_hopper_instructions_assemble(ptxas):
    ptx = compile_to_ptx(HOPPER)
    assert "wgmma.fence.sync.aligned" in ptx and "mbarrier.init.shared.b64" in ptx
    cubin, log = target.to_cubin(ptx)
    assert elf_machine(cubin) == EM_CUDA
    (info,) = target.parse_ptxas_log(log).values()
    assert info["shared"] == 8  # the mbarrier


def test_parse_ptxas_log_reads_registers_and_skips_device_functions(ptxas):
    _, log = target.to_cubin(compile_to_ptx(NOINLINE))
    assert "Function properties for square" in log  # kept out of line
    info = target.parse_ptxas_log(log)
    assert list(info) == ["calls_square"]
    assert 1 <= info["calls_square"]["registers"] <= 255
    assert info["calls_square"]["spill_stores"] == 0


def test_register_cap_spills(ptxas):
    ptx = compile_to_ptx(spilling_kernel(61))
    _, free = target.to_cubin(ptx)
    _, capped = target.to_cubin(ptx, max_registers=24)
    free, capped = target.parse_ptxas_log(free)["spills"], target.parse_ptxas_log(capped)["spills"]
    assert free["registers"] > 24 and free["spill_stores"] == 0
    assert capped["registers"] <= 24
    assert capped["spill_stores"] > 0 and capped["spill_loads"] > 0
    assert capped["stack_frame"] > 0


def test_min_ctas_per_sm_goes_on_the_named_kernel_once():
    ptx = compile_to_ptx(KERNELS)
    relaxed = target.with_min_ctas_per_sm(ptx, "scale")
    entry = relaxed.index(".visible .entry scale(")
    body = relaxed.index("\n{", entry)
    assert relaxed[:body].endswith("\n.minnctapersm 1")
    assert relaxed.replace("\n.minnctapersm 1", "", 1) == ptx
    assert target.with_min_ctas_per_sm(relaxed, "scale") is None  # already says
    assert target.with_min_ctas_per_sm(ptx, "no_such_kernel") is None


def test_parse_ptxas_log_of_several_kernels():
    log = textwrap.dedent("""\
        ptxas info    : 0 bytes gmem
        ptxas info    : Compiling entry function 'a' for 'sm_90a'
        ptxas info    : Function properties for a
            16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
        ptxas info    : Used 168 registers, used 1 barriers, 49152 bytes smem
        ptxas info    : (C7514) Potential Performance Loss: wgmma.mma_async instructions are serialized due to non wgmma instructions reading accumulator registers of  a wgmma between start and end of the pipeline stage in the function 'a'
        ptxas info    : Compiling entry function 'b' for 'sm_90a'
        ptxas info    : Function properties for b
            0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
        ptxas info    : Used 10 registers, 368 bytes cmem[0]
        """)
    assert target.parse_ptxas_log(log) == {
        "a": {"registers": 168, "spill_stores": 8, "spill_loads": 12,
              "shared": 49152, "stack_frame": 16, "barriers": 1, "wgmma_serialized": 1},
        "b": {"registers": 10, "spill_stores": 0, "spill_loads": 0,
              "shared": 0, "stack_frame": 0, "barriers": 0, "wgmma_serialized": 0},
    }


def test_malformed_ptx_raises_ptxas_message(ptxas):
    ptx = compile_to_ptx(KERNELS).replace("\tret;", "\tfrobnicate.b32 %r1;\n\tret;")
    with pytest.raises(IRError) as info:
        target.to_cubin(ptx)
    message = str(info.value)
    assert "ptxas failed with exit status" in message
    assert "Not a name of any known instruction: 'frobnicate'" in message
    assert "<ptx>, line" in message  # the temporary file's name is hidden


def test_ptxas_path_pointing_nowhere():
    with pytest.raises(IRError) as info:
        target.to_cubin(compile_to_ptx(KERNELS), ptxas_path="/nonexistent/bin/ptxas")
    assert "ptxas not found at '/nonexistent/bin/ptxas'" in str(info.value)


def run_without_cuda(code: str) -> subprocess.CompletedProcess:
    """Runs `code` with no CUDA toolkit to be found: CUDA_HOME, CUDA_PATH and
    PATH emptied, /usr/local/cuda hidden in a private mount namespace."""
    unshare, mount = shutil.which("unshare"), shutil.which("mount")
    if unshare is None or mount is None:
        pytest.skip("needs unshare and mount to hide /usr/local/cuda")
    env = {k: v for k, v in os.environ.items() if k not in ("CUDA_HOME", "CUDA_PATH")}
    env.update(PATH="/nonexistent", CUDA_HOME="", PYTHONPATH=os.path.join(REPO, "python"))
    hide = f"{mount} -t tmpfs none /usr/local/cuda 2>/dev/null || [ ! -e /usr/local/cuda ]"
    proc = subprocess.run(
        [unshare, "--user", "--map-root-user", "--mount", "/bin/sh", "-c",
         f'{hide} || exit 77; exec "$0" -c "$1"', sys.executable, code],
        capture_output=True, text=True, env=env, timeout=120)
    if proc.returncode == 77 or "unshare failed" in proc.stderr:
        pytest.skip(f"cannot hide /usr/local/cuda here: {proc.stderr.strip()}")
    return proc


def test_ptxas_not_found_says_where_it_looked():
    proc = run_without_cuda(textwrap.dedent("""\
        from warpforge.compiler import target
        from warpforge.errors import IRError
        try:
            target.to_cubin(".version 9.0\\n.target sm_90a\\n.address_size 64\\n")
        except IRError as e:
            print(e)
        """))
    assert proc.returncode == 0, proc.stderr
    assert ("ptxas (CUDA's PTX assembler) not found; searched $CUDA_HOME/bin (unset), "
            "$CUDA_PATH/bin (unset), PATH, /usr/local/cuda/bin. Set CUDA_HOME to a CUDA 13 "
            "toolkit, or put its ptxas on PATH") in proc.stdout


def test_libdevice_not_found_is_reported_at_the_call():
    proc = run_without_cuda(textwrap.dedent("""\
        from warpforge.compiler import target
        from warpforge.errors import IRError
        kernel = '''llvm.func @__nv_expf(f32) -> f32
        llvm.func @k(%p: !llvm.ptr<1>) attributes {nvvm.kernel} {
          %x = llvm.load %p : !llvm.ptr<1> -> f32
          %y = llvm.call @__nv_expf(%x) : (f32) -> f32
          llvm.store %y, %p : f32, !llvm.ptr<1>
          llvm.return
        }'''
        try:
            target.to_llvm_ir(kernel, "exp.mlir")
        except IRError as e:
            (d,) = e.errors
            print(d.file, d.line, d.message)
        """))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        "exp.mlir 1 '__nv_expf' is a libdevice function, but CUDA's libdevice "
        "(libdevice.10.bc) not found; searched $CUDA_HOME (unset), $CUDA_PATH (unset), "
        "ptxas on PATH (not found), nvcc on PATH (not found), "
        "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc. Set CUDA_HOME"), proc.stdout


def test_translation_error_is_located_at_the_op():
    with pytest.raises(IRError) as info:
        target.to_llvm_ir("func.func @f() {\n  return\n}\n", "host.mlir")
    (d,) = info.value.errors
    assert (d.file, d.line, d.column) == ("host.mlir", 1, 1)
    assert "cannot be converted to LLVM IR" in d.message


def test_a_missing_instruction_is_an_error_not_a_crash():
    # sm_80 has no wgmma: LLVM's instruction selector gives up with a fatal
    # error, which comes back as an exception; the process goes on compiling.
    llvm_ir = target.to_llvm_ir(HOPPER, "hopper.mlir", cc=80)
    with pytest.raises(IRError) as info:
        target.to_ptx(llvm_ir, cc=80)
    assert "LLVM's NVPTX backend failed: Cannot select: intrinsic %llvm.nvvm." in str(info.value)
    assert ".entry hopper(" in compile_to_ptx(HOPPER)


def test_bad_llvm_ir_is_located_in_its_buffer():
    with pytest.raises(IRError) as info:
        target.to_ptx("define void @k() {\n  ret i32 0\n}\n")
    (d,) = info.value.errors
    assert (d.file, d.line) == ("<llvm-ir>", 2)
    assert "value doesn't match function result type 'void'" in d.message


def test_unknown_compute_capability():
    with pytest.raises(IRError, match=r"compute capability 91 \(sm_91a\) is not an architecture"):
        target.to_llvm_ir(KERNELS, "kernel.mlir", cc=91)


@pytest.mark.parametrize("registers", [-1, 256])
def test_register_cap_out_of_range(registers):
    with pytest.raises(IRError, match=f"register cap {registers} is out of range"):
        target.to_cubin(compile_to_ptx(KERNELS), max_registers=registers)


def test_compiles_in_parallel_threads(ptxas):
    results, errors = [], []

    def work(cc):
        try:
            ptx = compile_to_ptx(KERNELS, cc=cc)
            cubin, _ = target.to_cubin(ptx, cc=cc)
            results.append((cc, ptx, elf_machine(cubin)))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(cc,)) for cc in (80, 90) * 4]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert {machine for _, _, machine in results} == {EM_CUDA}
    for cc in (80, 90):
        assert len({ptx for c, ptx, _ in results if c == cc}) == 1


def test_stale_ptxas_temporaries_are_removed(tmp_path, monkeypatch):
    """Files a killed ptxas run left behind (over an hour old) go at the
    next process's first assembly; fresh ones (another process's run) stay."""
    import os
    import tempfile
    from warpforge.compiler import target as target_module
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(target_module, "_swept", False)
    old = tmp_path / "warpforge-abc123.ptx"
    new = tmp_path / "warpforge-def456.cubin"
    other = tmp_path / "unrelated.ptx"
    for f in (old, new, other):
        f.write_text("x")
    os.utime(old, (1, 1))
    os.utime(other, (1, 1))
    target_module._remove_stale_temporaries()
    assert not old.exists() and new.exists() and other.exists()


def test_llvm_ir_and_ptx_in_one_call_equal_the_two_steps():
    """The JIT's single call keeps the LLVM module in memory; its IR and PTX
    are those of to_llvm_ir then to_ptx, and its errors are located alike."""
    llvm_ir, ptx = target.to_llvm_ir_and_ptx(KERNELS, "kernel.mlir")
    assert llvm_ir == target.to_llvm_ir(KERNELS, "kernel.mlir")
    assert ptx == target.to_ptx(llvm_ir)
    _, ptx80 = target.to_llvm_ir_and_ptx(KERNELS, "kernel.mlir", cc=80)
    assert ".target sm_80\n" in ptx80
    with pytest.raises(IRError) as info:
        target.to_llvm_ir_and_ptx("func.func @f() {\n  return\n}\n", "host.mlir")
    (d,) = info.value.errors
    assert (d.file, d.line, d.column) == ("host.mlir", 1, 1)


def test_the_jits_last_stage_goes_on_to_ptx_in_memory(monkeypatch):
    """ir.run_stage_to_ptx: the pipeline's output as run_stage prints it,
    with the LLVM IR and PTX to_llvm_ir_and_ptx makes of that output, and
    each step's time; a failing pipeline raises as run_stage does,
    attributes included."""
    monkeypatch.setenv("WARPFORGE_ALWAYS_COMPILE", "1")  # compile_ms of this compile
    import numpy as np
    import warpforge
    import warpforge.language as tl
    from warpforge import ir
    from warpforge.compiler.options import KernelOptions

    @warpforge.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

    # The target helpers take no options: the kernel is compiled with theirs
    # (no fusion, denormals kept).
    plain = {"enable_fp_fusion": False, "enable_reflect_ftz": False}
    k = scale.warmup(np.zeros(64, np.float32), 64, BLOCK=64, grid=(1,), **plain)
    options = KernelOptions(**plain).to_core(90)
    text, attributes = ir.run_stage(k.asm["tilegpu"], "tilegpu-to-llvm", options, "s.mlir")
    warned = []
    text2, attributes2, llvm_ir, ptx = ir.run_stage_to_ptx(
        k.asm["tilegpu"], "tilegpu-to-llvm", options, "s.mlir", warnings=warned)
    assert (text2, attributes2, warned) == (text, attributes, [])
    assert (llvm_ir, ptx) == target.to_llvm_ir_and_ptx(text, "s.mlir")
    assert (llvm_ir, ptx) == (k.asm["llir"], k.asm["ptx"])
    # Where the compile time went: every stage and step, in order.
    times = {}
    ir.run_stage_to_ptx(k.asm["tilegpu"], "tilegpu-to-llvm", options, "s.mlir", times=times)
    assert list(times) == ["parse", "passes", "print", "translate", "link-libdevice",
                           "optimize", "print-llvm-ir", "emit-ptx"]
    assert all(ms >= 0 for ms in times.values())
    compile_ms = k.metadata["compile_ms"]
    assert list(compile_ms) == ["frontend", "tile", "tilegpu-converted", "tilegpu"] + [
        f"llvm-dialect:{step}" for step in times] + ["ptxas"]
    assert compile_ms["ptxas"] > 0 and compile_ms["llvm-dialect:emit-ptx"] > 0
    with pytest.raises(IRError) as info:
        ir.run_stage_to_ptx("module {\n  tile.func public @k() {\n    tile.return\n  }\n}\n",
                            "tilegpu-to-llvm", options, "bad.mlir")
    assert "tilegpu-to-llvm" in str(info.value)


def test_ptxas_temporaries_of_a_process_that_is_gone_go_at_once(tmp_path, monkeypatch):
    """Temporaries named with their process's tag (_process.process_tag()) go
    at the next sweep as soon as that process is gone, not an hour later;
    those of a live process (this one), of another machine or PID
    namespace, and untagged fresh ones stay."""
    import tempfile
    from warpforge import _process
    from warpforge.compiler import target as target_module
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(target_module, "_swept", False)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_tag = _process.process_tag().replace(f"p{os.getpid()}.", f"p{int(dead.stdout)}.")
    gone = [tmp_path / f"warpforge-{dead_tag}-a1b2c3.{s}" for s in ("ptx", "cubin", "log")]
    live = tmp_path / f"warpforge-{_process.process_tag()}-d4e5f6.ptx"
    elsewhere = tmp_path / f"warpforge-{dead_tag[:-8]}00000000-a1b2c3.ptx"
    untagged = tmp_path / "warpforge-0a1b2c.ptx"
    for f in (*gone, live, elsewhere, untagged):
        f.write_text("x")
    target_module._remove_stale_temporaries()
    assert not any(f.exists() for f in gone)
    assert live.exists() and elsewhere.exists() and untagged.exists()


def _setpriv_kills_on_parent_death() -> bool:
    setpriv, true = shutil.which("setpriv"), shutil.which("true")
    if setpriv is None or true is None:
        return False
    return subprocess.run([setpriv, "--pdeathsig", "KILL", "--", true],
                          capture_output=True).returncode == 0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has died (its reaper may be slow)


@pytest.mark.skipif(not _setpriv_kills_on_parent_death(),
                    reason="needs util-linux's setpriv with --pdeathsig")
def test_ptxas_dies_with_the_process_compiling(tmp_path, monkeypatch):
    """A compiling process killed with SIGKILL (no chance to clean up) takes
    its ptxas with it: ptxas runs under `setpriv --pdeathsig KILL`. The
    stand-in ptxas (a fake CUDA home) sleeps instead of assembling. The
    PTX, cubin and log files the run leaves are named by the killed
    process, and the next sweep removes them at once."""
    real = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    if not os.path.exists(real) or not os.path.isdir("/usr/local/cuda/nvvm"):
        pytest.skip("needs CUDA's ptxas and /usr/local/cuda/nvvm (libdevice)")
    cuda = tmp_path / "cuda"
    (cuda / "bin").mkdir(parents=True)
    (cuda / "nvvm").symlink_to("/usr/local/cuda/nvvm")
    pidfile = tmp_path / "ptxas.pid"
    fake = cuda / "bin" / "ptxas"
    fake.write_text(textwrap.dedent(f"""\
        #!/bin/sh
        [ "$1" = --version ] && exec {real} --version
        echo $$ > {pidfile}.tmp && mv {pidfile}.tmp {pidfile}
        exec sleep 300
        """))
    fake.chmod(0o755)
    (tmp_path / "kernel_module.py").write_text(textwrap.dedent("""\
        import numpy as np
        import warpforge
        import warpforge.language as tl

        @warpforge.jit
        def kernel(x_ptr, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1.0)

        kernel.warmup(np.zeros(64, np.float32), BLOCK=64, grid=(1,))
        """))
    (tmp_path / "tmp").mkdir()
    env = dict(os.environ, CUDA_HOME=str(cuda), CUDA_PATH="", WARPFORGE_ALWAYS_COMPILE="1",
               WARPFORGE_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path / "tmp"),
               PYTHONPATH=os.path.join(REPO, "python"))
    env.pop("WARPFORGE_INTERPRET", None)
    child = subprocess.Popen([sys.executable, str(tmp_path / "kernel_module.py")], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    ptxas_pid = None
    try:
        deadline = time.monotonic() + 120
        while not pidfile.exists():
            if child.poll() is not None:
                pytest.fail(f"the compile ended before ptxas ran: {child.stdout.read()!r}")
            assert time.monotonic() < deadline, "the stand-in ptxas never started"
            time.sleep(0.05)
        ptxas_pid = int(pidfile.read_text())
        assert _alive(ptxas_pid)
        child.kill()
        child.wait(30)
        deadline = time.monotonic() + 5
        while _alive(ptxas_pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(ptxas_pid), "ptxas outlived the process that ran it"
        leftovers = sorted(f.name for f in (tmp_path / "tmp").iterdir()
                           if f.name.startswith("warpforge-"))
        assert {name.rsplit(".", 1)[1] for name in leftovers} == {"ptx", "cubin", "log"}
        assert all(name.startswith(f"warpforge-p{child.pid}.") for name in leftovers), leftovers
        import tempfile
        from warpforge.compiler import target as target_module
        monkeypatch.setattr(tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
        monkeypatch.setattr(target_module, "_swept", False)
        target_module._remove_stale_temporaries()
        assert not any(f.name.startswith("warpforge-") for f in (tmp_path / "tmp").iterdir())
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        if ptxas_pid is not None and _alive(ptxas_pid):
            os.kill(ptxas_pid, 9)
