"""Liu & Ji (2021)'s Tables 4-6 laid out from finished runs: per data set, the models × the
five metrics (Acc, Pr, Sn, Sp, F; mean ± sd over the test folds and repeats), the training
CPU time per fit, and whether the paper's claim holds there.

    python -m fastelm.experiments.bls_fmri.tables OUT.md "TITLE=RUN_DIR[:FEATURES]" ...

Each RUN_DIR is the output folder of a ``fastelm reproduce bls-fmri`` run (its
``results.csv`` and ``timings.csv``; a ``deep/`` folder beside them adds the deep
comparators' rows of the same folds). The claim ("BLS reaches the accuracy of the deep models
at a fraction of their training time") is read as: the best BLS model (BLS, BLS-CV,
multi-atlas BLS-CV) has a mean accuracy at least that of the best deep model (DNN, CCNN,
GCN) minus that deep model's fold-to-fold sd, and a CPU training time per fit below the
deep model's.
"""
import csv
import os
import sys


BLS_MODELS = ("BLS", "BLS-CV", "multi-atlas BLS-CV")
DEEP_MODELS = ("DNN", "CCNN", "GCN")
COLUMNS = (("accuracy", "Acc"), ("precision", "Pr"), ("sensitivity", "Sn"),
           ("specificity", "Sp"), ("f_measure", "F"))


def _seconds(t):
    return "—" if t is None else f"{t:.3g}"


def _read(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def run_rows(run_dir, features=None):
    """[{model, <metric>_mean/_std, train_cpu_mean, runs}] of one run (and its ``deep/``),
    for the features ``features`` (default: each model's first kind in the run)."""
    rows, seen = [], set()
    for folder in (run_dir, os.path.join(run_dir, "deep")):
        times = {(r["features"], r["model"]): r for r in _read(
            os.path.join(folder, "timings.csv"))}
        for r in _read(os.path.join(folder, "results.csv")):
            if (features is not None and r["features"] != features) or r["model"] in seen:
                continue
            seen.add(r["model"])
            t = times.get((r["features"], r["model"]), {})
            clock = t.get("train_cpu_mean") or t.get("train_time_mean")
            rows.append({**r, "train_cpu_mean": None if clock is None else float(clock)})
    return rows


def claim(rows):
    """(sentence, holds) of the paper's claim on these rows (module docstring); None when the
    rows have no BLS or no deep model."""
    def best(names):
        cands = [r for r in rows if r["model"] in names]
        return max(cands, key=lambda r: float(r["accuracy_mean"])) if cands else None

    bls, deep = best(BLS_MODELS), best(DEEP_MODELS)
    if bls is None or deep is None:
        return None
    acc, deep_acc = float(bls["accuracy_mean"]), float(deep["accuracy_mean"])
    sd = float(deep["accuracy_std"])
    reaches = acc >= deep_acc - sd
    t, deep_t = bls["train_cpu_mean"], deep["train_cpu_mean"]
    faster = t is not None and deep_t is not None and t < deep_t
    ratio = f"{deep_t / t:.1f} ×" if faster else "not"
    holds = reaches and faster
    text = (f"{'Holds' if holds else 'Does not hold'}: the best BLS model ({bls['model']}, "
            f"{acc:.3f} ± {float(bls['accuracy_std']):.3f}) "
            f"{'reaches' if reaches else 'does not reach'} the best deep model ({deep['model']}, "
            f"{deep_acc:.3f} ± {sd:.3f}) within its fold-to-fold sd, and trains {ratio} "
            f"faster per fit (CPU s: {_seconds(t)} against {_seconds(deep_t)}).")
    return text, holds


def _acc(row):
    return (f"{row['model']} {float(row['accuracy_mean']):.3f} ± "
            f"{float(row['accuracy_std']):.3f}")


def table_text(title, rows, note=""):
    """One data set's section: the five-metric table, the time column, the claim."""
    lines = [f"### {title}", ""]
    if note:
        lines += [note, ""]
    lines += ["| model | " + " | ".join(short for _, short in COLUMNS) + " | CPU s per fit | "
              "folds |", "|---|" + "---|" * (len(COLUMNS) + 2)]
    for r in rows:
        cells = [f"{float(r[m + '_mean']):.3f} ± {float(r[m + '_std']):.3f}" for m, _ in COLUMNS]
        t = r["train_cpu_mean"]
        lines.append(f"| {r['model']} | " + " | ".join(cells)
                     + f" | {_seconds(t)} | {r['runs']} |")
    verdict = claim(rows)
    fastelm = BLS_MODELS + ("ELM-CV",)
    ours = [r for r in rows if r["model"] in fastelm]
    others = [r for r in rows if r["model"] not in fastelm]
    if ours and others:
        top, rival = (max(group, key=lambda r: float(r["accuracy_mean"]))
                      for group in (ours, others))
        gap = float(top["accuracy_mean"]) - float(rival["accuracy_mean"])
        lines += ["", f"Best fastelm model: {_acc(top)}; best comparator: {_acc(rival)}; "
                  + (f"fastelm ahead by {gap:.3f}, less than the fold-to-fold sd."
                     if 0 <= gap < float(rival["accuracy_std"]) else
                     f"fastelm ahead by {gap:.3f}." if gap >= 0 else
                     f"**fastelm is not ahead** ({gap:+.3f}).")]
    if verdict is not None:
        lines += ["", f"The paper's claim: {verdict[0]}"]
    return "\n".join(lines) + "\n"


def main(argv=None):
    """``python -m fastelm.experiments.bls_fmri.tables OUT.md TITLE=DIR[:FEATURES] ...``."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(__doc__.split("\n\n")[1])
        return 2
    out, parts = argv[0], []
    for spec in argv[1:]:
        title, _, where = spec.partition("=")
        run_dir, _, features = where.partition(":")
        rows = run_rows(run_dir, features or None)
        if not rows:
            print(f"{run_dir}: no results.csv rows" + (f" for {features}" if features else ""),
                  file=sys.stderr)
            return 1
        parts.append(table_text(title, rows))
    with open(out, "w") as f:
        f.write("\n".join(parts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
