"""Extended Fourier amplitude sensitivity test (EFAST) and the sensitivity of hidden nodes.

EFAST (Saltelli, Tarantola & Chan 1999) apportions the variance of a model output among its D
bounded inputs. The method is two small functions sharing a ``problem`` dict, as in SALib:

    X = efast_sample(problem, N)        # D runs of N points on the search curve, (D*N, D)
    Y = model(X)                        # (D*N,) or (D*N, m)
    res = efast_analyze(problem, Y)     # res.S1, res.ST, res.names

``hidden_node_sensitivity`` runs the same estimate over the hidden nodes of a network whose
readout is linear, y = z @ beta, each node z_j ranging over [lower_j, upper_j]; FOS-ELM prunes
with its total indices. See docs/algorithms.md §3-4.

The formulas, for run i (factor i of interest), following the paper and SALib line by line:

- omega_i = floor((N - 1) / (2M)); mm = floor(omega_i / (2M)); the other D - 1 factors get
  floor(linspace(1, mm, D - 1)) if mm >= D - 1, else (k mod mm) + 1, k = 0..D-2, in order.
- s_n = 2 pi n / N, n = 0..N-1; x_j(s) = 1/2 + arcsin(sin(omega_j s + phi_i)) / pi, with one
  random phase phi_i in [0, 2 pi) per run shared by all factors of that run (SALib's choice);
  z_j = a_j + (b_j - a_j) x_j.
- Lambda_k = |FFT(y)_k / N|^2 for k = 1..ceil(N/2) - 1 (summed over the outputs when there are
  several, so each factor's partial variance is summed over outputs before normalising);
  V = 2 sum_k Lambda_k.
- S1_i = 2 sum_{p=1..M} Lambda_{p omega_i} / V;
  ST_i = 1 - 2 sum_{k=1..floor(omega_i/2)} Lambda_k / V.

On a sample from ``SALib.sample.fast_sampler.sample`` the indices equal SALib's
``SALib.analyze.fast.analyze`` to rounding (tested with SALib 1.6.0; these formulas, bins
1..ceil(N/2)-1 included, are the same in every SALib release, written int((N+1)/2) before
1.4.6). fastelm computes no bootstrap confidence intervals (known to be unreliable for EFAST,
SALib issue 649). With the same integer seed, ``efast_sample`` draws the phases SALib >= 1.5.2
draws; older SALib used the global legacy generator, whose phases are
``2 * pi * np.random.RandomState(seed).rand(D)``, to be passed as ``phases=``.

Degenerate cases: a run whose output is constant (V = 0, up to rounding) has no variance to
apportion; its S1 and ST are set to 0 and a :class:`ConstantOutputWarning` is issued.

References
----------
Saltelli, A., Tarantola, S. & Chan, K. P.-S. (1999). A quantitative model-independent method
for global sensitivity analysis of model output. Technometrics 41(1), 39-56.
Cukier, R. I. et al. (1973). Study of the sensitivity of coupled reaction systems to
uncertainties in rate coefficients. I Theory. J. Chem. Phys. 59(8), 3873-3878.
"""
from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ._hidden import check_generator
from ._kernels.efast import linear_readout_curves
from ._validation import RandomState

__all__ = [
    "ConstantOutputWarning",
    "EFASTResult",
    "efast",
    "efast_analyze",
    "efast_sample",
    "hidden_node_sensitivity",
]

# Memory budget for one batch of search-curve outputs in hidden_node_sensitivity (float64 values).
_BATCH_VALUES = 1 << 22


class ConstantOutputWarning(RuntimeWarning):
    """The output is constant along a run's search curve; that run's indices were set to 0."""


