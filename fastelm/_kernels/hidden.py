"""Hidden-layer kernels: the fused bias + activation g(XW + b), parallel over rows
(docs/algorithms.md §1).

The product XW is left to BLAS; ``add_bias_activate`` adds the bias and applies g in place, one
pass over memory. libm's scalar ``tanh``/``exp`` would cost as much as the Gram product HᵀH, so
``exp``, ``tanh`` and ``sigmoid`` are written out here in plain arithmetic that LLVM vectorises
(Cody-Waite reduction and the Cephes approximations; within 4 ulp of numpy's, see the tests).
``tanh`` and ``sigmoid`` have a float32 version (Cephes tanhf/expf, float32 constants) picked by
the argument's type, so float32 data is computed in float32 lanes, twice as many per vector.
The float64 tanh spends one division per value: division is the slowest vector operation.

Activation codes (names in ``fastelm._hidden.ACTIVATIONS``):
0 tanh = tansig(x) = 2/(1+exp(-2x)) - 1, 1 logistic sigmoid 1/(1+exp(-x)), 2 relu max(0, x),
3 sine sin(x), 4 identity x.
"""
import numpy as np
from numba import njit, prange, types
from numba.extending import overload

from . import CACHE
from . import FAST as _FAST

TANH, SIGMOID, RELU, SINE, LINEAR = 0, 1, 2, 3, 4


# Cephes tanh for |x| < 0.625: tanh x = x + x^3 P(x^2)/Q(x^2)
_TP0, _TP1, _TP2 = -9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3
_TQ0, _TQ1, _TQ2 = 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3
# Cephes exp on |r| <= ln2/2: e^r = 1 + 2 r P(r^2) / (Q(r^2) - r P(r^2))
_EP0, _EP1, _EP2 = 1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1
_EQ0, _EQ1 = 3.00198505138664455979e-6, 2.52448340349684104192e-3
_EQ2, _EQ3 = 2.27265548208155028766e-1, 2.00000000000000000009e0
_LOG2E = 1.4426950408889634073599
_LN2_HI, _LN2_LO = 6.93145751953125e-1, 1.42860682030941723212e-6


@njit(inline="always", **_FAST)
def _exp_reduced(t):
    """Cody-Waite: t = k ln 2 + r, |r| ≤ ln2/2; returns k and the p, q of e^r = (q + p)/(q − p)."""
    k = np.floor(t * _LOG2E + 0.5)
    r = t - k * _LN2_HI - k * _LN2_LO
    rr = r * r
    p = r * ((_EP0 * rr + _EP1) * rr + _EP2)
    q = ((_EQ0 * rr + _EQ1) * rr + _EQ2) * rr + _EQ3
    return k, p, q


@njit(inline="always", **_FAST)
def _pow2_below_64(m):
    """2^(m mod 64) for an integer m ≥ 0 by its binary digits: no bit casts, so it vectorises."""
    s = 1.0
    s *= 2.0 if m & 1 else 1.0
    s *= 4.0 if m & 2 else 1.0
    s *= 16.0 if m & 4 else 1.0
    s *= 256.0 if m & 8 else 1.0
    s *= 65536.0 if m & 16 else 1.0
    s *= 4294967296.0 if m & 32 else 1.0
    return s


@njit(inline="always", **_FAST)
def exp(x):
    """e^x = 2^k e^r, k = round(x / ln 2), r = x - k ln 2 (Cody-Waite), for x clipped to ±708."""
    k, p, q = _exp_reduced(min(max(x, -708.0), 708.0))
    er = 1.0 + 2.0 * p / (q - p)
    m = np.int64(abs(k))
    s = _pow2_below_64(m)
    s *= 18446744073709551616.0 if m & 64 else 1.0
    s *= 3.402823669209385e38 if m & 128 else 1.0
    s *= 1.157920892373162e77 if m & 256 else 1.0
    s *= 1.3407807929942597e154 if m & 512 else 1.0
    return er * s if k >= 0 else er / s


