"""Cross-validation from Gram sums (fastelm.model_selection) equals GridSearchCV over the base
estimator: same grid, splits and scorer, every mean_test_score to 1e-8 relative (float64)."""
import pickle

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.model_selection import GridSearchCV, KFold, StratifiedKFold
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm import (BLSClassifier, BLSClassifierCV, BLSRegressor, BLSRegressorCV,
                     ELMClassifier, ELMClassifierCV, ELMRegressor, ELMRegressorCV,
                     OSELMClassifier, OSELMRegressor)
from fastelm._targets import one_hot

RTOL = 1e-8


def neg_mse_of_targets(estimator, X, y):
    """The CV estimators' default score for classifiers: −mean squared error of the readout
    scores against the coded one-hot targets (what RidgeClassifierCV minimises)."""
    T = one_hot(np.asarray(y), estimator.classes_, np.float64)
    if hasattr(estimator, "_code_targets"):
        T = estimator._code_targets(T)
    return -np.mean((estimator._scores(X) - T) ** 2)


def regression_data(n=240, d=6, m=1, seed=0):
    X, y = make_regression(n_samples=n, n_features=d, n_targets=m, noise=5.0,
                           random_state=seed)
    return X, y / y.std(axis=0)


def classification_data(n=240, d=8, classes=3, seed=0):
    return make_classification(n_samples=n, n_features=d, n_informative=5, n_classes=classes,
                               random_state=seed)


def assert_same_search(ours, grid):
    assert ours.cv_results_["params"] == grid.cv_results_["params"]
    for key in ["mean_test_score"] + [f"split{k}_test_score" for k in range(grid.n_splits_)]:
        np.testing.assert_allclose(ours.cv_results_[key], grid.cv_results_[key], rtol=RTOL,
                                   err_msg=key)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  grid.cv_results_["rank_test_score"])
    assert ours.best_params_ == grid.best_params_
    assert ours.best_score_ == pytest.approx(grid.best_score_, rel=RTOL, nan_ok=True)


# 240 rows in 5 folds: 192 training rows, so the 250-node points take the dual form
ALPHAS = [1e-3, 1e-1, 10.0]
SIZES = [10, 60, 250]


@pytest.mark.parametrize("scoring", ["neg_mean_squared_error", "r2"])
@pytest.mark.parametrize("m", [1, 2])
def test_elm_regressor_cv_equals_grid_search(scoring, m):
    X, y = regression_data(m=m)
    cv = KFold(5, shuffle=True, random_state=1)
    ours = ELMRegressorCV(n_hidden=250, alphas=ALPHAS, hidden_sizes=SIZES, cv=cv,
                          scoring=None if scoring == "neg_mean_squared_error" else scoring,
                          direct_links=False, random_state=3).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=3), {"alpha": ALPHAS, "n_hidden": SIZES},
                        cv=cv, scoring=scoring).fit(X, y)
    assert_same_search(ours, grid)
    # the refit is the base estimator at the chosen point, on every row
    assert (ours.alpha_, ours.n_hidden_) == (grid.best_params_["alpha"],
                                             grid.best_params_["n_hidden"])
    np.testing.assert_allclose(ours.predict(X), grid.best_estimator_.predict(X), rtol=1e-9,
                               atol=1e-9)


@pytest.mark.parametrize("scoring", [None, "accuracy", "neg_log_loss", "roc_auc_ovr"])
def test_elm_classifier_cv_equals_grid_search(scoring):
    X, y = classification_data()
    cv = StratifiedKFold(4, shuffle=True, random_state=2)
    sizes = SIZES + [200]  # 180 training rows: 200 and 250 nodes take the dual form
    ours = ELMClassifierCV(n_hidden=250, alphas=ALPHAS, hidden_sizes=sizes, cv=cv,
                           scoring=scoring, direct_links=False, random_state=4).fit(X, y)
    grid = GridSearchCV(ELMClassifier(random_state=4), {"alpha": ALPHAS, "n_hidden": sizes},
                        cv=cv, scoring=scoring or neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)
    np.testing.assert_allclose(ours.decision_function(X),
                               grid.best_estimator_.decision_function(X), rtol=1e-9, atol=1e-9)


def test_elm_classifier_cv_two_classes_integer_cv_is_stratified_folds():
    X, y = classification_data(n=150, classes=2, seed=5)
    ours = ELMClassifierCV(n_hidden=80, alphas=ALPHAS, hidden_sizes=[20, 80], cv=5,
                           direct_links=False, random_state=0).fit(X, y)
    grid = GridSearchCV(ELMClassifier(random_state=0), {"alpha": ALPHAS, "n_hidden": [20, 80]},
                        cv=5, scoring=neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)


@pytest.mark.parametrize("Est", [ELMClassifierCV, BLSClassifierCV])
@pytest.mark.parametrize("wide", [False, True])
def test_default_cv_is_gcv_when_narrow_loo_when_wide_or_five_folds_with_a_scorer(Est, wide):
    """cv=None is the hat algebra with the default scoring: 'gcv' when the widest readout
    inputs are at most the rows, 'loo' (as RidgeCV's efficient LOO) when wider; scikit-learn's
    5 stratified folds with another scorer (the hat algebra scores the MSE only)."""
    X, y = classification_data(n=90, classes=2, seed=5)
    nodes = 120 if wide else 30
    small = dict(n_hidden=nodes, hidden_sizes=[10, nodes]) if Est is ELMClassifierCV else dict(
        n_windows=2, nodes_per_window=3, n_enhancement=nodes - 10)
    default = Est(random_state=0, **small).fit(X, y)
    kind = Est(random_state=0, cv="loo" if wide else "gcv", **small).fit(X, y)
    other = Est(random_state=0, cv="gcv" if wide else "loo", **small).fit(X, y)
    assert default.n_splits_ == 1
    for key in ("params", "mean_test_score", "rank_test_score"):
        np.testing.assert_array_equal(np.asarray(default.cv_results_[key], dtype=object),
                                      np.asarray(kind.cv_results_[key], dtype=object))
    assert not np.array_equal(default.cv_results_["mean_test_score"],
                              other.cv_results_["mean_test_score"])
    scored = Est(random_state=0, scoring="accuracy", **small).fit(X, y)
    assert scored.n_splits_ == 5


@pytest.mark.parametrize("preprocessing", ["minmax", "reference"])
@pytest.mark.parametrize("n_enhancement", [40, 300])  # 300 + 100 nodes > 192 rows: dual
def test_bls_regressor_cv_equals_grid_search(preprocessing, n_enhancement):
    X, y = regression_data()
    cv = KFold(5, shuffle=True, random_state=1)
    regs = [1e-4, 1e-2, 1.0]
    params = dict(n_enhancement=n_enhancement, preprocessing=preprocessing, random_state=3)
    ours = BLSRegressorCV(regs=regs, cv=cv, direct_links=False, **params).fit(X, y)
    grid = GridSearchCV(BLSRegressor(**params), {"reg": regs}, cv=cv,
                        scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)
    assert ours.reg_ == grid.best_params_["reg"]
    np.testing.assert_allclose(ours.predict(X), grid.best_estimator_.predict(X), rtol=1e-9,
                               atol=1e-9)


@pytest.mark.parametrize("preprocessing", ["minmax", "reference"])
@pytest.mark.parametrize("scoring", [None, "accuracy"])
def test_bls_classifier_cv_equals_grid_search(preprocessing, scoring):
    X, y = classification_data(d=40)  # 180 training rows: 40 + 100 + 120 columns, dual
    cv = StratifiedKFold(4, shuffle=True, random_state=2)
    regs = [1e-4, 1e-2, 1.0]
    params = dict(n_enhancement=120, preprocessing=preprocessing, random_state=3)
    ours = BLSClassifierCV(regs=regs, cv=cv, scoring=scoring, direct_links=[False, True],
                           **params).fit(X, y)
    grid = GridSearchCV(BLSClassifier(**params), {"reg": regs, "direct_links": [False, True]},
                        cv=cv, scoring=scoring or neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)
    assert (ours.reg_, ours.direct_links_) == (grid.best_params_["reg"],
                                               grid.best_params_["direct_links"])
    np.testing.assert_allclose(ours.decision_function(X),
                               grid.best_estimator_.decision_function(X), rtol=1e-9, atol=1e-9)


def shared_layer_scores(Base, X, y, params, grid, cv, scoring):
    """The oracle of ``shared_layer=True``: one BLS layer with direct links fitted on all rows,
    its I = [X' | Z | E] (``broad_features``), and per split and grid point an explicit ridge
    solve on the split's training rows of I (or of [Z | E] without links), scored on its
    validation rows."""
    layer = Base(reg=1.0, direct_links=True, **params).fit(X, y)
    I, T, d = layer.broad_features(X), layer.targets_, X.shape[1]
    scores = np.empty((len(grid), len(cv)))
    for i, point in enumerate(grid):
        A = I if point["direct_links"] else I[:, d:]
        for k, (tr, te) in enumerate(cv):
            beta = np.linalg.solve(A[tr].T @ A[tr] + point["reg"] * np.eye(A.shape[1]),
                                   A[tr].T @ T[tr])
            scores[i, k] = scoring(A[te] @ beta, T[te], y[te], layer)
    return scores


def _neg_mse(P, T, y, layer):
    return -np.mean((P - T) ** 2)


def _accuracy(P, T, y, layer):
    return np.mean(layer.classes_[P.argmax(axis=1)] == y)


@pytest.mark.parametrize("preprocessing", ["minmax", "reference"])
@pytest.mark.parametrize("n_enhancement", [20, 300])  # 12 + 20 (+ 30) nodes < 90 rows: primal
@pytest.mark.parametrize("scoring", [None, "accuracy"])
def test_bls_cv_shared_layer_scores_every_split_on_one_layer(preprocessing, n_enhancement,
                                                             scoring):
    """shared_layer=True: every split's score is that of a ridge readout on the split's rows of
    the one layer fitted on all rows (an explicit solve per split), for both link settings, in
    the primal (narrow) and dual (wide) forms; the refit is the BLS fitted on all rows at the
    chosen point (the same layer: its draws do not depend on the links)."""
    X, y = make_classification(n_samples=120, n_features=30, random_state=0)
    regs = [1e-3, 1e-1, 10.0]
    params = dict(n_windows=3, nodes_per_window=4, n_enhancement=n_enhancement,
                  preprocessing=preprocessing, random_state=3)
    splitter = StratifiedKFold(4, shuffle=True, random_state=1)
    ours = BLSClassifierCV(regs=regs, cv=splitter, scoring=scoring, direct_links=[False, True],
                           shared_layer=True, **params).fit(X, y)
    folds = list(splitter.split(X, y))
    expected = shared_layer_scores(BLSClassifier, X, y, params, ours.cv_results_["params"],
                                   folds, _accuracy if scoring else _neg_mse)
    got = np.array([ours.cv_results_[f"split{k}_test_score"] for k in range(4)]).T
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    refit = BLSClassifier(reg=ours.reg_, direct_links=ours.direct_links_, **params).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), refit.decision_function(X),
                               rtol=1e-9, atol=1e-9)  # the dual kernel summed in two parts
    assert ours.n_nodes_ == refit.n_nodes_


@pytest.mark.parametrize("link", [False, True])
def test_bls_cv_shared_layer_refit_keeps_the_chosen_links_and_grows(link):
    """A refit on the shared layer without (with) the chosen direct links has (no) X' columns,
    predicts like the BLS fitted at that point, pickles, and takes more enhancement nodes and
    rows as a BLS does."""
    X, y = regression_data(n=150, d=5)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=40, random_state=0)
    ours = BLSRegressorCV(regs=[1e-2, 1.0], direct_links=link, cv=3, shared_layer=True,
                          **params).fit(X[:120], y[:120])
    base = BLSRegressor(reg=ours.reg_, direct_links=link, **params).fit(X[:120], y[:120])
    assert ours.n_nodes_ == base.n_nodes_ == 6 + 40 + 5 * link
    np.testing.assert_allclose(ours.predict(X), base.predict(X), rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(ours)).predict(X), ours.predict(X))
    for model in (ours, base):
        model.add_enhancement_nodes(10).add_rows(X[120:], y[120:])
    np.testing.assert_allclose(ours.predict(X), base.predict(X), rtol=1e-8, atol=1e-9)
    assert not hasattr(ours, "_shared")


def test_bls_cv_refit_without_the_searched_links_drops_their_sums():
    """Links searched, no links chosen (a constant scorer ties every point: the first,
    direct_links=False, wins): the refit from the search's sums drops the X' block and
    predicts like the BLS fitted at that point."""
    X, y = regression_data(n=150, d=5)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=40, random_state=0)
    ours = BLSRegressorCV(regs=[1e-2, 1.0], direct_links=(False, True), cv=3,
                          shared_layer=True, scoring=lambda est, X, y: 0.0, **params).fit(X, y)
    assert ours.direct_links_ is False
    base = BLSRegressor(reg=ours.reg_, direct_links=False, **params).fit(X, y)
    assert ours.beta_.shape == base.beta_.shape
    np.testing.assert_allclose(ours.predict(X), base.predict(X), rtol=1e-9, atol=1e-10)


def test_singular_prefixes_take_the_estimators_eigen_fallback():
    """Linear nodes on 3 inputs: H has rank 4, so at alpha = 1e-12 the 20-node systems are
    numerically singular and are solved like ``_ridge.spd_solve`` (warned eigen pseudo-solve);
    the 3-node ones are not."""
    X, y = regression_data(n=150, d=3)
    cv = KFold(3, shuffle=True, random_state=0)
    grid_params = {"alpha": [1e-12, 1.0], "n_hidden": [3, 20]}
    with pytest.warns(Warning, match="singular"):
        ours = ELMRegressorCV(n_hidden=20, activation="linear", alphas=grid_params["alpha"],
                              hidden_sizes=grid_params["n_hidden"], cv=cv,
                              direct_links=False, random_state=0).fit(X, y)
    with pytest.warns(Warning, match="singular"):
        grid = GridSearchCV(ELMRegressor(activation="linear", random_state=0), grid_params,
                            cv=cv, scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)


