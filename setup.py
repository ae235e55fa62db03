"""Builds the extension module tcemu._tcemu with the project's CMake build (target
tcemu_python) for `pip install .`; the pure-Python files come from python/tcemu.
The emulator on a CUDA GPU (device="cuda", docs/gpu-emulation.md) is left out unless the
environment says TCEMU_ENABLE_CUDA=AUTO or ON (the CMake option of that name). Tests, tools
and benchmarks are off, so the build needs neither Boost nor CLI11."""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.path.join(os.path.abspath(self.build_temp), "cmake")
        os.makedirs(build, exist_ok=True)
        # pybind11: the building interpreter's own when it has one (pip install pybind11, or
        # the test environment's), else the one CMake finds (CMakeLists.txt).
        try:
            import pybind11
            pyb = ["-DTCEMU_PYBIND11_FROM_VENV=OFF", f"-Dpybind11_DIR={pybind11.get_cmake_dir()}"]
        except ImportError:
            pyb = []
        subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                               "-DTCEMU_BUILD_TESTS=OFF", "-DTCEMU_BUILD_BENCH=OFF", "-DTCEMU_BUILD_TOOLS=OFF",
                               "-DTCEMU_ENABLE_CUDA=" + os.environ.get("TCEMU_ENABLE_CUDA", "OFF"),
                               f"-DPython3_EXECUTABLE={sys.executable}", *pyb])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", build, "--target", "tcemu_python", "-j", jobs])
        built = os.path.join(build, "python", "tcemu")
        module = next(f for f in os.listdir(built) if f.startswith("_tcemu") and f.endswith(".so"))
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(built, module), dest)


setup(ext_modules=[Extension("tcemu._tcemu", sources=[])], cmdclass={"build_ext": CMakeBuild})
