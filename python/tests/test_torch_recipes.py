"""tcemu.torch: every recipe's three GEMMs (fprop, dgrad, wgrad) of a converted nn.Linear equal
a hand assembly from the public pieces (tcemu.quantize / fp8_cast / DelayedScaling, tcemu.mma)
and the epilogue as docs/torch.md states it, computed here independently with NumPy float32
operations and torch's round-to-nearest-even casts; bit for bit."""

import copy

import numpy as np
import pytest
import torch

import tcemu
import tcemu.torch as tt

F32 = np.float32


def f32(t):
    return np.ascontiguousarray(t.detach().to(torch.float32).reshape(-1, t.shape[-1]).numpy())


def bits(t):
    t = t.detach().contiguous()
    if t.dtype == torch.float32:
        return t.view(torch.int32).numpy().view(np.uint32)
    return t.view(torch.int16).numpy().view(np.uint16)


def out_cast(v, dtype):
    """float32 values -> the output dtype, round to nearest even (torch's cast on finite values)."""
    return torch.from_numpy(np.ascontiguousarray(v, F32)).to(dtype)


def pad_k(a, b, sa, sb, k_instr, block, one):
    k = a.shape[1]
    p = (-k) % k_instr
    if not p:
        return a, b, sa, sb
    a = np.pad(a, ((0, 0), (0, p)))
    b = np.pad(b, ((0, 0), (0, p)))
    if sa is not None:
        sa = np.pad(sa, ((0, 0), (0, p // block)), constant_values=one)
        sb = np.pad(sb, ((0, 0), (0, p // block)), constant_values=one)
    return a, b, sa, sb


ARCH = {"fp8": "sm_90a", "mx": "sm_100a", "nvfp4": "sm_100a", "amp": "sm_90a"}
PLAIN_INSTR = {("bf16", "bf16"): "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16",
               ("f16", "f16"): "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"}


def hand_gemm(kind, role, a, b, fa, fb, out_dtype, *, sa=None, sb=None, inv_a=None, inv_b=None, amax_a=None,
              amax_b=None, bias=None, promote=0):
    """D = A B^T (+bias) as docs/torch.md says the recipe computes it, from operand codes."""
    if kind in ("fp8", "amp"):
        instr = PLAIN_INSTR.get((fa, fb), f"wgmma.mma_async.sync.aligned.m64n8k32.f32.{fa}.{fb}")
        kw = dict(arch="sm_90a", instr=instr)
        kinstr, block, one = (16 if kind == "amp" else 32), 1, 0
    elif kind == "mx":
        kw = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", atype=fa,
                  btype=fb, dtype="f32", stype="ue8m0")
        kinstr, block, one = 32, 32, 0x7F
    else:
        kw = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
                  atype="e2m1", btype="e2m1", dtype="f32", stype="ue4m3")
        kinstr, block, one = 64, 16, 0x38
    a, b, sa, sb = pad_k(a, b, sa, sb, kinstr, block, one)
    if sa is not None:
        kw.update(scale_a=sa, scale_b=np.ascontiguousarray(sb.T))
    acc = tcemu.mma(a, np.ascontiguousarray(b.T), promote_every=promote, **kw).view(F32)
    if kind == "fp8":
        acc = acc * F32(F32(F32(1.0) * F32(inv_a)) * F32(inv_b))
    elif kind == "nvfp4":
        factor_inv = F32(1.0) / F32(F32(F32(F32(6.0) * F32(6.0)) * F32(448.0)) * F32(448.0))
        alpha = F32(F32(F32(F32(1.0) * F32(amax_a)) * F32(amax_b)) * factor_inv)
        acc = acc * alpha
    if bias is not None:
        acc = acc + f32(bias.reshape(1, -1)).reshape(-1)
    return out_cast(acc.astype(F32), out_dtype)


def model_and_data(k=96, n=64, m=48, bias=True, seed=0, dtype=torch.float32):
    g = torch.Generator().manual_seed(seed)
    lin = torch.nn.Linear(k, n, bias=bias).to(dtype)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(n, k, generator=g) * 0.2)
        if bias:
            lin.bias.copy_(torch.randn(n, generator=g))
    x = (torch.randn(m, k, generator=g) * 2).to(dtype).requires_grad_(True)
    dy = torch.randn(m, n, generator=g).to(dtype)
    return lin, x, dy


def run_emulated(recipe, arch, lin, x, dy):
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, recipe, arch=arch)
    xe = x.detach().clone().requires_grad_(True)
    y = wrap(xe)
    y.backward(dy.to(y.dtype))
    return y, xe.grad, wrap[0].weight.grad, (wrap[0].bias.grad if lin.bias is not None else None)


def check(y, dx, dw, y_ref, dx_ref, dw_ref):
    np.testing.assert_array_equal(bits(y), bits(y_ref), err_msg="fprop")
    np.testing.assert_array_equal(bits(dx), bits(dx_ref), err_msg="dgrad")
    np.testing.assert_array_equal(bits(dw), bits(dw_ref), err_msg="wgrad")


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_amp(dtype):
    lin, x, dy = model_and_data(k=40, m=37)  # K = 40: padded to the instruction's 16; M ragged
    y, dx, dw, db = run_emulated(tt.AMP(dtype), "sm_90a", lin, x, dy)
    fmt = "bf16" if dtype == torch.bfloat16 else "f16"
    cast = lambda t: bits(t.detach().to(dtype))  # torch's cast: what torch.autocast applies
    X, W = cast(x), cast(lin.weight)
    y_ref = hand_gemm("amp", "fprop", X, W, fmt, fmt, dtype, bias=lin.bias.detach().to(dtype))
    DY = cast(y_ref.to(torch.float32) * 0 + dy.to(dtype).to(torch.float32))  # dY arrives in the output dtype
    dx_ref = hand_gemm("amp", "dgrad", DY, np.ascontiguousarray(W.T), fmt, fmt, dtype).to(torch.float32)
    dw_ref = hand_gemm("amp", "wgrad", np.ascontiguousarray(DY.T), np.ascontiguousarray(X.T), fmt, fmt, dtype).to(torch.float32)
    check(y, dx, dw, y_ref, dx_ref, dw_ref)
    assert y.dtype == dtype and dx.dtype == torch.float32 and dw.dtype == torch.float32


@pytest.mark.parametrize("fmt", [tt.Format.HYBRID, tt.Format.E4M3])
def test_current_scaling(fmt):
    lin, x, dy = model_and_data(k=80, m=50)
    y, dx, dw, db = run_emulated(tt.Float8CurrentScaling(fp8_format=fmt), "sm_90a", lin, x, dy)
    gfmt = "e5m2" if fmt is tt.Format.HYBRID else "e4m3"
    qx = tcemu.quantize(f32(x), "fp8-current", format="e4m3")
    qw = tcemu.quantize(f32(lin.weight), "fp8-current", format="e4m3")
    qdy = tcemu.quantize(f32(dy), "fp8-current", format=gfmt)
    inv = lambda q: q.scales.reshape(-1)[0]
    y_ref = hand_gemm("fp8", "fprop", qx.codes, qw.codes, "e4m3", "e4m3", torch.float32, inv_a=inv(qx), inv_b=inv(qw),
                      bias=lin.bias)
    dx_ref = hand_gemm("fp8", "dgrad", qdy.codes, np.ascontiguousarray(qw.codes.T), gfmt, "e4m3", torch.float32,
                       inv_a=inv(qdy), inv_b=inv(qw), promote=4)
    dw_ref = hand_gemm("fp8", "wgrad", np.ascontiguousarray(qdy.codes.T), np.ascontiguousarray(qx.codes.T), gfmt, "e4m3",
                       torch.float32, inv_a=inv(qdy), inv_b=inv(qx), promote=4)
    check(y, dx, dw, y_ref, dx_ref, dw_ref)
    # The bias gradient is the column sum of dY in float32.
    np.testing.assert_array_equal(bits(db), bits(dy.to(torch.float32).sum(0)))


def test_delayed_scaling_two_steps():
    """Step 1 casts with scale 1, step 2 with the scale from step 1's amax (TE's delayed
    update); the gradient's history is its own; the wgrad copy of X uses the forward's scale."""
    lin, x, dy = model_and_data(k=64, m=64)
    rec = tt.DelayedScaling(fp8_format=tt.Format.HYBRID, amax_history_len=4)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, rec, arch="sm_90a")
    sx = tcemu.DelayedScaling(history_len=4, fp8_format="hybrid")
    sw = tcemu.DelayedScaling(history_len=4, fp8_format="hybrid")
    sg = tcemu.DelayedScaling(history_len=4, fp8_format="hybrid", backward=True)
    for step in range(3):
        xs = (x.detach() * (1 + step)).requires_grad_(True)
        wrap[0].weight.grad = None
        y = wrap(xs)
        y.backward(dy)
        X, W = f32(xs), f32(wrap[0].weight)
        inv_x, inv_w, scale_x = sx.scale_inv, sw.scale_inv, sx.scale
        cx, cw = sx.quantize(X), sw.quantize(W)
        sx.update(), sw.update()
        y_ref = hand_gemm("fp8", "fprop", cx, cw, "e4m3", "e4m3", torch.float32, inv_a=inv_x, inv_b=inv_w, bias=lin.bias)
        inv_g = sg.scale_inv
        cg = sg.quantize(f32(dy))
        sg.update()
        dx_ref = hand_gemm("fp8", "dgrad", cg, np.ascontiguousarray(cw.T), "e5m2", "e4m3", torch.float32, inv_a=inv_g,
                           inv_b=inv_w, promote=4)
        cxt = tcemu.fp8_cast(np.ascontiguousarray(X.T), scale_x, "e4m3")
        dw_ref = hand_gemm("fp8", "wgrad", np.ascontiguousarray(cg.T), cxt, "e5m2", "e4m3", torch.float32, inv_a=inv_g,
                           inv_b=inv_x, promote=4)
        check(y, xs.grad, wrap[0].weight.grad, y_ref, dx_ref, dw_ref)
    assert sx.scale != 1.0


@pytest.mark.parametrize("fmt", [tt.Format.E4M3, tt.Format.HYBRID])
def test_mxfp8(fmt):
    lin, x, dy = model_and_data(k=96, n=64, m=64)
    y, dx, dw, db = run_emulated(tt.MXFP8BlockScaling(fp8_format=fmt), "sm_100a", lin, x, dy)
    g = "mxfp8-e5m2" if fmt is tt.Format.HYBRID else "mxfp8"
    gfmt = "e5m2" if fmt is tt.Format.HYBRID else "e4m3"
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    q = lambda v, r="mxfp8": tcemu.quantize(np.ascontiguousarray(v), r)
    qx, qw = q(X), q(W)
    y_ref = hand_gemm("mx", "fprop", qx.codes, qw.codes, "e4m3", "e4m3", torch.float32, sa=qx.scales, sb=qw.scales,
                      bias=lin.bias)
    qdy, qwt = q(DY, g), q(W.T)
    dx_ref = hand_gemm("mx", "dgrad", qdy.codes, qwt.codes, gfmt, "e4m3", torch.float32, sa=qdy.scales, sb=qwt.scales)
    qdyt, qxt = q(DY.T, g), q(X.T)
    dw_ref = hand_gemm("mx", "wgrad", qdyt.codes, qxt.codes, gfmt, "e4m3", torch.float32, sa=qdyt.scales, sb=qxt.scales)
    check(y, dx, dw, y_ref, dx_ref, dw_ref)


def test_nvfp4_rht_2d_stochastic():
    """Weights in 16x16 tiles (one scale per tile for every row of it), the Hadamard transform on
    the wgrad operands, stochastic rounding of the gradient: the recipe's stream of random words
    (seed, offsets) is reproduced with tcemu.quantize(seed=, offset=), as docs/torch.md says."""
    lin, x, dy = model_and_data(k=64, n=48, m=80)
    rec = tt.NVFP4BlockScaling(seed=7)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, rec, arch="sm_100a")
    xe = x.detach().clone().requires_grad_(True)
    y = wrap(xe)
    y.backward(dy)
    layer = wrap[0].tcemu_layer
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    exp16 = lambda q, rows: np.ascontiguousarray(np.repeat(q.scales, 16, axis=0)[:rows])
    qx = tcemu.quantize(X, "nvfp4")
    qw = tcemu.quantize(W, "nvfp4-2d")
    y_ref = hand_gemm("nvfp4", "fprop", qx.codes, qw.codes, "e2m1", "e2m1", torch.float32, sa=qx.scales,
                      sb=exp16(qw, W.shape[0]), amax_a=qx.amax, amax_b=qw.amax, bias=lin.bias)
    seed = (7 * 1000003 + layer.handle) & 0xFFFFFFFFFFFFFFFF
    qdy = tcemu.quantize(DY, "nvfp4", round="rs", seed=seed, offset=0)
    qwt = tcemu.quantize(np.ascontiguousarray(W.T), "nvfp4-2d")
    dx_ref = hand_gemm("nvfp4", "dgrad", qdy.codes, qwt.codes, "e2m1", "e2m1", torch.float32, sa=qdy.scales,
                       sb=exp16(qwt, W.shape[1]), amax_a=qdy.amax, amax_b=qwt.amax)
    qdyt = tcemu.quantize(np.ascontiguousarray(DY.T), "nvfp4", round="rs", rht=True, seed=seed, offset=DY.size)
    qxt = tcemu.quantize(np.ascontiguousarray(X.T), "nvfp4", rht=True)
    dw_ref = hand_gemm("nvfp4", "wgrad", qdyt.codes, qxt.codes, "e2m1", "e2m1", torch.float32, sa=qdyt.scales,
                       sb=qxt.scales, amax_a=qdyt.amax, amax_b=qxt.amax)
    check(y, xe.grad, wrap[0].weight.grad, y_ref, dx_ref, dw_ref)


