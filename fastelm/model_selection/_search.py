"""The search base of the CV estimators: the grids, the splits, the scorers, ``cv_results_`` and
the best point (docs/algorithms.md §1, §5).

Every grid point (penalty, hidden size, direct links) is scored on every split from the fold's
values (``_fold_sums._fold_grid``): by default minus the mean squared error of the readout
targets, from the fold's sums. Scorers other than the default mean squared error
of the readout targets cost one more pass over each fold's rows: the fold's A, then the
predictions of every grid point, handed to the scorer through a copy of the estimator that
returns them (``_scored_view``). The scores are laid out as ``GridSearchCV``'s
``cv_results_``, ranked as it ranks them.
"""
from __future__ import annotations

import copy
import itertools
import numbers
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv

from .._validation import check_positive_int
from ..bls import serial_if_small
from ._fold_sums import _fold_grid

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator

    # the cv and scoring parameters, as scikit-learn's searches take them
    CV: TypeAlias = int | BaseCrossValidator | Iterable[tuple[ArrayLike, ArrayLike]] | None
    Scoring: TypeAlias = str | Callable[..., float] | None


# --------------------------------------------------------------------------- grids


def check_grid(values, name, integer=False, upper=None):
    """A non-empty list of finite positive numbers (positive ints ≤ ``upper``); ValueError
    naming ``name`` otherwise."""
    try:
        values = list(np.ravel(np.asarray(values, dtype=object)))
    except TypeError:
        values = None
    if not values:
        raise ValueError(f"{name} must be a non-empty list of positive numbers, got {values!r}")
    out = []
    for v in values:
        if integer:
            check_positive_int(v, name)
            v = int(v)
            if upper is not None and v > upper:
                raise ValueError(f"{name} contains {v}, above n_hidden={upper}")
        elif not isinstance(v, (numbers.Real, np.number)) or isinstance(v, bool) \
                or not np.isfinite(v) or not v > 0:
            raise ValueError(f"{name} must hold finite numbers > 0, got {v!r}")
        out.append(v if integer else float(v))
    return out


def check_bool_grid(value, name):
    """[value] for a bool, the list for a list of bools; ValueError otherwise."""
    values = [value] if isinstance(value, (bool, np.bool_)) else value
    try:
        values = [bool(v) for v in values if isinstance(v, (bool, np.bool_)) or 1 / 0]
    except (TypeError, ZeroDivisionError):
        values = []
    if not values:
        raise ValueError(f"{name} must be a bool or a non-empty list of bools, got {value!r}")
    return values


# --------------------------------------------------------------------------- scoring


def _check_scorer(scoring, base):
    """None (the mean squared error of the readout targets) or a scikit-learn scorer that the
    base estimator can serve; ValueError naming ``scoring`` otherwise."""
    if scoring is None:
        return None
    try:
        scorer = check_scoring(base, scoring=scoring)
    except (ValueError, TypeError) as error:
        raise ValueError(f"scoring={scoring!r}: {error}") from None
    methods = getattr(scorer, "_response_method", "predict")
    methods = [methods] if isinstance(methods, str) else list(methods)
    if not any(hasattr(base, m) for m in methods):
        raise ValueError(f"scoring={scoring!r} needs {' or '.join(methods)}, which "
                         f"{type(base).__name__} does not have")
    return scorer


def _scored_view(template, scores):
    """A copy of the fitted-looking ``template`` whose readout scores are ``scores``."""
    view = copy.copy(template)
    view._scores = lambda X: scores
    if not isinstance(getattr(type(view), "beta_", None), property):  # OS-ELM: fitted already
        view.beta_ = np.empty((0, scores.shape[1]), dtype=scores.dtype)  # marks it fitted
    return view


# --------------------------------------------------------------------------- the search


