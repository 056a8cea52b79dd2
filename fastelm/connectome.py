"""Connectome features of ROI time series: Fisher-z correlation, correlation, partial
correlation and tangent space, all vectorised by one triangle convention.

One convention: :func:`sym_matrix_to_vec` keeps the strict upper triangle of each symmetric
M×M matrix in ``np.triu_indices(M, k=1)`` (row-major) order, M(M−1)/2 values, and
:func:`vec_to_sym_matrix` inverts it. Every connectome vector of fastelm is in this order: the
reader's :func:`connectivity_features` (``load_roi_dataset(features='connectivity')``) and
:class:`ConnectomeTransformer`. nilearn's ``sym_matrix_to_vec(..., discard_diagonal=True)``
holds the same values in another order (the strict lower triangle, row-major).

:func:`connectivity_features` maps each subject's (T × M) series to arctanh(clip(r)) of its
Pearson correlations r (no shrinkage), the classic functional-connectivity features.

:class:`ConnectomeTransformer` is a scikit-learn transformer from a list of subjects' (T_i × M)
series to one feature vector per subject. It computes the values of nilearn's
``ConnectivityMeasure(kind=..., vectorize=True, discard_diagonal=True)`` (the field's
standard; Varoquaux et al., MICCAI 2010; Abraham et al., NeuroImage 2017), in the order above,
faster:

* every subject's covariance is the Ledoit-Wolf shrunk estimate (scikit-learn's
  ``LedoitWolf``): with X the centred series (T × M), S = XᵀX / T, μ = tr(S) / M and the
  shrinkage s of Ledoit & Wolf (2004), C = (1 − s)·S + s·μ·I;
* ``'correlation'``: C of the z-scored series (ddof = 1) turned into a correlation matrix;
  ``'partial correlation'``: −C⁻¹ normalised to unit diagonal;
* ``'tangent'``: fitted on the training subjects only, G = their geometric (log-Euclidean
  Riemannian) mean by nilearn's gradient descent (Fletcher & Joshi 2007, at most 30 steps,
  stopped when ‖mean_k log(G^{-1/2} C_k G^{-1/2})‖_F / M² < 1e-7, the step halved when the
  gradient norm grows), then for any subject log(W C W) with the whitening W = G^{-1/2}.

Why it is faster than nilearn's loop over subjects (measured on 126 and 764 ABIDE subjects ×
200 ROIs in ``benchmarks/bench_connectome.py``): each gradient step of the geometric mean
needs one symmetric eigendecomposition per subject. Here they run as batched LAPACK ``syevd``
calls on stacks of subjects (nilearn calls SciPy's ``eigh`` one matrix at a time with the
slower ``syevr`` driver and input checks), the whitening G^{-1/2} C_k G^{-1/2} is one batched
product, and the mean of the logarithms Σ_k V_k log(Λ_k) V_kᵀ is a single (M × nM)·(nM × M)
product instead of n small ones. ``fit_transform`` computes each training subject's covariance once.
"""
from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg.blas import get_blas_funcs
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import Interval, StrOptions, check_parameter

if TYPE_CHECKING:
    from typing_extensions import Self

# several subjects' (T_i × M) series: a list of arrays or an (n, T, M) array
Series = np.ndarray | Sequence[ArrayLike]

__all__ = ["KINDS", "ConnectomeTransformer", "connectivity_features", "ledoit_wolf_covariances",
           "geometric_mean", "as_series_list", "sym_matrix_to_vec", "vec_to_sym_matrix"]

KINDS = ("correlation", "partial correlation", "tangent")
GMEAN_MAX_ITER, GMEAN_TOL = 30, 1e-7  # nilearn's settings of its tangent-space mean
# joblib's n_jobs: None or k >= 1 threads, -1 every CPU, -2 all but one, ...; 0 has no meaning
N_JOBS = [None, Interval(Integral, 1, None, closed="left"),
          Interval(Integral, None, -1, closed="right")]
CHUNK = 32  # subjects per batched eigendecomposition (bounds memory: 3 stacks of CHUNK·M²)
_syrk = get_blas_funcs("syrk", dtype=np.float64)


