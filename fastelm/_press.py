"""Leave-one-out error of least squares on every prefix of a column ranking, from one QR
(docs/algorithms.md §9).

For the least-squares fit of T on the first k columns of A, the hat matrix is Q_k Q_kᵀ
(A = QR, Q_k its first k columns), so row i's leverage and residual are

    h_ii(k) = Σ_{j≤k} Q_ij²,      e_i(k) = t_i − Σ_{j≤k} Q_ij (QᵀT)_j,

and the leave-one-out residual of row i is e_i(k) / (1 − h_ii(k)) exactly (Allen 1974, the
PRESS statistic): the fit without row i is never made. One Householder QR (O(nK²)) and a rank-1
update of the residuals per prefix (O(nm), ``fastelm._kernels.press``) give PRESS(k) for
k = 1..K. The QR runs on one BLAS thread up to order ``SERIAL_ORDER`` (``fastelm._ridge``):
on a loaded 2-core machine threaded geqrf of 1797×1000 took 33 s, serial 1.4 s.
"""
import numpy as np

from ._kernels.press import prefix_press_rows
from ._ridge import serial_blas_if_small

# 1 − h_ii at or below this: row i alone determines the fit (its leave-one-out error is unbounded)
LEVERAGE_ONE = 1e-10


def prefix_press(A, T):
    """PRESS(k) = Σ_i ‖e_i(k) / (1 − h_ii(k))‖² of least squares on A[:, :k], k = 1..K.

    Parameters
    ----------
    A : ndarray of shape (n, K)
        Columns in rank order, of full column rank (``fastelm._mrsr.mrsr`` ranks no column
        dependent on those before it).
    T : ndarray of shape (n, m)

    Returns
    -------
    press : ndarray of shape (K,), float64
        press[k − 1] for the first k columns; inf where some row has leverage 1 (k ≥ n, or a
        row that alone fixes a column's weight).
    """
    A = np.asarray(A, dtype=np.float64)
    T = np.ascontiguousarray(T, dtype=np.float64)
    with serial_blas_if_small(A.shape[1]):
        Q = np.ascontiguousarray(np.linalg.qr(A, mode="reduced")[0])
    press = np.empty(A.shape[1])
    prefix_press_rows(Q, Q.T @ T, T, LEVERAGE_ONE, press)
    return press
