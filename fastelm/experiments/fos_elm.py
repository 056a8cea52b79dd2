"""Reproduction of seed paper 001: FOS-ELM (OS-ELM pruned online by EFAST) against OS-ELM.

    python -m fastelm.experiments.fos_elm [--quick] [--out DIR] [--seed S] [--repeats R]
                                          [--data DIR] [--datasets NAME ...]
    python -m fastelm.experiments.fos_elm --tune [--seed S]    # how CONFIG below was chosen

The paper (ALGORITHMS.md §4) runs five data sets; its result tables were lost, its claim is that
FOS-ELM reaches the test RMSE or accuracy of OS-ELM with fewer hidden nodes. Each repeat here:

Data
    friedman2  Stand-in for the paper's "function 16" of its ref. [13] (4 inputs, 1 output,
               5000 train / 5000 test rows), which is not recoverable: Friedman #2
               (``sklearn.datasets.make_friedman2``, 4 inputs) with Gaussian noise of sd 125 on
               train and test targets (signal:noise sd about 3:1, Friedman 1991 / Breiman 1996),
               drawn afresh each repeat.
    concrete   Concrete compressive strength, random 730 / 300 split each repeat.
    pima       Pima diabetes, random 576 / 192 split each repeat.
    satimage   Landsat satimage, the official 4435 / 2000 split (sat.trn / sat.tst).
    segment    Image segmentation (2310 rows), random 1500 / 810 split each repeat.
Preprocessing
    inputs standardised with the training mean and sd (a constant column is left at 0);
    regression targets min-max scaled to [0, 1] with the training minimum and maximum, and the
    RMSE is reported on that scale (as ELM papers do on normalised data).
Stream
    the training rows in a random order, an initial chunk of ``initial`` rows (about 20% of the
    training set and never fewer than L0 rows, so OS-ELM's initial system is overdetermined),
    then chunks of ``chunk`` rows (about 10% of the training set, 50 to 500 rows).
Models (tanh, ridge alpha per data set, same stream)
    FOS-ELM   initial size L0, pruning threshold delta = delta_rel / L0 (EFAST total indices of
              the L nodes sum to about 1, so delta_rel is the threshold relative to the mean
              index at the start), at least ``min_nodes`` nodes;
    OS-ELM (L0)          the same initial hidden layer (same seed), never pruned;
    OS-ELM (final L)     a fresh OS-ELM (new random layer) with FOS-ELM's final node count of
                         that repeat.
Reported: test RMSE (regression) or accuracy (classification) and the final hidden-node count,
mean ± std over the repeats; the alive nodes after each chunk (mean over repeats) are plotted.

Outputs in ``out_dir``: ``results.md`` / ``results.csv`` (the table), ``nodes.png`` (alive nodes
per chunk), ``notes.md`` (settings and findings, with the check of the paper's claim) and
``timings.md`` (wall-clock times; the only output that differs between two runs with the same
seed). ``--quick`` halves L0 and runs 3 repeats.
"""
import argparse
import os
import sys
import time

import numpy as np
from sklearn.datasets import make_friedman2

from .. import datasets as _datasets
from ..elm import OSELMClassifier, OSELMRegressor
from ..fos_elm import FOSELMClassifier, FOSELMRegressor
from ..metrics import accuracy, rmse
from .report import load_available, skipped_notes, summarize, write_table
from .report import progress as progress_bar

DATASETS = ("friedman2", "concrete", "pima", "satimage", "segment")

LABELS = {
    "friedman2": "Friedman #2 (for function 16)",
    "concrete": "Concrete",
    "pima": "Pima diabetes",
    "satimage": "Satimage",
    "segment": "Segment",
}

FRIEDMAN_NOISE = 125.0

