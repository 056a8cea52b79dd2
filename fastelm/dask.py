"""Dask collections as a row source of the ridge readout: Gram sums per chunk on the workers.

A ridge readout needs only sums over rows (``fastelm._gram.GramSums``, docs/algorithms.md §1):

    n,   AᵀA = Σ_chunks AcᵀAc   (p×p),   AᵀT = Σ_chunks AcᵀTc   (p×m),   TᵀT

so a fit splits across workers with no approximation. ``DaskRows`` is the Dask implementation
of the row-source interface (``fastelm._rows.RowSource``; ``ArrayRows`` is the in-memory one): for every row
chunk of X (a dask array, a Zarr / HDF5 array wrapped by ``da.from_zarr`` / ``da.from_array``,
or a dask DataFrame read from Parquet or CSV) a task on a worker applies the estimator's feature
map and target coding and returns the chunk's ``GramSums`` (``fastelm._gram.gram_sums``, the
in-memory computation itself). The sums are added in a tree (``split_every`` at a time), so
only one (p+m)² sum ever reaches this process; neither A nor X is gathered.

This module knows no estimator class: an estimator hands it a feature map (``HiddenMap``) and a
``TargetCoding``, both pure picklable values, and gets sums back; estimators reach it only
through ``fastelm._rows`` (``dask_rows``, ``map_rows``, ``is_dask_input``), and this module
imports Dask only inside its functions, so ``fastelm.elm`` and friends never import Dask. The estimators draw W and b exactly as in memory,
so a Dask fit equals the in-memory fit of the same model on the same rows to round-off
(float64: summing per-chunk Grams instead of one Gram changes only the order of additions).

What the estimators do with Dask input (``fit`` / ``partial_fit`` / ``predict`` ...):

* ELM: one tree-summed Gram, one solve here. When there are fewer rows than hidden nodes the
  in-memory fit uses the dual form and the data is small by definition: it is gathered.
* OS-ELM: one information-form step of the recursive ridge (docs/algorithms.md §2),
  K ← K + Σ AcᵀAc, HᵀT ← HᵀT + Σ AcᵀTc, from whatever state the model is in: algebraically
  ``partial_fit`` over the chunks one by one, at one solve instead of one per chunk.
  Estimators whose update is not a Gram sum (``_gram_updates = False``: FOS-ELM prunes nodes
  on each chunk) get the chunks in order (``DaskRows.blocks``), each computed on a worker and
  learned here; ``options(sequential=True)`` forces that for any OS-ELM.
* ``ELMRegressorCV`` / ``ELMClassifierCV``: y is computed (``DaskRows.targets``, which also
  counts each chunk's rows) to make the splits; then one pass in which each chunk's task returns
  the Gram sums of its rows per test fold (``DaskRows.fold_gram_sums``), tree-added; a scorer's
  validation rows come chunk by chunk (``DaskRows.take``). Equal to the in-memory search to
  round-off. ``BLSRegressorCV`` / ``BLSClassifierCV`` with ``shared_layer=True`` do the same
  with the shared layer's ``BroadMap`` (its layer from ``layer_rows`` rows, as below); with a
  layer per split, each chunk's task applies every split's ``BroadMap`` and returns its sums
  over that split's training and validation rows (``DaskRows.split_gram_sums``).
* ``BLSRegressor`` / ``BLSClassifier``: the label-free layer is learned from ``layer_rows``
  rows gathered to the driver (``DaskRows.count``, ``DaskRows.take``); the layer is then a
  feature map like any other (``fastelm.bls.BroadMap``, I = [X' | Z | E]), so each chunk's
  task returns its GramSums of I and T, tree-added, and the readout is solved here. The
  increments read Dask rows the same way (``add_rows`` adds their sums, ``remove_rows``
  subtracts them); ``add_enhancement_nodes`` first finds the new group's shrink by
  ``DaskRows.reduce`` (column maxima per chunk, combined in a tree), then sums only the new
  columns against every column (``DaskRows.column_sums``). float32 layers sum each chunk's
  float32 products into float64 (``BroadMap.gram_sums``).
* Classifiers find their classes with one Dask pass (``np.unique`` per chunk, merged in a
  tree) unless ``options(classes=...)`` gives them.
* Predictions: ``map_rows`` maps a picklable block function over the row chunks; it returns a
  dask array.

Options (``options`` context, or the keyword arguments of ``fit_dask`` / ``partial_fit_dask``):
``blas_threads``, ``split_every``, ``compute_kwargs`` (passed to ``dask.compute``, e.g.
``{"scheduler": "threads"}``), ``sequential``, ``classes``.

Threads: the Gram tasks compute g(·) on one thread (``add_bias_activate_serial``, bit-identical
to the parallel kernel). BLAS threads are process-wide, so they are limited per worker process
(threadpoolctl, via ``Client.run``): with ``blas_threads='auto'`` a worker running several task
threads gets 1 BLAS thread each (Dask's nanny already starts workers with
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

Why one module of more than 600 lines: it is one concept, the Dask row source; its chunk
functions, alignment of X and y, thread limits and entry points serve only ``DaskRows``, and
split apart they would be modules no other code imports.
"""
from __future__ import annotations

