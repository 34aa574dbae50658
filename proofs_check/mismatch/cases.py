r"""Case generators of the identity claims: each returns ``(lhs, rhs, scale)`` arrays.

A case function ``f(rng, n)`` draws ``n`` random cases (policy pairs from all
four generators of theory ``mismatch.md#enumeration``, shapes from :data:`~proofs_check.mismatch.pairs.SHAPES`)
and evaluates both sides of one identity exactly, by enumeration or by a closed
form.  ``scale`` is the sum of the magnitudes of the terms entering the
identity, so that ``|lhs − rhs| / scale`` is a few float64 roundoffs whatever
the number or size of the terms (the engine's ``tol_mode="scale"``).

The identities (restated in ``docs/theory/mismatch.md``): gain = tangent − Δ,
the performance-difference forms, the chain rule of KL, ``E_μ|ρ_t − 1| = 2D̄_t``,
the future-TV identity, ``E_μ A = 0``, the worst-case reward, ``E_μ log ρ_geo``,
k1/k3 unbiasedness, sequence-IS unbiasedness, the exact MIS bias, the
no-sequence-only-control construction, TRM acceptance, the length trap, the
i.i.d.-tilt closed form and the count-state DP with a constant rule.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import rel_entr

from ..policies import (iid_tilt_pair, divergence_summary, sequence_kl, sequence_kl_chain,
                        sequence_log_probs)
from .decomposition import (abs_ratio_identity, future_tv_identity, performance_difference, remainder_coefficients,
                            trm_decomposition, worst_case_reward)
from .estimators import estimator_moments, estimator_values, length_trap_horizon
from .masks import proxy_acceptance, sequence_mis_mask, trm_acceptance
from .pairs import draw_case, draw_linear_case, kl_one_pair, violation_pair
from .tilt import count_state_tilt, iid_tilt_worst_case

__all__ = ["gain_tangent_cases", "pdi_gain_cases", "pdi_tangent_cases", "chain_rule_cases", "abs_ratio_cases",
           "future_tv_cases", "advantage_mean_cases", "worst_case_value_cases", "log_rho_geo_cases",
           "k1_k3_unbiased_cases", "seq_is_unbiased_cases", "mis_bias_cases", "no_sequence_control_cases",
           "trm_acceptance_cases", "length_trap_cases", "iid_closed_form_cases", "binomial_tilt_term_mass",
           "STATE_TILT_T", "state_tilt_constant_cases"]


def _scaled(lhs, rhs, scale):
    """One identity case ``(lhs, rhs, scale)`` for ``tol_mode="scale"``: the engine's error is
    ``|lhs − rhs| / scale``, ``scale`` the sum of the magnitudes of the terms entering the identity
    (so that the tolerance is a few float64 roundoffs whatever the number or size of the terms)."""
    return float(lhs), float(rhs), max(float(scale), 1e-300)


def _cols(out):
    """``[(lhs, rhs, scale), ...]`` → ``(lhs array, rhs array, scale array)``."""
    a = np.asarray(out, dtype=float).reshape(-1, 3)
    return a[:, 0], a[:, 1], a[:, 2]


def _over_pairs(one, rng, n):
    """``one(rng, mu, pi) -> (lhs, rhs, scale)`` on ``n`` pairs from :func:`draw_case` (case ``k``
    uses generator ``k mod 4``), as the three arrays of a case function."""
    return _cols([one(rng, *draw_case(rng, k)) for k in range(n)])


def _over_linear(one, rng, n):
    """``one(mu, lin, R, C) -> (lhs, rhs, scale)`` on ``n`` draws of :func:`draw_linear_case`."""
    return _cols([one(*draw_linear_case(rng, k)) for k in range(n)])


# ==========================================================================
# identities (§4)
# ==========================================================================

def gain_tangent_cases(rng, n):
    """``J(π) − J(μ) − L'(π)`` vs ``−Δ`` (Δ from the telescoped suffix products)."""
    return _over_pairs(_gain_tangent, rng, n)


def _gain_tangent(rng, mu, pi):
    d = trm_decomposition(mu, pi, rng.random(mu.V ** mu.T))
    return _scaled(d.remainder, -d.delta_term, abs(d.J_pi) + abs(d.J_mu) + abs(d.tangent) + abs(d.delta_term))


def pdi_gain_cases(rng, n):
    """``J(π) − J(μ)`` (sequence enumeration) vs ``Σ_t E_{d_t^π} g_t``."""
    return _over_pairs(_pdi_gain, rng, n)


