"""Drifting streams: OS-ELM with forgetting or a sliding window against river's learners.

    python benchmarks/bench_streams.py                      # 100k rows per stream (slow: ARF)
    python benchmarks/bench_streams.py --streams agrawal    # one stream (run several at once)
    python benchmarks/bench_streams.py --report             # tables and plot of those runs
    python benchmarks/bench_streams.py --select --rows 30000   # the settings' grid, seed 0
    python benchmarks/bench_streams.py --speedup            # fused path vs per-call
    python benchmarks/bench_streams.py --kernel             # the compiled loop's µs/chunk
    python benchmarks/bench_streams.py --draws 10           # OS-ELMs - river LR over 10 draws

Three of river's synthetic streams (``river.datasets.synth``), seeded:

* ``hyperplane``: rotating hyperplane, 10 features, 2 of them drifting (mag_change 0.001,
  5% label noise): a gradual drift all along;
* ``sea``: SEA concepts with 10% label noise, an abrupt drift from concept 0 to concept 3 at
  the middle row;
* ``agrawal``: Agrawal's loan function 0 changing to function 2 at the middle row (a
  sigmoid drift 1000 rows wide, ``ConceptDriftStream``).

Every learner sees the same rows in the same process, test-then-train in chunks of 100
(``fastelm.stream.prequential``, its fused path for the OS-ELMs: the first chunk is only
learned). fastelm's OS-ELMs take the inputs standardised with the first chunk's mean and
deviation (the only rows seen before learning starts) and divided by √d, so that XW has the
same spread (variance 1/3 for W ~ U(-1, 1)) whatever the number of features d; river's
learners take the raw rows as ``dict``s prepared before timing, one row at a time
(``learn_one``, ``predict_one``), its logistic regression behind its own online
``StandardScaler``. BLAS and Numba run on one thread for everyone (river is single-threaded).

The OS-ELM settings (``SETTINGS``: the layer — direct links or not, hidden nodes, activation
—, alpha, the loss, and λ or the window) are chosen per stream by ``--select``: prequential
accuracy of every point of ``GRID`` on 30000 rows drawn with seed 0, the most accurate point
kept (``choose``); the benchmark then draws its streams with seed 10, so the settings never
saw the rows they are scored on. The plain OS-ELM row uses the forgetting model's layer and
loss without forgetting; the "squared loss" row is the grid's best forgetting point with the
squared loss. fastelm's rows per second are the fastest of ``REPEATS`` identical runs.

Outputs in ``--out``: ``<stream>.npz`` per stream (streams run in separate processes are
joined), ``streams.md`` and ``streams.csv`` (prequential accuracy over the whole stream and
from the drift on, rows per second, speed against each river learner) and
``accuracy_over_time.png`` (accuracy over the last 1000 rows); ``--select`` writes
``selection.csv``.

The asv classes at the bottom time the OS-ELM variants on 10000 rows of each stream and track
their accuracy after the drift; they are skipped when river is not installed.
"""
import argparse
import csv
import importlib.util
import itertools
import sys
from pathlib import Path

import numpy as np

try:
    import fastelm  # noqa: F401
except ModuleNotFoundError:  # a source tree without an install: benchmark this work tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fastelm import OSELMClassifier  # noqa: E402
from fastelm.stream import prequential  # noqa: E402

STREAMS = ("hyperplane", "sea", "agrawal")
CHUNK = 100
#: the input-weight scale of the selection grid: U(-1, 1), as docs/results/streams was made
#: (before the 1/sqrt(d) default), so a rerun reproduces the saved tables
WEIGHT_SCALE = 1.0
# fastelm's learners are timed as the fastest of REPEATS runs: a run of 100000 rows takes
# 0.005 to 0.6 s, where one pause of the scheduler on a loaded machine weighs; river's learners
# (seconds to hours per run) once
REPEATS = 10
WINDOW = 1000  # rows in the plotted sliding accuracy
SELECTION_SEED = 0
# the grid searched by --select: (direct_links, n_hidden, activation) layers, alpha, loss,
# and the memories; (True, 1, "linear") is a linear model with an intercept (the inputs and
# one linear node x·w + b)
GRID = {"layer": [(links, L, "tanh") for links in (False, True) for L in (3, 10, 50, 200)]
        + [(True, 1, "linear")],
        "alpha": [0.1, 1.0, 10.0], "loss": ["squared", "logistic"],
        "memory": {"forgetting_factor": [0.998, 0.999, 0.9995, 0.9998],
                   "window": [1000, 2000, 5000, 10000]}}
