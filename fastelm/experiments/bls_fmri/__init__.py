"""Reproduction of Liu & Ji (2021), Broad Learning System classification of fMRI subjects.

    fastelm reproduce bls-fmri [--quick] [--out DIR] [--seed S] [--fmri-data DIR]
        [--atlas NAME] [--strategy NAME] [--sites SITE ...] [--features KIND ...] [--deep [only]]
    python -m fastelm.experiments.bls_fmri ...     (the same options: reproduce.build_parser)

The paper (Liu & Ji, Journal of Zhejiang University (Engineering Science), 2021;
docs/algorithms.md §5) classifies patients against controls (ABIDE I/II: autism, ADHD-200) from
each subject's ROI time series flattened to T·M features, with a BLS of n = 10 windows of
k = 10 feature nodes, q = 2000 enhancement nodes, shrink s = 0.8 and ridge C = 2⁻³⁰ (its
ABIDE-UM settings), against linear SVM, random forest, KNN and a 1000-600-softmax DNN; its
claim is that BLS reaches the accuracy of the deep models with a much shorter training time
(its Fig. 4: accuracy against training time).

Without ``--fmri-data`` the run uses synthetic subjects (``effect`` with a known connectivity
effect, ``null`` without) and the paper's five models, 10 folds × 10 repeats. With
``--fmri-data``
(an ABIDE layout: flat, ``rois_<atlas>/`` or nilearn's ``ABIDE_pcp``) it runs, leakage-safe:

* features: Fisher-z correlations of each whole series (``connectivity``), nilearn's
  ``correlation`` / ``partial correlation``, and ``tangent`` (:mod:`fastelm.connectome`,
  fitted on each training fold only, shared by every model of the fold); the paper's
  flattened series (``timeseries``) on request;
* validation: stratified 10-fold CV on site × diagnosis, leave one site out, per-site
  accuracy, the paper's five metrics, training time per fit on one thread, and a permutation
  test of the best fastelm model (:mod:`.protocol`);
* models (:mod:`.models`): the paper's five plus BLS-CV, ELM-CV (penalty chosen inside each
  training fold) and an ℓ2 logistic regression.

A folder of ADHD-200 ALFF tables (``<SITE>_alff_ds.mat`` + ``<SITE>_phenotypic.csv``) runs
:mod:`.adhd200` instead (5-fold CV × 10, a per-site standardisation fitted on the training
rows, the transfer between the sites); several atlases (``--atlas cc200 ho``) run
:mod:`.multi_atlas` (each atlas and the atlases joined, with the multi-atlas BLS-CV and the
DNN);
:mod:`.tables` lays finished runs out as the paper's Tables 4-6.

Outputs in ``out_dir``: ``results.md``/``.csv`` (mean ± std of the five metrics),
``timings.md``/``.csv``, ``records.csv``, ``accuracy_vs_time.png`` (Fig. 4), ``notes.md``,
``run.json``; on real data also ``leave_site_out.md``/``.csv``/``.png``,
``leave_site_out_records.csv``, ``per_site.md``/``.csv``/``.png`` (a sites × models heat map).
``--deep`` adds the connectome CNN and the population GCN (:mod:`fastelm.experiments.deep`) on
the same subjects and folds (``subjects.subjects_and_folds``, which ``run`` uses too), into
``out_dir/deep``.
"""
from .models import (BLS_PARAMS, DNN_LAYERS, EXTRA_MODELS, FASTELM_MODELS, MODELS,
                     default_models, describe, reseed)
from .outputs import (LITERATURE, TARGETS, plot_accuracy_time, rewrite_outputs,
                      target_checks, write_outputs)
from .protocol import (CPU, KINDS, METRICS, TIME, FoldFeatures, bls_permutation_test,
                       connectome_pipeline, cv_splits,
                       evaluate, fit_timed, limit_threads, permutation_test, run_splits,
                       site_splits)
from .reproduce import (FEATURES, REAL_SETTINGS, SEED_OPTION, SETTINGS, SYNTHETIC, build_parser,
                        detect_atlas, load, main, make_synthetic, run, run_deep, run_from_args,
                        settings_for, subjects_and_folds)

__all__ = ["BLS_PARAMS", "DNN_LAYERS", "EXTRA_MODELS", "FASTELM_MODELS", "MODELS",
           "SEED_OPTION", "default_models", "describe", "reseed", "LITERATURE", "TARGETS",
           "plot_accuracy_time", "rewrite_outputs", "target_checks", "write_outputs", "KINDS",
           "CPU", "bls_permutation_test", "METRICS", "TIME", "FoldFeatures",
           "connectome_pipeline", "cv_splits", "evaluate",
           "fit_timed", "limit_threads", "permutation_test", "run_splits", "site_splits",
           "FEATURES", "REAL_SETTINGS", "SETTINGS", "SYNTHETIC", "detect_atlas", "load",
           "main", "make_synthetic", "run", "settings_for", "build_parser", "run_deep",
           "run_from_args", "subjects_and_folds"]
