"""torch's float8 / float4 / bfloat16 dtypes across the Python API: accepted wherever the format
matches (codes are their bits), and produced by tcemu.torch.to_torch / tcemu.torch.quantize."""

import numpy as np
import pytest
import torch
from torchao.prototype.mx_formats.nvfp4_tensor import nvfp4_quantize, per_tensor_amax_to_scale

import tcemu
import tcemu.torch as tt


def test_float8_e8m0_and_float4_tensors_are_accepted():
    s = torch.tensor([1.0, 2.0, 0.25]).to(torch.float8_e8m0fnu)
    assert list(tcemu.decode(s, "ue8m0")) == [1.0, 2.0, 0.25]
    f4 = torch.tensor([[0x21, 0x7F]], dtype=torch.uint8).view(torch.float4_e2m1fn_x2)
    # low nibble first: codes 1, 2, 0xf, 7 -> 0.5, 1.0, -6, 6
    assert list(tcemu.decode(f4, "e2m1").reshape(-1)) == [0.5, 1.0, -6.0, 6.0]
    with pytest.raises(TypeError, match="ue8m0 tensor given where e4m3"):
        tcemu.decode(s, "e4m3")


def test_mma_takes_torch_float8_operands_and_scales():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(32, 64, generator=g)
    w = torch.randn(16, 64, generator=g)
    qx, qw = tt.quantize(x, "mxfp8"), tt.quantize(w, "mxfp8")
    assert qx.data.dtype == torch.float8_e4m3fn and qx.scales.dtype == torch.float8_e8m0fnu
    instr = "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X"
    kw = dict(arch="sm_100a", instr=instr, atype="e4m3", btype="e4m3", dtype="f32", stype="ue8m0")
    d_torch = tcemu.mma(qx.data, qw.data.T, scale_a=qx.scales, scale_b=qw.scales.T, **kw)
    d_codes = tcemu.mma(qx.q.codes, qw.q.codes.T, scale_a=qx.q.scales, scale_b=qw.q.scales.T, **kw)
    np.testing.assert_array_equal(d_torch, d_codes)


def test_to_torch_packs_e2m1_as_torchao_does():
    x = torch.randn(8, 64, generator=torch.Generator().manual_seed(1))
    _, data = nvfp4_quantize(x, 16, per_tensor_amax_to_scale(torch.max(torch.abs(x))))
    q = tt.quantize(x, "nvfp4-torchao")
    assert q.data.dtype == torch.float4_e2m1fn_x2 and q.scales.dtype == torch.float8_e4m3fn
    np.testing.assert_array_equal(q.data.view(torch.uint8).numpy(), data.view(torch.uint8).numpy())


def test_to_torch_dtypes_and_errors():
    for fmt, dt in (("e4m3", torch.float8_e4m3fn), ("e5m2", torch.float8_e5m2), ("bf16", torch.bfloat16),
                    ("f16", torch.float16), ("f32", torch.float32), ("ue8m0", torch.float8_e8m0fnu)):
        assert tt.dtype_of(fmt) == dt
        width = torch.finfo(dt).bits // 8
        codes = np.arange(6, dtype={1: np.uint8, 2: np.uint16, 4: np.uint32}[width])
        t = tt.to_torch(codes, fmt)
        assert t.dtype == dt
        np.testing.assert_array_equal(tcemu._arrays.as_array(t, "t")[0].view(codes.dtype), codes)
    with pytest.raises(ValueError, match="even last dimension"):
        tt.to_torch(np.zeros(3, np.uint8), "e2m1")
    with pytest.raises(ValueError, match="no torch dtype"):
        tt.to_torch(np.zeros(3, np.uint8), "e3m2")
    with pytest.raises(TypeError, match="2-byte"):
        tt.to_torch(np.zeros(3, np.uint8), "bf16")
