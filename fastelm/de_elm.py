"""Differential evolution of ELM hidden layers: DE-ELM estimators and DE strategy selection.

DE-ELM (docs/algorithms.md §6; Pang, Huang, Zhang, Shu & Zhao (2020), semi-supervised
classification based on DE and ELM (DE-ELM-SSC / DE-ELM-SSC+); E-ELM, Zhu et al. 2005). An individual theta = [W.ravel(), b] is the hidden layer of an ELM with
``n_hidden`` nodes, W in [-s, s] and b in [-1, 1] (s = ``weight_scale_``; the paper's bounds are
[-1, 1], s = 1). The DE runs on z = [W.ravel() / s, b] in [-1, 1]^D with the inputs sX: the same
evolution, since mutation, crossover and clipping commute with a scale per coordinate and
(sX)(W/s) = XW (to rounding; exactly the unscaled loop for s = 1). Its fitness: the ridge readout beta fitted on a training part
L, the RMSE of the network on a validation part V, and ||beta||. Each generation t:

  mutation     rand/1  v = x_r1 + F(x_r2 − x_r3)
               best/1  v = x_best + F(x_r1 − x_r2)
               best/2  v = x_best + F(x_r1 − x_r2) + F(x_r3 − x_r4)
  crossover    u_j = v_j if rand_j <= CR or j = j_rand, else x_j; then clip to the bounds
  selection    'paper': u replaces x if ||beta_u|| < ||beta_x|| or RMSE_u < RMSE_x
               'eelm':  RMSE_x − RMSE_u > eps·RMSE_x, or
                        |RMSE_x − RMSE_u| < eps·RMSE_x and ||beta_u|| < ||beta_x||
  F(t)         constant; linear Fmax − (Fmax − Fmin)·t/T;
               nonlinear (DE-ELM-SSC+) Fmax − (Fmax − Fmin)·(e^{t/T} − 1)/(e − 1).

The loops are Numba kernels (``fastelm._kernels.de``), parallel over individuals. All randomness
(split, initial population, r1..r4, crossover masks, j_rand) is drawn here with numpy Generators,
so a seed gives the same populations at any thread count.

Choices where the paper is silent or ambiguous (each reachable by a parameter where it matters):
- final readout: the paper returns "the best individual and its output weights", i.e. beta
  fitted on L (``readout='train'``); ``readout='all'`` refits it on L ∪ V;
- fitness RMSE is on V (Algorithm 3; §3.2's complexity count says "training set"), averaged
  over rows and outputs (one-hot columns for classifiers), as in E-ELM;
- F(t) breeds generation t + 1 from t, t = 0..T−1, T = n_generations (example 2: generation 10
  uses F(10)); the best individual is the lowest validation RMSE, ties to the lowest index;
- ``elitism=True`` (default) protects each population's best individual, so the best RMSE never
  rises; ``elitism=False`` applies either selection rule to every individual as published;
- an individual whose ridge system is numerically singular (alpha ~ 0) has RMSE = inf;
- strategy selection: the three strategies of a repetition share its split, initial
  population and random draws (common random numbers), and a repetition's score is the best
  individual's validation RMSE (V both guides the DE and scores it, as in Algorithm 1 + 3).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier

from ._base import BaseRandomLayerReadout, ClassifierOutputs, RegressorOutputs, fit_bytes
from ._hidden import check_activation, check_generator, check_weight_scale
from ._kernels import de as _de
from ._ridge import ridge_fit
from ._targets import TargetCoding
from ._validation import (FRACTION, NONNEGATIVE, NONNEGATIVE_INT, OPEN_FRACTION, POSITIVE_INT,
                          DType, RandomState, StrOptions, check_memory, validate_params)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["DEELMClassifier", "DEELMRegressor", "StrategySelection", "scaling_factor",
           "select_strategy"]

STRATEGIES = {"rand/1": _de.RAND1, "best/1": _de.BEST1, "best/2": _de.BEST2}
# population size needed for distinct r1..rk != i
MIN_POP_SIZE = {"rand/1": 4, "best/1": 3, "best/2": 5}
SELECTIONS = {"paper": _de.PAPER, "eelm": _de.EELM}
F_SCHEDULES = ("constant", "linear", "nonlinear")
READOUTS = ("train", "all")
BOUNDS = (-1.0, 1.0)  # of z = [W / s, b]


def unit_to_layer(z, n_weights, scale):
    """Individuals z = [W.ravel() / s, b] of the DE's cube → [W.ravel(), b] (a copy)."""
    theta = np.array(z, dtype=np.float64)
    theta[..., :n_weights] *= scale
    return theta


