"""tcemu.dask on a real cluster: a `dask scheduler` and two `dask worker` processes started
here on 127.0.0.1 over TCP (ports chosen by the scheduler: --port 0 and a scheduler file) and
stopped here. The tiles are computed on both workers with the bits of tcemu.mma on one machine;
a worker SIGKILLed in the middle of a GEMM has its tasks recomputed on the other, with D
identical. Every wait is bounded."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from distributed import Client

import tcemu
import tcemu.dask as td
from dask_util import TIMEOUT, entry_kwargs, find, operands

DASK = os.path.join(os.path.dirname(sys.executable), "dask")  # the venv's console script
E4M3 = dict(arch="sm_90a", instr="wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3")


def _stop(procs):
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 10
    for p in procs:
        try:
            p.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)


def _until(cond, what, timeout=TIMEOUT, every=0.05):
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class Cluster:
    def __init__(self, tmp_path, workers=2, memory="1GiB"):
        assert os.path.exists(DASK), f"{DASK}: the dask command line is not installed (requirements.txt)"
        self.file = str(tmp_path / "scheduler.json")
        env = dict(os.environ)
        env.pop("TCEMU_NUM_THREADS", None)
        self.logs = []
        self.procs = []
        self.client = None

        def start(args, name):
            log = open(tmp_path / f"{name}.log", "w")
            self.logs.append(log)
            self.procs.append(subprocess.Popen([DASK] + args, stdout=log, stderr=subprocess.STDOUT, env=env))
            return self.procs[-1]

        try:
            start(["scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", self.file],
                  "scheduler")
            _until(lambda: os.path.exists(self.file) and os.path.getsize(self.file) > 0, "the scheduler file", 60)
            self.workers = [start(["worker", "--scheduler-file", self.file, "--host", "127.0.0.1", "--nthreads", "1",
                                   "--no-nanny", "--no-dashboard", "--name", f"w{i}", "--memory-limit", memory,
                                   "--death-timeout", "60"], f"worker{i}") for i in range(workers)]
            self.client = Client(scheduler_file=self.file, timeout=TIMEOUT)
            self.client.wait_for_workers(workers, timeout=TIMEOUT)
        except BaseException:
            self.close()
            raise

    def pid_of(self, address):
        return self.client.run(os.getpid, workers=[address])[address]

    def close(self):
        if self.client is not None:
            self.client.close(timeout=10)
        _stop(self.procs[1:])  # the workers, then the scheduler
        _stop(self.procs[:1])
        for f in self.logs:
            f.close()


@pytest.fixture
def cluster(tmp_path):
    c = Cluster(tmp_path)
    yield c
    c.close()


def test_real_scheduler_and_workers_over_tcp(cluster):
    cl = cluster.client
    assert cl.scheduler.address.startswith("tcp://127.0.0.1:")
    addrs = list(cl.nthreads())
    assert len(addrs) == 2 and all(a.startswith("tcp://127.0.0.1:") for a in addrs)
    assert {cluster.pid_of(a) for a in addrs} == {p.pid for p in cluster.workers}
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    ops = operands(e, 190, 150, 8, seed=21)
    want = tcemu.mma(**ops, **E4M3)
    d = td.mma(**ops, tile=32, **E4M3).persist()
    got = cl.compute(d).result(timeout=TIMEOUT)
    assert np.array_equal(got, want)
    holders = {w for ws in cl.who_has(d).values() for w in ws}
    assert holders == set(addrs), "the tiles were not computed on both workers"
    nv = find("sm_100a", lambda e: "kind::mxf4nvf4" in e["ptx"] and "4X" in e["ptx"] and e["scale_type"] == "ue4m3")
    o = operands(nv, 64, 40, 4, seed=22)
    fut, = td.map_gemms(cl, [{**o, **entry_kwargs(nv)}])
    assert np.array_equal(fut.result(timeout=TIMEOUT), tcemu.mma(**o, **entry_kwargs(nv)))


def test_worker_killed_in_the_middle_of_a_gemm(cluster):
    cl = cluster.client
    e = find("sm_90a", lambda e: e["ptx"] == E4M3["instr"])
    # 16 tiles of 128 x 128 over K = 16384: 4.3 G multiply-adds, about half a second on two idle
    # cores (the kill lands when the first tile has started, long before the last is done)
    ops = operands(e, 512, 512, 512, seed=31, with_c=False, finite=True)
    want = tcemu.mma(**ops, **E4M3)
    d = td.mma(**ops, tile=128, threads=1, **E4M3)
    tile_prefix = d.name
    fut = cl.compute(d)
    victim = None

    def victim_busy():
        nonlocal victim
        for w, keys in cl.processing().items():
            if any(isinstance(k, tuple) and k[0] == tile_prefix for k in keys):
                victim = w
                return True
        return False

    _until(victim_busy, "a tile in progress on a worker", every=0.01)
    assert not fut.done()
    pid = cluster.pid_of(victim)
    os.kill(pid, signal.SIGKILL)
    proc = next(p for p in cluster.workers if p.pid == pid)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    got = fut.result(timeout=TIMEOUT)
    assert np.array_equal(got, want)
    survivors = list(cl.nthreads())
    assert victim not in survivors and len(survivors) == 1
    # every tile of D now comes from the survivor: the killed worker's were recomputed there
    p = d.persist()
    cl.compute(p).result(timeout=TIMEOUT)
    assert {w for ws in cl.who_has(p).values() for w in ws} == set(survivors)
