"""ELM and OS-ELM on Dask collections: per-chunk Gram sums on the workers, one small solve here.

The ridge readout only needs two sums over rows (ALGORITHMS.md §1):

    K = Σ_chunks HcᵀHc + alpha I   (L×L),      HᵀT = Σ_chunks HcᵀTc   (L×m)

so a fit splits across workers with no approximation. For every row chunk of X (a dask array,
a Zarr / HDF5 array wrapped by ``da.from_zarr`` / ``da.from_array``, or a dask DataFrame read
from Parquet or CSV) a task on a worker computes Hc = g(Xc W + b) with fastelm's activation
kernel and returns the L×(L+m) block [HcᵀHc | HcᵀTc]. Those blocks are added in a tree
(``split_every`` at a time), so only one L×(L+m) matrix ever reaches this process; H is never
gathered, nor is X. The solve (K + alpha I)⁻¹ HᵀT runs once here with ``fastelm._ridge``
(Cholesky, warned eigen fallback).

W and b are drawn here by the estimator's own ``_draw_weights`` / ``_start`` — exactly the draw
the in-memory ``fit`` makes — so a Dask fit equals the in-memory fit of the same model on the
same rows to round-off (float64: summing per-chunk Grams instead of one Gram changes only the
order of additions).

Targets: regressors take y of shape (n,) or (n, m); classifiers find ``classes_`` with one Dask
pass (``np.unique`` per chunk, merged in a tree), then one-hot code each chunk on its worker.

OS-ELM (``OSELMRegressor``/``OSELMClassifier``): a dask input is absorbed as one
information-form step of the recursive ridge (ALGORITHMS.md §2) from whatever state the model
is in:

    K ← K + Σ HcᵀHc,     beta ← beta + K⁻¹ (Σ HcᵀTc − (Σ HcᵀHc) beta)

which is algebraically the same as ``partial_fit`` over the chunks one by one (the OS-ELM
property: beta is the batch ridge fit on every row seen), but costs one solve instead of one per
chunk and needs no ordering. ``rls_`` stays a valid RecursiveRidge, so in-memory or dask
``partial_fit`` calls can follow. Estimators whose per-chunk update is not a Gram sum — FOS-ELM
prunes nodes on each chunk — are fed the chunks in order instead: each chunk is computed on a
worker, brought here and passed to ``partial_fit`` (``sequential=True`` forces this for any
OS-ELM).

When N < L the primal system is not the in-memory one (the in-memory fit uses the dual form),
and the data is small by definition: it is gathered and fitted in memory.

Threads: the Gram tasks compute g(·) on one thread (a serial loop over fastelm's row kernel,
bit-identical to the parallel one). BLAS threads are process-wide, so they are limited per
worker process (threadpoolctl, via ``Client.run``): with ``blas_threads='auto'`` a worker
running several task threads gets 1 BLAS thread each (Dask's nanny already starts workers with
OPENBLAS/MKL/OMP_NUM_THREADS=1); pass an int to set it (e.g. one 16-core worker with one task
thread: ``blas_threads=16``). With Dask's local threaded scheduler BLAS is limited in this
process while the graph runs.

Dask is an optional dependency (``pip install fastelm[dask]``): this module imports it only
inside its functions, and ``is_dask_input`` never imports it.

Cross-validation and repeated runs fan out over a cluster with joblib's Dask backend::

    from dask.distributed import Client
    from sklearn.model_selection import cross_validate
    from fastelm.dask import parallel_backend

    client = Client("scheduler-address:8786")
    with parallel_backend(client):
        cross_validate(ELMClassifier(n_hidden=500), X, y, cv=10, n_jobs=-1)

(equivalently ``with joblib.parallel_config(backend="dask"):`` once a Client exists).
"""
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from scipy.special import softmax

from ._gram import HiddenMap, gram_sums
from ._hidden import check_activation

__all__ = ["fit_dask", "partial_fit_dask", "predict_dask", "is_dask_input", "parallel_backend"]

SPLIT_EVERY = 8
PREDICT_METHODS = ("predict", "predict_proba", "decision_function")


def is_dask_input(*objs):
    """True when any argument is a Dask collection. Imports nothing: if dask was never imported,
    nothing can be a Dask collection."""
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    return any(dask.is_dask_collection(obj) for obj in objs)


# ---------------------------------------------------------------------------------------------
# per-chunk work (runs on the workers)

