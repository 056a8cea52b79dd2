"""The DE-ELM-SSC reproduction (fastelm.experiments.de_elm_ssc): splits, preprocessing, a tiny
end-to-end run (same seed, same tables, also when run per data set and merged), the command
line; quick mode is marked slow."""
import os
import time

import numpy as np
import pytest

from fastelm.datasets import DataNotFoundError
from fastelm.experiments import de_elm_ssc as exp

TINY = dict(n_selection_repeats=2, subsample={"australian": 140, "vote": 100},
            share_datasets=("australian",), shares=(0.2, 0.8), grid_dataset="vote",
            grid_values=(0.5, 1.0), nh_dataset="vote", nh_values=(4, 8), ablation_runs=1,
            common=dict(alpha=1e-3, pop_size=5, n_generations=1, crossover=0.8),
            config={name: dict(c, n_hidden=6) for name, c in exp.CONFIG.items()})


pytestmark = pytest.mark.usefixtures("one_numba_thread")  # tests/conftest.py


# outputs without wall-clock times: identical for the same seed
DETERMINISTIC = ("table3_4_accuracy", "strategies", "table5_labelled_share", "table6_f_grid",
                 "hidden_nodes", "ablation_raw_inputs")


def _files(out):
    return {name: open(os.path.join(out, name)).read() for name in sorted(os.listdir(out))
            if name.endswith((".md", ".csv")) and (name.split(".")[0] in DETERMINISTIC
                                                   or name in ("notes.md",
                                                               "table6_f_grid_matrix.md"))}


# --- splits and preprocessing -----------------------------------------------------------------

def test_main_split_protocol():
    y = np.repeat([0, 1], [400, 600])
    L, V, U, test = exp.split(y, np.random.default_rng(0))
    parts = np.concatenate([L, V, U, test])
    assert len(parts) == len(np.unique(parts)) == 1000            # a partition of the rows
    assert len(test) == 250                                       # 25% of all rows
    assert len(L) + len(V) == 450 and len(U) == 300               # 60% / 40% of training
    assert len(V) == 225 and len(L) == 225                        # D halved
    for part in (L, V, U, test):                                  # stratified
        assert abs(np.mean(y[part]) - 0.6) < 0.01


def test_labelled_share_protocol():
    y = np.repeat([0, 1], [400, 600])
    for share in exp.SHARES:
        L, V, U, test = exp.split(y, np.random.default_rng(1), share=share)
        assert len(test) == 250 and len(V) == 225                 # 30% of training
        assert len(L) + len(U) == 525
        assert abs(len(L) - share * 525) <= 2
        assert len(np.unique(np.concatenate([L, V, U, test]))) == 1000


def test_standardise_uses_training_rows_only():
    X = np.array([[0.0, 5.0], [2.0, 5.0], [100.0, 7.0]])
    Z = exp.standardise(X, np.array([0, 1]))
    np.testing.assert_allclose(Z[:2, 0], [-1.0, 1.0])
    np.testing.assert_allclose(Z[:2, 1], [0.0, 0.0])              # constant column → 0
    assert Z[2, 0] == pytest.approx(99.0)


def test_run_data_marks_unlabelled_rows():
    X = np.arange(40.0).reshape(20, 2)
    y = np.tile([0, 1], 10)
    rows = exp.split(y, np.random.default_rng(0))
    data = exp.Run(X, y, rows)
    assert np.sum(data.y_semi == -1) == len(rows[2])
    np.testing.assert_array_equal(data.y_semi[:len(rows[0])], y[rows[0]])
    assert len(data.X_val) == len(rows[1]) and len(data.X_test) == len(rows[3])


def test_settings_run_counts():
    full = exp.settings()
    assert (full["runs"], full["mushroom_runs"], full["n_selection_repeats"]) == (50, 10, 125)
    assert full["grid_values"] == exp.F_GRID and len(full["shares"]) == 4
    s = exp.settings(runs=5)
    assert (s["runs"], s["share_runs"], s["mushroom_runs"], s["nh_runs"]) == (5, 5, 5, 2)
    s = exp.settings(runs=20, mushroom_runs=2)
    assert (s["runs"], s["mushroom_runs"], s["mushroom_share_runs"]) == (20, 2, 2)
    assert exp.settings(quick=True, runs=2)["ablation_runs"] == 0


