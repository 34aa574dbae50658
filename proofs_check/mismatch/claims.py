"""Claims of the training–inference mismatch page (spec ``mismatch.md``); ids ``mismatch.*``.

* ``mismatch.identity.*`` — every identity of §4 (and the §3 estimator
  identities), exact by enumeration on random pairs from all four generators,
  ``V ∈ {2, 3, 4}``, several ``T``.  ``tol_mode="scale"``: each case returns
  ``(lhs, rhs, scale)`` with ``scale`` the sum of the magnitudes of the terms
  entering the identity (times the number of accumulated steps for the
  count-state DP), and ``tol = 1e-13`` (≈ 450 float64 roundoffs) whatever ``T``.
* ``mismatch.bound.<key>.<generator>`` — every bound of §5 as an inequality
  ``max_{R∈[0,1]} |Error| ≤ bound`` (worst-case reward, spec §2), searched
  over policy pairs from each generator; the engine reports the tightness
  ratio and the pair attaining it.  No allowance is subtracted: every float64
  violation is re-evaluated by a 50-digit mpmath re-implementation
  (``evaluate_bound_mp``); ``atol = MP_ATOL = 1e-30`` (mpmath rounding only), ``rtol = 0``.
* ``mismatch.lemma.*`` — the advantage lemma (paper constant 2 and the tight
  constant 1), context shift, master inequality, Pinsker, ``D_KL^seq ≤ Tδ``,
  length-neutral bound, the ``(4/3)T^{3/2}δ`` closed form.  Where no mpmath
  evaluator exists, ``atol`` is a stated forward-error bound
  (:func:`float_remainder_allowance`, :func:`estimator_bias_allowance`).
* ``mismatch.estimator.*`` — bias/variance bounds of §3.
* ``mismatch.scaling.*`` — horizon scaling of the worst-case remainder (i.i.d.
  tilt to T = 4096, random tilts, count-state tilts, a near-one-hot tilt whose
  remainder grows like T²) and of the bounds; update size and staleness (§8).
  Exactly computed curves are ``deterministic=True``.
* ``mismatch.staleness.*`` — a smaller step gives a smaller sampler–trainer KL
  (paired comparison, §8).
* ``mismatch.trm.*`` — the library's TRM-Max mask decides exactly like the rule
  ``max_t KL(c_t) ≤ δ`` (oracle KL computed in this file); how often the
  library's k2-max / k3-mean proxy masks admit a violating response
  (``expected="refuted"`` — ``p̂`` is the measurement).  Every trial draws a
  fresh policy pair.  TRM acceptance ``(1 − p)^T`` is
  ``mismatch.identity.trm_acceptance``.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import expit

from proofs_check.engine import ComparisonClaim, IdentityClaim, InequalityClaim, ProbabilityClaim, ScalingClaim, register
from proofs_check.mismatch import (abs_ratio_identity, future_tv_identity, performance_difference, remainder_coefficients,
                       trm_bounds, trm_bounds_from_policies, trm_decomposition, worst_case_reward)
from proofs_check.mismatch import masks
from proofs_check.mismatch.bounds import pm_kl_closed_form
from proofs_check.mismatch.estimators import estimator_moments, estimator_values, length_trap_horizon
from proofs_check.mismatch.masks import length_neutral_weights, proxy_acceptance, sequence_mis_mask, trm_acceptance
from proofs_check.mismatch.tilt import count_state_tilt, iid_tilt_worst_case
from proofs_check.policies import (GENERATORS, LinearSoftmaxPolicy, TabularPolicy, context_distributions, divergence_summary,
                       iid_tilt_pair, per_context_chi2, per_context_kl, per_context_tv, random_pair, sample_responses,
                       sequence_chi2, sequence_kl, sequence_kl_chain, sequence_log_probs, sequence_tv,
                       token_log_probs, token_log_ratio_tables)
from proofs_check.mismatch.staleness import run_sgd, staleness_kl

SRC = "Trust Region Masking for Long-Horizon LLM RL (arXiv 2512.23075)"
BLOG = "When Speed Kills Stability (Liu, Li et al., 2025 blog)"

#: (V, T) shapes used by the identity claims (spec §2 sizes).
SHAPES = ((2, 1), (2, 3), (2, 6), (3, 2), (3, 4), (4, 2), (4, 3))


# ==========================================================================
# random pairs
# ==========================================================================

def draw_pair(rng: np.random.Generator, generator: str, V: int, T: int):
    """A random pair from ``generator`` with a random mismatch level."""
    lvl = float(np.exp(rng.uniform(np.log(0.01), np.log(1.5))))
    if generator == "uniform":
        return random_pair("uniform", V, T, rng, sigma=lvl)
    if generator == "sparse":
        return random_pair("sparse", V, T, rng, n_flips=int(rng.integers(1, 4)),
                           p_mu=float(rng.uniform(0.5, 0.99)), p_pi=float(np.exp(rng.uniform(-9, -1))))
    if generator == "low_prob":
        return random_pair("low_prob", V, T, rng, tau=float(rng.uniform(0.05, 0.4)), sigma=lvl,
                           shift=float(rng.uniform(0, 2)))
    return random_pair("iid_tilt", V, T, rng, sigma=lvl)


def _case(rng, k):
    V, T = SHAPES[int(rng.integers(len(SHAPES)))]
    return draw_pair(rng, GENERATORS[k % len(GENERATORS)], V, T)


def _scaled(lhs, rhs, scale):
    """One identity case ``(lhs, rhs, scale)`` for ``tol_mode="scale"``: the engine's error is
    ``|lhs − rhs| / scale``, ``scale`` the sum of the magnitudes of the terms entering the identity
    (so that the tolerance is a few float64 roundoffs whatever the number or size of the terms)."""
    return float(lhs), float(rhs), max(float(scale), 1e-300)


def _cols(out):
    """``[(lhs, rhs, scale), ...]`` → ``(lhs array, rhs array, scale array)``."""
    a = np.asarray(out, dtype=float).reshape(-1, 3)
    return a[:, 0], a[:, 1], a[:, 2]


# ==========================================================================
# identities (§4)
# ==========================================================================

def gain_tangent_cases(rng, n):
    """``J(π) − J(μ) − L'(π)`` vs ``−Δ`` (Δ from the telescoped suffix products)."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        R = rng.random(mu.V ** mu.T)
        d = trm_decomposition(mu, pi, R)
        out.append(_scaled(d.remainder, -d.delta_term,
                           abs(d.J_pi) + abs(d.J_mu) + abs(d.tangent) + abs(d.delta_term)))
    return _cols(out)


def pdi_gain_cases(rng, n):
    """``J(π) − J(μ)`` (sequence enumeration) vs ``Σ_t E_{d_t^π} g_t``."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        R = rng.random(mu.V ** mu.T)
        d = trm_decomposition(mu, pi, R)
        p = performance_difference(mu, pi, R)
        out.append(_scaled(d.gain, p.gain_pdi, abs(d.J_pi) + abs(d.J_mu)))
    return _cols(out)


def pdi_tangent_cases(rng, n):
    """``L'(π) = E_μ[R Σ_t(ρ_t − 1)]`` vs ``Σ_t E_{d_t^μ} g_t``."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        R = rng.random(mu.V ** mu.T)
        d = trm_decomposition(mu, pi, R)
        p = performance_difference(mu, pi, R)
        out.append(_scaled(d.tangent, p.tangent_pdi, abs(d.tangent) + abs(d.J_mu) + 1e-300))
    return _cols(out)


