"""What the reproductions share: result tables, data loading with skips, notes templates,
thread limits and input standardisation.

A result is a list of records (dicts of one run: the grouping keys and the measured values);
``summarize`` groups them and ``write_table`` writes what a person reads (Markdown and CSV).
``load_available`` loads the data sets of a run, skipping (or, when the user named them,
refusing) those whose files are missing; ``skipped_notes`` says so in notes.md.
``read_template``/``fill`` turn a paper's notes template (a Markdown file of named blocks with
``{placeholders}``, beside its code) into text. ``limit_threads`` runs BLAS and Numba on a
given number of threads; ``standardise`` scales inputs by training statistics.
``one_run`` makes a command's output folder hold the files of one complete run: the run writes
into ``OUT/incomplete-run/``, whose files replace the previous run's when it completes.
"""
import csv
import os
import re
import shutil
import sys
from collections import defaultdict
from contextlib import contextmanager

import numpy as np
from sklearn.preprocessing import StandardScaler

from .._threads import thread_limit
from ..datasets import DataNotFoundError


def progress(iterable, desc, total=None, enabled=True):
    """``iterable`` wrapped in a tqdm progress bar on stderr when tqdm is installed."""
    if not enabled:
        return iterable
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, desc=desc, total=total, leave=False)


PLOT_EXTRA = "pip install 'fastelm[plot]'"
_noted: list[bool] = []


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or None when matplotlib is not installed:
    then a one-line note on stderr (once per process) says that no PNG is written and which
    extra installs it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        if not _noted:
            _noted.append(True)
            print(f"note: matplotlib is not installed, so no PNG figure is written "
                  f"({PLOT_EXTRA})", file=sys.stderr)
        return None
    return plt


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
    """A Markdown table: the keys, then 'mean ± std' per value (the value alone for a single
    run, whose std says nothing), then the number of runs."""
    lines = ["| " + " | ".join(list(keys) + list(values) + ["runs"]) + " |",
             "|" + "---|" * (len(keys) + len(values) + 1)]
    for row in rows:
        cells = [str(row[k]) for k in keys]
        cells += [f"{row[v + '_mean']:.{digits}f}" + ("" if row["runs"] == 1 else
                                                      f" ± {row[v + '_std']:.{digits}f}")
                  for v in values]
        lines.append("| " + " | ".join(cells + [str(row["runs"])]) + " |")
    return "\n".join(lines)


QUICK_HEADING = "**Quick mode**: fewer runs and a smaller setting than the paper's (see notes.md)."


