"""Reading a compiled kernel's SASS (GPU tests): the disassembler and the
checks every wgmma kernel's SASS must pass."""

import re
import shutil
import subprocess

import pytest

needs_disassembler = pytest.mark.skipif(
    not (shutil.which("cuobjdump") or shutil.which("nvdisasm")),
    reason="needs cuobjdump or nvdisasm")


def disassemble(cubin: bytes, tmp_path) -> str:
    path = tmp_path / "kernel.cubin"
    path.write_bytes(cubin)
    if shutil.which("cuobjdump"):
        argv = ["cuobjdump", "-sass", str(path)]
    else:
        argv = ["nvdisasm", str(path)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"{' '.join(argv)} failed: {proc.stderr}"
    return proc.stdout


def check_sass(k, what, opcode, tmp_path):
    """wgmma in `k`'s PTX, `opcode` in its SASS, no local memory, no
    serialized wgmma pipeline.  Returns the SASS."""
    assert "wgmma.mma_async" in k.asm["ptx"], f"{what}: no wgmma in the PTX"
    sass = disassemble(k.asm["cubin"], tmp_path)
    assert opcode in sass, f"{what}: no {opcode} in the SASS"
    log = k.metadata.get("ptxas_log", "")
    assert "spill_stores" in k.metadata, f"{what}: no ptxas figures for the kernel:\n{log}"
    assert k.metadata["spill_stores"] == 0 and k.metadata["spill_loads"] == 0, \
        f"{what}: ptxas spills:\n{log}"
    local = re.findall(r"^.*\b(?:STL|LDL)\b.*$", sass, re.MULTILINE)
    assert not local, f"{what}: local-memory accesses in the SASS:\n" + "\n".join(local[:10])
    assert k.n_spills == 0, f"{what}: {k.n_spills} bytes of local memory per thread"
    # ptxas C7514/C7515: it serialized the wgmma pipeline (e.g. because
    # non-wgmma instructions touch accumulator registers while a product is
    # in flight), which costs the overlap of consecutive products.
    assert "serialized" not in log, f"{what}: ptxas serialized the wgmma pipeline:\n{log}"
    return sass
