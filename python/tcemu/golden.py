"""tcemu.golden: golden files (the JSON + .npy format of docs/golden.md), their cases, case
generation with the options of `tcemu golden gen`, and compare(case, actual) with its report."""

import json
import os

import numpy as np

from . import _tcemu
from ._arrays import as_array, to_container

Case = _tcemu.Case
GoldenFile = _tcemu.GoldenFile
Report = _tcemu.Report
Mismatch = _tcemu.Mismatch


def _path(path, name="path"):
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name}: a file path is required, got {type(path).__name__}")
    return os.fspath(path)


def load(path):
    """Reads and checks a golden file (GoldenFile: .description, .cases). ValueError names the
    field of a malformed file; FileNotFoundError when there is none."""
    p = _path(path)
    if not os.path.isfile(p):
        raise FileNotFoundError(f"path: no golden file '{p}'")
    return _tcemu.read_golden(p)


def save(path, cases, description="", *, npy_threshold=4096):
    """Writes a golden file: `cases` is a GoldenFile or a list of Case. Arrays of more than
    npy_threshold elements go to .npy files next to it (0: every array inline)."""
    p = _path(path)
    if isinstance(cases, GoldenFile):
        f = cases
        if description:
            f.description = description
    else:
        cases = list(cases) if not isinstance(cases, Case) else [cases]
        for i, c in enumerate(cases):
            if not isinstance(c, Case):
                raise TypeError(f"cases[{i}]: a tcemu.golden.Case is required, got {type(c).__name__}")
        f = GoldenFile(cases, description)
    if isinstance(npy_threshold, bool) or not isinstance(npy_threshold, int) or npy_threshold < 0:
        raise ValueError("npy_threshold: a non-negative int is required")
    _tcemu.write_golden(p, f, npy_threshold)


def _is_golden(path):
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh).get("format") == "tcemu-golden"
    except (OSError, ValueError, AttributeError):
        return False


def iterate(path):
    """Yields every case of a golden file, or of every golden file in a folder (sorted; other
    JSON files such as golden/sets/index.json are left out)."""
    p = _path(path)
    if os.path.isdir(p):
        files = sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(".json"))
        files = [f for f in files if _is_golden(f)]
    else:
        files = [p]
    for f in files:
        yield from load(f).cases


def _opt_str(v, name):
    if v is not None and not isinstance(v, str):
        raise TypeError(f"{name}: a name (str) is required, got {type(v).__name__}")
    return v


def _size(v, name, lo, hi):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{name}: an int is required, got {type(v).__name__}")
    if v < lo or v > hi:
        raise ValueError(f"{name}: {v} is not {'0 (the default) or ' if lo == 0 else ''}a size from 1 to {hi}")
    return int(v)


def _area(a, b, what):
    # The limits of `tcemu golden gen`: sizes are checked before anything is allocated.
    if a * b > 2**30:
        raise ValueError(f"{what} would hold {a * b} elements (at most 2^30 are generated)")


def _seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise ValueError(f"seed: {seed!r} is not an integer from 0 to 2^64 - 1")
    return int(seed)


def generate_mma(arch, instr, *, atype=None, btype=None, dtype=None, stype=None, M=0, N=0, K=0, tile_m=0, tile_n=0,
                 dist_a="normal", dist_b="normal", dist_c="normal", scale=1.0, scales="mixed", a_col=False,
                 b_col=True, c_col=False, d_col=False, promote_every=0, negate_a=False, negate_b=False,
                 scale_d=True, scale_input_d=None, seed=1, name=""):
    """An MMA case as `tcemu golden gen --arch --ptx`: operands from the distributions (bits,
    normal, wide, subnormal, specials, edges, mixed) with the seed, D by the emulator.
    M, N, K = 0: one instruction tile."""
    for n, v in (("atype", atype), ("btype", btype), ("dtype", dtype), ("stype", stype)):
        _opt_str(v, n)
    M, N, K = (_size(v, n, 0, 2**20) for v, n in ((M, "M"), (N, "N"), (K, "K")))
    tile_m, tile_n = _size(tile_m, "tile_m", 0, 2**20), _size(tile_n, "tile_n", 0, 2**20)
    _area(M, K, "A (M x K)")
    _area(K, N, "B (K x N)")
    _area(M, N, "D (M x N)")
    return _tcemu.gen_mma(arch, instr, atype, btype, dtype, stype, M, N, K, tile_m, tile_n, dist_a, dist_b, dist_c,
                          float(scale), scales, a_col, b_col, c_col, d_col, promote_every, negate_a, negate_b,
                          scale_d, -1 if scale_input_d is None else scale_input_d, _seed(seed), name)


def generate_convert(src, dst, *, convention="ptx", round=None, satfinite=False, relu=False, ftz=False, count=256,
                     dist="edges", scale=1.0, seed=1, name=""):
    """A conversion case as `tcemu golden gen --from --to`."""
    count = _size(count, "count", 1, 2**30)
    return _tcemu.gen_convert(src, dst, convention, _opt_str(round, "round"), satfinite, relu, ftz, count, dist,
                              float(scale), _seed(seed), name)


def generate_cvt(ptx, *, rs_map="ptx_doc", count=256, dist="edges", scale=1.0, seed=1, name=""):
    """A PTX cvt case as `tcemu golden gen --cvt`."""
    count = _size(count, "count", 1, 2**30)
    return _tcemu.gen_cvt(ptx, rs_map, count, dist, float(scale), _seed(seed), name)