def write_table(rows, keys, values, path_stem, digits=4, heading=None):
    """Write ``path_stem``.md (``heading``, if any, above the table: e.g. QUICK_HEADING) and
    ``path_stem``.csv; returns the Markdown table."""
    os.makedirs(os.path.dirname(os.path.abspath(path_stem)), exist_ok=True)
    text = markdown_table(rows, keys, values, digits)
    with open(path_stem + ".md", "w") as f:
        f.write((f"{heading}\n\n" if heading else "") + text + "\n")
    columns = list(keys) + [f"{v}_{s}" for v in values for s in ("mean", "std")] + ["runs"]
    with open(path_stem + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows({c: row[c] for c in columns} for row in rows)
    return text


def load_available(names, load, *, strict=False, what="reproduction"):
    """Load every data set of a run that this machine has.

    ``load(name)`` returns the data; a :class:`~fastelm.datasets.DataNotFoundError` (no file,
    no clean package copy) skips that data set, with its reason on stderr, unless ``strict``
    (the user named the data sets), when it is raised. A malformed file is never skipped.
    Returns ``(data, skipped)``: ``{name: load(name)}`` and ``{name: reason}``, in ``names``'
    order. Raises DataNotFoundError when no data set is available at all.
    """
    data, skipped = {}, {}
    for name in names:
        try:
            data[name] = load(name)
        except DataNotFoundError as error:
            if strict:
                raise
            skipped[name] = str(error).splitlines()[0]
            print(f"{what}: skipping {name}: {skipped[name]}", file=sys.stderr)
    if not data:
        raise DataNotFoundError(
            f"{what}: none of its data sets is available offline; place the original files in "
            "a folder and pass --data DIR (or set $FASTELM_DATA); `fastelm datasets` lists what "
            "is found. " + " ".join(skipped.values()))
    return data, skipped


def skipped_notes(skipped, labels=None):
    """The lines of notes.md on the data sets skipped for want of their files (none: [])."""
    if not skipped:
        return []
    labels = labels or {}
    return ["## Data sets not available (skipped)", "",
            "Their files were not found on this machine, so every table, figure and check that "
            "needs them is left out. To include them, put the files named below in a folder and "
            "pass `--data DIR` (or set `$FASTELM_DATA`); `fastelm datasets` lists what is "
            "found.", ""] + [f"- {labels.get(name, name)}: {reason}"
                             for name, reason in skipped.items()] + [""]


# ---------------------------------------------------------------------------------------------
# notes templates

_BLOCK = re.compile(r"^<!-- (\w+) -->\n", flags=re.M)


def read_template(path):
    """The named blocks of a notes template: ``{name: text}``.

    A template is a Markdown file in which a line ``<!-- name -->`` starts the block ``name``;
    a block runs to the next such line (its trailing blank lines dropped). Blocks hold the
    prose, with ``{placeholders}`` for the numbers (``str.format`` syntax: ``{{`` and ``}}``
    are literal braces).
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    parts = _BLOCK.split(text)
    return {name: body.rstrip("\n") for name, body in zip(parts[1::2], parts[2::2])}


def fill(blocks, name, **values):
    """Block ``name`` of a template with its placeholders replaced by ``values``."""
    return blocks[name].format(**values)


# ---------------------------------------------------------------------------------------------
# threads and inputs

def limit_threads(threads):
    """Run BLAS/OpenMP (threadpoolctl) and Numba on at most ``threads`` threads (None: as is):
    ``fastelm._threads.thread_limit``."""
    return thread_limit(threads)


def standardise(X_fit, *X_other):
    """``X_fit`` and every ``X_other`` scaled by the column means and standard deviations of
    ``X_fit`` (scikit-learn's ``StandardScaler``; a constant column of ``X_fit`` becomes 0).
    Returns a list, ``X_fit``'s first."""
    scaler = StandardScaler().fit(X_fit)
    return [scaler.transform(X) for X in (X_fit,) + X_other]


# ---------------------------------------------------------------------------------------------
# output folders: one complete run, or visibly incomplete

INCOMPLETE = "incomplete-run"  # where a run writes until it completes (inside its folder)
MANIFEST = ".fastelm-run-files"  # the names the last complete run wrote, one a line
_NOTE = "INCOMPLETE.md"
_NOTE_TEXT = ("# Incomplete run\n\nA run writes its files here and moves them up into {out} "
              "when it completes. If no run is going, the run that wrote these files was "
              "interrupted: they are partial, and the files in {out} are those of the last "
              "complete run. The next run into {out} deletes this folder first.\n")


class StagedRun:
    """The output folder of a run that is being written (see :func:`one_run`): ``folder`` is
    where the run writes, ``out_dir`` where its files go when it completes."""

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.folder = os.path.join(out_dir, INCOMPLETE)

    def final(self, value):
        """``value`` (a path, or a dict, list or tuple holding paths) with every path under
        ``folder`` moved to where :meth:`publish` puts it, under ``out_dir``."""
        if isinstance(value, str):
            if value == self.folder or value.startswith(self.folder + os.sep):
                return self.out_dir + value[len(self.folder):]
            return value
        if isinstance(value, dict):
            return {key: self.final(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.final(item) for item in value)
        return value

    def start(self):
        """Make ``folder`` empty but for its INCOMPLETE.md note (the partial files of an
        earlier interrupted run are deleted)."""
        if os.path.isdir(self.folder):
            shutil.rmtree(self.folder)
        os.makedirs(self.folder)
        with open(os.path.join(self.folder, _NOTE), "w", encoding="utf-8") as f:
            f.write(_NOTE_TEXT.format(out=self.out_dir))

    def publish(self):
        """Replace the previous run's files in ``out_dir`` (those its manifest names, and any
        of the new names) by the new run's, write the new manifest and delete ``folder``.
        Files in ``out_dir`` that no run wrote are kept."""
        os.remove(os.path.join(self.folder, _NOTE))
        names = sorted(os.listdir(self.folder))
        manifest = os.path.join(self.out_dir, MANIFEST)
        previous = []
        if os.path.isfile(manifest):
            with open(manifest, encoding="utf-8") as f:
                previous = [n for n in f.read().splitlines()
                            if n and n not in (os.curdir, os.pardir, INCOMPLETE)
                            and os.sep not in n and (not os.altsep or os.altsep not in n)]
            os.remove(manifest)  # from here until the new one is written, no run is complete
        for name in sorted(set(previous) | set(names)):
            path = os.path.join(self.out_dir, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path)
            elif os.path.lexists(path):
                os.remove(path)
        for name in names:
            os.replace(os.path.join(self.folder, name), os.path.join(self.out_dir, name))
        os.rmdir(self.folder)
        with open(manifest, "w", encoding="utf-8") as f:
            f.write("".join(name + "\n" for name in names))


@contextmanager
def one_run(out_dir):
    """The output folder of one command: all files of one complete run, or visibly incomplete.

    Yields a :class:`StagedRun` whose ``folder`` (``out_dir/incomplete-run``, with a note
    INCOMPLETE.md saying what it is) the run writes into. When the block ends normally, the
    new files replace the previous run's in ``out_dir`` (:meth:`StagedRun.publish`); when it
    raises (an error, Ctrl-C), ``out_dir`` keeps the previous complete run's files untouched
    and ``incomplete-run/`` this run's partial ones (a line on stderr says so; a run stopped
    before writing anything leaves no such folder), and the error propagates. Paths the run
    returns point into ``folder``: ``staged.final(result)`` gives them where they end up.
    """
    staged = StagedRun(out_dir)
    staged.start()
    try:
        yield staged
    except BaseException:
        if os.listdir(staged.folder) == [_NOTE]:  # stopped before writing: nothing to keep
            shutil.rmtree(staged.folder)
        else:
            print(f"the run did not complete: {out_dir} keeps the files of its last complete "
                  f"run; this run's partial files are in {staged.folder}", file=sys.stderr)
        raise
    staged.publish()
