"""Shared output of the reproductions: mean ± std tables as Markdown and CSV, progress bars.

A result is a list of records (dicts of one run: the grouping keys and the measured values);
``summarize`` groups them and ``write_table`` writes what a person reads.
"""
import csv
import os
from collections import defaultdict

import numpy as np


def progress(iterable, desc, total=None, enabled=True):
    """``iterable`` wrapped in a tqdm progress bar on stderr when tqdm is installed."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, total=total, leave=False)


def summarize(records, keys, values):
    """One row per distinct ``keys`` tuple: the keys, then mean and std of each value, and n."""
    groups = defaultdict(list)
    for record in records:
        groups[tuple(record[k] for k in keys)].append(record)
    rows = []
    for key, group in groups.items():
        row = dict(zip(keys, key))
        for v in values:
            data = np.array([r[v] for r in group], dtype=float)
            row[v + "_mean"], row[v + "_std"] = float(data.mean()), float(data.std(ddof=0))
        row["runs"] = len(group)
        rows.append(row)
    return rows


def markdown_table(rows, keys, values, digits=4):
    """A Markdown table: the keys, then 'mean ± std' per value, then the number of runs."""
    lines = ["| " + " | ".join(list(keys) + list(values) + ["runs"]) + " |",
             "|" + "---|" * (len(keys) + len(values) + 1)]
    for row in rows:
        cells = [str(row[k]) for k in keys]
        cells += [f"{row[v + '_mean']:.{digits}f} ± {row[v + '_std']:.{digits}f}" for v in values]
        lines.append("| " + " | ".join(cells + [str(row["runs"])]) + " |")
    return "\n".join(lines)


def write_table(rows, keys, values, path_stem, digits=4):
    """Write ``path_stem``.md and ``path_stem``.csv; returns the Markdown text."""
    os.makedirs(os.path.dirname(os.path.abspath(path_stem)), exist_ok=True)
    text = markdown_table(rows, keys, values, digits)
    with open(path_stem + ".md", "w") as f:
        f.write(text + "\n")
    columns = list(keys) + [f"{v}_{s}" for v in values for s in ("mean", "std")] + ["runs"]
    with open(path_stem + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows({c: row[c] for c in columns} for row in rows)
    return text
