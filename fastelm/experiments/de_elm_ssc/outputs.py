"""The DE-ELM-SSC reproduction's outputs: tables, the hidden-node plot, the checks against the
paper's quoted figures, and notes.md from the template ``notes.md`` beside this file."""
import csv
import json
import os

import numpy as np

from ..common import (QUICK_HEADING, fill, pyplot, read_template, skipped_notes, summarize,
                      write_table)
from .protocol import DE_METHODS, LABELS, PAPER

def write_outputs(out_dir, rec, selections, s, seed, quick, timings, skipped=None):
    """Write every table, the plot and the notes; returns run()'s dict. ``skipped``:
    {name: reason} of the data sets left out for want of their files."""
    skipped = dict(skipped or {})
    stem = lambda name: os.path.join(out_dir, name)  # noqa: E731
    tables, paths, markdown = {}, {}, {}

    def table(key, records, keys, values, digits=4):
        if not records:
            return
        rows = summarize(records, keys, values)
        markdown[key] = write_table(rows, keys, values, stem(key), digits=digits,
                                    heading=QUICK_HEADING if quick else None)
        tables[key], paths[key] = rows, stem(key) + ".md"

    acc = ("test_accuracy", "validation_accuracy")
    table("table3_4_accuracy", rec["main"], ("dataset", "method"), acc)
    table("table4_time", rec["main"], ("dataset", "method"), ("train_time_s",), digits=3)
    table("table5_labelled_share", rec["share"], ("dataset", "labelled", "method"), acc)
    table("table6_f_grid", rec["grid"], ("dataset", "f_min", "f_max"),
          ("validation_accuracy", "test_accuracy"))
    table("hidden_nodes", rec["nh"], ("dataset", "n_hidden", "method"), acc)
    table("ablation_raw_inputs", rec["ablation"], ("dataset", "labelled", "method"), acc)

    strategy_rows = []
    for name, sel in selections.items():
        for method, result in sel.items():
            row = dict(dataset=LABELS[name], method=method, strategy=result.strategy,
                       repeats=int(result.rmse.shape[0]))
            for k, st in enumerate(result.strategies):
                row[f"votes {st}"] = int(result.votes[k])
                row[f"RMSE sum {st}"] = round(float(result.rmse_sums[k]), 6)
            strategy_rows.append(row)
    if strategy_rows:
        markdown["strategies"] = _write_plain(strategy_rows, stem("strategies"))
        tables["strategies"], paths["strategies"] = strategy_rows, stem("strategies") + ".md"
    if "table6_f_grid" in tables:
        paths["table6_matrix"] = _write_grid_matrix(tables["table6_f_grid"],
                                                    stem("table6_f_grid_matrix.md"))
        with open(paths["table6_matrix"]) as f:
            markdown["table6_f_grid"] = f.read().strip()
    if "hidden_nodes" in tables and plot_hidden(tables["hidden_nodes"], stem("hidden_nodes.png"),
                                                quick=quick):
        paths["hidden_nodes_png"] = stem("hidden_nodes.png")

    checks = check_paper(tables)
    notes = notes_text(tables, checks, s, seed, quick, markdown, skipped)
    with open(stem("notes.md"), "w") as f:
        f.write(notes)
    paths["notes"] = stem("notes.md")
    with open(stem("timings.md"), "w") as f:
        f.write("| section | seconds |\n|---|---|\n")
        f.writelines(f"| {k} | {v:.1f} |\n" for k, v in timings.items())
        f.write(f"| total | {sum(timings.values()):.1f} |\n")
        if "table4_time" in tables:
            f.write("\nTable 4's training time (mean s per fit, strategy selection excluded; "
                    "the paper: DE-ELM-SSC+ faster than DE-ELM-SSC):\n\n"
                    "| data set | Tri-DE-ELM | DE-ELM-SSC | DE-ELM-SSC+ |\n|---|---|---|---|\n")
            rows = tables["table4_time"]
            for d in dict.fromkeys(r["dataset"] for r in rows):
                cells = [_mean(rows, "train_time_s", dataset=d, method=m) for m in DE_METHODS]
                f.write(f"| {d} | " + " | ".join(_fmt(c, 2) for c in cells) + " |\n")
    paths["timings"] = stem("timings.md")
    with open(stem("records.json"), "w") as f:
        json.dump(dict(seed=seed, quick=quick, settings=s, records=rec, timings=timings,
                       skipped=skipped,
                       selections={n: {m: dict(strategy=r.strategy, strategies=r.strategies,
                                               votes=r.votes.tolist(),
                                               rmse_sums=r.rmse_sums.tolist(),
                                               rmse=r.rmse.tolist())
                                       for m, r in sel.items()}
                                   for n, sel in selections.items()}), f)
    paths["records"] = stem("records.json")
    strategies = {LABELS[n]: {m: r.strategy for m, r in sel.items()}
                  for n, sel in selections.items()}
    summary = notes.split("## Checks against the paper's claims")[-1].split("\n## ")[0].strip()
    files = sorted({path for path in paths.values()}
                   | {stem(key) + ".csv" for key in tables})
    return dict(rows=tables, records=rec, strategies=strategies, checks=checks, settings=s,
                timings=timings, seconds=sum(timings.values()), paths=paths, files=files,
                summary=summary, skipped=skipped, table=markdown.get("table3_4_accuracy"))