def chain_rule_cases(rng, n):
    """``KL(P^μ ‖ P^π)`` (direct) vs ``Σ_t E_{d_t^μ} KL(c)``.

    ``scale = Σ_y P^μ(y)(|log P^μ(y)| + |log P^π(y)|)``: the direct form subtracts log-probabilities
    of that size before summing.
    """
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        a, b = sequence_kl(mu, pi), sequence_kl_chain(mu, pi)
        lm, lp = sequence_log_probs(mu), sequence_log_probs(pi)
        out.append(_scaled(a, b, float(np.exp(lm) @ (np.abs(lm) + np.abs(lp))) + abs(a) + abs(b)))
    return _cols(out)


def abs_ratio_cases(rng, n):
    """``E_μ|ρ_t − 1|`` vs ``2 D̄_t`` (every ``t``; one value per case: the worst ``t``)."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        lhs, rhs = abs_ratio_identity(mu, pi)
        i = int(np.argmax(np.abs(lhs - rhs)))
        out.append(_scaled(lhs[i], rhs[i], 2.0))   # Σ_y P^μ (ρ_t + 1) = 2 bounds the terms
    return _cols(out)


def future_tv_cases(rng, n):
    """``E[|1 − Π_{j>t} ρ_j| | c_{t+1}]`` vs ``2 TV(future | c_{t+1})`` (worst prefix)."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        t = int(rng.integers(1, mu.T + 1))
        lhs, rhs = future_tv_identity(mu, pi, t)
        i = int(np.argmax(np.abs(lhs - rhs)))
        out.append(_scaled(lhs[i], rhs[i], 2.0))   # Σ_s (P^π(s|c) + P^μ(s|c)) = 2
    return _cols(out)


def advantage_mean_cases(rng, n):
    """``max_{t,c} |E_{v∼μ} A_t^μ(c, v)|`` vs 0 (scaled by ``max R``)."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        R = rng.random(mu.V ** mu.T)
        out.append((performance_difference(mu, pi, R).adv_mean_max, 0.0, max(float(R.max()), 1e-300)))
    return _cols(out)


def worst_case_value_cases(rng, n):
    """``Error(R = 1{c>0})`` recomputed by :func:`trm_decomposition` vs ``Σ_y c(y)_+``."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        c = remainder_coefficients(mu, pi)
        R = (c > 0).astype(float)
        d = trm_decomposition(mu, pi, R)
        val = float(np.maximum(c, 0).sum())
        out.append(_scaled(d.remainder, val, abs(d.J_pi) + abs(d.J_mu) + abs(d.tangent)))
    return _cols(out)


def log_rho_geo_cases(rng, n):
    """``E_μ[log ρ_geo]`` vs ``−(1/T) Σ_t E_{d_t^μ} KL(c)`` (spec §3)."""
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        lr = sequence_log_probs(pi) - sequence_log_probs(mu)
        pm = np.exp(sequence_log_probs(mu))
        lhs = float(pm @ lr) / mu.T
        rhs = -sequence_kl_chain(mu, pi) / mu.T
        lm_abs = np.abs(sequence_log_probs(pi)) + np.abs(sequence_log_probs(mu))
        out.append(_scaled(lhs, rhs, float(pm @ lm_abs) / mu.T + abs(rhs) + 1e-300))
    return _cols(out)


def k1_k3_unbiased_cases(rng, n):
    """``E_{v∼μ}[k1] = E_{v∼μ}[k3] = KL(c)`` at every context.

    Per case: the context and estimator ``k ∈ {k1, k3}`` with the worst
    ``|E k − KL| / (E|k1 terms| + E k3 terms + KL)``, returned as ``(E k, KL, scale)``.
    """
    out = []
    for k in range(n):
        mu, pi = _case(rng, k)
        kl = per_context_kl(mu, pi)
        worst, case = -1.0, None
        for t in range(mu.T):
            pm = mu.probs(t)
            d = pi.log_probs(t) - mu.log_probs(t)
            k1 = (pm * -d).sum(axis=1)
            k3 = (pm * (np.expm1(d) - d)).sum(axis=1)
            scale = (pm * (np.abs(d) + np.exp(d) + 1.0)).sum(axis=1) + kl[t]
            for est in (k1, k3):
                e = np.abs(est - kl[t]) / scale
                i = int(np.argmax(e))
                if e[i] > worst:
                    worst, case = float(e[i]), (float(est[i]), float(kl[t][i]), float(scale[i]))
        out.append(case)
    return _cols(out)


# -- estimator identities ----------------------------------------------------

def _linear_case(rng, k, *, d=3):
    V, T = ((2, 3), (2, 5), (3, 2), (3, 3), (4, 2))[int(rng.integers(5))]
    lin = LinearSoftmaxPolicy.random(V, T, d, rng, scale=float(rng.uniform(0.5, 3.0)))
    gen = GENERATORS[k % len(GENERATORS)]
    if gen == "iid_tilt":   # tilt the sampler's logits uniformly across contexts
        z = rng.standard_normal(V) * float(np.exp(rng.uniform(np.log(0.02), np.log(1.0))))
        mu = TabularPolicy([lz + z for lz in lin.tabular().logits])
    else:
        from proofs_check.policies import low_probability_mismatch, sparse_mismatch, uniform_mismatch
        base = lin.tabular()
        if gen == "uniform":
            _, mu = uniform_mismatch(base, rng, sigma=float(np.exp(rng.uniform(np.log(0.02), 0.0))))
        elif gen == "sparse":
            mu, _ = sparse_mismatch(base, rng, n_flips=2)
        else:
            _, mu = low_probability_mismatch(base, rng, tau=0.3, sigma=0.5, shift=-1.0)
    R = rng.random(V ** T)
    C = float(rng.uniform(1.05, 4.0))
    return mu, lin, R, C


def seq_is_unbiased_cases(rng, n):
    """``E_μ[ρ(y) f(y)]`` vs ``g = E_π f`` (every coordinate; worst per case)."""
    out = []
    for k in range(n):
        mu, lin, R, C = _linear_case(rng, k)
        g, mom = estimator_moments(mu, lin, R, C=C)
        e = mom["seq_is"].mean
        i = int(np.argmax(np.abs(e - g)))
        out.append(_scaled(e[i], g[i], np.abs(g).max() + np.abs(e).max() + 1e-300))
    return _cols(out)


def mis_bias_cases(rng, n):
    """MIS bias ``E_μ[est] − g`` vs ``−E_π[f 1{ρ > C}]`` (worst coordinate)."""
    out = []
    for k in range(n):
        mu, lin, R, C = _linear_case(rng, k)
        g, mom = estimator_moments(mu, lin, R, C=C)
        f = estimator_values(mu, lin, R, C=C)["naive"]
        lr = sequence_log_probs(lin.tabular()) - sequence_log_probs(mu)
        ppi = np.exp(sequence_log_probs(lin.tabular()))
        rhs = -(ppi * (lr > math.log(C))) @ f
        lhs = mom["seq_mis"].bias
        i = int(np.argmax(np.abs(lhs - rhs)))
        out.append(_scaled(lhs[i], rhs[i], np.abs(g).max() + np.abs(rhs).max() + 1e-300))
    return _cols(out)


# -- constructions -------------------------------------------------------------

def _kl_one_pair(p: float, kl_target: float = 1.0):
    """V=2, T=2 pair: ``μ(y_1 = 1) = p``; at context ``y_1 = 1`` ``KL(μ‖π) = kl_target``, elsewhere 0."""
    z0 = np.array([[math.log1p(-p), math.log(p)]])
    m = 0.5

    def kl(q):
        return m * math.log(m / q) + (1 - m) * math.log((1 - m) / (1 - q)) - kl_target

    q = brentq(kl, 1e-300, 0.5)
    mu1 = np.zeros((2, 2))
    pi1 = np.array([[0.0, 0.0], [math.log(q), math.log1p(-q)]])
    return TabularPolicy([z0, mu1]), TabularPolicy([z0, pi1])


