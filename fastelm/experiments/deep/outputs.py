"""What a person reads of a run: the tables, the accuracy-time plot and the training curves."""
import numpy as np

from ..common import pyplot

#: the reproduction's names of the two models
DEEP_MODELS = ("CCNN", "GCN")


def write_abide_outputs(out_dir, records, curves, title=None, quick=False, atlas=None):
    """The tables and plots of :func:`run_abide` from its records and curves; ``title``: the
    accuracy-time plot's (default: 10-fold CV), ``quick``: "quick" in the curves' titles,
    ``atlas``: named in them."""
    import os

    from ..bls_fmri.outputs import _write_records, plot_accuracy_time
    from ..bls_fmri.protocol import CPU, METRICS, TIME
    from ..common import summarize, write_table

    keys = ("data set", "features", "model")
    rows = summarize(records, keys, METRICS)
    time_rows = summarize(records, keys, [TIME, CPU])
    write_table(rows, keys, METRICS, os.path.join(out_dir, "results"), digits=3)
    write_table(time_rows, keys, [TIME, CPU], os.path.join(out_dir, "timings"), digits=2)
    _write_records(records, os.path.join(out_dir, "records.csv"))
    models = list(dict.fromkeys(r["model"] for r in records))
    plot_accuracy_time(rows, time_rows, os.path.join(out_dir, "accuracy_vs_time.png"), models,
                       title=title or "10-fold CV on site × diagnosis, one thread per fit")
    for kind in dict.fromkeys(c["features"] for c in curves):
        plot_training_curves(
            {m: [c for c in curves if c["model"] == m and c["features"] == kind]
             for m in DEEP_MODELS if any(c["model"] == m and c["features"] == kind
                                         for c in curves)},
            os.path.join(out_dir, f"training_curves_{kind.replace(' ', '_')}.png"),
            title=f"{'quick: ' if quick else ''}{kind} features"
                  + (f" (atlas {atlas})" if atlas else "") + ", one line per fold; inner "
                  "validation = 10% of each training fold")
    return rows, time_rows


def plot_training_curves(histories, path, title=None):
    """Training and validation loss per epoch (one line per fit, a dot at the kept epoch).

    ``histories``: ``{name: [history, ...]}`` with history = ``{'train_loss': [...],
    'val_loss': [...], 'best_epoch': int}``; one panel per name. Returns False without
    matplotlib.
    """
    plt = pyplot()
    if plt is None:
        return False
    names = list(histories)
    fig, axes = plt.subplots(1, len(names), figsize=(5.2 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names):
        for k, h in enumerate(histories[name]):
            epochs = np.arange(1, len(h["train_loss"]) + 1)
            ax.plot(epochs, h["train_loss"], color="C0", alpha=0.5, lw=1,
                    label="training" if k == 0 else None)
            if h.get("val_loss"):
                ax.plot(epochs[:len(h["val_loss"])], h["val_loss"], color="C1", alpha=0.6,
                        lw=1, label="inner validation" if k == 0 else None)
                b = h.get("best_epoch")
                if b is not None and b < len(h["val_loss"]):
                    ax.plot([b + 1], [h["val_loss"][b]], "o", color="C3", ms=3,
                            label="kept epoch" if k == 0 else None)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("cross-entropy")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return True