def test_models_compose_the_estimators():
    rng = np.random.default_rng(0)
    strategies = {"DE-ELM-SSC": "best/1", "DE-ELM-SSC+": "best/2"}
    tri = exp.make_model("Tri-DE-ELM", "mushroom", strategies, rng)
    ssc = exp.make_model("DE-ELM-SSC", "mushroom", strategies, rng)
    plus = exp.make_model("DE-ELM-SSC+", "australian", strategies, rng)
    assert tri.estimator.n_hidden == 40 and type(tri).__name__ == "TriDEELM"
    assert (ssc.strategy, ssc.estimator.f_constant) == ("best/1", 1.0)
    assert (plus.strategy, plus.estimator.f_min, plus.estimator.f_max) == ("best/2", 0.3, 0.5)
    assert plus.estimator.f_schedule == "nonlinear" and tri.strategy == "auto"
    assert ssc.random_state != tri.random_state


def test_check_paper_on_made_up_tables():
    def rows(labelled, method, acc):
        return dict(dataset="Australian", labelled=labelled, method=method,
                    test_accuracy_mean=acc, test_accuracy_std=0.0,
                    validation_accuracy_mean=acc, validation_accuracy_std=0.0, runs=1)
    tables = {"table5_labelled_share": [rows("20%", "DE-ELM-SSC+", 0.75),
                                        rows("80%", "DE-ELM-SSC+", 0.85),
                                        rows("20%", "Tri-DE-ELM", 0.73),
                                        rows("80%", "Tri-DE-ELM", 0.80)],
              "table3_4_accuracy": [dict(dataset=d, method=m, test_accuracy_mean=a,
                                         test_accuracy_std=0.0, runs=1)
                                    for d, m, a in [("Vote", "Tri-DE-ELM", 0.9),
                                                    ("Vote", "DE-ELM-SSC+", 0.92),
                                                    ("Wdbc", "Tri-DE-ELM", 0.95),
                                                    ("Wdbc", "DE-ELM-SSC+", 0.94)]]}
    checks = exp.check_paper(tables)
    assert checks["Australian 20% DE-ELM-SSC+"]["within_0_02"] is True      # 0.75 vs 0.7387
    assert checks["Australian 80% DE-ELM-SSC+"]["within_0_02"] is False     # 0.85 vs 0.8123
    assert checks["Australian 80% DE-ELM-SSC+"]["diff"] == pytest.approx(0.85 - 0.8123)
    c = checks["plus_vs_tri_de_elm"]
    assert c["plus"] == pytest.approx(0.93) and c["tri_de_elm"] == pytest.approx(0.925)
    assert c["not_below"] is True
    text = exp.notes_text(tables, checks, exp.settings(), 0, False)
    assert "0.7387" in text and "NOT within 0.02" in text


# --- end to end -------------------------------------------------------------------------------

def _stand_in(n_rows, n_features, seed):
    """A loader with the signature of fastelm.datasets' (data_home, return_X_y, categorical)."""
    from sklearn.datasets import make_classification

    def loader(data_home=None, return_X_y=True, categorical="onehot"):
        return make_classification(n_rows, n_features, n_informative=5, random_state=seed)
    return loader


@pytest.fixture
def stand_in_data(monkeypatch):
    """Australian- and Vote-sized stand-ins, so the plumbing is tested on any machine (the UCI
    files are not in any package: see fastelm.datasets)."""
    monkeypatch.setitem(exp.LOADERS, "australian", _stand_in(690, 14, 0))
    monkeypatch.setitem(exp.LOADERS, "vote", _stand_in(435, 16, 1))


