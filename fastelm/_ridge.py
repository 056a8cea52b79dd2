"""Ridge readout beta = argmin ||H beta - T||² + alpha ||beta||² (ALGORITHMS.md §1).

primal (N ≥ L):  beta = (HᵀH + alpha I)⁻¹ HᵀT
dual   (N < L):  beta = Hᵀ (HHᵀ + alpha I)⁻¹ T

The Gram product runs on BLAS in the data's dtype (numpy turns ``H.T @ H`` into one syrk); the
small SPD system is solved by Cholesky in float64, never through an explicit inverse. When the
system is numerically singular (alpha → 0 on rank-deficient H) a symmetric eigen-solve with a
pseudo-inverse cut-off takes over, with a ``scipy.linalg.LinAlgWarning``.
"""
import functools
import warnings
from contextlib import contextmanager, nullcontext

import numpy as np
from scipy.linalg import LinAlgWarning, cho_factor, cho_solve, eigh
from scipy.linalg.lapack import dpocon
from threadpoolctl import ThreadpoolController

# reciprocal condition number below which Cholesky is not trusted
RCOND_MIN = 1e3 * np.finfo(np.float64).eps
# up to this order the L×L factorisation runs on one BLAS thread: on a busy machine threaded
# potrf was seen 500× slower than serial at order 200 and 6× slower at order 1000, and serial
# potrf of order 4096 costs ~1.4 s, small beside the Gram product that produced the matrix
SERIAL_ORDER = 4096


@functools.lru_cache(maxsize=1)
def _blas_controller():
    return ThreadpoolController()


def serial_blas_if_small(size, limit=SERIAL_ORDER, numba_threads=False):
    """A context running BLAS/LAPACK on one thread when ``size`` ≤ ``limit`` (default: a matrix
    order ≤ SERIAL_ORDER); with ``numba_threads`` the Numba kernels run on one thread too."""
    if size > limit:
        return nullcontext()
    if not numba_threads:
        return _blas_controller().limit(limits=1, user_api="blas")
    return _serial_blas_and_numba()


@contextmanager
def _serial_blas_and_numba():
    import numba

    threads = numba.get_num_threads()
    with _blas_controller().limit(limits=1, user_api="blas"):
        numba.set_num_threads(1)
        try:
            yield
        finally:
            numba.set_num_threads(threads)


def add_to_diagonal(A, value):
    """A + value·I in place (A square)."""
    A.flat[:: A.shape[0] + 1] += value
    return A


def spd_factor(K):
    """Cholesky factor of the SPD matrix K (float64 copy), or None when K is numerically singular.

    Singular means: potrf fails, or LAPACK's 1-norm reciprocal condition estimate < RCOND_MIN.
    """
    K = np.array(K, dtype=np.float64, order="F")
    norm = np.abs(K).sum(axis=0).max()
    with serial_blas_if_small(K.shape[0]):
        try:
            c = cho_factor(K, lower=False, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError:
            return None
        rcond, info = dpocon(c[0], norm)
    if info != 0 or not rcond >= RCOND_MIN:
        return None
    return c


def spd_solve(K, B):
    """K⁻¹ B for symmetric positive (semi)definite K: Cholesky, or a warned eigen pseudo-solve."""
    c = spd_factor(K)
    B = np.asarray(B, dtype=np.float64)
    if c is not None:
        with serial_blas_if_small(K.shape[0]):
            return cho_solve(c, B, check_finite=False)
    warnings.warn(
        "ridge system is numerically singular (alpha too small for rank-deficient hidden "
        "outputs); solving by eigen-decomposition with a pseudo-inverse cut-off. Increase alpha.",
        LinAlgWarning, stacklevel=3)
    w, V = eigh(np.asarray(K, dtype=np.float64), check_finite=False)
    keep = w > max(w.max(), 0.0) * K.shape[0] * np.finfo(np.float64).eps
    return V[:, keep] @ ((V[:, keep].T @ B) / w[keep, None])


def ridge_fit(H, T, alpha):
    """beta (L×m, H's dtype): primal normal equations when N ≥ L, dual (kernel) form when N < L."""
    n, L = H.shape
    if n >= L:
        K = add_to_diagonal(H.T @ H, alpha)
        beta = spd_solve(K, H.T @ T)
    else:
        G = add_to_diagonal(H @ H.T, alpha)
        beta = H.T @ spd_solve(G, T).astype(H.dtype)
    return np.ascontiguousarray(beta, dtype=H.dtype)
