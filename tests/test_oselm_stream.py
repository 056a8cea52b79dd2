"""OS-ELM and FOS-ELM on changing streams: forget, window, forgetting_factor, classes='grow'.

The reference is always the batch ridge fit (same W, b, alpha) on the rows the model should
hold, compared after EVERY chunk, over random chunkings.
"""
import pickle

import numpy as np
import pytest
from _helpers import CHUNKS
from sklearn.datasets import make_regression

from fastelm import (ELMRegressor, FOSELMClassifier, FOSELMRegressor, OSELMClassifier,
                     OSELMRegressor)
from fastelm._ridge import ridge_fit


def _stream(n=600, d=5, seed=0, n_classes=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if n_classes:
        return X, np.digitize(X[:, 0] + 0.3 * X[:, 1], np.linspace(-1, 1, n_classes - 1))
    return X, np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2]


def _cuts(n, largest, seed):
    rng, cuts, start = np.random.default_rng(seed), [], 0
    while start < n:
        stop = min(n, start + int(rng.integers(1, largest + 1)))
        cuts.append((start, stop))
        start = stop
    return cuts


def _targets(model, y):
    if hasattr(model, "classes_"):
        return (np.asarray(y)[:, None] == model.classes_).astype(float)
    return np.asarray(y, dtype=float).reshape(len(y), -1)


def _assert_batch(model, X, y, weights=None, rtol=1e-8):
    """The model's readout equals the ridge fit of (X, y) (rows weighted) on its hidden layer."""
    H, T = model._hidden(X), _targets(model, y)
    if weights is not None:
        H, T = H * np.sqrt(weights)[:, None], T * np.sqrt(weights)[:, None]
    expected = ridge_fit(H, T, model.alpha)
    error = np.linalg.norm(model.rls_.beta - expected) / np.linalg.norm(expected)
    assert error <= rtol, error


def _learn(model, X, y, first, **kw):
    if first and hasattr(model, "predict_proba"):
        kw.setdefault("classes", np.unique(y) if "classes" not in kw else kw["classes"])
    return model.partial_fit(X, y, **kw)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("make", [
    lambda: OSELMRegressor(n_hidden=40, alpha=1e-2, window=25, random_state=0),  # window < L
    lambda: OSELMRegressor(n_hidden=40, alpha=1e-3, window=150, random_state=0),
    lambda: OSELMClassifier(n_hidden=60, alpha=1e-2, window=45, random_state=0),
    lambda: OSELMClassifier(n_hidden=30, alpha=1e-2, window=20, direct_links=True,
                            random_state=0),  # window < d + L
])
def test_window_equals_batch_fit_on_the_last_rows_after_every_chunk(make, seed):
    model = make()
    classifier = hasattr(model, "predict_proba")
    X, y = _stream(seed=seed, n_classes=3 if classifier else None)
    classes = np.unique(y)
    for i, (start, stop) in enumerate(_cuts(len(y), 30, seed)):
        if i == 0 and classifier:
            model.partial_fit(X[start:stop], y[start:stop], classes=classes)
        else:
            model.partial_fit(X[start:stop], y[start:stop])
        first = max(0, stop - model.window)
        assert len(model.window_X_) == stop - first
        _assert_batch(model, X[first:stop], y[first:stop])
    assert "woodbury" in model.rls_.forms or model.window < model.n_hidden


@pytest.mark.parametrize("direct_links", [False, True])
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("cls", [OSELMRegressor, OSELMClassifier])
def test_forget_equals_batch_fit_on_the_remaining_rows_after_every_removal(cls, seed,
                                                                           direct_links):
    X, y = _stream(seed=seed, n_classes=3 if cls is OSELMClassifier else None)
    model = cls(n_hidden=50, alpha=1e-3, random_state=1, direct_links=direct_links)
    for i, (start, stop) in enumerate(_cuts(500, 60, seed)):
        _learn(model, X[start:stop], y[start:stop], i == 0)
        _assert_batch(model, X[:stop], y[:stop])
    held = np.ones(500, bool)
    order = np.random.default_rng(seed).permutation(500)[:420]  # delete rows in random order
    for part in np.array_split(order, 12):
        model.forget(X[part], y[part])
        held[part] = False
        _assert_batch(model, X[:500][held], y[:500][held])
    model.partial_fit(X[500:], y[500:])  # and learning goes on from there
    keep = np.r_[np.flatnonzero(held), np.arange(500, 600)]
    _assert_batch(model, X[keep], y[keep])


