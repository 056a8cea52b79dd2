"""Tri-training (Zhou & Li 2005; docs/algorithms.md §7), a semi-supervised meta-estimator.

In reading order: the update rules as small pure functions (``_pair_error``,
``_initial_l_prime``, ``_subsample_size``, ``_update_decision``), the vote (``_combine_votes``),
then ``TriTrainingClassifier``, which works with any scikit-learn classifier. The DE-ELM-SSC
family, a Tri-training of DE-tuned ELMs, is in :mod:`fastelm.deelm_ssc`.

Unlabelled rows are marked in ``y`` as in ``sklearn.semi_supervised`` (-1 by default).
"""
from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from fractions import Fraction
from math import ceil, floor
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._hidden import check_generator
from ._targets import check_two_classes
from ._validation import HasMethods, NONNEGATIVE_INT, RANDOM_STATE, RandomState, validate_data

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["TriTrainingClassifier", "check_no_nan_marker", "encode_labelled"]

_N_LEARNERS = 3
_SEED_BOUND = np.iinfo(np.int32).max
_MAX_BOOTSTRAP_DRAWS = 100
# predict_proba = _VOTE_WEIGHT * vote shares + (1 - _VOTE_WEIGHT) * mean probability. Vote shares
# of two classes differ by a multiple of 1/3, so any weight > 3/4 keeps argmax = majority vote.
_VOTE_WEIGHT = 0.8


# ---------------------------------------------------------------------------------------------
# Tri-training: update rules (Zhou & Li 2005, Fig. 1; docs/algorithms.md §7)
#
# Error rates are exact fractions (counts over counts), so the strict inequalities of the paper
# and the ceil/floor of the subsample sizes are decided exactly, never by rounding noise.
# ---------------------------------------------------------------------------------------------

def _pair_error(pred_j, pred_k, y):
    """e_i = |{x∈L: h_j(x) = h_k(x) ≠ y}| / |{x∈L: h_j(x) = h_k(x)}|, an exact Fraction.

    None when h_j and h_k agree on no labelled example: the error is then unknown (0/0; in
    floating point a NaN, for which ``e_i < e'_i`` is false), and h_i is not updated.
    """
    agree = np.asarray(pred_j) == np.asarray(pred_k)
    n_agree = int(np.count_nonzero(agree))
    if n_agree == 0:
        return None
    return Fraction(int(np.count_nonzero(agree & (np.asarray(pred_j) != np.asarray(y)))), n_agree)


def _initial_l_prime(e, e_prime):
    """l'_i = floor(e_i / (e'_i − e_i) + 1), set the first time e_i < e'_i (so never ÷ 0)."""
    return floor(e / (e_prime - e) + 1)


def _subsample_size(e, e_prime, l_prime):
    """s = ceil(e'_i l'_i / e_i − 1): the most rows keeping e_i s < e'_i l'_i (needs e_i > 0)."""
    return ceil(e_prime * l_prime / e - 1)


def _update_decision(e, e_prime, l_prime, n_candidates):
    """One learner's update rule in one round.

    Parameters
    ----------
    e : Fraction, float or None
        e_i this round (None: undefined, no update).
    e_prime, l_prime : e'_i and l'_i from the learner's last update (initially 0.5 and 0).
    n_candidates : int
        |L_i|, the unlabelled rows on which h_j and h_k agree.

    Returns
    -------
    update : bool
    subsample_size : int or None
        Size to which L_i is randomly cut (the third branch), else None.
    l_prime : int
        l'_i to carry into the next round: |L_i| as used if updated, else l'_i after its
        (possible) first-time initialisation, which persists as in the paper's pseudo-code.

    Zhou & Li's rule, line by line::

        if e_i < e'_i:
            if l'_i = 0: l'_i = floor(e_i/(e'_i − e_i) + 1)
            if l'_i < |L_i|:
                if e_i |L_i| < e'_i l'_i: update with all of L_i
                elif l'_i > e_i/(e'_i − e_i): update with ceil(e'_i l'_i/e_i − 1) rows of L_i

    e_i = 0 needs no special case: then e'_i > 0 and l'_i ≥ 1, so whenever l'_i < |L_i| the
    first branch holds (0 < e'_i l'_i) and the subsample branch, the only division by e_i, is
    never reached; afterwards e'_i = 0 and the learner is never updated again.
    """
    if e is None or not e < e_prime:
        return False, None, l_prime
    if l_prime == 0:
        l_prime = _initial_l_prime(e, e_prime)
    if l_prime < n_candidates:
        if e * n_candidates < e_prime * l_prime:
            return True, None, n_candidates
        if l_prime > e / (e_prime - e):
            size = _subsample_size(e, e_prime, l_prime)
            return True, size, size
    return False, None, l_prime