# choose(select()) on 30000 rows of each stream drawn with SELECTION_SEED (the benchmark draws
# with seed 10): (direct_links, n_hidden, activation, alpha, loss, λ or window), random_state
# 0; docs/results/streams/selection.csv holds every point's accuracy
SETTINGS = {
    "hyperplane": {"forgetting_factor": (True, 1, "linear", 1.0, "logistic", 0.999),
                   "window": (True, 1, "linear", 0.1, "logistic", 2000),
                   "squared": (True, 1, "linear", 1.0, "squared", 0.999)},
    "sea": {"forgetting_factor": (True, 1, "linear", 0.1, "logistic", 0.999),
            "window": (True, 1, "linear", 0.1, "logistic", 2000),
            "squared": (True, 1, "linear", 10.0, "squared", 0.9995)},
    "agrawal": {"forgetting_factor": (True, 200, "tanh", 0.1, "logistic", 0.9995),
                "window": (True, 200, "tanh", 0.1, "logistic", 5000),
                "squared": (True, 200, "tanh", 0.1, "squared", 0.999)},
}
# "squared": the best forgetting point of the grid with the squared loss (the OS-ELM's own)


def make_stream(name, n_rows, seed=0):
    """(X as an array, the same rows as river dicts, labels, drift row) of one stream."""
    from river.datasets import synth

    half = n_rows // 2
    if name == "hyperplane":
        parts = [synth.Hyperplane(seed=seed + 1, n_features=10, n_drift_features=2,
                                  mag_change=0.001, noise_percentage=0.05, sigma=0.1)]
        sizes = [n_rows]
    elif name == "sea":
        parts = [synth.SEA(variant=0, noise=0.1, seed=seed + 1),
                 synth.SEA(variant=3, noise=0.1, seed=seed + 2)]
        sizes = [half, n_rows - half]
    elif name == "agrawal":
        parts = [synth.ConceptDriftStream(synth.Agrawal(0, seed=seed + 1),
                                          synth.Agrawal(2, seed=seed + 2), position=half,
                                          width=1000, seed=seed + 3)]
        sizes = [n_rows]
    else:
        raise ValueError(f"stream {name!r} is not one of {STREAMS}")
    rows = [row for part, size in zip(parts, sizes) for row in itertools.islice(part, size)]
    dicts = [x for x, _ in rows]
    X = np.array([list(x.values()) for x in dicts], dtype=np.float64)
    y = np.array([int(label) for _, label in rows])
    return X, dicts, y, half


class RiverLearner:
    """A river classifier behind ``predict``/``partial_fit``; X holds row indices into the
    stream's dicts, prepared before timing."""

    def __init__(self, model, dicts):
        self.model, self.dicts = model, dicts

    def predict(self, index):
        predict_one = self.model.predict_one
        return np.array([predict_one(self.dicts[i]) for i in index[:, 0]])

    def partial_fit(self, index, y, classes=None):
        learn_one = self.model.learn_one
        for i, label in zip(index[:, 0], y.tolist()):
            learn_one(self.dicts[i], label)
        return self


def river_prequential(model, dicts, y, **kwargs):
    """``prequential`` of a river classifier on a stream's rows (as dicts)."""
    return prequential(RiverLearner(model, dicts), np.arange(len(y))[:, None], y,
                       chunk_size=CHUNK, **kwargs)