def no_sequence_control_cases(rng, n):
    """KL = 1 at one context of μ-probability ``p``: ``(D_KL^seq, δ)`` vs ``(p, 1)``.

    ``p`` log-uniform in ``[1e-12, 0.5]``: ``D_KL^seq → 0`` while ``δ = 1``, so no
    ``f`` has ``δ ≤ f(D_KL^seq)`` (spec §5 Proposition).  Two entries per case.
    """
    out = []
    for _ in range(n):
        p = float(np.exp(rng.uniform(np.log(1e-12), np.log(0.5))))
        mu, pi = _kl_one_pair(p)
        s = divergence_summary(mu, pi)
        out += [(s.d_kl_seq, p, p), (s.delta, 1.0, 1.0)]
    return _cols(out)


def violation_pair(p: float, T: int):
    """V=2 pair for the TRM acceptance check: i.i.d. sampler ``μ(1) = p``; ``π`` differs
    exactly at the contexts whose last token is 1.  Returns ``(mu, pi, delta)`` with
    ``δ`` half the smallest positive context KL, so those contexts violate."""
    mu = TabularPolicy.iid([1 - p, p], T)
    tabs = [np.array(z) for z in mu.logits]
    for t in range(1, T):
        last = np.arange(2 ** t) % 2 == 1
        tabs[t][last] = [math.log(0.5), math.log(0.5)] if abs(p - 0.5) > 0.2 else [0.0, 3.0]
    pi = TabularPolicy(tabs)
    kl = per_context_kl(mu, pi)
    delta = 0.5 * min(float(k[k > 0].min()) for k in kl[1:])
    return mu, pi, delta


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
        lp = np.where(mask, math.log(rho_bar), 0.0)
        acc = sequence_mis_mask(lp, np.zeros_like(lp), mask, C)
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


_ID = dict(tol=1e-13, tol_mode="scale", chunk_size=20, default_budget=200, quick_budget=40, role="statement",
           expected="holds", version=2)

#: the DP at T = 4096 costs ~0.3 s a case: fewer cases (every T of STATE_TILT_T still drawn ~10 times)
_ID_OVERRIDE = {"state_tilt_constant": dict(chunk_size=10, default_budget=60, quick_budget=20, version=3)}

for _id, _fn, _st, _label, _src in [
    ("gain_tangent_delta", gain_tangent_cases,
     "J(π) − J(μ) = L'(π) − Δ with Δ = E_μ[R Σ_t (ρ_t − 1)(1 − Π_{j>t} ρ_j)]", "CONFIRMED", "§4"),
    ("pdi_gain", pdi_gain_cases, "J(π) − J(μ) = Σ_t E_{d_t^π} g_t (performance difference)", "CONFIRMED", "§4"),
    ("pdi_tangent", pdi_tangent_cases, "L'(π) = Σ_t E_{d_t^μ} g_t", "CONFIRMED", "§4"),
    ("chain_rule", chain_rule_cases, "KL(P^μ ‖ P^π) = Σ_t E_{d_t^μ} KL(μ(·|c) ‖ π(·|c))", "CONFIRMED", "§1"),
    ("abs_ratio", abs_ratio_cases, "E_μ|ρ_t − 1| = 2 D̄_t for every t", "CONFIRMED", "§4"),
    ("future_tv", future_tv_cases, "E_μ[|1 − Π_{j>t} ρ_j| | c_{t+1}] = 2 TV(future | c_{t+1})", "CONFIRMED", "§4"),
    ("advantage_mean_zero", advantage_mean_cases, "E_{v∼μ} A_t^μ(c, v) = 0 at every context", "CONFIRMED", "§4"),
    ("worst_case_reward", worst_case_value_cases,
     "Error(R = 1{c > 0}) = Σ_y c(y)_+ = max_{R∈[0,1]} Error", "DERIVED", "§2"),
    ("log_rho_geo", log_rho_geo_cases, "E_μ[log ρ_geo] = −(1/T) Σ_t E_{d_t^μ} KL(c)", "CONFIRMED", "§3"),
    ("k1_k3_unbiased", k1_k3_unbiased_cases, "E_{v∼μ}[k1] = E_{v∼μ}[k3] = KL(c) per context", "CONFIRMED", "§3"),
    ("seq_is_unbiased", seq_is_unbiased_cases, "E_μ[ρ(y) f(y)] = E_π[f] = ∇J (sequence IS is unbiased)",
     "CONFIRMED", "§3"),
    ("mis_bias", mis_bias_cases, "bias of sequence MIS = −E_π[f 1{ρ > C}] exactly", "CONFIRMED", "§3"),
    ("no_sequence_only_control", no_sequence_control_cases,
     "KL = 1 at one context of μ-probability p gives D_KL^seq = p and δ = 1 (no δ ≤ f(D_KL^seq))",
     "CONFIRMED", "§5 Proposition"),
    ("trm_acceptance", trm_acceptance_cases,
     "TRM-Max acceptance under i.i.d. per-position violation probability p is (1 − p)^{#positions}",
     "CONFIRMED", "§6"),
    ("length_trap", length_trap_cases,
     "with constant per-token ratio ρ̄ > 1 sequence MIS accepts exactly the lengths T ≤ T* = log C / log ρ̄",
     "CONFIRMED", "§3"),
    ("iid_tilt_closed_form", iid_closed_form_cases,
     "i.i.d. tilt: max_R |Error| = Σ_n c(n)_+ over multinomial counts equals the enumeration", "DERIVED", "§2"),
    ("state_tilt_constant", state_tilt_constant_cases,
     "count-state DP with a constant tilt reproduces the i.i.d. closed form (T ≤ 4096)", "DERIVED", "§2"),
]:
    register(IdentityClaim(
        id=f"mismatch.identity.{_id}", statement=_st,
        source=f"{SRC if _src.startswith('§4') or _src.startswith('§5') or _src.startswith('§6') else BLOG}; "
               f"spec mismatch.md {_src}",
        label=_label, params={"shapes": [list(s) for s in SHAPES], "generators": list(GENERATORS),
                              "error": "|lhs − rhs| / (sum of magnitudes of the terms)"},
        fn=_fn, **{**_ID, **_ID_OVERRIDE.get(_id, {})}))


# ==========================================================================
# bounds (§5) under the worst-case reward
# ==========================================================================

def _n_logits(V, T):
    return sum(V ** t * V for t in range(T))


def _split(theta, V, T):
    n = _n_logits(V, T)
    return TabularPolicy.from_flat(theta[:n], V, T), TabularPolicy.from_flat(theta[n:2 * n], V, T)


def sample_pair(rng, *, generator, V, T, iid_T=None):
    """A starting point: flat ``(mu logits, pi logits)`` (token logits for ``iid_tilt``)."""
    mu, pi = draw_pair(rng, generator, V, T if iid_T is None else 1)
    if iid_T is not None:
        return np.concatenate([mu.logits[0][0], pi.logits[0][0]])
    return np.concatenate([mu.flat_logits(), pi.flat_logits()])


def clip_logits(theta, *, bound=30.0):
    """Keep logits finite and moderate during ascent."""
    return np.clip(theta, -bound, bound)


def _tilt_probs(theta, V):
    a, b = theta[:V], theta[V:2 * V]
    m = np.exp(a - a.max()); m /= m.sum()
    p = np.exp(b - b.max()); p /= p.sum()
    return m, p