def sym_matrix_to_vec(matrices: ArrayLike) -> np.ndarray:
    """Symmetric matrices (..., M, M) -> their strict upper triangles (..., M(M−1)/2).

    v = [C[i, j] for i < j] in ``np.triu_indices(M, k=1)`` (row-major) order: the one
    vectorisation of connectomes in fastelm (the reader's connectivity features,
    :class:`ConnectomeTransformer`, the deep comparators). nilearn's ``sym_matrix_to_vec``
    holds the same values in another order (the strict lower triangle, row-major).

    Parameters
    ----------
    matrices : array-like of shape (..., M, M)

    Returns
    -------
    ndarray of shape (..., M(M−1)/2)
    """
    C = np.asarray(matrices)
    if C.ndim < 2 or C.shape[-1] != C.shape[-2]:
        raise ValueError(f"expected square matrices (..., M, M), got shape {C.shape}")
    i, j = np.triu_indices(C.shape[-1], k=1)
    return C[..., i, j]


def vec_to_sym_matrix(vectors: ArrayLike, diagonal: float = 0.0) -> np.ndarray:
    """Strict upper triangles (..., M(M−1)/2) -> symmetric matrices (..., M, M): the inverse of
    :func:`sym_matrix_to_vec`, C[i, j] = C[j, i] = v_k, C[i, i] = ``diagonal``.

    Parameters
    ----------
    vectors : array-like of shape (..., M(M−1)/2)
    diagonal : float, default=0.0

    Returns
    -------
    ndarray of shape (..., M, M)
    """
    v = np.asarray(vectors)
    n_values = v.shape[-1] if v.ndim else -1
    M = int(round((1 + np.sqrt(1 + 8 * max(n_values, 0))) / 2))
    if v.ndim == 0 or M * (M - 1) // 2 != n_values:
        raise ValueError(f"{n_values} values are not M(M-1)/2 for an integer M "
                         "(a strict triangle of an M×M connectome)")
    C = np.full(v.shape[:-1] + (M, M), diagonal, dtype=np.result_type(v.dtype, np.float64)
                if v.dtype.kind in "biu" else v.dtype)
    i, j = np.triu_indices(M, k=1)
    C[..., i, j] = v
    C[..., j, i] = v
    return C


def _check_eps(eps):
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating, np.integer)) \
            or not 0.0 < eps < 1.0:
        raise ValueError(f"eps must be a number in (0, 1), got {eps!r}")