def test_splits_that_are_not_a_partition():
    """Training rows that are not the complement of the test rows: sums of each split."""
    X, y = regression_data(n=120)
    rng = np.random.default_rng(0)
    splits = [(np.sort(rng.choice(120, 70, replace=False)), np.arange(k * 20, k * 20 + 30))
              for k in range(3)]
    ours = ELMRegressorCV(n_hidden=50, alphas=ALPHAS, hidden_sizes=[20, 50], cv=splits,
                          direct_links=False, random_state=0).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=0), {"alpha": ALPHAS, "n_hidden": [20, 50]},
                        cv=splits, scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)


@pytest.mark.mutant
def test_disjoint_test_folds_that_leave_rows_out_count_them_in_training():
    """Disjoint test folds covering 90 of 120 rows, each training split their complement: the
    30 rows in no test fold are in every training split, so the one-pass totals must add their
    sums (planted: the total of the folds' sums alone, which drops them from every training
    split: caught here, while every partition of the rows passes)."""
    X, y = regression_data(n=120)
    order = np.random.default_rng(2).permutation(120)
    splits = [(np.setdiff1d(np.arange(120), order[k * 30:(k + 1) * 30]),
               np.sort(order[k * 30:(k + 1) * 30])) for k in range(3)]
    ours = ELMRegressorCV(n_hidden=50, alphas=ALPHAS, hidden_sizes=[20, 50], cv=splits,
                          direct_links=False, random_state=0).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=0), {"alpha": ALPHAS, "n_hidden": [20, 50]},
                        cv=splits, scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)


# --------------------------------------------------------------------------- prefix property


@pytest.mark.parametrize("Estimator", [ELMRegressor, ELMClassifier, OSELMRegressor,
                                       OSELMClassifier])
def test_first_k_nodes_are_the_k_node_model(Estimator):
    X, y = classification_data(n=60)
    small = Estimator(n_hidden=7, random_state=11).fit(X, y)
    large = Estimator(n_hidden=40, random_state=11).fit(X, y)
    np.testing.assert_array_equal(small.W_, large.W_[:, :7])
    np.testing.assert_array_equal(small.b_, large.b_[:7])


def test_chosen_model_is_rebuilt_by_its_parameters():
    X, y = regression_data()
    cv = ELMRegressorCV(n_hidden=100, alphas=ALPHAS, hidden_sizes=[10, 30, 100],
                        direct_links=False, random_state=6).fit(X, y)
    rebuilt = ELMRegressor(n_hidden=cv.n_hidden_, alpha=cv.alpha_, random_state=6).fit(X, y)
    np.testing.assert_array_equal(cv.W_, rebuilt.W_)
    np.testing.assert_allclose(cv.beta_, rebuilt.beta_, rtol=1e-8, atol=1e-10)


# --------------------------------------------------------------------------- estimator API

SMALL = [ELMRegressorCV(n_hidden=20, alphas=[1e-2, 1.0], hidden_sizes=[5, 20], cv=3,
                        random_state=0),
         ELMClassifierCV(n_hidden=20, alphas=[1e-2, 1.0], hidden_sizes=[5, 20], cv=3,
                         random_state=0),
         BLSRegressorCV(n_windows=2, nodes_per_window=3, n_enhancement=10, regs=[1e-2, 1.0],
                        cv=3, random_state=0),
         BLSClassifierCV(n_windows=2, nodes_per_window=3, n_enhancement=10, regs=[1e-2, 1.0],
                         cv=3, random_state=0),
         BLSClassifierCV(n_windows=2, nodes_per_window=3, n_enhancement=10, regs=[1e-2, 1.0],
                         cv=3, random_state=0, shared_layer=True, direct_links=[False, True])]


@parametrize_with_checks(SMALL)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", SMALL, ids=lambda e: type(e).__name__)
def test_pickle_round_trip(estimator):
    X, y = classification_data(n=90)
    model = estimator.fit(X, y)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict(X), model.predict(X))
    assert again.best_params_ == model.best_params_


def test_cv_results_layout():
    X, y = regression_data(n=100)
    model = ELMRegressorCV(n_hidden=30, alphas=[1e-2, 1.0], hidden_sizes=[10, 30], cv=4,
                           direct_links=False, random_state=0).fit(X, y)
    results = model.cv_results_
    assert results["params"] == [{"alpha": a, "n_hidden": k} for a in (1e-2, 1.0)
                                 for k in (10, 30)]
    for key in ("mean_test_score", "std_test_score", "rank_test_score", "split3_test_score",
                "param_alpha", "param_n_hidden"):
        assert len(results[key]) == 4, key
    assert model.best_params_ == {"alpha": model.alpha_, "n_hidden": model.n_hidden_}
    assert results["rank_test_score"][model.best_index_] == 1


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("params, name", [
    (dict(alphas=[]), "alphas"), (dict(alphas=[1.0, 0.0]), "alphas"),
    (dict(alphas=[-1.0]), "alphas"), (dict(alphas=[np.nan]), "alphas"),
    (dict(hidden_sizes=[]), "hidden_sizes"), (dict(hidden_sizes=[5, 31]), "hidden_sizes"),
    (dict(hidden_sizes=[0]), "hidden_sizes"), (dict(direct_links="yes"), "direct_links"),
    (dict(weight_scale=0), "weight_scale"), (dict(weight_scale=[1.0, -1.0]), "weight_scale"),
    (dict(weight_scale=["auto", "x"]), "weight_scale"), (dict(weight_scale=[]), "weight_scale"),
    (dict(weight_scale=np.inf), "weight_scale"), (dict(weight_scale=None), "weight_scale"),
    (dict(scoring="neg_log_loss"), "scoring"), (dict(scoring="no_such_score"), "scoring"),
])
def test_bad_grids_raise_one_line_value_errors(params, name):
    X, y = regression_data(n=60)
    with pytest.raises(ValueError, match=name) as info:
        ELMRegressorCV(n_hidden=30, **params).fit(X, y)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("Estimator, params, name", [
    (BLSClassifierCV, dict(regs=[0.0]), "regs"), (BLSClassifierCV, dict(regs=[]), "regs"),
    (BLSClassifierCV, dict(regs=[-2.0, 1.0]), "regs"),
    (BLSClassifierCV, dict(direct_links=[]), "direct_links"),
    (BLSRegressorCV, dict(scoring="neg_log_loss"), "scoring"),
    (ELMRegressorCV, dict(scoring="roc_auc"), "scoring"),
])
def test_bad_bls_grids_and_probability_scorers_on_regressors(Estimator, params, name):
    X, y = classification_data(n=60, classes=2)
    with pytest.raises(ValueError, match=name) as info:
        Estimator(**params).fit(X, y)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("Estimator", [ELMClassifierCV, BLSClassifierCV])
def test_one_class_training_split(Estimator):
    X, y = classification_data(n=60, classes=2)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    first = np.flatnonzero(y == y[0])  # a split training on one class only
    splits = [(first, np.setdiff1d(np.arange(60), first))]
    with pytest.raises(ValueError, match="cv") as info:
        Estimator(cv=splits).fit(X, y)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("params, n", [
    (dict(n_hidden=10**9), 40),  # the layer's weights: 15 GiB
    (dict(n_hidden=20_000), 20_001),  # 8 primal sums of 20000² float64: 24 GiB
])
def test_search_too_large_for_memory_is_refused_before_allocating(params, n, monkeypatch):
    from fastelm import _validation

    monkeypatch.setattr(_validation, "available_memory", lambda: 2**30)
    X = np.linspace(0.0, 1.0, n)[:, None]
    with pytest.raises(ValueError, match=r"n_hidden=.* needs about [0-9.]+ GiB of memory, "
                                         r"more than the 1\.0 GiB available") as info:
        ELMRegressorCV(alphas=[1.0], **params).fit(X, X[:, 0])
    assert "\n" not in str(info.value)


def _peak_and_estimate(Estimator, X, y, monkeypatch, **params):
    """(peak bytes numpy allocated during fit, measured by tracemalloc, the estimate fit gave
    ``check_memory``); a first fit outside the measurement compiles and imports."""
    from fastelm.model_selection import _elm_cv

    estimates = []
    check = _elm_cv.check_memory
    monkeypatch.setattr(_elm_cv, "check_memory",
                        lambda nbytes, *args: (estimates.append(nbytes), check(nbytes, *args)))
    Estimator(random_state=0, **params).fit(X, y)
    return _fit_peak(Estimator(random_state=0, **params), X, y), estimates[-1]


def _fit_peak(model, X, y):
    """The peak bytes (numpy reports its buffers to tracemalloc) of ``model.fit(X, y)``."""
    import tracemalloc

    tracemalloc.start()
    try:
        model.fit(X, y)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


MEMORY_SHAPES = {  # (n, d, classes (0: regressor), params); 5-fold unless cv is given
    "primal": (300, 5, 0, dict(hidden_sizes=[20, 120], direct_links=False)),
    "primal-links-3fold": (300, 5, 0, dict(hidden_sizes=[20, 120], cv=3)),
    "primal-10fold-f32": (300, 5, 3, dict(hidden_sizes=[20, 100], cv=10, direct_links=False,
                                          dtype="float32")),
    "primal-scales": (300, 20, 0, dict(hidden_sizes=[20, 100], cv=3, weight_scale=[0.5, 2.0])),
    "primal-scorer": (600, 5, 0, dict(hidden_sizes=[60, 400], direct_links=False,
                                      scoring="r2")),
    "dual-above-n": (200, 5, 0, dict(hidden_sizes=[50, 400], direct_links=False)),
    "dual-links": (200, 30, 2, dict(hidden_sizes=[50, 300], cv=3)),
    "dual-below-n-f32": (200, 5, 0, dict(hidden_sizes=[50, 170], cv=10, direct_links=False,
                                         dtype="float32")),
    "dual-default-alphas": (200, 5, 3, dict(hidden_sizes=[50, 400], direct_links=False,
                                            alphas=None)),
    "gcv-links": (300, 5, 0, dict(hidden_sizes=[20, 120], cv="gcv")),
    "loo-dual-links": (200, 5, 0, dict(hidden_sizes=[50, 400], cv="loo")),
    "loo-dual-scales": (200, 5, 0, dict(hidden_sizes=[50, 400], cv="loo", direct_links=False,
                                        weight_scale=[0.5, 2.0])),
    "default-cv-f32": (400, 5, 0, dict(hidden_sizes=[40, 300], cv=None, alphas=None,
                                       dtype="float32")),
    "wide-links-f32": (60, 3000, 0, dict(hidden_sizes=[10, 200], dtype="float32")),
}


@pytest.mark.mutant
@pytest.mark.parametrize("shape", list(MEMORY_SHAPES))
def test_search_memory_estimate_bounds_the_peak(shape, monkeypatch):
    """The estimate ``check_memory`` refuses a search by and the default n_hidden halves by
    (``_cv_bytes``, ``_hat_bytes``) is at least the peak of the fit's numpy arrays and at most
    twice it, in the primal and dual forms, k-fold and 'loo'/'gcv' (planted: the estimate
    that counted one training sum of the 2F + 1 the fold sums hold, and a flat 64 MiB column
    block in the dual form: 0.5-0.8 of the peak, or 20-30 times it)."""
    n, d, classes, params = MEMORY_SHAPES[shape]
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, classes, n) if classes else X[:, 0] + 0.1 * rng.standard_normal(n)
    Estimator = ELMClassifierCV if classes else ELMRegressorCV
    params = {"alphas": [1e-2, 1.0], "cv": 5, **params}
    peak, estimate = _peak_and_estimate(Estimator, X, y, monkeypatch,
                                        n_hidden=max(params["hidden_sizes"]), **params)
    assert peak <= estimate <= 2 * peak, f"peak {peak / 1e6:.2f} MB, estimate " \
                                         f"{estimate / 1e6:.2f} MB"


# --------------------------------------------------------------------------- direct links


def test_direct_links_searched_like_grid_search():
    X, y = regression_data(d=30)  # 192 training rows: 200 nodes + 30 inputs take the dual form
    cv = KFold(5, shuffle=True, random_state=1)
    sizes = [10, 60, 200]
    ours = ELMRegressorCV(n_hidden=200, alphas=ALPHAS, hidden_sizes=sizes,
                          direct_links=[False, True], cv=cv, random_state=3).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=3),
                        {"alpha": ALPHAS, "n_hidden": sizes, "direct_links": [False, True]},
                        cv=cv, scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)
    assert ours.direct_links_ == grid.best_params_["direct_links"]
    np.testing.assert_allclose(ours.predict(X), grid.best_estimator_.predict(X), rtol=1e-9,
                               atol=1e-9)


# --------------------------------------------------------------------------- wide inputs

WIDE_ALPHAS = [1e-1, 10.0, 1e3]


def wide_data(n=60, d=3000, seed=0):
    """Fewer rows than inputs, like connectomes: every point with direct links is dual."""
    return make_classification(n_samples=n, n_features=d, n_informative=20, n_classes=3,
                               random_state=seed)


@pytest.mark.parametrize("scoring", [None, "accuracy"])
def test_wide_inputs_with_direct_links_equal_grid_search(scoring):
    X, y = wide_data()
    cv = StratifiedKFold(5, shuffle=True, random_state=0)  # 48 training rows
    sizes = [10, 40, 200]  # without links 10 and 40 nodes are primal, 200 dual
    ours = ELMClassifierCV(n_hidden=200, alphas=WIDE_ALPHAS, hidden_sizes=sizes,
                           direct_links=[False, True], cv=cv, scoring=scoring,
                           random_state=1).fit(X, y)
    grid = GridSearchCV(ELMClassifier(random_state=1),
                        {"alpha": WIDE_ALPHAS, "n_hidden": sizes, "direct_links": [False, True]},
                        cv=cv, scoring=scoring or neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)
    np.testing.assert_allclose(ours.decision_function(X),
                               grid.best_estimator_.decision_function(X), rtol=1e-9, atol=1e-9)


