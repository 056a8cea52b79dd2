"""Smoke test of benchmarks/bench_streams.py on a tiny stream (river is in the 'stream'
extra: skipped without it), so the drifting-streams benchmark cannot rot."""
import csv
import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("river")
SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_streams.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("fastelm_bench_streams", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("name", ["hyperplane", "sea", "agrawal"])
def test_streams_are_seeded_and_drift_where_said(bench, name):
    X, dicts, y, drift = bench.make_stream(name, 600, seed=3)
    X2, _, y2, _ = bench.make_stream(name, 600, seed=3)
    assert X.shape[0] == len(dicts) == len(y) == 600 and drift == 300
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    np.testing.assert_array_equal(X[5], list(dicts[5].values()))
    scaled = bench.scale_inputs(X)
    np.testing.assert_allclose(scaled[:100].std(axis=0)[X[:100].std(axis=0) > 0],
                               1 / np.sqrt(X.shape[1]))


def test_tiny_run_writes_tables_and_plot(bench, tmp_path):
    bench.main(["--rows", "1500", "--streams", "sea", "--out", str(tmp_path)])
    with open(tmp_path / "streams.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["stream", "learner", "settings", "accuracy", "accuracy_after_drift",
                       "rows_per_second"]
    assert len(rows) == 1 + 7  # four OS-ELMs and three river learners
    # SETTINGS['sea'], forgetting
    assert rows[2][2] == "L=1 linear, alpha=0.1, direct links, logistic, λ=0.999"
    accuracy = {r[1]: float(r[3]) for r in rows[1:]}
    assert all(0.5 < a <= 1 for a in accuracy.values()), accuracy
    assert "| sea | river ARF |" in (tmp_path / "streams.md").read_text()
    assert (tmp_path / "accuracy_over_time.png").stat().st_size > 10_000


def test_choose_takes_the_most_accurate_point_and_the_smaller_layer_on_ties(bench):
    rows = [("sea", False, 200, "tanh", 1.0, "squared", "window", 2000, 0.88, 1e4),
            ("sea", True, 10, "tanh", 1.0, "logistic", "window", 1000, 0.88004, 1e4),  # a tie
            ("sea", True, 50, "tanh", 0.1, "squared", "window", 5000, 0.87, 1e4),
            ("sea", True, 50, "tanh", 0.1, "squared", "forgetting_factor", 0.999, 0.86, 1e4),
            ("sea", False, 3, "tanh", 0.1, "squared", "forgetting_factor", 0.998, 0.85, 1e4)]
    assert bench.choose(rows) == {
        "sea": {"window": (True, 10, "tanh", 1.0, "logistic", 1000),
                "forgetting_factor": (True, 50, "tanh", 0.1, "squared", 0.999)}}


def test_settings_are_what_the_committed_selection_chooses(bench):
    """SETTINGS = choose(selection.csv): over the whole grid, and with the squared loss alone
    for the "squared" point (forgetting)."""
    path = SCRIPT.parents[1] / "docs" / "results" / "streams" / "selection.csv"
    with open(path, newline="") as f:
        rows = [(r["stream"], r["direct_links"] == "True", int(r["n_hidden"]), r["activation"],
                 float(r["alpha"]), r["loss"], r["memory"], float(r["value"]),
                 float(r["accuracy"]), float(r["rows_per_second"])) for r in csv.DictReader(f)]
    grid = bench.GRID
    assert len(rows) == 3 * len(grid["layer"]) * len(grid["alpha"]) * len(grid["loss"]) * \
        sum(len(values) for values in grid["memory"].values())
    chosen = bench.choose(rows)
    squared = bench.choose([r for r in rows if r[5] == "squared"])
    for name, settings in bench.SETTINGS.items():
        assert settings["forgetting_factor"] == chosen[name]["forgetting_factor"]
        assert settings["window"] == chosen[name]["window"]
        assert settings["squared"] == squared[name]["forgetting_factor"]


def test_draws_pair_each_oselm_with_river_lr_on_the_same_rows(bench, tmp_path):
    bench.main(["--draws", "2", "--rows", "1200", "--streams", "sea", "--out", str(tmp_path)])
    with open(tmp_path / "draws.csv", newline="") as f:
        rows = list(csv.reader(f))[1:]
    assert [(r[1], r[2]) for r in rows] == [(seed, learner) for seed in ("10", "11") for learner
                                           in ("river LogisticRegression", "OS-ELM, forgetting",
                                               "OS-ELM, window")]
    acc = {(r[1], r[2]): float(r[3]) for r in rows}
    d = [acc[s, "OS-ELM, window"] - acc[s, "river LogisticRegression"] for s in ("10", "11")]
    se = np.std(d, ddof=1) / np.sqrt(2)
    line = [x for x in (tmp_path / "draws.md").read_text().splitlines()
            if x.startswith("| sea | OS-ELM, window |")][0]
    assert f"| 2 | {100 * np.mean(d):+.3f} ± {100 * se:.3f} |" in line
