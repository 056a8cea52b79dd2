"""Tangent-space CV stage on the first K folds of the reproduction's splits (staged because the
shared machine's load left the end-to-end run too little CPU): same code, folds, seeds, models."""
import pickle, sys, time
import numpy as np
from fastelm.experiments.bls_fmri import load, FoldFeatures, run_splits, cv_splits
from fastelm.experiments.bls_fmri.models import default_models
K = int(sys.argv[1]); out = sys.argv[2]
t0 = time.time()
_, y, strata, bunch = load("/work/abide_dev", "connectivity", atlas="cc200")
splits = cv_splits(y, strata, 10, 1, 0)[:K]
ff = FoldFeatures(bunch.series, {"connectivity": bunch.data}, cache_folds=True)
c0 = time.process_time()
ff.precompute("tangent", splits, n_jobs=2, threads=1)
print("tangent folds", time.time() - t0, flush=True)
models = {k: m for k, m in default_models(200, extended=True).items()
          if k in ("BLS", "BLS-CV", "ELM-CV", "logistic l2")}
recs, preds = run_splits(ff, ["tangent"], y, models, splits, 0, threads=1, progress=False,
                         n_jobs=2)
pickle.dump({"records": recs, "predictions": preds, "seconds": time.time() - t0}, open(out, "wb"))
print("done", time.time() - t0, flush=True)
