r"""Mismatch grows with the update size: a tabular SGD toy (theory ``mismatch.md#update-size``).

The trainer ``π_θ`` is a :class:`~proofs_check.policies.TabularPolicy` whose
logits are ``θ``; the sampler is the same weights plus a fixed logit error
``e`` (``μ = π_{θ+e}``) or ``θ`` rounded to a bf16-like grid (8 significant
bits).  SGD on ``J`` with step ``η`` and batch ``B``:
``θ ← θ + η ĝ``, ``ĝ = (1/B) Σ_i R(y_i) ∇_θ log π_θ(y_i)`` with ``y_i ∼ μ``
(``mode="sampled"``) or the exact gradient ``∇J`` (``mode="exact"``).

Measured (DERIVED, theory ``mismatch.md#update-size``): the successive-policy KL
``KL(P^{θ_{t−k}} ‖ P^{θ_t})`` (sequence level, exact by enumeration) as a
function of staleness ``k``, step ``η`` and batch ``B``:

* drift regime (exact gradient): ``≈ ½ k² η² gᵀ F g`` — exponent 2 in ``k``
  and in ``η``;
* noise regime (flat reward, so ``E ĝ = 0`` on-policy):
  ``≈ k η² tr(F Σ)/(2B)`` — exponent 1 in ``k``, −1 in ``B``, 2 in ``η``;

and the sampler–trainer KL ``KL(μ ‖ π_θ)`` along training.  The paper's own
formula and its decay rule are OPEN and are not used.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from proofs_check.policies.tabular import check_option
from proofs_check.policies import TabularPolicy, check_reward, sample_responses, sequence_kl, sequence_log_probs
from proofs_check.engine import check_instance, as_generator, check_finite_array, check_int, check_real

__all__ = ["exact_gradient", "sampled_gradient", "bf16_round", "SGDTrace", "run_sgd", "staleness_kl",
           "fisher_quadratic"]


def _unflatten(theta, V, T):
    return TabularPolicy.from_flat(theta, V, T)


def exact_gradient(policy: TabularPolicy, reward) -> np.ndarray:
    """``∇_z J`` for every logit ``z_t(c, v)``: ``d_t^π(c) π(v|c)(Q(c, v) − V(c))``, flat."""
    check_instance('policy', policy, TabularPolicy)
    V, T = policy.V, policy.T
    r = check_reward(reward, V, T)
    from proofs_check.policies import context_distributions
    d = context_distributions(policy)
    value = r.astype(float)
    grads = [None] * T
    for t in range(T - 1, -1, -1):
        Q = value.reshape(V ** t, V)
        p = policy.probs(t)
        Vc = (p * Q).sum(axis=1)
        grads[t] = d[t][:, None] * p * (Q - Vc[:, None])
        value = Vc
    return np.concatenate([g.ravel() for g in grads])


def sampled_gradient(policy: TabularPolicy, reward, tokens) -> np.ndarray:
    """``(1/B) Σ_i R(y_i) Σ_t (e_{y_t} − π(·|c_t))`` placed at the logits of ``c_t`` (flat)."""
    check_instance('policy', policy, TabularPolicy)
    V, T = policy.V, policy.T
    y = np.asarray(tokens)
    B = y.shape[0]
    from proofs_check.policies import sequence_index
    r = np.asarray(reward, dtype=float)[sequence_index(y, V)]
    out, row = [], np.zeros(B, dtype=np.int64)
    for t in range(T):
        g = np.zeros((V ** t, V))
        p = policy.probs(t)[row]
        contrib = -p * r[:, None]
        contrib[np.arange(B), y[:, t]] += r
        np.add.at(g, row, contrib)
        out.append(g.ravel())
        row = row * V + y[:, t]
    return np.concatenate(out) / B


def bf16_round(x) -> np.ndarray:
    """Round to 8 significant bits (bfloat16's mantissa), round-half-even, in float64."""
    x = check_finite_array("x", x)
    m, e = np.frexp(x)
    return np.ldexp(np.round(m * 256.0) / 256.0, e)


def fisher_quadratic(policy: TabularPolicy, direction) -> float:
    """``½ uᵀ F u`` for the sequence-level Fisher ``F`` of the logits (exact, by
    enumeration): ``½ Var_{y∼π}[u · ∇ log P(y)]``."""
    check_instance('policy', policy, TabularPolicy)
    V, T = policy.V, policy.T
    u = check_finite_array("direction", direction, ndim=1)
    if u.size != policy.n_params:
        raise ValueError(f"direction must have {policy.n_params} entries, got {u.size}")
    dot = np.zeros(V ** T)
    k = 0
    for t in range(T):
        n = V ** t * V
        ut = u[k:k + n].reshape(V ** t, V)
        k += n
        per = ut - (policy.probs(t) * ut).sum(axis=1, keepdims=True)   # u·(e_v − π) per (c, v)
        dot.reshape(V ** (t + 1), V ** (T - t - 1))[...] += per.reshape(-1)[:, None]
    p = np.exp(sequence_log_probs(policy))
    m = p @ dot
    return 0.5 * float(p @ (dot - m) ** 2)


@dataclass(frozen=True)
class SGDTrace:
    """``thetas``: ``(steps+1, P)`` trainer logits; ``sampler_kl[s] = KL(P^μ ‖ P^{π_θ})``
    at step ``s`` (sampler against trainer); ``V, T, eta, B, mode``."""

    thetas: np.ndarray
    sampler_kl: np.ndarray
    V: int
    T: int
    eta: float
    B: int
    mode: str

    def to_dict(self) -> dict:
        return {"eta": self.eta, "B": self.B, "mode": self.mode, "V": self.V, "T": self.T,
                "sampler_kl": self.sampler_kl.tolist(), "steps": int(self.thetas.shape[0] - 1)}


def run_sgd(theta0, reward, V: int, T: int, *, eta: float, steps: int, B: int = 16, mode: str = "sampled",
            logit_error=None, rounding: bool = False, staleness: int = 0, rng=0) -> SGDTrace:
    """Run the toy (see module doc).

    ``logit_error``: flat array added to the sampler's logits; ``rounding=True``
    rounds the sampler's logits to the bf16-like grid; ``staleness = k`` makes
    the sampler use the weights of ``k`` steps ago (``θ_{max(s−k, 0)}``), as an
    asynchronous rollout queue does.  The sampler is
    ``μ_s = π_{round?(θ_{s−k} + e)}``; ``sampler_kl[s] = KL(P^{μ_s} ‖ P^{π_{θ_s}})``.
    """
    staleness = check_int("staleness", staleness, lo=0)
    eta = check_real("eta", eta, lo=0.0, lo_open=True)
    steps = check_int("steps", steps, lo=1)
    B = check_int("B", B, lo=1)
    check_option("mode", mode, ("sampled", "exact"))
    g = as_generator(rng)
    theta = check_finite_array("theta0", theta0, ndim=1).copy()
    err = np.zeros_like(theta) if logit_error is None else check_finite_array("logit_error", logit_error, ndim=1)
    if err.shape != theta.shape:
        raise ValueError(f"logit_error must have shape {theta.shape}, got {err.shape}")
    r = check_reward(reward, V, T)
    thetas = [theta.copy()]
    skl = []
    for _ in range(steps):
        pi = _unflatten(theta, V, T)
        z = thetas[max(len(thetas) - 1 - staleness, 0)] + err
        mu = _unflatten(bf16_round(z) if rounding else z, V, T)
        skl.append(sequence_kl(mu, pi))
        if mode == "exact":
            grad = exact_gradient(pi, r)
        else:
            grad = sampled_gradient(pi, r, sample_responses(mu, B, g))
        theta = theta + eta * grad
        thetas.append(theta.copy())
    return SGDTrace(thetas=np.array(thetas), sampler_kl=np.array(skl), V=V, T=T, eta=eta, B=B, mode=mode)


def staleness_kl(trace: SGDTrace, k: int, *, burn_in: int = 0) -> float:
    """Mean over steps ``s ≥ burn_in + k`` of ``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` (exact)."""
    check_instance('trace', trace, SGDTrace)
    k = check_int("k", k, lo=1)
    n = trace.thetas.shape[0]
    if burn_in + k >= n:
        raise ValueError(f"k + burn_in = {k + burn_in} must be < steps + 1 = {n}")
    vals = [sequence_kl(_unflatten(trace.thetas[s - k], trace.V, trace.T),
                        _unflatten(trace.thetas[s], trace.V, trace.T))
            for s in range(burn_in + k, n)]
    return float(np.mean(vals))
