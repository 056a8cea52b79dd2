"""Reproduction of DE-ELM-SSC and DE-ELM-SSC+ against Tri-DE-ELM (Pang, Huang, Zhang, Shu &
Zhao 2020; docs/algorithms.md §6).

    fastelm reproduce de-elm-ssc [...]    (or python -m; the same options)
    python -m fastelm.experiments.de_elm_ssc [--quick] [--out DIR] [--seed S] [--runs R]
                                             [--data DIR] [--datasets NAME ...]

The paper evaluates five UCI sets; its tables were lost in extraction, the
text quotes a few figures (``PAPER`` below). What is run here, per data set:

Data
    australian  Statlog Australian credit (690 rows; categorical attributes one-hot)
    cancer      Breast Cancer Wisconsin, original (699 rows; 16 missing values → median)
    vote        Congressional voting records (435 rows; y/n/? one-hot, '?' its own category)
    wdbc        Wisconsin diagnostic breast cancer (569 rows)
    mushroom    Mushroom (8124 rows; categorical one-hot, '?' its own category)
    loaded by ``fastelm.datasets`` (``data_home`` / ``$FASTELM_DATA``). Without the original
    files only Wdbc is found (scikit-learn's copy); a data set not found is skipped with every
    section that needs it (said in notes.md), unless named with ``--datasets`` (then an error).
Splits (each run draws its own, stratified by class)
    main    test = 25% of all rows; of the other 75% (training), 60% labelled D and 40%
            unlabelled U; D halved into the validation set V and the labelled training set L.
    share   (Table 5) 30% of training to V; of the other 70%, a share p ∈ {20, 40, 60, 80}% is
            L and the rest U.
    V is the DE fitness set of every DE-ELM (validation RMSE; the readout is fitted on the
    learner's own rows) and the set on which validation accuracy is reported (Table 6, Fig. 4).
Preprocessing
    inputs standardised with the mean and sd of the training rows (L ∪ V ∪ U, all known at
    training time; test rows never); a constant column is left at 0.
Models (tanh, ridge alpha 1e-3, NP = 20, CR = 0.8, Gmax = 20, paper selection rule)
    ELM           a plain ELM on L (context)
    Tri-ELM       Tri-training of plain ELMs on L ∪ U (context)
    Tri-DE-ELM    ``TriDEELM``: DE rand/1, F = 1 (the paper's baseline)
    DE-ELM-SSC    ``DEELMSSC``: selected strategy, F = 1
    DE-ELM-SSC+   ``DEELMSSCPlus``: selected strategy, nonlinear F from Fmax to Fmin
    Strategy selection is offline, once per data set and method (as in the paper: its time is
    not training time): the vote of ``n_selection_repeats`` repetitions on D of the first run's
    main split, with that method's F; the winner is used in every run and protocol.
Per-data-set settings (``CONFIG``)
    nh = 30 (the paper's example 2; its Table 2 of per-set values is lost), Mushroom 40 (its
    Fig. 3 levels off from about 38 nodes). (Fmin, Fmax) of DE-ELM-SSC+ as the paper picks them:
    the pair of highest validation accuracy in the §5.5 grid ({0.1, ..., 1.0}, Fmin <= Fmax),
    found with ``grid_search_f`` on validation rows only (seed 0; see notes.md).
Sections
    Tables 3-4   test accuracy (and validation accuracy) of the five models, training time
    Table 5      labelled-share sweep
    Table 6      (Fmin, Fmax) grid of DE-ELM-SSC+ on Mushroom: validation and test accuracy
    Figs. 3-4    test and validation accuracy against nh on Mushroom (hidden_nodes.png)
    ablation     Australian at 20% / 80% labelled with raw (unstandardised, ordinal-coded)
                 inputs — evidence for the gap to the paper's figures (full mode only)

The package: ``protocol`` (data, splits, models, the sections' runs), ``outputs`` (tables, the
plot, the checks against the paper, notes.md from the template ``notes.md``), ``reproduce``
(``run``, ``merge``, ``rewrite`` and the command line).

Outputs in ``out_dir``: ``table3_4_accuracy``, ``strategies``, ``table5_labelled_share``,
``table6_f_grid`` (+ ``table6_f_grid_matrix.md``), ``hidden_nodes`` (.md/.csv, + .png),
``ablation_raw_inputs``, ``notes.md``; and ``table4_time`` and ``timings.md``, the only outputs
that differ between two runs with the same seed (wall-clock times).

Run counts (``MODES``). Full: Tables 3-4 50 runs on the four small sets and 10 on Mushroom
(about 20× costlier per run); Table 5 (Tri-DE-ELM and DE-ELM-SSC+, the two the paper compares)
20 runs per share (Mushroom 3); Table 6 one run of the 55-pair grid; Figs. 3-4 two runs per nh;
the ablation 20 runs. ``--runs R`` sets the counts of Tables 3-5 and the ablation to R and caps
Mushroom's and those of Table 6 and Figs. 3-4 at R; ``--mushroom-runs M`` sets Mushroom's counts
of Tables 3-5. ``--quick``: 3 runs, 5 selection repeats, Mushroom
subsampled to 1000 rows (stratified), Table 5 on Australian at 20% and 80% only, a 4-value F
grid (10 pairs), nh in {10, 30, 50} once, no ablation; it runs Numba single-threaded (its fits
are so small that a parallel kernel launch costs more than its work; ``--threads``).
"""
from .outputs import check_paper, gap_analysis, notes_text, plot_hidden, write_outputs
from .protocol import (CONFIG, COMMON, DATASETS, DE_METHODS, F_GRID, LABELS, LOADERS, METHODS,
                       MODES, PAPER, SHARE_METHODS, SHARES, Run, fit_score, grid_table,
                       hidden_table, load, main_table, make_model, select_strategies, settings,
                       share_table, split, standardise)
from .reproduce import SEED_OPTION, main, merge, rewrite, run

__all__ = ["SEED_OPTION", "run", "merge", "rewrite", "main", "settings", "load", "split",
           "standardise", "Run",
           "make_model", "fit_score", "select_strategies", "main_table", "share_table",
           "grid_table", "hidden_table", "write_outputs", "check_paper", "notes_text",
           "gap_analysis", "plot_hidden", "CONFIG", "COMMON", "DATASETS", "DE_METHODS",
           "F_GRID", "LABELS", "LOADERS", "METHODS", "MODES", "PAPER", "SHARE_METHODS", "SHARES"]