def _pdi_gain(rng, mu, pi):
    R = rng.random(mu.V ** mu.T)
    d, p = trm_decomposition(mu, pi, R), performance_difference(mu, pi, R)
    return _scaled(d.gain, p.gain_pdi, abs(d.J_pi) + abs(d.J_mu))


def pdi_tangent_cases(rng, n):
    """``L'(π) = E_μ[R Σ_t(ρ_t − 1)]`` vs ``Σ_t E_{d_t^μ} g_t``."""
    return _over_pairs(_pdi_tangent, rng, n)


def _pdi_tangent(rng, mu, pi):
    R = rng.random(mu.V ** mu.T)
    d, p = trm_decomposition(mu, pi, R), performance_difference(mu, pi, R)
    return _scaled(d.tangent, p.tangent_pdi, abs(d.tangent) + abs(d.J_mu) + 1e-300)


def chain_rule_cases(rng, n):
    """``KL(P^μ ‖ P^π)`` (direct) vs ``Σ_t E_{d_t^μ} KL(c)``.

    ``scale = Σ_y P^μ(y)(|log P^μ(y)| + |log P^π(y)|)``: the direct form subtracts log-probabilities
    of that size before summing.
    """
    return _over_pairs(_chain_rule, rng, n)


def _chain_rule(rng, mu, pi):
    a, b = sequence_kl(mu, pi), sequence_kl_chain(mu, pi)
    lm, lp = sequence_log_probs(mu), sequence_log_probs(pi)
    return _scaled(a, b, float(np.exp(lm) @ (np.abs(lm) + np.abs(lp))) + abs(a) + abs(b))


def abs_ratio_cases(rng, n):
    """``E_μ|ρ_t − 1|`` vs ``2 D̄_t`` (every ``t``; one value per case: the worst ``t``)."""
    return _over_pairs(_abs_ratio, rng, n)


def _abs_ratio(rng, mu, pi):
    return _worst_entry(*abs_ratio_identity(mu, pi), 2.0)   # Σ_y P^μ (ρ_t + 1) = 2 bounds the terms


def future_tv_cases(rng, n):
    """``E[|1 − Π_{j>t} ρ_j| | c_{t+1}]`` vs ``2 TV(future | c_{t+1})`` (worst prefix)."""
    return _over_pairs(_future_tv, rng, n)


def _future_tv(rng, mu, pi):
    t = int(rng.integers(1, mu.T + 1))
    return _worst_entry(*future_tv_identity(mu, pi, t), 2.0)   # Σ_s (P^π(s|c) + P^μ(s|c)) = 2


def _worst_entry(lhs, rhs, scale):
    i = int(np.argmax(np.abs(lhs - rhs)))
    return _scaled(lhs[i], rhs[i], scale)


def advantage_mean_cases(rng, n):
    """``max_{t,c} |E_{v∼μ} A_t^μ(c, v)|`` vs 0 (scaled by ``max R``)."""
    return _over_pairs(_advantage_mean, rng, n)


def _advantage_mean(rng, mu, pi):
    R = rng.random(mu.V ** mu.T)
    return performance_difference(mu, pi, R).adv_mean_max, 0.0, max(float(R.max()), 1e-300)


def worst_case_value_cases(rng, n):
    """``Error(R = 1{c>0})`` recomputed by :func:`trm_decomposition` vs ``Σ_y c(y)_+``."""
    return _over_pairs(_worst_case_value, rng, n)


def _worst_case_value(rng, mu, pi):
    c = remainder_coefficients(mu, pi)
    d = trm_decomposition(mu, pi, (c > 0).astype(float))
    return _scaled(d.remainder, float(np.maximum(c, 0).sum()), abs(d.J_pi) + abs(d.J_mu) + abs(d.tangent))


def log_rho_geo_cases(rng, n):
    """``E_μ[log ρ_geo]`` vs ``−(1/T) Σ_t E_{d_t^μ} KL(c)`` (§3 of the theory page)."""
    return _over_pairs(_log_rho_geo, rng, n)


def _log_rho_geo(rng, mu, pi):
    lm, lp = sequence_log_probs(mu), sequence_log_probs(pi)
    pm = np.exp(lm)
    lhs = float(pm @ (lp - lm)) / mu.T
    rhs = -sequence_kl_chain(mu, pi) / mu.T
    return _scaled(lhs, rhs, float(pm @ (np.abs(lp) + np.abs(lm))) / mu.T + abs(rhs) + 1e-300)


