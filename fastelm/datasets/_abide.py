"""ROI time series in the ABIDE Preprocessed layout: the files, the phenotype CSV, the folders.

The public ABIDE Preprocessed derivatives (Craddock et al. 2013) store one text file per subject
and atlas, ``<FILE_ID>_rois_<atlas>.1D`` (e.g. ``Pitt_0050003_rois_aal.1D``): a ``#`` header line
naming the ROIs (tab separated, ``#2001\\t#2002\\t...`` or ``#2001\\t2002\\t...``), then one row per
time point and one whitespace separated column per ROI. A phenotype CSV
(``Phenotypic_V1_0b_preprocessed1.csv``) has one row per subject with at least ``FILE_ID``,
``DX_GROUP`` (1 = autism, 2 = control) and ``SITE_ID``; subjects without preprocessed data have
``FILE_ID == 'no_filename'``.

read_roi_file          one ``.1D`` file -> (T×M float64 array, ROI names)
read_phenotype         phenotype CSV -> Bunch of columns (stdlib ``csv``; no pandas)
find_roi_folder        where the files are: flat, rois_<atlas>/ or nilearn's ABIDE_pcp layout

:func:`fastelm.datasets.load_roi_dataset` turns such a folder into a feature table.
"""

from __future__ import annotations

import csv
import os
import re
from collections import Counter
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

PathLike = str | os.PathLike

__all__ = ["FMRIFormatError", "PhenotypeError", "PhenotypeMismatchError", "PHENOTYPE_FILENAME",
           "find_roi_folder", "read_roi_file", "read_phenotype"]

#: name of the phenotype file of ABIDE Preprocessed (also written by make_synthetic_abide).
PHENOTYPE_FILENAME = "Phenotypic_V1_0b_preprocessed1.csv"
#: FILE_ID of phenotype rows that have no preprocessed data in ABIDE Preprocessed.
NO_FILENAME = "no_filename"
#: ABIDE DX_GROUP codes.
DX_PATIENT, DX_CONTROL = 1, 2
_REQUIRED_COLUMNS = ("FILE_ID", "DX_GROUP", "SITE_ID")
_MAX_LISTED = 10  # ids listed in an error or warning message before "... and k more"


class FMRIFormatError(ValueError):
    """A ROI time-series file is malformed (empty, ragged, non-numeric, header mismatch)."""


class PhenotypeError(ValueError):
    """The phenotype CSV is malformed (missing columns, unknown DX_GROUP, duplicate FILE_ID)."""


class PhenotypeMismatchError(PhenotypeError):
    """Phenotype rows and ROI files do not correspond one to one."""


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
        tokens are read as such (quality checks belong to
        :func:`fastelm.datasets.load_roi_dataset`).

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
# Folders
# --------------------------------------------------------------------------------------------


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


_ATLAS_FILE = re.compile(r"_rois_(\w+)\.1D$")


def _find_atlas(directory: PathLike, strategy: str | None = None,
                pipeline: str | None = None) -> str:
    """The atlas of the ``*_rois_<atlas>.1D`` files under ``directory``, looked for where
    :func:`find_roi_folder` looks (the folder, ``rois_<atlas>/``, ``<pipeline>/<strategy>/``
    and ``ABIDE_pcp/<pipeline>/<strategy>/``, those two narrowed by ``strategy`` and
    ``pipeline``), when there is one; a FileNotFoundError when there is none, a ValueError
    listing them when there are several."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory")
    nested = [f for root in (directory / "ABIDE_pcp", directory) if root.is_dir()
              for f in root.glob("*/*")
              if (strategy is None or f.name == strategy)
              and (pipeline is None or f.parent.name == pipeline)]
    found = set()
    for folder in [directory, *directory.glob("rois_*"), *nested]:
        if folder.is_dir():
            found |= {m.group(1) for p in folder.iterdir() if (m := _ATLAS_FILE.search(p.name))}
    if not found:
        raise FileNotFoundError(f"{directory}: no *_rois_<atlas>.1D files (looked in the "
                                "folder, rois_<atlas>/ and ABIDE_pcp/<pipeline>/<strategy>/)")
    if len(found) > 1:
        raise ValueError(f"{directory}: files of several atlases ({', '.join(sorted(found))}); "
                         "choose one with atlas= (--atlas)")
    return found.pop()


def find_roi_folder(directory: PathLike, atlas: str = "aal", strategy: str | None = None,
                    pipeline: str | None = None) -> tuple[Path, list[Path]]:
    """The folder holding ``*_rois_<atlas>.1D`` files under ``directory``, and the phenotype
    CSV's folders to search, for the three layouts :func:`fastelm.datasets.load_roi_dataset`
    reads.

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
