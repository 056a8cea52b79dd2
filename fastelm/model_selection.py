"""Model selection in one pass: exact cross-validation of the ridge penalty and the hidden size.

A ridge readout needs only the Gram sums of its inputs A and targets T (``fastelm._gram``,
docs/algorithms.md §1). With the sums S_f of each test fold f and their total S:

    training on every row but fold f:   S − S_f
    validation squared error of a beta:  ||A_f β − T_f||² = tr(T_fᵀT_f) − 2 tr(βᵀ A_fᵀT_f)
                                                            + tr(βᵀ A_fᵀA_f β)

so one pass over the rows serves every fold and every penalty. Hidden sizes come free as well:
the readout inputs of an ELM with k nodes are the leading p_k columns of those of the largest
layer (``fastelm._hidden.random_weights`` draws node by node), and the leading p×p block of the
Cholesky factor R of K = AᵀA + αI is the factor of K's leading block. So one factorisation per
(fold, α) gives every size: z = R⁻ᵀ c by forward substitution (its first p entries are the
prefix's), then β_p = R[:p, :p]⁻¹ z[:p].

Like the estimators (``fastelm._ridge.ridge_fit``), a fold whose training rows are fewer than
the readout inputs p takes the dual form β = Aᵀc, c = (AAᵀ + αI)⁻¹ T, and then no p×p matrix
is made (wide data: connectomes with direct links): one kernel K_p = A[:, :p] A[:, :p]ᵀ of all
n rows, grown by column blocks of A over the nested widths (``fastelm._gram.kernel_prefixes``);
per split, c from K_p[tr, tr] + αI and the validation scores K_p[te, tr] c; at the refit,
β = Aᵀc by column blocks (``fastelm._gram.dual_readout``). Memory O(n² + n·block) per width;
the primal sums are only formed up to the widest p ≤ n.

Dask inputs (``fastelm.dask``): y is brought in (one pass) to make the splits; each chunk's
task then returns the sums of its rows per test fold (``DaskRows.fold_gram_sums``), added in a
tree, and a scorer's validation rows are selected chunk by chunk (``DaskRows.take``). KFold-like
splits only (disjoint test folds, training rows their complement). When the dual form is needed
the rows are few and are gathered, as the estimators do.

Scorers other than the default mean squared error
of the readout targets cost one more pass over each fold's rows: the fold's A, then the
predictions of every grid point, handed to the scorer through a copy of the estimator that
returns them.

The refit on all rows at the chosen point solves from the same total S: no further pass.
``penalty_scores`` applies the same algebra to an online (OS-ELM) model's running sums.
"""
from __future__ import annotations

import copy
import itertools
import numbers
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import solve_triangular
from scipy.linalg.lapack import dpocon, dpotrf
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import ParameterGrid, check_cv
from sklearn.utils.validation import check_is_fitted

from ._base import BaseRandomLayerReadout, ClassifierOutputs, RegressorOutputs
from ._gram import BLOCK_BYTES, GramSums, dual_readout, gram_sums, kernel_prefixes
from ._hidden import (DirectLinksMap, HiddenMap, check_activation, check_dtype, check_generator,
                      random_weights)
from ._ridge import RCOND_MIN, add_to_diagonal, serial_blas_if_small, spd_solve
from ._rows import is_dask_input
from ._validation import DType, RandomState, check_memory, check_positive_int
from .bls import BLSClassifier, BLSRegressor, _BLS, serial_if_small
from .elm import ELMClassifier, ELMRegressor, _OSELM

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator
    from typing_extensions import Self

    # the cv and scoring parameters, as scikit-learn's searches take them
    CV: TypeAlias = int | BaseCrossValidator | Iterable[tuple[ArrayLike, ArrayLike]] | None
    Scoring: TypeAlias = str | Callable[..., float] | None

__all__ = ["ELMRegressorCV", "ELMClassifierCV", "BLSRegressorCV", "BLSClassifierCV",
           "penalty_scores"]

ALPHAS = tuple(10.0 ** np.arange(-6, 4))  # default ELM penalties 1e-6 … 1e3
# default BLS penalties: the paper's C, then 1e-6 … 1e2
REGS = (2.0 ** -30,) + tuple(10.0 ** np.arange(-6, 3))


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


# --------------------------------------------------------------------------- the readout path


