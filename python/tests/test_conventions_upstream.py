"""The conventions named after a library against the running library (issue 27;
docs/conversions.md, "Library conventions"): every code of every source of 16 bits or fewer
and stratified f32/f64 sets (upstream_sets.py) through ml_dtypes, gfloat and CUTLASS's host
types and through tcemu.convert, comparing bits, for every format pair, rounding mode and
saturation setting the library has. The libraries are the pinned ones of requirements.txt;
a missing one fails the test (it does not skip). ml_dtypes 0.6.0, which the ml-dtypes-0.6
convention follows, lives in a directory of its own (requirements-side.txt): the ml_dtypes
tests run again in a subprocess that imports it from there (test_ml_dtypes_0_6_release)."""

import importlib.util
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tcemu
from upstream_sets import all_codes, container, source_codes, stratified

import gfloat  # noqa: E402  (pinned: requirements.txt)
import ml_dtypes  # noqa: E402
from gfloat import RoundMode
from gfloat import formats as gff

HERE = os.path.dirname(os.path.abspath(__file__))


def _bits(a):
    return np.asarray(a).astype(np.uint64)


def _mismatch(src, dst, codes, want, got, what):
    bad = np.nonzero(want != got)[0]
    if len(bad):
        ex = ", ".join(f"{int(codes[i]):x} -> lib {int(want[i]):x} tcemu {int(got[i]):x}" for i in bad[:6])
        pytest.fail(f"{what} {src} -> {dst}: {len(bad)} of {len(codes)} differ: {ex}")


# ---- ml_dtypes ---------------------------------------------------------------------------

# The releases each convention follows (docs/conversions.md): the test runs the installed one
# (0.7.0, requirements.txt) and, in a subprocess, 0.6.0 (requirements-side.txt).
ML_CONVENTION = {"0.7.0": "ml-dtypes", "0.6.0": "ml-dtypes-0.6"}
ML_SIDE = "0.6.0"
# Set in that subprocess: the ml_dtypes release it must have imported.
ML_WANT = os.environ.get("TCEMU_TEST_ML_DTYPES")
MD = {"f64": np.float64, "f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16,
      "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "e3m2": ml_dtypes.float6_e3m2fn,
      "e2m3": ml_dtypes.float6_e2m3fn, "e2m1": ml_dtypes.float4_e2m1fn, "ue8m0": ml_dtypes.float8_e8m0fnu}
NUMPY_ONLY = {"f64", "f32", "f16"}


def ml_convention():
    v = ml_dtypes.__version__
    if ML_WANT and v != ML_WANT:
        pytest.fail(f"ml_dtypes {v} was imported ({ml_dtypes.__file__}); this run is for {ML_WANT}")
    if v not in ML_CONVENTION:
        pytest.fail(f"ml_dtypes {v}: no tcemu convention follows this release (requirements.txt pins 0.7.0)")
    return ML_CONVENTION[v]


def ml_cast(codes, src, dst):
    """np.asarray(values, src).astype(dst) as codes, or None where ml_dtypes has no cast."""
    a = np.asarray(codes).view(MD[src])
    with np.errstate(all="ignore"):
        try:
            return _bits(a.astype(MD[dst]).view(container(dst)))
        except TypeError:
            return None


@pytest.mark.parametrize("src", list(MD))
def test_ml_dtypes_casts(src):
    conv = ml_convention()
    codes = source_codes(src)
    for dst in MD:
        if dst == src:
            continue
        want = ml_cast(codes, src, dst)
        if src in NUMPY_ONLY and dst in NUMPY_ONLY:
            with pytest.raises(ValueError, match="NumPy's cast"):
                tcemu.convert(codes[:1], src, dst, convention=conv)
            continue
        if want is None:  # no cast registered: the convention must refuse the pair
            with pytest.raises(ValueError):
                tcemu.convert(codes[:1], src, dst, convention=conv)
            continue
        got = _bits(tcemu.convert(codes, src, dst, convention=conv))
        _mismatch(src, dst, codes, want, got, f"{conv} (ml_dtypes {ml_dtypes.__version__})")


def test_ml_dtypes_refuses_what_it_lacks():
    conv = ml_convention()
    for kw in ({"round": "rz"}, {"relu": True}, {"ftz": True}):
        with pytest.raises(ValueError):
            tcemu.convert(np.uint32(0x3f800000), "f32", "e4m3", convention=conv, **kw)


