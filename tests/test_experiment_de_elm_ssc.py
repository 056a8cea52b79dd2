"""The DE-ELM-SSC reproduction (fastelm.experiments.de_elm_ssc): splits, preprocessing, a tiny
end-to-end run (same seed, same tables, also when run per data set and merged), the command
line; quick mode is marked slow."""
import os
import re
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


@pytest.fixture
def run_seen(monkeypatch, tmp_path):
    """``reproduce.run`` replaced by a recorder: the keyword arguments it was given, and a
    notes.md holding "the notes" as its result."""
    seen = {}
    notes = tmp_path / "notes.md"
    notes.write_text("the notes\n")

    def fake_run(**kwargs):
        seen.update(kwargs)
        return {"paths": {"notes": str(notes)}}

    monkeypatch.setattr(exp.reproduce, "run", fake_run)
    return seen


def test_main_passes_the_command_line(run_seen, tmp_path, capsys):
    seen = run_seen
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


# --- kill-tests of the mutation run (mutation/experiment_de_elm_ssc.toml) ---------------------

from fastelm.experiments.de_elm_ssc import protocol as _protocol  # noqa: E402
from fastelm.experiments.de_elm_ssc import reproduce as _reproduce  # noqa: E402


def _stream(*key):
    """The Generator of one cell, spelled out: numpy's SeedSequence of (seed, stream, ...)."""
    return np.random.default_rng(np.random.SeedSequence(list(key)))


def _strata(rng, rows, y, fraction):
    """The stratified draw, spelled out: per class in sorted order, a permutation of its rows,
    of which round(fraction · count) are taken."""
    taken = []
    for c in sorted(set(y[rows].tolist())):
        members = rng.permutation(rows[y[rows] == c])
        taken.extend(members[:int(round(fraction * len(members)))].tolist())
    taken = np.array(sorted(taken), dtype=int)
    return taken, np.array(sorted(set(rows.tolist()) - set(taken.tolist())), dtype=int)


@pytest.mark.mutant
def test_modes_shares_and_paper_figures_are_the_documented_ones():
    assert exp.SHARES == (0.2, 0.4, 0.6, 0.8)
    assert exp.MODES["full"] == dict(
        runs=50, mushroom_runs=10, n_selection_repeats=125, subsample={},
        share_datasets=exp.DATASETS, shares=(0.2, 0.4, 0.6, 0.8),
        share_methods=("Tri-DE-ELM", "DE-ELM-SSC+"), share_runs=20, mushroom_share_runs=3,
        grid_dataset="mushroom", grid_values=exp.F_GRID, grid_runs=1, nh_dataset="mushroom",
        nh_values=(10, 20, 30, 40, 50, 60), nh_runs=2, ablation_runs=20)
    assert exp.MODES["quick"] == dict(
        runs=3, mushroom_runs=3, n_selection_repeats=5, subsample={"mushroom": 1000},
        share_datasets=("australian",), shares=(0.2, 0.8),
        share_methods=("Tri-DE-ELM", "DE-ELM-SSC+"), share_runs=3, mushroom_share_runs=3,
        grid_dataset="mushroom", grid_values=(0.1, 0.3, 0.5, 1.0), grid_runs=1,
        nh_dataset="mushroom", nh_values=(10, 30, 50), nh_runs=1, ablation_runs=0)
    assert exp.PAPER == {
        ("australian", 0.2, "Tri-DE-ELM"): 0.7314, ("australian", 0.2, "DE-ELM-SSC+"): 0.7387,
        ("australian", 0.8, "Tri-DE-ELM"): 0.8024, ("australian", 0.8, "DE-ELM-SSC+"): 0.8123,
        "mushroom_f_0.3_0.5": (0.9784, 0.9767), "mushroom_f_1.0_1.0": (0.9447, 0.9456),
        "nh_plateau": 38,
        "strategies": {"Australian": "best/2", "Cancer": "rand/1", "Vote": "rand/1",
                       "Wdbc": "rand/1", "Mushroom": "best/1"}}


