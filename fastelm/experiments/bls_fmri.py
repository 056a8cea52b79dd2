"""Reproduction of seed paper 000: Broad Learning System (BLS) classification of fMRI subjects.

    python -m fastelm.experiments.bls_fmri [--quick] [--out DIR] [--seed S] [--data DIR]
                                           [--sites SITE ...] [--features MODE ...]

The paper (ALGORITHMS.md §5) classifies patients against controls (ABIDE I/II: autism, ADHD-200)
from each subject's ROI time series (AAL, M = 116 ROIs) flattened to T·M features, with a BLS of
n = 10 windows of k = 10 feature nodes, q = 2000 enhancement nodes, shrink s = 0.8 and ridge
C = 2⁻³⁰ (its ABIDE-UM settings), against linear SVM, random forest and KNN (scikit-learn
defaults) and a 1000-600-softmax DNN (CCNN and GCN are not reproduced). Its tables were lost
in extraction; its claims are that BLS reaches the accuracy of the deep models with a shorter
training time (its Fig. 4: accuracy against training time).

Protocol (:func:`evaluate`)
    k-fold stratified cross-validation repeated R times (``RepeatedStratifiedKFold``; the paper:
    10 folds × 10 runs for ABIDE). On each test fold: accuracy, precision, sensitivity (recall of
    the patient class, label 1), specificity and F-measure (:mod:`fastelm.metrics`), and the wall
    time of ``fit``. Two deviations, both switchable:

    * ``strata``: folds are stratified on site × diagnosis when the subjects come from several
      sites (``run`` does this). Stratifying on diagnosis only leaves each site's training
      subjects slightly unbalanced in the direction opposite to its test subjects; a model that
      recognises the site (offsets and scales differ by site in real and synthetic data) then
      predicts below chance. On the synthetic data with no group effect, random forest scored
      0.26 (5 folds, 80 subjects, 3 sites) with diagnosis-only folds, 0.47 with site × diagnosis.
    * ``warm_up``: each model is fitted once, untimed, on 10 training subjects per class before
      the timed folds: the first fit in a process pays one-off costs (Numba cache loading, first
      touch of fresh memory: on the shared test machine the first libsvm fit on 64 × 11600
      inputs took 5-20 s, the next ones 0.1-0.3 s).

    Every ``random_state`` parameter of a model (its own or a pipeline step's) is set per fold to
    a seed derived from ``random_state`` and the fold, so each fold draws fresh random weights
    (the paper's "independent runs") and the same seed gives the same records except times.

Models (:func:`default_models`)
    BLS         ``BLSClassifier(n_windows=10, nodes_per_window=10, n_enhancement=2000,
                shrink=0.8, reg=2**-30, preprocessing='reference')``: inputs scaled as the
                authors' ``bls_train`` does (each sample z-scored, ±1 targets); no scaler.
    linear SVM  ``StandardScaler`` + ``SVC(kernel='linear')`` (defaults, C = 1; the hinge-loss
                SVM, solved in its dual, which suits N ≪ d; libsvm is not scale invariant).
    RF          ``RandomForestClassifier()`` (defaults: 100 trees; trees need no scaling).
    KNN         ``StandardScaler`` + ``KNeighborsClassifier()`` (defaults: 5 neighbours,
                Euclidean distance, hence the scaler).
    DNN         ``StandardScaler`` + float32 cast + ``MLPClassifier(hidden_layer_sizes=(1000,
                600))``: the 1000-600-softmax network of Heinsfeld et al. with scikit-learn's
                defaults otherwise (ReLU, Adam, lr 1e-3, L2 1e-4, batch min(200, N), at most 200
                epochs, stop when the training loss improves by < 1e-4 for 10 epochs: about 15-20
                epochs here). float32 is TensorFlow's default precision (the paper's framework)
                and 25% faster. No early stopping: holding out 10% of ~100 training subjects
                made the stopping point noisy and did not improve accuracy (0.66 against 0.68,
                5 folds, connectivity). ``--quick`` caps the epochs at 10.

Data
    ``--data DIR``: an ABIDE Preprocessed layout (``<FILE_ID>_rois_aal.1D`` files and the
    phenotype CSV, :func:`fastelm.fmri.load_roi_dataset`), optionally restricted to ``--sites``
    (e.g. ``UM_1 UM_2`` for ABIDE-UM); series cropped to the shortest one. Without ``--data``,
    two synthetic data sets are written with :func:`fastelm.fmri.make_synthetic_abide` into
    ``out_dir/synthetic/{effect,null}`` from the same seed: ``effect`` with a group effect
    (patients share extra latent sources on ``n_rois // 10`` ROI pairs, i.e. a connectivity
    effect), ``null`` identical except that the effect size is 0 (no group difference).
    Features: ``timeseries`` (the paper: the series flattened, T·M features) and
    ``connectivity`` (Fisher-z correlations between ROIs, M(M-1)/2 features).

What the synthetic data show (notes.md states it per run; the full run's table is in the
project's report): the group effect of ``make_synthetic_abide`` lives in the covariance of the
series, not in their mean: both groups have the same expected series at every time point, and
the time points of different subjects are not aligned (independent AR processes), so every
linear function of the flattened series has the same distribution's mean in both groups and a
linear classifier on them is at chance whatever the effect size. BLS is nearly linear in its
inputs (the enhancement shrink keeps tansig close to its linear range), and on the flattened
series it stays near chance; random forest, which can threshold the larger amplitude of the
effect ROIs, gets above chance only for strong effects. The connectivity features carry the
effect directly, and there BLS and every comparator are clearly above chance.

Outputs in ``out_dir``: ``results.md`` / ``results.csv`` (mean ± std over folds and repeats per
data set, features and model of the five metrics), ``timings.md`` / ``timings.csv`` (training
time per fit, mean ± std; the only outputs besides ``records.csv`` and the plot that differ
between two runs with the same seed), ``records.csv`` (every fold), ``accuracy_vs_time.png``
(the paper's Fig. 4: accuracy against training time, log time axis, one point per model with
± 1 sd bars, one panel per data set and features) and ``notes.md``.
"""
import argparse
import csv
import json
import os
import re
import shutil
import sys
import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import RandomForestClassifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import RepeatedStratifiedKFold
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import SVC
from sklearn.utils import Bunch

