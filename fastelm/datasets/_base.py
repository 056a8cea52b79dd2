"""What every loader of :mod:`fastelm.datasets` shares: where the data directory is, the
errors, where one data set comes from (a file or a clean package copy), and text tables
checked against their original's rows and fields, encoded and returned in a Bunch.
"""

import os
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np
from sklearn.utils import Bunch

ENV_VAR = "FASTELM_DATA"
PathLike = str | os.PathLike


class DataNotFoundError(FileNotFoundError):
    """No clean source of a data set: neither its file nor a clean package copy.

    Subclass of :class:`FileNotFoundError` (hence of :class:`OSError`).
    """


class DataFormatError(ValueError):
    """A data file does not have the layout of its original distributor."""


# ---------------------------------------------------------------------------------------
# Where each data set comes from
# ---------------------------------------------------------------------------------------


def get_data_home(data_home: PathLike | None = None) -> Path | None:
    """Return the data directory: `data_home`, else ``$FASTELM_DATA``, else None.

    Raises DataNotFoundError when the directory named does not exist."""
    source = "data_home"
    if data_home is None:
        data_home, source = os.environ.get(ENV_VAR) or None, f"${ENV_VAR}"
    if data_home is None:
        return None
    path = Path(data_home).expanduser().resolve()
    if not path.is_dir():  # a typo must not read as "no data" and fall back silently
        raise DataNotFoundError(f"{source} {data_home}: no such directory")
    return path


def _find_file(names, subdir, data_home):
    base = get_data_home(data_home)
    if base is None:
        return None
    for folder in (base, base / subdir):
        for name in names:
            if (folder / name).is_file():
                return folder / name
    return None


class _Source(NamedTuple):
    files: tuple  # accepted file names, in order of preference
    subdir: str  # subdirectory of the data directory also searched
    package: str = ""  # PyPI package holding a clean copy, if any
    locate: Callable | None = None  # returns that copy's location, or None if not installed
    note: str = ""  # why there is no fallback, or how to get it
    needed: str = ""  # what to provide, when more than one of `files`
    origin: str = ""  # where the original file(s) come from


def _needed(source):
    return source.needed or " or ".join(source.files)


def _locate(source, data_home):
    """Return ``(kind, location)``, kind being 'file', 'package' or 'missing'."""
    path = _find_file(source.files, source.subdir, data_home)
    if path is not None:
        return "file", path
    if source.locate is not None:
        location = source.locate()
        if location is not None:
            return "package", location
    return "missing", None


def _not_found(name, source, data_home):
    base = get_data_home(data_home)
    if not source.files:
        return DataNotFoundError(f"{name}: read from a package only ({source.origin}); "
                                 f"{source.note}.")
    if base is None:
        msg = (f"{name}: {_needed(source)} not found: no data directory given; place the "
               f"original file(s) in a folder (or its {source.subdir}/) and pass it as "
               f"data_home= or set ${ENV_VAR}.")
    else:
        msg = (f"{name}: {_needed(source)} not found in {base} or {base / source.subdir}; "
               f"place the original file(s) there, or point data_home= / ${ENV_VAR} at "
               "their folder.")
    if source.origin:
        msg += f" Original: {source.origin}."
    if source.note:
        msg += (f" No package fallback: {source.note}." if source.locate is None
                else f" Or {source.note}.")
    return DataNotFoundError(msg)


def _resolve_source(name, source, data_home):
    """``(kind, location)`` of data set ``name`` read from ``source``, or DataNotFoundError."""
    kind, location = _locate(source, data_home)
    if kind == "missing":
        raise _not_found(name, source, data_home)
    return kind, location


# ---------------------------------------------------------------------------------------
# Parsing and encoding
# ---------------------------------------------------------------------------------------


def _read_rows(path, shape, origin, sep=None):
    """Split a text table into a 2-D str array, checking its rows and fields against
    ``shape`` = (rows, fields) of the original file; a refusal names the ``origin``."""
    n_rows, n_columns = shape
    rows = []
    with open(path, encoding="ascii", errors="strict") as f:
        try:
            lines = f.read().splitlines()
        except UnicodeDecodeError as exc:
            raise DataFormatError(f"{path}: not an ASCII text table") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        tokens = [t.strip() for t in line.split(sep)] if sep else line.split()
        if len(tokens) != n_columns:
            raise DataFormatError(
                f"{path}, line {lineno}: expected {n_columns} fields, found {len(tokens)}; "
                f"the original is {origin}"
            )
        rows.append(tokens)
    if not rows:
        raise DataFormatError(f"{path}: no data rows")
    if len(rows) != n_rows:
        raise DataFormatError(
            f"{path}: expected {n_rows} rows of {n_columns} fields, found {len(rows)}; the "
            f"file is truncated, duplicated or damaged: replace it with the original, "
            f"{origin}"
        )
    return np.array(rows, dtype=str)


def _to_float(tokens, what):
    try:
        return tokens.astype(np.float64)
    except ValueError as exc:
        raise DataFormatError(f"{what}: non-numeric value ({exc})") from exc


def _codes(tokens, classes, what):
    """Map class tokens to their index in `classes`."""
    lookup = {c: i for i, c in enumerate(classes)}
    unknown = sorted(set(tokens.tolist()) - set(lookup))
    if unknown:
        raise DataFormatError(f"{what}: unexpected class labels {unknown}, expected {classes}")
    return np.array([lookup[t] for t in tokens], dtype=np.int64)


def _encode(table, attributes, categorical, what):
    """Encode columns of str tokens.

    `attributes` is a list of ``(name, categories)``; `categories` is None for a numeric
    column, else a dict ``{token: (label, ordinal code)}`` in documented order.
    'onehot' gives one 0/1 column per category present in `table`, named ``name=label``;
    'ordinal' gives the category's code.
    """
    if categorical not in ("onehot", "ordinal"):
        raise ValueError(f"categorical must be 'onehot' or 'ordinal', got {categorical!r}")
    blocks, names = [], []
    for j, (name, categories) in enumerate(attributes):
        column = table[:, j]
        if categories is None:
            blocks.append(_to_float(column, f"{what}, {name}")[:, None])
            names.append(name)
            continue
        present = set(column.tolist())
        unknown = sorted(present - set(categories))
        if unknown:
            raise DataFormatError(f"{what}, {name}: unexpected values {unknown}")
        if categorical == "ordinal":
            blocks.append(np.array([categories[t][1] for t in column], dtype=np.float64)[:, None])
            names.append(name)
        else:
            kept = [t for t in categories if t in present]
            blocks.append((column[:, None] == np.array(kept)[None, :]).astype(np.float64))
            names.extend(f"{name}={categories[t][0]}" for t in kept)
    return np.hstack(blocks), np.array(names)


def _categories(tokens, labels=None):
    """``{token: (label, code)}`` with codes 0, 1, ... in the given order."""
    labels = tokens if labels is None else labels
    return {t: (label, float(i)) for i, (t, label) in enumerate(zip(tokens, labels))}


def _bunch(data, target, feature_names, target_names, descr, source, return_X_y, **extra):
    if return_X_y:
        if "data_test" in extra:
            return data, target, extra["data_test"], extra["target_test"]
        return data, target
    return Bunch(data=data, target=target, feature_names=np.asarray(feature_names),
                 target_names=np.asarray(target_names), DESCR=descr, source=str(source),
                 **extra)


def _check_choice(value, name, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
