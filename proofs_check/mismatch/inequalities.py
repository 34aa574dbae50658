r"""The inequalities of the mismatch page as functions of a search point: ``θ ↦ (lhs, rhs)``.

The inequality claims sample a point (a flat encoding of a policy pair, see
:mod:`.pairs`), climb ``lhs/rhs`` and report the worst ratio; the functions
here decode the point and evaluate both sides exactly (enumeration or closed
form).  No allowance is subtracted: where float64 could fake a violation the
claim either re-evaluates it in mpmath (:func:`evaluate_bound_mp`, via
:mod:`.bounds_mp`) or allows a stated forward-error bound
(:func:`float_remainder_allowance`, :func:`estimator_bias_allowance`).

* bounds (theory ``mismatch.md#bounds``): :func:`evaluate_bound` — ``(max_{R∈[0,1]} |Error|, bound)``,
  :func:`describe_pair` renders the attaining pair;
* lemmas (§4–§6): advantage, master inequality, context shift, Pinsker,
  ``D_KL^seq ≤ Tδ``, the length-neutral bound, the ``(4/3)T^{3/2}δ`` closed form;
* estimator bounds (§3): :func:`evaluate_estimator_bound`.
"""
from __future__ import annotations

import math

import numpy as np

from ..policies import (context_distributions, divergence_summary, per_context_chi2, per_context_kl, per_context_tv,
                        LinearSoftmaxPolicy, sequence_chi2, sequence_log_probs, sequence_tv, token_log_ratio_tables)
from .bounds import pm_kl_closed_form, trm_bounds, trm_bounds_from_policies
from .bounds_mp import iid_tilt_worst_case_mp, tabular_worst_case_mp
from .decomposition import performance_difference, trm_decomposition, worst_case_reward
from .estimators import estimator_moments, estimator_values
from .masks import length_neutral_weights
from .pairs import linear_from_flat, pair_from_flat, pair_reward_from_flat, tilt_probs_from_flat
from .tilt import iid_tilt_worst_case

__all__ = ["MP_ATOL", "U64", "float_remainder_allowance", "evaluate_bound", "describe_pair", "evaluate_bound_mp",
           "evaluate_advantage", "evaluate_master", "evaluate_context_shift", "evaluate_pinsker", "evaluate_kl_seq",
           "evaluate_length_neutral", "sample_T_delta", "project_T_delta", "evaluate_pm_closed_form",
           "evaluate_estimator_bound", "estimator_bias_allowance"]

# ==========================================================================
# bounds (§5) under the worst-case reward
# ==========================================================================

#: Allowance of the bound claims (``atol``; ``rtol = 0``): every float64 violation is re-evaluated
#: by the 50-digit mpmath evaluator (:func:`evaluate_bound_mp`), with the same allowance.  50-digit arithmetic on
#: O(1) probabilities leaves errors ≲ 1e-45, so ``1e-30`` only absorbs the mpmath rounding of an
#: exact zero (mismatch only at the last position: Error = 0 and adaptive = 0 exactly) and hides no
#: float64-sized violation — the regime |Error| < 1e-13 (the T² finding) stays visible.
MP_ATOL = 1e-30

U64 = float(np.finfo(float).eps) / 2   # unit roundoff of float64


def float_remainder_allowance(V: int, T: int) -> float:
    """Forward-error bound on ``|Error| = |J(π) − J(μ) − L'(π)|`` computed in float64 by enumeration.

    Each of ``J(π)``, ``J(μ)``, ``L'(π)`` is a sum of ``N = V^T`` terms whose magnitudes sum to at
    most ``1``, ``1`` and ``E_μ Σ_t |ρ_t − 1| ≤ 2T`` (``R ∈ [0, 1]``); a recursive sum of ``N``
    terms errs by ≤ ``N u Σ|terms|`` (Higham, *Accuracy and Stability*, §4.2), so
    ``|ΔError| ≤ N u (2 + 2T)``; we allow twice that.  Used where no mpmath evaluator exists.
    """
    return 2.0 * V ** T * U64 * (2.0 + 2.0 * T)


def evaluate_bound(theta, *, key, V, T, iid_T=None):
    """``(max_R |Error|, bound[key])`` for the pair encoded by ``theta`` (no allowance subtracted)."""
    if iid_T is not None:
        m, p = tilt_probs_from_flat(theta, V)
        if np.any(m < 1e-300) or np.any(p < 1e-300):
            return 0.0, 1.0   # a token probability underflows: outside the domain (strictly positive pairs)
        r = iid_tilt_worst_case(m, p, iid_T)
        return r.abs_error, r.bounds[key]
    mu, pi = pair_from_flat(theta, V, T)
    return worst_case_reward(mu, pi).abs_error, trm_bounds_from_policies(mu, pi)[key]


