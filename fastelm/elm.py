"""Extreme learning machines: batch (ELM) and online sequential (OS-ELM) estimators.

ELM (Huang et al. 2006): H = g(XW + b) with random W, b; beta = ridge fit of T on H.
OS-ELM (Liang et al. 2006): the same readout updated chunk by chunk by recursive least squares;
after any chunking it equals the batch ELM on every row seen (same W, b, alpha).
"""
from __future__ import annotations

from numbers import Integral, Real
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from ._base import BaseRandomLayerReadout, ClassifierOutputs, RegressorOutputs
from ._gram import gram_sums
from ._hidden import DirectLinksMap, check_activation
from ._kernels.stream import logistic_rows, test_then_train
from ._recursive_ridge import RecursiveRidge, information_flops, woodbury_flops
from ._ridge import RCOND_MIN
from ._rows import is_dask_input
from ._hat import GCV
from ._validation import NONNEGATIVE, DType, Interval, RandomState, StrOptions, check_unchanged

if TYPE_CHECKING:
    from typing_extensions import Self

# parameters fixed by the first partial_fit (a change in between would mix two models)
_STREAM_FIXED = ("n_hidden", "activation", "alpha", "dtype", "window", "direct_links",
                 "loss", "weight_scale")


def _with_direct_links(model, layer):
    """The readout inputs' map: ``layer``, or [X, layer(X)] when ``model.direct_links_``."""
    return DirectLinksMap(layer, model.W_.shape[0]) if model.direct_links_ else layer