def scaling_factor(t: int, n_generations: int, schedule: str = "nonlinear", f_min: float = 0.2,
                   f_max: float = 0.6, f_constant: float = 0.5) -> float:
    """The DE scaling factor F used to breed generation t + 1 from generation t.

    'constant': ``f_constant``; 'linear': Fmax − (Fmax − Fmin)·t/T (the inertia schedule the
    paper starts from); 'nonlinear' (DE-ELM-SSC+): Fmax − (Fmax − Fmin)·(e^{t/T} − 1)/(e − 1),
    slower than linear early on and faster late. T = ``n_generations``: F(0) = Fmax for the first
    generation, F(T) = Fmin would be the value at the last population (paper, §4, example 2:
    Fmax 0.6, Fmin 0.2, T 20 give F(10) = 0.448984, F(11) = 0.429306).

    Parameters
    ----------
    t : int
        Generation index, 0 … T − 1.
    n_generations : int
        T.
    schedule : {'constant', 'linear', 'nonlinear'}, default='nonlinear'
    f_min, f_max : float, default=0.2, 0.6
    f_constant : float, default=0.5

    Returns
    -------
    F : float
    """
    if schedule == "constant":
        return float(f_constant)
    if schedule in ("linear", "nonlinear") and f_min > f_max:
        raise ValueError(f"f_min={f_min!r} is greater than f_max={f_max!r}: F falls from "
                         f"f_max to f_min over the generations")
    if schedule == "linear":
        return f_max - (f_max - f_min) * t / n_generations
    if schedule == "nonlinear":
        return f_max - (f_max - f_min) * math.expm1(t / n_generations) / (math.e - 1.0)
    raise ValueError(f"f_schedule={schedule!r} is not one of {F_SCHEDULES}")


# --------------------------------------------------------------------------- data splits


def split_indices(rng, n_samples, validation_fraction, labels=None):
    """Random (train, validation) row indices, each sorted; stratified by ``labels`` if given.

    round(fraction · count) rows of each class (of all rows, unstratified) go to validation, but
    at least one row of each class stays in training; if that leaves validation empty, one random
    training row moves there. Needs n_samples >= 2.
    """
    if labels is None:
        perm = rng.permutation(n_samples)
        n_val = min(max(int(round(validation_fraction * n_samples)), 1), n_samples - 1)
        return np.sort(perm[n_val:]), np.sort(perm[:n_val])
    train, val = [], []
    for c in np.unique(labels):
        members = rng.permutation(np.flatnonzero(labels == c))
        k = min(int(round(validation_fraction * len(members))), len(members) - 1)
        val.append(members[:k])
        train.append(members[k:])
    train, val = np.concatenate(train), np.concatenate(val)
    if len(val) == 0:
        pick = rng.integers(len(train))
        val, train = train[pick:pick + 1], np.delete(train, pick)
    return np.sort(train), np.sort(val)


def prepare_splits(X, T, splits):
    """Lay out each (train, val) split for the fitness kernel: XS[s] = [X_L; X_V]ᵀ (d×n),
    TS[s] = [T_L; T_V]ᵀ (m×n), zero-padded to the longest split; n_train, n_val per split."""
    n_train = np.array([len(tr) for tr, _ in splits], dtype=np.int64)
    n_val = np.array([len(va) for _, va in splits], dtype=np.int64)
    width = int((n_train + n_val).max())
    XS = np.zeros((len(splits), X.shape[1], width))
    TS = np.zeros((len(splits), T.shape[1], width))
    for s, (tr, va) in enumerate(splits):
        rows = np.concatenate([tr, va])
        XS[s, :, :len(rows)] = X[rows].T
        TS[s, :, :len(rows)] = T[rows].T
    return XS, TS, n_train, n_val