@pytest.mark.parametrize("factors", [(0.9, 1.0), (1.0, 0.95, 1.0), (0.99, 1.0)])
def test_forget_after_forgetting_factor_changed_is_refused(factors):
    """forgetting_factor may change between chunks: the model stays the ridge fit of every
    row weighted by the λ in force since it was learned (the refit oracle). Once a row was
    learned with λ < 1, forget cannot know the removed rows' decayed weights: before, after
    λ was set back to 1, it removed them at full weight (β off the oracle, or at λ = 0.99 a
    "numerically singular" error); now it refuses and the model still equals the oracle."""
    X, y = _stream(n=600, seed=8)
    model = OSELMRegressor(n_hidden=30, alpha=1e-2, random_state=0)
    weights = np.zeros(0)
    for i, (lam, part) in enumerate(zip(factors, np.array_split(np.arange(600), len(factors)))):
        model.set_params(forgetting_factor=lam)
        _learn(model, X[part], y[part], i == 0)
        weights = np.r_[weights * lam ** len(part), lam ** np.arange(len(part) - 1, -1, -1.0)]
        _assert_batch(model, X[:part[-1] + 1], y[:part[-1] + 1], weights=weights)
    with pytest.raises(ValueError, match="forgetting_factor < 1"):
        model.forget(X[:50], y[:50])
    _assert_batch(model, X, y, weights=weights)


def test_plain_oselm_equals_batch_after_every_chunk_in_both_forms():
    # Woodbury steps (small chunks once L rows are in) and information steps interleaved
    X, y = _stream(n=1500, seed=4)
    model = OSELMRegressor(n_hidden=80, alpha=1e-3, random_state=2)
    sizes = [100, 3, 1, 200, 5, 2, 7, 400, 1, 1, 30, 250, 4]
    start = 0
    for size in sizes:
        model.partial_fit(X[start:start + size], y[start:start + size])
        start += size
        _assert_batch(model, X[:start], y[:start])
    assert {"woodbury", "information"} <= set(model.rls_.forms)


@pytest.mark.parametrize("direct_links", [False, True])
@pytest.mark.parametrize("lam", [0.999, 0.95])
def test_forgetting_factor_equals_weighted_batch_fit_for_any_chunking(lam, direct_links):
    X, y = _stream(seed=5, n_classes=2)
    for seed in range(2):
        model = OSELMClassifier(n_hidden=30, alpha=1e-2, forgetting_factor=lam, random_state=3,
                                direct_links=direct_links)
        for i, (start, stop) in enumerate(_cuts(600, 50, seed)):
            _learn(model, X[start:stop], y[start:stop], i == 0)
            _assert_batch(model, X[:stop], y[:stop], weights=lam ** np.arange(stop - 1, -1, -1))


def test_forgetting_factor_one_is_plain_oselm_bitwise():
    X, y = _stream(n=900, seed=6)
    plain = OSELMRegressor(n_hidden=60, random_state=4)
    one = OSELMRegressor(n_hidden=60, random_state=4, forgetting_factor=1)
    for start, stop in _cuts(900, 12, 6):
        plain.partial_fit(X[start:stop], y[start:stop])
        one.partial_fit(X[start:stop], y[start:stop])
        assert np.array_equal(plain.beta_, one.beta_)
    assert plain.rls_.forms == one.rls_.forms and "woodbury" in plain.rls_.forms


