"""tcemu.dask on a distributed.LocalCluster of worker processes: D tile by tile over M and N
(K whole) is bit-identical to tcemu.mma of the whole GEMM on this machine, for shapes that do
not divide the tile, every family of the catalog, block scales, thread counts, dask-array
inputs; map_gemms; clear errors (a tile too large for a worker's memory among them)."""

import gc
import subprocess
import sys
import weakref

import numpy as np
import pytest

import dask
import dask.array as da
from distributed import Client, LocalCluster

import tcemu
import tcemu.dask as td
from dask_util import TIMEOUT, entry_kwargs, find, one_per_family, operands

E4M3 = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3")


@pytest.fixture(scope="module")
def client():
    with dask.config.set({"distributed.comm.timeouts.connect": "30s"}):
        with LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=":0",
                          memory_limit="2GiB") as lc, Client(lc, timeout=TIMEOUT) as cl:
            cl.wait_for_workers(2, timeout=TIMEOUT)
            yield cl


def get(client, d):
    """D of the dask array d, computed on the cluster, within TIMEOUT."""
    return client.compute(d).result(timeout=TIMEOUT)


def test_graph_never_splits_k(client):
    ops = operands(find("sm_90a", lambda e: e["ptx"] == E4M3["instr"]), 100, 70, 4)
    d = td.mma(ops["a"], ops["b"], ops["c"], tile=32, **E4M3)
    assert d.chunks == ((32, 32, 32, 4), (32, 32, 6))
    # one task per tile of D and no reduction over K: every tile task reads one block of A and one of B
    layer = [v for k, v in d.dask.layers.items() if k.startswith("tcemu-mma")][0]
    assert len(layer) == 4 * 3


@pytest.mark.parametrize("shape,tile", [((100, 70, 4), 32), ((65, 129, 2), (64, 16)), ((7, 9, 1), 512),
                                        ((130, 40, 3), (1, 40))])
def test_shapes_that_do_not_divide_the_tile(client, shape, tile):
    M, N, steps = shape
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, M, N, steps, seed=M)
    want = tcemu.mma(**ops, **E4M3)
    got = get(client, td.mma(**ops, tile=tile, **E4M3))
    assert got.dtype == want.dtype and np.array_equal(got, want)


@pytest.mark.parametrize("e", one_per_family(), ids=lambda e: e["family"])
def test_every_family(client, e):
    kw = entry_kwargs(e)
    ops = operands(e, 37, 21, 2, seed=len(e["family"]))
    want = tcemu.mma(**ops, **kw)
    got = get(client, td.mma(**ops, tile=(16, 8), **kw))
    assert got.dtype == want.dtype and np.array_equal(got, want)


BLOCK_SCALED = [
    ("sm_100a", lambda e: "kind::mxf8f6f4" in e["ptx"] and e["atype"] == "e4m3" and e["btype"] == "e5m2"),
    ("sm_100a", lambda e: "kind::mxf8f6f4" in e["ptx"] and e["atype"] == "e2m1" and e["btype"] == "e4m3"),
    ("sm_100a", lambda e: "kind::mxf4nvf4" in e["ptx"] and "4X" in e["ptx"] and e["scale_type"] == "ue4m3"),  # NVFP4
    ("sm_100a", lambda e: "kind::mxf4nvf4" in e["ptx"] and "2X" in e["ptx"]),  # MXFP4
]


@pytest.mark.parametrize("arch,pred", BLOCK_SCALED, ids=["mxf8f6f4-e4m3-e5m2", "mxf8f6f4-e2m1-e4m3", "nvfp4", "mxfp4"])
def test_block_scaled(client, arch, pred):
    e = find(arch, pred)
    kw = entry_kwargs(e)
    ops = operands(e, 50, 33, 4, seed=7)
    want = tcemu.mma(**ops, **kw)
    got = get(client, td.mma(**ops, tile=(16, 16), **kw))
    assert np.array_equal(got, want)
    # the options pass through: promotion every instruction and no C
    want = tcemu.mma(ops["a"], ops["b"], scale_a=ops["scale_a"], scale_b=ops["scale_b"], promote_every=1, **kw)
    got = td.mma(ops["a"], ops["b"], scale_a=ops["scale_a"], scale_b=ops["scale_b"], promote_every=1, tile=24, **kw)
    assert np.array_equal(get(client, got), want)


