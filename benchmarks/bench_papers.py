"""asv benchmarks of the three paper reproductions at their quick size: training time, and
``track_`` benchmarks of the scores they report, so a speed-up that costs accuracy shows. asv
reads every tracked value as lower-is-better (``asv continuous`` fails, and the dashboard lists
a regression, when it rises), so accuracies are tracked as error rates (1 − accuracy).

* FOS-ELM (``fastelm.experiments.fos_elm``): one repeat of the quick experiment (FOS-ELM,
  OS-ELM at L0 and OS-ELM at FOS-ELM's final size streamed over the same rows) on the data sets
  available offline: Friedman #2 (synthetic), Concrete, Pima, Segment (package copies; a set
  that cannot be loaded is skipped). Tracked: FOS-ELM's and OS-ELM (L0)'s test errors (RMSE on
  [0, 1] targets, or error rate) and FOS-ELM's final node count, means over the quick mode's
  3 repeats.
* BLS-fMRI (``fastelm.experiments.bls_fmri``): the quick synthetic ABIDE data (80 subjects,
  30 ROIs, ``make_synthetic``), BLS with the paper's settings: one fit on every subject, and
  the 5-fold cross-validation of the quick mode (one thread, as ``run`` does). Tracked: the
  mean CV error rate on the ``effect`` data (below 0.5 on connectivity) and the mean CV
  accuracy on ``null`` (chance, 0.5: more would be a leak).
* DE-ELM-SSC (``fastelm.experiments.de_elm_ssc``): Wdbc (scikit-learn's copy), the quick
  mode's settings and offline strategy vote, Numba on one thread as in quick mode. Timed: one
  fit of Tri-DE-ELM, DE-ELM-SSC and DE-ELM-SSC+; the strategy vote; one run of Tables 3-4 (all
  five methods). Tracked: every method's test error rate in the quick mode's Tables 3-4 (mean
  over its 3 runs).

Results depend only on the seed (not on thread counts), so a tracked value moves only when the
numbers the code computes change.
"""
import shutil
import tempfile

import numba
import numpy as np

from . import _cases  # noqa: F401  (puts this work tree on sys.path if fastelm is not installed)
from fastelm.datasets import DataNotFoundError
from fastelm.experiments import bls_fmri, de_elm_ssc, fos_elm

SEED = 0

# --------------------------------------------------------------------------- FOS-ELM

FOS_DATASETS = ["friedman2", "concrete", "pima", "segment"]


def fos_elm_inputs(name):
    """(quick config, data bunch) of a data set; NotImplementedError (asv: skipped) if it is
    not available offline."""
    cfg = fos_elm.configs(quick=True, names=[name])[name]
    try:
        return cfg, fos_elm.protocol._load(name, None)
    except DataNotFoundError as error:
        raise NotImplementedError(f"{name} is not available: {error}") from None


class TimeFOSELMPaper:
    """One repeat of the quick FOS-ELM experiment (repeat 0 of seed 0), and FOS-ELM's own
    stream of that repeat."""

    params = [FOS_DATASETS]
    param_names = ["data set"]
    timeout = 300

    def setup(self, name):
        self.cfg, self.bunch = fos_elm_inputs(name)
        regression = self.cfg["task"] == "regression"
        rng = fos_elm.protocol._rng(SEED, name, 0)
        Xtr, ytr, Xte, yte = fos_elm.preprocess(*fos_elm.split(name, self.bunch, self.cfg, rng),
                                                regression)
        self.stream_data = (Xtr, ytr, self.cfg["initial"], self.cfg["chunk"],
                            None if regression else np.unique(np.concatenate([ytr, yte])))
        fos_elm.run_repeat(name, self.bunch, self.cfg, fos_elm.protocol._rng(SEED, name, 0))  # warm

    def time_repeat(self, name):
        fos_elm.run_repeat(name, self.bunch, self.cfg, fos_elm.protocol._rng(SEED, name, 0))

    def time_fos_elm_stream(self, name):
        fos, _ = fos_elm.protocol._models(self.cfg, 1, 2)
        fos_elm.stream(fos, *self.stream_data)