@pytest.mark.parametrize("mode,preset", [("floor", "mx"), ("rceil", "mxfp8-torchao")])
def test_torchao_mx(mode, preset):
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    y, dx, dw, _ = run_emulated(tt.TorchaoMX(mode), "sm_100a", lin, x, dy)
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    q = lambda v: tcemu.quantize(np.ascontiguousarray(v), preset)
    qx, qw, qdy, qwt, qdyt, qxt = q(X), q(W), q(DY), q(W.T), q(DY.T), q(X.T)
    y_ref = hand_gemm("mx", "fprop", qx.codes, qw.codes, "e4m3", "e4m3", torch.float32, sa=qx.scales, sb=qw.scales)
    dx_ref = hand_gemm("mx", "dgrad", qdy.codes, qwt.codes, "e4m3", "e4m3", torch.float32, sa=qdy.scales, sb=qwt.scales)
    dw_ref = hand_gemm("mx", "wgrad", qdyt.codes, qxt.codes, "e4m3", "e4m3", torch.float32, sa=qdyt.scales, sb=qxt.scales)
    check(y, dx, dw, y_ref, dx_ref, dw_ref)


def test_torchao_float8_tensorwise():
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    y, dx, dw, _ = run_emulated(tt.TorchaoFloat8(), "sm_90a", lin, x, dy)
    X, W, DY = f32(x), f32(lin.weight), f32(dy)

    def q(v, fmt):  # torchao/float8: amax_to_scale in float64, x * scale, clamp, c10 cast
        amax = np.float64(np.max(np.abs(v)))
        scale = F32(torch.finfo(torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2).max / max(amax, 1e-12))
        y = np.clip(v * scale, -448 if fmt == "e4m3" else -57344, 448 if fmt == "e4m3" else 57344).astype(F32)
        dt = torch.float8_e4m3fn if fmt == "e4m3" else torch.float8_e5m2
        return torch.from_numpy(y).to(dt).view(torch.uint8).numpy(), F32(1.0) / scale

    cx, ix = q(X, "e4m3")
    cw, iw = q(W, "e4m3")
    cg, ig = q(DY, "e5m2")
    y_ref = hand_gemm("fp8", "fprop", cx, cw, "e4m3", "e4m3", torch.float32, inv_a=ix, inv_b=iw)
    dx_ref = hand_gemm("fp8", "dgrad", cg, np.ascontiguousarray(cw.T), "e5m2", "e4m3", torch.float32, inv_a=ig, inv_b=iw,
                       promote=4)
    dw_ref = hand_gemm("fp8", "wgrad", np.ascontiguousarray(cg.T), np.ascontiguousarray(cx.T), "e5m2", "e4m3",
                       torch.float32, inv_a=ig, inv_b=ix, promote=4)
    check(y, dx, dw, y_ref, dx_ref, dw_ref)


