"""Benchmark cases of fastelm's hot kernels, shared by the asv suite (``benchmarks/bench_*.py``)
and the pytest-benchmark tests (``tests/test_bench_kernels.py``).

Each builder draws seeded inputs for one kernel at the size it is given, wraps the call in a
:class:`Case` and calls it once, so Numba has compiled the kernel (or loaded it from its disk
cache) before anything is timed. ``case.run()`` is the call to time; ``case.check(result)``
asserts that a result of ``run`` is right (shape, finite, equal to a plain-numpy reference or a
property of the exact answer). The checks can cost more than the kernel at asv's sizes: the
tests call them on their small sizes, the asv benchmarks do not call them.

Kernels: the hidden layer g(XW + b) (``fastelm._kernels.hidden``), the ridge readout
(``fastelm._ridge``), the recursive ridge update (``fastelm._recursive_ridge``), EFAST over
hidden nodes (``fastelm.global_sensitivity``, ``fastelm._kernels.efast``), one DE generation
(``fastelm.de_elm``, ``fastelm._kernels.de``), the BLS sparse-autoencoder ADMM and the
tansig enhancement map (``fastelm.bls``, ``fastelm._kernels.bls``), and the cross-validated
ELM fit over a grid of penalties and nested hidden sizes next to the single fit
(``fastelm.model_selection``).

Nothing here is named ``time_*``/``track_*``, so asv's discovery finds no benchmark in it.
"""
import inspect
import sys
from pathlib import Path
from unittest import mock

import numpy as np
from scipy.special import expit

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install: benchmark this work tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm._hidden import check_activation, hidden_layer, random_weights  # noqa: E402
from fastelm._kernels import de as _de  # noqa: E402
from fastelm._kernels.bls import tansig_shrink  # noqa: E402
from fastelm._kernels.hidden import add_bias_activate  # noqa: E402
from fastelm._ridge import ridge_fit  # noqa: E402
from fastelm._recursive_ridge import RecursiveRidge  # noqa: E402
from fastelm.bls import BIAS, draw_enhancement_weights, sparse_autoencoder  # noqa: E402
from fastelm.de_elm import evolve, prepare_splits, scaling_factor, split_indices  # noqa: E402
from fastelm.global_sensitivity import (efast_analyze, efast_sample,  # noqa: E402
                                        hidden_node_sensitivity)

ALPHA = 1e-3

# g(x) in plain numpy, float64: the references of the hidden-layer kernel
ACTIVATION_REFERENCE = dict(tanh=np.tanh, sigmoid=expit, sine=np.sin, linear=np.positive,
                            relu=lambda x: np.maximum(x, 0.0))


class Case:
    """One benchmark case: ``run()`` (timed), ``check(result)`` (asserts), and its inputs as
    attributes. Building it calls ``run`` once (compiles or loads the kernels)."""

    def __init__(self, run, check, **inputs):
        self.run = run
        self._check = check
        self.__dict__.update(inputs)
        self.warm_result = run()

    def check(self, result):
        self._check(result)
        return result


def _tolerance(dtype):
    return 1e-10 if np.dtype(dtype) == np.float64 else 2e-5


# --------------------------------------------------------------------------- hidden layer


def _hidden_inputs(n, d, L, dtype, seed=0):
    kind = np.dtype(dtype).type
    X = np.random.default_rng(seed).standard_normal((n, d)).astype(kind)
    W, b = random_weights(np.random.default_rng(seed + 1), d, L, kind)
    return X, W, b


def hidden_layer_case(n=20000, d=32, L=1000, activation="tanh", dtype="float64"):
    """H = g(XW + b): the BLAS product, then the fused bias + activation kernel."""
    X, W, b = _hidden_inputs(n, d, L, dtype)
    code = check_activation(activation)

    def check(H):
        assert H.shape == (n, L) and H.dtype == np.dtype(dtype)
        want = ACTIVATION_REFERENCE[activation](X.astype(np.float64) @ W + b)
        np.testing.assert_allclose(H, want, rtol=_tolerance(dtype), atol=_tolerance(dtype))

    return Case(lambda: hidden_layer(X, W, b, code), check, X=X, W=W, b=b, code=code)


