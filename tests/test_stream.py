"""Prequential evaluation (``fastelm.stream``)."""
import copy

import numpy as np
import pytest

from fastelm import FOSELMClassifier, OSELMClassifier
from fastelm.stream import prequential


class _Recorder:
    """Predicts the label learned last; records the calls."""

    def __init__(self):
        self.calls, self.last = [], None

    def predict(self, X):
        self.calls.append(("predict", len(X)))
        return np.full(len(X), self.last)

    def partial_fit(self, X, y, **kw):
        self.calls.append(("partial_fit", len(X), tuple(kw)))
        self.last = y[-1]
        return self


def test_test_then_train_order_scores_and_window():
    y = np.array([0] * 250 + [1] * 100 + [0] * 50)
    X = np.zeros((400, 2))
    model = _Recorder()
    result = prequential(model, X, y, chunk_size=100, window=150, classes=[0, 1])
    assert model.calls == [("partial_fit", 100, ("classes",)), ("predict", 100),
                           ("partial_fit", 100, ()), ("predict", 100), ("partial_fit", 100, ()),
                           ("predict", 100), ("partial_fit", 100, ())]
    np.testing.assert_array_equal(result.rows, [100, 200, 300, 400])
    assert np.isnan(result.correct[:100]).all()  # the first chunk is only learned
    # rows 200-299 predicted 0 (the last label of rows 100-199): right on 200-249, wrong on
    # 250-299; rows 300-399 predicted 1: right on 300-349, wrong on 350-399
    expected = np.r_[np.ones(150), np.zeros(50), np.ones(50), np.zeros(50)]
    np.testing.assert_array_equal(result.correct[100:], expected)
    np.testing.assert_allclose(result.accuracy[1:], [1.0, 100 / 150, 50 / 150])
    assert result.mean_accuracy() == pytest.approx(200 / 300)
    assert result.mean_accuracy(300) == 0.5 and result.mean_accuracy(350) == 0.0 and result.rows_per_second > 0


@pytest.mark.mutant
def test_default_chunks_and_window_and_rows_per_second():
    """Defaults: chunks of 100 rows, accuracy over the last 1000 scored rows; rows_per_second
    is rows / seconds (inf for no time) (planted by cosmic-ray: chunk_size 99, window 1001,
    ``/`` → ``*``, ``seconds > 0`` → ``< 0``; the window's start ``np.maximum(0, ...)`` →
    ``-1``, the cumulative counts' leading 0 → 1)."""
    from fastelm.stream import PrequentialResult

    y = np.array([0] * 1100 + [1] * 200)
    result = prequential(_Recorder(), np.zeros((1300, 1)), y)
    np.testing.assert_array_equal(result.rows, np.arange(100, 1301, 100))
    # scored rows 300-1299: right on 300-1099 (0 after 0s) and 1200-1299, wrong on 1100-1199
    assert result.accuracy[-1] == 0.9
    assert result.accuracy[4] == 1.0  # rows 100-499, fewer than the window: from row 0
    timed = PrequentialResult(result.rows, result.accuracy, result.correct, 2.0)
    assert timed.rows_per_second == 650.0
    assert PrequentialResult(result.rows, result.accuracy, result.correct,
                             0.0).rows_per_second == float("inf")


def test_a_last_short_chunk_and_classes_none():
    model = _Recorder()
    result = prequential(model, np.zeros((250, 1)), np.arange(250) % 2, chunk_size=100,
                         classes=None)
    np.testing.assert_array_equal(result.rows, [100, 200, 250])
    assert model.calls[0] == ("partial_fit", 100, ())


def test_oselm_on_a_linear_stream_learns():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 4))
    y = (X @ [1.0, -1.0, 0.5, 0.0] > 0).astype(int)
    result = prequential(OSELMClassifier(n_hidden=50, random_state=0), X, y, chunk_size=100)
    assert result.mean_accuracy(1000) > 0.95