# --------------------------------------------------------------------------- the DE loop


def distinct_indices(rng, pop_size, k=4):
    """(pop_size, 4) indices: row i holds k distinct random members other than i (columns
    beyond k repeat the first)."""
    k = min(k, pop_size - 1)
    picks = np.argsort(rng.random((pop_size, pop_size - 1)), axis=1)[:, :k]
    picks += picks >= np.arange(pop_size)[:, None]  # skip i itself
    out = np.repeat(picks[:, :1], 4, axis=1)
    out[:, :k] = picks
    return out


@dataclass
class _Evolution:
    """Outcome of ``evolve`` for R runs of NP individuals of dimension D."""
    population: np.ndarray  # (R, NP, D)
    rmse: np.ndarray        # (R, NP) validation RMSE of each final individual
    norm: np.ndarray        # (R, NP) ||beta||
    history: np.ndarray     # (n_generations + 1, R, 2): best and mean RMSE of each population


def evolve(data, pop0, rngs, strategies, *, n_hidden, code, alpha, n_generations, crossover,
           f_values, rule, eps, elitism, callback=None):
    """Run G × S DE-ELMs together: G groups (split g of ``data``, initial population pop0[g],
    Generator rngs[g]) times S strategies; the S runs of a group share their random draws
    (common random numbers). Run (g, s) is run g·S + s.

    data = (XS, TS, n_train, n_val) from ``prepare_splits``; pop0: (G, NP, D); f_values[t] is F
    for generation t; ``callback(t, population, rmse, norm)`` sees every population (t = 0 the
    initial one; arrays (R, NP, ·), not to be kept without copying).
    """
    XS, TS, n_train, n_val = data
    G, NP, D = pop0.shape
    S = len(strategies)
    R, P = G * S, G * S * NP
    lower, upper = BOUNDS

    def fitness(pop, split, rmse, norm):
        _de.evaluate(XS, TS, n_train, n_val, split, pop, n_hidden, code, alpha, rmse, norm)

    # initial populations: scored once per group, shared by the group's S runs
    flat0 = np.ascontiguousarray(pop0.reshape(G * NP, D), dtype=np.float64)
    rmse0, norm0 = np.empty(G * NP), np.empty(G * NP)
    fitness(flat0, np.repeat(np.arange(G, dtype=np.int64), NP), rmse0, norm0)
    pop = np.repeat(flat0.reshape(G, 1, NP, D), S, axis=1).reshape(P, D)
    rmse = np.repeat(rmse0.reshape(G, 1, NP), S, axis=1).reshape(P)
    norm = np.repeat(norm0.reshape(G, 1, NP), S, axis=1).reshape(P)

    # per-individual maps (see fastelm._kernels.de)
    p = np.arange(P, dtype=np.int64)
    run, local = p // NP, p % NP
    group = run // S
    base, draw, split = run * NP, group * NP + local, group
    strategy = np.array(strategies, dtype=np.int64)[run % S]

    history = np.empty((n_generations + 1, R, 2))
    new_pop, new_rmse, new_norm = np.empty((P, D)), np.empty(P), np.empty(P)
    r = np.empty((G * NP, 4), dtype=np.int64)
    cross = np.empty((G * NP, D), dtype=np.bool_)
    jrand = np.empty(G * NP, dtype=np.int64)

    def record(t):
        per_run = rmse.reshape(R, NP)
        history[t, :, 0] = per_run.min(axis=1)
        history[t, :, 1] = per_run.mean(axis=1)
        if callback is not None:
            callback(t, pop.reshape(R, NP, D), per_run, norm.reshape(R, NP))

    record(0)
    for t in range(n_generations):
        for g, rng in enumerate(rngs):  # draws in a fixed order: indices, masks, j_rand
            rows = slice(g * NP, (g + 1) * NP)
            r[rows] = distinct_indices(rng, NP)
            cross[rows] = rng.random((NP, D)) <= crossover
            jrand[rows] = rng.integers(D, size=NP)
        best_of_run = rmse.reshape(R, NP).argmin(axis=1) + np.arange(R) * NP
        protect = np.zeros(P, dtype=np.bool_)
        protect[best_of_run] = elitism
        _de.generation(XS, TS, n_train, n_val, split, pop, rmse, norm, base, best_of_run[run],
                       draw, strategy, r, cross, jrand, f_values[t], lower, upper, n_hidden,
                       code, alpha, rule, eps, protect, new_pop, new_rmse, new_norm)
        pop, new_pop = new_pop, pop
        rmse, new_rmse = new_rmse, rmse
        norm, new_norm = new_norm, norm
        record(t + 1)
    return _Evolution(pop.reshape(R, NP, D), rmse.reshape(R, NP), norm.reshape(R, NP), history)


