"""fastelm side by side with hpelm, scikit-elm and pyoselm: one data set, one process.

    python benchmarks/peers.py [--quick] [--out FILE.md] [--repeat R] [--slow-repeat R]
                               [--threads T] [--clock {wall,cpu}]

What is timed (full size: N=40000 training rows, d=64, L=1000 tanh nodes, 10 classes, float64):

* the Gram floor ``H.T @ H`` on fastelm's own hidden matrix H (N×L): the one product no
  least-squares ELM fit can avoid, so ``fastelm fit / floor`` says how much the rest costs;
* ``fastelm.ELMClassifier.fit``;
* scikit-elm ``skelm.ELMClassifier.fit`` (``n_neurons=L, ufunc='tanh', alpha=ALPHA``), once with
  ``batch_size=N`` (one pass) and once with its default batching (2000-row batches when
  N >= 10000). One pass is its slowest setting, not its fastest: on the project's 2-core Haswell
  machines (single thread, CPU seconds; one run of 3 repeats, noisy) batches of 4000 rows took
  1.86 × the Gram floor, 2000 (default) 2.06 ×, 8000 1.93 ×, 1000 2.18 ×; one pass 2.4-2.8 × in
  the full runs of this script. Its cost is the Gram product plus
  numpy's scalar ``np.tanh`` (~17 ns a value there, ~0.7 × the floor at full size);
* hpelm ``ELM(d, n_classes, classification='c', norm=ALPHA)`` with ``add_neurons(L, 'tanh')`` and
  ``train(X, T, 'c')``, once with ``batch=N`` and once with its default ``batch=1000``;
* OS-ELM over 20 chunks of 2000 rows (the same N rows): fastelm ``OSELMClassifier.partial_fit``
  against pyoselm ``OSELMClassifier.partial_fit`` (its default ``use_woodbury=False``). fastelm
  solves its readout lazily (when ``beta_`` is first read after a chunk) while pyoselm solves
  on every chunk, so fastelm's timing ends with one read of ``beta_``: both end with a usable
  readout.

Each case is repeated round-robin (so that a burst of load on a shared machine hits every case
alike) and reported by its minimum and median; ratios (of medians, and of minima) are measured
in this process. ``--threads T`` limits BLAS and numba to T threads for every library alike
and ``--clock cpu`` times the process's CPU seconds instead of elapsed seconds: on a machine
shared with other jobs, ``--threads 1 --clock cpu`` gives steady ratios (CPU time does not count
the time the process waits for a core; with more threads it would add up every thread's time).
The accuracy column is each model's accuracy on a held-out set of the same synthetic task, so
that no library is faster by doing less. numba is warmed (and every peer run once on tiny data)
before any timing.

Settings of the peers, and why they are comparable (each library keeps its own random weights):

* fastelm runs at its defaults: W ~ U(-1/√d, 1/√d), b ~ U(-1, 1) (``weight_scale='auto'``;
  docs/algorithms.md §1), alpha set to ALPHA for every library.
* scikit-elm draws W from sklearn's GaussianRandomProjection (N(0, 1/L), no bias) and adds an
  intercept column to its solver; it solves the (L+1)×(L+1) system with ``scipy.linalg.solve``
  (``assume_a='sym'``). ``alpha`` is set to fastelm's.
* hpelm draws W ~ N(0, 9/d), b ~ N(0, 1) from numpy's global generator (seeded here); its
  ``norm`` is the ridge penalty, set to fastelm's ``alpha``; it solves with LAPACK ``posv``.
* pyoselm has no ridge penalty: each chunk it adds HᵀH to P and re-solves through
  ``scipy.linalg.pinv`` (an SVD of the L×L matrix). Its first chunk must have at least
  ``n_hidden`` rows (2000 >= 1000 here; the script checks it). It re-creates its random layer
  from ``random_state`` on every call, so ``random_state`` must be an int. Targets are ±1.

Compatibility workaround (documented, nothing vendored): scikit-elm 0.21a0 imports
``skelm.large_elm`` from its ``__init__``, and that module imports dask (``dask.array``,
``dask.dataframe``, ``dask.distributed``), which scikit-elm does not declare as a dependency.
When dask (or dask's ``distributed``) is not installed, :func:`import_skelm` puts empty
stand-in modules for whichever of those four names do not import in ``sys.modules``, for the
duration of the ``import skelm`` only; ``LargeELMRegressor`` (the one class that uses dask) is
then unusable, and the batch ``ELMClassifier`` used here is unaffected. (``pip install dask
distributed`` is the alternative; the script then uses the real modules.)
hpelm 1.0.10 and pyoselm 1.2.0 import as they are with numpy 2 / scikit-learn 1.9 (hpelm's
``HPELM`` class uses the removed ``np.int`` alias, but only in a code path not used here).

``--quick`` runs every case on small sizes (seconds); ``tests/test_bench_smoke.py`` runs the
same functions on still smaller sizes so that this script can't rot.
"""
import argparse
import contextlib
import gc
import os
import platform
import statistics
import sys
import time
import types
import warnings
from pathlib import Path

