"""Leakage-safe validation of fMRI classifiers: features fitted inside each training fold.

Splits
    :func:`cv_splits`: stratified k-fold repeated R times (``RepeatedStratifiedKFold``) on
    site × diagnosis strata; :func:`site_splits`: leave one site out (``LeaveOneGroupOut`` on
    SITE_ID), each test fold a site no training subject comes from.

Features (:class:`FoldFeatures`)
    ``timeseries`` (the paper's flattened, cropped series) and ``connectivity`` (Fisher-z
    Pearson correlations of each whole series) are per-subject maps; ``correlation`` and
    ``partial correlation`` (nilearn's Ledoit-Wolf kinds, :mod:`fastelm.connectome`) too. None
    of them learns from other subjects, so they are computed once for every subject. ``tangent``
    learns a reference (the training subjects' geometric mean): it is fitted on the training
    fold only and applied to its test fold, once per split, and every model of the split shares
    it -- the same values as one ``Pipeline(ConnectomeTransformer, model)`` per model
    (:func:`connectome_pipeline`), without refitting the reference per model.

Timing
    Every fit runs with BLAS/OpenMP and Numba limited to ``threads`` (1 in the reproduction),
    so training times compare model against model; the first fit of each model in a process is
    an untimed warm-up on 10 training subjects per class (Numba cache loading, first touch of
    memory).

Permutation test (:func:`permutation_test`)
    The labels are shuffled within each site (the sites' diagnosis balance kept) and the same
    splits re-run; p = (1 + #{permuted accuracy ≥ observed}) / (1 + n_permutations)
    (Ojala & Garriga, JMLR 2010). The features of each split are label independent and reused.
"""
import time
import warnings
import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import LeaveOneGroupOut, RepeatedStratifiedKFold
from sklearn.pipeline import Pipeline

from ...connectome import ConnectomeTransformer, connectivity_features
from ...metrics import classification_report_dict
from ..common import limit_threads
from ..common import progress as progress_bar
from .models import reseed

METRICS = ("accuracy", "precision", "sensitivity", "specificity", "f_measure")
TIME = "train_time"
CPU = "train_cpu"  # CPU seconds of the fit's process: on a shared machine, wall time is not
#: per-subject feature kinds (no fitting) and the one fitted on the training fold
SUBJECT_KINDS = ("timeseries", "connectivity", "correlation", "partial correlation")
FOLD_KINDS = ("tangent",)
KINDS = SUBJECT_KINDS + FOLD_KINDS
WARM_UP_ROWS = 10  # per class


def connectome_pipeline(kind, classifier):
    """``Pipeline([('connectome', ConnectomeTransformer(kind)), ('model', classifier)])``:
    fitted on a training fold's series (an object array of (T_i, M) arrays), so the tangent
    reference never sees a test subject."""
    return Pipeline([("connectome", ConnectomeTransformer(kind=kind)), ("model", classifier)])


