"""fastelm.connectome against nilearn's ConnectivityMeasure, and its leakage-safe use."""
import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score

from fastelm.connectome import (ConnectomeTransformer, as_series_list, connectivity_features,
                                geometric_mean, sym_matrix_to_vec, vec_to_sym_matrix)
from fastelm.experiments.bls_fmri import FoldFeatures, connectome_pipeline
from fastelm.fmri import load_roi_dataset, make_synthetic_abide


def _series(n=14, M=9, seed=0, lengths=(25, 60)):
    rng = np.random.default_rng(seed)
    mixing = rng.standard_normal((M, M)) * 0.4 + np.eye(M)
    return [rng.standard_normal((int(rng.integers(*lengths)), M)) @ mixing + rng.normal(0, 3, M)
            for _ in range(n)]


@pytest.mark.parametrize("kind", ["correlation", "partial correlation", "tangent"])
def test_equal_to_nilearn(kind):
    connectome = pytest.importorskip("nilearn.connectome")
    train, test = _series(14, seed=1), _series(5, seed=2)
    ref = connectome.ConnectivityMeasure(kind=kind, vectorize=False)  # matrices: any order
    ours = ConnectomeTransformer(kind=kind)
    np.testing.assert_allclose(ours.fit_transform(train), sym_matrix_to_vec(
        ref.fit_transform(train)), rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.transform(test), sym_matrix_to_vec(ref.transform(test)),
                               rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.mean_, ref.mean_, rtol=0, atol=1e-10)
    again = ConnectomeTransformer(kind=kind).fit(train).transform(train)
    np.testing.assert_array_equal(again, ours.transform(train))


@pytest.mark.parametrize("kind", ["correlation", "partial correlation", "tangent"])
def test_same_values_as_nilearn_vectorised(kind):
    """Our upper-triangle vectors hold the values of nilearn's lower-triangle ones: each
    (i, j) entry of ours is nilearn's (j, i) entry."""
    connectome = pytest.importorskip("nilearn.connectome")
    series = _series(8, M=6, seed=4)
    ref = connectome.ConnectivityMeasure(kind=kind, vectorize=True, discard_diagonal=True)
    lower = ref.fit_transform(series)
    i, j = np.triu_indices(6, k=1)
    row, col = np.tril_indices(6, k=-1)  # nilearn's order: row-major lower triangle
    position = {(r, c): k for k, (r, c) in enumerate(zip(row, col))}
    reordered = lower[:, [position[(b, a)] for a, b in zip(i, j)]]
    np.testing.assert_allclose(ConnectomeTransformer(kind).fit_transform(series), reordered,
                               rtol=0, atol=1e-10)


@pytest.mark.mutant
def test_ledoit_wolf_shrinkage_at_its_cap_on_near_white_series():
    """Near-white series with few time points: the uncapped Ledoit-Wolf estimate β/δ exceeds 1
    (then (1 − s)·S + s·μ·I flips S's sign); capped at 1 it is μ·I, as scikit-learn's
    LedoitWolf and nilearn's tangent kind (planted: the cap ``min(β, δ)`` removed). Every
    other test series is strongly correlated, where the cap never binds."""
    from sklearn.covariance import LedoitWolf, ledoit_wolf_shrinkage

    from fastelm.connectome import ledoit_wolf_covariances

    series = [np.random.default_rng(seed).standard_normal((20, 4)) for seed in range(8)]
    shrinkages = [ledoit_wolf_shrinkage(s) for s in series]
    assert sum(s == 1.0 for s in shrinkages) >= 3 and min(shrinkages) < 1.0  # both cases
    zscored = [(s - s.mean(axis=0)) / s.std(axis=0, ddof=1) for s in series]
    np.testing.assert_allclose(ledoit_wolf_covariances(series),
                               [LedoitWolf().fit(s).covariance_ for s in series],
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ledoit_wolf_covariances([s * 4.0 + 2.0 for s in series],
                                                       standardize=True),
                               [LedoitWolf().fit(z).covariance_ for z in zscored],
                               rtol=1e-12, atol=1e-14)
    connectome = pytest.importorskip("nilearn.connectome")
    ref = connectome.ConnectivityMeasure(kind="tangent", vectorize=False)
    np.testing.assert_allclose(ConnectomeTransformer("tangent").fit_transform(series),
                               sym_matrix_to_vec(ref.fit_transform(series)), rtol=0,
                               atol=1e-10)


