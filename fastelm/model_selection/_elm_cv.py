"""ELM cross-validation: ``ELMRegressorCV`` and ``ELMClassifierCV`` choose the ridge penalty,
the hidden size and the direct links from one pass of Gram sums (docs/algorithms.md §1), and
the weight scale from one more pass per scale (W = s·U of the same unit draw U).

Hidden sizes are prefixes: the readout inputs of an ELM with k nodes are the leading p_k columns
of those of the largest layer (``fastelm._hidden.random_weights`` draws node by node), so the
training sums S − S_f and validation sums S_f of the widest primal width (``fold_sums``) and
one Cholesky per (fold, α) give every size (``prefix_ridge``; both in ``_fold_sums``).

A width above a fold's training rows takes the dual form (wide data: connectomes with direct
links): one kernel K_p = A[:, :p] A[:, :p]ᵀ of all n rows, grown by column blocks of A over the
nested widths (``fastelm._gram.kernel_prefixes``); per split, c from K_p[tr, tr] + αI and the
validation scores K_p[te, tr] c; at the refit, β = Aᵀc by column blocks
(``fastelm._gram.dual_readout``). Memory O(n² + n·block) per width; the primal sums are only
formed up to the widest p ≤ n.

Dask inputs (``fastelm.dask``): y is brought in (one pass) to make the splits; each chunk's
task then returns the sums of its rows per test fold (``DaskRows.fold_gram_sums``), added in a
tree, and a scorer's validation rows are selected chunk by chunk (``DaskRows.take``). KFold-like
splits only (disjoint test folds, training rows their complement). When the dual form is needed
the rows are few and are gathered, as the estimators do.

The refit on all rows at the chosen point solves from the same total S: no further pass.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from numbers import Integral, Real
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier

from .._base import BaseRandomLayerReadout, ClassifierOutputs, RegressorOutputs
from .._gram import (BLOCK_ROWS, GramSums, _column_block, dual_readout, gram_sums,
                      kernel_prefixes)
from .._hidden import (DirectLinksMap, HiddenMap, check_activation, check_dtype, check_generator,
                       check_weight_scale, random_weights, scale_weights)
from .._rows import is_dask_input
from .._validation import (WEIGHT_SCALE, DType, Interval, RandomState, available_memory,
                           check_memory, check_parameter, check_positive_int)
from ..elm import ELMClassifier, ELMRegressor
from ._fold_sums import _FoldData, dual_grid, dual_ridge, fold_sums, prefix_ridge
from .._hat import (BORDER_BLOCK_BYTES, HAT_CV, PENALTY_EXPONENTS, bordered_gcv_sums_scores,
                     bordered_hat_scores, bordered_pays, gcv_sums_scores, hat_scores,
                     hat_spectrum, kernel_scores)
from ._search import (GRID, SEARCH_CONSTRAINTS, _check_scorer, _SearchCV, _splits,
                      check_bool_grid, check_cv_string, check_grid, default_hat_kind)

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._search import CV, Scoring

#: the default layer: at most this many nodes, and at most 2n (``default_hidden``)
MAX_HIDDEN = 1000
#: the default hidden sizes: this many geometric prefixes of the layer, down to L / 128
N_SIZES = 8


def default_hidden(n, fits):
    """L for ``n_hidden=None``: min(MAX_HIDDEN, 2n), halved while ``fits(L)`` is False (the
    search's arrays must fit in the memory available)."""
    L = max(1, min(MAX_HIDDEN, 2 * n))
    while L > 1 and not fits(L):
        L //= 2
    return L


def hidden_ladder(L):
    """The default hidden sizes: N_SIZES sizes geometric from max(1, L/128) to L, rounded,
    duplicates dropped (all prefixes of one layer, so free within one pass)."""
    return sorted({int(round(k)) for k in np.geomspace(max(1.0, L / 128), L, N_SIZES)})


def check_scale_grid(value):
    """(scales, searched): [value] for one weight scale ('auto' or a number > 0), the list of
    a sequence of them; InvalidParameterError naming ``weight_scale`` otherwise."""
    if isinstance(value, (str, Real)) or not isinstance(value, Iterable):
        return [check_parameter(value, "weight_scale", WEIGHT_SCALE)], False
    values = [check_parameter(v, "weight_scale", WEIGHT_SCALE) for v in value]
    if not values:
        raise ValueError("weight_scale must be 'auto', a number > 0 or a non-empty list of "
                         "them, got an empty one")
    return values, True


# --------------------------------------------------------------------------- ELM


class _ELMCV(_SearchCV, BaseRandomLayerReadout):
    _penalty, _size = "alpha", "n_hidden"
    # the grids (weight_scale among them) are checked by fit
    _parameter_constraints = {**{k: v for k, v in
                                 BaseRandomLayerReadout._parameter_constraints.items()
                                 if k not in ("alpha", "weight_scale")},
                              **SEARCH_CONSTRAINTS,
                              "n_hidden": [None, Interval(Integral, 1, None, closed="left")],
                              "alphas": GRID, "weight_scale": [*WEIGHT_SCALE, "array-like"],
                              "hidden_sizes": [None, "array-like",
                                               Interval(Integral, 1, None, closed="left")]}

    def __init__(self, n_hidden: int | None = None, activation: str = "tanh",
                 alphas: Sequence[float] | None = None,
                 hidden_sizes: Sequence[int] | None = None,
                 direct_links: bool | Sequence[bool] = (False, True), cv: CV | str = None,
                 scoring: Scoring = None, random_state: RandomState = None,
                 dtype: DType = "float64",
                 weight_scale: str | float | Sequence[str | float] = "auto",
                 error_score: str | float = np.nan):
        self.n_hidden = n_hidden  # type: ignore[assignment]  # None: chosen by fit
        self.activation = activation
        self.alphas = alphas
        self.hidden_sizes = hidden_sizes
        self.direct_links = direct_links
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state
        self.dtype = dtype
        self.weight_scale = weight_scale  # type: ignore[assignment]  # a grid
        self.error_score = error_score

    def _feature_map(self):
        fmap = HiddenMap(self.W_, self.b_, check_activation(self.activation_))
        return DirectLinksMap(fmap, self.n_features_in_) if self.direct_links_ else fmap

    def _fix_layout(self):  # direct_links_ is the search's choice
        self.activation_ = self.activation

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Score every (alpha, hidden size[, direct_links]) on every split from one pass of
        Gram sums (per weight scale), then refit the best on all rows from the same sums.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
            (with y one too, or in memory)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        self._validate_params()
        self._fix_layout()
        code = check_activation(self.activation)
        dtype = check_dtype(self.dtype)
        alphas = None if self.alphas is None else check_grid(self.alphas, "alphas")
        links = check_bool_grid(self.direct_links, "direct_links")
        dask = is_dask_input(X, y)
        cv = check_cv_string(self.cv, self.scoring, rows_in_memory=not dask)
        hat = cv in HAT_CV
        scales, searched = check_scale_grid(self.weight_scale)
        self._dask = None
        if dask:
            if hat:
                raise ValueError(f"cv={cv!r} needs the rows in memory (each leverage h_ii "
                                 f"needs its row of A); use a KFold-like cv with Dask inputs")
            self._dask = self._training_rows(X, y, dtype, reset=True)
            y = self._dask[0].targets()
            T = self._dask[1](y)
            X = np.empty((len(y), 0))  # folds and scorers need only the row count
        else:
            X, T = self._validate_Xy(X, y, dtype, reset=True)
        n, d = len(T), self.n_features_in_
        y = self._labels(y)
        folds = [(np.arange(n), np.arange(0))] if hat else _splits(cv, X, y, is_classifier(self))
        self._check_classes(y, folds)
        n_train = n if hat else min(len(tr) for tr, _ in folds)

        n_alphas = len(PENALTY_EXPONENTS) if alphas is None else len(alphas)

        def nbytes(L, sizes):  # the peak's arrays (``_hat_bytes``, ``_cv_bytes``)
            widths = {self._width(k, d, link) for k in sizes for link in links}
            if hat:
                kind = default_hat_kind(self.cv, cv, n, max(widths))
                return _hat_bytes(n, d, L, dtype, widths, len(scales), len(links), T.shape[1],
                                  kind, n_alphas)
            return _cv_bytes(n, d, L, dtype, widths, n_train, len(folds), len(scales), len(links),
                             T.shape[1])

        if self.n_hidden is not None:
            L = check_positive_int(self.n_hidden, "n_hidden")
        elif self.hidden_sizes is None:  # as wide as the default and the memory allow
            limit = available_memory()
            L = default_hidden(n, lambda L: limit is None or nbytes(L, [L]) <= limit / 2)
        if self.hidden_sizes is None:
            sizes = hidden_ladder(L)
        else:
            sizes = check_grid(self.hidden_sizes, "hidden_sizes", integer=True,
                               upper=None if self.n_hidden is None else L)
        if self._dask is not None and self._width(max(sizes), d, any(links)) > n_train:
            X, T = self._dask[0].gather(self._dask[1])  # the dual form: few rows, gathered
            self._dask = None
        top = max(sizes)  # nodes drawn one by one: the first top are those of any L ≥ top
        check_memory(nbytes(top, sizes), type(self).__name__,
                     f"n_hidden={self.n_hidden}, max(hidden_sizes)={max(sizes)}")
        cv = default_hat_kind(self.cv, cv, n, self._width(top, d, any(links)))
        template = self._template()
        scorer = None if hat else _check_scorer(self.scoring, template)
        # one unit draw U; the layer of scale s is W = s·U (random_weights' own last step)
        unit, b = random_weights(check_generator(self.random_state), d, top, np.float64)
        self._unit, self._b, self._code, self._dtype = unit, b.astype(dtype), code, dtype
        self._scales = [check_weight_scale(v, d) for v in scales]
        self._use_scale(0)
        self._sizes, self._alphas, self._link_grid = sizes, alphas, links
        self._totals: dict = {}
        self._kernels: dict = {}
        searched_scales = scales if searched else None
        if hat:
            run, a, s = self._search_hat(X, T, sizes, links, cv, searched_scales)
        else:
            run, a, s = self._search(X, y, T, sizes, links, scorer, folds, template,
                                     searched_scales)
        scale, link = divmod(run, len(links))
        alphas = self._alphas
        self.alphas_, self.hidden_sizes_ = np.array(alphas), np.array(sizes)
        k = sizes[s]
        self.alpha_, self.n_hidden_, self.direct_links_ = alphas[a], k, links[link]
        self.weight_scale_ = self._scales[scale]
        self.W_ = scale_weights(unit[:, :k], self.weight_scale_, dtype)
        self.b_ = self._b[:k].copy()
        p, key = self._width(k, d, links[link]), (scale, links[link])
        if p <= n:  # primal, from the total sums (as wide as the widest p ≤ n)
            beta = prefix_ridge(self._totals[key], self.alpha_, [p])[:, 0]
        else:  # dual, from the rows' kernel, beta = Aᵀc by column blocks
            coef = dual_ridge(self._kernels[key][p], T, self.alpha_)
            beta = dual_readout(X, self._feature_map(), coef)
        self.beta_ = np.ascontiguousarray(beta, dtype=dtype)
        for name in ("_layer", "_unit", "_b", "_code", "_dtype", "_scales", "_scale", "_sizes",
                     "_alphas", "_totals", "_kernels", "_dask", "_link_grid"):
            del self.__dict__[name]
        self.__dict__.pop("_linked_rows", None)
        self.__dict__.pop("_unlinked", None)
        return self

    def _use_scale(self, index):
        """The layer of the searched weight scale ``index`` for the next passes."""
        W = scale_weights(self._unit, self._scales[index], self._dtype)
        self._scale, self._layer = index, HiddenMap(W, self._b, self._code)

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
            self._totals[self._scale, link], sums = fold_sums(X, T, folds, pmap, self._dask)
        if self._alphas is None:  # the default penalties, from the widest inputs' trace
            if max(widths) == (pmap.width if pmap else 0):
                trace = np.trace(self._totals[self._scale, link].AtA)
            else:  # widest in the dual form: its kernel comes after the narrower ones'
                trace = _squared_norm(X, self._prefix_map(max(self._sizes), d, link))
            self._scale_penalties(lambda: trace, n, max(widths))
        dual = [{} for _ in folds]
        kernels = self._kernels.setdefault((self._scale, link), {})
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

    def _hat_table(self, X, T, link, kind):
        """cv='loo' or 'gcv' (``fastelm._hat``): scores (penalties × sizes) of one link setting.
        GCV of widths ≤ n comes from the sums alone (``gram_sums`` by row blocks: A never
        whole); the other points from A of all rows at the widest width, one decomposition per
        width: of AᵀA[:p, :p] (p ≤ n) or of the kernel K_p = A[:, :p]A[:, :p]ᵀ (p > n), grown
        by column blocks. When both link settings are searched, the link pass (first) scores
        both from the decompositions of H's widths alone (``bordered_gcv_sums_scores``,
        ``bordered_hat_scores``) and the pass without links reads its scores. Fills the refit's
        total sums (widths ≤ n) and kernels (widths > n)."""
        n, d = len(T), self.n_features_in_
        unlinked = self.__dict__.setdefault("_unlinked", {})
        if not link and unlinked:  # made by the link pass, with this setting's sums/kernels
            return np.column_stack([unlinked.pop(k) for k in self._sizes])
        both = link and False in self._link_grid
        widths = [self._width(k, d, link) for k in self._sizes]
        top = max([p for p in widths if p <= n], default=0)
        # GCV of primal widths needs only the sums: made by row blocks, A never whole
        rows_needed = kind != "gcv" or max(widths) > n or self._dtype != np.float64
        linked = self._totals.get((self._scale, True))
        if not link and linked is not None and linked.AtA.shape[0] >= top + d:
            # the link pass ran first: A = [X | H], so H and HᵀH are its trailing blocks
            AtA, AtT = linked.AtA[d:top + d, d:top + d], linked.AtT[d:top + d]
            A = self._linked_rows[:, d:] if rows_needed else None
        elif rows_needed:
            A = self._prefix_map(max(self._sizes), d, link).transform(X).astype(np.float64,
                                                                                  copy=False)
            AtA, AtT = A[:, :top].T @ A[:, :top], A[:, :top].T @ T
            if link:
                self._linked_rows = A
        else:
            A, sums = None, gram_sums(X, T, self._prefix_map(max(self._sizes), d, link))
            AtA, AtT = sums.AtA, sums.AtT
        self._scale_penalties(lambda: np.trace(AtA) if A is None else np.einsum("ij,ij->", A, A),
                              n, max(widths))
        TtT = T.T @ T
        self._totals[self._scale, link] = GramSums(n, AtA, AtT, TtT)
        if both:
            return self._linked_table(A, AtA, AtT, TtT, T, kind, unlinked)
        kernels = self._kernels.setdefault((self._scale, link), {})
        K, done = np.zeros((n, n)) if max(widths) > n else None, 0
        table = np.empty((len(self._alphas), len(widths)))
        for s in np.argsort(widths, kind="stable"):
            p = widths[s]
            if p <= n and kind == "gcv":  # from the sums alone, no row (``fastelm._hat``)
                table[:, s] = gcv_sums_scores(AtA[:p, :p], AtT[:p], TtT, n, self._alphas)
                continue
            if p <= n:
                spectrum = hat_spectrum(A[:, :p], T, AtA=AtA[:p, :p])
            else:
                K += A[:, done:p] @ A[:, done:p].T
                done = p
                kernels[p] = K.copy()  # the refit's, when p is chosen
                table[:, s] = kernel_scores(K, T, self._alphas, kind)
                continue
            table[:, s] = hat_scores(spectrum, T, self._alphas, kind)
        return table

    def _linked_table(self, A, AtA, AtT, TtT, T, kind, unlinked):
        """The link pass's table (penalties × sizes) when the setting without links is searched
        too: each size k from H[:, :k]'s own decomposition (its Gram block or kernel, grown by
        column blocks), the d link columns X added by ``bordered_*``; the scores without links
        go to ``unlinked[k]``, that setting's total sums and kernels to the refit's tables."""
        n, d, sizes = len(T), self.n_features_in_, self._sizes
        table = np.empty((len(self._alphas), len(sizes)))
        H_top = max([k for k in sizes if k <= n], default=0)  # the widest primal H
        if H_top <= AtA.shape[0] - d:  # H's sums: the trailing block of [X | H]'s
            H_sums = GramSums(n, AtA[d:d + H_top, d:d + H_top], AtT[d:d + H_top], TtT)
        else:  # some [X | H] widths are dual, so A is here
            H = A[:, d:d + H_top]
            H_sums = GramSums(n, H.T @ H, H.T @ T, TtT)
        self._totals[self._scale, False] = H_sums
        kernels = {False: self._kernels.setdefault((self._scale, False), {}),
                   True: self._kernels.setdefault((self._scale, True), {})}
        K, done, XXt = None, 0, None
        for s in np.argsort(sizes, kind="stable"):
            k = sizes[s]
            if k + d <= n and kind == "gcv":  # from the sums alone, no row
                table[:, s], unlinked[k] = bordered_gcv_sums_scores(
                    AtA[:k + d, :k + d], AtT[:k + d], TtT, n, self._alphas, d)
                continue
            if k <= n:
                spectrum = hat_spectrum(A[:, d:d + k], T, AtA=H_sums.AtA[:k, :k])
            else:
                K = np.zeros((n, n)) if K is None else K
                K += A[:, d + done:d + k] @ A[:, d + done:d + k].T
                done = k
                kernels[False][k] = K.copy()  # the refit's, when k is chosen without links
                spectrum = hat_spectrum(A[:, d:d + k], T, kernel=K)
            if k + d > n:  # the refit's kernel with links, when k is chosen with them
                XXt = A[:, :d] @ A[:, :d].T if XXt is None else XXt
                H_k = K if k > n else A[:, d:d + k] @ A[:, d:d + k].T
                kernels[True][k + d] = H_k + XXt
            if bordered_pays(n, len(spectrum[1]), d, len(self._alphas)):
                table[:, s], unlinked[k] = bordered_hat_scores(spectrum, T, A[:, :d],
                                                               self._alphas, kind)
                continue
            unlinked[k] = hat_scores(spectrum, T, self._alphas, kind)
            p = k + d  # [X | H]'s own decomposition: d is too wide for the border to pay
            own = (hat_spectrum(A[:, :p], T, AtA=AtA[:p, :p]) if p <= n else
                   hat_spectrum(A[:, :p], T, kernel=kernels[True][p]))
            table[:, s] = hat_scores(own, T, self._alphas, kind)
        return table


def _squared_norm(X, fmap):
    """||A||_F² = tr(AᵀA) of A = fmap(X), by column blocks (A never whole)."""
    step = _column_block(X.shape[0], np.dtype(fmap.dtype).itemsize, None)
    total = 0.0
    for start in range(0, fmap.width, step):
        block = fmap.columns(X, start, min(fmap.width, start + step)).astype(np.float64)
        total += np.einsum("ij,ij->", block, block)
    return total


def _inputs_bytes(n, d, L, s, m):
    """(8 + s)(d + 1)L + s·n·d + 8·n·m: the unit draw (float64), W and b in the layer's itemsize
    s, X in it and the float64 targets T (m columns)."""
    return (8 + s) * (d + 1) * float(L) + s * float(n) * d + 8.0 * float(n) * m


def _hat_bytes(n, d, L, dtype, widths, n_scales=1, n_links=1, m=1, kind="loo", n_alphas=23):
    """The arrays alive at the peak of a cv='loo'/'gcv' ELM fit, in bytes (s the layer's
    itemsize, S·Λ passes of S weight scales and Λ link settings, P₀ the widest width ≤ n, P
    the widest, a penalties):

        (8 + s)(d + 1)L + s·n·d + 8·n·m                  the unit draw, W, b; X and T
      + 8·P₀²·S·(1 + [Λ > 1, P > n])   the total sums of each scale (the pass without
                             links reads the link pass's trailing block unless some width is
                             dual)
      + 24·n·P + 24·P₀²      'loo', or P > n: A of all rows in float64 (kept for the pass
                             without links), B = A V and B∘B; an eigh's copy, its
                             eigenvectors and the tridiagonal reflectors of GCV from the sums
      | (8 + s)·n·P + 24·P₀²   'gcv' of float32 widths ≤ n: A in float64 and the layer's
                             own before the copy, no B
      | s·min(n, BLOCK_ROWS)·(P₀ + m) + 8·P₀²   'gcv' of float64 widths ≤ n: the sums
                             alone, from ``gram_sums``' row block (A never whole), then the
                             tridiagonal reflectors
      + 16·n·m·a + [Λ > 1]·32·n·(d + m)·min(a, g)
            the fitted values of every penalty and a residual; with both link settings the
            bordered scores' D X_B (and its copy), B D X_B and W per group of
            g = max(1, BORDER_BLOCK_BYTES / (8·n·(d + m))) penalties
      + [P > n] 8·n²·(K + 5)
            the dual form: the K = S·#{p > n} kernels kept for the refit, the running one,
            A[:, block] A[:, block]ᵀ or the eigh's copy, its eigenvectors, B∘B; with both link
            settings XXᵀ and the spectrum of [X | H] beside H's.
    """
    s = np.dtype(dtype).itemsize
    n = float(n)
    P = max(widths)
    primal = max([p for p in widths if p <= n], default=0)
    total = _inputs_bytes(n, d, L, s, m)
    passes = n_scales * (2 if n_links > 1 and P > n else 1)
    total += 8.0 * float(primal) ** 2 * passes + 16.0 * n * m * n_alphas
    if kind != "gcv" or P > n:
        total += 24.0 * n * P + 24.0 * float(primal) ** 2
    elif s != 8:
        total += (8 + s) * n * P + 24.0 * float(primal) ** 2
    else:
        total += s * min(n, BLOCK_ROWS) * (primal + m) + 8.0 * float(primal) ** 2
    if n_links > 1:
        group = max(1, BORDER_BLOCK_BYTES // (8 * int(n) * (d + m)))
        total += 32.0 * n * (d + m) * min(n_alphas, group)
    if P > n:
        kept = n_scales * sum(p > n for p in widths)
        total += 8.0 * n * n * (kept + 5)
    return total


def _cv_bytes(n, d, L, dtype, widths, n_train, n_folds, n_scales=1, n_links=1, m=1):
    """The arrays alive at the peak of a k-fold ELM CV fit, in bytes (s the layer's itemsize,
    F folds, S·Λ passes of S weight scales and Λ link settings, P₀ the widest width ≤ n, P the
    widest, n_t the fewest training rows of a split, n_v = n − n_t):

        (8 + s)(d + 1)L + s·n·d + 8·n·m                  the unit draw, W, b; X and T
      + 8·P₀²·(2F + SΛ + 6) + s·min(n, BLOCK_ROWS)·(P₀ + m)
            the pass's total, F validation and F training sums (``fold_sums``), the totals of
            the other passes (kept for the refit), and a solve's copies: the factor, its
            condition test and the warned eigen solve (``prefix_ridge``: a copy of the block,
            its float64 Fortran copy, the symmetric fill, the eigenvectors twice; they also
            outnumber the last fold's two sums, alive until the next pass yields its first);
            the row block of ``gram_sums``
      + [P > n_t] 8·n²·(K + 1) + max(s·n² + (2s + 8)·n·c,  8·n_t·(7·n_t + n_v),  [P > n] 40·n²)
            the dual form: the running kernel and the K = S·#{p > n} kept for the refit, and
            the largest of: the kernel's growth (A[:, block] A[:, block]ᵀ in the map's dtype,
            a block of c = min(P, ``_column_block``) columns, the first one joined to X with
            direct links, and the default penalties' float64 copy of a block); a split's
            K[tr, tr], K[te, tr] and its solve (as above, n_t wide); the refit's solve (n wide).
    """
    s = np.dtype(dtype).itemsize
    n, F = float(n), float(n_folds)
    primal = max([p for p in widths if p <= n], default=0)
    top = max(widths)
    total = _inputs_bytes(n, d, L, s, m)
    if primal:
        total += (8.0 * float(primal) ** 2 * (2 * F + n_scales * n_links + 6)
                  + s * min(n, BLOCK_ROWS) * (primal + m))
    if top > n_train:
        kept = n_scales * sum(p > n for p in widths)
        c = min(top, _column_block(int(n), s, None))
        n_t, n_v = float(n_train), n - n_train
        total += 8.0 * n * n * (kept + 1) + max(s * n * n + (2 * s + 8) * n * c,
                                                8.0 * n_t * (7 * n_t + n_v),
                                                40.0 * n * n if top > n else 0.0)
    return total


_ELM_PARAMS_DOC = """
    Parameters
    ----------
    n_hidden : int, optional
        L, the nodes of the one random layer whose prefixes are searched. Default:
        max(hidden_sizes) if given, else min(1000, 2·n_samples), halved until the search's
        arrays fit in half the memory available.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b).
    alphas : sequence of float > 0, optional
        Ridge penalties searched, used as given. Default: scaled by the data,
        α = s·10^k for k = −8, −7.5, …, 3 (23 values), s = tr(AᵀA) / min(n, P) with A
        (n×P) the readout inputs of the rows given to ``fit`` at the widest width searched
        (with the direct links when they are searched), read off the search's own sums
        (docs/algorithms.md §1); ``alphas_`` holds them.
    hidden_sizes : sequence of int in [1, n_hidden], optional
        Hidden sizes searched: the first k nodes of the layer (``ELMRegressor(n_hidden=k,
        random_state=s)`` has exactly those). Default: 8 sizes geometric from L/128 to L,
        rounded (``hidden_sizes_``), all prefixes of one layer.
    direct_links : bool or list of bool, default=(False, True)
        A = [X, H] (the RVFL form, ``ELMRegressor(direct_links=True)``); a list is searched.
    weight_scale : 'auto', float > 0 or a list of them, default='auto'
        s in W ~ U(-s, s), b ~ U(-1, 1) ('auto': 1/√d), as in ``ELMRegressor``; a list is
        searched, one more pass of Gram sums per scale, each W = s·U of the same draw U (the
        layer ``ELMRegressor(weight_scale=s, random_state=...)`` draws).
    cv : int, cross-validation splitter, iterable, 'loo' or 'gcv', default=None
        None, with the default scoring on rows in memory: 'gcv' when the widest readout
        inputs searched are at most the rows, else exact leave-one-out ('loo', as
        ``RidgeCV``'s default; docs/algorithms.md §1 gives the measurements behind the rule);
        otherwise 5 folds (stratified for classifiers, ``check_cv``). An int or splitter as
        ``sklearn.model_selection.check_cv``. 'loo': exact leave-one-out, 'gcv': generalised
        cross-validation, both on all rows from one eigendecomposition per link setting and
        width (``fastelm._hat``); rows in memory and the default scoring only.
    scoring : str or callable, default=None
        None: minus the mean squared error of the readout targets (one-hot for classifiers),
        computed from the Gram sums. Otherwise a scikit-learn scorer, computed on each split's
        predictions at every grid point (one more pass over each fold's rows). One metric
        only: a list, tuple or dict of them is refused (``GridSearchCV`` over the base
        estimator takes several, with ``refit`` naming one).
    error_score : 'raise' or float, default=np.nan
        The score of a split on which ``scoring`` raises (e.g. ``'roc_auc_ovr'`` on a test
        fold that lacks a class), with one warning naming those splits, as in
        ``GridSearchCV``; 'raise': a ValueError naming the split.
    random_state : int, numpy Generator or None
        Seeds the layer, as in ``ELMRegressor``.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer; the sums are combined and solved in float64.

    Attributes
    ----------
    alpha_, n_hidden_, direct_links_ : the chosen point
    alphas_, hidden_sizes_ : ndarray, the penalties and hidden sizes searched
    weight_scale_ : float, the chosen s (best_params_ holds it as given, e.g. 'auto')
    best_params_, best_score_, best_index_ : as in ``GridSearchCV``
    cv_results_ : dict in ``GridSearchCV``'s layout (``params``, ``param_*``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score``, ``rank_test_score``)
    n_splits_ : int
        The splits; 1 with cv='loo' or 'gcv' (one score per point, ``split0_test_score``:
        −PRESS/(n·m) or −GCV/m)
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
