"""Differential-evolution kernels for DE-ELM (docs/algorithms.md §6): fitness, mutation + crossover,
selection, each parallel over the individuals of a (batch of) population(s), and ``generation``,
all three fused into one parallel pass (what the DE loop calls once per generation).

An individual theta (one row of ``pop``) is a flattened ELM hidden layer,
theta = [W.ravel() (d×nh, C order), b (nh)], so ``W = theta[:d*nh].reshape(d, nh)``.

Batches. Several independent DE runs advance together (strategy selection runs 3 strategies ×
many repetitions at once), so every kernel sees one array of P individuals and a few per-individual
integer maps, computed once by the caller:

- ``base[p]``: row of the first individual of p's run (its run's population is
  ``pop[base[p]:base[p] + NP]``); ``best[p]``: row of the best individual of p's run;
- ``draw[p]``: row of p's random draws (runs may share draws: common random numbers);
- ``strategy[p]``: mutation code; ``split[p]``: which train/validation split p is scored on.

No randomness is drawn here: the mutation indices, crossover masks and forced coordinates come in
as arrays (drawn with a numpy Generator by the caller), and each prange iteration writes only its
own output slots with a fixed summation order, so results do not depend on the thread count.
No BLAS inside prange: the small products are explicit loops.
"""
import numpy as np
from numba import njit, prange

from . import CACHE
from . import FAST as _FAST
from . import FAST_REASSOC
from .hidden import RELU, SIGMOID, SINE, TANH, activation

RAND1, BEST1, BEST2 = 0, 1, 2  # mutation strategies (``trial_vector``)
PAPER, EELM = 0, 1  # selection rules (``accepts``)



# Dot products and sums of squares may be reassociated (vectorised reduction): the order is fixed
# at compile time, so results still do not depend on the thread count. Kept out of line, so the
# Cody-Waite steps of ``activation`` never see "reassoc".
@njit(**FAST_REASSOC)
def _dot(x, y, n):
    s = 0.0
    for i in range(n):
        s += x[i] * y[i]
    return s


@njit(**FAST_REASSOC)
def _dot4(x, y0, y1, y2, y3, n):
    """(x·y0, x·y1, x·y2, x·y3) over the first n entries: one load of x serves four products."""
    s0 = s1 = s2 = s3 = 0.0
    for i in range(n):
        xi = x[i]
        s0 += xi * y0[i]
        s1 += xi * y1[i]
        s2 += xi * y2[i]
        s3 += xi * y3[i]
    return s0, s1, s2, s3


@njit(**_FAST)
def _gram_upper(HT, n, K):
    """Upper triangle of K = HT[:, :n] HT[:, :n]ᵀ, four entries of a row at a time."""
    nh = HT.shape[0]
    for a in range(nh):
        c = a
        while c + 4 <= nh:
            K[a, c], K[a, c + 1], K[a, c + 2], K[a, c + 3] = _dot4(
                HT[a], HT[c], HT[c + 1], HT[c + 2], HT[c + 3], n)
            c += 4
        while c < nh:
            K[a, c] = _dot(HT[a], HT[c], n)
            c += 1


@njit(inline="always", **_FAST)
def _activate(h, code):
    """h <- g(h) in place; one loop per activation so each loop body vectorises."""
    n = h.shape[0]
    if code == TANH:
        for i in range(n):
            h[i] = activation(h[i], TANH)
    elif code == SIGMOID:
        for i in range(n):
            h[i] = activation(h[i], SIGMOID)
    elif code == RELU:
        for i in range(n):
            h[i] = activation(h[i], RELU)
    elif code == SINE:
        for i in range(n):
            h[i] = activation(h[i], SINE)


@njit(inline="always", **_FAST)
def _node_pair(XT, W, b, j, j2, ra, rb, n):
    """ra <- (X W + b)[:, j], rb <- (X W + b)[:, j2] on n samples (rows of XT = Xᵀ): two hidden
    nodes and four features per pass, so each loaded x serves eight multiply-adds."""
    d = XT.shape[0]
    for r in range(n):
        ra[r] = b[j]
        rb[r] = b[j2]
    k = 0
    while k + 4 <= d:
        a0, a1, a2, a3 = W[k, j], W[k + 1, j], W[k + 2, j], W[k + 3, j]
        c0, c1, c2, c3 = W[k, j2], W[k + 1, j2], W[k + 2, j2], W[k + 3, j2]
        x0, x1, x2, x3 = XT[k], XT[k + 1], XT[k + 2], XT[k + 3]
        for r in range(n):
            y0, y1, y2, y3 = x0[r], x1[r], x2[r], x3[r]
            ra[r] += a0 * y0 + a1 * y1 + a2 * y2 + a3 * y3
            rb[r] += c0 * y0 + c1 * y1 + c2 * y2 + c3 * y3
        k += 4
    while k < d:
        a0, c0 = W[k, j], W[k, j2]
        x0 = XT[k]
        for r in range(n):
            ra[r] += a0 * x0[r]
            rb[r] += c0 * x0[r]
        k += 1


