"""The models of the BLS-fMRI comparison, as unfitted scikit-learn estimators.

The paper's five (Liu & Ji 2021): BLS at its ABIDE-UM settings, linear SVM, random forest, KNN
and the 1000-600-softmax network; on real data three more: ``BLSClassifierCV`` and
``ELMClassifierCV`` (``fastelm.model_selection``: the ridge penalty chosen inside each training
fold, the ELM also choosing direct input-output links) and an ℓ2 logistic regression, the
strong linear baseline of the connectome literature (Dadi et al., NeuroImage 2019).
"""
import re

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.decomposition import PCA
from sklearn.ensemble import RandomForestClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.neighbors import KNeighborsClassifier
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler
from sklearn.svm import SVC

from ...bls import BLSClassifier

MODELS = ("BLS", "linear SVM", "RF", "KNN", "DNN")
#: models added on real data (when fastelm.model_selection provides the CV estimators)
EXTRA_MODELS = ("BLS-CV", "ELM-CV", "logistic l2")
#: the fastelm models whose accuracy the paper's claim is about
FASTELM_MODELS = ("BLS", "BLS-CV", "ELM-CV")

#: the paper's BLS settings for ABIDE-UM (docs/algorithms.md §5), with the reference scaling
BLS_PARAMS = dict(n_windows=10, nodes_per_window=10, n_enhancement=2000, shrink=0.8,
                  reg=2.0 ** -30, preprocessing="reference")
DNN_LAYERS = (1000, 600)
#: penalty grids searched inside each training fold (5-fold inner CV). With direct links
#: the readout's 19900 connectome inputs want large penalties: on the development set the
#: earlier grids' tops (BLS 1e3 or 1e4, ELM 1e6) were chosen in every fold, so both grids reach
#: far past them
BLS_CV_REGS = tuple(10.0 ** np.arange(-3, 8))
ELM_CV_ALPHAS = tuple(10.0 ** np.arange(-1, 10))
ELM_CV_HIDDEN = 500
#: ELM-CV sees the first ELM_CV_PCA principal components of the standardised inputs (fitted on
#: the training fold): with direct links on 19900 raw connectome features, ELMClassifierCV's
#: per-fold Gram sums (p × p, p = 20400) took 11 GB and were stopped
ELM_CV_PCA = 300
INNER_FOLDS = 5

WHY = {
    "BLS": "by default the paper's ABIDE-UM settings (n = 10 windows, k = 10, q = 2000, s = 0.8, "
           "C = 2^-30); inputs scaled as the reference code does (each sample z-scored), so no "
           "scaler",
    "BLS-CV": "the paper's BLS layer (its per-sample z-scoring too) on standardised inputs, "
              "like the other comparators', with the readout penalty C (1e-3 … 1e7) and "
              "direct input-output links (with or without) chosen by 5-fold CV inside each "
              "training fold: the label-free BLS layer is fitted once on the training fold and "
              "shared by the inner splits and the refit (shared_layer=True), every C and link "
              "setting scored from one kernel of its rows",
    "ELM-CV": "tanh ELM (500 nodes) whose penalty (0.1 … 1e9) and direct input-output links "
              "are chosen by 5-fold CV inside each training fold, on the first 300 principal "
              "components (whitened, rows scaled to unit expected norm) "
              "of the standardised inputs (PCA fitted on the training fold)",
    "logistic l2": "l2 logistic regression, C = 1 (lbfgs), inputs standardised: the connectome "
                   "literature's strong linear baseline",
    "linear SVM": "library defaults (C = 1); scaled, libsvm is not scale invariant",
    "RF": "library defaults (100 trees); trees need no scaling",
    "KNN": "library defaults (5 neighbours, Euclidean); scaled, distances mix units otherwise",
    "DNN": "the 1000-600-softmax network; library defaults otherwise (ReLU, Adam, stop when "
           "the training loss stalls, at most `dnn_max_iter` epochs), float32 as TensorFlow",
}


def _as_float32(X):
    return np.asarray(X, dtype=np.float32)