@dataclass(eq=False)
class EFASTResult:
    """First-order and total EFAST indices, one per factor; also readable as a dict.

    Parameters
    ----------
    S1 : ndarray (D,)
        First-order indices.
    ST : ndarray (D,)
        Total indices.
    names : list of str
        Factor names, in the order of the problem.
    N : int
        Points per run (model evaluations per factor).
    M : int
        Interference factor.
    """

    S1: np.ndarray
    ST: np.ndarray
    names: list
    N: int
    M: int

    def keys(self) -> list[str]:
        """The dict keys: 'S1', 'ST', 'names' (as SALib's result).

        Returns
        -------
        keys : list of str
        """
        return ["S1", "ST", "names"]

    def __getitem__(self, key):
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        """The indices and names as a plain dict.

        Returns
        -------
        result : dict
        """
        return {k: self[k] for k in self.keys()}

    def to_table(self, precision: int = 4) -> str:
        """The indices as a plain-text table, one factor per row.

        Parameters
        ----------
        precision : int, default=4
            Decimals shown.

        Returns
        -------
        table : str
        """
        width = max([len("name")] + [len(str(n)) for n in self.names])
        col = precision + 4
        lines = [f"{'name':<{width}}  {'S1':>{col}}  {'ST':>{col}}"]
        for name, s1, st in zip(self.names, self.S1, self.ST):
            lines.append(f"{str(name):<{width}}  {s1:>{col}.{precision}f}  "
                         f"{st:>{col}.{precision}f}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# validation and the frequency set

def _check_int(value, name):
    if not isinstance(value, (numbers.Integral, np.integer)) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


def _check_NM(N, M):
    N = _check_int(N, "N")
    M = _check_int(M, "M")
    if M < 1:
        raise ValueError(f"M must be >= 1, got M={M}")
    if N <= 4 * M ** 2:
        raise ValueError(f"EFAST needs N > 4*M**2: got N={N} with M={M} (4*M**2={4 * M ** 2}); "
                         f"use N >= {4 * M ** 2 + 1} or a smaller M")
    return N, M


def _check_bounds(lower, upper, names, allow_equal):
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("bounds must be finite")
    bad = np.flatnonzero(upper < lower if allow_equal else upper <= lower)
    if bad.size:
        rel = "upper >= lower" if allow_equal else "upper > lower"
        shown = ", ".join(f"{names[k]}: [{float(lower[k])!r}, {float(upper[k])!r}]"
                          for k in bad[:5])
        raise ValueError(f"bounds need {rel}; {bad.size} violate it ({shown})")


def _check_problem(problem):
    """(names, lower, upper) from a problem dict {'num_vars', 'names', 'bounds'}."""
    if "bounds" not in problem:
        raise ValueError("problem needs 'bounds', a list of [lower, upper] per factor")
    if problem.get("groups") is not None:
        raise ValueError("grouped factors are not supported by fastelm's EFAST")
    dists = problem.get("dists")
    if dists is not None and any(d != "unif" for d in dists):
        raise ValueError("only uniform factors ('unif') are supported")
    bounds = np.asarray(problem["bounds"], dtype=np.float64)
    if bounds.ndim != 2 or bounds.shape[1] != 2 or bounds.shape[0] < 1:
        raise ValueError(f"'bounds' must have shape (D, 2), got {bounds.shape}")
    D = bounds.shape[0]
    if problem.get("num_vars", D) != D:
        raise ValueError(f"num_vars={problem['num_vars']} but 'bounds' has {D} rows")
    names = problem.get("names")
    names = [f"x{k + 1}" for k in range(D)] if names is None else list(names)
    if len(names) != D:
        raise ValueError(f"'names' has {len(names)} entries for {D} factors")
    lower, upper = bounds[:, 0].copy(), bounds[:, 1].copy()
    _check_bounds(lower, upper, names, allow_equal=False)
    return names, lower, upper


def _frequencies(N, M, D):
    """omega_0 of the factor of interest and the D - 1 complementary frequencies (int64)."""
    omega0 = (N - 1) // (2 * M)
    mm = omega0 // (2 * M)
    if mm >= D - 1:
        other = np.floor(np.linspace(1, mm, D - 1)).astype(np.int64)
    else:
        other = np.arange(D - 1, dtype=np.int64) % mm + 1
    return omega0, other


def _check_phases(phases, D, random_state):
    """One phase per run: drawn as 2 pi U[0, 1) (SALib's order of draws), or given."""
    if phases is None:
        return 2.0 * math.pi * check_generator(random_state).random(D)
    phases = np.asarray(phases, dtype=np.float64)
    if phases.shape != (D,) or not np.all(np.isfinite(phases)):
        raise ValueError(f"phases must be {D} finite numbers (one per run), got shape "
                         f"{phases.shape}")
    return phases


# ---------------------------------------------------------------------------------------------
# the estimate: spectrum of each run -> S1, ST

def _spectrum(curves, N):
    """Lambda[i, k-1] = sum over outputs of |FFT(y_i)_k / N|^2, k = 1..ceil(N/2)-1.

    ``curves`` (R, m, N): the m outputs along each of R runs.
    """
    K = math.ceil(N / 2) - 1
    F = np.fft.rfft(curves, axis=2)[:, :, 1:K + 1]
    return np.sum((np.abs(F) / N) ** 2, axis=1)


def _indices(Lam, N, omega0, M, scale):
    """S1, ST per run from its spectrum; scale = max |y| of each run (for the V = 0 test).

    Returns (S1, ST, constant) where ``constant`` flags runs with no variance (indices 0).
    """
    V = 2.0 * np.sum(Lam, axis=1)
    D1 = 2.0 * np.sum(Lam[:, np.arange(1, M + 1) * omega0 - 1], axis=1)
    Dt = 2.0 * np.sum(Lam[:, :omega0 // 2], axis=1)
    # a constant output leaves only FFT rounding noise, far below this threshold
    constant = V <= (N * np.finfo(np.float64).eps * scale) ** 2
    Vsafe = np.where(constant, 1.0, V)
    S1 = np.where(constant, 0.0, D1 / Vsafe)
    ST = np.where(constant, 0.0, 1.0 - Dt / Vsafe)
    return S1, ST, constant


def _warn_constant(constant, names):
    if np.any(constant):
        bad = [str(names[k]) for k in np.flatnonzero(constant)[:5]]
        more = "" if constant.sum() <= 5 else ", ..."
        warnings.warn(f"the output is constant along the search curve of {int(constant.sum())} "
                      f"run(s) ({', '.join(bad)}{more}); their S1 and ST are set to 0",
                      ConstantOutputWarning, stacklevel=3)


# ---------------------------------------------------------------------------------------------
# public API

def efast_sample(problem: Mapping[str, Any], N: int, M: int = 4,
                 random_state: RandomState = None, *, phases: ArrayLike | None = None
                 ) -> np.ndarray:
    """Points on the EFAST search curves: D runs of N points, one run per factor.

    Parameters
    ----------
    problem : dict
        ``{'num_vars': D, 'names': [...], 'bounds': [[lower, upper], ...]}``; every factor is
        uniform on its bounds (upper > lower).
    N : int
        Points per run; N > 4 M^2.
    M : int, default 4
        Interference factor (number of harmonics of omega_i counted in S1).
    random_state : None, int or numpy.random.Generator
        Seeds the phases: phi_i = 2 pi U[0, 1), drawn for i = 0..D-1 in order (with an int seed
        these are the phases SALib >= 1.5.2 draws with the same seed).
    phases : array (D,), optional
        The phases themselves (overrides ``random_state``).

    Returns
    -------
    X : ndarray (D*N, D)
        Rows i*N .. (i+1)*N-1 are run i, on which factor i has frequency omega_0.

    Examples
    --------
    >>> problem = {"num_vars": 2, "names": ["a", "b"], "bounds": [[0, 1], [-1, 1]]}
    >>> efast_sample(problem, 65, random_state=0).shape
    (130, 2)
    """
    names, lower, upper = _check_problem(problem)
    N, M = _check_NM(N, M)
    D = len(names)
    phases = _check_phases(phases, D, random_state)
    omega0, other = _frequencies(N, M, D)

    # omega2[i, j]: frequency of factor j on run i
    cols = np.arange(D)
    pos = np.minimum(cols[None, :] - (cols[None, :] > cols[:, None]), max(D - 2, 0))
    other_f = other.astype(np.float64) if D > 1 else np.zeros(1)
    omega2 = np.where(cols[None, :] == cols[:, None], float(omega0), other_f[pos])

    s = (2 * math.pi / N) * np.arange(N)
    x = omega2[:, None, :] * s[None, :, None]           # (run, n, factor)
    x += phases[:, None, None]
    np.sin(x, out=x)
    np.arcsin(x, out=x)
    x *= 1 / math.pi
    x += 0.5                                             # x_j(s) in [0, 1]
    x *= upper - lower
    x += lower                                           # z_j = a_j + (b_j - a_j) x_j
    return x.reshape(D * N, D)


def efast_analyze(problem: Mapping[str, Any], Y: ArrayLike, M: int = 4) -> EFASTResult:
    """First-order and total EFAST indices from the outputs on ``efast_sample``'s points.

    Parameters
    ----------
    problem : dict
        The problem that was sampled.
    Y : array (D*N,) or (D*N, m)
        Model outputs, rows in the order of the sample. With m outputs, each factor's partial
        variances are summed over the outputs before dividing by the summed total variance.
    M : int, default 4
        The interference factor used for sampling.

    Returns
    -------
    EFASTResult
        ``S1``, ``ST`` (D,), ``names``; a run with constant output gets zeros and a
        :class:`ConstantOutputWarning`.
    """
    names, _, _ = _check_problem(problem)
    D = len(names)
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim not in (1, 2) or Y.shape[0] == 0:
        raise ValueError(f"Y must have shape (D*N,) or (D*N, m), got {Y.shape}")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y contains NaN or infinite values")
    rows = Y.shape[0]
    if rows % D:
        raise ValueError(f"Y has {rows} rows, not a multiple of D={D} (expected D*N rows)")
    N, M = _check_NM(rows // D, M)
    curves = Y.reshape(D, N, -1).transpose(0, 2, 1)   # (run, output, n)
    omega0, _ = _frequencies(N, M, D)
    S1, ST, constant = _indices(_spectrum(curves, N), N, omega0, M,
                                scale=np.max(np.abs(curves), axis=(1, 2)))
    _warn_constant(constant, names)
    return EFASTResult(S1=S1, ST=ST, names=names, N=N, M=M)


def efast(model: Callable[[np.ndarray], ArrayLike], problem: Mapping[str, Any], N: int,
          M: int = 4, random_state: RandomState = None) -> EFASTResult:
    """``efast_analyze(problem, model(efast_sample(problem, N, M, random_state)), M)``.

    Parameters
    ----------
    model : callable
        Maps an (n, D) array of inputs to n outputs, shape (n,) or (n, m).
    problem : dict
        SALib-style problem: 'bounds' (and optionally 'names', 'num_vars').
    N : int
        Points per run (> 4 M²).
    M : int, default=4
        Interference factor.
    random_state : int, numpy Generator or None
        Seeds the random phases.

    Returns
    -------
    EFASTResult
    """
    X = efast_sample(problem, N, M, random_state)
    Y = np.asarray(model(X))
    if Y.ndim == 0 or Y.shape[0] != X.shape[0]:
        raise ValueError(f"model returned shape {Y.shape} for {X.shape[0]} input rows")
    return efast_analyze(problem, Y, M)


def hidden_node_sensitivity(beta: ArrayLike, lower: ArrayLike, upper: ArrayLike, N: int = 1025,
                            M: int = 4, random_state: RandomState = None, *,
                            phases: ArrayLike | None = None
                            ) -> tuple[np.ndarray, np.ndarray]:
    """EFAST indices of the hidden nodes for the linear readout y = z @ beta.

    Node j is a factor uniform on [lower_j, upper_j]. The estimate is EFAST's on the sample of
    ``efast_sample`` (same frequencies, phases and formulas): equal to running ``efast_analyze``
    on ``efast_sample(problem, N) @ beta`` to rounding, computed without materialising the
    (L*N, L) sample (``fastelm._kernels.efast``).

    Parameters
    ----------
    beta : array (L,) or (L, m)
        Readout weights; with m outputs the partial variances are summed over outputs.
    lower, upper : arrays (L,)
        Range of each node's output. ``lower == upper`` is allowed (a node that is constant on
        the data): it carries no variance, its S1 and ST are exactly 0 and its run is skipped;
        it keeps its place in the frequency assignment, so the other nodes' indices are those
        of the same network with that node's weights set to 0.
    N : int, default 1025
        Points per run (L*N readout evaluations in all); N > 4 M^2. Accuracy is set by how many
        distinct complementary frequencies mm = floor(floor((N-1)/(2M)) / (2M)) there are for
        the L-1 other nodes: with mm < L-1 many nodes share a frequency and the indices are
        noisy (300 nodes at N=129: errors up to ~0.5 against the exact shares). For a linear
        readout the indices are within 0.01 of the exact shares for L=5 at N=1025 and L=20 at
        N=4097 (M=4). ST also carries a small upward bias (the other nodes' harmonics above
        omega/2 leak into it): a node with no effect gets ST ~ 0.0005-0.0025 (measured for
        L = 20..300, N = 129..4097), not 0, while its S1 stays ~0. For a linear readout S1 and
        ST estimate the same share, so S1 is the less biased of the two.
    M : int, default 4
        Interference factor.
    random_state : None, int or numpy.random.Generator
        Seeds the phases, as in ``efast_sample``.
    phases : array (L,), optional
        The phases themselves.

    Returns
    -------
    S1, ST : ndarrays (L,)
        First-order and total indices. If the readout is constant (all beta_j (upper_j -
        lower_j) zero) every index is 0 and a :class:`ConstantOutputWarning` is issued.

    Examples
    --------
    >>> beta = np.array([[1.0], [2.0], [0.5]])
    >>> S1, ST = hidden_node_sensitivity(beta, np.zeros(3), np.ones(3), random_state=0)
    >>> np.round(ST, 2).tolist()     # exact shares [1, 4, 0.25] / 5.25 = [0.19, 0.76, 0.05]
    [0.19, 0.76, 0.05]
    """
    beta = np.asarray(beta, dtype=np.float64)
    if beta.ndim == 1:
        beta = beta[:, None]
    if beta.ndim != 2 or beta.shape[0] < 1 or beta.shape[1] < 1:
        raise ValueError(f"beta must have shape (L,) or (L, m), got {beta.shape}")
    if not np.all(np.isfinite(beta)):
        raise ValueError("beta contains NaN or infinite values")
    L = beta.shape[0]
    lower = np.asarray(lower, dtype=np.float64).reshape(-1)
    upper = np.asarray(upper, dtype=np.float64).reshape(-1)
    if lower.shape != (L,) or upper.shape != (L,):
        raise ValueError(f"lower and upper must have {L} entries (one per row of beta), got "
                         f"{lower.shape} and {upper.shape}")
    names = [f"node {j}" for j in range(L)]
    _check_bounds(lower, upper, names, allow_equal=True)
    N, M = _check_NM(N, M)
    phases = _check_phases(phases, L, random_state)
    omega0, other = _frequencies(N, M, L)

    m = beta.shape[1]
    c = np.ascontiguousarray(beta * (upper - lower)[:, None])
    runs = np.flatnonzero(upper > lower).astype(np.int64)
    S1 = np.zeros(L)
    ST = np.zeros(L)
    constant = np.zeros(L, dtype=bool)
    if not np.any(c):
        warnings.warn("the readout is constant (every beta_j * (upper_j - lower_j) is 0); all "
                      "S1 and ST are set to 0", ConstantOutputWarning, stacklevel=2)
        return S1, ST
    batch = max(1, _BATCH_VALUES // (N * m))
    for start in range(0, runs.size, batch):
        part = runs[start:start + batch]
        curves = linear_readout_curves(c, part, phases, omega0, other, N)
        S1[part], ST[part], constant[part] = _indices(
            _spectrum(curves, N), N, omega0, M, scale=np.max(np.abs(curves), axis=(1, 2)))
    _warn_constant(constant, names)
    return S1, ST
