"""device= of tcemu.mma / mma_params: where D is computed ("cpu", "cuda", "cuda:N"), and
operands already in GPU memory handed to the C++ mma() with DeviceOperands without a copy to the host
(docs/gpu-emulation.md): CUDA arrays with __cuda_array_interface__ (torch CUDA tensors, CuPy and
Numba device arrays), read through that interface, and CUDA arrays that have only DLPack
(__dlpack__ / __dlpack_device__ of device type kDLCUDA or kDLCUDAManaged: JAX arrays on a GPU),
read from their DLPack capsule (python/src/bind_dlpack.cpp), which is held until the call returns.

What a CUDA operand must be (nothing is converted on the GPU):
  - 2-D, C-contiguous (row-major), the shape tcemu.mma takes for host arrays; scale_b, which
    is K/block x N, either Fortran-contiguous (an N x K/block row-major buffer, as the
    emulator reads it) or C-contiguous (then copied transposed on the GPU by its own library:
    torch .t().contiguous(), CuPy and JAX .T.copy());
  - integers of the code's container width (uint8/int8 for formats of 8 bits or fewer,
    uint16/int16 for f16/bf16, uint32/int32 for f32/tf32 and s32), or floats that are the
    format itself (float16 for f16, float32 for f32/tf32, bfloat16 for bf16 (torch, or DLPack's
    kDLBfloat), float8_e4m3fn / float8_e5m2 / float8_e8m0fnu for e4m3 / e5m2 / ue8m0 (torch, or
    DLPack's float8 type codes)). Packed sub-byte DLPack types (float4_e2m1fn, float6) are refused:
    the emulator takes one code per byte.
The codes themselves are not checked on the host (they are not read there).
"""

import numpy as np

from . import _tcemu
from ._arrays import is_torch_tensor, mma_shape

_KDL_CUDA, _KDL_CUDA_MANAGED = 2, 13  # DLPack device types of CUDA memory
_FLOAT_FORMATS = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32"}
# DLPack dtypes (bfloat16: kDLBfloat; the float8 type codes of DLPack 1.x) that are a format itself.
_DLPACK_FORMATS = {"bfloat16": "bf16", "float8_e4m3fn": "e4m3", "float8_e5m2": "e5m2", "float8_e8m0fnu": "ue8m0"}
_VALID = "'cpu', 'cuda' (device 0), or 'cuda:N' with N the CUDA device number"


def device_arg(device):
    """-1 for "cpu", else the CUDA device number of "cuda" / "cuda:N"."""
    if not isinstance(device, str):
        raise TypeError(f"device: a device name ({_VALID}) is required, got {type(device).__name__}")
    d = _tcemu.parse_device(device)
    if d is None:
        raise ValueError(f"device: unknown device '{device}' (valid: {_VALID})")
    return d


def cuda_status(device=0):
    """Whether this build of tcemu has the CUDA backend and CUDA device `device` (an int, or
    "cuda" / "cuda:N") can run it: a dict with device ("cuda:N"), built, usable, name (the
    GPU's name and compute capability, when usable) and why_not (one line, when not usable)."""
    if isinstance(device, str):
        index = device_arg(device)
        if index < 0:
            raise ValueError("device: 'cpu' is not a CUDA device (cuda_status takes 'cuda', 'cuda:N' or N)")
    elif isinstance(device, (int, np.integer)) and not isinstance(device, bool) and device >= 0:
        index = int(device)
    else:
        raise TypeError(f"device: a CUDA device number (int >= 0) or 'cuda:N' is required, got {device!r}")
    return _tcemu.cuda_status(index)


def _dlpack_cuda_index(x):
    """The CUDA device number DLPack reports for x, or None when x is not in CUDA memory."""
    f = getattr(x, "__dlpack_device__", None)
    if f is None:
        return None
    try:
        kind, index = f()
    except Exception:  # an object that cannot say: not a CUDA array for us
        return None
    return int(index) if int(kind) in (_KDL_CUDA, _KDL_CUDA_MANAGED) else None


def _has_cai(x):
    try:
        getattr(x, "__cuda_array_interface__")
    except AttributeError:  # torch CPU tensors raise AttributeError
        return False
    except Exception:  # torch: a tensor that requires grad raises RuntimeError; it is a CUDA array
        return True
    return True