#: Allowance of the bound claims (``atol``; ``rtol = 0``): every float64 violation is re-evaluated
#: by the 50-digit mpmath evaluator below, with the same allowance.  50-digit arithmetic on
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
        m, p = _tilt_probs(theta, V)
        if np.any(m < 1e-300) or np.any(p < 1e-300):
            return 0.0, 1.0   # a token probability underflows: outside the domain (strictly positive pairs)
        r = iid_tilt_worst_case(m, p, iid_T)
        return r.abs_error, r.bounds[key]
    mu, pi = _split(theta, V, T)
    return worst_case_reward(mu, pi).abs_error, trm_bounds_from_policies(mu, pi)[key]


def describe_pair(theta, *, key, V, T, iid_T=None, digits=4):
    """A human-readable rendering of the attaining pair."""
    if iid_T is not None:
        m, p = _tilt_probs(theta, V)
        r = iid_tilt_worst_case(m, p, iid_T)
        return {"V": V, "T": iid_T, "kind": "iid_tilt", "mu_token": np.round(m, digits).tolist(),
                "pi_token": np.round(p, digits).tolist(), "abs_error": r.abs_error, "bounds": r.bounds,
                "delta": r.delta, "eps": r.eps, "ratio": r.abs_error / r.bounds[key] if r.bounds[key] > 0 else 0.0}
    mu, pi = _split(theta, V, T)
    s = divergence_summary(mu, pi)
    b = trm_bounds_from_policies(mu, pi)
    w = worst_case_reward(mu, pi).abs_error
    return {"V": V, "T": T, "kind": "tabular",
            "mu_probs": [np.round(mu.probs(t), digits).tolist() for t in range(T)],
            "pi_probs": [np.round(pi.probs(t), digits).tolist() for t in range(T)],
            "abs_error": w, "bounds": b, "delta": s.delta, "eps": s.eps, "d_kl_seq": s.d_kl_seq,
            "d_tv_seq": s.d_tv_seq, "ratio": w / b[key] if b[key] > 0 else 0.0}


# -- high-precision re-evaluation of a candidate counterexample (verification.md §3) ------------

def _mp_bounds(T, delta, eps, d_kl_seq, d_tv_seq, dbar):
    """:func:`trm_bounds` in mpmath arithmetic (current precision)."""
    import mpmath as mp

    def m(u):
        return mp.mpf(1) if u > 1 else u

    sq = mp.fsum(m(mp.sqrt((t - 1) * delta / 2)) for t in range(1, T + 1))
    out = {"classical": 2 * T * (T - 1) * eps ** 2,
           "pm_kl": 4 * m(mp.sqrt(delta / 2)) * sq,
           "pm_tv": 4 * m(eps) * sq,
           "mix_kl": 4 * T * m(mp.sqrt(delta / 2)) * m(mp.sqrt(d_kl_seq / 2)),
           "mix_tv": 4 * T * m(eps) * m(d_tv_seq),
           "coupling": 4 * m(eps) * mp.fsum(m((t - 1) * eps) for t in range(1, T + 1)),
           "adaptive": 4 * mp.fsum(dbar[t - 1] * min(mp.mpf(1), (T - t) * eps, mp.sqrt((T - t) * delta / 2))
                                   for t in range(1, T + 1))}
    out["unified"] = min(out.values())
    return out


def _mp_tabular(theta, V, T):
    """Worst-case |Error| and every bound for a tabular pair, in mpmath (enumeration)."""
    import itertools

    import mpmath as mp
    n = _n_logits(V, T)

    def tables(x):
        out, k = [], 0
        for t in range(T):
            rows = []
            for r in range(V ** t):
                z = [mp.mpf(float(v)) for v in x[k + r * V:k + (r + 1) * V]]
                lse = mp.log(mp.fsum(mp.exp(v) for v in z))
                rows.append([v - lse for v in z])
            out.append(rows)
            k += V ** t * V
        return out

    lm, lp = tables(theta[:n]), tables(theta[n:2 * n])
    c_pos = c_neg = mp.mpf(0)
    d_kl = d_tv = mp.mpf(0)
    eps = delta = mp.mpf(0)
    dbar = [mp.mpf(0)] * T
    ctx_mu = [dict() for _ in range(T)]
    for y in itertools.product(range(V), repeat=T):
        row, lmu, lpi, tang = 0, mp.mpf(0), mp.mpf(0), mp.mpf(0)
        for t, v in enumerate(y):
            ctx_mu[t][row] = mp.exp(lmu)
            lmu += lm[t][row][v]
            lpi += lp[t][row][v]
            tang += mp.exp(lp[t][row][v] - lm[t][row][v]) - 1
            row = row * V + v
        pm, pp = mp.exp(lmu), mp.exp(lpi)
        c = pp - pm * (1 + tang)
        c_pos += max(c, 0)
        c_neg += max(-c, 0)
        d_kl += pm * (lmu - lpi)
        d_tv += abs(pp - pm) / 2
    for t in range(T):
        for r, w in ctx_mu[t].items():
            pm_r = [mp.exp(v) for v in lm[t][r]]
            pp_r = [mp.exp(v) for v in lp[t][r]]
            tv = mp.fsum(abs(a - b) for a, b in zip(pp_r, pm_r)) / 2
            kl = mp.fsum(a * (la - lb) for a, la, lb in zip(pm_r, lm[t][r], lp[t][r]))
            eps, delta = max(eps, tv), max(delta, kl)
            dbar[t] += w * tv
    return max(c_pos, c_neg), _mp_bounds(T, delta, eps, d_kl, min(d_tv, mp.mpf(1)), dbar)


def _mp_iid(theta, V, T):
    import mpmath as mp
    a = [mp.mpf(float(v)) for v in theta[:V]]
    b = [mp.mpf(float(v)) for v in theta[V:2 * V]]
    la = mp.log(mp.fsum(mp.exp(v) for v in a))
    lb = mp.log(mp.fsum(mp.exp(v) for v in b))
    m = [mp.exp(v - la) for v in a]
    p = [mp.exp(v - lb) for v in b]
    from proofs_check.mismatch.tilt import compositions
    cp = cn = tv_seq = mp.mpf(0)
    for nvec in compositions(T, V):
        coef = mp.factorial(T) / mp.fprod(mp.factorial(int(k)) for k in nvec)
        Pm = coef * mp.fprod(mi ** int(k) for mi, k in zip(m, nvec))
        Pp = coef * mp.fprod(pi ** int(k) for pi, k in zip(p, nvec))
        S = mp.fsum(int(k) * (pi / mi - 1) for pi, mi, k in zip(p, m, nvec))
        c = Pp - Pm * (1 + S)
        cp += max(c, 0)
        cn += max(-c, 0)
        tv_seq += abs(Pp - Pm) / 2
    delta = mp.fsum(mi * mp.log(mi / pi) for mi, pi in zip(m, p))
    eps = mp.fsum(abs(pi - mi) for mi, pi in zip(m, p)) / 2
    return max(cp, cn), _mp_bounds(T, delta, eps, T * delta, min(tv_seq, mp.mpf(1)), [eps] * T)


def evaluate_bound_mp(theta, *, key, V, T, iid_T=None):
    """:func:`evaluate_bound` in mpmath (the caller sets the precision); an independent
    re-implementation of the worst-case remainder and of the bounds, no allowance subtracted."""
    theta = np.asarray(theta, dtype=float)
    err, b = _mp_iid(theta, V, iid_T) if iid_T is not None else _mp_tabular(theta, V, T)
    return err, b[key]


BOUND_SHAPE = {"uniform": (2, 3), "sparse": (2, 3), "low_prob": (3, 2), "iid_tilt": (2, None)}
IID_T = 32

