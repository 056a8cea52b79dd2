import os
import pickle
import subprocess
import sys

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm import ELMClassifier, ELMRegressor, OSELMClassifier, OSELMRegressor

ESTIMATORS = [ELMRegressor, ELMClassifier, OSELMRegressor, OSELMClassifier]


@parametrize_with_checks([E(random_state=0) for E in ESTIMATORS])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _regression(n=400, d=6, m=1, seed=0):
    X, y = make_regression(n_samples=n, n_features=d, n_targets=m, noise=0.1, random_state=seed)
    return X / X.std(0), y / y.std(0)


def _classification(n=400, d=8, k=3, seed=0):
    return make_classification(n_samples=n, n_features=d, n_informative=5, n_classes=k,
                               random_state=seed)


@pytest.mark.parametrize("chunks", [[400], [7, 393], [30] * 13 + [10], [1] * 20 + [380],
                                    [150, 1, 1, 248]])
def test_oselm_regressor_equals_batch_elm_for_any_chunking(chunks):
    X, y = _regression(m=2)
    batch = ELMRegressor(n_hidden=120, alpha=1e-2, random_state=5).fit(X, y)
    online, start = OSELMRegressor(n_hidden=120, alpha=1e-2, random_state=5), 0
    for size in chunks:
        online.partial_fit(X[start:start + size], y[start:start + size])
        start += size
    np.testing.assert_array_equal(online.W_, batch.W_)
    expected = batch.predict(X)
    np.testing.assert_allclose(online.predict(X), expected, rtol=1e-8,
                               atol=1e-8 * np.abs(expected).max())


def test_oselm_classifier_equals_batch_elm():
    X, y = _classification()
    batch = ELMClassifier(n_hidden=200, alpha=1e-2, random_state=2).fit(X, y)
    online = OSELMClassifier(n_hidden=200, alpha=1e-2, random_state=2)
    online.partial_fit(X[:50], y[:50], classes=np.unique(y))  # first chunk smaller than L
    for s in range(50, 400, 70):
        online.partial_fit(X[s:s + 70], y[s:s + 70])
    expected = batch.decision_function(X)
    np.testing.assert_allclose(online.decision_function(X), expected, rtol=1e-8,
                               atol=1e-8 * np.abs(expected).max())
    assert np.array_equal(online.predict(X), batch.predict(X))


def test_oselm_solves_the_readout_only_when_it_is_read():
    X, y = _regression(m=2)
    online = OSELMRegressor(n_hidden=60, alpha=1e-2, random_state=3)
    for s in range(0, 400, 100):
        online.partial_fit(X[s:s + 100], y[s:s + 100])
        assert online.rls_._beta is None  # information steps only add to HᵀH and HᵀT
    beta = online.beta_
    assert online.beta_ is beta and "beta_" not in vars(online)
    batch = ELMRegressor(n_hidden=60, alpha=1e-2, random_state=3).fit(X, y)
    np.testing.assert_allclose(beta, batch.beta_, rtol=1e-9, atol=1e-12)
    with pytest.raises(AttributeError):
        OSELMRegressor().beta_


def test_elm_learns():
    X, y = _classification(n=1000)
    clf = ELMClassifier(n_hidden=200, random_state=0).fit(X[:700], y[:700])
    assert clf.score(X[700:], y[700:]) > 0.75  # chance is 1/3
    proba = clf.predict_proba(X[700:])
    np.testing.assert_allclose(proba.sum(1), 1)
    assert np.array_equal(clf.classes_[proba.argmax(1)], clf.predict(X[700:]))
    Xr, yr = _regression(n=1000, m=3)
    reg = ELMRegressor(n_hidden=200, random_state=0).fit(Xr[:700], yr[:700])
    assert reg.predict(Xr[700:]).shape == (300, 3)
    assert reg.score(Xr[700:], yr[700:]) > 0.9


def test_string_labels_and_binary_decision():
    X, y = _classification(k=2)
    labels = np.array(["healthy", "patient"])[y]
    clf = ELMClassifier(n_hidden=50, random_state=0).fit(X, labels)
    assert set(clf.predict(X)) <= {"healthy", "patient"}
    d = clf.decision_function(X)
    assert d.shape == (400,)
    assert np.array_equal(np.where(d > 0, "patient", "healthy"), clf.predict(X))