import contextvars
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np
from numpy.typing import ArrayLike, DTypeLike

from ._gram import GramSums, gram_sums, ridge_readout, sums_readout
from ._hidden import DirectLinksMap, HiddenMap
from ._targets import TargetCoding, labels_1d

if TYPE_CHECKING:
    import dask.array
    import dask.dataframe
    import distributed
    from sklearn.base import BaseEstimator

    # rows a Dask fit reads: a Dask collection, an on-disk array (zarr, h5py) or, beside a
    # Dask y, an in-memory array
    Rows: TypeAlias = (dask.array.Array | dask.dataframe.DataFrame | dask.dataframe.Series
                       | ArrayLike)
    FeatureMap: TypeAlias = HiddenMap | DirectLinksMap

__all__ = ["DaskRows", "fit_dask", "partial_fit_dask", "predict_dask", "map_rows", "options",
           "is_dask_input", "parallel_backend"]

SPLIT_EVERY = 8
PREDICT_METHODS = ("predict", "predict_proba", "decision_function")
_DEFAULTS: dict[str, Any] = dict(blas_threads="auto", split_every=SPLIT_EVERY, compute_kwargs=None,
                 sequential=False, classes=None)
_OPTIONS = contextvars.ContextVar("fastelm_dask_options", default=_DEFAULTS)


@contextmanager
def options(**kwargs: Any) -> Iterator[None]:
    """Options of the Dask row source for the fits and predictions inside the block.

    Parameters
    ----------
    **kwargs
        Any of: ``blas_threads`` ('auto' or int, default 'auto': BLAS threads per worker
        process, module docstring); ``split_every`` (int, default 8: fan-in of the tree that
        adds the per-chunk Gram sums); ``compute_kwargs`` (dict, passed to ``dask.compute``);
        ``sequential`` (bool, default False; OS-ELM: learn the chunks one by one, in order,
        here, each computed on a worker, instead of one information step with the tree-summed
        Gram); ``classes`` (a classifier's labels; default: found by a Dask pass over y).
    """
    unknown = set(kwargs) - set(_DEFAULTS)
    if unknown:
        raise TypeError(f"unknown Dask options {sorted(unknown)}; known: {sorted(_DEFAULTS)}")
    split_every = kwargs.get("split_every", SPLIT_EVERY)
    if isinstance(split_every, bool) or not isinstance(split_every, (int, np.integer)) \
            or split_every < 2:
        raise ValueError(f"split_every must be an integer of at least 2, got {split_every!r}")
    token = _OPTIONS.set({**_OPTIONS.get(), **kwargs})
    try:
        yield
    finally:
        _OPTIONS.reset(token)


# ---------------------------------------------------------------------------------------------
# per-chunk work (runs on the workers)

def is_dask_input(*objs: object) -> bool:
    """True when any argument is a Dask collection.

    Imports nothing: if dask was never imported, nothing can be a Dask collection.

    Parameters
    ----------
    *objs : objects

    Returns
    -------
    bool
    """
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    return any(dask.is_dask_collection(obj) for obj in objs)


