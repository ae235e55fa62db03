#!/usr/bin/env python3
"""Data-parallel evaluation on a Dask cluster of a model under an emulated recipe: a small NumPy
MLP (64 -> 128 -> ReLU -> 16) whose two GEMMs run as MXFP8 does on Blackwell. Activations and
weights are quantized by tcemu.quantize (recipe "mxfp8": TransformerEngine's e4m3 with a ue8m0
scale per 32 elements along K) and multiplied by tcemu.mma through sm_100a's
tcgen05.mma kind::mxf8f6f4 block_scale (the scales applied inside the instruction, f32
accumulation), so each logit is the bits that instruction gives.

The evaluation set is cut into shards; each worker makes its shard from its seed (as it would
read its part of a data set) and evaluates it with the weights, scattered once to every worker.
The client gathers the per-shard results (correct predictions, count, the logits' bits) and the
metric: accuracy against the labels of the exact model (float64 NumPy, the "teacher"). With
--check, every shard is evaluated again on this machine and the bits compared (exit 1 if any
differ).

    scripts/py examples/dask/mlp_eval.py --local 2 --shards 4 --rows 256 --check
    scripts/py examples/dask/mlp_eval.py --scheduler tcp://HOST:8786 --shards 64 --rows 4096

--local N starts a LocalCluster of N single-threaded worker processes; --scheduler joins a
running cluster (docs/dask.md: its workers need tcemu and this file's directory importable,
or run it from the repository)."""

import argparse
import os
import sys

import numpy as np

import tcemu

D_IN, D_HID, D_OUT = 64, 128, 16
MMA = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
           atype="e4m3", btype="e4m3", dtype="f32", stype="ue8m0")
RECIPE = "mxfp8"


def make_model(seed=0):
    rng = np.random.default_rng(seed)
    return {"w1": (rng.standard_normal((D_IN, D_HID)) / np.sqrt(D_IN)).astype(np.float32),
            "w2": (rng.standard_normal((D_HID, D_OUT)) / np.sqrt(D_HID)).astype(np.float32)}


def make_shard(model, shard, rows, seed=0):
    """Inputs of one shard and their labels: the exact model's (float64) predictions."""
    rng = np.random.default_rng([seed, shard])
    x = rng.standard_normal((rows, D_IN)).astype(np.float32)
    h = np.maximum(x.astype(np.float64) @ model["w1"].astype(np.float64), 0)
    labels = np.argmax(h @ model["w2"].astype(np.float64), axis=1)
    return x, labels


def linear(x, w, threads):
    """x @ w under the recipe: x quantized along its rows (K), w along its columns (K)."""
    qa = tcemu.quantize(x, RECIPE, threads=threads)
    qb = tcemu.quantize(np.ascontiguousarray(w.T), RECIPE, threads=threads)  # N x K: blocks along K
    d = tcemu.mma(qa.codes, qb.codes.T, scale_a=qa.scales, scale_b=qb.scales.T, threads=threads, **MMA)
    return d.view(np.float32)  # f32 codes are their values


def evaluate_shard(model, shard, rows, seed=0, threads=None):
    """The shard's correct predictions, count and logits (as f32 codes)."""
    if threads is None:
        try:
            import tcemu.dask
            threads = tcemu.dask.task_threads()
        except ImportError:
            threads = 1
    x, labels = make_shard(model, shard, rows, seed)
    h = np.maximum(linear(x, model["w1"], threads), np.float32(0))
    logits = linear(h, model["w2"], threads)
    return {"shard": shard, "correct": int(np.sum(np.argmax(logits, axis=1) == labels)), "count": rows,
            "logits": logits.view(np.uint32)}


def evaluate(client, model, shards, rows, seed=0):
    """Every shard as a task; the model scattered once to every worker. Returns the per-shard
    results in shard order."""
    m = client.scatter(model, broadcast=True)
    futs = client.map(evaluate_shard, [m] * shards, range(shards), [rows] * shards, [seed] * shards,
                      key=[f"mlp-eval-{seed}-{rows}-{s}" for s in range(shards)])
    return client.gather(futs)


def same(a, b):
    return a["correct"] == b["correct"] and a["count"] == b["count"] and np.array_equal(a["logits"], b["logits"])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--local", type=int, metavar="N", help="a LocalCluster of N single-threaded worker processes")
    where.add_argument("--scheduler", metavar="ADDRESS", help="the scheduler of a running cluster (tcp://host:port)")
    ap.add_argument("--shards", type=int, default=4)
    ap.add_argument("--rows", type=int, default=256, help="inputs per shard")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="store_true", help="compare every shard with a run on this machine")
    args = ap.parse_args(argv)
    if args.shards < 1 or args.rows < 1 or (args.local is not None and args.local < 1):
        ap.error("--shards, --rows and --local must be at least 1")
    from distributed import Client, LocalCluster

    model = make_model(args.seed)
    if args.local is not None:
        cluster = LocalCluster(n_workers=args.local, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
    else:
        cluster, client = None, Client(args.scheduler, timeout=60)
    try:
        results = evaluate(client, model, args.shards, args.rows, args.seed)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    correct, count = sum(r["correct"] for r in results), sum(r["count"] for r in results)
    print(f"{RECIPE} on {MMA['arch']} {MMA['instr']}: accuracy {correct}/{count} = {correct / count:.4f} "
          f"over {args.shards} shards")
    if args.check:
        bad = [r["shard"] for r in results if not same(r, evaluate_shard(model, r["shard"], args.rows, args.seed, 1))]
        if bad:
            print(f"shards {bad} differ from this machine's run", file=sys.stderr)
            return 1
        print(f"every shard's logits are the bits of a run on this machine ({os.cpu_count()} cores, one thread)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
