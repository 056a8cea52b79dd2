"""The ``fastelm`` command line (also ``python -m fastelm``).

    fastelm reproduce fos-elm [--quick] [--out DIR] [--seed N] [--data DIR] [--datasets ...]
    fastelm reproduce de-elm-ssc [--quick] [--out DIR] [--seed N] [--data DIR] [--runs R] ...
    fastelm reproduce bls-fmri [--quick] [--out DIR] [--seed N] [--fmri-data DIR] [--atlas NAME]
        [--strategy NAME] [--sites SITE ...] [--features KIND ...] [--deep [only]] ...
    fastelm reproduce all [--quick] [--out DIR] [--seed N] [--data DIR] [--fmri-data DIR ...]
    fastelm datasets [--data DIR]
    fastelm bench [--quick] [--out FILE]
    fastelm demo [--data DIR]

``fastelm reproduce X`` takes the options of ``python -m fastelm.experiments.X``: both are built
by that experiment's ``reproduce.build_parser`` (``fastelm reproduce X --help`` lists them).
``--data`` is always the folder of the UCI files, ``--fmri-data`` the ABIDE-layout folder.

A user's mistake (a missing folder or file, a bad option value, a damaged data file) is one
line on stderr, naming the option or path, and exit status 2, here and in every
``python -m fastelm.experiments.*`` command (``fastelm._cli`` is their one shared
mechanism); ``FASTELM_TRACEBACK=1`` shows the traceback instead.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
import time
from collections.abc import Sequence

from ._cli import (CommandError, check_option, check_output_dir, check_output_file,
                   directory_option, run_command, seed_option)

# paper name → (experiment package, the keyword its run() takes for the data directory, the
# command-line option that gives that directory); each package's reproduce module builds the
# paper's own command line (build_parser, run_from_args)
EXPERIMENTS = {
    "fos-elm": ("fastelm.experiments.fos_elm", "data_home", "data"),
    "bls-fmri": ("fastelm.experiments.bls_fmri", "data_dir", "fmri_data"),
    "de-elm-ssc": ("fastelm.experiments.de_elm_ssc", "data_home", "data"),
}


def _print_summary(name, result, seconds):
    print(f"\n== {name}: finished in {seconds:.1f} s")
    for path in (result or {}).get("files", []) or []:
        print(f"   wrote {path}")
    skipped = (result or {}).get("skipped") or {}
    if skipped:  # each reason was printed when the data set was skipped, and is in notes.md
        print(f"   skipped (files not found, see notes.md): {', '.join(skipped)}")
    table = (result or {}).get("table")
    if isinstance(table, str):
        print(table)


def reproduce_all(args: argparse.Namespace) -> int:
    """``fastelm reproduce all``: every paper in turn, into ``--out``/<paper>."""
    from .experiments.common import one_run

    names = list(EXPERIMENTS)
    for option in sorted({EXPERIMENTS[name][2] for name in names}):
        folder = getattr(args, option)
        if folder is not None and not os.path.isdir(folder):
            raise CommandError(f"--{option.replace('_', '-')} {folder}: no such directory")
    modules = {name: importlib.import_module(EXPERIMENTS[name][0]) for name in names}
    for module in modules.values():  # --seed as the experiment's own command line takes it
        check_option(args.seed, module.SEED_OPTION, "--seed")
    check_output_dir(args.out)
    outs = {name: check_output_dir(os.path.join(args.out, name)) for name in names}
    finished, start_all = [], time.perf_counter()
    for name in names:
        module, (_, data_kw, option) = modules[name], EXPERIMENTS[name]
        kwargs = {"quick": args.quick, "out_dir": outs[name], "seed": args.seed,
                  data_kw: getattr(args, option)}
        if name == "bls-fmri":
            kwargs.update(atlas=args.atlas, strategy=args.strategy)
        print(f"== {name}: {'quick' if args.quick else 'full'} reproduction into {outs[name]}")
        start = time.perf_counter()
        with one_run(outs[name]) as staged:
            result = module.run(**dict(kwargs, out_dir=staged.folder))
        result = staged.final(result)
        _print_summary(name, result, time.perf_counter() - start)
        finished.append((name, time.perf_counter() - start, result or {}))
    if len(names) > 1:
        print(f"\n== all: {len(finished)} reproductions in "
              f"{time.perf_counter() - start_all:.1f} s")
        for name, seconds, result in finished:
            skipped = result.get("skipped") or {}
            extra = f"; skipped {', '.join(skipped)}" if skipped else ""
            print(f"   {name}: {len(result.get('files') or [])} files in {outs[name]} "
                  f"({seconds:.1f} s{extra})")
    return 0


def datasets(args: argparse.Namespace) -> int:
    from .datasets import available_datasets, get_data_home

    get_data_home(args.data)  # a $FASTELM_DATA that does not exist is an error
    rows = available_datasets(args.data)
    width = max(len(n) for n in rows)
    print(f"{'data set':<{width}}  source    where")
    for name, (kind, where) in rows.items():
        print(f"{name:<{width}}  {kind:<8}  {where}")
    return 0


def demo(args: argparse.Namespace) -> int:
    from .demo import main as demo_main

    return demo_main([] if args.data is None else ["--data", args.data])


def bench(args: argparse.Namespace) -> int:
    """Run benchmarks/peers.py of the source checkout fastelm is installed from."""
    script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                          "benchmarks", "peers.py")
    if not os.path.exists(script):
        raise CommandError("fastelm bench needs a source checkout (benchmarks/peers.py); "
                           "install with 'pip install -e .[bench]' from the repository")
    if args.out:
        check_output_file(args.out)
    spec = importlib.util.spec_from_file_location("fastelm_bench_peers", script)
    if spec is None or spec.loader is None:
        raise CommandError(f"{script}: not a Python module")
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    return peers.main((["--quick"] if args.quick else []) + (["--out", args.out] if args.out
                                                             else []))


def build_parser() -> argparse.ArgumentParser:
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="fastelm", description="fastelm: randomized-weight neural networks (ELM, OS-ELM, "
        "FOS-ELM, BLS, DE-ELM-SSC). Reproduce the papers' experiments, list the offline data "
        "sets, time fastelm against its peers, or run a demo.")
    parser.add_argument("--version", action="version", version=f"fastelm {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser(
        "reproduce", help="reproduce a paper's experiments (tables, plots)",
        description="Reproduce a paper's experiments: its tables, figures and notes. Each "
        "paper has its own options: fastelm reproduce PAPER --help.")
    papers = rep.add_subparsers(dest="paper", required=True, metavar="PAPER")
    for name, (package, _, _) in EXPERIMENTS.items():
        module = importlib.import_module(package + ".reproduce")
        paper = papers.add_parser(name, help=module.HELP)
        module.build_parser(paper)
        paper.set_defaults(func=module.run_from_args)
    every = papers.add_parser(
        "all", help="every paper in turn, into OUT/<paper>",
        description="Every reproduction in turn (fos-elm, bls-fmri, de-elm-ssc), each into "
        "OUT/<paper>, with its default settings and these shared options; a data set whose "
        "files are missing is skipped, with a note.")
    every.add_argument("--quick", action="store_true", help="minutes, not hours")
    every.add_argument("--out", default="results",
                       help="output folder; each paper writes to OUT/<paper> (default results)")
    every.add_argument("--seed", type=seed_option, default=0,
                       help="seeds every split, subsample and model: the same seed gives the "
                            "same tables (an integer >= 0, default 0; bls-fmri, which seeds "
                            "scikit-learn: at most 2**32 - 1)")
    every.add_argument("--data", type=directory_option,
                       help="directory with the UCI files (else $FASTELM_DATA)")
    every.add_argument("--fmri-data", type=directory_option, metavar="DIR",
                       help="bls-fmri: ABIDE-layout folder (default: synthetic subjects)")
    every.add_argument("--atlas", help="bls-fmri: atlas of the *_rois_<atlas>.1D files, e.g. "
                       "cc200 (default: the only one present)")
    every.add_argument("--strategy", help="bls-fmri: nilearn ABIDE_pcp/<pipeline>/<strategy> "
                       "folder, e.g. filt_noglobal (when several were downloaded)")
    every.set_defaults(func=reproduce_all)
    ds = sub.add_parser("datasets", help="which data sets are available offline, from where")
    ds.add_argument("--data", type=directory_option,
                    help="directory with the UCI/IDX files (else $FASTELM_DATA)")
    ds.set_defaults(func=datasets)
    be = sub.add_parser("bench", help="time fastelm side by side with its peers")
    be.add_argument("--quick", action="store_true")
    be.add_argument("--out", help="also write the table to this Markdown file")
    be.set_defaults(func=bench)
    de = sub.add_parser("demo", help="ELM and OS-ELM on the offline data sets")
    de.add_argument("--data", type=directory_option,
                    help="directory with the UCI/IDX files (else $FASTELM_DATA)")
    de.set_defaults(func=demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_command("fastelm", build_parser(), lambda args: args.func(args), argv)


if __name__ == "__main__":
    sys.exit(main())
