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


def hidden_gram(X, T, W, b, code, block_rows=4096):
    """(HᵀH, HᵀT) of H = g(XW + b) in W's dtype, without holding all of H.

    H is made ``block_rows`` rows at a time in the first L columns of one reused buffer
    B = [H | T] (BLAS gemm into the strided columns, then the fused bias + activation kernel on
    them); the block's T is copied into the last m columns and BᵀB, one syrk on L + m columns,
    gives HᵀH, HᵀT (and the unused TᵀT) at once: cheaper than a separate thin gemm HᵀT, and
    no page faults on a fresh N×L array. Memory O(block_rows·(L + m) + (L + m)²).
    """
    from ._kernels.hidden import add_bias_activate

    n, L, m = X.shape[0], W.shape[1], T.shape[1]
    if n == 0:
        return np.zeros((L, L), dtype=W.dtype), np.zeros((L, m), dtype=W.dtype)
    buffer = np.empty((min(block_rows, n), L + m), dtype=W.dtype)
    G = np.empty((L + m, L + m), dtype=W.dtype)
    product = None
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        B = buffer[: stop - start]
        np.matmul(X[start:stop], W, out=B[:, :L])
        add_bias_activate(B, b, code)  # the first len(b) = L columns of each row
        B[:, L:] = T[start:stop]
        if start == 0:
            np.matmul(B.T, B, out=G)  # syrk
        else:
            if product is None:
                product = np.empty_like(G)
            np.matmul(B.T, B, out=product)
            G += product
    return G[:L, :L], G[:L, L:]


def hidden_ridge_fit(X, T, W, b, code, alpha, block_rows=4096):
    """beta of the ridge readout on H = g(XW + b), without holding all of H when N ≥ L.

    Primal case: HᵀH and HᵀT summed over row blocks (``hidden_gram``), then one Cholesky solve.
    Dual case (N < L): the full H, which is then the smaller matrix.
    """
    from ._kernels.hidden import add_bias_activate

    n, L = X.shape[0], W.shape[1]
    if n < L:
        H = add_bias_activate(X @ W, b, code)
        return ridge_fit(H, T, alpha)
    K, HtT = hidden_gram(X, T, W, b, code, block_rows)
    return np.ascontiguousarray(spd_solve(add_to_diagonal(K, alpha), HtT), dtype=W.dtype)