def describe_pair(theta, *, key, V, T, iid_T=None, digits=4):
    """A human-readable rendering of the attaining pair."""
    if iid_T is not None:
        m, p = tilt_probs_from_flat(theta, V)
        r = iid_tilt_worst_case(m, p, iid_T)
        return {"V": V, "T": iid_T, "kind": "iid_tilt", "mu_token": np.round(m, digits).tolist(),
                "pi_token": np.round(p, digits).tolist(), "abs_error": r.abs_error, "bounds": r.bounds,
                "delta": r.delta, "eps": r.eps, "ratio": r.abs_error / r.bounds[key] if r.bounds[key] > 0 else 0.0}
    mu, pi = pair_from_flat(theta, V, T)
    s = divergence_summary(mu, pi)
    b = trm_bounds_from_policies(mu, pi)
    w = worst_case_reward(mu, pi).abs_error
    return {"V": V, "T": T, "kind": "tabular",
            "mu_probs": [np.round(mu.probs(t), digits).tolist() for t in range(T)],
            "pi_probs": [np.round(pi.probs(t), digits).tolist() for t in range(T)],
            "abs_error": w, "bounds": b, "delta": s.delta, "eps": s.eps, "d_kl_seq": s.d_kl_seq,
            "d_tv_seq": s.d_tv_seq, "ratio": w / b[key] if b[key] > 0 else 0.0}


def evaluate_bound_mp(theta, *, key, V, T, iid_T=None):
    """:func:`evaluate_bound` in mpmath (the caller sets the precision); an independent
    re-implementation of the worst-case remainder and of the bounds, no allowance subtracted."""
    theta = np.asarray(theta, dtype=float)
    err, b = iid_tilt_worst_case_mp(theta, V, iid_T) if iid_T is not None else tabular_worst_case_mp(theta, V, T)
    return err, b[key]


# ==========================================================================
# lemmas (§4, §5, §6)
# ==========================================================================

def evaluate_advantage(theta, *, V, T, const):
    """``(max_{t,c} |g_t(c)|/TV(c), const)``."""
    mu, pi, R = pair_reward_from_flat(theta, V, T)
    return performance_difference(mu, pi, R).g_over_tv_max, const


def evaluate_master(theta, *, V, T):
    """``(|Error|, Σ_t 2‖g_t‖_∞ ‖d_t^π − d_t^μ‖_TV)`` for ``R ∈ [0,1]``."""
    mu, pi, R = pair_reward_from_flat(theta, V, T)
    return abs(trm_decomposition(mu, pi, R).remainder), performance_difference(mu, pi, R).master_bound


def evaluate_context_shift(theta, *, V, T):
    """``max_t ‖d_t^π − d_t^μ‖_TV / min(1, (t−1)ε, sqrt((t−1)δ/2), D_TV^seq, sqrt(D_KL^seq/2))`` as ``(lhs, rhs)``."""
    mu, pi = pair_from_flat(theta, V, T)
    s = divergence_summary(mu, pi)
    dpi, dmu = context_distributions(pi), context_distributions(mu)
    best = (0.0, 1.0)
    for t in range(1, T + 1):
        lhs = 0.5 * float(np.abs(dpi[t - 1] - dmu[t - 1]).sum())
        rhs = min(1.0, (t - 1) * s.eps, math.sqrt((t - 1) * s.delta / 2), s.d_tv_seq, math.sqrt(s.d_kl_seq / 2))
        if (rhs > 0 and lhs / rhs > best[0] / best[1]) or (rhs == 0 and lhs > 0):
            best = (lhs, rhs)
    return best


def evaluate_pinsker(theta, *, V, T):
    """``max_c TV(c)`` vs ``sqrt(KL(c)/2)`` at the context of the worst ratio."""
    mu, pi = pair_from_flat(theta, V, T)
    tv, kl = per_context_tv(mu, pi), per_context_kl(mu, pi)
    r = [(a / np.maximum(np.sqrt(b / 2), 1e-300)) for a, b in zip(tv, kl)]
    t = int(np.argmax([x.max() for x in r]))
    i = int(np.argmax(r[t]))
    return float(tv[t][i]), float(min(1.0, math.sqrt(kl[t][i] / 2)))


def evaluate_kl_seq(theta, *, V, T):
    """``D_KL^seq`` vs ``T δ``."""
    s = divergence_summary(*pair_from_flat(theta, V, T))
    return s.d_kl_seq, T * s.delta


