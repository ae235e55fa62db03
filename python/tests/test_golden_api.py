"""tcemu.golden: reading (checked against the files' own JSON read here), writing, iterating,
generating (against `tcemu golden gen`) and compare (against `tcemu compare`)."""

import json
import os

import numpy as np
import pytest

import tcemu
from conftest import GOLDEN_SETS, raw_array, raw_cases

WGMMA = os.path.join(GOLDEN_SETS, "wgmma_e4m3-e5m2.json")
WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"


def test_load_reads_what_the_file_says():
    f = tcemu.golden.load(WGMMA)
    raw = raw_cases(WGMMA)
    assert len(f.cases) == len(raw)
    for c, r in zip(f.cases, raw):
        assert c.name == r["name"] and c.op == "mma"
        for k, a in r["operands"].items():
            assert np.array_equal(c.operands[k].astype(np.uint64), raw_array(a)), (c.name, k)
        assert np.array_equal(c.expected.astype(np.uint64), raw_array(r["expected"]["D"]))
        assert c.spec["ptx"] == r["instruction"]["ptx"]
        assert tcemu.golden.provenance(c)["source"] == "tcemu"


def test_iterate_a_folder():
    n = sum(len(raw_cases(os.path.join(GOLDEN_SETS, f))) for f in os.listdir(GOLDEN_SETS)
            if f.endswith(".json") and f != "index.json")
    assert sum(1 for _ in tcemu.golden.iterate(GOLDEN_SETS)) == n


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"^path: no golden file"):
        tcemu.golden.load(str(tmp_path / "none.json"))
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"format": "tcemu-golden", "version": 99, "cases": []}))
    with pytest.raises(ValueError, match="version"):
        tcemu.golden.load(str(bad))
    with pytest.raises(TypeError, match=r"^path:"):
        tcemu.golden.load(3)


def test_save_round_trip(tmp_path):
    f = tcemu.golden.load(WGMMA)
    out = tmp_path / "copy.json"
    tcemu.golden.save(str(out), f.cases[:3], "three cases", npy_threshold=64)
    assert any(p.suffix == ".npy" for p in tmp_path.iterdir())  # large arrays went to .npy
    g = tcemu.golden.load(str(out))
    assert g.description == "three cases"
    for a, b in zip(f.cases[:3], g.cases):
        assert a.name == b.name
        for k in a.operands:
            assert np.array_equal(a.operands[k], b.operands[k])
        assert np.array_equal(a.expected, b.expected)
    with pytest.raises(TypeError, match=r"^cases\[0\]:"):
        tcemu.golden.save(str(out), [1])


def _cli_case(cli, tmp_path, args):
    out = os.path.join(tmp_path, "gen.json")
    cli(["golden", "gen", "-o", out, "--npy-threshold", "0", *args])
    return raw_cases(out)[0]


def test_generate_mma_equals_cli(cli, tmp_path):
    c = tcemu.golden.generate(arch="sm_90a", instr=WG, M=64, N=16, K=64, dist_a="wide", dist_b="specials",
                              dist_c="normal", seed=7)
    r = _cli_case(cli, str(tmp_path), ["--arch", "sm_90a", "--instr", WG, "-M", "64", "-N", "16", "-K", "64",
                                       "--dist-a", "wide", "--dist-b", "specials", "--dist-c", "normal", "--seed", "7"])
    assert c.name == r["name"]
    for k, a in r["operands"].items():
        assert np.array_equal(c.operands[k].astype(np.uint64), raw_array(a)), k
    assert np.array_equal(c.expected.astype(np.uint64), raw_array(r["expected"]["D"]))
    # ... and tcemu.mma on its operands gives its D.
    d = tcemu.mma(c.operands["A"], c.operands["B"], c.operands["C"], arch="sm_90a", instr=WG)
    tcemu.testing.assert_bitexact(d, c)


def test_generate_convert_equals_cli(cli, tmp_path):
    c = tcemu.golden.generate(src="f32", dst="e4m3", convention="ptx", satfinite=True, count=100, seed=4)
    r = _cli_case(cli, str(tmp_path), ["--from", "f32", "--to", "e4m3", "--convention", "ptx", "--satfinite",
                                       "--count", "100", "--seed", "4", "--dist", "edges"])
    assert np.array_equal(c.operands["x"].astype(np.uint64), raw_array(r["operands"]["x"]))
    assert np.array_equal(c.expected.astype(np.uint64), raw_array(r["expected"]["y"]))


def test_generate_errors():
    with pytest.raises(ValueError, match=r"^dist_a: unknown distribution 'gauss'"):
        tcemu.golden.generate(arch="sm_90a", instr=WG, dist_a="gauss")
    with pytest.raises(ValueError, match=r"^generate: give"):
        tcemu.golden.generate(seed=1)


def _perturbed(case, positions):
    d = case.expected.copy()
    for r, c in positions:
        d[r, c] += 1  # one ulp up for a positive finite f32 code
    return d


