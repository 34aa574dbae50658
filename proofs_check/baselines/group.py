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
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_real

from ._batch import _check_values_numpy, _returns_and_groups, _reward_to_go, _validate_batch

__all__ = ["group_mean_advantage", "rloo_advantage", "global_bstar_advantage"]


def group_mean_advantage(token_rewards, response_mask, group_ids):
    r"""GRPO-style (without std normalisation): ``A^i_t = (G^i_t − R̄) m^i_t``,
    ``R̄ = (1/N) Σ_j R_j`` over the group including ``i``, ``R_j = G^j_0`` the
    total reward.  A group of one gets ``A = G``.  Returns ``(advantages, returns)``.

    For outcome rewards the group-mean estimator has ``E ĝ = ((N−1)/N) g``
    (theory ``baselines.md#group-estimators``, DERIVED).
    """
    r, m, ret, inv, starts = _returns_and_groups(token_rewards, response_mask, group_ids)
    R = ret[:, 0]
    sizes = np.diff(starts)
    mean = np.bincount(inv, weights=R) / sizes
    b = np.where(sizes[inv] > 1, mean[inv], 0.0)
    return (ret - b[:, None]) * m, ret


def rloo_advantage(token_rewards, response_mask, group_ids):
    r"""Leave-one-out: ``A^i_t = (G^i_t − (1/(N−1)) Σ_{j≠i} R_j) m^i_t``; a group of one gets ``A = G``.

    Unbiased for every ``N ≥ 2`` (theory ``baselines.md#group-estimators``, DERIVED).
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
    Theory: ``baselines.md#population-variance`` (CONFIRMED population form).
    """
    eps = check_real("eps", eps, lo=0.0)
    r, m, lp, spp, _, inv, order, starts = _validate_batch(
        token_rewards, response_mask, group_ids, log_probs, sum_pi_squared, None)
    _check_values_numpy(r, m, lp, spp, None)
    ret = _reward_to_go(r, m)
    E = np.sum(np.where(m == 1, 1.0 - 2.0 * np.exp(np.minimum(lp, 0)) + spp, 0.0), axis=1)
    R = ret[:, 0]
    b = np.bincount(inv, weights=E * R) / (np.bincount(inv, weights=E) + eps)
    sizes = np.diff(starts)[inv]
    bb = np.where(sizes > 1, b[inv], 0.0)
    return (ret - bb[:, None]) * m, ret
