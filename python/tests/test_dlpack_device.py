"""tcemu.mma(..., device="cuda") with CUDA arrays that have only DLPack (__dlpack__ and
__dlpack_device__, no __cuda_array_interface__: JAX arrays on a GPU).

Without a GPU: made-up DLPack producers (dlpack_fakes.py) saying kDLCUDA are routed to the
device path (the C++ mma() with DeviceOperands), which reports that it cannot run; their content is checked on
the host with clean errors; their tensors are given back (the deleter called once) whatever
happens; a capsule of host memory is refused even when __dlpack_device__ says CUDA. The layout
the device path hands over is computed by a CPU stand-in of mma_device_codes reading the
(host) memory the made-up tensors point at, bit for bit against tcemu.mma on host arrays.
With a GPU and torch: torch CUDA tensors behind DLPack-only wrappers, against device="cpu".
"""

import numpy as np
import pytest

import tcemu
from dlpack_fakes import BFLOAT, COMPLEX, CUDA, CUDA_MANAGED, FLOAT, FLOAT8_E4M3FN, FLOAT8_E5M2FNUZ, FLOAT8_E8M0FNU, \
    INT, UINT, FakeDlpack, HostDlpack
from test_device import MXF4, NO_GPU_PREFIX, STATUS, USABLE, WGMMA, entry_args, host_stand_in, needs_gpu, \
    needs_no_gpu, one_entry_per_datapath, problem


def fakes_wgmma(M=64, K=32, N=24, **kw):
    return (FakeDlpack((M, K), bits=16, **kw), FakeDlpack((K, N), bits=16, **kw),
            FakeDlpack((M, N), bits=32, **kw))


@needs_no_gpu
@pytest.mark.parametrize("versioned", [False, True])
def test_dlpack_only_arrays_reach_the_device_path(versioned):
    a, b, c = fakes_wgmma(versioned=versioned)
    with pytest.raises(RuntimeError) as ex:
        tcemu.mma(a, b, c, **WGMMA, device="cuda")
    assert str(ex.value) == NO_GPU_PREFIX + STATUS["why_not"]
    for f in (a, b, c):
        assert f.calls == [dict(stream=1, max_version=(1, 0))]  # the legacy default stream, which the kernels use
        assert f.deleted == 1
    # Signed containers, float16 for f16; CUDA managed memory; no C.
    a, b = FakeDlpack((64, 32), code=INT, bits=16), FakeDlpack((32, 24), code=FLOAT, bits=16, device=(CUDA_MANAGED, 0))
    with pytest.raises(RuntimeError, match="cannot run the emulator"):
        tcemu.mma(a, b, **WGMMA, device="cuda")
    assert a.deleted == b.deleted == 1
    # The device is the one the tensors say.
    a, b, c = fakes_wgmma(device=(CUDA, 3))
    with pytest.raises(RuntimeError, match="^device='cuda:3': cannot run"):
        tcemu.mma(a, b, c, **WGMMA, device="cuda:3")
    # Block scales of DLPack float8_e8m0fnu; scale_b Fortran-contiguous (strides in elements).
    M, K, N = 128, 128, 16
    kb = K // 32
    ops = [FakeDlpack((M, K)), FakeDlpack((K, N)), FakeDlpack((M, N), bits=32),
           FakeDlpack((M, kb), code=FLOAT8_E8M0FNU), FakeDlpack((kb, N), code=FLOAT8_E8M0FNU, strides=(1, kb))]
    with pytest.raises(RuntimeError, match="cannot run the emulator"):
        tcemu.mma(*ops[:3], scale_a=ops[3], scale_b=ops[4], **MXF4, device="cuda")
    assert [f.deleted for f in ops] == [1] * 5


def test_dlpack_only_arrays_with_device_cpu_say_to_pass_device_cuda():
    a, b, c = fakes_wgmma(device=(CUDA, 1))
    with pytest.raises(ValueError, match=r"^a: a CUDA array \(on cuda:1\) with device='cpu'; pass device='cuda'"):
        tcemu.mma(a, b, c, **WGMMA)
    assert a.calls == []  # not exported


