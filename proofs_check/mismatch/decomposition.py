r"""The gain of an update as a tangent plus a remainder, exactly, by enumeration.

Spec ``mismatch.md`` §4 (CONFIRMED; "Trust Region Masking for Long-Horizon LLM
RL", arXiv 2512.23075, §3–4).  With ``ρ_t = π(y_t|c_t)/μ(y_t|c_t)``:

.. math::

    L'(π) = E_{y∼μ}\Big[R(y) \sum_t (ρ_t − 1)\Big], \qquad
    J(π) − J(μ) = L'(π) − Δ, \qquad
    Δ = E_μ\Big[R \sum_t (ρ_t − 1)\big(1 − \prod_{j>t} ρ_j\big)\Big].

The remainder ``Error = J(π) − J(μ) − L'(π) = −Δ`` is linear in ``R``:
``Error = Σ_y R(y) c(y)`` with
``c(y) = P^π(y) − P^μ(y) (1 + Σ_t (ρ_t(y) − 1))``, so over ``R ∈ [0, 1]`` it is
maximised by ``R = 1{c > 0}`` (theory ``mismatch.md#enumeration``, DERIVED) with value ``Σ_y c(y)_+``;
since ``Σ_y c(y) = 0`` this is also ``max |Error| = ½ Σ_y |c(y)|``.

Performance-difference form: ``A_t^μ(c, v) = E_μ[R | c, y_t = v] − E_μ[R | c]``,
``g_t(c) = Σ_v (π − μ)(v|c) A_t^μ(c, v)``, ``J(π) − J(μ) = Σ_t E_{d_t^π} g_t``,
``L' = Σ_t E_{d_t^μ} g_t``.

Every function loops over the ``T`` depths and is vectorised over the ``V**T``
sequences (broadcast views of per-depth tables; no per-sequence Python loop).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..policies import (DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable, check_pair, check_reward,
                        context_distributions, sequence_log_probs, sequence_probs, token_log_ratio_tables)
from ..engine import check_int

__all__ = [
    "TRMDecomposition", "trm_decomposition", "PerformanceDifference", "performance_difference",
    "remainder_coefficients", "WorstCase", "worst_case_reward", "future_tv_identity",
    "abs_ratio_identity", "tangent_per_sequence",
]


def _seq_view(a: np.ndarray, t: int, V: int, T: int) -> np.ndarray:
    """``(V**T,)`` array viewed as ``(V**(t+1), V**(T−t−1))``."""
    return a.reshape(V ** (t + 1), V ** (T - t - 1))


@dataclass(frozen=True)
class TRMDecomposition:
    """``gain = J(π) − J(μ)``, ``tangent = L'(π)``, ``remainder = gain − tangent``,
    ``delta_term = Δ`` (computed independently, from the telescoped sum);
    the identity is ``remainder = −Δ``."""

    J_mu: float
    J_pi: float
    gain: float
    tangent: float
    remainder: float
    delta_term: float

    def to_dict(self) -> dict:
        return asdict(self)


def tangent_per_sequence(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``Σ_t (ρ_t(y) − 1)`` for every sequence, shape ``(V**T,)``."""
    V, T = check_pair(mu, pi)
    hit = mu._cache.get("tangent")
    if hit is not None and hit[0] is pi:
        return hit[1]
    check_enumerable(V, T, n_arrays=4, max_bytes=max_bytes)
    lr = token_log_ratio_tables(mu, pi)
    acc = np.zeros(V ** T)
    for t in range(T):
        _seq_view(acc, t, V, T)[...] += np.expm1(lr[t]).reshape(-1)[:, None]
    _cache_tangent(mu, pi, acc)
    return acc


def _cache_tangent(mu, pi, acc):
    acc.setflags(write=False)
    mu._cache["tangent"] = (pi, acc)      # keyed by the identity of pi (held, so never reused)


