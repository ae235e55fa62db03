"""The recipes: which quantization each tensor of a linear layer gets in each pass, which
tensor-core instruction each GEMM runs, and the options where upstream is not public. Each
recipe computes what the implementation it is named after computes, at
NVIDIA/TransformerEngine d0067d0da6cb and pytorch/ao 36027d82d1ad (docs/torch.md cites the
file of each rule).

The three GEMMs of a linear layer Y = X W^T (+ bias), every one written D = A B^T with both
operands rows x K (K the reduction dimension), as TransformerEngine runs them (TN):
  fprop  Y  = X  . W^T     A = X (rowwise),             B = W (rowwise)
  dgrad  dX = dY . W       A = dY (rowwise),            B = W^T (W columnwise)
  wgrad  dW = dY^T . X     A = dY^T (dY columnwise),    B = X^T (X columnwise)
"""

import enum

import torch

from . import _quantizers as qz
from ._instr import default_instr, Instr

ROLES = ("fprop", "dgrad", "wgrad")
TENSORS = ("input", "weight", "grad_output")
# (A's tensor, A's usage, B's tensor, B's usage) of each GEMM.
OPERANDS = {
    "fprop": ("input", "rowwise", "weight", "rowwise"),
    "dgrad": ("grad_output", "rowwise", "weight", "columnwise"),
    "wgrad": ("grad_output", "columnwise", "input", "columnwise"),
}


class Format(enum.Enum):
    """TransformerEngine's recipe.Format: E4M3 everywhere, or HYBRID (E4M3 forward, E5M2 for
    gradients)."""

    E4M3 = "e4m3"
    HYBRID = "hybrid"


def _format_arg(fmt):
    """A Format from a Format or its value ('e4m3', 'hybrid'); ValueError naming fp8_format otherwise."""
    if isinstance(fmt, Format):
        return fmt
    try:
        return Format(fmt)
    except ValueError:
        raise ValueError(f"fp8_format: {fmt!r} is not a Format (Format.E4M3, Format.HYBRID, 'e4m3' or 'hybrid')") from None


def _bool_arg(value, name):
    if not isinstance(value, bool):
        raise TypeError(f"{name}: a bool is required, got {type(value).__name__}")
    return value


def _fmt(fmt, tensor):
    f = Format(fmt) if not isinstance(fmt, Format) else fmt
    return "e5m2" if (f is Format.HYBRID and tensor == "grad_output") else "e4m3"


