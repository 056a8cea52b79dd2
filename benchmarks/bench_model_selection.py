"""Cross-validated ELM fit (``ELMClassifierCV``) against one ``ELMClassifier.fit`` on all rows
and against ``GridSearchCV`` over the same grid and folds, in one process.

    python benchmarks/bench_model_selection.py                 # the issue's size, 1 and 2 threads
    python benchmarks/bench_model_selection.py --n 8000 --L 300 --repeats 2   # a quick look
    python benchmarks/bench_model_selection.py --wide          # connectome-wide inputs, dual form

Size: N = 40000 rows, d = 64, L = 1000 tanh nodes, 10 classes, float64; grid: 10 penalties
1e-6 … 1e3 × 8 nested sizes 125 … 1000 × 5 folds, mean squared error of the one-hot targets
(``GridSearchCV`` gets the same score as a callable scorer). The CV fit and the single fit are
timed ``--repeats`` times each (minimum of wall time and of process CPU time); GridSearchCV
(400 fits) once. Threads: BLAS through threadpoolctl, Numba through ``numba.set_num_threads``.
The asv class below times the two fits at the same size.

``--wide``: ELMClassifierCV(direct_links=True) on N = 800 rows × d = 19900 features (the
connectivity features of 200 ROIs), L = 1000 nodes, 10 penalties × 8 nested sizes × 10
stratified folds: readout width p = d + k > the 720 training rows of every fold, so every point
takes the dual form (one 800×800 kernel per size, never a p×p matrix). Prints the fit's CPU and
wall time, the peak of the arrays it allocates (tracemalloc; numpy reports its buffers) and the
process's peak resident memory (data included).
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

try:
    from . import _cases
except ImportError:  # run as a script
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from benchmarks import _cases


class TimeModelSelection:
    """ELMClassifierCV.fit (10 penalties × 8 nested sizes × 5 folds) next to the single fit
    (``TimeModelSelectionSingle``)."""

    timeout = 600
    number, repeat = 1, 3

    def setup(self):
        self.cv = _cases.model_selection_case()

    def time_cv_fit(self):
        self.cv.run()


class TimeModelSelectionSingle:
    """The one ELMClassifier.fit on all rows at the largest size that the CV fit is compared
    with (its own class: building the CV case would run the CV fit once in every setup)."""

    timeout = 300
    number, repeat = 1, 3

    def setup(self):
        self.single = _cases.model_selection_case(single=True)

    def time_single_fit(self):
        self.single.run()


class TimeModelSelectionWide:
    """ELMClassifierCV(direct_links=True) on wide inputs, all in the dual form: N = 400 rows ×
    d = 5000 features, L = 400, 10 penalties × 4 nested sizes × 5 folds."""

    timeout = 600
    number, repeat = 1, 3

    def setup(self):
        from fastelm import ELMClassifierCV

        self.X, self.y = wide_data(400, 5000)
        self.model = ELMClassifierCV(n_hidden=400, alphas=list(10.0 ** np.arange(0, 10)),
                                     hidden_sizes=[100, 200, 300, 400], direct_links=True,
                                     cv=5, random_state=0)

    def time_cv_fit_wide(self):
        self.model.fit(self.X, self.y)

    def peakmem_cv_fit_wide(self):
        self.model.fit(self.X, self.y)


def _timed(run, repeats):
    """(min wall, min CPU) seconds over ``repeats`` calls of ``run``."""
    walls, cpus = [], []
    for _ in range(repeats):
        w, c = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return min(walls), min(cpus)


def neg_mse_of_targets(estimator, X, y):
    """ELMClassifierCV's default score: −mean squared error of the one-hot readout targets."""
    from fastelm._targets import one_hot
    return -np.mean((estimator._scores(X) - one_hot(y, estimator.classes_, np.float64)) ** 2)


