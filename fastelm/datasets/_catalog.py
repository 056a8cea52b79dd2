"""Every data set of :mod:`fastelm.datasets` by name: :func:`available_datasets` (where each
would be read from now) and :func:`load_dataset` (load one by name)."""

from typing import Any

from sklearn.utils import Bunch

from ._base import PathLike, _locate, _needed
from ._mnist import _SOURCES as _MNIST_SOURCES
from ._mnist import load_mnist
from ._uci import _SOURCES as _UCI_SOURCES
from ._uci import (load_australian, load_breast_cancer_wisconsin, load_concrete, load_mushroom,
                   load_pima, load_satimage, load_segment, load_vote, load_wdbc)

__all__ = ["available_datasets", "load_dataset"]

_SOURCES = {**_UCI_SOURCES, **_MNIST_SOURCES}
_LOADERS = {
    "australian": load_australian,
    "breast_cancer_wisconsin": load_breast_cancer_wisconsin,
    "vote": load_vote,
    "wdbc": load_wdbc,
    "mushroom": load_mushroom,
    "concrete": load_concrete,
    "pima": load_pima,
    "satimage": load_satimage,
    "segment": load_segment,
    "mnist": load_mnist,
}


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
        kind, location = _locate(_SOURCES[name], data_home)
        if kind == "missing":
            location = f"needs {_needed(_SOURCES[name])}"
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
    return _LOADERS[name](**kwargs)
