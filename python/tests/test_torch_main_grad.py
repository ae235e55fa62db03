"""TransformerEngine's fuse_wgrad_accumulation in tcemu.torch (module/linear.py at d0067d0):
the wgrad GEMM writes into weight.main_grad with beta = 1 (the epilogue's fma(1, C, t), one f32
rounding), overwrites it for is_first_microbatch=True or a weight with overwrite_main_grad, and
leaves weight.grad None (zeros and grad_added_to_main_grad = True for Megatron's DDP weights);
and where the emulated GEMMs run (device=): the errors of a machine without a usable GPU, and
with one, the same bits for CUDA tensors as for CPU tensors."""

import copy

import numpy as np
import pytest
import torch

import tcemu
import tcemu.torch as tt

from test_torch_recipes import bits, f32, model_and_data

F32 = np.float32
MX = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X", atype="e4m3",
          btype="e4m3", dtype="f32", stype="ue8m0")


def wgrad_acc(x, dy):
    """The raw f32 wgrad accumulator of the MXFP8 recipe: dY^T X^T-rows through kind::mxf8f6f4."""
    qa = tcemu.quantize(np.ascontiguousarray(f32(dy).T), "mxfp8")
    qb = tcemu.quantize(np.ascontiguousarray(f32(x).T), "mxfp8")
    return tcemu.mma(qa.codes, np.ascontiguousarray(qb.codes.T), scale_a=qa.scales,
                     scale_b=np.ascontiguousarray(qb.scales.T), **MX).view(F32)


def fused_model(seed=0):
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False, seed=seed)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.MXFP8BlockScaling(), arch="sm_100a", fuse_wgrad_accumulation=True)
    return wrap, x, dy


def step(wrap, x, dy, **kw):
    xe = x.detach().clone().requires_grad_(True)
    wrap[0](xe, **kw).backward(dy)
    return xe.grad


def test_accumulates_into_main_grad_over_micro_batches():
    wrap, x, dy = fused_model()
    w = wrap[0].weight
    g = torch.Generator().manual_seed(3)
    w.main_grad = torch.randn(w.shape, generator=g)
    expect = f32(w.main_grad).copy()
    for mb in range(3):
        xs, dys = x * (1 + mb), dy * (0.5 + mb)
        step(wrap, xs, dys)
        expect = (expect + wgrad_acc(xs, dys)).astype(F32)  # fma(1, C, 1 * acc): one rounding
        np.testing.assert_array_equal(bits(w.main_grad), expect.view(np.uint32), err_msg=f"micro-batch {mb}")
    assert w.grad is None


def test_first_micro_batch_and_overwrite_main_grad_overwrite():
    wrap, x, dy = fused_model()
    w = wrap[0].weight
    w.main_grad = torch.full(w.shape, 1e30)
    step(wrap, x, dy, is_first_microbatch=True)
    np.testing.assert_array_equal(bits(w.main_grad), wgrad_acc(x, dy).view(np.uint32))
    step(wrap, x, dy, is_first_microbatch=False)
    np.testing.assert_array_equal(bits(w.main_grad), (2 * wgrad_acc(x, dy)).astype(F32).view(np.uint32))
    w.overwrite_main_grad = True
    step(wrap, x, dy)
    np.testing.assert_array_equal(bits(w.main_grad), wgrad_acc(x, dy).view(np.uint32))


def test_megatron_weight_gets_a_zero_gradient_and_the_flag():
    wrap, x, dy = fused_model()
    w = wrap[0].weight
    w.main_grad = torch.zeros(w.shape)
    w.grad_added_to_main_grad = False
    step(wrap, x, dy)
    assert w.grad_added_to_main_grad is True
    assert w.grad is not None and not torch.any(w.grad)


