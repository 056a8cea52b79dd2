"""A folder of ABIDE-layout subjects -> a feature table: :func:`load_roi_dataset`.

The Broad Learning System's fMRI use (docs/algorithms.md §5) flattens each subject's T×M series,
cropped to a common T, into T·M features; :func:`load_roi_dataset` also offers the usual
functional-connectivity alternative, the upper triangle of the Fisher-z Pearson correlation
matrix (M(M-1)/2 features, :func:`fastelm.connectome.connectivity_features`), and keeps every
subject's whole series for the connectome estimators of :mod:`fastelm.connectome`
(correlation, partial correlation, tangent space).

The loader runs five steps, each a function below: find the subjects (ROI folder, phenotype
rows, files), read their series, drop the too short ones, crop them and build the features,
report what was left out.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np
from sklearn.utils import Bunch

from ..connectome import _check_eps, _column_scaled, _fisher_z_upper, sym_matrix_to_vec
from ._abide import (_MAX_LISTED, DX_PATIENT, FMRIFormatError, PathLike, PhenotypeMismatchError,
                     _find_atlas, _find_phenotype, _list_ids, find_roi_folder, read_phenotype,
                     read_roi_file)

__all__ = ["BadSubjectError", "ExcludedSubjectsWarning", "CroppedSeriesWarning",
           "MIN_TIMEPOINTS", "MIN_LENGTH_FRACTION", "load_roi_dataset"]

#: a series shorter than MIN_TIMEPOINTS is excluded (reported), and for flattened-series
#: features one shorter than MIN_LENGTH_FRACTION of the median length too: one short outlier
#: must not crop every subject (connectivity features use each whole series).
MIN_TIMEPOINTS, MIN_LENGTH_FRACTION = 10, 0.5


class BadSubjectError(ValueError):
    """A subject is unusable (missing file, constant or non-finite ROI, too short series).

    Raised by :func:`load_roi_dataset` with ``on_bad='raise'``; the attribute ``excluded`` holds
    the (file_id, reason) pairs.
    """

    def __init__(self, message: str, excluded: Iterable[tuple[str, str]] = ()):
        super().__init__(message)
        self.excluded = list(excluded)


class ExcludedSubjectsWarning(UserWarning):
    """Some subjects were left out of a dataset; the Bunch's ``excluded`` says which and why."""


class CroppedSeriesWarning(UserWarning):
    """'timeseries' features cropped series of mixed lengths to the shortest one."""


