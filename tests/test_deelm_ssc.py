"""DE-ELM-SSC, DE-ELM-SSC+ and Tri-DE-ELM (docs/algorithms.md §6): each is strategy selection + a
DE-ELM base learner scored on V + Tri-training; the tests inspect the fitted pieces."""
import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_moons
from sklearn.utils.estimator_checks import (check_estimator_cloneable,
                                            check_get_params_invariance,
                                            check_no_attributes_set_in_init,
                                            check_parameters_default_constructible,
                                            check_set_params, parametrize_with_checks)

from fastelm import ELMClassifier, TriTrainingClassifier
from fastelm.de_elm import DEELMClassifier, scaling_factor, select_strategy
from fastelm.deelm_ssc import (_SEED_BOUND, DEELMSSC, DEELMSSCPlus, FGridSearch, TriDEELM,
                               grid_search_f)

SMALL = dict(n_hidden=8, pop_size=6, n_generations=2)


def _de(cls, **params):
    """The method's preset base learner with ``params`` on top."""
    return DEELMClassifier(**{**cls.preset, **SMALL, **params})


pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


def _data(seed=0, n=200, labelled=0.3):
    X, y = make_classification(n + 200, n_features=6, n_informative=4, n_redundant=0,
                               class_sep=1.2, random_state=seed)
    y_semi = np.where(np.random.default_rng(seed).random(n) < labelled, y[:n], -1)
    return X[:n], y_semi, X[n:], y[n:]


@pytest.fixture(scope="module")
def data():
    X, y_semi, X_test, y_test = _data()
    labelled = np.flatnonzero(y_semi != -1)
    val = labelled[::2]                   # half of the labelled rows as V
    keep = np.setdiff1d(np.arange(len(X)), val)
    return dict(X=X[keep], y=y_semi[keep], X_val=X[val], y_val=y_semi[val], X_test=X_test,
                y_test=y_test, X_all=X, y_all=y_semi)


# --- scikit-learn contract --------------------------------------------------------------------

def _expected_failed_checks(estimator):
    # as for TriTrainingClassifier: -1 marks unlabelled rows (sklearn exempts its own
    # semi-supervised estimators from this check by name); string labels: test_string_labels.
    return {"check_classifiers_classes": "-1 marks unlabelled rows, as in sklearn.semi_supervised"}


# The full check suite on DEELMSSC, which runs every line the three share (they differ only in
# the DE settings passed to the base learner); construction checks on the other two.
@parametrize_with_checks([DEELMSSC(DEELMClassifier(n_hidden=5, pop_size=5, n_generations=1,
                                                   **DEELMSSC.preset),
                                   n_selection_repeats=1, random_state=0)],
                         expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", [DEELMSSCPlus(random_state=0), TriDEELM(random_state=0)],
                         ids=["DEELMSSCPlus", "TriDEELM"])
@pytest.mark.parametrize("check", [check_parameters_default_constructible,
                                   check_no_attributes_set_in_init, check_estimator_cloneable,
                                   check_get_params_invariance, check_set_params])
def test_construction_checks(estimator, check):
    check(type(estimator).__name__, estimator)


# --- the compositions -------------------------------------------------------------------------

def test_strategy_is_selected_on_l_and_v_and_recorded(data):
    clf = DEELMSSC(_de(DEELMSSC), n_selection_repeats=4, random_state=3)
    clf.fit(data["X"], data["y"], data["X_val"], data["y_val"])
    sel = clf.strategy_selection_
    assert sel.strategy == clf.strategy_ and sel.rmse.shape == (4, 3)
    assert sel.votes.sum() == 4
    # the same vote, run by hand: D = L ∪ V, the estimator's DE settings, its first seed
    labelled = data["y"] != -1
    X_D = np.concatenate([data["X"][labelled], data["X_val"]])
    y_D = np.concatenate([data["y"][labelled], data["y_val"]])
    seed = int(np.random.default_rng(3).integers(_SEED_BOUND))
    again = select_strategy(X_D, y_D, n_repeats=4, random_state=seed,
                            estimator=DEELMClassifier(**DEELMSSC.preset, **SMALL))
    np.testing.assert_allclose(again.rmse, sel.rmse)
    for h in clf.estimators_:
        assert isinstance(h, DEELMClassifier)
        assert h.strategy == clf.strategy_
        assert (h.f_schedule, h.f_constant) == ("constant", 1.0)
    np.testing.assert_array_equal(clf.f_values_, np.ones(SMALL["n_generations"]))