def generate_quantize(recipe, *, rows=4, cols=64, dist="normal", scale=1.0, seed=1, philox_offset=0, name="",
                      **options):
    """A quantize case as `tcemu golden gen --recipe` (recipe options as in tcemu.quantize)."""
    from ._quant import _options
    rows, cols = _size(rows, "rows", 1, 2**30), _size(cols, "cols", 1, 2**30)
    _area(rows, cols, "x (rows x cols)")
    return _tcemu.gen_quantize(recipe, _options(options), rows, cols, dist, float(scale), _seed(seed),
                               _seed(philox_offset), name)


def generate(**kwargs):
    """One case: an MMA (arch=, instr=), a conversion (src=, dst=), a cvt (ptx='cvt...') or a
    quantization (recipe=), with the keyword arguments of generate_mma / generate_convert /
    generate_cvt / generate_quantize."""
    if "recipe" in kwargs:
        return generate_quantize(kwargs.pop("recipe"), **kwargs)
    if "instr" in kwargs or "arch" in kwargs:
        return generate_mma(kwargs.pop("arch", None), kwargs.pop("instr", None), **kwargs)
    if "ptx" in kwargs:
        return generate_cvt(kwargs.pop("ptx"), **kwargs)
    if "src" in kwargs and "dst" in kwargs:
        return generate_convert(kwargs.pop("src"), kwargs.pop("dst"), **kwargs)
    raise ValueError("generate: give arch= and instr= (MMA), src= and dst= (conversion), ptx= (cvt) or recipe=")


def _actual_codes(case, actual, name="actual"):
    arr, implied = as_array(actual, name)
    t = case.expected_type
    nbytes = case.expected.dtype.itemsize
    if t == "s32":
        if arr.dtype.kind not in "iu":
            raise TypeError(f"{name}: dtype {arr.dtype}; s32 results are integers")
        arr = (arr.astype(np.int64) & 0xFFFFFFFF).astype(np.uint32)
    c = to_container(arr, nbytes, name, t, implied if implied != t else None)
    want = case.expected.shape
    if c.shape != want:
        if c.size == int(np.prod(want)) and c.ndim == 1:
            c = c.reshape(want)
        else:
            raise ValueError(f"{name}: shape {c.shape}; case '{case.name}' expects {want}")
    return np.ascontiguousarray(c)


def compare(case, actual, *, nans_equal=False, max_listed=10, analyse_models=True, model_sample=2048):
    """Compares a kernel's output (codes in the logical shape of case.expected, or float32 /
    float16 values for f32 / f16 results) with a golden case, bit for bit. Returns a Report:
    .identical, .mismatch_count, .total, .mismatches (row, col, expected, actual, ulps),
    .histogram, .findings, .models, .diagnosis, .text(), .to_json(), .to_html(path)."""
    if not isinstance(case, Case):
        raise TypeError(f"case: a tcemu.golden.Case is required, got {type(case).__name__}")
    c = _actual_codes(case, actual)
    return _tcemu.compare_case(case, c, bool(nans_equal), int(max_listed), bool(analyse_models), int(model_sample))


def gemm_args(case):
    """The arguments of tcemu.gemm that a gemm case records (dict): a, b, c (when beta reads
    it), scale_a / scale_b (block-scaled kinds), arch, instr, the types, the K schedule
    (chunks and the combine as a plan name) and the epilogue, so that
    tcemu.gemm(**tcemu.golden.gemm_args(case)) gives case.expected."""
    if not isinstance(case, Case):
        raise TypeError(f"case: a tcemu.golden.Case is required, got {type(case).__name__}")
    s = case.spec
    if s["op"] != "gemm":
        raise ValueError(f"case: '{case.name}' is an {s['op']} case, not a gemm case")
    ops = case.operands
    f32 = lambda bits: float(np.asarray(bits, dtype=np.uint32).view(np.float32))  # noqa: E731
    kw = dict(a=ops["A"], b=ops["B"], arch=s["arch"], instr=s["ptx"], atype=s["atype"], btype=s["btype"],
              dtype=s["dtype"], stype=s["stype"], promote_every=s["promote_every"], negate_a=s["negate_a"],
              negate_b=s["negate_b"], alpha=f32(s["alpha"]), beta=f32(s["beta"]), out_type=s["out_type"],
              out_round=s["out_round"], satfinite=s["satfinite"], epilogue=s["epilogue"])
    if "C" in ops:
        kw["c"] = ops["C"]
    if "scale_A" in ops:
        kw["scale_a"] = ops["scale_A"]
        kw["scale_b"] = ops["scale_B"].T  # the file: N x K/block; tcemu.gemm: K/block x N
    for k in ("a_scale", "b_scale"):
        if k in ops:
            v = ops[k].view(np.float32)
            kw[k] = v.reshape(()) if v.size == 1 else v  # one value: per tensor
    if "bias" in ops:
        kw["bias"] = ops["bias"].view(np.float32)
    if s["schedule"] == "split":
        kw["chunks"] = list(s["chunks"])
        kw["plan"] = s["combine"]  # every combine is a plan of that name (tcemu.gemm_plans())
    return kw


def provenance(case):
    """Where the case's expected result came from (dict: source, tcemu_version or gpu, ...)."""
    return json.loads(case.provenance_json)
