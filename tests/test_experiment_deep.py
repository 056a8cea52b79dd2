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
