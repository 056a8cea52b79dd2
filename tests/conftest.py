"""Shared pytest fixtures."""

import os
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def fastelm_data_env():
    """Point FASTELM_DATA at shared/data in the folder that holds the checkout, unless set."""
    if "FASTELM_DATA" in os.environ or not SHARED_DATA.is_dir():
        yield os.environ.get("FASTELM_DATA")
        return
    os.environ["FASTELM_DATA"] = str(SHARED_DATA)
    try:
        yield str(SHARED_DATA)
    finally:
        os.environ.pop("FASTELM_DATA", None)


@pytest.fixture(scope="module")
def one_numba_thread():
    """Numba on one thread for a module of tiny fits, where a parallel kernel launch costs more
    than the work (milliseconds each on a loaded machine); results do not depend on it."""
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(previous)
