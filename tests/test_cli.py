"""The command lines (``fastelm`` and every ``python -m fastelm.experiments.*``): each paper
gets its own data folder option, and every user error is one error line on stderr naming the
option or path, with exit status 2, before any work starts (issue 14, items 6, 8, 9, 12, 14)."""
import argparse
import os
import types

import pytest

import fastelm
from fastelm import _cli as _command, cli, demo
from fastelm.experiments.bls_fmri import reproduce as bls_fmri
from fastelm.experiments.de_elm_ssc import reproduce as de_elm_ssc
from fastelm.experiments.fos_elm import reproduce as fos_elm
from fastelm.fmri import make_synthetic_abide

MAINS = {"fastelm": cli.main, "demo": demo.main, "fos_elm": fos_elm.main,
         "de_elm_ssc": de_elm_ssc.main, "bls_fmri": bls_fmri.main}


def _no_work(*args, **kwargs):
    raise AssertionError("the command started working despite a bad command line")


@pytest.fixture
def paths(tmp_path, monkeypatch):
    """Folders and files of the cases; no experiment may start running."""
    for module in (fos_elm, de_elm_ssc, bls_fmri):
        monkeypatch.setattr(module, "run", _no_work)
    monkeypatch.setattr(de_elm_ssc, "merge", _no_work)
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    empty = tmp_path / "empty"
    empty.mkdir()
    return {"MISSING": str(tmp_path / "nowhere"), "FILE": str(blocker), "EMPTY": str(empty),
            "OUT": str(tmp_path / "out")}


# (entry point, arguments, what the error line must name); MISSING, FILE, EMPTY, OUT are paths
CASES = [
    ("fastelm", ["reproduce", "all", "--quick", "--data", "MISSING"], "--data"),
    ("fastelm", ["reproduce", "all", "--quick", "--fmri-data", "MISSING"], "--fmri-data"),
    ("fastelm", ["reproduce", "fos-elm", "--seed", "-1", "--out", "OUT"], "--seed"),
    ("fastelm", ["reproduce", "fos-elm", "--seed", "x", "--out", "OUT"], "--seed"),
    ("fastelm", ["reproduce", "all", "--quick", "--out", "FILE"], "--out"),
    ("fastelm", ["datasets", "--data", "MISSING"], "--data"),
    ("fastelm", ["demo", "--data", "MISSING"], "--data"),
    ("fastelm", ["bench", "--out", "MISSING/sub/table.md"], "--out"),
    ("demo", ["--data", "MISSING"], "--data"),
    ("demo", ["--out", "EMPTY"], "--out"),
    ("demo", ["--hidden", "0"], "--hidden"),
    ("fos_elm", ["--repeats", "0", "--out", "OUT"], "--repeats"),
    ("fos_elm", ["--data", "MISSING", "--out", "OUT"], "--data"),
    ("fos_elm", ["--out", "FILE", "--quick"], "--out"),
    ("fos_elm", ["--seed", "-1", "--out", "OUT"], "--seed"),
    ("de_elm_ssc", ["--runs", "0", "--out", "OUT"], "--runs"),
    ("de_elm_ssc", ["--mushroom-runs", "0", "--out", "OUT"], "--mushroom-runs"),
    ("de_elm_ssc", ["--settings", "{nope", "--out", "OUT"], "--settings"),
    ("de_elm_ssc", ["--settings", "[1]", "--out", "OUT"], "--settings"),
    ("de_elm_ssc", ["--merge", "MISSING", "--out", "OUT"], "--merge"),
    ("de_elm_ssc", ["--out", "FILE", "--quick"], "--out"),
    ("de_elm_ssc", ["--seed", "-1"], "--seed"),
    ("bls_fmri", ["--fmri-data", "MISSING", "--out", "OUT"], "--fmri-data"),
    ("bls_fmri", ["--data", "EMPTY", "--out", "OUT"], "--fmri-data"),  # the old name: a hint
    ("fastelm", ["reproduce", "bls-fmri", "--fmri-data", "MISSING"], "--fmri-data"),
    ("fastelm", ["reproduce", "bls-fmri", "--features", "flat"], "--features"),
    ("fastelm", ["reproduce", "fos-elm", "--repeats", "0"], "--repeats"),
    ("fastelm", ["reproduce", "de-elm-ssc", "--runs", "0"], "--runs"),
    ("bls_fmri", ["--out", "FILE"], "--out"),
    ("bls_fmri", ["--seed", "-1", "--out", "OUT"], "--seed"),
    ("bls_fmri", ["--seed", str(2**70), "--out", "OUT"], "--seed"),
    ("fastelm", ["reproduce", "bls-fmri", "--seed", str(2**32), "--out", "OUT"], "--seed"),
    ("demo", ["--seed", str(2**32)], "--seed"),
]


