"""A Broad Learning System over several atlases: one BLS layer per atlas, their nodes joined
before one readout whose penalty is chosen by cross-validation.

X holds the atlases' feature blocks side by side (``atlas_features`` = their widths, in
order). Atlas a has its own BLS layer (input scaling, n sparse-autoencoder windows of k
feature nodes Z_a, q enhancement nodes E_a; docs/algorithms.md §5), fitted without the labels
on the training rows; the readout sees

    I = [X'_1 | … | X'_A (direct links, when chosen) | Z_1 | E_1 | … | Z_A | E_A]

and solves β = (IᵀI + C·I)⁻¹IᵀT (or its dual form) at the penalty C (and direct links)
chosen by the inner cross-validation of ``BLSClassifierCV(shared_layer=True)``: the layers
are fitted once on the rows given to ``fit`` and shared by the inner splits and the refit.
The layers draw their weights in atlas order from one Generator made from ``random_state``,
so with one atlas the model is ``BLSClassifierCV(shared_layer=True)`` exactly (the same I,
penalty and predictions).
"""
from __future__ import annotations

import os
import time
from collections.abc import Sequence

import numpy as np

from ..._hidden import check_generator
from ...model_selection import BLSClassifierCV


class MultiAtlasBLSClassifierCV(BLSClassifierCV):
    """BLS classifier with one broad layer per atlas and one readout (module docstring).

    Parameters
    ----------
    atlas_features : sequence of int > 0
        The widths of the atlases' column blocks of X, in order; they sum to X's width.
    n_windows, nodes_per_window, n_enhancement, shrink, sparse_lambda, preprocessing :
        Every atlas's layer, as in ``BLSClassifier``.
    regs, direct_links, cv, scoring, random_state, dtype :
        As in ``BLSClassifierCV`` (the layers are always shared by the inner splits).

    Attributes
    ----------
    layers_ : list of the atlases' fitted layers (``BLSClassifier``, readout not fitted)
    reg_, direct_links_, regs_, best_score_, cv_results_, classes_, beta_ :
        As in ``BLSClassifierCV``.
    """

    _parameter_constraints = {**BLSClassifierCV._parameter_constraints,
                              "atlas_features": ["array-like"]}
    _parameter_constraints.pop("shared_layer")
    shared_layer = True  # the search's shared-layer path: one layer per atlas, fitted once

    def __init__(self, atlas_features: Sequence[int] = (1,), n_windows: int = 10,
                 nodes_per_window: int = 10, n_enhancement: int = 1000, shrink: float = 0.8,
                 regs: Sequence[float] | None = None, sparse_lambda: float = 1e-3,
                 preprocessing: str = "minmax",
                 direct_links: bool | Sequence[bool] = (False, True), cv=None,
                 scoring=None, random_state=None, dtype="float64"):
        self.atlas_features = atlas_features
        self.n_windows = n_windows
        self.nodes_per_window = nodes_per_window
        self.n_enhancement = n_enhancement
        self.shrink = shrink
        self.regs = regs
        self.sparse_lambda = sparse_lambda
        self.preprocessing = preprocessing
        self.direct_links = direct_links  # type: ignore[assignment]  # a grid
        self.cv = cv
        self.scoring = scoring
        self.random_state = random_state
        self.dtype = dtype

    def _bounds(self, n_features):
        widths = list(np.asarray(self.atlas_features).ravel())
        if (not widths or any(not float(w).is_integer() or w < 1 for w in widths)
                or sum(widths) != n_features):
            raise ValueError(f"atlas_features must be positive integers summing to the "
                             f"number of features ({n_features}), got {self.atlas_features!r}")
        edges = np.concatenate([[0], np.cumsum(widths)]).astype(int)
        return list(zip(edges[:-1], edges[1:]))

    def _fit_layer(self, X, y, **target_kw):
        """Fit every atlas's layer on its columns of (X, y) and keep the joined inputs of the
        readout's Gram (``feature_nodes_`` = [X'_1 … X'_A | Z_1 … Z_A]); returns the flops."""
        dtype = self._check_params()
        X, T = self._validate_Xy(X, y, dtype, reset=True, **target_kw)
        self._fix_layout()
        self._fixed = None
        self.bounds_ = self._bounds(X.shape[1])
        rng = check_generator(self.random_state)
        self.layers_, work = [], 0.0
        for a, b in self.bounds_:
            layer = self._base(1.0, False)
            layer.random_state = rng  # one Generator, drawn from in atlas order
            work += layer._fit_layer(np.ascontiguousarray(X[:, a:b]), y)
            self.layers_.append(layer)
        self.sparse_weights_ = np.empty((0, 0), dtype=dtype)  # the dtype; windows in layers_
        self.feature_nodes_ = self._feature_nodes(X, nodes=[l.feature_nodes_
                                                            for l in self.layers_])
        self.targets_ = np.array(self._code_targets(T))
        return work

    def _n_nodes(self):
        return self._links() + sum(layer._n_nodes() for layer in self.layers_)

    def _scale_inputs(self, X):
        return X  # each layer scales its own atlas's columns (_feature_nodes)

    def _feature_nodes(self, X, nodes=None):
        """[X'_1 … X'_A (with direct links) | Z_1 … Z_A] of rows X (``nodes``: the Z_a
        already made by the layers' fits)."""
        scaled = [layer._scale_inputs(np.ascontiguousarray(X[:, a:b]))
                  for layer, (a, b) in zip(self.layers_, self.bounds_)]
        if nodes is None:
            nodes = [layer._feature_nodes(s) for layer, s in zip(self.layers_, scaled)]
        return np.hstack((scaled if self._direct_links() else []) + list(nodes))

    def _broad_blocks(self, Z, rows=None):
        """Yield (start, stop, I_block) of the joined I (module docstring) for the rows of
        ``feature_nodes_``-shaped Z; one buffer, reused: consume each block first."""
        L, d = self._n_nodes(), self._links()
        rows = min(Z.shape[0], rows or self._block_rows(L))
        buffer = np.empty((max(rows, 1), L), dtype=Z.dtype)
        widths = [layer.sparse_weights_.shape[1] for layer in self.layers_]
        for r0 in range(0, Z.shape[0], rows):
            r1 = min(r0 + rows, Z.shape[0])
            block = buffer[:r1 - r0]
            block[:, :d] = Z[r0:r1, :d]
            col, z0 = d, d
            for layer, nk in zip(self.layers_, widths):
                part = next(layer._broad_blocks(Z[r0:r1, z0:z0 + nk], rows=r1 - r0))[2]
                block[:, col:col + part.shape[1]] = part
                col, z0 = col + part.shape[1], z0 + nk
            yield r0, r1, block

    def _no_increments(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} has no incremental steps; refit it")

    add_enhancement_nodes = add_rows = remove_rows = _no_increments