# --------------------------------------------------------------------------- estimators


class _DEELM(BaseRandomLayerReadout):
    _parameter_constraints = {
        **BaseRandomLayerReadout._parameter_constraints,
        "strategy": [StrOptions(set(STRATEGIES))], "pop_size": POSITIVE_INT,
        "n_generations": NONNEGATIVE_INT, "crossover": FRACTION,
        "f_schedule": [StrOptions(set(F_SCHEDULES))], "f_min": NONNEGATIVE,
        "f_max": NONNEGATIVE, "f_constant": NONNEGATIVE, "selection": [StrOptions(set(SELECTIONS))],
        "eelm_tol": NONNEGATIVE, "elitism": ["boolean"], "validation_fraction": OPEN_FRACTION,
        "readout": [StrOptions(set(READOUTS))]}

    def __init__(self, n_hidden: int = 30, activation: str = "tanh", alpha: float = 1e-3,
                 strategy: str = "rand/1", pop_size: int = 20, n_generations: int = 20,
                 crossover: float = 0.8, f_schedule: str = "nonlinear", f_min: float = 0.2,
                 f_max: float = 0.6, f_constant: float = 0.5, selection: str = "paper",
                 eelm_tol: float = 0.02, elitism: bool = True,
                 validation_fraction: float = 0.5, readout: str = "train",
                 random_state: RandomState = None, dtype: DType = "float64",
                 weight_scale: str | float = "auto"):
        self.n_hidden = n_hidden
        self.activation = activation
        self.alpha = alpha
        self.strategy = strategy
        self.pop_size = pop_size
        self.n_generations = n_generations
        self.crossover = crossover
        self.f_schedule = f_schedule
        self.f_min = f_min
        self.f_max = f_max
        self.f_constant = f_constant
        self.selection = selection
        self.eelm_tol = eelm_tol
        self.elitism = elitism
        self.validation_fraction = validation_fraction
        self.readout = readout
        self.random_state = random_state
        self.dtype = dtype
        self.weight_scale = weight_scale

    def _check_params(self, strategies=None):
        dtype = super()._check_params()
        strategies = [self.strategy] if strategies is None else strategies
        for s in strategies:
            if not isinstance(s, str) or s not in STRATEGIES:
                raise ValueError(f"strategy={s!r} is not one of {list(STRATEGIES)}")
        need = max(MIN_POP_SIZE[s] for s in strategies)
        if self.pop_size < need:
            raise ValueError(f"pop_size={self.pop_size} is too small for strategy {strategies}: "
                             f"it needs at least {need}")
        self._f_values()  # f_min > f_max is refused here, before any work
        return dtype

    def _f_values(self):
        G = int(self.n_generations)
        return [scaling_factor(t, G, self.f_schedule, self.f_min, self.f_max, self.f_constant)
                for t in range(G)]

    def _evolve_options(self):
        return dict(n_hidden=int(self.n_hidden), code=check_activation(self.activation),
                    alpha=float(self.alpha), n_generations=int(self.n_generations),
                    crossover=float(self.crossover), f_values=self._f_values(),
                    rule=SELECTIONS[self.selection], eps=float(self.eelm_tol),
                    elitism=bool(self.elitism))

    def _train_validation_rows(self, rng, T):
        if len(T) < 2:
            raise ValueError(f"{type(self).__name__} splits its fit data into training and "
                             f"validation parts and needs at least 2 samples, got 1 sample; "
                             f"or pass X_val, y_val")
        labels = T.argmax(axis=1) if is_classifier(self) else None
        return split_indices(rng, len(T), self.validation_fraction, labels)

    def fit(self, X: ArrayLike, y: ArrayLike, X_val: ArrayLike | None = None,
            y_val: ArrayLike | None = None) -> Self:
        """Evolve the hidden layer (W, b) by DE and fit the readout.

        Without ``X_val`` the data is split at random into L and V (``validation_fraction``,
        stratified for classifiers); with ``X_val, y_val`` all of X is L and those rows are V.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs) (classifiers: labels)
        X_val, y_val : array-like, default=None
            Validation rows V, given together.

        Returns
        -------
        self
        """
        dtype = self._check_params()
        X, T = self._validate_Xy(X, y, dtype, reset=True)
        rng = check_generator(self.random_state)
        if X_val is None:
            if y_val is not None:
                raise ValueError("y_val given without X_val")
            train, val = self._train_validation_rows(rng, T)
        else:
            if y_val is None:
                raise ValueError("X_val given without y_val")
            Xv, Tv = self._validation_data(X_val, y_val, dtype, T.shape[1])
            train = np.arange(len(X))
            val = np.arange(len(X), len(X) + len(Xv))
            X, T = np.concatenate([X, Xv]), np.concatenate([T, Tv])
        nh, d = int(self.n_hidden), X.shape[1]
        # two populations of (d + 1)·L weights, the hidden outputs of all rows (N×L) and the
        # pop_size² random keys of distinct_indices
        pop = int(self.pop_size)
        check_memory(8.0 * (2 * pop * (d + 1) * nh + len(X) * nh + 2.0 * pop * pop)
                     + fit_bytes(nh, d, dtype, len(train)), type(self).__name__,
                     f"n_hidden={nh}, pop_size={self.pop_size}")
        self.weight_scale_ = s = check_weight_scale(self.weight_scale, d)
        data = prepare_splits(X * s, T, [(train, val)])  # z = [W / s, b] on sX (module doc)
        pop0 = rng.uniform(*BOUNDS, size=(1, int(self.pop_size), (d + 1) * nh))
        result = evolve(data, pop0, [rng], [STRATEGIES[self.strategy]],
                        **self._evolve_options())
        best = int(np.argmin(result.rmse[0]))
        self.population_ = unit_to_layer(result.population[0], d * nh, s)
        theta = self.population_[best]
        self.W_ = theta[:d * nh].reshape(d, nh).astype(dtype)
        self.b_ = theta[d * nh:].astype(dtype)
        self._fix_layout()
        rows = train if self.readout == "train" else np.concatenate([train, val])
        self.beta_ = ridge_fit(self._hidden(X[rows]), T[rows], self.alpha)
        self.validation_rmse_ = float(result.rmse[0, best])
        self.fitness_history_ = result.history[:, 0, :]
        self.population_rmse_ = result.rmse[0]
        self.population_norm_ = result.norm[0]
        return self


