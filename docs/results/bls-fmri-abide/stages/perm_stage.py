"""Permutation test stage: BLS-CV's majority penalty/links from the CV checkpoint's run.json."""
import json, os, pickle, sys, time
from fastelm.experiments.bls_fmri import load, FoldFeatures, cv_splits, bls_permutation_test
from fastelm.experiments.bls_fmri.models import default_models
from fastelm.experiments.bls_fmri.reproduce import _fixed_bls
out, cv_dir = sys.argv[1], sys.argv[2]
t0 = time.time()
meta = json.load(open(os.path.join(cv_dir, "run.json")))
_, y, strata, bunch = load("/work/abide_dev", "connectivity", atlas="cc200")
ff = FoldFeatures(None, {"connectivity": bunch.data})
key = "BLS-CV | connectivity"
bls, reg = _fixed_bls(default_models(200, extended=True)["BLS-CV"], meta["penalties"][key],
                      meta["direct_links"].get(key))
splits = cv_splits(y, strata, 10, 1, 0)
c0 = time.process_time()
perm = bls_permutation_test(ff, "connectivity", y, bls, reg, splits, 99, 0, groups=bunch.sites,
                            threads=1, progress=False)
res = {"features": "connectivity", "model": "BLS-CV", "reg": reg,
       "direct_links": bool(bls.steps[-1][1].direct_links), "accuracy": perm["accuracy"],
       "pvalue": perm["pvalue"], "n_permutations": perm["n_permutations"],
       "permuted_mean": float(perm["permuted"].mean()),
       "permuted_max": float(perm["permuted"].max()), "cpu": time.process_time() - c0}
pickle.dump(res, open(out, "wb"))
print("perm done", res, time.time() - t0, flush=True)
