"""tcemu.convert / encode / decode / cvt against the command line (`tcemu convert`, `tcemu
cvt`), element for element: exhaustively over every code of the narrow formats and of f16 /
bf16, and on random f32 / f64 codes, under several rounding modes, options and conventions."""

import numpy as np
import pytest

import tcemu
from conftest import hex_lines, parse_hex_lines

NARROW = ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3", "s8", "u8", "s4", "u4"]


def all_codes(fmt):
    f = tcemu.formats[fmt]
    return np.arange(f.code_mask + 1, dtype=np.uint64).astype(f.dtype)


def cli_convert(cli, codes, src, dst, *args, rbits=None):
    digits = tcemu.formats[src].width // 4 + (tcemu.formats[src].width % 4 > 0)
    if rbits is None:
        stdin = hex_lines(codes, digits)
    else:
        stdin = "".join(f"{int(c):0{digits}x} {int(r):08x}\n" for c, r in zip(codes.reshape(-1), rbits.reshape(-1)))
    return parse_hex_lines(cli(["convert", "--from", src, "--to", dst, *args], stdin).stdout)


def cli_args(round=None, satfinite=False, relu=False, ftz=False, convention=None):
    a = []
    if round:
        a += ["--round", round]
    if satfinite:
        a.append("--satfinite")
    if relu:
        a.append("--relu")
    if ftz:
        a.append("--ftz")
    if convention:
        a += ["--convention", convention]
    return a


@pytest.mark.parametrize("src", NARROW + ["f16", "bf16"])
def test_every_code_to_f32_and_f16(cli, src):
    x = all_codes(src)
    for dst in ("f32", "f16", "e4m3"):
        if dst == src:
            continue
        for opts in ({}, {"satfinite": True}, {"round": "rz"}):
            got = tcemu.convert(x, src, dst, **opts)
            assert got.dtype == tcemu.formats[dst].dtype
            assert np.array_equal(got.astype(np.uint64), cli_convert(cli, x, src, dst, *cli_args(**opts))), (src, dst, opts)


@pytest.mark.parametrize("src", NARROW + ["f16", "bf16"])
def test_decode_every_code(cli, src):
    x = all_codes(src)
    v = tcemu.decode(x, src)
    assert v.dtype == np.float64
    ref = cli_convert(cli, x, src, "f64")
    assert np.array_equal(v.view(np.uint64), ref)


@pytest.mark.parametrize("dst", ["f16", "bf16", "tf32", "e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3", "s8", "u4"])
@pytest.mark.parametrize("opts", [{}, {"round": "rz"}, {"round": "rna"}, {"round": "ru"}, {"round": "rd"},
                                  {"satfinite": True}, {"relu": True}, {"ftz": True}])
def test_random_f32(cli, dst, opts):
    rng = np.random.default_rng(hash((dst, tuple(opts.items()))) & 0xFFFF)
    x = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    # Values near the destination's range too: random f32 bit patterns are mostly huge or tiny.
    x[:1500] = (rng.standard_normal(1500) * 100).astype(np.float32).view(np.uint32)
    got = tcemu.convert(x, "f32", dst, **opts)
    assert np.array_equal(got.astype(np.uint64), cli_convert(cli, x, "f32", dst, *cli_args(**opts))), (dst, opts)


def test_stochastic_rounding(cli):
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(2000) * 10).astype(np.float32).view(np.uint32)
    rb = rng.integers(0, 2**32, 2000, dtype=np.uint64).astype(np.uint32)
    for dst in ("e4m3", "bf16", "e2m1"):
        got = tcemu.convert(x, "f32", dst, round="rs", satfinite=dst != "bf16", rbits=rb)
        ref = cli_convert(cli, x, "f32", dst, "--round", "rs", *(["--satfinite"] if dst != "bf16" else []), rbits=rb)
        assert np.array_equal(got.astype(np.uint64), ref)


@pytest.mark.parametrize("convention", [c["name"] for c in tcemu.conventions()])
def test_conventions_f32_to_e4m3_and_e2m1(cli, convention):
    rng = np.random.default_rng(3)
    x = np.concatenate([(rng.standard_normal(500) * 300).astype(np.float32).view(np.uint32),
                        np.array([0x7fc00000, 0xffc00000, 0x7f800000, 0xff800000, 0x80000000], np.uint32)])
    for dst in ("e4m3", "e2m1", "f16"):
        r = cli(["convert", "--from", "f32", "--to", dst, "--convention", convention], hex_lines(x, 8), check=False)
        if r.returncode != 0:
            # The convention does not define this pair, or some input: the binding says so too.
            with pytest.raises(ValueError):
                tcemu.convert(x, "f32", dst, convention=convention)
            continue
        got = tcemu.convert(x, "f32", dst, convention=convention)
        assert np.array_equal(got.astype(np.uint64), parse_hex_lines(r.stdout)), (convention, dst)


def test_random_f64(cli):
    rng = np.random.default_rng(11)
    v = rng.standard_normal(3000) * np.exp2(rng.integers(-30, 30, 3000))
    x = v.view(np.uint64)
    for dst in ("f32", "bf16", "e5m2"):
        got = tcemu.convert(x, "f64", dst)
        assert np.array_equal(got.astype(np.uint64), cli_convert(cli, x, "f64", dst))
        # encode() of float64 values is the conversion from f64.
        assert np.array_equal(tcemu.encode(v, dst), got)


def test_encode_float32_is_conversion_from_f32(cli):
    rng = np.random.default_rng(5)
    v = (rng.standard_normal(2000) * 50).astype(np.float32)
    got = tcemu.encode(v, "e4m3", satfinite=True)
    assert np.array_equal(got.astype(np.uint64), cli_convert(cli, v.view(np.uint32), "f32", "e4m3", "--satfinite"))


CVT_SPELLINGS = ["cvt.rn.satfinite.e4m3x2.f32", "cvt.rn.f16x2.f32", "cvt.rn.satfinite.e2m1x2.f32",
                 "cvt.rn.bf16.f32", "cvt.rn.f16x2.e4m3x2", "cvt.rs.satfinite.e4m3x4.f32", "cvt.rp.satfinite.ue8m0x2.f32"]


@pytest.mark.parametrize("ptx", CVT_SPELLINGS)
def test_cvt_random_registers(cli, ptx):
    if ptx not in tcemu.cvt_instructions():
        pytest.skip(f"{ptx} not in this catalog")
    rng = np.random.default_rng(len(ptx))
    r = cli(["cvt", "--ptx", ptx], "", check=True)  # a known spelling: no lines, no error
    assert r.returncode == 0
    import tcemu._tcemu as m
    info = m.cvt_info(ptx)
    n = 500
    regs = []
    for _ in range(info["registers"]):
        if info["src"] == "f32" and not info["src_packed"]:
            regs.append((rng.standard_normal(n) * 100).astype(np.float32).view(np.uint32))
        else:
            regs.append(rng.integers(0, 2 ** info["src_bits"], n, dtype=np.uint64))
    rb = rng.integers(0, 2**32, n, dtype=np.uint64) if info["has_rbits"] else None
    got = tcemu.cvt(ptx, *regs, rbits=rb)
    digits = info["src_bits"] // 4
    lines = []
    for i in range(n):
        words = [f"{int(r[i]):0{digits}x}" for r in regs]
        if rb is not None:
            words.append(f"{int(rb[i]):08x}")
        lines.append(" ".join(words) + "\n")
    ref = parse_hex_lines(cli(["cvt", "--ptx", ptx], "".join(lines)).stdout)
    assert np.array_equal(np.asarray(got, dtype=np.uint64), ref)