def _write_plain(rows, path_stem):
    """A Markdown + CSV table of plain values (no mean ± std); returns the Markdown."""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(r[c]) for c in columns) + " |" for r in rows]
    with open(path_stem + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(path_stem + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return "\n".join(lines)


def _write_grid_matrix(rows, path):
    """Table 6 laid out as the paper's: Fmin rows × Fmax columns, 'validation / test'."""
    f_min = sorted({r["f_min"] for r in rows})
    f_max = sorted({r["f_max"] for r in rows})
    cell = {(r["f_min"], r["f_max"]): r for r in rows}
    lines = ["Mean validation / test accuracy of DE-ELM-SSC+ ('—': Fmin > Fmax).", "",
             "| Fmin \\ Fmax | " + " | ".join(f"{v:.1f}" for v in f_max) + " |",
             "|---|" + "---|" * len(f_max)]
    for lo in f_min:
        cells = []
        for hi in f_max:
            r = cell.get((lo, hi))
            cells.append("—" if r is None else
                         f"{r['validation_accuracy_mean']:.4f} / {r['test_accuracy_mean']:.4f}")
        lines.append(f"| {lo:.1f} | " + " | ".join(cells) + " |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


# the accuracy axis of Figs. 3-4 spans at least this much, so that differences of a few
# test rows between node counts do not look like a trend
MIN_ACCURACY_SPAN = 0.1


def hidden_axis(rows, value):
    """(y limits, title suffix) of one panel of Figs. 3-4: the limits cover every mean ± sd
    and at least MIN_ACCURACY_SPAN of accuracy (clipped to [0, 1]); the suffix gives the run
    count and what the bars are (none for a single run)."""
    lo = min(r[value + "_mean"] - r[value + "_std"] for r in rows)
    hi = max(r[value + "_mean"] + r[value + "_std"] for r in rows)
    if hi - lo < MIN_ACCURACY_SPAN:
        middle = (hi + lo) / 2
        lo, hi = middle - MIN_ACCURACY_SPAN / 2, middle + MIN_ACCURACY_SPAN / 2
    lo, hi = max(0.0, lo - 0.01), min(1.0, hi + 0.01)
    if hi - lo < MIN_ACCURACY_SPAN:  # pushed against 0 or 1
        lo, hi = (hi - MIN_ACCURACY_SPAN, hi) if hi >= 1.0 else (lo, lo + MIN_ACCURACY_SPAN)
    runs = sorted({r["runs"] for r in rows})
    count = "/".join(map(str, runs))
    bars = "1 run, no error bars" if runs == [1] else f"{count} runs, mean ± 1 sd"
    return (lo, hi), bars


def plot_hidden(rows, path, quick=False):
    """Figs. 3-4 in one PNG: test (left) and validation (right) accuracy against nh, mean and
    ± 1 sd bars over the runs (``hidden_axis``; ``quick``: the title says so). Returns False
    (and writes nothing) when matplotlib is not installed."""
    plt = pyplot()
    if plt is None:
        return False
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, value, title in zip(axes, ("test_accuracy", "validation_accuracy"),
                                ("Fig. 3: test set", "Fig. 4: validation set")):
        limits, bars = hidden_axis(rows, value)
        for method in DE_METHODS:
            mine = [r for r in rows if r["method"] == method]
            x, y = [r["n_hidden"] for r in mine], [r[value + "_mean"] for r in mine]
            if all(r["runs"] == 1 for r in mine):  # no spread: no bars in plot or legend
                ax.plot(x, y, marker="o", label=method)
            else:
                ax.errorbar(x, y, yerr=[r[value + "_std"] for r in mine], marker="o",
                            capsize=3, label=method)
        ax.axvline(PAPER["nh_plateau"], color="grey", ls=":", lw=1,
                   label=f"paper: levels off from ~{PAPER['nh_plateau']}")
        ax.set_ylim(*limits)
        ax.set_xlabel("hidden nodes nh")
        ax.set_ylabel("accuracy")
        ax.set_title(f"{rows[0]['dataset']} — {title}\n({bars})", fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].legend()
    if quick:
        fig.suptitle("Quick mode: fewer runs and hidden-node values than the paper's", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# --------------------------------------------------------------------------- paper checks


def _mean(rows, value="test_accuracy", **match):
    for r in rows:
        if all(r.get(k) == v for k, v in match.items()):
            return r[value + "_mean"]
    return None


def check_paper(tables):
    """The checks against the paper's claims and its quoted figures next to ours (None where
    not run)."""
    checks = {}
    share = tables.get("table5_labelled_share", [])
    raw = tables.get("ablation_raw_inputs", [])
    for p in (0.2, 0.8):
        label = f"{int(100 * p)}%"
        for method in ("Tri-DE-ELM", "DE-ELM-SSC+"):
            ours = _mean(share, dataset="Australian", labelled=label, method=method)
            paper = PAPER[("australian", p, method)]
            checks[f"Australian {label} {method}"] = dict(
                ours=ours, paper=paper, diff=None if ours is None else ours - paper,
                within_0_02=None if ours is None else bool(abs(ours - paper) <= 0.02),
                raw_inputs=_mean(raw, dataset="Australian", labelled=label, method=method),
                elm_raw_inputs=_mean(raw, dataset="Australian", labelled=label, method="ELM"))
    main = tables.get("table3_4_accuracy", [])
    datasets = sorted({r["dataset"] for r in main}, key=list(LABELS.values()).index)
    if datasets:
        plus = [_mean(main, dataset=d, method="DE-ELM-SSC+") for d in datasets]
        base = [_mean(main, dataset=d, method="Tri-DE-ELM") for d in datasets]
        checks["plus_vs_tri_de_elm"] = dict(
            datasets=datasets, plus=float(np.mean(plus)), tri_de_elm=float(np.mean(base)),
            per_dataset={d: (a, b) for d, a, b in zip(datasets, plus, base)},
            not_below=bool(np.mean(plus) >= np.mean(base)))
    grid = tables.get("table6_f_grid", [])
    if grid:
        for key, (lo, hi) in (("mushroom_f_0.3_0.5", (0.3, 0.5)),
                              ("mushroom_f_1.0_1.0", (1.0, 1.0))):
            v = _mean(grid, "validation_accuracy", f_min=lo, f_max=hi)
            t = _mean(grid, "test_accuracy", f_min=lo, f_max=hi)
            checks[key] = dict(ours=None if v is None else (v, t), paper=PAPER[key])
        best = max(grid, key=lambda r: r["validation_accuracy_mean"])
        checks["grid_best"] = dict(f_min=best["f_min"], f_max=best["f_max"],
                                   validation=best["validation_accuracy_mean"],
                                   test=best["test_accuracy_mean"])
    nh = tables.get("hidden_nodes", [])
    if nh:
        curve = {}
        for r in nh:
            curve.setdefault(r["method"], {})[r["n_hidden"]] = (r["test_accuracy_mean"],
                                                                r["validation_accuracy_mean"])
        checks["nh_curve"] = curve
    return checks


def _fmt(x, digits=4, sign=False):
    return "—" if x is None else (f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}")


def _left_out(s, skipped):
    """The sections (beyond their rows of Tables 3-4) that skipped data sets take with them."""
    out = []
    share = [LABELS[n] for n in s["share_datasets"] if n in skipped]
    if share:
        out.append(f"Table 5 on {', '.join(share)}")
    for key, section in (("grid_dataset", "Table 6"), ("nh_dataset", "Figs. 3-4")):
        if s[key] in skipped:
            out.append(f"{section} ({LABELS[s[key]]})")
    if "australian" in skipped and s["ablation_runs"]:
        out.append("the raw-input ablation (Australian)")
    return out


#: the notes template: prose with {placeholders}, one block per paragraph (common.read_template)
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")


def notes_text(tables, checks, s, seed, quick, markdown=None, skipped=None):
    """notes.md: settings, our numbers next to the paper's, the checks against the paper's
    claims, the tables. ``skipped``: {name: reason} of the data sets left out for want of their
    files."""
    t = read_template(TEMPLATE)
    skipped = skipped or {}
    share_mushroom = "mushroom" in s["share_datasets"]
    lines = [fill(t, "title", mode="quick" if quick else "full", seed=seed), "", fill(
        t, "settings", runs=s["runs"], mushroom_runs=s["mushroom_runs"],
        share_runs=s["share_runs"],
        mushroom_share_runs=f" (Mushroom {s['mushroom_share_runs']})" if share_mushroom else "",
        share_sets=", ".join(LABELS[n] for n in s["share_datasets"]),
        shares=[int(round(100 * p)) for p in s["shares"]], grid_runs=s["grid_runs"],
        grid_values=list(s["grid_values"]), nh_set=LABELS[s["nh_dataset"]],
        nh_runs=s["nh_runs"], nh_values=list(s["nh_values"]), ablation_runs=s["ablation_runs"],
        repeats=s["n_selection_repeats"],
        repeats_per_set="".join(f" ({LABELS[n]}: {k})"
                                for n, k in s.get("selection_repeats", {}).items()),
        subsample=s["subsample"] or "none",
        common=", ".join(f"{k}={v}" for k, v in s["common"].items()),
        per_set="; ".join(f"{LABELS[n]} nh={c['n_hidden']} (Fmin, Fmax)=({c['f_min']}, "
                          f"{c['f_max']})" for n, c in s["config"].items()))]
    if skipped:
        lines.append(fill(t, "settings_skipped", names=", ".join(LABELS[n] for n in skipped),
                          left_out="".join(f", {x}" for x in _left_out(s, skipped))))
    lines.append("")
    lines += skipped_notes(skipped, LABELS)

    figures = []
    for key, c in checks.items():
        if key.startswith("Australian") and "australian" not in skipped:
            within = "—" if c["within_0_02"] is None else ("yes" if c["within_0_02"] else "no")
            figures.append(fill(t, "figure_australian", key=key, paper=f"{c['paper']:.4f}",
                                ours=_fmt(c["ours"]), diff=_fmt(c["diff"], sign=True),
                                within=within, raw=_fmt(c["raw_inputs"])))
    for key, label in (("mushroom_f_0.3_0.5", "Fmin 0.3, Fmax 0.5"),
                       ("mushroom_f_1.0_1.0", "F = 1 (Fmin = Fmax = 1.0)")):
        if key in checks:
            c = checks[key]
            ours = "—" if c["ours"] is None else f"{c['ours'][0]:.4f} / {c['ours'][1]:.4f}"
            figures.append(fill(t, "figure_mushroom", label=label, ours=ours,
                                paper=f"{c['paper'][0]:.4f} / {c['paper'][1]:.4f}"))
    lines += [fill(t, "figures"), ""]
    if figures:
        lines += [fill(t, "figures_table")] + figures + [""]
    missing = [f"{LABELS[n]} ({where})" for n, where in (("australian", "Table 5"),
                                                         ("mushroom", "Table 6, Figs. 3-4"))
               if n in skipped]
    if missing:
        lines += [fill(t, "figures_missing", missing=" and ".join(missing)), ""]
    if "grid_best" in checks:
        b = checks["grid_best"]
        lines += [fill(t, "grid_best", f_min=b["f_min"], f_max=b["f_max"],
                       validation=f"{b['validation']:.4f}", test=f"{b['test']:.4f}"), ""]
    if "nh_curve" in checks:
        lines += [fill(t, "nh_curve", nh_set=LABELS[s["nh_dataset"]]), ""]
        for method, curve in checks["nh_curve"].items():
            lines.append(f"- {method}: " + ", ".join(f"nh {k}: {a:.4f} / {v:.4f}"
                                                     for k, (a, v) in sorted(curve.items())))
        lines.append("")
    if "strategies" in tables:
        chosen = {r["dataset"]: r["strategy"] for r in tables["strategies"]
                  if r["method"] == "DE-ELM-SSC"}
        lines += [fill(t, "strategies", chosen=", ".join(
            f"{d} {st} / {PAPER['strategies'][d]}" for d, st in chosen.items())), ""]

    lines += [fill(t, "checks"), ""]
    aus = [checks.get(f"Australian {p} DE-ELM-SSC+") for p in ("20%", "80%")]
    if all(c is not None and c["ours"] is not None for c in aus):
        verdict = fill(t, "within" if all(c["within_0_02"] for c in aus) else "not_within")
        lines.append(fill(t, "check_australian", ours20=f"{aus[0]['ours']:.4f}",
                          ours80=f"{aus[1]['ours']:.4f}", verdict=verdict))
        if all(c["raw_inputs"] is not None for c in aus):
            lines.append(fill(t, "check_australian_raw", raw20=f"{aus[0]['raw_inputs']:.4f}",
                              raw80=f"{aus[1]['raw_inputs']:.4f}"))
    elif "australian" in skipped:
        lines.append(fill(t, "check_australian_missing"))
    if "plus_vs_tri_de_elm" in checks:
        c = checks["plus_vs_tri_de_elm"]
        lines.append(fill(
            t, "check_ranking", n=len(c["datasets"]), plus=f"{c['plus']:.4f}",
            tri=f"{c['tri_de_elm']:.4f}", verdict="is not below" if c["not_below"] else
            "is BELOW", per_set="; ".join(f"{d} {a:.4f} vs {b:.4f}"
                                          for d, (a, b) in c["per_dataset"].items()),
            missing=fill(t, "check_ranking_missing", names=", ".join(LABELS[n] for n in skipped))
            if skipped else ""))
    lines.append("")

    lines += gap_analysis(checks, tables, skipped, t)
    lines += [fill(t, "tables"), ""]
    titles = {"table3_4_accuracy": "Tables 3-4: accuracy (test, validation)",
              "strategies": "Strategy selection (Tables 3-4's strategy column)",
              "table5_labelled_share": "Table 5: labelled share of L ∪ U (V = 30% of training)",
              "table6_f_grid": "Table 6: (Fmin, Fmax) grid of DE-ELM-SSC+",
              "hidden_nodes": "Figs. 3-4: accuracy against nh (hidden_nodes.png)",
              "ablation_raw_inputs": "Ablation: Australian with raw, ordinal-coded inputs"}
    for key, title in titles.items():
        if key in tables:
            lines += [f"### {title}", ""]
            if markdown and key in markdown:
                lines += [markdown[key], ""]
            if key == "table3_4_accuracy":
                lines += [fill(t, "table_time"), ""]
    return "\n".join(lines)


def gap_analysis(checks, tables, skipped=None, template=None):
    """The notes' paragraphs on where and why our numbers differ from the paper's (``skipped``:
    the data sets left out for want of their files, whose parts are said to be missing)."""
    t = read_template(TEMPLATE) if template is None else template
    lines = []
    aus = {p: checks.get(f"Australian {p} DE-ELM-SSC+") for p in ("20%", "80%")}
    tri = {p: checks.get(f"Australian {p} Tri-DE-ELM") for p in ("20%", "80%")}
    if all(c is not None and c["ours"] is not None for c in aus.values()):
        lines += [fill(t, "gap"), ""]
        shares = [fill(t, "gap_australian_share", share=p, plus=f"{c['ours']:.4f}",
                       plus_paper=f"{c['paper']:.4f}", plus_diff=f"{c['diff']:+.4f}",
                       tri=f"{tri[p]['ours']:.4f}", tri_paper=f"{tri[p]['paper']:.4f}",
                       tri_diff=f"{tri[p]['diff']:+.4f}") for p, c in aus.items()]
        lines.append(fill(t, "gap_australian", shares="; ".join(shares)))
        if all(c["raw_inputs"] is not None for c in aus.values()):
            between = all(min(c["raw_inputs"], c["ours"]) <= c["paper"]
                          <= max(c["raw_inputs"], c["ours"]) for c in aus.values())
            lines.append(fill(
                t, "gap_raw",
                plus_raw=" / ".join(f"{c['raw_inputs']:.4f}" for c in aus.values()),
                elm_raw=" / ".join(f"{c['elm_raw_inputs']:.4f}" for c in aus.values()),
                verdict=fill(t, "gap_raw_between" if between else "gap_raw_not_between")))
        elm = _mean(tables.get("table3_4_accuracy", []), dataset="Australian", method="ELM")
        if elm is not None:
            lines.append(fill(t, "gap_elm", elm=f"{elm:.4f}", above=fill(t, "gap_elm_above")
                              if elm > aus["20%"]["paper"] else "."))
        gain_ours = aus["80%"]["ours"] - aus["20%"]["ours"]
        gain_paper = aus["80%"]["paper"] - aus["20%"]["paper"]
        lines.append(fill(t, "gap_gain", ours=f"{gain_ours:+.4f}", paper=f"{gain_paper:+.4f}",
                          why=fill(t, "gap_gain_smaller") if gain_ours < gain_paper else "."))
        lines.append("")
    if "strategies" in tables:
        ours = {r["dataset"]: r["strategy"] for r in tables["strategies"]
                if r["method"] == "DE-ELM-SSC"}
        agree = [d for d, st in ours.items() if PAPER["strategies"].get(d) == st]
        if not lines:
            lines += [fill(t, "gap"), ""]
        winners = {st: sum(1 for v in ours.values() if v == st)
                   for st in dict.fromkeys(ours.values())}
        lines.append(fill(t, "gap_strategies", n_agree=len(agree), n=len(ours),
                          agree=", ".join(agree) or "none",
                          winners=", ".join(f"{st} on {k}" for st, k in winners.items())))
        main = tables.get("table3_4_accuracy", [])
        names = [d for d in ours if _mean(main, dataset=d, method="DE-ELM-SSC") is not None]
        if names:
            ssc, tri_mean, plus = (np.mean([_mean(main, dataset=d, method=m) for d in names])
                                   for m in ("DE-ELM-SSC", "Tri-DE-ELM", "DE-ELM-SSC+"))
            lines.append(fill(t, "gap_strategy_effect", tri=f"{tri_mean:.4f}", ssc=f"{ssc:.4f}",
                              plus=f"{plus:.4f}", vote_effect=f"{ssc - tri_mean:+.4f}",
                              f_effect=f"{plus - ssc:+.4f}"))
        lines.append("")
    lo, hi = checks.get("mushroom_f_0.3_0.5"), checks.get("mushroom_f_1.0_1.0")
    if lo and hi and lo["ours"] is not None and hi["ours"] is not None:
        if not lines:
            lines += [fill(t, "gap"), ""]
        ours = lo["ours"][1] - hi["ours"][1]
        paper = lo["paper"][1] - hi["paper"][1]
        tests = [r["test_accuracy_mean"] for r in tables.get("table6_f_grid", [])]
        sd = [r["test_accuracy_std"] for r in tables.get("table3_4_accuracy", [])
              if r["dataset"] == "Mushroom" and r["method"] == "DE-ELM-SSC+"]
        lines.append(fill(
            t, "gap_mushroom", ours=f"{ours:+.4f}", paper=f"{paper:+.4f}",
            direction="the same direction" if ours * paper > 0 else "the opposite direction",
            ours_f1=f"{hi['ours'][1]:.4f}", paper_f1=f"{hi['paper'][1]:.4f}",
            low=f"{min(tests):.4f}", high=f"{max(tests):.4f}",
            runs=tables["table6_f_grid"][0]["runs"],
            spread=fill(t, "gap_mushroom_spread", sd=f"{sd[0]:.4f}") if sd else "."))
        lines.append("")
    missing = [part for name, part in (("australian", "Australian against the paper's Table 5 "
                                        "figures"), ("mushroom", "Mushroom's Table 6"))
               if name in (skipped or {})]
    if missing:
        if not lines:
            lines += [fill(t, "gap"), ""]
        lines += [fill(t, "gap_missing", missing=" and ".join(missing)), ""]
    return lines