def trm_decomposition(mu: TabularPolicy, pi: TabularPolicy, reward, *,
                      max_bytes: int = DEFAULT_MAX_BYTES) -> TRMDecomposition:
    """Exact ``J(μ), J(π)``, tangent ``L'(π)``, remainder and ``Δ`` (theory ``mismatch.md#decomposition``).

    ``reward`` has shape ``(V**T,)`` (any real values: the identity does not
    need ``R ∈ [0, 1]``; the bounds do).  ``Δ`` is accumulated from the
    suffix products ``Π_{j>t} ρ_j`` depth by depth, independently of ``J``.
    """
    V, T = check_pair(mu, pi)
    r = check_reward(reward, V, T)
    check_enumerable(V, T, n_arrays=6, max_bytes=max_bytes)
    pmu = sequence_probs(mu, max_bytes=max_bytes)
    w = pmu * r
    J_mu = float(w.sum())
    J_pi = float(sequence_probs(pi, max_bytes=max_bytes) @ r)
    lr = token_log_ratio_tables(mu, pi)
    tang = np.zeros(V ** T)
    dsum = np.zeros(V ** T)
    suffix = np.zeros(V ** T)          # Σ_{j>t} log ρ_j
    for t in range(T - 1, -1, -1):
        e = np.expm1(lr[t]).reshape(-1)[:, None]
        _seq_view(tang, t, V, T)[...] += e
        if t < T - 1:                   # the empty suffix product is 1: no Δ term at t = T
            _seq_view(dsum, t, V, T)[...] -= e * np.expm1(_seq_view(suffix, t, V, T))
        _seq_view(suffix, t, V, T)[...] += lr[t].reshape(-1)[:, None]
    _cache_tangent(mu, pi, tang)
    tangent = float(w @ tang)
    delta_term = float(w @ dsum)
    gain = J_pi - J_mu
    return TRMDecomposition(J_mu=J_mu, J_pi=J_pi, gain=gain, tangent=tangent,
                            remainder=gain - tangent, delta_term=delta_term)


