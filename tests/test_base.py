"""Fitted state (``fastelm._base`` and every estimator of ``fastelm.__all__``): a fitted model
predicts from its fitted attributes alone, and every public parameter has a constraint."""
import copy
import inspect

import numpy as np
import pytest
from sklearn.base import BaseEstimator, is_classifier

import fastelm
from fastelm import DEELMClassifier, ELMClassifier

pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py

ESTIMATORS = [getattr(fastelm, name) for name in fastelm.__all__
              if inspect.isclass(getattr(fastelm, name))
              and issubclass(getattr(fastelm, name), BaseEstimator)]

# small, fast settings per parameter name (applied where the estimator has the parameter)
SMALL = dict(n_hidden=6, n_windows=2, nodes_per_window=3, n_enhancement=5, pop_size=6,
             n_generations=1, n_selection_repeats=1, max_iter=1, efast_samples=70,
             efast_interference=2, min_nodes=2, regs=[1e-2, 1.0], alphas=[1e-2, 1.0],
             random_state=0)

# a different valid value per parameter name (bools are flipped, numbers moved generically)
OTHER = {"activation": "relu", "dtype": "float32", "weight_scale": 0.3,
         "preprocessing": {"minmax": "reference", "reference": "minmax"}, "loss": "logistic",
         "window": 7, "forgetting_factor": 0.5, "strategy": "DE/best/1", "readout": "all",
         "f_schedule": "constant", "selection": "greedy", "cv": 3, "scoring": "r2",
         "regs": [5.0], "alphas": [5.0], "hidden_sizes": [3], "direct_links": [True],
         "n_hidden": 9, "max_nodes": 3, "unlabeled": "?", "random_state": 99,
         "error_score": "raise",
         "estimator": ELMClassifier(n_hidden=4, random_state=1), "layer_rows": 30}


def _small(cls):
    params = cls().get_params(deep=False)
    kw = {k: v for k, v in SMALL.items() if k in params}
    if "estimator" in params and cls is not fastelm.TriTrainingClassifier:
        kw["estimator"] = DEELMClassifier(**{**cls.preset, "n_hidden": 5, "pop_size": 6,
                                             "n_generations": 1, "random_state": 0})
    return cls(**kw)


def _other(name, value):
    if name == "alpha" and value == "gcv":  # the ELMs' chosen penalty
        return 0.5
    if name in OTHER:
        other = OTHER[name]
        other = other.get(value, value) if isinstance(other, dict) else other
        if isinstance(value, (bool, np.bool_)) and isinstance(other, list):
            return not value
        return other
    if isinstance(value, (bool, np.bool_)):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value / 2 if value else 0.25
    if isinstance(value, str):
        return None  # no alternative known: the table above must name one
    return None


def _data(cls):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    if not is_classifier(cls()):
        return X, X @ [1.0, -2.0, 0.5] + np.sin(X[:, 0])
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    if "unlabeled" in cls().get_params():
        y[rng.random(60) < 0.3] = -1
    return X, y


def _outputs(model, X):
    return {name: getattr(model, name)(X) for name in ("predict", "decision_function",
                                                        "predict_proba")
            if hasattr(model, name)}


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_predictions_read_fitted_state_only(cls):
    """set_params after fit moves no prediction, bit for bit (before: activation='relu'
    changed ELM and OS-ELM predictions, direct_links=True broke them with a matmul error,
    preprocessing changed a BLS's)."""
    X, y = _data(cls)
    model = _small(cls).fit(X, y)
    expected = _outputs(model, X)
    for name, value in model.get_params(deep=False).items():
        other = _other(name, value)
        assert other is not None, f"{cls.__name__}.{name}: give it an alternative in OTHER"
        changed = copy.deepcopy(model).set_params(**{name: other})
        got = _outputs(changed, X)
        for method, out in expected.items():
            assert np.array_equal(got[method], out), f"{cls.__name__}: {name}={other!r} " \
                f"moved {method}"


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_parameter_has_a_constraint(cls):
    """Each public parameter is in ``_parameter_constraints``, which fit checks (before:
    BLSRegressorCV(shared_layer='no') was accepted and read as True)."""
    params = set(cls().get_params(deep=False))
    missing = params - set(getattr(cls, "_parameter_constraints", {}))
    assert not missing, f"{cls.__name__}: no constraint for {sorted(missing)}"