def test_tiny_run_is_reproducible(tmp_path, stand_in_data):
    kwargs = dict(quick=True, seed=3, runs=1, progress=False, overrides=TINY,
                  datasets=("australian", "vote"))
    a = exp.run(out_dir=str(tmp_path / "a"), **kwargs)
    tables = a["rows"]
    main = tables["table3_4_accuracy"]
    assert {(r["dataset"], r["method"]) for r in main} == {
        (exp.LABELS[n], m) for n in ("australian", "vote") for m in exp.METHODS}
    assert all(0 <= r["test_accuracy_mean"] <= 1 for r in main)
    assert {r["labelled"] for r in tables["table5_labelled_share"]} == {"20%", "80%"}
    assert len(tables["table6_f_grid"]) == 3                       # (0.5,0.5) (0.5,1) (1,1)
    assert {r["n_hidden"] for r in tables["hidden_nodes"]} == {4, 8}
    assert set(a["strategies"]["Vote"]) == {"DE-ELM-SSC", "DE-ELM-SSC+"}
    out = tmp_path / "a"
    for name in ("notes.md", "timings.md", "table4_time.md", "table4_time.csv",
                 "table6_f_grid_matrix.md", "strategies.csv", "records.json"):
        assert (out / name).exists(), name
    notes = (out / "notes.md").read_text()
    assert "0.7387" in notes and "## Checks against the paper's claims" in notes
    assert "Australian DE-ELM-SSC+ at 20% / 80%" in a["summary"]
    assert str(out / "table4_time.csv") in a["files"] and str(out / "notes.md") in a["files"]

    # the same seed, run as two processes would (one data set each) and merged
    for name in ("australian", "vote"):
        exp.run(out_dir=str(tmp_path / name), **dict(kwargs, datasets=(name,)))
    exp.merge(str(tmp_path / "b"), [str(tmp_path / "vote"), str(tmp_path / "australian")])
    fa, fb = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert set(fa) == set(fb) and len(fa) >= 13
    for name in fa:
        assert fa[name] == fb[name], name
    # notes can be written again from the saved records, without refitting
    before = (out / "notes.md").read_text()
    exp.rewrite(str(out))
    assert (out / "notes.md").read_text() == before


def test_missing_data_sets_are_skipped(tmp_path, monkeypatch, capsys):
    """A fresh machine (no data directory, no $FASTELM_DATA): only Wdbc (scikit-learn's copy)
    is found; the others are left out of every section, and notes.md says which and why."""
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    empty = tmp_path / "no-data"
    empty.mkdir()
    out = tmp_path / "out"
    result = exp.run(quick=True, out_dir=str(out), seed=3, runs=1, progress=False,
                     overrides=TINY, data_home=str(empty))
    skipped, err = result["skipped"], capsys.readouterr().err
    assert list(skipped) == ["australian", "cancer", "vote", "mushroom"]
    for name, file in (("australian", "australian.dat"), ("vote", "house-votes-84.data"),
                       ("cancer", "breast-cancer-wisconsin.data"),
                       ("mushroom", "agaricus-lepiota.data")):
        assert f"{file} not found" in skipped[name]
        assert f"DE-ELM-SSC: skipping {name}: {skipped[name]}" in err
    tables = result["rows"]
    assert {r["dataset"] for r in tables["table3_4_accuracy"]} == {"Wdbc"}
    assert (out / "table3_4_accuracy.md").read_text().startswith("**Quick mode**")
    assert set(result["strategies"]) == {"Wdbc"}
    for key in ("table5_labelled_share", "table6_f_grid", "ablation_raw_inputs"):
        assert key not in tables, key
    # the hidden-node sweep moves to the first available set, so the plot is still drawn
    assert {r["dataset"] for r in tables["hidden_nodes"]} == {"Wdbc"}
    assert (out / "hidden_nodes.png").stat().st_size > 0
    assert not (out / "table6_f_grid_matrix.md").exists()
    notes = (out / "notes.md").read_text()
    assert "## Data sets not available (skipped)" in notes and "--data DIR" in notes
    assert "- Australian: australian: australian.dat not found in" in notes
    assert ("skipped: Australian, Cancer, Vote, Mushroom (see below); left out with them: their "
            "rows of Tables 3-4, Table 5 on Australian, Table 6 (Vote), the "
            "raw-input ablation (Australian).") in notes
    assert "Figs. 3-4 (on Wdbc)" in notes and "Accuracy against nh on Wdbc" in notes
    assert "not checked — Australian was not available" in result["summary"]
    assert "Not compared, the data set not being available" in notes
    assert "Not analysed, the data set not being available" in notes
    assert "Mean test accuracy over 1 data sets" in notes and "| Australian 20%" not in notes
    exp.rewrite(str(out))  # the skipped sets are saved with the records
    assert (out / "notes.md").read_text() == notes

    # the same seed with the data: Wdbc's tables are the same (its own random streams)
    with_data = exp.run(quick=True, out_dir=str(tmp_path / "wdbc"), seed=3, runs=1,
                        progress=False, overrides=TINY, data_home=str(empty),
                        datasets=("wdbc",))
    assert with_data["skipped"] == {}
    assert with_data["rows"]["table3_4_accuracy"] == tables["table3_4_accuracy"]
    assert with_data["rows"]["strategies"] == tables["strategies"]