import numpy as np

try:
    import fastelm
except ModuleNotFoundError:  # run from a source tree without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import fastelm

from sklearn.datasets import make_classification

from fastelm._hidden import check_activation, hidden_layer
from fastelm._ridge import add_to_diagonal, spd_solve
from fastelm._threads import thread_limit

ALPHA = 1e-3
SEED = 0

FULL = dict(n_train=40000, n_test=10000, n_features=64, n_hidden=1000, n_classes=10,
            chunk=2000)
QUICK = dict(n_train=4000, n_test=2000, n_features=16, n_hidden=200, n_classes=10, chunk=400)
TINY = dict(n_train=600, n_test=300, n_features=8, n_hidden=40, n_classes=3, chunk=100)

DASK_MODULES = ("dask", "dask.array", "dask.dataframe", "dask.distributed")

CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]  # set by main(): --clock


# --------------------------------------------------------------------------- peers' imports

def import_skelm():
    """scikit-elm's ``skelm`` module, or None when it is not installed (dask workaround inside)."""
    try:
        import skelm
        return skelm
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if not (missing.startswith("dask") or missing == "distributed"):
            return None
    for name in [m for m in sys.modules if m == "skelm" or m.startswith("skelm.")]:
        del sys.modules[name]  # drop the half-imported package
    added = []
    for name in DASK_MODULES:  # stand-ins only where the real module does not import
        try:
            __import__(name)
        except ImportError:
            sys.modules[name] = types.ModuleType(name)
            added.append(name)
    if "dask.distributed" in added:
        for attr in ("Client", "LocalCluster", "wait"):
            setattr(sys.modules["dask.distributed"], attr, None)
    for name in added:
        parent, _, child = name.rpartition(".")
        if parent in added:
            setattr(sys.modules[parent], child, sys.modules[name])
    try:
        import skelm
    finally:
        for name in added:
            sys.modules.pop(name, None)
    return skelm


