"""tcemu: bit-exact emulation of NVIDIA tensor-core arithmetic, from NumPy and PyTorch.

Codes are bit patterns held in unsigned integer arrays (uint8 for formats of 8 bits or
fewer, uint16 for f16/bf16, uint32 for f32/tf32, uint64 for f64); float16/float32/float64
arrays are accepted where their format is meant. torch CPU tensors are accepted wherever an
array is (float8 and bfloat16 tensors as their bits). docs/python.md walks through it.
"""

import numpy as np

from . import _tcemu
from ._arrays import as_array, codes as _codes, format_name as _format_name, scalar_result as _scalar
from ._arrays import to_container as _to_container, uint32_array as _uint32
from ._convert import convert, cvt, decode, encode, conventions, cvt_instructions
from ._formats import Format, formats
from ._mma import dot, instructions, mma, mma_params
from ._quant import GradScaler, LossScaler, MegatronScaler, Quantized, dequantize, quantize, recipes
from . import golden
from .golden import compare
from . import testing

__version__ = "0.1.0"

__all__ = [
    "convert", "encode", "decode", "cvt", "conventions", "cvt_instructions", "formats", "Format",
    "mma", "mma_params", "dot", "instructions", "quantize", "dequantize", "Quantized", "recipes", "GradScaler",
    "LossScaler", "MegatronScaler", "golden", "compare", "testing",
]
