"""tcemu.torch at the model level: what convert() leaves alone, training mechanics (eval/train,
gradient accumulation, optimizers), inference, autocast, torch.compile, the report, and the
errors that name the layer."""

import copy
import json

import numpy as np
import pytest
import torch
from torch import nn

import tcemu.torch as tt

from test_torch_recipes import bits


class Block(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 2 * d)
        self.act = nn.GELU()
        self.down = nn.Linear(2 * d, d, bias=False)
        self.head = nn.Linear(d, 32)

    def forward(self, x):
        return self.head(x + self.down(self.act(self.up(self.norm(x)))))


def data(seed=0, m=32, d=64):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(m, d, generator=g)


def test_convert_keeps_everything_but_the_linears():
    torch.manual_seed(0)
    m = Block()
    sd = {k: v.clone() for k, v in m.state_dict().items()}
    params = [id(p) for p in m.parameters()]
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
    norm, act = m.norm, m.act
    tt.convert(m, tt.MXFP8BlockScaling(), arch="sm_100a", filter_fn=lambda mod, name: name != "head")
    assert isinstance(m.up, tt.EmulatedLinear) and isinstance(m.down, tt.EmulatedLinear)
    assert type(m.head) is nn.Linear  # filtered out
    assert m.norm is norm and m.act is act
    assert [id(p) for p in m.parameters()] == params
    assert m.state_dict().keys() == sd.keys()
    for k, v in m.state_dict().items():
        assert torch.equal(v, sd[k])
    loss = m(data()).square().mean()
    loss.backward()
    opt.step()  # the optimizer built before convert() updates the same parameters
    assert not torch.equal(m.up.weight, sd["up.weight"])
    m2 = Block()
    m2.load_state_dict(m.state_dict())  # the state dict loads into a plain model
    assert "recipe=MXFP8BlockScaling" in repr(m.up) or "MXFP8" in repr(m.up)


def test_eval_train_and_gradient_accumulation():
    """Two micro-batches accumulate into .grad as torch does: the sum of the two gradients."""
    torch.manual_seed(1)
    m = Block()
    tt.convert(m, tt.Float8CurrentScaling(), arch="sm_90a")
    x1, x2 = data(1), data(2)
    m.train()
    m(x1).sum().backward()
    g1 = m.up.weight.grad.clone()
    m.zero_grad()
    m(x2).sum().backward()
    g2 = m.up.weight.grad.clone()
    m.zero_grad()
    m(x1).sum().backward()
    m(x2).sum().backward()
    np.testing.assert_array_equal(bits(m.up.weight.grad), bits(g1 + g2))
    m.eval()
    with torch.no_grad():
        y_eval = m(x1)
    m.train()
    np.testing.assert_array_equal(bits(y_eval), bits(m(x1).detach()))


def test_inference_quantizes_the_weight_once():
    torch.manual_seed(2)
    m = Block()
    ref = copy.deepcopy(m)
    tt.convert(m, tt.Float8CurrentScaling(), arch="sm_90a", inference=True)
    tt.convert(ref, tt.Float8CurrentScaling(), arch="sm_90a")
    x = data(3)
    y1 = m(x)
    cache = m.up.tcemu_layer.weight_cache
    y2 = m(x)
    assert m.up.tcemu_layer.weight_cache is cache  # not quantized again
    assert not y1.requires_grad
    np.testing.assert_array_equal(bits(y1), bits(y2))
    np.testing.assert_array_equal(bits(y1), bits(ref(x).detach()))
    with torch.no_grad():
        m.up.weight.mul_(2)  # a new weight version is quantized again
    m(x)
    assert m.up.tcemu_layer.weight_cache is not cache


def test_autocast_emulates_linear_matmul_bmm():
    torch.manual_seed(4)
    lin = nn.Linear(64, 32)
    x = data(5)
    conv = nn.Sequential(copy.deepcopy(lin))
    rec = tt.Float8CurrentScaling()
    tt.convert(conv, rec, arch="sm_90a")
    with tt.autocast(rec, arch="sm_90a"):
        y = torch.nn.functional.linear(x, lin.weight, lin.bias)
        mm = x @ lin.weight.detach().T
        bmm = torch.bmm(x.reshape(2, 16, 64), lin.weight.detach().T.expand(2, 64, 32))
    np.testing.assert_array_equal(bits(y.detach()), bits(conv(x).detach()))
    plain = nn.Sequential(nn.Linear(64, 32, bias=False))
    plain[0].weight.data.copy_(lin.weight.detach())
    tt.convert(plain, rec, arch="sm_90a")
    np.testing.assert_array_equal(bits(mm), bits(plain(x).detach()))
    for i in range(2):  # each batch element is its own GEMM, as a batched kernel computes it
        np.testing.assert_array_equal(bits(bmm[i]), bits(plain(x[16 * i:16 * (i + 1)]).detach()))
    assert not torch.equal(mm, x @ lin.weight.detach().T)  # outside the block: torch's own GEMM
    with pytest.raises(ValueError, match="DelayedScaling"):
        with tt.autocast(tt.DelayedScaling(), arch="sm_90a"):
            x @ x.T