def fastelm_learners(stream):
    """{label: (settings, maker)} of the OS-ELMs on one stream: ``SETTINGS[stream]``'s
    forgetting and window models, the plain OS-ELM with the forgetting model's layer and loss,
    and the best forgetting model with the squared loss."""
    forgetting, window = SETTINGS[stream]["forgetting_factor"], SETTINGS[stream]["window"]
    squared = SETTINGS[stream]["squared"]

    def model(point, **memory):
        links, L, activation, alpha, loss, _ = point
        return lambda: OSELMClassifier(n_hidden=L, activation=activation, alpha=alpha,
                                       direct_links=links, loss=loss, random_state=0,
                                       weight_scale=WEIGHT_SCALE, **memory)

    def text(point, memory=""):
        links, L, activation, alpha, loss, _ = point
        layer = f"L={L}" + ("" if activation == "tanh" else f" {activation}")
        return (f"{layer}, alpha={alpha:g}{', direct links' if links else ''}"
                f"{', logistic' if loss == 'logistic' else ''}{memory}")

    return {
        "OS-ELM": (text(forgetting), model(forgetting)),
        "OS-ELM, forgetting": (text(forgetting, f", λ={forgetting[-1]:g}"),
                               model(forgetting, forgetting_factor=forgetting[-1])),
        "OS-ELM, window": (text(window, f", window={window[-1]}"),
                           model(window, window=window[-1])),
        "OS-ELM, forgetting, squared loss": (text(squared, f", λ={squared[-1]:g}"),
                                             model(squared, forgetting_factor=squared[-1])),
    }


def river_learners():
    from river import forest, linear_model, preprocessing, tree

    return {
        "river LogisticRegression": lambda: preprocessing.StandardScaler()
        | linear_model.LogisticRegression(),
        "river HoeffdingAdaptiveTree": lambda: tree.HoeffdingAdaptiveTreeClassifier(seed=0),
        "river ARF": lambda: forest.ARFClassifier(seed=0),
    }


def single_threaded():
    """A context running BLAS and Numba on one thread (river runs on one)."""
    from fastelm._ridge import serial_blas_if_small

    return serial_blas_if_small(0, numba_threads=True)


def warm_up():
    """Compile (or load from Numba's cache) the kernels before anything is timed."""
    rng = np.random.default_rng(0)
    X, y = rng.standard_normal((300, 3)), np.arange(300) % 2
    for memory in ({}, {"forgetting_factor": 0.99}, {"window": 150}):
        prequential(OSELMClassifier(n_hidden=5, loss="logistic", **memory), X, y)
        prequential(OSELMClassifier(n_hidden=5, **memory), X, y, fused=False)


def scale_inputs(X):
    """(X − mean) / (sd·√d) with the first chunk's column means and deviations."""
    sd = X[:CHUNK].std(axis=0)
    return (X - X[:CHUNK].mean(axis=0)) / (np.where(sd > 0, sd, 1.0) * np.sqrt(X.shape[1]))


def run_stream(name, n_rows, learners, seed=0, log=print):
    """{learner: (settings, PrequentialResult)} on one stream, and its drift row."""
    X, dicts, y, drift = make_stream(name, n_rows, seed)
    scaled = scale_inputs(X)
    results = {}
    makers = fastelm_learners(name)
    if learners != "fastelm":
        makers.update({label: ("", make) for label, make in river_learners().items()})
    for label, (settings, make) in makers.items():
        river = label.startswith("river")
        runs = []
        for _ in range(1 if river else REPEATS):  # the same predictions every run
            runs.append(river_prequential(make(), dicts, y, window=WINDOW) if river else
                        prequential(make(), scaled, y, chunk_size=CHUNK, window=WINDOW))
        r = min(runs, key=lambda run: run.seconds)
        results[label] = (settings, r)
        log(f"{name:10s} {label:30s} accuracy {r.mean_accuracy():.4f}  after drift "
            f"{r.mean_accuracy(drift):.4f}  {r.rows_per_second:10.0f} rows/s")
    return results, drift


