"""Sufficient statistics of a ridge readout: the one path every readout is fitted through.

A ridge readout beta = argmin ||A beta − T||² + alpha ||beta||² on readout inputs A (n×p) and
targets T (n×m) needs only (docs/algorithms.md §1)

    n,   AᵀA (p×p),   AᵀT (p×m)      and, for residual-based scores,   TᵀT (m×m)

all of them sums over rows. ``GramSums`` holds them; sums of disjoint row sets add (and a
fold's sums subtract from the total), so data may be split any way — row blocks in memory,
chunks on Dask workers, cross-validation folds — without approximation. The readout is then
``GramSums.solve(alpha)``: (AᵀA + alpha I)⁻¹ AᵀT by ``fastelm._ridge.spd_solve``.

How A is made from rows of X is a *feature map* (``fastelm._hidden``): a small, pure, picklable
object with a width p, a dtype and ``fill(X, out, parallel)`` writing A into the first p columns
of ``out``; ``HiddenMap`` is the ELM's A = g(XW + b). How T is made from y is a ``TargetCoding``
(``fastelm._targets``).

Training rows reach an estimator through a row source (``fastelm._rows``): arrays in memory,
summed here, or Dask collections, summed by ``fastelm.dask`` with the same ``gram_sums``.
"""
from dataclasses import dataclass

import numpy as np

from ._hat import GCV, gcv_dual_penalty, gcv_sums_penalty
from ._ridge import add_to_diagonal, ridge_fit, spd_solve

BLOCK_ROWS = 4096
BLOCK_BYTES = 64 << 20  # column blocks of A in the dual form: n rows × this many bytes


@dataclass(frozen=True, eq=False)
class GramSums:
    """Row sums of a ridge readout's normal equations: n, AᵀA, AᵀT and TᵀT.

    Parameters
    ----------
    n : int
        Rows summed over.
    AtA : ndarray of shape (p, p)
        Σ aᵢ aᵢᵀ over the rows' readout inputs aᵢ.
    AtT : ndarray of shape (p, m)
        Σ aᵢ tᵢᵀ.
    TtT : ndarray of shape (m, m)
        Σ tᵢ tᵢᵀ (for residuals: ||A beta − T||² = tr(TᵀT − 2 betaᵀAᵀT + betaᵀAᵀA beta)); None
        where only AᵀA and AᵀT are used (``fastelm.model_selection._fold_sums.prefix_ridge``).

    Notes
    -----
    Sums of disjoint row sets add with ``+``; ``total - fold`` gives the sums without a fold.
    """

    n: int
    AtA: np.ndarray
    AtT: np.ndarray
    TtT: np.ndarray | None

    @classmethod
    def zeros(cls, p, m, dtype=np.float64):
        """The sums of no rows.

        Parameters
        ----------
        p, m : int
            Readout inputs and outputs.
        dtype : numpy dtype, default=float64

        Returns
        -------
        GramSums
        """
        return cls(0, np.zeros((p, p), dtype), np.zeros((p, m), dtype), np.zeros((m, m), dtype))

    def __add__(self, other):
        return GramSums(self.n + other.n, self.AtA + other.AtA, self.AtT + other.AtT,
                        self.TtT + other.TtT)

    def __sub__(self, other):
        return GramSums(self.n - other.n, self.AtA - other.AtA, self.AtT - other.AtT,
                        self.TtT - other.TtT)

    def astype(self, dtype):
        """The same sums in ``dtype``.

        Parameters
        ----------
        dtype : numpy dtype

        Returns
        -------
        GramSums
        """
        return GramSums(self.n, self.AtA.astype(dtype), self.AtT.astype(dtype),
                        self.TtT.astype(dtype))

    def solve(self, alpha):
        """beta = (AᵀA + alpha I)⁻¹ AᵀT, by ``fastelm._ridge.spd_solve`` (Cholesky, or its
        warned eigen solve); the sums are left unchanged.

        Parameters
        ----------
        alpha : float
            Ridge penalty (added to AᵀA's diagonal in the sums' dtype).

        Returns
        -------
        beta : ndarray of shape (p, m), float64
        """
        K = add_to_diagonal(np.array(self.AtA), alpha)  # alpha added in the sums' dtype
        return spd_solve(K, self.AtT)


def gram_sums(X, T, feature_map, block_rows=BLOCK_ROWS, parallel=True):
    """``GramSums`` of the readout inputs A = feature_map(X) and targets T, in the map's dtype.

    A is made ``block_rows`` rows at a time in the first p columns of one reused buffer
    B = [A | T]; the block's T is copied into the last m columns and BᵀB, one syrk on p + m
    columns, gives AᵀA, AᵀT and TᵀT at once: cheaper than a separate thin gemm AᵀT, and no page
    faults on a fresh n×p array. Memory O(block_rows·(p + m) + (p + m)²).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    T : ndarray of shape (n, m)
    feature_map : feature map (``width``, ``dtype``, ``fill``), e.g. ``HiddenMap``
    block_rows : int, default=4096
    parallel : bool, default=True
        Passed to ``feature_map.fill``.

    Returns
    -------
    GramSums
        In the map's dtype.
    """
    n, p, m = X.shape[0], feature_map.width, T.shape[1]
    dtype = feature_map.dtype
    if n == 0:
        return GramSums.zeros(p, m, dtype)
    buffer = np.empty((min(block_rows, n), p + m), dtype=dtype)
    G = np.empty((p + m, p + m), dtype=dtype)
    product = None
    for start in range(0, n, block_rows):
        stop = min(n, start + block_rows)
        B = buffer[: stop - start]
        feature_map.fill(X[start:stop], B, parallel)
        B[:, p:] = T[start:stop]
        if start == 0:
            np.matmul(B.T, B, out=G)  # syrk
        else:
            if product is None:
                product = np.empty_like(G)
            np.matmul(B.T, B, out=product)
            G += product
    return GramSums(n, G[:p, :p], G[:p, p:], G[p:, p:])


