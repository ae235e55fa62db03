"""tcemu.gemm_kblock (blockwise FP8 GEMM) against its definition evaluated here: per 128-long K
block the instruction chain from +0 (tcemu.mma on the block), acc = fma(sa * sb, p, acc) in
exact rationals rounded once, + bias, the output conversion; and its errors."""

import numpy as np
import pytest

import tcemu

from test_torch_recipes import fma_f32

WG = "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3"


def test_definition_bias_and_bf16_output():
    rng = np.random.default_rng(1)
    M, N, K = 5, 7, 320  # 3 K blocks, the last one 64 long
    a = rng.integers(0, 0x7E, (M, K), dtype=np.uint8) | (rng.integers(0, 2, (M, K), dtype=np.uint8) << 7)
    b = rng.integers(0, 0x7E, (K, N), dtype=np.uint8)
    sa = np.exp2(rng.integers(-8, 8, (M, 3))).astype(np.float32) * np.float32(1.25)
    sb = np.exp2(rng.integers(-8, 8, (3, N))).astype(np.float32)
    bias = rng.standard_normal(N).astype(np.float32)
    d = tcemu.gemm_kblock(a, b, arch="sm_90a", instr=WG, scale_a=sa, scale_b=sb, bias=bias, out_type="bf16",
                          threads=2)
    acc = np.zeros((M, N), np.float32)
    for j in range(3):
        p = tcemu.mma(np.ascontiguousarray(a[:, 128 * j:128 * (j + 1)]), np.ascontiguousarray(b[128 * j:128 * (j + 1)]),
                      arch="sm_90a", instr=WG).view(np.float32)
        for m in range(M):
            for n in range(N):
                acc[m, n] = fma_f32(np.float32(sa[m, j]) * np.float32(sb[j, n]), p[m, n], acc[m, n])
    ref = tcemu.convert((acc + bias).astype(np.float32).view(np.uint32), "f32", "bf16")
    np.testing.assert_array_equal(d, ref)
    for th in (1, 3):
        np.testing.assert_array_equal(d, tcemu.gemm_kblock(a, b, arch="sm_90a", instr=WG, scale_a=sa, scale_b=sb,
                                                           bias=bias, out_type="bf16", threads=th))


def test_errors():
    a = np.zeros((4, 256), np.uint8)
    b = np.zeros((256, 8), np.uint8)
    s_a, s_b = np.ones((4, 2), np.float32), np.ones((2, 8), np.float32)
    with pytest.raises(ValueError, match=r"scale_a: shape \(4, 3\); \(4, 2\) needed"):
        tcemu.gemm_kblock(a, b, arch="sm_90a", instr=WG, scale_a=np.ones((4, 3), np.float32), scale_b=s_b)
    with pytest.raises(TypeError, match="scale_b: float32"):
        tcemu.gemm_kblock(a, b, arch="sm_90a", instr=WG, scale_a=s_a, scale_b=s_b.astype(np.float64))
    with pytest.raises(ValueError, match="block: 48 is not a positive multiple"):
        tcemu.gemm_kblock(a, b, arch="sm_90a", instr=WG, scale_a=np.ones((4, 6), np.float32),
                          scale_b=np.ones((6, 8), np.float32), block=48)
    with pytest.raises(ValueError, match="block-scaled itself"):
        tcemu.gemm_kblock(a, b, arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X",
                          atype="e4m3", btype="e4m3", scale_a=s_a, scale_b=s_b)
