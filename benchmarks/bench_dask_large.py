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

``--model bls``: a ``BLSClassifier`` on the same X with three classes of that target (cut at
−0.3 and 0.3), its layer learned from ``layer_rows`` rows gathered to the driver and every
chunk's Gram sums of I = [Z | E] on the workers (``fastelm.bls``); then the same model in
memory on ``--memory-gb`` of the rows (the Dask fit of those rows against it: relative error of
beta, test accuracies, times), and ``--mnist``: MNIST's 60000 training images as a dask array,
the Dask fit against the in-memory fits with the same layer rows and with every row (MNIST is
read by ``fastelm.datasets.load_mnist`` from $FASTELM_DATA). ``--add-nodes N``: the time of
``add_enhancement_nodes(N, X, y)`` on ``--memory-gb`` of rows against one whole-Gram pass.
Results: docs/results/dask-bls/.

    nice -n 10 python -m benchmarks.bench_dask_large --model bls --gb 5 --d 1000 --windows 5 \
        --q 200 --chunk-rows 5000 --memory-limit 600MB --memory-gb 0.4 --mnist --mnist-q 500
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

from fastelm import BLSClassifier, ELMRegressor
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


def _classes(y):
    """Three classes of the target: y < −0.3, −0.3 ≤ y < 0.3, y ≥ 0.3 (numpy or dask alike)."""
    return (y >= -0.3).astype(np.int64) + (y >= 0.3)


def _bls(seed, n_windows=10, **kw):
    return BLSClassifier(n_windows=n_windows, nodes_per_window=10, reg=1e-3, random_state=seed,
                         **kw)


def _to_driver(a):
    """A dask array generated in this process (the local threaded scheduler: the same blocks
    as on the workers, whose memory limits a gathered array would exceed)."""
    return a.compute(scheduler="threads")


