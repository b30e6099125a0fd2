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
# The NVPTX backend looks for the CUDA toolkit through these.
for variable in ("CUDA_HOME", "CUDA_PATH"):
    if os.environ.get(variable):
        config.environment[variable] = os.environ[variable]


def cuda_toolkit_roots():
    """Where the NVPTX backend looks for CUDA's toolkit, in its order
    (third_party/nvidia/lib/Target/CudaToolkit.cpp)."""
    roots = [os.environ.get(v) for v in ("CUDA_HOME", "CUDA_PATH")]
    for tool in ("ptxas", "nvcc"):
        found = shutil.which(tool, path=config.environment["PATH"])
        if found:
            roots.append(os.path.dirname(os.path.dirname(os.path.realpath(found))))
    roots.append("/usr/local/cuda")
    return [r for r in roots if r]


# `REQUIRES: libdevice`: tests whose kernels call CUDA's libdevice.
if any(os.path.isfile(os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc"))
       for root in cuda_toolkit_roots()):
    config.available_features.add("libdevice")


# `REQUIRES: ptxas`: tests that assemble the PTX they emit (%ptxas).
for root in cuda_toolkit_roots():
    ptxas = os.path.join(root, "bin", "ptxas")
    if os.path.isfile(ptxas):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))
        break