def k1_k3_unbiased_cases(rng, n):
    """``E_{v∼μ}[k1] = E_{v∼μ}[k3] = KL(c)`` at every context.

    The reference ``KL(c) = Σ_v μ(v) log(μ(v)/π(v))`` is computed from the *probabilities* by
    :func:`scipy.special.rel_entr` (the definition), not by :func:`per_context_kl`, whose terms
    ``μ(e^Δ − 1 − Δ)`` are the k3 expression itself (issue 21 §10: the k3 half compared an
    expression with itself).  ``E_μ[k1] = Σ μ(−Δ)`` (``Δ = log π − log μ``) equals it by the
    definition of KL (a consistency check of log-probabilities against probabilities);
    ``E_μ[k3] = Σ μ(e^Δ − 1 − Δ)`` equals it because ``E_μ[ρ − 1] = Σ π − 1 = 0`` — the content.
    Per case: the context and estimator ``k ∈ {k1, k3}`` with the worst
    ``|E k − KL| / (E|k1 terms| + E k3 terms + KL)``, returned as ``(E k, KL, scale)``.
    """
    return _over_pairs(_k1_k3, rng, n)


def _k1_k3(rng, mu, pi):
    worst, case = -1.0, None
    for t in range(mu.T):
        pm = mu.probs(t)
        d = pi.log_probs(t) - mu.log_probs(t)
        kl = rel_entr(pm, np.exp(pi.log_probs(t))).sum(axis=1)
        k1 = (pm * -d).sum(axis=1)
        k3 = (pm * (np.expm1(d) - d)).sum(axis=1)
        scale = (pm * (np.abs(d) + np.exp(d) + 1.0)).sum(axis=1) + np.abs(kl)
        for est in (k1, k3):
            e = np.abs(est - kl) / scale
            i = int(np.argmax(e))
            if e[i] > worst:
                worst, case = float(e[i]), (float(est[i]), float(kl[i]), float(scale[i]))
    return case


# ==========================================================================
# estimator identities (§3)
# ==========================================================================

def seq_is_unbiased_cases(rng, n):
    """``E_μ[ρ(y) f(y)]`` vs ``g = E_π f`` (every coordinate; worst per case)."""
    return _over_linear(_seq_is_unbiased, rng, n)


def _seq_is_unbiased(mu, lin, R, C):
    g, mom = estimator_moments(mu, lin, R, C=C)
    e = mom["seq_is"].mean
    return _worst_entry(e, g, np.abs(g).max() + np.abs(e).max() + 1e-300)


def mis_bias_cases(rng, n):
    """MIS bias ``E_μ[est] − g`` vs ``−E_π[f 1{ρ > C}]`` (worst coordinate)."""
    return _over_linear(_mis_bias, rng, n)


def _mis_bias(mu, lin, R, C):
    g, mom = estimator_moments(mu, lin, R, C=C)
    f = estimator_values(mu, lin, R, C=C)["naive"]
    lr = sequence_log_probs(lin.tabular()) - sequence_log_probs(mu)
    ppi = np.exp(sequence_log_probs(lin.tabular()))
    rhs = -(ppi * (lr > math.log(C))) @ f
    return _worst_entry(mom["seq_mis"].bias, rhs, np.abs(g).max() + np.abs(rhs).max() + 1e-300)


# ==========================================================================
# constructions (§5 Proposition, §6 acceptance, §3 length trap) and closed forms (§2)
# ==========================================================================

def no_sequence_control_cases(rng, n):
    """KL = 1 at one context of μ-probability ``p``: ``(D_KL^seq, δ)`` vs ``(p, 1)``.

    ``p`` log-uniform in ``[1e-12, 0.5]``: ``D_KL^seq → 0`` while ``δ = 1``, so no
    ``f`` has ``δ ≤ f(D_KL^seq)`` (theory ``mismatch.md#bounds`` Proposition).  Two entries per case.
    """
    out = []
    for _ in range(n):
        p = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.5))))
        mu, pi = kl_one_pair(p)
        s = divergence_summary(mu, pi)
        out += [(s.d_kl_seq, p, p), (s.delta, 1.0, 1.0)]
    return _cols(out)


def trm_acceptance_cases(rng, n):
    """Exact TRM-Max acceptance vs ``(1 − p)^{T−1}``.

    V=2, i.i.d. sampler ``μ(1) = p``; ``π`` differs (KL > δ) exactly at contexts
    whose last token is 1.  Position ``t ≥ 2`` violates iff ``y_{t−1} = 1``
    (i.i.d., probability ``p``), so acceptance is ``(1 − p)^{T−1}``.
    """
    out = []
    for _ in range(n):
        T = int(rng.integers(2, 11))
        p = float(rng.uniform(0.01, 0.9))
        mu, pi, delta = violation_pair(p, T)
        acc = proxy_acceptance(mu, pi, delta).accept["trm_max"]
        out.append((acc, trm_acceptance(p, T - 1), 1.0))   # Σ of V^T probabilities = 1
    return _cols(out)


