"""The deep comparators (fastelm.experiments.deep): BrainNetCNN and the population GCN.

PyTorch is an optional extra: the tests that train a network skip without it; the ridge RFE,
the connectome reshaping and the import isolation run everywhere.
"""
import subprocess
import sys

import numpy as np
import pytest
from sklearn.feature_selection import RFE
from sklearn.linear_model import RidgeClassifier
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from fastelm.connectome import sym_matrix_to_vec, vec_to_sym_matrix
from fastelm.experiments.deep import (CONNECTOME_KINDS, DEEP_MODELS, BrainNetCNNClassifier,
                                      PopulationGCNClassifier, RidgeRFE, chebyshev_polynomials,
                                      deep_models, plot_training_curves, population_graph)
from fastelm.fmri import connectivity_features, load_roi_dataset, make_synthetic_abide

N_SUBJECTS, N_ROIS = 96, 20


def test_core_package_never_imports_the_deep_module_nor_torch():
    code = ("import sys\n"
            "class NoTorch:\n"  # any import of torch fails, as without the extra
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'torch':\n"
            "            raise ImportError('no torch here')\n"
            "sys.meta_path.insert(0, NoTorch())\n"
            "import fastelm, fastelm.cli, fastelm.experiments.bls_fmri\n"
            "assert 'fastelm.experiments.deep' not in sys.modules\n"
            "from fastelm.experiments.deep import BrainNetCNNClassifier\n"
            "try:\n"
            "    BrainNetCNNClassifier().fit([[0.0, 1.0, 2.0]] * 4, [0, 1, 0, 1])\n"
            "except ImportError as e:\n"
            "    assert 'fastelm[deep]' in str(e), e\n"
            "else:\n"
            "    raise AssertionError('fit without torch did not raise')\n")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_ridge_rfe_selects_what_sklearn_rfe_selects(n_classes):
    rng = np.random.default_rng(n_classes)
    X = rng.standard_normal((50, 240))
    y = rng.integers(0, n_classes, 50)
    X[:, :6] += y[:, None]
    ours = RidgeRFE(n_features_to_select=30, step=17, alpha=0.5).fit(X, y)
    ref = RFE(RidgeClassifier(alpha=0.5), n_features_to_select=30, step=17).fit(X, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_array_equal(ours.ranking_, ref.ranking_)
    assert ours.transform(X).shape == (50, 30)


def test_ridge_rfe_rejects_bad_parameters():
    X, y = np.ones((4, 3)), [0, 1, 0, 1]
    with pytest.raises(ValueError, match="step"):
        RidgeRFE(2, step=0).fit(X, y)
    with pytest.raises(ValueError, match="alpha"):
        RidgeRFE(2, alpha=0).fit(X, y)


def test_cnn_input_is_the_connectome_vec_to_sym_matrix_rebuilds():
    """BrainNetCNN's M×M input: ``vec_to_sym_matrix`` of the connectivity features is the
    Fisher-z correlation matrix with a zero diagonal, and ``sym_matrix_to_vec`` gives the
    features back."""
    rng = np.random.default_rng(0)
    series = [rng.standard_normal((40, 6)) for _ in range(3)]
    upper = np.array([connectivity_features(s) for s in series])
    A = vec_to_sym_matrix(upper)
    np.testing.assert_allclose(A, np.transpose(A, (0, 2, 1)))
    np.testing.assert_allclose(A[:, np.arange(6), np.arange(6)], 0.0)
    np.testing.assert_allclose(A[1], np.arctanh(np.clip(np.corrcoef(series[1].T), -1, 1 - 1e-7))
                               - np.diag(np.diag(np.arctanh(np.clip(
                                   np.corrcoef(series[1].T), -1, 1 - 1e-7)))))
    np.testing.assert_array_equal(sym_matrix_to_vec(A), upper)
    with pytest.raises(ValueError, match=r"M\(M-1\)/2"):
        vec_to_sym_matrix(np.ones((2, 14)))


def test_population_graph_and_chebyshev_basis():
    rng = np.random.default_rng(1)
    F = rng.standard_normal((7, 12))
    phen = np.array([[0, 1], [0, 2], [1, 1], [1, 2], [0, 1], [2, 2], [2, 1]])
    W = population_graph(F, phen)
    i, j = 0, 4  # same site and sex: weight 2·sim; 0 and 5 share nothing: 0
    rho = 1 - np.corrcoef(F)[i, j]
    from scipy.spatial.distance import pdist
    sigma = pdist(F, "correlation").mean()
    assert W[i, j] == pytest.approx(2 * np.exp(-rho ** 2 / (2 * sigma ** 2)))
    assert W[0, 5] == 0 and np.all(np.diag(W) == 0) and np.allclose(W, W.T)
    T = chebyshev_polynomials(W, 3)
    assert len(T) == 4
    eig = np.linalg.eigvalsh(T[1])
    assert eig.min() >= -1 - 1e-9 and eig.max() == pytest.approx(1.0)
    np.testing.assert_allclose(T[3], 4 * T[1] @ T[1] @ T[1] - 3 * T[1])


# ---------------------------------------------------------------------------------------------
# the networks (PyTorch)

@pytest.fixture(scope="module")
def abide(tmp_path_factory):
    """Synthetic subjects with (effect) and without (null) a connectivity group effect: the
    upper-triangle Fisher-z connectomes, and site and sex codes for the GCN. The tests that use
    it run on one thread (tiny networks: thread launches cost more than they save)."""
    pytest.importorskip("torch")
    sets = {}
    for name, effect in (("effect", 1.5), ("null", 0.0)):
        directory = tmp_path_factory.mktemp(name)
        make_synthetic_abide(directory, n_subjects=N_SUBJECTS, n_rois=N_ROIS, lengths=(80, 100),
                             effect_size=effect, n_sites=2, random_state=3)
        b = load_roi_dataset(directory, features="connectivity")
        site = np.unique(b.sites, return_inverse=True)[1]
        sex = b.phenotype["SEX"].astype(float)
        sets[name] = (b.data, b.target, np.column_stack([site, sex, b.data]), site * 2 + b.target)
    with threadpool_limits(limits=1):
        yield sets


def cnn(**kw):
    """A small BrainNetCNN for 20 ROIs and 70 training subjects (quick mode)."""
    return BrainNetCNNClassifier(**dict(dict(e2e_channels=(4,), e2n_channels=8, n2g_channels=16,
                                             hidden=(16,), learning_rate=1e-3, weight_decay=5e-4,
                                             max_epochs=40, patience=8), **kw))


def gcn(**kw):
    return PopulationGCNClassifier(**dict(dict(n_selected=60, rfe_step=20, max_epochs=100), **kw))


def _cv_accuracy(make, X, y, strata):
    accuracies = []
    for fold, (train, test) in enumerate(StratifiedKFold(4, shuffle=True, random_state=0)
                                         .split(X, strata)):
        model = make(random_state=fold).fit(X[train], y[train])
        accuracies.append(np.mean(model.predict(X[test]) == y[test]))
    return float(np.mean(accuracies))


@pytest.mark.parametrize("model", ["cnn", "gcn"])
def test_beats_chance_on_effect_data_and_not_on_null_data(abide, model):
    margin = 2 * np.sqrt(0.25 / N_SUBJECTS)  # two binomial sd of an accuracy at chance
    make, column = (cnn, 0) if model == "cnn" else (gcn, 2)
    effect = _cv_accuracy(make, abide["effect"][column], abide["effect"][1], abide["effect"][3])
    null = _cv_accuracy(make, abide["null"][column], abide["null"][1], abide["null"][3])
    assert effect > 0.5 + margin, (effect, null)
    assert null < 0.5 + margin, (effect, null)


def test_gcn_never_reads_test_labels(abide):
    """The test subjects are nodes of the graph, but nothing of their labels reaches the GCN:
    its predictions are the same whatever labels the test subjects have in the data set, while
    changing training labels changes them (the check has power)."""
    _, y, X, strata = abide["effect"]
    train, test = next(StratifiedKFold(4, shuffle=True, random_state=1).split(X, strata))
    flipped = y.copy()
    flipped[test] = 1 - flipped[test]

    def proba(labels):
        model = gcn(random_state=0).fit(X[train], labels[train])
        out = model.predict_proba(X[test])
        assert model.transduction_["proba"].shape == (test.size, 2)
        return out

    reference = proba(y)
    np.testing.assert_array_equal(proba(flipped), reference)
    noisy = y.copy()
    noisy[train[:10]] = 1 - noisy[train[:10]]
    assert not np.array_equal(proba(noisy), reference)


@pytest.mark.parametrize("model", ["cnn", "gcn"])
def test_same_random_state_same_model(abide, model):
    make, column = (cnn, 0) if model == "cnn" else (gcn, 2)
    X, y = abide["effect"][column], abide["effect"][1]
    kw = {"max_epochs": 5}
    a = make(random_state=7, **kw).fit(X[:70], y[:70]).predict_proba(X[70:])
    b = make(random_state=7, **kw).fit(X[:70], y[:70]).predict_proba(X[70:])
    c = make(random_state=8, **kw).fit(X[:70], y[:70]).predict_proba(X[70:])
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("model", ["cnn", "gcn"])
def test_same_model_at_any_thread_count(abide, model):
    make, column = (cnn, 0) if model == "cnn" else (gcn, 2)
    X, y = abide["effect"][column], abide["effect"][1]
    out = []
    for threads in (1, 2):
        with threadpool_limits(limits=threads):
            out.append(make(random_state=5, max_epochs=10).fit(X[:70], y[:70])
                       .predict_proba(X[70:]))
    np.testing.assert_array_equal(out[0], out[1])


def test_fold_inputs_hook(abide):
    """What the reproduction's fold loop asks of the two models: the CNN takes any connectome
    kind as it is and refuses other features, the GCN the phenotype columns of the fold's
    subjects."""
    X, y = abide["effect"][0], abide["effect"][1]
    models = deep_models(quick=True)
    assert set(models) == set(DEEP_MODELS)
    cnn_model = models["CCNN"]
    Xtr, Xte = X[:5], X[5:9]
    for kind in CONNECTOME_KINDS:
        assert cnn_model.fold_inputs(kind, Xtr, Xte) == (Xtr, Xte)  # the same objects
    assert cnn_model.get_params() == deep_models(quick=True)["CCNN"].get_params()
    with pytest.raises(ValueError, match="timeseries"):
        cnn_model.fold_inputs("timeseries", X[:5], X[5:9])
    gcn_model = models["GCN"]
    P = np.arange(18.0).reshape(9, 2)
    Xtr, Xte = gcn_model.fold_inputs("tangent", X[:5], X[5:9], (P[:5], P[5:]))
    assert gcn_model.n_phenotypes == 2
    np.testing.assert_array_equal(Xtr, np.hstack([P[:5], X[:5]]))
    np.testing.assert_array_equal(Xte, np.hstack([P[5:], X[5:9]]))
    assert gcn_model.fold_inputs("tangent", Xtr, Xte)[0] is Xtr
    assert gcn_model.n_phenotypes == 0


def test_early_stopping_keeps_the_best_epoch_and_curves_plot(abide, tmp_path):
    X, y = abide["effect"][0], abide["effect"][1]
    model = cnn(random_state=0, max_epochs=30, patience=3).fit(X, y)
    h = model.history_
    assert len(h["train_loss"]) == len(h["val_loss"]) <= 30
    assert model.best_epoch_ == int(np.argmin(h["val_loss"]))
    assert len(h["val_loss"]) - 1 - model.best_epoch_ <= 3
    path = tmp_path / "curves.png"
    assert plot_training_curves({"CCNN": [dict(h, best_epoch=model.best_epoch_)]}, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bad_input_names_the_parameter(abide):
    X, y = abide["effect"][0], abide["effect"][1]
    with pytest.raises(ValueError, match="validation_fraction"):
        cnn(validation_fraction=1.0).fit(X, y)
    with pytest.raises(ValueError, match="max_epochs"):
        cnn(max_epochs=0).fit(X, y)
    with pytest.raises(ValueError, match=r"M\(M-1\)/2"):
        cnn().fit(X[:, :-1], y)
    with pytest.raises(ValueError, match="n_phenotypes"):
        gcn(n_phenotypes=X.shape[1]).fit(X, y)


def test_reproduction_fold_loop_never_gives_test_labels(abide):
    """Through the reproduction's fold loop (``bls_fmri.protocol.run_splits`` and its
    ``fold_inputs`` hook): the deep models' test predictions do not change when the test
    subjects' labels are flipped in the data set."""
    protocol = pytest.importorskip("fastelm.experiments.bls_fmri.protocol")
    X, y, Xg, strata = abide["effect"]
    P = Xg[:, :2]
    features = protocol.FoldFeatures(None, {"connectivity": X}, phenotypes=P)
    train, test, _, _ = protocol.cv_splits(y, strata, 4, 1, 0)[0]
    flipped = y.copy()
    flipped[test] = 1 - flipped[test]
    models = deep_models(quick=True)
    out = []
    for labels in (y, flipped):
        records, predictions = protocol.run_splits(features, ["connectivity"], labels, models,
                                                   [(train, test, 0, 0)], 0, threads=1,
                                                   progress=False, warm_up=False)
        assert all(r["train_cpu"] > 0 for r in records)
        out.append(predictions)
    for name in models:
        key = ("connectivity", name, 0)
        np.testing.assert_array_equal(out[0][key], out[1][key])


# ---------------------------------------------------------------------------------------------
# the reproduction's settings and its fold loop (protocol.deep_models, protocol.run_abide)

@pytest.mark.mutant
def test_deep_models_at_the_reproductions_settings_quick_and_overridden():
    """The full settings are the classes' defaults; quick mode a few epochs, a smaller CNN and
    a 500-feature RFE (the docstring's); overrides replace one parameter of one model."""
    full = deep_models()
    assert set(full) == set(DEEP_MODELS)
    assert full["CCNN"].get_params() == BrainNetCNNClassifier().get_params()
    assert full["GCN"].get_params() == PopulationGCNClassifier().get_params()
    quick = deep_models(quick=True)
    assert quick["CCNN"].get_params() == BrainNetCNNClassifier(
        e2e_channels=(4,), e2n_channels=8, n2g_channels=16, hidden=(16,), max_epochs=8,
        patience=4).get_params()
    assert quick["GCN"].get_params() == PopulationGCNClassifier(
        n_selected=500, rfe_step=50, max_epochs=40, patience=10).get_params()
    over = deep_models(True, CCNN={"max_epochs": 3}, GCN={"n_selected": 7})
    assert over["CCNN"].get_params() == dict(quick["CCNN"].get_params(), max_epochs=3)
    assert over["GCN"].get_params() == dict(quick["GCN"].get_params(), n_selected=7)
    assert deep_models(GCN={"patience": 2})["GCN"].get_params() == \
        PopulationGCNClassifier(patience=2).get_params()


FIT_SECONDS, FIT_CPU, TRANSDUCTIVE_SECONDS, TRANSDUCTIVE_CPU = 0.25, 0.5, 0.125, 0.0625


def _fit_log_entry(estimator, X, y):
    """What a stand-in model records of one fit: its seed, inputs, the thread limits in force."""
    import numba
    from threadpoolctl import threadpool_info
    return {"model": type(estimator).__name__, "seed": estimator.random_state, "X": X.copy(),
            "y": np.asarray(y).copy(), "numba": numba.get_num_threads(),
            "blas": {p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}}


def _stand_in_prediction(X):
    """A fixed rule of the rows' last feature: some right, some wrong, none of the labels."""
    return (X[:, -1] > np.median(X[:, -1])).astype(int)


class _CNNStandIn(BrainNetCNNClassifier):
    """BrainNetCNN's parameters and no network: records each fit, a fixed history."""

    log: list = []

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.history_ = {"train_loss": [1.0, 0.5, 0.4], "val_loss": [0.9, 0.6, 0.7]}
        self.best_epoch_ = 1
        self.log.append(_fit_log_entry(self, X, y))
        return self

    def predict(self, X):
        self.log[-1].update(X_test=X.copy(), pred=_stand_in_prediction(X))
        return self.log[-1]["pred"]


class _GCNStandIn(PopulationGCNClassifier):
    """The GCN's fold_inputs hook and parameters; records each fit, a fixed transduction."""

    log: list = []

    def fit(self, X, y):
        self.classes_ = np.array([0, 1])
        self.log.append(_fit_log_entry(self, X, y))
        return self

    def predict(self, X):
        self.transduction_ = {"history": {"train_loss": [0.8, 0.3], "val_loss": [0.7, 0.5]},
                              "best_epoch": np.int64(0)}
        self.transductive_time_, self.transductive_cpu_ = TRANSDUCTIVE_SECONDS, TRANSDUCTIVE_CPU
        self.log[-1].update(X_test=X.copy(), pred=_stand_in_prediction(X))
        return self.log[-1]["pred"]


@pytest.fixture
def stand_ins(monkeypatch, tmp_path):
    """A synthetic ABIDE folder of 48 subjects (2 sites), stand-in models, a fixed fit time and
    the outputs writer replaced by a recorder (the loop is what is tested here)."""
    from fastelm.experiments.bls_fmri import protocol as bls_protocol
    from fastelm.experiments.deep import protocol

    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=48, n_rois=8, lengths=(40, 50), n_sites=2,
                         random_state=0)
    _CNNStandIn.log, _GCNStandIn.log = [], []
    timed = []

    def fit_timed(estimator, X, y):
        estimator.fit(X, y)
        timed.append(type(estimator).__name__)
        return FIT_SECONDS, True, FIT_CPU

    written = {}
    monkeypatch.setattr(bls_protocol, "fit_timed", fit_timed)
    monkeypatch.setattr(protocol, "write_abide_outputs",
                        lambda out, records, curves, **kw: written.update(out=out, **kw))
    models = {"CCNN": _CNNStandIn(), "GCN": _GCNStandIn()}
    return protocol, data, models, written, timed


def _truth(data):
    """Each subject's label and phenotype codes (site index, sex), by its connectome row."""
    b = load_roi_dataset(data, features="connectivity")
    site = np.unique(b.sites, return_inverse=True)[1]
    sex = np.asarray(b.phenotype["SEX"], dtype=float)
    return {row.tobytes(): (t, s, x) for row, t, s, x in zip(b.data, b.target, site, sex)}, b


@pytest.mark.mutant
def test_run_abide_fits_each_fold_once_per_model_on_one_thread_with_fold_seeds(stand_ins,
                                                                                 tmp_path,
                                                                                 capsys):
    """run_abide's defaults (10 folds, one repeat, seed 0, the BLS-CV reference, a progress
    bar) on an existing folder: each fold's models fit on its training subjects (the GCN with
    each subject's site index and sex before the connectome), at the fold's seed, on one
    thread; each record scores the fold's predictions against its own labels; the GCN's time
    adds its transduction; the curves are the deep models' histories."""
    from fastelm.experiments.bls_fmri.protocol import CPU, TIME, _fold_seed
    from fastelm.metrics import classification_report_dict

    protocol, data, models, written, timed = stand_ins
    out = tmp_path / "out"
    out.mkdir()  # an existing folder is written into
    records = protocol.run_abide(data_dir=data, out_dir=out, models=models)
    assert "deep" in capsys.readouterr().err  # the progress bar, on by default
    truth, bunch = _truth(data)
    n = len(bunch.target)
    assert [r["model"] for r in records] == ["CCNN", "GCN", "BLS-CV"] * 10
    assert timed == ["_CNNStandIn", "_GCNStandIn", "Pipeline"] * 10
    assert [(r["repeat"], r["fold"]) for r in records[::3]] == [(0, f) for f in range(10)]
    assert {r["data set"] for r in records} == {"abide"}
    assert {r["features"] for r in records} == {"connectivity"}
    assert {r["converged"] for r in records} == {True}
    for log in (_CNNStandIn.log, _GCNStandIn.log):
        assert [e["seed"] for e in log] == [_fold_seed(0, i) for i in range(10)]
        assert {e["numba"] for e in log} == {1} and set().union(*(e["blas"] for e in log)) == {1}
        tested = np.concatenate([e["X_test"] for e in log])
        assert len(tested) == n  # each subject tested once
    for i, (cnn_fit, gcn_fit) in enumerate(zip(_CNNStandIn.log, _GCNStandIn.log)):
        rows = [truth[row.tobytes()] for row in cnn_fit["X"]]
        np.testing.assert_array_equal(cnn_fit["y"], [t for t, _, _ in rows])
        np.testing.assert_array_equal(gcn_fit["X"][:, 2:], cnn_fit["X"])
        np.testing.assert_array_equal(gcn_fit["X"][:, :2], [(s, x) for _, s, x in rows])
        for record, fit, offset in ((records[3 * i], cnn_fit, 0), (records[3 * i + 1], gcn_fit, 2)):
            y_test = [truth[row.tobytes()][0] for row in fit["X_test"][:, offset:]]
            expected = classification_report_dict(np.array(y_test), fit["pred"])
            assert {k: record[k] for k in expected} == expected
        assert records[3 * i][TIME] == FIT_SECONDS and records[3 * i][CPU] == FIT_CPU
        assert records[3 * i + 1][TIME] == FIT_SECONDS + TRANSDUCTIVE_SECONDS
        assert records[3 * i + 1][CPU] == FIT_CPU + TRANSDUCTIVE_CPU
    curves = __import__("json").loads((out / "curves.json").read_text())
    assert curves["subjects"] == n and curves["patients"] == int(bunch.target.sum())
    assert [(c["model"], c["fold"], c["best_epoch"]) for c in curves["curves"]] == \
        [(m, f, b) for f in range(10) for m, b in (("CCNN", 1), ("GCN", 0))]
    assert curves["curves"][0]["val_loss"] == [0.9, 0.6, 0.7]
    assert curves["curves"][1]["train_loss"] == [0.8, 0.3]
    assert written == {"out": out, "title": "10-fold CV on site × diagnosis, one thread per fit",
                       "quick": False, "atlas": None}


@pytest.mark.mutant
def test_run_abide_title_options_and_default_models(stand_ins, tmp_path, monkeypatch):
    """quick, repeats and the atlas reach the outputs' title; ``models=None`` takes
    ``deep_models(quick)``; ``reference=None`` runs no reference; ``kinds`` each once."""
    protocol, data, models, written, _ = stand_ins
    protocol.run_abide(data, tmp_path / "a", models=models, reference=None, n_splits=2,
                       n_repeats=2, atlas="aal", quick=True, progress=False)
    assert written["title"] == ("quick: 2-fold CV on site × diagnosis × 2 repeats, atlas aal, "
                                "one thread per fit")
    assert (written["quick"], written["atlas"]) == (True, "aal")
    assert len(_CNNStandIn.log) == len(_GCNStandIn.log) == 4
    asked = []
    monkeypatch.setattr(protocol, "deep_models",
                        lambda quick=False: asked.append(quick) or dict(models))
    records = protocol.run_abide(data, tmp_path / "b", ("connectivity", "correlation"),
                                 reference=None, n_splits=2, quick=True, progress=False)
    assert asked == [True]
    assert [(r["features"], r["model"]) for r in records[:4]] == [
        ("connectivity", "CCNN"), ("connectivity", "GCN"),
        ("correlation", "CCNN"), ("correlation", "GCN")]
