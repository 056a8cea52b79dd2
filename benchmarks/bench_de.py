"""DE-ELM: fastelm's differential evolution against scipy.optimize.differential_evolution, and
the cost of the paper's 125-repetition strategy selection.

The problem (Wdbc-sized): ``sklearn.datasets.load_breast_cancer`` (569×30), standardised,
one-hot targets, split at random into halves L (readout) and V (fitness). An individual is an
ELM hidden layer of 30 tanh nodes, theta = [W.ravel(), b] in [-1, 1]^930; its fitness is the RMSE
on V of the network whose ridge readout (alpha = 1e-3) is fitted on L.

1. One DE run: NP = 20, 20 generations, rand/1/bin, F = 0.5, CR = 0.8, greedy selection, from the
   same fixed initial population, 420 fitness evaluations each.
   - fastelm: ``fastelm.de_elm.evolve`` (Numba, parallel over the individuals), selection
     'eelm' with eps = 0 and no elitism, i.e. the trial wins iff its RMSE is lower;
   - scipy: ``differential_evolution(fitness, strategy='rand1bin', init=<that population>,
     maxiter=20, mutation=0.5, recombination=0.8, tol=0, atol=0, polish=False,
     updating='deferred')`` on the same fitness written in numpy (BLAS products, np.tanh,
     np.linalg.solve); it accepts trials with RMSE <= the target's.
   Also timed: the estimator ``DEELMClassifier.fit`` (its own initial population, validation
   split and final readout) with the same settings.
2. ``select_strategy`` on Wdbc: 125 repetitions × {rand/1, best/1, best/2}, paper defaults
   (NP 20, 20 generations, CR 0.8, nonlinear F 0.6 → 0.2, 30 nodes).

Run as a script (kernels are warmed first; medians of --repeat runs; no pass/fail)::

    python benchmarks/bench_de.py [--repeat 7] [--selection-repeat 3] [--n-repeats 125]

On a machine shared with other busy processes, GNU OpenMP's spinning worker threads (numba's
'omp' threading layer) can make the parallel runs slower than one thread; the 1-thread line and
``OMP_WAIT_POLICY=PASSIVE`` show how much.
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install: benchmark this work tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm._hidden import ACTIVATIONS  # noqa: E402
from fastelm._kernels import de  # noqa: E402
from fastelm.de_elm import (DEELMClassifier, evolve, prepare_splits,  # noqa: E402
                            select_strategy)

N_HIDDEN, POP_SIZE, N_GENERATIONS, CR, F, ALPHA, SEED = 30, 20, 20, 0.8, 0.5, 1e-3, 12345


def wdbc():
    from sklearn.datasets import load_breast_cancer
    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def problem(seed=SEED):
    """Standardised Wdbc, one-hot T, halves L / V, and a fixed initial population."""
    X, y = wdbc()
    T = np.eye(2)[y]
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    train, val = np.sort(perm[: len(X) // 2]), np.sort(perm[len(X) // 2:])
    pop0 = rng.uniform(-1.0, 1.0, size=(POP_SIZE, (X.shape[1] + 1) * N_HIDDEN))
    return X, y, T, train, val, pop0


def numpy_fitness(XL, TL, XV, TV, n_hidden=N_HIDDEN, alpha=ALPHA):
    """The same fitness as the kernel's, in numpy: RMSE on V of the ridge readout fitted on L."""
    d = XL.shape[1]
    eye = alpha * np.eye(n_hidden)

    def fitness(theta):
        W, b = theta[:d * n_hidden].reshape(d, n_hidden), theta[d * n_hidden:]
        H = np.tanh(XL @ W + b)
        beta = np.linalg.solve(H.T @ H + eye, H.T @ TL)
        E = np.tanh(XV @ W + b) @ beta - TV
        return float(np.sqrt(np.mean(E * E)))
    return fitness


def run_fastelm(X, T, train, val, pop0, seed):
    result = evolve(prepare_splits(X, T, [(train, val)]), pop0[None], [np.random.default_rng(seed)],
                    [de.RAND1], n_hidden=N_HIDDEN, code=ACTIVATIONS["tanh"], alpha=ALPHA,
                    n_generations=N_GENERATIONS, crossover=CR, f_values=[F] * N_GENERATIONS,
                    rule=de.EELM, eps=0.0, elitism=False)
    return result.rmse.min()


def run_estimator(X, y, train, val, seed):
    model = DEELMClassifier(n_hidden=N_HIDDEN, alpha=ALPHA, strategy="rand/1", pop_size=POP_SIZE,
                            n_generations=N_GENERATIONS, crossover=CR, f_schedule="constant",
                            f_constant=F, selection="eelm", eelm_tol=0.0, elitism=False,
                            random_state=seed)
    return model.fit(X[train], y[train], X_val=X[val], y_val=y[val]).validation_rmse_


