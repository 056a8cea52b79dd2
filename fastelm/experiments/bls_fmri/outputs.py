"""What a person reads: tables (Markdown and CSV), the plots and notes.md of a run."""
import csv
import json
import os

import numpy as np

from ..common import QUICK_HEADING, fill, pyplot, read_template, summarize, write_table
from .models import FASTELM_MODELS, MODELS, WHY
from .protocol import CPU, METRICS, TIME

KEYS = ("data set", "features", "model")
LOSO_KEYS = ("data set", "features", "model")
#: accuracies on ABIDE I reported in the literature (cited in notes.md and the README)
LITERATURE = (
    ("Abraham et al., NeuroImage 2017", "tangent-space connectomes + l2 linear classifier, "
     "inter-site CV", 0.67),
    ("Heinsfeld et al., NeuroImage: Clinical 2018", "deep autoencoder network, 10-fold CV",
     0.70),
    ("Parisot et al., Medical Image Analysis 2018", "population-graph GCN, 10-fold CV", 0.70),
)
#: the notes template: prose with {placeholders}, one block per paragraph (common.read_template)
TEMPLATE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "notes.md")
#: the targets this reproduction is checked against on the development set
TARGETS = {"best fastelm": 0.68, "BLS-CV": 0.66, "leave-site-out": 0.64, "speed-up": 10.0}


def chance_checks(records, data):
    """Per (data set, features, model): mean accuracy, chance (majority share), the margin
    2·sqrt(p(1-p)/N) and whether the accuracy is above or below chance by more than it."""
    checks = {}
    for key in dict.fromkeys(tuple(r[k] for k in KEYS) for r in records):
        acc = float(np.mean([r["accuracy"] for r in records
                             if tuple(r[k] for k in KEYS) == key]))
        d = data[key[0]]
        p = d["patients"] / d["subjects"]
        chance = max(p, 1.0 - p)
        margin = 2.0 * np.sqrt(chance * (1.0 - chance) / d["subjects"])
        checks[key] = {"accuracy": acc, "chance": chance, "margin": float(margin),
                       "above_chance": acc > chance + margin,
                       "below_chance": acc < chance - margin}
    return checks


def write_outputs(out_dir, records, meta, loso_records=()):
    """Write every output of a run from its records and ``meta`` (see ``run``)."""
    models = meta["models"]
    rows = summarize(records, KEYS, METRICS)
    times = [TIME, CPU] if records and CPU in records[0] else [TIME]
    time_rows = summarize(records, KEYS, times)
    checks = chance_checks(records, meta["data"])
    os.makedirs(out_dir, exist_ok=True)
    stem = os.path.join(out_dir, "results")
    heading = QUICK_HEADING if meta["quick"] else None
    table = write_table(rows, KEYS, METRICS, stem, heading=heading)
    time_stem = os.path.join(out_dir, "timings")
    time_table = write_table(time_rows, KEYS, times, time_stem)
    with open(time_stem + ".md", "w") as f:
        f.write(timings_text(time_table, time_rows, meta["seconds"], models))
    records_csv = os.path.join(out_dir, "records.csv")
    _write_records(records, records_csv)
    meta_json = os.path.join(out_dir, "run.json")
    with open(meta_json, "w") as f:
        json.dump(meta, f, indent=1)
    files = [stem + ".md", stem + ".csv", time_stem + ".md", time_stem + ".csv", records_csv,
             meta_json]
    result = {"rows": rows, "time_rows": time_rows, "records": records, "checks": checks,
              "meta": meta, "table": table}
    loso_rows, loso_table = [], None
    if loso_records:
        loso_rows = summarize(loso_records, LOSO_KEYS, METRICS + tuple(times))
        loso_stem = os.path.join(out_dir, "leave_site_out")
        loso_table = write_table(loso_rows, LOSO_KEYS, ("accuracy", TIME), loso_stem,
                                 heading=heading)
        loso_csv = os.path.join(out_dir, "leave_site_out_records.csv")
        _write_records(loso_records, loso_csv, site=True)
        files += [loso_stem + ".md", loso_stem + ".csv", loso_csv]
    site_rows = meta.get("site_accuracy") or []
    if site_rows:
        site_stem = os.path.join(out_dir, "per_site")
        _write_site_table(site_rows, site_stem, heading)
        files += [site_stem + ".md", site_stem + ".csv"]
    result.update(loso_rows=loso_rows, site_rows=site_rows,
                  permutation=meta.get("permutation"))
    chance = {name: max(d["patients"], d["subjects"] - d["patients"]) / d["subjects"]
              for name, d in meta["data"].items()}
    plots = [("accuracy_vs_time.png", lambda p: plot_accuracy_time(
        rows, time_rows, p, models, title=_plot_title(meta), chance=chance))]
    if site_rows:
        plots.append(("per_site.png", lambda p: plot_per_site(
            site_rows, p, models, title=f"{_plot_title(meta)}: out-of-fold CV accuracy per "
            "site (subjects)")))
    if loso_records:
        plots.append(("leave_site_out.png", lambda p: plot_leave_site_out(loso_records, p,
                                                                          models)))
    for name, draw in plots:
        path = os.path.join(out_dir, name)
        if draw(path):
            files.append(path)
    notes = os.path.join(out_dir, "notes.md")
    with open(notes, "w") as f:
        f.write(notes_text(table, checks, records, meta, loso_rows=loso_rows,
                           loso_table=loso_table, time_rows=time_rows, rows=rows))
    files.append(notes)
    result.update(files=files, seconds=meta["seconds"])
    return result


