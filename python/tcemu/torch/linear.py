"""Module swap (the shape of torchao's quantize_ / convert_to_float8_training):
tcemu.torch.convert(model, recipe, arch=...) replaces the model's nn.Linear modules in place
by EmulatedLinear, which keeps the same parameters and runs its three GEMMs on the emulated
tensor cores of `arch` as the recipe says."""

import inspect

import torch
from torch import nn

from . import _ops
from ._instr import ARCHES
from ._layer import Layer
from .recipes import Recipe


class EmulatedLinear(nn.Linear):
    """An nn.Linear whose GEMMs are emulated (same weight and bias Parameters, same state
    dict). .tcemu_layer holds the recipe, arch and per-layer state."""

    @classmethod
    def from_linear(cls, mod, recipe, arch, name, inference=False, fuse_wgrad_accumulation=False):
        new = cls.__new__(cls)
        nn.Module.__init__(new)
        new.in_features, new.out_features = mod.in_features, mod.out_features
        new.weight = mod.weight
        new.bias = mod.bias
        new.training = mod.training
        for k, v in mod.__dict__.items():  # hooks and other attributes a user set
            if k not in new.__dict__ and not k.startswith("_"):
                new.__dict__[k] = v
        new._forward_hooks, new._forward_pre_hooks = mod._forward_hooks, mod._forward_pre_hooks
        new._backward_hooks = mod._backward_hooks
        new.__dict__.pop("tcemu_layer", None)
        new.tcemu_layer = Layer(recipe, arch, name, inference=inference, fuse_wgrad_accumulation=fuse_wgrad_accumulation)
        _ops.register(new.tcemu_layer)
        return new

    def forward(self, x, is_first_microbatch=None):
        """is_first_microbatch (TransformerEngine's forward argument): with
        fuse_wgrad_accumulation, True makes this micro-batch's wgrad GEMM overwrite
        weight.main_grad instead of accumulating into it (TE's FP8 weight cache across
        micro-batches is not modelled: the weight is quantized at every forward)."""
        if is_first_microbatch is not None and not isinstance(is_first_microbatch, bool):
            raise TypeError(f"is_first_microbatch: None, True or False, got {is_first_microbatch!r}")
        if not self.tcemu_layer.recipe.emulated:
            return nn.functional.linear(x, self.weight, self.bias)
        if self.tcemu_layer.inference:
            with torch.no_grad():
                return _ops.linear(x, self.weight, self.bias, self.tcemu_layer, is_first_microbatch)
        return _ops.linear(x, self.weight, self.bias, self.tcemu_layer, is_first_microbatch)

    def extra_repr(self):
        lay = self.tcemu_layer
        return (f"{super().extra_repr()}, recipe={lay.recipe!r}, arch={lay.arch}" + (", inference" if lay.inference else "")
                + (", fuse_wgrad_accumulation" if lay.fuse_wgrad else ""))


def check_recipe_arch(recipe, arch):
    if not isinstance(recipe, Recipe):
        raise TypeError(f"recipe: a tcemu.torch recipe (tcemu.torch.recipe(name) or a recipe class) is required, "
                        f"got {type(recipe).__name__}")
    if not isinstance(arch, str):
        raise TypeError(f"arch: an architecture name such as 'sm_90a' is required, got {type(arch).__name__}")
    if arch not in ARCHES:
        raise ValueError(f"arch: '{arch}' (tcemu.torch's recipes run on {', '.join(ARCHES)})")


def convert(model, recipe, *, arch, filter_fn=None, inference=False, fuse_wgrad_accumulation=False):
    """Replaces, in place, every nn.Linear of `model` (or those for which
    filter_fn(module, qualified_name) is true) by an EmulatedLinear of the recipe on `arch`,
    and returns the model. inference=True: fprop only, weights quantized once per weight
    version (FP8 inference). fuse_wgrad_accumulation=True: TransformerEngine's option of that
    name: each weight has a main_grad (float32 or bfloat16, set by the user, as Megatron does)
    and the wgrad GEMM accumulates into it in its epilogue (beta = 1, C = main_grad), instead
    of producing weight.grad. The parameters, the state dict and every other module are
    untouched; an optimizer built on the model's parameters keeps working. An EmulatedLinear
    is converted again (a new recipe, arch or mode, and fresh per-layer state)."""
    if not isinstance(model, nn.Module):
        raise TypeError(f"model: a torch.nn.Module is required, got {type(model).__name__}")
    check_recipe_arch(recipe, arch)
    if not isinstance(inference, bool):
        raise TypeError(f"inference: True or False, got {inference!r}")
    if not isinstance(fuse_wgrad_accumulation, bool):
        raise TypeError(f"fuse_wgrad_accumulation: True or False, got {fuse_wgrad_accumulation!r}")
    if fuse_wgrad_accumulation and inference:
        raise ValueError("fuse_wgrad_accumulation: inference runs no wgrad GEMM")
    if filter_fn is not None and not callable(filter_fn):
        raise TypeError("filter_fn: a callable (module, name) -> bool is required")
    if filter_fn is not None:
        try:
            inspect.signature(filter_fn).bind(model, "")
        except TypeError as err:
            raise TypeError(f"filter_fn: it is called as filter_fn(module, name), which its signature refuses ({err})") from None
        except ValueError:  # no signature to read (some builtins): called as it is
            pass
    if isinstance(model, nn.Linear) and not isinstance(model, EmulatedLinear):
        raise TypeError("model: an nn.Linear itself cannot be replaced in place; convert its parent module, or use "
                        "EmulatedLinear.from_linear")
    todo = []
    for name, mod in model.named_modules():
        for child_name, child in mod.named_children():
            full = f"{name}.{child_name}" if name else child_name
            swappable = type(child) is nn.Linear or isinstance(child, EmulatedLinear)
            if swappable and (filter_fn is None or filter_fn(child, full)):
                todo.append((mod, child_name, child, full))
    for parent, child_name, child, full in todo:
        setattr(parent, child_name, EmulatedLinear.from_linear(child, recipe, arch, full, inference=inference,
                                                                fuse_wgrad_accumulation=fuse_wgrad_accumulation))
    return model