from ..bls import BLSClassifier
from ..fmri import (ExcludedSubjectsWarning, PhenotypeMismatchError, connectivity_features,
                    load_roi_dataset, make_synthetic_abide, read_phenotype)
from ..metrics import classification_report_dict
from .common import limit_threads, summarize, write_table
from .common import progress as progress_bar

MODELS = ("BLS", "linear SVM", "RF", "KNN", "DNN")
METRICS = ("accuracy", "precision", "sensitivity", "specificity", "f_measure")
TIME = "train_time"
FEATURES = ("timeseries", "connectivity")
KEYS = ("data set", "features", "model")

#: the paper's BLS settings for ABIDE-UM (ALGORITHMS.md §5), with the reference code's scaling
BLS_PARAMS = dict(n_windows=10, nodes_per_window=10, n_enhancement=2000, shrink=0.8,
                  reg=2.0 ** -30, preprocessing="reference")
DNN_LAYERS = (1000, 600)

#: synthetic data (``make_synthetic_abide``) and protocol, by mode.
#: full: about the size of ABIDE-UM (the paper's tuning set: ~120 subjects, 2 sites, AAL's 116
#: ROIs), series shorter than UM's 296 volumes to keep the DNN affordable (80 × 116 = 9280
#: inputs). quick: fewer ROIs and time points (30 × 60 = 1800 inputs), 5 folds × 1 repeat and
#: the DNN capped at 10 epochs, for about a minute on 2 cores. An effect size of 1 puts every
#: model clearly above chance on connectivity features in both modes.
SETTINGS = {
    "full": dict(n_subjects=120, n_rois=116, lengths=(80, 120), n_sites=2, effect_size=1.0,
                 n_splits=10, n_repeats=10, dnn_max_iter=200),
    "quick": dict(n_subjects=80, n_rois=30, lengths=(60, 90), n_sites=2, effect_size=1.0,
                  n_splits=5, n_repeats=1, dnn_max_iter=10),
}
SYNTHETIC = ("effect", "null")
WARM_UP_ROWS = 10  # per class


# ---------------------------------------------------------------------------------------------
# models and the cross-validation

def _as_float32(X):
    return np.asarray(X, dtype=np.float32)


