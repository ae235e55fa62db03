"""tcemu.convert / encode / decode / cvt: element conversions and PTX cvt instructions, the
same results as `tcemu convert` and `tcemu cvt` element for element."""

import numpy as np

from . import _tcemu
from ._arrays import as_array, codes, contiguous, format_name, scalar_result, threads_arg, uint32_array


def _opts(round, satfinite, relu, ftz, convention):
    if round is not None and not isinstance(round, str):
        raise TypeError(f"round: a rounding name (rn, rna, rz, rd, ru, rs) is required, got {type(round).__name__}")
    if convention is not None and not isinstance(convention, str):
        raise TypeError(f"convention: a convention name is required, got {type(convention).__name__}")
    for n, v in (("satfinite", satfinite), ("relu", relu), ("ftz", ftz)):
        if not isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{n}: must be True or False, got {type(v).__name__}")
    return round, bool(satfinite), bool(relu), bool(ftz), convention or ""


def _check_out(out, c, dst):
    if out is None:
        return None
    want = np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[_tcemu.container_bytes(dst)])
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out: a NumPy array is required, got {type(out).__name__}")
    if out.dtype != want:
        raise TypeError(f"out: dtype {out.dtype}; {dst} codes are {want}")
    if out.shape != c.shape:
        raise ValueError(f"out: shape {out.shape}; the codes are {c.shape}")
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out: must be a writeable C-contiguous array")
    return out


# IEEE 754 status flags of tcemu.convert(..., flags=True), bits of one uint8 per element
# (emulator/include/tcemu/convert.hpp, enum Flag; docs/conversions.md "Status flags").
INEXACT = _tcemu.FLAG_INEXACT
OVERFLOW = _tcemu.FLAG_OVERFLOW
UNDERFLOW = _tcemu.FLAG_UNDERFLOW
INVALID = _tcemu.FLAG_INVALID
UNDEFINED = _tcemu.FLAG_UNDEFINED


def _run(c, src, dst, round, satfinite, relu, ftz, convention, rbits, was_scalar, out=None, threads=None,
         flags=False):
    th = threads_arg(threads)
    rb = None if rbits is None else uint32_array(rbits, "rbits", c.shape if np.ndim(rbits) else None)
    if rb is not None and rb.shape != c.shape:
        rb = np.ascontiguousarray(np.broadcast_to(rb, c.shape))
    if flags:
        if out is not None:
            raise ValueError("out: not taken with flags=True")
        res, fl = _tcemu.convert_codes_flags(c, src, dst, round, satfinite, relu, ftz, convention, rb)
        if was_scalar:
            return int(res.reshape(-1)[0]), int(fl.reshape(-1)[0])
        return res, fl
    res = _tcemu.convert_codes(c, src, dst, round, satfinite, relu, ftz, convention, rb, _check_out(out, c, dst),
                               th)
    return scalar_result(was_scalar and out is None, res)


def convert(codes_in, src, dst, *, round=None, satfinite=False, relu=False, ftz=False, convention=None, rbits=None,
            out=None, threads=None, flags=False):
    """Converts codes of format `src` into codes of `dst` (an array of the same shape, uint8 /
    uint16 / uint32 / uint64 by the destination's width; an int for a scalar input).

    round: rn (default), rna, rz, rd, ru or rs (stochastic: `rbits`, one uint32 per element).
    convention: a named convention (tcemu.conventions()); unset options keep its values, and
    options it does not allow raise ValueError (as `tcemu convert --convention`).
    out: an array to write the result into (the shape of codes, the destination's dtype,
    C-contiguous), returned; saves allocating one per call on large arrays.
    threads: how many threads convert (None: $TCEMU_NUM_THREADS, else every core; arrays are
    split in chunks of 64 Ki elements). The codes are the same for every thread count.
    flags: True returns (codes, flags): flags a uint8 array (an int for a scalar) of the IEEE 754
    status of each element's conversion, bits tcemu.INEXACT, OVERFLOW, UNDERFLOW (tininess
    before rounding), INVALID, and UNDEFINED where the convention defines no result (code 0
    there; without flags such an input raises ValueError). Element by element (one thread)."""
    src, dst = format_name(src, "src"), format_name(dst, "dst")
    opts = _opts(round, satfinite, relu, ftz, convention)
    if not isinstance(flags, (bool, np.bool_)):
        raise TypeError(f"flags: must be True or False, got {type(flags).__name__}")
    c = codes(codes_in, src, "codes")
    return _run(c, src, dst, *opts, rbits, np.ndim(codes_in) == 0 and not hasattr(codes_in, "shape"), out, threads,
                bool(flags))


