#!/usr/bin/env python3
"""tcemu.dask on a LocalCluster of single-threaded worker processes: one worker against two on
a 2048^3 e4m3 GEMM (sm_90a wgmma m64n8k32) and an NVFP4 one (sm_100a tcgen05 kind::mxf4nvf4,
e2m1 with ue4m3 scales per 16), at tile sizes 256 to 2048. For each: the median and best wall
time of --repeat runs (operands from the client's memory to the result in the client's, as a
user sees it), the speed-up of two workers over one, and the overhead per tile: the workers'
time beyond the single-process tcemu.mma (threads=1) of the whole GEMM, divided by the tiles,
(wall x workers - serial) / tiles. Prints the load average before and after (the machine may be
shared). Not a test: docs/performance.md ("tcemu.dask") has the numbers.

    scripts/py python/bench/bench_dask.py [--size 2048 --tiles 256,512,1024,2048 --repeat 3]
"""

import argparse
import os
import statistics
import time

import numpy as np

import tcemu
import tcemu.dask as td

E4M3 = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3")
NVFP4 = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X",
             atype="e2m1", btype="e2m1", dtype="f32", stype="ue4m3")


def operands(kind, n, rng):
    if kind == "e4m3":  # moderate magnitudes, no NaN codes
        a = rng.integers(0x20, 0x50, (n, n)).astype(np.uint8) | (rng.integers(0, 2, (n, n)).astype(np.uint8) << 7)
        b = rng.integers(0x20, 0x50, (n, n)).astype(np.uint8) | (rng.integers(0, 2, (n, n)).astype(np.uint8) << 7)
        return dict(a=a, b=b), E4M3
    a = rng.integers(0, 16, (n, n)).astype(np.uint8)
    b = rng.integers(0, 16, (n, n)).astype(np.uint8)
    return dict(a=a, b=b, scale_a=rng.integers(0x30, 0x40, (n, n // 16)).astype(np.uint8),
                scale_b=rng.integers(0x30, 0x40, (n // 16, n)).astype(np.uint8)), NVFP4


def timed(f, repeat):
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t0)
    return ts, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--tiles", default="256,512,1024,2048")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--kinds", default="e4m3,nvfp4")
    args = ap.parse_args()
    from distributed import Client, LocalCluster

    n, tiles = args.size, [int(t) for t in args.tiles.split(",")]
    rng = np.random.default_rng(0)
    print(f"load average before: {os.getloadavg()}; {os.cpu_count()} cores", flush=True)
    rows = []
    for kind in args.kinds.split(","):
        ops, kw = operands(kind, n, rng)
        serial, want = timed(lambda: tcemu.mma(**ops, threads=1, **kw), args.repeat)
        s = statistics.median(serial)
        print(f"{kind}: tcemu.mma threads=1, one process: median {s:.2f} s, best {min(serial):.2f} s "
              f"({n**3 / s / 1e9:.2f} G MAC/s)", flush=True)
        for workers in (1, 2):
            with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as lc, \
                    Client(lc) as cl:
                cl.wait_for_workers(workers, timeout=120)
                for t in tiles:
                    ts, got = timed(lambda: cl.compute(td.mma(**ops, tile=t, threads=1, **kw)).result(timeout=600),
                                    args.repeat)
                    assert np.array_equal(got, want), "tcemu.dask differs from tcemu.mma"
                    ntiles = (-(-n // t)) ** 2
                    w = statistics.median(ts)
                    rows.append((kind, t, workers, w, min(ts), ntiles, (w * workers - s) / ntiles))
                    print(f"{kind} tile {t:5d} workers {workers}: median {w:.2f} s, best {min(ts):.2f} s, {ntiles} tiles, "
                          f"overhead per tile {rows[-1][-1] * 1e3:+.0f} ms", flush=True)
    print(f"load average after: {os.getloadavg()}")
    print("\n| GEMM | tile | 1 worker, median (best) | 2 workers, median (best) | speed-up | overhead per tile, 1 / 2 workers |")
    print("|---|---|---|---|---|---|")
    for kind in args.kinds.split(","):
        for t in tiles:
            one = next(r for r in rows if r[:3] == (kind, t, 1))
            two = next(r for r in rows if r[:3] == (kind, t, 2))
            print(f"| {kind} {n}^3 | {t} | {one[3]:.2f} s ({one[4]:.2f}) | {two[3]:.2f} s ({two[4]:.2f}) | "
                  f"{one[3] / two[3]:.2f} | {one[6] * 1e3:+.0f} ms / {two[6] * 1e3:+.0f} ms |")


if __name__ == "__main__":
    main()