def load_roi_dataset(
    directory: PathLike,
    phenotype_csv: PathLike | None = None,
    *,
    atlas: str | None = None,
    length: int | None = None,
    features: str = "connectivity",
    on_bad: str = "report",
    sites: str | Sequence[str] | None = None,
    eps: float = 1e-7,
    strategy: str | None = None,
    pipeline: str | None = None,
) -> Bunch:
    """Load the subjects of an ABIDE-Preprocessed-style directory as a feature matrix.

    Subjects are the phenotype rows (in CSV order) with a FILE_ID other than ``'no_filename'``,
    optionally restricted to ``sites``, that have a file ``<FILE_ID>_rois_<atlas>.1D`` in the
    ROI folder (:func:`find_roi_folder`: flat, ``rois_<atlas>/`` or nilearn's
    ``ABIDE_pcp/<pipeline>/<strategy>/``).

    Series shorter than MIN_TIMEPOINTS are excluded (reported). Connectivity features (the
    default, what the reproductions use) take every subject's whole series. For
    ``features='timeseries'``, so that one short outlier cannot crop everybody, so are series
    shorter than MIN_LENGTH_FRACTION of the median length, and the others are cropped to a
    common length (``length``, or the shortest kept series, with a
    :class:`CroppedSeriesWarning` saying to how many time points and how many subjects'
    series it shortened when the lengths differ).

    Parameters
    ----------
    directory : str or os.PathLike
        The data folder, in one of the layouts above.
    phenotype_csv : str or os.PathLike, optional
        Default: ``Phenotypic_V1_0b_preprocessed1.csv`` in ``directory``, ``directory/ABIDE_pcp``
        or the ROI folder, else the only ``*.csv`` there.
    atlas : str, optional
        Atlas suffix of the files (``aal``, ``cc200``, ``ho``, ...). Default: the only atlas
        whose files are in ``directory`` (a ValueError lists them when there are several).
    length : int, optional
        Common number of time points T (>= 2) of ``'timeseries'`` features; subjects with
        fewer rows are excluded.
    features : {'connectivity', 'timeseries'}, default 'connectivity'
        ``'connectivity'``: :func:`connectivity_features` of each whole series, M(M-1)/2
        features. ``'timeseries'`` (the BLS paper's input): the cropped series flattened
        time-major, T·M features (``data.reshape(n, T, M)`` gives the series back).
    on_bad : {'report', 'raise'}
        What to do with unusable subjects (non-finite values, constant ROI, too short series),
        phenotype rows without a file and files without a phenotype row: ``'report'`` leaves
        them out, lists them in ``excluded`` (unusable), ``missing`` (no file) and ``orphans``
        (no row) and emits one :class:`ExcludedSubjectsWarning`; ``'raise'`` raises
        :class:`PhenotypeMismatchError` for missing files or rows and :class:`BadSubjectError`
        for the rest. Nothing is dropped silently.
    sites : str or sequence of str, optional
        Keep only phenotype rows of these SITE_IDs; other sites' files are skipped unread.
    eps : float in (0, 1), default 1e-7
        Clipping margin of the Fisher z (``features='connectivity'``).
    strategy, pipeline : str, optional
        Choose the nilearn folder ``ABIDE_pcp/<pipeline>/<strategy>/`` when there are several.

    Returns
    -------
    Bunch with
        data : ndarray (n_subjects, n_features), float64, finite
        series : list of the subjects' whole (T_i × M) series (for connectome estimators)
        target : ndarray of int, 1 = patient (DX_GROUP 1), 0 = control (DX_GROUP 2)
        dx_group : ndarray of int, the ABIDE coding (1 = patient, 2 = control)
        target_names : ndarray ['control', 'patient'] (indexed by target)
        subject_ids : ndarray of str, the FILE_IDs
        sites : ndarray of str, the SITE_IDs
        lengths : ndarray of int, each subject's number of time points before cropping
        length : int, the common T of 'timeseries' (the shortest kept series otherwise)
        roi_names : list of str (M names)
        feature_names : ndarray of str, 't<t>_<roi>' or '<roi_i>-<roi_j>'
        excluded : list of (file_id, reason), unusable subjects
        missing : list of FILE_IDs of phenotype rows (of the chosen sites) without a file
        orphans : list of FILE_IDs of files without a phenotype row (``on_bad='report'``)
        phenotype : dict, every phenotype column (str) for the kept subjects
        features, atlas, folder, files, phenotype_csv, n_no_filename, DESCR

    Raises
    ------
    FMRIFormatError
        A malformed file, or files with different ROIs (number or names).
    PhenotypeError
        A malformed phenotype CSV (see :func:`read_phenotype`).
    PhenotypeMismatchError
        ``<FILE_ID>_rois_<atlas>.1D`` files without a phenotype row (checked when ``sites``
        is None) or phenotype rows without a file (``on_bad='raise'``), no phenotype row with
        a file, or an unknown site.
    BadSubjectError
        ``on_bad='raise'`` and a subject is unusable; or no subject is usable.
    FileNotFoundError
        ``directory`` is missing or holds no ``*_rois_<atlas>.1D`` file.
    ValueError
        ``atlas`` is None and the files of several atlases are there (the message lists them).
    """
    length = _check_options(features, on_bad, eps, length)
    if atlas is None:
        atlas = _find_atlas(directory, strategy, pipeline)
    found = _find_subjects(Path(directory), phenotype_csv, atlas, sites, on_bad, strategy,
                           pipeline)
    excluded: list[tuple[str, str]] = []
    series, index, roi_names = _read_subjects(found, excluded)
    series, index = _drop_short(series, index, found.pheno.file_id, features, length, excluded)
    rows, series, index, common = _crop(series, index, found.pheno.file_id, roi_names,
                                        features, length, eps, excluded)
    _report(excluded, found.missing, found.suffix, on_bad, n_usable=len(series),
            orphans=found.orphans)
    assert common is not None and roi_names is not None  # set by the first usable subject
    return _dataset_bunch(found, rows, series, index, roi_names, common, excluded, features,
                          atlas)


