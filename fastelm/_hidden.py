"""Random hidden layer H = g(XW + b) (Huang et al. 2006): weights, activation names, evaluation.

Randomness is drawn here with a numpy Generator, never inside a kernel, so that the same
``random_state`` gives the same W and b whatever the number of threads.
"""
import numbers

import numpy as np

from ._kernels.hidden import LINEAR, RELU, SIGMOID, SINE, TANH, add_bias_activate

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
    """W ~ U(-scale, scale)^{d×L}, b ~ U(-scale, scale)^L, one hidden node at a time.

    One (L, d+1) uniform matrix is drawn and node j is its row j: [W[:, j], b[j]]. The rows come
    out of the Generator in order, so the first k nodes of an L-node draw are exactly the k-node
    draw of the same seed (the prefix property: a hidden size chosen on prefixes of one layer,
    ``fastelm.model_selection``, names a model ``n_hidden=k`` rebuilds).

    Parameters
    ----------
    rng : numpy.random.Generator
    n_features, n_hidden : int
        d and L.
    dtype : numpy dtype
    scale : float, default=1.0

    Returns
    -------
    W : ndarray of shape (d, L)
    b : ndarray of shape (L,)
    """
    nodes = rng.uniform(-scale, scale, size=(n_hidden, n_features + 1))
    W = np.ascontiguousarray(nodes[:, :n_features].T, dtype=dtype)
    return W, nodes[:, n_features].astype(dtype)


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
