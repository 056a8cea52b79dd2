"""The deep comparators of the BLS-for-fMRI reproduction: a connectome CNN and a population GCN.

Liu & Ji (2021) compare the Broad Learning System with a CNN on connectomes (CCNN) and a graph
convolutional network (GCN). This module builds the two as scikit-learn classifiers so they run
in the same cross-validation loop, on the same folds and connectome features, as every other
model of :mod:`fastelm.experiments.bls_fmri`:

BrainNetCNNClassifier
    Kawahara, Brown, Miller, Booth, Chau, Grunau, Zwicker & Hamarneh (2017), BrainNetCNN:
    convolutional neural networks for brain networks; towards predicting neurodevelopment,
    NeuroImage 146. Input: each subject's M×M connectome, rebuilt from its vectorised triangle.
    Edge-to-edge (E2E) filters: out[i, j] = Σ_c Σ_k r_c[k]·A_c[i, k] + q_c[k]·A_c[k, j] (a 1×M
    row and an M×1 column convolution, broadcast and summed); edge-to-node (E2N): a 1×M row
    convolution, out[i] = Σ_c Σ_k r_c[k]·A_c[i, k]; node-to-graph (N2G): an M×1 convolution over
    the nodes; then fully connected layers. Leaky ReLU (slope 0.33) after every layer, dropout
    0.5 after N2G and each hidden layer, as published. The published network (M = 90 ROIs) has
    E2E 32, E2E 32, E2N 64, N2G 256, FC 128, FC 30; at CC200's M = 200 an E2E layer holds
    (channels × 200 × 200) activations per subject, 4.9× those at M = 90, and one epoch of
    ~700 subjects with E2E (8, 8) cost 16 CPU seconds here, so the default is one E2E layer of
    4 channels, E2N 8, N2G 32, FC 16 (about 8 CPU seconds per epoch on a loaded machine).
PopulationGCNClassifier
    Parisot, Ktena, Ferrante, Lee, Guerrero, Glocker & Rueckert (2018), Disease prediction using
    graph convolutional networks: application to autism spectrum disorder and Alzheimer's
    disease, Medical Image Analysis 48. One graph over all subjects, training and test
    (transductive; the test subjects' labels are never given to the model):
    W(v, w) = Sim(x_v, x_w) · Σ_h [M_h(v) = M_h(w)], Sim = exp(−ρ(x_v, x_w)² / (2σ²)) with ρ the
    correlation distance of the selected features and σ the mean of ρ over all pairs, and the
    phenotypes M_h = site and sex. Features: the connectome reduced to ``n_selected`` = 2000 by
    recursive feature elimination with a ridge classifier (:class:`RidgeRFE`) fitted on the
    training subjects only. Two Chebyshev graph convolutions (Defferrard et al. 2016),
    H' = Σ_{k=0..K} T_k(L̃)·H·Θ_k with L̃ = 2L/λ_max − I, L = I − D^{-1/2} W D^{-1/2} and
    T_k the Chebyshev polynomials, K = 3, 16 hidden units, ReLU, dropout 0.3, Adam (lr 0.005),
    weight decay 5e-4 on the first layer's weights, at most 150 epochs: the published settings.

Both stop early on an inner validation split of the training subjects (``validation_fraction``,
stratified by class; the weights of the epoch with the lowest validation loss are kept) and
record the curves in ``history_`` (:func:`plot_training_curves` draws them).

Framework: PyTorch, imported when a model is fitted (``pip install 'fastelm[deep]'``; the core
package never imports this module). PyTorch's default Linux wheels bundle several GB of CUDA
libraries; its CPU wheel (``pip install torch==2.13.0 --index-url
https://download.pytorch.org/whl/cpu``) installed here in 28 s and takes 754 MB, about what JAX
with jaxlib takes (~620 MB), and PyTorch is what BrainNetCNN's and the population GCN's public
re-implementations use. Threads: each fit runs PyTorch on the smallest BLAS/OpenMP limit in
force (threadpoolctl, e.g. ``fastelm._threads.thread_limit``), so the reproduction's one-thread
limit applies to these models as to the others.
Determinism: each fit draws its weights, dropout masks, mini-batches and validation split from
``random_state`` inside ``torch.random.fork_rng`` (the global generator is left as it was).
"""
import copy
import hashlib
import time
from contextlib import contextmanager

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.spatial.distance import pdist, squareform
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

