"""MMA-Sim against the catalog (issue 27; docs/datapath.md, "MMA-Sim in CI"): Microsoft's
bit-accurate tensor-core model [MS], the Python package index's `mmasim` (pinned in
requirements.txt; docs/sources.md says why it is that project), run on random dot products of
every instruction family that both model, compared bit for bit with tcemu.mma. The known
classes of difference are listed in KNOWN and in docs/datapath.md with their evidence; an
element that differs for any other reason fails the test, and so does a family of MMA-Sim's
tables that maps to no catalog entry without a reason in NOT_COMPARED. A missing mmasim fails
(it does not skip).

MMA-Sim compiles a small C++ file (arithmetic/fma_cpu.cpp) through torch.utils.cpp_extension
when imported, into $TORCH_EXTENSIONS_DIR (torch's default: ~/.cache/torch_extensions)."""

import functools
import gzip
import os

import numpy as np
import pytest

import tcemu

import torch  # noqa: E402  (pinned: requirements.txt, as mmasim)
from mmasim.nv_ptx import MMA, MMABlockScale, TCGen05MMA, TCGen05MMABlockScale, WGMMA  # noqa: E402
from mmasim.nv_ptx import isa_mma, isa_tcgen05mma, isa_wgmma  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
HW = os.path.join(HERE, "..", "..", "tests", "data", "hw-vectors")

# MMA-Sim's architecture names and the catalog's.
MMA_ARCH = {"Volta": "sm_70", "Ampere": "sm_80", "Ada Lovelace": "sm_89", "Hopper": "sm_90",
            "Blackwell": "sm_100", "RTX Blackwell": "sm_120"}
# Families of MMA-Sim's tables that are not compared, and why.
NOT_COMPARED = {
    "Turing": "the catalog has no sm_75",
    "f64": "the catalog has no f64 MMA (MMA-Sim chains IEEE FMAs: MMA_FMA)",
    "mixed": "C and D in different formats (m8n8k4 .f32 ... .f16): the catalog keeps them in one (docs/datapath.md §3)",
    "mxf4nvf4.block16.ue8m0 mma.sync": "mma.sync kind::mxf4nvf4 scale_vec::4X with ue8m0 scales is not in the catalog "
                                       "(ptxas 13.0 rejects it; docs/datapath.md §9)",
}

# ---- the families, from MMA-Sim's own tables --------------------------------------------


def _mma_sync_cases():
    out = []
    for arch, shapes in isa_mma.mma_shape_and_type.items():
        for st in shapes:
            if arch not in MMA_ARCH:
                out.append(("skip", arch, st, NOT_COMPARED["Turing"]))
                continue
            q = st.split(".")
            if "f64" in q:
                out.append(("skip", arch, st, NOT_COMPARED["f64"]))
                continue
            if q[1] != q[-1] and not q[1].startswith("kind::"):
                out.append(("skip", arch, st, NOT_COMPARED["mixed"]))
                continue
            if len(q) == 6:  # m16n8k32.kind::f8f6f4.d.a.b.c
                shape, kind, d, a, b, c = q
                instr = f"mma.sync.aligned.{shape}.row.col.{kind}.{d}.{a}.{b}.{c}"
                tarch = "sm_120a"
            else:
                shape, d, a, b, c = q
                instr = f"mma.sync.aligned.{shape}.row.col.{d}.{a}.{b}.{c}"
                tarch = MMA_ARCH[arch]
            out.append((MMA, arch, st, (tarch, instr, None, None, None, None)))
    for arch, shapes in isa_mma.mma_block_scale_shape_and_type.items():
        for st in shapes:
            shape, kind, block, d, a, b, c, s = st.split(".")
            if kind == "kind::mxf4nvf4" and block == "block16" and s == "ue8m0":
                out.append(("skip", arch, st, NOT_COMPARED["mxf4nvf4.block16.ue8m0 mma.sync"]))
                continue
            vec = {"block32": "1X" if kind == "kind::mxf8f6f4" else "2X", "block16": "4X"}[block]
            instr = f"mma.sync.aligned.{shape}.row.col.{kind}.block_scale.scale_vec::{vec}.{d}.{a}.{b}.{c}.{s}"
            out.append((MMABlockScale, arch, st, ("sm_120a", instr, None, None, None, None)))
    return out


def _first_n(shapes):
    """One spelling per shape-and-type with the smallest N (a dot product does not depend on N)."""
    seen, out = set(), []
    for st in shapes:
        key = st.split("n", 1)[0] + "." + st.split(".", 1)[1] + st.split("k", 1)[1].split(".")[0]
        if key not in seen:
            seen.add(key)
            out.append(st)
    return out