def _column_block(n, itemsize, block_columns):
    return block_columns or max(64, BLOCK_BYTES // (itemsize * max(n, 1)))


def kernel_prefixes(X, feature_map, widths, block_columns=None):
    """Yield (p, K_p) for each p of ``widths`` in ascending order: K_p = A[:, :p] A[:, :p]ᵀ
    (n×n, float64), the rows' kernel of the first p readout inputs, which the dual form of the
    ridge readout needs (docs/algorithms.md §1). K grows by the products of column blocks of A
    (``feature_map.columns``): memory O(n² + n·block), A never held whole, no p×p matrix.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    feature_map : feature map with ``columns``
    widths : iterable of int ≤ ``feature_map.width``
    block_columns : int, optional
        Columns per block (default: 64 MiB of them).

    Yields
    ------
    (p, K_p)
        K_p is one array updated in place: copy it to keep it past the next step.
    """
    n = X.shape[0]
    block = _column_block(n, np.dtype(feature_map.dtype).itemsize, block_columns)
    K, done = np.zeros((n, n)), 0
    for p in sorted(set(widths)):
        while done < p:
            stop = min(p, done + block)
            A = np.ascontiguousarray(feature_map.columns(X, done, stop))
            K += A @ A.T  # syrk in the map's dtype
            done = stop
        yield p, K


def dual_readout(X, feature_map, coef, block_columns=None):
    """beta = Aᵀ coef (p×m, the map's dtype) of the dual form beta = Aᵀ(AAᵀ + alpha I)⁻¹ T, made
    column block by column block of A = feature_map(X): no p×p matrix, A never whole.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    feature_map : feature map with ``columns``
    coef : ndarray of shape (n, m)
        The dual coefficients (AAᵀ + alpha I)⁻¹ T.
    block_columns : int, optional

    Returns
    -------
    beta : ndarray of shape (p, m)
    """
    dtype = feature_map.dtype
    block = _column_block(X.shape[0], np.dtype(dtype).itemsize, block_columns)
    coef = np.asarray(coef).astype(dtype, copy=False)
    beta = np.empty((feature_map.width, coef.shape[1]), dtype=dtype)
    for start in range(0, feature_map.width, block):
        stop = min(feature_map.width, start + block)
        beta[start:stop] = feature_map.columns(X, start, stop).T @ coef
    return beta


def ridge_readout(X, T, feature_map, alpha, block_rows=BLOCK_ROWS):
    """(beta, alpha) of the ridge readout on A = feature_map(X): beta (p×m, the map's dtype)
    and the penalty used.

    n ≥ p: ``gram_sums(...).solve(alpha)``, A never held whole. n < p: the dual form
    beta = Aᵀ(AAᵀ + alpha I)⁻¹ T on the full A, which is then the smaller matrix.
    ``alpha='gcv'``: the penalty of the data-scaled grid with the best generalised
    cross-validation score, from the same sums (``fastelm._hat.gcv_sums_penalty``) or, in the
    dual form, from one eigendecomposition of AAᵀ (``gcv_dual_penalty``).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    T : ndarray of shape (n, m)
    feature_map : feature map, e.g. ``HiddenMap``
    alpha : float or 'gcv'
    block_rows : int, default=4096

    Returns
    -------
    beta : ndarray of shape (p, m)
    alpha : float
    """
    if X.shape[0] < feature_map.width:
        A = feature_map.transform(X)
        alpha = gcv_dual_penalty(A, T) if alpha == GCV else alpha
        return ridge_fit(A, T, alpha), alpha
    return sums_readout(gram_sums(X, T, feature_map, block_rows), alpha, feature_map.dtype)


def sums_readout(sums, alpha, dtype):
    """(beta, alpha) from ``GramSums`` (n ≥ p): ``sums.solve(alpha)``, alpha='gcv' chosen
    from the sums alone (``fastelm._hat.gcv_sums_penalty``)."""
    alpha = gcv_sums_penalty(sums) if alpha == GCV else alpha
    return np.ascontiguousarray(sums.solve(alpha), dtype=dtype), alpha


def readout_block(feature_map, beta, finish, X):
    """finish(A(X) beta) for one block of rows, on one thread (a Dask task of ``map_rows``).

    Parameters
    ----------
    feature_map : feature map
    beta : ndarray of shape (p, m)
    finish : callable
        Readout scores (n×m) → the prediction.
    X : ndarray of shape (n, d)

    Returns
    -------
    ndarray
    """
    return finish(feature_map.transform(X, parallel=False) @ beta)
