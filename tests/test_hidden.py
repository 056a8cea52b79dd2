import numpy as np
import pytest

from fastelm._hidden import (ACTIVATIONS, check_activation, check_dtype, check_generator,
                             check_weight_scale, hidden_layer, random_weights, scale_weights)
from fastelm._kernels.hidden import activate_rows, add_bias_activate, add_bias_activate_serial

REFERENCE = {
    "tanh": np.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0.0),
    "sine": np.sin,
    "linear": lambda x: x,
}


def _grid():
    rng = np.random.default_rng(0)
    return np.concatenate([np.linspace(-50, 50, 200001), rng.standard_normal(50000) * 4,
                           np.logspace(-300, 2.8, 5000), -np.logspace(-300, 2.8, 5000),
                           [0.0, -0.0, 0.625, -0.625, 19.0, 22.0, 700.0, -700.0, 800.0, -800.0]])


@pytest.mark.parametrize("name", sorted(REFERENCE))
def test_activation_matches_numpy_within_4_ulp(name):
    x = _grid()[None, :]
    with np.errstate(over="ignore"):
        expected = REFERENCE[name](x)
    got = add_bias_activate(x.copy(), np.zeros(x.shape[1]), ACTIVATIONS[name])
    ulps = np.abs(got - expected) / np.spacing(np.maximum(np.abs(expected), np.finfo(np.float64).tiny))  # exp clamps at ±708
    ulps[np.abs(got - expected) < 1e-300] = 0  # exp is clamped at ±708: underflow to ~1e-308
    assert ulps.max() <= 4, (name, ulps.max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hidden_layer_is_g_of_xw_plus_b(dtype):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((57, 7)).astype(dtype)
    W, b = random_weights(rng, 7, 13, dtype)
    H = hidden_layer(X, W, b, check_activation("tanh"))
    assert H.dtype == dtype
    tol = 1e-14 if dtype == np.float64 else 1e-6
    np.testing.assert_allclose(H, np.tanh(X.astype(np.float64) @ W + b), atol=tol)


def test_random_weights_uniform_and_reproducible():
    W1, b1 = random_weights(check_generator(3), 5, 400, np.float64)
    W2, b2 = random_weights(check_generator(3), 5, 400, np.float64)
    assert np.array_equal(W1, W2) and np.array_equal(b1, b2)
    assert W1.min() >= -1 and W1.max() <= 1 and abs(W1.mean()) < 0.05


def test_generator_inputs():
    g = np.random.default_rng(0)
    assert check_generator(g) is g
    assert isinstance(check_generator(np.random.RandomState(0)), np.random.Generator)
    with pytest.raises(ValueError, match="random_state"):
        check_generator("seed")


def test_bad_names():
    with pytest.raises(ValueError, match="activation"):
        check_activation("softplus")
    with pytest.raises(ValueError, match="float64"):
        check_dtype("int32")


def _ulps32(got, expected):
    spacing = np.spacing(np.maximum(np.abs(expected), np.finfo(np.float32).tiny)).astype(np.float64)
    ulps = np.abs(got.astype(np.float64) - expected.astype(np.float64)) / spacing
    ulps[np.abs(got.astype(np.float64) - expected) < 1e-37] = 0  # exp's float32 underflow
    return ulps


@pytest.mark.parametrize("name", ["tanh", "sigmoid"])
def test_float32_activation_stays_float32_within_4_ulp_of_numpy(name):
    rng = np.random.default_rng(1)
    x = np.concatenate([np.linspace(-50, 50, 200001), rng.uniform(-10, 10, 100000),
                        np.logspace(-40, 1.9, 5000), -np.logspace(-40, 1.9, 5000),
                        [0.0, -0.0, 0.625, -0.625, 9.0, -9.0, 88.0, -88.0, 100.0, -100.0]])
    x = x.astype(np.float32)[None, :]
    got = add_bias_activate(x.copy(), np.zeros(x.shape[1], np.float32), ACTIVATIONS[name])
    assert got.dtype == np.float32
    with np.errstate(over="ignore"):
        expected = REFERENCE[name](x)  # numpy's float32 functions
    assert expected.dtype == np.float32
    assert _ulps32(got, expected).max() <= 4, name


def test_bias_and_activation_touch_only_the_first_len_b_columns():
    rng = np.random.default_rng(2)
    H = rng.standard_normal((9, 12))
    b = rng.uniform(-1, 1, 10)
    out = add_bias_activate(H.copy(), b, ACTIVATIONS["tanh"])
    np.testing.assert_allclose(out[:, :10], np.tanh(H[:, :10] + b), rtol=1e-15, atol=1e-16)
    assert np.array_equal(out[:, 10:], H[:, 10:])
    with pytest.raises(ValueError, match="biases"):
        add_bias_activate(H.copy(), np.zeros(13), 0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_serial_and_indexed_activations_equal_the_parallel_one_bitwise(name, dtype):
    """The one-thread kernel (Dask workers) and ``activate_rows`` (the stream loop, writing
    into another array at a column offset) give the parallel kernel's values bit for bit."""
    rng = np.random.default_rng(4)
    H = (rng.standard_normal((37, 9)) * 4).astype(dtype)
    b = rng.standard_normal(7).astype(dtype)
    code = ACTIVATIONS[name]
    parallel = add_bias_activate(H.copy(), b, code)
    np.testing.assert_array_equal(add_bias_activate_serial(H.copy(), b, code), parallel)
    A = np.full((40, 12), 5.0, dtype)
    activate_rows(H, 37, b, code, A, 3)
    np.testing.assert_array_equal(A[:37, 3:10], parallel[:, :7])
    assert (A[:, :3] == 5).all() and (A[:, 10:] == 5).all() and (A[37:] == 5).all()


def test_scalar_functions_called_from_python_use_numpy():
    """tanh / sigmoid are Numba overloads; called from Python they give numpy's values in the
    input's precision."""
    from fastelm._kernels.hidden import sigmoid, tanh
    x = np.linspace(-5, 5, 11)
    assert np.array_equal(tanh(x), np.tanh(x))
    assert np.allclose(sigmoid(x), 1 / (1 + np.exp(-x)), rtol=1e-15)
    assert tanh(x.astype(np.float32)).dtype == np.float32
    assert sigmoid(x.astype(np.float32)).dtype == np.float32


def test_random_weights_nest():
    """The first k nodes of an L-node draw are the k-node draw of the same seed."""
    W, b = random_weights(check_generator(4), 6, 50, np.float64)
    Wk, bk = random_weights(check_generator(4), 6, 17, np.float64)
    assert np.array_equal(W[:, :17], Wk) and np.array_equal(b[:17], bk)


# --------------------------------------------------------------------------- weight scale


def former_random_weights(rng, n_features, n_hidden, dtype):
    """random_weights before weight_scale: W, b ~ U(-1, 1) from one (L, d+1) draw."""
    nodes = rng.uniform(-1.0, 1.0, size=(n_hidden, n_features + 1))
    return (np.ascontiguousarray(nodes[:, :n_features].T, dtype=dtype),
            nodes[:, n_features].astype(dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_unit_scale_is_the_former_draw_bit_for_bit(dtype):
    W, b = random_weights(np.random.default_rng(5), 7, 30, dtype, 1.0)
    W0, b0 = former_random_weights(np.random.default_rng(5), 7, 30, dtype)
    assert W.dtype == dtype and W.flags.c_contiguous
    np.testing.assert_array_equal(W, W0)
    np.testing.assert_array_equal(b, b0)


def test_scale_multiplies_the_weights_not_the_biases():
    s = check_weight_scale("auto", 16)
    assert s == 0.25 and check_weight_scale(0.7, 16) == 0.7
    W, b = random_weights(np.random.default_rng(1), 16, 40, np.float64, s)
    W1, b1 = random_weights(np.random.default_rng(1), 16, 40, np.float64)
    np.testing.assert_array_equal(W, W1 * s)
    np.testing.assert_array_equal(b, b1)
    assert np.abs(W).max() <= s and np.abs(b).max() > 0.9


def test_prefix_property_holds_with_a_scale():
    W, b = random_weights(np.random.default_rng(2), 5, 50, np.float64, 0.3)
    Wk, bk = random_weights(np.random.default_rng(2), 5, 12, np.float64, 0.3)
    np.testing.assert_array_equal(W[:, :12], Wk)
    np.testing.assert_array_equal(b[:12], bk)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scale_weights_rounds_the_float64_product_into_its_result_alone(dtype):
    """s·W of a float64 unit draw (the transposed node rows of ``random_weights``, or the
    C-ordered unit of the CV searches) equals (W·s).astype(dtype) bit for bit, C-ordered,
    and allocates only its result: no float64 product beside it (a wide layer, 3000 inputs ×
    200 nodes, held three float64 copies of the draw at once)."""
    import tracemalloc

    nodes = np.random.default_rng(0).uniform(-1.0, 1.0, size=(200, 3001))
    for W in (nodes[:, :3000].T, np.ascontiguousarray(nodes[:, :3000].T)):
        for scale in (1 / np.sqrt(3000), 2.5):
            tracemalloc.start()
            try:
                scaled = scale_weights(W, scale, dtype)
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            expected = (W * scale).astype(dtype)
            assert scaled.dtype == dtype and scaled.flags.c_contiguous
            assert np.array_equal(scaled, expected)  # the same rounding of the same product
            assert peak < 1.1 * scaled.nbytes, (peak, scaled.nbytes)
