"""tcemu.torch's torchao recipes against running torchao (0.18.0 from requirements.txt, on the
CPU) and a hand assembly of the rest: float8 rowwise and rowwise_with_gw_hp (the operands are
torchao's own bytes and scales; the GEMMs tcemu.mma plus the epilogue of the kernel
torch._scaled_mm runs, written out here in NumPy float32 and torch casts); NVFP4's epilogue
as torchao's _addmm_nvfp4_dispatch applies it; and the bias, which torchao adds in torch after
the GEMM."""

import copy

import numpy as np
import pytest
import torch
from torchao.float8.config import ScalingGranularity
from torchao.float8.float8_scaling_utils import hp_tensor_to_float8_dynamic
from torchao.float8.float8_training_tensor import LinearMMConfig
from torchao.prototype.mx_formats.nvfp4_tensor import per_tensor_amax_to_scale

import tcemu
import tcemu.torch as tt

from test_torch_recipes import bits, f32, model_and_data, run_emulated
from test_torch_upstream import codes8, tensors

F32 = np.float32


def ao_rowwise(t, pow2=True, dt=torch.float8_e4m3fn):
    """torchao's axiswise cast of a 2-D tensor along its last dim: (codes, scale per row)."""
    q = hp_tensor_to_float8_dynamic(t, dt, LinearMMConfig(), scaling_granularity=ScalingGranularity.AXISWISE,
                                    axiswise_dim=-1, round_scales_to_power_of_2=pow2)
    return codes8(q._data), q._scale.reshape(-1).numpy()


def ao_tensorwise(t, pow2=True, dt=torch.float8_e4m3fn):
    q = hp_tensor_to_float8_dynamic(t, dt, LinearMMConfig(), round_scales_to_power_of_2=pow2)
    return codes8(q._data), q._scale.reshape(-1).numpy()


def raw_acc(arch, a, b, promote):
    """The f32 accumulator of A B^T (operands rows x K) on arch's default e4m3 instruction."""
    ins = tt.default_instr(arch, "e4m3", "e4m3")
    p = (-a.shape[1]) % ins.K
    if p:
        a, b = np.pad(a, ((0, 0), (0, p))), np.pad(b, ((0, 0), (0, p)))
    return tcemu.mma(a, np.ascontiguousarray(b.T), promote_every=promote, **ins.kwargs()).view(F32)


def bf16(v):
    return torch.from_numpy(np.ascontiguousarray(v, F32)).to(torch.bfloat16)


@pytest.mark.parametrize("pow2", [True, False])
def test_rowwise_operands_are_torchao(pow2):
    for x in tensors():
        for t in (x, x.T.contiguous()):
            codes, scale = ao_rowwise(t, pow2)
            got, s, s_inv, _ = tcemu._tcemu.torchao_fp8_quantize_rows(f32(t), "e4m3", pow2, 0)
            np.testing.assert_array_equal(got, codes)
            np.testing.assert_array_equal(s.view(np.uint32), scale.view(np.uint32))
            np.testing.assert_array_equal(s_inv, (F32(1.0) / scale).astype(F32))


@pytest.mark.parametrize("arch,kernel", [("sm_90a", "cublaslt"), ("sm_89", "cutlass"), ("sm_100a", "cutlass")])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_rowwise_layer(arch, kernel, dtype):
    rec = tt.TorchaoFloat8("rowwise")
    assert rec.rowwise_kernel(arch) == kernel
    lin, x, dy = model_and_data(k=96, n=40, m=24, bias=True, dtype=dtype)
    y, dx, dw, db = run_emulated(rec, arch, lin, x, dy)
    X, W, DY = x.detach(), lin.weight.detach(), dy
    promote = 4 if arch in ("sm_89", "sm_90a") else 0

    # fprop: the rowwise kernel, fast accumulation, scales x[m] = 1/scale_x, w[n] = 1/scale_w.
    cx, sx = ao_rowwise(X)
    cw, sw = ao_rowwise(W)
    acc = raw_acc(arch, cx, cw, 0)
    xi, wi = (F32(1.0) / sx).astype(F32), (F32(1.0) / sw).astype(F32)
    if kernel == "cutlass":  # bf16(bias + w[n] * (x[m] * acc)); the bias here is added by torch
        t = (wi.reshape(1, -1) * (xi.reshape(-1, 1) * acc)).astype(F32)
    else:  # tcemu.gemm fold: (sa * sb) * acc
        t = ((xi.reshape(-1, 1) * wi.reshape(1, -1)).astype(F32) * acc).astype(F32)
    y_ref = bf16(t).to(dtype) + lin.bias.detach().to(dtype)  # Float8Linear: output + bias.to(output.dtype)
    np.testing.assert_array_equal(bits(y), bits(y_ref), err_msg="fprop")

    # dgrad / wgrad: the tensorwise kernel with unit scales (bf16 out), then torch's
    # output *= a_inv * b_inv.
    def slow(a, sa, b, sb):
        out = bf16(raw_acc(arch, a, b, promote))
        post = torch.from_numpy((F32(1.0) / sa).astype(F32)).reshape(-1, 1) * torch.from_numpy(
            (F32(1.0) / sb).astype(F32)).reshape(1, -1)
        out *= post
        return out.to(dtype)

    cg, sg = ao_rowwise(DY)
    cwt, swt = ao_rowwise(W.T.contiguous())
    np.testing.assert_array_equal(bits(dx), bits(slow(cg, sg, cwt, swt)), err_msg="dgrad")
    cgt, sgt = ao_rowwise(DY.T.contiguous())
    cxt, sxt = ao_rowwise(X.T.contiguous())
    np.testing.assert_array_equal(bits(dw), bits(slow(cgt, sgt, cxt, sxt)), err_msg="wgrad")
    np.testing.assert_array_equal(bits(db), bits(dy.to(torch.float32).sum(0).to(dtype)))