# Per data set: rows, L0 ("deliberately large"), ridge alpha, relative pruning threshold, chunking.
# L0 is fixed by design: at least the size OS-ELM papers use on these sets, and no more than the
# initial chunk. alpha and delta_rel were chosen by ``tune(seed=0)`` (``--tune``), on validation
# rows only: for each of the first 5 repeats of seed 0, its training set (never its test set) is
# split 75% fit / 25% validation and streamed with the same number of chunks; alpha is the value
# of ALPHAS with the best mean OS-ELM (L0) validation score (the baseline gets its best setting);
# delta_rel is the largest value of DELTA_RELS whose mean FOS-ELM validation score stays within
# half a standard deviation (over those repeats) of OS-ELM (L0)'s — a margin for the step from
# validation to test. (Concrete, Pima and Segment are re-split every repeat, so the test rows of
# later repeats may have been fit/validation rows of those three; this affects all models alike.)
CONFIG = {
    "friedman2": dict(task="regression", n_train=5000, n_test=5000, n_hidden=200, alpha=1e-1,
                      delta_rel=0.4, initial=1000, chunk=500, min_nodes=10),
    "concrete": dict(task="regression", n_train=730, n_test=300, n_hidden=150, alpha=1.0,
                     delta_rel=0.2, initial=150, chunk=100, min_nodes=10),
    "pima": dict(task="classification", n_train=576, n_test=192, n_hidden=100, alpha=10.0,
                 delta_rel=1.0, initial=120, chunk=50, min_nodes=10),
    "satimage": dict(task="classification", n_train=4435, n_test=2000, n_hidden=400, alpha=1e-1,
                     delta_rel=0.5, initial=900, chunk=400, min_nodes=10),
    "segment": dict(task="classification", n_train=1500, n_test=810, n_hidden=200, alpha=1.0,
                    delta_rel=0.5, initial=300, chunk=200, min_nodes=10),
}

ALPHAS = (1e-3, 1e-2, 1e-1, 1.0, 10.0)
DELTA_RELS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0)

FULL_REPEATS = 20  # the paper's number of trials is not in its text (its tables were lost)
QUICK_REPEATS = 3
QUICK_HIDDEN_SCALE = 0.5

MODELS = ("FOS-ELM", "OS-ELM (L0)", "OS-ELM (final L)")
KEYS = ["data set", "model", "metric"]
VALUES = ["score", "nodes"]


# ---------------------------------------------------------------------------------------------
# configuration, data and the stream

def configs(quick=False, names=None, config=None):
    """The per-data-set settings of a run: CONFIG, L0 halved in quick mode, then ``config``'s
    overrides ({name: {key: value}}); ``delta`` is derived as delta_rel / L0."""
    names = DATASETS if names is None else tuple(names)
    unknown = sorted(set(names) - set(DATASETS))
    if unknown:
        raise ValueError(f"unknown data sets {unknown}; choose from {list(DATASETS)}")
    out = {}
    for name in names:
        cfg = dict(CONFIG[name])
        if quick:
            scaled = int(round(cfg["n_hidden"] * QUICK_HIDDEN_SCALE))
            cfg["n_hidden"] = max(cfg["min_nodes"], scaled)
        cfg.update((config or {}).get(name, {}))
        cfg["min_nodes"] = min(cfg["min_nodes"], cfg["n_hidden"])
        cfg["delta"] = cfg["delta_rel"] / cfg["n_hidden"]
        out[name] = cfg
    return out


def _rng(seed, name, repeat):
    return np.random.default_rng(np.random.SeedSequence([seed, DATASETS.index(name), repeat]))


def _load(name, data_home):
    """The full data set (None for the synthetic Friedman #2)."""
    if name == "friedman2":
        return None
    return _datasets.load_dataset(name, data_home=data_home)


def split(name, bunch, cfg, rng):
    """(X_train, y_train, X_test, y_test) of one repeat, training rows in stream order."""
    n_train, n_test = cfg["n_train"], cfg["n_test"]
    if name == "friedman2":
        X, y = make_friedman2(n_train + n_test, noise=FRIEDMAN_NOISE,
                              random_state=int(rng.integers(2 ** 31)))
        Xtr, ytr, Xte, yte = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    elif "data_test" in bunch:  # official split
        Xtr, ytr, Xte, yte = bunch.data, bunch.target, bunch.data_test, bunch.target_test
        if (len(ytr), len(yte)) != (n_train, n_test):
            raise ValueError(f"{name}: the official split has {len(ytr)}/{len(yte)} rows, "
                             f"expected {n_train}/{n_test}")
    else:
        if len(bunch.target) < n_train + n_test:
            raise ValueError(f"{name}: {len(bunch.target)} rows, fewer than {n_train}+{n_test}")
        perm = rng.permutation(len(bunch.target))
        tr, te = perm[:n_train], perm[n_train:n_train + n_test]
        Xtr, ytr, Xte, yte = bunch.data[tr], bunch.target[tr], bunch.data[te], bunch.target[te]
    order = rng.permutation(n_train)
    return Xtr[order], ytr[order], Xte, yte