def bias_activation_case(n=20000, d=32, L=1000, activation="tanh", dtype="float64"):
    """The kernel alone: H <- g(H + b) in place on a precomputed H = XW (repeated calls keep
    applying g, so values stay finite and, for tanh and sigmoid, in [-1, 1])."""
    X, W, b = _hidden_inputs(n, d, L, dtype)
    XW = X @ W
    code = check_activation(activation)

    def check(H):
        assert H is XW and np.all(np.isfinite(H))
        if activation in ("tanh", "sigmoid"):
            assert np.abs(H).max() <= 1.0

    return Case(lambda: add_bias_activate(XW, b, code), check, XW=XW, b=b, code=code)


# --------------------------------------------------------------------------- ridge readout


def ridge_case(n=20000, L=1000, m=10, dtype="float64"):
    """ridge_fit(H, T, alpha): primal (Gram + Cholesky) when n >= L, else dual (kernel)."""
    rng = np.random.default_rng(0)
    H = np.tanh(rng.standard_normal((n, L))).astype(dtype)
    T = rng.standard_normal((n, m)).astype(dtype)

    def check(beta):
        """Both forms solve the normal equations (HᵀH + alpha I) beta = HᵀT."""
        assert beta.shape == (L, m) and beta.dtype == np.dtype(dtype)
        H64, b64 = H.astype(np.float64), beta.astype(np.float64)
        rhs = H64.T @ T
        residual = H64.T @ (H64 @ b64) + ALPHA * b64 - rhs
        scale = np.abs(H64.T @ (H64 @ b64)).max() + np.abs(rhs).max()
        assert np.abs(residual).max() <= (1e-9 if dtype == "float64" else 1e-3) * scale

    return Case(lambda: ridge_fit(H, T, ALPHA), check, H=H, T=T)


# --------------------------------------------------------------------------- recursive ridge


def rls_case(form=None, chunk=100, L=1000, m=3):
    """One RecursiveRidge.update of a ``chunk``-row chunk in ``form`` (None: chosen by flop
    count) and the read of its beta, on a state primed with L + 100 rows (so both forms are
    exact). The same chunk is absorbed at every call; the warm-up call builds P for the Woodbury
    form."""
    rng = np.random.default_rng(0)
    H0 = np.tanh(rng.standard_normal((L + 100, L)))
    T0 = rng.standard_normal((L + 100, m))
    rls = RecursiveRidge(L, m, ALPHA)
    rls.update(H0, T0, form="information")
    H = np.tanh(rng.standard_normal((chunk, L)))
    T = rng.standard_normal((chunk, m))

    def check(used):
        """beta is the ridge fit on the primed rows plus k copies of the chunk."""
        assert used == (form or used) and used in ("woodbury", "information")
        k = (rls.n_seen - len(H0)) // chunk
        K = H0.T @ H0 + k * (H.T @ H) + ALPHA * np.eye(L)
        want = np.linalg.solve(K, H0.T @ T0 + k * (H.T @ T))
        np.testing.assert_allclose(rls.beta, want, rtol=0, atol=1e-7 * np.abs(want).max())

    def run():
        """The update and its readout: the information form solves only when beta is read,
        the Woodbury form at every update, so both are timed up to an up-to-date beta."""
        used = rls.update(H, T, form=form)
        rls.beta
        return used

    return Case(run, check, rls=rls, H=H, T=T)


# --------------------------------------------------------------------------- EFAST


def efast_case(L=300, N=129, m=1, M=4):
    """EFAST first-order and total indices of L hidden nodes for a linear readout (FOS-ELM's
    pruning step), N points per node; node ranges and readout as a fitted OS-ELM gives them."""
    rng = np.random.default_rng(0)
    beta = rng.standard_normal((L, m))
    lower = rng.uniform(-1.0, 0.0, L)
    upper = lower + rng.uniform(0.05, 2.0, L)
    phases = 2.0 * np.pi * rng.random(L)

    def check(result):
        """Equal to the general sampler + analyser on the materialised (L·N, L) sample."""
        S1, ST = result
        assert S1.shape == ST.shape == (L,)
        assert np.all(np.isfinite(ST)) and np.all(S1 >= 0) and np.all(S1 <= ST + 1e-12)
        problem = {"num_vars": L, "bounds": np.c_[lower, upper].tolist()}
        want = efast_analyze(problem, efast_sample(problem, N, M, phases=phases) @ beta, M)
        np.testing.assert_allclose(S1, want["S1"], rtol=1e-7, atol=1e-10)
        np.testing.assert_allclose(ST, want["ST"], rtol=1e-7, atol=1e-10)

    return Case(lambda: hidden_node_sensitivity(beta, lower, upper, N=N, M=M, phases=phases),
                check, beta=beta, lower=lower, upper=upper)