def test_wide_inputs_dual_refit_equals_the_estimator():
    """The refit at a dual point (60 rows < 3000 inputs + 200 nodes): beta = Aᵀc by column
    blocks equals ``ELMClassifier``'s dual fit on the whole A."""
    X, y = wide_data()
    ours = ELMClassifierCV(n_hidden=200, alphas=[10.0], hidden_sizes=[120], direct_links=True,
                           cv=3, random_state=2).fit(X, y)
    base = ELMClassifier(n_hidden=120, alpha=10.0, direct_links=True, random_state=2).fit(X, y)
    np.testing.assert_allclose(ours.beta_, base.beta_, rtol=1e-9, atol=1e-12)


def test_wide_bls_with_direct_links_equals_grid_search():
    X, y = wide_data(n=60, d=2000)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    regs = [1e-2, 1.0, 1e2]
    params = dict(n_windows=4, nodes_per_window=5, n_enhancement=50, random_state=3)
    ours = BLSClassifierCV(regs=regs, cv=cv, direct_links=True, **params).fit(X, y)
    grid = GridSearchCV(BLSClassifier(direct_links=True, **params), {"reg": regs}, cv=cv,
                        scoring=neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)
    np.testing.assert_allclose(ours.decision_function(X),
                               grid.best_estimator_.decision_function(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("Estimator, params", [
    (ELMClassifierCV, dict(n_hidden=200, alphas=WIDE_ALPHAS, hidden_sizes=[40, 200])),
    (ELMClassifierCV, dict(n_hidden=200, alphas=WIDE_ALPHAS, hidden_sizes=[10, 200],
                           cv="loo", direct_links=[False, True])),
    (BLSClassifierCV, dict(n_windows=4, nodes_per_window=5, n_enhancement=50,
                           regs=WIDE_ALPHAS)),
], ids=["ELM", "ELM-loo-both-links", "BLS"])
def test_wide_inputs_never_allocate_a_width_squared_array(Estimator, params):
    """60 rows, 3000 inputs with direct links: readout width p ≥ 3000. One p×p float64 array is
    72 MB; the dual form needs O(n² + n·p) ≈ a few MB. numpy reports its buffers to
    tracemalloc, so the peak bounds every array the fit allocates. With both link settings
    scored by leave-one-out, the link pass takes [X | H]'s own n×n kernel, not the border of
    H's spectrum by the 3000 inputs (``bordered_pays``: its d×d arrays per penalty took
    520 MB, counted as a (r + d)³ eigh that the kernel's form never makes)."""
    X, y = wide_data()
    model = Estimator(**{"direct_links": True, "cv": 5, "random_state": 0, **params})
    model.fit(X[:30], y[:30])  # compile and import outside the measurement
    peak = _fit_peak(model, X, y)
    p = X.shape[1]
    assert peak < p * p * 8 / 4, f"peak {peak / 1e6:.1f} MB"
    assert model.direct_links_ or params.get("direct_links") == [False, True]


@pytest.mark.parametrize("n", [50, 300])  # dual and primal
def test_direct_links_readout_is_ridge_on_inputs_beside_hidden_outputs(n):
    X, y = regression_data(n=n, d=4)
    model = ELMRegressor(n_hidden=80, alpha=0.1, direct_links=True, random_state=0).fit(X, y)
    plain = ELMRegressor(n_hidden=80, random_state=0).fit(X, y)
    A = np.hstack([X, np.tanh(X @ plain.W_ + plain.b_)])
    beta = np.linalg.solve(A.T @ A + 0.1 * np.eye(84), A.T @ y)
    np.testing.assert_allclose(model.beta_.ravel(), beta, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model.predict(X), A @ beta, rtol=1e-8, atol=1e-10)
    with pytest.raises(ValueError, match="direct_links"):
        ELMRegressor(direct_links="yes").fit(X, y)


@pytest.mark.parametrize("n", [60, 400])  # dual and primal
def test_bls_direct_links_readout_and_increments(n):
    X, y = regression_data(n=n + 40, d=5)
    model = BLSRegressor(n_enhancement=50, reg=0.1, direct_links=True, random_state=0)
    model.fit(X[:n], y[:n])
    scaled = (X[:n] - X[:n].min(axis=0)) / np.ptp(X[:n], axis=0)

    def ridge(I, t):
        return np.linalg.solve(I.T @ I + 0.1 * np.eye(I.shape[1]), I.T @ t)

    I = model.broad_features(X[:n])
    assert model.n_nodes_ == I.shape[1] == 5 + 100 + 50
    np.testing.assert_allclose(I[:, :5], scaled, atol=1e-12)
    np.testing.assert_allclose(model.beta_.ravel(), ridge(I, y[:n]), rtol=1e-7, atol=1e-9)
    model.add_enhancement_nodes(20)
    model.add_rows(X[n:], y[n:])
    I = model.broad_features(X)
    np.testing.assert_allclose(model.beta_.ravel(), ridge(I, y), rtol=1e-7, atol=1e-9)


# --------------------------------------------------------------------------- online models


@pytest.mark.parametrize("scoring", [None, "neg_mean_squared_error", "accuracy"])
def test_penalty_scores_of_an_online_model_equal_batch_fits(scoring):
    from fastelm.model_selection import penalty_scores

    X, y = classification_data(n=400, classes=3)
    classifier = scoring == "accuracy"
    Online, Batch = (OSELMClassifier, ELMClassifier) if classifier else \
        (OSELMRegressor, ELMRegressor)
    target = y if classifier else X[:, 0] + np.sin(X[:, 1])
    model = Online(n_hidden=90, random_state=0)
    for start in range(0, 300, 60):
        rows = slice(start, start + 60)
        if classifier:
            model.partial_fit(X[rows], target[rows], classes=np.unique(y))
        else:
            model.partial_fit(X[rows], target[rows])
    before = model.beta_.copy()
    alphas = [1e-3, 1e-1, 10.0]
    got = penalty_scores(model, X[300:], target[300:], alphas, scoring=scoring)
    expected = []
    for alpha in alphas:
        batch = Batch(n_hidden=90, alpha=alpha, random_state=0).fit(X[:300], target[:300])
        pred = batch.predict(X[300:])
        expected.append(np.mean(pred == target[300:]) if classifier else
                        -np.mean((pred - target[300:]) ** 2))
    np.testing.assert_allclose(got, expected, rtol=1e-8)
    np.testing.assert_array_equal(model.beta_, before)


# --------------------------------------------------------------------------- BLS on connectomes


@pytest.fixture(scope="module")
def bls_selection():
    """benchmarks/bench_bls_selection.py (the repository's benchmarks/ is not installed)."""
    import importlib
    from pathlib import Path

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(Path(__file__).resolve().parents[1]))
        return importlib.import_module("benchmarks.bench_bls_selection")


@pytest.mark.slow
@pytest.mark.parametrize("effect_size", [0.6, 0.0])
def test_bls_cv_on_synthetic_connectomes(bls_selection, effect_size):
    """140 subjects × 6670 connectivity features, 2×5-fold outer CV: the inner-CV penalty scores
    at least as well as the best fixed C of a coarse grid (picked on the outer test folds) and
    clearly above the paper's overfitting C = 2⁻³⁰; null data: chance."""
    X, y = bls_selection.connectomes(140, 116, effect_size)
    scores = bls_selection.compare(X, y)
    selected = scores.pop("BLSClassifierCV")
    if effect_size:
        assert selected >= max(scores.values())
        assert selected >= scores[2.0 ** -30] + 0.05
    else:
        assert abs(selected - 0.5) <= 0.05


# --------------------------------------------------------------------------- Dask inputs


def _close_search(ours, memory):
    np.testing.assert_allclose(ours.alphas_, memory.alphas_, rtol=1e-12)
    assert ours.cv_results_["params"] == memory.cv_results_["params"]
    for key in ["mean_test_score"] + [f"split{k}_test_score" for k in range(memory.n_splits_)]:
        np.testing.assert_allclose(ours.cv_results_[key], memory.cv_results_[key], rtol=RTOL,
                                   err_msg=key)
    assert ours.best_params_ == memory.best_params_
    np.testing.assert_allclose(ours.beta_, memory.beta_, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("scoring", [None, "accuracy"])
def test_elm_classifier_cv_on_dask_arrays_equals_in_memory(scoring, monkeypatch):
    """Per-fold Gram sums from each chunk on the workers (a row's fold known per chunk), the
    scorer's validation rows selected chunk by chunk: the in-memory search to 1e-8; the rows
    are never gathered."""
    da = pytest.importorskip("dask.array")
    from fastelm.dask import DaskRows

    monkeypatch.setattr(DaskRows, "gather", None)
    X, y = classification_data(n=300)
    cv = StratifiedKFold(5, shuffle=True, random_state=2)
    params = dict(n_hidden=120, alphas=ALPHAS, hidden_sizes=[20, 60, 120],
                  direct_links=[False, True], cv=cv, scoring=scoring, random_state=4)
    memory = ELMClassifierCV(**params).fit(X, y)
    ours = ELMClassifierCV(**params).fit(da.from_array(X, chunks=(70, 8)),
                                         da.from_array(y, chunks=70))
    _close_search(ours, memory)
    np.testing.assert_array_equal(ours.classes_, memory.classes_)
    assert ours.n_features_in_ == 8


def test_elm_regressor_cv_on_a_dask_dataframe_equals_in_memory():
    """Partitions of unknown length: counted by the pass that brings y in."""
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X, y = regression_data(n=260, m=2)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    frame["t0"], frame["t1"] = y[:, 0], y[:, 1]
    ddf = dd.from_pandas(frame, npartitions=4)
    cv = KFold(4, shuffle=True, random_state=0)
    params = dict(n_hidden=80, alphas=ALPHAS, hidden_sizes=[10, 80], cv=cv, random_state=1)
    memory = ELMRegressorCV(**params).fit(frame.iloc[:, :6], y)
    ours = ELMRegressorCV(**params).fit(ddf.iloc[:, :6], ddf[["t0", "t1"]])
    _close_search(ours, memory)
    np.testing.assert_allclose(ours.predict(frame.iloc[:, :6]), memory.predict(frame.iloc[:, :6]),
                               rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("sizes, alphas", [
    pytest.param([30, 150], ALPHAS, id="dual-beyond-the-rows"),
    pytest.param([30, 100], ALPHAS, id="dual-below-the-rows", marks=pytest.mark.mutant),
    pytest.param([10, 40], None, id="default-penalties", marks=pytest.mark.mutant)])
def test_dask_inputs_of_dual_widths_or_default_penalties_equal_in_memory(sizes, alphas):
    """120 rows in 3 folds of 80 training rows. Widths above 80, beyond the 120 rows or not,
    take the dual form in memory (planted: ``n_train = n`` for k-fold, so a width of 100 left
    the rows on Dask for a dual fold and failed in a matmul). alphas=None scales the
    penalties by the widest inputs' trace, from the sums when that width is primal: on Dask
    the rows are not here (planted: the trace from the rows always, a matmul of the 0-column
    stand-in)."""
    da = pytest.importorskip("dask.array")
    X, y = regression_data(n=120)
    params = dict(n_hidden=max(sizes), alphas=alphas, hidden_sizes=sizes, cv=3, random_state=0)
    memory = ELMRegressorCV(**params).fit(X, y)
    ours = ELMRegressorCV(**params).fit(da.from_array(X, chunks=(50, 6)),
                                        da.from_array(y, chunks=50))
    _close_search(ours, memory)


@pytest.mark.mutant
def test_dask_inputs_with_rows_in_no_test_fold_equal_in_memory():
    """Disjoint test folds over 90 of 120 rows, training splits their complement: on Dask
    the rows in no test fold are summed per chunk as well (planted: fastelm.dask's per-chunk
    sums without the rows of fold -1, dropping them from every training split)."""
    da = pytest.importorskip("dask.array")
    X, y = regression_data(n=120)
    order = np.random.default_rng(5).permutation(120)
    splits = [(np.setdiff1d(np.arange(120), order[k * 30:(k + 1) * 30]),
               np.sort(order[k * 30:(k + 1) * 30])) for k in range(3)]
    params = dict(n_hidden=40, alphas=ALPHAS, hidden_sizes=[10, 40], cv=splits,
                  random_state=0)
    memory = ELMRegressorCV(**params).fit(X, y)
    ours = ELMRegressorCV(**params).fit(da.from_array(X, chunks=(50, 6)),
                                        da.from_array(y, chunks=50))
    _close_search(ours, memory)


def test_dask_inputs_need_partition_folds():
    da = pytest.importorskip("dask.array")
    X, y = regression_data(n=120)
    Xd, yd = da.from_array(X, chunks=(50, 6)), da.from_array(y, chunks=50)
    splits = [(np.arange(60), np.arange(60, 100))]  # rows 100… in no split
    with pytest.raises(ValueError, match="cv"):
        ELMRegressorCV(n_hidden=20, cv=splits).fit(Xd, yd)
    for shared_layer in (False, True):  # tests/test_dask.py: both on KFold-like splits
        with pytest.raises(ValueError, match="^cv: with Dask inputs the test folds must be"):
            BLSRegressorCV(n_enhancement=10, cv=splits, shared_layer=shared_layer).fit(Xd, yd)


# --------------------------------------------------------------------------- weight scale


@pytest.mark.parametrize("scoring", [None, "accuracy"])
def test_weight_scales_searched_like_grid_search(scoring):
    X, y = classification_data(d=9)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    scales = ["auto", 1.0, 0.05]
    sizes = [10, 40]
    ours = ELMClassifierCV(n_hidden=40, alphas=ALPHAS, hidden_sizes=sizes, weight_scale=scales,
                           direct_links=[False, True], cv=cv, scoring=scoring,
                           random_state=5).fit(X, y)
    grid = GridSearchCV(ELMClassifier(random_state=5),
                        {"alpha": ALPHAS, "n_hidden": sizes, "weight_scale": scales,
                         "direct_links": [False, True]},
                        cv=cv, scoring=scoring or neg_mse_of_targets).fit(X, y)
    assert_same_search(ours, grid)
    assert list(ours.cv_results_["param_weight_scale"]) == [p["weight_scale"] for p in
                                                            grid.cv_results_["params"]]
    best = ELMClassifier(random_state=5, **ours.best_params_).fit(X, y)
    assert ours.weight_scale_ == best.weight_scale_
    np.testing.assert_array_equal(ours.W_, best.W_)
    np.testing.assert_array_equal(ours.b_, best.b_)
    np.testing.assert_allclose(ours.decision_function(X), best.decision_function(X),
                               rtol=1e-9, atol=1e-9)


def test_one_weight_scale_is_not_a_searched_parameter():
    X, y = regression_data(d=16)
    model = ELMRegressorCV(n_hidden=30, alphas=ALPHAS, hidden_sizes=[30], direct_links=False,
                           random_state=0).fit(X, y)
    assert "param_weight_scale" not in model.cv_results_
    assert model.weight_scale_ == 0.25
    refit = ELMRegressor(n_hidden=30, alpha=model.alpha_, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.W_, refit.W_)
    np.testing.assert_allclose(model.predict(X), refit.predict(X), rtol=1e-9, atol=1e-9)


# --------------------------------------------------------------------------- LOO, GCV


def explicit_hat_scores(A, T, alphas, kind):
    """The definitions, from the explicit hat matrix H = A (AᵀA + αI)⁻¹ Aᵀ per α:
    'loo' −(1/(n·m)) Σ_i ||e_i / (1 − h_ii)||², 'gcv' −n ||e||² / (n − tr H)² / m."""
    A, T = np.asarray(A, dtype=np.float64), np.asarray(T, dtype=np.float64).reshape(len(A), -1)
    n, m = T.shape
    out = []
    for alpha in alphas:
        H = A @ np.linalg.solve(A.T @ A + alpha * np.eye(A.shape[1]), A.T)
        e = T - H @ T
        if kind == "loo":
            out.append(-np.sum((e / (1 - np.diag(H))[:, None]) ** 2) / (n * m))
        else:
            out.append(-n * np.sum(e ** 2) / (n - np.trace(H)) ** 2 / m)
    return np.array(out)


def assert_points_are_their_definitions(ours, Base, X, y, T, kind, seed):
    """Every point of an ELM CV's cv_results_ scores what ``explicit_hat_scores`` gives on the
    readout inputs of ``Base`` fitted there (targets T: y or its coding)."""
    for i, point in enumerate(ours.cv_results_["params"]):
        model = Base(n_hidden=point["n_hidden"], direct_links=point["direct_links"],
                     random_state=seed).fit(X, y)
        A = model._feature_map().transform(X)
        expected = explicit_hat_scores(A, T, [point["alpha"]], kind)[0]
        assert ours.cv_results_["mean_test_score"][i] == pytest.approx(expected, rel=RTOL)


# 40 rows, 4 (8) inputs: widths 5, 30 take the primal form with and without links, 60 the dual
LOO_ALPHAS = [1e-2, 1.0, 30.0]
LOO_SIZES = [5, 30, 60]


@pytest.mark.parametrize("classify", [False, True])
def test_loo_equals_grid_search_with_leave_one_out(classify):
    """cv='loo' equals GridSearchCV(cv=LeaveOneOut()) with the default score (the readout
    targets' MSE; classifiers: the one-hot coding, scored by ``neg_mse_of_targets``), both
    forms, with and without direct links; one split."""
    from sklearn.model_selection import LeaveOneOut
    if classify:
        X, y = classification_data(n=40, d=8, classes=3, seed=1)
        Ours, Base, scoring = ELMClassifierCV, ELMClassifier, neg_mse_of_targets
    else:
        X, y = regression_data(n=40, d=4, m=2)
        Ours, Base, scoring = ELMRegressorCV, ELMRegressor, "neg_mean_squared_error"
    ours = Ours(n_hidden=60, alphas=LOO_ALPHAS, hidden_sizes=LOO_SIZES, cv="loo",
                random_state=2).fit(X, y)
    grid = GridSearchCV(Base(random_state=2), {"alpha": LOO_ALPHAS, "n_hidden": LOO_SIZES,
                                               "direct_links": [False, True]},
                        cv=LeaveOneOut(), scoring=scoring).fit(X, y)
    assert ours.cv_results_["params"] == grid.cv_results_["params"]
    assert ours.n_splits_ == 1 and "split1_test_score" not in ours.cv_results_
    for key in ("split0_test_score", "mean_test_score"):
        np.testing.assert_allclose(ours.cv_results_[key], grid.cv_results_["mean_test_score"],
                                   rtol=RTOL, err_msg=key)
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  grid.cv_results_["rank_test_score"])
    assert ours.best_params_ == grid.best_params_
    np.testing.assert_allclose(ours.predict(X) if not classify else ours.decision_function(X),
                               grid.best_estimator_.predict(X) if not classify
                               else grid.best_estimator_.decision_function(X),
                               rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("border", [True, False])
@pytest.mark.parametrize("kind", ["loo", "gcv"])
def test_hat_scores_at_a_width_primal_without_links_and_dual_with_them(kind, border,
                                                                       monkeypatch):
    """37 nodes on 40 rows and 4 inputs: H is primal (37 ≤ 40), [X | H] dual (41 > 40); the
    link pass scores both from H's decomposition (or, where the border would not pay,
    [X | H] from its own). Every point is its definition and the refit at the chosen point
    is the estimator fitted there."""
    import fastelm.model_selection._elm_cv as elm_cv
    monkeypatch.setattr(elm_cv, "bordered_pays", lambda *shape: border)
    X, y = regression_data(n=40, d=4, m=2)
    alphas = [1e-2, 1.0, 30.0]
    ours = ELMRegressorCV(n_hidden=60, alphas=alphas, hidden_sizes=[37, 60], cv=kind,
                          random_state=2).fit(X, y)
    assert_points_are_their_definitions(ours, ELMRegressor, X, y, y, kind, seed=2)
    best = ELMRegressor(n_hidden=ours.n_hidden_, alpha=ours.alpha_,
                        direct_links=ours.direct_links_, random_state=2).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), best.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.mutant
def test_loo_refit_at_a_dual_width_below_the_widest():
    """Two widths above n = 40 rows, the narrower chosen: the refit takes its own kernel, not
    the running one grown to the widest width (planted: ``kernels[p] = K`` without the copy
    in ``_hat_table``; every other LOO test chooses the widest or a primal width)."""
    X, y = make_regression(n_samples=40, n_features=4, noise=5.0, random_state=0)
    y = y / y.std()
    ours = ELMRegressorCV(n_hidden=200, alphas=[1e-2, 1.0], hidden_sizes=[50, 200], cv="loo",
                          direct_links=False, random_state=0).fit(X, y)
    assert (ours.n_hidden_, ours.alpha_) == (50, 1e-2)  # 50 > n: a dual width, not the widest
    base = ELMRegressor(n_hidden=50, alpha=1e-2, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), base.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.mutant
@pytest.mark.parametrize("cv", ["loo", "gcv", 3])
def test_a_fitted_elm_cv_keeps_none_of_the_searchs_tables(cv):
    """After the refit the search's layer, sums and kernels are dropped: the fitted model
    pickles about as small as the ELM it chose (planted: the loop deleting them emptied kept
    the n×n kernels of the widths above n, 320 KB each here, and the 4×400 layer)."""
    X, y = make_regression(n_samples=200, n_features=4, noise=5.0, random_state=0)
    ours = ELMRegressorCV(n_hidden=400, alphas=[1e-2, 1.0], hidden_sizes=[50, 400], cv=cv,
                          random_state=0).fit(X, y)
    base = ELMRegressor(n_hidden=ours.n_hidden_, alpha=ours.alpha_, random_state=0).fit(X, y)
    assert len(pickle.dumps(ours)) < len(pickle.dumps(base)) + 8192


@pytest.mark.parametrize("kind", ["loo", "gcv"])
@pytest.mark.parametrize("classify", [False, True])
def test_loo_and_gcv_equal_the_explicit_hat_matrix(kind, classify):
    """Every point's score is the definition computed from the explicit hat matrix of the
    layer's readout inputs, primal and dual widths, with and without direct links."""
    if classify:
        X, y = classification_data(n=40, d=8, classes=2, seed=3)
        Ours, Base = ELMClassifierCV, ELMClassifier
    else:
        X, y = regression_data(n=40, d=4)
        Ours, Base = ELMRegressorCV, ELMRegressor
    ours = Ours(n_hidden=60, alphas=LOO_ALPHAS, hidden_sizes=LOO_SIZES, cv=kind,
                random_state=5).fit(X, y)
    T = one_hot(y, np.unique(y), np.float64) if classify else y
    assert_points_are_their_definitions(ours, Base, X, y, T, kind, seed=5)


def test_loo_searches_weight_scales_like_grid_search():
    """cv='loo' with a list of weight scales: one more pass per scale, the same scores as
    GridSearchCV(cv=LeaveOneOut()) over ELMRegressor(weight_scale=...)."""
    from sklearn.model_selection import LeaveOneOut
    X, y = regression_data(n=40, d=4, m=2)
    scales = ["auto", 2.0]
    ours = ELMRegressorCV(n_hidden=60, alphas=LOO_ALPHAS, hidden_sizes=LOO_SIZES, cv="loo",
                          weight_scale=scales, random_state=2).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=2),
                        {"alpha": LOO_ALPHAS, "n_hidden": LOO_SIZES,
                         "direct_links": [False, True], "weight_scale": scales},
                        cv=LeaveOneOut(), scoring="neg_mean_squared_error").fit(X, y)
    assert ours.cv_results_["params"] == grid.cv_results_["params"]
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], rtol=RTOL)
    assert ours.best_params_ == grid.best_params_
    np.testing.assert_allclose(ours.predict(X), grid.best_estimator_.predict(X),
                               rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", ["loo", "gcv"])
@pytest.mark.parametrize("n_enhancement", [20, 300])  # 12 + 20 (+ 30) < 90 rows: primal
def test_bls_loo_and_gcv_on_the_shared_layer(kind, n_enhancement):
    """BLS cv='loo'/'gcv': the layer fitted on all rows (as shared_layer=True), each point the
    definition on its I = [X' | Z | E] (or [Z | E]); the refit is the BLS at the point."""
    X, y = make_classification(n_samples=90, n_features=30, random_state=0)
    params = dict(n_windows=3, nodes_per_window=4, n_enhancement=n_enhancement,
                  random_state=3)
    regs = [1e-2, 1.0, 100.0]
    ours = BLSClassifierCV(regs=regs, cv=kind, **params).fit(X, y)
    layer = BLSClassifier(reg=1.0, direct_links=True, **params).fit(X, y)
    I, d = layer.broad_features(X), X.shape[1]
    for i, point in enumerate(ours.cv_results_["params"]):
        A = I if point["direct_links"] else I[:, d:]
        expected = explicit_hat_scores(A, layer.targets_, [point["reg"]], kind)[0]
        assert ours.cv_results_["mean_test_score"][i] == pytest.approx(expected, rel=RTOL)
    refit = BLSClassifier(reg=ours.reg_, direct_links=ours.direct_links_, **params).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), refit.decision_function(X),
                               rtol=1e-8, atol=1e-9)


