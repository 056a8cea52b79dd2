"""An ELM fitted on more data than any worker may hold: Dask, per-chunk Gram sums, one solve.

X (N×d float64) and y are generated chunk by chunk on the workers (dask's random Generator,
one seed per block: the data set never exists in one place), by default 10 GB on a LocalCluster of
2 worker processes limited to 2 GB each. The ELM's hidden layer and its Gram sums run per chunk
on the workers (``fastelm.dask.fit_dask``); only L×(L+1) numbers come back. The driver's
resident memory is sampled during the fit, and the workers' too.

    python -m benchmarks.bench_dask_large --gb 1              # size the run first
    python -m benchmarks.bench_dask_large --gb 10             # the large run
    python -m benchmarks.bench_dask_large --verify --gb 0.2   # dask fit == in-memory fit
    python -m benchmarks.bench_dask_large --scheduler tcp://host:8786 --gb 100   # a real cluster

The target is y = sin(X a / sqrt(d)) + 0.1 noise, a fixed random a; the fit's R² on a fresh
in-memory sample is printed as a sanity check (``--verify`` compares with the in-memory fit).
"""
import argparse
import json
import os
import resource
import sys
import threading
import time
from pathlib import Path

import numpy as np

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm import ELMRegressor
from fastelm.dask import fit_dask, predict_dask


def _target(X, a, noise):
    """y = sin(X a / sqrt(d)) + 0.1 noise (numpy or dask arrays alike)."""
    return np.sin(X @ a / np.sqrt(len(a))) + 0.1 * noise


def make_data(gigabytes, n_features, chunk_rows, seed=0):
    """(X, y) dask arrays holding ``gigabytes`` GB of X, generated lazily block by block.

    dask's Generator draws one seed per block from ``seed`` when the graph is built, so each
    block is generated where it is used and the same seed gives the same data. Everything here
    is dask's own code: workers need nothing from this file.
    """
    import dask.array as da
    n_rows = int(gigabytes * 1e9 / (8 * n_features))
    rng = da.random.default_rng(seed)
    X = rng.standard_normal((n_rows, n_features), chunks=(chunk_rows, n_features))
    noise = rng.standard_normal(n_rows, chunks=chunk_rows)
    return X, _target(X, _direction(n_features, seed), noise)


def _direction(n_features, seed):
    return np.random.default_rng([seed, 2 ** 32]).standard_normal(n_features)


def fresh_sample(n_rows, n_features, seed):
    """In-memory rows from the same distribution (another seed)."""
    rng = np.random.default_rng([seed, 2 ** 33])
    X = rng.standard_normal((n_rows, n_features))
    return X, _target(X, _direction(n_features, seed), rng.standard_normal(n_rows))


class MemorySampler:
    """Peak RSS of this process and of its child processes (the local workers; the nannies
    run in this process), sampled every 0.1 s."""

    def __init__(self, interval=0.1):
        import psutil
        self.process = psutil.Process()
        self.interval = interval
        self.driver_peak = 0
        self.worker_peak = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def rss(self):
        return self.process.memory_info().rss

    def _run(self):
        import psutil
        while not self._stop.is_set():
            self.driver_peak = max(self.driver_peak, self.rss())
            for child in self.process.children(recursive=True):
                try:
                    if "resource_tracker" in " ".join(child.cmdline()):
                        continue  # multiprocessing's helper, not a worker
                    rss = child.memory_info().rss
                except psutil.Error:
                    continue
                self.worker_peak[child.pid] = max(self.worker_peak.get(child.pid, 0), rss)
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def _mb(nbytes):
    return round(nbytes / 2 ** 20, 1)


