"""Semi-supervised classification: Tri-training and the DE-ELM-SSC family.

Contents, in reading order:

1. Tri-training (Zhou & Li 2005) — the update rules as small pure functions
   (``_pair_error``, ``_initial_l_prime``, ``_subsample_size``, ``_update_decision``), the vote
   (``_combine_votes``), then the meta-estimator ``TriTrainingClassifier``, which works with any
   scikit-learn classifier.
2. DE-ELM-SSC / DE-ELM-SSC+ (ALGORITHMS.md §6): Tri-training with a DE-tuned ELM as the base
   learner — ``DEELMSSC``, ``DEELMSSCPlus``, the ``TriDEELM`` baseline, and ``grid_search_f``
   (the paper's §5.5 search of Fmin, Fmax).

Unlabelled rows are marked in ``y`` as in ``sklearn.semi_supervised`` (-1 by default).
"""
import numbers
import warnings
from abc import ABCMeta, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from math import ceil, floor

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_X_y, column_or_1d, validate_data

from ._base import check_positive_int
from ._hidden import check_generator
from .evolution import (STRATEGIES, DEELMClassifier, StrategySelection, select_strategy,
                        split_indices)

__all__ = ["TriTrainingClassifier", "DEELMSSC", "DEELMSSCPlus", "TriDEELM", "FGridSearch",
           "grid_search_f"]

_N_LEARNERS = 3
_SEED_BOUND = np.iinfo(np.int32).max
_MAX_BOOTSTRAP_DRAWS = 100
# predict_proba = _VOTE_WEIGHT * vote shares + (1 - _VOTE_WEIGHT) * mean probability. Vote shares
# of two classes differ by a multiple of 1/3, so any weight > 3/4 keeps argmax = majority vote.
_VOTE_WEIGHT = 0.8


# ---------------------------------------------------------------------------------------------
# 1. Tri-training: update rules (Zhou & Li 2005, Fig. 1; ALGORITHMS.md §6)
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
# 1. Tri-training: helpers of the estimator
# ---------------------------------------------------------------------------------------------

