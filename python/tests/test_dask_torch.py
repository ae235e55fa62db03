"""A model step's GEMMs, recorded by tcemu.torch.GemmRecorder, computed on a Dask cluster of
worker processes by tcemu.dask.map_gemms: every D equals the one-machine result, bit for bit."""

import dask
import numpy as np
import pytest
import torch
from distributed import Client, LocalCluster
from torch import nn

import tcemu
import tcemu.dask as tdask
import tcemu.torch as tt

TIMEOUT = 240


@pytest.mark.parametrize("recipe,arch", [(tt.MXFP8BlockScaling(), "sm_100a"), (tt.Float8BlockScaling(), "sm_90a")])
def test_recorded_model_step_on_a_cluster(recipe, arch):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 64))
    tt.convert(m, recipe, arch=arch)
    x = torch.randn(64, 128, requires_grad=True)
    with tt.GemmRecorder() as rec:
        m(x).sum().backward()
    assert len(rec.problems) == 6  # fprop x 2, dgrad x 2 (the first layer's too: x needs it), wgrad x 2
    local = []
    for p in rec.problems:
        f = tcemu.gemm_kblock if p["fn"] == "gemm_kblock" else tcemu.gemm
        local.append(f(**{k: v for k, v in p.items() if k != "fn"}))
    with dask.config.set({"distributed.comm.timeouts.connect": "30s"}):
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                          memory_limit="2GiB") as lc, Client(lc, timeout=TIMEOUT) as cl:
            cl.wait_for_workers(2, timeout=TIMEOUT)
            futures = tdask.map_gemms(cl, rec.problems)
            remote = cl.gather(futures)
    for (layer, role), d_local, d_remote in zip(rec.labels, local, remote):
        np.testing.assert_array_equal(d_remote, d_local, err_msg=f"{layer} {role}")
