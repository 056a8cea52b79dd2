"""Reproductions of the papers' experiments, one small application per paper.

    fos_elm/      the FOS-ELM paper (docs/algorithms.md §4)
    de_elm_ssc/   DE-ELM-SSC, Pang et al. 2020 (§6)
    bls_fmri/     BLS for fMRI classification, Liu & Ji 2021 (§5)
    deep/         its deep comparators, CCNN and GCN (``fastelm reproduce bls-fmri --deep``)

A paper's package holds its protocol (data, splits, models), its outputs (tables, plots, checks
against the paper) with a notes template ``notes.md`` (the prose of notes.md, with placeholders),
and ``reproduce`` (``run``, and ``build_parser``/``run_from_args``: the one command line of
``fastelm reproduce <paper>`` and ``python -m fastelm.experiments.<paper>``). They
call only the estimators' public API and share ``common`` (tables, data loading with skips,
templates, thread limits, standardisation).
"""
