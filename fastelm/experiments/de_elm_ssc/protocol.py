"""The DE-ELM-SSC reproduction's protocol: data, splits, models and the runs of each section
(tables and notes are ``outputs``; the package docstring describes the whole)."""
import time
from numbers import Integral

import numpy as np

from ... import datasets as _datasets
from ...deelm_ssc import F_GRID, DEELMSSC, DEELMSSCPlus, TriDEELM, grid_search_f
from ...elm import ELMClassifier
from ...de_elm import DEELMClassifier
from ...metrics import accuracy
from ...semi_supervised import TriTrainingClassifier
from .. import common
from ..common import progress

DATASETS = ("australian", "cancer", "vote", "wdbc", "mushroom")

LABELS = {"australian": "Australian", "cancer": "Cancer", "vote": "Vote", "wdbc": "Wdbc",
          "mushroom": "Mushroom"}

LOADERS = {"australian": _datasets.load_australian,
           "cancer": _datasets.load_breast_cancer_wisconsin,
           "vote": _datasets.load_vote,
           "wdbc": _datasets.load_wdbc,
           "mushroom": _datasets.load_mushroom}

METHODS = ("ELM", "Tri-ELM", "Tri-DE-ELM", "DE-ELM-SSC", "DE-ELM-SSC+")
DE_METHODS = ("Tri-DE-ELM", "DE-ELM-SSC", "DE-ELM-SSC+")
SHARES = (0.2, 0.4, 0.6, 0.8)
SHARE_METHODS = ("Tri-DE-ELM", "DE-ELM-SSC+")  # the paper's Table 5 compares these two
SSC_CLASSES = {"Tri-DE-ELM": TriDEELM, "DE-ELM-SSC": DEELMSSC, "DE-ELM-SSC+": DEELMSSCPlus}

# nh per data set (see the module docstring); f_min, f_max of DE-ELM-SSC+ from the validation
# grid of ``grid_search_f`` (seed 0; see notes.md for how they were found).
CONFIG = {
    "australian": dict(n_hidden=30, f_min=0.3, f_max=0.5),
    "cancer": dict(n_hidden=30, f_min=0.3, f_max=0.5),
    "vote": dict(n_hidden=30, f_min=0.3, f_max=0.5),
    "wdbc": dict(n_hidden=30, f_min=0.3, f_max=0.5),
    "mushroom": dict(n_hidden=40, f_min=0.3, f_max=0.5),
}

# DE and ELM settings shared by every model (the paper's defaults; alpha is ours)
COMMON = dict(alpha=1e-3, pop_size=20, n_generations=20, crossover=0.8)

# The figures quoted in the paper's text (§5.4, §5.5, §5.6).
PAPER = {
    ("australian", 0.2, "Tri-DE-ELM"): 0.7314,
    ("australian", 0.2, "DE-ELM-SSC+"): 0.7387,
    ("australian", 0.8, "Tri-DE-ELM"): 0.8024,
    ("australian", 0.8, "DE-ELM-SSC+"): 0.8123,
    "mushroom_f_0.3_0.5": (0.9784, 0.9767),   # (validation, test)
    "mushroom_f_1.0_1.0": (0.9447, 0.9456),
    "nh_plateau": 38,
    # §5.2: DE-ELM-SSC's strategies ("Wdbc, Mushroom and Australian: rand/1, best/1 and best/2
    # respectively"; Vote and Cancer: rand/1, the same as Tri-DE-ELM)
    "strategies": {"Australian": "best/2", "Cancer": "rand/1", "Vote": "rand/1",
                   "Wdbc": "rand/1", "Mushroom": "best/1"},
}