@njit(**_FAST)
def hidden_transposed(XT, W, b, code, HT, n):
    """HT[:, :n] <- g(X W + b)ᵀ from the first n columns of XT = Xᵀ (d×·).

    Rows of HT are hidden nodes, so every inner loop runs over samples, contiguous in memory.
    """
    nh = W.shape[1]
    for j in range(0, nh - 1, 2):
        _node_pair(XT, W, b, j, j + 1, HT[j], HT[j + 1], n)
    if nh % 2:  # odd nh: the last node paired with itself, written to a scratch row
        _node_pair(XT, W, b, nh - 1, nh - 1, HT[nh - 1], np.empty(n), n)
    for j in range(nh):
        _activate(HT[j, :n], code)


@njit(inline="always", **_FAST)
def _cholesky_solve(K, B):
    """Solve K beta = B in place (beta overwrites B) for SPD K given by its upper triangle.

    K is overwritten by U with UᵀU = K (upper). Returns False, leaving garbage, when a pivot is
    not positive relative to its diagonal (numerically singular K).
    """
    n = K.shape[0]
    m = B.shape[1]
    tol = n * 2.220446049250313e-16
    for j in range(n):
        s = K[j, j]
        for k in range(j):
            s -= K[k, j] * K[k, j]
        if not s > tol * K[j, j]:
            return False
        u = np.sqrt(s)
        K[j, j] = u
        for i in range(j + 1, n):
            t = K[j, i]
            for k in range(j):
                t -= K[k, j] * K[k, i]
            K[j, i] = t / u
    for c in range(m):  # Uᵀ z = B, then U beta = z
        for i in range(n):
            t = B[i, c]
            for k in range(i):
                t -= K[k, i] * B[k, c]
            B[i, c] = t / K[i, i]
        for i in range(n - 1, -1, -1):
            t = B[i, c]
            for k in range(i + 1, n):
                t -= K[i, k] * B[k, c]
            B[i, c] = t / K[i, i]
    return True


@njit(cache=CACHE)
def fitness(XT, TT, nL, nV, theta, n_hidden, code, alpha):
    """(rmse, ||beta||) of one individual theta = [W.ravel(), b] on one split.

    The split's rows are transposed, XT (d×n) and TT (m×n): the nL training (L) columns first,
    then the nV validation (V) columns. With H = g(X W + b):
      beta = (H_Lᵀ H_L + alpha I)⁻¹ H_Lᵀ T_L   (Cholesky, float64),
      rmse = sqrt(mean over the V rows and the m outputs of (H_V beta − T_V)²), ||beta||_F.
    A numerically singular system (alpha ~ 0) gives (inf, inf): never selected.
    """
    d = XT.shape[0]
    m = TT.shape[0]
    nh = n_hidden
    W = theta[:d * nh].reshape((d, nh))
    b = theta[d * nh:d * nh + nh]
    HT = np.empty((nh, nL + nV))
    hidden_transposed(XT, W, b, code, HT, nL + nV)
    K = np.empty((nh, nh))
    _gram_upper(HT, nL, K)
    beta = np.empty((nh, m))
    for a in range(nh):
        K[a, a] += alpha
        for c in range(m):
            beta[a, c] = _dot(HT[a], TT[c], nL)
    if not _cholesky_solve(K, beta):
        return np.inf, np.inf
    ss = 0.0
    for a in range(nh):
        for c in range(m):
            ss += beta[a, c] * beta[a, c]
    e = np.empty(nV)
    sse = 0.0
    for c in range(m):
        t = TT[c, nL:nL + nV]
        for r in range(nV):
            e[r] = -t[r]
        for a in range(nh):
            ba = beta[a, c]
            h = HT[a, nL:]
            for r in range(nV):
                e[r] += ba * h[r]
        sse += _dot(e, e, nV)
    return np.sqrt(sse / (nV * m)), np.sqrt(ss)


@njit(parallel=True, cache=CACHE)
def evaluate(XS, TS, n_train, n_val, split, pop, n_hidden, code, alpha, rmse, norm):
    """rmse[p], norm[p] <- ``fitness`` of every individual p on split s = split[p], whose data
    is XS[s] (d×n), TS[s] (m×n) with n_train[s] L columns then n_val[s] V columns."""
    for p in prange(pop.shape[0]):
        s = split[p]
        rmse[p], norm[p] = fitness(XS[s], TS[s], n_train[s], n_val[s], pop[p], n_hidden, code,
                                   alpha)


