"""threads= on tcemu.convert, tcemu.quantize and tcemu.dequantize: the same bits for 1, 2, 3
and 7 threads and for None ($TCEMU_NUM_THREADS, else every core), on arrays of more than
64 Ki elements (the Converter's chunk), and bad values raising errors that name `threads`.
The conversion is also held to NumPy's own f32 -> f16 cast (IEEE round to nearest even)."""

import numpy as np
import pytest

import tcemu

COUNTS = [1, 2, 3, 7, None]
N = 3 * 65536 + 12345  # several chunks and a partial one


def bits(v):
    """The bytes of a number or array (NaN payloads included), for bit-for-bit comparison."""
    return np.ascontiguousarray(np.atleast_1d(np.asarray(v))).view(np.uint8)


def f32_codes(seed):
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    # Magnitudes around f16's range (normals, subnormals, overflow), and no NaN: NumPy's NaN
    # payloads are its own.
    v = bits.view(np.float32)
    bits = np.where(np.isnan(v), np.uint32(0x3F800000), bits)
    exp = rng.integers(127 - 30, 127 + 20, N, dtype=np.uint64).astype(np.uint32)
    mixed = (bits & np.uint32(0x807FFFFF)) | (exp << np.uint32(23))
    return np.where(rng.integers(0, 4, N) == 0, bits, mixed).astype(np.uint32)


def test_convert_same_codes_for_every_thread_count():
    c = f32_codes(1)
    with np.errstate(over="ignore"):
        want = c.view(np.float32).astype(np.float16).view(np.uint16)  # NumPy: IEEE RNE
    for t in COUNTS:
        got = tcemu.convert(c, "f32", "f16", threads=t)
        assert got.dtype == np.uint16
        assert np.array_equal(got, want), f"threads={t}"
    # A format NumPy lacks: the codes of every count against one thread's.
    one = tcemu.convert(c, "f32", "e4m3", satfinite=True, threads=1)
    for t in COUNTS[1:]:
        assert np.array_equal(tcemu.convert(c, "f32", "e4m3", satfinite=True, threads=t), one), f"threads={t}"
    out = np.empty(N, np.uint8)
    assert tcemu.convert(c, "f32", "e4m3", satfinite=True, out=out, threads=3) is out
    assert np.array_equal(out, one)


@pytest.mark.parametrize("recipe", [r["name"] for r in tcemu.recipes()])
def test_quantize_dequantize_same_bits_for_every_thread_count(recipe):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((512, 256)) * np.exp2(rng.integers(-8, 8, (512, 1)))).astype(np.float32)
    assert x.size > 65536
    ref = tcemu.quantize(x, recipe, seed=5, threads=1)
    ref_v = tcemu.dequantize(ref, threads=1)
    for t in COUNTS[1:]:
        q = tcemu.quantize(x, recipe, seed=5, threads=t)
        assert np.array_equal(q.codes, ref.codes), f"{recipe} threads={t}"
        assert np.array_equal(bits(q.scales), bits(ref.scales)), f"{recipe} threads={t}"
        assert (q.global_scale is None) == (ref.global_scale is None)
        if q.global_scale is not None:
            assert np.array_equal(bits(q.global_scale), bits(ref.global_scale))
        assert np.array_equal(bits(q.amax), bits(ref.amax))
        v = tcemu.dequantize(q, threads=t)
        assert np.array_equal(bits(v), bits(ref_v)), f"{recipe} threads={t}"


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (0, ValueError), (5000, ValueError), ("x", TypeError),
                                      (2.0, TypeError), (True, TypeError)])
def test_bad_threads_name_the_argument(bad, exc):
    c = np.array([0x3F800000], np.uint32)
    x = np.ones((1, 32), np.float32)
    with pytest.raises(exc, match=r"^threads: "):
        tcemu.convert(c, "f32", "e4m3", threads=bad)
    with pytest.raises(exc, match=r"^threads: "):
        tcemu.quantize(x, "mxfp8", threads=bad)
    q = tcemu.quantize(x, "mxfp8")
    with pytest.raises(exc, match=r"^threads: "):
        tcemu.dequantize(q, threads=bad)


def test_bad_environment_with_threads_none(monkeypatch):
    monkeypatch.setenv("TCEMU_NUM_THREADS", "many")
    with pytest.raises(ValueError, match=r"^threads: .*TCEMU_NUM_THREADS"):
        tcemu.convert(np.array([0x3F800000], np.uint32), "f32", "e4m3")
    assert tcemu.convert(np.array([0x3F800000], np.uint32), "f32", "e4m3", threads=2)[0] == 0x38
