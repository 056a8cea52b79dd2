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


# ---------------------------------------------------------------------------------------------
# kill-tests of the mutation run of protocol.py and reproduce.py (mutation/RESULTS.md)

# the settings of the published full run, docs/results/fos-elm/notes.md ("Settings"): data set,
# train/test rows, L0, alpha, delta_rel, min nodes, initial chunk, chunk
PUBLISHED_SETTINGS = {
    "friedman2": ("regression", 5000, 5000, 200, 0.1, 0.4, 10, 1000, 500),
    "concrete": ("regression", 730, 300, 150, 1.0, 0.2, 10, 150, 100),
    "pima": ("classification", 576, 192, 100, 10.0, 1.0, 10, 120, 50),
    "satimage": ("classification", 4435, 2000, 400, 0.1, 0.5, 10, 900, 400),
    "segment": ("classification", 1500, 810, 200, 1.0, 0.5, 10, 300, 200),
}
SETTING_KEYS = ("task", "n_train", "n_test", "n_hidden", "alpha", "delta_rel", "min_nodes",
                "initial", "chunk")


@pytest.mark.mutant
def test_config_is_the_published_setting_and_its_search_grid():
    """CONFIG (and configs() by default: the full run) is the setting of the published results,
    Friedman #2's noise sd is 125 (the package docstring), and each tuned alpha / delta_rel is a
    point of the search grid ALPHAS / DELTA_RELS that ``--tune`` walks."""
    assert exp.FRIEDMAN_NOISE == 125.0
    assert exp.ALPHAS == (1e-3, 1e-2, 1e-1, 1.0, 10.0)
    assert exp.DELTA_RELS == (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)
    assert (exp.FULL_REPEATS, exp.QUICK_REPEATS) == (20, 3)  # docs: 20 repeats; --quick: 3
    assert list(exp.CONFIG) == list(exp.DATASETS)
    for name, cfg in exp.configs().items():  # the default is the full run, L0 not halved
        assert tuple(cfg[k] for k in SETTING_KEYS) == PUBLISHED_SETTINGS[name], name
        assert cfg["delta"] == cfg["delta_rel"] / cfg["n_hidden"]
        assert cfg["alpha"] in exp.ALPHAS and cfg["delta_rel"] in exp.DELTA_RELS
    for name, cfg in exp.CONFIG.items():
        assert tuple(cfg[k] for k in SETTING_KEYS) == PUBLISHED_SETTINGS[name], name


@pytest.mark.mutant
def test_load_reads_every_set_from_data_home_but_draws_friedman2(monkeypatch):
    """_load: Friedman #2 is synthetic (None, nothing read); every other set comes from
    load_dataset with the run's data_home."""
    from fastelm.experiments.fos_elm import protocol

    calls = []

    def load_dataset(name, data_home=None):
        calls.append((name, data_home))
        return ("bunch", name)

    monkeypatch.setattr(protocol._datasets, "load_dataset", load_dataset)
    loaded = {name: protocol._load(name, "DIR") for name in exp.DATASETS}
    assert loaded == {"friedman2": None, **{n: ("bunch", n) for n in exp.DATASETS[1:]}}
    assert calls == [(n, "DIR") for n in exp.DATASETS[1:]]