def _as_float_2d(block, dtype, n_features=None):
    """A chunk of X (numpy, pandas, zarr/h5py slice) as a 2-D float array of ``dtype`` (with
    ``n_features`` columns, when given)."""
    if hasattr(block, "to_numpy"):
        block = block.to_numpy()
    try:
        X = np.asarray(block, dtype=dtype)
    except (TypeError, ValueError) as err:
        raise ValueError(f"X could not be converted to float: {err}") from err
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got a chunk with {X.ndim} dimensions")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"X has a chunk with {X.shape[1]} columns where its other chunks (or "
                         f"its metadata) have {n_features}: give every chunk the same columns")
    if not np.isfinite(X).all():
        raise ValueError("Input X contains NaN or infinity.")
    return X


def _split_frame(X_block, y_block, y_columns):
    """(X, y) of one chunk. ``y_columns`` None: given apart; k > 0: the k columns before the
    last of a combined frame are y; -1: that one column is y as a Series. The last column of
    a combined frame marks the rows y has (``_align``): a missing mark is a row of X that no
    row of y matched on the index, a ValueError."""
    if y_columns is None:
        return X_block, y_block
    unmatched = X_block.iloc[:, -1].isna().to_numpy()
    if unmatched.any():
        raise ValueError(f"X and y are not aligned: {int(unmatched.sum())} row(s) of X in a "
                         f"partition (index {X_block.index[unmatched][:3].tolist()}, ...) have no "
                         "row of y with the same index (dask DataFrames are joined on their "
                         "index); give y the index of X")
    X_block = X_block.iloc[:, :-1]
    k = abs(y_columns)
    y = X_block.iloc[:, -k:]
    return X_block.iloc[:, :-k], (y.iloc[:, 0] if y_columns < 0 else y)


def _chunk_arrays(X_block, y_block, y_columns, dtype, coding, n_features=None):
    """(X, T) arrays of one chunk."""
    X_block, y_block = _split_frame(X_block, y_block, y_columns)
    X = _as_float_2d(X_block, dtype, n_features)
    T = coding(y_block)
    if len(T) != len(X):
        raise ValueError(f"Found input variables with inconsistent numbers of samples: a chunk "
                         f"of X has {len(X)} rows and the matching chunk of y {len(T)}")
    return X, T


def _sums(X, T, feature_map):
    """GramSums (float64) of rows X, T on this thread: the map's own ``gram_sums`` when it has
    one (a BLS layer, whose float32 products are summed into float64 as in memory), else the
    in-memory ``fastelm._gram.gram_sums``."""
    own = getattr(feature_map, "gram_sums", None)
    if own is not None:
        return own(X, T)
    return gram_sums(X, T, feature_map, parallel=False).astype(np.float64)


def _gram_chunk(X_block, y_block, y_columns, feature_map, coding, n_features=None):
    """GramSums (float64) of one row chunk (``_sums``)."""
    X, T = _chunk_arrays(X_block, y_block, y_columns, feature_map.dtype, coding, n_features)
    return _sums(X, T, feature_map)


def _column_chunk(X_block, y_block, y_columns, feature_map, coding, start, n_features):
    """``feature_map.column_sums`` (float64) of one row chunk: columns ``start:`` of AᵀA."""
    X, T = _chunk_arrays(X_block, y_block, y_columns, feature_map.dtype, coding, n_features)
    return feature_map.column_sums(X, T, start)


def _fold_gram_chunk(X_block, y_block, y_columns, feature_map, coding, fold_of, n_folds,
                     n_features=None):
    """[GramSums (float64) of the chunk's rows in fold f for f < n_folds] + [of its rows in
    no fold]: ``fold_of`` holds each row's fold (−1: none)."""
    X, T = _chunk_arrays(X_block, y_block, y_columns, feature_map.dtype, coding, n_features)
    if len(X) != len(fold_of):
        raise ValueError(f"a chunk has {len(X)} rows where {len(fold_of)} were counted")
    return [_sums(X[fold_of == f], T[fold_of == f], feature_map)
            for f in list(range(n_folds)) + [-1]]


