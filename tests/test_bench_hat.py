"""Smoke test of benchmarks/bench_hat.py on a tiny size: each comparison's two forms give the
same scores, and the script prints its table."""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_hat.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("fastelm_bench_hat", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_fast_forms_give_the_eigendecomposition_forms_scores(bench):
    names = []
    for name, slow, fast in bench.cases(*bench.readout_inputs(120, 3, 40)):
        np.testing.assert_allclose(fast(), slow(), rtol=1e-8, err_msg=name)
        names.append(name)
    assert len(names) == 3


def test_main_prints_one_row_per_case_and_d(bench, capsys):
    bench.main(["--n", "80", "--L", "20", "--d", "2", "5", "--repeats", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| 2 ")
            or line.startswith("| 5 ")]
    assert len(rows) == 6
