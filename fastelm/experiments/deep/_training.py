"""What the two networks' training shares: PyTorch, imported when a model is fitted (the
package imports without it), its thread count and seeding, the inner validation split, the
checks of the common parameters and early stopping."""
import copy
from contextlib import contextmanager

import numpy as np

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