def _usable_prefixes(K, R, info, alpha, widths, check_rcond):
    """Per width p: may the leading p×p block of the Cholesky factor R of K + αI be used?

    It must have been factored (potrf stops at column ``info``) and, with ``check_rcond``, pass
    the test of ``fastelm._ridge.spd_factor``: LAPACK's 1-norm reciprocal condition estimate
    ≥ RCOND_MIN. The estimate is skipped where it cannot fail: λ_min(K_p + αI) ≥ α and
    ‖(K_p + αI)⁻¹‖₁ ≤ √p/α, so rcond ≥ α / (√p ‖K_p + αI‖₁) ≥ α / (√p ‖K_P + αI‖₁); a margin of
    4 covers the rounding of K.
    """
    P = K.shape[0]
    factored = P if info == 0 else info - 1
    bound = np.abs(K).sum(axis=0).max() + alpha if check_rcond else 0.0
    usable = []
    for p in widths:
        ok = p <= factored
        if ok and check_rcond and alpha < 4.0 * RCOND_MIN * np.sqrt(p) * bound:
            block = np.abs(K[:p, :p])
            diagonal = np.diag(K[:p, :p])
            norm = (block.sum(axis=0) - np.abs(diagonal) + np.abs(diagonal + alpha)).max()
            rcond, status = dpocon(np.asfortranarray(R[:p, :p]), norm)
            ok = status == 0 and rcond >= RCOND_MIN
        usable.append(ok)
    return usable


def prefix_ridge(sums, alpha, widths, check_rcond=True):
    """beta_p = (AᵀA[:p, :p] + αI)⁻¹ AᵀT[:p] for every p in ``widths``, from one Cholesky
    factorisation of the largest system (module docstring).

    Returns B (P × len(widths) × m, float64, P = max width): B[:, w] is beta of widths[w] in its
    first p rows and zeros below, so the blocks multiply full-width matrices. Back substitution
    with the full factor on z[:p] padded with zeros gives exactly the leading block's solution
    (the zero rows solve to zero), so every width is one triangular solve with many right-hand
    sides and no copy of a leading block. A leading block that is numerically singular is solved
    as ``fastelm._ridge.spd_solve`` does (a warned eigen pseudo-solve) with ``check_rcond``;
    without it (BLS) Cholesky is trusted whenever it succeeds, as
    ``spd_solve(..., rcond_min=0)`` does.
    """
    P = max(widths)
    K = sums.AtA[:P, :P]  # symmetric: Kᵀ (F-ordered if K is C-ordered) is the same matrix
    C = np.asarray(sums.AtT[:P], dtype=np.float64)
    m = C.shape[1]
    B = np.zeros((P, len(widths), m))
    with serial_blas_if_small(P):
        M = add_to_diagonal(np.array(K.T, dtype=np.float64, order="F"), alpha)
        R, info = dpotrf(M, lower=0, clean=1, overwrite_a=1)
        usable = _usable_prefixes(K, R, info, alpha, widths, check_rcond)
        good = [w for w, ok in enumerate(usable) if ok]
        if good:
            top = P if info == 0 else max(widths[w] for w in good)
            Rt = R if top == P else np.asfortranarray(R[:top, :top])
            z = solve_triangular(Rt, C[:top], trans="T", check_finite=False)
            Z = np.zeros((top, len(good), m))
            for j, w in enumerate(good):
                Z[:widths[w], j] = z[:widths[w]]
            B[:top, good] = solve_triangular(Rt, Z.reshape(top, -1), check_finite=False
                                             ).reshape(top, len(good), m)
        for w, ok in enumerate(usable):
            if not ok:
                p = widths[w]
                B[:p, w] = spd_solve(add_to_diagonal(np.array(K[:p, :p], dtype=np.float64),
                                                     alpha), C[:p])
    return B


def dual_ridge(kernel, T, alpha, check_rcond=True):
    """Dual coefficients (AAᵀ + αI)⁻¹ T (float64) of the ridge readout from the rows' full
    symmetric kernel AAᵀ, by ``prefix_ridge`` at the one width n (its condition test skips
    LAPACK's estimate where it cannot fail)."""
    T = np.asarray(T, dtype=np.float64)
    return prefix_ridge(GramSums(len(T), kernel, T, None), alpha, [len(T)], check_rcond)[:, 0]


def dual_grid(K_train, K_val, T_train, T_val, alphas, check_rcond, predictions):
    """Per α: the validation scores K_val c (n_f×m) with c = (K_train + αI)⁻¹ T_train, the dual
    form's A_f β for β = A_trᵀ c, or with ``predictions=False`` their mean squared error."""
    out = []
    for alpha in alphas:
        scores = K_val @ dual_ridge(K_train, T_train, alpha, check_rcond)
        out.append(scores if predictions else float(np.mean((scores - T_val) ** 2)))
    return out


def squared_errors(sums, B):
    """||A β_w − T||² for each block β_w = B[:, w] (``prefix_ridge``'s layout), from the sums of
    (A, T): tr(TᵀT) − 2 tr(β_wᵀAᵀT) + tr(β_wᵀ AᵀA β_w), with one product AᵀA B."""
    P, n, m = B.shape
    flat = B.reshape(P, n * m)
    quadratic = (flat * (sums.AtA[:P, :P] @ flat)).reshape(P, n, m).sum(axis=(0, 2))
    linear = (B * sums.AtT[:P, None, :]).sum(axis=(0, 2))
    return np.trace(sums.TtT) - 2.0 * linear + quadratic