@pytest.mark.mutant
def test_settings_check_counts_and_overrides():
    for kwargs in (dict(runs=0), dict(runs=2.5), dict(runs="2"), dict(mushroom_runs=0),
                   dict(mushroom_runs=1.5)):
        name, value = next(iter(kwargs.items()))
        with pytest.raises(ValueError) as info:
            exp.settings(**kwargs)
        assert str(info.value) == (f"{name} must be an integer >= 1 (0 runs would compute "
                                   f"nothing), got {value!r}")
    with pytest.raises(ValueError, match=r"^unknown settings \['nope', 'zz'\]; known: \[.*"
                                         r"'runs', 'selection_repeats', 'share_datasets'"):
        exp.settings(overrides={"zz": 1, "nope": 2, "runs": 3})
    # the example of --settings' help: per-data-set selection repeats (refused once: a bug)
    assert exp.settings(overrides={"selection_repeats": {"mushroom": 25}})[
        "selection_repeats"] == {"mushroom": 25}
    s = exp.settings(runs=1, mushroom_runs=1)                    # 1 is a valid count
    assert (s["runs"], s["mushroom_runs"], s["ablation_runs"]) == (1, 1, 1)
    s = exp.settings(runs=5)                                     # full: ablation too, caps
    assert {k: s[k] for k in ("runs", "share_runs", "ablation_runs", "mushroom_runs",
                              "mushroom_share_runs", "grid_runs", "nh_runs")} == dict(
        runs=5, share_runs=5, ablation_runs=5, mushroom_runs=5, mushroom_share_runs=3,
        grid_runs=1, nh_runs=2)
    s = exp.settings(quick=True, overrides={"nh_runs": 4, "config": {"x": 1}})
    assert (s["nh_runs"], s["config"], s["runs"], s["common"]) == (4, {"x": 1}, 3, exp.COMMON)
    assert exp.settings() == dict(exp.MODES["full"], common=exp.COMMON, config=exp.CONFIG)


@pytest.mark.mutant
def test_load_codes_labels_passes_options_and_subsamples(monkeypatch):
    """``load``: float64 X, labels coded 0..K−1 in sorted order, ``categorical`` passed to every
    loader but Cancer's and Wdbc's, and a stratified subsample drawn from stream 99."""
    y_raw = np.array(["n", "y", "m", "y", "n", "y", "y", "m", "n", "y", "y", "n"])
    X_raw = np.arange(24).reshape(12, 2).tolist()
    calls = []

    def loader(**kwargs):
        calls.append(kwargs)
        return X_raw, y_raw
    for name in exp.DATASETS:
        monkeypatch.setitem(exp.LOADERS, name, loader)
    y_coded = np.array([1, 2, 0, 2, 1, 2, 2, 0, 1, 2, 2, 1])
    for name in exp.DATASETS:
        calls.clear()
        X, y = exp.load(name, data_home="somewhere", categorical="ordinal")
        options = {} if name in ("cancer", "wdbc") else {"categorical": "ordinal"}
        assert calls == [dict(data_home="somewhere", return_X_y=True, **options)]
        assert X.dtype == np.float64 and X.tolist() == X_raw
        np.testing.assert_array_equal(y, y_coded)
        for subsample in (12, 13):                               # all rows: nothing drawn
            X2, y2 = exp.load(name, subsample=subsample)
            assert X2.tolist() == X_raw and y2.tolist() == y_coded.tolist()
    keep, _ = _strata(_stream(0, 99, exp.DATASETS.index("vote")), np.arange(12), y_coded,
                      6 / 12)
    X, y = exp.load("vote", subsample=6)                          # seed 0 by default
    assert len(keep) == 6 and X[:, 0].tolist() == (2.0 * keep).tolist()
    np.testing.assert_array_equal(y, y_coded[keep])
    keep7, _ = _strata(_stream(7, 99, exp.DATASETS.index("vote")), np.arange(12), y_coded,
                       6 / 12)
    assert exp.load("vote", subsample=6, seed=7)[0][:, 0].tolist() == (2.0 * keep7).tolist()