def _rel(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def run_bls(gigabytes, n_features, n_enhancement, chunk_rows, memory_gb, seed=0,
            layer_rows="auto", n_windows=10):
    """BLSClassifier on Dask (current client) on ``gigabytes`` GB of X (0: skipped), then on
    ``memory_gb`` GB both on Dask and in memory; returns the figures."""
    Xt, yt = fresh_sample(20_000, n_features, seed)
    yt = _classes(yt)
    X, y = make_data(0.002, n_features, 1000, seed + 1)
    _bls(seed, n_enhancement=20).fit(X, _classes(y))  # warm: imports, numba cache
    kw = dict(n_enhancement=n_enhancement, n_windows=n_windows)
    out = {"model": "BLSClassifier", "n_features": n_features, "chunk_rows": chunk_rows,
           "layer_rows": layer_rows}
    if gigabytes:  # 0: only the runs both on Dask and in memory
        X, y = make_data(gigabytes, n_features, chunk_rows, seed)
        model = _bls(seed, layer_rows=layer_rows, **kw)
        with MemorySampler() as memory:
            start = time.perf_counter()
            model.fit(X, _classes(y))
            seconds = time.perf_counter() - start
        out.update({"gigabytes_X": X.nbytes / 1e9, "rows": X.shape[0],
                    "n_nodes": model.n_nodes_, "chunks": X.numblocks[0],
                    "dask_fit_seconds": round(seconds, 1),
                    "dask_driver_rss_peak_mb": _mb(memory.driver_peak),
                    "dask_worker_rss_peak_mb": sorted(_mb(v)
                                                      for v in memory.worker_peak.values()),
                    "worker_processes_seen": len(memory.worker_peak),
                    "dask_accuracy_fresh_sample": round(model.score(Xt, yt), 4)})
        print(json.dumps(out), flush=True)  # the large run's figures, before the smaller runs
    # the size both can run: the same model on Dask and in memory, the same layer rows
    Xs, ys = make_data(memory_gb, n_features, chunk_rows, seed)  # the same target, fewer rows
    ys = _classes(ys)
    start = time.perf_counter()
    small = _bls(seed, layer_rows=layer_rows, **kw).fit(Xs, ys)
    small_seconds = time.perf_counter() - start
    Xm, ym = _to_driver(Xs), _to_driver(ys)
    rows = min(len(Xm), 10_000) if layer_rows == "auto" else layer_rows
    start = time.perf_counter()
    memory_model = _bls(seed, layer_rows=rows, **kw).fit(Xm, ym)
    memory_seconds = time.perf_counter() - start
    start = time.perf_counter()
    every = _bls(seed, **kw).fit(Xm, ym)
    every_seconds = time.perf_counter() - start
    del Xm, ym
    out.update({"small_gigabytes_X": Xs.nbytes / 1e9, "small_rows": Xs.shape[0],
                "small_dask_fit_seconds": round(small_seconds, 1),
                "small_in_memory_fit_seconds": round(memory_seconds, 1),
                "small_beta_rel_err_dask_vs_memory": _rel(small.beta_, memory_model.beta_),
                "small_dask_accuracy": round(small.score(Xt, yt), 4),
                "small_in_memory_accuracy": round(memory_model.score(Xt, yt), 4),
                "small_in_memory_every_row_layer_seconds": round(every_seconds, 1),
                "small_in_memory_every_row_layer_accuracy": round(every.score(Xt, yt), 4)})
    return out


def run_bls_add_nodes(gigabytes, n_features, n_enhancement, n_new, chunk_rows, seed=0):
    """``add_enhancement_nodes(n_new, X, y)`` of a BLSClassifier fitted on Dask (``gigabytes``
    GB of X): its time (the shrink pass, then the new columns' cross sums I_oldᵀE, EᵀE, EᵀT),
    against one pass of the whole Gram of the wider I, what the second pass computed before."""
    X, y = make_data(gigabytes, n_features, chunk_rows, seed)
    y = _classes(y)
    model = _bls(seed, n_enhancement=n_enhancement).fit(X, y)
    start = time.perf_counter()
    model.add_enhancement_nodes(n_new, X, y)
    seconds = time.perf_counter() - start
    # the whole Gram of the wider I, as one pass of the fit computes it (private helpers)
    rows, coding = model._training_rows(X, y, model.sparse_weights_.dtype, reset=False)
    start = time.perf_counter()
    whole = rows.gram_sums(model._broad_map(), coding)
    whole_seconds = time.perf_counter() - start
    new = slice(model.n_nodes_ - n_new, None)
    K = model.gram_.K.copy()
    K[new, new] -= model.reg * np.eye(n_new)
    return {"add_nodes_rows": X.shape[0], "add_nodes_n_nodes": model.n_nodes_,
            "add_nodes_new": n_new, "add_nodes_seconds": round(seconds, 1),
            "add_nodes_whole_gram_pass_seconds": round(whole_seconds, 1),
            "add_nodes_new_columns_rel_err_vs_whole_gram":
                _rel(K[:, new], whole.AtA[:, new])}


def run_bls_mnist(n_enhancement=2000, chunk_rows=5000, seed=0):
    """MNIST through Dask: the 60000 training images as a dask array (rows chunked), the
    reference preprocessing; against the in-memory fits with the same layer rows (10000,
    'auto' on Dask) and with every row."""
    import dask.array as da

    from fastelm.datasets import load_mnist
    X, y, Xt, yt = load_mnist(data_home=os.environ.get("FASTELM_DATA"), return_X_y=True)
    X, Xt = X.reshape(len(X), -1).astype(np.float64), Xt.reshape(len(Xt), -1)
    kw = dict(n_enhancement=n_enhancement, preprocessing="reference", reg=2.0 ** -30)
    Xd = da.from_array(X, chunks=(chunk_rows, -1))
    yd = da.from_array(y, chunks=chunk_rows)
    with MemorySampler() as memory:
        start = time.perf_counter()
        model = BLSClassifier(random_state=seed, **kw).fit(Xd, yd)
        seconds = time.perf_counter() - start
    start = time.perf_counter()
    same = BLSClassifier(random_state=seed, layer_rows=10_000, **kw).fit(X, y)
    same_seconds = time.perf_counter() - start
    start = time.perf_counter()
    every = BLSClassifier(random_state=seed, **kw).fit(X, y)
    every_seconds = time.perf_counter() - start
    return {"mnist_n_nodes": model.n_nodes_, "mnist_dask_fit_seconds": round(seconds, 1),
            "mnist_dask_driver_rss_peak_mb": _mb(memory.driver_peak),
            "mnist_dask_worker_rss_peak_mb": sorted(_mb(v) for v in memory.worker_peak.values()),
            "mnist_dask_test_accuracy": round(model.score(Xt, yt), 4),
            "mnist_in_memory_same_layer_rows_seconds": round(same_seconds, 1),
            "mnist_in_memory_same_layer_rows_accuracy": round(same.score(Xt, yt), 4),
            "mnist_beta_rel_err_dask_vs_memory": _rel(model.beta_, same.beta_),
            "mnist_predictions_equal": bool(np.array_equal(
                model.predict(da.from_array(Xt, chunks=2000)).compute(), same.predict(Xt))),
            "mnist_in_memory_every_row_layer_seconds": round(every_seconds, 1),
            "mnist_in_memory_every_row_layer_accuracy": round(every.score(Xt, yt), 4)}


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
    parser.add_argument("--model", choices=("elm", "bls"), default="elm")
    parser.add_argument("--q", type=int, default=400, help="BLS enhancement nodes")
    parser.add_argument("--windows", type=int, default=10, help="BLS feature windows (of 10)")
    parser.add_argument("--mnist-q", type=int, default=2000, help="BLS enhancement, MNIST")
    parser.add_argument("--memory-gb", type=float, default=0.4,
                        help="BLS: size fitted both on Dask and in memory")
    parser.add_argument("--layer-rows", default="auto", help="BLS layer_rows")
    parser.add_argument("--mnist", action="store_true", help="BLS: also MNIST through Dask")
    parser.add_argument("--add-nodes", type=int, default=0,
                        help="BLS: also time add_enhancement_nodes(N) on --memory-gb of rows")
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
        if args.model == "bls":
            layer_rows = args.layer_rows if args.layer_rows == "auto" else int(args.layer_rows)
            result = run_bls(args.gb, args.d, args.q, args.chunk_rows, args.memory_gb,
                             args.seed, layer_rows, args.windows)
            if args.add_nodes:
                result.update(run_bls_add_nodes(args.memory_gb, args.d, args.q, args.add_nodes,
                                                args.chunk_rows, args.seed))
            if args.mnist:
                result.update(run_bls_mnist(args.mnist_q, seed=args.seed))
        elif args.verify:
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
