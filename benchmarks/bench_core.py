"""asv benchmarks of fastelm: estimators, the hidden-layer kernel, the ridge readout, the
recursive ridge update in both forms, OS-ELM streaming, and tracked accuracies.

Run from the repository root::

    asv machine --yes
    asv run --python=same --quick --show-stderr            # every benchmark once
    asv run --python=same --bench TimeRidgeFit             # one class, full repeats

Every ``setup`` warms numba (kernels are cached on disk, so a warm call only loads them) so that
no timing includes compilation. Data are synthetic and seeded.
"""
import sys
from pathlib import Path

import numpy as np

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install: benchmark this work tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm import ELMClassifier, ELMRegressor, OSELMClassifier, OSELMRegressor
from fastelm._hidden import check_activation, hidden_layer, random_weights

from . import _cases  # the kernel cases, shared with tests/test_bench_kernels.py

ROOT = str(Path(__file__).resolve().parents[1])


def regression_data(n, d=32, m=1, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = np.sin(X[:, :m] * 2.0) + 0.1 * X[:, m:m + 1] ** 2 + 0.05 * rng.standard_normal((n, m))
    return X.astype(dtype), (y[:, 0] if m == 1 else y).astype(dtype)


def classification_data(n, d=32, n_classes=5, seed=0):
    """make_classification, standardised; the same task for every accuracy track."""
    from sklearn.datasets import make_classification
    X, y = make_classification(n_samples=n, n_features=d, n_informative=d // 2,
                               n_redundant=d // 4, n_classes=n_classes, n_clusters_per_class=1,
                               class_sep=1.5, flip_y=0.01, random_state=seed)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return np.ascontiguousarray(X), y


def warm(dtype="float64"):
    """Compile (or load from cache) every kernel the estimators use."""
    X, y = regression_data(60, d=4)
    ELMRegressor(n_hidden=8, random_state=0, dtype=dtype).fit(X, y).predict(X)
    OSELMRegressor(n_hidden=8, random_state=0, dtype=dtype).partial_fit(X, y).predict(X)
    W, b = random_weights(np.random.default_rng(0), 4, 8, np.dtype(dtype).type)
    names = ("tanh", "sigmoid", "relu", "sine", "linear")
    for code in sorted(set(check_activation(a) for a in names)):
        hidden_layer(X.astype(dtype), W, b, code)


SIZES = [(2000, 200), (20000, 1000)]  # (n_samples, n_hidden): small, and Gram-dominated


class TimeELMFit:
    """ELMRegressor / ELMClassifier.fit: hidden layer + Gram + Cholesky, end to end."""

    params = (SIZES, ["float64", "float32"])
    param_names = ["(n_samples, n_hidden)", "dtype"]
    timeout = 300

    def setup(self, size, dtype):
        warm(dtype)
        n, _ = size
        self.X, self.y = regression_data(n)
        self.Xc, self.yc = classification_data(n)

    def time_fit_regressor(self, size, dtype):
        ELMRegressor(n_hidden=size[1], random_state=0, dtype=dtype).fit(self.X, self.y)

    def time_fit_classifier(self, size, dtype):
        ELMClassifier(n_hidden=size[1], random_state=0, dtype=dtype).fit(self.Xc, self.yc)

    def peakmem_fit_classifier(self, size, dtype):
        ELMClassifier(n_hidden=size[1], random_state=0, dtype=dtype).fit(self.Xc, self.yc)


class TimeELMPredict:
    """predict / decision_function / predict_proba of a fitted model on new rows."""

    params = (SIZES, ["float64", "float32"])
    param_names = ["(n_samples, n_hidden)", "dtype"]

    def setup(self, size, dtype):
        warm(dtype)
        n, L = size
        Xtr, ytr = classification_data(3000)
        self.X, _ = classification_data(n, seed=1)
        self.clf = ELMClassifier(n_hidden=L, random_state=0, dtype=dtype).fit(Xtr, ytr)
        Xr, yr = regression_data(3000)
        self.Xr, _ = regression_data(n, seed=1)
        self.reg = ELMRegressor(n_hidden=L, random_state=0, dtype=dtype).fit(Xr, yr)

    def time_predict_regressor(self, size, dtype):
        self.reg.predict(self.Xr)

    def time_predict_classifier(self, size, dtype):
        self.clf.predict(self.X)

    def time_predict_proba(self, size, dtype):
        self.clf.predict_proba(self.X)


class TimeHiddenLayer:
    """The kernel H = g(XW + b): BLAS product, then fused bias + activation in place."""

    params = (["tanh", "sigmoid", "relu"], ["float64", "float32"])
    param_names = ["activation", "dtype"]
    size = dict(n=20000, d=32, L=1000)

    def setup(self, activation, dtype):
        self.layer = _cases.hidden_layer_case(**self.size, activation=activation, dtype=dtype)
        self.kernel = _cases.bias_activation_case(**self.size, activation=activation,
                                                  dtype=dtype)

    def time_hidden_layer(self, activation, dtype):
        self.layer.run()

    def time_bias_activation_only(self, activation, dtype):
        self.kernel.run()  # in place; values stay finite


class TimeGramFloor:
    """The reference for TimeHiddenLayer and TimeELMFit: HᵀH (20000×1000), which every
    least-squares ELM fit must compute, and XW, the product inside the hidden layer."""

    params = [["float64", "float32"]]
    param_names = ["dtype"]

    def setup(self, dtype):
        rng = np.random.default_rng(0)
        self.H = np.tanh(rng.standard_normal((20000, 1000))).astype(dtype)
        self.X = rng.standard_normal((20000, 32)).astype(dtype)
        self.W = rng.uniform(-1, 1, (32, 1000)).astype(dtype)

    def time_gram(self, dtype):
        self.H.T @ self.H

    def time_input_product(self, dtype):
        self.X @ self.W


class TimeRidgeFit:
    """ridge_fit: primal (N >= L, Gram + Cholesky) and dual (N < L, kernel matrix) forms."""

    params = ([(20000, 1000), (5000, 200), (500, 2000)], ["float64", "float32"])
    param_names = ["(n_samples, n_hidden)", "dtype"]

    def setup(self, shape, dtype):
        self.case = _cases.ridge_case(n=shape[0], L=shape[1], m=10, dtype=dtype)

    def time_ridge_fit(self, shape, dtype):
        self.case.run()


class TimeRecursiveRidgeUpdate:
    """One RecursiveRidge.update of an n-row chunk, each form forced (the state is primed with
    more than L rows, so both forms are exact; P is built before timing)."""

    params = (["woodbury", "information"], [1, 100], [200, 1000])
    param_names = ["form", "chunk", "n_hidden"]

    def setup(self, form, chunk, L):
        self.case = _cases.rls_case(form=form, chunk=chunk, L=L)  # builds P for Woodbury

    def time_update(self, form, chunk, L):
        self.case.run()


class TimeRecursiveRidgeAuto:
    """RecursiveRidge.update with the form chosen by flop count, up to an up-to-date beta."""

    params = [[1, 100, 2000]]
    param_names = ["chunk"]

    def setup(self, chunk):
        self.case = _cases.rls_case(form=None, chunk=chunk, L=1000)

    def time_update_auto(self, chunk):
        self.case.run()


class TimeOSELMStream:
    """OS-ELM over a stream of 8000 rows in equal chunks, from a fresh model."""

    params = [[(10, 200), (200, 1000), (2000, 1000)]]
    param_names = ["(chunk, n_hidden)"]
    timeout = 300

    def setup(self, size):
        chunk, _ = size
        warm()
        X, y = classification_data(8000)
        self.chunks = [(X[i:i + chunk], y[i:i + chunk]) for i in range(0, 8000, chunk)]
        self.classes = np.unique(y)
        Xr, yr = regression_data(8000)
        self.rchunks = [(Xr[i:i + chunk], yr[i:i + chunk]) for i in range(0, 8000, chunk)]

    def time_stream_classifier(self, size):
        model = OSELMClassifier(n_hidden=size[1], random_state=0)
        model.partial_fit(*self.chunks[0], classes=self.classes)
        for Xc, yc in self.chunks[1:]:
            model.partial_fit(Xc, yc)
        model.beta_  # the readout is solved when first read

    def time_stream_regressor(self, size):
        model = OSELMRegressor(n_hidden=size[1], random_state=0)
        for Xc, yc in self.rchunks:
            model.partial_fit(Xc, yc)
        model.beta_


class TrackAccuracy:
    """Held-out error rate (1 − accuracy) on a fixed synthetic 5-class task (8000 train / 4000
    test rows, d=32); a rise flags a numerical regression that timings would not show. (asv
    reads every tracked value as lower-is-better: ``compare``, ``continuous`` and the
    dashboard's regression list flag a rise, so accuracies are tracked as error rates.)"""

    params = [["float64", "float32"]]
    param_names = ["dtype"]
    unit = "error rate"
    n_hidden = 500

    def setup(self, dtype):
        warm(dtype)
        X, y = classification_data(12000)
        self.Xtr, self.ytr, self.Xte, self.yte = X[:8000], y[:8000], X[8000:], y[8000:]

    def track_elm_classifier_error(self, dtype):
        clf = ELMClassifier(n_hidden=self.n_hidden, random_state=0, dtype=dtype)
        clf.fit(self.Xtr, self.ytr)
        return float(np.mean(clf.predict(self.Xte) != self.yte))

    def track_oselm_classifier_error(self, dtype):
        clf = OSELMClassifier(n_hidden=self.n_hidden, random_state=0, dtype=dtype)
        clf.partial_fit(self.Xtr[:1000], self.ytr[:1000], classes=np.unique(self.ytr))
        for i in range(1000, 8000, 1000):
            clf.partial_fit(self.Xtr[i:i + 1000], self.ytr[i:i + 1000])
        return float(np.mean(clf.predict(self.Xte) != self.yte))


class TrackOSELMMatchesBatch:
    """max |OS-ELM − batch ELM| / max |batch| of held-out scores after a chunked stream (should
    stay at rounding level, ~1e-12 in float64)."""

    params = [[10, 1000]]
    param_names = ["chunk"]
    unit = "relative difference"

    def setup(self, chunk):
        warm()
        X, y = classification_data(3000)
        self.X, self.y, self.Xte = X[:2000], y[:2000], X[2000:]

    def track_oselm_vs_batch(self, chunk):
        batch = ELMClassifier(n_hidden=200, random_state=0).fit(self.X, self.y)
        online = OSELMClassifier(n_hidden=200, random_state=0)
        online.partial_fit(self.X[:chunk], self.y[:chunk], classes=np.unique(self.y))
        for i in range(chunk, len(self.X), chunk):
            online.partial_fit(self.X[i:i + chunk], self.y[i:i + chunk])
        s_b, s_o = batch.decision_function(self.Xte), online.decision_function(self.Xte)
        return float(np.max(np.abs(s_o - s_b)) / np.max(np.abs(s_b)))


class TrackFitOverGram:
    """ELMClassifier.fit time / HᵀH time on the same H (N=20000, L=1000), best of 3 each,
    measured in one process: how close the fit stays to its Gram floor."""

    unit = "ratio"
    timeout = 300

    def setup(self):
        warm()
        self.X, self.y = classification_data(20000, d=64, n_classes=10)
        clf = ELMClassifier(n_hidden=1000, random_state=0).fit(self.X[:2000], self.y[:2000])
        self.H = hidden_layer(self.X, clf.W_, clf.b_, check_activation("tanh"))

    def track_fit_over_gram(self):
        from time import perf_counter

        fit, gram = [], []
        for _ in range(3):
            t0 = perf_counter()
            self.H.T @ self.H
            gram.append(perf_counter() - t0)
            t0 = perf_counter()
            ELMClassifier(n_hidden=1000, random_state=0).fit(self.X, self.y)
            fit.append(perf_counter() - t0)
        return min(fit) / min(gram)


def timeraw_import_fastelm():
    """Import time of the package (kernels compile on first use, not at import)."""
    return f"import sys; sys.path.append({ROOT!r}); import fastelm"