__all__ = ["BrainNetCNNClassifier", "PopulationGCNClassifier", "RidgeRFE", "population_graph",
           "chebyshev_polynomials", "vector_to_matrix", "plot_training_curves", "deep_models",
           "run_abide", "write_abide_outputs", "DEEP_MODELS", "TRIANGLES"]

#: the reproduction's names of the two models
DEEP_MODELS = ("CCNN", "GCN")
#: vectorised-triangle order of each connectome feature kind of the reproduction:
#: ``connectivity`` is fastelm.fmri.connectivity_features (upper), the others nilearn's (lower)
TRIANGLES = {"connectivity": "upper", "correlation": "lower", "partial correlation": "lower",
             "tangent": "lower"}

INSTALL_HINT = ("the deep comparators need PyTorch: pip install 'fastelm[deep]' (CPU wheel: "
                "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu)")


def _torch():
    try:
        import torch
    except ImportError as exc:  # pragma: no cover - the tests importorskip torch
        raise ImportError(INSTALL_HINT) from exc
    return torch


def _threads_in_force(torch):
    """PyTorch's thread count capped by the smallest BLAS/OpenMP limit in force
    (threadpoolctl): a limit entered before PyTorch was imported does not reach its own
    OpenMP pool otherwise."""
    from threadpoolctl import threadpool_info

    limits = [p["num_threads"] for p in threadpool_info()
              if p["user_api"] in ("blas", "openmp")]
    return max(1, min([torch.get_num_threads()] + limits))


@contextmanager
def _seeded(torch, seed):
    """PyTorch's CPU generator seeded with ``seed`` inside, restored after; PyTorch (and the
    MKL inside it) on the thread count in force (:func:`_threads_in_force`)."""
    before = torch.get_num_threads()
    threads = _threads_in_force(torch)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(int(seed))
        torch.set_num_threads(threads)
        try:
            yield
        finally:
            torch.set_num_threads(before)


# ---------------------------------------------------------------------------------------------
# helpers shared by the two models

def vector_to_matrix(X, triangle="lower"):
    """Vectorised connectomes (n × M(M−1)/2, strict triangle) -> symmetric (n × M × M), zero
    diagonal.

    ``triangle='lower'``: the strict lower triangle in row-major order (nilearn's
    ``sym_matrix_to_vec(discard_diagonal=True)``, :class:`fastelm.connectome.ConnectomeTransformer`);
    ``'upper'``: ``np.triu_indices(M, 1)`` order (:func:`fastelm.fmri.connectivity_features`).
    """
    X = np.asarray(X)
    n_features = X.shape[1]
    M = int(round((1 + np.sqrt(1 + 8 * n_features)) / 2))
    if M * (M - 1) // 2 != n_features:
        raise ValueError(f"X has {n_features} features, not M(M-1)/2 for an integer M "
                         "(a strict triangle of an M×M connectome)")
    if triangle == "lower":
        i, j = np.tril_indices(M, k=-1)
    elif triangle == "upper":
        i, j = np.triu_indices(M, k=1)
    else:
        raise ValueError(f"triangle must be 'lower' or 'upper', got {triangle!r}")
    A = np.zeros((X.shape[0], M, M), dtype=X.dtype)
    A[:, i, j] = X
    A[:, j, i] = X
    return A


