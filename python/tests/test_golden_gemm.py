"""Golden cases of op gemm (docs/golden.md): golden/sets/gemm_plans.json read by tcemu.golden
(against the file's own JSON read here), recomputed by tcemu.gemm with the recorded plan and,
where its definitions reach (finite operands, round to nearest), by the exact evaluation of
test_gemm.py (fractions, independent of the C++ code); `tcemu golden gen` with the plan options
(against tcemu.gemm), `tcemu golden check`, `tcemu compare` naming a split-K stand-in, and bad
input (exit 2)."""

import json
import os

import numpy as np
import pytest

import tcemu
from conftest import GOLDEN_SETS, raw_array, raw_cases
import test_gemm

PLANS = os.path.join(GOLDEN_SETS, "gemm_plans.json")
WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"


def _f32(bits):
    return float(np.asarray(bits, np.uint32).view(np.float32))


def test_load_reads_what_the_file_says():
    f = tcemu.golden.load(PLANS)
    raw = raw_cases(PLANS)
    assert len(f.cases) == len(raw) >= 10
    for c, r in zip(f.cases, raw):
        assert c.name == r["name"] and c.op == "gemm"
        s, p, e = c.spec, r["plan"], r["epilogue"]
        assert s["schedule"] == p["schedule"]
        assert s["chunks"] == p.get("chunks", [])
        assert s["combine"] == p.get("combine")
        assert s["preset"] == p.get("preset") and s["split_k"] == p.get("split_k") and s["grain"] == p.get("grain")
        assert s["epilogue"] == e["order"] and s["out_type"] == e["out_type"] and s["out_round"] == e["out_round"]
        assert s["satfinite"] == e["satfinite"]
        assert s["alpha"] == int(e["alpha"], 16) and s["beta"] == int(e["beta"], 16)
        for k, a in r["operands"].items():
            assert np.array_equal(c.operands[k].astype(np.uint64), raw_array(a)), (c.name, k)
        assert np.array_equal(c.expected.astype(np.uint64), raw_array(r["expected"]["D"]))
        assert c.expected_type == e["out_type"]


def test_tcemu_gemm_reproduces_every_case():
    for c in tcemu.golden.load(PLANS).cases:
        d = tcemu.gemm(**tcemu.golden.gemm_args(c))
        assert np.array_equal(d.astype(np.uint64), c.expected.astype(np.uint64)), c.name
        assert np.array_equal(c.evaluate(), c.expected), c.name


def _exact_reaches(c):
    """test_gemm.expected: finite values (the distribution normal), f32 partials, round to nearest,
    no block scales."""
    gen = tcemu.golden.provenance(c)["generator"]
    s = c.spec
    return s["dtype"] == "f32" and s["out_round"] == "rn" and gen["dist_a"] == "normal" and "scale_A" not in c.operands


def test_exact_evaluation_in_fractions(monkeypatch):
    checked = 0
    for c in tcemu.golden.load(PLANS).cases:
        if not _exact_reaches(c):
            continue
        s, ops = c.spec, c.operands
        monkeypatch.setattr(test_gemm, "ARCH", s["arch"])  # the architecture of the chunk partials
        vec = lambda k: ops[k].view(np.float32) if k in ops else None  # noqa: E731
        d = test_gemm.expected(ops["A"], ops["B"], {"ptx": s["ptx"]}, s["chunks"], s["combine"], s["epilogue"],
                           out_type=s["out_type"], satfinite=s["satfinite"], C=ops.get("C"), alpha=_f32(s["alpha"]),
                           beta=_f32(s["beta"]), a_scale=vec("a_scale"), b_scale=vec("b_scale"), bias=vec("bias"))
        assert np.array_equal(d.astype(np.uint64), c.expected.astype(np.uint64)), c.name
        checked += 1
    assert checked >= 4  # e4m3 overflow to NaN, CUTLASS serial, f32-tree + sequential, bitequiv s = 4


def test_gemm_args_errors():
    with pytest.raises(TypeError, match=r"^case:"):
        tcemu.golden.gemm_args("no")
    mma = tcemu.golden.generate(arch="sm_90a", instr=WG, K=64)
    with pytest.raises(ValueError, match=r"not a gemm case"):
        tcemu.golden.gemm_args(mma)


GEN = ["golden", "gen", "--arch", "sm_90a", "--instr", WG, "-M", "64", "-N", "16", "-K", "448", "--dist", "normal"]


