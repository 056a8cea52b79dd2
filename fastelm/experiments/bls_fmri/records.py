"""What a run's records give, for every BLS-fMRI run (ROI series, ALFF tables, several
atlases): the data entry of ``run.json``, the penalties and links the CV models chose, the
per-site accuracy of the out-of-fold predictions, the best BLS model and its permutation
test."""
import numpy as np

from .models import FASTELM_MODELS
from .protocol import bls_permutation_test


def data_entry(bunch, y, features, keep=None):
    lengths = bunch.lengths if keep is None else bunch.lengths[keep]
    return {"subjects": int(len(y)), "patients": int(y.sum()),
            "of_subjects": int(len(bunch.target)),
            "lengths": [int(lengths.min()), int(np.median(lengths)), int(lengths.max())],
            "sites": len(set(bunch.sites if keep is None else bunch.sites[keep])),
            "length": int(bunch.length),
            "rois": len(bunch.roi_names), "excluded": len(bunch.excluded),
            "missing": len(getattr(bunch, "missing", [])), "features": features}


def best_bls_permutation(records, models, extra, features, y, splits, cfg, seed, sites,
                         threads, progress):
    """The permutation test (:func:`protocol.bls_permutation_test`) of the BLS model (BLS or
    BLS-CV at its majority penalty and links, ``extra``'s counts) with the best mean CV
    accuracy, as run.json records it; None without a BLS model or permutations."""
    best = _best_fastelm(records, ("BLS", "BLS-CV"))
    if best is None or cfg["n_permutations"] <= 0:
        return None
    kind, model_name, _ = best
    key = f"{model_name} | {kind}"
    bls, reg = _fixed_bls(models[model_name], extra["penalties"].get(key),
                          extra["direct_links"].get(key))
    perm = bls_permutation_test(features, kind, y, bls, reg, splits, cfg["n_permutations"],
                                seed, groups=sites, threads=threads, progress=progress)
    return {"features": kind, "model": model_name, "reg": reg,
            "direct_links": bool(_last(bls).direct_links), "accuracy": perm["accuracy"],
            "pvalue": perm["pvalue"], "n_permutations": perm["n_permutations"],
            "permuted_mean": float(perm["permuted"].mean()),
            "permuted_max": float(perm["permuted"].max())}


def penalty_counts(records, field="penalty"):
    """{'model | features': {value: folds}} of the penalties (or another ``field``, e.g.
    ``direct_links``) CV estimators chose."""
    out = {}
    for r in records:
        if field in r:
            key = f"{r['model']} | {r['features']}"
            out.setdefault(key, {})
            out[key][repr(r[field])] = out[key].get(repr(r[field]), 0) + 1
    return out


def _fixed_bls(model, counts, link_counts=None):
    """(BLSClassifier, reg): a BLS model at a fixed penalty — its own reg, or for BLS-CV the
    penalty chosen in most folds (the smaller on a tie) and the direct links chosen in most
    folds (without on a tie), with BLS-CV's layer parameters."""
    from sklearn.base import clone
    from sklearn.pipeline import Pipeline

    from ...bls import BLSClassifier

    if isinstance(model, Pipeline):  # label-free steps (a scaler) before the BLS
        bls, reg = _fixed_bls(model.steps[-1][1], counts, link_counts)
        return Pipeline([(n, clone(s)) for n, s in model.steps[:-1]]
                        + [(model.steps[-1][0], bls)]), reg
    if isinstance(model, BLSClassifier):
        return model, float(model.reg)
    params = {k: v for k, v in model.get_params(deep=False).items()
              if k in BLSClassifier().get_params()}
    reg = min(counts, key=lambda r: (-counts[r], float(r)))
    links = link_counts or {"False": 1}
    params["direct_links"] = max(links, key=lambda v: (links[v], v == "False")) == "True"
    return BLSClassifier(**params), float(reg)


def _last(model):
    """A pipeline's last step, or the model itself."""
    return model.steps[-1][1] if hasattr(model, "steps") else model


def _best_fastelm(records, models=FASTELM_MODELS):
    """(features, model, accuracy) of the model of ``models`` with the best mean CV
    accuracy."""
    means = {}
    for r in records:
        if r["model"] in models:
            means.setdefault((r["features"], r["model"]), []).append(r["accuracy"])
    if not means:
        return None
    key = max(means, key=lambda k: (np.mean(means[k]), k))
    return key[0], key[1], float(np.mean(means[key]))


def site_accuracy(predictions, y, sites):
    """[{features, model, site, subjects, accuracy}] from out-of-fold predictions (pooled
    over repeats)."""
    rows, pooled = [], {}
    for (kind, model, _), pred in predictions.items():
        ok = pred >= 0
        acc = pooled.setdefault((kind, model), [np.zeros(len(y)), np.zeros(len(y))])
        acc[0] += (pred == y) & ok
        acc[1] += ok
    for (kind, model), (hits, n) in pooled.items():
        for site in sorted(set(sites)):
            m = (sites == site) & (n > 0)
            rows.append({"features": kind, "model": model, "site": str(site),
                         "subjects": int(m.sum()),
                         "accuracy": float(hits[m].sum() / n[m].sum()) if m.any() else
                         float("nan")})
    return rows