def _as_float_2d(block, dtype):
    """A chunk of X (numpy, pandas, zarr/h5py slice) as a 2-D float array of ``dtype``."""
    if hasattr(block, "to_numpy"):
        block = block.to_numpy()
    try:
        X = np.asarray(block, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(f"X could not be converted to float: {err}") from err
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got a chunk with {X.ndim} dimensions")
    if not np.isfinite(X).all():
        raise ValueError("Input X contains NaN or infinity.")
    return X


def _labels_1d(block):
    if hasattr(block, "to_numpy"):
        block = block.to_numpy()
    y = np.asarray(block)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y should be a 1d array, got a chunk of shape {y.shape}")
    return y


def _targets(block, spec, n):
    """T (n×m, spec.dtype) for one chunk of y."""
    from ._base import one_hot  # _base imports this module

    if spec.classes is not None:
        y = _labels_1d(block)
        T = None if len(y) != n else one_hot(y, spec.classes, spec.dtype)
    else:
        if hasattr(block, "to_numpy"):
            block = block.to_numpy()
        y = np.asarray(block)
        if len(y) == n:
            try:
                T = y.reshape(n, -1).astype(spec.dtype)
            except (TypeError, ValueError) as err:
                raise ValueError(f"y could not be converted to float: {err}") from err
            if not np.isfinite(T).all():
                raise ValueError("Input y contains NaN or infinity.")
    if len(y) != n:
        raise ValueError(f"Found input variables with inconsistent numbers of samples: a chunk "
                         f"of X has {n} rows and the matching chunk of y {len(y)}")
    return T


@dataclass(frozen=True)
class _Spec:
    """What a Gram task needs: the feature map and the target coding."""
    feature_map: object
    dtype: type
    classes: object  # sorted labels (classifier) or None (regressor)
    y_columns: object  # see _split


def _split(X_block, y_block, y_columns):
    """(X, y) of one chunk. ``y_columns`` None: given apart; k > 0: the last k columns of a
    combined frame are y; -1: the last column is y as a Series."""
    if y_columns is None:
        return X_block, y_block
    k = abs(y_columns)
    y = X_block.iloc[:, -k:]
    return X_block.iloc[:, :-k], (y.iloc[:, 0] if y_columns < 0 else y)


def _gram_block(X_block, y_block, spec):
    """(n, [HᵀH | HᵀT]) of one row chunk; products in spec.dtype as in ``ridge_fit``."""
    X_block, y_block = _split(X_block, y_block, spec.y_columns)
    X = _as_float_2d(X_block, spec.dtype)
    T = _targets(y_block, spec, len(X))
    return gram_sums(X, T, spec.feature_map, parallel=False).astype(np.float64)


def _sum_grams(*parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _unique_block(X_block, y_block, y_columns):
    return np.unique(_labels_1d(_split(X_block, y_block, y_columns)[1]))


def _union(*parts):
    return np.unique(np.concatenate(parts))


@dataclass(frozen=True)
class _Readout:
    """A fitted network for prediction tasks."""
    W: np.ndarray
    b: np.ndarray
    code: int
    beta: np.ndarray
    method: str
    classes: object
    ravel: bool


def _predict_block(X_block, model):
    X = _as_float_2d(X_block, model.W.dtype)
    scores = HiddenMap(model.W, model.b, model.code).transform(X, parallel=False) @ model.beta
    if model.classes is None:  # regressor
        return scores.ravel() if model.ravel else scores
    if model.method == "predict":
        return model.classes[np.argmax(scores, axis=1)]
    if model.method == "predict_proba":
        return softmax(scores.astype(np.float64), axis=1)
    return scores[:, 1] - scores[:, 0] if len(model.classes) == 2 else scores


# ---------------------------------------------------------------------------------------------
# thread limits

def _limit_worker_blas(blas_threads, driver_pid, dask_worker=None):
    """Run on each worker by Client.run: process-wide BLAS limit (none in this process)."""
    if os.getpid() == driver_pid:
        return None
    from threadpoolctl import threadpool_info, threadpool_limits
    if blas_threads == "auto":
        if getattr(dask_worker, "nthreads", 1) <= 1:
            return None
        blas_threads = 1
    threadpool_limits(limits=int(blas_threads), user_api="blas")  # kept: the worker is ours
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def _current_client():
    try:
        from distributed import default_client
        return default_client()
    except (ImportError, ValueError):
        return None


@contextmanager
def _thread_limits(blas_threads, scheduler):
    """Limit BLAS on remote workers (persistently) and in this process for a local scheduler."""
    from dask import threaded
    from dask.base import get_scheduler
    client = _current_client() if scheduler is None else None
    if client is not None:
        client.run(_limit_worker_blas, blas_threads, os.getpid())
    if get_scheduler(scheduler=scheduler) in (None, threaded.get):  # None: dask's default
        from threadpoolctl import threadpool_limits
        n = 1 if blas_threads == "auto" else int(blas_threads)
        with threadpool_limits(limits=n, user_api="blas"):
            yield
    else:
        yield


def _compute(collections, blas_threads, compute_kwargs):
    import dask
    compute_kwargs = dict(compute_kwargs or {})
    with _thread_limits(blas_threads, compute_kwargs.get("scheduler")):
        return dask.compute(*collections, **compute_kwargs)


# ---------------------------------------------------------------------------------------------
# inputs

def _is_dask_dataframe_like(obj):
    return is_dask_input(obj) and hasattr(obj, "divisions")  # dask DataFrame or Series


def _is_frame(obj):
    return _is_dask_dataframe_like(obj) and obj.ndim == 2


def _is_series(obj):
    return _is_dask_dataframe_like(obj) and obj.ndim == 1


def _as_dask_array(obj):
    """A dask array from a dask array, DataFrame, Series or anything numpy-like."""
    import dask.array as da
    if is_dask_input(obj):
        if _is_dask_dataframe_like(obj):
            return obj.to_dask_array(lengths=True)
        return obj
    return da.asarray(np.asarray(obj))


def _lazy(obj):
    """Array-likes on disk (zarr.Array, h5py.Dataset, ...) as dask arrays, never read whole;
    dask collections, numpy and pandas objects unchanged."""
    if (is_dask_input(obj) or isinstance(obj, np.ndarray) or hasattr(obj, "iloc")
            or not all(hasattr(obj, a) for a in ("shape", "dtype", "__getitem__"))):
        return obj
    import dask.array as da
    return da.from_array(obj, chunks={0: "auto", **({1: -1} if len(obj.shape) == 2 else {})})


def _known(chunks):
    return not any(np.isnan(c) for c in chunks)


@dataclass
class _Data:
    blocks: list  # (X chunk, y chunk or None) delayed pairs
    y_columns: object  # see _split
    n_features: int
    y_ndim: int
    n_outputs: int
    feature_probe: object  # empty frame with X's columns, or an empty (0, d) array
    n_rows: object  # int when known before computing, else None


def _row_blocks(X, y):
    """Align X and y into lists of matching row chunks (delayed), never computing the data.

    Dask DataFrames keep their partitions when X and y are partitioned alike (the usual case:
    columns of one frame); otherwise both become dask arrays with X's row chunks and X in one
    column chunk (chunk lengths are computed when unknown).
    """
    X, y = _lazy(X), _lazy(y)
    if not is_dask_input(X) and not hasattr(X, "shape"):
        X = np.asarray(X)
    if _is_series(X) or (not _is_frame(X) and len(X.shape) != 2):
        raise ValueError(f"Expected 2D array, got {len(getattr(X, 'shape', (0,)))}D input X")
    if not is_dask_input(y):
        y = np.asarray(y)
    y_ndim = y.ndim
    if _is_frame(X):
        probe = X._meta
        n_features = len(X.columns)
    else:
        n_features = X.shape[1]
        probe = X.iloc[:0] if hasattr(X, "iloc") else np.empty((0, n_features))
    if _is_frame(y):
        n_outputs = len(y.columns)
    else:
        n_outputs = 1 if y_ndim == 1 else y.shape[1]

    if _is_frame(X) and _is_dask_dataframe_like(y) and (
            X.npartitions == y.npartitions or (X.known_divisions and y.known_divisions)):
        # one frame, so that X and y keep the same partitions through graph optimisation
        # (projected separately, Parquet columns may be read in different partitions)
        ys = [y] if y_ndim == 1 else [y[c] for c in y.columns]
        combined = X.assign(**{f"__fastelm_y{i}__": c for i, c in enumerate(ys)})
        return _Data([(b, None) for b in combined.to_delayed()],
                     -1 if y_ndim == 1 else n_outputs, n_features, y_ndim, n_outputs, probe,
                     None)

    import dask.array as da
    if is_dask_input(X):
        X = _as_dask_array(X)
        if X.numblocks[1] > 1:
            if not _known(X.chunks[0]):
                X = X.compute_chunk_sizes()
            X = X.rechunk({1: -1})
        if is_dask_input(y):
            y = _as_dask_array(y)
            if y.chunks[0] != X.chunks[0]:
                if not _known(X.chunks[0]):
                    X = X.compute_chunk_sizes()
                if not _known(y.chunks[0]):
                    y = y.compute_chunk_sizes()
                if y.shape[0] != X.shape[0]:
                    raise ValueError("Found input variables with inconsistent numbers of "
                                     f"samples: [{X.shape[0]}, {y.shape[0]}]")
                y = y.rechunk({0: X.chunks[0], **({1: -1} if y.ndim == 2 else {})})
        else:
            if not _known(X.chunks[0]):
                X = X.compute_chunk_sizes()
            if len(y) != X.shape[0]:
                raise ValueError("Found input variables with inconsistent numbers of samples: "
                                 f"[{X.shape[0]}, {len(y)}]")
            y = da.from_array(y, chunks=(X.chunks[0],) + ((-1,) if y.ndim == 2 else ()))
    else:  # X in memory, y a dask collection: chunk X like y
        y = _as_dask_array(y)
        if not _known(y.chunks[0]):
            y = y.compute_chunk_sizes()
        X = np.asarray(X)
        if len(X) != y.shape[0]:
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{len(X)}, {y.shape[0]}]")
        X = da.from_array(X, chunks=(y.chunks[0], -1))
    if y.ndim == 2 and y.numblocks[1] > 1:
        y = y.rechunk({1: -1})
    n_rows = int(X.shape[0]) if _known(X.chunks[0]) else None
    # optimise X and y as one graph: a source both slice (X = A[:, :d], y = A[:, d]) stays one
    # task instead of being fused into, and computed for, each of them
    import dask
    X, y = dask.optimize(X, y)
    blocks = zip(X.to_delayed(optimize_graph=False)[:, 0],
                 y.to_delayed(optimize_graph=False).ravel())
    return _Data(list(blocks), None, n_features, y_ndim, n_outputs, probe, n_rows)


def _tree(parts, combine, split_every):
    """Combine delayed parts ``split_every`` at a time until one is left (a reduction tree)."""
    import dask
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every!r}")
    combine = dask.delayed(combine, pure=True)
    while len(parts) > 1:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


