r"""Divergence-augmented policy optimization: the trajectory KL, its gradient,
and the truncated-IS accumulation of a per-step divergence.

* Chain rule (DERIVED, ``docs/theory/baselines.md#divergence-augmentation``):
  ``KL(P^π ‖ P^μ) = Σ_t E_{c∼d_t^π} KL(π(·|c) ‖ μ(·|c))``
  (:func:`trajectory_kl` vs :func:`trajectory_kl_chain`).
* Gradient form (DERIVED): with ``ℓ_k = log(π/μ)(y_k|c_k)``,
  ``∇_θ KL(P^π ‖ P^μ) = E_π[Σ_t ∇ log π(y_t|c_t) Σ_{k≥t} ℓ_k]`` — the divergence
  acts as a per-step reward accumulated forward
  (:func:`kl_gradient_reward_to_go` vs the complex-step derivative
  :func:`kl_gradient_complex_step`, both with respect to the tabular logits of π).
* Truncated-IS accumulation (:func:`truncated_is_accumulation`): the correct
  recursion pairs the ratio at ``k`` with the divergence at ``k``; with all
  ratios 1 and no truncation it equals the discounted reward-to-go, and with
  no truncation ``E_μ[V_0] = E_π[Σ_j γ^j reg_j]`` (per-decision IS).
  :func:`transcribed_accumulation` keeps our transcription of the released
  recursion (ratio at ``k−1`` paired with the divergence at ``k``) as a
  documented counterexample: on ``(1, 10, 100, 1000)``, ``γ = 0.5`` it gives
  ``(426, 760, 600, 1000)`` against the reward-to-go ``(156, 310, 600, 1000)``.

Chunk functions ``f(rng, n, *, ...)`` on random tabular pairs ``(π, μ)``:
:func:`dapo_chain_cases`, :func:`dapo_gradient_cases`,
:func:`accumulation_onpolicy_cases`, :func:`per_decision_cases`; and
:func:`accumulation_errors` (named statistics, for the figure).

Source: "Divergence-Augmented Policy Optimization" (Wang, Li, Xiong, Zhang;
NeurIPS 2019; paper key ``dapo-div``) — the setting; the identities are our
derivation and the transcription ours.  Theory page
``docs/theory/baselines.md#divergence-augmentation``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.engine import check_finite_array, check_int, check_real
from proofs_check.policies import TabularPolicy, check_pair, context_distributions, sequence_log_probs

from ._args import choice as _choice
from ._args import MAX_SEQ, chunk_args, enum_size
from .population import exact_model

__all__ = ["trajectory_kl", "trajectory_kl_chain", "kl_gradient_reward_to_go", "kl_gradient_complex_step",
           "truncated_is_accumulation", "transcribed_accumulation", "discounted_reward_to_go",
           "per_decision_is_check", "dapo_chain_cases", "dapo_gradient_cases", "accumulation_onpolicy_cases",
           "per_decision_cases", "accumulation_errors"]


def _pair(pi, mu):
    if not isinstance(pi, TabularPolicy) or not isinstance(mu, TabularPolicy):
        raise TypeError("pi and mu must be TabularPolicy instances")
    check_pair(mu, pi)
    enum_size(pi.V, pi.T, name_v="pi.V", name_t="pi.T", max_seq=MAX_SEQ)
    return pi.V, pi.T


def trajectory_kl(pi, mu) -> float:
    """``KL(P^π ‖ P^μ) = Σ_y P^π(y) log(P^π(y)/P^μ(y))`` by direct enumeration."""
    _pair(pi, mu)
    lp, lm = sequence_log_probs(pi), sequence_log_probs(mu)
    return float(np.sum(np.exp(lp) * (lp - lm)))


def trajectory_kl_chain(pi, mu) -> float:
    """``Σ_t E_{c∼d_t^π} KL(π(·|c) ‖ μ(·|c))`` (the chain-rule side)."""
    V, T = _pair(pi, mu)
    d = context_distributions(pi)
    total = 0.0
    for t in range(T):
        lp, lm = pi.log_probs(t), mu.log_probs(t)
        kl_c = np.sum(np.exp(lp) * (lp - lm), axis=1)
        total += float(d[t] @ kl_c)
    return total


def _per_step_log_ratio(pi, mu):
    """``ℓ[y, t] = log(π/μ)(y_t|c_t)`` for every sequence (n_seq, T)."""
    V, T = pi.V, pi.T
    n = V ** T
    idx = np.arange(n)
    out = np.empty((n, T))
    for t in range(T):
        rows = idx // V ** (T - t)
        tok = (idx // V ** (T - 1 - t)) % V
        out[:, t] = pi.log_probs(t)[rows, tok] - mu.log_probs(t)[rows, tok]
    return out


def kl_gradient_reward_to_go(pi, mu) -> list:
    r"""``E_π[Σ_t s_t Σ_{k≥t} ℓ_k]`` with respect to π's tabular logits: list of ``(V**t, V)`` tables."""
    V, T = _pair(pi, mu)
    model = exact_model(pi, np.zeros(V ** T))
    ell = _per_step_log_ratio(pi, mu)
    togo = np.flip(np.cumsum(np.flip(ell, axis=1), axis=1), axis=1)
    return model.mean_gradient(togo)