def _wgmma_cases():
    out = []
    for st in _first_n(isa_wgmma.wgmma_shape_and_type["Hopper"]):
        shape, d, a, b = st.split(".")
        out.append((WGMMA, "Hopper", st, ("sm_90a", f"wgmma.mma_async.sync.aligned.{shape}.{d}.{a}.{b}",
                                          None, None, None, None)))
    return out


def _tcgen05_cases():
    out = []
    for st in _first_n([s for s in isa_tcgen05mma.tcgen05mma_shape_and_type["Blackwell"] if s.startswith("m128")]):
        shape, kind, d, a, b = st.split(".")
        out.append((TCGen05MMA, "Blackwell", st, ("sm_100a", f"tcgen05.mma.cta_group::1.{kind}", a, b, d, None)))
    for st in _first_n(isa_tcgen05mma.tcgen05mma_block_scale_shape_and_type["Blackwell"]):
        shape, kind, block, d, a, b, s = st.split(".")
        vec = {"block32": "1X" if kind == "kind::mxf8f6f4" else "2X", "block16": "4X"}[block]
        out.append((TCGen05MMABlockScale, "Blackwell", st,
                    ("sm_100a", f"tcgen05.mma.cta_group::1.{kind}.block_scale.scale_vec::{vec}", a, b, d, s)))
    return out


CASES = _mma_sync_cases() + _wgmma_cases() + _tcgen05_cases()
COMPARED = [c for c in CASES if c[0] != "skip"]


def _id(c):
    return f"{c[1]}:{c[2]}"


# ---- operands ---------------------------------------------------------------------------

# (exponent bits, mantissa bits) of each format's code (tf32 in its f32 container).
LAYOUT = {"f32": (8, 23), "tf32": (8, 23), "f16": (5, 10), "bf16": (8, 7), "e4m3": (4, 3), "e5m2": (5, 2),
          "e3m2": (3, 2), "e2m3": (2, 3), "e2m1": (2, 1), "ue8m0": (8, 0), "ue4m3": (4, 3)}
TORCH = {"f32": torch.float32, "tf32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16,
         "e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "ue8m0": torch.float8_e8m0fnu,
         "ue4m3": torch.float8_e4m3fn}
INT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def _container(fmt):
    return INT[4] if fmt in ("f32", "tf32") else INT[2] if fmt in ("f16", "bf16") else INT[1]


def random_codes(rng, fmt, shape, kind):
    """Codes of `fmt`: sign | exponent field | mantissa, the exponent field drawn per `kind`:
    'bits' every code (NaN and Inf included), 'mid' a window around the bias (ordinary
    values), 'wide' every finite exponent, 'tiny' subnormals and the lowest binade, 'sub'
    subnormals only."""
    e, m = LAYOUT[fmt]
    n = int(np.prod(shape))
    width = 1 + e + m
    if kind == "bits":
        c = rng.integers(0, 1 << width, n, dtype=np.uint64)
    else:
        top = (1 << e) - 1  # the all-ones field: Inf/NaN in f32/f16/bf16/e5m2, values in e4m3 and FP6/FP4
        has_specials = fmt in ("f32", "tf32", "f16", "bf16", "e5m2")
        hi = top - 1 if has_specials else top
        bias = (1 << (e - 1)) - 1
        if kind == "mid":
            lo_e, hi_e = max(1, bias - 3), min(hi, bias + 3)
        elif kind == "wide":
            lo_e, hi_e = 0, hi
        elif kind == "tiny":
            lo_e, hi_e = 0, min(hi, 1)
        else:  # sub: subnormals only
            lo_e, hi_e = 0, 0
        ex = rng.integers(lo_e, hi_e + 1, n, dtype=np.uint64)
        man = rng.integers(0, 1 << m, n, dtype=np.uint64)
        sign = rng.integers(0, 2, n, dtype=np.uint64)
        c = (sign << (e + m)) | (ex << m) | man
        if fmt == "e4m3":  # 0x7f / 0xff are NaN: keep them out of the non-'bits' kinds
            c = np.where((c & 0x7f) == 0x7f, c - 1, c)
    if fmt == "tf32":
        c = c & ~np.uint64(0x1FFF) | rng.integers(0, 0x2000, n, dtype=np.uint64)  # low bits the tensor core ignores
    return c.astype(_container(fmt)).reshape(shape)


KINDS = ["mid", "mid", "wide", "tiny", "bits", "sub"]


