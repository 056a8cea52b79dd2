"""Shared estimator plumbing: the random hidden layer, its ridge readout, target coding.

Every fastelm network is "random hidden layer + linear readout". ``BaseRandomLayerReadout``
owns both: the layer's parameters and weights (W, b, g), the readout beta, and the path from
training rows to beta through ``fastelm._gram`` (in memory or Dask, the estimator never knows
which). ``RegressorOutputs`` and ``ClassifierOutputs`` turn targets into the matrix T and
readout scores back into predictions.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import softmax
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import _check_partial_fit_first_call, check_classification_targets
from sklearn.utils.validation import (_check_feature_names, _check_n_features, check_is_fitted,
                                      column_or_1d)

from ._gram import readout_block
from ._hidden import (HiddenMap, check_activation, check_dtype, check_generator,
                      check_weight_scale, random_weights)
from ._rows import ArrayRows, dask_feature_probe, dask_rows, is_dask_input, map_rows
from ._targets import TargetCoding, check_two_classes
from ._validation import (ACTIVATION, DTYPE, NONNEGATIVE, POSITIVE_INT, RANDOM_STATE,
                          WEIGHT_SCALE, DType, RandomState, check_memory, validate_data)

if TYPE_CHECKING:
    import dask.array


def fit_bytes(n_hidden: int, n_features: int, dtype: DType, n_rows: int | None = None
              ) -> float:
    """The largest arrays of a random-layer fit, in bytes: W and b ((d + 1)·L in ``dtype``) and
    the float64 ridge system with its Cholesky factor, 2·m² with m = min(N, L) (the primal or
    dual form; m = L for a stream, whose recursive ridge is L×L whatever the chunk)."""
    m = n_hidden if n_rows is None else min(n_rows, n_hidden)
    return np.dtype(dtype).itemsize * (n_features + 1) * float(n_hidden) + 2 * 8 * float(m) ** 2


class BaseRandomLayerReadout(BaseEstimator):
    """A random hidden layer H = g(XW + b) and its ridge readout beta.

    Subclasses mix in ``RegressorOutputs`` or ``ClassifierOutputs`` for the targets; their
    ``fit`` gets the readout's Gram sums from a row source (``fastelm._rows``).

    Parameters
    ----------
    n_hidden : int, default=100
        Hidden nodes L.
    activation : str, default='tanh'
        g (``fastelm._hidden.ACTIVATIONS``).
    alpha : float, default=1e-3
        Ridge penalty of the readout ('gcv' where a subclass chooses it, as the ELMs do).
    random_state : int, numpy Generator, RandomState or None
        Seeds W, b.
    dtype : {'float64', 'float32'}, default='float64'
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s) (b ~ U(-1, 1) always); 'auto' is 1/√d.

    Attributes
    ----------
    W_ : ndarray of shape (d, L)
    b_ : ndarray of shape (L,)
    weight_scale_ : float, the s W_ was drawn with
    beta_ : ndarray of shape (L, m)
    n_features_in_ : int
    """

    _parameter_constraints = {"n_hidden": POSITIVE_INT, "activation": ACTIVATION,
                              "alpha": NONNEGATIVE, "random_state": RANDOM_STATE, "dtype": DTYPE,
                              "weight_scale": WEIGHT_SCALE}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh",
                 alpha: float | str = 1e-3, random_state: RandomState = None,
                 dtype: DType = "float64", weight_scale: str | float = "auto"):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.random_state = random_state
        self.dtype = dtype
        self.weight_scale = weight_scale

    def _check_params(self):
        """Check every parameter against ``_parameter_constraints`` (and the relations between
        them, in subclasses); returns the compute dtype."""
        self._validate_params()
        return check_dtype(self.dtype)

    def _draw_weights(self, n_features, dtype, n_rows=None):
        """Draw W_, b_ (after ``check_memory`` on the fit's size); returns the Generator so
        subclasses can go on drawing from it."""
        check_memory(fit_bytes(self.n_hidden, n_features, dtype, n_rows), type(self).__name__,
                     f"n_hidden={self.n_hidden}")
        rng = check_generator(self.random_state)
        self._fix_layout()
        self.weight_scale_ = check_weight_scale(self.weight_scale, n_features)
        self.W_, self.b_ = random_weights(rng, n_features, self.n_hidden, dtype,
                                          self.weight_scale_)
        return rng

    def _fix_layout(self):
        """Keep what prediction reads as fitted state: ``activation_`` (and, where the class
        has the parameter, ``direct_links_``), so ``set_params`` after fit changes nothing a
        prediction sees."""
        self.activation_ = self.activation
        self.direct_links_ = bool(getattr(self, "direct_links", False))

    def __setstate__(self, state):
        if "W_" in state:  # pickled before the layout was fitted state
            state.setdefault("activation_", state.get("activation", "tanh"))
            state.setdefault("direct_links_", bool(state.get("direct_links", False)))
        super().__setstate__(state)

    def _feature_map(self):
        """The readout inputs' map A = g(XW + b) of the fitted layer."""
        return HiddenMap(self.W_, self.b_, check_activation(self.activation_))

    def _hidden(self, X):
        return self._feature_map().transform(X)

    def _scores(self, X):
        """Readout outputs H beta for new rows (n×m)."""
        check_is_fitted(self, "beta_")
        X = validate_data(self, X, reset=False, dtype=self.W_.dtype)
        return self._hidden(X) @ self.beta_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


def _refuse_dask(estimator):
    raise TypeError(f"{type(estimator).__name__} does not take Dask collections; the ELM, "
                    "OS-ELM and BLS estimators do")


class _Outputs:
    """Training rows → (rows, target coding); readout scores → predictions, in memory or
    block by block on Dask workers."""

    # set by the estimator's fit (declared for the type checker)
    beta_: np.ndarray
    classes_: np.ndarray

    def _training_rows(self, X, y, dtype, reset, classes=None):
        """(rows, coding): the training rows as a row source of ``fastelm._gram`` (in memory,
        validated; or Dask) and the target coding y → T. ``reset``: first fit (features and
        targets are learned), else checked against the fitted ones."""
        if is_dask_input(X, y):
            rows = dask_rows(X, y)
            _check_feature_names(self, rows.feature_probe, reset=reset)
            _check_n_features(self, rows.feature_probe, reset=reset)
        else:
            rows = ArrayRows(*self._validate_rows(X, y, dtype, reset))
        return rows, self._target_coding(rows, dtype, reset, classes)

    def _validate_Xy(self, X, y, dtype, reset, classes=None):
        """(X, T) in memory, validated, targets coded."""
        if is_dask_input(X, y):
            _refuse_dask(self)
        rows, coding = self._training_rows(X, y, dtype, reset, classes)
        return rows.X, coding(rows.y)

    def _predict(self, X, finish, n_columns, out_dtype):
        """finish(readout scores) for rows X; Dask input (estimators with a ``_feature_map``):
        block by block on the workers, a dask array (``n_columns`` None: 1-D)."""
        if not is_dask_input(X):
            return finish(self._scores(X))
        if not hasattr(self, "_feature_map"):
            _refuse_dask(self)
        probe = dask_feature_probe(X)
        _check_feature_names(self, probe, reset=False)
        _check_n_features(self, probe, reset=False)
        feature_map = self._feature_map()
        block = partial(readout_block, feature_map, self.beta_, finish)
        return map_rows(block, X, feature_map.dtype, n_columns, out_dtype)


def _regression_output(scores, ravel):
    return scores.ravel() if ravel else scores


def _label_of_largest(scores, classes):
    return classes[np.argmax(scores, axis=1)]


def _decision(scores):
    return scores[:, 1] - scores[:, 0] if scores.shape[1] == 2 else scores


def _softmax(scores):
    return softmax(scores.astype(np.float64), axis=1)


class RegressorOutputs(_Outputs):
    """Targets y (n,) or (n, m) ↔ T (n×m); predictions keep y's dimensionality."""

    def _validate_rows(self, X, y, dtype, reset):
        return validate_data(self, X, y, reset=reset, dtype=dtype, multi_output=True,
                             y_numeric=True)

    def _target_coding(self, rows, dtype, reset, classes=None):
        self._check_target_shape(rows.y_ndim, rows.n_outputs, reset)
        return TargetCoding(dtype, rows.n_outputs)

    def _check_target_shape(self, ndim, n_outputs, reset):
        """First fit: remember whether y was 1-D. Later: the same kind of y (a column counts as
        1-D) with the fitted number of outputs."""
        if reset:
            self._y_1d = ndim == 1
            return
        if (ndim == 1) != self._y_1d and not (ndim == 2 and n_outputs == 1):
            raise ValueError(f"y has {ndim} dimensions; earlier targets had "
                             f"{1 if self._y_1d else 2}")
        if n_outputs != self._n_outputs():
            raise ValueError(f"y has {n_outputs} outputs; the model was fitted with "
                             f"{self._n_outputs()}")

    def _n_outputs(self):
        """Columns m of the readout; an OS-ELM's from its state, without solving for beta."""
        rls = getattr(self, "rls_", None)
        return self.beta_.shape[1] if rls is None else rls.n_outputs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    def predict(self, X: ArrayLike) -> np.ndarray | dask.array.Array:
        """Predicted targets H(X) beta, shape (n,) or (n, m) like the training y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection

        Returns
        -------
        y : ndarray of shape (n_samples,) or (n_samples, n_outputs) (dask array for Dask X)
        """
        check_is_fitted(self, "beta_")
        return self._predict(X, partial(_regression_output, ravel=self._y_1d),
                             None if self._y_1d else self._n_outputs(), self.beta_.dtype)


class ClassifierOutputs(_Outputs):
    """Class labels ↔ one-hot targets T (n×n_classes, 0/1); scores → labels and probabilities."""

    def _validate_rows(self, X, y, dtype, reset):
        X, y = validate_data(self, X, y, reset=reset, dtype=dtype)
        y = column_or_1d(y, warn=True)
        if y.dtype.kind not in "biu":  # integer labels are always classes: no np.unique
            check_classification_targets(y)
        return X, y

    def _check_first_call(self, X, y, classes):
        """scikit-learn's partial_fit rule: ``classes`` on the first call, the same ones later
        (Dask input may omit them on the first call: they are found by a pass)."""
        if classes is None and getattr(self, "classes_", None) is None and \
                not is_dask_input(X, y):
            raise ValueError("classes must be passed on the first call to partial_fit: every "
                             "label ever to appear, e.g. classes=np.unique(y_all)"
                             + getattr(self, "_classes_alternative", ""))
        if classes is not None or not is_dask_input(X, y):
            _check_partial_fit_first_call(self, classes)

    def _target_coding(self, rows, dtype, reset, classes=None):
        if reset:
            found = rows.labels() if classes is None else np.unique(np.asarray(classes))
            self.classes_ = check_two_classes(found, type(self).__name__)
        return TargetCoding(dtype, len(self.classes_), self.classes_)

    def decision_function(self, X: ArrayLike) -> np.ndarray | dask.array.Array:
        """Readout scores.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection

        Returns
        -------
        scores : ndarray of shape (n_samples, n_classes), or (n_samples,) for two classes:
            score(class 1) − score(class 0)
        """
        check_is_fitted(self, "beta_")
        k = len(self.classes_)
        return self._predict(X, _decision, None if k == 2 else k, self.beta_.dtype)

    def predict(self, X: ArrayLike) -> np.ndarray | dask.array.Array:
        """The class with the largest readout score.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection

        Returns
        -------
        labels : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "beta_")
        return self._predict(X, partial(_label_of_largest, classes=self.classes_), None,
                             self.classes_.dtype)

    def predict_proba(self, X: ArrayLike) -> np.ndarray | dask.array.Array:
        """softmax of the readout scores: rows sum to one, argmax agrees with ``predict``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self, "beta_")
        return self._predict(X, _softmax, len(self.classes_), np.float64)