def test_named_strategy_skips_the_vote(data):
    clf = DEELMSSC(_de(DEELMSSC), strategy="best/2", random_state=0).fit(data["X_all"],
                                                                         data["y_all"])
    assert clf.strategy_selection_ is None and clf.strategy_ == "best/2"
    assert all(h.strategy == "best/2" for h in clf.estimators_)


def test_plus_uses_the_nonlinear_f_schedule(data):
    clf = DEELMSSCPlus(_de(DEELMSSCPlus, n_generations=20), n_selection_repeats=2,
                       random_state=0)
    clf.fit(data["X"], data["y"], data["X_val"], data["y_val"])
    for h in clf.estimators_:
        assert (h.f_schedule, h.f_min, h.f_max) == ("nonlinear", 0.2, 0.6)
        assert h.strategy == clf.strategy_
    # the paper's example 2: F(10) = 0.448984, F(11) = 0.429306
    np.testing.assert_allclose(clf.f_values_[[0, 10, 11]], [0.6, 0.448984, 0.429306], atol=1e-6)
    np.testing.assert_allclose(clf.f_values_,
                               [scaling_factor(t, 20, "nonlinear", 0.2, 0.6) for t in range(20)])


def test_tri_de_elm_is_rand1_with_f_one(data):
    clf = TriDEELM(_de(TriDEELM), random_state=0).fit(data["X"], data["y"], data["X_val"],
                                                      data["y_val"])
    assert clf.strategy_ == "rand/1" and clf.strategy_selection_ is None
    for h in clf.estimators_:
        assert (h.strategy, h.f_schedule, h.f_constant) == ("rand/1", "constant", 1.0)
    np.testing.assert_array_equal(clf.f_values_, np.ones(SMALL["n_generations"]))


def test_the_three_differ_only_in_de_settings(data):
    """Same seed: TriDEELM = DEELMSSC(rand/1, F = 1) = DEELMSSCPlus(rand/1, Fmin = Fmax = 1)."""
    args = (data["X"], data["y"], data["X_val"], data["y_val"])
    tri = TriDEELM(_de(TriDEELM), random_state=5).fit(*args)
    ssc = DEELMSSC(_de(DEELMSSC), strategy="rand/1", random_state=5).fit(*args)
    plus = DEELMSSCPlus(_de(DEELMSSCPlus, f_min=1.0, f_max=1.0), strategy="rand/1",
                        random_state=5).fit(*args)
    P = tri.predict_proba(data["X_test"])
    np.testing.assert_array_equal(ssc.predict_proba(data["X_test"]), P)
    np.testing.assert_array_equal(plus.predict_proba(data["X_test"]), P)


def test_base_learners_are_scored_on_v(data):
    """Each DE-ELM's validation RMSE is its network's RMSE on V (readout from its own rows)."""
    clf = TriDEELM(_de(TriDEELM), random_state=1).fit(data["X"], data["y"], data["X_val"],
                                                      data["y_val"])
    T = np.eye(2)[data["y_val"]]
    for h in clf.estimators_:
        out = np.tanh(data["X_val"] @ h.W_ + h.b_) @ h.beta_
        np.testing.assert_allclose(h.validation_rmse_, np.sqrt(np.mean((out - T) ** 2)),
                                   rtol=1e-9)
    assert clf.n_validation_ == len(data["y_val"])
    assert clf.n_labeled_ + clf.n_unlabeled_ == len(data["y"])
    # Tri-training saw L and U only, and used the unlabelled rows
    assert clf.tri_training_.n_pseudo_labeled_.sum() > 0


def test_without_x_val_half_of_the_labelled_rows_is_v(data):
    clf = TriDEELM(_de(TriDEELM), random_state=0).fit(data["X_all"], data["y_all"])
    n_labelled = int(np.sum(data["y_all"] != -1))
    assert clf.n_validation_ + clf.n_labeled_ == n_labelled
    assert abs(clf.n_validation_ - n_labelled / 2) <= 1
    assert clf.n_unlabeled_ == len(data["y_all"]) - n_labelled


