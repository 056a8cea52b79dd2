"""BLSClassifierCV on small, wide connectivity data: the penalty chosen by inner cross-validation
against fixed penalties, in repeated outer cross-validation.

    python benchmarks/bench_bls_selection.py                  # 140 subjects, 116 ROIs, effect and null
    python benchmarks/bench_bls_selection.py --subjects 60 --rois 40 --repeats 1   # quick

Subjects come from ``fastelm.fmri.make_synthetic_abide`` (written to a temporary folder and read
back with ``load_roi_dataset(features='connectivity')``: M(M-1)/2 Fisher-z correlations, 6670
features for 116 ROIs). Each model is scored by the same repeated stratified K-fold outer
splits: ``BLSClassifierCV()`` with its default ``regs`` (inner 5-fold CV on each outer training
set), and ``BLSClassifier(reg=C)`` for each C of a coarse grid, the paper's C = 2⁻³⁰ first.
The best fixed C is picked with hindsight on the outer test folds, so it is an optimistic
reference. ``--effect 0`` gives null data (no group difference): every model should be at chance.
"""
import argparse
import sys
import tempfile
import time
import warnings
from pathlib import Path


try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

COARSE = (2.0 ** -30, 1e-4, 1e-2, 1.0, 1e2)


def connectomes(n_subjects=140, n_rois=116, effect_size=0.6, seed=0):
    """(X, y): connectivity features of synthetic subjects (``make_synthetic_abide``)."""
    from fastelm.fmri import load_roi_dataset, make_synthetic_abide

    with tempfile.TemporaryDirectory() as folder:
        make_synthetic_abide(folder, n_subjects=n_subjects, n_rois=n_rois,
                             effect_size=effect_size, random_state=seed)
        data = load_roi_dataset(folder, features="connectivity")
    return data.data, data.target


def compare(X, y, n_splits=5, n_repeats=2, coarse=COARSE, seed=0, **bls):
    """Mean outer accuracy of BLSClassifierCV() and of BLSClassifier(reg=C) for C in coarse."""
    from sklearn.model_selection import RepeatedStratifiedKFold, cross_val_score

    from fastelm import BLSClassifier, BLSClassifierCV

    outer = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=seed)
    scores = {"BLSClassifierCV": cross_val_score(BLSClassifierCV(random_state=0, **bls), X, y,
                                                 cv=outer).mean()}
    with warnings.catch_warnings():  # the near-singular C = 2^-30 systems warn
        warnings.simplefilter("ignore")
        for C in coarse:
            scores[C] = cross_val_score(BLSClassifier(reg=C, random_state=0, **bls), X, y,
                                        cv=outer).mean()
    return scores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--subjects", type=int, default=140)
    parser.add_argument("--rois", type=int, default=116)
    parser.add_argument("--effect", type=float, nargs="+", default=[0.6, 0.0])
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    for effect in args.effect:
        X, y = connectomes(args.subjects, args.rois, effect)
        start = time.perf_counter()
        scores = compare(X, y, args.splits, args.repeats)
        fixed = {C: s for C, s in scores.items() if C != "BLSClassifierCV"}
        best = max(fixed, key=fixed.get)
        print(f"effect_size={effect}: {X.shape[0]} subjects x {X.shape[1]} features, "
              f"{args.repeats}x{args.splits}-fold accuracy: BLSClassifierCV "
              f"{scores['BLSClassifierCV']:.3f}; fixed C: "
              + ", ".join(f"{C:.3g} {s:.3f}" for C, s in fixed.items())
              + f" (best {best:.3g}); {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
