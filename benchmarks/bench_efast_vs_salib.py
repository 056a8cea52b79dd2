"""EFAST over the hidden nodes of a network: fastelm's kernel against SALib.

The problem: a linear readout y = z @ beta over L = 300 hidden nodes, node j uniform on
[lower_j, upper_j]; EFAST with N = 129 points per node and M = 4 (N > 4 M^2 = 64 holds).

- fastelm: ``hidden_node_sensitivity(beta, lower, upper, N, M, random_state=seed)``.
- SALib: ``fast_sampler.sample(problem, N, M, seed=seed)``, the readout ``X @ beta``, then
  ``fast.analyze(problem, Y, M)`` (its defaults: 100 bootstrap resamples for the confidence
  intervals) and, as a lower bound on SALib's cost, the same with only ``fast.compute_orders``
  per factor (no intervals).

With the same integer seed both use the same phases (SALib >= 1.6), so the indices agree to
rounding; the script checks that.

Run as a script (warm Numba, median of --repeat runs; prints the ratios)::

    python benchmarks/bench_efast_vs_salib.py [--nodes 300] [--N 129] [--repeat 7]

or through asv (class ``EFASTHiddenNodes``).
"""
import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install: benchmark this work tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm.global_sensitivity import hidden_node_sensitivity  # noqa: E402

L_NODES, N_POINTS, M_INTERFERENCE, SEED = 300, 129, 4, 12345


def make_readout(L, m=1, seed=0):
    rng = np.random.default_rng(seed)
    beta = rng.standard_normal((L, m))
    lower = rng.uniform(-1.0, 0.0, L)
    upper = lower + rng.uniform(0.05, 2.0, L)
    return beta, lower, upper


def salib_problem(lower, upper):
    return {"num_vars": len(lower), "names": [f"z{j}" for j in range(len(lower))],
            "bounds": np.c_[lower, upper].tolist()}


def run_fastelm(beta, lower, upper, N, M, seed):
    return hidden_node_sensitivity(beta, lower, upper, N=N, M=M, random_state=seed)


def run_salib(problem, beta, N, M, seed, intervals=True):
    from SALib.analyze import fast
    from SALib.sample import fast_sampler

    X = fast_sampler.sample(problem, N, M=M, seed=seed)
    Y = X @ beta[:, 0]
    if intervals:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Si = fast.analyze(problem, Y, M=M)
        return np.asarray(Si["S1"]), np.asarray(Si["ST"])
    omega0 = math.floor((N - 1) / (2 * M))
    out = [fast.compute_orders(Y[i * N:(i + 1) * N], N, M, omega0) for i in range(len(beta))]
    return np.array([o[0] for o in out]), np.array([o[1] for o in out])


class EFASTHiddenNodes:
    """asv: time of EFAST over 300 hidden nodes (N=129, M=4), fastelm and SALib."""

    timeout = 300

    def setup(self):
        self.beta, self.lower, self.upper = make_readout(L_NODES)
        self.problem = salib_problem(self.lower, self.upper)
        run_fastelm(self.beta, self.lower, self.upper, N_POINTS, M_INTERFERENCE, SEED)  # compile

    def time_fastelm(self):
        run_fastelm(self.beta, self.lower, self.upper, N_POINTS, M_INTERFERENCE, SEED)

    def time_salib(self):
        try:
            run_salib(self.problem, self.beta, N_POINTS, M_INTERFERENCE, SEED)
        except ImportError:
            raise NotImplementedError("SALib is not installed")


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", type=int, default=L_NODES)
    parser.add_argument("--N", type=int, default=N_POINTS)
    parser.add_argument("--M", type=int, default=M_INTERFERENCE)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--salib-repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if args.N <= 4 * args.M ** 2:
        parser.error(f"need N > 4*M**2 = {4 * args.M ** 2}")

    import numba

    beta, lower, upper = make_readout(args.nodes)
    problem = salib_problem(lower, upper)
    S1, ST = run_fastelm(beta, lower, upper, args.N, args.M, SEED)        # warm Numba
    S1_s, ST_s = run_salib(problem, beta, args.N, args.M, SEED)
    diff = max(np.abs(S1 - S1_s).max(), np.abs(ST - ST_s).max())

    t_fe = median_time(lambda: run_fastelm(beta, lower, upper, args.N, args.M, SEED),
                       args.repeat)
    t_sa = median_time(lambda: run_salib(problem, beta, args.N, args.M, SEED),
                       args.salib_repeat)
    t_sa0 = median_time(lambda: run_salib(problem, beta, args.N, args.M, SEED, intervals=False),
                        args.salib_repeat)

    print(f"EFAST over {args.nodes} hidden nodes, N={args.N}, M={args.M} "
          f"(numba threads: {numba.get_num_threads()})")
    print(f"  max |fastelm - SALib| over S1 and ST: {diff:.2e}")
    print(f"  fastelm hidden_node_sensitivity:             {1e3 * t_fe:10.2f} ms")
    print(f"  SALib sample + readout + analyze:            {1e3 * t_sa:10.2f} ms")
    print(f"  SALib sample + readout + compute_orders only:{1e3 * t_sa0:10.2f} ms")
    print(f"ratio SALib / fastelm: {t_sa / t_fe:.1f}x "
          f"(without SALib's bootstrap intervals: {t_sa0 / t_fe:.1f}x)")
    return t_sa / t_fe


if __name__ == "__main__":
    main()
