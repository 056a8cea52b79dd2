"""Model selection in one pass: exact cross-validation of the ridge penalty and the hidden size.

One concept per module (docs/algorithms.md §1, §5):

- ``_fold_sums``: fold sums and the penalty algebra (S − S_f, one Cholesky per fold and penalty
  for every nested width, the dual form);
- ``_search``: the search base (grids, splits, scorers, ``cv_results_``, the best point);
- ``_elm_cv``: ``ELMRegressorCV``, ``ELMClassifierCV``;
- ``_bls_cv``: ``BLSRegressorCV``, ``BLSClassifierCV``;
- ``_penalty_scores``: ``penalty_scores``, the same algebra on an online (OS-ELM) model's
  running sums.

Imports point one way: ``_fold_sums`` ← ``_search`` ← ``_elm_cv``, ``_bls_cv``,
``_penalty_scores``.
"""
from ._bls_cv import BLSClassifierCV, BLSRegressorCV
from ._elm_cv import ELMClassifierCV, ELMRegressorCV
from ._penalty_scores import penalty_scores

__all__ = ["ELMRegressorCV", "ELMClassifierCV", "BLSRegressorCV", "BLSClassifierCV",
           "penalty_scores"]