def cv_splits(y, strata=None, n_splits=10, n_repeats=1, random_state=0):
    """[(train, test, repeat, fold)] of ``RepeatedStratifiedKFold`` on ``strata`` (or y)."""
    cv = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats,
                                 random_state=random_state)
    labels = np.asarray(y if strata is None else strata)
    return [(tr, te, i // n_splits, i % n_splits)
            for i, (tr, te) in enumerate(cv.split(np.zeros(len(labels)), labels))]


def site_splits(sites):
    """[(train, test, 0, k)] of ``LeaveOneGroupOut`` on the sites, in sorted site order."""
    sites = np.asarray(sites)
    return [(tr, te, 0, k) for k, (tr, te) in
            enumerate(LeaveOneGroupOut().split(np.zeros(len(sites)), groups=sites))]


class FoldFeatures:
    """Feature matrices of a split's training and test subjects, per kind, without leakage.

    Parameters
    ----------
    series : list of (T_i, M) arrays, or None
        Every subject's whole series (for the connectome kinds).
    matrices : dict {kind: (n_subjects, n_features) array}, optional
        Precomputed per-subject matrices (``timeseries``, ``connectivity``, ...).
    cache_folds : bool
        Keep the tangent matrices of each split (keyed by its test indices) for reuse, e.g.
        by the permutation test.
    """

    def __init__(self, series=None, matrices=None, cache_folds=False, phenotypes=None):
        self.series = None
        if series is not None:
            self.series = np.empty(len(series), dtype=object)
            self.series[:] = list(series)
        self.matrices = dict(matrices or {})
        self.cache_folds = cache_folds
        self.phenotypes = None if phenotypes is None else np.asarray(phenotypes, float)
        self._folds = {}

    def subject_matrix(self, kind):
        """The per-subject matrix of a SUBJECT_KINDS kind (computed once)."""
        if kind not in self.matrices:
            if kind not in SUBJECT_KINDS:  # a FOLD_KINDS kind fitted on every subject would leak
                raise ValueError(f"{kind!r} is not a per-subject kind {SUBJECT_KINDS}; "
                                 f"{FOLD_KINDS} are fitted on each split: use split()")
            if self.series is None or kind == "timeseries":
                raise ValueError(f"no {kind!r} features given")
            if kind == "connectivity":
                self.matrices[kind] = connectivity_features(list(self.series))
            else:
                self.matrices[kind] = ConnectomeTransformer(kind).fit_transform(self.series)
        return self.matrices[kind]

    def split(self, kind, train, test):
        """(X_train, X_test) of ``kind``; a FOLD_KINDS kind is fitted on ``train`` only."""
        if kind in SUBJECT_KINDS or kind in self.matrices:
            X = self.subject_matrix(kind)
            return X[train], X[test]
        if kind not in FOLD_KINDS:
            raise ValueError(f"unknown features {kind!r}; known: {KINDS}")
        key = (kind, test.tobytes(), train.tobytes())
        if key in self._folds:
            return self._folds[key]
        if self.series is None:
            raise ValueError(f"{kind!r} features need the subjects' series")
        out = _fit_fold_kind(self.series, kind, train, test)
        if self.cache_folds:
            self._folds[key] = out
        return out

    def precompute(self, kind, splits, n_jobs=1, threads=1):
        """Fit ``kind`` (a FOLD_KINDS kind) on every split's training subjects, ``n_jobs``
        splits at a time (each on ``threads`` threads), and keep the matrices: once per split,
        shared by the split's models, the permutation test and the worker processes."""
        todo = [(tr, te) for tr, te, *_ in splits
                if (kind, te.tobytes(), tr.tobytes()) not in self._folds]
        if kind not in FOLD_KINDS or not todo:
            return
        if self.series is None:
            raise ValueError(f"{kind!r} features need the subjects' series")
        if n_jobs is not None and n_jobs > 1 and len(todo) > 1:
            from joblib import Parallel, delayed
            outs = Parallel(n_jobs=n_jobs)(
                delayed(_fit_fold_kind)(self.series, kind, tr, te, threads) for tr, te in todo)
        else:
            outs = [_fit_fold_kind(self.series, kind, tr, te, threads) for tr, te in todo]
        for (tr, te), out in zip(todo, outs):
            self._folds[(kind, te.tobytes(), tr.tobytes())] = out

    def view(self, kinds, train, test):
        """A :class:`SplitFeatures` holding only this split's matrices of ``kinds`` (what a
        worker process needs, instead of every subject's series and every split)."""
        return SplitFeatures({k: self.split(k, train, test) for k in kinds}, self.phenotypes)


def _fit_fold_kind(series, kind, train, test, threads=None):
    """(X_train, X_test) of a fold kind: ``ConnectomeTransformer(kind)`` fitted on the
    training subjects' series only."""
    with limit_threads(threads):
        transformer = ConnectomeTransformer(kind=kind)
        return transformer.fit_transform(series[train]), transformer.transform(series[test])


class SplitFeatures:
    """One split's feature matrices ``{kind: (X_train, X_test)}`` (a :meth:`FoldFeatures.view`)."""

    def __init__(self, matrices, phenotypes=None):
        self.matrices, self.phenotypes = matrices, phenotypes

    def split(self, kind, train, test):
        return self.matrices[kind]


def fit_timed(estimator, X, y):
    """Fit; returns (wall seconds, converged, CPU seconds of this process) — converged is
    False on a ConvergenceWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        start, cpu = time.perf_counter(), time.process_time()
        estimator.fit(X, y)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    for w in caught:  # anything else is passed on
        if not issubclass(w.category, ConvergenceWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return seconds, not any(issubclass(w.category, ConvergenceWarning) for w in caught), cpu


def model_inputs(estimator, features, kind, train, test, X_train, X_test):
    """One model's inputs of a fold: (X_train, X_test), except for a model with a
    ``fold_inputs`` hook (the deep comparators of ``fastelm.experiments.deep``: the CNN checks
    that ``kind`` is a connectome, the GCN takes the site and sex columns
    ``features.phenotypes`` of the fold's subjects)."""
    if not hasattr(estimator, "fold_inputs"):
        return X_train, X_test
    P = features.phenotypes
    return estimator.fold_inputs(kind, X_train, X_test,
                                 None if P is None else (P[train], P[test]))


def _warm_up_rows(y, train, per_class=WARM_UP_ROWS):
    return np.concatenate([train[y[train] == c][:per_class] for c in np.unique(y[train])])


def _fold_seed(random_state, i):
    return int(np.random.SeedSequence([random_state, i]).generate_state(1)[0])


# (model name, feature kind) already warmed up in this process
_WARMED: set[tuple[str, str]] = set()


def _one_split(features, kinds, y, models, split, i, random_state, pos_label, warm_up,
               threads, sites, skip):
    """Records and predictions of one split (every kind, every model)."""
    train, test, repeat, fold = split
    records, predictions = [], []
    seed = _fold_seed(random_state, i)
    site = None
    if sites is not None and len(set(np.asarray(sites)[test])) == 1:
        site = str(np.asarray(sites)[test][0])
    with limit_threads(threads):
        for kind in kinds:
            X_train, X_test = features.split(kind, train, test)
            for name, model in models.items():
                if (name, i) in skip:
                    continue
                if warm_up and (name, kind) not in _WARMED:
                    rows = _warm_up_rows(y[train], np.arange(len(train)))
                    try:  # best effort: a model may need more rows (PCA of 300 components)
                        fit_timed(reseed(clone(model), random_state), X_train[rows],
                                  y[train][rows])
                    except ValueError:
                        pass
                    _WARMED.add((name, kind))
                estimator = reseed(clone(model), seed)
                X_fit, X_eval = model_inputs(estimator, features, kind, train, test, X_train,
                                             X_test)
                seconds, converged, cpu = fit_timed(estimator, X_fit, y[train])
                pred = estimator.predict(X_eval)
                # a transductive model (the population GCN) trains in predict: time it too
                seconds += getattr(estimator, "transductive_time_", 0.0)
                cpu += getattr(estimator, "transductive_cpu_", 0.0)
                predictions.append(((kind, name, repeat), test, pred))
                scores = classification_report_dict(y[test], pred, pos_label=pos_label)
                rec = {"features": kind, "model": name, "repeat": repeat, "fold": fold,
                       **scores, TIME: seconds, CPU: cpu, "converged": converged}
                penalty = _chosen_penalty(estimator)
                if penalty is not None:
                    rec["penalty"] = penalty
                links = _chosen(estimator, ("direct_links_",))
                if links is not None:
                    rec["direct_links"] = bool(links)
                if site is not None:
                    rec["site"] = site
                records.append(rec)
    return records, predictions


def _chosen(estimator, names):
    """The first fitted attribute of ``names`` a CV estimator (or a pipeline's last step)
    has; None for other estimators."""
    last = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else estimator
    for name in names:
        value = getattr(last, name, None)
        if value is not None:
            return value
    return None


def _chosen_penalty(estimator):
    """The penalty a CV estimator chose (``reg_`` or ``alpha_``), also as a pipeline's last
    step; None for other estimators."""
    value = _chosen(estimator, ("reg_", "alpha_"))
    return None if value is None else float(value)


def run_splits(features, kinds, y, models, splits, random_state=0, *, pos_label=1,
               warm_up=True, threads=None, progress=True, desc="CV", sites=None, n_jobs=1,
               skip=()):
    """Every model on every split and feature kind; returns (records, predictions).

    ``features`` is a :class:`FoldFeatures`; each split's features are built once per kind
    and shared by the models. A record holds ``features``, ``model``, ``repeat``, ``fold``
    (and ``site``, the test site, when every test fold is one site of ``sites``), the five
    metrics on the test fold, ``train_time`` and ``converged``; ``predictions`` maps
    (features, model, repeat) to the out-of-fold predicted labels (-1 where not tested).
    With ``n_jobs`` > 1 the splits run in that many processes (each fit still on ``threads``
    threads); the records are the same, in the same order. ``skip`` holds (model, split
    index) pairs not run (an expensive model on some splits only).
    """
    y = np.asarray(y)
    args = (kinds, y, models)
    tail = (random_state, pos_label, warm_up, threads, sites, set(skip))
    if n_jobs is not None and n_jobs > 1 and len(splits) > 1:
        from joblib import Parallel, delayed
        parts = Parallel(n_jobs=n_jobs)(
            delayed(_one_split)(features.view(kinds, split[0], split[1])
                                if hasattr(features, "view") else features,
                                *args, split, i, *tail)
            for i, split in enumerate(splits))
    else:
        parts = [_one_split(features, *args, split, i, *tail) for i, split in enumerate(
            progress_bar(splits, desc, total=len(splits), enabled=progress))]
    records, predictions = [], {}
    for recs, preds in parts:
        records += recs
        for key, test, pred in preds:
            predictions.setdefault(key, np.full(len(y), -1, dtype=np.int64))[test] = pred
    return records, predictions


def evaluate(X, y, models=None, n_splits=10, n_repeats=10, random_state=0, progress=True, *,
             strata=None, pos_label=1, warm_up=True, threads=None, desc="CV"):
    """Repeated stratified k-fold evaluation of each model on one feature matrix X.

    Parameters
    ----------
    X : array of shape (n_subjects, n_features)
    y : array of shape (n_subjects,), binary labels; ``pos_label`` is the patient class.
    models : dict {name: estimator}, optional
        Unfitted estimators (cloned per fold); default ``default_models()``.
    n_splits, n_repeats : int
        Folds and repetitions of ``RepeatedStratifiedKFold`` (paper: 10 × 10).
    random_state : int or None
        Seeds the folds and, per fold, every ``random_state`` parameter of every model.
    progress : bool
        Progress bar on stderr (tqdm).
    strata : array of shape (n_subjects,), optional
        Labels to stratify the folds on instead of ``y`` (e.g. site × diagnosis).
    warm_up : bool
        Fit each model once, untimed, on 10 rows per class first.
    threads : int, optional
        Limit BLAS/OpenMP and Numba to this many threads (None: library defaults).

    Returns
    -------
    records : list of dict, one per fold and model: ``model``, ``repeat``, ``fold``, the five
        metrics of :data:`METRICS`, ``train_time`` (wall seconds of ``fit``) and ``converged``.
    """
    from .models import default_models

    X, y = np.asarray(X), np.asarray(y)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise ValueError(f"X must be 2-D and y match its rows, got {X.shape} and {y.shape}")
    models = default_models() if models is None else dict(models)
    if random_state is None:
        random_state = int(np.random.SeedSequence().generate_state(1)[0])
    splits = cv_splits(y, strata, n_splits, n_repeats, random_state)
    records, _ = run_splits(FoldFeatures(matrices={"matrix": X}), ["matrix"], y, models,
                            splits, random_state, pos_label=pos_label, warm_up=warm_up,
                            threads=threads, progress=progress, desc=desc)
    for r in records:
        del r["features"]
    return records


def _shuffle_within(y, groups, rng):
    y = np.array(y)
    for g in np.unique(groups):
        idx = np.flatnonzero(groups == g)
        y[idx] = y[rng.permutation(idx)]
    return y


def permutation_test(features, kind, y, model, splits, n_permutations=100, random_state=0, *,
                     groups=None, threads=1, progress=True, n_jobs=1):
    """p-value of a model's cross-validated accuracy against label shuffles.

    The labels are permuted within each group (site) ``n_permutations`` times; each permuted
    set runs the same ``splits`` (features of a split reused: they do not depend on labels).
    Accuracy is pooled over the test folds of the splits.

    Returns
    -------
    dict with ``accuracy`` (observed), ``permuted`` (array), ``pvalue``
    = (1 + #{permuted ≥ observed}) / (1 + n_permutations), ``n_permutations``.
    """
    y = np.asarray(y)
    groups = np.zeros(len(y)) if groups is None else np.asarray(groups)
    rng = np.random.default_rng(random_state)

    def accuracy(labels):
        correct = total = 0
        with limit_threads(threads):
            for i, (train, test, _, _) in enumerate(splits):
                X_train, X_test = features.split(kind, train, test)
                est = reseed(clone(model), _fold_seed(random_state, i))
                est.fit(X_train, labels[train])
                correct += int((est.predict(X_test) == labels[test]).sum())
                total += len(test)
        return correct / total

    observed = accuracy(y)
    shuffled = [_shuffle_within(y, groups, rng) for _ in range(n_permutations)]
    if n_jobs is not None and n_jobs > 1:
        from joblib import Parallel, delayed
        permuted = np.array(Parallel(n_jobs=n_jobs)(delayed(accuracy)(labels)
                                                    for labels in shuffled))
    else:
        permuted = np.array([accuracy(labels) for labels in progress_bar(
            shuffled, f"permutations {kind}", total=n_permutations, enabled=progress)])
    pvalue = (1 + int((permuted >= observed).sum())) / (1 + n_permutations)
    return {"accuracy": observed, "permuted": permuted, "pvalue": pvalue,
            "n_permutations": int(n_permutations)}


def bls_permutation_test(features, kind, y, model, reg, splits, n_permutations=99,
                         random_state=0, *, groups=None, threads=1, progress=True):
    """:func:`permutation_test` of a BLS classifier (or a pipeline of label-free steps ending in
    one) at a fixed penalty ``reg``, exactly, at the cost of one broad layer per split.

    A BLS layer (input scaling, sparse autoencoders, enhancement nodes) is learned without
    the labels, so each split's layer I (training rows) and I_test is built once; for the
    observed and every shuffled label vector only the readout is solved, in its dual form
    β = Iᵀ(IIᵀ + C·I)⁻¹T with the Cholesky factor of IIᵀ + C·I reused (``fastelm.bls``'s
    readout, docs/algorithms.md §5). Used for BLS-CV with C fixed at the penalty its inner CV
    chose most often: the per-permutation re-selection of C is left out (documented in the
    notes), which costs one BLS layer per split instead of one per split, inner split and
    permutation.
    """
    from scipy.linalg import cho_factor, cho_solve

    y = np.asarray(y)
    groups = np.zeros(len(y)) if groups is None else np.asarray(groups)
    rng = np.random.default_rng(random_state)
    folds = []
    with limit_threads(threads):
        for i, (train, test, _, _) in enumerate(splits):
            X_train, X_test = features.split(kind, train, test)
            est = clone(model)
            if isinstance(est, Pipeline):  # label-free steps (a scaler) before the BLS
                est.set_params(**{f"{est.steps[-1][0]}__reg": reg})
            else:
                est.set_params(reg=reg)
            est = reseed(est, _fold_seed(random_state, i)).fit(X_train, y[train])
            if isinstance(est, Pipeline):
                X_train, X_test = est[:-1].transform(X_train), est[:-1].transform(X_test)
                est = est[-1]
            I_train, I_test = est.broad_features(X_train), est.broad_features(X_test)
            G = I_train @ I_train.T
            G[np.diag_indices_from(G)] += reg
            folds.append((train, test, I_train, I_test, cho_factor(G), est))
    classes = folds[0][5].classes_
    reference = folds[0][5].preprocessing == "reference"

    def accuracy(labels):
        correct = total = 0
        for train, test, I_train, I_test, factor, _ in folds:
            T = (labels[train][:, None] == classes[None, :]).astype(np.float64)
            if reference:
                T = 2.0 * T - 1.0
            scores = I_test @ (I_train.T @ cho_solve(factor, T))
            correct += int((classes[scores.argmax(axis=1)] == labels[test]).sum())
            total += len(test)
        return correct / total

    with limit_threads(threads):
        observed = accuracy(y)
        permuted = np.array([accuracy(_shuffle_within(y, groups, rng)) for _ in progress_bar(
            range(n_permutations), f"permutations {kind}", total=n_permutations,
            enabled=progress)])
    pvalue = (1 + int((permuted >= observed).sum())) / (1 + n_permutations)
    return {"accuracy": observed, "permuted": permuted, "pvalue": pvalue,
            "n_permutations": int(n_permutations)}
