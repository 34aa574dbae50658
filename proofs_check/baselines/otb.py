r"""The optimal token baseline (OTB) group estimator on padded batches, three ways.

For response ``i`` of a group, position ``t`` (theory ``baselines.md#otb-implementation``,
CONFIRMED from the authors' veRL code ``compute_optimal_token_baseline_advantage``):

.. math::
    w_j = (1 - 2\pi(y_j|c_j) + \textstyle\sum_v \pi(v|c_j)^2)\,\bar\rho_j^2, \quad
    W_t = \sum_{j\le t} m_j w_j, \quad G_t = \sum_{k\ge t} m_k r_k, \quad
    B_t = \frac{\sum_i m^i_t G^i_t W^i_t}{\sum_i m^i_t W^i_t + \epsilon}, \quad
    A^i_t = (G^i_t - B_t)\, m^i_t .

* :func:`optimal_token_baseline_advantage` — a fused numba kernel (each input
  row read from memory once: validation flags and a branch-free ``exp``,
  :func:`exp_nonpositive`, in one vectorised pass; ``W``, ``G`` and the group
  sums from the cache-resident row);
* :func:`otb_advantage_numpy` — the plain-NumPy vectorised reference;
* :func:`otb_advantage_loop` — per-token Python loops written from the
  implementation's steps 1–6, independent of both.

Symbols: ``r`` token rewards, ``m`` the response mask, ``π`` the sampler's
token probabilities (``log_probs``, ``sum_pi_squared``), ``ρ̄`` truncated IS
weights, ``ε`` the denominator guard.  References: the OTB paper (paper key
``otb``, arXiv 2602.07078) and veRL (key ``verl``); theory page
``docs/theory/baselines.md#otb-implementation``.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from proofs_check.engine import MAX_WORKERS, default_workers
from proofs_check.engine import check_bool, check_int, check_real

from ._batch import _check_values_numpy, _reward_to_go, _validate_batch

__all__ = ["optimal_token_baseline_advantage", "otb_advantage_numpy", "otb_advantage_loop", "exp_nonpositive"]


_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10

#: Reassociation lets LLVM vectorise the kernel's reductions (R, the length, the flag count);
#: the prefix sums W_t and G_t stay sequential (a loop-carried chain), so their values are
#: unchanged.  No finite-math flags: the NaN/inf checks rely on IEEE semantics.
_FM = {"reassoc", "contract", "nsz"}


@intrinsic
def _i64_as_f64(typingctx, x):
    """The float64 whose bits are the int64 ``x`` (a register bitcast; vectorisable)."""
    sig = types.float64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return sig, codegen


@njit(inline="always", nogil=True)
def _exp_nonpos1(x):
    """``exp(clip(x, −708, 0))`` without a libm call (vectorisable), ≤ 1 ulp from ``np.exp``.

    ``x = k ln2 + r`` with ``|r| ≤ ln2/2`` (Cody–Waite split of ln 2), ``e^r`` by its Taylor
    polynomial of degree 14 (truncation < 2e-17 relative) and ``2^k`` built from the exponent
    bits.  Inputs below −708 (``e^x < 4e-308``) are clamped.  Inlined: a caller compiled with
    ``fastmath`` contracts the Horner steps into FMAs."""
    v = min(max(x, -708.0), 0.0)
    k = np.floor(v * _LOG2E + 0.5)
    r = (v - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 87178291200.0
    p = p * r + 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _i64_as_f64((np.int64(k) + 1023) << 52)


@njit(cache=True, nogil=True)
def _exp_nonpos(x, out):
    """``out = exp(clip(x, −708, 0))`` elementwise (:func:`_exp_nonpos1`; the plain-NumPy
    reference is ``np.exp``)."""
    for j in range(x.shape[0]):
        out[j] = _exp_nonpos1(x[j])


def exp_nonpositive(x) -> np.ndarray:
    """NumPy entry to the kernel's exponential (for tests): ``exp(clip(x, −708, 0))``.

    ``x`` is an array of real numbers without NaN (``±inf`` are clipped like any
    other value); the result is flat."""
    if x is None or isinstance(x, (str, bytes)):
        raise TypeError(f"x must be an array of real numbers, got {x!r:.60}")
    raw = np.asarray(x)
    if raw.dtype.kind not in "iuf" or raw.dtype.kind == "b":
        raise TypeError(f"x must be an array of real numbers, got dtype {raw.dtype}")
    try:
        x = np.ascontiguousarray(np.asarray(raw, dtype=np.float64).ravel())
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"x must be an array of real numbers: {exc}") from None
    if np.isnan(x).any():
        raise ValueError(f"x contains NaN (first at flat index {int(np.argmax(np.isnan(x)))})")
    out = np.empty_like(x)
    _exp_nonpos(x, out)
    return out


@njit(cache=True, nogil=True)
def _scans(wrow, rrow, ret_row):
    """The two sequential scans of a row (IEEE order, no reassociation): ``W_t = Σ_{j≤t} m_j w_j``
    forward, in place of ``wrow``; ``G_t = Σ_{k≥t} m_k r_k`` backward into ``ret_row`` — the
    reference's reverse cumulative sum, term for term.  ``wrow``/``rrow`` may be longer than
    ``ret_row`` (scratch): the row length is ``ret_row``'s."""
    L = ret_row.shape[0]
    acc = 0.0
    g = 0.0
    for t in range(L):              # the two chains interleaved (independent: they overlap)
        acc += wrow[t]
        wrow[t] = acc
        u = L - 1 - t
        g += rrow[u]
        ret_row[u] = g