@pytest.mark.mutant
def test_split_draws_friedman2_and_subsets_from_the_repeat_rng():
    """split's draws, recomputed from the repeat's generator: Friedman #2 is made afresh with
    the generator's seed below 2**31 (then the stream order); a data set without an official
    split is permuted (train: the first n_train rows, test: the next n_test), then the training
    rows get their stream order; an official split is kept, its test rows in their order."""
    from sklearn.datasets import make_friedman2
    from sklearn.utils import Bunch

    cfg = dict(n_train=30, n_test=20)
    Xtr, ytr, Xte, yte = exp.split("friedman2", None, cfg, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    X, y = make_friedman2(50, noise=125.0, random_state=int(rng.integers(2 ** 31)))
    order = rng.permutation(30)
    for got, want in zip((Xtr, ytr, Xte, yte), (X[:30][order], y[:30][order], X[30:], y[30:])):
        np.testing.assert_array_equal(got, want)

    X = np.arange(80 * 2, dtype=float).reshape(80, 2)
    bunch = Bunch(data=X, target=X[:, 0] / 2)  # exactly n_train + n_test rows: all are used
    for name in ("concrete", "pima", "segment"):
        Xtr, ytr, Xte, yte = exp.split(name, bunch, dict(n_train=60, n_test=20),
                                       np.random.default_rng(4))
        rng = np.random.default_rng(4)
        perm = rng.permutation(80)
        tr, te = perm[:60][rng.permutation(60)], perm[60:]
        np.testing.assert_array_equal(Xtr, X[tr])
        np.testing.assert_array_equal(Xte, X[te])
        np.testing.assert_array_equal(ytr, X[tr, 0] / 2)
        np.testing.assert_array_equal(yte, X[te, 0] / 2)
    official = Bunch(data=X[:60], target=X[:60, 0], data_test=X[60:], target_test=X[60:, 0])
    Xtr, ytr, Xte, yte = exp.split("satimage", official, dict(n_train=60, n_test=20),
                                   np.random.default_rng(5))
    order = np.random.default_rng(5).permutation(60)
    np.testing.assert_array_equal(Xtr, X[order])
    np.testing.assert_array_equal(Xte, X[60:])
    np.testing.assert_array_equal(yte, X[60:, 0])


@pytest.mark.mutant
def test_split_refuses_too_few_rows_and_an_official_split_of_another_size():
    """One-line errors: a set with fewer rows than n_train + n_test, and an official split whose
    sizes differ (either of them, larger or smaller) from the setting's."""
    import re

    from sklearn.utils import Bunch

    cfg = dict(n_train=60, n_test=20)
    X = np.zeros((79, 2))
    with pytest.raises(ValueError, match=re.escape("concrete: 79 rows, fewer than 60+20")):
        exp.split("concrete", Bunch(data=X, target=X[:, 0]), cfg, np.random.default_rng(0))
    for n_train, n_test in ((59, 20), (60, 21), (61, 20), (60, 19)):
        official = Bunch(data=np.zeros((n_train, 2)), target=np.zeros(n_train),
                         data_test=np.zeros((n_test, 2)), target_test=np.zeros(n_test))
        message = f"satimage: the official split has {n_train}/{n_test} rows, expected 60/20"
        with pytest.raises(ValueError, match=re.escape(message)):
            exp.split("satimage", official, cfg, np.random.default_rng(0))


@pytest.mark.mutant
def test_preprocess_leaves_class_labels_alone():
    """Classification targets are labels: not min-max scaled (regression=False)."""
    X = np.random.default_rng(0).normal(size=(6, 2))
    ytr, yte = np.array([1, 5, 2, 5, 1, 2]), np.array([2, 1, 5])
    _, ytr2, _, yte2 = exp.preprocess(X, ytr, X[:3], yte, regression=False)
    np.testing.assert_array_equal(ytr2, ytr)
    np.testing.assert_array_equal(yte2, yte)


class _Recorder:
    """A model that records what stream() feeds it."""

    def __init__(self):
        self.calls = []

    def partial_fit(self, X, y, **kwargs):
        self.calls.append((X[:, 0].tolist(), y.tolist(), kwargs))
        return self


@pytest.mark.mutant
def test_stream_feeds_the_initial_rows_then_chunks_in_order():
    """stream: ``initial`` rows (with ``classes`` on that first call only, none for a
    regressor), then chunks of ``chunk`` rows, the last one shorter, each row with its target."""
    X = np.arange(12.0).reshape(6, 2)
    y = 10 * X[:, 0]
    model = _Recorder()
    assert exp.stream(model, X, y, 3, 2, classes=[0, 1]) is model
    rows = [[0.0, 2.0, 4.0], [6.0, 8.0], [10.0]]
    assert model.calls == [(rows[0], [0.0, 20.0, 40.0], {"classes": [0, 1]}),
                           (rows[1], [60.0, 80.0], {}), (rows[2], [100.0], {})]
    model = _Recorder()
    exp.stream(model, X, y, 2, 3)
    assert model.calls == [([0.0, 2.0], [0.0, 20.0], {}),
                           ([4.0, 6.0, 8.0], [40.0, 60.0, 80.0], {}), ([10.0], [100.0], {})]


def _repeat_by_hand(bunch, cfg, seed):
    """One repeat of the protocol written out: the split, the scaling, the two seeds, the three
    models (FOS-ELM; OS-ELM of its initial layer; a fresh OS-ELM of its final size, W and b
    ~ U(-1, 1)) fed the same stream, their test scores and node counts."""
    from fastelm.elm import OSELMClassifier, OSELMRegressor
    from fastelm.fos_elm import FOSELMClassifier, FOSELMRegressor

    regression = cfg["task"] == "regression"
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(bunch.target))
    tr = perm[:cfg["n_train"]][rng.permutation(cfg["n_train"])]
    te = perm[cfg["n_train"]:cfg["n_train"] + cfg["n_test"]]
    Xtr, ytr, Xte, yte = bunch.data[tr], bunch.target[tr], bunch.data[te], bunch.target[te]
    mean, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    Xtr, Xte = (Xtr - mean) / sd, (Xte - mean) / sd
    if regression:
        lo, hi = ytr.min(), ytr.max()
        ytr, yte = (ytr - lo) / (hi - lo), (yte - lo) / (hi - lo)
    seed_layer, seed_fresh = rng.integers(2 ** 63, size=2)
    common = dict(alpha=cfg["alpha"], weight_scale=1.0)
    FOS, OS = (FOSELMRegressor, OSELMRegressor) if regression else (FOSELMClassifier,
                                                                     OSELMClassifier)
    fos = FOS(n_hidden=cfg["n_hidden"], delta=cfg["delta"], min_nodes=cfg["min_nodes"],
              random_state=int(seed_layer), **common)
    models = {"FOS-ELM": fos,
              "OS-ELM (L0)": OS(n_hidden=cfg["n_hidden"], random_state=int(seed_layer), **common)}
    first = {} if regression else {"classes": np.unique(np.concatenate([ytr, yte]))}
    records = []
    for label in exp.MODELS:
        if label == "OS-ELM (final L)":
            models[label] = OS(n_hidden=fos.W_.shape[1], random_state=int(seed_fresh), **common)
        model = models[label]
        model.partial_fit(Xtr[:cfg["initial"]], ytr[:cfg["initial"]], **first)
        for start in range(cfg["initial"], cfg["n_train"], cfg["chunk"]):
            model.partial_fit(Xtr[start:start + cfg["chunk"]], ytr[start:start + cfg["chunk"]])
        pred = model.predict(Xte)
        score = np.sqrt(np.mean((yte - pred) ** 2)) if regression else np.mean(pred == yte)
        records.append({"data set": exp.LABELS[{True: "concrete", False: "segment"}[regression]],
                        "model": label, "metric": "RMSE" if regression else "accuracy",
                        "score": pytest.approx(score, rel=1e-9, abs=1e-12),
                        "nodes": model.W_.shape[1]})
    return records, list(fos.n_nodes_history_)


