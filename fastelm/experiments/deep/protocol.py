"""The deep comparators in the BLS-fMRI reproduction: the models at its settings and the run
on its ABIDE folds (the tables and plots are ``outputs``)."""
import numpy as np

from .brainnetcnn import BrainNetCNNClassifier
from .gcn import PopulationGCNClassifier
from .outputs import DEEP_MODELS, write_abide_outputs


def deep_models(quick=False, **overrides):
    """``{'CCNN': BrainNetCNNClassifier(...), 'GCN': PopulationGCNClassifier(...)}`` at the
    reproduction's settings (the classes' defaults); ``quick``: a few epochs, a smaller CNN and
    a 500-feature RFE, for CI on synthetic subjects. ``overrides``: ``{'CCNN': {...}}``."""
    if quick:
        cnn = dict(e2e_channels=(4,), e2n_channels=8, n2g_channels=16, hidden=(16,),
                   max_epochs=8, patience=4)
        gcn = dict(n_selected=500, rfe_step=50, max_epochs=40, patience=10)
    else:
        cnn, gcn = {}, {}
    cnn.update(overrides.get("CCNN", {}))
    gcn.update(overrides.get("GCN", {}))
    return {"CCNN": BrainNetCNNClassifier(**cnn), "GCN": PopulationGCNClassifier(**gcn)}


def _history(estimator):
    """(history, best epoch) of a fitted CCNN, or of a GCN's last transductive training."""
    if isinstance(estimator, PopulationGCNClassifier):
        t = estimator.transduction_
        return t["history"], int(t["best_epoch"])
    return estimator.history_, int(estimator.best_epoch_)


def run_abide(data_dir, out_dir, kinds=("connectivity",), *, atlas="cc200", seed=0,
              models=None, reference="BLS-CV", progress=True):
    """The two models on the real-data reproduction's folds and features, one thread per fit.

    The subjects, site × diagnosis strata, 10 folds and fold seeds are those of
    ``fastelm.experiments.bls_fmri`` (``load``, ``cv_splits``, ``FoldFeatures``: tangent
    features fitted on each training fold); ``reference`` (BLS-CV by default) runs in the
    same process on the same folds so that the training-time ratio deep / BLS-CV compares
    fits made under the same machine load. Each fit's time is ``fit`` plus, for the GCN, its
    transductive training in ``predict``; CPU seconds are recorded beside wall seconds (the
    machine is shared). Writes ``records.csv``, ``results.md``/``.csv`` (the paper's five
    metrics, mean ± sd over folds), ``timings.md``/``.csv``, ``accuracy_vs_time.png`` (the
    paper's Fig. 4), ``training_curves_<kind>.png`` and ``curves.json`` to ``out_dir``;
    returns the records.
    """
    import json
    import os

    from sklearn.base import clone

    from ...metrics import classification_report_dict
    from ..bls_fmri.models import default_models, reseed
    from ..bls_fmri.protocol import (CPU, TIME, FoldFeatures, _fold_seed, cv_splits,
                                     fit_timed)
    from ..bls_fmri.reproduce import load
    from ..common import progress as progress_bar
    from ..._threads import thread_limit

    X, y, strata, bunch = load(data_dir, "connectivity", None, atlas, None)
    site = np.unique(bunch.sites, return_inverse=True)[1].astype(float)
    sex = np.asarray(bunch.phenotype["SEX"], dtype=float)
    phenotypes = np.column_stack([site, sex])
    features = FoldFeatures(bunch.series, {"connectivity": X})
    splits = cv_splits(y, strata, 10, 1, seed)
    models = dict(deep_models() if models is None else models)
    if reference:
        models[reference] = default_models(extended=True)[reference]
    records, curves = [], []
    with thread_limit(1):
        for i, (train, test, repeat, fold) in enumerate(
                progress_bar(splits, "deep", total=len(splits), enabled=progress)):
            for kind in kinds:
                X_train, X_test = features.split(kind, train, test)
                for name, model in models.items():
                    estimator = reseed(clone(model), _fold_seed(seed, i))
                    a, b = X_train, X_test
                    if hasattr(estimator, "fold_inputs"):
                        a, b = estimator.fold_inputs(kind, a, b,
                                                     (phenotypes[train], phenotypes[test]))
                    seconds, converged, cpu = fit_timed(estimator, a, y[train])
                    pred = estimator.predict(b)
                    seconds += getattr(estimator, "transductive_time_", 0.0)
                    cpu += getattr(estimator, "transductive_cpu_", 0.0)
                    records.append({"data set": os.path.basename(os.path.normpath(data_dir)),
                                    "features": kind, "model": name, "repeat": repeat,
                                    "fold": fold, **classification_report_dict(y[test], pred),
                                    TIME: seconds, CPU: cpu, "converged": converged})
                    if name in DEEP_MODELS:
                        history, best = _history(estimator)
                        curves.append(dict(history, best_epoch=best, model=name,
                                           features=kind, fold=fold))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "curves.json"), "w") as f:
        json.dump({"subjects": int(len(y)), "patients": int(y.sum()), "curves": curves}, f)
    write_abide_outputs(out_dir, records, curves)
    return records
