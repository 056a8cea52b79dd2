"""Property-based tests (hypothesis) over every estimator and the data readers.

For random shapes, dtypes, scales (1e-300 ... 1e300), constant and duplicate columns and label
types, an estimator either refuses the input with a one-line ``ValueError``/``TypeError``, or
fits and predicts finite outputs of the right shape (classes among the labels seen). The
readers either read a file or refuse it with a ``DataFormatError``/``DataNotFoundError``.

The random call sequences (fit, partial_fit, add_rows, add_enhancement_nodes, set_params,
forget, remove_rows, pickle, predict) on OS-ELM, FOS-ELM and BLS are checked against a refit
oracle after every call. The default run keeps every test to a few examples (under a minute in
all); ``FASTELM_FUZZ_EXAMPLES=2000 python -m pytest tests/test_fuzz.py`` is the thorough run.
"""
import os
import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_classifier

hypothesis = pytest.importorskip("hypothesis")  # a test oracle: never skipped in CI
from hypothesis import HealthCheck, event, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from fastelm import (BLSClassifier, BLSRegressor, DEELMClassifier,  # noqa: E402
                     DEELMRegressor, ELMClassifier, ELMRegressor, FOSELMClassifier,
                     FOSELMRegressor, OSELMClassifier, OSELMRegressor, TriTrainingClassifier)
from fastelm import datasets  # noqa: E402

EXAMPLES = int(os.environ.get("FASTELM_FUZZ_EXAMPLES", "8"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

BLS = dict(n_windows=2, nodes_per_window=3, n_enhancement=12, random_state=0)
DE = dict(n_hidden=5, pop_size=6, n_generations=2, random_state=0)
ESTIMATORS = [
    ELMRegressor(n_hidden=8, random_state=0), ELMClassifier(n_hidden=8, random_state=0),
    OSELMRegressor(n_hidden=8, random_state=0), OSELMClassifier(n_hidden=8, random_state=0),
    FOSELMRegressor(n_hidden=12, random_state=0), FOSELMClassifier(n_hidden=12, random_state=0),
    BLSRegressor(**BLS), BLSClassifier(**BLS),
    DEELMRegressor(**DE), DEELMClassifier(**DE),
    TriTrainingClassifier(ELMClassifier(n_hidden=5), random_state=0),
]


@st.composite
def tables(draw):
    """(X, y_regression, y_classes): a random table with the pathologies users send."""
    n = draw(st.integers(1, 30))
    d = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**16))
    scale = 10.0 ** draw(st.sampled_from([-300, -150, -20, -3, 0, 3, 20, 150, 300]))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * scale
    if draw(st.booleans()):  # a constant column
        X = np.hstack([X, np.full((n, 1), draw(st.sampled_from([0.0, 1.7e9, -3.0, 1e10])))])
    if draw(st.booleans()):  # a duplicated column
        X = np.hstack([X, X[:, :1]])
    X = X.astype(draw(st.sampled_from([np.float64, np.float32, np.int64])), copy=False) \
        if np.all(np.abs(X) < 1e18) else X
    y = rng.standard_normal(n) * 10.0 ** draw(st.sampled_from([-10, 0, 10]))
    labels = draw(st.sampled_from([[0, 1], [1, 2, 3], ["a", "b"], [-1.5, 2.5], [True, False]]))
    classes = np.array(labels, dtype=object if isinstance(labels[0], str) else None)
    return X, y, classes[rng.integers(len(classes), size=n)]


def _one_line(exc):
    message = str(exc).strip()
    assert message and "\n" not in message, repr(message)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
@FUZZ
@given(data=tables())
def test_estimator_refuses_clearly_or_predicts_finite(estimator, data):
    X, y_reg, y_cls = data
    y = y_cls if is_classifier(estimator) else y_reg
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = clone(estimator).fit(X, y)
        except (ValueError, TypeError) as exc:
            _one_line(exc)
            event(f"refused: {type(exc).__name__}")
            return
        out = model.predict(X)
    event("fitted")
    assert out.shape[0] == len(X)
    if is_classifier(estimator):
        assert set(out.tolist()) <= set(y.tolist())
    else:
        assert np.all(np.isfinite(out)), (X.dtype, np.abs(X).max(), out)


# --- readers ---------------------------------------------------------------------------------

GOOD_ROW = "1 22.08 11.46 2 4 4 1.585 0 0 0 1 2 100 1213 0\n"