def _validation_split(y, fraction, rng):
    """Row indices (fit, validation): ``fraction`` of each class (at least one) for validation."""
    if fraction <= 0:
        return np.arange(y.size), np.arange(0)
    val = []
    for c in np.unique(y):
        rows = np.flatnonzero(y == c)
        k = min(rows.size - 1, max(1, int(round(fraction * rows.size))))
        val.append(rng.permutation(rows)[:k])
    val = np.sort(np.concatenate(val))
    return np.setdiff1d(np.arange(y.size), val), val


def _check_common(est):
    if not 0 <= est.validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in [0, 1), got {est.validation_fraction!r}")
    for name in ("max_epochs", "patience"):
        value = getattr(est, name)
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
    if not 0 <= est.dropout < 1:
        raise ValueError(f"dropout must be in [0, 1), got {est.dropout!r}")


class _EarlyStopping:
    """Keeps the state of the epoch with the lowest validation loss; ``stop`` after
    ``patience`` epochs without a new lowest."""

    def __init__(self, patience):
        self.patience, self.best, self.best_epoch, self.state = patience, np.inf, -1, None

    def update(self, epoch, loss, module):
        if loss < self.best:
            self.best, self.best_epoch = loss, epoch
            self.state = copy.deepcopy(module.state_dict())
        return epoch - self.best_epoch >= self.patience

    def validate(self, epoch, out, target, loss_fn, history, module):
        """Record the validation loss and accuracy of the scores ``out`` (in ``history``) and
        ``update`` with the loss; True when training should stop."""
        val_loss = float(loss_fn(out, target))
        history["val_loss"].append(val_loss)
        history["val_accuracy"].append(float((out.argmax(1) == target).float().mean()))
        return self.update(epoch, val_loss, module)

    def restore(self, module, n_epochs):
        """Load the best epoch's state into ``module`` (if validation ran) and return that
        epoch, else the last of ``n_epochs``."""
        if self.state is None:
            return n_epochs - 1
        module.load_state_dict(self.state)
        return self.best_epoch


# ---------------------------------------------------------------------------------------------
# BrainNetCNN

def _brainnetcnn_module(torch, M, e2e, e2n, n2g, hidden, n_classes, dropout, slope):
    """The network as ``torch.nn.Sequential``. The 1×M and M×1 convolutions are written as
    contractions (einsum) over (channel, ROI): the same linear maps as ``Conv2d`` with those
    kernels, 1.5× faster on one CPU thread (measured on 32 subjects × 8 channels × 200 ROIs)."""
    nn = torch.nn

    def weight(c_out, *fan_in_shape):  # Conv2d's default initialisation: U(±1/sqrt(fan_in))
        bound = 1.0 / np.sqrt(np.prod(fan_in_shape))
        return nn.Parameter(torch.empty(c_out, *fan_in_shape).uniform_(-bound, bound))

    class E2E(nn.Module):
        def __init__(self, c_in, c_out):
            super().__init__()
            self.row, self.col = weight(c_out, c_in, M), weight(c_out, c_in, M)
            self.bias = nn.Parameter(torch.zeros(c_out))

        def forward(self, x):  # out[b, o, i, j] = Σ_ck row[o,c,k] x[b,c,i,k] + col[o,c,k] x[b,c,k,j]
            rows = torch.einsum("bcik,ock->boi", x, self.row)
            cols = torch.einsum("bckj,ock->boj", x, self.col)
            return rows[..., :, None] + cols[..., None, :] + self.bias[:, None, None]

    class E2N(nn.Module):
        def __init__(self, c_in, c_out):
            super().__init__()
            self.row, self.bias = weight(c_out, c_in, M), nn.Parameter(torch.zeros(c_out))

        def forward(self, x):  # (B, c, M, M) -> (B, o, M)
            return torch.einsum("bcik,ock->boi", x, self.row) + self.bias[:, None]

    class N2G(nn.Module):
        def __init__(self, c_in, c_out):
            super().__init__()
            self.col, self.bias = weight(c_out, c_in, M), nn.Parameter(torch.zeros(c_out))

        def forward(self, x):  # (B, c, M) -> (B, o)
            return torch.einsum("bci,oci->bo", x, self.col) + self.bias

    layers, c = [], 1
    for width in e2e:
        layers += [E2E(c, width), nn.LeakyReLU(slope)]
        c = width
    layers += [E2N(c, e2n), nn.LeakyReLU(slope), N2G(e2n, n2g), nn.LeakyReLU(slope),
               nn.Dropout(dropout)]
    width = n2g
    for h in hidden:
        layers += [nn.Linear(width, h), nn.LeakyReLU(slope), nn.Dropout(dropout)]
        width = h
    layers.append(nn.Linear(width, n_classes))
    return nn.Sequential(*layers)