@pytest.mark.parametrize("make, compiled", [
    (lambda: OSELMClassifier(n_hidden=30, random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=30, forgetting_factor=0.99, direct_links=True,
                             random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=30, alpha=0.1, window=150, random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=12, alpha=0.1, window=90, direct_links=True,
                             activation="sigmoid", random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=20, alpha=0.1, forgetting_factor=0.98, loss="logistic",
                             random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=20, alpha=0.1, window=120, loss="logistic",
                             direct_links=True, random_state=0), True),
    (lambda: OSELMClassifier(n_hidden=400, window=600, random_state=0), False),  # Woodbury
    (lambda: OSELMClassifier(n_hidden=20, window=90, random_state=0, dtype="float32"), False),
    (lambda: FOSELMClassifier(n_hidden=40, delta=0.01, random_state=0), False),
])
def test_fused_path_equals_predict_then_partial_fit(make, compiled):
    """The compiled loop equals the per-call path to rounding (1e-12 of beta's norm, the same
    predictions); the Python fused path (float32, Woodbury steps, FOS-ELM) bit for bit."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((1230, 4))
    y = np.array(["a", "b", "c"])[np.digitize(X[:, 0] - 0.5 * X[:, 2], [-0.4, 0.4])]
    fused, plain = make(), make()
    calls = {id(fused): 0, id(plain): 0}
    for model in (fused, plain):
        model.predict = lambda X, m=model, predict=model.predict: \
            calls.__setitem__(id(m), calls[id(m)] + 1) or predict(X)
    chunk = 37
    a = prequential(fused, X, y, chunk_size=chunk)
    assert fused._compiles(np.arange(chunk, len(X), chunk)) == compiled
    b = prequential(plain, X, y, chunk_size=chunk, fused=False)
    assert calls == {id(fused): 0, id(plain): 33}  # each took the path it was meant to
    np.testing.assert_array_equal(a.correct, b.correct)
    np.testing.assert_array_equal(a.accuracy, b.accuracy)
    if compiled:
        difference = np.linalg.norm(fused.rls_.beta - plain.rls_.beta)
        assert difference <= 1e-12 * np.linalg.norm(plain.rls_.beta)
        np.testing.assert_allclose(fused.rls_.K, plain.rls_.K, rtol=0, atol=1e-12 *
                                   np.abs(plain.rls_.K).max())
    else:
        np.testing.assert_array_equal(fused.rls_.beta, plain.rls_.beta)
    np.testing.assert_array_equal(fused.predict(X), plain.predict(X))
    assert fused.rls_.forms == plain.rls_.forms
    assert fused.rls_.n_seen == plain.rls_.n_seen
    for name in ("window_X_", "window_T_", "window_w_"):
        if hasattr(plain, name):  # weighted targets and weights (logistic): from the scores
            exact = name == "window_X_" or plain.loss == "squared"
            np.testing.assert_allclose(getattr(fused, name), getattr(plain, name), rtol=0,
                                       atol=0 if exact else 1e-12)
    fused.partial_fit(X[:50], y[:50])  # the stream goes on from the compiled loop's state
    plain.partial_fit(X[:50], y[:50])
    np.testing.assert_allclose(fused.rls_.beta, plain.rls_.beta, rtol=0,
                               atol=1e-12 * np.abs(plain.rls_.beta).max())
    assert 0.6 < a.mean_accuracy() < 1


def _per_call_predictions(model, X, y, stops):
    """What predict gives each chunk [stops[c − 1], stops[c]) before partial_fit learns it."""
    expected = []
    for start, stop in zip(stops[:-1], stops[1:]):
        expected.append(model.predict(X[start:stop]))
        model.partial_fit(X[start:stop], y[start:stop])
    return np.concatenate(expected)


@pytest.mark.parametrize("loss", ["squared", "logistic"])
def test_compiled_window_after_other_rows_and_the_caller_arrays_not_kept(loss):
    """A window holding rows that are not the stream's (learned before by another call) goes
    through the loop as well; after the run the model keeps copies of its window's rows:
    overwriting the caller's stream changes nothing."""
    rng = np.random.default_rng(5)
    Z, X = rng.standard_normal((90, 4)), rng.standard_normal((800, 4))
    yz, y = (Z[:, 0] > 0).astype(int), (X[:, 0] + X[:, 1] > 0).astype(int)
    fused, plain = (OSELMClassifier(n_hidden=12, alpha=0.3, window=150, loss=loss,
                                    direct_links=True, random_state=0) for _ in range(2))
    for model in (fused, plain):
        model.partial_fit(Z, yz, classes=[0, 1])
    stops = np.arange(100, 801, 100)
    got = fused._test_then_train(X, y, stops)
    np.testing.assert_array_equal(got, _per_call_predictions(plain, X, y, stops))
    assert np.linalg.norm(fused.rls_.beta - plain.rls_.beta) <= \
        1e-12 * np.linalg.norm(plain.rls_.beta)
    stream = rng.standard_normal((600, 4))
    model = OSELMClassifier(n_hidden=12, alpha=1.0, window=150, loss=loss, random_state=0)
    prequential(model, stream, (stream[:, 0] > 0).astype(int))  # the loop reads the stream
    kept = copy.deepcopy(model)
    stream[:] = 0.0  # the caller reuses its array
    for m in (model, kept):
        m.partial_fit(X[:100], y[:100])  # 100 of the window's rows leave: downdated
    np.testing.assert_array_equal(model.rls_.beta, kept.rls_.beta)


