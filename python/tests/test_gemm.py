"""tcemu.gemm against an exact evaluation of each plan's and each epilogue order's definition
(docs/gemm.md), written here independently of the C++ code: every f32 operation is formed
exactly in rationals (fractions) and rounded to nearest even by this file's own rounding; the
output conversion is ml_dtypes' / NumPy's (bf16, f16, e4m3fn, e5m2, round to nearest even).
The chunk partials come from tcemu.mma on the chunk's K slice (each a chain from +0)."""

import math
import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

import tcemu

ARCH = "sm_90a"


def _instr(atype, dtype="f32"):
    rows = [r for r in tcemu.instructions(ARCH) if r["ptx"].startswith("wgmma") and r["atype"] == atype
            and r["btype"] == atype and r["dtype"] == dtype and r["scale_type"] is None]
    return min(rows, key=lambda r: r["N"])


FP8 = _instr("e4m3")
F16 = _instr("f16")

# ---- exact f32 arithmetic (the definition of one IEEE operation rounding to nearest even) ----


def bits_f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f32(b):
    return struct.unpack("<f", struct.pack("<I", int(b)))[0]


def round_f32(q, zero_neg):
    if q == 0:
        return -0.0 if zero_neg else 0.0
    sign, a = (-1.0 if q < 0 else 1.0), abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    ulp = Fraction(2) ** (max(e, -126) - 23)
    n, r = divmod(a, ulp)
    n = int(n)
    if r * 2 > ulp or (r * 2 == ulp and n % 2):
        n += 1
    v = n * ulp
    if v >= Fraction(2) ** 128:
        return sign * math.inf
    return sign * float(v)


def neg(x):
    return math.copysign(1.0, x) < 0


def mul(x, y):
    return round_f32(Fraction(x) * Fraction(y), neg(x) != neg(y))


def add(x, y):
    return round_f32(Fraction(x) + Fraction(y), x == 0 and y == 0 and neg(x) and neg(y))


def fma(x, y, z):
    p_zero = x == 0 or y == 0
    return round_f32(Fraction(x) * Fraction(y) + Fraction(z), p_zero and z == 0 and (neg(x) != neg(y)) and neg(z))


def epilogue(order, acc, c, alpha, beta, sa, sb, bias):
    """The epilogue orders of docs/gemm.md, step by step."""
    use_c = beta != 0
    if order == "fold":
        t = mul(mul(mul(sa, sb), alpha), acc)
        t = fma(beta, c, t) if use_c else t
        return add(t, bias) if bias is not None else t
    if order == "cutlass-sm90":
        g = mul(mul(sa, sb), alpha)
        t = fma(g, acc, bias) if bias is not None else mul(g, acc)
        return fma(beta, c, t) if use_c else t
    if order == "cutlass-2x":
        return fma(alpha, acc, mul(beta, c)) if use_c else mul(alpha, acc)
    if order == "sequential":
        t = mul(mul(mul(acc, sa), sb), alpha)
        t = fma(beta, c, t) if use_c else t
        return add(t, bias) if bias is not None else t
    raise AssertionError(order)


# ---- output conversion: ml_dtypes / NumPy ---------------------------------------------------

_OUT = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2}
_UINT = {"f32": np.uint32, "bf16": np.uint16, "f16": np.uint16, "e4m3": np.uint8, "e5m2": np.uint8}
_MAX = {"bf16": float(ml_dtypes.finfo(ml_dtypes.bfloat16).max), "f16": 65504.0, "e4m3": 448.0, "e5m2": 57344.0}


def out_code(t, out_type, satfinite):
    if out_type == "f32":
        return bits_f32(t)
    dt = _OUT[out_type]
    v = np.array([t], np.float32).astype(dt)
    if satfinite and not math.isnan(t) and not np.isfinite(v.astype(np.float32))[0]:
        v = np.array([math.copysign(_MAX[out_type], t)], np.float32).astype(dt)
    code = int(v.view(_UINT[out_type])[0])
    if math.isnan(t):  # a NaN input: the converter's canonical NaN (an overflow keeps its sign, as ml_dtypes)
        code = {"bf16": 0x7FFF, "f16": 0x7FFF, "e4m3": 0x7F, "e5m2": 0x7F}[out_type]
    return code


