"""tcemu.testing: assert_bitexact for kernel tests, in the spirit of torch.testing.assert_close,
and (tcemu.testing.strategies) Hypothesis strategies for codes of every format."""

import numpy as np

from . import _tcemu
from ._arrays import as_array, format_name, to_container

_DTYPE_FORMAT = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}


def _infer_format(arr, implied):
    if implied is not None:
        return implied
    return _DTYPE_FORMAT.get(arr.dtype)


def _codes(x, fmt, nbytes, name):
    arr, implied = as_array(x, name)
    if fmt == "s32":
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name}: dtype {arr.dtype}; s32 results are integers")
        return (np.asarray(arr).astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
    if fmt is None:  # raw bits
        if arr.dtype.kind not in "uif":
            raise TypeError(f"{name}: dtype {arr.dtype} cannot be compared bit for bit")
        return np.ascontiguousarray(arr).view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize])
    return to_container(arr, nbytes, name, fmt, implied if implied != fmt else None)


def _value(fmt, code):
    if fmt is None:
        return None
    try:
        return _tcemu.short_value(fmt, int(code))
    except ValueError:
        return None



def assert_bitexact(actual, expected, fmt=None, *, nans_equal=False, max_listed=5, msg=None):
    """Raises AssertionError unless `actual` and `expected` hold the same bits everywhere.

    expected: an array (or torch tensor) of the same shape, or a tcemu.golden.Case (its
    expected array; the message then adds compare's diagnosis, which model explains the
    output). fmt: the format of the codes (inferred from float16/float32/float64 and bf16 /
    fp8 tensors; without one, integer arrays are compared as raw bits). nans_equal: any NaN
    equals any NaN. The message gives the count and share of mismatching elements and the
    first max_listed with index, both codes, both values and the ulp distance."""
    from .golden import Case, compare

    case = expected if isinstance(expected, Case) else None
    if case is not None:
        fmt = case.expected_type if fmt is None else fmt
        expected = case.expected
    exp_arr, exp_implied = as_array(expected, "expected")
    act_arr, act_implied = as_array(actual, "actual")
    if fmt is None:
        fmt = _infer_format(exp_arr, exp_implied) or _infer_format(act_arr, act_implied)
    elif fmt != "s32" and not fmt.startswith("b"):
        fmt = format_name(fmt)
    if fmt is not None and fmt.startswith("b") and fmt[1:].isdigit():
        fmt = None  # raw register bits
    if fmt is None:
        nbytes = exp_arr.dtype.itemsize
    elif fmt == "s32":
        nbytes = 4
    else:
        nbytes = _tcemu.container_bytes(fmt)
    e = _codes(exp_arr if exp_implied is None else expected, fmt, nbytes, "expected")
    a = _codes(act_arr if act_implied is None else actual, fmt, nbytes, "actual")
    if a.shape != e.shape:
        raise AssertionError(f"{msg + ': ' if msg else ''}shape mismatch: actual {a.shape}, expected {e.shape}")
    if fmt is None and a.dtype != e.dtype:
        raise AssertionError(f"{msg + ': ' if msg else ''}element size mismatch: actual {a.dtype}, expected {e.dtype}")
    diff = a != e
    if nans_equal and fmt not in (None, "s32"):
        va = _tcemu.convert_codes(np.ascontiguousarray(a), fmt, "f64", None, False, False, False, "", None).view(np.float64)
        ve = _tcemu.convert_codes(np.ascontiguousarray(e), fmt, "f64", None, False, False, False, "", None).view(np.float64)
        diff &= ~(np.isnan(va) & np.isnan(ve))
    n = int(diff.sum())
    if n == 0:
        return
    total = diff.size
    idx = np.argwhere(diff)[:max_listed]
    flat_a, flat_e = a[diff][:max_listed], e[diff][:max_listed]
    ulps = None
    if fmt is not None:
        ulps = _tcemu.ulp_distances(fmt, np.ascontiguousarray(flat_a), np.ascontiguousarray(flat_e))
    width = 2 * nbytes
    name = fmt or f"raw {8 * nbytes}-bit"
    lines = [f"{msg + ': ' if msg else ''}Not bit-exact ({name}): {n} of {total} elements differ ({100.0 * n / total:.3g}%)."]
    lines.append(f"First {len(idx)} mismatch{'es' if len(idx) != 1 else ''}:")
    for k, ix in enumerate(idx):
        pos = tuple(int(i) for i in ix)
        ca, ce = int(flat_a[k]), int(flat_e[k])
        line = f"  at {pos if len(pos) != 1 else pos[0]}: actual 0x{ca:0{width}x}"
        va, ve = _value(fmt, ca), _value(fmt, ce)
        if va is not None:
            line += f" ({va})"
        line += f", expected 0x{ce:0{width}x}"
        if ve is not None:
            line += f" ({ve})"
        if ulps is not None:
            line += f", {ulps[k]} ulp" if ulps[k] >= 0 else ", ulp distance n/a (NaN/Inf)"
        lines.append(line)
    if case is not None:
        try:
            rep = compare(case, a)
            lines.append(f"Diagnosis: {rep.diagnosis}")
        except (ValueError, TypeError) as err:  # the report is an extra; the mismatch stands
            lines.append(f"(no diagnosis: {err})")
    raise AssertionError("\n".join(lines))


def __getattr__(name):
    # tcemu.testing.strategies is tcemu.strategies (imported on first use: it needs Hypothesis).
    if name == "strategies":
        from . import strategies
        return strategies
    raise AttributeError(f"module 'tcemu.testing' has no attribute '{name}'")