class Recipe:
    """Base of the recipes. Subclasses give quantizer(tensor) and the GEMM options; every
    recipe takes:
      instr: {role: PTX spelling} to run a GEMM on another catalog entry of the arch;
      promote_every: FP32 promotion interval, in instructions, of GEMMs that TE runs with
        split accumulation (use_split_accumulator=True) on sm_89 / sm_90a. cuBLAS's interval
        is not public: the default 4 (4 x k32 = 128 elements of K) is DeepGEMM's, as the
        DeepSeek-V3 report describes it; 0 turns promotion off;
      epilogue: the tcemu.gemm epilogue order (None: its default, `fold`; docs/gemm.md);
      threads: tcemu.mma threads per GEMM (None: every core);
      device: where the emulated GEMMs run: None (the default) on the emulator on the GPU that
        holds the layer's tensors (CUDA tensors: tcemu's CUDA backend, the same bits) and on the
        host for CPU tensors; "cpu" always on the host; "cuda" / "cuda:N" on that GPU."""

    name = "recipe"
    emulated = True
    upstream = ""
    fast_accumulation = {"fprop": True, "dgrad": True, "wgrad": True}
    # True: the bias is the GEMM epilogue's (TransformerEngine hands it to cuBLASLt, added in f32
    # before the output conversion); False: torch adds it to the converted output
    # (`output + bias.to(output.dtype)`, torchao's Float8Linear and MXFP8Linear).
    bias_in_epilogue = True
    # NVFP4 GEMMs: "te" (the per-tensor scales folded into alpha: nvte's per-tensor scale kernel)
    # or "torchao" (alpha 1, then torch multiplies the output by (pts_a * pts_b).to(dtype)).
    nvfp4_epilogue = "te"
    # TransformerEngine's backward_override (None, "high_precision", "dequantized"): the
    # backward GEMMs in the activations' dtype on the original (or the forward's dequantized)
    # operands; recipes that take it set this True.
    takes_backward_override = False
    backward_override = None
    dequant_rule = None  # the tcemu.dequantize rule of the recipe's MX / NVFP4 operands

    def __init__(self, *, instr=None, promote_every=4, epilogue=None, threads=None, device=None):
        if instr is not None and (not isinstance(instr, dict) or set(instr) - set(ROLES)):
            raise ValueError(f"instr: a dict with keys among {', '.join(ROLES)} is required, got {instr!r}")
        if isinstance(promote_every, bool) or not isinstance(promote_every, int) or promote_every < 0:
            raise ValueError(f"promote_every: a non-negative int is required, got {promote_every!r}")
        if epilogue is not None:
            from .._gemm import gemm_epilogue_steps
            gemm_epilogue_steps(epilogue)  # TypeError / ValueError for what is not an epilogue order
        from .._arrays import threads_arg
        threads_arg(threads)  # TypeError / ValueError now, not at the first GEMM
        self.instr_override = dict(instr or {})
        self.promote_every = promote_every
        self.epilogue = epilogue
        self.threads = threads
        if device is not None:
            from .._device import device_arg
            device_arg(device)  # TypeError / ValueError for a name that is not a device
        self.device = device

    # What subclasses define.
    def quantizer(self, tensor):
        raise NotImplementedError

    def quantizer_for(self, tensor, usage):
        """The quantizer of `tensor` in its `usage` (rowwise: fprop and dgrad's A, columnwise:
        the transposed copies of dgrad's B and of both wgrad operands). Most recipes use one per
        tensor; torchao's rowwise_with_gw_hp differs per usage."""
        return self.quantizer(tensor)

    def check_columnwise(self, tensor, t, where):
        """Raises ValueError where the upstream library refuses the columnwise (wgrad) copy of
        `tensor` (a torch tensor); most recipes have no such rule."""

    def emulation_device(self, tensor_device):
        """The tcemu device name a GEMM of tensors on `tensor_device` (a torch.device) runs on."""
        if self.device is not None:
            return self.device
        if tensor_device.type == "cuda":
            return f"cuda:{tensor_device.index or 0}"
        return "cpu"

    rht_columnwise = frozenset()   # tensors whose columnwise (wgrad) operand takes the RHT
    stochastic = frozenset()       # tensors quantized with stochastic rounding

    def output_dtype(self, input_dtype):
        """The dtype of Y and dX: the activations' own (TransformerEngine's GEMM output is
        the module's compute dtype)."""
        return input_dtype

    def bias(self, bias):
        """The bias as the GEMM's epilogue reads it (None stays None)."""
        return bias

    def instr(self, role, arch, qa, qb):
        """The Instr of GEMM `role` on arch for operands qa, qb (QOperand)."""
        if role in self.instr_override:
            stype = {"mx": "ue8m0", "nvfp4": "ue4m3"}.get(qa.scaling)
            return Instr(arch, self.instr_override[role], qa.fmt, qb.fmt, stype)
        return default_instr(arch, qa.fmt, qb.fmt, qa.scaling if qa.scaling in ("mx", "nvfp4") else None)

    def promotion(self, role, arch):
        """promote_every for this GEMM on arch."""
        if self.fast_accumulation.get(role, True) or arch not in ("sm_89", "sm_90a"):
            return 0
        return self.promote_every

    def __repr__(self):
        return f"{type(self).__name__}()"


_BACKWARD_OVERRIDES = (None, "high_precision", "dequantized")


def _backward_override(recipe, value):
    """TransformerEngine's recipe field backward_override (common/recipe/__init__.py)."""
    if value not in _BACKWARD_OVERRIDES:
        raise ValueError(f"backward_override: None, 'high_precision' or 'dequantized', got {value!r}")
    recipe.backward_override = value


class Float32(Recipe):
    """No emulation: the GEMMs run in torch (float32). The baseline of a comparison."""

    name = "f32"
    emulated = False

    def quantizer(self, tensor):
        return None