CHECKED = [
    ("float64", dict(a=dict(code=FLOAT, bits=64)), TypeError,
     r"^a: a CUDA array of float64 values given where f16 codes are expected"),
    ("uint32", dict(a=dict(bits=32)), TypeError, r"^a: a CUDA array of dtype uint32; f16 codes on the GPU are 2-byte"),
    ("complex", dict(a=dict(code=COMPLEX, bits=64)), TypeError, r"^a: a CUDA array of dtype complex64"),
    ("bf16_for_f16", dict(a=dict(code=BFLOAT, bits=16)), TypeError,
     r"^a: a bf16 tensor given where f16 codes are expected"),
    ("e4m3_for_f16", dict(b=dict(code=FLOAT8_E4M3FN, bits=8)), TypeError,
     r"^b: a e4m3 tensor given where f16 codes are expected"),
    ("fnuz", dict(a=dict(code=FLOAT8_E5M2FNUZ, bits=8)), TypeError,
     r"^a: a CUDA array of float8_e5m2fnuz values, which is none of tcemu's code types on the GPU"),
    ("strided", dict(a=dict(strides=(64, 1))), ValueError, r"^a: a CUDA array that is not C-contiguous"),
    ("transposed", dict(a=dict(strides=(1, 64))), ValueError, r"^a: a CUDA array that is not C-contiguous"),
    ("3d", dict(a=dict(shape=(2, 64, 32))), ValueError, r"^a: shape \(2, 64, 32\); A \(M x K\) is a matrix"),
    ("1d", dict(c=dict(shape=(64 * 24,))), ValueError, r"^c: shape \(1536,\); C \(M x N\) is a matrix"),
    ("k", dict(b=dict(shape=(16, 24))), ValueError, r"^b: shape \(16, 24\); a is \(64, 32\), so B must have K = 32"),
    ("other_gpu", dict(a=dict(device=(CUDA, 1))), ValueError, r"^a: in the memory of cuda:1, but device='cuda:0'"),
    ("host_memory", dict(a=dict(device_in_capsule=(1, 0))), TypeError,
     r"^a: __dlpack_device__ says CUDA, but its DLPack tensor is in memory of DLPack device type 1"),
    ("negative", dict(b=dict(shape=(32, -24))), ValueError, r"^b: a malformed DLPack tensor: dimension 1 of negative"),
    ("lanes", dict(c=dict(lanes=2)), TypeError, r"^c: a DLPack tensor of 2-lane vectors of uint32"),
    ("ndim", dict(a=dict(ndim=100)), ValueError, r"^a: a malformed DLPack tensor: ndim 100$"),
]


@pytest.mark.parametrize("versioned", [False, True])
@pytest.mark.parametrize("case, changes, exc, match", CHECKED, ids=[c[0] for c in CHECKED])
def test_dlpack_only_arrays_are_checked_on_the_host(case, changes, exc, match, versioned):
    base = dict(a=dict(shape=(64, 32), bits=16), b=dict(shape=(32, 24), bits=16), c=dict(shape=(64, 24), bits=32))
    ops = {}
    for n, kw in base.items():
        kw = dict(kw, **changes.get(n, {}), versioned=versioned)
        capsule_device = kw.pop("device_in_capsule", None)
        if capsule_device is not None:  # a capsule of host memory behind a __dlpack_device__ saying CUDA
            kw["device"] = capsule_device
        ops[n] = FakeDlpack(**kw)
        if capsule_device is not None:
            ops[n].dl_device = (CUDA, 0)
    with pytest.raises(exc, match=match):
        tcemu.mma(ops["a"], ops["b"], ops["c"], **WGMMA, device="cuda")
    assert all(f.deleted == len(f.calls) for f in ops.values())  # every tensor taken was given back
    assert ops["a"].deleted == 1


def test_a_numpy_capsule_is_not_cuda_memory():
    class Liar:
        """Says CUDA, hands over NumPy's (host) capsule."""

        def __init__(self, arr):
            self.arr = arr

        def __dlpack_device__(self):
            return (CUDA, 0)

        def __dlpack__(self, **kw):
            return self.arr.__dlpack__()

    h = [np.zeros(s, np.uint16) for s in ((64, 32), (32, 24))]
    with pytest.raises(TypeError, match=r"^a: __dlpack_device__ says CUDA, but its DLPack tensor is in memory of DLPack "
                                        r"device type 1 \(CUDA is 2"):
        tcemu.mma(Liar(h[0]), Liar(h[1]), **WGMMA, device="cuda")


def test_neither_interface_is_a_clean_error():
    class DeviceOnly:
        def __dlpack_device__(self):
            return (CUDA, 0)

    a, b, c = fakes_wgmma()
    with pytest.raises(TypeError, match=r"^a: a CUDA array with neither __cuda_array_interface__ nor __dlpack__ "
                                        r"\(DeviceOnly\)"):
        tcemu.mma(DeviceOnly(), b, c, **WGMMA, device="cuda")


