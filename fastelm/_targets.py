"""Target coding: labels or numbers y → the readout's target matrix T (n×m).

Classifiers code labels one-hot (T[i, k] = 1 where y[i] is the k-th sorted class, else 0: the
least-squares targets of Huang, Zhu & Siew 2006, docs/algorithms.md §1); regressors take y as
T, a 1-D y as one column. ``TargetCoding`` is the picklable function both the in-memory fits and
the Dask workers apply to their rows.
"""
from dataclasses import dataclass

import numpy as np

from ._kernels.targets import one_hot_into


def _compiled(labels):
    """Whether ``one_hot_into`` takes these labels: integers, float32 or float64, in the
    machine's byte order (Numba compiles no other)."""
    dtype = labels.dtype
    return dtype.isnative and (dtype.kind in "iu" or dtype in (np.float32, np.float64))


def one_hot(y, classes, dtype):
    """T (n × n_classes): T[i, k] = 1 where y[i] = classes[k].

    Parameters
    ----------
    y : ndarray of shape (n,)
        Labels.
    classes : ndarray of shape (n_classes,)
        Sorted labels.
    dtype : numpy dtype
        dtype of T.

    Returns
    -------
    T : ndarray of shape (n, n_classes)

    Raises
    ------
    ValueError
        If y holds a label not in ``classes``.
    """
    T = np.zeros((len(y), len(classes)), dtype=dtype)
    if _compiled(y) and _compiled(classes) and one_hot_into(y, classes, T) < 0:
        return T  # numbers, all in classes: coded in one compiled pass
    index = np.searchsorted(classes, y)
    index[index == len(classes)] = 0
    unseen = classes[index] != y
    if unseen.any():
        raise ValueError(f"y contains labels not in classes_ {classes.tolist()}: "
                         f"{np.unique(y[unseen]).tolist()}")
    T[np.arange(len(y)), index] = 1
    return T


def labels_1d(y):
    """Labels (numpy, pandas, a one-column 2-D array) as a 1-D array.

    Parameters
    ----------
    y : array-like

    Returns
    -------
    ndarray of shape (n,)

    Raises
    ------
    ValueError
        For any other shape.
    """
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got an array of shape {y.shape} instead")
    return y


def check_two_classes(classes, owner):
    """The one "at least two classes" check.

    Parameters
    ----------
    classes : ndarray
        Sorted labels.
    owner : str
        The estimator's name, for the message.

    Returns
    -------
    classes

    Raises
    ------
    ValueError
        With fewer than two labels.
    """
    if len(classes) < 2:
        only = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        got = f"only one class: {only!r}" if len(classes) else "no labels"
        raise ValueError(f"{owner} needs samples of at least 2 classes; got {got}")
    return classes


@dataclass(frozen=True, eq=False)
class TargetCoding:
    """y → T for one estimator: one-hot on ``classes``, or the numbers of y as columns.

    Parameters
    ----------
    dtype : numpy dtype
        dtype of T.
    n_outputs : int
        Columns m of T.
    classes : ndarray or None
        Sorted labels of a classifier; None for a regressor.
    """

    dtype: type
    n_outputs: int
    classes: object = None

    def __call__(self, y):
        """T for targets y.

        Parameters
        ----------
        y : array-like (numpy or pandas) of shape (n,) or (n, m)

        Returns
        -------
        T : ndarray of shape (n, n_outputs)
        """
        if self.classes is not None:
            return one_hot(labels_1d(y), self.classes, self.dtype)
        if hasattr(y, "to_numpy"):
            y = y.to_numpy()
        y = np.asarray(y)
        try:
            # an empty chunk (a Dask partition filtered empty) has n_outputs columns too
            T = y.reshape(len(y), -1 if len(y) else self.n_outputs).astype(self.dtype, copy=False)
        except (TypeError, ValueError) as err:
            raise ValueError(f"y could not be converted to float: {err}") from err
        if not np.isfinite(T).all():
            raise ValueError("Input y contains NaN or infinity.")
        return T
