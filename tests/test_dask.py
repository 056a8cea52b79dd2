"""fastelm.dask: fits on Dask collections equal the in-memory fits; joblib's Dask backend.

Everything runs on one module-scoped LocalCluster: 2 worker processes, 1 thread each.
"""
import os
import warnings

import numpy as np
import pytest

pytest.importorskip("dask.distributed")
import dask.array as da  # noqa: E402
from dask.distributed import Client, LocalCluster  # noqa: E402

from fastelm import (ELMClassifier, ELMRegressor, FOSELMRegressor, OSELMClassifier,  # noqa: E402
                     OSELMRegressor)
from fastelm.dask import (fit_dask, is_dask_input, parallel_backend,  # noqa: E402
                          partial_fit_dask, predict_dask)

RTOL = 1e-8


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GB",
                      dashboard_address=None) as cluster, Client(cluster) as c:
        yield c


def _data(n=1500, d=7, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    Y = np.c_[np.sin(X[:, 0]) + 0.1 * rng.standard_normal(n), X[:, 1] * X[:, 2]]
    labels = np.array(["ant", "bee", "cat"])[(X[:, 0] > 0).astype(int) + (X[:, 1] > 0.8)]
    return X, Y, labels


def _close(actual, expected, rtol=RTOL):
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=rtol * np.abs(expected).max())


def _same_model(dask_model, memory_model):
    np.testing.assert_array_equal(dask_model.W_, memory_model.W_)
    np.testing.assert_array_equal(dask_model.b_, memory_model.b_)
    _close(dask_model.beta_, memory_model.beta_)


@pytest.mark.parametrize("multi_output, split_every", [(False, 2), (True, 8)])
def test_regressor_equals_in_memory_fit(client, multi_output, split_every):
    X, Y, _ = _data()
    y = Y if multi_output else Y[:, 0]
    Xd = da.from_array(X, chunks=(137, 3))  # ragged row chunks, X split across columns too
    yd = da.from_array(y, chunks=400)  # y chunked differently from X
    memory = ELMRegressor(n_hidden=60, random_state=3).fit(X, y)
    model = fit_dask(ELMRegressor(n_hidden=60, random_state=3), Xd, yd, split_every=split_every)
    _same_model(model, memory)
    assert model.n_features_in_ == 7 and not hasattr(model, "feature_names_in_")
    pred = predict_dask(model, Xd)
    assert is_dask_input(pred) and pred.shape == memory.predict(X).shape
    _close(pred.compute(), memory.predict(X))


def test_classifier_equals_in_memory_fit(client):
    X, _, labels = _data()
    Xd, yd = da.from_array(X, chunks=(200, 7)), da.from_array(labels, chunks=200)
    memory = ELMClassifier(n_hidden=80, alpha=1e-2, random_state=1).fit(X, labels)
    model = fit_dask(ELMClassifier(n_hidden=80, alpha=1e-2, random_state=1), Xd, yd)
    assert model.classes_.tolist() == ["ant", "bee", "cat"]
    _same_model(model, memory)
    assert np.array_equal(predict_dask(model, Xd).compute(), memory.predict(X))
    _close(predict_dask(model, Xd, "predict_proba").compute(), memory.predict_proba(X))
    _close(predict_dask(model, Xd, "decision_function").compute(), memory.decision_function(X))
    binary = fit_dask(ELMClassifier(n_hidden=30, random_state=0), Xd, yd == "bee")
    scores = predict_dask(binary, Xd, "decision_function")
    assert scores.ndim == 1
    _close(scores.compute(), ELMClassifier(n_hidden=30, random_state=0)
           .fit(X, labels == "bee").decision_function(X))


def test_oselm_pair_equals_batch_elm(client):
    X, Y, labels = _data()
    Xd = da.from_array(X, chunks=(250, 7))
    batch = ELMRegressor(n_hidden=60, alpha=1e-3, random_state=4).fit(X, Y)
    online = fit_dask(OSELMRegressor(n_hidden=60, random_state=4), Xd, da.from_array(Y, 250))
    _same_model(online, batch)
    assert online.rls_.n_seen == len(X) and online.rls_.forms == ["information"]
    # dask chunks after in-memory ones, and in-memory ones after dask: still the batch fit
    online = OSELMRegressor(n_hidden=60, random_state=4).partial_fit(X[:40], Y[:40])
    partial_fit_dask(online, Xd[40:1200], Y[40:1200])
    online.partial_fit(X[1200:], Y[1200:])
    _close(online.beta_, batch.beta_)
    assert online.rls_.n_seen == len(X)

    clf_batch = ELMClassifier(n_hidden=60, alpha=1e-3, random_state=2).fit(X, labels)
    clf = fit_dask(OSELMClassifier(n_hidden=60, random_state=2), Xd, labels)
    _same_model(clf, clf_batch)
    with pytest.raises(ValueError, match="labels not in classes_"):
        partial_fit_dask(clf, Xd, np.where(labels == "ant", "dog", labels))


def test_sequential_partial_fit_over_chunks_in_order(client):
    """sequential=True (forced for FOS-ELM): partial_fit on each dask chunk, in order."""
    X, Y, labels = _data(n=900)
    Xd = da.from_array(X, chunks=(150, 7))
    online = OSELMClassifier(n_hidden=40, random_state=0)
    for s in range(0, 900, 150):
        online.partial_fit(X[s:s + 150], labels[s:s + 150], classes=np.unique(labels))
    seq = fit_dask(OSELMClassifier(n_hidden=40, random_state=0), Xd, labels, sequential=True)
    assert seq.rls_.forms == online.rls_.forms and len(seq.rls_.forms) == 6
    np.testing.assert_array_equal(seq.beta_, online.beta_)

    fos = FOSELMRegressor(n_hidden=60, delta=1e-2, random_state=0)
    for s in range(0, 900, 150):
        fos.partial_fit(X[s:s + 150], Y[s:s + 150])
    fos_dask = fit_dask(FOSELMRegressor(n_hidden=60, delta=1e-2, random_state=0), Xd, Y)
    assert fos_dask.n_nodes_history_ == fos.n_nodes_history_
    np.testing.assert_array_equal(fos_dask.beta_, fos.beta_)


def test_zarr_and_hdf5_sources(client, tmp_path):
    zarr = pytest.importorskip("zarr")
    h5py = pytest.importorskip("h5py")
    X, Y, _ = _data()
    memory = ELMRegressor(n_hidden=50, random_state=7).fit(X, Y[:, 0])

    da.to_zarr(da.from_array(X, chunks=(300, 7)), str(tmp_path / "X.zarr"))
    da.to_zarr(da.from_array(Y[:, 0], chunks=300), str(tmp_path / "y.zarr"))
    Xz, yz = da.from_zarr(str(tmp_path / "X.zarr")), da.from_zarr(str(tmp_path / "y.zarr"))
    _same_model(fit_dask(ELMRegressor(n_hidden=50, random_state=7), Xz, yz), memory)
    Xz, yz = zarr.open(str(tmp_path / "X.zarr"), mode="r"), zarr.open(str(tmp_path / "y.zarr"))
    _same_model(fit_dask(ELMRegressor(n_hidden=50, random_state=7), Xz, yz), memory)  # lazily

    with h5py.File(tmp_path / "data.h5", "w") as f:
        f["X"], f["y"] = X, Y[:, 0]
    with h5py.File(tmp_path / "data.h5", "r") as f:
        Xh, yh = da.from_array(f["X"], chunks=(400, 7)), da.from_array(f["y"], chunks=400)
        model = fit_dask(ELMRegressor(n_hidden=50, random_state=7), Xh, yh)
        pred = predict_dask(model, Xh).compute()
    _same_model(model, memory)
    _close(pred, memory.predict(X))


