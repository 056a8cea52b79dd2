"""Random hidden layer H = g(XW + b) (Huang et al. 2006): weights, activation names, evaluation.

Randomness is drawn here with a numpy Generator, never inside a kernel, so that the same
``random_state`` gives the same W and b whatever the number of threads.
"""
import math
import numbers
from dataclasses import dataclass

import numpy as np

from ._kernels.hidden import (LINEAR, RELU, SIGMOID, SINE, TANH, add_bias_activate,
                              add_bias_activate_serial)

# values (rows × columns) below which the bias + activation pass runs on one thread: launching
# the parallel kernel costs more than such a pass (the two kernels are bit-identical)
PARALLEL_MIN = 1 << 16

ACTIVATIONS = {"tanh": TANH, "tansig": TANH, "sigmoid": SIGMOID, "relu": RELU, "sine": SINE,
               "sin": SINE, "linear": LINEAR, "identity": LINEAR}

DTYPES = {"float64": np.float64, "float32": np.float32}


def check_activation(activation):
    """The kernel code of an activation name.

    Parameters
    ----------
    activation : str

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For an unknown name.
    """
    try:
        return ACTIVATIONS[activation]
    except (KeyError, TypeError):
        raise ValueError(f"activation={activation!r} is not one of {sorted(ACTIVATIONS)}") from None


def check_dtype(dtype):
    """np.float64 or np.float32 from a name or numpy type.

    Parameters
    ----------
    dtype : str, type or numpy dtype

    Returns
    -------
    type

    Raises
    ------
    ValueError
        For any other dtype.
    """
    try:
        name = np.dtype(dtype).name
    except TypeError:
        name = None
    if name not in DTYPES:
        raise ValueError(f"dtype={dtype!r}: fastelm computes in 'float64' or 'float32'")
    return DTYPES[name]