@pytest.mark.mutant
@pytest.mark.parametrize("task", ["regression", "classification"])
def test_run_repeat_is_the_protocol_written_out(task):
    """run_repeat's records (score, nodes, metric, labels), FOS-ELM's node history and the
    training times equal one repeat done by hand with the estimators."""
    import time

    rng = np.random.default_rng(11)
    X = rng.normal(size=(150, 4))
    if task == "regression":
        name, y = "concrete", np.sin(2 * X[:, 0]) + X[:, 1] ** 2 + 0.1 * rng.normal(size=150)
    else:
        name, y = "segment", (X[:, 0] > 0).astype(int) + (X[:, 1] > 0.5).astype(int)
    from sklearn.utils import Bunch

    bunch = Bunch(data=X, target=y)
    cfg = dict(task=task, n_train=100, n_test=40, n_hidden=16, alpha=0.1, delta=1.0 / 16,
               min_nodes=3, initial=30, chunk=25)
    start = time.perf_counter()
    records, history, seconds = exp.run_repeat(name, bunch, cfg, np.random.default_rng(12))
    elapsed = time.perf_counter() - start
    want, want_history = _repeat_by_hand(bunch, cfg, 12)
    assert records == want
    assert history == want_history and len(history) == 4 and history[0] == 16
    assert 3 <= records[0]["nodes"] < 16  # pruned: the fresh OS-ELM is smaller than L0
    assert list(seconds) == list(exp.MODELS)
    assert all(0 <= s <= elapsed for s in seconds.values())