def test_dask_dataframe_and_parquet(client, tmp_path):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, Y, labels = _data()
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(7)]).assign(y=Y[:, 0], label=labels)
    features = [f"x{i}" for i in range(7)]
    memory = ELMRegressor(n_hidden=50, random_state=7).fit(frame[features], frame["y"])
    ddf = dd.from_pandas(frame, npartitions=4)
    model = fit_dask(ELMRegressor(n_hidden=50, random_state=7), ddf[features], ddf["y"])
    _same_model(model, memory)
    assert list(model.feature_names_in_) == features
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no feature-name warnings on a frame
        _close(predict_dask(model, ddf[features]).compute(), memory.predict(frame[features]))

    pytest.importorskip("pyarrow")
    ddf.to_parquet(tmp_path / "data.parquet")
    table = dd.read_parquet(tmp_path / "data.parquet")
    clf_memory = ELMClassifier(n_hidden=50, random_state=7).fit(frame[features], labels)
    clf = fit_dask(ELMClassifier(n_hidden=50, random_state=7), table[features], table["label"])
    assert clf.classes_.tolist() == ["ant", "bee", "cat"]
    _same_model(clf, clf_memory)
    # dask.array from a dask DataFrame (unknown chunk lengths) with y as a dask array
    Xa, ya = ddf[features].to_dask_array(), ddf["y"].to_dask_array()
    _same_model(fit_dask(ELMRegressor(n_hidden=50, random_state=7), Xa, ya), memory)


def test_fewer_rows_than_hidden_nodes_uses_the_in_memory_dual_fit(client):
    X, Y, _ = _data(n=30)
    memory = ELMRegressor(n_hidden=50, random_state=0).fit(X, Y)
    _same_model(fit_dask(ELMRegressor(n_hidden=50, random_state=0),
                         da.from_array(X, chunks=(10, 7)), Y), memory)


