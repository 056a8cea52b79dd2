"""Tri-training (Zhou & Li 2005): each update rule on hand-made numbers, a hand-computed round
with stub learners, scikit-learn's estimator checks, and the semi-supervised gain."""
import pickle
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification, make_moons
from sklearn.exceptions import ConvergenceWarning
from sklearn.cluster import KMeans
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm import ELMClassifier
from fastelm.semi_supervised import (TriTrainingClassifier, _bootstrap_indices, _combine_votes,
                                     _initial_l_prime, _pair_error, _subsample_size,
                                     _update_decision)

F = Fraction


# --- the update rules -------------------------------------------------------------------------

def test_pair_error_counts_only_agreeing_rows():
    y = np.array([0, 0, 1, 1, 1, 0])
    h_j = np.array([0, 1, 1, 0, 1, 1])
    h_k = np.array([0, 0, 1, 0, 0, 1])
    # agree on rows 0, 2, 3, 5; wrong on 3 and 5
    assert _pair_error(h_j, h_k, y) == F(2, 4)
    assert _pair_error(h_j, h_j, y) == F(3, 6)
    assert _pair_error(y, y, y) == 0


def test_pair_error_undefined_without_agreement():
    assert _pair_error(np.array([0, 1]), np.array([1, 0]), np.array([0, 1])) is None


def test_no_update_when_error_does_not_drop():
    assert _update_decision(F(1, 2), F(1, 2), 0, 1000) == (False, None, 0)
    assert _update_decision(F(3, 5), F(1, 2), 0, 1000) == (False, None, 0)
    assert _update_decision(F(1, 5), F(1, 10), 7, 1000) == (False, None, 7)


def test_no_update_when_error_undefined():
    assert _update_decision(None, F(1, 2), 0, 1000) == (False, None, 0)


def test_first_round_l_prime_initialisation():
    assert _initial_l_prime(F(1, 10), F(1, 2)) == 1          # floor(0.25 + 1)
    assert _initial_l_prime(F(2, 5), F(1, 2)) == 5           # floor(4 + 1)
    assert _initial_l_prime(F(1, 3), F(1, 2)) == 3           # floor(2 + 1): exact, no 2.9999
    assert _initial_l_prime(0, F(1, 2)) == 1
    # too few candidates for the initialised l' (l' < |L_i| fails): no update, l' persists
    assert _update_decision(F(2, 5), F(1, 2), 0, 5) == (False, None, 5)
    assert _update_decision(F(2, 5), F(1, 2), 0, 4) == (False, None, 5)


def test_update_with_all_candidates():
    # e|L| = 0.1 * 40 = 4 < e' l' = 0.3 * 20 = 6
    assert _update_decision(F(1, 10), F(3, 10), 20, 40) == (True, None, 40)
    # first round: l' = floor(0.1/0.4 + 1) = 1 < |L| = 4; 0.1 * 4 < 0.5 * 1
    assert _update_decision(F(1, 10), F(1, 2), 0, 4) == (True, None, 4)


def test_zero_error_always_takes_all_candidates():
    assert _update_decision(0, F(1, 2), 0, 1000) == (True, None, 1000)
    assert _update_decision(F(0), F(1, 5), 30, 31) == (True, None, 31)
    assert _update_decision(F(0), F(1, 5), 30, 30) == (False, None, 30)   # l' < |L_i| fails
    assert _update_decision(F(0), F(0), 30, 100) == (False, None, 30)    # e' = 0: never again


def test_subsample_branch_size():
    # e|L| = 0.1 * 100 = 10 ≥ e' l' = 0.3 * 20 = 6; l' = 20 > 0.1/0.2 = 0.5
    # s = ceil(0.3 * 20 / 0.1 − 1) = 59
    assert _subsample_size(F(1, 10), F(3, 10), 20) == 59
    assert _update_decision(F(1, 10), F(3, 10), 20, 100) == (True, 59, 59)
    # first round: l' = floor(0.1/0.4 + 1) = 1; s = ceil(0.5 * 1 / 0.1 − 1) = 4
    assert _update_decision(F(1, 10), F(1, 2), 0, 1000) == (True, 4, 4)
    # e'l'/e an integer: s = 5 − 1, so e s = 0.4 < e'l' = 0.5 still holds strictly
    assert _subsample_size(F(1, 10), F(1, 2), 1) == 4