def test_float32_end_to_end():
    X, y = _classification()
    c32 = ELMClassifier(n_hidden=100, dtype="float32", random_state=0).fit(X, y)
    c64 = ELMClassifier(n_hidden=100, dtype="float64", random_state=0).fit(X, y)
    assert c32.W_.dtype == np.float32 and c32.beta_.dtype == np.float32
    assert c32.decision_function(X).dtype == np.float32
    assert np.mean(c32.predict(X) == c64.predict(X)) > 0.98


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_pickle_round_trip_keeps_predictions(Estimator):
    X, y = _classification()
    model = Estimator(n_hidden=40, random_state=1).fit(X, y)
    loaded = pickle.loads(pickle.dumps(model))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    if hasattr(model, "partial_fit"):  # the streaming state survives too
        model.partial_fit(X[:30], y[:30])
        loaded.partial_fit(X[:30], y[:30])
        assert np.array_equal(loaded.predict(X), model.predict(X))


@pytest.mark.parametrize("Estimator", ESTIMATORS)
def test_bad_input_gives_clear_value_error(Estimator):
    X, y = _classification(n=60)
    for bad, match in [(np.where(np.eye(60, 8) > 0, np.nan, X), "NaN"),
                       (np.where(np.eye(60, 8) > 0, np.inf, X), "infinity"),
                       (X[:, :, None], "dim"),
                       (np.array([["a"] * 8] * 60), "float")]:
        with pytest.raises(ValueError, match=match):
            Estimator(n_hidden=10).fit(bad, y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        Estimator(n_hidden=10).fit(X, y[:-1])
    model = Estimator(n_hidden=10, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :5])
    for params, match in [({"n_hidden": 0}, "n_hidden"), ({"alpha": -1.0}, "alpha"),
                          ({"activation": "swish"}, "activation"), ({"dtype": "int8"}, "dtype")]:
        with pytest.raises(ValueError, match=match):
            Estimator(**params).fit(X, y)


@pytest.mark.parametrize("Estimator", [ELMClassifier, OSELMClassifier])
def test_one_class_is_rejected(Estimator):
    X = np.random.default_rng(0).standard_normal((20, 3))
    with pytest.raises(ValueError, match="one class"):
        Estimator(n_hidden=5).fit(X, np.ones(20))


def test_partial_fit_label_errors():
    X, y = _classification(n=100)
    model = OSELMClassifier(n_hidden=20, random_state=0)
    with pytest.raises(ValueError, match="classes must be passed"):
        model.partial_fit(X, y)
    model.partial_fit(X[y < 2], y[y < 2], classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels not in classes_.*\[2\]"):
        model.partial_fit(X, y)
    reg = OSELMRegressor(n_hidden=20, random_state=0).partial_fit(X, np.c_[y, y])
    with pytest.raises(ValueError, match="outputs"):
        reg.partial_fit(X, np.c_[y, y, y])


_THREAD_SCRIPT = """
import numpy as np, sys
from fastelm import ELMClassifier, OSELMRegressor
rng = np.random.default_rng(0)
X = rng.standard_normal((3000, 20)); y = (X[:, 0] * X[:, 1] > 0).astype(int)
a = ELMClassifier(n_hidden=300, random_state=7).fit(X, y)
b = OSELMRegressor(n_hidden=300, random_state=7)
for s in range(0, 3000, 250):
    b.partial_fit(X[s:s + 250], X[s:s + 250, 0])
sys.stdout.buffer.write(a.beta_.tobytes() + a.decision_function(X).tobytes() + b.beta_.tobytes())
"""


def test_same_model_at_one_and_two_threads():
    outputs = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads)
        outputs.append(subprocess.run([sys.executable, "-c", _THREAD_SCRIPT], env=env,
                                      capture_output=True, check=True).stdout)
    assert len(outputs[0]) > 0 and outputs[0] == outputs[1]