class AMP(Recipe):
    """torch.autocast with dtype float16 or bfloat16: the GEMM inputs are cast to that dtype
    (round to nearest even), multiplied on the tensor cores with float32 accumulation, and the
    output is that dtype (torch's autocast op lists put linear, matmul, bmm in the lower
    precision). With float16, use tcemu.torch.GradScaler (torch.amp.GradScaler's rule)."""

    upstream = "pytorch torch/amp/autocast_mode.py (lower_precision_fp ops), aten/src/ATen/autocast_mode.cpp"

    def __init__(self, dtype=torch.bfloat16, **kw):
        super().__init__(**kw)
        if dtype not in (torch.float16, torch.bfloat16):
            raise ValueError(f"dtype: torch.float16 or torch.bfloat16, got {dtype}")
        self.dtype = dtype
        self.name = "fp16-amp" if dtype == torch.float16 else "bf16-amp"
        self._q = qz.Cast("f16" if dtype == torch.float16 else "bf16")

    def quantizer(self, tensor):
        return self._q

    def output_dtype(self, input_dtype):
        return self.dtype

    def bias(self, bias):
        """torch.autocast casts the bias of F.linear to the lower precision as well."""
        if bias is None or bias.dtype == self.dtype:
            return bias
        from ._layer import cast_tensor
        return cast_tensor(bias, self.dtype)

    def __repr__(self):
        return f"AMP(dtype={self.dtype})"


class DelayedScaling(Recipe):
    """TransformerEngine recipe.DelayedScaling: per-tensor FP8 with the scale of the previous
    step from an amax history (transformer_engine/common/recipe/delayed_scaling.cu; the
    `python` update: pytorch/quantization.py _default_sf_compute). The forward tensors' history
    is updated after each forward, the gradient's after each backward. GEMMs: fprop with fast
    accumulation, dgrad and wgrad with split accumulation (TE's _2X_ACC_FPROP = False,
    _2X_ACC_DGRAD = _2X_ACC_WGRAD = True)."""

    upstream = "transformer_engine/common/recipe/__init__.py, common/recipe/delayed_scaling.cu"
    fast_accumulation = {"fprop": True, "dgrad": False, "wgrad": False}

    def __init__(self, margin=0, fp8_format=Format.HYBRID, amax_history_len=1024, amax_compute_algo="max",
                 update="fused", backward_override=None, **kw):
        super().__init__(**kw)
        if backward_override is not None:  # TE: "Delayed scaling only supports backward_override=None."
            raise ValueError("backward_override: DelayedScaling takes only None (as TransformerEngine)")
        if amax_compute_algo not in ("max", "most_recent"):
            raise ValueError("amax_compute_algo: 'max' or 'most_recent' (a callable is not modelled)")
        if isinstance(margin, bool) or not isinstance(margin, int):
            raise TypeError(f"margin: an int is required (TE's margin: int), got {margin!r}")
        if not -1024 <= margin <= 1024:
            raise ValueError(f"margin: {margin} is outside -1024..1024 (the scale is divided by 2^margin)")
        if isinstance(amax_history_len, bool) or not isinstance(amax_history_len, int):
            raise TypeError(f"amax_history_len: an int is required, got {type(amax_history_len).__name__}")
        if not 1 <= amax_history_len <= 1 << 20:
            raise ValueError(f"amax_history_len: {amax_history_len} is outside 1..1048576")
        if update not in ("fused", "python"):
            raise ValueError(f"update: 'fused' or 'python', got {update!r}")
        self.fp8_format = _format_arg(fp8_format)
        self.options = dict(margin=margin, history_len=amax_history_len, amax_compute_algo=amax_compute_algo,
                            update=update)
        self.name = f"te-delayed-{self.fp8_format.value}"
        self._q = qz.Delayed(self.fp8_format.value, self.options)

    def quantizer(self, tensor):
        return self._q

    def __repr__(self):
        return f"DelayedScaling(fp8_format={self.fp8_format}, {self.options})"