@njit(cache=True, nogil=True, fastmath=_FM)
def _otb_group(r, m, lp, spp, isw, use_is, members, handle_zero_tail, eps, adv, ret, buf, stats):
    """One group: validate (branch-free flags), W and G, the baseline, the advantages.

    Each member row is read from memory once: a vectorised pass reads ``r``,
    ``m``, ``log_probs``, ``sum_pi_squared`` (and ``ρ̄``) for the validity flags,
    the length and the last valid position; a second vectorised pass over the
    (cache-resident) row up to that position forms ``m_t w_t`` (the branch-free
    exponential of :func:`exp_nonpositive` inline) and ``m_t r_t``; :func:`_scans`
    carries the prefix sum ``W_t`` and the reverse sum ``G_t`` (writing
    ``returns``; ``G_t = 0`` after the last valid token exactly); a vectorised
    pass adds the member to the group sums.  After the group, one pass per
    member writes the advantages.  Bytes: every input read once, both outputs
    written once, plus an L2-resident re-read of ``returns`` and ``m`` of the
    group for the advantages.
    ``buf`` is ``(4, L)`` float scratch.
    ``stats`` collects what the caller checks afterwards, so that no extra pass
    over the batch is needed: ``stats[0]`` the largest row sum ``Σ_t |m_t r_t|``,
    ``stats[1]`` the largest ``ρ̄`` (the overflow bound of :func:`_log_bound_exceeds`),
    ``stats[2]`` the number of non-finite advantages.
    Returns True if an entry is invalid (the caller then locates it).
    """
    n = members.shape[0]
    L = r.shape[1]
    wrow = buf[0]
    rrow = buf[1]
    num = buf[2]
    den = buf[3]
    for t in range(L):
        num[t] = 0.0
        den[t] = 0.0
    lengths = np.empty(n)
    lives = np.empty(n, dtype=np.int64)
    for k in range(n):
        i = members[k]
        ri = r[i]
        mi = m[i]
        lpi = lp[i]
        si = spp[i]
        nbad = 0.0
        cnt = 0.0
        hi = 0.0
        absr = 0.0
        # pass 1 (memory): the validity flags, the length, Σ|m r| and the last valid position
        for t in range(L):
            mt = mi[t]
            x = lpi[t]
            sv = si[t]
            rr = ri[t]
            # 0·a + 0·b + 0·c == 0 is False exactly when one of them is NaN or ±inf (no overflow)
            fin = rr * 0.0 + x * 0.0 + sv * 0.0 == 0.0
            one = mt == 1.0
            ok = fin & (one | (mt == 0.0)) & ((not one) | ((x <= 0.0) & (sv > 0.0) & (sv <= 1.0)))
            nbad += 0.0 if ok else 1.0
            cnt += mt
            absr += abs(rr * mt)
            hi = max(hi, (t + 1.0) if one else 0.0)
        # positions after the last valid token (padding) have m w = m r = 0: W is not needed
        # there and G = 0, so the row's remaining passes stop at `live`
        live = int(hi)
        lives[k] = live
        stats[0] = max(stats[0], absr)
        if use_is:
            qi = isw[i]
            qmax = 0.0
            for t in range(L):
                q = qi[t]
                nbad += 0.0 if ((q - q == 0.0) & (q >= 0.0)) else 1.0
                qmax = max(qmax, q)
            stats[1] = max(stats[1], qmax)
        lengths[k] = cnt
        if nbad > 0.0:
            return True
        # pass 2 (cache): m_t w_t with e^{lp} by _exp_nonpos1 (FMA-contracted here), and m_t r_t
        for t in range(live):
            e = _exp_nonpos1(lpi[t])
            mt = mi[t]
            wrow[t] = mt * (1.0 - 2.0 * e + si[t])
            rrow[t] = ri[t] * mt
        if use_is:
            qi = isw[i]
            for t in range(live):
                q = qi[t]
                wrow[t] *= q * q
        # pass 3 (scalar, cache): W_t (in place of m w) and G_t (into returns)
        reti = ret[i]
        _scans(wrow, rrow, reti[:live])
        for t in range(live, L):
            reti[t] = 0.0
        # pass 4 (cache): the group sums Σ_i m G W and Σ_i m W
        for t in range(live):
            wm = wrow[t] * mi[t]
            num[t] += reti[t] * wm
            den[t] += wm
    if n == 1:
        i = members[0]
        nf = 0.0
        for t in range(L):
            a = ret[i, t] * m[i, t]
            adv[i, t] = a
            nf += 0.0 if a - a == 0.0 else 1.0
        stats[2] += nf
        return False
    for t in range(L):
        d = den[t] + eps
        num[t] = num[t] / d if d != 0.0 else 0.0  # num now holds B_t
    # zero-tail rule: the unique longest response, beyond the second-longest length
    tail_k = -1
    second = 0
    if handle_zero_tail:
        best = -1.0
        nbest = 0
        for k in range(n):
            if lengths[k] > best:
                best = lengths[k]
                nbest = 1
                tail_k = k
            elif lengths[k] == best:
                nbest += 1
        sec = -1.0
        for k in range(n):
            if k != tail_k and lengths[k] > sec:
                sec = lengths[k]
        if nbest == 1 and best > sec:
            second = int(sec)
        else:
            tail_k = -1
    for k in range(n):
        i = members[k]
        live = lives[k]
        stop = min(live, L if k != tail_k else second)
        reti = ret[i]
        mi = m[i]
        ai = adv[i]
        nf = 0.0
        for t in range(stop):
            a = (reti[t] - num[t]) * mi[t]
            ai[t] = a
            nf += 0.0 if a - a == 0.0 else 1.0
        for t in range(stop, live):
            a = reti[t] * mi[t]
            ai[t] = a
            nf += 0.0 if a - a == 0.0 else 1.0
        for t in range(live, L):
            ai[t] = 0.0
        stats[2] += nf
    return False


