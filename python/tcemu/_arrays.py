"""Turning user arrays (NumPy arrays, torch CPU tensors, lists, scalars) into the C-contiguous
code arrays the extension module takes, with errors that name the argument."""

import numpy as np

from . import _tcemu

_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
_FORMAT_INFO = {}
_FLOAT_FORMATS = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def is_torch_tensor(x):
    mod = type(x).__module__ or ""
    return mod.split(".")[0] == "torch" and hasattr(x, "device") and hasattr(x, "numpy")


def _from_torch(x, name):
    import torch  # only reached for torch tensors

    if x.device.type != "cpu":
        raise ValueError(f"{name}: a tensor on {x.device}; tcemu takes CPU tensors (use .cpu())")
    x = x.detach()
    if x.dtype == torch.bfloat16:
        return x.view(torch.int16).numpy().view(np.uint16), "bf16"
    fp8 = {getattr(torch, n, None): f for n, f in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2"),
                                                     ("float8_e8m0fnu", "ue8m0"))}
    if x.dtype in fp8:
        return x.contiguous().view(torch.uint8).numpy(), fp8[x.dtype]
    if x.dtype == getattr(torch, "float4_e2m1fn_x2", None):
        # Two e2m1 codes a byte, the first (even index) in the low nibble (torch / torchao packing):
        # the codes of the unpacked tensor, its last dimension doubled.
        b = x.contiguous().view(torch.uint8).numpy()
        return np.stack([b & 0xF, b >> 4], axis=-1).reshape(*b.shape[:-1], 2 * b.shape[-1]), "e2m1"
    try:
        return x.numpy(), None
    except TypeError as e:
        raise TypeError(f"{name}: torch dtype {x.dtype} has no NumPy equivalent ({e})") from None


def as_array(x, name):
    """An ndarray for x and the format its dtype implies (bf16/fp8 torch tensors), else None."""
    if isinstance(x, np.ndarray):
        return x, None
    if is_torch_tensor(x):
        return _from_torch(x, name)
    if isinstance(x, (list, tuple, int, np.integer, float, np.floating)):
        return np.asarray(x), None
    raise TypeError(f"{name}: expected a NumPy array, a torch CPU tensor, a list or a number, got {type(x).__name__}")


def contiguous(arr, name, dtype=None):
    """np.ascontiguousarray(arr, dtype) for argument `name`: a view too large to copy (a
    broadcast or strided view of billions of elements) is a ValueError naming it, not NumPy's
    MemoryError."""
    try:
        return np.ascontiguousarray(arr, dtype=dtype)
    except MemoryError:
        size = arr.size * np.dtype(dtype or arr.dtype).itemsize
        raise ValueError(f"{name}: a non-contiguous view of shape {arr.shape} whose contiguous copy "
                         f"({size / 2**30:.1f} GiB) cannot be allocated") from None


def format_name(fmt, name="fmt"):
    if not isinstance(fmt, str):
        raise TypeError(f"{name}: a format name (str) is required, got {type(fmt).__name__}")
    canon = _tcemu.canonical_format_name(fmt)
    if canon is None:
        names = ", ".join(f["name"] for f in _tcemu.format_table())
        raise ValueError(f"{name}: unknown format '{fmt}' (one of {names})")
    return canon


