"""ROI time series in the ABIDE Preprocessed layout: reading, features, synthetic subjects.

The public ABIDE Preprocessed derivatives (Craddock et al. 2013) store one text file per subject
and atlas, ``<FILE_ID>_rois_<atlas>.1D`` (e.g. ``Pitt_0050003_rois_aal.1D``): a ``#`` header line
naming the ROIs (tab separated, ``#2001\\t#2002\\t...`` or ``#2001\\t2002\\t...``), then one row per
time point and one whitespace separated column per ROI. A phenotype CSV
(``Phenotypic_V1_0b_preprocessed1.csv``) has one row per subject with at least ``FILE_ID``,
``DX_GROUP`` (1 = autism, 2 = control) and ``SITE_ID``; subjects without preprocessed data have
``FILE_ID == 'no_filename'``.

The Broad Learning System's fMRI use (docs/algorithms.md §5) flattens each subject's T×M series,
cropped to a common T, into T·M features; :func:`load_roi_dataset` also offers the usual
functional-connectivity alternative, the upper triangle of the Fisher-z Pearson correlation
matrix (M(M-1)/2 features), and keeps every subject's whole series for the connectome
estimators of :mod:`fastelm.connectome` (correlation, partial correlation, tangent space).

Public functions
----------------
read_roi_file          one ``.1D`` file -> (T×M float64 array, ROI names)
read_phenotype         phenotype CSV -> Bunch of columns (stdlib ``csv``; no pandas)
connectivity_features  series -> upper triangle (k=1) of arctanh(clipped Pearson r)
find_roi_folder        where the files are: flat, rois_<atlas>/ or nilearn's ABIDE_pcp layout
load_roi_dataset       a directory of subjects + phenotype -> Bunch(data, series, target, ...)
make_synthetic_abide   write synthetic subjects in exactly that layout (numpy only)
"""

from __future__ import annotations

import csv
import os
import warnings
from collections import Counter
from collections.abc import Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import Bunch

from ._validation import RandomState

PathLike = str | os.PathLike

__all__ = [
    "FMRIFormatError",
    "PhenotypeError",
    "PhenotypeMismatchError",
    "BadSubjectError",
    "ExcludedSubjectsWarning",
    "CroppedSeriesWarning",
    "PHENOTYPE_FILENAME",
    "MIN_TIMEPOINTS",
    "MIN_LENGTH_FRACTION",
    "find_roi_folder",
    "read_roi_file",
    "read_phenotype",
    "connectivity_features",
    "load_roi_dataset",
    "make_synthetic_abide",
]

#: name of the phenotype file of ABIDE Preprocessed (written by :func:`make_synthetic_abide`).
PHENOTYPE_FILENAME = "Phenotypic_V1_0b_preprocessed1.csv"
#: FILE_ID of phenotype rows that have no preprocessed data in ABIDE Preprocessed.
NO_FILENAME = "no_filename"
#: ABIDE DX_GROUP codes.
DX_PATIENT, DX_CONTROL = 1, 2
_REQUIRED_COLUMNS = ("FILE_ID", "DX_GROUP", "SITE_ID")
#: a series shorter than MIN_TIMEPOINTS is excluded (reported), and for flattened-series
#: features one shorter than MIN_LENGTH_FRACTION of the median length too: one short outlier
#: must not crop every subject (connectivity features use each whole series).
MIN_TIMEPOINTS, MIN_LENGTH_FRACTION = 10, 0.5
#: 'timeseries' features warn when the common length is below this fraction of the median
CROP_WARN_FRACTION = 2 / 3
_MAX_LISTED = 10  # ids listed in an error or warning message before "... and k more"


class FMRIFormatError(ValueError):
    """A ROI time-series file is malformed (empty, ragged, non-numeric, header mismatch)."""


class PhenotypeError(ValueError):
    """The phenotype CSV is malformed (missing columns, unknown DX_GROUP, duplicate FILE_ID)."""


class PhenotypeMismatchError(PhenotypeError):
    """Phenotype rows and ROI files do not correspond one to one."""


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
    """'timeseries' features were cropped far below the median series length."""


@contextmanager
def _reading(path, error):
    """Turn a text file's decoding or CSV error into ``error`` naming the file."""
    try:
        yield
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})") from None
    except csv.Error as exc:
        raise error(f"{path}: not a readable CSV file ({exc})") from None


def _list_ids(ids):
    ids = list(ids)
    shown = ", ".join(repr(i) for i in ids[:_MAX_LISTED])
    if len(ids) > _MAX_LISTED:
        shown += f", ... and {len(ids) - _MAX_LISTED} more"
    return shown


# --------------------------------------------------------------------------------------------
# ROI files
# --------------------------------------------------------------------------------------------