def test_bad_input(client):
    X, Y, labels = _data(n=300)
    bad = X.copy()
    bad[250, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        fit_dask(ELMRegressor(n_hidden=20), da.from_array(bad, chunks=(100, 7)), Y)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        fit_dask(ELMRegressor(n_hidden=20), da.from_array(X, chunks=(100, 7)), Y[:-1])
    with pytest.raises(ValueError, match="one class"):
        fit_dask(ELMClassifier(n_hidden=20), da.from_array(X, chunks=(100, 7)), np.ones(300))
    model = fit_dask(ELMRegressor(n_hidden=20), da.from_array(X, chunks=(100, 7)), Y)
    with pytest.raises(ValueError, match="features"):
        predict_dask(model, da.from_array(X[:, :5]))
    with pytest.raises(TypeError, match="fastelm ELM"):
        fit_dask(object(), da.from_array(X), Y)


def test_a_chunk_with_other_columns_is_a_one_line_error(client):
    """A chunk whose column count differs from X's metadata: a ValueError naming X, not a
    matmul traceback from a worker."""
    import dask
    X, Y, _ = _data(n=300)
    ragged = da.concatenate([da.from_array(X[:200], chunks=(100, 7)), da.from_delayed(
        dask.delayed(np.ascontiguousarray)(X[200:, :5]), shape=(100, 7), dtype=float)])
    with pytest.raises(ValueError, match="^X has a chunk with 5 columns where its other"):
        fit_dask(ELMRegressor(n_hidden=20), ragged, Y)


def test_worker_blas_limit(client):
    from fastelm.dask import _limit_worker_blas
    auto = client.run(_limit_worker_blas, "auto", os.getpid())
    assert all(v is None for v in auto.values())  # 1-thread workers are left alone
    limited = client.run(_limit_worker_blas, 1, os.getpid())
    assert len(limited) == 2 and all(set(v) <= {1} for v in limited.values())


def test_cross_validate_on_the_cluster(client):
    import joblib
    from sklearn.datasets import make_classification
    from sklearn.model_selection import cross_validate
    X, y = make_classification(n_samples=300, n_features=8, random_state=0)
    model = ELMClassifier(n_hidden=40, random_state=0)
    local = cross_validate(model, X, y, cv=4)["test_score"]
    with parallel_backend(client):
        remote = cross_validate(model, X, y, cv=4, n_jobs=-1)["test_score"]
        pids = joblib.Parallel(n_jobs=-1)(joblib.delayed(os.getpid)() for _ in range(8))
    np.testing.assert_array_equal(remote, local)
    workers = set(client.run(os.getpid).values())
    assert set(pids) <= workers and os.getpid() not in pids


def test_estimator_methods_dispatch_dask_inputs(client):
    X, Y, labels = _data(n=600)
    Xd, yd = da.from_array(X, chunks=(200, 7)), da.from_array(labels, chunks=200)
    clf = ELMClassifier(n_hidden=30, random_state=0).fit(Xd, yd)
    memory = ELMClassifier(n_hidden=30, random_state=0).fit(X, labels)
    _same_model(clf, memory)  # alpha='gcv' chosen from the tree-summed sums: the same choice
    assert clf.alpha_ == pytest.approx(memory.alpha_, rel=1e-9)
    for method in ("predict", "predict_proba", "decision_function"):
        out = getattr(clf, method)(Xd)
        assert is_dask_input(out)
        if method == "predict":
            assert np.array_equal(out.compute(), memory.predict(X))
        else:
            _close(out.compute(), getattr(memory, method)(X))
    reg = ELMRegressor(n_hidden=30, random_state=0).fit(Xd, da.from_array(Y, chunks=(200, 2)))
    _close(reg.predict(Xd).compute(), ELMRegressor(n_hidden=30, random_state=0).fit(X, Y)
           .predict(X))
    online = OSELMClassifier(n_hidden=30, random_state=0)
    online.partial_fit(Xd[:300], yd[:300], classes=np.unique(labels))
    online.partial_fit(X[300:], labels[300:])
    _close(online.beta_, ELMClassifier(n_hidden=30, alpha=online.alpha, random_state=0)
           .fit(X, labels).beta_)


def test_module_imports_no_dask_at_import_time():
    """Dask is optional: fastelm.dask imports it only inside functions (checked on the source,
    since this process has dask loaded already)."""
    import ast
    import fastelm.dask as module
    tree = ast.parse(open(module.__file__).read())
    top_level = set()
    for node in tree.body:
        if isinstance(node, ast.Import):
            top_level.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            top_level.add(node.module.split(".")[0])
    assert top_level and not top_level & {"dask", "distributed", "joblib", "pandas"}
    assert not module.is_dask_input(np.ones(3), [1], None)


@pytest.mark.slow
def test_200mb_fit_equals_in_memory(client):
    """The benchmark's check: 200 MB generated chunk by chunk; dask fit == in-memory fit."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dask_large.py"
    spec = importlib.util.spec_from_file_location("fastelm_bench_dask_large", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)  # its data are dask's own tasks: workers need not import it
    result = bench.verify(gigabytes=0.2, n_features=100, n_hidden=200, chunk_rows=50_000)
    assert result["same_W"]
    assert result["beta_rel_err"] < RTOL and result["pred_rel_err"] < RTOL


@pytest.mark.parametrize("y_partitions", [4, 3])
def test_dask_frames_whose_index_misaligns_are_named(y_partitions):
    """Issue 25 item 14: X and y dask DataFrames are joined on their index; rows of X without
    a row of y are a one-line error that names the misalignment (it was "Input y contains NaN
    or infinity", the NaN being made by the join). Partitions that differ on the same index
    still fit the in-memory model."""
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X, Y, _ = _data(n=100, d=3)
    y = Y[:, 0]
    frame, target = pd.DataFrame(X, columns=list("abc")), pd.Series(y)
    Xd = dd.from_pandas(frame, npartitions=4)
    for model in (ELMRegressor(n_hidden=5, random_state=0),
                  OSELMRegressor(n_hidden=5, random_state=0)):
        with pytest.raises(ValueError, match=r"^X and y are not aligned: 10 row\(s\) of X .*"
                                             r"index \[90, 91, 92\].* give y the index of X$"):
            model.fit(Xd, dd.from_pandas(target[:90], npartitions=y_partitions))
        longer = pd.Series(np.r_[y, np.zeros(10)])  # 10 rows on an index X lacks
        with pytest.raises(ValueError, match=r"^X and y are not aligned: y has 110 rows, 10 of "
                                             r"them on an index that no row of X has"):
            model.fit(Xd, dd.from_pandas(longer, npartitions=y_partitions))
        fitted = model.fit(Xd, dd.from_pandas(target, npartitions=y_partitions))
        alpha = getattr(fitted, "alpha_", fitted.alpha)  # ELM: chosen by GCV; OS-ELM: 1e-3
        _close(fitted.predict(X), ELMRegressor(n_hidden=5, alpha=alpha, random_state=0)
               .fit(X, y).predict(X))

@pytest.mark.slow
def test_bls_benchmark_dask_fit_equals_in_memory(client):
    """The BLS benchmark's comparison at a small size: the same accuracy, beta to round-off."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_dask_large.py"
    spec = importlib.util.spec_from_file_location("fastelm_bench_dask_large", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    result = bench.run_bls(0.004, 50, 40, 2000, memory_gb=0.004, n_windows=3)
    assert result["worker_processes_seen"] == 2 and result["rows"] == 10_000
    assert result["small_dask_accuracy"] == result["small_in_memory_accuracy"]
    assert result["small_beta_rel_err_dask_vs_memory"] < RTOL


# --------------------------------------------------------------------------- BLS on Dask

def _bls_kwargs(**kw):
    return {**dict(n_windows=3, nodes_per_window=4, n_enhancement=60, reg=1e-3, random_state=2,
                   layer_rows=400), **kw}


def _same_bls(dask_model, memory_model):
    np.testing.assert_array_equal(dask_model.sparse_weights_, memory_model.sparse_weights_)
    for a, b in zip(dask_model.enhancement_weights_, memory_model.enhancement_weights_):
        np.testing.assert_array_equal(a, b)
    assert dask_model.enhancement_shrink_ == memory_model.enhancement_shrink_
    _close(dask_model.beta_, memory_model.beta_)


@pytest.fixture
def no_gathering(monkeypatch):
    """Every Dask result that reaches this process is small: the layer sample (at most
    ``limit`` rows of X) or Gram sums; gathering X or y whole raises."""
    from fastelm import dask as fdask

    def gather(self, coding):
        raise AssertionError("the rows were gathered")

    def compute(self, *collections):
        out = original(self, *collections)
        nbytes = sum(np.asarray(part).nbytes for part in out if hasattr(part, "shape"))
        if nbytes > 400 * 7 * 8:
            raise AssertionError(f"{nbytes} bytes of rows reached the driver")
        return out

    original = fdask.DaskRows._compute
    monkeypatch.setattr(fdask.DaskRows, "gather", gather)
    monkeypatch.setattr(fdask.DaskRows, "_compute", compute)


@pytest.mark.parametrize("direct_links, preprocessing", [(False, "minmax"),
                                                         (True, "reference")])
def test_bls_equals_in_memory_fit_with_the_same_layer_rows(client, no_gathering, direct_links,
                                                            preprocessing):
    from fastelm import BLSClassifier, BLSRegressor
    X, Y, labels = _data()
    kw = _bls_kwargs(direct_links=direct_links, preprocessing=preprocessing)
    Xd = da.from_array(X, chunks=(137, 7))
    regressor = BLSRegressor(**kw).fit(Xd, da.from_array(Y, chunks=(137, 2)))
    memory = BLSRegressor(**kw).fit(X, Y)
    _same_bls(regressor, memory)
    assert regressor.feature_nodes_ is None and regressor.n_features_in_ == 7
    prediction = regressor.predict(Xd)
    assert is_dask_input(prediction)
    _close(prediction.compute(), memory.predict(X))
    classifier = BLSClassifier(**kw).fit(Xd, da.from_array(labels, chunks=137))
    memory = BLSClassifier(**kw).fit(X, labels)
    _same_bls(classifier, memory)
    assert np.array_equal(classifier.predict(Xd).compute(), memory.predict(X))
    _close(classifier.predict_proba(Xd).compute(), memory.predict_proba(X))
    _close(classifier.decision_function(Xd).compute(), memory.decision_function(X))


def test_bls_dask_dataframe_and_unknown_chunks(client):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from fastelm import BLSClassifier, BLSRegressor
    X, Y, labels = _data()
    features = [f"x{i}" for i in range(7)]
    frame = pd.DataFrame(X, columns=features).assign(y=Y[:, 0], label=labels)
    ddf = dd.from_pandas(frame, npartitions=5)
    memory = BLSRegressor(**_bls_kwargs()).fit(frame[features], frame["y"])
    model = BLSRegressor(**_bls_kwargs()).fit(ddf[features], ddf["y"])
    _same_bls(model, memory)
    assert list(model.feature_names_in_) == features
    _close(model.predict(ddf[features]).compute(), memory.predict(frame[features]))
    unknown = ddf[features].to_dask_array(), ddf["label"].to_dask_array()
    assert np.isnan(unknown[0].shape[0])
    _same_bls(BLSClassifier(**_bls_kwargs(direct_links=True)).fit(*unknown),
              BLSClassifier(**_bls_kwargs(direct_links=True)).fit(X, labels))


@pytest.mark.parametrize("estimator", ["BLSRegressor", "BLSClassifier"])
def test_bls_increments_on_dask_equal_in_memory(client, no_gathering, estimator, monkeypatch):
    import fastelm
    from fastelm import dask as fdask
    X, Y, labels = _data()
    y = labels if estimator == "BLSClassifier" else Y[:, 0]
    make = getattr(fastelm, estimator)
    Xd, yd = da.from_array(X, chunks=(250, 7)), da.from_array(y, chunks=250)
    memory = make(**_bls_kwargs(direct_links=True)).fit(X[:1000], y[:1000])
    model = make(**_bls_kwargs(direct_links=True)).fit(Xd[:1000], yd[:1000])
    memory.add_rows(X[1000:], y[1000:])
    model.add_rows(Xd[1000:], yd[1000:])
    _same_bls(model, memory)
    gone = np.r_[10:60, 1200:1230]
    memory.remove_rows(gone)
    model.remove_rows(Xd[gone], yd[gone])
    _same_bls(model, memory)
    keep = np.setdiff1d(np.arange(1500), gone)
    memory.add_enhancement_nodes(25)
    whole = _counting(monkeypatch, fdask.DaskRows, "gram_sums")
    new = _counting(monkeypatch, fdask.DaskRows, "column_sums")
    model.add_enhancement_nodes(25, Xd[keep], yd[keep])  # every row learned, read twice
    assert whole == [] and new == ["column_sums"]  # the second pass: the new columns only
    _same_bls(model, memory)
    np.testing.assert_array_equal(model.rng_.random(3), memory.rng_.random(3))
    with pytest.raises(ValueError, match="not the 1420 rows"):
        model.add_enhancement_nodes(5, Xd[:1420], yd[:1420])
    assert len(model.enhancement_weights_) == 2  # nothing changed


def test_bls_dask_rows_into_a_model_fitted_in_memory(client):
    from fastelm import BLSClassifier, BLSRegressor
    X, Y, labels = _data()
    memory = BLSClassifier(**_bls_kwargs()).partial_fit(X[:700], labels[:700],
                                                        classes=["ant", "bee", "cat"])
    mixed = BLSClassifier(**_bls_kwargs()).fit(X[:700], labels[:700])
    memory.partial_fit(X[700:], labels[700:])
    mixed.partial_fit(da.from_array(X[700:], chunks=300), da.from_array(labels[700:], chunks=300))
    assert mixed.feature_nodes_ is None  # the model now keeps its Gram state, not its rows
    _same_bls(mixed, memory)
    # fewer rows than nodes in all: the Dask rows are gathered and learned in memory
    few = BLSRegressor(**_bls_kwargs(layer_rows=30)).fit(X[:30], Y[:30])
    few_memory = BLSRegressor(**_bls_kwargs(layer_rows=30)).fit(X[:30], Y[:30])
    few.add_rows(da.from_array(X[30:40], chunks=5), da.from_array(Y[30:40], chunks=(5, 2)))
    few_memory.add_rows(X[30:40], Y[30:40])
    assert few.feature_nodes_.shape[0] == 40 and few.gram_.form == "dual"
    _same_bls(few, few_memory)
    dask_fitted = BLSRegressor(**_bls_kwargs(layer_rows=20)).fit(
        da.from_array(X[:40], chunks=10), da.from_array(Y[:40], chunks=(10, 2)))
    _same_bls(dask_fitted, BLSRegressor(**_bls_kwargs(layer_rows=20)).fit(X[:40], Y[:40]))


def test_bls_fitted_on_dask_pickles_and_predicts_in_memory(client):
    import pickle

    from fastelm import BLSClassifier
    X, _, labels = _data()
    model = BLSClassifier(**_bls_kwargs()).fit(da.from_array(X, chunks=200),
                                               da.from_array(labels, chunks=200))
    restored = pickle.loads(pickle.dumps(model))
    memory = BLSClassifier(**_bls_kwargs()).fit(X, labels)
    _close(restored.predict_proba(X), memory.predict_proba(X))
    assert np.array_equal(restored.predict(X), memory.predict(X))
    restored.add_rows(X[:100], labels[:100])  # rows in memory into a model keeping no rows
    memory.add_rows(X[:100], labels[:100])
    _same_bls(restored, memory)


def test_bls_layer_rows_default_and_bad_input(client):
    import dask

    from fastelm import BLSRegressor
    X, Y, _ = _data(n=600)
    default = BLSRegressor(**_bls_kwargs(layer_rows="auto")).fit(X, Y)
    every = BLSRegressor(**_bls_kwargs(layer_rows=600)).fit(X, Y)
    np.testing.assert_array_equal(default.beta_, every.beta_)  # 'auto' in memory: every row
    sample = BLSRegressor(**_bls_kwargs(layer_rows=599)).fit(X, Y)
    assert not np.array_equal(sample.sparse_weights_, every.sparse_weights_)
    Xd = da.from_array(X, chunks=(200, 7))
    # 'auto' on Dask: min(n, 10000) rows, here every one
    np.testing.assert_array_equal(BLSRegressor(**_bls_kwargs(layer_rows="auto")).fit(Xd, Y)
                                  .sparse_weights_, every.sparse_weights_)
    for data in ((X, Y), (Xd, Y)):
        with pytest.raises(ValueError, match=r"^layer_rows=601 is more than the 600 training"):
            BLSRegressor(**_bls_kwargs(layer_rows=601)).fit(*data)
    with pytest.raises(ValueError, match="layer_rows"):
        BLSRegressor(layer_rows=0).fit(X, Y)
    ragged = da.concatenate([Xd[:300], da.from_delayed(dask.delayed(np.ascontiguousarray)(
        X[300:, :5]), shape=(300, 7), dtype=float)])
    with pytest.raises(ValueError, match="X has a chunk with 5 columns where its other"):
        BLSRegressor(**_bls_kwargs(layer_rows=599)).fit(ragged, Y)
    model = BLSRegressor(**_bls_kwargs()).fit(Xd, Y)
    with pytest.raises(ValueError, match=r"^rows: this model keeps no rows"):
        model.remove_rows([0, 1])
    with pytest.raises(ValueError, match=r"^X, y: this model keeps no rows"):
        model.add_enhancement_nodes(5)
    with pytest.raises(ValueError, match="cannot remove every learned row"):
        model.remove_rows(Xd, Y)
    with pytest.raises(ValueError, match=r"^X: 610 rows to forget, but this model learned 600"):
        model.remove_rows(da.concatenate([Xd, Xd[:10]]), np.r_[Y, Y[:10]])
    with pytest.raises(ValueError, match=r"^X, y: these 300 rows are not all among the rows"):
        model.remove_rows(10 * Xd[:300], Y[:300])  # Z far outside the learned [0, 1]
    _close(model.beta_, BLSRegressor(**_bls_kwargs()).fit(X, Y).beta_)  # nothing changed
    with pytest.raises(ValueError, match=r"^y: this model keeps the rows"):
        every.remove_rows(X[:3], Y[:3])
    with pytest.raises(ValueError, match=r"^X, y: this model keeps the rows"):
        every.add_enhancement_nodes(5, X, Y)


def test_bls_cv_shared_layer_on_dask_equals_in_memory(client):
    from sklearn.model_selection import KFold, ShuffleSplit, StratifiedKFold

    from fastelm.model_selection import BLSClassifierCV, BLSRegressorCV
    X, Y, labels = _data()
    kw = dict(n_windows=3, nodes_per_window=4, n_enhancement=60, random_state=2,
              shared_layer=True, regs=[1e-3, 1e-2, 1e-1, 1.0])
    Xd = da.from_array(X, chunks=(300, 7))
    memory = BLSRegressorCV(cv=KFold(4), **kw).fit(X, Y[:, 0])
    model = BLSRegressorCV(cv=KFold(4), **kw).fit(Xd, da.from_array(Y[:, 0], chunks=300))
    assert (model.reg_, model.direct_links_) == (memory.reg_, memory.direct_links_)
    _close(model.cv_results_["mean_test_score"], memory.cv_results_["mean_test_score"])
    _close(model.beta_, memory.beta_)
    assert model.feature_nodes_ is None
    # a scorer: the validation rows of I come chunk by chunk; ±1 targets (reference)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    kw.update(scoring="accuracy", preprocessing="reference", direct_links=[False, True])
    memory = BLSClassifierCV(cv=cv, **kw).fit(X, labels)
    model = BLSClassifierCV(cv=cv, **kw).fit(Xd, da.from_array(labels, chunks=300))
    np.testing.assert_array_equal(model.cv_results_["mean_test_score"],
                                  memory.cv_results_["mean_test_score"])
    assert (model.reg_, model.direct_links_) == (memory.reg_, memory.direct_links_)
    _close(model.decision_function(Xd).compute(), memory.decision_function(X))
    with pytest.raises(ValueError, match=r"^cv: with Dask inputs the test folds must be"):
        BLSRegressorCV(cv=ShuffleSplit(3, random_state=0), shared_layer=True,
                       n_enhancement=60).fit(Xd, Y[:, 0])
    with pytest.raises(ValueError, match=r"^cv='gcv' needs the rows in memory"):
        BLSRegressorCV(cv="gcv", shared_layer=True).fit(Xd, Y[:, 0])


def _counting(monkeypatch, cls, name):
    """Wrap ``cls.name`` to count its calls; returns the list of calls."""
    calls, original = [], getattr(cls, name)

    def counted(self, *args, **kwargs):
        calls.append(name)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(cls, name, counted)
    return calls


def test_bls_cv_layer_per_split_on_dask_equals_in_memory(client, no_gathering, monkeypatch):
    """shared_layer=False on Dask: each split's layer from layer_rows of its training rows,
    every split's sums from one pass, equal to the in-memory search with the same layer rows."""
    from sklearn.model_selection import KFold

    from fastelm import dask as fdask
    from fastelm.model_selection import BLSRegressorCV
    X, Y, _ = _data()
    kw = dict(n_windows=3, nodes_per_window=4, n_enhancement=60, random_state=2,
              regs=[1e-3, 1e-2, 1e-1, 1.0], layer_rows=400, cv=KFold(4))
    memory = BLSRegressorCV(**kw).fit(X, Y[:, 0])
    passes = _counting(monkeypatch, fdask.DaskRows, "split_gram_sums")
    model = BLSRegressorCV(**kw).fit(da.from_array(X, chunks=(300, 7)),
                                     da.from_array(Y[:, 0], chunks=300))
    assert passes == ["split_gram_sums"]  # both link settings, 4 splits: one pass
    for k in range(4):
        _close(model.cv_results_[f"split{k}_test_score"],
               memory.cv_results_[f"split{k}_test_score"])
    assert (model.reg_, model.direct_links_) == (memory.reg_, memory.direct_links_)
    _same_bls(model, memory)  # the refit: the layer from 400 of all rows, on Dask
    assert model.feature_nodes_ is None


def test_bls_cv_layer_per_split_on_dask_scorer_and_generator(client):
    """A scorer (validation rows of each split's I chunk by chunk), ±1 targets, a Generator
    random_state (the layers differ per link setting: a pass each), bad splits and sizes."""
    from sklearn.model_selection import ShuffleSplit, StratifiedKFold

    from fastelm.model_selection import BLSClassifierCV
    X, _, labels = _data()
    Xd, yd = da.from_array(X, chunks=(300, 7)), da.from_array(labels, chunks=300)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    kw = dict(n_windows=3, nodes_per_window=4, n_enhancement=60, regs=[1e-3, 1e-1, 1.0],
              layer_rows=300, cv=cv)
    memory = BLSClassifierCV(scoring="accuracy", preprocessing="reference", random_state=2,
                             **kw).fit(X, labels)
    model = BLSClassifierCV(scoring="accuracy", preprocessing="reference", random_state=2,
                            **kw).fit(Xd, yd)
    np.testing.assert_array_equal(model.cv_results_["mean_test_score"],
                                  memory.cv_results_["mean_test_score"])
    assert (model.reg_, model.direct_links_) == (memory.reg_, memory.direct_links_)
    _close(model.decision_function(Xd).compute(), memory.decision_function(X))
    memory = BLSClassifierCV(random_state=np.random.default_rng(5), **kw).fit(X, labels)
    model = BLSClassifierCV(random_state=np.random.default_rng(5), **kw).fit(Xd, yd)
    _close(model.cv_results_["mean_test_score"], memory.cv_results_["mean_test_score"])
    _close(model.beta_, memory.beta_)
    with pytest.raises(ValueError, match=r"^cv: with Dask inputs the test folds must be"):
        BLSClassifierCV(cv=ShuffleSplit(3, random_state=0), n_enhancement=60).fit(Xd, yd)
    import dask
    ragged = da.concatenate([Xd[:900], da.from_delayed(dask.delayed(np.ascontiguousarray)(
        X[900:, :5]), shape=(600, 7), dtype=float)])
    for shared_layer in (False, True):
        with pytest.raises(ValueError, match="X has a chunk with 5 columns where its other"):
            BLSClassifierCV(**{**kw, "shared_layer": shared_layer}).fit(ragged, yd)
    for data in ((X, labels), (Xd, yd)):  # 1000 training rows per split
        with pytest.raises(ValueError, match=r"^layer_rows=1001 is more than the 1000 train"):
            BLSClassifierCV(**{**kw, "layer_rows": 1001}).fit(*data)


def test_bls_cv_layer_rows_in_memory():
    """layer_rows on the BLS CV estimators: 'auto' is every training row (the search before the
    parameter, bit for bit), an int the layer sample of each split, scored as GridSearchCV over
    BLSRegressor(layer_rows=...) scores it; the shared layer from layer_rows of all rows."""
    from sklearn.model_selection import GridSearchCV, KFold

    from fastelm import BLSRegressor
    from fastelm.model_selection import BLSRegressorCV
    X, Y, _ = _data(n=400)
    kw = dict(n_windows=3, nodes_per_window=4, n_enhancement=40, random_state=2,
              regs=[1e-3, 1e-1], direct_links=False, cv=KFold(4))
    auto = BLSRegressorCV(**kw).fit(X, Y[:, 0])
    every = BLSRegressorCV(layer_rows=300, **kw).fit(X, Y[:, 0])  # 300 training rows a split
    for key in ("mean_test_score", "split0_test_score", "split3_test_score"):
        np.testing.assert_array_equal(auto.cv_results_[key], every.cv_results_[key])
    sampled = BLSRegressorCV(layer_rows=120, **kw).fit(X, Y[:, 0])
    assert not np.array_equal(sampled.cv_results_["mean_test_score"],
                              auto.cv_results_["mean_test_score"])
    grid = GridSearchCV(BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=40,
                                     random_state=2, layer_rows=120),
                        {"reg": [1e-3, 1e-1]}, cv=KFold(4), scoring="neg_mean_squared_error"
                        ).fit(X, Y[:, 0])
    _close(sampled.cv_results_["mean_test_score"], grid.cv_results_["mean_test_score"])
    shared = BLSRegressorCV(layer_rows=120, shared_layer=True, **kw).fit(X, Y[:, 0])
    layer = BLSRegressor(n_windows=3, nodes_per_window=4, n_enhancement=40, random_state=2,
                         layer_rows=120, reg=shared.reg_).fit(X, Y[:, 0])
    _same_bls(shared, layer)
    assert BLSRegressorCV(layer_rows=7).get_params()["layer_rows"] == 7
    with pytest.raises(ValueError, match="layer_rows"):
        BLSRegressorCV(layer_rows=0, **kw).fit(X, Y[:, 0])


@pytest.mark.parametrize("direct_links", [False, True])
def test_bls_float32_on_dask_as_accurate_as_in_memory(client, direct_links):
    """dtype='float32' on Dask: the same layer; each chunk's float32 IᵀI summed into float64
    (shifted, as in memory), so the Gram and beta are no further from the exact float64 ridge
    on the same float32 I than the in-memory float32 fit is (measured: Gram 8e-9 relative
    against 1.9e-8 in memory, beta 3e-3 against 5e-3: reg=1e-3 leaves cond(K) ~ 1e7)."""
    from fastelm import BLSRegressor
    X, Y, _ = _data()
    kw = _bls_kwargs(dtype="float32", direct_links=direct_links)
    Xd, Yd = da.from_array(X, chunks=(137, 7)), da.from_array(Y, chunks=(137, 2))
    model, memory = BLSRegressor(**kw).fit(Xd, Yd), BLSRegressor(**kw).fit(X, Y)
    steps = [lambda m: m, lambda m: m.add_enhancement_nodes(20, *((Xd, Yd) if m is model
                                                                   else ()))]
    for step in steps:
        step(model), step(memory)
        np.testing.assert_array_equal(model.sparse_weights_, memory.sparse_weights_)
        assert model.enhancement_shrink_ == memory.enhancement_shrink_
        I = memory.broad_features(X).astype(np.float64)
        K = I.T @ I + kw["reg"] * np.eye(I.shape[1])
        exact = np.linalg.solve(K, I.T @ Y)

        def gram_error(m):
            return np.abs(np.triu(m.gram_.K) - np.triu(K)).max() / np.abs(K).max()

        def beta_error(m):
            return np.abs(m.beta_ - exact).max() / np.abs(exact).max()
        assert model.beta_.dtype == np.float32
        assert gram_error(model) <= 2 * gram_error(memory)
        assert beta_error(model) <= 2 * beta_error(memory)
    # the same float32 model on other row blocks: within the float32 dot products' bound
    # w·eps·(|I| |beta|) (beta is large and cancels: cond(K) ~ 1e7)
    I = model.broad_features(X)
    bound = I.shape[1] * np.finfo(np.float32).eps * (np.abs(I) @ np.abs(model.beta_))
    assert (np.abs(model.predict(Xd).compute() - model.predict(X)) <= bound).all()


# --------------------------------------------------------------------------- mutation kill-tests
# (mutation/dask.toml; each runs on Dask's synchronous scheduler unless it needs workers)

@pytest.fixture
def sync():
    import dask
    with dask.config.set(scheduler="synchronous"):
        yield


def _lying_chunks(good, bad, claimed):
    """A dask array of the numpy arrays ``good`` then ``bad``, ``bad`` claiming ``claimed``."""
    import dask
    return da.concatenate([da.from_array(good, chunks=(len(good),) + good.shape[1:]),
                           da.from_delayed(dask.delayed(np.asarray)(bad), shape=claimed,
                                           dtype=good.dtype)])


@pytest.mark.mutant
def test_fastelm_dask_imports_no_dask_in_a_fresh_process():
    """Importing fastelm.dask runs no import of Dask (not even under TYPE_CHECKING's `if`), and
    is_dask_input is False while Dask was never imported."""
    import subprocess
    import sys
    code = ("import sys, numpy as np, fastelm.dask as m; "
            "assert not m.is_dask_input(np.ones(3), [1], None); "
            "print(sorted(k for k in ('dask', 'distributed') if k in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "[]"


@pytest.mark.mutant
def test_options_and_tree_fan_in():
    """split_every: an int of at least 2 (one-line errors); default 8: the Gram sums of 8
    chunks are added by one task, of 9 by three (8 + 1, then the two)."""
    import dask

    from fastelm.dask import _sum, _tree, options
    for bad in (2.5, 1, 0, True, "3"):
        with pytest.raises(ValueError, match=r"^split_every must be an integer of at least 2, "):
            with options(split_every=bad):
                pass
    with pytest.raises(TypeError, match=r"^unknown Dask options \['splitevery'\]"):
        with options(splitevery=3):
            pass
    with pytest.raises(ValueError, match=r"^split_every must be at least 2, got 1"):
        _tree([dask.delayed(1)], _sum, 1)  # one part: a mutant without the check returns

    def combines(n):
        X = da.from_array(np.ones((n, 2)), chunks=(1, 2))
        tree = fdask.DaskRows(X, np.ones(n))._tree([dask.delayed(i) for i in range(n)], _sum)
        assert tree.compute(scheduler="sync") == n * (n - 1) / 2
        return sum(str(k).startswith("_sum") for k in tree.__dask_graph__())

    from fastelm import dask as fdask
    assert (combines(8), combines(9)) == (1, 3)
    with options(split_every=2):
        assert combines(8) == 7


@pytest.mark.mutant
def test_chunks_unlike_their_metadata_are_one_line_errors(sync):
    """A chunk of X that is 1-D or 3-D, wider or narrower than X's metadata, not numeric; a
    chunk of y shorter or longer than its metadata says: each a one-line ValueError."""
    X, Y, _ = _data(n=200, d=4)
    y = Y[:, 0]
    cases = [(_lying_chunks(X[:100], X[100:, 0], (100, 4)), y,
              r"^Expected 2D array, got a chunk with 1 dimensions"),
             (_lying_chunks(X[:100], X[100:, :, None], (100, 4)), y,
              r"^Expected 2D array, got a chunk with 3 dimensions"),
             (_lying_chunks(X[:100], np.c_[X[100:], X[100:]], (100, 4)), y,
              r"^X has a chunk with 8 columns where its other chunks \(or its metadata\) have 4"),
             (_lying_chunks(X[:100], X[100:, :3], (100, 4)), y,
              r"^X has a chunk with 3 columns where its other chunks \(or its metadata\) have 4"),
             (_lying_chunks(X[:100], np.full((100, 4), "ant", dtype=object), (100, 4)), y,
              r"^X could not be converted to float: "),
             (_lying_chunks(X[:100], np.full((100, 4), {}, dtype=object), (100, 4)), y,
              r"^X could not be converted to float: "),
             (da.from_array(X, chunks=(100, 4)), _lying_chunks(y[:100], y[100:190], (100,)),
              r"^Found input variables with inconsistent numbers of samples: a chunk of X has "
              r"100 rows and the matching chunk of y 90$"),
             (da.from_array(X[:190], chunks=(100, 4)), _lying_chunks(y[:100], y[100:], (90,)),
              r"^Found input variables with inconsistent numbers of samples: a chunk of X has "
              r"90 rows and the matching chunk of y 100$")]
    for Xd, yd, message in cases:
        with pytest.raises(ValueError, match=message):
            ELMRegressor(n_hidden=5, alpha=1.0).fit(Xd, yd)


@pytest.mark.mutant
def test_chunk_tasks_refuse_folds_of_another_length():
    """Per-chunk fold sums refuse a fold vector of another length than the chunk's rows (the
    chunks changed between the pass that counted them and this one)."""
    from types import SimpleNamespace

    from fastelm.dask import _fold_gram_chunk, _split_gram_chunk
    X, y = np.ones((10, 3)), np.ones(10)

    def _column(y):
        return np.asarray(y).reshape(-1, 1)
    feature_map = SimpleNamespace(dtype=np.float64)
    for fold_of in (np.zeros(9, int), np.zeros(11, int)):
        message = rf"^a chunk has 10 rows where {len(fold_of)} were counted$"
        with pytest.raises(ValueError, match=message):
            _fold_gram_chunk(X, y, None, feature_map, _column, fold_of, 2)
        with pytest.raises(ValueError, match=message):
            _split_gram_chunk(X, y, None, [feature_map] * 2, _column, fold_of)


@pytest.mark.mutant
def test_inputs_that_are_not_2d_or_misaligned_are_one_line_errors(sync):
    """X not 2-D (fit, predict, map_rows, a dask Bag), and X, y of different lengths for each
    pairing of Dask and in-memory inputs: messages with the shapes."""
    import dask.bag as db

    from fastelm.dask import map_rows
    X, Y, _ = _data(n=60, d=3)
    model = ELMRegressor(n_hidden=5, alpha=1.0).fit(X, Y[:, 0])
    for bad, ndim in ((da.from_array(X[:, 0], chunks=20), 1),
                      (da.from_array(X[:, :, None], chunks=20), 3)):
        with pytest.raises(ValueError, match=rf"^Expected 2D array, got {ndim}D input X$"):
            ELMRegressor(n_hidden=5).fit(bad, Y[:, 0])
        with pytest.raises(ValueError, match=rf"^Expected 2D array, got {ndim}D input X$"):
            model.predict(bad)
        with pytest.raises(ValueError, match=rf"^Expected 2D array, got {ndim}D array instead"):
            map_rows(np.sum, bad, np.float64, None, np.float64)
    with pytest.raises(ValueError, match=r"^Expected 2D array, got 0D input X$"):
        model.predict(db.from_sequence([1, 2, 3]))
    Xd = da.from_array(X, chunks=(25, 3))
    for n in (59, 61):
        Yn = np.r_[Y, Y][:n]
        both = (Xd, da.from_array(Yn, chunks=(20, 2)), "60, {n}")
        dask_x = (Xd, Yn, "60, {n}")
        dask_y = (np.r_[X, X][:n], da.from_array(Y, chunks=(20, 2)), "{n}, 60")
        for Xa, ya, shapes in (both, dask_x, dask_y):
            with pytest.raises(ValueError, match=r"^Found input variables with inconsistent "
                                                 rf"numbers of samples: \[{shapes.format(n=n)}\]$"):
                ELMRegressor(n_hidden=5).fit(Xa, ya)


@pytest.mark.mutant
def test_dask_and_in_memory_pairings_equal_the_in_memory_fit(sync, monkeypatch):
    """Every pairing _align handles equals the in-memory fit: X a list or a pandas frame (its
    feature names kept) beside a Dask y, chunked like y; y a list; one chunk; chunks smaller
    or larger than X's; X and y with column chunks (two, or several with unknown row lengths);
    a square X; float32; 1-D and 2-D y; in-memory X predicted as a dask array."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn.base import clone

    from fastelm.dask import DaskRows
    X, Y, labels = _data(n=240, d=5)

    def check(Xa, ya, Xm, ym, Est=ELMRegressor, **kw):
        memory = Est(n_hidden=12, alpha=1e-2, random_state=0, **kw).fit(Xm, ym)
        model = Est(n_hidden=12, alpha=1e-2, random_state=0, **kw).fit(Xa, ya)
        _same_model(model, memory)
        out = predict_dask(model, Xm)
        assert is_dask_input(out) and out.shape == np.shape(memory.predict(Xm))
        _close(out.compute(), memory.predict(Xm)) if Est is ELMRegressor else \
            np.testing.assert_array_equal(out.compute(), memory.predict(Xm))
        return model

    def gather(self, coding):
        raise AssertionError("gathered: as many rows as nodes or more are summed on the workers")
    monkeypatch.setattr(DaskRows, "gather", gather)
    yd = da.from_array(Y, chunks=(80, 2))
    assert len(DaskRows(X, yd)._pairs) == 3  # X in memory chunked like y
    rows = DaskRows(da.from_array(X, chunks=(100, 5)), Y)
    assert (rows.n_rows, rows.count(), rows.n_rows) == (240, 240, 240)  # known: no pass
    check(da.from_array(X[:12], chunks=(5, 5)), Y[:12], X[:12], Y[:12])  # n == p
    check(X.tolist(), yd, X, Y)
    check(X, da.from_array(Y[:, 0], chunks=60), X, Y[:, 0])
    frame = pd.DataFrame(X, columns=list("abcde"))
    assert list(check(frame, yd, frame, Y).feature_names_in_) == list("abcde")
    Xd = da.from_array(X, chunks=(100, 5))
    check(Xd, Y[:, 0].tolist(), X, Y[:, 0])
    check(Xd, labels.tolist(), X, labels, Est=ELMClassifier)
    check(da.from_array(X, chunks=(240, 5)), da.from_array(Y, chunks=(240, 1)), X, Y)
    check(Xd, da.from_array(Y, chunks=(30, 1)), X, Y)  # y's chunks smaller than X's
    check(da.from_array(X, chunks=(30, 5)), da.from_array(Y[:, 1], chunks=100), X, Y[:, 1])
    model = check(da.from_array(X, chunks=(240, 3)), Y, X, Y)  # one row chunk, two column ones
    _close(model.predict(da.from_array(X, chunks=(240, 3))).compute(), model.predict(X))
    check(da.from_array(X, chunks=(70, 3)), da.from_array(labels, chunks=70), X, labels,
          Est=ELMClassifier)
    X32 = X.astype(np.float32)
    model = ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0, dtype="float32")
    memory = clone(model).fit(X32, Y)
    model.fit(da.from_array(X32, chunks=(70, 2)), Y)
    assert model.beta_.dtype == np.float32
    _close(model.beta_, memory.beta_, rtol=1e-3)
    ddf = dd.from_pandas(frame.assign(t0=Y[:, 0], t1=Y[:, 1]), npartitions=3)
    unknown = da.concatenate([ddf[["a", "b"]].to_dask_array(),
                              ddf[["c", "d", "e"]].to_dask_array()], axis=1,
                             allow_unknown_chunksizes=True)
    assert np.isnan(unknown.shape[0]) and unknown.numblocks[1] == 2
    rows = DaskRows(unknown, ddf[["t0", "t1"]].to_dask_array())
    assert rows.count() == 240 and rows.n_rows == 240
    for y_unknown, ym in ((ddf[["t0", "t1"]].to_dask_array(), Y), (Y[:, 0], Y[:, 0]),
                          (da.from_array(Y, chunks=(50, 1)), Y)):
        check(unknown, y_unknown, X, ym)
    check(da.from_array(X, chunks=(100, 5)), ddf[["t0", "t1"]].to_dask_array(), X, Y)
    out = ELMRegressor(n_hidden=12, random_state=0).fit(X, Y).predict(unknown)
    assert out.numblocks == (3, 1)
    # a square X (n == d): y's row chunks equal X's column chunks, not its row chunks
    Xs = np.random.default_rng(1).standard_normal((12, 12))
    check(da.from_array(Xs, chunks=(5, 12)), da.from_array(Y[:12], chunks=(12, 2)), Xs,
          Y[:12])
    proba = ELMClassifier(n_hidden=12, random_state=0).fit(X, labels).predict_proba(Xd)
    assert proba.shape == (240, 3) and proba.chunks == ((100, 100, 40), (3,))


class _Disk:
    """An on-disk array (zarr.Array, h5py.Dataset): shape, dtype and slicing, never read
    whole (``np.asarray`` of it fails); records each read."""

    def __init__(self, array):
        self._array, self.shape, self.dtype, self.ndim = array, array.shape, array.dtype, array.ndim
        self.reads = []

    def __getitem__(self, key):
        self.reads.append(key)
        return self._array[key]

    def __len__(self):
        return len(self._array)

    def __array__(self, *args, **kwargs):
        raise AssertionError("the on-disk array was read whole")


@pytest.mark.mutant
def test_on_disk_arrays_beside_dask_ones_are_read_in_row_chunks(sync):
    """An on-disk X or y beside a Dask collection is wrapped by da.from_array: row chunks of
    Dask's 'auto' size, every column in each read, never read whole."""
    import dask
    X, Y, _ = _data(n=240, d=5)
    memory = ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0).fit(X, Y)
    with dask.config.set({"array.chunk-size": "2KiB"}):  # 240 × 5 float64: 9600 bytes
        disk = _Disk(X)
        _same_model(ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0)
                    .fit(disk, da.from_array(Y, chunks=(60, 2))), memory)
        reads = [key for key in disk.reads if key[0].stop > key[0].start]  # not the meta's
        assert len(reads) > 1 and all(rows.stop - rows.start < 240 for rows, _ in reads)
        assert all(columns == slice(0, 5, None) for _, columns in reads)
        disk_y = _Disk(Y[:, 0])
        _same_model(ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0)
                    .fit(da.from_array(X, chunks=(60, 5)), disk_y),
                    ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0).fit(X, Y[:, 0]))
        assert len(disk_y.reads) > 1


