import pickle

import numpy as np
import pytest
from sklearn.datasets import make_friedman2
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm._ridge import ridge_fit
from fastelm.fos_elm import FOSELMClassifier, FOSELMRegressor, nodes_to_drop


@parametrize_with_checks([FOSELMRegressor(n_hidden=30, random_state=0),
                          FOSELMClassifier(n_hidden=30, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _friedman(n=1200, seed=0):
    X, y = make_friedman2(n_samples=n, noise=0.0, random_state=seed)
    return (X - X.mean(0)) / X.std(0), (y - y.mean()) / y.std()


def test_nodes_to_drop_respects_threshold_order_and_floor():
    ST = np.array([0.3, 0.001, 0.0005, 0.2, 0.002, 0.0])
    assert nodes_to_drop(ST, 0.0015, 1).tolist() == [1, 2, 5]
    assert nodes_to_drop(ST, 0.0015, 4).tolist() == [2, 5]  # the two lowest only
    assert nodes_to_drop(ST, 0.0015, 6).tolist() == []
    assert nodes_to_drop(ST, 0.0, 1).tolist() == []


def test_pruned_model_is_the_ridge_fit_of_kept_nodes_on_all_rows_seen():
    X, y = _friedman()
    model = FOSELMRegressor(n_hidden=120, alpha=1e-2, delta=2e-3, min_nodes=20, random_state=3)
    W0 = None
    for step, s in enumerate(range(0, 1200, 200)):
        model.partial_fit(X[s:s + 200], y[s:s + 200])
        if step == 0:
            W0, b0 = model.W_.copy(), model.b_.copy()
            continue
        seen = X[:s + 200]
        H = np.tanh(seen @ W0[:, model.node_ids_] + b0[model.node_ids_])
        expected = H @ ridge_fit(H, y[:s + 200, None], 1e-2)
        got = model.predict(seen)
        np.testing.assert_allclose(got, expected.ravel(), rtol=1e-8,
                                   atol=1e-8 * np.abs(expected).max())
    assert model.n_nodes_history_[0] == 120
    assert model.n_nodes_ < 120  # something was pruned on this smooth 4-input function
    assert sum(len(p) for p in model.pruned_history_) == 120 - model.n_nodes_
    assert np.all(np.diff(model.n_nodes_history_) <= 0)


def test_min_nodes_is_a_floor_and_delta_zero_prunes_nothing():
    X, y = _friedman(600)
    greedy = FOSELMRegressor(n_hidden=60, delta=1.0, min_nodes=15, random_state=0)
    none = FOSELMRegressor(n_hidden=60, delta=0.0, random_state=0)
    for s in range(0, 600, 100):
        greedy.partial_fit(X[s:s + 100], y[s:s + 100])
        none.partial_fit(X[s:s + 100], y[s:s + 100])
    assert greedy.n_nodes_history_ == [60, 15, 15, 15, 15, 15]
    assert none.n_nodes_history_ == [60] * 6


def test_constant_node_is_pruned_first():
    X, y = _friedman(400)
    model = FOSELMRegressor(n_hidden=30, delta=1e-12, min_nodes=5, activation="relu",
                            random_state=1)
    model.partial_fit(X[:200], y[:200])
    model.W_[:, 7] = 0.0
    model.b_[7] = -1.0  # relu(-1) = 0 on every row: a constant node carries no variance
    model.partial_fit(X[200:], y[200:])
    assert 7 in model.pruned_history_[0]


def test_same_seed_same_pruning_and_pickle():
    X, y = _friedman(800)
    runs = []
    for _ in range(2):
        m = FOSELMRegressor(n_hidden=80, delta=3e-3, random_state=11)
        for s in range(0, 800, 160):
            m.partial_fit(X[s:s + 160], y[s:s + 160])
        runs.append(m)
    assert runs[0].n_nodes_history_ == runs[1].n_nodes_history_
    assert np.array_equal(runs[0].predict(X), runs[1].predict(X))
    loaded = pickle.loads(pickle.dumps(runs[0]))
    loaded.partial_fit(X[:100], y[:100])
    runs[0].partial_fit(X[:100], y[:100])
    assert np.array_equal(loaded.predict(X), runs[0].predict(X))


def test_classifier_prunes_and_predicts_all_classes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((900, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    clf = FOSELMClassifier(n_hidden=100, delta=2e-3, random_state=0)
    clf.partial_fit(X[:300], y[:300], classes=[0, 1, 2])
    for s in range(300, 900, 150):
        clf.partial_fit(X[s:s + 150], y[s:s + 150])
    assert clf.n_nodes_ < 100
    assert clf.score(X, y) > 0.85
    assert clf.predict_proba(X).shape == (900, 3)


@pytest.mark.parametrize("params, match", [
    ({"delta": -0.1}, "delta"), ({"min_nodes": 50, "n_hidden": 20}, "min_nodes"),
    ({"efast_samples": 64, "efast_interference": 4}, "4 M"), ({"min_nodes": 0}, "min_nodes")])
def test_bad_parameters(params, match):
    X, y = _friedman(50)
    with pytest.raises(ValueError, match=match):
        FOSELMRegressor(**params).fit(X, y)


def test_single_row_chunk_prunes_nothing():
    X, y = _friedman(300)
    model = FOSELMRegressor(n_hidden=40, delta=0.5, min_nodes=5, random_state=0)
    model.partial_fit(X[:200], y[:200]).partial_fit(X[200:201], y[200:201])
    assert model.n_nodes_history_ == [40, 40]
    model.partial_fit(X[201:], y[201:])
    assert model.n_nodes_history_[-1] == 5



def test_weight_scale_of_the_initial_layer_is_kept_by_pruning():
    X, y = make_friedman2(n_samples=400, random_state=0)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    model = FOSELMRegressor(n_hidden=60, delta=0.05, random_state=1)
    for start in range(0, 400, 100):
        model.partial_fit(X[start:start + 100], y[start:start + 100])
    unit = FOSELMRegressor(n_hidden=60, random_state=1, weight_scale=1.0).partial_fit(X, y)
    assert model.weight_scale_ == 0.5 and model.n_nodes_ < 60
    np.testing.assert_array_equal(model.W_, unit.W_[:, model.node_ids_] * 0.5)
    np.testing.assert_array_equal(model.b_, unit.b_[model.node_ids_])
