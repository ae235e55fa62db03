"""Argument handling: every documented error is a ValueError or TypeError that names the
argument; arrays of other dtypes, orders and strides are converted or refused, never
misread; scalars in, scalars out."""

import numpy as np
import pytest

import tcemu

WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"


def e4m3_codes(shape, seed=0):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 256, shape, dtype=np.uint64).astype(np.uint8)
    c[(c & 0x7F) == 0x7F] = 0x38  # no NaN: keep results comparable
    return c


# ---- convert -------------------------------------------------------------------------

def test_unknown_format_names_argument():
    with pytest.raises(ValueError, match=r"^src: unknown format 'e9m9'"):
        tcemu.convert([1], "e9m9", "f32")
    with pytest.raises(ValueError, match=r"^dst: unknown format"):
        tcemu.convert([1], "f32", "nope")
    with pytest.raises(TypeError, match=r"^src:"):
        tcemu.convert([1], 5, "f32")


def test_format_aliases():
    assert tcemu.convert([0x3C00], "half", "float")[0] == 0x3F800000


def test_code_out_of_range():
    with pytest.raises(ValueError, match=r"^codes\[1\]: 0x100 is not a e4m3 code"):
        tcemu.convert(np.array([1, 256], np.uint16), "e4m3", "f32")
    with pytest.raises(ValueError, match=r"^codes\[0\]: 0x1 is not a tf32 code \(its low 13 bits"):
        tcemu.convert(np.array([1], np.uint32), "tf32", "f32")
    with pytest.raises(ValueError, match=r"^codes.*negative value"):
        tcemu.convert(np.array([-1, 2], np.int64), "e4m3", "f32")
    with pytest.raises(ValueError, match=r"^codes\[0, 1\]: 0x80 is not a ue4m3 code"):
        tcemu.convert(np.array([[1, 0x80]], np.uint8), "ue4m3", "f32")


def test_wrong_dtype():
    with pytest.raises(TypeError, match=r"^codes: float32 values given where e4m3 codes"):
        tcemu.convert(np.ones(3, np.float32), "e4m3", "f32")
    with pytest.raises(TypeError, match=r"^codes: dtype bool"):
        tcemu.convert(np.ones(3, bool), "e4m3", "f32")
    with pytest.raises(TypeError, match=r"^codes: expected a NumPy array"):
        tcemu.convert("12", "e4m3", "f32")
    with pytest.raises(TypeError, match=r"^values: dtype int32; encode takes"):
        tcemu.encode(np.ones(3, np.int32), "e4m3")


def test_float_arrays_of_the_format_itself():
    v = np.array([1.0, -2.5, np.inf], np.float32)
    assert np.array_equal(tcemu.convert(v, "f32", "f16"), tcemu.convert(v.view(np.uint32), "f32", "f16"))
    h = np.array([1.0, 65504.0], np.float16)
    assert np.array_equal(tcemu.convert(h, "f16", "f32").view(np.float32), h.astype(np.float32))


def test_signed_containers_are_bits():
    s = np.array([-1, -128, 127], np.int8)  # s8 codes: two's complement bytes
    assert np.array_equal(tcemu.decode(s, "s8"), [-1.0, -128.0, 127.0])


def test_rounding_and_convention_errors():
    with pytest.raises(ValueError, match=r"^round: unknown rounding mode 'up'"):
        tcemu.convert([1], "f32", "f16", round="up")
    with pytest.raises(ValueError, match=r"^convention: unknown convention 'xyz' \(one of"):
        tcemu.convert([1], "f32", "f16", convention="xyz")
    with pytest.raises(ValueError, match="ptx"):
        tcemu.convert([1], "f32", "e4m3", convention="ptx", round="rz")  # PTX has only .rn.satfinite
    with pytest.raises(TypeError, match=r"^satfinite:"):
        tcemu.convert([1], "f32", "f16", satfinite="yes")


def test_stochastic_rounding_needs_rbits():
    with pytest.raises(ValueError, match=r"^rbits: stochastic rounding"):
        tcemu.convert([0x3F800000], "f32", "bf16", round="rs")
    with pytest.raises(ValueError, match=r"^rbits: only stochastic rounding"):
        tcemu.convert([0x3F800000], "f32", "bf16", rbits=[1])
    with pytest.raises(ValueError, match=r"^rbits: shape"):
        tcemu.convert([1, 2, 3], "f32", "bf16", round="rs", rbits=[1, 2])


