#!/usr/bin/env python3
"""The Python quick start (README.md, docs/python.md): conversions, one wgmma GEMM, a check
of a "kernel" output against it, and the compare report of a golden case.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/quickstart.py
"""

import os
import tempfile

import numpy as np

import tcemu

# Conversions: codes in, codes out (same results as `tcemu convert`).
x = np.array([465.0, -3.3, 1e-9, np.nan], np.float32)
print("f32 -> e4m3 satfinite:", [hex(c) for c in tcemu.encode(x, "e4m3", satfinite=True)])
print("e4m3 0x7e =", tcemu.decode(0x7E, "e4m3"))
print("cvt.rn.satfinite.e4m3x2.f32:", hex(tcemu.cvt("cvt.rn.satfinite.e4m3x2.f32", 0x43E88000, 0xBF800000)))

# A GEMM through wgmma m64n8k32 on Hopper: A (M x K) and B (K x N) as e4m3 codes.
WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"
rng = np.random.default_rng(0)
a = tcemu.encode(rng.standard_normal((128, 256)), "e4m3", satfinite=True)
b = tcemu.encode(rng.standard_normal((256, 64)), "e4m3", satfinite=True)
d = tcemu.mma(a, b, arch="sm_90a", instr=WG)  # f32 codes (uint32), 128 x 64
print("D[0, :4] =", d[0, :4].view(np.float32))

# A "kernel" that accumulates in plain f32 FMA order instead: not bit-exact.
A = tcemu.decode(a, "e4m3").astype(np.float32)
B = tcemu.decode(b, "e4m3").astype(np.float32)
kernel = np.zeros((128, 64), np.float32)
for k in range(256):
    kernel = (kernel + A[:, k:k + 1] * B[k:k + 1, :]).astype(np.float32)
try:
    tcemu.testing.assert_bitexact(kernel, d.view(np.float32))
except AssertionError as e:
    print("\n".join(str(e).splitlines()[:4]))

# A golden case and the report that says why an output differs.
case = tcemu.golden.generate(arch="sm_90a", instr=WG, M=64, N=16, K=128, seed=1)
A = tcemu.decode(case.operands["A"], "e4m3").astype(np.float32)
B = tcemu.decode(case.operands["B"], "e4m3").astype(np.float32)
out = tcemu.decode(case.operands["C"], "f32").astype(np.float32)
for k in range(A.shape[1]):
    out = (out + A[:, k:k + 1] * B[k:k + 1, :]).astype(np.float32)
report = tcemu.compare(case, out)
print(f"compare: {report.mismatch_count} of {report.total} differ; {report.diagnosis[:160]}")
html = os.path.join(tempfile.mkdtemp(), "report.html")
report.to_html(html)
print("HTML report:", html)