def _parse_header(line):
    """'#2001\\t#2002' or '#2001\\t2002' or '# 2001 2002' -> ['2001', '2002']."""
    body = line.strip()[1:]
    tokens = body.split("\t") if "\t" in body else body.split()
    return [t.strip().lstrip("#").strip() for t in tokens]


def read_roi_file(path: PathLike) -> tuple[np.ndarray, list[str]]:
    """Read one ``*_rois_<atlas>.1D`` file.

    Parameters
    ----------
    path : str or os.PathLike
        The file: an optional ``#`` header line naming the ROIs (tab separated, a ``#`` before
        the first or before every name), then rows = time points, columns = ROIs, whitespace
        separated floats. Blank lines and further ``#`` lines are skipped. ``nan``/``inf``
        tokens are read as such (quality checks belong to :func:`load_roi_dataset`).

    Returns
    -------
    series : ndarray of shape (T, M), float64
    roi_names : list of str
        From the header, or ``'1' .. 'M'`` when the file has none.

    Raises
    ------
    FMRIFormatError
        No data rows, rows of different lengths, a non-numeric value, or a header naming a
        different number of ROIs than the data has (the message gives path and line number).
    OSError
        The file cannot be opened.
    """
    path = Path(path)
    names = None
    rows: list[list[str]] = []
    line_numbers: list[int] = []
    with open(path, encoding="utf-8-sig") as fh, _reading(path, FMRIFormatError):
        for lineno, line in enumerate(fh, start=1):
            stripped = line.strip()
            if not stripped:
                continue
            if stripped.startswith("#"):
                if names is None and not rows:
                    parsed = _parse_header(stripped)
                    if any(parsed):
                        if not all(parsed):
                            raise FMRIFormatError(
                                f"{path}: line {lineno}: empty ROI name in header {stripped!r}"
                            )
                        names = parsed
                continue
            rows.append(stripped.split())
            line_numbers.append(lineno)
    if not rows:
        raise FMRIFormatError(f"{path}: no data rows (empty file or header only)")
    n_cols = len(rows[0])
    for tokens, lineno in zip(rows, line_numbers):
        if len(tokens) != n_cols:
            raise FMRIFormatError(
                f"{path}: line {lineno}: ragged rows, {len(tokens)} values where line "
                f"{line_numbers[0]} has {n_cols}"
            )
    try:
        series = np.array(rows, dtype=np.float64)
    except ValueError:
        for tokens, lineno in zip(rows, line_numbers):
            for col, token in enumerate(tokens):
                try:
                    float(token)
                except ValueError:
                    raise FMRIFormatError(
                        f"{path}: line {lineno}, column {col + 1}: non-numeric value {token!r}"
                    ) from None
        raise  # pragma: no cover - numpy refused something float() accepts
    if names is None:
        names = [str(k) for k in range(1, n_cols + 1)]
    elif len(names) != n_cols:
        raise FMRIFormatError(
            f"{path}: header names {len(names)} ROIs but the data rows have {n_cols} columns"
        )
    return series, names


def _write_roi_file(path, series, roi_names):
    """Write ``series`` (T×M) in the ABIDE layout; the header is '#name1\\tname2\\t...'."""
    lines = ["#" + "\t".join(roi_names)]
    fmt = "\t".join(["%.7g"] * series.shape[1])
    lines.extend(fmt % tuple(row) for row in series)
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------------------------
# Phenotype CSV
# --------------------------------------------------------------------------------------------


def _parse_dx(value, file_id, line):
    text = value.strip()
    try:
        number = float(text)
    except ValueError:
        number = None
    if number not in (float(DX_PATIENT), float(DX_CONTROL)):
        raise PhenotypeError(
            f"line {line}: FILE_ID {file_id!r} has DX_GROUP {value!r}; expected "
            f"{DX_PATIENT} (patient) or {DX_CONTROL} (control)"
        )
    return int(number)