def default_models(dnn_max_iter=200, bls_params=None):
    """The paper's five models as unfitted estimators, ``{name: estimator}`` in MODELS order.

    Parameters
    ----------
    dnn_max_iter : int
        Epoch cap of the DNN (scikit-learn's default 200; ``--quick`` uses 20).
    bls_params : dict, optional
        Overrides of :data:`BLS_PARAMS`.
    """
    bls = dict(BLS_PARAMS, **(bls_params or {}))
    return {
        "BLS": BLSClassifier(**bls),
        "linear SVM": make_pipeline(StandardScaler(), SVC(kernel="linear")),
        "RF": RandomForestClassifier(),
        "KNN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "DNN": make_pipeline(StandardScaler(), FunctionTransformer(_as_float32),
                             MLPClassifier(hidden_layer_sizes=DNN_LAYERS, max_iter=dnn_max_iter)),
    }


def _reseed(estimator, seed):
    """Set every ``random_state`` parameter (own or of a pipeline step) to ``seed``."""
    keys = [k for k in estimator.get_params(deep=True)
            if k == "random_state" or k.endswith("__random_state")]
    if keys:
        estimator.set_params(**{k: int(seed) for k in keys})
    return estimator


def _fit(estimator, X, y):
    """Fit; returns (wall seconds, converged) — converged is False on a ConvergenceWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start = time.perf_counter()
        estimator.fit(X, y)
        seconds = time.perf_counter() - start
    for w in caught:  # anything else is passed on
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return seconds, not any(issubclass(w.category, ConvergenceWarning) for w in caught)


def _warm_up_rows(y, train, per_class=WARM_UP_ROWS):
    """The first ``per_class`` rows of each class among the training rows ``train``."""
    return np.concatenate([train[y[train] == c][:per_class] for c in np.unique(y[train])])


def evaluate(X, y, models=None, n_splits=10, n_repeats=10, random_state=0, progress=True, *,
             strata=None, pos_label=1, warm_up=True, threads=None, desc="CV"):
    """Repeated stratified k-fold evaluation of each model, as in the paper.

    Parameters
    ----------
    X : array of shape (n_subjects, n_features)
    y : array of shape (n_subjects,)
        Binary labels; ``pos_label`` is the patient class.
    models : dict {name: estimator}, optional
        Unfitted scikit-learn estimators (cloned per fold); default :func:`default_models`.
    n_splits, n_repeats : int
        Folds and repetitions of ``RepeatedStratifiedKFold`` (paper: 10 × 10).
    random_state : int or None
        Seeds the folds and, per fold, every ``random_state`` parameter of every model.
    progress : bool
        Progress bar on stderr (tqdm).
    strata : array of shape (n_subjects,), optional
        Labels to stratify the folds on instead of ``y`` (e.g. site × diagnosis).
    pos_label : label of the patient class for precision, sensitivity, specificity, F-measure.
    warm_up : bool
        Fit each model once, untimed, on a few rows (10 per class) of the first training fold
        before the timed folds.
    threads : int, optional
        Limit BLAS/OpenMP and Numba to this many threads during the evaluation (``run`` uses
        1); None leaves the libraries' defaults.
    desc : str
        Progress bar label.

    Returns
    -------
    records : list of dict, one per fold and model in that order: ``model``, ``repeat``,
        ``fold``, the five metrics of :data:`METRICS` on the test fold, ``train_time`` (wall
        seconds of ``fit``) and ``converged`` (False if the fit raised a ConvergenceWarning,
        which is recorded instead of shown).
    """
    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D and y match its rows, got {X.shape} and {y.shape}")
    models = default_models() if models is None else dict(models)
    if random_state is None:
        random_state = int(np.random.SeedSequence().generate_state(1)[0])
    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats,
                                 random_state=random_state)
    splits = list(cv.split(X, y if strata is None else np.asarray(strata)))
    with limit_threads(threads):
        if warm_up:
            rows = _warm_up_rows(y, splits[0][0])
            for model in models.values():
                _fit(_reseed(clone(model), random_state), X[rows], y[rows])
        records = []
        for i, (train, test) in enumerate(progress_bar(splits, desc, total=len(splits),
                                                       enabled=progress)):
            repeat, fold = divmod(i, n_splits)
            seed = np.random.SeedSequence([random_state, i]).generate_state(1)[0]
            for name, model in models.items():
                estimator = _reseed(clone(model), seed)
                seconds, converged = _fit(estimator, X[train], y[train])
                scores = classification_report_dict(y[test], estimator.predict(X[test]),
                                                    pos_label=pos_label)
                records.append({"model": name, "repeat": repeat, "fold": fold, **scores,
                                TIME: seconds, "converged": converged})
    return records


# ---------------------------------------------------------------------------------------------
# data

def settings_for(quick=False, overrides=None):
    """The run's settings: ``SETTINGS['quick' or 'full']`` updated by ``overrides``."""
    s = dict(SETTINGS["quick" if quick else "full"])
    unknown = set(overrides or {}) - set(s) - {"bls_params"}
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(s)}")
    s.update(overrides or {})
    return s


