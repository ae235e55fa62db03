"""`import tcemu` needs no torch: Debian's /usr/bin/python3 (NumPy, no torch) imports the package
and computes; `import tcemu.torch` there fails with a message that says what to install."""

import os
import subprocess

import pytest

from conftest import ROOT

PY = "/usr/bin/python3"


@pytest.mark.skipif(not os.path.exists(PY), reason="needs Debian's /usr/bin/python3")
def test_import_tcemu_without_torch():
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__import__("tcemu").__file__)))
    code = ("import importlib.util, sys\n"
            "assert importlib.util.find_spec('torch') is None, 'this interpreter has torch'\n"
            "import tcemu, numpy as np\n"
            "print(int(tcemu.encode([465.0], 'e4m3', satfinite=True)[0]))\n"
            "try:\n    import tcemu.torch\nexcept ImportError as e:\n    print(e)\n")
    r = subprocess.run([PY, "-c", code], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": pkg},
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "126"
    assert "tcemu.torch needs PyTorch" in lines[1]
