"""Trains a small transformer language model under several numerics recipes on emulated tensor
cores and compares them: f32 (torch), bf16 AMP and fp16 AMP with loss scaling on an emulated
H100 (sm_90a), TransformerEngine DelayedScaling HYBRID on the H100, MXFP8 and NVFP4 on an
emulated B200 (sm_100a). It writes the loss curves side by side, the per-layer report of the
last recipe's run (underflow, saturation, SQNR per GEMM) with a heat map, then runs FP8
inference of the model trained in f32 and reports the logit SQNR against bf16 inference.

The data is generated here: sentences of a small arithmetic language ("12+7=19;"), so the
model has something to learn and nothing is downloaded.

    scripts/py examples/torch/train_lm.py --steps 300 --out build/lm
    scripts/py examples/torch/train_lm.py --quick --out build/lm-quick   # what CI runs

Every GEMM of every nn.Linear, in every pass, is computed as the named GPU's tensor cores
compute it (tcemu.torch.convert); attention's batched matmuls and the other ops stay in torch.
"""

import argparse
import contextlib
import copy
import json
import math
import os
import sys
import time

import numpy as np
import torch
from torch import nn

import tcemu.torch as tt

VOCAB = "0123456789+=; "


def make_data(n_chars, seed):
    rng = np.random.default_rng(seed)
    parts = []
    total = 0
    while total < n_chars:
        a, b = int(rng.integers(0, 100)), int(rng.integers(0, 100))
        s = f"{a}+{b}={a + b};"
        parts.append(s)
        total += len(s)
    text = "".join(parts)[:n_chars]
    return torch.tensor([VOCAB.index(c) for c in text], dtype=torch.long)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, 4 * d)
        self.fc2 = nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class LM(nn.Module):
    def __init__(self, d=128, layers=2, heads=4, ctx=64):
        super().__init__()
        self.emb = nn.Embedding(len(VOCAB), d)
        self.pos = nn.Parameter(torch.zeros(ctx, d))
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, 32)  # the vocabulary padded to 32 logits (block-friendly K for dgrad)

    def forward(self, idx):
        x = self.emb(idx) + self.pos[: idx.shape[1]]
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))[..., : len(VOCAB)]


RECIPES = [  # (label, recipe name, arch, loss scaling)
    ("f32", "f32", "sm_90a", False),
    ("bf16 AMP (H100)", "bf16-amp", "sm_90a", False),
    ("fp16 AMP + loss scaling (H100)", "fp16-amp", "sm_90a", True),
    ("TE DelayedScaling HYBRID (H100)", "te-delayed-hybrid", "sm_90a", False),
    ("TE MXFP8 (B200)", "te-mxfp8", "sm_100a", False),
    ("TE NVFP4 (B200)", "te-nvfp4", "sm_100a", False),
]


def batches(data, steps, batch, ctx, seed):
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        i = torch.randint(0, data.numel() - ctx - 1, (batch,), generator=g)
        x = torch.stack([data[j:j + ctx] for j in i.tolist()])
        y = torch.stack([data[j + 1:j + ctx + 1] for j in i.tolist()])
        yield x, y


def train(base, recipe_name, arch, scaling, data, args, recorder=None):
    model = copy.deepcopy(base)
    recipe = tt.recipe(recipe_name)
    tt.convert(model, recipe, arch=arch)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = tt.GradScaler(init_scale=2.0 ** 12, growth_interval=50, recorder=recorder) if scaling else None
    losses, t0 = [], time.perf_counter()
    progress = tt.Progress(total=args.steps, label=recipe_name) if args.progress else contextlib.nullcontext()
    with progress:
        train_steps(model, opt, scaler, data, args, recorder, losses, progress)
    return model, losses, time.perf_counter() - t0