class Float8CurrentScaling(Recipe):
    """TransformerEngine recipe.Float8CurrentScaling: per-tensor FP8, scale = max / amax of the
    tensor itself (common/recipe/current_scaling.cu); fast accumulation in fprop only."""

    upstream = "transformer_engine/common/recipe/__init__.py, common/recipe/current_scaling.cu"
    fast_accumulation = {"fprop": True, "dgrad": False, "wgrad": False}

    takes_backward_override = True

    def __init__(self, fp8_format=Format.HYBRID, use_power_2_scales=False, backward_override=None, **kw):
        super().__init__(**kw)
        _backward_override(self, backward_override)
        self.fp8_format = _format_arg(fp8_format)
        self.pow2 = _bool_arg(use_power_2_scales, "use_power_2_scales")
        self.name = "te-current"
        self._q = {t: qz.Current(_fmt(self.fp8_format, t), self.pow2) for t in TENSORS}

    def quantizer(self, tensor):
        return self._q[tensor]


class Float8BlockScaling(Recipe):
    """TransformerEngine recipe.Float8BlockScaling (DeepSeek-V3's blockwise FP8): inputs and
    gradients in 1 x 128 blocks along K, weights in 128 x 128 tiles (x_block_scaling_dim = 1,
    w_block_scaling_dim = 2, grad_block_scaling_dim = 1), f32 scales that are powers of two
    (NVTE_FP8_BLOCK_SCALING_FP32_SCALES unset; use_f32_scales=True lifts it), E4M3 (E5M2
    gradients with HYBRID). Every GEMM uses split accumulation: each 128-long K block's
    partial is scaled and added in f32 (tcemu.gemm_kblock: DeepGEMM's fma(sa * sb, p, acc);
    cuBLASLt's internal order for its VEC128 / BLK128x128 scale modes is not public)."""

    upstream = "transformer_engine/common/recipe/__init__.py, common/transpose/quantize_transpose_*_blockwise.cu"

    takes_backward_override = True

    def __init__(self, fp8_format=Format.E4M3, use_f32_scales=False, backward_override=None, **kw):
        super().__init__(**kw)
        _backward_override(self, backward_override)
        self.fp8_format = _format_arg(fp8_format)
        self.name = "te-block"
        p2 = not _bool_arg(use_f32_scales, "use_f32_scales")
        self._q = {"input": qz.BlockFP8(False, "e4m3", p2), "weight": qz.BlockFP8(True, "e4m3", p2),
                   "grad_output": qz.BlockFP8(False, _fmt(self.fp8_format, "grad_output"), p2)}

    def quantizer(self, tensor):
        return self._q[tensor]

    def instr(self, role, arch, qa, qb):
        if role in self.instr_override:
            return Instr(arch, self.instr_override[role], qa.fmt, qb.fmt, None)
        return default_instr(arch, qa.fmt, qb.fmt, None)


class MXFP8BlockScaling(Recipe):
    """TransformerEngine recipe.MXFP8BlockScaling: E4M3 (E5M2 gradients with HYBRID) in blocks
    of 32 along K with UE8M0 scales (the `mxfp8` preset: quantize_mxfp8.cuh); the rowwise and
    columnwise copies are each quantized from the high-precision tensor. GEMMs on the
    block-scaled kind (sm_100a tcgen05 kind::mxf8f6f4, sm_120a mma.sync)."""

    upstream = "transformer_engine/common/recipe/__init__.py, common/cast/mxfp8/quantize_mxfp8.cuh"

    takes_backward_override = True
    dequant_rule = "te"  # backward_override="dequantized": TE's dequantize_mxfp8.cuh

    def __init__(self, fp8_format=Format.E4M3, backward_override=None, **kw):
        super().__init__(**kw)
        _backward_override(self, backward_override)
        self.fp8_format = _format_arg(fp8_format)
        self.name = "te-mxfp8"
        self._q = {t: qz.Blocked("mxfp8-e5m2" if _fmt(self.fp8_format, t) == "e5m2" else "mxfp8", "mx", 32)
                   for t in TENSORS}

    def quantizer(self, tensor):
        return self._q[tensor]


_NVFP4_4OVER6_SCOPES = ("none", "weights", "activations", "all")


def _in_scope(scope, tensor):
    """Whether TE's 4over6 scope ('none', 'weights', 'activations', 'all') covers a forward tensor."""
    return scope == "all" or (scope == "weights" and tensor == "weight") or (scope == "activations" and tensor == "input")


