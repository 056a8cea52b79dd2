"""Per-subject feature tables: ADHD-200's ALFF files and their phenotype tables,
:func:`load_adhd200_alff`.

A site's ``<SITE>_alff_ds.mat`` holds one row per subject, the amplitude of low-frequency
fluctuation (ALFF) of the 116 AAL regions (``'alff'``, n × 116), the diagnosis (``'tag'``:
0 control, 1 combined, 2 hyperactive/impulsive, 3 inattentive ADHD) and the ADHD index
(``'score'``), but no subject IDs; ``<SITE>_phenotypic.csv`` is the site's ADHD-200
phenotype table (``ScanDir ID``, ``Gender``, ``Age``, ``DX``, ``ADHD Index``, ...). The rows
are matched by order: the .mat rows are the phenotype rows in CSV order with some rows left
out (in the public NYU and Peking files, those whose ADHD Index is -999), so each .mat row
is matched to a phenotype row of the same (DX, ADHD Index) by the order-preserving matching
(:func:`align_rows`), which must exist and be the only one; otherwise nothing is returned.
"""
from __future__ import annotations

import csv
from collections.abc import Hashable, Sequence
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._abide import (FMRIFormatError, PathLike, PhenotypeError,
                     PhenotypeMismatchError, _list_ids, _reading)
from ._roi_dataset import BadSubjectError, _report

__all__ = ["AAL_REGIONS", "load_adhd200_alff", "align_rows"]

#: the 116 regions of the AAL atlas (Tzourio-Mazoyer et al., NeuroImage 2002), in atlas order,
#: the column order of the ALFF tables
AAL_REGIONS = tuple(
    f"{name}_{side}" for name in (
        "Precentral", "Frontal_Sup", "Frontal_Sup_Orb", "Frontal_Mid", "Frontal_Mid_Orb",
        "Frontal_Inf_Oper", "Frontal_Inf_Tri", "Frontal_Inf_Orb", "Rolandic_Oper",
        "Supp_Motor_Area", "Olfactory", "Frontal_Sup_Medial", "Frontal_Med_Orb", "Rectus",
        "Insula", "Cingulum_Ant", "Cingulum_Mid", "Cingulum_Post", "Hippocampus",
        "ParaHippocampal", "Amygdala", "Calcarine", "Cuneus", "Lingual", "Occipital_Sup",
        "Occipital_Mid", "Occipital_Inf", "Fusiform", "Postcentral", "Parietal_Sup",
        "Parietal_Inf", "SupraMarginal", "Angular", "Precuneus", "Paracentral_Lobule",
        "Caudate", "Putamen", "Pallidum", "Thalamus", "Heschl", "Temporal_Sup",
        "Temporal_Pole_Sup", "Temporal_Mid", "Temporal_Pole_Mid", "Temporal_Inf",
        "Cerebelum_Crus1", "Cerebelum_Crus2", "Cerebelum_3", "Cerebelum_4_5", "Cerebelum_6",
        "Cerebelum_7b", "Cerebelum_8", "Cerebelum_9", "Cerebelum_10")
    for side in ("L", "R")
) + tuple(f"Vermis_{v}" for v in ("1_2", "3", "4_5", "6", "7", "8", "9", "10"))
assert len(AAL_REGIONS) == 116

MAT_SUFFIX, CSV_SUFFIX = "_alff_ds.mat", "_phenotypic.csv"
_ID, _DX, _SCORE = "ScanDir ID", "DX", "ADHD Index"
_DX_CODES = ("0", "1", "2", "3")


