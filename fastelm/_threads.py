"""Thread limits: BLAS/OpenMP (threadpoolctl) and Numba's kernels, in one context manager.

Entering a threadpoolctl limit costs ~20 µs (a query and a set per library): a limit nested in
an enclosing one of this thread that is at least as strict is skipped, so a stream of small
solves inside one serial block (``fastelm.stream.prequential``) pays it once.
"""
import functools
import threading
from contextlib import contextmanager

import numba
from threadpoolctl import ThreadpoolController


@functools.lru_cache(maxsize=1)
def _blas_controller():
    """The BLAS libraries loaded with numpy and scipy, found once (a search costs ~1 ms)."""
    return ThreadpoolController()


@contextmanager
def thread_limit(threads, user_api=None, numba_threads=True):
    """Run BLAS/OpenMP and Numba kernels on at most ``threads`` threads inside the block.

    Parameters
    ----------
    threads : int or None
        The limit; None leaves every library as it is.
    user_api : {None, 'blas', 'openmp'}, default=None
        The threadpoolctl pools limited: None every pool loaded now, 'blas' the BLAS libraries
        (found once and cached, for limits entered on every solve).
    numba_threads : bool, default=True
        Also limit Numba's parallel kernels (``numba.set_num_threads``, per calling thread;
        clipped to NUMBA_NUM_THREADS).
    """
    if threads is None:
        yield
        return
    threads = int(threads)
    enclosing = getattr(_active, "limits", ())
    if any(t <= threads and api in (None, user_api) and (numba or not numba_threads)
           for t, api, numba in enclosing):
        yield  # an enclosing limit of this thread already holds these pools to ≤ threads
        return
    controller = _blas_controller() if user_api == "blas" else ThreadpoolController()
    with controller.limit(limits=threads, user_api=user_api):
        _active.limits = enclosing + ((threads, user_api, numba_threads),)
        try:
            if not numba_threads:
                yield
                return
            before = numba.get_num_threads()
            numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
            try:
                yield
            finally:
                numba.set_num_threads(before)
        finally:
            _active.limits = enclosing


_active = threading.local()  # .limits: (threads, user_api, numba_threads) entered, outermost first
