"""EFAST kernel for a linear readout: the search-curve outputs of every run, parallel over runs.

The network readout is y = z @ beta with z_j on [a_j, b_j]. On run i of EFAST (Saltelli,
Tarantola & Chan 1999; docs/algorithms.md §3) node i moves at frequency omega0 and every other node j
at its complementary frequency, all with the run's phase phi_i:

    z_j(s) = a_j + (b_j - a_j) * x_j(s),   x_j(s) = 1/2 + arcsin(sin(omega_j s + phi_i)) / pi,

for s_n = 2 pi n / N, n = 0..N-1. The readout is linear and the nodes that share a frequency
share the whole curve x_j(s), so

    y(s) - const = sum_j c_j (x_j(s) - 1/2) = sum_f C_f (x_f(s) - 1/2),   c_j = beta_j (b_j - a_j),

where C_f sums c_j over the nodes at frequency f. That is the same sample and the same readout
as materialising the N×L curve (only the order of the additions differs), at the cost of one
curve per distinct frequency instead of one per node. The constant (sum_j beta_j (a_j + c_j/2))
is dropped: it only moves the zero-frequency bin, which EFAST never uses. The triangle wave
arcsin(sin(theta)) / pi is evaluated in its exact piecewise-linear form, with the angle reduced
to a fraction of a turn: cheaper than libm's sin and arcsin, and at least as accurate (arcsin
near +-1 amplifies sin's rounding), so it agrees with ``efast_sample``'s points to rounding.

The Fourier analysis is left to ``numpy.fft`` outside the kernel (``fastelm.global_sensitivity``), so
the hidden-node path and ``efast_analyze`` share one spectrum -> indices code. Measured
alternative: computing in the kernel only the floor(omega0/2) + M bins EFAST uses (V from
Parseval) by direct DFT is ~2-3x faster at N = 129 but O(N^2) per run, slower from N ~ 500 on
(300 nodes: N = 1025 125 ms vs 33 ms, N = 4785 2.3 s vs 0.4 s, one thread).
"""
import numpy as np
from numba import njit, prange

from . import CACHE


@njit(cache=CACHE, inline="always")
def _add_curve(out, tbuf, amp, f, frac, N):
    """out[q, n] += amp[q] * (x_f(s_n) - 1/2) for a run with phase frac = phi / (2 pi).

    x(s) - 1/2 = arcsin(sin(theta)) / pi is the triangle wave of theta / (2 pi); with
    v = frac(theta / (2 pi) + 1/4) it is 1/2 - |2v - 1|, exactly, and branch-free.
    """
    step = f / N
    shift = frac + 0.25
    for n in range(N):
        w = n * step + shift
        v = w - np.floor(w)
        tbuf[n] = 0.5 - np.abs(2.0 * v - 1.0)
    for q in range(out.shape[0]):
        a = amp[q]
        for n in range(N):
            out[q, n] += a * tbuf[n]


@njit(parallel=True, cache=CACHE)
def linear_readout_curves(c, runs, phases, omega0, omega_other, N):
    """Centred readout y_i(s_n) - const of the runs i in ``runs``, shape (len(runs), m, N).

    c : (L, m) float64, c_j = beta_j * (b_j - a_j).
    runs : (R,) int64, the runs (nodes of interest) to compute; out[r] belongs to run runs[r].
    phases : (L,) float64, phi_i of run i.
    omega0 : int, frequency of the node of interest.
    omega_other : (L-1,) int64, frequencies of the other nodes, in node order without i.
    N : int, points per run.

    Each run writes only its own slice out[r], so the result does not depend on the thread
    count or the schedule.
    """
    L, m = c.shape
    fmax = 0
    for k in range(omega_other.shape[0]):
        if omega_other[k] > fmax:
            fmax = omega_other[k]
    R = runs.shape[0]
    out = np.zeros((R, m, N))
    for r in prange(R):
        i = runs[r]
        # C[f] = sum of c_j over the other nodes at frequency f on this run
        C = np.zeros((fmax + 1, m))
        used = np.zeros(fmax + 1, dtype=np.bool_)
        for j in range(L):
            if j == i:
                continue
            f = omega_other[j if j < i else j - 1]
            for q in range(m):
                C[f, q] += c[j, q]
            used[f] = True
        frac = phases[i] / (2.0 * np.pi)
        tbuf = np.empty(N)
        _add_curve(out[r], tbuf, c[i], omega0, frac, N)
        for f in range(1, fmax + 1):
            if used[f]:
                _add_curve(out[r], tbuf, C[f], f, frac, N)
    return out
