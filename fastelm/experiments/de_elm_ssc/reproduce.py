"""Run, merge and rewrite the DE-ELM-SSC reproduction; its command line."""
import argparse
import json
import os
import sys
import time

import numpy as np

from ...de_elm import StrategySelection
from ..._cli import (check_output_dir, directory_option, positive_int_option, run_command,
                     seed_option)
from ..common import limit_threads, load_available, one_run
from .outputs import write_outputs
from .protocol import (DATASETS, LABELS, grid_table, hidden_table, load, main_table,
                       select_strategies, settings, share_table)
from .protocol import _ABLATION

# --seed: any size (every seed goes through numpy's SeedSequence)
SEED_OPTION = seed_option


def run(quick=False, out_dir="results/de-elm-ssc", seed=0, runs=None, data_home=None,
        progress=True, *, mushroom_runs=None, datasets=None, overrides=None, threads=None):
    """Run the reproduction and write its tables, plot and notes to ``out_dir``.

    Parameters
    ----------
    quick : bool
        Quick mode (see the module docstring): a few minutes on two cores.
    out_dir : str
    seed : int
        Everything (splits, subsamples, selections, models) derives from it: same seed, same
        tables (all outputs but ``table4_time`` and ``timings.md``).
    runs : int or None
        Run count of Tables 3-5 and the ablation; caps Mushroom's and those of Table 6 and
        Figs. 3-4 (None: the mode's, ``MODES``).
    data_home : str or None
        Data directory (default ``$FASTELM_DATA``, then the package copies). With ``datasets``
        None, a data set whose file is not found is skipped: left out of every section, named
        in notes.md and in the result's 'skipped'; an error if none is found.
    progress : bool
        Progress bars on stderr (tqdm).
    mushroom_runs : int or None
        Run count of Mushroom in Tables 3-5 (None: the mode's, capped by ``runs``).
    datasets : sequence of names or None
        Subset of ``DATASETS`` for Tables 3-5 (Table 6 and Figs. 3-4 run on their data set
        only if it is included); a named data set whose file is not found is an error.
    overrides : dict or None
        Replaces keys of the mode's settings (``MODES``), e.g. for a tiny test configuration.
    threads : int or None
        BLAS and Numba threads during the run (restored afterwards). None: 1 in quick mode,
        whose fits are small enough for a parallel kernel launch to cost more than its work (on
        a loaded 2-core machine, 1 thread halved the quick mode's time), else as set. Results do
        not depend on it.

    Returns
    -------
    dict with 'rows' (the rows of each table, by name), 'records', 'strategies', 'checks',
    'settings', 'timings', 'seconds', 'paths' (by name), 'files' (every file written),
    'summary' (the checks against the paper's claims, as in notes.md) and 'skipped'
    ({name: reason} of the data sets left out because their files were not found).
    """
    s = settings(quick, runs, overrides, mushroom_runs)
    strict = datasets is not None  # data sets the user named must be there
    names = tuple(DATASETS if datasets is None else datasets)
    for name in names:
        if name not in DATASETS:
            raise ValueError(f"unknown data set {name!r}; choose from {DATASETS}")
    check_output_dir(out_dir, "out_dir")
    threads = 1 if threads is None and quick else threads
    with limit_threads(threads):
        return _run(names, s, out_dir, seed, quick, data_home, progress, strict)