def rewrite_outputs(out_dir):
    """Re-write the tables, plots and notes of a finished run from its ``records.csv`` (and
    ``leave_site_out_records.csv``) and ``run.json``, without re-running it."""
    with open(os.path.join(out_dir, "run.json")) as f:
        meta = json.load(f)
    loso = os.path.join(out_dir, "leave_site_out_records.csv")
    return write_outputs(out_dir, _read_records(os.path.join(out_dir, "records.csv")), meta,
                         _read_records(loso) if os.path.exists(loso) else ())


def _read_records(path):
    with open(path, newline="") as f:
        records = []
        for r in csv.DictReader(f):
            rec = {k: r[k] for k in KEYS}
            rec.update(repeat=int(r["repeat"]), fold=int(r["fold"]),
                       converged=r["converged"] == "True")
            rec.update({v: float(r[v]) for v in list(METRICS) + [TIME, CPU] if v in r})
            if "site" in r:
                rec["site"] = r["site"]
            records.append(rec)
    return records


def _write_site_table(site_rows, stem, heading=None):
    models = list(dict.fromkeys(r["model"] for r in site_rows))
    kinds = list(dict.fromkeys(r["features"] for r in site_rows))
    sites = list(dict.fromkeys(r["site"] for r in site_rows))
    n = {r["site"]: r["subjects"] for r in site_rows}
    acc = {(r["features"], r["model"], r["site"]): r["accuracy"] for r in site_rows}
    lines = ["| features | site | subjects | " + " | ".join(models) + " |",
             "|---|---|---|" + "---|" * len(models)]
    for kind in kinds:
        for site in sites:
            lines.append(f"| {kind} | {site} | {n[site]} | " + " | ".join(
                f"{acc[(kind, m, site)]:.3f}" if (kind, m, site) in acc else "—"
                for m in models) + " |")
    with open(stem + ".md", "w") as f:
        f.write((f"{heading}\n\n" if heading else "") + "\n".join(lines) + "\n")
    with open(stem + ".csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["features", "model", "site", "subjects",
                                               "accuracy"])
        writer.writeheader()
        writer.writerows(site_rows)
    return "\n".join(lines)


def _write_records(records, path, site=False):
    columns = (list(KEYS) + ["repeat", "fold"] + (["site"] if site else []) + list(METRICS)
               + [TIME] + ([CPU] if records and CPU in records[0] else []) + ["converged"])
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows({c: r[c] for c in columns} for r in records)


def _row(rows, key):
    for row in rows:
        if tuple(row[k] for k in KEYS) == key:
            return row
    raise KeyError(key)


