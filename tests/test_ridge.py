import numpy as np
import pytest
from scipy.linalg import LinAlgWarning

from fastelm._ridge import ridge_fit
from fastelm._recursive_ridge import RecursiveRidge


def _reference(H, T, alpha):
    return np.linalg.solve(H.T @ H + alpha * np.eye(H.shape[1]), H.T @ T)


@pytest.mark.parametrize("n,L", [(300, 40), (25, 90)])  # primal and dual
def test_ridge_equals_normal_equations(n, L):
    rng = np.random.default_rng(0)
    H, T = rng.standard_normal((n, L)), rng.standard_normal((n, 3))
    np.testing.assert_allclose(ridge_fit(H, T, 0.3), _reference(H, T, 0.3), rtol=1e-9, atol=1e-12)


def test_singular_system_warns_and_gives_min_norm_solution():
    rng = np.random.default_rng(1)
    half = rng.standard_normal((100, 6))
    H, T = np.hstack([half, half]), rng.standard_normal((100, 2))
    with pytest.warns(LinAlgWarning, match="singular"):
        beta = ridge_fit(H, T, 0.0)
    np.testing.assert_allclose(beta, np.linalg.lstsq(H, T, rcond=None)[0], atol=1e-10)


def test_float32_ridge_keeps_dtype_and_accuracy():
    rng = np.random.default_rng(2)
    H = np.tanh(rng.standard_normal((500, 30))).astype(np.float32)
    T = rng.standard_normal((500, 2)).astype(np.float32)
    beta = ridge_fit(H, T, 1e-2)
    assert beta.dtype == np.float32
    ref = _reference(H.astype(np.float64), T.astype(np.float64), 1e-2)
    np.testing.assert_allclose(beta, ref, rtol=1e-3, atol=1e-4)


