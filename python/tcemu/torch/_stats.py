"""What happened, per layer, GEMM and operand: amax, scales, the share of elements saturated,
flushed to zero or left subnormal, SQNR of each quantized operand and of each GEMM's output.
Measured only inside a `tcemu.torch.Recorder` (the measurements cost an f64 GEMM each);
they observe the emulated values, they do not take part in computing them."""

import contextlib
import json
import math
import os
import time

import numpy as np
import torch

from .._formats import formats

_active = []


def _sqnr_db(ref, got):
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got, np.float64)
    ok = np.isfinite(ref) & np.isfinite(got)
    sig = float(np.sum(ref[ok] ** 2))
    err = float(np.sum((ref[ok] - got[ok]) ** 2))
    if err == 0.0:
        return math.inf
    if sig == 0.0:
        return -math.inf
    return 10.0 * math.log10(sig / err)


def operand_stats(q):
    """The statistics of one QOperand against its float32 source."""
    src = np.asarray(q.source, np.float64)
    deq = q.dequantized()
    f = formats[q.fmt]
    codes = np.asarray(q.codes).astype(np.int64)
    mag = codes & ((1 << (f.width - 1)) - 1)  # every element format here is signed
    exp = mag >> f.man_bits
    man = mag & ((1 << f.man_bits) - 1)
    finite = np.isfinite(deq)
    saturated = finite & (mag == f.max_finite) & (np.abs(src) > np.abs(deq))
    subnormal = (exp == 0) & (man != 0)
    nz = src != 0
    n = max(src.size, 1)
    amax = float(np.nanmax(np.abs(src))) if src.size else 0.0
    out = {
        "format": q.fmt,
        "scaling": q.scaling or ("per-tensor" if q.scale_inv is not None else "none"),
        "shape": list(src.shape),
        "amax": amax,
        "saturated": float(np.count_nonzero(saturated)) / n,
        "flushed_to_zero": float(np.count_nonzero(nz & (deq == 0))) / n,
        "subnormal": float(np.count_nonzero(subnormal & nz)) / n,
        "nan_in": int(np.count_nonzero(np.isnan(src))),
        "inf_in": int(np.count_nonzero(np.isinf(src))),
        "nan": int(np.count_nonzero(np.isnan(deq))),
        "inf": int(np.count_nonzero(np.isinf(deq))),
        "sqnr_db": _sqnr_db(src, deq),
    }
    if q.scale_inv is not None:
        out["scale_inv"] = float(q.scale_inv)
    if q.scales is not None:
        out["scale_codes"] = {"min": int(np.min(q.scales)), "max": int(np.max(q.scales))}
    if q.amax is not None:  # row-scaled NVFP4: the largest row amax
        out["tensor_amax"] = float(np.max(q.amax))
    return out


def record(where, role, qa, qb, out, bias, ins):
    if not _active:
        return
    t0 = time.perf_counter()
    a_deq, b_deq = qa.dequantized(), qb.dequantized()
    exact = a_deq @ b_deq.T
    orig = torch.from_numpy(np.asarray(qa.source, np.float32)) @ torch.from_numpy(np.asarray(qb.source, np.float32)).T
    if bias is not None:
        bias64 = bias.detach().cpu().to(torch.float64).numpy()
        exact = exact + bias64
        orig = orig + bias.detach().cpu().to(torch.float32)
    got = out.detach().cpu().reshape(exact.shape).to(torch.float64).numpy()
    ev = {
        "layer": where, "gemm": role, "instr": ins.instr, "arch": ins.arch,
        "shape": [int(qa.codes.shape[0]), int(qb.codes.shape[0]), int(qa.codes.shape[1])],
        "a": operand_stats(qa), "b": operand_stats(qb),
        "out": {"dtype": str(out.dtype).replace("torch.", ""),
                "sqnr_vs_exact_dequantized_db": _sqnr_db(exact, got),
                "sqnr_vs_f32_db": _sqnr_db(orig.to(torch.float64).numpy(), got),
                "nan": int(np.count_nonzero(np.isnan(got))), "inf": int(np.count_nonzero(np.isinf(got)))},
    }
    for r in _active:
        r._add(ev, time.perf_counter() - t0)


class Recorder:
    """Collects the statistics of every emulated GEMM while active (a context manager), the
    loss-scale history of a tcemu.torch.GradScaler that is given it, and the losses a training
    loop logs (log_loss). report() aggregates per layer and GEMM; to_json() writes it."""

    def __init__(self):
        self.events = []
        self.losses = []
        self.loss_scales = []
        self.skipped_steps = []
        self.stats_seconds = 0.0
        self.step = 0

    def __enter__(self):
        _active.append(self)
        return self

    def __exit__(self, *exc):
        _active.remove(self)
        return False

    def _add(self, ev, seconds):
        ev["step"] = self.step
        self.events.append(ev)
        self.stats_seconds += seconds

    def next_step(self):
        self.step += 1

    def log_loss(self, loss):
        self.losses.append(float(loss))

    def log_scaler(self, scale, skipped):
        self.loss_scales.append(float(scale))
        if skipped:
            self.skipped_steps.append(self.step)

    def report(self):
        """{"layers": {layer: {gemm: {the last step's statistics, plus the mean of each share
        and SQNR over the steps recorded}}}, "loss": [...], "loss_scale": [...], ...}."""
        layers = {}
        for ev in self.events:
            g = layers.setdefault(ev["layer"], {}).setdefault(ev["gemm"], {"steps": 0, "last": None, "mean": {}})
            g["steps"] += 1
            g["last"] = ev
            for side in ("a", "b"):
                for k in ("saturated", "flushed_to_zero", "subnormal", "sqnr_db"):
                    g["mean"].setdefault(f"{side}.{k}", []).append(ev[side][k])
            for k in ("sqnr_vs_exact_dequantized_db", "sqnr_vs_f32_db"):
                g["mean"].setdefault(f"out.{k}", []).append(ev["out"][k])
        for g in (g for lay in layers.values() for g in lay.values()):
            g["mean"] = {k: _mean(v) for k, v in g["mean"].items()}
        return {"layers": layers, "loss": self.losses, "loss_scale": self.loss_scales,
                "skipped_steps": self.skipped_steps, "statistics_seconds": self.stats_seconds}

    def to_json(self, path):
        if not isinstance(path, (str, os.PathLike)):  # open(3) would write to file descriptor 3
            raise TypeError(f"path: a file name (str or os.PathLike) is required, got {type(path).__name__}")
        with open(path, "w") as f:
            json.dump(_jsonable(self.report()), f, indent=1)


def _mean(v):
    finite = [x for x in v if isinstance(x, (int, float)) and math.isfinite(x)]
    return sum(finite) / len(finite) if finite else (v[-1] if v else None)


def _jsonable(o):
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, float) and not math.isfinite(o):
        return str(o)
    return o


@contextlib.contextmanager
def suspended():
    """No statistics inside (the statistics' own GEMMs must not record themselves)."""
    saved = list(_active)
    _active.clear()
    try:
        yield
    finally:
        _active.extend(saved)