@njit(cache=True, nogil=True)
def _otb_kernel(r, m, lp, spp, isw, use_is, order, starts, handle_zero_tail, eps, adv, ret, bad_groups,
                stats):
    n_groups = starts.shape[0] - 1
    L = r.shape[1]
    buf = np.empty((4, L))
    for g in range(n_groups):
        bad_groups[g] = _otb_group(r, m, lp, spp, isw, use_is, order[starts[g]:starts[g + 1]],
                                   handle_zero_tail, eps, adv, ret, buf, stats)


#: batches of fewer tokens run on one thread (a thread costs ~0.1 ms; the kernel ~7 ns a token)
THREAD_MIN_TOKENS = 1 << 18


def _run_kernel(r, m, lp, spp, isw, use_is, order, starts, handle_zero_tail, eps, adv, ret, bad_groups,
                workers):
    """:func:`_otb_kernel` over all groups, split into ``≤ workers`` contiguous runs of groups with
    about equal numbers of rows, one thread each (the kernel is ``nogil``).  Returns the combined
    ``stats`` (maxima of the first two entries, sum of the third) — the same as one serial call."""
    n_groups = starts.size - 1
    k = min(workers, n_groups)
    if k < 2 or r.size < THREAD_MIN_TOKENS:
        stats = np.zeros(3)
        _otb_kernel(r, m, lp, spp, isw, use_is, order, starts, handle_zero_tail, eps, adv, ret, bad_groups,
                    stats)
        return stats
    cuts = np.searchsorted(starts, np.arange(1, k) * (starts[-1] / k))
    bounds = np.unique(np.concatenate(([0], np.clip(cuts, 1, n_groups - 1), [n_groups])))
    parts = np.zeros((bounds.size - 1, 3))

    def run(j):
        g0, g1 = bounds[j], bounds[j + 1]
        _otb_kernel(r, m, lp, spp, isw, use_is, order, starts[g0:g1 + 1], handle_zero_tail, eps, adv, ret,
                    bad_groups[g0:g1], parts[j])

    threads = [threading.Thread(target=run, args=(j,)) for j in range(1, bounds.size - 1)]
    for th in threads:
        th.start()
    try:
        run(0)
    finally:
        for th in threads:
            th.join()
    return np.array([parts[:, 0].max(), parts[:, 1].max(), parts[:, 2].sum()])


#: Bound on any intermediate of the plain float64 formula (``Σ_i m G W`` and ``Σ_i m W``) under
#: which the direct computation is used; above it the group sums go through :func:`_otb_scaled`.
_DIRECT_LIMIT = 1e300


def _check_returns(r, m):
    """Refuse a batch whose reward-to-go is not representable in float64 (``Σ_t |m r|`` overflows)."""
    with np.errstate(over="ignore", invalid="ignore"):
        tot = np.sum(np.abs(r * m), axis=1)
    bad = ~np.isfinite(tot)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"token_rewards: the reward-to-go of row {i} overflows float64 (Σ_t |m_t r_t| > 1.8e308); "
                         "rescale the rewards")


def _needs_scaling(r, m, isw, starts) -> bool:
    """Whether ``Σ_i m G W`` or ``Σ_i m W`` could leave float64 (bound in log space).

    ``|w_j| ≤ 3`` (``1 − 2π + Σπ² ∈ [−1, 2]``), so ``|W_t| ≤ 3 L max ρ̄²`` and the group sums are at
    most ``n_max`` times that, times ``max |G| ≤ max_i Σ_t |m r|`` for the numerator."""
    with np.errstate(over="ignore", invalid="ignore"):
        g_max = float(np.max(np.sum(np.abs(r * m), axis=1)))
    return _log_bound_exceeds(r.shape[1], starts, g_max, None if isw is None else float(np.max(isw)))


def _log_bound_exceeds(L, starts, g_max, q_max) -> bool:
    """The test of :func:`_needs_scaling` from ``g_max = max_i Σ_t |m r|`` and ``q_max = max ρ̄``
    (``None`` without IS weights); the fused kernel collects both in its first pass."""
    n_max = int(np.max(np.diff(starts)))
    log_bound = math.log(3.0 * L * n_max) + math.log(max(1.0, g_max))
    if q_max is not None and q_max > 0:
        log_bound += 2.0 * math.log(q_max)
    return log_bound > math.log(_DIRECT_LIMIT)


def _otb_scaled(r, m, lp, spp, isw, inv, order, starts, handle_zero_tail, eps):
    """OTB with ``W`` carried as ``mantissa · 2^exponent`` (no overflow for any finite ``ρ̄``).

    ``ρ̄_j = f_j 2^{k_j}`` (``frexp``): each term ``w_j ρ̄_j²`` is ``(w_j f_j²) 2^{2k_j}``; the running sum
    of a row keeps its own exponent (the largest so far), and at each position the alive members of
    a group are brought to the largest exponent among them before ``B_t = Σ G ω / (Σ ω + ε 2^{−E})``.
    Rescalings are by powers of two (exact unless a term falls ~2^{1000} below the largest one, where
    it is negligible).  Used only when the direct formula could overflow (:func:`_needs_scaling`).
    """
    N, L = r.shape
    ret = _reward_to_go(r, m)
    w = np.where(m == 1, 1.0 - 2.0 * np.exp(np.minimum(lp, 0.0)) + spp, 0.0)
    if isw is None:
        f, k = np.ones_like(w), np.zeros(w.shape, dtype=np.int64)
    else:
        f, k = np.frexp(np.where(m == 1, isw, 0.0))
        k = k.astype(np.int64)
    a = w * f * f
    e = 2 * k
    floor = np.int64(-(1 << 40))
    acc = np.zeros(N)
    E = np.full(N, floor)
    accs = np.empty((N, L))
    Es = np.empty((N, L), dtype=np.int64)
    for t in range(L):
        et = np.where(a[:, t] != 0.0, e[:, t], floor)
        En = np.maximum(E, et)
        acc = np.ldexp(acc, np.clip(E - En, -4000, 0).astype(np.int32)) + \
            np.ldexp(a[:, t], np.clip(et - En, -4000, 0).astype(np.int32))
        E = En
        accs[:, t], Es[:, t] = acc, E
    B = np.zeros((N, L))
    lengths = m.sum(axis=1)
    for g in range(starts.size - 1):
        members = order[starts[g]:starts[g + 1]]
        if members.size < 2:
            continue
        mm = m[members]
        live = (mm == 1) & (accs[members] != 0.0)
        Eg = np.where(live, Es[members], floor)
        Emax = Eg.max(axis=0)                                   # (L,)
        Emax = np.where(Emax == floor, 0, Emax)
        omega = np.ldexp(accs[members], np.clip(Es[members] - Emax, -4000, 0).astype(np.int32)) * mm
        with np.errstate(over="ignore"):
            guard = np.ldexp(eps, np.clip(-Emax, -4000, 4000).astype(np.int32))
        den = omega.sum(axis=0) + guard
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            share = np.where(den != 0, omega / np.where(den != 0, den, 1.0), 0.0)
            b = np.sum(ret[members] * share, axis=0)
        B[members] = b[None, :]
        if handle_zero_tail:
            ls = lengths[members]
            top = ls.max()
            srt = np.sort(ls)
            if np.sum(ls == top) == 1 and top > srt[-2]:
                B[members[np.argmax(ls)], int(srt[-2]):] = 0.0
    return (ret - B) * m, ret


def _check_finite_result(adv):
    """Never hand back NaN/inf: a non-finite advantage (inconsistent ``log_probs``/``sum_pi_squared``
    making ``Σ W`` cancel) is refused with its position."""
    bad = ~np.isfinite(adv)
    if bad.any():
        i, t = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"the OTB advantage is not finite at (row {i}, position {t}): the cumulative weights "
                         "of the group cancel (check that log_probs and sum_pi_squared come from the same "
                         "distribution, 1 − 2π + Σπ² ≥ 0) or token_rewards are too large for the baseline "
                         "Σ G ω / Σ ω to be a float64 (rescale the rewards)")


def optimal_token_baseline_advantage(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                                     *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8,
                                     out=None, workers=None):
    r"""Optimal-token-baseline advantages on a padded batch, exactly as implemented by the authors.

    For response ``i`` of a group (same ``group_ids``), position ``t``:

    .. math::
        w_j &= (1 - 2\pi(y_j|c_j) + \textstyle\sum_v \pi(v|c_j)^2)\,\bar\rho_j^2, \qquad
        W_t = \sum_{j \le t} m_j w_j, \qquad G_t = \sum_{k \ge t} m_k r_k, \\
        B_t &= \frac{\sum_i m^i_t G^i_t W^i_t}{\sum_i m^i_t W^i_t + \epsilon}, \qquad
        A^i_t = (G^i_t - B_t)\, m^i_t .

    The sum over ``i`` includes the response itself (no leave-one-out); a group
    of one gets ``B = 0`` (``A = G``).  Where the denominator is exactly 0
    (only possible with ``eps = 0``: no member alive at ``t``, or all alive
    members with ``W = 0``) we set ``B_t = 0`` rather than the implementation's
    NaN (our decision; with the default ``eps`` the two agree).  With ``handle_zero_tail`` the unique
    longest response of a group (length = number of unmasked positions) gets
    ``B = 0`` at columns ``t ≥`` the second-longest length.

    Parameters
    ----------
    token_rewards : (N, L) array — ``r`` (finite everywhere).
    response_mask : (N, L) array of 0/1 — ``m``.
    group_ids : (N,) labels — responses with equal labels form a group.
    log_probs : (N, L) — ``log π(y_j|c_j)``; finite everywhere, ``≤ 0`` where ``m = 1``.
    sum_pi_squared : (N, L) — ``Σ_v π(v|c_j)²``; finite, in ``(0, 1]`` where ``m = 1``
        (:func:`proofs_check.logits.sum_pi_squared` computes it from logits).
    is_weights : optional (N, L) — truncated IS weights ``ρ̄_j ≥ 0``.
    handle_zero_tail : bool — the zero-tail rule (step 5 of the implementation).
    eps : float ≥ 0 — the guard ``ε`` in the denominator.
    out : optional pair ``(advantages, returns)`` of writeable C-contiguous float64 ``(N, L)``
        arrays, overlapping neither each other nor any input, to write the results into (a
        training loop that reuses them each step allocates nothing and pays no first-touch
        page faults); the same two arrays are returned.  On a ``ValueError`` their contents are
        unspecified.
    workers : optional int ≥ 1 — threads; default all cores
        (:func:`proofs_check.engine.executors.default_workers`).  Batches of at least
        ``2^18`` tokens with two or more groups are split into contiguous runs of groups of about
        equal size, one per thread; groups are independent, so the results are bitwise the same
        for every ``workers``.

    Returns
    -------
    (advantages, returns) : two (N, L) float64 arrays (``out`` if given); zero wherever ``m = 0``
        (a fully masked row gives zeros, never NaN).

    Validation happens inside the fused kernel (branch-free flags in the same
    pass); a flagged group triggers a NumPy re-check that raises ``ValueError``
    naming the argument, the position of the first bad entry and its value.
    The kernel is ``nogil``; large batches run on ``workers`` threads (above).  Ranges are
    checked where ``m = 1`` only, since padding positions often hold
    placeholders; NaN/inf are refused everywhere.

    The kernel forms ``G_t`` by a backward scan over ``m_t r_t``: the reverse
    cumulative sum of the implementation term for term (bitwise equal to the
    NumPy reference's ``returns``); ``G_t = 0`` after the last valid token.

    Source: veRL ``compute_optimal_token_baseline_advantage`` (CONFIRMED from
    code); theory ``baselines.md#otb-implementation``.
    """
    eps = check_real("eps", eps, lo=0.0)
    handle_zero_tail = check_bool("handle_zero_tail", handle_zero_tail)
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    if out is None:
        adv = np.empty_like(r)
        ret = np.empty_like(r)
    else:
        adv, ret = _check_out(out, r.shape, (token_rewards, response_mask, log_probs, sum_pi_squared,
                                             is_weights, r, m, lp, spp, isw))
    workers = default_workers() if workers is None else check_int("workers", workers, lo=1, hi=MAX_WORKERS)
    use_is = isw is not None
    bad_groups = np.zeros(starts.size - 1, dtype=np.bool_)
    # one pass over the batch: the overflow bound and the finiteness of the result are collected
    # by the kernel; the rare batch that needs the scaled formula is recomputed below
    stats = _run_kernel(r, m, lp, spp, isw if use_is else np.empty((1, 1)), use_is, order, starts,
                        bool(handle_zero_tail), eps, adv, ret, bad_groups, workers)
    if bad_groups.any():
        _check_values_numpy(r, m, lp, spp, isw)  # locates the bad entry and raises
        raise AssertionError("kernel flagged an invalid entry that the NumPy check did not find")  # pragma: no cover
    if _log_bound_exceeds(r.shape[1], starts, float(stats[0]), float(stats[1]) if use_is else None):
        _check_returns(r, m)
        a2, g2 = _otb_scaled(r, m, lp, spp, isw, inv, order, starts, handle_zero_tail, eps)
        _check_finite_result(a2)
        if out is None:
            return a2, g2
        adv[...] = a2
        ret[...] = g2
        return adv, ret
    if stats[2] > 0:
        _check_finite_result(adv)
    return adv, ret


def _check_out(out, shape, inputs):
    """``out`` of :func:`optimal_token_baseline_advantage`: a pair of writeable C-contiguous
    float64 arrays of ``shape`` that overlap neither each other nor any of ``inputs``."""
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"out must be a pair (advantages, returns) of float64 arrays, got "
                        f"{type(out).__name__}{'' if not isinstance(out, (tuple, list)) else f' of length {len(out)}'}")
    for name, a in zip(("out[0] (advantages)", "out[1] (returns)"), out):
        if not isinstance(a, np.ndarray):
            raise TypeError(f"{name} must be a NumPy array, got {type(a).__name__}")
        if a.dtype != np.float64 or a.shape != shape:
            raise ValueError(f"{name} must be float64 of shape {shape} (the batch), got {a.dtype} {a.shape}")
        if not (a.flags.c_contiguous and a.flags.writeable):
            raise ValueError(f"{name} must be C-contiguous and writeable")
        if any(isinstance(x, np.ndarray) and np.may_share_memory(a, x) for x in inputs):
            raise ValueError(f"{name} overlaps an input array; pass separate output buffers")
    if np.may_share_memory(out[0], out[1]):
        raise ValueError("out[0] and out[1] overlap; pass two separate arrays")
    return out[0], out[1]


def otb_advantage_numpy(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                        *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8):
    """Plain-NumPy (vectorised) reference for :func:`optimal_token_baseline_advantage`.

    Same contract and formula; a handful of whole-array passes instead of one
    fused kernel.
    """
    eps = check_real("eps", eps, lo=0.0)
    handle_zero_tail = check_bool("handle_zero_tail", handle_zero_tail)
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    _check_values_numpy(r, m, lp, spp, isw)
    _check_returns(r, m)
    if _needs_scaling(r, m, isw, starts):
        adv, ret = _otb_scaled(r, m, lp, spp, isw, inv, order, starts, handle_zero_tail, eps)
        _check_finite_result(adv)
        return adv, ret
    ret = _reward_to_go(r, m)
    w = np.where(m == 1, 1.0 - 2.0 * np.exp(np.minimum(lp, 0.0)) + spp, 0.0)
    if isw is not None:
        w = w * isw ** 2
    W = np.cumsum(w * m, axis=1)
    n_groups = starts.size - 1
    num = np.zeros((n_groups, r.shape[1]))
    den = np.zeros((n_groups, r.shape[1]))
    np.add.at(num, inv, ret * W * m)
    np.add.at(den, inv, W * m)
    d = den + eps
    B = np.divide(num, d, out=np.zeros_like(num), where=d != 0)[inv]
    sizes = np.diff(starts)[inv]
    B[sizes == 1] = 0.0
    if handle_zero_tail:
        lengths = m.sum(axis=1)
        for g in range(n_groups):
            members = order[starts[g]:starts[g + 1]]
            if members.size < 2:
                continue
            ls = lengths[members]
            top = ls.max()
            srt = np.sort(ls)
            if np.sum(ls == top) == 1 and top > srt[-2]:
                B[members[np.argmax(ls)], int(srt[-2]):] = 0.0
    adv = (ret - B) * m
    _check_finite_result(adv)
    return adv, ret


def otb_advantage_loop(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                       *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8):
    """Straightforward per-token Python loops written from the implementation's steps 1–6.

    Independent of the kernel and of the NumPy reference (dicts and lists, no
    array arithmetic); slow — used by the tests and as the benchmark's
    per-token loop.  Validation as in :func:`otb_advantage_numpy`.
    """
    eps = check_real("eps", eps, lo=0.0)
    handle_zero_tail = check_bool("handle_zero_tail", handle_zero_tail)
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    _check_values_numpy(r, m, lp, spp, isw)
    _check_returns(r, m)
    N, L = r.shape
    rows_r, rows_m, rows_lp, rows_s = r.tolist(), m.tolist(), lp.tolist(), spp.tolist()
    rows_is = isw.tolist() if isw is not None else None
    G = [[0.0] * L for _ in range(N)]
    for i in range(N):
        acc = 0.0
        for t in range(L - 1, -1, -1):  # step 3: reward-to-go over unmasked positions
            if rows_m[i][t] == 1.0:
                acc += rows_r[i][t]
            G[i][t] = acc

    def weights(exact):
        """Steps 1-2: w_j (times ρ̄_j²), cumulative over unmasked positions; in exact rationals when
        the floats overflow (huge IS weights)."""
        one = Fraction(1) if exact else 1.0
        W = [[0.0] * L for _ in range(N)]
        for i in range(N):
            acc = 0 * one
            for t in range(L):
                if rows_m[i][t] == 1.0:
                    p = math.exp(rows_lp[i][t])
                    wj = one - 2 * (Fraction(p) if exact else p) + (Fraction(rows_s[i][t]) if exact else rows_s[i][t])
                    if rows_is is not None:
                        q = Fraction(rows_is[i][t]) if exact else rows_is[i][t]
                        wj *= q * q
                    acc += wj
                W[i][t] = acc
        return W

    def baseline_at(members, W, t, exact):
        num = 0 * W[members[0]][t]
        den = 0 * W[members[0]][t]
        for i in members:
            if rows_m[i][t] == 1.0:
                num += (Fraction(G[i][t]) if exact else G[i][t]) * W[i][t]
                den += W[i][t]
        den += Fraction(eps) if exact else eps
        if not exact and not (math.isfinite(num) and math.isfinite(den)):
            raise OverflowError("group sums overflow float64")
        return float(num / den) if den != 0 else 0.0

    groups: dict = {}
    for i, g in enumerate(inv.tolist()):
        groups.setdefault(g, []).append(i)
    adv = [[0.0] * L for _ in range(N)]
    W_float = None
    W_exact = None
    for members in groups.values():
        baseline = {i: [0.0] * L for i in members}
        if len(members) > 1:
            for t in range(L):  # step 4: self-inclusive weighted mean over responses alive at t
                try:
                    if W_float is None:
                        W_float = weights(False)
                    b = baseline_at(members, W_float, t, False)
                    ok = math.isfinite(b) and all(math.isfinite(W_float[i][t]) for i in members)
                except OverflowError:
                    ok = False
                if not ok:
                    if W_exact is None:
                        W_exact = weights(True)
                    b = baseline_at(members, W_exact, t, True)
                for i in members:
                    baseline[i][t] = b
            if handle_zero_tail:  # step 5
                lengths = {i: sum(rows_m[i]) for i in members}
                longest = max(lengths.values())
                holders = [i for i in members if lengths[i] == longest]
                others = sorted(lengths[i] for i in members if i not in holders)
                if len(holders) == 1 and others and longest > others[-1]:
                    for t in range(int(others[-1]), L):
                        baseline[holders[0]][t] = 0.0
        for i in members:
            for t in range(L):  # step 6
                adv[i][t] = (G[i][t] - baseline[i][t]) if rows_m[i][t] == 1.0 else 0.0
    out = np.array(adv)
    _check_finite_result(out)
    return out, np.array(G)  # returns: the masked reverse cumsum at every column
