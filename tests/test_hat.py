"""The penalty rules of ``fastelm._hat``: GCV from the Gram sums alone against its definition
n‖T − H_α T‖² / (n − tr H_α)² on the explicit hat matrix, and ``alpha='gcv'`` of the plain
ELMs against a grid of fixed-penalty fits."""
import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression

from fastelm import ELMClassifier, ELMRegressor
from fastelm import _hat as hat
from fastelm._gram import gram_sums
from fastelm._hat import (bordered_gcv_sums_scores, bordered_hat_scores, bordered_pays,
                          gcv_dual_penalty, gcv_scores, gcv_sums_penalty, gcv_sums_scores, hat_spectrum,
                          scaled_grid, tridiagonal_gcv)
from fastelm._hidden import HiddenMap, random_weights


def _explicit_gcv(A, T, alpha):
    n, p = A.shape
    H = A @ np.linalg.solve(A.T @ A + alpha * np.eye(p), A.T)
    e = T - H @ T
    return -n * np.sum(e * e) / (n - np.trace(H)) ** 2 / T.shape[1]


@pytest.mark.parametrize("n, p", [(200, 30), (40, 90), (60, 60)])
def test_gcv_scores_equal_the_explicit_hat_matrix_in_both_forms(n, p):
    rng = np.random.default_rng(n + p)
    A = rng.normal(size=(n, p)) @ np.diag(np.geomspace(1, 1e-4, p))  # ill-conditioned
    T = rng.normal(size=(n, 3))
    alphas = [1e-6, 1e-3, 0.1, 10.0]
    expected = [_explicit_gcv(A, T, a) for a in alphas]
    if p <= n:  # the primal form, from the sums alone
        got = gcv_sums_scores(A.T @ A, A.T @ T, T.T @ T, n, alphas)
        np.testing.assert_allclose(got, expected, rtol=1e-6)
    lam, U = np.linalg.eigh(A @ A.T)  # the dual form
    C = U.T @ T
    got = gcv_scores(lam, (C * C).sum(axis=1), np.sum(T * T), n, 3, False, alphas)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


@pytest.mark.parametrize("n, p", [(200, 30), (40, 90), (1, 1), (5, 1)])
def test_tridiagonal_gcv_equals_the_explicit_hat_matrix_in_both_forms(n, p):
    rng = np.random.default_rng(7 * n + p)
    A = rng.normal(size=(n, p)) @ np.diag(np.geomspace(1, 1e-3, p))
    T = rng.normal(size=(n, 2))
    alphas = [1e-5, 1e-2, 1.0, 100.0]
    expected = [_explicit_gcv(A, T, a) for a in alphas]
    if p < n:  # (at p = n the fit interpolates: ||e||² from the sums cancels to ~eps·tr TᵀT)
        got = tridiagonal_gcv(A.T @ A, A.T @ T, np.sum(T * T), n, True, alphas)
        np.testing.assert_allclose(got, expected, rtol=1e-8)
    got = tridiagonal_gcv(A @ A.T, T, np.sum(T * T), n, False, alphas)
    np.testing.assert_allclose(got, expected, rtol=1e-8)