def test_threads_do_not_change_bits():
    lin, x, dy = model_and_data(k=64, m=64)
    outs = [run_emulated(tt.MXFP8BlockScaling(threads=t), "sm_100a", lin, x, dy) for t in (1, 2, 3)]
    for o in outs[1:]:
        for a, b in zip(o, outs[0]):
            np.testing.assert_array_equal(bits(a), bits(b))


@pytest.mark.parametrize("arch,recipe,kind", [("sm_80", tt.AMP(torch.bfloat16), "amp"),
                                              ("sm_89", tt.Float8CurrentScaling(), "fp8"),
                                              ("sm_100a", tt.Float8CurrentScaling(), "fp8"),
                                              ("sm_120a", tt.MXFP8BlockScaling(), "mx"),
                                              ("sm_120a", tt.NVFP4BlockScaling(disable_stochastic_rounding=True), "nvfp4")])
def test_default_instruction_of_each_arch(arch, recipe, kind):
    """fprop on each arch's default instruction equals tcemu.mma on that catalog entry."""
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, recipe, arch=arch)
    y = wrap(x.detach())
    X, W = f32(x), f32(lin.weight)
    if kind == "amp":
        A, B, fa = bits(x.detach().to(torch.bfloat16)), bits(lin.weight.detach().to(torch.bfloat16)), "bf16"
        ins = tt.default_instr(arch, fa, fa)
        d = tcemu.mma(A, np.ascontiguousarray(B.T), **ins.kwargs()).view(F32)
        np.testing.assert_array_equal(bits(y), bits(out_cast(d, torch.bfloat16)))
        assert ins.instr == "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
        return
    if kind == "fp8":
        qx, qw = (tcemu.quantize(v, "fp8-current") for v in (X, W))
        ins = tt.default_instr(arch, "e4m3", "e4m3")
        d = tcemu.mma(qx.codes, np.ascontiguousarray(qw.codes.T), **ins.kwargs()).view(F32)
        d = d * F32(F32(F32(1.0) * qx.scales.reshape(-1)[0]) * qw.scales.reshape(-1)[0])
    elif kind == "mx":
        qx, qw = (tcemu.quantize(v, "mxfp8") for v in (X, W))
        ins = tt.default_instr(arch, "e4m3", "e4m3", "mx")
        d = tcemu.mma(qx.codes, np.ascontiguousarray(qw.codes.T), scale_a=qx.scales, scale_b=np.ascontiguousarray(qw.scales.T),
                      **ins.kwargs()).view(F32)
    else:
        qx, qw = tcemu.quantize(X, "nvfp4"), tcemu.quantize(W, "nvfp4-2d")
        ins = tt.default_instr(arch, "e2m1", "e2m1", "nvfp4")
        sw = np.ascontiguousarray(np.repeat(qw.scales, 16, axis=0)[:W.shape[0]].T)
        d = tcemu.mma(qx.codes, np.ascontiguousarray(qw.codes.T), scale_a=qx.scales, scale_b=sw, **ins.kwargs()).view(F32)
        factor_inv = F32(1.0) / F32(F32(F32(F32(6.0) * F32(6.0)) * F32(448.0)) * F32(448.0))
        d = d * F32(F32(F32(F32(1.0) * F32(qx.amax)) * F32(qw.amax)) * factor_inv)
    np.testing.assert_array_equal(bits(y), d.astype(F32).view(np.uint32))


