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


@pytest.mark.mutant
@pytest.mark.parametrize("increment", ["add_rows", "partial_fit"])
def test_reference_mode_rows_added_are_coded_like_fit(increment):
    """preprocessing='reference' codes a classifier's targets 2·onehot − 1 (the reference
    code's ±1); rows added later must be coded the same way: the readout equals the ridge
    retrained on every row with the ±1 targets (planted: add_rows without the coding, the new
    rows' targets left 0/1)."""
    X, y = make_classification(n_samples=120, n_features=8, n_informative=4, n_classes=3,
                               random_state=0)
    model = BLSClassifier(**SMALL, reg=1e-2, preprocessing="reference", random_state=0)
    model.fit(X[:70], y[:70])
    getattr(model, increment)(X[70:], y[70:])
    T = 2.0 * np.eye(3)[np.searchsorted(model.classes_, y)] - 1.0
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


# ------------------------------------------------------------------ BLS enhancement groups
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).
# A new enhancement group reusing the first group's shrink instead of its own.


def _enhancement_group(Z, Wh, shrink):
    """docs/algorithms.md §5 for one group, in numpy: T2 = [Z, 0.1] Wh, l = s / max(T2),
    E = tansig(l·T2) (tansig = tanh)."""
    T2 = np.hstack([Z, np.full((len(Z), 1), 0.1)]) @ Wh
    scale = shrink / T2.max()
    return scale, np.tanh(scale * T2)


@pytest.mark.mutant
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


# ------------------------------------------------------------------ BLS kernels (cosmic-ray)


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
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


@pytest.mark.mutant
def test_bls_too_wide_message_names_the_first_wide_column():
    """Two columns too wide to min-max scale: the message names the first and its own span
    (kills 'wide[0]' → 'wide[-1]' for the column number, which printed column 2 with column 1's
    span)."""
    X = np.random.default_rng(0).standard_normal((10, 4))
    X[0, 1], X[1, 1] = -1e308, 1e308
    X[0, 2], X[1, 2] = -5e307, 1.5e308
    with pytest.raises(ValueError, match=r"column 1 of the inputs spans \[-1e\+308, 1e\+308\]"):
        BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10).fit(X, X[:, 0])


@pytest.mark.mutant
def test_bls_float32_singular_message_gives_the_measured_reg():
    """The float32 LinAlgError's hint names the smallest reg measured to work on MNIST, 0.001
    (kills F32_REG_HINT made negative)."""
    X, y = make_regression(n_samples=3000, n_features=5, random_state=1)
    with pytest.raises(np.linalg.LinAlgError, match=r"\(MNIST, 60000 rows: reg >= 0\.001\)"):
        BLSRegressor(n_enhancement=300, reg=0.0, random_state=0, dtype="float32").fit(X, y)


@pytest.mark.mutant
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


@pytest.mark.mutant
def test_bls_reference_mode_takes_a_column_too_wide_to_min_max_scale():
    """'reference' z-scores rows and never min-max scales the inputs, so a column spanning
    [-1e308, 1e308] is no error there (kills 'preprocessing == "minmax"' → '>=' in _fit_layer,
    which computed the input min-max scaling in 'reference' mode too and refused the column)."""
    X = np.random.default_rng(0).standard_normal((30, 4))
    X[0, 1], X[1, 1] = -1e308, 1e308
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10,
                         preprocessing="reference", random_state=0).fit(X, X[:, 0])
    assert np.isfinite(model.predict(X)).all() and not hasattr(model, "x_gain_")


@pytest.mark.parametrize("cls", [BLSRegressor, BLSClassifier])
@pytest.mark.parametrize("change", [{"preprocessing": "reference"}, {"reg": 1.0},
                                    {"shrink": 0.3}, {"direct_links": True}])
@pytest.mark.parametrize("increment", ["partial_fit", "add_rows", "add_enhancement_nodes",
                                       "remove_rows"])
def test_increment_after_set_params_is_refused(cls, change, increment):
    """An increment after set_params would mix two models (before: R² 0.63 against 0.92 after
    a preprocessing change; after a reg change beta fitted neither penalty); it is refused
    naming the parameter, with the model unchanged, as OS-ELM refuses."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((80, 4))
    y = (X[:, 0] > 0).astype(int) if cls is BLSClassifier else X[:, 0] - X[:, 1]
    model = cls(n_windows=2, nodes_per_window=3, n_enhancement=10, reg=1e-3,
                random_state=0).fit(X[:60], y[:60])
    beta = model.beta_.copy()
    model.set_params(**change)
    args = {"partial_fit": (X[60:], y[60:]), "add_rows": (X[60:], y[60:]),
            "add_enhancement_nodes": (5,), "remove_rows": ([0, 1],)}[increment]
    with pytest.raises(ValueError, match=f"{next(iter(change))} changed .* since fit"):
        getattr(model, increment)(*args)
    np.testing.assert_array_equal(model.beta_, beta)