def test_default_grids_are_scaled_by_the_data_and_reported():
    """alphas=None: s·10^k, k = −8 … 3 by halves, s = tr(AᵀA)/min(n, P) of the widest
    inputs [X, H_L] of all rows; hidden_sizes=None: 8 geometric prefixes of L = min(1000, 2n);
    direct links searched; all in cv_results_ and the fitted attributes."""
    X, y = regression_data(n=150, d=5)
    for cv in (3, "gcv"):
        model = ELMRegressorCV(random_state=1, cv=cv).fit(X, y)
        L = 300
        np.testing.assert_array_equal(model.hidden_sizes_, [2, 5, 9, 19, 38, 75, 150, 300])
        A = ELMRegressor(n_hidden=L, direct_links=True, random_state=1).fit(
            X, y)._feature_map().transform(X)
        s = np.sum(A ** 2) / min(A.shape)
        np.testing.assert_allclose(model.alphas_, s * 10.0 ** (np.arange(-16, 7) / 2),
                                   rtol=1e-10)
        results = model.cv_results_
        assert {p["alpha"] for p in results["params"]} == set(model.alphas_)
        assert {p["n_hidden"] for p in results["params"]} == set(model.hidden_sizes_)
        assert {p["direct_links"] for p in results["params"]} == {False, True}
        assert len(results["params"]) == 23 * 8 * 2
    bls = BLSRegressorCV(n_windows=2, nodes_per_window=3, n_enhancement=20, shared_layer=True,
                         random_state=0).fit(X, y)
    I = BLSRegressor(direct_links=True, n_windows=2, nodes_per_window=3, n_enhancement=20,
                     random_state=0).fit(X, y).broad_features(X)
    np.testing.assert_allclose(bls.regs_, np.sum(I ** 2) / min(I.shape)
                               * 10.0 ** (np.arange(-16, 7) / 2), rtol=1e-10)
    assert {p["reg"] for p in bls.cv_results_["params"]} == set(bls.regs_)
    # a given grid is used as is
    model = ELMRegressorCV(n_hidden=20, alphas=[0.5, 2.0], hidden_sizes=[20], cv=3).fit(X, y)
    assert model.alphas_.tolist() == [0.5, 2.0] and model.hidden_sizes_.tolist() == [20]


@pytest.mark.parametrize("Estimator", [ELMRegressorCV, BLSRegressorCV])
def test_bad_cv_strings_and_loo_scorers_raise_one_line_errors(Estimator):
    X, y = regression_data(n=60)
    small = dict(n_hidden=10) if Estimator is ELMRegressorCV else dict(n_enhancement=10)
    for params, match in [(dict(cv="kfold"), "cv='kfold'"),
                          (dict(cv="loo", scoring="r2"), "cv='loo'")]:
        with pytest.raises(ValueError, match=match) as info:
            Estimator(**small, **params).fit(X, y)
        assert "\n" not in str(info.value)


def test_dask_inputs_with_loo_are_refused():
    da = pytest.importorskip("dask.array")
    X, y = regression_data(n=60)
    with pytest.raises(ValueError, match="in memory"):
        ELMRegressorCV(n_hidden=10, cv="loo").fit(da.from_array(X, chunks=(30, 6)),
                                                  da.from_array(y, chunks=30))


