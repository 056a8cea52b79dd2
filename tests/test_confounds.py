"""ConfoundRegressor: residuals of the training rows' regression, never informed by test rows."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import check_estimator

from fastelm.confounds import ConfoundRegressor


def _data(n=90, seed=0):
    rng = np.random.default_rng(seed)
    sites = rng.integers(0, 3, n)
    C = np.eye(3)[sites]
    F = rng.standard_normal((n, 6)) + np.array([0.0, 4.0, -3.0])[sites][:, None]
    return sites, np.hstack([C, F])


def test_one_hot_sites_remove_each_training_site_mean():
    sites, X = _data()
    R = ConfoundRegressor(n_confounds=3).fit(X).transform(X)
    for s in range(3):
        np.testing.assert_allclose(R[sites == s].mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(R, X[:, 3:] - np.array([X[sites == s, 3:].mean(axis=0)
                                                       for s in sites]), atol=1e-12)


def test_fitted_on_training_rows_only():
    sites, X = _data()
    train, test = np.arange(60), np.arange(60, 90)
    a = ConfoundRegressor(n_confounds=3).fit(X[train])
    changed = X.copy()
    changed[test, 3:] += 100.0  # test subjects' features: the fitted correction must not move
    b = ConfoundRegressor(n_confounds=3).fit(changed[train])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_allclose(a.transform(X[test]), b.transform(changed[test]) - 100.0)


def test_unseen_site_gets_the_pooled_intercept_and_scale():
    sites, X = _data()
    train = sites != 2
    model = ConfoundRegressor(n_confounds=3, scale=True).fit(X[train])
    R = model.transform(X[~train])
    pooled = X[train, 3:] - model.coef_[0] - X[train, :3] @ model.coef_[1:]
    expected = (X[~train, 3:] - model.coef_[0]) / pooled.std(axis=0)
    np.testing.assert_allclose(R, expected, atol=1e-12)
    # seen sites: unit residual sd within each site
    Rt = model.transform(X[train])
    for s in (0, 1):
        np.testing.assert_allclose(Rt[sites[train] == s].std(axis=0), 1.0, rtol=1e-12)


@pytest.mark.mutant
def test_scale_takes_each_rows_first_nonzero_confound_and_floors_a_zero_scale():
    """Confounds [site one-hot | age]: a row's group is its site (the first nonzero column),
    not age, so each training site's residuals have unit sd; an all-zero feature has residual
    scale 0, floored to 1, giving zeros (planted: the group from the last nonzero column, one
    pooled scale; the floor removed, 0/0)."""
    sites, X = _data()
    age = np.random.default_rng(1).uniform(20.0, 40.0, len(sites))
    X = np.hstack([X[:, :3], age[:, None], np.zeros((len(sites), 1)), X[:, 3:]])
    model = ConfoundRegressor(n_confounds=4, scale=True).fit(X)
    R = model.transform(X)
    np.testing.assert_allclose(R[:, 0], 0.0, atol=1e-12)
    for s in range(3):
        np.testing.assert_allclose(R[sites == s, 1:].std(axis=0), 1.0, rtol=1e-12)


def test_in_a_pipeline_and_bad_input():
    sites, X = _data()
    y = (sites + np.arange(len(sites))) % 2
    assert make_pipeline(ConfoundRegressor(3), LogisticRegression()).fit(X, y).score(X, y) > 0
    with pytest.raises(ValueError, match="n_confounds"):
        ConfoundRegressor(n_confounds=9).fit(X)
    with pytest.raises(ValueError, match="n_confounds"):
        ConfoundRegressor(n_confounds=0).fit(X)


def test_scikit_learn_conventions():
    check_estimator(ConfoundRegressor())
