"""Broad Learning System (Chen & Liu 2018; docs/algorithms.md §5), batch and incremental.

One fit, in the order of the reference code ``bls_train``:

1. H1 = [X', 0.1] with X' the scaled inputs (``preprocessing``, below).
2. For each of n windows: We ~ U(-1, 1)^{(d+1)×k}; A = H1 We min-max scaled to [-1, 1];
   the sparse autoencoder W_D = argmin ||A W_D − H1||² + lam ||W_D||₁ (ADMM, 50 steps, rho = 1);
   Z_i = H1 W_Dᵀ, each column min-max scaled to [0, 1] with the training minima and maxima.
3. H2 = [Z, 0.1] with Z = [Z_1 … Z_n]; Wh = orth(U(-1, 1)^{(nk+1)×q}); T2 = H2 Wh;
   shrink l = s / max(T2) on the training rows; E = tansig(l·T2).
4. I = [Z | E]; beta = (IᵀI + C·I)⁻¹ IᵀT (primal, N ≥ columns) or Iᵀ(IIᵀ + C·I)⁻¹ T (dual).

Every random matrix comes from one numpy Generator in a fixed order (We of window 1 … n, then
Wh, then the Wh of each ``add_enhancement_nodes`` call), so a seed fixes the model at any thread
count. The N × (nk+q) matrix I is never held whole in the primal case: it is built in row blocks
(E written in place by the tansig kernel), and IᵀI is accumulated block by block with BLAS syrk
into the one (nk+q)² Gram matrix, which is solved by Cholesky. Training memory is therefore
the data, Z, one block and two (nk+q)² matrices (K and its factor), whatever N is; on MNIST
(60000 × 11100) that is 2.8 GB peak against 11.4 GB for a plain numpy transcription, and the fit
takes about 1.2 times the Gram product IᵀI alone (benchmarks/bench_bls_mnist.py).
Like the reference code's backslash, the Cholesky factor is used whenever it exists: with the
default C = 2⁻³⁰ the system is near singular (reciprocal condition ~1e-16 on MNIST), which
would send ``_ridge.spd_solve``'s default rcond check to its slow eigen fallback for no accuracy
gain, so the readout is solved with ``rcond_min=0``.

``dtype='float32'`` builds I in float32 and takes IᵀI by ssyrk (half the float64 time), into
the same float64 K: each block is shifted by the first block's column means and its ssyrk sum
added into K every FLUSH_ROWS rows, the shift undone exactly in float64 (``_gram_update_f32``).
What float32 round-off remains still swamps a tiny C (MNIST's IᵀI has thousands of eigenvalues
below 1e-2), so float32 needs C ≳ 1e-3 on MNIST and raises a LinAlgError when Cholesky fails
instead of falling back to the eigen-solve (whose pseudo-inverse keeps the round-off).

``preprocessing='reference'`` reproduces the reference code's choices: each sample (row) of X
z-scored, ``mapminmax`` of A on rows (per sample, within each window), class targets ±1.
The default ``'minmax'`` instead min-max scales each input column to [0, 1] with the training
minima and maxima, scales each column of A to [-1, 1] on the training rows, and codes classes
one-hot 0/1 like the ELMs. Per-sample z-scoring suits images and signals (MNIST, 10000 rows,
q = 2000: 97.4% test accuracy against 96.8% for 'minmax') but destroys the information of
inputs with one or two features and mixes the units of unrelated features; per-column
standardisation was worse than both on MNIST (95.6%: rare pixels become outliers). The A
scaling and the ±1 coding changed accuracy by less than 0.1 point.

Incremental learning (Chen & Liu 2018, §III) keeps the ridge normal equations instead of the
paper's Greville pseudo-inverse updates: the Gram state (K = IᵀI + C·I with IᵀT in the primal
form, G = IIᵀ + C·I with T in the dual form) is extended block-wise by new enhancement nodes or
new rows and re-solved by Cholesky, so the result equals a readout retrained on the same nodes
and rows, with no explicit pseudo-inverse. As in the reference code (``bls_train_input``), the
input scaling, the feature windows' min-max scaling and each enhancement group's shrink stay as
fitted; a new group of enhancement nodes gets its own shrink s / max(H2 Wh_new) over the rows
seen so far (``bls_train_enhance``). The reference's row update (``bls_train_input``) only
approximates the ridge solution; ours is exact. The Gram state is rebuilt from the stored Z
(no feature relearning) only when rows or nodes make the other form (primal/dual) the smaller.
"""
from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, orth
from scipy.linalg.blas import get_blas_funcs
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import ClassifierOutputs, RegressorOutputs
from ._gram import GramSums, gram_sums
from ._hidden import check_dtype, check_generator
from ._rows import is_dask_input
from ._targets import TargetCoding
from ._kernels.bls import (add_upper, admm_lasso, affine_columns, minmax_rows, tansig_shrink,
                           zscore_rows)
from ._ridge import add_to_diagonal, serial_blas_if_small, spd_solve
from ._threads import thread_limit
from ._validation import (DTYPE, NONNEGATIVE, POSITIVE, POSITIVE_INT, RANDOM_STATE, DType,
                          RandomState, StrOptions, check_memory, check_positive_int,
                          check_unchanged, fixed_parameters, validate_data)

if TYPE_CHECKING:
    from typing_extensions import Self

BIAS = 0.1  # the constant column appended to X and to Z (H1 = [X, 0.1], H2 = [Z, 0.1])
ADMM_ITERATIONS = 50
BLOCK_BYTES = 1 << 28  # rows of I are built and multiplied in blocks of about this size
# float32 mode: rows per ssyrk before its float32 sum is added into the float64 Gram
FLUSH_ROWS = 2048
F32_REG_HINT = 1e-3  # smallest float32 reg measured on MNIST (docs/results/precision.md)
PREPROCESSING = ("minmax", "reference")
# a column whose training range is at most this times its magnitude is constant (round-off)
CONSTANT_RANGE = 1e-12
# below this many flops (about 20 ms on one core) BLAS and Numba run on one thread: on a busy
# machine a threaded SVD or Cholesky of a few hundred rows was seen 10-100× slower
SERIAL_WORK = 1e9
# layer_rows='auto' on Dask input: the layer (scalings, windows, shrink) is learned from this
# many rows at most (docs/results/dask-bls: MNIST accuracy against the layer of every row)
DASK_LAYER_ROWS = 10_000


def serial_if_small(work: float) -> AbstractContextManager:
    """BLAS/LAPACK and Numba kernels on one thread when ``work`` is at most SERIAL_WORK.

    Parameters
    ----------
    work : float
        Flops of the step.

    Returns
    -------
    context manager
    """
    return serial_blas_if_small(work, limit=SERIAL_WORK, numba_threads=True)


def draw_enhancement_weights(rng: np.random.Generator, n_inputs: int, n_nodes: int,
                             dtype: DType) -> np.ndarray:
    """Wh = orth(U(-1, 1)^{n_inputs×n_nodes}): orthonormal columns if n_inputs > n_nodes, else
    orthonormal rows (the reference's ``orth(2*rand(r, c)' - 1)'``). With n_inputs = nk + 1
    this is the reference's test nk ≥ q, which takes the rows form for a square draw too."""
    R = rng.uniform(-1.0, 1.0, size=(n_inputs, n_nodes))
    with thread_limit(1, user_api="blas", numba_threads=False):  # a thin SVD: threads only hurt
        W = orth(R) if n_inputs > n_nodes else orth(R.T).T
    if W.shape != R.shape:
        raise np.linalg.LinAlgError("random enhancement weights are rank deficient; reseed")
    return W.astype(dtype)


