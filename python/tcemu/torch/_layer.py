"""One emulated linear layer's three GEMMs: the operands quantized as the recipe says
(_quantizers), each GEMM through tcemu.gemm on the recipe's instruction with the upstream
epilogue, the per-layer state (delayed-scaling histories, the stochastic-rounding stream, an
inference weight cache) and the statistics hook. No arithmetic of its own: tcemu's C++ core
computes every value; torch only moves tensors in and out."""

import itertools
import time

import numpy as np
import torch

from .. import _tcemu
from . import _quantizers as qz
from . import _stats
from .recipes import OPERANDS

_OUT_TYPE = {torch.float32: "f32", torch.bfloat16: "bf16", torch.float16: "f16"}
_CODE_DTYPE = {"f32": (np.uint32, torch.int32, torch.float32), "bf16": (np.uint16, torch.int16, torch.bfloat16),
               "f16": (np.uint16, torch.int16, torch.float16)}
_ONE_SCALE = {"ue8m0": 0x7F, "ue4m3": 0x38}  # the code of 1.0: scales of the zero padding of K
_handles = itertools.count(1)
_gemm_recorders = []
# Seconds spent in tcemu.gemm and in the quantizers, and the GEMMs' multiply-adds, since the
# process started (python/bench/bench_torch.py reads them; two perf_counter calls a GEMM).
TIMES = {"gemm": 0.0, "quantize": 0.0, "macs": 0}


def counters():
    """{"gemm_seconds", "quantize_seconds", "macs"}: the time spent in tcemu.gemm and in the
    quantizers, and the GEMMs' multiply-adds, since the process started."""
    return {"gemm_seconds": TIMES["gemm"], "quantize_seconds": TIMES["quantize"], "macs": TIMES["macs"]}


class GemmRecorder:
    """While active (a context manager), every emulated GEMM is appended to .problems as the
    keyword arguments of tcemu.gemm (a, b, arch, instr, scales, alpha, bias, out_type ...; or of
    tcemu.gemm_kblock for blockwise FP8) with "fn" naming the function, and to .labels as
    (layer, fprop / dgrad / wgrad): a model step's GEMMs, to replay elsewhere
    (tcemu.dask.map_gemms(client, rec.problems)) or to save as golden inputs."""

    def __init__(self):
        self.problems = []
        self.labels = []

    def add(self, problem, layer, role):
        self.problems.append(problem)
        self.labels.append((layer, role))

    def __enter__(self):
        _gemm_recorders.append(self)
        return self

    def __exit__(self, *exc):
        _gemm_recorders.remove(self)
        return False


def to_f32(t, where, what):
    """t (a torch tensor) as a 2-D C-contiguous float32 NumPy array (rows x last dim): exact for
    float32, bfloat16 and float16 (widening); other dtypes are refused."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{where}: {what} must be a torch.Tensor, got {type(t).__name__}")
    if t.dtype not in _OUT_TYPE:
        raise TypeError(f"{where}: {what} has dtype {t.dtype}; tcemu.torch takes float32, bfloat16 or float16")
    x = t.detach()
    if x.device.type != "cpu":
        x = x.cpu()
    x = x.reshape(-1, x.shape[-1]) if x.dim() != 2 else x
    return np.ascontiguousarray(x.to(torch.float32).numpy())


def cast_tensor(t, dtype):
    """t rounded to dtype (f16 / bf16, round to nearest even) by tcemu's converter."""
    out_type = _OUT_TYPE[dtype]
    v = np.ascontiguousarray(t.detach().cpu().to(torch.float32).numpy()).view(np.uint32)
    from .._convert import convert
    return from_codes(convert(v, "f32", out_type), out_type, t.device)


def from_codes(codes, out_type, device):
    np_dt, int_dt, dt = _CODE_DTYPE[out_type]
    t = torch.from_numpy(np.ascontiguousarray(codes).view(np_dt.__name__.replace("uint", "int")))
    t = t.view(dt)
    return t if device.type == "cpu" else t.to(device)


