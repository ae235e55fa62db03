"""TransformerEngine's backward_override (common/recipe/__init__.py, module/linear.py at
d0067d0) in tcemu.torch: the forward as the recipe quantizes it, the backward GEMMs unquantized
in the activations' dtype (bf16 here: the tensor-core bf16 GEMM with f32 accumulation) on the
original weight and input ('high_precision') or on the forward's rowwise quantization of them
dequantized ('dequantized', TE's dequantize kernels); hand-assembled from tcemu.quantize /
tcemu.dequantize / tcemu.mma and compared bit for bit."""

import copy

import numpy as np
import pytest
import torch

import tcemu
import tcemu.torch as tt

from test_torch_recipes import bits, f32, model_and_data

F32 = np.float32


def bf16_codes(v):
    return tcemu.convert(np.ascontiguousarray(v, F32).view(np.uint32), "f32", "bf16")


def bf16_gemm(arch, a, b):
    """bf16(A B^T) of float32 values rounded to bf16, on arch's default bf16 instruction."""
    ins = tt.default_instr(arch, "bf16", "bf16")
    acc = tcemu.mma(bf16_codes(a), np.ascontiguousarray(bf16_codes(b).T), **ins.kwargs()).view(F32)
    return torch.from_numpy(np.ascontiguousarray(acc)).to(torch.bfloat16)


@pytest.mark.parametrize("name,arch,preset,dequant", [
    ("te-current", "sm_90a", "fp8-current", None),
    ("te-mxfp8", "sm_100a", "mxfp8", "te"),
    ("te-nvfp4", "sm_100a", None, "te"),
])
@pytest.mark.parametrize("override", ["high_precision", "dequantized"])
def test_backward_gemms_are_high_precision(name, arch, preset, dequant, override):
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False, dtype=torch.bfloat16)
    kw = {"disable_stochastic_rounding": True} if name == "te-nvfp4" else {}
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.recipe(name, backward_override=override, **kw), arch=arch)
    xe = x.detach().clone().requires_grad_(True)
    wrap(xe).backward(dy)
    X, W, DY = f32(x), f32(lin.weight), f32(dy)
    if override == "dequantized":
        def deq(v, p):
            q = tcemu.quantize(np.ascontiguousarray(v), p)
            return tcemu.dequantize(q, dequant=dequant)
        W = deq(W, preset or "nvfp4-2d")  # TE's NVFP4 weights: 16 x 16 tiles
        X = deq(X, preset or "nvfp4")
    np.testing.assert_array_equal(bits(xe.grad), bits(bf16_gemm(arch, DY, np.ascontiguousarray(W.T))), err_msg="dgrad")
    np.testing.assert_array_equal(bits(wrap[0].weight.grad),
                                  bits(bf16_gemm(arch, np.ascontiguousarray(DY.T), np.ascontiguousarray(X.T))),
                                  err_msg="wgrad")


def test_backward_override_options():
    with pytest.raises(ValueError, match="backward_override"):
        tt.Float8CurrentScaling(backward_override="fp32")
    with pytest.raises(ValueError, match="DelayedScaling takes only None"):
        tt.DelayedScaling(backward_override="dequantized")
    assert tt.MXFP8BlockScaling(backward_override="dequantized").backward_override == "dequantized"


def test_dequantize_rule_option():
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(F32)
    q = tcemu.quantize(x, "mxfp8")
    np.testing.assert_array_equal(tcemu.dequantize(q, dequant="ocp"), tcemu.dequantize(q))
    with pytest.raises(ValueError, match="not an MX dequantize rule"):
        tcemu.dequantize(q, dequant="tcemu")
    with pytest.raises(ValueError, match="applies to MX and NVFP4"):
        tcemu.dequantize(tcemu.quantize(x, "fp8-current"), dequant="te")


def test_backward_override_accumulates_into_main_grad():
    """With fuse_wgrad_accumulation the unquantized bf16 wgrad GEMM adds an f32 main_grad in its
    epilogue: main_grad = fma(1, C, acc), one f32 rounding."""
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False, dtype=torch.bfloat16)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.Float8CurrentScaling(backward_override="high_precision"), arch="sm_90a",
               fuse_wgrad_accumulation=True)
    w = wrap[0].weight
    w.main_grad = torch.randn(w.shape, generator=torch.Generator().manual_seed(4))
    c = f32(w.main_grad).copy()
    xe = x.detach().clone().requires_grad_(True)
    wrap(xe).backward(dy)
    ins = tt.default_instr("sm_90a", "bf16", "bf16")
    acc = tcemu.mma(bf16_codes(f32(dy).T), np.ascontiguousarray(bf16_codes(f32(x).T).T), **ins.kwargs()).view(F32)
    np.testing.assert_array_equal(bits(w.main_grad), (c + acc).astype(F32).view(np.uint32))
    assert w.grad is None
