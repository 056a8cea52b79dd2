"""fastelm benchmarks.

* ``bench_core.py``: airspeed velocity (asv) benchmarks of the estimators and their kernels; run
  from the repository root with ``asv run --python=same --quick`` (see ``asv.conf.json``).
* ``peers.py``: a script timing fastelm side by side with hpelm, scikit-elm and pyoselm on one
  synthetic data set (``python benchmarks/peers.py [--quick] [--out FILE.md]``).

Neither imports a peer library at module level, so asv can discover the benchmarks without them.
"""
