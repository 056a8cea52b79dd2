"""Tests that kill the plausible one-line bugs a mutation spot-check planted and the rest of the
suite let through: each test names the bug it catches.

- BLS: a new enhancement group reusing the first group's shrink instead of its own.
- E-ELM selection: an absolute instead of a relative tolerance (every other case has
  RMSE_old = 1, where the two agree).
- DE: ``evolve`` using F(0) at every generation instead of F(t).
- Tri-training: the update condition e·|L| < e'·l' written with ``<=``.
- OS-ELM: a Woodbury-step bug hidden when a later information-form chunk re-solves beta; the
  stream is compared with the batch fit after every chunk.
"""
import copy
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.linalg import orth
from sklearn.datasets import make_regression

from fastelm import BLSClassifier, BLSRegressor, ELMRegressor, OSELMRegressor
from fastelm._hidden import check_activation
from fastelm._kernels import de
from fastelm._recursive_ridge import RecursiveRidge
from fastelm.de_elm import BOUNDS, distinct_indices, evolve, prepare_splits
from fastelm.semi_supervised import _update_decision

# ------------------------------------------------------------------ BLS enhancement groups


def _enhancement_group(Z, Wh, shrink):
    """docs/algorithms.md §5 for one group, in numpy: T2 = [Z, 0.1] Wh, l = s / max(T2),
    E = tansig(l·T2) (tansig = tanh)."""
    T2 = np.hstack([Z, np.full((len(Z), 1), 0.1)]) @ Wh
    scale = shrink / T2.max()
    return scale, np.tanh(scale * T2)


def test_each_enhancement_group_has_its_own_shrink():
    X, y = make_regression(n_samples=260, n_features=5, n_targets=2, noise=0.1, random_state=1)
    model = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=30, reg=1e-2,
                         random_state=0).fit(X[:200], y[:200])
    model.add_enhancement_nodes(8)            # its shrink comes from the 200 rows learned
    model.add_rows(X[200:], y[200:])
    model.add_enhancement_nodes(5)            # and this one's from all 260
    nk = 12
    Z = model.broad_features(X)[:, :nk]       # the feature nodes (scalings as fitted)
    blocks, shrinks = [Z], []
    for Wh, rows in zip(model.enhancement_weights_, (200, 200, 260)):
        scale, _ = _enhancement_group(Z[:rows], Wh, model.shrink)
        shrinks.append(scale)
        T2 = np.hstack([Z, np.full((len(Z), 1), 0.1)]) @ Wh
        blocks.append(np.tanh(scale * T2))
    np.testing.assert_allclose(model.enhancement_shrink_, shrinks, rtol=1e-12)
    I = np.hstack(blocks)
    np.testing.assert_allclose(model.broad_features(X), I, rtol=1e-11, atol=1e-13)
    # the readout equals the ridge fit on this independently built broad layer
    want = np.linalg.solve(I.T @ I + model.reg * np.eye(I.shape[1]), I.T @ y)
    np.testing.assert_allclose(model.beta_, want, rtol=1e-9, atol=1e-9 * np.abs(want).max())


# ------------------------------------------------------------------ E-ELM selection rule


@pytest.mark.parametrize("scale", [10.0, 0.1, 1e-4])
def test_eelm_tolerance_is_relative_to_rmse_old(scale):
    """|RMSE_old − RMSE_new| is compared with eps·RMSE_old (Zhu et al. 2005), so a rule
    stays the same when every RMSE is scaled; an absolute eps would not."""
    eps, acc = 0.05, de.accepts
    old = scale * 1.0
    # 4% better: within the relative tolerance (5%), so decided by the norm
    assert not acc(old, 1.0, 0.96 * old, 2.0, de.EELM, eps, False)
    assert acc(old, 1.0, 0.96 * old, 0.5, de.EELM, eps, False)
    # 6% better: clearly better whatever the norm
    assert acc(old, 1.0, 0.94 * old, 2.0, de.EELM, eps, False)
    # 6% worse: rejected even with a smaller norm
    assert not acc(old, 1.0, 1.06 * old, 0.5, de.EELM, eps, False)


@pytest.mark.parametrize("rule", [de.PAPER, de.EELM])
def test_elitism_accepts_a_trial_of_equal_rmse(rule):
    """A protected (best) individual may be replaced by a trial no worse in RMSE: RMSE_new <=
    RMSE_old, so an equal RMSE with a smaller norm is accepted under both rules, a larger RMSE
    never (kills '<=' → '<' in the elitism test)."""
    acc = de.accepts
    assert acc(0.5, 2.0, 0.5, 1.0, rule, 0.05, True)
    assert not acc(0.5, 2.0, 0.5, 3.0, rule, 0.05, True)       # equal RMSE, larger norm
    assert not acc(0.5, 2.0, 0.5000001, 1.0, rule, 0.05, True)  # worse RMSE: elitism refuses
    assert acc(0.5, 2.0, 0.5000001, 1.0, rule, 0.05, False)     # which it alone decides


def test_paper_rule_needs_a_strictly_smaller_norm_or_rmse():
    """PAPER: ||beta_new|| < ||beta_old|| or RMSE_new < RMSE_old, both strict: an equal norm
    with a worse RMSE is refused (kills the norm test written '<='), as is an equal RMSE with a
    larger norm."""
    assert not de.accepts(1.0, 2.0, 1.5, 2.0, de.PAPER, 0.0, False)
    assert not de.accepts(1.0, 2.0, 1.0, 2.5, de.PAPER, 0.0, False)
    assert de.accepts(1.0, 2.0, 1.5, 1.999, de.PAPER, 0.0, False)


def test_a_dead_hidden_node_without_ridge_is_infeasible():
    """A ReLU node that is 0 on every training row makes H_Lᵀ H_L singular with an exactly zero
    last pivot (s = 0 = tol·K_jj) when alpha = 0: the individual is infeasible (inf, inf), never a
    0/0 solve (kills the pivot test 's > tol·K_jj' written '>=')."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(0)
    X, T = rng.uniform(0, 1, (30, 3)), rng.standard_normal((30, 1))
    data = prepare_splits(X, T, [(np.arange(20), np.arange(20, 30))])
    nh = 4
    W = rng.uniform(0.1, 1.0, (3, nh))  # x >= 0, W > 0, b > 0: nodes 0-2 are alive ...
    b = np.full(nh, 0.1)
    W[:, -1], b[-1] = 0.0, -1.0          # ... and the last one (the last pivot) is 0 everywhere
    theta = np.concatenate([W.ravel(), b])[None, :]
    rmse, norm = np.empty(1), np.empty(1)
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["relu"], 0.0, rmse, norm)
    assert np.isinf(rmse[0]) and np.isinf(norm[0])
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["relu"], 1e-3, rmse, norm)
    assert np.isfinite(rmse[0]) and np.isfinite(norm[0])  # a ridge makes it solvable


def test_eelm_rule_boundaries_are_strict():
    """Zhu et al.'s rule with dyadic numbers (exact in floating point), eps·RMSE_old = 0.25:
    an improvement of exactly 0.25 is not 'clearly better', a difference of exactly 0.25 is not
    'within tolerance', an equal norm is not smaller (kills '>' → '>=' and '<' → '<=' in
    both terms); a protected individual takes a strictly better trial."""
    acc, E = de.accepts, de.EELM
    assert not acc(1.0, 1.0, 0.75, 2.0, E, 0.25, False)   # 1 - 0.75 = 0.25: on both strict
    assert not acc(1.0, 1.0, 0.75, 0.5, E, 0.25, False)   # boundaries, whatever the norm
    assert acc(1.0, 1.0, 0.625, 2.0, E, 0.25, False)      # 0.375 > 0.25: clearly better
    assert not acc(1.0, 1.0, 1.25, 0.5, E, 0.25, False)   # |1 - 1.25| = 0.25: outside
    assert not acc(1.0, 1.0, 1.125, 1.0, E, 0.25, False)  # inside, equal norm
    assert acc(1.0, 1.0, 1.125, 0.875, E, 0.25, False)    # inside, smaller norm
    for rule in (de.PAPER, E):                            # elitism: a better RMSE is taken
        assert acc(0.5, 2.0, 0.25, 1.0, rule, 0.25, True)


def test_odd_layer_sizes_compute_the_last_node():
    """hidden_transposed pairs nodes two by two; for an odd number of nodes the last one is
    computed on its own (kills 'nh % 2' → 'nh % 3', which skips it when nh is an odd multiple
    of 3). The (rmse, ||beta||) of 3 and 9 nodes equal a numpy fit."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(1)
    X, T = rng.standard_normal((40, 5)), rng.standard_normal((40, 2))
    data = prepare_splits(X, T, [(np.arange(25), np.arange(25, 40))])
    for nh in (3, 9):
        theta = rng.uniform(-1, 1, (1, 6 * nh))
        rmse, norm = np.empty(1), np.empty(1)
        de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["tanh"], 1e-3, rmse,
                    norm)
        H = np.tanh(X @ theta[0, :5 * nh].reshape(5, nh) + theta[0, 5 * nh:])
        beta = np.linalg.solve(H[:25].T @ H[:25] + 1e-3 * np.eye(nh), H[:25].T @ T[:25])
        want = [np.sqrt(np.mean((H[25:] @ beta - T[25:]) ** 2)), np.linalg.norm(beta)]
        np.testing.assert_allclose([rmse[0], norm[0]], want, rtol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_a_duplicated_hidden_node_without_ridge_is_infeasible(seed):
    """Two identical nodes make H_Lᵀ H_L singular: the second pivot is rounding noise, a few
    ulps of K_jj either side of 0, below the relative cut-off n·eps·K_jj, so the individual is
    infeasible whatever the rounding (kills the cut-off made negative or divided by K_jj, under
    which a positive noise pivot is accepted and a garbage beta scored)."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(seed)
    X, T = rng.uniform(0, 1, (30, 3)), rng.standard_normal((30, 1))
    data = prepare_splits(X, T, [(np.arange(20), np.arange(20, 30))])
    nh = 8
    W, b = 30 * rng.uniform(-1, 1, (3, nh)), rng.uniform(-1, 1, nh)
    W[:, 1], b[1] = W[:, 0], b[0]
    theta = np.concatenate([W.ravel(), b])[None, :]
    rmse, norm = np.empty(1), np.empty(1)
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["tanh"], 0.0, rmse, norm)
    assert np.isinf(rmse[0]) and np.isinf(norm[0])


_FORMULAS = {  # mutant vector v from x_best and x = [x_r1, x_r2, x_r3, x_r4], by name
    "rand/1": lambda xb, x, f: x[0] + f * (x[1] - x[2]),
    "best/1": lambda xb, x, f: xb + f * (x[0] - x[1]),
    "best/2": lambda xb, x, f: xb + f * (x[0] - x[1]) + f * (x[2] - x[3]),
}


@pytest.mark.parametrize("name", sorted(_FORMULAS))
def test_each_strategy_name_gets_its_own_formula(name):
    """The user's strategy name reaches its own mutation formula (the expected vector is written
    by name, not by kernel code: kills two strategy codes made equal, e.g. BEST1 = BEST2 = 2)."""
    from fastelm.de_elm import STRATEGIES

    rng = np.random.default_rng(5)
    NP, D, f = 6, 7, 0.6
    pop = rng.uniform(-1, 1, (NP, D))
    r = distinct_indices(rng, NP)
    cross = np.ones((NP, D), dtype=bool)  # every coordinate from the mutant
    zeros, best = np.zeros(NP, np.int64), np.full(NP, 3)
    trial = np.empty_like(pop)
    de.mutate_crossover(pop, zeros, best, np.arange(NP), np.full(NP, STRATEGIES[name]), r, cross,
                        zeros, f, -10.0, 10.0, trial)
    for p in range(NP):
        np.testing.assert_allclose(trial[p], _FORMULAS[name](pop[3], pop[r[p]], f), rtol=1e-14)


@pytest.mark.parametrize("name, accepted", [("paper", True), ("eelm", False)])
def test_each_selection_name_gets_its_own_rule(name, accepted):
    """A trial 50% worse in RMSE with a smaller norm: the paper's rule (smaller norm or smaller
    RMSE) accepts it, E-ELM's (RMSE first) refuses it; kills PAPER and EELM made equal."""
    from fastelm.de_elm import SELECTIONS

    assert de.accepts(1.0, 1.0, 1.5, 0.5, SELECTIONS[name], 0.05, False) is accepted