def minmax_parameters(A: np.ndarray, lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    """Column offsets and gains of ``mapminmax`` to [lo, hi]: y = (x − offset)·gain + lo.

    A column that is constant on the training rows (its range at most CONSTANT_RANGE times its
    magnitude: round-off) carries no information and maps to lo (gain 0), whatever its value;
    MATLAB's ``mapminmax`` would pass it unchanged, and a constant column of 1.7e9 among
    features of order 1 then swamps H1 (breast cancer: 0.95 → 0.62 accuracy). A column whose
    range overflows float64 is refused.
    """
    xmin = A.min(axis=0).astype(np.float64)
    xmax = A.max(axis=0).astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        xrange = xmax - xmin
    wide = np.flatnonzero(~np.isfinite(xrange))
    if wide.size:
        raise ValueError(f"column {wide[0]} of the inputs spans [{xmin[wide[0]]:.3g}, "
                         f"{xmax[wide[0]]:.3g}], wider than float64 can min-max scale; "
                         "rescale it")
    constant = xrange <= CONSTANT_RANGE * np.maximum(np.abs(xmin), np.abs(xmax))
    with np.errstate(divide="ignore", over="ignore"):
        gain = (hi - lo) / np.where(constant, 1.0, xrange)
    constant |= ~np.isfinite(gain)  # a range below 2 / float64 max: no usable gain
    gain[constant] = 0.0
    return xmin, gain


def sparse_autoencoder(A: ArrayLike, AtB: ArrayLike, lam: float,
                       n_iter: int = ADMM_ITERATIONS) -> np.ndarray:
    """W (k×p) = argmin ||A W − B||² + lam ||W||₁ by ADMM, given A (N×k) and AᵀB (k×p).

    L1 = (AᵀA + I)⁻¹ is the explicit k×k inverse, as in the reference ``sparse_bls`` (k is ~10).
    """
    A = np.asarray(A, dtype=np.float64)
    L1 = np.linalg.inv(add_to_diagonal(A.T @ A, 1.0))
    L2 = L1 @ np.asarray(AtB, dtype=np.float64)
    return admm_lasso(L1, L2, float(lam), int(n_iter))


def _gram_update(K, block):
    """K += blockᵀ block on K's upper triangle, in place (syrk when K has the block's dtype)."""
    if K.dtype == block.dtype and K.flags.f_contiguous:
        syrk = get_blas_funcs("syrk", dtype=K.dtype)
        out = syrk(1.0, block.T, beta=1.0, c=K, trans=0, lower=0, overwrite_c=1)
        if out is not K:  # pragma: no cover - f2py copies only non-contiguous input
            K[...] = out
    else:
        K += block.T @ block
    return K


def _gram_update_f32(K, rhs, blocks, T, col0=0):
    """float32 row blocks of I: K[:, col0:] += (IᵀI)[:, col0:] (upper triangle) and
    rhs[col0:] += I[:, col0:]ᵀ T, into the float64 K and rhs. Consumes (and overwrites) blocks.

    float32 sums are kept short and small, the only Gram round-off of float32 mode: each block
    is shifted in place by one μ (the first block's column means), C = I − 1μᵀ, and CᵀC is
    taken by ssyrk FLUSH_ROWS rows at a time into a float32 scratch added into K. The shift
    is undone exactly in float64 at the end: IᵀI = CᵀC + u μᵀ + μ uᵀ with u = Cᵀ1 + n μ / 2,
    IᵀT = CᵀT + μ (1ᵀT). Against one float32 sum over all rows (unshifted: column means ~0.5,
    sums growing with N) this cut the Gram's round-off on MNIST (q = 3000) 15-fold in 2-norm,
    and the smallest reg at which its Cholesky succeeds from 0.1 to 1e-3.
    """
    syrk = get_blas_funcs("syrk", dtype=np.float32)
    mu, S, n = None, None, 0
    for r0, r1, block in blocks:
        if mu is None:
            mu = block.mean(axis=0, dtype=np.float64).astype(np.float32)
            sums, tsum = np.zeros(block.shape[1]), np.zeros(T.shape[1])
        block -= mu
        sums += block.sum(axis=0, dtype=np.float64)
        tsum += T[r0:r1].sum(axis=0, dtype=np.float64)
        n += r1 - r0
        for s0 in range(0, r1 - r0, FLUSH_ROWS):
            C = block[s0:s0 + FLUSH_ROWS]
            new = C[:, col0:]
            S = syrk(1.0, new.T, beta=0.0, c=S, trans=0, lower=0, overwrite_c=S is not None)
            add_upper(K[col0:, col0:], S)
            if col0:
                K[:col0, col0:] += C[:, :col0].T @ new
            rhs[col0:] += new.T @ T[r0 + s0:r0 + s0 + C.shape[0]]
    if mu is None:
        return K, rhs
    mu = mu.astype(np.float64)
    u = sums + 0.5 * n * mu
    if col0 == 0 and K.flags.f_contiguous:
        syr2k = get_blas_funcs("syr2k", dtype=np.float64)
        out = syr2k(1.0, u[:, None], mu[:, None], beta=1.0, c=K, trans=0, lower=0,
                    overwrite_c=1)
        if out is not K:  # pragma: no cover - f2py copies only non-contiguous input
            K[...] = out
    else:
        K[:, col0:] += np.outer(u, mu[col0:]) + np.outer(mu, u[col0:])
    rhs[col0:] += np.outer(mu[col0:], tsum)
    return K, rhs


def _fit_bytes(n_rows, n_nodes, n_features, n_feature_nodes):
    """The largest arrays of a BLS fit, in bytes (float64): A and Z (N × nk, Z with the inputs
    beside it under direct links), the weights We, W_D and Wh ((nk + 1) × the other nodes),
    one block of E (at most BLOCK_BYTES) and the Gram system with its Cholesky factor, 2·m² with
    m = min(N, columns)."""
    m = min(n_rows, n_nodes)
    weights = (2 * (n_features + 1) * n_feature_nodes
               + (n_feature_nodes + 1) * (n_nodes - n_feature_nodes))
    return (8.0 * (2 * n_rows * (n_feature_nodes + n_features) + weights + 2 * float(m) ** 2)
            + min(BLOCK_BYTES, 8.0 * n_rows * n_nodes))


def _work(n_rows, n_nodes, n_features, n_feature_nodes):
    """Flops of a BLS fit: the window products, then the Gram and its Cholesky."""
    small = min(n_rows, n_nodes)
    return (2.0 * n_rows * n_features * n_feature_nodes * 3
            + n_rows * n_nodes * (2 * n_feature_nodes + small) + small ** 3 / 3)


def scale_inputs(X: np.ndarray, preprocessing: str, offset: np.ndarray | None,
                 gain: np.ndarray | None) -> np.ndarray:
    """X' of H1 = [X', 0.1]: rows z-scored ('reference') or columns min-max scaled to [0, 1]
    ('minmax': (x − offset)·gain, the training minima and gains)."""
    if preprocessing == "reference":
        return zscore_rows(X)
    return affine_columns(np.array(X, dtype=X.dtype, order="C"), offset, gain, 0.0)


def enhancement_extremes(Z: np.ndarray, Wh: np.ndarray, block_rows: int,
                         magnitude: bool = True) -> tuple[np.ndarray, float]:
    """(max_i (Z Wh[:-1])_ij for each column j, max_ij |(Z Wh[:-1])_ij + 0.1·Wh[-1, j]|) over
    the rows of the feature nodes Z, ``block_rows`` rows at a time: what the shrink of an
    enhancement group reads (``enhancement_shrink``). Maxima of disjoint row sets combine by
    ``merge_extremes``. ``magnitude=False``: the second is NaN, not read (it matters only
    when ``enhancement_top`` ≤ 0); no array beyond each block's product either way."""
    bias = BIAS * Wh[-1]
    top = np.full(Wh.shape[1], -np.inf, dtype=Wh.dtype)
    largest = 0.0 if magnitude else np.nan
    for r0 in range(0, Z.shape[0], block_rows):
        T2 = Z[r0:r0 + block_rows] @ Wh[:-1]
        np.maximum(top, T2.max(axis=0), out=top)
        if magnitude:
            T2 += bias
            largest = max(largest, float(T2.max()), -float(T2.min()))
    return top, largest


def enhancement_top(top: np.ndarray, Wh: np.ndarray) -> float:
    """max(T2) = max_j (top_j + 0.1·Wh[-1, j]) from ``enhancement_extremes``' column maxima."""
    return float((top + BIAS * Wh[-1]).max())


def merge_extremes(*parts: tuple[np.ndarray, float]) -> tuple[np.ndarray, float]:
    """``enhancement_extremes`` of the union of row sets from those of each set."""
    return (np.maximum.reduce([top for top, _ in parts]), max(m for _, m in parts))


def enhancement_shrink(top: np.ndarray, magnitude: float, Wh: np.ndarray, shrink: float
                       ) -> float:
    """l = s / max(T2) with T2 = H2 Wh, H2 = [Z, 0.1], from ``enhancement_extremes``.

    max(T2) = max_j (max_i (Z Wh)_ij + 0.1·Wh[-1, j]) exactly (rounding is monotone). Only when
    max(T2) ≤ 0 (a degenerate handful of rows) is max |T2| used instead.
    """
    top = enhancement_top(top, Wh)
    if not top > 0:
        top = magnitude
    return shrink / top if top > 0 else shrink


@dataclass(frozen=True, eq=False)
class BroadMap:
    """A fitted broad layer as a feature map of ``fastelm._gram``: rows X → I = [X' | Z | E_1 …].

    X' = scaled inputs (``scale_inputs``), Z = min-max(X' W_D + 0.1·w) (the feature windows,
    training scaling), E_g = tansig(l_g·([Z, 0.1] Wh_g)); X' leads only with direct links. A
    pure, picklable value: Dask workers apply it chunk by chunk (``fastelm.dask``), and the
    estimator builds its blocks of I with the same methods.

    Parameters
    ----------
    preprocessing : {'minmax', 'reference'}
    x_offset, x_gain : ndarray of shape (d,) or None
        The input min-max scaling ('minmax' only).
    sparse_weights : ndarray of shape (d + 1, n·k)
    feature_offset, feature_gain : ndarray of shape (n·k,)
    enhancement_weights : tuple of ndarray of shape (n·k + 1, q_g)
    enhancement_shrink : tuple of float
    direct_links : bool
    """

    preprocessing: str
    x_offset: np.ndarray | None
    x_gain: np.ndarray | None
    sparse_weights: np.ndarray
    feature_offset: np.ndarray
    feature_gain: np.ndarray
    enhancement_weights: tuple
    enhancement_shrink: tuple
    direct_links: bool

    @property
    def dtype(self) -> np.dtype:
        """dtype of I (that of the windows)."""
        return self.sparse_weights.dtype

    @property
    def links(self) -> int:
        """d when X' leads I (direct links), else 0."""
        return self.sparse_weights.shape[0] - 1 if self.direct_links else 0

    @property
    def width(self) -> int:
        """Columns of I."""
        return (self.links + self.sparse_weights.shape[1]
                + sum(W.shape[1] for W in self.enhancement_weights))

    def scale_inputs(self, X: np.ndarray) -> np.ndarray:
        """X' for rows X (``scale_inputs``)."""
        return scale_inputs(X, self.preprocessing, self.x_offset, self.x_gain)

    def feature_nodes(self, X: np.ndarray) -> np.ndarray:
        """Z for scaled inputs X, with the fitted windows and training min-max scaling ([X, Z]
        with direct links)."""
        Z = X @ self.sparse_weights[:-1] + BIAS * self.sparse_weights[-1]
        Z = affine_columns(Z, self.feature_offset, self.feature_gain, 0.0)
        return np.hstack([X, Z]) if self.direct_links else Z

    def fill_nodes(self, Z: np.ndarray, out: np.ndarray) -> np.ndarray:
        """out[:, :width] ← I = [Z | E_1 …] for feature nodes Z (``feature_nodes``)."""
        nk, links = Z.shape[1], self.links
        out[:, :nk] = Z
        col = nk
        for Wh, l in zip(self.enhancement_weights, self.enhancement_shrink):
            q = Wh.shape[1]
            np.matmul(Z[:, links:], Wh[:-1], out=out[:, col:col + q])
            tansig_shrink(out, col, BIAS * Wh[-1], l)
            col += q
        return out

    def fill(self, X: np.ndarray, out: np.ndarray, parallel: bool = True) -> np.ndarray:
        """out[:, :width] ← I for rows X (the map's dtype).

        Parameters
        ----------
        X : ndarray of shape (n, d)
        out : ndarray of shape (n, ≥ width)
        parallel : bool, default=True
            False: the kernels and BLAS on this thread only (a Dask task).

        Returns
        -------
        out
        """
        if X.shape[1] != self.sparse_weights.shape[0] - 1:
            raise ValueError(f"X has {X.shape[1]} features, but the BLS layer was fitted on "
                             f"{self.sparse_weights.shape[0] - 1}")
        with thread_limit(None if parallel else 1, user_api="blas"):
            return self.fill_nodes(self.feature_nodes(self.scale_inputs(X)), out)

    def transform(self, X: np.ndarray, parallel: bool = True) -> np.ndarray:
        """I (n × width) for rows X (``fill``)."""
        return self.fill(X, np.empty((X.shape[0], self.width), dtype=self.dtype), parallel)

    def blocks(self, X: np.ndarray, rows: int) -> Any:
        """Yield (start, stop, I_block) for rows X, ``rows`` at a time, on this thread (one
        reused buffer: consume each block before the next)."""
        buffer = np.empty((max(min(rows, X.shape[0]), 1), self.width), dtype=self.dtype)
        for r0 in range(0, X.shape[0], rows):
            r1 = min(r0 + rows, X.shape[0])
            yield r0, r1, self.fill(X[r0:r1], buffer[:r1 - r0], parallel=False)

    def _block_rows(self) -> int:
        return max(256, BLOCK_BYTES // (np.dtype(self.dtype).itemsize * max(self.width, 1)))

    def gram_sums(self, X: np.ndarray, T: np.ndarray) -> GramSums:
        """GramSums (float64) of I and T over rows X (one Dask chunk, on this thread).

        float64: ``fastelm._gram.gram_sums``. float32: I in float32, IᵀI and IᵀT by the
        in-memory fit's shifted ssyrk sums into float64 (``_gram_update_f32``; upper
        triangle, mirrored here), TᵀT in float64.

        Parameters
        ----------
        X : ndarray of shape (n, d)
        T : ndarray of shape (n, m)

        Returns
        -------
        fastelm._gram.GramSums
        """
        if self.dtype != np.float32:
            return gram_sums(X, T, self, parallel=False).astype(np.float64)
        return self.column_sums(X, T, 0)

    def column_sums(self, X: np.ndarray, T: np.ndarray, start: int) -> GramSums:
        """GramSums (float64) of the columns ``start:`` of I against every column, over rows X
        (one Dask chunk, on this thread): AtA holds (IᵀI)[:, start:] (width × (width −
        start)), AtT = IᵀT (every column), TtT = TᵀT. With ``start`` the first column of a new
        enhancement group these are what ``add_enhancement_nodes`` adds to the Gram state:
        I_oldᵀE, EᵀE and EᵀT, at (width − start)/width of the whole IᵀI's products.
        float32: the shifted ssyrk sums of ``_gram_update_f32`` (``gram_sums``).

        Parameters
        ----------
        X : ndarray of shape (n, d)
        T : ndarray of shape (n, m)
        start : int

        Returns
        -------
        fastelm._gram.GramSums
        """
        p = self.width
        T = np.asarray(T)
        K, rhs = np.zeros((p, p), order="F"), np.zeros((p, T.shape[1]))
        blocks = self.blocks(X, self._block_rows())
        with thread_limit(1, user_api="blas"):
            if self.dtype == np.float32:
                def noting_old_rhs():  # I_oldᵀT before _gram_update_f32 shifts the block
                    for r0, r1, block in blocks:
                        rhs[:start] += block[:, :start].T @ T[r0:r1]
                        yield r0, r1, block
                _gram_update_f32(K, rhs, noting_old_rhs(), T, col0=start)
            else:
                for r0, r1, block in blocks:
                    K[:, start:] += block.T @ block[:, start:]
                    rhs += block.T @ T[r0:r1]
        new = K[start:, start:]
        K[start:, start:] = np.triu(new) + np.triu(new, 1).T  # float32: the upper triangle
        T = T.astype(np.float64)
        return GramSums(X.shape[0], np.ascontiguousarray(K[:, start:]), rhs, T.T @ T)

    def extremes(self, Wh: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, float]:
        """``enhancement_extremes`` of a new group Wh over rows X (one Dask chunk)."""
        with thread_limit(1, user_api="blas"):
            Z = self.feature_nodes(self.scale_inputs(X))[:, self.links:]
            return enhancement_extremes(Z, Wh, max(Z.shape[0], 1))


@dataclass(frozen=True)
class SignedTargets:
    """The reference code's ±1 class targets, 2T − 1 of a one-hot ``TargetCoding``.

    Parameters
    ----------
    coding : fastelm._targets.TargetCoding
    """

    coding: TargetCoding

    @property
    def dtype(self) -> type:
        """dtype of T."""
        return self.coding.dtype

    @property
    def n_outputs(self) -> int:
        """Columns of T."""
        return self.coding.n_outputs

    def __call__(self, y: ArrayLike) -> np.ndarray:
        """2·one_hot(y) − 1.

        Parameters
        ----------
        y : array-like of labels

        Returns
        -------
        T : ndarray
        """
        return 2 * self.coding(y) - 1


class BroadGram:
    """Normal-equation state of the BLS readout, kept for incremental learning.

    ``form='primal'``: K = IᵀI + C·I (columns × columns) and ``rhs`` = IᵀT.
    ``form='dual'``:   K = IIᵀ + C·I (rows × rows) and ``rhs`` = T.
    K is float64 in Fortran order and only its upper triangle is maintained.

    Parameters
    ----------
    form : {'primal', 'dual'}
    K : ndarray of float64, Fortran order
    rhs : ndarray of float64
    """

    def __init__(self, form: str, K: np.ndarray, rhs: np.ndarray):
        self.form = form
        self.K = K
        self.rhs = rhs

    @classmethod
    def primal_of(cls, sums: GramSums, reg: float) -> "BroadGram":
        """The primal state K = IᵀI + reg·I, rhs = IᵀT of ``fastelm._gram.GramSums`` of I
        (copied: the sums stay as they are)."""
        return cls("primal", add_to_diagonal(np.array(sums.AtA, dtype=np.float64, order="F"),
                                             reg), np.array(sums.AtT, dtype=np.float64))


class _BLS(BaseEstimator):
    _parameter_constraints = {
        "n_windows": POSITIVE_INT, "nodes_per_window": POSITIVE_INT,
        "n_enhancement": POSITIVE_INT, "shrink": POSITIVE, "reg": NONNEGATIVE,
        "sparse_lambda": NONNEGATIVE, "preprocessing": [StrOptions(set(PREPROCESSING))],
        "direct_links": ["boolean"], "random_state": RANDOM_STATE, "dtype": DTYPE,
        "layer_rows": [StrOptions({"auto"}), *POSITIVE_INT]}

    def __init__(self, n_windows: int = 10, nodes_per_window: int = 10,
                 n_enhancement: int = 1000, shrink: float = 0.8, reg: float = 2.0 ** -30,
                 sparse_lambda: float = 1e-3, preprocessing: str = "minmax",
                 direct_links: bool = False, random_state: RandomState = None,
                 dtype: DType = "float64", layer_rows: int | str = "auto"):
        self.n_windows = n_windows
        self.nodes_per_window = nodes_per_window
        self.n_enhancement = n_enhancement
        self.shrink = shrink
        self.reg = reg
        self.sparse_lambda = sparse_lambda
        self.preprocessing = preprocessing
        self.direct_links = direct_links
        self.random_state = random_state
        self.dtype = dtype
        self.layer_rows = layer_rows

    # ---------------------------------------------------------------- parameters and layout
    def _check_params(self):
        self._validate_params()
        return check_dtype(self.dtype)

    def _direct_links(self):
        return self.direct_links_

    def _fix_layout(self):
        """Keep what prediction reads as fitted state (``set_params`` after fit changes
        nothing a prediction sees)."""
        self.preprocessing_ = self.preprocessing
        self.direct_links_ = bool(self.direct_links)

    def __setstate__(self, state):
        if "sparse_weights_" in state:  # pickled before the layout was fitted state
            state.setdefault("preprocessing_", state.get("preprocessing"))
            state.setdefault("direct_links_", bool(state.get("direct_links", False)))
            state.setdefault("_fixed", None)
        super().__setstate__(state)

    def _check_unchanged(self):
        """An increment: the parameters the fit used are unchanged (``check_unchanged``)."""
        check_is_fitted(self, "beta_")
        if getattr(self, "_fixed", None) is not None:
            check_unchanged(self, self._fixed, "fit")

    def _links(self):
        """d when the scaled inputs X' lead the readout inputs (direct links), else 0."""
        return self.n_features_in_ if self._direct_links() else 0

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags

    @property
    def n_nodes_(self) -> int:
        """Columns of I: feature nodes n·k plus every enhancement node."""
        check_is_fitted(self, "beta_")
        return self._n_nodes()

    def _n_nodes(self):
        return (self._links() + self.sparse_weights_.shape[1]
                + sum(W.shape[1] for W in self.enhancement_weights_))

    def _block_rows(self, n_columns):
        itemsize = np.dtype(self.sparse_weights_.dtype).itemsize
        return max(256, BLOCK_BYTES // (itemsize * max(n_columns, 1)))

    # ---------------------------------------------------------------- the broad layer
    def _broad_map(self):
        """The fitted layer as a feature map (``BroadMap``), with the enhancement groups so far."""
        return BroadMap(self.preprocessing_, self.__dict__.get("x_offset_"),
                        self.__dict__.get("x_gain_"), self.sparse_weights_,
                        self.feature_offset_, self.feature_gain_,
                        tuple(self.enhancement_weights_), tuple(self.enhancement_shrink_),
                        self._direct_links())

    _feature_map = _broad_map  # Dask predictions map it over the row chunks (``_base``)

    def _scale_inputs(self, X):
        """X' of H1 = [X', 0.1] (``scale_inputs``)."""
        return scale_inputs(X, self.preprocessing_, self.__dict__.get("x_offset_"),
                            self.__dict__.get("x_gain_"))

    def _fit_feature_windows(self, X, rng):
        """Learn the n sparse-autoencoder windows on scaled inputs X (N×d); return Z (N×nk)."""
        n, k, dtype = self.n_windows, self.nodes_per_window, X.dtype
        d = X.shape[1]
        We = np.hstack([rng.uniform(-1.0, 1.0, size=(d + 1, k)) for _ in range(n)]).astype(dtype)
        A = X @ We[:-1] + BIAS * We[-1]
        if self.preprocessing_ == "reference":
            minmax_rows(A, k, -1.0, 1.0)
        else:
            offset, gain = minmax_parameters(A, -1.0, 1.0)
            affine_columns(A, offset.astype(dtype), gain.astype(dtype), -1.0)
        AtH1 = np.hstack([A.T @ X, BIAS * A.sum(axis=0, dtype=np.float64)[:, None]])
        WD = [sparse_autoencoder(A[:, i * k:(i + 1) * k], AtH1[i * k:(i + 1) * k],
                                 self.sparse_lambda) for i in range(n)]
        self.mapping_weights_ = We
        self.sparse_weights_ = np.vstack(WD).T.astype(dtype)  # (d+1)×nk: Z = H1 @ this
        Z = X @ self.sparse_weights_[:-1] + BIAS * self.sparse_weights_[-1]
        offset, gain = minmax_parameters(Z, 0.0, 1.0)
        self.feature_offset_, self.feature_gain_ = offset.astype(dtype), gain.astype(dtype)
        return affine_columns(Z, self.feature_offset_, self.feature_gain_, 0.0)

    def _feature_nodes(self, X):
        """Z for new scaled inputs X with the fitted windows and training min-max scaling
        ([X, Z] with direct links)."""
        return self._broad_map().feature_nodes(X)

    def _enhancement_shrink(self, Z, Wh):
        """l = s / max(H2 Wh) over the rows of Z (``enhancement_shrink``), block by block."""
        Z = Z[:, self._links():]  # the feature nodes, after the direct links' inputs
        rows = self._block_rows(Wh.shape[1])
        extremes = enhancement_extremes(Z, Wh, rows, magnitude=False)
        if not enhancement_top(extremes[0], Wh) > 0:  # degenerate: max |T2| is read too
            extremes = enhancement_extremes(Z, Wh, rows)
        return enhancement_shrink(*extremes, Wh, self.shrink)

    def _broad_blocks(self, Z, rows=None):
        """Yield (start, stop, I_block) with I = [Z | E_1 | E_2 …] for the rows of Z.

        One buffer is reused for every block: consume each block before asking for the next.
        """
        L, layer = self._n_nodes(), self._broad_map()
        rows = min(Z.shape[0], rows or self._block_rows(L))
        buffer = np.empty((max(rows, 1), L), dtype=Z.dtype)
        for r0 in range(0, Z.shape[0], rows):
            r1 = min(r0 + rows, Z.shape[0])
            yield r0, r1, layer.fill_nodes(Z[r0:r1], buffer[:r1 - r0])

    def broad_features(self, X: ArrayLike) -> np.ndarray:
        """I = [Z | E] for rows X: the broad layer the readout sees.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        I : ndarray of shape (n_samples, n_nodes_)
        """
        check_is_fitted(self, "beta_")
        X = validate_data(self, X, reset=False, dtype=self.sparse_weights_.dtype)
        Z = self._feature_nodes(self._scale_inputs(X))
        return next(self._broad_blocks(Z, rows=max(Z.shape[0], 1)))[2].copy()

    def _scores(self, X):
        """Readout outputs I(X) beta for new rows (n×m), I built block by block."""
        check_is_fitted(self, "beta_")
        X = validate_data(self, X, reset=False, dtype=self.sparse_weights_.dtype)
        with serial_if_small(2.0 * X.shape[0] * self._n_nodes() * (X.shape[1] + 30)):
            Z = self._feature_nodes(self._scale_inputs(X))
            out = np.empty((Z.shape[0], self.beta_.shape[1]), dtype=self.beta_.dtype)
            for r0, r1, block in self._broad_blocks(Z):
                out[r0:r1] = block @ self.beta_
        return out

    # ---------------------------------------------------------------- the readout
    def _build_gram(self, form, kernel=None):
        """The Gram state of the stored rows and nodes, in the given form, from scratch (the
        dual form from ``kernel`` = IIᵀ of the stored rows when the caller has it)."""
        Z, T = self.feature_nodes_, self.targets_
        L = self._n_nodes()
        if form == "primal" and Z.dtype == np.float32:
            K, rhs = _gram_update_f32(np.zeros((L, L), order="F"), np.zeros((L, T.shape[1])),
                                      self._broad_blocks(Z), T)
        elif form == "primal":
            K = np.zeros((L, L), dtype=Z.dtype, order="F")
            rhs = np.zeros((L, T.shape[1]))
            for r0, r1, block in self._broad_blocks(Z):
                _gram_update(K, block)
                rhs += block.T @ T[r0:r1]
            K = np.asfortranarray(K, dtype=np.float64)
        else:
            if kernel is None:
                broad = next(self._broad_blocks(Z, rows=max(Z.shape[0], 1)))[2]
                kernel = broad @ broad.T
            K = np.asfortranarray(kernel, dtype=np.float64)
            rhs = T.astype(np.float64)
        return BroadGram(form, add_to_diagonal(K, self.reg), rhs)

    def _preferred_form(self):
        return "primal" if self.feature_nodes_.shape[0] >= self._n_nodes() else "dual"

    def _solve(self):
        """beta from the Gram state: Cholesky, then Iᵀ(·) in the dual form."""
        dtype = self.sparse_weights_.dtype
        try:
            # like the reference code's backslash, a Cholesky factor is trusted however small
            # C makes the conditioning (C = 2⁻³⁰ is the default): residuals stay at round-off
            a = spd_solve(self.gram_.K, self.gram_.rhs, rcond_min=0,
                          fallback=dtype == np.float64)
        except np.linalg.LinAlgError:
            raise np.linalg.LinAlgError(
                f"dtype='float32': the Gram matrix is not positive definite at reg={self.reg:g} "
                "(float32 round-off exceeds reg). Increase reg (MNIST, 60000 rows: reg >= "
                f"{F32_REG_HINT:g}) or use dtype='float64'.") from None
        if self.gram_.form == "primal":
            self.beta_ = a.astype(dtype)
        else:
            beta = np.zeros((self._n_nodes(), a.shape[1]))
            for r0, r1, block in self._broad_blocks(self.feature_nodes_):
                beta += block.T @ a[r0:r1]
            self.beta_ = beta.astype(dtype)
        return self

    # ---------------------------------------------------------------- fit and increments
    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit the windows, the enhancement nodes and the readout on (X, y) from scratch.

        The layer (input scaling, windows, enhancement weights and shrink) is learned from
        ``layer_rows`` of the rows, the readout from all of them. Dask collections: the layer's
        rows are gathered here, each chunk's Gram sums of I on a worker, tree-added, and the
        readout solved here (``fastelm.dask``); the model then keeps no rows
        (``feature_nodes_`` and ``targets_`` are None).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        return self._fit(X, y)

    def _fit(self, X, y, **target_kw):
        if is_dask_input(X, y):
            return self._fit_dask(X, y, **target_kw)
        with serial_if_small(self._fit_layer(X, y, **target_kw)):
            self.gram_ = self._build_gram(self._preferred_form())
            return self._solve()

    def _layer_sample(self, n, rng, distributed=False):
        """Sorted positions of the rows the layer is learned from, drawn from ``rng`` before
        any weight: ``layer_rows`` of the n rows without replacement; None (no draw) for all."""
        m = self.layer_rows
        if m == "auto":
            m = min(n, DASK_LAYER_ROWS) if distributed else n
        if m > n:
            raise ValueError(f"layer_rows={m} is more than the {n} training rows; give at "
                             f"most {n}, or 'auto'")
        return None if m == n else np.sort(rng.choice(n, size=m, replace=False))

    def _fit_layer(self, X, y, **target_kw):
        """Fit the broad layer (scalings, windows, enhancement nodes) on (X, y) in memory, not
        the readout; returns the fit's flops (``_work``), which pick its thread count."""
        dtype = self._check_params()
        X, T = self._validate_Xy(X, y, dtype, reset=True, **target_kw)
        self._fix_layout()
        self._fixed = fixed_parameters(self)
        rows = [X]
        del X  # a float32 copy of the caller's data is not needed for the Gram
        return self._fit_layer_arrays(rows, self._code_targets(T), dtype)

    def _fit_layer_arrays(self, rows, T, dtype, distributed=False):
        """``_fit_layer`` on validated rows X (the one element of the list ``rows``, taken out
        of it so that X can be freed once scaled) and coded targets T."""
        X = rows.pop()
        n, d = X.shape
        nk = self.n_windows * self.nodes_per_window
        work = _work(n, nk + self.n_enhancement, d, nk)
        check_memory(_fit_bytes(n, nk + self.n_enhancement + self._links(), d, nk),
                     type(self).__name__, f"n_enhancement={self.n_enhancement}, n_windows·"
                     f"nodes_per_window={nk}")
        with serial_if_small(work):
            rng = check_generator(self.random_state)
            index = self._layer_sample(n, rng, distributed)
            if index is None:
                rows.append(X)
                del X
                Z = self._fit_broad_layer(rows, rng, dtype)
            else:
                self._fit_broad_layer([X[index]], rng, dtype)
                Z = self._feature_nodes(self._scale_inputs(X))
            # a copy: a regressor's T can be a view of the caller's y, which the caller may
            # change before rows or nodes are added
            self.feature_nodes_, self.targets_ = Z, np.array(T)
            self.rng_ = rng
        return work

    def _fit_broad_layer(self, layer_X, rng, dtype):
        """Learn the input scaling, the windows and the first enhancement group (with its
        shrink) from the rows X in the one-element list ``layer_X`` (taken out of it, so that
        X is freed once scaled); returns Z of those rows ([X', Z] with direct links)."""
        X = layer_X.pop()
        nk = self.n_windows * self.nodes_per_window
        if self.preprocessing_ == "minmax":
            offset, gain = minmax_parameters(X, 0.0, 1.0)
            self.x_offset_, self.x_gain_ = offset.astype(dtype), gain.astype(dtype)
        X = self._scale_inputs(X)
        Z = self._fit_feature_windows(X, rng)
        if self._direct_links():
            Z = np.hstack([X, Z])
        del X
        Wh = draw_enhancement_weights(rng, nk + 1, self.n_enhancement, dtype)
        self.enhancement_weights_ = [Wh]
        self.enhancement_shrink_ = [self._enhancement_shrink(Z, Wh)]
        return Z

    def _fit_dask(self, X, y, **target_kw):
        """``fit`` on Dask collections: the layer from ``layer_rows`` rows gathered here, the
        primal Gram state from every chunk's sums (``DaskRows.gram_sums`` of ``BroadMap``).
        Fewer rows than nodes: the rows are gathered and fitted in memory (dual form)."""
        dtype = self._check_params()
        rows, coding = self._training_rows(X, y, dtype, reset=True, **target_kw)
        self._fix_layout()
        self._fixed = fixed_parameters(self)
        coding = self._readout_coding(coding)
        L = self._links() + self.n_windows * self.nodes_per_window + self.n_enhancement
        if rows.count() < L:  # few rows: gathered and fitted in memory
            X, T = rows.gather(coding)
            X = [X]
            with serial_if_small(self._fit_layer_arrays(X, T, dtype, distributed=True)):
                self.gram_ = self._build_gram(self._preferred_form())
                return self._solve()
        self._fit_dask_layer(rows, dtype)
        sums = rows.gram_sums(self._broad_map(), coding)
        self.feature_nodes_ = self.targets_ = None
        self._rows_learned = sums.n
        self.gram_ = BroadGram.primal_of(sums, self.reg)
        with serial_if_small(L ** 3 / 3):
            return self._solve()

    def _fit_dask_layer(self, rows, dtype, training=None):
        """The broad layer from ``layer_rows`` rows of a Dask row source, gathered here (the
        sample's positions drawn from ``random_state`` first, as in memory). ``training``: the
        positions of the rows the layer is for (a CV split's training rows; default every
        row), of which the sample is drawn as the in-memory fit on ``X[training]`` draws it."""
        n, d = rows.count() if training is None else len(training), rows.n_features
        nk = self.n_windows * self.nodes_per_window
        L = self._links() + nk + self.n_enhancement
        rng = check_generator(self.random_state)
        index = self._layer_sample(n, rng, distributed=True)
        sample = np.arange(n) if index is None else index
        check_memory(_fit_bytes(len(sample), L, d, nk) + 16.0 * L * L, type(self).__name__,
                     f"n_enhancement={self.n_enhancement}, layer_rows={self.layer_rows}")
        with serial_if_small(_work(len(sample), L, d, nk)):
            self._fit_broad_layer([rows.take(sample if training is None else training[sample],
                                             dtype)], rng, dtype)
        self.rng_ = rng

    def _code_targets(self, T):
        return T

    def _readout_coding(self, coding):
        """The y → T map of the readout, from the ``TargetCoding`` of the targets."""
        return coding

    def _n_learned(self):
        """Rows learned so far (kept in ``feature_nodes_``, or counted by a Dask fit)."""
        if self.feature_nodes_ is None:
            return self._rows_learned
        return self.feature_nodes_.shape[0]

    def _kept_gram(self):
        """The primal Gram state of a model that keeps no rows."""
        if self.gram_ is None:
            raise ValueError("gram_ is None, and this model keeps no rows to rebuild it from "
                             "(fitted on Dask collections): refit it")
        return self.gram_

    def _drop_rows(self):
        """Keep the primal Gram state of the rows learned instead of the rows (before Dask
        rows are learned)."""
        if self.gram_ is None or self.gram_.form != "primal":
            self.gram_ = self._build_gram("primal")
        self._rows_learned = self.feature_nodes_.shape[0]
        self.feature_nodes_ = self.targets_ = None

    def _row_sums(self, X, y, layer=None):
        """GramSums of I (the fitted layer, or ``layer``) over rows X, y, in memory or on Dask
        workers: ``fastelm._gram.gram_sums`` through the row source."""
        dtype = self.sparse_weights_.dtype
        rows, coding = self._training_rows(X, y, dtype, reset=False)
        return rows.gram_sums(layer or self._broad_map(), self._readout_coding(coding))

    def add_enhancement_nodes(self, n_new: int, X: ArrayLike | None = None,
                              y: ArrayLike | None = None) -> Self:
        """Append ``n_new`` enhancement nodes and update the readout without refitting.

        The new group gets its own Wh (next draws of ``rng_``) and shrink s / max(H2 Wh) over
        every row learned so far. The primal Gram K grows by the blocks [IᵀE; EᵀE + C·I] and
        IᵀT by EᵀT; the dual one by E Eᵀ. Then beta is re-solved by Cholesky. A model fitted on
        Dask keeps no rows: pass every row it learned as X, y (Dask collections or arrays), read
        twice (the new shrink, then I_oldᵀE, EᵀE and EᵀT only, ``BroadMap.column_sums``);
        rows that are not those learned (their count or I_oldᵀT differs) are refused.

        Parameters
        ----------
        n_new : int
            Enhancement nodes to add.
        X, y : Dask collections or array-likes, optional
            Every row learned, for a model fitted on Dask only.

        Returns
        -------
        self
        """
        self._check_unchanged()
        n_new = check_positive_int(n_new, "n_new")
        if self.feature_nodes_ is None:
            if X is None or y is None:
                raise ValueError("X, y: this model keeps no rows (fitted on Dask collections);"
                                 " pass every row it learned as X, y to add enhancement nodes")
            return self._add_enhancement_nodes_from(n_new, X, y)
        if X is not None or y is not None:
            raise ValueError("X, y: this model keeps the rows it learned (feature_nodes_); "
                             "call add_enhancement_nodes(n_new) without them")
        Z = self.feature_nodes_
        with serial_if_small(_work(Z.shape[0], self._n_nodes() + n_new, 0, Z.shape[1])):
            return self._add_enhancement_nodes(n_new)

    def _add_enhancement_nodes_from(self, n_new, X, y):
        """``add_enhancement_nodes`` of a model that keeps no rows, from its rows X, y."""
        gram, dtype = self._kept_gram(), self.sparse_weights_.dtype
        rows, coding = self._training_rows(X, y, dtype, reset=False)
        state = self.rng_.bit_generator.state
        Wh = draw_enhancement_weights(self.rng_, self.sparse_weights_.shape[1] + 1, n_new, dtype)
        layer = self._broad_map()
        extremes = rows.reduce(partial(layer.extremes, Wh), merge_extremes, dtype)
        shrink = enhancement_shrink(*extremes, Wh, self.shrink)
        wider = replace(layer, enhancement_weights=layer.enhancement_weights + (Wh,),
                        enhancement_shrink=layer.enhancement_shrink + (shrink,))
        L_old, L = layer.width, wider.width
        sums = rows.column_sums(wider, self._readout_coding(coding), L_old)  # [I_old | E]ᵀE
        # the rows' I_oldᵀT against the one learned: relative round-off of the sums' dtype
        rtol = 1e-6 if dtype == np.float64 else 1e-3
        if sums.n != self._n_learned() or not np.allclose(
                sums.AtT[:L_old], gram.rhs, rtol=rtol,
                atol=rtol * 1e-3 * max(1.0, np.abs(gram.rhs).max())):
            self.rng_.bit_generator.state = state
            raise ValueError(f"X, y: these {sums.n} rows are not the {self._n_learned()} rows "
                             "this model learned (their IᵀT differs); pass every row learned")
        self.enhancement_weights_.append(Wh)
        self.enhancement_shrink_.append(shrink)
        K = np.empty((L, L), order="F")
        K[:L_old, :L_old] = gram.K
        K[:, L_old:] = sums.AtA
        K[L_old:, :L_old] = sums.AtA[:L_old].T
        new = np.arange(L_old, L)
        K[new, new] += self.reg
        self.gram_ = BroadGram("primal", K, np.vstack([gram.rhs, sums.AtT[L_old:]]))
        with serial_if_small(float(L) ** 3 / 3):
            return self._solve()

    def _add_enhancement_nodes(self, n_new):
        Z, T, dtype = self.feature_nodes_, self.targets_, self.sparse_weights_.dtype
        Wh = draw_enhancement_weights(self.rng_, self.sparse_weights_.shape[1] + 1, n_new, dtype)
        L_old, gram = self._n_nodes(), self.gram_
        self.enhancement_weights_.append(Wh)
        self.enhancement_shrink_.append(self._enhancement_shrink(Z, Wh))
        if gram is None or gram.form != self._preferred_form():
            self.gram_ = self._build_gram(self._preferred_form())
        elif gram.form == "primal":
            L = L_old + n_new
            K = np.zeros((L, L), order="F")
            K[:L_old, :L_old] = gram.K
            rhs = np.vstack([gram.rhs, np.zeros((n_new, T.shape[1]))])
            if dtype == np.float32:
                _gram_update_f32(K, rhs, self._broad_blocks(Z), T, col0=L_old)
                new = np.arange(L_old, L)
                K[new, new] += self.reg
                self.gram_ = BroadGram("primal", K, rhs)
                return self._solve()
            EtE = np.zeros((n_new, n_new))
            for r0, r1, block in self._broad_blocks(Z):
                E = block[:, L_old:]
                K[:L_old, L_old:] += block[:, :L_old].T @ E
                EtE += E.T @ E
                rhs[L_old:] += E.T @ T[r0:r1]
            K[L_old:, L_old:] = add_to_diagonal(EtE, self.reg)
            self.gram_ = BroadGram("primal", K, rhs)
        else:
            E = next(self._broad_blocks(Z, rows=Z.shape[0]))[2][:, L_old:]
            gram.K += E @ E.T
        return self._solve()

    def add_rows(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Learn new rows (X, y) with the fitted windows, scalings and enhancement nodes.

        The primal Gram absorbs I_newᵀI_new and I_newᵀT_new; the dual one grows by the blocks
        [I_old I_newᵀ; I_new I_newᵀ + C·I]. Then beta is re-solved by Cholesky. Dask rows (or
        any rows, for a model fitted on Dask): their sums come from the workers, and the model
        keeps the primal Gram state instead of its rows (unless all rows are fewer than the
        nodes: then the new rows are gathered).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        self._check_unchanged()
        dtype = self.sparse_weights_.dtype
        if self.feature_nodes_ is None or is_dask_input(X, y):
            return self._add_row_sums(X, y)
        X, T = self._validate_Xy(X, y, dtype, reset=False)
        T = self._code_targets(T)
        n_rows = self.feature_nodes_.shape[0] + X.shape[0]
        with serial_if_small(_work(n_rows, self._n_nodes(), X.shape[1], 0)):
            return self._add_rows(X, T)

    def _add_row_sums(self, X, y):
        """``add_rows`` from the rows' Gram sums (``_row_sums``) into the primal state."""
        if self.feature_nodes_ is not None:  # Dask rows into a model that keeps its rows
            rows, coding = self._training_rows(X, y, self.sparse_weights_.dtype, reset=False)
            if self._n_learned() + rows.count() < self._n_nodes():  # few: learned in memory
                X, T = rows.gather(self._readout_coding(coding))
                with serial_if_small(_work(self._n_learned() + len(X), self._n_nodes(),
                                           X.shape[1], 0)):
                    return self._add_rows(X, T)
            self._drop_rows()
        gram = self._kept_gram()
        sums = self._row_sums(X, y)
        gram.K += sums.AtA
        gram.rhs += sums.AtT
        self._rows_learned += sums.n
        with serial_if_small(float(self._n_nodes()) ** 3 / 3):
            return self._solve()

    def _add_rows(self, X, T):
        Z_new = self._feature_nodes(self._scale_inputs(X))
        Z_old, gram = self.feature_nodes_, self.gram_
        self.feature_nodes_ = np.vstack([Z_old, Z_new])
        self.targets_ = np.vstack([self.targets_, T])
        if gram is None or gram.form != self._preferred_form():
            self.gram_ = self._build_gram(self._preferred_form())
        elif gram.form == "primal" and Z_new.dtype == np.float32:
            _gram_update_f32(gram.K, gram.rhs, self._broad_blocks(Z_new), T)
        elif gram.form == "primal":
            for r0, r1, block in self._broad_blocks(Z_new):
                _gram_update(gram.K, block)
                gram.rhs += block.T @ T[r0:r1]
        else:
            n_old, n_new = Z_old.shape[0], Z_new.shape[0]
            I_all = next(self._broad_blocks(self.feature_nodes_, rows=n_old + n_new))[2]
            I_old, I_new = I_all[:n_old], I_all[n_old:]
            K = np.zeros((n_old + n_new, n_old + n_new), order="F")
            K[:n_old, :n_old] = gram.K
            K[:n_old, n_old:] = I_old @ I_new.T
            K[n_old:, n_old:] = add_to_diagonal(I_new @ I_new.T, self.reg)
            self.gram_ = BroadGram("dual", K, np.vstack([gram.rhs, T]))
        return self._solve()


    def remove_rows(self, rows: Sequence[int] | np.ndarray | Any,
                    y: ArrayLike | None = None) -> Self:
        """Forget learned rows exactly (a deletion request): the readout becomes the one trained
        on the remaining rows, with the same windows, scalings and nodes.

        ``rows`` indexes or masks the rows learned so far, in the order learned (those of
        ``feature_nodes_``). The primal Gram loses I_rᵀI_r and I_rᵀT_r (float32: rebuilt from
        the remaining rows); the dual one its rows and columns r. ValueError, with nothing
        changed, when the remaining system is not positive definite (reg = 0 and fewer
        independent rows than nodes). No row selected: nothing changes.

        A model fitted on Dask keeps no rows: pass the rows to forget as data,
        ``remove_rows(X, y)`` (Dask collections or arrays); the primal Gram loses their sums.
        Only the sums are kept, so that the rows were learned cannot be checked: refused are
        as many rows as were learned or more, and rows whose sum of squares of a column of I
        exceeds the learned one; other rows not learned are subtracted all the same.

        Parameters
        ----------
        rows : array-like of int or bool, or (fitted on Dask) X of the rows to forget
            Positions (or a mask) among the rows learned so far.
        y : array-like or Dask collection, optional
            The targets of the rows to forget, for a model fitted on Dask only.

        Returns
        -------
        self
        """
        self._check_unchanged()
        if self.feature_nodes_ is None:
            if y is None:
                raise ValueError("rows: this model keeps no rows (fitted on Dask collections); "
                                 "pass the rows to forget as data, remove_rows(X, y)")
            return self._remove_row_sums(rows, y)
        if y is not None:
            raise ValueError("y: this model keeps the rows it learned; pass rows as their "
                             "positions (or a mask) among them, without y")
        n = self.feature_nodes_.shape[0]
        try:
            index = np.unique(np.arange(n)[rows])
        except IndexError as error:
            raise ValueError(f"rows must index the {n} rows learned: {error}") from None
        if index.size == 0:  # nothing to forget
            return self
        keep = np.setdiff1d(np.arange(n), index)
        if keep.size == 0:
            raise ValueError("cannot remove every learned row")
        before = (self.feature_nodes_, self.targets_, self.gram_, self.beta_)
        Z_gone, T_gone = self.feature_nodes_[index], self.targets_[index]
        self.feature_nodes_, self.targets_ = self.feature_nodes_[keep], self.targets_[keep]
        gram = self.gram_
        with serial_if_small(_work(n, self._n_nodes(), 0, 0)):
            if gram is None or gram.form != self._preferred_form() or \
                    gram.form == "primal" and Z_gone.dtype == np.float32:
                self.gram_ = self._build_gram(self._preferred_form())
            elif gram.form == "primal":
                K, rhs = np.array(gram.K, order="F"), gram.rhs.copy()
                for r0, r1, block in self._broad_blocks(Z_gone):
                    K -= block.T @ block  # (only the upper triangle is used)
                    rhs -= block.T @ T_gone[r0:r1]
                self.gram_ = BroadGram("primal", K, rhs)
            else:
                self.gram_ = BroadGram("dual", np.asfortranarray(gram.K[np.ix_(keep, keep)]),
                                       gram.rhs[keep])
            try:
                cho_factor(self.gram_.K, lower=False, check_finite=False)
            except np.linalg.LinAlgError:
                self.feature_nodes_, self.targets_, self.gram_, self.beta_ = before
                raise ValueError(f"removing these {index.size} rows leaves the readout's ridge "
                                 f"system singular at reg={self.reg:g}; increase reg") from None
            return self._solve()

    def _remove_row_sums(self, X, y):
        """``remove_rows`` of a model that keeps no rows: the primal state loses the sums of the
        rows X, y."""
        gram = self._kept_gram()
        sums = self._row_sums(X, y)
        if sums.n >= self._n_learned():
            raise ValueError(f"X: {sums.n} rows to forget, but this model learned "
                             f"{self._n_learned()}; cannot remove every learned row")
        K = np.asfortranarray(gram.K - sums.AtA)
        # K_jj − C is the remaining rows' Σ I_ij² ≥ 0: below it (beyond the sums' round-off)
        # the rows given were not all learned; subtler mismatches cannot be seen in the sums
        rtol = 1e-8 if self.sparse_weights_.dtype == np.float64 else 1e-4
        if (np.diag(K) - self.reg < -rtol * np.diag(gram.K)).any():
            raise ValueError(f"X, y: these {sums.n} rows are not all among the rows this model "
                             "learned (their sums of squares exceed the learned ones)")
        try:
            cho_factor(K, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            raise ValueError(f"removing these {sums.n} rows leaves the readout's ridge "
                             f"system singular at reg={self.reg:g}; increase reg") from None
        self.gram_ = BroadGram("primal", K, gram.rhs - sums.AtT)
        self._rows_learned -= sums.n
        with serial_if_small(float(self._n_nodes()) ** 3 / 3):
            return self._solve()


class BLSRegressor(RegressorOutputs, RegressorMixin, _BLS):
    """Broad Learning System regressor, single or multi-output, with incremental learning (``add_enhancement_nodes``, ``partial_fit``).

    Parameters
    ----------
    n_windows : int, default=10
        Number n of feature windows (sparse autoencoders).
    nodes_per_window : int, default=10
        Feature nodes k per window; Z has n·k columns.
    n_enhancement : int, default=1000
        Enhancement nodes q (the reference MNIST demo uses 11000, the fMRI paper 2000).
    shrink : float, default=0.8
        s in the enhancement shrink l = s / max(H2 Wh).
    reg : float, default=2**-30
        Ridge penalty C of the readout, (IᵀI + C·I)⁻¹ IᵀT.
    sparse_lambda : float, default=1e-3
        L1 weight lam of the sparse autoencoder (ADMM, 50 steps, rho = 1).
    preprocessing : {'minmax', 'reference'}, default='minmax'
        'reference' reproduces the reference code exactly: each sample z-scored, A = H1 We
        min-max scaled per row within each window, class targets ±1. 'minmax' scales each input
        column to [0, 1] (training minima and maxima), A per column, and codes classes one-hot
        0/1 (module docstring).
    direct_links : bool, default=False
        Put the scaled inputs X' beside the broad layer in the readout, I = [X' | Z | E] (the
        RVFL form): on wide data (connectomes) the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds every We (window by window), then Wh, then the Wh of later
        ``add_enhancement_nodes`` calls, from one Generator.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the broad layer and its Gram product (K and the Cholesky solve are
        float64). float32 halves the Gram time, but its round-off needs a larger reg, growing
        with the rows: too small a reg raises LinAlgError. Accuracy, time and memory of both on
        MNIST: docs/results/precision.md. Dask input: the Gram sums are float64 either way.
    layer_rows : int or 'auto', default='auto'
        Rows the label-free layer (input scaling, windows, enhancement shrink) is learned from:
        that many distinct rows drawn uniformly (sorted positions, the first draws of
        ``random_state``), the readout still from every row. 'auto': every row in memory;
        min(n, 10000) of Dask input, which is gathered here. More than the rows: ValueError.

    Attributes
    ----------
    mapping_weights_ : (d+1, n·k) the random We, window i in columns i·k … (i+1)·k
    sparse_weights_ : (d+1, n·k) the sparse autoencoders' W_Dᵀ: Z = [X', 0.1] @ this
    feature_offset_, feature_gain_ : (n·k,) the feature windows' min-max scaling to [0, 1]
    x_offset_, x_gain_ : (d,) input min-max scaling ('minmax' preprocessing only)
    enhancement_weights_ : list of (n·k+1, q_g) orthonormal Wh, one per enhancement group
    enhancement_shrink_ : list of the groups' shrinks l_g
    beta_ : (n_nodes_, m) the readout; rows follow I = [Z | E_1 | E_2 …]
    feature_nodes_, targets_ : Z ([X', Z] with direct links) and the coded targets of every row
        learned (for increments); None when fitted on Dask (the rows stay on the workers, and
        the increments take them as data)
    gram_ : BroadGram, the kept normal equations (K is n_nodes_² or rows², float64; set it to
        None to free the memory, and the next increment rebuilds it from feature_nodes_)
    rng_ : the Generator, advanced past every draw so far

    Examples
    --------
    >>> import numpy as np
    >>> from fastelm.bls import BLSRegressor
    >>> X = np.linspace(-1, 1, 300)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> BLSRegressor(n_enhancement=100, reg=1e-6, random_state=0).fit(X, y).score(X, y) > 0.99
    True
    
    References
    ----------
    Chen & Liu (2018), Broad learning system: an effective and efficient incremental learning
    system without the need for deep architecture. IEEE TNNLS 29(1), 10-24.
    """

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Fit on the first call; afterwards learn the new rows (``add_rows``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        if not hasattr(self, "beta_"):
            return self._fit(X, y)
        return self.add_rows(X, y)


class BLSClassifier(ClassifierOutputs, ClassifierMixin, _BLS):
    """Broad Learning System classifier (least-squares readout on class targets; ``predict_proba`` is the softmax of the scores), with incremental learning.

    Parameters
    ----------
    n_windows : int, default=10
        Number n of feature windows (sparse autoencoders).
    nodes_per_window : int, default=10
        Feature nodes k per window; Z has n·k columns.
    n_enhancement : int, default=1000
        Enhancement nodes q (the reference MNIST demo uses 11000, the fMRI paper 2000).
    shrink : float, default=0.8
        s in the enhancement shrink l = s / max(H2 Wh).
    reg : float, default=2**-30
        Ridge penalty C of the readout, (IᵀI + C·I)⁻¹ IᵀT.
    sparse_lambda : float, default=1e-3
        L1 weight lam of the sparse autoencoder (ADMM, 50 steps, rho = 1).
    preprocessing : {'minmax', 'reference'}, default='minmax'
        'reference' reproduces the reference code exactly: each sample z-scored, A = H1 We
        min-max scaled per row within each window, class targets ±1. 'minmax' scales each input
        column to [0, 1] (training minima and maxima), A per column, and codes classes one-hot
        0/1 (module docstring).
    direct_links : bool, default=False
        Put the scaled inputs X' beside the broad layer in the readout, I = [X' | Z | E] (the
        RVFL form): on wide data (connectomes) the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds every We (window by window), then Wh, then the Wh of later
        ``add_enhancement_nodes`` calls, from one Generator.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the broad layer and its Gram product (K and the Cholesky solve are
        float64). float32 halves the Gram time, but its round-off needs a larger reg, growing
        with the rows: too small a reg raises LinAlgError. Accuracy, time and memory of both on
        MNIST: docs/results/precision.md. Dask input: the Gram sums are float64 either way.
    layer_rows : int or 'auto', default='auto'
        Rows the label-free layer (input scaling, windows, enhancement shrink) is learned from:
        that many distinct rows drawn uniformly (sorted positions, the first draws of
        ``random_state``), the readout still from every row. 'auto': every row in memory;
        min(n, 10000) of Dask input, which is gathered here. More than the rows: ValueError.

    Attributes
    ----------
    mapping_weights_ : (d+1, n·k) the random We, window i in columns i·k … (i+1)·k
    sparse_weights_ : (d+1, n·k) the sparse autoencoders' W_Dᵀ: Z = [X', 0.1] @ this
    feature_offset_, feature_gain_ : (n·k,) the feature windows' min-max scaling to [0, 1]
    x_offset_, x_gain_ : (d,) input min-max scaling ('minmax' preprocessing only)
    enhancement_weights_ : list of (n·k+1, q_g) orthonormal Wh, one per enhancement group
    enhancement_shrink_ : list of the groups' shrinks l_g
    beta_ : (n_nodes_, m) the readout; rows follow I = [Z | E_1 | E_2 …]
    feature_nodes_, targets_ : Z ([X', Z] with direct links) and the coded targets of every row
        learned (for increments); None when fitted on Dask (the rows stay on the workers, and
        the increments take them as data)
    gram_ : BroadGram, the kept normal equations (K is n_nodes_² or rows², float64; set it to
        None to free the memory, and the next increment rebuilds it from feature_nodes_)
    rng_ : the Generator, advanced past every draw so far
    classes_ : sorted class labels

    Examples
    --------
    >>> from sklearn.datasets import load_digits
    >>> from fastelm.bls import BLSClassifier
    >>> X, y = load_digits(return_X_y=True)
    >>> model = BLSClassifier(n_enhancement=500, reg=1e-3, random_state=0).fit(X[:1500], y[:1500])
    >>> model.score(X[1500:], y[1500:]) > 0.9
    True
    
    References
    ----------
    Chen & Liu (2018), Broad learning system: an effective and efficient incremental learning
    system without the need for deep architecture. IEEE TNNLS 29(1), 10-24.
    """

    def _code_targets(self, T):
        return 2 * T - 1 if self.preprocessing_ == "reference" else T

    def _readout_coding(self, coding):
        return SignedTargets(coding) if self.preprocessing_ == "reference" else coding

    def partial_fit(self, X: ArrayLike, y: ArrayLike, classes: ArrayLike | None = None
                    ) -> Self:
        """Fit on the first call; afterwards learn the new rows (``add_rows``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, default=None
            Every label ever to appear; required on the first call.

        Returns
        -------
        self
        """
        first = not hasattr(self, "beta_")
        self._check_first_call(X, y, classes)
        return self._fit(X, y, classes=classes) if first else self.add_rows(X, y)