def run_gemm(recipe, role, arch, qa, qb, out_dtype, device, *, bias=None, where="layer"):
    """D = A B^T of two QOperands through the recipe's instruction for `role`, with the
    epilogue of the recipe's library (per-tensor scale_inv factors as a_scale / b_scale or
    NVFP4's alpha, bias, the output conversion; tcemu.gemm's `fold` order unless the recipe
    names another), as a torch tensor of out_dtype (M x N). K is padded with zero codes to a
    multiple of the instruction's K, as the kernels' zero fill of out-of-bounds tiles does."""
    from .._gemm import gemm  # tcemu.gemm: the GEMM plan and its epilogue (docs/gemm.md)

    if qa.scaling == "kblock":
        return _run_kblock(recipe, role, arch, qa, qb, out_dtype, device, bias, where)
    ins = recipe.instr(role, arch, qa, qb)
    a, b = qa.codes, qb.codes
    sa, sb = qa.scales, qb.scales
    k = a.shape[1]
    pad = (-k) % ins.K
    if pad:
        a = np.pad(a, ((0, 0), (0, pad)))
        b = np.pad(b, ((0, 0), (0, pad)))
        if sa is not None:
            nb = pad // qa.block
            one = _ONE_SCALE[ins.stype]
            sa = np.pad(sa, ((0, 0), (0, nb)), constant_values=one)
            sb = np.pad(sb, ((0, 0), (0, nb)), constant_values=one)
    kw = ins.kwargs()
    if sa is not None:
        kw.update(scale_a=sa, scale_b=np.ascontiguousarray(sb.T))
    if qa.scale_inv is not None:
        kw.update(a_scale=np.float32(qa.scale_inv), b_scale=np.float32(qb.scale_inv))
    if qa.scaling == "nvfp4":
        kw["alpha"] = _tcemu.te_nvfp4_gemm_alpha(1.0, qa.amax, qb.amax, qa.e4m3_max, qb.e4m3_max)
    out_type = _OUT_TYPE[out_dtype]
    if bias is not None:
        kw["bias"] = bias.detach().cpu()
    if recipe.epilogue is not None:
        kw["epilogue"] = recipe.epilogue
    kw.update(promote_every=recipe.promotion(role, arch), out_type=out_type)
    bt = np.ascontiguousarray(b.T)
    for rec in _gemm_recorders:
        rec.add({"fn": "gemm", "a": a, "b": bt, **kw}, where, role)
    t0 = time.perf_counter()
    d = gemm(a, bt, threads=recipe.threads, **kw)
    TIMES["gemm"] += time.perf_counter() - t0
    TIMES["macs"] += a.shape[0] * bt.shape[1] * k
    out = from_codes(d, out_type, device)
    _stats.record(where, role, qa, qb, out, bias, ins)
    return out


def _run_kblock(recipe, role, arch, qa, qb, out_dtype, device, bias, where):
    """Blockwise FP8: tcemu.gemm_kblock on the arch's plain FP8 instruction (K padded with zero
    codes to the instruction's K, which stays inside the last 128-long block)."""
    from .._gemm_kblock import gemm_kblock

    ins = recipe.instr(role, arch, qa, qb)
    a, b = qa.codes, qb.codes
    pad = (-a.shape[1]) % ins.K
    if pad:
        a, b = np.pad(a, ((0, 0), (0, pad))), np.pad(b, ((0, 0), (0, pad)))
    out_type = _OUT_TYPE[out_dtype]
    kw = ins.kwargs()
    kw.pop("dtype", None)
    bias32 = None if bias is None else np.ascontiguousarray(bias.detach().cpu().to(torch.float32).numpy())
    bt, sb = np.ascontiguousarray(b.T), np.ascontiguousarray(qb.scales.T)
    for rec in _gemm_recorders:
        rec.add({"fn": "gemm_kblock", "a": a, "b": bt, "scale_a": qa.scales, "scale_b": sb, "bias": bias32,
                 "out_type": out_type, **kw}, where, role)
    t0 = time.perf_counter()
    d = gemm_kblock(a, bt, scale_a=qa.scales, scale_b=sb, bias=bias32, out_type=out_type, threads=recipe.threads, **kw)
    TIMES["gemm"] += time.perf_counter() - t0
    TIMES["macs"] += a.shape[0] * b.shape[0] * a.shape[1]
    out = from_codes(d, out_type, device)
    _stats.record(where, role, qa, qb, out, bias, ins)
    return out