def remainder_coefficients(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """``c(y) = P^π(y) − P^μ(y)(1 + Σ_t (ρ_t − 1))`` so that ``Error = Σ_y R(y) c(y)``."""
    V, T = check_pair(mu, pi)
    tang = tangent_per_sequence(mu, pi, max_bytes=max_bytes)
    return sequence_probs(pi) - sequence_probs(mu) * (1.0 + tang)


@dataclass(frozen=True)
class WorstCase:
    """The reward ``R = 1{c > 0}`` maximising the remainder, and ``max_R |Error| = Σ c_+``."""

    reward: np.ndarray
    abs_error: float
    positive_part: float
    negative_part: float

    def to_dict(self) -> dict:
        return {"abs_error": self.abs_error, "positive_part": self.positive_part,
                "negative_part": self.negative_part, "n_rewarded": int(self.reward.sum())}


def worst_case_reward(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> WorstCase:
    """``argmax_{R∈[0,1]^{V**T}} |Error(R)|`` (theory ``mismatch.md#enumeration``, DERIVED).

    ``Error`` is linear in ``R``; ``max Error = Σ c_+`` at ``R = 1{c>0}`` and
    ``max(−Error) = Σ c_−`` at ``R = 1{c<0}``.  Returns the larger (they agree
    up to rounding because ``Σ_y c(y) = 0``).
    """
    c = remainder_coefficients(mu, pi, max_bytes=max_bytes)
    pos = float(np.maximum(c, 0.0).sum())
    neg = float(np.maximum(-c, 0.0).sum())
    R = (c > 0).astype(float) if pos >= neg else (c < 0).astype(float)
    return WorstCase(reward=R, abs_error=max(pos, neg), positive_part=pos, negative_part=neg)


@dataclass(frozen=True)
class PerformanceDifference:
    """Performance-difference form (theory ``mismatch.md#decomposition``).

    ``gain_pdi = Σ_t E_{d_t^π} g_t``, ``tangent_pdi = Σ_t E_{d_t^μ} g_t``,
    ``g[t]`` the ``(V**t,)`` table ``g_t(c)``, ``adv_mean_max = max_{t,c}
    |E_{v∼μ} A_t^μ(c, v)|`` (zero by the lemma), ``g_over_tv_max = max_{t,c}
    |g_t(c)| / TV(c)`` (≤ 2 by the paper's lemma; ≤ 1 suffices — DERIVED),
    ``master_bound = Σ_t 2 ‖g_t‖_∞ ‖d_t^π − d_t^μ‖_TV``.
    """

    gain_pdi: float
    tangent_pdi: float
    remainder_pdi: float
    adv_mean_max: float
    g_over_tv_max: float
    master_bound: float
    context_tv: tuple
    g: tuple

    def to_dict(self) -> dict:
        d = asdict(self)
        d["g"] = [a.tolist() for a in self.g]
        d["context_tv"] = list(self.context_tv)
        return d


def performance_difference(mu: TabularPolicy, pi: TabularPolicy, reward, *,
                           max_bytes: int = DEFAULT_MAX_BYTES) -> PerformanceDifference:
    """``g_t(c)``, the PDI form of the gain and of ``L'``, and the lemmas of theory ``mismatch.md#decomposition``."""
    V, T = check_pair(mu, pi)
    r = check_reward(reward, V, T)
    check_enumerable(V, T, n_arrays=4, max_bytes=max_bytes)
    value = r.astype(float)
    gs, adv_max, ratio_max = [None] * T, 0.0, 0.0
    for t in range(T - 1, -1, -1):
        Q = value.reshape(V ** t, V)                  # E_μ[R | c, y_t = v]
        pm, pp = mu.probs(t), pi.probs(t)
        Vc = (pm * Q).sum(axis=1)                     # E_μ[R | c]
        A = Q - Vc[:, None]
        adv_max = max(adv_max, float(np.abs((pm * A).sum(axis=1)).max()))
        g = ((pp - pm) * A).sum(axis=1)
        tv = 0.5 * np.abs(pp - pm).sum(axis=1)
        nz = tv > 0
        if np.any(nz):
            ratio_max = max(ratio_max, float((np.abs(g[nz]) / tv[nz]).max()))
        gs[t] = g
        value = Vc
    dmu = context_distributions(mu, max_bytes=max_bytes)
    dpi = context_distributions(pi, max_bytes=max_bytes)
    gain = float(sum(a @ g for a, g in zip(dpi, gs)))
    tang = float(sum(a @ g for a, g in zip(dmu, gs)))
    ctv = tuple(float(0.5 * np.abs(a - b).sum()) for a, b in zip(dpi, dmu))
    master = float(sum(2.0 * np.abs(g).max() * s for g, s in zip(gs, ctv)))
    return PerformanceDifference(gain_pdi=gain, tangent_pdi=tang, remainder_pdi=gain - tang,
                                 adv_mean_max=adv_max, g_over_tv_max=ratio_max, master_bound=master,
                                 context_tv=ctv, g=tuple(gs))


def future_tv_identity(mu: TabularPolicy, pi: TabularPolicy, t: int, *,
                       max_bytes: int = DEFAULT_MAX_BYTES) -> tuple:
    """Both sides of ``E_μ[|1 − Π_{j>t} ρ_j| | c_{t+1}] = 2 TV(future | c_{t+1})``.

    ``t`` is the position ``1..T`` of ``mismatch.md#setting``; ``c_{t+1}`` is a prefix of length ``t``
    (code depth ``t``).  The left side averages ``|1 − exp(Σ_{j>t} log ρ_j)|``
    over the μ-suffix distribution; the right side is ``Σ_suffix |P^π(s|c) −
    P^μ(s|c)|`` from the conditional sequence log-probabilities.  Returns two
    ``(V**t,)`` arrays.
    """
    V, T = check_pair(mu, pi)
    t = check_int("t", t, lo=1, hi=T)
    check_enumerable(V, T, n_arrays=6, max_bytes=max_bytes)
    lr = token_log_ratio_tables(mu, pi)
    suffix = np.zeros(V ** T)
    for j in range(t, T):
        _seq_view(suffix, j, V, T)[...] += lr[j].reshape(-1)[:, None]
    from ..policies import prefix_log_probs
    pmu_pre = prefix_log_probs(mu)[t]
    ppi_pre = prefix_log_probs(pi)[t]
    lmu = sequence_log_probs(mu).reshape(V ** t, -1) - pmu_pre[:, None]   # log P^μ(s | c)
    lpi = sequence_log_probs(pi).reshape(V ** t, -1) - ppi_pre[:, None]
    lhs = (np.exp(lmu) * np.abs(np.expm1(suffix.reshape(V ** t, -1)))).sum(axis=1)
    rhs = np.abs(np.exp(lpi) - np.exp(lmu)).sum(axis=1)
    return lhs, rhs


def abs_ratio_identity(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> tuple:
    """Both sides of ``E_μ|ρ_t − 1| = 2 D̄_t`` for ``t = 1..T``.

    Left: the μ-average over all sequences of ``|ρ_t(y) − 1|`` (sequence
    enumeration); right: ``2 Σ_c d_t^μ(c) TV(c)``.  Two ``(T,)`` arrays.
    """
    V, T = check_pair(mu, pi)
    check_enumerable(V, T, n_arrays=3, max_bytes=max_bytes)
    pmu = sequence_probs(mu, max_bytes=max_bytes)
    lr = token_log_ratio_tables(mu, pi)
    lhs = np.empty(T)
    for t in range(T):
        term = np.abs(np.expm1(lr[t])).reshape(-1)[:, None]
        lhs[t] = float((_seq_view(pmu, t, V, T) * term).sum())
    from ..policies import per_context_tv
    d = context_distributions(mu, max_bytes=max_bytes)
    rhs = np.array([2.0 * (a @ b) for a, b in zip(d, per_context_tv(mu, pi))])
    return lhs, rhs
