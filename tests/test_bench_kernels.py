"""pytest-benchmark timings of the hot kernels, with the inputs of the asv suite
(``benchmarks/_cases.py``) at smaller sizes; each test also checks the result it timed.

Marked ``benchmark``, so the default run leaves them out. Run them with::

    python -m pytest -m benchmark --benchmark-enable        # timings, grouped by kernel
    python -m pytest -m benchmark                           # each kernel once, as a test

(``--benchmark-disable``, the default in setup.cfg, calls each benchmarked function once.)
Add ``--benchmark-autosave`` / ``--benchmark-compare`` to compare against a saved run.
"""
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]  # the repository: benchmarks/ is not installed

pytestmark = pytest.mark.benchmark


@pytest.fixture(scope="module")
def cases():
    """benchmarks/_cases.py, imported when a selected test needs it (not at collection)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT))
        return importlib.import_module("benchmarks._cases")


def group(name):
    return pytest.mark.benchmark(group=name)


def timed(benchmark, case):
    """Time ``case.run`` and check the result of the last call."""
    return case.check(benchmark(case.run))


@group("hidden layer g(XW + b), 4000×32 → 500")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("activation", ["tanh", "sigmoid", "relu"])
def test_hidden_layer(benchmark, cases, activation, dtype):
    timed(benchmark, cases.hidden_layer_case(4000, 32, 500, activation, dtype))


@group("hidden layer g(XW + b), 4000×32 → 500")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_bias_activation_kernel(benchmark, cases, dtype):
    timed(benchmark, cases.bias_activation_case(4000, 32, 500, "tanh", dtype))


@group("ridge readout")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("n, L", [(4000, 300), (300, 1000)], ids=["primal", "dual"])
def test_ridge_fit(benchmark, cases, n, L, dtype):
    timed(benchmark, cases.ridge_case(n, L, 10, dtype))


@group("recursive ridge update, L = 300")
@pytest.mark.parametrize("form, chunk", [("woodbury", 1), ("woodbury", 30),
                                         ("information", 30), ("information", 300)])
def test_recursive_ridge_update(benchmark, cases, form, chunk):
    timed(benchmark, cases.rls_case(form, chunk, L=300))


@group("EFAST over hidden nodes")
@pytest.mark.parametrize("L, N, m", [(50, 129, 1), (30, 1025, 3)])
def test_efast_hidden_nodes(benchmark, cases, L, N, m):
    timed(benchmark, cases.efast_case(L, N, m))


@group("DE generation, Wdbc, 30 nodes, NP 20")
@pytest.mark.parametrize("splits, strategies", [(1, 1), (2, 3)])
def test_de_generation(benchmark, cases, splits, strategies):
    timed(benchmark, cases.de_generation_case(splits, strategies))


@group("BLS sparse autoencoder (ADMM)")
@pytest.mark.parametrize("n_features", [435, 1800])
def test_sparse_autoencoder(benchmark, cases, n_features):
    timed(benchmark, cases.sparse_autoencoder_case(500, n_features))


@group("BLS enhancement map, 2000 rows, 100 → 1000")
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("kernel_only", [False, True], ids=["map", "tansig kernel"])
def test_enhancement_map(benchmark, cases, dtype, kernel_only):
    timed(benchmark, cases.enhancement_case(2000, 100, 1000, dtype, kernel_only=kernel_only))


@group("ELM fit vs cross-validated fit, 4000×16, L = 200, 3 classes")
@pytest.mark.parametrize("single", [True, False], ids=["one fit", "CV 10 alphas x 8 sizes x 5"])
def test_model_selection(benchmark, cases, single):
    timed(benchmark, cases.model_selection_case(4000, 16, 200, 3, single=single))