def encode(values, fmt, *, round=None, satfinite=False, relu=False, ftz=False, convention=None, rbits=None):
    """Rounds values (float64, float32 or float16; lists and numbers as float64) into codes of
    `fmt`: one rounding of the exact input value, with the options of convert()."""
    fmt = format_name(fmt, "fmt")
    opts = _opts(round, satfinite, relu, ftz, convention)
    arr, implied = as_array(values, "values")
    if implied is not None:
        raise TypeError(f"values: a {implied} tensor holds codes, not values; use tcemu.convert")
    if not isinstance(values, np.ndarray) and arr.dtype.kind in "iub":
        arr = arr.astype(np.float64)
    src = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.float16): "f16"}.get(arr.dtype)
    if src is None:
        raise TypeError(f"values: dtype {arr.dtype}; encode takes float16, float32 or float64 values")
    c = contiguous(arr, "values").view({"f64": np.uint64, "f32": np.uint32, "f16": np.uint16}[src])
    return _run(c, src, fmt, *opts, rbits, np.ndim(values) == 0 and not hasattr(values, "shape"))


def decode(codes_in, fmt):
    """The values of codes of `fmt` as float64 (exact: every code of every format is one)."""
    fmt = format_name(fmt, "fmt")
    c = codes(codes_in, fmt, "codes")
    out = _tcemu.convert_codes(c, fmt, "f64", None, False, False, False, "", None).view(np.float64)
    if np.ndim(codes_in) == 0 and not hasattr(codes_in, "shape"):
        return float(out.reshape(-1)[0])
    return out


def cvt(ptx, *registers, rbits=None, rs_map="ptx_doc"):
    """Runs a PTX cvt instruction: `registers` are the source registers in PTX operand order
    (arrays broadcast together, or ints; f32 sources as bit patterns or float32 arrays), the
    result the destination register's bits (uint16 / uint32 / uint64 ...). cvt.rs takes rbits.
    The same as `tcemu cvt --ptx PTX`, line for line."""
    if not isinstance(ptx, str):
        raise TypeError(f"ptx: a cvt spelling (str) is required, got {type(ptx).__name__}")
    if not isinstance(rs_map, str):
        raise TypeError("rs_map: 'ptx_doc' or 'flashinfer_hw'")
    info = _tcemu.cvt_info(ptx)
    if len(registers) != info["registers"]:
        raise ValueError(f"registers: {info['spelling']} takes {info['registers']} source register(s), got {len(registers)}")
    arrs = []
    for i, r in enumerate(registers):
        a, _ = as_array(r, f"registers[{i}]")
        if a.dtype.kind == "f":
            if a.dtype.itemsize * 8 != info["src_bits"]:
                raise TypeError(f"registers[{i}]: {a.dtype} values for a {info['src_bits']}-bit register")
            a = a.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
        elif a.dtype.kind not in "ui":
            raise TypeError(f"registers[{i}]: dtype {a.dtype}; registers are unsigned integers")
        elif a.dtype.kind == "i" and a.size and int(a.min()) < 0:
            a = a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])
        arrs.append(a)
    shape = np.broadcast_shapes(*(a.shape for a in arrs)) if arrs else ()
    regs = np.ascontiguousarray(np.stack([np.broadcast_to(a, shape).astype(np.uint64).reshape(-1) for a in arrs]))
    if info["has_rbits"] and rbits is None:
        raise ValueError(f"rbits: {info['spelling']} takes a .b32 register of random bits")
    if not info["has_rbits"] and rbits is not None:
        raise ValueError(f"rbits: {info['spelling']} takes no random bits")
    rb = None
    if rbits is not None:
        rb = uint32_array(rbits, "rbits")
        try:
            rb = np.ascontiguousarray(np.broadcast_to(rb, shape).reshape(-1))
        except ValueError:
            raise ValueError(f"rbits: shape {rb.shape} does not broadcast to the registers' {shape}") from None
    out = _tcemu.cvt_eval(ptx, regs, rb, rs_map).reshape(shape)
    scalar = all(np.ndim(r) == 0 and not hasattr(r, "shape") for r in registers)
    return int(out.reshape(-1)[0]) if scalar else out


def conventions():
    """The named conversion conventions: name, summary, source."""
    return _tcemu.conventions()


def cvt_instructions():
    """Every PTX cvt variant tcemu models (spellings)."""
    return _tcemu.cvt_catalog()
