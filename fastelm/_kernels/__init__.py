"""Pure Numba kernels: functions over arrays, no Python objects, compiled lazily and cached.

``FAST`` is the one set of compile options of the vectorised kernels: cached on disk, numpy's
error model (no ZeroDivisionError checks, which stop vectorisation; inputs are validated
finite upstream) and the fast-math flags that keep results independent of the thread count
(no "reassoc": the order of additions stays as written). ``FAST_REASSOC`` adds "reassoc" for
reductions whose order is fixed at compile time (``de.py``'s dot products).
"""
FAST = dict(cache=True, error_model="numpy", fastmath={"nsz", "arcp", "contract"})
FAST_REASSOC = dict(FAST, fastmath=FAST["fastmath"] | {"reassoc"})