class DEELMRegressor(RegressorOutputs, RegressorMixin, _DEELM):
    """ELM regressor whose hidden layer is evolved by differential evolution (DE-ELM).

    Parameters
    ----------
    n_hidden : int, default=30
        Number of hidden nodes nh; an individual has (n_features + 1)·nh coordinates.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b).
    alpha : float, default=1e-3
        Ridge penalty of the readout, in the fitness and in the final readout.
    strategy : {'rand/1', 'best/1', 'best/2'}, default='rand/1'
        DE mutation (binomial crossover always); :func:`select_strategy` picks one per data set.
    pop_size : int, default=20
        Population size NP (at least 4, 3, 5 for rand/1, best/1, best/2).
    n_generations : int, default=20
        Number of generations Gmax (0 keeps the best of the random initial population).
    crossover : float in [0, 1], default=0.8
        Crossover rate CR.
    f_schedule : {'constant', 'linear', 'nonlinear'}, default='nonlinear'
        Scaling factor per generation (:func:`scaling_factor`); 'nonlinear' is DE-ELM-SSC+.
    f_min, f_max : float, default=0.2, 0.6
        Fmin, Fmax of the 'linear' and 'nonlinear' schedules.
    f_constant : float, default=0.5
        F of the 'constant' schedule (the paper's DE-ELM-SSC and Tri-DE-ELM use 1).
    selection : {'paper', 'eelm'}, default='paper'
        'paper': the trial wins if its ||beta|| or its RMSE is smaller; 'eelm': E-ELM's rule with
        relative tolerance ``eelm_tol``.
    eelm_tol : float, default=0.02
        eps of the 'eelm' rule (our default).
    elitism : bool, default=True
        Protect each population's best individual: it is replaced only by a trial whose
        validation RMSE is no higher, so the best RMSE never increases. False applies the
        selection rule as published to every individual.
    validation_fraction : float in (0, 1), default=0.5
        Share of the fit data held out as V when ``fit`` gets no ``X_val`` (paper: halves).
    readout : {'train', 'all'}, default='train'
        Rows of the final readout beta_ of the best hidden layer: 'train' is the paper's (the
        best individual's own beta, fitted on L); 'all' refits it on L ∪ V.
    random_state : int, numpy Generator or None
        Seeds the split, the initial population and every DE draw.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the final model (the evolution itself always runs in float64).
    weight_scale : 'auto' or float > 0, default='auto'
        s: the initial population's input weights are drawn in U(-s, s) and the DE keeps them
        in [-s, s]; the biases are drawn in U(-1, 1) and kept in [-1, 1]. 'auto' is 1/√d, as
        in ``ELMRegressor``; 1.0 is the paper's [-1, 1] for every coordinate (the DE-ELM-SSC
        presets).

    Attributes
    ----------
    W_, b_ : hidden layer (d×nh, nh) of the best individual of the last population
    weight_scale_ : float, the s of the bounds [-s, s] of W
    beta_ : readout (nh×m), see ``readout``
    validation_rmse_ : its RMSE on V (readout fitted on L)
    fitness_history_ : ndarray (n_generations + 1, 2), per population (0 = initial) the best
        and the mean validation RMSE
    population_ : ndarray (pop_size, (d + 1)·nh), the last population, rows [W.ravel(), b]
    population_rmse_, population_norm_ : its validation RMSEs and readout norms ||beta||

    Examples
    --------
    >>> import numpy as np
    >>> from fastelm.de_elm import DEELMRegressor
    >>> X = np.linspace(-1, 1, 200)[:, None]
    >>> y = np.sin(3 * X[:, 0])
    >>> DEELMRegressor(n_hidden=10, random_state=0).fit(X, y).score(X, y) > 0.99
    True

    References
    ----------
    Zhu, Qin, Suganthan & Huang (2005), Evolutionary extreme learning machine.
    Pang, Huang, Zhang, Shu & Zhao (2020), semi-supervised classification based on DE and ELM
    (DE-ELM-SSC).
    """

    def _validation_data(self, X_val, y_val, dtype, n_outputs):
        Xv, yv = self._validate_rows(X_val, y_val, dtype, reset=False)
        Tv = TargetCoding(dtype, n_outputs)(yv)
        if Tv.shape[1] != n_outputs:
            raise ValueError(f"y_val has {Tv.shape[1]} outputs, y has {n_outputs}")
        return Xv, Tv