# --------------------------------------------------------------------------- DE generation


def wdbc():
    """Wisconsin diagnostic breast cancer (569×30, shipped with scikit-learn), standardised."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    return (X - X.mean(axis=0)) / X.std(axis=0), y


def de_generation_case(n_groups=1, n_strategies=1, n_hidden=30, pop_size=20, X=None, y=None):
    """One DE-ELM generation (``fastelm._kernels.de.generation``: mutation, crossover, fitness
    of every trial, selection) with the arguments ``fastelm.de_elm.evolve`` passes it.

    ``n_groups`` splits × ``n_strategies`` strategies advance together: (1, 1) is one DE-ELM
    fit, (5, 3) one batch of a 5-repetition strategy selection. Data: Wdbc unless X, y given;
    each group's split halves it (stratified). The arguments are captured from a one-generation
    ``evolve``; the generation only reads the population it breeds from, so every call recomputes
    the same survivors.
    """
    if X is None:
        X, y = wdbc()
    T = np.eye(int(y.max()) + 1)[y]
    rng = np.random.default_rng(0)
    splits = [split_indices(rng, len(y), 0.5, labels=y) for _ in range(n_groups)]
    pop0 = rng.uniform(-1.0, 1.0, size=(n_groups, pop_size, (X.shape[1] + 1) * n_hidden))
    rngs = [np.random.default_rng(s) for s in rng.integers(2 ** 63, size=n_groups)]
    kernel, calls = _de.generation, []
    with mock.patch.object(_de, "generation", lambda *a: calls.append(a) or kernel(*a)):
        evolve(prepare_splits(X, T, splits), pop0, rngs, [_de.RAND1, _de.BEST1, _de.BEST2][
            :n_strategies], n_hidden=n_hidden, code=check_activation("tanh"), alpha=ALPHA,
            n_generations=1, crossover=0.8, f_values=[scaling_factor(0, 20)], rule=_de.PAPER,
            eps=0.02, elitism=True)
    args = calls[0]
    a = inspect.signature(kernel).bind(*args).arguments

    def check(_):
        """Survivors: the target itself, or a trial the paper's rule accepts; elites never
        get worse; every survivor has a finite RMSE."""
        pop, new_pop = a["pop"], a["new_pop"]
        kept = np.all(new_pop == pop, axis=1)
        np.testing.assert_array_equal(a["new_rmse"][kept], a["rmse"][kept])
        better = (a["new_norm"] < a["norm"]) | (a["new_rmse"] < a["rmse"])
        assert np.all(kept | better) and np.all(np.isfinite(a["new_rmse"]))
        assert np.all(a["new_rmse"][a["protect"]] <= a["rmse"][a["protect"]])
        assert np.all((new_pop >= -1.0) & (new_pop <= 1.0))

    def run():
        kernel(*args)
        return a["new_pop"]

    return Case(run, check, args=a)


# --------------------------------------------------------------------------- BLS


def _admm_reference(A, AtB, lam, n_iter=50):
    """The ADMM steps of the reference ``sparse_bls``, all columns at once, in numpy."""
    L1 = np.linalg.inv(A.T @ A + np.eye(A.shape[1]))
    L2 = L1 @ AtB
    o = u = np.zeros_like(L2)
    for _ in range(n_iter):
        c = L2 + L1 @ (o - u)
        o = np.maximum(c + u - lam, 0.0) - np.maximum(-(c + u) - lam, 0.0)
        u = u + c - o
    return o


def sparse_autoencoder_case(n_rows=1000, n_features=435, k=10, lam=1e-3):
    """One BLS feature window's sparse autoencoder: W_D = argmin ||A W − H1||² + lam ||W||₁ by
    50 ADMM steps, A (n_rows × k) the window's mapped features in [-1, 1], H1 = [X, 0.1]."""
    rng = np.random.default_rng(0)
    X = rng.uniform(0.0, 1.0, size=(n_rows, n_features))
    A = rng.uniform(-1.0, 1.0, size=(n_rows, k))
    AtB = np.hstack([A.T @ X, BIAS * A.sum(axis=0)[:, None]])

    def check(W):
        assert W.shape == (k, n_features + 1) and np.all(np.isfinite(W))
        np.testing.assert_allclose(W, _admm_reference(A, AtB, lam), rtol=1e-9, atol=1e-12)

    return Case(lambda: sparse_autoencoder(A, AtB, lam), check, A=A, AtB=AtB)