def save_stream(out, name, results, drift, n_rows):
    """``<name>.npz`` in ``out``: each learner's settings, accuracy over the whole stream and
    after the drift, rows/s and accuracy curve (streams run in separate processes are then
    joined by ``write_outputs``)."""
    out.mkdir(parents=True, exist_ok=True)
    labels = list(results)
    np.savez(out / f"{name}.npz", labels=np.array(labels), n_rows=n_rows, drift=drift,
             settings=np.array([results[k][0] for k in labels]),
             accuracy=[results[k][1].mean_accuracy() for k in labels],
             after=[results[k][1].mean_accuracy(drift) for k in labels],
             rows_per_second=[results[k][1].rows_per_second for k in labels],
             rows=results[labels[0]][1].rows,
             curves=np.array([results[k][1].accuracy for k in labels]))


def write_outputs(out):
    """streams.md, streams.csv and accuracy_over_time.png from every ``<stream>.npz`` in out."""
    saved = {name: np.load(out / f"{name}.npz") for name in STREAMS
             if (out / f"{name}.npz").exists()}
    n_rows = sorted({int(f["n_rows"]) for f in saved.values()})
    lines = [["stream", "learner", "settings", "accuracy", "accuracy_after_drift",
              "rows_per_second"]]
    md = [f"Prequential accuracy (test-then-train, chunks of {CHUNK}, first chunk not scored), "
          f"{'/'.join(map(str, n_rows))} rows per stream; 'after drift' = rows from the drift on "
          "(hyperplane: the second half). Speed: rows predicted and learned per second, one "
          "thread each, same process (fastelm: `fastelm.stream.prequential`'s fused path). "
          f"OS-ELM settings chosen on seed {SELECTION_SEED} (`--select`), streams drawn with "
          "another seed.", "",
          "| stream | learner | settings | accuracy | after drift | rows/s | × river LR | "
          "× river HAT | × river ARF |", "|---|---|---|---|---|---|---|---|---|"]
    for name, f in saved.items():
        labels = [str(k) for k in f["labels"]]
        speed = dict(zip(labels, f["rows_per_second"]))
        for i, label in enumerate(labels):
            acc, after, rps = f["accuracy"][i], f["after"][i], f["rows_per_second"][i]
            settings = str(f["settings"][i])
            lines.append([name, label, settings, f"{acc:.4f}", f"{after:.4f}", f"{rps:.0f}"])
            ratios = [rps / speed[k] if k in speed else float("nan") for k in
                      ("river LogisticRegression", "river HoeffdingAdaptiveTree", "river ARF")]
            md.append(f"| {name} | {label} | {settings} | {acc:.4f} | {after:.4f} | "
                      f"{rps:,.0f} | " + " | ".join(f"{q:.1f}" for q in ratios) + " |")
    with open(out / "streams.csv", "w", newline="") as fh:
        csv.writer(fh).writerows(lines)
    (out / "streams.md").write_text("\n".join(md) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no accuracy_over_time.png written")
        return
    fig, axes = plt.subplots(len(saved), 1, figsize=(10, 3.2 * len(saved)), squeeze=False)
    for ax, (name, f) in zip(axes[:, 0], saved.items()):
        for label, curve in zip(f["labels"], f["curves"]):
            ours = "OS-ELM" in str(label)
            ax.plot(f["rows"], curve, label=str(label), lw=1.2 if ours else 0.9,
                    ls="-" if ours else "--")
        if name != "hyperplane":
            ax.axvline(int(f["drift"]), color="grey", lw=0.8, ls=":", label="drift")
        ax.set_title(f"{name}: accuracy over the last {WINDOW} rows (prequential)")
        ax.set_xlabel("rows seen")
        ax.set_ylabel("accuracy")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "accuracy_over_time.png", dpi=110)
    plt.close(fig)