def test_subsampled_set_keeps_the_error_bound():
    for e, e_prime, l_prime, n in [(F(1, 7), F(2, 7), 3, 50), (F(3, 20), F(1, 4), 9, 200),
                                   (F(1, 3), F(1, 2), 0, 40)]:
        update, size, l_new = _update_decision(e, e_prime, l_prime, n)
        l_prime = l_prime or _initial_l_prime(e, e_prime)
        assert update and size == l_new and l_prime < size < n
        assert e * size < e_prime * l_prime


def test_neither_condition_no_update():
    # e|L| = 0.2 * 30 = 6 ≥ e' l' = 0.25 * 2 = 0.5, and l' = 2 ≤ 0.2/0.05 = 4
    assert _update_decision(F(1, 5), F(1, 4), 2, 30) == (False, None, 2)
    # boundary: l' = e/(e' − e) exactly = 4 is not > 4
    assert _update_decision(F(1, 5), F(1, 4), 4, 30) == (False, None, 4)


def test_combine_votes_majority_then_mean_probability():
    votes = np.array([[2, 1, 0], [1, 1, 1], [1, 1, 1], [0, 3, 0]], dtype=float)
    mean = np.array([[0.1, 0.9, 0.0],     # the soft mean disagrees with the 2-1 majority
                     [0.2, 0.3, 0.5],     # all three differ: highest mean probability
                     [0.4, 0.4, 0.2],     # and if that ties as well: the first class
                     [0.6, 0.1, 0.3]])
    P = _combine_votes(votes, mean)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(P.argmax(axis=1), [0, 2, 0, 1])


# --- one round by hand, with stub learners ----------------------------------------------------

class TableClassifier(ClassifierMixin, BaseEstimator):
    """Predicts table[id] for a row whose only feature is its id; records what it was fit on."""

    def __init__(self, table=None, random_state=None):
        self.table = table
        self.random_state = random_state

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.fit_ids_ = np.asarray(X)[:, 0].astype(int)
        self.fit_y_ = np.asarray(y)
        return self

    def predict(self, X):
        return np.asarray(self.table)[np.asarray(X)[:, 0].astype(int)]


# L = ids 0..9 with y_L; U = ids 10..29. Per labelled row, which of A, B, C are wrong:
# 2 all right, 2 only A, 2 only B, 3 A and B, 1 A and C. Then (pairs: the two other learners)
#   e_A from (B, C): agree on 4 rows, all right          -> 0
#   e_B from (C, A): agree on 5 rows, 1 wrong            -> 1/5
#   e_C from (A, B): agree on 5 rows, 3 wrong            -> 3/5 >= 1/2: no update
# On U exactly one pair agrees per row: B=C on 6 rows, C=A on 8, A=B on 6. Round 1:
#   A: l' = floor(0/0.5 + 1) = 1 < 6 and 0 * 6 < 0.5 * 1           -> all 6 rows
#   B: l' = floor(0.2/0.3 + 1) = 1 < 8; 0.2 * 8 >= 0.5; 1 > 2/3    -> ceil(0.5/0.2 − 1) = 2 rows
# Round 2: the tables are unchanged, so e_i = e'_i for A and B: nothing changes and fit stops.
Y_L = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
WRONG = ["", "", "A", "A", "B", "B", "AB", "AB", "AB", "AC"]   # rows 0..9
U_PAIRS = ["BC"] * 6 + ["CA"] * 8 + ["AB"] * 6                  # rows 10..29


def _tables():
    tables = {name: np.empty(30, dtype=int) for name in "ABC"}
    for row, wrong in enumerate(WRONG):
        for name in "ABC":
            tables[name][row] = 1 - Y_L[row] if name in wrong else Y_L[row]
    for row, pair in enumerate(U_PAIRS, start=10):
        label = row % 2
        for name in "ABC":
            tables[name][row] = label if name in pair else 1 - label
    return [tables[name] for name in "ABC"]


def _stub_data():
    X = np.arange(30, dtype=float)[:, None]
    y = np.concatenate([Y_L, -np.ones(20, dtype=int)])
    return X, y