def multi_atlas_models(widths, dnn_max_iter=200, bls_params=None):
    """The models of the multi-atlas comparison, ``{kind role: {name: estimator}}``: on each
    atlas BLS-CV and the l2 logistic regression; on the atlases joined also the multi-atlas
    BLS-CV (one layer per atlas, BLS-CV's grids and layer settings), BLS-CV with one
    layer over the concatenated features and the paper's 1000-600 DNN (the single-atlas
    run's, ``dnn_max_iter`` epochs at most): the deep comparator of the joined features."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from .models import BLS_CV_REGS, INNER_FOLDS, default_models

    base = default_models(dnn_max_iter, bls_params, extended=True)
    single = {k: base[k] for k in ("BLS-CV", "logistic l2") if k in base}
    bls_cv = base["BLS-CV"].steps[-1][1]
    params = {k: v for k, v in bls_cv.get_params(deep=False).items()
              if k in MultiAtlasBLSClassifierCV().get_params()}
    params.update(regs=BLS_CV_REGS, cv=INNER_FOLDS)
    joined = {"multi-atlas BLS-CV": make_pipeline(
        StandardScaler(), MultiAtlasBLSClassifierCV(atlas_features=list(widths), **params)),
        **single, "DNN": base["DNN"]}
    return {"single": single, "joined": joined}


def run_multi_atlas(quick, out_dir, seed, data_dir, atlases, progress=True, *, sites=None,
                    settings=None, threads=1, strategy=None):
    """Each atlas's connectivity features and the atlases joined, on the subjects every atlas
    has, with the same stratified folds (site × diagnosis): BLS-CV and l2 logistic regression
    per atlas, and on the joined features the multi-atlas BLS-CV and the DNN beside them.
    Writes the tables, plots and notes of ``run`` (the ``features`` column names the atlas or
    ``a+b``); returns ``write_outputs``'s dict."""
    from .models import describe
    from .outputs import write_outputs
    from .protocol import FoldFeatures, cv_splits, run_splits
    from .records import data_entry, penalty_counts
    from .settings import dnn_skip, settings_for
    from .subjects import _subsample, load

    start_all = time.perf_counter()
    cfg = settings_for(quick, settings, real=True)
    atlases = list(dict.fromkeys(atlases))
    loaded = [load(data_dir, "connectivity", sites, atlas, strategy) for atlas in atlases]
    common = set.intersection(*(set(b.subject_ids.tolist()) for *_, b in loaded))
    _, y0, strata0, bunch0 = loaded[0]
    first = np.array([i for i, s in enumerate(bunch0.subject_ids) if s in common])
    keep = first[_subsample(strata0[first], cfg["subsample"], seed)]
    ids = bunch0.subject_ids[keep]
    matrices = {}
    for atlas, (X, _, _, bunch) in zip(atlases, loaded):
        pos = {s: i for i, s in enumerate(bunch.subject_ids)}
        matrices[atlas] = X[[pos[s] for s in ids]]
    joined = "+".join(atlases)
    matrices[joined] = np.hstack([matrices[a] for a in atlases])
    y, strata = y0[keep], strata0[keep]
    n_sites = len(set(bunch0.sites[keep]))
    splits = cv_splits(y, strata if n_sites > 1 else None, cfg["n_splits"], cfg["n_repeats"],
                       seed)
    roles = multi_atlas_models([matrices[a].shape[1] for a in atlases], cfg["dnn_max_iter"],
                               cfg.get("bls_params"))
    ff = FoldFeatures(matrices=matrices)
    name = os.path.basename(os.path.normpath(data_dir)) or "data"
    data = {name: data_entry(bunch0, y, {k: int(v.shape[1]) for k, v in matrices.items()},
                              keep)}
    bunches = [b for *_, b in loaded]
    data[name].update(  # every atlas's ROIs and unusable subjects, as the notes print them
        atlas=joined, of_subjects=int(len(common)),
        rois=", ".join(f"{len(b.roi_names)} ({a})" for a, b in zip(atlases, bunches)),
        excluded=", ".join(f"{len(b.excluded)} ({a})" for a, b in zip(atlases, bunches)),
        dropped={a: int(len(b.subject_ids) - len(common)) for a, b in zip(atlases, bunches)})
    records = []
    models = {}
    skip = dnn_skip(cfg, len(splits))
    for kind in atlases + [joined]:
        kind_models = roles["joined" if kind == joined else "single"]
        models.update(kind_models)
        recs, _ = run_splits(ff, [kind], y, kind_models, splits, seed, threads=threads,
                             progress=progress, desc=f"{name} CV {kind}", n_jobs=cfg["n_jobs"],
                             skip=skip)
        records += [dict(r, **{"data set": name}) for r in recs]
    meta = {"quick": bool(quick), "seed": seed, "settings": cfg, "data": data,
            "data_dir": str(data_dir), "sites": None if sites is None else list(sites),
            "models": list(models), "descriptions": {n: describe(m) for n, m in models.items()},
            "threads": threads, "atlas": joined, "strategy": strategy,
            "penalties": penalty_counts(records),
            "direct_links": penalty_counts(records, "direct_links"),
            "seconds": time.perf_counter() - start_all}
    result = write_outputs(out_dir, records, meta)
    result["seconds"] = time.perf_counter() - start_all
    return result