def select(n_rows=30_000, seed=SELECTION_SEED, streams=STREAMS, log=print):
    """Prequential accuracy of every point of ``GRID`` on a draw of each stream with another
    seed than the benchmark's: rows of (stream, direct_links, n_hidden, activation, alpha,
    loss, memory kind, memory, accuracy, rows/s)."""
    rows = []
    for name in streams:
        X, _, y, _ = make_stream(name, n_rows, seed)
        X = scale_inputs(X)
        for (links, L, activation), alpha, loss in itertools.product(
                GRID["layer"], GRID["alpha"], GRID["loss"]):
            for kind, values in GRID["memory"].items():
                for value in values:
                    model = OSELMClassifier(n_hidden=L, activation=activation, alpha=alpha,
                                            direct_links=links, loss=loss, random_state=0,
                                            weight_scale=WEIGHT_SCALE, **{kind: value})
                    r = prequential(model, X, y, chunk_size=CHUNK)
                    rows.append((name, links, L, activation, alpha, loss, kind, value,
                                 r.mean_accuracy(), r.rows_per_second))
                    log(f"{name:10s} direct_links={links!s:5s} L={L:3d} {activation:6s} "
                        f"alpha={alpha:<4g} {loss:8s} {kind}={value:<6g} "
                        f"accuracy {r.mean_accuracy():.4f}")
    return rows


def choose(rows):
    """{stream: {memory kind: (direct_links, n_hidden, activation, alpha, loss, value)}}: the
    most accurate point (the fewest hidden nodes among ties to 4 decimals)."""
    best = {}
    for name, links, L, activation, alpha, loss, kind, value, acc, _ in rows:
        key = (round(acc, 4), -L)
        if key > best.get((name, kind), ((-1, 0), None))[0]:
            best[name, kind] = (key, (links, L, activation, alpha, loss, value))
    chosen = {}
    for (name, kind), (_, point) in best.items():
        chosen.setdefault(name, {})[kind] = point
    return chosen


def speedup(n_rows=20_000, stream="hyperplane", log=print):
    """Rows/s of the fused path over ``predict`` + ``partial_fit`` per chunk (``fused=False``),
    for L = 200 and 20, plain, forgetting 0.999 and window 2000."""
    X, _, y, _ = make_stream(stream, n_rows, 10)
    X = scale_inputs(X)
    for L in (200, 20):
        for memory in ({}, {"forgetting_factor": 0.999}, {"window": 2000}):
            speed = [prequential(OSELMClassifier(n_hidden=L, alpha=1.0, random_state=0,
                                                 **memory), X, y, chunk_size=CHUNK,
                                 fused=fused).rows_per_second for fused in (False, True)]
            log(f"L={L:3d} {memory!s:28s} per call {speed[0]:9.0f} rows/s, fused "
                f"{speed[1]:9.0f} rows/s: {speed[1] / speed[0]:.1f} x")


def kernel_floor(n_rows=20_000, repeats=5, log=print):
    """µs per chunk of 100 rows of the compiled prequential loop (best of ``repeats``) against
    its flop floor: one BLAS syrk of the chunk (the Gram update) and one LAPACK Cholesky of the
    L×L system per chunk, timed alone on the same matrices; and river's LogisticRegression on
    the same rows, for the ratio the floor allows."""
    import time

    from scipy.linalg.blas import dsyrk
    from scipy.linalg.lapack import dpotrf

    X, dicts, y, _ = make_stream("hyperplane", n_rows, 10)
    X = scale_inputs(X)
    lr = river_prequential(river_learners()["river LogisticRegression"](), dicts, y)
    log(f"river LogisticRegression: {lr.rows_per_second:.0f} rows/s")
    for links, L, activation in ((True, 1, "linear"), (True, 3, "tanh"), (False, 50, "tanh"),
                                 (False, 200, "tanh")):
        p = L + X.shape[1] * links
        A = np.random.default_rng(0).standard_normal((CHUNK, p))
        K = A.T @ A + np.eye(p)
        floor = []
        for _ in range(repeats):
            tic = time.perf_counter()
            for _ in range(100):
                dsyrk(1.0, A, trans=1)
                dpotrf(K)
            floor.append((time.perf_counter() - tic) / 100)
        for memory in ({"forgetting_factor": 0.999}, {"window": 2000},
                       {"forgetting_factor": 0.999, "loss": "logistic"}):
            best = min(prequential(OSELMClassifier(n_hidden=L, activation=activation,
                                                   direct_links=links, alpha=1.0,
                                                   random_state=0, **memory),
                                   X, y, chunk_size=CHUNK).seconds for _ in range(repeats))
            chunk = best / (n_rows / CHUNK)
            log(f"p={p:3d} {memory!s:46s} {chunk * 1e6:8.1f} µs/chunk "
                f"({n_rows / best:9.0f} rows/s, {n_rows / best / lr.rows_per_second:6.1f} x LR); "
                f"syrk + Cholesky alone {min(floor) * 1e6:7.1f} µs "
                f"({CHUNK / min(floor):9.0f} rows/s, "
                f"{CHUNK / min(floor) / lr.rows_per_second:6.1f} x LR)")


