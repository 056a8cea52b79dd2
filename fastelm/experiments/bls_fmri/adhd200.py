"""The reproduction on ADHD-200's per-region ALFF tables (Liu & Ji 2021, Table 6).

Inputs (:func:`table_features`): each subject's ALFF of the 116 AAL regions, two kinds,

* ``alff``: the ALFF values as published;
* ``malff``: each subject's ALFF divided by its mean over the regions (mALFF, the usual
  normalisation of ALFF maps: a per-subject map, fitted on nothing),

each behind one-hot site columns. Every model is ``Pipeline(ConfoundRegressor(n_sites,
scale=True), model)`` (:func:`site_models`): the per-site mean and standard deviation of
each region are fitted on the training rows of each split only (:mod:`fastelm.confounds`),
so the sites' scale difference (about 8× between NYU and Peking) is removed without a test
subject informing it. A site absent from the training rows (the transfer between sites) gets
the training rows' pooled statistics: on ``alff`` the test site keeps its own scale, on
``malff`` the per-subject normalisation already removed it.

Protocol (:func:`run_adhd200`): stratified 5-fold CV on site × diagnosis (the paper's 5
folds), repeated; every model of the ABIDE run; the five metrics, training times, Fig. 4's
accuracy against training time, per-site accuracy, the transfer between the two sites
(train on one, test on the other: leave one site out) and a permutation test of the best BLS
model.
"""
import csv
import os
import time
import warnings

import numpy as np
from sklearn.pipeline import Pipeline

from ...confounds import ConfoundRegressor
from ...datasets import ExcludedSubjectsWarning, load_adhd200_alff
from ...datasets._adhd200 import MAT_SUFFIX
from .models import default_models, describe
from .outputs import write_outputs
from .records import best_bls_permutation, penalty_counts, site_accuracy
from .settings import settings_for
from .protocol import METRICS, FoldFeatures, cv_splits, run_splits, site_splits

#: feature kinds of an ALFF table
TABLE_KINDS = ("alff", "malff")
#: full: the paper's 5-fold CV, repeated 10 times as the paper's ten runs (16 min on 2 shared
#: cores); quick: once, the DNN capped at 10 epochs, 19 permutations
TABLE_SETTINGS = {
    "full": dict(n_splits=5, n_repeats=10, dnn_max_iter=200, features=TABLE_KINDS,
                 transfer_features=TABLE_KINDS, n_permutations=99, n_jobs=2),
    "quick": dict(n_splits=5, n_repeats=1, dnn_max_iter=10, features=TABLE_KINDS,
                  transfer_features=TABLE_KINDS, n_permutations=19, n_jobs=2),
}


def is_alff_folder(directory):
    """True when ``directory`` holds ``<SITE>_alff_ds.mat`` tables (an ADHD-200 layout)."""
    return directory is not None and os.path.isdir(directory) and any(
        name.endswith(MAT_SUFFIX) for name in os.listdir(directory))


def table_features(bunch):
    """({kind: [one-hot sites | features]}, site names): the ``alff`` and ``malff`` inputs
    of :data:`TABLE_KINDS`, the site columns first (what :func:`site_models` expects)."""
    names = sorted(set(bunch.sites.tolist()))
    onehot = (bunch.sites[:, None] == np.array(names)[None, :]).astype(np.float64)
    alff = bunch.data
    malff = alff / alff.mean(axis=1, keepdims=True)
    return {"alff": np.hstack([onehot, alff]), "malff": np.hstack([onehot, malff])}, names


def site_models(models, n_sites):
    """Each model behind a per-site standardisation fitted on its training rows:
    ``Pipeline([('sites', ConfoundRegressor(n_sites, scale=True)), *model steps])``."""
    out = {}
    for name, model in models.items():
        steps = model.steps if isinstance(model, Pipeline) else [("model", model)]
        out[name] = Pipeline([("sites", ConfoundRegressor(n_confounds=n_sites, scale=True)),
                              *steps])
    return out


def _table_entry(bunch, features, kinds):
    return {"subjects": int(len(bunch.target)), "patients": int(bunch.target.sum()),
            "of_subjects": int(len(bunch.target)), "sites": len(set(bunch.sites)),
            "rois": int(bunch.data.shape[1]), "excluded": len(bunch.excluded),
            "missing": len(bunch.missing), "kind": "alff table",
            "features": {k: int(features[k].shape[1] - len(set(bunch.sites))) for k in kinds},
            "per_site": {s: int((bunch.sites == s).sum()) for s in sorted(set(bunch.sites))}}