def enhancement_case(n_rows=5000, n_mapped=100, n_enhancement=2000, dtype="float64",
                     kernel_only=False):
    """BLS enhancement nodes E = tansig(l·(Z Wh + 0.1·Wh[-1])) for feature nodes Z (n_rows ×
    n_mapped, in [0, 1]), Wh orthonormal, l = 0.8 / max: the product into a reused buffer, then
    the tansig kernel in place (as ``BLSClassifier`` builds each block of its broad layer).
    ``kernel_only``: the tansig kernel alone, applied again to the buffer at every call."""
    rng = np.random.default_rng(0)
    Z = rng.uniform(0.0, 1.0, size=(n_rows, n_mapped)).astype(dtype)
    Wh = draw_enhancement_weights(rng, n_mapped + 1, n_enhancement, np.dtype(dtype))
    bias = (BIAS * Wh[-1]).astype(dtype)
    top = (Z @ Wh[:-1] + bias).max()
    shrink = 0.8 / top
    out = np.empty((n_rows, n_enhancement), dtype=dtype)

    def enhance():
        np.matmul(Z, Wh[:-1], out=out)
        return tansig_shrink(out, 0, bias, shrink)

    def check(E):
        assert E is out and E.dtype == np.dtype(dtype) and np.abs(E).max() <= 1.0
        if not kernel_only:
            want = np.tanh(shrink * (Z.astype(np.float64) @ Wh[:-1] + bias))
            np.testing.assert_allclose(E, want, rtol=0, atol=10 * _tolerance(dtype))

    if kernel_only:
        enhance()
        return Case(lambda: tansig_shrink(out, 0, bias, shrink), check, out=out)
    return Case(enhance, check, Z=Z, Wh=Wh, out=out)


# --------------------------------------------------------------------------- model selection


def selection_data(n, d, n_classes, seed=0):
    """make_classification, standardised: the task of the cross-validation benchmark."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                               n_redundant=d // 4, n_classes=n_classes, n_clusters_per_class=1,
                               random_state=seed)
    return np.ascontiguousarray((X - X.mean(axis=0)) / X.std(axis=0)), y


def selection_grid(L, n_alphas, n_sizes):
    """n_alphas penalties 1e-6 … 1e3 (log-spaced) and n_sizes nested sizes L/n_sizes … L."""
    alphas = list(np.logspace(-6, 3, n_alphas))
    sizes = [L * (i + 1) // n_sizes for i in range(n_sizes)]
    return alphas, sizes


def model_selection_case(n=40000, d=64, L=1000, n_classes=10, n_alphas=10, n_sizes=8,
                         n_folds=5, single=False):
    """``ELMClassifierCV.fit`` over n_alphas penalties × n_sizes nested sizes × n_folds folds
    (tanh, float64, mean squared error of the targets); with ``single`` the one
    ``ELMClassifier.fit`` on all rows at n_hidden = L that it is compared with."""
    from fastelm import ELMClassifier, ELMClassifierCV

    X, y = selection_data(n, d, n_classes)
    alphas, sizes = selection_grid(L, n_alphas, n_sizes)
    if single:
        model = ELMClassifier(n_hidden=L, alpha=ALPHA, random_state=0)
    else:
        model = ELMClassifierCV(n_hidden=L, alphas=alphas, hidden_sizes=sizes, cv=n_folds,
                                random_state=0)

    def check(fitted):
        """The refit is the base estimator at the chosen point; every grid point scored."""
        if single:
            assert fitted.beta_.shape == (L, n_classes)
            return
        assert len(fitted.cv_results_["params"]) == n_alphas * n_sizes
        assert np.isfinite(fitted.cv_results_["mean_test_score"]).all()
        base = ELMClassifier(n_hidden=fitted.n_hidden_, alpha=fitted.alpha_,
                             random_state=0).fit(X, y)
        np.testing.assert_allclose(fitted.beta_, base.beta_, rtol=1e-7, atol=1e-9)

    return Case(lambda: model.fit(X, y), check, X=X, y=y, model=model, alphas=alphas,
                sizes=sizes)
