"""compare's split-K models (golden/src/models.cpp): a kernel stand-in that splits K as
cuBLASLt's split-K plan does (tcemu.gemm, checked against the plan's exact definition in
test_gemm.py) is diagnosed as that plan with its split count, for K the grain divides and K it
does not; an unsplit kernel is not attributed to a split."""

import numpy as np
import pytest

import tcemu

FP8 = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"
F16 = "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"


@pytest.mark.parametrize("instr,K,s", [(FP8, 1024, 4), (FP8, 640, 3), (F16, 448, 2), (F16, 448, 5)])
def test_compare_names_the_split(instr, K, s):
    case = tcemu.golden.generate_mma("sm_90a", instr, M=64, N=8, K=K, seed=K + s)
    ops = case.operands
    standin = tcemu.gemm(ops["A"], ops["B"], ops["C"], arch="sm_90a", instr=instr, plan="cublaslt-bitequiv", split_k=s,
                         beta=1.0)
    r = tcemu.golden.compare(case, standin)
    assert not r.identical
    # a split count that only adds empty slices is reported under the smallest s with the same chunks
    grain = 128 if instr == FP8 else 64
    nonempty = [k for k in tcemu.split_k_chunks(K, s, grain) if k]
    named = min(t for t in range(2, 17) if [k for k in tcemu.split_k_chunks(K, t, grain) if k] == nonempty)
    full = [m.name for m in r.models if m.sampled and m.matched == m.sampled]
    assert full and full[0] == f"cuBLASLt split-K s={named} (bitequiv plan)", full
    assert f"split-K s={named}" in r.verdict


def test_unsplit_output_is_the_case_model():
    case = tcemu.golden.generate_mma("sm_90a", FP8, M=64, N=8, K=1024, seed=9)
    r = tcemu.golden.compare(case, case.expected)
    assert r.identical
