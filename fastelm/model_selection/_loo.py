"""Exact leave-one-out and generalised cross-validation of a ridge readout, every penalty from
one eigendecomposition (docs/algorithms.md §1, "Leave-one-out and GCV").

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

Every α costs O(n·r·m) after the one O(min(n, p)³) decomposition; a nested width needs its own
decomposition (the eigenvectors of a leading block are not those of the whole). The scores,
higher is better: −PRESS / (n·m), minus the mean squared leave-one-out residual of the readout
targets (what ``GridSearchCV(cv=LeaveOneOut(), scoring='neg_mean_squared_error')`` reports),
and −GCV / m. Eigenvalues below zero (round-off) are set to zero; a row with h_ii = 1 (α → 0
with p ≥ n) scores NaN and ranks last.
"""
from __future__ import annotations

import numpy as np

#: the cv strings the hat-matrix algebra serves
HAT_CV = ("loo", "gcv")


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
    alphas = np.asarray(alphas, dtype=np.float64)
    numerator = np.ones_like(lam) if primal else lam
    filters = numerator[:, None] / (lam[:, None] + alphas[None, :])  # r×n_α
    C = B.T @ T
    fitted = (B @ (filters[:, :, None] * C[:, None, :]).reshape(len(lam), -1)
              ).reshape(n, len(alphas), m)
    residual = T[:, None, :] - fitted
    with np.errstate(divide="ignore", invalid="ignore"):
        if kind == "loo":
            leverage = (B * B) @ filters  # n×n_α
            press = ((residual / (1.0 - leverage)[:, :, None]) ** 2).sum(axis=(0, 2))
            scores = -press / (n * m)
        else:
            trace = (lam[:, None] * filters if primal else filters).sum(axis=0)
            scores = -n * (residual ** 2).sum(axis=(0, 2)) / (n - trace) ** 2 / m
    return np.where(np.isfinite(scores), scores, np.nan)
