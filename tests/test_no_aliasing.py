"""A fitted model holds no reference to the caller's arrays: callers reuse buffers (a stream
read chunk by chunk into one array, a y rescaled in place), and a model that kept a view would
change silently — its window rows, its stored targets for added rows or nodes."""
import numpy as np
import pytest
from sklearn.base import clone, is_classifier

from fastelm import (BLSClassifier, BLSClassifierCV, BLSRegressor, BLSRegressorCV,
                     DEELMClassifier, DEELMRegressor, ELMClassifier, ELMClassifierCV,
                     ELMRegressor, ELMRegressorCV, FOSELMClassifier, FOSELMRegressor,
                     OSELMClassifier, OSELMRegressor, TriTrainingClassifier)
from fastelm.stream import prequential

BLS = {"n_windows": 2, "nodes_per_window": 3, "n_enhancement": 12, "random_state": 0}
DE = {"n_hidden": 5, "pop_size": 6, "n_generations": 2, "random_state": 0}
ESTIMATORS = [
    ELMRegressor(n_hidden=8, random_state=0), ELMClassifier(n_hidden=8, random_state=0),
    ELMRegressorCV(n_hidden=8, cv=3, random_state=0),
    ELMClassifierCV(n_hidden=8, cv=3, random_state=0),
    OSELMRegressor(n_hidden=8, random_state=0), OSELMClassifier(n_hidden=8, random_state=0),
    OSELMRegressor(n_hidden=8, window=40, alpha=1.0, random_state=0),
    OSELMClassifier(n_hidden=8, window=40, alpha=1.0, loss="logistic", random_state=0),
    OSELMClassifier(n_hidden=8, forgetting_factor=0.99, random_state=0),
    FOSELMRegressor(n_hidden=12, random_state=0), FOSELMClassifier(n_hidden=12, random_state=0),
    FOSELMRegressor(n_hidden=12, window=40, alpha=1.0, random_state=0),
    BLSRegressor(**BLS), BLSClassifier(**BLS), BLSRegressor(direct_links=True, **BLS),
    BLSRegressorCV(cv=3, **BLS), BLSClassifierCV(cv=3, shared_layer=True, **BLS),
    DEELMRegressor(**DE), DEELMClassifier(**DE),
    TriTrainingClassifier(ELMClassifier(n_hidden=5), random_state=0),
]


def _arrays(obj, seen=None):
    """Every ndarray reachable from a model: its attributes, and recursively lists, tuples,
    dicts and fastelm or scikit-learn objects inside them."""
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _arrays(item, seen)
    elif isinstance(obj, dict):
        for item in obj.values():
            yield from _arrays(item, seen)
    elif type(obj).__module__.split(".")[0] in ("fastelm", "sklearn") and \
            hasattr(obj, "__dict__"):
        yield from _arrays(vars(obj), seen)


def _data(estimator):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 4))
    y = X @ [1.0, -2.0, 0.5, 0.0] + 0.1 * rng.standard_normal(90)
    if is_classifier(estimator):
        y = (y > 0).astype(np.int64)
        if isinstance(estimator, TriTrainingClassifier):
            y[::3] = -1  # unlabelled rows
    return X, y


def _assert_no_view_of(model, *arrays):
    for held in _arrays(model):
        for given in arrays:
            assert not np.shares_memory(held, given), \
                f"{type(model).__name__} holds a view of the caller's array {given.shape}"


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_fit_keeps_no_view_of_the_inputs(estimator):
    X, y = _data(estimator)
    model = clone(estimator).fit(X, y)
    _assert_no_view_of(model, X, y)
    if hasattr(model, "add_rows"):
        Xn, yn = X[:20].copy(), y[:20].copy()
        model.add_rows(Xn, yn)
        _assert_no_view_of(model, X, y, Xn, yn)


@pytest.mark.parametrize("estimator", [e for e in ESTIMATORS if hasattr(e, "partial_fit")],
                         ids=lambda e: type(e).__name__)
def test_partial_fit_and_prequential_keep_no_view_of_the_inputs(estimator):
    X, y = _data(estimator)
    model = clone(estimator)
    kw = {"classes": [0, 1]} if is_classifier(model) else {}
    first, second = (X[:50].copy(), y[:50].copy()), (X[50:].copy(), y[50:].copy())
    model.partial_fit(*first, **kw)
    _assert_no_view_of(model, *first)
    model.partial_fit(*second)
    _assert_no_view_of(model, X, y, *first, *second)
    if is_classifier(model):
        stream = clone(estimator)
        prequential(stream, X, y, chunk_size=30)
        _assert_no_view_of(stream, X, y)
