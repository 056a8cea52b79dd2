"""Confound and site removal fitted on training subjects only, as a Pipeline step.

:class:`ConfoundRegressor` takes X = [C | F]: the first ``n_confounds`` columns are each
subject's confounds (site indicators, age, sex, motion, ...), the others its features
(connectome edges). ``fit`` solves, on the training rows only, the least-squares regression
of every feature on the confounds and an intercept,

    B = argmin ‖F − [1 | C] B‖²   (minimum-norm solution when [1 | C] is rank deficient),

and ``transform`` returns the residuals F − [1 | C] B of any rows with those training
coefficients, so no test subject informs the correction. With one-hot site columns this is
per-site centring (each training site's mean removed; a site absent from training, as in
leave-one-site-out, gets the pooled intercept only); ``scale=True`` also divides each
feature by its per-site residual standard deviation (training rows of that site; the pooled
one for a site unseen in training).

Not in the reproduction's default models: on the ABIDE I development set (CC200 Fisher-z
correlations, 10-fold CV on site × diagnosis, first three folds) per-site centring lowered
the l2 logistic regression from 0.729, 0.694, 0.729 to 0.659, 0.671, 0.694 and BLS-CV from
0.682, 0.741 to 0.671, 0.682 (notes in docs/results/bls-fmri-abide/notes.md).

Examples
--------
>>> import numpy as np
>>> from sklearn.pipeline import make_pipeline
>>> from sklearn.preprocessing import OneHotEncoder
>>> from sklearn.linear_model import LogisticRegression
>>> from fastelm.confounds import ConfoundRegressor
>>> rng = np.random.default_rng(0)
>>> sites = rng.integers(0, 3, 60)
>>> C = OneHotEncoder(sparse_output=False).fit_transform(sites[:, None])
>>> F = rng.standard_normal((60, 10)) + 5.0 * sites[:, None]   # a site offset
>>> y = rng.integers(0, 2, 60)
>>> model = make_pipeline(ConfoundRegressor(n_confounds=3), LogisticRegression())
>>> model.fit(np.hstack([C, F]), y).predict(np.hstack([C, F])).shape
(60,)
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ._validation import check_positive_int

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["ConfoundRegressor"]


class ConfoundRegressor(TransformerMixin, BaseEstimator):
    """Residuals of the features after regressing out the leading confound columns, with
    coefficients fitted on the training rows (see the module docstring).

    Parameters
    ----------
    n_confounds : int, default=1
        The leading columns of X that are confounds; the transform returns the others.
    scale : bool, default=False
        Also divide each residual feature by its standard deviation within the row's group,
        the group being the row's first nonzero confound column among one-hot columns (use
        with one-hot site columns first); rows of no training group use the pooled one.

    Attributes
    ----------
    coef_ : (n_confounds + 1, n_features) intercept and confound coefficients
    scale_ : (n_groups + 1, n_features) residual standard deviations per confound column
        group, the pooled one last (``scale=True`` only)
    n_features_in_ : int
    """

    def __init__(self, n_confounds: int = 1, scale: bool = False):
        self.n_confounds = n_confounds
        self.scale = scale

    def _split(self, X):
        k = self.n_confounds
        design = np.hstack([np.ones((X.shape[0], 1)), X[:, :k]])
        return design, X[:, k:]

    def fit(self, X: ArrayLike, y: object = None) -> Self:
        """Fit B (and the per-group scales) on the training rows X."""
        check_positive_int(self.n_confounds, "n_confounds")
        X = validate_data(self, X, dtype=np.float64, reset=True)
        if X.shape[1] <= self.n_confounds:
            raise ValueError(f"X has {X.shape[1]} feature(s): n_confounds={self.n_confounds} "
                             "leaves no feature columns")
        design, F = self._split(X)
        self.coef_ = np.linalg.lstsq(design, F, rcond=None)[0]
        if self.scale:
            R = F - design @ self.coef_
            groups = self._groups(X)
            pooled = R.std(axis=0)
            scale = np.tile(pooled, (self.n_confounds + 1, 1))
            for g in range(self.n_confounds):
                rows = groups == g
                if rows.sum() > 1:
                    scale[g] = R[rows].std(axis=0)
            scale[scale < np.finfo(np.float64).eps] = 1.0
            self.scale_ = scale
        return self

    def _groups(self, X):
        """Each row's group: its first nonzero confound column (n_confounds when none)."""
        C = X[:, :self.n_confounds] != 0
        return np.where(C.any(axis=1), C.argmax(axis=1), self.n_confounds)

    def transform(self, X: ArrayLike) -> np.ndarray:
        """F − [1 | C] B for rows X (divided by their group's scale with ``scale``)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        design, F = self._split(X)
        R = F - design @ self.coef_
        if self.scale:
            R /= self.scale_[self._groups(X)]
        return R