class _ELM(BaseRandomLayerReadout):
    _parameter_constraints = {**BaseRandomLayerReadout._parameter_constraints,
                              "alpha": [*NONNEGATIVE, StrOptions({GCV})],
                              "direct_links": ["boolean"]}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh", alpha: float | str = GCV,
                 direct_links: bool = False, random_state: RandomState = None,
                 dtype: DType = "float64", weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype, weight_scale=weight_scale)
        self.direct_links = direct_links

    def _feature_map(self):
        """A = g(XW + b), or A = [X, g(XW + b)] with direct links."""
        return _with_direct_links(self, super()._feature_map())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Draw W, b and fit the readout beta = (HᵀH + alpha I)⁻¹ HᵀT (or its dual form),
        alpha='gcv' chosen first from the same Gram sums (``fastelm._hat``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
            Dask collections are fitted chunk by chunk on their workers (``fastelm.dask``).
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        dtype = self._check_params()
        rows, coding = self._training_rows(X, y, dtype, reset=True)
        self._draw_weights(rows.n_features, dtype, rows.n_rows)
        self.beta_, alpha = rows.ridge_readout(self._feature_map(), coding, self.alpha)
        self.alpha_ = float(alpha)
        return self


class _OSELM(BaseRandomLayerReadout):
    # what a first partial_fit takes instead of classes (ClassifierOutputs._check_first_call)
    _classes_alternative = ", or classes='grow' to add labels as they come"
    # each chunk's update is a Gram sum (an information step may take AᵀA, AᵀT alone);
    # False for subclasses whose update also looks at the chunk's rows (FOS-ELM pruning)
    _gram_updates = True
    # a parameter of the OS-ELM estimators (_DirectLinkedOSELM); FOS-ELM prunes hidden nodes
    # and has none
    direct_links = False
    # a parameter of OSELMClassifier: 'logistic' reweights each chunk's rows (_learn)
    loss = "squared"
    _parameter_constraints = {**BaseRandomLayerReadout._parameter_constraints,
                              "forgetting_factor": [Interval(Real, 0, 1, closed="right")],
                              "window": [None, Interval(Integral, 1, None, closed="left")]}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh", alpha: float = 1e-3,
                 random_state: RandomState = None, dtype: DType = "float64",
                 forgetting_factor: float = 1.0, window: int | None = None,
                 weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype, weight_scale=weight_scale)
        self.forgetting_factor = forgetting_factor
        self.window = window

    def _check_params(self):
        dtype = super()._check_params()
        if self.window is not None:
            if self.forgetting_factor != 1:
                raise ValueError("window and forgetting_factor < 1 cannot be combined: rows "
                                 "leaving the window are removed at their full weight")
            if self.alpha == 0 and self.window < self.n_hidden:
                raise ValueError(f"window={self.window} < n_hidden={self.n_hidden} needs "
                                 "alpha > 0 (the ridge system of fewer rows than nodes is "
                                 "singular)")
        return dtype

    def _check_unchanged(self):
        """Later partial_fit: parameters valid, and those fixed at the first call unchanged."""
        self._check_params()
        check_unchanged(self, dict(zip(_STREAM_FIXED, self._stream_fixed)),
                        "the first partial_fit")
        self.rls_.forgetting_factor = float(self.forgetting_factor)
        return self.W_.dtype

    def _feature_map(self):
        """A = g(XW + b), or A = [X, g(XW + b)] with direct links."""
        return _with_direct_links(self, super()._feature_map())

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Start afresh and learn (X, y) as one chunk.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        self._forget()
        return self._partial_fit(X, y)

    def _forget(self):
        for name in ("rls_", "W_", "b_", "weight_scale_", "classes_", "window_X_", "window_T_",
                     "window_w_", "_grow"):
            self.__dict__.pop(name, None)

    def _refuse_dask_stream(self):
        if self.forgetting_factor != 1 or self.window is not None or \
                getattr(self, "_grow", False) or self.loss != "squared":
            raise ValueError("forgetting_factor, window, loss='logistic' and classes='grow' "
                             "need in-memory chunks; Dask collections are learned with the "
                             "plain OS-ELM")

    def _partial_fit(self, X, y, classes=None):
        first = fresh = not hasattr(self, "rls_")
        if is_dask_input(X, y):
            self._refuse_dask_stream()
        dtype = self._check_params() if first else self._check_unchanged()
        try:
            rows, coding = self._training_rows(X, y, dtype, reset=first, classes=classes)
            if first:
                self._start(rows.n_features, coding.n_outputs, dtype)
            if rows.distributed and self._gram_updates and not rows.sequential:
                # one information step with the Gram sums of every chunk, tree-added
                sums = rows.gram_sums(self._feature_map(), coding)
                self.rls_.add_gram(sums.AtA, sums.AtT, sums.n)
                return self
            for X_block, T_block in rows.blocks(coding):
                self._learn(X_block, T_block, first)
                first = False
        except BaseException:
            if fresh:
                self._forget()
            raise
        return self

    def _learn(self, X, T, first):
        """Absorb one block of rows (X, T) by the cheaper exact form of the recursive ridge;
        with ``window``, then remove the rows that leave it. With loss='logistic' the rows
        enter with the weights and working targets of the model's scores before the block."""
        weights = None
        if self.loss == "logistic":
            H = self._hidden(X)
            U, weights = np.empty(T.shape), np.empty(len(T))
            logistic_rows(np.asarray(H @ self.beta_, dtype=np.float64), T, U, weights)
            T = U.astype(T.dtype)
            self.rls_.update(H, T, weights=weights)
        elif self._gram_updates and self.rls_.forgetting_factor == 1 and \
                self.rls_.choose_form(X.shape[0]) == "information":
            # only the sums HᵀH, HᵀT are needed: made block by block, H never held whole
            sums = gram_sums(X, T, self._feature_map())
            self.rls_.add_gram(sums.AtA, sums.AtT, sums.n)
        else:
            self._absorb(self._hidden(X), T, first)
        if self.window is not None:
            self._slide_window(X, T, weights)

    def _slide_window(self, X, T, weights=None):
        """Store the chunk's rows (and weights); remove exactly those beyond the last
        ``window``."""
        if hasattr(self, "window_X_"):
            X, T = np.vstack([self.window_X_, X]), np.vstack([self.window_T_, T])
            if weights is not None:
                weights = np.r_[self.window_w_, weights]
        else:  # kept rows are copies: a caller may refill its arrays with the next chunk
            X, T = np.array(X), np.array(T)
        leave = len(X) - self.window
        if leave > 0:
            self.rls_.downdate(self._hidden(X[:leave]), T[:leave],
                               weights=None if weights is None else weights[:leave])
            X, T = X[leave:], T[leave:]
            weights = None if weights is None else weights[leave:]
        self.window_X_, self.window_T_ = X, T
        if weights is not None:
            self.window_w_ = weights

    def _add_classes(self, y):
        """Readout columns for the labels of y not in classes_ (0 as their past targets)."""
        y = column_or_1d(y)
        check_classification_targets(y)
        new = np.setdiff1d(np.unique(y), self.classes_)
        if new.size:
            positions = np.searchsorted(self.classes_, new)
            self.classes_ = np.insert(self.classes_, positions, new)
            self.rls_.add_outputs(positions)
            if hasattr(self, "window_T_"):
                self.window_T_ = np.insert(self.window_T_, positions, 0, axis=1)

    def forget(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Remove rows learned earlier, exactly: the readout becomes the ridge fit on the rows
        that remain (a deletion request, a retention rule).

        The rows must be ones the model learned (it keeps no rows to check). ValueError when
        the remaining rows leave the ridge system singular (alpha = 0), once any row was learned
        with forgetting_factor < 1 (the rows' weights have decayed by their age, which is not
        kept: also after forgetting_factor was set back to 1) or with ``window`` (which
        removes rows itself).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        check_is_fitted(self, "rls_")
        if self.loss == "logistic":
            raise ValueError("forget is not available with loss='logistic': the rows' weights "
                             "came from the model as it was when they were learned")
        if self.window is not None:
            raise ValueError("forget is not available with window=n: the window removes its "
                             "rows itself")
        X, T = self._validate_Xy(X, y, self._check_unchanged(), reset=False)
        self.rls_.downdate(self._hidden(X), T)
        return self

    def _test_then_train(self, X, y, stops):
        """For ``fastelm.stream.prequential``: the labels ``predict`` gives each chunk
        [stops[c − 1], stops[c]) of (X, y), c ≥ 1, each chunk then learned as ``partial_fit``
        learns it. X and y are checked and coded once here, not per chunk; None for a
        regressor or a model growing its classes (new labels need the per-call path).

        The chunks run in one compiled loop (``fastelm._kernels.stream``, equal to the
        per-chunk path to rounding) when each is an information step of a float64 model
        with alpha > 0; otherwise, or from where the loop hands back, chunk by chunk through
        ``_learn`` (bit for bit the per-call path).
        """
        if not hasattr(self, "classes_") or getattr(self, "_grow", False):
            return None
        X, T = self._validate_Xy(X, y, self._check_unchanged(), reset=False)
        stops = np.asarray(stops, dtype=np.int64)
        index = np.empty(len(X), dtype=np.int64)
        done = self._compiled_chunks(X, T, stops, index) if self._compiles(stops) else 0
        for start, stop in zip(stops[done:-1], stops[done + 1:]):
            X_chunk = X[start:stop]
            index[start:stop] = np.argmax(self._hidden(X_chunk) @ self.beta_, axis=1)
            self._learn(X_chunk, T[start:stop], False)
        return self.classes_[index[stops[0]:]]

    def _compiles(self, stops):
        """Whether the compiled loop applies: float64, alpha > 0, no node pruning, and every
        chunk an information step (always with forgetting or row weights; otherwise when it
        costs fewer flops than a Woodbury step)."""
        rls = self.rls_
        if not (self._gram_updates and self.W_.dtype == np.float64 and self.alpha > 0):
            return False
        if rls.forgetting_factor != 1.0 or self.loss == "logistic":
            return True
        L, m = rls.HtT.shape
        n = np.diff(stops)
        return bool(np.all(information_flops(n, L, m) <= woodbury_flops(n, L, m)))

    def _compiled_chunks(self, X, T, stops, index):
        """Run the chunks through ``fastelm._kernels.stream.test_then_train`` on the state
        of ``rls_`` (and the window's rows); returns the chunks learned."""
        rls, held, first = self.rls_, len(getattr(self, "window_X_", ())), stops[0]
        logistic = self.loss == "logistic"
        shift = held - first
        if held and held <= first and np.array_equal(X[first - held:first], self.window_X_):
            # the window holds the rows just before the first chunk (as in prequential): the
            # stream from there, its targets there replaced by the window's (weighted) ones
            X, T = X[first - held:], T[first - held:]
            T[:held] = self.window_T_
        elif held:  # the window's rows before the first chunk, then the stream
            X = np.vstack([self.window_X_, X[first:]])
            T = np.vstack([self.window_T_, T[first:]])
        else:
            X, T = X[first:], T[first:]
        # T: this stream's own coded targets (the loop writes the weighted ones into it)
        X, T = np.ascontiguousarray(X), np.ascontiguousarray(T, dtype=np.float64)
        weights = np.ones(len(X))
        if logistic and held:
            weights[:held] = self.window_w_
        predicted = np.empty(len(X), dtype=np.int64)
        K, HtT = np.array(rls.K), np.array(rls.HtT, dtype=np.float64)
        done = test_then_train(X, T, weights, self.W_, self.b_,
                               check_activation(self.activation_), bool(self.direct_links_),
                               logistic, K, HtT, rls.alpha, rls.forgetting_factor,
                               self.window or 0, stops + shift, RCOND_MIN, predicted)
        last = stops[done] + shift
        index[stops[0]:stops[done]] = predicted[stops[0] + shift:last]
        if self.window is None:
            rls.take_sums(K, HtT, rls.n_seen + stops[done] - stops[0], int(done))
        else:  # each chunk an addition, and a removal once rows leave the window
            keep = max(0, last - self.window)
            removals = int(np.sum(stops[1:done + 1] + shift > self.window))
            rls.take_sums(K, HtT, last - keep, int(done) + removals)
            # copies: X may be the caller's stream, T is the whole stream's targets
            self.window_X_, self.window_T_ = X[keep:last].copy(), T[keep:last].copy()
            if logistic:
                self.window_w_ = weights[keep:last].copy()
        return done

    @property
    def beta_(self) -> np.ndarray:
        """Readout (L×m) on every row seen: solved when first read after a chunk (``rls_``)."""
        try:
            rls, W = self.__dict__["rls_"], self.__dict__["W_"]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no beta_ before it is fitted") \
                from None
        return rls.beta_as(W.dtype)

    def _start(self, n_features, n_outputs, dtype):
        """First chunk: draw the hidden layer and an empty recursive ridge; returns the rng."""
        rng = self._draw_weights(n_features, dtype)
        self.rls_ = RecursiveRidge(self._feature_map().width, n_outputs, self.alpha,
                                   float(self.forgetting_factor))
        self._stream_fixed = tuple(getattr(self, name) for name in _STREAM_FIXED)
        return rng

    def _absorb(self, H, T, first):
        """Learn one chunk's hidden outputs H and targets T."""
        self.rls_.update(H, T)


class _DirectLinkedOSELM(_OSELM):
    """The OS-ELM estimators: ``_OSELM`` with the ``direct_links`` parameter (last, so the
    earlier parameters keep their positions)."""

    _parameter_constraints = {**_OSELM._parameter_constraints, "direct_links": ["boolean"]}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh", alpha: float = 1e-3,
                 random_state: RandomState = None, dtype: DType = "float64",
                 forgetting_factor: float = 1.0, window: int | None = None,
                 direct_links: bool = False, weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype,
                         forgetting_factor=forgetting_factor, window=window,
                         weight_scale=weight_scale)
        self.direct_links = direct_links