def _split_gram_chunk(X_block, y_block, y_columns, feature_maps, coding, fold_of,
                      n_features=None):
    """[training sums of split 0, its validation sums, training sums of split 1, ...]
    (GramSums, float64) of one chunk: split k's I is ``feature_maps[k]`` (its own layer), its
    validation rows those with ``fold_of`` == k, its training rows the others."""
    X, T = _chunk_arrays(X_block, y_block, y_columns, feature_maps[0].dtype, coding,
                         n_features)
    if len(X) != len(fold_of):
        raise ValueError(f"a chunk has {len(X)} rows where {len(fold_of)} were counted")
    out = []
    for k, feature_map in enumerate(feature_maps):
        test = fold_of == k
        out += [_sums(X[rows], T[rows], feature_map) for rows in (~test, test)]
    return out


def _sum_lists(*parts):
    return [_sum(*sums) for sums in zip(*parts)]


def _labels_chunk(X_block, y_block, y_columns):
    return np.asarray(_split_frame(X_block, y_block, y_columns)[1])


def _take_chunk(X_block, y_block, y_columns, dtype, rows, n_features=None):
    X = _as_float_2d(_split_frame(X_block, y_block, y_columns)[0], dtype, n_features)
    return X[rows]


def _len_chunk(X_block, y_block, y_columns):
    return len(_split_frame(X_block, y_block, y_columns)[0])


def _reduce_chunk(X_block, y_block, y_columns, dtype, n_features, func):
    return func(_as_float_2d(_split_frame(X_block, y_block, y_columns)[0], dtype, n_features))


def _sum(*parts):
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def _unique_chunk(X_block, y_block, y_columns):
    return np.unique(labels_1d(_split_frame(X_block, y_block, y_columns)[1]))


def _union(*parts):
    return np.unique(np.concatenate(parts))


def _apply_to_block(block, func, dtype):
    return func(_as_float_2d(block, dtype))


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


