import copy
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from fastelm._hidden import ACTIVATIONS, check_activation
from fastelm._kernels import de
from fastelm._ridge import ridge_fit
from fastelm.elm import ELMClassifier, ELMRegressor
from fastelm.de_elm import (BOUNDS, DEELMClassifier, DEELMRegressor, StrategySelection,
                            distinct_indices, evolve, prepare_splits, scaling_factor, select_strategy,
                            split_indices, tally)

REPO = Path(__file__).resolve().parents[1]
G = {"tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "relu": lambda z: np.maximum(z, 0),
     "sine": np.sin, "linear": lambda z: z}


def _scaled(loader):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _halves(n, seed):
    perm = np.random.default_rng(seed).permutation(n)
    return np.sort(perm[: n // 2]), np.sort(perm[n // 2:])


def _reference_fitness(X, T, train, val, theta, nh, g, alpha):
    """hidden layer + np.linalg.solve ridge on L, RMSE on V, ||beta||."""
    d = X.shape[1]
    W, b = theta[:d * nh].reshape(d, nh), theta[d * nh:]
    H = g(X[train] @ W + b)
    beta = np.linalg.solve(H.T @ H + alpha * np.eye(nh), H.T @ T[train])
    E = g(X[val] @ W + b) @ beta - T[val]
    return np.sqrt(np.mean(E ** 2)), np.linalg.norm(beta)


# --------------------------------------------------------------------------- scaling factor


def test_nonlinear_scaling_factor_matches_the_paper_example():
    assert scaling_factor(10, 20, "nonlinear", 0.2, 0.6) == pytest.approx(0.448984, abs=5e-7)
    assert scaling_factor(11, 20, "nonlinear", 0.2, 0.6) == pytest.approx(0.429306, abs=5e-7)
    assert scaling_factor(0, 20, "nonlinear", 0.2, 0.6) == pytest.approx(0.6)
    assert scaling_factor(20, 20, "nonlinear", 0.2, 0.6) == pytest.approx(0.2)


def test_linear_and_constant_scaling_factors():
    assert scaling_factor(10, 20, "linear", 0.2, 0.6) == pytest.approx(0.4)
    assert scaling_factor(5, 20, "constant", f_constant=0.7) == 0.7
    F = [scaling_factor(t, 20, "nonlinear", 0.2, 0.6) for t in range(21)]
    lin = [scaling_factor(t, 20, "linear", 0.2, 0.6) for t in range(21)]
    assert np.all(np.diff(F) < 0) and np.all(np.array(F[1:-1]) > np.array(lin[1:-1]))
    with pytest.raises(ValueError, match="f_schedule"):
        scaling_factor(1, 20, "cosine")


# --------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu", "sine", "linear"])
def test_kernel_fitness_equals_numpy_reference(activation):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((90, 7))
    T = np.column_stack([np.sin(X[:, 0]), X[:, 1] * X[:, 2], np.eye(3)[rng.integers(3, size=90)]])
    nh, alpha = 11, 1e-2
    splits = [_halves(90, 0), (np.arange(50), np.arange(60, 83))]  # unequal widths: padding
    data = prepare_splits(X, T, splits)
    pop = rng.uniform(-1, 1, (8, (7 + 1) * nh))
    split = np.array([0, 1] * 4, dtype=np.int64)
    rmse, norm = np.empty(8), np.empty(8)
    de.evaluate(*data, split, pop, nh, ACTIVATIONS[activation], alpha, rmse, norm)
    for p in range(8):
        tr, va = splits[split[p]]
        ref = _reference_fitness(X, T, tr, va, pop[p], nh, G[activation], alpha)
        np.testing.assert_allclose([rmse[p], norm[p]], ref, rtol=1e-10, atol=1e-10)


def test_singular_readout_system_is_infeasible():
    rng = np.random.default_rng(0)
    X, T = rng.standard_normal((20, 3)), rng.standard_normal((20, 1))
    data = prepare_splits(X, T, [(np.arange(5), np.arange(5, 20))])  # 5 rows, 12 hidden nodes
    pop = rng.uniform(-1, 1, (2, 4 * 12))
    rmse, norm = np.empty(2), np.empty(2)
    de.evaluate(*data, np.zeros(2, np.int64), pop, 12, ACTIVATIONS["tanh"], 0.0, rmse, norm)
    assert np.all(np.isinf(rmse)) and np.all(np.isinf(norm))
    assert not de.accepts(1.0, 1.0, rmse[0], norm[0], de.PAPER, 0.0, False)


@pytest.mark.parametrize("strategy", [de.RAND1, de.BEST1, de.BEST2])
def test_mutation_and_crossover_follow_the_formulas(strategy):
    rng = np.random.default_rng(3)
    NP, D, F = 6, 9, 0.7
    pop = rng.uniform(-1, 1, (2 * NP, D))  # two runs
    r = distinct_indices(rng, NP)
    cross = rng.random((NP, D)) <= 0.5
    cross[0] = False  # individual 0: only the forced coordinate comes from the mutant
    jrand = rng.integers(D, size=NP)
    p = np.arange(2 * NP)
    base, draw = (p // NP) * NP, p % NP
    best = np.where(p < NP, 2, NP + 4)
    trial = np.empty_like(pop)
    de.mutate_crossover(pop, base, best, draw, np.full(2 * NP, strategy), r, cross, jrand, F,
                        -1.0, 1.0, trial)
    for i in range(2 * NP):
        x = pop[base[i] + r[draw[i]]]
        if strategy == de.RAND1:
            v = x[0] + F * (x[1] - x[2])
        elif strategy == de.BEST1:
            v = pop[best[i]] + F * (x[0] - x[1])
        else:
            v = pop[best[i]] + F * (x[0] - x[1]) + F * (x[2] - x[3])
        take = cross[draw[i]].copy()
        take[jrand[draw[i]]] = True
        expected = np.where(take, np.clip(v, -1, 1), pop[i])
        np.testing.assert_array_equal(trial[i], expected)
    assert np.sum(trial[0] != pop[0]) <= 1 and np.all(np.abs(trial) <= 1)


def test_distinct_indices_exclude_the_individual():
    idx = distinct_indices(np.random.default_rng(0), 7)
    for i, row in enumerate(idx):
        assert len(set(row)) == 4 and i not in row and row.min() >= 0 and row.max() < 7
    small = distinct_indices(np.random.default_rng(0), 3)  # only 2 others: padded
    assert all(i not in row and len(set(row[:2])) == 2 for i, row in enumerate(small))


def test_selection_rules():
    acc = de.accepts
    # paper, example 2: ||beta_u|| 1.1 > 0.8 and RMSE_u 1.0 > 0.9 -> theta kept
    assert not acc(0.9, 0.8, 1.0, 1.1, de.PAPER, 0.0, False)
    assert acc(0.9, 0.8, 1.0, 0.7, de.PAPER, 0.0, False)   # smaller norm alone suffices
    assert acc(0.9, 0.8, 0.8, 5.0, de.PAPER, 0.0, False)   # smaller RMSE alone suffices
    assert not acc(0.9, 0.8, 1.0, 0.7, de.PAPER, 0.0, True)  # elitism: no worse RMSE
    eps = 0.05
    assert acc(1.0, 1.0, 0.94, 9.0, de.EELM, eps, False)      # clearly better RMSE
    assert acc(1.0, 1.0, 1.03, 0.9, de.EELM, eps, False)      # within tolerance, smaller norm
    assert not acc(1.0, 1.0, 1.03, 1.1, de.EELM, eps, False)  # within tolerance, larger norm
    assert not acc(1.0, 1.0, 0.97, 1.1, de.EELM, eps, False)
    assert not acc(1.0, 1.0, 1.2, 0.1, de.EELM, eps, False)   # clearly worse
    assert not acc(1.0, 1.0, 1.03, 0.9, de.EELM, eps, True)


def test_fused_generation_equals_mutate_evaluate_select():
    rng = np.random.default_rng(5)
    X, T = rng.standard_normal((60, 4)), rng.standard_normal((60, 2))
    data = prepare_splits(X, T, [_halves(60, 1)])
    NP, nh = 10, 6
    D = 5 * nh
    pop = rng.uniform(-1, 1, (NP, D))
    rmse, norm = np.empty(NP), np.empty(NP)
    zeros = np.zeros(NP, np.int64)
    de.evaluate(*data, zeros, pop, nh, 0, 1e-3, rmse, norm)
    r, cross, jrand = distinct_indices(rng, NP), rng.random((NP, D)) < 0.8, rng.integers(D, size=NP)
    best = np.full(NP, int(np.argmin(rmse)))
    protect = np.arange(NP) == best[0]
    args = (zeros, best, np.arange(NP), np.full(NP, de.BEST2), r, cross, jrand, 0.5, -1.0, 1.0)
    new = (np.empty_like(pop), np.empty(NP), np.empty(NP))
    de.generation(*data, zeros, pop, rmse, norm, *args, nh, 0, 1e-3, de.PAPER, 0.0, protect,
                  *new)
    trial, tr, tn = np.empty_like(pop), np.empty(NP), np.empty(NP)
    de.mutate_crossover(pop, *args, trial)
    de.evaluate(*data, zeros, trial, nh, 0, 1e-3, tr, tn)
    de.select(pop, rmse, norm, trial, tr, tn, de.PAPER, 0.0, protect)
    np.testing.assert_array_equal(new[0], pop)
    np.testing.assert_array_equal(new[1], rmse)
    np.testing.assert_array_equal(new[2], norm)


def test_split_indices():
    rng = np.random.default_rng(0)
    labels = np.repeat([0, 1, 2], [40, 20, 1])
    tr, va = split_indices(rng, 61, 0.5, labels)
    assert np.array_equal(np.sort(np.concatenate([tr, va])), np.arange(61))
    assert np.bincount(labels[va], minlength=3).tolist() == [20, 10, 0]  # the singleton trains
    tr, va = split_indices(rng, 2, 0.5, np.array([0, 1]))
    assert len(tr) == len(va) == 1
    tr, va = split_indices(rng, 9, 0.3)
    assert len(va) == 3 and len(tr) == 6


# --------------------------------------------------------------------------- estimators


_SMALL = dict(n_hidden=12, pop_size=5, n_generations=1, random_state=0)


@parametrize_with_checks([DEELMRegressor(**_SMALL), DEELMClassifier(**_SMALL)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


_THREADS_SCRIPT = textwrap.dedent("""
    import hashlib, json
    import numpy as np
    import fastelm.de_elm as ev

    rng = np.random.default_rng(0)
    X = rng.standard_normal((150, 6))
    y = (X[:, 0] + np.sin(2 * X[:, 1]) > 0).astype(int) + (X[:, 2] > 1)
    digest, plain = [], ev.evolve

    def recording(*args, **kw):
        def callback(t, pop, rmse, norm):
            digest.append(hashlib.sha256(pop.tobytes() + rmse.tobytes()).hexdigest())
        return plain(*args, callback=callback, **kw)

    ev.evolve = recording
    model = ev.DEELMClassifier(n_hidden=12, pop_size=10, n_generations=6, strategy="best/2",
                               random_state=7).fit(X, y)
    digest.append(hashlib.sha256(model.decision_function(X).tobytes()).hexdigest())
    ev.evolve = plain
    sel = ev.select_strategy(X, y, n_repeats=3, batch_size=2, random_state=1,
                             estimator=ev.DEELMClassifier(n_hidden=8, pop_size=6,
                                                          n_generations=3))
    digest.append(hashlib.sha256(sel.rmse.tobytes()).hexdigest())
    print(json.dumps(digest))
""")


def test_same_populations_at_one_and_two_threads():
    """Every population of a DE-ELM fit (and a strategy selection) is bit-identical at
    NUMBA_NUM_THREADS=1 and 2; the two subprocesses run side by side."""
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    procs = {threads: subprocess.Popen(
        [sys.executable, "-c", _THREADS_SCRIPT], cwd=REPO, text=True, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, env=dict(os.environ, NUMBA_NUM_THREADS=threads, PYTHONPATH=path))
        for threads in ("1", "2")}
    out = {}
    for threads, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr
        out[threads] = json.loads(stdout.strip().splitlines()[-1])
    assert len(out["1"]) == 7 + 1 + 1  # populations 0..6, the predictions, the selection
    assert out["1"] == out["2"]


@pytest.mark.parametrize("selection", ["eelm", "paper"])
def test_best_validation_rmse_never_increases(selection):
    X, y = _scaled(load_breast_cancer)
    model = DEELMClassifier(selection=selection, eelm_tol=0.05, n_generations=15,
                            random_state=0).fit(X, y)
    best, mean = model.fitness_history_.T
    assert model.fitness_history_.shape == (16, 2)
    assert np.all(np.diff(best) <= 0) and best[-1] < best[0]
    assert np.all(best <= mean)
    assert model.validation_rmse_ == best[-1] == model.population_rmse_.min()


def test_eelm_rule_without_elitism_is_as_published(monkeypatch):
    """E-ELM (Zhu et al. 2005) keeps no elite: the fit's DE is replayed (same draws) and every
    individual of every generation is the trial exactly when ``accepts`` (E-ELM rule, no
    protection) says so; the run's best is replaced by a worse trial within the tolerance."""
    import fastelm.de_elm as ev

    X, y = _scaled(load_breast_cancer)
    calls, plain = [], ev.evolve

    def recording(data, pop0, rngs, strategies, **options):
        seen = []
        calls.append((data, copy.deepcopy(rngs[0]), strategies[0], options, seen))
        return plain(data, pop0, rngs, strategies, **options,
                     callback=lambda t, pop, rmse, norm: seen.append(
                         (pop[0].copy(), rmse[0].copy(), norm[0].copy())))

    monkeypatch.setattr(ev, "evolve", recording)
    DEELMClassifier(selection="eelm", eelm_tol=0.1, elitism=False, n_generations=5,
                    random_state=0).fit(X, y)
    ((data, rng, strategy, options, seen),) = calls
    assert (options["rule"], options["elitism"]) == (de.EELM, False)
    NP, D = seen[0][0].shape
    zeros, worse_best = np.zeros(NP, np.int64), 0
    for t, f in enumerate(options["f_values"]):
        r, cross = distinct_indices(rng, NP), rng.random((NP, D)) <= options["crossover"]
        jrand = rng.integers(D, size=NP)
        pop, rmse, norm = seen[t]
        best = int(np.argmin(rmse))
        trial, tr, tn = np.empty_like(pop), np.empty(NP), np.empty(NP)
        de.mutate_crossover(pop, zeros, np.full(NP, best), np.arange(NP), np.full(NP, strategy),
                            r, cross, jrand, f, *ev.BOUNDS, trial)
        de.evaluate(*data, zeros, trial, options["n_hidden"], options["code"], options["alpha"],
                    tr, tn)
        for p in range(NP):
            accepted = de.accepts(rmse[p], norm[p], tr[p], tn[p], de.EELM, options["eps"], False)
            np.testing.assert_array_equal(seen[t + 1][0][p], trial[p] if accepted else pop[p])
            worse_best += accepted and p == best and tr[p] > rmse[p]
    assert worse_best >= 1


def _elm_rmse(elm, Xl, yl, Xv, Tv):
    elm.fit(Xl, yl)
    out = elm.predict(Xv) if isinstance(elm, ELMRegressor) else elm._scores(Xv)
    return np.sqrt(np.mean((out.reshape(len(Xv), -1) - Tv) ** 2))


@pytest.mark.parametrize("name", ["breast_cancer", "wine", "diabetes"])
def test_deelm_beats_plain_elm_on_validation_rmse(name):
    loader = {"breast_cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}
    X, y = _scaled(loader[name])
    regression = name == "diabetes"
    if regression:
        y = (y - y.mean()) / y.std()
    tr, va = _halves(len(X), 0)
    Tv = y[va, None] if regression else np.eye(len(np.unique(y)))[y[va]]
    DE, ELM = (DEELMRegressor, ELMRegressor) if regression else (DEELMClassifier, ELMClassifier)
    model = DE(n_hidden=20, alpha=1e-2, random_state=0)
    model.fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    elms = [_elm_rmse(ELM(n_hidden=20, alpha=1e-2, random_state=s), X[tr], y[tr], X[va], Tv)
            for s in range(10)]
    assert model.validation_rmse_ < np.mean(elms)
    assert model.fitness_history_[-1, 0] < model.fitness_history_[0, 0]  # DE improved on init
    # the reported validation RMSE is that of the fitted model (readout on L)
    np.testing.assert_allclose(_elm_rmse_of_fitted(model, X[va], Tv), model.validation_rmse_,
                               rtol=1e-9)


def _elm_rmse_of_fitted(model, Xv, Tv):
    return np.sqrt(np.mean((model._scores(Xv) - Tv) ** 2))


def test_readout_on_train_or_on_train_and_validation():
    X, y = _scaled(load_diabetes)
    y = (y - y.mean()) / y.std()
    tr, va = _halves(len(X), 2)
    kw = dict(n_hidden=15, n_generations=5, random_state=3)
    a = DEELMRegressor(readout="train", **kw).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    b = DEELMRegressor(readout="all", **kw).fit(X[tr], y[tr], X_val=X[va], y_val=y[va])
    np.testing.assert_array_equal(a.W_, b.W_)
    H = np.tanh(X @ a.W_ + a.b_)
    np.testing.assert_allclose(a.beta_, ridge_fit(H[tr], y[tr, None], 1e-3), rtol=1e-10)
    np.testing.assert_allclose(b.beta_, ridge_fit(H, y[:, None], 1e-3), rtol=1e-10)


def test_internal_split_is_stratified_and_seeded():
    X, y = _scaled(load_wine)
    a = DEELMClassifier(n_generations=3, random_state=4).fit(X, y)
    b = DEELMClassifier(n_generations=3, random_state=4).fit(X, y)
    np.testing.assert_array_equal(a.population_, b.population_)
    c = DEELMClassifier(n_generations=3, random_state=5).fit(X, y)
    assert not np.array_equal(a.population_, c.population_)
    assert a.population_.shape == (20, (13 + 1) * 30)


def test_float32_model():
    X, y = _scaled(load_wine)
    m = DEELMClassifier(n_generations=3, dtype="float32", random_state=0).fit(X, y)
    assert m.W_.dtype == m.beta_.dtype == np.float32 and m.score(X, y) > 0.9


@pytest.mark.parametrize("params, match", [
    (dict(strategy="rand/2"), "strategy"), (dict(selection="greedy"), "selection"),
    (dict(f_schedule="cos"), "f_schedule"), (dict(readout="val"), "readout"),
    (dict(pop_size=4, strategy="best/2"), "pop_size"), (dict(crossover=1.5), "crossover"),
    (dict(n_generations=-1), "n_generations"), (dict(validation_fraction=1.0), "validation"),
    (dict(f_min=-0.1), "f_min"), (dict(elitism="yes"), "elitism"),
    (dict(f_min=0.7, f_max=0.3), "f_min=0.7 is greater than f_max=0.3"),
    (dict(f_min=0.7, f_max=0.3, f_schedule="linear"), "greater than f_max")])
def test_invalid_parameters(params, match):
    X, y = _scaled(load_wine)
    with pytest.raises(ValueError, match=match):
        DEELMClassifier(**params).fit(X, y)


def test_validation_data_must_come_in_pairs_and_match():
    X, y = _scaled(load_wine)
    with pytest.raises(ValueError, match="y_val"):
        DEELMClassifier().fit(X, y, X_val=X)
    with pytest.raises(ValueError, match="labels not in classes_"):
        DEELMClassifier(n_generations=1).fit(X[y < 2], y[y < 2], X_val=X, y_val=y)
    with pytest.raises(ValueError, match="features"):
        DEELMRegressor(n_generations=1).fit(X, y * 1.0, X_val=X[:, :5], y_val=y * 1.0)


# --------------------------------------------------------------------------- strategy selection


def test_tally_votes_and_tie_rule():
    names = ("rand/1", "best/1", "best/2")
    rmse = np.array([[0.1, 0.2, 0.3], [0.3, 0.1, 0.2], [0.3, 0.2, 0.1], [0.2, 0.1, 0.3]])
    res = tally(rmse, names)  # votes 1, 2, 1
    assert res.strategy == "best/1" and res.votes.tolist() == [1, 2, 1]
    rmse = np.array([[0.1, 0.2, 0.9], [0.5, 0.4, 0.9], [0.9, 0.9, 0.1], [0.3, 0.5, 0.9]])
    res = tally(rmse, names)  # votes 2, 1, 1 -> rand/1
    assert res.strategy == "rand/1"
    rmse = np.array([[0.1, 0.2, 0.9], [0.5, 0.4, 0.9], [0.6, 0.3, 0.9], [0.2, 0.3, 0.9]])
    res = tally(rmse, names)  # votes 2, 2, 0; sums 1.4 vs 1.2 -> best/1
    assert res.votes.tolist() == [2, 2, 0] and res.strategy == "best/1"
    np.testing.assert_allclose(res.rmse_sums, rmse.sum(0))


def test_select_strategy_is_seeded_and_batch_independent():
    X, y = _scaled(load_wine)
    est = DEELMClassifier(n_hidden=10, pop_size=8, n_generations=4)
    a = select_strategy(X, y, n_repeats=5, estimator=est, random_state=0, batch_size=5)
    b = select_strategy(X, y, n_repeats=5, estimator=est, random_state=0, batch_size=2)
    assert isinstance(a, StrategySelection) and a.strategies == ("rand/1", "best/1", "best/2")
    np.testing.assert_array_equal(a.rmse, b.rmse)
    assert a.rmse.shape == (5, 3) and a.votes.sum() == 5 and a.strategy == b.strategy
    np.testing.assert_allclose(a.rmse_sums, a.rmse.sum(0))
    assert a.strategy == tally(a.rmse, a.strategies).strategy
    assert not hasattr(est, "classes_")  # the estimator is cloned, not fitted


def test_select_strategy_scores_are_those_of_deelm_fits():
    """Repetition i of each strategy is exactly a DE-ELM fit with that strategy, seeded with
    repetition i's Generator: same split, initial population and draws."""
    X, y = _scaled(load_diabetes)
    y = (y - y.mean()) / y.std()
    est = DEELMRegressor(n_hidden=8, pop_size=6, n_generations=3)
    res = select_strategy(X, y, n_repeats=2, estimator=est, random_state=1)
    seeds = np.random.SeedSequence(
        np.random.default_rng(1).integers(0, 2**63, size=4)).spawn(2)
    for i in range(2):
        for k, strategy in enumerate(res.strategies):
            fit = DEELMRegressor(n_hidden=8, pop_size=6, n_generations=3, strategy=strategy,
                                 random_state=np.random.default_rng(seeds[i])).fit(X, y)
            assert fit.validation_rmse_ == res.rmse[i, k]
    one = select_strategy(X, y, n_repeats=2, estimator=est, strategies=("best/1",),
                          random_state=1)
    assert one.strategy == "best/1" and one.votes.tolist() == [2]
    np.testing.assert_array_equal(one.rmse[:, 0], res.rmse[:, 1])


def test_select_strategy_rejects_other_estimators():
    X, y = _scaled(load_wine)
    with pytest.raises(TypeError, match="DEELM"):
        select_strategy(X, y, n_repeats=2, estimator=ELMClassifier())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["australian", "breast_cancer_wisconsin", "vote", "wdbc",
                                  "mushroom"])
def test_deelm_beats_elm_on_the_papers_uci_sets(name):
    datasets = pytest.importorskip("fastelm.datasets")
    try:
        X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    except datasets.DataNotFoundError as exc:
        pytest.skip(str(exc))
    X = StandardScaler().fit_transform(X)
    y = np.unique(y, return_inverse=True)[1]
    tr, va = _halves(len(X), 0)
    Tv = np.eye(y.max() + 1)[y[va]]
    model = DEELMClassifier(n_hidden=30, random_state=0).fit(X[tr], y[tr], X_val=X[va],
                                                             y_val=y[va])
    elms = [_elm_rmse(ELMClassifier(n_hidden=30, random_state=s), X[tr], y[tr], X[va], Tv)
            for s in range(5)]
    assert model.validation_rmse_ < np.mean(elms)


# --------------------------------------------------------------------------- weight scale


def test_weight_scale_bounds_w_and_leaves_b_in_unit_range():
    """W in [-s, s], b in [-1, 1]: the DE on z = [W/s, b] with inputs sX is the DE on X."""
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    s = 1 / np.sqrt(X.shape[1])
    kw = dict(n_hidden=8, pop_size=8, n_generations=6, random_state=2)
    auto = DEELMClassifier(**kw).fit(X, y)
    unit = DEELMClassifier(weight_scale=1.0, **kw).fit(X * s, y)  # the same DE, in z
    assert auto.weight_scale_ == s and unit.weight_scale_ == 1.0
    np.testing.assert_allclose(auto.W_, unit.W_ * s, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(auto.b_, unit.b_, rtol=1e-12, atol=1e-15)
    assert auto.validation_rmse_ == pytest.approx(unit.validation_rmse_, rel=1e-12)
    d_nh = X.shape[1] * 8
    assert np.abs(auto.population_[:, :d_nh]).max() <= s
    assert np.abs(auto.population_[:, d_nh:]).max() <= 1.0
    assert np.abs(auto.population_[:, d_nh:]).max() > s  # the biases are not scaled
    np.testing.assert_array_equal(auto.W_.ravel(), auto.population_[
        np.argmin(auto.population_rmse_), :d_nh])


def test_select_strategy_sees_the_weight_scale():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    s = 0.3
    kw = dict(n_hidden=6, pop_size=6, n_generations=3)
    scaled = select_strategy(X, y, 3, estimator=DEELMClassifier(weight_scale=s, **kw),
                             random_state=0)
    unit = select_strategy(X * s, y, 3, estimator=DEELMClassifier(weight_scale=1.0, **kw),
                           random_state=0)
    np.testing.assert_allclose(scaled.rmse, unit.rmse, rtol=1e-12)


# ------------------------------------------------------------------ E-ELM selection rule
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).
# An absolute instead of a relative tolerance (every other case has RMSE_old = 1,
# where the two agree).


@pytest.mark.mutant
@pytest.mark.parametrize("scale", [10.0, 0.1, 1e-4])
def test_eelm_tolerance_is_relative_to_rmse_old(scale):
    """|RMSE_old − RMSE_new| is compared with eps·RMSE_old (Zhu et al. 2005), so a rule
    stays the same when every RMSE is scaled; an absolute eps would not."""
    eps, acc = 0.05, de.accepts
    old = scale * 1.0
    # 4% better: within the relative tolerance (5%), so decided by the norm
    assert not acc(old, 1.0, 0.96 * old, 2.0, de.EELM, eps, False)
    assert acc(old, 1.0, 0.96 * old, 0.5, de.EELM, eps, False)
    # 6% better: clearly better whatever the norm
    assert acc(old, 1.0, 0.94 * old, 2.0, de.EELM, eps, False)
    # 6% worse: rejected even with a smaller norm
    assert not acc(old, 1.0, 1.06 * old, 0.5, de.EELM, eps, False)


@pytest.mark.mutant
@pytest.mark.parametrize("rule", [de.PAPER, de.EELM])
def test_elitism_accepts_a_trial_of_equal_rmse(rule):
    """A protected (best) individual may be replaced by a trial no worse in RMSE: RMSE_new <=
    RMSE_old, so an equal RMSE with a smaller norm is accepted under both rules, a larger RMSE
    never (kills '<=' → '<' in the elitism test)."""
    acc = de.accepts
    assert acc(0.5, 2.0, 0.5, 1.0, rule, 0.05, True)
    assert not acc(0.5, 2.0, 0.5, 3.0, rule, 0.05, True)       # equal RMSE, larger norm
    assert not acc(0.5, 2.0, 0.5000001, 1.0, rule, 0.05, True)  # worse RMSE: elitism refuses
    assert acc(0.5, 2.0, 0.5000001, 1.0, rule, 0.05, False)     # which it alone decides


@pytest.mark.mutant
def test_paper_rule_needs_a_strictly_smaller_norm_or_rmse():
    """PAPER: ||beta_new|| < ||beta_old|| or RMSE_new < RMSE_old, both strict: an equal norm
    with a worse RMSE is refused (kills the norm test written '<='), as is an equal RMSE with a
    larger norm."""
    assert not de.accepts(1.0, 2.0, 1.5, 2.0, de.PAPER, 0.0, False)
    assert not de.accepts(1.0, 2.0, 1.0, 2.5, de.PAPER, 0.0, False)
    assert de.accepts(1.0, 2.0, 1.5, 1.999, de.PAPER, 0.0, False)


@pytest.mark.mutant
def test_a_dead_hidden_node_without_ridge_is_infeasible():
    """A ReLU node that is 0 on every training row makes H_Lᵀ H_L singular with an exactly zero
    last pivot (s = 0 = tol·K_jj) when alpha = 0: the individual is infeasible (inf, inf), never a
    0/0 solve (kills the pivot test 's > tol·K_jj' written '>=')."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(0)
    X, T = rng.uniform(0, 1, (30, 3)), rng.standard_normal((30, 1))
    data = prepare_splits(X, T, [(np.arange(20), np.arange(20, 30))])
    nh = 4
    W = rng.uniform(0.1, 1.0, (3, nh))  # x >= 0, W > 0, b > 0: nodes 0-2 are alive ...
    b = np.full(nh, 0.1)
    W[:, -1], b[-1] = 0.0, -1.0          # ... and the last one (the last pivot) is 0 everywhere
    theta = np.concatenate([W.ravel(), b])[None, :]
    rmse, norm = np.empty(1), np.empty(1)
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["relu"], 0.0, rmse, norm)
    assert np.isinf(rmse[0]) and np.isinf(norm[0])
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["relu"], 1e-3, rmse, norm)
    assert np.isfinite(rmse[0]) and np.isfinite(norm[0])  # a ridge makes it solvable


@pytest.mark.mutant
def test_eelm_rule_boundaries_are_strict():
    """Zhu et al.'s rule with dyadic numbers (exact in floating point), eps·RMSE_old = 0.25:
    an improvement of exactly 0.25 is not 'clearly better', a difference of exactly 0.25 is not
    'within tolerance', an equal norm is not smaller (kills '>' → '>=' and '<' → '<=' in
    both terms); a protected individual takes a strictly better trial."""
    acc, E = de.accepts, de.EELM
    assert not acc(1.0, 1.0, 0.75, 2.0, E, 0.25, False)   # 1 - 0.75 = 0.25: on both strict
    assert not acc(1.0, 1.0, 0.75, 0.5, E, 0.25, False)   # boundaries, whatever the norm
    assert acc(1.0, 1.0, 0.625, 2.0, E, 0.25, False)      # 0.375 > 0.25: clearly better
    assert not acc(1.0, 1.0, 1.25, 0.5, E, 0.25, False)   # |1 - 1.25| = 0.25: outside
    assert not acc(1.0, 1.0, 1.125, 1.0, E, 0.25, False)  # inside, equal norm
    assert acc(1.0, 1.0, 1.125, 0.875, E, 0.25, False)    # inside, smaller norm
    for rule in (de.PAPER, E):                            # elitism: a better RMSE is taken
        assert acc(0.5, 2.0, 0.25, 1.0, rule, 0.25, True)


@pytest.mark.mutant
def test_odd_layer_sizes_compute_the_last_node():
    """hidden_transposed pairs nodes two by two; for an odd number of nodes the last one is
    computed on its own (kills 'nh % 2' → 'nh % 3', which skips it when nh is an odd multiple
    of 3). The (rmse, ||beta||) of 3 and 9 nodes equal a numpy fit."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(1)
    X, T = rng.standard_normal((40, 5)), rng.standard_normal((40, 2))
    data = prepare_splits(X, T, [(np.arange(25), np.arange(25, 40))])
    for nh in (3, 9):
        theta = rng.uniform(-1, 1, (1, 6 * nh))
        rmse, norm = np.empty(1), np.empty(1)
        de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["tanh"], 1e-3, rmse,
                    norm)
        H = np.tanh(X @ theta[0, :5 * nh].reshape(5, nh) + theta[0, 5 * nh:])
        beta = np.linalg.solve(H[:25].T @ H[:25] + 1e-3 * np.eye(nh), H[:25].T @ T[:25])
        want = [np.sqrt(np.mean((H[25:] @ beta - T[25:]) ** 2)), np.linalg.norm(beta)]
        np.testing.assert_allclose([rmse[0], norm[0]], want, rtol=1e-9)


@pytest.mark.mutant
@pytest.mark.parametrize("seed", range(6))
def test_a_duplicated_hidden_node_without_ridge_is_infeasible(seed):
    """Two identical nodes make H_Lᵀ H_L singular: the second pivot is rounding noise, a few
    ulps of K_jj either side of 0, below the relative cut-off n·eps·K_jj, so the individual is
    infeasible whatever the rounding (kills the cut-off made negative or divided by K_jj, under
    which a positive noise pivot is accepted and a garbage beta scored)."""
    from fastelm._hidden import ACTIVATIONS

    rng = np.random.default_rng(seed)
    X, T = rng.uniform(0, 1, (30, 3)), rng.standard_normal((30, 1))
    data = prepare_splits(X, T, [(np.arange(20), np.arange(20, 30))])
    nh = 8
    W, b = 30 * rng.uniform(-1, 1, (3, nh)), rng.uniform(-1, 1, nh)
    W[:, 1], b[1] = W[:, 0], b[0]
    theta = np.concatenate([W.ravel(), b])[None, :]
    rmse, norm = np.empty(1), np.empty(1)
    de.evaluate(*data, np.zeros(1, np.int64), theta, nh, ACTIVATIONS["tanh"], 0.0, rmse, norm)
    assert np.isinf(rmse[0]) and np.isinf(norm[0])


_FORMULAS = {  # mutant vector v from x_best and x = [x_r1, x_r2, x_r3, x_r4], by name
    "rand/1": lambda xb, x, f: x[0] + f * (x[1] - x[2]),
    "best/1": lambda xb, x, f: xb + f * (x[0] - x[1]),
    "best/2": lambda xb, x, f: xb + f * (x[0] - x[1]) + f * (x[2] - x[3]),
}


@pytest.mark.mutant
@pytest.mark.parametrize("name", sorted(_FORMULAS))
def test_each_strategy_name_gets_its_own_formula(name):
    """The user's strategy name reaches its own mutation formula (the expected vector is written
    by name, not by kernel code: kills two strategy codes made equal, e.g. BEST1 = BEST2 = 2)."""
    from fastelm.de_elm import STRATEGIES

    rng = np.random.default_rng(5)
    NP, D, f = 6, 7, 0.6
    pop = rng.uniform(-1, 1, (NP, D))
    r = distinct_indices(rng, NP)
    cross = np.ones((NP, D), dtype=bool)  # every coordinate from the mutant
    zeros, best = np.zeros(NP, np.int64), np.full(NP, 3)
    trial = np.empty_like(pop)
    de.mutate_crossover(pop, zeros, best, np.arange(NP), np.full(NP, STRATEGIES[name]), r, cross,
                        zeros, f, -10.0, 10.0, trial)
    for p in range(NP):
        np.testing.assert_allclose(trial[p], _FORMULAS[name](pop[3], pop[r[p]], f), rtol=1e-14)


@pytest.mark.mutant
@pytest.mark.parametrize("name, accepted", [("paper", True), ("eelm", False)])
def test_each_selection_name_gets_its_own_rule(name, accepted):
    """A trial 50% worse in RMSE with a smaller norm: the paper's rule (smaller norm or smaller
    RMSE) accepts it, E-ELM's (RMSE first) refuses it; kills PAPER and EELM made equal."""
    from fastelm.de_elm import SELECTIONS

    assert de.accepts(1.0, 1.0, 1.5, 0.5, SELECTIONS[name], 0.05, False) is accepted


# ------------------------------------------------------------------ DE: F(t) at generation t
# ``evolve`` using F(0) at every generation instead of F(t).


@pytest.mark.mutant
def test_evolve_uses_f_of_generation_t():
    """Replay the random draws of ``evolve`` and rebuild every accepted trial: generation t's
    trial vectors are x_r1 + F(t)·(x_r2 − x_r3) (rand/1, binomial crossover, clipped)."""
    rng = np.random.default_rng(0)
    X, T = rng.standard_normal((60, 3)), rng.standard_normal((60, 1))
    perm = rng.permutation(60)
    data = prepare_splits(X, T, [(np.sort(perm[:30]), np.sort(perm[30:]))])
    NP, nh, crossover = 10, 4, 0.9
    D = (3 + 1) * nh
    pop0 = rng.uniform(-1, 1, (1, NP, D))
    f_values = [0.9, 0.2, 0.6, 0.35, 0.75]
    run_rng = np.random.default_rng(7)
    replay = copy.deepcopy(run_rng)
    seen = []
    evolve(data, pop0, [run_rng], [de.RAND1], n_hidden=nh, code=check_activation("tanh"),
           alpha=1e-3, n_generations=len(f_values), crossover=crossover, f_values=f_values,
           rule=de.PAPER, eps=0.0, elitism=False,
           callback=lambda t, pop, rmse, norm: seen.append(pop[0].copy()))
    lower, upper = BOUNDS
    for t, f in enumerate(f_values):
        r = distinct_indices(replay, NP)
        cross = replay.random((NP, D)) <= crossover
        jrand = replay.integers(D, size=NP)
        pop, new = seen[t], seen[t + 1]
        changed = np.flatnonzero(np.any(new != pop, axis=1))
        assert len(changed) >= 2, t  # the check below must have something to check
        for p in changed:
            v = pop[r[p, 0]] + f * (pop[r[p, 1]] - pop[r[p, 2]])
            take = cross[p].copy()
            take[jrand[p]] = True
            np.testing.assert_array_equal(new[p], np.where(take, np.clip(v, lower, upper), pop[p]))