@pytest.mark.mutant
def test_split_rows_are_the_stratified_draws_of_the_protocol():
    """Three classes of unequal size: the main split (test 25%, D 60% of training, D halved
    into V and L) and Table 5's (V 30% of training, L a share p of the rest), row for row.
    The class of 7 has an odd D (3 rows: V takes round(1.5) = 2) and 5 training rows (V takes
    round(1.5) = 2 of them in Table 5's split), where round(f·n) ≠ n − round((1 − f)·n)."""
    y = np.repeat([2, 0, 1], [9, 13, 7])[np.random.default_rng(5).permutation(29)]

    def main_split(rng, train):  # D 60% of training, halved into V and L; the rest U
        D, U = _strata(rng, train, y, 0.6)
        return (*_strata(rng, D, y, 0.5)[::-1], U)

    def table5(rng, train):  # V 30% of training, L a share 0.8 of the rest
        V, LU = _strata(rng, train, y, 0.3)
        L, U = _strata(rng, LU, y, 0.8)
        return L, V, U

    for seed, share, rows, lengths in ((11, None, main_split, [6, 7, 9, 7]),
                                       (12, 0.8, table5, [12, 7, 3, 7])):
        L, V, U, test = exp.split(y, np.random.default_rng(seed), share=share)
        rng = np.random.default_rng(seed)
        e_test, train = _strata(rng, np.arange(29), y, 0.25)
        for got, want in zip((L, V, U, test), (*rows(rng, train), e_test)):
            assert got.tolist() == want.tolist()
        assert [len(part) for part in (L, V, U, test)] == lengths
    # a class of one row: no test row (round(0.25) = 0), in D (round(0.6) = 1), not in V
    # (round(0.5) = 0): it is labelled
    L, V, U, test = exp.split(np.array([0, 0, 0, 0, 1]), np.random.default_rng(0))
    assert 4 in L and [len(part) for part in (L, V, U, test)] == [2, 1, 1, 1]


@pytest.mark.mutant
def test_run_standardises_on_training_rows_by_default():
    X = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 3.0], [6.0, 3.0], [100.0, 50.0]])
    y = np.array([0, 1, 0, 1, 1])
    rows = (np.array([0]), np.array([1]), np.array([2, 3]), np.array([4]))
    data = exp.Run(X, y, rows)                                   # scaled by rows 0-3
    mean, sd = X[:4].mean(axis=0), X[:4].std(axis=0)
    np.testing.assert_allclose(data.X_semi, (X[[0, 2, 3]] - mean) / sd)
    np.testing.assert_allclose(data.X_test, (X[[4]] - mean) / sd)
    assert data.y_semi.tolist() == [0, -1, -1]
    raw = exp.Run(X, y, rows, scale=False)
    np.testing.assert_array_equal(raw.X_semi, X[[0, 2, 3]])
    np.testing.assert_array_equal(raw.X_val, X[[1]])


