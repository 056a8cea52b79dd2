"""BLS cross-validation: ``BLSRegressorCV`` and ``BLSClassifierCV`` choose the readout penalty C
(and the direct links) from each split's Gram sums or kernel (docs/algorithms.md §5, "Penalty by
cross-validation").

A BLS layer is learned from its training rows, so by default each split fits its own layer and
every C is scored from the split's sums of I = [X' | Z | E] (one Cholesky per C) or, when its
training rows are fewer than the nodes, from the kernels of its rows' I (the dual form,
``fastelm.model_selection._fold_sums.dual_grid``). Enhancement counts do not nest: only C (and
the direct links) is searched. With ``shared_layer=True`` one layer serves every split: the
primal training sums are S − S_f (all rows minus the split's validation rows), the dual system
K[tr, tr] + C I with K = IIᵀ = X'X'ᵀ + [Z|E][Z|E]ᵀ, so both link settings share the layer
(``_BLSCV``). ``layer_rows`` (default 'auto': every row in memory) is the number of rows each
layer is learned from: of the split's training rows, or of all rows for the shared layer and
the refit. Dask rows (KFold-like splits): with ``shared_layer=True`` the layer from
``layer_rows`` rows ('auto': at most 10000) and the per-fold sums of the widest I from one pass
on the workers (``_fold_sums.fold_sums``); without the direct links, their trailing block.
With ``shared_layer=False`` each split's layer from ``layer_rows`` of its training rows
(gathered here), then one pass in which every chunk's task returns each split's sums of its
own I over its training and its validation rows (``DaskRows.split_gram_sums``).
"""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, RegressorMixin, is_classifier

from .._base import ClassifierOutputs, RegressorOutputs
from .._gram import GramSums
from .._hat import (HAT_CV, bordered_gcv_sums_scores, gcv_sums_scores, hat_scores,
                     hat_spectrum, kernel_scores)
from .._rows import is_dask_input
from .._validation import DType, RandomState, fixed_parameters
from ..bls import BLSClassifier, BLSRegressor, BroadGram, SignedTargets, _BLS, serial_if_small
from ._fold_sums import _FoldData, dask_test_folds, dual_grid, fold_sums
from ._search import (GRID, SEARCH_CONSTRAINTS, _check_scorer, _SearchCV, _splits,
                      check_bool_grid, check_cv_string, check_grid, default_hat_kind)

if TYPE_CHECKING:
    from typing_extensions import Self

    from ._search import CV, Scoring

# --------------------------------------------------------------------------- BLS


def _row_sums(A, T):
    """GramSums (float64) of readout inputs A (rows in memory) and targets T."""
    A, T = A.astype(np.float64, copy=False), np.asarray(T, dtype=np.float64)
    return GramSums(A.shape[0], A.T @ A, A.T @ T, T.T @ T)