def length_trap_cases(rng, n):
    """Longest response accepted by sequence MIS at constant ratio ``ρ̄`` vs ``⌊T*⌋``."""
    out = []
    for _ in range(n):
        C = float(rng.uniform(1.5, 10.0))
        rho_bar = float(np.exp(rng.uniform(np.log(1.0005), np.log(1.05))))
        Tstar = length_trap_horizon(C, rho_bar)
        if abs(Tstar - round(Tstar)) < 1e-6:
            continue
        Tmax = int(Tstar) + 3
        lens = np.arange(1, Tmax + 1)
        mask = np.arange(Tmax)[None, :] < lens[:, None]
        # log-probabilities (≤ 0) with the per-token log-ratio log ρ̄ < 1: log π = log ρ̄ − 1, log μ = −1
        lp = np.where(mask, math.log(rho_bar) - 1.0, 0.0)
        acc = sequence_mis_mask(lp, np.where(mask, -1.0, 0.0), mask, C)
        longest = int(lens[acc].max())
        out.append((float(longest), float(math.floor(Tstar)), 1.0))   # integers: exact
    if not out:
        out = [(0.0, 0.0, 1.0)]
    return _cols(out)


def iid_closed_form_cases(rng, n):
    """i.i.d.-tilt worst-case remainder: multinomial closed form vs full enumeration."""
    out = []
    for _ in range(n):
        V, T = ((2, 8), (2, 12), (3, 5), (4, 4))[int(rng.integers(4))]
        m = rng.dirichlet(np.full(V, 2.0)); m = np.clip(m, 1e-6, None); m /= m.sum()
        z = np.log(m) + float(np.exp(rng.uniform(np.log(0.01), 0.0))) * rng.standard_normal(V)
        p = np.exp(z - z.max()); p /= p.sum()
        a = iid_tilt_worst_case(m, p, T).abs_error
        mu, pi = iid_tilt_pair(m, p, T)
        b = worst_case_reward(mu, pi).abs_error
        # Σ|terms| of Σ_n c(n)_± = Σ_n P^π(n) + P^μ(n)|1 + S(n)| ≤ 2 + E_μ|S| ≤ 2 + T Σ_v |π_v − μ_v|
        out.append(_scaled(a, b, 2.0 + T * float(np.abs(p - m).sum())))
    return _cols(out)


def binomial_tilt_term_mass(m: float, e: float, T: int) -> float:
    """``Σ_k P^π(k) + P^μ(k)|1 + S(k)|`` for the V = 2 i.i.d. tilt ``μ(1) = m``, ``π(1) = m + e``.

    The magnitudes of the terms of ``c(k) = P^π(k) − P^μ(k)(1 + S(k))``, ``S(k) = k(r_1 − 1) +
    (T − k)(r_0 − 1)``, from SciPy's binomial pmf (independent of the code under test).
    """
    from scipy.stats import binom
    k = np.arange(T + 1)
    S = k * (e / m) + (T - k) * (-e / (1 - m))
    return float(binom.pmf(k, T, m + e).sum() + (binom.pmf(k, T, m) * np.abs(1.0 + S)).sum())


STATE_TILT_T = (4, 16, 64, 512, 2048, 4096)


def state_tilt_constant_cases(rng, n, *, T_choices=STATE_TILT_T):
    """Count-state DP with the constant rule vs the i.i.d. closed form (T up to 4096).

    ``scale = T × Σ|terms|`` (:func:`binomial_tilt_term_mass`): the DP accumulates ``T`` steps of
    terms of that total size, so its rounding error grows like ``T u Σ|terms|``.
    """
    out = []
    for _ in range(n):
        T = int(rng.choice(T_choices))
        m = float(rng.uniform(0.1, 0.9))
        e = float(rng.uniform(0.0, 0.9)) * min(m, 1 - m)
        a = count_state_tilt(m, e, T, rule="constant").abs_error
        b = iid_tilt_worst_case([1 - m, m], [1 - m - e, m + e], T).abs_error
        out.append(_scaled(a, b, T * binomial_tilt_term_mass(m, e, T)))
    return _cols(out)