class _FoldData:
    """One fold: its rows, the primal form's training and validation sums (float64) or
    validation features, and ``dual``: per width p solved in the dual form, ``dual_grid``'s
    values (one per α)."""

    def __init__(self, train, test, widths, check_rcond, work, train_sums=None, val_sums=None,
                 A_val=None, T_val=None, dual=None):
        self.train, self.test, self.n_train = train, test, len(train)
        self.widths, self.check_rcond, self.work = widths, check_rcond, work
        self.train_sums, self.val_sums = train_sums, val_sums
        self.A_val, self.T_val, self.dual = A_val, T_val, dual or {}


def _fold_grid(fold, alphas, predictions):
    """For each α (outer) and width p (inner): the validation MSE of the readout targets, or,
    with ``predictions``, the validation scores A_f[:, :p] β (n_f×m). Widths in ``fold.dual``
    come from there; the others from one Cholesky of the training sums per α."""
    primal = [p for p in fold.widths if p not in fold.dual]
    from_sums = not predictions and fold.val_sums is not None
    out = []
    for a, alpha in enumerate(alphas):
        if primal:
            B = prefix_ridge(fold.train_sums, alpha, primal, fold.check_rcond)
            if from_sums:
                errors = squared_errors(fold.val_sums, B) / (fold.val_sums.n * B.shape[2])
        row = []
        for p in fold.widths:
            if p in fold.dual:
                row.append(fold.dual[p][a])
                continue
            w = primal.index(p)
            if from_sums:
                row.append(float(errors[w]))
                continue
            scores = fold.A_val[:, :p] @ B[:p, w].astype(fold.A_val.dtype)
            row.append(scores if predictions else float(np.mean((scores - fold.T_val) ** 2)))
        out.append(row)
    return out


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

    def _grid(self, penalties, sizes, links):
        """(params list in ``ParameterGrid`` order, index tuples (link, penalty, size))."""
        grid, index = {self._penalty: penalties}, {self._penalty: range(len(penalties))}
        if self._size:
            grid[self._size], index[self._size] = sizes, range(len(sizes))
        if not isinstance(self.direct_links, (bool, np.bool_)):
            grid["direct_links"], index["direct_links"] = links, range(len(links))
        keys = sorted(grid)
        rows = []
        for combo in itertools.product(*(index[k] for k in keys)):
            where = dict(zip(keys, combo))
            rows.append((where.get("direct_links", 0), where[self._penalty],
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

    def _search(self, X, y, T, penalties, sizes, links, scorer, folds, template):
        """Score every grid point on every split; store cv_results_ and the best point."""
        params, rows = self._grid(penalties, sizes, links)
        n_splits = len(folds)
        table = np.empty((len(links), len(penalties), len(sizes or [0]), n_splits))
        for li, link in enumerate(links):
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


# --------------------------------------------------------------------------- ELM


class _ELMCV(_SearchCV, BaseRandomLayerReadout):
    _penalty, _size = "alpha", "n_hidden"
    _parameter_constraints = {k: v for k, v in
                              BaseRandomLayerReadout._parameter_constraints.items()
                              if k != "alpha"}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh",
                 alphas: Sequence[float] = ALPHAS, hidden_sizes: Sequence[int] | None = None,
                 direct_links: bool | Sequence[bool] = False, cv: CV = None,
                 scoring: Scoring = None, random_state: RandomState = None,
                 dtype: DType = "float64"):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alphas = alphas
        self.hidden_sizes = hidden_sizes
        self.direct_links = direct_links
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state
        self.dtype = dtype

    def _feature_map(self):
        fmap = HiddenMap(self.W_, self.b_, check_activation(self.activation))
        return DirectLinksMap(fmap, self.n_features_in_) if self.direct_links_ else fmap

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Score every (alpha, hidden size[, direct_links]) on every split from one pass of
        Gram sums, then refit the best on all rows from the same sums.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
            (with y one too, or in memory)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        L = check_positive_int(self.n_hidden, "n_hidden")
        code = check_activation(self.activation)
        dtype = check_dtype(self.dtype)
        alphas = check_grid(self.alphas, "alphas")
        sizes = check_grid([L] if self.hidden_sizes is None else self.hidden_sizes,
                           "hidden_sizes", integer=True, upper=L)
        links = check_bool_grid(self.direct_links, "direct_links")
        self._dask = None
        if is_dask_input(X, y):
            self._dask = self._training_rows(X, y, dtype, reset=True)
            y = self._dask[0].targets()
            T = self._dask[1](y)
            X = np.empty((len(y), 0))  # folds and scorers need only the row count
        else:
            X, T = self._validate_Xy(X, y, dtype, reset=True)
        n, d = len(T), self.n_features_in_
        y = self._labels(y)
        folds = _splits(self.cv, X, y, is_classifier(self))
        self._check_classes(y, folds)
        if self._dask is not None and self._width(max(sizes), d, any(links)) > min(
                len(tr) for tr, _ in folds):  # the dual form: few rows, gathered
            X, T = self._dask[0].gather(self._dask[1])
            self._dask = None
        widths = {self._width(k, d, link) for k in sizes for link in links}
        top = max(sizes)  # nodes drawn one by one: the first top are those of any L ≥ top
        check_memory(_cv_bytes(n, d, top, dtype, widths, min(len(tr) for tr, _ in folds),
                               len(folds)), type(self).__name__,
                     f"n_hidden={L}, max(hidden_sizes)={max(sizes)}")
        template = self._template()
        scorer = _check_scorer(self.scoring, template)
        W, b = random_weights(check_generator(self.random_state), d, top, dtype)
        self._layer, self._sizes, self._alphas = HiddenMap(W, b, code), sizes, alphas
        self._totals: dict = {}
        self._kernels: dict = {}
        link, a, s = self._search(X, y, T, alphas, sizes, links, scorer, folds, template)
        k = sizes[s]
        self.alpha_, self.n_hidden_, self.direct_links_ = alphas[a], k, links[link]
        self.W_, self.b_ = np.ascontiguousarray(W[:, :k]), b[:k].copy()
        p = self._width(k, d, links[link])
        if p <= n:  # primal, from the total sums (as wide as the widest p ≤ n)
            beta = prefix_ridge(self._totals[links[link]], self.alpha_, [p])[:, 0]
        else:  # dual, from the rows' kernel, beta = Aᵀc by column blocks
            coef = dual_ridge(self._kernels[links[link]][p], T, self.alpha_)
            beta = dual_readout(X, self._feature_map(), coef)
        self.beta_ = np.ascontiguousarray(beta, dtype=dtype)
        del self._layer, self._sizes, self._alphas, self._totals, self._kernels, self._dask
        return self

    @staticmethod
    def _width(k, d, link):
        return k + d if link else k

    def _prefix_map(self, k, d, link):
        """The feature map of the first k nodes (after the inputs with direct links)."""
        layer = self._layer
        fmap = HiddenMap(layer.W[:, :k], layer.b[:k], layer.activation)
        return DirectLinksMap(fmap, d) if link else fmap

    def _folds_data(self, X, y, T, folds, link, predictions):
        """Per split, each width p in the form of the smaller order, as the estimators choose:

        - primal (p ≤ training rows): training sums S − S_f and validation sums S_f from one
          pass (the test folds' sums; rows in no test fold are summed once more), of the
          widest such p only, so never wider than the rows; validation features only for a
          scorer;
        - dual (p > training rows): the kernel K_p of all rows (``kernel_prefixes``: one pass
          over column blocks serves every nested width), K_p[tr, tr] for the solve and
          K_p[te, tr] for the validation scores (``dual_grid``). K_p is kept for the refit.
        """
        n, d = len(T), self.n_features_in_
        widths = [self._width(k, d, link) for k in self._sizes]
        n_train = [len(tr) for tr, _ in folds]
        primal = [k for k, p in zip(self._sizes, widths) if p <= max(n_train + [n])]
        sums, pmap = [(None, None)] * len(folds), None
        if primal:
            pmap = self._prefix_map(max(primal), d, link)
            self._totals[link], sums = fold_sums(X, T, folds, pmap, self._dask)
        dual = [{} for _ in folds]
        kernels = self._kernels.setdefault(link, {})
        needed = [p for p in widths if p > min(n_train)]
        if needed:
            fmap = self._prefix_map(max(self._sizes), d, link)
            for p, K in kernel_prefixes(X, fmap, needed):
                if p > n:
                    kernels[p] = K.copy()  # the refit's, when p is chosen
                for f, (tr, te) in enumerate(folds):
                    if len(tr) < p:
                        dual[f][p] = dual_grid(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], T[tr],
                                               T[te], self._alphas, True, predictions)
        work = float(n) * (pmap.width if pmap else 0) ** 2  # the Gram pass: small → serial
        for (tr, te), (train_sums, val_sums), fold_dual in zip(folds, sums, dual):
            fold = _FoldData(tr, te, widths, True, work, train_sums, val_sums, T_val=T[te],
                             dual=fold_dual)
            if predictions and pmap is not None:
                fold.A_val = pmap.transform(X[te] if self._dask is None else
                                            self._dask[0].take(te, pmap.dtype))
            yield fold


