"""Penalty scores of an online model: ridge penalties scored on held-out rows from an OS-ELM's
running sums, no refit (docs/algorithms.md §1, §2).

An OS-ELM keeps K = AᵀA + αI and AᵀT over every row it has learned (``model.rls_``), so
AᵀA = K − αI and the fold algebra applies with the learned rows as the training split and the
held-out chunk as the test fold: per α', β(α') = (AᵀA + α'I)⁻¹ AᵀT by one Cholesky
(``prefix_ridge`` at the full width) and its squared error from the chunk's Gram sums
(``squared_errors``, ``fastelm.model_selection._fold_sums``); a scorer gets the chunk's
predictions through ``_search._scored_view``.

Kept out of ``_fold_sums``: it takes the search's scorers (``_search``), which build on the fold
algebra, and it serves a fitted online model rather than folds.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils.validation import check_is_fitted

from .._gram import GramSums, gram_sums
from .._ridge import add_to_diagonal
from ..elm import _OSELM
from ._fold_sums import prefix_ridge, squared_errors
from ._search import _check_scorer, _scored_view, check_grid

if TYPE_CHECKING:
    from ._search import Scoring


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