@pytest.mark.mutant
def test_models_carry_each_data_sets_settings_and_the_de_settings():
    expected = {"australian": 30, "cancer": 30, "vote": 30, "wdbc": 30, "mushroom": 40}
    strategies = {"DE-ELM-SSC": "best/1", "DE-ELM-SSC+": "best/2"}
    for name, nh in expected.items():
        rng = np.random.default_rng(3)
        draws = np.random.default_rng(3)
        models = {m: exp.make_model(m, name, strategies, rng) for m in exp.METHODS}
        seeds = [int(draws.integers(2**31 - 1)) for _ in exp.METHODS]
        elm, tri_elm = models["ELM"], models["Tri-ELM"]
        assert type(elm).__name__ == "ELMClassifier"
        assert (elm.n_hidden, elm.alpha, elm.weight_scale, elm.random_state) == (
            nh, 1e-3, 1.0, seeds[0])
        assert type(tri_elm).__name__ == "TriTrainingClassifier"
        base = tri_elm.estimator
        assert type(base).__name__ == "ELMClassifier"
        assert (base.n_hidden, base.alpha, base.weight_scale) == (nh, 1e-3, 1.0)
        assert tri_elm.random_state == seeds[1]
        for k, (method, cls, strategy, f) in enumerate([
                ("Tri-DE-ELM", "TriDEELM", "auto", ("constant", 1.0, 0.2, 0.6)),
                ("DE-ELM-SSC", "DEELMSSC", "best/1", ("constant", 1.0, 0.2, 0.6)),
                ("DE-ELM-SSC+", "DEELMSSCPlus", "best/2", ("nonlinear", 0.5, 0.3, 0.5))]):
            model = models[method]
            assert type(model).__name__ == cls
            assert (model.strategy, model.random_state) == (strategy, seeds[2 + k])
            de = model.estimator
            assert type(de).__name__ == "DEELMClassifier"
            assert (de.n_hidden, de.alpha, de.pop_size, de.n_generations, de.crossover,
                    de.weight_scale) == (nh, 1e-3, 20, 20, 0.8, 1.0)
            assert (de.f_schedule, de.f_constant, de.f_min, de.f_max) == f
    s = dict(common=dict(alpha=0.5, pop_size=4, n_generations=2, crossover=0.1),
             config={"vote": dict(n_hidden=3, f_min=0.1, f_max=0.9)})
    plus = exp.make_model("DE-ELM-SSC+", "vote", {}, np.random.default_rng(0), s)
    de = plus.estimator
    assert (de.n_hidden, de.alpha, de.pop_size, de.n_generations, de.crossover, de.f_min,
            de.f_max, plus.strategy) == (3, 0.5, 4, 2, 0.1, 0.1, 0.9, "auto")
    assert exp.make_model("ELM", "vote", {}, np.random.default_rng(0), s, n_hidden=7).n_hidden \
        == 7
    assert exp.make_model("Tri-DE-ELM", "wdbc", {}, np.random.default_rng(0),
                          n_hidden=9).estimator.n_hidden == 9
    for unknown in ("DE-ELM", "tri-elm", "Tri-ELM+"):  # before and after "Tri-ELM" in order
        with pytest.raises(ValueError, match=rf"^unknown method '{re.escape(unknown)}'$"):
            exp.make_model(unknown, "vote", {}, np.random.default_rng(0))


@pytest.mark.mutant
def test_fit_score_fits_elm_on_labelled_rows_and_times_the_fit():
    from fastelm.metrics import accuracy
    X = np.random.default_rng(0).normal(size=(80, 3))
    y = (X[:, 0] > 0).astype(int)
    data = exp.Run(X, y, exp.split(y, np.random.default_rng(1)))
    model = exp.make_model("ELM", "vote", {}, np.random.default_rng(0), n_hidden=5)
    start = time.perf_counter()
    test, val, seconds = exp.fit_score(model, data)
    elapsed = time.perf_counter() - start
    assert model.classes_.tolist() == [0, 1]                  # L only: no -1 of U
    assert 0 <= seconds <= elapsed
    assert test == accuracy(data.y_test, model.predict(data.X_test))
    assert val == accuracy(data.y_val, model.predict(data.X_val))


@pytest.fixture
def fake_fits(monkeypatch):
    """protocol.fit_score replaced: each call is recorded with its model and data and returns
    (0.25, 0.75, 1.5); splits are recorded as drawn."""
    calls, splits = [], []
    real_split = _protocol.split

    def fit_score(model, data):
        calls.append((model, data))
        return 0.25, 0.75, 1.5

    def split(y, rng, share=None):
        rows = real_split(y, rng, share)
        splits.append((share, rows))
        return rows
    monkeypatch.setattr(_protocol, "fit_score", fit_score)
    monkeypatch.setattr(_protocol, "split", split)
    return calls, splits


def _xy(n=40):
    X = np.random.default_rng(2).normal(size=(n, 3))
    return X, np.arange(n) % 2