def _fisher_z_upper(series, eps):
    """arctanh(clip(Pearson r, -1+eps, 1-eps)) of one T×M series, vectorised by
    :func:`sym_matrix_to_vec`.

    Columns are centred and divided by their largest magnitude before the sums of squares,
    which leaves r unchanged and keeps ROIs near 1e-170 or 1e200 from under- or overflowing.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = _column_scaled(series)
    constant = np.flatnonzero(~np.isfinite(scaled).all(axis=0) | (np.ptp(series, axis=0) == 0))
    if constant.size:
        raise ValueError(f"constant ROI column(s) {constant.tolist()}: correlation undefined")
    norms = np.sqrt(np.einsum("tm,tm->m", scaled, scaled))
    unit = scaled / norms
    r = unit.T @ unit
    return np.arctanh(np.clip(sym_matrix_to_vec(r), -1.0 + eps, 1.0 - eps))


def connectivity_features(series: Series, *, eps: float = 1e-7) -> np.ndarray:
    """Functional-connectivity features: Fisher-z of the Pearson correlations between ROIs.

    For a T×M series, r = Pearson correlation matrix of the M columns; the features are
    ``arctanh(clip(r[i, j], -1 + eps, 1 - eps))`` for i < j in ``np.triu_indices(M, k=1)``
    order (:func:`sym_matrix_to_vec`), M(M-1)/2 values. :func:`vec_to_sym_matrix` gives the
    matrices back (zero diagonal).

    Parameters
    ----------
    series : array of shape (T, M), array of shape (n, T, M), or a list of (T_i, M) arrays
        One subject or several (lengths may differ in a list). T >= 2.
    eps : float, default 1e-7
        Clipping margin that keeps arctanh finite (|z| <= arctanh(1 - eps) ≈ 8.4).

    Returns
    -------
    ndarray of shape (M(M-1)/2,) for one subject, or (n, M(M-1)/2), float64.

    Raises
    ------
    ValueError
        A constant ROI column, non-finite values, fewer than 2 time points or 2 ROIs.
    """
    _check_eps(eps)
    single = isinstance(series, np.ndarray) and series.ndim <= 2  # one subject, or bad shape
    subjects = [series] if single else list(series)
    out = []
    for k, s in enumerate(subjects):
        s = np.asarray(s, dtype=np.float64)
        if s.ndim != 2 or s.shape[0] < 2 or s.shape[1] < 2:
            raise ValueError(
                f"subject {k}: expected a (T, M) series with T >= 2, M >= 2, got shape {s.shape}"
            )
        if not np.all(np.isfinite(s)):
            raise ValueError(f"subject {k}: series contains NaN or inf")
        try:
            out.append(_fisher_z_upper(s, eps))
        except ValueError as exc:
            raise ValueError(f"subject {k}: {exc}") from None
    if single:
        return out[0]
    if not out:
        raise ValueError("no subjects given")
    if len({f.shape[0] for f in out}) != 1:
        raise ValueError("subjects have different numbers of ROIs")
    return np.vstack(out)


def _column_scaled(series):
    """Centred columns divided by their largest magnitude: a correlation-preserving copy whose
    sums of squares neither underflow (ROIs near 1e-170) nor overflow (near 1e200)."""
    centred = series - series.mean(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return centred / np.abs(centred).max(axis=0)


def _n_threads(n_jobs):
    if n_jobs is None:
        return 1
    return max(1, os.cpu_count() + 1 + n_jobs if n_jobs < 0 else n_jobs)


def single_threaded_blas() -> AbstractContextManager:
    """BLAS on one thread inside each worker of a thread pool (threadpoolctl)."""
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1, user_api="blas")


def as_series_list(X: Series, name: str = "X") -> list[np.ndarray]:
    """A list of 2-D float64 (T_i × M) arrays from a list, an object array or a 3-D array."""
    if isinstance(X, np.ndarray) and X.dtype != object:
        if X.ndim == 2:
            raise ValueError(f"{name}: expected several subjects' series, got one 2-D array; "
                             "pass a list of (T, M) arrays")
        if X.ndim != 3:
            raise ValueError(f"{name}: expected (n_subjects, T, M) or a list of (T, M) arrays, "
                             f"got shape {X.shape}")
    try:
        subjects = [np.asarray(s, dtype=np.float64) for s in X]
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name}: expected a list of (T, M) numeric arrays ({exc})") from None
    if not subjects:
        raise ValueError(f"{name}: no subjects")
    M = subjects[0].shape[-1] if subjects[0].ndim == 2 else None
    for k, s in enumerate(subjects):
        if s.ndim != 2 or s.shape[0] < 2 or s.shape[1] < 2:
            raise ValueError(f"{name}: subject {k} has shape {s.shape}; expected (T, M) with "
                             "T >= 2 time points and M >= 2 ROIs")
        if s.shape[1] != M:
            raise ValueError(f"{name}: subject {k} has {s.shape[1]} ROIs, subject 0 has {M}")
        if not np.isfinite(s).all():
            raise ValueError(f"{name}: subject {k} has NaN or infinite values")
    return subjects


def _ledoit_wolf(X):
    """scikit-learn's ``LedoitWolf().fit(X).covariance_`` for one T × M series X."""
    n, p = X.shape
    X = X - X.mean(axis=0)
    S = X.T @ X / n
    trace = np.einsum("ii->i", S).copy()  # emp_cov_trace = Σ_t x_ti² / n
    mu = trace.sum() / p
    row_sq = np.einsum("ti,ti->t", X, X)
    beta_ = float(row_sq @ row_sq)  # Σ (X²)ᵀX² = Σ_t (Σ_i x_ti²)²
    delta_ = float(np.einsum("ij,ij->", S, S))  # Σ (XᵀX)² / n²
    beta = 1.0 / (p * n) * (beta_ / n - delta_)
    delta = (delta_ - 2.0 * mu * trace.sum() + p * mu ** 2) / p
    beta = min(beta, delta)
    shrinkage = 0.0 if beta == 0 else beta / delta
    C = (1.0 - shrinkage) * S
    C[np.diag_indices(p)] += shrinkage * mu
    return C


