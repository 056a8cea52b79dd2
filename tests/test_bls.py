"""Broad Learning System: kernels against numpy loops, the reference mode against a direct numpy
transcription of docs/algorithms.md §5, primal = dual, incremental learning = retraining."""
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import orth
from sklearn.datasets import load_digits, make_classification, make_regression
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm._ridge import spd_solve
from fastelm.bls import BLSClassifier, BLSRegressor, sparse_autoencoder
from fastelm._kernels.bls import minmax_rows, tansig_shrink, zscore_rows

SMALL = dict(n_windows=3, nodes_per_window=4, n_enhancement=30)


@parametrize_with_checks([BLSRegressor(n_enhancement=200, random_state=0),
                          BLSClassifier(n_enhancement=200, random_state=0)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


# ------------------------------------------------------------------ numpy transcriptions
def _shrinkage(x, kappa):
    return np.maximum(x - kappa, 0) - np.maximum(-x - kappa, 0)


def _sparse_bls(A, b, lam, itrs):
    """The reference ``sparse_bls``, line by line."""
    AA = A.T @ A
    m, n = A.shape[1], b.shape[1]
    x = np.zeros((m, n))
    wk = ok = uk = x
    L1 = np.linalg.inv(AA + np.eye(m))
    L2 = L1 @ A.T @ b
    for _ in range(itrs):
        tempc = ok - uk
        ck = L2 + L1 @ tempc
        ok = _shrinkage(ck + uk, lam)
        uk = uk + (ck - ok)
        wk = ok
    return wk


def _zscore_rows(x):
    sd = x.std(axis=1, ddof=1, keepdims=True)
    sd[sd == 0] = 1
    return (x - x.mean(axis=1, keepdims=True)) / sd


def _mapminmax(x, lo, hi, xmin=None, xmax=None):
    """MATLAB mapminmax on the rows of x (or apply the given xmin/xmax)."""
    if xmin is None:
        xmin, xmax = x.min(axis=1, keepdims=True), x.max(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        gain = (hi - lo) / (xmax - xmin)
    fix = ~(gain <= 1e14)
    gain, offset = np.where(fix, 1.0, gain), np.where(fix, lo, xmin)
    return (x - offset) * gain + lo, (xmin, xmax)


def _tansig(x):
    return 2 / (1 + np.exp(-2 * x)) - 1


def _reference_bls(X, Y, X_test, n, k, q, s, C, seed):
    """docs/algorithms.md §5 (the reference ``bls_train``) in plain numpy; returns I(X_test), scores."""
    rng = np.random.default_rng(seed)
    H1 = np.hstack([_zscore_rows(X), 0.1 * np.ones((len(X), 1))])
    HH1 = np.hstack([_zscore_rows(X_test), 0.1 * np.ones((len(X_test), 1))])
    y, yy1 = np.zeros((len(X), n * k)), np.zeros((len(X_test), n * k))
    for i in range(n):
        we = rng.uniform(-1, 1, size=(X.shape[1] + 1, k))
        A1, _ = _mapminmax(H1 @ we, -1, 1)
        beta1 = _sparse_bls(A1, H1, 1e-3, 50).T
        T1, ps = _mapminmax((H1 @ beta1).T, 0, 1)
        y[:, k * i:k * (i + 1)] = T1.T
        yy1[:, k * i:k * (i + 1)] = _mapminmax((HH1 @ beta1).T, 0, 1, *ps)[0].T
    H2 = np.hstack([y, 0.1 * np.ones((len(X), 1))])
    R = rng.uniform(-1, 1, size=(n * k + 1, q))
    wh = orth(R) if n * k >= q else orth(R.T).T
    T2 = H2 @ wh
    l2 = s / T2.max()
    T3 = np.hstack([y, _tansig(T2 * l2)])
    beta = np.linalg.solve(T3.T @ T3 + np.eye(T3.shape[1]) * C, T3.T @ Y)
    HH2 = np.hstack([yy1, 0.1 * np.ones((len(X_test), 1))])
    TT3 = np.hstack([yy1, _tansig(HH2 @ wh * l2)])
    return TT3, TT3 @ beta


# ------------------------------------------------------------------ kernels
def test_admm_kernel_equals_numpy_loop():
    rng = np.random.default_rng(1)
    A = rng.uniform(-1, 1, size=(200, 7))
    B = rng.normal(size=(200, 31))
    for lam in (1e-3, 0.5):
        got = sparse_autoencoder(A, A.T @ B, lam)
        want = _sparse_bls(A, B, lam, 50)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    assert (sparse_autoencoder(A, A.T @ B, 50.0) == 0).mean() > 0.5  # lam shrinks to sparse


def test_row_kernels_equal_numpy():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 12))
    X[3] = 2.5  # a constant row: centred, not divided
    np.testing.assert_allclose(zscore_rows(X), _zscore_rows(X), rtol=1e-13, atol=1e-14)
    A = rng.normal(size=(40, 12))
    A[5, 4:8] = 1.0  # a constant row within one window passes through unchanged
    got = minmax_rows(A.copy(), 4, -1.0, 1.0)
    for g in range(3):
        want, _ = _mapminmax(A[:, 4 * g:4 * g + 4], -1, 1)
        np.testing.assert_allclose(got[:, 4 * g:4 * g + 4], want, rtol=1e-13, atol=1e-14)
    np.testing.assert_array_equal(got[5, 4:8], 1.0)
    H = rng.normal(size=(30, 9))
    bias = rng.normal(size=6)
    want = H.copy()
    want[:, 3:] = np.tanh(0.7 * (H[:, 3:] + bias))
    np.testing.assert_allclose(tansig_shrink(H, 3, bias, 0.7), want, rtol=1e-14, atol=1e-15)


# ------------------------------------------------------------------ reference mode
@pytest.mark.parametrize("q", [40, 13, 7])  # Wh with orthonormal rows, square (nk + 1), columns
def test_reference_mode_equals_numpy_transcription(q):
    rng = np.random.default_rng(3)
    X, X_test = rng.uniform(0, 1, size=(300, 25)), rng.uniform(0, 1, size=(80, 25))
    y = rng.integers(0, 3, size=300)
    Y = np.where(np.arange(3) == y[:, None], 1.0, -1.0)  # the reference's ±1 coding
    model = BLSClassifier(n_windows=3, nodes_per_window=4, n_enhancement=q, reg=1e-3,
                          preprocessing="reference", random_state=11).fit(X, y)
    I_want, scores_want = _reference_bls(X, Y, X_test, 3, 4, q, 0.8, 1e-3, seed=11)
    np.testing.assert_allclose(model.broad_features(X_test), I_want, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model._scores(X_test), scores_want, rtol=1e-8, atol=1e-8)


def test_reference_mode_at_default_C_predicts_like_transcription():
    X, y = load_digits(return_X_y=True)
    Y = np.where(np.arange(10) == y[:, None], 1.0, -1.0)
    model = BLSClassifier(n_enhancement=300, preprocessing="reference", random_state=5)
    model.fit(X[:1200], y[:1200])
    _, scores = _reference_bls(X[:1200], Y[:1200], X[1200:], 10, 10, 300, 0.8, 2.0 ** -30, 5)
    # C = 2⁻³⁰ leaves IᵀI + C·I near singular: beta differs with round-off, decisions do not
    assert (model.predict(X[1200:]) == np.argmax(scores, axis=1)).mean() > 0.98
    assert model.score(X[1200:], y[1200:]) > 0.9


# ------------------------------------------------------------------ readout forms
@pytest.mark.parametrize("n", [150, 40])
def test_primal_and_dual_readouts_agree(n):
    X, y = make_regression(n_samples=n, n_features=6, n_targets=2, random_state=0)
    model = BLSRegressor(**SMALL, reg=1e-2, random_state=0).fit(X, y)
    beta = {}
    for form in ("primal", "dual"):
        model.gram_ = model._build_gram(form)
        a = spd_solve(model.gram_.K, model.gram_.rhs, rcond_min=0)
        beta[form] = a if form == "primal" else model.broad_features(X).T @ a
    assert model._n_nodes() == 42
    np.testing.assert_allclose(beta["primal"], beta["dual"], rtol=1e-7,
                               atol=1e-9 * np.abs(beta["dual"]).max())


# ------------------------------------------------------------------ incremental learning
def _retrained_beta(model, X, T):
    """The ridge readout fitted from scratch on the model's final nodes and the given rows."""
    F = model.broad_features(X)
    return np.linalg.solve(F.T @ F + model.reg * np.eye(F.shape[1]), F.T @ T)


@pytest.mark.parametrize("n0", [200, 25])  # primal throughout / dual, then switching to primal
def test_incremental_equals_retraining(n0):
    X, y = make_regression(n_samples=260, n_features=5, n_targets=2, noise=0.1, random_state=1)
    model = BLSRegressor(**SMALL, reg=1e-2, random_state=0).fit(X[:n0], y[:n0])
    model.add_enhancement_nodes(8)
    model.partial_fit(X[n0:n0 + 20], y[n0:n0 + 20])
    model.add_enhancement_nodes(5)
    model.add_rows(X[n0 + 20:], y[n0 + 20:])
    assert model._n_nodes() == 12 + 30 + 8 + 5 and len(model.enhancement_shrink_) == 3
    model.gram_ = None  # a dropped state is rebuilt from the stored feature nodes
    model.add_enhancement_nodes(4)
    want = _retrained_beta(model, X, y)
    np.testing.assert_allclose(model.beta_, want, rtol=1e-6, atol=1e-6 * np.abs(want).max())


def test_float32_incremental_equals_retraining():
    """float32: the centred, flushed ssyrk Gram and its increments match a float64 retrain on
    the same float32 broad features to float32 round-off."""
    X, y = make_regression(n_samples=3000, n_features=5, n_targets=2, noise=0.1, random_state=1)
    model = BLSRegressor(**SMALL, reg=1e-2, random_state=0, dtype="float32")
    model.fit(X[:2000], y[:2000])
    model.add_enhancement_nodes(8)
    model.add_rows(X[2000:], y[2000:])
    model.add_enhancement_nodes(5)
    F = model.broad_features(X).astype(np.float64)
    K = F.T @ F + model.reg * np.eye(F.shape[1])
    np.testing.assert_allclose(np.triu(model.gram_.K), np.triu(K), rtol=0,
                               atol=1e-6 * np.abs(K).max())
    want = F @ np.linalg.solve(K, F.T @ y)  # beta itself is ill-conditioned at this reg
    np.testing.assert_allclose(model.predict(X), want, rtol=0, atol=1e-4 * np.abs(want).max())


def test_float32_singular_gram_raises():
    X, y = make_regression(n_samples=3000, n_features=5, random_state=1)
    with pytest.raises(np.linalg.LinAlgError, match="float32"):
        BLSRegressor(n_enhancement=300, reg=0.0, random_state=0, dtype="float32").fit(X, y)


def test_incremental_dual_equals_retraining():
    X, y = make_classification(n_samples=60, n_features=8, n_informative=4, n_classes=3,
                               random_state=0)
    model = BLSClassifier(**SMALL, reg=1e-2, random_state=0).fit(X[:30], y[:30])
    model.add_enhancement_nodes(20)
    model.add_rows(X[30:], y[30:])
    assert model.gram_.form == "dual"  # 60 rows < 62 nodes
    T = np.eye(3)[np.searchsorted(model.classes_, y)]
    want = _retrained_beta(model, X, T)
    np.testing.assert_allclose(model.beta_, want, rtol=1e-6, atol=1e-6 * np.abs(want).max())


def test_increments_keep_scalings_and_draw_reproducibly():
    X, y = make_regression(n_samples=120, n_features=5, random_state=2)
    a = BLSRegressor(**SMALL, random_state=4).fit(X[:80], y[:80])
    kept = (a.feature_offset_.copy(), a.feature_gain_.copy(), a.enhancement_shrink_[0])
    a.add_rows(X[80:] * 3, y[80:])  # out-of-range rows: scalings stay as fitted
    a.add_enhancement_nodes(6)
    np.testing.assert_array_equal(a.feature_offset_, kept[0])
    np.testing.assert_array_equal(a.feature_gain_, kept[1])
    assert a.enhancement_shrink_[0] == kept[2]
    b = BLSRegressor(**SMALL, random_state=4).fit(X[:80], y[:80])
    b.add_rows(X[80:] * 3, y[80:])
    b.add_enhancement_nodes(6)
    np.testing.assert_array_equal(a.enhancement_weights_[1], b.enhancement_weights_[1])
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


# ------------------------------------------------------------------ estimator behaviour
def test_classifier_learns_digits_in_both_modes():
    X, y = load_digits(return_X_y=True)
    for mode in ("minmax", "reference"):
        model = BLSClassifier(n_enhancement=500, reg=1e-3, preprocessing=mode, random_state=0)
        model.fit(X[:1400], y[:1400])
        assert model.score(X[1400:], y[1400:]) > 0.9
        proba = model.predict_proba(X[1400:])
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        np.testing.assert_array_equal(model.classes_[proba.argmax(axis=1)],
                                      model.predict(X[1400:]))


def test_float32_end_to_end():
    X, y = make_regression(n_samples=300, n_features=6, noise=0.1, random_state=0)
    y = y / y.std()
    m64 = BLSRegressor(**SMALL, reg=1e-2, random_state=0).fit(X, y)
    m32 = BLSRegressor(**SMALL, reg=1e-2, random_state=0, dtype="float32").fit(X, y)
    assert m32.beta_.dtype == np.float32 and m32.predict(X).dtype == np.float32
    np.testing.assert_allclose(m32.predict(X), m64.predict(X), atol=1e-3)


def test_pickle_round_trip_and_increment_after():
    X, y = make_regression(n_samples=150, n_features=4, random_state=3)
    model = BLSRegressor(**SMALL, random_state=0).fit(X[:100], y[:100])
    clone = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(clone.predict(X), model.predict(X))
    for m in (model, clone):
        m.add_rows(X[100:], y[100:])
        m.add_enhancement_nodes(4)
    np.testing.assert_array_equal(clone.predict(X), model.predict(X))


@pytest.mark.parametrize("params, match", [
    (dict(n_windows=0), "n_windows"), (dict(nodes_per_window=2.5), "nodes_per_window"),
    (dict(n_enhancement=-1), "n_enhancement"), (dict(shrink=0), "shrink"),
    (dict(reg=-1.0), "reg"), (dict(sparse_lambda=np.nan), "sparse_lambda"),
    (dict(preprocessing="zscore"), "preprocessing"), (dict(dtype="float16"), "dtype")])
def test_bad_parameters_raise(params, match):
    with pytest.raises(ValueError, match=match):
        BLSRegressor(**params).fit(np.ones((5, 2)), np.arange(5.0))


def test_increment_errors():
    X, y = make_classification(n_samples=50, n_features=5, random_state=0)
    with pytest.raises(ValueError, match="classes"):
        BLSClassifier().partial_fit(X, y)
    model = BLSClassifier(**SMALL, random_state=0).partial_fit(X, y, classes=[0, 1, 2])
    with pytest.raises(ValueError, match="n_new"):
        model.add_enhancement_nodes(0)
    with pytest.raises(ValueError, match="features"):
        model.add_rows(X[:, :3], y)
    with pytest.raises(ValueError, match="not in classes_"):
        model.add_rows(X[:3], [0, 1, 7])


_THREADS_SCRIPT = """
import hashlib, numba
from sklearn.datasets import make_classification
from fastelm import bls
bls.SERIAL_WORK = 0.0  # keep the kernels threaded on small data
X, y = make_classification(n_samples=400, n_features=10, n_informative=5, n_classes=3,
                           random_state=0)
m = bls.BLSClassifier(n_enhancement=60, preprocessing="reference", random_state=0)
m.fit(X[:300], y[:300]).add_enhancement_nodes(10)
m.add_rows(X[300:], y[300:])
print(numba.get_num_threads(),
      hashlib.sha256(m.beta_.tobytes() + m.decision_function(X).tobytes()).hexdigest())
"""


def test_same_model_at_one_and_two_threads():
    """Bit-identical models with NUMBA_NUM_THREADS=1 and 2, each in its own process (so two
    threads really run, even where this process was started with one)."""
    root = str(Path(__file__).resolve().parents[1])
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    out = {}
    for threads in ("1", "2"):
        result = subprocess.run([sys.executable, "-c", _THREADS_SCRIPT], cwd=root, text=True,
                                capture_output=True, timeout=600,
                                env=dict(os.environ, NUMBA_NUM_THREADS=threads, PYTHONPATH=path))
        assert result.returncode == 0, result.stderr
        used, digest = result.stdout.split()
        assert used == threads
        out[threads] = digest
    assert out["1"] == out["2"]