def test_the_dlpack_path_hands_over_the_layout_mma_cuda_device_takes(monkeypatch):
    # DLPack tensors that point at host memory (data + byte_offset), read by a CPU stand-in of
    # mma_device_codes: D equals tcemu.mma on the host arrays, bit for bit.
    monkeypatch.setattr(tcemu._tcemu, "mma_device_codes", host_stand_in)
    rng = np.random.default_rng(23)
    find = tcemu._tcemu.find_instruction
    e4m3 = find("sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32.e4m3.e4m3."
                           "f32.ue8m0")
    bf16 = [e for e in tcemu.instructions() if e["atype"] == "bf16" and e["family"].startswith("wgmma")][0]
    cases = [(find(**WGMMA), {}), (find(**WGMMA), dict(a=FLOAT, b=FLOAT, c=FLOAT)), (find(**MXF4), {}),
             (find("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"), dict(a=INT, b=INT, c=INT)),
             (e4m3, dict(a=FLOAT8_E4M3FN, b=FLOAT8_E4M3FN, scale_a=FLOAT8_E8M0FNU, scale_b=FLOAT8_E8M0FNU)),
             (bf16, dict(a=BFLOAT, b=BFLOAT))]
    for i, (e, codes) in enumerate(cases):
        a, b, c, kw = problem(rng, e, 48, 24, 3)
        want = tcemu.mma(a, b, c, **entry_args(e), **kw)
        for fortran_sb in (False, True):
            made = []

            def dl(name, arr):
                f = HostDlpack(arr, code=codes.get(name), versioned=(i + fortran_sb) % 2 == 1,
                               null_strides=name != "b", offset=8 * (i + 1))
                made.append(f)
                return f

            dkw = {k: dl(k, np.asfortranarray(v) if k == "scale_b" and fortran_sb else v) for k, v in kw.items()}
            got = tcemu.mma(dl("a", a), dl("b", b), dl("c", c), **entry_args(e), **dkw, device="cuda")
            assert np.array_equal(got, want), e["ptx"]
            assert all(f.deleted == 1 for f in made)


# --- on a usable CUDA GPU, with torch ---------------------------------------------------------

class TorchDlpackOnly:
    """A torch CUDA tensor seen through DLPack only (as a JAX array is): its __dlpack__ /
    __dlpack_device__, or torch.utils.dlpack.to_dlpack (a legacy capsule)."""

    def __init__(self, t, legacy):
        self.t, self.legacy = t, legacy

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()

    def __dlpack__(self, **kw):
        if self.legacy:
            import torch.utils.dlpack

            return torch.utils.dlpack.to_dlpack(self.t)
        return self.t.__dlpack__(**kw)


@needs_gpu
def test_torch_through_dlpack_only_equals_cpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("needs torch with CUDA")
    rng = np.random.default_rng(29)
    signed = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
    entries = [e for e in one_entry_per_datapath() if e["scale_type"] is not None][:6]
    entries += [tcemu._tcemu.find_instruction(**WGMMA),
                tcemu._tcemu.find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")]
    entries += [e for e in tcemu.instructions() if e["atype"] == "bf16" and e["family"].startswith("wgmma")][:1]
    for legacy in (False, True):
        for e in entries:
            a, b, c, kw = problem(rng, e, 70, 20, 2)
            want = tcemu.mma(a, b, c, **entry_args(e), **kw, device="cpu")

            def gpu(x, bf16=False):
                t = torch.from_numpy(np.ascontiguousarray(x).view(signed[x.itemsize])).cuda()
                return TorchDlpackOnly(t.view(torch.bfloat16) if bf16 else t, legacy)  # bfloat16: kDLBfloat

            dkw = {k: gpu(v) for k, v in kw.items() if k != "scale_b"}
            if "scale_b" in kw:  # Fortran-contiguous (K/block x N): the transpose of an N x K/block tensor
                dkw["scale_b"] = TorchDlpackOnly(torch.from_numpy(np.ascontiguousarray(kw["scale_b"].T)).cuda().t(),
                                                 legacy)
            bf16 = e["atype"] == "bf16"
            got = tcemu.mma(gpu(a, bf16), gpu(b, bf16), gpu(c), **entry_args(e), **dkw, device="cuda")
            assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), f"{legacy} {e['ptx']}"


def _jax_gpu():
    """JAX's first GPU, or a skip. The environment should say XLA_PYTHON_CLIENT_PREALLOCATE=false
    (tools/gpu/session.sh does), or JAX takes most of the GPU's memory for itself."""
    jax = pytest.importorskip("jax")
    try:
        gpus = jax.devices("gpu")
    except RuntimeError as err:
        pytest.skip(f"needs JAX with a GPU: {err}")
    if not gpus:
        pytest.skip("needs JAX with a GPU")
    return jax, gpus[0]


@needs_gpu
def test_jax_arrays_equal_cpu():
    """JAX arrays on the GPU, read where they are (DLPack, or __cuda_array_interface__ where the
    JAX version offers it), give the bits of the CPU emulator; scale_b C-contiguous (K/block x
    N), so that tcemu makes the transposed copy with JAX itself."""
    jax, gpu = _jax_gpu()
    rng = np.random.default_rng(31)
    entries = [e for e in one_entry_per_datapath() if e["scale_type"] is not None][:4]
    entries += [tcemu._tcemu.find_instruction(**WGMMA),
                tcemu._tcemu.find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")]
    for e in entries:
        a, b, c, kw = problem(rng, e, 70, 20, 2)
        if max(x.itemsize for x in (a, b, c)) > 4:  # JAX without x64 narrows 64-bit integers
            continue
        want = tcemu.mma(a, b, c, **entry_args(e), **kw, device="cpu")

        def put(x):
            return jax.device_put(np.ascontiguousarray(x), gpu)

        got = tcemu.mma(put(a), put(b), put(c), **entry_args(e), **{k: put(v) for k, v in kw.items()},
                        device="cuda")
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), e["ptx"]