# ------------------------------------------------------------------ DE: F(t) at generation t


def test_evolve_uses_f_of_generation_t():
    """Replay the random draws of ``evolve`` and rebuild every accepted trial: generation t's
    trial vectors are x_r1 + F(t)·(x_r2 − x_r3) (rand/1, binomial crossover, clipped)."""
    rng = np.random.default_rng(0)
    X, T = rng.standard_normal((60, 3)), rng.standard_normal((60, 1))
    perm = rng.permutation(60)
    data = prepare_splits(X, T, [(np.sort(perm[:30]), np.sort(perm[30:]))])
    NP, nh, crossover = 10, 4, 0.9
    D = (3 + 1) * nh
    pop0 = rng.uniform(-1, 1, (1, NP, D))
    f_values = [0.9, 0.2, 0.6, 0.35, 0.75]
    run_rng = np.random.default_rng(7)
    replay = copy.deepcopy(run_rng)
    seen = []
    evolve(data, pop0, [run_rng], [de.RAND1], n_hidden=nh, code=check_activation("tanh"),
           alpha=1e-3, n_generations=len(f_values), crossover=crossover, f_values=f_values,
           rule=de.PAPER, eps=0.0, elitism=False,
           callback=lambda t, pop, rmse, norm: seen.append(pop[0].copy()))
    lower, upper = BOUNDS
    for t, f in enumerate(f_values):
        r = distinct_indices(replay, NP)
        cross = replay.random((NP, D)) <= crossover
        jrand = replay.integers(D, size=NP)
        pop, new = seen[t], seen[t + 1]
        changed = np.flatnonzero(np.any(new != pop, axis=1))
        assert len(changed) >= 2, t  # the check below must have something to check
        for p in changed:
            v = pop[r[p, 0]] + f * (pop[r[p, 1]] - pop[r[p, 2]])
            take = cross[p].copy()
            take[jrand[p]] = True
            np.testing.assert_array_equal(new[p], np.where(take, np.clip(v, lower, upper), pop[p]))


# ------------------------------------------------------------------ Tri-training boundary


def test_tritraining_update_condition_is_strict_at_the_boundary():
    """e·|L| = e'·l' exactly is not e·|L| < e'·l' (Zhou & Li 2005, Fig. 1)."""
    # 1/10 · 60 = 3/10 · 20: not the first branch; l' = 20 > e/(e' − e) = 1/2, so subsample
    # to ceil(e' l'/e − 1) = 59 rows (with <=, all 60 rows would be used)
    assert _update_decision(F(1, 10), F(3, 10), 20, 60) == (True, 59, 59)
    # 2/5 · 5 = 1/2 · 4, and l' = 4 is not > e/(e' − e) = 4: no update at all
    assert _update_decision(F(2, 5), F(1, 2), 4, 5) == (False, None, 4)
    # one more candidate row on either side of the boundary
    assert _update_decision(F(1, 10), F(3, 10), 20, 59) == (True, None, 59)
    assert _update_decision(F(2, 5), F(1, 2), 4, 6) == (False, None, 4)


# ------------------------------------------------------------------ OS-ELM after every chunk

# chunk sizes: the first ones below L (information form while K ~ alpha I), then single rows
# and small chunks (Woodbury), a large one (information), then small ones again
CHUNKS = [30, 40, 1, 2, 3, 1, 5, 200, 1, 4, 2]


def test_recursive_ridge_equals_batch_ridge_after_every_chunk():
    rng = np.random.default_rng(0)
    L, m, alpha = 40, 2, 1e-2
    H = rng.standard_normal((sum(CHUNKS), L))
    T = rng.standard_normal((sum(CHUNKS), m))
    state = RecursiveRidge(L, m, alpha)
    start = 0
    for n in CHUNKS:
        state.update(H[start:start + n], T[start:start + n])
        start += n
        Hs, Ts = H[:start], T[:start]
        want = np.linalg.solve(Hs.T @ Hs + alpha * np.eye(L), Hs.T @ Ts)
        np.testing.assert_allclose(state.beta, want, rtol=1e-8, atol=1e-10, err_msg=str(start))
    assert {"woodbury", "information"} <= set(state.forms)
    assert state.forms[CHUNKS.index(200)] == "information"
    # the first chunks, before L rows are seen, take the information form (P ~ 1/alpha there)
    assert state.forms[:2] == ["information", "information"]
    assert state.n_seen == sum(CHUNKS) and state.HtT.shape == (L, m)


def test_oselm_equals_batch_elm_after_every_chunk():
    X, y = make_regression(n_samples=sum(CHUNKS), n_features=6, noise=0.5, random_state=0)
    y = y / y.std()
    online = OSELMRegressor(n_hidden=40, alpha=1e-2, random_state=0)
    start = 0
    for n in CHUNKS:
        online.partial_fit(X[start:start + n], y[start:start + n])
        start += n
        batch = ELMRegressor(n_hidden=40, alpha=1e-2, random_state=0).fit(X[:start], y[:start])
        np.testing.assert_allclose(online.predict(X), batch.predict(X), rtol=1e-8, atol=1e-9,
                                   err_msg=f"after {start} rows")


@pytest.mark.parametrize("form", ["bogus", "Woodbury", "qr"])
def test_recursive_ridge_rejects_an_unknown_form(form):
    """Any name but 'woodbury' and 'information' is refused (a survivor of the mutation run
    compared form <= 'information', which took 'bogus' for the information form)."""
    state = RecursiveRidge(3, 1, 1.0)
    with pytest.raises(ValueError, match="form="):
        state.update(np.ones((2, 3)), np.ones((2, 1)), form=form)
    assert state.n_seen == 0 and state.forms == []