@pytest.mark.parametrize("entry, argv, named", CASES,
                         ids=[f"{e}-{'_'.join(a)}" for e, a, _ in CASES])
def test_user_error_is_one_line_naming_it(entry, argv, named, paths, capsys):
    argv = [paths.get(a.split("/")[0], a.split("/")[0]) + a[len(a.split("/")[0]):]
            for a in argv]
    assert MAINS[entry](argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert "Traceback" not in captured.err
    error = lines[-1]
    assert ": error: " in error and named in error, captured.err
    if "argument " not in error:  # argparse's own message follows its usage lines
        assert len(lines) == 1, captured.err


def test_unwritable_out_is_refused_before_work(tmp_path, monkeypatch, capsys):
    """--out whose folder cannot be created (a file in the way) is refused by each
    reproduction's ``run`` too, before any data is loaded."""
    monkeypatch.setattr(fos_elm, "load_available", _no_work)
    monkeypatch.setattr(de_elm_ssc, "_run", _no_work)
    blocked = tmp_path / "a-file"
    blocked.write_text("x")
    for run in (fos_elm.run, de_elm_ssc.run):
        with pytest.raises(ValueError, match="out_dir .*a-file/sub: cannot write there"):
            run(quick=True, out_dir=str(blocked / "sub"))


def test_environment_data_folder_that_does_not_exist(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FASTELM_DATA", str(tmp_path / "nowhere"))
    for argv in (["datasets"], ["demo"]):
        assert cli.main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert err.endswith(f"$FASTELM_DATA {tmp_path / 'nowhere'}: no such directory")
        assert len(err.splitlines()) == 1


def test_de_elm_ssc_refuses_unknown_settings_and_folders_without_records(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert de_elm_ssc.main(["--settings", '{"nope": 1}', "--out", out, "--quick"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("de_elm_ssc: error: unknown settings ['nope']; known: [")
    assert de_elm_ssc.main(["--merge", str(tmp_path), "--out", out]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"de_elm_ssc: error: {tmp_path}: no records.json there (not the output " \
                  "folder of a DE-ELM-SSC run)"
    with pytest.raises(ValueError, match="runs must be an integer >= 1"):
        de_elm_ssc.run(quick=True, out_dir=out, runs=0)


@pytest.mark.parametrize("damage", ["phenotype-field", "phenotype-latin1", "roi-latin1"])
def test_damaged_fmri_files_name_the_file(damage, tmp_path, capsys):
    """A phenotype field over the csv module's limit and non-UTF-8 files: one line naming the
    file (was a _csv.Error or UnicodeDecodeError traceback)."""
    data = tmp_path / "abide"
    make_synthetic_abide(data, n_subjects=12, n_rois=5, lengths=(30, 40), n_sites=2,
                         random_state=0)
    if damage.startswith("phenotype"):
        target = next(data.glob("*.csv"))
        lines = target.read_text().splitlines()
        if damage == "phenotype-field":
            lines[1] = lines[1] + ',"' + "x" * 140_000 + '"'
            target.write_text("\n".join(lines) + "\n")
        else:
            target.write_bytes(("\n".join(lines[:3]) + "\nJos\xe9\n").encode("latin-1"))
    else:
        target = sorted(data.glob("*.1D"))[0]
        target.write_bytes(target.read_bytes() + "# caf\xe9\n".encode("latin-1"))
    assert bls_fmri.main(["--fmri-data", str(data), "--out", str(tmp_path / "o"),
                          "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("bls_fmri: error: ")
    assert str(target) in err, err
    assert ("not a readable CSV" if damage == "phenotype-field" else "not UTF-8") in err


def test_version_and_help(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"fastelm {fastelm.__version__}"
    assert cli.main(["--help"]) == 0
    assert "``" not in capsys.readouterr().out
    assert cli.main(["reproduce", "--help"]) == 0
    text = capsys.readouterr().out
    assert "``" not in text and all(name in text for name in [*cli.EXPERIMENTS, "all"])
    assert cli.main(["reproduce", "all", "--help"]) == 0
    text = capsys.readouterr().out
    assert "``" not in text and "same seed gives the same tables" in " ".join(text.split())


def _options(text):
    """The option strings of a help page (after its usage lines)."""
    import re

    return set(re.findall(r"^  (--[\w-]+)", text, flags=re.M))


@pytest.mark.parametrize("paper, module", [("fos-elm", fos_elm), ("bls-fmri", bls_fmri),
                                           ("de-elm-ssc", de_elm_ssc)])
def test_each_reproduce_help_is_its_experiments_own(paper, module, capsys):
    """issue 24: one parser per experiment, for ``fastelm reproduce X`` and ``python -m
    fastelm.experiments.X`` alike; the four help pages were identical."""
    assert cli.main(["reproduce", paper, "--help"]) == 0
    text = capsys.readouterr().out
    assert module.main(["--help"]) == 0
    own = capsys.readouterr().out
    assert _options(text) == _options(own) and len(_options(text)) >= 6
    assert text.split("options:")[1] == own.split("options:")[1]  # the same help text
    assert "help" not in [line.split()[-1] for line in text.splitlines()
                          if line.startswith("  --")]  # every option explained
    others = {p for p in cli.EXPERIMENTS if p != paper}
    for other in others:
        assert cli.main(["reproduce", other, "--help"]) == 0
        assert _options(capsys.readouterr().out) != _options(text)
    if paper == "bls-fmri":
        assert {"--sites", "--features", "--deep", "--fmri-data", "--atlas"} <= _options(text)
        assert "--data" not in _options(text)  # --data is the UCI folder everywhere
    else:
        assert "--data" in _options(text) and "--fmri-data" not in _options(text)


def test_deep_without_torch_names_the_extra(paths, monkeypatch, capsys):
    real_find_spec = bls_fmri.importlib.util.find_spec
    monkeypatch.setattr(bls_fmri.importlib.util, "find_spec",
                        lambda name, *a: None if name == "torch" else real_find_spec(name, *a))
    for main, argv in ((cli.main, ["reproduce", "bls-fmri", "--deep"]),
                       (bls_fmri.main, ["--deep", "only"])):
        assert main(argv + ["--out", paths["OUT"]]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "pip install 'fastelm[deep]'" in err, err
    assert not os.path.exists(paths["OUT"])


def test_seed_of_any_size_is_accepted():
    assert _command.seed_option(str(2**70)) == 2**70
    assert cli.build_parser().parse_args(["reproduce", "all", "--seed", str(2**70)]).seed \
        == 2**70
    for module in (fos_elm, de_elm_ssc):  # their seeds go through numpy's SeedSequence
        assert module.SEED_OPTION(str(2**70)) == 2**70


def test_sklearn_seed_range_is_the_one_scikit_learn_takes():
    """bls_fmri and the demo seed scikit-learn's splitters and comparators: their --seed stops
    where scikit-learn's random_state does."""
    from sklearn.model_selection import StratifiedKFold

    top, y = _command.SKLEARN_SEED_MAX, [0, 1] * 5
    assert _command.sklearn_seed_option(str(top)) == top
    next(StratifiedKFold(2, shuffle=True, random_state=top).split(y, y))
    with pytest.raises(ValueError):
        next(StratifiedKFold(2, shuffle=True, random_state=top + 1).split(y, y))
    for text in (str(top + 1), "-1"):
        with pytest.raises(argparse.ArgumentTypeError, match=r"in \[0, 4294967295\]"):
            _command.sklearn_seed_option(text)
    assert bls_fmri.SEED_OPTION is _command.sklearn_seed_option


@pytest.mark.parametrize("entry, argv", [
    ("bls_fmri", ["--seed", str(2**70), "--quick"]),
    ("fastelm", ["reproduce", "bls-fmri", "--seed", str(2**70), "--quick"]),
    ("fastelm", ["reproduce", "all", "--seed", str(2**32), "--quick"]),
])
def test_seed_beyond_32_bits_is_refused_before_any_work(entry, argv, paths, capsys):
    """issue 13: ``--seed 2**70`` where scikit-learn is seeded (bls-fmri, and so ``reproduce
    all``) is one line naming --seed and the range, exit 2, before the output folder exists
    (it was scikit-learn's "Seed must be between 0 and 2**32 - 1" after the data was made)."""
    assert MAINS[entry](argv + ["--out", paths["OUT"]]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    error = err.strip().splitlines()[-1]
    assert ": error: argument --seed: " in error and "[0, 4294967295]" in error, err
    assert not os.path.exists(paths["OUT"])


def _fake_packages(monkeypatch, fake_module):
    """``fastelm reproduce all`` runs ``fake_module(package)`` instead of each experiment
    package; the parsers still come from the real ``reproduce`` modules."""
    real = cli.importlib.import_module
    monkeypatch.setattr(cli.importlib, "import_module",
                        lambda name: real(name) if name.endswith(".reproduce")
                        else fake_module(name))


def test_reproduce_passes_each_paper_its_folder(tmp_path, monkeypatch, capsys):
    seen = {}

    def fake_module(name):
        def run(**kwargs):
            seen[name] = kwargs
            return {"files": [], "table": None}
        return types.SimpleNamespace(run=run, SEED_OPTION=_command.seed_option)

    _fake_packages(monkeypatch, fake_module)
    uci, fmri = tmp_path / "uci", tmp_path / "fmri"
    uci.mkdir()
    fmri.mkdir()
    assert cli.main(["reproduce", "all", "--quick", "--out", str(tmp_path / "out"), "--seed", "5",
                     "--data", str(uci), "--fmri-data", str(fmri)]) == 0
    assert seen["fastelm.experiments.fos_elm"]["data_home"] == str(uci)
    assert seen["fastelm.experiments.de_elm_ssc"]["data_home"] == str(uci)
    assert seen["fastelm.experiments.bls_fmri"]["data_dir"] == str(fmri)
    assert all(kw["quick"] and kw["seed"] == 5 for kw in seen.values())
    out = capsys.readouterr().out
    assert "== de-elm-ssc: finished" in out
    assert "== all: 3 reproductions" in out  # the closing summary


def test_reproduce_bls_fmri_takes_every_option_of_the_experiment(tmp_path, monkeypatch):
    """``fastelm reproduce bls-fmri`` passes --sites, --features, the atlas, the strategy and
    the fMRI folder (--fmri-data) on as ``python -m fastelm.experiments.bls_fmri`` does;
    ``--deep`` runs the comparators on the same arguments, ``--deep only`` them alone."""
    seen = []

    def record(kind):
        def run(**kwargs):
            seen.append((kind, kwargs))
            return [] if kind == "deep" else {"table": "", "seconds": 0.0, "files": []}
        return run

    monkeypatch.setattr(bls_fmri, "run", record("run"))
    monkeypatch.setattr(bls_fmri, "run_deep", record("deep"))
    monkeypatch.setattr(bls_fmri.importlib.util, "find_spec", lambda name, *a: object())
    fmri = tmp_path / "fmri"
    fmri.mkdir()
    argv = ["--out", str(tmp_path / "out"), "--fmri-data", str(fmri), "--atlas", "cc200",
            "--strategy", "filt_noglobal", "--sites", "NYU", "USM", "--features",
            "connectivity", "partial correlation", "--quick", "--seed", "3",
            "--settings", '{"n_splits": 3}']
    expected = dict(quick=True, out_dir=os.path.join(tmp_path, "out", "incomplete-run"), seed=3,
                    data_dir=str(fmri),
                    features=["connectivity", "partial correlation"], sites=["NYU", "USM"],
                    atlas="cc200", strategy="filt_noglobal", settings={"n_splits": 3})
    for main, args, kinds in ((cli.main, ["reproduce", "bls-fmri"] + argv, ["run"]),
                              (bls_fmri.main, argv, ["run"]),
                              (cli.main, ["reproduce", "bls-fmri", "--deep"] + argv,
                               ["run", "deep"]),
                              (cli.main, ["reproduce", "bls-fmri", "--deep", "only"] + argv,
                               ["deep"])):
        seen.clear()
        assert main(args) == 0
        assert [kind for kind, _ in seen] == kinds
        for _, kwargs in seen:
            assert {k: kwargs[k] for k in expected} == expected


def test_reproduce_prints_each_table_and_each_skip_reason_once(tmp_path, monkeypatch, capsys):
    """Each paper's table is printed; a skipped data set's reason is printed once (when it is
    skipped, by the run itself), the summary only names it."""
    def fake_module(name):
        def run(**kwargs):
            return {"files": [], "table": f"| table of {name} |",
                    "skipped": {"satimage": "sat.trn and sat.tst not found"}}
        return types.SimpleNamespace(run=run, SEED_OPTION=_command.seed_option)

    _fake_packages(monkeypatch, fake_module)
    assert cli.main(["reproduce", "all", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for module, *_ in cli.EXPERIMENTS.values():
        assert f"| table of {module} |" in out
    assert "sat.trn" not in out and out.count("skipped (files not found") == 3


@pytest.mark.parametrize("entry, argv", [(e, ["--help"]) for e in MAINS if e != "fastelm"]
                         + [("fastelm", ["reproduce", p, "--help"])
                            for p in [*cli.EXPERIMENTS, "all"]])
def test_every_help_is_plain_text_and_explains_seed(entry, argv, capsys):
    assert MAINS[entry](argv) == 0
    text = capsys.readouterr().out
    assert "`" not in text
    seed_help = " ".join(text.split()).split("--seed SEED")[-1][:40]  # after the usage
    assert seed_help.strip().lower().startswith("seeds"), seed_help


@pytest.mark.parametrize("module", ["fastelm", "fastelm.experiments.fos_elm",
                                    "fastelm.experiments.bls_fmri",
                                    "fastelm.experiments.de_elm_ssc",
                                    "fastelm.experiments.deep", "fastelm.demo"])
def test_python_dash_m_entry_points_start(module):
    """``python -m MODULE --help`` in a fresh interpreter: each entry point imports its main and
    exits 0 (``python -m fastelm`` once imported a ``main`` that had moved)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", module, "--help"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout


def test_fastelm_reproduce_bls_fmri_help_in_a_fresh_interpreter():
    """The ``fastelm`` console script's code (``python -m fastelm``): ``reproduce bls-fmri
    --help`` lists the experiment's options, and ``python -m fastelm.experiments.deep`` takes
    the same ones (``--deep`` defaulting to only)."""
    import subprocess
    import sys

    pages = {}
    for args in (["fastelm", "reproduce", "bls-fmri"], ["fastelm.experiments.deep"]):
        done = subprocess.run([sys.executable, "-m", *args, "--help"], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        pages[args[0]] = done.stdout
    assert {"--sites", "--features", "--deep", "--fmri-data"} <= _options(pages["fastelm"])
    assert _options(pages["fastelm"]) == _options(pages["fastelm.experiments.deep"])


def test_demo_names_each_set_it_skips(tmp_path, monkeypatch, capsys):
    """issue 24: ``fastelm demo`` skipped the sets whose files are missing without a word."""
    monkeypatch.setattr(demo, "SETS", ("satimage",))  # no package copy: needs sat.trn/sat.tst
    assert demo.run(str(tmp_path)) == []
    err = capsys.readouterr().err
    assert err.startswith("demo: skipping satimage: ") and "sat.trn" in err
    assert len(err.strip().splitlines()) == 1


def test_no_matplotlib_writes_no_png_and_says_so(tmp_path, monkeypatch, capsys):
    """Without matplotlib (a wheel install without the plot extra) a reproduction writes its
    tables and one note naming the extra, instead of silently no PNG."""
    import sys

    import numpy as np

    from fastelm.experiments import common
    from fastelm.experiments.fos_elm.outputs import plot_nodes

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib: ImportError
    monkeypatch.setattr(common, "_noted", [])
    cfg = {"initial": 10, "chunk": 5, "n_train": 30, "n_hidden": 8, "delta_rel": 0.5}
    for _ in range(2):
        assert plot_nodes({"pima": np.full((2, 3), 8)}, {"pima": cfg},
                          str(tmp_path / "nodes.png")) is False
    err = capsys.readouterr().err
    assert not (tmp_path / "nodes.png").exists()
    assert err.count("no PNG figure is written") == 1  # once per process
    assert "pip install 'fastelm[plot]'" in err


def _interrupted_run(name):
    """A run that writes two files into its folder, the second one half, and is interrupted."""
    def run(**kwargs):
        out = kwargs["out_dir"]
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "results.md"), "w") as f:
            f.write(f"new {name}")
        with open(os.path.join(out, "notes.md"), "w") as f:
            f.write("half")
            raise KeyboardInterrupt
    return run


def _previous_run(folder):
    """An output folder of a complete earlier run (its files and manifest), and a user's file."""
    os.makedirs(folder, exist_ok=True)
    for name in ("results.md", "notes.md", "timings.md"):
        with open(os.path.join(folder, name), "w") as f:
            f.write("old")
    with open(os.path.join(folder, ".fastelm-run-files"), "w") as f:
        f.write("results.md\nnotes.md\ntimings.md\n")
    with open(os.path.join(folder, "mine.txt"), "w") as f:
        f.write("user")


def _intact(folder):
    names = ("results.md", "notes.md", "timings.md", "mine.txt")
    return all(open(os.path.join(folder, n)).read() in ("old", "user") for n in names)


@pytest.mark.parametrize("entry", ["fos_elm", "de_elm_ssc", "bls_fmri", "deep", "de_elm_ssc "
                                   "--merge"])
def test_interrupted_rerun_leaves_the_previous_run_intact(tmp_path, monkeypatch, capsys, entry):
    """Issue 25 item 7: every reproduction's command line writes into OUT/incomplete-run and
    moves the files up only when the run completes, so Ctrl-C during a rerun into an existing
    folder leaves the previous run's files as they were, beside a visibly incomplete folder."""
    from fastelm.experiments.deep import reproduce as deep

    out = str(tmp_path / "out")
    _previous_run(out)
    module = {"fos_elm": fos_elm, "bls_fmri": bls_fmri, "deep": bls_fmri}.get(entry, de_elm_ssc)
    monkeypatch.setattr(module, "run", _interrupted_run(entry))
    monkeypatch.setattr(de_elm_ssc, "merge", lambda out_dir, sources, settings:
                        _interrupted_run(entry)(out_dir=out_dir))
    monkeypatch.setattr(de_elm_ssc, "_reported_settings", lambda sources: {})
    monkeypatch.setattr(bls_fmri, "run_deep", _interrupted_run(entry))
    monkeypatch.setattr(bls_fmri.importlib.util, "find_spec", lambda name, *a: object())
    main = {"deep": deep.main, "bls_fmri": bls_fmri.main, "fos_elm": fos_elm.main}.get(
        entry, de_elm_ssc.main)
    argv = ["--out", out] + (["--merge", str(tmp_path)] if "merge" in entry else [])
    assert main(argv) == 130
    assert _intact(out)
    partial = os.path.join(out, "incomplete-run")
    assert open(os.path.join(partial, "results.md")).read() == f"new {entry}"
    assert "interrupted" in open(os.path.join(partial, "INCOMPLETE.md")).read()
    assert "keeps the files of its last complete run" in capsys.readouterr().err


def test_complete_rerun_replaces_the_previous_run_and_keeps_other_files(tmp_path, monkeypatch,
                                                                        capsys):
    """A rerun that completes replaces every file of the previous run (a file the new run does
    not write, timings.md here, goes too) and keeps the files no run wrote; ``reproduce all``
    does the same in each OUT/<paper>, and the paths printed are the final ones."""
    out = tmp_path / "out"
    for paper in ("fos-elm", "de-elm-ssc", "bls-fmri"):
        _previous_run(str(out / paper))

    def fake_module(name):
        def run(**kwargs):
            path = os.path.join(kwargs["out_dir"], "results.md")
            with open(path, "w") as f:
                f.write(f"new {name}")
            return {"files": [path], "table": None}
        return types.SimpleNamespace(run=run, SEED_OPTION=_command.seed_option)

    _fake_packages(monkeypatch, fake_module)
    assert cli.main(["reproduce", "all", "--quick", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for paper, package in (("fos-elm", "fos_elm"), ("bls-fmri", "bls_fmri")):
        folder = out / paper
        assert sorted(os.listdir(folder)) == [".fastelm-run-files", "mine.txt", "results.md"]
        assert (folder / "results.md").read_text() == f"new fastelm.experiments.{package}"
        assert f"wrote {folder / 'results.md'}" in printed