def _check_classes(classes):
    """``classes=`` of partial_fit: a 1-D list of labels, no NaN or None."""
    labels = np.asarray(classes)
    missing = labels.dtype.kind == "f" and not np.isfinite(labels).all() or \
        labels.dtype.kind == "O" and any(c is None or c != c for c in labels.ravel())
    if labels.ndim != 1 or missing:
        raise ValueError(f"classes must be a 1-D list of labels without NaN or None, or "
                         f"'grow'; got {classes!r}")
    return labels


_Online = TypeVar("_Online", bound=_OSELM)


def partial_fit_classifier(model: _Online, X: ArrayLike, y: ArrayLike,
                           classes: ArrayLike | str | None) -> _Online:
    """An online classifier's partial_fit with ``classes`` checked (shared by OS-ELM, FOS-ELM).

    First call: ``classes`` is every label ever to appear, or 'grow' (the first chunk's
    labels, at least two; a later chunk's new label adds a readout column whose past targets
    were 0, exactly the model that had it from the start). Later calls: None, 'grow' in grow
    mode, or the same labels as before.
    """
    first = not hasattr(model, "rls_")
    growing = getattr(model, "_grow", False)
    if isinstance(classes, str) and classes == "grow":
        if is_dask_input(X, y):
            raise ValueError("classes='grow' needs in-memory chunks")
        if not first and not growing:
            raise ValueError(f"classes='grow' differs from the first partial_fit's classes "
                             f"{model.classes_.tolist()}; call fit or a fresh estimator")
        if model.loss == "logistic":
            raise ValueError("classes='grow' is not available with loss='logistic': a new "
                             "label's column changes every past row's weight")
        classes, growing = (np.unique(column_or_1d(y)) if first else None), True
    elif classes is not None:
        classes = _check_classes(classes)
        if not first and growing:
            raise ValueError("classes differs from the first partial_fit's ('grow'): pass "
                             "None or 'grow' on later calls")
    if growing and not first:
        model._add_classes(y)
    model._check_first_call(X, y, classes)
    model._partial_fit(X, y, classes=classes)
    model._grow = growing
    return model