def test_recursive_ridge_remove_nodes_checks_every_index():
    """Out-of-range indices anywhere in ``drop`` are refused (a survivor checked only one end),
    and the kept nodes' readout is the ridge fit of those nodes on every row seen."""
    rng = np.random.default_rng(1)
    H, T = rng.standard_normal((30, 6)), rng.standard_normal((30, 2))
    state = RecursiveRidge(6, 2, 0.5)
    state.update(H, T)
    for drop in ([0, 6], [6, 2], [-1, 3], [7]):
        with pytest.raises(ValueError, match=r"\[0, 6\)"):
            state.remove_nodes(drop)
    keep = state.remove_nodes([4, 1])
    np.testing.assert_array_equal(keep, [0, 2, 3, 5])
    Hk = H[:, keep]
    want = np.linalg.solve(Hk.T @ Hk + 0.5 * np.eye(4), Hk.T @ T)
    np.testing.assert_allclose(state.beta, want, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ _rls (cosmic-ray, second run)


def test_recursive_ridge_float32_beta_follows_every_solve():
    """beta_as(float32) is beta's cast after every chunk, not the first solve's cast kept
    (kills 'cast[0] is not beta or ...' written with 'and': a new beta, same dtype)."""
    rng = np.random.default_rng(11)
    H, T = np.tanh(rng.standard_normal((90, 8))), rng.standard_normal((90, 2))
    state = RecursiveRidge(8, 2, 1e-2)
    for start in range(0, 90, 30):
        state.update(H[start:start + 30].astype(np.float32), T[start:start + 30])
        np.testing.assert_array_equal(state.beta_as(np.float32), state.beta.astype(np.float32))
    assert state.beta_as(np.float32) is state.beta_as(np.float32)  # cast once per solve


def test_recursive_ridge_rebuilds_p_only_when_missing_or_after_l_removals(monkeypatch):
    """Woodbury steps rebuild P = K⁻¹ (L³ flops) only when P is missing or after L rows removed
    by them, so a row costs O(L²) amortised (kills '>= n_hidden' written '!=': a rebuild at
    every step, or '==': never when the count steps over L)."""
    rebuilds = []
    original = RecursiveRidge._refresh_inverse

    def counted(self):
        rebuilds.append(self.n_seen)
        original(self)

    monkeypatch.setattr(RecursiveRidge, "_refresh_inverse", counted)
    rng = np.random.default_rng(12)
    H, T = np.tanh(rng.standard_normal((130, 10))), rng.standard_normal((130, 1))
    state = RecursiveRidge(10, 1, 1e-2)
    state.update(H[:20], T[:20], form="information")
    for s in range(20, 70, 2):  # 25 Woodbury updates of two rows: P built once, at the first
        state.update(H[s:s + 2], T[s:s + 2], form="woodbury")
    assert rebuilds == [20]
    for s in range(0, 27, 3):  # 9 removals of three rows: rebuilt before the 5th and the 9th
        state.downdate(H[s:s + 3], T[s:s + 3], form="woodbury")
    assert rebuilds == [20, 58, 46]  # 12 rows removed since the last build, past L = 10
    held = np.r_[27:70]
    want = np.linalg.solve(H[held].T @ H[held] + 1e-2 * np.eye(10), H[held].T @ T[held])
    np.testing.assert_allclose(state.beta, want, rtol=1e-9, atol=1e-12)


def test_recursive_ridge_rebuilds_beta_from_the_sums_after_l_removals():
    """After L rows removed by Woodbury steps, beta is rebuilt from the exact sums K, HᵀT with
    P, not carried on: an error planted in beta (as rounding drift would be) is gone after the
    rebuild (kills 'if self.P is not None' → 'is None': only P rebuilt)."""
    rng = np.random.default_rng(13)
    H, T = np.tanh(rng.standard_normal((60, 6))), rng.standard_normal((60, 1))
    state = RecursiveRidge(6, 1, 1e-2)
    state.update(H[:30], T[:30], form="information")
    for s in range(0, 6, 2):  # 6 rows = L removed by Woodbury steps
        state.downdate(H[s:s + 2], T[s:s + 2], form="woodbury")
    state._beta = state.beta + 1.0  # drift
    state.update(H[30:32], T[30:32], form="woodbury")  # rebuilds P and beta, then the step
    held = np.r_[6:32]
    want = np.linalg.solve(H[held].T @ H[held] + 1e-2 * np.eye(6), H[held].T @ T[held])
    np.testing.assert_allclose(state.beta, want, rtol=1e-10, atol=1e-12)


def test_recursive_ridge_removes_every_row_it_holds():
    """Removing all the rows held leaves the prior: K = alpha I, beta = 0 (kills 'n > n_seen'
    → '>=', which refused it)."""
    rng = np.random.default_rng(14)
    H, T = np.tanh(rng.standard_normal((5, 8))), rng.standard_normal((5, 2))
    state = RecursiveRidge(8, 2, 0.5)
    state.update(H, T)
    state.downdate(H, T)
    assert state.n_seen == 0
    np.testing.assert_allclose(state.K, 0.5 * np.eye(8), rtol=0, atol=1e-13)
    np.testing.assert_allclose(state.beta, 0.0, rtol=0, atol=1e-13)


def test_recursive_ridge_refuses_an_ill_conditioned_woodbury_removal():
    """Removing 3 rows leaves 12 that span 2 of the 4 hidden directions; with alpha = 3e-14,
    S = I − H P Hᵀ still has a Cholesky factor but its reciprocal condition (~3e-14) is below
    RCOND_MIN: refused, state unchanged (kills the rcond test disabled by 'info != 0 and ...'
    or 'not rcond != RCOND_MIN')."""
    rng = np.random.default_rng(15)
    basis = np.tanh(rng.standard_normal((2, 4)))
    H = np.r_[rng.standard_normal((12, 2)) @ basis, np.tanh(rng.standard_normal((3, 4)))]
    T = rng.standard_normal((15, 1))
    state = RecursiveRidge(4, 1, 3e-14)
    state.update(H, T, form="information")
    K, HtT = state.K.copy(), state.HtT.copy()
    with pytest.raises(ValueError, match="numerically singular"):
        state.downdate(H[12:], T[12:], form="woodbury")
    np.testing.assert_array_equal(state.K, K)
    np.testing.assert_array_equal(state.HtT, HtT)
    assert state.n_seen == 15


def test_recursive_ridge_woodbury_form_takes_no_row_weights():
    """A weighted chunk cannot take the Woodbury form, in update or downdate (kills
    "form == 'woodbury'" → '>': the weights silently dropped by the removal)."""
    rng = np.random.default_rng(16)
    H, T = np.tanh(rng.standard_normal((20, 3))), rng.standard_normal((20, 1))
    state = RecursiveRidge(3, 1, 0.1)
    state.update(H, T)
    for step in (state.update, state.downdate):
        with pytest.raises(ValueError, match="does not take row weights"):
            step(H[:2], T[:2], form="woodbury", weights=np.full(2, 0.5))
    assert state.n_seen == 20 and state.forms == ["information"]


def test_keep_last_trims_only_past_twice_the_kept_length(monkeypatch):
    """keep_last lets a record grow to 2·HISTORY_KEPT and only past that cuts it to the last
    HISTORY_KEPT entries, so a trim happens once per HISTORY_KEPT appends (kills '>' → '>=',
    '!=', '1 *' and '2 /', which trim early or at every append)."""
    from fastelm import _recursive_ridge as _rls

    monkeypatch.setattr(_rls, "HISTORY_KEPT", 3)
    record, lengths = [], []
    for i in range(14):
        _rls.keep_last(record, [i])
        lengths.append(len(record))
    assert lengths == [1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 5, 6]
    assert record == [8, 9, 10, 11, 12, 13]
    _rls.keep_last(record, [14, 15, 16])  # several entries at once: 9 > 6, keep the last 3
    assert record == [14, 15, 16]


# ------------------------------------------------------------------ _ridge (cosmic-ray survivors)

def test_spd_factor_refuses_an_ill_conditioned_factor_and_trusts_a_good_one():
    """Cholesky of diag(1, 1e-15) exists but its reciprocal condition (1e-15) is below
    RCOND_MIN (2.2e-13): no factor (unless rcond_min=0). Kills the rcond test written with
    'and' for 'or', and the norm computed only when rcond_min == 0 (or < 0, or negated)."""
    from fastelm._ridge import RCOND_MIN, spd_factor

    ill = np.diag([1.0, 1e-15])
    assert 1e-15 < RCOND_MIN and spd_factor(ill) is None
    assert spd_factor(ill, rcond_min=0) is not None
    good = np.array([[4.0, 1.0], [1.0, 3.0]])
    c, lower = spd_factor(good)  # kills 'rcond != rcond_min': a good factor is trusted
    np.testing.assert_allclose(np.triu(c).T @ np.triu(c), good)


def test_singular_ridge_warning_points_at_the_caller():
    """The LinAlgWarning of the eigen fallback is reported at the line that called the
    estimator-level solve (stacklevel 3: spd_solve ← ridge_fit ← caller)."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import ridge_fit

    H = np.ones((6, 2))  # rank 1, alpha = 0: singular
    with pytest.warns(LinAlgWarning) as record:
        ridge_fit(H, np.ones((6, 1)), 0.0)
    assert record[0].filename == __file__


def test_pseudo_solve_cut_off_is_relative_to_the_largest_eigenvalue():
    """K = diag(1e-6, 1e-20): Cholesky is refused (rcond 1e-14), and the eigen cut-off
    n·eps·max(w) = 4.4e-22 keeps both eigenvalues, so K⁻¹b is exact; an absolute cut-off
    (max(w.max(), 1)) would drop 1e-20."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import spd_solve

    with pytest.warns(LinAlgWarning):
        x = spd_solve(np.diag([1e-6, 1e-20]), np.ones((2, 1)))
    np.testing.assert_allclose(x.ravel(), [1e6, 1e20], rtol=1e-12)


def test_pseudo_solve_of_a_zero_system_is_zero():
    """K = 0 (alpha = 0 and all-zero hidden outputs): the pseudo-inverse keeps no eigenvalue
    and the solution is 0, not 0/0 (kills the cut-off written with '>=')."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import spd_solve

    with pytest.warns(LinAlgWarning):
        x = spd_solve(np.zeros((3, 3)), np.ones((3, 2)))
    np.testing.assert_array_equal(x, 0.0)


# ------------------------------------------------------------------ semi_supervised (cosmic-ray)

def _semi_data():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1, random_state=0)
    y_semi = np.where(np.random.default_rng(0).random(120) < 0.6, -1, y)
    return X, y_semi


def test_tri_training_proba_of_learners_without_predict_proba_sums_to_one():
    """Learners without predict_proba (RidgeClassifier) count as one-hot votes of weight 1:
    every row's probabilities sum to 1 and their argmax is predict (kills 1.0 → 0.0 / 2.0)."""
    from sklearn.linear_model import RidgeClassifier

    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    clf = TriTrainingClassifier(RidgeClassifier(), random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


def test_tri_training_predict_does_not_refit_the_input_check():
    """predict checks X against the fit's n_features_in_ (validate_data with reset=False): a
    wrong width is refused naming TriTrainingClassifier and leaves n_features_in_ as fitted."""
    from fastelm import ELMClassifier, TriTrainingClassifier

    X, y = _semi_data()
    clf = TriTrainingClassifier(ELMClassifier(n_hidden=10), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="TriTrainingClassifier is expecting 4 features"):
        clf.predict(X[:, :3])
    assert clf.n_features_in_ == 4


def test_tri_training_subsample_draws_distinct_unlabelled_rows(monkeypatch):
    """The third branch of the update rule cuts L_i to a random subset: distinct rows, never
    one unlabelled row twice (kills rng.choice(..., replace=True)). The rule is forced into
    that branch (5 rows every round) and a base learner records the rows it is fitted on."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    from fastelm import TriTrainingClassifier, semi_supervised

    fits = []

    class Recorder(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            fits.append(X[:, 0].copy())
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):  # every learner agrees everywhere: all of U are candidates
            return np.full(len(X), self.classes_[0])

    monkeypatch.setattr(semi_supervised, "_update_decision", lambda e, ep, lp, n: (True, 5, 5))
    rng = np.random.default_rng(0)
    n_l, n_u = 20, 30
    X = np.column_stack([np.arange(n_l + n_u), rng.standard_normal(n_l + n_u)])  # column 0: id
    y = np.r_[np.arange(n_l) % 2, np.full(n_u, -1)]
    TriTrainingClassifier(Recorder(), random_state=0, max_iter=10).fit(X, y)
    refits = [ids[ids >= n_l] for ids in fits if (ids >= n_l).any()]
    assert len(refits) >= 10  # the subsample branch ran
    for unlabelled in refits:
        assert len(np.unique(unlabelled)) == len(unlabelled) == 5


def test_tri_training_bootstrap_keeps_a_draw_with_more_than_two_classes():
    """A bootstrap of L is redrawn only when it holds a single class: a three-class draw is
    kept (kills '>= 2' → '== 2', under which every draw of three classes would be rejected
    until the whole of L is used)."""
    from fastelm.semi_supervised import _bootstrap_indices

    y = np.repeat([0, 1, 2], 20)
    rows = _bootstrap_indices(y, np.random.default_rng(0))
    assert np.unique(y[rows]).size == 3
    assert not np.array_equal(np.sort(rows), np.arange(60))  # a real bootstrap, not all of L


def test_tri_training_reseeds_nested_random_states():
    """The three learners get different seeds also inside a Pipeline (get_params(deep=True));
    with deep=False the nested ELMs would all keep random_state=7."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fastelm import ELMClassifier, TriTrainingClassifier

    X, y = _semi_data()
    base = make_pipeline(StandardScaler(), ELMClassifier(n_hidden=10, random_state=7))
    clf = TriTrainingClassifier(base, random_state=0, max_iter=0).fit(X, y)
    seeds = [est.get_params()["elmclassifier__random_state"] for est in clf.estimators_]
    assert len(set(seeds)) == 3 and 7 not in seeds


@pytest.mark.parametrize("n", [2, 4])
def test_tri_training_refuses_a_sequence_of_other_than_three_learners(n):
    """A list of base learners must hold exactly three: four are refused as two are (kills
    'len(base) != 3' → '< 3', under which a fourth learner would be silently ignored)."""
    from sklearn.tree import DecisionTreeClassifier

    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    with pytest.raises(ValueError, match=f"one classifier or 3; got a sequence of {n}"):
        TriTrainingClassifier([DecisionTreeClassifier()] * n, random_state=0).fit(X, y)


@pytest.mark.parametrize("name", ["TriTrainingClassifier", "BLSClassifier", "ELMClassifier",
                                  "DEELMClassifier"])
def test_non_deterministic_tag_follows_random_state(name):
    """An estimator is tagged non-deterministic exactly when it is not seeded (scikit-learn's
    checks then skip the same-result-twice tests); kills 'is None' → 'is not None'."""
    import fastelm

    cls = getattr(fastelm, name)
    assert cls().__sklearn_tags__().non_deterministic
    assert not cls(random_state=0).__sklearn_tags__().non_deterministic


def test_tri_training_labels_below_the_marker_stay_labelled():
    """Only rows equal to the marker (-1) are unlabelled: classes -5 and -2 are labels like any
    other (kills 'y == marker' → 'y <= marker', which would drop every class below -1)."""
    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    y = np.where(y == -1, -1, np.array([-5, -2, 4])[np.maximum(y, 0)])
    clf = TriTrainingClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.classes_, [-5, -2, 4])
    assert set(clf.predict(X)) <= {-5, -2, 4}


# ------------------------------------------------------------------ EFAST (cosmic-ray)

_EFAST_PROBLEM = {"num_vars": 3, "bounds": [[-np.pi, np.pi]] * 3}


def _ishigami(X):
    return np.sin(X[:, 0]) + 7.0 * np.sin(X[:, 1]) ** 2 + 0.1 * X[:, 2] ** 4 * np.sin(X[:, 0])


@pytest.mark.parametrize("scale", [1e-20, 1e20])
def test_efast_indices_do_not_depend_on_the_output_unit(scale):
    """S1 and ST are variance ratios: the same for y and scale·y. The constant-output test
    compares V with (N·eps·max|y|)², which scales as V does; a threshold linear in max|y|
    (kills '** 2' → '* 2') would call a y of order 1e-20 constant."""
    import warnings

    from fastelm import efast_analyze, efast_sample

    X = efast_sample(_EFAST_PROBLEM, 257, random_state=0)
    Y = _ishigami(X)
    ref = efast_analyze(_EFAST_PROBLEM, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConstantOutputWarning
        res = efast_analyze(_EFAST_PROBLEM, scale * Y)
    np.testing.assert_allclose(res.S1, ref.S1, rtol=1e-10)
    np.testing.assert_allclose(res.ST, ref.ST, rtol=1e-10)


@pytest.mark.parametrize("bounds", [[0.0, 1.0], [[[0.0, 1.0]]], np.empty((0, 2)),
                                    np.zeros((2, 2, 2)), np.zeros((3, 1)),
                                    np.tile([0.0, 1.0, 2.0], (3, 1))])
def test_efast_bounds_must_be_d_rows_of_two(bounds):
    """A flat pair, 3-D arrays, zero factors and one column are refused with the shape named
    (kills 'ndim != 2' → '> 2' or '< 2' (shape (2, 2, 2)), 'shape[1] != 2' → '> 2' or '< 2'
    (shapes (3, 1), (3, 3)), which fail later with an IndexError or a wrong sample, and
    'shape[0] < 1' → '< 0')."""
    from fastelm import efast_sample

    with pytest.raises(ValueError, match=r"'bounds' must have shape \(D, 2\)"):
        efast_sample({"bounds": bounds}, 101)


def test_hidden_node_sensitivity_warning_points_at_the_caller():
    """The constant-readout warning is attributed to the line that called
    hidden_node_sensitivity (stacklevel 2), not to fastelm."""
    from fastelm import hidden_node_sensitivity
    from fastelm.global_sensitivity import ConstantOutputWarning

    with pytest.warns(ConstantOutputWarning) as record:
        hidden_node_sensitivity(np.zeros(3), np.zeros(3), np.ones(3), N=129)
    assert record[0].filename == __file__


@pytest.mark.parametrize("M", [1, 4, 5])
def test_efast_suggested_n_is_the_smallest_that_works(M):
    """The 'N too small' message suggests N >= 4M² + 1, and that N is accepted while one less
    is not (kills a wrong suggestion such as 4M³ + 1)."""
    from fastelm import efast_sample

    n_min = 4 * M * M + 1
    with pytest.raises(ValueError, match=rf"use N >= {n_min} or a smaller M"):
        efast_sample(_EFAST_PROBLEM, n_min - 1, M=M)
    assert efast_sample(_EFAST_PROBLEM, n_min, M=M).shape == (3 * n_min, 3)


def test_efast_accepts_uniform_dists_and_refuses_others():
    """dists='unif' for every factor is the default made explicit (same sample); any other
    distribution, before or after 'unif' in alphabetical order, is refused (kills '!=' → '<=')."""
    from fastelm import efast_sample

    want = efast_sample(_EFAST_PROBLEM, 101, random_state=0)
    got = efast_sample({**_EFAST_PROBLEM, "dists": ["unif"] * 3}, 101, random_state=0)
    np.testing.assert_array_equal(got, want)
    for other in ("norm", "uniform", "triang"):
        with pytest.raises(ValueError, match="only uniform"):
            efast_sample({**_EFAST_PROBLEM, "dists": ["unif", other, "unif"]}, 101)


def test_hidden_node_sensitivity_refuses_zero_nodes():
    """beta with no rows (no hidden node) is refused naming beta's shape (kills 'shape[0] < 1'
    → 'shape[-1] < 1', which checks the outputs twice and lets L = 0 through)."""
    from fastelm import hidden_node_sensitivity

    with pytest.raises(ValueError, match=r"beta must have shape \(L,\) or \(L, m\), got \(0, 2\)"):
        hidden_node_sensitivity(np.empty((0, 2)), [], [])


@pytest.mark.parametrize("beta, shape", [(np.ones((2, 2, 1)), r"\(2, 2, 1\)"),
                                         (np.float64(1.0), r"\(\)")])
def test_hidden_node_sensitivity_refuses_beta_of_other_dimensions(beta, shape):
    """beta must be (L,) or (L, m): a 3-D or a 0-D beta is refused with its shape (kills
    'beta.ndim != 2' → '< 2' or '> 2')."""
    from fastelm import hidden_node_sensitivity

    with pytest.raises(ValueError, match=rf"beta must have shape .* got {shape}"):
        hidden_node_sensitivity(beta, [0.0, 0.0], [1.0, 1.0])


@pytest.mark.parametrize("n_upper", [2, 4])
def test_hidden_node_sensitivity_checks_the_length_of_upper(n_upper):
    """upper needs one entry per node, like lower: shorter or longer is refused (kills
    'upper.shape != (L,)' → '<', a tuple comparison that lets a longer upper through)."""
    from fastelm import hidden_node_sensitivity

    with pytest.raises(ValueError, match="must have 3 entries"):
        hidden_node_sensitivity(np.ones(3), np.zeros(3), np.ones(n_upper))


def test_efast_zero_output_is_constant():
    """y = 0 everywhere: V = 0 and max|y| = 0, so V <= (N·eps·max|y|)² holds with equality;
    the indices are 0 with a warning, never 0/0 (kills '<=' → '<')."""
    from fastelm import efast_analyze, efast_sample
    from fastelm.global_sensitivity import ConstantOutputWarning

    X = efast_sample(_EFAST_PROBLEM, 101, random_state=0)
    with pytest.warns(ConstantOutputWarning, match="3 run"):
        res = efast_analyze(_EFAST_PROBLEM, np.zeros(len(X)))
    np.testing.assert_array_equal(res.S1, 0.0)
    np.testing.assert_array_equal(res.ST, 0.0)


def test_efast_model_shape_error_names_the_number_of_rows():
    """A model returning the wrong number of outputs is told how many rows it was given (303
    = 3 runs × 101 points), not the number of factors."""
    from fastelm import efast

    with pytest.raises(ValueError, match=r"model returned shape \(10,\) for 303 input rows"):
        efast(lambda X: X[:10, 0], _EFAST_PROBLEM, 101)


def test_efast_results_compare_by_identity_and_hash():
    """EFASTResult holds arrays, so it compares by identity (dataclass eq=False): comparing two
    results never raises the ambiguous-truth-value error and a result can be a set member or
    dict key (kills eq=False → True)."""
    from fastelm import efast_analyze, efast_sample

    X = efast_sample(_EFAST_PROBLEM, 101, random_state=0)
    a = efast_analyze(_EFAST_PROBLEM, _ishigami(X))
    b = efast_analyze(_EFAST_PROBLEM, _ishigami(X))
    assert a == a and a != b
    assert len({a, b}) == 2


@pytest.mark.parametrize("bad, match", [
    ({"num_vars": 4}, "num_vars=4 but 'bounds' has 3 rows"),
    ({"names": ["a", "b", "c", "d"]}, "'names' has 4 entries for 3 factors"),
])
def test_efast_problem_entries_must_match_the_bounds_exactly(bad, match):
    """num_vars and names larger than the number of bounds rows are refused, as smaller ones
    are (kills '!=' → '<')."""
    from fastelm import efast_sample

    with pytest.raises(ValueError, match=match):
        efast_sample({**_EFAST_PROBLEM, **bad}, 101)


@pytest.mark.parametrize("N, M", [(129.0, 4), (129, 4.0), (True, 1), (129, True)])
def test_efast_n_and_m_must_be_integers(N, M):
    """N and M are integers, not floats or booleans (kills the integer check of _check_int
    disabled by 'or' → 'and'); NumPy integers are accepted."""
    from fastelm import efast_sample

    with pytest.raises(ValueError, match=r"(N|M) must be an integer, got (129\.0|4\.0|True)"):
        efast_sample(_EFAST_PROBLEM, N, M)
    assert efast_sample(_EFAST_PROBLEM, np.int64(129), np.int32(4)).shape == (3 * 129, 3)


def test_efast_phases_must_be_one_per_run():
    """Four phases for three runs are refused as two are (kills 'shape != (D,)' → '<')."""
    from fastelm import efast_sample

    with pytest.raises(ValueError, match="phases must be 3 finite numbers"):
        efast_sample(_EFAST_PROBLEM, 101, phases=[0.0, 1.0, 2.0, 3.0])


@pytest.mark.parametrize("lower, upper, beta", [([0.0, 0.0], np.ones(3), np.ones(3)),
                                                (np.zeros(3), np.ones(3), np.ones((3, 0)))])
def test_hidden_node_sensitivity_refuses_short_lower_and_empty_outputs(lower, upper, beta):
    """A lower bound shorter than beta (kills 'lower.shape != (L,)' → '>') and a beta with no
    output column (kills 'shape[1] < 1' → '< 0') are refused."""
    from fastelm import hidden_node_sensitivity

    with pytest.raises(ValueError, match="must have 3 entries|beta must have shape"):
        hidden_node_sensitivity(beta, lower, upper)


@pytest.mark.parametrize("Y", [np.empty(0), np.empty((0, 2))])
def test_efast_analyze_refuses_an_empty_output(Y):
    """No output rows at all is refused naming the shape (kills 'shape[0] == 0' → '< 0' or
    'shape[-1] == 0')."""
    from fastelm import efast_analyze

    with pytest.raises(ValueError, match=r"Y must have shape \(D\*N,\) or \(D\*N, m\)"):
        efast_analyze(_EFAST_PROBLEM, Y)


def test_efast_model_may_return_a_scalar_or_several_outputs():
    """A model returning a scalar is refused naming its shape (kills 'Y.ndim == 0' → '< 0' or
    '== -1', which fail with IndexError); one returning two outputs per row is accepted and
    gives the indices of the summed partial variances (kills 'Y.shape[0]' → 'shape[-1]')."""
    from fastelm import efast, efast_analyze, efast_sample

    with pytest.raises(ValueError, match=r"model returned shape \(\) for 303 input rows"):
        efast(lambda X: 1.0, _EFAST_PROBLEM, 101)
    res = efast(lambda X: np.c_[_ishigami(X), X[:, 0]], _EFAST_PROBLEM, 101, random_state=0)
    X = efast_sample(_EFAST_PROBLEM, 101, random_state=0)
    ref = efast_analyze(_EFAST_PROBLEM, np.c_[_ishigami(X), X[:, 0]])
    np.testing.assert_array_equal(res.S1, ref.S1)


@pytest.mark.parametrize("D, shown", [(3, "x1, x2, x3)"), (5, "x1, x2, x3, x4, x5)"),
                                      (6, "x1, x2, x3, x4, x5, ...)")])
def test_efast_constant_warning_lists_at_most_five_runs(D, shown):
    """The warning names the constant runs, at most five, with '...' only when there are
    more (kills '<= 5' → '< 5' or '!= 5'); it points at the caller (kills stacklevel 3 → 4)."""
    from fastelm import efast_analyze
    from fastelm.global_sensitivity import ConstantOutputWarning

    problem = {"bounds": [[0.0, 1.0]] * D}
    with pytest.warns(ConstantOutputWarning) as record:
        efast_analyze(problem, np.ones(D * 101))
    message = str(record[0].message)
    assert f"of {D} run(s) ({shown};" in message
    assert record[0].filename == __file__


def test_hidden_node_sensitivity_with_more_outputs_than_a_batch_holds():
    """N·m above the batch budget (2**22 values): one run per batch, never a batch of 0 runs
    (kills 'max(1, ...)' → 'max(0, ...)'); the shares are still exact."""
    from fastelm import hidden_node_sensitivity

    rng = np.random.default_rng(0)
    beta = rng.standard_normal((2, 4100))
    S1, ST = hidden_node_sensitivity(beta, np.zeros(2), np.ones(2), N=1025, random_state=0)
    w = np.sum(beta ** 2, axis=1)
    np.testing.assert_allclose(ST, w / w.sum(), atol=1e-3)


def test_efast_table_columns_are_aligned():
    """to_table right-aligns each index under its header: every row as long as the header row
    (kills a column width smaller than the values, 'precision - 4')."""
    from fastelm import efast_analyze, efast_sample

    problem = {"names": ["a", "long name", "c"], "bounds": _EFAST_PROBLEM["bounds"]}
    X = efast_sample(problem, 101, random_state=0)
    lines = efast_analyze(problem, _ishigami(X)).to_table(precision=3).splitlines()
    assert len({len(line) for line in lines}) == 1
    assert lines[0].index("S1") + 2 == lines[1].index(".") + 4  # 'S1' ends where 0.xxx ends


def test_efast_bounds_message_shows_five_violations():
    """Seven inverted bounds: the message counts all seven and shows the first five."""
    from fastelm import efast_sample

    problem = {"bounds": [[1.0, 0.0]] * 7}
    with pytest.raises(ValueError, match="7 violate it") as info:
        efast_sample(problem, 101)
    message = str(info.value)
    assert message.count(": [") == 5 and "x5: [" in message and "x6" not in message
    assert "x1: [1.0, 0.0]" in message and "np.float64" not in message  # plain numbers


def test_efast_refuses_more_model_rows_lower_bounds_and_small_n():
    """A model returning more rows than it was given (606 for 303: efast_analyze would take
    N = 202), a lower bound longer than beta and an N far below 4M² are refused (kills '!='
    → '<' twice and 'N <= 4M²' → '==')."""
    from fastelm import efast, efast_sample, hidden_node_sensitivity

    with pytest.raises(ValueError, match=r"model returned shape \(606,\) for 303 input rows"):
        efast(lambda X: np.r_[_ishigami(X), _ishigami(X)], _EFAST_PROBLEM, 101)
    with pytest.raises(ValueError, match="must have 3 entries"):
        hidden_node_sensitivity(np.ones(3), np.zeros(4), np.ones(3))
    with pytest.raises(ValueError, match="EFAST needs N > 4"):
        efast_sample(_EFAST_PROBLEM, 10)


# ------------------------------------------------------------------ EFAST kernel (cosmic-ray)


@pytest.mark.parametrize("L, N, M", [(5, 129, 4), (9, 401, 2)])
def test_efast_kernel_curves_are_the_readout_on_efast_sample_points(L, N, M):
    """linear_readout_curves gives, for each run, the readout y = z @ beta on efast_sample's
    points minus its constant (mid-range @ beta), to rounding: not only a curve with the same
    spectrum (kills the phase shift subtracted, the time-reversed curve, and the triangle wave
    written 0.5 + |2v − 1|, which leave every index unchanged)."""
    from fastelm import efast_sample
    from fastelm._kernels.efast import linear_readout_curves
    from fastelm.global_sensitivity import _frequencies

    rng = np.random.default_rng(L)
    lower = rng.uniform(-2.0, 0.0, L)
    upper = lower + rng.uniform(0.5, 2.0, L)
    beta = rng.standard_normal((L, 2))
    phases = rng.uniform(0.0, 2.0 * np.pi, L)
    X = efast_sample({"bounds": np.c_[lower, upper]}, N, M, phases=phases)
    want = (X @ beta - (lower + upper) / 2 @ beta).reshape(L, N, 2).transpose(0, 2, 1)
    omega0, other = _frequencies(N, M, L)
    c = np.ascontiguousarray(beta * (upper - lower)[:, None])
    got = linear_readout_curves(c, np.arange(L, dtype=np.int64), phases, omega0, other, N)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * np.abs(want).max())
    part = linear_readout_curves(c, np.array([3, 1], dtype=np.int64), phases, omega0, other, N)
    np.testing.assert_array_equal(part, got[[3, 1]])  # out[r] belongs to run runs[r]


# ------------------------------------------------------------------ BLS kernels (cosmic-ray)


def test_bls_zscore_rows_of_one_and_two_columns():
    """A one-column row has no deviation (ddof = 1 is undefined): it is only centred, to 0,
    whatever its magnitude (kills 'd > 1' → 'd >= 1' or 'd > 0': 0/0 gives NaN or raises); a
    two-column row (a, b) has sd = |a − b|/√2, so it maps to ∓1/√2 (kills 'd > 1' → 'd > 2',
    which only centres it); an all-zero row stays 0 (kills the rescaling's 'and m > 0' → 'or'
    or '> -1': a division by m = 0)."""
    from fastelm._kernels.bls import zscore_rows

    X = np.array([[3.0], [-2.0], [0.0], [1e200], [-1e-200]])
    with np.errstate(all="raise"):
        np.testing.assert_array_equal(zscore_rows(X), np.zeros((5, 1)))
    pairs = np.array([[1.0, 3.0], [5.0, -1.0], [-2e200, 4e200], [0.0, 0.0]])
    want = np.array([[-1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [0.0, 0.0]]) / np.sqrt(2.0)
    np.testing.assert_allclose(zscore_rows(pairs), want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("p", [127, 129, 255, 256])
def test_bls_admm_blocks_equal_column_by_column(p):
    """admm_lasso over p columns in blocks of ADMM_BLOCK equals each column solved alone, bit
    for bit, when p is one short of, one past or a multiple of the block (kills the block count
    (p + ADMM_BLOCK − 1) // ADMM_BLOCK → '+ 1': a block of −1 columns, or '− 2': the last
    column left out; and the last block's width p − j0 → p + j0)."""
    from fastelm._kernels.bls import admm_lasso

    rng = np.random.default_rng(p)
    A = rng.standard_normal((30, 4))
    L1 = np.linalg.inv(A.T @ A + np.eye(4))
    L2 = L1 @ A.T @ rng.standard_normal((30, p))
    got = admm_lasso(L1, L2, 0.3, 8)
    for j in (0, p // 2, p - 1):
        alone = admm_lasso(L1, L2[:, j:j + 1].copy(), 0.3, 8)
        np.testing.assert_array_equal(got[:, j], alone[:, 0])
    assert got.shape == (4, p) and np.count_nonzero(got) > 0


def test_bls_affine_columns_maps_to_lo():
    """affine_columns computes (a − offset_j)·gain_j + lo with the given lo: the minmax mode's
    window outputs A go to [−1, 1] (kills '+ lo' → '− lo', invisible with lo = 0 and in every
    comparison of a BLS with itself)."""
    from fastelm._kernels.bls import affine_columns
    from fastelm.bls import minmax_parameters

    rng = np.random.default_rng(17)
    A = rng.standard_normal((40, 6)) * 3.0 + 1.0
    offset, gain = minmax_parameters(A, -1.0, 1.0)
    got = affine_columns(A.copy(), offset, gain, -1.0)
    np.testing.assert_allclose(got, (A - offset) * gain - 1.0, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(got.min(axis=0), -1.0, rtol=0, atol=1e-15)
    np.testing.assert_allclose(got.max(axis=0), 1.0, rtol=0, atol=1e-15)


# ------------------------------------------------------------------ bls.py (cosmic-ray survivors)
def _minmax_columns(x, lo, hi, xmin, xmax):
    """Each column of x mapped from [xmin, xmax] to [lo, hi] (the training rows' extremes)."""
    return (x - xmin) / (xmax - xmin) * (hi - lo) + lo


def _minmax_bls(X, Y, X_test, n, k, q, s, C, seed):
    """docs/algorithms.md §5 with preprocessing='minmax' (the module docstring) in numpy: the
    inputs scaled per column to [0, 1], A per column to [-1, 1] and Z per column to [0, 1], each
    with the training rows' extremes; returns I(X_test), its scores and W_Dᵀ ((d+1) × nk)."""
    from test_bls import _sparse_bls, _tansig

    rng = np.random.default_rng(seed)
    ones, ones_test = np.full((len(X), 1), 0.1), np.full((len(X_test), 1), 0.1)
    extremes = X.min(axis=0), X.max(axis=0)
    H1 = np.hstack([_minmax_columns(X, 0, 1, *extremes), ones])
    HH1 = np.hstack([_minmax_columns(X_test, 0, 1, *extremes), ones_test])
    Z, ZZ, WDs = [], [], []
    for _ in range(n):
        A = H1 @ rng.uniform(-1, 1, size=(X.shape[1] + 1, k))
        A = _minmax_columns(A, -1, 1, A.min(axis=0), A.max(axis=0))
        WD = _sparse_bls(A, H1, 1e-3, 50)  # k × (d+1)
        WDs.append(WD.T)
        T1, TT1 = H1 @ WD.T, HH1 @ WD.T
        Z.append(_minmax_columns(T1, 0, 1, T1.min(axis=0), T1.max(axis=0)))
        ZZ.append(_minmax_columns(TT1, 0, 1, T1.min(axis=0), T1.max(axis=0)))
    Z, ZZ = np.hstack(Z), np.hstack(ZZ)
    R = rng.uniform(-1, 1, size=(n * k + 1, q))
    wh = orth(R) if n * k + 1 >= q else orth(R.T).T
    T2 = np.hstack([Z, ones]) @ wh
    scale = s / T2.max()
    I = np.hstack([Z, _tansig(scale * T2)])
    beta = np.linalg.solve(I.T @ I + C * np.eye(I.shape[1]), I.T @ Y)
    II = np.hstack([ZZ, _tansig(scale * (np.hstack([ZZ, ones_test]) @ wh))])
    return II, II @ beta, np.hstack(WDs)


@pytest.mark.parametrize("q", [40, 7])  # orthonormal rows (q > nk + 1) and columns
def test_bls_minmax_mode_equals_numpy_transcription(q):
    """The default preprocessing against its numpy transcription, as test_bls does for
    'reference', and the autoencoders' weights W_Dᵀ: kills A scaled per row (reference) or to
    other ranges in 'minmax' mode, We ~ U(-2, 1) (an affine change of We that only the per-row
    scaling of 'reference' undoes), classes coded ±1 instead of one-hot 0/1, and the bias
    column of AᵀH1 written BIAS / ΣA (it sets only W_D's bias row, whose shift of each Z column
    the min-max scaling of Z removes: only sparse_weights_ shows it)."""
    rng = np.random.default_rng(3)
    X, X_test = rng.normal(size=(300, 6)), rng.normal(size=(80, 6))
    y = rng.integers(0, 3, size=300)
    model = BLSClassifier(n_windows=3, nodes_per_window=4, n_enhancement=q, reg=1e-3,
                          random_state=11).fit(X, y)
    I_want, scores_want, WD_want = _minmax_bls(X, np.eye(3)[y], X_test, 3, 4, q, 0.8, 1e-3,
                                               seed=11)
    np.testing.assert_allclose(model.sparse_weights_, WD_want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(model.broad_features(X_test), I_want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model._scores(X_test), scores_want, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("zero_column, zero_bias", [(False, False), (True, False), (True, True)])
def test_bls_shrink_when_no_enhancement_input_is_positive(zero_column, zero_bias):
    """l = s / max(T2) falls back to s / max |T2| when max(T2) <= 0, and to s when T2 is all
    zero (T2 = [Z, 0.1] Wh; Z >= 0 and Wh <= 0 here). Kills the fallback's block slice written
    'r0 - rows' (an empty block), 'not top > 0' → 'not top >= 0' (max(T2) exactly 0 with
    negative entries), its block loop started at row 1 and the final 'top > 0' → '>= 0' (a
    division by zero)."""
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=4, random_state=0)
    model.fit(np.linspace(0, 1, 40)[:, None], np.linspace(0, 1, 40))
    rng = np.random.default_rng(1)
    Z = rng.uniform(0, 1, size=(300, 6))
    Z[0] = 1.0  # the largest |T2| in the first row (of the first block)
    Wh = -rng.uniform(0.1, 1, size=(7, 5))
    if zero_column:
        Wh[:, 2] = 0.0  # max(T2) = 0 exactly, every other entry negative
    if zero_bias:
        Z[:], Wh[-1] = 0.0, 0.0  # T2 = 0 everywhere
    model._block_rows = lambda n_columns: 64  # several blocks
    T2 = np.hstack([Z, np.full((300, 1), 0.1)]) @ Wh
    assert T2.max() <= 0
    want = model.shrink / np.abs(T2).max() if np.abs(T2).max() > 0 else model.shrink
    assert model._enhancement_shrink(Z, Wh) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("n", [200, 30])  # primal (K is 42 × 42) and dual (30 × 30)
def test_bls_memory_check_counts_the_arrays_of_the_fit(n, monkeypatch):
    """A BLS fit runs with exactly the memory of the arrays it holds available (the docstring of
    _fit_bytes, counted here from the fitted model: the input and its scaled copy, A and Z, We,
    W_Dᵀ, Wh, one block of I, K and its Cholesky factor) and is refused with one byte less.
    Kills every constant and operator of the estimate (8 bytes → 7 or 9, the block term
    subtracted or divided by the nodes, the rows divided, the Gram subtracted, Wh's nk + 1 →
    nk); the estimate gave Wh a column per feature node too before (3.4% more for n = 30)."""
    from fastelm import _validation

    X, y = make_regression(n_samples=n, n_features=5, random_state=0)
    model = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=30, reg=1e-2,
                         random_state=0).fit(X, y)
    L = model.n_nodes_
    arrays = 8 * (2 * X.size + 2 * model.feature_nodes_.size + model.mapping_weights_.size
                  + model.sparse_weights_.size + model.enhancement_weights_[0].size
                  + min(n, model._block_rows(L)) * L + 2 * model.gram_.K.size)
    monkeypatch.setattr(_validation, "available_memory", lambda: arrays - 1)
    with pytest.raises(ValueError, match="n_enhancement=30, n_windows·nodes_per_window=12"):
        model.fit(X, y)
    monkeypatch.setattr(_validation, "available_memory", lambda: arrays)
    model.fit(X, y)



def test_bls_memory_check_counts_the_direct_links(monkeypatch):
    """Under direct links the Gram has a row and column per input too (47 × 47 here): a fit is
    refused one byte below the arrays counted from the fitted model (X', A, Z beside the inputs,
    We, W_Dᵀ, Wh, a block of I, K and its factor) and runs with 1% more (the estimate also
    gives Wh a column per input: 0.3%). Kills the links subtracted from the nodes the estimate
    is given."""
    from fastelm import _validation

    X, y = make_regression(n_samples=200, n_features=5, random_state=0)
    model = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=30, reg=1e-2,
                         direct_links=True, random_state=0).fit(X, y)
    L = model.n_nodes_
    assert L == 5 + 12 + 30 and model.gram_.K.shape == (L, L)
    arrays = 8 * (X.size + 200 * 12 + model.feature_nodes_.size + model.mapping_weights_.size
                  + model.sparse_weights_.size + model.enhancement_weights_[0].size
                  + min(200, model._block_rows(L)) * L + 2 * model.gram_.K.size)
    monkeypatch.setattr(_validation, "available_memory", lambda: arrays - 1)
    with pytest.raises(ValueError, match="needs about"):
        model.fit(X, y)
    monkeypatch.setattr(_validation, "available_memory", lambda: 1.01 * arrays)
    model.fit(X, y)

def test_typing_extensions_is_not_needed_at_run_time():
    """typing_extensions is not a dependency: the modules that take ``Self`` from it import it
    for the type checker only, and import in a process where it is absent (kills bls.py's 'if
    TYPE_CHECKING:' negated)."""
    import subprocess
    import sys
    from pathlib import Path

    package = Path(__file__).resolve().parents[1] / "fastelm"
    modules = sorted(f"fastelm.{p.stem}" for p in package.glob("*.py")
                     if "typing_extensions" in p.read_text(encoding="utf-8"))
    assert "fastelm.bls" in modules
    script = ("import importlib, sys\nsys.modules['typing_extensions'] = None\n"
              f"for name in {modules!r}:\n    importlib.import_module(name)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=package.parent, text=True,
                            capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr


def _check_ridge_state(model, X, Y, tol):
    """The model's Gram state, right-hand side and predictions on its rows (X, Y) against the
    ridge normal equations built here in float64 from its broad features."""
    F = model.broad_features(X).astype(np.float64)
    if model.gram_.form == "primal":
        K, rhs = F.T @ F + model.reg * np.eye(F.shape[1]), F.T @ Y
    else:
        K, rhs = F @ F.T + model.reg * np.eye(F.shape[0]), Y
    np.testing.assert_allclose(np.triu(model.gram_.K), np.triu(K), rtol=0,
                               atol=tol * np.abs(K).max())
    np.testing.assert_allclose(model.gram_.rhs, rhs, rtol=0, atol=tol * np.abs(rhs).max())
    want = F @ np.linalg.solve(F.T @ F + model.reg * np.eye(F.shape[1]), F.T @ Y)
    np.testing.assert_allclose(model.predict(X), want, rtol=0, atol=100 * tol * np.abs(want).max())


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-5)])
def test_bls_in_row_blocks_equals_ridge_after_every_step(dtype, tol, monkeypatch):
    """I built in blocks of 64 rows (float32 Gram flushes of 50), as on data larger than
    BLOCK_BYTES: a dual fit (100 rows, 162 nodes), rows added to the dual Gram, rows added (the
    switch to primal), nodes added, rows added to the primal Gram, rows removed, each compared
    with the ridge solution on the same broad features; the shrinks equal the one-block model's.
    No other test has more rows than a block, nor adds float32 rows to a dual Gram (kills the
    float32 test of _add_rows written 'gram.form <= "primal"')."""
    from fastelm import bls

    X, y = make_regression(n_samples=460, n_features=5, n_targets=2, noise=0.1, random_state=1)
    params = dict(n_windows=3, nodes_per_window=4, n_enhancement=150, reg=1e-2, random_state=0,
                  dtype=dtype)
    one_block = BLSRegressor(**params).fit(X[:100], y[:100]).add_rows(X[100:300], y[100:300])
    one_block.add_enhancement_nodes(8)
    monkeypatch.setattr(bls._BLS, "_block_rows", lambda self, n_columns: 64)
    monkeypatch.setattr(bls, "FLUSH_ROWS", 50)
    model = BLSRegressor(**params).fit(X[:100], y[:100])
    assert model.gram_.form == "dual"
    _check_ridge_state(model, X[:100], y[:100], tol)
    model.add_rows(X[100:130], y[100:130])
    assert model.gram_.form == "dual"
    _check_ridge_state(model, X[:130], y[:130], tol)
    model.add_rows(X[130:300], y[130:300])
    assert model.gram_.form == "primal"
    _check_ridge_state(model, X[:300], y[:300], tol)
    model.add_enhancement_nodes(8)
    _check_ridge_state(model, X[:300], y[:300], tol)
    np.testing.assert_array_equal(model.enhancement_shrink_, one_block.enhancement_shrink_)
    model.add_rows(X[300:], y[300:])
    _check_ridge_state(model, X, y, tol)
    model.remove_rows(np.arange(0, 460, 3))
    held = np.setdiff1d(np.arange(460), np.arange(0, 460, 3))
    _check_ridge_state(model, X[held], y[held], tol)


def test_bls_float32_rows_added_keep_the_gram_shifted():
    """float32 rows added to a primal Gram go through the shifted, flushed ssyrk sums: 3000 rows
    near the middle of the training range (feature columns with means far above their spread)
    leave K within 3e-8 of its largest entry (measured 4e-9; one unshifted float32 product of
    the rows, the float64 path given float32 blocks, gave 2e-7: kills the float32 test of
    _add_rows written 'gram.form > \"primal\"')."""
    X, y = make_regression(n_samples=3200, n_features=5, n_targets=2, noise=0.1, random_state=1)
    X[200:] *= 0.1
    model = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=30, reg=1e-2,
                         random_state=0, dtype="float32").fit(X[:200], y[:200])
    model.add_rows(X[200:], y[200:])
    F = model.broad_features(X).astype(np.float64)
    K = F.T @ F + model.reg * np.eye(F.shape[1])
    assert np.abs(np.triu(model.gram_.K) - np.triu(K)).max() <= 3e-8 * np.abs(K).max()


@pytest.mark.parametrize("top_row", [0, 63, 64, 299])  # first and last rows of 64-row blocks
def test_bls_shrink_is_over_every_row(top_row):
    """l = s / max(T2) with the largest T2 in the first or last row of a block (kills the
    shrink's block loop started at row 1)."""
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=4, random_state=0)
    model.fit(np.linspace(0, 1, 40)[:, None], np.linspace(0, 1, 40))
    model._block_rows = lambda n_columns: 64
    rng = np.random.default_rng(2)
    Z, Wh = rng.uniform(0, 0.5, size=(300, 6)), rng.uniform(0.1, 1, size=(7, 5))
    Z[top_row] = 1.0
    T2 = np.hstack([Z, np.full((300, 1), 0.1)]) @ Wh
    assert (T2.argmax(axis=0) == top_row).all()
    assert model._enhancement_shrink(Z, Wh) == pytest.approx(model.shrink / T2.max(), rel=1e-12)