def draws(n_draws, n_rows=100_000, streams=STREAMS, first_seed=10, log=print):
    """Accuracy after the drift of the forgetting and window OS-ELMs and of river's
    LogisticRegression on ``n_draws`` draws of each stream (seeds first_seed, first_seed + 1,
    ...): rows of (stream, seed, learner, accuracy), and per stream and OS-ELM the mean
    paired difference to river LR with its standard error (one draw is one pair)."""
    river_lr = river_learners()["river LogisticRegression"]
    rows, summary = [], []
    for name in streams:
        makers = {label: fastelm_learners(name)[label][1]
                  for label in ("OS-ELM, forgetting", "OS-ELM, window")}
        differences = {label: [] for label in makers}
        for seed in range(first_seed, first_seed + n_draws):
            X, dicts, y, drift = make_stream(name, n_rows, seed)
            scaled = scale_inputs(X)
            lr = river_prequential(river_lr(), dicts, y).mean_accuracy(drift)
            rows.append((name, seed, "river LogisticRegression", lr))
            for label, make in makers.items():
                acc = prequential(make(), scaled, y, chunk_size=CHUNK).mean_accuracy(drift)
                rows.append((name, seed, label, acc))
                differences[label].append(acc - lr)
            log(f"{name:10s} seed {seed}: river LR {lr:.4f}, " + ", ".join(
                f"{label} {lr + differences[label][-1]:.4f}" for label in makers))
        for label, d in differences.items():
            d = np.asarray(d)
            se = d.std(ddof=1) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
            summary.append((name, label, len(d), d.mean(), se, int((d > 0).sum())))
            log(f"{name:10s} {label:20s} - river LR: {100 * d.mean():+.3f} ± {100 * se:.3f} "
                f"points over {len(d)} draws, ahead on {(d > 0).sum()}")
    return rows, summary