@pytest.mark.mutant
def test_main_table_runs_every_method_on_each_runs_own_split(fake_fits):
    calls, splits = fake_fits
    X, y = _xy()
    s = exp.settings(runs=2, mushroom_runs=1)
    for name in ("australian", "cancer", "vote", "wdbc", "mushroom"):
        calls.clear()
        splits.clear()
        records = exp.main_table(name, X, y, {"DE-ELM-SSC": "best/1"}, s, 4, False)
        n = 1 if name == "mushroom" else 2
        assert records == [dict(dataset=exp.LABELS[name], method=m, run=r, test_accuracy=0.25,
                                validation_accuracy=0.75, train_time_s=1.5)
                           for r in range(n) for m in exp.METHODS]
        for run in range(n):
            rng = _stream(4, 0, exp.DATASETS.index(name), run)   # stream 0: main
            rows = exp.split(y, rng)
            assert splits[run][0] is None
            for got, want in zip(splits[run][1], rows):
                assert got.tolist() == want.tolist()
            for k, (model, data) in enumerate(calls[5 * run:5 * run + 5]):
                assert model.random_state == int(rng.integers(2**31 - 1))
                np.testing.assert_array_equal(data.y_test, y[rows[3]])
        assert calls[3][0].strategy == "best/1"


@pytest.mark.mutant
def test_share_and_hidden_tables_draw_their_own_streams(fake_fits):
    calls, splits = fake_fits
    X, y = _xy()
    s = exp.settings(runs=2, overrides={"shares": (0.2, 0.8), "nh_values": (3, 5),
                                        "nh_runs": 1, "mushroom_share_runs": 1})
    records = exp.share_table("vote", X, y, {}, s, 4, False)     # the settings' defaults
    assert [(r["labelled"], r["method"], r["run"]) for r in records] == [
        (f"{p}%", m, run) for p in (20, 80) for run in range(2) for m in exp.SHARE_METHODS]
    assert records[0] == dict(dataset="Vote", labelled="20%", method="Tri-DE-ELM", run=0,
                              test_accuracy=0.25, validation_accuracy=0.75)
    for (p, run), (share, rows) in zip([(0.2, 0), (0.2, 1), (0.8, 0), (0.8, 1)], splits):
        want = exp.split(y, _stream(4, 1, exp.DATASETS.index("vote"), int(100 * p + 0.5), run),
                         share=p)                            # stream 1: Table 5
        assert share == p and [a.tolist() for a in rows] == [a.tolist() for a in want]
    data = calls[-1][1]                                          # standardised by default
    train = np.concatenate(splits[-1][1][:3])
    np.testing.assert_allclose(data.X_test, exp.standardise(X, train)[splits[-1][1][3]])
    calls.clear()
    splits.clear()
    records = exp.share_table("mushroom", X, y, {}, s, 4, False, methods=("ELM",),
                              scale=False, shares=(0.6,), stream=4, n=1)
    assert [(r["dataset"], r["labelled"], r["method"]) for r in records] == [
        ("Mushroom", "60%", "ELM")]
    want = exp.split(y, _stream(4, 4, 4, 60, 0), share=0.6)
    np.testing.assert_array_equal(calls[0][1].X_test, X[want[3]])   # raw inputs
    assert len(exp.share_table("mushroom", X, y, {}, s, 4, False)) == 2 * 1 * 2  # its runs
    calls.clear()
    splits.clear()
    records = exp.hidden_table("wdbc", X, y, {}, s, 4, False)
    assert [(r["n_hidden"], r["method"], r["run"]) for r in records] == [
        (nh, m, 0) for nh in (3, 5) for m in exp.DE_METHODS]
    assert [model.estimator.n_hidden for model, _ in calls] == [3, 3, 3, 5, 5, 5]
    want = exp.split(y, _stream(4, 3, 3, 5, 0))                  # stream 3: Figs. 3-4
    assert splits[1][1][3].tolist() == want[3].tolist()


