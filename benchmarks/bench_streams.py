"""Drifting streams: OS-ELM with forgetting or a sliding window against river's learners.

    python benchmarks/bench_streams.py                      # 100k rows per stream (slow: ARF)
    python benchmarks/bench_streams.py --rows 20000 --learners fastelm  # OS-ELM variants only

Three of river's synthetic streams (``river.datasets.synth``), seeded:

* ``hyperplane``: rotating hyperplane, 10 features, 2 of them drifting (mag_change 0.001,
  5% label noise): a gradual drift all along;
* ``sea``: SEA concepts with 10% label noise, an abrupt drift from concept 0 to concept 3 at
  the middle row;
* ``agrawal``: Agrawal's loan function 0 changing to function 2 at the middle row (a
  sigmoid drift 1000 rows wide, ``ConceptDriftStream``).

Every learner sees the same rows in the same process, test-then-train in chunks of 100
(``fastelm.stream.prequential``: the first chunk is only learned). fastelm's OS-ELMs take the
inputs standardised with the first chunk's mean and deviation (the only rows seen before
learning starts) and divided by √d, so that XW has the same spread (variance 1/3 for
W ~ U(-1, 1)) whatever the number of features d; river's learners take the raw rows as ``dict``s prepared before timing, one
row at a time (``learn_one``, ``predict_one``), its logistic regression behind its own online
``StandardScaler``. BLAS and Numba run on one thread for everyone (river is single-threaded).
Outputs in ``--out``: ``streams.md`` and ``streams.csv`` (prequential accuracy over the whole
stream and from the drift on, rows per second, speed against each river learner) and
``accuracy_over_time.png`` (accuracy over the last 1000 rows).

The asv classes at the bottom time the OS-ELM variants on 10000 rows of each stream and track
their accuracy after the drift; they are skipped when river is not installed.
"""
import argparse
import csv
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
WINDOW = 1000  # rows in the plotted sliding accuracy
# the OS-ELM settings: one for every stream, chosen on 30000 rows drawn with seed 0 (the
# benchmark draws with seed 10) among tanh/sigmoid/linear, alpha 1 or 10, inputs / √d or not
OSELM = dict(n_hidden=200, activation="tanh", alpha=1.0, random_state=0)
FORGETTING = 0.999  # memory ~ 1000 rows
WINDOW_ROWS = 2000


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