def test_ml_dtypes_0_6_release():
    """The two tests above against ml_dtypes 0.6.0 (the ml-dtypes-0.6 convention), imported in a
    subprocess from its own directory, "$(scripts/venv.sh)/side/ml_dtypes-0.6.0" (made by
    scripts/install-deps.sh), with this environment's NumPy."""
    if ML_WANT:
        pytest.skip("this is the subprocess")
    side = os.path.join(sys.prefix, "side", f"ml_dtypes-{ML_SIDE}")
    if not os.path.isdir(os.path.join(side, "ml_dtypes")):
        pytest.fail(f"no ml_dtypes {ML_SIDE} at {side} (requirements-side.txt; run scripts/install-deps.sh)")
    env = dict(os.environ, TCEMU_TEST_ML_DTYPES=ML_SIDE,
               PYTHONPATH=os.pathsep.join([side] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", os.path.abspath(__file__),
                        "-k", "test_ml_dtypes_casts or test_ml_dtypes_refuses_what_it_lacks"],
                       capture_output=True, text=True, env=env, cwd=HERE)
    assert r.returncode == 0, f"ml_dtypes {ML_SIDE}:\n{r.stdout[-6000:]}\n{r.stderr[-2000:]}"
    want = f"{len(MD) + 1} passed"  # every source of test_ml_dtypes_casts and the refusals
    assert want in r.stdout and "skipped" not in r.stdout, f"expected {want}:\n{r.stdout[-2000:]}"


# ---- gfloat ------------------------------------------------------------------------------

GF = {"f32": gff.format_info_binary32, "f16": gff.format_info_binary16, "bf16": gff.format_info_bfloat16,
      "e4m3": gff.format_info_ocp_e4m3, "e5m2": gff.format_info_ocp_e5m2, "e3m2": gff.format_info_ocp_e3m2,
      "e2m3": gff.format_info_ocp_e2m3, "e2m1": gff.format_info_ocp_e2m1, "ue8m0": gff.format_info_ocp_e8m0}
MODES = {"rn": RoundMode.TiesToEven, "rna": RoundMode.TiesToAway, "rz": RoundMode.TowardZero,
         "rd": RoundMode.TowardNegative, "ru": RoundMode.TowardPositive}
SR = {"gfloat": RoundMode.Stochastic, "gfloat-sr-odd": RoundMode.StochasticOdd,
      "gfloat-sr-fastest": RoundMode.StochasticFastest}
RS_BITS = {"f16": 13, "bf16": 16, "f32": 32}  # tcemu's default rs widths (docs/conversions.md step 7)


def gf_values(codes, src):
    if src == "f64":
        return np.asarray(codes).view(np.float64)
    if src == "f32":
        return np.asarray(codes).view(np.float32).astype(np.float64)
    return gfloat.decode_ndarray(GF[src], _bits(codes))


def gf_scalar(v, dst, mode, sat, srbits=0, srnumbits=0):
    fi = GF[dst]
    try:
        return gfloat.encode_float(fi, gfloat.round_float(fi, float(v), mode, sat, int(srbits), srnumbits))
    except ValueError:
        return -1  # gfloat defines no result


def gf_round(codes, src, dst, mode, sat, srbits=None, srnumbits=0):
    """gfloat's codes (-1 where it raises): round_float + encode_float for every input where
    they may raise or where the vectorised path differs (ue8m0), round_ndarray +
    encode_ndarray (their vectorised form) for the rest."""
    v = gf_values(codes, src)
    fi = GF[dst]
    out = np.full(v.shape, -1, np.int64)
    no_specials = fi.num_nans == 0
    scalar = np.isnan(v) if no_specials else np.zeros(v.shape, bool)
    if no_specials and not sat:
        scalar |= ~np.isfinite(v) | (np.abs(v) >= fi.max)
    if dst == "ue8m0":  # encode_ndarray is wrong for 0, negatives and values below 2^-127
        scalar |= ~(v >= 2.0 ** -126) & ~np.isnan(v)
    idx = np.nonzero(~scalar)[0]
    if len(idx):
        sb = None if srbits is None else srbits[idx].astype(np.int64)
        with np.errstate(all="ignore"):
            r = gfloat.round_ndarray(fi, v[idx], mode, sat, sb, srnumbits)
            out[idx] = gfloat.encode_ndarray(fi, r).astype(np.int64)
    for i in np.nonzero(scalar)[0]:
        out[i] = gf_scalar(v[i], dst, mode, sat, 0 if srbits is None else srbits[i], srnumbits)
    return out


def tcemu_or_undefined(codes, src, dst, conv, **kw):
    got, fl = tcemu.convert(codes, src, dst, convention=conv, flags=True, **kw)
    return np.where(np.asarray(fl) & tcemu.UNDEFINED, -1, np.asarray(got).astype(np.int64))


GF_SOURCES = ["f64", "f32", "f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0"]


def gf_codes(src):
    if src == "f64":
        return stratified("f64")[::5]
    if src == "f32":
        return stratified("f32")[::2]
    return all_codes(src)


@pytest.mark.parametrize("src", GF_SOURCES)
def test_gfloat_round_encode(src):
    codes = gf_codes(src)
    for dst in GF:
        if dst == src:
            continue
        for r, mode in MODES.items():
            for sat in (False, True):
                want = gf_round(codes, src, dst, mode, sat)
                got = tcemu_or_undefined(codes, src, dst, "gfloat", round=r, satfinite=sat)
                _mismatch(src, dst, codes, want, got, f"gfloat {r} sat={sat}")