@pytest.mark.parametrize("chunks", [[600], [3, 40, 557], [1] * 30 + [570], [120] + [6] * 80])
def test_recursive_ridge_equals_batch_after_any_chunking(chunks):
    rng = np.random.default_rng(3)
    H = np.tanh(rng.standard_normal((600, 60)))
    T = rng.standard_normal((600, 2))
    rls, start = RecursiveRidge(60, 2, 1e-3), 0
    for size in chunks:
        rls.update(H[start:start + size], T[start:start + size])
        start += size
        batch = ridge_fit(H[:start], T[:start], 1e-3)
        np.testing.assert_allclose(H @ rls.beta, H @ batch, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(rls.K, H.T @ H + 1e-3 * np.eye(60), rtol=1e-12, atol=1e-10)


def test_form_choice_follows_flop_counts():
    rls = RecursiveRidge(200, 1, 1e-2)
    rng = np.random.default_rng(4)
    rls.update(np.tanh(rng.standard_normal((400, 200))), rng.standard_normal((400, 1)))
    assert rls.choose_form(2) == "woodbury"
    assert rls.choose_form(2000) == "information"
    assert RecursiveRidge(200, 1, 1e-2).choose_form(2) == "information"  # nothing seen yet


@pytest.mark.parametrize("form", ["woodbury", "information"])
def test_both_forms_give_the_same_update(form):
    rng = np.random.default_rng(5)
    H, T = np.tanh(rng.standard_normal((300, 50))), rng.standard_normal((300, 1))
    rls = RecursiveRidge(50, 1, 1e-2)
    rls.update(H[:200], T[:200])
    rls.update(H[200:], T[200:], form=form)
    np.testing.assert_allclose(rls.beta, ridge_fit(H, T, 1e-2), rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="form"):
        rls.update(H[:2], T[:2], form="qr")


def test_woodbury_P_stays_inverse_of_K():
    rng = np.random.default_rng(6)
    H, T = np.tanh(rng.standard_normal((400, 30))), rng.standard_normal((400, 1))
    rls = RecursiveRidge(30, 1, 1e-2)
    rls.update(H[:100], T[:100])
    for s in range(100, 400, 5):
        rls.update(H[s:s + 5], T[s:s + 5], form="woodbury")
    np.testing.assert_allclose(rls.P @ rls.K, np.eye(30), atol=1e-9)
    assert np.array_equal(rls.P, rls.P.T)


@pytest.mark.parametrize("form", ["woodbury", "information"])
def test_removing_nodes_equals_ridge_on_kept_nodes_and_stays_equal(form):
    rng = np.random.default_rng(7)
    H, T = np.tanh(rng.standard_normal((900, 80))), rng.standard_normal((900, 2))
    rls = RecursiveRidge(80, 2, 1e-2)
    rls.update(H[:300], T[:300])
    keep = rls.remove_nodes([0, 5, 6, 79, 40])
    assert keep.size == 75 and rls.K.shape == (75, 75)
    np.testing.assert_allclose(rls.beta, ridge_fit(H[:300, keep], T[:300], 1e-2), rtol=1e-8)
    rls.update(H[300:600, keep], T[300:600], form=form)
    keep2 = keep[rls.remove_nodes(np.arange(0, 75, 3))]
    rls.update(H[600:, keep2], T[600:], form=form)
    np.testing.assert_allclose(rls.beta, ridge_fit(H[:, keep2], T, 1e-2), rtol=1e-8, atol=1e-12)


def test_remove_nodes_rejects_bad_indices():
    rls = RecursiveRidge(5, 1, 1.0)
    with pytest.raises(ValueError, match="indices"):
        rls.remove_nodes([5])
    with pytest.raises(ValueError, match="every hidden node"):
        rls.remove_nodes(range(5))


def test_information_steps_are_lazy_and_handed_out_betas_stay_put():
    rng = np.random.default_rng(9)
    H, T = np.tanh(rng.standard_normal((700, 40))), rng.standard_normal((700, 2))
    rls = RecursiveRidge(40, 2, 1e-2)
    rls.update(H[:100], T[:100])
    assert rls._beta is None  # no solve until beta is read
    first = rls.beta
    assert rls.beta is first  # solved once
    kept = first.copy()
    rls.update(H[100:300], T[100:300], form="information")
    rls.update(H[300:305], T[300:305], form="woodbury")
    rls.update(H[305:700], T[305:700])
    assert np.array_equal(first, kept)
    np.testing.assert_allclose(rls.beta, ridge_fit(H, T, 1e-2), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(rls.HtT, H.T @ T, rtol=1e-12, atol=1e-12)
    assert rls.beta_as(np.float32).dtype == np.float32
    assert rls.beta_as(np.float32) is rls.beta_as(np.float32)


def test_state_pickled_before_the_lazy_solve_still_loads():
    import pickle
    rng = np.random.default_rng(10)
    H, T = np.tanh(rng.standard_normal((200, 20))), rng.standard_normal((200, 1))
    rls = RecursiveRidge(20, 1, 1e-2)
    rls.update(H, T)
    old = RecursiveRidge.__new__(RecursiveRidge)  # the attributes an older version pickled
    old.__dict__.update(alpha=rls.alpha, K=rls.K.copy(), P=None, beta=rls.beta.copy(),
                        n_seen=rls.n_seen, forms=list(rls.forms))
    loaded = pickle.loads(pickle.dumps(old))
    np.testing.assert_allclose(loaded.HtT, H.T @ T, rtol=1e-10, atol=1e-12)
    loaded.update(H[:50], T[:50])
    rls.update(H[:50], T[:50])
    np.testing.assert_allclose(loaded.beta, rls.beta, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ _ridge (cosmic-ray survivors)
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).


@pytest.mark.mutant
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


@pytest.mark.mutant
def test_singular_ridge_warning_points_at_the_caller():
    """The LinAlgWarning of the eigen fallback is reported at the line that called the
    estimator-level solve (stacklevel 3: spd_solve ← ridge_fit ← caller)."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import ridge_fit

    H = np.ones((6, 2))  # rank 1, alpha = 0: singular
    with pytest.warns(LinAlgWarning) as record:
        ridge_fit(H, np.ones((6, 1)), 0.0)
    assert record[0].filename == __file__


@pytest.mark.mutant
def test_pseudo_solve_cut_off_is_relative_to_the_largest_eigenvalue():
    """K = diag(1e-6, 1e-20): Cholesky is refused (rcond 1e-14), and the eigen cut-off
    n·eps·max(w) = 4.4e-22 keeps both eigenvalues, so K⁻¹b is exact; an absolute cut-off
    (max(w.max(), 1)) would drop 1e-20."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import spd_solve

    with pytest.warns(LinAlgWarning):
        x = spd_solve(np.diag([1e-6, 1e-20]), np.ones((2, 1)))
    np.testing.assert_allclose(x.ravel(), [1e6, 1e20], rtol=1e-12)


@pytest.mark.mutant
def test_pseudo_solve_of_a_zero_system_is_zero():
    """K = 0 (alpha = 0 and all-zero hidden outputs): the pseudo-inverse keeps no eigenvalue
    and the solution is 0, not 0/0 (kills the cut-off written with '>=')."""
    from scipy.linalg import LinAlgWarning

    from fastelm._ridge import spd_solve

    with pytest.warns(LinAlgWarning):
        x = spd_solve(np.zeros((3, 3)), np.ones((3, 2)))
    np.testing.assert_array_equal(x, 0.0)
