"""Parisot et al.'s (2018) population GCN: the population graph, the Chebyshev polynomials of
its scaled Laplacian and the transductive classifier (the equations are in the package
docstring)."""
import hashlib
import time

import numpy as np
from scipy.spatial.distance import pdist, squareform
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ._training import _check_common, _EarlyStopping, _seeded, _torch, _validation_split
from .rfe import RidgeRFE


def population_graph(features, phenotypes):
    """Parisot et al.'s population graph W (N × N, zero diagonal).

    W(v, w) = exp(−ρ(v, w)² / (2σ²)) · Σ_h [phenotypes[v, h] = phenotypes[w, h]], with ρ the
    correlation distance between the feature rows and σ its mean over all pairs.
    """
    rho = pdist(features, metric="correlation")
    sigma = rho.mean()
    similarity = squareform(np.exp(-rho ** 2 / (2 * sigma ** 2)))
    phenotypes = np.asarray(phenotypes)
    matches = np.zeros_like(similarity)
    for h in range(phenotypes.shape[1]):
        matches += phenotypes[:, h, None] == phenotypes[None, :, h]
    W = similarity * matches
    np.fill_diagonal(W, 0.0)
    return W


def chebyshev_polynomials(W, order):
    """T_0..T_order of the scaled Laplacian L̃ = 2L/λ_max − I, L = I − D^{-1/2} W D^{-1/2}
    (isolated nodes: D^{-1/2} = 0); T_0 = I, T_1 = L̃, T_k = 2 L̃ T_{k−1} − T_{k−2}."""
    d = W.sum(axis=1)
    inv_sqrt = np.zeros_like(d)
    inv_sqrt[d > 0] = d[d > 0] ** -0.5
    L = np.eye(len(W)) - inv_sqrt[:, None] * W * inv_sqrt[None, :]
    lam = np.linalg.eigvalsh(L)[-1]
    scaled = (2.0 / lam) * L - np.eye(len(W))
    T = [np.eye(len(W)), scaled]
    for _ in range(2, order + 1):
        T.append(2 * scaled @ T[-1] - T[-2])
    return T[:order + 1]


