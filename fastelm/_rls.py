"""Recursive ridge (OS-ELM, Liang et al. 2006; docs/algorithms.md §2): the readout updated chunk by
chunk so that beta always equals the batch ridge fit on every row seen.

Two exact forms of one update with chunk (H, T), n rows, L hidden nodes:

Woodbury (cheap for n ≪ L), on P = K⁻¹:
    P ← P − P Hᵀ (I_n + H P Hᵀ)⁻¹ H P,        beta ← beta + P Hᵀ (T − H beta)
information (cheap for n ≳ L/10), on K = HᵀH + alpha I summed over all rows:
    K ← K + HᵀH,                              beta ← beta + K⁻¹ Hᵀ (T − H beta)

``RecursiveRidge.update`` picks the form with fewer flops for each chunk. K and HᵀT (summed
over every row seen) are always kept (one syrk and one gemm per chunk); P is rebuilt from K's
Cholesky factor only when a Woodbury step needs it. Until L rows have been seen K is dominated
by alpha I and P holds 1/alpha-sized entries, so the information form is used there for
accuracy.

The information form is lazy: it only adds to K and HᵀT, and beta = K⁻¹ HᵀT is solved (one
Cholesky) when it is next read — by a prediction, a Woodbury step or node removal — so a stream
of chunks costs one L×L solve per read of beta, not one per chunk. A Woodbury step brings beta
up to date first (from the same Cholesky factor that rebuilds P) and then updates it in closed
form. beta arrays are replaced, never modified in place, so an array handed out stays as it was.
The L×L state is float64 whatever the data's dtype; products with H run in H's dtype.
"""
import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.linalg.lapack import dpotri

from ._ridge import add_to_diagonal, serial_blas_if_small, spd_factor, spd_solve


def woodbury_flops(n, L, m):
    """Flops of one Woodbury step: P Hᵀ, H P Hᵀ, Cholesky of S, the triangular solve, the P syrk."""
    return 2 * n * L * L + 2 * n * n * L + n ** 3 / 3 + n * n * L + n * L * L + 4 * n * L * m


def information_flops(n, L, m):
    """Flops of one information step: the K syrk, Cholesky of K and the two solves."""
    return n * L * L + L ** 3 / 3 + 2 * L * L * m + 4 * n * L * m


