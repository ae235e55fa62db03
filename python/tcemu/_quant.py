"""tcemu.quantize / dequantize (the named recipes: MXFP8, NVFP4, FP8 current and blockwise
scaling ...) and the loss scalers (PyTorch's GradScaler, Megatron's DynamicGradScaler)."""

import json
import struct

import numpy as np

from . import _tcemu
from ._arrays import as_array, contiguous, threads_arg, uint32_array

Quantized = _tcemu.Quantized
MegatronScaler = _tcemu.MegatronScaler
DelayedScaling = _tcemu.DelayedScaling
DelayedScaling.__doc__ = """TransformerEngine's delayed scaling of one tensor (docs/quantization.md):
DelayedScaling(margin=0, history_len=1024, amax_compute_algo='max'|'most_recent',
fp8_format='e4m3'|'e5m2'|'hybrid', update='fused'|'python', backward=False). quantize(x) casts a
float32 array with the current scale and records its amax; update() at the end of a step
computes the next scale from the amax history; .scale, .scale_inv, .history, .format."""


def recipes():
    """The recipe presets: name and summary."""
    return _tcemu.recipes()


def _f32_values(x, name):
    arr, implied = as_array(x, name)
    if implied == "bf16":  # bfloat16 tensor bits: exact in float32
        return (arr.astype(np.uint32) << 16).view(np.float32)
    if implied is not None:
        raise TypeError(f"{name}: a {implied} tensor; quantize takes float32, float16 or bfloat16 values")
    if not isinstance(x, np.ndarray) and not hasattr(x, "shape"):
        arr = np.asarray(x, dtype=np.float32)
        if not np.array_equal(arr.astype(np.float64), np.asarray(x, dtype=np.float64), equal_nan=True):
            raise TypeError(f"{name}: values that float32 does not hold exactly; pass a float32 array")
    if arr.dtype == np.float16:
        arr = arr.astype(np.float32)  # exact
    if arr.dtype != np.float32:
        raise TypeError(f"{name}: dtype {arr.dtype}; quantize takes float32 (or float16 / bfloat16) values "
                        f"(round other types to float32 yourself: the recipes start from f32)")
    return arr


def _options(options):
    out = {}
    for k, v in options.items():
        if k == "global_amax" and isinstance(v, (float, np.floating)):
            v = "0x%08x" % struct.unpack("<I", struct.pack("<f", float(v)))[0]
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, int) and not isinstance(v, bool) and not -2**63 <= v < 2**63:
            raise ValueError(f"{k}: {v} is out of range (a 64-bit integer)")
        out[k] = v
    return out


def quantize(x, recipe, *, rbits=None, seed=None, offset=0, threads=None, **options):
    """Quantizes x (float32; float16 and bfloat16 exactly widened; leading dimensions folded
    into rows, a 1-D x is one row) with a named recipe (tcemu.recipes()). Options override the
    preset, with the names of a golden file's recipe object (docs/golden.md): MX elem, block,
    axis, scale, round, amax_nan, cast, rceil_log2, rs_bits; NVFP4 order, tile2d, fast_math,
    round, rs_map, global_amax, rht, rht_signs, rht_out, four_over_six ('off', 'mae', 'mse'),
    row_scaled, e4m3_max (448, 256), err_fast_math, block (16; 32 with the auto-round orders);
    FP8 format, pow2, tile128.
    Stochastic rounding takes rbits (uint32 words) or seed/offset (Philox4x32-10, as the CLI).
    Returns a Quantized: .codes (rows x cols uint8), .scales (uint8 codes, or float32
    scale_inv for FP8 recipes), .global_scale (NVFP4, else None), .amax (row-scaled NVFP4:
    both float32 arrays, one per row).
    threads: how many threads quantize (None: $TCEMU_NUM_THREADS, else every core); the codes,
    scales and amax are the same bits for every thread count."""
    th = threads_arg(threads)
    if not isinstance(recipe, str):
        raise TypeError(f"recipe: a recipe name is required, got {type(recipe).__name__}")
    v = _f32_values(x, "x")
    if v.ndim == 0:
        raise ValueError("x: a scalar; quantize takes a tensor (1-D or more)")
    if v.size == 0:
        raise ValueError(f"x: shape {v.shape} has no elements")
    v2 = contiguous(v.reshape(1, -1) if v.ndim == 1 else v.reshape(-1, v.shape[-1]), "x")
    rows, cols = v2.shape
    if rows == 0 or cols == 0:
        raise ValueError(f"x: shape {v.shape} has no elements")
    rb = None if rbits is None else uint32_array(rbits, "rbits").reshape(-1)
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise TypeError("seed: a non-negative int is required")
    if isinstance(offset, bool) or not isinstance(offset, (int, np.integer)) or offset < 0:
        raise TypeError("offset: a non-negative int is required")
    for name, v in (("seed", seed or 0), ("offset", offset)):
        if v >= 2**64:
            raise ValueError(f"{name}: {v} is above 2^64 - 1 (Philox4x32-10 takes a 64-bit {name})")
    return _tcemu.quantize_f32(v2, rows, cols, recipe, _options(options), rb, int(seed or 0), int(offset),
                               seed is not None, th)