@FUZZ
@given(lines=st.lists(st.one_of(st.just(GOOD_ROW), st.text(max_size=80).map(lambda t: t + "\n")),
                      max_size=700),
       encoding=st.sampled_from(["ascii", "latin-1", "utf-16"]))
def test_reader_reads_or_refuses_damaged_text(tmp_path_factory, lines, encoding):
    folder = tmp_path_factory.mktemp("data")
    text = "".join(lines)
    try:
        (folder / "australian.dat").write_bytes(text.encode(encoding, errors="replace"))
    except UnicodeEncodeError:
        return
    try:
        bunch = datasets.load_australian(data_home=folder)
    except datasets.DataFormatError as exc:
        _one_line(exc)
        return
    assert bunch.data.shape[0] == 690 and np.all(np.isfinite(bunch.data))


@FUZZ
@given(payload=st.binary(max_size=64), compressed=st.booleans())
def test_idx_reader_reads_or_refuses_any_bytes(tmp_path_factory, payload, compressed):
    import gzip

    path = tmp_path_factory.mktemp("idx") / ("x-idx1-ubyte" + (".gz" if compressed else ""))
    path.write_bytes(gzip.compress(payload) if compressed else payload)
    try:
        array = datasets.read_idx(path)
    except datasets.DataFormatError as exc:
        _one_line(exc)
        return
    assert array.nbytes == len(payload) - 4 - 4 * array.ndim


# --- a constant column must not change a fit (issue 14, item 2) ------------------------------
# BLS scales its inputs itself (min-max), so any constant column must be harmless; ELMs leave
# scaling to the user (a raw 1e9 feature saturates their activations), so only a constant of
# the data's own size is tried there.

CASES = [pytest.param(e, -3.0, id=f"{type(e).__name__}--3")
         for e in ESTIMATORS if not is_classifier(e)]
CASES += [pytest.param(BLSRegressor(**BLS, preprocessing=p), c, id=f"BLSRegressor-{p}-{c:g}")
          for c in (1.7e9, 1e10, 1e154, 1e300) for p in ("minmax",)]


@pytest.mark.parametrize("estimator, constant", CASES)
def test_a_constant_column_changes_nothing(estimator, constant):
    """Scores with and without one constant column: the same up to the random draws (a
    refusal with a clear message is also acceptable)."""
    from sklearn.datasets import make_regression

    X, y = make_regression(n_samples=300, n_features=5, noise=1.0, random_state=0)
    if "n_hidden" in estimator.get_params():
        estimator = clone(estimator).set_params(n_hidden=40)
    base = clone(estimator).fit(X[:200], y[:200]).score(X[200:], y[200:])
    Xc = np.hstack([X, np.full((300, 1), constant)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            score = clone(estimator).fit(Xc[:200], y[:200]).score(Xc[200:], y[200:])
        except (ValueError, TypeError) as exc:
            _one_line(exc)
            return
    assert score > base - 0.05, (base, score)


def test_bls_minmax_maps_a_constant_column_to_zero():
    """A constant training column scales to 0 (gain 0), whatever its value, so a test value of
    it cannot leak into H1 either; the other columns keep their [0, 1] scaling."""
    from fastelm.bls import minmax_parameters

    X = np.array([[1.0, 1.7e9, -2.0], [3.0, 1.7e9, 2.0], [2.0, 1.7e9, 0.0]])
    offset, gain = minmax_parameters(X, 0.0, 1.0)
    np.testing.assert_array_equal(gain, [0.5, 0.0, 0.25])
    scaled = (X - offset) * gain
    np.testing.assert_array_equal(scaled[:, 1], 0.0)
    np.testing.assert_allclose(scaled[:, [0, 2]], [[0, 0], [1, 1], [0.5, 0.5]])


def test_bls_constant_column_keeps_breast_cancer_accuracy():
    """Issue 14 item 2: one constant column of 1.7e9 took BLSClassifier from 0.83 to the
    majority class (0.62); now the fit is the one without the column up to the random draw."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    majority = max(np.mean(y[400:]), 1 - np.mean(y[400:]))
    for constant in (1.7e9, 1e10, 1e200):
        Xc = np.hstack([X, np.full((len(X), 1), constant)])
        model = BLSClassifier(random_state=0).fit(Xc[:400], y[:400])
        assert model.score(Xc[400:], y[400:]) > majority + 0.15, constant


@pytest.mark.parametrize("scale", [1e154, 1e300, 1e-160, 1e-300])
def test_bls_reference_zscore_is_scale_free(scale):
    """Per-row z-scoring does not depend on the scale of a row: values of 1e154 and up used to
    overflow the sum of squares into NaN predictions."""
    from fastelm._kernels.bls import zscore_rows

    X = np.random.default_rng(0).standard_normal((20, 6))
    X[3] = 5.0  # a constant row is only centred
    np.testing.assert_allclose(zscore_rows(X * scale), zscore_rows(X), rtol=1e-12, atol=1e-12)
    y = (X[:, 0] > 0).astype(int)
    model = BLSClassifier(preprocessing="reference", **BLS).fit(X * scale, y)
    assert np.isfinite(model.predict_proba(X * scale)).all()
    np.testing.assert_array_equal(model.predict(X * scale),
                                  clone(model).fit(X, y).predict(X))


def test_bls_refuses_a_column_too_wide_to_scale():
    X = np.random.default_rng(0).standard_normal((10, 3))
    X[0, 1], X[1, 1] = -1e308, 1e308
    with pytest.raises(ValueError, match="column 1 of the inputs spans") as info:
        BLSRegressor(**BLS).fit(X, X[:, 0])
    _one_line(info.value)


# --- messages that say what is wrong (issue 14, items 5, 10, 12) ------------------------------

def test_categorical_dataframe_column_is_named():
    pd = pytest.importorskip("pandas")
    X = pd.DataFrame({"age": np.arange(20.0), "sex": ["m", "f"] * 10,
                      "site": pd.Categorical(["a", "b"] * 10),
                      "count": pd.array(range(20), dtype="Int64")})
    y = np.arange(20) % 2
    for estimator in ESTIMATORS:
        with pytest.raises(ValueError, match=r"column\(s\) \['sex', 'site'\] of X are not "
                                             r"numeric.*one-hot") as info:
            clone(estimator).fit(X, y)
        _one_line(info.value)
    model = ELMClassifier(n_hidden=5, random_state=0).fit(X[["age", "count"]], y)
    assert list(model.feature_names_in_) == ["age", "count"]


def test_one_class_message_shows_the_label_plainly():
    X = np.random.default_rng(0).standard_normal((10, 2))
    with pytest.raises(ValueError, match=r"got only one class: 0\.0$"):
        ELMClassifier(n_hidden=3).fit(X, np.zeros(10))
    with pytest.raises(ValueError, match=r"got only one class: 'a'$"):
        ELMClassifier(n_hidden=3).fit(X, np.array(["a"] * 10))


@pytest.mark.parametrize("estimator", [
    TriTrainingClassifier(ELMClassifier(n_hidden=5), random_state=0),
    pytest.param("DEELMSSC", id="DEELMSSC")])
def test_nan_as_unlabelled_marker_names_the_marker(estimator):
    if estimator == "DEELMSSC":
        from fastelm.deelm_ssc import DEELMSSC
        estimator = DEELMSSC(DEELMClassifier(**DE), strategy="rand/1")
    X = np.random.default_rng(0).standard_normal((30, 2))
    y = (X[:, 0] > 0).astype(float)
    y[::3] = np.nan
    with pytest.raises(ValueError, match=r"y contains NaN; unlabelled rows are marked by "
                                         r"unlabeled=-1"):
        clone(estimator).fit(X, y)


def test_fos_elm_node_count_before_fit_is_not_fitted():
    from sklearn.exceptions import NotFittedError

    for estimator in (FOSELMClassifier(), FOSELMRegressor(), BLSClassifier()):
        with pytest.raises(NotFittedError):
            estimator.n_nodes_


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_negative_random_state_is_named(estimator):
    X = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match=r"'random_state' parameter of \w+ must be .*"
                                         r"Got -1 instead") as info:
        clone(estimator).set_params(random_state=-1).fit(X, np.arange(20) % 2)
    _one_line(info.value)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_inputs_in_the_other_byte_order_give_the_same_model(estimator):
    """Arrays read from big-endian files (some HDF5, FITS, MATLAB files) are taken as the
    same numbers: equal predictions, no error from a compiled kernel."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(np.int64) if is_classifier(estimator) else X @ [1.0, 2.0, 3.0]
    swapped = X.astype(X.dtype.newbyteorder()), y.astype(y.dtype.newbyteorder())
    expected = clone(estimator).fit(X, y).predict(X)
    np.testing.assert_array_equal(clone(estimator).fit(*swapped).predict(swapped[0]), expected)


def test_tri_training_refuses_a_regressor_base_at_fit():
    X = np.random.default_rng(0).standard_normal((20, 2))
    with pytest.raises(ValueError, match="must be a classifier"):
        TriTrainingClassifier(ELMRegressor()).fit(X, np.arange(20) % 2)


# --- sizes refused before allocating (issue 14, item 11) ---------------------------------------

@pytest.mark.parametrize("estimator, named", [
    (ELMRegressor(n_hidden=10**9), "n_hidden=1000000000"),
    (OSELMRegressor(n_hidden=400_000), "n_hidden=400000"),
    (FOSELMClassifier(n_hidden=400_000), "n_hidden=400000"),
    (BLSClassifier(n_windows=10**4, nodes_per_window=1000), "n_windows·nodes_per_window="),
    (DEELMClassifier(n_hidden=10, pop_size=10**7), "pop_size=10000000"),
], ids=lambda p: type(p).__name__ if not isinstance(p, str) else "")
def test_fit_too_large_for_memory_is_refused_before_allocating(estimator, named, monkeypatch):
    """The estimate (e.g. ELM: (d + 1)·L weights, OS-ELM: two L×L matrices) is checked against
    the available memory before any array is drawn; pretend 1 GiB is available so that the
    test allocates nothing big whatever the machine."""
    from fastelm import _validation

    monkeypatch.setattr(_validation, "available_memory", lambda: 2**30)
    X = np.random.default_rng(0).standard_normal((40, 4))
    with pytest.raises(ValueError, match=f"{named}.* needs about [0-9.]+ GiB of memory, more "
                                         r"than the 1\.0 GiB available; lower") as info:
        clone(estimator).fit(X, np.arange(40) % 2)
    _one_line(info.value)


def test_memory_estimate_of_an_elm():
    """ELM on N = 40 rows, d = 4 features, L = 10**9: W and b in float64 ((4 + 1)·L·8 bytes,
    37.3 GiB) and a 40×40 dual Gram system; OS-ELM's recursive ridge is L×L whatever N."""
    from fastelm._base import fit_bytes

    assert fit_bytes(10**9, 4, np.float64, 40) == 5 * 8 * 10**9 + 16 * 40**2
    assert fit_bytes(40_000, 4, np.float32, None) == 5 * 4 * 40_000 + 16 * 40_000**2
    ELMRegressor(n_hidden=50, random_state=0).fit(np.eye(4), np.arange(4.0))  # small: no error


# ------------------------------------------------------------------ sequences of calls
# A random sequence of calls on an incremental estimator against a refit oracle (issue 25):
# after every call the model predicts what a model refitted from scratch on the rows it holds
# predicts (same fitted parameters, same layer), a set_params moves no prediction, a pickle
# round trip changes no bit, and an incremental call after a parameter changed since fit is
# refused in one line with the model unchanged.

_POOL = np.random.default_rng(5).standard_normal((300, 3))
_POOL_Y = np.sin(2 * _POOL).sum(axis=1) + 0.3 * _POOL[:, 0]
_PROBE = np.random.default_rng(6).standard_normal((15, 3))
_SEQUENCE_RTOL = 1e-6  # of the predictions' scale: Woodbury up/downdates against one solve


def _oselm_oracle(model, fitted, rows):
    return clone(model).set_params(**fitted).fit(_POOL[rows], _POOL_Y[rows]).predict(_PROBE)


def _bls_oracle(model, fitted, rows):
    """ridge on the broad features of the rows held, at the fitted penalty (the windows,
    scalings and nodes are the model's own: docs/algorithms.md §5)."""
    F = model.broad_features(_POOL[rows])
    beta = np.linalg.solve(F.T @ F + fitted["reg"] * np.eye(F.shape[1]), F.T @ _POOL_Y[rows])
    return model.broad_features(_PROBE) @ beta


_INCREMENTAL = {
    "OSELMRegressor": dict(
        make=lambda: OSELMRegressor(n_hidden=8, alpha=1e-2, random_state=0),
        oracle=_oselm_oracle, add=("partial_fit",), remove="forget",
        changes=[("alpha", 0.1), ("activation", "sigmoid"), ("direct_links", True),
                 ("n_hidden", 6), ("random_state", 7), ("weight_scale", 1.0)]),
    "FOSELMRegressor": dict(  # delta=0 prunes no node: the refit is one batch solve
        make=lambda: FOSELMRegressor(n_hidden=8, alpha=1e-2, delta=0.0, min_nodes=2,
                                     efast_samples=70, efast_interference=2, random_state=0),
        oracle=_oselm_oracle, add=("partial_fit",), remove="forget",
        changes=[("alpha", 0.1), ("activation", "sigmoid"), ("n_hidden", 6),
                 ("random_state", 7), ("delta", 0.0)]),
    "BLSRegressor": dict(
        make=lambda: BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=6, reg=1e-2,
                                  random_state=0),
        oracle=_bls_oracle, add=("partial_fit", "add_rows"), remove="remove_rows",
        changes=[("reg", 0.1), ("preprocessing", "reference"), ("direct_links", True),
                 ("shrink", 0.5), ("n_enhancement", 4), ("random_state", 3)]),
}
_CALLS = ["fit", "add", "add", "remove", "set_params", "pickle", "nodes"]


def _apply(model, spec, call, rows, seed, state):
    """One call on ``model``; ``state`` holds the chunks of rows learned (in order), the
    parameters at the last fit and those set since. Returns the model (a pickle round trip
    gives a new one)."""
    import pickle

    fitted = state["fitted"]
    changed = fitted is not None and any(  # a new random_state keeps the fitted layer
        state["params"][k] != fitted[k] for k in fitted if k != "random_state")
    if call == "set_params":
        name, value = spec["changes"][seed % len(spec["changes"])]
        before = model.predict(_PROBE) if fitted is not None else None
        model.set_params(**{name: value})
        state["params"] = dict(state["params"], **{name: value})
        if before is not None:
            assert np.array_equal(model.predict(_PROBE), before), f"set_params({name}) moved"
        return model
    if call == "pickle":
        if fitted is None:
            return model
        before = model.predict(_PROBE)
        model = pickle.loads(pickle.dumps(model))
        assert np.array_equal(model.predict(_PROBE), before)
        return model
    if call == "fit" or (fitted is None and call == "add" and seed % 2 == 0):
        method = "fit" if call == "fit" else "partial_fit"  # a first partial_fit fits
        getattr(model, method)(_POOL[rows], _POOL_Y[rows])
        state.update(chunks=[rows], fitted=dict(state["params"]))
        return model
    if fitted is None:  # an increment of an unfitted model: refused
        return model
    if call == "nodes" and not hasattr(model, "add_enhancement_nodes"):
        return model
    if call == "remove" and len(state["chunks"]) < 2:
        return model
    snapshot = model.predict(_PROBE)
    try:
        if call == "add":
            getattr(model, spec["add"][seed % len(spec["add"])])(_POOL[rows], _POOL_Y[rows])
        elif call == "nodes":
            model.add_enhancement_nodes(1 + seed % 4)
        else:
            j = seed % len(state["chunks"])
            if spec["remove"] == "forget":
                chunk = state["chunks"][j]
                model.forget(_POOL[chunk], _POOL_Y[chunk])
            else:
                start = sum(len(c) for c in state["chunks"][:j])
                model.remove_rows(np.arange(start, start + len(state["chunks"][j])))
    except ValueError as error:
        assert changed, f"{call} refused although no parameter changed: {error}"
        assert "changed" in str(error) and "\n" not in str(error)
        assert np.array_equal(model.predict(_PROBE), snapshot), "a refused call moved it"
        return model
    assert not changed, f"{call} accepted after {state['params']} != {fitted} (fit's)"
    if call == "add":
        state["chunks"].append(rows)
    elif call == "remove":
        state["chunks"].pop(j)
    return model


@pytest.mark.parametrize("name", list(_INCREMENTAL))
@FUZZ
@given(calls=st.lists(st.tuples(st.sampled_from(_CALLS), st.integers(4, 40),
                                st.integers(0, 2**16)), min_size=1, max_size=8))
def test_random_call_sequences_equal_a_refit(name, calls):
    spec = _INCREMENTAL[name]
    model = spec["make"]()
    state = {"chunks": [], "fitted": None, "params": model.get_params()}
    for call, n_rows, seed in calls:
        rows = np.random.default_rng(seed).choice(len(_POOL), n_rows, replace=False)
        event(call)
        model = _apply(model, spec, call, rows, seed, state)
        if state["fitted"] is None:
            continue
        held = np.concatenate(state["chunks"])
        expected = spec["oracle"](model, state["fitted"], held)
        np.testing.assert_allclose(model.predict(_PROBE), expected, rtol=_SEQUENCE_RTOL,
                                   atol=_SEQUENCE_RTOL * max(np.abs(expected).max(), 1.0))
