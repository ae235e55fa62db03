"""Hostile input to the Python entry points (issue 32): lying .npy headers, shapes whose product
overflows, wrong dtypes, non-contiguous and zero-size arrays, views too large to copy, NaN and
non-positive scales. Each is a ValueError or TypeError whose message names the argument and the
problem, never a crash, a MemoryError or a silent answer; a non-contiguous operand gives the
bits its contiguous copy gives."""

import glob
import os

import numpy as np
import pytest

import tcemu

WGMMA = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")


def _npy(header, data=b""):
    """An .npy file (format 1.0) with the given header dict, padded as NumPy pads it."""
    h = header
    while (10 + len(h) + 1) % 64:
        h += " "
    h += "\n"
    return b"\x93NUMPY\x01\x00" + bytes([len(h) & 255, len(h) >> 8]) + h.encode() + data


@pytest.mark.parametrize("header,data,fragment", [
    # 16 bytes whose header claims 2^30 elements (2 GiB): refused by size, nothing allocated.
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (1073741824,), }", b"\0" * 16,
     "data truncated: the header claims 1073741824 elements"),
    # A shape whose element count overflows 64 bits.
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (1099511627776, 1073741824), }", b"",
     "more elements than this machine can address"),
    ("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", b"\0" * 16, "unsupported dtype '<c8'"),
    ("{'descr': '<u2', 'fortran_order': True, 'shape': (2,), }", b"\0" * 4, "fortran_order arrays are not supported"),
    ("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), 'shape': (2,), }", b"\0" * 4, "duplicate key 'shape'"),
])
def test_golden_load_refuses_lying_npy_operands(tmp_path, header, data, fragment):
    case = tcemu.golden.generate_mma(WGMMA["arch"], WGMMA["instr"])
    tcemu.golden.save(str(tmp_path / "g.json"), [case], npy_threshold=1)  # arrays in .npy files
    a = glob.glob(str(tmp_path / "*.A.npy"))
    assert len(a) == 1
    with open(a[0], "wb") as f:
        f.write(_npy(header, data))
    with pytest.raises(ValueError) as e:
        tcemu.golden.load(str(tmp_path / "g.json"))
    msg = str(e.value)
    assert os.path.basename(a[0]) in msg and fragment in msg, msg


@pytest.mark.parametrize("dtype,error,fragment", [
    (np.float64, TypeError, "a: float64 values given where f16 codes are expected"),
    (np.complex64, TypeError, "a: dtype complex64 cannot hold f16 codes"),
    (object, TypeError, "a: dtype object cannot hold f16 codes"),
    (np.bool_, TypeError, "a: dtype bool cannot hold f16 codes"),
])
def test_mma_wrong_operand_dtypes(dtype, error, fragment):
    A = np.zeros((64, 16), dtype)
    B = np.zeros((16, 8), np.uint16)
    with pytest.raises(error, match=fragment):
        tcemu.mma(A, B, **WGMMA)


def test_mma_float_accumulator_with_nan_is_a_type_error():
    A = np.zeros((64, 16), np.uint16)
    B = np.zeros((16, 8), np.uint16)
    with pytest.raises(TypeError, match="c: float64 values given where f32 codes are expected"):
        tcemu.mma(A, B, np.full((64, 8), np.nan), **WGMMA)