def test_named_missing_data_set_is_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("FASTELM_DATA", raising=False)
    empty = tmp_path / "no-data"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"australian: australian\.dat not found in"):
        exp.run(quick=True, out_dir=str(tmp_path / "a"), runs=1, progress=False,
                overrides=TINY, data_home=str(empty), datasets=["australian"])
    assert not (tmp_path / "a" / "notes.md").exists()

    def no_wdbc(**kwargs):
        raise DataNotFoundError("wdbc: wdbc.data not found")

    monkeypatch.setitem(exp.LOADERS, "wdbc", no_wdbc)  # nothing at all available
    with pytest.raises(FileNotFoundError, match="none of its data sets is available"):
        exp.run(quick=True, out_dir=str(tmp_path / "b"), runs=1, progress=False,
                overrides=TINY, data_home=str(empty))


def _fake_source(path, dataset, runs):
    """A records.json as ``run`` writes it, with made-up numbers."""
    import json
    s = exp.settings(runs=runs)
    s.update(common=dict(s["common"]))
    rec = {key: [] for key in ("main", "share", "grid", "nh", "ablation")}
    rec["main"] = [dict(dataset=exp.LABELS[dataset], method=m, run=r, test_accuracy=0.9,
                        validation_accuracy=0.9, train_time_s=1.0)
                   for r in range(runs) for m in exp.METHODS]
    sel = {dataset: {m: dict(strategy="rand/1", strategies=["rand/1", "best/1", "best/2"],
                             votes=[1, 0, 0], rmse_sums=[0.1, 0.2, 0.3], rmse=[[0.1, 0.2, 0.3]])
                     for m in ("DE-ELM-SSC", "DE-ELM-SSC+")}}
    os.makedirs(path)
    with open(os.path.join(path, "records.json"), "w") as f:
        json.dump(dict(seed=0, quick=False, settings=s, records=rec, timings={"x": 1.0},
                       selections=sel), f)
    return str(path)


def test_merge_of_sources_with_other_settings(tmp_path):
    a = _fake_source(tmp_path / "a", "vote", 2)
    b = _fake_source(tmp_path / "b", "wdbc", 3)
    with pytest.raises(ValueError, match="different settings"):
        exp.merge(str(tmp_path / "m"), [a, b])
    result = exp.merge(str(tmp_path / "m"), [b, a], settings=exp.settings(runs=2))
    rows = result["rows"]["table3_4_accuracy"]
    assert [r["dataset"] for r in rows[::len(exp.METHODS)]] == ["Vote", "Wdbc"]
    assert [r["runs"] for r in rows[::len(exp.METHODS)]] == [2, 3]
    assert "Tables 3-4: 2 runs" in (tmp_path / "m" / "notes.md").read_text()
    with pytest.raises(ValueError, match="more than one source"):
        exp.merge(str(tmp_path / "n"), [a, a])