class ELMRegressor(RegressorOutputs, RegressorMixin, _ELM):
    """Extreme learning machine regressor, single or multi-output.

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float or 'gcv', default='gcv'
        Ridge penalty (1/C) of the readout. 'gcv': the penalty of the data-scaled grid
        α_k = s·10^k (k = −8, −7.5, …, 3; s the mean eigenvalue of HᵀH, or of HHᵀ with fewer
        rows than nodes) with the best generalised cross-validation score, read off the Gram
        sums the fit makes anyway (one L×L eigendecomposition; docs/algorithms.md §1). The
        penalty used is ``alpha_``. A number is used as is (1e-3 was the default before).
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs in the readout, A = [X, g(XW + b)] (the RVFL
        form); beta_ then has d + L rows, X's first. With a selected penalty the model is then
        never worse than ridge on the inputs: on wide data the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds W, b; the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s)^{d×L}; the biases stay b ~ U(-1, 1). 'auto' is s = 1/√d, which keeps
        the pre-activations x·w + b of standardised inputs out of g's saturation whatever the
        number of inputs d (docs/algorithms.md §1); 1.0 is the U(-1, 1) draw of Huang et al.
        (2006). The s used is ``weight_scale_``.

    Attributes
    ----------
    W_, b_ : random input weights (d×L) and biases (L)
    weight_scale_ : float, the s of W_ ~ U(-s, s)
    beta_ : readout (L×m; (d+L)×m with direct links)
    alpha_ : float, the penalty beta_ was solved with

    Examples
    --------
    >>> from fastelm import ELMRegressor
    >>> import numpy as np
    >>> X = np.linspace(-1, 1, 200)[:, None]
    >>> ELMRegressor(n_hidden=20, random_state=0).fit(X, np.sin(3 * X[:, 0])).score(X, np.sin(3 * X[:, 0])) > 0.99
    True

    References
    ----------
    Huang, Zhu & Siew (2006), Extreme learning machine: theory and applications.
    """


