"""MNIST (LeCun, Cortes & Burges): the IDX file reader and :func:`load_mnist`.

The four gzipped IDX files are read from the data directory or its ``mnist/`` subdirectory;
no package ships MNIST, so there is no fallback. Headers are checked before a gzip is
inflated and the payload is read in bounded chunks.
"""

import gzip
import math
import struct
import zlib
from pathlib import Path

import numpy as np
import numpy.typing as npt
from sklearn.utils import Bunch

from ._base import DataFormatError, DataNotFoundError, PathLike, _bunch, _resolve_source, _Source

__all__ = ["load_mnist", "read_idx"]

_MNIST_FILES = {
    "train_images": "train-images-idx3-ubyte",
    "train_labels": "train-labels-idx1-ubyte",
    "test_images": "t10k-images-idx3-ubyte",
    "test_labels": "t10k-labels-idx1-ubyte",
}
_MNIST_SHAPES = {"train_images": (60000, 28, 28), "train_labels": (60000,),
                 "test_images": (10000, 28, 28), "test_labels": (10000,)}

_SOURCES = {
    "mnist": _Source(
        (_MNIST_FILES["train_images"] + ".gz", _MNIST_FILES["train_images"]), "mnist",
        note="no package ships MNIST",
        needed=", ".join(f"{stem}.gz" for stem in _MNIST_FILES.values()),
        origin="the MNIST database of LeCun, Cortes & Burges, its four gzipped IDX files"),
}


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
    kind, train_images = _resolve_source("mnist", _SOURCES["mnist"], data_home)
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