@pytest.mark.parametrize("window", [None, 120])
@pytest.mark.parametrize("cls", [OSELMClassifier, FOSELMClassifier])
def test_grown_classes_equal_having_them_from_the_start(cls, window):
    X, y = _stream(n=800, seed=7, n_classes=4)
    labels = np.array(["a", "b", "c", "d"])[y]
    order = np.argsort(np.where(labels == "d", 1, 0) + np.where(labels == "b", 0.5, 0),
                       kind="stable")  # 'b' rows after the first half, 'd' rows last
    X, labels = X[order], labels[order]
    kw = dict(n_hidden=50, alpha=1e-2, random_state=5, window=window)
    if cls is FOSELMClassifier:
        kw.update(delta=0.005, min_nodes=20)
    grown, full = cls(**kw), cls(**kw)
    for i, (start, stop) in enumerate(_cuts(800, 70, 7)):
        Xc, yc = X[start:stop], labels[start:stop]
        if i == 0:
            grown.partial_fit(Xc, yc, classes="grow")
            full.partial_fit(Xc, yc, classes=["a", "b", "c", "d"])
        else:
            grown.partial_fit(Xc, yc)
            full.partial_fit(Xc, yc)
        assert set(grown.classes_) == set(labels[:stop])
        columns = np.searchsorted(full.classes_, grown.classes_)
        # a class with no row in the window has a column of round-off only (exactly 0 in exact
        # arithmetic; 4e-13 to 1.7e-12 with OpenBLAS 0.3.31's SkylakeX kernels), which the two
        # paths round differently: the absolute tolerance is that of decision_function below
        np.testing.assert_allclose(grown.rls_.beta, full.rls_.beta[:, columns], rtol=1e-8,
                                   atol=1e-10)
        assert not full.rls_.beta[:, np.setdiff1d(range(4), columns)].any()
    assert list(grown.classes_) == ["a", "b", "c", "d"]
    np.testing.assert_allclose(grown.decision_function(X), full.decision_function(X),
                               rtol=1e-8, atol=1e-10)
    if window is None:  # (a window of only 'd' rows leaves the other scores at round-off)
        np.testing.assert_array_equal(grown.predict(X), full.predict(X))
    if cls is FOSELMClassifier:
        np.testing.assert_array_equal(grown.node_ids_, full.node_ids_)
        assert len(grown.node_ids_) < 50


@pytest.mark.parametrize("make", [
    lambda: OSELMClassifier(n_hidden=40, window=100, random_state=0),
    lambda: OSELMClassifier(n_hidden=40, forgetting_factor=0.99, random_state=0),
    lambda: OSELMClassifier(n_hidden=40, window=100, direct_links=True, random_state=0),
    lambda: FOSELMRegressor(n_hidden=40, window=150, delta=0.01, random_state=0),
])
def test_pickled_mid_stream_continues_identically(make):
    model = make()
    classifier = hasattr(model, "predict_proba")
    X, y = _stream(n=700, seed=8, n_classes=3 if classifier else None)
    if classifier:
        y = np.where(np.arange(700) < 300, np.minimum(y, 1), y)  # label 2 arrives later
    cuts = _cuts(700, 60, 8)
    copy = None
    for i, (start, stop) in enumerate(cuts):
        kw = {"classes": "grow"} if classifier and i == 0 else {}
        model.partial_fit(X[start:stop], y[start:stop], **kw)
        if copy is not None:
            copy.partial_fit(X[start:stop], y[start:stop])
            assert np.array_equal(copy.predict(X), model.predict(X))
            assert np.array_equal(copy.beta_, model.beta_)
        if i == 3:
            copy = pickle.loads(pickle.dumps(model))


def test_clear_errors():
    X, y = _stream(n=200, n_classes=3)
    with pytest.raises(ValueError, match="forgetting_factor"):
        OSELMClassifier(forgetting_factor=0).fit(X, y)
    with pytest.raises(ValueError, match="forgetting_factor"):
        OSELMClassifier(forgetting_factor=np.nan).fit(X, y)
    with pytest.raises(ValueError, match="window"):
        OSELMClassifier(window=0).fit(X, y)
    with pytest.raises(ValueError, match="cannot be combined"):
        OSELMClassifier(window=50, forgetting_factor=0.9).fit(X, y)
    with pytest.raises(ValueError, match="needs alpha > 0"):
        OSELMRegressor(n_hidden=30, alpha=0, window=20).fit(X, y)
    model = OSELMClassifier(n_hidden=20, window=50, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="forget is not available with window"):
        model.forget(X[:5], y[:5])
    with pytest.raises(ValueError, match="forgetting_factor"):
        OSELMClassifier(forgetting_factor=0.9).fit(X, y).forget(X[:5], y[:5])
    with pytest.raises(ValueError, match="singular at alpha=0"):
        OSELMRegressor(n_hidden=30, alpha=0).fit(X, y).forget(X[:180], y[:180])
    with pytest.raises(ValueError, match="not in classes_"):
        OSELMClassifier(n_hidden=20).fit(X, y).forget(X[:2], [0, 7])