@njit(cache=CACHE)
def trial_vector(pop, p, base, best, r, cross, jrand, strategy, F, lower, upper, out):
    """out <- clip(binomial crossover of pop[p] with its mutant v, lower, upper).

    r: 4 indices local to p's run (added to ``base``, the row of the run's first individual);
    best: row of the run's best individual. Mutant:
      RAND1 v = x_r1 + F(x_r2 − x_r3); BEST1 v = x_best + F(x_r1 − x_r2);
      BEST2 v = x_best + F(x_r1 − x_r2) + F(x_r3 − x_r4).
    Coordinate j comes from v when cross[j] or j == jrand, else from pop[p].
    """
    i1 = base + r[0]
    i2 = base + r[1]
    i3 = base + r[2] if strategy != BEST1 else i1
    i4 = base + r[3] if strategy == BEST2 else i1
    for j in range(pop.shape[1]):
        if cross[j] or j == jrand:
            if strategy == RAND1:
                v = pop[i1, j] + F * (pop[i2, j] - pop[i3, j])
            elif strategy == BEST1:
                v = pop[best, j] + F * (pop[i1, j] - pop[i2, j])
            else:
                v = pop[best, j] + F * (pop[i1, j] - pop[i2, j]) + F * (pop[i3, j] - pop[i4, j])
            out[j] = min(max(v, lower), upper)
        else:
            out[j] = pop[p, j]


@njit(parallel=True, cache=CACHE)
def mutate_crossover(pop, base, best, draw, strategy, r, cross, jrand, F, lower, upper, trial):
    """trial[p] <- ``trial_vector`` of every individual p, with p's random draws in row draw[p]
    of r, cross and jrand (see the module docstring for base, best, strategy)."""
    for p in prange(pop.shape[0]):
        q = draw[p]
        trial_vector(pop, p, base[p], best[p], r[q], cross[q], jrand[q], strategy[p], F, lower,
                     upper, trial[p])


@njit(cache=CACHE)
def accepts(rmse_old, norm_old, rmse_new, norm_new, rule, eps, protect):
    """Whether the trial (new) replaces the target (old).

    PAPER: ||beta_new|| < ||beta_old|| or RMSE_new < RMSE_old.
    EELM (Zhu et al. 2005): RMSE_old − RMSE_new > eps·RMSE_old, or
      |RMSE_old − RMSE_new| < eps·RMSE_old and ||beta_new|| < ||beta_old||.
    ``protect`` (elitism, for a run's best individual): the trial must also have RMSE_new <=
    RMSE_old. An infeasible trial (inf RMSE) is never accepted.
    """
    if not np.isfinite(rmse_new) or (protect and not rmse_new <= rmse_old):
        return False
    if rule == PAPER:
        return norm_new < norm_old or rmse_new < rmse_old
    if rmse_old - rmse_new > eps * rmse_old:
        return True
    return abs(rmse_old - rmse_new) < eps * rmse_old and norm_new < norm_old


@njit(parallel=True, cache=CACHE)
def select(pop, rmse, norm, trial, trial_rmse, trial_norm, rule, eps, protect):
    """pop[p], rmse[p], norm[p] <- the trial's where ``accepts``, in place."""
    for p in prange(pop.shape[0]):
        if accepts(rmse[p], norm[p], trial_rmse[p], trial_norm[p], rule, eps, protect[p]):
            rmse[p] = trial_rmse[p]
            norm[p] = trial_norm[p]
            pop[p, :] = trial[p]


@njit(parallel=True, cache=CACHE)
def generation(XS, TS, n_train, n_val, split, pop, rmse, norm, base, best, draw, strategy, r,
               cross, jrand, F, lower, upper, n_hidden, code, alpha, rule, eps, protect,
               new_pop, new_rmse, new_norm):
    """One DE generation in one parallel pass: for every individual p, ``trial_vector`` →
    ``fitness`` on split[p] → ``accepts``, writing the survivor to new_pop[p], new_rmse[p],
    new_norm[p]. The old population is only read (classic "deferred" DE), so the result equals
    mutate_crossover, evaluate, select in turn, and no iteration reads another's output.
    """
    for p in prange(pop.shape[0]):
        q = draw[p]
        s = split[p]
        u = new_pop[p]
        trial_vector(pop, p, base[p], best[p], r[q], cross[q], jrand[q], strategy[p], F, lower,
                     upper, u)
        ru, nu = fitness(XS[s], TS[s], n_train[s], n_val[s], u, n_hidden, code, alpha)
        if accepts(rmse[p], norm[p], ru, nu, rule, eps, protect[p]):
            new_rmse[p] = ru
            new_norm[p] = nu
        else:
            u[:] = pop[p]
            new_rmse[p] = rmse[p]
            new_norm[p] = norm[p]