class NVFP4BlockScaling(Recipe):
    """TransformerEngine recipe.NVFP4BlockScaling: E2M1 in blocks of 16 with UE4M3 scales and a
    per-tensor f32 scale (the `nvfp4` preset, order te); weights in 16 x 16 tiles (unless
    disable_2d_quantization); the 16-point random Hadamard transform on the columnwise copies of
    the input and the gradient, which only the wgrad GEMM reads (unless disable_rht);
    stochastic rounding of the gradient (unless disable_stochastic_rounding). The GEMM's alpha
    is TE's amax_a * amax_b / (6 * 6 * max_a * max_b) (max: 448, or 256 for 4over6 tensors).
    Stochastic rounding draws Philox4x32-10 words from `seed` and a per-layer, per-step offset:
    TE's own draws (its CUDA generator's state) are not reproduced.

    TE's switches for RL and post-training (quantization.py NVFP4BlockScalingRecipeState):
      nvfp4_4over6: 'none', 'weights', 'activations' or 'all': those forward tensors choose each
        block's scale between mapping its amax to 6 and to 4 (the `nvfp4-4over6` rule; weights
        with 16 x 16 tiles unless disable_2d_quantization); gradients stay plain NVFP4. TE
        refuses it with the RHT (pass disable_rht=True when activations are in scope);
      nvfp4_4over6_e4m3_use_256: the 4over6 tensors ('all', the default, ..., 'none') whose
        tensor scale uses E4M3 max 256 instead of 448;
      nvfp4_4over6_err_mode: 'MAE' (default) or 'MSE', the candidates' error;
      nvfp4_4over6_err_use_fast_math: TE's environment variable NVTE_NVFP4_4OVER6_ERR_USE_FAST_MATH
        (read by its quantizer, not a recipe field): the error in the scaled domain from f16
        products (the `err_fast_math` option of tcemu.quantize);
      row_scaled_activation: the forward input gets one amax per row (its wgrad copy one per
        column: TE needs a bfloat16 input and dimensions that are multiples of 32), and its
        GEMMs run as TE's row-scaled GEMM: amaxes 1 in the GEMM, f32 output, then torch's
        `out *= row_amax * col_amax` (cpp_extensions/gemm.py), the bias added in f32. TE
        refuses it with the RHT (disable_rht=True) and, in training, together with 4over6 on
        activations."""

    upstream = ("transformer_engine/common/recipe/__init__.py, pytorch/quantization.py, common/cast/nvfp4/, "
                "common/recipe/nvfp4.cu, pytorch/cpp_extensions/gemm.py")

    takes_backward_override = True
    dequant_rule = "te"  # backward_override="dequantized": TE's dequantize_nvfp4.cuh

    def __init__(self, disable_rht=False, disable_stochastic_rounding=False, disable_2d_quantization=False, seed=0,
                 backward_override=None, row_scaled_activation=False, nvfp4_4over6="none",
                 nvfp4_4over6_e4m3_use_256="all", nvfp4_4over6_err_mode="MAE", nvfp4_4over6_err_use_fast_math=False,
                 **kw):
        super().__init__(**kw)
        _backward_override(self, backward_override)
        if nvfp4_4over6 not in _NVFP4_4OVER6_SCOPES:
            raise ValueError("nvfp4_4over6 must be one of: 'none', 'weights', 'activations', 'all' (TE's "
                             f"NVTE_NVFP4_4OVER6), got {nvfp4_4over6!r}")
        if nvfp4_4over6_e4m3_use_256 not in _NVFP4_4OVER6_SCOPES:
            raise ValueError("nvfp4_4over6_e4m3_use_256 must be one of: 'none', 'weights', 'activations', 'all', "
                             f"got {nvfp4_4over6_e4m3_use_256!r}")
        err = nvfp4_4over6_err_mode.upper() if isinstance(nvfp4_4over6_err_mode, str) else nvfp4_4over6_err_mode
        if err not in ("MAE", "MSE"):
            raise ValueError(f"nvfp4_4over6_err_mode must be one of: 'MAE', 'MSE', got {nvfp4_4over6_err_mode!r}")
        if not isinstance(nvfp4_4over6_err_use_fast_math, bool):
            raise TypeError("nvfp4_4over6_err_use_fast_math: a bool is required, got "
                            f"{type(nvfp4_4over6_err_use_fast_math).__name__}")
        for flag, value in (("row_scaled_activation", row_scaled_activation), ("disable_rht", disable_rht),
                            ("disable_stochastic_rounding", disable_stochastic_rounding),
                            ("disable_2d_quantization", disable_2d_quantization)):
            if not isinstance(value, bool):
                raise TypeError(f"{flag}: a bool is required, got {type(value).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed: an int is required, got {type(seed).__name__}")
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"seed: {seed} is outside 0..2^64-1 (the Philox4x32-10 seed of curand_init)")
        if _in_scope(nvfp4_4over6, "input") and not disable_rht:
            raise ValueError("NVFP4 4over6 quantization does not support RHT (TransformerEngine: 4over6 on "
                             "activations needs disable_rht=True)")
        if row_scaled_activation and not disable_rht:
            raise ValueError("Row-scaled NVFP4 quantization does not support RHT (TransformerEngine: "
                             "row_scaled_activation needs disable_rht=True)")
        self.disable_rht, self.disable_sr, self.disable_2d = disable_rht, disable_stochastic_rounding, disable_2d_quantization
        self.row_scaled_activation, self.nvfp4_4over6 = row_scaled_activation, nvfp4_4over6
        self.nvfp4_4over6_e4m3_use_256, self.nvfp4_4over6_err_mode = nvfp4_4over6_e4m3_use_256, err
        self.seed = seed
        self.name = "te-nvfp4"
        self.rht_columnwise = frozenset() if disable_rht else frozenset({"input", "grad_output"})
        self.stochastic = frozenset() if disable_stochastic_rounding else frozenset({"grad_output"})

        def options(tensor):  # TE's make_quantizers: the NVFP4Quantizer of a forward tensor
            o = {}
            if _in_scope(nvfp4_4over6, tensor):
                o["four_over_six"] = err.lower()
                o["e4m3_max"] = 256 if _in_scope(nvfp4_4over6_e4m3_use_256, tensor) else 448
                if nvfp4_4over6_err_use_fast_math:
                    o["err_fast_math"] = True
            if tensor == "input" and row_scaled_activation:
                o["row_scaled"] = True
            return o

        self._q = {
            "input": qz.Blocked("nvfp4", "nvfp4", 16, options("input")),
            "weight": qz.Blocked("nvfp4" if disable_2d_quantization else "nvfp4-2d", "nvfp4", 16, options("weight")),
            "grad_output": qz.Blocked("nvfp4", "nvfp4", 16, stochastic=not disable_stochastic_rounding),
        }

    def quantizer(self, tensor):
        return self._q[tensor]

    def check_columnwise(self, tensor, t, where):
        """TE's checks on the wgrad copy of a row-scaled input (common/cast/dispatch/quantize.cuh)."""
        if tensor != "input" or not self.row_scaled_activation:
            return
        if _in_scope(self.nvfp4_4over6, "input"):
            raise ValueError(f"{where}: Row-scaled NVFP4 transpose quantization is not supported with 4over6 mode "
                             f"(TransformerEngine): row_scaled_activation with nvfp4_4over6 on activations is "
                             f"inference only")
        rows = t.numel() // t.shape[-1]
        if t.dtype != torch.bfloat16 or rows % 32 or t.shape[-1] % 32:
            raise ValueError(f"{where}: Row-scaled NVFP4 transpose quantization requires BF16 input and dimensions "
                             f"that are multiples of 32 (TransformerEngine); the input is {t.dtype} "
                             f"{rows} x {t.shape[-1]}")