@pytest.mark.mutant
def test_one_frame_with_a_target_series_equals_in_memory(sync):
    """X and y columns of one dask DataFrame, y a Series (1-D): the CV searches and the
    estimators equal the in-memory ones, predictions 1-D; a NaN in y is y's error, not a
    misalignment."""
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    from sklearn.model_selection import KFold

    from fastelm.model_selection import ELMClassifierCV, ELMRegressorCV
    X, Y, labels = _data(n=240, d=4)
    frame = pd.DataFrame(X, columns=list("abcd")).assign(y=Y[:, 0], label=labels)
    ddf = dd.from_pandas(frame, npartitions=3)
    cv = KFold(3, shuffle=True, random_state=0)
    for Est, target in ((ELMRegressorCV, "y"), (ELMClassifierCV, "label")):
        params = dict(n_hidden=20, hidden_sizes=[5, 20], cv=cv, random_state=0)
        memory = Est(**params).fit(frame[list("abcd")], frame[target])
        model = Est(**params).fit(ddf[list("abcd")], ddf[target])
        np.testing.assert_allclose(model.cv_results_["mean_test_score"],
                                   memory.cv_results_["mean_test_score"], rtol=1e-8)
        _close(model.beta_, memory.beta_)
        assert model.predict(frame[list("abcd")]).shape == (240,)
        assert model.best_params_ == memory.best_params_
    from fastelm.dask import DaskRows
    for make, shape in ((lambda: DaskRows(ddf[list("abcd")], ddf["y"]), (240,)),
                        (lambda: DaskRows(ddf[list("abcd")], ddf[["y", "label"]]), (240, 2))):
        rows = make()
        assert rows.n_rows is None and rows.count() == 240 and rows.n_rows == 240
        rows = make()
        assert rows.targets().shape == shape and rows.n_rows == 240  # y's own shape
    # empty partitions (the last), and no rows at all: one-line errors, in one pass or in order
    head = ddf.map_partitions(lambda part: part[part.index < 160])
    assert head.npartitions == 3
    _close(ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0).fit(head[list("abcd")],
                                                                     head["y"]).beta_,
           ELMRegressor(n_hidden=12, alpha=1e-2, random_state=0).fit(X[:160], Y[:160, 0]).beta_)
    online = OSELMRegressor(n_hidden=12, random_state=0)
    for s in (0, 80):
        online.partial_fit(X[s:s + 80], Y[s:s + 80, 0])
    np.testing.assert_array_equal(fit_dask(OSELMRegressor(n_hidden=12, random_state=0),
                                           head[list("abcd")], head["y"], sequential=True).beta_,
                                  online.beta_)
    empty = ddf.map_partitions(lambda part: part.iloc[:0])
    for sequential in (False, True):
        with pytest.raises(ValueError, match=r"^Found array with 0 sample\(s\) while a minimum "
                                             r"of 1 is required\.$"):
            fit_dask(OSELMRegressor(n_hidden=5), empty[list("abcd")], empty["y"],
                     sequential=sequential)
    with pytest.raises(ValueError, match=r"^Found array with 0 sample\(s\) while a minimum "
                                         r"of 1 is required\.$"):
        ELMRegressor(n_hidden=5).fit(empty[list("abcd")], empty["y"])
    frame.loc[5, "y"] = np.nan
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match=r"^Input y contains NaN"):
        ELMRegressor(n_hidden=5).fit(ddf[list("abcd")], ddf["y"])


