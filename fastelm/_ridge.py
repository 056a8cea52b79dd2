"""Ridge readout beta = argmin ||H beta - T||² + alpha ||beta||² (docs/algorithms.md §1).

primal (N ≥ L):  beta = (HᵀH + alpha I)⁻¹ HᵀT
dual   (N < L):  beta = Hᵀ (HHᵀ + alpha I)⁻¹ T

The Gram product runs on BLAS in the data's dtype (numpy turns ``H.T @ H`` into one syrk); the
small SPD system is solved by Cholesky in float64, never through an explicit inverse. When the
system is numerically singular (alpha → 0 on rank-deficient H) a symmetric eigen-solve with a
pseudo-inverse cut-off takes over, with a ``scipy.linalg.LinAlgWarning``.
"""
import warnings
from contextlib import nullcontext

import numpy as np
from scipy.linalg import LinAlgWarning, cho_factor, cho_solve, eigh
from scipy.linalg.lapack import dpocon

from ._threads import thread_limit

# reciprocal condition number below which Cholesky is not trusted
RCOND_MIN = 1e3 * np.finfo(np.float64).eps
# up to this order the L×L factorisation runs on one BLAS thread: on a busy machine threaded
# potrf was seen 500× slower than serial at order 200 and 6× slower at order 1000, and serial
# potrf of order 4096 costs ~1.4 s, small beside the Gram product that produced the matrix
SERIAL_ORDER = 4096


def serial_blas_if_small(size, limit=SERIAL_ORDER, numba_threads=False):
    """A context running BLAS/LAPACK on one thread when ``size`` ≤ ``limit``.

    Parameters
    ----------
    size : float
        A matrix order (or, with another ``limit``, a flop count).
    limit : float, default=SERIAL_ORDER
    numba_threads : bool, default=False
        Run the Numba kernels on one thread too.

    Returns
    -------
    context manager
    """
    if size > limit:
        return nullcontext()
    return thread_limit(1, user_api="blas", numba_threads=numba_threads)


def add_to_diagonal(A, value):
    """A + value·I in place.

    Parameters
    ----------
    A : ndarray of shape (n, n)
    value : float

    Returns
    -------
    A
    """
    A.flat[:: A.shape[0] + 1] += value
    return A


def symmetric(K):
    """The full symmetric matrix of K's upper triangle.

    Parameters
    ----------
    K : ndarray of shape (n, n)

    Returns
    -------
    ndarray of shape (n, n)
    """
    upper = np.triu(K)
    return upper + np.triu(upper, 1).T


def spd_factor(K, rcond_min=RCOND_MIN):
    """Cholesky factor of the SPD matrix K (upper triangle read; float64 copy), or None when K
    is numerically singular: potrf fails, or LAPACK's 1-norm reciprocal condition estimate is
    below ``rcond_min``.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    rcond_min : float, default=RCOND_MIN
        0 trusts every factor that exists.

    Returns
    -------
    (c, lower) as ``scipy.linalg.cho_factor``, or None
    """
    K = np.array(K, dtype=np.float64, order="F")
    norm = np.abs(symmetric(K)).sum(axis=0).max() if rcond_min > 0 else None
    with serial_blas_if_small(K.shape[0]):
        try:
            c = cho_factor(K, lower=False, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        if norm is None:
            return c
        rcond, info = dpocon(c[0], norm)
    if info != 0 or not rcond >= rcond_min:
        return None
    return c


def spd_solve(K, B, rcond_min=RCOND_MIN, fallback=True):
    """K⁻¹ B for symmetric positive (semi)definite K, reading K's upper triangle.

    Cholesky when ``spd_factor`` trusts it; otherwise a warned eigen pseudo-solve (eigenvalues
    below n·eps·max cut off), or with ``fallback=False`` a ``numpy.linalg.LinAlgError``.
    ``rcond_min=0`` trusts any Cholesky factor that exists, like MATLAB's backslash (the BLS
    reference code's solve).

    Parameters
    ----------
    K : ndarray of shape (n, n)
    B : ndarray of shape (n, m)
    rcond_min : float, default=RCOND_MIN
    fallback : bool, default=True

    Returns
    -------
    ndarray of shape (n, m), float64
    """
    c = spd_factor(K, rcond_min)
    B = np.asarray(B, dtype=np.float64)
    if c is not None:
        with serial_blas_if_small(K.shape[0]):
            return cho_solve(c, B, check_finite=False)
    if not fallback:
        raise np.linalg.LinAlgError("the SPD system is numerically singular (Cholesky failed)")
    warnings.warn(
        "ridge system is numerically singular (alpha too small for rank-deficient hidden "
        "outputs); solving by eigen-decomposition with a pseudo-inverse cut-off. Increase alpha.",
        LinAlgWarning, stacklevel=3)
    w, V = eigh(symmetric(np.asarray(K, dtype=np.float64)), check_finite=False)
    keep = w > max(w.max(), 0.0) * K.shape[0] * np.finfo(np.float64).eps
    return V[:, keep] @ ((V[:, keep].T @ B) / w[keep, None])


def ridge_fit(H, T, alpha):
    """Ridge readout: primal normal equations when N ≥ L, dual (kernel) form when N < L.

    Parameters
    ----------
    H : ndarray of shape (N, L)
    T : ndarray of shape (N, m)
    alpha : float

    Returns
    -------
    beta : ndarray of shape (L, m), H's dtype
    """
    n, L = H.shape
    if n >= L:
        K = add_to_diagonal(H.T @ H, alpha)
        beta = spd_solve(K, H.T @ T)
    else:
        G = add_to_diagonal(H @ H.T, alpha)
        beta = H.T @ spd_solve(G, T).astype(H.dtype)
    return np.ascontiguousarray(beta, dtype=H.dtype)