def _trailing(sums, cut):
    """The sums of the readout inputs without their first ``cut`` columns (a trailing block)."""
    if not cut:
        return sums
    return GramSums(sums.n, sums.AtA[cut:, cut:], sums.AtT[cut:], sums.TtT)


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
    # a subclass without the parameter (the multi-atlas CV) learns its layers from every row
    layer_rows: int | str = "auto"
    # the grids (regs, direct_links) are checked by fit; the refit validates the rest
    _parameter_constraints = {**{k: v for k, v in _BLS._parameter_constraints.items()
                                 if k not in ("reg", "direct_links")},
                              **SEARCH_CONSTRAINTS, "regs": GRID, "shared_layer": ["boolean"]}

    def __init__(self, n_windows: int = 10, nodes_per_window: int = 10,
                 n_enhancement: int = 1000, shrink: float = 0.8,
                 regs: Sequence[float] | None = None, sparse_lambda: float = 1e-3,
                 preprocessing: str = "minmax",
                 direct_links: bool | Sequence[bool] = (False, True), cv: CV | str = None,
                 scoring: Scoring = None, random_state: RandomState = None,
                 dtype: DType = "float64", shared_layer: bool = False,
                 error_score: str | float = np.nan, layer_rows: int | str = "auto"):
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
        self.error_score = error_score
        self.layer_rows = layer_rows

    def _direct_links(self):
        return self.__dict__.get("direct_links_", False)

    def _fix_layout(self):  # direct_links_ is the search's choice
        self.preprocessing_ = self.preprocessing

    @property
    def reg(self) -> float:  # type: ignore[override]  # _BLS's reg, read-only: reg_
        """The chosen penalty ``reg_``: the readout's C for ``fit``'s refit and increments."""
        try:
            return self.__dict__["reg_"]
        except KeyError:
            raise AttributeError("reg is chosen by fit (reg_)") from None

    def _base(self, reg, direct_links):
        names = ("n_windows", "nodes_per_window", "n_enhancement", "shrink", "sparse_lambda",
                 "preprocessing", "random_state", "dtype", "layer_rows")
        return self._base_class(reg=reg, direct_links=direct_links,
                                **{k: getattr(self, k) for k in names})

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Score every penalty of ``regs`` on every split (one BLS layer and Gram sum per
        split), then fit the BLS on all rows at the best one (``reg_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)

        Returns
        -------
        self
        """
        self._validate_params()
        self._fix_layout()
        regs = None if self.regs is None else check_grid(self.regs, "regs")
        links = check_bool_grid(self.direct_links, "direct_links")
        dask = is_dask_input(X, y)
        cv = check_cv_string(self.cv, self.scoring, rows_in_memory=not dask)
        hat = cv in HAT_CV
        for name in ("reg_", "direct_links_"):
            self.__dict__.pop(name, None)
        probe = self._base(1.0 if regs is None else regs[0], False)
        dtype = probe._check_params()
        self._dask = None
        if dask:
            X, y, T = self._dask_rows(X, y, dtype, cv, hat, links)
        else:
            X, T = self._validate_Xy(X, y, dtype, reset=True)
            T = self._code_targets(T)
        names = self.__dict__.get("feature_names_in_")  # the refit validates X again
        y = self._labels(y)
        folds = None if hat else _splits(cv, X, y, is_classifier(self))
        if not hat:
            self._check_classes(y, folds)
        width = ((self.n_features_in_ if any(links) else 0)
                 + self.n_windows * self.nodes_per_window + self.n_enhancement)
        if self._dask is not None:
            dask_test_folds(folds, len(T))  # KFold-like splits, gathered or not
        if self._dask is not None and min(len(tr) for tr, _ in folds) < width:
            X, T = self._dask[0].gather(self._dask[1])  # the dual form: few rows, gathered
            self._dask = None
        template = self._template()
        scorer = None if hat else _check_scorer(self.scoring, template)
        self._alphas = regs
        if not (self.shared_layer or hat):
            self._split_sums: dict = {}
            try:
                link, a, _ = self._search(X, y, T, None, links, scorer, folds, template)
            finally:
                del self._split_sums
            self.regs_ = np.array(self._alphas)
            self.reg_, self.direct_links_ = self._alphas[a], links[link]
            if self._dask is not None:  # the refit reads the Dask collections again
                X, y = self._dask[2:4]
            del self._alphas, self._dask
            return self._fit(X, y)._restore_feature_names(names)
        self.direct_links_ = any(links)
        if self._dask is not None:
            self._fix_layout()
            self._fixed = fixed_parameters(self)
            self._fit_dask_layer(self._dask[0], dtype)
            work = float(len(T)) * self._n_nodes() ** 2
        else:
            work = self._fit_layer(X, y)
        self._shared: dict = {"work": work}
        try:
            if hat:  # the hat-matrix algebra holds the layer fixed: the shared one
                widest = self._shared_rows().shape[1]  # [X' | Z | E] with direct links
                cv = default_hat_kind(self.cv, cv, len(T), widest)
                link, a, _ = self._search_hat(X, T, None, links, cv)
            else:
                link, a, _ = self._search(X, y, T, None, links, scorer, folds, template)
            self.regs_ = np.array(self._alphas)
            self.reg_ = self._alphas[a]
            return self._refit_shared(links[link])._restore_feature_names(names)
        finally:
            del self._alphas, self._shared, self._dask

    def _dask_rows(self, X, y, dtype, cv, hat, links):
        """Dask input: (X, y, T) for the search. y is computed (one pass) to make the splits,
        X becomes a (n, 0) stand-in; the rows stay on the workers (``self._dask``)."""
        if hat:
            raise ValueError(f"cv={cv!r} needs the rows in memory (each leverage needs its "
                             "row of I); use a KFold-like cv with Dask inputs")
        rows, coding = self._training_rows(X, y, dtype, reset=True)
        coding = self._readout_coding(coding)
        targets = rows.targets()
        self._dask = (rows, coding, X, y, dtype)  # rows[0], coding[1]: as ``fold_sums`` reads
        return np.empty((len(targets), 0)), targets, coding(targets)

    def _hat_table(self, X, T, link, kind):
        """cv='loo' or 'gcv' (``fastelm._hat``): the scores (penalties × 1) of one link setting
        on the shared layer's I of all rows, from one eigendecomposition of IᵀI (GCV: from
        the sums alone) or of the kernel IIᵀ, whichever is smaller."""
        I = self._shared_rows()
        if not link:
            I = I[:, self._links():]
        n, width = I.shape
        with serial_if_small(self._shared["work"]):
            if width <= n:
                sums = self._shared_total(T, link)
                self._scale_penalties(lambda: np.trace(sums.AtA), n, width)
                if kind == "gcv":  # from the sums alone (``fastelm._hat``)
                    return self._gcv_table(sums, link)
                spectrum = hat_spectrum(I, T, AtA=sums.AtA)
            else:
                K = self._shared_kernel(link)
                self._scale_penalties(lambda: np.trace(K), n, width)
                return kernel_scores(K, T, self._alphas, kind)[:, None]
            return hat_scores(spectrum, T, self._alphas, kind)[:, None]

    def _gcv_table(self, sums, link):
        """GCV scores (penalties × 1) from the sums; the link pass (first) also makes those
        without the X' columns from the same tridiagonalisation (``bordered_gcv_sums_scores``)
        for the pass without links."""
        n, d = sums.n, self._links()
        if not link and "unlinked_gcv" in self._shared:
            return self._shared.pop("unlinked_gcv")[:, None]
        if not (link and d):
            return gcv_sums_scores(sums.AtA, sums.AtT, sums.TtT, n, self._alphas)[:, None]
        linked, self._shared["unlinked_gcv"] = bordered_gcv_sums_scores(
            sums.AtA, sums.AtT, sums.TtT, n, self._alphas, d)
        return linked[:, None]

    def _shared_rows(self):
        """I of every row, made once from the shared layer (columns [X' | Z | E])."""
        if "I" not in self._shared:
            self._shared["I"] = _broad_rows(self, self.feature_nodes_)
        return self._shared["I"]

    def _shared_total(self, T, link):
        """GramSums (float64) of the shared layer's I of all rows, without the X' columns when
        ``link`` is False: the widest made once, the narrower its trailing block."""
        if "total" not in self._shared:
            self._shared["total"] = _row_sums(self._shared_rows(), T)
        return _trailing(self._shared["total"], 0 if link else self._links())

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

    def _dask_shared_sums(self, T, folds, link):
        """(total, [(training, validation) sums per split]) of the shared layer's I on Dask
        rows (without the X' columns when ``link`` is False): one pass of per-chunk, per-fold
        sums of the widest I (``fold_sums``), the narrower ones its trailing block."""
        if "sums" not in self._shared:
            self._shared["sums"] = fold_sums(None, T, folds, self._broad_map(), self._dask)
        total, sums = self._shared["sums"]
        cut = 0 if link else self._links()
        return _trailing(total, cut), [(_trailing(tr, cut), _trailing(te, cut)) for tr, te in sums]

    def _shared_folds(self, T, folds, link, predictions):
        """Each split's fold from the shared layer's rows of I (module and class docstrings)."""
        if self._dask is not None:
            yield from self._dask_shared_folds(T, folds, link, predictions)
            return
        I = self._shared_rows()
        if not link:
            I = I[:, self._links():]
        width, work = I.shape[1], self._shared["work"]
        if any(len(tr) >= width for tr, _ in folds):
            total = self._shared_total(T, link)
        # the default penalties, from all rows' I (the widest link setting comes first)
        self._scale_penalties(lambda: np.einsum("ij,ij->", I, I, dtype=np.float64), len(T),
                              width)
        for tr, te in folds:
            fold = _FoldData(tr, te, [width], False, work, A_val=I[te], T_val=T[te])
            if len(tr) >= width:
                fold.train_sums = total - _row_sums(I[te], T[te])
            else:
                K = self._shared_kernel(link)
                fold.dual[width] = dual_grid(K[np.ix_(tr, tr)], K[np.ix_(te, tr)], T[tr],
                                             T[te], self._alphas, False, predictions)
            yield fold

    def _dask_shared_folds(self, T, folds, link, predictions):
        """``_shared_folds`` on Dask rows: each split's training and validation sums from one
        pass; a scorer's validation rows of I made from X[te], selected chunk by chunk."""
        total, sums = self._dask_shared_sums(T, folds, link)
        width, work = total.AtA.shape[0], self._shared["work"]
        self._scale_penalties(lambda: np.trace(total.AtA), len(T), width)
        for (tr, te), (train_sums, val_sums) in zip(folds, sums):
            fold = _FoldData(tr, te, [width], False, work, train_sums, val_sums, T_val=T[te])
            if predictions:
                I = self._broad_map().transform(self._dask[0].take(te, self.sparse_weights_.dtype))
                fold.A_val = I[:, I.shape[1] - width:]
            yield fold

    def _refit_shared(self, link):
        """The readout at ``reg_`` on the shared layer (without the X' columns when the
        direct links were not chosen), its dual kernel reused."""
        if self._dask is not None:  # the primal Gram state of all rows, from the search's sums
            total, _ = self._dask_shared_sums(None, None, link)
            self.direct_links_ = link
            self.feature_nodes_ = self.targets_ = None
            self._rows_learned = total.n
            self.gram_ = BroadGram.primal_of(total, self.reg_)
            with serial_if_small(float(total.AtA.shape[0]) ** 3 / 3):
                return self._solve()
        # the search's sums of all rows (float64 layers): the primal refit needs no pass
        total = self._shared_total(None, link) if "total" in self._shared else None
        if not link and self._links():
            self.feature_nodes_ = np.ascontiguousarray(self.feature_nodes_[:, self._links():])
        self.direct_links_ = link
        form = self._preferred_form()
        with serial_if_small(self._shared["work"]):
            if form == "primal" and total is not None and self.feature_nodes_.dtype == np.float64:
                self.gram_ = BroadGram.primal_of(total, self.reg_)
            else:
                kernel = self._shared_kernel(link) if form == "dual" else None
                self.gram_ = self._build_gram(form, kernel)
            return self._solve()

    def _folds_data(self, X, y, T, folds, link, predictions):
        if self.shared_layer:
            yield from self._shared_folds(T, folds, link, predictions)
            return
        if self._dask is not None:
            yield from self._dask_split_folds(T, folds, link, predictions)
            return
        for tr, te in folds:
            layer = self._base(1.0, link)  # the layer does not depend on the penalty
            work = layer._fit_layer(X[tr], y[tr])
            with serial_if_small(work):
                yield self._fold(layer, X, T, tr, te, work, predictions)

    def _dask_split_folds(self, T, folds, link, predictions):
        """``_folds_data`` on Dask rows, a layer per split (``_dask_split_sums``); a scorer's
        validation rows of the split's I made from X[te], selected chunk by chunk."""
        rows, dtype = self._dask[0], self._dask[4]
        for (tr, te), layer, (train_sums, val_sums) in zip(folds, *self._dask_split_sums(
                folds, link)):
            width = train_sums.AtA.shape[0]
            self._scale_penalties(lambda: np.trace(train_sums.AtA), len(tr), width)
            fold = _FoldData(tr, te, [width], False, float(len(tr)) * width ** 2, train_sums,
                             val_sums, T_val=T[te])
            if predictions:
                I = layer.transform(rows.take(te, dtype))
                fold.A_val = I[:, I.shape[1] - width:]
            yield fold

    def _dask_split_sums(self, folds, link):
        """(layers, [(training, validation) sums per split]) on Dask rows: split k's layer
        (a ``BroadMap``) learned from ``layer_rows`` of its training rows, gathered here and
        drawn as the in-memory fit on X[tr] draws them; then one pass in which each chunk's
        task returns every split's sums of its own I (``DaskRows.split_gram_sums``). An int
        ``random_state`` draws the same layer with and without the direct links: the
        narrower setting is then the trailing block of the wider one's sums, no second pass."""
        cache = self._split_sums
        if not link and True in cache and isinstance(self.random_state, numbers.Integral):
            layers, sums = cache[True]
            cut = layers[0].links

            def narrow(s):
                return GramSums(s.n, s.AtA[cut:, cut:], s.AtT[cut:], s.TtT)
            cache[link] = (layers, [(narrow(tr), narrow(te)) for tr, te in sums])
        if link not in cache:
            rows, coding, _, _, dtype = self._dask
            fold_of = dask_test_folds(folds, rows.n_rows)  # before any row is read
            layers = []
            for tr, _ in folds:
                layer = self._base(1.0, link)
                layer._check_params()
                layer._fix_layout()
                layer.n_features_in_ = self.n_features_in_
                layer._fit_dask_layer(rows, dtype, tr)
                layers.append(layer._broad_map())
            cache[link] = (layers, rows.split_gram_sums(layers, coding, fold_of))
        return cache[link]

    def _fold(self, layer, X, T, tr, te, work, predictions):
        """The split's fold: training sums when its rows are at least the nodes, else the dual
        form's values from the kernels of the training rows' I (n_tr×n_tr, n_f×n_tr)."""
        width = layer._n_nodes()
        Z_val = layer._feature_nodes(layer._scale_inputs(X[te]))
        A_val = _broad_rows(layer, Z_val)
        fold = _FoldData(tr, te, [width], False, work, A_val=A_val, T_val=T[te])
        if len(tr) >= width:
            fold.train_sums = _broad_sums(layer, layer.feature_nodes_, layer.targets_)
            self._scale_penalties(lambda: np.trace(fold.train_sums.AtA), len(tr), width)
        else:
            A = _broad_rows(layer, layer.feature_nodes_)
            self._scale_penalties(lambda: np.einsum("ij,ij->", A, A), len(tr), width)
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
    regs : sequence of float > 0, optional
        Readout penalties C searched, used as given. Default: scaled by the data,
        C = s·10^k for k = −8, −7.5, …, 3 (23 values), s = tr(IᵀI) / min(n, P) with I (n×P)
        the broad features [Z | E] (| X' when the direct links are searched) of the first
        split's training rows (with ``shared_layer=True`` or cv='loo'/'gcv': of every row),
        read off the sums or kernel the search makes (docs/algorithms.md §5); ``regs_``
        holds them.
    direct_links : bool or list of bool, default=(False, True)
        I = [X' | Z | E] (``BLSRegressor(direct_links=True)``); a list is searched.
    cv, scoring, error_score :
        As in ``ELMRegressorCV``. With cv='loo' or 'gcv' the layer is fitted once on all
        rows, as with ``shared_layer=True``: the hat-matrix algebra holds I fixed.
    shared_layer : bool, default=False
        False: every split fits its own broad layer (scores equal ``GridSearchCV``'s). True:
        the label-free layer is fitted once on all rows and shared by the splits and the refit
        (one layer and one kernel instead of one per split and link setting; the validation
        rows inform the layer, not the readout). Dask input needs a KFold-like cv.
    layer_rows : int or 'auto', default='auto'
        Rows each broad layer is learned from (as in ``BLSRegressor``): ``layer_rows`` of a
        split's training rows for its layer, of all rows for the shared layer and the refit;
        'auto': every row in memory (the search is then the one before this parameter
        existed), at most 10000 of Dask input. More than a split's training rows: ValueError.

    Attributes
    ----------
    reg_, direct_links_ : the chosen point (``reg_`` also readable as ``reg``, used by the
        increments)
    regs_ : ndarray, the penalties searched
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
        return 2 * T - 1 if self.preprocessing_ == "reference" else T

    def _readout_coding(self, coding):
        return SignedTargets(coding) if self.preprocessing_ == "reference" else coding

    def _template(self):
        view = BLSClassifier(preprocessing=self.preprocessing)
        view.classes_ = self.classes_
        return view