def _cv_bytes(n, d, L, dtype, widths, n_train, n_folds):
    """The largest arrays of an ELM CV fit, in bytes: W and b, the primal form's float64 sums
    (per test fold, the total, a split's training sums and a factor: (F + 3)·P², P the widest
    width ≤ n) and the dual form's n×n kernels (one per width > n kept for the refit, the
    running one and a split's two blocks) with one column block of A."""
    primal = max([p for p in widths if p <= n], default=0)
    kept = sum(p > n for p in widths)
    dual = 8.0 * (kept + 3) * float(n) ** 2 + BLOCK_BYTES if max(widths) > n_train else 0.0
    return (np.dtype(dtype).itemsize * (d + 1) * float(L)
            + 8.0 * (n_folds + 3) * float(primal) ** 2 + dual)


def fold_sums(X, T, folds, fmap, dask_rows=None):
    """(total, [(S − S_f or the training rows' sums, S_f)] per split), float64 ``GramSums`` of
    A = fmap(X): one pass when the test folds are disjoint (rows in no test fold are summed
    once more) and each split's training rows are the complement of its test rows.

    ``dask_rows``: (``fastelm.dask.DaskRows``, target coding) whose rows X and T stand for: the
    same sums from one pass of per-chunk, per-fold sums on the workers (such splits only).
    """
    n = len(T)
    covered = np.zeros(n, dtype=bool)
    for _, te in folds:
        covered[te] = True
    disjoint = sum(len(te) for _, te in folds) == covered.sum()
    complement = all(len(tr) + len(te) == n and np.union1d(tr, te).size == n
                     for tr, te in folds)
    if dask_rows is not None:
        if not (disjoint and complement):
            raise ValueError("cv: with Dask inputs the test folds must be disjoint and each "
                             "training split their complement (KFold, StratifiedKFold ...)")
        fold_of = np.full(n, -1)
        for f, (_, te) in enumerate(folds):
            fold_of[te] = f
        *val, rest = dask_rows[0].fold_gram_sums(fmap, dask_rows[1], fold_of, len(folds))
        total = rest
        for s in val:
            total = total + s
        return total, [(total - s, s) for s in val]
    val = [gram_sums(X[te], T[te], fmap).astype(np.float64) for _, te in folds]
    if disjoint:
        total = GramSums.zeros(fmap.width, T.shape[1])
        for s in val:
            total = total + s
        if not covered.all():
            total = total + gram_sums(X[~covered], T[~covered], fmap).astype(np.float64)
    else:
        total = gram_sums(X, T, fmap).astype(np.float64)
    train = [total - s if complement else gram_sums(X[tr], T[tr], fmap).astype(np.float64)
             for (tr, _), s in zip(folds, val)]
    return total, list(zip(train, val))


