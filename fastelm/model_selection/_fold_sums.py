"""Fold sums and the penalty algebra: each fold's ridge readout and validation error from Gram
sums, for every penalty and every nested width, in one pass (docs/algorithms.md §1).

A ridge readout needs only the Gram sums of its inputs A and targets T (``fastelm._gram``,
docs/algorithms.md §1). With the sums S_f of each test fold f and their total S:

    training on every row but fold f:   S − S_f
    validation squared error of a beta:  ||A_f β − T_f||² = tr(T_fᵀT_f) − 2 tr(βᵀ A_fᵀT_f)
                                                            + tr(βᵀ A_fᵀA_f β)

so one pass over the rows serves every fold and every penalty (``fold_sums``,
``squared_errors``). Nested widths come free as well: the leading p×p block of the Cholesky
factor R of K = AᵀA + αI is the factor of K's leading block. So one factorisation per
(fold, α) gives every width: z = R⁻ᵀ c by forward substitution (its first p entries are the
prefix's), then β_p = R[:p, :p]⁻¹ z[:p] (``prefix_ridge``).

Like the estimators (``fastelm._ridge.ridge_fit``), a fold whose training rows are fewer than
the readout inputs p takes the dual form β = Aᵀc, c = (AAᵀ + αI)⁻¹ T, and then no p×p matrix
is made: c from the kernel block K[tr, tr] + αI and the validation scores K[te, tr] c
(``dual_ridge``, ``dual_grid``).

Dask inputs (``fastelm.dask``): each chunk's task returns the sums of its rows per test fold
(``DaskRows.fold_gram_sums``), added in a tree. KFold-like splits only (disjoint test folds,
training rows their complement).
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dpocon, dpotrf

from .._gram import GramSums, gram_sums
from .._ridge import RCOND_MIN, add_to_diagonal, serial_blas_if_small, spd_solve

# --------------------------------------------------------------------------- the readout path


def _usable_prefixes(K, R, info, alpha, widths, check_rcond):
    """Per width p: may the leading p×p block of the Cholesky factor R of K + αI be used?

    It must have been factored (potrf stops at column ``info``) and, with ``check_rcond``, pass
    the test of ``fastelm._ridge.spd_factor``: LAPACK's 1-norm reciprocal condition estimate
    ≥ RCOND_MIN. The estimate is skipped where it cannot fail: λ_min(K_p + αI) ≥ α and
    ‖(K_p + αI)⁻¹‖₁ ≤ √p/α, so rcond ≥ α / (√p ‖K_p + αI‖₁) ≥ α / (√p ‖K_P + αI‖₁); a margin of
    4 covers the rounding of K.
    """
    P = K.shape[0]
    factored = P if info == 0 else info - 1
    bound = np.abs(K).sum(axis=0).max() + alpha if check_rcond else 0.0
    usable = []
    for p in widths:
        ok = p <= factored
        if ok and check_rcond and alpha < 4.0 * RCOND_MIN * np.sqrt(p) * bound:
            block = np.abs(K[:p, :p])
            diagonal = np.diag(K[:p, :p])
            norm = (block.sum(axis=0) - np.abs(diagonal) + np.abs(diagonal + alpha)).max()
            rcond, status = dpocon(np.asfortranarray(R[:p, :p]), norm)
            ok = status == 0 and rcond >= RCOND_MIN
        usable.append(ok)
    return usable


def prefix_ridge(sums, alpha, widths, check_rcond=True):
    """beta_p = (AᵀA[:p, :p] + αI)⁻¹ AᵀT[:p] for every p in ``widths``, from one Cholesky
    factorisation of the largest system (module docstring).

    Returns B (P × len(widths) × m, float64, P = max width): B[:, w] is beta of widths[w] in its
    first p rows and zeros below, so the blocks multiply full-width matrices. Back substitution
    with the full factor on z[:p] padded with zeros gives exactly the leading block's solution
    (the zero rows solve to zero), so every width is one triangular solve with many right-hand
    sides and no copy of a leading block. A leading block that is numerically singular is solved
    as ``fastelm._ridge.spd_solve`` does (a warned eigen pseudo-solve) with ``check_rcond``;
    without it (BLS) Cholesky is trusted whenever it succeeds, as
    ``spd_solve(..., rcond_min=0)`` does.
    """
    P = max(widths)
    K = sums.AtA[:P, :P]  # symmetric: Kᵀ (F-ordered if K is C-ordered) is the same matrix
    C = np.asarray(sums.AtT[:P], dtype=np.float64)
    m = C.shape[1]
    B = np.zeros((P, len(widths), m))
    with serial_blas_if_small(P):
        M = add_to_diagonal(np.array(K.T, dtype=np.float64, order="F"), alpha)
        R, info = dpotrf(M, lower=0, clean=1, overwrite_a=1)
        usable = _usable_prefixes(K, R, info, alpha, widths, check_rcond)
        good = [w for w, ok in enumerate(usable) if ok]
        if good:
            top = P if info == 0 else max(widths[w] for w in good)
            Rt = R if top == P else np.asfortranarray(R[:top, :top])
            z = solve_triangular(Rt, C[:top], trans="T", check_finite=False)
            Z = np.zeros((top, len(good), m))
            for j, w in enumerate(good):
                Z[:widths[w], j] = z[:widths[w]]
            B[:top, good] = solve_triangular(Rt, Z.reshape(top, -1), check_finite=False
                                             ).reshape(top, len(good), m)
        for w, ok in enumerate(usable):
            if not ok:
                p = widths[w]
                B[:p, w] = spd_solve(add_to_diagonal(np.array(K[:p, :p], dtype=np.float64),
                                                     alpha), C[:p])
    return B


def dual_ridge(kernel, T, alpha, check_rcond=True):
    """Dual coefficients (AAᵀ + αI)⁻¹ T (float64) of the ridge readout from the rows' full
    symmetric kernel AAᵀ, by ``prefix_ridge`` at the one width n (its condition test skips
    LAPACK's estimate where it cannot fail)."""
    T = np.asarray(T, dtype=np.float64)
    return prefix_ridge(GramSums(len(T), kernel, T, None), alpha, [len(T)], check_rcond)[:, 0]


def dual_grid(K_train, K_val, T_train, T_val, alphas, check_rcond, predictions):
    """Per α: the validation scores K_val c (n_f×m) with c = (K_train + αI)⁻¹ T_train, the dual
    form's A_f β for β = A_trᵀ c, or with ``predictions=False`` their mean squared error."""
    out = []
    for alpha in alphas:
        scores = K_val @ dual_ridge(K_train, T_train, alpha, check_rcond)
        out.append(scores if predictions else float(np.mean((scores - T_val) ** 2)))
    return out


def squared_errors(sums, B):
    """||A β_w − T||² for each block β_w = B[:, w] (``prefix_ridge``'s layout), from the sums of
    (A, T): tr(TᵀT) − 2 tr(β_wᵀAᵀT) + tr(β_wᵀ AᵀA β_w), with one product AᵀA B."""
    P, n, m = B.shape
    flat = B.reshape(P, n * m)
    quadratic = (flat * (sums.AtA[:P, :P] @ flat)).reshape(P, n, m).sum(axis=(0, 2))
    linear = (B * sums.AtT[:P, None, :]).sum(axis=(0, 2))
    return np.trace(sums.TtT) - 2.0 * linear + quadratic


class _FoldData:
    """One fold: its rows, the primal form's training and validation sums (float64) or
    validation features, and ``dual``: per width p solved in the dual form, ``dual_grid``'s
    values (one per α)."""

    def __init__(self, train, test, widths, check_rcond, work, train_sums=None, val_sums=None,
                 A_val=None, T_val=None, dual=None):
        self.train, self.test, self.n_train = train, test, len(train)
        self.widths, self.check_rcond, self.work = widths, check_rcond, work
        self.train_sums, self.val_sums = train_sums, val_sums
        self.A_val, self.T_val, self.dual = A_val, T_val, dual or {}


def _fold_grid(fold, alphas, predictions):
    """For each α (outer) and width p (inner): the validation MSE of the readout targets, or,
    with ``predictions``, the validation scores A_f[:, :p] β (n_f×m). Widths in ``fold.dual``
    come from there; the others from one Cholesky of the training sums per α."""
    primal = [p for p in fold.widths if p not in fold.dual]
    from_sums = not predictions and fold.val_sums is not None
    out = []
    for a, alpha in enumerate(alphas):
        if primal:
            B = prefix_ridge(fold.train_sums, alpha, primal, fold.check_rcond)
            if from_sums:
                errors = squared_errors(fold.val_sums, B) / (fold.val_sums.n * B.shape[2])
        row = []
        for p in fold.widths:
            if p in fold.dual:
                row.append(fold.dual[p][a])
                continue
            w = primal.index(p)
            if from_sums:
                row.append(float(errors[w]))
                continue
            scores = fold.A_val[:, :p] @ B[:p, w].astype(fold.A_val.dtype)
            row.append(scores if predictions else float(np.mean((scores - fold.T_val) ** 2)))
        out.append(row)
    return out


def _fold_layout(folds, n):
    """(disjoint, complement, covered): the test folds are disjoint; each split's training
    rows are the complement of its test rows; which of the n rows some test fold holds."""
    covered = np.zeros(n, dtype=bool)
    for _, te in folds:
        covered[te] = True
    disjoint = sum(len(te) for _, te in folds) == covered.sum()
    complement = all(len(tr) + len(te) == n and np.union1d(tr, te).size == n
                     for tr, te in folds)
    return disjoint, complement, covered


def dask_test_folds(folds, n):
    """Each of the n rows' test fold (−1: none), for the per-chunk sums of Dask rows; a
    ValueError naming ``cv`` unless the test folds are disjoint and each split trains on
    their complement (what one pass of per-fold sums can serve)."""
    disjoint, complement, _ = _fold_layout(folds, n)
    if not (disjoint and complement):
        raise ValueError("cv: with Dask inputs the test folds must be disjoint and each "
                         "training split their complement (KFold, StratifiedKFold ...)")
    fold_of = np.full(n, -1)
    for f, (_, te) in enumerate(folds):
        fold_of[te] = f
    return fold_of


def fold_sums(X, T, folds, fmap, dask_rows=None):
    """(total, [(S − S_f or the training rows' sums, S_f)] per split), float64 ``GramSums`` of
    A = fmap(X): one pass when the test folds are disjoint (rows in no test fold are summed
    once more) and each split's training rows are the complement of its test rows.

    ``dask_rows``: (``fastelm.dask.DaskRows``, target coding) whose rows X and T stand for: the
    same sums from one pass of per-chunk, per-fold sums on the workers (such splits only).
    """
    n = len(T)
    disjoint, complement, covered = _fold_layout(folds, n)
    if dask_rows is not None:
        *val, rest = dask_rows[0].fold_gram_sums(fmap, dask_rows[1], dask_test_folds(folds, n),
                                                 len(folds))
        total = rest
        for s in val:
            total = total + s
        return total, [(total - s, s) for s in val]
    val = [gram_sums(X[te], T[te], fmap).astype(np.float64) for _, te in folds]
    if disjoint:
        total = GramSums.zeros(fmap.width, T.shape[1])
        for s in val:
            total = total + s
        if not covered.all():
            total = total + gram_sums(X[~covered], T[~covered], fmap).astype(np.float64)
    else:
        total = gram_sums(X, T, fmap).astype(np.float64)
    train = [total - s if complement else gram_sums(X[tr], T[tr], fmap).astype(np.float64)
             for (tr, _), s in zip(folds, val)]
    return total, list(zip(train, val))