MODES = {
    "full": dict(runs=50, mushroom_runs=10, n_selection_repeats=125, subsample={},
                 share_datasets=DATASETS, shares=SHARES, share_methods=SHARE_METHODS,
                 share_runs=20, mushroom_share_runs=3,
                 grid_dataset="mushroom", grid_values=F_GRID, grid_runs=1,
                 nh_dataset="mushroom", nh_values=(10, 20, 30, 40, 50, 60), nh_runs=2,
                 ablation_runs=20),
    "quick": dict(runs=3, mushroom_runs=3, n_selection_repeats=5, subsample={"mushroom": 1000},
                  share_datasets=("australian",), shares=(0.2, 0.8), share_methods=SHARE_METHODS,
                  share_runs=3, mushroom_share_runs=3,
                  grid_dataset="mushroom", grid_values=(0.1, 0.3, 0.5, 1.0), grid_runs=1,
                  nh_dataset="mushroom", nh_values=(10, 30, 50), nh_runs=1, ablation_runs=0),
}

# settings that no mode sets, read only when given: {name: strategy-selection repeats} replaces
# n_selection_repeats for those data sets (``select_strategies``)
OPTIONAL_SETTINGS = ("selection_repeats",)

# stream identifiers of the per-run seeds (``_rng``)
_MAIN, _SHARE, _GRID, _NH, _ABLATION, _SELECT = range(6)


def settings(quick=False, runs=None, overrides=None, mushroom_runs=None):
    """The settings of a mode (``MODES``).

    ``runs`` sets the run count of Tables 3-5 and the ablation, and caps Mushroom's and those of
    Table 6 and Figs. 3-4; ``mushroom_runs`` sets Mushroom's counts of Tables 3-5; ``overrides``
    replaces keys (also 'common', the shared model settings, 'config', the per-data-set
    ones, and 'selection_repeats', ``OPTIONAL_SETTINGS``)."""
    s = dict(MODES["quick" if quick else "full"], common=COMMON, config=CONFIG)
    for name, count in (("runs", runs), ("mushroom_runs", mushroom_runs)):
        if count is not None and not (isinstance(count, Integral) and count >= 1):
            raise ValueError(f"{name} must be an integer >= 1 (0 runs would compute nothing), "
                             f"got {count!r}")
    known = set(s) | set(OPTIONAL_SETTINGS)
    unknown = sorted(set(overrides or {}) - known)
    if unknown:
        raise ValueError(f"unknown settings {unknown}; known: {sorted(known)}")
    if runs is not None:
        s.update(runs=runs, share_runs=runs, ablation_runs=runs if s["ablation_runs"] else 0,
                 mushroom_runs=min(s["mushroom_runs"], runs),
                 mushroom_share_runs=min(s["mushroom_share_runs"], runs),
                 grid_runs=min(s["grid_runs"], runs), nh_runs=min(s["nh_runs"], runs))
    if mushroom_runs is not None:
        s.update(mushroom_runs=mushroom_runs, mushroom_share_runs=mushroom_runs)
    s.update(overrides or {})
    return s


def _rng(seed, *key):
    """The Generator of one (seed, stream, data set, ...) cell: independent of the others, so a
    data set's numbers do not depend on which other data sets or sections are run."""
    return np.random.default_rng(np.random.SeedSequence([seed, *key]))


def _seed(rng):
    return int(rng.integers(2**31 - 1))


# --------------------------------------------------------------------------- data


def load(name, data_home=None, subsample=None, seed=0, categorical="onehot"):
    """(X, y) of a data set as float64 / int labels 0..K−1; optionally a stratified random
    subsample of ``subsample`` rows (the same for every run of a seed)."""
    kwargs = {} if name in ("cancer", "wdbc") else {"categorical": categorical}
    X, y = LOADERS[name](data_home=data_home, return_X_y=True, **kwargs)
    X = np.asarray(X, dtype=np.float64)
    y = np.unique(np.asarray(y), return_inverse=True)[1]
    if subsample is not None and subsample < len(y):
        keep, _ = _stratified(_rng(seed, 99, DATASETS.index(name)), np.arange(len(y)), y,
                              subsample / len(y))
        X, y = X[keep], y[keep]
    return X, y


def _stratified(rng, rows, y, fraction):
    """(taken, rest): round(fraction · count) random rows of each class taken, both sorted."""
    taken = []
    for c in np.unique(y[rows]):
        members = rng.permutation(rows[y[rows] == c])
        taken.append(members[:int(round(fraction * len(members)))])
    taken = np.sort(np.concatenate(taken))
    return taken, np.setdiff1d(rows, taken)