class RecursiveRidge:
    """State (K, HᵀT, P, beta) of a ridge readout fitted on a stream of chunks.

    Parameters
    ----------
    n_hidden, n_outputs : int
        L and m.
    alpha : float
        Ridge penalty (1/C); K starts at alpha·I, HᵀT and beta at 0.
    """

    def __init__(self, n_hidden, n_outputs, alpha):
        self.alpha = float(alpha)
        self.K = add_to_diagonal(np.zeros((n_hidden, n_hidden)), self.alpha)
        self.HtT = np.zeros((n_hidden, n_outputs))  # Σ HᵀT over every row seen
        self.P = None  # K⁻¹ when current, else None
        self._beta = np.zeros((n_hidden, n_outputs))  # K⁻¹ HᵀT when current, else None
        self._cast = None  # (beta, beta cast to another dtype), made by beta_as
        self.n_seen = 0
        self.forms = []  # 'woodbury' or 'information', one per chunk (for tests and tuning)

    def __setstate__(self, state):
        if "beta" in state:  # pickled before the lazy solve: beta was current, HᵀT = K beta
            beta = state.pop("beta")
            state.update(_beta=beta, HtT=state["K"] @ beta, _cast=None)
        self.__dict__.update(state)

    @property
    def n_hidden(self):
        return self.K.shape[0]

    @property
    def n_outputs(self):
        return self.HtT.shape[1]

    @property
    def beta(self):
        """The readout K⁻¹ HᵀT (L×m, float64), solved now if a chunk came in since last read."""
        if self._beta is None:
            self._beta = spd_solve(self.K, self.HtT)
        return self._beta

    def beta_as(self, dtype):
        """beta in ``dtype`` (float64: beta itself), cast once per solve."""
        beta = self.beta
        if beta.dtype == dtype:
            return beta
        if self._cast is None or self._cast[0] is not beta or self._cast[1].dtype != dtype:
            self._cast = (beta, beta.astype(dtype))
        return self._cast[1]

    def choose_form(self, n):
        """'woodbury' or 'information' for a chunk of n rows (fewer flops; information first)."""
        L, m = self.HtT.shape
        if self.n_seen < L:
            return "information"
        extra = L ** 3 if self.P is None else 0  # rebuilding P once, amortised over later chunks
        woodbury = woodbury_flops(n, L, m) + extra / 4
        return "woodbury" if woodbury < information_flops(n, L, m) else "information"

    def update(self, H, T, form=None):
        """Absorb one chunk: H (n×L) hidden outputs, T (n×m) targets. Returns the form used."""
        form = form or self.choose_form(H.shape[0])
        if form == "woodbury":
            self._woodbury(H, T)
        elif form == "information":
            self._information(H, T)
        else:
            raise ValueError(f"form={form!r} is not 'woodbury' or 'information'")
        self.n_seen += H.shape[0]
        self.forms.append(form)
        return form

    def add_gram(self, HtH, HtT, n):
        """Absorb n rows given only their sums HᵀH and HᵀT (an information step)."""
        self.K += HtH
        self.HtT += HtT
        self._invalidate()
        self.n_seen += n
        self.forms.append("information")

    def _invalidate(self):
        self._beta = None
        self.P = None

    def remove_nodes(self, drop):
        """Delete hidden nodes ``drop`` (indices) and re-adjust the readout exactly.

        With R the kept nodes and D the dropped ones (docs/algorithms.md §4, block inverse):
            K ← K_RR,   beta ← beta_R + K_RR⁻¹ K_RD beta_D
        which is the ridge fit of the kept nodes on every row seen, with no past rows kept.
        (Equivalently P ← P_RR − P_RD P_DD⁻¹ P_DR, beta ← beta_R − P_RD P_DD⁻¹ beta_D; the K form
        is used because it stays well conditioned.) Both equal K_RR⁻¹ (HᵀT)_R, the sums of
        the kept nodes, which is what the next read of beta solves. Returns the kept indices.
        """
        L = self.n_hidden
        drop = np.unique(np.asarray(drop, dtype=np.intp))
        if drop.size and (drop[0] < 0 or drop[-1] >= L):
            raise ValueError(f"node indices must lie in [0, {L}); got {drop.tolist()}")
        keep = np.setdiff1d(np.arange(L), drop)
        if keep.size == 0:
            raise ValueError("cannot remove every hidden node")
        if drop.size == 0:
            return keep
        self.K = self.K[np.ix_(keep, keep)]
        self.HtT = self.HtT[keep]
        self._invalidate()
        return keep

    def _information(self, H, T):
        self.K += H.T @ H
        self.HtT += H.T @ T
        self._invalidate()

    def _woodbury(self, H, T):
        if self.P is None:
            self._refresh_inverse()
        beta = self.beta
        Hd = np.asarray(H, dtype=np.float64)
        PHt = self.P @ Hd.T  # L×n
        S = add_to_diagonal(Hd @ PHt, 1.0)  # I_n + H P Hᵀ, SPD
        R, _ = cho_factor(S, lower=False, check_finite=False)
        A = solve_triangular(R, PHt.T, trans="T", check_finite=False)  # R⁻ᵀ H P, n×L
        residual = T - Hd @ beta
        self._beta = beta + A.T @ solve_triangular(R, residual, trans="T", check_finite=False)
        self.P -= A.T @ A  # P Hᵀ S⁻¹ H P as one syrk: symmetric by construction
        self.K += H.T @ H
        self.HtT += H.T @ T

    def _refresh_inverse(self):
        """P = K⁻¹, and beta = K⁻¹ HᵀT if it is out of date, from one Cholesky factor of K."""
        c = spd_factor(self.K)
        if c is None:
            if self._beta is None:
                self._beta = spd_solve(self.K, self.HtT)  # its warned eigen fallback
            self.P = np.linalg.pinv(self.K, hermitian=True)
            return
        if self._beta is None:
            with serial_blas_if_small(self.n_hidden):
                self._beta = cho_solve(c, self.HtT, check_finite=False)
        P, info = dpotri(c[0], lower=0)
        upper = np.triu(P)
        self.P = upper + np.triu(upper, 1).T