def _complex_log_softmax(z):
    zr = z.real.max(axis=-1, keepdims=True)
    e = np.exp(z - zr)
    return z - zr - np.log(e.sum(axis=-1, keepdims=True))


def kl_gradient_complex_step(pi, mu, *, h: float = 1e-30) -> list:
    """The exact derivative of :func:`trajectory_kl` in each logit of π by the complex step.

    ``∂KL/∂z ≈ Im KL(z + i h e_k) / h`` — no subtractive cancellation, exact
    to rounding for ``h = 1e-30``.  One enumeration per logit (small models).
    """
    V, T = _pair(pi, mu)
    h = check_real("h", h, lo=0.0, hi=1e-8, lo_open=True)
    n_logits = sum(V ** t * V for t in range(T))
    if n_logits * V ** T > 1 << 22:
        raise ValueError(f"pi is too large for the complex step: {n_logits} logits × {V ** T} responses "
                         f"exceeds {1 << 22}")
    logits = [np.array(z, dtype=complex) for z in pi.logits]
    lm = [mu.log_probs(t) for t in range(T)]

    def kl(tabs):
        lp_prefix = np.zeros(1, dtype=complex)
        lm_prefix = np.zeros(1)
        for t in range(T):
            lp_prefix = (lp_prefix[:, None] + _complex_log_softmax(tabs[t])).ravel()
            lm_prefix = (lm_prefix[:, None] + lm[t]).ravel()
        return np.sum(np.exp(lp_prefix) * (lp_prefix - lm_prefix))

    out = []
    for t in range(T):
        g = np.empty(logits[t].shape)
        for idx in np.ndindex(*logits[t].shape):
            logits[t][idx] += 1j * h
            g[idx] = kl(logits).imag / h
            logits[t][idx] -= 1j * h
        out.append(g)
    return out


def _check_traj(reg, rho, name_rho="rho"):
    reg = check_finite_array("reg", reg, ndim=1)
    if reg.size < 1:
        raise ValueError("reg must hold at least one per-step value")
    if rho is None:
        rho = np.ones_like(reg)
    rho = check_finite_array(name_rho, rho, ndim=1)
    if rho.shape != reg.shape:
        raise ValueError(f"{name_rho} shape {rho.shape} must equal reg shape {reg.shape}")
    if np.any(rho < 0):
        raise ValueError(f"{name_rho} must be ≥ 0 (importance ratios)")
    return reg, rho


