import csv

import numpy as np

from fastelm.experiments.common import markdown_table, summarize, write_table


def test_summarize_groups_and_writes_md_and_csv(tmp_path):
    records = [{"data": "a", "model": "x", "acc": v} for v in (0.5, 0.7)]
    records += [{"data": "b", "model": "x", "acc": 1.0}]
    rows = summarize(records, ["data", "model"], ["acc"])
    assert rows[0]["acc_mean"] == 0.6 and np.isclose(rows[0]["acc_std"], 0.1)
    assert rows[0]["runs"] == 2 and rows[1]["runs"] == 1
    text = write_table(rows, ["data", "model"], ["acc"], str(tmp_path / "t"))
    assert "0.6000 ± 0.1000" in text and text == markdown_table(rows, ["data", "model"], ["acc"])
    assert "| b | x | 1.0000 | 1 |" in text  # one run: no '± 0.0000'
    with open(tmp_path / "t.csv") as f:
        table = list(csv.DictReader(f))
    assert table[1]["data"] == "b" and float(table[1]["acc_mean"]) == 1.0


def test_load_available_skips_missing_data_sets(capsys):
    import pytest

    from fastelm.datasets import DataNotFoundError
    from fastelm.experiments.common import load_available, skipped_notes

    def load(name):
        if name == "gone":
            raise DataNotFoundError("gone: gone.data not found\nmore")
        return name.upper()

    data, skipped = load_available(["a", "gone", "b"], load, what="X")
    assert data == {"a": "A", "b": "B"} and skipped == {"gone": "gone: gone.data not found"}
    assert "X: skipping gone: gone: gone.data not found" in capsys.readouterr().err
    notes = "\n".join(skipped_notes(skipped, {"gone": "Gone"}))
    assert "- Gone: gone: gone.data not found" in notes and "--data DIR" in notes
    assert skipped_notes({}) == []
    with pytest.raises(DataNotFoundError, match="gone.data"):  # named by the user
        load_available(["a", "gone"], load, strict=True)
    with pytest.raises(DataNotFoundError, match="none of its data sets is available"):
        load_available(["gone"], load)


def test_templates_blocks_and_placeholders(tmp_path):
    from fastelm.experiments.common import fill, read_template

    path = tmp_path / "notes.md"
    path.write_text("<!-- A comment line, not a block -->\n<!-- title -->\n# Run {seed}\n\n"
                    "<!-- line -->\n- {a:.2f} and {{literal}}\n\n\n")
    blocks = read_template(path)
    assert blocks == {"title": "# Run {seed}", "line": "- {a:.2f} and {{literal}}"}
    assert fill(blocks, "title", seed=3) == "# Run 3"
    assert fill(blocks, "line", a=0.5) == "- 0.50 and {literal}"


def test_every_template_block_is_used():
    """Each paper's notes template holds only prose its outputs module fills in."""
    from pathlib import Path

    import fastelm.experiments as experiments
    from fastelm.experiments.common import read_template

    root = Path(experiments.__file__).parent
    for paper in ("fos_elm", "de_elm_ssc"):
        code = (root / paper / "outputs.py").read_text()
        blocks = read_template(root / paper / "notes.md")
        assert blocks, paper
        unused = [name for name in blocks if f'"{name}"' not in code]
        assert not unused, (paper, unused)


def test_standardise_is_training_statistics():
    from fastelm.experiments.common import standardise

    X = np.array([[0.0, 5.0], [2.0, 5.0], [100.0, 7.0]])
    fit, other = standardise(X[:2], X)
    np.testing.assert_allclose(fit, [[-1.0, 0.0], [1.0, 0.0]])     # constant column → 0
    np.testing.assert_allclose(other[2], [99.0, 2.0])
    mean, sd = X[:2].mean(axis=0), X[:2].std(axis=0)
    np.testing.assert_array_equal(other[:, 0], (X[:, 0] - mean[0]) / sd[0])


def test_limit_threads_restores_numba_and_blas():
    import numba
    from threadpoolctl import threadpool_info

    from fastelm.experiments.common import limit_threads

    before = numba.get_num_threads()
    with limit_threads(1):
        assert numba.get_num_threads() == 1
        assert all(p["num_threads"] == 1 for p in threadpool_info())
    assert numba.get_num_threads() == before
    with limit_threads(None):
        assert numba.get_num_threads() == before


def test_reproductions_use_only_public_estimator_api():
    """No ``obj._private`` access in the FOS-ELM and DE-ELM-SSC packages (their own module-level
    helpers, called by name, are fine)."""
    import ast
    from pathlib import Path

    import fastelm.experiments as experiments

    root = Path(experiments.__file__).parent
    for path in [root / "common.py", *root.glob("fos_elm/*.py"), *root.glob("de_elm_ssc/*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                    and not node.attr.startswith("__"):
                assert False, f"{path.name}:{node.lineno} uses .{node.attr}"


def test_one_run_publishes_complete_runs_and_keeps_interrupted_ones_apart(tmp_path):
    """``one_run``: a complete run's files replace the previous run's (its stale ones removed,
    a user's kept); a run stopped half-way leaves the folder as it was and its partial files in
    ``incomplete-run/``, which the next run clears."""
    import os

    import pytest

    from fastelm.experiments.common import INCOMPLETE, one_run

    out = str(tmp_path)
    (tmp_path / "mine.txt").write_text("user")

    def write(folder, **files):
        for name, text in files.items():
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)

    with one_run(out) as staged:
        write(staged.folder, **{"results.md": "1", "nodes.png": "1"})
        os.makedirs(os.path.join(staged.folder, "synthetic"))
    assert staged.final([os.path.join(staged.folder, "results.md")]) == [
        os.path.join(out, "results.md")]
    first = sorted(os.listdir(out))
    assert first == [".fastelm-run-files", "mine.txt", "nodes.png", "results.md", "synthetic"]
    with pytest.raises(KeyboardInterrupt):
        with one_run(out) as staged:
            write(staged.folder, **{"results.md": "2"})
            raise KeyboardInterrupt
    assert sorted(os.listdir(out)) == sorted(first + [INCOMPLETE])
    assert (tmp_path / "results.md").read_text() == "1"
    assert (tmp_path / INCOMPLETE / "results.md").read_text() == "2"
    assert (tmp_path / INCOMPLETE / "INCOMPLETE.md").is_file()
    with pytest.raises(ValueError):  # an error before any file: no incomplete folder left
        with one_run(out):
            raise ValueError("bad setting")
    assert sorted(os.listdir(out)) == first
    with one_run(out) as staged:  # no nodes.png, no synthetic/ this time: they go
        write(staged.folder, **{"results.md": "3"})
    assert sorted(os.listdir(out)) == [".fastelm-run-files", "mine.txt", "results.md"]
    assert (tmp_path / "results.md").read_text() == "3"
    assert (tmp_path / ".fastelm-run-files").read_text() == "results.md\n"
