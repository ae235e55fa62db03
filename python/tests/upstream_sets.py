"""Input sets for the upstream comparisons (test_conventions_upstream.py): every code of a
format of 16 bits or fewer, and stratified f32/f64 sets."""

import numpy as np

WIDTH = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16, "e4m3": 8, "e5m2": 8, "e3m2": 6, "e2m3": 6, "e2m1": 4,
         "ue8m0": 8, "ue4m3": 7}
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def container(fmt):
    w = WIDTH[fmt]
    return _UINT[8 if w > 32 else 4 if w > 16 else 2 if w > 8 else 1]


def all_codes(fmt):
    return np.arange(1 << WIDTH[fmt], dtype=np.uint64).astype(container(fmt))


def stratified(fmt, seed=27, nrand=8):
    """f32 or f64 codes: both signs; every biased exponent (f64: every one within 160 of the
    bias and at the ends, every 7th elsewhere) with significands at the boundaries and ties of
    every narrower precision (1 << k, (1 << k) +- 1, 3 << k, ones above bit k, all ones), the
    specials (zeros, Inf, NaN payloads) among them, and `nrand` random significands each."""
    eb, mb = (8, 23) if fmt == "f32" else (11, 52)
    rng = np.random.default_rng(seed)
    ms = {0, 1, 2, (1 << mb) - 1, (1 << mb) - 2}
    for k in range(mb):
        for v in ((1 << k), (1 << k) - 1, (1 << k) + 1, (3 << k) if k < mb - 1 else 0):
            ms.add(v & ((1 << mb) - 1))
        ms.add(((1 << mb) - 1) ^ ((1 << k) - 1))
    ms = np.array(sorted(ms), dtype=np.uint64)
    exps = np.arange(1 << eb, dtype=np.uint64)
    if fmt == "f64":
        near = (np.abs(exps.astype(np.int64) - 1023) <= 160) | (exps < 8) | (exps > 2040)
        exps = np.concatenate([exps[near], exps[~near][::7]])
    e, m = np.meshgrid(exps, ms, indexing="ij")
    codes = (e.reshape(-1) << np.uint64(mb)) | m.reshape(-1)
    rnd = rng.integers(0, 1 << mb, size=(len(exps), nrand), dtype=np.uint64)
    codes = np.concatenate([codes, ((exps[:, None] << np.uint64(mb)) | rnd).reshape(-1)])
    codes = np.concatenate([codes, codes | (np.uint64(1) << np.uint64(eb + mb))])
    return np.unique(codes).astype(container(fmt))


def source_codes(fmt):
    return stratified(fmt) if WIDTH[fmt] > 16 else all_codes(fmt)