# 3 classes, class 2 in two rows: the test rows of splits 0 and 2 lack it (their training rows
# have every class), so a probability scorer cannot score those splits
RARE_Y = np.r_[np.zeros(29), np.ones(29), [2, 2]].astype(int)
RARE_CV = [(np.r_[0:20, 30:50, 58, 59], np.r_[20:30, 50:58]),
           (np.r_[10:30, 40:58, 59], np.r_[0:10, 30:40, 58]),
           (np.r_[0:40, 58, 59], np.r_[40:58])]


@pytest.mark.parametrize("Est, Base, penalty, small", [
    (ELMClassifierCV, ELMClassifier, "alpha", dict(n_hidden=12)),
    (BLSClassifierCV, BLSClassifier, "reg", dict(n_windows=2, nodes_per_window=3,
                                                n_enhancement=10))])
@pytest.mark.parametrize("scoring", ["roc_auc_ovr", "neg_log_loss"])
def test_cv_scores_failed_splits_as_grid_search_error_score(Est, Base, penalty, small,
                                                            scoring):
    """Issue 25 item 8: a scorer that raises on a split (its test rows lack a class) gives
    that split error_score (NaN by default) and one warning naming the splits, as
    GridSearchCV; error_score='raise' names the split (it raised scikit-learn's ValueError,
    no split named, from deep in the search)."""
    X = np.random.default_rng(0).normal(size=(60, 4))
    grid_values = [1e-3, 1.0]
    kw = dict(small, random_state=1)
    with pytest.warns(UserWarning, match=r"failed on split\(s\) 0, 2 \(2 of 3; split 0: "):
        searched, base_grid = {penalty + "s": grid_values}, {penalty: grid_values}
        if Est is ELMClassifierCV:  # one hidden size, searched as such
            searched["hidden_sizes"] = base_grid["n_hidden"] = [small["n_hidden"]]
        ours = Est(**searched, cv=RARE_CV, scoring=scoring, direct_links=False,
                   **kw).fit(X, RARE_Y)
    with pytest.warns(UserWarning):
        grid = GridSearchCV(Base(**kw), base_grid, cv=RARE_CV, scoring=scoring).fit(X, RARE_Y)
    assert np.isnan(ours.cv_results_["split0_test_score"]).all()
    assert np.isfinite(ours.cv_results_["split1_test_score"]).all()
    assert_same_search(ours, grid)
    with pytest.raises(ValueError, match=rf"scoring='{scoring}' failed on split 0 \("):
        Est(cv=RARE_CV, scoring=scoring, error_score="raise", **kw).fit(X, RARE_Y)
    with pytest.warns(UserWarning, match="error_score=-5.0"):
        low = Est(cv=RARE_CV, scoring=scoring, error_score=-5.0, **kw).fit(X, RARE_Y)
    assert (low.cv_results_["split2_test_score"] == -5.0).all()


@pytest.mark.parametrize("Est", [ELMClassifierCV, BLSClassifierCV, ELMRegressorCV,
                                 BLSRegressorCV])
@pytest.mark.parametrize("scoring", [["accuracy", "f1_macro"], ("r2",), {"a": "accuracy"}])
def test_cv_refuses_several_metrics_in_one_line(Est, scoring):
    """Issue 25 item 9: a list, tuple or dict of metrics is refused in one line that says what
    takes them (it was ``TypeError: float() argument ...`` from deep in the search)."""
    X, y = classification_data(n=60)
    with pytest.raises(ValueError, match=r"^scoring=.*: one metric only .*refit=NAME"):
        Est(cv=3, scoring=scoring).fit(X, y)


@pytest.mark.parametrize("Est", [BLSClassifierCV, BLSRegressorCV])
@pytest.mark.parametrize("kw", [{}, {"shared_layer": True}, {"cv": 3}])
def test_bls_cv_keeps_the_dataframe_feature_names(Est, kw):
    """Issue 25 item 13: a BLS CV estimator fitted on a DataFrame keeps feature_names_in_ (the
    refit validated the array again with reset=True, so every later predict on a DataFrame
    warned), and a predict on other column names is refused as scikit-learn does."""
    import warnings

    pd = pytest.importorskip("pandas")
    X, y = classification_data(n=60, d=8)
    frame = pd.DataFrame(X, columns=list("abcdefgh"))
    model = Est(n_windows=2, nodes_per_window=3, n_enhancement=10, random_state=0, **kw)
    model.fit(frame, y)
    assert list(model.feature_names_in_) == list("abcdefgh")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        on_frame = model.predict(frame)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        np.testing.assert_array_equal(on_frame, model.predict(X))
    with pytest.raises(ValueError, match="feature names"):
        model.predict(frame.rename(columns={"a": "z"}))


# --------------------------------------------------------------------------- the fold algebra


def _linalg_warnings(call):
    """(call(), how many LinAlgWarnings it raised: one per eigen pseudo-solve)."""
    import warnings

    from scipy.linalg import LinAlgWarning

    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = call()
    return out, sum(issubclass(r.category, LinAlgWarning) for r in record)


