"""tcemu.mma / dot / instructions: whole GEMMs and single dot products through an MMA
instruction of the catalog, bit-identical to the C++ mma(problem, exec); with device="cuda",
computed by the emulator on a CUDA GPU (the C++ mma() with a CUDA Exec, docs/gpu-emulation.md)."""

import difflib

import numpy as np

from . import _device, _tcemu
from ._arrays import as_array, codes, format_name, mma_shape, to_container

_ACC_FORMAT = {"f32": "f32", "f16": "f16"}


def _str_or_none(v, name):
    if v is not None and not isinstance(v, str):
        raise TypeError(f"{name}: a name (str) is required, got {type(v).__name__}")
    return v


def _lookup(arch, instr, atype, btype, dtype, stype):
    if not isinstance(arch, str):
        raise TypeError(f"arch: an architecture name such as 'sm_90a' is required, got {type(arch).__name__}")
    if not isinstance(instr, str):
        raise TypeError(f"instr: a PTX spelling is required, got {type(instr).__name__}")
    for n, v in (("atype", atype), ("btype", btype), ("dtype", dtype), ("stype", stype)):
        _str_or_none(v, n)
    try:
        return _tcemu.find_instruction(arch, instr, atype, btype, dtype, stype)
    except ValueError as err:
        rows = _tcemu.catalog()
        base = arch[:-1] if arch[-1:] in ("a", "f") else arch
        arches = sorted({r["arch"] for r in rows})
        if arch not in arches and base not in arches:
            raise ValueError(f"arch: unknown architecture '{arch}' (one of {', '.join(arches)})") from None
        here = sorted({r["ptx"] for r in rows if r["arch"] in (arch, base)})
        near = difflib.get_close_matches(instr, here, n=3, cutoff=0.5)
        if near and instr not in here:
            raise ValueError(f"{err}; nearest spellings on {arch}: {', '.join(near)}") from None
        raise


def _acc_codes(x, e, name):
    if e["dtype"] == "s32":
        arr, _ = as_array(x, name)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name}: dtype {arr.dtype}; s32 accumulators are integers (int32)")
        if arr.size and (int(arr.min()) < -2**31 or int(arr.max()) > 2**32 - 1):
            raise ValueError(f"{name}: values outside the 32-bit range")
        return np.ascontiguousarray(arr.astype(np.int64) & 0xFFFFFFFF, dtype=np.uint32)
    return codes(x, _ACC_FORMAT[e["dtype"]], name)


def _scales(x, e, name, shape):
    arr, _ = as_array(x, name)
    c = to_container(arr, 1, name, e["scale_type"])
    if c.shape != shape:
        raise ValueError(f"{name}: shape {c.shape}; {e['ptx']} with one {e['scale_type']} scale per {e['scale_block']} "
                         f"elements of K needs {shape}")
    return c


def _check_scales_given(e, scale_a, scale_b, hint=""):
    """ValueError unless block scales are given exactly when the instruction row e is block-scaled."""
    if e["scale_type"] is not None:
        if scale_a is None or scale_b is None:
            raise ValueError(f"{'scale_a' if scale_a is None else 'scale_b'}: {e['ptx']} is block-scaled "
                             f"({e['scale_type']}, one scale per {e['scale_block']} elements of K): scales are required")
    elif scale_a is not None or scale_b is not None:
        raise ValueError(f"{'scale_a' if scale_a is not None else 'scale_b'}: {e['ptx']} takes no block scales{hint}")


def _matrices(a, b, e):
    """(A, B, M, K, N): the operand codes of instruction row e as matrices A (M x K), B (K x N)."""
    A = codes(a, e["atype"], "a", tf32_low_bits=True)
    B = codes(b, e["btype"], "b", tf32_low_bits=True)
    if A.ndim != 2:
        raise ValueError(f"a: shape {A.shape}; A is a matrix M x K")
    if B.ndim != 2:
        raise ValueError(f"b: shape {B.shape}; B is a matrix K x N")
    M, K, N = mma_shape(A, B, e)
    return A, B, M, K, N


def _block_scales(e, scale_a, scale_b, M, K, N, hint=""):
    """(SA, SB) for the C++ core: M x K/block and N x K/block codes, or (None, None) where e is
    not block-scaled (scales refused as _check_scales_given says)."""
    _check_scales_given(e, scale_a, scale_b, hint)
    if e["scale_type"] is None:
        return None, None
    kb = K // e["scale_block"]
    return _scales(scale_a, e, "scale_a", (M, kb)), np.ascontiguousarray(_scales(scale_b, e, "scale_b", (kb, N)).T)


_INT_MAX = 2**31 - 1  # the C++ int each of these flags becomes


