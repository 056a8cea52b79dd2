"""The search base of the CV estimators: the grids, the splits, the scorers, ``cv_results_`` and
the best point (docs/algorithms.md §1, §5).

Every grid point (penalty, hidden size, direct links) is scored on every split from the fold's
values (``_fold_sums._fold_grid``): by default minus the mean squared error of the readout
targets, from the fold's sums. Scorers other than the default mean squared error
of the readout targets cost one more pass over each fold's rows: the fold's A, then the
predictions of every grid point, handed to the scorer through a copy of the estimator that
returns them (``_scored_view``). The scores are laid out as ``GridSearchCV``'s
``cv_results_``, ranked as it ranks them.

``cv='loo'`` and ``cv='gcv'`` score every point instead by the hat-matrix algebra of ``fastelm._hat``
(exact leave-one-out, generalised cross-validation) on all rows, one eigendecomposition per
link setting and width: one "split" in ``cv_results_``.

Default penalties (``alphas=None``, ``regs=None``) are scaled by the data:
α_k = s·10^k, k = −8, −7.5, …, 3 (23 values), s = tr(AᵀA) / min(n, P) for the readout inputs A
(n×P) of the fit's rows at the widest width searched (the mean eigenvalue of AᵀA when P ≤ n,
of AAᵀ when P > n), read off sums the search makes anyway (``scaled_grid``). The widest link
setting is searched first so that s is known before any penalty is scored.
"""
from __future__ import annotations

import copy
import itertools
import numbers
import warnings
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv

from .._validation import Interval, StrOptions, check_positive_int
from ..bls import serial_if_small
from ._fold_sums import _fold_grid
from .._hat import HAT_CV, PENALTY_EXPONENTS, scaled_grid

# the search parameters' constraints (their values are checked further by ``check_grid``,
# ``check_bool_grid``, ``check_cv_string`` and the scorer when fit reads them)
GRID: list = [None, "array-like", Interval(numbers.Real, 0, None, closed="neither")]
SEARCH_CONSTRAINTS: dict[str, list] = {
    "cv": [None, "cv_object", str],  # which strings: check_cv_string's message
    "scoring": [None, str, callable, list, tuple, dict],  # several: _check_scorer's message
    "error_score": [StrOptions({"raise"}), numbers.Real],
    "direct_links": ["boolean", "array-like"],
}

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator

    # the cv and scoring parameters, as scikit-learn's searches take them
    CV: TypeAlias = int | BaseCrossValidator | Iterable[tuple[ArrayLike, ArrayLike]] | None
    Scoring: TypeAlias = str | Callable[..., float] | None


# --------------------------------------------------------------------------- grids


def default_hat_kind(cv, kind, rows, widest):
    """The kind ``cv=None`` scores by: GCV when the widest readout inputs searched are at most
    as many as the rows (the primal form, where GCV is read off the Gram sums at O(P·m) per
    penalty and agrees with exact leave-one-out: their mean leverage P/n ≤ 1 replaces h_ii),
    exact leave-one-out otherwise (wider than the rows GCV nears interpolation, tr H → n, and
    was measured up to 11 points worse: docs/algorithms.md §1). A given ``cv`` stays."""
    return "gcv" if cv is None and kind == "loo" and widest <= rows else kind


