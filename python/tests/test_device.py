"""device= of tcemu.mma / tcemu.mma_params and tcemu.cuda_status (docs/gpu-emulation.md).

Without a usable CUDA GPU (no CUDA backend in the build, or no driver / GPU): device="cpu" is
the default bit for bit; bad device names and device="cuda" raise errors that say why; objects
in GPU memory (here fakes exposing __cuda_array_interface__) are checked and routed to the
device-operand path (the C++ mma() with DeviceOperands) without being copied, which then reports that it cannot
run. With a usable GPU: random problems of every datapath family of the catalog, computed with
device="cuda", against device="cpu", bit for bit (and CuPy / torch CUDA operands where present).
"""

import numpy as np
import pytest

import tcemu

WGMMA = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16")
MXF4 = dict(arch="sm_100a", instr="tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X", atype="e2m1",
            btype="e2m1", stype="ue8m0")
STATUS = tcemu.cuda_status()
USABLE = STATUS["usable"]
needs_no_gpu = pytest.mark.skipif(USABLE, reason="checks the messages of a machine whose CUDA device 0 cannot run")
needs_gpu = pytest.mark.skipif(not USABLE, reason=f"needs a usable CUDA GPU: {STATUS['why_not']}")
NO_GPU_PREFIX = "device='cuda:0': cannot run the emulator on the GPU: "

_FMT = {f["name"]: f for f in tcemu._tcemu.format_table()}
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def rand_codes(rng, fmt, shape):
    """Random codes of fmt (every code of the format, NaN and Inf among them)."""
    f = _FMT[fmt]
    bits = rng.integers(0, 2**63, size=shape, dtype=np.uint64) & np.uint64(f["code_mask"])
    return bits.astype(_UNSIGNED[f["container_bytes"]])


def problem(rng, e, M, N, k_instr):
    K = k_instr * e["K"]
    a = rand_codes(rng, e["atype"], (M, K))
    b = rand_codes(rng, e["btype"], (K, N))
    c = rand_codes(rng, "f32" if e["dtype"] == "s32" else e["dtype"], (M, N))
    if e["dtype"] == "s32":
        c = c.view(np.int32)
    kw = {}
    if e["scale_type"] is not None:
        kb = K // e["scale_block"]
        kw = dict(scale_a=rand_codes(rng, e["scale_type"], (M, kb)), scale_b=rand_codes(rng, e["scale_type"], (kb, N)))
    return a, b, c, kw


def entry_args(e):
    kw = dict(arch=e["arch"], instr=e["ptx"], atype=e["atype"], btype=e["btype"], dtype=e["dtype"])
    if e["scale_type"] is not None:
        kw["stype"] = e["scale_type"]
    return kw


def wgmma_operands(seed=1):
    rng = np.random.default_rng(seed)
    return rand_codes(rng, "f16", (64, 32)), rand_codes(rng, "f16", (32, 24)), rand_codes(rng, "f32", (64, 24))


class FakeCuda:
    """An object in 'GPU memory' as CuPy or Numba show one: only __cuda_array_interface__
    (a made-up pointer; no __array__, so a copy to the host would fail). Records reads."""

    def __init__(self, shape, typestr, strides=None, ptr=0x7F0000000000, dlpack=None, mask=None):
        self.cai = dict(shape=tuple(shape), typestr=typestr, data=(ptr, False), version=3, strides=strides)
        if mask is not None:
            self.cai["mask"] = mask
        self.reads = 0
        if dlpack is not None:
            self.__dlpack_device__ = lambda: dlpack

    @property
    def __cuda_array_interface__(self):
        self.reads += 1
        return self.cai


class FakeDlpackOnly:
    def __dlpack_device__(self):
        return (2, 0)


def fakes_wgmma(M=64, K=32, N=24):
    return FakeCuda((M, K), "<u2"), FakeCuda((K, N), "<u2"), FakeCuda((M, N), "<u4")


# --- device="cpu" and the device names -------------------------------------------------------