def _combine_votes(votes, mean_proba):
    """Ensemble probabilities: 0.8 · vote shares + 0.2 · the learners' mean probability.

    argmax of the result is the majority vote; when the vote ties (three different classes),
    the class with the highest mean probability; if that ties too, the first class.
    """
    n_voters = votes.sum(axis=1, keepdims=True)
    return _VOTE_WEIGHT * votes / n_voters + (1.0 - _VOTE_WEIGHT) * mean_proba


# ---------------------------------------------------------------------------------------------
# Tri-training: helpers of the estimator
# ---------------------------------------------------------------------------------------------

def _as_number(text):
    """The number a text label spells ('-1', '-1.0', b'3'), or None."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _is_text(value):
    return isinstance(value, (str, bytes, np.str_, np.bytes_))


def _is_number(value):
    return isinstance(value, (numbers.Number, np.number)) and not isinstance(value, (bool, np.bool_))


def _matches_marker(value, marker):
    """Whether one label is the marker as a user writes it: equal, or one a text that spells
    the other, a number (the label '-1' read from a CSV is the marker -1, the label 3 the
    marker '3')."""
    if _is_text(value) and _is_number(marker):
        return _as_number(value) == marker
    if _is_number(value) and _is_text(marker):
        return value == _as_number(marker)
    return bool(value == marker)


def _unlabeled_mask(y, marker):
    """Rows of y that are the marker (elementwise, across types: ``_matches_marker``)."""
    if y.dtype.kind in "biuf" and _is_number(marker):
        return y == marker
    if y.dtype.kind in "biuf" and _is_text(marker):
        number = _as_number(marker)
        return y == number if number is not None else np.zeros(len(y), dtype=bool)
    return np.fromiter((_matches_marker(v, marker) for v in y.tolist()), dtype=bool,
                       count=len(y))


def check_no_nan_marker(y: ArrayLike, unlabeled: object, owner: str) -> ArrayLike:
    """``y`` if it has no NaN and the marker is not a bool; a NaN in a semi-supervised ``y`` is
    most likely meant as the unlabelled marker, so the error says which marker is in use. Call
    before ``validate_data`` (whose message would be "Input y contains NaN"). A bool marker
    would equal the label 1 or 0 (True == 1) and turn those rows unlabelled: refused.

    Parameters
    ----------
    y : array-like (n,)
        Labels.
    unlabeled : scalar
        The marker in use.
    owner : str
        The estimator's name, for the message.

    Returns
    -------
    y
    """
    if isinstance(unlabeled, (bool, np.bool_)):
        raise ValueError(f"{owner}: unlabeled={unlabeled!r} would match the label "
                         f"{int(unlabeled)} (True == 1 in a comparison); give the marker as "
                         f"it is written in y, e.g. unlabeled=-1")
    values = np.asarray(y)
    if values.dtype.kind in "fc" and np.isnan(values).any():
        raise ValueError(f"{owner}: y contains NaN; unlabelled rows are marked by "
                         f"unlabeled={unlabeled!r} (NaN cannot be a marker: NaN != NaN), so "
                         f"write {unlabeled!r} in y where the label is unknown")
    return y


def encode_labelled(y: np.ndarray, unlabeled: object, owner: str
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The labelled rows of a semi-supervised ``y`` and their class codes.

    Parameters
    ----------
    y : ndarray (n,)
        Labels; entries equal to ``unlabeled`` mark the unlabelled rows.
    unlabeled : scalar
        The marker.
    owner : str
        The estimator's name, for the error messages.

    Returns
    -------
    unlabelled : ndarray (n,) of bool
    classes : ndarray, the sorted labels of the labelled rows (at least two)
    codes : ndarray of intp, the labelled rows' indices into ``classes``
    """
    unlabelled = _unlabeled_mask(check_no_nan_marker(y, unlabeled, owner), unlabeled)
    if unlabelled.all():
        raise ValueError(f"y has no labelled rows: every label equals unlabeled={unlabeled!r}")
    y_L = y[~unlabelled]
    check_classification_targets(y_L)
    classes, codes = np.unique(y_L, return_inverse=True)
    check_two_classes(classes, owner)
    return unlabelled, classes, codes.astype(np.intp)