def fastelm_learners():
    return {
        "OS-ELM": lambda: OSELMClassifier(**OSELM),
        f"OS-ELM, forgetting {FORGETTING}": lambda: OSELMClassifier(
            **OSELM, forgetting_factor=FORGETTING),
        f"OS-ELM, window {WINDOW_ROWS}": lambda: OSELMClassifier(**OSELM, window=WINDOW_ROWS),
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


def scale_inputs(X):
    """(X − mean) / (sd·√d) with the first chunk's column means and deviations."""
    sd = X[:CHUNK].std(axis=0)
    return (X - X[:CHUNK].mean(axis=0)) / (np.where(sd > 0, sd, 1.0) * np.sqrt(X.shape[1]))


def run_stream(name, n_rows, learners, seed=0, log=print):
    """{learner: PrequentialResult} on one stream, and its drift row."""
    X, dicts, y, drift = make_stream(name, n_rows, seed)
    scaled = scale_inputs(X)
    index = np.arange(len(y))[:, None]
    results = {}
    makers = fastelm_learners()
    if learners != "fastelm":
        makers.update(river_learners())
    for label, make in makers.items():
        river = label.startswith("river")
        model = RiverLearner(make(), dicts) if river else make()
        results[label] = prequential(model, index if river else scaled, y, chunk_size=CHUNK,
                                     window=WINDOW)
        r = results[label]
        log(f"{name:10s} {label:30s} accuracy {r.mean_accuracy():.4f}  after drift "
            f"{r.mean_accuracy(drift):.4f}  {r.rows_per_second:10.0f} rows/s")
    return results, drift


def write_outputs(all_results, out, n_rows):
    out.mkdir(parents=True, exist_ok=True)
    lines = [["stream", "learner", "accuracy", "accuracy_after_drift", "rows_per_second"]]
    md = [f"Prequential accuracy (test-then-train, chunks of {CHUNK}, first chunk not scored), "
          f"{n_rows} rows per stream; 'after drift' = rows from the drift on (hyperplane: the "
          "second half). Speed: rows learned and predicted per second of predict + "
          "partial_fit, one thread each, same process.", "",
          "| stream | learner | accuracy | after drift | rows/s | × river LR | × river HAT | "
          "× river ARF |", "|---|---|---|---|---|---|---|---|"]
    for name, (results, drift) in all_results.items():
        speed = {k: r.rows_per_second for k, r in results.items()}
        for label, r in results.items():
            acc, after = r.mean_accuracy(), r.mean_accuracy(drift)
            lines.append([name, label, f"{acc:.4f}", f"{after:.4f}", f"{r.rows_per_second:.0f}"])
            ratios = [speed[label] / speed[k] if k in speed else float("nan") for k in
                      ("river LogisticRegression", "river HoeffdingAdaptiveTree", "river ARF")]
            md.append(f"| {name} | {label} | {acc:.4f} | {after:.4f} | "
                      f"{r.rows_per_second:,.0f} | " + " | ".join(f"{q:.1f}" for q in ratios)
                      + " |")
    with open(out / "streams.csv", "w", newline="") as f:
        csv.writer(f).writerows(lines)
    (out / "streams.md").write_text("\n".join(md) + "\n")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no accuracy_over_time.png written")
        return
    fig, axes = plt.subplots(len(all_results), 1, figsize=(10, 3.2 * len(all_results)),
                             squeeze=False)
    for ax, (name, (results, drift)) in zip(axes[:, 0], all_results.items()):
        for label, r in results.items():
            ax.plot(r.rows, r.accuracy, label=label, lw=1.2 if "OS-ELM" in label else 0.9,
                    ls="-" if "OS-ELM" in label else "--")
        if name != "hyperplane":
            ax.axvline(drift, color="grey", lw=0.8, ls=":", label="drift")
        ax.set_title(f"{name}: accuracy over the last {WINDOW} rows (prequential)")
        ax.set_xlabel("rows seen")
        ax.set_ylabel("accuracy")
        ax.grid(alpha=0.3)
    axes[0, 0].legend(fontsize=7, ncol=2, loc="lower right")
    fig.tight_layout()
    fig.savefig(out / "accuracy_over_time.png", dpi=110)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=100_000, help="rows per stream")
    parser.add_argument("--streams", nargs="+", default=list(STREAMS), choices=STREAMS)
    parser.add_argument("--learners", choices=("all", "fastelm"), default="all")
    parser.add_argument("--seed", type=int, default=10, help="seed of the streams")
    parser.add_argument("--out", type=Path, default=Path("docs/results/streams"))
    args = parser.parse_args(argv)
    with single_threaded():
        OSELMClassifier(n_hidden=5).partial_fit(np.zeros((4, 2)), [0, 1, 0, 1], [0, 1])  # warm
        all_results = {}
        for name in args.streams:
            all_results[name] = run_stream(name, args.rows, args.learners, args.seed)
            write_outputs(all_results, args.out, args.rows)  # after each stream: a long run
    print(f"wrote {args.out}/streams.md, streams.csv, accuracy_over_time.png")


# --------------------------------------------------------------------------- asv
class TimeDriftingStreams:
    """OS-ELM variants over 10000 rows of each stream, test-then-train in chunks of 100."""

    params = (list(STREAMS), list(fastelm_learners()))
    param_names = ["stream", "learner"]
    timeout = 300

    def setup(self, stream, learner):
        try:
            X, _, self.y, self.drift = make_stream(stream, 10_000)
        except ImportError:
            raise NotImplementedError("river is not installed") from None
        self.X = scale_inputs(X)
        self.make = fastelm_learners()[learner]
        self.threads = single_threaded()
        self.threads.__enter__()

    def teardown(self, stream, learner):
        self.threads.__exit__(None, None, None)

    def time_prequential(self, stream, learner):
        prequential(self.make(), self.X, self.y, chunk_size=CHUNK)

    def track_accuracy_after_drift(self, stream, learner):
        return prequential(self.make(), self.X, self.y, chunk_size=CHUNK).mean_accuracy(
            self.drift)


if __name__ == "__main__":
    main()