class DEELMClassifier(ClassifierOutputs, ClassifierMixin, _DEELM):
    """ELM classifier whose hidden layer is evolved by differential evolution (DE-ELM); its RMSE is on one-hot targets.

    Parameters
    ----------
    n_hidden : int, default=30
        Number of hidden nodes nh; an individual has (n_features + 1)·nh coordinates.
    activation : {'tanh', 'sigmoid', 'relu', 'sine', 'linear'}, default='tanh'
        g in H = g(XW + b).
    alpha : float, default=1e-3
        Ridge penalty of the readout, in the fitness and in the final readout.
    strategy : {'rand/1', 'best/1', 'best/2'}, default='rand/1'
        DE mutation (binomial crossover always); :func:`select_strategy` picks one per data set.
    pop_size : int, default=20
        Population size NP (at least 4, 3, 5 for rand/1, best/1, best/2).
    n_generations : int, default=20
        Number of generations Gmax (0 keeps the best of the random initial population).
    crossover : float in [0, 1], default=0.8
        Crossover rate CR.
    f_schedule : {'constant', 'linear', 'nonlinear'}, default='nonlinear'
        Scaling factor per generation (:func:`scaling_factor`); 'nonlinear' is DE-ELM-SSC+.
    f_min, f_max : float, default=0.2, 0.6
        Fmin, Fmax of the 'linear' and 'nonlinear' schedules.
    f_constant : float, default=0.5
        F of the 'constant' schedule (the paper's DE-ELM-SSC and Tri-DE-ELM use 1).
    selection : {'paper', 'eelm'}, default='paper'
        'paper': the trial wins if its ||beta|| or its RMSE is smaller; 'eelm': E-ELM's rule with
        relative tolerance ``eelm_tol``.
    eelm_tol : float, default=0.02
        eps of the 'eelm' rule (our default).
    elitism : bool, default=True
        Protect each population's best individual: it is replaced only by a trial whose
        validation RMSE is no higher, so the best RMSE never increases. False applies the
        selection rule as published to every individual.
    validation_fraction : float in (0, 1), default=0.5
        Share of the fit data held out as V when ``fit`` gets no ``X_val`` (paper: halves).
    readout : {'train', 'all'}, default='train'
        Rows of the final readout beta_ of the best hidden layer: 'train' is the paper's (the
        best individual's own beta, fitted on L); 'all' refits it on L ∪ V.
    random_state : int, numpy Generator or None
        Seeds the split, the initial population and every DE draw.
    dtype : {'float64', 'float32'}, default='float64'
        Precision of the final model (the evolution itself always runs in float64).
    weight_scale : 'auto' or float > 0, default='auto'
        s: the initial population's input weights are drawn in U(-s, s) and the DE keeps them
        in [-s, s]; the biases are drawn in U(-1, 1) and kept in [-1, 1]. 'auto' is 1/√d, as
        in ``ELMRegressor``; 1.0 is the paper's [-1, 1] for every coordinate (the DE-ELM-SSC
        presets).

    Attributes
    ----------
    W_, b_ : hidden layer (d×nh, nh) of the best individual of the last population
    weight_scale_ : float, the s of the bounds [-s, s] of W
    beta_ : readout (nh×m), see ``readout``
    validation_rmse_ : its RMSE on V (readout fitted on L)
    fitness_history_ : ndarray (n_generations + 1, 2), per population (0 = initial) the best
        and the mean validation RMSE
    population_ : ndarray (pop_size, (d + 1)·nh), the last population, rows [W.ravel(), b]
    population_rmse_, population_norm_ : its validation RMSEs and readout norms ||beta||
    classes_ : sorted class labels (of y; labels of y_val must be among them)

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import scale
    >>> from fastelm.de_elm import DEELMClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> DEELMClassifier(random_state=0).fit(scale(X), y).score(scale(X), y) > 0.95
    True
    """

    def _validation_data(self, X_val, y_val, dtype, n_outputs):
        return self._validate_Xy(X_val, y_val, dtype, reset=False)


