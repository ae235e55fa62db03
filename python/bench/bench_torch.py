#!/usr/bin/env python3
"""A training step of the example model (examples/torch/train_lm.py) under emulated recipes:
the step time, the share spent in tcemu.gemm (the emulated GEMMs), in the quantizers and in
torch (everything else), the emulated multiply-adds per second inside tcemu.gemm, and the same
GEMMs replayed through tcemu.gemm alone (recorded with tcemu.torch.GemmRecorder), so that the
layer's overhead over the bare GEMMs shows. Prints a Markdown table (docs/performance.md).

    scripts/py python/bench/bench_torch.py [--steps 3 --d-model 128 --recipes te-mxfp8,te-nvfp4]
"""

import argparse
import copy
import os
import sys
import time

import torch

import tcemu
import tcemu.torch as tt
from tcemu.torch import _layer

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples", "torch"))
import train_lm  # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--ctx", type=int, default=64)
    p.add_argument("--recipes", default="bf16-amp,te-delayed-hybrid,te-mxfp8,te-nvfp4")
    p.add_argument("--threads", type=int, default=None)
    a = p.parse_args()
    torch.manual_seed(0)
    data = train_lm.make_data(50_000, 0)
    base = train_lm.LM(d=a.d_model, ctx=a.ctx)
    arch_of = {r[1]: r[2] for r in train_lm.RECIPES}
    for n in tt.recipe_names():  # the others: block-scaled FP4/MX on the B200, the rest on the H100
        arch_of.setdefault(n, "sm_100a" if ("mx" in n or "nvfp4" in n) else "sm_90a")
    print(f"d_model {a.d_model}, batch {a.batch} x ctx {a.ctx}, {a.steps} steps after one warm-up step, "
          f"{torch.get_num_threads()} torch threads, TCEMU_NUM_THREADS={os.environ.get('TCEMU_NUM_THREADS', '-')}")
    print("| recipe | arch | step s | tcemu.gemm | quantize | torch | GEMM MAC/s in step | same GEMMs alone |")
    print("|---|---|---|---|---|---|---|---|")
    for name in a.recipes.split(","):
        model = copy.deepcopy(base)
        tt.convert(model, tt.recipe(name, threads=a.threads), arch=arch_of[name])
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        it = train_lm.batches(data, a.steps + 1, a.batch, a.ctx, 0)

        def step(x, y):
            logits = model(x)
            loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
            opt.zero_grad()
            loss.backward()
            opt.step()

        step(*next(it))  # warm-up
        before = dict(_layer.TIMES)
        t0 = time.perf_counter()
        with tt.GemmRecorder() as rec:
            for x, y in it:
                step(x, y)
        total = time.perf_counter() - t0
        g = _layer.TIMES["gemm"] - before["gemm"]
        q = _layer.TIMES["quantize"] - before["quantize"]
        macs = _layer.TIMES["macs"] - before["macs"]
        t1 = time.perf_counter()
        for prob in rec.problems:
            f = tcemu.gemm_kblock if prob["fn"] == "gemm_kblock" else tcemu.gemm
            f(**{k: v for k, v in prob.items() if k != "fn"}, threads=a.threads)
        alone = time.perf_counter() - t1
        per = total / a.steps
        print(f"| {name} | {arch_of[name]} | {per:.3f} | {100 * g / total:.0f}% | {100 * q / total:.0f}% | "
              f"{100 * (total - g - q) / total:.0f}% | {macs / g / 1e9:.2f} G | {macs / alone / 1e9:.2f} G |")


if __name__ == "__main__":
    main()