def test_hand_computed_round_with_stub_learners():
    X, y = _stub_data()
    tables = _tables()
    clf = TriTrainingClassifier([TableClassifier(t) for t in tables], random_state=0).fit(X, y)
    assert clf.n_iter_ == 2
    np.testing.assert_array_equal(clf.errors_, [[0, 0.2, 0.6], [0, 0.2, 0.6]])
    np.testing.assert_array_equal(clf.n_candidates_, [[6, 8, 6], [6, 8, 6]])
    np.testing.assert_array_equal(clf.updated_, [[True, True, False], [False, False, False]])
    np.testing.assert_array_equal(clf.n_pseudo_labeled_, [[6, 2, 0], [0, 0, 0]])
    np.testing.assert_array_equal(clf.e_prime_, [0, 0.2, 0.5])
    np.testing.assert_array_equal(clf.l_prime_, [6, 2, 0])

    h_a, h_b, h_c = clf.estimators_
    # A retrained on L ∪ L_A: the 6 rows where B = C, labelled by B
    np.testing.assert_array_equal(h_a.fit_ids_, np.r_[0:10, 10:16])
    np.testing.assert_array_equal(h_a.fit_y_, np.r_[Y_L, tables[1][10:16]])
    # B retrained on L ∪ 2 of the 8 rows where C = A, labelled by C
    extra = h_b.fit_ids_[10:]
    assert len(h_b.fit_ids_) == 12 and len(set(extra)) == 2 and set(extra) <= set(range(16, 24))
    np.testing.assert_array_equal(h_b.fit_y_[10:], tables[2][extra])
    # C keeps its bootstrap sample of L
    assert len(h_c.fit_ids_) == 10 and set(h_c.fit_ids_) <= set(range(10))


def test_stub_majority_vote_and_cap():
    X, y = _stub_data()
    tables = _tables()
    clf = TriTrainingClassifier([TableClassifier(t) for t in tables], random_state=1).fit(X, y)
    votes = np.sum(tables, axis=0)
    np.testing.assert_array_equal(clf.predict(X), (votes >= 2).astype(int))
    with pytest.warns(ConvergenceWarning):
        capped = TriTrainingClassifier([TableClassifier(t) for t in tables], max_iter=1).fit(X, y)
    assert capped.n_iter_ == 1 and capped.updated_.tolist() == [[True, True, False]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bagged = TriTrainingClassifier([TableClassifier(t) for t in tables], max_iter=0).fit(X, y)
    assert bagged.n_iter_ == 0 and bagged.errors_.shape == (0, 3)


# --- scikit-learn contract --------------------------------------------------------------------

def _expected_failed_checks(estimator):
    # sklearn exempts its own semi-supervised estimators from this check by name: it fits the
    # labels [-1, 1], and -1 marks unlabelled rows. String labels: test_string_labels_*.
    return {"check_classifiers_classes": "-1 marks unlabelled rows, as in sklearn.semi_supervised"}


@parametrize_with_checks([TriTrainingClassifier(random_state=0)],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_bootstrap_samples_hold_two_classes():
    rng = np.random.default_rng(0)
    y = np.array([0, 1])                       # half of all bootstrap draws hold one class
    for _ in range(50):
        rows = _bootstrap_indices(y, rng)
        assert len(rows) == 2 and set(y[rows]) == {0, 1}
    np.testing.assert_array_equal(_bootstrap_indices(np.zeros(3, int), rng), [0, 1, 2])


def test_elm_base_on_a_tiny_labelled_set():
    """ELM cannot fit one class: bootstrap samples of L are redrawn until they hold two."""
    X, y = make_moons(60, noise=0.2, random_state=0)
    y_semi = np.full(60, -1)
    y_semi[[0, 1, 2]] = y[[0, 1, 2]]
    assert len(set(y[[0, 1, 2]])) == 2
    clf = TriTrainingClassifier(ELMClassifier(n_hidden=5), random_state=0).fit(X, y_semi)
    P = clf.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X))


def _semi_supervised(seed, n_train=600, labelled=0.1):
    X, y = make_classification(n_train + 1000, n_features=10, n_informative=6, n_redundant=0,
                               n_classes=3, class_sep=1.5, random_state=seed)
    is_labelled = np.random.default_rng(seed).random(n_train) < labelled
    y_semi = np.where(is_labelled, y[:n_train], -1)
    return X[:n_train], y_semi, X[n_train:], y[n_train:]


def test_unlabelled_data_helps_an_elm():
    gains = []
    for seed in range(5):
        X, y_semi, X_test, y_test = _semi_supervised(seed)
        base = ELMClassifier(n_hidden=20, alpha=0.1, random_state=seed)
        tri = TriTrainingClassifier(base, random_state=seed).fit(X, y_semi)
        assert tri.n_pseudo_labeled_.sum() > 0
        alone = base.fit(X[y_semi != -1], y_semi[y_semi != -1])
        gains.append(tri.score(X_test, y_test) - alone.score(X_test, y_test))
    assert np.mean(gains) > 0


