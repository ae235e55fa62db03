"""torch dtypes for tcemu's codes, both ways: to_torch(codes, fmt) gives the tensor of the
matching torch dtype (float8_e4m3fn, float8_e5m2, float8_e8m0fnu, float4_e2m1fn_x2 packed two a
byte, bfloat16, float16, float32) without copying where the layout allows; every tcemu function
already accepts such tensors where their format is meant (tcemu/_arrays.py). quantize(x,
recipe) is tcemu.quantize with torch tensors in and out."""

import numpy as np
import torch

from .. import _quant

_DTYPE = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2, "bf16": torch.bfloat16, "f16": torch.float16,
          "f32": torch.float32}
if hasattr(torch, "float8_e8m0fnu"):
    _DTYPE["ue8m0"] = torch.float8_e8m0fnu
_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32}


def dtype_of(fmt):
    """The torch dtype that holds codes of fmt, or None (e2m1: float4_e2m1fn_x2, packed)."""
    return _DTYPE.get(fmt)


def to_torch(codes, fmt):
    """codes (a NumPy array of fmt's codes) as a torch tensor of the matching dtype. e2m1 codes
    are packed two a byte into float4_e2m1fn_x2 (the last dimension halves; it must be even)."""
    c = np.ascontiguousarray(codes)
    if fmt == "e2m1":
        if not hasattr(torch, "float4_e2m1fn_x2"):
            raise TypeError("fmt: e2m1: this torch has no float4_e2m1fn_x2")
        if c.shape[-1] % 2:
            raise ValueError(f"codes: shape {c.shape}; packing e2m1 two a byte needs an even last dimension")
        if c.size and int(c.max()) > 0xF:
            raise ValueError("codes: values above 0xf are not e2m1 codes")
        c = c.astype(np.uint8)
        packed = (c[..., 0::2] | (c[..., 1::2] << 4)).astype(np.uint8)
        return torch.from_numpy(np.ascontiguousarray(packed)).view(torch.float4_e2m1fn_x2)
    dt = _DTYPE.get(fmt)
    if dt is None:
        raise ValueError(f"fmt: '{fmt}' has no torch dtype (one of {', '.join(sorted(_DTYPE))}, e2m1)")
    width = torch.finfo(dt).bits // 8
    if c.dtype.itemsize != width:
        raise TypeError(f"codes: dtype {c.dtype}; {fmt} codes are {width}-byte")
    t = torch.from_numpy(c.view({1: np.uint8, 2: np.int16, 4: np.int32}[width]))
    return t.view(dt)


class TorchQuantized:
    """tcemu.quantize's result as torch tensors: data (the element dtype; e2m1 packed into
    float4_e2m1fn_x2), scales (float8_e8m0fnu / float8_e4m3fn block scales, or float32
    scale_inv), global_scale, amax, and the tcemu.Quantized itself (.q)."""

    def __init__(self, q):
        self.q = q
        self.data = to_torch(q.codes, q.elem) if (q.elem != "e2m1" or q.codes.shape[-1] % 2 == 0) else None
        self.scales = (torch.from_numpy(np.ascontiguousarray(q.scales)) if q.scale_format == "f32"
                       else to_torch(q.scales, q.scale_format))
        self.global_scale = q.global_scale
        self.amax = q.amax


def quantize(x, recipe, **options):
    """tcemu.quantize(x, recipe, **options) of a torch tensor, with torch tensors back."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x: a torch.Tensor is required, got {type(x).__name__}")
    return TorchQuantized(_quant.quantize(x, recipe, **options))