def _block_solves(K, C, alpha, widths, rcond_min):
    """The oracle of ``prefix_ridge``: ``spd_solve`` of each leading block, zeros below."""
    import warnings

    from fastelm._ridge import spd_solve

    B = np.zeros((max(widths), len(widths), C.shape[1]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for w, p in enumerate(widths):
            B[:p, w] = spd_solve(K[:p, :p] + alpha * np.eye(p), C[:p], rcond_min=rcond_min)
    return B


@pytest.mark.mutant
def test_prefix_ridge_solves_each_leading_block_like_spd_solve():
    """Every width's readout is ``spd_solve`` of its leading block (zeros below): the
    Cholesky prefixes where the block is well conditioned, the warned eigen pseudo-solve
    (one warning each) where LAPACK's condition estimate is below RCOND_MIN, the estimate
    skipped only where it cannot fail (the margin α ≥ 4·RCOND_MIN·√p·‖K + αI‖₁); with
    check_rcond=False (BLS) every factor that exists; a factorisation that stops at column
    6 (an indefinite K) serves the widths before it and sends the others to ``spd_solve``.
    K: rank 4 of order 64, widths unsorted."""
    from fastelm._gram import GramSums
    from fastelm._ridge import RCOND_MIN
    from fastelm.model_selection._fold_sums import dual_ridge, prefix_ridge

    rng = np.random.default_rng(0)
    G = rng.standard_normal((40, 4)) * 10
    A = np.hstack([G, G @ rng.standard_normal((4, 60))])
    K, C = A.T @ A, A.T @ rng.standard_normal((40, 2))
    sums, widths = GramSums(40, K, C, None), [3, 4, 64, 20]
    norm = np.abs(K).sum(axis=0).max()
    # (α, check_rcond, eigen pseudo-solves): 0.7·RCOND_MIN·‖K‖ is checked at width 64 (the
    # margin is 32·RCOND_MIN·‖K‖ there; 0.5 with √p dividing) and fails (the estimate is
    # 0.28·RCOND_MIN; 1.29 at width 20); 0.1·RCOND_MIN·‖K‖ fails at 20 and 64 and checks
    # the well-conditioned widths 3 and 4 too
    # tight: the widths solved alike (well conditioned, or both eigen), the others (cond ~1e13,
    # Cholesky in both) to 1e-2
    for alpha, check, singular, tight in [(10.0, True, 0, [0, 1, 2, 3]),
                                          (0.7 * RCOND_MIN * norm, True, 1, [0, 1, 2]),
                                          (0.1 * RCOND_MIN * norm, True, 2, [0, 1, 2, 3]),
                                          (0.1 * RCOND_MIN * norm, False, 0, [0, 1])]:
        B, warned = _linalg_warnings(lambda: prefix_ridge(sums, alpha, widths, check))
        assert warned == singular, (alpha, check)
        expected = _block_solves(K, C, alpha, widths, RCOND_MIN if check else 0.0)
        assert B.shape == expected.shape
        np.testing.assert_allclose(B[:, tight], expected[:, tight], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(B, expected, rtol=1e-2, atol=1e-9)
    # the defaults check the condition (penalty_scores, the dual form)
    _, warned = _linalg_warnings(lambda: prefix_ridge(sums, 0.1 * RCOND_MIN * norm, [64]))
    assert warned == 1
    c, warned = _linalg_warnings(lambda: dual_ridge(K, C, 0.1 * RCOND_MIN * norm))
    assert warned == 1 and c.shape == (64, 2)
    np.testing.assert_allclose(c, _block_solves(K, C, 0.1 * RCOND_MIN * norm, [64],
                                                RCOND_MIN)[:, 0], rtol=1e-9, atol=1e-12)
    # potrf stops at column 6 (a zero pivot: K + αI's row 6 is zero): widths 2 and 5 from
    # its factor alone (a back substitution through row 6 would divide 0 by 0), 6 and 8 by
    # spd_solve
    H = rng.standard_normal((30, 8))
    K = H.T @ H + np.eye(8)
    K[5, :] = K[:, 5] = 0.0
    K[5, 5] = -0.5
    C = rng.standard_normal((8, 3))
    widths = [5, 8, 2, 6]
    B, warned = _linalg_warnings(lambda: prefix_ridge(GramSums(30, K, C, None), 0.5, widths,
                                                      True))
    assert warned == 2
    np.testing.assert_allclose(B, _block_solves(K, C, 0.5, widths, RCOND_MIN), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.mutant
def test_squared_errors_and_dual_grid_are_their_definitions():
    """``squared_errors``: ||A β_w − T||² per block from the sums of (A, T), two targets,
    three blocks; ``dual_grid``: per α the validation scores of c = (K_tr + αI)⁻¹ T_tr, or
    their mean squared error."""
    from fastelm._gram import GramSums
    from fastelm.model_selection._fold_sums import dual_grid, squared_errors

    rng = np.random.default_rng(1)
    A, T = rng.standard_normal((25, 6)), rng.standard_normal((25, 2))
    B = rng.standard_normal((6, 3, 2))
    B[4:, 0] = 0.0
    got = squared_errors(GramSums(25, A.T @ A, A.T @ T, T.T @ T), B)
    np.testing.assert_allclose(got, [np.sum((A @ B[:, w] - T) ** 2) for w in range(3)],
                               rtol=1e-12)
    tr, te = np.arange(15), np.arange(15, 25)
    K = A @ A.T
    alphas = [0.1, 3.0]
    scores = dual_grid(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], T[tr], T[te], alphas, True, True)
    errors = dual_grid(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], T[tr], T[te], alphas, True,
                       False)
    for alpha, score, error in zip(alphas, scores, errors):
        beta = np.linalg.solve(A[tr].T @ A[tr] + alpha * np.eye(6), A[tr].T @ T[tr])
        np.testing.assert_allclose(score, A[te] @ beta, rtol=1e-9)
        assert error == pytest.approx(np.mean((A[te] @ beta - T[te]) ** 2), rel=1e-9)


def _overlapping_splits(n):
    """Splits the one-pass sums cannot serve in three ways: test folds that overlap, each
    training split their complement (ShuffleSplit); training rows that hold the test rows
    (union = n, sizes n + n_f); training and test rows that overlap and miss rows (sizes
    adding up to n, union < n)."""
    from sklearn.model_selection import ShuffleSplit

    rows = np.arange(n)
    return {
        "shuffle": [(tr, te) for tr, te in ShuffleSplit(3, test_size=0.3, random_state=0)
                    .split(rows)],
        "train-holds-test": [(rows, rows[k::3]) for k in range(3)],
        "sizes-add-up": [(rows[:2 * n // 3], rows[n // 2:n // 2 + n // 3]),
                         (rows[n // 3:], rows[:n // 3]), (rows[n // 6:5 * n // 6],
                                                         rows[:n // 3])],
    }


@pytest.mark.mutant
@pytest.mark.parametrize("kind", ["shuffle", "train-holds-test", "sizes-add-up"])
def test_splits_the_one_pass_sums_cannot_serve_equal_grid_search(kind):
    """Each split's training sums are S − S_f only when the test folds are disjoint (else the
    total is summed once over all rows) and each training split is the complement of its test
    rows (else summed from its own rows): three layouts that break one of the conditions
    in the way each comparison of ``_fold_layout`` could be mistaken."""
    X, y = regression_data(n=90, d=4)
    splits = _overlapping_splits(90)[kind]
    params = {"alpha": ALPHAS, "n_hidden": [10, 30]}
    ours = ELMRegressorCV(n_hidden=30, alphas=ALPHAS, hidden_sizes=[10, 30], cv=splits,
                          direct_links=False, random_state=0).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=0), params, cv=splits,
                        scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)


@pytest.mark.mutant
def test_dask_test_folds_only_for_disjoint_folds_with_complement_training():
    """``dask_test_folds``: each row's test fold, −1 for rows in none; a one-line ValueError
    naming cv for any layout that breaks either condition."""
    from fastelm.model_selection._fold_sums import dask_test_folds

    rows = np.arange(12)
    folds = [(np.setdiff1d(rows, te), te) for te in (rows[[0, 5]], rows[[2, 3, 7]])]
    np.testing.assert_array_equal(dask_test_folds(folds, 12),
                                  [0, -1, 1, 1, -1, 0, -1, 1, -1, -1, -1, -1])
    for kind, splits in _overlapping_splits(12).items():
        with pytest.raises(ValueError, match="^cv: with Dask inputs") as info:
            dask_test_folds(splits, 12)
        assert "\n" not in str(info.value), kind


@pytest.mark.mutant
def test_penalty_scores_of_an_online_classifier_default_score_and_checks():
    """scoring=None on a classifier: minus the mean squared error of the readout scores
    against the coded one-hot targets (3 columns: the mean over rows and columns), as the
    batch classifier fitted on the learned rows at each α; the chunk is validated against
    the fit (reset=False: other feature names are refused) and the model is not changed."""
    pd = pytest.importorskip("pandas")
    from fastelm.model_selection import penalty_scores

    X, y = classification_data(n=300, classes=3)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    model = OSELMClassifier(n_hidden=40, random_state=0)
    for start in range(0, 200, 50):
        model.partial_fit(frame.iloc[start:start + 50], y[start:start + 50],
                          classes=np.unique(y))
    alphas = [1e-2, 1.0, 30.0]
    got = penalty_scores(model, frame.iloc[200:], y[200:], alphas)
    expected = [neg_mse_of_targets(ELMClassifier(n_hidden=40, alpha=alpha, random_state=0)
                                   .fit(X[:200], y[:200]), X[200:], y[200:])
                for alpha in alphas]
    np.testing.assert_allclose(got, expected, rtol=1e-8)
    assert list(model.feature_names_in_) == list(frame.columns)
    with pytest.raises(ValueError, match="feature names"):
        penalty_scores(model, frame.iloc[200:].rename(columns={"f0": "z"}), y[200:], alphas)


# --------------------------------------------------------------------------- the search base


@pytest.mark.mutant
def test_cv_strings_grids_and_bool_grids_are_checked_exactly():
    """``check_cv_string``, ``default_hat_kind``, ``check_grid``, ``check_bool_grid``: what
    each accepts (and returns, as what type) and refuses, at each boundary."""
    from fastelm.model_selection._search import (check_bool_grid, check_cv_string,
                                                 check_grid, default_hat_kind)

    assert check_cv_string(None, None) == "loo"
    assert check_cv_string(None, None, rows_in_memory=False) is None
    assert check_cv_string(None, "r2") is None
    assert check_cv_string("gcv", None) == "gcv" and check_cv_string(4, "r2") == 4
    for cv, scoring in [("kfold", None), ("loo", "r2")]:
        with pytest.raises(ValueError, match=f"^cv={cv!r}"):
            check_cv_string(cv, scoring)
    # cv=None: GCV up to as many readout inputs as rows (widest == rows included)
    assert default_hat_kind(None, "loo", 30, 30) == "gcv"
    assert default_hat_kind(None, "loo", 30, 29) == "gcv"
    assert default_hat_kind(None, "loo", 30, 31) == "loo"
    assert default_hat_kind("loo", "loo", 30, 10) == "loo"  # a given cv stays
    assert default_hat_kind(None, None, 30, 10) is None  # another scorer: 5 folds
    grid = check_grid([0.5, 2, np.float32(1e-3)], "alphas")
    assert grid == [0.5, 2.0, pytest.approx(1e-3)] and all(type(v) is float for v in grid)
    for bad in ([], [0.0], [-0.5], [np.inf], [np.nan], [True], ["a"], [None], [1.0, -2.0]):
        with pytest.raises(ValueError, match="^alphas must") as info:
            check_grid(bad, "alphas")
        assert "\n" not in str(info.value)
    sizes = check_grid([4, np.int64(10)], "hidden_sizes", integer=True, upper=10)
    assert sizes == [4, 10] and all(type(v) is int for v in sizes)
    with pytest.raises(ValueError, match="^hidden_sizes contains 11, above n_hidden=10$"):
        check_grid([4, 11], "hidden_sizes", integer=True, upper=10)
    assert check_grid([11], "hidden_sizes", integer=True) == [11]
    assert check_bool_grid(True, "direct_links") == [True]
    assert check_bool_grid(np.bool_(False), "direct_links") == [False]
    assert check_bool_grid([False, np.True_], "direct_links") == [False, True]
    for bad in ([True, 1], [0], "yes", 3, [], None):
        with pytest.raises(ValueError, match="^direct_links must be a bool"):
            check_bool_grid(bad, "direct_links")


@pytest.mark.mutant
@pytest.mark.parametrize("Est, small", [
    (ELMRegressorCV, dict(n_hidden=40, hidden_sizes=[10, 40], direct_links=False)),
    (BLSRegressorCV, dict(n_windows=2, nodes_per_window=3, n_enhancement=34,
                          direct_links=False))])
@pytest.mark.parametrize("extra", [0, 1])
def test_default_cv_is_gcv_up_to_as_many_inputs_as_rows(Est, small, extra):
    """cv=None with 40 readout inputs (the widest searched): GCV on 40 rows (as many inputs
    as rows is still the primal form), exact leave-one-out on 39."""
    X, y = regression_data(n=40 - extra, d=4)
    default = Est(random_state=0, alphas=[1e-2, 1.0], **small) if Est is ELMRegressorCV \
        else Est(random_state=0, regs=[1e-2, 1.0], **small)
    default.fit(X, y)
    kind = "gcv" if extra == 0 else "loo"
    given = Est(**{**default.get_params(), "cv": kind}).fit(X, y)
    np.testing.assert_array_equal(default.cv_results_["mean_test_score"],
                                  given.cv_results_["mean_test_score"])


def _fails_on_small_folds(estimator, X, y):
    """A scorer that raises on test folds of fewer than 15 rows, naming their size."""
    if len(y) < 15:
        raise ValueError(f"{len(y)}  rows\n(too few)")
    return -np.mean((estimator.predict(X) - y) ** 2)


@pytest.mark.mutant
@pytest.mark.parametrize("n_failing", [10, 11])
def test_failed_splits_warning_names_ten_splits_and_the_first_error(n_failing):
    """Splits k < n_failing have k + 1 test rows and fail: one warning from the caller's
    line, naming at most ten splits (then '...'), how many of how many, the first split's
    error (its message on one line), and, when no point has a finite mean (error_score NaN),
    that the first point is chosen; the scores are error_score (−5 with 10 failing)."""
    import warnings

    X, y = regression_data(n=60, d=3)
    rows = np.arange(60)
    tests = [rows[:k + 1] for k in range(n_failing)] + [rows[30:45]] * (11 - n_failing)
    splits = [(np.setdiff1d(rows, te), te) for te in tests]
    model = ELMRegressorCV(n_hidden=8, alphas=[1e-2, 1.0], hidden_sizes=[8], cv=splits,
                           scoring=_fails_on_small_folds, direct_links=False, random_state=0,
                           error_score=np.nan if n_failing == 11 else -5.0)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        model.fit(X, y)
    [warning] = [w for w in record if "failed on split" in str(w.message)]
    assert warning.category is UserWarning and warning.filename == __file__
    named = "0, 1, 2, 3, 4, 5, 6, 7, 8, 9" + (", ..." if n_failing > 10 else "")
    expected = (f" failed on split(s) {named} ({n_failing} of 11; split 0: ValueError: 1 rows "
                f"(too few)); their scores are error_score={model.error_score!r}")
    if n_failing == 11:
        expected += "; no grid point has a finite mean score, so best_params_ is the first point"
    assert str(warning.message).endswith(expected), str(warning.message)
    np.testing.assert_array_equal(model.cv_results_["split9_test_score"], model.error_score)
    assert np.isfinite(model.cv_results_["split10_test_score"]).all() == (n_failing == 10)
    assert model.best_index_ == 0 or n_failing == 10


def _zero_when_flat(estimator, X, y):
    """1 for predictions that vary, 0 for nearly constant ones, NaN in between (ties and NaN
    means for the ranking)."""
    spread = np.std(estimator.predict(X))
    return 1.0 if spread > 1e-1 else 0.0 if spread < 1e-6 else np.nan


@pytest.mark.mutant
def test_ranks_of_ties_and_nan_means_and_the_first_best_point_as_grid_search():
    """GridSearchCV's 'min' ranks: NaN means rank last, tied points share the lowest rank
    and the first of the best is chosen; the std over splits as GridSearchCV's. Penalties
    1e12 (flat predictions: 0), 3e5 (NaN on some splits), 1e-2 and 1.0 (1, tied)."""
    X, y = regression_data(n=60, d=3)
    alphas = [1e12, 3e5, 1e-2, 1.0]
    cv = KFold(3, shuffle=True, random_state=0)
    ours = ELMRegressorCV(n_hidden=8, alphas=alphas, hidden_sizes=[8], cv=cv,
                          scoring=_zero_when_flat, direct_links=False,
                          random_state=0).fit(X, y)
    with pytest.warns(UserWarning, match="non-finite"):
        grid = GridSearchCV(ELMRegressor(random_state=0), {"alpha": alphas, "n_hidden": [8]},
                            cv=cv, scoring=_zero_when_flat).fit(X, y)
    assert ours.cv_results_["params"] == grid.cv_results_["params"]
    for key in ("mean_test_score", "std_test_score", "split0_test_score"):
        np.testing.assert_allclose(ours.cv_results_[key], grid.cv_results_[key], err_msg=key)
    assert ours.cv_results_["rank_test_score"].tolist() == [3, 4, 1, 1]
    np.testing.assert_array_equal(ours.cv_results_["rank_test_score"],
                                  grid.cv_results_["rank_test_score"])
    assert ours.best_index_ == grid.best_index_ == 2 and ours.alpha_ == 1e-2
    assert ours.best_score_ == 1.0


@pytest.mark.mutant
@pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning")
def test_scorers_get_1d_labels_for_classifiers_and_2d_targets_for_regressors():
    """A callable scorer gets each test fold's y as fit took it for regressors (two target
    columns), and as 1-D labels for a classifier fitted on a column vector of labels."""
    seen = []

    def shapes(estimator, X, y):
        seen.append(np.shape(y))
        return 0.0

    Xc, yc = classification_data(n=60, classes=3)
    Xr, yr = regression_data(n=60, m=2)
    for Est, X, y, expected in [(ELMClassifierCV, Xc, yc[:, None], (20,)),
                                (ELMRegressorCV, Xr, yr, (20, 2))]:
        seen.clear()
        Est(n_hidden=10, alphas=[1.0], hidden_sizes=[10], cv=3, scoring=shapes,
            direct_links=False, random_state=0).fit(X, y)
        assert set(seen) == {expected}, Est.__name__


# --------------------------------------------------------------------------- ELM CV


@pytest.mark.mutant
def test_elm_cv_default_layer_ladder_and_scale_grid():
    """``default_hidden``: min(1000, 2n), at least 1, halved while the search does not fit;
    ``hidden_ladder``: 8 geometric sizes from max(1, L/128) to L, rounded, deduplicated;
    ``check_scale_grid``: one scale (a string or a number) is not searched, a sequence is."""
    from fastelm.model_selection._elm_cv import (check_scale_grid, default_hidden,
                                                 hidden_ladder)

    fits = lambda L: True  # noqa: E731
    assert [default_hidden(n, fits) for n in (0, 1, 7, 499, 500, 501, 10**6)] == \
        [1, 2, 14, 998, 1000, 1000, 1000]
    assert default_hidden(300, lambda L: L <= 100) == 75  # 600, 300, 150, 75
    assert default_hidden(300, lambda L: False) == 1
    assert default_hidden(300, lambda L: L <= 3) == 2  # 600 … 4, 2: the first that fits
    assert hidden_ladder(1280) == [10, 20, 40, 80, 160, 320, 640, 1280]
    assert hidden_ladder(100) == [1, 2, 4, 7, 14, 27, 52, 100]
    assert hidden_ladder(3) == [1, 2, 3]
    assert check_scale_grid("auto") == (["auto"], False)
    assert check_scale_grid(np.float64(2.0)) == ([2.0], False)
    assert check_scale_grid(("auto", 0.5)) == (["auto", 0.5], True)
    assert check_scale_grid([3]) == ([3], True)
    with pytest.raises(ValueError, match="^weight_scale must be .* got an empty one$"):
        check_scale_grid([])


@pytest.mark.mutant
def test_elm_cv_widths_at_the_training_rows_and_at_all_rows():
    """42 rows in 4 folds (31 or 32 training rows), 4 inputs: widths 31 and 32 are primal in
    some folds and dual in others, 42 = n is dual in every fold and primal at the refit, 46
    dual everywhere; with and without direct links, as GridSearchCV. The refit at a width
    equal to the rows (42 nodes, or 38 nodes and 4 links) is the estimator's (primal) fit."""
    X, y = regression_data(n=42, d=4)
    cv = KFold(4, shuffle=True, random_state=0)
    sizes = [28, 31, 32, 38, 42]
    ours = ELMRegressorCV(n_hidden=42, alphas=[1e-2, 1.0], hidden_sizes=sizes,
                          direct_links=[False, True], cv=cv, random_state=1).fit(X, y)
    grid = GridSearchCV(ELMRegressor(random_state=1),
                        {"alpha": [1e-2, 1.0], "n_hidden": sizes,
                         "direct_links": [False, True]},
                        cv=cv, scoring="neg_mean_squared_error").fit(X, y)
    assert_same_search(ours, grid)
    for k, link in [(42, False), (38, True), (31, False)]:
        ours = ELMRegressorCV(n_hidden=42, alphas=[0.1], hidden_sizes=[k], direct_links=link,
                              cv=cv, random_state=1).fit(X, y)
        base = ELMRegressor(n_hidden=k, alpha=0.1, direct_links=link, random_state=1).fit(X, y)
        np.testing.assert_allclose(ours.beta_, base.beta_, rtol=1e-9, atol=1e-12)


@pytest.mark.mutant
@pytest.mark.parametrize("border", [True, False])
@pytest.mark.parametrize("kind", ["loo", "gcv"])
def test_hat_scores_and_refits_at_widths_equal_to_the_rows(kind, border, monkeypatch):
    """40 rows, 4 inputs, 36 and 40 nodes with and without links: widths 36, 40 = n (H) and
    40 = n, 44 ([X | H]), the bordered and the own decomposition of the link pass: every
    point is its definition, and the refit at a width equal to the rows (40 nodes, or 36
    nodes and the 4 links) or above them is the estimator's fit; 20 and 30 nodes (every
    width below the rows) as well."""
    import fastelm.model_selection._elm_cv as elm_cv
    monkeypatch.setattr(elm_cv, "bordered_pays", lambda *shape: border)
    X, y = regression_data(n=40, d=4, m=2)
    ours = ELMRegressorCV(n_hidden=40, alphas=[1e-2, 1.0], hidden_sizes=[36, 40], cv=kind,
                          random_state=3).fit(X, y)
    assert_points_are_their_definitions(ours, ELMRegressor, X, y, y, kind, seed=3)
    # every width below the rows: no kernel, and GCV from the sums alone (no row of A)
    for links in ([False, True], [False]):  # the link pass's bordered table, or one setting
        narrow = ELMRegressorCV(n_hidden=30, alphas=[1e-2, 1.0], hidden_sizes=[20, 30],
                                cv=kind, direct_links=links, random_state=3).fit(X, y)
        assert_points_are_their_definitions(narrow, ELMRegressor, X, y, y, kind, seed=3)
    for k, link in [(40, False), (36, True), (40, True)]:
        for links in (link, [False, True]):  # one setting, or the chosen one of both
            ours = ELMRegressorCV(n_hidden=40, alphas=[0.1], hidden_sizes=[k], cv=kind,
                                  direct_links=links, random_state=3).fit(X, y)
            base = ELMRegressor(n_hidden=k, alpha=0.1, direct_links=ours.direct_links_,
                                random_state=3).fit(X, y)
            np.testing.assert_allclose(ours.beta_, base.beta_, rtol=1e-9, atol=1e-12)


# --------------------------------------------------------------------------- BLS CV


@pytest.mark.mutant
@pytest.mark.parametrize("shared_layer", [False, True])
def test_bls_cv_width_equal_to_a_folds_training_rows(shared_layer):
    """61 rows in 3 folds (40, 41, 41 training rows), 2·3 + 34 = 40 nodes: primal in every
    fold (40 ≥ 40 included), 44 with the 4 direct links: dual in every fold. Per-split
    layers as GridSearchCV over BLSRegressor; the shared layer as the explicit solve on its
    rows of I."""
    X, y = regression_data(n=61, d=4)
    cv = KFold(3, shuffle=True, random_state=0)
    folds = list(cv.split(X))
    assert sorted(len(tr) for tr, _ in folds) == [40, 41, 41]
    regs = [1e-3, 1e-1, 10.0]
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=34, random_state=2)
    ours = BLSRegressorCV(regs=regs, cv=cv, direct_links=[False, True],
                          shared_layer=shared_layer, **params).fit(X, y)
    if shared_layer:
        expected = shared_layer_scores(BLSRegressor, X, y, params, ours.cv_results_["params"],
                                       folds, _neg_mse)
        got = np.array([ours.cv_results_[f"split{k}_test_score"] for k in range(3)]).T
        np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    else:
        grid = GridSearchCV(BLSRegressor(**params), {"reg": regs, "direct_links": [False, True]},
                            cv=cv, scoring="neg_mean_squared_error").fit(X, y)
        assert_same_search(ours, grid)
    refit = BLSRegressor(reg=ours.reg_, direct_links=ours.direct_links_, **params).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), refit.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.mutant
@pytest.mark.parametrize("limit, L", [(None, 200), (300_000, 100), (200_000, 100),
                                      (25_000, 12)])
def test_default_layer_is_halved_until_the_search_fits_half_the_memory(limit, L,
                                                                       monkeypatch):
    """n_hidden=None on 100 rows: L = 200, halved while the search's estimate (stubbed:
    1000 bytes a node) is above half the memory available (None: no limit); an estimate
    equal to half fits."""
    from fastelm.model_selection import _elm_cv

    monkeypatch.setattr(_elm_cv, "available_memory", lambda: limit)
    monkeypatch.setattr(_elm_cv, "_cv_bytes", lambda n, d, nodes, *rest: 1000.0 * nodes)
    X, y = regression_data(n=100, d=3)
    model = ELMRegressorCV(alphas=[1.0], cv=3, direct_links=False, random_state=0).fit(X, y)
    assert model.hidden_sizes_[-1] == L


@pytest.mark.mutant
@pytest.mark.parametrize("shared_layer", [False, True])
def test_bls_cv_on_dask_inputs_with_few_rows_gathers_them_for_the_dual_form(shared_layer):
    """60 Dask rows in 3 folds (40 training rows) and 6 + 50 nodes: the dual form, so the
    rows are gathered with their target coding (a classifier's one-hot columns) and the
    search equals the in-memory one."""
    da = pytest.importorskip("dask.array")
    X, y = classification_data(n=60, classes=3)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=50, regs=[1e-2, 1.0], cv=3,
                  direct_links=False, shared_layer=shared_layer, random_state=0)
    memory = BLSClassifierCV(**params).fit(X, y)
    ours = BLSClassifierCV(**params).fit(da.from_array(X, chunks=(25, 8)),
                                         da.from_array(y, chunks=25))
    assert ours.cv_results_["params"] == memory.cv_results_["params"]
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               memory.cv_results_["mean_test_score"], rtol=RTOL)
    np.testing.assert_allclose(ours.decision_function(X), memory.decision_function(X),
                               rtol=1e-8, atol=1e-10)


@pytest.mark.mutant
def test_squared_norm_reads_column_blocks_of_the_rows_never_the_whole_inputs():
    """``_squared_norm`` (the default penalties' tr(AᵀA) when the widest width is dual) reads A
    in the kernel's column blocks (64 MiB of the n rows, as ``_cv_bytes`` counts them), never
    whole: 32768 rows of one input and 1024 columns are 4 blocks of 256 (planted: blocks
    sized by the d = 1 inputs' width, one block of 256 MiB); the norm sums every block."""
    from fastelm._gram import BLOCK_BYTES
    from fastelm.model_selection._elm_cv import _squared_norm

    class Columns:  # a feature map whose block [start, stop) is the row of its column indices
        dtype, width = np.float64, 1024

        def __init__(self):
            self.blocks = []

        def columns(self, X, start, stop):
            self.blocks.append((start, stop))
            return np.arange(start, stop, dtype=np.float64)[None, :]

    X, fmap = np.empty((32768, 1)), Columns()
    assert _squared_norm(X, fmap) == float(np.sum(np.arange(1024.0) ** 2))
    starts, stops = zip(*fmap.blocks)
    assert starts[0] == 0 and stops[-1] == 1024 and list(starts[1:]) == list(stops[:-1])
    assert max(b - a for a, b in fmap.blocks) * len(X) * 8 <= BLOCK_BYTES


def _cv_bytes_doc(n, d, L, s, widths, n_t, F, S, links, m, c):
    """``_cv_bytes``' docstring formula, term by term (c: the kernel's column block)."""
    P0, P = max([p for p in widths if p <= n], default=0), max(widths)
    total = (8 + s) * (d + 1) * L + s * n * d + 8 * n * m
    if P0:
        total += 8 * P0 ** 2 * (2 * F + S * links + 6) + s * min(n, 4096) * (P0 + m)
    if P > n_t:
        K = S * sum(p > n for p in widths)
        total += 8 * n ** 2 * (K + 1) + max(s * n ** 2 + (2 * s + 8) * n * c,
                                            8 * n_t * (7 * n_t + (n - n_t)),
                                            40 * n ** 2 if P > n else 0)
    return total


def _hat_bytes_doc(n, d, L, s, widths, S, links, m, kind, a):
    """``_hat_bytes``' docstring formula, term by term."""
    P0, P = max([p for p in widths if p <= n], default=0), max(widths)
    total = (8 + s) * (d + 1) * L + s * n * d + 8 * n * m
    total += 8 * P0 ** 2 * S * (1 + (links > 1 and P > n))
    if kind == "loo" or P > n:
        total += 24 * n * P + 24 * P0 ** 2
    elif s != 8:
        total += (8 + s) * n * P + 24 * P0 ** 2
    else:
        total += s * min(n, 4096) * (P0 + m) + 8 * P0 ** 2
    total += 16 * n * m * a
    if links > 1:
        g = max(1, (32 << 20) // (8 * n * (d + m)))
        total += 32 * n * (d + m) * min(a, g)
    if P > n:
        total += 8 * n ** 2 * (S * sum(p > n for p in widths) + 5)
    return total


@pytest.mark.mutant
def test_search_memory_estimates_are_their_documented_formulas():
    """``_cv_bytes`` and ``_hat_bytes`` (what ``check_memory`` refuses a search by and the
    default layer halves by) equal their docstrings' formulas in each branch: primal only,
    a dual width below and above n, float32 and float64, 'loo' and 'gcv', one and two link
    settings, the border's penalty groups smaller than the penalties (n = 10⁶, not
    allocated), the kernel's column block narrower than the widest width; and at the
    brackets' edges: a width equal to n (primal: P₀ = n, not among the K kept kernels, no
    dual term when it is the widest) or to n_t (no dual term), every width dual (P₀ = 0),
    one link setting with dual widths (one pass per scale), penalty groups of 10 of 23
    (n = 65536: 32 MiB // (8·n·6)), the kernel's growth the largest dual term (wide
    inputs: a column block of every width)."""
    from fastelm._gram import _column_block
    from fastelm.model_selection._elm_cv import _cv_bytes, _hat_bytes

    cases = [(50, 3, 70, 4, [10, 40], 45, 5, 2, 2, 3),  # primal only
             (50, 3, 70, 8, [10, 40, 44], 40, 5, 1, 1, 2),  # dual below n
             (50, 3, 70, 4, [10, 40, 73], 40, 5, 2, 2, 3),  # dual above n
             (10**6, 5, 900, 4, [300, 2 * 10**6], 8 * 10**5, 5, 1, 2, 1),  # column blocks
             (50, 3, 70, 4, [10, 20, 50], 25, 2, 2, 1, 1),  # P = n, dual in the splits
             (50, 3, 70, 8, [10, 40], 40, 5, 1, 1, 2),  # P = n_t: primal in every split
             (30, 100, 50, 8, [110, 150], 24, 5, 1, 2, 2),  # every width dual
             (50, 3000, 70, 4, [10, 3000], 40, 5, 1, 2, 1)]  # wide: the kernel's growth
    for n, d, L, s, widths, n_t, F, S, links, m in cases:
        dtype = np.float32 if s == 4 else np.float64
        c = min(max(widths), _column_block(n, s, None))
        assert c < max(widths) or n < 10**6
        assert _cv_bytes(n, d, L, dtype, widths, n_t, F, S, links, m) == pytest.approx(
            _cv_bytes_doc(n, d, L, s, widths, n_t, F, S, links, m, c), rel=1e-12)
    for n, d, L, s, widths, S, links, m, kind, a in [
            (50, 3, 70, 8, [10, 40], 1, 1, 2, "gcv", 7),  # the sums alone
            (50, 3, 70, 4, [10, 40], 2, 2, 3, "gcv", 7),  # float32 rows
            (50, 3, 70, 8, [10, 40], 2, 2, 3, "loo", 23),
            (50, 3, 70, 4, [10, 40, 73, 90], 2, 2, 3, "gcv", 7),  # dual widths
            (10**6, 5, 900, 8, [300], 1, 2, 1, "loo", 23),  # groups of one penalty
            (65536, 5, 900, 8, [300], 1, 2, 1, "loo", 23),  # groups of 10 penalties
            (50, 3, 70, 8, [10, 50], 2, 2, 1, "gcv", 5),  # P = n: the sums alone
            (50, 3, 70, 8, [20, 50, 73], 1, 2, 2, "gcv", 5),  # P > n, a width = n
            (50, 3, 70, 4, [10, 40, 73], 2, 1, 3, "loo", 7),  # one link setting, dual
            (30, 5, 200, 8, [60, 120], 2, 1, 2, "loo", 23)]:  # every width dual
        dtype = np.float32 if s == 4 else np.float64
        assert _hat_bytes(n, d, L, dtype, widths, S, links, m, kind, a) == pytest.approx(
            _hat_bytes_doc(n, d, L, s, widths, S, links, m, kind, a), rel=1e-12)


# --------------------------------------------------------------------------- BLS CV, read ahead
# (mutation/RESULTS.md, "_bls_cv read ahead (fifth session)")


@pytest.mark.mutant
@pytest.mark.parametrize("shared_layer", [False, True])
@pytest.mark.parametrize("scoring, seed", [(None, 0), ("accuracy", 0), (None, "generator")])
def test_bls_cv_on_dask_inputs_with_rows_for_the_primal_form_equals_in_memory(shared_layer,
                                                                              scoring, seed,
                                                                              monkeypatch):
    """90 Dask rows in chunks of 40, 3 folds of 60 training rows, 6 + 24 nodes (+ 8 direct
    links): the primal form on the workers (sums per split or of the shared layer; an int
    random_state draws the same layers with and without the links, so the setting without
    them is the trailing block of one pass over the chunks, a Generator draws new layers: a
    pass each; a scorer's validation rows of I chunk by chunk; ±1 targets), equal to the
    in-memory search and refit."""
    da = pytest.importorskip("dask.array")
    from fastelm.dask import DaskRows

    passes, split_gram_sums = [], DaskRows.split_gram_sums

    def counted(self, *args, **kwargs):
        passes.append(len(passes))
        return split_gram_sums(self, *args, **kwargs)

    monkeypatch.setattr(DaskRows, "split_gram_sums", counted)
    X, y = classification_data(n=90, classes=3)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=24, regs=[1e-2, 1.0, 100.0],
                  cv=KFold(3, shuffle=True, random_state=0), direct_links=[False, True],
                  preprocessing="reference", scoring=scoring, shared_layer=shared_layer)

    def state():
        return np.random.default_rng(5) if seed == "generator" else seed

    # Dask first: a search that scored no split would leave its np.empty scores, which could
    # hold an in-memory search's freed results
    ours = BLSClassifierCV(random_state=state(), **params).fit(
        da.from_array(X, chunks=(40, 8)), da.from_array(y, chunks=40))
    memory = BLSClassifierCV(random_state=state(), **params).fit(X, y)
    assert ours.cv_results_["params"] == memory.cv_results_["params"]
    for k in range(3):
        np.testing.assert_allclose(ours.cv_results_[f"split{k}_test_score"],
                                   memory.cv_results_[f"split{k}_test_score"], rtol=RTOL)
    assert len(passes) == (not shared_layer) * (1 + (seed == "generator"))
    assert (ours.reg_, ours.direct_links_) == (memory.reg_, memory.direct_links_)
    np.testing.assert_allclose(ours.decision_function(X), memory.decision_function(X),
                               rtol=1e-8, atol=1e-10)


@pytest.mark.mutant
@pytest.mark.parametrize("direct_links", [False, True])
@pytest.mark.parametrize("extra, gathered", [(-1, False), (0, False), (1, True)])
def test_bls_cv_on_dask_inputs_gathers_the_rows_only_below_the_nodes(direct_links, extra,
                                                                     gathered, monkeypatch):
    """60 Dask rows in 3 folds of 40 training rows, 39, 40 or 41 nodes (6 + n_enhancement,
    + 8 with the direct links): the rows are gathered (the dual form in memory) only when a
    split's training rows are fewer than the nodes; the search equals the in-memory one."""
    da = pytest.importorskip("dask.array")
    from fastelm.dask import DaskRows

    calls, gather = [], DaskRows.gather

    def counted(self, coding):
        calls.append(len(calls))
        return gather(self, coding)

    monkeypatch.setattr(DaskRows, "gather", counted)
    X, y = regression_data(n=60, d=8)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=34 + extra - 8 * direct_links,
                  regs=[1e-2, 1.0], cv=3, direct_links=direct_links, random_state=0)
    ours = BLSRegressorCV(**params).fit(da.from_array(X, chunks=(25, 8)),
                                        da.from_array(y, chunks=25))
    assert len(calls) == gathered
    memory = BLSRegressorCV(**params).fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               memory.cv_results_["mean_test_score"], rtol=RTOL)
    assert ours.reg_ == memory.reg_