def _run(names, s, out_dir, seed, quick, data_home, progress, strict=False):
    """The body of ``run``: every section of every available data set, then the outputs."""
    timings, load_seconds = {}, {}
    rec = {"main": [], "share": [], "grid": [], "nh": [], "ablation": []}
    strategies, selections = {}, {}

    def load_timed(name):
        start = time.perf_counter()
        data = load(name, data_home, s["subsample"].get(name), seed)
        load_seconds[name] = time.perf_counter() - start
        return data

    data, skipped = load_available(names, load_timed, strict=strict, what="DE-ELM-SSC")
    if s["nh_dataset"] in skipped and s["nh_values"]:
        # the hidden-node sweep (Figs. 3-4) on the first available set instead, so that a run
        # without the UCI files still draws its plot; notes.md names the set it used
        s = dict(s, nh_dataset=next(iter(data)))
    for name, (X, y) in data.items():
        start = time.perf_counter()
        selections[name] = select_strategies(name, X, y, seed, s)
        strategies[name] = {m: sel.strategy for m, sel in selections[name].items()}
        timings[f"{LABELS[name]}: strategy selection"] = (time.perf_counter() - start
                                                          + load_seconds[name])

        start = time.perf_counter()
        rec["main"] += main_table(name, X, y, strategies[name], s, seed, progress)
        timings[f"{LABELS[name]}: tables 3-4"] = time.perf_counter() - start
        if name in s["share_datasets"]:
            start = time.perf_counter()
            rec["share"] += share_table(name, X, y, strategies[name], s, seed, progress)
            timings[f"{LABELS[name]}: table 5"] = time.perf_counter() - start
        if name == s["grid_dataset"]:
            start = time.perf_counter()
            rec["grid"] += grid_table(name, X, y, strategies[name], s, seed, progress)
            timings[f"{LABELS[name]}: table 6"] = time.perf_counter() - start
        if name == s["nh_dataset"]:
            start = time.perf_counter()
            rec["nh"] += hidden_table(name, X, y, strategies[name], s, seed, progress)
            timings[f"{LABELS[name]}: figs 3-4"] = time.perf_counter() - start
        if name == "australian" and s["ablation_runs"]:
            start = time.perf_counter()
            Xr, yr = load(name, data_home, s["subsample"].get(name), seed,
                          categorical="ordinal")
            rec["ablation"] += share_table(name, Xr, yr, strategies[name], s, seed, progress,
                                           methods=("ELM", "Tri-DE-ELM", "DE-ELM-SSC+"),
                                           scale=False, shares=(0.2, 0.8), stream=_ABLATION,
                                           n=s["ablation_runs"])
            timings[f"{LABELS[name]}: raw-input ablation"] = time.perf_counter() - start
    return write_outputs(out_dir, rec, selections, s, seed, quick, timings, skipped)


def _load_saved(out_dir):
    """(records, selections, settings, seed, quick, timings, skipped) from
    ``out_dir``/records.json."""
    path = os.path.join(out_dir, "records.json")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{out_dir}: no records.json there (not the output folder of "
                                "a DE-ELM-SSC run)")
    try:
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path}: not a records.json written by a run ({error})") from None
    selections = {n: {m: StrategySelection(r["strategy"], tuple(r["strategies"]),
                                           np.array(r["votes"]), np.array(r["rmse_sums"]),
                                           np.array(r["rmse"]))
                      for m, r in sel.items()}
                  for n, sel in saved["selections"].items()}
    return (saved["records"], selections, saved["settings"], saved["seed"], saved["quick"],
            saved["timings"], saved.get("skipped", {}))


def rewrite(out_dir):
    """Write the tables, plot and notes again from ``out_dir``/records.json (no refitting)."""
    return write_outputs(out_dir, *_load_saved(out_dir))


def merge(out_dir, sources, settings=None):
    """Combine runs on disjoint data sets into one reproduction in ``out_dir``.

    Each source directory holds the records.json of ``run`` with the same seed and mode but
    other ``datasets`` (e.g. run in parallel processes). Every data set draws from its own
    random streams, so with equal settings the merged tables equal those of one run over all
    the data sets; only the timings differ. Sources run with different settings (e.g. fewer
    runs for one data set) need ``settings``: the dict to report in notes.md.
    """
    loaded = [_load_saved(src) for src in sources]
    _, _, s, seed, quick, _, _ = loaded[0]
    rec = {key: [] for key in loaded[0][0]}
    selections, timings, skipped = {}, {}, {}
    for records, sel, s_i, seed_i, quick_i, times, skipped_i in loaded:
        if (seed_i, quick_i) != (seed, quick):
            raise ValueError("merge needs sources run with the same seed and mode")
        if s_i != s and settings is None:
            raise ValueError("the sources were run with different settings: pass settings=")
        if set(sel) & set(selections):
            raise ValueError(f"data sets in more than one source: {set(sel) & set(selections)}")
        for key in rec:
            rec[key] += records[key]
        selections.update(sel)
        timings.update(times)
        skipped.update(skipped_i)
    order = list(LABELS.values())
    for key in rec:  # the order of one run over DATASETS (a stable sort)
        rec[key].sort(key=lambda r: order.index(r["dataset"]))
    selections = {n: selections[n] for n in DATASETS if n in selections}
    skipped = {n: skipped[n] for n in DATASETS if n in skipped and n not in selections}
    os.makedirs(out_dir, exist_ok=True)
    return write_outputs(out_dir, rec, selections, s if settings is None else settings, seed,
                         quick, timings, skipped)