def split(y, rng, share=None):
    """Row indices (L, V, U, test) of one run: the main protocol (share None) or Table 5's."""
    test, train = _stratified(rng, np.arange(len(y)), y, 0.25)
    if share is None:
        D, U = _stratified(rng, train, y, 0.6)
        V, L = _stratified(rng, D, y, 0.5)
    else:
        V, LU = _stratified(rng, train, y, 0.3)
        L, U = _stratified(rng, LU, y, share)
    return L, V, U, test


def standardise(X, train_rows):
    """X scaled by the mean and sd of the training rows (a constant column becomes 0)."""
    return common.standardise(X[train_rows], X)[1]


class Run:
    """One run's data: standardised X_L ∪ X_U with -1 for U, V and test."""

    def __init__(self, X, y, rows, scale=True):
        L, V, U, test = rows
        if scale:
            X = standardise(X, np.concatenate([L, V, U]))
        self.X_L, self.y_L = X[L], y[L]
        self.X_semi = np.concatenate([X[L], X[U]])
        self.y_semi = np.concatenate([y[L], np.full(len(U), -1)])
        self.X_val, self.y_val = X[V], y[V]
        self.X_test, self.y_test = X[test], y[test]


# --------------------------------------------------------------------------- models


def make_model(method, name, strategies, rng, s=None, n_hidden=None):
    """An unfitted model of ``method`` with the data set's settings (``s``: 'common',
    'config'; default the module's) and a seed drawn from ``rng``."""
    common = COMMON if s is None else s["common"]
    cfg = (CONFIG if s is None else s["config"])[name]
    nh = cfg["n_hidden"] if n_hidden is None else n_hidden
    seed = _seed(rng)
    # W, b ~ U(-1, 1), the paper's draw (weight_scale=1.0; the DE-ELMs' presets say it too)
    if method == "ELM":
        return ELMClassifier(n_hidden=nh, alpha=common["alpha"], random_state=seed,
                             weight_scale=1.0)
    if method == "Tri-ELM":
        return TriTrainingClassifier(ELMClassifier(n_hidden=nh, alpha=common["alpha"],
                                                   weight_scale=1.0), random_state=seed)
    if method not in SSC_CLASSES:
        raise ValueError(f"unknown method {method!r}")
    cls = SSC_CLASSES[method]
    base = DEELMClassifier(n_hidden=nh, **common, **cls.preset)
    if method == "DE-ELM-SSC+":
        base.set_params(f_min=cfg["f_min"], f_max=cfg["f_max"])
    return cls(base, strategy=strategies.get(method, "auto"), random_state=seed)


def fit_score(model, data):
    """Fit on the run's data (ELM: on L only) → test accuracy, validation accuracy, seconds."""
    start = time.perf_counter()
    if isinstance(model, ELMClassifier):
        model.fit(data.X_L, data.y_L)
    elif isinstance(model, TriTrainingClassifier):
        model.fit(data.X_semi, data.y_semi)
    else:
        model.fit(data.X_semi, data.y_semi, data.X_val, data.y_val)
    seconds = time.perf_counter() - start
    return (accuracy(data.y_test, model.predict(data.X_test)),
            accuracy(data.y_val, model.predict(data.X_val)), seconds)


def select_strategies(name, X, y, seed, s):
    """The offline strategy vote of DE-ELM-SSC (F = 1) and DE-ELM-SSC+ (its F) on D of the
    first run's main split. Returns {method: StrategySelection}."""
    L, V, _, _ = split(y, _rng(seed, _MAIN, DATASETS.index(name), 0))
    D = np.concatenate([L, V])
    Xs = standardise(X, D)  # only D is known to this offline step
    out = {}
    for k, method in enumerate(("DE-ELM-SSC", "DE-ELM-SSC+")):
        repeats = s.get("selection_repeats", {}).get(name, s["n_selection_repeats"])
        model = make_model(method, name, {}, _rng(seed, _SELECT, k), s)
        out[method] = model.set_params(n_selection_repeats=repeats).vote_strategy(
            Xs[D], y[D], random_state=_rng(seed, _SELECT, DATASETS.index(name), k))
    return out


