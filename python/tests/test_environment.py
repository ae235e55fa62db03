"""The test environment is the one requirements.txt pins, and the extension module was built
with its pybind11 (CMakeLists.txt asks `"$(scripts/venv.sh)/bin/python" -m pybind11 --cmakedir`;
docs/python.md, "Build and install"): NumPy 2 arrays are read by a pybind11 that knows them."""

import os
import re

import numpy as np

import tcemu

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _pin(name):
    with open(os.path.join(ROOT, "requirements.txt")) as f:
        for line in f:
            m = re.match(rf"{re.escape(name)}==(\S+)", line.strip(), re.I)
            if m:
                return m.group(1)
    raise AssertionError(f"requirements.txt pins no {name}")


def test_numpy_is_the_pinned_one():
    assert np.__version__ == _pin("numpy")


def test_module_built_with_the_pinned_pybind11():
    assert tcemu._tcemu._pybind11_version == _pin("pybind11")


def test_numpy2_arrays_round_trip():
    # with a pybind11 that reads only NumPy 1's descriptors every element would be 0 bytes wide
    codes = np.arange(0, 256, dtype=np.uint8)
    back = tcemu.convert(tcemu.convert(codes, "e4m3", "f32"), "f32", "e4m3")
    nan = (codes & 0x7f) == 0x7f
    assert np.array_equal(back[~nan], codes[~nan])