@pytest.mark.parametrize("n_enhancement", [30, 300])  # primal (200 rows, 42 nodes) and dual
def test_bls_remove_rows_after_the_gram_is_dropped(n_enhancement):
    """gram_ = None frees the Gram state and the next increment rebuilds it (the attribute's
    doc), remove_rows included (kills its 'gram is None or ...' written with 'and')."""
    X, y = make_regression(n_samples=200, n_features=5, n_targets=2, random_state=3)
    model = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=n_enhancement,
                         reg=1e-2, random_state=0).fit(X, y)
    model.gram_ = None
    model.remove_rows(np.arange(0, 200, 4))
    held = np.setdiff1d(np.arange(200), np.arange(0, 200, 4))
    _check_ridge_state(model, X[held], y[held], 1e-10)


class _OnesGenerator:
    """A stand-in Generator whose uniform draws are all ones (a rank-one matrix)."""

    def uniform(self, low, high, size):
        return np.ones(size)


@pytest.mark.parametrize("n_inputs, n_nodes", [(6, 3), (3, 6)])  # columns / rows orthonormal
def test_bls_rank_deficient_enhancement_weights_are_refused(n_inputs, n_nodes):
    """orth of a rank-deficient draw has fewer columns (rows) than asked: refused, not passed on
    as a narrower Wh (kills 'W.shape != R.shape' → '>'); a full-rank draw gives orthonormal
    columns (rows)."""
    from fastelm.bls import draw_enhancement_weights

    with pytest.raises(np.linalg.LinAlgError, match="rank deficient; reseed"):
        draw_enhancement_weights(_OnesGenerator(), n_inputs, n_nodes, np.float64)
    W = draw_enhancement_weights(np.random.default_rng(0), n_inputs, n_nodes, np.float64)
    assert W.shape == (n_inputs, n_nodes)
    gram = W.T @ W if n_inputs >= n_nodes else W @ W.T
    np.testing.assert_allclose(gram, np.eye(min(n_inputs, n_nodes)), atol=1e-12)