_ELM_PARAMS_DOC = """
    Parameters
    ----------
    n_hidden : int, default=100
        L, the nodes of the one random layer whose prefixes are searched.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b).
    alphas : sequence of float > 0, default=(1e-6, 1e-5, …, 1e3)
        Ridge penalties searched.
    hidden_sizes : sequence of int in [1, n_hidden], optional
        Hidden sizes searched: the first k nodes of the layer (``ELMRegressor(n_hidden=k,
        random_state=s)`` has exactly those). Default: ``[n_hidden]``.
    direct_links : bool or list of bool, default=False
        A = [X, H] (the RVFL form, ``ELMRegressor(direct_links=True)``); a list is searched.
    cv : int, cross-validation splitter or iterable, default=None
        As ``sklearn.model_selection.check_cv``: 5 folds, stratified for classifiers.
    scoring : str or callable, default=None
        None: minus the mean squared error of the readout targets (one-hot for classifiers),
        computed from the Gram sums. Otherwise a scikit-learn scorer, computed on each split's
        predictions at every grid point (one more pass over each fold's rows).
    random_state : int, numpy Generator or None
        Seeds the layer, as in ``ELMRegressor``.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer; the sums are combined and solved in float64.

    Attributes
    ----------
    alpha_, n_hidden_, direct_links_ : the chosen point
    best_params_, best_score_, best_index_ : as in ``GridSearchCV``
    cv_results_ : dict in ``GridSearchCV``'s layout (``params``, ``param_*``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score``, ``rank_test_score``)
    n_splits_ : int
    W_, b_, beta_ : the model refitted on every row at the chosen point (first ``n_hidden_``
        nodes), from the same Gram sums
"""


class ELMRegressorCV(RegressorOutputs, RegressorMixin, _ELMCV):
    __doc__ = """ELM regressor whose ridge penalty, hidden size (and direct links) are chosen by
    cross-validation from one pass of Gram sums (module docstring); every score equals
    ``GridSearchCV`` over ``ELMRegressor`` with the same grid, splits and scorer.
    """ + _ELM_PARAMS_DOC + """
    Examples
    --------
    >>> import numpy as np
    >>> from fastelm import ELMRegressorCV
    >>> X = np.linspace(-1, 1, 300)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> model = ELMRegressorCV(n_hidden=60, hidden_sizes=[5, 20, 60], random_state=0).fit(X, y)
    >>> sorted(model.best_params_)
    ['alpha', 'n_hidden']
    """

    def _template(self):
        view = ELMRegressor()
        view._y_1d = self._y_1d
        return view