@pytest.mark.parametrize("bordered", [True, False])  # as H is wide, or narrow, for its d
@pytest.mark.parametrize("d", [1, 4, 12])
def test_bordered_gcv_equals_the_explicit_hat_matrix_with_and_without_links(d, bordered,
                                                                            monkeypatch):
    """GCV of A = [X | H] and of H alone from one tridiagonalisation of HᵀH (the Schur
    complement of the d link columns) against the explicit hat matrices."""
    if bordered:  # 40 columns of H: bordered only below the default thresholds
        monkeypatch.setattr(hat, "BORDER_MIN_WIDTH", 0)
        monkeypatch.setattr(hat, "BORDER_MIN_RATIO", 0)
    rng = np.random.default_rng(d)
    X = rng.normal(size=(150, d))
    H = np.tanh(X @ rng.normal(size=(d, 40)) + rng.uniform(-1, 1, 40))  # correlated with X
    H[:, -1] = H[:, 0] + 1e-6 * rng.normal(size=150)  # a near-collinear pair
    A, T = np.hstack([X, H]), rng.normal(size=(150, 3))
    alphas = [1e-7, 1e-3, 0.1, 10.0]
    linked, unlinked = bordered_gcv_sums_scores(A.T @ A, A.T @ T, T.T @ T, 150, alphas, d)
    # the definition: at α = 1e-7, far below the collinear pair's eigenvalue gap, any score
    # from the sums (AᵀA squares the condition number) agrees with it to 1e-6 (as above)
    for got, B in ((linked, A), (unlinked, H)):
        expected = [_explicit_gcv(B, T, a) for a in alphas]
        np.testing.assert_allclose(got[:1], expected[:1], rtol=1e-6)
        np.testing.assert_allclose(got[1:], expected[1:], rtol=1e-8)
        # and the scores of each Gram matrix's own tridiagonalisation there
        own = gcv_sums_scores(B.T @ B, B.T @ T, T.T @ T, 150, alphas[1:])
        np.testing.assert_allclose(got[1:], own, rtol=1e-10)


def _explicit_loo(A, T, alpha):
    n = len(T)
    H = A @ np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T)
    e = (T - H @ T) / (1.0 - np.diag(H))[:, None]
    return -np.sum(e * e) / (n * T.shape[1])


@pytest.mark.parametrize("block", [1 << 30, 1])  # all penalties at once, or one at a time
@pytest.mark.parametrize("n, k", [(60, 20), (40, 70), (50, 50)])  # primal, dual, square H
def test_bordered_hat_scores_equal_the_definitions_with_and_without_links(n, k, block,
                                                                          monkeypatch):
    """Exact LOO and GCV of [X | H] and of H from H's spectrum alone (Schur complement in
    the primal form, Woodbury in the dual) against the explicit hat matrices."""
    monkeypatch.setattr(hat, "BORDER_BLOCK_BYTES", block)
    rng = np.random.default_rng(n + k)
    X = rng.normal(size=(n, 4))
    H = np.tanh(X @ rng.normal(size=(4, k)) + rng.uniform(-1, 1, k))
    A, T, alphas = np.hstack([X, H]), rng.normal(size=(n, 2)), [1e-3, 0.1, 10.0]
    for kind, explicit in (("loo", _explicit_loo), ("gcv", _explicit_gcv)):
        linked, unlinked = bordered_hat_scores(hat_spectrum(H, T), T, X, alphas, kind)
        np.testing.assert_allclose(linked, [explicit(A, T, a) for a in alphas], rtol=1e-8)
        np.testing.assert_allclose(unlinked, [explicit(H, T, a) for a in alphas], rtol=1e-8)


