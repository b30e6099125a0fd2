"""Build warpforge: setup.py drives CMake, which builds the C++ core, the
tools and the pybind11 module; the module and the core library are copied
into the `warpforge` package.

The CMake build directory is `build/` in the repository (or
$WARPFORGE_BUILD_DIR), shared with `ninja -C build` and the lit suite, so
`pip install -e .` after a C++ change rebuilds only what changed.
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


def build_dir():
    return os.environ.get("WARPFORGE_BUILD_DIR", os.path.join(ROOT, "build"))


class CMakeBuild(build_ext):
    def copy_extensions_to_source(self):
        # Editable installs copy the module into python/warpforge; the core
        # library it links must sit beside it ($ORIGIN).
        super().copy_extensions_to_source()
        package_dir = self.get_finalized_command("build_py").get_package_dir("warpforge")
        shutil.copy2(os.path.join(build_dir(), "lib", "libwarpforge.so"),
                     os.path.join(package_dir, "libwarpforge.so"))

    def build_extension(self, ext):
        build_dir = globals()["build_dir"]()
        os.makedirs(build_dir, exist_ok=True)
        if not os.path.exists(os.path.join(build_dir, "build.ninja")):
            subprocess.check_call([
                "cmake", "-G", "Ninja", ROOT,
                "-DCMAKE_BUILD_TYPE=" + os.environ.get("WARPFORGE_BUILD_TYPE", "Release"),
                "-DPython3_EXECUTABLE=" + sys.executable,
            ], cwd=build_dir)
        jobs = os.environ.get("WARPFORGE_JOBS", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "--build", ".", "--", "-j", jobs], cwd=build_dir)

        dest = os.path.dirname(os.path.abspath(self.get_ext_fullpath(ext.name)))
        os.makedirs(dest, exist_ok=True)
        lib_dir = os.path.join(build_dir, "lib")
        module = "_C" + (self.get_ext_filename("_C")[len("_C"):])
        for name in (module, "libwarpforge.so"):
            shutil.copy2(os.path.join(lib_dir, name), os.path.join(dest, name))


setup(
    name="warpforge",
    version="0.1.0",
    description="An MLIR-based tile-language compiler for NVIDIA Hopper GPUs",
    package_dir={"": "python"},
    packages=find_packages("python"),
    ext_modules=[CMakeExtension("warpforge._C")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    zip_safe=False,
)