def _align(X, y):
    """Align X and y into matching row chunks (delayed), never computing the data.

    Returns (chunk pairs, y_columns, n_features, y_ndim, n_outputs, feature probe, row chunk
    lengths (None: unknown before a pass), y's row count (lazy) when y is joined to X on the
    index, else None).

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
        # the last column marks the rows of y: X.assign joins on the index, leaving it NaN
        # where a row of X has no row of y (_split_frame)
        combined = X.assign(**{f"__fastelm_y{i}__": c for i, c in enumerate(ys)},
                            __fastelm_yrow__=ys[0].isna() | True)
        return ([(b, None) for b in combined.to_delayed()], -1 if y_ndim == 1 else n_outputs,
                n_features, y_ndim, n_outputs, probe, None, ys[0].shape[0])

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
    lengths = tuple(int(c) for c in X.chunks[0]) if _known(X.chunks[0]) else None
    # optimise X and y as one graph: a source both slice (X = A[:, :d], y = A[:, d]) stays one
    # task instead of being fused into, and computed for, each of them
    import dask
    X, y = dask.optimize(X, y)
    blocks = zip(X.to_delayed(optimize_graph=False)[:, 0],
                 y.to_delayed(optimize_graph=False).ravel())
    return list(blocks), None, n_features, y_ndim, n_outputs, probe, lengths, None


def _unmatched_y(n_y, n_x):
    """A one-line ValueError when y (joined to X on the index) has rows no row of X took: the
    join would drop them silently."""
    if n_y is not None and n_y > n_x:
        raise ValueError(f"X and y are not aligned: y has {n_y} rows, {n_y - n_x} of them on "
                         f"an index that no row of X has ({n_x} rows); give y the index of X")


def _tree(parts, combine, split_every):
    """Combine delayed parts ``split_every`` at a time until one is left (a reduction tree)."""
    import dask
    if split_every < 2:
        raise ValueError(f"split_every must be at least 2, got {split_every!r}")
    combine = dask.delayed(combine, pure=True)
    while len(parts) > 1:
        parts = [combine(*parts[i:i + split_every]) for i in range(0, len(parts), split_every)]
    return parts[0]


class DaskRows:
    """Training rows (X, y) given as Dask collections: the distributed row source.

    Nothing is computed on construction except unknown chunk lengths where X and y must be
    re-aligned. Methods as in ``fastelm._rows`` (the row-source interface); options from
    ``options``.

    Parameters
    ----------
    X : dask array (n×d; any chunks), dask DataFrame, or an on-disk array
        zarr.Array, h5py.Dataset: wrapped lazily by ``da.from_array``; numpy/pandas if y is a
        Dask collection.
    y : dask array (n,) or (n, m), dask Series/DataFrame, or an in-memory array
    """

    distributed = True
    _offsets: Any  # each chunk's first row (and the row count), once known

    def __init__(self, X: Rows, y: Rows):
        (self._pairs, self._y_columns, self.n_features, self.y_ndim, self.n_outputs,
         self.feature_probe, lengths, self._y_rows) = _align(X, y)
        self._offsets = None if lengths is None else np.cumsum((0,) + lengths)
        self.n_rows = None if lengths is None else int(self._offsets[-1])
        self._X, self._y = X, y
        self._options = dict(_OPTIONS.get())
        self.sequential = bool(self._options["sequential"])

    def _compute(self, *collections: Any) -> tuple[Any, ...]:
        import dask

        kwargs = dict(self._options["compute_kwargs"] or {})
        with _thread_limits(self._options["blas_threads"], kwargs.get("scheduler")):
            return dask.compute(*collections, **kwargs)

    def _tree(self, parts, combine):
        return _tree(parts, combine, self._options["split_every"])

    def labels(self) -> np.ndarray:
        """Sorted labels: the ``classes`` option if given, else one Dask pass of np.unique."""
        from sklearn.utils.multiclass import check_classification_targets
        if self._options["classes"] is not None:
            classes = np.unique(np.asarray(self._options["classes"]))
        else:
            import dask
            unique = dask.delayed(_unique_chunk, pure=True)
            (classes,) = self._compute(self._tree(
                [unique(xb, yb, self._y_columns) for xb, yb in self._pairs], _union))
        check_classification_targets(classes)
        return classes

    def gram_sums(self, feature_map: FeatureMap, coding: TargetCoding) -> GramSums:
        """GramSums (float64) of every chunk, summed in a tree on the workers.

        Parameters
        ----------
        feature_map : picklable feature map (e.g. ``fastelm._hidden.HiddenMap``)
        coding : fastelm._targets.TargetCoding

        Returns
        -------
        fastelm._gram.GramSums
        """
        parts = self._chunk_tasks(_gram_chunk, feature_map, coding, self.n_features)
        sums, *n_y = self._compute(self._tree(parts, _sum),
                                   *([] if self._y_rows is None else [self._y_rows]))
        _unmatched_y(n_y[0] if n_y else None, sums.n)
        if sums.n == 0:
            raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")
        return sums

    def column_sums(self, feature_map: FeatureMap, coding: TargetCoding, start: int
                    ) -> GramSums:
        """The map's ``column_sums`` (float64) of every chunk, summed in a tree on the
        workers: AtA holds the columns ``start:`` of AᵀA only (p × (p − start)), AtT = AᵀT.

        Parameters
        ----------
        feature_map : picklable feature map with ``column_sums(X, T, start)``
            (``fastelm.bls.BroadMap``)
        coding : fastelm._targets.TargetCoding
        start : int

        Returns
        -------
        fastelm._gram.GramSums
        """
        parts = self._chunk_tasks(_column_chunk, feature_map, coding, start, self.n_features)
        (sums,) = self._compute(self._tree(parts, _sum))
        return sums

    def _chunk_tasks(self, function, feature_map, coding, *args, per_row=None):
        """One task per chunk, ``function(X_c, y_c, y_columns, feature_map, coding, *args)``;
        the map and the coding are one task each, not copied into every chunk's task.
        ``per_row`` (an array over all rows, after ``targets``): the chunk's slice of it goes
        before ``args``."""
        import dask
        feature_map = dask.delayed(feature_map, traverse=False)
        coding = dask.delayed(coding, traverse=False)
        part = dask.delayed(function, pure=True)
        o = self._offsets if per_row is not None else None
        return [part(xb, yb, self._y_columns, feature_map, coding,
                     *(() if o is None else (per_row[o[i]:o[i + 1]],)), *args)
                for i, (xb, yb) in enumerate(self._pairs)]

    def targets(self) -> np.ndarray:
        """y in memory (one Dask pass over y), and the rows of each chunk, which later
        per-row work (``fold_gram_sums``, ``take``) uses.

        Returns
        -------
        ndarray of shape (n,) or (n, m)
        """
        import dask
        part = dask.delayed(_labels_chunk, pure=True)
        parts = self._compute(*[part(xb, yb, self._y_columns) for xb, yb in self._pairs],
                              *([] if self._y_rows is None else [self._y_rows]))
        if self._y_rows is not None:
            *parts, n_y = parts
            _unmatched_y(n_y, sum(len(y) for y in parts))
        self._offsets = np.cumsum([0] + [len(y) for y in parts])
        self.n_rows = int(self._offsets[-1])
        return np.concatenate(parts)

    def fold_gram_sums(self, feature_map: FeatureMap, coding: TargetCoding, fold_of: np.ndarray,
                       n_folds: int) -> list[GramSums]:
        """GramSums (float64) of the rows of each fold, and of the rows in none, from one pass:
        per chunk on a worker, summed in a tree (after ``targets``).

        Parameters
        ----------
        feature_map : picklable feature map
        coding : fastelm._targets.TargetCoding
        fold_of : ndarray of shape (n,), int
            Each row's fold in [0, n_folds), or −1.
        n_folds : int

        Returns
        -------
        list of n_folds + 1 GramSums
            The last: the rows in no fold.
        """
        parts = self._chunk_tasks(_fold_gram_chunk, feature_map, coding, n_folds,
                                  self.n_features, per_row=fold_of)
        (sums,) = self._compute(self._tree(parts, _sum_lists))
        return sums

    def split_gram_sums(self, feature_maps: list[FeatureMap], coding: TargetCoding,
                        fold_of: np.ndarray) -> list[tuple[GramSums, GramSums]]:
        """Per split k, the GramSums (float64) of its own map's features over its training
        rows (``fold_of`` ≠ k) and over its validation rows (``fold_of`` = k), from one pass:
        each chunk's task applies every split's map, summed in a tree (after ``targets``).

        Parameters
        ----------
        feature_maps : list of picklable feature maps, one per split
        coding : fastelm._targets.TargetCoding
        fold_of : ndarray of shape (n,), int
            Each row's test fold (−1: none): split k validates on fold k and trains on the
            rest, so its training sums are of the complement (KFold-like splits).

        Returns
        -------
        list of (training GramSums, validation GramSums), one per split
        """
        parts = self._chunk_tasks(_split_gram_chunk, list(feature_maps), coding,
                                  self.n_features, per_row=fold_of)
        (sums,) = self._compute(self._tree(parts, _sum_lists))
        return list(zip(sums[0::2], sums[1::2]))

    def count(self) -> int:
        """The number of rows: known from the chunks of a dask array, else one pass counting
        each chunk's rows (which ``take`` then uses).

        Returns
        -------
        int
        """
        if self._offsets is None:
            import dask
            part = dask.delayed(_len_chunk, pure=True)
            lengths = self._compute(*[part(xb, yb, self._y_columns) for xb, yb in self._pairs])
            self._offsets = np.cumsum([0] + list(lengths))
        self.n_rows = int(self._offsets[-1])
        return self.n_rows

    def reduce(self, func: Callable[[np.ndarray], Any], combine: Callable[..., Any],
               dtype: DTypeLike) -> Any:
        """``combine`` of ``func(X_c)`` over the row chunks X_c of X (float arrays of ``dtype``),
        each on a worker, combined in a tree: e.g. column maxima of features of all rows.

        Parameters
        ----------
        func : picklable callable, (rows×d array) → value
        combine : picklable callable, ``(*values) → value``
        dtype : numpy dtype

        Returns
        -------
        the combined value
        """
        import dask
        part = dask.delayed(_reduce_chunk, pure=True)
        func = dask.delayed(func, traverse=False)
        (value,) = self._compute(self._tree(
            [part(xb, yb, self._y_columns, dtype, self.n_features, func)
             for xb, yb in self._pairs], combine))
        return value

    def take(self, rows: np.ndarray, dtype: DTypeLike) -> np.ndarray:
        """X[rows] in memory (rows: indices into all rows, after ``count`` or ``targets``),
        each chunk's share selected on its worker.

        Parameters
        ----------
        rows : ndarray of int
        dtype : numpy dtype

        Returns
        -------
        ndarray of shape (len(rows), d)
        """
        import dask
        rows = np.asarray(rows)
        order = np.argsort(rows, kind="stable")
        ordered, o = rows[order], self._offsets
        take = dask.delayed(_take_chunk, pure=True)
        parts = []
        for i, (xb, yb) in enumerate(self._pairs):
            lo, hi = np.searchsorted(ordered, [o[i], o[i + 1]])
            if hi > lo:
                parts.append(take(xb, yb, self._y_columns, dtype, ordered[lo:hi] - o[i],
                                  self.n_features))
        out = np.empty((len(rows), self.n_features), dtype=dtype)
        if parts:
            out[order] = np.concatenate(self._compute(*parts))
        return out

    def gather(self, coding: TargetCoding) -> tuple[np.ndarray, np.ndarray]:
        """(X, T) of every row, in memory.

        Parameters
        ----------
        coding : fastelm._targets.TargetCoding

        Returns
        -------
        X, T : ndarray
        """
        import dask
        X, y = dask.compute(self._X, self._y)
        if hasattr(X, "to_numpy"):
            X = X.to_numpy()
        return _chunk_arrays(X, y, None, coding.dtype, coding)

    def ridge_readout(self, feature_map: FeatureMap, coding: TargetCoding, alpha: float | str
                      ) -> tuple[np.ndarray, float]:
        """(beta, alpha) of the ridge readout: the tree-summed Gram solved here (alpha='gcv'
        chosen from it); fewer rows than p: the rows are gathered and solved in the dual form,
        exactly as in memory.

        Parameters
        ----------
        feature_map : picklable feature map
        coding : fastelm._targets.TargetCoding
        alpha : float or 'gcv'

        Returns
        -------
        beta : ndarray of shape (p, m), the map's dtype
        alpha : float
        """
        p = feature_map.width
        if self.n_rows is None or self.n_rows >= p:
            sums = self.gram_sums(feature_map, coding)
            if sums.n >= p:
                return sums_readout(sums, alpha, feature_map.dtype)
        return ridge_readout(*self.gather(coding), feature_map, alpha)

    def blocks(self, coding: TargetCoding) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(X, T) of each non-empty chunk in order, each computed on a worker in turn.

        Parameters
        ----------
        coding : fastelm._targets.TargetCoding

        Yields
        ------
        X, T : ndarray
        """
        seen = False
        for xb, yb in self._pairs:
            X_block, y_block = self._compute(xb, yb)
            X, T = _chunk_arrays(X_block, y_block, self._y_columns, coding.dtype, coding)
            if len(X):
                seen = True
                yield X, T
        if not seen:
            raise ValueError("Found array with 0 sample(s) while a minimum of 1 is required.")


