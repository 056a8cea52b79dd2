"""OP-ELM (fastelm.op_elm) and its parts: the MRSR ranking (fastelm._mrsr, its step-length
kernel), PRESS over prefixes (fastelm._press), hpelm's 'OP' as an oracle, the estimator API."""
import itertools
import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import lars_path
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm import ELMClassifier, ELMRegressor, OPELMClassifier, OPELMRegressor
from fastelm._hidden import check_generator, random_weights
from fastelm._kernels.mrsr import step_lengths
from fastelm._mrsr import mrsr
from fastelm._press import prefix_press
from fastelm._threads import thread_limit

ESTIMATORS = [OPELMRegressor, OPELMClassifier]


def _hidden(n=100, d=10, L=20, seed=0):
    """X, H = tanh(XW + b) of a fastelm draw, and two smooth targets."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    W, b = random_weights(check_generator(seed), d, L, np.float64)
    T = np.c_[np.sin(X[:, 0]) + X[:, 1] ** 2, np.cos(X[:, 2]), X[:, 3] * X[:, 4]]
    return X, W, b, np.tanh(X @ W + b), T + 0.05 * rng.standard_normal(T.shape)


def _mrsr_by_the_equations(H, T):
    """Similä & Tikka (2005) step by step: least squares on the active set by lstsq, and the
    step γ = min⁺ (c_max + sᵀu_j) / (c_max + sᵀv_j) over every inactive j and sign vector s."""
    L, m = H.shape[1], T.shape[1]
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=m)))
    Y, active = np.zeros_like(T), [int(np.argmax(np.abs(H.T @ T).sum(1)))]
    while len(active) < min(L, H.shape[0]):
        Y_ols = H[:, active] @ np.linalg.lstsq(H[:, active], T, rcond=None)[0]
        c_max = np.abs(H[:, active[0]] @ (T - Y)).sum()
        best, entering = np.inf, None
        for j in set(range(L)) - set(active):
            u, v = (T - Y).T @ H[:, j], (Y_ols - Y).T @ H[:, j]
            ratios = (c_max + signs @ u) / (c_max + signs @ v)
            ratios = ratios[ratios > 0]
            if ratios.size and ratios.min() < best:
                best, entering = ratios.min(), j
        Y = Y + best * (Y_ols - Y)
        active.append(entering)
    return active


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("m", [1, 2, 3])
def test_mrsr_follows_the_equations(seed, m):
    _, _, _, H, T = _hidden(seed=seed)
    assert mrsr(H, T[:, :m]).tolist() == _mrsr_by_the_equations(H, T[:, :m])


@pytest.mark.parametrize("seed", range(6))
def test_mrsr_of_one_output_is_lars(seed):
    """sklearn's lars_path in its active order, for as long as its path keeps LARS's defining
    property (every active column equally correlated with the residual): on these raw tanh
    columns it loses it after 7 to 20 knots (the spread of its active correlations grows to
    ~10%), and the orders part only after that; ``_mrsr_by_the_equations`` is the full check."""
    _, _, _, H, T = _hidden(seed=seed)
    t = T[:, 0]
    _, active, coefs = lars_path(H, t, method="lar")
    knots = len(active)
    for k in range(1, coefs.shape[1]):
        c = np.abs(H.T @ (t - H @ coefs[:, k]))[active[:k]]
        if c.max() - c.min() > 1e-8 * c.max():
            knots = k
            break
    assert knots >= 7
    assert mrsr(H, T[:, :1])[:knots].tolist() == [int(j) for j in active[:knots]]


def test_step_lengths_equal_the_sign_vector_form():
    rng = np.random.default_rng(1)
    m, c_max = 4, 3.0
    U = rng.uniform(-0.7, 0.7, (200, m))       # ‖U_j‖₁ < c_max: inactive columns
    V = rng.uniform(-2, 2, (200, m))
    gamma = np.empty(200)
    step_lengths(U, V, c_max, gamma)
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=m)))
    ratios = (c_max + U @ signs.T) / (c_max + V @ signs.T)
    expected = np.where(ratios > 0, ratios, np.inf).min(1)
    np.testing.assert_allclose(gamma, np.minimum(expected, 1), rtol=1e-12)
    assert np.all(np.abs(np.abs(U - gamma[:, None] * V).sum(1) - (1 - gamma) * c_max) < 1e-12)


def test_mrsr_stops_at_max_steps_and_skips_dependent_columns():
    _, _, _, H, T = _hidden()
    assert mrsr(H, T, max_steps=5).tolist() == mrsr(H, T)[:5].tolist()
    doubled = np.c_[H, H[:, :3]]               # columns 20-22 repeat 0-2
    ranking = mrsr(doubled, T)
    assert sorted(ranking.tolist()) == list(range(20))
    wide = mrsr(H[:8], T[:8])                  # rank 8: no more than 8 columns ranked
    assert len(wide) == 8


def _leave_one_out(A, T):
    press = []
    for k in range(1, A.shape[1] + 1):
        total = 0.0
        for i in range(len(A)):
            keep = np.arange(len(A)) != i
            beta = np.linalg.lstsq(A[keep, :k], T[keep], rcond=None)[0]
            total += np.sum((T[i] - A[i, :k] @ beta) ** 2)
        press.append(total)
    return np.array(press)


def test_prefix_press_is_the_explicit_leave_one_out():
    _, _, _, H, T = _hidden(n=40, L=12)
    np.testing.assert_allclose(prefix_press(H, T), _leave_one_out(H, T), rtol=1e-8)


def test_prefix_press_is_inf_where_a_row_has_leverage_one():
    _, _, _, H, T = _hidden(n=10, L=12)
    press = prefix_press(H[:, :10], T)
    assert np.isfinite(press[:9]).all() and press[9] == np.inf


def test_fit_keeps_the_prefix_of_least_press_of_the_elm_layer():
    X, _, _, _, T = _hidden(n=60, L=15)
    model = OPELMRegressor(n_hidden=15, random_state=4).fit(X, T)
    elm = ELMRegressor(n_hidden=15, random_state=4).fit(X, T)   # the same hidden matrix
    H = elm._hidden(X)
    np.testing.assert_allclose(model.press_, _leave_one_out(H[:, model.ranking_], T),
                               rtol=1e-8)
    assert model.n_selected_ == np.argmin(model.press_) + 1
    assert np.array_equal(model.W_, elm.W_[:, model.selected_])
    assert np.array_equal(model.b_, elm.b_[model.selected_])
    beta = np.linalg.lstsq(H[:, model.selected_], T, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X), H[:, model.selected_] @ beta, atol=1e-9)


def test_classifier_draws_the_elm_classifier_layer():
    X, y = make_classification(n_samples=150, n_features=6, n_classes=3, n_informative=4,
                               random_state=0)
    model = OPELMClassifier(n_hidden=40, random_state=2).fit(X, y)
    elm = ELMClassifier(n_hidden=40, random_state=2).fit(X, y)
    assert np.array_equal(model.W_, elm.W_[:, model.selected_])
    assert model.beta_.shape == (model.n_selected_, 3)
    assert model.score(X, y) > 0.6                 # chance: 1/3


def test_direct_links_rank_the_inputs_with_the_nodes():
    X, _, _, _, T = _hidden(n=80, d=5, L=10)
    T = T + 2 * X[:, :1]                         # a linear part
    model = OPELMRegressor(n_hidden=10, direct_links=True, random_state=1).fit(X, T)
    elm = ELMRegressor(n_hidden=10, direct_links=True, random_state=1).fit(X, T)
    A = elm._hidden(X)                           # [X, H]
    assert 0 in model.selected_.tolist()
    beta = np.linalg.lstsq(A[:, model.selected_], T, rcond=None)[0]
    np.testing.assert_allclose(model.predict(X), A[:, model.selected_] @ beta, atol=1e-9)
    assert model.beta_.shape[0] == 5 + model.W_.shape[1]


def test_max_nodes_bounds_the_ranking():
    X, _, _, _, T = _hidden(n=80, L=30)
    model = OPELMRegressor(n_hidden=30, max_nodes=7, random_state=0).fit(X, T)
    assert len(model.ranking_) == 7 and model.n_selected_ <= 7
    full = OPELMRegressor(n_hidden=30, random_state=0).fit(X, T)
    assert model.ranking_.tolist() == full.ranking_[:7].tolist()


def test_hpelm_op_on_the_same_hidden_matrix():
    hpelm = pytest.importorskip("hpelm")
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 5))
    y = np.c_[np.sin(X[:, 0]) + X[:, 1] ** 2, np.cos(X[:, 2])] + 0.05 * rng.standard_normal((300, 2))
    model = OPELMRegressor(n_hidden=40, random_state=0).fit(X, y)
    W, b = random_weights(check_generator(0), 5, 40, np.float64, model.weight_scale_)
    reference = hpelm.ELM(5, 2)
    reference.add_neurons(40, "tanh", W=W, B=b)
    from hpelm.modules import mrsr as hpelm_mrsr
    assert hpelm_mrsr(np.tanh(X @ W + b), y, 40).tolist() == model.ranking_.tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference.train(X, y, "LOO", "OP")   # its own search of k (1% penalty per node)
    assert reference.nnet.L == model.n_selected_
    np.testing.assert_allclose(reference.predict(X), model.predict(X), atol=1e-10)


@parametrize_with_checks([E(n_hidden=20, random_state=0) for E in ESTIMATORS])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_get_params_names_every_parameter():
    assert sorted(OPELMRegressor().get_params()) == sorted(
        ["n_hidden", "activation", "alpha", "direct_links", "random_state", "dtype", "max_nodes",
         "weight_scale"])
    assert OPELMClassifier(max_nodes=3).get_params()["max_nodes"] == 3
    assert OPELMRegressor().alpha == 0.0


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_pickle_keeps_predictions(Estimator):
    X, y = make_classification(n_samples=120, n_features=6, random_state=1)
    model = Estimator(n_hidden=30, random_state=1).fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert np.array_equal(loaded.fit(X, y).predict(X), model.predict(X))


def test_same_seed_same_model_at_any_thread_count():
    X, _, _, _, T = _hidden(n=300, L=60)
    with thread_limit(1):
        one = OPELMRegressor(n_hidden=60, random_state=5).fit(X, T)
    many = OPELMRegressor(n_hidden=60, random_state=5).fit(X, T)
    assert one.ranking_.tolist() == many.ranking_.tolist()
    assert one.n_selected_ == many.n_selected_
    np.testing.assert_allclose(one.predict(X), many.predict(X), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_bad_input_gives_one_line_value_error(Estimator):
    X, y = make_classification(n_samples=60, n_features=8, random_state=0)
    for bad, match in [(np.where(np.eye(60, 8) > 0, np.nan, X), "NaN"),
                       (X[:, :, None], "dim"), (np.array([["a"] * 8] * 60), "float")]:
        with pytest.raises(ValueError, match=match):       # scikit-learn's messages
            Estimator(n_hidden=10).fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Estimator(n_hidden=10).fit(X, y[:-1])
    model = Estimator(n_hidden=10, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    for params, match in [({"n_hidden": 0}, "n_hidden"), ({"max_nodes": 0}, "max_nodes"),
                          ({"alpha": -1.0}, "alpha"), ({"dtype": "int8"}, "dtype")]:
        with pytest.raises(ValueError, match=match) as error:
            Estimator(**params).fit(X, y)
        assert "\n" not in str(error.value)
