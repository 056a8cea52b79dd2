"""fastelm._gram: the Gram sums of a ridge readout, their algebra and the blocked in-memory pass."""
import pickle

import numpy as np
import pytest

from fastelm._gram import GramSums, gram_sums, ridge_readout
from fastelm._hidden import HiddenMap, hidden_layer
from fastelm._ridge import ridge_fit


def _problem(n, d=5, L=40, m=2, seed=8):
    rng = np.random.default_rng(seed)
    X, T = rng.standard_normal((n, d)), rng.standard_normal((n, m))
    return X, T, HiddenMap(rng.uniform(-1, 1, (d, L)), rng.uniform(-1, 1, L), 0)


@pytest.mark.parametrize("n", [1000, 4097])
def test_blocked_sums_equal_products_of_the_full_matrices(n):
    X, T, fmap = _problem(n)
    A = hidden_layer(X, fmap.W, fmap.b, fmap.activation)
    sums = gram_sums(X, T, fmap, block_rows=300)
    assert sums.n == n
    for got, expected in ((sums.AtA, A.T @ A), (sums.AtT, A.T @ T), (sums.TtT, T.T @ T)):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-10)
    np.testing.assert_array_equal(fmap.transform(X), A)


@pytest.mark.parametrize("n", [10, 1000, 4097])
def test_readout_equals_ridge_on_the_full_matrix(n):
    X, T, fmap = _problem(n)
    expected = ridge_fit(hidden_layer(X, fmap.W, fmap.b, 0), T, 1e-2)
    got, used = ridge_readout(X, T, fmap, 1e-2, block_rows=300)
    assert used == 1e-2
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_sums_add_and_subtract_by_rows():
    X, T, fmap = _problem(900)
    total = gram_sums(X, T, fmap)
    fold = gram_sums(X[:300], T[:300], fmap)
    rest = gram_sums(X[300:], T[300:], fmap)
    for got, expected in ((fold + rest, total), (total - fold, rest)):
        assert got.n == expected.n
        for name in ("AtA", "AtT", "TtT"):
            np.testing.assert_allclose(getattr(got, name), getattr(expected, name), rtol=1e-10,
                                       atol=1e-9)
    # the residual from the sums alone: ||A beta - T||^2 = TtT - 2 beta'AtT + beta'AtA beta
    beta = rest.solve(1e-2)
    A = fmap.transform(X[300:])
    direct = ((A @ beta - T[300:]) ** 2).sum()
    from_sums = np.trace(rest.TtT - 2 * beta.T @ rest.AtT + beta.T @ rest.AtA @ beta)
    assert from_sums == pytest.approx(direct, rel=1e-8)
    assert (GramSums.zeros(40, 2) + total).n == total.n


def test_solve_leaves_the_sums_unchanged_and_maps_pickle():
    X, T, fmap = _problem(500)
    sums = gram_sums(X, T, fmap)
    before = sums.AtA.copy()
    sums.solve(1.0)
    np.testing.assert_array_equal(sums.AtA, before)
    again = pickle.loads(pickle.dumps(fmap))
    np.testing.assert_array_equal(again.transform(X), fmap.transform(X))
    np.testing.assert_array_equal(fmap.transform(X, parallel=False), fmap.transform(X))
    assert gram_sums(X[:0], T[:0], fmap).n == 0


@pytest.mark.mutant
def test_sums_of_no_rows_are_zeros_and_of_one_row_its_products():
    """``gram_sums`` of 0 rows: zero AᵀA, AᵀT, TᵀT of the right shapes in the map's dtype (not
    an uninitialised buffer); of 1 row: its outer products (not the zeros of no rows)."""
    X, T, fmap = _problem(3)
    empty = gram_sums(X[:0], T[:0], fmap)
    for got, shape in ((empty.AtA, (40, 40)), (empty.AtT, (40, 2)), (empty.TtT, (2, 2))):
        assert got.shape == shape and got.dtype == fmap.dtype and not got.any()
    one = gram_sums(X[:1], T[:1], fmap)
    a, t = fmap.transform(X[:1])[0], T[0]
    assert one.n == 1
    for got, expected in ((one.AtA, np.outer(a, a)), (one.AtT, np.outer(a, t)),
                          (one.TtT, np.outer(t, t))):
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-15)


@pytest.mark.mutant
def test_sums_are_frozen_and_compared_by_identity():
    """``GramSums`` is immutable (a fold's sums are shared by every split) and, holding arrays,
    compares by identity: ``==`` never asks an array for one truth value, and it hashes."""
    import dataclasses

    X, T, fmap = _problem(50)
    sums = gram_sums(X, T, fmap)
    with pytest.raises(dataclasses.FrozenInstanceError):
        sums.n = 0
    again = gram_sums(X, T, fmap)
    assert sums == sums and sums != again and len({sums, again}) == 2


@pytest.mark.mutant
def test_readout_takes_the_dual_form_only_below_the_width(monkeypatch):
    """n ≥ p: the sums (A never whole, no n×n kernel); n < p: ridge_fit on the full A. Both
    give the same beta, so only the path shows which form was taken."""
    import fastelm._gram as gram

    calls = []
    monkeypatch.setattr(gram, "ridge_fit", lambda A, T, alpha: calls.append(A.shape) or
                        ridge_fit(A, T, alpha))
    for n in (1000, 40, 10):  # the map's width is 40
        X, T, fmap = _problem(n)
        ridge_readout(X, T, fmap, 1e-2)
    assert calls == [(10, 40)]
