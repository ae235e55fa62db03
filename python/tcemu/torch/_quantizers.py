"""Operand quantizers of the recipes: a 2-D float32 tensor (rows x K, K the GEMM's reduction
dimension, contiguous) becomes the codes and scales one operand of a tensor-core GEMM takes.
Every value is computed by tcemu's C++ core (tcemu.quantize, tcemu.convert, tcemu.fp8_cast,
tcemu.DelayedScaling, the torchao and TE scale rules); this module only chooses which rule,
and lays the results out for tcemu.gemm."""

import numpy as np

from .. import _quant, _tcemu
from .._convert import convert


class QOperand:
    """One quantized GEMM operand, rows x K.

    fmt: the element format (f16, bf16, e4m3, e5m2, e2m1); codes: rows x K codes (uint16 for
    16-bit formats, else uint8); scaling: None (per tensor or plain), 'mx' or 'nvfp4';
    scales: rows x K/block block-scale codes (uint8) or None; scale_inv: the per-tensor
    dequantization factor (float32) or None; amax: the tensor amax behind an NVFP4 operand
    (the GEMM's alpha; one per row for row-scaled NVFP4); e4m3_max: the E4M3 bound of NVFP4's
    tensor scale (448; 256 for TE's 4over6 option); quantized: the tcemu
    Quantized behind it (for dequantize), else None; source: the float32 input (statistics)."""

    __slots__ = ("fmt", "codes", "scaling", "scales", "block", "scale_inv", "amax", "e4m3_max", "quantized",
                 "source", "scale_used", "global_scale")

    def __init__(self, fmt, codes, *, scaling=None, scales=None, block=0, scale_inv=None, amax=None, e4m3_max=448.0,
                 quantized=None, source=None, scale_used=None, global_scale=None):
        self.fmt, self.codes, self.scaling, self.scales, self.block = fmt, codes, scaling, scales, block
        self.scale_inv, self.amax, self.e4m3_max, self.quantized = scale_inv, amax, e4m3_max, quantized
        self.source, self.scale_used, self.global_scale = source, scale_used, global_scale

    @property
    def row_scaled(self):
        """Whether the operand is TE's row-scaled NVFP4 (an amax per row)."""
        return self.scaling == "nvfp4" and np.ndim(self.amax) > 0

    def dequantized(self):
        """The values the operand stands for (float64), for statistics."""
        if self.quantized is not None:
            return _quant.dequantize(self.quantized).astype(np.float64)
        v = _tcemu.convert_codes(np.ascontiguousarray(self.codes), self.fmt, "f64", None, False, False, False, "",
                                 None).view(np.float64).reshape(self.codes.shape)
        if self.scale_inv is None:
            return v
        si = np.asarray(self.scale_inv, np.float64)
        return v * (si.reshape(-1, 1) if si.ndim else float(si))


class Quantizer:
    """How one tensor (input, weight or grad_output) is quantized. per_tensor: the columnwise
    operand is the rowwise one transposed (one scale for the whole tensor)."""

    per_tensor = True
    fmt = None

    def __call__(self, x, ctx):
        raise NotImplementedError


class Cast(Quantizer):
    """A plain cast to f16 / bf16 (torch.autocast's lower-precision GEMM inputs): one rounding
    to nearest even of each float32 element (tcemu.convert f32 -> fmt)."""

    def __init__(self, fmt):
        self.fmt = fmt

    def __call__(self, x, ctx):
        codes = convert(np.ascontiguousarray(x).view(np.uint32), "f32", self.fmt, threads=ctx.threads)
        return QOperand(self.fmt, codes, source=x)


class Delayed(Quantizer):
    """TransformerEngine DelayedScaling: the tensor's scale is last step's (amax history); the
    cast records this step's amax. ctx.scale replays a scale saved in the forward pass (the
    columnwise copies of the input and weight use the forward's scale and scale_inv)."""

    def __init__(self, fmt_name, options):
        self.fmt = None
        self.fmt_name, self.options = fmt_name, options

    def state(self, ctx):
        key = ("delayed", ctx.tensor)
        st = ctx.state.get(key)
        if st is None:
            st = ctx.state[key] = _quant.DelayedScaling(backward=ctx.tensor == "grad_output", fp8_format=self.fmt_name,
                                                        **self.options)
        return st

    def __call__(self, x, ctx):
        st = self.state(ctx)
        if ctx.scale is not None:
            scale, scale_inv = ctx.scale
            codes = _quant.fp8_cast(x, scale, st.format, threads=ctx.threads)
        else:
            scale, scale_inv = st.scale, st.scale_inv
            codes = st.quantize(np.ascontiguousarray(x))
        return QOperand(st.format, codes, scale_inv=np.float32(scale_inv), source=x,
                        scale_used=(np.float32(scale), np.float32(scale_inv)))


class Current(Quantizer):
    """TransformerEngine Float8CurrentScaling: scale = max / amax of this tensor (fp8-current)."""

    def __init__(self, fmt, pow2=False):
        self.fmt, self.pow2 = fmt, pow2

    def __call__(self, x, ctx):
        q = _quant.quantize(x, "fp8-current", format=self.fmt, pow2=self.pow2, threads=ctx.threads)
        return QOperand(self.fmt, q.codes, scale_inv=np.float32(q.scales.reshape(-1)[0]), quantized=q, source=x)


class TorchaoTensorwise(Quantizer):
    """torchao float8 training, tensorwise dynamic scaling: amax = max |x| (NaN propagates),
    scale = float32(max / max(float64(amax), 1e-12)), codes = c10 cast of clamp(x * scale)."""

    def __init__(self, fmt, pow2=False):
        self.fmt, self.pow2 = fmt, pow2

    def __call__(self, x, ctx):
        codes, scale, scale_inv, _ = _tcemu.torchao_fp8_quantize(np.ascontiguousarray(x), self.fmt, self.pow2,
                                                                  ctx.threads or 0)
        return QOperand(self.fmt, codes, scale_inv=np.float32(scale_inv), source=x)