def _plot_title(meta):
    mode = "quick" if meta["quick"] else "full"
    if meta["data_dir"] is None:
        return f"Synthetic subjects ({mode} run, seed {meta['seed']})"
    d = next(iter(meta["data"].values()))
    return (f"{next(iter(meta['data']))}: {d['subjects']} subjects, {d['sites']} sites, atlas "
            f"{meta.get('atlas')} ({mode} run, {meta['settings']['n_splits']}-fold CV)")


def _log_ticks(ax):
    """Readable log-scale x ticks: 1-2-5 per decade as plain numbers, no minor labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())


def plot_accuracy_time(rows, time_rows, path, models=MODELS, title=None, chance=None):
    """The paper's Fig. 4: mean accuracy against mean training time (log x), one point per
    model with ± 1 sd bars (the footer says so), one panel per (data set, features), the chance
    level dotted and named in the panel's title; ``chance``: {data set: majority share}
    (default 0.5). False without matplotlib."""
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return False
    chance = chance or {}
    sets = list(dict.fromkeys(r["data set"] for r in rows))
    feats = list(dict.fromkeys(r["features"] for r in rows))
    height = 3.6 * len(sets) + 1.6
    fig, axes = plt.subplots(len(sets), len(feats), figsize=(4.8 * len(feats) + 0.4, height),
                             squeeze=False)
    fig.subplots_adjust(left=0.1, right=0.97, bottom=1.05 / height, top=1 - 1.05 / height,
                        wspace=0.28, hspace=0.42)
    fig.text(0.5, 0.06 / height, "points: means over the folds;\nbars: ± 1 sd over the folds "
             "(vertical: accuracy, horizontal: training time)", ha="center", va="bottom",
             fontsize=8, color="dimgrey", linespacing=1.3)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, s in enumerate(sets):
        for j, feat in enumerate(feats):
            ax = axes[i][j]
            for c, m in enumerate(models):
                try:
                    acc, t = _row(rows, (s, feat, m)), _row(time_rows, (s, feat, m))
                except KeyError:
                    continue
                clock = CPU if CPU + "_mean" in t else TIME
                x, xs = t[clock + "_mean"], t[clock + "_std"]
                low = min(xs, 0.9 * x)  # keep the bar inside the log axis
                ax.errorbar([x], [acc["accuracy_mean"]], yerr=[[acc["accuracy_std"]]] * 2,
                            xerr=[[low], [xs]], fmt="o", capsize=3, label=m,
                            color=colors[c % len(colors)])
            level = chance.get(s, 0.5)  # named in the title, not beside the points
            ax.axhline(level, color="grey", lw=0.8, ls=":", label="chance (dotted)")
            ax.set_xscale("log")
            _log_ticks(ax)
            ax.set_ylim(0.0, 1.05)
            ax.set_title(f"{s}, {feat} (chance {level:.3f})", fontsize=10)
            ax.set_xlabel("training time per fit (s, one thread"
                          + (", CPU)" if CPU + "_mean" in time_rows[0] else ")"))
            ax.set_ylabel("accuracy")
            ax.grid(alpha=0.3, which="both")
    legend = {}  # every panel's models (a model may run on some feature kinds only)
    for ax in axes.ravel():
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    labels = sorted(legend, key=lambda m: (m != "chance (dotted)",
                                           models.index(m) if m in models else 0))
    handles = [legend[m] for m in labels]
    fig.legend(handles, labels, loc="upper center", ncol=min(len(labels), 5), fontsize=8,
               frameon=False, bbox_to_anchor=(0.5, 1 - 0.3 / height))
    if title:
        fig.suptitle(title, fontsize=10, y=1 - 0.08 / height)
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return True


def plot_per_site(site_rows, path, models, title=None):
    """Out-of-fold CV accuracy per site as a heat map, sites (rows, by size) × models
    (columns), the accuracy printed in each cell; one panel per feature kind. ``site_rows``:
    the rows of ``per_site.csv`` (features, model, site, subjects, accuracy). False without
    matplotlib."""
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return False
    kinds = list(dict.fromkeys(r["features"] for r in site_rows))
    models = [m for m in models if any(r["model"] == m for r in site_rows)]
    n = {r["site"]: int(r["subjects"]) for r in site_rows}
    sites = sorted(n, key=lambda s: (-n[s], s))
    acc = {(r["features"], r["model"], r["site"]): float(r["accuracy"]) for r in site_rows}
    height = 0.3 * len(sites) + 1.9
    fig, axes = plt.subplots(1, len(kinds), figsize=(0.75 * len(models) * len(kinds) + 2.6,
                                                     height), squeeze=False)
    for ax, kind in zip(axes[0], kinds):
        grid = np.array([[acc.get((kind, m, s), np.nan) for m in models] for s in sites])
        image = ax.imshow(grid, cmap="RdYlGn", vmin=0.3, vmax=0.9, aspect="auto")
        for (row, col), value in np.ndenumerate(grid):
            if np.isfinite(value):
                ax.text(col, row, f"{value:.2f}", ha="center", va="center", fontsize=7,
                        color="white" if value < 0.38 or value > 0.82 else "black")
            else:
                ax.text(col, row, "not run", ha="center", va="center", fontsize=6,
                        color="grey")
        ax.set_xticks(np.arange(len(models)))
        ax.set_xticklabels(models, fontsize=8, rotation=30, ha="right")
        ax.set_yticks(np.arange(len(sites)))
        ax.set_yticklabels([f"{s} ({n[s]})" for s in sites], fontsize=7)
        ax.set_title(f"{kind} features", fontsize=9)
        ax.tick_params(length=0)
    bar = fig.colorbar(image, ax=list(axes[0]), fraction=0.04, pad=0.02)
    bar.set_label("out-of-fold accuracy (0.5: chance)", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    fig.suptitle(title or "CV accuracy per site (out-of-fold), sites by size (subjects)",
                 fontsize=10, y=0.88 + 0.45 / height)  # 0.45 in above the panels (top 0.88)
    fig.savefig(path, dpi=110, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    return True


def read_per_site(path):
    """The rows of a ``per_site.csv`` (what :func:`plot_per_site` draws)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def plot_leave_site_out(loso_records, path, all_models=None):
    """Accuracy on each held-out site (leave-one-site-out), one marker per model, coloured by
    the model's place in ``all_models`` (the run's models) as in the accuracy-vs-time plot,
    so a model keeps its colour when some (the DNN) are left out here."""
    plt = pyplot()
    if plt is None:  # pragma: no cover
        return False
    kinds = list(dict.fromkeys(r["features"] for r in loso_records))
    models = list(dict.fromkeys(r["model"] for r in loso_records))
    order = list(all_models or []) + [m for m in models if m not in (all_models or [])]
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    sites = sorted(dict.fromkeys(r["site"] for r in loso_records))
    fig, axes = plt.subplots(len(kinds), 1, figsize=(max(8, 0.55 * len(sites) + 2),
                                                     3.4 * len(kinds) + 0.6), squeeze=False)
    for ax, kind in zip(axes[:, 0], kinds):
        for k, m in enumerate(models):
            acc = {r["site"]: r["accuracy"] for r in loso_records
                   if r["features"] == kind and r["model"] == m}
            mean = np.mean(list(acc.values()))
            ax.plot(np.arange(len(sites)) + 0.08 * (k - len(models) / 2),
                    [acc[s] for s in sites], "o", ms=4, label=f"{m} (mean {mean:.3f})",
                    color=colors[order.index(m) % len(colors)])
        ax.axhline(0.5, color="grey", lw=0.8, ls=":")
        ax.set_xticks(np.arange(len(sites)))
        ax.set_xticklabels(sites, fontsize=7, rotation=45, ha="right")
        ax.set_ylim(0, 1)
        ax.set_ylabel("accuracy on the held-out site")
        ax.set_title(f"Leave one site out, {kind}", fontsize=10)
        ax.legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return True