def test_partial_fit_classes_checks():
    X, y = _stream(n=200, n_classes=3)
    model = OSELMClassifier(n_hidden=20, random_state=0)
    with pytest.raises(ValueError, match="classes must be passed"):
        model.partial_fit(X, y)
    for bad in ([0, 1, np.nan], [0, None, 2], [[0, 1], [2, 3]]):
        with pytest.raises(ValueError, match="without NaN or None"):
            OSELMClassifier().partial_fit(X, y, classes=bad)
    model.partial_fit(X[:100], y[:100], classes=[0, 1, 2])
    model.partial_fit(X[100:150], y[100:150], classes=[2, 1, 0])  # the same labels: fine
    with pytest.raises(ValueError, match="not the same as on last call"):
        model.partial_fit(X[150:], y[150:], classes=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="differs from the first"):
        model.partial_fit(X[150:], y[150:], classes="grow")
    with pytest.raises(ValueError, match="not in classes_"):  # default: unseen label refused
        model.partial_fit(X[150:152], [0, 5])
    grown = OSELMClassifier(n_hidden=20, random_state=0).partial_fit(X[:50], y[:50], "grow")
    with pytest.raises(ValueError, match="differs from the first"):
        grown.partial_fit(X[50:], y[50:], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="Input y contains NaN"):
        grown.partial_fit(X[50:52], [0.0, np.nan])


@pytest.mark.parametrize("name,value", [("activation", "relu"), ("n_hidden", 30),
                                        ("alpha", 1.0), ("dtype", "float32"), ("window", 10),
                                        ("direct_links", True)])
def test_parameters_fixed_by_the_first_partial_fit(name, value):
    X, y = _stream(n=100)
    model = OSELMRegressor(n_hidden=20, random_state=0).partial_fit(X[:50], y[:50])
    model.set_params(**{name: value})
    with pytest.raises(ValueError, match=f"{name} changed"):
        model.partial_fit(X[50:], y[50:])
    model.fit(X, y)  # fit starts afresh with the new value
    assert getattr(model, "_stream_fixed")[("n_hidden", "activation", "alpha", "dtype",
                                            "window", "direct_links").index(name)] == value


def test_parameters_revalidated_between_partial_fits():
    X, y = _stream(n=300)
    model = FOSELMRegressor(n_hidden=40, random_state=0).partial_fit(X[:100], y[:100])
    model.set_params(delta=np.nan)
    with pytest.raises(ValueError, match="delta"):
        model.partial_fit(X[100:200], y[100:200])
    model.set_params(delta=0.01, forgetting_factor=0.9)  # allowed to change mid-stream
    model.partial_fit(X[100:200], y[100:200])
    assert model.rls_.forgetting_factor == 0.9


def test_dask_input_refused_with_stream_options():
    da = pytest.importorskip("dask.array")
    X, y = _stream(n=100)
    with pytest.raises(ValueError, match="in-memory chunks"):
        OSELMRegressor(forgetting_factor=0.9).fit(da.from_array(X), da.from_array(y))