def _blas_threads():
    from threadpoolctl import threadpool_info
    return sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"})


@pytest.mark.mutant
def test_blas_limits_of_workers_and_of_this_process(client):
    """_limit_worker_blas leaves the driver process alone and, with 'auto', a worker of one
    task thread; limits a worker of two task threads to one BLAS thread, whatever the order of
    the process ids. A local threaded scheduler limits this process while the graph runs ('auto':
    1), the synchronous one does not; with a Client, blas_threads=2 reaches every worker."""
    from types import SimpleNamespace

    from threadpoolctl import threadpool_info, threadpool_limits

    from fastelm.dask import DaskRows, _limit_worker_blas, options
    with threadpool_limits(limits=2, user_api="blas"):  # restored on exit
        assert _limit_worker_blas(1, os.getpid()) is None and _blas_threads() == [2]
        assert _limit_worker_blas("auto", os.getpid() + 1) is None and _blas_threads() == [2]
        limited = _limit_worker_blas("auto", os.getpid() + 1, SimpleNamespace(nthreads=2))
        assert limited and set(limited) == {1} and _blas_threads() == [1]
        assert set(_limit_worker_blas(2, os.getpid() + 1)) == {2}
    for pid in (0, 2 ** 31):  # workers' pids above and below the driver's
        assert all(set(v) == {1} for v in client.run(_limit_worker_blas, 1, pid).values())

    def during(X):
        return np.array(_blas_threads())

    def union(*parts):
        return np.unique(np.concatenate(parts))
    X = da.from_array(np.ones((30, 2)), chunks=(10, 2))
    with threadpool_limits(limits=2, user_api="blas"):
        for scheduler, blas_threads, expected in (("threads", "auto", [1]), ("threads", 1, [1]),
                                                  ("sync", "auto", [2]), ("sync", 1, [2])):
            with options(compute_kwargs={"scheduler": scheduler}, blas_threads=blas_threads):
                rows = DaskRows(X, np.ones(30))
                assert rows.reduce(during, union, np.float64).tolist() == expected
    try:
        fit_dask(ELMRegressor(n_hidden=5), X, np.ones(30), blas_threads=2)
        for pools in client.run(threadpool_info).values():
            assert {p["num_threads"] for p in pools if p["user_api"] == "blas"} == {2}
    finally:
        client.run(_limit_worker_blas, 1, os.getpid())