def _unlabeled_mask(y, marker):
    """Rows of y equal to the marker (elementwise, also for string/object labels)."""
    if y.dtype.kind in "biuf" and isinstance(marker, (numbers.Number, np.number)):
        return y == marker
    return np.fromiter((v == marker for v in y.tolist()), dtype=bool, count=len(y))


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

    Three copies of ``base_estimator`` are fitted on bootstrap samples of the labelled set L.
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
    base_estimator : classifier, sequence of three classifiers, or None
        Cloned for the three learners (a sequence gives each learner its own). None means
        ``DecisionTreeClassifier()``, the unstable learner of Zhou & Li's experiments (J4.8);
        any scikit-learn classifier works, e.g. ``fastelm.ELMClassifier(n_hidden=20)``.
        Learners are trained on class indices 0..n_classes−1 (``y`` encoded by ``classes_``).
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
        ``unlabeled="unlabeled"`` for string labels (object arrays mixing strings and -1 also
        work with the default). Compared with ``==``, so NaN cannot serve as the marker.

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

    def __init__(self, base_estimator=None, random_state=None, max_iter=100, unlabeled=-1):
        self.base_estimator = base_estimator
        self.random_state = random_state
        self.max_iter = max_iter
        self.unlabeled = unlabeled

    def _bases(self):
        base = self.base_estimator
        if base is None:
            return [DecisionTreeClassifier()] * _N_LEARNERS
        if isinstance(base, (list, tuple)):
            if len(base) != _N_LEARNERS:
                raise ValueError(f"base_estimator must be one classifier or {_N_LEARNERS}; "
                                 f"got a sequence of {len(base)}")
            return list(base)
        return [base] * _N_LEARNERS

    def _check_max_iter(self):
        max_iter = self.max_iter
        if not isinstance(max_iter, (numbers.Integral, np.integer)) or isinstance(max_iter, bool) \
                or max_iter < 0:
            raise ValueError(f"max_iter must be an integer >= 0, got {max_iter!r}")
        return int(max_iter)

    def _split(self, X, y):
        """L (X_L, codes of y_L) and U; sets classes_."""
        unlabeled = _unlabeled_mask(y, self.unlabeled)
        if unlabeled.all():
            raise ValueError(f"y has no labelled rows: every label equals unlabeled="
                             f"{self.unlabeled!r}")
        y_L = y[~unlabeled]
        check_classification_targets(y_L)
        self.classes_, codes = np.unique(y_L, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs labelled samples of at least 2 "
                             f"classes; got only one class: {self.classes_[0]!r}")
        return X[~unlabeled], codes.astype(np.intp), X[unlabeled]

    def fit(self, X, y):
        """Tri-train on (X, y); rows of y equal to ``unlabeled`` form the unlabelled set U."""
        max_iter = self._check_max_iter()
        bases = self._bases()
        X, y = validate_data(self, X, y)
        X_L, y_L, X_U = self._split(X, y)
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

    def predict_proba(self, X):
        """0.8 × vote shares + 0.2 × mean learner probability; argmax is ``predict``."""
        return _combine_votes(*self._votes_and_proba(X))

    def predict(self, X):
        """Majority vote of the three learners (ties: highest mean probability, then first)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


# ---------------------------------------------------------------------------------------------
# 2. DE-ELM-SSC, DE-ELM-SSC+ and the Tri-DE-ELM baseline (ALGORITHMS.md §6; seed 002)
#
# Each is a thin composition of pieces defined elsewhere:
#   strategy selection      fastelm.evolution.select_strategy (Algorithm 1, on D = L ∪ V)
#   base learner            fastelm.evolution.DEELMClassifier, its DE fitness scored on V
#   semi-supervised wrapper TriTrainingClassifier above (Algorithm 2), on L ∪ U
# The three differ only in the DE settings of the base learner:
#   TriDEELM      rand/1, constant F = 1                      (the paper's baseline, ref. [10])
#   DEELMSSC      selected strategy, constant F = 1 (f_constant)
#   DEELMSSCPlus  selected strategy, nonlinear F(t) = Fmax − (Fmax − Fmin)(e^{t/T} − 1)/(e − 1)
# ---------------------------------------------------------------------------------------------

_CANDIDATES = ("rand/1", "best/1", "best/2")
F_GRID = tuple(round(0.1 * k, 1) for k in range(1, 11))  # §5.5: {0.1, 0.2, ..., 1.0}


class _FixedValidation(ClassifierMixin, BaseEstimator):
    """A DE-ELM whose DE fitness is always scored on the same validation set V.

    Tri-training fits its learners with ``fit(X, y)`` only, so V travels as parameters
    (``X_val``; ``y_val`` as the ensemble's class codes) and every clone scores on it. Rows of V
    of a class absent from a learner's training sample (a bootstrap of a multi-class L can miss
    one) are left out of that learner's fitness; if none is left, the DE-ELM splits its own
    training sample instead.
    """

    def __init__(self, estimator=None, X_val=None, y_val=None):
        self.estimator = estimator
        self.X_val = X_val
        self.y_val = y_val

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator)
        keep = np.isin(self.y_val, np.unique(y))
        if keep.any():
            self.estimator_.fit(X, y, self.X_val[keep], self.y_val[keep])
        else:
            self.estimator_.fit(X, y)
        self.classes_ = self.estimator_.classes_
        return self

    def predict(self, X):
        return self.estimator_.predict(X)

    def predict_proba(self, X):
        return self.estimator_.predict_proba(X)


_SSC_PARAMS_DOC = """
    Parameters
    ----------
    n_hidden : int, default=30
        Hidden nodes nh of every DE-ELM (the paper's example 2; its Table 2 of per-data-set
        values was lost).
    activation : str, default='tanh'
        g of the hidden layer (tansig = tanh).
    alpha : float, default=1e-3
        Ridge penalty of the DE-ELM readouts.{strategy}
    pop_size : int, default=20
        DE population size NP.
    n_generations : int, default=20
        DE generations Gmax = T.
    crossover : float, default=0.8
        DE crossover rate CR.{f_params}
    selection : {{'paper', 'eelm'}}, default='paper'
        DE selection rule (see :class:`fastelm.evolution.DEELMClassifier`).
    eelm_tol : float, default=0.02
        eps of the 'eelm' rule.
    elitism : bool, default=True
        Protect each DE population's best individual (see ``DEELMClassifier``).
    validation_fraction : float in (0, 1), default=0.5
        Without ``X_val`` in ``fit``, the share of the labelled rows D held out as V (stratified;
        the paper halves D).
    readout : {{'train', 'all'}}, default='train'
        Rows of each DE-ELM's final readout: its training rows (the paper) or those and V.
    max_iter : int, default=100
        Cap on Tri-training rounds (see :class:`TriTrainingClassifier`).
    unlabeled : scalar, default=-1
        The label marking unlabelled rows in ``y``.
    random_state : int, numpy Generator or None
        Seeds the V/L split, strategy selection, Tri-training (bootstraps, subsamples) and every
        DE-ELM, so an int makes the fit reproducible.