def evaluate_length_neutral(theta, *, V, T):
    """``|Error|`` (any ``R ∈ [0,1]``) vs ``2 E_μ W``, ``W = Σ_t |ρ_t − 1| w_t``."""
    mu, pi, R = pair_reward_from_flat(theta, V, T)
    s = divergence_summary(mu, pi)
    w = length_neutral_weights(T, eps=s.eps, delta=s.delta)
    lr = token_log_ratio_tables(mu, pi)
    W = np.zeros(V ** T)
    for t in range(T):
        W.reshape(V ** (t + 1), -1)[...] += (np.abs(np.expm1(lr[t])) * w[t]).reshape(-1)[:, None]
    EW = float(np.exp(sequence_log_probs(mu)) @ W)
    return abs(trm_decomposition(mu, pi, R).remainder), 2.0 * EW


def sample_T_delta(rng):
    """``(log T, log δ)`` with the Pinsker–marginal caps inactive."""
    T = float(rng.integers(2, 5000))
    delta = float(np.exp(rng.uniform(np.log(1e-8), np.log(2.0 / (T - 1)))))
    return np.array([math.log(T), math.log(delta)])


def project_T_delta(theta):
    """Round ``T`` to an integer in ``[2, 8000]`` and keep ``δ ≤ 2/(T − 1)`` (caps inactive)."""
    T = float(np.clip(round(math.exp(min(theta[0], 9.0))), 2, 8000))
    dmax = 2.0 / (T - 1)
    return np.array([math.log(T), min(theta[1], math.log(dmax))])


def evaluate_pm_closed_form(theta):
    """``pm_kl(T, δ)`` vs ``(4/3) T^{3/2} δ`` (caps inactive)."""
    T = int(round(math.exp(theta[0])))
    delta = math.exp(theta[1])
    return trm_bounds(T, delta)["pm_kl"], pm_kl_closed_form(T, delta)


# ==========================================================================
# estimator bounds (§3)
# ==========================================================================

def evaluate_estimator_bound(theta, *, V, T, d, seed, which, C):
    """``(lhs, rhs)`` of one estimator bound of theory ``mismatch.md#estimators`` at the point of :func:`~.pairs.sample_linear`.

    ``which``: ``naive`` (‖bias‖ ≤ 2K·D_TV^seq), ``tis_excess`` (‖bias(seq TIS)‖ ≤ K E_μ(ρ − C)_+),
    ``tis_chi2`` (K E_μ(ρ − C)_+ ≤ K(1 + χ²_seq)/C), ``is_second_moment`` (E_μ ρ² ≤ (1 + max χ²(c))^T),
    or an estimator name (``seq_tis``, ``seq_mis``: Var ≤ C² E_μ‖f‖²); ``K = max_y ‖f(y)‖``.
    """
    lin, mu, R = linear_from_flat(theta, V, T, d, seed)
    g, mom = estimator_moments(mu, lin, R, C=C)
    f = estimator_values(mu, lin, R, C=C)["naive"]
    K = float(np.linalg.norm(f, axis=1).max())
    pmu = np.exp(sequence_log_probs(mu))
    rho = np.exp(sequence_log_probs(lin.tabular()) - sequence_log_probs(mu))
    if which == "naive":
        return mom["naive"].bias_norm, 2.0 * K * sequence_tv(mu, lin.tabular())
    if which == "tis_excess":
        return mom["seq_tis"].bias_norm, K * float(pmu @ np.maximum(rho - C, 0.0))
    if which == "tis_chi2":
        return K * float(pmu @ np.maximum(rho - C, 0.0)), K * (1.0 + sequence_chi2(mu, lin.tabular())) / C
    if which == "is_second_moment":
        chi2max = max(float(c.max()) for c in per_context_chi2(mu, lin.tabular()))
        return float(pmu @ rho ** 2), (1.0 + chi2max) ** T
    # variance of truncated estimators ≤ C² E_μ ‖f‖²
    Ef2 = float(pmu @ (f * f).sum(axis=1))
    return mom[which].variance, C ** 2 * Ef2


def estimator_bias_allowance(*, V, T, d, seed, C):
    """Forward-error bound on a float64 bias norm of the naive / sequence-TIS estimator.

    A bias ``E_μ[w f] − E_π[f]`` (``w ∈ {1, min(ρ, C)}``) sums ``2N`` terms, ``N = V^T``, whose
    magnitudes sum to at most ``(C + 1) K``; ``K = sup‖f‖ ≤ T · 2 max‖φ‖`` (``R ≤ 1``, score
    ``φ − E_π φ``) whatever θ, so the error is ``≤ 2N u (C + 1) K``; we allow twice that.  Needed
    because the bias is exactly 0 where the right-hand side is (no truncation, or ``π = μ``).
    """
    lin0 = LinearSoftmaxPolicy.random(V, T, d, seed)
    phi = max(float(np.linalg.norm(f, axis=-1).max()) for f in lin0.features)
    return 2.0 * 2 * V ** T * U64 * (C + 1.0) * (2.0 * T * phi)
