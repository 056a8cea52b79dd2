"""Smoke test of benchmarks/peers.py on tiny sizes, so the side-by-side script cannot rot.

Peers that are not installed are skipped (they are in the ``bench`` extra, not ``test``).
"""
import importlib.util
from pathlib import Path

import numpy as np
import pytest

PEERS_PY = Path(__file__).resolve().parents[1] / "benchmarks" / "peers.py"


@pytest.fixture(scope="module")
def peers():
    spec = importlib.util.spec_from_file_location("fastelm_bench_peers", PEERS_PY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def tiny(peers):
    return peers.TINY, peers.make_data(**peers.TINY)


def require(name):
    """Skip unless ``name`` is installed; unlike importorskip, does not import it (scikit-elm
    needs the script's dask workaround to import at all)."""
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed")


def accuracy(pred, y):
    return float(np.mean(np.asarray(pred) == y))


def test_data_is_standardised(peers, tiny):
    sizes, (Xtr, ytr, Xte, yte) = tiny
    assert Xtr.shape == (sizes["n_train"], sizes["n_features"])
    assert Xte.shape == (sizes["n_test"], sizes["n_features"])
    np.testing.assert_allclose(Xtr.mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(Xtr.std(axis=0), 1, atol=1e-12)
    assert set(np.unique(ytr)) == set(range(sizes["n_classes"]))


def test_fastelm_cases(peers, tiny):
    sizes, (Xtr, ytr, Xte, yte) = tiny
    L, k = sizes["n_hidden"], sizes["n_classes"]
    model = peers.fastelm_fit(Xtr, ytr, L)
    H = peers.fastelm_hidden(model, Xtr)
    assert H.shape == (len(Xtr), L)
    np.testing.assert_allclose(peers.gram_floor(H), H.T @ H)
    chunks = peers.chunks_of(Xtr, ytr, sizes["chunk"])
    assert sum(len(c[0]) for c in chunks) == len(Xtr)
    online = peers.fastelm_oselm(chunks, L, np.arange(k))
    scores, beta = peers.oselm_vs_batch(online, model, Xte)
    assert scores < 1e-8 and beta < 1e-8
    assert accuracy(model.predict(Xte), yte) > 1.5 / k


def test_skelm_case(peers, tiny):
    require("skelm")
    skelm = peers.import_skelm()
    assert skelm is not None
    sizes, (Xtr, ytr, Xte, yte) = tiny
    model = peers.skelm_fit(skelm, Xtr, ytr, sizes["n_hidden"], batch_size=len(Xtr))
    assert accuracy(peers.skelm_predict(model, Xte), yte) > 1.5 / sizes["n_classes"]
    batched = peers.skelm_fit(skelm, Xtr, ytr, sizes["n_hidden"], batch_size=100)
    np.testing.assert_allclose(batched.coef_, model.coef_, rtol=1e-6, atol=1e-8)


def test_hpelm_case(peers, tiny):
    require("hpelm")
    hpelm = peers.import_hpelm()
    assert hpelm is not None
    sizes, (Xtr, ytr, Xte, yte) = tiny
    model = peers.hpelm_fit(hpelm, Xtr, ytr, sizes["n_hidden"], sizes["n_classes"])
    assert accuracy(peers.hpelm_predict(model, Xte), yte) > 1.5 / sizes["n_classes"]


def test_pyoselm_case(peers, tiny):
    require("pyoselm")
    pyoselm = peers.import_pyoselm()
    assert pyoselm is not None
    sizes, (Xtr, ytr, Xte, yte) = tiny
    L, k = sizes["n_hidden"], sizes["n_classes"]
    model = peers.pyoselm_oselm(pyoselm, peers.chunks_of(Xtr, ytr, sizes["chunk"]), L,
                                np.arange(k))
    assert accuracy(model.predict(Xte), yte) > 1.5 / k
    with pytest.raises(ValueError, match="first chunk"):
        peers.pyoselm_oselm(pyoselm, peers.chunks_of(Xtr, ytr, L - 1), L, np.arange(k))


def test_main_writes_report(peers, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(peers, "QUICK", peers.TINY)
    out = tmp_path / "peers.md"
    assert peers.main(["--quick", "--repeat", "1", "--slow-repeat", "1", "--out", str(out)]) == 0
    report = out.read_text()
    assert report in capsys.readouterr().out
    assert "| Gram floor" in report and "fastelm `ELMClassifier.fit`" in report
    assert "fastelm `OSELMClassifier.partial_fit`" in report
    assert "Where fastelm's fit time goes" in report
    for name, row in (("skelm", "scikit-elm"), ("hpelm", "hpelm `ELM.train`"),
                      ("pyoselm", "pyoselm")):
        if importlib.util.find_spec(name) is not None:
            assert row in report
