"""tcemu.testing.assert_bitexact (its message) and the Hypothesis strategies, with a property
test of tcemu.convert against a rounding written here from the definition (exact rationals)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tcemu
from tcemu import strategies as tst
from tcemu.testing import assert_bitexact


def test_passes_on_identical_bits():
    x = np.array([0x3F800000, 0x7FC00000], np.uint32)
    assert_bitexact(x, x.copy(), "f32")
    assert_bitexact(x.view(np.float32), x, "f32")


def test_message_lists_mismatches():
    exp = tcemu.encode(np.linspace(1, 2, 100), "e4m3")
    act = exp.copy()
    act[[3, 40]] += 1
    with pytest.raises(AssertionError) as e:
        assert_bitexact(act, exp, "e4m3")
    m = str(e.value)
    assert "2 of 100 elements differ (2%)" in m
    assert f"at 3: actual 0x{int(act[3]):02x}" in m and f"expected 0x{int(exp[3]):02x}" in m
    assert "1 ulp" in m
    assert "(1" in m  # decoded values are shown


def test_float_arrays_infer_the_format_and_2d_positions():
    exp = np.ones((3, 4), np.float32)
    act = exp.copy()
    act[1, 2] = np.nextafter(np.float32(1), np.float32(2))
    with pytest.raises(AssertionError, match=r"Not bit-exact \(f32\): 1 of 12 .*\n.*\n  at \(1, 2\).*1 ulp"):
        assert_bitexact(act, exp)


def test_nans_and_shapes():
    a = np.array([0x7FC00000, 0xFFC00001], np.uint32)
    b = np.array([0x7FC00000, 0x7FC00000], np.uint32)
    with pytest.raises(AssertionError, match="ulp distance n/a"):
        assert_bitexact(a, b, "f32")
    assert_bitexact(a, b, "f32", nans_equal=True)
    with pytest.raises(AssertionError, match="shape mismatch"):
        assert_bitexact(a, b[:1], "f32")
    with pytest.raises(AssertionError, match=r"raw 16-bit"):
        assert_bitexact(np.array([1], np.uint16), np.array([2], np.uint16))


def test_against_a_case_adds_the_diagnosis():
    case = tcemu.golden.generate(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3",
                                 dist_a="normal", dist_b="normal", dist_c="normal", seed=2)
    assert_bitexact(case.expected, case)
    # An output computed another way: f32 FMA accumulation of the decoded products.
    A = tcemu.decode(case.operands["A"], "e4m3").astype(np.float32)
    B = tcemu.decode(case.operands["B"], "e4m3").astype(np.float32)
    D = tcemu.decode(case.operands["C"], "f32").astype(np.float32)
    for k in range(A.shape[1]):
        D = (D + A[:, k:k + 1] * B[k:k + 1, :]).astype(np.float32)
    with pytest.raises(AssertionError, match=r"(?s)Not bit-exact \(f32\).*Diagnosis: .*f32 FMA"):
        assert_bitexact(D, case)


@given(st.sampled_from(sorted(tcemu.formats)).flatmap(lambda f: st.tuples(st.just(f), tst.codes(f))))
@settings(max_examples=300)
def test_codes_are_valid(fc):
    fmt, c = fc
    tcemu.convert(np.array([c], tcemu.formats[fmt].dtype), fmt, "f64")  # raises for an invalid code


def test_tie_codes_are_midpoints():
    ties = tst.tie_codes("f32", "e4m3")
    assert ties
    v = np.unique(tcemu.decode(np.arange(256, dtype=np.uint8), "e4m3"))
    v = v[np.isfinite(v)]
    mids = set((v[:-1] + v[1:]) / 2)
    dec = tcemu.decode(np.array(ties, np.uint32), "f32")
    assert sum(1 for d in dec if d in mids) >= 100  # the ties themselves (neighbours too)
    assert 464.0 in set(dec)  # overflow threshold 448 + 32/2


def _e4m3_values():
    out = {}
    for c in range(256):
        if (c & 0x7F) == 0x7F:
            continue
        s, e, m = c >> 7, (c >> 3) & 0xF, c & 7
        mag = Fraction(m, 8) * Fraction(2) ** -6 if e == 0 else (1 + Fraction(m, 8)) * Fraction(2) ** (e - 7)
        out[c] = -mag if s else mag
    return out


_E4M3 = _e4m3_values()


def _ref_rn_satfinite(x):
    """Round-to-nearest-even into e4m3 with saturation, from the definition."""
    v = Fraction(x)
    best = None
    for c, y in _E4M3.items():
        d = abs(y - v)
        if best is None or d < best[0] or (d == best[0] and (c & 1) == 0 and (best[1] & 1) == 1):
            best = (d, c, y)
    c = best[1]
    if best[2] == 0:  # a zero result keeps the sign of x
        c = 0x80 if np.signbit(x) else 0x00
    return c


@given(tst.values("f32", toward="e4m3"))
@settings(max_examples=400)
def test_convert_f32_to_e4m3_matches_definition(x):
    if not np.isfinite(x):
        return
    got = tcemu.encode(np.float32(x), "e4m3", satfinite=True)
    assert got == _ref_rn_satfinite(x), x
