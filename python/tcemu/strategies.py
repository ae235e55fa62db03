"""Hypothesis strategies for codes of every format, with the interesting values weighted in:
zeros of both signs, the smallest subnormal and normal, the largest finite value, Inf, NaN,
and, for a conversion into a narrower format, the ties between two destination values and the
overflow threshold with their neighbours (as the C++ toolkit's RapidCheck generators do).

    from hypothesis import given
    from tcemu import strategies as tst

    @given(tst.codes("f32", toward="e4m3"))
    def test_my_cast(x): ...

Needs Hypothesis (Debian python3-hypothesis)."""

import functools

import numpy as np
from hypothesis import strategies as st

from . import _tcemu
from ._arrays import format_name
from ._convert import decode, encode
from ._formats import formats


def _neighbours(fmt, code):
    f = formats[fmt]
    step = 1 << f.man_shift
    out = [code]
    for c in (code - step, code + step):
        if 0 <= c <= f.code_mask and _tcemu.first_invalid(fmt, np.array([c], f.dtype)) < 0:
            out.append(c)
    return out


def _with_sign(fmt, code):
    f = formats[fmt]
    if f.is_int or not f.is_signed:
        return [code]
    return [code, code | (1 << (f.width - 1))]


@functools.lru_cache(maxsize=None)
def special_codes(fmt):
    """The codes every converter must get right: zeros, min subnormal / normal and their
    neighbours, max finite and its neighbour, Inf and NaN (both signs where they exist)."""
    fmt = format_name(fmt)
    f = formats[fmt]
    out = set()
    for c in (f.zero, f.min_subnormal, f.min_normal, f.max_finite, f.inf, f.nan):
        if c is None:
            continue
        for n in _neighbours(fmt, c):
            out.update(_with_sign(fmt, n))
    if f.is_int:
        out.update({0, 1, f.code_mask, f.max_finite, f.max_finite_neg, f.max_finite_neg + 1 if f.is_signed else 0})
    return tuple(sorted(c for c in out if c <= f.code_mask))


@functools.lru_cache(maxsize=None)
def tie_codes(src, dst):
    """Codes of `src` that lie exactly halfway between two neighbouring finite values of `dst`
    (and, past the largest, the overflow threshold max + ulp/2), with their neighbours in src.
    Empty when dst is wider than 16 bits (too many values to list)."""
    src, dst = format_name(src, "src"), format_name(dst, "dst")
    fd = formats[dst]
    if fd.container_bytes > 2 or fd.is_int:
        return ()
    all_codes = np.arange(fd.code_mask + 1, dtype=np.uint64).astype(fd.dtype)
    valid = all_codes[[_tcemu.first_invalid(dst, np.array([c], fd.dtype)) < 0 for c in all_codes]] if fd.man_shift else all_codes
    v = decode(valid, dst)
    v = np.unique(v[np.isfinite(v) & (v >= 0)])
    if v.size < 2:
        return ()
    mids = list((v[:-1] + v[1:]) / 2)
    mids.append(v[-1] + (v[-1] - v[-2]) / 2)  # overflow threshold
    out = set()
    for m in mids:
        for s in (m, -m):
            c = encode(np.array([s]), src, round="rz")[0]
            if decode(np.array([c]), src)[0] == s:  # exactly representable in src
                for n in _neighbours(src, int(c)):
                    out.add(n)
    return tuple(sorted(out))


def codes(fmt, *, toward=None, interesting=0.5):
    """Codes of `fmt` (ints): uniformly random valid codes, and with probability `interesting`
    one of special_codes(fmt) or (toward=DST) tie_codes(fmt, DST)."""
    fmt = format_name(fmt)
    f = formats[fmt]
    rand = st.integers(0, f.code_mask >> f.man_shift).map(lambda c: c << f.man_shift)
    pool = list(special_codes(fmt))
    if toward is not None:
        pool += list(tie_codes(fmt, toward))
    if not pool or interesting <= 0:
        return rand
    special = st.sampled_from(sorted(set(pool)))
    # Weight by repetition: Hypothesis's one_of picks branches uniformly.
    k = max(1, round(interesting * 10))
    return st.one_of([special] * k + [rand] * max(1, 10 - k))


def values(fmt, *, toward=None, interesting=0.5):
    """float64 values that `fmt` represents exactly (decoded codes(fmt))."""
    fmt = format_name(fmt)
    return codes(fmt, toward=toward, interesting=interesting).map(lambda c: float(decode(np.array([c], formats[fmt].dtype), fmt)[0]))


def code_arrays(fmt, shape, *, toward=None, interesting=0.5):
    """NumPy arrays of codes of `fmt` of the given shape (its container dtype)."""
    from hypothesis.extra import numpy as hnp
    fmt = format_name(fmt)
    return hnp.arrays(formats[fmt].dtype, shape, elements=codes(fmt, toward=toward, interesting=interesting))