def read_phenotype(csv_path: PathLike) -> Bunch:
    """Read an ABIDE phenotype CSV with the standard library ``csv`` module.

    Parameters
    ----------
    csv_path : str or os.PathLike
        Comma separated, a header row with at least ``FILE_ID``, ``DX_GROUP`` and ``SITE_ID``
        (matched after stripping blanks, case-insensitively); any further columns are kept.
        Rows whose FILE_ID is ``'no_filename'`` or empty (subjects without preprocessed data)
        are skipped and counted.

    Returns
    -------
    Bunch with
        file_id : ndarray of str, in file order
        dx_group : ndarray of int, ABIDE coding (1 = patient, 2 = control)
        target : ndarray of int, 1 = patient, 0 = control
        site_id : ndarray of str
        columns : dict, column name -> ndarray of str (every column, kept rows)
        line : ndarray of int, the CSV line of each kept row
        n_no_filename : int, rows skipped for having no file

    Raises
    ------
    PhenotypeError
        Missing required column, a DX_GROUP other than 1/2 on a kept row, duplicate FILE_IDs,
        ragged rows, or no header.
    """
    csv_path = Path(csv_path)
    with (open(csv_path, newline="", encoding="utf-8-sig") as fh,
          _reading(csv_path, PhenotypeError)):
        reader = csv.reader(fh)
        header = next(reader, None)
        if header is None:
            raise PhenotypeError(f"{csv_path}: empty phenotype file")
        header = [h.strip() for h in header]
        index: dict[str, int] = {}
        for i, name in enumerate(header):
            index.setdefault(name.upper(), i)
        missing = [c for c in _REQUIRED_COLUMNS if c not in index]
        if missing:
            raise PhenotypeError(
                f"{csv_path}: missing column(s) {missing}; found {header[:20]}"
            )
        i_file, i_dx, i_site = (index[c] for c in _REQUIRED_COLUMNS)
        kept, lines, dx = [], [], []
        n_no_filename = 0
        for row in reader:
            line = reader.line_num
            if not row or all(not cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                raise PhenotypeError(
                    f"{csv_path}: line {line}: {len(row)} fields where the header has "
                    f"{len(header)}"
                )
            file_id = row[i_file].strip()
            if not file_id or file_id.lower() == NO_FILENAME:
                n_no_filename += 1
                continue
            dx.append(_parse_dx(row[i_dx], file_id, f"{csv_path}:{line}"))
            kept.append([cell.strip() for cell in row])
            lines.append(line)
    file_ids = [row[i_file] for row in kept]
    duplicates = sorted(k for k, n in Counter(file_ids).items() if n > 1)
    if duplicates:
        raise PhenotypeError(f"{csv_path}: duplicate FILE_ID(s) {_list_ids(duplicates)}")
    columns = {
        name: np.array([row[i] for row in kept], dtype=str) for i, name in enumerate(header)
    }
    dx_group = np.array(dx, dtype=np.int64)
    return Bunch(
        file_id=np.array(file_ids, dtype=str),
        dx_group=dx_group,
        target=(dx_group == DX_PATIENT).astype(np.int64),
        site_id=np.array([row[i_site] for row in kept], dtype=str),
        columns=columns,
        line=np.array(lines, dtype=np.int64),
        n_no_filename=n_no_filename,
    )


# --------------------------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------------------------


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)) \
            or not 0.0 < eps < 1.0:
        raise ValueError(f"eps must be a number in (0, 1), got {eps!r}")