# tune's rule on made-up validation scores (RMSE for Concrete, accuracy for the others), five
# repeats each: OS-ELM (L0) per alpha, then FOS-ELM per delta_rel at the chosen alpha
TUNE_SCORES = {
    "concrete": {  # alpha 1.0: best mean (10.0 has the largest sd); threshold 0.5 + 0.5 sd
        ("OS", 0.1): [0.7] * 5, ("OS", 1.0): [0.4, 0.6, 0.4, 0.6, 0.5],
        ("OS", 10.0): [0.3, 0.9, 0.3, 0.9, 0.6],
        ("FOS", 0.1): [0.48] * 5, ("FOS", 0.2): [0.52] * 5,  # within half a sd: 0.2 chosen
        ("FOS", 0.3): [0.6] * 5, ("FOS", 0.5): [3.0] * 5},  # within 1.5 sd; far out
    "segment": {  # alphas 0.1 and 1.0 tie: the larger; sd 0, so 0.1 is exactly at the bound
        ("OS", 0.1): [0.75] * 5, ("OS", 1.0): [0.75] * 5, ("OS", 10.0): [0.5] * 5,
        ("FOS", 0.1): [0.75] * 5, ("FOS", 0.2): [0.5] * 5, ("FOS", 0.3): [0.5] * 5,
        ("FOS", 0.5): [0.25] * 5},
    "pima": {  # all alphas tie (10.0); no delta_rel keeps the score: 0
        **{("OS", a): [0.8] * 5 for a in (0.1, 1.0, 10.0)},
        **{("FOS", d): [0.5] * 5 for d in (0.1, 0.2, 0.3, 0.5)}},
}
TUNE_NODES = {0.1: 7, 0.2: 6, 0.3: 5, 0.5: 4}  # FOS-ELM's final nodes per delta_rel (L0 = 8)