def run(gigabytes, n_features, n_hidden, chunk_rows, seed=0, alpha=1e-3, baseline=False):
    """Fit on the current Dask client; returns the figures (times, driver/worker RSS, R²).

    ``baseline``: first time one pass that only generates the data (X.sum(), y.sum()), to tell
    the data generation's share of the fit time."""
    import dask
    X, y = make_data(gigabytes, n_features, chunk_rows, seed)
    generate_seconds = None
    if baseline:
        start = time.perf_counter()
        dask.compute(X.sum(), y.sum())
        generate_seconds = round(time.perf_counter() - start, 2)
    fit_dask(ELMRegressor(n_hidden=n_hidden, random_state=seed),  # warm: imports, numba cache
             *make_data(0.001, n_features, 1000, seed + 1))
    model = ELMRegressor(n_hidden=n_hidden, alpha=alpha, random_state=seed)
    with MemorySampler() as memory:
        before = memory.rss()
        start = time.perf_counter()
        fit_dask(model, X, y)
        seconds = time.perf_counter() - start
        after = memory.rss()
    r2 = model.score(*fresh_sample(20_000, n_features, seed))
    return {"gigabytes_X": X.nbytes / 1e9, "rows": X.shape[0], "n_features": n_features,
            "n_hidden": n_hidden, "chunks": X.numblocks[0], "chunk_rows": chunk_rows,
            "fit_seconds": round(seconds, 2), "generate_only_seconds": generate_seconds,
            "rows_per_second": round(X.shape[0] / seconds),
            "driver_rss_before_mb": _mb(before), "driver_rss_after_mb": _mb(after),
            "driver_rss_peak_during_fit_mb": _mb(memory.driver_peak),
            "driver_ru_maxrss_mb": _mb(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024),
            "local_worker_rss_peak_mb": sorted(_mb(v) for v in memory.worker_peak.values()),
            "Gram_bytes_returned": 8 * n_hidden * (n_hidden + 1),
            "r2_on_fresh_sample": round(r2, 4)}


def verify(gigabytes=0.2, n_features=100, n_hidden=200, chunk_rows=50_000, seed=0):
    """Dask fit (current client) against the in-memory fit of the same rows: relative errors."""
    import dask
    X, y = make_data(gigabytes, n_features, chunk_rows, seed)
    fit_dask(ELMRegressor(n_hidden=n_hidden), *make_data(0.001, n_features, 1000, seed + 1))
    start = time.perf_counter()
    distributed = fit_dask(ELMRegressor(n_hidden=n_hidden, random_state=seed), X, y)
    dask_seconds = time.perf_counter() - start
    pred = predict_dask(distributed, X[:20_000]).compute()
    Xm, ym = dask.compute(X, y)
    start = time.perf_counter()
    memory = ELMRegressor(n_hidden=n_hidden, random_state=seed).fit(Xm, ym)
    memory_seconds = time.perf_counter() - start
    expected = memory.predict(Xm[:20_000])
    return {"gigabytes_X": Xm.nbytes / 1e9, "rows": len(Xm),
            "same_W": bool(np.array_equal(distributed.W_, memory.W_)),
            "beta_rel_err": float(np.abs(distributed.beta_ - memory.beta_).max()
                                  / np.abs(memory.beta_).max()),
            "pred_rel_err": float(np.abs(pred - expected).max() / np.abs(expected).max()),
            "dask_fit_seconds": round(dask_seconds, 2),
            "in_memory_fit_seconds": round(memory_seconds, 2)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gb", type=float, default=10.0, help="size of X in GB (1e9 bytes)")
    parser.add_argument("--d", type=int, default=100, help="features")
    parser.add_argument("--L", type=int, default=200, help="hidden nodes")
    parser.add_argument("--chunk-rows", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads-per-worker", type=int, default=1)
    parser.add_argument("--memory-limit", default="2GB", help="per worker")
    parser.add_argument("--scheduler", help="address of a running scheduler (no LocalCluster)")
    parser.add_argument("--verify", action="store_true", help="compare with the in-memory fit")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", action="store_true",
                        help="also time a pass that only generates the data")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    from dask.distributed import Client, LocalCluster
    if args.scheduler:
        cluster, client = None, Client(args.scheduler)
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=args.threads_per_worker,
                               processes=True, memory_limit=args.memory_limit,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        workers = client.scheduler_info()["workers"].values()
        setup = {"workers": len(workers),
                 "threads": sum(w["nthreads"] for w in workers),
                 "worker_memory_limit_mb": sorted(_mb(w["memory_limit"]) for w in workers),
                 "pid": os.getpid()}
        if args.verify:
            result = verify(args.gb, args.d, args.L, args.chunk_rows, args.seed)
        else:
            result = run(args.gb, args.d, args.L, args.chunk_rows, args.seed,
                         baseline=args.baseline)
        result = {**setup, **result}
        print(json.dumps(result, indent=1))
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=1))
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