class TorchaoMX(Recipe):
    """torchao MX training (torchao/prototype/mx_formats, mx_tensor.py to_mx): every operand
    e4m3 in blocks of 32 along K, scale_calculation_mode 'floor' (the `mx` preset) or 'rceil'
    (`mxfp8-torchao`); the GEMM on the block-scaled kind, output in the activations' dtype.
    variant='torchao-0.18' follows the v0.18.0 release (what PyPI's torchao 0.18.0 runs)
    instead of the pinned commit; they differ only for blocks whose scale code is 0 or whose
    amax is not finite."""

    upstream = "torchao/prototype/mx_formats/mx_tensor.py (to_mx), prototype/moe_training/mxfp8_linear.py"
    bias_in_epilogue = False

    def __init__(self, scale_calculation_mode="floor", variant="current", **kw):
        super().__init__(**kw)
        if scale_calculation_mode not in ("floor", "rceil"):
            raise ValueError("scale_calculation_mode: 'floor' or 'rceil' (ceil and even are tcemu.quantize options)")
        if variant not in ("current", "torchao-0.18"):
            raise ValueError(f"variant: 'current' (torchao 36027d8) or 'torchao-0.18' (the v0.18.0 release), got {variant!r}")
        self.mode, self.variant = scale_calculation_mode, variant
        self.name = f"torchao-mxfp8-{self.mode}"
        # torchao <= v0.18.0: FLOOR divides by max(2^(e-127), 2^-126) (MX variant torchao-0.18),
        # RCEIL is the older log2 rule (scale rceil-legacy); docs/quantization.md.
        opts = {}
        if variant == "torchao-0.18":
            opts = {"variant": "torchao-0.18"} if self.mode == "floor" else {"scale": "rceil-legacy"}
        self._q = qz.Blocked("mx" if self.mode == "floor" else "mxfp8-torchao", "mx", 32, opts)

    def quantizer(self, tensor):
        return self._q