def _reseed(estimator, rng):
    """Give every ``random_state`` parameter of a (possibly nested) estimator a drawn int seed."""
    keys = sorted(key for key in estimator.get_params(deep=True)
                  if key == "random_state" or key.endswith("__random_state"))
    if keys:
        estimator.set_params(**{key: int(rng.integers(_SEED_BOUND)) for key in keys})
    return estimator


def _bootstrap_indices(y, rng):
    """Rows of a bootstrap sample of L, redrawn until it holds at least two classes.

    Most classifiers cannot fit one class; after ``_MAX_BOOTSTRAP_DRAWS`` single-class draws
    (only plausible for a tiny L) the whole of L is used instead.
    """
    n = len(y)
    for _ in range(_MAX_BOOTSTRAP_DRAWS):
        rows = rng.integers(n, size=n)
        if np.unique(y[rows]).size >= 2:
            return rows
    return np.arange(n)


def _learner_proba(learner, X, codes, n_classes):
    """A learner's class probabilities as columns of the ensemble's classes (codes 0..K−1).

    A learner trained on a bootstrap sample may miss classes: its ``classes_`` (a subset of the
    codes) say where its columns go; absent classes get probability 0. Learners without
    ``predict_proba`` give their one-hot vote.
    """
    proba = np.zeros((len(codes), n_classes))
    if hasattr(learner, "predict_proba") and hasattr(learner, "classes_"):
        proba[:, np.asarray(learner.classes_, dtype=np.intp)] = learner.predict_proba(X)
    else:
        proba[np.arange(len(codes)), codes] = 1.0
    return proba