def fp8_cast(x, scale, fmt, *, threads=None):
    """Per-tensor FP8 codes of x (float32; float16/bfloat16 widened exactly) for a scale the
    caller holds: cvt.rn.satfinite.<fmt>(x * scale), the f32 product (fmt e4m3 or e5m2). The
    codes have x's shape (uint8)."""
    th = threads_arg(threads)
    v = _f32_values(x, "x")
    if isinstance(scale, bool) or not isinstance(scale, (int, float, np.floating, np.integer)):
        raise TypeError(f"scale: a number is required, got {type(scale).__name__}")
    if fmt not in ("e4m3", "e5m2"):
        raise ValueError(f"fmt: '{fmt}'; per-tensor FP8 codes are e4m3 or e5m2")
    return _tcemu.fp8_cast_scaled(np.ascontiguousarray(v), float(np.float32(scale)), fmt, th)


def dequantize(q, *, threads=None, dequant=None, out=None):
    """The values a Quantized stands for (float32, rows x cols), in the recipe's arithmetic.
    dequant: None (the recipe's default: ocp for MX, tcemu for NVFP4) or another rule of the
    format, as the CLI's --dequant: MX 'ocp', 'te' (TransformerEngine's dequantize_mxfp8.cuh),
    'te-2.18'; NVFP4 'tcemu', 'te' (dequantize_nvfp4.cuh). threads: as quantize().
    out: None (a new array), or a writeable C-contiguous float32 array of shape (rows, cols)
    that receives the values (returned; nothing is allocated for the result)."""
    th = threads_arg(threads)
    if not isinstance(q, Quantized):
        raise TypeError(f"q: a tcemu.Quantized (from tcemu.quantize) is required, got {type(q).__name__}")
    if dequant is not None and not isinstance(dequant, str):
        raise TypeError(f"dequant: a rule name (str) or None is required, got {type(dequant).__name__}")
    if out is not None:
        if not isinstance(out, np.ndarray):
            raise TypeError(f"out: a NumPy array is required, got {type(out).__name__}")
        if out.dtype != np.float32:
            raise TypeError(f"out: dtype float32 is required, got {out.dtype}")
        shape = tuple(q.shape)
        if out.shape != shape:
            raise ValueError(f"out: the shape must be {shape}, got {out.shape}")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError("out: must be a writeable C-contiguous array")
    return _tcemu.dequantize_q(q, th, dequant or "", out)


def recipe_options(recipe, **options):
    """The recipe with every option resolved, as a dict (what a golden file records)."""
    return json.loads(_tcemu.recipe_options(recipe, _options(options)))


class GradScaler(_tcemu.GradScaler):
    """PyTorch's GradScaler (torch.amp) update rule and unscale arithmetic, bit for bit:
    update(found_inf), .scale, .inv_scale, .growth_tracker, unscale(grads)."""

    def unscale(self, grads, fmt=None):
        """Unscales gradients in place (float32 array, or uint16 f16/bf16 codes with fmt);
        returns found_inf: whether any gradient was not finite."""
        if not isinstance(grads, np.ndarray):
            raise TypeError(f"grads: a NumPy array is required (unscaled in place), got {type(grads).__name__}")
        if not grads.flags.c_contiguous or not grads.flags.writeable:
            raise ValueError("grads: must be a writeable C-contiguous array (it is unscaled in place)")
        if fmt is None:
            if grads.dtype != np.float32:
                raise TypeError(f"grads: dtype {grads.dtype}; float32 values, or uint16 codes with fmt='f16'/'bf16'")
            return self._unscale_f32(grads)
        if fmt not in ("f16", "bf16"):
            raise ValueError(f"fmt: '{fmt}'; gradient codes are f16 or bf16")
        if grads.dtype not in (np.uint16, np.float16):
            raise TypeError(f"grads: dtype {grads.dtype}; {fmt} codes are uint16")
        return self._unscale_codes(grads.view(np.uint16), fmt)


LossScaler = GradScaler
