"""tcemu.torch.autocast(recipe, arch=...): inside the block, F.linear, torch.matmul / the @
operator, torch.mm and torch.bmm of code that was not converted run on the emulated tensor
cores (a TorchFunctionMode, the shape of TransformerEngine's te.autocast(recipe=...)). Other
ops stay in torch; with an AMP recipe the block is also a torch.autocast region of that dtype
(device_type), so that they follow torch's autocast policy."""

import contextlib
import weakref

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from . import _ops
from ._layer import Layer
from .linear import check_recipe_arch
from .recipes import AMP, DelayedScaling

_MATMUL = {torch.matmul, torch.Tensor.matmul, torch.Tensor.__matmul__, torch.mm, torch.Tensor.mm, torch.bmm,
           torch.Tensor.bmm}

_TAKEN = (torch.float32, torch.bfloat16, torch.float16)


class _EmulationMode(TorchFunctionMode):
    def __init__(self, recipe, arch):
        super().__init__()
        self.recipe, self.arch = recipe, arch
        self.by_weight = weakref.WeakKeyDictionary()
        self.by_site = {}

    def _layer_for_weight(self, w):
        lay = self.by_weight.get(w)
        if lay is None:
            lay = Layer(self.recipe, self.arch, f"linear[{w.shape[0]}x{w.shape[1]}]#{len(self.by_weight)}")
            _ops.register(lay)
            self.by_weight[w] = lay
        return lay

    def _layer_for_site(self, kind, k):
        if isinstance(self.recipe, DelayedScaling):
            raise ValueError(f"tcemu.torch.autocast: {kind} of two activations under DelayedScaling has no tensor to "
                             f"keep an amax history for; use a stateless recipe (Float8CurrentScaling, MXFP8, NVFP4) "
                             f"or convert the module")
        key = (kind, k)
        lay = self.by_site.get(key)
        if lay is None:
            lay = self.by_site[key] = Layer(self.recipe, self.arch, f"{kind}[K={k}]")
            _ops.register(lay)
        return lay

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func is F.linear:
            x, w = args[0], args[1] if len(args) > 1 else kwargs["weight"]
            b = args[2] if len(args) > 2 else kwargs.get("bias")
            return _ops.linear(x, w, b, self._layer_for_weight(w))
        if func in _MATMUL:
            a, b = args[0], args[1] if len(args) > 1 else kwargs["other"]
            if a.dim() < 2 or b.dim() < 2 or not a.is_floating_point():
                return func(*args, **kwargs)
            for what, t in (("a", a), ("b", b)):
                if t.dtype not in _TAKEN:
                    # A ValueError: torch's @ (which reaches here as Tensor.matmul, as a.matmul(b)
                    # does) turns a TypeError into NotImplemented, "unsupported operand type(s)".
                    raise ValueError(f"tcemu.torch.autocast: matmul operand {what} has dtype {t.dtype}; tcemu.torch takes "
                              f"float32, bfloat16 or float16")
            lay = self._layer_for_site("matmul", a.shape[-1])
            if b.dim() == 2:
                return _ops.linear(a, b.transpose(0, 1), None, lay)
            a3 = a.reshape(-1, *a.shape[-2:]) if a.dim() > 2 else a.expand(b.shape[:-2] + a.shape).reshape(-1, *a.shape)
            b3 = b.reshape(-1, *b.shape[-2:]) if b.dim() > 2 else b
            if b3.shape[0] != a3.shape[0]:
                raise ValueError(f"tcemu.torch.autocast: batched matmul of {tuple(a.shape)} and {tuple(b.shape)} needs "
                                 f"equal batch shapes")
            out = torch.stack([_ops.linear(a3[i], b3[i].transpose(0, 1), None, lay) for i in range(a3.shape[0])])
            return out.reshape(*a.shape[:-1], b.shape[-1])
        return func(*args, **kwargs)


@contextlib.contextmanager
def autocast(recipe, *, arch, device_type="cpu", enabled=True):
    """Emulates the GEMMs of the block (see the module docstring). enabled=False runs the
    block unchanged."""
    check_recipe_arch(recipe, arch)
    if not isinstance(enabled, bool):
        raise TypeError(f"enabled: True or False, got {enabled!r}")
    if not isinstance(device_type, str) or device_type not in ("cpu", "cuda"):
        raise ValueError(f"device_type: {device_type!r}; the torch.autocast region of an AMP recipe is 'cpu' or 'cuda'")
    if not enabled or not recipe.emulated:
        yield
        return
    amp = torch.autocast(device_type=device_type, dtype=recipe.dtype) if isinstance(recipe, AMP) else contextlib.nullcontext()
    with amp, _EmulationMode(recipe, arch):
        yield