def import_hpelm():
    """The ``hpelm`` module or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SyntaxWarning)  # `accelerator is "GPU"` in hpelm.elm
            import hpelm
        return hpelm
    except ImportError:
        return None


def import_pyoselm():
    """The ``pyoselm`` module or None."""
    try:
        import pyoselm
        return pyoselm
    except ImportError:
        return None


# --------------------------------------------------------------------------- data

def make_data(n_train, n_test, n_features, n_classes, seed=SEED, **_):
    """Synthetic classification task, standardised with the training rows' mean and std."""
    X, y = make_classification(
        n_samples=n_train + n_test, n_features=n_features,
        n_informative=max(2, n_features // 2), n_redundant=n_features // 4,
        n_classes=n_classes, n_clusters_per_class=1, class_sep=1.5, flip_y=0.01,
        random_state=seed)
    mean, std = X[:n_train].mean(axis=0), X[:n_train].std(axis=0)
    X = np.ascontiguousarray((X - mean) / std)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def chunks_of(X, y, size):
    """Row chunks (views) of ``size`` rows."""
    return [(X[i:i + size], y[i:i + size]) for i in range(0, len(X), size)]


# --------------------------------------------------------------------------- the fits

def fastelm_fit(X, y, n_hidden, dtype="float64"):
    return fastelm.ELMClassifier(n_hidden=n_hidden, activation="tanh", alpha=ALPHA,
                                 random_state=SEED, dtype=dtype).fit(X, y)


def fastelm_hidden(model, X):
    """fastelm's own H = tanh(XW + b) of a fitted model."""
    return hidden_layer(X, model.W_, model.b_, check_activation(model.activation))


def gram_floor(H):
    return H.T @ H


def skelm_fit(skelm, X, y, n_hidden, batch_size=None):
    from sklearn.exceptions import DataDimensionalityWarning
    model = skelm.ELMClassifier(n_neurons=n_hidden, ufunc="tanh", alpha=ALPHA,
                                batch_size=batch_size, random_state=SEED)
    with warnings.catch_warnings():  # "n_components > n_features": intended in an ELM
        warnings.simplefilter("ignore", DataDimensionalityWarning)
        return model.fit(X, y)


def skelm_predict(model, X):
    return model.predict(X)


def hpelm_fit(hpelm, X, y, n_hidden, n_classes, batch=None):
    np.random.seed(SEED)  # hpelm draws W, b from numpy's global generator
    kw = {} if batch is None else dict(batch=batch)
    model = hpelm.ELM(X.shape[1], n_classes, classification="c", norm=ALPHA, **kw)
    model.add_neurons(n_hidden, "tanh")
    T = np.zeros((len(y), n_classes))
    T[np.arange(len(y)), y] = 1.0
    model.train(X, T, "c")
    return model


def hpelm_predict(model, X):
    return np.argmax(model.predict(X), axis=1)


def fastelm_oselm(chunks, n_hidden, classes):
    model = fastelm.OSELMClassifier(n_hidden=n_hidden, activation="tanh", alpha=ALPHA,
                                    random_state=SEED)
    Xc, yc = chunks[0]
    model.partial_fit(Xc, yc, classes=classes)
    for Xc, yc in chunks[1:]:
        model.partial_fit(Xc, yc)
    model.beta_  # the lazy readout solve, timed like pyoselm's per-chunk solves
    return model


def pyoselm_oselm(pyoselm, chunks, n_hidden, classes):
    if len(chunks[0][0]) < n_hidden:
        raise ValueError(f"pyoselm needs a first chunk of >= n_hidden={n_hidden} rows, "
                         f"got {len(chunks[0][0])}")
    from sklearn.preprocessing import LabelBinarizer
    # its default binarizer is one shared instance (a mutable default argument): give a fresh one
    model = pyoselm.OSELMClassifier(n_hidden=n_hidden, activation_func="tanh",
                                    binarizer=LabelBinarizer(neg_label=-1, pos_label=1),
                                    random_state=SEED)
    for Xc, yc in chunks:
        model.partial_fit(Xc, yc)
    return model


def oselm_vs_batch(os_model, batch_model, X):
    """max |OS-ELM − batch| / max |batch| over held-out scores, and the same for beta."""
    s_os, s_b = os_model.decision_function(X), batch_model.decision_function(X)
    scores = float(np.max(np.abs(s_os - s_b)) / np.max(np.abs(s_b)))
    beta = float(np.max(np.abs(os_model.beta_ - batch_model.beta_))
                 / np.max(np.abs(batch_model.beta_)))
    return scores, beta


# --------------------------------------------------------------------------- timing

class Case:
    """One timed callable: its times, its last result and an accuracy function."""

    def __init__(self, key, label, fn, accuracy=None, slow=False):
        self.key, self.label, self.fn, self.accuracy, self.slow = key, label, fn, accuracy, slow
        self.times, self.result, self.acc = [], None, None

    def run(self):
        self.result = None
        with gc_paused():
            t0 = clock()
            result = self.fn()
            self.times.append(clock() - t0)
        self.result = result

    @property
    def min(self):
        return min(self.times)

    @property
    def median(self):
        return statistics.median(self.times)


@contextlib.contextmanager
def gc_paused():
    """The cyclic garbage collector off inside the block (as timeit does); refcounting still
    frees every large array at once. A full collection costs ~0.5 s with numba and scikit-learn
    loaded, so it runs once per round of all the cases, outside the timings."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_round_robin(cases, repeat, slow_repeat, log=print):
    for r in range(max(repeat, slow_repeat)):
        gc.collect()
        for case in cases:
            if r < (slow_repeat if case.slow else repeat):
                case.run()
                log(f"  round {r + 1}: {case.key:<22s} {case.times[-1]:8.3f} s")
    for case in cases:
        if case.accuracy is not None:
            case.acc = float(case.accuracy(case.result))
        case.result = None  # free the large intermediate arrays


def warm_up(peers, n_classes=3):
    """Compile fastelm's kernels and run every peer once on tiny data."""
    X, y, _, _ = make_data(300, 10, 8, n_classes)
    for dtype in ("float64", "float32"):
        fastelm_fit(X, y, 20, dtype).predict(X)
    fastelm_oselm(chunks_of(X, y, 100), 20, np.arange(n_classes)).predict(X)
    if peers.get("skelm"):
        skelm_fit(peers["skelm"], X, y, 20).predict(X)
    if peers.get("hpelm"):
        hpelm_predict(hpelm_fit(peers["hpelm"], X, y, 20, n_classes), X)
    if peers.get("pyoselm"):
        pyoselm_oselm(peers["pyoselm"], chunks_of(X, y, 100), 20, np.arange(n_classes)).predict(X)


def build_cases(sizes, data, peers):
    Xtr, ytr, Xte, yte = data
    L, N, k = sizes["n_hidden"], sizes["n_train"], sizes["n_classes"]
    classes = np.arange(k)
    chunks = chunks_of(Xtr, ytr, sizes["chunk"])
    H = fastelm_hidden(fastelm_fit(Xtr[:L + 10], ytr[:L + 10], L), Xtr)

    def acc(predict):
        return lambda model: np.mean(predict(model, Xte) == yte)

    def fastelm_acc(model):
        return np.mean(model.predict(Xte) == yte)

    cases = [
        Case("gram", "Gram floor `H.T @ H` (fastelm's H, N×L)", lambda: gram_floor(H)),
        Case("fastelm", "fastelm `ELMClassifier.fit`", lambda: fastelm_fit(Xtr, ytr, L),
             fastelm_acc),
    ]
    if peers.get("skelm"):
        sk = peers["skelm"]
        cases += [
            Case("skelm_one", f"scikit-elm `ELMClassifier.fit` (batch_size={N})",
                 lambda: skelm_fit(sk, Xtr, ytr, L, batch_size=N), acc(skelm_predict)),
            Case("skelm_default", "scikit-elm `ELMClassifier.fit` (default batch_size)",
                 lambda: skelm_fit(sk, Xtr, ytr, L), acc(skelm_predict)),
        ]
    if peers.get("hpelm"):
        hp = peers["hpelm"]
        cases += [
            Case("hpelm_one", f"hpelm `ELM.train` (batch={N})",
                 lambda: hpelm_fit(hp, Xtr, ytr, L, k, batch=N), acc(hpelm_predict)),
            Case("hpelm_default", "hpelm `ELM.train` (default batch=1000)",
                 lambda: hpelm_fit(hp, Xtr, ytr, L, k), acc(hpelm_predict)),
        ]
    cases.append(Case("fastelm_os", f"fastelm `OSELMClassifier.partial_fit` × {len(chunks)}",
                      lambda: fastelm_oselm(chunks, L, classes), fastelm_acc))
    if peers.get("pyoselm"):
        po = peers["pyoselm"]
        cases.append(Case("pyoselm_os", f"pyoselm `OSELMClassifier.partial_fit` × {len(chunks)}",
                          lambda: pyoselm_oselm(po, chunks, L, classes),
                          lambda m: np.mean(m.predict(Xte) == yte), slow=True))
    return cases, H


def fit_breakdown(model, X, y, H, repeat, block_rows=4096):
    """Seconds (min, median) of each stage of ``ELMClassifier.fit`` on the same data, timed
    round-robin together with the whole fit: where the fit's time goes. The fit makes H in
    ``block_rows``-row blocks B = [H, T] of one buffer and sums BᵀB (``_gram.gram_sums``);
    the gemm, activation and syrk stages below run over the same blocks."""
    from fastelm._kernels.hidden import add_bias_activate
    code = check_activation(model.activation)
    W, b = model.W_, model.b_
    _, T = model._validate_Xy(X, y, W.dtype, reset=False)
    L, m = W.shape[1], T.shape[1]
    block_rows = min(block_rows, len(X))
    K = add_to_diagonal(H.T @ H, ALPHA)
    HtT = H.T @ T
    starts = range(0, len(X) - block_rows + 1, block_rows)  # whole blocks, scaled up below
    scale = len(X) / (len(starts) * block_rows)
    B = np.zeros((block_rows, L + m))
    G = np.empty((L + m, L + m))

    def blocks(step):
        def run():
            for start in starts:
                step(start)
        return run

    stages = {
        "validate X, y and one-hot T": lambda: model._validate_Xy(X, y, W.dtype, True),
        "X @ W into the blocks (BLAS gemm)": blocks(
            lambda s: np.matmul(X[s:s + block_rows], W, out=B[:, :L])),
        "bias + tanh on the blocks (numba)": blocks(lambda s: add_bias_activate(B, b, code)),
        "[H, T]ᵀ[H, T] of the blocks (BLAS syrk)": blocks(lambda s: np.matmul(B.T, B, out=G)),
        "Cholesky solve of the L×L system": lambda: spd_solve(K, HtT),
        "ELMClassifier.fit (whole)": lambda: fastelm_fit(X, y, L),
    }
    scaled = {name for name in stages if "blocks" in name}
    out = {}
    for _ in range(repeat):
        gc.collect()
        for name, fn in stages.items():
            with gc_paused():
                t0 = clock()
                fn()
                out.setdefault(name, []).append(clock() - t0)
    return {name: (min(ts) * (scale if name in scaled else 1),
                   statistics.median(ts) * (scale if name in scaled else 1))
            for name, ts in out.items()}


# --------------------------------------------------------------------------- report

def versions(peers):
    import numba
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info
    blas = "; ".join(f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} "
                     f"threads, {i.get('architecture')})" for i in threadpool_info()
                     if i.get("user_api") == "blas")
    v = [f"python {platform.python_version()}", f"numpy {np.__version__}",
         f"scipy {scipy.__version__}", f"scikit-learn {sklearn.__version__}",
         f"numba {numba.__version__} ({numba.get_num_threads()} threads)",
         f"fastelm {fastelm.__version__}"]
    for name, dist in (("skelm", "scikit-elm"), ("hpelm", "hpelm"), ("pyoselm", "pyoselm")):
        if peers.get(name):
            try:
                from importlib.metadata import version
                v.append(f"{dist} {version(dist)}")
            except Exception:  # pragma: no cover
                v.append(dist)
        else:
            v.append(f"{dist} not installed")
    return ", ".join(v), blas


