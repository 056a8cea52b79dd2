"""fastelm._threads.thread_limit: BLAS and Numba limited inside the block, restored after."""
import numba
from threadpoolctl import threadpool_info

from fastelm._threads import thread_limit


def _blas_threads():
    return {pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"}


def test_limits_blas_and_numba_and_restores_them():
    numba_before, blas_before = numba.get_num_threads(), _blas_threads()
    with thread_limit(1):
        assert numba.get_num_threads() == 1 and _blas_threads() == {1}
    assert numba.get_num_threads() == numba_before and _blas_threads() == blas_before
    with thread_limit(1, user_api="blas", numba_threads=False):
        assert _blas_threads() == {1} and numba.get_num_threads() == numba_before
    with thread_limit(None):
        assert numba.get_num_threads() == numba_before and _blas_threads() == blas_before
    with thread_limit(10 ** 6):  # clipped to what Numba has
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
