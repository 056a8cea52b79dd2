"""Test-then-train over a stream of chunks in one compiled loop (the fused path of
``fastelm.stream.prequential`` for the OS-ELM classifiers; docs/algorithms.md §2).

Per chunk of n rows, with A = g(XW + b) (or [X, g(XW + b)] with direct links), p columns:

1. predict: the class index of the largest score of A beta (the first on ties, as argmax);
2. learn, the information form of ``fastelm._recursive_ridge.RecursiveRidge`` with the same
   operations in the same order: forgetting (λ < 1) K ← λⁿ (K − alpha I) + alpha I + Aᵀ Λ A and
   HᵀT ← λⁿ HᵀT + Aᵀ Λ T (Λ = diag λ^(n−1−j); K through √Λ A), else K ← K + AᵀA,
   HᵀT ← HᵀT + AᵀT; with a window, then K ← K − A_oᵀA_o, HᵀT ← HᵀT − A_oᵀT_o for the rows
   o that leave it;
3. solve beta = K⁻¹ HᵀT by Cholesky (LAPACK potrf) and two triangular solves.

K ≥ alpha I in exact arithmetic, so LAPACK's reciprocal condition estimate of K is at least
alpha / (√p ‖K‖₁); while that bound is ≥ ``rcond_min`` the Python path's Cholesky would be
trusted too, and the loop goes on; else it stops after learning the chunk and hands the rest
to the Python path (its warned fallback or error). The products run on BLAS (Numba's
``np.dot``, syrk), so the result equals the Python path to rounding (the order of the
additions inside the products may differ), not bit for bit. Loops index 2-D arrays rather
than take row views: a small model's row costs less than making a view of it.
"""
import numpy as np
from numba import njit

from . import CACHE, FAST
from .blas import gram_lower
from .hidden import activate_rows, exp


@njit(**FAST)
def _readout_inputs(X, W, b, code, direct, H, A):
    """A[:n] = g(XW + b), or [X, g(XW + b)] when ``direct`` (n = len(X)); H[:n] holds XW.
    Indexed loops, no row views: a view costs more than a small row's work."""
    n, d = X.shape
    np.dot(X, W, H[:n])
    activate_rows(H, n, b, code, A, d if direct else 0)
    if direct:
        for i in range(n):
            for k in range(d):
                A[i, k] = X[i, k]
    return A[:n]


@njit(cache=CACHE)
def _cholesky_solve(K, B, Y):
    """Y = K⁻¹ B for SPD K (LAPACK potrf on its lower triangle, K = C Cᵀ), then C Z = B and
    Cᵀ Y = Z by rows of C: contiguous loops that vectorise."""
    C = np.linalg.cholesky(K)
    p, m = B.shape
    for j in range(m):  # Y[j] is column j of the solution (Y is m×p)
        y = Y[j]
        for i in range(p):
            y[i] = B[i, j]
        for i in range(p):  # forward: z_i = (b_i − C[i, :i]·z[:i]) / C[i, i]
            total = y[i]
            row = C[i]
            for k in range(i):
                total -= row[k] * y[k]
            y[i] = total / C[i, i]
        for i in range(p - 1, -1, -1):  # back: y_i /= C[i, i]; y[:i] −= C[i, :i] y_i
            y[i] /= C[i, i]
            yi, row = y[i], C[i]
            for k in range(i):
                y[k] -= row[k] * yi
    return Y


@njit(cache=CACHE)
def _trusted(K, alpha, rcond_min):
    """alpha / (√p ‖K‖₁) ≥ rcond_min: a lower bound of K's reciprocal condition number."""
    p = K.shape[0]
    norm = 0.0
    for j in range(p):
        column = 0.0
        for i in range(p):
            column += abs(K[i, j])
        norm = max(norm, column)
    return alpha >= rcond_min * np.sqrt(p) * norm