@pytest.mark.parametrize("a_shape,b_shape,fragment", [
    ((0, 16), (16, 8), "M = 0, N = 8; both must be at least 1"),
    ((64, 0), (0, 8), "K = 0 does not tile"),
    ((64, 16), (16, 0), "N = 0"),
    ((1, 64, 16), (16, 8), "a: shape (1, 64, 16); A is a matrix M x K"),
    ((16,), (16, 8), "a: shape (16,); A is a matrix M x K"),
])
def test_mma_zero_size_and_wrong_rank(a_shape, b_shape, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        tcemu.mma(np.zeros(a_shape, np.uint16), np.zeros(b_shape, np.uint16), **WGMMA)


def test_non_contiguous_operands_give_their_copies_bits():
    rng = np.random.default_rng(32)
    # Finite f16 codes (exponent below 31), strided and transposed views.
    wide = (rng.integers(0, 0x7800, size=(64, 32)) | (rng.integers(0, 2, size=(64, 32)) << 15)).astype(np.uint16)
    bt = (rng.integers(0, 0x7800, size=(8, 16))).astype(np.uint16)
    A, B = wide[:, ::2], bt.T
    assert not A.flags.c_contiguous and not B.flags.c_contiguous
    d = tcemu.mma(A, B, **WGMMA)
    d_copy = tcemu.mma(np.ascontiguousarray(A), np.ascontiguousarray(B), **WGMMA)
    assert d.dtype == d_copy.dtype and np.array_equal(d.view(np.uint32), d_copy.view(np.uint32))
    codes = wide[::3, 1::2]
    assert np.array_equal(tcemu.convert(codes, "f16", "e4m3"), tcemu.convert(codes.copy(), "f16", "e4m3"))
    x = rng.standard_normal((4, 128)).astype(np.float32)[:, ::2]
    q, q_copy = tcemu.quantize(x, "mxfp8"), tcemu.quantize(x.copy(), "mxfp8")
    assert np.array_equal(np.asarray(q.codes), np.asarray(q_copy.codes))
    assert np.array_equal(np.asarray(q.scales), np.asarray(q_copy.scales))


def test_zero_size_conversions_and_quantization():
    out = tcemu.convert(np.zeros(0, np.uint16), "f16", "e4m3")
    assert out.shape == (0,) and out.dtype == np.uint8
    for shape in [(0, 32), (4, 0)]:
        with pytest.raises(ValueError, match=r"x: shape \(%d, %d\) has no elements" % shape):
            tcemu.quantize(np.zeros(shape, np.float32), "mxfp8")


@pytest.mark.parametrize("call", [
    lambda v: tcemu.quantize(np.broadcast_to(np.float32(1), (1 << 20, 1 << 20)), "mxfp8"),
    lambda v: tcemu.convert(np.broadcast_to(np.uint16(0), (1 << 20, 1 << 20)), "f16", "e4m3"),
    lambda v: tcemu.encode(np.broadcast_to(np.float32(0), (1 << 20, 1 << 20)), "e4m3"),
    lambda v: tcemu.mma(np.broadcast_to(np.uint16(0), (1 << 20, 1 << 20)), np.zeros((1 << 20, 8), np.uint16), **WGMMA),
])
def test_views_too_large_to_copy_are_value_errors(call):
    # 2^40 elements of a zero-stride view: the contiguous copy (2-4 TiB) cannot be allocated.
    with pytest.raises(ValueError, match="non-contiguous view of shape \\(1048576, 1048576\\) whose contiguous copy"):
        call(None)


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, np.float64, np.bool_])
def test_quantize_wrong_dtypes(dtype):
    with pytest.raises(TypeError, match="x: dtype"):
        tcemu.quantize(np.zeros((1, 32), dtype), "mxfp8")


@pytest.mark.parametrize("init", [float("nan"), float("inf"), 0.0, -1.0])
def test_grad_scaler_refuses_nan_and_non_positive_scales(init):
    with pytest.raises(ValueError, match="initial scale must be a positive finite number"):
        tcemu.GradScaler(init_scale=init)


def test_nvfp4_negative_global_amax_is_refused():
    x = np.ones((1, 32), np.float32)
    with pytest.raises(ValueError, match="global_amax is a magnitude: it cannot be negative"):
        tcemu.quantize(x, "nvfp4", global_amax=-1.0)


@pytest.mark.parametrize("options,fragment", [
    ({"four_over_six": 3}, "recipe.nvfp4.four_over_six"),
    ({"four_over_six": "max"}, "unknown value 'max'"),
    ({"e4m3_max": "256"}, "recipe.nvfp4.e4m3_max"),
    ({"e4m3_max": 1 << 40}, "recipe.nvfp4.e4m3_max"),
    ({"row_scaled": "yes"}, "recipe.nvfp4.row_scaled"),
    ({"row_scaled": True, "global_amax": 2.0}, "row-scaled NVFP4 takes each row's amax"),
    ({"err_fast_math": 1}, "recipe.nvfp4.err_fast_math"),
])
def test_nvfp4_te_variant_options_of_the_wrong_kind(options, fragment):
    """TE's 4over6 / row-scaled options with wrong types or values: ValueError naming the field."""
    with pytest.raises(ValueError, match=fragment):
        tcemu.quantize(np.ones((16, 32), np.float32), "nvfp4-4over6" if "row_scaled" not in options else "nvfp4",
                       **options)


def test_row_scaled_nan_rows_keep_their_own_scales():
    """A row of NaNs in a row-scaled tensor has its own amax (0: TE's fmaxf drops NaN) and S_enc
    (1); the other rows are untouched by it."""
    x = np.ones((16, 32), np.float32)
    x[3] = np.nan
    q = tcemu.quantize(x, "nvfp4-row-scaled")
    assert q.global_scale.shape == (16,) and q.amax.shape == (16,)
    d = tcemu.dequantize(q, dequant="te")
    assert d.shape == (16, 32) and np.isfinite(d[0]).all()
    assert q.amax[3] == 0 and q.global_scale[3] == 1 and q.amax[0] == 1