for _key in ("classical", "pm_kl", "pm_tv", "mix_kl", "mix_tv", "coupling", "adaptive", "unified"):
    for _gen in GENERATORS:
        _V, _T = BOUND_SHAPE[_gen]
        _kw = dict(V=_V, T=_T, iid_T=IID_T if _gen == "iid_tilt" else None)
        register(InequalityClaim(
            id=f"mismatch.bound.{_key}.{_gen}",
            statement=f"max_(R∈[0,1]) |J(π) − J(μ) − L'(π)| ≤ {_key} bound (KL+TV measured)",
            source=f"{SRC}; spec mismatch.md §5",
            label="CONFIRMED",
            params={"key": _key, "generator": _gen, "V": _V, "T": _T if _T else IID_T,
                    "search": "random pairs from the generator, then local ascent on all logits"},
            sample=functools.partial(sample_pair, generator=_gen, **_kw),
            evaluate=functools.partial(evaluate_bound, key=_key, **_kw),
            project=clip_logits,
            describe_point=functools.partial(describe_pair, key=_key, **_kw),
            evaluate_mp=functools.partial(evaluate_bound_mp, key=_key, **_kw),
            atol=MP_ATOL, rtol=0.0, role="statement", expected="holds", version=2,
            step=0.3, chunk_size=100, default_budget=1_000, quick_budget=200,
            notes="tightness = worst-case |Error| / bound; the worst-case reward is R = 1{c > 0}; "
                  "float64 violations are confirmed or rejected in mpmath (atol = MP_ATOL, rtol = 0)"))


# ==========================================================================
# lemmas
# ==========================================================================

def sample_pair_reward(rng, *, V, T):
    """``(mu logits, pi logits, reward logits)``; ``R = sigmoid(reward logits)``."""
    g = GENERATORS[int(rng.integers(3))]
    mu, pi = draw_pair(rng, g, V, T)
    return np.concatenate([mu.flat_logits(), pi.flat_logits(), 3.0 * rng.standard_normal(V ** T)])


def _split_reward(theta, V, T):
    mu, pi = _split(theta, V, T)
    return mu, pi, expit(theta[2 * _n_logits(V, T):])


def evaluate_advantage(theta, *, V, T, const):
    """``(max_{t,c} |g_t(c)|/TV(c), const)``."""
    mu, pi, R = _split_reward(theta, V, T)
    return performance_difference(mu, pi, R).g_over_tv_max, const


def evaluate_master(theta, *, V, T):
    """``(|Error|, Σ_t 2‖g_t‖_∞ ‖d_t^π − d_t^μ‖_TV)`` for ``R ∈ [0,1]``."""
    mu, pi, R = _split_reward(theta, V, T)
    return abs(trm_decomposition(mu, pi, R).remainder), performance_difference(mu, pi, R).master_bound


def evaluate_context_shift(theta, *, V, T):
    """``max_t ‖d_t^π − d_t^μ‖_TV / min(1, (t−1)ε, sqrt((t−1)δ/2), D_TV^seq, sqrt(D_KL^seq/2))`` as ``(lhs, rhs)``."""
    mu, pi = _split(theta, V, T)
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
    mu, pi = _split(theta, V, T)
    tv, kl = per_context_tv(mu, pi), per_context_kl(mu, pi)
    r = [(a / np.maximum(np.sqrt(b / 2), 1e-300)) for a, b in zip(tv, kl)]
    t = int(np.argmax([x.max() for x in r]))
    i = int(np.argmax(r[t]))
    return float(tv[t][i]), float(min(1.0, math.sqrt(kl[t][i] / 2)))


def evaluate_kl_seq(theta, *, V, T):
    """``D_KL^seq`` vs ``T δ``."""
    s = divergence_summary(*_split(theta, V, T))
    return s.d_kl_seq, T * s.delta


def evaluate_length_neutral(theta, *, V, T):
    """``|Error|`` (any ``R ∈ [0,1]``) vs ``2 E_μ W``, ``W = Σ_t |ρ_t − 1| w_t``."""
    mu, pi, R = _split_reward(theta, V, T)
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
    T = float(np.clip(round(math.exp(min(theta[0], 9.0))), 2, 8000))
    dmax = 2.0 / (T - 1)
    return np.array([math.log(T), min(theta[1], math.log(dmax))])


def evaluate_pm_closed_form(theta):
    """``pm_kl(T, δ)`` vs ``(4/3) T^{3/2} δ`` (caps inactive)."""
    T = int(round(math.exp(theta[0])))
    delta = math.exp(theta[1])
    return trm_bounds(T, delta)["pm_kl"], pm_kl_closed_form(T, delta)


_L = dict(chunk_size=100, default_budget=1_000, quick_budget=200, step=0.3, role="statement", expected="holds")
_sh = {"V": 2, "T": 3}
register(InequalityClaim(
    id="mismatch.lemma.advantage_paper",
    statement="|g_t(c)| ≤ 2 TV(c) for R ∈ [0,1] (the paper's constant)",
    source=f"{SRC}; spec mismatch.md §4", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair_reward, **_sh),
    evaluate=functools.partial(evaluate_advantage, const=2.0, **_sh), project=clip_logits,
    notes="the worst ratio found is ≈ 1/2 of the bound: the factor-2 slack", **_L))
register(InequalityClaim(
    id="mismatch.lemma.advantage_tight",
    statement="|g_t(c)| ≤ TV(c) for R ∈ [0,1] (the constant 1 suffices)",
    source=f"{SRC}; spec mismatch.md §4", label="DERIVED", params=_sh,
    sample=functools.partial(sample_pair_reward, **_sh),
    evaluate=functools.partial(evaluate_advantage, const=1.0, **_sh), project=clip_logits,
    notes="A ∈ [−1, 1] and Σ_v (π − μ) A = Σ (π − μ)(A − a) for any a; take a the midpoint", **_L))
register(InequalityClaim(
    id="mismatch.lemma.master",
    statement="|Error| ≤ Σ_t 2 ‖g_t‖_∞ ‖d_t^π − d_t^μ‖_TV",
    source=f"{SRC}; spec mismatch.md §4", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair_reward, **_sh),
    evaluate=functools.partial(evaluate_master, **_sh), project=clip_logits,
    atol=float_remainder_allowance(**_sh), version=2, **_L))
register(InequalityClaim(
    id="mismatch.lemma.context_shift",
    statement="‖d_t^π − d_t^μ‖_TV ≤ min(1, (t−1)ε, sqrt((t−1)δ/2), D_TV^seq, sqrt(D_KL^seq/2))",
    source=f"{SRC}; spec mismatch.md §4", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair, generator="uniform", V=2, T=3),
    evaluate=functools.partial(evaluate_context_shift, **_sh), project=clip_logits, **_L))
register(InequalityClaim(
    id="mismatch.lemma.pinsker",
    statement="TV(c) ≤ min(1, sqrt(KL(c)/2)) at every context",
    source="Pinsker's inequality; spec mismatch.md §4", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair, generator="uniform", V=2, T=3),
    evaluate=functools.partial(evaluate_pinsker, **_sh), project=clip_logits, **_L))
register(InequalityClaim(
    id="mismatch.lemma.kl_seq_le_T_delta",
    statement="D_KL^seq ≤ T δ",
    source=f"{SRC}; spec mismatch.md §4", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair, generator="uniform", V=2, T=3),
    evaluate=functools.partial(evaluate_kl_seq, **_sh), project=clip_logits, **_L))
register(InequalityClaim(
    id="mismatch.lemma.length_neutral",
    statement="|Error| ≤ 2 E_μ W, W = Σ_t |ρ_t − 1| min(1, (T−t)ε, sqrt((T−t)δ/2))",
    source=f"{SRC}; spec mismatch.md §6", label="CONFIRMED", params=_sh,
    sample=functools.partial(sample_pair_reward, **_sh),
    evaluate=functools.partial(evaluate_length_neutral, **_sh), project=clip_logits,
    atol=float_remainder_allowance(**_sh), version=2, **_L))