@pytest.mark.parametrize("threads", [None, 1, 2, 3])
def test_thread_counts(client, threads):
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, 96, 80, 8, seed=3)
    want = tcemu.mma(**ops, threads=1, **E4M3)
    got = get(client, td.mma(**ops, tile=(48, 40), threads=threads, **E4M3))
    assert np.array_equal(got, want)


def test_worker_share(client):
    # two workers of two task slots on this host: cores // 4, at least 1
    cores = client.run(td._cpus)
    shares = td.worker_shares(client)
    assert set(shares) == set(cores)
    assert all(v == max(1, cores[w] // 4) for w, v in shares.items())


def test_dask_array_inputs_are_rechunked_with_k_whole(client):
    e = find("sm_80", lambda e: e["atype"] == "bf16" and e["ptx"].startswith("mma.sync") and e["K"] == 16)
    kw = entry_kwargs(e)
    ops = operands(e, 64, 48, 6, seed=11)
    want = tcemu.mma(**ops, **kw)
    A = da.from_array(ops["a"], chunks=(20, 16))   # K split in 6: rechunked to one K block
    B = da.from_array(ops["b"], chunks=(32, 7))
    C = da.from_array(ops["c"], chunks=(64, 48))   # C's chunks follow A's rows and B's columns
    d = td.mma(A, B, C, **kw)
    assert d.chunks == (A.chunks[0], B.chunks[1])
    assert np.array_equal(get(client, d), want)
    assert np.array_equal(get(client, td.mma(A, B, C, tile=30, **kw)), want)


def test_local_scheduler_without_a_cluster():
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, 40, 24, 2, seed=5)
    got = td.mma(**ops, tile=16, client=None, **E4M3).compute(scheduler="threads")
    assert np.array_equal(got, tcemu.mma(**ops, **E4M3))


def test_clear_errors():
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, 8, 8, 1)
    with pytest.raises(ValueError, match="does not tile"):
        td.mma(ops["a"][:, :20], ops["b"][:20], **E4M3)
    with pytest.raises(ValueError, match="c: shape"):
        td.mma(ops["a"], ops["b"], ops["c"][:4], **E4M3)
    with pytest.raises(ValueError, match="tile"):
        td.mma(ops["a"], ops["b"], tile=0, **E4M3)
    with pytest.raises(TypeError, match="tile"):
        td.mma(ops["a"], ops["b"], tile=(4, 4, 4), **E4M3)
    with pytest.raises(TypeError, match="unexpected keyword"):
        td.mma(ops["a"], ops["b"], tiles=4, **E4M3)
    with pytest.raises(ValueError, match="takes no block scales"):
        td.mma(ops["a"], ops["b"], scale_a=ops["a"], scale_b=ops["b"], **E4M3)
    with pytest.raises(ValueError, match="unknown architecture"):
        td.mma(ops["a"], ops["b"], arch="sm_99", instr=E4M3["instr"])
    nv = find("sm_100a", BLOCK_SCALED[2][1])
    o = operands(nv, 8, 8, 1)
    with pytest.raises(ValueError, match="scales are required"):
        td.mma(o["a"], o["b"], **entry_kwargs(nv))
    with pytest.raises(ValueError, match="scale_b: shape"):
        td.mma(o["a"], o["b"], scale_a=o["scale_a"], scale_b=da.from_array(o["scale_b"][:, :4]), **entry_kwargs(nv))


# ---- map_gemms --------------------------------------------------------------------------------

def test_map_gemms_scatters_each_operand_once_and_keeps_none(client, monkeypatch):
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    nv = find("sm_100a", BLOCK_SCALED[2][1])
    W = operands(e, 64, 40, 4, seed=2)["b"]  # one weight in every GEMM of the step
    refs, want = [], []

    sent = []
    real_scatter = client.scatter

    def counting_scatter(data, *args, **kwargs):
        sent.extend(id(x) for x in data)
        return real_scatter(data, *args, **kwargs)

    monkeypatch.setattr(client, "scatter", counting_scatter)

    def problems():  # made one at a time, as a recorder of a model step hands them over
        for i in range(5):
            x = operands(e, 16 + 8 * i, 40, 4, seed=10 + i)["a"]
            refs.append(weakref.ref(x))
            want.append(tcemu.mma(x, W, **E4M3))
            yield {"a": x, "b": W, **E4M3}
            del x
        o = operands(nv, 24, 16, 2, seed=99)
        want.append(tcemu.mma(**o, **entry_kwargs(nv)))
        yield {"fn": "mma", **o, **entry_kwargs(nv)}

    futs = td.map_gemms(client, problems())
    gc.collect()
    assert all(r() is None for r in refs), "the client still holds the scattered activations"
    assert sent.count(id(W)) == 1, "the shared weight was scattered more than once"
    got = client.gather(futs)
    assert len(got) == len(want) == 6
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