def is_cuda_array(x):
    if x is None or isinstance(x, np.ndarray):
        return False
    if is_torch_tensor(x):
        return bool(getattr(x, "is_cuda", False))
    return _has_cai(x) or _dlpack_cuda_index(x) is not None


def where(x):
    """ "cuda:N" (or "a CUDA device" when the array does not say which) for a CUDA array."""
    i = _cuda_index(x)
    return "a CUDA device" if i is None else f"cuda:{i}"


def _cuda_index(x):
    dev = getattr(x, "device", None)
    for attr in ("index", "id"):  # torch.device.index, cupy.cuda.Device.id
        v = getattr(dev, attr, None)
        if isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            return int(v)
    return _dlpack_cuda_index(x)


class _Operand:
    """A CUDA array as the emulator reads it: pointer, dtype, shape, strides; `keep` holds
    the objects that own the memory until the call returns."""

    def __init__(self, x, name, held):
        self.name, self.index, self.implied, self.keep = name, _cuda_index(x), None, [x]
        if is_torch_tensor(x):
            x = self._torch_bits(x)
        self.obj = x
        if _has_cai(x):
            self._from_cai(x)
        elif getattr(x, "__dlpack__", None) is not None:
            self._from_dlpack(x, held)
        else:
            raise TypeError(f"{name}: a CUDA array with neither __cuda_array_interface__ nor __dlpack__ "
                            f"({type(x).__name__}); tcemu reads GPU memory through one of those")

    def _from_cai(self, x):
        name = self.name
        try:
            cai = x.__cuda_array_interface__
        except Exception as err:
            raise TypeError(f"{name}: its __cuda_array_interface__ cannot be read: {err}") from None
        try:
            self.shape = tuple(int(n) for n in cai["shape"])
            self.dtype = np.dtype(cai["typestr"])
            self.ptr = int(cai["data"][0])
            strides = cai.get("strides")
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise TypeError(f"{name}: a malformed __cuda_array_interface__ ({err!r})") from None
        self.strides = None if strides is None else tuple(int(s) for s in strides)
        if cai.get("mask") is not None:
            raise TypeError(f"{name}: a masked CUDA array; tcemu takes plain arrays")

    def _from_dlpack(self, x, held):
        """A CUDA array that has only DLPack (JAX): its capsule, asked for on the legacy default
        stream (stream=1 of the DLPack Python specification), which the emulator's kernels use;
        the tensor (the producer's memory) is held until the call returns."""
        t = _tcemu.dlpack_import(x, self.name, 1)
        held.append(t)
        kind, self.index = t.device
        if kind not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise TypeError(f"{self.name}: __dlpack_device__ says CUDA, but its DLPack tensor is in memory of DLPack "
                            f"device type {kind} (CUDA is {_KDL_CUDA}, CUDA managed {_KDL_CUDA_MANAGED})")
        self.shape, self.strides, self.ptr = t.shape, t.strides, t.ptr
        if t.dtype in _DLPACK_FORMATS:
            self.implied, self.dtype = _DLPACK_FORMATS[t.dtype], np.dtype(f"u{t.itemsize}")
            return
        try:
            self.dtype = np.dtype(t.dtype)
        except TypeError:
            self.dtype = None
        # With ml_dtypes imported NumPy knows float8_e5m2fnuz and the like: still none of ours.
        if self.dtype is None or self.dtype.kind == "V":
            raise TypeError(f"{self.name}: a CUDA array of {t.dtype} values, which is none of tcemu's code types on the "
                            f"GPU (integers of the container's width, float16, float32, bfloat16, float8_e4m3fn, "
                            f"float8_e5m2, float8_e8m0fnu)") from None

    def _torch_bits(self, x):
        import torch  # only reached for torch tensors

        x = x.detach()
        views = {torch.bfloat16: (torch.int16, "bf16")}
        for n, f in (("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2"), ("float8_e8m0fnu", "ue8m0")):
            if hasattr(torch, n):
                views[getattr(torch, n)] = (torch.uint8, f)
        if x.dtype in views:
            to, self.implied = views[x.dtype]
            x = x.view(to)
        self.keep.append(x)
        return x

    def contiguous(self, order):
        """Whether the array is contiguous in C ("C") or Fortran ("F") order."""
        if self.strides is None:
            return order == "C" or sum(n > 1 for n in self.shape) <= 1
        dims = range(len(self.shape)) if order == "F" else reversed(range(len(self.shape)))
        want = self.dtype.itemsize
        for d in dims:
            if self.shape[d] > 1 and self.strides[d] != want:
                return False
            want *= self.shape[d]
        return True

    def codes(self, fmt, nbytes):
        """(pointer, itemsize, count) for codes of format fmt in containers of nbytes; the
        array must be C-contiguous (checked by the caller for scale_b)."""
        dt, name = self.dtype, self.name
        if self.implied is not None and self.implied != fmt:
            raise TypeError(f"{name}: a {self.implied} tensor given where {fmt} codes are expected")
        if dt.kind == "f":
            f = _FLOAT_FORMATS.get(dt)
            if f is None or (f != fmt and not (f == "f32" and fmt == "tf32")):
                raise TypeError(f"{name}: a CUDA array of {dt} values given where {fmt} codes are expected; on the GPU "
                                f"tcemu reads codes as {nbytes}-byte integers (nothing is converted there)")
        elif dt.kind not in "ui" or dt.itemsize != nbytes:
            raise TypeError(f"{name}: a CUDA array of dtype {dt}; {fmt} codes on the GPU are {nbytes}-byte integers "
                            f"(uint{8 * nbytes} or int{8 * nbytes}: nothing is converted there)")
        count = int(np.prod(self.shape, dtype=np.int64))
        return (self.ptr, nbytes, count)