def _zscore(x):
    """Columns centred and divided by their sd (ddof=1; sd < eps: 1). A column whose largest
    centred magnitude m is outside [ZSCORE_SAFE_MIN, ZSCORE_SAFE_MAX] is divided by m first
    (the z-score does not change), so that its squares neither overflow nor underflow, as
    ``connectivity_features`` copes with series of 1e200 or 1e-170."""
    from ._kernels.bls import ZSCORE_SAFE_MAX, ZSCORE_SAFE_MIN

    x = x - x.mean(axis=0)
    m = np.abs(x).max(axis=0)
    outside = (m > 0) & ((m > ZSCORE_SAFE_MAX) | (m < ZSCORE_SAFE_MIN))
    if outside.any():
        x = x / np.where(outside, m, 1.0)
    sd = x.std(axis=0, ddof=1)
    sd[sd < np.finfo(np.float64).eps] = 1.0
    return x / sd


def ledoit_wolf_covariances(series: Series, standardize: bool = False) -> np.ndarray:
    """Stack (n × M × M) of each subject's Ledoit-Wolf covariance (of the z-scored series when
    ``standardize``, as nilearn's correlation kind)."""
    return np.stack([_ledoit_wolf(_zscore(s) if standardize else s) for s in series])


def _check_positive_definite(C, series, kind):
    """A one-line ValueError naming the first subject whose covariance ``kind`` cannot use:
    not finite (its values overflow when squared) or not positive definite (too few time
    points for its ROIs, or collinear ROIs)."""
    for k, (c, s) in enumerate(zip(C, series)):
        if not np.isfinite(c).all():
            raise ValueError(f"X: subject {k}: its covariance is not finite (values up to "
                             f"{np.abs(s).max():.3g} overflow when squared); kind={kind!r} "
                             "needs it: rescale the series")
        try:
            np.linalg.cholesky(c)
        except np.linalg.LinAlgError:
            raise ValueError(f"X: subject {k}: its covariance ({s.shape[0]} time points, "
                             f"{s.shape[1]} ROIs, values up to {np.abs(s).max():.3g}) is not "
                             f"positive definite; kind={kind!r} needs it: drop the subject, "
                             "rescale its series or use kind='correlation'") from None


def _cov_to_corr(C):
    d = 1.0 / np.sqrt(np.einsum("nii->ni", C))
    R = C * d[:, :, None] * d[:, None, :]
    R[:, np.arange(C.shape[1]), np.arange(C.shape[1])] = 1.0
    return R


def _sym_function(w, V, f):
    """V f(w) Vᵀ for a batch (or one) of eigendecompositions."""
    return np.matmul(V * f(w)[..., None, :], np.swapaxes(V, -1, -2))


def _whitened_eigh(C, W, c0, c1):
    """Eigendecompositions of W C_k W for k in [c0, c1), batched (LAPACK syevd)."""
    return np.linalg.eigh(np.matmul(np.matmul(W, C[c0:c1]), W))


def _log_sum(C, W, c0, c1):
    """Σ_{k in [c0, c1)} log(W C_k W) = Σ_k V_k log(Λ_k) V_kᵀ, as two BLAS syrk over the
    columns of positive and of negative log-eigenvalue (half the flops of one product)."""
    w, V = _whitened_eigh(C, W, c0, c1)
    M = C.shape[1]
    logw = np.log(w).reshape(-1)
    V = np.swapaxes(V, 0, 1).reshape(M, -1)  # M × (c·M): every eigenvector of the chunk
    out = np.zeros((M, M), order="F")
    for sign in (1.0, -1.0):
        cols = np.flatnonzero(sign * logw > 0)
        if cols.size:
            B = V[:, cols] * np.sqrt(sign * logw[cols])
            out = _syrk(sign, B, beta=1.0, c=out, overwrite_c=1)
    return out