# --------------------------------------------------------------------------- sections


def _n_runs(name, s, key):
    return s["mushroom_" + key] if name == "mushroom" else s[key]


def main_table(name, X, y, strategies, s, seed, show):
    """Tables 3-4: records of every method and run on the main protocol."""
    records = []
    n = _n_runs(name, s, "runs")
    for run in progress(range(n), f"{LABELS[name]} table 3-4", n, show):
        rng = _rng(seed, _MAIN, DATASETS.index(name), run)
        data = Run(X, y, split(y, rng))
        for method in METHODS:
            test, val, sec = fit_score(make_model(method, name, strategies, rng, s), data)
            records.append(dict(dataset=LABELS[name], method=method, run=run,
                                test_accuracy=test, validation_accuracy=val,
                                train_time_s=sec))
    return records


def share_table(name, X, y, strategies, s, seed, show, methods=None, scale=True, shares=None,
                stream=_SHARE, n=None):
    """Table 5: test accuracy against the labelled share p of L ∪ U."""
    records = []
    methods = s["share_methods"] if methods is None else methods
    shares = s["shares"] if shares is None else shares
    n = _n_runs(name, s, "share_runs") if n is None else n
    cells = [(p, run) for p in shares for run in range(n)]
    for p, run in progress(cells, f"{LABELS[name]} table 5", len(cells), show):
        rng = _rng(seed, stream, DATASETS.index(name), int(round(100 * p)), run)
        data = Run(X, y, split(y, rng, share=p), scale=scale)
        for method in methods:
            test, val, _ = fit_score(make_model(method, name, strategies, rng, s), data)
            records.append(dict(dataset=LABELS[name], labelled=f"{int(round(100 * p))}%",
                                method=method, run=run, test_accuracy=test,
                                validation_accuracy=val))
    return records


def grid_table(name, X, y, strategies, s, seed, show):
    """Table 6: DE-ELM-SSC+ over the (Fmin, Fmax) grid; one main split per run."""
    records = []
    values = s["grid_values"]
    n_pairs = len(values) * (len(values) + 1) // 2
    bar = progress(range(n_pairs * s["grid_runs"]), f"{LABELS[name]} table 6",
                   n_pairs * s["grid_runs"], show)
    ticks = iter(bar)
    for run in range(s["grid_runs"]):
        rng = _rng(seed, _GRID, DATASETS.index(name), run)
        data = Run(X, y, split(y, rng))
        estimator = make_model("DE-ELM-SSC+", name, strategies, rng, s)
        result = grid_search_f(estimator, data.X_semi, data.y_semi, data.X_val, data.y_val,
                               data.X_test, data.y_test, values=values, n_runs=1,
                               random_state=_seed(rng),
                               callback=lambda record: next(ticks, None))
        for r in result.records:
            records.append(dict(dataset=LABELS[name], f_min=r["f_min"], f_max=r["f_max"],
                                run=run, validation_accuracy=r["validation_accuracy"],
                                test_accuracy=r["test_accuracy"]))
    return records


def hidden_table(name, X, y, strategies, s, seed, show):
    """Figs. 3-4: test and validation accuracy of the DE methods against nh."""
    records = []
    cells = [(nh, run) for nh in s["nh_values"] for run in range(s["nh_runs"])]
    for nh, run in progress(cells, f"{LABELS[name]} figs 3-4", len(cells), show):
        rng = _rng(seed, _NH, DATASETS.index(name), nh, run)
        data = Run(X, y, split(y, rng))
        for method in DE_METHODS:
            test, val, _ = fit_score(make_model(method, name, strategies, rng, s, n_hidden=nh),
                                     data)
            records.append(dict(dataset=LABELS[name], n_hidden=nh, method=method, run=run,
                                test_accuracy=test, validation_accuracy=val))
    return records