class BrainNetCNNClassifier(ClassifierMixin, BaseEstimator):
    """BrainNetCNN (E2E, E2N, N2G filters) on vectorised connectomes.

    Each row of X is one subject's connectome as a strict triangle (M(M−1)/2 values); fit
    standardises every edge with the training subjects' mean and sd and rebuilds the symmetric
    M×M matrix (zero diagonal). Trained with Adam on the cross-entropy in mini-batches, early
    stopped on an inner validation split (module docstring).

    Parameters
    ----------
    e2e_channels : tuple of int, default (4,)
        Output channels of each edge-to-edge layer (published, M = 90: (32, 32)).
    e2n_channels : int, default 8
        Edge-to-node filters (published: 64).
    n2g_channels : int, default 32
        Node-to-graph filters (published: 256).
    hidden : tuple of int, default (16,)
        Fully connected layers before the output (published: (128, 30)).
    dropout : float, default 0.5
    negative_slope : float, default 0.33
        Leaky ReLU slope (published).
    learning_rate : float, default 5e-4
    weight_decay : float, default 1e-3
        L2 penalty of Adam (published: 5e-4 with SGD).
    batch_size : int, default 32
    max_epochs : int, default 12
    patience : int, default 3
        Epochs without a lower validation loss before stopping. On a real ABIDE fold (765
        training subjects, CC200) the network fitted the training subjects within 8 epochs
        (training loss 0.06) and the validation loss was lowest at epoch 2, so a dozen epochs
        suffice; each costs about 8 CPU seconds there with one E2E layer of 4 channels.
    validation_fraction : float, default 0.1
        Share of each class of the training subjects held out for early stopping (0: train
        ``max_epochs`` epochs and keep the last weights).
    triangle : {'lower', 'upper'}, default 'lower'
        Order of the vectorised triangle (:func:`vector_to_matrix`).
    random_state : int, numpy Generator or None

    Attributes
    ----------
    classes_, n_features_in_, n_rois_ : labels, M(M−1)/2, M
    mean_, scale_ : per-edge standardisation of the training subjects
    history_ : dict of lists ``train_loss``, ``val_loss``, ``val_accuracy`` per epoch
    best_epoch_ : int, the epoch whose weights are kept
    module_ : the fitted ``torch.nn.Sequential``

    References
    ----------
    Kawahara et al. (2017), BrainNetCNN: convolutional neural networks for brain networks;
    towards predicting neurodevelopment, NeuroImage 146, 1038-1049.
    """

    def __init__(self, e2e_channels=(4,), e2n_channels=8, n2g_channels=32, hidden=(16,),
                 dropout=0.5, negative_slope=0.33, learning_rate=5e-4, weight_decay=1e-3,
                 batch_size=32, max_epochs=12, patience=3, validation_fraction=0.1,
                 triangle="lower", random_state=None):
        self.e2e_channels = e2e_channels
        self.e2n_channels = e2n_channels
        self.n2g_channels = n2g_channels
        self.hidden = hidden
        self.dropout = dropout
        self.negative_slope = negative_slope
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.max_epochs = max_epochs
        self.patience = patience
        self.validation_fraction = validation_fraction
        self.triangle = triangle
        self.random_state = random_state

    def _matrices(self, X, torch):
        A = vector_to_matrix((X - self.mean_) / self.scale_, self.triangle)
        return torch.from_numpy(A.astype(np.float32)).unsqueeze(1)

    def fit(self, X, y):
        """Train on connectomes X (n × M(M−1)/2) and labels y."""
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        _check_common(self)
        if int(self.batch_size) < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size!r}")
        torch = _torch()
        self.classes_, codes = np.unique(y, return_inverse=True)
        rng = np.random.default_rng(self.random_state)
        fit_rows, val_rows = _validation_split(codes, self.validation_fraction, rng)
        self.mean_ = X[fit_rows].mean(axis=0)
        self.scale_ = X[fit_rows].std(axis=0)
        self.scale_[self.scale_ == 0] = 1.0
        A = self._matrices(X, torch)
        self.n_rois_ = A.shape[-1]
        target = torch.from_numpy(codes.astype(np.int64))
        with _seeded(torch, rng.integers(2 ** 62)):
            module = _brainnetcnn_module(
                torch, self.n_rois_, tuple(self.e2e_channels), int(self.e2n_channels),
                int(self.n2g_channels), tuple(self.hidden), len(self.classes_), self.dropout,
                self.negative_slope)
            optimizer = torch.optim.Adam(module.parameters(), lr=self.learning_rate,
                                         weight_decay=self.weight_decay)
            loss_fn = torch.nn.CrossEntropyLoss()
            stopper = _EarlyStopping(self.patience)
            history = {"train_loss": [], "val_loss": [], "val_accuracy": []}
            batch = int(self.batch_size)
            for epoch in range(int(self.max_epochs)):
                module.train()
                order = fit_rows[rng.permutation(fit_rows.size)]
                total = 0.0
                for start in range(0, order.size, batch):
                    rows = torch.from_numpy(order[start:start + batch])
                    optimizer.zero_grad()
                    loss = loss_fn(module(A[rows]), target[rows])
                    loss.backward()
                    optimizer.step()
                    total += loss.item() * len(rows)
                history["train_loss"].append(total / order.size)
                if val_rows.size:
                    module.eval()
                    with torch.no_grad():
                        rows = torch.from_numpy(val_rows)
                        stop = stopper.validate(epoch, module(A[rows]), target[rows], loss_fn,
                                                history, module)
                    if stop:
                        break
            self.best_epoch_ = stopper.restore(module, len(history["train_loss"]))
        module.eval()
        self.module_, self.history_ = module, history
        return self

    def predict_proba(self, X):
        """Class probabilities (softmax of the network's output)."""
        check_is_fitted(self, "module_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        torch = _torch()
        A = self._matrices(X, torch)
        with torch.no_grad():
            return torch.softmax(self.module_(A), dim=1).double().numpy()

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def fold_inputs(self, kind, X_train, X_test, phenotypes=None):
        """Hook of the reproduction's fold loop: set ``triangle`` for the feature ``kind``
        (:data:`TRIANGLES`); the inputs are returned unchanged."""
        if kind not in TRIANGLES:
            raise ValueError(f"BrainNetCNN needs connectome features, not {kind!r}; "
                             f"known: {sorted(TRIANGLES)}")
        self.set_params(triangle=TRIANGLES[kind])
        return X_train, X_test


# ---------------------------------------------------------------------------------------------
# ridge recursive feature elimination

class RidgeRFE(SelectorMixin, BaseEstimator):
    """Recursive feature elimination with a ridge classifier, fast for n ≪ p.

    Selects the same features as scikit-learn's ``RFE(RidgeClassifier(alpha=alpha),
    n_features_to_select, step=step)`` (Parisot et al.'s selection, 2000 features, step 100):
    at each step fit the ridge classifier (targets ±1 per class, intercept by centring) on the
    remaining features and drop the ``step`` with the smallest Σ_classes coef² (stable order).
    The ridge is solved in its dual, coef = X_cᵀ (K + αI)⁻¹ Y_c with the kernel K = X_c X_cᵀ
    (n × n), and K is downdated, K ← K − X_d X_dᵀ, with the dropped columns X_d instead of being
    recomputed: one n×n solve and one (n × p) product per step. On 760 subjects × 19900
    features to 2000, step 100 (179 steps): scikit-learn's RFE took 78 s on one thread, this
    about a second.

    Parameters
    ----------
    n_features_to_select : int, default 2000
    step : int, default 100
    alpha : float, default 1.0
        Ridge penalty (RidgeClassifier's default).

    Attributes
    ----------
    support_ : bool mask of the selected features
    ranking_ : 1 for selected features, larger for those eliminated earlier (as RFE's)
    n_features_in_ : int
    """

    def __init__(self, n_features_to_select=2000, step=100, alpha=1.0):
        self.n_features_to_select = n_features_to_select
        self.step = step
        self.alpha = alpha

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        if int(self.step) < 1:
            raise ValueError(f"step must be an integer >= 1, got {self.step!r}")
        if int(self.n_features_to_select) < 1:
            raise ValueError(f"n_features_to_select must be >= 1, got "
                             f"{self.n_features_to_select!r}")
        if not self.alpha > 0:
            raise ValueError(f"alpha must be > 0, got {self.alpha!r}")
        Y = LabelBinarizer(pos_label=1, neg_label=-1).fit_transform(y).astype(np.float64)
        Xc = X - X.mean(axis=0)
        XcT = np.ascontiguousarray(Xc.T)  # rows = features: cheap to pick and drop
        Yc = Y - Y.mean(axis=0)
        n, p = Xc.shape
        support = np.ones(p, dtype=bool)
        ranking = np.ones(p, dtype=np.int64)
        n_select = min(int(self.n_features_to_select), p)
        K = Xc @ Xc.T
        ridge = self.alpha * np.eye(n)
        while support.sum() > n_select:
            features = np.flatnonzero(support)
            dual = cho_solve(cho_factor(K + ridge), Yc)
            coef = (XcT @ dual)[features]                    # (p_remaining, n_classes)
            importance = (coef ** 2).sum(axis=1)
            ranks = np.argsort(importance, kind="stable")
            drop = features[ranks[:min(int(self.step), support.sum() - n_select)]]
            support[drop] = False
            ranking[~support] += 1
            K -= XcT[drop].T @ XcT[drop]
        self.support_, self.ranking_ = support, ranking
        return self

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_


# ---------------------------------------------------------------------------------------------
# population GCN

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


# ---------------------------------------------------------------------------------------------
# the reproduction's settings

def deep_models(quick=False, **overrides):
    """``{'CCNN': BrainNetCNNClassifier(...), 'GCN': PopulationGCNClassifier(...)}`` at the
    reproduction's settings (the classes' defaults); ``quick``: a few epochs, a smaller CNN and
    a 500-feature RFE, for CI on synthetic subjects. ``overrides``: ``{'CCNN': {...}}``."""
    if quick:
        cnn = dict(e2e_channels=(4,), e2n_channels=8, n2g_channels=16, hidden=(16,),
                   max_epochs=8, patience=4)
        gcn = dict(n_selected=500, rfe_step=50, max_epochs=40, patience=10)
    else:
        cnn, gcn = {}, {}
    cnn.update(overrides.get("CCNN", {}))
    gcn.update(overrides.get("GCN", {}))
    return {"CCNN": BrainNetCNNClassifier(**cnn), "GCN": PopulationGCNClassifier(**gcn)}


def _history(estimator):
    """(history, best epoch) of a fitted CCNN, or of a GCN's last transductive training."""
    if isinstance(estimator, PopulationGCNClassifier):
        t = estimator.transduction_
        return t["history"], int(t["best_epoch"])
    return estimator.history_, int(estimator.best_epoch_)


def run_abide(data_dir, out_dir, kinds=("connectivity",), *, atlas="cc200", seed=0,
              models=None, reference="BLS-CV", progress=True):
    """The two models on the real-data reproduction's folds and features, one thread per fit.

    The subjects, site × diagnosis strata, 10 folds and fold seeds are those of
    ``fastelm.experiments.bls_fmri`` (``load``, ``cv_splits``, ``FoldFeatures``: tangent
    features fitted on each training fold); ``reference`` (BLS-CV by default) runs in the
    same process on the same folds so that the training-time ratio deep / BLS-CV compares
    fits made under the same machine load. Each fit's time is ``fit`` plus, for the GCN, its
    transductive training in ``predict``; CPU seconds are recorded beside wall seconds (the
    machine is shared). Writes ``records.csv``, ``results.md``/``.csv`` (the paper's five
    metrics, mean ± sd over folds), ``timings.md``/``.csv``, ``accuracy_vs_time.png`` (the
    paper's Fig. 4), ``training_curves_<kind>.png`` and ``curves.json`` to ``out_dir``;
    returns the records.
    """
    import json
    import os

    from sklearn.base import clone

    from ..metrics import classification_report_dict
    from .bls_fmri.models import default_models, reseed
    from .bls_fmri.protocol import (CPU, TIME, FoldFeatures, _fold_seed, cv_splits,
                                    fit_timed)
    from .bls_fmri.reproduce import load
    from .common import progress as progress_bar
    from .._threads import thread_limit

    X, y, strata, bunch = load(data_dir, "connectivity", None, atlas, None)
    site = np.unique(bunch.sites, return_inverse=True)[1].astype(float)
    sex = np.asarray(bunch.phenotype["SEX"], dtype=float)
    phenotypes = np.column_stack([site, sex])
    features = FoldFeatures(bunch.series, {"connectivity": X})
    splits = cv_splits(y, strata, 10, 1, seed)
    models = dict(deep_models() if models is None else models)
    if reference:
        models[reference] = default_models(extended=True)[reference]
    records, curves = [], []
    with thread_limit(1):
        for i, (train, test, repeat, fold) in enumerate(
                progress_bar(splits, "deep", total=len(splits), enabled=progress)):
            for kind in kinds:
                X_train, X_test = features.split(kind, train, test)
                for name, model in models.items():
                    estimator = reseed(clone(model), _fold_seed(seed, i))
                    a, b = X_train, X_test
                    if hasattr(estimator, "fold_inputs"):
                        a, b = estimator.fold_inputs(kind, a, b,
                                                     (phenotypes[train], phenotypes[test]))
                    seconds, converged, cpu = fit_timed(estimator, a, y[train])
                    pred = estimator.predict(b)
                    seconds += getattr(estimator, "transductive_time_", 0.0)
                    cpu += getattr(estimator, "transductive_cpu_", 0.0)
                    records.append({"data set": os.path.basename(os.path.normpath(data_dir)),
                                    "features": kind, "model": name, "repeat": repeat,
                                    "fold": fold, **classification_report_dict(y[test], pred),
                                    TIME: seconds, CPU: cpu, "converged": converged})
                    if name in DEEP_MODELS:
                        history, best = _history(estimator)
                        curves.append(dict(history, best_epoch=best, model=name,
                                           features=kind, fold=fold))
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "curves.json"), "w") as f:
        json.dump({"subjects": int(len(y)), "patients": int(y.sum()), "curves": curves}, f)
    write_abide_outputs(out_dir, records, curves)
    return records


