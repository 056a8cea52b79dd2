"""DE-ELM-SSC, DE-ELM-SSC+ and the Tri-DE-ELM baseline (docs/algorithms.md §6).

Pang, Huang, Zhang, Shu & Zhao (2020) classify with few labels by Tri-training (§7) three ELMs
whose hidden layers are tuned by differential evolution. Each method here is one composition of
pieces defined elsewhere, as ``SelfTrainingClassifier(estimator)`` is in scikit-learn:

    strategy vote           fastelm.de_elm.select_strategy (Algorithm 1, on D = L ∪ V)
    base learner            a fastelm.de_elm.DEELMClassifier, its DE fitness scored on V
    semi-supervised wrapper fastelm.semi_supervised.TriTrainingClassifier (Algorithm 2), on L ∪ U

``DEELMSSC`` is that composition; the three methods differ only in their presets, the default
DE settings of the base learner and the strategies the vote may choose from:

    class         base learner's F                                   strategy ('auto')
    TriDEELM      constant F = 1                                     rand/1 (no vote)
    DEELMSSC      constant F = 1                                     vote of rand/1, best/1, best/2
    DEELMSSCPlus  nonlinear F(t) = Fmax − (Fmax − Fmin)(e^{t/T} − 1)/(e − 1)   the same vote

``grid_search_f`` is the paper's §5.5 search of DE-ELM-SSC+'s (Fmin, Fmax).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.validation import check_is_fitted, check_X_y, column_or_1d

from ._hidden import check_generator
from ._targets import one_hot
from ._validation import (NONNEGATIVE_INT, POSITIVE_INT, RANDOM_STATE, RandomState, StrOptions,
                          check_positive_int, validate_data)
from .de_elm import (STRATEGIES, DEELMClassifier, StrategySelection, scaling_factor,
                     select_strategy, split_indices)
from .semi_supervised import TriTrainingClassifier, check_no_nan_marker, encode_labelled

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DEELMSSC", "DEELMSSCPlus", "TriDEELM", "FGridSearch", "grid_search_f", "F_GRID"]

_SEED_BOUND = np.iinfo(np.int32).max
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


class DEELMSSC(ClassifierMixin, BaseEstimator):
    """DE-ELM-SSC: the DE strategy chosen by vote, then Tri-training of DE-ELMs scored on V.

    ``fit(X, y, X_val=None, y_val=None)``: rows of ``y`` equal to ``unlabeled`` form U, the
    others the labelled set D. Without ``X_val``, D is split at random (stratified) into V (the
    base learner's ``validation_fraction``, halves by default) and L; with ``X_val, y_val``, all
    of D is L and those rows are V. V is only the DE fitness set of every base learner (its
    validation RMSE; each readout is fitted on the learner's own rows) and, for the vote, half
    of D; Tri-training itself sees L and U. ``predict`` is the majority vote of the three
    DE-ELMs (:class:`~fastelm.semi_supervised.TriTrainingClassifier`).

    Parameters
    ----------
    estimator : DEELMClassifier or None
        The base learner (cloned; its ``strategy`` and ``random_state`` are set in ``fit``).
        None: ``DEELMClassifier(**preset)``, the paper's settings for this method (``preset``:
        constant F = 1 here, and weight_scale=1.0, the paper's bounds [-1, 1] for W and b;
        n_hidden 30, NP 20, CR 0.8, 20 generations are the DE-ELM's own defaults).
    strategy : {'auto', 'rand/1', 'best/1', 'best/2'}, default='auto'
        DE mutation of the base learners. 'auto' is the method's rule: the paper's vote
        (:func:`fastelm.de_elm.select_strategy`, Algorithm 1) over ``strategies`` on
        D = L ∪ V with the base learner's settings, or the sole candidate without a vote; a name
        skips the vote (the paper votes once per data set, offline: pass the winner here).
    n_selection_repeats : int, default=125
        Repetitions of the vote (the paper's 125; fewer is faster and noisier).
    max_iter : int, default=100
        Cap on Tri-training rounds.
    unlabeled : scalar, default=-1
        The label marking unlabelled rows in ``y``; a number and a text that spells it are the
        same marker (the string label '-1' read from a CSV is the default marker), as in
        :class:`~fastelm.TriTrainingClassifier`.
    random_state : int, numpy Generator or None
        Seeds the V/L split, the vote, Tri-training (bootstraps, subsamples) and every DE-ELM,
        so an int makes the fit reproducible.

    Attributes
    ----------
    classes_ : sorted labels of the labelled rows
    n_features_in_, feature_names_in_ : as in scikit-learn
    strategy_ : str, the DE mutation of the base learners
    strategy_selection_ : StrategySelection or None (votes and RMSE sums when voted in fit)
    f_values_ : ndarray (n_generations,), F used to breed generation t + 1 from generation t
    estimators_ : list of three fitted ``DEELMClassifier`` (trained on class codes)
    tri_training_ : the fitted ``TriTrainingClassifier`` (its history: ``errors_``,
        ``updated_``, ``n_pseudo_labeled_``...)
    n_iter_ : int, Tri-training rounds
    n_labeled_, n_validation_, n_unlabeled_ : sizes of L, V and U

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.datasets import make_moons
    >>> from fastelm.deelm_ssc import DEELMSSC
    >>> from fastelm.de_elm import DEELMClassifier
    >>> X, y = make_moons(300, noise=0.2, random_state=0)
    >>> y_semi = np.where(np.random.default_rng(0).random(300) < 0.7, -1, y)
    >>> base = DEELMClassifier(n_hidden=10, **DEELMSSC.preset)
    >>> clf = DEELMSSC(base, n_selection_repeats=3, random_state=0).fit(X, y_semi)
    >>> clf.strategy_ in ('rand/1', 'best/1', 'best/2'), clf.score(X, y) > 0.85
    (True, True)

    References
    ----------
    Pang, Huang, Zhang, Shu & Zhao (2020), semi-supervised classification based on differential
    evolution and extreme learning machine (DE-ELM-SSC, DE-ELM-SSC+). Zhou & Li (2005),
    Tri-training: exploiting unlabeled data using three classifiers, IEEE TKDE 17(11).
    """

    #: DE settings of the default base learner
    preset: dict[str, Any] = {"f_schedule": "constant", "f_constant": 1.0, "weight_scale": 1.0}
    #: the strategies strategy='auto' may choose from (one: no vote)
    strategies: tuple[str, ...] = ("rand/1", "best/1", "best/2")

    _parameter_constraints = {
        "estimator": [DEELMClassifier, None],
        "strategy": [StrOptions({"auto", *STRATEGIES})],
        "n_selection_repeats": POSITIVE_INT,
        "max_iter": NONNEGATIVE_INT,
        "unlabeled": "no_validation",
        "random_state": RANDOM_STATE,
    }

    def __init__(self, estimator: DEELMClassifier | None = None, *, strategy: str = "auto",
                 n_selection_repeats: int = 125, max_iter: int = 100, unlabeled: object = -1,
                 random_state: RandomState = None):
        self.estimator = estimator
        self.strategy = strategy
        self.n_selection_repeats = n_selection_repeats
        self.max_iter = max_iter
        self.unlabeled = unlabeled
        self.random_state = random_state

    def base_learner(self) -> DEELMClassifier:
        """The unfitted base learner: a clone of ``estimator``, or the preset DE-ELM."""
        if self.estimator is None:
            return DEELMClassifier(**self.preset)
        return clone(self.estimator)

    def vote_strategy(self, X: ArrayLike, y: ArrayLike, random_state: RandomState = None
                      ) -> StrategySelection:
        """The paper's strategy vote (Algorithm 1) for this estimator's base learner on (X, y).

        ``n_selection_repeats`` random halvings of the labelled rows into L and V, one DE-ELM per
        candidate in ``strategies`` on each (see :func:`fastelm.de_elm.select_strategy`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Labelled rows D.
        y : array-like of shape (n_samples,)
            Their labels.
        random_state : int, numpy Generator or None
            Seeds the vote (None: ``self.random_state``).

        Returns
        -------
        selection : StrategySelection
            The winner, votes and RMSE sums.
        """
        return select_strategy(X, y, n_repeats=self.n_selection_repeats,
                               estimator=self.base_learner(), strategies=self.strategies,
                               random_state=random_state)

    def _labelled_parts(self, X, y, X_val, y_val, rng, validation_fraction):
        """(X_L, codes_L, X_V, codes_V, X_U); sets classes_."""
        unlabelled, self.classes_, codes = encode_labelled(y, self.unlabeled,
                                                           type(self).__name__)
        X_D, X_U = X[~unlabelled], X[unlabelled]
        if X_val is None:
            if y_val is not None:
                raise ValueError("y_val given without X_val")
            if len(codes) < 3:
                raise ValueError(f"{type(self).__name__} splits the labelled rows into L and V "
                                 f"and needs at least 3 labelled samples, got {len(codes)}; or "
                                 f"pass X_val, y_val")
            train, val = split_indices(rng, len(codes), validation_fraction, codes)
            return X_D[train], codes[train], X_D[val], codes[val], X_U
        if y_val is None:
            raise ValueError("X_val given without y_val")
        X_V, y_V = validate_data(self, X_val, y_val, reset=False, dtype=np.float64)
        try:
            codes_V = one_hot(column_or_1d(y_V, warn=True), self.classes_, np.int8).argmax(axis=1)
        except ValueError as error:
            raise ValueError(f"y_val has labels not among the labelled rows of y: {error}") \
                from None
        return X_D, codes, X_V, codes_V, X_U

    def fit(self, X: ArrayLike, y: ArrayLike, X_val: ArrayLike | None = None,
            y_val: ArrayLike | None = None) -> Self:
        """Vote the DE strategy (if 'auto'), then Tri-train DE-ELMs on L ∪ U, scored on V.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Labelled and unlabelled rows.
        y : array-like of shape (n_samples,)
            Labels; rows equal to ``unlabeled`` form U, the others the labelled set D.
        X_val : array-like of shape (n_val, n_features), optional
            The validation set V; without it V is split off D.
        y_val : array-like of shape (n_val,), optional
            Labels of V (among those of D).

        Returns
        -------
        self : DEELMSSC
            The fitted model.
        """
        self._validate_params()
        strategy, base = self.strategy, self.base_learner()
        y = check_no_nan_marker(y, self.unlabeled, type(self).__name__)
        X, y = validate_data(self, X, y, dtype=np.float64)
        y = column_or_1d(y, warn=True)
        rng = check_generator(self.random_state)
        X_L, c_L, X_V, c_V, X_U = self._labelled_parts(X, y, X_val, y_val, rng,
                                                       base.validation_fraction)

        # Algorithm 1 (offline in the paper): the vote over D = L ∪ V
        self.strategy_selection_ = None
        if strategy == "auto" and len(self.strategies) > 1:
            self.strategy_selection_ = self.vote_strategy(
                np.concatenate([X_L, X_V]), np.concatenate([c_L, c_V]),
                random_state=int(rng.integers(_SEED_BOUND)))
            strategy = self.strategy_selection_.strategy
        elif strategy == "auto":
            strategy = self.strategies[0]
        self.strategy_ = strategy
        base.set_params(strategy=strategy)

        # Algorithm 2: Tri-training of the DE-ELMs on L ∪ U (class codes; U = -1)
        tri = TriTrainingClassifier(_FixedValidation(base, X_V, c_V),
                                    random_state=int(rng.integers(_SEED_BOUND)),
                                    max_iter=self.max_iter, unlabeled=-1)
        tri.fit(np.concatenate([X_L, X_U]),
                np.concatenate([c_L, np.full(len(X_U), -1, dtype=c_L.dtype)]))
        self.tri_training_ = tri
        self.estimators_ = [learner.estimator_ for learner in tri.estimators_]
        self.n_iter_ = tri.n_iter_
        self.n_labeled_, self.n_validation_, self.n_unlabeled_ = len(X_L), len(X_V), len(X_U)
        T = int(base.n_generations)
        self.f_values_ = np.array([scaling_factor(t, T, base.f_schedule, base.f_min, base.f_max,
                                                  base.f_constant) for t in range(T)])
        return self

    def _checked(self, X):
        check_is_fitted(self, "tri_training_")
        return validate_data(self, X, reset=False, dtype=np.float64)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Tri-training's vote-based class probabilities.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            :meth:`TriTrainingClassifier.predict_proba`; argmax is ``predict``.
        """
        X = self._checked(X)
        return self.tri_training_.predict_proba(X)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Majority vote of the three DE-ELMs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to classify.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Predicted labels, from ``classes_``.
        """
        X = self._checked(X)
        return self.classes_[self.tri_training_.predict(X)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.random_state is None
        return tags


class DEELMSSCPlus(DEELMSSC):
    """DE-ELM-SSC+: DE-ELM-SSC whose base learners use the nonlinear scaling-factor schedule
    F(t) = Fmax − (Fmax − Fmin)(e^{t/T} − 1)/(e − 1).

    Attributes and ``fit`` are those of :class:`DEELMSSC`; only the preset of the base learner
    differs: ``f_schedule='nonlinear'`` with Fmin = 0.2, Fmax = 0.6 (the paper's example 2; it
    picks them per data set by validation accuracy, :func:`grid_search_f`), weight_scale=1.0.

    Parameters
    ----------
    estimator : DEELMClassifier or None
        The base learner; None: ``DEELMClassifier(**preset)``.
    strategy : {'auto', 'rand/1', 'best/1', 'best/2'}, default='auto'
        'auto': the vote over rand/1, best/1 and best/2; a name skips the vote.
    n_selection_repeats : int, default=125
        Repetitions of the vote.
    max_iter : int, default=100
        Cap on Tri-training rounds.
    unlabeled : scalar, default=-1
        The label marking unlabelled rows in ``y``; a number and a text that spells it are the
        same marker (the string label '-1' read from a CSV is the default marker), as in
        :class:`~fastelm.TriTrainingClassifier`.
    random_state : int, numpy Generator or None
        Seeds the fit (as in :class:`DEELMSSC`).

    Examples
    --------
    >>> from fastelm.deelm_ssc import DEELMSSCPlus
    >>> from fastelm.de_elm import DEELMClassifier, scaling_factor
    >>> base = DEELMClassifier(n_hidden=30, **dict(DEELMSSCPlus.preset, f_min=0.3, f_max=0.5))
    >>> model = DEELMSSCPlus(base, random_state=0)   # fit(X, y) as DEELMSSC
    >>> round(scaling_factor(10, 20, "nonlinear", 0.2, 0.6), 6)     # the paper's check
    0.448984
    """

    preset = {"f_schedule": "nonlinear", "f_min": 0.2, "f_max": 0.6, "weight_scale": 1.0}


class TriDEELM(DEELMSSC):
    """Tri-DE-ELM, the paper's baseline: Tri-training of DE-ELMs with DE rand/1 and F = 1.

    Attributes and ``fit`` are those of :class:`DEELMSSC`, with rand/1 the only strategy 'auto'
    chooses (no vote); a named ``strategy`` replaces it.

    Parameters
    ----------
    estimator : DEELMClassifier or None
        The base learner; None: ``DEELMClassifier(**preset)``.
    strategy : {'auto', 'rand/1', 'best/1', 'best/2'}, default='auto'
        'auto': rand/1, without a vote; a name skips the vote.
    n_selection_repeats : int, default=125
        Repetitions of the vote.
    max_iter : int, default=100
        Cap on Tri-training rounds.
    unlabeled : scalar, default=-1
        The label marking unlabelled rows in ``y``; a number and a text that spells it are the
        same marker (the string label '-1' read from a CSV is the default marker), as in
        :class:`~fastelm.TriTrainingClassifier`.
    random_state : int, numpy Generator or None
        Seeds the fit (as in :class:`DEELMSSC`).

    Examples
    --------
    >>> from fastelm.deelm_ssc import TriDEELM
    >>> TriDEELM.strategies, TriDEELM().base_learner().f_constant
    (('rand/1',), 1.0)
    """

    strategies = ("rand/1",)


# ---------------------------------------------------------------------------------------------
# The paper's §5.5: grid search of (Fmin, Fmax) by validation accuracy
# ---------------------------------------------------------------------------------------------

@dataclass
class FGridSearch:
    """Outcome of :func:`grid_search_f`.

    Parameters
    ----------
    records : list of dict
        One per (f_min, f_max, run): validation_accuracy, test_accuracy (NaN without test data).
    table : list of dict
        One per (f_min, f_max): their means over the runs, and ``runs``.
    best_f_min, best_f_max : float
        The pair of highest mean validation accuracy (ties: the first in the grid order, f_min
        then f_max ascending).
    strategy : str
        The DE strategy used throughout.
    strategy_selection : StrategySelection or None
        The vote when it was held here.
    """
    records: list
    table: list
    best_f_min: float
    best_f_max: float
    strategy: str
    strategy_selection: StrategySelection | None = field(default=None)


def grid_search_f(estimator: DEELMSSC, X: ArrayLike, y: ArrayLike, X_val: ArrayLike,
                  y_val: ArrayLike, X_test: ArrayLike | None = None,
                  y_test: ArrayLike | None = None, *, values: Sequence[float] = F_GRID,
                  n_runs: int = 1, random_state: RandomState = None,
                  callback: Callable[[dict], object] | None = None) -> FGridSearch:
    """Search DE-ELM-SSC+'s (Fmin, Fmax) by validation accuracy (the paper's §4 and §5.5).

    For every pair f_min <= f_max of ``values`` (the paper's {0.1, ..., 1.0}: 55 pairs;
    f_min = f_max is a constant F, 1.0/1.0 being DE-ELM-SSC's F = 1), ``estimator`` is fitted on
    (X, y) with V = (X_val, y_val) and scored on V and, if given, on the test rows. Each run
    uses one seed for all pairs (common random numbers: same bootstraps and initial
    populations), so pairs are compared on equal terms. The best pair has the highest mean
    validation accuracy.

    Parameters
    ----------
    estimator : DEELMSSC (e.g. DEELMSSCPlus) whose base learner has f_schedule='nonlinear'
        Supplies every setting but f_min, f_max and random_state. If its ``strategy`` is
        'auto', the strategy is voted once, on D = labelled rows of y ∪ V with the base
        learner's own (f_min, f_max), and kept for the whole grid.
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
    if not isinstance(estimator, DEELMSSC):
        raise TypeError(f"estimator must be a DEELMSSC or DEELMSSCPlus, got {estimator!r}")
    base = estimator.base_learner()
    if base.f_schedule != "nonlinear":
        raise ValueError(f"grid_search_f searches the nonlinear F schedule's f_min and f_max; "
                         f"the base learner has f_schedule={base.f_schedule!r}")
    n_runs = check_positive_int(n_runs, "n_runs")
    values = sorted(float(v) for v in values)
    pairs = [(lo, hi) for i, lo in enumerate(values) for hi in values[i:]]
    rng = check_generator(estimator.random_state if random_state is None else random_state)
    est = clone(estimator).set_params(estimator=base)
    selection = None
    est._validate_params()
    if est.strategy == "auto" and len(est.strategies) > 1:
        X_D, y_D = check_X_y(X, y, dtype=np.float64)
        unlabelled, _, _ = encode_labelled(y_D, est.unlabeled, type(est).__name__)
        X_V, y_V = check_X_y(X_val, y_val, dtype=np.float64)
        selection = est.vote_strategy(np.concatenate([X_D[~unlabelled], X_V]),
                                      np.concatenate([y_D[~unlabelled], y_V]),
                                      random_state=int(rng.integers(_SEED_BOUND)))
        est.set_params(strategy=selection.strategy)
    seeds = rng.integers(_SEED_BOUND, size=n_runs)
    records = []
    for run, seed in enumerate(seeds):
        for f_min, f_max in pairs:
            model = clone(est).set_params(estimator__f_min=f_min, estimator__f_max=f_max,
                                          random_state=int(seed))
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
    strategy = est.strategy if est.strategy != "auto" else est.strategies[0]
    return FGridSearch(records, table, table[best]["f_min"], table[best]["f_max"], strategy,
                       selection)