def wide_data(n=800, d=19900, seed=0):
    """(X, y): features correlated through 20 latent factors (as connectivity features are),
    plus as much independent noise; two classes from the first factor plus noise."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((n, 20))
    X = Z @ rng.standard_normal((20, d)) / np.sqrt(20) + rng.standard_normal((n, d))
    y = (Z[:, 0] + 0.5 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def wide(n=800, d=19900, L=1000, threads=(1,)):
    """Time and memory of ELMClassifierCV(direct_links=True) on wide inputs (``--wide``)."""
    import resource
    import tracemalloc

    import numba
    from threadpoolctl import threadpool_limits

    from fastelm import ELMClassifier, ELMClassifierCV

    X, y = wide_data(n, d)
    sizes = [L * (i + 1) // 8 for i in range(8)]
    alphas = list(10.0 ** np.arange(0, 10))
    for t in threads:
        with threadpool_limits(t):
            numba.set_num_threads(t)
            model = ELMClassifierCV(n_hidden=L, alphas=alphas, hidden_sizes=sizes,
                                    direct_links=True, cv=10, random_state=0)
            model.fit(X[:100, :50], y[:100])  # compile outside the measurement
            tracemalloc.start()
            w, c = time.perf_counter(), time.process_time()
            model.fit(X, y)
            wall, cpu = time.perf_counter() - w, time.process_time() - c
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            one = ELMClassifier(n_hidden=L, alpha=model.alpha_, direct_links=True,
                                random_state=0)
            t_one = _timed(lambda: one.fit(X, y), 1)
            print(f"threads={t}: N={n} d={d} L={L}, {len(alphas)} alphas x {len(sizes)} sizes x "
                  f"10 folds, direct_links: CV fit {wall:.1f} s wall / {cpu:.1f} s CPU; arrays "
                  f"allocated by the fit peak {peak / 2**20:.0f} MiB (X itself "
                  f"{X.nbytes / 2**20:.0f} MiB; one p x p array would be "
                  f"{(d + L) ** 2 * 8 / 2**30:.1f} GiB); process peak RSS {rss:.0f} MiB; one "
                  f"ELMClassifier(n_hidden={L}, direct_links=True).fit {t_one[0]:.1f} s wall / "
                  f"{t_one[1]:.1f} s CPU; chose "
                  f"alpha={model.alpha_:g}, n_hidden={model.n_hidden_}, best score (minus the "
                  f"MSE of the targets) {model.best_score_:.4f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=40000)
    parser.add_argument("--d", type=int, default=64)
    parser.add_argument("--L", type=int, default=1000)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--no-grid-search", action="store_true",
                        help="skip GridSearchCV (the slow part: 400 fits)")
    parser.add_argument("--wide", action="store_true",
                        help="N=800 x d=19900 with direct links instead (dual form)")
    args = parser.parse_args(argv)
    if args.wide:
        return wide(threads=args.threads)

    import numba
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from threadpoolctl import threadpool_limits

    from fastelm import ELMClassifier

    cv_case = _cases.model_selection_case(args.n, args.d, args.L, args.classes)
    single = _cases.model_selection_case(args.n, args.d, args.L, args.classes, single=True)
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if line.startswith("model name")), "unknown CPU") if os.path.exists(
                    "/proc/cpuinfo") else "unknown CPU"
    print(f"{cpu}; N={args.n} d={args.d} L={args.L} classes={args.classes}; "
          f"{len(cv_case.alphas)} alphas x {len(cv_case.sizes)} sizes x 5 folds")
    for threads in args.threads:
        with threadpool_limits(threads):
            numba.set_num_threads(threads)
            cv_case.run(), single.run()  # warm
            t_cv = _timed(cv_case.run, args.repeats)
            t_one = _timed(single.run, args.repeats)
            line = (f"threads={threads}: CV fit {t_cv[0]:.2f} s wall / {t_cv[1]:.2f} s CPU; "
                    f"one fit {t_one[0]:.2f} / {t_one[1]:.2f}; CV / one fit "
                    f"{t_cv[0] / t_one[0]:.2f}x wall, {t_cv[1] / t_one[1]:.2f}x CPU")
            if not args.no_grid_search:
                search = GridSearchCV(
                    ELMClassifier(random_state=0),
                    {"alpha": cv_case.alphas, "n_hidden": cv_case.sizes},
                    cv=StratifiedKFold(5), scoring=neg_mse_of_targets, refit=False)
                t_grid = _timed(lambda: search.fit(cv_case.X, cv_case.y), 1)
                ours = cv_case.model.cv_results_["mean_test_score"]
                same = np.allclose(ours, search.cv_results_["mean_test_score"], rtol=1e-8)
                line += (f"; GridSearchCV {t_grid[0]:.1f} s wall / {t_grid[1]:.1f} s CPU = "
                         f"{t_grid[0] / t_cv[0]:.0f}x wall, {t_grid[1] / t_cv[1]:.0f}x CPU "
                         f"the CV fit (scores equal to 1e-8: {same})")
            print(line, flush=True)


if __name__ == "__main__":
    main()