class TopComponents(TransformerMixin, BaseEstimator):
    """``PCA(n_components, svd_solver='randomized')`` with the number of components capped at
    the training rows minus one (a quick run's folds have fewer rows than 300).

    With ``unit_rows``, the k components are whitened (unit variance on the training rows)
    and divided by sqrt(k), so a row's expected squared norm is 1: a random tanh layer then
    works in its graded range instead of saturating on the raw components (hundreds of
    units on connectomes); on the first two development folds 0.753 and 0.694 against 0.612
    and 0.694 for standardised components."""

    def __init__(self, n_components=ELM_CV_PCA, unit_rows=False, random_state=None):
        self.n_components = n_components
        self.unit_rows = unit_rows
        self.random_state = random_state

    def fit(self, X, y=None):
        self.fit_transform(X)
        return self

    def fit_transform(self, X, y=None):
        k = min(self.n_components, X.shape[0] - 1, X.shape[1])
        self.pca_ = PCA(n_components=k, svd_solver="randomized", whiten=self.unit_rows,
                        random_state=self.random_state)
        return self._scale(self.pca_.fit_transform(X))

    def transform(self, X):
        return self._scale(self.pca_.transform(X))

    def _scale(self, Z):
        return Z / np.sqrt(Z.shape[1]) if self.unit_rows else Z


def cv_estimators():
    """(BLSClassifierCV, ELMClassifierCV) from ``fastelm.model_selection``, or (None, None)
    while that module is not installed."""
    try:
        from ...model_selection import BLSClassifierCV, ELMClassifierCV
    except ImportError:
        return None, None
    return BLSClassifierCV, ELMClassifierCV


def default_models(dnn_max_iter=200, bls_params=None, extended=False):
    """The models as unfitted estimators, ``{name: estimator}``.

    Parameters
    ----------
    dnn_max_iter : int
        Epoch cap of the DNN (scikit-learn's default 200).
    bls_params : dict, optional
        Overrides of :data:`BLS_PARAMS`.
    extended : bool
        Add :data:`EXTRA_MODELS` (those of ``fastelm.model_selection`` only when installed).
    """
    bls = dict(BLS_PARAMS, **(bls_params or {}))
    models = {
        "BLS": BLSClassifier(**bls),
        "linear SVM": make_pipeline(StandardScaler(), SVC(kernel="linear")),
        "RF": RandomForestClassifier(),
        "KNN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "DNN": make_pipeline(StandardScaler(), FunctionTransformer(_as_float32),
                             MLPClassifier(hidden_layer_sizes=DNN_LAYERS, max_iter=dnn_max_iter)),
    }
    if not extended:
        return models
    bls_cv, elm_cv = cv_estimators()
    extra = {}
    if bls_cv is not None:
        params = {k: v for k, v in bls.items() if k != "reg"}
        params.pop("direct_links", None)
        extra["BLS-CV"] = make_pipeline(StandardScaler(), bls_cv(
            regs=BLS_CV_REGS, cv=INNER_FOLDS, direct_links=[False, True], shared_layer=True,
            **params))
        extra["ELM-CV"] = make_pipeline(
            StandardScaler(), TopComponents(ELM_CV_PCA, unit_rows=True),
            elm_cv(n_hidden=ELM_CV_HIDDEN, hidden_sizes=[ELM_CV_HIDDEN], alphas=ELM_CV_ALPHAS,
                   direct_links=[False, True], cv=INNER_FOLDS,
                   weight_scale=1.0))  # U(-1, 1), as the tables were made
    extra["logistic l2"] = make_pipeline(StandardScaler(),
                                         LogisticRegression(C=1.0, max_iter=1000))
    # fastelm models first, then the paper's comparators, then the linear baseline
    order = ["BLS", "BLS-CV", "ELM-CV", "linear SVM", "RF", "KNN", "DNN", "logistic l2"]
    both = {**models, **extra}
    return {name: both[name] for name in order if name in both}


def reseed(estimator, seed):
    """Set every ``random_state`` parameter (own or of a pipeline step) to ``seed``."""
    keys = [k for k in estimator.get_params(deep=True)
            if k == "random_state" or k.endswith("__random_state")]
    if keys:
        estimator.set_params(**{k: int(seed) for k in keys})
    return estimator


def describe(model):
    """One-line repr of an estimator (scikit-learn shows the non-default parameters), without
    memory addresses."""
    return re.sub(r"<function (\S+) at 0x[0-9a-fA-F]+>", r"\1", " ".join(repr(model).split()))