def preprocess(Xtr, ytr, Xte, yte, regression):
    """Standardise inputs, and min-max scale regression targets, with training statistics."""
    Xtr, Xte = np.asarray(Xtr, dtype=np.float64), np.asarray(Xte, dtype=np.float64)
    mean, sd = Xtr.mean(axis=0), Xtr.std(axis=0)
    sd[sd == 0] = 1.0
    Xtr, Xte = (Xtr - mean) / sd, (Xte - mean) / sd
    if regression:
        lo, hi = float(ytr.min()), float(ytr.max())
        ytr, yte = (ytr - lo) / (hi - lo), (yte - lo) / (hi - lo)
    return Xtr, ytr, Xte, yte


def stream(model, X, y, initial, chunk, classes=None):
    """partial_fit the rows in order: ``initial`` rows, then chunks of ``chunk`` rows."""
    kwargs = {} if classes is None else {"classes": classes}
    model.partial_fit(X[:initial], y[:initial], **kwargs)
    for start in range(initial, len(y), chunk):
        model.partial_fit(X[start:start + chunk], y[start:start + chunk])
    return model


def _models(cfg, seed_layer, seed_fresh, final_nodes=None):
    regression = cfg["task"] == "regression"
    FOS = FOSELMRegressor if regression else FOSELMClassifier
    OS = OSELMRegressor if regression else OSELMClassifier
    if final_nodes is not None:
        return OS(n_hidden=int(final_nodes), alpha=cfg["alpha"], random_state=seed_fresh)
    fos = FOS(n_hidden=cfg["n_hidden"], alpha=cfg["alpha"], delta=cfg["delta"],
              min_nodes=cfg["min_nodes"], random_state=seed_layer)
    return fos, OS(n_hidden=cfg["n_hidden"], alpha=cfg["alpha"], random_state=seed_layer)


def _score(model, X, y, regression):
    return rmse(y, model.predict(X)) if regression else accuracy(y, model.predict(X))


def run_repeat(name, bunch, cfg, rng):
    """One repeat on one data set: records of the three models, FOS-ELM's node history, times."""
    regression = cfg["task"] == "regression"
    Xtr, ytr, Xte, yte = preprocess(*split(name, bunch, cfg, rng), regression)
    classes = None if regression else np.unique(np.concatenate([ytr, yte]))
    seed_layer, seed_fresh = (int(s) for s in rng.integers(2 ** 63, size=2))
    fos, os_l0 = _models(cfg, seed_layer, seed_fresh)
    fitted, seconds = {}, {}
    for label, model in (("FOS-ELM", fos), ("OS-ELM (L0)", os_l0),
                         ("OS-ELM (final L)", None)):
        if model is None:
            model = _models(cfg, seed_layer, seed_fresh, final_nodes=fos.n_nodes_)
        start = time.perf_counter()
        stream(model, Xtr, ytr, cfg["initial"], cfg["chunk"], classes)
        seconds[label] = time.perf_counter() - start
        fitted[label] = model
    metric = "RMSE" if regression else "accuracy"
    records = [{"data set": LABELS[name], "model": label, "metric": metric,
                "score": _score(model, Xte, yte, regression), "nodes": int(model.W_.shape[1])}
               for label, model in fitted.items()]
    return records, list(fos.n_nodes_history_), seconds


# ---------------------------------------------------------------------------------------------
# the experiment