def test_torch_compile_traces_a_converted_model():
    torch.manual_seed(6)
    m = Block()
    tt.convert(m, tt.MXFP8BlockScaling(), arch="sm_100a")
    x = data(7)
    eager = m(x)
    seen = []

    def backend(gm, example_inputs):
        seen.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm

    compiled = torch.compile(m, backend=backend, fullgraph=True)
    y = compiled(x)
    np.testing.assert_array_equal(bits(y.detach()), bits(eager.detach()))
    assert sum("tcemu.linear" in s for s in seen) == 3
    y.sum().backward()  # the custom op's autograd formula under compile
    assert m.up.weight.grad is not None
    # aot_eager runs the fake (meta) kernels to trace forward and backward.
    m.zero_grad()
    y2 = torch.compile(m, backend="aot_eager")(x)
    np.testing.assert_array_equal(bits(y2.detach()), bits(eager.detach()))


def test_recorder_report(tmp_path):
    torch.manual_seed(8)
    m = Block()
    tt.convert(m, tt.NVFP4BlockScaling(), arch="sm_100a")
    x = data(9)
    x[0, 0] = float("inf")  # flows as the hardware's arithmetic makes it flow, and is counted
    with tt.Recorder() as rec:
        m(x).sum().backward()
    r = rec.report()
    assert set(r["layers"]) == {"up", "down", "head"}
    up = r["layers"]["up"]
    assert set(up) == {"fprop", "dgrad", "wgrad"}
    last = up["fprop"]["last"]
    assert last["a"]["format"] == "e2m1" and last["a"]["scaling"] == "nvfp4"
    assert 0.0 <= last["a"]["saturated"] <= 1.0
    # LayerNorm turns the row with Inf into NaN; NVFP4's saturating cast makes NaN elements
    # finite (cvt.rn.satfinite.e2m1x2: NaN -> +6), so the GEMM's output is finite.
    assert last["a"]["nan_in"] == 64 and last["a"]["nan"] == 0
    assert last["out"]["nan"] == 0
    assert np.isfinite(r["layers"]["down"]["fprop"]["last"]["b"]["sqnr_db"])
    p = tmp_path / "report.json"
    rec.to_json(p)
    assert json.loads(p.read_text())["layers"]["up"]["wgrad"]["steps"] == 1


def test_errors_name_the_layer():
    m = nn.Sequential(nn.Linear(48, 32))
    tt.convert(m, tt.MXFP8BlockScaling(), arch="sm_100a")
    with pytest.raises(ValueError, match=r"0: input has K = 48, not a multiple of the mxfp8 block of 32"):
        m(torch.randn(4, 48))
    m = nn.Sequential(nn.Linear(64, 32))
    tt.convert(m, tt.Float8CurrentScaling(), arch="sm_90a")
    with pytest.raises(TypeError, match="0: input has dtype torch.int64"):
        m(torch.ones(4, 64, dtype=torch.int64))
    m = nn.Sequential(nn.Linear(64, 32))
    tt.convert(m, tt.NVFP4BlockScaling(), arch="sm_90a")
    with pytest.raises(ValueError, match="sm_90a has no NVFP4 block-scaled"):
        m(torch.randn(4, 64))
    with pytest.raises(ValueError, match="arch: 'sm_75'"):
        tt.convert(nn.Sequential(nn.Linear(64, 32)), tt.AMP(), arch="sm_75")
    with pytest.raises(TypeError, match="recipe"):
        tt.convert(nn.Sequential(nn.Linear(64, 32)), "mxfp8", arch="sm_100a")
    with pytest.raises(ValueError, match="unknown recipe"):
        tt.recipe("fp9")


def test_convert_again_replaces_the_recipe():
    torch.manual_seed(10)
    m = Block()
    fresh = copy.deepcopy(m)
    tt.convert(m, tt.Float32(), arch="sm_90a")
    tt.convert(m, tt.Float8CurrentScaling(), arch="sm_90a", inference=True)
    tt.convert(fresh, tt.Float8CurrentScaling(), arch="sm_90a", inference=True)
    x = data(11)
    assert isinstance(m.up.tcemu_layer.recipe, tt.Float8CurrentScaling) and m.up.tcemu_layer.inference
    np.testing.assert_array_equal(bits(m(x)), bits(fresh(x)))


def test_gemm_recorder_replays_every_gemm():
    """The recorded problems, given to tcemu.gemm, give the step's outputs bit for bit."""
    import tcemu
    torch.manual_seed(12)
    m = Block()
    tt.convert(m, tt.MXFP8BlockScaling(), arch="sm_100a")
    x = data(13).requires_grad_(True)
    with tt.GemmRecorder() as rec:
        y = m(x)
        y.sum().backward()
    assert [r for _, r in rec.labels] == ["fprop"] * 3 + ["dgrad", "wgrad"] * 3
    assert rec.labels[2] == ("head", "fprop")
    kw = {k: v for k, v in rec.problems[2].items() if k != "fn"}
    d = tcemu.gemm(**kw)
    np.testing.assert_array_equal(d, bits(y))
