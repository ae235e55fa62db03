"""NVFP4 with UE5M3 block scales (recipes nvfp4-e5m3-autoround and nvfp4-e5m3-autoround-gs,
NVFP4 orders autoround-e5m3 and autoround-e5m3-gs) against intel/auto-round v0.16.1 running:
its nvfp4_v2 and nvfp4_v2_with_global_scale (auto_round/data_type/nvfp.py), the functions
auto-round's NVFP4_E5M3 scheme quantizes with. Compared bit for bit: every dequantized value
(auto-round returns the quantize-dequantize result), every block scale (auto-round's f32 scale,
encoded back with its own float_to_e5m3_frexp) and the global scale.

auto-round 0.16.1 is installed without its dependencies in a directory of its own
(requirements-side.txt, "$(scripts/venv.sh)/side/auto-round-0.16.1"). Its package __init__
imports transformers, which this environment lacks, so the test loads the three files the
quantizer runs (data_type/register.py, data_type/utils.py, data_type/nvfp.py) and auto_round/envs.py
from there as they are, under stand-in parent packages; the names those files import and the
quantizer does not call (fp8 and gguf helpers, a logger) are stand-ins too."""

import importlib.util
import os
import sys
import types

import numpy as np
import pytest
import torch

import tcemu

AR_VERSION = "0.16.1"


def _side_dir():
    d = os.path.join(sys.prefix, "side", f"auto-round-{AR_VERSION}", "auto_round")
    if not os.path.isfile(os.path.join(os.path.dirname(d), "auto_round/data_type/nvfp.py")):
        pytest.fail(f"no auto-round {AR_VERSION} at {d} (requirements-side.txt; run scripts/install-deps.sh)")
    return d


@pytest.fixture(scope="module")
def nvfp():
    """auto_round.data_type.nvfp of auto-round 0.16.1, loaded from its files."""
    root = _side_dir()
    saved = {k: v for k, v in sys.modules.items() if k == "auto_round" or k.startswith("auto_round.")}

    def package(name, path):
        m = types.ModuleType(name)
        m.__path__ = [path]
        sys.modules[name] = m
        return m

    def stub(name, **attrs):
        m = types.ModuleType(name)
        for k, v in attrs.items():
            setattr(m, k, v)
        sys.modules[name] = m
        return m

    def unused(*_args, **_kwargs):
        raise AssertionError("a stand-in of auto-round was called")

    def load(name, rel):
        # rel: the file's path in auto-round's source tree (auto_round/...)
        spec = importlib.util.spec_from_file_location(name, os.path.join(os.path.dirname(root), rel))
        m = importlib.util.module_from_spec(spec)
        sys.modules[name] = m
        spec.loader.exec_module(m)
        return m

    import logging
    try:
        package("auto_round", root)
        package("auto_round.data_type", os.path.join(root, "data_type"))
        load("auto_round.envs", "auto_round/envs.py")
        stub("auto_round.compressors", __path__=[])
        stub("auto_round.compressors.utils", is_nv_fp=unused)
        stub("auto_round.utils", check_to_quantized=unused, logger=logging.getLogger("auto_round"), get_reciprocal=unused)
        stub("auto_round.logger", logger=logging.getLogger("auto_round"))
        stub("auto_round.data_type.fp8", float8_e4m3fn_ste=unused)
        stub("auto_round.data_type.gguf", _imatrix_handle_zero=unused)
        load("auto_round.data_type.register", "auto_round/data_type/register.py")
        load("auto_round.data_type.utils", "auto_round/data_type/utils.py")
        mod = load("auto_round.data_type.nvfp", "auto_round/data_type/nvfp.py")
    finally:
        for k in [k for k in sys.modules if k == "auto_round" or k.startswith("auto_round.")]:
            del sys.modules[k]
        sys.modules.update(saved)
    return mod