def run(quick=False, out_dir="results/fos-elm", seed=0, repeats=None, data_home=None,
        progress=True, *, datasets=None, config=None):
    """Run the comparison and write its table, plot and notes to ``out_dir``.

    Parameters
    ----------
    quick : bool
        L0 halved and 3 repeats (about a minute on 2 cores) instead of 20 repeats.
    out_dir : str
        Output folder (created).
    seed : int
        Seeds every split, stream order and hidden layer: the same seed gives the same tables.
    repeats : int, optional
        Overrides the number of repeats.
    data_home : str, optional
        Data directory (default ``$FASTELM_DATA``; see :mod:`fastelm.datasets`).
    progress : bool
        Show progress bars (tqdm) on stderr.
    datasets : sequence of str, optional
        A subset of :data:`DATASETS` (default all five).
    config : dict, optional
        Overrides of the settings, ``{name: {"n_hidden": 20, ...}}`` (see :data:`CONFIG`).

    Returns
    -------
    dict with ``rows`` (the summary rows of the table: data set, model, metric, score_mean,
    score_std, nodes_mean, nodes_std, runs), ``records`` (one per repeat and model),
    ``histories`` ({name: repeats × chunks array of FOS-ELM's alive nodes}), ``checks``
    ({name: dict of the claim's check}), ``configs``, ``files``, ``seconds`` and ``skipped``
    ({name: reason} of the data sets whose files are not on this machine: left out, with a
    section in notes.md).
    """
    start_all = time.perf_counter()
    cfgs = configs(quick, datasets, config)
    n_repeats = repeats if repeats is not None else (QUICK_REPEATS if quick else FULL_REPEATS)
    if n_repeats < 1:
        raise ValueError(f"repeats must be >= 1, got {n_repeats}")
    records, histories, seconds = [], {}, {}
    # a missing data set is reported, not fatal: run what is here
    bunches, skipped = load_available(cfgs, lambda name: _load(name, data_home), what="FOS-ELM")
    cfgs = {name: cfg for name, cfg in cfgs.items() if name in bunches}
    for name, cfg in cfgs.items():
        bunch = bunches[name]
        history, times = [], []
        for r in progress_bar(range(n_repeats), f"FOS-ELM {name}", n_repeats, progress):
            recs, hist, secs = run_repeat(name, bunch, cfg, _rng(seed, name, r))
            records += recs
            history.append(hist)
            times.append(secs)
        histories[name] = np.array(history)
        seconds[name] = {m: float(np.sum([t[m] for t in times])) for m in MODELS}
    rows = summarize(records, KEYS, VALUES)
    checks = {name: check_claim(rows, LABELS[name], cfgs[name]["n_hidden"]) for name in cfgs}

    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, "results")
    table = write_table(rows, KEYS, VALUES, stem)
    files = [stem + ".md", stem + ".csv"]
    plot = os.path.join(out_dir, "nodes.png")
    if plot_nodes(histories, cfgs, plot):
        files.append(plot)
    notes = os.path.join(out_dir, "notes.md")
    with open(notes, "w") as f:
        f.write(notes_text(table, checks, cfgs, quick, seed, n_repeats))
        if skipped:
            f.write("\n" + "\n".join(skipped_notes(skipped, LABELS)))
    files.append(notes)
    total = time.perf_counter() - start_all
    timings = os.path.join(out_dir, "timings.md")
    with open(timings, "w") as f:
        f.write(timings_text(seconds, total, n_repeats))
    files.append(timings)
    return {"rows": rows, "records": records, "histories": histories, "checks": checks,
            "configs": cfgs, "files": files, "seconds": total, "table": table,
            "skipped": skipped}


def _row(rows, label, model):
    for row in rows:
        if row["data set"] == label and row["model"] == model:
            return row
    raise KeyError((label, model))


def check_claim(rows, label, n_hidden):
    """The paper's claim on one data set: FOS-ELM ends with fewer nodes than L0 and its test
    score is within one sd (over repeats) of OS-ELM (L0)'s: RMSE <= OS mean + sd, or accuracy
    >= OS mean - sd."""
    fos, base = _row(rows, label, "FOS-ELM"), _row(rows, label, "OS-ELM (L0)")
    final = _row(rows, label, "OS-ELM (final L)")
    regression = fos["metric"] == "RMSE"
    sign = 1.0 if regression else -1.0  # +: larger is worse
    gap = sign * (fos["score_mean"] - base["score_mean"])  # > 0: FOS-ELM worse
    fewer = fos["nodes_mean"] < n_hidden
    within = gap <= base["score_std"]
    fresh_gap = sign * (final["score_mean"] - fos["score_mean"])  # > 0: fresh net worse
    return {"L0": n_hidden, "final_nodes": fos["nodes_mean"], "fewer_nodes": bool(fewer),
            "score_gap": gap, "os_std": base["score_std"], "within_one_sd": bool(within),
            "fresh_gap": fresh_gap, "beats_fresh_final": bool(fresh_gap > 0),
            "holds": bool(fewer and within), "metric": fos["metric"]}


