"""tcemu.mma and tcemu.dot against `tcemu dot` (the C++ library's M = N = 1 mma() through the
command line), on random operands of every kind of datapath: each element of D is one dot
product, so every (row, column) of a random GEMM becomes one line of `tcemu dot`."""

import numpy as np
import pytest

import tcemu
from conftest import parse_hex_lines

DIGITS = {"f32": 8, "f16": 4, "bf16": 4, "tf32": 8, "s32": 8}


def _digits(fmt):
    return DIGITS.get(fmt, max(1, (tcemu.formats[fmt].width + 3) // 4) if fmt in tcemu.formats else 8)


def random_codes(rng, fmt, shape):
    f = tcemu.formats[fmt]
    if fmt in ("f32", "f16", "bf16", "tf32"):
        v = rng.standard_normal(shape) * 4
        return tcemu.encode(v, fmt)
    return (rng.integers(0, (f.code_mask >> f.man_shift) + 1, shape, dtype=np.uint64) << f.man_shift).astype(f.dtype)


def dot_lines(A, B, C, e, SA=None, SB=None):
    M, K = A.shape
    N = B.shape[1]
    da, db, dc = _digits(e["atype"]), _digits(e["btype"]), _digits(e["dtype"])
    lines = []
    for m in range(M):
        for n in range(N):
            a = " ".join(f"{int(x):0{da}x}" for x in A[m])
            b = " ".join(f"{int(x):0{db}x}" for x in B[:, n])
            c = f"{int(C[m, n]) & 0xFFFFFFFF:0{dc}x}"
            line = f"{a} | {b} | {c}"
            if SA is not None:
                line += " | " + " ".join(f"{int(x):02x}" for x in SA[m]) + " | " + " ".join(f"{int(x):02x}" for x in SB[:, n])
            lines.append(line + "\n")
    return "".join(lines)


def pick(arch, pred):
    for e in tcemu.instructions(arch):
        if pred(e):
            return e
    pytest.skip(f"no instruction on {arch} matches")


CASES = [
    ("sm_90a", lambda e: e["ptx"].startswith("wgmma") and e["atype"] == "e4m3" and e["dtype"] == "f32" and e["N"] == 8),
    ("sm_90a", lambda e: e["ptx"].startswith("wgmma") and e["atype"] == "e5m2" and e["dtype"] == "f16" and e["N"] == 8),
    ("sm_90", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "e4m3"),
    ("sm_80", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "f16" and e["dtype"] == "f32" and e["K"] == 16),
    ("sm_80", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "bf16"),
    ("sm_80", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "tf32"),
    ("sm_80", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "s8" and "satfinite" not in e["ptx"]),
    ("sm_120a", lambda e: e["scale_type"] == "ue8m0" and not e["types_in_descriptor"] and e["atype"] == "e4m3"),
    ("sm_120a", lambda e: e["scale_type"] == "ue4m3" and not e["types_in_descriptor"]),
]


@pytest.mark.parametrize("arch,pred", CASES)
@pytest.mark.parametrize("promote_every", [0, 2])
def test_mma_equals_dot_lines(cli, arch, pred, promote_every):
    e = pick(arch, pred)
    if promote_every and e["dtype"] != "f32":
        pytest.skip("FP32 promotion applies to f32 accumulators")
    rng = np.random.default_rng(abs(hash(e["ptx"])) % 2**32)
    M, N, K = 5, 3, e["K"] * 3
    A = random_codes(rng, e["atype"], (M, K))
    B = random_codes(rng, e["btype"], (K, N))
    if e["dtype"] == "s32":
        C = rng.integers(-2**20, 2**20, (M, N)).astype(np.int32)
    else:
        C = random_codes(rng, e["dtype"], (M, N))
    SA = SB = None
    kw = {}
    if e["scale_type"]:
        kb = K // e["scale_block"]
        if e["scale_type"] == "ue8m0":
            SA = rng.integers(120, 134, (M, kb)).astype(np.uint8)
            SB = rng.integers(120, 134, (kb, N)).astype(np.uint8)
        else:
            SA = tcemu.encode(rng.uniform(0.25, 4, (M, kb)), "ue4m3")
            SB = tcemu.encode(rng.uniform(0.25, 4, (kb, N)), "ue4m3")
        kw = {"scale_a": SA, "scale_b": SB}
    D = tcemu.mma(A, B, C, arch=arch, instr=e["ptx"], promote_every=promote_every, **kw)
    assert D.shape == (M, N)
    args = ["dot", "--arch", arch, "--ptx", e["ptx"]]
    if promote_every:
        args += ["--promote-every", str(promote_every)]
    ref = parse_hex_lines(cli(args, dot_lines(A, B, C, e, SA, SB)).stdout).reshape(M, N)
    got = (D.view(np.uint32) if D.dtype == np.int32 else D).astype(np.uint64)
    assert np.array_equal(got, ref), e["ptx"]
    # tcemu.dot gives each element too.
    d01 = tcemu.dot(A[0], B[:, 1], int(C[0, 1]), arch=arch, instr=e["ptx"], promote_every=promote_every,
                    **({"scale_a": SA[0], "scale_b": SB[:, 1]} if SA is not None else {}))
    assert (d01 & 0xFFFFFFFF) == int(ref[0, 1])


def test_dot_pads_short_operands_like_the_cli(cli):
    e = pick("sm_80", lambda e: e["ptx"].startswith("mma.sync") and e["atype"] == "f16" and e["dtype"] == "f32")
    a = tcemu.encode([1.5, -2.0, 3.25], "f16")
    b = tcemu.encode([0.5, 0.25, 1.0], "f16")
    d = tcemu.dot(a, b, 0x3f800000, arch="sm_80", instr=e["ptx"])
    line = " ".join(f"{int(x):04x}" for x in a) + " | " + " ".join(f"{int(x):04x}" for x in b) + " | 3f800000\n"
    assert d == int(parse_hex_lines(cli(["dot", "--arch", "sm_80", "--ptx", e["ptx"]], line).stdout)[0])
    assert tcemu.decode(np.uint32(d), "f32") == 1.5 * 0.5 - 2.0 * 0.25 + 3.25 + 1.0


def test_large_gemm_tiles_match_single_tiles():
    """A GEMM is independent dot products: a 128 x 64 x 256 problem equals its 64 x 8 pieces."""
    e = pick("sm_90a", CASES[0][1])
    rng = np.random.default_rng(1)
    A = random_codes(rng, "e4m3", (128, 256))
    B = random_codes(rng, "e4m3", (256, 64))
    D = tcemu.mma(A, B, arch="sm_90a", instr=e["ptx"])
    for i in (0, 64):
        for j in (0, 8, 56):
            part = tcemu.mma(A[i:i + 64], B[:, j:j + 8], arch="sm_90a", instr=e["ptx"])
            assert np.array_equal(part, D[i:i + 64, j:j + 8])


def test_threads_give_the_same_d(cli):
    """D is the same for every thread count (the C++ mma() with Exec{threads}), and the threaded default equals
    `tcemu dot` on a sample of its elements."""
    e = pick("sm_90a", CASES[0][1])
    rng = np.random.default_rng(8)
    A = random_codes(rng, "e4m3", (200, 128))
    B = random_codes(rng, "e4m3", (128, 24))
    C = random_codes(rng, "f32", (200, 24))
    d1 = tcemu.mma(A, B, C, arch="sm_90a", instr=e["ptx"], threads=1)
    for t in (2, 3, 7, None):
        assert np.array_equal(tcemu.mma(A, B, C, arch="sm_90a", instr=e["ptx"], threads=t), d1), t
    rows = [0, 63, 64, 199]
    ref = parse_hex_lines(cli(["dot", "--arch", "sm_90a", "--ptx", e["ptx"]],
                              dot_lines(A[rows], B, C[rows], e)).stdout).reshape(len(rows), 24)
    assert np.array_equal(d1[rows].astype(np.uint64), ref)
    with pytest.raises(ValueError, match=r"^threads: 0 is outside"):
        tcemu.mma(A, B, arch="sm_90a", instr=e["ptx"], threads=0)


def test_concurrent_python_threads_get_the_serial_results():
    """The GIL is released inside mma and convert: calls from several Python threads at once
    run concurrently and each gets what it gets alone."""
    import threading
    e = pick("sm_90a", CASES[0][1])
    rng = np.random.default_rng(12)
    jobs = [(random_codes(rng, "e4m3", (64, 96)), random_codes(rng, "e4m3", (96, 16))) for _ in range(6)]
    xs = [rng.integers(0, 2**32, 20000, dtype=np.uint64).astype(np.uint32) for _ in range(6)]
    serial_d = [tcemu.mma(a, b, arch="sm_90a", instr=e["ptx"], threads=1) for a, b in jobs]
    serial_c = [tcemu.convert(x, "f32", "e5m2") for x in xs]
    out_d, out_c = [None] * 6, [None] * 6

    def work(i):
        out_d[i] = tcemu.mma(*jobs[i], arch="sm_90a", instr=e["ptx"], threads=1)
        out_c[i] = tcemu.convert(xs[i], "f32", "e5m2")

    ts = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for i in range(6):
        assert np.array_equal(out_d[i], serial_d[i]) and np.array_equal(out_c[i], serial_c[i])