def test_cli_gen_check_and_compare(cli, tmp_path):
    out = str(tmp_path / "plan.json")
    cli(GEN + ["--plan", "cublaslt-bitequiv", "--split-k", "4", "--b-scale", "0.5", "--out-type", "bf16",
               "--npy-threshold", "0", "-o", out])
    r = raw_cases(out)[0]
    assert r["op"] == "gemm" and r["plan"]["chunks"] == [128, 128, 128, 64] and r["plan"]["split_k"] == 4
    assert r["epilogue"]["out_type"] == "bf16"
    assert "C" not in r["operands"] and raw_array(r["operands"]["b_scale"]).tolist() == [0x3F000000]
    c = tcemu.golden.load(out).cases[0]
    d = tcemu.gemm(c.operands["A"], c.operands["B"], arch="sm_90a", instr=WG, plan="cublaslt-bitequiv", split_k=4,
                   b_scale=0.5, out_type="bf16")
    assert np.array_equal(d, c.expected)
    chk = cli(["golden", "check", out])
    assert "reproduced by the emulator" in chk.stdout and "0 not reproduced" in chk.stdout
    # A kernel stand-in that splits K in 2 (128 + 128 + ... at grain 128: 256 + 192).
    k2 = tcemu.gemm(c.operands["A"], c.operands["B"], arch="sm_90a", instr=WG, plan="cublaslt-bitequiv", split_k=2,
                    b_scale=0.5, out_type="bf16")
    npy = str(tmp_path / "k2.npy")
    np.save(npy, k2)
    rep = cli(["compare", out, npy, "--json", "-"], check=False)
    assert rep.returncode == 1, rep.stderr
    j = json.loads(rep.stdout)["cases"][0]
    assert "the kernel computes cuBLASLt split-K s=2" in j["verdict"], j["verdict"]
    same = str(tmp_path / "same.npy")
    np.save(same, c.expected)
    assert cli(["compare", out, same], check=False).returncode == 0


def test_cli_gen_equals_the_api_for_every_option(cli, tmp_path):
    """Chunks, an epilogue order, alpha/beta with C, rowwise scales and bias from .npy files,
    e4m3 output with saturation."""
    rows, bias = str(tmp_path / "rows.npy"), str(tmp_path / "bias.npy")
    np.save(rows, (np.arange(64, dtype=np.float32) + 1) / 32)
    np.save(bias, np.linspace(-2, 2, 16, dtype=np.float32))
    out = str(tmp_path / "g.json")
    cli(GEN + ["--chunks", "128,64,256", "--plan", "f32-tree", "--epilogue", "sequential", "--alpha", "3",
               "--beta", "0.25", "--a-scale", rows, "--bias", bias, "--out-type", "e4m3", "--satfinite",
               "--out-round", "rz", "--seed", "5", "-o", out])
    c = tcemu.golden.load(out).cases[0]
    s = c.spec
    assert s["chunks"] == [128, 64, 256] and s["combine"] == "f32-tree" and s["epilogue"] == "sequential"
    assert s["satfinite"] and s["out_round"] == "rz" and _f32(s["alpha"]) == 3.0 and "C" in c.operands
    d = tcemu.gemm(c.operands["A"], c.operands["B"], c.operands["C"], arch="sm_90a", instr=WG, chunks=[128, 64, 256],
                   plan="f32-tree", epilogue="sequential", alpha=3.0, beta=0.25, a_scale=np.load(rows),
                   bias=np.load(bias), out_type="e4m3", satfinite=True, out_round="rz")
    assert np.array_equal(d, c.expected)
    assert np.array_equal(tcemu.gemm(**tcemu.golden.gemm_args(c)), c.expected)
    # tcemu.golden.compare with the case's D, and with a stand-in using the fold epilogue.
    assert tcemu.golden.compare(c, c.expected).identical
    fold = tcemu.gemm(**{**tcemu.golden.gemm_args(c), "epilogue": "fold"})
    rep = tcemu.golden.compare(c, fold)
    if not rep.identical:
        assert any("fold epilogue" in m.name for m in rep.models), [m.name for m in rep.models]


@pytest.mark.parametrize("args, msg", [
    (["--plan", "cublas-magic"], "unknown plan 'cublas-magic'"),
    (["--chunks", "128,128"], "chunks sum to 256; K = 448"),
    (["--chunks", "128,100,220"], "is not a multiple of 32"),
    (["--plan", "cutlass-parallel", "--split-k", "2"], "give grain"),
    (["--split-k", "2", "--chunks", "224,224"], "give one of them"),
    (["--out-type", "e2m1"], "not an output of a GEMM"),
    (["--epilogue", "cutlass-2x", "--b-scale", "2"], "cutlass-2x"),
    (["--gemm", "--no-scale-d"], "scale_d"),
    (["--gemm", "--device", "cuda"], "only MMA cases"),
])
def test_cli_gen_bad_plans_exit_2(cli, tmp_path, args, msg):
    r = cli(GEN + args + ["-o", str(tmp_path / "x.json")], check=False)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert msg in r.stderr, r.stderr
    assert not os.path.exists(tmp_path / "x.json")


def test_cli_plan_options_need_an_instruction(cli, tmp_path):
    r = cli(["golden", "gen", "--from", "f32", "--to", "e4m3", "--split-k", "2", "-o", str(tmp_path / "x.json")],
            check=False)
    assert r.returncode == 2 and "need --instr" in r.stderr, r.stderr


def test_check_refuses_a_tampered_plan(cli, tmp_path):
    raw = json.load(open(PLANS, encoding="utf-8"))
    raw["cases"] = raw["cases"][:1]
    raw["cases"][0]["plan"]["chunks"] = [128, 192]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(raw))
    r = cli(["golden", "check", str(bad)], check=False)
    assert r.returncode == 2 and "cases[0].plan.chunks" in r.stderr, r.stderr
    with pytest.raises(ValueError, match=r"cases\[0\]\.plan\.chunks"):
        tcemu.golden.load(str(bad))