def _fused_and_per_call(make, X, y, chunk_size):
    """Prequential runs of two models from `make`, fused and per call: equal scores and beta."""
    fused, plain = make(), make()
    a = prequential(fused, X, y, chunk_size=chunk_size)
    b = prequential(plain, X, y, chunk_size=chunk_size, fused=False)
    np.testing.assert_array_equal(a.correct, b.correct)
    assert np.linalg.norm(fused.rls_.beta - plain.rls_.beta) <= \
        1e-12 * np.linalg.norm(plain.rls_.beta)
    return fused, plain, a


@pytest.mark.mutant
def test_compiled_loop_takes_the_first_class_on_ties():
    """Rows whose ReLU nodes are all off score 0 for every class: the compiled loop predicts
    the first class, as argmax and the per-call path do (planted: ``score >= top``, the last
    class on ties)."""
    rng = np.random.default_rng(4)
    X0, X = rng.standard_normal((60, 5)), rng.standard_normal((400, 5))
    fused, plain = (OSELMClassifier(n_hidden=3, activation="relu", alpha=0.1, random_state=0)
                    for _ in range(2))
    for model in (fused, plain):
        model.partial_fit(X0, np.arange(60) % 3, classes=[0, 1, 2])
    # u with W_ᵀu = −1 (d = 5 > L = 3): c·u switches every node off once c > max b_ + 1
    u = np.linalg.lstsq(fused.W_.T, -np.ones(3), rcond=None)[0]
    X[::4] = (np.abs(fused.b_).max() + 2.0) * u
    assert not np.any(fused._hidden(X[::4]))  # every score of these rows is exactly 0
    y = rng.integers(0, 3, len(X))
    stops = np.arange(0, 401, 100)
    assert fused._compiles(stops)
    got = fused._test_then_train(X, y, stops)
    np.testing.assert_array_equal(got, _per_call_predictions(plain, X, y, stops))
    np.testing.assert_array_equal(got[::4], 0)


def test_compiled_loop_hands_back_when_k_is_not_trusted(monkeypatch):
    """When K's condition bound fails the compiled loop stops after that chunk and the Python
    path (with its checks) learns the rest: the same result as the per-call path."""
    import fastelm.elm

    monkeypatch.setattr(fastelm.elm, "RCOND_MIN", 1.0)  # no K passes: hand back at once
    rng = np.random.default_rng(3)
    X = rng.standard_normal((600, 3))
    y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int)
    fused, plain, _ = _fused_and_per_call(
        lambda: OSELMClassifier(n_hidden=15, alpha=0.5, window=200, random_state=0), X, y, 50)
    assert fused.rls_.forms == plain.rls_.forms and fused.rls_.n_seen == plain.rls_.n_seen == 200


def test_fused_path_stops_at_an_unseen_label_and_grow_takes_the_per_call_path():
    rng = np.random.default_rng(2)
    X, y = rng.standard_normal((400, 3)), np.r_[np.arange(300) % 2, np.full(100, 2)]
    with pytest.raises(ValueError, match="not in classes_"):
        prequential(OSELMClassifier(n_hidden=10), X, y, classes=[0, 1])
    result = prequential(OSELMClassifier(n_hidden=10, random_state=0), X, y, classes="grow")
    assert result.correct[300:].sum() == 0  # label 2 had never been seen when predicted


def test_sparse_input_reaches_the_model_as_sparse():
    """A sparse X is sliced as it is: the model's own message (dense data required) rather
    than a shape error about a 0-d array; a learner taking sparse rows gets them."""
    import scipy.sparse as sp

    X = sp.random(300, 5, density=0.3, format="csr", random_state=0)
    y = np.arange(300) % 2
    with pytest.raises(TypeError, match="Sparse data was passed"):
        prequential(OSELMClassifier(n_hidden=5), X, y)
    class SparseRows(_Recorder):
        def predict(self, X):
            assert sp.issparse(X)
            return super().predict(np.zeros((X.shape[0], 1)))

        def partial_fit(self, X, y, **kw):
            assert sp.issparse(X)
            return super().partial_fit(np.zeros((X.shape[0], 1)), y, **kw)

    model = SparseRows()
    result = prequential(model, X, y, chunk_size=100)
    assert [c[:2] for c in model.calls] == [("partial_fit", 100), ("predict", 100),
                                           ("partial_fit", 100), ("predict", 100),
                                           ("partial_fit", 100)]
    assert result.rows.tolist() == [100, 200, 300]