@pytest.mark.parametrize("conv", list(SR))
def test_gfloat_stochastic(conv):
    rng = np.random.default_rng(27)
    for src in ("f32", "f16", "bf16"):
        codes = stratified("f32")[::3] if src == "f32" else all_codes(src)
        for dst in ("f16", "bf16", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0"):
            if dst == src or (src == "f16" and dst == "f16"):
                continue
            w = RS_BITS.get(dst, 8)
            rb = rng.integers(0, 1 << w, size=codes.shape, dtype=np.uint64).astype(np.uint32)
            rb[:: 7] = 0
            rb[1:: 7] = (1 << w) - 1
            for sat in (False, True):
                want = gf_round(codes, src, dst, SR[conv], sat, rb.astype(np.int64), w)
                got = tcemu_or_undefined(codes, src, dst, conv, round="rs", satfinite=sat, rbits=rb)
                _mismatch(src, dst, codes, want, got, f"{conv} rs sat={sat}")


def test_gfloat_stochastic_fast_is_fastest_with_one_more_bit():
    # round.py: StochasticFast rounds away iff delta + (0.5 + srbits) * 2**-n >= 1, which is
    # StochasticFastest with n + 1 bits and random bits 2 * srbits + 1 (docs/conversions.md).
    rng = np.random.default_rng(5)
    codes = all_codes("bf16")
    for dst in ("e4m3", "e2m1"):
        sb = rng.integers(0, 1 << 7, size=codes.shape, dtype=np.int64)
        for sat in (False, True):
            want = gf_round(codes, "bf16", dst, RoundMode.StochasticFast, sat, sb, 7)
            got = tcemu_or_undefined(codes, "bf16", dst, "gfloat-sr-fastest", round="rs", satfinite=sat,
                                     rbits=(2 * sb + 1).astype(np.uint32))
            _mismatch("bf16", dst, codes, want, got, f"gfloat StochasticFast sat={sat}")


# ---- CUTLASS host types ------------------------------------------------------------------

def cutlass_include():
    spec = importlib.util.find_spec("cutlass_library")
    if spec is None or not spec.submodule_search_locations:
        pytest.fail("the nvidia-cutlass package (requirements.txt) is not installed: no CUTLASS headers")
    inc = os.path.join(list(spec.submodule_search_locations)[0], "source", "include")
    if not os.path.exists(os.path.join(inc, "cutlass", "float8.h")):
        pytest.fail(f"no cutlass/float8.h under {inc}")
    return inc


@pytest.fixture(scope="module")
def cutlass_probe(tmp_path_factory):
    inc = cutlass_include()
    cxx = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("g++")
    cuda = os.environ.get("CUDA_HOME", "/usr/local/cuda")
    exe = str(tmp_path_factory.mktemp("cutlass") / "cutlass_host_probe")
    # CUTLASS's headers include libcu++ (cuda/std) and cuda_runtime's vector types; the device
    # intrinsics in numeric_conversion.h's uninstantiated templates need -fpermissive on g++.
    cmd = [cxx, "-std=c++17", "-O1", "-w", "-fpermissive", "-I", inc, "-I", os.path.join(cuda, "include", "cccl"),
           "-I", os.path.join(cuda, "include"), os.path.join(HERE, "upstream", "cutlass_host_probe.cpp"), "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.fail("compiling CUTLASS's host types failed:\n" + r.stderr[-3000:])

    def run(path, src, dst, codes):
        p = subprocess.run([exe, path, src, dst], input=_bits(codes).tobytes(), capture_output=True)
        assert p.returncode == 0, p.stderr.decode()
        return np.frombuffer(p.stdout, np.uint64)

    return run


# DST(x), NumericConverter and the packed NumericArrayConverter<DST, SRC, 8>: on the host they
# agree everywhere (4.2.0), so one convention follows all three.
CUTLASS_PATHS = {"ctor": "cutlass-host", "conv": "cutlass-host", "array8": "cutlass-host"}


@pytest.mark.parametrize("path", list(CUTLASS_PATHS))
def test_cutlass_host_types(cutlass_probe, path):
    conv = CUTLASS_PATHS[path]
    for src in ("f32", "f64", "f16", "bf16"):
        codes = source_codes(src)
        for dst in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3"):
            want = cutlass_probe(path, src, dst, codes)
            got = _bits(tcemu.convert(codes, src, dst, convention=conv))
            _mismatch(src, dst, codes, want, got, f"{conv} ({path})")
    for src in ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3"):
        codes = all_codes(src)
        want = cutlass_probe(path, src, "f32", codes)
        got = _bits(tcemu.convert(codes, src, "f32", convention=conv))
        _mismatch(src, "f32", codes, want, got, f"{conv} ({path})")


def test_cutlass_refuses_ue8m0_rz():
    with pytest.raises(ValueError, match="rounds up"):
        tcemu.convert(np.uint32(0x40a00000), "f32", "ue8m0", convention="cutlass-host", round="rz")