# --------------------------------------------------------------------------- strategy selection


@dataclass
class StrategySelection:
    """Outcome of :func:`select_strategy`.

    Parameters
    ----------
    strategy : str
        The winner (most votes; ties broken by the smaller RMSE sum).
    strategies : tuple of str
        The candidates, in the order of the arrays below.
    votes : ndarray of shape (k,)
        Repetitions each strategy won (lowest validation RMSE).
    rmse_sums : ndarray of shape (k,)
        Summed validation RMSE over the repetitions.
    rmse : ndarray of shape (n_repeats, k)
        Validation RMSE of each strategy's DE-ELM in each repetition.
    """
    strategy: str
    strategies: tuple
    votes: np.ndarray
    rmse_sums: np.ndarray
    rmse: np.ndarray


def tally(rmse: ArrayLike, strategies: Sequence[str]) -> StrategySelection:
    """Votes (one per repetition, to the lowest RMSE; exact ties to the first) and RMSE sums;
    the winner has most votes, ties broken by the smaller RMSE sum, then by order."""
    rmse = np.asarray(rmse, dtype=np.float64)
    votes = np.bincount(rmse.argmin(axis=1), minlength=rmse.shape[1])
    sums = rmse.sum(axis=0)
    order = np.lexsort((np.arange(len(sums)), sums, -votes))
    return StrategySelection(strategies[order[0]], tuple(strategies), votes, sums, rmse)


