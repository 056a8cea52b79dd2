"""Prequential (test-then-train) evaluation of a classifier on a stream, chunk by chunk.

Each chunk of rows is first predicted by the model as it stands, then learned
(``partial_fit``), so every scored prediction is on rows the model has not seen — the
evaluation of Gama, Sebastião & Rodrigues (2013), On evaluating stream learning algorithms,
Machine Learning 90(3), 317-346, and of river's ``evaluate.progressive_val_score``. The first
chunk is only learned. Accuracy is reported over a sliding window of the last ``window``
scored rows (the curve that shows a drift and the recovery from it) and over all scored rows;
the speed is rows learned per second of ``predict`` + ``partial_fit`` time.

Any object with ``predict(X)`` and ``partial_fit(X, y, classes=...)`` can be evaluated:
fastelm's and scikit-learn's online estimators as they are, row-by-row learners (river)
through a small adapter (``benchmarks/bench_streams.py``).

fastelm's online classifiers (OS-ELM, FOS-ELM) take a fused path: after the first chunk the
whole stream is checked and its targets coded once, and every later chunk is predicted and
learned in one call (``_test_then_train``). For float64 OS-ELM classifiers whose chunks are
information steps (forgetting, windows, the logistic loss, or chunks not much smaller than
the hidden layer) that is one compiled loop over the chunks (``fastelm._kernels.stream``:
equal to ``predict`` + ``partial_fit`` per chunk to rounding, the same predictions in the
tests); otherwise each chunk goes through ``partial_fit``'s own update (bit for bit), without
the per-call input validation that dominates the cost of small chunks. With chunks of at most
``SERIAL_CHUNK`` rows the loop runs on one BLAS and Numba thread: a thread pool's start-up
costs more than a chunk's products. The time is that of the first ``partial_fit`` and the
fused call (or of every ``predict`` and ``partial_fit``).
"""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import issparse
from sklearn.base import BaseEstimator, is_regressor

from ._threads import thread_limit
from ._validation import check_positive_int

SERIAL_CHUNK = 1000


class OnlineLearner(Protocol):
    """What ``prequential`` evaluates: an object with ``predict`` and ``partial_fit``."""

    def predict(self, *args: Any, **kwargs: Any) -> ArrayLike: ...

    def partial_fit(self, *args: Any, **kwargs: Any) -> object: ...


@dataclass
class PrequentialResult:
    """Outcome of ``prequential``.

    Attributes
    ----------
    rows : (n_chunks,) int
        Rows seen at the end of each chunk (the x axis of accuracy over time).
    accuracy : (n_chunks,) float
        Accuracy over the last ``window`` scored rows at the end of each chunk (NaN before
        the first scored chunk).
    correct : (n_rows,) float
        1 or 0 per row predicted right or wrong, NaN for the unscored first chunk.
    seconds : float
        Time in ``predict`` and ``partial_fit``.
    """

    rows: np.ndarray
    accuracy: np.ndarray
    correct: np.ndarray
    seconds: float

    @property
    def rows_per_second(self) -> float:
        return len(self.correct) / self.seconds if self.seconds > 0 else float("inf")

    def mean_accuracy(self, start: int = 0, stop: int | None = None) -> float:
        """Accuracy over the scored rows in [start, stop)."""
        scored = self.correct[start:stop]
        return float(np.nanmean(scored)) if np.isfinite(scored).any() else float("nan")


