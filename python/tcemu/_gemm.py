"""tcemu.gemm: a library GEMM (cuBLASLt, CUTLASS, torch._scaled_mm) on top of tcemu.mma: the
K schedule (one chain or split-K chunks, combined as the plan says) and the epilogue (alpha,
beta * C, per-tensor or rowwise scales, bias, the output conversion), all computed by the C++
tcemu::gemm (tcemu/gemm.hpp). docs/gemm.md gives each plan and epilogue order with its evidence.
This layer only checks arguments and passes codes: it does no arithmetic."""

import numpy as np

from . import _device, _tcemu
from ._arrays import as_array, codes, format_name, threads_arg
from ._mma import _block_scales, _bool_flag, _int_flag, _lookup, _matrices, _str_or_none

_OUT_TYPES = ("f32", "bf16", "f16", "e4m3", "e5m2")
_BIAS_TYPES = ("f32", "bf16", "f16")
_FLOAT_CODES = {np.dtype(np.float32): ("f32", np.uint32), np.dtype(np.float16): ("f16", np.uint16)}


def _f32_scalar(v, name):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name}: a number (an f32 scalar) is required, got {type(v).__name__}")
    return float(v)  # a Python float holds every f32, f16 and int up to 2^53 exactly


def _epilogue_scale(x, name, n, what):
    """(codes, type) of a per-tensor scale (a number or 0-d array) or a rowwise one (1-D float32)."""
    if x is None:
        return None
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{name}: a number or a float32 array is required, got bool")
    if isinstance(x, (int, float, np.integer)) and not isinstance(x, np.floating):
        return np.asarray([float(x)], dtype=np.float64).view(np.uint64), "f64"
    arr, implied = as_array(x, name)
    if implied is not None:
        raise TypeError(f"{name}: a {implied} tensor; scales are float32 (or a Python number)")
    if arr.dtype == np.float64 and arr.ndim == 0:
        return np.ascontiguousarray(arr.reshape(1)).view(np.uint64), "f64"
    if arr.dtype not in _FLOAT_CODES:
        raise TypeError(f"{name}: dtype {arr.dtype}; scales are float32 values (a number for per-tensor scaling)")
    fmt, udt = _FLOAT_CODES[arr.dtype]
    if arr.ndim == 0:
        arr = arr.reshape(1)
    elif arr.ndim != 1 or arr.shape[0] not in (1, n):
        raise ValueError(f"{name}: shape {arr.shape}; a per-tensor scale (one value) or {n} values (one per {what})")
    return np.ascontiguousarray(arr).view(udt), fmt


def _bias(x, bias_type, n):
    if x is None:
        if bias_type is not None:
            raise ValueError("bias_type: given without a bias")
        return None
    arr, implied = as_array(x, "bias")
    if bias_type is not None:
        fmt = format_name(bias_type, "bias_type")
        if fmt not in _BIAS_TYPES:
            raise ValueError(f"bias_type: {fmt}; a bias is f32, bf16 or f16")
    elif implied is not None:
        fmt = implied
    elif arr.dtype in _FLOAT_CODES:
        fmt = _FLOAT_CODES[arr.dtype][0]
    else:
        raise TypeError(f"bias: dtype {arr.dtype}; give float32 / float16 values, a bf16 tensor, or codes with bias_type")
    if fmt not in _BIAS_TYPES:
        raise TypeError(f"bias: a {fmt} tensor; a bias is f32, bf16 or f16")
    c = codes(arr, fmt, "bias")
    if c.shape != (n,):
        raise ValueError(f"bias: shape {c.shape}; one value per column of D: ({n},)")
    return c, fmt


def _chunks(v):
    if v is None:
        return None
    if isinstance(v, (str, bytes)) or not hasattr(v, "__iter__"):
        raise TypeError(f"chunks: a list of K sizes is required, got {type(v).__name__}")
    out = [_int_flag(k, f"chunks[{i}]", 0, 2**30) for i, k in enumerate(v)]  # as tcemu gemm --chunks
    if not out:
        raise ValueError("chunks: the list is empty")
    return out


