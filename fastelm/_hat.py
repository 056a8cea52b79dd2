"""Penalties of a ridge readout chosen without folds: the data-scaled penalty grid, exact
leave-one-out and generalised cross-validation, every penalty from one eigendecomposition
(docs/algorithms.md §1, "Leave-one-out and GCV").

With readout inputs A (n×p) and targets T (n×m), the ridge fit at penalty α is T̂ = H_α T with
the hat matrix H_α = A (AᵀA + αI)⁻¹ Aᵀ. Take whichever Gram matrix is smaller:

    primal (p ≤ n):  AᵀA = V Λ Vᵀ,  B = A V      H_α = B diag(1 / (λ + α)) Bᵀ
    dual   (p > n):  AAᵀ = U Λ Uᵀ,  B = U        H_α = B diag(λ / (λ + α)) Bᵀ

(B = U Λ^{1/2} in the primal form, so both are H_α = Σ_j u_j u_jᵀ λ_j / (λ_j + α)). With the
filter f_j(α) of the form and C = BᵀT (r×m, computed once):

    T̂(α) = B diag(f(α)) C,   e(α) = T − T̂(α),   h_ii(α) = Σ_j B_ij² f_j(α),
    tr H_α = Σ_j λ_j / (λ_j + α)

and the ridge identity for the fit without row i, e_i / (1 − h_ii), gives

    PRESS(α) = Σ_i ||e_i(α)||² / (1 − h_ii(α))²        (exact leave-one-out)
    GCV(α)   = n ||e(α)||² / (n − tr H_α)²             (Golub, Heath & Wahba 1979)

GCV needs no row: with g_j = ||C_j||² (C_j = vⱼᵀAᵀT in the primal form, from the Gram sums
AᵀA, AᵀT, TᵀT alone; C_j = uⱼᵀT in the dual) and f_j of the form,

    ||e(α)||² = tr TᵀT − Σ_j g_j f_j(α) (λ_j + 2α) / (λ_j + α)

(λ f_j = λ / (λ + α) in both forms, so the sum is Σ ||projection||² (1 − (α/(λ+α))²), written
so that λ_j → 0 stays finite); O(r·m) per α (``gcv_scores``). It needs no eigenvector: one
tridiagonalisation and a tridiagonal solve per α give the same scores at a third of the work
(``tridiagonal_gcv``), and with direct links A = [X | H] both link settings share H's
(``bordered_gcv_sums_scores``; exact leave-one-out likewise, ``bordered_hat_scores``). That
is what lets a plain ``ELMRegressor`` / ``ELMClassifier`` choose its penalty
(``alpha='gcv'``) from the sums its fit makes anyway, on Dask too. Exact leave-one-out costs
O(n·r·m) per α after the one O(min(n, p)³) decomposition; a nested width needs its own
decomposition (the eigenvectors of a leading block are not those of the whole). The scores,
higher is better: −PRESS / (n·m), minus the mean squared leave-one-out residual of the readout
targets (what ``GridSearchCV(cv=LeaveOneOut(), scoring='neg_mean_squared_error')`` reports),
and −GCV / m. Eigenvalues below zero (round-off) are set to zero; a row with h_ii = 1 (α → 0
with p ≥ n) scores NaN and ranks last.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import lapack

#: the penalty rule of a plain ELM's ``alpha``: chosen by GCV from its Gram sums
GCV = "gcv"
#: the cv strings the hat-matrix algebra serves
HAT_CV = ("loo", GCV)
#: the bordered GCV (``bordered_gcv_sums_scores``) from this many columns of H and this many
#: times the d link columns (measured crossover, one thread, 23 penalties: d = 10 at 250
#: columns, d = 72 at 500)
BORDER_MIN_WIDTH, BORDER_MIN_RATIO = 256, 6
#: ``bordered_hat_scores`` takes the penalties in groups whose n×d arrays fit this
BORDER_BLOCK_BYTES = 32 << 20
#: exponents k of the default penalties s·10^k (``scaled_grid``): −8, −7.5, …, 3
PENALTY_EXPONENTS = tuple(np.arange(-16, 7) / 2.0)


def scaled_grid(trace, rows, width):
    """The default penalties α_k = s·10^k (k in ``PENALTY_EXPONENTS``) with s = trace /
    min(rows, width), ``trace`` = tr(AᵀA) of the readout inputs A (rows × width): the mean
    eigenvalue of AᵀA (width ≤ rows) or of AAᵀ (width > rows); s = 1 if it is not a positive
    number (all-zero inputs)."""
    s = float(trace) / min(rows, width)
    if not (np.isfinite(s) and s > 0):
        s = 1.0
    return [s * 10.0 ** k for k in PENALTY_EXPONENTS]


def hat_spectrum(A, T, AtA=None, kernel=None):
    """(B, λ, primal) of the module docstring for readout inputs A (n×p) and targets T, the
    primal form when p ≤ n (from ``AtA`` = AᵀA when given) else the dual (from ``kernel`` =
    AAᵀ when given)."""
    n, p = A.shape
    if p <= n:
        AtA = A.T @ A if AtA is None else AtA
        lam, V = np.linalg.eigh(np.asarray(AtA, dtype=np.float64))
        B = A.astype(np.float64, copy=False) @ V
    else:
        kernel = A @ A.T if kernel is None else kernel
        lam, B = np.linalg.eigh(np.asarray(kernel, dtype=np.float64))
    return B, np.maximum(lam, 0.0), p <= n


def hat_scores(spectrum, T, alphas, kind):
    """Per α the score of ``kind`` ('loo': −PRESS/(n·m), 'gcv': −GCV/m; module docstring)."""
    B, lam, primal = spectrum
    T = np.asarray(T, dtype=np.float64)
    n, m = T.shape
    C = B.T @ T
    if kind == "gcv":
        return gcv_scores(lam, (C * C).sum(axis=1), float(np.einsum("ij,ij->", T, T)), n, m,
                          primal, alphas)
    alphas = np.asarray(alphas, dtype=np.float64)
    fitted, leverage = _ridge_fits(spectrum, B * B, C, alphas)
    return np.array([_hat_score(T, fitted[k], leverage[k], kind) for k in range(len(alphas))])


def _ridge_fits(spectrum, BB, C, alphas):
    """(T̂, h) at each α: the fitted values B diag(f(α)) C (n_α×n×m) and leverages
    Σ_j B_ij² f_j(α) (n_α×n) of the module docstring; ``BB`` = B∘B, ``C`` = BᵀT."""
    B, lam, primal = spectrum
    n, (r, m) = B.shape[0], C.shape
    numerator = np.ones_like(lam) if primal else lam
    filters = numerator[:, None] / (lam[:, None] + alphas[None, :])  # r×n_α
    fitted = (B @ (filters[:, :, None] * C[:, None, :]).reshape(r, -1)).reshape(n, len(alphas), m)
    return np.moveaxis(fitted, 1, 0), (BB @ filters).T


def kernel_scores(K, T, alphas, kind):
    """``hat_scores`` in the dual form from the kernel K = AAᵀ (n×n): GCV by
    ``tridiagonal_gcv`` (no eigenvector), exact leave-one-out from one eigh."""
    T = np.asarray(T, dtype=np.float64)
    if kind == GCV:
        return tridiagonal_gcv(K, T, float(np.einsum("ij,ij->", T, T)), len(T), False, alphas)
    lam, U = np.linalg.eigh(np.asarray(K, dtype=np.float64))
    return hat_scores((U, np.maximum(lam, 0.0), False), T, alphas, kind)


def bordered_hat_scores(spectrum, T, X, alphas, kind):
    """(scores of A = [X | H], scores of H): ``hat_scores`` of both from the spectrum of H
    alone (``hat_spectrum`` of H, either form) and the d columns X. The hat matrix with the
    columns X added is H_α(A) = H_α(H) + W S⁻¹ Wᵀ with, D = diag(1/(λ + α)), X_B = BᵀX,

        primal:  W = X − B D X_B,      S = XᵀX + αI − X_Bᵀ D X_B   (Schur complement)
        dual:    W = √α · B D X_B,     S = I + X_Bᵀ D X_B           (Woodbury)

    so h_ii and T̂ gain w_iᵀS⁻¹w_i and W S⁻¹WᵀT: O(n·r·d) per α instead of a second
    decomposition (worth it while 2·n·d·n_α is below ``bordered_pays``' bound)."""
    B, lam, primal = spectrum
    T, X = np.asarray(T, dtype=np.float64), np.asarray(X, dtype=np.float64)
    n, m = T.shape
    d, r = X.shape[1], len(lam)
    alphas = np.asarray(alphas, dtype=np.float64)
    C, XB, BB = B.T @ T, B.T @ X, B * B
    XtX, XtT = X.T @ X, X.T @ T
    linked, unlinked = np.full(len(alphas), np.nan), np.full(len(alphas), np.nan)
    step = max(1, BORDER_BLOCK_BYTES // (8 * n * (d + m)))  # penalties at a time
    for a0 in range(0, len(alphas), step):
        a = alphas[a0:a0 + step]
        fitted, leverage = _ridge_fits(spectrum, BB, C, a)  # k×n×m, k×n
        D = 1.0 / (lam[:, None] + a[None, :])  # r×k
        DXB = D.T[:, :, None] * XB[None, :, :]  # k×r×d
        U = np.moveaxis((B @ np.moveaxis(DXB, 0, 1).reshape(r, -1)).reshape(n, len(a), d),
                        1, 0)  # B D X_B per penalty: k×n×d
        XBDXB = np.swapaxes(DXB, 1, 2) @ XB  # X_Bᵀ D X_B: k×d×d
        if primal:
            W = X[None] - U
            S = XtX[None] + a[:, None, None] * np.eye(d) - XBDXB
            WtT = XtT[None] - np.swapaxes(DXB, 1, 2) @ C
        else:
            W = np.sqrt(a)[:, None, None] * U
            S = np.eye(d)[None] + XBDXB
            WtT = np.swapaxes(W, 1, 2) @ T
        for j in range(len(a)):
            unlinked[a0 + j] = _hat_score(T, fitted[j], leverage[j], kind)
            try:
                WS = W[j] @ np.linalg.inv(S[j])
            except np.linalg.LinAlgError:
                continue
            linked[a0 + j] = _hat_score(T, fitted[j] + WS @ WtT[j],
                                        leverage[j] + np.einsum("ij,ij->i", WS, W[j]), kind)
    return linked, unlinked


def bordered_pays(n, r, d, n_alphas):
    """Whether ``bordered_hat_scores`` (≈ 2·n·r·d flops per penalty, and the d×d inverse of S:
    ≈ d³) costs less than a second decomposition of the (r + d)-wide form (an eigh: ≈ 5 q³,
    measured, of its Gram block, q = r + d, or of its n×n kernel when wider than the rows:
    q = min(n, r + d)). Wide inputs (d ≥ 2n) therefore never take the border, whose d×d
    arrays per penalty would outgrow the kernel's n×n."""
    return (2.0 * n * r * d + float(d) ** 3) * n_alphas < 5.0 * float(min(n, r + d)) ** 3


def _hat_score(T, fitted, leverage, kind):
    """−PRESS/(n·m) ('loo') or −GCV/m ('gcv') of fitted values T̂ and leverages h_ii."""
    n, m = T.shape
    residual = T - fitted
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "loo":
            score = -np.sum((residual / (1.0 - leverage)[:, None]) ** 2) / (n * m)
        else:
            score = -n * np.sum(residual * residual) / (n - np.sum(leverage)) ** 2 / m
    return float(score) if np.isfinite(score) else np.nan


def gcv_scores(lam, g, TtT, n, m, primal, alphas):
    """−GCV(α)/m per α from the spectrum alone (module docstring): eigenvalues ``lam`` (r),
    g_j = ||C_j||², ``TtT`` = tr TᵀT, n rows, m outputs, the form (``primal``)."""
    lam = np.maximum(np.asarray(lam, dtype=np.float64), 0.0)[:, None]
    alphas = np.asarray(alphas, dtype=np.float64)[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        shrink = 1.0 / (lam + alphas)
        gain = (lam if not primal else 1.0) * shrink * (lam + 2 * alphas) * shrink  # r×n_α
        rss = np.maximum(TtT - (np.asarray(g)[:, None] * gain).sum(axis=0), 0.0)
        trace = (lam * shrink).sum(axis=0)
        scores = -n * rss / (n - trace) ** 2 / m
    return np.where(np.isfinite(scores), scores, np.nan)


def gcv_sums_scores(AtA, AtT, TtT, n, alphas):
    """``gcv_scores`` of the primal form from the Gram sums AᵀA, AᵀT, TᵀT of n rows alone
    (``tridiagonal_gcv``), no row."""
    return tridiagonal_gcv(AtA, AtT, float(np.trace(TtT)), n, True, alphas)


def tridiagonal_gcv(G, R, TtT, n, primal, alphas):
    """−GCV(α)/m per α from one Householder tridiagonalisation G = Q T̃ Qᵀ of the Gram
    matrix (``Tridiagonal``: about a third of an eigendecomposition's work), no eigenvector:

        primal (G = AᵀA, R = AᵀT):  ||e(α)||² = tr TᵀT − bᵀz − α||z||²
        dual   (G = AAᵀ, R = T):    ||e(α)||² = α² ||z||²
        z = (T̃ + αI)⁻¹ b,  b = Qᵀ R,  n − tr H_α = n − r + Σ_j α / (λ_j + α)

    with λ the eigenvalues of T̃ and one O(r·m) tridiagonal solve per α. ``TtT`` = tr TᵀT;
    equals ``gcv_scores`` of the eigendecomposition to round-off."""
    tri = Tridiagonal.of(G)
    return _tridiagonal_scores(tri, tri.rotate(R), TtT, n, primal, alphas)


def bordered_gcv_sums_scores(AtA, AtT, TtT, n, alphas, d):
    """(scores with the first d inputs, scores without them): ``gcv_sums_scores`` of the sums
    of A = [X | H] (d columns of X, direct links) and of H alone, from one tridiagonalisation
    HᵀH = Q T̃ Qᵀ. With C = XᵀX, F = QᵀHᵀX, b = QᵀHᵀT and per α z = (T̃ + αI)⁻¹b,
    Y = (T̃ + αI)⁻¹F, the Schur complement S = C + αI − FᵀY (d×d) gives the bordered solve

        β_X = S⁻¹(XᵀT − Fᵀz),  β_H' = z − Y β_X      (β_H = Q β_H')
        tr (AᵀA + αI)⁻¹ = tr S⁻¹ + Σ_j 1/(λ_j + α) + tr(S⁻¹ YᵀY)

    and ||e||² = tr TᵀT − βᵀAᵀT − α||β||², n − tr H_α = n − p + α tr (AᵀA + αI)⁻¹: O(p·(d +
    m) + d³) per α besides the one tridiagonalisation. Below ``BORDER_MIN_WIDTH`` and
    ``BORDER_MIN_RATIO``·d columns of H, two tridiagonalisations cost less and are used."""
    AtA, AtT = np.asarray(AtA, dtype=np.float64), np.asarray(AtT, dtype=np.float64)
    if AtA.shape[0] - d < max(BORDER_MIN_WIDTH, BORDER_MIN_RATIO * d):  # cheaper: two
        return (gcv_sums_scores(AtA, AtT, TtT, n, alphas),
                gcv_sums_scores(AtA[d:, d:], AtT[d:], TtT, n, alphas))
    TtT, m, p = float(np.trace(TtT)), AtT.shape[1], AtA.shape[0]
    tri = Tridiagonal.of(AtA[d:, d:])
    rotated = tri.rotate(np.hstack([AtT[d:], AtA[d:, :d]]))  # [b | F]
    b, F, C, Rx = rotated[:, :m], rotated[:, m:], AtA[:d, :d], AtT[:d]
    linked = np.full(len(alphas), np.nan)
    for k, alpha in enumerate(np.asarray(alphas, dtype=np.float64)):
        zY = tri.solve(alpha, rotated)
        if zY is None:
            continue
        z, Y = zY[:, :m], zY[:, m:]
        try:
            S_inv = np.linalg.inv(C + alpha * np.eye(d) - F.T @ Y)
        except np.linalg.LinAlgError:
            continue
        beta_x = S_inv @ (Rx - F.T @ z)
        beta_h = z - Y @ beta_x
        rss = TtT - np.sum(beta_x * Rx) - np.sum(beta_h * b) \
            - alpha * (np.sum(beta_x * beta_x) + np.sum(beta_h * beta_h))
        inverse_trace = (np.trace(S_inv) + np.sum(1.0 / (tri.eigenvalues + alpha))
                         + np.sum(S_inv * (Y.T @ Y)))
        linked[k] = _gcv(rss, n - p + alpha * inverse_trace, n, m)
    return (np.where(np.isfinite(linked), linked, np.nan),
            _tridiagonal_scores(tri, b, TtT, n, True, alphas))


def _tridiagonal_scores(tri, b, TtT, n, primal, alphas):
    r, m = b.shape
    scores = np.full(len(alphas), np.nan)
    for k, alpha in enumerate(np.asarray(alphas, dtype=np.float64)):
        z = tri.solve(alpha, b)
        if z is None:
            continue
        zz = float(np.einsum("ij,ij->", z, z))
        rss = TtT - float(np.einsum("ij,ij->", b, z)) - alpha * zz if primal else alpha ** 2 * zz
        dof = n - r + float((alpha / (tri.eigenvalues + alpha)).sum())  # no cancellation
        scores[k] = _gcv(rss, dof, n, m)
    return np.where(np.isfinite(scores), scores, np.nan)


def _gcv(rss, dof, n, m):
    """−GCV/m = −n ||e||² / (n − tr H)² / m (``dof`` = n − tr H)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return -n * max(float(rss), 0.0) / float(dof) ** 2 / m


@dataclass(frozen=True, eq=False)
class Tridiagonal:
    """G = Q T̃ Qᵀ for a symmetric G (r×r): Householder tridiagonalisation (LAPACK sytrd,
    lower), T̃'s diagonal and off-diagonal, its eigenvalues (sterf, no vectors; clipped at
    0) and Q as sytrd's reflectors: Q = H(1)…H(r−1), H(i) acting on rows i+1…r, which are
    a QR factorisation's reflectors below the diagonal of ``reflectors``[1:, :-1]."""

    diagonal: np.ndarray
    off_diagonal: np.ndarray
    eigenvalues: np.ndarray
    reflectors: np.ndarray
    tau: np.ndarray

    @classmethod
    def of(cls, G):
        G = np.asarray(G, dtype=np.float64)
        lwork = max(1, int(lapack.dsytrd_lwork(G.shape[0], lower=1)[0]))
        a, d, e, tau, _ = lapack.dsytrd(G, lower=1, lwork=lwork)
        lam = lapack.dsterf(d, e)[0] if len(d) > 1 else d
        return cls(d, e, np.maximum(lam, 0.0), a, tau)

    def rotate(self, R):
        """QᵀR (r×m)."""
        out = np.array(R, dtype=np.float64, copy=True)
        r, m = out.shape
        if r > 1:
            out[1:] = lapack.dormqr("L", "T", self.reflectors[1:, :-1], self.tau, out[1:],
                                    lwork=64 * max(m, r))[0]
        return out

    def solve(self, alpha, B):
        """(T̃ + αI)⁻¹B: ptsv (LDLᵀ), gtsv's pivoted LU where round-off leaves T̃ + αI
        indefinite; None when singular."""
        d = self.diagonal + alpha
        if len(d) == 1:
            return B / d[0] if d[0] != 0 else None
        z, info = lapack.dptsv(d, self.off_diagonal, B)[2:]
        if info != 0:
            z, info = lapack.dgtsv(self.off_diagonal, d, self.off_diagonal, B)[3:]
        return z if info == 0 else None


def gcv_sums_penalty(sums, alphas=None):
    """The penalty of ``alphas`` (default: ``scaled_grid`` of the sums) with the best GCV
    score from ``fastelm._gram.GramSums`` (n ≥ p, the primal form) alone. The first on ties;
    the largest when every score is NaN."""
    if alphas is None:
        alphas = scaled_grid(np.trace(sums.AtA), sums.n, sums.AtA.shape[0])
    return _best(alphas, gcv_sums_scores(sums.AtA, sums.AtT, sums.TtT, sums.n, alphas))


def gcv_dual_penalty(A, T, alphas=None):
    """As ``gcv_sums_penalty`` for fewer rows than inputs (the dual form), from AAᵀ."""
    A, T = np.asarray(A, dtype=np.float64), np.asarray(T, dtype=np.float64)
    K = A @ A.T
    if alphas is None:
        alphas = scaled_grid(np.trace(K), *A.shape)
    return _best(alphas, kernel_scores(K, T, alphas, GCV))


def _best(alphas, scores):
    if np.all(np.isnan(scores)):
        return float(max(alphas))
    return float(alphas[int(np.nanargmax(scores))])