def _check_learner(model: object, takes_classes: bool) -> None:
    """A one-line error saying what ``prequential`` needs, unless ``model`` is an online
    classifier: ``predict`` and ``partial_fit`` (TypeError), not a regressor (ValueError:
    accuracy needs labels), a ``partial_fit`` that takes ``classes=`` when it is given."""
    name = type(model).__name__
    missing = [m for m in ("predict", "partial_fit") if not callable(getattr(model, m, None))]
    if missing:
        raise TypeError(f"prequential needs an online classifier (predict and partial_fit: "
                        f"test, then train); {name} has no {' or '.join(missing)}: use e.g. "
                        "OSELMClassifier or FOSELMClassifier")
    if isinstance(model, BaseEstimator) and is_regressor(model):
        raise ValueError(f"prequential scores the accuracy of predicted labels; {name} is a "
                         "regressor: use an online classifier such as OSELMClassifier")
    if takes_classes:
        try:
            parameters = inspect.signature(getattr(model, "partial_fit")).parameters
        except (TypeError, ValueError):  # no signature to read: let partial_fit say
            return
        if "classes" not in parameters and not any(
                p.kind is p.VAR_KEYWORD for p in parameters.values()):
            raise ValueError(f"{name}.partial_fit takes no classes=: call prequential(..., "
                             "classes=None)")


def prequential(model: OnlineLearner, X: ArrayLike, y: ArrayLike, *, chunk_size: int = 100,
                window: int = 1000, classes: ArrayLike | str | None = "all", fused: bool = True
                ) -> PrequentialResult:
    """Test-then-train ``model`` over the rows of (X, y) in chunks of ``chunk_size``.

    Parameters
    ----------
    model : estimator with ``predict`` and ``partial_fit``
        Learned in place.
    X : (n, d) array; y : (n,) labels
    chunk_size : int, default=100
    window : int, default=1000
        Rows in the sliding accuracy window.
    classes : 'all', array-like or None, default='all'
        ``classes=`` of the first ``partial_fit``: every label of y ('all'), the given labels,
        or none at all (None: for learners that take new labels as they come).
    fused : bool, default=True
        Take the fused path for fastelm's online classifiers (module docstring); False calls
        ``predict`` and ``partial_fit`` on every chunk. Both give the same predictions (the
        readout equal to rounding in the compiled loop, bit for bit otherwise).

    Returns
    -------
    PrequentialResult
    """
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    window = check_positive_int(window, "window")
    # a sparse X stays sparse (the model says whether it takes it); np.asarray would make it
    # a 0-d object array
    rows: Any = X if issparse(X) else np.asarray(X)
    y = np.asarray(y)
    if rows.ndim != 2 or y.ndim != 1 or rows.shape[0] != len(y):
        raise ValueError(f"X must be 2-D and y 1-D with as many rows; got X {rows.shape}, "
                         f"y {y.shape}")
    _check_learner(model, classes is not None)
    first_kw = {} if classes is None else \
        {"classes": np.unique(y) if isinstance(classes, str) and classes == "all" else classes}
    n = len(y)
    correct = np.full(n, np.nan)
    stops = np.arange(min(chunk_size, n), n + chunk_size, chunk_size).clip(max=n)
    stops = np.unique(stops)
    seconds, start, done = 0.0, 0, False
    with thread_limit(1 if chunk_size <= SERIAL_CHUNK else None, "blas", numba_threads=True):
        for i, stop in enumerate(stops):
            Xc, yc = rows[start:stop], y[start:stop]
            tic = time.perf_counter()
            if i:
                predicted = model.predict(Xc)
                model.partial_fit(Xc, yc)
            else:
                model.partial_fit(Xc, yc, **first_kw)
                if fused and hasattr(model, "_test_then_train"):
                    # every later chunk predicted and learned in one call
                    predicted = model._test_then_train(rows, y, stops)
                    done = predicted is not None
            seconds += time.perf_counter() - tic
            if done:
                correct[stop:] = predicted == y[stop:]
                break
            if i:
                correct[start:stop] = np.asarray(predicted) == yc
            start = stop
    scored = np.r_[0, np.cumsum(np.nan_to_num(correct))]
    counted = np.r_[0, np.cumsum(np.isfinite(correct))]
    low = np.maximum(0, stops - window)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = (scored[stops] - scored[low]) / (counted[stops] - counted[low])
    accuracy[0] = np.nan
    return PrequentialResult(stops, accuracy, correct, seconds)
