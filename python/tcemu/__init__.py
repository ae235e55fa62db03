"""tcemu: bit-exact emulation of NVIDIA tensor-core arithmetic, from NumPy and PyTorch.

Codes are bit patterns held in unsigned integer arrays (uint8 for formats of 8 bits or
fewer, uint16 for f16/bf16, uint32 for f32/tf32, uint64 for f64); float16/float32/float64
arrays are accepted where their format is meant. torch CPU tensors are accepted wherever an
array is (float8 and bfloat16 tensors as their bits). tcemu.mma(..., device="cuda") computes on
a CUDA GPU, also from CUDA tensors in place (docs/gpu-emulation.md). docs/python.md walks
through it.
"""

from . import _tcemu  # noqa: F401  (the extension module, tcemu._tcemu)
from ._convert import convert, cvt, decode, encode, conventions, cvt_instructions, INEXACT, OVERFLOW, UNDERFLOW, INVALID, UNDEFINED
from ._formats import Format, formats
from ._device import cuda_status
from ._mma import dot, instructions, mma, mma_params
from ._gemm import gemm, gemm_epilogue_steps, gemm_plans, split_k_chunks
from ._gemm_kblock import gemm_kblock
from ._quant import (DelayedScaling, GradScaler, LossScaler, MegatronScaler, Quantized, dequantize, fp8_cast, quantize,
                     recipe_options, recipes)
from . import golden
from .golden import compare
from . import testing

__version__ = "0.1.0"

__all__ = [
    "convert", "encode", "decode", "INEXACT", "OVERFLOW", "UNDERFLOW", "INVALID", "UNDEFINED", "cvt", "conventions",
    "cvt_instructions", "formats", "Format",
    "mma", "mma_params", "dot", "gemm", "gemm_kblock", "gemm_plans", "gemm_epilogue_steps", "split_k_chunks", "cuda_status",
    "instructions", "quantize", "dequantize", "fp8_cast", "DelayedScaling", "Quantized", "recipes", "recipe_options",
    "GradScaler",
    "LossScaler", "MegatronScaler", "golden", "compare", "testing",
]