def to_container(arr, nbytes, name, type_name, implied=None):
    """arr as a C-contiguous unsigned array of nbytes per element holding codes of type_name.

    Accepted: unsigned integers (values checked), signed integers of the container's size
    (their bits, so int8 s8 codes and int16 views of bf16 work) or non-negative ones, and a
    float array whose dtype is the format itself (float32 for f32: its bits)."""
    dt = arr.dtype
    if implied is not None and implied != type_name:
        raise TypeError(f"{name}: a {implied} tensor given where {type_name} codes are expected")
    if dt.kind == "f":
        fmt = _FLOAT_FORMATS.get(np.dtype(dt))
        if fmt is None or (fmt != type_name and not (fmt == "f32" and type_name == "tf32")):
            raise TypeError(f"{name}: {dt} values given where {type_name} codes are expected; pass codes as "
                            f"unsigned integers (tcemu.encode converts values)")
        return contiguous(arr, name).view(_UNSIGNED[dt.itemsize])
    if dt.kind == "b" or dt.kind not in "ui":
        raise TypeError(f"{name}: dtype {dt} cannot hold {type_name} codes (use unsigned integers)")
    if dt.kind == "i":
        if dt.itemsize == nbytes:
            return contiguous(arr, name).view(_UNSIGNED[nbytes])
        if arr.size and arr.min() < 0:
            idx = np.unravel_index(int(np.argmin(arr)), arr.shape) if arr.ndim else ()
            raise ValueError(f"{name}{[int(i) for i in idx] if idx else ''}: negative value {int(arr.min())} is not a "
                             f"{type_name} code (codes are unsigned bit patterns)")
    if dt.itemsize > nbytes and arr.size:
        top = int(arr.max())
        if top >> (8 * nbytes):
            idx = np.unravel_index(int(np.argmax(arr)), arr.shape) if arr.ndim else ()
            raise ValueError(f"{name}{[int(i) for i in idx] if idx else ''}: 0x{top:x} is not a {type_name} code "
                             f"(wider than the format)")
    return contiguous(arr, name, _UNSIGNED[nbytes])


def codes(x, fmt, name, tf32_low_bits=False):
    """x as a contiguous array of codes of format fmt (validated). tf32_low_bits: tf32 codes
    may have their low 13 bits set (MMA operands: the instruction ignores them, PTX wgmma)."""
    arr, implied = as_array(x, name)
    c = to_container(arr, _tcemu.container_bytes(fmt), name, fmt, implied)
    info = _FORMAT_INFO.get(fmt)
    if info is None:
        info = _FORMAT_INFO[fmt] = next(d for d in _tcemu.format_table() if d["name"] == fmt)
    if info["width"] == 8 * c.dtype.itemsize and (info["man_shift"] == 0 or tf32_low_bits):
        return c  # every bit pattern of the container is a code
    bad = _tcemu.first_invalid(fmt, c)
    if bad >= 0:
        idx = [int(i) for i in np.unravel_index(bad, c.shape)] if c.ndim else []
        v = int(c.reshape(-1)[bad])
        why = "its low 13 bits must be zero" if fmt == "tf32" else "wider than the format"
        raise ValueError(f"{name}{idx if idx else ''}: 0x{v:x} is not a {fmt} code ({why})")
    return c


def uint32_array(x, name, shape=None):
    arr, _ = as_array(x, name)
    if arr.dtype.kind not in "ui":
        raise TypeError(f"{name}: dtype {arr.dtype}; random bits are unsigned 32-bit integers")
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 0xFFFFFFFF):
        raise ValueError(f"{name}: values must fit in 32 bits")
    out = contiguous(arr, name, np.uint32)
    if shape is not None and out.shape != tuple(shape):
        raise ValueError(f"{name}: shape {out.shape}; expected {tuple(shape)}")
    return out


def scalar_result(x_was_scalar, out):
    return int(out.reshape(-1)[0]) if x_was_scalar else out


def threads_arg(v, name="threads"):
    """A threads= value for the C++ Exec: None -> 0 ($TCEMU_NUM_THREADS, else every core), else
    an int in 1..4096 (results are the same for every thread count)."""
    if v is None:
        return 0
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: an int (1..4096) or None is required, got {type(v).__name__}")
    if not 1 <= v <= 4096:
        raise ValueError(f"{name}: {v} is outside 1..4096 (None: $TCEMU_NUM_THREADS, else every core)")
    return int(v)


def mma_shape(A, B, e):
    """(M, K, N) of the matrices A (M x K) and B (K x N) for the instruction row e, or a
    ValueError naming what does not fit (K must tile into the instruction's K)."""
    M, K = A.shape
    K2, N = B.shape
    if K2 != K:
        raise ValueError(f"b: shape {B.shape}; a is {A.shape}, so B must have K = {K} rows")
    if K == 0 or K % e["K"]:
        raise ValueError(f"a: K = {K} does not tile into {e['ptx']} (K = {e['K']} per instruction)")
    if M == 0 or N == 0:
        raise ValueError(f"a, b: M = {M}, N = {N}; both must be at least 1")
    return M, K, N