def load_adhd200_alff(directory: PathLike, *, sites: str | Sequence[str] | None = None,
                      on_bad: str = "report") -> Bunch:
    """Load ADHD-200 ALFF tables (``<SITE>_alff_ds.mat`` + ``<SITE>_phenotypic.csv``).

    Parameters
    ----------
    directory : str or os.PathLike
        The folder of both files of every site.
    sites : str or sequence of str, optional
        File prefixes to read (``'NYU'``, ``'PU'``); default every ``*_alff_ds.mat``.
    on_bad : {'report', 'raise'}
        Phenotype rows without an ALFF row and subjects with non-finite or constant ALFF:
        ``'report'`` leaves them out, lists them in ``missing`` and ``excluded`` and emits one
        :class:`ExcludedSubjectsWarning`; ``'raise'`` raises :class:`PhenotypeMismatchError`
        (rows without data) or :class:`BadSubjectError` (unusable subjects).

    Returns
    -------
    Bunch with
        data : ndarray (n_subjects, 116), float64, the ALFF per region
        target : ndarray of int, 1 = ADHD (any subtype), 0 = control
        dx : ndarray of int, the ADHD-200 coding (0 control, 1-3 the ADHD subtypes)
        target_names : ndarray ['control', 'ADHD']
        subject_ids : ndarray of str, the ScanDir IDs
        sites : ndarray of str, the file prefix of each subject's site
        sex : ndarray of float, the phenotype's Gender (NaN where blank)
        age : ndarray of float, the phenotype's Age (NaN where blank)
        feature_names : ndarray of str, the AAL region names (``'1'..'M'`` for other widths)
        phenotype : dict, every phenotype column (str) for the kept subjects
        excluded : list of (ScanDir ID, reason), unusable subjects
        missing : list of ScanDir IDs of phenotype rows without an ALFF row
        files : list of the .mat files read, DESCR

    Raises
    ------
    FileNotFoundError
        ``directory`` missing, no ``*_alff_ds.mat`` in it, a site's phenotype CSV missing.
    FMRIFormatError
        A .mat file without ``'alff'`` or ``'tag'``, or of inconsistent shapes.
    PhenotypeError
        A phenotype CSV without the ScanDir ID or DX column, or ragged.
    PhenotypeMismatchError
        The .mat rows cannot be matched to phenotype rows one way only (:func:`align_rows`),
        an unknown site, or (``on_bad='raise'``) phenotype rows without an ALFF row.
    """
    if on_bad not in ("report", "raise"):
        raise ValueError(f"on_bad must be 'report' or 'raise', got {on_bad!r}")
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory")
    found = sorted(p.name[:-len(MAT_SUFFIX)] for p in directory.glob("*" + MAT_SUFFIX))
    if not found:
        raise FileNotFoundError(f"{directory}: no <SITE>{MAT_SUFFIX} files")
    if sites is not None:
        sites = [sites] if isinstance(sites, str) else list(sites)
        unknown = [s for s in sites if s not in found]
        if unknown:
            raise PhenotypeMismatchError(f"site(s) {unknown} have no {MAT_SUFFIX} file in "
                                         f"{directory}; its sites are {found}")
        found = [s for s in found if s in sites]
    parts: list[dict] = []
    missing: list[str] = []
    excluded: list[tuple[str, str]] = []
    for site in found:
        parts.append(_read_site(directory, site, missing, excluded))
    if missing and on_bad == "raise":
        raise PhenotypeMismatchError(f"{len(missing)} phenotype row(s) have no ALFF row: "
                                     f"{_list_ids(missing)}")
    n_usable = sum(len(p["rows"]) for p in parts)
    _report(excluded, missing, MAT_SUFFIX, on_bad, n_usable, unit="row")
    return _bunch(directory, parts, excluded, missing)


def _read_site(directory, site, missing, excluded):
    """One site's kept subjects: ALFF rows, their phenotype rows; adds to missing/excluded."""
    mat, table = directory / (site + MAT_SUFFIX), directory / (site + CSV_SUFFIX)
    if not table.is_file():
        raise FileNotFoundError(f"{mat} has no phenotype table {table.name} beside it")
    alff, tag, score = _read_mat(mat)
    header, rows = _read_table(table)
    # match on (DX, ADHD Index) when both files have the index, else on DX alone
    with_score = score is not None and _SCORE in header
    keys = [(r[header[_DX]], _number(r[header[_SCORE]]) if with_score else 0.0) for r in rows]
    mat_keys = [(str(t), float(s) if with_score else 0.0)
                for t, s in zip(tag, score if with_score else tag)]
    match = align_rows(mat_keys, keys, f"{mat.name} rows", f"{table.name} rows")
    used = set(match.tolist())
    missing += [rows[i][header[_ID]] for i in range(len(rows)) if i not in used]
    keep = []
    for k, i in enumerate(match):
        problem = _problem(alff[k])
        if problem is None:
            keep.append(k)
        else:
            excluded.append((rows[i][header[_ID]], problem))
    keep = np.array(keep, dtype=np.int64)
    return {"site": site, "alff": alff[keep], "tag": tag[keep], "file": mat,
            "rows": [rows[i] for i in match[keep]], "header": header}


def _read_mat(path):
    """(alff n×M float64, tag n ints, score n floats or None) of a .mat file."""
    from scipy.io import loadmat

    try:
        content = loadmat(path)
    except Exception as exc:  # scipy raises several types for a damaged file
        raise FMRIFormatError(f"{path}: not a readable .mat file ({exc})") from None
    for key in ("alff", "tag"):
        if key not in content:
            raise FMRIFormatError(f"{path}: no {key!r} variable (found "
                                  f"{sorted(k for k in content if not k.startswith('__'))})")
    alff = np.asarray(content["alff"], dtype=np.float64)
    tag = np.asarray(content["tag"]).ravel()
    if alff.ndim != 2 or alff.shape[0] != tag.shape[0]:
        raise FMRIFormatError(f"{path}: 'alff' {alff.shape} and 'tag' ({tag.shape[0]} values) "
                              "must have one row per subject")
    if not np.isin(tag, [0, 1, 2, 3]).all():
        raise FMRIFormatError(f"{path}: 'tag' holds {sorted(set(tag.tolist()) - {0, 1, 2, 3})}"
                              "; expected 0 (control) or 1-3 (ADHD subtypes)")
    score = content.get("score")
    if score is not None:
        score = np.asarray(score, dtype=np.float64).ravel()
        if score.shape != tag.shape:
            raise FMRIFormatError(f"{path}: 'score' has {score.shape[0]} values for "
                                  f"{tag.shape[0]} subjects")
    return alff, tag.astype(np.int64), score


