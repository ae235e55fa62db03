"""tcemu.dask: emulated GEMMs on a Dask cluster, with the bits of one machine (docs/dask.md).

Every element of D is one chained dot product over the whole K in the instruction's order, so
a GEMM is split over M and N only, never over K (dask.array.matmul sums K-chunks in a tree,
dask/dask#6874, and is not used): mma() tiles D over M and N with K in one chunk
(dask.array.blockwise), block scales tiled with their rows (scale_a) and columns (scale_b), and
each tile is computed by tcemu.mma on a worker. map_gemms() runs independent GEMMs (the records
tcemu.torch makes) as tasks. Neither adds arithmetic: a tile is tcemu.mma on a block of rows of
A and a block of columns of B, and tcemu.mma computes each element of D from its row, its column,
its C element and their scales alone.

Threads per tile (the result is the same for every count; only speed depends on it): the
threads= argument; else $TCEMU_NUM_THREADS on the worker; else the worker's share of its host's
cores (the cores available to it, divided by the task slots, `--nthreads`, of all workers on
that host, as the client saw them when the graph was built); outside a distributed worker, 1.

Needs dask and distributed; `import tcemu` does not (this module is imported on demand:
`import tcemu.dask`)."""

import inspect
import os
import uuid
import weakref

import numpy as np

try:
    import dask
    import dask.array as da
except ImportError as err:  # pragma: no cover - the test environment has dask
    raise ImportError("tcemu.dask needs dask and distributed (pip install 'dask[array]' distributed)") from err

from . import _gemm, _gemm_kblock, _mma
from ._arrays import codes

# The default tile edge (rows and columns of D per task), chosen from python/bench/bench_dask.py
# (docs/performance.md, "tiles and workers"): 1024 was the fastest tile for two
# workers on both 2048^3 GEMMs (e4m3, NVFP4) in both runs; smaller tiles pay more per-tile
# overhead (scheduling, transfer, and the core's own per-call decoding: 4 tiles of 1024 cost 5 %
# more than one call, 16 of 512 29 %), larger ones leave workers idle.
DEFAULT_TILE = 1024

_OUT_DTYPE = {"f32": np.uint32, "f16": np.uint16, "s32": np.int32}
_FNS = {"mma": _mma.mma, "mma_params": _mma.mma_params, "gemm": _gemm.gemm, "gemm_kblock": _gemm_kblock.gemm_kblock}


# ---- threads and memory on the worker ------------------------------------------------------

def _cpus():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _host(address):
    rest = address.split("://", 1)[-1]
    return rest.rsplit(":", 1)[0]


