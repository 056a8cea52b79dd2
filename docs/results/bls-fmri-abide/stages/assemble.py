"""Assemble the staged run: the end-to-end command's CV checkpoint (all eight models on
connectivity features) + the tangent stage (first K folds) + the leave-site-out and permutation
stage, through the reproduction's own write_outputs."""
import json, pickle, sys, os
import numpy as np
from fastelm.experiments.bls_fmri import load
from fastelm.experiments.bls_fmri.outputs import write_outputs, _read_records
from fastelm.experiments.bls_fmri.reproduce import _penalty_counts, _site_accuracy
cv_dir, out_dir, how = sys.argv[1], sys.argv[2], sys.argv[3]
meta = json.load(open(os.path.join(cv_dir, "run.json")))
records = [dict(r, **{"data set": "abide_dev"}) if "data set" not in r else r
           for r in _read_records(os.path.join(cv_dir, "records.csv"))]
# penalties and links of the CV records (records.csv does not keep them: run.json does)
site_rows = list(meta.get("site_accuracy") or [])
if os.path.exists("/tmp/fmri2/stage/tangent.pkl"):
    tan = pickle.load(open("/tmp/fmri2/stage/tangent.pkl", "rb"))
    trecs = [dict(r, **{"data set": "abide_dev"}) for r in tan["records"]]
    records += trecs
    for field, key in (("penalty", "penalties"), ("direct_links", "direct_links")):
        meta[key].update(_penalty_counts(trecs, field))
    _, y, strata, bunch = load("/work/abide_dev", "connectivity", atlas="cc200")
    site_rows += _site_accuracy(tan["predictions"], y, bunch.sites)
    meta["data"]["abide_dev"]["features"]["tangent"] = 19900
meta["site_accuracy"] = site_rows
loso = []
if os.path.exists("/tmp/fmri2/stage/loso.pkl"):
    st = pickle.load(open("/tmp/fmri2/stage/loso.pkl", "rb"))
    loso = [dict(r, **{"data set": "abide_dev"}) for r in st["loso"]]
    if "permutation" in st:
        meta["permutation"] = {k: v for k, v in st["permutation"].items() if k != "cpu"}
if os.path.exists("/tmp/fmri2/stage/perm.pkl"):
    meta["permutation"] = {k: v for k, v in pickle.load(open("/tmp/fmri2/stage/perm.pkl", "rb")).items() if k != "cpu"}
meta.pop("completed", None)
meta["staged"] = how
meta["models"] = list(meta["models"])
res = write_outputs(out_dir, records, meta, loso)
print(res["table"])