def _reported_settings(sources):
    """The settings to report for a merge of ``sources``: those of the source that ran Table
    6's data set (its grid, hidden-node and selection settings are the ones that differ
    between sources), else the first source's."""
    loaded = [_load_saved(src) for src in sources]
    for records, selections, s, *_ in loaded:
        if s["grid_dataset"] in selections:
            return s
    return loaded[0][2]


def _settings_option(text):
    """argparse type of ``--settings``: a JSON object."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not JSON ({error})") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("expected a JSON object of settings, e.g. "
                                         "'{\"runs\": 2}'")
    return value


#: the name of ``fastelm reproduce de-elm-ssc`` and of its output folder, and its one-line help
PAPER = "de-elm-ssc"
HELP = "DE-ELM-SSC / DE-ELM-SSC+ against ELM, Tri-training and DE-ELM (Pang et al. 2020)"
DESCRIPTION = ("Pang et al. (2020): semi-supervised DE-ELM-SSC and DE-ELM-SSC+ against ELM, "
               "DE-ELM and Tri-training on Australian, Breast Cancer, Vote, Wdbc and Mushroom "
               "(Tables 3-6, Figs. 3-4; the UCI files from --data or $FASTELM_DATA, a set "
               "whose files are missing is skipped, with a note).")


def build_parser(parser=None):
    """The command line of this reproduction: its options added to ``parser`` (the
    ``fastelm reproduce de-elm-ssc`` subcommand) or to a new parser (``python -m
    fastelm.experiments.de_elm_ssc``). One builder for both."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="python -m fastelm.experiments.de_elm_ssc")
    parser.description = DESCRIPTION
    parser.add_argument("--quick", action="store_true",
                        help="a few minutes: 3 runs, 5 strategy-selection repeats, 1000 Mushroom "
                             "rows, a smaller F grid and hidden-node sweep")
    parser.add_argument("--out", default=f"results/{PAPER}",
                        help=f"output folder (default results/{PAPER})")
    parser.add_argument("--seed", type=SEED_OPTION, default=0,
                        help="seeds every split, subsample, selection and model (default 0)")
    parser.add_argument("--runs", type=positive_int_option, default=None,
                        help="runs of Tables 3-5 (caps Mushroom's, Table 6's, Figs. 3-4's)")
    parser.add_argument("--mushroom-runs", type=positive_int_option, default=None,
                        help="runs of Mushroom in Tables 3-5")
    parser.add_argument("--data", type=directory_option, default=None,
                        help="directory with the UCI files (default $FASTELM_DATA)")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=None,
                        metavar="NAME", help=f"a subset of {', '.join(DATASETS)}")
    parser.add_argument("--threads", type=positive_int_option, default=None,
                        help="BLAS and Numba threads (default: 1 with --quick, else as set)")
    parser.add_argument("--settings", type=_settings_option, default=None, metavar="JSON",
                        help="overrides of the mode's settings (MODES), e.g. "
                             "'{\"selection_repeats\": {\"mushroom\": 25}}'")
    parser.add_argument("--merge", nargs="+", type=directory_option, default=None,
                        metavar="DIR",
                        help="instead of running: merge these runs on disjoint data sets "
                             "into --out (notes report the settings of the run that holds "
                             "Table 6's data set)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def main(argv=None):
    """``python -m fastelm.experiments.de_elm_ssc``: the same options as ``fastelm reproduce
    de-elm-ssc`` (:func:`build_parser`)."""
    return run_command("de_elm_ssc", build_parser(), run_from_args, argv)


def run_from_args(args):
    """Run (or ``--merge``) what the parsed command line (:func:`build_parser`) asks; print
    notes.md."""
    check_output_dir(args.out)
    with one_run(args.out) as staged:
        if args.merge:
            result = merge(staged.folder, args.merge, settings=_reported_settings(args.merge))
        else:
            result = run(quick=args.quick, out_dir=staged.folder, seed=args.seed,
                         runs=args.runs, data_home=args.data, progress=not args.no_progress,
                         mushroom_runs=args.mushroom_runs, datasets=args.datasets,
                         overrides=args.settings, threads=args.threads)
    result = staged.final(result)
    with open(result["paths"]["notes"], encoding="utf-8") as f:
        print(f.read())
    return 0


if __name__ == "__main__":
    sys.exit(main())