def _model_lines(meta, t):
    return [fill(t, "model", model=name, description=meta["descriptions"][name],
                 why=f" — {WHY[name]}" if name in WHY else "") for name in meta["models"]]


def _data_lines(meta, t):
    lines = []
    for name, d in meta["data"].items():
        feats = ", ".join(f"{f}: {n} features" for f, n in d["features"].items())
        excluded = f"; {d['excluded']} subject(s) excluded" if d["excluded"] else ""
        if d.get("missing"):
            excluded += f"; {d['missing']} phenotype row(s) without a file"
        if meta["data_dir"] is None:
            shape = f"{d['rois']} ROIs × {d['length']} time points"
        elif d.get("kind") == "alff table":
            shape = (f"{d['rois']} AAL regions, one ALFF value each; subjects per site "
                     + ", ".join(f"{s}: {n}" for s, n in d["per_site"].items()))
        else:
            low, mid, high = d["lengths"]
            shape = (f"{d['rois']} ROIs, series of {low}-{high} time points (median {mid}), "
                     "each used whole")
        of = (f" (a subsample, stratified by site × diagnosis, of {d['of_subjects']})"
              if d.get("of_subjects", d["subjects"]) > d["subjects"] else "")
        lines.append(fill(t, "data_set", data_set=name, subjects=d["subjects"], of=of,
                          patients=d["patients"], sites=d["sites"], shape=shape,
                          features=feats, excluded=excluded))
    return lines