def plot_nodes(histories, cfgs, path):
    """Alive FOS-ELM nodes after each chunk, mean ± sd over repeats, one subplot per data set.
    Returns False (and writes nothing) when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    names = list(histories)
    ncols = min(3, len(names))
    nrows = -(-len(names) // ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 3.2 * nrows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        h = histories[name].astype(float)
        cfg = cfgs[name]
        rows_seen = cfg["initial"] + cfg["chunk"] * np.arange(h.shape[1])
        rows_seen = np.minimum(rows_seen, cfg["n_train"])
        mean, sd = h.mean(axis=0), h.std(axis=0)
        ax.plot(rows_seen, mean, marker="o", ms=3, label="FOS-ELM (mean)")
        ax.fill_between(rows_seen, mean - sd, mean + sd, alpha=0.25, label="± sd")
        ax.axhline(cfg["n_hidden"], color="grey", ls="--", lw=1, label="OS-ELM (L0)")
        ax.set_title(f"{LABELS[name]} (L0={cfg['n_hidden']}, δ={cfg['delta_rel']:g}/L0)",
                     fontsize=9)
        ax.set_xlabel("training rows seen")
        ax.set_ylabel("alive hidden nodes")
        ax.set_ylim(0, cfg["n_hidden"] * 1.05)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(names):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7, loc="lower left")
    fig.suptitle(f"FOS-ELM: alive hidden nodes per chunk ({histories[names[0]].shape[0]} "
                 "repeats)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return True


def notes_text(table, checks, cfgs, quick, seed, n_repeats):
    """notes.md: what was run, the table, and the paper's claim checked per data set."""
    held = [n for n, c in checks.items() if c["holds"]]
    lines = [
        "# FOS-ELM reproduction (seed paper 001)",
        "",
        f"Mode: {'quick' if quick else 'full'}; seed {seed}; {n_repeats} repeat(s) per data set.",
        "Generated by `python -m fastelm.experiments.fos_elm` (see the module docstring for the "
        "protocol).",
        "",
        "## Settings",
        "",
        "| data set | train/test | L0 | alpha | delta (= delta_rel/L0) | min nodes | "
        "initial chunk | chunk |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, c in cfgs.items():
        lines.append(f"| {LABELS[name]} | {c['n_train']}/{c['n_test']} | {c['n_hidden']} | "
                     f"{c['alpha']:g} | {c['delta']:.3g} (= {c['delta_rel']:g}/{c['n_hidden']}) "
                     f"| {c['min_nodes']} | {c['initial']} | {c['chunk']} |")
    lines += [
        "",
        "Friedman #2 stands in for the paper's \"function 16\" of its ref. [13] (not "
        "recoverable): `make_friedman2`, 4 inputs, noise sd "
        f"{FRIEDMAN_NOISE:g} on train and test targets (signal:noise about 3:1). Inputs are "
        "standardised with training statistics; regression targets are scaled to [0, 1] with "
        "the training min/max and RMSE is on that scale. alpha and delta_rel were chosen on "
        "validation rows carved out of training sets (`--tune`), never on test rows.",
        "",
        "## Results (test set, mean ± sd over repeats)",
        "",
        table,
        "",
        "`nodes`: final hidden nodes. OS-ELM (L0) starts from the same random hidden layer as "
        "FOS-ELM; OS-ELM (final L) is a fresh OS-ELM with FOS-ELM's final node count of that "
        "repeat.",
        "",
        "## The paper's claim, per data set",
        "",
        "Claim checked: FOS-ELM ends with fewer hidden nodes than L0 and its test score stays "
        "within one sd (over repeats) of OS-ELM (L0)'s. Gaps are in the metric's units: score "
        "gap > 0 when FOS-ELM is worse than OS-ELM (L0) (higher RMSE, lower accuracy); the "
        "last gap > 0 when a fresh OS-ELM of FOS-ELM's final size is worse than FOS-ELM.",
        "",
        "| data set | L0 → final nodes | score gap | OS-ELM (L0) sd | fewer nodes | within 1 sd "
        "| fresh OS-ELM (final L) minus FOS-ELM | claim holds |",
        "|---|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "**no**"}
    for name, c in checks.items():
        lines.append(f"| {LABELS[name]} | {c['L0']} → {c['final_nodes']:.1f} | "
                     f"{c['score_gap']:+.4f} | {c['os_std']:.4f} | {yes[c['fewer_nodes']]} | "
                     f"{yes[c['within_one_sd']]} | {c['fresh_gap']:+.4f} "
                     f"| {yes[c['holds']]} |")
    lines += ["", f"The claim holds on {len(held)} of {len(checks)} data set(s)"
              + (f": {', '.join(LABELS[n] for n in held)}." if held else "."), ""]
    for name, c in checks.items():
        if c["holds"]:
            continue
        why = []
        if not c["fewer_nodes"]:
            why.append("no node's EFAST total index fell below delta, so nothing was pruned "
                       "(the readout spreads its variance evenly over the nodes; delta_rel too "
                       "small for this set)")
        if not c["within_one_sd"]:
            ratio = c["score_gap"] / c["os_std"] if c["os_std"] > 0 else float("inf")
            pruned = 1 - c["final_nodes"] / c["L0"]
            text = (f"removing {pruned:.0%} of the nodes cost {c['score_gap']:.4f} "
                    f"{c['metric']}, {ratio:.2f} sd of OS-ELM (L0) over repeats "
                    f"({c['os_std']:.4f}). ")
            if c["fresh_gap"] > 0:
                text += ("The pruned nodes still carried signal (FOS-ELM's kept nodes beat a "
                         f"fresh OS-ELM of the final size by {c['fresh_gap']:.4f}, yet lose to "
                         "the full layer): the score still grows with L near L0 on this set. ")
            else:
                text += ("Here EFAST's ranking kept no better nodes than a fresh random layer of "
                         f"the final size (which is {-c['fresh_gap']:.4f} better or equal). ")
            if quick:
                text += ("Quick mode halves L0 but keeps the delta_rel tuned at the full L0, "
                         f"and {n_repeats} repeat(s) give a rough sd: judge the claim on the "
                         "full run")
            else:
                text += ("The delta_rel picked on validation rows (where its cost was within "
                         "half a sd) is too large for the test rows; a smaller one prunes less "
                         "and keeps the score")
            why.append(text)
        lines.append(f"- {LABELS[name]}: the claim fails: " + "; and ".join(why) + ".")
    if quick:
        lines += ["", "This is a quick (smoke) run: L0 halved, the full run's delta_rel, "
                  f"{n_repeats} repeat(s). The reproduction is the full run."]
    findings = [n for n, c in checks.items() if c["fewer_nodes"] and c["beats_fresh_final"]]
    if findings:
        lines += ["", "Where FOS-ELM pruned, it beats a fresh OS-ELM of its final size on "
                  f"{len(findings)} of {sum(c['fewer_nodes'] for c in checks.values())} set(s): "
                  "the EFAST-selected nodes of a large random layer are better than as many "
                  "random nodes."]
    return "\n".join(lines) + "\n"


def timings_text(seconds, total, n_repeats):
    lines = ["# Wall-clock training time (summed over repeats)", "",
             f"{n_repeats} repeat(s); whole run {total:.1f} s (including data loading, "
             "compilation and output). Not deterministic, unlike the other outputs.", "",
             "| data set | " + " | ".join(MODELS) + " |", "|---|" + "---|" * len(MODELS)]
    for name, secs in seconds.items():
        lines.append(f"| {LABELS[name]} | " + " | ".join(f"{secs[m]:.2f} s" for m in MODELS)
                     + " |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# how CONFIG's alpha and delta_rel were chosen

def tune(seed=0, repeats=5, data_home=None, names=None, alphas=ALPHAS, delta_rels=DELTA_RELS,
         progress=True, validation=0.25):
    """Choose alpha and delta_rel per data set on validation rows (never test rows).

    For each of the first ``repeats`` repeats of ``seed``, the repeat's training set (in stream
    order) is split into a fit part and the last ``validation`` share as validation rows. The fit
    part is streamed with the data set's initial chunk and a chunk shrunk so that the number of
    chunks (hence of pruning steps) is unchanged. alpha: the best mean OS-ELM (L0) validation
    score over ``alphas``. delta_rel: the largest of ``delta_rels`` whose mean FOS-ELM validation
    score is within half a sd (over repeats) of OS-ELM (L0)'s; 0 if none is.

    Returns {name: {"alpha", "delta_rel", "scores"}} with scores {(model, alpha, delta_rel):
    (mean, sd, final nodes)} (scores: higher is better, -RMSE for regression).
    """
    chosen = {}
    for name, cfg in configs(False, names).items():
        bunch = _load(name, data_home)
        regression = cfg["task"] == "regression"
        n_fit = int(round(cfg["n_train"] * (1 - validation)))
        n_later = -(-(cfg["n_train"] - cfg["initial"]) // cfg["chunk"])
        chunk = -(-(n_fit - cfg["initial"]) // n_later)
        folds = []
        for r in range(repeats):
            rng = _rng(seed, name, r)
            Xtr, ytr, _, _ = split(name, bunch, cfg, rng)
            folds.append((preprocess(Xtr[:n_fit], ytr[:n_fit], Xtr[n_fit:], ytr[n_fit:],
                                     regression), int(rng.integers(2 ** 63))))
        scores = {}

        def evaluate(key, make):
            vals, nodes = [], []
            for (Xf, yf, Xv, yv), s in folds:
                classes = None if regression else np.unique(np.concatenate([yf, yv]))
                model = stream(make(s), Xf, yf, cfg["initial"], chunk, classes)
                v = _score(model, Xv, yv, regression)
                vals.append(-v if regression else v)
                nodes.append(model.W_.shape[1])
            scores[key] = (float(np.mean(vals)), float(np.std(vals)), float(np.mean(nodes)))
            return scores[key]

        for alpha in progress_bar(alphas, f"tune {name} alpha", len(alphas), progress):
            c = dict(cfg, alpha=alpha)
            evaluate(("OS-ELM (L0)", alpha, 0.0), lambda s, c=c: _models(c, s, s)[1])
        # ties go to the larger (more regularising) alpha
        alpha = max(alphas, key=lambda a: (scores[("OS-ELM (L0)", a, 0.0)][0], a))
        base_mean, base_sd, _ = scores[("OS-ELM (L0)", alpha, 0.0)]
        best = 0.0
        for d in progress_bar(delta_rels, f"tune {name} delta", len(delta_rels), progress):
            c = dict(cfg, alpha=alpha, delta=d / cfg["n_hidden"])
            mean, _, _ = evaluate(("FOS-ELM", alpha, d), lambda s, c=c: _models(c, s, s)[0])
            if mean >= base_mean - 0.5 * base_sd:
                best = max(best, d)
        chosen[name] = {"alpha": alpha, "delta_rel": best, "scores": scores}
    return chosen


def tune_text(chosen):
    lines = []
    for name, res in chosen.items():
        lines.append(f"{name}: alpha={res['alpha']:g} delta_rel={res['delta_rel']:g}")
        for (model, a, d), (mean, sd, nodes) in res["scores"].items():
            lines.append(f"    {model:12s} alpha={a:<6g} delta_rel={d:<5g} "
                         f"validation score {mean:+.4f} ± {sd:.4f}, {nodes:.1f} nodes")
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# command line

def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m fastelm.experiments.fos_elm",
        description="FOS-ELM vs OS-ELM on the paper's five data sets (seed paper 001).")
    parser.add_argument("--quick", action="store_true",
                        help=f"L0 halved and {QUICK_REPEATS} repeats (about a minute)")
    parser.add_argument("--out", default="results/fos-elm", help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=None,
                        help=f"repeats per data set (default {FULL_REPEATS}, quick "
                             f"{QUICK_REPEATS})")
    parser.add_argument("--data", default=None, help="data directory (default $FASTELM_DATA)")
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=None,
                        help="a subset of the data sets")
    parser.add_argument("--tune", action="store_true",
                        help="only re-run the validation search behind CONFIG and print it")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    if args.tune:
        chosen = tune(seed=args.seed, repeats=args.repeats or 5, data_home=args.data,
                      names=args.datasets, progress=not args.no_progress)
        print(tune_text(chosen))
        return 0
    result = run(quick=args.quick, out_dir=args.out, seed=args.seed, repeats=args.repeats,
                 data_home=args.data, progress=not args.no_progress, datasets=args.datasets)
    print(result["table"])
    print()
    held = sum(c["holds"] for c in result["checks"].values())
    print(f"claim (fewer nodes, score within 1 sd of OS-ELM (L0)) holds on {held} of "
          f"{len(result['checks'])} data sets; {result['seconds']:.1f} s")
    print("wrote " + ", ".join(result["files"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
