r"""One policy-gradient step on the logits, checked on random and fixed contexts.

The step ``Δz = ηA(e_a − p)`` (:func:`proofs_check.logits.logit_update`):
``Σ_j Δz_j = 0``, ``‖Δz‖ = η|A| sqrt(1 − 2p_a + Σ_b p_b²)``; the first-order
log-probability change has error ``O(η²)`` and the second-order KL ``O(η³)``,
so the step where each breaks scales like ``tol^{1/2}`` and ``tol``.

* chunk functions ``f(rng, n, *, ...)``: :func:`zero_sum_cases`,
  :func:`update_norm_cases` (random extreme contexts, ``(lhs, rhs, scale)``);
  :func:`approximation_error_curves`, :func:`breaking_step_curves`
  (deterministic: the worst error / smallest breaking step over
  :func:`logit_panel` at each point of :data:`ETA_GRID` / :data:`TOL_GRID`);
  :func:`random_context_norms`, :func:`approximation_trials` (dictionaries of
  named per-trial statistics, for the figures).

Theory page ``docs/theory/baselines.md#logit-dynamics``.
"""
from __future__ import annotations

import numpy as np

from proofs_check.logits import approximation_errors, breaking_step_size, logit_update, logit_update_norm, softmax

from proofs_check.engine import check_finite_array, check_int, check_real

from ._args import chunk_args, int_list
from .proxy import _extreme_args, extreme_logits

__all__ = ["zero_sum_cases", "update_norm_cases", "ETA_GRID", "TOL_GRID", "PANEL_SEED", "PANEL_SIZE",
           "logit_panel", "approximation_error_curves", "breaking_step_curves", "random_context_norms",
           "approximation_trials"]


def zero_sum_cases(rng, n, *, max_v: int, max_scale: float):
    """``Σ_j Δz_j`` (lhs) vs 0, ``|ηA| ≤ 10``, extreme logits; scale ``Σ_j |Δz_j|`` (the ``V``
    accumulated terms)."""
    rng, n = chunk_args(rng, n, hi=10_000)
    max_v, max_scale = _extreme_args(max_v, max_scale)
    lhs, sc = np.empty(n), np.empty(n)
    for i in range(n):
        z, a = extreme_logits(rng, max_v=max_v, max_scale=max_scale)
        dz = logit_update(z, a, rng.uniform(-1, 1), eta=float(rng.uniform(1e-3, 10)))
        lhs[i] = float(np.sum(dz))
        sc[i] = float(np.sum(np.abs(dz))) + np.finfo(float).tiny
    return lhs, np.zeros(n), sc


def update_norm_cases(rng, n, *, max_v: int, max_scale: float):
    """``‖Δz‖`` of the explicit update vs ``η|A| sqrt(1 − 2p_a + Σp²)``; scale ``‖Δz‖`` (relative:
    every entry of Δz is computed to full relative accuracy)."""
    rng, n = chunk_args(rng, n, hi=10_000)
    max_v, max_scale = _extreme_args(max_v, max_scale)
    lhs, rhs = np.empty(n), np.empty(n)
    for i in range(n):
        z, a = extreme_logits(rng, max_v=max_v, max_scale=max_scale)
        A, eta = float(rng.uniform(-3, 3)), float(rng.uniform(1e-3, 3))
        lhs[i] = float(np.linalg.norm(logit_update(z, a, A, eta=eta)))
        rhs[i] = float(logit_update_norm(z, a, A, eta=eta))
    return lhs, rhs, np.maximum(np.abs(lhs), np.finfo(float).tiny)