def test_rowwise_with_gw_hp_layer():
    arch, dtype = "sm_90a", torch.bfloat16
    lin, x, dy = model_and_data(k=64, n=48, m=32, bias=False, dtype=dtype)
    y, dx, dw, _ = run_emulated(tt.recipe("torchao-float8-rowwise-with-gw-hp"), arch, lin, x, dy)
    X, W, DY = x.detach(), lin.weight.detach(), dy
    cx, sx = ao_rowwise(X)
    cw, sw = ao_rowwise(W)
    xi, wi = (F32(1.0) / sx).astype(F32), (F32(1.0) / sw).astype(F32)
    t = ((xi.reshape(-1, 1) * wi.reshape(1, -1)).astype(F32) * raw_acc(arch, cx, cw, 0)).astype(F32)
    np.testing.assert_array_equal(bits(y), bits(bf16(t)), err_msg="fprop")
    # dgrad: rowwise e4m3 grad_output, tensorwise e4m3 weight (its scale repeated per column).
    cg, sg = ao_rowwise(DY)
    cwt, swt = ao_tensorwise(W.T.contiguous())
    out = bf16(raw_acc(arch, cg, cwt, 4))
    out *= torch.from_numpy((F32(1.0) / sg).astype(F32)).reshape(-1, 1) * torch.from_numpy(
        np.full(W.shape[1], F32(1.0) / swt[0], F32)).reshape(1, -1)
    np.testing.assert_array_equal(bits(dx), bits(out), err_msg="dgrad")
    # wgrad: the bf16 GEMM of dY^T and X^T as they are (f32 accumulation, bf16 out).
    ins = tt.default_instr(arch, "bf16", "bf16")
    a = bits(DY.T.contiguous())
    b = bits(X.T.contiguous())
    acc = tcemu.mma(a, np.ascontiguousarray(b.T), **ins.kwargs()).view(F32)
    np.testing.assert_array_equal(bits(dw), bits(bf16(acc)), err_msg="wgrad")


def test_torchao_mx_adds_the_bias_in_torch():
    lin, x, _ = model_and_data(k=64, n=32, m=16, bias=True, dtype=torch.bfloat16)
    with_bias = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(with_bias, tt.TorchaoMX("rceil"), arch="sm_100a")
    no_bias = copy.deepcopy(lin)
    no_bias.bias = None
    without = torch.nn.Sequential(no_bias)
    tt.convert(without, tt.TorchaoMX("rceil"), arch="sm_100a")
    with torch.no_grad():
        y, y0 = with_bias(x), without(x)
    np.testing.assert_array_equal(bits(y), bits(y0 + lin.bias.detach().to(y0.dtype)))


def test_torchao_nvfp4_epilogue():
    """_addmm_nvfp4_dispatch: _scaled_mm with the block scales (alpha 1), output in the
    activations' dtype, times (pts_a * pts_b).to(dtype), then + bias."""
    lin, x, _ = model_and_data(k=64, n=32, m=16, bias=True, dtype=torch.bfloat16)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.TorchaoNVFP4(), arch="sm_100a")
    with torch.no_grad():
        y = wrap(x)
    X, W = f32(x), f32(lin.weight)
    qx, qw = tcemu.quantize(X, "nvfp4-torchao"), tcemu.quantize(W, "nvfp4-torchao")
    for q, t in ((qx, X), (qw, W)):  # the per-tensor scale is torchao's per_tensor_amax_to_scale
        ref = per_tensor_amax_to_scale(torch.max(torch.abs(torch.from_numpy(t))))
        assert np.float32(q.global_scale) == np.float32(ref.item())
    ins = tt.default_instr("sm_100a", "e2m1", "e2m1", "nvfp4")
    acc = tcemu.mma(qx.codes, np.ascontiguousarray(qw.codes.T), scale_a=qx.scales,
                    scale_b=np.ascontiguousarray(qw.scales.T), **ins.kwargs()).view(F32)
    pts = (torch.tensor(np.float32(qx.global_scale)) * torch.tensor(np.float32(qw.global_scale))).to(torch.bfloat16)
    y_ref = bf16(acc) * pts + lin.bias.detach().to(torch.bfloat16)
    np.testing.assert_array_equal(bits(y), bits(y_ref))


def test_rowwise_recipe_names_and_options():
    assert {"torchao-float8-rowwise", "torchao-float8-rowwise-with-gw-hp"} <= set(tt.recipe_names())
    with pytest.raises(ValueError, match="not a torchao float8 recipe"):
        tt.TorchaoFloat8("columnwise")
    with pytest.raises(ValueError, match="rowwise_kernel"):
        tt.TorchaoFloat8("rowwise", rowwise_kernel="cudnn")
    assert tt.TorchaoFloat8("rowwise", rowwise_kernel="cutlass").rowwise_kernel("sm_90a") == "cutlass"
