"""TransformerEngine's NVFP4BlockScaling switches for RL and post-training in tcemu.torch
(common/recipe/__init__.py, pytorch/quantization.py make_quantizers, pytorch/cpp_extensions/
gemm.py at d0067d0): nvfp4_4over6 / nvfp4_4over6_e4m3_use_256 / nvfp4_4over6_err_mode choose
which forward tensors take the 4over6 block scales (and E4M3 max 256), row_scaled_activation
gives the input one amax per row and runs its GEMMs as TE's row-scaled GEMM (amaxes 1 in the
GEMM, f32 output, then `out *= row * col` and `+ bias` in f32). Each GEMM equals a hand assembly
from tcemu.quantize's presets and tcemu.mma, with the epilogue written out here in NumPy
float32 operations, bit for bit; and what TE refuses is refused."""

import copy

import numpy as np
import pytest
import torch

import tcemu
import tcemu.torch as tt

from test_torch_recipes import bits, f32, model_and_data

F32 = np.float32
NVF4 = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X", atype="e2m1",
            btype="e2m1", dtype="f32", stype="ue4m3")


def acc(qa, qb, rows_b=None):
    """The f32 accumulator of A B^T on kind::mxf4nvf4, K padded to the instruction's 64 with zero
    codes under scale 1.0 (0x38) as the layer pads; a 16x16-tiled B has its scales repeated over
    the tile's rows."""
    sb = qb.scales if rows_b is None else np.repeat(qb.scales, 16, axis=0)[:rows_b]
    sa = qa.scales if qa.scales.shape[0] == qa.codes.shape[0] else np.repeat(qa.scales, 16, axis=0)[:qa.codes.shape[0]]
    a, b, p = qa.codes, qb.codes, (-qa.codes.shape[1]) % 64
    if p:
        a, b = np.pad(a, ((0, 0), (0, p))), np.pad(b, ((0, 0), (0, p)))
        sa = np.pad(sa, ((0, 0), (0, p // 16)), constant_values=0x38)
        sb = np.pad(sb, ((0, 0), (0, p // 16)), constant_values=0x38)
    return tcemu.mma(a, np.ascontiguousarray(b.T), scale_a=np.ascontiguousarray(sa),
                     scale_b=np.ascontiguousarray(sb.T), **NVF4).view(F32)


def te_alpha(amax_a, amax_b, max_a, max_b):
    """TE's nvfp4_compute_per_tensor_scale (common/recipe/nvfp4.cu): alpha_in * amax_a * amax_b *
    (1 / (6 * 6 * max_a * max_b)), f32 left to right."""
    factor_inv = F32(1.0) / F32(F32(F32(F32(6.0) * F32(6.0)) * F32(max_a)) * F32(max_b))
    return F32(F32(F32(F32(1.0) * F32(amax_a)) * F32(amax_b)) * factor_inv)


def to(v, dtype):
    return torch.from_numpy(np.ascontiguousarray(v, F32)).to(dtype)


def run(recipe, lin, x, dy, **convert):
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, recipe, arch="sm_100a", **convert)
    xe = x.detach().clone().requires_grad_(True)
    y = wrap(xe)
    y.backward(dy.to(y.dtype))
    return wrap, y, xe.grad


def test_4over6_on_every_forward_tensor():
    """nvfp4_4over6='all' (E4M3 max 256 by default, MAE): the input's blocks (1x16, rowwise and
    its wgrad copy) and the weight's 16x16 tiles (rowwise and the dgrad copy W^T) use 4over6;
    the gradient stays plain NVFP4; alpha has each tensor's E4M3 max."""
    lin, x, dy = model_and_data(k=64, n=48, m=32)
    rec = tt.NVFP4BlockScaling(nvfp4_4over6="all", disable_rht=True, disable_stochastic_rounding=True)
    wrap, y, dx = run(rec, lin, x, dy)
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    qx = tcemu.quantize(X, "nvfp4-4over6")
    qw = tcemu.quantize(W, "nvfp4-2d", four_over_six="mae", e4m3_max=256)
    y_ref = acc(qx, qw, W.shape[0]) * te_alpha(qx.amax, qw.amax, 256, 256) + f32(lin.bias.reshape(1, -1)).reshape(-1)
    qdy = tcemu.quantize(DY, "nvfp4")
    qwt = tcemu.quantize(np.ascontiguousarray(W.T), "nvfp4-2d", four_over_six="mae", e4m3_max=256)
    dx_ref = acc(qdy, qwt, W.shape[1]) * te_alpha(qdy.amax, qwt.amax, 448, 256)
    qdyt = tcemu.quantize(np.ascontiguousarray(DY.T), "nvfp4")
    qxt = tcemu.quantize(np.ascontiguousarray(X.T), "nvfp4-4over6")
    dw_ref = acc(qdyt, qxt) * te_alpha(qdyt.amax, qxt.amax, 448, 256)
    np.testing.assert_array_equal(bits(y), bits(to(y_ref, torch.float32)), err_msg="fprop")
    np.testing.assert_array_equal(bits(dx), bits(to(dx_ref, torch.float32)), err_msg="dgrad")
    np.testing.assert_array_equal(bits(wrap[0].weight.grad), bits(to(dw_ref, torch.float32)), err_msg="wgrad")
    # The 4over6 rule is not the plain one on these tensors (the test would not tell them apart otherwise).
    assert not np.array_equal(qw.scales, tcemu.quantize(W, "nvfp4-2d").scales)


def test_4over6_scopes_e4m3_bound_and_error_mode():
    """nvfp4_4over6='weights' with e4m3_use_256='none' and MSE: only the weight, E4M3 max 448;
    the input is plain NVFP4 and may keep its RHT."""
    lin, x, dy = model_and_data(k=64, n=48, m=32, bias=False)
    rec = tt.NVFP4BlockScaling(nvfp4_4over6="weights", nvfp4_4over6_e4m3_use_256="none", nvfp4_4over6_err_mode="mse",
                               disable_stochastic_rounding=True, disable_2d_quantization=True)
    wrap, y, _ = run(rec, lin, x, dy)
    X, W = f32(x), f32(lin.weight)
    qx = tcemu.quantize(X, "nvfp4")
    qw = tcemu.quantize(W, "nvfp4", four_over_six="mse")
    y_ref = acc(qx, qw) * te_alpha(qx.amax, qw.amax, 448, 448)
    np.testing.assert_array_equal(bits(y), bits(to(y_ref, torch.float32)))


def test_row_scaled_activation_three_gemms():
    """row_scaled_activation (bfloat16 model, dimensions multiples of 32): fprop = (acc * alpha(1,
    1)) * (row_amax * w_amax) + f32(bias) -> bf16; wgrad = (acc * alpha(1, 1)) * (x_col_amax *
    dy_amax) -> bf16 (the column side is the vector, so TE folds col * row); dgrad is a plain
    NVFP4 GEMM."""
    lin, x, dy = model_and_data(k=64, n=32, m=64, dtype=torch.bfloat16)
    rec = tt.NVFP4BlockScaling(row_scaled_activation=True, disable_rht=True, disable_stochastic_rounding=True)
    wrap, y, dx = run(rec, lin, x, dy)
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    one = te_alpha(1.0, 1.0, 448, 448)
    qx = tcemu.quantize(X, "nvfp4-row-scaled")
    qw = tcemu.quantize(W, "nvfp4-2d")
    assert qx.amax.shape == (64,) and qx.global_scale.shape == (64,)
    rows = (np.asarray(qx.amax, F32).reshape(-1, 1) * F32(qw.amax)).astype(F32)
    y_ref = ((acc(qx, qw, W.shape[0]) * one).astype(F32) * rows).astype(F32) + f32(lin.bias.reshape(1, -1)).reshape(-1)
    qdy = tcemu.quantize(DY, "nvfp4")
    qwt = tcemu.quantize(np.ascontiguousarray(W.T), "nvfp4-2d")
    dx_acc = acc(qdy, qwt, W.shape[1]) * te_alpha(qdy.amax, qwt.amax, 448, 448)
    qdyt = tcemu.quantize(np.ascontiguousarray(DY.T), "nvfp4")
    qxt = tcemu.quantize(np.ascontiguousarray(X.T), "nvfp4-row-scaled")
    cols = (np.asarray(qxt.amax, F32).reshape(1, -1) * F32(qdyt.amax)).astype(F32)
    dw_ref = ((acc(qdyt, qxt) * one).astype(F32) * cols).astype(F32)
    np.testing.assert_array_equal(bits(y), bits(to(y_ref, torch.bfloat16)), err_msg="fprop")
    np.testing.assert_array_equal(bits(dx), bits(to(dx_acc, torch.bfloat16)), err_msg="dgrad")
    np.testing.assert_array_equal(bits(wrap[0].weight.grad), bits(to(dw_ref, torch.bfloat16)), err_msg="wgrad")


def test_row_scaled_wgrad_fused_into_main_grad():
    """With fuse_wgrad_accumulation the row-scaled wgrad is TE's `main_grad.add_(out.to(main_grad's
    dtype))` after the scaling (not the GEMM epilogue's beta * C)."""
    lin, x, dy = model_and_data(k=64, n=32, m=64, bias=False, dtype=torch.bfloat16)
    rec = tt.NVFP4BlockScaling(row_scaled_activation=True, disable_rht=True, disable_stochastic_rounding=True)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, rec, arch="sm_100a", fuse_wgrad_accumulation=True)
    w = wrap[0].weight
    w.main_grad = torch.randn(w.shape, generator=torch.Generator().manual_seed(5))
    start = f32(w.main_grad).copy()
    xe = x.detach().clone().requires_grad_(True)
    wrap[0](xe).backward(dy)
    X, DY = f32(x), f32(dy)
    qdyt = tcemu.quantize(np.ascontiguousarray(DY.T), "nvfp4")
    qxt = tcemu.quantize(np.ascontiguousarray(X.T), "nvfp4-row-scaled")
    cols = (np.asarray(qxt.amax, F32).reshape(1, -1) * F32(qdyt.amax)).astype(F32)
    out = ((acc(qdyt, qxt) * te_alpha(1.0, 1.0, 448, 448)).astype(F32) * cols).astype(F32)
    np.testing.assert_array_equal(bits(w.main_grad), (start + out).astype(F32).view(np.uint32))


def test_row_scaled_4over6_inference():
    """Row-scaled input with 4over6 (TE allows it without a columnwise copy: inference): the
    forward equals the hand assembly; training refuses it as TE does."""
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    rec = tt.NVFP4BlockScaling(row_scaled_activation=True, nvfp4_4over6="activations", disable_rht=True,
                               disable_stochastic_rounding=True)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, rec, arch="sm_100a")
    with torch.no_grad():
        y = wrap(x)
    X, W = f32(x), f32(lin.weight)
    qx = tcemu.quantize(X, "nvfp4-row-scaled", four_over_six="mae", e4m3_max=256)
    qw = tcemu.quantize(W, "nvfp4-2d")
    rows = (np.asarray(qx.amax, F32).reshape(-1, 1) * F32(qw.amax)).astype(F32)
    y_ref = ((acc(qx, qw, W.shape[0]) * te_alpha(1.0, 1.0, 256, 448)).astype(F32) * rows).astype(F32)
    np.testing.assert_array_equal(bits(y), bits(to(y_ref, torch.float32)))
    xe = x.detach().clone().requires_grad_(True)
    with pytest.raises(ValueError, match="not supported with 4over6 mode"):
        wrap(xe).backward(dy)


def test_refuses_what_transformer_engine_refuses():
    with pytest.raises(ValueError, match="does not support RHT"):
        tt.NVFP4BlockScaling(nvfp4_4over6="activations")
    with pytest.raises(ValueError, match="does not support RHT"):
        tt.NVFP4BlockScaling(row_scaled_activation=True)
    with pytest.raises(ValueError, match="nvfp4_4over6 must be one of"):
        tt.NVFP4BlockScaling(nvfp4_4over6="inputs")
    with pytest.raises(ValueError, match="nvfp4_4over6_e4m3_use_256 must be one of"):
        tt.NVFP4BlockScaling(nvfp4_4over6_e4m3_use_256="some")
    with pytest.raises(ValueError, match="'MAE', 'MSE'"):
        tt.NVFP4BlockScaling(nvfp4_4over6_err_mode="L1")
    with pytest.raises(TypeError, match="row_scaled_activation"):
        tt.NVFP4BlockScaling(row_scaled_activation="yes", disable_rht=True)
    # The row-scaled wgrad copy needs a bfloat16 input (TE's transpose kernel).
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    rec = tt.NVFP4BlockScaling(row_scaled_activation=True, disable_rht=True, disable_stochastic_rounding=True)
    with pytest.raises(ValueError, match="requires BF16 input"):
        run(rec, lin, x, dy)


def test_4over6_fast_math_error_reaches_the_quantizer():
    """nvfp4_4over6_err_use_fast_math (TE's NVTE_NVFP4_4OVER6_ERR_USE_FAST_MATH) gives the
    4over6 tensors tcemu.quantize's err_fast_math."""
    lin, x, dy = model_and_data(k=64, n=48, m=32, bias=False)
    rec = tt.NVFP4BlockScaling(nvfp4_4over6="weights", nvfp4_4over6_err_use_fast_math=True,
                               disable_stochastic_rounding=True, disable_2d_quantization=True)
    wrap, y, _ = run(rec, lin, x, dy)
    X, W = f32(x), f32(lin.weight)
    qx = tcemu.quantize(X, "nvfp4")
    qw = tcemu.quantize(W, "nvfp4-4over6", err_fast_math=True)
    y_ref = acc(qx, qw) * te_alpha(qx.amax, qw.amax, 448, 256)
    np.testing.assert_array_equal(bits(y), bits(to(y_ref, torch.float32)))
    with pytest.raises(TypeError, match="nvfp4_4over6_err_use_fast_math"):
        tt.NVFP4BlockScaling(nvfp4_4over6_err_use_fast_math=1)