def run_scipy(fitness, pop0, seed):
    from scipy.optimize import differential_evolution
    res = differential_evolution(fitness, [(-1.0, 1.0)] * pop0.shape[1], strategy="rand1bin",
                                 maxiter=N_GENERATIONS, popsize=POP_SIZE, init=pop0,
                                 mutation=F, recombination=CR, rng=seed, polish=False, tol=0,
                                 atol=0, updating="deferred")
    return res.fun, res.nfev


def median_time(fn, repeat, cpu=None):
    """Median wall time of ``repeat`` calls and the last result; appends the median process
    CPU time (all threads) to ``cpu`` if given — on a loaded machine, CPU / threads is what the
    wall time would be on idle cores."""
    times, cpus, out = [], [], None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    if cpu is not None:
        cpu.append(float(np.median(cpus)))
    return float(np.median(times)), out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=7, help="runs per DE timing (median)")
    ap.add_argument("--selection-repeat", type=int, default=3,
                    help="runs of the strategy selection (median)")
    ap.add_argument("--n-repeats", type=int, default=125, help="repetitions of the selection")
    args = ap.parse_args(argv)

    import numba
    X, y, T, train, val, pop0 = problem()
    fitness = numpy_fitness(X[train], T[train], X[val], T[val])
    run_fastelm(X, T, train, val, pop0, 0)  # warm: compile or load the cached kernels
    run_estimator(X, y, train, val, 0)
    print(f"numba threads: {numba.get_num_threads()}  data: Wdbc {X.shape}, |L| = {len(train)},"
          f" |V| = {len(val)}, {N_HIDDEN} tanh nodes, NP {POP_SIZE}, {N_GENERATIONS} generations")

    threads, cpu = numba.get_num_threads(), []
    t_fast, best_fast = median_time(lambda: run_fastelm(X, T, train, val, pop0, 1), args.repeat,
                                    cpu)
    t_est, best_est = median_time(lambda: run_estimator(X, y, train, val, 1), args.repeat, cpu)
    numba.set_num_threads(1)
    t_one, _ = median_time(lambda: run_fastelm(X, T, train, val, pop0, 1), args.repeat, cpu)
    numba.set_num_threads(threads)
    t_sp, (best_sp, nfev) = median_time(lambda: run_scipy(fitness, pop0, 1), args.repeat, cpu)
    c_fast, c_est, c_one, c_sp = cpu
    print(f"one DE run (median of {args.repeat}; wall / process CPU):")
    print(f"  fastelm evolve           {t_fast * 1e3:7.1f} / {c_fast * 1e3:7.1f} ms   "
          f"best V-RMSE {best_fast:.4f}")
    print(f"  fastelm DEELM.fit        {t_est * 1e3:7.1f} / {c_est * 1e3:7.1f} ms   "
          f"best V-RMSE {best_est:.4f}")
    print(f"  fastelm evolve, 1 thread {t_one * 1e3:7.1f} / {c_one * 1e3:7.1f} ms")
    print(f"  scipy DE (numpy)         {t_sp * 1e3:7.1f} / {c_sp * 1e3:7.1f} ms   "
          f"best V-RMSE {best_sp:.4f}   ({nfev} evaluations)")
    print(f"  wall ratio scipy / evolve   {t_sp / t_fast:6.2f}x  ({threads} threads)")
    print(f"  wall ratio scipy / fit      {t_sp / t_est:6.2f}x  ({threads} threads)")
    print(f"  wall ratio scipy / evolve   {t_sp / t_one:6.2f}x  (1 thread)")
    print(f"  CPU ratio scipy / evolve    {c_sp / c_one:6.2f}x  (1 thread)")

    cpu = []
    t_sel, sel = median_time(
        lambda: select_strategy(X, y, n_repeats=args.n_repeats, random_state=0,
                                estimator=DEELMClassifier(n_hidden=N_HIDDEN)),
        args.selection_repeat, cpu)
    evaluations = args.n_repeats * POP_SIZE * (1 + 3 * N_GENERATIONS)
    print(f"strategy selection, {args.n_repeats} repetitions x 3 strategies "
          f"({evaluations} fitness evaluations), median of {args.selection_repeat}:")
    print(f"  {t_sel:.2f} s wall, {cpu[0]:.2f} s CPU ({t_sel / evaluations * 1e6:.0f} us wall, "
          f"{cpu[0] / evaluations * 1e6:.0f} us CPU per evaluation)   winner "
          f"{sel.strategy}, votes {dict(zip(sel.strategies, sel.votes.tolist()))}, RMSE sums "
          f"{dict(zip(sel.strategies, np.round(sel.rmse_sums, 3).tolist()))}")
    print(f"  one scipy-DE evaluation for comparison: {t_sp / nfev * 1e6:.0f} us wall, "
          f"{c_sp / nfev * 1e6:.0f} us CPU")


if __name__ == "__main__":
    main()