@pytest.mark.parametrize("cls, grow", [(fastelm.OSELMClassifier, True),
                                       (fastelm.FOSELMClassifier, True),
                                       (fastelm.BLSClassifier, False)])
def test_first_partial_fit_without_classes_says_what_to_pass(cls, grow):
    """Issue 25 item 13: the first partial_fit without ``classes`` says what to pass, and
    classes='grow' where the estimator takes it (it was scikit-learn's bare "classes must be
    passed on the first call to partial_fit.")."""
    X, y = _data(cls)
    message = r"^classes must be passed on the first call to partial_fit: every label ever " \
              r"to appear, e\.g\. classes=np\.unique\(y_all\)"
    with pytest.raises(ValueError, match=message + (", or classes='grow'" if grow else "$")):
        _small(cls).partial_fit(X, y)


def _integer_parameters(cls):
    """The parameters whose constraints hold an interval of integers."""
    from numbers import Integral

    from sklearn.utils._param_validation import Interval

    return sorted(name for name, constraints in cls._parameter_constraints.items()
                  if any(isinstance(c, Interval) and c.type is Integral for c in constraints))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_every_integer_parameter_refuses_a_bool(cls):
    """Issue 25 item 14: True is not a count or a seed. Every integer parameter (and
    hidden_sizes' entries) refuses a bool in one line naming it (scikit-learn's Interval takes
    True as 1: n_windows=True built one window, n_generations=True ran one, random_state=True
    seeded 1, nodes_per_window=True died with "an integer is required")."""
    X, y = _data(cls)
    names = _integer_parameters(cls)
    assert names, f"{cls.__name__}: no integer parameter found"
    if "hidden_sizes" in cls().get_params():
        names.append("hidden_sizes")
    for name in names:
        value = [True] if name == "hidden_sizes" else True
        model = _small(cls).set_params(**{name: value})
        with pytest.raises(ValueError, match=rf"\b{name}\b.*True") as info:
            model.fit(X, y)
        assert "\n" not in str(info.value)


def test_integer_arguments_of_methods_refuse_a_bool():
    """The same rule for arguments: add_enhancement_nodes, prequential's chunk_size."""
    from fastelm.stream import prequential

    X, y = _data(fastelm.BLSClassifier)
    model = _small(fastelm.BLSClassifier).fit(X, y)
    with pytest.raises(ValueError, match="n_new.*True"):
        model.add_enhancement_nodes(True)
    with pytest.raises(ValueError, match="chunk_size.*True"):
        prequential(_small(fastelm.OSELMClassifier), X, y, chunk_size=True)


INCREMENTAL = [fastelm.OSELMRegressor, fastelm.OSELMClassifier, fastelm.FOSELMRegressor,
               fastelm.FOSELMClassifier, fastelm.BLSRegressor, fastelm.BLSClassifier]


@pytest.mark.parametrize("cls", INCREMENTAL, ids=lambda c: c.__name__)
def test_empty_input_to_an_incremental_method_is_a_no_op_or_one_line(cls):
    """Issue 25 item 14: no rows to partial_fit, add_rows, forget or remove_rows is a one-line
    error (scikit-learn's "Found array with 0 sample(s)") or changes nothing (remove_rows of
    no row; it was "range() arg 3 must not be zero")."""
    X, y = _data(cls)
    model = _small(cls).fit(X, y)
    before = _outputs(model, X)
    empty_X, empty_y = X[:0], y[:0]
    calls = [(m, (empty_X, empty_y)) for m in ("partial_fit", "add_rows", "forget")]
    calls += [("remove_rows", ([],)), ("remove_rows", (np.zeros(len(X), dtype=bool),))]
    for method, args in calls:
        if not hasattr(model, method):
            continue
        try:
            getattr(model, method)(*args)
        except ValueError as error:
            assert "0 sample(s)" in str(error) and "\n" not in str(error), (method, error)
        after = _outputs(model, X)
        assert all(np.array_equal(after[k], before[k]) for k in before), method