def test_compare_identical_and_mismatches(cli, tmp_path):
    case = next(c for c in tcemu.golden.load(WGMMA).cases if c.spec["ptx"] == WG and c.spec["dtype"] == "f32")
    rep = tcemu.compare(case, case.expected)
    assert rep.identical and rep.mismatch_count == 0 and bool(rep)
    e = case.expected
    fin = np.argwhere((e & 0x7F800000) < 0x7F000000)
    pos = [tuple(int(v) for v in fin[i]) for i in (0, 5, 17)]
    actual = _perturbed(case, pos)
    rep = tcemu.compare(case, actual)
    assert not rep.identical and rep.mismatch_count == 3 and rep.total == e.size
    assert [(m.row, m.col) for m in rep.mismatches] == sorted(pos)
    assert all(m.ulps == 1 for m in rep.mismatches)
    assert rep.diagnosis
    # The same report as `tcemu compare ... --json -`.
    src = os.path.join(str(tmp_path), "g.json")
    tcemu.golden.save(src, [case])
    act = os.path.join(str(tmp_path), "actual.npy")
    np.save(act, actual.view(np.float32) if actual.dtype == np.uint32 else actual)
    rj = os.path.join(str(tmp_path), "r.json")
    r = cli(["compare", src, act, "--json", rj], check=False)
    assert r.returncode == 1, r.stderr
    with open(rj, encoding="utf-8") as fh:
        j = json.load(fh)["cases"][0]
    mine = json.loads(rep.to_json())
    assert mine == j
    assert rep.text() in r.stdout
    html = os.path.join(str(tmp_path), "r.html")
    rep.to_html(html)
    assert "<canvas" in open(html, encoding="utf-8").read()


def test_compare_errors():
    case = tcemu.golden.load(WGMMA).cases[0]
    with pytest.raises(ValueError, match=r"^actual: shape"):
        tcemu.compare(case, np.zeros((3, 3), case.expected.dtype))
    with pytest.raises(TypeError, match=r"^case:"):
        tcemu.compare(case.expected, case.expected)


def test_generate_quantize_equals_cli(cli, tmp_path):
    name = tcemu.recipes()[0]["name"]
    c = tcemu.golden.generate(recipe=name, rows=4, cols=64, dist="normal", seed=3)
    r = _cli_case(cli, str(tmp_path), ["--recipe", name, "--rows", "4", "--cols", "64", "--dist", "normal",
                                       "--seed", "3"])
    assert c.op == "quantize" and c.name == r["name"]
    assert np.array_equal(c.operands["x"].astype(np.uint64), raw_array(r["operands"]["x"]))
    assert np.array_equal(c.expected.astype(np.uint64), raw_array(r["expected"]["codes"]))
    assert np.array_equal(c.extra_expected["scales"].astype(np.uint64), raw_array(r["expected"]["scales"]))
    # The case's report against its own codes is identical; one changed code is found.
    assert tcemu.compare(c, c.expected).identical
    bad = c.expected.copy()
    bad[2, 5] ^= 1
    rep = tcemu.compare(c, bad)
    assert rep.mismatch_count == 1 and (rep.mismatches[0].row, rep.mismatches[0].col) == (2, 5)


def test_generate_sizes_are_checked_before_allocating():
    with pytest.raises(ValueError, match=r"^D \(M x N\) would hold 1099511627776 elements"):
        tcemu.golden.generate(arch="sm_90a", instr=WG, M=2**20, N=2**20, K=32)
    with pytest.raises(ValueError, match=r"^M: -64 is not 0 \(the default\) or a size from 1 to 1048576"):
        tcemu.golden.generate(arch="sm_90a", instr=WG, M=-64)
    with pytest.raises(ValueError, match=r"^count: 0 is not a size from 1"):
        tcemu.golden.generate(src="f32", dst="e4m3", count=0)
    with pytest.raises(ValueError, match=r"^x \(rows x cols\) would hold"):
        tcemu.golden.generate(recipe=tcemu.recipes()[0]["name"], rows=2**20, cols=2**20)
    with pytest.raises(ValueError, match=r"^seed: -1 is not an integer"):
        tcemu.golden.generate(src="f32", dst="e4m3", seed=-1)
    with pytest.raises(TypeError, match=r"^K: an int is required"):
        tcemu.golden.generate(arch="sm_90a", instr=WG, K=32.0)


def test_column_major_cases_are_logical_arrays():
    """A case stored column-major (A and D here) gives logical (row, col) arrays: tcemu.mma on
    them gives its D, and compare reports positions in (row, col)."""
    c = tcemu.golden.generate(arch="sm_90a", instr=WG, M=64, N=16, K=64, d_col=True, a_col=True, seed=2)
    assert c.expected_col_major
    d = tcemu.mma(c.operands["A"], c.operands["B"], c.operands["C"], arch="sm_90a", instr=WG)
    assert np.array_equal(d, c.expected)
    bad = c.expected.copy()
    bad[3, 9] ^= 1
    rep = tcemu.compare(c, bad)
    assert rep.mismatch_count == 1 and (rep.mismatches[0].row, rep.mismatches[0].col) == (3, 9)