class TorchaoRowwise(Quantizer):
    """torchao float8 training, axiswise dynamic scaling (the `rowwise` recipes): each row of the
    operand (rows x K) gets its own amax over K, scale = float32(max / max(float64(amax), 1e-12)),
    rounded down to a power of two with pow2, and the cast of clamp(x * scale). scale_inv holds
    one float32 per row (1 / scale), the factor torch._scaled_mm's rowwise scale_a / scale_b
    take."""

    per_tensor = False

    def __init__(self, fmt, pow2=True):
        self.fmt, self.pow2 = fmt, pow2

    def __call__(self, x, ctx):
        codes, scale, scale_inv, _ = _tcemu.torchao_fp8_quantize_rows(np.ascontiguousarray(x), self.fmt, self.pow2,
                                                                       ctx.threads or 0)
        return QOperand(self.fmt, codes, scaling="rowwise", scale_inv=scale_inv, source=x)


class HighPrecision(Quantizer):
    """No quantization (torchao's ScalingType.DISABLED): the GEMM takes the tensor in the
    model's own precision. fmt is set per call from the tensor's dtype (QOperand.fmt 'hp'
    carries the float32 values; the layer runs the GEMM in the activations' dtype)."""

    per_tensor = True
    fmt = "hp"

    def __call__(self, x, ctx):
        return QOperand("hp", np.ascontiguousarray(x, np.float32), scaling="hp", source=x)


class Blocked(Quantizer):
    """A block-scaled recipe preset of tcemu.quantize (MX: UE8M0 per 32 elements of K; NVFP4:
    UE4M3 per 16 with a per-tensor scale), with its options. tile2d NVFP4 weights share one
    scale per 16 x 16 tile, expanded here to the per-row block scales the instruction reads."""

    per_tensor = False

    def __init__(self, preset, scaling, block, options=None, stochastic=False):
        self.preset, self.scaling, self.block = preset, scaling, block
        self.options = dict(options or {})
        self.stochastic = stochastic
        self.fmt = _quant.recipe_options(preset, **self.options)[_kind_key(preset)].get("elem", "e2m1") \
            if scaling == "mx" else "e2m1"

    def __call__(self, x, ctx):
        rows, k = x.shape
        if k % self.block:
            raise ValueError(f"{ctx.where}: {ctx.tensor} has K = {k}, not a multiple of the {self.preset} block of "
                             f"{self.block} (TransformerEngine and torchao require it)")
        opts = dict(self.options)
        if ctx.usage == "columnwise" and ctx.rht:
            opts["rht"] = True
        kw = {}
        if self.stochastic:
            opts["round"] = "rs"
            kw = {"seed": ctx.seed, "offset": ctx.offset}
        q = _quant.quantize(x, self.preset, threads=ctx.threads, **opts, **kw)
        scales = q.scales
        if scales.shape[0] != rows:  # a 2-D tile per 16 rows: each row reads its tile's scale
            scales = np.repeat(scales, 16, axis=0)[:rows]
        amax = q.amax if self.scaling == "nvfp4" else None
        return QOperand(q.elem, q.codes, scaling=self.scaling, scales=np.ascontiguousarray(scales), block=self.block,
                        amax=amax, e4m3_max=float(opts.get("e4m3_max", 448)), quantized=q, source=x,
                        global_scale=q.global_scale if amax is not None else None)


class BlockFP8(Quantizer):
    """Blockwise FP8 (TransformerEngine Float8BlockScaling, DeepSeek-V3): `fp8-block1x128`
    (one f32 scale per 128 elements of K) or `fp8-block128x128` (one per 128 x 128 tile,
    repeated here over its 128 rows), power-of-two scales by default. The GEMM scales each
    128-long K block's partial product (tcemu.gemm_kblock)."""

    per_tensor = False

    def __init__(self, tile128, fmt, pow2=True):
        self.preset = "fp8-block128x128" if tile128 else "fp8-block1x128"
        self.fmt, self.pow2 = fmt, pow2

    def __call__(self, x, ctx):
        q = _quant.quantize(x, self.preset, format=self.fmt, pow2=self.pow2, threads=ctx.threads)
        scales = q.scales
        if scales.shape[0] != x.shape[0]:
            scales = np.repeat(scales, 128, axis=0)[:x.shape[0]]
        return QOperand(self.fmt, q.codes, scaling="kblock", scales=np.ascontiguousarray(scales, np.float32), block=128,
                        quantized=q, source=x)


def _kind_key(preset):
    return {"mx": "mx", "nvfp4": "nvfp4"}.get(_quant.recipe_options(preset)["kind"], "mx")


class QuantCtx:
    """What a quantizer needs besides the tensor: the layer's state dict, the tensor's role
    (input / weight / grad_output), its usage (rowwise / columnwise), a scale saved in the
    forward pass, whether this usage takes the Hadamard transform, the random stream of
    stochastic rounding, the thread count, and the layer's name for messages."""

    __slots__ = ("state", "tensor", "usage", "scale", "rht", "seed", "offset", "threads", "where")

    def __init__(self, state, tensor, usage, *, scale=None, rht=False, seed=0, offset=0, threads=None, where="layer"):
        self.state, self.tensor, self.usage, self.scale, self.rht = state, tensor, usage, scale, rht
        self.seed, self.offset, self.threads, self.where = seed, offset, threads, where