@pytest.mark.mutant
@pytest.mark.parametrize("n_enhancement, dask", [(20, False), (100, False), (20, True)])
@pytest.mark.parametrize("shared_layer", [False, True])
def test_bls_cv_trusts_every_cholesky_factor_as_the_bls_readout_does(n_enhancement, dask,
                                                                     shared_layer):
    """A rank-deficient I (an input column repeated, with the direct links; every row twice)
    at C = 1e-12·s: Cholesky succeeds but the condition estimate is below spd_solve's
    minimum (it warns and pseudo-solves). The BLS readout trusts the factor, and so does
    every split's solve of the search (40 training rows, 31 or 111 nodes: primal or dual; on
    Dask rows, primal): no LinAlgWarning."""
    from fastelm._ridge import spd_solve

    X, y = regression_data(n=40, d=4)
    X, y = np.tile(np.c_[X, X[:, :1]], (2, 1)), np.r_[y, y]
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=n_enhancement,
                  direct_links=True, random_state=0)
    I = BLSRegressor(**params).fit(X, y).broad_features(X)
    reg = 1e-12 * np.sum(I ** 2) / min(I.shape)
    A = I.T @ I if I.shape[1] <= len(X) else I @ I.T
    system = A + reg * np.eye(len(A))
    assert _linalg_warnings(lambda: spd_solve(system, np.ones((len(A), 1))))[1] == 1
    assert _linalg_warnings(lambda: BLSRegressor(reg=reg, **params).fit(X, y))[1] == 0
    if dask:
        da = pytest.importorskip("dask.array")
        X, y = da.from_array(X, chunks=(30, 5)), da.from_array(y, chunks=30)
    ours, warned = _linalg_warnings(lambda: BLSRegressorCV(
        regs=[reg], cv=KFold(2, shuffle=True, random_state=0), shared_layer=shared_layer,
        **params).fit(X, y))
    assert warned == 0 and np.isfinite(ours.best_score_)


