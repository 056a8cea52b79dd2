"""Reproduction of the FOS-ELM paper: FOS-ELM (OS-ELM pruned online by EFAST) against OS-ELM.

    fastelm reproduce fos-elm [...]    (or python -m; the same options)
    python -m fastelm.experiments.fos_elm [--quick] [--out DIR] [--seed S] [--repeats R]
                                          [--data DIR] [--datasets NAME ...]
    python -m fastelm.experiments.fos_elm --tune [--seed S]    # how CONFIG below was chosen

The paper (docs/algorithms.md §4) runs five data sets; its result tables were lost, its claim is
that FOS-ELM reaches the test RMSE or accuracy of OS-ELM with fewer hidden nodes. Each repeat here:

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

The package: ``protocol`` (data, stream, models, one repeat, the tuning of CONFIG),
``outputs`` (the claim's check, the plot, notes.md from the template ``notes.md``), ``reproduce``
(``run`` and the command line).

Outputs in ``out_dir``: ``results.md`` / ``results.csv`` (the table), ``nodes.png`` (alive nodes
per chunk), ``notes.md`` (settings and findings, with the check of the paper's claim) and
``timings.md`` (wall-clock times; the only output that differs between two runs with the same
seed). ``--quick`` halves L0 and runs 3 repeats.
"""
from .outputs import check_claim, notes_text, plot_nodes, timings_text
from .protocol import (ALPHAS, CONFIG, DATASETS, DELTA_RELS, FRIEDMAN_NOISE, FULL_REPEATS, KEYS,
                       LABELS, MODELS, QUICK_REPEATS, VALUES, configs, preprocess, run_repeat,
                       split, stream, tune, tune_text)
from .reproduce import SEED_OPTION, main, run

__all__ = ["SEED_OPTION", "run", "main", "configs", "split", "preprocess", "stream",
           "run_repeat", "tune",
           "tune_text", "check_claim", "notes_text", "plot_nodes", "timings_text", "ALPHAS",
           "CONFIG", "DATASETS", "DELTA_RELS", "FRIEDMAN_NOISE", "FULL_REPEATS", "KEYS", "LABELS",
           "MODELS", "QUICK_REPEATS", "VALUES"]