class ELMClassifier(ClassifierOutputs, ClassifierMixin, _ELM):
    """Extreme learning machine classifier (one-hot least-squares targets).

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float or 'gcv', default='gcv'
        Ridge penalty (1/C) of the readout. 'gcv': the penalty of the data-scaled grid
        α_k = s·10^k (k = −8, −7.5, …, 3; s the mean eigenvalue of HᵀH, or of HHᵀ with fewer
        rows than nodes) with the best generalised cross-validation score, read off the Gram
        sums the fit makes anyway (one L×L eigendecomposition; docs/algorithms.md §1). The
        penalty used is ``alpha_``. A number is used as is (1e-3 was the default before).
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs in the readout, A = [X, g(XW + b)] (the RVFL
        form); beta_ then has d + L rows, X's first. With a selected penalty the model is then
        never worse than ridge on the inputs: on wide data the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds W, b; the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s)^{d×L}; the biases stay b ~ U(-1, 1). 'auto' is s = 1/√d, which keeps
        the pre-activations x·w + b of standardised inputs out of g's saturation whatever the
        number of inputs d (docs/algorithms.md §1); 1.0 is the U(-1, 1) draw of Huang et al.
        (2006). The s used is ``weight_scale_``.

    Attributes
    ----------
    classes_ : sorted class labels
    W_, b_, weight_scale_, beta_, alpha_ : as in ELMRegressor; beta_ is L×n_classes
    """


