"""One-hot coding of numeric labels in one pass (``fastelm._targets.one_hot``'s fast path)."""
import numpy as np
from numba import njit

from . import FAST


@njit(**FAST)
def one_hot_into(y, classes, T):
    """T[i, k] = 1 where y[i] = classes[k], classes sorted, T zero on entry; returns the first
    row whose label is not in classes, or -1 (T then incomplete)."""
    m = classes.shape[0]
    for i in range(y.shape[0]):
        if m <= 8:  # a few classes: a scan (k = m when not found)
            k = 0
            while k < m and classes[k] != y[i]:
                k += 1
        else:
            k = np.searchsorted(classes, y[i])  # the first k with classes[k] >= y[i]
        if k == m or classes[k] != y[i]:
            return i
        T[i, k] = 1
    return -1