class Layer:
    """The emulation state of one linear layer (or one call site of an autocast GEMM): the
    recipe, arch and name, and what persists across steps."""

    def __init__(self, recipe, arch, name, inference=False):
        self.recipe, self.arch, self.name, self.inference = recipe, arch, name, inference
        self.state = {}
        self.sr_offset = 0
        self.weight_cache = None  # inference: (weight version, data pointer, QOperand)
        self.handle = next(_handles)

    def _ctx(self, tensor, usage, scale=None):
        r = self.recipe
        ctx = qz.QuantCtx(self.state, tensor, usage, scale=scale, rht=usage == "columnwise" and tensor in r.rht_columnwise,
                          seed=getattr(r, "seed", 0), offset=self.sr_offset, threads=r.threads, where=self.name)
        return ctx

    def quantize(self, tensor, usage, x, scale=None):
        q = self.recipe.quantizer(tensor)
        ctx = self._ctx(tensor, usage, scale)
        if tensor in self.recipe.stochastic:
            ctx.seed = (getattr(self.recipe, "seed", 0) * 1000003 + self.handle) & 0xFFFFFFFFFFFFFFFF
            self.sr_offset += x.size
        t0 = time.perf_counter()
        out = q(x, ctx)
        TIMES["quantize"] += time.perf_counter() - t0
        return out

    def _end_of(self, tensors):
        for t in tensors:
            st = self.state.get(("delayed", t))
            if st is not None:
                st.update()

    def _weight(self, w):
        """The weight's rowwise operand; in inference, quantized once per weight version."""
        if not self.inference:
            return self.quantize("weight", "rowwise", to_f32(w, self.name, "weight"))
        key = (w._version, w.data_ptr(), tuple(w.shape))
        if self.weight_cache is None or self.weight_cache[0] != key:
            self.weight_cache = (key, self.quantize("weight", "rowwise", to_f32(w, self.name, "weight")))
            self._end_of(("weight",))
        return self.weight_cache[1]

    def forward(self, x, w, bias):
        """Y = X W^T + bias for X (..., K), W (N, K): (Y, the saved scales of the forward)."""
        if x.shape[-1] != w.shape[-1]:
            raise ValueError(f"{self.name}: input has K = {x.shape[-1]}, weight {tuple(w.shape)} needs K = {w.shape[-1]}")
        out_dtype = self.recipe.output_dtype(x.dtype)
        x2 = to_f32(x, self.name, "input")
        qx = self.quantize("input", "rowwise", x2)
        qw = self._weight(w)
        y = run_gemm(self.recipe, "fprop", self.arch, qx, qw, out_dtype, x.device, bias=self.recipe.bias(bias),
                     where=self.name)
        saved = torch.zeros(4, dtype=torch.float32)
        if qx.scale_used is not None:
            saved[0], saved[1] = float(qx.scale_used[0]), float(qx.scale_used[1])
        if qw.scale_used is not None:
            saved[2], saved[3] = float(qw.scale_used[0]), float(qw.scale_used[1])
        self._end_of(("input",) if self.inference else ("input", "weight"))
        return y.reshape(*x.shape[:-1], w.shape[0]), saved

    def backward(self, dy, x, w, saved, need_dx, need_dw):
        """(dX or None, dW or None) for dY (..., N)."""
        r = self.recipe
        dy2 = to_f32(dy, self.name, "grad_output")
        qdy = self.quantize("grad_output", "rowwise", dy2)
        sx = (np.float32(saved[0].item()), np.float32(saved[1].item())) if saved[0].item() else None
        sw = (np.float32(saved[2].item()), np.float32(saved[3].item())) if saved[2].item() else None
        dx = dw = None
        if need_dx:
            w2 = to_f32(w, self.name, "weight")
            qwt = self.quantize("weight", "columnwise", np.ascontiguousarray(w2.T), scale=sw)
            dx = run_gemm(r, "dgrad", self.arch, qdy, qwt, r.output_dtype(x.dtype), dy.device, where=self.name)
            dx = dx.reshape(*x.shape)
        if need_dw:
            x2 = to_f32(x, self.name, "input")
            if r.quantizer("grad_output").per_tensor:
                qdyt = qz.QOperand(qdy.fmt, np.ascontiguousarray(qdy.codes.T), scale_inv=qdy.scale_inv,
                                   source=np.ascontiguousarray(dy2.T))
            else:
                qdyt = self.quantize("grad_output", "columnwise", np.ascontiguousarray(dy2.T))
            qxt = self.quantize("input", "columnwise", np.ascontiguousarray(x2.T), scale=sx)
            dw = run_gemm(r, "wgrad", self.arch, qdyt, qxt, r.output_dtype(w.dtype), w.device, where=self.name)
        self._end_of(("grad_output",))
        return dx, dw

    def fake_out_dtype(self, x_dtype):
        return self.recipe.output_dtype(x_dtype)


assert set(OPERANDS) == {"fprop", "dgrad", "wgrad"}