def test_non_contiguous_and_fortran_arrays():
    x = np.arange(0, 256 * 6, dtype=np.uint16).reshape(48, 32) & 0xFF
    base = tcemu.convert(x.astype(np.uint8), "e4m3", "f32")
    f = np.asfortranarray(x.astype(np.uint8))
    assert np.array_equal(tcemu.convert(f, "e4m3", "f32"), base)
    t = np.ascontiguousarray(x.astype(np.uint8).T).T  # a transposed view
    assert not t.flags.c_contiguous
    assert np.array_equal(tcemu.convert(t, "e4m3", "f32"), base)
    s = x.astype(np.uint8)[::2, ::3]
    assert np.array_equal(tcemu.convert(s, "e4m3", "f32"), base[::2, ::3])
    assert tcemu.convert(x.astype(np.uint64), "e4m3", "f32").shape == (48, 32)


def test_scalars_in_scalars_out():
    assert tcemu.convert(0x38, "e4m3", "f32") == 0x3F800000
    assert isinstance(tcemu.convert(0x38, "e4m3", "f32"), int)
    assert tcemu.decode(0x38, "e4m3") == 1.0
    assert tcemu.encode(448.0, "e4m3") == 0x7E
    assert tcemu.convert(np.array([], np.uint8), "e4m3", "f32").shape == (0,)


def test_undefined_results_raise_like_the_cli(cli):
    # llvm-apfloat: NaN into e2m1 has no defined result; the CLI exits 2 naming the line.
    x = np.array([0x3F800000, 0x7FC00000], np.uint32)
    r = cli(["convert", "--from", "f32", "--to", "e2m1", "--convention", "llvm-apfloat"], "3f800000\n7fc00000\n",
            check=False)
    assert r.returncode == 2 and "line 2" in r.stderr
    with pytest.raises(ValueError, match=r"^codes: element 1 \(0x7fc00000\): convention 'llvm-apfloat' defines no result"):
        tcemu.convert(x, "f32", "e2m1", convention="llvm-apfloat")
    assert tcemu.convert(x[:1], "f32", "e2m1", convention="llvm-apfloat")[0] == 0x2


# ---- cvt -----------------------------------------------------------------------------

def test_cvt_errors():
    with pytest.raises(ValueError, match=r"^ptx:"):
        tcemu.cvt("cvt.rn.e9m9.f32", 1)
    with pytest.raises(ValueError, match=r"^registers: cvt.rn.satfinite.e4m3x2.f32 takes 2"):
        tcemu.cvt("cvt.rn.satfinite.e4m3x2.f32", 1)
    with pytest.raises(ValueError, match=r"^registers\[0\]: element 0 is not a 16-bit value"):
        tcemu.cvt("cvt.rn.f16x2.e4m3x2", 0x10000)
    with pytest.raises(ValueError, match=r"^rbits:"):
        tcemu.cvt("cvt.rn.satfinite.e4m3x2.f32", 1, 2, rbits=3)


def test_cvt_broadcasts_and_packs():
    one = np.float32(1.0).view(np.uint32)
    d = tcemu.cvt("cvt.rn.satfinite.e4m3x2.f32", np.array([one, 0], np.uint32), np.uint32(one))
    # The first source operand lands in the high byte (PTX: d = {a, b} packed a high).
    assert list(d) == [0x3838, 0x0038]
    assert tcemu.cvt("cvt.rn.satfinite.e4m3x2.f32", int(one), 0) == 0x3800


# ---- mma -----------------------------------------------------------------------------

def test_mma_unknown_instruction_names_it():
    with pytest.raises(ValueError, match=r"^instr: "):
        tcemu.mma(e4m3_codes((64, 32)), e4m3_codes((32, 8)), arch="sm_90a", instr="wgmma.mma_async.m64n8k33.f32.e4m3.e4m3")
    with pytest.raises(ValueError, match=r"^instr: .*; nearest spellings on sm_90a: wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"):
        tcemu.mma(e4m3_codes((64, 32)), e4m3_codes((32, 8)), arch="sm_90a", instr=WG.replace("k32", "k33"))
    with pytest.raises(ValueError, match=r"^arch: unknown architecture 'sm_91' \(one of .*sm_90"):
        tcemu.mma(e4m3_codes((64, 32)), e4m3_codes((32, 8)), arch="sm_91", instr=WG)
    with pytest.raises(TypeError, match=r"^arch:"):
        tcemu.mma(e4m3_codes((64, 32)), e4m3_codes((32, 8)), arch=90, instr=WG)
    with pytest.raises(ValueError, match=r"^dtype: 'f8' is not f16, f32 or s32"):
        tcemu.mma(e4m3_codes((64, 32)), e4m3_codes((32, 8)), arch="sm_90a", instr=WG, dtype="f8")


