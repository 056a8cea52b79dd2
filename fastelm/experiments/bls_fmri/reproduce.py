"""The reproduction: data, settings, the run and its command line."""
import argparse
import importlib.util
import json
import os
import shutil
import time

import numpy as np

from ..._cli import (CommandError, check_output_dir, directory_option, run_command,
                     sklearn_seed_option)
from ...datasets import make_synthetic_abide
from .adhd200 import TABLE_KINDS, is_alff_folder, run_adhd200
from .models import default_models, describe
from .multi_atlas import run_multi_atlas
from ..common import one_run
from .outputs import write_outputs
from .records import _fixed_bls  # noqa: F401  (tests and callers import it from here)
from .records import best_bls_permutation, data_entry, penalty_counts, site_accuracy
from .settings import REAL_SETTINGS, SETTINGS, dnn_skip, settings_for
from .subjects import detect_atlas, load, subjects_and_folds
from .protocol import KINDS, FoldFeatures, cv_splits, run_splits, site_splits

FEATURES = ("timeseries", "connectivity")  # what load() and the synthetic runs use
# --seed: at most 2**32 - 1, as the scikit-learn folds and comparators it seeds take
SEED_OPTION = sklearn_seed_option
SYNTHETIC = ("effect", "null")

def make_synthetic(directory, settings, seed):
    """Write the ``effect`` and ``null`` data sets under ``directory`` (replacing them).

    Both come from the same seed: ``null`` is ``effect`` with effect_size 0 (same sites,
    networks, lengths, labels and noise). Returns {name: directory}.
    """
    out = {}
    for name in SYNTHETIC:
        path = os.path.join(directory, name)
        if os.path.isdir(path):
            shutil.rmtree(path)  # a smaller earlier run would leave orphan subjects
        effect = settings["effect_size"] if name == "effect" else 0.0
        make_synthetic_abide(path, n_subjects=settings["n_subjects"], n_rois=settings["n_rois"],
                             lengths=tuple(settings["lengths"]), effect_size=effect,
                             n_sites=settings["n_sites"], random_state=seed)
        out[name] = path
    return out


