"""Extreme learning machines: batch (ELM) and online sequential (OS-ELM) estimators.

ELM (Huang et al. 2006): H = g(XW + b) with random W, b; beta = ridge fit of T on H.
OS-ELM (Liang et al. 2006): the same readout updated chunk by chunk by recursive least squares;
after any chunking it equals the batch ELM on every row seen (same W, b, alpha).
"""
from sklearn.base import ClassifierMixin, RegressorMixin

from ._base import BaseRandomLayerReadout, ClassifierOutputs, RegressorOutputs
from ._gram import DirectLinksMap, gram_sums
from ._rls import RecursiveRidge


class _ELM(BaseRandomLayerReadout):
    _parameter_constraints = {**BaseRandomLayerReadout._parameter_constraints,
                              "direct_links": ["boolean"]}

    def __init__(self, n_hidden=100, activation="tanh", alpha=1e-3, direct_links=False,
                 random_state=None, dtype="float64"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype)
        self.direct_links = direct_links

    def _feature_map(self):
        """A = g(XW + b), or A = [X, g(XW + b)] with direct links."""
        layer = super()._feature_map()
        return DirectLinksMap(layer, self.W_.shape[0]) if self.direct_links else layer

    def fit(self, X, y):
        """Draw W, b and fit the readout beta = (HᵀH + alpha I)⁻¹ HᵀT (or its dual form).

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
        self._draw_weights(rows.n_features, dtype)
        self.beta_ = rows.ridge_readout(self._feature_map(), coding, self.alpha)
        return self


class _OSELM(BaseRandomLayerReadout):
    # each chunk's update is a Gram sum (an information step may take AᵀA, AᵀT alone);
    # False for subclasses whose update also looks at the chunk's rows (FOS-ELM pruning)
    _gram_updates = True

    def fit(self, X, y):
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
        for name in ("rls_", "W_", "b_", "classes_"):
            self.__dict__.pop(name, None)

    def _partial_fit(self, X, y, classes=None):
        first = fresh = not hasattr(self, "rls_")
        dtype = self._check_params() if first else self.W_.dtype
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
        """Absorb one block of rows (X, T) by the cheaper exact form of the recursive ridge."""
        if self._gram_updates and self.rls_.choose_form(X.shape[0]) == "information":
            # only the sums HᵀH, HᵀT are needed: made block by block, H never held whole
            sums = gram_sums(X, T, self._feature_map())
            self.rls_.add_gram(sums.AtA, sums.AtT, sums.n)
        else:
            self._absorb(self._hidden(X), T, first)

    @property
    def beta_(self):
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
        self.rls_ = RecursiveRidge(self.n_hidden, n_outputs, self.alpha)
        return rng

    def _absorb(self, H, T, first):
        """Learn one chunk's hidden outputs H and targets T."""
        self.rls_.update(H, T)


class ELMRegressor(RegressorOutputs, RegressorMixin, _ELM):
    """Extreme learning machine regressor, single or multi-output.

    Parameters
    ----------
    n_hidden : int, default=100
        Number of hidden nodes L.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float, default=1e-3
        Ridge penalty (1/C) of the readout.
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs in the readout, A = [X, g(XW + b)] (the RVFL
        form); beta_ then has d + L rows, X's first. With a selected penalty the model is then
        never worse than ridge on the inputs: on wide data the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds W, b ~ U(-1, 1); the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).

    Attributes
    ----------
    W_, b_ : random input weights (d×L) and biases (L)
    beta_ : readout (L×m; (d+L)×m with direct links)

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
    alpha : float, default=1e-3
        Ridge penalty (1/C) of the readout.
    direct_links : bool, default=False
        Put the inputs beside the hidden outputs in the readout, A = [X, g(XW + b)] (the RVFL
        form); beta_ then has d + L rows, X's first. With a selected penalty the model is then
        never worse than ridge on the inputs: on wide data the linear part is most of the signal.
    random_state : int, numpy Generator or None
        Seeds W, b ~ U(-1, 1); the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).

    Attributes
    ----------
    classes_ : sorted class labels
    W_, b_, beta_ : as in ELMRegressor; beta_ is L×n_classes
    """


class OSELMRegressor(RegressorOutputs, RegressorMixin, _OSELM):
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
        Seeds W, b ~ U(-1, 1); the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).

    Attributes
    ----------
    W_, b_, beta_ : as in ELMRegressor
    rls_ : RecursiveRidge, the K = HᵀH + alpha I, P = K⁻¹ and beta state

    References
    ----------
    Liang, Huang, Saratchandran & Sundararajan (2006), A fast and accurate online sequential
    learning algorithm for feedforward networks.
    """

    def partial_fit(self, X, y):
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


class OSELMClassifier(ClassifierOutputs, ClassifierMixin, _OSELM):
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
        Seeds W, b ~ U(-1, 1); the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and its products (the L×L solve is always float64).
    """

    def partial_fit(self, X, y, classes=None):
        """Absorb one chunk: beta becomes the ridge fit on every row seen so far.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,)
        classes : array-like, default=None
            Every label ever to appear; required on the first call (except for Dask input,
            whose labels are then found by a pass over y).

        Returns
        -------
        self
        """
        self._check_first_call(X, y, classes)
        return self._partial_fit(X, y, classes=classes)