def make_synthetic(directory, settings, seed):
    """Write the ``effect`` and ``null`` data sets under ``directory`` (replacing them).

    Both come from the same seed: ``null`` is ``effect`` with effect_size 0 (same sites,
    networks, lengths, labels and noise). Returns {name: directory}.
    """
    out = {}
    for name in SYNTHETIC:
        path = os.path.join(directory, name)
        if os.path.isdir(path):
            shutil.rmtree(path)  # a smaller earlier run would leave orphan subjects
        effect = settings["effect_size"] if name == "effect" else 0.0
        make_synthetic_abide(path, n_subjects=settings["n_subjects"], n_rois=settings["n_rois"],
                             lengths=tuple(settings["lengths"]), effect_size=effect,
                             n_sites=settings["n_sites"], random_state=seed)
        out[name] = path
    return out


def load(directory, features, sites=None):
    """(X, y, strata, bunch) of an ABIDE-layout directory; strata = site × diagnosis.

    Subjects left out by :func:`fastelm.fmri.load_roi_dataset` (unusable files) are listed in
    ``bunch.excluded``. With ``sites``, files of other sites in the same directory (the layout
    of the ABIDE Preprocessed download) are skipped, see :func:`_load_sites`.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=ExcludedSubjectsWarning)
        try:
            bunch = load_roi_dataset(directory, features=features, sites=sites)
        except PhenotypeMismatchError:
            if sites is None:
                raise
            bunch = _load_sites(directory, features, sites)
    strata = np.char.add(np.char.add(bunch.sites.astype(str), "|"), bunch.target.astype(str))
    return bunch.data, bunch.target, strata, bunch


def _load_sites(directory, features, sites):
    """``load_roi_dataset(directory, sites=sites)`` for a directory that also holds files of
    other sites, which ``load_roi_dataset`` refuses (PhenotypeMismatchError): load every
    subject once to learn the selected sites' shortest series, again cropped to that length
    (shorter subjects of other sites drop out), and keep the selected sites' rows."""
    sites = [sites] if isinstance(sites, str) else list(sites)
    every = load_roi_dataset(directory, features="timeseries")
    keep = np.isin(every.sites, sites)
    if not keep.any():
        raise ValueError(f"no usable subject of sites {sites} in {directory}")
    length = int(every.lengths[keep].min())
    bunch = load_roi_dataset(directory, features=features, length=length)
    keep = np.isin(bunch.sites, sites)
    pheno = read_phenotype(bunch.phenotype_csv)
    site_of = dict(zip(pheno.file_id.tolist(), pheno.site_id.tolist()))
    out = Bunch(**bunch)
    for key in ("data", "target", "dx_group", "subject_ids", "sites", "lengths"):
        out[key] = bunch[key][keep]
    out["files"] = [f for f, k in zip(bunch.files, keep) if k]
    out["phenotype"] = {name: col[keep] for name, col in bunch.phenotype.items()}
    out["excluded"] = [e for e in every.excluded if site_of.get(e[0]) in sites]
    return out


# ---------------------------------------------------------------------------------------------
# the experiment

