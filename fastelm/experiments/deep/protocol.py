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


def run_abide(data_dir, out_dir, kinds=("connectivity",), *, atlas=None, seed=0,
              models=None, reference="BLS-CV", progress=True, sites=None, strategy=None,
              n_splits=10, n_repeats=1, subsample=None, quick=False):
    """The two models on the BLS-fMRI reproduction's folds and features, one thread per fit.

    The subjects (``sites``, ``subsample`` of them drawn by site × diagnosis), strata, folds
    and fold seeds are those of ``fastelm.experiments.bls_fmri`` on the same ``data_dir``
    (its ``subjects_and_folds``; ``FoldFeatures``: tangent features fitted on each training
    fold): the defaults are its full real-data settings, 10 folds of every subject, and
    ``atlas`` None takes the only one present. ``reference`` (BLS-CV by default) runs in the
    same process on the same folds so that the training-time ratio deep / BLS-CV compares
    fits made under the same machine load. Each fit's time is ``fit`` plus, for the GCN, its
    transductive training in ``predict``; CPU seconds are recorded beside wall seconds (the
    machine is shared). Writes ``records.csv``, ``results.md``/``.csv`` (the paper's five
    metrics, mean ± sd over folds), ``timings.md``/``.csv``, ``accuracy_vs_time.png`` (the
    paper's Fig. 4), ``training_curves_<kind>.png`` and ``curves.json`` to ``out_dir``;
    returns the records. ``quick``: ``deep_models(quick=True)`` when ``models`` is
    None, and "quick" in every title.
    """
    import json
    import os

    from sklearn.base import clone

    from ...metrics import classification_report_dict
    from ..bls_fmri.models import default_models, reseed
    from ..bls_fmri.protocol import CPU, TIME, FoldFeatures, _fold_seed, fit_timed
    from ..bls_fmri.subjects import subjects_and_folds
    from ..common import progress as progress_bar
    from ..._threads import thread_limit

    bunch, keep, y, splits = subjects_and_folds(data_dir, n_splits, n_repeats, seed, sites=sites,
                                                atlas=atlas, strategy=strategy,
                                                subsample=subsample)
    site = np.unique(bunch.sites[keep], return_inverse=True)[1].astype(float)
    sex = np.asarray(bunch.phenotype["SEX"][keep], dtype=float)
    phenotypes = np.column_stack([site, sex])
    features = FoldFeatures([bunch.series[i] for i in keep], {"connectivity": bunch.data[keep]})
    models = dict(deep_models(quick) if models is None else models)
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
    title = (f"{'quick: ' if quick else ''}{n_splits}-fold CV on site × diagnosis"
             + (f" × {n_repeats} repeats" if n_repeats > 1 else "")
             + (f", atlas {atlas}" if atlas else "") + ", one thread per fit")
    write_abide_outputs(out_dir, records, curves, title=title, quick=quick, atlas=atlas)
    return records
