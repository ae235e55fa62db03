"""examples/dask/mlp_eval.py: the data-parallel evaluation of an MXFP8-emulated MLP over shards
on a LocalCluster of worker processes gives, shard by shard, the bits of a run on one machine
(one thread and two), and the script's own --check passes."""

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest
from distributed import Client, LocalCluster

from conftest import ROOT
from dask_util import TIMEOUT

PATH = os.path.join(ROOT, "examples", "dask", "mlp_eval.py")


@pytest.fixture
def example(monkeypatch):
    # the workers import the example by name, as the workers of a real cluster would
    # (worker processes start with this process's sys.path)
    monkeypatch.syspath_prepend(os.path.dirname(PATH))
    monkeypatch.delitem(sys.modules, "mlp_eval", raising=False)
    return importlib.import_module("mlp_eval")


def test_shards_equal_one_machine(example):
    model = example.make_model(3)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as lc, \
            Client(lc, timeout=TIMEOUT) as cl:
        results = example.evaluate(cl, model, shards=5, rows=96, seed=3)
    assert [r["shard"] for r in results] == list(range(5))
    for r in results:
        for threads in (1, 2):
            local = example.evaluate_shard(model, r["shard"], 96, 3, threads)
            assert r["logits"].dtype == np.uint32 and r["logits"].shape == (96, example.D_OUT)
            assert example.same(r, local), f"shard {r['shard']} differs from one machine's run ({threads} threads)"
    # the emulated recipe is close to the exact model but not equal to it: the metric measures it
    acc = sum(r["correct"] for r in results) / sum(r["count"] for r in results)
    assert 0.8 < acc < 1.0


def test_script_check_passes():
    r = subprocess.run([sys.executable, PATH, "--local", "2", "--shards", "2", "--rows", "32", "--check"],
                       capture_output=True, text=True, timeout=TIMEOUT * 2)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "accuracy" in r.stdout and "every shard's logits are the bits" in r.stdout
    bad = subprocess.run([sys.executable, PATH, "--local", "0"], capture_output=True, text=True, timeout=TIMEOUT)
    assert bad.returncode == 2 and "at least 1" in bad.stderr
