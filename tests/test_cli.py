"""The ``fastelm`` command line: each paper gets its own data folder option, and bad folders
are one line on stderr with exit status 1."""
import types

import pytest

from fastelm import cli


@pytest.mark.parametrize("option", ["--data", "--fmri-data"])
def test_missing_folder_is_one_line(option, tmp_path, capsys):
    missing = tmp_path / "nowhere"
    assert cli.main(["reproduce", "all", "--quick", option, str(missing)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"fastelm: error: {option} {missing}: no such directory"


def test_reproduce_passes_each_paper_its_folder(tmp_path, monkeypatch, capsys):
    seen = {}

    def fake_module(name):
        def run(**kwargs):
            seen[name] = kwargs
            return {"files": [], "table": None}
        return types.SimpleNamespace(run=run)

    monkeypatch.setattr(cli.importlib, "import_module", fake_module)
    uci, fmri = tmp_path / "uci", tmp_path / "fmri"
    uci.mkdir()
    fmri.mkdir()
    assert cli.main(["reproduce", "all", "--quick", "--out", str(tmp_path / "out"), "--seed", "5",
                     "--data", str(uci), "--fmri-data", str(fmri)]) == 0
    assert seen["fastelm.experiments.fos_elm"]["data_home"] == str(uci)
    assert seen["fastelm.experiments.de_elm_ssc"]["data_home"] == str(uci)
    assert seen["fastelm.experiments.bls_fmri"]["data_dir"] == str(fmri)
    assert all(kw["quick"] and kw["seed"] == 5 for kw in seen.values())
    assert "== de-elm-ssc: finished" in capsys.readouterr().out
    assert cli.main(["reproduce", "bls-fmri", "--out", str(tmp_path / "out"), "--fmri-data",
                     str(fmri), "--atlas", "cc200", "--strategy", "filt_noglobal"]) == 0
    assert seen["fastelm.experiments.bls_fmri"]["atlas"] == "cc200"
    assert seen["fastelm.experiments.bls_fmri"]["strategy"] == "filt_noglobal"