@pytest.mark.mutant
@pytest.mark.parametrize("shape_X, shape_y", [((5, 1, 1), (5,)), ((5,), (5,)), ((5, 1), (5, 1)),
                                              ((5, 1), ()), ((4, 1), (5,))])
def test_inputs_of_other_dimensions_raise_one_line_errors(shape_X, shape_y):
    """X must be 2-D and y 1-D with as many rows: a 3-D or 1-D X, a column or scalar y, fewer
    rows of X than labels are refused with the shapes named (planted by cosmic-ray:
    ``rows.ndim != 2`` → ``< 2``, ``> 2``, ``!= 1``; ``y.ndim != 1`` → ``< 1`` or ``> 1``,
    the scalar then failing in len(); ``rows.shape[0] != len(y)`` → ``>``)."""
    with pytest.raises(ValueError, match="X must be 2-D and y 1-D"):
        prequential(_Recorder(), np.zeros(shape_X), np.zeros(shape_y))


def test_bad_arguments():
    with pytest.raises(ValueError, match="chunk_size"):
        prequential(_Recorder(), np.zeros((5, 1)), np.zeros(5), chunk_size=0)
    with pytest.raises(ValueError, match="window"):
        prequential(_Recorder(), np.zeros((5, 1)), np.zeros(5), window=-1)
    with pytest.raises(ValueError, match="as many rows"):
        prequential(_Recorder(), np.zeros((5, 1)), np.zeros(4))


def test_what_the_learner_lacks_is_one_line():
    """Issue 25 item 12: a learner without partial_fit or predict, a regressor, or a
    partial_fit without ``classes=`` is told in one line what prequential needs (it was a raw
    AttributeError or "unexpected keyword argument 'classes'")."""
    from fastelm import ELMClassifier, OSELMRegressor

    X, y = np.zeros((20, 2)), np.arange(20) % 2
    with pytest.raises(TypeError, match=r"^prequential needs an online classifier .* object "
                                        r"has no predict or partial_fit"):
        prequential(object(), X, y)
    with pytest.raises(TypeError, match=r"ELMClassifier has no partial_fit: use e\.g\. "):
        prequential(ELMClassifier(), X, y)
    with pytest.raises(ValueError, match="OSELMRegressor is a regressor"):
        prequential(OSELMRegressor(n_hidden=3), X, y)

    class NoClasses(_Recorder):
        def partial_fit(self, X, y):
            return super().partial_fit(X, y)

    with pytest.raises(ValueError, match=r"NoClasses.partial_fit takes no classes=: call "
                                         r"prequential\(\.\.\., classes=None\)"):
        prequential(NoClasses(), X, y)
    assert prequential(NoClasses(), X, y, classes=None, chunk_size=5).correct.shape == (20,)


def test_gram_lower_numpy_equals_the_blas_intrinsic():
    """``fastelm._kernels.blas.gram_lower_numpy`` (the stream kernel's syrk when kernels run
    as plain Python, NUMBA_DISABLE_JIT=1) writes what the compiled dsyrk writes."""
    from numba import njit

    from fastelm._kernels.blas import gram_lower, gram_lower_numpy

    @njit
    def compiled(A, G, n):
        gram_lower(A, G, n)

    A = np.random.default_rng(3).standard_normal((9, 4))
    got, expected = np.full((4, 4), 7.0), np.full((4, 4), 7.0)
    compiled(A, expected, 6)
    gram_lower_numpy(A, got, 6)
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert (np.triu(got, 1) == np.triu(np.full((4, 4), 7.0), 1)).all()  # upper left as it was