def _read_table(path):
    """({column: index}, rows as lists of stripped str) of a phenotype CSV."""
    with open(path, newline="", encoding="utf-8-sig") as fh, _reading(path, PhenotypeError):
        reader = csv.reader(fh)
        header = [h.strip() for h in next(reader, [])]
        index = {name: i for i, name in reversed(list(enumerate(header)))}
        absent = [c for c in (_ID, _DX) if c not in index]
        if absent:
            raise PhenotypeError(f"{path}: missing column(s) {absent}; found {header[:10]}")
        rows = []
        for row in reader:
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise PhenotypeError(f"{path}: line {reader.line_num}: {len(row)} fields where "
                                     f"the header has {len(header)}")
            rows.append([c.strip() for c in row])
    bad = [r[index[_DX]] for r in rows if r[index[_DX]] not in _DX_CODES]
    if bad:
        raise PhenotypeError(f"{path}: DX values {_list_ids(sorted(set(bad)))}; expected "
                             "0 (control) or 1-3 (ADHD subtypes)")
    return index, rows


def align_rows(keys: Sequence[Hashable], table_keys: Sequence[Hashable], what: str = "rows",
               table: str = "table rows") -> np.ndarray:
    """The order-preserving matching of ``keys`` into ``table_keys``, refused unless unique.

    Returns ``match`` (ints, increasing) with ``table_keys[match[k]] == keys[k]``. The
    leftmost matching (each key takes the first equal table key after the previous match) and
    the rightmost one (the same from the end) are computed; every matching lies between them,
    so the matching is unique exactly when they agree.

    Raises
    ------
    PhenotypeMismatchError
        No matching (naming the first key without a table row), or more than one (naming
        a row that could take either of two table rows).
    """
    def leftmost(a, b):
        out, j = [], 0
        for k, key in enumerate(a):
            while j < len(b) and b[j] != key:
                j += 1
            if j == len(b):
                return None, k
            out.append(j)
            j += 1
        return np.array(out, dtype=np.int64), None

    left, failed = leftmost(keys, table_keys)
    if left is None:
        raise PhenotypeMismatchError(
            f"{what}: row {failed} ({keys[failed]!r}) and the rows after it match no "
            f"{table} in order; the two files do not describe the same subjects")
    right, _ = leftmost(keys[::-1], table_keys[::-1])
    right = len(table_keys) - 1 - right[::-1]
    if not np.array_equal(left, right):
        k = int(np.flatnonzero(left != right)[0])
        raise PhenotypeMismatchError(
            f"{what}: row {k} ({keys[k]!r}) could be {table} {left[k]} or {right[k]}: the rows "
            "cannot be matched one way only")
    return left


def _problem(row):
    if not np.isfinite(row).all():
        return "non-finite ALFF values"
    if np.ptp(row) == 0.0:
        return "constant ALFF over the regions"
    return None


def _number(text):
    try:
        return float(text)
    except ValueError:
        return np.nan


def _bunch(directory, parts, excluded, missing):
    def column(name):
        return np.array([r[p["header"][name]] if name in p["header"] else ""
                         for p in parts for r in p["rows"]], dtype=str)

    if not sum(len(p["rows"]) for p in parts):  # pragma: no cover - _report raised
        raise BadSubjectError("no usable subject", excluded)
    data = np.vstack([p["alff"] for p in parts])
    widths = {p["alff"].shape[1] for p in parts}
    if len(widths) > 1:
        raise FMRIFormatError(f"{directory}: the sites' ALFF tables have {sorted(widths)} "
                              "columns; expected the same regions everywhere")
    dx = np.concatenate([p["tag"] for p in parts])
    names = (AAL_REGIONS if data.shape[1] == len(AAL_REGIONS)
             else tuple(str(k) for k in range(1, data.shape[1] + 1)))
    columns = list(dict.fromkeys(c for p in parts for c in p["header"]))
    sites = np.array([p["site"] for p in parts for _ in p["rows"]], dtype=str)
    descr = (f"ADHD-200 ALFF tables from {directory}: {len(dx)} subjects "
             f"({int((dx > 0).sum())} ADHD) of sites {', '.join(p['site'] for p in parts)}, "
             f"{data.shape[1]} regions; {len(excluded)} excluded, {len(missing)} phenotype "
             "row(s) without an ALFF row.")
    return Bunch(
        data=np.ascontiguousarray(data), target=(dx > 0).astype(np.int64), dx=dx,
        target_names=np.array(["control", "ADHD"]), subject_ids=column(_ID), sites=sites,
        sex=np.array([_number(v) for v in column("Gender")]),
        age=np.array([_number(v) for v in column("Age")]),
        feature_names=np.array(names), phenotype={c: column(c) for c in columns},
        excluded=excluded, missing=missing, files=[p["file"] for p in parts], DESCR=descr)