def test_instruction_override():
    """Any catalog entry of the arch: wgmma N = 16 gives the N = 8 entry's bits (N only tiles D);
    a spelling the arch lacks, or of other operand types, is refused with the layer's types."""
    lin, x, dy = model_and_data(k=64, n=32, m=32)
    over = {r: "wgmma.mma_async.sync.aligned.m64n16k32.f32." + ("e4m3.e4m3" if r == "fprop" else "e5m2.e4m3")
            for r in ("fprop", "dgrad")}
    a = run_emulated(tt.Float8CurrentScaling(instr=over), "sm_90a", lin, x, dy)
    b = run_emulated(tt.Float8CurrentScaling(), "sm_90a", lin, x, dy)
    for u, v in zip(a[:3], b[:3]):
        np.testing.assert_array_equal(bits(u), bits(v))
    bad = tt.Float8CurrentScaling(instr={"fprop": "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"})
    with pytest.raises(ValueError, match="sm_90a has no wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 for e4m3 x e4m3"):
        run_emulated(bad, "sm_90a", lin, x, dy)
    with pytest.raises(ValueError, match="instr: a dict"):
        tt.Float8CurrentScaling(instr={"forward": "x"})


def fma_f32(a, b, c):
    """round_to_nearest_even_f32(a * b + c), exactly (Fractions), as an FFMA computes it."""
    from fractions import Fraction
    v = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
    if v == 0:
        return F32(0.0)  # the operands here are never all -0
    sign, v = (-1 if v < 0 else 1), abs(v)
    e = v.numerator.bit_length() - v.denominator.bit_length()
    while Fraction(2) ** e > v:
        e -= 1
    while Fraction(2) ** (e + 1) <= v:
        e += 1
    q = max(e - 23, -149)  # the grid of f32 values at this magnitude (subnormals at 2^-149)
    n = v / Fraction(2) ** q
    r = n.numerator // n.denominator
    frac = n - r
    if frac > Fraction(1, 2) or (frac == Fraction(1, 2) and r % 2):
        r += 1
    return F32(sign * r * 2.0 ** q)