def _check_input_meta(estimator, data, reset):
    from sklearn.utils.validation import _check_feature_names, _check_n_features
    _check_feature_names(estimator, data.feature_probe, reset=reset)
    _check_n_features(estimator, data.feature_probe, reset=reset)


def _classes(data, given, blas_threads, split_every, compute_kwargs):
    """Sorted labels: ``given`` if any, else one Dask pass of per-chunk np.unique."""
    from sklearn.utils.multiclass import check_classification_targets
    if given is not None:
        classes = np.unique(np.asarray(given))
    else:
        import dask
        unique = dask.delayed(_unique_block, pure=True)
        tree = _tree([unique(xb, yb, data.y_columns) for xb, yb in data.blocks], _union,
                     split_every)
        (classes,) = _compute([tree], blas_threads, compute_kwargs)
    check_classification_targets(classes)
    return classes


def _gram(estimator, data, classes, blas_threads, split_every, compute_kwargs):
    """(n, Σ HᵀH, Σ HᵀT) over every chunk, summed in a tree on the workers."""
    import dask
    spec = _Spec(estimator._feature_map(), estimator.W_.dtype.type, classes, data.y_columns)
    spec = dask.delayed(spec, traverse=False)  # one task holding W, b: not copied per chunk
    gram = dask.delayed(_gram_block, pure=True)
    parts = [gram(xb, yb, spec) for xb, yb in data.blocks]
    sums, = _compute([_tree(parts, _sum_grams, split_every)], blas_threads, compute_kwargs)
    return sums