def test_map_gemms_futures_and_mma_params(client):
    e = find("sm_80", lambda e: e["atype"] == "f16" and e["ptx"].startswith("mma.sync") and e["dtype"] == "f32"
             and e["K"] == 16)
    ops = operands(e, 33, 17, 3, seed=4)
    fa = client.scatter(ops["a"])
    p = {"a": fa, "b": ops["b"], "c": ops["c"], **entry_kwargs(e), "threads": 2}
    q = {"fn": "mma_params", "a": ops["a"], "b": ops["b"], "c": ops["c"], "params": e["params"],
         "atype": e["atype"], "btype": e["btype"], "instr_k": e["K"]}
    d1, d2 = client.gather(td.map_gemms(client, [p, q]))
    want = tcemu.mma(**ops, **entry_kwargs(e))
    assert np.array_equal(d1, want)
    assert np.array_equal(d2, tcemu.mma_params(**ops, params=e["params"], atype=e["atype"], btype=e["btype"],
                                               instr_k=e["K"]))


def test_map_gemms_bad_problems(client):
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, 8, 8, 1)
    with pytest.raises(TypeError, match=r"problems\[0\]: a dict"):
        td.map_gemms(client, [(ops["a"], ops["b"])])
    with pytest.raises(ValueError, match=r"problems\[1\]: fn 'matmul'"):
        td.map_gemms(client, [{"a": ops["a"], "b": ops["b"], **E4M3}, {"fn": "matmul"}])
    with pytest.raises(TypeError, match=r"problems\[0\]: .*arch"):
        td.map_gemms(client, [{"a": ops["a"], "b": ops["b"], "instr": E4M3["instr"]}])
    with pytest.raises(TypeError, match=r"problems\[0\]: .*unexpected keyword"):
        td.map_gemms(client, [{"a": ops["a"], "b": ops["b"], "tile": 4, **E4M3}])
    with pytest.raises(TypeError, match="dask array"):
        td.map_gemms(client, [{"a": da.from_array(ops["a"]), "b": ops["b"], **E4M3}])
    # an error of tcemu.mma itself comes back from the worker as it is
    fut, = td.map_gemms(client, [{"a": ops["a"][:, :20], "b": ops["b"][:20], **E4M3}])
    with pytest.raises(ValueError, match="does not tile"):
        fut.result(timeout=TIMEOUT)


# ---- memory ---------------------------------------------------------------------------------

def test_a_tile_too_large_for_the_worker_is_a_clear_error():
    # 512 MiB workers; one 8192 x 8192 tile over K = 32 needs about 1.5 GiB in the C++ core
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    rng = np.random.default_rng(0)
    A = rng.integers(0, 0x70, (8192, 32)).astype(np.uint8)
    B = rng.integers(0, 0x70, (32, 8192)).astype(np.uint8)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0",
                      memory_limit="512MiB") as lc, Client(lc, timeout=TIMEOUT) as cl:
        d = td.mma(A, B, tile=8192, **E4M3)
        with pytest.raises(MemoryError, match=r"needs about \d+ MiB on worker .* memory limit of 512 MiB.*smaller tile"):
            cl.compute(d).result(timeout=TIMEOUT)
        fut, = td.map_gemms(cl, [{"a": A, "b": B, **E4M3}])
        with pytest.raises(MemoryError, match="the GEMM"):
            fut.result(timeout=TIMEOUT)
        # the same worker computes a tile that fits
        small = td.mma(A[:256], B[:, :256], tile=128, **E4M3)
        assert np.array_equal(cl.compute(small).result(timeout=TIMEOUT), tcemu.mma(A[:256], B[:, :256], **E4M3))


def test_import_tcemu_needs_no_dask():
    code = ("import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None\n"
            "import tcemu\nassert 'tcemu.dask' not in sys.modules\n"
            "try:\n    import tcemu.dask\nexcept ImportError as e:\n    print(e)\nelse:\n    raise SystemExit('imported')\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 0, r.stderr
    assert "tcemu.dask needs dask and distributed" in r.stdout
