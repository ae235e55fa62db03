"""tcemu.dequantize(q, out=...): the values written into the caller's array are the bits of
tcemu.dequantize(q) (every recipe preset, 1 and 2 threads), the array itself is returned, and an
out of the wrong kind is refused naming the argument, the array left as it was."""

import numpy as np
import pytest

import tcemu

RECIPES = [r["name"] for r in tcemu.recipes()]


def _x(rows=8, cols=256, seed=3):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((rows, cols)) * np.exp2(rng.integers(-6, 6, (rows, 1)))).astype(np.float32)


@pytest.mark.parametrize("recipe", RECIPES)
def test_out_holds_the_bits_of_dequantize(recipe):
    x = _x()
    try:
        q = tcemu.quantize(x, recipe, seed=1)
    except ValueError:  # a recipe that needs another shape (checked in test_quant_cli.py)
        pytest.skip(f"{recipe} refuses an 8 x 256 tensor")
    want = tcemu.dequantize(q)
    for threads in (1, 2):
        out = np.full(x.shape, np.float32(np.nan), dtype=np.float32)
        got = tcemu.dequantize(q, threads=threads, out=out)
        assert got is out
        assert np.array_equal(out.view(np.uint32), want.view(np.uint32))


def test_out_is_checked():
    x = _x()
    q = tcemu.quantize(x, "mxfp8")
    sentinel = np.float32(-7.0)
    cases = [
        ([1.0] * x.size, TypeError, "out: a NumPy array is required"),
        (np.zeros(x.shape, np.float64), TypeError, "out: dtype float32 is required"),
        (np.zeros((x.shape[0], x.shape[1] + 1), np.float32), ValueError, r"out: the shape must be \(8, 256\)"),
        (np.zeros(x.size, np.float32), ValueError, r"out: the shape must be \(8, 256\)"),
        (np.zeros((x.shape[1], x.shape[0]), np.float32).T, ValueError, "out: must be a writeable C-contiguous array"),
    ]
    for out, exc, msg in cases:
        if isinstance(out, np.ndarray):
            out[...] = sentinel
        with pytest.raises(exc, match=msg):
            tcemu.dequantize(q, out=out)
        if isinstance(out, np.ndarray):
            assert np.all(out == sentinel)
    ro = np.full(x.shape, sentinel, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out: must be a writeable C-contiguous array"):
        tcemu.dequantize(q, out=ro)
    assert np.all(ro == sentinel)