def run_adhd200(quick, out_dir, seed, data_dir, progress=True, *, features=None, sites=None,
                settings=None, models=None, threads=1):
    """Run the comparison on an ADHD-200 ALFF folder and write its outputs to ``out_dir``
    (the tables of ``run`` and ``transfer.md``/``.csv``); returns ``write_outputs``'s dict."""
    start_all = time.perf_counter()
    cfg = settings_for(quick, settings, base=TABLE_SETTINGS)
    kinds = tuple(features or cfg["features"])
    bad = set(kinds) - set(TABLE_KINDS)
    if bad or not kinds:
        raise ValueError(f"features of an ALFF table must be a non-empty subset of "
                         f"{TABLE_KINDS}, got {kinds}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExcludedSubjectsWarning)
        bunch = load_adhd200_alff(data_dir, sites=sites)
    matrices, site_names = table_features(bunch)
    y, site_of = bunch.target, bunch.sites
    if models is None:
        models = default_models(cfg["dnn_max_iter"], cfg.get("bls_params"), extended=True)
    models = site_models(models, len(site_names))
    strata = np.char.add(np.char.add(site_of.astype(str), "|"), y.astype(str))
    splits = cv_splits(y, strata if len(site_names) > 1 else None, cfg["n_splits"],
                       cfg["n_repeats"], seed)
    ff = FoldFeatures(matrices={k: matrices[k] for k in kinds})
    name = os.path.basename(os.path.normpath(data_dir)) or "data"
    data = {name: _table_entry(bunch, matrices, kinds)}
    extra = {"data_kind": "adhd200", "sites_read": site_names}
    records, predictions, transfer = [], {}, []

    def meta():
        return {"quick": bool(quick), "seed": seed, "settings": cfg, "data": data,
                "data_dir": str(data_dir), "sites": None if sites is None else list(sites),
                "models": list(models), "descriptions": {n: describe(m)
                                                         for n, m in models.items()},
                "threads": threads, "atlas": "AAL (ALFF)", "strategy": None, **extra,
                "seconds": time.perf_counter() - start_all}

    os.makedirs(out_dir, exist_ok=True)
    for kind in kinds:
        recs, preds = run_splits(ff, [kind], y, models, splits, seed, threads=threads,
                                 progress=progress, desc=f"{name} CV {kind}",
                                 n_jobs=cfg["n_jobs"])
        records += [dict(r, **{"data set": name}) for r in recs]
        predictions.update(preds)
    extra["penalties"] = penalty_counts(records)
    extra["direct_links"] = penalty_counts(records, "direct_links")
    extra["site_accuracy"] = site_accuracy(predictions, y, site_of)
    transfer_kinds = [k for k in cfg["transfer_features"] if k in kinds]
    if len(site_names) > 1 and transfer_kinds:
        recs, _ = run_splits(ff, transfer_kinds, y, models, site_splits(site_of), seed,
                             threads=threads, progress=progress, desc=f"{name} transfer",
                             sites=site_of, n_jobs=cfg["n_jobs"])
        transfer = [dict(r, **{"data set": name}) for r in recs]
    permutation = best_bls_permutation(records, models, extra, ff, y, splits, cfg, seed,
                                       site_of, threads, progress)
    if permutation is not None:
        extra["permutation"] = permutation
    result = write_outputs(out_dir, records, meta(), transfer)
    if transfer:
        result["files"] += write_transfer(transfer, site_names, out_dir)
    result["seconds"] = time.perf_counter() - start_all
    return result


def transfer_rows(transfer, site_names):
    """One row per (features, model): the accuracy (and the other metrics) of training on
    the other site(s) and testing on each site, ``'<train> → <test>'`` columns."""
    rows = {}
    for r in transfer:
        key = (r["features"], r["model"])
        row = rows.setdefault(key, {"features": key[0], "model": key[1]})
        train = "+".join(s for s in site_names if s != r["site"])
        for metric in METRICS:
            row[f"{train} → {r['site']} {metric}"] = r[metric]
    return list(rows.values())


def write_transfer(transfer, site_names, out_dir):
    """``transfer.md`` (accuracy, sensitivity, specificity of each direction) and
    ``transfer.csv`` (every metric); returns the two paths."""
    rows = transfer_rows(transfer, site_names)
    columns = [c for c in rows[0] if c not in ("features", "model")
               and c.rsplit(" ", 1)[1] in ("accuracy", "sensitivity", "specificity")]
    stem = os.path.join(out_dir, "transfer")
    lines = ["Transfer between sites: trained on every subject of one site, tested on every "
             "subject of the other (the site standardisation fitted on the training site; "
             "the test site gets the training site's statistics).", "",
             "| features | model | " + " | ".join(columns) + " |",
             "|---|---|" + "---|" * len(columns)]
    lines += ["| " + " | ".join([r["features"], r["model"]] + [f"{r[c]:.3f}" for c in columns])
              + " |" for r in rows]
    with open(stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(stem + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return [stem + ".md", stem + ".csv"]
