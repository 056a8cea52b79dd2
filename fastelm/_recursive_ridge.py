"""Recursive ridge (OS-ELM, Liang et al. 2006; docs/algorithms.md §2): the readout updated chunk
by chunk so that beta always equals the batch ridge fit on the rows it holds.

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

Exact removal (``downdate``): the same two forms with a minus sign,
    Woodbury:     S = I_n − H P Hᵀ,   P ← P + P Hᵀ S⁻¹ H P,   beta ← beta − P Hᵀ S⁻¹ (T − H beta)
    information:  K ← K − HᵀH,  HᵀT ← HᵀT − HᵀT_rows,  beta = K⁻¹ HᵀT
so beta equals the ridge fit on the rows that remain. Removal can make the system singular
(at alpha = 0, fewer independent rows than L remain): the row count is checked first, then
the Cholesky factor of S (Woodbury) or of the new K (information, solved at once) with LAPACK's
reciprocal condition estimate ≥ RCOND_MIN; a failed check raises ValueError and leaves the
state as it was. Woodbury downdates are the unstable direction of RLS, so after L rows removed
by them P and beta are rebuilt from the exact sums K and HᵀT (L³ flops per L rows: the
amortised cost per row stays O(L²)).

Forgetting (``forgetting_factor`` λ ∈ (0, 1]): row i of N seen carries the weight λ^(N−1−i),
    beta = (Σ λ^(N−1−i) h_iᵀ h_i + alpha I)⁻¹ Σ λ^(N−1−i) h_iᵀ t_i,
so a chunk of n rows first scales the past sums by λⁿ and then adds its own rows weighted
λ^(n−1−j):  K ← λⁿ (K − alpha I) + alpha I + Hᵀ Λ H,  HᵀT ← λⁿ HᵀT + Hᵀ Λ T.
λ applies per row, so the model does not depend on how the stream is cut into chunks. The
ridge term stays alpha I: the classic RLS recursion K ← λK + HᵀH lets the penalty decay as
λᵗ alpha, and K drifts towards singular when the stream stops exciting some hidden node; kept
at alpha, the readout is the ridge fit of the weighted rows, whose penalty does not depend on
how long the stream has run (the effective memory is about 1/(1 − λ) rows). Adding
(1 − λⁿ) alpha I is a full-rank change, so λ < 1 always takes the information form; λ = 1 is
exactly the unweighted recursion. λ may change between chunks (each chunk decays the past by
the λ then in force); once any row was learned with λ < 1, rows cannot be removed
(``downdate``), because a row's weight depends on when it was learned and the state keeps no
rows: a removal at full weight would leave a model of no row set (``decayed``).

Row weights (``weights=w`` in ``update`` and ``downdate``): row i enters with weight w_i on top
of its forgetting weight, K ← … + Hᵀ diag(λ-weights · w) H, and its target row is given
already weighted, u_i = w_i z_i: HᵀT ← … + Hᵀ diag(λ-weights) U, so a weight near 0 needs no
division. beta is then the ridge fit of the weighted rows. Weighted chunks always take the
information form (OSELMClassifier's ``loss='logistic'``: w and u from the model's scores when
the rows are learned, ``fastelm._kernels.stream.logistic_rows``).
"""
import numpy as np
from scipy.linalg import cho_factor, cho_solve, solve_triangular
from scipy.linalg.lapack import dpocon, dpotri

from ._ridge import RCOND_MIN, add_to_diagonal, serial_blas_if_small, spd_factor, spd_solve

# chunks a per-chunk record remembers (``RecursiveRidge.forms``, FOS-ELM's histories): between
# this and twice as many, so that an endless stream does not grow it
HISTORY_KEPT = 10_000


