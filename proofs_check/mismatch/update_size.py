r"""Experiments of theory ``mismatch.md#update-size`` on the staleness toy: mismatch grows with the update size.

Built on :func:`.staleness.run_sgd` (a ``V = 3, T = 2`` tabular policy, exact or
sampled REINFORCE gradients): the KL between a ``k``-step-stale policy and the
current one against ``k``, ``η`` and ``B`` — the drift regime (exact gradient,
``∝ k² η²``) and the noise regime (flat reward, ``∝ k/B``) — and paired
differences of the sampler–trainer KL between step sizes.  The exact-gradient
curves ``f(rng, n, *, ...)`` use no randomness and repeat one row; the noisy
runs are experiments (:data:`~.experiments.NOISE_K`, :data:`~.experiments.NOISE_B`,
:data:`~.experiments.SAMPLER_KL`) that the claims reduce (:func:`stat`,
:func:`step_size_difference`) and the figure ``mismatch_staleness`` plots.
"""
from __future__ import annotations

import numpy as np

from ..policies import TabularPolicy
from .staleness import run_sgd, staleness_kl

__all__ = ["K_GRID", "B_GRID", "ETA_GRID", "TOY", "update_size_toy", "drift_k_curve", "drift_eta_curve",
           "noise_k_trials", "noise_B_trials", "sampler_kl_trials", "stat",
           "step_size_difference"]

#: Grids of staleness ``k``, batch ``B`` and step ``η``.
K_GRID = (1, 2, 4, 8, 16)
B_GRID = (4, 8, 16, 32, 64)
ETA_GRID = (0.0125, 0.025, 0.05, 0.1)
#: Parameters of the toy (shown in the claims' params).
TOY = {"V": 3, "T": 2, "toy_seed": 0}


def update_size_toy(seed=0, V=3, T=2):
    """The tabular toy of theory ``mismatch.md#update-size``: flat logits of ``TabularPolicy.random(V, T, seed)`` and a reward
    ``R ∼ U[0, 1]^{V^T}`` from ``default_rng(seed + 1)``."""
    pol = TabularPolicy.random(V, T, seed)
    R = np.random.default_rng(seed + 1).random(V ** T)
    return pol.flat_logits(), R


def drift_k_curve(rng, n, *, eta=0.05, steps=40):
    """Exact-gradient SGD: ``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` vs ``k`` (deterministic)."""
    th, R = update_size_toy()
    tr = run_sgd(th, R, 3, 2, eta=eta, steps=steps, mode="exact")
    row = [staleness_kl(tr, k, burn_in=16 - k) for k in K_GRID]
    return np.tile(row, (n, 1))


def drift_eta_curve(rng, n, *, steps=8):
    """Exact-gradient SGD: one-step KL vs ``η``."""
    th, R = update_size_toy()
    row = [staleness_kl(run_sgd(th, R, 3, 2, eta=e, steps=steps, mode="exact"), 1) for e in ETA_GRID]
    return np.tile(row, (n, 1))


def noise_k_trials(rng, n, *, eta=0.05, B=16, steps=120):
    """Noise regime: flat reward (``E ĝ = 0``), on-policy samples; one SGD run per trial.
    ``{"stale_kl": (n, len(K_GRID))}``, the stale KL ``KL(P^{θ_{s−k}} ‖ P^{θ_s})`` for each ``k``."""
    th, _ = update_size_toy()
    flat = np.full(9, 0.5)
    out = np.empty((n, len(K_GRID)))
    for i in range(n):
        tr = run_sgd(th, flat, 3, 2, eta=eta, steps=steps, B=B, rng=rng)
        out[i] = [staleness_kl(tr, k, burn_in=16 - k) for k in K_GRID]
    return {"stale_kl": out}


def noise_B_trials(rng, n, *, eta=0.05, steps=30):
    """Noise regime: one-step KL for each batch size of :data:`B_GRID` (one run per ``B`` per trial).
    ``{"one_step_kl": (n, len(B_GRID))}``."""
    th, _ = update_size_toy()
    flat = np.full(9, 0.5)
    out = np.empty((n, len(B_GRID)))
    for i in range(n):
        out[i] = [staleness_kl(run_sgd(th, flat, 3, 2, eta=eta, steps=steps, B=B, rng=rng), 1) for B in B_GRID]
    return {"one_step_kl": out}


def sampler_kl_trials(rng, n, *, etas=(0.025, 0.05, 0.1), k=4, B=16, steps=40, err_scale=0.02):
    """The sampler–trainer KL along training, for each step size, with a ``k``-step-stale sampler plus
    a fixed logit error.

    Each trial draws a fixed error ``e ∼ N(0, err_scale²)`` per logit and one seed used by every run
    (common random numbers across step sizes), and averages the antithetic pair ``e, −e`` (the cross
    term between the error and the drift has mean zero over ``e`` but a large variance; the pair
    cancels it to first order).  ``{"sampler_kl[η]": (n, steps)}`` for each ``η`` in ``etas``.
    """
    th, R = update_size_toy()
    out = {f"sampler_kl[{eta}]": np.empty((n, steps)) for eta in etas}
    for i in range(n):
        err = err_scale * rng.standard_normal(th.size)
        s = int(rng.integers(2 ** 31))
        for eta in etas:
            runs = [run_sgd(th, R, 3, 2, eta=eta, steps=steps, B=B, logit_error=sgn * err, staleness=k, rng=s)
                    for sgn in (1.0, -1.0)]
            out[f"sampler_kl[{eta}]"][i] = 0.5 * (runs[0].sampler_kl + runs[1].sampler_kl)
    return out


def stat(stats, *, name):
    """One named statistic of a chunk (the reduction of the scaling claims)."""
    return stats[name]


def step_size_difference(stats, *, eta_small, eta_large, k):
    """Per trial, ``KL̄(η_small) − KL̄(η_large)``: the mean sampler–trainer KL over steps ``≥ k``
    (after the stale queue has filled), paired by trial."""
    a, b = stats[f"sampler_kl[{eta_small}]"], stats[f"sampler_kl[{eta_large}]"]
    return a[:, k:].mean(axis=1) - b[:, k:].mean(axis=1)
