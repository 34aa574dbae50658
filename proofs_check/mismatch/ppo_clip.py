r"""Token-level PPO clipping and where it leaks (theory ``mismatch.md#ppo-clip``; theory ``mismatch.md#trm``).

Per token, ratio ``ρ_t = π(y_t|c_t)/μ(y_t|c_t)``, advantage ``A``, clip range ``ε``:

.. math::  \ell(\rho, A) = \min\big(\rho A,\ \operatorname{clip}(\rho, 1-\varepsilon, 1+\varepsilon) A\big).

Its derivative in ρ is ``A`` where the unclipped branch is the minimum and 0 elsewhere
(:func:`ppo_clip_gradient`).  For ``A > 0`` the unclipped branch is active iff ``ρ < 1 + ε``,
for ``A < 0`` iff ``ρ > 1 − ε`` (:func:`unclipped_active`).  So the gradient still flows from
tokens *outside* the clip range — the **leak** (:func:`clip_leak`, CONFIRMED, ``trm``):
``ρ > 1 + ε`` with ``A < 0``, and ``ρ < 1 − ε`` with ``A > 0``.  Token masking (dropping the
tokens whose ratio is outside ``[1 − ε, 1 + ε]``, :func:`token_keep_mask`) never rejects a
response, so the largest per-context KL among the contexts of responses that still carry
gradient is unchanged: ``max_{t,c} KL(c)`` is a property of the policy pair, not of the tokens
kept (CONFIRMED, ``trm``; only sequence-level masking bounds it).

:func:`ppo_path_trials` (experiment :data:`~.experiments.PPO_PATHS`) draws a fresh ``low_prob`` policy pair,
one response ``y ∼ μ`` and a reward ``R ~ U(0, 1)`` (advantage ``A = R − ½``) per trial;
:func:`leak_events` and :func:`token_mask_violations` count the events the claims bound.
"""
from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..engine import as_generator, check_finite_array, check_int, check_real, shown
from ..policies import sample_responses, token_log_probs
from .pairs import draw_pair
from .trm_oracle import exact_path_kl

__all__ = ["ppo_clip_objective", "ppo_clip_gradient", "unclipped_active", "clip_leak",
           "token_keep_mask", "leak_cases", "ppo_path_trials", "leak_events",
           "token_mask_violations"]


def _args(rho, adv, eps):
    rho = check_finite_array("rho", rho)
    adv = check_finite_array("adv", adv)
    if np.any(rho < 0):
        raise ValueError(f"rho must be ≥ 0 (a probability ratio), got min {rho.min()!r}")
    eps = check_real("eps", eps, lo=0.0, hi=1.0, lo_open=True, hi_open=True)
    try:
        rho, adv = np.broadcast_arrays(rho, adv)
    except ValueError:
        raise ValueError(f"rho and adv must broadcast, got shapes {rho.shape} and {adv.shape}") from None
    return rho, adv, eps


def ppo_clip_objective(rho, adv, eps: float) -> np.ndarray:
    r"""``min(ρ A, clip(ρ, 1 − ε, 1 + ε) A)`` elementwise (``0 < ε < 1``)."""
    rho, adv, eps = _args(rho, adv, eps)
    return np.minimum(rho * adv, np.clip(rho, 1.0 - eps, 1.0 + eps) * adv)


def unclipped_active(rho, adv, eps: float) -> np.ndarray:
    """Where the unclipped branch ``ρA`` is the strict minimum's branch (the gradient flows):
    ``(A > 0 ∧ ρ < 1 + ε) ∨ (A < 0 ∧ ρ > 1 − ε)``."""
    rho, adv, eps = _args(rho, adv, eps)
    return ((adv > 0) & (rho < 1.0 + eps)) | ((adv < 0) & (rho > 1.0 - eps))


def ppo_clip_gradient(rho, adv, eps: float) -> np.ndarray:
    """``∂ℓ/∂ρ``: ``A`` where :func:`unclipped_active`, else 0 (off the kinks ``ρ = 1 ± ε``)."""
    rho, adv, eps = _args(rho, adv, eps)
    return np.where(unclipped_active(rho, adv, eps), adv, 0.0)


def clip_leak(rho, adv, eps: float) -> np.ndarray:
    """The leak: the gradient flows although ``ρ`` is outside ``[1 − ε, 1 + ε]`` —
    ``(ρ > 1 + ε ∧ A < 0) ∨ (ρ < 1 − ε ∧ A > 0)``."""
    rho, adv, eps = _args(rho, adv, eps)
    outside = (rho > 1.0 + eps) | (rho < 1.0 - eps)
    return unclipped_active(rho, adv, eps) & outside


