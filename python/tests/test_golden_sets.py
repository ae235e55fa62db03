"""tcemu.mma, tcemu.convert and tcemu.cvt against the committed golden set (golden/sets/,
checked by tests/golden/committed_set_test.cpp against the C++ library): every MMA case
through every catalog entry that index.json assigns to it, every conversion and every cvt
case. Operands and expected arrays are read here with json and hex, not by the binding."""

import json
import os

import numpy as np
import pytest

import tcemu
from conftest import GOLDEN_SETS, raw_array, raw_cases

_FILES = sorted(f for f in os.listdir(GOLDEN_SETS) if f.endswith(".json") and f not in ("index.json",))
# gemm_plans.json (op gemm cases) has its own test: test_golden_gemm.py.
_MMA_FILES = [f for f in _FILES if f not in ("conversions.json", "ptx_cvt.json", "gemm_plans.json")]


def _index():
    with open(os.path.join(GOLDEN_SETS, "index.json"), encoding="utf-8") as f:
        return json.load(f)["entries"]


@pytest.fixture(scope="module")
def cases_by_name():
    out = {}
    for f in _MMA_FILES:
        for c in raw_cases(os.path.join(GOLDEN_SETS, f)):
            out[c["name"]] = c
    return out


def _run_case(c, arch, ptx, atype, btype, dtype, stype=None):
    ops = c["operands"]
    o = c.get("options", {})
    kw = {}
    if "scale_A" in ops:
        kw["scale_a"] = raw_array(ops["scale_A"])
        kw["scale_b"] = raw_array(ops["scale_B"]).T  # file: N x K/block; tcemu.mma: K/block x N
    C = raw_array(ops["C"]) if "C" in ops else None
    return tcemu.mma(raw_array(ops["A"]), raw_array(ops["B"]), C, arch=arch, instr=ptx, atype=atype, btype=btype,
                     dtype=dtype, stype=stype, promote_every=o.get("promote_every", 0),
                     negate_a=o.get("negate_a", False), negate_b=o.get("negate_b", False),
                     scale_d=o.get("scale_d", True),
                     scale_input_d=None if o.get("scale_input_d", -1) < 0 else o["scale_input_d"], **kw)


def _bits(d):
    """D's bits as uint64 (s32 results are int32)."""
    return (d.view(np.uint32) if d.dtype == np.int32 else d).astype(np.uint64)


@pytest.mark.parametrize("fname", _MMA_FILES)
def test_mma_cases_of_file(fname):
    """Each case through its own instruction (the one recorded in the case)."""
    for c in raw_cases(os.path.join(GOLDEN_SETS, fname)):
        ins = c["instruction"]
        d = _run_case(c, ins["arch"], ins["ptx"], ins.get("atype"), ins.get("btype"), ins.get("dtype"), ins.get("stype"))
        D = c["expected"]["D"]
        tcemu.testing.assert_bitexact(d, raw_array(D), fmt=D["type"], msg=c["name"])


def test_every_catalog_entry_on_its_cases(cases_by_name):
    """index.json: every catalog entry, evaluated through its own arch and spelling on each
    case of its datapath (the entries that share a datapath give the same D)."""
    entries = _index()
    assert len(entries) == len(tcemu.instructions())
    checked = 0
    for e in entries:
        for name in e["cases"]:
            c = cases_by_name[name]
            d = _run_case(c, e["arch"], e["ptx"], e.get("atype"), e.get("btype"), e.get("dtype"), e.get("stype"))
            assert np.array_equal(_bits(d), raw_array(c["expected"]["D"])), f"{e['arch']} {e['ptx']} on case {name}"
            checked += 1
    assert checked >= len(entries)


def test_conversions_json():
    for c in raw_cases(os.path.join(GOLDEN_SETS, "conversions.json")):
        conv = c["conversion"]
        o = conv.get("options", {})
        x = raw_array(c["operands"]["x"])
        rb = raw_array(c["operands"]["rbits"]) if "rbits" in c["operands"] else None
        kw = dict(round=o.get("round"), satfinite=o.get("satfinite", False), relu=o.get("relu", False),
                  ftz=o.get("ftz", False), convention=conv["convention"])
        exp = raw_array(c["expected"]["y"])
        try:
            y = tcemu.convert(x, conv["from"], conv["to"], rbits=rb, **kw)
        except ValueError as e:
            # Inputs the convention defines no result for (llvm-apfloat, gfloat: NaN -> e2m1): the
            # file records the emulator's placeholder, the binding refuses them as the CLI does.
            assert "defines no result" in str(e), c["name"]
            undefined = 0
            for i in range(x.size):
                try:
                    yi = tcemu.convert(x[i:i + 1], conv["from"], conv["to"], rbits=None if rb is None else rb[i:i + 1], **kw)
                except ValueError:
                    undefined += 1
                    continue
                assert int(yi[0]) == int(exp[i]), (c["name"], i)
            assert 0 < undefined < x.size
            continue
        assert np.array_equal(y.astype(np.uint64), exp), c["name"]


def test_ptx_cvt_json():
    n = 0
    for c in raw_cases(os.path.join(GOLDEN_SETS, "ptx_cvt.json")):
        ins = c["instruction"]
        src = raw_array(c["operands"]["src"])
        regs = [src[:, k] for k in range(src.shape[1])] if src.ndim == 2 else [src]
        rb = raw_array(c["operands"]["rbits"]) if "rbits" in c["operands"] else None
        d = tcemu.cvt(ins["ptx"], *regs, rbits=rb, rs_map=ins.get("rs_map", "ptx_doc"))
        exp = raw_array(c["expected"]["d"])
        assert np.array_equal(np.asarray(d, dtype=np.uint64).reshape(-1), exp.reshape(-1)), c["name"]
        n += 1
    assert n == len(tcemu.cvt_instructions())


def test_mma_params_with_each_entrys_parameters(cases_by_name):
    """tcemu.mma_params with the datapath parameters instructions() reports for an entry (and
    its K per instruction) gives the golden D of the entry's cases: the parameters as data are
    the ones the catalog evaluates with."""
    rows = {}
    for r in tcemu.instructions():
        rows.setdefault((r["arch"], r["ptx"], r["atype"], r["btype"], r["dtype"], r["scale_type"]), r)
    checked = 0
    for e in _index():
        key = (e["arch"], e["ptx"], e["atype"], e["btype"], e["dtype"], e.get("stype"))
        r = rows.get(key)
        if r is None:  # entries whose scale type the index leaves out: the first of the spelling
            r = next(v for k, v in rows.items() if k[:5] == key[:5])
        c = cases_by_name[e["cases"][0]]
        ops = c["operands"]
        o = c.get("options", {})
        kw = {}
        if "scale_A" in ops:
            kw = {"stype": r["scale_type"], "scale_block": r["scale_block"], "scale_a": raw_array(ops["scale_A"]),
                  "scale_b": raw_array(ops["scale_B"]).T}
        d = tcemu.mma_params(raw_array(ops["A"]), raw_array(ops["B"]), raw_array(ops["C"]) if "C" in ops else None,
                             params=r["params"], atype=r["atype"], btype=r["btype"], instr_k=r["K"],
                             promote_every=o.get("promote_every", 0), negate_a=o.get("negate_a", False),
                             negate_b=o.get("negate_b", False), scale_d=o.get("scale_d", True),
                             scale_input_d=None if o.get("scale_input_d", -1) < 0 else o["scale_input_d"], **kw)
        assert np.array_equal(_bits(d), raw_array(c["expected"]["D"])), f"{e['arch']} {e['ptx']} params {r['params']}"
        checked += 1
    assert checked == len(_index())
