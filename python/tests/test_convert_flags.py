"""IEEE 754 status flags of tcemu.convert(..., flags=True) and `tcemu convert --flags`
(docs/conversions.md, "Status flags"). The core's flags are compared with the exact reference
by the C++ exhaustive and stratified tests (tests/convert); here: the values IEEE 754 §7
gives for chosen inputs, and the binding and the command line agreeing element for element."""

import numpy as np
import pytest

import tcemu
from conftest import hex_lines
from upstream_sets import all_codes, stratified

I, O, U, V, N = tcemu.INEXACT, tcemu.OVERFLOW, tcemu.UNDERFLOW, tcemu.INVALID, tcemu.UNDEFINED
NAMES = {"inexact": I, "overflow": O, "underflow": U, "invalid": V, "undefined": N}


def f32(x):
    return int(np.array(x, np.float32).view(np.uint32))


@pytest.mark.parametrize("x, dst, kw, code, flags", [
    (1.0, "e4m3", {}, 0x38, 0),
    (465.0, "e4m3", {}, 0x7f, I | O | V),             # overflow into a NaN: the number became NaN
    (465.0, "e4m3", {"satfinite": True}, 0x7e, I | O),
    (61440.0, "e5m2", {}, 0x7c, I | O),               # overflow to Inf
    (2.0 ** -149, "e4m3", {}, 0x00, I | U),           # tiny and inexact
    (2.0 ** -9, "e4m3", {}, 0x01, 0),                 # subnormal but exact: no underflow
    (1.1, "f16", {"round": "rz"}, 0x3c66, I),
    (float("nan"), "e2m1", {}, 0x7, V),               # NaN into a format without NaN
    (float("inf"), "e4m3", {"satfinite": True}, 0x7e, I | O),
    (float("nan"), "e2m1", {"convention": "gfloat"}, 0, V | N),  # no result: flagged, not raised
])
def test_flags_by_ieee(x, dst, kw, code, flags):
    got = tcemu.convert(np.uint32(f32(x)), "f32", dst, flags=True, **kw)
    assert got == (code, flags)


def _cli_flags(cli, src, dst, codes, digits, args=()):
    out = cli(["convert", "--from", src, "--to", dst, "--flags", *args], hex_lines(codes, digits)).stdout.split("\n")
    codes_out, flags_out = [], []
    for line in out:
        if not line:
            continue
        c, f = line.split()
        codes_out.append(int(c, 16))
        flags_out.append(0 if f == "-" else sum(NAMES[n] for n in f.split(",")))
    return np.array(codes_out, np.uint64), np.array(flags_out, np.uint8)


@pytest.mark.parametrize("src, dst, args", [
    ("bf16", "e4m3", ()), ("f16", "e2m1", ()), ("bf16", "ue8m0", ("--round", "ru")),
    ("f32", "e5m2", ()), ("f32", "f16", ("--round", "rd")), ("f32", "e3m2", ("--convention", "gfloat")),
])
def test_cli_flags_equal_binding(cli, src, dst, args):
    codes = stratified("f32")[::4] if src == "f32" else all_codes(src)
    kw = {}
    for k, v in zip(args[::2], args[1::2]):
        kw[k.lstrip("-")] = v
    want_c, want_f = tcemu.convert(codes, src, dst, flags=True, **kw)
    got_c, got_f = _cli_flags(cli, src, dst, codes, 8 if src == "f32" else 4, args)
    assert np.array_equal(got_f, np.asarray(want_f))
    assert np.array_equal(got_c, np.asarray(want_c).astype(np.uint64))


def test_flags_argument_checked():
    with pytest.raises(TypeError):
        tcemu.convert(np.uint32(0), "f32", "e4m3", flags="yes")
    with pytest.raises(ValueError):
        tcemu.convert(np.zeros(2, np.uint32), "f32", "e4m3", flags=True, out=np.zeros(2, np.uint8))
