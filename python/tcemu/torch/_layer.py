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
progress_hooks = []  # active tcemu.torch.Progress lines
# TransformerEngine's is_first_microbatch as one number: the custom operator's int argument and
# the 5th value of the forward's saved tensor.
FIRST_MICROBATCH_CODE = {None: 0, True: 1, False: 2}
FIRST_MICROBATCH = {v: k for k, v in FIRST_MICROBATCH_CODE.items()}
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
    (tcemu.dask.map_gemms(client, rec.problems)) or to save as golden inputs. A problem is the
    tcemu GEMM alone: what torch does to its output afterwards (torchao's rowwise and NVFP4
    post-scaling, torchao's bias) is not part of it."""

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


def _pad_k(a, b, k_instr):
    """A and B (rows x K codes) with K padded by zero codes to a multiple of the instruction's K."""
    pad = (-a.shape[1]) % k_instr
    if pad:
        a, b = np.pad(a, ((0, 0), (0, pad))), np.pad(b, ((0, 0), (0, pad)))
    return a, b


def _gemm_args(a, b, kw, c, beta, where):
    """The positional operands of tcemu.gemm / gemm_kblock (B as K x N), with C and beta in the
    epilogue when c is given (main_grad)."""
    args = {"a": a, "b": np.ascontiguousarray(b.T)}
    if c is not None:
        args["c"] = to_f32(c, where, "main_grad")
        kw["beta"] = beta
    return args


def _gemm_call(recipe, device, fn, args, kw, where, role, macs):
    """One tcemu GEMM call: recorded (GemmRecorder), timed, on the recipe's device."""
    dev = recipe.emulation_device(device)
    for rec in _gemm_recorders:
        rec.add({"fn": fn.__name__, **args, **kw}, where, role)
    t0 = time.perf_counter()
    extra = {"threads": recipe.threads} if dev == "cpu" else {"device": dev}
    d = fn(*args.values(), **kw, **extra)
    TIMES["gemm"] += time.perf_counter() - t0
    TIMES["macs"] += macs
    for p in progress_hooks:
        p.gemm_done()
    return d


def run_gemm(recipe, role, arch, qa, qb, out_dtype, device, *, bias=None, where="layer", c=None, beta=0.0,
             in_dtype=None):
    """D = A B^T of two QOperands through the recipe's instruction for `role`, with the
    epilogue of the recipe's library (per-tensor scale_inv factors as a_scale / b_scale or
    NVFP4's alpha, bias, the output conversion; tcemu.gemm's `fold` order unless the recipe
    names another), as a torch tensor of out_dtype (M x N). K is padded with zero codes to a
    multiple of the instruction's K, as the kernels' zero fill of out-of-bounds tiles does.
    c, beta: an M x N float32 / bfloat16 tensor the epilogue adds as beta * C (TransformerEngine's
    accumulation into main_grad), out_dtype then being c's dtype. in_dtype: the dtype unquantized
    ('hp') operands are multiplied in (default out_dtype)."""
    from .._gemm import gemm  # tcemu.gemm: the GEMM plan and its epilogue (docs/gemm.md)

    if qa.scaling == "kblock":
        return _run_kblock(recipe, role, arch, qa, qb, out_dtype, device, bias, where)
    if qa.scaling == "hp":
        return _run_high_precision(recipe, role, arch, qa, qb, out_dtype, device, where, c=c, beta=beta,
                                   in_dtype=in_dtype)
    ins = recipe.instr(role, arch, qa, qb)
    sa, sb = qa.scales, qb.scales
    k = qa.codes.shape[1]
    a, b = _pad_k(qa.codes, qb.codes, ins.K)
    pad = a.shape[1] - k
    if pad:
        if sa is not None:
            nb = pad // qa.block
            one = _ONE_SCALE[ins.stype]
            sa = np.pad(sa, ((0, 0), (0, nb)), constant_values=one)
            sb = np.pad(sb, ((0, 0), (0, nb)), constant_values=one)
    kw = ins.kwargs()
    if sa is not None:
        kw.update(scale_a=sa, scale_b=np.ascontiguousarray(sb.T))
    post = None  # a factor torch applies to the GEMM's output (torchao), in that output's dtype
    gemm_dtype = out_dtype
    if "rowwise" in (qa.scaling, qb.scaling):
        # torchao rowwise (float8_ops.py): a tensorwise partner's scale repeated per row / column,
        # the GEMM output bf16; with fast accumulation the rowwise kernel applies the scales, else
        # the tensorwise kernel runs with unit scales and torch multiplies by a_inv * b_inv.
        ra = np.array(np.broadcast_to(np.asarray(qa.scale_inv, np.float32), (a.shape[0],)))
        rb = np.array(np.broadcast_to(np.asarray(qb.scale_inv, np.float32), (b.shape[0],)))
        gemm_dtype = torch.bfloat16
        if recipe.fast_accumulation.get(role, True):
            kw.update(a_scale=ra, b_scale=rb)
            if recipe.rowwise_kernel(arch) == "cutlass":
                kw["epilogue"] = "sequential"  # f8f8bf16_rowwise: bf16(bias + w[n] * (x[m] * acc))
        else:
            post = torch.from_numpy(ra).reshape(-1, 1) * torch.from_numpy(rb).reshape(1, -1)
    elif qa.scale_inv is not None:
        kw.update(a_scale=np.float32(qa.scale_inv), b_scale=np.float32(qb.scale_inv))
    row_scaled = qa.scaling == "nvfp4" and recipe.nvfp4_epilogue == "te" and (qa.row_scaled or qb.row_scaled)
    if row_scaled:
        # TE's row-scaled NVFP4 GEMM (cpp_extensions/gemm.py general_gemm): both amaxes set to 1,
        # no bias, f32 output, beta 0; the amaxes and the bias are applied below in torch.
        kw["alpha"] = _tcemu.te_nvfp4_gemm_alpha(1.0, 1.0, 1.0, qa.e4m3_max, qb.e4m3_max)
    elif qa.scaling == "nvfp4":
        if recipe.nvfp4_epilogue == "te":
            kw["alpha"] = _tcemu.te_nvfp4_gemm_alpha(1.0, qa.amax, qb.amax, qa.e4m3_max, qb.e4m3_max)
        else:  # torchao _addmm_nvfp4_dispatch: result * (pts_a * pts_b).to(orig_dtype)
            pts = torch.tensor(np.float32(qa.global_scale)) * torch.tensor(np.float32(qb.global_scale))
            post = pts.to(out_dtype)
    out_type = _OUT_TYPE[gemm_dtype]
    if row_scaled:
        return _row_scaled_epilogue(recipe, role, arch, a, b, kw, qa, qb, out_dtype, device, bias, where, c, beta, k,
                                    ins)
    if bias is not None:
        kw["bias"] = bias.detach().cpu()
    if recipe.epilogue is not None and "epilogue" not in kw:
        kw["epilogue"] = recipe.epilogue
    kw.update(promote_every=recipe.promotion(role, arch), out_type=out_type)
    d = _gemm_call(recipe, device, gemm, _gemm_args(a, b, kw, c, beta, where), kw, where, role,
                   a.shape[0] * b.shape[0] * k)
    out = from_codes(d, out_type, torch.device("cpu"))
    if post is not None:
        out = out * post if post.dim() == 0 else out.mul_(post)
    if out.dtype != out_dtype:
        out = out.to(out_dtype)
    out = out if device.type == "cpu" else out.to(device)
    _stats.record(where, role, qa, qb, out, bias, ins)
    return out


def _row_scaled_epilogue(recipe, role, arch, a, b, kw, qa, qb, out_dtype, device, bias, where, c, beta, k, ins):
    """The rest of TE's row-scaled NVFP4 GEMM (cpp_extensions/gemm.py at d0067d0): the f32
    GEMM's output times the row scales (A's amax per row of D, or its one amax) and the column
    scales (B's), folded into one factor when either side is one value (`out *= row * col` or
    `out *= col * row`) and applied one after the other otherwise, all f32; then `+ bias` in f32,
    then the output dtype; with C (main_grad), `C + out.to(C.dtype)` (add_) or the copy."""
    from .._gemm import gemm

    if recipe.epilogue is not None and "epilogue" not in kw:
        kw["epilogue"] = recipe.epilogue
    kw.update(promote_every=recipe.promotion(role, arch), out_type="f32")
    d = _gemm_call(recipe, device, gemm, _gemm_args(a, b, kw, None, 0.0, where), kw, where, role,
                   a.shape[0] * b.shape[0] * k)
    out = from_codes(d, "f32", torch.device("cpu"))
    rows = torch.from_numpy(np.asarray(qa.amax, np.float32).reshape(-1, 1))
    cols = torch.from_numpy(np.asarray(qb.amax, np.float32).reshape(1, -1))
    if cols.numel() == 1:
        out.mul_(rows * cols)
    elif rows.numel() == 1:
        out.mul_(cols * rows)
    else:
        out.mul_(rows)
        out.mul_(cols)
    if bias is not None:
        out.add_(bias.detach().cpu().to(torch.float32))
    if c is not None:
        cc = c.detach().cpu()
        out = cc + out.to(cc.dtype) if beta else out.to(cc.dtype)
    elif out.dtype != out_dtype:
        out = out.to(out_dtype)
    out = out if device.type == "cpu" else out.to(device)
    _stats.record(where, role, qa, qb, out, bias, ins)
    return out


def _run_high_precision(recipe, role, arch, qa, qb, out_dtype, device, where, c=None, beta=0.0, in_dtype=None):
    """A GEMM of unquantized operands (torchao's DISABLED casts, TE's backward_override): in
    bf16 / f16 the tensor-core GEMM of that dtype with f32 accumulation (the float32 values are
    rounded to it, RNE); in float32 torch's own matmul (on a GPU a cuBLAS SGEMM, not a
    tensor-core GEMM: not emulated). in_dtype: the operands' dtype (default out_dtype); c, beta:
    as run_gemm."""
    from .._convert import convert
    from .._gemm import gemm

    in_dtype = out_dtype if in_dtype is None else in_dtype
    if in_dtype == torch.float32:
        out = torch.from_numpy(qa.codes) @ torch.from_numpy(qb.codes).T
        if c is not None and beta:
            out = out + c.detach().cpu().to(torch.float32)
        return out if device.type == "cpu" else out.to(device)
    fmt = _OUT_TYPE[in_dtype]
    qa = qz.QOperand(fmt, convert(qa.codes.view(np.uint32), "f32", fmt), source=qa.source)
    qb = qz.QOperand(fmt, convert(qb.codes.view(np.uint32), "f32", fmt), source=qb.source)
    ins = recipe.instr(role, arch, qa, qb)
    k = qa.codes.shape[1]
    a, b = _pad_k(qa.codes, qb.codes, ins.K)
    kw = ins.kwargs()
    out_type = _OUT_TYPE[out_dtype]
    kw.update(out_type=out_type)
    d = _gemm_call(recipe, device, gemm, _gemm_args(a, b, kw, c, beta, where), kw, where, role,
                   a.shape[0] * b.shape[0] * k)
    out = from_codes(d, out_type, device)
    _stats.record(where, role, qa, qb, out, None, ins)
    return out


def _run_kblock(recipe, role, arch, qa, qb, out_dtype, device, bias, where):
    """Blockwise FP8: tcemu.gemm_kblock on the arch's plain FP8 instruction (K padded with zero
    codes to the instruction's K, which stays inside the last 128-long block)."""
    from .._gemm_kblock import gemm_kblock

    ins = recipe.instr(role, arch, qa, qb)
    a, b = _pad_k(qa.codes, qb.codes, ins.K)
    out_type = _OUT_TYPE[out_dtype]
    kw = ins.kwargs()
    kw.pop("dtype", None)
    bias32 = None if bias is None else np.ascontiguousarray(bias.detach().cpu().to(torch.float32).numpy())
    kw.update(scale_a=qa.scales, scale_b=np.ascontiguousarray(qb.scales.T), bias=bias32, out_type=out_type)
    d = _gemm_call(recipe, device, gemm_kblock, _gemm_args(a, b, kw, None, 0.0, where), kw, where, role,
                   a.shape[0] * b.shape[0] * a.shape[1])
    out = from_codes(d, out_type, device)
    _stats.record(where, role, qa, qb, out, bias, ins)
    return out


class Layer:
    """The emulation state of one linear layer (or one call site of an autocast GEMM): the
    recipe, arch and name, and what persists across steps."""

    def __init__(self, recipe, arch, name, inference=False, fuse_wgrad_accumulation=False):
        self.recipe, self.arch, self.name, self.inference = recipe, arch, name, inference
        self.fuse_wgrad = fuse_wgrad_accumulation
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
        q = self.recipe.quantizer_for(tensor, usage)
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

    def forward(self, x, w, bias, first_microbatch=0):
        """Y = X W^T + bias for X (..., K), W (N, K): (Y, the saved scales of the forward and
        first_microbatch, is_first_microbatch's FIRST_MICROBATCH_CODE: 5 float32 values)."""
        if x.shape[-1] != w.shape[-1]:
            raise ValueError(f"{self.name}: input has K = {x.shape[-1]}, weight {tuple(w.shape)} needs K = {w.shape[-1]}")
        r = self.recipe
        out_dtype = r.output_dtype(x.dtype)
        x2 = to_f32(x, self.name, "input")
        qx = self.quantize("input", "rowwise", x2)
        qw = self._weight(w)
        y = run_gemm(r, "fprop", self.arch, qx, qw, out_dtype, x.device,
                     bias=r.bias(bias) if r.bias_in_epilogue else None, where=self.name)
        if bias is not None and not r.bias_in_epilogue:
            y = y + bias.detach().to(y.dtype)  # torchao: output + self.bias.to(output.dtype), in torch
        saved = torch.zeros(5, dtype=torch.float32)
        if qx.scale_used is not None:
            saved[0], saved[1] = float(qx.scale_used[0]), float(qx.scale_used[1])
        if qw.scale_used is not None:
            saved[2], saved[3] = float(qw.scale_used[0]), float(qw.scale_used[1])
        saved[4] = first_microbatch
        self._end_of(("input",) if self.inference else ("input", "weight"))
        return y.reshape(*x.shape[:-1], w.shape[0]), saved

    def _main_grad(self, w, first_microbatch):
        """TransformerEngine's fuse_wgrad_accumulation (module/linear.py): the wgrad GEMM writes
        into weight.main_grad, accumulating (beta = 1) unless is_first_microbatch is True or
        the weight has overwrite_main_grad set: (main_grad, beta)."""
        mg = getattr(w, "main_grad", None)
        if not isinstance(mg, torch.Tensor):
            raise ValueError(f"{self.name}: fuse_wgrad_accumulation=True needs weight.main_grad, a preallocated "
                             f"float32 (or bfloat16) tensor of the weight's shape {tuple(w.shape)}, as in "
                             f"TransformerEngine")
        if tuple(mg.shape) != tuple(w.shape) or mg.dtype not in (torch.float32, torch.bfloat16):
            raise ValueError(f"{self.name}: weight.main_grad has shape {tuple(mg.shape)} and dtype {mg.dtype}; "
                             f"{tuple(w.shape)} float32 or bfloat16 is required")
        accumulate = first_microbatch is not True and not getattr(w, "overwrite_main_grad", False)
        return mg, (1.0 if accumulate else 0.0)

    def _wgrad(self, w, first, out_dtype, gemm):
        """dW = gemm(out_dtype, c, beta); with fuse_wgrad_accumulation it is gemm(main_grad's
        dtype, main_grad, beta) written into weight.main_grad, and None is returned."""
        if not self.fuse_wgrad:
            return gemm(out_dtype, None, 0.0)
        mg, beta = self._main_grad(w, first)
        with torch.no_grad():
            mg.copy_(gemm(mg.dtype, mg, beta))
        return None

    def _hp_operand(self, tensor, t, override):
        """An operand of the backward GEMMs under backward_override: the original tensor
        (high_precision) or its forward rowwise quantization dequantized (dequantized), as
        float32 values (rounded to the activations' dtype by the GEMM)."""
        v = to_f32(t, self.name, tensor)
        if override == "dequantized":
            q = self.quantize(tensor, "rowwise", v)
            if q.quantized is not None:
                from .._quant import dequantize
                v = dequantize(q.quantized, threads=self.recipe.threads, dequant=self.recipe.dequant_rule)
            else:
                v = q.dequantized().astype(np.float32)
        return v

    def _backward_override(self, dy, x, w, first, need_dx, need_dw, override):
        """TransformerEngine's backward_override (module/linear.py): no quantization in the
        backward pass; dgrad and wgrad are GEMMs in the activations' dtype of dY and the
        original (or dequantized) weight and input."""
        r, dt = self.recipe, x.dtype
        dy2 = to_f32(dy, self.name, "grad_output")
        hp = lambda v: qz.QOperand("hp", np.ascontiguousarray(v, np.float32), scaling="hp", source=v)  # noqa: E731
        dx = dw = None
        if need_dx:
            wv = self._hp_operand("weight", w, override)
            dx = _run_high_precision(r, "dgrad", self.arch, hp(dy2), hp(wv.T), dt, dy.device, self.name).reshape(*x.shape)
        if need_dw:
            qa, qb = hp(dy2.T), hp(self._hp_operand("input", x, override).T)
            dw = self._wgrad(w, first, dt, lambda odt, c, beta: _run_high_precision(
                r, "wgrad", self.arch, qa, qb, odt, w.device, self.name, c=c, beta=beta, in_dtype=dt))
        return dx, dw

    def backward(self, dy, x, w, saved, need_dx, need_dw):
        """(dX or None, dW or None) for dY (..., N). With fuse_wgrad_accumulation the weight
        gradient goes into weight.main_grad and dW is None."""
        r = self.recipe
        first = FIRST_MICROBATCH[int(saved[4].item())]
        if r.backward_override is not None:
            return self._backward_override(dy, x, w, first, need_dx, need_dw, r.backward_override)
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
            r.check_columnwise("input", x, self.name)
            x2 = to_f32(x, self.name, "input")
            if r.quantizer_for("grad_output", "columnwise").per_tensor and \
                    r.quantizer_for("grad_output", "columnwise") is r.quantizer_for("grad_output", "rowwise"):
                qdyt = qz.QOperand(qdy.fmt, np.ascontiguousarray(qdy.codes.T), scale_inv=qdy.scale_inv,
                                   source=np.ascontiguousarray(dy2.T))
            else:
                qdyt = self.quantize("grad_output", "columnwise", np.ascontiguousarray(dy2.T))
            qxt = self.quantize("input", "columnwise", np.ascontiguousarray(x2.T), scale=sx)
            if self.fuse_wgrad and qdyt.scaling == "kblock":
                raise ValueError(f"{self.name}: fuse_wgrad_accumulation with blockwise FP8 (Float8BlockScaling) is "
                                 f"not modelled: where cuBLASLt adds C in its block-scaled GEMM is not public")
            dw = self._wgrad(w, first, r.output_dtype(w.dtype), lambda odt, c, beta: run_gemm(
                r, "wgrad", self.arch, qdyt, qxt, odt, w.device, where=self.name, c=c, beta=beta, in_dtype=x.dtype))
        self._end_of(("grad_output",))
        return dx, dw

    def fake_out_dtype(self, x_dtype):
        return self.recipe.output_dtype(x_dtype)


assert set(OPERANDS) == {"fprop", "dgrad", "wgrad"}
