"""The BLS-fMRI reproduction (Liu & Ji 2021): the CV protocol, the outputs, and the 'done when'
checks on generated subjects (a real group effect is found, no effect gives chance)."""
import csv
import os
import subprocess
import sys

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_classification
from sklearn.ensemble import RandomForestClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from fastelm.bls import BLSClassifier
from fastelm.experiments import bls_fmri as exp
from fastelm.fmri import make_synthetic_abide, read_roi_file
from fastelm.metrics import classification_report_dict


def _cheap_models():
    """The five roles with small settings, for tests of the plumbing."""
    return {
        "BLS": BLSClassifier(n_enhancement=200, preprocessing="reference"),
        "linear SVM": make_pipeline(StandardScaler(), SVC(kernel="linear")),
        "RF": RandomForestClassifier(n_estimators=5),
        "KNN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "DNN": make_pipeline(StandardScaler(), MLPClassifier((16,), max_iter=100)),
    }


TINY = dict(n_subjects=24, n_rois=8, lengths=(30, 40), n_splits=3, n_repeats=1, dnn_max_iter=3,
            bls_params=dict(n_enhancement=50))


class Spy(ClassifierMixin, BaseEstimator):
    """Records the first column (a row id) of every training set; predicts class 0."""

    seen = []

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        Spy.seen.append((X[:, 0].astype(int).copy(), self.random_state))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.classes_[0])


# ------------------------------------------------------------------------------------------
# the protocol


def test_default_models_are_the_papers():
    models = exp.default_models()
    assert list(models) == list(exp.MODELS)
    bls = models["BLS"].get_params()
    assert (bls["n_windows"], bls["nodes_per_window"], bls["n_enhancement"]) == (10, 10, 2000)
    assert bls["shrink"] == 0.8 and bls["reg"] == 2.0 ** -30
    assert bls["preprocessing"] == "reference"
    assert models["DNN"][-1].hidden_layer_sizes == (1000, 600)
    assert models["linear SVM"][-1].kernel == "linear"
    assert isinstance(models["linear SVM"][0], StandardScaler)
    assert isinstance(models["KNN"][0], StandardScaler)
    assert exp.default_models(dnn_max_iter=7)["DNN"][-1].max_iter == 7


def _blobs(n=60, d=10, shift=2.0, seed=0):
    rng = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    X = rng.standard_normal((n, d))
    X[:, :3] += shift * y[:, None]
    return X, y


@pytest.mark.mutant
def test_run_splits_shows_its_progress_bar_unless_told_not_to(capsys):
    pytest.importorskip("tqdm")
    X, y = _blobs(n=20, d=4)
    splits = exp.cv_splits(y, None, 2, 1, 0)
    models = {"KNN": KNeighborsClassifier(3)}
    for kw, shown in (({}, True), (dict(progress=False), False)):
        exp.run_splits(exp.FoldFeatures(matrices={"m": X}), ["m"], y, models, splits,
                       warm_up=False, desc="splits of m", **kw)
        assert ("splits of m" in capsys.readouterr().err) is shown


@pytest.mark.mutant
def test_subject_matrix_refuses_an_unknown_kind_and_a_fold_kind():
    rng = np.random.default_rng(0)
    features = exp.FoldFeatures([rng.standard_normal((30, 4)) for _ in range(5)])
    # 'bogus' and 'Connectivity' sort before 'connectivity'; a tangent space fitted on every
    # subject, test subjects too, would leak them into training
    for kind in ("bogus", "Connectivity", "tangent"):
        with pytest.raises(ValueError, match=f"'{kind}' is not a per-subject kind"):
            features.subject_matrix(kind)
    assert features.matrices == {}


@pytest.mark.mutant
def test_run_refuses_an_empty_list_of_atlases(tmp_path):
    for atlas in ([], ()):
        with pytest.raises(ValueError, match="name at least one atlas"):
            exp.run(quick=True, out_dir=str(tmp_path / "out"), atlas=atlas, progress=False)
    assert not (tmp_path / "out").exists()


def test_evaluate_records_are_complete_and_deterministic():
    X, y = _blobs()
    kw = dict(n_splits=3, n_repeats=2, progress=False, threads=1)
    a = exp.evaluate(X, y, _cheap_models(), random_state=5, **kw)
    b = exp.evaluate(X, y, _cheap_models(), random_state=5, **kw)
    c = exp.evaluate(X, y, {"KNN": _cheap_models()["KNN"]}, random_state=6, **kw)
    assert len(a) == 3 * 2 * 5
    assert [(r["repeat"], r["fold"], r["model"]) for r in a[:6]] == \
        [(0, 0, m) for m in exp.MODELS] + [(0, 1, "BLS")]
    assert a[-1]["repeat"] == 1 and a[-1]["fold"] == 2
    for r in a:
        assert set(exp.METRICS) | {"train_time", "converged"} <= set(r)
        assert all(0.0 <= r[m] <= 1.0 for m in exp.METRICS) and r["train_time"] > 0
    clocks = ("train_time", "train_cpu")
    strip = [{k: v for k, v in r.items() if k not in clocks} for r in a]
    assert strip == [{k: v for k, v in r.items() if k not in clocks} for r in b]
    knn = [{k: v for k, v in r.items() if k not in clocks} for r in a if r["model"] == "KNN"]
    assert knn != [{k: v for k, v in r.items() if k not in clocks} for r in c]  # new folds
    # the data are easy: every model learns them
    for m in exp.MODELS:
        assert np.mean([r["accuracy"] for r in a if r["model"] == m]) > 0.7


def test_evaluate_metrics_follow_pos_label():
    X, y = make_classification(40, 5, random_state=1)
    recs = exp.evaluate(X, y, {"KNN": KNeighborsClassifier()}, 4, 1, 0, False)
    flipped = exp.evaluate(X, 1 - y, {"KNN": KNeighborsClassifier()}, 4, 1, 0, False,
                           pos_label=0)
    for r, f in zip(recs, flipped):
        for m in exp.METRICS:
            assert r[m] == pytest.approx(f[m])


class _Threshold(ClassifierMixin, BaseEstimator):
    """Predicts 1 where the first column is above ``cut``; fits nothing but the classes."""

    def __init__(self, cut=0.0, random_state=None):
        self.cut, self.random_state = cut, random_state

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return (X[:, 0] > self.cut).astype(int)


@pytest.mark.mutant
def test_evaluate_scores_each_fold_against_its_true_labels():
    """Each record's metrics are classification_report_dict(truth, predictions) of its test
    fold, with precision ≠ sensitivity so that their order shows (planted: the two arguments
    swapped, which leaves accuracy and the pos_label symmetry above unchanged)."""
    X, y = make_classification(60, 5, random_state=2)
    recs = exp.evaluate(X, y, {"cut": _Threshold(0.3)}, 4, 1, 0, False, warm_up=False)
    splits = exp.cv_splits(y, None, 4, 1, 0)
    for r, (_, test, _, _) in zip(recs, splits, strict=True):
        want = classification_report_dict(y[test], (X[test, 0] > 0.3).astype(int))
        for m in exp.METRICS:
            assert r[m] == pytest.approx(want[m]), m
    assert any(r["precision"] != pytest.approx(r["sensitivity"]) for r in recs)


def test_evaluate_folds_strata_and_reseeding():
    n = 48
    rng = np.random.default_rng(0)
    y = np.tile([0, 1], n // 2)
    site = np.repeat([0, 1, 2], n // 3)
    X = np.column_stack([np.arange(n), rng.standard_normal(n)])
    Spy.seen = []
    recs = exp.evaluate(X, y, {"spy": Spy(random_state=None)}, n_splits=4, n_repeats=2,
                        random_state=3, progress=False,
                        strata=np.char.add(site.astype(str), y.astype(str)), warm_up=False)
    assert len(recs) == 8 and len(Spy.seen) == 8
    for rows, _ in Spy.seen:  # every site × diagnosis cell split evenly: 4 per cell per fold
        assert len(rows) == 36
        for s in range(3):
            for label in (0, 1):
                assert np.sum((site[rows] == s) & (y[rows] == label)) == 6
    seeds = [seed for _, seed in Spy.seen]
    assert all(isinstance(s, int) for s in seeds) and len(set(seeds)) == 8
    # a repeat's folds partition the subjects
    tests = [np.setdiff1d(np.arange(n), rows) for rows, _ in Spy.seen[:4]]
    assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(n))
    # warm-up adds one untimed fit per model on 10 rows per class
    Spy.seen = []
    exp.evaluate(X, y, {"spy": Spy()}, 4, 1, 3, False)
    assert len(Spy.seen) == 5 and len(Spy.seen[0][0]) == 20


def test_reseed_reaches_pipeline_steps():
    model = exp.reseed(exp.default_models()["DNN"], 11)
    assert model[-1].random_state == 11
    assert exp.reseed(exp.default_models()["BLS"], 12).random_state == 12


def test_evaluate_rejects_bad_shapes():
    with pytest.raises(ValueError, match="2-D"):
        exp.evaluate(np.zeros(10), np.zeros(10), {"KNN": KNeighborsClassifier()})


def test_limit_threads_restores_numba_threads():
    import numba
    before = numba.get_num_threads()
    with exp.limit_threads(1):
        assert numba.get_num_threads() == 1
    assert numba.get_num_threads() == before


# ------------------------------------------------------------------------------------------
# 'done when': a real group effect is found, no effect gives chance


def _synthetic_pair(tmp_path, seed):
    """60 subjects, 16 ROIs, 60 time points, 2 sites; 'effect' with 4 effect pairs of size 1."""
    out = {}
    for name, effect in (("effect", 1.0), ("null", 0.0)):
        make_synthetic_abide(tmp_path / name, n_subjects=60, n_rois=16, lengths=60,
                             effect_size=effect, n_sites=2, n_effect_pairs=4,
                             random_state=seed)
        out[name] = tmp_path / name
    return out


def _accuracies(directory, features, seed):
    X, y, strata, _ = exp.load(directory, features)
    recs = exp.evaluate(X, y, exp.default_models(dnn_max_iter=10), n_splits=5, n_repeats=1,
                        random_state=seed, progress=False, strata=strata, warm_up=False,
                        threads=1)
    return {m: np.mean([r["accuracy"] for r in recs if r["model"] == m]) for m in exp.MODELS}


def _check_effect_and_null(tmp_path, seed):
    """BLS and the four comparators (paper settings; DNN capped at 10 epochs) on 60 subjects.

    Chance is 0.5 (balanced labels); two binomial sd over 60 subjects is 0.13. Designed on seeds
    0-7: with a group effect, connectivity accuracies were 0.68-1.00 per model (KNN the lowest)
    and 0.85-0.96 averaged over the models; without, 0.38-0.63 per model and 0.43-0.56
    averaged, on connectivity and on the flattened series alike.
    """
    data = _synthetic_pair(tmp_path, seed)
    effect = _accuracies(data["effect"], "connectivity", seed)
    assert min(effect.values()) > 0.65, effect
    assert np.mean(list(effect.values())) > 0.8, effect
    for features in ("connectivity", "timeseries"):
        null = _accuracies(data["null"], features, seed)
        assert all(0.3 < a < 0.7 for a in null.values()), (features, null)
        assert abs(np.mean(list(null.values())) - 0.5) < 0.1, (features, null)


def test_effect_found_and_null_at_chance(tmp_path):
    _check_effect_and_null(tmp_path, 0)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6, 7])