def test_reader_and_transformer_share_one_triangle_convention():
    """connectivity_features (the reader's path) and ConnectomeTransformer (the estimators'
    path) vectorise by the same convention: vec_to_sym_matrix gives back each one's matrix."""
    connectome = pytest.importorskip("nilearn.connectome")
    series = _series(6, M=7, seed=5)
    off = ~np.eye(7, dtype=bool)
    fisher = vec_to_sym_matrix(connectivity_features(series))
    for k, s in enumerate(series):
        z = np.arctanh(np.clip(np.corrcoef(s.T), -1 + 1e-7, 1 - 1e-7))
        np.testing.assert_allclose(fisher[k][off], z[off], rtol=0, atol=1e-10)
        np.testing.assert_array_equal(np.diag(fisher[k]), 0.0)
    ours = vec_to_sym_matrix(ConnectomeTransformer("correlation").fit_transform(series))
    ref = connectome.ConnectivityMeasure(kind="correlation").fit_transform(series)
    np.testing.assert_allclose(ours[:, off], ref[:, off], rtol=0, atol=1e-10)
    v = np.random.default_rng(0).standard_normal((3, 21))
    np.testing.assert_array_equal(sym_matrix_to_vec(vec_to_sym_matrix(v)), v)
    np.testing.assert_array_equal(sym_matrix_to_vec(vec_to_sym_matrix(v[0])), v[0])
    np.testing.assert_array_equal(np.diag(vec_to_sym_matrix(v[0], diagonal=1.0)), 1.0)
    i, j = np.triu_indices(7, k=1)
    np.testing.assert_array_equal(sym_matrix_to_vec(fisher), fisher[:, i, j])


def test_triangle_functions_reject_bad_shapes():
    with pytest.raises(ValueError, match="square"):
        sym_matrix_to_vec(np.ones((3, 4)))
    with pytest.raises(ValueError, match="square"):
        sym_matrix_to_vec(np.ones(5))
    with pytest.raises(ValueError, match=r"M\(M-1\)/2"):
        vec_to_sym_matrix(np.ones((2, 14)))
    with pytest.raises(ValueError, match=r"M\(M-1\)/2"):
        vec_to_sym_matrix(np.float64(1.0))


def test_tangent_threads_and_chunks_do_not_change_values(monkeypatch):
    train = _series(40, seed=3)
    one = ConnectomeTransformer(n_jobs=None).fit_transform(train)
    import fastelm.connectome as c
    monkeypatch.setattr(c, "CHUNK", 7)  # several chunks, summed in a fixed order
    two = ConnectomeTransformer(n_jobs=2).fit_transform(train)
    np.testing.assert_allclose(two, one, rtol=0, atol=1e-12)


def test_geometric_mean_of_commuting_matrices_is_elementwise():
    d = np.array([[1.0, 2.0, 4.0], [4.0, 8.0, 1.0]])
    C = np.stack([np.diag(x) for x in d])
    np.testing.assert_allclose(geometric_mean(C), np.diag(np.sqrt(d[0] * d[1])), atol=1e-12)
    with pytest.raises(ValueError, match="positive definite"):
        geometric_mean(np.stack([np.eye(3), -np.eye(3)]))


def test_inputs_are_checked():
    s = _series(3)
    with pytest.raises(ValueError, match="kind"):
        ConnectomeTransformer(kind="voxels").fit(s)
    with pytest.raises(ValueError, match="one 2-D array"):
        as_series_list(s[0])
    with pytest.raises(ValueError, match="subject 1 has 4 ROIs"):
        as_series_list([s[0], s[1][:, :4]])
    bad = [x.copy() for x in s]
    bad[2][0, 0] = np.nan
    with pytest.raises(ValueError, match="subject 2 has NaN"):
        ConnectomeTransformer().fit(bad)
    fitted = ConnectomeTransformer().fit(s)
    with pytest.raises(ValueError, match="4 ROIs"):
        fitted.transform([x[:, :4] for x in s])


