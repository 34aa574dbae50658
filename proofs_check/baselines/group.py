r"""Group estimators other than OTB, on the same padded batches.

For ``N`` responses of a prompt (a group) with total rewards ``R_i = G^i_0``:

* :func:`group_mean_advantage` — GRPO without the std normalisation,
  ``A^i_t = (G^i_t − (1/N) Σ_j R_j) m^i_t`` (self-inclusive);
* :func:`rloo_advantage` — leave-one-out, ``A^i_t = (G^i_t − (1/(N−1)) Σ_{j≠i} R_j) m^i_t``;
* :func:`global_bstar_advantage` — the classic optimal scalar baseline
  ``b = Σ_i E_i R_i / (Σ_i E_i + ε)`` estimated in the group, with the
  logit-gradient proxy ``E_i = Σ_j m_j (1 − 2π_j + Σ_v π_v²)`` for ``‖S‖²``.

A group of one gets ``A = G`` from each.  Exact moments of these estimators:
:mod:`.moments`; theory page ``docs/theory/baselines.md#group-estimators``.

Finite rewards up to ±1.8e308: each estimator is computed directly, and if an
intermediate sum leaves float64 (a non-finite entry appears) it is recomputed on
the rewards scaled by an exact power of two ``2^{−k}`` (``k`` from the batch
shape, so no sum can overflow) and the result scaled back by ``2^{k}`` — every
formula is linear in the rewards, so this is the same estimator, exact up to
rounding (and to rewards more than ~2^{1000} below the largest, which underflow
but are negligible at that scale).  A reward-to-go or an advantage that is
itself beyond float64 is refused (``ValueError`` naming ``token_rewards``, its
row and position), never returned as inf/NaN.
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_real

from ._batch import _check_values_numpy, _returns_and_groups, _reward_to_go, _validate_batch

__all__ = ["group_mean_advantage", "rloo_advantage", "global_bstar_advantage"]


def _scale_exponent(N: int, L: int, per_term: int = 1) -> int:
    """``k`` with ``2^k ≥ 4 N L · per_term``: after scaling the rewards by ``2^{−k}`` a reward-to-go
    (≤ L terms), a group sum (≤ N of them) and a ``Σ E_i R_i`` (``|E_i| ≤ per_term``) stay below
    ``1.8e308 / 2``."""
    return int(4 * N * L * per_term).bit_length()


def _direct_or_scaled(compute, r, m, per_term: int = 1):
    """``compute(r)`` → ``(advantages, returns)``; if anything is non-finite, recompute on ``r·2^{−k}``
    and scale back (exact power-of-two scaling, the estimators being linear in ``r``); refuse a
    result that is beyond float64 itself."""
    with np.errstate(over="ignore", invalid="ignore"):
        adv, ret = compute(r)
    if np.all(np.isfinite(adv)) and np.all(np.isfinite(ret)):
        return adv, ret
    k = _scale_exponent(r.shape[0], r.shape[1], per_term)
    with np.errstate(over="ignore", invalid="ignore"):
        adv_s, ret_s = compute(np.ldexp(r, -k))
        ret, adv = np.ldexp(ret_s, k), np.ldexp(adv_s, k)
    for what, arr, sym in (("reward-to-go", ret, "G"), ("advantage", adv, "A")):
        bad = ~np.isfinite(arr)
        if bad.any():
            i, t = (int(v) for v in np.argwhere(bad)[0])
            raise ValueError(f"token_rewards: the {what} at (row {i}, position {t}) overflows float64 "
                             f"(|{sym}| > 1.8e308); rescale the rewards")
    return adv, ret


def group_mean_advantage(token_rewards, response_mask, group_ids):
    r"""GRPO-style (without std normalisation): ``A^i_t = (G^i_t − R̄) m^i_t``,
    ``R̄ = (1/N) Σ_j R_j`` over the group including ``i``, ``R_j = G^j_0`` the
    total reward.  A group of one gets ``A = G``.  Returns ``(advantages, returns)``.

    For outcome rewards the group-mean estimator has ``E ĝ = ((N−1)/N) g``
    (theory ``baselines.md#group-estimators``, DERIVED).
    """
    r, m, inv, starts = _returns_and_groups(token_rewards, response_mask, group_ids)
    sizes = np.diff(starts)

    def compute(r):
        ret = _reward_to_go(r, m)
        mean = np.bincount(inv, weights=ret[:, 0]) / sizes
        b = np.where(sizes[inv] > 1, mean[inv], 0.0)
        return (ret - b[:, None]) * m, ret

    return _direct_or_scaled(compute, r, m)


def rloo_advantage(token_rewards, response_mask, group_ids):
    r"""Leave-one-out: ``A^i_t = (G^i_t − (1/(N−1)) Σ_{j≠i} R_j) m^i_t``; a group of one gets ``A = G``.

    Unbiased for every ``N ≥ 2`` (theory ``baselines.md#group-estimators``, DERIVED).
    """
    r, m, inv, starts = _returns_and_groups(token_rewards, response_mask, group_ids)
    sizes = np.diff(starts)[inv]

    def compute(r):
        ret = _reward_to_go(r, m)
        R = ret[:, 0]
        tot = np.bincount(inv, weights=R)[inv]
        b = np.where(sizes > 1, (tot - R) / np.maximum(sizes - 1, 1), 0.0)
        return (ret - b[:, None]) * m, ret

    return _direct_or_scaled(compute, r, m)


def global_bstar_advantage(token_rewards, response_mask, group_ids, log_probs, sum_pi_squared,
                           *, eps: float = 1e-8):
    r"""The classic optimal scalar baseline, estimated in the group (self-inclusive):

    .. math:: b = \frac{\sum_i E_i R_i}{\sum_i E_i + \epsilon}, \qquad E_i = W^i_{L-1}
              = \sum_j m_j (1 - 2\pi_j + \textstyle\sum_v \pi_v^2)

    (the proxy for ``‖S‖²``, exact for tabular policies); ``A^i_t = (G^i_t − b) m^i_t``.
    Theory: ``baselines.md#population-variance`` (CONFIRMED population form).
    """
    eps = check_real("eps", eps, lo=0.0)
    r, m, lp, spp, _, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, None)
    _check_values_numpy(r, m, lp, spp, None)
    E = np.sum(np.where(m == 1, 1.0 - 2.0 * np.exp(np.minimum(lp, 0)) + spp, 0.0), axis=1)
    sizes = np.diff(starts)[inv]

    def compute(r):
        ret = _reward_to_go(r, m)
        b = np.bincount(inv, weights=E * ret[:, 0]) / (np.bincount(inv, weights=E) + eps)
        bb = np.where(sizes > 1, b[inv], 0.0)
        return (ret - bb[:, None]) * m, ret

    # |E_i| ≤ 2L (each term 1 − 2π + Σπ² ∈ [0, 2]); the baseline b is linear in the rewards
    return _direct_or_scaled(compute, r, m, per_term=2 * r.shape[1])