def feature_probe(X: Any) -> Any:
    """An empty frame with X's columns (dask DataFrame), else an empty (0, d) array."""
    if _is_frame(X):
        return X._meta
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        raise ValueError(f"Expected 2D array, got {0 if shape is None else len(shape)}D input X")
    return np.empty((0, shape[1]))


def map_rows(func: Callable[[np.ndarray], np.ndarray], X: Any, dtype: DTypeLike,
             n_columns: int | None, out_dtype: DTypeLike) -> dask.array.Array:
    """``func`` on each row chunk of X (as a float array of ``dtype``), lazily: a dask array.

    Parameters
    ----------
    func : picklable callable
        (rows×d array) → (rows,) array (``n_columns`` None) or (rows × n_columns) array.
    X : dask array, dask DataFrame or an in-memory array (one chunk)
        Row chunks of unknown length stay unknown in the output.
    dtype, out_dtype : numpy dtypes
        Of X's blocks as ``func`` sees them, and of the result.
    n_columns : int or None
    """
    from functools import partial
    if _is_frame(X):
        X = X.to_dask_array()
    else:
        X = _as_dask_array(X)
    if X.ndim != 2:
        raise ValueError(f"Expected 2D array, got {X.ndim}D array instead")
    if X.numblocks[1] > 1:
        if not _known(X.chunks[0]):
            X = X.compute_chunk_sizes()
        X = X.rechunk({1: -1})
    out_dtype = np.dtype(out_dtype)
    block = partial(_apply_to_block, func=func, dtype=dtype)
    if n_columns is None:
        return X.map_blocks(block, drop_axis=1, dtype=out_dtype,
                            meta=np.empty((0,), dtype=out_dtype))
    return X.map_blocks(block, chunks=(X.chunks[0], (n_columns,)), dtype=out_dtype,
                        meta=np.empty((0, 0), dtype=out_dtype))