class OSELMRegressor(RegressorOutputs, RegressorMixin, _DirectLinkedOSELM):
    """Online sequential ELM regressor: ``partial_fit`` chunk by chunk, any chunk size.

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float, default=1e-3
        Ridge penalty (1/C) of the readout.
    random_state : int, numpy Generator or None
        Seeds W, b; the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).
    forgetting_factor : float in (0, 1], default=1
        λ: the readout is the ridge fit with row i of N weighted λ^(N−1−i), the ridge term
        kept at alpha (``fastelm._recursive_ridge``); the memory is about 1/(1 − λ) rows, the
        same for any chunking. 1 is plain OS-ELM; may be changed between ``partial_fit`` calls.
    window : int or None, default=None
        Keep only the last ``window`` rows: after each chunk the rows that leave are removed
        exactly, so the model always equals the batch fit on the last ``window`` rows (which
        are stored in ``window_X_``, ``window_T_``). Needs alpha > 0 when shorter than
        ``n_hidden``; not with forgetting_factor < 1.
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs, A = [X, g(XW + b)] (the RVFL form, as in
        ``ELMRegressor``): the recursive ridge then runs on d + L columns, X's first, and
        ``beta_`` has d + L rows. A linear concept (a drifting hyperplane) is then tracked by
        the linear part, the hidden nodes adding what is not linear.
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s)^{d×L}; the biases stay b ~ U(-1, 1). 'auto' is s = 1/√d, which keeps
        the pre-activations x·w + b of standardised inputs out of g's saturation whatever the
        number of inputs d (docs/algorithms.md §1); 1.0 is the U(-1, 1) draw of Huang et al.
        (2006). The s used is ``weight_scale_``.

    Attributes
    ----------
    W_, b_, weight_scale_, beta_ : as in ELMRegressor (beta_ has d + L rows with direct
        links); weight_scale is fixed by the first ``partial_fit``, as the layer is
    rls_ : RecursiveRidge, the K = AᵀA + alpha I, P = K⁻¹ and beta state (A = H, or [X, H])

    References
    ----------
    Liang, Huang, Saratchandran & Sundararajan (2006), A fast and accurate online sequential
    learning algorithm for feedforward networks.
    """

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Absorb one chunk: beta becomes the ridge fit on every row seen so far.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        return self._partial_fit(X, y)