def test_cpu_is_the_default_bit_for_bit():
    rng = np.random.default_rng(7)
    for e in (tcemu._tcemu.find_instruction(**WGMMA), tcemu._tcemu.find_instruction(**MXF4),
              tcemu._tcemu.find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")):
        a, b, c, kw = problem(rng, e, 64, 40, 3)
        d = tcemu.mma(a, b, c, **entry_args(e), **kw)
        assert np.array_equal(tcemu.mma(a, b, c, **entry_args(e), **kw, device="cpu"), d)
        assert np.array_equal(tcemu.mma(a, b, c, **entry_args(e), **kw, device="cpu", threads=2), d)
    e = tcemu._tcemu.find_instruction(**WGMMA)
    a, b, c, _ = problem(rng, e, 16, 8, 2)
    p = dict(params=e["params"], atype="f16", btype="f16", instr_k=16)
    assert np.array_equal(tcemu.mma_params(a, b, c, **p, device="cpu"), tcemu.mma_params(a, b, c, **p))


@pytest.mark.parametrize("bad", ["gpu", "CUDA", "cuda:", "cuda:-1", "cuda:x", "cuda0", "cpu:0", "", "cuda:99999"])
def test_unknown_device_names_list_the_valid_ones(bad):
    a, b, c = wgmma_operands()
    for f in (lambda: tcemu.mma(a, b, c, **WGMMA, device=bad),
              lambda: tcemu.mma_params(a, b, c, params={}, atype="f16", btype="f16", device=bad)):
        with pytest.raises(ValueError, match=r"^device: unknown device '.*' \(valid: 'cpu', 'cuda' \(device 0\), or "
                                             r"'cuda:N'"):
            f()


@pytest.mark.parametrize("bad", [0, None, b"cuda", 1.0])
def test_device_must_be_a_name(bad):
    a, b, c = wgmma_operands()
    with pytest.raises(TypeError, match="^device: a device name"):
        tcemu.mma(a, b, c, **WGMMA, device=bad)


def test_threads_apply_to_the_cpu_only():
    a, b, c = wgmma_operands()
    with pytest.raises(ValueError, match="^threads: applies to device='cpu'"):
        tcemu.mma(a, b, c, **WGMMA, device="cuda", threads=2)


def test_cuda_status():
    s = tcemu.cuda_status()
    assert set(s) == {"device", "built", "usable", "name", "why_not"}
    assert s["device"] == "cuda:0"
    assert not s["usable"] or (s["built"] and s["name"] and not s["why_not"])
    assert s["usable"] or (s["why_not"] and "\n" not in s["why_not"])
    assert tcemu.cuda_status("cuda:3")["device"] == "cuda:3"
    assert tcemu.cuda_status(2)["device"] == "cuda:2"
    assert tcemu.cuda_status("cuda") == s
    assert not tcemu.cuda_status(1023)["usable"]
    with pytest.raises(ValueError, match="'cpu' is not a CUDA device"):
        tcemu.cuda_status("cpu")
    for bad in (-1, True, 1.5, None):
        with pytest.raises(TypeError):
            tcemu.cuda_status(bad)


@needs_no_gpu
def test_cuda_that_cannot_run_is_a_runtime_error_saying_why():
    a, b, c = wgmma_operands()
    for dev, prefix in (("cuda", NO_GPU_PREFIX), ("cuda:0", NO_GPU_PREFIX),
                        ("cuda:5", NO_GPU_PREFIX.replace("cuda:0", "cuda:5"))):
        why = tcemu.cuda_status(dev)["why_not"]
        with pytest.raises(RuntimeError) as ex:
            tcemu.mma(a, b, c, **WGMMA, device=dev)
        assert str(ex.value) == prefix + why
        with pytest.raises(RuntimeError) as ex:
            tcemu.mma_params(a, b, c, params={}, atype="f16", btype="f16", device=dev)
        assert str(ex.value) == prefix + why
    # Bad problems are still the ValueErrors of device="cpu", found before the GPU is asked.
    with pytest.raises(ValueError, match="does not tile"):
        tcemu.mma(a[:, :8], b[:8], c, **WGMMA, device="cuda")


def test_torch_cpu_tensors_stay_on_the_host_path():
    torch = pytest.importorskip("torch")
    a, b, c = wgmma_operands()
    ta, tb, tc = (torch.from_numpy(x.view(np.int16 if x.itemsize == 2 else np.int32)) for x in (a, b, c))
    assert np.array_equal(tcemu.mma(ta, tb, tc, **WGMMA, device="cpu"), tcemu.mma(a, b, c, **WGMMA))
    if not USABLE:
        with pytest.raises(RuntimeError, match="^device='cuda:0': cannot run"):
            tcemu.mma(ta, tb, tc, **WGMMA, device="cuda")


# --- operands in GPU memory ------------------------------------------------------------------

def test_cuda_array_with_device_cpu_says_to_pass_device_cuda():
    a, b, c = fakes_wgmma()
    with pytest.raises(ValueError, match=r"^a: a CUDA array \(on a CUDA device\) with device='cpu'; pass device='cuda'"):
        tcemu.mma(a, b, c, **WGMMA)
    _, h, _ = wgmma_operands()
    a2 = FakeCuda((64, 32), "<u2", dlpack=(2, 1))
    with pytest.raises(ValueError, match=r"^a: a CUDA array \(on cuda:1\) with device='cpu'.*\.cpu\(\)"):
        tcemu.mma(a2, h, **WGMMA, device="cpu")
    with pytest.raises(ValueError, match=r"^b: a CUDA array \(on a CUDA device\); tcemu.mma_params takes host arrays"):
        tcemu.mma_params(h, b, params={}, atype="f16", btype="f16", device="cuda")


@needs_no_gpu
def test_cuda_arrays_are_read_in_place_by_the_device_path():
    # Routed to the device-operand mma(): the interface was read, nothing was copied to the host (a fake
    # has no host data: the host path would raise TypeError), and the backend said why it cannot run.
    for c in (FakeCuda((64, 24), "<u4"), FakeCuda((64, 24), "<f4"), None):
        a, b, _ = fakes_wgmma()
        with pytest.raises(RuntimeError) as ex:
            tcemu.mma(a, b, c, **WGMMA, device="cuda")
        assert str(ex.value) == NO_GPU_PREFIX + STATUS["why_not"]
        assert a.reads >= 1 and b.reads >= 1 and (c is None or c.reads >= 1)
    # Signed integers of the container's width, and float16 for f16, are codes too.
    for ts in ("<i2", "<f2"):
        with pytest.raises(RuntimeError):
            tcemu.mma(FakeCuda((64, 32), ts), FakeCuda((32, 24), "<u2"), **WGMMA, device="cuda")
    # Block scales: scale_b (K/block x N) Fortran-contiguous is the N x K/block buffer itself.
    M, K, N = 128, 128, 16
    kb = K // 32
    sb_f = FakeCuda((kb, N), "|u1", strides=(1, kb))
    with pytest.raises(RuntimeError, match="cannot run the emulator"):
        tcemu.mma(FakeCuda((M, K), "|u1"), FakeCuda((K, N), "|u1"), FakeCuda((M, N), "<u4"),
                  scale_a=FakeCuda((M, kb), "|u1"), scale_b=sb_f, **MXF4, device="cuda")
    assert sb_f.reads >= 1
    # On a device named by the array itself (DLPack's __dlpack_device__).
    with pytest.raises(RuntimeError, match="^device='cuda:1': cannot run"):
        tcemu.mma(FakeCuda((64, 32), "<u2", dlpack=(2, 1)), FakeCuda((32, 24), "<u2", dlpack=(2, 1)), **WGMMA,
                  device="cuda:1")


@pytest.mark.parametrize("case, exc, match", [
    ("float64", TypeError, r"^a: a CUDA array of float64 values given where f16 codes are expected"),
    ("uint32", TypeError, r"^a: a CUDA array of dtype uint32; f16 codes"),
    ("float32", TypeError, r"^a: a CUDA array of float32 values given where f16 codes are expected"),
    ("bool", TypeError, r"^a: a CUDA array of dtype bool"),
    ("strided", ValueError, r"^a: a CUDA array that is not C-contiguous"),
    ("3d", ValueError, r"^a: shape \(2, 64, 32\); A \(M x K\) is a matrix"),
    ("k", ValueError, r"^b: shape \(16, 24\); a is \(64, 32\), so B must have K = 32 rows"),
    ("c_shape", ValueError, r"^c: shape \(24, 64\); C is M x N = \(64, 24\)"),
    ("c_dtype", TypeError, r"^c: a CUDA array of dtype uint16; f32 codes on the GPU are 4-byte integers"),
    ("mixed", ValueError, r"^c: a host array, while a is in GPU memory"),
    ("other_gpu", ValueError, r"^a: in the memory of cuda:1, but device='cuda:0'; pass device='cuda:1'"),
    ("dlpack_only", TypeError, r"^a: a CUDA array with neither __cuda_array_interface__ nor __dlpack__"),
    ("masked", TypeError, r"^a: a masked CUDA array"),
    ("scales", ValueError, r"^scale_a: .* takes no block scales"),
])
def test_cuda_arrays_are_checked_on_the_host(case, exc, match):
    a, b, c = fakes_wgmma()
    kw = {}
    if case in ("float64", "uint32", "float32", "bool"):
        a = FakeCuda((64, 32), np.dtype(case).str)
    elif case == "strided":
        a = FakeCuda((64, 32), "<u2", strides=(128, 2))
    elif case == "3d":
        a = FakeCuda((2, 64, 32), "<u2")
    elif case == "k":
        b = FakeCuda((16, 24), "<u2")
    elif case == "c_shape":
        c = FakeCuda((24, 64), "<u4")
    elif case == "c_dtype":
        c = FakeCuda((64, 24), "<u2")
    elif case == "mixed":
        c = np.zeros((64, 24), np.uint32)
    elif case == "other_gpu":
        a = FakeCuda((64, 32), "<u2", dlpack=(2, 1))
    elif case == "dlpack_only":
        a = FakeDlpackOnly()
    elif case == "masked":
        a = FakeCuda((64, 32), "<u2", mask=object())
    elif case == "scales":
        kw = dict(scale_a=FakeCuda((64, 1), "|u1"), scale_b=FakeCuda((1, 24), "|u1"))
    with pytest.raises(exc, match=match):
        tcemu.mma(a, b, c, **WGMMA, **kw, device="cuda")


def test_c_contiguous_scale_b_needs_a_library_that_transposes():
    M, K, N = 128, 128, 16
    kb = K // 32
    with pytest.raises(ValueError, match=r"^scale_b: a C-contiguous \(K/block, N\) CUDA array of FakeCuda, which tcemu "
                                         r"cannot transpose"):
        tcemu.mma(FakeCuda((M, K), "|u1"), FakeCuda((K, N), "|u1"), scale_a=FakeCuda((M, kb), "|u1"),
                  scale_b=FakeCuda((kb, N), "|u1"), **MXF4, device="cuda")
    with pytest.raises(ValueError, match=r"^scale_b: shape \(16, 4\); one scale per block of K for each column"):
        tcemu.mma(FakeCuda((M, K), "|u1"), FakeCuda((K, N), "|u1"), scale_a=FakeCuda((M, kb), "|u1"),
                  scale_b=FakeCuda((N, kb), "|u1"), **MXF4, device="cuda")


class HostBacked(FakeCuda):
    """A 'CUDA array' whose pointer is really a NumPy array's host memory, with .T.copy() as
    CuPy has: for the stand-in of mma_device_codes below."""

    def __init__(self, arr):
        self.arr = arr
        super().__init__(arr.shape, arr.dtype.str, strides=None if arr.flags.c_contiguous else arr.strides,
                         ptr=arr.__array_interface__["data"][0])

    @property
    def T(self):
        return HostBacked(self.arr.T)

    def copy(self):
        return HostBacked(np.ascontiguousarray(self.arr))


def host_stand_in(arch, instr, atype, btype, dtype, stype, A, B, C, SA, SB, M, N, K, pe, na, nb, sd, sid, dev):
    """mma_device_codes computed on the CPU from the (pointer, itemsize, count) triples, read as
    the C++ mma() reads DeviceOperands: A M x K, B K x N, C M x N, scales M x K/block and
    N x K/block, all row-major."""
    import ctypes

    def host(t, rows, cols):
        if t is None:
            return None
        ptr, itemsize, count = t
        assert count == rows * cols
        buf = (ctypes.c_char * (itemsize * count)).from_address(ptr)
        return np.frombuffer(buf, dtype=_UNSIGNED[itemsize]).reshape(rows, cols).copy()

    kb = 0 if SA is None else SA[2] // M
    return tcemu._tcemu.mma_codes(arch, instr, atype, btype, dtype, stype, host(A, M, K), host(B, K, N), host(C, M, N),
                                  host(SA, M, kb), host(SB, N, kb), M, N, K, pe, na, nb, sd, sid, 1, -1)


def test_device_path_reads_the_layout_mma_cuda_device_takes(monkeypatch):
    # The device path's pointers, itemsizes and counts (scale_b transposed on the "GPU" or given
    # Fortran-contiguous) computed by the CPU emulator: D equals tcemu.mma on the host arrays.
    monkeypatch.setattr(tcemu._tcemu, "mma_device_codes", host_stand_in)
    rng = np.random.default_rng(11)
    entries = [tcemu._tcemu.find_instruction(**WGMMA), tcemu._tcemu.find_instruction(**MXF4),
               tcemu._tcemu.find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8"),
               tcemu._tcemu.find_instruction("sm_120a", "mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale."
                                             "scale_vec::1X.f32.e4m3.e4m3.f32.ue8m0")]
    for e in entries:
        a, b, c, kw = problem(rng, e, 48, 24, 3)
        want = tcemu.mma(a, b, c, **entry_args(e), **kw)
        for fortran_sb in (False, True):
            dkw = {k: HostBacked(np.asfortranarray(v) if k == "scale_b" and fortran_sb else v) for k, v in kw.items()}
            got = tcemu.mma(HostBacked(a), HostBacked(b), HostBacked(c), **entry_args(e), **dkw, device="cuda")
            assert np.array_equal(got, want), e["ptx"]
        assert np.array_equal(tcemu.mma(HostBacked(a), HostBacked(b), **entry_args(e), **dkw, scale_d=False,
                                         device="cuda"),
                              tcemu.mma(a, b, **entry_args(e), **kw, scale_d=False)), e["ptx"]


# --- on a usable CUDA GPU --------------------------------------------------------------------

def one_entry_per_datapath():
    """One catalog entry for each family, operand types, accumulator, scale type and datapath."""
    seen, out = set(), []
    for e in tcemu.instructions():
        key = (e["family"], e["atype"], e["btype"], e["dtype"], e["scale_type"], e["scale_vec"], e["datapath"])
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


@needs_gpu
def test_cuda_equals_cpu_on_random_problems_of_every_family():
    rng = np.random.default_rng(17)
    entries = one_entry_per_datapath()
    assert len(entries) > 100
    for i, e in enumerate(entries):
        M, N = int(rng.integers(1, 130)), int(rng.integers(1, 70))
        a, b, c, kw = problem(rng, e, M, N, int(rng.integers(1, 6)))
        opts = {}
        if i % 3 == 1:
            opts["scale_d"] = False
        if e["family"].startswith("wgmma") and i % 4 == 2:
            opts.update(negate_a=True, negate_b=bool(i % 8 == 2))
        if e["family"].startswith("tcgen05") and i % 4 == 3:
            opts["scale_input_d"] = int(rng.integers(0, 16))
        if e["dtype"] == "f32" and i % 5 == 0:
            opts["promote_every"] = int(rng.integers(1, 4))
        args = dict(entry_args(e), **kw, **opts)
        want = tcemu.mma(a, b, c, **args, device="cpu")
        got = tcemu.mma(a, b, c, **args, device="cuda")
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(_UNSIGNED[got.itemsize]), want.view(_UNSIGNED[want.itemsize])), \
            f"{e['arch']} {e['ptx']} {e['atype']}.{e['btype']}.{e['dtype']} {opts}"