@njit(inline="always", **_FAST)
def _tanh64(x):
    """tanh x in float64 with one division (the vector units' slowest operation).

    |x| < 0.625: Cephes' x + x^3 P(x^2)/Q(x^2). Otherwise tanh|x| = 1 − 2/(e^{2|x|} + 1) with
    e^{2|x|} = 2^k (q + p)/(q − p) (exp's rational form, k ≥ 2 here: no reciprocal of 2^k), so
    2/(e^{2|x|} + 1) = 2(q − p)/(2^k (q + p) + q − p). Both branches are computed for every
    lane and only their numerators and denominators are selected, so one quotient serves both.
    """
    a = abs(x)
    z = x * x
    ps = (_TP0 * z + _TP1) * z + _TP2
    qs = ((z + _TQ0) * z + _TQ1) * z + _TQ2
    k, p, q = _exp_reduced(2.0 * min(a, 22.0))  # tanh(22) is 1 in float64; k = 0 … 63
    s = _pow2_below_64(np.int64(k))
    small = a < 0.625
    f = (ps if small else 2.0 * (q - p)) / (qs if small else s * (q + p) + (q - p))
    return x + x * z * f if small else np.copysign(1.0 - f, x)


# float32 (Cephes tanhf, expf): every constant float32 so no lane is promoted to float64
_F0, _F1, _F2 = np.float32(0.0), np.float32(1.0), np.float32(2.0)
_F0625, _F9, _FHALF = np.float32(0.625), np.float32(9.0), np.float32(0.5)
_FT0, _FT1, _FT2 = np.float32(-5.70498872745e-3), np.float32(2.06390887954e-2), \
    np.float32(-5.37397155531e-2)
_FT3, _FT4 = np.float32(1.33314422036e-1), np.float32(-3.33332819422e-1)
_FE0, _FE1, _FE2 = np.float32(1.9875691500e-4), np.float32(1.3981999507e-3), \
    np.float32(8.3334519073e-3)
_FE3, _FE4, _FE5 = np.float32(4.1665795894e-2), np.float32(1.6666665459e-1), \
    np.float32(5.0000001201e-1)
_FLOG2E = np.float32(1.44269504088896341)
_FLN2_HI, _FLN2_LO = np.float32(0.693359375), np.float32(-2.12194440e-4)
_FMAXLOG = np.float32(88.0)
_FPOW2 = tuple(np.float32(2.0 ** (2 ** i)) for i in range(7))  # 2^1, 2^2, 2^4 … 2^64


@njit(inline="always", **_FAST)
def _expm_f32(t):
    """(e^r, 2^|k|, k) with t = k ln 2 + r, |r| ≤ ln2/2, for float32 t in [-88, 88] (Cephes expf:
    polynomial, no division)."""
    k = np.floor(t * _FLOG2E + _FHALF)
    r = t - k * _FLN2_HI - k * _FLN2_LO
    er = ((((((_FE0 * r + _FE1) * r + _FE2) * r + _FE3) * r + _FE4) * r + _FE5) * (r * r)
          + r + _F1)
    m = np.int32(abs(k))
    s = _F1
    s *= _FPOW2[0] if m & 1 else _F1
    s *= _FPOW2[1] if m & 2 else _F1
    s *= _FPOW2[2] if m & 4 else _F1
    s *= _FPOW2[3] if m & 8 else _F1
    s *= _FPOW2[4] if m & 16 else _F1
    s *= _FPOW2[5] if m & 32 else _F1
    s *= _FPOW2[6] if m & 64 else _F1
    return er, s, k


@njit(inline="always", **_FAST)
def _exp32(x):
    """e^x in float32, x clipped to ±88."""
    er, s, k = _expm_f32(min(max(x, -_FMAXLOG), _FMAXLOG))
    return er * s if k >= _F0 else er / s


@njit(inline="always", **_FAST)
def _tanh32(x):
    """tanh x in float32: Cephes tanhf (odd polynomial below 0.625, else 1 − 2/(e^{2|x|} + 1))."""
    a = abs(x)
    z = x * x
    small = ((((_FT0 * z + _FT1) * z + _FT2) * z + _FT3) * z + _FT4) * z * x + x
    er, s, _ = _expm_f32(_F2 * min(a, _F9))  # tanh(9) is 1 in float32; k ≥ 0 here
    big = _F1 - _F2 / (er * s + _F1)
    return small if a < _F0625 else np.copysign(big, x)