def test_bls_minmax_treats_a_round_off_range_as_constant():
    """A column whose training range is round-off (at most CONSTANT_RANGE = 1e-12 times its
    magnitude: 1.7e9 and the next float64, 2.4e-7 apart) is constant (gain 0), like an exactly
    constant one; a range of 1e-11 times the magnitude is scaled (kills 'xrange <= ...' → '==',
    where only the exact constant, through its infinite gain, is caught)."""
    from fastelm.bls import minmax_parameters

    big = 1.7e9
    X = np.array([[big, big, big, 0.0], [np.nextafter(big, np.inf), big, big * (1 + 1e-11), 1.0]])
    _, gain = minmax_parameters(X, 0.0, 1.0)
    np.testing.assert_array_equal(gain[:2], 0.0)
    np.testing.assert_allclose(gain[2:], [1 / (big * 1e-11), 1.0], rtol=1e-4)
    # "at most": a range of exactly 1e-12 times the magnitude is constant (kills '<=' → '<')
    hi = 8000 * 2.0 ** -53 / 1e-12
    lo = hi - 1e-12 * hi
    assert lo < hi and hi - lo == 1e-12 * hi
    _, gain = minmax_parameters(np.array([[lo], [hi]]), 0.0, 1.0)
    np.testing.assert_array_equal(gain, 0.0)


