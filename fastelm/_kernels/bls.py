"""Broad Learning System kernels (Chen & Liu 2018; docs/algorithms.md §5): the loops of one BLS fit.

All products (H1 We, AᵀA, AᵀH1, H1 W_Dᵀ, H2 Wh, IᵀI) stay on BLAS in the caller; these kernels
are the elementwise and small-matrix loops between them:

* ``admm_lasso``: the sparse autoencoder's 50 ADMM steps (rho = 1), one column of W_D per
  parallel iteration (the columns are independent problems, so the result is thread-count free);
* ``zscore_rows``: the reference code's ``zscore(x')'`` (each sample standardised, ddof = 1);
* ``minmax_rows``: the reference code's ``mapminmax`` of A = H1 We, each row of each window;
* ``affine_columns``: a column scaling y = (x − offset)·gain + lo fitted once (the feature
  windows' min-max to [0, 1], or a column min-max of A);
* ``tansig_shrink``: the enhancement nodes E = tansig(l·(T + bias)) in place, with the fast tanh
  of ``fastelm._kernels.hidden``;
* ``add_upper``: a float32 Gram scratch's upper triangle added into the float64 Gram K.

Min-max follows MATLAB's ``mapminmax``: y = (x − xmin)·(hi − lo)/(xmax − xmin) + lo, and a
constant row or column (range 0, or gain > 1e14) passes through unchanged (gain 1, offset lo).
"""
import numpy as np
from numba import njit, prange

from . import CACHE
from . import FAST as _FAST
from .hidden import tanh


MAX_GAIN = 1e14  # mapminmax treats a larger gain as a constant row
# zscore_rows rescales a row whose largest magnitude is outside this range (squares overflow or
# underflow)
ZSCORE_SAFE_MIN, ZSCORE_SAFE_MAX = 1e-150, 1e150

ADMM_BLOCK = 128  # columns of W per parallel iteration: o, u, c of 10 × 128 stay in L1 cache


@njit(parallel=True, cache=CACHE)
def admm_lasso(L1, L2, lam, n_iter):
    """ADMM for min_W ||A W − B||² + lam ||W||₁ (rho = 1), column by column of W (m×p).

    L1 = (AᵀA + I)⁻¹ (m×m) and L2 = L1 AᵀB (m×p) are precomputed by the caller. From
    o = u = 0, each step is  c = L2 + L1 (o − u);  o = shrink(c + u, lam);  u += c − o,
    and the result is o (the shrunk, sparse iterate), as in the reference ``sparse_bls``.

    The columns are independent problems; a parallel iteration takes ADMM_BLOCK of them and
    runs the steps with the column index innermost, so each line of c = L2 + L1 (o − u) is a
    vectorised axpy over the block (m is ~10, too small to vectorise over). Each column's
    sums are still added in the order s = 0 … m−1, so the result is the one of a column-by-
    column loop, bit for bit, at any thread count. On 19901 columns × 10 windows (ABIDE CC200
    connectomes) this took the ADMM from 4.5 s to 0.1 s of one core.
    """
    m, p = L2.shape
    out = np.empty((m, p), dtype=np.float64)
    n_blocks = (p + ADMM_BLOCK - 1) // ADMM_BLOCK
    for blk in prange(n_blocks):
        j0 = blk * ADMM_BLOCK
        w = min(ADMM_BLOCK, p - j0)
        o = np.zeros((m, w))
        u = np.zeros((m, w))
        d = np.zeros((m, w))  # o − u
        c = np.empty((m, w))
        for _ in range(n_iter):
            for r in range(m):
                for b in range(w):
                    c[r, b] = L2[r, j0 + b]
                for s in range(m):
                    coef = L1[r, s]
                    for b in range(w):
                        c[r, b] += coef * d[s, b]
            for r in range(m):
                for b in range(w):
                    x = c[r, b] + u[r, b]
                    o[r, b] = max(x - lam, 0.0) - max(-x - lam, 0.0)
                    u[r, b] += c[r, b] - o[r, b]
                    d[r, b] = o[r, b] - u[r, b]
        for r in range(m):
            for b in range(w):
                out[r, j0 + b] = o[r, b]
    return out


