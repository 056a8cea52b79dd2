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
