"""BrainNetCNN (Kawahara et al. 2017): E2E, E2N and N2G filters on each subject's connectome
(the equations are in the package docstring)."""
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ...connectome import KINDS, vec_to_sym_matrix
from ._training import _check_common, _EarlyStopping, _seeded, _torch, _validation_split

#: the reproduction's connectome feature kinds, the inputs BrainNetCNN takes: ``connectivity``
#: (fastelm.fmri.connectivity_features) and fastelm.connectome's kinds
CONNECTOME_KINDS = ("connectivity",) + KINDS


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

    Each row of X is one subject's connectome as its strict upper triangle (M(M−1)/2 values,
    :func:`fastelm.connectome.sym_matrix_to_vec`); fit standardises every edge with the training
    subjects' mean and sd and rebuilds the symmetric M×M matrix, zero diagonal
    (:func:`fastelm.connectome.vec_to_sym_matrix`). Trained with Adam on the cross-entropy in
    mini-batches, early stopped on an inner validation split (package docstring).

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
                 random_state=None):
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
        self.random_state = random_state

    def _matrices(self, X, torch):
        try:
            A = vec_to_sym_matrix((X - self.mean_) / self.scale_)
        except ValueError as exc:
            raise ValueError(f"X's rows are not vectorised connectomes: {exc}") from None
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
        """Hook of the reproduction's fold loop: check that ``kind`` is a connectome kind
        (:data:`CONNECTOME_KINDS`); the inputs are returned unchanged."""
        if kind not in CONNECTOME_KINDS:
            raise ValueError(f"BrainNetCNN needs connectome features, not {kind!r}; "
                             f"known: {sorted(CONNECTOME_KINDS)}")
        return X_train, X_test