@njit(parallel=True, cache=CACHE)
def zscore_rows(X):
    """(x − mean(x)) / std(x, ddof=1) for each row x of X, as a new array of X's dtype (the
    row statistics in float64).

    Rows with zero deviation (or a single column) are only centred, as MATLAB's ``zscore`` does.
    A row whose largest magnitude m is outside [ZSCORE_SAFE_MIN, ZSCORE_SAFE_MAX] is first
    divided by m (the z-score does not change) so that its sum of squares neither overflows
    (values ≥ 1e154 gave NaN) nor underflows; other rows are computed as they always were.
    """
    n, d = X.shape
    out = np.empty((n, d), dtype=X.dtype)
    for i in prange(n):
        m = 0.0
        for j in range(d):
            m = max(m, abs(X[i, j]))
        scale = m if (m > ZSCORE_SAFE_MAX or m < ZSCORE_SAFE_MIN) and m > 0.0 else 1.0
        mean = 0.0
        for j in range(d):
            mean += X[i, j] / scale
        mean /= d
        ss = 0.0
        for j in range(d):
            t = X[i, j] / scale - mean
            ss += t * t
        sd = np.sqrt(ss / (d - 1)) if d > 1 else 0.0
        if sd == 0.0:
            sd = 1.0 / scale  # only centred, in the caller's units
        for j in range(d):
            out[i, j] = (X[i, j] / scale - mean) / sd
    return out


@njit(parallel=True, cache=CACHE)
def minmax_rows(A, group, lo, hi):
    """Each row of each consecutive block of ``group`` columns mapped to [lo, hi], in place."""
    n, p = A.shape
    for i in prange(n):
        for g0 in range(0, p, group):
            g1 = min(g0 + group, p)
            xmin = A[i, g0]
            xmax = A[i, g0]
            for j in range(g0 + 1, g1):
                xmin = min(xmin, A[i, j])
                xmax = max(xmax, A[i, j])
            gain = (hi - lo) / (xmax - xmin) if xmax > xmin else np.inf
            offset = xmin
            if not gain <= MAX_GAIN:
                gain = 1.0
                offset = lo
            for j in range(g0, g1):
                A[i, j] = (A[i, j] - offset) * gain + lo
    return A


@njit(parallel=True, **_FAST)
def affine_columns(A, offset, gain, lo):
    """A[i, j] <- (A[i, j] − offset[j])·gain[j] + lo in place, rows in parallel."""
    n, p = A.shape
    for i in prange(n):
        for j in range(p):
            A[i, j] = (A[i, j] - offset[j]) * gain[j] + lo
    return A


@njit(**_FAST)
def _tansig_row(h, bias, scale):
    # one contiguous row: straight-line code LLVM vectorises
    for j in range(h.shape[0]):
        h[j] = tanh(scale * (h[j] + bias[j]))


@njit(parallel=True, **_FAST)
def tansig_shrink(H, col0, bias, scale):
    """H[i, col0 + j] <- tansig(scale·(H[i, col0 + j] + bias[j])) in place, rows in parallel.

    The caller writes T = Z Wh (without the constant row of Wh) into columns col0 … col0+q of
    a block H of I = [Z | E]; bias = 0.1·Wh[-1] is the product of H2's constant column 0.1, and
    scale the shrink l.
    """
    q = bias.shape[0]
    for i in prange(H.shape[0]):
        _tansig_row(H[i, col0:col0 + q], bias, scale)
    return H


@njit(inline="always", cache=CACHE)
def _add_column(K, S, j):
    for i in range(j + 1):
        K[i, j] += S[i, j]


@njit(parallel=True, cache=CACHE)
def add_upper(K, S):
    """K[i, j] += S[i, j] for i ≤ j: the upper triangle of S (p×p, any dtype) added into K's.

    Columns j and p−1−j share one parallel iteration, so the iterations do equal work; the
    inner loop runs down a column (contiguous for the column-major arrays of a Gram update).
    """
    p = K.shape[0]
    for c in prange(p // 2):
        _add_column(K, S, c)
        _add_column(K, S, p - 1 - c)
    if p % 2:
        _add_column(K, S, p // 2)
    return K