@pytest.mark.parametrize("n_enhancement", [60, 400])  # primal (rows > nodes) and dual
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bls_remove_rows_equals_training_on_the_remaining_rows(n_enhancement, dtype):
    from fastelm import BLSRegressor

    X, y = _stream(n=300, seed=9)
    bls = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=n_enhancement, reg=1e-2,
                       random_state=0, dtype=dtype).fit(X, y)
    held = np.ones(300, bool)
    for part in (np.arange(0, 300, 7), np.arange(1, 40)):  # positions among the rows held
        bls.remove_rows(part)
        held[np.flatnonzero(held)[part]] = False
        I = bls.broad_features(X[held]).astype(np.float64)
        if I.shape[0] >= I.shape[1]:
            K = I.T @ I + 1e-2 * np.eye(I.shape[1])
            expected = np.linalg.solve(K, I.T @ y[held])
        else:
            K = I @ I.T + 1e-2 * np.eye(I.shape[0])
            expected = I.T @ np.linalg.solve(K, y[held])
        error = np.linalg.norm(bls.beta_[:, 0] - expected) / np.linalg.norm(expected)
        # float64: round-off; float32: the a-priori bound eps·cond(K) of a float32 solve (the
        # float32 state after removals and a refit from the remaining rows' Gram differ by
        # about 2e-4 relative, which depends on the CPU's BLAS kernels; cond(K) ≈ 1e5 here)
        bound = 1e-8 if dtype == "float64" else np.finfo(np.float32).eps * np.linalg.cond(K)
        assert error <= bound, (error, bound)
    assert bls.feature_nodes_.shape[0] == held.sum()


def test_bls_remove_rows_refuses_a_singular_system_and_bad_rows():
    from fastelm import BLSClassifier

    X, y = _stream(n=100, seed=10, n_classes=2)
    X, y = np.vstack([X, X]), np.r_[y, y]  # rows 100..199 repeat rows 0..99
    bls = BLSClassifier(n_windows=2, nodes_per_window=5, n_enhancement=30, reg=0.0,
                        random_state=0).fit(X, y)
    beta = bls.beta_.copy()
    with pytest.raises(ValueError, match="singular at reg=0"):
        bls.remove_rows(np.r_[20:100, 120:200])  # 40 rows for 40 nodes, only 20 distinct
    np.testing.assert_array_equal(bls.beta_, beta)
    assert bls.feature_nodes_.shape[0] == 200
    with pytest.raises(ValueError, match="index the 200 rows"):
        bls.remove_rows([200])
    with pytest.raises(ValueError, match="every learned row"):
        bls.remove_rows(np.ones(200, bool))


def _logistic_rows(scores, T):
    """Independent numpy version of the documented weights and weighted targets (1 − p_j as
    the sum of the other classes' p, without cancellation when p_j is near 1)."""
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    others = np.stack([np.delete(p, j, axis=1).sum(axis=1) for j in range(p.shape[1])], 1)
    w = (p * others).sum(axis=1)
    return w, w[:, None] * scores + T - p


@pytest.mark.parametrize("n_classes", [2, 3, 5])
def test_logistic_rows_kernel_equals_the_softmax_formulas(n_classes):
    """The kernel (two classes: one exp of −|s1 − s0| per row) against the numpy softmax, with
    ties, scores far apart (p at 1e-300, 0 weight) and the targets of each class."""
    from fastelm._kernels.stream import logistic_rows

    rng = np.random.default_rng(3)
    S = rng.standard_normal((60, n_classes)) * 4
    S[:5] = 1.5  # ties
    S[5:10, 0] += 700.0  # one class far ahead
    S[10:15, -1] -= 690.0
    T = np.eye(n_classes)[rng.integers(0, n_classes, 60)]
    U, w = np.full_like(S, np.nan), np.full(60, np.nan)
    logistic_rows(S, T, U, w)
    expected_w, expected_U = _logistic_rows(S, T)
    np.testing.assert_allclose(w, expected_w, rtol=1e-13, atol=1e-15)
    if n_classes == 2:  # no cancellation in 1 − p: relative accuracy down to p ~ 1e-300
        np.testing.assert_allclose(w, expected_w, rtol=1e-13, atol=0)
    np.testing.assert_allclose(U, expected_U, rtol=1e-13, atol=1e-13 * np.abs(S).max())
    assert np.all(w[:5] == w[0]) and w[0] == pytest.approx(1 - 1 / n_classes, rel=1e-15)