def _check_options(features, on_bad, eps, length):
    """Check load_roi_dataset's options before reading anything; ``length`` as an int."""
    if features not in ("timeseries", "connectivity"):
        raise ValueError(f"features must be 'timeseries' or 'connectivity', got {features!r}")
    if on_bad not in ("report", "raise"):
        raise ValueError(f"on_bad must be 'report' or 'raise', got {on_bad!r}")
    _check_eps(eps)
    if length is not None:
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 2:
            raise ValueError(f"length must be an integer >= 2, got {length!r}")
        length = int(length)
    return length


class _Subjects(NamedTuple):
    """What :func:`_find_subjects` found: where, the phenotype, which rows have a file."""

    folder: Path
    phenotype_csv: Path
    suffix: str  # _rois_<atlas>.1D
    files: dict  # FILE_ID -> path of its ROI file
    pheno: Bunch  # read_phenotype of phenotype_csv
    rows: np.ndarray  # phenotype rows of the chosen sites
    missing: list  # FILE_IDs of those rows without a file
    orphans: list  # FILE_IDs of files without a phenotype row (left out, on_bad='report')


def _find_subjects(directory, phenotype_csv, atlas, sites, on_bad, strategy, pipeline):
    """Step 1: the ROI folder, its files, the phenotype rows (of ``sites``) and their files."""
    folder, pheno_dirs = find_roi_folder(directory, atlas, strategy, pipeline)
    phenotype_csv = (_find_phenotype(*pheno_dirs) if phenotype_csv is None
                     else Path(phenotype_csv))
    suffix = f"_rois_{atlas}.1D"
    files = {
        p.name[: -len(suffix)]: p
        for p in folder.iterdir()
        if p.name.endswith(suffix) and len(p.name) > len(suffix) and p.is_file()
    }
    pheno = read_phenotype(phenotype_csv)
    keep = np.ones(pheno.file_id.shape[0], dtype=bool)
    if sites is not None:
        sites = [sites] if isinstance(sites, str) else list(sites)
        present = sorted(set(pheno.site_id.tolist()))
        unknown = [s for s in sites if s not in present]
        if unknown:
            raise PhenotypeMismatchError(
                f"site(s) {unknown} not in {phenotype_csv}; its sites are {present}")
        keep = np.isin(pheno.site_id, sites)
    orphans = [] if sites is not None else sorted(set(files) - set(pheno.file_id.tolist()))
    orphan_text = (f"{len(orphans)} file(s) in {folder} have no row in {phenotype_csv}: "
                   f"{_list_ids(f + suffix for f in orphans)}")
    if orphans and on_bad == "raise":
        raise PhenotypeMismatchError(orphan_text)
    rows = np.flatnonzero(keep)
    missing = [str(pheno.file_id[i]) for i in rows if pheno.file_id[i] not in files]
    if len(missing) == len(rows):
        raise PhenotypeMismatchError(
            f"none of the {len(rows)} phenotype rows of {phenotype_csv}"
            + (f" (sites {sites})" if sites is not None else "")
            + f" has a file <FILE_ID>{suffix} in {folder}"
            + (f"; {orphan_text}" if orphans else "")
        )
    if missing and on_bad == "raise":
        raise PhenotypeMismatchError(
            f"{len(missing)} phenotype row(s) of {phenotype_csv} have no file in {folder}: "
            f"{_list_ids(m + suffix for m in missing)}"
        )
    return _Subjects(folder, phenotype_csv, suffix, files, pheno, rows, missing, orphans)