@pytest.mark.mutant
def test_grid_table_passes_the_grid_on_and_counts_its_pairs(monkeypatch):
    seen, bars = [], []

    class Result:
        records = [dict(f_min=0.5, f_max=1.0, validation_accuracy=0.5, test_accuracy=0.625)]

    def grid_search_f(estimator, *arrays, values, n_runs, random_state, callback):
        seen.append((estimator, arrays, values, n_runs, random_state))
        callback(Result.records[0])
        return Result()

    def progress(iterable, desc, total=None, enabled=True):
        bars.append((list(iterable), desc, total, enabled))
        return iterable
    monkeypatch.setattr(_protocol, "grid_search_f", grid_search_f)
    monkeypatch.setattr(_protocol, "progress", progress)
    X, y = _xy()
    s = exp.settings(overrides={"grid_values": (0.1, 0.3, 0.5, 1.0), "grid_runs": 2})
    records = exp.grid_table("cancer", X, y, {"DE-ELM-SSC+": "best/2"}, s, 4, True)
    assert bars == [(list(range(20)), "Cancer table 6", 20, True)]   # 10 pairs, 2 runs
    assert records == [dict(dataset="Cancer", f_min=0.5, f_max=1.0, run=r,
                            validation_accuracy=0.5, test_accuracy=0.625) for r in range(2)]
    for run, (estimator, arrays, values, n_runs, random_state) in enumerate(seen):
        rng = _stream(4, 2, 1, run)                               # stream 2: Table 6
        rows = exp.split(y, rng)
        data = exp.Run(X, y, rows)
        assert (type(estimator).__name__, estimator.strategy) == ("DEELMSSCPlus", "best/2")
        assert estimator.random_state == int(rng.integers(2**31 - 1))
        assert (values, n_runs, random_state) == (s["grid_values"], 1,
                                                  int(rng.integers(2**31 - 1)))
        for got, want in zip(arrays, (data.X_semi, data.y_semi, data.X_val, data.y_val,
                                      data.X_test, data.y_test)):
            np.testing.assert_array_equal(got, want)


@pytest.mark.mutant
def test_strategy_selection_votes_on_D_of_the_first_main_split(monkeypatch):
    from fastelm.deelm_ssc import DEELMSSC
    seen = []

    class Selection:
        strategy = "best/1"

    def vote_strategy(self, X, y, random_state=None):
        seen.append((self, X, y, random_state))
        return Selection()
    monkeypatch.setattr(DEELMSSC, "vote_strategy", vote_strategy)
    X, y = _xy()
    s = exp.settings(quick=True, overrides={"selection_repeats": {"vote": 9}})
    out = exp.select_strategies("wdbc", X, y, 4, s)
    assert list(out) == ["DE-ELM-SSC", "DE-ELM-SSC+"]
    L, V, _, _ = exp.split(y, _stream(4, 0, 3, 0))                # run 0 of the main stream
    D = np.concatenate([L, V])
    for k, (model, Xd, yd, rng) in enumerate(seen):
        assert type(model).__name__ == ("DEELMSSC", "DEELMSSCPlus")[k]
        assert model.n_selection_repeats == 5
        assert model.random_state == int(_stream(4, 5, k).integers(2**31 - 1))
        np.testing.assert_allclose(Xd, exp.standardise(X, D)[D])
        np.testing.assert_array_equal(yd, y[D])
        assert rng.integers(2**31) == _stream(4, 5, 3, k).integers(2**31)
    seen.clear()
    exp.select_strategies("vote", X, y, 4, s)
    assert [model.n_selection_repeats for model, *_ in seen] == [9, 9]