def _bits_equal(got, want):
    """Bit equality of float32 arrays, any NaN matching any NaN (auto-round's NaNs come from
    torch's arithmetic; their sign is not part of its result)."""
    got = np.asarray(got, np.float32).reshape(-1)
    want = np.asarray(want, np.float32).reshape(-1)
    assert got.shape == want.shape
    nan_g, nan_w = np.isnan(got), np.isnan(want)
    bad = (nan_g != nan_w) | (~nan_w & (got.view(np.uint32) != want.view(np.uint32)))
    idx = np.flatnonzero(bad)
    assert idx.size == 0, (f"{idx.size} of {got.size} differ, first at {idx[:8].tolist()}: "
                           f"tcemu {got[idx[:8]].tolist()} auto-round {want[idx[:8]].tolist()}")


def _compare(nvfp, x, gs, group, tensor_max=None):
    """One tensor through auto-round and through tcemu; asserts every bit agrees."""
    xt = torch.from_numpy(np.ascontiguousarray(x))
    kw = {} if tensor_max is None else {"tensor_max": tensor_max}
    if gs:
        qdq, scale, _ = nvfp.nvfp4_v2_with_global_scale(xt.clone(), group_size=group, **kw)
    else:
        qdq, scale, _ = nvfp.nvfp4_v2(xt.clone(), group_size=group)
    recipe = "nvfp4-e5m3-autoround-gs" if gs else "nvfp4-e5m3-autoround"
    opts = {"block": group}
    if tensor_max is not None:
        opts["global_amax"] = float(np.float32(tensor_max))
    q = tcemu.quantize(x, recipe, **opts)
    # The block scales: auto-round's f32 scales (one per group, rows in order) encoded by its own
    # float_to_e5m3_frexp are the UE5M3 codes tcemu stores.
    want_codes = nvfp.float_to_e5m3_frexp(scale.reshape(-1)).numpy()
    np.testing.assert_array_equal(np.asarray(q.scales).reshape(-1), want_codes)
    if gs:
        tmax = xt.to(torch.float32).abs().max() if tensor_max is None else torch.tensor(tensor_max, dtype=torch.float32)
        g = nvfp.FLOAT8_UE5M3_MAX * nvfp.FLOAT4_E2M1_MAX * nvfp.get_reciprocal(tmax)
        _bits_equal([q.global_scale], [g.item()])
    deq = tcemu.dequantize(q)
    _bits_equal(deq.reshape(x.shape), qdq.to(torch.float32).numpy())
    return q


def _random(rng, rows, cols, spread):
    """Values over 2^±spread around 1, both signs, some exact zeros."""
    x = (rng.standard_normal((rows, cols)) * np.exp2(rng.uniform(-spread, spread, (rows, 1)))).astype(np.float32)
    x[rng.random((rows, cols)) < 0.05] = 0.0
    return x


@pytest.mark.parametrize("gs", [False, True])
@pytest.mark.parametrize("group", [16, 32])
def test_random_tensors(nvfp, gs, group):
    rng = np.random.default_rng(2123 + group + gs)
    for rows, cols, spread in [(64, 256, 4), (33, 80, 20), (7, 50, 40), (5, 9, 3), (128, 512, 12)]:
        _compare(nvfp, _random(rng, rows, cols, spread), gs, group)