ETA_GRID = (1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
TOL_GRID = (1e-8, 1e-7, 1e-6, 1e-5, 1e-4)
#: The fixed panel of contexts of the logit scaling claims: ``PANEL_SIZE`` contexts
#: ``z ~ 2·N(0, I_V)``, ``a`` uniform, drawn once from ``SeedSequence(PANEL_SEED)`` — chosen
#: before any data, so the fits are deterministic (``ScalingClaim(deterministic=True)``).
PANEL_SEED = 20_260_601
PANEL_SIZE = 8


def logit_panel(*, V: int = 8, size: int = PANEL_SIZE) -> list:
    """The fixed contexts ``[(z, a), ...]`` of the logit scaling claims (no dependence on the run's rng)."""
    V = check_int("V", V, lo=2, hi=100_000)
    size = check_int("size", size, lo=1, hi=1000)
    g = np.random.default_rng(np.random.SeedSequence(PANEL_SEED))
    out = []
    for _ in range(size):
        z = g.standard_normal(V) * 2
        out.append((z, int(g.integers(V))))
    return out


def approximation_error_curves(rng, n, *, order: int, V: int):
    """Worst error over :func:`logit_panel` of the first-order (order 1) or second-order
    (order 2, absolute) approximation at each step of ETA_GRID (``A = 1``).

    Deterministic: ``rng`` is not used; the ``n`` rows are identical.
    """
    rng, n = chunk_args(rng, n)
    order = _order(order)
    curves = []
    for z, a in logit_panel(V=V):
        e = approximation_errors(z, a, 1.0, np.array(ETA_GRID))
        curves.append(e["first_order"] if order == 1 else e["second_order"])
    return np.repeat(np.max(curves, axis=0)[None, :], n, axis=0)


def breaking_step_curves(rng, n, *, order: int, V: int):
    """Smallest step over :func:`logit_panel` at which the approximation error first exceeds each
    tolerance of TOL_GRID (``A = 1``).  Deterministic: ``rng`` is not used."""
    rng, n = chunk_args(rng, n)
    order = _order(order)
    V = check_int("V", V, lo=2, hi=64)
    steps = [[breaking_step_size(z, a, 1.0, order=order, tol=tol, eta_hi=100.0) for tol in TOL_GRID]
             for z, a in logit_panel(V=V)]
    return np.repeat(np.min(steps, axis=0)[None, :], n, axis=0)


def _order(order):
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order not in (1, 2):
        raise ValueError(f"order must be 1 (log-prob change) or 2 (KL), got {order!r:.60}")
    return int(order)


# ---------------------------------------------------------------------------
# experiments on random contexts (chunk functions for figures)
# ---------------------------------------------------------------------------

def random_context_norms(rng, n, *, V: int, scale: float) -> dict:
    """``n`` random contexts ``z ∼ scale·N(0, I_V)``, ``a`` uniform: ``p_a`` and ``‖Δz‖/(η|A|)``."""
    rng, n = chunk_args(rng, n)
    V = check_int("V", V, lo=2, hi=100_000)
    if n * V > 1 << 26:
        raise ValueError(f"n·V = {n * V} logits exceeds the limit {1 << 26} of one call")
    scale = check_real("scale", scale, lo=0.0, hi=1e6)
    z = rng.standard_normal((n, V)) * scale
    a = rng.integers(0, V, n)
    p = softmax(z)
    return {"p_a": p[np.arange(n), a], "norm": logit_update_norm(z, a, 1.0, eta=1.0)}


def approximation_trials(rng, n, *, Vs, etas, tol_first: float, tol_second: float, eta_hi: float) -> dict:
    """``n`` trials; each draws one context per ``V`` of ``Vs`` (``z ∼ 2·N(0, I_V)``, ``a`` uniform) and
    returns, under ``V<V>/``, the chosen token, the first-order error and the second-order KL's relative
    error at every step of ``etas`` (``A = 1``), and the steps where they first exceed ``tol_first`` and
    ``tol_second`` (:func:`~proofs_check.logits.breaking_step_size`, searched up to ``eta_hi``)."""
    rng, n = chunk_args(rng, n, hi=1000)
    Vs = int_list("Vs", Vs, lo=2, hi=4096)
    etas = check_finite_array("etas", etas, ndim=1)
    if etas.size == 0 or etas.size > 1000 or np.any(etas <= 0):
        raise ValueError("etas must hold 1 to 1000 positive step sizes")
    tol_first = check_real("tol_first", tol_first, lo=0.0, lo_open=True)
    tol_second = check_real("tol_second", tol_second, lo=0.0, lo_open=True)
    eta_hi = check_real("eta_hi", eta_hi, lo=1e-8, lo_open=True)
    out = {}
    for V in Vs:
        rows = {"action": np.empty(n, dtype=np.int64), "first_order": np.empty((n, etas.size)),
                "second_order_rel": np.empty((n, etas.size)), "break_first": np.empty(n),
                "break_second": np.empty(n)}
        for i in range(n):
            z = rng.standard_normal(V) * 2
            act = int(rng.integers(V))
            e = approximation_errors(z, act, 1.0, etas)
            rows["action"][i] = act
            rows["first_order"][i] = e["first_order"]
            rows["second_order_rel"][i] = e["second_order_rel"]
            rows["break_first"][i] = breaking_step_size(z, act, 1.0, order=1, tol=tol_first, eta_hi=eta_hi)
            rows["break_second"][i] = breaking_step_size(z, act, 1.0, order=2, tol=tol_second, eta_hi=eta_hi)
        out.update({f"V{V}/{k}": v for k, v in rows.items()})
    return out