@pytest.mark.parametrize("fmt", [tt.Format.E4M3, tt.Format.HYBRID])
def test_float8_block_scaling(fmt):
    """Each 128-long K block's partial (the wgmma chain from +0 over the block) is scaled by
    sa * sb and added with an FFMA (DeepGEMM's promotion), then + bias and the output cast."""
    lin, x, dy = model_and_data(k=256, n=128, m=40)
    y, dx, dw, _ = run_emulated(tt.Float8BlockScaling(fp8_format=fmt), "sm_90a", lin, x, dy)
    gfmt = "e5m2" if fmt is tt.Format.HYBRID else "e4m3"
    X, W, DY = f32(x), f32(lin.weight), f32(dy)

    def q(v, tile, f="e4m3"):
        r = tcemu.quantize(np.ascontiguousarray(v), "fp8-block128x128" if tile else "fp8-block1x128", format=f)
        s = r.scales if not tile else np.repeat(r.scales, 128, axis=0)[:v.shape[0]]
        return r.codes, s

    def ref(a, sa, b, sb, fa, fb, bias=None):
        instr = f"wgmma.mma_async.sync.aligned.m64n8k32.f32.{fa}.{fb}"
        M, N, K = a.shape[0], b.shape[0], a.shape[1]
        acc = np.zeros((M, N), F32)
        for j in range(-(-K // 128)):
            ab, bb = a[:, 128 * j:128 * (j + 1)], b[:, 128 * j:128 * (j + 1)]
            pad = (-ab.shape[1]) % 32  # zero codes up to the instruction's K (docs/torch.md)
            ab, bb = np.pad(ab, ((0, 0), (0, pad))), np.pad(bb, ((0, 0), (0, pad)))
            p = tcemu.mma(ab, np.ascontiguousarray(bb.T), arch="sm_90a", instr=instr).view(F32)
            for m in range(M):
                for n in range(N):
                    acc[m, n] = fma_f32(F32(sa[m, j]) * F32(sb[n, j]), p[m, n], acc[m, n])
        if bias is not None:
            acc = acc + f32(bias.reshape(1, -1)).reshape(-1)
        return out_cast(acc, torch.float32)

    cx, sx = q(X, False)
    cw, sw = q(W, True)
    np.testing.assert_array_equal(bits(y), bits(ref(cx, sx, cw, sw, "e4m3", "e4m3", lin.bias)), err_msg="fprop")
    cg, sg = q(DY, False, gfmt)
    cwt, swt = q(W.T, True)
    np.testing.assert_array_equal(bits(dx), bits(ref(cg, sg, cwt, swt, gfmt, "e4m3")), err_msg="dgrad")
    cgt, sgt = q(DY.T, False, gfmt)
    cxt, sxt = q(X.T, False)
    np.testing.assert_array_equal(bits(dw), bits(ref(cgt, sgt, cxt, sxt, gfmt, "e4m3")), err_msg="wgrad")
