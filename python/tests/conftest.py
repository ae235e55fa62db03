"""Shared fixtures: the repository root, the tcemu command line (the C++ library's own
front end, the reference these tests hold the bindings to) and a reader for golden files
written here in plain Python (json + hex), independent of the binding's reader."""

import json
import os
import subprocess

import numpy as np
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _cli_path():
    p = os.environ.get("TCEMU_CLI")
    if p:
        return p
    return os.path.join(ROOT, "build", "release", "tools", "cli", "tcemu")


@pytest.fixture(scope="session")
def cli():
    path = _cli_path()
    if not os.path.exists(path):
        if os.environ.get("TCEMU_CLI"):
            pytest.fail(f"TCEMU_CLI={path} does not exist")
        pytest.skip(f"the tcemu command line is not built ({path}); set TCEMU_CLI")

    def run(args, stdin="", check=True):
        r = subprocess.run([path] + list(args), input=stdin, capture_output=True, text=True)
        if check and r.returncode != 0:
            raise AssertionError(f"tcemu {' '.join(args)} exited {r.returncode}: {r.stderr}")
        return r

    return run


def hex_lines(codes, digits):
    return "".join(f"{int(c):0{digits}x}\n" for c in np.asarray(codes).reshape(-1))


def parse_hex_lines(text):
    return np.array([int(t, 16) for t in text.split()], dtype=np.uint64)


# ---- plain golden-file reading (inline hex arrays only) ---------------------------------

_DIGITS = {"f64": 16, "b64": 16, "f32": 8, "tf32": 8, "s32": 8, "b32": 8, "f16": 4, "bf16": 4, "b16": 4}


def raw_array(a):
    """The logical matrix (rows x cols, or a vector) of a golden JSON array given inline."""
    assert "hex" in a, "the test reader handles inline arrays only"
    digits = _DIGITS.get(a["type"], 2 if a["type"] not in ("e2m1", "s4", "u4") else 1)
    h = a["hex"]
    vals = np.array([int(h[i:i + digits], 16) for i in range(0, len(h), digits)], dtype=np.uint64)
    shape = json.loads(a["shape"]) if isinstance(a["shape"], str) else a["shape"]
    if len(shape) == 1:
        return vals
    rows, cols = shape
    if a.get("order", "row") == "col":
        return vals.reshape(cols, rows).T.copy()
    return vals.reshape(rows, cols)


def raw_cases(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)["cases"]


GOLDEN_SETS = os.path.join(ROOT, "golden", "sets")
