r"""Divergences between two tabular policies, per context and over sequences.

Symbols (theory ``mismatch.md#setting``): ``μ`` the sampler, ``π`` the trainer;
``TV(c) = ½ Σ_v |π(v|c) − μ(v|c)|``, ``KL(c) = KL(μ(·|c) ‖ π(·|c))`` (this
direction throughout), ``χ²(c) = Σ_v π(v|c)²/μ(v|c) − 1``;
``D_KL^seq = KL(P^μ ‖ P^π)``, ``D_TV^seq``, ``χ²_seq = E_μ[ρ²] − 1``.
Terms are written in cancellation-free forms (``p(e^Δ − 1 − Δ)``) so that tiny
mismatches stay accurate.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proofs_check.engine import check_finite_array, check_instance

from .sequences import context_distributions, sequence_log_probs, sequence_probs
from .tabular import DEFAULT_MAX_BYTES, TabularPolicy, check_enumerable, check_pair

__all__ = ["kl_terms", "per_context_tv", "per_context_kl", "per_context_chi2", "sequence_kl",
           "sequence_kl_chain", "sequence_tv", "sequence_chi2", "DivergenceSummary", "divergence_summary"]


def kl_terms(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """Elementwise ``p log(p/q)`` written as ``p (e^{Δ} − 1 − Δ)`` with ``Δ = log q − log p``.

    Summed over a full distribution (where ``Σ p = Σ q = 1``) this is
    ``KL(p ‖ q)``; each term is ``≥ 0`` and accurate for small ``Δ`` (no
    cancellation), falling back to ``q − p − pΔ`` where ``|Δ| ≥ 1``.
    """
    lp = check_finite_array("log_p", log_p)
    lq = check_finite_array("log_q", log_q)
    if lp.shape != lq.shape:
        raise ValueError(f"log_p and log_q must have the same shape, got {lp.shape} and {lq.shape}")
    if lp.size and (lp.max() > 0 or lq.max() > 0):
        raise ValueError("log_p and log_q must be log-probabilities (≤ 0)")
    log_p, log_q = np.atleast_1d(lp), np.atleast_1d(lq)
    d = log_q - log_p
    p = np.exp(log_p)
    big = np.abs(d) >= 1.0
    if not big.any():
        return (p * (np.expm1(d) - d)).reshape(lp.shape)
    out = p * (np.expm1(np.where(big, 0.0, d)) - np.where(big, 0.0, d))
    out[big] = np.exp(log_q[big]) - p[big] - p[big] * d[big]
    return out.reshape(lp.shape)


def per_context_tv(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``TV(c) = ½ Σ_v |π(v|c) − μ(v|c)|`` per depth: list of ``(V**t,)`` arrays."""
    check_pair(mu, pi)
    return [0.5 * np.abs(pi.probs(t) - mu.probs(t)).sum(axis=1) for t in range(mu.T)]


