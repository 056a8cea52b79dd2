"""Optimally pruned extreme learning machine (OP-ELM, Miche et al. 2010; docs/algorithms.md §9).

The hidden layer H = g(XW + b) is drawn exactly as the ELM's (``fastelm.elm``); its nodes are
ranked by multiresponse sparse regression on H and T (``fastelm._mrsr``, LARS for one output),
and the number k of top-ranked nodes kept is the one of least leave-one-out error, PRESS(k),
computed exactly for every k from one QR of the ranked columns (``fastelm._press``). The
readout is the least-squares (ridge, with alpha > 0) fit on the k kept nodes; the fitted model
holds only those nodes.
"""
from __future__ import annotations

from numbers import Integral
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, RegressorMixin

from ._base import ClassifierOutputs, RegressorOutputs, fit_bytes
from ._mrsr import mrsr
from ._press import prefix_press
from ._ridge import ridge_fit
from ._validation import DType, Interval, RandomState, check_memory
from .elm import _ELM

if TYPE_CHECKING:
    from typing_extensions import Self


def ranking_bytes(n_rows: int, width: int, dtype: DType) -> float:
    """The largest arrays of an OP-ELM fit, in bytes: the readout inputs A (n×p, ``dtype``),
    their float64 copy and the ranked copy with its Q (3·8·n·p), and the p×p Gram matrix and
    M = AᵀQ of the ranking (2·8·p²)."""
    n, p = float(n_rows), float(width)
    return np.dtype(dtype).itemsize * n * p + 8 * (3 * n * p + 2 * p * p)


class _OPELM(_ELM):
    _parameter_constraints = {**_ELM._parameter_constraints,
                              "max_nodes": [None, Interval(Integral, 1, None, closed="left")]}

    def __init__(self, n_hidden: int = 100, activation: str = "tanh", alpha: float = 0.0,
                 direct_links: bool = False, random_state: RandomState = None,
                 dtype: DType = "float64", max_nodes: int | None = None,
                 weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         direct_links=direct_links, random_state=random_state, dtype=dtype,
                         weight_scale=weight_scale)
        self.max_nodes = max_nodes

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Draw W, b as the ELM does, rank the readout inputs by MRSR, keep the k of least
        PRESS and fit the readout on them.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        dtype = self._check_params()
        X, T = self._validate_Xy(X, y, dtype, reset=True)
        n, d = X.shape
        width = self.n_hidden + (d if self.direct_links else 0)
        check_memory(fit_bytes(self.n_hidden, d, dtype, n) + ranking_bytes(n, width, dtype),
                     type(self).__name__, f"n_hidden={self.n_hidden}")
        self._draw_weights(d, dtype, n)
        A = self._feature_map().transform(X)
        A64, T64 = A.astype(np.float64, copy=False), T.astype(np.float64, copy=False)
        self.ranking_ = mrsr(A64, T64, self.max_nodes)
        self.press_ = prefix_press(A64[:, self.ranking_], T64)
        self.n_selected_ = int(np.argmin(self.press_)) + 1 if self.press_.size else 0
        self.selected_ = self.ranking_[:self.n_selected_]
        self._keep(ridge_fit(A[:, self.selected_], T, self.alpha), d)
        return self

    def _keep(self, beta, n_features):
        """W_, b_ ← the selected nodes (rank order) and beta_ ← their readout rows; with
        direct links beta_ has a row per input (0 for inputs not selected) before them."""
        selected = self.selected_
        if not self.direct_links:
            self.W_, self.b_, self.beta_ = self.W_[:, selected], self.b_[selected], beta
            return
        is_node = selected >= n_features
        nodes = selected[is_node] - n_features
        self.W_, self.b_ = self.W_[:, nodes], self.b_[nodes]
        self.beta_ = np.zeros((n_features + len(nodes), beta.shape[1]), dtype=beta.dtype)
        self.beta_[selected[~is_node]] = beta[~is_node]
        self.beta_[n_features:] = beta[is_node]


# the estimators' common Parameters section ({elm}: the ELM drawing the same layer)
_PARAMETERS = """    Parameters
    ----------
    n_hidden : int, default=100
        Hidden nodes L drawn (as ``{elm}(n_hidden=L)`` draws them) before pruning.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b); 'tansig' is a synonym of 'tanh'.
    alpha : float, default=0
        Ridge penalty of the final readout on the kept nodes. 0 is OP-ELM's least squares,
        the fit whose leave-one-out error chose them (the choice is always made with 0).
    direct_links : bool, default=False
        Rank the inputs with the hidden nodes, A = [X, g(XW + b)] (OP-ELM's linear neurons):
        the kept inputs enter the readout linearly.
    random_state : int, numpy Generator or None
        Seeds W, b; the same seed gives the same model at any thread count.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the hidden layer and the readout (ranking and PRESS are float64).
    max_nodes : int or None, default=None
        Rank at most this many readout inputs (all when None); k ≤ max_nodes.
    weight_scale : 'auto' or float > 0, default='auto'
        s in W ~ U(-s, s), b ~ U(-1, 1), as in ``{elm}`` ('auto': 1/√d); the s used is
        ``weight_scale_``.

"""


def _parameters(elm):
    return _PARAMETERS.replace("{elm}", elm)


class OPELMRegressor(RegressorOutputs, RegressorMixin, _OPELM):
    __doc__ = f"""Optimally pruned ELM regressor: MRSR-ranked hidden nodes, the number kept by exact
    leave-one-out error.

{_parameters('ELMRegressor')}    Attributes
    ----------
    ranking_ : ndarray of int
        Columns of A (H, or [X, H] with direct links) in the order MRSR ranked them.
    press_ : ndarray of shape (len(ranking_),)
        PRESS(k) = Σ_i ‖e_i(k) / (1 − h_ii(k))‖², the leave-one-out squared error of the
        least-squares fit on the first k ranked columns, for k = 1, 2, ...
    n_selected_ : int
        k, the argmin of PRESS.
    selected_ : ndarray of int
        ranking_[:k], the kept columns of A in rank order.
    W_, b_ : the kept nodes' input weights (d×k') and biases (k'), in rank order
    beta_ : readout (k'×m; (d+k')×m with direct links, X's rows first)

    Examples
    --------
    >>> from fastelm import OPELMRegressor
    >>> import numpy as np
    >>> X = np.linspace(-1, 1, 200)[:, None]
    >>> model = OPELMRegressor(n_hidden=50, random_state=0).fit(X, np.sin(3 * X[:, 0]))
    >>> model.n_selected_ < 50, model.score(X, np.sin(3 * X[:, 0])) > 0.99
    (True, True)

    References
    ----------
    Miche, Sorjamaa, Bas, Simula, Jutten & Lendasse (2010), OP-ELM: optimally pruned extreme
    learning machine, IEEE Trans. Neural Networks 21(1). Similä & Tikka (2005), Multiresponse
    sparse regression with application to multidimensional scaling, ICANN.
    """


class OPELMClassifier(ClassifierOutputs, ClassifierMixin, _OPELM):
    __doc__ = f"""Optimally pruned ELM classifier (one-hot least-squares targets; nodes ranked by MRSR
    on all class columns, the number kept by the PRESS of those targets).

{_parameters('ELMClassifier')}    Attributes
    ----------
    classes_ : sorted class labels
    ranking_, press_, n_selected_, selected_, W_, b_ : as in OPELMRegressor
    beta_ : readout, k'×n_classes ((d+k')×n_classes with direct links)
    """