@validate_params({"n_repeats": POSITIVE_INT, "batch_size": POSITIVE_INT},
                 prefer_skip_nested_validation=False)
def select_strategy(X: ArrayLike, y: ArrayLike, n_repeats: int = 125, *,
                    estimator: BaseEstimator | None = None,
                    strategies: Sequence[str] = ("rand/1", "best/1", "best/2"),
                    random_state: RandomState = None, batch_size: int = 25
                    ) -> StrategySelection:
    """Pick the DE mutation strategy for a data set by the paper's vote (Algorithm 1).

    ``n_repeats`` times: split (X, y) at random into L and V (the estimator's
    ``validation_fraction``, halves by default; stratified for classifiers), evolve one DE-ELM
    per strategy on it (same split, same initial population and same random draws for every
    strategy), and score each by the validation RMSE of its best individual (readout on L). The
    lowest RMSE wins that repetition's vote; every RMSE adds to its strategy's sum. The strategy
    with the most votes wins; ties go to the smaller RMSE sum.

    Parameters
    ----------
    X, y : training data
    n_repeats : int, default=125 (the paper's)
    estimator : DEELMClassifier or DEELMRegressor, default DEELMClassifier()
        Supplies every DE-ELM setting except ``strategy``; not modified.
    strategies : candidates, default the paper's three
    random_state : int, Generator or None; None falls back to ``estimator.random_state``.
        Repetition i draws from its own Generator (spawned from this one), so results do not
        depend on ``batch_size`` or on the thread count.
    batch_size : int, default=25
        Repetitions evolved together (all their individuals are one parallel kernel call).

    Returns
    -------
    StrategySelection
    """
    est = clone(DEELMClassifier() if estimator is None else estimator)
    if not isinstance(est, _DEELM):
        raise TypeError(f"estimator must be a DEELMClassifier or DEELMRegressor, got {est!r}")
    strategies = tuple(strategies)
    est._check_params(strategies)
    X, T = est._validate_Xy(X, y, np.float64, reset=True)
    if len(T) < 2:
        raise ValueError("select_strategy needs at least 2 samples")
    rng = check_generator(est.random_state if random_state is None else random_state)
    seeds = np.random.SeedSequence(rng.integers(0, 2**63, size=4)).spawn(n_repeats)
    nh, d = int(est.n_hidden), X.shape[1]
    X = X * check_weight_scale(est.weight_scale, d)  # the DE's cube, as in fit
    codes = [STRATEGIES[s] for s in strategies]
    options = est._evolve_options()
    rmse = np.empty((n_repeats, len(strategies)))
    for start in range(0, n_repeats, batch_size):
        rngs = [np.random.default_rng(s) for s in seeds[start:start + batch_size]]
        splits = [est._train_validation_rows(g, T) for g in rngs]
        pop0 = np.stack([g.uniform(*BOUNDS, size=(int(est.pop_size), (d + 1) * nh))
                         for g in rngs])
        result = evolve(prepare_splits(X, T, splits), pop0, rngs, codes, **options)
        rmse[start:start + len(rngs)] = result.rmse.min(axis=1).reshape(len(rngs), -1)
    return tally(rmse, strategies)