@pytest.mark.mutant
def test_run_passes_its_options_on(monkeypatch, tmp_path):
    seen, threads = [], []

    def _run(names, s, out_dir, seed, quick, data_home, progress, strict=False):
        seen.append(dict(names=names, s=s, seed=seed, quick=quick, progress=progress,
                         strict=strict))
        return "done"

    class Limit:
        def __init__(self, n):
            threads.append(n)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False
    monkeypatch.setattr(_reproduce, "_run", _run)
    monkeypatch.setattr(_reproduce, "limit_threads", Limit)
    out = str(tmp_path / "o")
    assert exp.run(out_dir=out) == "done"
    assert seen[-1] == dict(names=exp.DATASETS, s=exp.settings(), seed=0, quick=False,
                            progress=True, strict=False) and threads[-1] is None
    exp.run(True, out, datasets=["vote"])
    assert (seen[-1]["names"], seen[-1]["strict"], threads[-1]) == (("vote",), True, 1)
    exp.run(True, out, threads=2)
    exp.run(False, out, threads=3)
    assert threads[-2:] == [2, 3]
    with pytest.raises(ValueError, match=r"^unknown data set 'iris'; choose from \('austr"):
        exp.run(out_dir=out, datasets=["vote", "iris"])


@pytest.mark.mutant
def test_run_body_runs_each_section_on_its_data_set(monkeypatch, tmp_path):
    """``_run``: Tables 3-4 and selection on every set, Table 5 on the share sets, Table 6 and
    Figs. 3-4 on theirs, the raw-input ablation on Australian (ordinal, unscaled, 20% / 80%,
    stream 4, its run count); the timings of each step measured."""
    calls, loads = [], []

    def load(name, data_home, subsample, seed, categorical="onehot"):
        loads.append((name, data_home, subsample, seed, categorical))
        time.sleep(0.02)
        return _xy()

    def section(kind):
        def run_section(name, X, y, strategies, s, seed, show, **kwargs):
            calls.append((kind, name, strategies, seed, show, kwargs))
            return [kind + ":" + name]
        return run_section

    def select(name, X, y, seed, s):
        class Selection:
            strategy = "rand/1"
        return {"DE-ELM-SSC": Selection(), "DE-ELM-SSC+": Selection()}

    for kind, attr in (("main", "main_table"), ("share", "share_table"),
                       ("grid", "grid_table"), ("nh", "hidden_table")):
        monkeypatch.setattr(_reproduce, attr, section(kind))
    monkeypatch.setattr(_reproduce, "load", load)
    monkeypatch.setattr(_reproduce, "select_strategies", select)
    monkeypatch.setattr(_reproduce, "write_outputs", lambda *args: args)
    s = exp.settings(runs=2, overrides={"subsample": {"vote": 30}, "ablation_runs": 3,
                                        "share_datasets": ("cancer", "wdbc"),
                                        "grid_dataset": "mushroom", "nh_dataset": "cancer"})
    start = time.perf_counter()
    out_dir, rec, selections, s_out, seed, quick, timings, skipped = _reproduce._run(
        exp.DATASETS, s, str(tmp_path), 6, False, "data", False)
    elapsed = time.perf_counter() - start
    assert [c[:2] for c in calls] == [
        ("main", "australian"), ("share", "australian"),
        ("main", "cancer"), ("share", "cancer"), ("nh", "cancer"),
        ("main", "vote"), ("main", "wdbc"), ("share", "wdbc"),
        ("main", "mushroom"), ("grid", "mushroom")]
    assert calls[1][2:] == ({"DE-ELM-SSC": "rand/1", "DE-ELM-SSC+": "rand/1"}, 6, False,
                            dict(methods=("ELM", "Tri-DE-ELM", "DE-ELM-SSC+"), scale=False,
                                 shares=(0.2, 0.8), stream=4, n=3))
    assert calls[3][5] == {}
    assert rec == {"main": ["main:" + n for n in exp.DATASETS],
                   "share": ["share:cancer", "share:wdbc"], "grid": ["grid:mushroom"],
                   "nh": ["nh:cancer"], "ablation": ["share:australian"]}
    assert loads == [(n, "data", 30 if n == "vote" else None, 6, "onehot")
                     for n in exp.DATASETS] + [("australian", "data", None, 6, "ordinal")]
    assert (s_out, seed, quick, skipped) == (s, 6, False, {})
    assert list(selections) == list(exp.DATASETS)
    assert sorted(timings) == sorted(
        [f"{exp.LABELS[n]}: {step}" for n in exp.DATASETS
         for step in ("strategy selection", "tables 3-4")]
        + ["Australian: raw-input ablation", "Cancer: table 5", "Wdbc: table 5",
           "Cancer: figs 3-4", "Mushroom: table 6"])
    for key, seconds in timings.items():
        assert 0 <= seconds <= elapsed, key
        if key.endswith("strategy selection") or key.endswith("ablation"):
            assert seconds >= 0.02, key                           # the load is counted
    # no ablation when its run count is 0; the hidden-node sweep stays on an available set
    calls.clear()
    _reproduce._run(("vote", "australian"), dict(s, ablation_runs=0, nh_dataset="vote"),
                    str(tmp_path), 6, False, "data", False)
    assert [c[:2] for c in calls] == [("main", "vote"), ("nh", "vote"), ("main", "australian")]


