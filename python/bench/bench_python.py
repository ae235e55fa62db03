#!/usr/bin/env python3
"""tcemu from Python against the C++ library on the same work: a 1024^3 e4m3 GEMM through
wgmma m64n8k32 (sm_90a) and 10^8 f32 -> e4m3 conversions (satfinite). Prints the best of
--repeat wall-clock times of each and the ratio (the issue's goal: within 10%).

    cmake --build build/release --target tcemu_python tcemu_python_baseline
    PYTHONPATH=build/release/python /usr/bin/python3 python/bench/bench_python.py [--size 1024 --count 100000000]
"""

import argparse
import os
import subprocess
import time

import numpy as np

import tcemu

WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"


def best_of(repeat, f):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def interleaved(repeat, py_call, cpp_cmd, inner=1):
    """Best times of the Python call and the C++ run, alternated so that load on a shared
    machine hits both alike (`inner`: runs per round on each side, as cpp_cmd's repeat)."""
    t_py = t_cc = float("inf")
    for _ in range(repeat):
        t_py = min(t_py, best_of(inner, py_call))
        t_cc = min(t_cc, float(subprocess.check_output(cpp_cmd)))
    return t_py, t_cc


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, "..", ".."))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=1024, help="M = N = K of the GEMM")
    p.add_argument("--count", type=int, default=100_000_000, help="conversions")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--baseline", default=os.path.join(root, "build", "release", "python", "tcemu_python_baseline"))
    a = p.parse_args()
    rng = np.random.default_rng(1)

    s = a.size
    A = rng.integers(0, 256, (s, s), dtype=np.uint64).astype(np.uint8)
    B = rng.integers(0, 256, (s, s), dtype=np.uint64).astype(np.uint8)
    A[(A & 0x7F) == 0x7F] = 0x38
    B[(B & 0x7F) == 0x7F] = 0x38
    # Like for like: one thread on both sides (the baseline calls the plain mma()).
    t_py, t_cc = interleaved(a.repeat, lambda: tcemu.mma(A, B, arch="sm_90a", instr=WG, threads=1),
                             [a.baseline, "mma", str(s), str(s), str(s), "1"])
    print(f"mma {s}x{s}x{s} e4m3 (wgmma m64n8k32, sm_90a), one thread: python {t_py:.3f} s, C++ {t_cc:.3f} s, "
          f"ratio {t_py / t_cc:.3f}")
    n_threads = tcemu._tcemu.thread_count(0)
    t_mt = best_of(a.repeat, lambda: tcemu.mma(A, B, arch="sm_90a", instr=WG))
    print(f"mma {s}x{s}x{s}, threads=None ({n_threads} threads): python {t_mt:.3f} s")

    n = a.count
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    out = np.empty(n, np.uint8)
    t_out, t_cc = interleaved(a.repeat, lambda: tcemu.convert(x, "f32", "e4m3", satfinite=True, out=out),
                              [a.baseline, "convert", str(n), "3"], inner=3)
    t_py = best_of(a.repeat, lambda: tcemu.convert(x, "f32", "e4m3", satfinite=True))
    print(f"convert {n} f32 -> e4m3 satfinite: python out= {t_out:.3f} s, C++ (output reused) {t_cc:.3f} s, "
          f"ratio {t_out / t_cc:.3f}; python allocating the output {t_py:.3f} s")


if __name__ == "__main__":
    main()