@pytest.mark.parametrize("memory", [{}, {"forgetting_factor": 0.97}, {"window": 70}])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_logistic_loss_is_the_ridge_fit_of_the_weighted_rows_after_every_chunk(memory,
                                                                               n_classes):
    X, y = _stream(seed=7, n_classes=n_classes)
    model = OSELMClassifier(n_hidden=25, alpha=0.1, loss="logistic", random_state=0,
                            direct_links=True, **memory)
    lam, window = memory.get("forgetting_factor", 1.0), memory.get("window")
    H_rows, w_rows, U_rows = [], [], []
    for i, (start, stop) in enumerate(_cuts(len(y), 40, 7)):
        Xc, yc = X[start:stop], y[start:stop]
        if i:
            w, U = _logistic_rows(model._hidden(Xc) @ model.rls_.beta, _targets(model, yc))
        else:
            w, U = _logistic_rows(np.zeros((len(yc), n_classes)),
                                  (yc[:, None] == np.unique(y)).astype(float))
        _learn(model, Xc, yc, i == 0)
        H_rows.append(model._hidden(Xc))
        w_rows.append(w)
        U_rows.append(U)
        H, w, U = np.vstack(H_rows), np.concatenate(w_rows), np.vstack(U_rows)
        age = lam ** np.arange(stop - 1, -1, -1.0)
        if window:
            age[:max(0, stop - window)] = 0
        K = (H * (age * w)[:, None]).T @ H + model.alpha * np.eye(H.shape[1])
        expected = np.linalg.solve(K, (H * age[:, None]).T @ U)
        error = np.linalg.norm(model.rls_.beta - expected) / np.linalg.norm(expected)
        assert error <= 1e-8, (i, error)
    assert 0.5 < (model.predict(X) == y).mean()


def test_logistic_loss_with_two_classes_is_recursive_irls_of_ridge_logistic_regression():
    """One chunk after another, the decision s1 − s0 = a·(beta1 − beta0) is the IRLS step of
    ridge logistic regression with penalty alpha/2, each row's p from the scores before it was
    learned."""
    X, y = _stream(n=400, seed=8, n_classes=2)
    model = OSELMClassifier(n_hidden=15, alpha=0.4, loss="logistic", random_state=1)
    K, b = 0.2 * np.eye(15), np.zeros(15)
    for i, start in enumerate(range(0, 400, 50)):
        Xc, yc = X[start:start + 50], y[start:start + 50]
        Hc = model._hidden(Xc) if i else None
        f = Hc @ (model.rls_.beta[:, 1] - model.rls_.beta[:, 0]) if i else np.zeros(50)
        p = 1 / (1 + np.exp(-f))
        _learn(model, Xc, yc, i == 0)
        Hc = model._hidden(Xc)
        K += (Hc * (p * (1 - p))[:, None]).T @ Hc
        b += Hc.T @ (p * (1 - p) * f + yc - p)  # Σ w z, z = f + (y − p)/w
        decision = np.linalg.solve(K, b)
        got = model.rls_.beta[:, 1] - model.rls_.beta[:, 0]
        assert np.linalg.norm(got - decision) <= 1e-9 * np.linalg.norm(decision)


def test_logistic_loss_refusals_and_default():
    X, y = _stream(n=200, n_classes=3)
    assert OSELMClassifier().loss == "squared"
    model = OSELMClassifier(n_hidden=20, loss="logistic", random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="forget is not available with loss='logistic'"):
        model.forget(X[:5], y[:5])
    with pytest.raises(ValueError, match="classes='grow' is not available with loss"):
        OSELMClassifier(loss="logistic").partial_fit(X, y, classes="grow")
    with pytest.raises(ValueError, match="'loss' parameter"):
        OSELMClassifier(loss="hinge").fit(X, y)
    model.set_params(loss="squared")
    with pytest.raises(ValueError, match="loss changed"):
        model.partial_fit(X, y)