def test_same_seed_same_model_and_pickle():
    X, y_semi, X_test, _ = _semi_supervised(0, n_train=300)
    base = ELMClassifier(n_hidden=20, alpha=0.1)
    a = TriTrainingClassifier(base, random_state=7).fit(X, y_semi)
    b = TriTrainingClassifier(base, random_state=7).fit(X, y_semi)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    np.testing.assert_array_equal(a.n_pseudo_labeled_, b.n_pseudo_labeled_)
    seeds = [h.random_state for h in a.estimators_]
    assert len(set(seeds)) == 3 and base.random_state is None
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict_proba(X_test), a.predict_proba(X_test))
    np.testing.assert_array_equal(c.predict(X_test), a.predict(X_test))


def test_no_unlabelled_rows_is_bagging_of_three():
    X, y = make_moons(120, noise=0.2, random_state=0)
    clf = TriTrainingClassifier(random_state=0).fit(X, y)
    assert clf.n_iter_ == 1 and not clf.updated_.any()
    assert (clf.n_candidates_ == 0).all()
    for tree in clf.estimators_:           # each still fitted on its bootstrap sample
        assert tree.tree_.n_node_samples[0] == len(y)
        assert tree.tree_.weighted_n_node_samples[0] == len(y)


def test_class_missing_from_a_bootstrap_sample():
    X, y = make_moons(40, noise=0.2, random_state=0)
    y = y.copy()
    y[0] = 2                                   # one row of a third class
    for seed in range(20):
        clf = TriTrainingClassifier(random_state=seed).fit(X, y)
        if any(len(h.classes_) < 3 for h in clf.estimators_):
            break
    else:
        pytest.fail("no bootstrap sample missed the rare class")
    P = clf.predict_proba(X)
    assert P.shape == (40, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(clf.classes_[P.argmax(axis=1)], clf.predict(X))


def test_string_labels_with_a_marker():
    X, y = make_moons(200, noise=0.2, random_state=0)
    hidden = np.random.default_rng(0).random(200) < 0.8
    names = np.array(["left", "right"])[y]
    clf = TriTrainingClassifier(random_state=0, unlabeled="?")
    clf.fit(X, np.where(hidden, "?", names))
    assert clf.classes_.tolist() == ["left", "right"]
    assert set(clf.predict(X)) <= {"left", "right"}
    mixed = names.astype(object)
    mixed[hidden] = -1                         # sklearn's convention: object labels and -1
    other = TriTrainingClassifier(random_state=0).fit(X, mixed)
    np.testing.assert_array_equal(other.predict(X), clf.predict(X))
    X3, y3 = make_classification(90, n_classes=3, n_informative=3, random_state=0)
    for labels in (np.array(["one", "two", "three"]), np.array(["one", "two", "three"], object)):
        full = TriTrainingClassifier(random_state=0).fit(X3, labels[y3])
        assert full.classes_.tolist() == ["one", "three", "two"]
        assert (full.predict(X3) == labels[y3]).mean() > 0.8


@pytest.mark.parametrize("labels, marker", [
    (np.array(["left", "right"]), -1),           # '-1' read from a CSV, the default marker
    (np.array(["left", "right"], object), -1),
    (np.array(["left", "right"]), -1.0),
    (np.array([3, 7]), "-1"),                    # the marker written as text, integer labels
    (np.array([3.0, 7.0]), "-1"),
])
def test_marker_matches_a_label_that_spells_it(labels, marker):
    """A number and a text that spells it are one marker: with string labels the unlabelled
    rows of a CSV hold '-1', which must not become a class (before: 3 classes, '-1' among
    them, and most predictions '-1')."""
    X, y = make_moons(200, noise=0.2, random_state=0)
    hidden = np.random.default_rng(0).random(200) < 0.8
    y_semi = labels[y].copy()
    y_semi[hidden] = "-1" if labels.dtype.kind in "UO" else -1
    clf = TriTrainingClassifier(random_state=0, unlabeled=marker).fit(X, y_semi)
    assert sorted(clf.classes_.tolist()) == sorted(labels.tolist())
    reference = TriTrainingClassifier(random_state=0, unlabeled="?").fit(
        X, np.where(hidden, "?", labels[y].astype(str)).astype(object))
    np.testing.assert_array_equal(clf.predict(X).astype(str), reference.predict(X).astype(str))


@pytest.mark.parametrize("Model", ["TriTrainingClassifier", "DEELMSSC"])
@pytest.mark.parametrize("marker", [True, False, np.True_])
def test_a_bool_marker_is_refused(Model, marker):
    """unlabeled=True compared equal to the label 1 and silently made those rows unlabelled:
    a bool marker is refused in one line naming it."""
    import fastelm
    X, y = make_moons(60, noise=0.2, random_state=0)
    y = y.copy()
    y[:20] = -1
    with pytest.raises(ValueError,
                       match=r"unlabeled=(np\.)?(True|False)_? would match the label") as e:
        getattr(fastelm, Model)(unlabeled=marker).fit(X, y)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("params, y, match", [
    ({}, np.full(6, -1), "no labelled rows"),
    ({}, np.array([1, 1, -1, -1, -1, -1]), "one class"),
    ({"max_iter": -1}, np.array([0, 1, -1, -1, -1, -1]), "max_iter"),
    ({"estimator": [DecisionTreeClassifier()] * 2}, np.array([0, 1, 0, 1, -1, -1]),
     "sequence of 2"),
    ({"estimator": LinearRegression()}, np.array([0, 1, 0, 1, -1, -1]),
     "must be a classifier"),
    ({"estimator": [DecisionTreeClassifier(), KMeans(2), DecisionTreeClassifier()]},
     np.array([0, 1, 0, 1, -1, -1]), "must be a classifier"),
])
def test_bad_input(params, y, match):
    X = np.arange(12, dtype=float).reshape(6, 2)
    with pytest.raises(ValueError, match=match):
        TriTrainingClassifier(**params).fit(X, y)


# ------------------------------------------------------------------ Tri-training boundary
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).
# The update condition e·|L| < e'·l' written with ``<=``.