@needs_gpu
def test_mma_params_cuda_equals_cpu():
    rng = np.random.default_rng(5)
    for e in one_entry_per_datapath()[::7]:
        a, b, c, kw = problem(rng, e, 33, 17, 2)
        p = dict(params=e["params"], atype=e["atype"], btype=e["btype"], instr_k=e["K"])
        if e["scale_type"] is not None:
            p.update(stype=e["scale_type"], scale_block=e["scale_block"])
        want = tcemu.mma_params(a, b, c, **p, **kw)
        assert np.array_equal(tcemu.mma_params(a, b, c, **p, **kw, device="cuda"), want), e["ptx"]


def gpu_array_libraries():
    libs = []
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            libs.append(("cupy", cupy.asarray))
    except Exception:
        pass
    try:
        import torch

        if torch.cuda.is_available():
            libs.append(("torch", lambda x: torch.from_numpy(np.ascontiguousarray(x).view(
                {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}[x.itemsize])).cuda()))
    except Exception:
        pass
    return libs


@needs_gpu
def test_cuda_arrays_equal_host_operands():
    libs = gpu_array_libraries()
    if not libs:
        pytest.skip("needs CuPy or torch with CUDA")
    rng = np.random.default_rng(3)
    entries = [e for e in one_entry_per_datapath() if e["scale_type"] is not None][:6]
    entries += [tcemu._tcemu.find_instruction(**WGMMA),
                tcemu._tcemu.find_instruction("sm_90a", "wgmma.mma_async.sync.aligned.m64n8k32.s32.s8.s8")]
    for name, to_gpu in libs:
        for e in entries:
            a, b, c, kw = problem(rng, e, 70, 20, 2)
            want = tcemu.mma(a, b, c, **entry_args(e), **kw)
            dkw = {k: to_gpu(v) for k, v in kw.items()}  # scale_b C-contiguous: transposed on the GPU
            got = tcemu.mma(to_gpu(a), to_gpu(b), to_gpu(c), **entry_args(e), **dkw, device="cuda")
            assert isinstance(got, np.ndarray)
            assert np.array_equal(got, want), f"{name} {e['ptx']}"
