# lit configuration for warpforge.  Runs against a build directory:
# $WARPFORGE_BUILD_DIR, or build/ beside this folder.  `lit -v test/` from the
# repository root works without any configure-time step.

import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "warpforge"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["lit.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(config.test_source_root)

build_dir = os.environ.get("WARPFORGE_BUILD_DIR", os.path.join(repo_root, "build"))
tools_dir = os.path.join(build_dir, "bin")
config.test_exec_root = os.path.join(build_dir, "test")


def llvm_bindir():
    for cfg in ("llvm-config-22", "llvm-config"):
        exe = shutil.which(cfg)
        if exe:
            return subprocess.check_output([exe, "--bindir"], text=True).strip()
    return "/usr/lib/llvm-22/bin"


opt = os.path.join(tools_dir, "warpforge-opt")
if not os.path.exists(opt):
    lit_config.fatal(f"warpforge-opt not found at {opt}: build first "
                     "(or set WARPFORGE_BUILD_DIR)")

llvm_bin = llvm_bindir()
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%repo", repo_root))
# The build's tools, then LLVM's (FileCheck, not), come first on PATH so that
# a stale binary elsewhere is never picked up.
for tool in (os.path.join(llvm_bin, "FileCheck"), os.path.join(llvm_bin, "not")):
    if not os.path.exists(tool):
        lit_config.fatal(f"{tool} not found: install llvm-22-tools")
config.environment["PATH"] = os.pathsep.join(
    [tools_dir, llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
config.environment["FILECHECK_OPTS"] = "--dump-input=fail"
