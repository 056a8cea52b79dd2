"""GCV and exact leave-one-out scores of a ridge readout (``fastelm._hat``): the eigendecomposition
forms against the tridiagonal and bordered ones that the CV estimators use, one thread.

    python benchmarks/bench_hat.py                   # n = 3000, P = 1000, d = 10 and 72
    python benchmarks/bench_hat.py --n 800 --L 500   # a LOO-sized case

Readout inputs A = [X | H]: X (n×d) standard normal, H = tanh(XW/√d + b) with L nodes, two
one-hot classes; the 23 data-scaled penalties of ``scaled_grid``. Rows printed, each the
minimum of ``--repeats`` process-CPU timings:

- GCV of one Gram matrix: ``numpy.linalg.eigh`` + ``gcv_scores`` against ``tridiagonal_gcv``;
- GCV of both link settings (A and H): two tridiagonalisations against
  ``bordered_gcv_sums_scores`` (one of HᵀH, the d columns by a Schur complement);
- exact LOO of both link settings from rows: two ``hat_spectrum`` + ``hat_scores`` against one
  ``hat_spectrum`` of H + ``bordered_hat_scores``;

with the largest relative difference of the scores. The asv classes time the default-size
cases.
"""
import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from fastelm._hat import (bordered_gcv_sums_scores, bordered_hat_scores, gcv_scores,
                          gcv_sums_scores, hat_scores, hat_spectrum, scaled_grid,
                          tridiagonal_gcv)


def readout_inputs(n, d, L, seed=0):
    """(A = [X | H], one-hot T, d) of the module docstring."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    H = np.tanh(X @ rng.normal(size=(d, L)) / np.sqrt(d) + rng.uniform(-1, 1, L))
    return np.hstack([X, H]), np.eye(2)[rng.integers(0, 2, n)], d


def cases(A, T, d):
    """(name, eigen form, fast form) of the three comparisons, each a callable → scores."""
    n = len(T)
    G, R, TtT = A.T @ A, A.T @ T, T.T @ T
    alphas = scaled_grid(np.trace(G), n, G.shape[0])

    def eigen_gcv():
        lam, V = np.linalg.eigh(G)
        C = V.T @ R
        return gcv_scores(lam, (C * C).sum(axis=1), float(np.trace(TtT)), n, T.shape[1], True,
                          alphas)

    def two_tridiagonal():
        return np.r_[gcv_sums_scores(G, R, TtT, n, alphas),
                     gcv_sums_scores(G[d:, d:], R[d:], TtT, n, alphas)]

    def two_eigen_loo():
        return np.r_[hat_scores(hat_spectrum(A, T, AtA=G), T, alphas, "loo"),
                     hat_scores(hat_spectrum(A[:, d:], T, AtA=G[d:, d:]), T, alphas, "loo")]

    return [
        ("GCV, one Gram", eigen_gcv,
         lambda: tridiagonal_gcv(G, R, float(np.trace(TtT)), n, True, alphas)),
        ("GCV, with and without links", two_tridiagonal,
         lambda: np.r_[bordered_gcv_sums_scores(G, R, TtT, n, alphas, d)]),
        ("LOO, with and without links", two_eigen_loo,
         lambda: np.r_[bordered_hat_scores(hat_spectrum(A[:, d:], T, AtA=G[d:, d:]), T,
                                           A[:, :d], alphas, "loo")]),
    ]


def _cpu(run, repeats):
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best


class TimeHatScores:
    """The fast forms at n = 3000, P = 1000 + 10 (one thread)."""

    def setup(self):
        self.cases = {name: fast for name, _, fast in cases(*readout_inputs(3000, 10, 1000))}
        self.limit = threadpool_limits(1)

    def teardown(self):
        self.limit.unregister()

    def time_gcv_one_gram(self):
        self.cases["GCV, one Gram"]()

    def time_gcv_both_link_settings(self):
        self.cases["GCV, with and without links"]()

    def time_loo_both_link_settings(self):
        self.cases["LOO, with and without links"]()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=3000)
    parser.add_argument("--L", type=int, default=1000)
    parser.add_argument("--d", type=int, nargs="+", default=[10, 72])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"n = {args.n}, L = {args.L}, 23 penalties, one thread; CPU s (min of "
          f"{args.repeats})\n")
    print("| d | scores | eigendecomposition form | fast form | ratio | max rel. difference |")
    print("|---:|---|---:|---:|---:|---:|")
    with threadpool_limits(1):
        for d in args.d:
            for name, slow, fast in cases(*readout_inputs(args.n, d, args.L)):
                a, b = slow(), fast()
                diff = float(np.nanmax(np.abs(a - b) / np.abs(a)))
                t_slow, t_fast = _cpu(slow, args.repeats), _cpu(fast, args.repeats)
                print(f"| {d} | {name} | {t_slow:.3f} | {t_fast:.3f} | {t_slow / t_fast:.1f} × "
                      f"| {diff:.1e} |")


if __name__ == "__main__":
    main()
