"""`tcemu gemm` (the command line) against tcemu.gemm, which test_gemm.py checks against an
exact evaluation of each plan and epilogue: the same D codes for the same plan, storage orders
and epilogue inputs; the side file records the plan; bad input exits 2 with a message."""

import json

import numpy as np
import pytest

import tcemu
from test_gemm import ARCH, FP8, fp8_operands


@pytest.fixture
def operands(tmp_path):
    rng = np.random.default_rng(21)
    A, B = fp8_operands(rng, 6, 320, 8)
    C = (rng.standard_normal((6, 8)) * 9).astype(np.float32)
    rows = (rng.random(6) + 0.25).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    np.save(tmp_path / "A.npy", A)
    np.save(tmp_path / "B.npy", np.ascontiguousarray(B.T))  # column order: stored N x K
    np.save(tmp_path / "C.npy", C.view(np.uint32))
    np.save(tmp_path / "rows.npy", rows)
    np.save(tmp_path / "bias.npy", bias)
    return A, B, C, rows, bias


CASES = [
    (["--plan", "cublaslt-bitequiv", "--split-k", "3", "--a-scale", "rows.npy", "--b-scale", "0.5", "--bias", "bias.npy",
      "--out-type", "e4m3", "--satfinite"],
     dict(plan="cublaslt-bitequiv", split_k=3, a_scale="rows", b_scale=np.float32(0.5), bias="bias", out_type="e4m3",
          satfinite=True)),
    (["--plan", "cutlass-serial", "--split-k", "4", "--grain", "32", "--alpha", "0.75", "--beta", "-2", "--out-type", "bf16"],
     dict(plan="cutlass-serial", split_k=4, grain=32, alpha=0.75, beta=-2.0, out_type="bf16", c=True)),
    (["--chunks", "64,0,256", "--plan", "f32-tree", "--epilogue", "cutlass-sm90", "--bias", "bias.npy", "--out-type", "f16"],
     dict(chunks=[64, 0, 256], plan="f32-tree", epilogue="cutlass-sm90", bias="bias", out_type="f16")),
]


@pytest.mark.parametrize("args,kw", CASES)
def test_cli_matches_python(cli, tmp_path, operands, args, kw):
    A, B, C, rows, bias = operands
    kw = dict(kw)
    use_c = kw.pop("c", False)
    if kw.get("a_scale") == "rows":
        kw["a_scale"] = rows
    if kw.get("bias") == "bias":
        kw["bias"] = bias
    want = tcemu.gemm(A, B, C if use_c else None, arch=ARCH, instr=FP8["ptx"], **kw)
    cmd = ["gemm", "--arch", ARCH, "--instr", FP8["ptx"], str(tmp_path / "A.npy"), str(tmp_path / "B.npy")]
    if use_c:
        cmd.append(str(tmp_path / "C.npy"))
    cmd += [str(tmp_path / a) if a.endswith(".npy") else a for a in args] + ["-o", str(tmp_path / "D.npy"), "-q"]
    cli(cmd)
    got = np.load(tmp_path / "D.npy")  # the golden files' dtypes (f32 <f4, f16 <f2): compare bits
    assert got.dtype.itemsize == want.dtype.itemsize and np.array_equal(got.view(want.dtype), want)
    side = json.loads((tmp_path / "D.json").read_text())
    assert side["plan"]["combine"] == {"cublaslt-bitequiv": "f32-forward"}.get(kw["plan"], kw["plan"])
    assert sum(side["plan"]["chunks"]) == 320
    for t in ("1", "3"):
        cli(["--threads", t] + cmd[:-3] + ["-o", str(tmp_path / f"D{t}.npy"), "-q"])
        assert np.array_equal(np.load(tmp_path / f"D{t}.npy").view(want.dtype), want)


@pytest.mark.parametrize("args,msg", [
    (["--split-k", "2", "--chunks", "160,160"], "give one of them"),
    (["--chunks", "100,220"], "not a multiple"),
    (["--chunks", "a,b"], "not a K size"),
    (["--plan", "cutlass-parallel", "--split-k", "2"], "give grain"),
    (["--plan", "nope"], "unknown plan"),
    (["--epilogue", "nope"], "unknown epilogue"),
    (["--alpha", "x"], "not a number"),
    (["--out-type", "tf32"], "out_type"),
    (["--out-round", "rs"], "random bits"),
    (["--a-scale", "A.npy"], "a-scale"),
    (["--bias", "rows.npy"], "bias"),
    (["--bias-type", "bf16"], "without --bias"),
    (["--split-k", "2000"], "split_k"),
    (["--split-k", "0"], "split_k"),
    (["--split-k", "-1"], "split_k"),
    (["--split-k", "2", "--grain", "0"], "grain"),
])
def test_cli_bad_input(cli, tmp_path, operands, args, msg):
    cmd = ["gemm", "--arch", ARCH, "--instr", FP8["ptx"], str(tmp_path / "A.npy"), str(tmp_path / "B.npy")]
    cmd += [str(tmp_path / a) if a.endswith(".npy") else a for a in args] + ["-o", str(tmp_path / "D.npy")]
    r = cli(cmd, check=False)
    assert r.returncode == 2, r.stderr
    assert msg in r.stderr
    assert "terminate" not in r.stderr