class TrackFOSELMPaper:
    """Test errors of the quick FOS-ELM experiment (3 repeats of seed 0): RMSE for Friedman #2
    and Concrete, error rate (1 − accuracy) for Pima and Segment; lower is better, as asv
    reads every tracked value."""

    params = [FOS_DATASETS]
    param_names = ["data set"]
    unit = "RMSE or error rate"
    timeout = 600

    def setup_cache(self):
        out = {}
        for name in FOS_DATASETS:
            try:
                cfg, bunch = fos_elm_inputs(name)
            except NotImplementedError:
                continue
            records = [rec for r in range(fos_elm.QUICK_REPEATS)
                       for rec in fos_elm.run_repeat(name, bunch, cfg,
                                                     fos_elm.protocol._rng(SEED, name, r))[0]]
            error = (lambda score: score) if cfg["task"] == "regression" else (
                lambda score: 1.0 - score)
            out[name] = {model: (error(np.mean([r["score"] for r in records
                                                if r["model"] == model])),
                                 np.mean([r["nodes"] for r in records if r["model"] == model]))
                         for model in fos_elm.MODELS}
        return out

    def _get(self, cache, name, model, column):
        if name not in cache:
            raise NotImplementedError(f"{name} is not available")
        return float(cache[name][model][column])

    def track_fos_elm_error(self, cache, name):
        return self._get(cache, name, "FOS-ELM", 0)

    def track_oselm_l0_error(self, cache, name):
        return self._get(cache, name, "OS-ELM (L0)", 0)

    def track_fos_elm_final_nodes(self, cache, name):
        return self._get(cache, name, "FOS-ELM", 1)

    track_fos_elm_final_nodes.unit = "nodes"


# --------------------------------------------------------------------------- BLS-fMRI


def bls_fmri_data():
    """{(data set, features): (X, y, strata)} of the quick synthetic ABIDE data."""
    settings = bls_fmri.settings_for(quick=True)
    directory = tempfile.mkdtemp(prefix="fastelm-asv-")
    try:
        paths = bls_fmri.make_synthetic(directory, settings, SEED)
        return {(name, features): bls_fmri.load(path, features)[:3]
                for name, path in paths.items() for features in bls_fmri.FEATURES}
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def bls_fmri_cv(X, y, strata):
    """The quick mode's BLS cross-validation: records of 5 folds × 1 repeat, one thread."""
    s = bls_fmri.settings_for(quick=True)
    return bls_fmri.evaluate(X, y, {"BLS": bls_fmri.default_models()["BLS"]},
                             n_splits=s["n_splits"], n_repeats=s["n_repeats"],
                             random_state=SEED, progress=False, strata=strata, threads=1)


class TimeBLSfMRIPaper:
    """BLS on the quick synthetic ABIDE data (``effect``), time series (1800 features) or
    connectivity (435 features)."""

    params = [list(bls_fmri.FEATURES)]
    param_names = ["features"]
    timeout = 300

    def setup_cache(self):
        return bls_fmri_data()

    def setup(self, data, features):
        self.X, self.y, self.strata = data[("effect", features)]
        self.model = bls_fmri.default_models()["BLS"].set_params(random_state=SEED)
        self.model.fit(self.X[:20], self.y[:20])  # warm

    def time_bls_fit(self, data, features):
        self.model.fit(self.X, self.y)

    def time_cross_validation(self, data, features):
        bls_fmri_cv(self.X, self.y, self.strata)