def run(quick=False, out_dir="results/bls-fmri", seed=0, data_dir=None, progress=True, *,
        features=FEATURES, sites=None, settings=None, models=None, threads=1):
    """Run the paper's comparison and write its tables, plot and notes to ``out_dir``.

    Parameters
    ----------
    quick : bool
        :data:`SETTINGS` ``'quick'`` (80 synthetic subjects of 30 ROIs, 5 folds × 1 repeat, DNN
        capped at 10 epochs; under a minute of CPU) instead of ``'full'`` (120 subjects of 116
        ROIs, 10 folds × 10 repeats).
    out_dir : str
        Output folder (created); synthetic subjects go to ``out_dir/synthetic``.
    seed : int
        Seeds the synthetic data, the folds and every model: same seed, same tables (times
        aside).
    data_dir : str, optional
        An ABIDE Preprocessed layout to use instead of synthetic data.
    progress : bool
        Progress bars on stderr.
    features : sequence of {'timeseries', 'connectivity'}
    sites : sequence of str, optional
        Keep only these SITE_IDs of ``data_dir``.
    settings : dict, optional
        Overrides of :data:`SETTINGS` (data sizes, ``n_splits``, ``n_repeats``, ``dnn_max_iter``,
        ``bls_params``).
    models : dict, optional
        ``{name: estimator}`` instead of :func:`default_models`.
    threads : int or None, default 1
        BLAS/OpenMP/Numba threads of every fit (:func:`evaluate`). One thread gives every model
        the same single core, so training times compare, and on a busy 2-core machine it was
        also faster (the DNN of the full run: 10.6 s per fit against 18.5 s with the default
        threads). None leaves the libraries' defaults.

    Returns
    -------
    dict with ``rows`` (metric summary rows), ``time_rows`` (training-time rows), ``records``
    (per fold, with keys data set and features), ``checks`` ({(data set, features, model):
    accuracy, chance, margin, above_chance, below_chance}), ``meta`` (settings and data
    description, also in ``run.json``), ``files``, ``table`` (Markdown) and ``seconds``.
    """
    start_all = time.perf_counter()
    cfg = settings_for(quick, settings)
    features = tuple(features)
    bad = set(features) - set(FEATURES)
    if bad or not features:
        raise ValueError(f"features must be a non-empty subset of {FEATURES}, got {features}")
    if models is None:
        models = default_models(cfg["dnn_max_iter"], cfg.get("bls_params"))
    os.makedirs(out_dir, exist_ok=True)
    if data_dir is None:
        directories = make_synthetic(os.path.join(out_dir, "synthetic"), cfg, seed)
    else:
        directories = {os.path.basename(os.path.normpath(data_dir)) or "data": data_dir}

    records, data = [], {}
    for name, directory in directories.items():
        series, y, strata, bunch = load(directory, "timeseries", sites)  # read once
        n_sites = len(set(bunch.sites))
        for feat in features:
            X = series if feat == "timeseries" else connectivity_features(
                series.reshape(len(series), bunch.length, len(bunch.roi_names)))
            data.setdefault(name, {"subjects": int(X.shape[0]), "patients": int(y.sum()),
                                   "sites": n_sites, "length": int(bunch.length),
                                   "rois": len(bunch.roi_names),
                                   "excluded": len(bunch.excluded), "features": {}})
            data[name]["features"][feat] = int(X.shape[1])
            recs = evaluate(X, y, models, cfg["n_splits"], cfg["n_repeats"], seed, progress,
                            strata=strata if n_sites > 1 else None, threads=threads,
                            desc=f"{name} {feat}")
            records += [dict(r, **{"data set": name, "features": feat}) for r in recs]
    meta = {"quick": bool(quick), "seed": seed, "settings": cfg, "data": data,
            "data_dir": None if data_dir is None else str(data_dir),
            "sites": None if sites is None else list(sites), "models": list(models),
            "descriptions": {name: describe(m) for name, m in models.items()},
            "threads": threads,
            "seconds": time.perf_counter() - start_all}
    result = write_outputs(out_dir, records, meta)
    result["seconds"] = time.perf_counter() - start_all
    return result


def chance_checks(records, data):
    """Per (data set, features, model): mean accuracy, chance (majority share), the margin
    2·sqrt(p(1-p)/N) and whether the accuracy is above or below chance by more than it."""
    checks = {}
    for key in dict.fromkeys(tuple(r[k] for k in KEYS) for r in records):
        acc = float(np.mean([r["accuracy"] for r in records
                             if tuple(r[k] for k in KEYS) == key]))
        d = data[key[0]]
        p = d["patients"] / d["subjects"]
        chance = max(p, 1.0 - p)
        margin = 2.0 * np.sqrt(chance * (1.0 - chance) / d["subjects"])
        checks[key] = {"accuracy": acc, "chance": chance, "margin": float(margin),
                       "above_chance": acc > chance + margin,
                       "below_chance": acc < chance - margin}
    return checks