def _gather_and_fit(estimator, X, y):
    """N < L: the data is small; fit it in memory (dual form), exactly like ``fit``."""
    import dask
    X, y = dask.compute(X, y)
    return estimator.fit(X, y)


def _is_classifier(estimator):
    from ._base import ClassifierOutputs
    return isinstance(estimator, ClassifierOutputs)


# ---------------------------------------------------------------------------------------------
# public API

def fit_dask(estimator, X, y, *, classes=None, sequential=False, blas_threads="auto",
             split_every=SPLIT_EVERY, compute_kwargs=None):
    """Fit a fastelm ELM or OS-ELM estimator on Dask collections; returns the estimator.

    Parameters
    ----------
    estimator : ELMRegressor, ELMClassifier, OSELMRegressor, OSELMClassifier (or a subclass,
        e.g. FOS-ELM: fed chunk by chunk, see ``sequential``)
    X : dask array (n×d; any chunks), dask DataFrame, or an on-disk array (zarr.Array,
        h5py.Dataset: wrapped lazily by ``da.from_array``); numpy/pandas if y is a Dask one
    y : dask array (n,) or (n, m), dask Series/DataFrame, or in-memory array
    classes : labels for a classifier; default: found by a Dask pass over y
    sequential : bool
        OS-ELM only: ``partial_fit`` on the chunks one by one, in order, on this process (each
        chunk computed on a worker); forced for estimators whose per-chunk update is not a Gram
        sum (FOS-ELM). Default: one information-form update with the tree-summed Gram.
    blas_threads : 'auto' or int
        BLAS threads per worker process (module docstring).
    split_every : int
        Fan-in of the tree that adds the per-chunk L×(L+m) Grams.
    compute_kwargs : dict
        Passed to ``dask.compute`` (e.g. ``{"scheduler": "threads"}``).

    The model equals the in-memory fit on the same rows: same W, b (same ``random_state``),
    readout to round-off.
    """
    from .elm import _ELM, _OSELM
    if isinstance(estimator, _OSELM):
        for name in ("rls_", "beta_", "W_", "b_", "classes_"):
            estimator.__dict__.pop(name, None)
        return partial_fit_dask(estimator, X, y, classes=classes, sequential=sequential,
                                blas_threads=blas_threads, split_every=split_every,
                                compute_kwargs=compute_kwargs)
    if not isinstance(estimator, _ELM):
        raise TypeError(f"fit_dask fits fastelm ELM and OS-ELM estimators, not "
                        f"{type(estimator).__name__}")
    dtype = estimator._check_params()
    data = _row_blocks(X, y)
    if data.n_rows is not None and data.n_rows < estimator.n_hidden:
        return _gather_and_fit(estimator, X, y)
    _check_input_meta(estimator, data, reset=True)
    if _is_classifier(estimator):
        estimator.classes_ = _classes(data, classes, blas_threads, split_every, compute_kwargs)
        if len(estimator.classes_) < 2:
            raise ValueError(f"{type(estimator).__name__} needs samples of at least 2 classes; "
                             f"got only one class: {estimator.classes_[0]!r}")
        coding = estimator.classes_
    else:
        estimator._check_target_shape(data.y_ndim, data.n_outputs, reset=True)
        coding = None
    estimator._draw_weights(data.n_features, dtype)
    sums = _gram(estimator, data, coding, blas_threads, split_every, compute_kwargs)
    if sums.n == 0:
        raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
    if sums.n < estimator.n_hidden:  # row count was unknown before the pass
        return _gather_and_fit(estimator, X, y)
    estimator.beta_ = np.ascontiguousarray(sums.solve(estimator.alpha), dtype=dtype)
    return estimator


