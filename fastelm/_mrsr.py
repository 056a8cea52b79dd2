"""Multiresponse sparse regression (MRSR, Similä & Tikka 2005): the order in which the columns
of A enter a least-angle path towards the least-squares fit of T (docs/algorithms.md §9).

With Y the current fit (Y = 0 at first), the correlation of column j is the L1 norm
c_j = ‖(T − Y)ᵀa_j‖₁ over the m outputs; the active columns share the largest, c_max. Each
step moves Y towards the least-squares fit Ȳ of T on the active columns,

    Y ← Y + γ (Ȳ − Y),

which shrinks every active correlation to (1 − γ) c_max, and stops at the smallest γ ∈ [0, 1]
where an inactive column catches up, ‖(T − Y)ᵀa_j − γ (Ȳ − Y)ᵀa_j‖₁ = (1 − γ) c_max; that
column enters. With one output this is LARS (Efron et al. 2004, the 'lar' path).

The path runs on the Gram matrix G = AᵀA (one syrk), so no step touches the n rows:
M = AᵀQ (Q the orthonormal basis of the active columns, Gram–Schmidt order, never formed) grows
by one column a step, O(L·k), and gives Aᵀ(Ȳ − Y) in O(L·m), since Ȳ = Q QᵀT. The entering
column's coordinates in Q are its own row of M. The step length of each inactive column is a
kernel (``fastelm._kernels.mrsr``). A column whose part orthogonal to the active ones is below
``tol`` of its norm (squared) is passed over: it adds nothing a least-squares fit could use.
"""
import numpy as np

from ._kernels.mrsr import step_lengths

# squared relative norm of a column's part outside the active span below which it is dropped
DEPENDENT = 1e-10


def mrsr(A, T, max_steps=None, tol=DEPENDENT):
    """The MRSR ranking of A's columns for targets T (LARS when T has one column).

    Parameters
    ----------
    A : ndarray of shape (n, L)
        Regressors (hidden outputs), used as given: no centring or scaling.
    T : ndarray of shape (n, m)
    max_steps : int, optional
        Columns to rank at most (default all).
    tol : float, default=DEPENDENT
        A column whose squared norm outside the active columns' span is at most ``tol`` times
        its squared norm is not ranked.

    Returns
    -------
    ranking : ndarray of int64, shape (k,), k ≤ min(L, rank A, max_steps)
        Column indices in the order they enter; the path stops early when every correlation
        vanishes (T − Y orthogonal to all of A: nothing further to rank).
    """
    A = np.asarray(A, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    L, m = A.shape[1], T.shape[1]
    steps = L if max_steps is None else min(L, max_steps)
    G = A.T @ A
    AtT = A.T @ T
    C = AtT.copy()                          # Aᵀ(T − Y), Y = 0
    D = np.zeros((L, m))                    # AᵀȲ
    M = np.zeros((L, steps), order="F")     # AᵀQ
    Z = np.empty((steps, m))                # QᵀT
    gamma = np.empty(L)
    free = np.ones(L, dtype=bool)
    ranking = []
    scores = np.abs(C).sum(1)
    j, c_max = int(np.argmax(scores)), float(scores.max())
    stop = 1e3 * np.finfo(np.float64).eps * c_max
    while True:
        k = len(ranking)
        w = M[j, :k]                        # Qᵀa_j
        rho2 = G[j, j] - w @ w              # ‖a_j − Q Qᵀa_j‖²
        free[j] = False
        if rho2 > tol * G[j, j]:            # independent of the active columns: it enters
            rho = np.sqrt(rho2)
            Z[k] = (AtT[j] - w @ Z[:k]) / rho
            M[:, k] = (G[:, j] - M[:, :k] @ w) / rho
            D += np.outer(M[:, k], Z[k])
            ranking.append(j)
        if len(ranking) == steps or not free.any() or c_max <= stop:
            break
        inactive = np.flatnonzero(free)
        V = D - AtT + C                     # Aᵀ(Ȳ − Y)
        step_lengths(C[inactive], V[inactive], c_max, gamma[:len(inactive)])
        i = int(np.argmin(gamma[:len(inactive)]))
        C -= gamma[i] * V
        c_max *= 1 - gamma[i]
        if c_max <= stop:  # Y reached a fit orthogonal to every column
            break
        j = int(inactive[i])
    return np.asarray(ranking, dtype=np.int64)