def _operand(x, name, shape_of, held):
    op = _Operand(x, name, held)
    if len(op.shape) != 2:
        raise ValueError(f"{name}: shape {op.shape}; {shape_of} is a matrix")
    return op


def _c_order(op, shape, what):
    if op.shape != shape:
        raise ValueError(f"{op.name}: shape {op.shape}; {what} = {shape}")
    if not op.contiguous("C"):
        raise ValueError(f"{op.name}: a CUDA array that is not C-contiguous (row-major); tcemu reads it in place "
                         f"(make it contiguous first: torch .contiguous(), CuPy cupy.ascontiguousarray)")


def _scale_b(x, kb, N, held):
    """scale_b (K/block x N) as the N x K/block row-major buffer the emulator reads."""
    op = _operand(x, "scale_b", "scale_b (K/block x N)", held)
    if op.shape != (kb, N):
        raise ValueError(f"scale_b: shape {op.shape}; one scale per block of K for each column: (K/block, N) = "
                         f"{(kb, N)}")
    if op.contiguous("F"):
        return op
    if not op.contiguous("C"):
        raise ValueError("scale_b: a CUDA array that is neither C- nor Fortran-contiguous")
    t = op.obj
    if is_torch_tensor(t):
        t = t.t().contiguous()
    elif callable(getattr(getattr(t, "T", None), "copy", None)):
        t = t.T.copy()
    else:
        raise ValueError(f"scale_b: a C-contiguous (K/block, N) CUDA array of {type(op.obj).__name__}, which tcemu "
                         f"cannot transpose on the GPU; pass it Fortran-contiguous (the transpose of an N x K/block "
                         f"row-major array)")
    tt = _Operand(t, "scale_b", held)
    tt.implied, tt.keep = op.implied, op.keep + tt.keep
    if tt.shape != (N, kb) or not tt.contiguous("C"):
        raise ValueError("scale_b: its transposed copy on the GPU is not a contiguous N x K/block array")
    tt.shape = (kb, N)
    return tt


def check_all_on_gpu(operands):
    """operands: (name, value) pairs, None values absent. ValueError unless every given one is a
    CUDA array; returns the names of those that are."""
    on = [n for n, v in operands if v is not None and is_cuda_array(v)]
    off = [n for n, v in operands if v is not None and not is_cuda_array(v)]
    if on and off:
        raise ValueError(f"{off[0]}: a host array, while {on[0]} is in GPU memory; give every operand on the GPU or "
                         f"every one on the host")
    return on