def partial_fit_dask(estimator, X, y, *, classes=None, sequential=False, blas_threads="auto",
                     split_every=SPLIT_EVERY, compute_kwargs=None):
    """OS-ELM ``partial_fit`` with Dask collections: absorb every row of (X, y).

    From any state (fresh, or after earlier in-memory or Dask chunks), one information-form
    update with the tree-summed Gram (module docstring); afterwards beta is the batch ridge fit
    on every row seen. A fresh classifier finds its classes by a Dask pass unless ``classes`` is
    given (labels may then include ones absent from this data). Parameters as in ``fit_dask``.
    """
    from .elm import _OSELM
    if not isinstance(estimator, _OSELM):
        raise TypeError(f"partial_fit_dask needs an OS-ELM estimator, not "
                        f"{type(estimator).__name__}")
    first = not hasattr(estimator, "rls_")
    dtype = estimator._check_params() if first else estimator.W_.dtype
    data = _row_blocks(X, y)
    classifier = _is_classifier(estimator)
    if first and classifier:
        coding = _classes(data, classes, blas_threads, split_every, compute_kwargs)
        if len(coding) < 2:
            raise ValueError(f"{type(estimator).__name__} needs samples of at least 2 classes; "
                             f"got only one class: {coding[0]!r}")
    else:
        coding = estimator.classes_ if classifier else None

    if sequential or not estimator._gram_updates:
        return _partial_fit_sequential(estimator, data, coding, first, classifier)

    _check_input_meta(estimator, data, reset=first)
    if classifier:
        if first:
            estimator.classes_ = coding
    else:
        estimator._check_target_shape(data.y_ndim, data.n_outputs, reset=first)
    if first:
        estimator._start(data.n_features, len(coding) if classifier else data.n_outputs, dtype)
    sums = _gram(estimator, data, coding, blas_threads, split_every, compute_kwargs)
    if first and sums.n == 0:
        raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
    estimator.rls_.add_gram(sums.AtA, sums.AtT, sums.n)  # beta is solved when next read
    return estimator