def _gcn_module(torch, n_in, hidden, n_classes, order, dropout):
    nn = torch.nn

    class ChebConv(nn.Module):
        """Σ_k T_k H Θ_k, Glorot-initialised Θ_k, no bias (Parisot's/Kipf's layer), as two
        products: Z = H [Θ_0 … Θ_K], then [T_0 … T_K] · [Z_0; …; Z_K]."""

        def __init__(self, c_in, c_out):
            super().__init__()
            bound = np.sqrt(6.0 / (c_in + c_out))
            self.weight = nn.Parameter(torch.empty(c_in, (order + 1) * c_out)
                                       .uniform_(-bound, bound))
            self.c_out = c_out

        def forward(self, T, H):  # T: (N, (K+1)·N) = [T_0 … T_K]
            Z = H @ self.weight                                   # (N, (K+1)·c_out)
            Z = Z.reshape(len(H), order + 1, self.c_out).transpose(0, 1)
            return T @ Z.reshape(-1, self.c_out)

    class GCN(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = ChebConv(n_in, hidden), ChebConv(hidden, n_classes)
            self.drop = nn.Dropout(dropout)

        def forward(self, T, H):
            H = torch.relu(self.conv1(T, self.drop(H)))
            return self.conv2(T, self.drop(H))

    return GCN()


class PopulationGCNClassifier(ClassifierMixin, BaseEstimator):
    """Parisot et al.'s population-graph GCN, transductive, as a scikit-learn classifier.

    Each row of X is ``n_phenotypes`` phenotype codes (site, sex; compared for equality only)
    followed by the subject's connectome features. ``fit(X, y)`` learns what needs labels from
    the training subjects only: the inner validation split, then the ridge RFE
    (:class:`RidgeRFE`) and the features' standardisation on the other training subjects (the
    validation subjects' labels are kept for early stopping: with features selected on them,
    p ≫ n RFE separates them perfectly, measured: validation loss 0 after 10 epochs of a real
    ABIDE fold, and the stopping point is meaningless). ``predict(X_new)``
    then builds the population graph over the training subjects and X_new, trains the GCN on
    the training labels (X_new's nodes are in the graph, their labels unknown to the model) and
    returns X_new's predictions: the published transductive setting. The result is cached for
    the same X_new (``predict`` after ``predict_proba`` trains once); its training time,
    curves and stopping epoch are in ``transduction_``.

    Parameters
    ----------
    n_phenotypes : int, default 2
        Leading columns of X holding phenotype codes (0: the graph uses feature similarity only).
    n_selected : int, default 2000
        Features kept by the ridge RFE (all when fewer).
    rfe_step : int, default 100
    ridge_alpha : float, default 1.0
    cheb_order : int, default 3
        K: T_0..T_K (K-hop neighbourhoods).
    hidden : int, default 16
    dropout : float, default 0.3
    learning_rate : float, default 0.005
    weight_decay : float, default 5e-4
        Times half the squared norm of the first layer's weights, added to the loss.
    max_epochs : int, default 150
    patience : int, default 20
    validation_fraction : float, default 0.1
    random_state : int, numpy Generator or None

    Attributes
    ----------
    classes_, n_features_in_ : labels, number of columns of X
    selector_ : the fitted :class:`RidgeRFE`
    mean_, scale_ : the GCN's input is (x − mean_) / scale_ on the selected features:
        standardised by the fitted subjects' mean and sd, divided by sqrt(n_selected), so each
        subject's input has a mean square norm of 1 (Parisot et al. divide each row by its sum;
        with unit-variance inputs of 2000 features the initial outputs were so large that the
        validation loss rose from the first epoch on a real ABIDE fold, best epoch 0)
    transduction_ : dict of the last transductive training: ``proba`` (of the new nodes),
        ``train_time`` (s: graph, polynomials and training), ``history`` (as
        BrainNetCNNClassifier's ``history_``), ``best_epoch``
    transductive_time_, transductive_cpu_ : float, wall and CPU seconds of the last
        transductive training (set by ``predict``; a fair training time is that of ``fit``
        plus this)

    References
    ----------
    Parisot et al. (2018), Disease prediction using graph convolutional networks: application to
    autism spectrum disorder and Alzheimer's disease, Medical Image Analysis 48, 117-130.
    """

    def __init__(self, n_phenotypes=2, n_selected=2000, rfe_step=100, ridge_alpha=1.0,
                 cheb_order=3, hidden=16, dropout=0.3, learning_rate=0.005, weight_decay=5e-4,
                 max_epochs=150, patience=20, validation_fraction=0.1, random_state=None):
        self.n_phenotypes = n_phenotypes
        self.n_selected = n_selected
        self.rfe_step = rfe_step
        self.ridge_alpha = ridge_alpha
        self.cheb_order = cheb_order
        self.hidden = hidden
        self.dropout = dropout
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.max_epochs = max_epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.random_state = random_state

    def _split(self, X):
        k = int(self.n_phenotypes)
        return X[:, :k], X[:, k:]

    def fit(self, X, y):
        """Select and standardise features on the training subjects (X, y); see the class
        docstring for where the GCN is trained."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        _check_common(self)
        if not 0 <= int(self.n_phenotypes) < X.shape[1]:
            raise ValueError(f"n_phenotypes must be in [0, {X.shape[1] - 1}], got "
                             f"{self.n_phenotypes!r}")
        if int(self.cheb_order) < 1:
            raise ValueError(f"cheb_order must be >= 1, got {self.cheb_order!r}")
        phenotypes, F = self._split(X)
        self.classes_, codes = np.unique(y, return_inverse=True)
        rng = np.random.default_rng(self.random_state)
        fit_rows, val_rows = _validation_split(codes, self.validation_fraction, rng)
        # selected on the rows the GCN fits only: features chosen with the validation
        # subjects' labels separate them perfectly (p >> n) and early stopping never stops
        self.selector_ = RidgeRFE(int(self.n_selected), int(self.rfe_step),
                                  self.ridge_alpha).fit(F[fit_rows], codes[fit_rows])
        selected = self.selector_.transform(F)
        self.mean_ = selected[fit_rows].mean(axis=0)
        scale = selected[fit_rows].std(axis=0)
        scale[scale == 0] = 1.0
        self.scale_ = scale * np.sqrt(selected.shape[1])
        self._train = (phenotypes, selected, codes, fit_rows, val_rows)
        self._seed = rng.integers(2 ** 62)
        self.transduction_ = None
        return self

    def predict_proba(self, X):
        """Train the GCN on the graph of the training subjects and X; X's class probabilities."""
        check_is_fitted(self, "selector_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        key = hashlib.sha1(np.ascontiguousarray(X).tobytes()).hexdigest()
        if self.transduction_ is None or self.transduction_["key"] != key:
            start, cpu = time.perf_counter(), time.process_time()
            proba, history, best = self._transduce(X)
            self.transductive_time_ = time.perf_counter() - start
            self.transductive_cpu_ = time.process_time() - cpu
            self.transduction_ = {"key": key, "proba": proba, "history": history,
                                  "best_epoch": best, "train_time": self.transductive_time_}
        return self.transduction_["proba"].copy()

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def fold_inputs(self, kind, X_train, X_test, phenotypes=None):
        """Hook of the reproduction's fold loop: prepend the phenotype codes of the training
        and test subjects, ``phenotypes = (P_train, P_test)``, and set ``n_phenotypes``
        (0 without phenotypes: a graph of feature similarity only)."""
        if phenotypes is None:
            self.set_params(n_phenotypes=0)
            return X_train, X_test
        P_train, P_test = (np.asarray(p, dtype=np.float64).reshape(len(p), -1)
                           for p in phenotypes)
        self.set_params(n_phenotypes=P_train.shape[1])
        return np.hstack([P_train, X_train]), np.hstack([P_test, X_test])

    def _transduce(self, X):
        torch = _torch()
        phen_train, sel_train, codes, fit_rows, val_rows = self._train
        phen_new, F_new = self._split(X)
        sel_new = self.selector_.transform(F_new)
        n_train = len(codes)
        selected = np.vstack([sel_train, sel_new])
        W = population_graph(selected, np.vstack([phen_train, phen_new]))
        T = torch.from_numpy(np.hstack(chebyshev_polynomials(W, int(self.cheb_order)))
                             .astype(np.float32))
        H = torch.from_numpy(((selected - self.mean_) / self.scale_).astype(np.float32))
        rng = np.random.default_rng(self._seed)
        target = torch.from_numpy(codes.astype(np.int64))
        fit_idx, val_idx = torch.from_numpy(fit_rows), torch.from_numpy(val_rows)
        history = {"train_loss": [], "val_loss": [], "val_accuracy": []}
        with _seeded(torch, rng.integers(2 ** 62)):
            module = _gcn_module(torch, H.shape[1], int(self.hidden), len(self.classes_),
                                 int(self.cheb_order), self.dropout)
            optimizer = torch.optim.Adam(module.parameters(), lr=self.learning_rate)
            loss_fn = torch.nn.CrossEntropyLoss()
            stopper = _EarlyStopping(self.patience)
            for epoch in range(int(self.max_epochs)):
                module.train()
                optimizer.zero_grad()
                out = module(T, H)
                loss = (loss_fn(out[fit_idx], target[fit_idx])
                        + self.weight_decay * 0.5 * (module.conv1.weight ** 2).sum())
                loss.backward()
                optimizer.step()
                history["train_loss"].append(loss.item())
                if val_rows.size:
                    module.eval()
                    with torch.no_grad():
                        stop = stopper.validate(epoch, module(T, H)[val_idx], target[val_idx],
                                                loss_fn, history, module)
                    if stop:
                        break
            best = stopper.restore(module, len(history["train_loss"]))
            module.eval()
            with torch.no_grad():
                out = module(T, H)[n_train:]
                proba = torch.softmax(out, dim=1).double().numpy()
        return proba, history, best