# ---------------------------------------------------------------------------------------------
# entry points with options

def fit_dask(estimator: BaseEstimator, X: Rows, y: Rows, **kwargs: Any) -> BaseEstimator:
    """``estimator.fit(X, y)`` on Dask collections with the given ``options``.

    The estimator (ELM, OS-ELM, FOS-ELM) equals its in-memory fit on the same rows: same W, b
    (same ``random_state``), readout to round-off.

    Parameters
    ----------
    estimator : ELM, OS-ELM or FOS-ELM estimator
    X : dask array, dask DataFrame, zarr.Array or h5py.Dataset (see ``DaskRows``)
    y : dask array, dask Series/DataFrame or in-memory array
    **kwargs
        ``options``: blas_threads, split_every, compute_kwargs, sequential, classes.

    Returns
    -------
    estimator
    """
    if not callable(getattr(estimator, "fit", None)):
        raise TypeError(f"fit_dask fits fastelm ELM and OS-ELM estimators, not "
                        f"{type(estimator).__name__}")
    with options(**kwargs):
        return estimator.fit(X, y)


def partial_fit_dask(estimator: BaseEstimator, X: Rows, y: Rows, **kwargs: Any
                     ) -> BaseEstimator:
    """``estimator.partial_fit(X, y)`` (OS-ELM) on Dask collections with the given ``options``.

    A fresh classifier takes its labels from the ``classes`` option, or finds them by a Dask
    pass; afterwards beta is the batch ridge fit on every row seen (module docstring).

    Parameters
    ----------
    estimator : OS-ELM or FOS-ELM estimator
    X, y : as in ``fit_dask``
    **kwargs
        ``options``.

    Returns
    -------
    estimator
    """
    if not callable(getattr(estimator, "partial_fit", None)):
        raise TypeError(f"partial_fit_dask needs an OS-ELM estimator, not "
                        f"{type(estimator).__name__}")
    with options(**kwargs):
        return estimator.partial_fit(X, y)