class TriTrainingClassifier(ClassifierMixin, BaseEstimator):
    """Tri-training: three classifiers label unlabelled data for each other (Zhou & Li 2005).

    Three copies of ``estimator`` are fitted on bootstrap samples of the labelled set L.
    Each round, for each learner h_i with the other two h_j, h_k:

    - e_i: error of h_j and h_k on the labelled rows where they agree;
    - L_i: the unlabelled rows where h_j and h_k agree, labelled by them;
    - h_i is retrained on L ∪ L_i (all of L_i, or a random subsample of it) only if the rules of
      ``_update_decision`` guarantee e_i |L_i| < e'_i l'_i, where e'_i, l'_i are the error and
      |L_i| of its last update (initially 0.5 and 0).

    All learners of a round are judged with the previous round's learners; the updates are then
    applied together. Fitting stops after the first round in which no learner changes, or after
    ``max_iter`` rounds. Without unlabelled rows, no learner changes in round 1 and the model is
    a bagging ensemble of three.

    Parameters
    ----------
    estimator : classifier, sequence of three classifiers, or None
        Cloned for the three learners (a sequence gives each learner its own). None means
        ``DecisionTreeClassifier()``, the unstable learner of Zhou & Li's experiments (J4.8);
        any scikit-learn classifier works, e.g. ``fastelm.ELMClassifier(n_hidden=20)`` (``fit``
        refuses an estimator that is not a classifier). Learners are trained on class indices
        0..n_classes−1 (``y`` encoded by ``classes_``).
    random_state : int, numpy Generator or None
        Seeds a numpy Generator that draws the bootstrap samples, the subsamples of L_i and an
        int seed for every ``random_state`` parameter of each learner (nested ones too); so an
        int makes the whole fit reproducible. Each learner keeps its seed when retrained.
    max_iter : int, default=100
        Safety cap on the number of rounds (Zhou & Li have none; the loop terminates anyway
        because e'_i strictly decreases over a finite set of fractions). A ConvergenceWarning is
        raised if a learner still changed in the last allowed round. 0 keeps the bootstrap
        learners (bagging of three).
    unlabeled : scalar, default=-1
        The label marking unlabelled rows in ``y``; e.g. ``unlabeled=""`` or
        ``unlabeled="unlabeled"`` for string labels. A number and a text that spells it are
        the same marker: with the default, the string label '-1' (as read from a CSV) marks
        an unlabelled row, and ``unlabeled='-1'`` marks the integer label -1. Compared with
        ``==`` otherwise, so NaN cannot serve as the marker.

    Attributes
    ----------
    estimators_ : list of three fitted classifiers (h_1, h_2, h_3), trained on class indices
    classes_ : sorted labels of the labelled rows
    n_features_in_, feature_names_in_ : as in scikit-learn
    n_iter_ : int, rounds run (including the final round without changes)
    errors_ : ndarray (n_iter_, 3), e_i of each round (NaN where h_j, h_k agree on no labelled row)
    n_candidates_ : ndarray (n_iter_, 3), unlabelled rows where h_j and h_k agree (|L_i|)
    n_pseudo_labeled_ : ndarray (n_iter_, 3), rows of L_i added at the update (0 if none)
    updated_ : ndarray (n_iter_, 3) of bool, which learners were retrained in each round
    e_prime_, l_prime_ : ndarray (3,), e'_i and l'_i at the end of the fit

    Notes
    -----
    ``predict`` is the majority vote of the three learners; when all three disagree, the class
    with the highest mean ``predict_proba`` among them wins (then the first in ``classes_``).
    ``predict_proba`` is 0.8 × the vote shares (fraction of learners predicting each class) +
    0.2 × the mean of the learners' ``predict_proba`` (one-hot votes for learners without it,
    columns mapped to ``classes_``, 0 for classes a learner never saw): a distribution whose
    argmax is exactly ``predict``, with finer scores than thirds for ranking.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from fastelm.semi_supervised import TriTrainingClassifier
    >>> X, y = make_moons(300, noise=0.2, random_state=0)
    >>> y_semi = np.where(np.random.default_rng(0).random(300) < 0.9, -1, y)
    >>> clf = TriTrainingClassifier(random_state=0).fit(X, y_semi)
    >>> clf.score(X, y) > 0.8
    True

    References
    ----------
    Zhou & Li (2005), Tri-training: exploiting unlabeled data using three classifiers.
    IEEE Transactions on Knowledge and Data Engineering 17(11), 1529–1541.
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"]), list, tuple, None],
        "random_state": RANDOM_STATE,
        "max_iter": NONNEGATIVE_INT,
        "unlabeled": "no_validation",
    }

    def __init__(self, estimator: BaseEstimator | Sequence[BaseEstimator] | None = None,
                 random_state: RandomState = None, max_iter: int = 100,
                 unlabeled: object = -1):
        self.estimator = estimator
        self.random_state = random_state
        self.max_iter = max_iter
        self.unlabeled = unlabeled

    def _bases(self):
        base = self.estimator
        if base is None:
            return [DecisionTreeClassifier()] * _N_LEARNERS
        if isinstance(base, (list, tuple)):
            if len(base) != _N_LEARNERS:
                raise ValueError(f"estimator must be one classifier or {_N_LEARNERS}; "
                                 f"got a sequence of {len(base)}")
            bases = list(base)
        else:
            bases = [base] * _N_LEARNERS
        for b in bases:
            if not is_classifier(b):
                raise ValueError(f"estimator must be a classifier (a scikit-learn estimator "
                                 f"with _estimator_type 'classifier'), got {b!r}")
        return bases

    def fit(self, X: ArrayLike, y: ArrayLike) -> Self:
        """Tri-train on (X, y).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Labelled and unlabelled rows.
        y : array-like of shape (n_samples,)
            Labels; rows equal to ``unlabeled`` form the unlabelled set U, the others L.

        Returns
        -------
        self : TriTrainingClassifier
            The fitted ensemble.
        """
        self._validate_params()
        max_iter = int(self.max_iter)
        bases = self._bases()
        X, y = validate_data(self, X, check_no_nan_marker(y, self.unlabeled, type(self).__name__))
        unlabelled, self.classes_, y_L = encode_labelled(y, self.unlabeled, type(self).__name__)
        X_L, X_U = X[~unlabelled], X[unlabelled]
        rng = check_generator(self.random_state)

        # h_i ← Learn(Bootstrap(L)), e'_i = 0.5, l'_i = 0
        learners = []
        for base in bases:
            learner = _reseed(clone(base), rng)
            rows = _bootstrap_indices(y_L, rng)
            learners.append(learner.fit(X_L[rows], y_L[rows]))
        e_prime = [Fraction(1, 2)] * _N_LEARNERS
        l_prime = [0] * _N_LEARNERS

        history = []
        for _ in range(max_iter):
            learners, record = self._round(learners, X_L, y_L, X_U, e_prime, l_prime, rng)
            history.append(record)
            if not any(record["updated"]):
                break
        else:
            if max_iter > 0:
                warnings.warn(f"Tri-training stopped at max_iter={max_iter} rounds while "
                              f"learners were still changing", ConvergenceWarning)

        self.estimators_ = learners
        self.n_iter_ = len(history)
        for name, dtype in (("errors", float), ("n_candidates", np.intp),
                            ("n_pseudo_labeled", np.intp), ("updated", bool)):
            values = np.array([rec[name] for rec in history], dtype=dtype)
            setattr(self, name + "_", values.reshape(len(history), _N_LEARNERS))
        self.e_prime_ = np.array([float(e) for e in e_prime])
        self.l_prime_ = np.array(l_prime, dtype=np.intp)
        return self

    @staticmethod
    def _round(learners, X_L, y_L, X_U, e_prime, l_prime, rng):
        """One Tri-training round; updates e_prime, l_prime in place, returns the new learners."""
        pred_L = [h.predict(X_L) for h in learners]
        pred_U = [np.asarray(h.predict(X_U)) if len(X_U) else np.empty(0, np.intp)
                  for h in learners]
        record = {"errors": [], "n_candidates": [], "n_pseudo_labeled": [], "updated": []}
        additions = [None] * _N_LEARNERS
        for i in range(_N_LEARNERS):
            j, k = (i + 1) % _N_LEARNERS, (i + 2) % _N_LEARNERS
            e = _pair_error(pred_L[j], pred_L[k], y_L)
            candidates = np.flatnonzero(pred_U[j] == pred_U[k])  # L_i: U where h_j = h_k
            update, size, l_prime[i] = _update_decision(e, e_prime[i], l_prime[i],
                                                        len(candidates))
            rows = candidates
            if update:
                if size is not None:
                    rows = np.sort(rng.choice(candidates, size=size, replace=False))
                additions[i] = rows
                e_prime[i] = e
            record["errors"].append(np.nan if e is None else float(e))
            record["n_candidates"].append(len(candidates))
            record["n_pseudo_labeled"].append(len(rows) if update else 0)
            record["updated"].append(update)

        new = list(learners)
        for i, rows in enumerate(additions):
            if rows is not None:  # h_i ← Learn(L ∪ L_i)
                j = (i + 1) % _N_LEARNERS
                X_i = np.concatenate([X_L, X_U[rows]])
                y_i = np.concatenate([y_L, np.asarray(pred_U[j][rows], dtype=np.intp)])
                new[i] = clone(learners[i]).fit(X_i, y_i)
        return new, record

    def _votes_and_proba(self, X):
        check_is_fitted(self, "estimators_")
        X = validate_data(self, X, reset=False)
        n_classes = len(self.classes_)
        votes = np.zeros((X.shape[0], n_classes))
        mean_proba = np.zeros((X.shape[0], n_classes))
        for learner in self.estimators_:
            codes = np.asarray(learner.predict(X)).astype(np.intp)
            votes[np.arange(len(codes)), codes] += 1
            mean_proba += _learner_proba(learner, X, codes, n_classes)
        return votes, mean_proba / len(self.estimators_)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities: 0.8 × vote shares + 0.2 × mean learner probability.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Rows sum to one; their argmax is ``predict``.
        """
        return _combine_votes(*self._votes_and_proba(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Majority vote of the three learners (ties: highest mean probability, then first).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels, from ``classes_``.
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags
