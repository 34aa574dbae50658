r"""Baselines for REINFORCE: the optimal token baseline (OTB), the group mean,
leave-one-out, the classic optimal scalar baseline, and their exact population
and finite-group moments by enumeration.

Notation (spec ``baselines.md`` §1, §3): a response ``y`` of length ``T``,
per-token scores ``s_t = ∇_θ log π(y_t|c_t)``, reward-to-go ``G_t``,
REINFORCE with per-position baselines ``ĝ(y) = Σ_t s_t (G_t − b_t)``.

* **Group estimator as implemented** (CONFIRMED from the authors' veRL code,
  ``compute_optimal_token_baseline_advantage``):
  :func:`optimal_token_baseline_advantage` on padded ``(N, L)`` batches,
  with a fused numba kernel, a plain-NumPy reference (:func:`otb_advantage_numpy`)
  and a per-token Python loop written from the spec text
  (:func:`otb_advantage_loop`).
* **Other group estimators**: :func:`group_mean_advantage` (GRPO-style, no std
  normalisation), :func:`rloo_advantage`, :func:`global_bstar_advantage`.
* **Exact population quantities** (tabular or linear-softmax policies from
  :mod:`proofs_check.policies`): :class:`ExactModel`,
  :func:`population_baselines`, :func:`population_variances`.
* **Exact finite-group moments** by enumerating all ``N``-tuples of responses:
  :func:`group_estimator_moments`.

References: "The Optimal Token Baseline: Variance Reduction for Long-Horizon
LLM-RL" (Li et al., arXiv 2602.07078); veRL ``trainer/ppo/core_algos.py``;
spec ``baselines.md``.
"""
from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass

import numpy as np
from numba import njit

from proofs_check.engine.validate import check_choice, check_finite_array, check_int, check_real

__all__ = [
    "optimal_token_baseline_advantage", "otb_advantage_numpy", "otb_advantage_loop",
    "group_mean_advantage", "rloo_advantage", "global_bstar_advantage",
    "ExactModel", "exact_model", "population_baselines", "population_variances",
    "PopulationComparison", "compare_population_baselines",
    "GroupMoments", "group_estimator_moments", "GROUP_KINDS", "POPULATION_KINDS",
]

POPULATION_KINDS = ("none", "mean", "global_bstar", "otb", "per_token")
GROUP_KINDS = ("none", "mean", "rloo", "global_bstar", "otb")



# ---------------------------------------------------------------------------
# input validation
# ---------------------------------------------------------------------------

def _as_2d(name, value, shape=None):
    try:
        arr = np.asarray(value)
    except Exception as exc:  # pragma: no cover - asarray rarely raises
        raise TypeError(f"{name} must be array-like: {exc}") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    if arr.ndim != 2:
        raise ValueError(f"{name} must be a 2-D (N, L) array, got shape {arr.shape}")
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} has shape {arr.shape}, but token_rewards has shape {shape}")
    return np.ascontiguousarray(arr, dtype=np.float64)


def _group_index(group_ids, N):
    g = np.asarray(group_ids)
    if g.ndim != 1 or g.shape[0] != N:
        raise ValueError(f"group_ids must be a 1-D array of length N = {N}, got shape {g.shape}")
    if g.dtype.kind == "f" and not np.all(np.isfinite(g)):
        raise ValueError("group_ids contains NaN or inf")
    _, inv = np.unique(g, return_inverse=True)
    inv = inv.astype(np.int64).ravel()
    order = np.argsort(inv, kind="stable").astype(np.int64)
    counts = np.bincount(inv)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return inv, order, starts


def _validate_batch(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights):
    r = _as_2d("token_rewards", token_rewards)
    N, L = r.shape
    if N == 0 or L == 0:
        raise ValueError(f"the batch is empty: token_rewards has shape {r.shape}; need N ≥ 1 responses "
                         "and L ≥ 1 positions (no empty groups)")
    m = _as_2d("response_mask", response_mask, r.shape)
    lp = _as_2d("log_probs", log_probs, r.shape)
    spp = _as_2d("sum_pi_squared", sum_pi_squared, r.shape)
    isw = None if is_weights is None else _as_2d("is_weights", is_weights, r.shape)
    inv, order, starts = _group_index(group_ids, N)
    return r, m, lp, spp, isw, inv, order, starts


# ---------------------------------------------------------------------------
# the OTB group estimator: fused kernel
# ---------------------------------------------------------------------------

_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10


@njit(cache=True, nogil=True)
def _exp_nonpos(x, out, kbits):
    """``out = exp(clip(x, −708, 0))``, vectorisable (no libm call), ≤ 1 ulp from ``np.exp``.

    ``x = k ln2 + r`` with ``|r| ≤ ln2/2`` (Cody–Waite split of ln 2), ``e^r`` by
    its Taylor polynomial of degree 14 (truncation < 2e-17 relative) and ``2^k``
    built from the exponent bits.  Inputs below −708 (``e^x < 4e-308``) are
    clamped; the plain-NumPy reference is ``np.exp``.  ``kbits`` is int64
    scratch of the same length.
    """
    n = x.shape[0]
    for j in range(n):
        v = min(max(x[j], -708.0), 0.0)
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
        out[j] = p
        kbits[j] = (np.int64(k) + 1023) << 52
    scale = kbits.view(np.float64)
    for j in range(n):
        out[j] *= scale[j]


def exp_nonpositive(x) -> np.ndarray:
    """NumPy entry to the kernel's exponential (for tests): ``exp(clip(x, −708, 0))``."""
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
    out = np.empty_like(x)
    _exp_nonpos(x, out, np.empty(x.size, dtype=np.int64))
    return out


@njit(cache=True, nogil=True)
def _otb_group(r, m, lp, spp, isw, use_is, members, handle_zero_tail, eps, adv, ret):
    """One group: validate (branch-free flags), W and G, the baseline, the advantages.

    Per member row: one pass for the validity flags, the length and the total
    reward ``R = Σ_t m_t r_t``; one fused forward pass for ``W_t``,
    ``G_t = R − Σ_{k<t} m_k r_k`` (the same partial sums in the same order, so
    ``G_0 = R`` and ``G_t = 0`` after the last valid token exactly) and the group
    sums; a last pass for the advantages.  Returns True if an entry is invalid
    (the caller then locates it).
    """
    n = members.shape[0]
    L = r.shape[1]
    prow = np.empty(L)
    kbits = np.empty(L, dtype=np.int64)
    num = np.zeros(L)
    den = np.zeros(L)
    lengths = np.empty(n)
    bad = False
    for k in range(n):
        i = members[k]
        _exp_nonpos(lp[i], prow, kbits)
        tot = 0.0
        cnt = 0.0
        for t in range(L):
            mt = m[i, t]
            x = lp[i, t]
            s = spp[i, t]
            rr = r[i, t]
            # x - x == 0 is False exactly for NaN and ±inf
            ok = ((mt == 0.0) | (mt == 1.0)) & (rr - rr == 0.0) & (x - x == 0.0) & (s - s == 0.0)
            rng_ok = (x <= 0.0) & (s > 0.0) & (s <= 1.0)
            bad |= (not ok) | ((mt == 1.0) & (not rng_ok))
            tot += rr * mt
            cnt += mt
        if use_is:
            for t in range(L):
                q = isw[i, t]
                bad |= not ((q - q == 0.0) & (q >= 0.0))
        lengths[k] = cnt
        if bad:
            return True
        acc = 0.0
        c = 0.0
        for t in range(L):
            mt = m[i, t]
            w = mt * (1.0 - 2.0 * prow[t] + spp[i, t])
            if use_is:
                q = isw[i, t]
                w = w * (q * q)
            acc += w
            g = tot - c
            c += r[i, t] * mt
            ret[i, t] = g
            wm = acc * mt
            num[t] += g * wm
            den[t] += wm
    if n == 1:
        i = members[0]
        for t in range(L):
            adv[i, t] = ret[i, t] * m[i, t]
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
        stop = L if k != tail_k else second
        for t in range(stop):
            adv[i, t] = (ret[i, t] - num[t]) * m[i, t]
        for t in range(stop, L):
            adv[i, t] = ret[i, t] * m[i, t]
    return False


@njit(cache=True, nogil=True)
def _otb_kernel(r, m, lp, spp, isw, use_is, order, starts, handle_zero_tail, eps, adv, ret, bad_groups):
    n_groups = starts.shape[0] - 1
    for g in range(n_groups):
        bad_groups[g] = _otb_group(r, m, lp, spp, isw, use_is, order[starts[g]:starts[g + 1]],
                                   handle_zero_tail, eps, adv, ret)


def optimal_token_baseline_advantage(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                                     *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8):
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
    handle_zero_tail : bool — the zero-tail rule (spec §3 step 5).
    eps : float ≥ 0 — the guard ``ε`` in the denominator.

    Returns
    -------
    (advantages, returns) : two (N, L) float64 arrays; zero wherever ``m = 0``
        (a fully masked row gives zeros, never NaN).

    Validation happens inside the fused kernel (branch-free flags in the same
    pass); a flagged group triggers a NumPy re-check that raises ``ValueError``
    naming the argument, the position of the first bad entry and its value.
    Serial and ``nogil``: groups are independent, so callers may split a batch
    by group across threads.  (A ``prange`` version was slower on the shared
    2-core machine where it was measured.)  Ranges are
    checked where ``m = 1`` only, since padding positions often hold
    placeholders; NaN/inf are refused everywhere.

    The kernel forms ``G_t = R − Σ_{k<t} m_k r_k`` in a forward pass (the same
    partial sums as ``R``, so ``G_0 = R`` and ``G_t = 0`` after the last valid
    token exactly); it equals the reverse cumulative sum of the implementation
    up to rounding of order ``ε Σ|r|``.

    Source: veRL ``compute_optimal_token_baseline_advantage`` (CONFIRMED from
    code); spec ``baselines.md`` §3.
    """
    eps = check_real("eps", eps, lo=0.0)
    if not isinstance(handle_zero_tail, (bool, np.bool_)):
        raise TypeError(f"handle_zero_tail must be a bool, got {handle_zero_tail!r}")
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    adv = np.empty_like(r)
    ret = np.empty_like(r)
    use_is = isw is not None
    bad_groups = np.zeros(starts.size - 1, dtype=np.bool_)
    _otb_kernel(r, m, lp, spp, isw if use_is else np.empty((1, 1)), use_is, order, starts,
                bool(handle_zero_tail), eps, adv, ret, bad_groups)
    if bad_groups.any():
        _check_values_numpy(r, m, lp, spp, isw)  # locates the bad entry and raises
        raise AssertionError("kernel flagged an invalid entry that the NumPy check did not find")  # pragma: no cover
    return adv, ret


def _first_bad(name, bad, arr, what):
    if np.any(bad):
        i, t = (int(v) for v in np.argwhere(bad)[0])
        raise ValueError(f"{name} {what}; first bad entry at (row {i}, position {t}) with value {arr[i, t]!r}")


def _check_values_numpy(r, m, lp, spp, isw):
    """Every check of the kernel, in NumPy, with the position of the first bad entry."""
    _first_bad("response_mask", ~((m == 0) | (m == 1)), m, "must contain only 0 and 1")
    for name, arr in (("token_rewards", r), ("log_probs", lp), ("sum_pi_squared", spp)):
        _first_bad(name, ~np.isfinite(arr), arr, "contains NaN or inf")
    valid = m == 1
    _first_bad("log_probs", valid & (lp > 0), lp, "must be ≤ 0 (a log-probability) at unmasked positions")
    _first_bad("sum_pi_squared", valid & ~((spp > 0) & (spp <= 1)), spp, "must lie in (0, 1] at unmasked positions")
    if isw is not None:
        _first_bad("is_weights", ~np.isfinite(isw), isw, "contains NaN or inf")
        _first_bad("is_weights", isw < 0, isw, "must be ≥ 0")


def otb_advantage_numpy(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                        *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8):
    """Plain-NumPy (vectorised) reference for :func:`optimal_token_baseline_advantage`.

    Same contract and formula; a handful of whole-array passes instead of one
    fused kernel.
    """
    eps = check_real("eps", eps, lo=0.0)
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    _check_values_numpy(r, m, lp, spp, isw)
    ret = np.flip(np.cumsum(np.flip(r * m, axis=1), axis=1), axis=1)
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
    return (ret - B) * m, ret


def otb_advantage_loop(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                       *, is_weights=None, handle_zero_tail: bool = False, eps: float = 1e-8):
    """Straightforward per-token Python loops written from the spec text (§3, steps 1–6).

    Independent of the kernel and of the NumPy reference (dicts and lists, no
    array arithmetic); slow — used by the tests and as the benchmark's
    per-token loop.  Validation as in :func:`otb_advantage_numpy`.
    """
    eps = check_real("eps", eps, lo=0.0)
    r, m, lp, spp, isw, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, is_weights)
    _check_values_numpy(r, m, lp, spp, isw)
    N, L = r.shape
    import math
    rows_r, rows_m, rows_lp, rows_s = r.tolist(), m.tolist(), lp.tolist(), spp.tolist()
    rows_is = isw.tolist() if isw is not None else None
    G = [[0.0] * L for _ in range(N)]
    W = [[0.0] * L for _ in range(N)]
    for i in range(N):
        acc = 0.0
        for t in range(L):  # step 1-2: w_j (times ρ̄_j²), cumulative over unmasked positions
            if rows_m[i][t] == 1.0:
                wj = 1.0 - 2.0 * math.exp(rows_lp[i][t]) + rows_s[i][t]
                if rows_is is not None:
                    wj *= rows_is[i][t] ** 2
                acc += wj
            W[i][t] = acc
        acc = 0.0
        for t in range(L - 1, -1, -1):  # step 3: reward-to-go over unmasked positions
            if rows_m[i][t] == 1.0:
                acc += rows_r[i][t]
            G[i][t] = acc
    groups: dict = {}
    for i, g in enumerate(np.asarray(group_ids).tolist()):
        groups.setdefault(g, []).append(i)
    adv = [[0.0] * L for _ in range(N)]
    for members in groups.values():
        baseline = {i: [0.0] * L for i in members}
        if len(members) > 1:
            for t in range(L):  # step 4: self-inclusive weighted mean over responses alive at t
                num = 0.0
                den = 0.0
                for i in members:
                    if rows_m[i][t] == 1.0:
                        num += G[i][t] * W[i][t]
                        den += W[i][t]
                b = num / (den + eps) if den + eps != 0.0 else 0.0
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
    return np.array(adv), np.array(G)  # returns: the masked reverse cumsum at every column


# ---------------------------------------------------------------------------
# other group estimators on padded batches
# ---------------------------------------------------------------------------

def _returns_and_groups(token_rewards, response_mask, group_ids):
    r = _as_2d("token_rewards", token_rewards)
    if r.size == 0:
        raise ValueError(f"the batch is empty: token_rewards has shape {r.shape}")
    m = _as_2d("response_mask", response_mask, r.shape)
    check_finite_array("token_rewards", r)
    if not np.all((m == 0) | (m == 1)):
        raise ValueError("response_mask must contain only 0 and 1")
    inv, order, starts = _group_index(group_ids, r.shape[0])
    ret = np.flip(np.cumsum(np.flip(r * m, axis=1), axis=1), axis=1)
    return r, m, ret, inv, starts


def group_mean_advantage(token_rewards, response_mask, group_ids):
    r"""GRPO-style (without std normalisation): ``A^i_t = (G^i_t − R̄) m^i_t``,
    ``R̄ = (1/N) Σ_j R_j`` over the group including ``i``, ``R_j = G^j_0`` the
    total reward.  A group of one gets ``A = G``.  Returns ``(advantages, returns)``.

    For outcome rewards the group-mean estimator has ``E ĝ = ((N−1)/N) g``
    (spec ``baselines.md`` §3, DERIVED).
    """
    r, m, ret, inv, starts = _returns_and_groups(token_rewards, response_mask, group_ids)
    R = ret[:, 0]
    sizes = np.diff(starts)
    mean = np.bincount(inv, weights=R) / sizes
    b = np.where(sizes[inv] > 1, mean[inv], 0.0)
    return (ret - b[:, None]) * m, ret


def rloo_advantage(token_rewards, response_mask, group_ids):
    r"""Leave-one-out: ``A^i_t = (G^i_t − (1/(N−1)) Σ_{j≠i} R_j) m^i_t``; a group of one gets ``A = G``.

    Unbiased for every ``N ≥ 2`` (spec ``baselines.md`` §3, DERIVED).
    """
    r, m, ret, inv, starts = _returns_and_groups(token_rewards, response_mask, group_ids)
    R = ret[:, 0]
    sizes = np.diff(starts)[inv]
    tot = np.bincount(inv, weights=R)[inv]
    b = np.where(sizes > 1, (tot - R) / np.maximum(sizes - 1, 1), 0.0)
    return (ret - b[:, None]) * m, ret


def global_bstar_advantage(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                           *, eps: float = 1e-8):
    r"""The classic optimal scalar baseline, estimated in the group (self-inclusive):

    .. math:: b = \frac{\sum_i E_i R_i}{\sum_i E_i + \epsilon}, \qquad E_i = W^i_{L-1}
              = \sum_j m_j (1 - 2\pi_j + \textstyle\sum_v \pi_v^2)

    (the proxy for ``‖S‖²``, exact for tabular policies); ``A^i_t = (G^i_t − b) m^i_t``.
    Source: spec ``baselines.md`` §1 (CONFIRMED population form).
    """
    eps = check_real("eps", eps, lo=0.0)
    r, m, lp, spp, _, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, None)
    _check_values_numpy(r, m, lp, spp, None)
    ret = np.flip(np.cumsum(np.flip(r * m, axis=1), axis=1), axis=1)
    E = np.sum(np.where(m == 1, 1.0 - 2.0 * np.exp(np.minimum(lp, 0)) + spp, 0.0), axis=1)
    R = ret[:, 0]
    b = np.bincount(inv, weights=E * R) / (np.bincount(inv, weights=E) + eps)
    sizes = np.diff(starts)[inv]
    bb = np.where(sizes > 1, b[inv], 0.0)
    return (ret - bb[:, None]) * m, ret


# ---------------------------------------------------------------------------
# exact population quantities by enumeration
# ---------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class ExactModel:
    """Everything needed for exact moments of score-function estimators.

    ``P`` (n,) sequence probabilities; ``R`` (n,) outcome rewards (``G_t = R``);
    ``tokens`` (n, T); ``proxy`` (n, T) the logit-gradient proxy
    ``1 − 2π(y_t|c_t) + Σ_v π(v|c_t)²``; ``energy`` (n, T) the true
    ``‖s_t(y)‖²``; ``self_gram`` (n, T, T) ``⟨s_t(y), s_u(y)⟩``; ``scores``
    (n, T, d) dense scores (linear-softmax) or ``None`` (tabular: structured).
    """

    kind: str
    V: int
    T: int
    P: np.ndarray
    R: np.ndarray
    tokens: np.ndarray
    proxy: np.ndarray
    energy: np.ndarray
    self_gram: np.ndarray
    scores: np.ndarray | None
    row_probs: tuple  # per depth (V**t, V) probabilities

    @property
    def n_seq(self) -> int:
        return self.P.size

    def prefix_index(self, t: int) -> np.ndarray:
        """Row of the depth-``t`` prefix ``(y_1..y_t)`` for every sequence."""
        return np.arange(self.n_seq) // self.V ** (self.T - t)

    def mean_gradient(self, a: np.ndarray) -> np.ndarray | list:
        """``E[Σ_t s_t a_t(y)]`` — dense vector (linear) or list of per-depth ``(V**t, V)`` tables."""
        w = self.P[:, None] * a
        if self.scores is not None:
            return np.einsum("nt,ntd->d", w, self.scores)
        out = []
        for t in range(self.T):
            c = w[:, t].reshape(self.V ** t, self.V, -1).sum(axis=2)  # (rows, next token)
            out.append(c - self.row_probs[t] * c.sum(axis=1, keepdims=True))
        return out

    def sq_norm(self, g) -> float:
        if isinstance(g, list):
            return float(sum(np.sum(x * x) for x in g))
        return float(g @ g)

    def inner_with(self, g) -> np.ndarray:
        """``h[y, t] = ⟨s_t(y), g⟩`` for a mean-gradient object ``g``."""
        if self.scores is not None:
            return self.scores @ g
        h = np.empty((self.n_seq, self.T))
        for t in range(self.T):
            rows = self.prefix_index(t)
            tok = self.tokens[:, t]
            gt = g[t]
            p = self.row_probs[t][rows]
            h[:, t] = gt[rows, tok] - np.sum(p * gt[rows], axis=1)
        return h

    def gram(self) -> np.ndarray:
        """Full Gram tensor ``K[y, t, y', u] = ⟨s_t(y), s_u(y')⟩`` (small models only)."""
        n, T = self.n_seq, self.T
        if self.scores is not None:
            S = self.scores.reshape(n * T, -1)
            return (S @ S.T).reshape(n, T, n, T)
        K = np.zeros((n, T, n, T))
        for t in range(T):
            rows = self.prefix_index(t)
            tok = self.tokens[:, t]
            p = self.row_probs[t][rows]  # (n, V)
            s2 = np.sum(p * p, axis=1)
            same = rows[:, None] == rows[None, :]
            pa = p[np.arange(n), tok]
            pab = p[np.arange(n)[:, None], tok[None, :]]  # p at row of y, token of y'
            val = (tok[:, None] == tok[None, :]) - pa[:, None] - pab + s2[:, None]
            K[:, t, :, t] = np.where(same, val, 0.0)
        return K


def exact_model(policy, reward, *, max_seq: int = 1 << 16) -> ExactModel:
    """Enumerate every response of a :class:`~proofs_check.policies.TabularPolicy` or
    :class:`~proofs_check.policies.LinearSoftmaxPolicy` with outcome reward ``R``.

    For a tabular policy (its own logits per prefix) scores of different
    positions live on disjoint coordinates: ``self_gram`` is diagonal and the
    proxy equals the true energy (spec §2, CONFIRMED).  For a linear-softmax
    policy ``s_t = φ(c_t, y_t) − E_π φ(c_t, ·)`` (dense, shared θ).
    """
    from proofs_check.policies import LinearSoftmaxPolicy, TabularPolicy, check_reward, sequence_log_probs

    if isinstance(policy, LinearSoftmaxPolicy):
        tab = policy.tabular()
        kind = "linear"
    elif isinstance(policy, TabularPolicy):
        tab = policy
        kind = "tabular"
    else:
        raise TypeError(f"policy must be a TabularPolicy or LinearSoftmaxPolicy, got {type(policy).__name__}")
    V, T = tab.V, tab.T
    n = V ** T
    if n > max_seq:
        raise ValueError(f"V**T = {n} sequences exceeds max_seq = {max_seq}; use a smaller horizon")
    R = check_reward(reward, V, T)
    P = np.exp(sequence_log_probs(tab))
    idx = np.arange(n)
    tokens = np.stack([(idx // V ** (T - 1 - t)) % V for t in range(T)], axis=1)
    row_probs = tuple(tab.probs(t) for t in range(T))
    proxy = np.empty((n, T))
    for t in range(T):
        rows = idx // V ** (T - t)
        p = row_probs[t][rows]
        pa = p[idx, tokens[:, t]]
        proxy[:, t] = (1.0 - pa) ** 2 + np.sum(p * p, axis=1) - pa * pa
    if kind == "tabular":
        scores = None
        energy = proxy.copy()
        self_gram = np.zeros((n, T, T))
        self_gram[:, np.arange(T), np.arange(T)] = energy
    else:
        tables = policy.score_tables()
        scores = np.empty((n, T, policy.d))
        for t in range(T):
            rows = idx // V ** (T - t)
            scores[:, t] = tables[t][rows, tokens[:, t]]
        self_gram = np.einsum("ntd,nud->ntu", scores, scores)
        energy = np.einsum("ntt->nt", self_gram).copy()
    return ExactModel(kind=kind, V=V, T=T, P=P, R=R, tokens=tokens, proxy=proxy, energy=energy,
                      self_gram=self_gram, scores=scores, row_probs=row_probs)


def population_baselines(model: ExactModel, *, weights: str = "proxy") -> dict:
    r"""Per-position constant baselines ``b_t`` (arrays of shape ``(T,)``) for each kind.

    * ``none``: 0;  ``mean``: ``E R``;
    * ``global_bstar``: ``E[‖S‖² R] / E‖S‖²``, ``S = Σ_t s_t`` (spec §1, CONFIRMED);
    * ``otb``: ``B_t = E[G_t W_t] / E W_t``, ``W_t = Σ_{j≤t} w_j`` with ``w`` the
      logit proxy (``weights="proxy"``) or the true ``‖s_j‖²`` (``"true"``)
      (spec §1, CONFIRMED form);
    * ``per_token``: ``b_k = E⟨s_k, Σ_t s_t G_t⟩ / E‖s_k‖²``, the minimiser of the
      variance over per-position constants (spec §1 probe, DERIVED; in the
      tabular case ``E[‖s_k‖² G_k] / E‖s_k‖²``).
    """
    check_choice("weights", weights, ("proxy", "true"))
    P, R, T = model.P, model.R, model.T
    w = model.proxy if weights == "proxy" else model.energy
    W = np.cumsum(w, axis=1)
    S2 = model.self_gram.sum(axis=(1, 2))  # ‖Σ_t s_t‖²
    out = {
        "none": np.zeros(T),
        "mean": np.full(T, P @ R),
        "global_bstar": np.full(T, (P @ (S2 * R)) / (P @ S2)),
        "otb": (P @ (W * R[:, None])) / (P @ W),
        # Σ_t ⟨s_k, s_t⟩ G_t with G_t = R for every t
        "per_token": (P @ (model.self_gram.sum(axis=2) * R[:, None])) / (P @ model.energy),
    }
    return out


def population_variances(model: ExactModel, baselines: dict | None = None) -> dict:
    """Exact ``E‖ĝ − g‖²`` (trace of the covariance) of ``ĝ = Σ_t s_t (R − b_t)``
    for each per-position constant baseline; all are unbiased, so this is also the MSE."""
    if baselines is None:
        baselines = population_baselines(model)
    g = model.mean_gradient(np.repeat(model.R[:, None], model.T, axis=1))
    g2 = model.sq_norm(g)
    out = {}
    for name, b in baselines.items():
        a = model.R[:, None] - np.asarray(b, dtype=float)[None, :]
        second = float(model.P @ np.einsum("nt,ntu,nu->n", a, model.self_gram, a))
        out[name] = second - g2
    return out


@dataclass(frozen=True)
class PopulationComparison:
    """Exact population variances per baseline, and ``‖g‖``."""

    variances: dict
    baselines: dict
    grad_norm: float
    V: int
    T: int
    kind: str

    def to_dict(self) -> dict:
        d = asdict(self)
        d["baselines"] = {k: np.asarray(v).tolist() for k, v in self.baselines.items()}
        return d


def compare_population_baselines(policy, reward, *, weights: str = "proxy") -> PopulationComparison:
    """:func:`population_baselines` and :func:`population_variances` in one call."""
    model = exact_model(policy, reward)
    b = population_baselines(model, weights=weights)
    v = population_variances(model, b)
    g = model.mean_gradient(np.repeat(model.R[:, None], model.T, axis=1))
    return PopulationComparison(variances=v, baselines=b, grad_norm=float(np.sqrt(model.sq_norm(g))),
                                V=model.V, T=model.T, kind=model.kind)


# ---------------------------------------------------------------------------
# exact finite-group moments by enumerating N-tuples
# ---------------------------------------------------------------------------

def _group_coefficients(kind, R, W, eps):
    """Coefficients ``a[.., i, t]`` of ``s_t(y_i)`` in ``ĝ = (1/N) Σ_i Σ_t s_t(y_i) a_it``.

    ``R`` (B, N) outcome rewards of the tuple, ``W`` (B, N, T) cumulative proxy.
    """
    Bn, N = R.shape
    T = W.shape[2]
    G = np.repeat(R[:, :, None], T, axis=2)
    if kind == "none" or N == 1:
        return G
    if kind == "mean":
        b = R.mean(axis=1)[:, None, None]
    elif kind == "rloo":
        b = ((R.sum(axis=1, keepdims=True) - R) / (N - 1))[:, :, None]
    elif kind == "global_bstar":
        E = W[:, :, -1]
        b = ((E * R).sum(axis=1) / (E.sum(axis=1) + eps))[:, None, None]
    elif kind == "otb":
        b = ((G * W).sum(axis=1) / (W.sum(axis=1) + eps))[:, None, :]
    else:  # pragma: no cover - checked by caller
        raise ValueError(kind)
    return G - b


@dataclass(frozen=True)
class GroupMoments:
    """Exact moments of a self-inclusive group estimator ``ĝ = (1/N) Σ_i Σ_t s_t(y_i) A^i_t``.

    ``bias_ratio = ‖E ĝ − g‖/‖g‖``; ``cosine = cos(E ĝ, g)``;
    ``scale = ⟨E ĝ, g⟩/‖g‖²`` (``(N−1)/N`` for the group mean);
    ``mse = E‖ĝ − g‖²``; ``variance = E‖ĝ − E ĝ‖²``.
    """

    kind: str
    N: int
    bias_ratio: float
    cosine: float
    scale: float
    mse: float
    variance: float
    grad_norm: float
    n_tuples: int

    def to_dict(self) -> dict:
        return asdict(self)


def group_estimator_moments(model: ExactModel, N: int, kind: str, *, eps: float = 1e-8,
                            max_tuples: int = 1 << 21, chunk: int = 1 << 14) -> GroupMoments:
    """Exact mean, bias and MSE of a group estimator by enumerating all ``n_seq**N`` tuples.

    ``kind`` in :data:`GROUP_KINDS`; OTB uses the logit proxy as ``w`` (as the
    implementation does) and the ``eps`` guard.  Uses the Gram tensor, so the
    model must be small (``n_seq·T`` up to a few hundred).
    """
    N = check_int("N", N, lo=1, hi=12)
    check_choice("kind", kind, GROUP_KINDS)
    n, T = model.n_seq, model.T
    total = n ** N
    if total > max_tuples:
        raise ValueError(f"n_seq**N = {n}**{N} = {total} tuples exceeds max_tuples = {max_tuples}")
    K = model.gram().reshape(n * T, n * T)
    Wc = np.cumsum(model.proxy, axis=1)
    Rfull = np.repeat(model.R[:, None], T, axis=1)
    g = model.mean_gradient(Rfull)
    g2 = model.sq_norm(g)
    h = model.inner_with(g)  # (n, T)
    logP = np.log(np.maximum(model.P, 1e-300))
    abar = np.zeros((n, T))  # E[a_1t | y_1 = y]
    second = 0.0
    cross = 0.0
    all_idx = itertools.product(range(n), repeat=N)
    done = 0
    while done < total:
        m = min(chunk, total - done)
        tup = np.fromiter(itertools.chain.from_iterable(itertools.islice(all_idx, m)),
                          dtype=np.int64, count=m * N).reshape(m, N)
        done += m
        wt = np.exp(logP[tup].sum(axis=1))  # (m,)
        a = _group_coefficients(kind, model.R[tup], Wc[tup], eps)  # (m, N, T)
        # E‖ĝ‖²: (1/N²) Σ_{i,j} Σ_{t,u} a_it a_ju K[y_i t, y_j u]
        flat = (tup[:, :, None] * T + np.arange(T)[None, None, :]).reshape(m, N * T)
        av = a.reshape(m, N * T)
        Kb = K[flat[:, :, None], flat[:, None, :]]  # (m, NT, NT)
        sq = np.einsum("mi,mij,mj->m", av, Kb, av) / N ** 2
        second += float(wt @ sq)
        cross += float(wt @ (np.sum(a * h[tup], axis=(1, 2)) / N))
        np.add.at(abar, tup[:, 0], wt[:, None] * a[:, 0, :])
    # abar currently holds Σ P(tuple) a_1t over tuples with y_1 = y, i.e. P(y) E[a|y]
    with np.errstate(invalid="ignore", divide="ignore"):
        abar = np.where(model.P[:, None] > 0, abar / model.P[:, None], 0.0)
    mean_g = model.mean_gradient(abar)
    m2 = model.sq_norm(mean_g)
    bias2 = max(m2 - 2 * cross + g2, 0.0)
    mse = second - 2 * cross + g2
    var = second - m2
    gn = float(np.sqrt(g2))
    return GroupMoments(kind=kind, N=N, bias_ratio=float(np.sqrt(bias2)) / gn if gn > 0 else float("nan"),
                        cosine=float(cross / (np.sqrt(m2) * gn)) if m2 > 0 and gn > 0 else float("nan"),
                        scale=float(cross / g2) if g2 > 0 else float("nan"),
                        mse=float(mse), variance=float(var), grad_norm=gn, n_tuples=int(total))