class ELMClassifierCV(ClassifierOutputs, ClassifierMixin, _ELMCV):
    __doc__ = """ELM classifier whose ridge penalty, hidden size (and direct links) are chosen by
    cross-validation from one pass of Gram sums (module docstring); every score equals
    ``GridSearchCV`` over ``ELMClassifier`` with the same grid, splits and scorer. Every
    training split must hold every class.
    """ + _ELM_PARAMS_DOC + """    classes_ : sorted class labels
    """

    def _template(self):
        view = ELMClassifier()
        view.classes_ = self.classes_
        return view


# --------------------------------------------------------------------------- BLS


def _row_sums(A, T):
    """GramSums (float64) of readout inputs A (rows in memory) and targets T."""
    A, T = A.astype(np.float64, copy=False), np.asarray(T, dtype=np.float64)
    return GramSums(A.shape[0], A.T @ A, A.T @ T, T.T @ T)


def _broad_sums(layer, Z, T):
    """GramSums (float64) of a fitted BLS layer's readout inputs I = [Z | E] over rows Z."""
    p = layer._n_nodes()
    AtA, AtT = np.zeros((p, p)), np.zeros((p, T.shape[1]))
    for r0, r1, block in layer._broad_blocks(Z):
        block = block.astype(np.float64, copy=False)
        AtA += block.T @ block
        AtT += block.T @ T[r0:r1]
    T = np.asarray(T, dtype=np.float64)
    return GramSums(Z.shape[0], AtA, AtT, T.T @ T)


def _broad_rows(layer, Z):
    """I = [Z | E] (n × width) of a fitted BLS layer, whole."""
    return next(layer._broad_blocks(Z, rows=max(Z.shape[0], 1)))[2]  # one block: not reused