register(InequalityClaim(
    id="mismatch.lemma.pm_kl_closed_form",
    statement="4 sqrt(δ/2) Σ_t sqrt((t−1)δ/2) ≤ (4/3) T^{3/2} δ when the caps are inactive",
    source=f"{SRC}; spec mismatch.md §5", label="CONFIRMED", params={"T": "2..8000"},
    sample=sample_T_delta, evaluate=evaluate_pm_closed_form, project=project_T_delta,
    chunk_size=100, default_budget=1_000, quick_budget=200, step=0.5, role="statement", expected="holds"))


# ==========================================================================
# estimator bounds (§3)
# ==========================================================================

def sample_linear(rng, *, V, T, d):
    """``(θ (d), sampler logit offset (flat), reward logits (V**T))``."""
    off = float(np.exp(rng.uniform(np.log(0.02), np.log(1.5)))) * rng.standard_normal(_n_logits(V, T))
    return np.concatenate([rng.standard_normal(d) * float(rng.uniform(0.3, 3.0)), off,
                           3.0 * rng.standard_normal(V ** T)])


def _linear_from(theta, V, T, d, seed):
    lin0 = LinearSoftmaxPolicy.random(V, T, d, seed)
    lin = lin0.with_theta(theta[:d])
    n = _n_logits(V, T)
    off = theta[d:d + n]
    mu = TabularPolicy.from_flat(lin.tabular().flat_logits() + off, V, T)
    R = expit(theta[d + n:])
    return lin, mu, R


def evaluate_estimator_bound(theta, *, V, T, d, seed, which, C):
    lin, mu, R = _linear_from(theta, V, T, d, seed)
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


_E = {"V": 2, "T": 4, "d": 3, "seed": 7}


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


for _w, _st in [("naive", "‖bias(naive)‖ ≤ 2 sup‖f‖ TV(P^π, P^μ)"),
                ("tis_excess", "‖bias(seq TIS)‖ ≤ K E_μ[(ρ − C)_+], K = sup‖f‖"),
                ("tis_chi2", "K E_μ[(ρ − C)_+] ≤ K (1 + χ²_seq)/C"),
                ("is_second_moment", "E_μ ρ² ≤ (1 + max_c χ²(c))^T"),
                ("seq_tis", "Var(seq TIS) ≤ C² E_μ‖f‖²"),
                ("seq_mis", "Var(seq MIS) ≤ C² E_μ‖f‖²")]:
    register(InequalityClaim(
        id=f"mismatch.estimator.{_w}", statement=_st, source=f"{BLOG}; spec mismatch.md §3",
        label="CONFIRMED", params={**_E, "C": 2.0, "policy": "LinearSoftmaxPolicy (shared θ)"},
        sample=functools.partial(sample_linear, V=_E["V"], T=_E["T"], d=_E["d"]),
        evaluate=functools.partial(evaluate_estimator_bound, which=_w, C=2.0, **_E),
        atol=estimator_bias_allowance(C=2.0, **_E) if _w in ("naive", "tis_excess") else 0.0,
        version=2 if _w in ("naive", "tis_excess") else 1, project=clip_logits, **_L))


# ==========================================================================
# horizon scaling
# ==========================================================================

T_GRID = (8, 16, 32, 64, 128, 256, 512, 1024)
T_GRID_LONG = (8, 32, 128, 512, 1024, 2048, 4096)


def iid_tilt_curve(rng, n, *, quantity, T_grid, m1=0.5, tilt=0.01, random=False):
    """``(n, len(T_grid))``: worst-case ``|Error|`` (or a bound) of the i.i.d. tilt vs ``T``.

    With ``random=True`` each replicate draws ``μ(1) ∈ U(0.2, 0.8)`` and a tilt
    in ``U(0.003, 0.02)``; otherwise the spec's ``μ = (½, ½)``, ``π = (½ + 0.01, ½ − 0.01)``.
    """
    out = np.empty((n, len(T_grid)))
    for i in range(n):
        m, e = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.003, 0.02))) if random else (m1, tilt)
        for j, T in enumerate(T_grid):
            r = iid_tilt_worst_case([1 - m, m], [1 - m - e, m + e], T)
            out[i, j] = r.abs_error if quantity == "abs_error" else r.bounds[quantity]
    return out


def state_tilt_curve(rng, n, *, rule, T_grid, m=0.5, eps0=0.01):
    """Count-state tilt: worst case over count rewards vs ``T`` (a lower bound on max_R |Error|)."""
    out = np.empty((n, len(T_grid)))
    for i in range(n):
        for j, T in enumerate(T_grid):
            out[i, j] = count_state_tilt(m, eps0, T, rule=rule).abs_error
    return out


#: deterministic quantities (exact closed forms / exact-gradient runs; the rng is unused): one replicate
_S = dict(chunk_size=1, default_budget=1, quick_budget=1, deterministic=True, version=2)
_HOLDS = dict(role="statement", expected="holds")
_MEASURE = dict(role="measurement", expected=None)
register(ScalingClaim(
    id="mismatch.scaling.iid_tilt_remainder",
    statement="i.i.d. tilt μ=(½,½), π=(½+0.01,½−0.01): worst-case |Error| grows like T (exponent ∈ [0.9, 1.1]), T = 8…1024",
    source="spec mismatch.md §5 (reference results of our own exact runs)", label="DERIVED",
    params={"m1": 0.5, "tilt": 0.01, "T": list(T_GRID)},
    fn=functools.partial(iid_tilt_curve, quantity="abs_error", T_grid=T_GRID), x=T_GRID,
    exponent_lo=0.9, exponent_hi=1.1, **_S, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.iid_tilt_remainder_4096",
    statement="the same to T = 4096: exponent ∈ [0.9, 1.1], below the bounds' 3/2",
    source="spec mismatch.md §5", label="DERIVED", params={"m1": 0.5, "tilt": 0.01, "T": list(T_GRID_LONG)},
    fn=functools.partial(iid_tilt_curve, quantity="abs_error", T_grid=T_GRID_LONG), x=T_GRID_LONG,
    exponent_lo=0.9, exponent_hi=1.1, **_S, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.iid_tilt_random",
    statement="random i.i.d. tilts (μ(1) ∈ [0.2, 0.8], tilt ∈ [0.003, 0.02]): worst-case |Error| exponent ∈ [0.85, 1.15]",
    source="spec mismatch.md §5 (OPEN horizon question)", label="OPEN", params={"T": list(T_GRID)},
    fn=functools.partial(iid_tilt_curve, quantity="abs_error", T_grid=T_GRID, random=True), x=T_GRID,
    exponent_lo=0.85, exponent_hi=1.15, chunk_size=4, default_budget=16, quick_budget=4, **_MEASURE))
register(ScalingClaim(
    id="mismatch.scaling.pm_kl_bound",
    statement="the Pinsker–marginal KL bound grows like T^{3/2} at fixed δ (exponent ∈ [1.4, 1.55])",
    source=f"{SRC}; spec mismatch.md §5", label="CONFIRMED", params={"m1": 0.5, "tilt": 0.01, "T": list(T_GRID_LONG)},
    fn=functools.partial(iid_tilt_curve, quantity="pm_kl", T_grid=T_GRID_LONG), x=T_GRID_LONG,
    exponent_lo=1.4, exponent_hi=1.55, **_S, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.classical_bound",
    statement="the classical bound grows like T² (exponent ∈ [1.95, 2.05])",
    source=f"{SRC}; spec mismatch.md §5", label="CONFIRMED", params={"m1": 0.5, "tilt": 0.01, "T": list(T_GRID_LONG)},
    fn=functools.partial(iid_tilt_curve, quantity="classical", T_grid=T_GRID_LONG), x=T_GRID_LONG,
    exponent_lo=1.95, exponent_hi=2.05, **_S, **_HOLDS))