def device_and_threads(device, threads):
    """device_arg(device), refusing a threads= count with a CUDA device (the GPU computes)."""
    dev = device_arg(device)
    if dev >= 0 and threads is not None:
        raise ValueError(f"threads: applies to device='cpu' (device='{device}' computes on the GPU)")
    return dev


def refuse_gpu_arrays(operands, func, hint="copy it to the host: torch .cpu(), CuPy .get()"):
    """For functions that read host memory only, whatever their device=: a ValueError naming
    the first operand in GPU memory."""
    for n, v in operands:
        if v is not None and is_cuda_array(v):
            raise ValueError(f"{n}: a CUDA array (on {where(v)}); {func} takes host arrays, also with "
                             f"device='cuda' ({hint})")


def refuse_on_cpu(operands, func="tcemu.mma"):
    for n, v in operands:
        if v is not None and is_cuda_array(v):
            raise ValueError(f"{n}: a CUDA array (on {where(v)}) with device='cpu'; pass device='cuda' (or 'cuda:N') "
                             f"to {func} to compute on the GPU, or copy it to the host (torch: .cpu(), CuPy: .get())")


def mma_on_gpu(e, a, b, c, scale_a, scale_b, index, options, lookup_args):
    """tcemu.mma with every operand in GPU memory: checks, then the C++ mma() with DeviceOperands; D in host memory.
    The DLPack tensors taken on the way are given back to their producers when it returns or
    raises (not later, with the traceback)."""
    held = []
    try:
        return _mma_on_gpu(e, a, b, c, scale_a, scale_b, index, options, lookup_args, held)
    finally:
        for t in held:
            t.release()


def _mma_on_gpu(e, a, b, c, scale_a, scale_b, index, options, lookup_args, held):
    A = _operand(a, "a", "A (M x K)", held)
    B = _operand(b, "b", "B (K x N)", held)
    M, K, N = mma_shape(A, B, e)
    _c_order(A, (M, K), "A is M x K")
    _c_order(B, (K, N), "B is K x N")
    nbytes = _tcemu.container_bytes
    ops = [A, B]
    args = [A.codes(e["atype"], nbytes(e["atype"])), B.codes(e["btype"], nbytes(e["btype"]))]
    if c is None:
        args.append(None)
    else:
        C = _operand(c, "c", "C (M x N)", held)
        _c_order(C, (M, N), "C is M x N")
        ops.append(C)
        args.append(C.codes("s32" if e["dtype"] == "s32" else e["dtype"], 4 if e["dtype"] != "f16" else 2))
    if e["scale_type"] is not None:
        if scale_a is None or scale_b is None:
            raise ValueError(f"{'scale_a' if scale_a is None else 'scale_b'}: {e['ptx']} is block-scaled "
                             f"({e['scale_type']}, one scale per {e['scale_block']} elements of K): scales are required")
        kb = K // e["scale_block"]
        SA = _operand(scale_a, "scale_a", "scale_a (M x K/block)", held)
        _c_order(SA, (M, kb), "one scale per block of K for each row: (M, K/block)")
        SB = _scale_b(scale_b, kb, N, held)
        ops += [SA, SB]
        args += [SA.codes(e["scale_type"], 1), SB.codes(e["scale_type"], 1)]
    else:
        if scale_a is not None or scale_b is not None:
            raise ValueError(f"{'scale_a' if scale_a is not None else 'scale_b'}: {e['ptx']} takes no block scales")
        args += [None, None]
    for op in ops:
        if op.index is not None and op.index != index:
            raise ValueError(f"{op.name}: in the memory of cuda:{op.index}, but device='cuda:{index}'; pass "
                             f"device='cuda:{op.index}'")
    if any(is_torch_tensor(o) for op in ops for o in op.keep):
        import torch  # operands written on any torch stream are complete before the emulator reads them

        if torch.cuda.is_available():
            torch.cuda.synchronize(index)
    d = _tcemu.mma_device_codes(*lookup_args, *args, M, N, K, *options, index)
    del ops  # the operands' memory was held until here
    return d