def test_main_passes_the_command_line(monkeypatch, tmp_path, capsys):
    seen = {}
    notes = tmp_path / "notes.md"
    notes.write_text("the notes\n")

    def fake_run(**kwargs):
        seen.update(kwargs)
        return {"paths": {"notes": str(notes)}}

    monkeypatch.setattr(exp.reproduce, "run", fake_run)
    out, data = str(tmp_path / "somewhere"), str(tmp_path)
    assert exp.main(["--quick", "--out", out, "--seed", "7", "--runs", "4",
                     "--mushroom-runs", "2", "--data", data, "--datasets", "vote",
                     "--threads", "1", "--settings", '{"nh_runs": 3}', "--no-progress"]) == 0
    assert seen == dict(quick=True, out_dir=os.path.join(out, "incomplete-run"), seed=7,
                        runs=4, data_home=data,
                        progress=False, mushroom_runs=2, datasets=["vote"], threads=1,
                        overrides={"nh_runs": 3})
    assert "the notes" in capsys.readouterr().out
    assert exp.main(["--datasets", "iris"]) == 2
    assert "argument --datasets: invalid choice: 'iris'" in capsys.readouterr().err


@pytest.mark.slow
def test_quick_mode(tmp_path):
    """The --quick reproduction: every section, within its budget (a few minutes on 2 cores)."""
    start = time.perf_counter()
    result = exp.run(quick=True, out_dir=str(tmp_path), progress=False)
    elapsed = time.perf_counter() - start
    assert elapsed < 600, f"quick mode took {elapsed:.0f} s"
    tables = result["rows"]
    assert len({r["dataset"] for r in tables["table3_4_accuracy"]}) == 5
    assert len(tables["table6_f_grid"]) == 10
    assert (tmp_path / "hidden_nodes.png").exists()
    checks = result["checks"]
    assert checks["Australian 20% DE-ELM-SSC+"]["ours"] is not None
    assert "plus_vs_tri_de_elm" in checks
    for r in tables["table3_4_accuracy"]:
        if r["method"] != "ELM":
            assert r["test_accuracy_mean"] > 0.75, r


def test_command_line_merge_reports_the_table6_source_settings(tmp_path, capsys):
    a = _fake_source(tmp_path / "a", "vote", 2)
    b = _fake_source(tmp_path / "b", "mushroom", 3)
    import json
    with open(os.path.join(b, "records.json")) as f:  # the Mushroom run's own settings
        saved = json.load(f)
    saved["settings"]["grid_values"] = [0.1, 1.0]
    with open(os.path.join(b, "records.json"), "w") as f:
        json.dump(saved, f)
    assert exp.main(["--merge", a, b, "--out", str(tmp_path / "m")]) == 0
    notes = (tmp_path / "m" / "notes.md").read_text()
    assert "grid [0.1, 1.0]" in notes
    assert "## Checks against the paper's claims" in capsys.readouterr().out
    # settings must be JSON
    assert exp.main(["--settings", "{runs: 2}", "--out", str(tmp_path / "x")]) == 2
    assert "argument --settings: not JSON" in capsys.readouterr().err


def test_hidden_node_plot_axis_and_title():
    """Figs. 3-4: the accuracy axis spans at least 0.1 (noise of a few rows is not drawn as a
    trend) and covers every error bar; the title gives the run count and the bars' meaning."""
    from fastelm.experiments.de_elm_ssc.outputs import MIN_ACCURACY_SPAN, hidden_axis

    rows = [dict(test_accuracy_mean=m, test_accuracy_std=s, runs=5)
            for m, s in ((0.951, 0.01), (0.955, 0.012), (0.949, 0.008))]
    (lo, hi), bars = hidden_axis(rows, "test_accuracy")
    assert hi - lo >= MIN_ACCURACY_SPAN and lo <= 0.939 and hi >= 0.967
    assert bars == "5 runs, mean ± 1 sd"
    ones = [dict(test_accuracy_mean=m, test_accuracy_std=0.0, runs=1) for m in (0.99, 1.0)]
    (lo, hi), bars = hidden_axis(ones, "test_accuracy")
    assert hi == 1.0 and abs((hi - lo) - MIN_ACCURACY_SPAN) < 1e-12
    assert bars == "1 run, no error bars"