def worker_shares(client):
    """{worker address: threads per task}: each host's cores (as its workers see them) divided by
    the task slots of all workers on that host, at least 1."""
    cores = client.run(_cpus)
    slots = client.nthreads()
    per_host, host_cores = {}, {}
    for addr, n in slots.items():
        h = _host(addr)
        per_host[h] = per_host.get(h, 0) + n
        host_cores[h] = max(host_cores.get(h, 0), cores.get(addr, 1))
    return {addr: max(1, host_cores[_host(addr)] // per_host[_host(addr)]) for addr in slots}


def _current_worker():
    try:
        from distributed import get_worker
        return get_worker()
    except (ImportError, ValueError):
        return None


def task_threads(threads=None, shares=None):
    """The threads= for a tcemu call inside a Dask task (the module's docstring says how it is
    chosen; shares: worker_shares(client), else the worker's cores over its own task slots)."""
    if threads is not None:
        return threads
    if os.environ.get("TCEMU_NUM_THREADS"):
        return None  # tcemu.mma reads it
    w = _current_worker()
    if w is None:
        return 1
    if shares and w.address in shares:
        return shares[w.address]
    return max(1, _cpus() // max(1, w.state.nthreads))


def tile_bytes(M, N, K, n_scales=0):
    """An upper estimate of the memory one tcemu.mma of an M x N tile over K takes beyond its
    operands: the C++ core's 64-bit copies of A, B, C and the scales, its D and the returned D."""
    return 8 * (M * K + K * N + M * N + n_scales) + 8 * M * N + 4 * M * N


def _check_memory(M, N, K, n_scales, what):
    """MemoryError, with a message, when the worker's memory limit cannot hold the tile (instead
    of the worker being paused or killed by its nanny for it)."""
    w = _current_worker()
    if w is None:
        return
    mm = getattr(w, "memory_manager", None)
    limit = getattr(mm, "memory_limit", None)
    if not limit:
        return
    frac = dask.config.get("distributed.worker.memory.terminate", 0.95) or 1.0
    try:
        import psutil
        rss = psutil.Process().memory_info().rss
    except Exception:  # pragma: no cover - psutil is a dependency of distributed
        rss = 0
    need = tile_bytes(M, N, K, n_scales)
    free = int(limit * frac) - rss
    if need > free:
        mib = 1 << 20
        raise MemoryError(
            f"tcemu.dask: {what} ({M} x {N}, K = {K}) needs about {need // mib} MiB on worker {w.address}, "
            f"which has {max(free, 0) // mib} MiB left under its memory limit of {limit // mib} MiB "
            f"({rss // mib} MiB in use): use a smaller tile (tile=) or give the workers more memory (--memory-limit)")


# ---- tcemu.dask.mma --------------------------------------------------------------------------

def _tile_mma(*blocks, spec):
    kw = dict(spec["kw"])
    kw.update(zip(spec["names"], blocks))
    a, b = kw["a"], kw["b"]
    ns = int(np.size(kw["scale_a"])) + int(np.size(kw["scale_b"])) if "scale_a" in kw else 0
    _check_memory(a.shape[0], b.shape[1], a.shape[1], ns, "a tile of D")
    if kw.get("device", "cpu") != "cpu":
        return _mma.mma(**kw)
    return _mma.mma(threads=task_threads(spec["threads"], spec["shares"]), **kw)


def _tile_arg(tile):
    if tile is None:
        return None
    t = (tile, tile) if not isinstance(tile, (tuple, list)) else tuple(tile)
    if len(t) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in t):
        raise TypeError(f"tile: an int or a pair (rows, cols) of ints is required, got {tile!r}")
    if any(v < 1 for v in t):
        raise ValueError(f"tile: {tile!r}; tile edges are at least 1")
    return int(t[0]), int(t[1])


def _is_dask(x):
    return isinstance(x, da.Array)


def _default_client(client):
    if client is not None:
        return client
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


def mma(a, b, c=None, *, arch, instr, atype=None, btype=None, dtype=None, stype=None, scale_a=None, scale_b=None,
        tile=None, client=None, threads=None, **options):
    """D = A*B + C as a dask array, tile by tile over M and N, each tile by tcemu.mma on a worker;
    the bits of tcemu.mma on one machine.

    a (M x K), b (K x N), c (M x N), scale_a (M x K/block), scale_b (K/block x N): dask arrays or
    anything tcemu.mma takes (NumPy arrays, torch CPU tensors), chunked here. K is kept in one
    chunk (dask arrays are rechunked so). tile: rows x cols of D per task, an int or a pair
    (default: DEFAULT_TILE for arrays chunked here; the chunks of a's rows and b's columns for dask
    arrays). client: a distributed.Client to size threads per task by (default: the current one;
    the graph computes wherever dask computes it, e.g. D.compute() on the default client).
    threads: per tile (default: see the module's docstring). The other keyword arguments
    (promote_every, negate_a, negate_b, scale_d, scale_input_d, device) go to tcemu.mma as given."""
    if "device" in options and options["device"] != "cpu" and threads is not None:
        raise ValueError("threads: applies to device='cpu'")
    unknown = set(options) - {"promote_every", "negate_a", "negate_b", "scale_d", "scale_input_d", "device"}
    if unknown:
        raise TypeError(f"tcemu.dask.mma: unexpected keyword argument(s) {', '.join(sorted(unknown))}")
    e = _mma._lookup(arch, instr, atype, btype, dtype, stype)
    t = _tile_arg(tile)

    def host(x, name, fmt):
        return x if _is_dask(x) else codes(x, fmt, name, tf32_low_bits=True)

    A, B = host(a, "a", e["atype"]), host(b, "b", e["btype"])
    for n, x, want in (("a", A, "A is a matrix M x K"), ("b", B, "B is a matrix K x N")):
        if x.ndim != 2:
            raise ValueError(f"{n}: shape {x.shape}; {want}")
    M, K, N = _mma.mma_shape(A, B, e)
    C = None
    if c is not None:
        C = c if _is_dask(c) else _mma._acc_codes(c, e, "c")
        if tuple(C.shape) != (M, N):
            raise ValueError(f"c: shape {tuple(C.shape)}; C is M x N = {(M, N)}")
    SA = SB = None
    _mma._check_scales_given(e, scale_a, scale_b)
    if e["scale_type"] is not None:
        kb = K // e["scale_block"]
        SA = scale_a if _is_dask(scale_a) else _mma._scales(scale_a, e, "scale_a", (M, kb))
        SB = scale_b if _is_dask(scale_b) else _mma._scales(scale_b, e, "scale_b", (kb, N))
        for n, s, shape in (("scale_a", SA, (M, kb)), ("scale_b", SB, (kb, N))):
            if tuple(s.shape) != shape:
                raise ValueError(f"{n}: shape {tuple(s.shape)}; {e['ptx']} with one {e['scale_type']} scale per "
                                 f"{e['scale_block']} elements of K needs {shape}")

    # Row blocks (of A, C, scale_a) and column blocks (of B, C, scale_b); K whole.
    if t is not None:
        rows, cols = t
    else:
        rows = A.chunks[0] if _is_dask(A) else DEFAULT_TILE
        cols = B.chunks[1] if _is_dask(B) else DEFAULT_TILE

    def chunked(x, chunks):
        return x.rechunk(chunks) if _is_dask(x) else da.from_array(x, chunks=chunks)

    args, names = [chunked(A, (rows, -1)), "mk", chunked(B, (-1, cols)), "kn"], ["a", "b"]
    if C is not None:
        args += [chunked(C, (rows, cols)), "mn"]
        names.append("c")
    if SA is not None:
        args += [chunked(SA, (rows, -1)), "mj", chunked(SB, (-1, cols)), "jn"]
        names += ["scale_a", "scale_b"]
    cl = _default_client(client)
    spec = {"names": tuple(names), "threads": threads, "shares": worker_shares(cl) if cl is not None else None,
            "kw": dict(arch=arch, instr=instr, atype=atype, btype=btype, dtype=dtype, stype=stype, **options)}
    out = _OUT_DTYPE[e["dtype"]]
    return da.blockwise(_tile_mma, "mn", *args, concatenate=True, dtype=out, meta=np.empty((0, 0), out),
                        name="tcemu-mma-" + dask.base.tokenize(*args[::2], spec), spec=spec)


# ---- tcemu.dask.map_gemms --------------------------------------------------------------------

def _run_problem(fn, kw, threads, shares):
    a, b = kw["a"], kw["b"]
    if hasattr(a, "shape") and hasattr(b, "shape") and len(a.shape) == 2 and len(b.shape) == 2:
        ns = sum(int(np.size(kw[s])) for s in ("scale_a", "scale_b") if kw.get(s) is not None)
        _check_memory(a.shape[0], b.shape[1], a.shape[1], ns, "the GEMM")
    f = _FNS[fn]
    if fn in ("mma", "gemm", "gemm_kblock") and kw.get("device", "cpu") == "cpu" and kw.get("threads") is None:
        kw = dict(kw, threads=task_threads(threads, shares))
    return f(**kw)


def _is_operand(v):
    return isinstance(v, np.ndarray) or (hasattr(v, "shape") and hasattr(v, "dtype") and not np.isscalar(v))


def map_gemms(client, problems, *, threads=None):
    """Independent GEMMs as tasks on `client`; returns one distributed.Future per problem (its D).

    problems: an iterable (a generator is fine: the client then holds one problem at a time) of
    dicts of tcemu.mma keyword arguments ({"a": ..., "b": ..., "c": ..., "arch": ..., "instr":
    ..., "scale_a": ..., "scale_b": ..., ...}), with an optional "fn": "mma" (the default),
    "mma_params", "gemm" or "gemm_kblock" (those functions' arguments: what
    tcemu.torch.GemmRecorder records of a model step). Array operands are scattered to the workers as
    the problems come, each array object once (one weight in many GEMMs is sent once, while the
    client keeps only a weak reference to it), a problem's new operands to the worker holding
    the fewest bytes so far; distributed.Future operands (scattered by the caller) are used as
    they are. threads: per task, as tcemu.dask.mma's (for "mma", "gemm", "gemm_kblock"; a
    problem's own "threads" wins)."""
    from distributed import Future

    if threads is not None:
        _mma._int_flag(threads, "threads", 1)
    workers = list(client.nthreads())
    if not workers:
        raise ValueError("client: the cluster has no workers")
    shares = worker_shares(client)
    load = {w: 0 for w in workers}
    sent = {}  # id(array) -> (weak reference, future)
    token = uuid.uuid4().hex[:12]
    futures = []
    for i, p in enumerate(problems):
        if not isinstance(p, dict):
            raise TypeError(f"problems[{i}]: a dict of tcemu.mma keyword arguments is required, got {type(p).__name__}")
        kw = dict(p)
        fn = kw.pop("fn", "mma")
        if fn not in _FNS:
            raise ValueError(f"problems[{i}]: fn '{fn}'; one of {', '.join(_FNS)}")
        try:
            inspect.signature(_FNS[fn]).bind(**kw)
        except TypeError as err:
            raise TypeError(f"problems[{i}]: {err}") from None
        for k, v in kw.items():
            if _is_dask(v):
                raise TypeError(f"problems[{i}]['{k}']: a dask array; tcemu.dask.mma takes those (map_gemms takes "
                                f"arrays to scatter, or futures)")
        new = {}
        for k, v in kw.items():
            if isinstance(v, Future) or not _is_operand(v):
                continue
            hit = sent.get(id(v))
            if hit is not None and hit[0]() is v:
                kw[k] = hit[1]
            else:
                new[k] = v
        if new:
            w = min(load, key=load.get)
            objs = list(new.values())
            futs = client.scatter(objs, workers=[w], hash=False)
            for (k, v), f in zip(new.items(), futs):
                kw[k] = f
                load[w] += int(getattr(v, "nbytes", 0))
                try:
                    sent[id(v)] = (weakref.ref(v, lambda _, key=id(v): sent.pop(key, None)), f)
                except TypeError:  # not weakly referenceable: not deduplicated
                    pass
            del objs
        del new, p
        futures.append(client.submit(_run_problem, fn, kw, threads, shares, key=f"tcemu-gemm-{token}-{i}", pure=False))
    return futures