def test_mma_shapes():
    a, b = e4m3_codes((4, 64)), e4m3_codes((64, 3))
    with pytest.raises(ValueError, match=r"^a: K = 48 does not tile into .* \(K = 32 per instruction\)"):
        tcemu.mma(e4m3_codes((4, 48)), e4m3_codes((48, 3)), arch="sm_90a", instr=WG)
    with pytest.raises(ValueError, match=r"^b: shape \(32, 3\); a is \(4, 64\)"):
        tcemu.mma(a, e4m3_codes((32, 3)), arch="sm_90a", instr=WG)
    with pytest.raises(ValueError, match=r"^a: shape \(64,\); A is a matrix"):
        tcemu.mma(e4m3_codes(64), b, arch="sm_90a", instr=WG)
    with pytest.raises(ValueError, match=r"^c: shape \(3, 4\); C is M x N"):
        tcemu.mma(a, b, np.zeros((3, 4), np.uint32), arch="sm_90a", instr=WG)
    with pytest.raises(TypeError, match=r"^c: float16 values given where f32 codes"):
        tcemu.mma(a, b, np.zeros((4, 3), np.float16), arch="sm_90a", instr=WG)
    with pytest.raises(ValueError, match=r"^scale_a: .* takes no block scales"):
        tcemu.mma(a, b, arch="sm_90a", instr=WG, scale_a=np.ones((4, 2), np.uint8), scale_b=np.ones((2, 3), np.uint8))
    with pytest.raises(ValueError, match=r"^promote_every: -1 is outside"):
        tcemu.mma(a, b, arch="sm_90a", instr=WG, promote_every=-1)
    with pytest.raises(TypeError, match=r"^negate_a:"):
        tcemu.mma(a, b, arch="sm_90a", instr=WG, negate_a=1)


def test_mma_block_scales_required_and_shaped():
    e = next(e for e in tcemu.instructions("sm_120a") if e["scale_type"] == "ue8m0" and e["atype"] == "e4m3"
             and not e["types_in_descriptor"])
    K = e["K"]
    a, b = e4m3_codes((2, K)), e4m3_codes((K, 2))
    with pytest.raises(ValueError, match=r"^scale_a: .* scales are required"):
        tcemu.mma(a, b, arch="sm_120a", instr=e["ptx"])
    kb = K // e["scale_block"]
    with pytest.raises(ValueError, match=rf"^scale_b: shape \(2, {kb}\); .* needs \({kb}, 2\)"):
        tcemu.mma(a, b, arch="sm_120a", instr=e["ptx"], scale_a=np.full((2, kb), 127, np.uint8),
                  scale_b=np.full((2, kb), 127, np.uint8))


def test_mma_non_contiguous_operands():
    a, b = e4m3_codes((16, 64), 1), e4m3_codes((64, 8), 2)
    d = tcemu.mma(a, b, arch="sm_90a", instr=WG)
    assert np.array_equal(tcemu.mma(np.asfortranarray(a), np.asfortranarray(b), arch="sm_90a", instr=WG), d)
    big = np.zeros((32, 128), np.uint8)
    big[::2, ::2] = a
    assert np.array_equal(tcemu.mma(big[::2, ::2], b.T.copy().T, arch="sm_90a", instr=WG), d)
    assert np.array_equal(tcemu.mma(a.astype(np.int64), b.astype(np.uint32), arch="sm_90a", instr=WG), d)


def test_instructions():
    rows = tcemu.instructions()
    assert len(rows) > 1000
    r = tcemu.instructions("sm_90a")
    assert any(x["ptx"] == WG for x in r)
    assert any(x["arch"] == "sm_90" for x in r)  # sm_90a runs sm_90's mma.sync
    assert {"evidence", "confidence", "datapath", "note"} <= set(r[0])
    with pytest.raises(ValueError, match=r"^arch: no instructions for 'sm_42'"):
        tcemu.instructions("sm_42")


def test_formats_table():
    f = tcemu.formats["e4m3"]
    assert (f.width, f.exp_bits, f.man_bits, f.bias, f.max_finite, f.nan, f.inf) == (8, 4, 3, 7, 0x7E, 0x7F, None)
    assert f.max_value == "448"
    assert tcemu.formats["e5m2"].inf == 0x7C
    assert tcemu.formats["bf16"].dtype == np.uint16
    assert len(tcemu.formats) == 17
    u = tcemu.formats["ue5m3"]  # PTX ISA 9.4's scale format (docs/formats.md)
    assert (u.width, u.exp_bits, u.man_bits, u.bias, u.max_finite, u.nan, u.inf) == (8, 5, 3, 15, 0xFE, 0xFF, None)
    assert u.max_value == "114688"


# ---- quantize, scalers ---------------------------------------------------------------