def keep_last(record, items):
    """Append ``items`` to the list ``record``, and once it holds more than 2·HISTORY_KEPT
    entries keep only the last HISTORY_KEPT (amortised O(1) per entry)."""
    record.extend(items)
    if len(record) > 2 * HISTORY_KEPT:
        del record[:-HISTORY_KEPT]


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
    forgetting_factor : float in (0, 1], default=1
        λ: row i of N seen is weighted λ^(N−1−i) (module docstring); 1 weighs every row alike.
    """

    def __init__(self, n_hidden, n_outputs, alpha, forgetting_factor=1.0):
        self.alpha = float(alpha)
        self.forgetting_factor = float(forgetting_factor)
        if not 0.0 < self.forgetting_factor <= 1.0:
            raise ValueError(f"forgetting_factor must lie in (0, 1], got {forgetting_factor!r}")
        self.K = add_to_diagonal(np.zeros((n_hidden, n_hidden)), self.alpha)
        self.HtT = np.zeros((n_hidden, n_outputs))  # Σ HᵀT over every row seen
        self.P = None  # K⁻¹ when current, else None
        self._beta = np.zeros((n_hidden, n_outputs))  # K⁻¹ HᵀT when current, else None
        self._cast = None  # (beta, beta cast to another dtype), made by beta_as
        self.n_seen = 0  # rows in the sums (added minus removed)
        self._removed_by_woodbury = 0  # rows removed by Woodbury steps since P was rebuilt
        # whether a row was ever learned with λ < 1: the rows' weights then depend on when
        # each was learned, which the state does not keep, so none can be removed exactly
        self.decayed = False
        # 'woodbury' or 'information' for each of the last chunks (for tests and tuning;
        # ``keep_last``)
        self.forms = []

    def __setstate__(self, state):
        if "beta" in state:  # pickled before the lazy solve: beta was current, HᵀT = K beta
            beta = state.pop("beta")
            state.update(_beta=beta, HtT=state["K"] @ beta, _cast=None)
        state.setdefault("forgetting_factor", 1.0)  # pickled before forgetting and removal
        state.setdefault("_removed_by_woodbury", 0)
        # pickled before ``decayed``: the forgetting factor then in force is the best record
        state.setdefault("decayed", state["forgetting_factor"] != 1.0)
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

    def choose_form(self, n, weighted=False):
        """'woodbury' or 'information' for a chunk of n rows (fewer flops; information first,
        and always with forgetting or row weights)."""
        L, m = self.HtT.shape
        if self.n_seen < L or self.forgetting_factor != 1.0 or weighted:
            return "information"
        extra = L ** 3 if self.P is None else 0  # rebuilding P once, amortised over later chunks
        woodbury = woodbury_flops(n, L, m) + extra / 4
        return "woodbury" if woodbury < information_flops(n, L, m) else "information"

    def _check_form(self, form, weights=None):
        if form not in ("woodbury", "information"):
            raise ValueError(f"form={form!r} is not 'woodbury' or 'information'")
        if form == "woodbury" and weights is not None:
            raise ValueError("form='woodbury' does not take row weights")
        if form == "woodbury" and self.forgetting_factor != 1.0:
            raise ValueError("form='woodbury' cannot absorb a forgetting factor below 1 (the "
                             "kept ridge term alpha I is a full-rank change)")

    def update(self, H, T, form=None, weights=None):
        """Absorb one chunk: H (n×L) hidden outputs, T (n×m) targets (with ``weights`` w
        (n,): the weighted targets w_i z_i, module docstring). Returns the form used."""
        form = form or self.choose_form(H.shape[0], weights is not None)
        self._check_form(form, weights)
        if form == "woodbury":
            self._woodbury(H, T)
        elif weights is None and self.forgetting_factor == 1.0:
            self._information(H, T)
        else:  # row j of n weighs λ^(n−1−j) (times w_j in K): K through √(λ-weight · w) H,
            # HᵀT through H and the λ-weighted targets
            n = H.shape[0]
            rows = np.ones(n)
            if self.forgetting_factor != 1.0:
                self._decay(n)
                self.decayed = True
                rows = self.forgetting_factor ** np.arange(n - 1, -1, -1.0)
            scale = rows if weights is None else rows * weights
            self._information(H * np.sqrt(scale)[:, None].astype(H.dtype),
                              T * rows[:, None].astype(T.dtype), H)
        self.n_seen += H.shape[0]
        self.record_forms([form])
        return form

    def record_forms(self, forms):
        """Append the update forms of chunks to ``forms`` (its last chunks: ``keep_last``)."""
        keep_last(self.forms, forms)

    def take_sums(self, K, HtT, n_seen, n_steps):
        """The state after ``n_steps`` information steps made elsewhere (the compiled stream
        loop, ``fastelm._kernels.stream``): K and HᵀT of ``n_seen`` rows; beta is solved when
        next read."""
        self.K, self.HtT, self.n_seen = K, HtT, n_seen
        self.decayed = self.decayed or (self.forgetting_factor != 1.0 and n_steps > 0)
        self._invalidate()
        self.record_forms(["information"] * n_steps)

    def add_gram(self, HtH, HtT, n):
        """Absorb n rows given only their sums HᵀH and HᵀT (an information step; without
        forgetting, whose weights differ between the rows of a chunk)."""
        if self.forgetting_factor != 1.0:
            raise ValueError("add_gram cannot weight the rows of a chunk by a forgetting factor; "
                             "use update(H, T)")
        self.K += HtH
        self.HtT += HtT
        self._invalidate()
        self.n_seen += n
        self.record_forms(["information"])

    def downdate(self, H, T, form=None, weights=None):
        """Remove rows (H, T) learned earlier, exactly: beta becomes the ridge fit on the rows
        that remain (rows learned with ``weights`` removed with the same weights and weighted
        targets). ValueError (state unchanged) when that system would be singular."""
        n, L = H.shape
        if self.forgetting_factor != 1.0 or self.decayed:
            raise ValueError("rows cannot be removed exactly once any row was learned with "
                             "forgetting_factor < 1 (the rows' weights have decayed by how "
                             "long ago each was learned, which is not kept), even after "
                             "forgetting_factor was set back to 1; refit with "
                             "forgetting_factor=1 to remove rows")
        if n > self.n_seen:
            raise ValueError(f"cannot remove {n} rows: the model holds {self.n_seen}")
        if self.alpha == 0 and self.n_seen - n < L:
            raise ValueError(f"removing {n} of {self.n_seen} rows leaves fewer rows than the "
                             f"{L} hidden nodes: the ridge system is singular at alpha=0; use "
                             "alpha > 0")
        form = form or self.choose_form(n, weights is not None)
        self._check_form(form, weights)
        if form == "woodbury":
            self._woodbury(H, T, sign=-1.0)
            self._removed_by_woodbury += n
        else:
            G = H if weights is None else H * np.sqrt(weights)[:, None].astype(H.dtype)
            K, HtT = self.K - G.T @ G, self.HtT - H.T @ T
            c = spd_factor(K)
            if c is None:
                raise ValueError(_SINGULAR.format(n=n, alpha=self.alpha))
            with serial_blas_if_small(L):
                beta = cho_solve(c, HtT, check_finite=False)
            self.K, self.HtT, self._beta, self.P = K, HtT, beta, None
        self.n_seen -= n
        self.record_forms([form])
        return form

    def add_outputs(self, positions):
        """Insert zero target columns before the given column indices (``np.insert`` rules): an
        output whose every past target was 0, exactly as if it had been there from the start."""
        positions = np.asarray(positions, dtype=np.intp)
        self.HtT = np.insert(self.HtT, positions, 0.0, axis=1)
        if self._beta is not None:
            self._beta = np.insert(self._beta, positions, 0.0, axis=1)  # K⁻¹ 0 = 0
        self._cast = None

    def _decay(self, n):
        """Scale the past by λⁿ keeping the ridge term: K ← λⁿ (K − alpha I) + alpha I."""
        decay = self.forgetting_factor ** n
        self.K *= decay
        add_to_diagonal(self.K, (1.0 - decay) * self.alpha)
        self.HtT *= decay

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

    def _information(self, H, T, H_T=None):
        """K ← K + HᵀH, HᵀT ← HᵀT + H_Tᵀ T (H_T = H unless the rows of T are weighted
        otherwise than those of H)."""
        self.K += H.T @ H
        self.HtT += (H if H_T is None else H_T).T @ T
        self._invalidate()

    def _woodbury(self, H, T, sign=1.0):
        """Woodbury step adding (sign = 1) or removing (sign = −1) the rows (H, T)."""
        if self.P is None or self._removed_by_woodbury >= self.n_hidden:
            self._removed_by_woodbury = 0
            if self.P is not None:  # rebuild beta too, from the exact sums
                self._beta = None
            self._refresh_inverse()
        beta = self.beta
        Hd = np.asarray(H, dtype=np.float64)
        PHt = self.P @ Hd.T  # L×n
        if sign > 0:
            S = add_to_diagonal(Hd @ PHt, 1.0)  # I_n + H P Hᵀ, SPD
            R, _ = cho_factor(S, lower=False, check_finite=False)
        else:
            R = self._removal_factor(add_to_diagonal(-(Hd @ PHt), 1.0))  # I_n − H P Hᵀ
        A = solve_triangular(R, PHt.T, trans="T", check_finite=False)  # R⁻ᵀ H P, n×L
        residual = T - Hd @ beta
        self._beta = beta + sign * (A.T @ solve_triangular(R, residual, trans="T",
                                                           check_finite=False))
        self.P -= sign * (A.T @ A)  # P Hᵀ S⁻¹ H P as one syrk: symmetric by construction
        if sign > 0:
            self.K += H.T @ H
            self.HtT += H.T @ T
        else:
            self.K -= H.T @ H
            self.HtT -= H.T @ T

    def _removal_factor(self, S):
        """Cholesky factor of S = I_n − H P Hᵀ, or ValueError when S is numerically singular:
        S⁻¹ = I_n + H K_rest⁻¹ Hᵀ, so S is singular exactly when K without the rows is."""
        try:
            R, _ = cho_factor(S, lower=False, check_finite=False)
        except np.linalg.LinAlgError:
            raise ValueError(_SINGULAR.format(n=S.shape[0], alpha=self.alpha)) from None
        rcond, info = dpocon(R, np.abs(S).sum(axis=0).max())
        if info != 0 or not rcond >= RCOND_MIN:
            raise ValueError(_SINGULAR.format(n=S.shape[0], alpha=self.alpha))
        return R

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


_SINGULAR = ("removing these {n} rows leaves the ridge system numerically singular at "
             "alpha={alpha:g} (the remaining rows do not span the hidden nodes); increase alpha")
