"""Hostile input to tcemu.torch (issue 32): recipe options of the wrong kind or out of range,
convert / autocast arguments, operands of the wrong dtype, device, shape or size, and the
Recorder's path. Each is a TypeError or ValueError naming the argument, raised where it is
given (a recipe's constructor, not its first GEMM); a non-contiguous operand computes what its
contiguous copy computes, bit for bit; NaN in an operand is arithmetic and propagates."""

import re

import numpy as np
import pytest
import torch
from torch import nn

import tcemu
import tcemu.torch as tt


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 16))  # K of 32: every block size


def run(name, x, arch="sm_90a", **options):
    return tt.convert(model(), tt.recipe(name, **options), arch=arch)(x)


@pytest.mark.parametrize("name,options,error,fragment", [
    ("te-delayed-hybrid", dict(amax_history_len=0), ValueError, "amax_history_len: 0 is outside 1..1048576"),
    ("te-delayed-hybrid", dict(amax_history_len=2**40), ValueError, "is outside 1..1048576"),
    ("te-delayed-hybrid", dict(amax_history_len=1.5), TypeError, "amax_history_len: an int is required"),
    ("te-delayed-hybrid", dict(amax_history_len="4"), TypeError, "amax_history_len: an int is required"),
    ("te-delayed-hybrid", dict(margin=float("nan")), TypeError, "margin: an int is required"),
    ("te-delayed-hybrid", dict(margin=5000), ValueError, "margin: 5000 is outside -1024..1024"),
    ("te-delayed-hybrid", dict(update="xx"), ValueError, "update: 'fused' or 'python'"),
    ("te-current", dict(fp8_format="e9m9"), ValueError, "fp8_format: 'e9m9' is not a Format"),
    ("te-current", dict(use_power_2_scales="yes"), TypeError, "use_power_2_scales: a bool is required"),
    ("te-current", dict(epilogue="xx"), ValueError, "unknown epilogue order 'xx'"),
    ("te-current", dict(epilogue=3), TypeError, "epilogue order name"),
    ("te-current", dict(threads=0), ValueError, "threads: 0 is outside 1..4096"),
    ("te-current", dict(threads="2"), TypeError, "threads: an int"),
    ("te-block", dict(use_f32_scales=1), TypeError, "use_f32_scales: a bool is required"),
    ("te-mxfp8", dict(fp8_format=7), ValueError, "fp8_format: 7 is not a Format"),
    ("te-nvfp4", dict(seed=-1), ValueError, "seed: -1 is outside 0..2^64-1"),
    ("te-nvfp4", dict(seed=2**70), ValueError, "is outside 0..2^64-1"),
    ("te-nvfp4", dict(seed=1.5), TypeError, "seed: an int is required"),
    ("te-nvfp4", dict(disable_rht="no"), TypeError, "disable_rht: a bool is required"),
    ("te-nvfp4", dict(disable_stochastic_rounding=0), TypeError, "disable_stochastic_rounding: a bool is required"),
    ("te-nvfp4", dict(disable_2d_quantization=None), TypeError, "disable_2d_quantization: a bool is required"),
])
def test_recipe_options_are_checked_where_given(name, options, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        tt.recipe(name, **options)


def test_convert_arguments():
    r = tt.recipe("te-current")
    with pytest.raises(TypeError, match="model: a torch.nn.Module is required, got list"):
        tt.convert([1, 2], r, arch="sm_90a")
    with pytest.raises(TypeError, match="inference: True or False, got 'yes'"):
        tt.convert(model(), r, arch="sm_90a", inference="yes")
    with pytest.raises(TypeError, match=r"filter_fn: it is called as filter_fn\(module, name\)"):
        tt.convert(model(), r, arch="sm_90a", filter_fn=lambda m: True)
    with pytest.raises(TypeError, match="filter_fn: a callable"):
        tt.convert(model(), r, arch="sm_90a", filter_fn=3)
    with pytest.raises(TypeError, match="recipe: a tcemu.torch recipe"):
        tt.convert(model(), "te-current", arch="sm_90a")
    with pytest.raises(ValueError, match="arch: 'sm_91'"):
        tt.convert(model(), r, arch="sm_91")


def test_autocast_arguments_and_operands():
    r = tt.recipe("te-current")
    with pytest.raises(TypeError, match="enabled: True or False, got 'no'"):
        with tt.autocast(r, arch="sm_90a", enabled="no"):
            pass
    with pytest.raises(ValueError, match="device_type: 'tpu'"):
        with tt.autocast(r, arch="sm_90a", device_type="tpu"):
            pass
    a = torch.randn(16, 32)
    with tt.autocast(r, arch="sm_90a"):
        # a ValueError (a TypeError would become `@`'s "unsupported operand type(s)")
        with pytest.raises(ValueError, match="matmul operand a has dtype torch.float64"):
            _ = a.double() @ torch.randn(32, 8, dtype=torch.float64)
        with pytest.raises(ValueError, match=r"shape \(0, 32\) has no elements"):
            _ = torch.randn(0, 32) @ torch.randn(32, 8)
        with pytest.raises(ValueError, match="needs equal batch shapes"):
            _ = torch.randn(2, 16, 32) @ torch.randn(3, 32, 8)
        with pytest.raises(ValueError, match="needs K = 31"):
            _ = a @ torch.randn(31, 8)


@pytest.mark.parametrize("x,error,fragment", [
    (torch.randn(16, 32, device="meta"), ValueError, "input is a tensor on meta"),
    (torch.randn(0, 32), ValueError, "has no elements"),
    (torch.randn(16, 31), ValueError, "K = 31"),
    (torch.ones(16, 32, dtype=torch.int64), (TypeError, ValueError), "Long|int64"),
    (torch.randn(16, 32, dtype=torch.complex64), (TypeError, ValueError), "ComplexFloat|complex64"),
])
def test_linear_operands(x, error, fragment):
    with pytest.raises(error, match=fragment):
        run("te-current", x)


@pytest.mark.parametrize("name,arch", [("te-current", "sm_90a"), ("te-mxfp8", "sm_100a"), ("te-nvfp4", "sm_100a"),
                                       ("torchao-nvfp4", "sm_100a"), ("bf16-amp", "sm_90a")])
def test_non_contiguous_input_is_its_copy(name, arch):
    x = torch.randn(32, 64).t()  # 64 x 32, strides (1, 64)
    assert not x.is_contiguous()
    y_view = run(name, x, arch=arch)
    y_copy = run(name, x.contiguous(), arch=arch)
    assert torch.equal(y_view.view(torch.int32) if y_view.dtype == torch.float32 else y_view.view(torch.int16),
                       y_copy.view(torch.int32) if y_copy.dtype == torch.float32 else y_copy.view(torch.int16))


def test_nan_input_propagates_to_its_row():
    x = torch.randn(16, 32)
    x[3, 5] = float("nan")
    y = run("te-delayed-hybrid", x)  # delayed scaling: the NaN row does not change the scale
    assert torch.isnan(y[3]).all()
    assert not torch.isnan(torch.cat([y[:3], y[4:]])).any()


def test_recorder_path_and_quantize_ranges():
    with pytest.raises(TypeError, match="path: a file name"):
        tt.Recorder().to_json(3)  # open(3) would write to file descriptor 3
    x = np.ones((4, 32), np.float32)
    with pytest.raises(ValueError, match="block: 18446744073709551615 is out of range"):
        tcemu.quantize(x, "mxfp8", block=2**64 - 1)
    with pytest.raises(ValueError, match=r"recipe.mx.block: must be in 1..1048576"):
        tcemu.quantize(x, "mxfp8", block=2**20 + 1)
    with pytest.raises(ValueError, match=r"seed: 18446744073709551616 is above 2\^64 - 1"):
        tcemu.quantize(x, "nvfp4", round="rs", seed=2**64)
    with pytest.raises(ValueError, match=r"offset: 18446744073709551616 is above 2\^64 - 1"):
        tcemu.quantize(x, "nvfp4", round="rs", seed=1, offset=2**64)
