"""The settings of the BLS-fMRI runs, by data and mode (``quick`` or ``full``), and
:func:`settings_for`, which every run (ROI series, ALFF tables, several atlases) reads them
through."""

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
#: real data (``--data``): 10-fold CV on site × diagnosis on connectivity (Fisher-z
#: correlation) and tangent-space features (the tangent reference refitted on each training
#: fold, once per fold, the folds ``n_jobs`` at a time), leave-one-site-out on connectivity
#: features without the DNN (its 18 fits would cost more than the rest together), and a
#: permutation test of the best BLS model (:func:`protocol.bls_permutation_test`).
#: ``kind_skip``: models left out on a feature kind (the DNN on tangent features, for time).
#: quick: 200 subjects drawn stratified by site × diagnosis, 5 folds, the DNN capped at 10
#: epochs. ``dnn_folds``: run the DNN on the first k CV folds only (None: all; the
#: multi-atlas run's too).
REAL_SETTINGS = {
    "full": dict(n_splits=10, n_repeats=1, dnn_max_iter=200,
                 features=("connectivity", "tangent"), kind_skip={"tangent": ("DNN",)},
                 loso_features=("connectivity",), loso_skip=("DNN",),
                 n_permutations=99, subsample=None, n_jobs=2, dnn_folds=None),
    "quick": dict(n_splits=5, n_repeats=1, dnn_max_iter=10,
                  features=("connectivity", "tangent"), kind_skip={"tangent": ("DNN",)},
                  loso_features=("connectivity",), loso_skip=("DNN",), n_permutations=19,
                  subsample=200, n_jobs=2, dnn_folds=None),
}


def settings_for(quick=False, overrides=None, real=False, base=None):
    """The run's settings: ``base`` (default (REAL_)SETTINGS)['quick' or 'full'] updated by
    ``overrides``."""
    if base is None:
        base = REAL_SETTINGS if real else SETTINGS
    s = dict(base["quick" if quick else "full"])
    unknown = set(overrides or {}) - set(s) - {"bls_params"}
    if unknown:
        raise ValueError(f"unknown settings {sorted(unknown)}; known: {sorted(s)}")
    s.update(overrides or {})
    return s


def dnn_skip(cfg, n_splits):
    """The (model, split index) pairs left out by ``cfg['dnn_folds']``: the DNN on the splits
    from the ``dnn_folds``-th on (none when it is None)."""
    k = cfg.get("dnn_folds")
    return [] if k is None else [("DNN", i) for i in range(k, n_splits)]