@pytest.mark.mutant
def test_tune_streams_the_fit_rows_and_applies_its_rule(monkeypatch):
    """tune with its defaults (seed 0, 5 repeats, the last 25% of each training stream for
    validation, progress bars): each fold streams the first 30 of 40 training rows in the data
    set's initial chunk then 5 chunks (as many as 40 rows in chunks of 7 make), with the fold's
    seed as both models' random_state and the labels of the fit and validation rows as classes;
    alpha: the best mean validation score of OS-ELM (L0) (ties: the larger alpha), delta_rel:
    the largest whose FOS-ELM mean is at least OS-ELM's mean less half its sd (0 if none).
    Models are not fitted here: stream and _score are stand-ins that check what they get."""
    from sklearn.utils import Bunch

    from fastelm.experiments.fos_elm import protocol

    tasks = {"concrete": "regression", "segment": "classification", "pima": "classification"}
    for name, task in tasks.items():
        monkeypatch.setitem(protocol.CONFIG, name, dict(
            task=task, n_train=40, n_test=10, n_hidden=8, alpha=1.0, delta_rel=0.5,
            min_nodes=2, initial=9, chunk=7))
    X = np.random.default_rng(0).normal(size=(50, 3))
    targets = {"concrete": np.arange(50.0) ** 1.5, "segment": np.arange(50) % 3,
               "pima": np.arange(50) % 2}
    folds = {}  # name: [(fit targets, validation targets, seed)] of repeats 0..4 of seed 0
    for name in tasks:
        folds[name] = []
        for r in range(5):
            rng = np.random.default_rng(np.random.SeedSequence([0, exp.DATASETS.index(name), r]))
            tr = rng.permutation(50)[:40][rng.permutation(40)]
            y = targets[name][tr]
            folds[name].append((y[:30], y[30:], int(rng.integers(2 ** 63))))

    loaded, bars, seen = [], [], {}

    def load(name, data_home):
        loaded.append((name, data_home))
        return Bunch(data=X, target=targets[name])

    def key_of(model):
        if type(model).__name__.startswith("FOS"):
            (d,) = [d for d in TUNE_NODES if model.delta == d / 8]
            return "FOS", model.alpha, d
        return "OS", model.alpha, None

    def stream(model, Xf, yf, initial, chunk, classes=None):
        name = loaded[-1][0]
        key = (name, "stream") + key_of(model)
        r = seen[key] = seen.get(key, -1) + 1
        fit, val, seed = folds[name][r]
        assert model.n_hidden == 8 and model.random_state == seed
        assert Xf.shape == (30, 3)
        if tasks[name] == "regression":
            np.testing.assert_allclose(yf, (fit - fit.min()) / (fit.max() - fit.min()))
            assert classes is None
        else:
            np.testing.assert_array_equal(yf, fit)
            np.testing.assert_array_equal(classes, np.unique(np.concatenate([fit, val])))
        sizes = [initial] + [len(yf[s:s + chunk]) for s in range(initial, len(yf), chunk)]
        assert sizes == [9, 5, 5, 5, 5, 1]
        kind, _, d = key_of(model)
        model.W_ = np.zeros((3, 8 if kind == "OS" else TUNE_NODES[d]))
        return model

    def score(model, Xv, yv, regression):
        name = loaded[-1][0]
        kind, alpha, d = key_of(model)
        key = (name, "score", kind, alpha, d)
        r = seen[key] = seen.get(key, -1) + 1
        fit, val, _ = folds[name][r]
        if tasks[name] == "regression":  # scaled with the fit rows' min and max
            np.testing.assert_allclose(yv, (val - fit.min()) / (fit.max() - fit.min()))
        else:
            np.testing.assert_array_equal(yv, val)
        assert Xv.shape == (10, 3) and regression == (tasks[name] == "regression")
        if kind == "FOS":
            assert alpha == {"concrete": 1.0, "segment": 1.0, "pima": 10.0}[name]
        return TUNE_SCORES[name][(kind, alpha if kind == "OS" else d)][r]

    monkeypatch.setattr(protocol, "_load", load)
    monkeypatch.setattr(protocol, "stream", stream)
    monkeypatch.setattr(protocol, "_score", score)
    monkeypatch.setattr(protocol, "progress_bar",
                        lambda it, desc, total, enabled: bars.append((desc, total, enabled)) or it)
    chosen = protocol.tune(names=list(tasks), alphas=(0.1, 1.0, 10.0),
                           delta_rels=(0.1, 0.2, 0.3, 0.5))

    assert {n: (c["alpha"], c["delta_rel"]) for n, c in chosen.items()} == {
        "concrete": (1.0, 0.2), "segment": (1.0, 0.1), "pima": (10.0, 0.0)}
    assert loaded == [(n, None) for n in tasks]
    assert bars == [(f"tune {n} {what}", total, True) for n in tasks
                    for what, total in (("alpha", 3), ("delta", 4))]
    assert set(seen.values()) == {4}  # every model streamed and scored on 5 folds
    for name, res in chosen.items():
        sign = -1.0 if name == "concrete" else 1.0  # scores: higher is better, -RMSE
        want = {}
        for a in (0.1, 1.0, 10.0):
            vals = sign * np.array(TUNE_SCORES[name][("OS", a)])
            want[("OS-ELM (L0)", a, 0.0)] = (np.mean(vals), np.std(vals), 8.0)
        for d in (0.1, 0.2, 0.3, 0.5):
            vals = sign * np.array(TUNE_SCORES[name][("FOS", d)])
            want[("FOS-ELM", res["alpha"], d)] = (np.mean(vals), np.std(vals), TUNE_NODES[d])
        assert list(res["scores"].items()) == list(want.items())