@pytest.mark.mutant
def test_tritraining_update_condition_is_strict_at_the_boundary():
    """e·|L| = e'·l' exactly is not e·|L| < e'·l' (Zhou & Li 2005, Fig. 1)."""
    # 1/10 · 60 = 3/10 · 20: not the first branch; l' = 20 > e/(e' − e) = 1/2, so subsample
    # to ceil(e' l'/e − 1) = 59 rows (with <=, all 60 rows would be used)
    assert _update_decision(F(1, 10), F(3, 10), 20, 60) == (True, 59, 59)
    # 2/5 · 5 = 1/2 · 4, and l' = 4 is not > e/(e' − e) = 4: no update at all
    assert _update_decision(F(2, 5), F(1, 2), 4, 5) == (False, None, 4)
    # one more candidate row on either side of the boundary
    assert _update_decision(F(1, 10), F(3, 10), 20, 59) == (True, None, 59)
    assert _update_decision(F(2, 5), F(1, 2), 4, 6) == (False, None, 4)


# ------------------------------------------------------------------ semi_supervised (cosmic-ray)


def _semi_data():
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=120, n_features=4, n_informative=3, n_redundant=0,
                               n_classes=3, n_clusters_per_class=1, random_state=0)
    y_semi = np.where(np.random.default_rng(0).random(120) < 0.6, -1, y)
    return X, y_semi


@pytest.mark.mutant
def test_tri_training_proba_of_learners_without_predict_proba_sums_to_one():
    """Learners without predict_proba (RidgeClassifier) count as one-hot votes of weight 1:
    every row's probabilities sum to 1 and their argmax is predict (kills 1.0 → 0.0 / 2.0)."""
    from sklearn.linear_model import RidgeClassifier

    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    clf = TriTrainingClassifier(RidgeClassifier(), random_state=0).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(clf.classes_[proba.argmax(axis=1)], clf.predict(X))


@pytest.mark.mutant
def test_tri_training_predict_does_not_refit_the_input_check():
    """predict checks X against the fit's n_features_in_ (validate_data with reset=False): a
    wrong width is refused naming TriTrainingClassifier and leaves n_features_in_ as fitted."""
    from fastelm import ELMClassifier, TriTrainingClassifier

    X, y = _semi_data()
    clf = TriTrainingClassifier(ELMClassifier(n_hidden=10), random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="TriTrainingClassifier is expecting 4 features"):
        clf.predict(X[:, :3])
    assert clf.n_features_in_ == 4