def check_generator(random_state):
    """A numpy Generator from None, an int seed, a Generator or a legacy RandomState.

    Parameters
    ----------
    random_state : None, int, numpy Generator or RandomState

    Returns
    -------
    numpy.random.Generator
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    raise ValueError(f"random_state={random_state!r} cannot seed a numpy Generator")


def random_weights(rng, n_features, n_hidden, dtype, scale=1.0):
    """W = s·U, U ~ U(-1, 1)^{d×L}, b ~ U(-1, 1)^L, one hidden node at a time.

    One (L, d+1) matrix of U(-1, 1) draws is drawn and node j is its row j: [W[:, j] / s, b[j]];
    the W columns are then multiplied by s = ``scale``, so W ~ U(-s, s) while b stays U(-1, 1)
    (s = 1 is the plain draw, bit for bit). The rows come out of the Generator in order, so the
    first k nodes of an L-node draw are exactly the k-node draw of the same seed and scale (the
    prefix property: a hidden size chosen on prefixes of one layer,
    ``fastelm.model_selection._elm_cv``, names a model ``n_hidden=k`` rebuilds).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_features, n_hidden : int
        d and L.
    dtype : numpy dtype
    scale : float, default=1.0
        s, the half-width of the input weights' range (``weight_scale_``, see
        ``check_weight_scale``).

    Returns
    -------
    W : ndarray of shape (d, L)
    b : ndarray of shape (L,)
    """
    nodes = rng.uniform(-1.0, 1.0, size=(n_hidden, n_features + 1))
    return scale_weights(nodes[:, :n_features].T, scale, dtype), nodes[:, n_features].astype(dtype)


def scale_weights(W, scale, dtype):
    """s·W in ``dtype``, contiguous: ``random_weights``' last step, for a float64 unit draw W
    (``random_weights(rng, d, L, np.float64)``) to be rescaled without drawing again.

    Parameters
    ----------
    W : ndarray of shape (d, L), float64
    scale : float
    dtype : numpy dtype

    Returns
    -------
    ndarray of shape (d, L)
    """
    # s·W computed in float64 and rounded into the C-ordered result, element by element: the
    # values of (W * s).astype(dtype) without its float64 (or, W transposed, F-ordered) copy
    out = np.empty(W.shape, dtype=dtype)
    np.multiply(W, scale, out=out, casting="same_kind")
    return out


def check_weight_scale(weight_scale, n_features):
    """The input weights' half-width s of a ``weight_scale`` parameter (already validated):
    'auto' is 1/√d, so that each pre-activation x·w + b of standardised inputs has about the
    same spread (std ≈ 0.8 with b ~ U(-1, 1)) whatever the number of inputs d
    (docs/algorithms.md §1); a number is s itself.

    Parameters
    ----------
    weight_scale : 'auto' or float > 0
    n_features : int
        d.

    Returns
    -------
    float
    """
    if isinstance(weight_scale, str):  # 'auto'
        return 1.0 / math.sqrt(n_features)
    return float(weight_scale)


def hidden_layer(X, W, b, activation_code):
    """H = g(X W + b): the product on BLAS, bias and g fused in one parallel kernel pass.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    W : ndarray of shape (d, L)
    b : ndarray of shape (L,)
    activation_code : int

    Returns
    -------
    H : ndarray of shape (n, L)
    """
    H = X @ W
    return add_bias_activate(H, b, activation_code)


@dataclass(frozen=True, eq=False)
class HiddenMap:
    """The ELM feature map A = g(XW + b) (Huang, Zhu & Siew 2006).

    Parameters
    ----------
    W : ndarray of shape (d, p)
        Input weights.
    b : ndarray of shape (p,)
        Biases.
    activation : int
        Kernel code of g (``fastelm._hidden.ACTIVATIONS``).
    """

    W: np.ndarray
    b: np.ndarray
    activation: int

    @property
    def width(self):
        """p, the number of readout inputs."""
        return self.W.shape[1]

    @property
    def dtype(self):
        """dtype of A (that of W)."""
        return self.W.dtype

    def fill(self, X, out, parallel=True):
        """out[:, :p] ← g(XW + b): the product on BLAS into the strided columns, then the fused
        bias + activation kernel.

        Parameters
        ----------
        X : ndarray of shape (n, d), the map's dtype
        out : ndarray of shape (n, ≥ p), the map's dtype
            Its first p columns are overwritten.
        parallel : bool, default=True
            False: the kernel on one thread (for callers that are pool threads, e.g. Dask);
            fewer than ``PARALLEL_MIN`` values always run on one.

        Returns
        -------
        out
        """
        np.matmul(X, self.W, out=out[:, :self.width])
        parallel = parallel and out.shape[0] * self.width >= PARALLEL_MIN
        kernel = add_bias_activate if parallel else add_bias_activate_serial
        kernel(out, self.b, self.activation)  # the first len(b) = p columns of each row
        return out

    def transform(self, X, parallel=True):
        """A = g(XW + b) for rows X.

        Parameters
        ----------
        X : ndarray of shape (n, d)
        parallel : bool, default=True

        Returns
        -------
        A : ndarray of shape (n, p)
        """
        return self.fill(X, np.empty((X.shape[0], self.width), dtype=self.dtype), parallel)

    def columns(self, X, start, stop, parallel=True):
        """A[:, start:stop] = g(X W[:, start:stop] + b[start:stop]): nodes are independent.

        Parameters
        ----------
        X : ndarray of shape (n, d)
        start, stop : int
        parallel : bool, default=True

        Returns
        -------
        ndarray of shape (n, stop - start)
        """
        part = HiddenMap(self.W[:, start:stop], self.b[start:stop], self.activation)
        return part.transform(X, parallel)


@dataclass(frozen=True, eq=False)
class DirectLinksMap:
    """The RVFL readout inputs A = [X, inner(X)]: the inputs beside another map's features
    (direct links, Pao, Park & Sobajic 1994), so a ridge readout on A is never worse in its
    training objective than ridge on the inputs alone.

    Parameters
    ----------
    inner : feature map
        The hidden (or broad) layer, e.g. ``HiddenMap``; its columns follow X's in A.
    n_features : int
        d, the columns of X.
    """

    inner: object
    n_features: int

    @property
    def width(self):
        """p = d + the inner map's width."""
        return self.n_features + self.inner.width

    @property
    def dtype(self):
        return self.inner.dtype

    def fill(self, X, out, parallel=True):
        """out[:, :d] ← X, then the inner map into the next columns."""
        out[:, :self.n_features] = X
        self.inner.fill(X, out[:, self.n_features:], parallel)
        return out

    def transform(self, X, parallel=True):
        """A (n×p) for rows X."""
        return self.fill(X, np.empty((X.shape[0], self.width), dtype=self.dtype), parallel)

    def columns(self, X, start, stop, parallel=True):
        """A[:, start:stop]: columns of X, then of the inner map."""
        d = self.n_features
        parts = [X[:, start:min(stop, d)]] if start < d else []
        if stop > d:
            parts.append(self.inner.columns(X, max(start, d) - d, stop - d, parallel))
        return parts[0] if len(parts) == 1 else np.hstack(parts)