@pytest.mark.mutant
def test_compiled_loop_learns_every_chunk_while_its_bound_trusts_k(monkeypatch):
    """``_trusted`` is alpha / (√p ‖K‖₁) ≥ rcond_min (true at equality); while it holds the
    compiled loop learns every chunk, and once it fails it hands back after that chunk
    (planted by cosmic-ray: ``>=`` → ``>``, ``<``, ``<=``, ``==``, ``!=``; ``* norm`` →
    ``/ norm``, ``* np.sqrt(p)`` → ``/``; the norm started at 1, a column's sum at ±1; either
    loop of the norm run zero times; the hand-back test's ``not`` dropped or doubled)."""
    import fastelm.elm
    from fastelm._kernels.stream import _trusted

    K = np.array([[3.0, -1.0, 0.0, 0.5], [-1.0, 4.0, 2.0, 0.0], [0.0, 2.0, 1.0, -1.0],
                  [0.5, 0.0, -1.0, 2.0]])  # ‖K‖₁ = 7 (its second column), √p = 2
    for scale in (1.0, 1 / 16):  # ‖K‖₁ = 7 and 7/16 (below 1)
        alpha = 0.125 * 2.0 * 7.0 * scale  # exactly rcond_min √p ‖K‖₁ at rcond_min = 1/8
        assert _trusted(K * scale, alpha, 0.125) and _trusted(K * scale, 2 * alpha, 0.125)
        assert not _trusted(K * scale, np.nextafter(alpha, 0.0), 0.125)
        assert not _trusted(K * scale, alpha, np.nextafter(0.125, 1.0))
    learned, loop = [], fastelm.elm.test_then_train
    monkeypatch.setattr(fastelm.elm, "test_then_train",
                        lambda *args: learned.append(loop(*args)) or learned[-1])
    rng = np.random.default_rng(6)
    X = rng.standard_normal((400, 3))
    y = (X[:, 0] - X[:, 2] > 0).astype(int)
    for rcond_min, chunks in ((fastelm.elm.RCOND_MIN, 3), (1.0, 1)):  # 1.0: no K trusted
        monkeypatch.setattr(fastelm.elm, "RCOND_MIN", rcond_min)
        model = OSELMClassifier(n_hidden=10, alpha=0.5, window=150, random_state=0)
        prequential(model, X, y, chunk_size=100)
        assert learned[-1] == chunks


@pytest.mark.mutant
def test_compiled_loop_of_one_chunk_or_none_equals_the_per_call_path():
    """Streams of two chunks and of one: the loop predicts and learns one chunk, its buffers
    sized by that chunk, or has no chunk to run (planted by cosmic-ray: the largest chunk taken
    as ``stops[c] − stops[c − 2]``, 0 rows for one chunk; started at −1 rows, for none)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 4))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    for n in (200, 80):
        fused, plain = (OSELMClassifier(n_hidden=10, alpha=0.2, loss="logistic",
                                        random_state=0) for _ in range(2))
        a = prequential(fused, X[:n], y[:n], chunk_size=100)
        b = prequential(plain, X[:n], y[:n], chunk_size=100, fused=False)
        np.testing.assert_array_equal(a.correct, b.correct)
        assert np.linalg.norm(fused.rls_.beta - plain.rls_.beta) <= \
            1e-12 * np.linalg.norm(plain.rls_.beta)
    assert np.isnan(a.correct).all() and a.rows.tolist() == [80]  # only learned


@pytest.mark.mutant
def test_compiled_loop_with_a_window_of_one_row_equals_the_per_call_path():
    """A window of one row: every chunk's rows but its last leave the model at once (planted
    by cosmic-ray: the kernel's ``window > 0`` → ``window > 1``, no row ever leaving)."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((60, 3))
    y = (X[:, 0] > 0).astype(int)
    _fused_and_per_call(lambda: OSELMClassifier(n_hidden=5, alpha=0.5, window=1,
                                                random_state=0), X, y, 10)


@pytest.mark.mutant
def test_compiled_loop_takes_the_first_class_when_every_score_is_minus_inf():
    """Scores tied at −inf (a readout that overflowed: one node, K = alpha = 1e-300 and HᵀT =
    −1e10, so beta = −1e310) go to the first class, as argmax (planted by cosmic-ray: the
    running best's start 0 → 1 or −1, kept when no score beats −inf)."""
    from fastelm._hidden import check_activation
    from fastelm._kernels.stream import test_then_train

    X = np.linspace(-1.0, 1.0, 8)[:, None]
    T = np.eye(3)[np.arange(8) % 3]
    K, HtT = np.array([[1e-300]]), np.full((1, 3), -1e10)
    predicted = np.full(8, 7)
    with np.errstate(over="ignore"):  # the overflow is the point (as plain Python)
        test_then_train(X, T, np.ones(8), np.ones((1, 1)), np.zeros(1),
                        check_activation("sigmoid"), False, False, K, HtT, 1e-300, 1.0, 0,
                        np.array([0, 8]), 0.0, predicted)
    scores = 1.0 / (1.0 + np.exp(-X)) * np.full((1, 3), -np.inf)  # sigmoid(x) > 0 times beta
    assert np.all(scores == -np.inf)
    np.testing.assert_array_equal(predicted, np.argmax(scores, axis=1))
    np.testing.assert_array_equal(predicted, 0)


