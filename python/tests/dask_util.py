"""Shared by the tcemu.dask tests: random operands of a catalog entry, the keyword arguments
that name it, and bounded waits (no test may hang)."""

import numpy as np

import tcemu

TIMEOUT = 90  # seconds; every wait on the cluster is bounded by it


def random_codes(rng, fmt, shape, finite=False):
    """Random codes of fmt, NaN and Inf codes included (their bits must agree too); finite: codes
    of normally distributed values instead (the emulator's fast path: no NaN or Inf in a step)."""
    if finite and fmt not in ("s32", "s8", "u8", "s4", "u4"):
        return tcemu.encode((rng.standard_normal(shape) * 2).astype(np.float32), fmt)
    if fmt == "s32":
        return rng.integers(-2**20, 2**20, shape).astype(np.int32)
    if fmt in ("f32", "f16", "bf16", "tf32"):
        return tcemu.encode((rng.standard_normal(shape) * 4).astype(np.float32), fmt)
    f = tcemu.formats[fmt]
    return (rng.integers(0, (f.code_mask >> f.man_shift) + 1, shape, dtype=np.uint64) << f.man_shift).astype(f.dtype)


def entry_kwargs(e):
    kw = {"arch": e["arch"], "instr": e["ptx"]}
    if e["types_in_descriptor"]:
        kw.update(atype=e["atype"], btype=e["btype"], dtype=e["dtype"])
        if e["scale_type"]:
            kw["stype"] = e["scale_type"]
    return kw


def operands(e, M, N, k_steps, seed=0, with_c=True, finite=False):
    """a, b, c and (block-scaled kinds) scale_a, scale_b for an M x N GEMM of k_steps instructions."""
    rng = np.random.default_rng(seed)
    K = e["K"] * k_steps
    ops = {"a": random_codes(rng, e["atype"], (M, K), finite), "b": random_codes(rng, e["btype"], (K, N), finite)}
    if with_c:
        ops["c"] = random_codes(rng, e["dtype"], (M, N))
    if e["scale_type"]:
        kb = K // e["scale_block"]
        lo, hi = (124, 131) if e["scale_type"] == "ue8m0" else (0x30, 0x40)
        ops["scale_a"] = rng.integers(lo, hi, (M, kb)).astype(np.uint8)
        ops["scale_b"] = rng.integers(lo, hi, (kb, N)).astype(np.uint8)
    return ops


def one_per_family():
    """One catalog entry of each family (wgmma e4m3/e5m2, tcgen05 kind::mxf4nvf4, ...): every
    kind of datapath (T-FDPA, ST-FDPA, GST-FDPA, integer) and every accumulator."""
    seen = {}
    for e in tcemu.instructions():
        seen.setdefault(e["family"], e)
    return list(seen.values())


def find(arch, pred):
    for e in tcemu.instructions(arch):
        if pred(e):
            return e
    raise AssertionError(f"no entry on {arch} matches")
