"""fastelm.connectome against nilearn's ConnectivityMeasure, and its leakage-safe use."""
import re

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


@pytest.mark.mutant
def test_triangle_functions_keep_leading_axes_and_one_roi():
    """(..., M, M) means any number of leading axes: a (2, 3, 5, 5) stack is vectorised matrix
    by matrix (planted: the size read from ``shape[1]``), a (2, 3, 4) or a tall (4, 3) one is not
    square; a count of values is M(M-1)/2 or refused, up to M = 30; integer values fill a float64
    matrix (its diagonal 0.5 kept), float32 ones a float32 matrix; a 1 × 1 matrix has no strict
    triangle, and its empty vector gives it back."""
    rng = np.random.default_rng(0)
    C = vec_to_sym_matrix(rng.standard_normal((2, 3, 10)), diagonal=1.0)
    assert C.shape == (2, 3, 5, 5)
    v = sym_matrix_to_vec(C)
    assert v.shape == (2, 3, 10)
    for a in range(2):
        for b in range(3):
            np.testing.assert_array_equal(v[a, b], sym_matrix_to_vec(C[a, b]))
    np.testing.assert_array_equal(vec_to_sym_matrix(v, diagonal=1.0), C)
    for shape in [(2, 3, 4), (4, 3), (2, 4, 3)]:
        with pytest.raises(ValueError, match="square"):
            sym_matrix_to_vec(np.ones(shape))
    for n_values in (2, 4, 5, 8, 44, 46):
        with pytest.raises(ValueError, match=rf"^{n_values} values are not M\(M-1\)/2"):
            vec_to_sym_matrix(np.ones(n_values))
    for M in (10, 30):
        v = rng.standard_normal(M * (M - 1) // 2)
        assert vec_to_sym_matrix(v).shape == (M, M)
        np.testing.assert_array_equal(sym_matrix_to_vec(vec_to_sym_matrix(v)), v)
    ints = vec_to_sym_matrix(np.arange(1, 4), diagonal=0.5)  # integers: float64, not cast
    assert ints.dtype == np.float64 and np.diag(ints).tolist() == [0.5] * 3
    assert vec_to_sym_matrix(np.ones(3, dtype=np.float32)).dtype == np.float32
    one = np.full((4, 1, 1), 2.0)
    assert sym_matrix_to_vec(one).shape == (4, 0)
    np.testing.assert_array_equal(vec_to_sym_matrix(sym_matrix_to_vec(one), diagonal=2.0), one)


@pytest.mark.mutant
def test_connectivity_features_boundaries():
    """eps in (0, 1) open at both ends; |z| <= arctanh(1 - eps) for collinear ROIs, of either
    sign; T >= 2 and M >= 2 are the smallest series (T = 2: every r is ±1), a subject of other
    dimensions is refused by name (an array of one or no dimension with its own shape); an
    (n, T, M) array is n subjects; subjects' ROI counts must agree."""
    rng = np.random.default_rng(0)
    s = rng.standard_normal((30, 2))
    for eps in (0.0, 1.0, -0.1, 1.5, "0.1", True):
        with pytest.raises(ValueError, match=r"eps must be a number in \(0, 1\)"):
            connectivity_features(s, eps=eps)
    np.testing.assert_allclose(connectivity_features(s, eps=1.0 - 1e-9), [0.0], atol=1e-8)
    with pytest.raises(TypeError):
        connectivity_features(s, 0.5)  # eps is keyword-only
    collinear = np.column_stack([s[:, 0], 3.0 * s[:, 0] + 1.0, -s[:, 0], s[:, 1]])
    z = vec_to_sym_matrix(connectivity_features(collinear, eps=1e-4))
    cap = np.arctanh(1.0 - 1e-4)
    assert z[0, 1] == pytest.approx(cap, rel=1e-9) and z[0, 2] == pytest.approx(-cap, rel=1e-9)
    assert np.isfinite(z).all() and np.abs(z).max() <= cap
    two = connectivity_features(rng.standard_normal((2, 3)))
    np.testing.assert_allclose(np.abs(two), np.arctanh(1.0 - 1e-7), rtol=1e-12)
    assert connectivity_features(rng.standard_normal((5, 2))).shape == (1,)
    stack = rng.standard_normal((3, 20, 4))  # (n, T, M): three subjects, not one
    np.testing.assert_array_equal(connectivity_features(stack),
                                  connectivity_features(list(stack)))
    with pytest.raises(ValueError, match="^subjects have different numbers of ROIs"):
        connectivity_features([stack[0], stack[1][:, :3]])
    for shape in [(1, 4), (5, 1), (1, 1), (40,), (2, 5, 3)]:
        with pytest.raises(ValueError, match=r"subject 0: expected a \(T, M\) series with T >= 2"):
            connectivity_features([rng.standard_normal(shape)])
    for bad in (rng.standard_normal(40), np.array(1.0)):  # one array, not 2-D: its shape
        with pytest.raises(ValueError, match=re.escape(f"got shape {bad.shape}")):
            connectivity_features(bad)


@pytest.mark.mutant
def test_connectivity_features_name_the_column_that_cannot_be_scaled():
    """A column that is constant, or whose centring overflows float64 (values near 1.7e308:
    their mean is inf), has no correlation: a ValueError names it (planted: the two tests of
    the column joined by ``*``, so an overflowing column gave NaN features silently)."""
    rng = np.random.default_rng(0)
    s = rng.standard_normal((6, 3))
    s[:, 1] = [1.7e308, 1.7e308, -1.7e308, 1.7e308, 1.0, 2.0]
    with pytest.raises(ValueError, match=r"^subject 0: .*column\(s\) \[1\]"):
        connectivity_features([s])
    for value in (5.0, 0.1):  # six 0.1s: their mean is not 0.1, the centred column not 0
        s[:, 1] = value
        with pytest.raises(ValueError, match=r"^subject 0: constant ROI column\(s\) \[1\]"):
            connectivity_features([s])


@pytest.mark.mutant
def test_series_list_boundaries():
    """as_series_list: T >= 2 time points and M >= 2 ROIs, both ends of each; a 1-D subject is
    named, not an IndexError, and a 3-D one; one subject is a list too, an (n, T, M) array n
    subjects, a 1-D or 4-D array refused; ROI counts above or below subject 0's refused;
    values that are not numbers, or ragged rows, are a TypeError naming X."""
    rng = np.random.default_rng(0)
    one = rng.standard_normal((5, 3))
    np.testing.assert_array_equal(as_series_list([one])[0], one)
    for bad in ([[["a", "b"], ["c", "d"]]], [[[1.0, 2.0], [3.0]]]):
        with pytest.raises(TypeError, match=r"^X: expected a list of \(T, M\) numeric arrays"):
            as_series_list(bad)
    with pytest.raises(TypeError, match=r"^X: expected a list of \(T, M\) numeric arrays"):
        as_series_list([{"a": 1.0}])
    assert [s.shape for s in as_series_list([rng.standard_normal((2, 2))] * 2)] == [(2, 2)] * 2
    for shape in [(1, 3), (4, 1), (1, 1)]:
        bad = rng.standard_normal(shape)
        with pytest.raises(ValueError, match=re.escape(f"subject 0 has shape {shape}")):
            as_series_list([bad, bad])
    with pytest.raises(ValueError, match=r"subject 0 has shape \(40,\)"):
        as_series_list([rng.standard_normal(40), rng.standard_normal(40)])
    with pytest.raises(ValueError, match=r"subject 0 has shape \(2, 6, 4\)"):
        as_series_list([rng.standard_normal((2, 6, 4))] * 2)
    with pytest.raises(ValueError, match=r"^X: expected \(n_subjects, T, M\).*shape \(40,\)"):
        as_series_list(rng.standard_normal(40))
    with pytest.raises(ValueError, match="subject 1 has 4 ROIs, subject 0 has 3"):
        as_series_list([one, rng.standard_normal((5, 4))])
    with pytest.raises(TypeError, match=r"^X: expected a list of \(T, M\) numeric arrays"):
        as_series_list(5)
    stack = rng.standard_normal((3, 6, 4))
    np.testing.assert_array_equal(np.stack(as_series_list(stack)), stack)
    with pytest.raises(ValueError, match=r"^X: expected \(n_subjects, T, M\).*\(2, 2, 6, 4\)"):
        as_series_list(np.stack([stack[:2]] * 2))


@pytest.mark.mutant
def test_correlation_kind_of_constant_and_outlying_rois():
    """A constant ROI z-scores to zeros (sd < eps: 1), so its correlations are 0 as nilearn's;
    one ROI at 1e200 beside ROIs at 1 (only that column is rescaled before the z-score) gives
    the correlations of the unscaled series; ordinary series raise no warning."""
    import warnings

    rng = np.random.default_rng(0)
    series = [rng.standard_normal((40, 5)) @ (np.eye(5) + 0.5) for _ in range(3)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ordinary series: no warning on the way
        ConnectomeTransformer("correlation").fit_transform(series)
    constant = [s.copy() for s in series]
    constant[1][:, 2] = 3.0
    got = vec_to_sym_matrix(ConnectomeTransformer("correlation").fit_transform(constant))
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(np.delete(got[1, 2], 2), 0.0)
    connectome = pytest.importorskip("nilearn.connectome")
    ref = connectome.ConnectivityMeasure(kind="correlation", vectorize=False)
    np.testing.assert_allclose(sym_matrix_to_vec(got), sym_matrix_to_vec(
        ref.fit_transform(constant)), rtol=0, atol=1e-12)
    outlying = [s.copy() for s in series]
    outlying[0][:, 3] *= 1e200
    np.testing.assert_allclose(ConnectomeTransformer("correlation").fit_transform(outlying),
                               ConnectomeTransformer("correlation").fit_transform(series),
                               rtol=1e-12, atol=1e-14)


def _spread_spd_stack(seed=9):
    """Three 3 × 3 SPD matrices with eigenvalues e^-3.2 ... e^3.2 (seed 9; seed 1: e^±5.8) in
    random bases: the gradient descent from their arithmetic mean overshoots (its gradient
    norm grows twice)."""
    rng = np.random.default_rng(seed)
    n, spread = int(rng.integers(2, 6)), rng.uniform(2, 6)
    stack = []
    for _ in range(n):
        Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        stack.append(Q @ np.diag(np.exp(rng.uniform(-spread, spread, 3))) @ Q.T)
    return np.stack(stack)


@pytest.mark.mutant
def test_geometric_mean_halves_its_step_and_warns_when_not_converged():
    """On a spread stack the full step overshoots; halved when the gradient norm grows, the
    descent reaches the geometric mean (zero gradient: ‖mean_k log(G^-1/2 C_k G^-1/2)‖_F / M²
    < tol, computed here by eigendecompositions) within 30 steps, on nilearn's path (its step
    halved, not divided by 3), and does not warn; stopped
    after 2 steps it warns, at the caller's line; a wider stack is stopped after 30 steps."""
    import warnings

    C = _spread_spd_stack()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        G = geometric_mean(C)
    w, V = np.linalg.eigh(G)
    W = (V / np.sqrt(w)) @ V.T
    logs = []
    for c in C:
        wc, Vc = np.linalg.eigh(W @ c @ W)
        logs.append((Vc * np.log(wc)) @ Vc.T)
    assert np.linalg.norm(np.mean(logs, axis=0)) / G.size < 1e-7
    with pytest.warns(RuntimeWarning, match="geometric mean: 2 steps without reaching tol") \
            as record:
        geometric_mean(C, max_iter=2)
    nilearn = pytest.importorskip("nilearn.connectome.connectivity_matrices")
    if hasattr(nilearn, "_geometric_mean"):  # private: the same descent, step halved
        np.testing.assert_allclose(G, nilearn._geometric_mean(list(C), max_iter=30, tol=1e-7),
                                   rtol=1e-12, atol=0)
    assert record[0].filename == __file__  # stacklevel: the warning names its caller's line
    with pytest.warns(RuntimeWarning, match="^geometric mean: 30 steps without reaching tol"):
        geometric_mean(_spread_spd_stack(seed=1))  # nilearn's 30 steps at most, by default


@pytest.mark.mutant
def test_n_jobs_counts_threads_as_joblib(monkeypatch):
    """n_jobs as joblib counts it: None and 1 run in the calling thread (no pool), k > 1 in k
    threads, -1 in every CPU, -2 in all but one, below -n_cpus in one; never more threads than
    chunks of subjects. Both the geometric mean's sums (fit) and the logarithms (transform).
    0 (no meaning to joblib), a float, a string or a bool is refused by name."""
    import fastelm.connectome as c

    pools = []

    class Recorder(c.ThreadPoolExecutor):
        def __init__(self, max_workers):
            pools.append(max_workers)
            super().__init__(max_workers)

    monkeypatch.setattr(c, "ThreadPoolExecutor", Recorder)
    monkeypatch.setattr(c.os, "cpu_count", lambda: 4)
    monkeypatch.setattr(c, "CHUNK", 2)
    series = _series(12, M=4, seed=6)  # 6 chunks of 2 subjects
    expected = {None: None, 1: None, 2: 2, 3: 3, 10: 6, -1: 4, -2: 3, -3: 2, -4: None,
                -9: None}
    for n_jobs, threads in expected.items():
        model = ConnectomeTransformer(n_jobs=n_jobs).fit(series)
        fitted, pools[:] = list(pools), []
        model.transform(series)
        if threads is None:
            assert fitted == pools == [], n_jobs
        else:  # one pool per step of the geometric mean, one for the transform
            assert set(fitted) == {threads} and len(fitted) > 1 and pools == [threads], n_jobs
        pools.clear()
    for bad in (0, 2.5, "2", True):  # joblib: "n_jobs == 0 has no meaning"
        with pytest.raises(ValueError, match="^The 'n_jobs' parameter of ConnectomeTransformer"):
            ConnectomeTransformer(n_jobs=bad).fit(series)
        with pytest.raises(ValueError, match="^The 'n_jobs' parameter of fastelm"):
            geometric_mean(np.stack([np.eye(3)] * 2), n_jobs=bad)


@pytest.mark.mutant
def test_single_threaded_blas_limits_blas_to_one_thread():
    """Inside each worker of the thread pool BLAS runs on one thread (n_jobs threads, not
    n_jobs × BLAS's), whatever BLAS had outside (here 2 threads where the build allows)."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from fastelm.connectome import single_threaded_blas

    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        with single_threaded_blas():
            inside = [i["num_threads"] for i in threadpoolctl.threadpool_info()
                      if i["user_api"] == "blas"]
    assert inside and set(inside) == {1}


@pytest.mark.mutant
def test_tangent_whitening_is_the_inverse_square_root_of_the_mean():
    """whitening_ = G^{-1/2} of the fitted mean_ G (W G W = I), as documented; a multiple of it
    would move only the diagonal of log(W C W), which the vectors drop."""
    model = ConnectomeTransformer("tangent").fit(_series(6, M=4, seed=7))
    W = model.whitening_
    np.testing.assert_allclose(W, W.T, rtol=0, atol=1e-12)
    np.testing.assert_allclose(W @ model.mean_ @ W, np.eye(4), rtol=0, atol=1e-10)
    assert np.linalg.eigvalsh(W).min() > 0


@pytest.mark.mutant
def test_ledoit_wolf_of_two_time_points_is_the_sample_covariance():
    """T = 2: the Ledoit-Wolf β is exactly 0 (both centred rows ±x), so the shrinkage is 0 and
    C = S, as scikit-learn's LedoitWolf (planted: the shrinkage for β = 0 set to -1)."""
    from sklearn.covariance import LedoitWolf

    from fastelm.connectome import ledoit_wolf_covariances

    s = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 7.0]])
    x = s - s.mean(axis=0)
    np.testing.assert_array_equal(ledoit_wolf_covariances([s])[0], x.T @ x / 2)
    np.testing.assert_allclose(ledoit_wolf_covariances([s])[0], LedoitWolf().fit(s).covariance_,
                               rtol=1e-15, atol=0)


@pytest.mark.mutant
def test_series_list_names_the_bad_subject_after_a_good_first_one():
    """A good first subject and a 1-D last one: the message names the last one's shape
    (planted by cosmic-ray: M read from the last subject, ``subjects[-1].ndim == 2``, so M is
    None and subject 0 is blamed)."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"subject 1 has shape \(12,\)"):
        as_series_list([rng.standard_normal((12, 3)), rng.standard_normal(12)])


@pytest.mark.mutant
def test_transform_refuses_more_rois_than_fitted():
    """Fitted on 4 ROIs, given 5: refused by name, as fewer are (planted by cosmic-ray: the
    check ``!=`` → ``<``, which let 10 features out of a 6-feature transformer)."""
    rng = np.random.default_rng(1)
    fitted = ConnectomeTransformer(kind="correlation").fit(
        [rng.standard_normal((30, 4)) for _ in range(3)])
    for width in (3, 5):
        with pytest.raises(ValueError, match=f"X has {width} ROIs; the transformer was fitted on 4"):
            fitted.transform([rng.standard_normal((30, width)) for _ in range(2)])
