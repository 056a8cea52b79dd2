"""Pure Numba kernels: functions over arrays, no Python objects, compiled lazily and cached.

``FAST`` is the one set of compile options of the vectorised kernels: cached on disk, numpy's
error model (no ZeroDivisionError checks, which stop vectorisation; inputs are validated
finite upstream) and the fast-math flags that keep results independent of the thread count
(no "reassoc": the order of additions stays as written). ``FAST_REASSOC`` adds "reassoc" for
reductions whose order is fixed at compile time (``de.py``'s dot products).

Numba caches compiled kernels in ``$NUMBA_CACHE_DIR`` if set, else beside their source
(``__pycache__``), else in the user's cache folder (``~/.cache/numba``). A read-only
install with no writable home (a shared cluster install, a container run as another user)
has none of these, and ``cache=True`` would fail at import ("cannot cache function ... no
locator available"). Importing this package checks once: if Numba has nowhere to write, the
cache goes to a private folder under the temporary directory (``NUMBA_CACHE_DIR`` is set for
this process and its children), and if even that cannot be written, :data:`CACHE` is False
and kernels compile in memory on every run. Set ``NUMBA_CACHE_DIR`` to choose the folder.
"""

import os
import tempfile

from numba.core import config

__all__ = ["CACHE", "FAST", "FAST_REASSOC"]


def _probe():  # a function in this folder: Numba would cache the kernels where it caches it
    pass


def _numba_can_cache():
    try:
        from numba.core.caching import FunctionCache
    except ImportError:  # a Numba without this class: let its own caching decide
        return True
    try:
        FunctionCache(_probe)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return False
    return True


def _writable_cache_dir():
    """A private folder under the temporary directory, or None if it cannot be written."""
    try:
        user = getattr(os, "getuid", lambda: "user")()
        folder = os.path.join(tempfile.gettempdir(), f"fastelm-numba-cache-{user}")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError:  # no writable temporary folder
        return None
    return folder


def _configure_cache():
    if _numba_can_cache():
        return True
    folder = _writable_cache_dir()
    if folder is None:
        return False
    os.environ["NUMBA_CACHE_DIR"] = config.CACHE_DIR = folder
    return _numba_can_cache()


CACHE = _configure_cache()
"""Whether kernels are cached on disk (see the module docstring)."""

FAST = dict(cache=CACHE, error_model="numpy", fastmath={"nsz", "arcp", "contract"})
FAST_REASSOC = dict(FAST, fastmath=FAST["fastmath"] | {"reassoc"})