class OSELMClassifier(ClassifierOutputs, ClassifierMixin, _DirectLinkedOSELM):
    """Online sequential ELM classifier; give ``classes`` on the first ``partial_fit``.

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float, default=1e-3
        Ridge penalty (1/C) of the readout.
    random_state : int, numpy Generator or None
        Seeds W, b; the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).
    forgetting_factor : float in (0, 1], default=1
        λ: the readout is the ridge fit with row i of N weighted λ^(N−1−i), the ridge term
        kept at alpha (``fastelm._recursive_ridge``); the memory is about 1/(1 − λ) rows, the
        same for any chunking. 1 is plain OS-ELM; may be changed between ``partial_fit`` calls.
    window : int or None, default=None
        Keep only the last ``window`` rows: after each chunk the rows that leave are removed
        exactly, so the model always equals the batch fit on the last ``window`` rows (which
        are stored in ``window_X_``, ``window_T_``). Needs alpha > 0 when shorter than
        ``n_hidden``; not with forgetting_factor < 1.
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs, A = [X, g(XW + b)] (the RVFL form, as in
        ``ELMRegressor``): the recursive ridge then runs on d + L columns, X's first, and
        ``beta_`` has d + L rows. A linear concept (a drifting hyperplane) is then tracked by
        the linear part, the hidden nodes adding what is not linear.
    loss : {'squared', 'logistic'}, default='squared'
        'squared': the ridge fit of the 0/1 class codes (OS-ELM). 'logistic': each chunk's
        rows are learned with the weight and working target of one IRLS (Newton) step of the
        softmax loss at the scores the model gave them before learning them: with
        p_i = softmax(s_i), w_i = Σ_j p_ij (1 − p_ij) and z_i = s_i + (t_i − p_i) / w_i, the
        readout is the ridge fit of the rows weighted w_i (times λ^(N−1−i) with forgetting) on
        z_i, still an exact recursive ridge (windows remove the same weighted rows; their
        weighted targets w_i z_i are kept in ``window_T_``, the weights in ``window_w_``).
        With two classes the decision s_1 − s_0 is then recursive IRLS for ridge logistic
        regression (penalty alpha / 2). Rows far on the right side of the boundary weigh
        little, as in logistic regression; the model depends on the chunking, and
        ``forget`` and classes='grow' are not available.
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s)^{d×L}; the biases stay b ~ U(-1, 1). 'auto' is s = 1/√d, which keeps
        the pre-activations x·w + b of standardised inputs out of g's saturation whatever the
        number of inputs d (docs/algorithms.md §1); 1.0 is the U(-1, 1) draw of Huang et al.
        (2006). The s used is ``weight_scale_``.

    References
    ----------
    Liang, Huang, Saratchandran & Sundararajan (2006), A fast and accurate online sequential
    learning algorithm for feedforward networks. IRLS: Hastie, Tibshirani & Friedman (2009),
    The Elements of Statistical Learning, 2nd ed., Springer, §4.4.1.
    """

    _parameter_constraints = {**_DirectLinkedOSELM._parameter_constraints,
                              "loss": [StrOptions({"squared", "logistic"})]}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh", alpha: float = 1e-3,
                 random_state: RandomState = None, dtype: DType = "float64",
                 forgetting_factor: float = 1.0, window: int | None = None,
                 direct_links: bool = False, loss: str = "squared",
                 weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype,
                         forgetting_factor=forgetting_factor, window=window,
                         direct_links=direct_links, weight_scale=weight_scale)
        self.loss = loss

    def partial_fit(self, X: ArrayLike, y: ArrayLike,
                    classes: ArrayLike | str | None = None) -> Self:
        """Absorb one chunk: beta becomes the ridge fit on every row seen so far.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,)
        classes : array-like or 'grow', default=None
            Required on the first call (except for Dask input, whose labels are then found
            by a pass over y): every label ever to appear, or 'grow' (the first chunk's
            labels; a new label later adds a readout column whose past targets were 0,
            exactly the model that had it from the start). Later calls: None or the same.

        Returns
        -------
        self
        """
        return partial_fit_classifier(self, X, y, classes)
