"""ROI time series in the ABIDE Preprocessed layout: reading, features, synthetic subjects.

The documented import path of the fMRI names; they live in :mod:`fastelm.datasets` (the
readers and the synthetic subjects) and :mod:`fastelm.connectome` (the features).

read_roi_file          one ``.1D`` file -> (T×M float64 array, ROI names)
read_phenotype         phenotype CSV -> Bunch of columns (stdlib ``csv``; no pandas)
connectivity_features  series -> upper triangle (k=1) of arctanh(clipped Pearson r)
find_roi_folder        where the files are: flat, rois_<atlas>/ or nilearn's ABIDE_pcp layout
load_roi_dataset       a directory of subjects + phenotype -> Bunch(data, series, target, ...)
make_synthetic_abide   write synthetic subjects in exactly that layout (numpy only)
load_adhd200_alff      ADHD-200 per-region ALFF tables + phenotype CSVs -> Bunch(data, ...)
make_synthetic_adhd200 write synthetic ALFF tables in that layout
"""

from .connectome import connectivity_features
from .datasets import _abide, _adhd200, _roi_dataset, _synthetic
from .datasets import (AAL_REGIONS, MIN_LENGTH_FRACTION, MIN_TIMEPOINTS, PHENOTYPE_FILENAME,
                       BadSubjectError, align_rows, load_adhd200_alff, make_synthetic_adhd200,
                       CroppedSeriesWarning, ExcludedSubjectsWarning, FMRIFormatError,
                       PhenotypeError, PhenotypeMismatchError, find_roi_folder, load_roi_dataset,
                       make_synthetic_abide, read_phenotype, read_roi_file)

__all__ = ["connectivity_features"]
__all__ += _abide.__all__
__all__ += _roi_dataset.__all__
__all__ += _synthetic.__all__
__all__ += _adhd200.__all__