def train_steps(model, opt, scaler, data, args, recorder, losses, progress):
    for step, (x, y) in enumerate(batches(data, args.steps, args.batch, args.ctx, args.seed)):
        logits = model(x)
        loss = nn.functional.cross_entropy(logits.float().reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        if scaler is None:
            loss.backward()
            opt.step()
        else:
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        losses.append(float(loss.detach()))
        if recorder is not None:
            recorder.log_loss(float(loss.detach()))
            recorder.next_step()
        if args.progress:
            progress.step()


def sqnr_db(ref, got):
    ref, got = ref.double(), got.double()
    err = float(((ref - got) ** 2).sum())
    return math.inf if err == 0 else 10 * math.log10(float((ref ** 2).sum()) / err)


def plots(curves, report, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for label, losses in curves.items():
        ax.plot(range(1, len(losses) + 1), losses, label=label)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss")
    ax.set_title("Small transformer LM on emulated tensor cores")
    ax.legend(fontsize=8)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"loss_curves.{ext}"))
    plt.close(fig)

    layers = sorted(report["layers"])
    cols = [(g, s, k) for g in ("fprop", "dgrad", "wgrad") for s in ("a", "b") for k in ("flushed_to_zero", "saturated")]
    grid = np.array([[report["layers"][lay].get(g, {}).get("mean", {}).get(f"{s}.{k}", np.nan) or 0.0
                      for (g, s, k) in cols] for lay in layers], dtype=float)
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(layers) + 2))
    im = ax.imshow(grid * 100, aspect="auto", cmap="magma")
    ax.set_yticks(range(len(layers)), layers, fontsize=7)
    ax.set_xticks(range(len(cols)), [f"{g} {'A' if s == 'a' else 'B'}\n{'zero' if k[0] == 'f' else 'sat'}"
                                     for (g, s, k) in cols], fontsize=6)
    fig.colorbar(im, label="% of elements")
    ax.set_title("Underflow to zero and saturation per layer and GEMM operand")
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(out, f"heatmap.{ext}"))
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--ctx", type=int, default=64)
    p.add_argument("--d-model", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="build/lm")
    p.add_argument("--recipes", default=",".join(r[1] for r in RECIPES),
                   help="comma-separated recipe names among " + ", ".join(r[1] for r in RECIPES))
    p.add_argument("--quick", action="store_true", help="4 steps of a d=64 model (CI)")
    p.add_argument("--no-progress", dest="progress", action="store_false")
    args = p.parse_args(argv)
    if args.quick:
        args.steps, args.d_model, args.batch, args.ctx = 4, 64, 4, 32
    if args.steps < 1 or args.d_model % 32 or args.ctx * args.batch % 32:
        p.error("--steps >= 1, --d-model a multiple of 32, --ctx * --batch a multiple of 32 (the MXFP8 blocks)")
    chosen = args.recipes.split(",")
    unknown = [r for r in chosen if r not in {x[1] for x in RECIPES}]
    if unknown:
        p.error(f"--recipes: unknown {', '.join(unknown)}")
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    data = make_data(200_000, args.seed)
    base = LM(d=args.d_model, layers=args.layers, ctx=args.ctx)

    curves, summary, report = {}, {}, None
    models = {}
    for label, name, arch, scaling in RECIPES:
        if name not in chosen:
            continue
        rec = tt.Recorder() if name == chosen[-1] else None
        if rec is not None:
            with rec:
                model, losses, secs = train(base, name, arch, scaling, data, args, rec)
            report = rec.report()
            rec.to_json(os.path.join(args.out, f"report_{name}.json"))
        else:
            model, losses, secs = train(base, name, arch, scaling, data, args)
        models[name] = model
        curves[label] = losses
        summary[name] = {"label": label, "arch": arch, "final_loss": losses[-1], "seconds": secs,
                         "seconds_per_step": secs / len(losses)}
        print(f"{label:34s} final loss {losses[-1]:.4f}  ({secs / len(losses):.2f} s/step)")

    # FP8 inference of the model trained in f32 (or the first recipe trained), against bf16.
    trained = models.get("f32") or next(iter(models.values()))
    x, _ = next(batches(data, 1, args.batch, args.ctx, args.seed + 1))
    with torch.no_grad():
        bf16 = tt.convert(copy.deepcopy(trained), tt.recipe("bf16-amp"), arch="sm_90a", inference=True)(x)
        fp8 = tt.convert(copy.deepcopy(trained), tt.recipe("te-current"), arch="sm_90a", inference=True)(x)
    logit_sqnr = sqnr_db(bf16.float(), fp8.float())
    print(f"FP8 inference (TE current scaling, H100) vs bf16: logit SQNR {logit_sqnr:.1f} dB")
    summary["fp8_inference_logit_sqnr_db"] = logit_sqnr
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    plots(curves, report, args.out)
    print(f"wrote {args.out}/loss_curves.png, heatmap.png, summary.json, report_{chosen[-1]}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
