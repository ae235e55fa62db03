"""tcemu.gemm_kblock: a GEMM whose operands carry one f32 scale per block of K (blockwise FP8:
DeepSeek-V3, TransformerEngine's Float8BlockScaling). Each K block's partial is the instruction
chain from +0 over the block; acc = fma(sa * sb, p, acc) from +0 (DeepGEMM's promotion with
scales), then + bias and the output conversion, all in the C++ core (tcemu/gemm_kblock.hpp,
docs/gemm.md)."""

import numpy as np

from . import _device, _tcemu
from ._arrays import as_array, codes, format_name, mma_shape, threads_arg
from ._mma import _int_flag, _lookup


def _f32(x, name, shape):
    arr, implied = as_array(x, name)
    if implied is not None or arr.dtype != np.float32:
        raise TypeError(f"{name}: float32 values are required, got {implied or arr.dtype}")
    if arr.shape != shape:
        raise ValueError(f"{name}: shape {arr.shape}; {shape} needed")
    return np.ascontiguousarray(arr).view(np.uint32)


def gemm_kblock(a, b, *, arch, instr, scale_a, scale_b, block=128, atype=None, btype=None, bias=None, out_type="f32",
                out_round="rn", satfinite=False, promote_every=0, threads=None, device="cpu"):
    """D = sum over K blocks of (scale_a[m, j] * scale_b[j, n]) * (A B over block j), as
    tcemu/gemm_kblock.hpp says. a: M x K codes, b: K x N codes of the (not block-scaled)
    instruction; scale_a: M x ceil(K/block) float32, scale_b: ceil(K/block) x N float32 (a
    128 x 128-block weight repeats each scale over its columns); bias: N float32 values.
    device: "cpu", or "cuda" / "cuda:N" (each block's chain on the emulator on that GPU; host
    arrays either way). Returns M x N codes of out_type (f32, bf16, f16, e4m3, e5m2)."""
    dev = _device.device_and_threads(device, threads)
    _device.refuse_gpu_arrays((("a", a), ("b", b), ("scale_a", scale_a), ("scale_b", scale_b), ("bias", bias)),
                              "tcemu.gemm_kblock")
    e = _lookup(arch, instr, atype, btype, "f32" if (atype or btype) else None, None)
    if e["scale_type"] is not None:
        raise ValueError(f"instr: {e['ptx']} is block-scaled itself; gemm_kblock takes an unscaled instruction")
    A = codes(a, e["atype"], "a")
    B = codes(b, e["btype"], "b")
    if A.ndim != 2 or B.ndim != 2:
        raise ValueError("a, b: A (M x K) and B (K x N) are matrices")
    M, K, N = mma_shape(A, B, e)
    blk = _int_flag(block, "block", 1)
    nb = -(-K // blk)
    SA = _f32(scale_a, "scale_a", (M, nb))
    SB = np.ascontiguousarray(_f32(scale_b, "scale_b", (nb, N)).T)
    BI = None if bias is None else _f32(bias, "bias", (N,))
    ot = format_name(out_type, "out_type")
    return _tcemu.gemm_kblock_codes(arch, instr, atype, btype, A, B, M, N, K, SA, SB, blk, BI, ot, out_round,
                                    bool(satfinite), _int_flag(promote_every, "promote_every", 0), threads_arg(threads), dev)