def write_draws(out, rows, summary):
    """draws.csv (every accuracy) and draws.md (the paired differences) in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "draws.csv", "w", newline="") as f:
        csv.writer(f).writerows([("stream", "seed", "learner", "accuracy_after_drift")]
                                + [(n, s, lab, a) for n, s, lab, a in rows])
    md = ["Accuracy after the drift minus river LogisticRegression's on the same draw of the "
          "stream (points; mean ± standard error over the draws, seeds from 10; settings as "
          "in streams.md).", "",
          "| stream | learner | draws | difference | ahead on |", "|---|---|---|---|---|"]
    md += [f"| {n} | {lab} | {k} | {100 * m:+.3f} ± {100 * se:.3f} | {ahead} of {k} |"
           for n, lab, k, m, se, ahead in summary]
    (out / "draws.md").write_text("\n".join(md) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows per stream")
    parser.add_argument("--streams", nargs="+", default=list(STREAMS), choices=STREAMS)
    parser.add_argument("--learners", choices=("all", "fastelm"), default="all")
    parser.add_argument("--seed", type=int, default=10, help="seed of the streams")
    parser.add_argument("--out", type=Path, default=Path("docs/results/streams"))
    parser.add_argument("--select", action="store_true",
                        help="only run the settings' grid on seed 0 and write selection.csv")
    parser.add_argument("--speedup", action="store_true",
                        help="only time the fused prequential path against per-call "
                             "predict + partial_fit (20000 rows of the hyperplane)")
    parser.add_argument("--kernel", action="store_true",
                        help="only time the compiled loop per chunk against its flop floor "
                             "(20000 rows of the hyperplane)")
    parser.add_argument("--draws", type=int, default=0, metavar="N",
                        help="only compare the forgetting and window OS-ELMs with river's "
                             "LogisticRegression over N draws of each stream (draws.md)")
    parser.add_argument("--report", action="store_true",
                        help="only rewrite the tables and plot from the <stream>.npz in --out")
    args = parser.parse_args(argv)
    if args.report:
        write_outputs(args.out)
        return
    if importlib.util.find_spec("river") is None:  # the streams are river's: one line, no trace
        sys.exit("bench_streams.py: river is not installed (the streams and the peer learners "
                 "are river's): pip install 'fastelm[stream]'")
    if args.kernel:
        with single_threaded():
            warm_up()
            kernel_floor(min(args.rows, 20_000))
        return
    if args.speedup:
        with single_threaded():
            warm_up()
            speedup(min(args.rows, 20_000))
        return
    if args.draws:
        with single_threaded():
            warm_up()
            rows, summary = draws(args.draws, args.rows, args.streams, args.seed)
        write_draws(args.out, rows, summary)
        print(f"wrote {args.out}/draws.md, draws.csv")
        return
    if args.select:
        with single_threaded():
            warm_up()
            rows = select(args.rows, streams=args.streams)
        args.out.mkdir(parents=True, exist_ok=True)
        with open(args.out / "selection.csv", "w", newline="") as f:
            csv.writer(f).writerows([("stream", "direct_links", "n_hidden", "activation",
                                      "alpha", "loss", "memory", "value", "accuracy",
                                      "rows_per_second")] + rows)
        for name, point in choose(rows).items():
            print(name, point)
        return
    with single_threaded():
        warm_up()
        for name in args.streams:
            results, drift = run_stream(name, args.rows, args.learners, args.seed)
            save_stream(args.out, name, results, drift, args.rows)
            write_outputs(args.out)  # after each stream: a long run
    print(f"wrote {args.out}/streams.md, streams.csv, accuracy_over_time.png")


# --------------------------------------------------------------------------- asv
class TimeDriftingStreams:
    """OS-ELM variants over 10000 rows of each stream, test-then-train in chunks of 100."""

    params = (list(STREAMS), ["OS-ELM", "OS-ELM, forgetting", "OS-ELM, window"])
    param_names = ["stream", "learner"]
    timeout = 300

    def setup(self, stream, learner):
        try:
            X, _, self.y, self.drift = make_stream(stream, 10_000)
        except ImportError:
            raise NotImplementedError("river is not installed") from None
        self.X = scale_inputs(X)
        self.make = fastelm_learners(stream)[learner][1]
        self.threads = single_threaded()
        self.threads.__enter__()

    def teardown(self, stream, learner):
        self.threads.__exit__(None, None, None)

    def time_prequential(self, stream, learner):
        prequential(self.make(), self.X, self.y, chunk_size=CHUNK)

    def track_error_after_drift(self, stream, learner):
        """1 − the prequential accuracy after the drift (lower is better, as asv reads it)."""
        return 1.0 - prequential(self.make(), self.X, self.y, chunk_size=CHUNK).mean_accuracy(
            self.drift)

    track_error_after_drift.unit = "error rate"

    def track_time_per_river_lr_time(self, stream, learner):
        """fastelm's prequential time over river LogisticRegression's on the same 100000 rows
        (the README's benchmark size), in this process, the fastest of REPEATS runs of fastelm
        and of 3 of river: 0.01 is 100 × river's speed (lower is better)."""
        X, dicts, y, _ = make_stream(stream, 100_000)
        X = scale_inputs(X)
        ours = min(prequential(self.make(), X, y, chunk_size=CHUNK).seconds
                   for _ in range(REPEATS))
        river_lr = river_learners()["river LogisticRegression"]
        river = min(river_prequential(river_lr(), dicts, y).seconds for _ in range(3))
        return ours / river

    track_time_per_river_lr_time.unit = "ratio"


if __name__ == "__main__":
    main()