def markdown(cases, sizes, repeat, slow_repeat, peers, extra, clock="wall"):
    by = {c.key: c for c in cases}
    gram, fe, fe_os = by["gram"], by["fastelm"], by["fastelm_os"]

    def base(case):
        if case is gram:
            return None
        if case is fe or case is fe_os:
            return gram if case is fe else fe
        return fe_os if case.key.endswith("_os") else fe

    def ratio(case):
        b = base(case)
        if b is None:
            return "1.00 (floor)", ""
        what = ("fit / floor" if case is fe else "OS-ELM / batch fit" if case is fe_os
                else "peer / fastelm")
        return (f"{what} = **{case.median / b.median:.2f}**", f"{case.min / b.min:.2f}")

    N, L = sizes["n_train"], sizes["n_hidden"]
    lines = [
        f"N={N} training rows, {sizes['n_test']} held-out rows, d={sizes['n_features']}, "
        f"L={L} tanh nodes, {sizes['n_classes']} classes, float64, alpha={ALPHA}; OS-ELM in "
        f"{N // sizes['chunk']} chunks of {sizes['chunk']} rows. Each case run {repeat} times "
        f"(pyoselm {slow_repeat}) round-robin; {clock}-clock seconds.",
        "",
        "| case | min (s) | median (s) | ratio of medians | ratio of minima | held-out accuracy |",
        "| --- | ---: | ---: | --- | ---: | ---: |",
    ]
    for c in cases:
        acc = "" if c.acc is None else f"{c.acc:.4f}"
        r_med, r_min = ratio(c)
        lines.append(f"| {c.label} | {c.min:.3f} | {c.median:.3f} | {r_med} | {r_min} | {acc} |")
    lines += ["", "Spread (max/min over repeats): " + ", ".join(
        f"{c.key} {max(c.times) / c.min:.2f}" for c in cases), ""]
    lines.append(f"OS-ELM vs batch ELM (same W, b, alpha): max relative difference of held-out "
                 f"scores {extra['os_scores']:.2e}, of beta {extra['os_beta']:.2e}.")
    lines += ["", "Where fastelm's fit time goes (each stage alone on the same data, round-robin "
              "with the whole fit; the floor `H.T @ H` above is the one product no fit avoids):",
              "",
              "| stage | min (s) | median (s) | share of fit (minima) |",
              "| --- | ---: | ---: | ---: |"]
    stages = dict(extra["breakdown"])
    whole = stages.pop("ELMClassifier.fit (whole)")
    for name, (t_min, t_med) in stages.items():
        lines.append(f"| {name} | {t_min:.4f} | {t_med:.4f} | {t_min / whole[0]:.0%} |")
    total = [sum(v[i] for v in stages.values()) for i in (0, 1)]
    lines.append(f"| sum of stages | {total[0]:.4f} | {total[1]:.4f} | {total[0] / whole[0]:.0%} |")
    lines.append(f"| ELMClassifier.fit (whole) | {whole[0]:.4f} | {whole[1]:.4f} | 100% |")
    targets = [("fastelm fit <= 1.6 × Gram floor", fe, gram, "<=", 1.6)]
    for key, name in (("skelm_one", "scikit-elm (batch_size=N) / fastelm >= 1.5"),
                      ("skelm_default", "scikit-elm (default) / fastelm >= 1.5"),
                      ("hpelm_one", "hpelm (batch=N) / fastelm (no target)"),
                      ("hpelm_default", "hpelm (default) / fastelm (no target)")):
        if key in by:
            targets.append((name, by[key], fe, ">=", 1.5 if "skelm" in key else None))
    if "pyoselm_os" in by:
        targets.append(("pyoselm OS-ELM / fastelm OS-ELM >= 10", by["pyoselm_os"], fe_os, ">=",
                        10))
    lines += ["", "| target | medians | minima | met (both) |", "| --- | ---: | ---: | --- |"]
    for name, num, den, op, bound in targets:
        values = (num.median / den.median, num.min / den.min)
        if bound is None:
            met = ""
        else:
            ok = [v <= bound if op == "<=" else v >= bound for v in values]
            met = "yes" if all(ok) else "**no**" if not any(ok) else "on one measure only"
        lines.append(f"| {name} | {values[0]:.2f} | {values[1]:.2f} | {met} |")
    ver, blas = versions(peers)
    lines += ["", f"Versions: {ver}.", f"BLAS: {blas}. CPUs: {os.cpu_count()}.", ""]
    return "\n".join(lines)