def test_bls_too_wide_message_names_the_first_wide_column():
    """Two columns too wide to min-max scale: the message names the first and its own span
    (kills 'wide[0]' → 'wide[-1]' for the column number, which printed column 2 with column 1's
    span)."""
    X = np.random.default_rng(0).standard_normal((10, 4))
    X[0, 1], X[1, 1] = -1e308, 1e308
    X[0, 2], X[1, 2] = -5e307, 1.5e308
    with pytest.raises(ValueError, match=r"column 1 of the inputs spans \[-1e\+308, 1e\+308\]"):
        BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10).fit(X, X[:, 0])


def test_bls_float32_singular_message_gives_the_measured_reg():
    """The float32 LinAlgError's hint names the smallest reg measured to work on MNIST, 0.001
    (kills F32_REG_HINT made negative)."""
    X, y = make_regression(n_samples=3000, n_features=5, random_state=1)
    with pytest.raises(np.linalg.LinAlgError, match=r"\(MNIST, 60000 rows: reg >= 0\.001\)"):
        BLSRegressor(n_enhancement=300, reg=0.0, random_state=0, dtype="float32").fit(X, y)


def test_bls_broad_features_checks_the_feature_count_without_resetting_it():
    """broad_features on rows of another width is refused by the fitted model's feature check
    and leaves n_features_in_ as fitted (kills validate_data(..., reset=True) there, which
    re-learned 3 features and failed later in a matrix product)."""
    X, y = make_regression(n_samples=60, n_features=5, random_state=0)
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10,
                         random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="X has 3 features, but BLSRegressor is expecting 5"):
        model.broad_features(X[:, :3])
    assert model.n_features_in_ == 5


def test_bls_reference_mode_takes_a_column_too_wide_to_min_max_scale():
    """'reference' z-scores rows and never min-max scales the inputs, so a column spanning
    [-1e308, 1e308] is no error there (kills 'preprocessing == "minmax"' → '>=' in _fit_layer,
    which computed the input min-max scaling in 'reference' mode too and refused the column)."""
    X = np.random.default_rng(0).standard_normal((30, 4))
    X[0, 1], X[1, 1] = -1e308, 1e308
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10,
                         preprocessing="reference", random_state=0).fit(X, X[:, 0])
    assert np.isfinite(model.predict(X)).all() and not hasattr(model, "x_gain_")
