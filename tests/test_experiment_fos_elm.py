import csv

import numpy as np
import pytest

from fastelm.datasets import available_datasets
from fastelm.experiments import fos_elm as exp

TINY = {
    "friedman2": dict(n_train=400, n_test=200, n_hidden=24, initial=80, chunk=80),
    "pima": dict(n_hidden=24, initial=96, chunk=96),
}


def _tiny_sets():
    return ["friedman2"] + (["pima"] if available_datasets()["pima"][0] != "missing" else [])


def _run(out, names, **kw):
    return exp.run(quick=True, out_dir=str(out), seed=7, repeats=2, progress=False,
                   datasets=names, config=TINY, **kw)


def test_tiny_run_writes_table_plot_notes_and_is_deterministic(tmp_path):
    names = _tiny_sets()
    a = _run(tmp_path / "a", names)
    b = _run(tmp_path / "b", names)
    for f in ("results.md", "results.csv", "notes.md", "timings.md", "nodes.png"):
        assert (tmp_path / "a" / f).is_file()
    for f in ("results.md", "results.csv", "notes.md"):  # timings.md holds wall-clock times
        assert (tmp_path / "a" / f).read_bytes() == (tmp_path / "b" / f).read_bytes()

    with open(tmp_path / "a" / "results.csv") as f:
        table = list(csv.DictReader(f))
    expected = [(exp.LABELS[n], m) for n in names for m in exp.MODELS]
    assert [(r["data set"], r["model"]) for r in table] == expected
    assert {r["runs"] for r in table} == {"2"}
    assert a["rows"] == b["rows"] and len(a["rows"]) == 3 * len(names)
    text = (tmp_path / "a" / "results.md").read_text()
    assert text.startswith("**Quick mode**")  # a quick table says so in its heading
    assert text.count("\n") == 2 + 2 + 3 * len(names)

    for name in names:
        cfg = a["configs"][name]
        assert cfg["delta"] == pytest.approx(cfg["delta_rel"] / 24)
        rows = {r["model"]: r for r in a["rows"] if r["data set"] == exp.LABELS[name]}
        assert rows["OS-ELM (L0)"]["nodes_mean"] == 24 and rows["OS-ELM (L0)"]["nodes_std"] == 0
        assert rows["FOS-ELM"]["nodes_mean"] == rows["OS-ELM (final L)"]["nodes_mean"] <= 24
        hist = a["histories"][name]
        n_chunks = 1 + -(-(cfg["n_train"] - cfg["initial"]) // cfg["chunk"])
        assert hist.shape == (2, n_chunks) and np.all(hist[:, 0] == 24)
        assert np.all(np.diff(hist, axis=1) <= 0)
        metric = rows["FOS-ELM"]["metric"]
        assert metric == ("RMSE" if name == "friedman2" else "accuracy")
        assert 0 < rows["FOS-ELM"]["score_mean"] < 1
    # the claim's verdict recomputed from the table, and the notes saying that verdict
    held = []
    for name in names:
        rows = {r["model"]: r for r in a["rows"] if r["data set"] == exp.LABELS[name]}
        fos, base = rows["FOS-ELM"], rows["OS-ELM (L0)"]
        gap = (1.0 if fos["metric"] == "RMSE" else -1.0) * (fos["score_mean"] - base["score_mean"])
        check = a["checks"][name]
        assert check["fewer_nodes"] == (fos["nodes_mean"] < 24)
        assert check["within_one_sd"] == (gap <= base["score_std"])
        assert check["holds"] == (check["fewer_nodes"] and check["within_one_sd"])
        held += [exp.LABELS[name]] if check["holds"] else []
    notes = (tmp_path / "a" / "notes.md").read_text()
    verdict = f"The claim holds on {len(held)} of {len(names)} data set(s)"
    assert verdict + (f": {', '.join(held)}." if held else ".") in notes


def test_seed_changes_the_results(tmp_path):
    a = exp.run(quick=True, out_dir=str(tmp_path / "a"), seed=1, repeats=1, progress=False,
                datasets=["friedman2"], config=TINY)
    b = exp.run(quick=True, out_dir=str(tmp_path / "b"), seed=2, repeats=1, progress=False,
                datasets=["friedman2"], config=TINY)
    assert a["rows"][0]["score_mean"] != b["rows"][0]["score_mean"]


def test_preprocess_uses_training_statistics_only():
    rng = np.random.default_rng(0)
    Xtr, Xte = rng.normal(3, 2, (50, 3)), rng.normal(3, 2, (20, 3))
    Xtr[:, 1] = 5.0  # a constant column stays finite
    ytr, yte = rng.uniform(10, 20, 50), rng.uniform(5, 25, 20)
    Xtr2, ytr2, Xte2, yte2 = exp.preprocess(Xtr, ytr, Xte, yte, regression=True)
    assert np.allclose(Xtr2.mean(0), 0) and np.all(np.isfinite(Xte2))
    assert np.allclose(Xtr2[:, [0, 2]].std(0), 1) and np.all(Xtr2[:, 1] == 0)
    assert ytr2.min() == 0 and ytr2.max() == 1
    assert np.allclose(yte2, (yte - ytr.min()) / (ytr.max() - ytr.min()))


@pytest.mark.mutant
def test_split_keeps_each_row_with_its_target():
    """The training rows are put in a random stream order: their targets follow them, on a
    drawn split and on an official one (planted: ``ytr`` returned unpermuted)."""
    from sklearn.utils import Bunch

    from fastelm.experiments.fos_elm.protocol import split

    X = np.random.default_rng(0).standard_normal((90, 3))
    cfg = dict(n_train=60, n_test=20)
    drawn = Bunch(data=X, target=10.0 * X[:, 0])
    official = Bunch(data=X[:60], target=10.0 * X[:60, 0], data_test=X[60:80],
                     target_test=10.0 * X[60:80, 0])
    for name, bunch in (("pima", drawn), ("satimage", official)):
        Xtr, ytr, Xte, yte = split(name, bunch, cfg, np.random.default_rng(1))
        assert (len(ytr), len(yte)) == (60, 20)
        np.testing.assert_array_equal(ytr, 10.0 * Xtr[:, 0])
        np.testing.assert_array_equal(yte, 10.0 * Xte[:, 0])
        assert not np.array_equal(Xtr, X[:60])  # shuffled


def test_configs_quick_halves_l0_and_rejects_unknown_sets():
    full, quick = exp.configs(False), exp.configs(True)
    assert list(full) == list(exp.DATASETS)
    for name in exp.DATASETS:
        assert quick[name]["n_hidden"] == round(full[name]["n_hidden"] / 2)
        assert full[name]["initial"] >= full[name]["n_hidden"]  # overdetermined first chunk
        assert quick[name]["delta"] == pytest.approx(quick[name]["delta_rel"]
                                                     / quick[name]["n_hidden"])
    with pytest.raises(ValueError, match="unknown data sets"):
        exp.configs(False, ["nope"])


def test_main_cli(tmp_path, capsys):
    assert exp.main(["--quick", "--datasets", "friedman2", "--repeats", "1", "--seed", "3",
                     "--out", str(tmp_path), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "FOS-ELM" in out and "claim" in out and (tmp_path / "results.md").is_file()


@pytest.mark.slow
def test_quick_mode_end_to_end(tmp_path):
    result = exp.run(quick=True, out_dir=str(tmp_path), progress=False)
    assert len(result["rows"]) == 3 * len(exp.DATASETS)
    assert all(r["runs"] == exp.QUICK_REPEATS for r in result["rows"])
    for f in ("results.md", "results.csv", "notes.md", "nodes.png", "timings.md"):
        assert (tmp_path / f).is_file()
    # every set is pruned in quick mode
    assert all(c["fewer_nodes"] for c in result["checks"].values())


def test_one_repeat_notes_do_not_claim_a_spread(tmp_path):
    """A single repeat: the tables show the value alone (no '± 0.0000') and the notes do not
    test 'within one sd' against a zero sd."""
    result = exp.run(quick=True, out_dir=str(tmp_path), repeats=1, datasets=["friedman2"],
                     progress=False)
    notes = (tmp_path / "notes.md").read_text()
    assert "± 0.0000" not in notes and "± 0.0000" not in result["table"]
    assert "n/a (1 run)" in notes and "cannot be tested" in notes
    assert "The claim holds on" not in notes


def test_interrupted_rerun_keeps_the_previous_outputs(tmp_path, monkeypatch, capsys):
    """Issue 25 item 7: Ctrl-C while a rerun with another seed writes its outputs (after
    results.md/.csv, before timings.md) leaves every file of the first run as it was, and the
    new run's partial files in incomplete-run/; a rerun that completes replaces them all."""
    from fastelm.experiments.fos_elm import reproduce

    real_configs, real_timings = reproduce.configs, reproduce.timings_text
    monkeypatch.setattr(reproduce, "configs",
                        lambda quick, names, config: real_configs(quick, names, TINY))
    argv = ["--quick", "--datasets", "friedman2", "--repeats", "1", "--out", str(tmp_path),
            "--no-progress"]
    assert exp.main(argv + ["--seed", "3"]) == 0
    names = ("results.md", "results.csv", "notes.md", "timings.md")
    before = {name: (tmp_path / name).read_text() for name in names}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(reproduce, "timings_text", interrupted)
    assert exp.main(argv + ["--seed", "4"]) == 130
    assert {name: (tmp_path / name).read_text() for name in names} == before
    partial = tmp_path / "incomplete-run"
    seed4 = (partial / "results.md").read_text()
    assert seed4 != before["results.md"]  # the new seed's table
    monkeypatch.setattr(reproduce, "timings_text", real_timings)
    assert exp.main(argv + ["--seed", "4"]) == 0
    assert not partial.exists()
    assert (tmp_path / "results.md").read_text() == seed4
    assert "seed 4" in (tmp_path / "notes.md").read_text()
