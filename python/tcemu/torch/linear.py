"""Module swap (the shape of torchao's quantize_ / convert_to_float8_training):
tcemu.torch.convert(model, recipe, arch=...) replaces the model's nn.Linear modules in place
by EmulatedLinear, which keeps the same parameters and runs its three GEMMs on the emulated
tensor cores of `arch` as the recipe says."""

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
    def from_linear(cls, mod, recipe, arch, name, inference=False):
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
        new.tcemu_layer = Layer(recipe, arch, name, inference=inference)
        _ops.register(new.tcemu_layer)
        return new

    def forward(self, x):
        if not self.tcemu_layer.recipe.emulated:
            return nn.functional.linear(x, self.weight, self.bias)
        if self.tcemu_layer.inference:
            with torch.no_grad():
                return _ops.linear(x, self.weight, self.bias, self.tcemu_layer)
        return _ops.linear(x, self.weight, self.bias, self.tcemu_layer)

    def extra_repr(self):
        lay = self.tcemu_layer
        return f"{super().extra_repr()}, recipe={lay.recipe!r}, arch={lay.arch}" + (", inference" if lay.inference else "")


def check_recipe_arch(recipe, arch):
    if not isinstance(recipe, Recipe):
        raise TypeError(f"recipe: a tcemu.torch recipe (tcemu.torch.recipe(name) or a recipe class) is required, "
                        f"got {type(recipe).__name__}")
    if not isinstance(arch, str):
        raise TypeError(f"arch: an architecture name such as 'sm_90a' is required, got {type(arch).__name__}")
    if arch not in ARCHES:
        raise ValueError(f"arch: '{arch}' (tcemu.torch's recipes run on {', '.join(ARCHES)})")


def convert(model, recipe, *, arch, filter_fn=None, inference=False):
    """Replaces, in place, every nn.Linear of `model` (or those for which
    filter_fn(module, qualified_name) is true) by an EmulatedLinear of the recipe on `arch`,
    and returns the model. inference=True: fprop only, weights quantized once per weight
    version (FP8 inference). The parameters, the state dict and every other module are
    untouched; an optimizer built on the model's parameters keeps working. An EmulatedLinear
    is converted again (a new recipe, arch or mode, and fresh per-layer state)."""
    check_recipe_arch(recipe, arch)
    if filter_fn is not None and not callable(filter_fn):
        raise TypeError("filter_fn: a callable (module, name) -> bool is required")
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
        setattr(parent, child_name, EmulatedLinear.from_linear(child, recipe, arch, full, inference=inference))
    return model