@pytest.mark.mutant
def test_tri_training_subsample_draws_distinct_unlabelled_rows(monkeypatch):
    """The third branch of the update rule cuts L_i to a random subset: distinct rows, never
    one unlabelled row twice (kills rng.choice(..., replace=True)). The rule is forced into
    that branch (5 rows every round) and a base learner records the rows it is fitted on."""
    from sklearn.base import BaseEstimator, ClassifierMixin

    from fastelm import TriTrainingClassifier, semi_supervised

    fits = []

    class Recorder(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            fits.append(X[:, 0].copy())
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):  # every learner agrees everywhere: all of U are candidates
            return np.full(len(X), self.classes_[0])

    monkeypatch.setattr(semi_supervised, "_update_decision", lambda e, ep, lp, n: (True, 5, 5))
    rng = np.random.default_rng(0)
    n_l, n_u = 20, 30
    X = np.column_stack([np.arange(n_l + n_u), rng.standard_normal(n_l + n_u)])  # column 0: id
    y = np.r_[np.arange(n_l) % 2, np.full(n_u, -1)]
    TriTrainingClassifier(Recorder(), random_state=0, max_iter=10).fit(X, y)
    refits = [ids[ids >= n_l] for ids in fits if (ids >= n_l).any()]
    assert len(refits) >= 10  # the subsample branch ran
    for unlabelled in refits:
        assert len(np.unique(unlabelled)) == len(unlabelled) == 5


@pytest.mark.mutant
def test_tri_training_bootstrap_keeps_a_draw_with_more_than_two_classes():
    """A bootstrap of L is redrawn only when it holds a single class: a three-class draw is
    kept (kills '>= 2' → '== 2', under which every draw of three classes would be rejected
    until the whole of L is used)."""
    from fastelm.semi_supervised import _bootstrap_indices

    y = np.repeat([0, 1, 2], 20)
    rows = _bootstrap_indices(y, np.random.default_rng(0))
    assert np.unique(y[rows]).size == 3
    assert not np.array_equal(np.sort(rows), np.arange(60))  # a real bootstrap, not all of L


@pytest.mark.mutant
def test_tri_training_reseeds_nested_random_states():
    """The three learners get different seeds also inside a Pipeline (get_params(deep=True));
    with deep=False the nested ELMs would all keep random_state=7."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from fastelm import ELMClassifier, TriTrainingClassifier

    X, y = _semi_data()
    base = make_pipeline(StandardScaler(), ELMClassifier(n_hidden=10, random_state=7))
    clf = TriTrainingClassifier(base, random_state=0, max_iter=0).fit(X, y)
    seeds = [est.get_params()["elmclassifier__random_state"] for est in clf.estimators_]
    assert len(set(seeds)) == 3 and 7 not in seeds


@pytest.mark.mutant
@pytest.mark.parametrize("n", [2, 4])
def test_tri_training_refuses_a_sequence_of_other_than_three_learners(n):
    """A list of base learners must hold exactly three: four are refused as two are (kills
    'len(base) != 3' → '< 3', under which a fourth learner would be silently ignored)."""
    from sklearn.tree import DecisionTreeClassifier

    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    with pytest.raises(ValueError, match=f"one classifier or 3; got a sequence of {n}"):
        TriTrainingClassifier([DecisionTreeClassifier()] * n, random_state=0).fit(X, y)


@pytest.mark.mutant
@pytest.mark.parametrize("name", ["TriTrainingClassifier", "BLSClassifier", "ELMClassifier",
                                  "DEELMClassifier"])
def test_non_deterministic_tag_follows_random_state(name):
    """An estimator is tagged non-deterministic exactly when it is not seeded (scikit-learn's
    checks then skip the same-result-twice tests); kills 'is None' → 'is not None'."""
    import fastelm

    cls = getattr(fastelm, name)
    assert cls().__sklearn_tags__().non_deterministic
    assert not cls(random_state=0).__sklearn_tags__().non_deterministic


@pytest.mark.mutant
def test_tri_training_labels_below_the_marker_stay_labelled():
    """Only rows equal to the marker (-1) are unlabelled: classes -5 and -2 are labels like any
    other (kills 'y == marker' → 'y <= marker', which would drop every class below -1)."""
    from fastelm import TriTrainingClassifier

    X, y = _semi_data()
    y = np.where(y == -1, -1, np.array([-5, -2, 4])[np.maximum(y, 0)])
    clf = TriTrainingClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.classes_, [-5, -2, 4])
    assert set(clf.predict(X)) <= {-5, -2, 4}
