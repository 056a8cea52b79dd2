"""FOS-ELM: an OS-ELM whose hidden nodes are pruned by EFAST sensitivity.

From the FOS-ELM paper (an online sequential ELM pruned by EFAST, Fuzhou Institute of Technology).

Start with a deliberately large hidden layer. The first chunk initialises the readout as in
OS-ELM. For every later chunk (docs/algorithms.md §4):
  1. Z = g(X W + b), the chunk's hidden outputs on the nodes still alive;
  2. S_Tj, the EFAST total index of node j for the readout z ↦ z beta, with z_j ranging over the
     chunk's observed [min Z_j, max Z_j] (``fastelm.global_sensitivity.hidden_node_sensitivity``);
  3. the nodes with S_Tj < delta are deleted, lowest first, never below ``min_nodes``;
  4. the readout is re-adjusted exactly (``RecursiveRidge.remove_nodes``: K ← K_RR,
     beta ← beta_R + K_RR⁻¹ K_RD beta_D), so it equals the ridge fit of the kept nodes on every
     row seen so far;
  5. the OS-ELM update with the chunk on the kept nodes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from ._base import ClassifierOutputs, RegressorOutputs
from ._recursive_ridge import keep_last
from ._validation import NONNEGATIVE, POSITIVE_INT, DType, RandomState
from .elm import _OSELM, partial_fit_classifier
from .global_sensitivity import hidden_node_sensitivity

if TYPE_CHECKING:
    from typing_extensions import Self


def nodes_to_drop(total_index: np.ndarray, delta: float, min_nodes: int) -> np.ndarray:
    """Indices with S_T < delta, lowest S_T first, leaving at least ``min_nodes`` nodes.

    Parameters
    ----------
    total_index : ndarray of shape (L,)
        EFAST total index S_T of each node.
    delta : float
        Pruning threshold.
    min_nodes : int
        Nodes that must remain.

    Returns
    -------
    drop : ndarray of int, sorted
    """
    order = np.argsort(total_index, kind="stable")
    below = order[total_index[order] < delta]
    return np.sort(below[: max(0, min(below.size, total_index.size - min_nodes))])


class _FOSELM(_OSELM):
    _gram_updates = False  # each chunk is pruned on first: not a Gram sum
    _parameter_constraints = {**_OSELM._parameter_constraints, "delta": NONNEGATIVE,
                              "min_nodes": POSITIVE_INT, "efast_samples": POSITIVE_INT,
                              "efast_interference": POSITIVE_INT}

    def __init__(self, n_hidden: int = 200, activation: str = "tanh", alpha: float = 1e-3,
                 delta: float = 1e-3, min_nodes: int = 10, efast_samples: int = 1025,
                 efast_interference: int = 4, random_state: RandomState = None,
                 dtype: DType = "float64", forgetting_factor: float = 1.0,
                 window: int | None = None, weight_scale: str | float = "auto"):
        super().__init__(n_hidden=n_hidden, activation=activation, alpha=alpha,
                         random_state=random_state, dtype=dtype,
                         forgetting_factor=forgetting_factor, window=window,
                         weight_scale=weight_scale)
        self.delta = delta
        self.min_nodes = min_nodes
        self.efast_samples = efast_samples
        self.efast_interference = efast_interference

    def _check_params(self):
        dtype = super()._check_params()
        if self.min_nodes > self.n_hidden:
            raise ValueError(f"min_nodes={self.min_nodes} exceeds n_hidden={self.n_hidden}")
        M, N = self.efast_interference, self.efast_samples
        if N <= 4 * M * M:
            raise ValueError(f"efast_samples={N} must exceed 4 M^2 = {4 * M * M} for "
                             f"efast_interference M={M}")
        return dtype

    def _start(self, n_features, n_outputs, dtype):
        rng = super()._start(n_features, n_outputs, dtype)
        self.node_ids_ = np.arange(self.n_hidden)
        self.n_nodes_history_ = []
        self.pruned_history_ = []
        self._efast_rng = np.random.default_rng(rng.integers(2 ** 63))  # EFAST phases
        return rng

    def _prune(self, Z):
        """EFAST total indices on the chunk's node ranges, then the exact deletion."""
        _, ST = hidden_node_sensitivity(self.rls_.beta, Z.min(axis=0), Z.max(axis=0),
                                        N=self.efast_samples, M=self.efast_interference,
                                        random_state=self._efast_rng)
        drop = nodes_to_drop(ST, self.delta, self.min_nodes)
        keep = self.rls_.remove_nodes(drop)
        keep_last(self.pruned_history_, [self.node_ids_[drop]])
        self.W_, self.b_, self.node_ids_ = self.W_[:, keep], self.b_[keep], self.node_ids_[keep]
        return Z[:, keep]

    def _absorb(self, H, T, first):
        # a single row gives empty node ranges: every S_T would be 0, so it is not pruned on
        super()._absorb(H if first or len(H) < 2 else self._prune(H), T, first)
        keep_last(self.n_nodes_history_, [self.W_.shape[1]])

    @property
    def n_nodes_(self) -> int:
        """Hidden nodes alive now."""
        check_is_fitted(self, "W_")
        return self.W_.shape[1]