class TorchaoNVFP4(Recipe):
    """torchao's NVFP4 quantization (torchao/prototype/mx_formats/nvfp4_tensor.py
    nvfp4_quantize with a per-tensor scale: the `nvfp4-torchao` preset) of every operand, 1 x
    16 blocks, no Hadamard transform, round to nearest. The GEMM as _addmm_nvfp4_dispatch runs
    it: torch._scaled_mm with the block scales only, output in the activations' dtype, then
    torch multiplies it by (per_tensor_scale_a * per_tensor_scale_b).to(dtype) and adds the
    bias. torchao's NVFP4 training recipe (prototype/moe_training/nvfp4_training) is not
    modelled."""

    upstream = "torchao/prototype/mx_formats/nvfp4_tensor.py (nvfp4_quantize, _addmm_nvfp4_dispatch)"
    bias_in_epilogue = False
    nvfp4_epilogue = "torchao"

    def __init__(self, **kw):
        super().__init__(**kw)
        self.name = "torchao-nvfp4"
        self._q = qz.Blocked("nvfp4-torchao", "nvfp4", 16)

    def quantizer(self, tensor):
        return self._q


class TorchaoFloat8(Recipe):
    """torchao float8 training (torchao/float8/config.py Float8LinearConfig.from_recipe_name,
    float8_linear.py, float8_ops.py addmm_float8_unwrapped, float8_utils.py amax_to_scale):
    dynamic scaling; torch._scaled_mm with use_fast_accum=True for the output GEMM only
    (gemm_config_output); the bias added by torch after the GEMM (Float8Linear.forward).
      'tensorwise': one scale per tensor, e4m3 input and weight, e5m2 grad_output.
      'rowwise': one scale per row of each operand along K (AXISWISE), e4m3 everywhere, scales
        rounded down to powers of two. The GEMM output is bf16 (an f32 / f16 model's output is
        rounded to bf16, then cast back). fprop (fast accumulation) runs the rowwise kernel with
        the scales in its epilogue; dgrad and wgrad run the tensorwise kernel with unit scales
        and torch multiplies the bf16 output by a_inv[m] * b_inv[n] afterwards (float8_ops.py:
        "the rowwise CUTLASS-based kernel is so slow without fast-accum").
      'rowwise_with_gw_hp': fprop as 'rowwise'; dgrad with a rowwise e4m3 grad_output and a
        tensorwise e4m3 weight (its scale repeated per column, preprocess_addmm); wgrad in high
        precision (the bf16 / f16 GEMM of the unquantized tensors; an f32 model's wgrad is torch's
        own float32 matmul, a cuBLAS SGEMM on the GPU, not a tensor-core GEMM and not emulated).
    rowwise_kernel: which kernel torch._scaled_mm runs for rowwise scales: None = as
      aten/src/ATen/native/cuda/ScaledBlas.cpp dispatches with cuBLAS >= 12.9: 'cutlass'
      (f8f8bf16_rowwise: bf16(bias + w[n] * (x[m] * acc)), tcemu.gemm's `sequential` order) on
      sm_89 and sm_100a / sm_120a, 'cublaslt' (outer-vector scale mode; order not public: the
      recipe's epilogue, default `fold`) on sm_90a."""

    upstream = "torchao/float8/config.py, float8_linear.py, float8_ops.py, float8_utils.py (amax_to_scale)"
    fast_accumulation = {"fprop": True, "dgrad": False, "wgrad": False}
    bias_in_epilogue = False
    RECIPES = ("tensorwise", "rowwise", "rowwise_with_gw_hp")

    def __init__(self, recipe="tensorwise", rowwise_kernel=None, **kw):
        super().__init__(**kw)
        if recipe not in self.RECIPES:
            raise ValueError(f"recipe: '{recipe}' is not a torchao float8 recipe ({', '.join(self.RECIPES)})")
        if rowwise_kernel not in (None, "cutlass", "cublaslt"):
            raise ValueError(f"rowwise_kernel: None, 'cutlass' or 'cublaslt', got {rowwise_kernel!r}")
        self.recipe_name, self.kernel = recipe, rowwise_kernel
        self.name = "torchao-float8" if recipe == "tensorwise" else f"torchao-float8-{recipe.replace('_', '-')}"
        if recipe == "tensorwise":
            self._q = {"input": qz.TorchaoTensorwise("e4m3"), "weight": qz.TorchaoTensorwise("e4m3"),
                       "grad_output": qz.TorchaoTensorwise("e5m2")}
        else:
            row = qz.TorchaoRowwise("e4m3", pow2=True)
            self._q = {"input": row, "weight": row, "grad_output": row}
        self._hp = {}

    def quantizer(self, tensor):
        return self._q[tensor]

    def quantizer_for(self, tensor, usage):
        if self.recipe_name != "rowwise_with_gw_hp" or usage == "rowwise":
            return self._q[tensor]
        if tensor == "weight":  # cast_config_weight_for_grad_input: TENSORWISE
            return qz.TorchaoTensorwise("e4m3", pow2=True)
        return qz.HighPrecision()  # cast_config_*_for_grad_weight: DISABLED

    def rowwise_kernel(self, arch):
        if self.kernel is not None:
            return self.kernel
        return "cublaslt" if arch == "sm_90a" else "cutlass"

    def __repr__(self):
        return f"TorchaoFloat8(recipe={self.recipe_name!r})"