def test_quantize_errors():
    x = np.ones((2, 64), np.float32)
    with pytest.raises(ValueError, match=r"^recipe: unknown recipe 'mxfp9'"):
        tcemu.quantize(x, "mxfp9")
    name = tcemu.recipes()[0]["name"]
    with pytest.raises(ValueError, match=r"^recipe\..*: "):
        tcemu.quantize(x, name, no_such_option=1)
    with pytest.raises(TypeError, match=r"^x: dtype float64"):
        tcemu.quantize(np.ones((2, 64)), name)
    with pytest.raises(ValueError, match=r"^x: shape \(1, 0\) has no elements"):
        tcemu.quantize(np.ones((1, 0), np.float32), name)
    with pytest.raises(ValueError, match=r"^recipe.mx.block: must be in 1\.\."):
        tcemu.quantize(x, "mxfp8", block=0)
    with pytest.raises(TypeError, match=r"^q: a tcemu.Quantized"):
        tcemu.dequantize(x)
    with pytest.raises(TypeError, match=r"^grads:"):
        tcemu.GradScaler().unscale(np.ones(3))


def test_scaler_basics():
    s = tcemu.LossScaler(init_scale=1024.0, growth_interval=2)
    s.update(False)
    s.update(False)
    assert s.scale == 2048.0
    s.update(True)
    assert s.scale == 1024.0
    g = np.array([2048.0, np.inf], np.float32)
    assert s.unscale(g) is True
    assert g[0] == 2.0


def test_torch_tensors_when_importable():
    torch = pytest.importorskip("torch")
    a = torch.tensor([[0x38, 0x40]], dtype=torch.uint8)
    assert np.array_equal(tcemu.convert(a, "e4m3", "f32"), tcemu.convert(a.numpy(), "e4m3", "f32"))
    v = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    assert np.array_equal(tcemu.decode(v, "bf16"), [1.0, 2.0])
    if hasattr(torch, "float8_e4m3fn"):
        f8 = torch.tensor([1.0, -2.0]).to(torch.float8_e4m3fn)
        assert np.array_equal(tcemu.decode(f8, "e4m3"), [1.0, -2.0])
        with pytest.raises(TypeError, match=r"^codes: a e4m3 tensor given where e5m2 codes"):
            tcemu.decode(f8, "e5m2")


def test_convert_out():
    x = np.arange(256, dtype=np.uint8).reshape(16, 16)
    buf = np.zeros((16, 16), np.uint32)
    r = tcemu.convert(x, "e4m3", "f32", out=buf)
    assert r is buf
    assert np.array_equal(buf, tcemu.convert(x, "e4m3", "f32"))
    with pytest.raises(TypeError, match=r"^out: dtype uint16; f32 codes are uint32"):
        tcemu.convert(x, "e4m3", "f32", out=np.zeros((16, 16), np.uint16))
    with pytest.raises(ValueError, match=r"^out: shape \(256,\); the codes are \(16, 16\)"):
        tcemu.convert(x, "e4m3", "f32", out=np.zeros(256, np.uint32))
    with pytest.raises(ValueError, match=r"^out: must be a writeable C-contiguous"):
        tcemu.convert(x, "e4m3", "f32", out=np.zeros((16, 16), np.uint32, order="F"))


def test_mma_params_errors():
    a, b = e4m3_codes((2, 32)), e4m3_codes((32, 2))
    with pytest.raises(ValueError, match=r"^params: unknown key 'Q'"):
        tcemu.mma_params(a, b, params={"Q": 1}, atype="e4m3", btype="e4m3")
    with pytest.raises(ValueError, match=r"^params.kind: unknown value 'x' \(one of t_fdpa"):
        tcemu.mma_params(a, b, params={"kind": "x"}, atype="e4m3", btype="e4m3")
    with pytest.raises(TypeError, match=r"^params.L: an int is required"):
        tcemu.mma_params(a, b, params={"L": "16"}, atype="e4m3", btype="e4m3")
    with pytest.raises(ValueError, match=r"^params: "):
        tcemu.mma_params(a, b, params={"F": -5}, atype="e4m3", btype="e4m3")
    with pytest.raises(TypeError, match=r"^params: a dict"):
        tcemu.mma_params(a, b, params=None, atype="e4m3", btype="e4m3")


def test_newer_targets_are_extrapolated_from_their_siblings():
    # docs/datapath.md §9: sm_103a takes sm_100a's tcgen05 entries but kind::i8, marked
    # extrapolated, with the sibling named; sm_103 gives it sm_100's mma.sync.
    r = tcemu.instructions("sm_103a")
    own = [x for x in r if x["arch"] == "sm_103a"]
    assert len(own) == 166 and all(x["confidence"] == "extrapolated" and x["params_from"] == "sm_100a" for x in own)
    assert not any("kind::i8" in x["ptx"] for x in r)
    assert any(x["arch"] == "sm_103" and x["params_from"] == "sm_100" for x in r)
    assert all(x["family_target"] for x in own)
    assert any("kind::i8" in x["ptx"] and not x["family_target"] for x in tcemu.instructions("sm_110a"))
