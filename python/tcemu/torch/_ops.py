"""The emulated GEMMs as torch.library custom operators with fake (meta) kernels, so that
torch.compile traces a converted model (the operators are opaque to it and run tcemu), and
their autograd formula: tcemu::linear (Y = X W^T + b, and the forward's saved scales) and
tcemu::linear_backward (dX, dW). The bias gradient is a column sum of dY in float32, outside
the tensor cores, as TransformerEngine's fused bgrad computes it."""

from typing import Optional, Tuple

import torch

from ._layer import FIRST_MICROBATCH_CODE

_LAYERS = {}


def register(layer):
    """Makes a _layer.Layer callable from the operators by its integer handle."""
    _LAYERS[layer.handle] = layer
    return layer.handle


def _layer(handle):
    try:
        return _LAYERS[handle]
    except KeyError:
        raise ValueError(f"tcemu::linear: no emulated layer with handle {handle}") from None


@torch.library.custom_op("tcemu::linear", mutates_args=())
def linear_op(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor], handle: int,
              first_microbatch: int = 0) -> Tuple[torch.Tensor, torch.Tensor]:
    return _layer(handle).forward(x, weight, bias, first_microbatch)


@linear_op.register_fake
def _linear_fake(x, weight, bias, handle, first_microbatch=0):
    dt = _layer(handle).fake_out_dtype(x.dtype)
    return x.new_empty((*x.shape[:-1], weight.shape[0]), dtype=dt), x.new_empty((5,), dtype=torch.float32)


@torch.library.custom_op("tcemu::linear_backward", mutates_args=())
def linear_backward_op(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor, saved: torch.Tensor, handle: int,
                       need_dx: bool, need_dw: bool) -> Tuple[torch.Tensor, torch.Tensor]:
    dx, dw = _layer(handle).backward(dy, x, weight, saved, need_dx, need_dw)
    dx = x.new_zeros(0) if dx is None else dx.to(x.dtype)
    dw = weight.new_zeros(0) if dw is None else dw.to(weight.dtype)
    return dx, dw


@linear_backward_op.register_fake
def _linear_backward_fake(dy, x, weight, saved, handle, need_dx, need_dw):
    return (torch.empty_like(x) if need_dx else x.new_empty(0)), (torch.empty_like(weight) if need_dw else weight.new_empty(0))


def _setup_context(ctx, inputs, output):
    x, weight, bias, handle = inputs[:4]
    ctx.save_for_backward(x, weight, output[1])
    ctx.handle = handle
    ctx.bias_dtype = None if bias is None else bias.dtype


def _backward(ctx, dy, _dsaved):
    x, weight, saved = ctx.saved_tensors
    need_dx, need_dw = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
    dx, dw = torch.ops.tcemu.linear_backward(dy.contiguous(), x, weight, saved, ctx.handle, need_dx, need_dw)
    db = None
    if ctx.bias_dtype is not None and ctx.needs_input_grad[2]:
        db = dy.reshape(-1, dy.shape[-1]).to(torch.float32).sum(0).to(ctx.bias_dtype)
    if need_dw and _layer(ctx.handle).fuse_wgrad:
        # TransformerEngine (module/linear.py): the gradient went into weight.main_grad; a weight
        # with grad_added_to_main_grad (Megatron's DDP) gets it set and a dummy gradient (TE's is
        # zeros with zero_out_wgrad, else uninitialized memory: tcemu gives zeros), else None.
        if hasattr(weight, "grad_added_to_main_grad"):
            weight.grad_added_to_main_grad = True
            dw = torch.zeros_like(weight)
        else:
            need_dw = False
    return (dx if need_dx else None), (dw if need_dw else None), db, None, None


torch.library.register_autograd("tcemu::linear", _backward, setup_context=_setup_context)


def linear(x, weight, bias, layer, is_first_microbatch=None):
    """Y = X W^T + bias through the emulated layer (autograd: dX, dW, db)."""
    for what, t in (("input", x), ("weight", weight), ("bias", bias)):
        if isinstance(t, torch.Tensor) and t.device.type not in ("cpu", "cuda"):
            raise ValueError(f"{layer.name}: {what} is a tensor on {t.device.type}; tcemu.torch takes CPU or CUDA tensors")
    return torch.ops.tcemu.linear(x, weight, bias, layer.handle, FIRST_MICROBATCH_CODE[is_first_microbatch])[0]
