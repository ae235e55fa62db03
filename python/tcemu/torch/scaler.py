"""tcemu.torch.GradScaler: torch.amp.GradScaler's interface (scale, unscale_, step, update,
get_scale) over tcemu.GradScaler, PyTorch's update rule and unscale arithmetic in tcemu's C++
core (docs/quantization.md, "Dynamic loss scaling"). A Recorder given to it logs the scale of
every step and the steps it skipped."""

import numpy as np
import torch

from .. import _quant


class GradScaler:
    def __init__(self, init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, *,
                 recorder=None):
        self._s = _quant.GradScaler(init_scale, growth_factor, backoff_factor, growth_interval)
        self._found_inf = None
        self._unscaled = False
        self.recorder = recorder

    def get_scale(self):
        return self._s.scale

    def scale(self, loss):
        """loss * scale (a torch multiply, as torch's GradScaler.scale)."""
        return loss * torch.tensor(self._s.scale, dtype=torch.float32, device=loss.device)

    def unscale_(self, optimizer):
        """Unscales the gradients of the optimizer's parameters in place (f32 gradients as
        float32, f16/bf16 as their codes) and records whether any was not finite."""
        if self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        found = False
        for group in optimizer.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if g.device.type != "cpu" or not g.is_contiguous():
                    raise ValueError("GradScaler: gradients must be contiguous CPU tensors")
                if g.dtype == torch.float32:
                    found |= bool(self._s._unscale_f32(g.numpy()))
                elif g.dtype in (torch.float16, torch.bfloat16):
                    fmt = "f16" if g.dtype == torch.float16 else "bf16"
                    found |= bool(self._s._unscale_codes(g.view(torch.int16).numpy().view(np.uint16), fmt))
                else:
                    raise TypeError(f"GradScaler: gradient dtype {g.dtype}")
        self._found_inf = found
        self._unscaled = True

    def step(self, optimizer):
        """optimizer.step() unless a gradient was not finite (then the step is skipped)."""
        if not self._unscaled:
            self.unscale_(optimizer)
        if not self._found_inf:
            optimizer.step()
        return None

    def update(self):
        if self._found_inf is None:
            raise RuntimeError("update(): no gradients were unscaled since the last update()")
        skipped = self._found_inf
        self._s.update(bool(self._found_inf))
        if self.recorder is not None:
            self.recorder.log_scaler(self._s.scale, skipped)
        self._found_inf, self._unscaled = None, False

    @property
    def growth_tracker(self):
        return self._s.growth_tracker