@njit(**FAST)
def test_then_train(X, T, w, W, b, code, direct, logistic, K, HtT, alpha, lam, window, stops,
                    rcond_min, predicted):
    """Predict then learn the chunks [stops[c − 1], stops[c]) of (X, T), c = 1, 2, ...

    Parameters
    ----------
    X : (N, d) float64; T : (N, m) float64 coded targets
        With a window, rows [0, stops[0]) are the rows the window holds before the first chunk
        (with ``logistic``, T holds their weighted targets). With ``logistic`` each learned
        row's target is overwritten by its weighted target (``logistic_rows``).
    w : (N,) float64
        Row weights with ``logistic`` (those of the window's rows given, the others written);
        else unused.
    W : (d, L); b : (L,); code : activation code; direct : bool (direct links)
    logistic : bool
        Rows weighted by the logistic loss at the scores they were predicted with.
    K : (p, p); HtT : (p, m)
        The recursive ridge's sums after rows [0, stops[0]); updated in place.
    alpha, lam : float
        Ridge penalty and forgetting factor (1: none).
    window : int
        Rows kept (0: every row).
    stops : (C + 1,) int64
    rcond_min : float
    predicted : (N,) int64
        Receives the class index predicted for each row of the chunks.

    Returns
    -------
    int
        Chunks learned (C, or fewer when K's condition bound failed: the Python path goes on
        from there, the last beta unsolved).
    """
    p, m = HtT.shape
    L = W.shape[1]
    most = 0
    for c in range(1, stops.shape[0]):
        most = max(most, stops[c] - stops[c - 1])
    H, A, Ao = np.empty((most, L)), np.empty((most, p)), np.empty((most, p))
    G, GT, beta_t = np.empty((p, p)), np.empty((p, m)), np.empty((m, p))
    S, Tw = np.empty((most, m)), np.empty((most, m))
    _cholesky_solve(K, HtT, beta_t)
    for c in range(1, stops.shape[0]):
        start, stop = stops[c - 1], stops[c]
        n = stop - start
        An = _readout_inputs(X[start:stop], W, b, code, direct, H, A)
        for i in range(n):
            best, top = 0, -np.inf
            for j in range(m):
                score = 0.0
                for k in range(p):
                    score += An[i, k] * beta_t[j, k]
                S[i, j] = score
                if score > top:
                    best, top = j, score
            predicted[start + i] = best
        Tc = T[start:stop]
        if logistic:
            logistic_rows(S[:n], Tc, Tc, w[start:stop])  # Tc ← the weighted targets
        if lam != 1.0:
            decay = lam ** n
            for i in range(p):
                for j in range(p):
                    K[i, j] *= decay
                K[i, i] += (1.0 - decay) * alpha
            for i in range(p):
                for j in range(m):
                    HtT[i, j] *= decay
        if logistic or lam != 1.0:  # K += Aᵀ diag(age · w) A, HᵀT += Aᵀ diag(age) T
            age = 1.0  # λ^(n−1−j) for row j of the chunk
            for j in range(n - 1, -1, -1):
                scale = np.sqrt(age * w[start + j]) if logistic else np.sqrt(age)
                for k in range(m):
                    Tw[j, k] = Tc[j, k] * age
                for k in range(p):
                    Ao[j, k] = An[j, k] * scale
                age *= lam
            _add_products(Ao, n, An, Tw[:n], K, HtT, G, GT, 1.0)
        else:
            _add_products(A, n, An, Tc, K, HtT, G, GT, 1.0)
        if window > 0:
            leave_from, leave_to = max(0, start - window), stop - window
            if leave_to > leave_from:
                Aon = _readout_inputs(X[leave_from:leave_to], W, b, code, direct, H, Ao)
                leaving = leave_to - leave_from
                rows = Ao
                if logistic:  # the rows' weights: A (this chunk's, used) takes √w · A_o
                    rows = A
                    for j in range(leaving):
                        scale = np.sqrt(w[leave_from + j])
                        for k in range(p):
                            A[j, k] = Aon[j, k] * scale
                _add_products(rows, leaving, Aon, T[leave_from:leave_to], K, HtT, G, GT, -1.0)
        if not _trusted(K, alpha, rcond_min):
            return c
        if c < stops.shape[0] - 1:
            _cholesky_solve(K, HtT, beta_t)
    return stops.shape[0] - 1


@njit(**FAST)
def _add_products(rows, n, A, T, K, HtT, G, GT, sign):
    """K ← K + sign·R[:n]ᵀR[:n] (R = ``rows``: BLAS syrk into G's lower triangle, K kept
    exactly symmetric) and HᵀT ← HᵀT + sign·AᵀT (gemm into GT)."""
    gram_lower(rows, G, n)
    np.dot(A.T, T, GT)
    p, m = GT.shape
    for i in range(p):
        for j in range(i + 1):
            K[i, j] += sign * G[i, j]
            K[j, i] = K[i, j]
        for j in range(m):
            HtT[i, j] += sign * GT[i, j]


@njit(**FAST)
def logistic_rows(S, T, U, w):
    """Row weights and weighted targets of the softmax (logistic) loss at the scores S (n×m):
    p_i = softmax(s_i), w_i = Σ_j p_ij (1 − p_ij) and u_i = w_i s_i + t_i − p_i (= w_i z_i, z_i
    the IRLS working response s_i + (t_i − p_i)/w_i), into U (n×m) and w (n,). Two classes:
    with e_i = exp(−|s_i1 − s_i0|), the larger score's p is 1/(1 + e_i), the other's
    e_i/(1 + e_i), and w_i = 2 p_i0 p_i1: one exp per row, in a loop that vectorises
    (``hidden.exp``)."""
    n, m = S.shape
    if m == 2:
        for i in range(n):  # w holds e_i until it is overwritten by the weight
            w[i] = -abs(S[i, 1] - S[i, 0])
        for i in range(n):
            w[i] = exp(w[i])
        for i in range(n):
            small, big = w[i] / (1.0 + w[i]), 1.0 / (1.0 + w[i])
            p0, p1 = (small, big) if S[i, 1] >= S[i, 0] else (big, small)
            w[i] = 2.0 * p0 * p1
            U[i, 0] = w[i] * S[i, 0] + T[i, 0] - p0
            U[i, 1] = w[i] * S[i, 1] + T[i, 1] - p1
        return
    p = np.empty(m)
    for i in range(n):
        first = 0  # the largest score's column: its exp(0) = 1 is not computed
        for j in range(1, m):
            if S[i, j] > S[i, first]:
                first = j
        top = S[i, first]
        total = 0.0
        for j in range(m):
            p[j] = 1.0 if j == first else np.exp(S[i, j] - top)
            total += p[j]
        weight = 0.0
        for j in range(m):
            p[j] /= total
            weight += p[j] * (1.0 - p[j])
        w[i] = weight
        for j in range(m):
            U[i, j] = weight * S[i, j] + T[i, j] - p[j]
