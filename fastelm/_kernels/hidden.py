"""Hidden-layer kernels: the fused bias + activation g(XW + b), parallel over rows.

The product XW is left to BLAS; ``add_bias_activate`` adds the bias and applies g in place, one
pass over memory. libm's scalar ``tanh``/``exp`` would cost as much as the Gram product HᵀH, so
``exp`` and ``tanh`` are written out here in plain arithmetic that LLVM vectorises (Cody-Waite
reduction and the Cephes rational approximations; at most 2 ulp from numpy's, see the tests).

Activation codes (names in ``fastelm._hidden.ACTIVATIONS``):
0 tanh = tansig(x) = 2/(1+exp(-2x)) - 1, 1 logistic sigmoid 1/(1+exp(-x)), 2 relu max(0, x),
3 sine sin(x), 4 identity x.
"""
import numpy as np
from numba import njit, prange

TANH, SIGMOID, RELU, SINE, LINEAR = 0, 1, 2, 3, 4

# No ZeroDivisionError checks (they stop vectorisation); inputs are validated finite upstream.
_FAST = dict(cache=True, error_model="numpy", fastmath={"nsz", "arcp", "contract"})

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
def exp(x):
    """e^x = 2^k e^r, k = round(x / ln 2), r = x - k ln 2 (Cody-Waite), for x clipped to ±708."""
    t = min(max(x, -708.0), 708.0)
    k = np.floor(t * _LOG2E + 0.5)
    r = t - k * _LN2_HI - k * _LN2_LO
    rr = r * r
    p = r * ((_EP0 * rr + _EP1) * rr + _EP2)
    er = 1.0 + 2.0 * p / ((((_EQ0 * rr + _EQ1) * rr + _EQ2) * rr + _EQ3) - p)
    m = np.int64(abs(k))  # 2^|k| by its binary digits: no bit casts, so it vectorises
    s = 1.0
    s *= 2.0 if m & 1 else 1.0
    s *= 4.0 if m & 2 else 1.0
    s *= 16.0 if m & 4 else 1.0
    s *= 256.0 if m & 8 else 1.0
    s *= 65536.0 if m & 16 else 1.0
    s *= 4294967296.0 if m & 32 else 1.0
    s *= 18446744073709551616.0 if m & 64 else 1.0
    s *= 3.402823669209385e38 if m & 128 else 1.0
    s *= 1.157920892373162e77 if m & 256 else 1.0
    s *= 1.3407807929942597e154 if m & 512 else 1.0
    return er * s if k >= 0 else er / s


@njit(inline="always", **_FAST)
def tanh(x):
    """tanh x: rational form for |x| < 0.625, else sign(x)(1 - 2/(e^{2|x|} + 1))."""
    a = abs(x)
    z = x * x
    small = x + x * z * (((_TP0 * z + _TP1) * z + _TP2) / (((z + _TQ0) * z + _TQ1) * z + _TQ2))
    big = 1.0 - 2.0 / (exp(2.0 * min(a, 22.0)) + 1.0)
    return small if a < 0.625 else np.copysign(big, x)


@njit(inline="always", **_FAST)
def activation(x, code):
    """g(x) for one scalar; ``code`` selects g (module docstring)."""
    if code == TANH:
        return tanh(x)
    if code == SIGMOID:
        return 1.0 / (1.0 + exp(-x))
    if code == RELU:
        return max(x, 0.0)
    if code == SINE:
        return np.sin(x)
    return x


@njit(**_FAST)
def _activate_row(h, b, code):
    # one branch per loop so every loop body is straight-line code LLVM can vectorise
    n = h.shape[0]
    if code == TANH:
        for j in range(n):
            h[j] = tanh(h[j] + b[j])
    elif code == SIGMOID:
        for j in range(n):
            h[j] = 1.0 / (1.0 + exp(-(h[j] + b[j])))
    elif code == RELU:
        for j in range(n):
            h[j] = max(h[j] + b[j], 0.0)
    elif code == SINE:
        for j in range(n):
            h[j] = np.sin(h[j] + b[j])
    else:
        for j in range(n):
            h[j] = h[j] + b[j]


@njit(parallel=True, cache=True)
def add_bias_activate(H, b, code):
    """H[i, j] <- g(H[i, j] + b[j]) in place, rows in parallel (elementwise: thread-count free)."""
    for i in prange(H.shape[0]):
        _activate_row(H[i], b, code)
    return H