def run(quick=False, out_dir="results/bls-fmri", seed=0, data_dir=None, progress=True, *,
        features=None, sites=None, settings=None, models=None, threads=1, atlas=None,
        strategy=None):
    """Run the comparison and write its tables, plots and notes to ``out_dir``.

    Parameters
    ----------
    quick : bool
        Synthetic: 80 subjects of 30 ROIs, 5 folds × 1 repeat, DNN capped at 10 epochs. Real
        data: 200 subjects drawn by site × diagnosis, 5 folds, 19 permutations.
    out_dir : str
        Output folder (created); synthetic subjects go to ``out_dir/synthetic``.
    seed : int
        Seeds the data subsample, the folds and every model.
    data_dir : str, optional
        An ABIDE layout (flat, ``rois_<atlas>/`` or nilearn's ``ABIDE_pcp``) instead of
        synthetic subjects; then leave-one-site-out, per-site accuracy and the permutation test
        are added (:data:`REAL_SETTINGS`). A folder of ADHD-200 ALFF tables
        (``<SITE>_alff_ds.mat``) runs ``adhd200.run_adhd200`` instead.
    features : sequence of str, optional
        Feature kinds (``timeseries``, ``connectivity``, ``correlation``, ``partial
        correlation``, ``tangent``); default: synthetic ``FEATURES``, real data the settings'.
    sites : sequence of str, optional
        Keep only these SITE_IDs of ``data_dir``.
    settings : dict, optional
        Overrides of the mode's settings.
    models : dict, optional
        ``{name: estimator}`` instead of :func:`default_models`.
    threads : int or None, default 1
        BLAS/OpenMP/Numba threads of every fit, so training times compare (None: defaults).
    atlas : str, optional
        Atlas of the ROI files (default: the only one present; ``aal`` for synthetic data).
    strategy : str, optional
        nilearn layout's ``<strategy>`` folder (e.g. ``filt_noglobal``) when there are several.

    The real-data settings' ``n_jobs`` (2) runs the splits in that many processes, each fit on
    ``threads`` threads.

    Returns
    -------
    dict with ``rows``, ``time_rows``, ``records``, ``checks``, ``meta`` (also ``run.json``),
    ``files``, ``table`` (Markdown) and ``seconds``; on real data also ``loso_rows``,
    ``site_rows`` and ``permutation``.
    """
    if atlas is not None and not isinstance(atlas, str):  # several atlases: compare, join
        atlas = list(atlas)
        if not atlas:
            raise ValueError("atlas=: name at least one atlas (or None to detect it)")
        if len(atlas) > 1:
            if models is not None or features not in (None, ("connectivity",),
                                                       ["connectivity"]):
                raise ValueError("several atlases compare connectivity features with the "
                                 "multi-atlas models; features= and models= do not apply")
            return run_multi_atlas(quick, out_dir, seed, data_dir, atlas, progress,
                                   sites=sites, settings=settings, threads=threads,
                                   strategy=strategy)
        atlas = atlas[0]
    if is_alff_folder(data_dir):
        if atlas is not None or strategy is not None:
            raise ValueError(f"{data_dir} holds ALFF tables (one AAL vector per subject): "
                             "atlas= (--atlas) and strategy= (--strategy) do not apply")
        return run_adhd200(quick, out_dir, seed, data_dir, progress, features=features,
                           sites=sites, settings=settings, models=models, threads=threads)
    start_all = time.perf_counter()
    real = data_dir is not None
    cfg = settings_for(quick, settings, real=real)
    if features is None:
        features = cfg["features"] if real else FEATURES
    features = tuple(features)
    known = KINDS if real else FEATURES
    bad = set(features) - set(known)
    if bad or not features:
        raise ValueError(f"features must be a non-empty subset of {known}, got {features}")
    if models is None:
        models = default_models(cfg["dnn_max_iter"], cfg.get("bls_params"), extended=real)
    os.makedirs(out_dir, exist_ok=True)
    records, loso_records, data = [], [], {}
    extra = {}

    def _meta():
        return {"quick": bool(quick), "seed": seed, "settings": cfg, "data": data,
                "data_dir": None if data_dir is None else str(data_dir),
                "sites": None if sites is None else list(sites), "models": list(models),
                "descriptions": {name: describe(m) for name, m in models.items()},
                "threads": threads, "atlas": atlas, "strategy": strategy, **extra,
                "seconds": time.perf_counter() - start_all}

    if not real:
        directories = make_synthetic(os.path.join(out_dir, "synthetic"), cfg, seed)
        for name, directory in directories.items():
            series, y, strata, bunch = load(directory, "timeseries", sites)  # read once
            n_sites = len(set(bunch.sites))
            ff = FoldFeatures(bunch.series, {"timeseries": series})
            data[name] = data_entry(bunch, y, {})
            for feat in features:
                data[name]["features"][feat] = int(ff.split(feat, np.arange(1), np.arange(1))[0]
                                                   .shape[1])
                splits = cv_splits(y, strata if n_sites > 1 else None, cfg["n_splits"],
                                   cfg["n_repeats"], seed)
                recs, _ = run_splits(ff, [feat], y, models, splits, seed, threads=threads,
                                     progress=progress, desc=f"{name} {feat}")
                records += [dict(r, **{"data set": name}) for r in recs]
    else:
        atlas = atlas or detect_atlas(data_dir, strategy)
        name = os.path.basename(os.path.normpath(data_dir)) or "data"
        bunch, keep, y, splits = subjects_and_folds(
            data_dir, cfg["n_splits"], cfg["n_repeats"], seed, sites=sites, atlas=atlas,
            strategy=strategy, subsample=cfg["subsample"])
        site_of = bunch.sites[keep]
        matrices = {"connectivity": bunch.data[keep]}
        if "timeseries" in features:
            ts, _, _, tb = load(data_dir, "timeseries", sites, atlas, strategy)
            pos = {s: i for i, s in enumerate(tb.subject_ids)}
            missing = [s for s in bunch.subject_ids[keep] if s not in pos]
            if missing:
                raise ValueError(f"{len(missing)} subject(s) too short for flattened series; "
                                 "drop 'timeseries' from the features")
            matrices["timeseries"] = ts[[pos[s] for s in bunch.subject_ids[keep]]]
        needs_series = set(features) - {"connectivity", "timeseries"}
        ff = FoldFeatures([bunch.series[i] for i in keep] if needs_series else None, matrices,
                          cache_folds=True)
        n_sites = len(set(site_of))
        data[name] = data_entry(bunch, y, {}, keep)
        data[name]["atlas"] = atlas
        for feat in features:
            data[name]["features"][feat] = int(ff.split(feat, np.arange(2), np.arange(2))[0]
                                               .shape[1]) if feat != "tangent" else int(
                len(bunch.roi_names) * (len(bunch.roi_names) - 1) // 2)
        n_jobs = cfg["n_jobs"]
        skip = dnn_skip(cfg, len(splits))
        kind_skip = cfg.get("kind_skip") or {}
        records, predictions, loso_records = [], {}, []

        def checkpoint(stage):  # outputs so far, so that a long run leaves results early
            extra["completed"] = stage
            extra["penalties"] = penalty_counts(records)
            extra["direct_links"] = penalty_counts(records, "direct_links")
            extra["site_accuracy"] = site_accuracy(predictions, y, site_of)
            write_outputs(out_dir, records, _meta(), loso_records)

        # the leave-site-out kinds first, then leave-site-out, then the other kinds: a run
        # stopped early has the main comparison
        loso_kinds = [f for f in features if f in cfg["loso_features"]] if n_sites > 1 else []
        done = []
        for feat in loso_kinds + [f for f in features if f not in loso_kinds]:
            ff.precompute(feat, splits, n_jobs, threads)  # once per fold, shared by all
            kind_models = {k: m for k, m in models.items() if k not in kind_skip.get(feat, ())}
            recs, preds = run_splits(ff, [feat], y, kind_models, splits, seed,
                                     threads=threads, progress=progress,
                                     desc=f"{name} CV {feat}", n_jobs=n_jobs, skip=skip)
            records += [dict(r, **{"data set": name}) for r in recs]
            predictions.update(preds)
            done.append(feat)
            checkpoint(f"cross-validation ({', '.join(done)})")
            if loso_kinds and feat == loso_kinds[-1]:
                loso_models = {k: m for k, m in models.items() if k not in cfg["loso_skip"]}
                recs, _ = run_splits(ff, loso_kinds, y, loso_models, site_splits(site_of),
                                     seed, threads=threads, progress=progress,
                                     desc=f"{name} leave-site-out", sites=site_of,
                                     n_jobs=n_jobs)
                loso_records += [dict(r, **{"data set": name}) for r in recs]
                checkpoint(f"cross-validation ({', '.join(done)}), leave-site-out")
        extra["penalties"] = penalty_counts(records)
        extra["direct_links"] = penalty_counts(records, "direct_links")
        extra["site_accuracy"] = site_accuracy(predictions, y, site_of)
        permutation = best_bls_permutation(records, models, extra, ff, y, splits, cfg, seed,
                                           site_of, threads, progress)
        if permutation is not None:
            extra["permutation"] = permutation
        extra.pop("completed", None)
    result = write_outputs(out_dir, records, _meta(), loso_records)
    result["seconds"] = time.perf_counter() - start_all
    return result


#: the name of ``fastelm reproduce bls-fmri`` and of its output folder, and its one-line help
PAPER = "bls-fmri"
HELP = "BLS against SVM, RF, KNN, a DNN (and CCNN/GCN with --deep) on fMRI subjects"
DESCRIPTION = ("Liu & Ji (2021): the Broad Learning System against linear SVM, random forest, "
               "KNN and a 1000-600 DNN (on real data also BLS-CV, ELM-CV and l2 logistic "
               "regression, leave-one-site-out, per-site accuracy and a permutation test) on "
               "fMRI subjects: synthetic ones by default, an ABIDE-layout folder with "
               "--fmri-data. --deep adds the connectome CNN and the population GCN on the same "
               "folds.")
DEEP_EXTRA = ("--deep needs PyTorch: pip install 'fastelm[deep]' (the CPU wheel: pip install "
              "torch --index-url https://download.pytorch.org/whl/cpu)")


def build_parser(parser=None, *, deep=None):
    """The command line of this reproduction: its options added to ``parser`` (the
    ``fastelm reproduce bls-fmri`` subcommand) or to a new parser (``python -m
    fastelm.experiments.bls_fmri``; ``deep='only'``: ``python -m fastelm.experiments.deep``,
    the deep comparators alone). One builder for every entry point."""
    if parser is None:
        parser = argparse.ArgumentParser(
            prog="python -m fastelm.experiments." + ("deep" if deep else "bls_fmri"))
    parser.description = DESCRIPTION
    parser.add_argument("--quick", action="store_true",
                        help="synthetic: 80 subjects of 30 ROIs, 5 folds; real data: 200 "
                             "subjects, 5 folds, 19 permutations")
    parser.add_argument("--out", default=f"results/{PAPER}",
                        help=f"output folder (default results/{PAPER}; the deep comparators "
                             "write to OUT/deep)")
    parser.add_argument("--seed", type=SEED_OPTION, default=0,
                        help="seeds the data, the folds and every model (an integer in "
                             "[0, 2**32 - 1], default 0)")
    parser.add_argument("--fmri-data", type=directory_option, default=None, metavar="DIR",
                        help="an ABIDE-layout folder of *_rois_<atlas>.1D files and a "
                             "phenotype CSV (flat, rois_<atlas>/ or nilearn's ABIDE_pcp), or "
                             "a folder of ADHD-200 <SITE>_alff_ds.mat + <SITE>_phenotypic.csv; "
                             "default: synthetic subjects written to OUT/synthetic")
    parser.add_argument("--data", default=None, help=argparse.SUPPRESS)  # see run_from_args
    parser.add_argument("--atlas", nargs="+", default=None, metavar="NAME",
                        help="atlas of the *_rois_<atlas>.1D files, e.g. cc200 (default: the "
                             "only one present); several (cc200 ho): each atlas's "
                             "connectivity and the multi-atlas BLS-CV on the atlases joined")
    parser.add_argument("--strategy", default=None,
                        help="nilearn layout: the ABIDE_pcp/<pipeline>/<strategy> folder, "
                             "e.g. filt_noglobal (when several were downloaded)")
    parser.add_argument("--sites", nargs="+", default=None, metavar="SITE",
                        help="keep only these SITE_IDs of --fmri-data (other sites' files are "
                             "not read)")
    parser.add_argument("--features", nargs="+", choices=KINDS + TABLE_KINDS, default=None,
                        metavar="KIND",
                        help=f"feature kinds, of {', '.join(KINDS)} (ALFF tables: "
                             f"{', '.join(TABLE_KINDS)}) (default: synthetic "
                             f"{' and '.join(FEATURES)}; real data "
                             f"{' and '.join(REAL_SETTINGS['full']['features'])}; the deep "
                             "comparators take the connectome kinds among them)")
    parser.add_argument("--deep", nargs="?", const="also", choices=("also", "only"),
                        default=deep,
                        help="also run the connectome CNN (CCNN) and the population GCN, with "
                             "BLS-CV beside them, on the same subjects and folds into OUT/deep "
                             "('--deep only': those alone; needs the deep extra, PyTorch)")
    parser.add_argument("--threads", type=int, default=1,
                        help="BLAS/OpenMP/Numba threads per fit (default 1; 0 = library "
                             "defaults)")
    parser.add_argument("--settings", default=None, metavar="JSON",
                        help='overrides of the mode\'s settings, e.g. \'{"n_repeats": 2}\'')
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def main(argv=None):
    """``python -m fastelm.experiments.bls_fmri``: the same options as ``fastelm reproduce
    bls-fmri`` (:func:`build_parser`)."""
    return run_command("bls_fmri", build_parser(), run_from_args, argv)


def run_deep(quick=False, out_dir=f"results/{PAPER}", seed=0, data_dir=None, progress=True, *,
             features=None, sites=None, atlas=None, strategy=None, settings=None):
    """The deep comparators (:func:`fastelm.experiments.deep.run_abide`: CCNN, GCN and BLS-CV)
    on the subjects and folds of ``run`` with the same arguments, into ``out_dir/deep``.
    Without ``data_dir``, on the synthetic ``effect`` subjects (written to
    ``out_dir/synthetic`` as ``run`` writes them); ``settings``: ``run``'s overrides, so that
    the folds stay the same. Returns the records."""
    from ..deep.brainnetcnn import CONNECTOME_KINDS
    from ..deep.protocol import run_abide

    real = data_dir is not None
    cfg = settings_for(quick, settings, real=real)
    if not real:
        data_dir = make_synthetic(os.path.join(out_dir, "synthetic"), cfg, seed)["effect"]
    default = cfg["features"] if real else FEATURES
    kinds = tuple(f for f in (features or default) if f in CONNECTOME_KINDS)
    if not kinds:
        raise ValueError(f"the deep comparators take connectome features "
                         f"({', '.join(CONNECTOME_KINDS)}), got {', '.join(features or ())}")
    return run_abide(data_dir, os.path.join(out_dir, "deep"), kinds, atlas=atlas, seed=seed,
                     progress=progress, sites=sites, strategy=strategy,
                     n_splits=cfg["n_splits"], n_repeats=cfg["n_repeats"],
                     subsample=cfg.get("subsample"), quick=quick)


def run_from_args(args):
    """Run what the parsed command line (:func:`build_parser`) asks: the comparison, the deep
    comparators (``--deep``) or both; print the table and the files written."""
    if args.data is not None:
        raise CommandError("argument --data: the UCI files folder, which bls-fmri does not "
                           "read; give the fMRI folder as --fmri-data DIR")
    if args.deep and is_alff_folder(args.fmri_data):
        raise CommandError(f"--deep: {args.fmri_data} holds ALFF tables, not the ROI series "
                           "the connectome CNN and the GCN need")
    if args.deep and importlib.util.find_spec("torch") is None:
        raise CommandError(DEEP_EXTRA)
    overrides = None
    if args.settings is not None:
        try:
            overrides = json.loads(args.settings)
        except json.JSONDecodeError as error:
            raise ValueError(f"--settings: not JSON ({error})") from None
    if args.atlas is not None and len(args.atlas) > 1 and args.deep:
        raise CommandError("--deep takes one --atlas")
    if args.atlas is not None and len(args.atlas) == 1:
        args.atlas = args.atlas[0]
    out = check_output_dir(args.out)
    with one_run(out) as staged:
        common = dict(quick=args.quick, out_dir=staged.folder, seed=args.seed,
                      data_dir=args.fmri_data, progress=not args.no_progress,
                      features=args.features, sites=args.sites, atlas=args.atlas,
                      strategy=args.strategy, settings=overrides)
        if args.deep != "only":
            result = run(**common, threads=args.threads or None)
            print(result["table"])
            print()
            print(f"{result['seconds']:.1f} s; wrote "
                  + ", ".join(staged.final(result["files"])))
        if args.deep:
            start = time.perf_counter()
            records = run_deep(**common)
            print(f"deep comparators: {len(records)} fits in {time.perf_counter() - start:.1f} "
                  f"s; wrote {os.path.join(out, 'deep')}")
    return 0