class TrackBLSfMRIPaper:
    """BLS over the quick mode's 5 folds: the mean error rate (1 − accuracy) on the ``effect``
    data (connectivity well above chance), and the mean accuracy on the ``null`` data (no group
    difference: about 0.5, more would be a leak). A rise of either is the bad direction, as asv
    reads every tracked value."""

    params = [list(bls_fmri.FEATURES)]
    param_names = ["features"]
    timeout = 300

    def setup_cache(self):
        return bls_fmri_data()

    def track_bls_cv_error_effect(self, data, features):
        records = bls_fmri_cv(*data[("effect", features)])
        return 1.0 - float(np.mean([r["accuracy"] for r in records]))

    track_bls_cv_error_effect.unit = "error rate"

    def track_bls_cv_accuracy_null(self, data, features):
        records = bls_fmri_cv(*data[("null", features)])
        return float(np.mean([r["accuracy"] for r in records]))

    track_bls_cv_accuracy_null.unit = "accuracy"


# --------------------------------------------------------------------------- DE-ELM-SSC

DE_NAME = "wdbc"


def de_elm_ssc_inputs():
    """Quick settings, Wdbc, and the strategies of the offline vote (computed on one thread)."""
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        s = de_elm_ssc.settings(quick=True)
        X, y = de_elm_ssc.load(DE_NAME)
        selections = de_elm_ssc.select_strategies(DE_NAME, X, y, SEED, s)
        return s, X, y, {method: sel.strategy for method, sel in selections.items()}
    finally:
        numba.set_num_threads(threads)


class _OneThread:
    """Numba on one thread during the benchmark, as the quick experiment runs it."""

    def setup(self, *args):
        self.threads = numba.get_num_threads()
        numba.set_num_threads(1)

    def teardown(self, *args):
        numba.set_num_threads(self.threads)


class TimeDEELMSSCPaper(_OneThread):
    """One fit of each DE method on a main-protocol split of Wdbc, quick settings."""

    params = [list(de_elm_ssc.DE_METHODS)]
    param_names = ["method"]
    timeout = 300

    def setup_cache(self):
        return de_elm_ssc_inputs()

    def setup(self, inputs, method):
        super().setup()
        self.s, X, y, self.strategies = inputs
        self.data = de_elm_ssc.Run(X, y, de_elm_ssc.split(y, np.random.default_rng(SEED)))
        self.time_fit(inputs, method)  # warm

    def time_fit(self, inputs, method):
        model = de_elm_ssc.make_model(method, DE_NAME, self.strategies,
                                      np.random.default_rng(SEED), self.s)
        de_elm_ssc.fit_score(model, self.data)


class TimeDEELMSSCExperiment(_OneThread):
    """The quick experiment's work on Wdbc: the offline strategy vote (5 repetitions × 3
    strategies, for DE-ELM-SSC and DE-ELM-SSC+), and one run of Tables 3-4 (all five methods,
    ``main_table``)."""

    timeout = 300

    def setup_cache(self):
        return de_elm_ssc_inputs()

    def time_strategy_selection(self, inputs):
        s, X, y, _ = inputs
        de_elm_ssc.select_strategies(DE_NAME, X, y, SEED, s)

    def time_tables_3_4_one_run(self, inputs):
        s, X, y, strategies = inputs
        de_elm_ssc.main_table(DE_NAME, X, y, strategies, dict(s, runs=1), SEED, False)


class TrackDEELMSSCPaper:
    """Test error rate (1 − accuracy) on Wdbc of every method of Tables 3-4 (ELM and Tri-ELM
    for context), mean over the quick mode's 3 runs: the experiment's own numbers."""

    params = [list(de_elm_ssc.METHODS)]
    param_names = ["method"]
    unit = "error rate"
    timeout = 600

    def setup_cache(self):
        s, X, y, strategies = de_elm_ssc_inputs()
        threads = numba.get_num_threads()
        numba.set_num_threads(1)
        try:
            return de_elm_ssc.main_table(DE_NAME, X, y, strategies, s, SEED, False)
        finally:
            numba.set_num_threads(threads)

    def track_test_error(self, records, method):
        return 1.0 - float(np.mean([r["test_accuracy"] for r in records
                                    if r["method"] == method]))