def token_keep_mask(rho, eps: float) -> np.ndarray:
    """Token masking: keep the tokens with ``1 − ε ≤ ρ_t ≤ 1 + ε`` (the response is never rejected)."""
    rho, _, eps = _args(rho, 0.0, eps)
    return (rho >= 1.0 - eps) & (rho <= 1.0 + eps)


def leak_cases(rng, n, *, margin: float = 1e-3):
    """Identity cases: the central finite difference of :func:`ppo_clip_objective` in ρ (the
    objective is piecewise linear, so it is exact off the kinks) against :func:`ppo_clip_gradient`.

    ρ log-uniform on ``[e^{-3}, e^{3}]``, ``A ~ N(0, 1)``, ``ε ~ U[0.05, 0.3]``; points within a
    relative ``margin`` of a kink ``ρ = 1 ± ε`` are redrawn (the derivative is undefined there).
    Returns ``(lhs, rhs)``."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=1_000_000)
    margin = check_real("margin", margin, lo=1e-9, hi=0.1)
    lhs, rhs = np.empty(n), np.empty(n)
    for i in range(n):
        while True:
            rho = float(np.exp(rng.uniform(-3.0, 3.0)))
            eps = float(rng.uniform(0.05, 0.3))
            if min(abs(rho - 1 - eps), abs(rho - 1 + eps)) > margin * rho:
                break
        adv = float(rng.standard_normal())
        h = 1e-6 * rho
        fd = (ppo_clip_objective(rho + h, adv, eps) - ppo_clip_objective(rho - h, adv, eps)) / (2 * h)
        lhs[i] = float(fd)
        rhs[i] = float(ppo_clip_gradient(rho, adv, eps))
    return lhs, rhs


def ppo_path_trials(rng, n, *, V: int = 2, T: int = 6, generator: str = "low_prob") -> dict:
    """``n`` independent trials: a fresh policy pair of ``generator``
    (:func:`~.pairs.draw_pair`), one response ``y ∼ μ`` and a reward ``R ~ U(0, 1)``.

    Statistics: ``log_rho`` (``(n, T)``, ``log π(y_t) − log μ(y_t)`` from the sampled tokens'
    log-probs), ``kl_exact`` (``(n, T)``, the oracle ``KL(μ‖π)`` at each visited context,
    :func:`~.trm_oracle.exact_path_kl`) and ``adv`` (``(n,)``, ``A = R − ½``)."""
    rng = as_generator(rng)
    n = check_int("n", n, lo=0, hi=1_000_000)
    V = check_int("V", V, lo=2, hi=8)
    T = check_int("T", T, lo=1, hi=12)
    out = {"log_rho": np.empty((n, T)), "kl_exact": np.empty((n, T)), "adv": np.empty(n)}
    for i in range(n):
        mu, pi = draw_pair(rng, generator, V, T)
        y = sample_responses(mu, 1, rng)
        out["log_rho"][i] = token_log_probs(pi, y)[0][0] - token_log_probs(mu, y)[0][0]
        out["kl_exact"][i] = exact_path_kl(mu, pi, y)[0]
        out["adv"][i] = float(rng.uniform()) - 0.5
    return out


def _stats(stats):
    if not isinstance(stats, Mapping):
        raise TypeError(f"stats must be a mapping of statistics (a dict), got {shown(stats)}")
    missing = [k for k in ("log_rho", "kl_exact", "adv") if k not in stats]
    if missing:
        raise ValueError(f"stats lacks the statistic(s) {missing}")
    lr = check_finite_array("stats['log_rho']", stats["log_rho"], ndim=2)
    kl = check_finite_array("stats['kl_exact']", stats["kl_exact"], ndim=2)
    adv = check_finite_array("stats['adv']", stats["adv"], ndim=1)
    if kl.shape != lr.shape or adv.shape != lr.shape[:1]:
        raise ValueError(f"stats shapes disagree: log_rho {lr.shape}, kl_exact {kl.shape}, adv {adv.shape}")
    return np.exp(np.clip(lr, -700.0, 700.0)), kl, adv


def leak_events(stats, *, eps: float) -> int:
    """Trials in which token-level clipping lets gradient through from at least one token whose
    ratio lies outside ``[1 − ε, 1 + ε]`` (:func:`clip_leak` at some position)."""
    rho, _, adv = _stats(stats)
    return int(np.sum(clip_leak(rho, adv[:, None], eps).any(axis=1)))


def token_mask_violations(stats, *, eps: float, delta: float) -> int:
    """Trials in which token masking keeps at least one token (the response still carries
    gradient) while the response passes a context with exact ``KL(c_t) > δ``."""
    rho, kl, _ = _stats(stats)
    delta = check_real("delta", delta, lo=0.0, lo_open=True)
    keep = token_keep_mask(rho, eps)
    return int(np.sum(keep.any(axis=1) & (kl.max(axis=1) > delta)))