def write_outputs(out_dir, records, meta):
    """Write every output of a run from its records and ``meta`` (see :func:`run`)."""
    models = meta["models"]
    rows = summarize(records, KEYS, METRICS)
    time_rows = summarize(records, KEYS, [TIME])
    checks = chance_checks(records, meta["data"])
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, "results")
    table = write_table(rows, KEYS, METRICS, stem)
    time_stem = os.path.join(out_dir, "timings")
    time_table = write_table(time_rows, KEYS, [TIME], time_stem)
    with open(time_stem + ".md", "w") as f:
        f.write(timings_text(time_table, time_rows, meta["seconds"], models))
    records_csv = os.path.join(out_dir, "records.csv")
    _write_records(records, records_csv)
    meta_json = os.path.join(out_dir, "run.json")
    with open(meta_json, "w") as f:
        json.dump(meta, f, indent=1)
    files = [stem + ".md", stem + ".csv", time_stem + ".md", time_stem + ".csv", records_csv,
             meta_json]
    plot = os.path.join(out_dir, "accuracy_vs_time.png")
    if plot_accuracy_time(rows, time_rows, plot, models):
        files.append(plot)
    notes = os.path.join(out_dir, "notes.md")
    with open(notes, "w") as f:
        f.write(notes_text(table, checks, records, meta))
    files.append(notes)
    return {"rows": rows, "time_rows": time_rows, "records": records, "checks": checks,
            "meta": meta, "files": files, "table": table, "seconds": meta["seconds"]}


def rewrite_outputs(out_dir):
    """Re-write the tables, plot and notes of a finished run from its ``records.csv`` and
    ``run.json`` (e.g. after a change of the notes), without re-running it."""
    with open(os.path.join(out_dir, "run.json")) as f:
        meta = json.load(f)
    with open(os.path.join(out_dir, "records.csv"), newline="") as f:
        records = []
        for r in csv.DictReader(f):
            rec = {k: r[k] for k in KEYS}
            rec.update(repeat=int(r["repeat"]), fold=int(r["fold"]),
                       converged=r["converged"] == "True")
            rec.update({v: float(r[v]) for v in list(METRICS) + [TIME]})
            records.append(rec)
    return write_outputs(out_dir, records, meta)


def _write_records(records, path):
    columns = list(KEYS) + ["repeat", "fold"] + list(METRICS) + [TIME, "converged"]
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows({c: r[c] for c in columns} for r in records)


def _row(rows, key):
    for row in rows:
        if tuple(row[k] for k in KEYS) == key:
            return row
    raise KeyError(key)