def test_learns_two_moons():
    X, y = make_moons(400, noise=0.2, random_state=0)
    y_semi = np.where(np.random.default_rng(0).random(200) < 0.3, y[:200], -1)
    base = DEELMClassifier(n_hidden=10, pop_size=10, n_generations=5, **DEELMSSCPlus.preset)
    clf = DEELMSSCPlus(base, n_selection_repeats=2, random_state=0).fit(X[:200], y_semi)
    assert clf.score(X[200:], y[200:]) > 0.9


def test_string_labels_and_marker(data):
    names = np.array(["no", "yes"])
    y = np.where(data["y"] == -1, "?", names[np.maximum(data["y"], 0)])
    clf = DEELMSSC(_de(DEELMSSC), n_selection_repeats=2, unlabeled="?", random_state=0)
    clf.fit(data["X"], y, data["X_val"], names[data["y_val"]])
    assert set(clf.classes_) == {"no", "yes"}
    assert set(clf.predict(data["X_test"])) <= {"no", "yes"}


@pytest.mark.parametrize("cls", [DEELMSSC, DEELMSSCPlus, TriDEELM])
def test_string_minus_one_is_the_default_marker(data, cls):
    """String labels whose unlabelled rows hold '-1' (a CSV read as text), default marker -1:
    those rows are U, not a class '-1' (before: classes_ held '-1')."""
    names = np.array(["no", "yes"])
    y = np.where(data["y"] == -1, "-1", names[np.maximum(data["y"], 0)])
    clf = cls(_de(cls), n_selection_repeats=2, random_state=0)
    clf.fit(data["X"], y, data["X_val"], names[data["y_val"]])
    assert clf.classes_.tolist() == ["no", "yes"]
    assert clf.n_unlabeled_ == int((data["y"] == -1).sum())


def test_multiclass():
    X, y = make_classification(300, n_features=6, n_informative=4, n_redundant=0, n_classes=3,
                               n_clusters_per_class=1, random_state=0)
    y_semi = np.where(np.random.default_rng(0).random(300) < 0.4, y, -1)
    clf = DEELMSSC(_de(DEELMSSC), n_selection_repeats=2, random_state=0).fit(X, y_semi)
    assert clf.predict_proba(X).shape == (300, 3)
    assert clf.score(X, y) > 0.7


def test_same_seed_same_model_and_pickle(data):
    args = (data["X"], data["y"], data["X_val"], data["y_val"])
    a = DEELMSSCPlus(_de(DEELMSSCPlus), n_selection_repeats=2, random_state=7).fit(*args)
    b = DEELMSSCPlus(_de(DEELMSSCPlus), n_selection_repeats=2, random_state=7).fit(*args)
    assert a.strategy_ == b.strategy_
    np.testing.assert_array_equal(a.strategy_selection_.rmse, b.strategy_selection_.rmse)
    np.testing.assert_array_equal(a.predict_proba(data["X_test"]),
                                  b.predict_proba(data["X_test"]))
    c = pickle.loads(pickle.dumps(a))
    np.testing.assert_array_equal(c.predict_proba(data["X_test"]),
                                  a.predict_proba(data["X_test"]))
    assert c.strategy_ == a.strategy_


def test_bad_input(data):
    X, y = data["X"], data["y"]
    tri = TriDEELM(_de(TriDEELM))
    with pytest.raises(ValueError, match="y_val given without X_val"):
        tri.fit(X, y, y_val=data["y_val"])
    with pytest.raises(ValueError, match="X_val given without y_val"):
        tri.fit(X, y, data["X_val"])
    with pytest.raises(ValueError, match="y_val has labels not among the labelled rows"):
        tri.fit(X, y, data["X_val"], data["y_val"] + 5)
    with pytest.raises(ValueError, match="no labelled rows"):
        tri.fit(X, np.full(len(y), -1))
    with pytest.raises(ValueError, match="strategy"):
        DEELMSSC(_de(DEELMSSC), strategy="best/3").fit(X, y)
    with pytest.raises(ValueError, match="pop_size"):
        DEELMSSC(DEELMClassifier(n_hidden=5, pop_size=4)).fit(X, y)   # best/2 needs 5
    with pytest.raises(ValueError, match="n_selection_repeats"):
        DEELMSSC(_de(DEELMSSC), n_selection_repeats=0).fit(X, y)
    with pytest.raises(ValueError, match="estimator"):
        DEELMSSC(ELMClassifier()).fit(X, y)