def _partial_fit_sequential(estimator, data, classes, first, classifier):
    """partial_fit on each chunk in order; chunks computed on the workers, one at a time."""
    import dask
    for xb, yb in data.blocks:
        X_chunk, y_chunk = _split(*dask.compute(xb, yb), data.y_columns)
        if len(X_chunk) == 0:
            continue
        kw = {"classes": classes} if classifier else {}
        estimator._partial_fit(X_chunk, y_chunk, **kw)
    if not hasattr(estimator, "rls_"):
        raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
    return estimator


def predict_dask(estimator, X, method="predict"):
    """``estimator.<method>(X)`` chunk by chunk on the workers; returns a dask array.

    method : 'predict', 'predict_proba' or 'decision_function' (the last two: classifiers).
    X : dask array or dask DataFrame (row chunks of unknown length stay unknown in the output),
    or an in-memory array (wrapped as one chunk).
    """
    import dask
    from sklearn.utils.validation import (_check_feature_names, _check_n_features,
                                          check_is_fitted)
    check_is_fitted(estimator, "beta_")
    if method not in PREDICT_METHODS:
        raise ValueError(f"method={method!r} is not one of {PREDICT_METHODS}")
    classifier = _is_classifier(estimator)
    if method != "predict" and not classifier:
        raise AttributeError(f"{type(estimator).__name__} has no {method}")
    probe = X._meta if _is_frame(X) else None
    if _is_frame(X):
        X = X.to_dask_array()
    elif is_dask_input(X):
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
    else:
        X = _as_dask_array(X)
        if X.ndim != 2:
            raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
    if probe is None:
        probe = np.empty((0, X.shape[1]))
    _check_feature_names(estimator, probe, reset=False)
    _check_n_features(estimator, probe, reset=False)
    if X.numblocks[1] > 1:
        if not _known(X.chunks[0]):
            X = X.compute_chunk_sizes()
        X = X.rechunk({1: -1})

    k = estimator.beta_.shape[1]
    if classifier:
        ravel = method == "predict" or (method == "decision_function" and k == 2)
    else:
        ravel = estimator._y_1d
    if not classifier:
        out_dtype = estimator.W_.dtype
    elif method == "predict":
        out_dtype = estimator.classes_.dtype
    elif method == "predict_proba":
        out_dtype = np.dtype(np.float64)
    else:
        out_dtype = estimator.W_.dtype
    model = dask.delayed(_Readout(estimator.W_, estimator.b_,
                                  check_activation(estimator.activation), estimator.beta_,
                                  method, estimator.classes_ if classifier else None,
                                  not classifier and estimator._y_1d), traverse=False)
    if ravel:
        return X.map_blocks(_predict_block, model, drop_axis=1, dtype=out_dtype,
                            meta=np.empty((0,), dtype=out_dtype))
    return X.map_blocks(_predict_block, model, chunks=(X.chunks[0], (k,)), dtype=out_dtype,
                        meta=np.empty((0, 0), dtype=out_dtype))


@contextmanager
def parallel_backend(client=None, **backend_params):
    """joblib's Dask backend bound to a Client: scikit-learn ``n_jobs`` work runs on the cluster.

    ``client``: a ``distributed.Client``, a scheduler address ('tcp://host:8786', then a Client
    is opened and closed here), or None for the current default Client. Extra keyword arguments
    go to ``joblib.parallel_config`` (e.g. ``n_jobs``, ``scatter=[X, y]`` to ship data once).
    Yields the Client::

        with parallel_backend(client):
            cross_validate(ELMClassifier(), X, y, cv=10, n_jobs=-1)
            joblib.Parallel(n_jobs=-1)(joblib.delayed(run)(seed) for seed in range(50))
    """
    import joblib
    from distributed import Client, default_client
    own = isinstance(client, str)
    if own:
        client = Client(client)
    elif client is None:
        client = default_client()
    try:
        with joblib.parallel_config(backend="dask", client=client, **backend_params):
            yield client
    finally:
        if own:
            client.close()
