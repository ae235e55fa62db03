"""tcemu.quantize / dequantize and the loss scalers against the command line (`tcemu
quantize`, `tcemu dequantize`, `tcemu lossscale`) on random tensors, every recipe preset."""

import os

import numpy as np
import pytest

import tcemu

RECIPES = [r["name"] for r in tcemu.recipes()]


def tensor(seed, rows=6, cols=128):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((rows, cols)) * np.exp2(rng.integers(-8, 8, (rows, 1)))).astype(np.float32)
    x[0, 3] = 0.0
    x[1, 5] = -x[1, 5] * 1000
    return x


def cli_quantize(cli, tmp_path, x, recipe, args=()):
    src = os.path.join(tmp_path, "x.npy")
    np.save(src, x)
    prefix = os.path.join(tmp_path, "q")
    cli(["quantize", src, "-o", prefix, "--recipe", recipe, *args])
    out = {k: np.load(f"{prefix}.{k}.npy") for k in ("codes", "scales")}
    if os.path.exists(f"{prefix}.global.npy"):
        out["global"] = np.load(f"{prefix}.global.npy")
    deq = os.path.join(tmp_path, "d.npy")
    cli(["dequantize", prefix, "-o", deq, "--recipe", recipe, *args])
    out["deq"] = np.load(deq)
    return out


@pytest.mark.parametrize("recipe", RECIPES)
def test_every_recipe_matches_cli(cli, tmp_path, recipe):
    x = tensor(len(recipe))
    try:
        ref = cli_quantize(cli, str(tmp_path), x, recipe)
    except AssertionError as e:
        # A recipe the CLI refuses for this shape: the binding refuses it too.
        with pytest.raises(ValueError):
            tcemu.quantize(x, recipe, seed=1)
        pytest.skip(str(e))
    q = tcemu.quantize(x, recipe, seed=0)  # the CLI's default Philox seed / offset for rs
    assert np.array_equal(q.codes, ref["codes"].reshape(q.codes.shape))
    sc = np.asarray(q.scales)
    assert sc.dtype == ref["scales"].dtype
    assert np.array_equal(sc.reshape(-1).view(np.uint8), ref["scales"].reshape(-1).view(np.uint8))
    if "global" in ref:  # one value, or one per row (nvfp4-row-scaled)
        assert np.array_equal(np.asarray(q.global_scale, np.float32).reshape(-1).view(np.uint32),
                              ref["global"].reshape(-1).view(np.uint32))
    elif recipe.startswith("nvfp4"):  # an NVFP4 order without a tensor scale: the factor 1
        assert q.global_scale == 1.0
    else:
        assert q.global_scale is None
    d = tcemu.dequantize(q)
    assert np.array_equal(d.view(np.uint32), ref["deq"].reshape(d.shape).view(np.uint32))


@pytest.mark.parametrize("args,options", [
    (["--four-over-six", "mse"], {"four_over_six": "mse"}),
    (["--four-over-six", "mae", "--e4m3-max", "256", "--dequant", "te"], {"four_over_six": "mae", "e4m3_max": 256}),
    (["--row-scaled", "--dequant", "te"], {"row_scaled": True}),
])
def test_nvfp4_te_variant_options_match_cli(cli, tmp_path, args, options):
    """TE's 4over6 and row-scaled NVFP4 options: the CLI's files (per-row global and amax for
    row-scaled) and the binding agree, and dequantize reads them back."""
    x = tensor(5, rows=32)
    ref = cli_quantize(cli, str(tmp_path), x, "nvfp4", args)
    q = tcemu.quantize(x, "nvfp4", **options)
    assert np.array_equal(q.codes, ref["codes"])
    assert np.array_equal(q.scales, ref["scales"])
    g = np.asarray(q.global_scale, np.float32).reshape(-1)
    assert g.size == (32 if options.get("row_scaled") else 1)
    assert np.array_equal(g.view(np.uint32), ref["global"].reshape(-1).view(np.uint32))
    amax = np.load(os.path.join(str(tmp_path), "q.amax.npy"))
    assert np.array_equal(np.asarray(q.amax, np.float32).reshape(-1).view(np.uint32), amax.reshape(-1).view(np.uint32))
    d = tcemu.dequantize(q, dequant="te" if "--dequant" in args else None)
    assert np.array_equal(d.view(np.uint32), ref["deq"].view(np.uint32))


def test_nvfp4_te_variant_options_refused(cli, tmp_path):
    x = tensor(6, rows=8)
    src = os.path.join(str(tmp_path), "x.npy")
    np.save(src, x)
    out = os.path.join(str(tmp_path), "q")
    for args, msg in [(["--recipe", "nvfp4", "--four-over-six", "max"], "--four-over-six must be off, mae or mse"),
                      (["--recipe", "nvfp4", "--e4m3-max", "256"], "requires E4M3 max 448"),
                      (["--recipe", "nvfp4-row-scaled", "--rht"], "does not support RHT"),
                      (["--recipe", "nvfp4-2d", "--four-over-six", "mae"], "multiple of 16"),
                      (["--recipe", "mxfp8", "--row-scaled"], "does not apply to recipe 'mxfp8'")]:
        r = cli(["quantize", src, "-o", out, *args], check=False)
        assert r.returncode == 2, args
        assert msg in r.stderr, (args, r.stderr)
    with pytest.raises(ValueError, match="does not support stochastic rounding"):
        tcemu.quantize(x, "nvfp4-4over6", round="rs", seed=1)
    with pytest.raises(ValueError, match="e4m3_max"):
        tcemu.quantize(x, "nvfp4", e4m3_max=300)


