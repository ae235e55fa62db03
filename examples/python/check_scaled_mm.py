#!/usr/bin/env python3
"""Checks torch._scaled_mm (cuBLASLt's FP8 GEMM) against tcemu.mma / tcemu.gemm, bit for bit.

Random e4m3 operands (mixed distributions: normal, wide, subnormal) go through
torch._scaled_mm with unit scales and an f32 output, once with use_fast_accum=False and once
with True. On Hopper (sm_90) cuBLASLt runs wgmma.m64nNk32.f32.e4m3.e4m3; on Ada (sm_89)
mma.sync.m16n8k32.f32.e4m3.e4m3. The K schedules tried (docs/gemm.md): one chain with several
FP32 promotion intervals (promote_every = 0: plain wgmma chaining; n: the partial sum added
into an f32 accumulator every n instructions), and cuBLASLt's split-K plan as bitequiv
reconstructs it (s = 2 .. 16, grain 128). The script reports which reproduces each output and,
for the others, the first differences.

Then the epilogue: _scaled_mm with per-tensor scales (0.3, 1.7), a bf16 bias and a bf16
output, and with rowwise scales (M and N values) and a bf16 output, against tcemu.gemm with
each epilogue order (fold, cutlass-sm90, sequential) on the K schedules found above: which
order torch's cuBLASLt (or CUTLASS, for rowwise on some builds) applies is not public, this
measures it.

Skips cleanly (exit 0, a line saying why) without torch >= 2.1, without a CUDA GPU, or on a
GPU this script has no instruction mapping for. Usage:

    PYTHONPATH=build/release/python python3 examples/python/check_scaled_mm.py [--m 256 --n 256 --k 1024]
"""

import argparse
import sys

import numpy as np

import tcemu


def skip(why):
    print(f"check_scaled_mm: skipped: {why}")
    sys.exit(0)


def torch_or_skip():
    try:
        import torch
    except ImportError:
        skip("torch is not importable")
    major, minor = (int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    if (major, minor) < (2, 1) or not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        skip(f"torch {torch.__version__}: torch._scaled_mm and float8 need torch >= 2.1")
    if not torch.cuda.is_available():
        skip("no CUDA GPU")
    return torch


INSTRUCTIONS = {
    # (major, minor) -> (arch, spelling of the instruction cuBLASLt's FP8 kernels use)
    (9, 0): ("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"),
    (8, 9): ("sm_89", "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"),
}


def random_e4m3(rng, shape):
    """e4m3 codes: normal values, a wide spread of binades and some subnormals (no NaN)."""
    v = rng.standard_normal(shape)
    wide = rng.random(shape) < 0.3
    v[wide] *= np.exp2(rng.integers(-8, 8, int(wide.sum())))
    sub = rng.random(shape) < 0.05
    v[sub] = rng.integers(-7, 8, int(sub.sum())) * 2.0 ** -9
    return tcemu.encode(v, "e4m3", satfinite=True)


def scaled_mm(torch, a_codes, b_codes, fast_accum):
    dev = torch.device("cuda")
    a = torch.from_numpy(a_codes).to(dev).view(torch.float8_e4m3fn)
    # cuBLASLt wants B column-major: the transpose of a row-major N x K tensor.
    b = torch.from_numpy(np.ascontiguousarray(b_codes.T)).to(dev).view(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device=dev)
    out = torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.float32, use_fast_accum=fast_accum)
    if isinstance(out, tuple):  # torch 2.1 - 2.3 return (out, amax)
        out = out[0]
    return out.cpu().numpy().view(np.uint32)


def scaled_mm_epilogue(torch, a_codes, b_codes, fast_accum, scale_a, scale_b, bias=None):
    """_scaled_mm with f32 scales (0-d: per tensor; M x 1 and 1 x N: rowwise), bf16 output."""
    dev = torch.device("cuda")
    a = torch.from_numpy(a_codes).to(dev).view(torch.float8_e4m3fn)
    b = torch.from_numpy(np.ascontiguousarray(b_codes.T)).to(dev).view(torch.float8_e4m3fn).t()
    sa = torch.from_numpy(np.asarray(scale_a, np.float32)).to(dev)
    sb = torch.from_numpy(np.asarray(scale_b, np.float32)).to(dev)
    kw = {} if bias is None else {"bias": torch.from_numpy(bias.view(np.int16)).view(torch.bfloat16).to(dev)}
    out = torch._scaled_mm(a, b, scale_a=sa, scale_b=sb, out_dtype=torch.bfloat16, use_fast_accum=fast_accum, **kw)
    if isinstance(out, tuple):
        out = out[0]
    return out.cpu().view(torch.int16).numpy().view(np.uint16)


