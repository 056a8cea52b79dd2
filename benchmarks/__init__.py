"""fastelm benchmarks.

* airspeed velocity (asv) suite, run from the repository root: ``asv run HEAD~5..HEAD``
  builds and times each commit, ``asv run --python=same --quick`` times the installed tree
  (see ``asv.conf.json`` and docs/performance.md, "Benchmark suites"):
  ``bench_core.py`` the estimators, the hidden layer, ridge readout and recursive ridge update;
  ``bench_kernels.py`` EFAST over hidden nodes, one DE generation, the BLS sparse-autoencoder
  ADMM and enhancement map; ``bench_model_selection.py`` the CV estimator;
  ``bench_efast_vs_salib.py`` EFAST against SALib; ``bench_streams.py`` the OS-ELM variants on
  drifting streams; ``bench_papers.py`` the three paper reproductions at quick size (training
  time, and ``track_`` of their errors: asv reads tracked values as lower-is-better).
* ``_cases.py``: the kernel cases (seeded inputs, warm-up, a check of the result) that the asv
  suite and the pytest-benchmark tests (``tests/test_bench_kernels.py``) share.
* ``peers.py``: a script timing fastelm side by side with hpelm, scikit-elm and pyoselm on one
  synthetic data set (``python benchmarks/peers.py [--quick] [--out FILE.md]``).

None of them imports a peer library at module level, so asv can discover the benchmarks without
them.
"""
