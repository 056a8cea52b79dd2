"""Shared estimator plumbing: parameters, validation, the random hidden layer and target coding.

Every fastelm network is "random hidden layer + linear readout". ``BaseRandomLayer`` owns the
first half (W, b, g); the readout is the estimator's own. ``RegressorOutputs`` and
``ClassifierOutputs`` turn targets into the matrix T and readout scores back into predictions.
"""
import numbers

import numpy as np
from scipy.special import softmax
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .dask import is_dask_input, predict_dask
from ._gram import HiddenMap
from ._hidden import check_activation, check_dtype, check_generator, random_weights


def check_positive_int(value, name):
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, bool) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_nonnegative(value, name):
    if not isinstance(value, (numbers.Real, np.number)) or isinstance(value, bool) \
            or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return float(value)


class BaseRandomLayer(BaseEstimator):
    """Parameters and state of the random hidden layer H = g(XW + b).

    Learned attributes: ``W_`` (d×L), ``b_`` (L), ``n_features_in_``.
    """

    def __init__(self, n_hidden=100, activation="tanh", alpha=1e-3, random_state=None,
                 dtype="float64"):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.random_state = random_state
        self.dtype = dtype

    def _check_params(self):
        check_positive_int(self.n_hidden, "n_hidden")
        check_nonnegative(self.alpha, "alpha")
        check_activation(self.activation)
        return check_dtype(self.dtype)

    def _draw_weights(self, n_features, dtype):
        """Draw W_, b_; returns the Generator so subclasses can go on drawing from it."""
        rng = check_generator(self.random_state)
        self.W_, self.b_ = random_weights(rng, n_features, self.n_hidden, dtype)
        return rng

    def _feature_map(self):
        """The readout inputs' map A = g(XW + b) of the fitted layer."""
        return HiddenMap(self.W_, self.b_, check_activation(self.activation))

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


class RegressorOutputs:
    """Targets y (n,) or (n, m) ↔ T (n×m); predictions keep y's dimensionality."""

    def _validate_Xy(self, X, y, dtype, reset):
        X, y = validate_data(self, X, y, reset=reset, dtype=dtype, multi_output=True,
                             y_numeric=True)
        T = y.reshape(len(y), -1).astype(dtype, copy=False)
        self._check_target_shape(y.ndim, T.shape[1], reset)
        return X, T

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

    def predict(self, X):
        """Predicted targets H(X) beta, shape (n,) or (n, m) like the training y."""
        if is_dask_input(X):
            return predict_dask(self, X, "predict")
        scores = self._scores(X)
        return scores.ravel() if self._y_1d else scores


def one_hot(y, classes, dtype):
    """T (n × n_classes): T[i, k] = 1 where y[i] = classes[k] (classes sorted); a label not in
    ``classes`` is a ValueError."""
    index = np.searchsorted(classes, y)
    index[index == len(classes)] = 0
    unseen = classes[index] != y
    if unseen.any():
        raise ValueError(f"y contains labels not in classes_ {classes.tolist()}: "
                         f"{np.unique(y[unseen]).tolist()}")
    T = np.zeros((len(y), len(classes)), dtype=dtype)
    T[np.arange(len(y)), index] = 1
    return T


class ClassifierOutputs:
    """Class labels ↔ one-hot targets T (n×n_classes, 0/1); scores → labels and probabilities."""

    def _validate_Xy(self, X, y, dtype, reset, classes=None):
        X, y = validate_data(self, X, y, reset=reset, dtype=dtype)
        y = column_or_1d(y, warn=True)
        check_classification_targets(y)
        if reset:
            self.classes_ = np.unique(y) if classes is None else np.unique(np.asarray(classes))
            if len(self.classes_) < 2:
                raise ValueError(f"{type(self).__name__} needs samples of at least 2 classes; "
                                 f"got only one class: {self.classes_[0]!r}")
        return X, one_hot(y, self.classes_, dtype)

    def decision_function(self, X):
        """Readout scores: (n, n_classes), or for two classes score(class 1) − score(class 0)."""
        if is_dask_input(X):
            return predict_dask(self, X, "decision_function")
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """The class with the largest readout score."""
        if is_dask_input(X):
            return predict_dask(self, X, "predict")
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_proba(self, X):
        """softmax of the readout scores: rows sum to one, argmax agrees with ``predict``."""
        if is_dask_input(X):
            return predict_dask(self, X, "predict_proba")
        return softmax(self._scores(X).astype(np.float64), axis=1)