def test_tangent_features_see_the_training_fold_only(tmp_path):
    """The fold's features must not depend on its test subjects: changing them leaves the
    training features and every other test subject's features unchanged, and the result
    differs from a transform fitted on every subject (which would leak)."""
    made = make_synthetic_abide(tmp_path, n_subjects=24, n_rois=8, lengths=(40, 60), n_sites=2,
                                random_state=0)
    series = load_roi_dataset(tmp_path, features="connectivity").series
    train, test = np.arange(0, 18), np.arange(18, 24)
    X_train, X_test = FoldFeatures(series).split("tangent", train, test)
    reference = ConnectomeTransformer("tangent").fit([series[i] for i in train])
    np.testing.assert_array_equal(X_train, reference.transform([series[i] for i in train]))
    np.testing.assert_array_equal(X_test, reference.transform([series[i] for i in test]))
    changed = list(series)
    for i in test[1:]:  # the other test subjects replaced by noise
        changed[i] = np.random.default_rng(int(i)).standard_normal(series[i].shape) * 5
    X_train2, X_test2 = FoldFeatures(changed).split("tangent", train, test)
    np.testing.assert_array_equal(X_train2, X_train)
    np.testing.assert_array_equal(X_test2[0], X_test[0])
    leaky = ConnectomeTransformer("tangent").fit(series).transform([series[i] for i in train])
    assert np.abs(leaky - X_train).max() > 1e-3
    assert made.target.shape == (24,)


def test_connectome_pipeline_in_cross_validation(tmp_path):
    make_synthetic_abide(tmp_path, n_subjects=40, n_rois=10, lengths=(60, 80), n_sites=2,
                         effect_size=1.0, random_state=2)
    bunch = load_roi_dataset(tmp_path, features="connectivity")
    X = np.empty(len(bunch.series), dtype=object)
    X[:] = bunch.series
    pipe = connectome_pipeline("tangent", LogisticRegression(max_iter=500))
    scores = cross_val_score(pipe, X, bunch.target, cv=StratifiedKFold(4))
    assert scores.mean() > 0.7


@pytest.mark.parametrize("scale", [1e200, 1e-170])
def test_correlation_kind_is_scale_free_as_connectivity_features(scale):
    """Issue 25 item 11: a subject's series of 1e200 or 1e-170 gives the correlation kind the
    features of the same series at scale 1 (they were all NaN), as connectivity_features
    copes with such series."""
    rng = np.random.default_rng(0)
    series = [rng.standard_normal((40, 5)) for _ in range(3)]
    model = ConnectomeTransformer(kind="correlation")
    expected = model.fit_transform(series)
    got = model.fit_transform(series[:2] + [series[2] * scale])
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(connectivity_features(series[2] * scale),
                               connectivity_features(series[2]), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("kind", ["partial correlation", "tangent"])
@pytest.mark.parametrize("bad, said", [
    (lambda rng: rng.standard_normal((2, 5)), r"\(2 time points, 5 ROIs, .*not positive "),
    (lambda rng: rng.standard_normal((40, 5)) * 1e200, r"not finite .* rescale the series"),
    (lambda rng: rng.standard_normal((40, 5)) * 1e-170, "not positive definite")])
def test_degenerate_subject_is_named_in_one_line(kind, bad, said):
    """Issue 25 item 11: T = 2 for partial correlation, series of 1e200 for tangent, ...:
    a one-line error naming the subject (they were raw LinAlgErrors or NaN features), in
    fit, fit_transform and transform."""
    rng = np.random.default_rng(1)
    good = [rng.standard_normal((40, 5)) for _ in range(3)]
    X = good[:2] + [bad(rng)]
    model = ConnectomeTransformer(kind=kind)
    for call in (lambda: model.fit(X), lambda: model.fit_transform(X),
                 lambda: ConnectomeTransformer(kind=kind).fit(good).transform(X)):
        with pytest.raises(ValueError, match=rf"^X: subject 2: .*{said}") as info:
            call()
        assert "\n" not in str(info.value)