@pytest.mark.mutant
def test_tune_text_lists_the_choice_and_every_score():
    chosen = {"concrete": {"alpha": 1.0, "delta_rel": 0.2, "scores": {
        ("OS-ELM (L0)", 1.0, 0.0): (-0.5, 0.0894, 8.0), ("FOS-ELM", 1.0, 0.2): (-0.52, 0.0, 6.0)}},
        "pima": {"alpha": 10.0, "delta_rel": 0.0, "scores": {
            ("OS-ELM (L0)", 10.0, 0.0): (0.8, 0.0, 8.0)}}}
    assert exp.tune_text(chosen).splitlines() == [
        "concrete: alpha=1 delta_rel=0.2",
        "    OS-ELM (L0)  alpha=1      delta_rel=0     "
        "validation score -0.5000 ± 0.0894, 8.0 nodes",
        "    FOS-ELM      alpha=1      delta_rel=0.2   "
        "validation score -0.5200 ± 0.0000, 6.0 nodes",
        "pima: alpha=10 delta_rel=0",
        "    OS-ELM (L0)  alpha=10     delta_rel=0     "
        "validation score +0.8000 ± 0.0000, 8.0 nodes"]


def _draw(seed, name, r):
    """The first draw of repeat r's generator (SeedSequence [seed, index of the set, r])."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, exp.DATASETS.index(name), r]))
    return int(rng.integers(2 ** 63))


@pytest.fixture
def fake_repeats(monkeypatch):
    """run() with run_repeat, the plot and the progress bars replaced by recorders: no model is
    fitted. Returns the lists of calls ((name, L0, first draw of the repeat's generator)), of
    progress bars ((desc, total, enabled)) and the plot's return value to set."""
    from fastelm.experiments.fos_elm import reproduce

    calls, bars, plot = [], [], {"written": True}

    def run_repeat(name, bunch, cfg, rng):
        r = sum(c[0] == name for c in calls)
        calls.append((name, cfg["n_hidden"], int(rng.integers(2 ** 63))))
        records = [{"data set": exp.LABELS[name], "model": m, "metric": "RMSE",
                    "score": 0.5 + 0.125 * (r % 2), "nodes": cfg["n_hidden"] - (m != MODELS_L0)}
                   for m in exp.MODELS]
        return records, [cfg["n_hidden"], cfg["n_hidden"] - 1], {m: 0.25 for m in exp.MODELS}

    monkeypatch.setattr(reproduce, "run_repeat", run_repeat)
    monkeypatch.setattr(reproduce, "progress_bar",
                        lambda it, desc, total, enabled: bars.append((desc, total, enabled)) or it)
    monkeypatch.setattr(reproduce, "plot_nodes",
                        lambda histories, cfgs, path, quick=False: plot["written"])
    return calls, bars, plot


MODELS_L0 = "OS-ELM (L0)"


@pytest.mark.mutant
def test_run_defaults_to_the_full_run_of_seed_0_with_progress_bars(tmp_path, monkeypatch,
                                                                   fake_repeats):
    """run()'s defaults: full mode (L0 of CONFIG, 20 repeats, no quick heading), seed 0 (the
    repeats' generators), progress bars; a set whose files are missing is skipped with its
    reason in notes.md; the files written are listed; the total time is a real duration."""
    import time

    from fastelm.datasets import DataNotFoundError
    from fastelm.experiments.fos_elm import reproduce

    calls, bars, _ = fake_repeats

    def load(name, data_home):
        if name == "concrete":
            raise DataNotFoundError("no concrete here\nsecond line")
        return None

    monkeypatch.setattr(reproduce, "_load", load)
    out = tmp_path / "full"
    start = time.perf_counter()
    result = exp.run(out_dir=str(out), datasets=["friedman2", "concrete"])
    elapsed = time.perf_counter() - start
    assert calls == [("friedman2", 200, _draw(0, "friedman2", r)) for r in range(20)]
    assert bars == [("FOS-ELM friedman2", 20, True)]
    assert list(result["configs"]) == ["friedman2"]
    assert {r["runs"] for r in result["rows"]} == {20}
    assert result["skipped"] == {"concrete": "no concrete here"}
    assert not (out / "results.md").read_text().startswith("**Quick mode**")
    notes = (out / "notes.md").read_text()
    assert "Mode: full; seed 0; 20 repeat(s) per data set." in notes
    assert notes.endswith("## Data sets not available (skipped)\n" + notes.split(
        "## Data sets not available (skipped)\n", 1)[1])
    assert "\n- Concrete: no concrete here\n" in notes
    stem = str(out / "results")
    assert result["files"] == [stem + ".md", stem + ".csv", str(out / "nodes.png"),
                               str(out / "notes.md"), str(out / "timings.md")]
    assert 0 <= result["seconds"] <= elapsed
    np.testing.assert_array_equal(result["histories"]["friedman2"], [[200, 199]] * 20)


@pytest.mark.mutant
def test_run_quick_takes_3_repeats_and_refuses_fewer_than_one(tmp_path, fake_repeats):
    """Quick mode: L0 halved and 3 repeats of the given seed; no plot (matplotlib missing) is
    not a file of the run; no skipped set, no skipped section; repeats < 1 is refused."""
    calls, bars, plot = fake_repeats
    plot["written"] = False
    out = tmp_path / "quick"
    result = exp.run(quick=True, out_dir=str(out), seed=5, progress=False,
                     datasets=["friedman2"])
    assert calls == [("friedman2", 100, _draw(5, "friedman2", r)) for r in range(3)]
    assert bars == [("FOS-ELM friedman2", 3, False)]
    assert {r["runs"] for r in result["rows"]} == {3} and result["skipped"] == {}
    assert (out / "results.md").read_text().startswith("**Quick mode**")
    notes = (out / "notes.md").read_text()
    assert "Mode: quick; seed 5; 3 repeat(s) per data set." in notes
    assert "skipped" not in notes and not notes.endswith("\n\n\n")
    stem = str(out / "results")
    assert result["files"] == [stem + ".md", stem + ".csv", str(out / "notes.md"),
                               str(out / "timings.md")]
    for repeats in (0, -1):
        with pytest.raises(ValueError, match=f"repeats must be >= 1, got {repeats}"):
            exp.run(quick=True, out_dir=str(tmp_path / "none"), repeats=repeats,
                    progress=False, datasets=["friedman2"])


@pytest.mark.mutant
def test_command_line_defaults_and_what_it_passes_on(tmp_path, monkeypatch, capsys,
                                                     fake_repeats):
    """The parser's defaults; --tune passes seed, 5 repeats unless --repeats, --data,
    --datasets and the progress switch to tune and prints its text (exit 0); a run gets
    progress bars unless --no-progress."""
    from fastelm.experiments.fos_elm import reproduce

    monkeypatch.chdir(tmp_path)  # a broken --tune must not write results/ where tests run
    args = reproduce.build_parser().parse_args([])
    assert vars(args) == dict(quick=False, out="results/fos-elm", seed=0, repeats=None,
                              data=None, datasets=None, tune=False, no_progress=False)
    tuned = []
    chosen = {"pima": {"alpha": 10.0, "delta_rel": 0.0, "scores": {}}}
    monkeypatch.setattr(reproduce, "tune", lambda **kw: tuned.append(kw) or chosen)
    capsys.readouterr()
    assert exp.main(["--tune"]) == 0
    assert capsys.readouterr().out == exp.tune_text(chosen) + "\n"
    assert exp.main(["--tune", "--seed", "9", "--repeats", "2", "--data", str(tmp_path),
                     "--datasets", "pima", "segment", "--no-progress"]) == 0
    assert tuned == [dict(seed=0, repeats=5, data_home=None, names=None, progress=True),
                     dict(seed=9, repeats=2, data_home=str(tmp_path), names=["pima", "segment"],
                          progress=False)]

    calls, bars, _ = fake_repeats
    base = ["--quick", "--datasets", "friedman2", "--repeats", "1", "--seed", "3"]
    assert exp.main(base + ["--out", str(tmp_path / "a")]) == 0
    assert exp.main(base + ["--out", str(tmp_path / "b"), "--no-progress"]) == 0
    assert bars == [("FOS-ELM friedman2", 1, True), ("FOS-ELM friedman2", 1, False)]
    assert calls == [("friedman2", 100, _draw(3, "friedman2", 0))] * 2
    out = capsys.readouterr().out
    assert "wrote " + ", ".join(str(tmp_path / "b" / f) for f in (
        "results.md", "results.csv", "nodes.png", "notes.md", "timings.md")) in out