def test_per_tensor_scales_and_bf16_main_grad():
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.Float8CurrentScaling(), arch="sm_90a", fuse_wgrad_accumulation=True)
    w = wrap[0].weight
    w.main_grad = torch.randn(w.shape, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    c = f32(w.main_grad).copy()
    step(wrap, x, dy)
    qa = tcemu.quantize(np.ascontiguousarray(f32(dy).T), "fp8-current", format="e5m2")
    qb = tcemu.quantize(np.ascontiguousarray(f32(x).T), "fp8-current")
    ins = tt.default_instr("sm_90a", "e5m2", "e4m3")
    acc = tcemu.mma(qa.codes, np.ascontiguousarray(qb.codes.T), promote_every=4, **ins.kwargs()).view(F32)
    g = F32(F32(qa.scales.reshape(-1)[0] * qb.scales.reshape(-1)[0]) * F32(1.0))
    ref = torch.from_numpy((c + (g * acc).astype(F32)).astype(F32)).to(torch.bfloat16)
    np.testing.assert_array_equal(bits(w.main_grad), bits(ref))


def test_errors_name_the_layer():
    wrap, x, dy = fused_model()
    with pytest.raises(ValueError, match="0: fuse_wgrad_accumulation=True needs weight.main_grad"):
        step(wrap, x, dy)
    wrap[0].weight.main_grad = torch.zeros(3, 3)
    with pytest.raises(ValueError, match="weight.main_grad has shape"):
        step(wrap, x, dy)
    with pytest.raises(TypeError, match="is_first_microbatch"):
        wrap[0](x, is_first_microbatch=1)
    with pytest.raises(ValueError, match="inference"):
        tt.convert(torch.nn.Sequential(torch.nn.Linear(64, 8)), tt.MXFP8BlockScaling(), arch="sm_100a",
                   inference=True, fuse_wgrad_accumulation=True)
    lin, x, dy = model_and_data(k=128, n=32, m=32, bias=False)
    blk = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(blk, tt.Float8BlockScaling(), arch="sm_90a", fuse_wgrad_accumulation=True)
    blk[0].weight.main_grad = torch.zeros(blk[0].weight.shape)
    with pytest.raises(ValueError, match="blockwise FP8"):
        step(blk, x, dy)


STATUS = tcemu.cuda_status()


@pytest.mark.skipif(STATUS["usable"], reason="checks the message of a machine whose CUDA device 0 cannot run")
def test_device_cuda_without_a_usable_gpu_says_why():
    lin, x, _ = model_and_data(k=64, n=32, m=16, bias=False)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.MXFP8BlockScaling(device="cuda"), arch="sm_100a")
    with pytest.raises(RuntimeError, match="device='cuda:0': cannot run the emulator on the GPU: "):
        wrap(x)
    with pytest.raises(ValueError, match="unknown device"):
        tt.MXFP8BlockScaling(device="tpu")


@pytest.mark.skipif(not STATUS["usable"], reason=f"needs a usable CUDA GPU: {STATUS['why_not']}")
@pytest.mark.parametrize("name,arch", [("te-mxfp8", "sm_100a"), ("te-current", "sm_90a"), ("te-block", "sm_90a"),
                                       ("torchao-float8-rowwise", "sm_90a"), ("bf16-amp", "sm_90a")])
def test_cuda_tensors_give_the_bits_of_cpu_tensors(name, arch):
    """A model on the GPU: its GEMMs run on tcemu's CUDA backend (device=None follows the
    tensors) with the bits of the same model on the CPU."""
    lin, x, dy = model_and_data(k=128, n=64, m=48)
    outs = []
    for dev in ("cpu", "cuda"):
        wrap = torch.nn.Sequential(copy.deepcopy(lin)).to(dev)
        tt.convert(wrap, tt.recipe(name), arch=arch)
        xe = x.detach().clone().to(dev).requires_grad_(True)
        y = wrap(xe)
        y.backward(dy.to(dev).to(y.dtype))
        outs.append([t.detach().cpu() for t in (y, xe.grad, wrap[0].weight.grad)])
    for a, b in zip(*outs):
        np.testing.assert_array_equal(bits(a), bits(b))


def test_progress_line_counts_steps_gemms_and_macs():
    import io
    out = io.StringIO()
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.MXFP8BlockScaling(), arch="sm_100a")
    with tt.Progress(total=2, every=0, file=out, label="run") as p:
        for _ in range(2):
            wrap(x.detach().clone().requires_grad_(True)).backward(dy)
            p.step()
    last = out.getvalue().split("\r")[-1]
    assert last.startswith("run: step 2/2, 6 GEMMs, 0.00 G MAC, ") and last.endswith(" s\n"), last
    assert p.gemms == 6
    with pytest.raises(ValueError, match="total"):
        tt.Progress(total=0)


def test_unquantized_wgrad_accumulates_into_main_grad():
    """torchao's rowwise_with_gw_hp runs wgrad unquantized (bf16 GEMM): with
    fuse_wgrad_accumulation its epilogue adds main_grad too (fma(1, C, acc))."""
    lin, x, dy = model_and_data(k=64, n=32, m=32, bias=False, dtype=torch.bfloat16)
    wrap = torch.nn.Sequential(copy.deepcopy(lin))
    tt.convert(wrap, tt.recipe("torchao-float8-rowwise-with-gw-hp"), arch="sm_90a", fuse_wgrad_accumulation=True)
    w = wrap[0].weight
    w.main_grad = torch.randn(w.shape, generator=torch.Generator().manual_seed(2))
    c = f32(w.main_grad).copy()
    step(wrap, x, dy)
    ins = tt.default_instr("sm_90a", "bf16", "bf16")
    acc = tcemu.mma(bits(dy.T.contiguous()), np.ascontiguousarray(bits(x.detach().T.contiguous()).T),
                    **ins.kwargs()).view(F32)
    np.testing.assert_array_equal(bits(w.main_grad), (c + acc).astype(F32).view(np.uint32))
    assert w.grad is None
