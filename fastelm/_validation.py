"""Parameter validation: the constraint pieces every estimator's ``_parameter_constraints``
table is made of, checked by scikit-learn's ``BaseEstimator._validate_params`` (once, at the top
of ``fit``) or its ``validate_params`` decorator for functions.

A bad value raises ``sklearn.utils._param_validation.InvalidParameterError`` (a ValueError and
a TypeError) naming the parameter, e.g. "The 'n_hidden' parameter of ELMRegressor must be an
int in the range [1, inf). Got 0 instead."
"""
import os
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval as _Interval
from sklearn.utils._param_validation import (HasMethods, Options,  # noqa: F401
                                             StrOptions,
                                             validate_parameter_constraints, validate_params)
from sklearn.utils.validation import validate_data as _sklearn_validate_data

from ._hidden import ACTIVATIONS, DTYPES


class Interval(_Interval):
    """scikit-learn's ``Interval``, except that an interval of integers refuses a bool (``True``
    is an ``Integral`` to Python, not a count or a seed to a user: ``n_windows=True`` built one
    window, ``random_state=True`` seeded 1)."""

    def is_satisfied_by(self, val):
        if self.type is Integral and isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)

POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
NONNEGATIVE_INT = [Interval(Integral, 0, None, closed="left")]
NONNEGATIVE = [Interval(Real, 0, np.inf, closed="left")]  # finite
POSITIVE = [Interval(Real, 0, np.inf, closed="neither")]
WEIGHT_SCALE = [StrOptions({"auto"}), *POSITIVE]  # finite
FRACTION = [Interval(Real, 0, 1, closed="both")]
OPEN_FRACTION = [Interval(Real, 0, 1, closed="neither")]
ACTIVATION = [StrOptions(set(ACTIVATIONS))]
DTYPE = [StrOptions(set(DTYPES)), Options(type, set(DTYPES.values())),
         Options(np.dtype, {np.dtype(t) for t in DTYPES.values()})]
# the types of the public API's annotations
RandomState = int | np.random.RandomState | np.random.Generator | None
DType = str | type | np.dtype
# any seed numpy's default_rng takes (sklearn's "random_state" stops at 2**32 - 1)
RANDOM_STATE = [None, Interval(Integral, 0, None, closed="left"), np.random.RandomState,
                np.random.Generator]


def check_parameter(value, name, constraints):
    """``value`` if it meets ``constraints``; otherwise an InvalidParameterError naming ``name``.

    For arguments of methods and functions; an estimator's own parameters are checked by its
    ``_parameter_constraints`` table.

    Parameters
    ----------
    value : object
    name : str
    constraints : list
        As in ``_parameter_constraints``, e.g. ``POSITIVE_INT``.

    Returns
    -------
    value
    """
    validate_parameter_constraints({name: constraints}, {name: value}, caller_name="fastelm")
    return value


def check_positive_int(value, name):
    """int(value) for an integer ≥ 1 (``check_parameter`` with ``POSITIVE_INT``)."""
    return int(check_parameter(value, name, POSITIVE_INT))


def check_nonnegative(value, name):
    """float(value) for a finite number ≥ 0 (``check_parameter`` with ``NONNEGATIVE``)."""
    return float(check_parameter(value, name, NONNEGATIVE))


def fixed_parameters(estimator, free=("random_state",)):
    """The parameters an incremental method must find as the fit left them (all but ``free``),
    copied where a caller could change them in place (lists, dicts, arrays)."""
    return {name: value.copy() if isinstance(value, (list, dict, np.ndarray)) else value
            for name, value in estimator.get_params(deep=False).items() if name not in free}


def _same(a, b):
    if a is b:
        return True
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays, or sequences holding them
        try:
            return bool(np.array_equal(a, b))
        except (TypeError, ValueError):
            return False


def check_unchanged(estimator, fixed, since):
    """ValueError naming the first parameter of ``fixed`` (``fixed_parameters``) changed with
    ``set_params`` since ``since`` (e.g. "fit"): an increment would mix two models."""
    for name, value in fixed.items():
        now = getattr(estimator, name)
        if not _same(now, value):
            raise ValueError(f"{name} changed from {value!r} to {now!r} since {since}; call "
                             "fit to start afresh")


def check_numeric_columns(X: object, owner: str) -> object:
    """``X`` unless it is a DataFrame with non-numeric columns (strings, categories), which
    fails with a ValueError naming them and suggesting one-hot encoding (scikit-learn's message
    would be "could not convert string to float: 'm'")."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "items"):
        return X
    # numpy dtypes and pandas extension dtypes (category, string, Int64) both have a kind
    bad = [str(name) for name, dtype in dtypes.items() if getattr(dtype, "kind", "O") not in "biuf"]
    if bad:
        raise ValueError(f"{owner} needs numeric inputs; column(s) {bad[:10]} of X are not "
                         "numeric: encode them first, e.g. one-hot with "
                         "sklearn.preprocessing.OneHotEncoder in a ColumnTransformer")
    return X


def validate_data(estimator, X="no_validation", y="no_validation", **kwargs):
    """scikit-learn's ``validate_data``, after ``check_numeric_columns`` on a DataFrame X."""
    check_numeric_columns(X, type(estimator).__name__)
    return _sklearn_validate_data(estimator, X, y, **kwargs)


# ---------------------------------------------------------------------------------------------
# memory

def available_memory() -> int | None:
    """Bytes of memory available to a new allocation now (Linux ``MemAvailable``, else free
    physical pages), or None when the platform does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def check_memory(nbytes: float, owner: str, parameters: str) -> None:
    """Refuse a fit whose largest arrays, estimated from its parameters and the data's shape
    (``nbytes``), exceed the memory available now, before anything is allocated: a ValueError
    naming ``parameters`` (the ones that set the size, e.g. "n_hidden=1000000000") and both
    figures, instead of a MemoryError (or the machine swapping) part-way through.

    Parameters
    ----------
    nbytes : int or float
        The estimate.
    owner : str
        The estimator's name.
    parameters : str
        What sets the size, as the user wrote it.
    """
    available = available_memory()
    if available is not None and nbytes > available:
        names = " or ".join(part.split("=")[0] for part in parameters.split(", "))
        raise ValueError(f"{owner} with {parameters} needs about {nbytes / 2**30:.1f} GiB of "
                         f"memory, more than the {available / 2**30:.1f} GiB available; lower "
                         f"{names}")
