"""The subjects of a run on an ABIDE-layout folder and their cross-validation folds: one
definition for every model of the reproduction, the deep comparators' too."""
import warnings

import numpy as np

from ...datasets import CroppedSeriesWarning, ExcludedSubjectsWarning, load_roi_dataset
from ...datasets._abide import _find_atlas
from .protocol import cv_splits


def detect_atlas(directory, strategy=None):
    """The atlas of the ``*_rois_<atlas>.1D`` files under ``directory`` when there is one (what
    ``load_roi_dataset`` takes when given no atlas); an error listing them otherwise."""
    return _find_atlas(directory, strategy)


def load(directory, features, sites=None, atlas=None, strategy=None):
    """(X, y, strata, bunch) of an ABIDE-layout directory; strata = site × diagnosis.

    Subjects left out (unusable files) are in ``bunch.excluded``, phenotype rows without a
    file in ``bunch.missing``; ``bunch.series`` holds the whole series.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=ExcludedSubjectsWarning)
        warnings.simplefilter("ignore", category=CroppedSeriesWarning)
        bunch = load_roi_dataset(directory, features=features, sites=sites, atlas=atlas,
                                 strategy=strategy)
    strata = np.char.add(np.char.add(bunch.sites.astype(str), "|"), bunch.target.astype(str))
    return bunch.data, bunch.target, strata, bunch


def check_two_classes(y, sites, stage):
    """A one-line ValueError naming the stage, the sites and the one diagnosis when the
    subjects ``y`` (of ``sites``) hold a single class: cross-validation needs both."""
    labels = np.unique(y)
    if len(labels) < 2:
        names = ", ".join(map(str, sorted(set(np.asarray(sites).tolist()))))
        raise ValueError(f"{stage}: all {len(y)} subjects of site(s) {names} have diagnosis "
                         f"{labels[0] if len(labels) else 'none'}; the comparison needs "
                         f"both classes (choose --sites with patients and controls)")


def _subsample(strata, n, seed):
    """n indices drawn stratified on ``strata`` (sorted), for --quick on real data."""
    if n is None or n >= len(strata):
        return np.arange(len(strata))
    from sklearn.model_selection import train_test_split
    idx, _ = train_test_split(np.arange(len(strata)), train_size=n, stratify=strata,
                              random_state=seed)
    return np.sort(idx)


def subjects_and_folds(directory, n_splits, n_repeats, seed, *, sites=None, atlas=None,
                       strategy=None, subsample=None):
    """The subjects and cross-validation folds of a run on ``directory``, one definition for
    every model of the reproduction (the deep comparators' ``run_abide`` too).

    ``(bunch, keep, y, splits)``: the connectivity Bunch of ``load``, the indices of the
    subjects kept (``subsample`` of them drawn by site × diagnosis, else all), their labels,
    and ``cv_splits`` stratified on site × diagnosis (on diagnosis for one site).
    """
    _, y, strata, bunch = load(directory, "connectivity", sites, atlas, strategy)
    keep = _subsample(strata, subsample, seed)
    check_two_classes(y[keep], bunch.sites[keep], "selecting the subjects")
    n_sites = len(set(bunch.sites[keep]))
    splits = cv_splits(y[keep], strata[keep] if n_sites > 1 else None, n_splits, n_repeats,
                       seed)
    return bunch, keep, y[keep], splits