def _read_subjects(found, excluded):
    """Step 2: read every file; the same ROIs everywhere, else FMRIFormatError; unusable
    series (non-finite, constant ROI, < 2 rows) are added to ``excluded``. Returns the
    series, their phenotype rows and the ROI names."""
    series, index = [], []
    roi_names, names_from = None, None
    for i in found.rows:
        file_id = found.pheno.file_id[i]
        if file_id not in found.files:
            continue
        s, names = read_roi_file(found.files[file_id])
        if roi_names is None:
            roi_names, names_from = names, found.files[file_id]
        elif names != roi_names:
            raise FMRIFormatError(
                f"{found.files[file_id]}: ROIs ({len(names)}: {names[:3]}...) differ from "
                f"those of {names_from} ({len(roi_names)}: {roi_names[:3]}...)"
            )
        problem = _quality_problem(s, roi_names)
        if s.shape[0] < 2:
            problem = f"series too short: {s.shape[0]} time point"
        if problem is not None:
            excluded.append((file_id, problem))
            continue
        series.append(s)
        index.append(i)
    return series, index, roi_names


def _drop_short(series, index, file_ids, features, length, excluded):
    """Step 3: leave out (into ``excluded``) the series shorter than MIN_TIMEPOINTS, and for
    'timeseries' shorter than MIN_LENGTH_FRACTION of the median or than ``length``: one short
    outlier must not crop everybody."""
    if not series:
        return series, index
    shortest = (_minimum_length([s.shape[0] for s in series]) if features == "timeseries"
                else MIN_TIMEPOINTS)
    kept = []
    for s, i in zip(series, index):
        if s.shape[0] < shortest:
            rule = (f"{MIN_TIMEPOINTS} and {MIN_LENGTH_FRACTION:g} × the median length"
                    if features == "timeseries" else f"{MIN_TIMEPOINTS}")
            excluded.append((file_ids[i], f"series too short: {s.shape[0]} < "
                             f"{shortest} time points (minimum: {rule})"))
        elif length is not None and features == "timeseries" and s.shape[0] < length:
            excluded.append((file_ids[i], f"series too short: {s.shape[0]} < length={length}"))
        else:
            kept.append((s, i))
    return [s for s, _ in kept], [i for _, i in kept]


def _crop(series, index, file_ids, roi_names, features, length, eps, excluded):
    """Step 4: one feature row per subject, the series cropped to the common length
    (flattened, 'timeseries') or whole (Fisher-z connectivity). Returns the rows, the
    subjects' series and phenotype rows, and the common length (None without subjects)."""
    rows, series_ok, index_ok = [], [], []
    if not series:
        return rows, series_ok, index_ok, None
    common = length if length is not None else min(s.shape[0] for s in series)
    median = float(np.median([s.shape[0] for s in series]))
    for s, i in zip(series, index):
        if features == "timeseries":
            c = s[:common]
            problem = _quality_problem(c, roi_names)
            if problem is not None:  # constant within the first `common` rows only
                excluded.append((file_ids[i], f"{problem} in the first {common} rows"))
                continue
            rows.append(c.reshape(-1))
        else:
            z = _fisher_z_upper(s, eps)
            if not np.isfinite(z).all():  # pragma: no cover - scaled columns prevent it
                excluded.append((file_ids[i], "non-finite connectivity features"))
                continue
            rows.append(z)
        series_ok.append(s)
        index_ok.append(i)
    shortened = sum(s.shape[0] > common for s in series_ok)
    if features == "timeseries" and length is None and shortened:
        warnings.warn(
            f"series of mixed lengths ({common} to {max(s.shape[0] for s in series_ok)} "
            f"time points): 'timeseries' features crop every series to its first {common} "
            f"time points, shortening {shortened} of {len(series_ok)} subjects' series "
            f"({common / median:.0%} of the median length {median:g}); pass length= to "
            "exclude shorter subjects instead, or use features='connectivity' (whole "
            "series)", CroppedSeriesWarning, stacklevel=3)
    return rows, series_ok, index_ok, common


