"""Run LLVM's FileCheck on text from Python tests."""

import os
import shutil
import subprocess


def _filecheck() -> str:
    for cfg in ("llvm-config-22", "llvm-config"):
        exe = shutil.which(cfg)
        if exe:
            path = os.path.join(subprocess.check_output([exe, "--bindir"], text=True).strip(),
                                "FileCheck")
            if os.path.exists(path):
                return path
    path = shutil.which("FileCheck")
    if not path:
        raise RuntimeError("FileCheck not found: install llvm-22-tools")
    return path


def filecheck(text: str, checks: str, tmp_path) -> None:
    """Asserts that `text` matches the CHECK lines in `checks`."""
    check_file = tmp_path / "checks.txt"
    check_file.write_text(checks)
    proc = subprocess.run([_filecheck(), str(check_file), "--dump-input=fail"], input=text,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
