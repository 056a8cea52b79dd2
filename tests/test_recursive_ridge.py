"""Exact removal, forgetting and new outputs of the recursive ridge (``fastelm._recursive_ridge``).

Every stream is compared with the batch ridge fit on the rows the model should hold after
EVERY chunk, so a wrong sign in one form shows at the chunk that used it.
"""
import pickle

import numpy as np
import pytest
from _helpers import CHUNKS

from fastelm._ridge import ridge_fit
from fastelm._recursive_ridge import RecursiveRidge


def _data(n, L, m=2, seed=0):
    rng = np.random.default_rng(seed)
    return np.tanh(rng.standard_normal((n, L)) * 0.7), rng.standard_normal((n, m))


def _assert_beta(rls, H, T, alpha, rtol=1e-8):
    expected = ridge_fit(H, T, alpha)
    error = np.linalg.norm(rls.beta - expected) / np.linalg.norm(expected)
    assert error <= rtol, error


def _chunks(rng, n, largest):
    cuts, start = [], 0
    while start < n:
        size = int(rng.integers(1, largest + 1))
        cuts.append((start, min(n, start + size)))
        start += size
    return cuts


@pytest.mark.parametrize("form", [None, "woodbury", "information"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_downdate_equals_batch_fit_on_remaining_rows(form, seed):
    H, T = _data(700, 40, seed=seed)
    rls = RecursiveRidge(40, 2, 1e-3)
    rls.update(H[:500], T[:500])
    rng = np.random.default_rng(seed)
    held = np.ones(700, bool)
    held[500:] = False
    for start, stop in _chunks(rng, 300, 25):  # remove rows 0..299 in random chunks
        used = rls.downdate(H[start:stop], T[start:stop], form=form)
        assert form is None or used == form
        held[start:stop] = False
        _assert_beta(rls, H[held], T[held], 1e-3)
    assert rls.n_seen == 200
    np.testing.assert_allclose(rls.K, H[held].T @ H[held] + 1e-3 * np.eye(40), atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_sliding_window_equals_batch_fit_on_last_rows_after_every_chunk(seed):
    # window of 30 rows, shorter than the 50 hidden nodes; chunks of 1-12 rows
    rng = np.random.default_rng(seed)
    H, T = _data(400, 50, seed=seed)
    window, rls, first = 30, RecursiveRidge(50, 2, 1e-2), 0
    for start, stop in _chunks(rng, 400, 12):
        rls.update(H[start:stop], T[start:stop])
        if stop - first > window:
            leave = stop - window
            rls.downdate(H[first:leave], T[first:leave])
            first = leave
        _assert_beta(rls, H[first:stop], T[first:stop], 1e-2)


@pytest.mark.parametrize("window", [120, 400])
def test_long_window_stream_with_both_forms(window):
    # windows longer than L = 60: small chunks take Woodbury steps (updates and removals)
    rng = np.random.default_rng(5)
    H, T = _data(3000, 60, seed=5)
    rls, first = RecursiveRidge(60, 2, 1e-3), 0
    for start, stop in _chunks(rng, 3000, 40):
        rls.update(H[start:stop], T[start:stop])
        if stop - first > window:
            rls.downdate(H[first:stop - window], T[first:stop - window])
            first = stop - window
        _assert_beta(rls, H[first:stop], T[first:stop], 1e-3)
    assert {"woodbury", "information"} <= set(rls.forms)


def test_woodbury_removals_rebuild_from_exact_sums():
    H, T = _data(2000, 30, seed=6)
    rls = RecursiveRidge(30, 2, 1e-3)
    rls.update(H[:200], T[:200])
    for s in range(200, 2000, 2):  # a 200-row window moved two rows at a time by Woodbury
        rls.update(H[s:s + 2], T[s:s + 2], form="woodbury")
        rls.downdate(H[s - 200:s - 198], T[s - 200:s - 198], form="woodbury")
    assert rls._removed_by_woodbury <= 30  # P and beta were rebuilt every 30 rows removed
    _assert_beta(rls, H[1800:], T[1800:], 1e-3, rtol=1e-10)
    np.testing.assert_allclose(rls.P @ rls.K, np.eye(30), atol=1e-8)


@pytest.mark.parametrize("form", ["woodbury", "information"])
def test_removal_that_makes_the_system_singular_is_refused_and_changes_nothing(form):
    H, T = _data(100, 20, seed=7)
    H[50:], T[50:] = H[:50], T[:50]  # rows 50..99 repeat rows 0..49
    rls = RecursiveRidge(20, 2, 0.0)
    rls.update(H, T)
    with pytest.raises(ValueError, match="fewer rows than the 20 hidden nodes"):
        rls.downdate(H[:85], T[:85], form=form)  # 15 rows left: counted, nothing solved
    drop = np.r_[30:50, 80:100]  # 60 rows of rank 30 remain: regular at alpha=0
    rls.downdate(H[drop], T[drop], form=form)
    held = np.r_[0:30, 50:80]
    _assert_beta(rls, H[held], T[held], 0.0, rtol=1e-7)
    before = (rls.K.copy(), rls.HtT.copy(), rls.beta.copy())
    drop = np.r_[10:30, 60:80]  # 20 rows of rank 10 would remain: singular
    with pytest.raises(ValueError, match="numerically singular at alpha=0"):
        rls.downdate(H[drop], T[drop], form=form)
    np.testing.assert_array_equal(rls.K, before[0])
    np.testing.assert_array_equal(rls.HtT, before[1])
    np.testing.assert_allclose(rls.beta, before[2], rtol=1e-10)
    assert rls.n_seen == 60


def test_downdate_rejects_more_rows_than_held_and_forgetting():
    H, T = _data(30, 10)
    rls = RecursiveRidge(10, 2, 1e-2)
    rls.update(H[:5], T[:5])
    with pytest.raises(ValueError, match="holds 5"):
        rls.downdate(H[:6], T[:6])
    fading = RecursiveRidge(10, 2, 1e-2, forgetting_factor=0.9)
    fading.update(H, T)
    with pytest.raises(ValueError, match="forgetting_factor"):
        fading.downdate(H[:2], T[:2])
    with pytest.raises(ValueError, match="forgetting factor"):
        fading.add_gram(H.T @ H, H.T @ T, 30)
    with pytest.raises(ValueError, match="woodbury"):
        fading.update(H[:2], T[:2], form="woodbury")
    for bad in (0.0, 1.5, -0.1, np.nan):
        with pytest.raises(ValueError, match="forgetting_factor"):
            RecursiveRidge(10, 2, 1e-2, forgetting_factor=bad)


def test_downdate_refused_once_a_row_decayed_even_at_factor_one():
    """A row learned at λ < 1 has a weight the state does not record: removing it after λ
    was set back to 1 would subtract it at full weight. Pickles from before the record
    count as decayed when their λ is below 1."""
    rng = np.random.default_rng(0)
    H, T = rng.standard_normal((40, 5)), rng.standard_normal((40, 1))
    rls = RecursiveRidge(5, 1, 1e-2, forgetting_factor=0.9)
    rls.update(H[:20], T[:20])
    rls.forgetting_factor = 1.0
    rls.update(H[20:], T[20:])
    with pytest.raises(ValueError, match="forgetting_factor < 1"):
        rls.downdate(H[:5], T[:5])
    plain = RecursiveRidge(5, 1, 1e-2)
    plain.update(H, T)
    plain.downdate(H[:5], T[:5])  # never decayed: exact removal as before
    np.testing.assert_allclose(plain.beta, ridge_fit(H[5:], T[5:], 1e-2), rtol=1e-10)
    state = pickle.loads(pickle.dumps(rls)).__dict__
    old = RecursiveRidge.__new__(RecursiveRidge)
    old.__setstate__({k: v for k, v in state.items() if k != "decayed"})
    assert old.decayed is False  # its λ is 1 now: the old pickle cannot tell


@pytest.mark.parametrize("lam", [0.999, 0.97, 0.5])
@pytest.mark.parametrize("seed", [0, 1])
def test_forgetting_equals_weighted_batch_ridge_for_any_chunking(lam, seed):
    rng = np.random.default_rng(seed)
    H, T = _data(500, 40, seed=seed)
    rls, alpha = RecursiveRidge(40, 2, 1e-2, forgetting_factor=lam), 1e-2
    for start, stop in _chunks(rng, 500, 60):
        rls.update(H[start:stop], T[start:stop])
        root = np.sqrt(lam) ** np.arange(stop - 1, -1, -1.0)[:, None]  # λ^(N−1−i), square root
        _assert_beta(rls, H[:stop] * root, T[:stop] * root, alpha)  # ridge term kept at alpha
    assert set(rls.forms) == {"information"}


def test_forgetting_factor_one_is_todays_recursion_bitwise():
    rng = np.random.default_rng(3)
    H, T = _data(900, 50, seed=3)
    plain, one = RecursiveRidge(50, 2, 1e-3), RecursiveRidge(50, 2, 1e-3, forgetting_factor=1)
    for start, stop in _chunks(rng, 900, 80):
        assert plain.update(H[start:stop], T[start:stop]) == one.update(H[start:stop],
                                                                        T[start:stop])
        assert np.array_equal(plain.beta, one.beta)
    assert "woodbury" in plain.forms
    assert np.array_equal(plain.K, one.K) and np.array_equal(plain.P, one.P)


@pytest.mark.parametrize("form", ["woodbury", "information"])
def test_added_output_equals_having_it_from_the_start(form):
    H, T = _data(600, 30, m=3, seed=4)
    T[:300, 1] = 0.0  # output 1 appears at row 300: its earlier targets are 0
    full = RecursiveRidge(30, 3, 1e-3)
    grown = RecursiveRidge(30, 2, 1e-3)
    for start in range(0, 300, 100):
        full.update(H[start:start + 100], T[start:start + 100])
        grown.update(H[start:start + 100], T[start:start + 100][:, [0, 2]])
    grown.beta  # noqa: B018 - a current beta gets its column too
    grown.add_outputs([1])
    np.testing.assert_allclose(grown.beta, full.beta, rtol=1e-12, atol=1e-14)
    for start in range(300, 600, 20):
        full.update(H[start:start + 20], T[start:start + 20], form=form)
        grown.update(H[start:start + 20], T[start:start + 20], form=form)
        np.testing.assert_allclose(grown.beta, full.beta, rtol=1e-8, atol=1e-12)
    _assert_beta(grown, H, T, 1e-3)


def test_pickled_mid_stream_continues_identically():
    rng = np.random.default_rng(8)
    H, T = _data(800, 40, seed=8)
    rls, first, window = RecursiveRidge(40, 2, 1e-3), 0, 150
    cuts = _chunks(rng, 800, 30)
    copy = None
    for i, (start, stop) in enumerate(cuts):
        for model in (rls,) if copy is None else (rls, copy):
            model.update(H[start:stop], T[start:stop])
            if stop - first > window:
                model.downdate(H[first:stop - window], T[first:stop - window])
        if stop - first > window:
            first = stop - window
        if i == len(cuts) // 2:
            copy = pickle.loads(pickle.dumps(rls))
        if copy is not None:
            assert np.array_equal(copy.beta, rls.beta)
    assert np.array_equal(copy.K, rls.K)


def test_old_pickles_get_the_new_defaults():
    rls = RecursiveRidge(5, 1, 1.0)
    state = dict(rls.__dict__)
    del state["forgetting_factor"], state["_removed_by_woodbury"]
    old = RecursiveRidge.__new__(RecursiveRidge)
    old.__setstate__(state)
    assert old.forgetting_factor == 1.0 and old._removed_by_woodbury == 0


# ------------------------------------------------------------------ OS-ELM after every chunk
# Mutation kill-tests (marked ``mutant``): each kills a plausible one-line bug that a mutation
# run planted and the rest of the suite let through, and names it (mutation/RESULTS.md).
# A Woodbury-step bug hidden when a later information-form chunk re-solves beta; the
# stream is compared with the batch fit after every chunk.


@pytest.mark.mutant
def test_recursive_ridge_equals_batch_ridge_after_every_chunk():
    rng = np.random.default_rng(0)
    L, m, alpha = 40, 2, 1e-2
    H = rng.standard_normal((sum(CHUNKS), L))
    T = rng.standard_normal((sum(CHUNKS), m))
    state = RecursiveRidge(L, m, alpha)
    start = 0
    for n in CHUNKS:
        state.update(H[start:start + n], T[start:start + n])
        start += n
        Hs, Ts = H[:start], T[:start]
        want = np.linalg.solve(Hs.T @ Hs + alpha * np.eye(L), Hs.T @ Ts)
        np.testing.assert_allclose(state.beta, want, rtol=1e-8, atol=1e-10, err_msg=str(start))
    assert {"woodbury", "information"} <= set(state.forms)
    assert state.forms[CHUNKS.index(200)] == "information"
    # the first chunks, before L rows are seen, take the information form (P ~ 1/alpha there)
    assert state.forms[:2] == ["information", "information"]
    assert state.n_seen == sum(CHUNKS) and state.HtT.shape == (L, m)


@pytest.mark.mutant
@pytest.mark.parametrize("form", ["bogus", "Woodbury", "qr"])
def test_recursive_ridge_rejects_an_unknown_form(form):
    """Any name but 'woodbury' and 'information' is refused (a survivor of the mutation run
    compared form <= 'information', which took 'bogus' for the information form)."""
    state = RecursiveRidge(3, 1, 1.0)
    with pytest.raises(ValueError, match="form="):
        state.update(np.ones((2, 3)), np.ones((2, 1)), form=form)
    assert state.n_seen == 0 and state.forms == []


@pytest.mark.mutant
def test_recursive_ridge_remove_nodes_checks_every_index():
    """Out-of-range indices anywhere in ``drop`` are refused (a survivor checked only one end),
    and the kept nodes' readout is the ridge fit of those nodes on every row seen."""
    rng = np.random.default_rng(1)
    H, T = rng.standard_normal((30, 6)), rng.standard_normal((30, 2))
    state = RecursiveRidge(6, 2, 0.5)
    state.update(H, T)
    for drop in ([0, 6], [6, 2], [-1, 3], [7]):
        with pytest.raises(ValueError, match=r"\[0, 6\)"):
            state.remove_nodes(drop)
    keep = state.remove_nodes([4, 1])
    np.testing.assert_array_equal(keep, [0, 2, 3, 5])
    Hk = H[:, keep]
    want = np.linalg.solve(Hk.T @ Hk + 0.5 * np.eye(4), Hk.T @ T)
    np.testing.assert_allclose(state.beta, want, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ _rls (cosmic-ray, second run)


@pytest.mark.mutant
def test_recursive_ridge_float32_beta_follows_every_solve():
    """beta_as(float32) is beta's cast after every chunk, not the first solve's cast kept
    (kills 'cast[0] is not beta or ...' written with 'and': a new beta, same dtype)."""
    rng = np.random.default_rng(11)
    H, T = np.tanh(rng.standard_normal((90, 8))), rng.standard_normal((90, 2))
    state = RecursiveRidge(8, 2, 1e-2)
    for start in range(0, 90, 30):
        state.update(H[start:start + 30].astype(np.float32), T[start:start + 30])
        np.testing.assert_array_equal(state.beta_as(np.float32), state.beta.astype(np.float32))
    assert state.beta_as(np.float32) is state.beta_as(np.float32)  # cast once per solve


@pytest.mark.mutant
def test_recursive_ridge_rebuilds_p_only_when_missing_or_after_l_removals(monkeypatch):
    """Woodbury steps rebuild P = K⁻¹ (L³ flops) only when P is missing or after L rows removed
    by them, so a row costs O(L²) amortised (kills '>= n_hidden' written '!=': a rebuild at
    every step, or '==': never when the count steps over L)."""
    rebuilds = []
    original = RecursiveRidge._refresh_inverse

    def counted(self):
        rebuilds.append(self.n_seen)
        original(self)

    monkeypatch.setattr(RecursiveRidge, "_refresh_inverse", counted)
    rng = np.random.default_rng(12)
    H, T = np.tanh(rng.standard_normal((130, 10))), rng.standard_normal((130, 1))
    state = RecursiveRidge(10, 1, 1e-2)
    state.update(H[:20], T[:20], form="information")
    for s in range(20, 70, 2):  # 25 Woodbury updates of two rows: P built once, at the first
        state.update(H[s:s + 2], T[s:s + 2], form="woodbury")
    assert rebuilds == [20]
    for s in range(0, 27, 3):  # 9 removals of three rows: rebuilt before the 5th and the 9th
        state.downdate(H[s:s + 3], T[s:s + 3], form="woodbury")
    assert rebuilds == [20, 58, 46]  # 12 rows removed since the last build, past L = 10
    held = np.r_[27:70]
    want = np.linalg.solve(H[held].T @ H[held] + 1e-2 * np.eye(10), H[held].T @ T[held])
    np.testing.assert_allclose(state.beta, want, rtol=1e-9, atol=1e-12)


@pytest.mark.mutant
def test_recursive_ridge_rebuilds_beta_from_the_sums_after_l_removals():
    """After L rows removed by Woodbury steps, beta is rebuilt from the exact sums K, HᵀT with
    P, not carried on: an error planted in beta (as rounding drift would be) is gone after the
    rebuild (kills 'if self.P is not None' → 'is None': only P rebuilt)."""
    rng = np.random.default_rng(13)
    H, T = np.tanh(rng.standard_normal((60, 6))), rng.standard_normal((60, 1))
    state = RecursiveRidge(6, 1, 1e-2)
    state.update(H[:30], T[:30], form="information")
    for s in range(0, 6, 2):  # 6 rows = L removed by Woodbury steps
        state.downdate(H[s:s + 2], T[s:s + 2], form="woodbury")
    state._beta = state.beta + 1.0  # drift
    state.update(H[30:32], T[30:32], form="woodbury")  # rebuilds P and beta, then the step
    held = np.r_[6:32]
    want = np.linalg.solve(H[held].T @ H[held] + 1e-2 * np.eye(6), H[held].T @ T[held])
    np.testing.assert_allclose(state.beta, want, rtol=1e-10, atol=1e-12)


@pytest.mark.mutant
def test_recursive_ridge_removes_every_row_it_holds():
    """Removing all the rows held leaves the prior: K = alpha I, beta = 0 (kills 'n > n_seen'
    → '>=', which refused it)."""
    rng = np.random.default_rng(14)
    H, T = np.tanh(rng.standard_normal((5, 8))), rng.standard_normal((5, 2))
    state = RecursiveRidge(8, 2, 0.5)
    state.update(H, T)
    state.downdate(H, T)
    assert state.n_seen == 0
    np.testing.assert_allclose(state.K, 0.5 * np.eye(8), rtol=0, atol=1e-13)
    np.testing.assert_allclose(state.beta, 0.0, rtol=0, atol=1e-13)


@pytest.mark.mutant
def test_recursive_ridge_refuses_an_ill_conditioned_woodbury_removal():
    """Removing 3 rows leaves 12 that span 2 of the 4 hidden directions; with alpha = 3e-14,
    S = I − H P Hᵀ still has a Cholesky factor but its reciprocal condition (~3e-14) is below
    RCOND_MIN: refused, state unchanged (kills the rcond test disabled by 'info != 0 and ...'
    or 'not rcond != RCOND_MIN')."""
    rng = np.random.default_rng(15)
    basis = np.tanh(rng.standard_normal((2, 4)))
    H = np.r_[rng.standard_normal((12, 2)) @ basis, np.tanh(rng.standard_normal((3, 4)))]
    T = rng.standard_normal((15, 1))
    state = RecursiveRidge(4, 1, 3e-14)
    state.update(H, T, form="information")
    K, HtT = state.K.copy(), state.HtT.copy()
    with pytest.raises(ValueError, match="numerically singular"):
        state.downdate(H[12:], T[12:], form="woodbury")
    np.testing.assert_array_equal(state.K, K)
    np.testing.assert_array_equal(state.HtT, HtT)
    assert state.n_seen == 15


@pytest.mark.mutant
def test_recursive_ridge_woodbury_form_takes_no_row_weights():
    """A weighted chunk cannot take the Woodbury form, in update or downdate (kills
    "form == 'woodbury'" → '>': the weights silently dropped by the removal)."""
    rng = np.random.default_rng(16)
    H, T = np.tanh(rng.standard_normal((20, 3))), rng.standard_normal((20, 1))
    state = RecursiveRidge(3, 1, 0.1)
    state.update(H, T)
    for step in (state.update, state.downdate):
        with pytest.raises(ValueError, match="does not take row weights"):
            step(H[:2], T[:2], form="woodbury", weights=np.full(2, 0.5))
    assert state.n_seen == 20 and state.forms == ["information"]


@pytest.mark.mutant
def test_keep_last_trims_only_past_twice_the_kept_length(monkeypatch):
    """keep_last lets a record grow to 2·HISTORY_KEPT and only past that cuts it to the last
    HISTORY_KEPT entries, so a trim happens once per HISTORY_KEPT appends (kills '>' → '>=',
    '!=', '1 *' and '2 /', which trim early or at every append)."""
    from fastelm import _recursive_ridge as _rls

    monkeypatch.setattr(_rls, "HISTORY_KEPT", 3)
    record, lengths = [], []
    for i in range(14):
        _rls.keep_last(record, [i])
        lengths.append(len(record))
    assert lengths == [1, 2, 3, 4, 5, 6, 3, 4, 5, 6, 3, 4, 5, 6]
    assert record == [8, 9, 10, 11, 12, 13]
    _rls.keep_last(record, [14, 15, 16])  # several entries at once: 9 > 6, keep the last 3
    assert record == [14, 15, 16]