@pytest.mark.mutant
def test_merge_and_rewrite_refuse_what_they_cannot_combine(tmp_path):
    import json
    a = _fake_source(tmp_path / "a", "vote", 2)
    result = exp.merge(str(tmp_path / "one"), [a])                # a single source
    assert [r["dataset"] for r in result["rows"]["table3_4_accuracy"]] == ["Vote"] * 5
    (tmp_path / "m").mkdir()
    b = _fake_source(tmp_path / "b", "wdbc", 2)
    exp.merge(str(tmp_path / "m"), [a, b])                        # into an existing folder
    for key, value in (("seed", 1), ("quick", True)):
        c = _fake_source(tmp_path / f"c-{key}", "cancer", 2)
        with open(os.path.join(c, "records.json")) as f:
            saved = json.load(f)
        saved[key] = value
        with open(os.path.join(c, "records.json"), "w") as f:
            json.dump(saved, f)
        for sources in ([a, c], [c, a]):
            with pytest.raises(ValueError, match="same seed and mode"):
                exp.merge(str(tmp_path / "x"), sources)
    with pytest.raises(ValueError) as info:
        exp.merge(str(tmp_path / "x"), [a, b, a])
    assert str(info.value) == "data sets in more than one source: {'vote'}"
    # without Table 6's data set in any source, the first source's settings are reported
    d = _fake_source(tmp_path / "d", "cancer", 3)
    assert _reproduce._reported_settings([d, a])["runs"] == 3
    assert _reproduce._reported_settings([a, d])["runs"] == 2
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "records.json").write_text("{not json")
    with pytest.raises(ValueError, match=r"records\.json: not a records\.json written by a run"):
        exp.rewrite(str(bad))
    with pytest.raises(FileNotFoundError, match="no records.json there"):
        exp.rewrite(str(tmp_path))


@pytest.mark.mutant
@pytest.mark.filterwarnings("ignore:.*found in sys.modules:RuntimeWarning")  # runpy, re-run
def test_command_line_defaults_and_entry_points(run_seen, monkeypatch, tmp_path, capsys):
    import argparse
    import runpy
    import sys
    seen = run_seen
    out = str(tmp_path / "o")
    assert exp.main(["--out", out]) == 0
    assert seen == dict(quick=False, out_dir=os.path.join(out, "incomplete-run"), seed=0,
                        runs=None, data_home=None, progress=True, mushroom_runs=None,
                        datasets=None, threads=None, overrides=None)
    assert exp.main(["--settings", "[1]", "--out", out]) == 2
    assert "argument --settings: expected a JSON object of settings" in capsys.readouterr().err
    parser = argparse.ArgumentParser(prog="fastelm reproduce de-elm-ssc")
    assert _reproduce.build_parser(parser) is parser
    assert parser.parse_args(["--quick"]).quick is True
    monkeypatch.setattr(sys, "argv", ["reproduce.py", "--help"])
    with pytest.raises(SystemExit) as info:          # python -m ...de_elm_ssc.reproduce
        runpy.run_module("fastelm.experiments.de_elm_ssc.reproduce", run_name="__main__")
    assert info.value.code == 0
    assert "--mushroom-runs" in capsys.readouterr().out