@pytest.mark.mutant
def test_seconds_are_the_time_in_the_learners_calls(monkeypatch):
    """``seconds`` adds the time of each chunk's ``predict`` and ``partial_fit`` (on the fused
    path, of the first ``partial_fit`` and the fused call), on a clock that ticks 1/8 s a
    reading (planted by cosmic-ray: the sum started at ±1, ``toc − tic`` → ``+``;
    ``rows_per_second``'s ``seconds > 0`` → ``> 1``)."""
    import types

    import fastelm.stream

    readings = iter(np.arange(1000) / 8)
    monkeypatch.setattr(fastelm.stream, "time",
                        types.SimpleNamespace(perf_counter=lambda: next(readings)))
    X, y = np.zeros((400, 2)), np.arange(400) % 2
    per_call = prequential(_Recorder(), X, y)  # 4 chunks: 4 timed blocks
    assert per_call.seconds == 0.5 and per_call.rows_per_second == 800.0
    fused = prequential(OSELMClassifier(n_hidden=5, random_state=0), X, y)  # 1 block
    assert fused.seconds == 0.125 and fused.rows_per_second == 3200.0


@pytest.mark.mutant
def test_classes_reach_the_first_partial_fit_as_documented():
    """``classes='all'``: every label of y; any other value as given ('grow', a list, a
    string the learner refuses itself) (planted by cosmic-ray: ``isinstance(classes, str)
    and classes == 'all'`` → ``or``, ``==`` → ``<=``, ``>=``, ``<``, ``>``, ``!=``)."""
    class Classes(_Recorder):
        def partial_fit(self, X, y, classes=None):
            self.calls.append(classes)
            return super().partial_fit(X, y)

    X, y = np.zeros((20, 1)), np.array([3, 1, 2, 1] * 5)
    for classes, given in (("all", [1, 2, 3]), ("grow", "grow"), ("abc", "abc"),
                           ([0, 1, 2, 3], [0, 1, 2, 3])):
        model = Classes()
        prequential(model, X, y, chunk_size=10, classes=classes)
        first = model.calls[0]
        assert isinstance(first, str) == isinstance(given, str)
        np.testing.assert_array_equal(first, given)
    model = Classes()
    prequential(model, X, y, chunk_size=10, classes=None)
    assert model.calls[0] is None


@pytest.mark.mutant
def test_options_are_keyword_only():
    """chunk_size, window, classes and fused are keyword-only (planted by cosmic-ray: the
    signature's ``*`` → ``/``, which makes them positional)."""
    with pytest.raises(TypeError, match="positional argument"):
        prequential(_Recorder(), np.zeros((5, 1)), np.zeros(5), 2)


class _NoSignature:
    """A ``partial_fit`` whose signature ``inspect`` cannot read (``error`` on reading it, as
    for some compiled callables), calling ``learner.partial_fit``."""

    def __init__(self, error, learner):
        self.error, self.learner = error, learner

    @property
    def __signature__(self):
        raise self.error("no signature")

    def __call__(self, X, y, **kw):
        return self.learner.partial_fit(X, y, **kw)


@pytest.mark.mutant
@pytest.mark.parametrize("error", [TypeError, ValueError])
def test_a_partial_fit_without_a_readable_signature_is_called_as_it_is(error):
    """When ``inspect.signature`` fails (TypeError or ValueError) the learner is not refused:
    its ``partial_fit`` says what it takes (planted by cosmic-ray: either exception of the
    ``except`` replaced)."""
    import inspect

    learner, model = _Recorder(), _Recorder()
    model.partial_fit = _NoSignature(error, learner)
    with pytest.raises(error):
        inspect.signature(model.partial_fit)
    result = prequential(model, np.zeros((30, 1)), np.arange(30) % 2, chunk_size=10)
    assert learner.calls[0] == ("partial_fit", 10, ("classes",))
    assert result.rows.tolist() == [10, 20, 30]