def plot_accuracy_time(rows, time_rows, path, models=MODELS):
    """The paper's Fig. 4: mean accuracy against mean training time (log x), one point per
    model with ± 1 sd bars, one panel per (data set, features). False without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a test dependency
        return False
    sets = list(dict.fromkeys(r["data set"] for r in rows))
    feats = list(dict.fromkeys(r["features"] for r in rows))
    height = 3.6 * len(sets) + 0.8
    fig, axes = plt.subplots(len(sets), len(feats), figsize=(4.6 * len(feats), height),
                             squeeze=False)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=0.6 / height, top=1 - 0.75 / height,
                        wspace=0.28, hspace=0.42)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, s in enumerate(sets):
        for j, feat in enumerate(feats):
            ax = axes[i][j]
            for c, m in enumerate(models):
                acc, t = _row(rows, (s, feat, m)), _row(time_rows, (s, feat, m))
                x, xs = t[TIME + "_mean"], t[TIME + "_std"]
                low = min(xs, 0.9 * x)  # keep the bar inside the log axis
                ax.errorbar([x], [acc["accuracy_mean"]], yerr=[[acc["accuracy_std"]]] * 2,
                            xerr=[[low], [xs]], fmt="o", capsize=3, label=m,
                            color=colors[c % len(colors)])
            ax.axhline(0.5, color="grey", lw=0.8, ls=":")
            ax.set_xscale("log")
            ax.set_ylim(0.0, 1.05)
            ax.set_title(f"{s}, {feat}", fontsize=10)
            ax.set_xlabel("training time per fit (s)")
            ax.set_ylabel("accuracy")
            ax.grid(alpha=0.3, which="both")
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=8, frameon=False)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------------------------
# notes

WHY = {
    "BLS": "by default the paper's ABIDE-UM settings (n = 10 windows, k = 10, q = 2000, s = 0.8, "
           "C = 2^-30); inputs scaled as the reference code does (each sample z-scored), so no "
           "scaler",
    "linear SVM": "library defaults (C = 1); scaled, libsvm is not scale invariant",
    "RF": "library defaults (100 trees); trees need no scaling",
    "KNN": "library defaults (5 neighbours, Euclidean); scaled, distances mix units otherwise",
    "DNN": "the 1000-600-softmax network; library defaults otherwise (ReLU, Adam, stop when "
           "the training loss stalls, at most `dnn_max_iter` epochs), float32 as TensorFlow",
}


def describe(model):
    """One-line repr of an estimator (scikit-learn shows the non-default parameters), without
    memory addresses."""
    return re.sub(r"<function (\S+) at 0x[0-9a-fA-F]+>", r"\1", " ".join(repr(model).split()))


def _model_lines(meta):
    lines = []
    for name in meta["models"]:
        why = f" — {WHY[name]}" if name in WHY else ""
        lines.append(f"- {name}: `{meta['descriptions'][name]}`{why}")
    return lines


def notes_text(table, checks, records, meta):
    """notes.md: settings, the table, the chance checks and what they say (deterministic)."""
    cfg, seed, data, models = meta["settings"], meta["seed"], meta["data"], meta["models"]
    lines = ["# BLS for fMRI classification (seed paper 000) — reproduction notes", ""]
    mode = "quick" if meta["quick"] else "full"
    lines += [f"Mode: {mode}; seed {seed}; {cfg['n_splits']}-fold stratified cross-validation "
              f"× {cfg['n_repeats']} repeat(s) (RepeatedStratifiedKFold, folds stratified on "
              "site × diagnosis when there are several sites); metrics on each test fold, "
              "patients positive; mean ± std over all folds and repeats.", ""]
    if meta["data_dir"] is None:
        lines += ["Data: synthetic subjects (fastelm.fmri.make_synthetic_abide, seed "
                  f"{seed}): {cfg['n_subjects']} subjects, {cfg['n_rois']} ROIs, series of "
                  f"{cfg['lengths'][0]}-{cfg['lengths'][1]} time points (cropped to the "
                  f"shortest), {cfg['n_sites']} sites, labels balanced per site. `effect`: "
                  f"patients carry a connectivity effect of size {cfg['effect_size']} on "
                  f"{max(1, cfg['n_rois'] // 10)} ROI pair(s); `null`: the same subjects and "
                  "noise with effect size 0 (no group difference).", ""]
    else:
        where = f" (sites {', '.join(meta['sites'])})" if meta["sites"] else ""
        lines += [f"Data: ABIDE-layout directory `{meta['data_dir']}`{where}.", ""]
    for name, d in data.items():
        feats = ", ".join(f"{f}: {n} features" for f, n in d["features"].items())
        excluded = f"; {d['excluded']} subject(s) excluded" if d["excluded"] else ""
        lines.append(f"- {name}: {d['subjects']} subjects ({d['patients']} patients), "
                     f"{d['sites']} site(s), {d['rois']} ROIs × {d['length']} time points; "
                     f"{feats}{excluded}")
    lines += ["", "Models (every random_state is set per fold):"] + _model_lines(meta)
    lines += ["", "## Results", "", table, "",
              "Training times are in `timings.md` (wall clock, machine dependent; "
              + (f"every fit limited to {meta['threads']} BLAS/Numba thread(s)"
                 if meta.get("threads") else "library default threads")
              + ") and in `accuracy_vs_time.png` (the paper's Fig. 4).", "",
              "## Above chance?", "",
              "Chance = the majority class share; a mean accuracy counts as above (below) chance "
              "when it is more than 2·sqrt(p(1-p)/N) away from it (two binomial standard "
              "deviations of an accuracy over the N subjects; a rule of thumb, since "
              "cross-validated folds are not independent).", "",
              "| data set | features | " + " | ".join(models) + " |",
              "|---|---|" + "---|" * len(models)]
    pairs = list(dict.fromkeys((k[0], k[1]) for k in checks))
    for name, feat in pairs:
        cells = []
        for m in models:
            c = checks[(name, feat, m)]
            verdict = ("above" if c["above_chance"] else
                       "below" if c["below_chance"] else "chance")
            cells.append(f"{c['accuracy']:.3f} ({verdict})")
        lines.append(f"| {name} | {feat} | " + " | ".join(cells) + " |")
    lines.append("")
    lines += _findings(checks, pairs, models, synthetic=meta["data_dir"] is None)
    unconverged = {}
    for r in records:
        if not r["converged"]:
            unconverged[r["model"]] = unconverged.get(r["model"], 0) + 1
    if unconverged:
        per_model = len(records) // max(len(models), 1)
        lines += ["", "Convergence warnings (recorded, not shown): " + ", ".join(
            f"{m} in {n} of {per_model} fits" for m, n in unconverged.items()) + "."]
    lines += ["", "## Differences from the paper", "",
              "- The paper's data (ABIDE I/II, ADHD-200 after DPARSF preprocessing) are not "
              "available offline; without `--data` the run uses synthetic subjects whose group "
              "effect is known.",
              "- CCNN and GCN are not reproduced; the DNN is scikit-learn's MLP, not TensorFlow.",
              "- Folds are stratified on site × diagnosis (diagnosis-only stratification made "
              "site-aware models score below chance on data without a group effect).",
              "- Each model is fitted once untimed before the timed folds (one-off costs).", ""]
    return "\n".join(lines)


def _findings(checks, pairs, models, synthetic=True):
    lines = ["## Findings", ""]
    for name, feat in pairs:
        above = [m for m in models if checks[(name, feat, m)]["above_chance"]]
        below = [m for m in models if checks[(name, feat, m)]["below_chance"]]
        text = (f"- {name}, {feat}: above chance: {', '.join(above) if above else 'none'}"
                + (f"; below chance: {', '.join(below)}" if below else "") + ".")
        lines.append(text)
    if synthetic:
        lines += ["", "Which feature carries the synthetic effect: patients share extra latent "
                  "sources on a few ROI pairs, which raises the correlation of each pair and, "
                  "as a side effect, the variance of those ROIs. The mean series is the same "
                  "in both groups at every time point, and the time points of different "
                  "subjects are not aligned (independent AR processes), so every linear "
                  "function of the flattened series (the paper's feature) has the same mean "
                  "in both groups and differs only in spread. A linear model (linear SVM; "
                  "BLS, whose feature nodes are linear maps of the inputs and whose "
                  "enhancement shrink keeps tansig close to linear) has little to use there: "
                  "a threshold off the common mean exploits the wider spread of patients a "
                  "little, and the BLS reference preprocessing's per-subject z-scoring turns "
                  "part of the amplitude difference into a mean difference (it divides the "
                  "ROI baselines, shared by everybody, by the subject's overall sd, larger in "
                  "patients). Amplitude features (squared values) or trees that threshold "
                  "the wider range of the effect ROIs can get more out of the series; "
                  "connectivity features (Fisher-z correlations) carry the effect directly."]
    return lines


def timings_text(time_table, time_rows, total, models):
    lines = ["# Training time per fit (wall clock, seconds)", "",
             f"Whole run {total:.1f} s (data generation, loading, warm-up, evaluation and "
             "output). Machine dependent and not deterministic, unlike results.md.", "",
             time_table, ""]
    if "BLS" in models and "DNN" in models:
        lines += ["Paper's efficiency claim (BLS trains faster than the DNN):"]
        for row in time_rows:
            if row["model"] != "BLS":
                continue
            dnn = _row(time_rows, (row["data set"], row["features"], "DNN"))
            ratio = dnn[TIME + "_mean"] / max(row[TIME + "_mean"], 1e-12)
            lines.append(f"- {row['data set']}, {row['features']}: BLS "
                         f"{row[TIME + '_mean']:.3f} s, DNN {dnn[TIME + '_mean']:.3f} s "
                         f"(DNN/BLS = {ratio:.1f})")
        lines.append("")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# command line

def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m fastelm.experiments.bls_fmri",
        description="BLS against linear SVM, RF, KNN and a 1000-600 DNN on fMRI subjects "
                    "(seed paper 000).")
    parser.add_argument("--quick", action="store_true",
                        help="80 synthetic subjects of 30 ROIs, 5 folds × 1 repeat (~1 min)")
    parser.add_argument("--out", default="results/bls-fmri", help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default=None,
                        help="an ABIDE Preprocessed layout directory (default: synthetic "
                             "subjects written to OUT/synthetic)")
    parser.add_argument("--sites", nargs="+", default=None,
                        help="keep only these SITE_IDs of --data (e.g. UM_1 UM_2)")
    parser.add_argument("--features", nargs="+", choices=FEATURES, default=list(FEATURES))
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP/Numba threads per fit (default 1; 0 = library "
                             "defaults)")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    result = run(quick=args.quick, out_dir=args.out, seed=args.seed, data_dir=args.data,
                 progress=not args.no_progress, features=args.features, sites=args.sites,
                 threads=args.threads or None)
    print(result["table"])
    print()
    print(f"{result['seconds']:.1f} s; wrote " + ", ".join(result["files"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
