"""Builds the Python package rdpkit (python/rdpkit) with its C++ extension through CMake.

    python3 -m pip install . --no-build-isolation

The build backend is setuptools and the C++ build is this repository's CMake project with
RDPKIT_BUILD_PYTHON=ON (pybind11 from Debian's pybind11-dev), so no package is downloaded.
RDPKIT_CMAKE_ARGS adds arguments to the CMake configure step, RDPKIT_BUILD_JOBS sets -j and
RDPKIT_PYTHON_BUILD_DIR the CMake build folder (default build-python/).
"""
import os
import pathlib
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        output_dir = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        # A persistent CMake folder (git-ignored), so a second install rebuilds only what changed.
        build_dir = pathlib.Path(os.environ.get("RDPKIT_PYTHON_BUILD_DIR",
                                                ROOT / "build-python")).resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
            "-DRDPKIT_BUILD_PYTHON=ON", "-DRDPKIT_BUILD_TESTS=OFF", "-DRDPKIT_BUILD_BENCH=OFF",
            "-DRDPKIT_BUILD_TOOLS=OFF", "-DRDPKIT_WERROR=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-DRDPKIT_PYTHON_OUTPUT_DIR={output_dir}",
        ]
        if subprocess.run(["ninja", "--version"], capture_output=True).returncode == 0:
            configure += ["-G", "Ninja"]
        configure += shlex.split(os.environ.get("RDPKIT_CMAKE_ARGS", ""))
        subprocess.run(configure, check=True)
        jobs = os.environ.get("RDPKIT_BUILD_JOBS", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_rdpkit", "-j", jobs],
                       check=True)


setup(
    name="rdpkit",
    version="0.1.0",
    description="Certified Renyi-DP accounting and private gradient-boosted trees",
    license="Apache-2.0",
    package_dir={"": "python"},
    packages=["rdpkit"],
    ext_modules=[CMakeExtension("rdpkit._rdpkit")],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    extras_require={"sklearn": ["scikit-learn", "pandas"], "plot": ["matplotlib"]},
    zip_safe=False,
)