def notes_text(table, checks, records, meta, *, loso_rows=(), loso_table=None, time_rows=(),
               rows=()):
    """notes.md from the template ``notes.md`` beside this file: settings, the table, the
    chance checks and what they say (deterministic apart from the training times quoted for
    real data)."""
    t = read_template(TEMPLATE)
    cfg, seed = meta["settings"], meta["seed"]
    ran = {r["model"] for r in records}
    models = [m for m in meta["models"] if m in ran]  # a model may be left out of a run
    lines = [fill(t, "header"), ""]
    if meta.get("completed"):
        lines += [fill(t, "partial", completed=meta["completed"]), ""]
    lines += [fill(t, "protocol", mode="quick" if meta["quick"] else "full", seed=seed,
                   n_splits=cfg["n_splits"], n_repeats=cfg["n_repeats"]), ""]
    if meta["data_dir"] is None:
        lines += [fill(t, "data_synthetic", seed=seed, n_subjects=cfg["n_subjects"],
                       n_rois=cfg["n_rois"], length_min=cfg["lengths"][0],
                       length_max=cfg["lengths"][1], n_sites=cfg["n_sites"],
                       effect_size=cfg["effect_size"], n_pairs=max(1, cfg["n_rois"] // 10)), ""]
    else:
        where = f" (sites {', '.join(meta['sites'])})" if meta["sites"] else ""
        block = "data_alff" if meta.get("data_kind") == "adhd200" else "data_real"
        lines += [fill(t, block, data_dir=meta["data_dir"], where=where,
                       atlas=meta.get("atlas")), ""]
    lines += _data_lines(meta, t)
    lines += ["", fill(t, "models")] + _model_lines(meta, t)
    threads = (f"every fit limited to {meta['threads']} BLAS/Numba thread(s)"
               if meta.get("threads") else "library default threads")
    lines += ["", fill(t, "results", table=table, threads=threads, models=" | ".join(models),
                       columns="---|" * len(models))]
    pairs = list(dict.fromkeys((k[0], k[1]) for k in checks))
    for name, feat in pairs:
        cells = []
        for m in models:
            c = checks.get((name, feat, m))
            if c is None:  # a model left out on this feature kind
                cells.append("—")
                continue
            verdict = ("above" if c["above_chance"] else
                       "below" if c["below_chance"] else "chance")
            cells.append(f"{c['accuracy']:.3f} ({verdict})")
        lines.append(f"| {name} | {feat} | " + " | ".join(cells) + " |")
    lines += ["", fill(t, "findings"), ""]
    for name, feat in pairs:
        kind_models = [m for m in models if (name, feat, m) in checks]
        above = [m for m in kind_models if checks[(name, feat, m)]["above_chance"]]
        below = [m for m in kind_models if checks[(name, feat, m)]["below_chance"]]
        lines.append(fill(t, "finding", data_set=name, features=feat,
                          above=", ".join(above) if above else "none",
                          below=f"; below chance: {', '.join(below)}" if below else ""))
    if meta["data_dir"] is None:
        lines += ["", fill(t, "synthetic_effect")]
    else:
        lines += real_data_notes(meta, rows, time_rows, loso_rows, loso_table, t)
    unconverged = {}
    for r in records:
        if not r["converged"]:
            unconverged[r["model"]] = unconverged.get(r["model"], 0) + 1
    if unconverged:
        fits = {m: sum(r["model"] == m for r in records) for m in unconverged}
        lines += ["", fill(t, "convergence", warnings=", ".join(
            f"{m} in {n} of {fits[m]} fits" for m, n in unconverged.items()))]
    lines += ["", fill(t, "differences"), ""]
    return "\n".join(lines)


def timings_text(time_table, time_rows, total, models):
    """timings.md from the template: the table and the DNN/fastelm training-time ratios (the
    DNN's time on the same features, else on connectivity features when the DNN is left
    out of a kind: its cost depends on the input width, the same 19900 for both)."""
    t = read_template(TEMPLATE)
    clock = CPU if time_rows and CPU + "_mean" in time_rows[0] else TIME
    lines = [fill(t, "timings", total=f"{total:.1f}", table=time_table,
                  clock_note=fill(t, "cpu_note") if clock == CPU else ""), ""]
    fast = [m for m in FASTELM_MODELS if m in models]
    if fast and "DNN" in models:
        claim = []
        for row in time_rows:
            if row["model"] not in fast:
                continue
            dnn, dnn_kind = _dnn_time(time_rows, row["data set"], row["features"], clock)
            if dnn is None:
                continue
            ratio = dnn / max(row[clock + "_mean"], 1e-12)
            claim.append(fill(t, "claim_row", data_set=row["data set"], features=row["features"],
                              model=row["model"], seconds=f"{row[clock + '_mean']:.3f}",
                              dnn=f"{dnn:.3f}", ratio=f"{ratio:.1f}",
                              dnn_features="" if dnn_kind == row["features"] else
                              f" (on {dnn_kind} features)"))
        if claim:
            lines += [fill(t, "claim")] + claim + [""]
    return "\n".join(lines)


def _dnn_time(time_rows, name, kind, clock):
    """(mean DNN time, its feature kind) on ``kind``, else on connectivity features."""
    for k in (kind, "connectivity"):
        found = _mean_of(time_rows, (name, k, "DNN"), clock)
        if found is not None:
            return found[0], k
    return None, None


def _mean_of(rows, key, field="accuracy"):
    for row in rows:
        if tuple(row[k] for k in KEYS) == key:
            return row[field + "_mean"], row[field + "_std"]
    return None


def target_checks(meta, rows, time_rows, loso_rows):
    """[(target, figure, threshold, met)] of the development-set targets (TARGETS)."""
    name = next(iter(meta["data"]))
    kinds = [k for k in dict.fromkeys(r["features"] for r in rows)
             if k in ("connectivity", "correlation", "tangent")]
    out = []

    def best(models, rws, kinds_):
        cands = [(r["accuracy_mean"], r["features"], r["model"]) for r in rws
                 if r["model"] in models and r["features"] in kinds_ and r["data set"] == name]
        return max(cands) if cands else None

    def ratio(kind, model, rws=time_rows):
        clock = CPU if time_rows and CPU + "_mean" in time_rows[0] else TIME
        t = _mean_of(rws, (name, kind, model), clock)
        dnn, _ = _dnn_time(time_rows, name, kind, clock)
        return None if t is None or dnn is None else dnn / max(t[0], 1e-12)

    b = best(FASTELM_MODELS, rows, kinds)
    if b is not None:
        acc, kind, model = b
        logreg = _mean_of(rows, (name, kind, "logistic l2"))
        out.append((f"best fastelm model ({model}, {kind}) ≥ {TARGETS['best fastelm']}",
                    acc, acc >= TARGETS["best fastelm"]))
        if logreg is not None:
            out.append((f"{model} not below l2 logistic regression ({logreg[0]:.3f}) on "
                        f"{kind}", acc, acc >= logreg[0]))
        r = ratio(kind, model)
        if r is not None:
            out.append((f"{model} trains ≥ {TARGETS['speed-up']:g}× faster than the DNN",
                        r, r >= TARGETS["speed-up"]))
    b = best(("BLS-CV",), rows, kinds)
    if b is not None:
        out.append((f"BLS-CV ({b[1]}) ≥ {TARGETS['BLS-CV']}", b[0], b[0] >= TARGETS["BLS-CV"]))
        r = ratio(b[1], "BLS-CV")
        if r is not None and not any(what.startswith("BLS-CV trains") for what, _, _ in out):
            out.append((f"BLS-CV trains ≥ {TARGETS['speed-up']:g}× faster than the DNN", r,
                        r >= TARGETS["speed-up"]))
    b = best(FASTELM_MODELS, loso_rows, kinds)
    if b is not None:
        out.append((f"leave-site-out, best fastelm model ({b[2]}, {b[1]}) ≥ "
                    f"{TARGETS['leave-site-out']}", b[0], b[0] >= TARGETS["leave-site-out"]))
    return out


def real_data_notes(meta, rows, time_rows, loso_rows, loso_table, t=None):
    """The real-data sections of notes.md: leave-site-out, per site, permutation test, the
    literature and the targets."""
    t = t or read_template(TEMPLATE)
    lines = []
    if loso_table:
        lines += ["", fill(t, "loso", table=loso_table)]

    def counts(key):
        return "; ".join(f"{k}: " + ", ".join(f"{_fmt(v)}: {n}" for v, n in sorted(
            c.items(), key=lambda kv: _order(kv[0]))) for k, c in meta[key].items())

    if meta.get("penalties"):
        lines += ["", fill(t, "penalties", penalties=counts("penalties"))]
    if meta.get("direct_links"):
        lines += ["", fill(t, "links", links=counts("direct_links"))]
    if meta.get("site_accuracy"):
        lines += ["", fill(t, "per_site")]
    perm = meta.get("permutation")
    if perm:
        links = " with direct links" if perm.get("direct_links") else ""
        fixed = (fill(t, "permutation_fixed", reg=f"{perm['reg']:g}", links=links)
                 if perm["model"] == "BLS-CV" else "")
        lines += ["", fill(t, "permutation", model=perm["model"], fixed=fixed,
                           features=perm["features"], accuracy=f"{perm['accuracy']:.3f}",
                           n_permutations=perm["n_permutations"],
                           permuted_mean=f"{perm['permuted_mean']:.3f}",
                           permuted_max=f"{perm['permuted_max']:.3f}",
                           pvalue=f"{perm['pvalue']:.4f}",
                           smallest=f"{1 / (1 + perm['n_permutations']):.4f}")]
    name = next(iter(meta["data"]))
    if meta.get("data_kind") == "adhd200":  # the literature and targets are ABIDE I's
        if loso_table:
            lines += ["", fill(t, "transfer")]
        return lines + ["", fill(t, "no_tuning_alff", data_set=name)]
    lines += ["", fill(t, "literature")]
    lines += [fill(t, "literature_row", source=who, method=how, accuracy=f"{acc:.2f}")
              for who, how, acc in LITERATURE]
    for r in rows:
        if r["model"] in FASTELM_MODELS + ("logistic l2", "DNN"):
            lines.append(fill(t, "literature_row", source="this run",
                              method=f"{r['model']}, {r['features']} features, "
                                     f"{meta['settings']['n_splits']}-fold CV",
                              accuracy=f"{r['accuracy_mean']:.3f}"))
    for r in loso_rows:
        if r["model"] in FASTELM_MODELS + ("logistic l2",):
            lines.append(fill(t, "literature_row", source="this run",
                              method=f"{r['model']}, {r['features']} features, leave one "
                                     "site out", accuracy=f"{r['accuracy_mean']:.3f}"))
    checks = target_checks(meta, rows, time_rows, loso_rows)
    if checks:
        lines += ["", fill(t, "targets")]
        lines += [fill(t, "target_row", target=what, figure=f"{fig:.3f}",
                       met="yes" if ok else "no") for what, fig, ok in checks]
        missed = [what for what, _, ok in checks if not ok]
        lines += ["", fill(t, "targets_missed", missed="; ".join(missed)) if missed else
                  fill(t, "targets_met")]
    lines += ["", fill(t, "no_tuning", data_set=name)]
    return lines


def _fmt(value):
    """A chosen value as written in run.json's counts ('0.01', 'True') for the notes."""
    try:
        return f"{float(value):g}"
    except ValueError:
        return value


def _order(value):
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)