def test_import_compiles_no_kernel():
    code = ("import fastelm, fastelm._kernels.hidden as k; "
            "print(len(k.add_bias_activate.signatures))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


# --------------------------------------------------------------------------- weight scale

from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402

from fastelm import FOSELMRegressor  # noqa: E402
from fastelm.de_elm import DEELMClassifier  # noqa: E402


def _former_layer(seed, d, L, dtype=np.float64):
    """W, b as drawn before weight_scale (U(-1, 1) both)."""
    nodes = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(L, d + 1))
    return np.ascontiguousarray(nodes[:, :d].T, dtype=dtype), nodes[:, d].astype(dtype)


@pytest.mark.parametrize("Model", [ELMRegressor, OSELMRegressor])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_weight_scale_one_is_the_former_model(Model, dtype):
    X, y = make_regression(n_samples=150, n_features=9, random_state=0)
    model = Model(n_hidden=25, weight_scale=1.0, alpha=1e-3, random_state=4, dtype=dtype
                  ).fit(X, y)
    W0, b0 = _former_layer(4, 9, 25, np.dtype(dtype).type)
    np.testing.assert_array_equal(model.W_, W0)
    np.testing.assert_array_equal(model.b_, b0)
    assert model.weight_scale_ == 1.0
    H = np.tanh(X.astype(dtype) @ W0 + b0).astype(np.float64)
    beta = np.linalg.solve(H.T @ H + 1e-3 * np.eye(25), H.T @ y)
    np.testing.assert_allclose(model.predict(X), H @ beta, rtol=1e-4 if dtype == "float32"
                               else 1e-8, atol=1e-3 if dtype == "float32" else 1e-8)


@pytest.mark.parametrize("Model", [ELMRegressor, ELMClassifier, OSELMRegressor,
                                   OSELMClassifier, FOSELMRegressor])
def test_auto_weight_scale_is_one_over_root_d_of_the_same_draw(Model):
    X, y = make_classification(n_samples=120, n_features=16, random_state=0)
    auto = Model(n_hidden=20, random_state=7).fit(X, y)
    unit = Model(n_hidden=20, random_state=7, weight_scale=1.0).fit(X, y)
    assert auto.weight_scale == "auto" and auto.weight_scale_ == 0.25
    np.testing.assert_array_equal(auto.W_, unit.W_ * 0.25)
    np.testing.assert_array_equal(auto.b_, unit.b_)
    given = Model(n_hidden=20, random_state=7, weight_scale=0.25).fit(X, y)
    np.testing.assert_array_equal(given.W_, auto.W_)


@pytest.mark.parametrize("Model", [ELMRegressor, OSELMClassifier, FOSELMRegressor,
                                   DEELMClassifier])
@pytest.mark.parametrize("bad", [0, -1.0, "x", np.nan, np.inf, None])
def test_bad_weight_scales_raise_one_line_parameter_errors(Model, bad):
    X, y = make_classification(n_samples=60, n_features=5, random_state=0)
    with pytest.raises(InvalidParameterError, match="'weight_scale' parameter") as info:
        Model(weight_scale=bad).fit(X, y)
    assert "\n" not in str(info.value)


def test_predictions_come_from_the_fitted_layer_alone():
    X, y = make_regression(n_samples=100, n_features=4, random_state=1)
    model = ELMRegressor(n_hidden=15, random_state=0).fit(X, y)
    before = model.predict(X)
    model.set_params(weight_scale=3.0)
    np.testing.assert_array_equal(model.predict(X), before)


def test_weight_scale_is_fixed_by_the_first_partial_fit():
    X, y = make_regression(n_samples=100, n_features=4, random_state=1)
    model = OSELMRegressor(n_hidden=15, random_state=0).partial_fit(X[:50], y[:50])
    assert model.weight_scale_ == 0.5
    model.set_params(weight_scale=1.0)
    with pytest.raises(ValueError, match="weight_scale changed"):
        model.partial_fit(X[50:], y[50:])
    model.fit(X, y)  # starts afresh with the new scale
    assert model.weight_scale_ == 1.0