class FOSELMRegressor(RegressorOutputs, RegressorMixin, _FOSELM):
    """OS-ELM regressor pruned online by EFAST sensitivity (FOS-ELM).

    Parameters
    ----------
    n_hidden : int, default=200
        Initial (deliberately large) number of hidden nodes.
    activation, alpha, random_state, dtype
        As in the OS-ELM estimators.
    delta : float, default=1e-3
        Pruning threshold on the EFAST total index S_T of a node (indices sum to about 1 over
        the nodes, so the mean index is 1/L).
    min_nodes : int, default=10
        Never prune below this many nodes.
    efast_samples : int, default=1025
        EFAST points per node N (> 4 M²); more points, less aliasing noise in S_T (each node
        has a frequency of its own once N ≥ 4M²(L−1)+1; below that, S_T is noisy and carries
        a floor of about 1e-3, so keep delta above it).
    efast_interference : int, default=4
        EFAST interference factor M.
    forgetting_factor : float in (0, 1], default=1
        As in the OS-ELM estimators.
    window : int or None, default=None
        As in the OS-ELM estimators (the rows leaving are removed on the alive nodes).
    weight_scale : 'auto' or float > 0, default='auto'
        As in the OS-ELM estimators: W ~ U(-s, s) with s = 1/√d for 'auto', b ~ U(-1, 1).

    Attributes
    ----------
    W_, b_, beta_ : the alive nodes' weights, biases and readout
    weight_scale_ : float, the s of the initial layer's W ~ U(-s, s)
    node_ids_ : indices of the alive nodes in the initial layer
    n_nodes_history_ : alive nodes after each chunk (the last 10000 to 20000 chunks)
    pruned_history_ : initial-layer indices of the nodes pruned at each later chunk (idem)
    rls_ : the recursive ridge state (K, beta) on the alive nodes
    """

    def partial_fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Prune by EFAST on this chunk (from the second chunk on), then absorb it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        return self._partial_fit(X, y)


class FOSELMClassifier(ClassifierOutputs, ClassifierMixin, _FOSELM):
    """OS-ELM classifier pruned online by EFAST sensitivity (FOS-ELM).

    Parameters
    ----------
    n_hidden : int, default=200
        Initial (deliberately large) number of hidden nodes.
    activation, alpha, random_state, dtype
        As in the OS-ELM estimators.
    delta : float, default=1e-3
        Pruning threshold on the EFAST total index S_T of a node (indices sum to about 1 over
        the nodes, so the mean index is 1/L).
    min_nodes : int, default=10
        Never prune below this many nodes.
    efast_samples : int, default=1025
        EFAST points per node N (> 4 M²); more points, less aliasing noise in S_T (each node
        has a frequency of its own once N ≥ 4M²(L−1)+1; below that, S_T is noisy and carries
        a floor of about 1e-3, so keep delta above it).
    efast_interference : int, default=4
        EFAST interference factor M.
    forgetting_factor : float in (0, 1], default=1
        As in the OS-ELM estimators.
    window : int or None, default=None
        As in the OS-ELM estimators (the rows leaving are removed on the alive nodes).
    weight_scale : 'auto' or float > 0, default='auto'
        As in the OS-ELM estimators: W ~ U(-s, s) with s = 1/√d for 'auto', b ~ U(-1, 1).

    Attributes
    ----------
    W_, b_, beta_ : the alive nodes' weights, biases and readout
    weight_scale_ : float, the s of the initial layer's W ~ U(-s, s)
    node_ids_ : indices of the alive nodes in the initial layer
    n_nodes_history_ : alive nodes after each chunk (the last 10000 to 20000 chunks)
    pruned_history_ : initial-layer indices of the nodes pruned at each later chunk (idem)
    rls_ : the recursive ridge state (K, beta) on the alive nodes
    """

    def partial_fit(self, X: ArrayLike, y: ArrayLike,
                    classes: ArrayLike | str | None = None) -> Self:
        """Prune by EFAST on this chunk (from the second chunk on), then absorb it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or a Dask collection
        y : array-like of shape (n_samples,)
        classes : array-like or 'grow', default=None
            Every label ever to appear, or 'grow', on the first call (as in
            ``OSELMClassifier.partial_fit``).

        Returns
        -------
        self
        """
        return partial_fit_classifier(self, X, y, classes)
