"""``BLSClassifierCV()`` at its defaults, alone (no scaler, no grid), against the BLS-fMRI
reproduction's tuned BLS-CV (standardised inputs, C in 1e-3 … 1e7, direct links searched, shared
layer, 5-fold inner CV) in the reproduction's own folds: 10-fold, stratified on site × diagnosis,
on the connectivity features of an ABIDE-layout folder (CC200 atlas).

    python benchmarks/bench_abide_bls_cv_defaults.py FOLDER [--out docs/results/bls-fmri-abide]

Prints and writes ``bls_cv_defaults.md``: per-fold accuracy, the chosen penalty and links, the
mean ± sd and the fit CPU time (one thread) of each model.
"""
import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone

from fastelm import BLSClassifierCV
from fastelm._threads import thread_limit
from fastelm.experiments.bls_fmri.models import default_models, reseed
from fastelm.experiments.bls_fmri.protocol import _fold_seed
from fastelm.experiments.bls_fmri.subjects import subjects_and_folds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="ABIDE-layout folder (rois_cc200/ and the phenotype CSV)")
    parser.add_argument("--out", type=Path, default=None, help="folder for bls_cv_defaults.md")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    bunch, keep, y, splits = subjects_and_folds(args.folder, 10, 1, 0, atlas="cc200")
    X = bunch.data[keep]
    tuned = default_models(extended=True)["BLS-CV"]
    models = {"BLSClassifierCV() at its defaults": BLSClassifierCV(),
              "the reproduction's BLS-CV": tuned}
    lines = [f"# BLSClassifierCV() at its defaults on ABIDE I connectomes",
             "", f"{len(y)} subjects, {X.shape[1]} connectivity features, the reproduction's "
             f"{len(splits)} folds (stratified on site × diagnosis); one thread; each fold's seed is the reproduction's.", "",
             "| model | accuracy (mean ± sd) | fit CPU (s, 10 fits) | penalty chosen | links |",
             "|---|---|---|---|---|"]
    for name, make in models.items():  # make: the unfitted estimator
        accuracy, cpu, regs, links = [], 0.0, [], []
        for i, (train, test, *_) in enumerate(splits):
            model = reseed(clone(make), _fold_seed(0, i))  # the reproduction's fold seeds
            with thread_limit(1):
                start = time.process_time()
                model.fit(X[train], y[train])
                cpu += time.process_time() - start
            accuracy.append(float(np.mean(model.predict(X[test]) == y[test])))
            search = model[-1] if hasattr(model, "steps") else model
            regs.append(search.reg_)
            links.append(search.direct_links_)
        print(f"{name}: {np.mean(accuracy):.4f} ± {np.std(accuracy):.4f}, CPU {cpu:.1f} s, "
              f"folds {np.round(accuracy, 4).tolist()}")
        lines.append(f"| {name} | {np.mean(accuracy):.4f} ± {np.std(accuracy):.4f} | "
                     f"{cpu:.1f} | {min(regs):.3g} … {max(regs):.3g} | "
                     f"{sum(links)} of {len(links)} folds |")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "bls_cv_defaults.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