@pytest.mark.parametrize("cls", [OSELMRegressor, OSELMClassifier])
def test_window_keeps_copies_when_the_caller_refills_one_buffer(cls):
    """Streams are often read into one buffer refilled for each chunk: the window must keep
    copies of its rows, not the caller's array (the downdate would remove the wrong rows)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 3))
    y = X @ [1.0, 2.0, 3.0] + rng.standard_normal(300)
    if cls is OSELMClassifier:
        y = (y > 0).astype(int)
    kw = {"classes": [0, 1]} if cls is OSELMClassifier else {}
    reused, fresh = (cls(n_hidden=10, window=150, alpha=1.0, random_state=0) for _ in range(2))
    buffer, labels = np.empty((100, 3)), np.empty(100, dtype=y.dtype)
    for start in range(0, 300, 100):
        buffer[:], labels[:] = X[start:start + 100], y[start:start + 100]
        reused.partial_fit(buffer, labels, **kw)
        fresh.partial_fit(X[start:start + 100].copy(), y[start:start + 100].copy(), **kw)
    np.testing.assert_array_equal(reused.rls_.beta, fresh.rls_.beta)


def test_an_endless_stream_does_not_grow_the_record_of_update_forms(monkeypatch):
    """``rls_.forms`` keeps the last HISTORY_KEPT to 2·HISTORY_KEPT chunks' forms (a service
    learning a stream for months must not grow a list per chunk), through partial_fit and the
    compiled prequential loop alike; FOS-ELM's node histories too."""
    from fastelm import _recursive_ridge as _rls
    from fastelm.stream import prequential

    monkeypatch.setattr(_rls, "HISTORY_KEPT", 3)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((2000, 3))
    y = (X[:, 0] > 0).astype(int)
    model = OSELMClassifier(n_hidden=8, window=50, random_state=0)
    for start in range(0, 2000, 40):
        model.partial_fit(X[start:start + 40], y[start:start + 40], classes=[0, 1])
        assert len(model.rls_.forms) <= 6
    fused = OSELMClassifier(n_hidden=8, window=50, random_state=0)
    prequential(fused, X, y, chunk_size=40)
    assert 3 <= len(fused.rls_.forms) <= 6 and fused.rls_.n_seen == model.rls_.n_seen == 50
    np.testing.assert_allclose(fused.rls_.beta, model.rls_.beta, rtol=0,
                               atol=1e-10 * np.abs(model.rls_.beta).max())
    fos = FOSELMClassifier(n_hidden=30, delta=0.01, random_state=0)
    for start in range(0, 2000, 40):
        fos.partial_fit(X[start:start + 40], y[start:start + 40], classes=[0, 1])
    assert 3 <= len(fos.n_nodes_history_) <= 6 and 3 <= len(fos.pruned_history_) <= 6
    assert fos.n_nodes_history_[-1] == fos.n_nodes_ and len(fos.rls_.forms) <= 6


# ------------------------------------------------------------------ OS-ELM after every chunk
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).
# A Woodbury-step bug hidden when a later information-form chunk re-solves beta; the
# stream is compared with the batch fit after every chunk.


@pytest.mark.mutant
def test_oselm_equals_batch_elm_after_every_chunk():
    X, y = make_regression(n_samples=sum(CHUNKS), n_features=6, noise=0.5, random_state=0)
    y = y / y.std()
    online = OSELMRegressor(n_hidden=40, alpha=1e-2, random_state=0)
    start = 0
    for n in CHUNKS:
        online.partial_fit(X[start:start + n], y[start:start + n])
        start += n
        batch = ELMRegressor(n_hidden=40, alpha=1e-2, random_state=0).fit(X[:start], y[:start])
        np.testing.assert_allclose(online.predict(X), batch.predict(X), rtol=1e-8, atol=1e-9,
                                   err_msg=f"after {start} rows")


@pytest.mark.mutant
@pytest.mark.parametrize("n_classes", [3, 5])
def test_logistic_rows_of_a_class_ahead_by_more_than_exp_can_hold(n_classes):
    """Softmax from the largest score, wherever it is: a class 800 ahead (exp(800)
    overflows) gives p one-hot, weight 0 and u = t − p, never NaN (planted by cosmic-ray:
    the largest score's search ``>`` → ``==`` or ``!=``, started at column 1 or from 2)."""
    from fastelm._kernels.stream import logistic_rows

    S = 800.0 * np.eye(n_classes)  # row i: class i ahead
    T = np.eye(n_classes)[::-1]
    U, w = np.full_like(S, np.nan), np.full(n_classes, np.nan)
    logistic_rows(S, T, U, w)
    np.testing.assert_array_equal(w, 0.0)
    np.testing.assert_array_equal(U, T - np.eye(n_classes))