T_GRID_NEAR = (16, 32, 64, 128, 256, 512, 1024, 2048)


def near_deterministic_curve(rng, n, *, a=1e-9, eps=1e-6, T_grid=T_GRID_NEAR):
    """``μ = (1 − a, a)``, ``π = (1 − a − ε, a + ε)`` i.i.d.: worst-case ``|Error|`` vs ``T``."""
    row = [iid_tilt_worst_case([1 - a, a], [1 - a - eps, a + eps], T).abs_error for T in T_grid]
    return np.tile(row, (n, 1))


register(ScalingClaim(
    id="mismatch.scaling.near_deterministic_tilt",
    statement="near-one-hot i.i.d. tilt μ=(1−a, a), π=(1−a−ε, a+ε), a=1e-9, ε=1e-6: worst-case |Error| grows "
              "like T² (exponent ∈ [1.95, 2.05]) while Tε ≪ 1 — it equals T(T−1)ε², half the classical bound",
    source="our search (engine's worst point of mismatch.bound.unified.iid_tilt); spec mismatch.md §5 OPEN question",
    label="DERIVED", params={"a": 1e-9, "eps": 1e-6, "T": list(T_GRID_NEAR)},
    fn=near_deterministic_curve, x=T_GRID_NEAR, exponent_lo=1.95, exponent_hi=2.05,
    notes="faster than T^{3/2} in T at a fixed pair; in δ terms (δ ≈ ε here) it stays far below pm_kl", **_S, **_HOLDS))
for _rule in ("majority", "contrarian", "alternating"):
    register(ScalingClaim(
        id=f"mismatch.scaling.state_tilt_{_rule}",
        statement=f"count-state tilt ({_rule}): worst case over count rewards grows no faster than T^{{3/2}} "
                  "(exponent ≤ 1.5), T = 8…4096",
        source="spec mismatch.md §5 (OPEN: does any family attain T^{3/2}?)", label="OPEN",
        params={"m": 0.5, "eps0": 0.01, "rule": _rule, "T": list(T_GRID_LONG)},
        fn=functools.partial(state_tilt_curve, rule=_rule, T_grid=T_GRID_LONG), x=T_GRID_LONG,
        exponent_lo=-1.0, exponent_hi=1.5,
        notes="a lower bound on max_R |Error| (rewards restricted to functions of the final count)", **_S, **_MEASURE))


# ==========================================================================
# update size and staleness (§8)
# ==========================================================================

K_GRID = (1, 2, 4, 8, 16)
B_GRID = (4, 8, 16, 32, 64)
ETA_GRID = (0.0125, 0.025, 0.05, 0.1)
_TOY = {"V": 3, "T": 2, "toy_seed": 0}


def _toy(seed=0, V=3, T=2):
    pol = TabularPolicy.random(V, T, seed)
    R = np.random.default_rng(seed + 1).random(V ** T)
    return pol.flat_logits(), R


def drift_k_curve(rng, n, *, eta=0.05, steps=40):
    """Exact-gradient SGD: ``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` vs ``k`` (deterministic)."""
    th, R = _toy()
    tr = run_sgd(th, R, 3, 2, eta=eta, steps=steps, mode="exact")
    row = [staleness_kl(tr, k, burn_in=16 - k) for k in K_GRID]
    return np.tile(row, (n, 1))


def drift_eta_curve(rng, n, *, steps=8):
    """Exact-gradient SGD: one-step KL vs ``η``."""
    th, R = _toy()
    row = [staleness_kl(run_sgd(th, R, 3, 2, eta=e, steps=steps, mode="exact"), 1) for e in ETA_GRID]
    return np.tile(row, (n, 1))


def noise_k_curve(rng, n, *, eta=0.05, B=16, steps=120):
    """Flat reward (``E ĝ = 0``), on-policy samples: stale KL vs ``k`` (one replicate per row)."""
    th, _ = _toy()
    flat = np.full(9, 0.5)
    out = np.empty((n, len(K_GRID)))
    for i in range(n):
        tr = run_sgd(th, flat, 3, 2, eta=eta, steps=steps, B=B, rng=rng)
        out[i] = [staleness_kl(tr, k, burn_in=16 - k) for k in K_GRID]
    return out


def noise_B_curve(rng, n, *, eta=0.05, steps=30):
    """Flat reward: one-step KL vs batch ``B``."""
    th, _ = _toy()
    flat = np.full(9, 0.5)
    out = np.empty((n, len(B_GRID)))
    for i in range(n):
        out[i] = [staleness_kl(run_sgd(th, flat, 3, 2, eta=eta, steps=steps, B=B, rng=rng), 1) for B in B_GRID]
    return out


register(ScalingClaim(
    id="mismatch.scaling.staleness_drift_k",
    statement="drift regime (exact gradient): KL(π_{θ_{t−k}} ‖ π_{θ_t}) ∝ k² (exponent ∈ [1.9, 2.1])",
    source="Beyond Precision (arXiv 2602.01826, abstract); spec mismatch.md §8", label="DERIVED",
    params={**_TOY, "eta": 0.05, "k": list(K_GRID)}, fn=drift_k_curve, x=K_GRID,
    exponent_lo=1.9, exponent_hi=2.1, **_S, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.staleness_drift_eta",
    statement="drift regime: successive-policy KL ∝ η² (exponent ∈ [1.9, 2.1])",
    source="spec mismatch.md §8", label="DERIVED", params={**_TOY, "eta": list(ETA_GRID)},
    fn=drift_eta_curve, x=ETA_GRID, exponent_lo=1.9, exponent_hi=2.1, **_S, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.staleness_noise_k",
    statement="noise regime (zero-mean gradient): KL(π_{θ_{t−k}} ‖ π_{θ_t}) ∝ k (exponent ∈ [0.8, 1.2])",
    source="spec mismatch.md §8", label="DERIVED", params={**_TOY, "eta": 0.05, "B": 16, "k": list(K_GRID)},
    fn=noise_k_curve, x=K_GRID, exponent_lo=0.8, exponent_hi=1.2,
    chunk_size=2, default_budget=8, quick_budget=8, **_HOLDS))
register(ScalingClaim(
    id="mismatch.scaling.staleness_noise_B",
    statement="noise regime: successive-policy KL ∝ 1/B (exponent ∈ [−1.2, −0.8])",
    source="spec mismatch.md §8", label="DERIVED", params={**_TOY, "eta": 0.05, "B": list(B_GRID)},
    fn=noise_B_curve, x=B_GRID, exponent_lo=-1.2, exponent_hi=-0.8,
    chunk_size=2, default_budget=8, quick_budget=4, **_HOLDS))


def lr_mismatch_differences(rng, n, *, eta_small=0.025, eta_large=0.1, k=4, B=16, steps=40, err_scale=0.02):
    """Paired (common random numbers) differences of the mean sampler–trainer KL over training:
    ``KL̄(η_small) − KL̄(η_large)`` with a ``k``-step-stale sampler plus a fixed logit error.

    Each replicate draws a fixed error ``e ∼ N(0, err_scale²)`` per logit and one seed used by all
    runs, and averages the antithetic pair ``e, −e`` (the cross term between the error and the drift
    has mean zero over ``e`` but a large variance; the antithetic pair cancels it to first order).
    """
    th, R = _toy()
    out = np.empty(n)
    for i in range(n):
        err = err_scale * rng.standard_normal(th.size)
        s = int(rng.integers(2 ** 31))
        d = 0.0
        for sgn in (1.0, -1.0):
            a = run_sgd(th, R, 3, 2, eta=eta_small, steps=steps, B=B, logit_error=sgn * err, staleness=k, rng=s)
            b = run_sgd(th, R, 3, 2, eta=eta_large, steps=steps, B=B, logit_error=sgn * err, staleness=k, rng=s)
            d += 0.5 * (a.sampler_kl[k:].mean() - b.sampler_kl[k:].mean())
        out[i] = d
    return out


