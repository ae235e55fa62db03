"""tcemu.torch: PyTorch training and inference on emulated tensor cores.

convert(model, recipe, arch=...) swaps a model's nn.Linear modules for EmulatedLinear;
autocast(recipe, arch=...) emulates the F.linear / matmul / bmm calls of a block; the recipes
(TransformerEngine's DelayedScaling, Float8CurrentScaling, MXFP8BlockScaling,
NVFP4BlockScaling; torchao's MX, NVFP4 and float8 tensorwise; torch.autocast AMP) say how each
tensor of each pass is quantized and which instruction each GEMM runs; Recorder measures what
happened per layer; GradScaler is torch.amp.GradScaler's rule. Every GEMM is computed bit for
bit as the chosen GPU's tensor cores compute it (tcemu.gemm). docs/torch.md walks through it.
Needs torch (import tcemu itself does not)."""

try:
    import torch  # noqa: F401
except ImportError as err:  # pragma: no cover - exercised where torch is absent
    raise ImportError("tcemu.torch needs PyTorch 2.x (pip install torch); `import tcemu` works without it") from err

from ._instr import ARCHES, Instr, default_instr
from ._layer import GemmRecorder, counters
from ._stats import Recorder
from .interop import TorchQuantized, dtype_of, quantize, to_torch
from .linear import EmulatedLinear, convert
from .mode import autocast
from .progress import Progress
from .recipes import (AMP, DelayedScaling, Float8BlockScaling, Float8CurrentScaling, Float32, Format,
                      MXFP8BlockScaling, NVFP4BlockScaling, Recipe, TorchaoFloat8, TorchaoMX, TorchaoNVFP4, recipe, recipe_names)
from .scaler import GradScaler

__all__ = ["convert", "autocast", "Progress", "EmulatedLinear", "Recorder", "GemmRecorder", "counters", "GradScaler", "Recipe", "Float32", "AMP",
           "DelayedScaling", "Float8CurrentScaling", "Float8BlockScaling", "MXFP8BlockScaling", "NVFP4BlockScaling", "TorchaoMX",
           "TorchaoNVFP4", "TorchaoFloat8", "Format", "recipe", "recipe_names", "ARCHES", "Instr", "default_instr", "to_torch", "dtype_of", "quantize",
           "TorchQuantized"]