def per_context_kl(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``KL(c) = KL(μ(·|c) ‖ π(·|c))`` per depth (accurate for tiny mismatch)."""
    check_pair(mu, pi)
    return [np.maximum(kl_terms(mu.log_probs(t), pi.log_probs(t)).sum(axis=1), 0.0) for t in range(mu.T)]


def _chi2_terms(log_mu, log_pi):
    d = log_pi - log_mu
    m = np.exp(log_mu)
    big = np.abs(d) >= 1.0
    if not big.any():
        return m * np.expm1(d) ** 2
    out = m * np.expm1(np.where(big, 0.0, d)) ** 2
    with np.errstate(over="ignore"):
        out[big] = np.exp(2.0 * log_pi[big] - log_mu[big]) - 2.0 * np.exp(log_pi[big]) + m[big]
    return out


def per_context_chi2(mu: TabularPolicy, pi: TabularPolicy) -> list:
    """``χ²(c) = Σ_v π(v|c)²/μ(v|c) − 1 = Σ_v (π − μ)²/μ`` per depth."""
    check_pair(mu, pi)
    return [np.maximum(_chi2_terms(mu.log_probs(t), pi.log_probs(t)).sum(axis=1), 0.0) for t in range(mu.T)]


def sequence_kl(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``D_KL^seq = KL(P^μ ‖ P^π)`` computed directly over all sequences."""
    check_pair(mu, pi)
    return float(max(kl_terms(sequence_log_probs(mu, max_bytes=max_bytes),
                              sequence_log_probs(pi, max_bytes=max_bytes)).sum(), 0.0))


def sequence_kl_chain(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``Σ_t E_{c∼d_t^μ} KL(c)`` — the chain-rule form of ``D_KL^seq``."""
    check_instance('mu', mu, TabularPolicy)
    check_instance('pi', pi, TabularPolicy)
    d = context_distributions(mu, max_bytes=max_bytes)
    return float(sum(dt @ kt for dt, kt in zip(d, per_context_kl(mu, pi))))


def sequence_tv(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``D_TV^seq = ½ Σ_y |P^π(y) − P^μ(y)|``."""
    check_pair(mu, pi)
    return float(0.5 * np.abs(sequence_probs(pi, max_bytes=max_bytes)
                              - sequence_probs(mu, max_bytes=max_bytes)).sum())


def sequence_chi2(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> float:
    """``χ²_seq = E_μ[ρ²] − 1 = Σ_y (P^π − P^μ)²/P^μ``."""
    check_pair(mu, pi)
    return float(max(_chi2_terms(sequence_log_probs(mu, max_bytes=max_bytes),
                                 sequence_log_probs(pi, max_bytes=max_bytes)).sum(), 0.0))


@dataclass(frozen=True)
class DivergenceSummary:
    """Every divergence of theory ``mismatch.md#setting`` for a pair, exact.

    ``eps = max_{t,c} TV(c)``, ``delta = max_{t,c} KL(c)`` (over all contexts,
    reachable or not — all are reachable since logits are finite),
    ``chi2_max = max χ²(c)``, ``dbar[t] = E_{d_t^μ} TV(c)`` (depth ``t``),
    ``kl_bar[t] = E_{d_t^μ} KL(c)``, and the sequence-level quantities.
    """

    V: int
    T: int
    eps: float
    delta: float
    chi2_max: float
    d_kl_seq: float
    d_kl_seq_chain: float
    d_tv_seq: float
    chi2_seq: float
    dbar: tuple
    kl_bar: tuple

    def to_dict(self) -> dict:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.__dict__.items()}


def divergence_summary(mu: TabularPolicy, pi: TabularPolicy, *, max_bytes: int = DEFAULT_MAX_BYTES) -> DivergenceSummary:
    """All divergences of theory ``mismatch.md#setting`` in one pass (see :class:`DivergenceSummary`)."""
    V, T = check_pair(mu, pi)
    hit = mu._cache.get("summary")
    if hit is not None and hit[0] is pi:
        return hit[1]
    check_enumerable(V, T, n_arrays=6, max_bytes=max_bytes)
    tv = per_context_tv(mu, pi)
    kl = per_context_kl(mu, pi)
    c2 = per_context_chi2(mu, pi)
    d = context_distributions(mu, max_bytes=max_bytes)
    kl_bar = tuple(float(a @ b) for a, b in zip(d, kl))
    out = DivergenceSummary(
        V=V, T=T,
        eps=float(max(a.max() for a in tv)),
        delta=float(max(a.max() for a in kl)),
        chi2_max=float(max(a.max() for a in c2)),
        d_kl_seq=sequence_kl(mu, pi, max_bytes=max_bytes),
        d_kl_seq_chain=float(sum(kl_bar)),
        d_tv_seq=sequence_tv(mu, pi, max_bytes=max_bytes),
        chi2_seq=sequence_chi2(mu, pi, max_bytes=max_bytes),
        dbar=tuple(float(a @ b) for a, b in zip(d, tv)),
        kl_bar=kl_bar,
    )
    mu._cache["summary"] = (pi, out)      # keyed by identity of pi (held, so the id cannot be reused)
    return out
