"""tcemu.torch against the running upstream code (torchao 0.18.0 and torch 2.11 from
requirements.txt, on the CPU): the recipes' quantized operands are torchao's bytes, a
converted layer's output is the GEMM of torchao's own operands, and tcemu.torch.GradScaler's
scale sequence and unscaled gradients are torch.amp.GradScaler's."""

import copy

import numpy as np
import pytest
import torch
from torchao.float8.float8_scaling_utils import hp_tensor_to_float8_dynamic
from torchao.float8.float8_training_tensor import LinearMMConfig
from torchao.prototype.mx_formats.config import ScaleCalculationMode
from torchao.prototype.mx_formats.mx_tensor import to_mx
from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize, per_tensor_amax_to_scale

import tcemu
import tcemu.torch as tt

from test_torch_recipes import bits, f32, hand_gemm


def tensors(seed=0):
    """Random tensors with the edges a recipe meets: zero and tiny blocks, a wide range of
    magnitudes, values at the FP8 range, exact ties (no NaN: on the CPU torch's multiply keeps
    a NaN's sign, the GPU's does not, docs/quantization.md)."""
    g = torch.Generator().manual_seed(seed)
    out = [torch.randn(32, 128, generator=g), torch.randn(16, 96, generator=g) * 1e4,
           torch.randn(8, 64, generator=g) * 1e-6]
    t = torch.randn(8, 64, generator=g)
    t[0] = 0
    t[1, :32] = 1e-30
    t[2, :5] = torch.tensor([448.0, -448.0, 0.5, 1.5, 2.5])
    t[3, :] = torch.exp2(torch.randint(-20, 20, (64,), generator=g).float())
    out.append(t)
    return out


def codes8(t):
    return t.view(torch.uint8).numpy()


@pytest.mark.parametrize("mode", ["floor", "rceil"])
def test_mx_operands_are_torchao_to_mx(mode):
    sm = ScaleCalculationMode.FLOOR if mode == "floor" else ScaleCalculationMode.RCEIL
    preset, opts = ("mx", {"variant": "torchao-0.18"}) if mode == "floor" else ("mxfp8-torchao", {"scale": "rceil-legacy"})
    for x in tensors():
        s, d = to_mx(x, torch.float8_e4m3fn, 32, sm)
        q = tcemu.quantize(x.numpy(), preset, **opts)
        np.testing.assert_array_equal(q.codes, codes8(d))
        np.testing.assert_array_equal(q.scales, codes8(s))


def test_torchao_mx_layer_equals_gemm_of_torchao_operands():
    g = torch.Generator().manual_seed(3)
    lin = torch.nn.Linear(64, 32, bias=False)
    x = torch.randn(48, 64, generator=g)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.TorchaoMX("floor", variant="torchao-0.18"), arch="sm_100a")
    y = wrap(x)
    sx, dx = to_mx(x, torch.float8_e4m3fn, 32, ScaleCalculationMode.FLOOR)
    sw, dw = to_mx(lin.weight.detach(), torch.float8_e4m3fn, 32, ScaleCalculationMode.FLOOR)
    ref = hand_gemm("mx", "fprop", codes8(dx), codes8(dw), "e4m3", "e4m3", torch.float32, sa=codes8(sx), sb=codes8(sw))
    np.testing.assert_array_equal(bits(y), bits(ref))


def test_nvfp4_operands_are_torchao_nvfp4_quantize():
    for x in tensors():
        amax = torch.max(torch.abs(x))
        if amax == 0:
            continue
        s, d = nvfp4_quantize(x, 16, per_tensor_amax_to_scale(amax))
        q = tcemu.quantize(x.numpy(), "nvfp4-torchao")
        packed = d.view(torch.uint8).numpy()  # two e2m1 codes a byte, element 2i in the low nibble
        unpacked = np.stack([packed & 0xF, packed >> 4], axis=-1).reshape(q.codes.shape)
        np.testing.assert_array_equal(q.codes, unpacked)
        np.testing.assert_array_equal(q.scales, codes8(s).reshape(q.scales.shape))


@pytest.mark.parametrize("fmt,dt", [("e4m3", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2)])
def test_float8_tensorwise_operands_are_torchao(fmt, dt):
    rec = tt.TorchaoFloat8()
    lin_cfg = LinearMMConfig()
    tensor = "input" if fmt == "e4m3" else "grad_output"
    for x in tensors():
        ref = hp_tensor_to_float8_dynamic(x, dt, lin_cfg)
        lay = tt.EmulatedLinear.from_linear(torch.nn.Linear(x.shape[1], 8), rec, "sm_90a", "probe").tcemu_layer
        q = lay.quantize(tensor, "rowwise", f32(x))
        np.testing.assert_array_equal(q.codes, codes8(ref._data))
        assert np.float32(q.scale_inv) == np.float32(ref._scale.reciprocal().item())


def test_grad_scaler_is_torch_amp_grad_scaler():
    """The same overflow pattern through both: scale after every step, the skipped steps, and
    the unscaled gradients' bits."""
    pattern = [0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0]
    p_t = torch.nn.Parameter(torch.zeros(64))
    p_e = torch.nn.Parameter(torch.zeros(64))
    opt_t = torch.optim.SGD([p_t], lr=0.0)
    opt_e = torch.optim.SGD([p_e], lr=0.0)
    ref = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5, growth_interval=3)
    rec = tt.Recorder()
    emu = tt.GradScaler(init_scale=2.0 ** 10, growth_factor=2.0, backoff_factor=0.5, growth_interval=3, recorder=rec)
    g = torch.Generator().manual_seed(5)
    ref_scales = []
    for step, bad in enumerate(pattern):
        grad = torch.randn(64, generator=g) * 1000
        if bad:
            grad[7] = float("inf")
        p_t.grad = grad.clone()
        p_e.grad = grad.clone()
        loss = torch.tensor(3.25)
        np.testing.assert_array_equal(bits(emu.scale(loss)), bits(ref.scale(loss)))
        ref.unscale_(opt_t)
        emu.unscale_(opt_e)
        np.testing.assert_array_equal(bits(p_e.grad), bits(p_t.grad))
        ref.step(opt_t)
        emu.step(opt_e)
        ref.update()
        emu.update()
        ref_scales.append(ref.get_scale())
        assert emu.get_scale() == ref.get_scale(), step
        rec.next_step()
    assert rec.loss_scales == ref_scales
    assert rec.skipped_steps == [i for i, b in enumerate(pattern) if b]
