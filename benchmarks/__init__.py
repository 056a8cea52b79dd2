"""fastelm benchmarks.

* airspeed velocity (asv) suite, run from the repository root with
  ``asv run --python=same --quick`` (see ``asv.conf.json``):
  ``bench_core.py`` the estimators, the hidden layer, ridge readout and recursive ridge update;
  ``bench_kernels.py`` EFAST over hidden nodes, one DE generation, the BLS sparse-autoencoder
  ADMM and enhancement map; ``bench_papers.py`` the three paper reproductions at quick size
  (training time, and ``track_`` of their scores).
* ``_cases.py``: the kernel cases (seeded inputs, warm-up, a check of the result) that the asv
  suite and the pytest-benchmark tests (``tests/test_bench_kernels.py``) share.
* ``peers.py``: a script timing fastelm side by side with hpelm, scikit-elm and pyoselm on one
  synthetic data set (``python benchmarks/peers.py [--quick] [--out FILE.md]``).

None of them imports a peer library at module level, so asv can discover the benchmarks without
them.
"""
