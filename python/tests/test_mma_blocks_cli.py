"""`tcemu mma --rows R0:R1 --cols C0:C1`: one block of D, so that any scheduler (Slurm array
jobs, MPI ranks) can split a GEMM over M and N. The blocks of a grid, stitched, are the whole D
bit for bit (a whole D computed by the same command without the flags); bad ranges exit 2."""

import json
import os

import numpy as np
import pytest

import tcemu
from dask_util import entry_kwargs, find, operands

E4M3 = find("sm_90a", lambda e: e["ptx"] == "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3")
NVFP4 = find("sm_100a", lambda e: "kind::mxf4nvf4" in e["ptx"] and "4X" in e["ptx"] and e["scale_type"] == "ue4m3")


def write(tmp_path, e, M, N, steps):
    ops = operands(e, M, N, steps, seed=M + N)
    files = {}
    for k, v in ops.items():
        if k == "b":
            v = v.T  # B is stored N x K (--order-b col, the default)
        if k == "scale_b":
            v = v.T  # scale_B is N x K/block
        files[k] = str(tmp_path / f"{k}.npy")
        np.save(files[k], np.ascontiguousarray(v))
    return ops, files


def args(e, files):
    kw = entry_kwargs(e)
    a = ["mma", "--arch", kw["arch"], "--instr", kw["instr"], "-q", files["a"], files["b"], files["c"]]
    for k in ("atype", "btype", "dtype", "stype"):
        if k in kw:
            a += [f"--{k}", kw[k]]
    if "scale_a" in files:
        a += ["--scale-a", files["scale_a"], "--scale-b", files["scale_b"]]
    return a


def load(path):
    """D's codes (the CLI writes f32 codes as float32 items, f16 as float16)."""
    d = np.load(path)
    return d.view({4: np.uint32, 2: np.uint16}[d.itemsize]) if d.dtype.kind == "f" else d


@pytest.mark.parametrize("e", [E4M3, NVFP4], ids=["e4m3", "nvfp4"])
def test_blocks_stitch_to_the_whole(cli, tmp_path, e):
    M, N = 70, 45
    ops, files = write(tmp_path, e, M, N, 3)
    whole = str(tmp_path / "D.npy")
    cli(args(e, files) + ["-o", whole])
    D = load(whole)
    assert np.array_equal(D, tcemu.mma(**ops, **entry_kwargs(e)))  # the CLI and the bindings agree
    rows, cols = ["0:17", "17:64", "64:"], [":8", "8:45"]
    stitched = np.zeros_like(D)
    for r in rows:
        for c in cols:
            out = str(tmp_path / f"D_{r}_{c}.npy".replace(":", "-"))
            cli(args(e, files) + ["--rows", r, "--cols", c, "-o", out])
            r0, r1 = (int(x) if x else d for x, d in zip(r.split(":"), (0, M)))
            c0, c1 = (int(x) if x else d for x, d in zip(c.split(":"), (0, N)))
            blk = load(out)
            assert blk.shape == (r1 - r0, c1 - c0)
            stitched[r0:r1, c0:c1] = blk
            side = json.load(open(out[:-4] + ".json"))
            assert side["block"] == {"rows": [r0, r1], "cols": [c0, c1], "of": {"M": M, "N": N}}
    assert np.array_equal(stitched, D)
    # rows alone, columns alone
    out = str(tmp_path / "rows.npy")
    cli(args(e, files) + ["--rows", "5:6", "-o", out])
    assert np.array_equal(load(out), D[5:6])
    cli(args(e, files) + ["--cols", "44:45", "--order-d", "col", "-o", out])
    assert np.array_equal(load(out), D[:, 44:45].T)


@pytest.mark.parametrize("flag,value,msg", [
    ("--rows", "5:3", "is empty"), ("--rows", "3:3", "is empty"), ("--rows", "0:71", "ends past D's 70 rows"),
    ("--cols", "0:46", "ends past D's 45 columns"), ("--rows", "a:b", "non-negative integers"),
    ("--rows", "-1:4", "non-negative integers"), ("--cols", "1:2:3", "is not a range"), ("--cols", "7", "is not a range"),
    ("--rows", "99999999999:", "non-negative integers"),
])
def test_bad_ranges_exit_2(cli, tmp_path, flag, value, msg):
    _, files = write(tmp_path, E4M3, 70, 45, 1)
    out = str(tmp_path / "D.npy")
    r = cli(args(E4M3, files) + [flag, value, "-o", out], check=False)
    assert r.returncode == 2, r.stderr
    assert flag in r.stderr and msg in r.stderr, r.stderr
    assert not os.path.exists(out)