# --- the F grid (the paper's §5.5) ------------------------------------------------------------

def test_grid_search_f(data):
    est = DEELMSSCPlus(_de(DEELMSSCPlus), strategy="rand/1", random_state=0)
    result = grid_search_f(est, data["X"], data["y"], data["X_val"], data["y_val"],
                           data["X_test"], data["y_test"], values=(1.0, 0.5), n_runs=1,
                           random_state=4)
    assert isinstance(result, FGridSearch) and result.strategy == "rand/1"
    assert [(r["f_min"], r["f_max"]) for r in result.table] == [(0.5, 0.5), (0.5, 1.0),
                                                                (1.0, 1.0)]
    assert len(result.records) == 3 and all(r["runs"] == 1 for r in result.table)
    # each pair's accuracy is that of its own fit (run 0's seed), the best the first maximum
    seed = int(np.random.default_rng(4).integers(_SEED_BOUND))
    for row in result.table:
        plus = clone(est).set_params(estimator__f_min=row["f_min"], estimator__f_max=row["f_max"],
                                     random_state=seed)
        plus.fit(data["X"], data["y"], data["X_val"], data["y_val"])
        assert row["validation_accuracy"] == plus.score(data["X_val"], data["y_val"])
    accuracies = [r["validation_accuracy"] for r in result.table]
    first_best = result.table[accuracies.index(max(accuracies))]
    assert (result.best_f_min, result.best_f_max) == (first_best["f_min"], first_best["f_max"])
    # Fmin = Fmax = 1 is DE-ELM-SSC's F = 1 (same seed as the grid's run 0)
    ssc = DEELMSSC(_de(DEELMSSC), strategy="rand/1", random_state=seed)
    ssc.fit(data["X"], data["y"], data["X_val"], data["y_val"])
    run0 = [r for r in result.records if r["run"] == 0 and r["f_min"] == 1.0][0]
    assert run0["validation_accuracy"] == ssc.score(data["X_val"], data["y_val"])
    assert run0["test_accuracy"] == ssc.score(data["X_test"], data["y_test"])


def test_grid_search_f_selects_the_strategy_once(data):
    est = DEELMSSCPlus(_de(DEELMSSCPlus), n_selection_repeats=2, random_state=0)
    seen = []
    result = grid_search_f(est, data["X"], data["y"], data["X_val"], data["y_val"],
                           values=(0.5,), n_runs=2, callback=seen.append)
    assert result.strategy_selection is not None
    assert result.strategy == result.strategy_selection.strategy
    assert len(seen) == 2 and np.isnan(seen[0]["test_accuracy"])
    assert result.table[0]["validation_accuracy"] == pytest.approx(
        np.mean([r["validation_accuracy"] for r in seen]))
    with pytest.raises(TypeError, match="DEELMSSC"):
        grid_search_f(TriTrainingClassifier(), data["X"], data["y"], data["X_val"], data["y_val"])
    with pytest.raises(ValueError, match="f_schedule='constant'"):
        grid_search_f(DEELMSSC(), data["X"], data["y"], data["X_val"], data["y_val"])


def test_presets_are_the_papers():
    """Without an estimator each method's base learner is the DE-ELM with the paper's settings;
    an estimator given replaces the preset (composition, as SelfTrainingClassifier)."""
    for cls, f in ((TriDEELM, ("constant", 1.0)), (DEELMSSC, ("constant", 1.0)),
                   (DEELMSSCPlus, ("nonlinear", 0.2, 0.6))):
        base = cls().base_learner()
        assert isinstance(base, DEELMClassifier)
        got = (base.f_schedule, base.f_constant) if f[0] == "constant" else \
            (base.f_schedule, base.f_min, base.f_max)
        assert got == f
    assert TriDEELM.strategies == ("rand/1",)
    assert DEELMSSC.strategies == DEELMSSCPlus.strategies == ("rand/1", "best/1", "best/2")
    mine = DEELMClassifier(n_hidden=7)
    assert DEELMSSC(mine).base_learner().get_params() == mine.get_params()



def test_presets_keep_the_papers_unit_bounds():
    """The paper's DE-ELMs draw and bound every coordinate in [-1, 1]: weight_scale=1.0."""
    for method in (DEELMSSC, DEELMSSCPlus, TriDEELM):
        assert method().base_learner().weight_scale == 1.0