def check_cv_string(cv, scoring, rows_in_memory=True):
    """'loo' or 'gcv' (default scoring only), else the cv as given; ValueError otherwise.

    ``cv=None`` is the hat-matrix algebra ('loo' here, as scikit-learn's ``RidgeCV`` defaults
    to its efficient leave-one-out; ``default_hat_kind`` may make it 'gcv') when it can be:
    with the default scoring on rows in memory; otherwise None (``check_cv``'s 5 folds,
    stratified for classifiers)."""
    if cv is None:
        return "loo" if scoring is None and rows_in_memory else None
    if not isinstance(cv, str):
        return cv
    if cv not in HAT_CV:
        raise ValueError(f"cv={cv!r}: strings accepted are 'loo' (exact leave-one-out) and "
                         f"'gcv' (generalised cross-validation)")
    if scoring is not None:
        raise ValueError(f"cv={cv!r} scores by minus the mean squared error of the readout "
                         f"targets only; got scoring={scoring!r} (use scoring=None, or a "
                         f"splitter such as cv=LeaveOneOut() for another scorer)")
    return cv


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
    if isinstance(scoring, (list, tuple, set, dict)):
        raise ValueError(f"scoring={scoring!r}: one metric only (a string or a callable); for "
                         f"several metrics use GridSearchCV(..., scoring={scoring!r}, "
                         "refit=NAME) over the base estimator")
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

    def _restore_feature_names(self, names):
        """Put back ``feature_names_in_`` (``names``: those of the DataFrame fit was given,
        or None), which the refit dropped when it validated fit's array again; self."""
        if names is not None:
            self.feature_names_in_ = names
        return self

    def _check_classes(self, y, folds):
        if not is_classifier(self):
            return
        for k, (train, _) in enumerate(folds):
            missing = np.setdiff1d(self.classes_, np.unique(y[train]))
            if len(missing):
                raise ValueError(f"cv: the training rows of split {k} lack classes "
                                 f"{missing.tolist()}; every training split needs every class")

    def _scale_penalties(self, trace, rows, width):
        """Set the data-scaled default penalties from tr(AᵀA) of the widest readout inputs
        (rows × width) if ``self._alphas`` is still None (``scaled_grid``); ``trace`` is a
        callable returning it, called only then."""
        if self._alphas is None:
            self._alphas = scaled_grid(trace(), rows, width)

    def _passes(self, links, scales):
        """(pass, link) pairs in the order they run: per weight scale (``scales``: an ELM CV's
        searched scales, or None), the widest link setting (direct links) first, each scale's
        layer set by ``self._use_scale``; pass = scale index · len(links) + link index
        (``_grid``). The data-scaled default penalties are read off the first pass's sums
        (module docstring)."""
        order = sorted(range(len(links)), key=lambda li: not links[li])
        for si in range(len(scales or [None])):
            if scales is not None:
                self._use_scale(si)
            for li in order:
                yield si * len(links) + li, links[li]

    def _search(self, X, y, T, sizes, links, scorer, folds, template, scales=None):
        """Score every grid point on every split; store cv_results_ and the best point;
        returns the best (pass, penalty, size) indices (``_passes``).

        The penalties are ``self._alphas``: a list, or None until the first fold of the widest
        link setting sets the data-scaled default (``scaled_grid``)."""
        n_penalties = len(PENALTY_EXPONENTS) if self._alphas is None else len(self._alphas)
        n_splits = len(folds)
        table = np.empty((len(scales or [None]) * len(links), n_penalties, len(sizes or [0]),
                          n_splits))
        failed = {}  # split -> its first scoring error
        for li, link in self._passes(links, scales):
            for k, fold in enumerate(self._folds_data(X, y, T, folds, link, scorer is not None)):
                with serial_if_small(fold.work):
                    grid = _fold_grid(fold, self._alphas, scorer is not None)
                for a, row in enumerate(grid):
                    for s, value in enumerate(row):
                        if scorer is None:
                            table[li, a, s, k] = -value
                        else:
                            table[li, a, s, k] = self._score(
                                scorer, _scored_view(template, value), X[fold.test],
                                y[fold.test], k, failed)
        result = self._store_results(table, sizes, links, scales)
        if failed:
            _warn_failed(self.scoring, self.error_score, failed, n_splits,
                         np.isfinite(self.cv_results_["mean_test_score"]).any())
        return result

    def _score(self, scorer, view, X_test, y_test, split, failed):
        """``scorer(view, X_test, y_test)``; if it raises, ``error_score`` (its error kept in
        ``failed[split]``), or with error_score='raise' a ValueError naming the split."""
        try:
            return scorer(view, X_test, y_test)
        except Exception as error:
            if self.error_score == "raise":
                raise ValueError(f"scoring={self.scoring!r} failed on split {split} "
                                 f"({type(error).__name__}: {error})") from error
            failed.setdefault(split, error)
            return self.error_score

    def _search_hat(self, X, T, sizes, links, kind, scales=None):
        """cv='loo' or 'gcv': every grid point scored on all rows by ``fastelm._hat.hat_scores``,
        ``self._hat_table(X, T, link, kind)`` (penalties × sizes) per link setting, widest
        first; one split in ``cv_results_``."""
        n_penalties = len(PENALTY_EXPONENTS) if self._alphas is None else len(self._alphas)
        table = np.empty((len(scales or [None]) * len(links), n_penalties, len(sizes or [0]), 1))
        for li, link in self._passes(links, scales):
            table[li, :, :, 0] = self._hat_table(X, T, link, kind)
        return self._store_results(table, sizes, links, scales)

    def _store_results(self, table, sizes, links, scales=None):
        """cv_results_ and the best point from table[pass, penalty, size, split]; returns the
        best (pass, penalty, size) indices."""
        params, rows = self._grid(self._alphas, sizes, links, scales)
        n_splits = table.shape[-1]
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


def _warn_failed(scoring, error_score, failed, n_splits, any_finite):
    """One warning naming the splits whose scoring failed (``failed``: split -> first error),
    as ``GridSearchCV`` sets their scores to ``error_score``."""
    splits = sorted(failed)
    first = failed[splits[0]]
    named = ", ".join(map(str, splits[:10])) + (", ..." if len(splits) > 10 else "")
    reason = " ".join(str(first).split())
    warnings.warn(f"scoring={scoring!r} failed on split(s) {named} ({len(splits)} of "
                  f"{n_splits}; split {splits[0]}: {type(first).__name__}: {reason}); their "
                  f"scores are error_score={error_score!r}"
                  + ("" if any_finite else "; no grid point has a finite mean score, so "
                     "best_params_ is the first point"), UserWarning, stacklevel=4)


def _splits(cv, X, y, classifier):
    splitter = check_cv(cv, y, classifier=classifier)
    return [(np.asarray(tr), np.asarray(te)) for tr, te in splitter.split(X, y)]