def test_mx_options_match_cli(cli, tmp_path):
    mx = next((r for r in RECIPES if r.startswith("mxfp8")), None)
    if mx is None:
        pytest.skip("no MX recipe")
    x = tensor(3, 64, 64)
    for opts, args in (({"elem": "e5m2"}, ["--elem", "e5m2"]), ({"axis": "col"}, ["--axis", "col"]),
                       ({"scale": "floor", "block": 16}, ["--scale", "floor", "--block", "16"]),
                       ({"round": "rz"}, ["--round", "rz"])):
        ref = cli_quantize(cli, str(tmp_path), x, mx, args)
        q = tcemu.quantize(x, mx, **opts)
        assert np.array_equal(q.codes, ref["codes"]), opts
        assert np.array_equal(q.scales, ref["scales"].reshape(q.scales.shape)), opts


def test_rbits_and_seed_agree(cli, tmp_path):
    nv = next((r for r in RECIPES if "nvfp4" in r), None)
    if nv is None:
        pytest.skip("no NVFP4 recipe")
    x = tensor(9, 4, 64)
    words = 4 * 64 // 4
    q1 = tcemu.quantize(x, nv, round="rs", seed=5, offset=3)
    q2 = tcemu.quantize(x, nv, round="rs", rbits=tcemu._tcemu.philox_words(5, 3, words))
    assert np.array_equal(q1.codes, q2.codes)
    ref = cli_quantize(cli, str(tmp_path), x, nv, ["--round", "rs", "--seed", "5", "--offset", "3"])
    assert np.array_equal(q1.codes, ref["codes"])
    with pytest.raises(ValueError, match=r"^rbits: stochastic rounding needs random words"):
        tcemu.quantize(x, nv, round="rs")
    with pytest.raises(ValueError, match=rf"^rbits: recipe '{nv}' needs {words} random words"):
        tcemu.quantize(x, nv, round="rs", rbits=np.zeros(3, np.uint32))


def test_inputs_folded_and_widened():
    name = RECIPES[0]
    x = tensor(4, 4, 64)
    q = tcemu.quantize(x, name)
    q16 = tcemu.quantize(x.astype(np.float16), name)
    assert np.array_equal(tcemu.quantize(x.astype(np.float16).astype(np.float32), name).codes, q16.codes)
    assert np.array_equal(tcemu.quantize(x.reshape(2, 2, 64), name).codes, q.codes)
    assert np.array_equal(tcemu.quantize(np.asfortranarray(x), name).codes, q.codes)


def _cli_scales(cli, args, flags):
    out = cli(["lossscale", *args], "".join("1\n" if f else "0\n" for f in flags)).stdout.splitlines()[1:]
    return [int(line.split("\t")[2].split("(0x")[1].rstrip(")"), 16) for line in out]


def test_grad_scaler_matches_cli(cli):
    rng = np.random.default_rng(2)
    flags = list(rng.random(300) < 0.05)
    s = tcemu.GradScaler(init_scale=3.0, growth_factor=1.5, backoff_factor=0.3, growth_interval=7)
    got = [np.float32(s.scale).view(np.uint32)]
    for f in flags:
        s.update(bool(f))
        got.append(np.float32(s.scale).view(np.uint32))
    ref = _cli_scales(cli, ["--init", "3", "--growth", "1.5", "--backoff", "0.3", "--interval", "7"], flags)
    assert [int(g) for g in got] == ref


def test_megatron_scaler_matches_cli(cli):
    rng = np.random.default_rng(3)
    flags = list(rng.random(300) < 0.1)
    s = tcemu.MegatronScaler(initial_scale=1024.0, growth_interval=5, hysteresis=3, min_scale=2.0)
    got = [np.float32(s.scale).view(np.uint32)]
    for f in flags:
        s.update(bool(f))
        got.append(np.float32(s.scale).view(np.uint32))
    ref = _cli_scales(cli, ["--megatron", "--init", "1024", "--interval", "5", "--hysteresis", "3", "--min-scale", "2"], flags)
    assert [int(g) for g in got] == ref


def test_unscale_is_f32_multiplication_by_inv_scale():
    """GradScaler.unscale against NumPy's IEEE float32 arithmetic: inv_scale is
    (float)(1 / (double)scale) and each gradient g * inv_scale rounded once to f32 (f16 / bf16
    codes: widened exactly, multiplied in f32, rounded back to nearest even)."""
    rng = np.random.default_rng(4)
    s = tcemu.GradScaler(init_scale=3.0 * 2**10)
    inv = np.float32(1.0 / np.float64(np.float32(s.scale)))
    assert np.float32(s.inv_scale) == inv
    g = (rng.standard_normal(10000) * 1e4).astype(np.float32)
    ref = g * inv
    assert s.unscale(g) is False
    assert np.array_equal(g.view(np.uint32), ref.view(np.uint32))
    h = (rng.standard_normal(10000) * 100).astype(np.float16)
    ref16 = (h.astype(np.float32) * inv).astype(np.float16)
    codes = h.view(np.uint16).copy()
    assert s.unscale(codes, fmt="f16") is False
    assert np.array_equal(codes, ref16.view(np.uint16))
    g[7] = np.nan
    assert s.unscale(g) is True