def _log_whitened(C, W, out_sum=None, n_jobs=None):
    """log(W C_k W) for the stack C; with ``out_sum``, only their sum, added into it.

    Chunks of CHUNK subjects run in ``n_jobs`` threads (LAPACK and BLAS release the GIL)."""
    chunks = [(c0, min(c0 + CHUNK, C.shape[0])) for c0 in range(0, C.shape[0], CHUNK)]
    threads = min(len(chunks), _n_threads(n_jobs))
    if out_sum is not None:
        if threads > 1:
            with ThreadPoolExecutor(threads) as pool, single_threaded_blas():
                parts = list(pool.map(lambda c: _log_sum(C, W, *c), chunks))
        else:
            parts = [_log_sum(C, W, *c) for c in chunks]
        for part in parts:
            out_sum += np.triu(part) + np.triu(part, 1).T
        return out_sum
    logs = np.empty_like(C)

    def one(c):
        w, V = _whitened_eigh(C, W, *c)
        logs[c[0]:c[1]] = _sym_function(w, V, np.log)

    if threads > 1:
        with ThreadPoolExecutor(threads) as pool, single_threaded_blas():
            list(pool.map(one, chunks))
    else:
        for c in chunks:
            one(c)
    return logs


def geometric_mean(C: np.ndarray, max_iter: int = GMEAN_MAX_ITER, tol: float = GMEAN_TOL,
                   n_jobs: int | None = None) -> np.ndarray:
    """Geometric mean of the SPD stack C (n × M × M) by nilearn's gradient descent.

    From G = the arithmetic mean, each step: L = mean_k log(G^{-1/2} C_k G^{-1/2});
    G ← G^{1/2} exp(step·L) G^{1/2}; the step is halved when ‖L‖_F grows; stop when
    ‖L‖_F / M² < tol (a warning after ``max_iter`` steps), as ``nilearn.connectome``'s
    ``_geometric_mean`` (Fletcher & Joshi 2007, Algorithm 3). ``n_jobs`` threads share the
    subjects' eigendecompositions (the result does not depend on it).
    """
    check_parameter(n_jobs, "n_jobs", N_JOBS)
    n, M = C.shape[0], C.shape[1]
    try:
        np.linalg.cholesky(C)
    except np.linalg.LinAlgError:
        raise ValueError("covariance matrices are not all positive definite") from None
    G = C.mean(axis=0)
    norm_old, step, norm = np.inf, 1.0, np.inf
    for _ in range(max_iter):
        wg, Vg = np.linalg.eigh(G)
        W = _sym_function(1.0 / wg, Vg, np.sqrt)
        L = _log_whitened(C, W, out_sum=np.zeros((M, M)), n_jobs=n_jobs) / n
        if np.isnan(L).any():
            raise FloatingPointError("NaN after the matrix logarithm of whitened covariances")
        norm = np.linalg.norm(L)
        wl, Vl = np.linalg.eigh(L)
        root = _sym_function(wg, Vg, np.sqrt)
        G = root @ _sym_function(wl * step, Vl, np.exp) @ root
        if norm < norm_old:
            norm_old = norm
        elif norm > norm_old:
            step /= 2.0
            norm = norm_old
        if tol is not None and norm / G.size < tol:
            break
    if tol is not None and norm / G.size >= tol:
        warnings.warn(f"geometric mean: {max_iter} steps without reaching tol={tol}",
                      RuntimeWarning, stacklevel=2)
    return G