def tanh(x):
    """tanh x in the type of x. Numba compiles the overload below (_tanh64, _tanh32); a call
    from Python gets numpy's tanh."""
    return np.tanh(x)


@overload(tanh, inline="always")
def _tanh_overload(x):
    if isinstance(x, types.Float) and x.bitwidth == 32:
        return lambda x: _tanh32(x)
    return lambda x: _tanh64(x)


def sigmoid(x):
    """1/(1 + e^{-x}) in the type of x. Numba compiles the overload below; a call from Python
    gets the same formula in numpy."""
    x = np.asarray(x)
    one = x.dtype.type(1) if x.dtype.kind == "f" else 1.0
    return one / (one + np.exp(-x))


@overload(sigmoid, inline="always")
def _sigmoid_overload(x):
    if isinstance(x, types.Float) and x.bitwidth == 32:
        return lambda x: _F1 / (_F1 + _exp32(-x))
    return lambda x: 1.0 / (1.0 + exp(-x))


@njit(inline="always", **_FAST)
def activation(x, code):
    """g(x) for one scalar; ``code`` selects g (module docstring)."""
    if code == TANH:
        return tanh(x)
    if code == SIGMOID:
        return sigmoid(x)
    if code == RELU:
        return max(x, 0.0)
    if code == SINE:
        return np.sin(x)
    return x


@njit(**_FAST)
def _activate_row(h, b, code):
    # h[:len(b)] only; one branch per loop so every loop body is straight-line code LLVM can
    # vectorise
    n = b.shape[0]
    if code == TANH:
        for j in range(n):
            h[j] = tanh(h[j] + b[j])
    elif code == SIGMOID:
        for j in range(n):
            h[j] = sigmoid(h[j] + b[j])
    elif code == RELU:
        for j in range(n):
            h[j] = max(h[j] + b[j], 0.0)
    elif code == SINE:
        for j in range(n):
            h[j] = np.sin(h[j] + b[j])
    else:
        for j in range(n):
            h[j] = h[j] + b[j]


@njit(**_FAST)
def activate_rows(H, n, b, code, A, offset):
    """A[i, offset + j] <- g(H[i, j] + b[j]) for the first n rows and j < len(b), by 2-D
    indices (no row views: cheap for a few rows of a few columns; A may be H, offset 0).
    ``add_bias_activate`` keeps its row kernel: called on row blocks from ``prange`` this one
    ran 1.5 to 4 × slower on 20000 × 1000 (the blocks' strided layout does not vectorise)."""
    L = b.shape[0]
    if code == TANH:
        for i in range(n):
            for j in range(L):
                A[i, offset + j] = tanh(H[i, j] + b[j])
    elif code == SIGMOID:
        for i in range(n):
            for j in range(L):
                A[i, offset + j] = sigmoid(H[i, j] + b[j])
    elif code == RELU:
        for i in range(n):
            for j in range(L):
                A[i, offset + j] = max(H[i, j] + b[j], 0.0)
    elif code == SINE:
        for i in range(n):
            for j in range(L):
                A[i, offset + j] = np.sin(H[i, j] + b[j])
    else:
        for i in range(n):
            for j in range(L):
                A[i, offset + j] = H[i, j] + b[j]


@njit(parallel=True, cache=CACHE)
def add_bias_activate(H, b, code):
    """H[i, j] <- g(H[i, j] + b[j]) in place for j < len(b) (H may have more columns, left as
    they are), rows in parallel (elementwise: thread-count free)."""
    if b.shape[0] > H.shape[1]:
        raise ValueError("more biases than columns")
    for i in prange(H.shape[0]):
        _activate_row(H[i], b, code)
    return H


@njit(cache=CACHE)
def add_bias_activate_serial(H, b, code):
    """``add_bias_activate`` on one thread (bit-identical): for callers that are threads of a
    pool themselves, such as Dask workers."""
    activate_rows(H, H.shape[0], b, code, H, 0)
    return H