class _BLSCV(_SearchCV, _BLS):
    """Broad Learning System with the readout penalty C chosen by cross-validation.

    A BLS layer is learned from its training rows (input scaling, sparse autoencoders, shrink),
    so each split fits its own layer — one BLS layer fit and one Gram sum of the split's training
    rows — and every penalty of ``regs`` is then scored from those sums: one Cholesky (or, when
    the training rows are fewer than the nodes, one dual n×n Cholesky) per penalty. The
    enhancement weights are orthonormalised together and share one shrink, so enhancement
    counts do not nest: only the penalty is searched. The refit on all rows at ``reg_`` is one
    more BLS fit.

    With ``shared_layer=True`` the layer, which never sees the labels, is fitted once on all
    rows given to ``fit`` and serves every split and the refit: I = [X' | Z | E] of all n rows
    is made once, and each split's readout is scored from its rows of I (primal: the sums of
    all rows minus those of the split's validation rows) or of the kernel IIᵀ (dual: one n×n
    kernel, K[tr, tr] and K[te, tr] per split; with direct links IIᵀ = X'X'ᵀ + [Z|E][Z|E]ᵀ,
    so both link settings share one layer). A split's validation rows then inform the layer
    (not its readout), as a scaler fitted before a search does; the refit solves at ``reg_``
    on the same layer (its dual kernel reused), so the chosen C is that of the fitted layer.
    """

    _penalty, _size = "reg", None
    # the grids (regs, direct_links) are checked by fit; the refit validates the rest
    _parameter_constraints = {k: v for k, v in _BLS._parameter_constraints.items()
                              if k not in ("reg", "direct_links")}

    def __init__(self, n_windows: int = 10, nodes_per_window: int = 10,
                 n_enhancement: int = 1000, shrink: float = 0.8, regs: Sequence[float] = REGS,
                 sparse_lambda: float = 1e-3, preprocessing: str = "minmax",
                 direct_links: bool | Sequence[bool] = False, cv: CV = None,
                 scoring: Scoring = None, random_state: RandomState = None,
                 dtype: DType = "float64", shared_layer: bool = False):
        self.n_windows = n_windows
        self.nodes_per_window = nodes_per_window
        self.n_enhancement = n_enhancement
        self.shrink = shrink
        self.regs = regs
        self.sparse_lambda = sparse_lambda
        self.preprocessing = preprocessing
        self.direct_links = direct_links  # type: ignore[assignment]  # a grid, not _BLS's bool
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state
        self.dtype = dtype
        self.shared_layer = shared_layer

    def _direct_links(self):
        return self.__dict__.get("direct_links_", False)

    @property
    def reg(self) -> float:  # type: ignore[override]  # _BLS's reg, read-only: reg_
        """The chosen penalty ``reg_``: the readout's C for ``fit``'s refit and increments."""
        try:
            return self.__dict__["reg_"]
        except KeyError:
            raise AttributeError("reg is chosen by fit (reg_)") from None

    def _base(self, reg, direct_links):
        names = ("n_windows", "nodes_per_window", "n_enhancement", "shrink", "sparse_lambda",
                 "preprocessing", "random_state", "dtype")
        return self._base_class(reg=reg, direct_links=direct_links,
                                **{k: getattr(self, k) for k in names})

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Score every penalty of ``regs`` on every split (one BLS layer and Gram sum per
        split), then fit the BLS on all rows at the best one (``reg_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        regs = check_grid(self.regs, "regs")
        links = check_bool_grid(self.direct_links, "direct_links")
        for name in ("reg_", "direct_links_"):
            self.__dict__.pop(name, None)
        probe = self._base(regs[0], False)
        dtype = probe._check_params()
        X, T = self._validate_Xy(X, y, dtype, reset=True)
        T = self._code_targets(T)
        y = self._labels(y)
        folds = _splits(self.cv, X, y, is_classifier(self))
        self._check_classes(y, folds)
        template = self._template()
        scorer = _check_scorer(self.scoring, template)
        self._alphas = regs
        if not self.shared_layer:
            link, a, _ = self._search(X, y, T, regs, None, links, scorer, folds, template)
            del self._alphas
            self.reg_, self.direct_links_ = regs[a], links[link]
            return self._fit(X, y)
        self.direct_links_ = any(links)
        self._shared = {"work": self._fit_layer(X, y)}
        try:
            link, a, _ = self._search(X, y, T, regs, None, links, scorer, folds, template)
            self.reg_ = regs[a]
            return self._refit_shared(links[link])
        finally:
            del self._alphas, self._shared

    def _shared_rows(self):
        """I of every row, made once from the shared layer (columns [X' | Z | E])."""
        if "I" not in self._shared:
            self._shared["I"] = _broad_rows(self, self.feature_nodes_)
        return self._shared["I"]

    def _shared_kernel(self, link):
        """IIᵀ (n×n, float64) of the shared layer with or without the direct links' X'X'ᵀ."""
        key = ("K", bool(link))
        if key not in self._shared:
            I, d = self._shared_rows(), self._links()
            if ("K", False) not in self._shared:  # column slices: syrk with a leading
                ZE = I[:, d:].astype(np.float64, copy=False)  # dimension, no copy
                self._shared["K", False] = ZE @ ZE.T
            if link:
                Xs = I[:, :d].astype(np.float64, copy=False)
                self._shared[key] = self._shared["K", False] + Xs @ Xs.T
        return self._shared[key]

    def _shared_folds(self, T, folds, link, predictions):
        """Each split's fold from the shared layer's rows of I (module and class docstrings)."""
        I = self._shared_rows()
        if not link:
            I = I[:, self._links():]
        width, work = I.shape[1], self._shared["work"]
        if any(len(tr) >= width for tr, _ in folds):
            total = _row_sums(I, T)
        for tr, te in folds:
            fold = _FoldData(tr, te, [width], False, work, A_val=I[te], T_val=T[te])
            if len(tr) >= width:
                fold.train_sums = total - _row_sums(I[te], T[te])
            else:
                K = self._shared_kernel(link)
                fold.dual[width] = dual_grid(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], T[tr],
                                             T[te], self._alphas, False, predictions)
            yield fold

    def _refit_shared(self, link):
        """The readout at ``reg_`` on the shared layer (without the X' columns when the
        direct links were not chosen), its dual kernel reused."""
        if not link and self._links():
            self.feature_nodes_ = np.ascontiguousarray(self.feature_nodes_[:, self._links():])
        self.direct_links_ = link
        form = self._preferred_form()
        kernel = self._shared_kernel(link) if form == "dual" else None
        with serial_if_small(self._shared["work"]):
            self.gram_ = self._build_gram(form, kernel)
            return self._solve()

    def _folds_data(self, X, y, T, folds, link, predictions):
        if self.shared_layer:
            yield from self._shared_folds(T, folds, link, predictions)
            return
        for tr, te in folds:
            layer = self._base(1.0, link)  # the layer does not depend on the penalty
            work = layer._fit_layer(X[tr], y[tr])
            with serial_if_small(work):
                yield self._fold(layer, X, T, tr, te, work, predictions)

    def _fold(self, layer, X, T, tr, te, work, predictions):
        """The split's fold: training sums when its rows are at least the nodes, else the dual
        form's values from the kernels of the training rows' I (n_tr×n_tr, n_f×n_tr)."""
        width = layer._n_nodes()
        Z_val = layer._feature_nodes(layer._scale_inputs(X[te]))
        A_val = _broad_rows(layer, Z_val)
        fold = _FoldData(tr, te, [width], False, work, A_val=A_val, T_val=T[te])
        if len(tr) >= width:
            fold.train_sums = _broad_sums(layer, layer.feature_nodes_, layer.targets_)
        else:
            A = _broad_rows(layer, layer.feature_nodes_)
            fold.dual[width] = dual_grid(A @ A.T, A_val @ A.T, layer.targets_, T[te],
                                         self._alphas, False, predictions)
        return fold