register(ComparisonClaim(
    id="mismatch.staleness.smaller_step_less_mismatch",
    statement="with a 4-step-stale sampler and a fixed logit error, η = 0.025 gives a smaller mean "
              "sampler–trainer KL than η = 0.1 (paired difference < 0)",
    source="Beyond Precision (arXiv 2602.01826, abstract: shrinking the update size suppresses the mismatch); "
           "spec mismatch.md §8", label="CONFIRMED",
    params={**_TOY, "eta": [0.025, 0.1], "k": 4, "B": 16, "steps": 40, "err_scale": 0.02},
    fn=lr_mismatch_differences, threshold=0.0, alternative="less",
    chunk_size=4, default_budget=40, quick_budget=8, **_HOLDS))


# ==========================================================================
# TRM masking and its proxies (§6): probability claims
# ==========================================================================

def exact_path_kl(mu: TabularPolicy, pi: TabularPolicy, y: np.ndarray) -> np.ndarray:
    """``KL(μ(·|c_t) ‖ π(·|c_t))`` at every context visited by the responses ``y`` (shape ``(N, T)``).

    The oracle of the TRM claims, computed here from the raw logit tables
    (``log_softmax`` by a max-shifted log-sum-exp, then ``Σ_v μ_v (log μ_v − log π_v)``),
    independently of :func:`proofs_check.policies.per_context_kl` and of the masks under test.
    Context of depth ``t`` along ``y``: row ``Σ_{j<t} y_j V^{t−1−j}`` of table ``t``.
    """
    y = np.asarray(y)
    N, T = y.shape
    V = mu.V
    out = np.empty((N, T))
    row = np.zeros(N, dtype=np.int64)
    for t in range(T):
        zm = np.asarray(mu.logits[t], dtype=float)[row]
        zp = np.asarray(pi.logits[t], dtype=float)[row]
        lm = zm - zm.max(axis=1, keepdims=True)
        lm -= np.log(np.exp(lm).sum(axis=1, keepdims=True))
        lp = zp - zp.max(axis=1, keepdims=True)
        lp -= np.log(np.exp(lp).sum(axis=1, keepdims=True))
        out[:, t] = (np.exp(lm) * (lm - lp)).sum(axis=1)
        row = row * V + y[:, t]
    return out


def _path_rows(y: np.ndarray, V: int) -> list:
    """Row index of the context at each depth along each response (table layout of TabularPolicy)."""
    rows, row = [], np.zeros(y.shape[0], dtype=np.int64)
    for t in range(y.shape[1]):
        rows.append(row)
        row = row * V + y[:, t]
    return rows


def trm_wrong_decision_events(rng, n, *, delta=0.02, V=2, T=6):
    """Trials: a **fresh** random ``low_prob`` pair and one response ``y ∼ μ`` per trial; the event is
    "the library's TRM-Max decision differs from the exact rule ``max_t KL(c_t) ≤ δ``".

    Library side (the code under test): the exact per-context KL of
    :func:`proofs_check.policies.per_context_kl` gathered along ``y``, fed to
    :func:`proofs_check.mismatch.masks.trm_max_mask`.  Oracle: :func:`exact_path_kl`.
    A false accept (mask accepts, exact max KL > δ) and a false reject both count.
    """
    events = 0
    for _ in range(n):
        mu, pi = draw_pair(rng, "low_prob", V, T)
        y = sample_responses(mu, 1, rng)
        kl_lib = per_context_kl(mu, pi)
        kl_path = np.stack([kl_lib[t][r] for t, r in enumerate(_path_rows(y, V))], axis=1)
        acc = masks.trm_max_mask(kl_path, np.ones_like(kl_path, dtype=bool), delta)
        exact_ok = exact_path_kl(mu, pi, y).max(axis=1) <= delta
        events += int(np.sum(acc != exact_ok))
    return events


def proxy_false_accept_events(rng, n, *, proxy, delta=0.02, V=2, T=6):
    """Trials: a **fresh** random ``low_prob`` pair and one response ``y ∼ μ`` per trial; the event is
    "the library's ``proxy`` mask accepts ``y`` while its exact ``max_t KL(c_t) > δ``".

    ``proxy`` ∈ {``k2_max``, ``k3_mean``}: :func:`proofs_check.mismatch.masks.k2_max_mask` (threshold
    ``δ``) or :func:`~proofs_check.mismatch.masks.k3_mean_mask` (threshold ``δ_avg = δ``) on the
    sampled tokens' log-probs (:func:`proofs_check.policies.token_log_probs`); the exact max KL is
    :func:`exact_path_kl`.  Every trial draws its own pair, so the ``n`` trials are independent.
    """
    if proxy not in ("k2_max", "k3_mean"):
        raise ValueError(f"proxy must be 'k2_max' or 'k3_mean', got {proxy!r}")
    events = 0
    for _ in range(n):
        mu, pi = draw_pair(rng, "low_prob", V, T)
        y = sample_responses(mu, 1, rng)
        lmu, _ = token_log_probs(mu, y)
        lpi, _ = token_log_probs(pi, y)
        m = np.ones_like(lmu, dtype=bool)
        if proxy == "k2_max":
            acc = masks.k2_max_mask(lpi, lmu, m, delta)
        else:
            acc = masks.k3_mean_mask(lpi, lmu, m, delta)
        viol = exact_path_kl(mu, pi, y).max(axis=1) > delta
        events += int(np.sum(acc & viol))
    return events


register(ProbabilityClaim(
    id="mismatch.trm.exact_never_false_accepts",
    statement="TRM-Max (library exact per-context KL + trm_max_mask) accepts a response iff its exact "
              "max_t KL(c_t) ≤ δ: P(decision differs from the exact rule) ≤ 1e-3",
    source=f"{SRC}; spec mismatch.md §6", label="CONFIRMED", params={"delta": 0.02, "V": 2, "T": 6,
                                                                     "generator": "low_prob, fresh pair per trial"},
    fn=functools.partial(trm_wrong_decision_events, delta=0.02, V=2, T=6), delta=1e-3,
    chunk_size=500, default_budget=10_000, quick_budget=6_000, role="statement", expected="holds", version=2,
    notes="false accepts and false rejects both count; the oracle max-KL is computed in this file "
          "(exact_path_kl), not by the library.  The level 1e-3 is fixed in advance: a mask that is "
          "wrong on any systematic class of contexts errs at rates far above it."))
for _p in ("k2_max", "k3_mean"):
    register(ProbabilityClaim(
        id=f"mismatch.trm.proxy_{_p}_false_accept",
        statement=f"the {_p} proxy mask accepts a response whose exact max_t KL(c_t) exceeds δ with probability ≤ 1%",
        source=f"{SRC}; spec mismatch.md §6 (the rigorous guarantee needs the exact KL)", label="CONFIRMED",
        params={"delta": 0.02, "V": 2, "T": 6, "generator": "low_prob, fresh pair per trial"},
        fn=functools.partial(proxy_false_accept_events, proxy=_p, delta=0.02, V=2, T=6), delta=0.01,
        chunk_size=500, default_budget=4_000, quick_budget=2_000, role="statement", expected="refuted",
        version=2,
        notes="the proxies see only sampled-token log-probs, so they cannot bound the exact KL: the "
              "statement is the naive belief and is refuted; p̂ measures how often the proxy admits a "
              "violating response (1% fixed in advance as 'rare')"))