def test_effect_found_and_null_at_chance_more_seeds(tmp_path, seed):
    _check_effect_and_null(tmp_path, seed)


# ------------------------------------------------------------------------------------------
# run(): outputs, determinism, command line


def _run(out, seed=7, **kw):
    return exp.run(quick=True, out_dir=str(out), seed=seed, progress=False,
                   settings=dict(TINY, bls_params=None), models=_cheap_models(), **kw)


def test_run_writes_outputs_and_is_deterministic_apart_from_times(tmp_path):
    a = _run(tmp_path / "a")
    b = _run(tmp_path / "b")
    names = ("results.md", "results.csv", "timings.md", "timings.csv", "records.csv",
             "run.json", "accuracy_vs_time.png", "notes.md")
    for name in names:
        assert (tmp_path / "a" / name).is_file(), name
    for name in ("results.md", "results.csv", "notes.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert a["rows"] == b["rows"]

    with open(tmp_path / "a" / "results.csv") as f:
        table = list(csv.DictReader(f))
    keys = [(d, f, m) for d in exp.SYNTHETIC for f in exp.FEATURES for m in exp.MODELS]
    assert [(r["data set"], r["features"], r["model"]) for r in table] == keys
    assert {r["runs"] for r in table} == {"3"}
    assert "accuracy_mean" in table[0] and "train_time_mean" not in table[0]
    with open(tmp_path / "a" / "timings.csv") as f:
        times = list(csv.DictReader(f))
    assert len(times) == len(keys) and all(float(r["train_time_mean"]) > 0 for r in times)
    with open(tmp_path / "a" / "records.csv") as f:
        assert len(list(csv.DictReader(f))) == 3 * len(keys)

    notes = (tmp_path / "a" / "notes.md").read_text()
    assert "Mode: quick; seed 7" in notes and "24 subjects" in notes
    assert (tmp_path / "a" / "results.md").read_text().startswith("**Quick mode**")
    assert "## Above chance?" in notes and "Which feature carries" in notes
    assert "BLSClassifier(" in notes and " at 0x" not in notes
    assert "DNN/BLS" in (tmp_path / "a" / "timings.md").read_text()
    assert a["meta"]["data"]["effect"]["features"] == {"timeseries": 30 * 8, "connectivity": 28}
    assert set(a["checks"]) == set(keys)

    # the outputs can be re-written from records.csv and run.json alone
    (tmp_path / "b" / "notes.md").unlink()
    again = exp.rewrite_outputs(str(tmp_path / "b"))
    assert again["table"] == a["table"]
    assert (tmp_path / "b" / "notes.md").read_bytes() == (tmp_path / "a" / "notes.md").read_bytes()
    for ra, rb in zip(b["time_rows"], again["time_rows"]):
        assert rb["train_time_mean"] == pytest.approx(ra["train_time_mean"])

    # the synthetic subjects are written under out_dir/synthetic and replaced on a re-run
    assert len(os.listdir(tmp_path / "a" / "synthetic" / "effect")) == 24 + 1
    smaller = exp.make_synthetic(str(tmp_path / "a" / "synthetic"),
                                 exp.settings_for(True, dict(TINY, n_subjects=20)), 7)
    assert len(os.listdir(smaller["effect"])) == 20 + 1
    assert len(exp.load(smaller["null"], "connectivity")[0]) == 20


def _constant_roi(path):
    """Rewrite one subject's file with its first ROI constant (an unusable subject)."""
    series, names = read_roi_file(path)
    series[:, 0] = 1.0
    rows = ["\t".join(f"{v:.7g}" for v in row) for row in series]
    path.write_text("#" + "\t".join(names) + "\n" + "\n".join(rows) + "\n")


def test_run_on_a_data_directory_with_sites(tmp_path):
    """ABIDE Preprocessed keeps every site's files in one folder: --sites must skip the others
    (``load_roi_dataset(sites=...)`` refuses such a folder; ``load`` works around it)."""
    data = tmp_path / "ABIDE_like"
    made = make_synthetic_abide(data, n_subjects=30, n_rois=8, lengths=(30, 40), n_sites=3,
                                random_state=0)
    first, third = (made.files[list(made.sites).index(s)] for s in ("SITE01", "SITE03"))
    _constant_roi(first)
    _constant_roi(third)
    res = exp.run(out_dir=str(tmp_path / "out"), seed=1, data_dir=str(data), progress=False,
                  sites=["SITE01", "SITE02"], settings=dict(n_splits=2, n_repeats=1),
                  models={"KNN": KNeighborsClassifier(3)}, features=["connectivity"])
    d = res["meta"]["data"]["ABIDE_like"]
    kept = np.isin(made.sites, ["SITE01", "SITE02"])
    kept[list(made.files).index(first)] = False
    assert d["subjects"] == 19 and d["excluded"] == 1 and d["sites"] == 2
    assert d["length"] == made.lengths[kept].min()
    assert [r["data set"] for r in res["rows"]] == ["ABIDE_like"]
    notes = (tmp_path / "out" / "notes.md").read_text()
    assert "ABIDE-layout directory" in notes and "SITE01, SITE02" in notes
    assert "1 subject(s) excluded" in notes
    assert "Which feature carries" not in notes  # the synthetic explanation only
    assert not (tmp_path / "out" / "synthetic").exists()
    X, y, strata, bunch = exp.load(data, "timeseries", sites="SITE02")
    assert set(bunch.sites) == {"SITE02"} and X.shape == (10, 8 * bunch.length)
    assert set(strata) == {"SITE02|0", "SITE02|1"}


def test_run_rejects_unknown_features_and_settings(tmp_path):
    with pytest.raises(ValueError, match="features"):
        exp.run(out_dir=str(tmp_path), features=["voxels"], progress=False)
    with pytest.raises(ValueError, match="unknown settings"):
        exp.run(out_dir=str(tmp_path), settings={"n_folds": 3}, progress=False)


def test_main_quick_with_tiny_settings(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(exp.SETTINGS, "quick", dict(exp.SETTINGS["quick"], **TINY))
    assert exp.main(["--quick", "--out", str(tmp_path), "--seed", "2", "--no-progress",
                     "--features", "connectivity"]) == 0
    out = capsys.readouterr().out
    assert "| effect | connectivity | BLS |" in out and "wrote" in out
    assert (tmp_path / "accuracy_vs_time.png").stat().st_size > 0


@pytest.mark.slow
def test_quick_mode_from_the_command_line(tmp_path):
    """The real --quick run (about a minute of CPU) as ``reproduce all --quick`` calls it."""
    done = subprocess.run([sys.executable, "-m", "fastelm.experiments.bls_fmri", "--quick",
                           "--out", str(tmp_path), "--no-progress"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "results.csv") as f:
        rows = {(r["data set"], r["features"], r["model"]): float(r["accuracy_mean"])
                for r in csv.DictReader(f)}
    assert len(rows) == 20
    assert all(rows[("effect", "connectivity", m)] > 0.6 for m in exp.MODELS)


# ------------------------------------------------------------------------------------------
# real-data protocol on synthetic subjects: sites, leave-site-out, permutation test


def _series_of(directory):
    return exp.load(directory, "connectivity")[3]


def test_permutation_test_finds_the_effect_and_not_the_null(tmp_path):
    from sklearn.linear_model import LogisticRegression

    pvalues = {}
    for name, effect in (("effect", 1.0), ("null", 0.0)):
        made = make_synthetic_abide(tmp_path / name, n_subjects=60, n_rois=12,
                                    lengths=(60, 80), n_sites=2, effect_size=effect,
                                    random_state=3)
        bunch = _series_of(tmp_path / name)
        strata = np.char.add(bunch.sites.astype(str), bunch.target.astype(str))
        splits = exp.cv_splits(bunch.target, strata, n_splits=5, random_state=0)
        res = exp.permutation_test(exp.FoldFeatures(bunch.series), "connectivity",
                                   bunch.target, LogisticRegression(max_iter=500), splits,
                                   n_permutations=39, random_state=0, groups=bunch.sites,
                                   progress=False)
        assert res["permuted"].shape == (39,) and made.target.shape == (60,)
        pvalues[name] = res["pvalue"]
    assert pvalues["effect"] < 0.05 < pvalues["null"]


def test_leave_site_out_plot_keeps_each_models_colour(tmp_path, monkeypatch):
    """A model left out of leave-site-out (the DNN) does not shift the others' colours: each
    keeps the colour of its place in the run's model list, as in the accuracy-vs-time plot."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from fastelm.experiments.bls_fmri import outputs

    figures = []
    monkeypatch.setattr(plt, "close", figures.append)
    records = [{"features": "connectivity", "model": m, "site": site, "accuracy": acc}
               for m, acc in (("BLS", 0.6), ("logistic l2", 0.7)) for site in ("A", "B")]
    assert outputs.plot_leave_site_out(records, str(tmp_path / "loso.png"),
                                       ["BLS", "DNN", "logistic l2"])
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    drawn = {line.get_label().split(" (")[0]: line.get_color()
             for line in figures[0].axes[0].get_lines() if "(mean" in line.get_label()}
    assert drawn == {"BLS": colours[0], "logistic l2": colours[2]}


def test_site_splits_hold_out_one_site_each():
    sites = np.array(["B", "A", "B", "C", "A", "C", "C"])
    splits = exp.site_splits(sites)
    assert [sorted(set(sites[te])) for _, te, _, _ in splits] == [["A"], ["B"], ["C"]]
    for train, test, _, _ in splits:
        assert not set(sites[train]) & set(sites[test])


def test_real_data_run_writes_site_outputs(tmp_path):
    from sklearn.linear_model import LogisticRegression

    data = tmp_path / "abide"
    made = make_synthetic_abide(data, n_subjects=36, n_rois=8, lengths=(40, 60), n_sites=3,
                                effect_size=1.0, atlas="cc200", random_state=0)
    models = {"BLS": BLSClassifier(n_enhancement=20, reg=0.1),
              "logistic l2": LogisticRegression(max_iter=500),
              "DNN": MLPClassifier((8,), max_iter=20)}
    res = exp.run(out_dir=str(tmp_path / "out"), seed=0, data_dir=str(data), progress=False,
                  models=models, settings=dict(n_splits=3, n_permutations=4, subsample=None,
                                               features=("connectivity", "tangent")))
    out = tmp_path / "out"
    for name in ("results.md", "leave_site_out.md", "leave_site_out.csv", "per_site.md",
                 "per_site.csv", "leave_site_out_records.csv", "accuracy_vs_time.png",
                 "per_site.png", "leave_site_out.png", "notes.md"):
        assert (out / name).is_file(), name
    assert res["meta"]["atlas"] == "cc200"  # found without --atlas
    # per-site accuracy from out-of-fold predictions: every subject once per kind and model
    sites = sorted(set(made.sites))
    rows = res["site_rows"]
    # the DNN is left out on tangent features (REAL_SETTINGS' kind_skip)
    assert len(rows) == (3 + 2) * len(sites)
    assert not [r for r in rows if r["features"] == "tangent" and r["model"] == "DNN"]
    for kind in ("connectivity", "tangent"):
        for m in models if kind == "connectivity" else ("BLS", "logistic l2"):
            mine = [r for r in rows if r["features"] == kind and r["model"] == m]
            assert [r["site"] for r in mine] == sites
            assert sum(r["subjects"] for r in mine) == 36
    # leave-site-out: one record per site and model, the DNN skipped
    with open(out / "leave_site_out_records.csv") as f:
        loso = list(csv.DictReader(f))
    assert sorted({r["model"] for r in loso}) == ["BLS", "logistic l2"]
    assert sorted(r["site"] for r in loso if r["model"] == "BLS") == sites
    notes = (out / "notes.md").read_text()
    for text in ("## Leave one site out", "## Permutation test", "## Against the literature",
                 "Abraham et al.", "## Targets"):
        assert text in notes, text
    perm = res["permutation"]
    assert perm["model"] == "BLS" and perm["n_permutations"] == 4
    again = exp.rewrite_outputs(str(out))
    assert again["loso_rows"] == res["loso_rows"]


@pytest.mark.mutant
@pytest.mark.parametrize("subsample", [None, 30])
def test_real_data_run_folds_are_stratified_on_site_and_diagnosis(tmp_path, monkeypatch,
                                                                  subsample):
    """On an ABIDE-layout directory the run's CV folds are RepeatedStratifiedKFold on the
    site × diagnosis strata of the subjects kept, each stratum spread over the folds within
    one subject (planted: the folds stratified on the diagnosis alone; only the synthetic
    path and the strata's format were checked)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    from fastelm.experiments.bls_fmri import reproduce
    from fastelm.fmri import load_roi_dataset

    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=48, n_rois=5, lengths=(30, 40), n_sites=3,
                         random_state=0)
    seen = []

    def spy(features, kinds, y, models, splits, *args, **kw):
        seen.append((kw.get("desc"), [(tr.copy(), te.copy()) for tr, te, *_ in splits]))
        return real_run_splits(features, kinds, y, models, splits, *args, **kw)

    real_run_splits = reproduce.run_splits
    monkeypatch.setattr(reproduce, "run_splits", spy)
    exp.run(out_dir=str(tmp_path / "out"), seed=3, data_dir=str(data), progress=False,
            models={"KNN": KNeighborsClassifier(3)}, features=["connectivity"],
            settings=dict(n_splits=4, n_permutations=0, subsample=subsample, loso_features=()))
    (desc, splits), = [(d, s) for d, s in seen if "CV" in d]
    bunch = load_roi_dataset(data, features="connectivity")
    strata = np.array([f"{s}|{t}" for s, t in zip(bunch.sites, bunch.target)])
    keep = (np.arange(48) if subsample is None else
            exp.subjects_and_folds(str(data), 4, 1, 3, subsample=subsample)[1])
    assert len(keep) == (subsample or 48) and len(set(strata[keep])) == 6
    want = RepeatedStratifiedKFold(n_splits=4, n_repeats=1, random_state=3).split(
        np.zeros(len(keep)), strata[keep])
    for (tr, te), (tr_want, te_want) in zip(splits, want, strict=True):
        np.testing.assert_array_equal(tr, tr_want)
        np.testing.assert_array_equal(te, te_want)
    for stratum in set(strata[keep]):
        counts = [np.sum(strata[keep][te] == stratum) for _, te in splits]
        assert max(counts) - min(counts) <= 1, stratum


def test_main_reports_user_errors_in_one_line(tmp_path, capsys):
    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=12, n_rois=5, lengths=(30, 40), n_sites=2,
                         random_state=0)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert exp.main(["--fmri-data", str(data), "--out", str(blocker), "--no-progress"]) == 2
    assert "--out" in capsys.readouterr().err
    assert exp.main(["--fmri-data", str(data), "--out", str(tmp_path / "o"), "--sites", "NOPE",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "NOPE" in err and "SITE01" in err and len(err.strip().splitlines()) == 1
    assert exp.main(["--fmri-data", str(tmp_path / "nope"), "--out", str(tmp_path / "o")]) == 2


@pytest.mark.parametrize("quick", [False, True])
def test_deep_comparators_get_the_runs_subjects_and_folds(tmp_path, monkeypatch, quick):
    """``--deep``: run_abide is given the run's data, sites, atlas, strategy, folds, repeats and
    subsample, and both draw their folds from ``subjects_and_folds``."""
    deep = pytest.importorskip("fastelm.experiments.deep.protocol")
    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=40, n_rois=5, lengths=(30, 40), n_sites=2,
                         atlas="cc200", random_state=0)
    seen = {}
    monkeypatch.setattr(deep, "run_abide", lambda *a, **kw: seen.update(args=a, kw=kw) or [])
    exp.run_deep(quick=quick, out_dir=str(tmp_path / "o"), seed=4, data_dir=str(data),
                 features=["connectivity", "timeseries"], sites=["SITE01", "SITE02"])
    cfg = exp.settings_for(quick, real=True)
    assert seen["args"] == (str(data), str(tmp_path / "o" / "deep"), ("connectivity",))
    assert {k: seen["kw"][k] for k in ("n_splits", "n_repeats", "subsample", "seed", "sites",
                                        "quick")} == dict(
        n_splits=cfg["n_splits"], n_repeats=cfg["n_repeats"], subsample=cfg["subsample"],
        seed=4, sites=["SITE01", "SITE02"], quick=quick)
    bunch, keep, y, splits = exp.subjects_and_folds(str(data), 5, 1, 4, subsample=20)
    assert len(keep) == 20 and len(splits) == 5
    np.testing.assert_array_equal(y, bunch.target[keep])
    exp.run_deep(quick=quick, out_dir=str(tmp_path / "o"), data_dir=str(data),
                 settings={"n_splits": 3})  # run's overrides: the same folds
    assert seen["kw"]["n_splits"] == 3
    with pytest.raises(ValueError, match="connectome features"):
        exp.run_deep(out_dir=str(tmp_path / "o"), data_dir=str(data), features=["timeseries"])


@pytest.mark.parametrize("direct_links", [False, True])
def test_bls_permutation_test_equals_refitting_bls(tmp_path, direct_links):
    """The fast path (one BLS layer per split, readouts per permutation) gives the accuracies
    of refitting the whole BLS on every shuffled label vector, with direct links too."""
    make_synthetic_abide(tmp_path, n_subjects=40, n_rois=8, lengths=(40, 60), n_sites=2,
                         effect_size=1.0, random_state=5)
    bunch = _series_of(tmp_path)
    strata = np.char.add(bunch.sites.astype(str), bunch.target.astype(str))
    splits = exp.cv_splits(bunch.target, strata, n_splits=4, random_state=0)
    ff = exp.FoldFeatures(bunch.series)
    model = BLSClassifier(n_enhancement=30, reg=0.1, preprocessing="reference",
                          direct_links=direct_links)
    if direct_links:  # a pipeline with a label-free scaler, as the reproduction's BLS-CV
        model = make_pipeline(StandardScaler(), model)
    kw = dict(n_permutations=6, random_state=2, groups=bunch.sites, progress=False)
    fast = exp.bls_permutation_test(ff, "connectivity", bunch.target, model, 0.1, splits, **kw)
    slow = exp.permutation_test(ff, "connectivity", bunch.target, model, splits, **kw)
    assert fast["accuracy"] == slow["accuracy"]
    np.testing.assert_array_equal(fast["permuted"], slow["permuted"])
    assert fast["pvalue"] == slow["pvalue"]


def test_extended_models_fit_small_folds():
    """Real-data models: BLS-CV and ELM-CV (penalty chosen inside the fold; ELM-CV on at most
    300 principal components, fewer when the fold has fewer rows) and the l2 baseline."""
    models = exp.default_models(dnn_max_iter=3, extended=True)
    assert list(models) == ["BLS", "BLS-CV", "ELM-CV", "linear SVM", "RF", "KNN", "DNN",
                            "logistic l2"]
    X, y = _blobs(n=60, d=40)
    for name in ("BLS-CV", "ELM-CV", "logistic l2"):
        model = exp.reseed(models[name], 0).fit(X, y)
        assert model.score(X, y) > 0.9, name
    assert models["ELM-CV"][1].pca_.n_components_ == 40


def test_tangent_folds_precomputed_in_parallel_equal_each_split(tmp_path):
    """FoldFeatures.precompute fits the tangent reference once per split (here in two
    processes) with the values of split() on a fresh instance; view() hands a worker only
    its split's matrices."""
    make_synthetic_abide(tmp_path, n_subjects=24, n_rois=6, lengths=(40, 60), n_sites=2,
                         random_state=3)
    bunch = _series_of(tmp_path)
    splits = exp.cv_splits(bunch.target, None, n_splits=3, random_state=0)
    ff = exp.FoldFeatures(bunch.series)
    ff.precompute("tangent", splits, n_jobs=2)
    assert len(ff._folds) == 3
    for train, test, _, _ in splits:
        want = exp.FoldFeatures(bunch.series).split("tangent", train, test)
        got = ff.view(["tangent"], train, test).split("tangent", train, test)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)


def test_fixed_bls_takes_the_majority_penalty_and_links():
    from fastelm.experiments.bls_fmri.reproduce import _fixed_bls

    cv = exp.default_models(extended=True)["BLS-CV"]
    bls, reg = _fixed_bls(cv, {"0.01": 3, "1.0": 3, "10.0": 1}, {"True": 4, "False": 3})
    assert reg == 0.01 and bls[-1].direct_links is True
    assert type(bls[0]).__name__ == "StandardScaler"  # the pipeline's scaler kept
    bls, _ = _fixed_bls(cv[-1], {"1.0": 1}, {"True": 2, "False": 2})
    assert bls.direct_links is False


# ------------------------------------------------------------------------------------------
# ADHD-200 ALFF tables: the site standardisation and the run


class RecordingSpy(ClassifierMixin, BaseEstimator):
    """Records the matrix every fit sees; predicts class 0."""

    seen = []

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        RecordingSpy.seen.append(np.array(X))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(X.shape[0], self.classes_[0])


def _adhd_features(tmp_path):
    from fastelm.experiments.bls_fmri import adhd200
    from fastelm.fmri import load_adhd200_alff, make_synthetic_adhd200

    make_synthetic_adhd200(tmp_path, n_subjects=(30, 24), n_regions=12, random_state=0)
    with pytest.warns(UserWarning):
        bunch = load_adhd200_alff(tmp_path)
    matrices, names = adhd200.table_features(bunch)
    return bunch, matrices, names


def test_site_standardisation_is_fitted_on_training_rows_only(tmp_path):
    """Each split's per-site standardisation comes from its training rows: scaling the test
    rows' ALFF by 50 leaves every training matrix the model sees unchanged, and those
    matrices are the training rows standardised per site (mean 0, sd 1 within each site)."""
    from fastelm.confounds import ConfoundRegressor
    from fastelm.experiments.bls_fmri import adhd200

    bunch, matrices, names = _adhd_features(tmp_path)
    y, k = bunch.target, len(names)
    splits = exp.cv_splits(y, np.char.add(bunch.sites, y.astype(str)), n_splits=3)
    models = adhd200.site_models({"spy": RecordingSpy()}, k)
    seen = []
    for scale in (1.0, 50.0):
        X = matrices["alff"].copy()
        X[splits[0][1], k:] *= scale  # the first split's test rows
        RecordingSpy.seen = []
        exp.run_splits(exp.FoldFeatures(matrices={"alff": X}), ["alff"], y, models, splits,
                       warm_up=False, progress=False)
        seen.append(RecordingSpy.seen)
    train = splits[0][0]
    np.testing.assert_array_equal(seen[0][0], seen[1][0])
    for site in names:
        rows = bunch.sites[train] == site
        np.testing.assert_allclose(seen[0][0][rows].mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(seen[0][0][rows].std(axis=0), 1, rtol=1e-12)
    # a standardisation fitted on every row (a leak) would give other training inputs
    leaky = ConfoundRegressor(n_confounds=k, scale=True).fit(X).transform(X[train])
    assert np.abs(leaky - seen[1][0]).max() > 0.1


@pytest.mark.parametrize("kinds, n_splits", [
    (("alff",), 5),  # the default suite: one kind (the scale-sensitive one)
    pytest.param(("alff", "malff"), 5, marks=pytest.mark.slow),  # both kinds, the paper's 5
])
def test_adhd200_run_writes_tables_transfer_and_plot(tmp_path, kinds, n_splits):
    from sklearn.linear_model import LogisticRegression
    from fastelm.fmri import make_synthetic_adhd200

    data = tmp_path / "adhd"
    make_synthetic_adhd200(data, n_subjects=(30, 24), n_regions=12, random_state=0)
    models = {"BLS": BLSClassifier(n_enhancement=20, reg=0.1, preprocessing="reference"),
              "logistic l2": LogisticRegression(max_iter=500)}
    res = exp.run(out_dir=str(tmp_path / "out"), seed=0, data_dir=str(data), progress=False,
                  models=models, features=kinds,
                  settings=dict(n_splits=n_splits, n_repeats=1, n_permutations=3, n_jobs=1))
    out = tmp_path / "out"
    for name in ("results.md", "timings.md", "accuracy_vs_time.png", "per_site.md",
                 "transfer.md", "transfer.csv", "notes.md"):
        assert (out / name).is_file(), name
    assert {r["features"] for r in res["rows"]} == set(kinds)
    assert len(res["records"]) == len(kinds) * 2 * n_splits  # kinds × models × folds
    assert res["meta"]["data"]["adhd"]["subjects"] == 54
    transfer = (out / "transfer.md").read_text()
    assert "NYU → PU accuracy" in transfer and "PU → NYU accuracy" in transfer
    with open(out / "transfer.csv") as f:
        assert len(list(csv.DictReader(f))) == len(kinds) * 2  # kinds × models
    notes = (out / "notes.md").read_text()
    assert "ADHD-200 ALFF tables" in notes and "ABIDE I accuracy" not in notes
    # the synthetic effect is found once the sites' scales are removed
    best = max(r["accuracy_mean"] for r in res["rows"])
    assert best > 0.75


# ------------------------------------------------------------------------------------------
# the multi-atlas BLS


@pytest.mark.parametrize("preprocessing, links", [("minmax", (False, True)),
                                                  ("reference", (True,))])
def test_multi_atlas_bls_cv_of_one_atlas_is_bls_cv(preprocessing, links):
    from fastelm.experiments.bls_fmri.multi_atlas import MultiAtlasBLSClassifierCV
    from fastelm.model_selection import BLSClassifierCV

    X, y = make_classification(90, 24, random_state=1)
    kw = dict(n_windows=3, nodes_per_window=4, n_enhancement=40, regs=[1e-3, 0.1, 10.0, 1e3],
              cv=3, random_state=7, preprocessing=preprocessing, direct_links=list(links))
    one = BLSClassifierCV(shared_layer=True, **kw).fit(X, y)
    multi = MultiAtlasBLSClassifierCV(atlas_features=[24], **kw).fit(X, y)
    assert multi.reg_ == one.reg_ and multi.direct_links_ == one.direct_links_
    np.testing.assert_array_equal(multi.cv_results_["mean_test_score"],
                                  one.cv_results_["mean_test_score"])
    np.testing.assert_array_equal(multi.broad_features(X), one.broad_features(X))
    np.testing.assert_array_equal(multi.predict_proba(X), one.predict_proba(X))


def test_multi_atlas_layers_are_one_per_atlas():
    """Atlas a's feature and enhancement nodes depend on its own columns only, and the
    readout sees every atlas's nodes (widths add up)."""
    from fastelm.experiments.bls_fmri.multi_atlas import MultiAtlasBLSClassifierCV

    X, y = make_classification(80, 20, random_state=2)
    model = MultiAtlasBLSClassifierCV(atlas_features=[8, 12], n_windows=2, nodes_per_window=3,
                                      n_enhancement=15, regs=[0.1, 10.0], cv=3,
                                      direct_links=[False], random_state=0).fit(X, y)
    assert model.n_nodes_ == 2 * (6 + 15) and len(model.layers_) == 2
    other = X.copy()
    other[:, 8:] = np.random.default_rng(0).standard_normal((80, 12))
    I, J = model.broad_features(X), model.broad_features(other)
    np.testing.assert_array_equal(I[:, :21], J[:, :21])  # the first atlas's Z_1 | E_1
    assert np.abs(I[:, 21:] - J[:, 21:]).max() > 0.1
    with pytest.raises(ValueError, match="atlas_features must be positive integers summing"):
        MultiAtlasBLSClassifierCV(atlas_features=[8, 8]).fit(X, y)
    with pytest.raises(TypeError, match="no incremental steps"):
        model.add_enhancement_nodes(5)


def test_multi_atlas_predictions_come_from_training_rows_only(tmp_path):
    """In the run's splits, the multi-atlas model's test predictions equal those of the model
    fitted by hand on the split's training rows, whatever the test rows hold."""
    from fastelm.experiments.bls_fmri.multi_atlas import multi_atlas_models

    X, y = make_classification(60, 30, random_state=3)
    model = multi_atlas_models([10, 20], bls_params=dict(n_enhancement=30, n_windows=2))[
        "joined"]["multi-atlas BLS-CV"]
    splits = exp.cv_splits(y, None, n_splits=3)
    train, test = splits[0][:2]
    X[test] *= 20.0  # test rows far from the training rows
    _, preds = exp.run_splits(exp.FoldFeatures(matrices={"both": X}), ["both"], y,
                              {"m": model}, splits[:1], random_state=0, warm_up=False,
                              progress=False)
    from sklearn.base import clone
    from fastelm.experiments.bls_fmri.protocol import _fold_seed
    by_hand = exp.reseed(clone(model), _fold_seed(0, 0)).fit(X[train], y[train])
    np.testing.assert_array_equal(preds[("both", "m", 0)][test], by_hand.predict(X[test]))


def test_several_atlases_run_each_and_joined(tmp_path):
    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=30, n_rois=6, lengths=(40, 60), n_sites=2,
                         effect_size=1.0, atlas="cc200", random_state=0)
    make_synthetic_abide(data, n_subjects=30, n_rois=5, lengths=(40, 60), n_sites=2,
                         effect_size=1.0, atlas="ho", random_state=0)
    (data / "CC_0000001_rois_ho.1D").write_bytes(next(data.glob("*_rois_ho.1D")).read_bytes())
    # a file without a phenotype row (as in the Harvard-Oxford release) is reported, left out
    assert exp.subjects.load(str(data), "connectivity", atlas="ho")[3].orphans == ["CC_0000001"]
    res = exp.run(out_dir=str(tmp_path / "out"), seed=0, data_dir=str(data), progress=False,
                  atlas=["cc200", "ho"], settings=dict(n_splits=3, subsample=None, n_jobs=1,
                                                       dnn_max_iter=3,
                                                       bls_params=dict(n_enhancement=20)))
    kinds = {(r["features"], r["model"]) for r in res["rows"]}
    assert ("cc200+ho", "multi-atlas BLS-CV") in kinds and ("ho", "BLS-CV") in kinds
    assert ("cc200", "multi-atlas BLS-CV") not in kinds
    # the deep comparator on the joined features, in the same folds
    assert ("cc200+ho", "DNN") in kinds and ("cc200", "DNN") not in kinds
    folds = {(r["model"], r["fold"]) for r in res["records"] if r["features"] == "cc200+ho"}
    assert {f for m, f in folds if m == "DNN"} == {f for m, f in folds
                                                  if m == "multi-atlas BLS-CV"} == {0, 1, 2}
    assert res["meta"]["data"]["abide"]["features"]["cc200+ho"] == 15 + 10


# ------------------------------------------------------------------------------------------
# the paper-style tables


def _table_row(model, acc, sd, cpu):
    row = {"model": model, "runs": "5", "train_cpu_mean": cpu}
    for m in exp.METRICS:
        row[m + "_mean"], row[m + "_std"] = str(acc), str(sd)
    return row


def test_paper_claim_needs_deep_accuracy_and_less_time():
    from fastelm.experiments.bls_fmri.tables import claim, table_text

    rows = [_table_row("BLS-CV", 0.66, 0.04, 1.0), _table_row("DNN", 0.69, 0.04, 40.0),
            _table_row("logistic l2", 0.70, 0.03, 0.5)]
    text, holds = claim(rows)
    assert holds and "40.0 ×" in text and "reaches the best deep model (DNN" in text
    rows[0] = _table_row("BLS-CV", 0.64, 0.04, 1.0)  # more than one sd below the DNN
    assert claim(rows)[1] is False
    rows[0] = _table_row("BLS-CV", 0.69, 0.04, 50.0)  # slower than the DNN
    assert claim(rows)[1] is False
    assert claim(rows[1:]) is None  # no BLS model
    text = table_text("X", rows)
    assert "| BLS-CV | 0.690 ± 0.040 | 0.690 ± 0.040 |" in text
    assert "**fastelm is not ahead** (-0.010)" in text  # logistic 0.70 is the best comparator


def test_alff_folder_refuses_atlas_and_deep(tmp_path, capsys):
    from fastelm.fmri import make_synthetic_adhd200

    make_synthetic_adhd200(tmp_path / "adhd", n_subjects=(6, 6), n_regions=4, random_state=0)
    with pytest.raises(ValueError, match="ALFF tables.*--atlas"):
        exp.run(out_dir=str(tmp_path / "o"), data_dir=str(tmp_path / "adhd"), atlas="ho",
                progress=False)
    code = exp.main(["--fmri-data", str(tmp_path / "adhd"), "--deep", "--out",
                     str(tmp_path / "o2")])
    err = capsys.readouterr().err
    assert code != 0 and "--deep: " in err and "holds ALFF tables" in err


def test_one_class_subjects_are_refused_naming_the_stage_and_sites(monkeypatch):
    """Issue 25 item 13: subjects of one diagnosis (a --sites choice with controls only) are a
    one-line error naming the stage and the sites, before any fold is made (it was a bare
    error from deep in a model's fit, naming neither)."""
    from sklearn.utils import Bunch

    from fastelm.experiments.bls_fmri import subjects

    bunch = Bunch(sites=np.array(["NYU"] * 4 + ["PITT"] * 2), target=np.ones(6, dtype=int))
    strata = np.char.add(bunch.sites, "|1")
    monkeypatch.setattr(subjects, "load", lambda *args: (None, bunch.target, strata, bunch))
    with pytest.raises(ValueError, match=r"^selecting the subjects: all 6 subjects of site\(s\) "
                                         r"NYU, PITT have diagnosis 1; .*--sites") as info:
        subjects.subjects_and_folds("folder", 2, 1, 0)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------------------------------
# kill-tests of the protocol module's mutants (mutation/experiment_bls_fmri.toml)


class Probe(ClassifierMixin, BaseEstimator):
    """Logs every fit (class, row ids of column 0, labels, random_state); predicts
    column 1 > 0."""

    log = []

    def __init__(self, random_state=None):
        self.random_state = random_state

    def fit(self, X, y):
        Probe.log.append((type(self).__name__, X[:, 0].astype(int).copy(), np.array(y),
                          self.random_state))
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return (X[:, 1] > 0).astype(int)


class Chooser(Probe):
    """A CV-like model: its fit 'chooses' a penalty and direct links."""

    def fit(self, X, y):
        super().fit(X, y)
        self.reg_, self.direct_links_ = 0.5, np.bool_(True)
        return self


class Hooked(Probe):
    """A model with the deep comparators' ``fold_inputs`` hook; logs the phenotypes given."""

    hooks = []

    def fold_inputs(self, kind, X_train, X_test, phenotypes):
        Hooked.hooks.append((kind, phenotypes))
        return X_train, X_test


class Picky(Probe):
    """Refuses fewer than 25 rows (as a PCA of many components would): the warm-up fails."""

    def fit(self, X, y):
        if len(X) < 25:
            raise ValueError("too few rows")
        return super().fit(X, y)


def _probe_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = np.tile([0, 1], n // 2)
    return np.column_stack([np.arange(n), rng.standard_normal(n)]), y


def _seed(random_state, i):
    return int(np.random.SeedSequence([random_state, i]).generate_state(1)[0])


@pytest.mark.mutant
def test_split_defaults_repeats_and_folds():
    """cv_splits defaults to 10 folds × 1 repeat seeded 0; site_splits gives repeat 0 and the
    fold index (planted: the defaults changed, site_splits' repeat 1 or -1)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    _, y = _probe_data(60)
    splits = exp.cv_splits(y)
    want = RepeatedStratifiedKFold(n_splits=10, n_repeats=1, random_state=0).split(
        np.zeros(60), y)
    for (tr, te, repeat, fold), (tr_w, te_w) in zip(splits, want, strict=True):
        np.testing.assert_array_equal(tr, tr_w)
        np.testing.assert_array_equal(te, te_w)
        assert repeat == 0
    assert [s[3] for s in splits] == list(range(10))
    sites = np.array(["B", "A", "B", "C", "A", "C", "C"])
    assert [(r, k) for _, _, r, k in exp.site_splits(sites)] == [(0, 0), (0, 1), (0, 2)]


@pytest.mark.mutant
def test_fold_features_kinds_errors_and_tangent_cache():
    """Each subject kind is its own map of every subject (connectivity: Fisher-z Pearson;
    correlation: nilearn's kind); tangent is fitted on the training rows only and kept only
    with cache_folds; each missing input is a one-line error (planted: correlation computed as
    connectivity, the errors' conditions, the cache's default and test)."""
    from fastelm.connectome import ConnectomeTransformer, connectivity_features

    rng = np.random.default_rng(1)
    series = [rng.standard_normal((30 + 2 * i, 5)) for i in range(12)]
    y = np.tile([0, 1], 6)
    train, test = np.arange(8), np.arange(8, 12)
    ff = exp.FoldFeatures(series)
    assert ff.phenotypes is None
    X_tr, X_te = ff.split("connectivity", train, test)
    want = connectivity_features(series)
    np.testing.assert_array_equal(X_tr, want[train])
    np.testing.assert_array_equal(X_te, want[test])
    X_tr, _ = ff.split("correlation", train, test)
    want = ConnectomeTransformer("correlation").fit_transform(ff.series)
    np.testing.assert_allclose(X_tr, want[train], rtol=1e-12, atol=1e-12)
    T_tr, T_te = ff.split("tangent", train, test)
    tangent = ConnectomeTransformer("tangent").fit(ff.series[train])
    np.testing.assert_allclose(T_tr, tangent.transform(ff.series[train]), atol=1e-12)
    np.testing.assert_allclose(T_te, tangent.transform(ff.series[test]), atol=1e-12)
    assert ff._folds == {}  # not kept by default
    kept = exp.FoldFeatures(series, cache_folds=True)
    kept.split("tangent", train, test)
    assert len(kept._folds) == 1
    for features, kind, message in [
            (exp.FoldFeatures(series), "timeseries", "no 'timeseries' features given"),
            (exp.FoldFeatures(matrices={"timeseries": want}), "correlation",
             "no 'correlation' features given"),
            (exp.FoldFeatures(matrices={"timeseries": want}), "tangent",
             "'tangent' features need the subjects' series"),
            (exp.FoldFeatures(series), "voxels", "unknown features 'voxels'")]:
        with pytest.raises(ValueError, match="^" + message) as info:
            features.split(kind, train, test)
        assert "\n" not in str(info.value)
    with pytest.raises(ValueError, match="^'tangent' features need the subjects' series"):
        exp.FoldFeatures(matrices={}).precompute("tangent", exp.cv_splits(y, None, 2))


class _SerialParallel:
    """joblib.Parallel's stand-in: records n_jobs and each task, runs the tasks here."""

    calls = []

    def __init__(self, n_jobs=None, **kw):
        self.n_jobs = n_jobs

    def __call__(self, tasks):
        tasks = list(tasks)
        _SerialParallel.calls.append((self.n_jobs, tasks))
        return [f(*args, **kw) for f, args, kw in tasks]


@pytest.mark.mutant
def test_n_jobs_runs_splits_in_processes_only_when_more_than_one(monkeypatch):
    """precompute, run_splits and permutation_test hand their splits (or permutations) to
    joblib with n_jobs > 1 (and more than one split to do), a worker getting only its split's
    matrices, and run here otherwise (default, None, 0, 1), with the same results (planted:
    every variant of the conditions, the defaults 2, the view of other rows)."""
    import joblib

    monkeypatch.setattr(joblib, "Parallel", _SerialParallel)
    rng = np.random.default_rng(2)
    series = [rng.standard_normal((30, 4)) for _ in range(12)]
    X, y = _probe_data(12, seed=2)
    splits = exp.cv_splits(y, None, 2)
    serial = exp.FoldFeatures(series)
    for n_jobs in ("default", None, 0, 1, -1):
        _SerialParallel.calls = []
        ff = exp.FoldFeatures(series)
        kw = {} if n_jobs == "default" else dict(n_jobs=n_jobs)
        ff.precompute("tangent", splits, **kw)
        assert _SerialParallel.calls == [] and len(ff._folds) == 2, n_jobs
        serial = ff
        exp.FoldFeatures(series).precompute("tangent", splits[:1], n_jobs=2)  # one to do
        assert _SerialParallel.calls == []
    ff = exp.FoldFeatures(series)
    ff.precompute("tangent", splits, n_jobs=2)
    assert [n for n, _ in _SerialParallel.calls] == [2]
    assert len(_SerialParallel.calls[0][1]) == 2 and ff._folds.keys() == serial._folds.keys()
    for key in ff._folds:
        for a, b in zip(ff._folds[key], serial._folds[key]):
            np.testing.assert_array_equal(a, b)

    features = exp.FoldFeatures(matrices={"m": X})
    models = {"probe": Probe()}
    strip = lambda recs: [{k: v for k, v in r.items() if k not in (exp.TIME, exp.CPU)}
                          for r in recs]
    _SerialParallel.calls = []
    want, want_pred = exp.run_splits(features, ["m"], y, models, splits, warm_up=False,
                                     progress=False)
    for kw in ({}, dict(n_jobs=None), dict(n_jobs=0), dict(n_jobs=1), dict(n_jobs=-1)):
        exp.run_splits(features, ["m"], y, models, splits, warm_up=False, progress=False, **kw)
    exp.run_splits(features, ["m"], y, models, splits[:1], warm_up=False, progress=False,
                   n_jobs=2)
    assert _SerialParallel.calls == []
    got, got_pred = exp.run_splits(features, ["m"], y, models, splits, warm_up=False,
                                   progress=False, n_jobs=2)
    (n_jobs, tasks), = _SerialParallel.calls
    assert n_jobs == 2 and len(tasks) == 2
    for (train, test, _, _), (_, args, _) in zip(splits, tasks, strict=True):
        view = args[0]
        assert isinstance(view, exp.protocol.SplitFeatures) and list(view.matrices) == ["m"]
        np.testing.assert_array_equal(view.matrices["m"][0], X[train])
        np.testing.assert_array_equal(view.matrices["m"][1], X[test])
    assert strip(got) == strip(want)
    np.testing.assert_array_equal(got_pred[("m", "probe", 0)], want_pred[("m", "probe", 0)])

    _SerialParallel.calls = []
    kw = dict(n_permutations=3, progress=False)
    want = exp.permutation_test(features, "m", y, _Threshold(0.0), splits, **kw)
    for n_jobs in (None, 0, 1, -1):
        exp.permutation_test(features, "m", y, _Threshold(0.0), splits, n_jobs=n_jobs, **kw)
    assert _SerialParallel.calls == []
    got = exp.permutation_test(features, "m", y, _Threshold(0.0), splits, n_jobs=2, **kw)
    assert [(n, len(t)) for n, t in _SerialParallel.calls] == [(2, 3)]
    np.testing.assert_array_equal(got["permuted"], want["permuted"])


@pytest.mark.mutant
def test_run_splits_records_seeds_warm_up_skip_and_chosen_parameters(monkeypatch):
    """One run_splits by its defaults (seed 0, warm-up, pos_label 1), read fit by fit: the
    warm-up is one untimed fit per model on the first 10 training rows of each class seeded
    with random_state (a model refusing it still runs), each split's fits seeded
    SeedSequence([random_state, i]); a skipped (model, split) is left out and its rows stay -1;
    the metrics are those of the test fold; a CV model's chosen penalty and links are recorded
    from a pipeline's last step; a ``fold_inputs`` model gets the fold's phenotypes; times are
    within the call's (planted: the defaults, warm-up rows, skip's continue → break,
    transductive time 1 or -1, the clocks' subtraction, _chosen's steps, the None tests)."""
    from time import perf_counter, process_time

    from sklearn.preprocessing import FunctionTransformer

    from fastelm.experiments.bls_fmri import protocol

    monkeypatch.setattr(protocol, "_WARMED", set())
    X, y = _probe_data(40)
    P = np.column_stack([np.arange(40) * 10.0, np.arange(40) % 3])
    sites = np.repeat(["A", "B"], 20)
    models = {"probe": Probe(),
              "chooser": make_pipeline(FunctionTransformer(), FunctionTransformer(), Chooser()),
              "hooked": Hooked(), "picky": Picky()}
    splits = exp.cv_splits(y, None, 4, 1, 9)[:2]
    Probe.log, Hooked.hooks = [], []
    wall, cpu = perf_counter(), process_time()
    records, preds = exp.run_splits(exp.FoldFeatures(matrices={"m": X}, phenotypes=P), ["m"],
                                    y, models, splits, progress=False, sites=sites,
                                    skip=[("hooked", 1)])
    wall, cpu = perf_counter() - wall, process_time() - cpu
    want_log = []
    for i, (train, test, _, _) in enumerate(splits):
        warm = np.concatenate([train[y[train] == c][:10] for c in (0, 1)])
        for name in ("Probe", "Chooser", "Hooked", "Picky"):
            if i == 0 and name != "Picky":
                want_log.append((name, warm, y[warm], 0))
            if (name, i) != ("Hooked", 1):
                want_log.append((name, train, y[train], _seed(0, i)))
    assert len(Probe.log) == len(want_log)
    for got, want in zip(Probe.log, want_log):
        assert got[0] == want[0] and got[3] == want[3]
        np.testing.assert_array_equal(got[1], want[1])
        np.testing.assert_array_equal(got[2], want[2])
    assert [(r["model"], r["fold"], r["repeat"]) for r in records] == [
        ("probe", 0, 0), ("chooser", 0, 0), ("hooked", 0, 0), ("picky", 0, 0),
        ("probe", 1, 0), ("chooser", 1, 0), ("picky", 1, 0)]
    for r in records:
        test = splits[r["fold"]][1]
        want = classification_report_dict(y[test], (X[test, 1] > 0).astype(int))
        assert {m: r[m] for m in exp.METRICS} == pytest.approx({m: want[m] for m in exp.METRICS})
        assert 0 < r[exp.TIME] <= wall and 0 <= r[exp.CPU] <= cpu
        assert "site" not in r  # each test fold holds both sites
        if r["model"] == "chooser":
            assert r["penalty"] == 0.5 and r["direct_links"] is True
        else:
            assert "penalty" not in r and "direct_links" not in r
    assert len(Hooked.hooks) == 1 and Hooked.hooks[0][0] == "m"
    for got, rows in zip(Hooked.hooks[0][1], splits[0][:2]):
        np.testing.assert_array_equal(got, P[rows])
    hooked = preds[("m", "hooked", 0)]
    test0 = splits[0][1]
    np.testing.assert_array_equal(hooked[test0], (X[test0, 1] > 0).astype(int))
    assert np.all(np.delete(hooked, test0) == -1)

    # leave one site out: each record names its site, even a site of one subject
    sites = np.array(["A"] * 19 + ["B"] * 20 + ["C"])
    Hooked.hooks = []
    records, _ = exp.run_splits(exp.FoldFeatures(matrices={"m": X}), ["m"], y,
                                {"hooked": Hooked()}, exp.site_splits(sites), 3,
                                warm_up=False, progress=False, sites=sites)
    assert [r["site"] for r in records] == ["A", "B", "C"]
    assert [p for _, p in Hooked.hooks] == [None] * 3


@pytest.mark.mutant
def test_fit_timed_reports_convergence_and_passes_other_warnings_on():
    """A ConvergenceWarning makes converged False and is swallowed; any other warning is
    passed on (planted: the loop over the warnings emptied, the filters negated)."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    class Warns(Probe):
        def __init__(self, category=None, random_state=None):
            self.category, self.random_state = category, random_state

        def fit(self, X, y):
            if self.category is not None:
                warnings.warn("fit warning", self.category)
            return super().fit(X, y)

    X, y = _probe_data(10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        seconds, converged, cpu = exp.fit_timed(Warns(ConvergenceWarning), X, y)
        assert converged is False and seconds > 0 and cpu >= 0
        assert exp.fit_timed(Warns(), X, y)[1] is True
    assert caught == []
    with pytest.warns(UserWarning, match="fit warning"):
        assert exp.fit_timed(Warns(UserWarning), X, y)[1] is True


@pytest.mark.mutant
def test_evaluate_defaults_and_shape_errors(capsys):
    """evaluate's defaults: 10 folds × 10 repeats seeded 0, a progress bar; its records have
    no ``features`` key; random_state=None draws a seed; a bad shape is a one-line error
    (planted: the defaults, the features key kept, generate_state(0) / [1], the shape test's
    comparisons)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    X, y = _probe_data(40)
    Spy.seen = []
    recs = exp.evaluate(X, y, {"spy": Spy()}, warm_up=False)
    assert "CV" in capsys.readouterr().err
    assert [(r["repeat"], r["fold"]) for r in recs] == [(i // 10, i % 10) for i in range(100)]
    assert all("features" not in r for r in recs)
    want = RepeatedStratifiedKFold(n_splits=10, n_repeats=10, random_state=0).split(X, y)
    for (rows, seed), (train, _), i in zip(Spy.seen, want, range(100), strict=True):
        np.testing.assert_array_equal(rows, train)
        assert seed == _seed(0, i)
    assert len(exp.evaluate(X, y, {"spy": Spy()}, 2, 1, None, False, warm_up=False)) == 2
    for Xb, yb in [(np.zeros((40, 2, 2)), y), (X, y[:-1]), (X, np.append(y, 0)),
                   (X, y[:, None])]:
        with pytest.raises(ValueError, match="^X must be 2-D and y match its rows") as info:
            exp.evaluate(Xb, yb, {"spy": Spy()})
        assert "\n" not in str(info.value)


@pytest.mark.mutant
def test_permutation_test_shuffles_within_groups_and_counts_exactly(capsys):
    """permutation_test by its defaults (100 shuffles seeded 0, a progress bar) against an
    independent count: each shuffle permutes the labels within each group (sorted group
    order, one generator), the accuracy is pooled over the test folds, and
    p = (1 + #{permuted ≥ observed}) / 101 with ties, larger and smaller accuracies all
    present (planted: the shuffle's group test, the pooled count, the p-value's terms)."""
    from fastelm.experiments.bls_fmri.protocol import _shuffle_within

    rng = np.random.default_rng(4)
    groups = np.repeat(["s2", "s1", "s3"], 10)
    y = np.concatenate([np.tile([0, 1], 5), [0] * 7 + [1] * 3, [1] * 8 + [0] * 2])
    X = rng.standard_normal((30, 2))
    splits = exp.cv_splits(y, None, 3)
    res = exp.permutation_test(exp.FoldFeatures(matrices={"m": X}), "m", y, _Threshold(0.0),
                               splits, groups=groups)
    assert "permutations m" in capsys.readouterr().err
    pred = (X[:, 0] > 0).astype(int)
    gen = np.random.default_rng(0)

    def shuffled(labels, group_of):
        labels = labels.copy()
        for g in sorted(set(group_of)):
            idx = np.flatnonzero(group_of == g)
            labels[idx] = labels[gen.permutation(idx)]
        return labels

    permuted = [np.mean(pred == shuffled(y, groups)) for _ in range(100)]
    assert res["accuracy"] == np.mean(pred == y) and res["n_permutations"] == 100
    np.testing.assert_array_equal(res["permuted"], permuted)
    observed = res["accuracy"]
    assert {-1, 0, 1} <= set(np.sign(res["permuted"] - observed))
    assert res["pvalue"] == (1 + np.sum(res["permuted"] >= observed)) / 101
    # no groups: one group
    gen = np.random.default_rng(5)
    res = exp.permutation_test(exp.FoldFeatures(matrices={"m": X}), "m", y, _Threshold(0.0),
                               splits, 4, 5, progress=False)
    np.testing.assert_array_equal(res["permuted"], [np.mean(pred == shuffled(y, np.zeros(30)))
                                                    for _ in range(4)])
    # unique labels: each stays in its group, and the groups are shuffled
    labels = _shuffle_within(np.arange(30), groups, np.random.default_rng(1))
    for g in set(groups):
        assert set(labels[groups == g]) == set(np.flatnonzero(groups == g))
        assert np.any(labels[groups == g] != np.flatnonzero(groups == g))


@pytest.mark.mutant
def test_bls_permutation_test_defaults_pipeline_steps_and_pvalue(capsys):
    """The fast BLS permutation test equals refitting for a pipeline of two label-free steps
    before the BLS; by default it draws 99 shuffles seeded 0 with a progress bar, and its
    p-value is (1 + #{permuted ≥ observed}) / 100 with ties present (planted: the pipeline's
    step indices, the defaults, the p-value's terms)."""
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(6)
    X = rng.standard_normal((40, 10))
    y = np.tile([0, 1], 20)
    groups = np.repeat(["A", "B"], 20)
    ff = exp.FoldFeatures(matrices={"m": X})
    splits = exp.cv_splits(y, None, 4)
    bls = BLSClassifier(n_windows=3, nodes_per_window=4, n_enhancement=20, reg=0.1,
                        preprocessing="reference")
    model = make_pipeline(StandardScaler(), FunctionTransformer(np.tanh), bls)
    kw = dict(n_permutations=6, groups=groups, progress=False)
    fast = exp.bls_permutation_test(ff, "m", y, model, 0.1, splits, **kw)
    slow = exp.permutation_test(ff, "m", y, model, splits, **kw)
    assert fast["accuracy"] == slow["accuracy"]
    np.testing.assert_array_equal(fast["permuted"], slow["permuted"])
    res = exp.bls_permutation_test(ff, "m", y, bls, 0.1, splits, groups=groups)
    assert "permutations m" in capsys.readouterr().err
    assert res["n_permutations"] == 99 and res["permuted"].shape == (99,)
    again = exp.bls_permutation_test(ff, "m", y, bls, 0.1, splits, 99, 0, groups=groups,
                                     progress=False)
    np.testing.assert_array_equal(res["permuted"], again["permuted"])
    observed = res["accuracy"]
    assert {-1, 0, 1} <= set(np.sign(res["permuted"] - observed))
    assert res["pvalue"] == (1 + np.sum(res["permuted"] >= observed)) / 100


# ------------------------------------------------------------------------------------------
# kill-tests of the reproduce module's mutants (mutation/experiment_bls_fmri.toml)


@pytest.mark.mutant
def test_make_synthetic_null_is_effect_without_the_effect(tmp_path):
    """make_synthetic writes 'effect' (the settings' effect size) and 'null' (effect size 0),
    both from the seed (planted: the name test inverted or ordered, the null's effect 1 or
    -1)."""
    cfg = exp.settings_for(True, dict(n_subjects=12, n_rois=5, lengths=(30, 40), n_sites=2,
                                      effect_size=1.5))
    made = exp.make_synthetic(str(tmp_path / "syn"), cfg, 3)
    assert made == {name: str(tmp_path / "syn" / name) for name in ("effect", "null")}
    for name, effect in (("effect", 1.5), ("null", 0.0)):
        ref = make_synthetic_abide(tmp_path / f"ref_{name}", n_subjects=12, n_rois=5,
                                   lengths=(30, 40), effect_size=effect, n_sites=2,
                                   random_state=3)
        for path in ref.files:
            mine = os.path.join(made[name], os.path.basename(path))
            np.testing.assert_array_equal(read_roi_file(mine)[0], read_roi_file(path)[0])
    assert any(not np.array_equal(read_roi_file(os.path.join(made["effect"], name))[0],
                                  read_roi_file(os.path.join(made["null"], name))[0])
               for name in map(os.path.basename, ref.files))


def _spy_run_splits(monkeypatch):
    from fastelm.experiments.bls_fmri import reproduce

    seen = []
    real_run_splits = reproduce.run_splits

    def spy(features, kinds, y, models, splits, *args, **kw):
        seen.append((kw.get("desc"), [(tr.copy(), te.copy()) for tr, te, *_ in splits]))
        return real_run_splits(features, kinds, y, models, splits, *args, **kw)

    monkeypatch.setattr(reproduce, "run_splits", spy)
    return seen


@pytest.mark.mutant
def test_synthetic_run_folds_are_stratified_on_site_and_diagnosis(tmp_path, monkeypatch):
    """On two synthetic sites the folds are RepeatedStratifiedKFold on site × diagnosis
    (planted: the n_sites test's comparisons, which stratify on the diagnosis alone)."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    seen = _spy_run_splits(monkeypatch)
    settings = dict(TINY, n_sites=2, n_subjects=40, bls_params=None)
    exp.run(quick=True, out_dir=str(tmp_path), seed=5, progress=False, settings=settings,
            models={"KNN": KNeighborsClassifier(3)}, features=["connectivity"])
    assert [d for d, _ in seen] == ["effect connectivity", "null connectivity"]
    for name, (_, splits) in zip(("effect", "null"), seen):
        _, y, strata, bunch = exp.load(tmp_path / "synthetic" / name, "timeseries")
        assert len(set(bunch.sites)) == 2 and len(set(strata)) == 4
        want = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=5).split(
            np.zeros(len(y)), strata)
        for (tr, te), (tr_w, te_w) in zip(splits, want, strict=True):
            np.testing.assert_array_equal(tr, tr_w)
            np.testing.assert_array_equal(te, te_w)


@pytest.mark.mutant
def test_real_data_run_defaults_order_counts_and_one_site(tmp_path, monkeypatch, capsys):
    """A real-data run by its defaults (not quick, seed 0, one thread, progress bars) into an
    existing folder, with an atlas given as a one-item list: its leave-site-out kinds first,
    then leave-site-out, then the other kinds; run.json's settings, feature widths and times;
    on one site, no leave-site-out (planted: the defaults, the one-atlas test, the loop's
    order and leave-site-out's place, the feature counts, the timeseries load, the times'
    subtraction, the n_sites tests)."""
    import json
    from time import perf_counter

    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=24, n_rois=5, lengths=(30, 40), n_sites=2,
                         atlas="cc200", random_state=0)
    seen = _spy_run_splits(monkeypatch)
    out = tmp_path / "out"
    out.mkdir()
    loso = ("connectivity", "correlation", "partial correlation")
    settings = dict(n_splits=3, n_permutations=0, subsample=None, n_jobs=1,
                    features=("timeseries", "tangent") + loso, loso_features=loso)
    wall = perf_counter()
    res = exp.run(out_dir=str(out), data_dir=str(data), atlas=["cc200"],
                  models={"KNN": KNeighborsClassifier(3)}, settings=settings)
    wall = perf_counter() - wall
    assert "abide CV connectivity" in capsys.readouterr().err
    assert [d for d, _ in seen] == [
        "abide CV connectivity", "abide CV correlation", "abide CV partial correlation",
        "abide leave-site-out", "abide CV timeseries", "abide CV tangent"]
    meta = res["meta"]
    assert (meta["quick"], meta["seed"], meta["threads"], meta["atlas"]) == (
        False, 0, 1, "cc200")
    assert meta["data_dir"] == str(data) and meta["sites"] is None
    assert "permutation" not in meta and "completed" not in meta
    width = exp.load(data, "timeseries", atlas="cc200")[0].shape[1]
    assert meta["data"]["abide"]["features"] == {
        "timeseries": width, "tangent": 10, "connectivity": 10, "correlation": 10,
        "partial correlation": 10}
    assert 0 < res["seconds"] <= wall
    with open(out / "run.json") as f:
        assert 0 < json.load(f)["seconds"] <= wall
    with open(out / "leave_site_out_records.csv") as f:
        assert sorted((r["features"], r["site"]) for r in csv.DictReader(f)) == [
            (k, s) for k in sorted(loso) for s in ("SITE01", "SITE02")]
    # one site: no leave-site-out
    seen.clear()
    res = exp.run(out_dir=str(tmp_path / "one"), data_dir=str(data), sites=["SITE01"],
                  models={"KNN": KNeighborsClassifier(3)}, progress=False,
                  settings=dict(settings, features=("connectivity",),
                                loso_features=("connectivity",)))
    assert [d for d, _ in seen] == ["abide CV connectivity"]
    assert res["loso_rows"] == [] and res["meta"]["sites"] == ["SITE01"]
    assert not (tmp_path / "one" / "leave_site_out_records.csv").exists()


@pytest.mark.mutant
def test_run_rejects_bad_features_and_multi_atlas_arguments_first(tmp_path):
    """Empty or unknown features, and models= or features= with several atlases, are one-line
    errors raised before the output folder is made (planted: the tests' and/or, not)."""
    out = tmp_path / "out"
    for features in ([], ["voxels"], ["connectivity", "voxels"]):
        with pytest.raises(ValueError, match=r"^features must be a non-empty subset of"):
            exp.run(out_dir=str(out), features=features, progress=False)
    for kw in (dict(models={"KNN": KNeighborsClassifier()}), dict(features=["tangent"])):
        with pytest.raises(ValueError, match="features= and models= do not apply"):
            exp.run(out_dir=str(out), data_dir=str(tmp_path), atlas=["cc200", "ho"],
                    progress=False, **kw)
    assert not out.exists()


@pytest.mark.mutant
def test_command_line_hands_run_and_run_deep_their_arguments(tmp_path, monkeypatch, capsys):
    """main with run and run_deep stood in for: the defaults (not quick, seed 0, one thread,
    progress), --threads 0 as None, one --atlas as a name and several as a list, --settings
    parsed (bad JSON a one-line error), --deep with one atlas runs both, '--deep only' the deep
    comparators alone, --deep with several atlases refused, an ALFF folder run without --deep
    (planted: the defaults, every atlas/deep/settings test, the progress negation, the exit
    status, the deep timer's subtraction)."""
    from fastelm.experiments.bls_fmri import reproduce
    from fastelm.fmri import make_synthetic_adhd200

    calls = []

    def fake_run(**kw):
        calls.append(("run", kw))
        return {"table": "TABLE", "seconds": 1.0, "files": []}

    def fake_deep(**kw):
        calls.append(("deep", kw))
        return []

    monkeypatch.setattr(reproduce, "run", fake_run)
    monkeypatch.setattr(reproduce, "run_deep", fake_deep)
    assert exp.build_parser().prog == "python -m fastelm.experiments.bls_fmri"
    assert exp.build_parser(deep="only").prog == "python -m fastelm.experiments.deep"
    data = tmp_path / "abide"
    data.mkdir()

    def main(*argv):
        calls.clear()
        code = exp.main(["--out", str(tmp_path / "o"), "--fmri-data", str(data), *argv])
        return code, [(what, {k: kw[k] for k in ("quick", "seed", "progress", "atlas",
                                                  "settings", "threads") if k in kw})
                      for what, kw in calls]

    common = dict(quick=False, seed=0, progress=True, atlas=None, settings=None)
    assert main() == (0, [("run", dict(common, threads=1))])
    assert "TABLE" in capsys.readouterr().out
    assert main("--threads", "0", "--atlas", "cc200", "--settings", '{"n_splits": 3}',
                "--no-progress") == (0, [("run", dict(
                    common, threads=None, atlas="cc200", settings={"n_splits": 3},
                    progress=False))])
    assert main("--atlas", "cc200", "ho") == (
        0, [("run", dict(common, threads=1, atlas=["cc200", "ho"]))])
    assert main("--atlas", "cc200", "--deep") == (
        0, [("run", dict(common, threads=1, atlas="cc200")), ("deep", dict(common, atlas="cc200"))])
    seconds = float(capsys.readouterr().out.split("fits in ")[1].split(" s")[0])
    assert 0 <= seconds < 60
    assert main("--deep", "only") == (0, [("deep", common)])
    capsys.readouterr()
    assert main("--atlas", "cc200", "ho", "--deep") == (2, [])
    assert "--deep takes one --atlas" in capsys.readouterr().err
    assert main("--settings", "{bad") == (2, [])
    err = capsys.readouterr().err
    assert "--settings: not JSON" in err and len(err.strip().splitlines()) == 1
    make_synthetic_adhd200(tmp_path / "adhd", n_subjects=(6, 6), n_regions=4, random_state=0)
    data = tmp_path / "adhd"
    assert main() == (0, [("run", dict(common, threads=1))])
    # without PyTorch only --deep is refused
    find_spec = reproduce.importlib.util.find_spec
    monkeypatch.setattr(reproduce.importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else find_spec(name, *a))
    data = tmp_path / "abide"
    assert main() == (0, [("run", dict(common, threads=1))])
    capsys.readouterr()
    assert main("--deep") == (2, [])
    assert "--deep needs PyTorch" in capsys.readouterr().err


@pytest.mark.mutant
def test_run_deep_defaults_and_default_kinds(tmp_path, monkeypatch):
    """run_deep by its defaults (not quick, seed 0, progress) gives the deep comparators the
    real settings' connectome kinds; a choice without one is refused naming it (planted: the
    defaults, the default kinds' real/synthetic test, the message's ``features or ()``)."""
    deep = pytest.importorskip("fastelm.experiments.deep.protocol")
    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=12, n_rois=4, lengths=(30, 40), n_sites=2,
                         random_state=0)
    seen = {}
    monkeypatch.setattr(deep, "run_abide", lambda *a, **kw: seen.update(args=a, kw=kw) or [])
    exp.run_deep(out_dir=str(tmp_path / "o"), data_dir=str(data))
    assert seen["args"][2] == ("connectivity", "tangent")
    assert {k: seen["kw"][k] for k in ("quick", "seed", "progress")} == dict(
        quick=False, seed=0, progress=True)
    with pytest.raises(ValueError, match=r"connectome features \(.*\), got timeseries$"):
        exp.run_deep(out_dir=str(tmp_path / "o"), data_dir=str(data), features=["timeseries"])