def write_abide_outputs(out_dir, records, curves):
    """The tables and plots of :func:`run_abide` from its records and curves."""
    import os

    from .bls_fmri.outputs import _write_records, plot_accuracy_time
    from .bls_fmri.protocol import CPU, METRICS, TIME
    from .common import summarize, write_table

    keys = ("data set", "features", "model")
    rows = summarize(records, keys, METRICS)
    time_rows = summarize(records, keys, [TIME, CPU])
    write_table(rows, keys, METRICS, os.path.join(out_dir, "results"), digits=3)
    write_table(time_rows, keys, [TIME, CPU], os.path.join(out_dir, "timings"), digits=2)
    _write_records(records, os.path.join(out_dir, "records.csv"))
    models = list(dict.fromkeys(r["model"] for r in records))
    plot_accuracy_time(rows, time_rows, os.path.join(out_dir, "accuracy_vs_time.png"), models,
                       title="10-fold CV on site × diagnosis, one thread per fit")
    for kind in dict.fromkeys(c["features"] for c in curves):
        plot_training_curves(
            {m: [c for c in curves if c["model"] == m and c["features"] == kind]
             for m in DEEP_MODELS if any(c["model"] == m and c["features"] == kind
                                         for c in curves)},
            os.path.join(out_dir, f"training_curves_{kind.replace(' ', '_')}.png"),
            title=f"{kind} features, one line per fold; inner validation = 10% of each "
                  "training fold")
    return rows, time_rows