def _int_flag(v, name, lo=None, hi=None):
    """An int flag in lo..hi (hi: the C++ int's maximum unless given); TypeError / ValueError naming it."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: an int is required, got {type(v).__name__}")
    hi = _INT_MAX if hi is None else hi
    if (lo is not None and v < lo) or v > hi:
        raise ValueError(f"{name}: {v} is outside {'' if lo is None else lo}..{hi}")
    return int(v)


def _bool_flag(v, name):
    if not isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{name}: must be True or False, got {type(v).__name__}")
    return bool(v)


def mma(a, b, c=None, *, arch, instr, atype=None, btype=None, dtype=None, stype=None, scale_a=None, scale_b=None,
        promote_every=0, negate_a=False, negate_b=False, scale_d=True, scale_input_d=None, threads=None,
        device="cpu"):
    """D = A*B + C through the instruction `instr` on `arch`, tiled over the whole problem.

    a: M x K codes of the instruction's A type, b: K x N codes, c: M x N accumulator codes
    (f32 uint32 / float32, f16 uint16 / float16, s32 int32; None: +0). Block-scaled kinds:
    scale_a M x K/block, scale_b K/block x N (uint8 codes). K must be a multiple of the
    instruction's K; M and N are free. Returns the M x N D codes (uint32, uint16 or int32).
    atype/btype/dtype/stype select among entries whose spelling leaves the types out (tcgen05).
    promote_every: FP32 promotion every that many instructions (0: off); negate_a/negate_b:
    wgmma imm-scale -1; scale_d=False: D = A*B; scale_input_d: tcgen05's D*2^-s (0..15).
    threads: how many threads compute D (None: $TCEMU_NUM_THREADS, else every core; 1: the
    plain C++ mma()). D is the same for every thread count.
    device: "cpu", or "cuda" / "cuda:N" for the emulator on that CUDA GPU (the same D, bit for
    bit; RuntimeError when it cannot run there). Operands already in GPU memory (torch CUDA
    tensors, CuPy/Numba arrays: __cuda_array_interface__; JAX and other arrays with only
    DLPack: __dlpack__) are read there without a copy; give all of them on the GPU (tcemu/_device.py says what is accepted). D is a NumPy array."""
    dev = _device.device_and_threads(device, threads)
    e = _lookup(arch, instr, atype, btype, dtype, stype)
    pe = _int_flag(promote_every, "promote_every", 0)
    sid = -1 if scale_input_d is None else _int_flag(scale_input_d, "scale_input_d", 0, 15)
    flags = (pe, _bool_flag(negate_a, "negate_a"), _bool_flag(negate_b, "negate_b"), _bool_flag(scale_d, "scale_d"), sid)
    operands = (("a", a), ("b", b), ("c", c), ("scale_a", scale_a), ("scale_b", scale_b))
    if dev < 0:
        _device.refuse_on_cpu(operands)
    elif _device.check_all_on_gpu(operands):
        return _device.mma_on_gpu(e, a, b, c, scale_a, scale_b, dev, flags, (arch, instr, atype, btype, dtype, stype))
    A, B, M, K, N = _matrices(a, b, e)
    C = None
    if c is not None:
        C = _acc_codes(c, e, "c")
        if C.shape != (M, N):
            raise ValueError(f"c: shape {C.shape}; C is M x N = {(M, N)}")
    SA, SB = _block_scales(e, scale_a, scale_b, M, K, N)
    th = 0 if threads is None else _int_flag(threads, "threads", 1)
    return _tcemu.mma_codes(arch, instr, atype, btype, dtype, stype, A, B, C, SA, SB, M, N, K, *flags, th, dev)


def mma_params(a, b, c=None, *, params, atype, btype, instr_k=None, stype=None, scale_block=0, scale_a=None,
               scale_b=None, promote_every=0, negate_a=False, negate_b=False, scale_d=True, scale_input_d=None,
               device="cpu"):
    """D = A*B + C through explicit datapath parameters (the C++ mma() with MmaInstr(params, instr_k)): `params` is a dict
    with the fields of tcemu::DatapathParams (kind t_fdpa / st_fdpa / gst_fdpa / integer, L, F,
    e_zero, rounding rz_f32 / rne_f16 / rz_e8m13, c_entry fused / rne_f32_after /
    rne_after_instruction, group, satfinite, widen_to_f16, kpair_halves, positive_zero; missing
    keys keep the defaults), as instructions() rows give them under "params". K is consumed in
    instructions of instr_k terms (default: params L). Block-scaled kinds take stype, scale_block
    and the scales as mma(). device: "cpu", or "cuda" / "cuda:N" for the emulator on that GPU
    (operands in host memory)."""
    dev = _device.device_arg(device)
    _device.refuse_gpu_arrays((("a", a), ("b", b), ("c", c), ("scale_a", scale_a), ("scale_b", scale_b)),
                              "tcemu.mma_params", "copy it to the host, or use tcemu.mma, which reads GPU memory in place")
    if not isinstance(params, dict):
        raise TypeError(f"params: a dict of datapath parameters is required, got {type(params).__name__}")
    at, bt = format_name(atype, "atype"), format_name(btype, "btype")
    A = codes(a, at, "a", tf32_low_bits=True)
    B = codes(b, bt, "b", tf32_low_bits=True)
    if A.ndim != 2 or B.ndim != 2:
        raise ValueError(f"{'a' if A.ndim != 2 else 'b'}: A (M x K) and B (K x N) are matrices")
    M, K = A.shape
    if B.shape[0] != K:
        raise ValueError(f"b: shape {B.shape}; a is {A.shape}, so B must have K = {K} rows")
    N = B.shape[1]
    kind = params.get("kind", "t_fdpa")
    acc = {"rne_f16": "f16"}.get(params.get("rounding", "rz_f32"), "f32")
    e = {"dtype": "s32" if kind == "integer" else acc, "ptx": "the datapath", "scale_type": stype,
         "scale_block": scale_block}
    C = None
    if c is not None:
        C = _acc_codes(c, e, "c")
        if C.shape != (M, N):
            raise ValueError(f"c: shape {C.shape}; C is M x N = {(M, N)}")
    SA = SB = None
    if stype is not None:
        stype = format_name(stype, "stype")
        e["scale_type"] = stype
        if _int_flag(scale_block, "scale_block", 1) and K % scale_block:
            raise ValueError(f"scale_block: K = {K} is not a multiple of {scale_block}")
        if scale_a is None or scale_b is None:
            raise ValueError(f"{'scale_a' if scale_a is None else 'scale_b'}: stype {stype}: scales are required")
        kb = K // scale_block
        SA = _scales(scale_a, e, "scale_a", (M, kb))
        SB = np.ascontiguousarray(_scales(scale_b, e, "scale_b", (kb, N)).T)
    ik = params.get("L", 16) if instr_k is None else _int_flag(instr_k, "instr_k", 1)
    pe = _int_flag(promote_every, "promote_every", 0)
    sid = -1 if scale_input_d is None else _int_flag(scale_input_d, "scale_input_d", 0, 15)
    return _tcemu.mma_params_codes(params, at, bt, stype, int(scale_block), int(ik), A, B, C, SA, SB, M, N, K, pe,
                                   _bool_flag(negate_a, "negate_a"), _bool_flag(negate_b, "negate_b"),
                                   _bool_flag(scale_d, "scale_d"), sid, dev)


def dot(a, b, c=0, *, arch, instr, atype=None, btype=None, dtype=None, stype=None, scale_a=None, scale_b=None,
        promote_every=0, negate_a=False, negate_b=False, scale_d=True, scale_input_d=None):
    """One dot product through the instruction, as a line of `tcemu dot`: a and b 1-D codes of
    the same length (fewer than K are padded with zeros; more must be a multiple of K), c one
    accumulator code (int), scale_a / scale_b one scale per block. Returns D's code (int)."""
    e = _lookup(arch, instr, atype, btype, dtype, stype)
    A = codes(a, e["atype"], "a", tf32_low_bits=True).reshape(-1) if np.ndim(a) <= 1 else None
    B = codes(b, e["btype"], "b", tf32_low_bits=True).reshape(-1) if np.ndim(b) <= 1 else None
    if A is None or B is None:
        raise ValueError(f"{'a' if A is None else 'b'}: a dot product takes 1-D codes")
    if A.size != B.size:
        raise ValueError(f"b: {B.size} codes; a has {A.size}")
    if A.size == 0:
        raise ValueError("a: no codes")
    K = e["K"]
    if A.size > K and A.size % K:
        raise ValueError(f"a: {A.size} terms: more than K = {K} must be a multiple of it")
    n = max(A.size, K)
    A = np.concatenate([A, np.zeros(n - A.size, A.dtype)])
    B = np.concatenate([B, np.zeros(n - B.size, B.dtype)])
    cc = int(_acc_codes(np.asarray([c]) if np.ndim(c) == 0 else c, e, "c").reshape(-1)[0])
    SA = SB = None
    _check_scales_given(e, scale_a, scale_b)
    if e["scale_type"] is not None:
        kb = n // e["scale_block"]
        SA = _scales(np.reshape(scale_a, -1), e, "scale_a", (kb,))
        SB = _scales(np.reshape(scale_b, -1), e, "scale_b", (kb,))
    pe = _int_flag(promote_every, "promote_every", 0)
    sid = -1 if scale_input_d is None else _int_flag(scale_input_d, "scale_input_d", 0, 15)
    d = _tcemu.dot_code(arch, instr, atype, btype, dtype, stype, A, B, cc, SA, SB, pe,
                        _bool_flag(negate_a, "negate_a"), _bool_flag(negate_b, "negate_b"),
                        _bool_flag(scale_d, "scale_d"), sid)
    if e["dtype"] == "s32" and d >= 2**31:
        d -= 2**32
    return d


def instructions(arch=None):
    """The catalog rows (dicts: arch, ptx, family, M, N, K, atype, btype, dtype, datapath,
    scale_type, scale_block, evidence, confidence, note), all or those that run on `arch`
    (an arch with an a/f suffix also runs its base arch's entries, as find_instruction)."""
    rows = _tcemu.catalog()
    if arch is None:
        return rows
    if not isinstance(arch, str):
        raise TypeError(f"arch: an architecture name such as 'sm_90a' is required, got {type(arch).__name__}")
    base = arch[:-1] if arch[-1:] in ("a", "f") else arch
    out = [r for r in rows if r["arch"] in (arch, base)]
    if not out:
        known = sorted({r["arch"] for r in rows})
        raise ValueError(f"arch: no instructions for '{arch}' (architectures: {', '.join(known)})")
    return out
