import csv

import numpy as np

from fastelm.experiments.report import markdown_table, summarize, write_table


def test_summarize_groups_and_writes_md_and_csv(tmp_path):
    records = [{"data": "a", "model": "x", "acc": v} for v in (0.5, 0.7)]
    records += [{"data": "b", "model": "x", "acc": 1.0}]
    rows = summarize(records, ["data", "model"], ["acc"])
    assert rows[0]["acc_mean"] == 0.6 and np.isclose(rows[0]["acc_std"], 0.1)
    assert rows[0]["runs"] == 2 and rows[1]["runs"] == 1
    text = write_table(rows, ["data", "model"], ["acc"], str(tmp_path / "t"))
    assert "0.6000 ± 0.1000" in text and text == markdown_table(rows, ["data", "model"], ["acc"])
    with open(tmp_path / "t.csv") as f:
        table = list(csv.DictReader(f))
    assert table[1]["data"] == "b" and float(table[1]["acc_mean"]) == 1.0


def test_load_available_skips_missing_data_sets(capsys):
    import pytest

    from fastelm.datasets import DataNotFoundError
    from fastelm.experiments.report import load_available, skipped_notes

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