class _SearchCV:
    """Shared fit of the CV estimators: splits, grid, ``cv_results_``, the best point.

    Subclasses give ``_penalty`` ('alpha' or 'reg'), ``_size`` ('n_hidden' or None),
    ``_template()`` (a base estimator to score through) and ``_folds_data(...)`` (one
    ``_FoldData`` per split).
    """

    def _labels(self, y):
        """y as an array, labels 1-D for classifiers (validated by ``_validate_Xy`` already)."""
        y = np.asarray(y)
        return y.ravel() if is_classifier(self) and y.ndim == 2 else y

    def _grid(self, penalties, sizes, links, scales=None):
        """(params list in ``ParameterGrid`` order, index tuples (pass, penalty, size)).

        A pass is one (weight scale, direct links) pair, numbered scale index · len(links) +
        link index; ``scales`` (an ELM CV's searched weight scales, as given) or None.
        """
        grid, index = {self._penalty: penalties}, {self._penalty: range(len(penalties))}
        if self._size:
            grid[self._size], index[self._size] = sizes, range(len(sizes))
        if not isinstance(self.direct_links, (bool, np.bool_)):
            grid["direct_links"], index["direct_links"] = links, range(len(links))
        if scales is not None:
            grid["weight_scale"], index["weight_scale"] = scales, range(len(scales))
        keys = sorted(grid)
        rows = []
        for combo in itertools.product(*(index[k] for k in keys)):
            where = dict(zip(keys, combo))
            rows.append((where.get("weight_scale", 0) * len(links) +
                         where.get("direct_links", 0), where[self._penalty],
                         where.get(self._size, 0)))
        return list(ParameterGrid(grid)), rows

    def _check_classes(self, y, folds):
        if not is_classifier(self):
            return
        for k, (train, _) in enumerate(folds):
            missing = np.setdiff1d(self.classes_, np.unique(y[train]))
            if len(missing):
                raise ValueError(f"cv: the training rows of split {k} lack classes "
                                 f"{missing.tolist()}; every training split needs every class")

    def _search(self, X, y, T, penalties, sizes, links, scorer, folds, template, scales=None):
        """Score every grid point on every split; store cv_results_ and the best point; returns
        the best (pass, penalty, size) indices (``_grid``). With ``scales``, each scale's
        passes follow ``self._use_scale(index)`` (an ELM CV's layer of that weight scale)."""
        params, rows = self._grid(penalties, sizes, links, scales)
        n_splits = len(folds)
        passes = list(itertools.product(range(len(scales or [None])), links))
        table = np.empty((len(passes), len(penalties), len(sizes or [0]), n_splits))
        for li, (scale, link) in enumerate(passes):
            if scales is not None:
                self._use_scale(scale)
            for k, fold in enumerate(self._folds_data(X, y, T, folds, link, scorer is not None)):
                with serial_if_small(fold.work):
                    grid = _fold_grid(fold, penalties, scorer is not None)
                for a, row in enumerate(grid):
                    for s, value in enumerate(row):
                        if scorer is None:
                            table[li, a, s, k] = -value
                        else:
                            view = _scored_view(template, value)
                            table[li, a, s, k] = scorer(view, X[fold.test], y[fold.test])
        split_scores = np.array([table[r] for r in rows])  # (n_points, n_splits)
        results = {"params": params}
        for name in params[0]:
            results[f"param_{name}"] = np.ma.MaskedArray([p[name] for p in params],
                                                          mask=False, dtype=object)
        for k in range(n_splits):
            results[f"split{k}_test_score"] = split_scores[:, k]
        results["mean_test_score"] = split_scores.mean(axis=1)
        results["std_test_score"] = split_scores.std(axis=1)
        mean = results["mean_test_score"]
        order = np.where(np.isnan(mean), -np.inf, mean)
        ranks = np.empty(len(mean), dtype=np.int32)
        ranks[:] = [1 + np.sum(order > v) for v in order]  # 'min' ranking, like GridSearchCV
        results["rank_test_score"] = ranks
        self.cv_results_ = results
        self.best_index_ = int(np.flatnonzero(ranks == 1)[0])
        self.best_params_ = params[self.best_index_]
        self.best_score_ = float(mean[self.best_index_])
        self.n_splits_ = n_splits
        return rows[self.best_index_]


def _splits(cv, X, y, classifier):
    splitter = check_cv(cv, y, classifier=classifier)
    return [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y)]