def gemm(a, b, c=None, *, arch, instr, atype=None, btype=None, dtype=None, stype=None, scale_a=None, scale_b=None,
         promote_every=0, negate_a=False, negate_b=False, split_k=None, chunks=None, plan=None, grain=None,
         alpha=1.0, beta=0.0, a_scale=None, b_scale=None, bias=None, bias_type=None, out_type="f32", out_round="rn",
         satfinite=False, epilogue=None, threads=None, device="cpu"):
    """D = epilogue(K schedule of A*B) as a library GEMM runs it, through the instruction `instr`.

    a, b, scale_a, scale_b, promote_every, negate_a, negate_b: as tcemu.mma (a M x K codes,
    b K x N codes, block scales of block-scaled kinds). c: M x N f32 codes (uint32 or float32),
    read by the epilogue as beta * C (never chained into the accumulator; not read when beta is 0).
    K schedule: None = one chain from +0 over K; split_k=s: s chunks of
    ceil(ceil(K/grain)/s)*grain (the last ones take the remainder, may be empty); chunks=[k sizes]
    explicitly (stream-K ranges too). plan: 'cublaslt-bitequiv' (grain 64 for f16/bf16, 128 for fp8,
    forward f32 combine), 'cutlass-serial', 'cutlass-parallel' (grain = the CUTLASS tile K, an
    input), 'f32-forward' (the default), 'f32-tree'. Each chunk chains from +0.
    Epilogue: alpha, beta f32 scalars (Python numbers round to f32, to nearest even); a_scale /
    b_scale: a number (per tensor) or a float32 array of M (a) / N (b) values (rowwise); bias: N
    values (float32 / float16, a bf16 tensor, or codes with bias_type). epilogue: the order of the
    f32 operations ('fold' default, 'cutlass-sm90', 'cutlass-2x', 'sequential';
    tcemu.gemm_epilogue_steps(name) spells one out). out_type f32/bf16/f16/e4m3/e5m2, converted with
    out_round (rn, rna, rz, rd, ru) and satfinite. threads: as tcemu.mma (D is the same for every count).
    device: "cpu", or "cuda" / "cuda:N": each chunk's chain runs on the emulator on that GPU (the
    same D, bit for bit); the operands are host arrays either way (the epilogue runs on the host).
    Returns the M x N D codes of out_type (uint32, uint16 or uint8)."""
    dev = _device.device_and_threads(device, threads)
    _device.refuse_gpu_arrays((("a", a), ("b", b), ("c", c), ("scale_a", scale_a), ("scale_b", scale_b),
                               ("bias", bias)), "tcemu.gemm")
    e = _lookup(arch, instr, atype, btype, dtype, stype)
    if e["dtype"] == "s32":
        raise ValueError(f"instr: {e['ptx']} accumulates in s32; tcemu.gemm takes f32- or f16-accumulating instructions")
    A, B, M, K, N = _matrices(a, b, e)
    C = None
    if c is not None:
        C = codes(c, "f32", "c")
        if C.shape != (M, N):
            raise ValueError(f"c: shape {C.shape}; C is M x N = {(M, N)}")
    SA, SB = _block_scales(e, scale_a, scale_b, M, K, N, " (epilogue dequantization scales are a_scale / b_scale)")
    pe = _int_flag(promote_every, "promote_every", 0)
    sk = None if split_k is None else _int_flag(split_k, "split_k", 1, 1024)
    gr = None if grain is None else _int_flag(grain, "grain", 1)
    ch = _chunks(chunks)
    _str_or_none(plan, "plan")
    _str_or_none(epilogue, "epilogue")
    ot = format_name(out_type, "out_type")
    if ot not in _OUT_TYPES:
        raise ValueError(f"out_type: {ot}; a GEMM output is one of {', '.join(_OUT_TYPES)}")
    if not isinstance(out_round, str):
        raise TypeError(f"out_round: a rounding name (str) is required, got {type(out_round).__name__}")
    al, be = _f32_scalar(alpha, "alpha"), _f32_scalar(beta, "beta")
    sa = _epilogue_scale(a_scale, "a_scale", M, "row of D (M)")
    sb = _epilogue_scale(b_scale, "b_scale", N, "column of D (N)")
    bi = _bias(bias, bias_type, N)
    th = threads_arg(threads)
    return _tcemu.gemm_codes(arch, instr, atype, btype, dtype, stype, A, B, C, SA, SB, M, N, K, pe,
                             _bool_flag(negate_a, "negate_a"), _bool_flag(negate_b, "negate_b"), sk, gr, ch, plan,
                             al, be, sa, sb, bi, ot, out_round, _bool_flag(satfinite, "satfinite"), epilogue, th, dev)


def gemm_plans():
    """The named plans (dicts: name, combine, epilogue, summary)."""
    return _tcemu.gemm_plans()


def gemm_epilogue_steps(name):
    """The f32 operations of the epilogue order `name`, in order, as text."""
    if not isinstance(name, str):
        raise TypeError(f"name: an epilogue order name (str) is required, got {type(name).__name__}")
    return _tcemu.epilogue_steps(name)


def split_k_chunks(K, split_k, grain):
    """The chunk sizes of split_k = s at this grain: ceil(ceil(K/grain)/s)*grain each, the
    remainder in the last ones (the cuBLASLt plan of bitequiv, CUTLASS's gemm_k_size)."""
    return _tcemu.split_k_chunks(_int_flag(K, "K", 1), _int_flag(split_k, "split_k", 1, 1024), _int_flag(grain, "grain", 1))