def predict_dask(estimator: BaseEstimator, X: Rows, method: str = "predict"
                 ) -> dask.array.Array:
    """``estimator.<method>(X)`` chunk by chunk on the workers.

    Parameters
    ----------
    estimator : fitted ELM, OS-ELM or FOS-ELM estimator
    X : dask array or dask DataFrame, or an in-memory array (wrapped as one chunk)
    method : {'predict', 'predict_proba', 'decision_function'}, default='predict'

    Returns
    -------
    dask array
    """
    if method not in PREDICT_METHODS:
        raise ValueError(f"method={method!r} is not one of {PREDICT_METHODS}")
    if not is_dask_input(X):
        X = _as_dask_array(X)
    return getattr(estimator, method)(X)


@contextmanager
def parallel_backend(client: distributed.Client | str | None = None, **backend_params: Any
                     ) -> Iterator[distributed.Client]:
    """joblib's Dask backend bound to a Client: scikit-learn ``n_jobs`` work runs on the cluster.

    Parameters
    ----------
    client : distributed.Client, str or None
        A Client, a scheduler address ('tcp://host:8786', then a Client is opened and closed
        here), or None for the current default Client.
    **backend_params
        Passed to ``joblib.parallel_config`` (e.g. ``n_jobs``, ``scatter=[X, y]`` to ship data
        once).

    Yields
    ------
    client : distributed.Client

    Examples
    --------
    ::

        with parallel_backend(client):
            cross_validate(ELMClassifier(), X, y, cv=10, n_jobs=-1)
            joblib.Parallel(n_jobs=-1)(joblib.delayed(run)(seed) for seed in range(50))
    """
    import joblib
    from distributed import Client, default_client
    owned = None
    if isinstance(client, str):
        client = owned = Client(client)
    elif client is None:
        client = default_client()
    try:
        with joblib.parallel_config(backend="dask", client=client, **backend_params):
            yield client
    finally:
        if owned is not None:
            owned.close()
