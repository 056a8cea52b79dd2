"""Leave-one-site-out stage (BLS, BLS-CV, ELM-CV, l2 logistic) and then the permutation test of
the best BLS model at the penalty/links its CV chose most often (read from the CV checkpoint's
run.json): the reproduction's own functions, folds and seeds, staged for lack of CPU."""
import json, os, pickle, sys, time
import numpy as np
from fastelm.experiments.bls_fmri import (load, FoldFeatures, run_splits, cv_splits, site_splits,
                                          bls_permutation_test)
from fastelm.experiments.bls_fmri.models import default_models
from fastelm.experiments.bls_fmri.reproduce import _fixed_bls
out, cv_dir = sys.argv[1], sys.argv[2]
t0 = time.time()
_, y, strata, bunch = load("/work/abide_dev", "connectivity", atlas="cc200")
site_of = bunch.sites
ff = FoldFeatures(None, {"connectivity": bunch.data})
all_models = default_models(200, extended=True)
models = {k: m for k, m in all_models.items() if k in ("BLS", "BLS-CV", "ELM-CV", "logistic l2")}
loso, _ = run_splits(ff, ["connectivity"], y, models, site_splits(site_of), 0, threads=1,
                     progress=False, sites=site_of, n_jobs=2)
pickle.dump({"loso": loso, "seconds": time.time() - t0}, open(out, "wb"))
print("loso done", time.time() - t0, flush=True)
while True:  # the permutation test needs the CV's chosen penalties
    path = os.path.join(cv_dir, "run.json")
    if os.path.exists(path):
        meta = json.load(open(path))
        if meta.get("penalties", {}).get("BLS-CV | connectivity"):
            break
    time.sleep(20)
key = "BLS-CV | connectivity"
bls, reg = _fixed_bls(all_models["BLS-CV"], meta["penalties"][key], meta["direct_links"].get(key))
splits = cv_splits(y, strata, 10, 1, 0)
c0 = time.process_time()
perm = bls_permutation_test(ff, "connectivity", y, bls, reg, splits, 99, 0, groups=site_of,
                            threads=1, progress=False)
last = bls.steps[-1][1]
res = {"features": "connectivity", "model": "BLS-CV", "reg": reg,
       "direct_links": bool(last.direct_links), "accuracy": perm["accuracy"],
       "pvalue": perm["pvalue"], "n_permutations": perm["n_permutations"],
       "permuted_mean": float(perm["permuted"].mean()),
       "permuted_max": float(perm["permuted"].max()), "cpu": time.process_time() - c0}
pickle.dump({"loso": loso, "permutation": res, "seconds": time.time() - t0}, open(out, "wb"))
print("perm done", res, time.time() - t0, flush=True)