@pytest.mark.parametrize("gs", [False, True])
def test_edge_values(nvfp, gs):
    """Zero blocks, -0, values that round to -0, UE5M3 subnormal scales, scales clipped at
    114688, Inf and NaN, ties on the E2M1 grid and on the UE5M3 grid."""
    x = np.zeros((8, 48), np.float32)
    x[0, :16] = [6, 3, -1, 0.25, -0.25, 0.75, 5, -0.0, 0, 1.25, 1.75, 2.5, 3.5, -5, 4.5, 0.1]
    x[0, 16:20] = [7, -7, 1, 0]
    x[1, :] = -0.0
    x[2, :16] = np.float32(6 * 2.0**-17) * np.arange(1, 17, dtype=np.float32)  # subnormal scales
    x[2, 16:32] = np.float32(2.0**-24)
    x[2, 32:48] = np.float32(1e-30)
    x[3, :16] = 1e6
    x[3, 1] = -3e5
    x[3, 16:32] = np.float32(3.4e38)
    x[4, :16] = np.float32(6 * 1.0625)  # 1.0625: a tie between UE5M3 1.0 and 1.125
    x[4, 16:32] = np.float32(6 * 1.1875)  # a tie between 1.125 and 1.25
    # An amax whose product with the f32 1/6 is the tie 1.1875 (UE5M3 1.25) while the quotient
    # amax / 6 is just below it (1.125): auto-round multiplies by get_reciprocal(6.0).
    x[4, 32:48] = np.float32(float.fromhex("0x1.c7fffep+2"))
    x[5, :] = np.linspace(-6, 6, 48, dtype=np.float32)
    x[6, :16] = np.float32(1e-3)
    x[7, :] = np.float32(0.5)
    _compare(nvfp, x, gs, 16)
    y = x.copy()
    y[6, 3] = np.inf  # an Inf: with gs, 1 / amax = 0 and every scale is NaN (Inf * 0)
    _compare(nvfp, y, gs, 16)
    y = x.copy()
    y[6, 5] = np.nan  # a NaN block
    _compare(nvfp, y, gs, 16)
    y = x.copy()
    y[6, 5] = -np.inf
    _compare(nvfp, y, gs, 32)


def test_global_scale_edges(nvfp):
    # A zero tensor (gs 0), the smallest subnormal as its amax (1 / amax overflows: gs = Inf),
    # a large amax, and a tensor_max given instead of the tensor's.
    _compare(nvfp, np.zeros((2, 32), np.float32), True, 16)
    t = np.zeros((2, 32), np.float32)
    t[0, 0] = np.float32(2.0**-149)
    t[1, 5] = np.float32(2.0**-140)
    _compare(nvfp, t, True, 16)
    rng = np.random.default_rng(7)
    big = _random(rng, 16, 64, 3) * np.float32(1e30)
    _compare(nvfp, big, True, 16)
    x = _random(rng, 16, 64, 6)
    for tmax in [1.0, 3.0, 1000.0, float(np.abs(x).max()) * 2]:
        _compare(nvfp, x, True, 16, tensor_max=tmax)


def test_bf16_input(nvfp):
    """bf16 tensors: auto-round returns qdq.to(bfloat16); tcemu's f32 values rounded by torch."""
    rng = np.random.default_rng(11)
    x = torch.from_numpy(_random(rng, 32, 96, 8)).to(torch.bfloat16)
    for gs in (False, True):
        fn = nvfp.nvfp4_v2_with_global_scale if gs else nvfp.nvfp4_v2
        qdq, _, _ = fn(x.clone(), group_size=16)
        q = tcemu.quantize(x, "nvfp4-e5m3-autoround-gs" if gs else "nvfp4-e5m3-autoround")
        ours = torch.from_numpy(tcemu.dequantize(q)).to(torch.bfloat16)
        np.testing.assert_array_equal(ours.view(torch.int16).numpy(), qdq.view(torch.int16).numpy())


def test_options_refused():
    x = np.ones((2, 32), np.float32)
    with pytest.raises(ValueError, match="32 is auto-round's"):
        tcemu.quantize(x, "nvfp4", block=32)
    with pytest.raises(ValueError, match="NVFP4 blocks are 16 elements"):
        tcemu.quantize(x, "nvfp4-e5m3-autoround", block=8)
    with pytest.raises(ValueError, match="no tile2d"):
        tcemu.quantize(np.ones((16, 32), np.float32), "nvfp4-e5m3-autoround", tile2d=True)
    q = tcemu.quantize(x, "nvfp4-e5m3-autoround")
    assert q.global_scale is None or q.global_scale == 1.0
    r = tcemu.recipe_options("nvfp4-e5m3-autoround", block=32)
    assert r["nvfp4"]["order"] == "autoround-e5m3" and r["nvfp4"]["block"] == 32
    assert r["upstream"] == {"repo": "intel/auto-round", "ref": "v0.16.1", "file": "auto_round/data_type/nvfp.py"}