_BLS_PARAMS_DOC = """
    Parameters
    ----------
    n_windows, nodes_per_window, n_enhancement, shrink : int, int, int, float
        As in ``BLSRegressor``.
    sparse_lambda, preprocessing, random_state, dtype :
        As in ``BLSRegressor``.
    regs : sequence of float > 0, default=(2**-30, 1e-6, 1e-5, …, 1e2)
        Readout penalties C searched (the paper's C = 2⁻³⁰ first).
    direct_links : bool or list of bool, default=False
        I = [X' | Z | E] (``BLSRegressor(direct_links=True)``); a list is searched.
    cv, scoring :
        As in ``ELMRegressorCV``.
    shared_layer : bool, default=False
        False: every split fits its own broad layer (scores equal ``GridSearchCV``'s). True:
        the label-free layer is fitted once on all rows and shared by the splits and the refit
        (one layer and one kernel instead of one per split and link setting; the validation
        rows inform the layer, not the readout).

    Attributes
    ----------
    reg_, direct_links_ : the chosen point (``reg_`` also readable as ``reg``, used by the
        increments)
    best_params_, best_score_, best_index_, cv_results_, n_splits_ : as in ``ELMRegressorCV``
    every fitted attribute of ``BLSRegressor``, for the BLS refitted on all rows at ``reg_``
"""


class BLSRegressorCV(RegressorOutputs, RegressorMixin, _BLSCV):
    __doc__ = """BLS regressor whose readout penalty is chosen by cross-validation: one broad
    layer and Gram sum per split, every penalty from it (``_BLSCV``); every score equals
    ``GridSearchCV`` over ``BLSRegressor`` with the same grid, splits and scorer.
    """ + _BLS_PARAMS_DOC

    _base_class = BLSRegressor

    def _template(self):
        view = BLSRegressor()
        view._y_1d = self._y_1d
        return view


class BLSClassifierCV(ClassifierOutputs, ClassifierMixin, _BLSCV):
    __doc__ = """BLS classifier whose readout penalty is chosen by cross-validation: one broad
    layer and Gram sum per split, every penalty from it; every score equals ``GridSearchCV``
    over ``BLSClassifier`` with the same grid, splits and scorer. On small, wide data
    (connectomes) the paper's C = 2⁻³⁰ overfits and a larger C is chosen.
    """ + _BLS_PARAMS_DOC + """    classes_ : sorted class labels
    """

    _base_class = BLSClassifier

    def _code_targets(self, T):
        return 2 * T - 1 if self.preprocessing == "reference" else T

    def _template(self):
        view = BLSClassifier(preprocessing=self.preprocessing)
        view.classes_ = self.classes_
        return view


# --------------------------------------------------------------------------- online models


def penalty_scores(model: _OSELM, X: ArrayLike, y: ArrayLike, alphas: Sequence[float],
                   scoring: Scoring = None) -> np.ndarray:
    """Score ridge penalties on held-out rows from a fitted online model's sums, no refit.

    An OS-ELM (``OSELMRegressor``, ``OSELMClassifier``, FOS-ELM) keeps, over every row it has
    learned, K = AᵀA + αI and AᵀT (``model.rls_``). For each α' of ``alphas`` the readout
    β(α') = (AᵀA + α'I)⁻¹ AᵀT is solved from them (one Cholesky each) and scored on (X, y),
    a chunk the model has not learned. The model is not changed.

    Parameters
    ----------
    model : fitted OSELMRegressor, OSELMClassifier, FOSELMRegressor or FOSELMClassifier
    X, y : the held-out chunk
    alphas : sequence of float > 0
    scoring : str or callable, default=None
        None: minus the mean squared error of the readout targets, from the chunk's Gram sums.
        Otherwise a scikit-learn scorer, on the chunk's predictions at each α'.

    Returns
    -------
    ndarray of shape (len(alphas),): higher is better.
    """
    check_is_fitted(model, "rls_")
    alphas = check_grid(alphas, "alphas")
    rls, dtype = model.rls_, model.W_.dtype
    X, T = model._validate_Xy(X, y, dtype, reset=False)
    scorer = _check_scorer(scoring, model)
    learned = GramSums(rls.n_seen, add_to_diagonal(np.array(rls.K), -rls.alpha), rls.HtT, None)
    fmap, p = model._feature_map(), rls.K.shape[0]
    if scorer is None:
        heldout = gram_sums(X, T, fmap).astype(np.float64)
    else:
        A = fmap.transform(X)
    scores = []
    for alpha in alphas:
        B = prefix_ridge(learned, alpha, [p])
        beta = B[:, 0]
        if scorer is None:
            scores.append(-squared_errors(heldout, B)[0] / (X.shape[0] * T.shape[1]))
        else:
            scores.append(scorer(_scored_view(model, A @ beta.astype(dtype)), X, y))
    return np.array(scores)