def _truncation(rho_bar, c_bar):
    """``ρ̄, c̄ > 0`` (``inf``: no truncation)."""
    out = []
    for name, v in (("rho_bar", rho_bar), ("c_bar", c_bar)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a real number > 0 (or inf), got {v!r:.60}")
        try:
            v = float(v)
        except OverflowError:
            v = float("inf")
        if not v > 0:
            raise ValueError(f"{name} must be > 0 (or inf for no truncation), got {v!r}")
        out.append(v)
    return tuple(out)


def discounted_reward_to_go(reg, *, gamma: float) -> np.ndarray:
    """``D_k = Σ_{j≥k} γ^{j−k} reg_j``."""
    reg, _ = _check_traj(reg, None)
    gamma = check_real("gamma", gamma, lo=0.0, hi=1.0)
    out = np.empty_like(reg)
    acc = 0.0
    for k in range(reg.size - 1, -1, -1):
        acc = reg[k] + gamma * acc
        out[k] = acc
    return out


def truncated_is_accumulation(reg, rho=None, *, gamma: float, rho_bar: float = np.inf,
                              c_bar: float = np.inf) -> tuple:
    r"""The correct truncated-IS accumulation of a per-step divergence ``reg``.

    .. math::
        V_L = 0, \quad V_k = \min(\bar\rho, \rho_k)\,\mathrm{reg}_k + \gamma \min(\bar c, \rho_k)\,V_{k+1},
        \quad D_k = \mathrm{reg}_k + \gamma V_{k+1}.

    ``D_k`` is the value of the action taken at ``k``; ``V_k`` the
    IS-corrected value from ``k`` on.  With all ``ρ = 1`` (on-policy) and no
    truncation, ``D`` is the discounted reward-to-go; with no truncation,
    ``E_μ[V_0] = E_π[Σ_j γ^j reg_j]``.  Returns ``(D, V)`` (``V`` without the
    trailing 0).  Theory: ``baselines.md#divergence-augmentation`` (DERIVED).
    """
    reg, rho = _check_traj(reg, rho)
    gamma = check_real("gamma", gamma, lo=0.0, hi=1.0)
    rho_bar, c_bar = _truncation(rho_bar, c_bar)
    L = reg.size
    D = np.empty(L)
    Vk = np.empty(L)
    nxt = 0.0
    for k in range(L - 1, -1, -1):
        D[k] = reg[k] + gamma * nxt
        nxt = min(rho_bar, rho[k]) * reg[k] + gamma * min(c_bar, rho[k]) * nxt
        Vk[k] = nxt
    return D, Vk


def transcribed_accumulation(reg, rho=None, *, gamma: float, rho_bar: float = np.inf,
                             c_bar: float = np.inf) -> np.ndarray:
    r"""COUNTEREXAMPLE — our transcription of the released recursion, kept to document it.

    Start ``D_{L−1} = reg_{L−1}``, ``V = min(ρ̄, ρ_{L−1}) reg_{L−1}``; for
    ``k = L−1`` down to 1: ``D_{k−1} = reg_{k−1} + γV``, then
    ``V ← min(ρ̄, ρ_{k−1}) reg_k + γ min(c̄, ρ_{k−1}) V`` — the ratio at ``k−1``
    is paired with the divergence at ``k``, so ``reg_k`` is counted again and
    ``reg_{k−1}`` never enters ``V``.  With all ratios 1 and ``γ = 0.5`` on
    ``(1, 10, 100, 1000)`` it returns ``(426, 760, 600, 1000)``; the
    reward-to-go is ``(156, 310, 600, 1000)``.  Do not use for training.
    """
    reg, rho = _check_traj(reg, rho)
    gamma = check_real("gamma", gamma, lo=0.0, hi=1.0)
    rho_bar, c_bar = _truncation(rho_bar, c_bar)
    L = reg.size
    D = np.empty(L)
    D[L - 1] = reg[L - 1]
    V = min(rho_bar, rho[L - 1]) * reg[L - 1]
    for k in range(L - 1, 0, -1):
        D[k - 1] = reg[k - 1] + gamma * V
        V = min(rho_bar, rho[k - 1]) * reg[k] + gamma * min(c_bar, rho[k - 1]) * V
    return D


def per_decision_is_check(pi, mu, reg_tables, *, gamma: float, recursion: str = "correct") -> tuple:
    r"""``(E_μ[V_0], E_π[Σ_j γ^j reg_j])`` by exact enumeration (no truncation).

    ``reg_tables[t]`` has shape ``(V**t, V)``: the per-step value at context
    ``c_t`` for token ``y_t``.  ``recursion="correct"`` uses
    :func:`truncated_is_accumulation` (``V_0``); ``"transcribed"`` uses
    ``ρ_0 · D_0`` of :func:`transcribed_accumulation` (the same IS weighting of
    the first step), which does not match.
    """
    V, T = _pair(pi, mu)
    gamma = check_real("gamma", gamma, lo=0.0, hi=1.0)
    _choice("recursion", recursion, ("correct", "transcribed"))
    if isinstance(reg_tables, (str, bytes)) or not hasattr(reg_tables, "__len__") or len(reg_tables) != T:
        raise TypeError(f"reg_tables must be a sequence of {T} tables (one per depth), got {reg_tables!r:.60}")
    n = V ** T
    idx = np.arange(n)
    reg = np.empty((n, T))
    for t in range(T):
        tab = check_finite_array(f"reg_tables[{t}]", reg_tables[t])
        if tab.shape != (V ** t, V):
            raise ValueError(f"reg_tables[{t}] must have shape ({V ** t}, {V}), got {tab.shape}")
        rows = idx // V ** (T - t)
        tok = (idx // V ** (T - 1 - t)) % V
        reg[:, t] = tab[rows, tok]
    rho = np.exp(_per_step_log_ratio(pi, mu))
    Pmu, Ppi = np.exp(sequence_log_probs(mu)), np.exp(sequence_log_probs(pi))
    disc = gamma ** np.arange(T)
    target = float(Ppi @ (reg @ disc))
    est = np.empty(n)
    for y in range(n):
        if recursion == "correct":
            est[y] = truncated_is_accumulation(reg[y], rho[y], gamma=gamma)[1][0]
        else:
            est[y] = rho[y, 0] * transcribed_accumulation(reg[y], rho[y], gamma=gamma)[0]
    return float(Pmu @ est), target


# ---------------------------------------------------------------------------
# random cases (chunk functions)
# ---------------------------------------------------------------------------

def dapo_chain_cases(rng, n, *, V: int, T: int):
    """``KL(P^π‖P^μ)`` by enumeration vs the chain rule; scale ``Σ_y P^π(y)(|log P^π(y)| + |log P^μ(y)|)``,
    the sensitivity of the ``V**T``-term sum to a unit roundoff in every log-probability."""
    rng, n = chunk_args(rng, n, hi=10_000)
    V, T = enum_size(V, T, max_seq=4096)
    lhs, rhs, sc = np.empty(n), np.empty(n), np.empty(n)
    for i in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.5), TabularPolicy.random(V, T, rng, scale=1.5)
        lhs[i], rhs[i] = trajectory_kl(pi, mu), trajectory_kl_chain(pi, mu)
        lp, lm = sequence_log_probs(pi), sequence_log_probs(mu)
        sc[i] = float(np.exp(lp) @ (np.abs(lp) + np.abs(lm)))
    return lhs, rhs, sc


def dapo_gradient_cases(rng, n, *, V: int, T: int):
    """The reward-to-go form of ``∇_θ KL(P^π‖P^μ)`` vs the complex-step derivative, ``n`` random pairs."""
    rng, n = chunk_args(rng, n, hi=1000)
    V, T = enum_size(V, T, max_seq=64)
    lhs, rhs = [], []
    for _ in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.5), TabularPolicy.random(V, T, rng, scale=1.5)
        lhs += [x.ravel() for x in kl_gradient_reward_to_go(pi, mu)]
        rhs += [x.ravel() for x in kl_gradient_complex_step(pi, mu)]
    return np.concatenate(lhs), np.concatenate(rhs)