def operands(rng, atype, btype, ctype, M, K, N):
    """A (M x K), B (K x N), C (M x N) codes: rows of A and columns of B of every kind, some
    zeros, planted cancelling pairs (a_{k+1} = -a_k, b_{k+1} = b_k when both formats agree),
    C from every kind with rows of +-0 and +-Inf, and +-0 in the rows of subnormal A (where
    results round to zero)."""
    kinds = KINDS
    A = np.concatenate([random_codes(rng, atype, (1, K), kinds[i % len(kinds)]) for i in range(M)])
    B = np.concatenate([random_codes(rng, btype, (K, 1), kinds[(j + 3) % len(kinds)]) for j in range(N)], axis=1)
    A[rng.random((M, K)) < 0.1] = 0
    B[rng.random((K, N)) < 0.1] = 0
    if atype == btype:
        sign = np.array(1 << (sum(LAYOUT[atype]) if atype != "tf32" else 31), dtype=np.uint64).astype(A.dtype)
        for i in range(0, M, 3):
            ks = rng.choice(K - 1, size=max(1, K // 8), replace=False)
            A[i, ks + 1] = A[i, ks] ^ sign
            B[ks + 1, :] = B[ks, :]
    C = np.concatenate([random_codes(rng, ctype, (1, N), kinds[i % len(kinds)]) for i in range(M)])
    sign_c = np.array(1 << (sum(LAYOUT[ctype])), dtype=np.uint64).astype(C.dtype)
    C[0, :] = 0
    C[1, ::2] = sign_c
    inf = np.array(((1 << LAYOUT[ctype][0]) - 1) << LAYOUT[ctype][1], dtype=np.uint64).astype(C.dtype)
    C[2, ::3] = inf
    C[2, 1::3] = inf | sign_c
    for i in range(M):
        if kinds[i % len(kinds)] in ("tiny", "sub"):
            C[i, :] = 0
            C[i, ::2] = sign_c
    return A, B, C


def scales(rng, stype, shape):
    if stype == "ue8m0":
        s = rng.integers(127 - 12, 127 + 12, shape).astype(np.uint8)
        s.flat[:: 11] = rng.integers(0, 256, s.flat[:: 11].shape).astype(np.uint8)  # the whole range, NaN 0xff too
    else:  # ue4m3: the sign bit is ignored by both
        s = rng.integers(0, 256, shape).astype(np.uint8)
    return s


# ---- the two models ---------------------------------------------------------------------


def _t(codes, fmt):
    """MMA-Sim's input tensor of a code array: the format's torch dtype, or (FP6/FP4 in
    T-/ST-FDPA) a uint8 with the code in bits 5:0 (FP6) or 5:2 (FP4), as helper.py's
    decode_uint8_to_fp6_fp4 reads them."""
    codes = np.ascontiguousarray(codes)
    if fmt in TORCH:
        signed = {1: np.uint8, 2: np.int16, 4: np.int32}[codes.dtype.itemsize]
        return torch.from_numpy(codes.view(signed).copy()).view(TORCH[fmt])
    if fmt == "e2m1":
        return torch.from_numpy((codes.astype(np.uint8) << 2).astype(np.uint8))
    return torch.from_numpy(codes.astype(np.uint8))


def _codes(t, dfmt):
    t = t.contiguous()
    if dfmt == "f32":
        return t.view(torch.int32).numpy().view(np.uint32)
    return t.view(torch.int16).numpy().view(np.uint16)


def _pack_fp4(codes):
    """Two e2m1 codes per byte, element 2i in the high nibble (helper.py unpack_uint8_to_fp4)."""
    c = codes.astype(np.uint8)
    return torch.from_numpy(np.ascontiguousarray((c[..., 0::2] << 4) | c[..., 1::2]))


def mmasim_d(op, cls, A, B, C, SA, SB, at, bt, dt, st):
    """D through MMA-Sim: one call of the operation object per instruction (op.k terms of K),
    each instruction's D the next one's C."""
    gst = cls in (MMABlockScale, TCGen05MMABlockScale) and op.k == 64
    if gst:
        ta, tb = _pack_fp4(A), _pack_fp4(np.ascontiguousarray(B.T)).T
        step = op.k // 2  # two codes per byte
    else:
        ta, tb = _t(A, at), _t(B, bt)
        step = op.k
    d = _t(C, dt)
    for i in range(0, ta.shape[1], step):
        a, b = ta[:, i:i + step], tb[i:i + step, :]
        if SA is None:
            d = op(a, b, d)
        else:
            j, n = (i * (2 if gst else 1)) // op.block_size, op.k // op.block_size
            d = op(a, b, d, _t(SA[:, j:j + n], st), _t(SB[j:j + n, :], st))
    return _codes(d, dt)


def mmasim_params(op):
    """The datapath of an MMA-Sim operation object, in the catalog's vocabulary."""
    f = op.arithmetic_op
    rho = {"RZ-FP32": "rz_f32", "RNE-FP16": "rne_f16", "RZ-E8M13": "rz_e8m13"}[f.rho]
    kind = type(f).__name__
    return {"kind": {"MMA_T_FDPA": "t_fdpa", "MMA_ST_FDPA": "st_fdpa", "MMA_GST_FDPA": "gst_fdpa"}[kind],
            "L_max": f.L_max, "F": f.F, "e_zero": f.e_zero,
            "rounding": rho, "group": getattr(f, "G", None)}


@functools.lru_cache(maxsize=None)
def _instructions(arch):
    return tcemu.instructions(arch)


def entry(case):
    """The catalog row of a case (tcemu.instructions), failing when there is none."""
    _, arch, st, (tarch, instr, at, bt, dt, stp) = case
    rows = [r for r in _instructions(tarch) if r["ptx"] == instr and (at is None or r["atype"] == at)
            and (bt is None or r["btype"] == bt) and (dt is None or r["dtype"] == dt)
            and (stp is None or r["scale_type"] == stp)]
    if len(rows) != 1:
        pytest.fail(f"MMA-Sim {arch} {st}: {len(rows)} catalog entries for {tarch} {instr} {at} {bt} {dt} {stp}")
    return rows[0]


def op_of(case):
    cls, arch, st, _ = case
    return cls(arch, st)


# ---- the known classes of difference (docs/datapath.md, "MMA-Sim in CI") -----------------

# 1. "e_zero": the zero-term exponent of f16-output instructions. MMA-Sim (sim.py
#    _mma_e_zero_for_fp16; WGMMA and TCGen05MMA -21) and the catalog differ by one on every
#    mma.sync/wgmma f16 output, and wgmma FP8 -> f16 and tcgen05 f16 outputs keep the f32
#    value -133 in the catalog. Neither the hw-vectors f16-output rows nor the H200 records tell
#    the values apart (test_e_zero_difference_is_not_decided_by_the_measurements).
# 2. "zero sign": MMA-Sim returns +0 for every zero result (fdpa.py: `+ 0.0`); the catalog does
#    so on Hopper (positive_zero, H200 finding 2) and keeps the sign of a nonzero sum that
#    rounds to zero elsewhere (unmeasured).
# Issue 27 also expected failures of MMA-Sim on an Inf C: 2.1.1 has none (C = +-Inf rows of the
# random test and every special C of test_specials agree bit for bit), so there is no class.
KNOWN = ("e_zero", "zero sign")


def params_difference(e, op):
    """{name: (tcemu, MMA-Sim)} for the datapath parameters that differ."""
    p, m = e["params"], mmasim_params(op)
    diff = {}
    K = e["K"]
    if p["kind"] != m["kind"]:
        diff["kind"] = (p["kind"], m["kind"])
    if min(p["L"], K) != min(m["L_max"], K):
        diff["L"] = (p["L"], m["L_max"])
    for k in ("F", "e_zero", "rounding"):
        if p[k] != m[k]:
            diff[k] = (p[k], m[k])
    if p["kind"] == "gst_fdpa" and p["group"] != m["group"]:
        diff["group"] = (p["group"], m["group"])
    if not p["positive_zero"]:
        diff["positive_zero"] = (False, True)
    for k, v in (("c_entry", "fused"), ("widen_to_f16", False), ("kpair_halves", False), ("satfinite", False)):
        if p[k] != v:
            diff[k] = (p[k], v)
    return diff


@pytest.mark.parametrize("case", COMPARED, ids=_id)
def test_datapath_parameters(case):
    """MMA-Sim's datapath of each family equals the catalog's but for the known classes:
    e_zero on f16 outputs, and +0 results off Hopper."""
    e, op = entry(case), op_of(case)
    diff = params_difference(e, op)
    allowed = {"positive_zero"}
    if e["dtype"] == "f16":
        allowed.add("e_zero")
    unknown = {k: v for k, v in diff.items() if k not in allowed}
    assert not unknown, f"{e['arch']} {e['ptx']}: datapath differs from MMA-Sim's beyond the known classes: {unknown}"
    if "positive_zero" in diff:
        assert not e["arch"].startswith("sm_90"), "Hopper entries give +0 results (docs/hw-h200.md finding 2)"


def test_every_family_is_compared_or_has_a_reason():
    """Every shape-and-type of MMA-Sim's tables is compared or listed in NOT_COMPARED, and the
    compared ones cover every family of instruction both model."""
    tables = (sum(isa_mma.mma_shape_and_type.values(), []) + sum(isa_mma.mma_block_scale_shape_and_type.values(), [])
              + _first_n(isa_wgmma.wgmma_shape_and_type["Hopper"])
              + _first_n([s for s in isa_tcgen05mma.tcgen05mma_shape_and_type["Blackwell"] if s.startswith("m128")])
              + _first_n(isa_tcgen05mma.tcgen05mma_block_scale_shape_and_type["Blackwell"]))
    assert len(CASES) == len(tables)
    for c in CASES:
        if c[0] == "skip":
            assert c[3] in NOT_COMPARED.values()
    families = {(c[0].__name__, c[3][0]) for c in COMPARED}
    assert families == {("MMA", "sm_70"), ("MMA", "sm_80"), ("MMA", "sm_89"), ("MMA", "sm_90"), ("MMA", "sm_100"),
                        ("MMA", "sm_120"), ("MMA", "sm_120a"), ("MMABlockScale", "sm_120a"), ("WGMMA", "sm_90a"),
                        ("TCGen05MMA", "sm_100a"), ("TCGen05MMABlockScale", "sm_100a")}, families
    kinds = {entry(c)["params"]["kind"] for c in COMPARED}
    assert kinds == {"t_fdpa", "st_fdpa", "gst_fdpa"}


def _tcemu_d(e, A, B, C, SA, SB, params=None):
    if params is None:
        return tcemu.mma(A, B, C, arch=e["arch"], instr=e["ptx"], atype=e["atype"], btype=e["btype"],
                         dtype=e["dtype"], stype=e["scale_type"], scale_a=SA, scale_b=SB, threads=1)
    return tcemu.mma_params(A, B, C, params=params, atype=e["atype"], btype=e["btype"], instr_k=e["K"],
                            stype=e["scale_type"], scale_block=e["scale_block"], scale_a=SA, scale_b=SB)


def case_operands(case, e, seed):
    rng = np.random.default_rng(seed)
    K = 2 * e["K"]  # two chained instructions
    M, N = 24, 8
    A, B, C = operands(rng, e["atype"], e["btype"], e["dtype"], M, K, N)
    SA = SB = None
    if e["scale_type"] is not None:
        kb = K // e["scale_block"]
        SA, SB = scales(rng, e["scale_type"], (M, kb)), scales(rng, e["scale_type"], (kb, N))
    return A, B, C, SA, SB


def classify(case, e, op, A, B, C, SA, SB, want, got):
    """{class: count} of the elements where MMA-Sim (want) and the catalog (got) differ, and the
    indices no known class explains."""
    bad = want != got
    if not bad.any():
        return {}, np.zeros(0, int)
    m = mmasim_params(op)
    p = dict(e["params"])
    found = {}
    explained = np.zeros(want.shape, bool)
    # tcemu with MMA-Sim's choice for each known class, and for both
    ez, zs = KNOWN
    variants = {zs: {**p, "positive_zero": True}}
    if p["e_zero"] != m["e_zero"]:
        variants[ez] = {**p, "e_zero": m["e_zero"]}
        variants[f"{ez}+{zs}"] = {**p, "e_zero": m["e_zero"], "positive_zero": True}
    for name, q in variants.items():
        if q == p:
            continue
        d = _tcemu_d(e, A, B, C, SA, SB, q)
        hit = bad & ~explained & (d == want)
        if hit.any():
            for part in name.split("+"):
                found[part] = found.get(part, 0) + int(hit.sum())
            explained |= hit
    rest = np.argwhere(bad & ~explained)
    return found, rest


@pytest.mark.parametrize("case", COMPARED, ids=_id)
def test_random_dot_products(case):
    """Random dot products (ordinary, wide, subnormal, random-bit rows, zeros, cancelling
    pairs, C of every kind with +-0 and +-Inf; K of one instruction, and two chained ones
    where MMA-Sim chains them) through MMA-Sim and through tcemu.mma with the catalog entry:
    bit for bit, but for the known classes."""
    e, op = entry(case), op_of(case)
    seed = sum(map(ord, _id(case)))
    A, B, C, SA, SB = case_operands(case, e, seed)
    want = mmasim_d(op, case[0], A, B, C, SA, SB, e["atype"], e["btype"], e["dtype"], e["scale_type"])
    got = _tcemu_d(e, A, B, C, SA, SB)
    found, rest = classify(case, e, op, A, B, C, SA, SB, want, got)
    if len(rest):
        ex = "; ".join(f"D[{i},{j}] MMA-Sim {int(want[i, j]):x} tcemu {int(got[i, j]):x} (C {int(C[i, j]):x})"
                       for i, j in rest[:5])
        pytest.fail(f"{e['arch']} {e['ptx']} {e['atype']}.{e['btype']}->{e['dtype']}: {len(rest)} of {want.size} "
                    f"elements differ for no known reason: {ex}")


# ---- evidence for the e_zero class --------------------------------------------------------

def _hex_rows(path):
    with gzip.open(path, "rt") as f:
        return np.array([[int(t, 16) for t in line.split()] for line in f], dtype=np.uint32)


def _bin_rows(path):
    with gzip.open(path, "rt") as f:
        return np.array([int(line.strip(), 2) for line in f], dtype=np.uint32)


# hw-vectors f16 -> f16 sets (tests/data/hw-vectors/README.md) and MMA-Sim's instruction for them.
HW_F16 = {"V100": ("Volta", "m8n8k4.f16.f16.f16.f16", -20), "A100": ("Ampere", "m16n8k16.f16.f16.f16.f16", -21),
          "Ada": ("Ada Lovelace", "m16n8k16.f16.f16.f16.f16", -21),
          "H100": ("Hopper", "m16n8k16.f16.f16.f16.f16", -22), "B200": ("Blackwell", "m16n8k16.f16.f16.f16.f16", -22)}


@pytest.mark.parametrize("gpu", list(HW_F16))
def test_e_zero_difference_hw_vectors_cannot_tell(gpu):
    """MMA-Sim reproduces every f16-output hw-vectors row with its own f16 e_zero and with the
    catalog's (one lower): the measured rows do not decide between them."""
    arch, st, catalog_e_zero = HW_F16[gpu]
    d = os.path.join(HW, gpu, "fp16")
    a = torch.from_numpy(_hex_rows(os.path.join(d, f"a_{gpu}_fp16.txt.gz")).view(np.float32)).half()
    b = torch.from_numpy(_hex_rows(os.path.join(d, f"b_{gpu}_fp16.txt.gz")).view(np.float32)).half()
    c = torch.from_numpy(_bin_rows(os.path.join(d, f"c_{gpu}_fp32.txt.gz")).view(np.float32)).half()  # RNE, as measured
    want = torch.from_numpy(_bin_rows(os.path.join(d, f"d_{gpu}_fp16.txt.gz")).view(np.float32)).half()
    op = MMA(arch, st)
    own = op.arithmetic_op.e_zero
    assert own == catalog_e_zero + 1
    for ez in (own, catalog_e_zero):
        op.arithmetic_op.e_zero = ez
        got = op.dpa(a, b, c)
        assert torch.equal(got.view(torch.int16), want.view(torch.int16)), f"{gpu} e_zero {ez}"
    row = [r for r in tcemu.instructions(MMA_ARCH[arch]) if r["ptx"] == f"mma.sync.aligned.{st.split('.')[0]}.row.col.f16.f16.f16.f16"]
    assert row and row[0]["params"]["e_zero"] == catalog_e_zero


H200 = os.path.join(HERE, "..", "..", "golden", "hw", "h200", "mma_record.tar.gz")
# The H200's f16-output records (docs/hw-h200.md) and MMA-Sim's instruction for each.
H200_F16 = {"mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16": (MMA, "m16n8k16.f16.f16.f16.f16"),
            "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16_scale-d1": (WGMMA, "m64n8k16.f16.f16.f16"),
            "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3_scale-d1": (WGMMA, "m64n8k32.f16.e4m3.e4m3"),
            "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2_scale-d1": (WGMMA, "m64n8k32.f16.e5m2.e5m2")}


def _h200_tiles():
    import tarfile
    want = {f"mma/{n}.txt": n for n in H200_F16}
    out = {}
    with tarfile.open(H200, "r:gz") as tar:
        for m in tar:
            if m.name in want:
                out[want[m.name]] = tar.extractfile(m).read().decode()
    assert set(out) == set(H200_F16), f"{H200}: missing {set(H200_F16) - set(out)}"
    return out


def _parse_record(text):
    shape, fmt, tiles = {}, {}, []
    for line in text.splitlines():
        t = line.split()
        if not t or t[0].startswith("#"):
            continue
        if t[0] == "shape":
            shape = {k: int(v) for k, v in (x.split("=") for x in t[1:])}
        elif t[0] == "formats":
            fmt = dict(x.split("=") for x in t[1:])
        elif t[0] == "tile":
            tiles.append({"label": " ".join(t[2:])})
        elif t[0] in ("A", "B", "C", "D") and tiles:  # codes of one width: 2, 4 or 8 hex digits
            big_endian = {2: ">u1", 4: ">u2", 8: ">u4"}[len(t[1])]
            tiles[-1][t[0]] = np.frombuffer(bytes.fromhex("".join(t[1:])), big_endian).astype(np.uint32)
    return shape, fmt, tiles


def test_e_zero_difference_h200_cannot_tell():
    """MMA-Sim with its own f16 e_zero (-21) reproduces every element of the H200's f16-output
    records, as the catalog's -22 (mma.sync, wgmma f16) and -133 (wgmma FP8) do; -133 for the
    f16 wgmma (the catalog's value before the H200 records) misses only the e_zero tie probe."""
    for name, text in _h200_tiles().items():
        cls, st = H200_F16[name]
        shape, fmt, tiles = _parse_record(text)
        M, N, K = shape["M"], shape["N"], shape["K"]
        op = cls("Hopper", st)
        assert op.arithmetic_op.e_zero == -21
        catalog = -133 if "e4m3" in st or "e5m2" in st else -22
        # every tile's M x N dot products at once, through the operation's dpa on [..., K] vectors
        A = _t(np.stack([t["A"] for t in tiles]).astype(_container(fmt["A"])).reshape(-1, M, K), fmt["A"])
        B = _t(np.stack([t["B"] for t in tiles]).astype(_container(fmt["B"])).reshape(-1, K, N), fmt["B"])
        C = _t(np.stack([t["C"] for t in tiles]).astype(np.uint16).reshape(-1, M, N), "f16")
        hw = np.stack([t["D"] for t in tiles]).astype(np.uint16).reshape(-1, M, N)
        a = A[:, :, None, :].expand(-1, -1, N, -1)
        b = B.transpose(1, 2)[:, None, :, :].expand(-1, M, -1, -1)
        for ez in (-21, catalog, -133):
            op.arithmetic_op.e_zero = ez
            D = _codes(op.dpa(a, b, C), "f16").reshape(hw.shape)
            missed = {tiles[i]["label"] for i in np.nonzero((D != hw).any(axis=(1, 2)))[0]}
            if ez == -133 and catalog == -22:
                assert missed == {"probe:e_zero-tie"}, (name, sorted(missed))
            else:
                assert not missed, (name, ez, sorted(missed))


# ---- directed: one dot product per known class, and the specials ----------------------

def _one_dot(case, a, b, c):
    """D of one dot product (codes a, b of length K of one instruction, accumulator c) through
    MMA-Sim, the catalog entry, and the catalog entry with MMA-Sim's e_zero and +0 results."""
    e, op = entry(case), op_of(case)
    K = e["K"]
    A = np.zeros((1, K), _container(e["atype"]))
    B = np.zeros((K, 1), _container(e["btype"]))
    A[0, :len(a)] = a
    B[:len(b), 0] = b
    C = np.array([[c]], _container(e["dtype"]))
    ms = int(mmasim_d(op, case[0], A, B, C, None, None, e["atype"], e["btype"], e["dtype"], None)[0, 0])
    tc = int(_tcemu_d(e, A, B, C, None, None)[0, 0])
    adj = int(_tcemu_d(e, A, B, C, None, None, {**e["params"], "e_zero": op.arithmetic_op.e_zero,
                                                 "positive_zero": True})[0, 0])
    return ms, tc, adj


def _case(arch, st):
    return next(c for c in COMPARED if c[1] == arch and c[2] == st)


@pytest.mark.parametrize("case", [c for c in COMPARED if ".f16.f16.f16" in "." + c[2].split(".", 1)[1]
                                  or c[2].endswith("f16.f16.f16")], ids=_id)
def test_e_zero_class_directed(case):
    """The products 2^-25 (half of f16's smallest subnormal) and 2^max(e_zero - F, -48), C = 0:
    the catalog's e_zero keeps the second one, which breaks the tie upwards (D = 2^-24, code
    0x0001); MMA-Sim's e_zero, one higher (or -21 against the catalog's -133 on tcgen05),
    truncates it and the tie rounds to even (+0)."""
    e, op = entry(case), op_of(case)
    p = e["params"]
    t = max(p["e_zero"] - p["F"], -48)  # a weight the catalog's step keeps (-48: f16's smallest product)
    assert t < op.arithmetic_op.e_zero - op.arithmetic_op.F, "MMA-Sim's step must truncate it"
    f16 = lambda x: int(np.float16(x).view(np.uint16))  # exact powers of two within f16's range
    a = [f16(2.0 ** -14), f16(2.0 ** -24)]
    b = [f16(2.0 ** -11), f16(2.0 ** (t + 24))]
    ms, tc, adj = _one_dot(case, a, b, 0)
    assert (ms, tc, adj) == (0x0000, 0x0001, 0x0000), (hex(ms), hex(tc), hex(adj))


@pytest.mark.parametrize("arch,st", [("Ampere", "m16n8k8.f32.bf16.bf16.f32"), ("Blackwell", "m16n8k16.f32.bf16.bf16.f32"),
                                     ("Hopper", "m16n8k16.f32.bf16.bf16.f32")])
def test_zero_sign_class_directed(arch, st):
    """-2^-75 * 2^-75 = -2^-150 with C = +0 is kept by the alignment (q = e_zero - F <= -156)
    and rounds to zero toward zero: MMA-Sim gives +0 everywhere; the catalog gives +0 on Hopper
    (positive_zero) and -0 elsewhere."""
    case = _case(arch, st)
    ms, tc, adj = _one_dot(case, [0x9A00], [0x1A00], 0)  # bf16 -2^-75, 2^-75
    assert ms == 0 and adj == 0
    assert tc == (0 if arch == "Hopper" else 0x80000000), hex(tc)


def special_codes(fmt):
    """+-0, +-1, +-smallest subnormal, +-max and, where the format has them, +-Inf and NaN."""
    e, m = LAYOUT[fmt]
    top, bias, sign = (1 << e) - 1, (1 << (e - 1)) - 1, 1 << (e + m)
    ieee = fmt in ("f32", "tf32", "f16", "bf16", "e5m2")
    mag = [0, bias << m, 1, ((top - 1) << m) | ((1 << m) - 1) if ieee else 0x7e if fmt == "e4m3" else sign - 1]
    if ieee:
        mag += [top << m, (top << m) | (1 << (m - 1))]
    elif fmt == "e4m3":
        mag += [0x7f]
    return np.array(mag + [x | sign for x in mag], dtype=np.uint64).astype(_container(fmt))


# The specials of each family once per operand format: of the 25 f8f6f4 type pairs, those of
# one format and those with e4m3 on one side.
SPECIALS = [c for c in COMPARED if c[3][2] is None and "f8f6f4" not in c[2]
            or len({t for t in c[2].split(".") if t in LAYOUT}) == 1 or ".e4m3." in "." + c[2].split(".", 2)[-1] + "."]


@pytest.mark.parametrize("case", SPECIALS, ids=_id)
def test_specials(case):
    """Every pair of special operands (zeros, ones, smallest subnormals, max, Inf, NaN) against
    every special C (Inf C included): bit for bit but for the known classes."""
    e, op = entry(case), op_of(case)
    sa, sb, sc = special_codes(e["atype"]), special_codes(e["btype"]), special_codes(e["dtype"])
    K = e["K"]
    A = np.zeros((len(sa) * len(sc), K), sa.dtype)
    B = np.zeros((K, len(sb)), sb.dtype)
    C = np.zeros((len(A), len(sb)), sc.dtype)
    for i in range(len(A)):
        A[i, 0], A[i, 1] = sa[i % len(sa)], sa[(i * 7 + 1) % len(sa)]
        C[i, :] = sc[i // len(sa)]
    B[0, :] = sb
    B[1, :] = sb[(np.arange(len(sb)) * 3 + 2) % len(sb)]
    SA = SB = None
    if e["scale_type"] is not None:
        one = 127 if e["scale_type"] == "ue8m0" else 0x38
        SA = np.full((len(A), K // e["scale_block"]), one, np.uint8)
        SB = np.full((K // e["scale_block"], len(sb)), one, np.uint8)
    want = mmasim_d(op, case[0], A, B, C, SA, SB, e["atype"], e["btype"], e["dtype"], e["scale_type"])
    got = _tcemu_d(e, A, B, C, SA, SB)
    _, rest = classify(case, e, op, A, B, C, SA, SB, want, got)
    if len(rest):
        i, j = rest[0]
        pytest.fail(f"{e['arch']} {e['ptx']}: {len(rest)} elements differ for no known reason, e.g. a {A[i, :2]} "
                    f"b {B[:2, j]} c {int(C[i, j]):x}: MMA-Sim {int(want[i, j]):x} tcemu {int(got[i, j]):x}")
