"""Training rows as a source of Gram sums: in memory or Dask, behind one interface.

An estimator's fit asks a *row source* for what the ridge readout needs (``fastelm._gram``) and
never learns which implementation answered: ``ArrayRows`` (validated arrays, summed by
``fastelm._gram.gram_sums`` block by block) or ``fastelm.dask.DaskRows`` (the same sums per chunk
on Dask workers, tree-added). ``fastelm.dask`` imports Dask only inside its functions and
imports no estimator, so no estimator module imports Dask through this seam. A row source has
``distributed``, ``sequential`` (learn chunk by chunk), ``n_rows`` (None: unknown before a pass),
``n_features``, ``y_ndim``, ``n_outputs``, and

    labels()                                    sorted labels of y
    gram_sums(feature_map, coding)              GramSums of all rows
    ridge_readout(feature_map, coding, alpha)   (beta, alpha), as ``fastelm._gram.ridge_readout``
    blocks(coding)                              (X, T) arrays, in row order
    count()                                     the number of rows (Dask: a pass if unknown)
    reduce(func, combine, dtype)                combine of func(X_c) over row chunks X_c

``coding`` is a ``fastelm._targets.TargetCoding``; ``feature_map`` e.g. a ``_hidden.HiddenMap``.
``RowSource`` writes the interface down.
"""
from typing import Protocol

import numpy as np

from ._gram import gram_sums, ridge_readout
# the Dask row source and its two helpers, under the names the estimators use: fastelm.dask
# imports Dask only inside its functions, so importing it here imports no Dask
from .dask import DaskRows as dask_rows  # noqa: F401  (rows of Dask collections X, y)
from .dask import feature_probe as dask_feature_probe  # noqa: F401  (feature-name checks)
from .dask import is_dask_input, map_rows  # noqa: F401  (the test for Dask rows; predictions)


class RowSource(Protocol):
    """What an estimator's fit asks of its training rows; ``ArrayRows`` and
    ``fastelm.dask.DaskRows`` both implement it."""

    distributed: bool  # rows live on Dask workers
    sequential: bool  # learn chunk by chunk (OS-ELM on Dask)
    n_rows: int | None  # None: unknown before a pass
    n_features: int
    y_ndim: int
    n_outputs: int

    def labels(self) -> np.ndarray:
        """Sorted labels of y."""

    def gram_sums(self, feature_map, coding):
        """``GramSums`` of A = feature_map(X) and T = coding(y) over all rows."""

    def ridge_readout(self, feature_map, coding, alpha):
        """(beta, alpha) of the ridge readout on all rows, as ``fastelm._gram.ridge_readout``."""

    def blocks(self, coding):
        """Yields (X, T) arrays, in row order."""

    def count(self) -> int:
        """The number of rows."""

    def reduce(self, func, combine, dtype):
        """``combine`` of ``func`` over the row chunks of X (float arrays of ``dtype``)."""


class ArrayRows:
    """In-memory training rows: the row source of validated arrays.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    y : ndarray of shape (n,) or (n, m)
    """

    distributed = False
    sequential = False

    def __init__(self, X, y):
        self.X, self.y = X, y
        self.n_rows, self.n_features = X.shape
        self.y_ndim = y.ndim
        self.n_outputs = 1 if y.ndim == 1 else y.shape[1]

    def labels(self):
        """Sorted labels of y.

        Returns
        -------
        ndarray
        """
        return np.unique(self.y)

    def gram_sums(self, feature_map, coding):
        """``fastelm._gram.gram_sums`` of all rows.

        Parameters
        ----------
        feature_map : feature map, e.g. ``fastelm._hidden.HiddenMap``
        coding : fastelm._targets.TargetCoding

        Returns
        -------
        GramSums
        """
        return gram_sums(self.X, coding(self.y), feature_map)

    def ridge_readout(self, feature_map, coding, alpha):
        """``fastelm._gram.ridge_readout`` of all rows.

        Parameters
        ----------
        feature_map : feature map, e.g. ``fastelm._hidden.HiddenMap``
        coding : fastelm._targets.TargetCoding
        alpha : float or 'gcv'

        Returns
        -------
        beta : ndarray of shape (p, m)
        alpha : float
        """
        return ridge_readout(self.X, coding(self.y), feature_map, alpha)

    def blocks(self, coding):
        """The rows as one block (X, T).

        Parameters
        ----------
        coding : fastelm._targets.TargetCoding

        Yields
        ------
        X, T : ndarray
        """
        yield self.X, coding(self.y)

    def count(self):
        """The number of rows.

        Returns
        -------
        int
        """
        return self.n_rows

    def reduce(self, func, combine, dtype):
        """``func`` of all rows (one chunk: ``combine`` is not needed).

        Parameters
        ----------
        func : callable, (rows×d array) → value
        combine : callable
        dtype : numpy dtype

        Returns
        -------
        func(X)
        """
        return func(np.asarray(self.X, dtype=dtype))