_BY_NAME = {
    "f32": Float32, "bf16-amp": lambda **k: AMP(torch.bfloat16, **k), "fp16-amp": lambda **k: AMP(torch.float16, **k),
    "te-delayed-hybrid": lambda **k: DelayedScaling(fp8_format=Format.HYBRID, **k),
    "te-delayed-e4m3": lambda **k: DelayedScaling(fp8_format=Format.E4M3, **k),
    "te-current": Float8CurrentScaling, "te-block": Float8BlockScaling, "te-mxfp8": MXFP8BlockScaling, "te-nvfp4": NVFP4BlockScaling,
    "torchao-mxfp8-floor": lambda **k: TorchaoMX("floor", **k), "torchao-mxfp8-rceil": lambda **k: TorchaoMX("rceil", **k),
    "torchao-nvfp4": TorchaoNVFP4, "torchao-float8": TorchaoFloat8,
    "torchao-float8-rowwise": lambda **k: TorchaoFloat8("rowwise", **k),
    "torchao-float8-rowwise-with-gw-hp": lambda **k: TorchaoFloat8("rowwise_with_gw_hp", **k),
}


def recipe_names():
    """The names recipe() takes."""
    return sorted(_BY_NAME)


def recipe(name, **options):
    """A recipe by name (recipe_names()), with its constructor's options."""
    if not isinstance(name, str):
        raise TypeError(f"recipe: a name is required, got {type(name).__name__}")
    if name not in _BY_NAME:
        raise ValueError(f"recipe: unknown recipe '{name}' (one of {', '.join(recipe_names())})")
    return _BY_NAME[name](**options)