def import_peers():
    return dict(skelm=import_skelm(), hpelm=import_hpelm(), pyoselm=import_pyoselm())


def run(sizes, repeat=5, slow_repeat=3, log=print, peers=None):
    """Every case at ``sizes``; returns (cases, extra, peers) for :func:`markdown`."""
    if peers is None:
        peers = import_peers()
    warm_up(peers)
    data = make_data(**sizes)
    cases, H = build_cases(sizes, data, peers)
    log(f"timing {len(cases)} cases ...")
    run_round_robin(cases, repeat, slow_repeat, log=log)
    Xtr, ytr, Xte, _ = data
    batch = fastelm_fit(Xtr, ytr, sizes["n_hidden"])
    online = fastelm_oselm(chunks_of(Xtr, ytr, sizes["chunk"]), sizes["n_hidden"],
                           np.arange(sizes["n_classes"]))
    os_scores, os_beta = oselm_vs_batch(online, batch, Xte)
    breakdown = fit_breakdown(batch, Xtr, ytr, H, repeat)
    return cases, dict(os_scores=os_scores, os_beta=os_beta, breakdown=breakdown), peers


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds)")
    parser.add_argument("--out", help="also write the Markdown report to this file")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each case (>= 3)")
    parser.add_argument("--slow-repeat", type=int, default=3, help="runs of pyoselm (>= 3)")
    parser.add_argument("--threads", type=int, default=None,
                        help="limit BLAS (every loaded library) and numba to this many threads "
                             "for every library alike (default: leave them as they are)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall: elapsed seconds; cpu: the process's CPU seconds (with "
                             "--threads 1, steady on a machine shared with other jobs)")
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]
    sizes = QUICK if args.quick else FULL
    peers = import_peers()  # before limiting threads: the peers may load another BLAS
    with thread_limit(args.threads):
        cases, extra, peers = run(sizes, args.repeat, args.slow_repeat,
                                  log=lambda s: print(s, file=sys.stderr, flush=True),
                                  peers=peers)
        report = markdown(cases, sizes, args.repeat, args.slow_repeat, peers, extra,
                          clock=args.clock)
    print(report)
    if args.out:
        Path(args.out).write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