class ConnectomeTransformer(TransformerMixin, BaseEstimator):
    """Subjects' ROI series -> vectorised connectomes (nilearn's ``ConnectivityMeasure`` values).

    Each row is :func:`sym_matrix_to_vec` of a subject's matrix (strict upper triangle,
    row-major); :func:`vec_to_sym_matrix` gives the matrices back.

    Parameters
    ----------
    kind : {'correlation', 'partial correlation', 'tangent'}, default='tangent'
        See the module docstring; only 'tangent' learns from the training subjects (their
        geometric mean); the other two are per-subject maps.
    n_jobs : int or None, default=None
        Threads sharing the subjects' eigendecompositions ('tangent'), counted as joblib does:
        None and 1 one, -1 every CPU, -2 all but one; 0 is refused. The values do not depend
        on it.

    Attributes
    ----------
    mean_ : (M, M) the training subjects' geometric mean ('tangent'), else their mean matrix
    whitening_ : (M, M) G^{-1/2} ('tangent' only, else None)
    n_features_in_ : int, the number of ROIs M

    Examples
    --------
    >>> import numpy as np
    >>> from fastelm.connectome import ConnectomeTransformer
    >>> rng = np.random.default_rng(0)
    >>> series = [rng.standard_normal((50, 6)) for _ in range(8)]
    >>> ConnectomeTransformer(kind="tangent").fit(series[:6]).transform(series[6:]).shape
    (2, 15)

    References
    ----------
    Varoquaux, Baronnet, Kleinschmidt, Fillard & Thirion (2010), Detection of brain functional-
    connectivity difference in post-stroke patients using group-level covariance modeling,
    MICCAI. Ledoit & Wolf (2004), A well-conditioned estimator for large-dimensional covariance
    matrices, J. Multivariate Analysis 88(2).
    """

    _parameter_constraints = {"kind": [StrOptions(set(KINDS))], "n_jobs": N_JOBS}

    def __init__(self, kind: str = "tangent", n_jobs: int | None = None):
        self.kind = kind
        self.n_jobs = n_jobs

    def _matrices(self, X):
        self._validate_params()
        series = as_series_list(X)
        if self.kind == "correlation":
            return _cov_to_corr(ledoit_wolf_covariances(series, standardize=True))
        with np.errstate(over="ignore", invalid="ignore"):  # checked next, subject by subject
            C = ledoit_wolf_covariances(series)
        _check_positive_definite(C, series, self.kind)
        if self.kind == "partial correlation":
            P = -_cov_to_corr(np.linalg.inv(C))
            P[:, np.arange(C.shape[1]), np.arange(C.shape[1])] = 1.0
            return P
        return C

    def fit(self, X: Series, y: object = None) -> Self:
        """Learn the reference (the geometric mean for 'tangent') from the subjects X."""
        self._fit(self._matrices(X))
        return self

    def _fit(self, C):
        self.n_features_in_ = C.shape[1]
        if self.kind == "tangent":
            self.mean_ = geometric_mean(C, n_jobs=self.n_jobs)
            w, V = np.linalg.eigh(self.mean_)
            self.whitening_ = _sym_function(w, V, lambda x: 1.0 / np.sqrt(x))
        else:
            self.mean_ = C.mean(axis=0)
            self.mean_ = 0.5 * (self.mean_ + self.mean_.T)
            self.whitening_ = None

    def transform(self, X: Series) -> np.ndarray:
        """Vectorised connectomes (n × M(M−1)/2, :func:`sym_matrix_to_vec` order) of X."""
        check_is_fitted(self, "mean_")
        C = self._matrices(X)
        if C.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {C.shape[1]} ROIs; the transformer was fitted on "
                             f"{self.n_features_in_}")
        if self.kind == "tangent":
            C = _log_whitened(C, self.whitening_, n_jobs=self.n_jobs)
        return sym_matrix_to_vec(C)

    def fit_transform(self, X: Series, y: object = None) -> np.ndarray:
        """fit then transform, computing each subject's covariance once."""
        C = self._matrices(X)
        self._fit(C)
        if self.kind == "tangent":
            C = _log_whitened(C, self.whitening_, n_jobs=self.n_jobs)
        return sym_matrix_to_vec(C)
