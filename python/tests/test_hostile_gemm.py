"""Hostile arguments to tcemu.gemm and tcemu.gemm_kblock (issue 32): out-of-range and mistyped
K schedules, epilogue operands of the wrong shape or dtype, unknown names, zero-size and
non-contiguous arrays. Each is a ValueError or TypeError naming the argument, never pybind11's
"incompatible function arguments" or a crash; a non-contiguous operand gives the bits of its
contiguous copy."""

import numpy as np
import pytest

import tcemu

I = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")
A = np.zeros((64, 32), np.uint16)
B = np.zeros((32, 8), np.uint16)
ONE_A, ONE_B = np.ones((64, 1), np.float32), np.ones((1, 8), np.float32)


@pytest.mark.parametrize("kwargs,error,fragment", [
    (dict(split_k=0), ValueError, "split_k: 0 is outside 1..1024"),
    (dict(split_k=2**40), ValueError, "split_k: 1099511627776 is outside 1..1024"),
    (dict(split_k=1.5), TypeError, "split_k: an int is required, got float"),
    (dict(split_k="2"), TypeError, "split_k: an int is required, got str"),
    (dict(chunks=[-16, 48]), ValueError, r"chunks\[0\]: -16 is outside 0..1073741824"),
    # Beyond a C++ int: the argument's name, not pybind11's signature listing.
    (dict(chunks=[16, 2**40]), ValueError, r"chunks\[1\]: 1099511627776 is outside 0..1073741824"),
    (dict(chunks=[16.5, 16]), TypeError, r"chunks\[0\]: an int is required, got float"),
    (dict(chunks=[16]), ValueError, "chunks sum to 16; K = 32"),
    (dict(chunks=[]), ValueError, "chunks: the list is empty"),
    (dict(chunks="16,16"), TypeError, "chunks: a list of K sizes is required, got str"),
    (dict(plan="cutlass"), ValueError, "plan: unknown plan 'cutlass'"),
    (dict(epilogue="x"), ValueError, "epilogue: unknown epilogue order 'x'"),
    (dict(split_k=2, grain=0, plan="cutlass-serial"), ValueError, "grain: 0 is outside 1..2147483647"),
    (dict(grain=16), ValueError, "grain: applies with split_k only"),
    (dict(promote_every=2**40), ValueError, "promote_every: 1099511627776 is outside 0..2147483647"),
    (dict(alpha="1"), TypeError, "alpha: a number"),
    (dict(alpha=np.ones(3)), TypeError, "alpha: a number"),
    (dict(c=np.zeros((8, 64), np.float32), beta=1.0), ValueError, r"c: shape \(8, 64\); C is M x N = \(64, 8\)"),
    (dict(c=np.zeros((64, 8)), beta=1.0), TypeError, "c: float64 values given where f32 codes are expected"),
    (dict(bias=np.zeros(7, np.float32)), ValueError, r"bias: shape \(7,\); one value per column of D"),
    (dict(bias=np.zeros((1, 8), np.float32)), ValueError, r"bias: shape \(1, 8\)"),
    (dict(bias=np.zeros(8)), TypeError, "bias: dtype float64"),
    (dict(bias_type="bf16"), ValueError, "bias_type: given without a bias"),
    (dict(bias=np.zeros(8, np.uint8), bias_type="e4m3"), ValueError, "bias_type: e4m3; a bias is f32, bf16 or f16"),
    (dict(a_scale=np.ones(3, np.float32)), ValueError, r"a_scale: shape \(3,\)"),
    (dict(b_scale=np.ones((8, 1), np.float32)), ValueError, r"b_scale: shape \(8, 1\)"),
    (dict(out_type="e2m1"), ValueError, "out_type: e2m1; a GEMM output is one of"),
    (dict(out_round="rs"), ValueError, "out_round: stochastic rounding needs random bits"),
])
def test_gemm_refuses(kwargs, error, fragment):
    kw = dict(kwargs)
    c = kw.pop("c", None)
    with pytest.raises(error, match=fragment) as e:
        tcemu.gemm(A, B, c, **I, **kw)
    assert "incompatible function arguments" not in str(e.value)


@pytest.mark.parametrize("a,b,fragment", [
    (np.zeros((64, 0), np.uint16), np.zeros((0, 8), np.uint16), "a: K = 0 does not tile"),
    (np.zeros((0, 32), np.uint16), B, "a, b: M = 0, N = 8; both must be at least 1"),
    (np.zeros((1, 64, 32), np.uint16), B, r"a: shape \(1, 64, 32\); A is a matrix"),
])
def test_gemm_zero_size_and_wrong_rank(a, b, fragment):
    with pytest.raises(ValueError, match=fragment):
        tcemu.gemm(a, b, **I)


def test_gemm_non_contiguous_operand_is_its_copy():
    rng = np.random.default_rng(5)
    wide = rng.integers(0, 0x3C00, (64, 64)).astype(np.uint16)
    b = rng.integers(0, 0x3C00, (32, 8)).astype(np.uint16)
    view = wide[:, ::2]
    got = tcemu.gemm(view, b, **I, split_k=2)
    assert np.array_equal(got, tcemu.gemm(np.ascontiguousarray(view), b, **I, split_k=2))


@pytest.mark.parametrize("kwargs,error,fragment", [
    (dict(block=0), ValueError, "block: 0 is outside 1..2147483647"),
    (dict(block=-1), ValueError, "block: -1 is outside 1..2147483647"),
    (dict(block=2**70), ValueError, "block: 1180591620717411303424 is outside 1..2147483647"),
    (dict(block=16.5), TypeError, "block: an int is required, got float"),
    (dict(scale_a=np.ones((64, 2), np.float32)), ValueError, r"scale_a: shape \(64, 2\); \(64, 1\) needed"),
    (dict(scale_a=np.ones((64, 1))), TypeError, "scale_a: float32 values are required, got float64"),
    (dict(bias=np.ones(3, np.float32)), ValueError, r"bias: shape \(3,\); \(8,\) needed"),
])
def test_gemm_kblock_refuses(kwargs, error, fragment):
    kw = dict(scale_a=ONE_A, scale_b=ONE_B)
    kw.update(kwargs)
    with pytest.raises(error, match=fragment) as e:
        tcemu.gemm_kblock(A, B, **I, **kw)
    assert "incompatible function arguments" not in str(e.value)


def test_gemm_kblock_non_contiguous_scales_are_their_copy():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 0x3C00, (64, 32)).astype(np.uint16)
    b = rng.integers(0, 0x3C00, (32, 8)).astype(np.uint16)
    wide = rng.uniform(0.5, 2, (64, 2)).astype(np.float32)
    got = tcemu.gemm_kblock(a, b, **I, scale_a=wide[:, ::2], scale_b=ONE_B)
    assert np.array_equal(got, tcemu.gemm_kblock(a, b, **I, scale_a=np.ascontiguousarray(wide[:, ::2]), scale_b=ONE_B))
