"""docs/dask.md's dask-jobqueue setup, run: the documented SLURMCluster (dask-jobqueue from
requirements.txt) writes the Slurm job script each host's job runs; there is no Slurm here, so
the test runs that script's worker command itself, as sbatch would on a host, against the
cluster's scheduler, and checks that the worker has one task slot (the documented
`--nthreads 1` after dask-jobqueue's own `--nthreads 16`) and computes tcemu.dask tiles with the
bits of tcemu.mma. Every wait is bounded."""

import os
import re
import shlex
import signal
import subprocess

import numpy as np

from distributed import Client

import tcemu
import tcemu.dask as td
from dask_util import TIMEOUT, entry_kwargs, find, operands

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def documented_snippet():
    """The ```python block of docs/dask.md's "Under Slurm" paragraph, without its last two
    lines (cluster.scale submits jobs with sbatch, Client connects): what builds the cluster."""
    text = open(os.path.join(ROOT, "docs", "dask.md"), encoding="utf-8").read()
    m = re.search(r"\*\*Under Slurm, with dask-jobqueue\*\*.*?```python\n(.*?)```", text, re.S)
    assert m, "docs/dask.md: the dask-jobqueue example block is missing"
    lines = m.group(1).rstrip("\n").split("\n")
    assert lines[-2].startswith("cluster.scale(") and lines[-1].startswith("client = Client(cluster)"), lines[-2:]
    return "\n".join(lines[:-2])


def test_documented_slurm_cluster_runs_a_worker_with_one_task_slot(tmp_path):
    scope = {}
    exec(documented_snippet(), scope)  # noqa: S102 - the documentation's own code
    cluster = scope["cluster"]
    proc = None
    try:
        script = cluster.job_script()
        for want in ("#SBATCH --cpus-per-task=16", "#SBATCH -t 04:00:00", "source /path/to/venv/bin/activate",
                     "export PYTHONPATH=/path/to/tcemu/build/release/python"):
            assert want in script, (want, script)
        worker = [ln for ln in script.splitlines() if "distributed.cli.dask_worker" in ln]
        assert len(worker) == 1, script
        args = shlex.split(worker[0])
        assert args.index("--nthreads") < len(args) - 2 and args[-2:] == ["--nthreads", "1"], args
        env = dict(os.environ)
        env.pop("TCEMU_NUM_THREADS", None)
        log = open(tmp_path / "worker.log", "w")
        proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env)
        with Client(cluster, timeout=TIMEOUT) as client:
            client.wait_for_workers(1, timeout=TIMEOUT)
            info = client.scheduler_info()["workers"]
            assert [w["nthreads"] for w in info.values()] == [1], info
            e = find("sm_90a", lambda e: e["family"] == "wgmma e4m3/e5m2" and e["atype"] == "e4m3" and e["dtype"] == "f32")
            ops = operands(e, 200, 96, 3, seed=5)
            kw = entry_kwargs(e)
            got = np.asarray(td.mma(ops["a"], ops["b"], ops["c"], tile=64, client=client, **kw))
            np.testing.assert_array_equal(got, tcemu.mma(ops["a"], ops["b"], ops["c"], **kw))
    finally:
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        cluster.close()