def _fisher_z_upper(series, eps):
    """Upper triangle (k=1) of arctanh(clip(Pearson r, -1+eps, 1-eps)) of one T×M series.

    Columns are centred and divided by their largest magnitude before the sums of squares,
    which leaves r unchanged and keeps ROIs near 1e-170 or 1e200 from under- or overflowing.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = _column_scaled(series)
    constant = np.flatnonzero(~np.isfinite(scaled).all(axis=0) | (np.ptp(series, axis=0) == 0))
    if constant.size:
        raise ValueError(f"constant ROI column(s) {constant.tolist()}: correlation undefined")
    norms = np.sqrt(np.einsum("tm,tm->m", scaled, scaled))
    unit = scaled / norms
    r = unit.T @ unit
    iu = np.triu_indices(series.shape[1], k=1)
    return np.arctanh(np.clip(r[iu], -1.0 + eps, 1.0 - eps))


def connectivity_features(series: np.ndarray | Sequence[ArrayLike], *, eps: float = 1e-7
                          ) -> np.ndarray:
    """Functional-connectivity features: Fisher-z of the Pearson correlations between ROIs.

    For a T×M series, r = Pearson correlation matrix of the M columns; the features are
    ``arctanh(clip(r[i, j], -1 + eps, 1 - eps))`` for i < j in ``np.triu_indices(M, k=1)``
    order, M(M-1)/2 values.

    Parameters
    ----------
    series : array of shape (T, M), array of shape (n, T, M), or a list of (T_i, M) arrays
        One subject or several (lengths may differ in a list). T >= 2.
    eps : float, default 1e-7
        Clipping margin that keeps arctanh finite (|z| <= arctanh(1 - eps) ≈ 8.4).

    Returns
    -------
    ndarray of shape (M(M-1)/2,) for one subject, or (n, M(M-1)/2), float64.

    Raises
    ------
    ValueError
        A constant ROI column, non-finite values, fewer than 2 time points or 2 ROIs.
    """
    _check_eps(eps)
    single = isinstance(series, np.ndarray) and series.ndim == 2
    subjects = [series] if single else list(series)
    out = []
    for k, s in enumerate(subjects):
        s = np.asarray(s, dtype=np.float64)
        if s.ndim != 2 or s.shape[0] < 2 or s.shape[1] < 2:
            raise ValueError(
                f"subject {k}: expected a (T, M) series with T >= 2, M >= 2, got shape {s.shape}"
            )
        if not np.all(np.isfinite(s)):
            raise ValueError(f"subject {k}: series contains NaN or inf")
        try:
            out.append(_fisher_z_upper(s, eps))
        except ValueError as exc:
            raise ValueError(f"subject {k}: {exc}") from None
    if single:
        return out[0]
    if not out:
        raise ValueError("no subjects given")
    if len({f.shape[0] for f in out}) != 1:
        raise ValueError("subjects have different numbers of ROIs")
    return np.vstack(out)


# --------------------------------------------------------------------------------------------
# Dataset loader
# --------------------------------------------------------------------------------------------


def _column_scaled(series):
    """Centred columns divided by their largest magnitude: a correlation-preserving copy whose
    sums of squares neither underflow (ROIs near 1e-170) nor overflow (near 1e200)."""
    centred = series - series.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return centred / np.abs(centred).max(axis=0)


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


def _find_phenotype(*directories):
    for directory in directories:
        if (directory / PHENOTYPE_FILENAME).is_file():
            return directory / PHENOTYPE_FILENAME
    for directory in directories:
        candidates = sorted(p for p in directory.glob("*.csv") if p.is_file())
        if len(candidates) == 1:
            return candidates[0]
    raise FileNotFoundError(
        f"{directories[0]}: cannot choose a phenotype CSV (no {PHENOTYPE_FILENAME} and not "
        "exactly one *.csv); pass phenotype_csv="
    )


def _has_rois(folder, suffix):
    return folder.is_dir() and any(p.name.endswith(suffix) for p in folder.iterdir())


def find_roi_folder(directory: PathLike, atlas: str = "aal", strategy: str | None = None,
                    pipeline: str | None = None) -> tuple[Path, list[Path]]:
    """The folder holding ``*_rois_<atlas>.1D`` files under ``directory``, and the phenotype
    CSV's folders to search, for the three layouts :func:`load_roi_dataset` reads.

    * flat: the files in ``directory`` (or in ``directory/rois_<atlas>/``, the layout of the
      Preprocessed Connectomes Project's ``Outputs/<pipeline>/<strategy>/rois_<atlas>``);
    * nilearn's ``fetch_abide_pcp(data_dir=directory, derivatives='rois_<atlas>')``: the
      phenotype in ``directory/ABIDE_pcp/`` and the files in
      ``directory/ABIDE_pcp/<pipeline>/<strategy>/`` (e.g. ``cpac/nofilt_noglobal``);
      ``directory`` may also be that ``ABIDE_pcp`` folder.

    ``strategy`` (e.g. ``'filt_noglobal'``) and ``pipeline`` (e.g. ``'cpac'``) choose among
    several nilearn folders; with more than one candidate and no choice, a ValueError lists
    them. Returns (roi_folder, [folders to search for the phenotype CSV]).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory")
    suffix = f"_rois_{atlas}.1D"
    roots = [directory / "ABIDE_pcp", directory]
    nested = []
    for root in roots:
        if root.is_dir():
            nested += [f for f in sorted(root.glob("*/*")) if _has_rois(f, suffix)]
    if strategy is not None or pipeline is not None:
        nested = [f for f in nested if (strategy is None or f.name == strategy)
                  and (pipeline is None or f.parent.name == pipeline)]
    flat = [f for f in (directory, directory / f"rois_{atlas}") if _has_rois(f, suffix)]
    if strategy is not None or pipeline is not None:
        if not nested:
            raise FileNotFoundError(
                f"{directory}: no *{suffix} files in a <pipeline>/<strategy> folder matching "
                f"pipeline={pipeline!r}, strategy={strategy!r}")
        candidates = nested
    else:
        candidates = flat[:1] or nested
    if not candidates:
        raise FileNotFoundError(f"{directory}: no *{suffix} files (looked in the folder, "
                                f"rois_{atlas}/ and ABIDE_pcp/<pipeline>/<strategy>/)")
    if len(candidates) > 1:
        raise ValueError(
            f"{directory}: *{suffix} files in several folders "
            f"({', '.join(str(c.relative_to(directory)) for c in candidates)}); choose one "
            "with strategy= (--strategy) and pipeline=")
    folder = candidates[0]
    return folder, [p for p in (directory, directory / "ABIDE_pcp", folder) if p.is_dir()]


def _minimum_length(lengths):
    """Shortest usable series: MIN_TIMEPOINTS, and MIN_LENGTH_FRACTION of the median length."""
    return max(MIN_TIMEPOINTS, int(np.ceil(MIN_LENGTH_FRACTION * np.median(lengths))))


def load_roi_dataset(
    directory: PathLike,
    phenotype_csv: PathLike | None = None,
    *,
    atlas: str = "aal",
    length: int | None = None,
    features: str = "timeseries",
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

    Series shorter than MIN_TIMEPOINTS are excluded (reported). For ``features='timeseries'``,
    so that one short outlier cannot crop everybody, so are series shorter than
    MIN_LENGTH_FRACTION of the median length, and the others are cropped to a common length
    (``length``, or the shortest kept series, with a :class:`CroppedSeriesWarning` when that
    is below ``CROP_WARN_FRACTION`` (2/3) of the median). Connectivity features use every
    subject's whole series.

    Parameters
    ----------
    directory : str or os.PathLike
        The data folder, in one of the layouts above.
    phenotype_csv : str or os.PathLike, optional
        Default: ``Phenotypic_V1_0b_preprocessed1.csv`` in ``directory``, ``directory/ABIDE_pcp``
        or the ROI folder, else the only ``*.csv`` there.
    atlas : str, default 'aal'
        Atlas suffix of the files (``aal``, ``cc200``, ``ho``, ...).
    length : int, optional
        Common number of time points T (>= 2) of ``'timeseries'`` features; subjects with
        fewer rows are excluded.
    features : {'timeseries', 'connectivity'}
        ``'timeseries'``: the cropped series flattened time-major, T·M features
        (``data.reshape(n, T, M)`` gives the series back). ``'connectivity'``:
        :func:`connectivity_features` of each whole series, M(M-1)/2 features.
    on_bad : {'report', 'raise'}
        What to do with unusable subjects (non-finite values, constant ROI, too short series)
        and phenotype rows without a file: ``'report'`` leaves them out, lists them in
        ``excluded`` (unusable) and ``missing`` (no file) and emits one
        :class:`ExcludedSubjectsWarning`; ``'raise'`` raises :class:`PhenotypeMismatchError`
        for missing files and :class:`BadSubjectError` for the rest. Nothing is dropped
        silently.
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
        phenotype : dict, every phenotype column (str) for the kept subjects
        features, atlas, folder, files, phenotype_csv, n_no_filename, DESCR

    Raises
    ------
    FMRIFormatError
        A malformed file, or files with different ROIs (number or names).
    PhenotypeError
        A malformed phenotype CSV (see :func:`read_phenotype`).
    PhenotypeMismatchError
        ``<FILE_ID>_rois_<atlas>.1D`` files of the chosen sites' folder without a phenotype
        row (all files when ``sites`` is None), phenotype rows without a file
        (``on_bad='raise'``), no phenotype row with a file, or an unknown site.
    BadSubjectError
        ``on_bad='raise'`` and a subject is unusable; or no subject is usable.
    FileNotFoundError
        ``directory`` is missing or holds no ``*_rois_<atlas>.1D`` file.
    """
    if features not in ("timeseries", "connectivity"):
        raise ValueError(f"features must be 'timeseries' or 'connectivity', got {features!r}")
    if on_bad not in ("report", "raise"):
        raise ValueError(f"on_bad must be 'report' or 'raise', got {on_bad!r}")
    _check_eps(eps)
    if length is not None:
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 2:
            raise ValueError(f"length must be an integer >= 2, got {length!r}")
        length = int(length)
    directory = Path(directory)
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
    else:
        orphans = sorted(set(files) - set(pheno.file_id.tolist()))
        if orphans:
            raise PhenotypeMismatchError(
                f"{len(orphans)} file(s) in {folder} have no row in {phenotype_csv}: "
                f"{_list_ids(f + suffix for f in orphans)}"
            )
    rows = np.flatnonzero(keep)
    missing = [str(pheno.file_id[i]) for i in rows if pheno.file_id[i] not in files]
    if len(missing) == len(rows):
        raise PhenotypeMismatchError(
            f"none of the {len(rows)} phenotype rows of {phenotype_csv}"
            + (f" (sites {sites})" if sites is not None else "")
            + f" has a file <FILE_ID>{suffix} in {folder}"
        )
    if missing and on_bad == "raise":
        raise PhenotypeMismatchError(
            f"{len(missing)} phenotype row(s) of {phenotype_csv} have no file in {folder}: "
            f"{_list_ids(m + suffix for m in missing)}"
        )

    excluded = []
    series, index = [], []
    roi_names, names_from = None, None
    for i in rows:
        file_id = pheno.file_id[i]
        if file_id not in files:
            continue
        s, names = read_roi_file(files[file_id])
        if roi_names is None:
            roi_names, names_from = names, files[file_id]
        elif names != roi_names:
            raise FMRIFormatError(
                f"{files[file_id]}: ROIs ({len(names)}: {names[:3]}...) differ from those of "
                f"{names_from} ({len(roi_names)}: {roi_names[:3]}...)"
            )
        problem = _quality_problem(s, roi_names)
        if s.shape[0] < 2:
            problem = f"series too short: {s.shape[0]} time point"
        if problem is not None:
            excluded.append((file_id, problem))
            continue
        series.append(s)
        index.append(i)

    if series:  # one short outlier must not crop everybody
        shortest = (_minimum_length([s.shape[0] for s in series]) if features == "timeseries"
                    else MIN_TIMEPOINTS)
        kept = []
        for s, i in zip(series, index):
            if s.shape[0] < shortest:
                rule = (f"{MIN_TIMEPOINTS} and {MIN_LENGTH_FRACTION:g} × the median length"
                        if features == "timeseries" else f"{MIN_TIMEPOINTS}")
                excluded.append((pheno.file_id[i], f"series too short: {s.shape[0]} < "
                                 f"{shortest} time points (minimum: {rule})"))
            elif length is not None and features == "timeseries" and s.shape[0] < length:
                excluded.append((pheno.file_id[i],
                                 f"series too short: {s.shape[0]} < length={length}"))
            else:
                kept.append((s, i))
        series, index = [s for s, _ in kept], [i for _, i in kept]

    n_rois = 0 if roi_names is None else len(roi_names)
    rows_out, series_ok, index_ok = [], [], []
    common = None
    if series:
        common = length if length is not None else min(s.shape[0] for s in series)
        median = float(np.median([s.shape[0] for s in series]))
        for s, i in zip(series, index):
            if features == "timeseries":
                c = s[:common]
                problem = _quality_problem(c, roi_names)
                if problem is not None:  # constant within the first `common` rows only
                    excluded.append((pheno.file_id[i], f"{problem} in the first {common} rows"))
                    continue
                rows_out.append(c.reshape(-1))
            else:
                z = _fisher_z_upper(s, eps)
                if not np.isfinite(z).all():  # pragma: no cover - scaled columns prevent it
                    excluded.append((pheno.file_id[i], "non-finite connectivity features"))
                    continue
                rows_out.append(z)
            series_ok.append(s)
            index_ok.append(i)
        if features == "timeseries" and length is None and common < CROP_WARN_FRACTION * median:
            warnings.warn(
                f"series cropped to their first {common} time points, "
                f"{common / median:.0%} of the median length {median:g}: pass length= to "
                "exclude shorter subjects instead, or use connectivity features (whole "
                "series)", CroppedSeriesWarning, stacklevel=2)
    series, index = series_ok, index_ok

    if excluded or missing:
        parts = []
        if missing:
            parts.append(f"{len(missing)} phenotype row(s) without a {suffix} file "
                         f"({_list_ids(missing)})")
        if excluded:
            parts.append(f"{len(excluded)} subject(s) excluded: " + "; ".join(
                f"{f}: {r}" for f, r in excluded[:_MAX_LISTED])
                + (f"; ... and {len(excluded) - _MAX_LISTED} more"
                   if len(excluded) > _MAX_LISTED else ""))
        message = "; ".join(parts)
        if excluded and on_bad == "raise":
            raise BadSubjectError(message, excluded)
        warnings.warn(message, ExcludedSubjectsWarning, stacklevel=2)
    if not series:
        raise BadSubjectError("no usable subject", excluded)
    assert common is not None and roi_names is not None  # set by the first usable subject

    if features == "timeseries":
        data = np.vstack(rows_out)
        feature_names = np.array([f"t{t}_{r}" for t in range(common) for r in roi_names])
    else:
        data = np.vstack(rows_out)
        iu, ju = np.triu_indices(n_rois, k=1)
        feature_names = np.array([f"{roi_names[a]}-{roi_names[b]}" for a, b in zip(iu, ju)])
    index = np.array(index, dtype=np.int64)
    dx_group = pheno.dx_group[index]
    crop = (f"series cropped to the first {common} time points" if features == "timeseries"
            else "whole series")
    descr = (
        f"ABIDE-style ROI dataset from {folder} (atlas {atlas!r}, phenotype "
        f"{phenotype_csv.name}): {len(index)} subjects ({int((dx_group == DX_PATIENT).sum())} "
        f"patients), {n_rois} ROIs, {crop}, features={features!r} ({data.shape[1]} "
        f"features); {len(excluded)} excluded, {len(missing)} without a file."
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
        missing=missing,
        phenotype={name: col[index] for name, col in pheno.columns.items()},
        features=features,
        atlas=atlas,
        folder=folder,
        files=[files[f] for f in pheno.file_id[index]],
        phenotype_csv=phenotype_csv,
        n_no_filename=pheno.n_no_filename,
        DESCR=descr,
    )


# --------------------------------------------------------------------------------------------
# Synthetic subjects
# --------------------------------------------------------------------------------------------


def _draw_lengths(lengths, n_subjects, rng):
    if isinstance(lengths, (int, np.integer)) and not isinstance(lengths, bool):
        out = np.full(n_subjects, int(lengths))
    elif isinstance(lengths, tuple):
        if len(lengths) != 2 or lengths[0] > lengths[1]:
            raise ValueError(f"lengths as a tuple must be (min, max), got {lengths!r}")
        out = rng.integers(int(lengths[0]), int(lengths[1]) + 1, size=n_subjects)
    else:
        out = np.asarray(lengths)
        if out.shape != (n_subjects,) or not np.issubdtype(out.dtype, np.integer):
            raise ValueError(
                f"lengths as a list must give {n_subjects} integers, got {lengths!r}"
            )
    if out.min() < 2:
        raise ValueError(f"every length must be >= 2, got min {out.min()}")
    return out.astype(np.int64)


def _disjoint_pairs(n_pairs, n_rois, rng):
    perm = rng.permutation(n_rois)[: 2 * n_pairs]
    pairs = np.sort(perm.reshape(n_pairs, 2), axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _pair_loadings(pairs, n_rois, loading):
    """M×P loadings of one latent source per pair, `loading` on both of its ROIs."""
    out = np.zeros((n_rois, len(pairs)))
    cols = np.arange(len(pairs))
    out[pairs[:, 0], cols] = loading
    out[pairs[:, 1], cols] = loading
    return out


def make_synthetic_abide(
    directory: PathLike,
    n_subjects: int = 60,
    n_rois: int = 116,
    lengths: int | tuple[int, int] | Sequence[int] = (100, 200),
    effect_size: float = 0.6,
    n_sites: int = 3,
    atlas: str = "aal",
    random_state: RandomState = None,
    *,
    n_effect_pairs: int | None = None,
    site_effect: float = 0.5,
    ar: float = 0.5,
    n_networks: int = 7,
) -> Bunch:
    """Write synthetic subjects in the ABIDE Preprocessed layout, with a known group effect.

    Each subject's series is x_t = offset + scale · B s_t, t = 0..T-1, where the latent sources
    s follow independent stationary Gaussian AR(1) processes
    (s_0 ~ N(0, I), s_t = ar·s_{t-1} + sqrt(1 - ar²)·w_t), so Cov(x_t) = scale² B Bᵀ and
    Cov(x_t, x_{t+k}) = ar^k Cov(x_t). The mixing matrix B = [D | L | S | G] has
      D  diagonal unique noise, sd U(0.7, 1.3) per ROI and subject;
      L  ``n_networks`` network sources, ROI i loading 0.6·(1 + 0.2·N(0,1)) on its network
         (the network of each ROI is drawn once and shared by everybody);
      S  the site's connectivity perturbation, shared by both groups: one source per random ROI
         pair of the site (``max(1, n_rois // 10)`` pairs) with loading ``site_effect``;
      G  patients only: one source per "effect pair" (``n_effect_pairs`` disjoint ROI pairs,
         the same for every patient) with loading ``effect_size`` on both ROIs. For two ROIs
         of unit variance otherwise uncorrelated, this raises their correlation from 0 to
         effect_size² / (1 + effect_size²); ``effect_size=0`` gives no group difference.
    Site effects on amplitude: scale = site scale exp(site_effect·N(0,1)) times a subject
    factor exp(0.1·N(0,1)); offset = site offset ``2·site_effect·N(0,1)`` plus a per-ROI
    baseline N(0, 1) shared by all subjects.

    Labels are balanced within each site (sites take subjects in turn, SITE01, SITE02, ...).
    The files are ``<FILE_ID>_rois_<atlas>.1D`` with FILE_ID ``SITEkk_00500nn``, a header
    ``#1\\t2\\t...\\tM`` and 7 significant digits, plus ``Phenotypic_V1_0b_preprocessed1.csv``
    (SUB_ID, FILE_ID, SITE_ID, DX_GROUP (1 = patient, 2 = control), DSM_IV_TR, AGE_AT_SCAN,
    SEX). Deterministic for an integer ``random_state``.

    Parameters
    ----------
    directory : str or os.PathLike
        Created if needed; existing files of the same names are overwritten.
    n_subjects : int, default 60
    n_rois : int, default 116 (AAL)
    lengths : int, (min, max) tuple, or list of n_subjects ints, default (100, 200)
        A tuple is an inclusive range drawn uniformly; any other sequence gives each
        subject's length.
    effect_size : float >= 0, default 0.6
    n_sites : int, default 3
    atlas : str, default 'aal'
    random_state : int, numpy Generator or None
    n_effect_pairs : int, optional
        Number of disjoint ROI pairs carrying the group effect; default ``max(1, n_rois // 10)``.
    site_effect : float >= 0, default 0.5
        Strength of the site effects (0 = no site effect).
    ar : float in [0, 1), default 0.5
        Lag-one autocorrelation of the latent sources.
    n_networks : int, default 7

    Returns
    -------
    Bunch with directory, phenotype_csv, files, file_ids, dx_group, target (1 = patient),
    sites, lengths, roi_names, effect_pairs (n_effect_pairs × 2 ROI indices, i < j), atlas.
    """
    if n_subjects < 2 or n_rois < 2 or n_sites < 1:
        raise ValueError("need n_subjects >= 2, n_rois >= 2 and n_sites >= 1")
    if effect_size < 0 or site_effect < 0:
        raise ValueError("effect_size and site_effect must be >= 0")
    if not 0.0 <= ar < 1.0:
        raise ValueError(f"ar must be in [0, 1), got {ar!r}")
    if n_effect_pairs is None:
        n_effect_pairs = max(1, n_rois // 10)
    if not 1 <= n_effect_pairs <= n_rois // 2:
        raise ValueError(f"n_effect_pairs must be in [1, {n_rois // 2}], got {n_effect_pairs}")
    rng = np.random.default_rng(random_state)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)

    lengths = _draw_lengths(lengths, n_subjects, rng)
    site_names = [f"SITE{k + 1:02d}" for k in range(n_sites)]
    site_of = np.arange(n_subjects) % n_sites
    dx_group = np.empty(n_subjects, dtype=np.int64)
    for k in range(n_sites):  # balanced labels within every site
        members = np.flatnonzero(site_of == k)
        labels = np.where(np.arange(members.size) % 2 == 0, DX_PATIENT, DX_CONTROL)
        dx_group[members] = rng.permutation(labels)

    n_networks = max(1, min(n_networks, n_rois))
    network = rng.integers(n_networks, size=n_rois)
    baseline = rng.standard_normal(n_rois)
    effect_pairs = _disjoint_pairs(n_effect_pairs, n_rois, rng)
    effect_mixing = _pair_loadings(effect_pairs, n_rois, effect_size)
    n_site_pairs = max(1, n_rois // 10)
    site_mixing, site_scale, site_offset = [], [], []
    for _ in range(n_sites):
        pairs = np.sort(
            np.array([rng.choice(n_rois, 2, replace=False) for _ in range(n_site_pairs)]), axis=1
        )
        site_mixing.append(_pair_loadings(pairs, n_rois, site_effect))
        site_scale.append(np.exp(site_effect * rng.standard_normal()))
        site_offset.append(2.0 * site_effect * rng.standard_normal())

    roi_names = [str(k) for k in range(1, n_rois + 1)]
    files, file_ids = [], []
    innovation_sd = np.sqrt(1.0 - ar * ar)
    for n in range(n_subjects):
        k = site_of[n]
        unique = np.diag(rng.uniform(0.7, 1.3, size=n_rois))
        net = np.zeros((n_rois, n_networks))
        net[np.arange(n_rois), network] = 0.6 * (1.0 + 0.2 * rng.standard_normal(n_rois))
        blocks = [unique, net, site_mixing[k]]
        if dx_group[n] == DX_PATIENT:
            blocks.append(effect_mixing)
        mixing = np.hstack(blocks)
        shocks = rng.standard_normal((lengths[n], mixing.shape[1]))
        sources = np.empty_like(shocks)
        sources[0] = shocks[0]
        for t in range(1, lengths[n]):
            sources[t] = ar * sources[t - 1] + innovation_sd * shocks[t]
        scale = site_scale[k] * np.exp(0.1 * rng.standard_normal())
        series = site_offset[k] + baseline + scale * (sources @ mixing.T)
        file_id = f"{site_names[k]}_{50001 + n:07d}"
        path = directory / f"{file_id}_rois_{atlas}.1D"
        _write_roi_file(path, series, roi_names)
        files.append(path)
        file_ids.append(file_id)

    phenotype_csv = directory / PHENOTYPE_FILENAME
    ages = np.round(rng.uniform(7.0, 40.0, size=n_subjects), 2)
    sexes = rng.choice([1, 2], size=n_subjects, p=[0.85, 0.15])
    with open(phenotype_csv, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            ["SUB_ID", "FILE_ID", "SITE_ID", "DX_GROUP", "DSM_IV_TR", "AGE_AT_SCAN", "SEX"]
        )
        for n in range(n_subjects):
            writer.writerow(
                [
                    50001 + n,
                    file_ids[n],
                    site_names[site_of[n]],
                    int(dx_group[n]),
                    1 if dx_group[n] == DX_PATIENT else 0,
                    ages[n],
                    int(sexes[n]),
                ]
            )
    return Bunch(
        directory=directory,
        phenotype_csv=phenotype_csv,
        files=files,
        file_ids=np.array(file_ids),
        dx_group=dx_group,
        target=(dx_group == DX_PATIENT).astype(np.int64),
        sites=np.array([site_names[k] for k in site_of]),
        lengths=lengths,
        roi_names=roi_names,
        effect_pairs=effect_pairs,
        atlas=atlas,
    )
