"""asv benchmarks of the kernels of FOS-ELM, DE-ELM and BLS: EFAST over hidden nodes, one DE
generation, the BLS sparse-autoencoder ADMM and the tansig enhancement map.

(The hidden layer, the ridge readout and the recursive ridge update are in ``bench_core.py``.)
Inputs come from ``benchmarks/_cases.py``, which the pytest-benchmark tests
(``tests/test_bench_kernels.py``) share; every ``setup`` builds its case, which runs the kernel
once, so no timing includes Numba compilation.
"""
from . import _cases


class TimeEFASTNodes:
    """EFAST S1 and ST of every hidden node (FOS-ELM's pruning step, once per chunk): L nodes,
    N points per node, m readout outputs."""

    params = ([(100, 129), (300, 129), (300, 1025)], [1, 7])
    param_names = ["(n_nodes, N)", "n_outputs"]

    def setup(self, size, m):
        self.case = _cases.efast_case(L=size[0], N=size[1], m=m)

    def time_hidden_node_sensitivity(self, size, m):
        self.case.run()


class TimeDEGeneration:
    """One DE generation (mutation, crossover, the fitness of every trial, selection) on Wdbc,
    30 tanh nodes, NP 20: (1, 1) is one DE-ELM fit, (5, 3) a 5-repetition strategy-selection
    batch (5 splits × rand/1, best/1, best/2, 300 individuals)."""

    params = [[(1, 1), (5, 3)]]
    param_names = ["(n_splits, n_strategies)"]

    def setup(self, runs):
        self.case = _cases.de_generation_case(n_groups=runs[0], n_strategies=runs[1])

    def time_generation(self, runs):
        self.case.run()


class TimeSparseAutoencoder:
    """One BLS feature window: the sparse autoencoder's 50 ADMM steps (k = 10 nodes) for inputs
    of the quick BLS-fMRI sizes (435 connectivity features, 1800 time-series features) and
    MNIST's 784 pixels."""

    params = [[435, 784, 1800]]
    param_names = ["n_features"]

    def setup(self, n_features):
        self.case = _cases.sparse_autoencoder_case(n_rows=1000, n_features=n_features)

    def time_sparse_autoencoder(self, n_features):
        self.case.run()


class TimeEnhancementMap:
    """BLS enhancement nodes for 5000 rows, 100 feature nodes → 2000 enhancement nodes (the
    fMRI paper's size): the product Z·Wh and the tansig kernel, and the tansig kernel alone."""

    params = [["float64", "float32"]]
    param_names = ["dtype"]

    def setup(self, dtype):
        self.map = _cases.enhancement_case(dtype=dtype)
        self.kernel = _cases.enhancement_case(dtype=dtype, kernel_only=True)

    def time_enhancement_map(self, dtype):
        self.map.run()

    def time_tansig_kernel(self, dtype):
        self.kernel.run()