# ---------------------------------------------------------------------------------------------
# curves

def plot_training_curves(histories, path, title=None):
    """Training and validation loss per epoch (one line per fit, a dot at the kept epoch).

    ``histories``: ``{name: [history, ...]}`` with history = ``{'train_loss': [...],
    'val_loss': [...], 'best_epoch': int}``; one panel per name. Returns False without
    matplotlib.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is a test dependency
        return False
    names = list(histories)
    fig, axes = plt.subplots(1, len(names), figsize=(5.2 * len(names), 3.8), squeeze=False)
    for ax, name in zip(axes[0], names):
        for k, h in enumerate(histories[name]):
            epochs = np.arange(1, len(h["train_loss"]) + 1)
            ax.plot(epochs, h["train_loss"], color="C0", alpha=0.5, lw=1,
                    label="training" if k == 0 else None)
            if h.get("val_loss"):
                ax.plot(epochs[:len(h["val_loss"])], h["val_loss"], color="C1", alpha=0.6,
                        lw=1, label="inner validation" if k == 0 else None)
                b = h.get("best_epoch")
                if b is not None and b < len(h["val_loss"]):
                    ax.plot([b + 1], [h["val_loss"][b]], "o", color="C3", ms=3,
                            label="kept epoch" if k == 0 else None)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("epoch")
        ax.set_ylabel("cross-entropy")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return True


# ---------------------------------------------------------------------------------------------
# command line

def main(argv=None):
    """``python -m fastelm.experiments.deep --data DIR [--out DIR] [--features KIND ...]``."""
    import argparse

    from .bls_fmri import SEED_OPTION

    parser = argparse.ArgumentParser(
        prog="python -m fastelm.experiments.deep",
        description="BrainNetCNN and the population GCN (and BLS-CV for the time ratio) on the "
                    "BLS-fMRI reproduction's 10 folds of an ABIDE-layout folder.")
    parser.add_argument("--data", required=True, help="an ABIDE-layout directory")
    parser.add_argument("--out", default="results/bls-fmri-abide/deep", help="output folder")
    parser.add_argument("--atlas", default="cc200")
    parser.add_argument("--features", nargs="+", default=["connectivity"],
                        choices=sorted(TRIANGLES))
    parser.add_argument("--seed", type=SEED_OPTION, default=0,
                        help="seeds the folds (the BLS-fMRI reproduction's) and the networks")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    records = run_abide(args.data, args.out, tuple(args.features), atlas=args.atlas,
                        seed=args.seed, progress=not args.no_progress)
    print(f"{len(records)} fits; wrote {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    import sys

    sys.exit(main())