def accumulation_onpolicy_cases(rng, n, *, recursion: str):
    """All ratios 1, no truncation: the accumulation vs the discounted reward-to-go.

    Scale of entry ``k``: ``Σ_{j≥k} γ^{j−k} |reg_j|`` (the accumulated terms; the per-step
    values span five decades, so an absolute or mixed tolerance would not fit every entry).
    """
    _choice("recursion", recursion, ("correct", "transcribed"))
    rng, n = chunk_args(rng, n)
    lhs, rhs, sc = [], [], []
    for _ in range(n):
        L = int(rng.integers(2, 40))
        reg = rng.normal(size=L) * 10 ** rng.uniform(-1, 3, L)
        gamma = float(rng.uniform(0.1, 1.0))
        if recursion == "correct":
            D = truncated_is_accumulation(reg, gamma=gamma)[0]
        else:
            D = transcribed_accumulation(reg, gamma=gamma)
        lhs.append(D)
        rhs.append(discounted_reward_to_go(reg, gamma=gamma))
        sc.append(discounted_reward_to_go(np.abs(reg), gamma=gamma))
    return np.concatenate(lhs), np.concatenate(rhs), np.concatenate(sc)


def per_decision_cases(rng, n, *, V: int, T: int):
    """``(E_μ[V_0], E_π[Σ_j γ^j reg_j])`` of the correct recursion, ``n`` random pairs and per-step tables."""
    rng, n = chunk_args(rng, n, hi=1000)
    V, T = enum_size(V, T, max_seq=256)
    lhs, rhs = np.empty(n), np.empty(n)
    for i in range(n):
        pi, mu = TabularPolicy.random(V, T, rng, scale=1.0), TabularPolicy.random(V, T, rng, scale=1.0)
        reg = [rng.normal(size=(V ** t, V)) for t in range(T)]
        lhs[i], rhs[i] = per_decision_is_check(pi, mu, reg, gamma=float(rng.uniform(0.5, 1.0)))
    return lhs, rhs


def accumulation_errors(rng, n, *, L: int, gamma: float) -> dict:
    """``n`` random per-step divergences ``|reg| ∼ |N(0, 1)|`` of length ``L`` (all ratios 1): the errors
    ``|D_k − reward-to-go_k|`` of the correct and of the transcribed recursion, ``(n, L)`` each."""
    rng, n = chunk_args(rng, n)
    L = check_int("L", L, lo=1, hi=100_000)
    if n * L > 1 << 24:
        raise ValueError(f"n·L = {n * L} steps exceeds the limit {1 << 24} of one call")
    gamma = check_real("gamma", gamma, lo=0.0, hi=1.0)
    out = {"correct": np.empty((n, L)), "transcribed": np.empty((n, L))}
    for i in range(n):
        reg = np.abs(rng.normal(size=L))
        rtg = discounted_reward_to_go(reg, gamma=gamma)
        out["correct"][i] = np.abs(truncated_is_accumulation(reg, gamma=gamma)[0] - rtg)
        out["transcribed"][i] = np.abs(transcribed_accumulation(reg, gamma=gamma) - rtg)
    return out
