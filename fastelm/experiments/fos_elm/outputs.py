"""The FOS-ELM reproduction's outputs: the check of the paper's claim, the alive-node plot and
notes.md from the template ``notes.md`` beside this file."""
import os

import numpy as np

from ..common import fill, pyplot, read_template
from .protocol import FRIEDMAN_NOISE, LABELS, MODELS

#: the notes template: prose with {placeholders}, one block per paragraph (common.read_template)
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")


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


def plot_nodes(histories, cfgs, path, quick=False):
    """Alive FOS-ELM nodes after each chunk, mean ± sd over repeats, one subplot per data set
    (``quick``: the title says so). Returns False (and writes nothing) when matplotlib is not
    installed."""
    plt = pyplot()
    if plt is None:
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
    fig.suptitle(f"{'Quick mode: ' if quick else ''}FOS-ELM: alive hidden nodes per chunk "
                 f"({histories[names[0]].shape[0]} repeats; band: ± 1 sd over the repeats)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return True


def notes_text(table, checks, cfgs, quick, seed, n_repeats):
    """notes.md: what was run, the table, and the paper's claim checked per data set."""
    t = read_template(TEMPLATE)
    held = [n for n, c in checks.items() if c["holds"]]
    lines = [fill(t, "header", mode="quick" if quick else "full", seed=seed,
                  n_repeats=n_repeats)]
    for name, c in cfgs.items():
        lines.append(fill(t, "setting", label=LABELS[name], n_train=c["n_train"],
                          n_test=c["n_test"], n_hidden=c["n_hidden"], alpha=f"{c['alpha']:g}",
                          delta=f"{c['delta']:.3g}", delta_rel=f"{c['delta_rel']:g}",
                          min_nodes=c["min_nodes"], initial=c["initial"], chunk=c["chunk"]))
    lines += ["", fill(t, "results", noise=f"{FRIEDMAN_NOISE:g}", table=table)]
    yes = {True: "yes", False: "**no**"}
    one_run = "n/a (1 run)"  # a single repeat has no spread: the sd test cannot be made
    for name, c in checks.items():
        lines.append(fill(t, "claim", label=LABELS[name], L0=c["L0"],
                          final_nodes=f"{c['final_nodes']:.1f}", score_gap=f"{c['score_gap']:+.4f}",
                          os_std=f"{c['os_std']:.4f}" if n_repeats > 1 else one_run,
                          fewer_nodes=yes[c["fewer_nodes"]],
                          within_one_sd=yes[c["within_one_sd"]] if n_repeats > 1 else one_run,
                          fresh_gap=f"{c['fresh_gap']:+.4f}",
                          holds=yes[c["holds"]] if n_repeats > 1 else one_run))
    if n_repeats > 1:
        lines += ["", fill(t, "held", n_held=len(held), n=len(checks),
                           names=f": {', '.join(LABELS[n] for n in held)}." if held else "."),
                  ""]
    else:
        lines += ["", fill(t, "held_one_run"), ""]
    for name, c in checks.items():
        if c["holds"] or n_repeats == 1:
            continue
        why = []
        if not c["fewer_nodes"]:
            why.append(fill(t, "no_pruning"))
        if not c["within_one_sd"]:
            ratio = c["score_gap"] / c["os_std"] if c["os_std"] > 0 else float("inf")
            pruned = 1 - c["final_nodes"] / c["L0"]
            parts = [fill(t, "cost", pruned=f"{pruned:.0%}", gap=f"{c['score_gap']:.4f}",
                          metric=c["metric"], ratio=f"{ratio:.2f}", os_std=f"{c['os_std']:.4f}")]
            parts.append(fill(t, "cost_signal", fresh_gap=f"{c['fresh_gap']:.4f}")
                         if c["fresh_gap"] > 0 else
                         fill(t, "cost_no_better", fresh_gap=f"{-c['fresh_gap']:.4f}"))
            parts.append(fill(t, "cost_quick", n_repeats=n_repeats) if quick
                         else fill(t, "cost_full"))
            why.append(" ".join(parts))
        lines.append(fill(t, "fails", label=LABELS[name], why="; and ".join(why)))
    if quick:
        lines += ["", fill(t, "quick", n_repeats=n_repeats)]
    findings = [n for n, c in checks.items() if c["fewer_nodes"] and c["beats_fresh_final"]]
    if findings:
        lines += ["", fill(t, "findings", n_found=len(findings),
                           n_pruned=sum(c["fewer_nodes"] for c in checks.values()))]
    return "\n".join(lines) + "\n"


def timings_text(seconds, total, n_repeats):
    """timings.md: wall-clock training time per data set and model, summed over repeats."""
    lines = [fill(read_template(TEMPLATE), "timings", n_repeats=n_repeats, total=f"{total:.1f}",
                  models=" | ".join(MODELS), columns="---|" * len(MODELS))]
    for name, secs in seconds.items():
        lines.append(f"| {LABELS[name]} | " + " | ".join(f"{secs[m]:.2f} s" for m in MODELS)
                     + " |")
    return "\n".join(lines) + "\n"