"""

_SSC_STRATEGY_DOC = """
    strategy : {'auto', 'rand/1', 'best/1', 'best/2'}, default='auto'
        DE mutation of the base learners. 'auto' picks one in ``fit`` by the paper's vote
        (:func:`fastelm.evolution.select_strategy`, Algorithm 1) over rand/1, best/1, best/2
        on D = L ∪ V, with this estimator's DE settings; a name skips the selection (the paper
        selects once per data set, offline: pass the winner here to reuse it).
    n_selection_repeats : int, default=125
        Repetitions of the vote (the paper's 125; smaller is faster and noisier)."""

_SSC_ATTRIBUTES_DOC = """
    Attributes
    ----------
    classes_ : sorted labels of the labelled rows
    n_features_in_, feature_names_in_ : as in scikit-learn
    strategy_ : str, the DE mutation of the base learners
    strategy_selection_ : StrategySelection or None (votes and RMSE sums when selected in fit)
    f_values_ : ndarray (n_generations,), F used to breed generation t + 1 from generation t
    estimators_ : list of three fitted ``DEELMClassifier`` (h_1, h_2, h_3; trained on class
        codes 0..n_classes−1)
    tri_training_ : the fitted ``TriTrainingClassifier`` (its history: ``errors_``,
        ``updated_``, ``n_pseudo_labeled_``...)
    n_iter_ : int, Tri-training rounds
    n_labeled_, n_validation_, n_unlabeled_ : sizes of L, V and U
"""

_SSC_NOTES_DOC = """
    Notes
    -----
    ``fit(X, y, X_val=None, y_val=None)``: rows of ``y`` equal to ``unlabeled`` form U, the
    others the labelled set D. Without ``X_val``, D is split at random (stratified) into V
    (``validation_fraction``) and L; with ``X_val, y_val``, all of D is L and those rows are V.
    V serves only as the DE fitness set of every base learner (validation RMSE, readout fitted
    on the learner's own rows) and, for 'auto', as half of D in the strategy vote; Tri-training
    itself sees L and U. ``predict`` is the majority vote of the three DE-ELMs
    (:class:`TriTrainingClassifier`).
"""


class _DEELMTriTraining(ClassifierMixin, BaseEstimator, metaclass=ABCMeta):
    """Strategy selection + DE-ELM base learner + Tri-training; subclasses fix the DE settings."""

    def _strategy_param(self):
        return "rand/1"

    @abstractmethod
    def _f_settings(self):
        """f_schedule, f_min, f_max, f_constant of the base DE-ELMs."""

    def _base(self, strategy):
        """The base DE-ELM (unfitted) with the given mutation strategy."""
        return DEELMClassifier(
            n_hidden=self.n_hidden, activation=self.activation, alpha=self.alpha,
            strategy=strategy, pop_size=self.pop_size, n_generations=self.n_generations,
            crossover=self.crossover, selection=self.selection, eelm_tol=self.eelm_tol,
            elitism=self.elitism, validation_fraction=self.validation_fraction,
            readout=self.readout, **self._f_settings())

    def _check_params(self):
        strategy = self._strategy_param()
        if not isinstance(strategy, str) or strategy not in ("auto",) + tuple(STRATEGIES):
            raise ValueError(f"strategy={strategy!r} is not 'auto' or one of {list(STRATEGIES)}")
        candidates = _CANDIDATES if strategy == "auto" else (strategy,)
        base = self._base(candidates[0])
        base._check_params(list(candidates))
        if strategy == "auto":
            check_positive_int(self.n_selection_repeats, "n_selection_repeats")
        TriTrainingClassifier(max_iter=self.max_iter)._check_max_iter()
        return strategy

    def _split_labelled(self, X, y, X_val, y_val, rng):
        """(X_L, codes_L, X_V, codes_V, X_U); sets classes_."""
        unlabeled = _unlabeled_mask(y, self.unlabeled)
        if unlabeled.all():
            raise ValueError(f"y has no labelled rows: every label equals unlabeled="
                             f"{self.unlabeled!r}")
        y_D = y[~unlabeled]
        check_classification_targets(y_D)
        self.classes_, codes = np.unique(y_D, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"{type(self).__name__} needs labelled samples of at least 2 "
                             f"classes; got only one class: {self.classes_[0]!r}")
        X_D, X_U = X[~unlabeled], X[unlabeled]
        if X_val is None:
            if y_val is not None:
                raise ValueError("y_val given without X_val")
            if len(y_D) < 3:
                raise ValueError(f"{type(self).__name__} splits the labelled rows into L and V "
                                 f"and needs at least 3 labelled samples, got {len(y_D)}; or "
                                 f"pass X_val, y_val")
            train, val = split_indices(rng, len(y_D), self.validation_fraction, codes)
            return X_D[train], codes[train], X_D[val], codes[val], X_U
        if y_val is None:
            raise ValueError("X_val given without y_val")
        X_V, y_V = validate_data(self, X_val, y_val, reset=False, dtype=np.float64)
        y_V = column_or_1d(y_V, warn=True)
        codes_V = np.searchsorted(self.classes_, y_V)
        codes_V[codes_V == len(self.classes_)] = 0
        unseen = self.classes_[codes_V] != y_V
        if unseen.any():
            raise ValueError(f"y_val contains labels not among the labelled rows of y "
                             f"{self.classes_.tolist()}: {np.unique(y_V[unseen]).tolist()}")
        return X_D, codes, X_V, codes_V, X_U

    def fit(self, X, y, X_val=None, y_val=None):
        """Select the DE strategy (if 'auto'), then Tri-train DE-ELMs on L ∪ U, scored on V."""
        strategy = self._check_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        y = column_or_1d(y, warn=True)
        rng = check_generator(self.random_state)
        X_L, c_L, X_V, c_V, X_U = self._split_labelled(X, y, X_val, y_val, rng)

        # Algorithm 1 (offline in the paper): the vote over D = L ∪ V
        self.strategy_selection_ = None
        if strategy == "auto":
            self.strategy_selection_ = select_strategy(
                np.concatenate([X_L, X_V]), np.concatenate([c_L, c_V]),
                n_repeats=self.n_selection_repeats, estimator=self._base(_CANDIDATES[0]),
                strategies=_CANDIDATES, random_state=int(rng.integers(_SEED_BOUND)))
            strategy = self.strategy_selection_.strategy
        self.strategy_ = strategy

        # Algorithm 2: Tri-training of the SS-DE-ELM on L ∪ U (class codes; U = -1)
        base = _FixedValidation(self._base(strategy), X_V, c_V)
        tri = TriTrainingClassifier(base, random_state=int(rng.integers(_SEED_BOUND)),
                                    max_iter=self.max_iter, unlabeled=-1)
        tri.fit(np.concatenate([X_L, X_U]),
                np.concatenate([c_L, np.full(len(X_U), -1, dtype=c_L.dtype)]))
        self.tri_training_ = tri
        self.estimators_ = [learner.estimator_ for learner in tri.estimators_]
        self.n_iter_ = tri.n_iter_
        self.n_labeled_, self.n_validation_, self.n_unlabeled_ = len(X_L), len(X_V), len(X_U)
        base_de = self.estimators_[0]
        self.f_values_ = np.array(base_de._f_values(), dtype=np.float64)
        return self

    def predict_proba(self, X):
        """Tri-training's vote-based probabilities (argmax = ``predict``); see
        :meth:`TriTrainingClassifier.predict_proba`."""
        check_is_fitted(self, "tri_training_")
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return self.tri_training_.predict_proba(X)

    def predict(self, X):
        """Majority vote of the three DE-ELMs."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


def _doc(summary, strategy, f_params, extra=""):
    return (summary + "\n" + _SSC_PARAMS_DOC.format(strategy=strategy, f_params=f_params)
            + _SSC_ATTRIBUTES_DOC + _SSC_NOTES_DOC + extra)


_REFERENCES = """
    References
    ----------
    Pang, Huang, Zhang, Shu & Zhao, semi-supervised classification based on DE and ELM
    (DE-ELM-SSC, DE-ELM-SSC+; seed 002 of this project). Zhou & Li (2005), Tri-training.
"""


class DEELMSSC(_DEELMTriTraining):
    __doc__ = _doc(
        "DE-ELM-SSC: strategy selection + DE-ELM with that strategy + Tri-training, F constant.",
        _SSC_STRATEGY_DOC, """
    f_constant : float, default=1.0
        The constant DE scaling factor F (the paper's DE-ELM-SSC fixes F = 1).""", """
    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from fastelm.semi_supervised import DEELMSSC
    >>> X, y = make_moons(300, noise=0.2, random_state=0)
    >>> y_semi = np.where(np.random.default_rng(0).random(300) < 0.7, -1, y)
    >>> clf = DEELMSSC(n_hidden=10, n_selection_repeats=3, random_state=0).fit(X, y_semi)
    >>> clf.strategy_ in ('rand/1', 'best/1', 'best/2'), clf.score(X, y) > 0.85
    (True, True)
""" + _REFERENCES)

    def __init__(self, n_hidden=30, activation="tanh", alpha=1e-3, strategy="auto",
                 n_selection_repeats=125, pop_size=20, n_generations=20, crossover=0.8,
                 f_constant=1.0, selection="paper", eelm_tol=0.02, elitism=True,
                 validation_fraction=0.5, readout="train", max_iter=100, unlabeled=-1,
                 random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.strategy = strategy
        self.n_selection_repeats = n_selection_repeats
        self.pop_size = pop_size
        self.n_generations = n_generations
        self.crossover = crossover
        self.f_constant = f_constant
        self.selection = selection
        self.eelm_tol = eelm_tol
        self.elitism = elitism
        self.validation_fraction = validation_fraction
        self.readout = readout
        self.max_iter = max_iter
        self.unlabeled = unlabeled
        self.random_state = random_state

    def _strategy_param(self):
        return self.strategy

    def _f_settings(self):
        return dict(f_schedule="constant", f_constant=self.f_constant)


class DEELMSSCPlus(_DEELMTriTraining):
    __doc__ = _doc(
        "DE-ELM-SSC+: DE-ELM-SSC with the nonlinear scaling-factor schedule "
        "F(t) = Fmax − (Fmax − Fmin)(e^{t/T} − 1)/(e − 1).",
        _SSC_STRATEGY_DOC, """
    f_min, f_max : float, default=0.2, 0.6
        Fmin (reached at t = T) and Fmax (t = 0), f_min <= f_max; f_min = f_max is a constant F.
        The paper picks them per data set by validation accuracy over {0.1, ..., 1.0}
        (:func:`grid_search_f`); 0.2, 0.6 are its example 2.""", """
    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from fastelm.semi_supervised import DEELMSSCPlus
    >>> X, y = make_moons(300, noise=0.2, random_state=0)
    >>> y_semi = np.where(np.random.default_rng(0).random(300) < 0.7, -1, y)
    >>> clf = DEELMSSCPlus(n_hidden=10, n_selection_repeats=3, random_state=0).fit(X, y_semi)
    >>> np.round(clf.f_values_[[0, 10]], 6).tolist()
    [0.6, 0.448984]
""" + _REFERENCES)

    def __init__(self, n_hidden=30, activation="tanh", alpha=1e-3, strategy="auto",
                 n_selection_repeats=125, pop_size=20, n_generations=20, crossover=0.8,
                 f_min=0.2, f_max=0.6, selection="paper", eelm_tol=0.02, elitism=True,
                 validation_fraction=0.5, readout="train", max_iter=100, unlabeled=-1,
                 random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.strategy = strategy
        self.n_selection_repeats = n_selection_repeats
        self.pop_size = pop_size
        self.n_generations = n_generations
        self.crossover = crossover
        self.f_min = f_min
        self.f_max = f_max
        self.selection = selection
        self.eelm_tol = eelm_tol
        self.elitism = elitism
        self.validation_fraction = validation_fraction
        self.readout = readout
        self.max_iter = max_iter
        self.unlabeled = unlabeled
        self.random_state = random_state

    def _strategy_param(self):
        return self.strategy

    def _f_settings(self):
        return dict(f_schedule="nonlinear", f_min=self.f_min, f_max=self.f_max)

    def _check_params(self):
        strategy = super()._check_params()
        if self.f_min > self.f_max:
            raise ValueError(f"f_min={self.f_min!r} must not exceed f_max={self.f_max!r}")
        return strategy


class TriDEELM(_DEELMTriTraining):
    __doc__ = _doc(
        "Tri-DE-ELM, the paper's baseline: Tri-training of DE-ELMs with DE rand/1 and F = 1.",
        "", "", """
    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from fastelm.semi_supervised import TriDEELM
    >>> X, y = make_moons(300, noise=0.2, random_state=0)
    >>> y_semi = np.where(np.random.default_rng(0).random(300) < 0.7, -1, y)
    >>> clf = TriDEELM(n_hidden=10, random_state=0).fit(X, y_semi)
    >>> clf.strategy_, clf.f_values_[:3].tolist()
    ('rand/1', [1.0, 1.0, 1.0])
""" + _REFERENCES)

    def __init__(self, n_hidden=30, activation="tanh", alpha=1e-3, pop_size=20,
                 n_generations=20, crossover=0.8, selection="paper", eelm_tol=0.02,
                 elitism=True, validation_fraction=0.5, readout="train", max_iter=100,
                 unlabeled=-1, random_state=None):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.pop_size = pop_size
        self.n_generations = n_generations
        self.crossover = crossover
        self.selection = selection
        self.eelm_tol = eelm_tol
        self.elitism = elitism
        self.validation_fraction = validation_fraction
        self.readout = readout
        self.max_iter = max_iter
        self.unlabeled = unlabeled
        self.random_state = random_state

    def _f_settings(self):
        return dict(f_schedule="constant", f_constant=1.0)


# ---------------------------------------------------------------------------------------------
# 2. The paper's §5.5: grid search of (Fmin, Fmax) by validation accuracy
# ---------------------------------------------------------------------------------------------

@dataclass
class FGridSearch:
    """Outcome of :func:`grid_search_f`.

    records : one dict per (f_min, f_max, run): validation_accuracy, test_accuracy (NaN without
        test data)
    table : one dict per (f_min, f_max): their means over the runs, and ``runs``
    best_f_min, best_f_max : the pair of highest mean validation accuracy (ties: the first in
        the grid order, f_min then f_max ascending)
    strategy : the DE strategy used throughout
    strategy_selection : StrategySelection when it was selected here, else None
    """
    records: list
    table: list
    best_f_min: float
    best_f_max: float
    strategy: str
    strategy_selection: StrategySelection = field(default=None)


def grid_search_f(estimator, X, y, X_val, y_val, X_test=None, y_test=None, *, values=F_GRID,
                  n_runs=1, random_state=None, callback=None):
    """Search DE-ELM-SSC+'s (Fmin, Fmax) by validation accuracy (the paper's §4 and §5.5).

    For every pair f_min <= f_max of ``values`` (the paper's {0.1, ..., 1.0}: 55 pairs;
    f_min = f_max is a constant F, 1.0/1.0 being DE-ELM-SSC's F = 1), ``estimator`` is fitted on
    (X, y) with V = (X_val, y_val) and scored on V and, if given, on the test rows. Each run
    uses one seed for all pairs (common random numbers: same bootstraps and initial
    populations), so pairs are compared on equal terms. The best pair has the highest mean
    validation accuracy.

    Parameters
    ----------
    estimator : DEELMSSCPlus
        Supplies every setting but f_min, f_max and random_state. If its ``strategy`` is
        'auto', the strategy is selected once, on D = labelled rows of y ∪ V with the
        estimator's own (f_min, f_max), and kept for the whole grid.
    X, y : training rows; y = ``estimator.unlabeled`` marks U
    X_val, y_val : the validation set V
    X_test, y_test : optional test set, reported but never used to choose
    values : grid of F values
    n_runs : int, seeds per pair
    random_state : int, Generator or None (falls back to ``estimator.random_state``)
    callback : callable or None, called with each record as it is produced (progress)

    Returns
    -------
    FGridSearch
    """
    if not isinstance(estimator, DEELMSSCPlus):
        raise TypeError(f"estimator must be a DEELMSSCPlus, got {estimator!r}")
    n_runs = check_positive_int(n_runs, "n_runs")
    values = sorted(float(v) for v in values)
    pairs = [(lo, hi) for i, lo in enumerate(values) for hi in values[i:]]
    rng = check_generator(estimator.random_state if random_state is None else random_state)
    est = clone(estimator)
    selection = None
    if est._check_params() == "auto":
        X_D, y_D = check_X_y(X, y, dtype=np.float64)
        labelled = ~_unlabeled_mask(y_D, est.unlabeled)
        X_V, y_V = check_X_y(X_val, y_val, dtype=np.float64)
        selection = select_strategy(
            np.concatenate([X_D[labelled], X_V]), np.concatenate([y_D[labelled], y_V]),
            n_repeats=est.n_selection_repeats, estimator=est._base(_CANDIDATES[0]),
            strategies=_CANDIDATES, random_state=int(rng.integers(_SEED_BOUND)))
        est.set_params(strategy=selection.strategy)
    seeds = rng.integers(_SEED_BOUND, size=n_runs)
    records = []
    for run, seed in enumerate(seeds):
        for f_min, f_max in pairs:
            model = clone(est).set_params(f_min=f_min, f_max=f_max, random_state=int(seed))
            model.fit(X, y, X_val, y_val)
            record = dict(f_min=f_min, f_max=f_max, run=run,
                          validation_accuracy=float(model.score(X_val, y_val)),
                          test_accuracy=(float(model.score(X_test, y_test))
                                         if X_test is not None else float("nan")))
            records.append(record)
            if callback is not None:
                callback(record)
    table = []
    for f_min, f_max in pairs:
        rows = [r for r in records if r["f_min"] == f_min and r["f_max"] == f_max]
        table.append(dict(f_min=f_min, f_max=f_max,
                          validation_accuracy=float(np.mean([r["validation_accuracy"]
                                                             for r in rows])),
                          test_accuracy=float(np.mean([r["test_accuracy"] for r in rows])),
                          runs=len(rows)))
    best = max(range(len(table)), key=lambda i: (table[i]["validation_accuracy"], -i))
    return FGridSearch(records, table, table[best]["f_min"], table[best]["f_max"],
                       est.strategy, selection)
