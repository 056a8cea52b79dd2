"""ONNX export: onnxruntime's predictions equal fastelm's for every estimator and dtype."""
import re

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from fastelm import (BLSClassifier, BLSRegressor, ELMClassifier, ELMRegressor, FOSELMClassifier,
                     FOSELMRegressor, OSELMClassifier, OSELMRegressor)
from fastelm._hidden import ACTIVATIONS

ort = pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
from fastelm.onnx import _ONNX_ACTIVATION, to_onnx  # noqa: E402

# the scores' scale times these bounds the difference (float32 1e-5, float64 1e-12)
TOLERANCE = {np.float32: 1e-5, np.float64: 1e-12}


def _data(classes, n=300, d=6, m=1, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if classes:
        y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
        return X, y if classes == 3 else (y > 0).astype(int)
    y = np.sin(X[:, :m] * 2).sum(axis=1) if m == 1 else np.sin(X[:, :m] * 2)
    return X, y


def _online(model, X, y, classifier):
    for i, chunk in enumerate(np.array_split(np.arange(len(X)), 4)):
        kw = {"classes": np.unique(y)} if classifier and i == 0 else {}
        model.partial_fit(X[chunk], y[chunk], **kw)
    return model


ESTIMATORS = {
    "ELMRegressor": lambda dt: ELMRegressor(n_hidden=40, random_state=0, dtype=dt),
    "ELMClassifier": lambda dt: ELMClassifier(n_hidden=40, random_state=0, dtype=dt),
    "OSELMRegressor": lambda dt: OSELMRegressor(n_hidden=40, random_state=0, dtype=dt),
    "OSELMClassifier": lambda dt: OSELMClassifier(n_hidden=40, random_state=0, dtype=dt),
    "FOSELMRegressor": lambda dt: FOSELMRegressor(n_hidden=60, delta=0.01, random_state=0,
                                                  dtype=dt),
    "FOSELMClassifier": lambda dt: FOSELMClassifier(n_hidden=60, delta=0.01, random_state=0,
                                                    dtype=dt),
    "BLSRegressor": lambda dt: BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=50,
                                            reg=1e-3, random_state=0, dtype=dt),
    "BLSClassifier": lambda dt: BLSClassifier(n_windows=3, nodes_per_window=4,
                                              n_enhancement=50, reg=1e-3, random_state=0,
                                              dtype=dt),
    "BLSClassifier-direct_links": lambda dt: BLSClassifier(
        n_windows=3, nodes_per_window=4, n_enhancement=50, reg=1e-3, direct_links=True,
        random_state=0, dtype=dt),
}


def _run(onnx_model, X):
    session = ort.InferenceSession(onnx_model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    return session.run(None, {"X": X})


def _assert_close(got, expected, dtype):
    expected = np.asarray(expected, dtype=np.float64)
    assert got.shape == expected.shape and got.dtype == dtype
    scale = max(np.abs(expected).max(), 1.0)
    assert np.abs(got - expected).max() <= TOLERANCE[dtype] * scale


def _check_round_trip(model, X, dtype, classifier):
    Xd = X.astype(dtype)
    outputs = _run(to_onnx(model, Xd[:2], options={"decision_function": True}
                           if classifier else None), Xd)
    if not classifier:
        _assert_close(outputs[0], model.predict(Xd), dtype)
        return
    label, proba, scores = outputs
    np.testing.assert_array_equal(label, model.predict(Xd))
    _assert_close(proba, model.predict_proba(Xd), dtype)
    _assert_close(scores, model._scores(Xd), dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_round_trip_equals_fastelm(name, dtype):
    classifier = "Classifier" in name
    X, y = _data(3 if classifier else 0)
    model = ESTIMATORS[name](dtype.__name__)
    if name.startswith(("OSELM", "FOSELM")):
        _online(model, X, y, classifier)
    else:
        model.fit(X, y)
    if name.startswith("FOSELM"):
        assert model.n_nodes_ < model.n_hidden  # the export sees the pruned layer
    _check_round_trip(model, X, dtype, classifier)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", [ELMClassifier, OSELMClassifier, OSELMRegressor])
def test_direct_links(cls, dtype):
    classifier = cls is not OSELMRegressor
    X, y = _data(3 if classifier else 0)
    model = cls(n_hidden=20, direct_links=True, random_state=0, dtype=dtype.__name__)
    if cls is ELMClassifier:
        model.fit(X, y)
    else:  # with a window too: the export reads the readout of the rows held
        model.set_params(window=120)
        _online(model, X, y, classifier)
    assert model.beta_.shape[0] == 26
    _check_round_trip(model, X, dtype, classifier)


@pytest.mark.parametrize("activation", sorted(ACTIVATIONS))
def test_every_activation(activation):
    X, y = _data(0)
    model = ELMRegressor(n_hidden=30, activation=activation, random_state=1).fit(X, y)
    _check_round_trip(model, X, np.float64, False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bls_reference_mode_grown_nodes_multi_output_and_string_labels(dtype):
    X, y = _data(0, m=2)
    reg = BLSRegressor(n_windows=2, nodes_per_window=5, n_enhancement=30, reg=1e-3,
                       preprocessing="reference", random_state=2, dtype=dtype.__name__)
    reg.fit(X, y)
    reg.add_enhancement_nodes(20)  # a second enhancement group with its own shrink
    _check_round_trip(reg, X, dtype, False)
    X, y = _data(3)
    names = np.array(["cat", "dog", "emu"])[y]
    clf = BLSClassifier(n_windows=2, nodes_per_window=5, n_enhancement=30, reg=1e-3,
                        preprocessing="reference", random_state=2, dtype=dtype.__name__)
    _check_round_trip(clf.fit(X, names), X, dtype, True)


def test_binary_float_labels_and_a_float64_input_to_a_float32_model():
    X, y = _data(2)
    clf = ELMClassifier(n_hidden=20, random_state=3, dtype="float32").fit(X, y + 1.0)
    label, proba = _run(to_onnx(clf, X[:1]), X)  # float64 input, cast inside the graph
    np.testing.assert_array_equal(label, clf.predict(X))
    _assert_close(proba, clf.predict_proba(X), np.float32)


def test_clear_errors():
    X, y = _data(2)
    with pytest.raises(NotFittedError, match="not fitted yet"):
        to_onnx(ELMClassifier(), X)
    with pytest.raises(TypeError, match="LogisticRegression"):
        from sklearn.linear_model import LogisticRegression
        to_onnx(LogisticRegression().fit(X, y), X)
    clf = ELMClassifier(n_hidden=10, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="zipmap"):
        to_onnx(clf, X, options={"zipmap": True})
    with pytest.raises(ValueError, match="nocl"):
        to_onnx(clf, X, options={"nocl": True})
    with pytest.raises(ValueError, match="classifiers only"):
        to_onnx(ELMRegressor(n_hidden=5).fit(X, y), X, options={"decision_function": True})
    with pytest.raises(ValueError, match="target_opset"):
        to_onnx(clf, X, target_opset=9)
    with pytest.raises(ValueError, match=r"shape \(n, 6\)"):
        to_onnx(clf, X[:, :3])
    with pytest.raises(TypeError, match="float32 or float64"):
        to_onnx(clf, X.astype(int))
    clf.set_params(activation="swish")
    with pytest.raises(ValueError, match="activation"):
        to_onnx(clf, X)


def test_activation_table_covers_every_activation():
    assert set(_ONNX_ACTIVATION) == set(ACTIVATIONS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_skl2onnx_converters_write_the_same_graph(name, dtype):
    skl2onnx = pytest.importorskip("skl2onnx")
    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    register_skl2onnx()  # twice: harmless
    classifier = "Classifier" in name
    X, y = _data(3 if classifier else 0)
    model = ESTIMATORS[name](dtype.__name__)
    _online(model, X, y, classifier) if name.startswith(("OSELM", "FOSELM")) else model.fit(X, y)
    Xd = X.astype(dtype)
    options = {id(model): {"zipmap": False}} if classifier else None
    session = ort.InferenceSession(skl2onnx.to_onnx(model, Xd[:1], options=options)
                                   .SerializeToString(), providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: Xd})
    if classifier:
        np.testing.assert_array_equal(outputs[0], model.predict(Xd))
        _assert_close(outputs[1], model.predict_proba(Xd), dtype)
    else:
        _assert_close(outputs[0], model.predict(Xd), dtype)


def test_skl2onnx_pipeline_with_zipmap():
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _data(3)
    labels = np.array(["low", "mid", "high"])[y]
    pipe = make_pipeline(StandardScaler(), OSELMClassifier(n_hidden=30, direct_links=True,
                                                           window=200, random_state=0,
                                                           dtype="float32"))
    pipe.fit(X, labels)  # fit = one chunk; window keeps its last 200 rows
    session = ort.InferenceSession(skl2onnx.to_onnx(pipe, X[:1].astype(np.float32))
                                   .SerializeToString(), providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {session.get_inputs()[0].name: X.astype(np.float32)})
    np.testing.assert_array_equal(label, pipe.predict(X))
    assert set(proba[0]) == {"high", "low", "mid"}  # ZipMap: one dict per row
    np.testing.assert_allclose([p["mid"] for p in proba],
                               pipe.predict_proba(X)[:, list(pipe.classes_).index("mid")],
                               atol=1e-4)


@pytest.mark.mutant
@pytest.mark.parametrize("model_dtype, input_dtype", [(np.float64, np.float32),
                                                      (np.float32, np.float64)])
@pytest.mark.parametrize("name", ["ELMRegressor", "BLSRegressor"])
def test_skl2onnx_converter_casts_an_upstream_steps_dtype(name, model_dtype, input_dtype):
    """An upstream step hands the model the pipeline input's dtype (StandardScaler: float32
    in, float32 out); the converter casts it to the model's dtype, as ``to_onnx`` does
    (planted: the Cast dropped, a graph onnxruntime refuses to load)."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _data(0)
    pipe = make_pipeline(StandardScaler(), ESTIMATORS[name](model_dtype.__name__)).fit(X, y)
    Xd = X.astype(input_dtype)
    session = ort.InferenceSession(skl2onnx.to_onnx(pipe, Xd[:1]).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    (got,) = session.run(None, {session.get_inputs()[0].name: Xd})
    assert got.dtype == model_dtype
    got = got.astype(np.float32)
    # the scaler runs in the input's dtype: float32 round-off of the inputs either way
    expected = pipe.predict(X.astype(np.float32))
    _assert_close(got.ravel(), expected, np.float32)  # measured 1e-7 to 6e-6 of the scale


@pytest.mark.parametrize("cls", [ELMClassifier, BLSClassifier])
def test_skl2onnx_defaults_work_on_a_float64_classifier_in_a_pipeline(cls):
    """issue 24: with skl2onnx's defaults (ZipMap on) a float64 classifier's graph failed in
    onnxruntime, whose ZipMap takes float32 only; the converter turns ZipMap off itself."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _data(3)
    model = cls(random_state=0, dtype="float64")
    pipe = make_pipeline(StandardScaler(), model).fit(X, y)
    for options in (None, {id(model): {"zipmap": True}}):  # True cannot work in float64
        session = ort.InferenceSession(skl2onnx.to_onnx(pipe, X[:1], options=options)
                                       .SerializeToString(), providers=["CPUExecutionProvider"])
        label, proba = session.run(None, {session.get_inputs()[0].name: X})
        np.testing.assert_array_equal(label, pipe.predict(X))
        assert proba.dtype == np.float64
        np.testing.assert_allclose(proba, pipe.predict_proba(X), rtol=1e-10, atol=1e-12)
    session = ort.InferenceSession(  # 'columns' is kept: one probability output per class
        skl2onnx.to_onnx(pipe, X[:1], options={id(model): {"zipmap": "columns"}})
        .SerializeToString(), providers=["CPUExecutionProvider"])
    outputs = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_array_equal(outputs[0], pipe.predict(X))
    np.testing.assert_allclose(np.column_stack(outputs[1:]), pipe.predict_proba(X), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_bls_reference_rows_of_extreme_magnitude_equal_predict(dtype):
    """Issue 25 item 5: the graph rescales a row whose largest magnitude is outside [1e-150,
    1e150] before its z-score, as the kernel does (rows of 1e200 or 1e-160 gave finite but
    wrong outputs, 0.84 off on O(1) targets); zero and constant rows too."""
    X, y = _data(0)
    model = BLSRegressor(n_windows=2, nodes_per_window=4, n_enhancement=30, reg=1e-3,
                         preprocessing="reference", random_state=0, dtype="float64").fit(X, y)
    rows = X[:8] * np.array([1e200, 1e-160, 1e300, 1e-300, 1e150, 1e-150, 3.0, 1.0])[:, None]
    rows = np.vstack([rows, np.zeros((1, 6)), np.full((1, 6), 1e200)])
    if dtype == np.float32:
        rows = np.vstack([X[:4] * 1e30, X[4:8] * 1e-30])  # what float32 holds
    (got,) = _run(to_onnx(model, rows[:1].astype(dtype)), rows.astype(dtype))
    expected = model.predict(rows.astype(dtype))
    assert np.isfinite(expected).all()
    _assert_close(got, expected, np.float64)


@pytest.mark.parametrize("Est", ["BLSClassifierCV", "BLSRegressorCV", "ELMClassifierCV",
                                 "ELMRegressorCV"])
@pytest.mark.parametrize("links", [[False, True], (True,), np.array([True, False])])
def test_cv_estimator_with_a_list_of_direct_links_exports_its_choice(Est, links):
    """Issue 25 item 10: a CV estimator whose direct_links is a list (the grid) exports the
    layout it chose (``direct_links_``, and for ELM CV the chosen width and weight scale),
    and onnxruntime loads and runs it (ELM CV estimators were refused)."""
    import fastelm

    classifier = "Classifier" in Est
    X, y = _data(3 if classifier else 0)
    small = dict(n_windows=2, nodes_per_window=4, n_enhancement=30) if "BLS" in Est else \
        dict(n_hidden=40, hidden_sizes=[5, 40], weight_scale=["auto", 0.3])
    model = getattr(fastelm, Est)(direct_links=links, random_state=0, **small).fit(X, y)
    _check_round_trip(model, X, np.float64, classifier)


LABELS = {"bool": np.array([False, True, True]), "int8": np.array([-3, 5, 7], dtype=np.int8),
          "uint8": np.array([0, 200, 255], dtype=np.uint8),
          "int32": np.array([-7, 0, 2**31 - 1], dtype=np.int32),
          "uint64": np.array([0, 2**63 + 1, 2**64 - 1], dtype=np.uint64),
          "float16": np.array([-1.0, 0.0, 2048.0], dtype=np.float16),
          "float32": np.array([1.0, 2.0, 3.0], dtype=np.float32),
          "str": np.array(["a", "bb", "ccc"]), "object-str": np.array(["x", "y", "z"], object)}


@pytest.mark.parametrize("kind", list(LABELS))
def test_labels_of_every_dtype_equal_predict(kind):
    """Issue 25 item 14: the label output equals predict, dtype and value, for every label
    dtype numpy and ONNX hold (uint64 labels above 2**63 came out negative, bool and int8 as
    int64); labels ONNX cannot hold are refused in one line."""
    X, y = _data(3)
    if kind == "bool":
        y = (y > 0).astype(int)
    labels = LABELS[kind][y]
    model = ELMClassifier(n_hidden=20, random_state=0).fit(X, labels)
    label, _ = _run(to_onnx(model, X[:1]), X)
    expected = model.predict(X)
    assert label.dtype == (object if expected.dtype.kind == "U" else expected.dtype)
    np.testing.assert_array_equal(label, expected)


@pytest.mark.parametrize("labels", [
    np.array(["2020-01-01", "2021-01-01", "2022-01-01"], dtype="datetime64[D]"),
    np.array([1, 2, 3], dtype="timedelta64[s]")])
def test_labels_onnx_cannot_hold_are_refused(labels):
    X, y = _data(3)
    model = ELMClassifier(n_hidden=20, random_state=0).fit(X, labels[y])
    with pytest.raises(TypeError, match=r"^classes_ of dtype .* cannot be exported as ONNX "):
        to_onnx(model, X[:1])


def test_skl2onnx_labels_equal_predict_or_are_refused():
    """Through skl2onnx (whose ZipMap takes int64 or str labels) int8 labels come out as int64
    of the same values; uint64 labels above 2**63, which int64 cannot hold, are refused in one
    line (they came out negative)."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _data(3)
    small = ELMClassifier(n_hidden=20, random_state=0).fit(X, LABELS["int8"][y])
    session = ort.InferenceSession(skl2onnx.to_onnx(small, X[:1].astype(np.float32))
                                   .SerializeToString(), providers=["CPUExecutionProvider"])
    label = session.run(None, {session.get_inputs()[0].name: X.astype(np.float32)})[0]
    np.testing.assert_array_equal(label, small.predict(X.astype(np.float32)))
    big = ELMClassifier(n_hidden=20, random_state=0).fit(X, LABELS["uint64"][y])
    with pytest.raises(TypeError, match=r"^classes_ of dtype uint64 .* through skl2onnx"):
        skl2onnx.to_onnx(big, X[:1])


@pytest.mark.parametrize("opset", [13, 17, 18, "max"])
def test_bls_reference_mode_at_every_opset(opset):
    """Issue 28: ReduceMax, ReduceMean and ReduceSumSquare take their axes as an input from
    opset 18 on; a 'reference' BLS exported at opset 18 or above was refused by onnx's checker
    (attribute axes) in ``to_onnx`` and in the skl2onnx converter. Equal to predict at each."""
    import onnx

    opset = onnx.defs.onnx_opset_version() if opset == "max" else opset
    X, y = _data(0)
    model = BLSRegressor(n_windows=2, nodes_per_window=4, n_enhancement=30, reg=1e-3,
                         preprocessing="reference", random_state=0).fit(X, y)
    onnx_model = to_onnx(model, X[:1], target_opset=opset)
    assert onnx_model.opset_import[0].version == opset
    _assert_close(_run(onnx_model, X)[0], model.predict(X), np.float64)
    skl2onnx = pytest.importorskip("skl2onnx")
    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    # skl2onnx refuses an opset it does not know; None: its default, its newest
    for target in [opset] if opset <= skl2onnx.get_latest_tested_opset_version() else [None]:
        session = ort.InferenceSession(skl2onnx.to_onnx(model, X[:1], target_opset=target)
                                       .SerializeToString(), providers=["CPUExecutionProvider"])
        (got,) = session.run(None, {session.get_inputs()[0].name: X})
        _assert_close(got.ravel(), model.predict(X), np.float64)


@pytest.mark.mutant
def test_target_opset_default_and_bounds():
    """target_opset: default 17; every integer in [13, onnx's newest] (numpy's too) is taken,
    12, the newest + 1 and a float are refused in one line (planted: the defaults 16, 18, the
    bound 12, 14, ``opset < MIN_OPSET`` → ``<=``, ``opset > newest`` → ``>=``, ``==``, the
    integer check's ``or`` → ``and``)."""
    import onnx

    newest = onnx.defs.onnx_opset_version()
    X, y = _data(2)
    clf = ELMClassifier(n_hidden=10, random_state=0).fit(X, y)
    assert to_onnx(clf, X[:1]).opset_import[0].version == 17
    for opset in (13, np.int64(14), newest):
        assert to_onnx(clf, X[:1], target_opset=opset).opset_import[0].version == opset
    for opset in (12, newest + 1, 17.0):
        with pytest.raises(ValueError, match=rf"^target_opset={opset!r} must be an integer in "
                                             rf"\[13, {newest}\]$"):
            to_onnx(clf, X[:1], target_opset=opset)


@pytest.mark.mutant
def test_to_onnx_takes_model_and_sample_by_name_and_options_by_keyword_only():
    """The signature ``to_onnx(model, X_sample, *, target_opset, options)`` (planted: ``*`` →
    ``/``, which made the options positional and the first two unnameable)."""
    X, y = _data(2)
    clf = ELMClassifier(n_hidden=10, random_state=0).fit(X, y)
    assert len(to_onnx(model=clf, X_sample=X[:1]).graph.output) == 2
    with pytest.raises(TypeError, match="positional"):
        to_onnx(clf, X[:1], 17)


@pytest.mark.mutant
@pytest.mark.parametrize("sample", ["1-D", "3-D", "7 features", "0 rows"])
def test_x_sample_shape_is_checked(sample):
    """X_sample must be (n, n_features_in_): a row, a 3-D array or one feature too many are
    refused in one line naming the shape; 0 rows of the right width are enough (planted:
    ``ndim != 2`` → ``< 2``, ``> 2``, the width's ``!=`` → ``<``)."""
    X, y = _data(2)
    clf = ELMClassifier(n_hidden=10, random_state=0).fit(X, y)
    bad = {"1-D": X[0], "3-D": X[:2, :, None], "7 features": np.hstack([X[:2], X[:2, :1]]),
           "0 rows": X[:0]}[sample]
    if sample == "0 rows":
        label, _ = _run(to_onnx(clf, bad), X)
        np.testing.assert_array_equal(label, clf.predict(X))
        return
    with pytest.raises(ValueError, match=rf"^X_sample must have shape \(n, 6\); got "
                                         rf"{re.escape(str(bad.shape))}$"):
        to_onnx(clf, bad)


@pytest.mark.mutant
def test_outputs_declare_their_shapes():
    """The graph declares each output's shape: ``variable`` (n,) for a 1-D y and (n, m) for
    m outputs; ``label`` (n,), ``probabilities`` and ``scores`` (n, n_classes) (planted: the
    width ``beta_.shape[1]`` → ``shape[0]``, which onnxruntime only warns about)."""
    X, y = _data(0, m=2)

    def shapes(model, **kw):
        return {o.name: [d.dim_value or None for d in o.type.tensor_type.shape.dim]
                for o in to_onnx(model, X[:1], **kw).graph.output}

    assert shapes(ELMRegressor(n_hidden=20, random_state=0).fit(X, y)) == \
        {"variable": [None, 2]}
    assert shapes(ELMRegressor(n_hidden=20, random_state=0).fit(X, y[:, 0])) == \
        {"variable": [None]}
    X, y = _data(3)
    clf = BLSClassifier(n_windows=2, nodes_per_window=4, n_enhancement=20,
                        random_state=0).fit(X, y)
    assert shapes(clf, options={"decision_function": True, "zipmap": False}) == \
        {"label": [None], "probabilities": [None, 3], "scores": [None, 3]}


@pytest.mark.mutant
@pytest.mark.parametrize("n_features", [1, 2])
def test_bls_reference_mode_with_one_or_two_features(n_features):
    """A 'reference' row z-score divides by the row's sd only with two features or more; one
    feature is only centred (all zeros), as the kernel does (planted: ``n_features > 1`` →
    ``>= 1``, ``> 0`` (0/0: NaN), ``> 2``)."""
    X, y = _data(0)
    X = X[:, :n_features]
    model = BLSRegressor(n_windows=2, nodes_per_window=3, n_enhancement=10, reg=1e-3,
                         preprocessing="reference", random_state=0).fit(X, y)
    (got,) = _run(to_onnx(model, X[:1]), X)
    _assert_close(got, model.predict(X), np.float64)


@pytest.mark.mutant
def test_label_refusal_names_an_example_and_the_remedy():
    """The one-line TypeError quotes the first class and says what to refit on (planted: the
    example ``classes[0]`` → ``classes[1]``, ``classes[-1]``)."""
    X, y = _data(3)
    labels = np.array([10, 20, 30], dtype="timedelta64[s]")
    model = ELMClassifier(n_hidden=20, random_state=0).fit(X, labels[y])
    with pytest.raises(TypeError, match=re.escape(
            f"classes_ of dtype timedelta64[s] (e.g. {labels[0]!r}) cannot be exported as ONNX "
            "labels equal to predict's: refit on integer, float, bool or str labels")):
        to_onnx(model, X[:1])


@pytest.mark.mutant
def test_without_onnx_the_module_imports_and_to_onnx_names_the_extra(monkeypatch):
    """``import fastelm.onnx`` needs no onnx (it is imported when called); ``to_onnx`` then
    says which extra to install (planted: ``if TYPE_CHECKING`` negated, the ImportError
    handler replaced)."""
    import importlib
    import sys

    import fastelm

    X, y = _data(2)
    clf = ELMClassifier(n_hidden=10, random_state=0).fit(X, y)
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx raises ImportError
    monkeypatch.delitem(sys.modules, "fastelm.onnx")
    monkeypatch.setattr(fastelm, "onnx", None, raising=False)  # restored afterwards
    module = importlib.import_module("fastelm.onnx")
    with pytest.raises(ImportError, match=r"^fastelm.onnx needs the onnx package: "
                                          r"pip install 'fastelm\[onnx\]'$"):
        module.to_onnx(clf, X[:1])


SKL2ONNX_LABELS = {"int8": (np.array([-3, 5, 7], dtype=np.int8), np.int64),
                   "bool": (np.array([False, True]), np.int64),
                   "float32": (np.array([-1.0, 2.0, 3.0], dtype=np.float32), np.float64),
                   "float64": (np.array([-1.0, 0.0, 2.0**62]), np.float64),
                   "uint8": (np.array([0, 200, 255], dtype=np.uint8), np.int64),
                   "uint64 up to 2**63 - 1": (np.array([0, 7, 2**63 - 1], dtype=np.uint64),
                                              np.int64),
                   "uint64 from 2**63": (np.array([0, 7, 2**63], dtype=np.uint64), None)}


@pytest.mark.mutant
@pytest.mark.parametrize("kind", list(SKL2ONNX_LABELS))
def test_skl2onnx_labels_come_as_int64_or_float64_of_the_same_values(kind):
    """Through skl2onnx the labels are int64 (bool, integers: refused above int64's largest,
    2**63 − 1) or float64 (floats), equal to predict's values (planted: the
    int64/float64 choice ``kind == "f"`` negated, → ``!=``, ``<``, ``<=``, ``>``, ``>=``; the
    range check's ``or`` → ``and``, ``max <= int64 max`` → ``==``,
    ``<``, ``>``)."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    classes, dtype = SKL2ONNX_LABELS[kind]
    X, y = _data(len(classes))
    model = ELMClassifier(n_hidden=20, random_state=0).fit(X, classes[y])
    options = {id(model): {"zipmap": False}}
    if dtype is None:
        with pytest.raises(TypeError, match=r"^classes_ of dtype uint64 .* through skl2onnx"):
            skl2onnx.to_onnx(model, X[:1], options=options)
        return
    session = ort.InferenceSession(skl2onnx.to_onnx(model, X[:1], options=options)
                                   .SerializeToString(), providers=["CPUExecutionProvider"])
    label = session.run(None, {session.get_inputs()[0].name: X})[0]
    assert label.dtype == dtype
    np.testing.assert_array_equal(label, model.predict(X).astype(dtype))


@pytest.mark.mutant
def test_skl2onnx_float32_classifier_alone_takes_zipmap_by_default_and_refuses_nocl():
    """skl2onnx's defaults on a float32 classifier (not in a Pipeline): ZipMap on, one dict
    per row; its option ``nocl`` (labels as indices) is refused, False accepted (planted: the
    parser's default ``zipmap=True`` → False, the allowed ``nocl`` [False] → [True])."""
    skl2onnx = pytest.importorskip("skl2onnx")
    from fastelm.onnx import register_skl2onnx

    register_skl2onnx()
    X, y = _data(3)
    X = X.astype(np.float32)
    model = ELMClassifier(n_hidden=20, random_state=0, dtype="float32").fit(X, y)
    session = ort.InferenceSession(skl2onnx.to_onnx(model, X[:1]).SerializeToString(),
                                   providers=["CPUExecutionProvider"])
    label, proba = session.run(None, {session.get_inputs()[0].name: X})
    np.testing.assert_array_equal(label, model.predict(X))
    assert set(proba[0]) == {0, 1, 2}
    np.testing.assert_allclose([p[2] for p in proba], model.predict_proba(X)[:, 2], atol=1e-6)
    assert skl2onnx.to_onnx(model, X[:1], options={id(model): {"nocl": False}}) is not None
    with pytest.raises(ValueError, match="nocl"):
        skl2onnx.to_onnx(model, X[:1], options={id(model): {"nocl": True}})


@pytest.mark.mutant
@pytest.mark.parametrize("name", ["ELMClassifier", "BLSRegressor-reference"])
@pytest.mark.parametrize("opset", [17, 18])
def test_graph_runs_in_the_onnx_reference_evaluator(name, opset):
    """The graph is standard ONNX: onnx's own reference evaluator gives predict's outputs too,
    not only onnxruntime (planted: ArgMax ``keepdims=0`` → -1, which onnxruntime reads as 0
    and the reference as 1, labels (n, 1))."""
    from onnx.reference import ReferenceEvaluator

    classifier = name == "ELMClassifier"
    X, y = _data(3 if classifier else 0, n=40)
    model = ELMClassifier(n_hidden=20, random_state=0) if classifier else BLSRegressor(
        n_windows=2, nodes_per_window=4, n_enhancement=20, reg=1e-3,
        preprocessing="reference", random_state=0)
    model.fit(X, y)
    outputs = ReferenceEvaluator(to_onnx(model, X[:1], target_opset=opset)).run(None, {"X": X})
    if classifier:
        label, proba = outputs
        np.testing.assert_array_equal(label, model.predict(X))
        _assert_close(proba, model.predict_proba(X), np.float64)
    else:
        _assert_close(outputs[0], model.predict(X), np.float64)