def test_bordered_pays_for_few_inputs_never_for_inputs_twice_the_rows():
    """The border of H's spectrum by d inputs pays for few inputs beside a wide H, and never
    for d ≥ 2n inputs: [X | H] then takes its n×n kernel (an eigh of order n), below one d×d
    inverse of the border per penalty (its d×d arrays would be (d/n)² the kernel's)."""
    assert bordered_pays(200, 150, 5, 23) and bordered_pays(1000, 800, 30, 23)
    for n in (10, 60, 1000):
        for r in {1, n // 2, n}:
            for a in (1, 23):
                assert not any(bordered_pays(n, r, d, a) for d in (2 * n, 50 * n)), (n, r, a)


def test_tridiagonal_gcv_solves_an_indefinite_shifted_matrix_by_pivoting():
    # G + αI indefinite (a round-off-negative eigenvalue larger than α): the Cholesky-like
    # tridiagonal solve fails and the pivoted LU must give (G + αI)⁻¹b all the same
    rng = np.random.default_rng(3)
    V = np.linalg.qr(rng.normal(size=(6, 6)))[0]
    lam = np.array([-1e-3, 0.5, 1.0, 2.0, 3.0, 4.0])
    G, R, alpha = V @ np.diag(lam) @ V.T, rng.normal(size=(6, 2)), 1e-4
    z = np.linalg.solve(G + alpha * np.eye(6), R)
    rss = 50.0 - np.sum(R * z) - alpha * np.sum(z * z)
    trace = np.sum(np.maximum(lam, 0) / (np.maximum(lam, 0) + alpha))
    expected = -20 * rss / (20 - trace) ** 2 / 2
    got = tridiagonal_gcv(G, R, 50.0, 20, True, [alpha])
    np.testing.assert_allclose(got, [expected], rtol=1e-8)


def test_gcv_penalty_is_the_best_of_the_scaled_grid_and_agrees_across_forms():
    rng = np.random.default_rng(1)
    A, T = rng.normal(size=(120, 20)), rng.normal(size=(120, 2))
    A[:, 0] *= 30  # the best penalty is interior, not an end of the grid
    T += A[:, :3] @ rng.normal(size=(3, 2))
    grid = scaled_grid(np.sum(A * A), 120, 20)
    scores = [_explicit_gcv(A, T, a) for a in grid]
    best = grid[int(np.argmax(scores))]
    assert grid[0] < best < grid[-1]
    sums = type("Sums", (), dict(n=120, AtA=A.T @ A, AtT=A.T @ T, TtT=T.T @ T))()
    assert gcv_sums_penalty(sums) == best
    assert gcv_dual_penalty(A, T, grid) == best  # the dual form on the same grid


@pytest.mark.parametrize("n_hidden, n", [(30, 200), (150, 80)])  # primal, dual
@pytest.mark.parametrize("Model", [ELMRegressor, ELMClassifier])
def test_elm_gcv_default_is_the_fixed_penalty_fit_at_the_chosen_alpha(Model, n_hidden, n):
    if Model is ELMRegressor:
        X, y = make_regression(n_samples=n, n_features=6, noise=5.0, random_state=0)
        T = y[:, None]
    else:
        X, y = make_classification(n_samples=n, n_features=6, n_classes=3, n_informative=4,
                                   random_state=0)
        T = np.eye(3)[y]
    auto = Model(n_hidden=n_hidden, random_state=3).fit(X, y)
    assert auto.alpha == "gcv"
    W, b = random_weights(np.random.default_rng(3), 6, n_hidden, np.float64, 1 / np.sqrt(6))
    A = np.tanh(X @ W + b)
    grid = scaled_grid(np.sum(A * A), n, n_hidden)
    expected = grid[int(np.argmax([_explicit_gcv(A, T, a) for a in grid]))]
    assert auto.alpha_ == pytest.approx(expected, rel=1e-9)  # the same grid point
    fixed = Model(n_hidden=n_hidden, random_state=3, alpha=auto.alpha_).fit(X, y)
    np.testing.assert_allclose(auto.beta_, fixed.beta_, rtol=1e-10, atol=1e-12)
    assert fixed.alpha_ == auto.alpha_


def test_gcv_from_sums_needs_no_rows():
    X, y = make_regression(n_samples=500, n_features=5, random_state=2)
    W, b = random_weights(np.random.default_rng(0), 5, 40, np.float64)
    fmap = HiddenMap(W, b, 0)
    whole = gram_sums(X, y[:, None], fmap)
    parts = gram_sums(X[:200], y[:200, None], fmap) + gram_sums(X[200:], y[200:, None], fmap)
    assert gcv_sums_penalty(whole) == gcv_sums_penalty(parts)


def test_bad_alpha_strings_get_one_line_errors():
    X, y = make_regression(n_samples=50, n_features=3, random_state=0)
    with pytest.raises(ValueError, match="alpha"):
        ELMRegressor(alpha="loo").fit(X, y)