@pytest.mark.mutant
def test_rows_of_unknown_lengths_beside_a_dask_y_chunked_otherwise(sync):
    # X's or y's row chunks unknown (a boolean mask), the other chunked otherwise or in
    # memory: the lengths are computed before the two are compared and paired
    X, Y, _ = _data(n=120, d=4)

    def unknown(a, chunk):
        rows = da.from_array(a, chunks=(chunk,) + a.shape[1:])
        masked = rows[da.ones(len(a), dtype=bool, chunks=chunk)]
        assert np.isnan(masked.shape[0])
        return masked

    for y in (Y[:, 0], Y):
        expected = ELMRegressor(n_hidden=8, alpha=1e-2, random_state=0).fit(X, y).predict(X)
        for rows, targets in ((unknown(X, 25), da.from_array(y, chunks=40)),
                              (da.from_array(X, chunks=(25, -1)), unknown(y, 40)),
                              (X, unknown(y, 40)),  # X in memory, chunked like y
                              (unknown(X, 25), y)):  # y in memory, chunked like X
            fitted = ELMRegressor(n_hidden=8, alpha=1e-2, random_state=0).fit(rows, targets)
            _close(fitted.predict(X), expected)


@pytest.mark.mutant
def test_dask_frames_pair_by_position_with_targets_of_other_kinds_or_partitions(sync):
    # X a dask DataFrame, y not one (numpy, a list, pandas, a dask array); and X and y frames of
    # other partitions, each partition's own index from 0 (as read_csv makes them), without
    # divisions, so that the index says nothing across partitions: rows paired by position,
    # as the in-memory fit pairs them
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X, Y, _ = _data(n=60, d=3)
    y = Y[:, 0]
    expected = ELMRegressor(n_hidden=5, alpha=1e-2, random_state=0).fit(X, y).predict(X)
    frame, target = pd.DataFrame(X, columns=list("abc")), pd.Series(y, name="y")

    def local(data, npartitions, known=False):
        parts = dd.from_pandas(data, npartitions=npartitions, sort=True)
        return parts if known else parts.map_partitions(
            lambda p: p.reset_index(drop=True)).clear_divisions()

    pairs = [(dd.from_pandas(frame, npartitions=3), targets)
             for targets in (y, list(y), target, da.from_array(y, chunks=20))]
    for X_parts, y_parts, X_known in ((2, 3, False), (3, 2, False), (3, 2, True)):
        rows, targets = local(frame, X_parts, X_known), local(target, y_parts)
        assert not targets.known_divisions and rows.known_divisions == X_known
        pairs.append((rows, targets))
    for rows, targets in pairs:
        fitted = ELMRegressor(n_hidden=5, alpha=1e-2, random_state=0).fit(rows, targets)
        _close(fitted.predict(X), expected)