def k_schedules(K):
    """name -> tcemu.gemm keyword arguments of each K schedule tried."""
    out = {f"promote_every={pe}": {"promote_every": pe} for pe in (0, 1, 2, 4, 8)}
    seen = set()
    for s in range(2, 17):
        chunks = tuple(k for k in tcemu.split_k_chunks(K, s, 128) if k)
        if len(chunks) > 1 and chunks not in seen:
            seen.add(chunks)
            out[f"cuBLASLt split-K s={s} ({'+'.join(map(str, chunks))})"] = {"plan": "cublaslt-bitequiv", "split_k": s}
    return out


def first_differences(d, ref, n=5):
    idx = np.argwhere(d != ref)[:n]
    lines = []
    for r, c in idx:
        lines.append(f"    ({r}, {c}): GPU 0x{int(d[r, c]):08x} ({tcemu.decode(int(d[r, c]), 'f32')!r}), "
                     f"tcemu 0x{int(ref[r, c]):08x} ({tcemu.decode(int(ref[r, c]), 'f32')!r})")
    return "\n".join(lines)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--m", type=int, default=256)
    p.add_argument("--n", type=int, default=256)
    p.add_argument("--k", type=int, default=1024)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    torch = torch_or_skip()
    cap = torch.cuda.get_device_capability()
    if cap not in INSTRUCTIONS:
        skip(f"GPU {torch.cuda.get_device_name()} (sm_{cap[0]}{cap[1]}): no instruction mapping here")
    arch, instr = INSTRUCTIONS[cap]
    if args.k % 32 or args.m % 16 or args.n % 16:
        sys.exit("check_scaled_mm: --k must be a multiple of 32, --m and --n of 16 (cuBLASLt FP8)")
    rng = np.random.default_rng(args.seed)
    A = random_e4m3(rng, (args.m, args.k))
    B = random_e4m3(rng, (args.k, args.n))
    print(f"GPU {torch.cuda.get_device_name()} (sm_{cap[0]}{cap[1]}), torch {torch.__version__}, "
          f"M={args.m} N={args.n} K={args.k}, instruction {instr}")
    schedules = k_schedules(args.k)
    models = {name: tcemu.gemm(A, B, arch=arch, instr=instr, **kw) for name, kw in schedules.items()}
    status = 0
    found = {}
    for fast in (False, True):
        d = scaled_mm(torch, A, B, fast)
        hits = [name for name, ref in models.items() if np.array_equal(d, ref)]
        found[fast] = hits
        print(f"use_fast_accum={fast}: " + (f"bit-identical to tcemu with {', '.join(hits)}" if hits else
                                            "no model reproduces it"))
        if not hits:
            status = 1
            for name, ref in models.items():
                n = int((d != ref).sum())
                print(f"  {name}: {n} of {d.size} elements differ\n{first_differences(d, ref)}")
    # The epilogue: per tensor with a bf16 bias, and rowwise, each against every epilogue order.
    sa_t, sb_t = np.float32(0.3), np.float32(1.7)
    bias = tcemu.encode(rng.standard_normal(args.n) * 4, "bf16")
    sa_r = (rng.random((args.m, 1)) * 2 + 0.1).astype(np.float32)
    sb_r = (rng.random((1, args.n)) * 2 + 0.1).astype(np.float32)
    kinds = {"per-tensor scales + bf16 bias": (sa_t, sb_t, bias, dict(a_scale=sa_t, b_scale=sb_t, bias=bias, bias_type="bf16")),
             "rowwise scales": (sa_r, sb_r, None, dict(a_scale=sa_r.reshape(-1), b_scale=sb_r.reshape(-1)))}
    for fast in (False, True):
        names = found[fast] or list(schedules)
        for kind, (sa, sb, bi, ekw) in kinds.items():
            try:
                d = scaled_mm_epilogue(torch, A, B, fast, sa, sb, bi)
            except RuntimeError as err:  # e.g. rowwise not supported by this torch build / GPU
                print(f"use_fast_accum={fast}, {kind}: torch refused ({str(err).splitlines()[0]})")
                continue
            hits = []
            for name in names:
                for order in ("fold", "cutlass-sm90", "sequential"):
                    ref = tcemu.gemm(A, B, arch=arch, instr=instr, epilogue=order, out_type="bf16", **ekw,
                                     **schedules[name])
                    if np.array_equal(d, ref):
                        hits.append(f"{name} + epilogue {order}")
            print(f"use_fast_accum={fast}, {kind}: " + (f"bit-identical to tcemu.gemm with {'; '.join(hits)}" if hits
                                                       else "no schedule and epilogue order reproduces it"))
            if not hits:
                status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