def _report(excluded, missing, suffix, on_bad, n_usable, orphans=(), unit="file"):
    """Step 5: one ExcludedSubjectsWarning (or BadSubjectError with on_bad='raise') naming
    the excluded subjects, the rows without a file and the files without a row;
    BadSubjectError if none is usable."""
    if excluded or missing or orphans:
        parts = []
        if orphans:
            parts.append(f"{len(orphans)} {unit}(s) without a phenotype row left out "
                         f"({_list_ids(orphans)})")
        if missing:
            parts.append(f"{len(missing)} phenotype row(s) without a {suffix} {unit} "
                         f"({_list_ids(missing)})")
        if excluded:
            parts.append(f"{len(excluded)} subject(s) excluded: " + "; ".join(
                f"{f}: {r}" for f, r in excluded[:_MAX_LISTED])
                + (f"; ... and {len(excluded) - _MAX_LISTED} more"
                   if len(excluded) > _MAX_LISTED else ""))
        message = "; ".join(parts)
        if excluded and on_bad == "raise":
            raise BadSubjectError(message, excluded)
        warnings.warn(message, ExcludedSubjectsWarning, stacklevel=3)
    if not n_usable:
        raise BadSubjectError("no usable subject", excluded)


def _dataset_bunch(found, rows, series, index, roi_names, common, excluded, features, atlas):
    """The Bunch load_roi_dataset returns (its docstring lists the fields)."""
    n_rois = len(roi_names)
    data = np.vstack(rows)
    if features == "timeseries":
        feature_names = np.array([f"t{t}_{r}" for t in range(common) for r in roi_names])
    else:
        first, second = sym_matrix_to_vec(np.indices((n_rois, n_rois)))
        feature_names = np.array([f"{roi_names[a]}-{roi_names[b]}"
                                  for a, b in zip(first, second)])
    pheno = found.pheno
    index = np.array(index, dtype=np.int64)
    dx_group = pheno.dx_group[index]
    crop = (f"series cropped to the first {common} time points" if features == "timeseries"
            else "whole series")
    descr = (
        f"ABIDE-style ROI dataset from {found.folder} (atlas {atlas!r}, phenotype "
        f"{found.phenotype_csv.name}): {len(index)} subjects "
        f"({int((dx_group == DX_PATIENT).sum())} patients), {n_rois} ROIs, {crop}, "
        f"features={features!r} ({data.shape[1]} features); {len(excluded)} excluded, "
        f"{len(found.missing)} without a file."
    )
    return Bunch(
        data=np.ascontiguousarray(data, dtype=np.float64),
        series=series,
        target=(dx_group == DX_PATIENT).astype(np.int64),
        dx_group=dx_group,
        target_names=np.array(["control", "patient"]),
        subject_ids=pheno.file_id[index],
        sites=pheno.site_id[index],
        lengths=np.array([s.shape[0] for s in series], dtype=np.int64),
        length=int(common),
        roi_names=list(roi_names),
        feature_names=feature_names,
        excluded=excluded,
        missing=found.missing,
        orphans=found.orphans,
        phenotype={name: col[index] for name, col in pheno.columns.items()},
        features=features,
        atlas=atlas,
        folder=found.folder,
        files=[found.files[f] for f in pheno.file_id[index]],
        phenotype_csv=found.phenotype_csv,
        n_no_filename=pheno.n_no_filename,
        DESCR=descr,
    )


def _quality_problem(series, roi_names):
    """Reason string if a series has non-finite values or (numerically) constant ROIs."""
    finite = np.isfinite(series)
    if not finite.all():
        cols = np.flatnonzero(~finite.all(axis=0))
        return f"non-finite values (NaN/inf) in ROI(s) {_list_ids(roi_names[c] for c in cols)}"
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = _column_scaled(series)
        flat = ~np.isfinite(scaled).all(axis=0) | (np.ptp(series, axis=0) == 0.0)
    if flat.any():
        return f"constant ROI(s) {_list_ids(roi_names[c] for c in np.flatnonzero(flat))}"
    return None


def _minimum_length(lengths):
    """Shortest usable series: MIN_TIMEPOINTS, and MIN_LENGTH_FRACTION of the median length."""
    return max(MIN_TIMEPOINTS, int(np.ceil(MIN_LENGTH_FRACTION * np.median(lengths))))