def out_value(code, out_type):
    if out_type == "f32":
        return f32(code)
    return float(np.array([code], _UINT[out_type]).view(_OUT[out_type]).astype(np.float32)[0])


# ---- plans --------------------------------------------------------------------------------


def partials(A, B, e, chunks):
    out, k0 = [], 0
    for kc in chunks:
        if kc == 0:
            out.append(np.zeros((A.shape[0], B.shape[1]), np.uint32))
        else:
            out.append(tcemu.mma(A[:, k0:k0 + kc], B[k0:k0 + kc], arch=ARCH, instr=e["ptx"]))
        k0 += kc
    return out


def split_sizes(K, s, grain):
    chunk = -(-(-(-K // grain)) // s) * grain
    return [max(0, min((j + 1) * chunk, K) - min(j * chunk, K)) for j in range(s)]


def expected(A, B, e, chunks, combine, order, out_type="f32", satfinite=False, C=None, alpha=1.0, beta=0.0,
             a_scale=None, b_scale=None, bias=None):
    M, N = A.shape[0], B.shape[1]
    parts = partials(A, B, e, chunks if chunks else [A.shape[1]])
    D = np.zeros((M, N), _UINT[out_type])
    for m in range(M):
        for n in range(N):
            p = [f32(x[m, n]) for x in parts]
            c = f32(C[m, n]) if C is not None else 0.0
            sa = 1.0 if a_scale is None else float(np.float32(np.asarray(a_scale).reshape(-1)[m if np.size(a_scale) > 1 else 0]))
            sb = 1.0 if b_scale is None else float(np.float32(np.asarray(b_scale).reshape(-1)[n if np.size(b_scale) > 1 else 0]))
            bi = None if bias is None else float(np.float32(bias[n]))
            if combine == "cutlass-serial" and chunks:
                d = out_code(epilogue(order, p[0], c, alpha, beta, sa, sb, bi), out_type, satfinite)
                for pj in p[1:]:
                    d = out_code(epilogue(order, pj, out_value(d, out_type), alpha, 1.0, sa, sb, bi), out_type, satfinite)
                D[m, n] = d
                continue
            if not chunks:
                acc = p[0]
            elif combine == "f32-forward":
                acc = p[0]
                for x in p[1:]:
                    acc = add(acc, x)
            elif combine == "cutlass-parallel":
                acc = 0.0
                for x in p:
                    acc = add(acc, x)
                if beta == 0 and order == "cutlass-2x":  # ReduceSplitK: LinearCombination(acc, source cleared to +0)
                    D[m, n] = out_code(fma(alpha, acc, mul(beta, 0.0)), out_type, satfinite)
                    continue
            elif combine == "f32-tree":
                level = p
                while len(level) > 1:
                    level = [add(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                             for i in range(0, len(level), 2)]
                acc = level[0]
            D[m, n] = out_code(epilogue(order, acc, c, alpha, beta, sa, sb, bi), out_type, satfinite)
    return D


def fp8_operands(rng, M, K, N):
    # e4m3 codes of moderate magnitude (no NaN: 0x7F / 0xFF excluded), random signs
    A = rng.integers(0x20, 0x58, (M, K), dtype=np.uint8) | (rng.integers(0, 2, (M, K), dtype=np.uint8) << 7)
    B = rng.integers(0x20, 0x58, (K, N), dtype=np.uint8) | (rng.integers(0, 2, (K, N), dtype=np.uint8) << 7)
    return A, B


def f16_operands(rng, M, K, N):
    A = rng.standard_normal((M, K)).astype(np.float16).view(np.uint16)
    B = rng.standard_normal((K, N)).astype(np.float16).view(np.uint16)
    return A, B


@pytest.mark.parametrize("K,s", [(320, 2), (320, 3), (320, 5), (1024, 4), (96, 2)])
def test_cublaslt_bitequiv_plan(K, s):
    rng = np.random.default_rng(K * 31 + s)
    A, B = fp8_operands(rng, 3, K, 8)
    chunks = split_sizes(K, s, 128)
    assert tcemu.split_k_chunks(K, s, 128) == chunks
    D = tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"], plan="cublaslt-bitequiv", split_k=s)
    assert np.array_equal(D, expected(A, B, FP8, chunks, "f32-forward", "fold"))


def test_bitequiv_grain_64_for_f16():
    rng = np.random.default_rng(7)
    A, B = f16_operands(rng, 2, 208, 8)  # 208 = 3 * 64 + 16: uneven chunks, the last one empty
    chunks = split_sizes(208, 3, 64)
    assert chunks == [128, 80, 0]
    D = tcemu.gemm(A, B, arch=ARCH, instr=F16["ptx"], plan="cublaslt-bitequiv", split_k=3, out_type="bf16")
    assert np.array_equal(D, expected(A, B, F16, chunks, "f32-forward", "fold", out_type="bf16"))


def test_split_sizes_are_the_documented_formula():
    # chunk = ceil(ceil(K/G)/s)*G, the remainder in the last slices (facebookexperimental/triton #2752)
    assert tcemu.split_k_chunks(320, 3, 128) == [128, 128, 64]
    assert tcemu.split_k_chunks(320, 5, 128) == [128, 128, 64, 0, 0]
    assert tcemu.split_k_chunks(1000, 4, 64) == [256, 256, 256, 232]


@pytest.mark.parametrize("plan,grain,s", [("f32-tree", 32, 5), ("f32-tree", 32, 6), ("f32-tree", 32, 7), ("f32-tree", 32, 9), ("cutlass-parallel", 64, 3), ("f32-forward", None, 4)])
def test_combines(plan, grain, s):
    rng = np.random.default_rng(11 + s)
    A, B = fp8_operands(rng, 2, 288, 8)
    chunks = split_sizes(288, s, grain or FP8["K"])
    combine = plan
    order = "cutlass-2x" if plan.startswith("cutlass") else "fold"
    D = tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"], plan=plan, split_k=s, grain=grain)
    assert np.array_equal(D, expected(A, B, FP8, chunks, combine, order))


def test_cutlass_parallel_with_another_epilogue_applies_it():
    """The cleared-source step is LinearCombination's (cutlass-2x); another order given with the
    parallel combine runs as written, scales and bias included."""
    rng = np.random.default_rng(3)
    A, B = fp8_operands(rng, 4, 256, 8)
    sb = (rng.random(8) + 0.5).astype(np.float32)
    bias = rng.standard_normal(8).astype(np.float32)
    D = tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"], plan="cutlass-parallel", split_k=2, grain=64, epilogue="fold",
                   alpha=0.3, b_scale=sb, bias=bias)
    assert np.array_equal(D, expected(A, B, FP8, [128, 128], "cutlass-parallel", "fold", alpha=float(np.float32(0.3)),
                                      b_scale=sb, bias=bias))


@pytest.mark.parametrize("out_type", ["f32", "bf16", "e4m3"])
def test_cutlass_serial_rounds_each_partition_into_d(out_type):
    rng = np.random.default_rng(5)
    A, B = fp8_operands(rng, 3, 256, 8)
    C = (rng.standard_normal((3, 8)) * 4).astype(np.float32)
    chunks = split_sizes(256, 3, 64)
    D = tcemu.gemm(A, B, C, arch=ARCH, instr=FP8["ptx"], plan="cutlass-serial", split_k=3, grain=64, alpha=0.375,
                   beta=-1.5, out_type=out_type, satfinite=True)
    want = expected(A, B, FP8, chunks, "cutlass-serial", "cutlass-2x", out_type, True, C.view(np.uint32), 0.375, -1.5)
    assert np.array_equal(D, want)


def test_explicit_chunks_stream_k_style():
    rng = np.random.default_rng(3)
    A, B = fp8_operands(rng, 2, 320, 8)
    chunks = [32, 96, 0, 192]
    D = tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"], chunks=chunks, plan="f32-forward")
    assert np.array_equal(D, expected(A, B, FP8, chunks, "f32-forward", "fold"))
    one = tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"])
    assert np.array_equal(one, tcemu.mma(A, B, arch=ARCH, instr=FP8["ptx"]))


@pytest.mark.parametrize("order", ["fold", "cutlass-sm90", "sequential"])
@pytest.mark.parametrize("out_type,satfinite", [("f32", False), ("bf16", False), ("f16", False), ("e4m3", False),
                                                ("e4m3", True), ("e5m2", False), ("e5m2", True)])
def test_epilogue_orders_scales_bias_outputs(order, out_type, satfinite):
    rng = np.random.default_rng(len(order) * 7 + len(out_type))
    M, N, K = 4, 8, 256
    A, B = fp8_operands(rng, M, K, N)
    C = (rng.standard_normal((M, N)) * 50).astype(np.float32)
    a_scale = (rng.random(M) * 3 + 0.1).astype(np.float32)  # rowwise
    b_scale = np.float32(0.8125)                               # per tensor
    bias = (rng.standard_normal(N) * 20).astype(np.float32)
    alpha, beta = (435.3 if out_type == "e5m2" else 1.7), 0.3  # Python floats: tcemu rounds them to f32 (RNE)
    a32, b32 = float(np.float32(alpha)), float(np.float32(beta))
    kw = dict(arch=ARCH, instr=FP8["ptx"], alpha=alpha, beta=beta, a_scale=a_scale, b_scale=b_scale, bias=bias,
              out_type=out_type, satfinite=satfinite, epilogue=order, plan="cublaslt-bitequiv", split_k=2)
    D = tcemu.gemm(A, B, C, **kw)
    want = expected(A, B, FP8, split_sizes(K, 2, 128), "f32-forward", order, out_type, satfinite, C.view(np.uint32),
                    a32, b32, a_scale, b_scale, bias)
    assert D.dtype == _UINT[out_type]
    assert np.array_equal(D, want)
    if out_type in ("e4m3", "e5m2"):  # the data reach past the format's range: saturation is exercised
        mx = _MAX[out_type]
        codes = want.reshape(-1)
        if satfinite:
            assert any(abs(out_value(int(x), out_type)) == mx for x in codes)
        else:
            assert any(not np.isfinite(out_value(int(x), out_type)) for x in codes)


def test_cutlass_2x_linear_combination():
    rng = np.random.default_rng(9)
    A, B = f16_operands(rng, 3, 64, 8)
    C = rng.standard_normal((3, 8)).astype(np.float32)
    D = tcemu.gemm(A, B, C, arch=ARCH, instr=F16["ptx"], alpha=-0.7, beta=1.3, epilogue="cutlass-2x", out_type="f16")
    want = expected(A, B, F16, None, None, "cutlass-2x", "f16", False, C.view(np.uint32),
                    float(np.float32(-0.7)), float(np.float32(1.3)))
    assert np.array_equal(D, want)


def test_beta_zero_does_not_read_c():
    rng = np.random.default_rng(2)
    A, B = fp8_operands(rng, 2, 64, 8)
    C = np.full((2, 8), np.nan, np.float32)
    D = tcemu.gemm(A, B, C, arch=ARCH, instr=FP8["ptx"], beta=0.0)
    assert np.array_equal(D, tcemu.mma(A, B, arch=ARCH, instr=FP8["ptx"]))


def test_bias_types():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    A, B = fp8_operands(rng, 2, 64, 8)
    vals = rng.standard_normal(8).astype(np.float32)
    bt = torch.from_numpy(vals).to(torch.bfloat16)
    bf_codes = bt.view(torch.int16).numpy().view(np.uint16)
    widened = bf_codes.astype(np.uint32) << 16  # a bf16 code is the top half of its f32 code
    kw = dict(arch=ARCH, instr=FP8["ptx"], out_type="bf16")
    D1 = tcemu.gemm(A, B, bias=bt, **kw)
    D2 = tcemu.gemm(A, B, bias=bf_codes, bias_type="bf16", **kw)
    D3 = tcemu.gemm(A, B, bias=widened.view(np.float32), **kw)
    assert np.array_equal(D1, D2) and np.array_equal(D1, D3)
    want = expected(A, B, FP8, None, None, "fold", "bf16", bias=widened.view(np.float32))
    assert np.array_equal(D1, want)
    h = vals.astype(np.float16)
    assert np.array_equal(tcemu.gemm(A, B, bias=h, **kw), tcemu.gemm(A, B, bias=h.astype(np.float32), **kw))


def test_thread_counts_identical():
    rng = np.random.default_rng(8)
    A, B = fp8_operands(rng, 37, 640, 24)
    kw = dict(arch=ARCH, instr=FP8["ptx"], plan="cublaslt-bitequiv", split_k=3, out_type="e4m3", satfinite=True,
              a_scale=(rng.random(37) + 0.5).astype(np.float32), bias=np.linspace(-3, 3, 24, dtype=np.float32))
    d1 = tcemu.gemm(A, B, threads=1, **kw)
    for t in (2, 3, 7):
        assert np.array_equal(tcemu.gemm(A, B, threads=t, **kw), d1), t


@pytest.mark.parametrize("kw,exc,msg", [
    (dict(split_k=2, chunks=[128, 128]), ValueError, "give one of them"),
    (dict(chunks=[96, 96]), ValueError, "sum to"),
    (dict(chunks=[100, 156]), ValueError, "not a multiple"),
    (dict(plan="nope"), ValueError, "unknown plan"),
    (dict(epilogue="nope"), ValueError, "unknown epilogue order"),
    (dict(plan="cutlass-parallel", split_k=2), ValueError, "give grain"),
    (dict(plan="cublaslt-bitequiv", split_k=2, grain=64), ValueError, "fixes the grain"),
    (dict(split_k=0), ValueError, "outside"),
    (dict(split_k=5000), ValueError, "outside"),
    (dict(grain=64), ValueError, "with split_k only"),
    (dict(out_type="tf32"), ValueError, "out_type"),
    (dict(out_round="rs"), ValueError, "random bits"),
    (dict(out_round="zz"), ValueError, "unknown rounding"),
    (dict(a_scale=np.ones(3, np.float32)), ValueError, "a_scale"),
    (dict(b_scale=np.ones((2, 8), np.float32)), ValueError, "b_scale"),
    (dict(a_scale=np.ones(2, np.int32)), TypeError, "a_scale"),
    (dict(bias=np.ones(7, np.float32)), ValueError, "bias"),
    (dict(bias=np.ones(8, np.int64)), TypeError, "bias"),
    (dict(bias_type="bf16"), ValueError, "without a bias"),
    (dict(epilogue="cutlass-2x", bias=np.ones(8, np.float32)), ValueError, "no scales and no bias"),
    (dict(plan="cutlass-serial", split_k=2, grain=64, epilogue="fold"), ValueError, "cutlass-2x"),
    (dict(alpha="1"), TypeError, "alpha"),
    (dict(satfinite=1), TypeError, "satfinite"),
    (dict(threads=0), ValueError, "threads"),
    (dict(scale_a=np.ones((2, 8), np.uint8)), ValueError, "no block scales"),
])
def test_bad_input(kw, exc, msg):
    rng = np.random.default_rng(0)
    A, B = fp8_operands(rng, 2, 256, 8)
    with pytest.raises(exc, match=msg):
        tcemu.gemm(A, B, arch=ARCH, instr=FP8["ptx"], **kw)


def test_bad_c_and_integer_instruction():
    rng = np.random.default_rng(0)
    A, B = fp8_operands(rng, 2, 64, 8)
    with pytest.raises(ValueError, match="c: shape"):
        tcemu.gemm(A, B, np.zeros((2, 7), np.float32), arch=ARCH, instr=FP8["ptx"])
    with pytest.raises(TypeError, match="c"):
        tcemu.gemm(A, B, np.zeros((2, 8), np.float16), arch=ARCH, instr=FP8["ptx"])
    s8 = [r for r in tcemu.instructions(ARCH) if r["dtype"] == "s32"][0]
    with pytest.raises(ValueError, match="s32"):
        tcemu.gemm(np.zeros((2, s8["K"]), np.uint8), np.zeros((s8["K"], 8), np.uint8), arch=ARCH, instr=s8["ptx"])


def test_epilogue_steps_text():
    assert "fma(g, acc, bias)" in tcemu.gemm_epilogue_steps("cutlass-sm90")
    assert {p["name"] for p in tcemu.gemm_plans()} >= {"cublaslt-bitequiv", "cutlass-serial", "cutlass-parallel"}


def test_zero_signs_of_cutlass_epilogues():
    # A = 0: every partial is +0. LinearCombination with beta = 0 computes alpha * acc = -0 for
    # alpha < 0 (the source is not needed); ReduceSplitK passes a cleared source instead:
    # fma(alpha, +0, 0 * +0) = +0 (include/cutlass/reduction/kernel/reduce_split_k.h).
    A = np.zeros((2, 128), np.uint8)
    B = np.full((128, 8), 0x38, np.uint8)
    kw = dict(arch=ARCH, instr=FP8["ptx"], alpha=-1.0, epilogue="cutlass-2x")
    assert (tcemu.gemm(A, B, **kw) == 0x80000000).all()
    assert (tcemu.gemm(A, B, plan="cutlass-parallel", split_k=2, grain=64, **kw) == 0).all()
    # serial: partition 0 writes alpha * +0 = -0, partition 1 fma(alpha, +0, 1 * -0) = -0
    assert (tcemu.gemm(A, B, plan="cutlass-serial", split_k=2, grain=64, **kw) == 0x80000000).all()


def test_f16_accumulator_partials_widen_exactly():
    e = _instr("f16", "f16")
    rng = np.random.default_rng(12)
    A, B = f16_operands(rng, 2, 320, 8)
    chunks = split_sizes(320, 3, 64)
    D = tcemu.gemm(A, B, arch=ARCH, instr=e["ptx"], plan="cublaslt-bitequiv", split_k=3, out_type="f16")
    parts = partials(A, B, e, chunks)  # f16 codes
    want = np.zeros((2, 8), np.uint16)
    for m in range(2):
        for n in range(8):
            p = [float(np.array([x[m, n]], np.uint16).view(np.float16)[0]) for x in parts]  # exact widening
            acc = p[0]
            for x in p[1:]:
                acc = add(acc, x)
            want[m, n] = out_code(epilogue("fold", acc, 0.0, 1.0, 0.0, 1.0, 1.0, None), "f16", False)
    assert np.array_equal(D, want)


def test_block_scaled_chunks_slice_the_scales():
    arch = "sm_100a"
    ptx = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
    kw = dict(arch=arch, instr=ptx, atype="e4m3", btype="e4m3", dtype="f32", stype="ue8m0")
    rng = np.random.default_rng(13)
    M, N, K = 2, 8, 256
    A, B = fp8_operands(rng, M, K, N)
    SA = rng.integers(120, 134, (M, K // 32), dtype=np.uint8)
    SB = rng.integers(120, 134, (K // 32, N), dtype=np.uint8)
    chunks = [64, 160, 32]
    D = tcemu.gemm(A, B, scale_a=SA, scale_b=SB, chunks=chunks, **kw)
    parts, k0 = [], 0
    for kc in chunks:
        parts.append(tcemu.mma(A[:, k0:k0 + kc], B[k0:k0 + kc], scale_a=SA[:, k0 // 32:(k0 + kc) // 32],
                               scale_b=SB[k0 // 32:(k0 + kc) // 32], **kw))
        k0 += kc
    want = np.zeros((M, N), np.uint32)
    for m in range(M):
        for n in range(N):
            acc = f32(parts[0][m, n])
            for x in parts[1:]:
                acc = add(acc, f32(x[m, n]))
            want[m, n] = bits_f32(acc)
    assert np.array_equal(D, want)
    with pytest.raises(ValueError, match="scale block"):
        tcemu.gemm(A, B, scale_a=SA, scale_b=SB, chunks=[48, 208], **kw)
