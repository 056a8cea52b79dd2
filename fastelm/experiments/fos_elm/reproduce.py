"""Run the FOS-ELM reproduction; its command line."""
import argparse
import os
import time

import numpy as np

from ..._cli import (check_output_dir, directory_option, positive_int_option, run_command,
                     seed_option)
from ..common import (QUICK_HEADING, load_available, one_run, skipped_notes, summarize,
                      write_table)
from ..common import progress as progress_bar
from .outputs import check_claim, notes_text, plot_nodes, timings_text
from .protocol import (DATASETS, FULL_REPEATS, KEYS, LABELS, MODELS, QUICK_REPEATS, VALUES,
                       _load, _rng, configs, run_repeat, tune, tune_text)

# --seed: any size (every seed goes through numpy's SeedSequence)
SEED_OPTION = seed_option


def run(quick=False, out_dir="results/fos-elm", seed=0, repeats=None, data_home=None,
        progress=True, *, datasets=None, config=None):
    """Run the comparison and write its table, plot and notes to ``out_dir``.

    Parameters
    ----------
    quick : bool
        L0 halved and 3 repeats (about a minute on 2 cores) instead of 20 repeats.
    out_dir : str
        Output folder (created).
    seed : int
        Seeds every split, stream order and hidden layer: the same seed gives the same tables.
    repeats : int, optional
        Overrides the number of repeats.
    data_home : str, optional
        Data directory (default ``$FASTELM_DATA``; see :mod:`fastelm.datasets`).
    progress : bool
        Show progress bars (tqdm) on stderr.
    datasets : sequence of str, optional
        A subset of :data:`DATASETS` (default all five).
    config : dict, optional
        Overrides of the settings, ``{name: {"n_hidden": 20, ...}}`` (see :data:`CONFIG`).

    Returns
    -------
    dict with ``rows`` (the summary rows of the table: data set, model, metric, score_mean,
    score_std, nodes_mean, nodes_std, runs), ``records`` (one per repeat and model),
    ``histories`` ({name: repeats × chunks array of FOS-ELM's alive nodes}), ``checks``
    ({name: dict of the claim's check}), ``configs``, ``files``, ``seconds`` and ``skipped``
    ({name: reason} of the data sets whose files are not on this machine: left out, with a
    section in notes.md).
    """
    start_all = time.perf_counter()
    cfgs = configs(quick, datasets, config)
    n_repeats = repeats if repeats is not None else (QUICK_REPEATS if quick else FULL_REPEATS)
    if n_repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {n_repeats}")
    check_output_dir(out_dir, "out_dir")
    records, histories, seconds = [], {}, {}
    # a missing data set is reported, not fatal: run what is here
    bunches, skipped = load_available(cfgs, lambda name: _load(name, data_home), what="FOS-ELM")
    cfgs = {name: cfg for name, cfg in cfgs.items() if name in bunches}
    for name, cfg in cfgs.items():
        bunch = bunches[name]
        history, times = [], []
        for r in progress_bar(range(n_repeats), f"FOS-ELM {name}", n_repeats, progress):
            recs, hist, secs = run_repeat(name, bunch, cfg, _rng(seed, name, r))
            records += recs
            history.append(hist)
            times.append(secs)
        histories[name] = np.array(history)
        seconds[name] = {m: float(np.sum([t[m] for t in times])) for m in MODELS}
    rows = summarize(records, KEYS, VALUES)
    checks = {name: check_claim(rows, LABELS[name], cfgs[name]["n_hidden"]) for name in cfgs}

    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, "results")
    table = write_table(rows, KEYS, VALUES, stem, heading=QUICK_HEADING if quick else None)
    files = [stem + ".md", stem + ".csv"]
    plot = os.path.join(out_dir, "nodes.png")
    if plot_nodes(histories, cfgs, plot, quick=quick):
        files.append(plot)
    notes = os.path.join(out_dir, "notes.md")
    with open(notes, "w") as f:
        f.write(notes_text(table, checks, cfgs, quick, seed, n_repeats))
        if skipped:
            f.write("\n" + "\n".join(skipped_notes(skipped, LABELS)))
    files.append(notes)
    total = time.perf_counter() - start_all
    timings = os.path.join(out_dir, "timings.md")
    with open(timings, "w") as f:
        f.write(timings_text(seconds, total, n_repeats))
    files.append(timings)
    return {"rows": rows, "records": records, "histories": histories, "checks": checks,
            "configs": cfgs, "files": files, "seconds": total, "table": table,
            "skipped": skipped}


#: the name of ``fastelm reproduce fos-elm`` and of its output folder, and its one-line help
PAPER = "fos-elm"
HELP = "FOS-ELM (OS-ELM pruned online by EFAST) against OS-ELM on five data sets"
DESCRIPTION = ("The FOS-ELM paper: FOS-ELM (OS-ELM whose hidden nodes EFAST prunes online) "
               "against OS-ELM with its initial and with its final node count, on Friedman #2, "
               "Concrete, Pima, Satimage and Segment (the UCI files from --data or "
               "$FASTELM_DATA; a set whose files are missing is skipped, with a note).")


def build_parser(parser=None):
    """The command line of this reproduction: its options added to ``parser`` (the
    ``fastelm reproduce fos-elm`` subcommand) or to a new parser (``python -m
    fastelm.experiments.fos_elm``). One builder for both."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="python -m fastelm.experiments.fos_elm")
    parser.description = DESCRIPTION
    parser.add_argument("--quick", action="store_true",
                        help=f"L0 halved and {QUICK_REPEATS} repeats (about a minute)")
    parser.add_argument("--out", default=f"results/{PAPER}",
                        help=f"output folder (default results/{PAPER})")
    parser.add_argument("--seed", type=SEED_OPTION, default=0,
                        help="seeds every split, stream order and hidden layer (default 0)")
    parser.add_argument("--repeats", type=positive_int_option, default=None,
                        help=f"repeats per data set (default {FULL_REPEATS}, quick "
                             f"{QUICK_REPEATS})")
    parser.add_argument("--data", type=directory_option, default=None,
                        help="directory with the UCI files (default $FASTELM_DATA)")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=None,
                        metavar="NAME", help=f"a subset of {', '.join(DATASETS)}")
    parser.add_argument("--tune", action="store_true",
                        help="only re-run the validation search behind CONFIG and print it")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def main(argv=None):
    """``python -m fastelm.experiments.fos_elm``: the same options as ``fastelm reproduce
    fos-elm`` (:func:`build_parser`)."""
    return run_command("fos_elm", build_parser(), run_from_args, argv)


def run_from_args(args):
    """Run what the parsed command line (:func:`build_parser`) asks; print the table."""
    if args.tune:
        chosen = tune(seed=args.seed, repeats=args.repeats or 5, data_home=args.data,
                      names=args.datasets, progress=not args.no_progress)
        print(tune_text(chosen))
        return 0
    check_output_dir(args.out)
    with one_run(args.out) as staged:
        result = run(quick=args.quick, out_dir=staged.folder, seed=args.seed,
                     repeats=args.repeats, data_home=args.data, progress=not args.no_progress,
                     datasets=args.datasets)
    result = staged.final(result)
    print(result["table"])
    print()
    held = sum(c["holds"] for c in result["checks"].values())
    print(f"claim (fewer nodes, score within 1 sd of OS-ELM (L0)) holds on {held} of "
          f"{len(result['checks'])} data sets; {result['seconds']:.1f} s")
    print("wrote " + ", ".join(result["files"]))
    return 0