@pytest.mark.mutant
@pytest.mark.parametrize("Est, Base", [(BLSRegressorCV, BLSRegressor),
                                       (BLSClassifierCV, BLSClassifier)])
def test_bls_cv_defaults_are_the_bls_defaults_with_both_link_settings(Est, Base):
    """Every parameter shared with the BLS defaults to the BLS's ("As in BLSRegressor");
    direct_links searches (False, True), one layer per split, penalties and cv by default."""
    ours, base = Est().get_params(), Base().get_params()
    assert {k: ours[k] for k in base if k in ours and k != "direct_links"} == {
        k: base[k] for k in base if k in ours and k != "direct_links"}
    assert ours["direct_links"] == (False, True)
    assert (ours["shared_layer"], ours["regs"], ours["cv"], ours["scoring"]) == (
        False, None, None, None)


@pytest.mark.mutant
def test_bls_cv_reg_is_the_chosen_penalty_and_unset_before_fit():
    """``reg`` reads ``reg_`` (what the refit and the increments use): an AttributeError
    before fit (so hasattr is False), the one penalty of a one-point grid after."""
    model = BLSRegressorCV(n_windows=2, nodes_per_window=3, n_enhancement=10, regs=[0.5],
                           direct_links=False, cv=3, random_state=0)
    with pytest.raises(AttributeError, match=r"^reg is chosen by fit \(reg_\)$"):
        model.reg
    assert not hasattr(model, "reg")
    X, y = regression_data(n=60, d=4)
    assert model.fit(X, y).reg == model.reg_ == 0.5
    np.testing.assert_allclose(model.predict(X), BLSRegressor(
        n_windows=2, nodes_per_window=3, n_enhancement=10, reg=0.5, random_state=0).fit(
        X, y).predict(X), rtol=1e-9, atol=1e-10)


@pytest.mark.mutant
@pytest.mark.parametrize("dtype, links", [("float32", [False]), ("float64", [True, False])])
def test_bls_cv_shared_layer_refit_has_the_gram_state_of_the_bls(dtype, links):
    """The shared layer's refit is the BLS fitted at the chosen point down to its Gram state:
    a float32 layer's primal state built as the BLS builds it (not from the search's float64
    sums); 60 rows and 36 nodes + 30 direct links (chosen: the first point of a tie) the dual
    state IIᵀ + C·I, though the folds without the links (40 training rows) summed I."""
    X, y = regression_data(n=60, d=30)
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=30, random_state=0,
                  dtype=dtype)
    ours = BLSRegressorCV(regs=[1e-2, 1.0], direct_links=links, cv=3, shared_layer=True,
                          scoring=lambda estimator, X, y: 0.0, **params).fit(X, y)
    assert ours.direct_links_ is links[0]
    base = BLSRegressor(reg=ours.reg_, direct_links=links[0], **params).fit(X, y)
    assert ours.gram_.form == base.gram_.form == ("dual" if links[0] else "primal")
    K, expected = np.triu(ours.gram_.K), np.triu(base.gram_.K)
    np.testing.assert_allclose(K, expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    np.testing.assert_allclose(ours.gram_.rhs, base.gram_.rhs, rtol=1e-12, atol=1e-12)


@pytest.mark.mutant
def test_bls_cv_shared_layer_with_every_fold_at_the_width():
    """60 rows in 3 folds of 40 training rows and 6 + 34 = 40 nodes: every fold takes the
    primal form from the sums of all rows (none has more rows than nodes); with the 4 direct
    links, 44 nodes: dual. Each score is the explicit solve on the split's rows of I."""
    X, y = regression_data(n=60, d=4)
    cv = KFold(3, shuffle=True, random_state=0)
    folds = list(cv.split(X))
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=34, random_state=2)
    ours = BLSRegressorCV(regs=[1e-3, 1e-1, 10.0], cv=cv, direct_links=[False, True],
                          shared_layer=True, **params).fit(X, y)
    expected = shared_layer_scores(BLSRegressor, X, y, params, ours.cv_results_["params"],
                                   folds, _neg_mse)
    got = np.array([ours.cv_results_[f"split{k}_test_score"] for k in range(3)]).T
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


@pytest.mark.mutant
@pytest.mark.parametrize("shared_layer, n_enhancement", [(False, 20), (False, 60), (True, 20)])
def test_bls_cv_default_penalties_from_the_first_split_or_every_row(shared_layer,
                                                                    n_enhancement):
    """regs=None: C = s·10^k, k = −8, −7.5, …, 3, s = tr(IᵀI) / min(n, P) of I = [X' | Z | E]
    (the direct links searched) of the first split's 40 training rows (6 + 20 + 4 = 30
    columns: primal; 70: dual), or with shared_layer=True of every row."""
    X, y = regression_data(n=60, d=4)
    cv = KFold(3, shuffle=True, random_state=0)
    rows = slice(None) if shared_layer else next(cv.split(X))[0]
    params = dict(n_windows=2, nodes_per_window=3, n_enhancement=n_enhancement, random_state=0)
    ours = BLSRegressorCV(cv=cv, shared_layer=shared_layer, **params).fit(X, y)
    I = BLSRegressor(direct_links=True, **params).fit(X[rows], y[rows]).broad_features(X[rows])
    np.testing.assert_allclose(ours.regs_, np.sum(I ** 2) / min(I.shape)
                               * 10.0 ** (np.arange(-16, 7) / 2), rtol=1e-10)


@pytest.mark.mutant
def test_a_single_penalty_below_one_is_a_grid_of_one():
    # a bare positive number is a grid of one (GRID's open interval from 0)
    X, y = make_regression(60, 5, noise=1.0, random_state=0)
    for estimator, name in ((ELMRegressorCV(n_hidden=20, cv=3, random_state=0), "alphas"),
                            (BLSRegressorCV(n_windows=2, nodes_per_window=3, n_enhancement=20,
                                            cv=3, random_state=0), "regs")):
        for value in (0.5, 1e-3):
            bare = estimator.set_params(**{name: value}).fit(X, y).predict(X)
            listed = estimator.set_params(**{name: [value]}).fit(X, y).predict(X)
            np.testing.assert_array_equal(bare, listed)


@pytest.mark.mutant
def test_elm_cv_of_one_hidden_node_is_the_elm_of_one_node():
    # n_hidden=1 is legal, as for ELMRegressor: one width, the penalties searched
    X, y = make_regression(40, 3, noise=1.0, random_state=0)
    ours = ELMRegressorCV(n_hidden=1, alphas=[1e-2, 1.0], cv=3, random_state=0).fit(X, y)
    assert ours.n_hidden_ == 1
    alone = ELMRegressorCV(n_hidden=1, hidden_sizes=1, alphas=[1e-2, 1.0], cv=3,
                           random_state=0).fit(X, y)  # a bare size of one: a grid of one
    np.testing.assert_array_equal(alone.predict(X), ours.predict(X))
    base = ELMRegressor(n_hidden=1, alpha=ours.alpha_, random_state=0,
                        direct_links=ours.direct_links_).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), base.predict(X), rtol=1e-10)


@pytest.mark.mutant
@pytest.mark.parametrize("link", [False, True])
def test_default_penalties_when_every_width_is_dual(link):
    # every width wider than the rows (no primal width, no sums): the scale s = tr(AᵀA)/n of
    # the widest inputs comes from the rows alone
    X, y = regression_data(n=40, d=3)
    model = ELMRegressorCV(n_hidden=90, hidden_sizes=[60, 90], direct_links=link, cv=3,
                           random_state=1).fit(X, y)
    A = ELMRegressor(n_hidden=90, direct_links=link, random_state=1).fit(
        X, y)._feature_map().transform(X)
    np.testing.assert_allclose(model.alphas_, np.sum(A ** 2) / len(X)
                               * 10.0 ** (np.arange(-16, 7) / 2), rtol=1e-10)


@pytest.mark.mutant
@pytest.mark.parametrize("cv", ["gcv", "loo"])
def test_a_repeated_link_setting_scores_as_that_setting_alone(cv):
    # direct_links=[True, False, False]: the second pass without links comes after the first
    # took the link pass's scores, and takes H's sums from the link pass's [X | H] sums only
    # where they are wide enough (30 rows, 5 inputs: 28 nodes are primal, 33 columns are not);
    # 40 and 50 nodes: the link pass grows H's kernel by column blocks for the unlinked scores
    X, y = make_regression(30, 5, noise=1.0, random_state=0)
    for sizes in ([20, 28], [10, 20], [40, 50]):
        params = dict(n_hidden=max(sizes), hidden_sizes=sizes, alphas=[1e-2, 1.0], cv=cv,
                      random_state=0)
        both = ELMRegressorCV(direct_links=[True, False, False], **params).fit(X, y)
        alone = ELMRegressorCV(direct_links=False, **params).fit(X, y).cv_results_
        expected = {(p["alpha"], p["n_hidden"]): score
                    for p, score in zip(alone["params"], alone["mean_test_score"])}
        got = [(expected[p["alpha"], p["n_hidden"]], score) for p, score
               in zip(both.cv_results_["params"], both.cv_results_["mean_test_score"])
               if not p["direct_links"]]
        assert len(got) == 2 * len(expected)
        np.testing.assert_allclose(*zip(*got), rtol=1e-9)


@pytest.mark.mutant
@pytest.mark.parametrize("n, layer, rtol", [
    (30, dict(activation="linear"), 1e-6),
    (120, dict(activation="tanh", weight_scale=0.01), 1e-3)])
def test_elm_cv_folds_of_a_rank_deficient_layer_equal_grid_search(n, layer, rtol):
    # 60 nodes on 3 inputs: a linear layer (rank 4) and 20 training rows (dual folds), or a
    # tanh layer nearly linear at weight scale 0.01 and 80 training rows (primal folds). The
    # folds' kernels or Gram matrices are singular or nearly so but for the penalty, which at
    # 1e-12 is below the condition test's margin, so each fold is solved as the ELM solves it
    # (a pseudo-solve), not by a trusted Cholesky. Planted, the condition test turned off: the
    # dual folds' scores 2.9 % off, the primal folds' 12 % off (main: 5.7e-14 and 2.4e-5)
    import warnings

    from scipy.linalg import LinAlgWarning

    X, y = make_regression(n, 3, noise=1.0, random_state=0)
    params = dict(n_hidden=60, random_state=0, **layer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LinAlgWarning)
        ours = ELMRegressorCV(hidden_sizes=[60], alphas=[1e-12], direct_links=False, cv=3,
                              **params).fit(X, y)
        grid = GridSearchCV(ELMRegressor(**params), {"alpha": [1e-12]}, cv=KFold(3),
                            scoring="neg_mean_squared_error").fit(X, y)
    np.testing.assert_allclose(ours.cv_results_["split0_test_score"],
                               grid.cv_results_["split0_test_score"], rtol=rtol)
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], rtol=rtol)
